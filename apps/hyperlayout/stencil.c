/* hyperlayout stencil — seed 004's tiled stencil on a .npy array: the
 * kernel of apps/stencil run by tensor.h's SPMD runner over a grid of
 * tiles, with or without cached input tiles.  The output is written
 * as transform writes (npy_sink: atomic, space claimed first, nothing left
 * behind on an error or a signal). */
#include <inttypes.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hyperlayout/npy.h"
#include "npy_sink.h"
#include "npy_source.h"
#include "parse.h"
#include "stencil.h"
#include "stencil_gpu.h"

static const char stencil_usage[] =
    "usage: hyperlayout stencil IN.npy OUT.npy [options]\n"
    "\n"
    "IN and OUT as for transform: a .npy file, ARCHIVE.npz:NAME (IN; NAME may\n"
    "be left out when the archive holds one array), - for standard input or\n"
    "output, an HDF5 dataset FILE.h5:/DATASET (an HDF5 IN's attributes are kept\n"
    "in an HDF5 OUT; --h5-* options below).  A Fortran-order or big-endian IN is\n"
    "read as what it is.\n"
    "\n"
    "The stencil of seed 004 (logical tensor indexing): every point strictly\n"
    "inside the array becomes the mean of itself and its neighbours, every\n"
    "point on the array's boundary is copied; repeated --iterations times.\n"
    "Any rank; float32 or float64.  The array is cut into a grid of tiles run\n"
    "by OpenMP threads, each tile computed by one kernel written with logical\n"
    "indices; --cached copies each input tile and its halo into a scratch\n"
    "buffer first (by plans), the seed's cached variant.  Both give the same\n"
    "bits.\n"
    "\n"
    "  --points P         star (the point and its 2d axis neighbours: the seed's\n"
    "                     5 points in 2D; default) or box (the 3^d cube, rank\n"
    "                     up to 6)\n"
    "  --iterations N     steps, 0..2^30 (default 1)\n"
    "  --tiles GRID       tiles per dimension, most significant first like a\n"
    "                     shape, e.g. 4,4 (default: one per worker along the\n"
    "                     slowest dimension)\n"
    "  --cached           cached input tiles (default: read the array in place)\n"
    "  --halo H           halo width of the input tiles, 1..2^20 (default 1)\n"
    "  --threads N        OpenMP threads (default, and 0: all cores)\n"
    "  --device cpu|gpu   where the steps run (default cpu).  gpu: the first CUDA\n"
    "                     device, thread blocks as the workers and shared memory\n"
    "                     as the scratch (--cached); rank 1 to 3, the same bits\n"
    "                     as the CPU; --tiles, --halo and --threads are the CPU's\n"
    "  -h, --help         this text\n";

typedef struct opts {
    const char *in, *out;
    stencil_points points;
    int64_t iterations, halo, threads;
    int64_t grid[HL_MAX_RANK];
    int grid_rank; /* 0: none given */
    bool cached, gpu;
    bool cpu_only; /* --tiles, --halo or --threads given */
    h5_out_options h5;
} opts;

/* "4,4" most significant first into grid[0] = the last number. */
static int parse_grid(const char *s, opts *o)
{
    int64_t v[HL_MAX_RANK];
    int n = 0;
    char item[32];
    for (;;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        if (n == HL_MAX_RANK || len == 0 || len >= sizeof item)
            return -1;
        memcpy(item, s, len);
        item[len] = '\0';
        if (parse_i64(item, 1, INT64_C(1) << 40, &v[n++]))
            return -1;
        if (!comma)
            break;
        s = comma + 1;
    }
    for (int i = 0; i < n; i++)
        o->grid[i] = v[n - 1 - i];
    o->grid_rank = n;
    return 0;
}

