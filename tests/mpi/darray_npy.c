/* Collective .npy files of distributed arrays: random arrays (rank 1-4,
 * element sizes 1, 4, 8, 16, any distribution: block / cyclic:B / none per
 * dimension or UPC tiles, halos around every block) written by
 * every process, then read whole by hl_npy_load on process 0 (every
 * element equal to its global index's value) and read back collectively
 * into an array of another distribution (every owned cell equal).  Errors:
 * a missing file, a wrong shape, a directory that does not exist — the same
 * status on every process, nothing left behind.  With a directory argument
 * it also writes numpy.npy there ([5,7,3] float64 holding 0..104) for
 * NumPy to check (darray_npy.sh).  Prints "N passed, M failed". */
#define _DEFAULT_SOURCE /* mkdtemp */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "hyperlayout/darray.h"
#include "mpi_check.h"
#include "hyperlayout/npy.h"

/* The value of byte b of global cell k. */
static unsigned char byte_of(int64_t k, int64_t b) { return (unsigned char)(k * 31 + b * 7 + 1); }

/* Fills (fill) or checks the owned cells of a (every block's; halo h on
 * every side). */
static int64_t owned_cells(hl_darray *a, const hl_shape *s, int64_t h, bool fill,
                           const char *what)
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
        for (int64_t b = 0; b < s->elem_size; b++) {
            if (fill) {
                v[j * s->elem_size + b] = byte_of(k, b);
            } else if (v[j * s->elem_size + b] != byte_of(k, b)) {
                EXPECT(0, "%s: cell %" PRId64 " byte %" PRId64 " differs", what, k, b);
                return count;
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

static void random_spec(char *spec, int rank)
{
    if (below(2)) { /* any distribution: cyclic, UPC (several blocks per process) */
        random_dist_spec(spec, rank);
        if (strstr(spec, "block") || strstr(spec, "c"))
            return;
    }
    spec[0] = 0;
    const int64_t forced = below(rank); /* at least one distributed dimension */
    for (int i = rank - 1; i >= 0; i--) {
        strcat(spec, i == forced || below(3) ? "block" : "none");
        strcat(spec, i ? "," : "");
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    rng = 0x853c49e6748fea9bu;
    int me, procs;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    char dir[256];
    if (argc > 1) {
        snprintf(dir, sizeof dir, "%s", argv[1]);
    } else { /* process 0 makes it, everyone uses it */
        if (me == 0 && !mkdtemp(strcpy(dir, "/tmp/hl-darray-npy-XXXXXX")))
            dir[0] = 0;
        MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
    }
    char path[512];
    snprintf(path, sizeof path, "%s/a.npy", dir);
    const int64_t sizes[4] = {1, 4, 8, 16};
    int64_t cells = 0;
    for (int c = 0; c < 60; c++) {
        const int rank = 1 + (int)below(4);
        int64_t ext[HL_MAX_RANK];
        for (int i = 0; i < rank; i++)
            ext[i] = 1 + below(rank <= 2 ? 17 : 6);
        const int64_t es = sizes[below(4)];
        hl_shape s;
        const hl_dtype type = es == 4   ? HL_DTYPE_FLOAT32
                              : es == 8 ? HL_DTYPE_INT64
                              : es == 1 ? HL_DTYPE_UINT8
                                        : HL_DTYPE_COMPLEX128;
        hl_shape_init(&s, rank, ext, type, es);
        char spec[128], spec2[128];
        random_spec(spec, rank);
        random_spec(spec2, rank);
        const int64_t ha = below(3), hb = below(2);
        hl_darray *a = make(&s, spec, ha), *b = make(&s, spec2, hb);
        if (!a || !b)
            break;
        owned_cells(a, &s, ha, true, "fill");
        hl_status st = hl_darray_write_npy(a, path);
        EXPECT(st == HL_OK, "write %s: %s", spec, hl_strerror(st));
        if (me == 0) { /* the whole file, as the serial reader sees it */
            hl_shape got;
            void *data = NULL;
            st = hl_npy_load(path, &got, &data);
            EXPECT(st == HL_OK && got.rank == rank && got.dtype == s.dtype, "load: %s",
                   hl_strerror(st));
            for (int64_t k = 0; st == HL_OK && k < hl_shape_count(&s); k++)
                for (int64_t j = 0; j < es; j++)
                    if (((unsigned char *)data)[k * es + j] != byte_of(k, j)) {
                        EXPECT(0, "case %d (%s): file cell %" PRId64 " differs", c, spec, k);
                        k = hl_shape_count(&s);
                        break;
                    }
            free(data);
        }
        st = hl_darray_read_npy(b, path);
        EXPECT(st == HL_OK, "read %s: %s", spec2, hl_strerror(st));
        cells += owned_cells(b, &s, hb, false, "read back");
        hl_darray_destroy(a);
        hl_darray_destroy(b);
    }
    /* errors, the same everywhere, nothing left behind */
    hl_shape s, t;
    hl_shape_init(&s, 2, (const int64_t[]){6, 5}, HL_DTYPE_FLOAT64, 8);
    hl_shape_init(&t, 2, (const int64_t[]){5, 6}, HL_DTYPE_FLOAT64, 8);
    hl_darray *a = make(&s, "block,none", 1), *b = make(&t, "block,none", 0);
    char missing[512], nodir[512];
    snprintf(missing, sizeof missing, "%s/missing.npy", dir);
    snprintf(nodir, sizeof nodir, "%s/no/such/dir/x.npy", dir);
    hl_status st = hl_darray_read_npy(a, missing);
    EXPECT(st == HL_ERR_IO, "missing file: %s", hl_strerror(st));
    st = hl_darray_write_npy(a, nodir);
    EXPECT(st == HL_ERR_IO, "no directory: %s", hl_strerror(st));
    EXPECT(hl_darray_write_npy(a, path) == HL_OK, "write [5,6]");
    st = hl_darray_read_npy(b, path);
    EXPECT(st == HL_ERR_MISMATCH, "[6,5] file into [5,6]: %s", hl_strerror(st));
    hl_darray_destroy(a);
    hl_darray_destroy(b);
    /* for NumPy: [5,7,3] float64 holding 0..104 in C order */
    hl_shape_init(&s, 3, (const int64_t[]){3, 7, 5}, HL_DTYPE_FLOAT64, 8);
    a = make(&s, "block,block,none", 1);
    int64_t start[3], owned[3], local[3];
    const int64_t n = hl_darray_local(a, start, owned, local);
    double *v = hl_darray_data(a);
    for (int64_t j = 0; j < n; j++) {
        const int64_t y0 = j % local[0], y1 = j / local[0] % local[1], y2 = j / local[0] / local[1];
        v[j] = (double)((start[2] + y2 - 1) * 21 + (start[1] + y1 - 1) * 3 + (start[0] + y0 - 1));
    }
    snprintf(path, sizeof path, "%s/numpy.npy", dir);
    EXPECT(hl_darray_write_npy(a, path) == HL_OK, "write numpy.npy");
    hl_darray_destroy(a);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) { /* only the two files: no temporary left */
        char cmd[600];
        snprintf(cmd, sizeof cmd, "test $(ls -A '%s' | wc -l) -eq 2", dir);
        EXPECT(system(cmd) == 0, "files other than a.npy and numpy.npy in %s", dir);
        if (argc <= 1) {
            snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
            (void)system(cmd);
        }
    }
    return mpi_check_finish("collective .npy", cells, "cells read back");
}
