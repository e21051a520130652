/* hyperlayout info — what a .npy file (or a member of a .npz archive) holds,
 * in NumPy's terms and in hyperlayout's: shape and descr, order, notation,
 * extents L0 first, sizes.  Any valid header is shown, also one the other
 * commands cannot process (the "unsupported" line says why). */
#define _DEFAULT_SOURCE /* mmap */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "h5_cli.h"

static const char info_usage[] =
    "usage: hyperlayout info FILE.npy\n"
    "       hyperlayout info FILE.npz           (lists the members)\n"
    "       hyperlayout info FILE.npz:NAME      (one member, as for a .npy file)\n"
    "       hyperlayout info -                  (standard input: a .npy file or a\n"
    "                                           .npz archive)\n"
    "       hyperlayout info FILE.h5            (lists the HDF5 datasets)\n"
    "       hyperlayout info FILE.h5:/DATASET   (one dataset)\n"
    "\n"
    "Reads the header of a NumPy .npy file (format version 1.0, 2.0 or 3.0) and\n"
    "prints, one per line:\n"
    "  file          the path\n"
    "  format        .npy version\n"
    "  numpy shape   the shape as NumPy prints it, most significant first\n"
    "  numpy descr   the dtype as NumPy writes it (e.g. '<f4', '|S5', or the list\n"
    "                of fields of a structured dtype)\n"
    "  fortran order yes: the data has NumPy's first axis fastest (loading\n"
    "                transposes it to C order); no: C order\n"
    "  byte order    for multi-byte numbers: little- or big-endian, and whether\n"
    "                loading swaps the bytes\n"
    "  unsupported   only when hyperlayout cannot hold the array (object dtype,\n"
    "                0-d or empty array, rank above 32, ...): what it is.  The\n"
    "                header is still shown and the exit status is 0; other\n"
    "                commands refuse such a file\n"
    "  notation      the hyperlayout shape, e.g. [4096,4095,float32]; types\n"
    "                other than the numeric ones below are bytesN (N = itemsize)\n"
    "  rank          number of dimensions\n"
    "  extents       L0 first: L0 is NumPy's last axis, the fastest varying\n"
    "  N             number of elements\n"
    "  element size  bytes per element (NumPy's itemsize)\n"
    "  data bytes    N * element size (absent for an object array: a pickle)\n"
    "  data offset   where the data starts in the file (the header's size)\n"
    "  file bytes    the file's size (the member's, uncompressed)\n"
    "\n"
    "A .npz archive (np.savez, np.savez_compressed) is listed one member a line:\n"
    "  member        NAME (shape) 'descr' stored|deflated, SIZE bytes\n"
    "A member that is not a valid .npy file is listed with the error instead.\n"
    "A name listed twice: the earlier entries are marked hidden (ARCHIVE.npz:NAME,\n"
    "like NumPy's np.load, reads the last one).\n"
    "An HDF5 file (.h5, .hdf5, .he5) is listed one dataset a line:\n"
    "  dataset       NAME (dims) 'descr' TYPE, chunks (dims) or contiguous,\n"
    "                filters, attributes\n"
    "and FILE.h5:/DATASET shows its HDF5 dims (slowest first, as NumPy's shape),\n"
    "type, layout, filters and attributes, then the lines above from notation on.\n"
    "\n"
    "Numeric types: bool, int8..int64, uint8..uint64, float16/32/64,\n"
    "complex64/128, either byte order.  A file that is malformed or truncated,\n"
    "or an unknown member, is a one-line error on stderr and exit status 2.\n"
    "\n"
    "  -h, --help   this text\n";

static void print_numpy_shape(const hl_npy_info *info)
{
    printf("(");
    for (int i = 0; i < info->ndim; i++)
        printf("%" PRId64 "%s", info->numpy_shape[i],
               i + 1 < info->ndim ? ", " : info->ndim == 1 ? "," : "");
    printf(")");
}