static int parse_opts(int argc, char **argv, opts *o)
{
    static const char *const valued[] = {"--points", "--iterations", "--tiles", "--halo",
                                         "--threads", "--device", NULL};
    char why[256];
    int npos = 0;
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a];
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            fputs(stencil_usage, stdout);
            fputs(h5_options_help, stdout);
            return -1;
        }
        if (!strcmp(arg, "--cached")) {
            o->cached = true;
            continue;
        }
        int h5rc = h5_parse_option("stencil", argc, argv, &a, &o->h5);
        if (h5rc > 0)
            return h5rc;
        if (h5rc == 0)
            continue;
        if (strncmp(arg, "--", 2) || !strcmp(arg, "-")) {
            if (npos == 2)
                return cli_error("stencil", "unexpected argument '%s' (see hyperlayout stencil --help)",
                                 arg);
            *(npos++ ? &o->out : &o->in) = arg;
            continue;
        }
        if (!parse_is_one_of(arg, valued))
            return cli_error("stencil", "unknown option '%s' (see hyperlayout stencil --help)", arg);
        if (a + 1 >= argc)
            return cli_error("stencil", "%s needs a value (see hyperlayout stencil --help)", arg);
        const char *v = argv[++a];
        o->cpu_only |= !strcmp(arg, "--tiles") || !strcmp(arg, "--halo") ||
                       !strcmp(arg, "--threads");
        if (!strcmp(arg, "--device")) {
            if (strcmp(v, "cpu") && strcmp(v, "gpu"))
                return cli_error("stencil", "--device needs cpu or gpu, not '%s'", v);
            o->gpu = !strcmp(v, "gpu");
        } else if (!strcmp(arg, "--points")) {
            if (!strcmp(v, "star"))
                o->points = STENCIL_STAR;
            else if (!strcmp(v, "box"))
                o->points = STENCIL_BOX;
            else
                return cli_error("stencil", "--points needs star or box, not '%s'", v);
        } else if (!strcmp(arg, "--iterations")) {
            if (parse_i64_opt(arg, "a count", v, 0, INT64_C(1) << 30, &o->iterations, why,
                              sizeof why))
                return cli_error("stencil", "%s", why);
        } else if (!strcmp(arg, "--halo")) {
            if (parse_i64_opt(arg, "a width", v, 1, INT64_C(1) << 20, &o->halo, why, sizeof why))
                return cli_error("stencil", "%s", why);
        } else if (!strcmp(arg, "--threads")) {
            if (parse_i64_opt(arg, "a count", v, 0, 4096, &o->threads, why, sizeof why))
                return cli_error("stencil", "%s", why);
        } else if (parse_grid(v, o)) {
            return cli_error("stencil", "--tiles needs positive counts separated by commas, "
                                        "most significant first (e.g. 4,4), not '%s'", v);
        }
    }
    if (npos < 2)
        return cli_error("stencil", "needs IN.npy and OUT.npy (see hyperlayout stencil --help)");
    if (o->gpu && o->cpu_only)
        return cli_error("stencil", "--tiles, --halo and --threads choose how the CPU runs: "
                                    "not with --device gpu");
    if (o->gpu && stencil_gpu_devices() == 0)
        return cli_error("stencil", "--device gpu: %s",
                         stencil_gpu_built() ? "no CUDA device (no GPU or driver)"
                                             : "this hyperlayout was built without CUDA");
    return 0;
}

/* IN as transform reads it (npy_source: a .npy file, `-` for standard
 * input, ARCHIVE.npz:NAME), converted to what the kernel computes on: C
 * order and native bytes (a Fortran-order array transposed, a big-endian
 * one swapped), in a new 64-byte aligned buffer, as hl_npy_load gives it.
 * On error *why names IN and the reason. */
static hl_status read_input(const char *in, hl_shape *s, void **data, hl_h5_reader **keep,
                            char *why, size_t cap)
{
    npy_source src;
    *data = NULL;
    char f[8], d[8];
    hl_status st = h5_path(in, f, sizeof f, d, sizeof d) ? h5_source_open(&src, in, why, cap)
                                                         : npy_source_open(&src, in, false, why, cap);
    if (st != HL_OK)
        return st;
    const char *name = strcmp(in, "-") ? in : "standard input";
    const hl_shape *shape = &src.info.shape;
    if (shape->dtype != HL_DTYPE_FLOAT32 && shape->dtype != HL_DTYPE_FLOAT64) {
        snprintf(why, cap, "%s: the stencil needs float32 or float64, not %s", name,
                 hl_dtype_name(shape->dtype) ? hl_dtype_name(shape->dtype) : "this type");
        npy_source_close(&src);
        return HL_ERR_UNSUPPORTED;
    }
    st = hl_npy_alloc(src.info.data_bytes, data);
    if (st == HL_OK)
        st = hl_npy_to_native(&src.info, src.data, *data);
    if (st == HL_OK) {
        *s = *shape;
        *keep = src.h5; /* an HDF5 input: its attributes go to the output */
        src.h5 = NULL;
    } else {
        snprintf(why, cap, "%s: %s", name, hl_strerror(st));
        free(*data);
        *data = NULL;
    }
    npy_source_close(&src);
    return st;
}

/* The output as transform writes its own (npy_sink): the space claimed
 * first, a temporary renamed over OUT, removed on an error or a signal;
 * `-`, a FIFO or a device written through.  The header is the one
 * hl_npy_save would write (C order, native bytes). */
