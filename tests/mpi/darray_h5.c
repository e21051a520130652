/* Collective HDF5 datasets of distributed arrays (hl_darray_write_h5 /
 * hl_darray_read_h5): for every kind of distribution — block, cyclic,
 * cyclic:B (block-cyclic), a mix with none, UPC tiles — and random ones,
 * with halos, contiguous or chunked (+ deflate and shuffle), every process
 * writes its blocks; process 0 reads the whole dataset with the serial
 * reader (every cell its global value, HDF5's dims the extents reversed);
 * every process reads it back under another distribution (every owned cell
 * equal).  Append adds a dataset and keeps the first; errors are the same
 * everywhere and leave nothing behind.
 *   darray_h5                 the above, in a scratch directory
 *   darray_h5 write DIR       writes DIR/x.h5:/f ([7,5,6] float64 of k, chunked)
 *   darray_h5 read DIR        reads it back under other distributions (another
 *                             process count: darray_h5_procs test)
 * Prints "N passed, M failed". */
#define _DEFAULT_SOURCE /* mkdtemp */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "hyperlayout/darray.h"
#include "mpi_check.h"

static unsigned char byte_of(int64_t k, int64_t b) { return (unsigned char)(k * 31 + b * 7 + 1); }

/* Fills (fill) or checks every owned cell (halo h on every side); a
 * float64 array holds its k (so the file is easy to read in Python). */
static int64_t owned_cells(hl_darray *a, const hl_shape *s, int64_t h, bool fill, const char *what)
{
    int64_t start[HL_MAX_RANK], owned[HL_MAX_RANK], local[HL_MAX_RANK], lo[HL_MAX_RANK];
    const int64_t n = hl_darray_local(a, start, owned, local);
    unsigned char *v = hl_darray_data(a);
    hl_kindex ki;
    hl_kindex_init(&ki, s->rank, s->extent);
    int64_t x[HL_MAX_RANK], count = 0;
    for (int i = 0; i < s->rank; i++)
        lo[i] = h;
    for (int64_t j = 0; j < n; j++) {
        if (!darray_cell(a, j, lo, x))
            continue;
        const int64_t k = hl_kindex_tok(&ki, x);
        if (s->dtype == HL_DTYPE_FLOAT64) {
            double *d = (double *)(void *)(v + j * 8);
            if (fill)
                *d = (double)k;
            else if (*d != (double)k) {
                EXPECT(0, "%s: cell %" PRId64 " holds %g", what, k, *d);
                return count;
            }
        } else {
            for (int64_t b = 0; b < s->elem_size; b++) {
                if (fill) {
                    v[j * s->elem_size + b] = byte_of(k, b);
                } else if (v[j * s->elem_size + b] != byte_of(k, b)) {
                    EXPECT(0, "%s: cell %" PRId64 " byte %" PRId64 " differs", what, k, b);
                    return count;
                }
            }
        }
        count++;
    }
    return count;
}

static hl_darray *make(const hl_shape *s, const char *spec, int64_t h)
{
    int64_t lo[HL_MAX_RANK];
    for (int i = 0; i < s->rank; i++)
        lo[i] = h;
    const hl_darray_options o = {lo, lo, NULL, HL_HALO_STAR, NULL, HL_HALO_PACK};
    hl_darray *a = NULL;
    const hl_status st = hl_darray_create(&a, MPI_COMM_WORLD, s, spec, &o);
    EXPECT(st == HL_OK, "create %s: %s", spec, hl_strerror(st));
    return a;
}

/* A random distribution with at least one distributed dimension. */
static void random_spec(char *spec, int rank)
{
    random_dist_spec(spec, rank);
    if (strstr(spec, "block") || strstr(spec, "c"))
        return;
    spec[0] = 0;
    const int64_t forced = below(rank);
    for (int i = rank - 1; i >= 0; i--) {
        strcat(spec, i == forced || below(3) ? "block" : "none");
        strcat(spec, i ? "," : "");
    }
}