/* The byte order line: only where the descr has one that matters. */
static void print_byte_order(const hl_npy_info *info)
{
    char order = info->descr[0];
    if (info->structured || (order != '<' && order != '>'))
        return;
    bool numeric = info->unsupported == NULL && info->shape.dtype != HL_DTYPE_BYTES;
    printf("byte order    %s%s\n", order == '<' ? "little-endian" : "big-endian",
           info->swapped ? " (swapped on load)" : numeric ? " (native)" : " (kept as stored)");
}

static int print_info(const char *cmd, const char *file, const hl_npy_info *info, const char *where)
{
    printf("file          %s\n", file);
    printf("format        .npy version %d.%d%s\n", info->version_major, info->version_minor, where);
    printf("numpy shape   ");
    print_numpy_shape(info);
    printf("\n");
    if (info->structured)
        printf("numpy descr   %s\n", info->descr);
    else
        printf("numpy descr   '%s'\n", info->descr);
    printf("fortran order %s\n", info->fortran_order ? "yes" : "no");
    print_byte_order(info);
    if (info->unsupported) {
        printf("unsupported   %s (hyperlayout cannot load this array)\n", info->unsupported);
    } else {
        const hl_shape *s = &info->shape;
        char notation[HL_SHAPE_NOTATION_MAX];
        hl_status st = hl_shape_format(s, notation, sizeof notation);
        if (st != HL_OK)
            return cli_error(cmd, "%s: %s", file, hl_strerror(st));
        printf("notation      %s\n", notation);
        printf("rank          %d\n", s->rank);
        printf("extents       {");
        for (int i = 0; i < s->rank; i++)
            printf("%s%" PRId64, i ? ", " : "", s->extent[i]);
        printf("}  (L0 first)\n");
        printf("N             %" PRId64 "\n", hl_shape_count(s));
        printf("element size  %" PRId64 "\n", s->elem_size);
    }
    if (info->data_bytes >= 0)
        printf("data bytes    %" PRId64 "\n", info->data_bytes);
    printf("data offset   %" PRId64 "\n", info->data_offset);
    if (info->file_bytes >= 0)
        printf("file bytes    %" PRId64 "\n", info->file_bytes);
    return 0;
}

typedef struct mapped {
    const unsigned char *p;
    size_t len;
} mapped;

/* 1: path is a .npz (a zip: starts "PK"), mapped; 0: not one; -1: error (errno). */
static int map_if_zip(const char *path, mapped *m)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    struct stat sb;
    unsigned char magic[2];
    int r = 0;
    if (fstat(fd, &sb) != 0) {
        r = -1;
    } else if (S_ISREG(sb.st_mode) && sb.st_size >= 4 && pread(fd, magic, 2, 0) == 2 &&
               magic[0] == 'P' && magic[1] == 'K') {
        void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            r = -1;
        } else {
            m->p = p;
            m->len = (size_t)sb.st_size;
            r = 1;
        }
    }
    int e = errno;
    close(fd);
    errno = e;
    return r;
}

static int list_npz(const char *file, const mapped *z)
{
    int64_t count = 0;
    hl_status st = hl_npz_list(z->p, z->len, NULL, 0, &count);
    if (st != HL_OK && st != HL_ERR_BUFFER)
        return cli_error("info", "%s: %s", file, hl_strerror(st));
    hl_npz_member *m = calloc(count > 0 ? (size_t)count : 1, sizeof *m);
    if (!m)
        return cli_error("info", "%s: %s", file, hl_strerror(HL_ERR_NOMEM));
    st = hl_npz_list(z->p, z->len, m, count, &count);
    if (st != HL_OK) {
        free(m);
        return cli_error("info", "%s: %s", file, hl_strerror(st));
    }
    printf("file          %s\n", file);
    printf("format        .npz archive, %" PRId64 " member%s\n", count, count == 1 ? "" : "s");
    for (int64_t i = 0; i < count; i++) {
        hl_npy_info info;
        printf("member        %s ", m[i].name);
        st = hl_npz_member_header(z->p, z->len, &m[i], &info);
        if (st == HL_OK) {
            print_numpy_shape(&info);
            printf(info.structured ? " %s" : " '%s'", info.descr);
        } else {
            printf("(%s)", hl_strerror(st));
        }
        printf(" %s, %" PRId64 " bytes", m[i].method == 0 ? "stored" : m[i].method == 8 ? "deflated" : "compressed",
               m[i].size);
        /* one name twice: NumPy reads the last entry, and so does hyperlayout */
        bool hidden = false;
        for (int64_t j = i + 1; j < count && !hidden; j++)
            hidden = !strcmp(m[i].name, m[j].name);
        printf("%s\n", hidden ? " (hidden: a later member has this name, and NAME reads that one, "
                                "as NumPy does)" : "");
    }
    free(m);
    return 0;
}