static hl_status write_output(const char *out, const hl_shape *s, const void *data,
                              const h5_out_options *h5, const hl_h5_reader *like, char *why,
                              size_t cap)
{
    char header[NPY_HEADER_CAP];
    size_t len = 0;
    hl_npy_info *info = malloc(sizeof *info);
    hl_status st = info ? hl_npy_format_header(s, header, sizeof header, &len) : HL_ERR_NOMEM;
    if (st == HL_OK)
        st = hl_npy_parse_header(header, len, info);
    if (st != HL_OK) {
        snprintf(why, cap, "%s: %s", out, hl_strerror(st));
        free(info);
        return st;
    }
    npy_sink k;
    st = npy_sink_open(&k, out, why, cap);
    k.h5opt = *h5;
    k.like = like;
    if (st == HL_OK)
        st = npy_sink_start(&k, info, NULL, why, cap);
    free(info);
    if (st != HL_OK)
        return st;
    st = npy_sink_write(&k, data, (size_t)hl_shape_bytes(s), why, cap);
    return st == HL_OK ? npy_sink_commit(&k, why, cap) : (npy_sink_abort(&k), st);
}

static int stencil_body(const opts *op, const hl_shape *sp, void *a, const hl_h5_reader *like);

int cmd_stencil(int argc, char **argv)
{
    opts o = {.points = STENCIL_STAR, .iterations = 1, .halo = 1, .threads = 0};
    int rc = parse_opts(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    rc = h5_check_output("stencil", o.in, o.out, &o.h5);
    if (rc >= 0)
        return rc;
    hl_shape s;
    void *a = NULL;
    char why[1024];
    hl_h5_reader *like = NULL;
    hl_status st = read_input(o.in, &s, &a, &like, why, sizeof why);
    if (st != HL_OK)
        return cli_error("stencil", "%s", why);
    rc = stencil_body(&o, &s, a, like);
    hl_h5_reader_close(like);
    return rc;
}

static int stencil_body(const opts *op, const hl_shape *sp, void *a, const hl_h5_reader *like)
{
    const opts o = *op;
    const hl_shape s = *sp;
    hl_status st = HL_OK;
    char why[1024];
    int rc = 0;
    if (o.points == STENCIL_BOX && s.rank > 6) {
        free(a);
        return cli_error("stencil", "%s: --points box goes up to rank 6, not %d",
                         strcmp(o.in, "-") ? o.in : "standard input", s.rank);
    }
    if (o.grid_rank && o.grid_rank != s.rank) {
        free(a);
        return cli_error("stencil", "--tiles gives %d counts for an array of rank %d",
                         o.grid_rank, s.rank);
    }
    for (int i = 0; i < o.grid_rank; i++)
        if (o.grid[i] > s.extent[i]) {
            free(a);
            return cli_error("stencil", "--tiles: %" PRId64 " tiles along dimension %d of extent "
                             "%" PRId64 " (at most one tile per cell)", o.grid[i], i, s.extent[i]);
        }
    void *b = malloc((size_t)hl_shape_bytes(&s));
    if (!b) {
        free(a);
        return cli_error("stencil", "out of memory for the output (%" PRId64 " bytes)",
                         hl_shape_bytes(&s));
    }
    hl_tensor *t = malloc(2 * sizeof *t);
    const hl_tensor *result = NULL;
    if (!t)
        st = HL_ERR_NOMEM;
    if (st == HL_OK)
        st = hl_tensor_init_standard(&t[0], a, s.rank, s.extent, s.elem_size);
    if (st == HL_OK)
        st = hl_tensor_init_standard(&t[1], b, s.rank, s.extent, s.elem_size);
    const stencil_arg sa = {o.points, s.dtype};
    if (st == HL_OK && o.gpu) {
        const stencil_gpu_opts go = {.cached = o.cached};
        st = s.rank > STENCIL_GPU_MAX_RANK ? HL_ERR_RANK
                                           : stencil_gpu_run_host(s.rank, s.extent, &sa, a, b,
                                                                  o.iterations, &go);
        result = &t[1];
    } else if (st == HL_OK) {
        const stencil_opts so = {(int)o.threads, o.grid_rank ? o.grid : NULL, o.halo, o.cached,
                                 o.iterations};
        st = stencil_run(&t[0], &t[1], &sa, &so, &result);
    }
    if (st == HL_OK) {
        if (write_output(o.out, &s, result->data, &o.h5, like, why, sizeof why) != HL_OK)
            rc = cli_error("stencil", "%s", why);
    } else if (o.gpu && st == HL_ERR_RANK) {
        rc = cli_error("stencil", "--device gpu: rank 1 to %d, not %d", STENCIL_GPU_MAX_RANK,
                       s.rank);
    } else {
        rc = cli_error("stencil", "%s%s", o.gpu ? "--device gpu: " : "", hl_strerror(st));
    }
    free(t);
    free(a);
    free(b);
    return rc;
}