/* The whole dataset through the serial reader, on process 0. */
static void check_serial(const char *path, const char *dset, const hl_shape *s, const char *what)
{
    hl_h5_info info;
    void *data = NULL;
    char why[1024] = "";
    const hl_status st = hl_h5_load(path, dset, &info, &data, why, sizeof why);
    EXPECT(st == HL_OK, "%s: load: %s", what, why);
    if (st != HL_OK)
        return;
    bool same = info.ndim == s->rank && info.shape.elem_size == s->elem_size;
    for (int i = 0; same && i < s->rank; i++)
        same = info.dims[i] == s->extent[s->rank - 1 - i];
    EXPECT(same, "%s: the dataset's dims are not the extents reversed", what);
    const int64_t n = hl_shape_count(s);
    for (int64_t k = 0; same && k < n; k++) {
        bool ok = true;
        if (s->dtype == HL_DTYPE_FLOAT64)
            ok = ((double *)data)[k] == (double)k;
        else
            for (int64_t b = 0; b < s->elem_size; b++)
                ok = ok && ((unsigned char *)data)[k * s->elem_size + b] == byte_of(k, b);
        if (!ok) {
            EXPECT(0, "%s: file cell %" PRId64 " differs", what, k);
            break;
        }
    }
    free(data);
}

static const char *const fixed_specs[] = {
    "block",       "cyclic",        "cyclic:2",       "block,cyclic:2", "none,block",
    "cyclic:3,block", "upc:[2][3]", "upc:[1][2]",     "block,none",     "cyclic,cyclic"};

static int64_t one_case(const char *dir, int c, const hl_shape *s, const char *spec,
                        const char *spec2, int64_t ha, int64_t hb, int layout)
{
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    char path[512], what[512], why[1024] = "";
    snprintf(path, sizeof path, "%s/a.h5", dir);
    snprintf(what, sizeof what, "case %d %s -> %s layout %d", c, spec, spec2, layout);
    hl_darray *a = make(s, spec, ha), *b = make(s, spec2, hb);
    int64_t cells = 0;
    if (a && b) {
        owned_cells(a, s, ha, true, "fill");
        int64_t chunk[HL_MAX_RANK];
        for (int i = 0; i < s->rank; i++)
            chunk[i] = (s->extent[s->rank - 1 - i] + 1) / 2;
        const hl_h5_write_options o = {.chunk = layout ? chunk : NULL,
                                       .deflate = layout == 2 ? 3 : 0, .shuffle = layout == 2};
        hl_status st = hl_darray_write_h5(a, path, "/g/d", &o, why, sizeof why);
        EXPECT(st == HL_OK, "%s: write: %s", what, why);
        if (me == 0)
            check_serial(path, "/g/d", s, what);
        st = hl_darray_read_h5(b, path, "/g/d", why, sizeof why);
        EXPECT(st == HL_OK, "%s: read: %s", what, why);
        cells += owned_cells(b, s, hb, false, what);
    }
    hl_darray_destroy(a);
    hl_darray_destroy(b);
    return cells;
}