static int show_member(const char *arg, const char *name, const mapped *z)
{
    hl_npz_member m;
    hl_status st = hl_npz_find(z->p, z->len, name, &m);
    if (st != HL_OK)
        return cli_error("info", "%s: %s", arg, hl_strerror(st));
    hl_npy_info info;
    st = hl_npz_member_header(z->p, z->len, &m, &info);
    if (st != HL_OK)
        return cli_error("info", "%s: %s", arg, hl_strerror(st));
    return print_info("info", arg, &info, m.method == 0 ? " (a stored .npz member)" : " (a deflated .npz member)");
}

/* `-`: standard input, read as it comes (a pipe cannot be mapped or read
 * twice).  An archive is kept whole to be listed; of a .npy only the header
 * is kept and the data counted, so that a large array needs no memory.
 * file bytes is shown where standard input is a regular file. */
static const char stdin_name[] = "standard input";

static int read_more(unsigned char **buf, size_t *len, size_t *room, size_t want)
{
    while (*len < want) {
        if (*len == *room) {
            size_t grown = *room ? 2 * *room : 1 << 16;
            unsigned char *p = realloc(*buf, grown);
            if (!p) {
                errno = ENOMEM;
                return -1;
            }
            *buf = p;
            *room = grown;
        }
        size_t ask = (want < *room ? want : *room) - *len;
        ssize_t r = read(STDIN_FILENO, *buf + *len, ask);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        *len += (size_t)r;
    }
    return 0;
}

static int info_stdin(void)
{
    struct stat sb;
    if (fstat(STDIN_FILENO, &sb) != 0)
        return cli_error("info", "%s: %s (%s)", stdin_name, hl_strerror(HL_ERR_IO), strerror(errno));
    if (S_ISDIR(sb.st_mode))
        return cli_error("info", "%s: %s (%s)", stdin_name, hl_strerror(HL_ERR_IO), strerror(EISDIR));
    unsigned char *buf = NULL;
    size_t len = 0, room = 0;
    int rc = 0;
    /* the preamble: "\x93NUMPY", version, header length (2 or 4 bytes) */
    if (read_more(&buf, &len, &room, 12) != 0) {
        rc = cli_error("info", "%s: %s (%s)", stdin_name, hl_strerror(HL_ERR_IO), strerror(errno));
    } else if (len >= 4 && buf[0] == 'P' && buf[1] == 'K') {
        if (read_more(&buf, &len, &room, SIZE_MAX) != 0) {
            rc = cli_error("info", "%s: %s (%s)", stdin_name, hl_strerror(HL_ERR_IO), strerror(errno));
        } else {
            const mapped z = {buf, len};
            rc = list_npz(stdin_name, &z);
        }
    } else {
        size_t need = len; /* not a .npy: the parser says so */
        if (len >= 10 && !memcmp(buf, "\x93NUMPY", 6) && buf[6] == 1)
            need = 10 + (size_t)buf[8] + ((size_t)buf[9] << 8);
        else if (len >= 12 && !memcmp(buf, "\x93NUMPY", 6) && (buf[6] == 2 || buf[6] == 3))
            need = 12 + ((size_t)buf[8] | (size_t)buf[9] << 8 | (size_t)buf[10] << 16 |
                         (size_t)buf[11] << 24);
        hl_npy_info info;
        hl_status st = HL_OK;
        if (need > 12 + (size_t)HL_NPY_MAX_HEADER)
            st = HL_ERR_UNSUPPORTED; /* as the file readers */
        else if (read_more(&buf, &len, &room, need) != 0)
            st = HL_ERR_IO;
        if (st == HL_OK)
            st = hl_npy_parse_header(buf, len, &info);
        /* the rest of the stream: its length */
        int64_t total = (int64_t)len;
        while (st == HL_OK) {
            len = 0;
            if (read_more(&buf, &len, &room, room) != 0)
                st = HL_ERR_IO;
            total += (int64_t)len;
            if (len < room)
                break;
        }
        if (st == HL_OK && info.data_bytes >= 0 && total - info.data_offset < info.data_bytes)
            st = HL_ERR_FORMAT; /* data truncated */
        if (st == HL_ERR_IO)
            rc = cli_error("info", "%s: %s (%s)", stdin_name, hl_strerror(st), strerror(errno));
        else if (st != HL_OK)
            rc = cli_error("info", "%s: %s", stdin_name, hl_strerror(st));
        else {
            info.file_bytes = S_ISREG(sb.st_mode) ? total : -1;
            rc = print_info("info", stdin_name, &info, "");
        }
    }
    free(buf);
    return rc;
}

