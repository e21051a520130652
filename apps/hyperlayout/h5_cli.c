/* hyperlayout CLI — HDF5 datasets as inputs and outputs (h5_cli.h). */
#define _POSIX_C_SOURCE 200809L

#include "h5_cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bigbuf.h"
#include "cli.h"
#include "parse.h"

const char h5_options_help[] =
    "  --h5-mode replace|append  an HDF5 OUT (FILE.h5:/DATASET): replace (default)\n"
    "                          writes a new file holding DATASET only, atomically;\n"
    "                          append adds DATASET to the existing FILE.h5 (it must\n"
    "                          not be there yet), every other dataset kept: the\n"
    "                          file is edited in a copy renamed over it, so on any\n"
    "                          failure FILE.h5 is as it was\n"
    "  --h5-chunk C,C,...      chunk dims of an HDF5 OUT, slowest first (HDF5's and\n"
    "                          NumPy's order); default contiguous (chunks of about\n"
    "                          1 MiB when filtered)\n"
    "  --h5-deflate N          gzip level 1-9 for an HDF5 OUT (chunked)\n"
    "  --h5-shuffle            the shuffle filter before deflate\n";

static bool has_ext(const char *s, size_t len)
{
    static const char *const ext[] = {".h5", ".hdf5", ".he5", ".H5", ".hdf"};
    for (size_t e = 0; e < sizeof ext / sizeof *ext; e++) {
        const size_t n = strlen(ext[e]);
        if (len >= n && !strncmp(s + len - n, ext[e], n))
            return true;
    }
    return false;
}

bool h5_path(const char *arg, char *file, size_t fcap, char *dset, size_t dcap)
{
    if (!arg)
        return false;
    const size_t len = strlen(arg);
    size_t flen = len;
    const char *colon = NULL;
    if (!has_ext(arg, len)) {
        /* FILE.h5:DATASET: the first ':' after an HDF5 extension */
        for (const char *c = strchr(arg, ':'); c; c = strchr(c + 1, ':'))
            if (has_ext(arg, (size_t)(c - arg))) {
                colon = c;
                break;
            }
        if (!colon)
            return false;
        flen = (size_t)(colon - arg);
    }
    snprintf(file, fcap, "%.*s", (int)flen, arg);
    snprintf(dset, dcap, "%s", colon ? colon + 1 : "");
    return true;
}

typedef struct {
    int count;
    char first[H5_NAME_MAX];
    char names[512];
} only_one;

static int collect(const char *name, const hl_h5_info *info, void *user)
{
    (void)info;
    only_one *o = user;
    if (o->count++ == 0)
        snprintf(o->first, sizeof o->first, "%s", name);
    const size_t used = strlen(o->names);
    if (used < sizeof o->names - 1)
        snprintf(o->names + used, sizeof o->names - used, "%s%s", used ? ", " : "", name);
    return 0;
}

/* The dataset to read when ARG names none: the only one. */
static hl_status only_dataset(const char *file, char *dset, size_t dcap, char *why, size_t cap)
{
    only_one o = {0};
    hl_status st = hl_h5_list(file, collect, &o, why, cap);
    if (st != HL_OK)
        return st;
    if (o.count != 1) {
        snprintf(why, cap, "%s: %s; name one as %s:/DATASET", file,
                 o.count ? "holds several datasets" : "holds no dataset", file);
        if (o.count) {
            const size_t used = strlen(why);
            snprintf(why + used, cap - used, " (%s)", o.names);
        }
        return HL_ERR_ARG;
    }
    snprintf(dset, dcap, "%s", o.first);
    return HL_OK;
}

/* NumPy's descr of the data as loaded (native byte order). */
static void loaded_descr(const hl_h5_info *h, char *descr, size_t cap)
{
    static const char *const native[HL_DTYPE_COUNT] = {
        [HL_DTYPE_INT8] = "|i1", [HL_DTYPE_INT16] = "<i2", [HL_DTYPE_INT32] = "<i4",
        [HL_DTYPE_INT64] = "<i8", [HL_DTYPE_UINT8] = "|u1", [HL_DTYPE_UINT16] = "<u2",
        [HL_DTYPE_UINT32] = "<u4", [HL_DTYPE_UINT64] = "<u8", [HL_DTYPE_FLOAT16] = "<f2",
        [HL_DTYPE_FLOAT32] = "<f4", [HL_DTYPE_FLOAT64] = "<f8", [HL_DTYPE_COMPLEX64] = "<c8",
        [HL_DTYPE_COMPLEX128] = "<c16", [HL_DTYPE_BOOL] = "|b1"};
    const hl_dtype t = h->shape.dtype;
    snprintf(descr, cap, "%s", t > 0 && t < HL_DTYPE_COUNT && native[t] ? native[t] : h->descr);
}