static hl_shape fixed_shape(void)
{
    hl_shape s;
    hl_shape_init(&s, 3, (const int64_t[]){6, 5, 7}, HL_DTYPE_FLOAT64, 8);
    return s;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    rng = 0x3737e6748fea9bu;
    int me, procs;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    int64_t cells = 0;
    char why[1024] = "";
    if (argc == 3) { /* write / read DIR: across process counts */
        char path[512];
        snprintf(path, sizeof path, "%s/x.h5", argv[2]);
        const hl_shape s = fixed_shape();
        const int64_t chunk[3] = {3, 2, 4};
        const hl_h5_write_options o = {.chunk = chunk, .deflate = 1};
        if (!strcmp(argv[1], "write")) {
            hl_darray *a = make(&s, "cyclic:2,block,none", 1);
            owned_cells(a, &s, 1, true, "fill");
            EXPECT(hl_darray_write_h5(a, path, "/f", &o, why, sizeof why) == HL_OK, "write: %s", why);
            hl_darray_destroy(a);
        } else {
            static const char *const specs[] = {"block,none,none", "upc:[2][2][3]", "cyclic,cyclic,none"};
            for (int k = 0; k < 3; k++) {
                hl_darray *b = make(&s, specs[k], k);
                EXPECT(hl_darray_read_h5(b, path, "/f", why, sizeof why) == HL_OK, "read: %s", why);
                cells += owned_cells(b, &s, k, false, specs[k]);
                hl_darray_destroy(b);
            }
            if (me == 0)
                check_serial(path, "/f", &s, "serial");
        }
        return mpi_check_finish("collective HDF5 across process counts", cells, "cells read back");
    }
    char dir[256];
    if (me == 0 && !mkdtemp(strcpy(dir, "/tmp/hl-darray-h5-XXXXXX")))
        dir[0] = 0;
    MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
    int c = 0;
    /* every kind of distribution, rank 2 (upc and 2-entry specs) or 1 */
    for (size_t f = 0; f < sizeof fixed_specs / sizeof *fixed_specs; f++, c++) {
        const char *spec = fixed_specs[f];
        const int rank = strchr(spec, ',') || strstr(spec, "][") ? 2 : 1;
        hl_shape s;
        const int64_t ext[2] = {7, 9};
        hl_shape_init(&s, rank, ext, f % 2 ? HL_DTYPE_FLOAT64 : HL_DTYPE_COMPLEX64, 0);
        const char *spec2 = fixed_specs[(f * 3 + 1) % (sizeof fixed_specs / sizeof *fixed_specs)];
        if ((strchr(spec2, ',') || strstr(spec2, "][") ? 2 : 1) != rank)
            spec2 = rank == 2 ? "block,none" : "cyclic";
        cells += one_case(dir, c, &s, spec, spec2, (int64_t)(f % 2), (int64_t)(f % 3 == 0),
                          (int)(f % 3));
    }
    /* random ones, rank 1-4 */
    const int64_t sizes[4] = {1, 4, 8, 16};
    for (int r = 0; r < 12; r++, c++) {
        const int rank = 1 + (int)below(4);
        int64_t ext[HL_MAX_RANK];
        for (int i = 0; i < rank; i++)
            ext[i] = 1 + below(rank <= 2 ? 13 : 5);
        const int64_t es = sizes[below(4)];
        const hl_dtype type = es == 4 ? HL_DTYPE_FLOAT32 : es == 8 ? HL_DTYPE_FLOAT64
                              : es == 1 ? HL_DTYPE_UINT8 : HL_DTYPE_COMPLEX128;
        hl_shape s;
        hl_shape_init(&s, rank, ext, type, es);
        char spec[128], spec2[128];
        random_spec(spec, rank);
        random_spec(spec2, rank);
        cells += one_case(dir, c, &s, spec, spec2, below(2), below(2), (int)below(3));
    }
    /* append: a second dataset beside the first, which stays */
    char path[512], missing[512], nodir[512];
    snprintf(path, sizeof path, "%s/a.h5", dir);
    snprintf(missing, sizeof missing, "%s/missing.h5", dir);
    snprintf(nodir, sizeof nodir, "%s/no/such/dir/x.h5", dir);
    hl_shape s = fixed_shape(), t;
    hl_shape_init(&t, 2, (const int64_t[]){4, 3}, HL_DTYPE_UINT8, 1);
    hl_darray *a = make(&s, "block,cyclic,none", 1), *b = make(&t, "cyclic:2,none", 0);
    owned_cells(a, &s, 1, true, "fill");
    owned_cells(b, &t, 0, true, "fill");
    EXPECT(hl_darray_write_h5(a, path, "/first", NULL, why, sizeof why) == HL_OK, "first: %s", why);
    const hl_h5_write_options ap = {.append = true};
    EXPECT(hl_darray_write_h5(b, path, "/second", &ap, why, sizeof why) == HL_OK, "append: %s", why);
    if (me == 0) {
        check_serial(path, "/first", &s, "append: first kept");
        check_serial(path, "/second", &t, "append: second");
    }
    /* errors: the same status and message everywhere */
    hl_status st = hl_darray_write_h5(b, path, "/second", &ap, why, sizeof why);
    EXPECT(st == HL_ERR_ARG && strstr(why, "exists already"), "append twice: %s", why);
    st = hl_darray_read_h5(a, missing, "/x", why, sizeof why);
    EXPECT(st == HL_ERR_NOT_FOUND && strstr(why, "missing.h5"), "missing file: %s", why);
    st = hl_darray_read_h5(a, path, "/nope", why, sizeof why);
    EXPECT(st == HL_ERR_NOT_FOUND && strstr(why, "/nope"), "missing dataset: %s", why);
    st = hl_darray_read_h5(a, path, "/second", why, sizeof why);
    EXPECT(st == HL_ERR_MISMATCH, "wrong shape: %s", why);
    st = hl_darray_write_h5(a, nodir, "/x", NULL, why, sizeof why);
    EXPECT(st == HL_ERR_IO, "no directory: %s", why);
    int mine = (int)st, lo = 0, hi = 0;
    MPI_Allreduce(&mine, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    EXPECT(lo == hi, "statuses differ between processes");
    hl_darray_destroy(a);
    hl_darray_destroy(b);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) { /* only a.h5: no temporary left */
        char cmd[600];
        snprintf(cmd, sizeof cmd, "test $(ls -A '%s' | wc -l) -eq 1", dir);
        EXPECT(system(cmd) == 0, "files other than a.h5 in %s", dir);
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        (void)system(cmd);
    }
    return mpi_check_finish("collective HDF5", cells, "cells read back");
}