int cmd_info(int argc, char **argv)
{
    const char *file = NULL;
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a];
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            fputs(info_usage, stdout);
            return 0;
        }
        if (!strcmp(arg, "--")) {
            if (a + 1 < argc && !file)
                file = argv[++a];
            if (a + 1 < argc)
                return cli_error("info", "one FILE only (see hyperlayout info --help)");
            break;
        }
        if (arg[0] == '-' && arg[1] != '\0')
            return cli_error("info", "unknown option '%s' (see hyperlayout info --help)", arg);
        if (file)
            return cli_error("info", "one FILE only (see hyperlayout info --help)");
        file = arg;
    }
    if (!file)
        return cli_error("info", "no FILE given (see hyperlayout info --help)");

    int rc;
    mapped z = {NULL, 0};
    if (!strcmp(file, "-")) {
        rc = info_stdin();
        if (rc != 0)
            return rc;
        if (fflush(stdout) != 0 || ferror(stdout))
            return 2;
        return 0;
    }
    char h5f[8], h5d[8];
    if (h5_path(file, h5f, sizeof h5f, h5d, sizeof h5d)) {
        rc = h5_info(file);
        if (rc == 0 && (fflush(stdout) != 0 || ferror(stdout)))
            return 2;
        return rc;
    }
    errno = 0;
    int zip = map_if_zip(file, &z);
    const char *colon = strrchr(file, ':');
    if (zip < 0 && errno == ENOENT && colon) {
        /* FILE.npz:NAME when no file has that whole name */
        char *archive = strndup(file, (size_t)(colon - file));
        if (!archive)
            return cli_error("info", "%s: %s", file, hl_strerror(HL_ERR_NOMEM));
        int e = 0;
        zip = map_if_zip(archive, &z);
        e = errno;
        if (zip == 1)
            rc = show_member(file, colon + 1, &z);
        else if (zip == 0)
            rc = cli_error("info", "%s: not a .npz archive, so it has no member '%s'", archive, colon + 1);
        else
            rc = cli_error("info", "%s: %s (%s)", archive, hl_strerror(HL_ERR_IO), strerror(e));
        free(archive);
    } else if (zip == 1) {
        rc = list_npz(file, &z);
    } else {
        hl_npy_info info;
        errno = 0;
        hl_status st = hl_npy_read_header(file, &info);
        if (st == HL_ERR_IO && errno != 0)
            return cli_error("info", "%s: %s (%s)", file, hl_strerror(st), strerror(errno));
        if (st != HL_OK)
            return cli_error("info", "%s: %s", file, hl_strerror(st));
        rc = print_info("info", file, &info, "");
    }
    if (z.p)
        munmap((void *)(uintptr_t)z.p, z.len);
    if (rc != 0)
        return rc;
    if (fflush(stdout) != 0 || ferror(stdout))
        return 2;
    return 0;
}