/* Slabs of this many bytes at most between the file and memory. */
enum { SLAB_BYTES = 64 << 20 };

hl_status h5_source_open(npy_source *s, const char *arg, char *why, size_t cap)
{
    char file[4096], dset[H5_NAME_MAX];
    memset(s, 0, sizeof *s);
    if (!h5_path(arg, file, sizeof file, dset, sizeof dset))
        return HL_ERR_ARG;
    hl_status st = HL_OK;
    if (!dset[0] && (st = only_dataset(file, dset, sizeof dset, why, cap)) != HL_OK)
        return st;
    hl_h5_info h;
    st = hl_h5_reader_open(&s->h5, file, dset, &h, why, cap);
    if (st != HL_OK)
        return st;
    hl_npy_info *info = &s->info;
    info->shape = h.shape;
    info->version_major = 1;
    loaded_descr(&h, info->descr, sizeof info->descr);
    info->ndim = h.ndim;
    for (int i = 0; i < h.ndim; i++)
        info->numpy_shape[i] = h.dims[i];
    info->data_bytes = hl_shape_bytes(&h.shape);
    info->file_bytes = -1;
    s->buf_len = (size_t)info->data_bytes;
    s->buf = bigbuf_alloc(s->buf_len);
    if (!s->buf) {
        snprintf(why, cap, "%s:%s: %s", file, dset, strerror(ENOMEM));
        npy_source_close(s);
        return HL_ERR_NOMEM;
    }
    const int64_t elem = h.shape.elem_size, n = hl_shape_count(&h.shape);
    const int64_t slab = SLAB_BYTES / elem > 0 ? SLAB_BYTES / elem : 1;
    for (int64_t at = 0; st == HL_OK && at < n; at += slab) {
        const int64_t count = n - at < slab ? n - at : slab;
        st = hl_h5_reader_read(s->h5, at, count, s->buf + at * elem, why, cap);
    }
    if (st != HL_OK) {
        npy_source_close(s);
        return st;
    }
    s->data = s->buf;
    snprintf(s->member, sizeof s->member, "%.*s", (int)(sizeof s->member - 1), dset);
    return HL_OK;
}

static void print_dims(const int64_t *d, int n)
{
    putchar('(');
    for (int i = 0; i < n; i++)
        printf("%s%" PRId64, i ? ", " : "", d[i]);
    printf(n == 1 ? ",)" : ")");
}

static int list_one(const char *name, const hl_h5_info *h, void *user)
{
    const char **file = user;
    if (*file) { /* the file line once the file opened */
        printf("file          %s\n", *file);
        *file = NULL;
    }
    printf("dataset       %s ", name);
    print_dims(h->dims, h->ndim);
    printf(" '%s' %s", h->descr, h->type);
    if (h->chunked) {
        printf(", chunks ");
        print_dims(h->chunk, h->ndim);
    } else {
        printf(", contiguous");
    }
    if (h->filters[0])
        printf(", filters %s", h->filters);
    if (h->nattrs)
        printf(", %d attribute%s", h->nattrs, h->nattrs == 1 ? "" : "s");
    if (h->unsupported)
        printf(", unsupported: %s", h->unsupported);
    putchar('\n');
    return 0;
}

int h5_info(const char *arg)
{
    char file[4096], dset[H5_NAME_MAX], why[2048] = "";
    (void)h5_path(arg, file, sizeof file, dset, sizeof dset);
    if (!dset[0]) {
        const char *pending = file;
        const hl_status st = hl_h5_list(file, list_one, &pending, why, sizeof why);
        if (st != HL_OK)
            return cli_error("info", "%s", why[0] ? why : hl_strerror(st));
        if (pending)
            printf("file          %s\n(no datasets)\n", file);
        return 0;
    }
    hl_h5_info h;
    const hl_status st = hl_h5_info_get(file, dset, &h, why, sizeof why);
    if (st != HL_OK)
        return cli_error("info", "%s", why[0] ? why : hl_strerror(st));
    printf("file          %s\n", file);
    printf("dataset       %s\n", dset);
    printf("format        HDF5\n");
    printf("hdf5 dims     ");
    print_dims(h.dims, h.ndim);
    printf("%s\n", h.ndim == 0 ? " (scalar)" : "");
    printf("numpy descr   '%s'\n", h.descr);
    printf("hdf5 type     %s\n", h.type);
    if (h.chunked) {
        printf("layout        chunked ");
        print_dims(h.chunk, h.ndim);
        putchar('\n');
    } else {
        printf("layout        contiguous\n");
    }
    printf("filters       %s\n", h.filters[0] ? h.filters : "none");
    printf("attributes    %d\n", h.nattrs);
    if (h.unsupported) {
        printf("unsupported   %s\n", h.unsupported);
        return 0;
    }
    char text[HL_SHAPE_NOTATION_MAX];
    hl_shape_format(&h.shape, text, sizeof text);
    printf("notation      %s\n", text);
    printf("rank          %d\n", h.shape.rank);
    printf("extents       {");
    for (int i = 0; i < h.shape.rank; i++)
        printf("%s%" PRId64, i ? ", " : "", h.shape.extent[i]);
    printf("}  (L0 first)\nN             %" PRId64 "\n", hl_shape_count(&h.shape));
    printf("element size  %" PRId64 "\n", h.shape.elem_size);
    printf("data bytes    %" PRId64 "\n", hl_shape_bytes(&h.shape));
    printf("stored bytes  %" PRId64 "\n", h.storage_bytes);
    return 0;
}

int h5_parse_option(const char *cmd, int argc, char **argv, int *i, h5_out_options *o)
{
    const char *arg = argv[*i];
    const char *value = *i + 1 < argc ? argv[*i + 1] : NULL;
    if (!strcmp(arg, "--h5-mode")) {
        if (!value || (strcmp(value, "replace") && strcmp(value, "append")))
            return cli_error(cmd, "--h5-mode needs 'replace' or 'append'");
        o->append = !strcmp(value, "append");
    } else if (!strcmp(arg, "--h5-deflate")) {
        int64_t v;
        if (!value || parse_i64(value, 0, 9, &v) != 0)
            return cli_error(cmd, "--h5-deflate needs a level from 0 (none) to 9");
        o->deflate = (int)v;
    } else if (!strcmp(arg, "--h5-shuffle")) {
        o->shuffle = true;
        return 0;
    } else if (!strcmp(arg, "--h5-chunk")) {
        if (!value)
            return cli_error(cmd, "--h5-chunk needs chunk dims, slowest first (e.g. 16,64,64)");
        o->nchunk = 0;
        const char *p = value;
        while (*p) {
            char part[32];
            const size_t len = strcspn(p, ",x");
            int64_t v;
            if (len == 0 || len >= sizeof part || o->nchunk >= HL_H5_MAX_NDIM)
                return cli_error(cmd, "--h5-chunk '%s': expected dims like 16,64,64", value);
            memcpy(part, p, len);
            part[len] = '\0';
            if (parse_i64(part, 1, INT64_MAX, &v) != 0)
                return cli_error(cmd, "--h5-chunk '%s': '%s' is not a positive count", value, part);
            o->chunk[o->nchunk++] = v;
            p += len;
            if (*p)
                p++;
        }
    } else {
        return -1;
    }
    (*i)++;
    return 0;
}

int h5_check_output(const char *cmd, const char *in, const char *out, const h5_out_options *o)
{
    char inf[4096], ind[H5_NAME_MAX], outf[4096], outd[H5_NAME_MAX];
    struct stat si, so;
    const bool h5out = out && h5_path(out, outf, sizeof outf, outd, sizeof outd);
    const char *given = !o               ? NULL
                        : o->append      ? "--h5-mode append"
                        : o->deflate > 0 ? "--h5-deflate"
                        : o->shuffle     ? "--h5-shuffle"
                        : o->nchunk > 0  ? "--h5-chunk"
                                         : NULL;
    if (out && !h5out && given) /* not ignored in silence */
        return cli_error(cmd, "%s applies to an HDF5 OUT (FILE.h5:/DATASET), not %s", given,
                         strcmp(out, "-") ? out : "standard output");
    if (!in || !out || (o && o->append) || !h5_path(in, inf, sizeof inf, ind, sizeof ind) ||
        !h5out || stat(inf, &si) != 0 ||
        stat(outf, &so) != 0 || si.st_dev != so.st_dev || si.st_ino != so.st_ino)
        return -1;
    return cli_error(cmd, "%s is IN's file: --h5-mode replace would leave only the new dataset "
                     "in it (add it with --h5-mode append)", outf);
}
