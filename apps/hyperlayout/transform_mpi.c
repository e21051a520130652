/* hyperlayout transform --procs — the chain run across MPI processes
 * (transform.h): IN read collectively into blocks over a process grid, one
 * distributed transform, OUT written collectively. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "h5_cli.h"
#include "hyperlayout/darray.h"
#include "npy_sink.h" /* hl_atomic_file: the lock on OUT */
#include "npy_source.h"
#include "parse.h"
#include "procs_paths.h"
#include "progress.h"
#include "transform.h"

/* --procs: the process grid GRID for an array of `rank` dimensions
 * (slowest first, as the spec), or a reason. */
static bool parse_grid(const char *text, int rank, int procs, int64_t *grid, char *why,
                       size_t cap)
{
    int n = 0;
    const char *p = text;
    while (*p) {
        int64_t v;
        char part[32];
        size_t len = strcspn(p, ",x");
        if (len == 0 || len >= sizeof part || n >= HL_MAX_RANK) {
            snprintf(why, cap, "--procs '%s': expected counts like 2,2,1 or 2x2x1", text);
            return false;
        }
        memcpy(part, p, len);
        part[len] = '\0';
        if (parse_i64(part, 1, 1 << 30, &v) != 0) {
            snprintf(why, cap, "--procs '%s': '%s' is not a process count", text, part);
            return false;
        }
        grid[n++] = v;
        p += len;
        if (*p && !*++p) {
            snprintf(why, cap, "--procs '%s': expected counts like 2,2,1 or 2x2x1", text);
            return false;
        }
    }
    if (n == 1 && rank > 1) { /* slabs of the slowest dimension */
        for (int i = 1; i < rank; i++)
            grid[i] = 1;
        n = rank;
    }
    if (n != rank) {
        snprintf(why, cap, "--procs '%s' has %d entries, the array %d dimensions", text, n, rank);
        return false;
    }
    int64_t product = 1;
    for (int i = 0; i < n; i++)
        product *= grid[i];
    if (product != procs) {
        snprintf(why, cap, "--procs '%s' is a grid of %" PRId64 " processes, but %d run%s (mpirun -np)",
                 text, product, procs, procs == 1 ? "s" : "");
        return false;
    }
    return true;
}

/* transform --procs: what one run holds (on the stack: some 20 KB).
 * Every step below leaves its status in st and its reason in why, and
 * every process takes every step, so that the collective calls in them
 * (agree, the darray calls) meet. */
typedef struct {
    int me, procs;
    hl_status st;
    hl_npy_info info;
    char in_file[4096], in_dset[H5_NAME_MAX], out_file[4096], out_dset[H5_NAME_MAX];
    bool h5_in, h5_out;
    int64_t grid[HL_MAX_RANK];
    hl_atomic_file *guard; /* process 0's lock on an existing OUT */
    hl_plan *chain;
    hl_shape logical;
    hl_darray *in, *out;
    hl_redist *r;
    double t_in, t_plan, t_exec, t_write;
    char why[2048];
} procs_job;

/* IN's shape and dtype from an HDF5 dataset; process 0 names the only
 * dataset where none is given. */
static void procs_h5_header(const transform_args *a, procs_job *j)
{
    npy_source probe = {0};
    if (!j->in_dset[0] && j->me == 0 &&
        (j->st = h5_source_open(&probe, a->in, j->why, sizeof j->why)) == HL_OK)
        snprintf(j->in_dset, sizeof j->in_dset, "%s", probe.member);
    npy_source_close(&probe);
    j->st = hl_mpi_agree(MPI_COMM_WORLD, j->st, j->why, sizeof j->why);
    MPI_Bcast(j->in_dset, sizeof j->in_dset, MPI_CHAR, 0, MPI_COMM_WORLD);
    hl_h5_info h;
    if (j->st != HL_OK ||
        (j->st = hl_h5_info_get(j->in_file, j->in_dset, &h, j->why, sizeof j->why)) != HL_OK)
        return;
    if (h.unsupported || h.ndim == 0) {
        snprintf(j->why, sizeof j->why, "%.900s:%.900s: --procs cannot read it (%s)", j->in_file,
                 j->in_dset, h.unsupported ? h.unsupported : "a scalar dataset");
        j->st = HL_ERR_UNSUPPORTED;
        return;
    }
    j->info.shape = h.shape;
    j->info.data_bytes = hl_shape_bytes(&h.shape);
    snprintf(j->info.descr, sizeof j->info.descr, "%s", h.descr);
}

/* What --procs can read and write, IN's header, the process grid, and
 * process 0's lock on an existing OUT. */
static void procs_open(const transform_args *a, procs_job *j)
{
    if (a->in_place || !strcmp(a->in, "-") || !strcmp(a->out, "-") || strstr(a->in, ".npz") ||
        strstr(a->out, ".npz") || a->fortran_out) {
        snprintf(j->why, sizeof j->why, "--procs reads and writes .npy files and HDF5 datasets "
                 "by name, in C order (not with --in-place, '-', .npz or --order F)");
        j->st = HL_ERR_ARG;
    }
    j->h5_in = h5_path(a->in, j->in_file, sizeof j->in_file, j->in_dset, sizeof j->in_dset);
    j->h5_out = h5_path(a->out, j->out_file, sizeof j->out_file, j->out_dset, sizeof j->out_dset);
    if (j->st == HL_OK && j->h5_in)
        procs_h5_header(a, j);
    else if (j->st == HL_OK && (j->st = hl_npy_read_header(a->in, &j->info)) != HL_OK)
        snprintf(j->why, sizeof j->why, "%s: %s", a->in,
                 j->st == HL_ERR_IO ? strerror(errno) : hl_strerror(j->st));
    const hl_npy_info *info = &j->info;
    if (j->st == HL_OK && !j->h5_in && (info->unsupported || info->fortran_order ||
                                        info->swapped || info->shape.dtype == HL_DTYPE_BYTES)) {
        snprintf(j->why, sizeof j->why, "%s: --procs needs a C-order file of a numeric dtype in "
                 "this machine's byte order (it has %.64s%s)", a->in, info->descr,
                 info->fortran_order ? ", Fortran order" : "");
        j->st = HL_ERR_UNSUPPORTED;
    }
    if (j->st == HL_OK &&
        !parse_grid(a->procs, info->shape.rank, j->procs, j->grid, j->why, sizeof j->why))
        j->st = HL_ERR_ARG;
    /* process 0 refuses an existing OUT it could not write and holds its
     * lock while the collective write replaces it, as without --procs */
    struct stat sb;
    if (j->st == HL_OK && j->me == 0 && !j->h5_out && stat(a->out, &sb) == 0 &&
        hl_atomic_file_open(&j->guard, a->out) != HL_OK) {
        snprintf(j->why, sizeof j->why, "%s: %s", a->out, strerror(errno));
        j->st = HL_ERR_IO;
    }
}

/* The chain's plan, IN read into blocks over the grid, the output's blocks
 * (the same grid) and the distributed transform between them. */
static void procs_plan(const transform_args *a, procs_job *j)
{
    if (j->st == HL_OK)
        j->st = chain_plan(a, &j->info, 0, &j->chain, &j->logical, j->why, sizeof j->why);
    j->st = hl_mpi_agree(MPI_COMM_WORLD, j->st, j->why, sizeof j->why);
    /* the grid as a spec: block over every dimension (one process along some) */
    char spec[HL_MAX_RANK * 8] = "";
    for (int i = 0; j->st == HL_OK && i < j->info.shape.rank; i++)
        strcat(spec, i ? ",block" : "block");
    const hl_darray_options opt = {.grid = j->grid};
    double t0 = now_seconds();
    if (j->st == HL_OK &&
        (j->st = hl_darray_create(&j->in, MPI_COMM_WORLD, &j->info.shape, spec, &opt)) != HL_OK)
        snprintf(j->why, sizeof j->why, "--procs %s on %d processes: %s", a->procs, j->procs,
                 hl_strerror(j->st));
    if (j->st == HL_OK && j->h5_in)
        j->st = hl_darray_read_h5(j->in, j->in_file, j->in_dset, j->why, sizeof j->why);
    else if (j->st == HL_OK && (j->st = hl_darray_read_npy(j->in, a->in)) != HL_OK)
        snprintf(j->why, sizeof j->why, "%s: %s", a->in, hl_strerror(j->st));
    j->t_in = now_seconds() - t0;
    t0 = now_seconds();
    if (j->st == HL_OK &&
        (j->st = hl_darray_create(&j->out, MPI_COMM_WORLD, &j->logical, spec, &opt)) != HL_OK)
        snprintf(j->why, sizeof j->why, "--procs %s for the output: %s", a->procs,
                 hl_strerror(j->st));
    if (j->st == HL_OK && (j->st = hl_darray_transform_plan(&j->r, j->in, j->chain, j->out)) != HL_OK)
        snprintf(j->why, sizeof j->why, "planning the distributed transform: %s",
                 hl_strerror(j->st));
    j->t_plan = now_seconds() - t0;
}

static void procs_execute(procs_job *j)
{
    const double t0 = now_seconds();
    if (j->st == HL_OK) {
        j->st = hl_redist_begin(j->r, hl_darray_data(j->in), hl_darray_data(j->out));
        const hl_status e = hl_redist_end(j->r);
        j->st = j->st == HL_OK ? e : j->st;
        j->st = hl_mpi_agree(MPI_COMM_WORLD, j->st, j->why, sizeof j->why);
    }
    j->t_exec = now_seconds() - t0;
}

/* OUT written collectively: an HDF5 dataset (with the --h5-* options) or
 * an .npy file. */
static void procs_write(const transform_args *a, procs_job *j)
{
    const double t0 = now_seconds();
    if (j->st == HL_OK && j->h5_out) {
        const hl_h5_write_options wo = {.append = a->h5.append, .deflate = a->h5.deflate,
                                        .shuffle = a->h5.shuffle, .descr = j->info.descr,
                                        .chunk = a->h5.nchunk ? a->h5.chunk : NULL};
        if (a->h5.nchunk && a->h5.nchunk != j->logical.rank) {
            snprintf(j->why, sizeof j->why, "--h5-chunk has %d dims, the array %d", a->h5.nchunk,
                     j->logical.rank);
            j->st = HL_ERR_ARG;
        } else {
            j->st = hl_darray_write_h5(j->out, j->out_file, j->out_dset[0] ? j->out_dset : "/data",
                                       &wo, j->why, sizeof j->why);
        }
    } else if (j->st == HL_OK && (j->st = hl_darray_write_npy(j->out, a->out)) != HL_OK) {
        snprintf(j->why, sizeof j->why, "%s: %s", a->out, hl_strerror(j->st));
    }
    j->t_write = now_seconds() - t0;
}

/* --time: the phases and the bytes moved, summed over the processes, from
 * process 0.  t_read: the time before the collective read (header, grid). */
static void procs_times(const transform_args *a, const procs_job *j, double start, double t_read)
{
    int64_t kept = 0, sent = hl_redist_bytes(j->r, &kept), tot[2] = {sent, kept}, sum[2];
    MPI_Reduce(tot, sum, 2, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (j->me != 0)
        return;
    const double gb = 1e-9 * (double)j->info.data_bytes;
    fprintf(stderr, "processes %d, grid %s\n", j->procs, a->procs);
    fprintf(stderr, "read     %8.3f s  %.3f GB\n", j->t_in + t_read, gb);
    fprintf(stderr, "plan     %8.3f s\n", j->t_plan);
    fprintf(stderr, "execute  %8.3f s  %" PRId64 " bytes sent, %" PRId64 " kept local\n",
            j->t_exec, sum[0], sum[1]);
    fprintf(stderr, "write    %8.3f s\n", j->t_write);
    fprintf(stderr, "total    %8.3f s\n", now_seconds() - start);
}

/* transform --procs: collective read, a distributed transform, collective
 * write.  One line on error (from process 0), the same exit code
 * everywhere. */
int transform_procs(const transform_args *a)
{
    const double start = now_seconds();
    int inited = 0;
    MPI_Initialized(&inited);
    if (!inited && MPI_Init(NULL, NULL) != MPI_SUCCESS)
        return cli_error("transform", "--procs: MPI_Init failed");
    procs_job j = {.st = HL_OK};
    MPI_Comm_rank(MPI_COMM_WORLD, &j.me);
    MPI_Comm_size(MPI_COMM_WORLD, &j.procs);
    procs_open(a, &j);
    /* OUT's directory the same for all before any collective call on it */
    if ((j.st = hl_mpi_agree(MPI_COMM_WORLD, j.st, j.why, sizeof j.why)) == HL_OK)
        j.st = procs_check_output(MPI_COMM_WORLD, j.h5_out ? j.out_file : a->out, j.why,
                                  sizeof j.why);
    const double t_read = now_seconds() - start;
    procs_plan(a, &j);
    procs_execute(&j);
    procs_write(a, &j);
    /* every step above returns a status agreed by all processes */
    if (j.st != HL_OK && j.me == 0)
        cli_error("transform", "%s", j.why[0] ? j.why : hl_strerror(j.st));
    else if (j.st == HL_OK && a->timing)
        procs_times(a, &j, start, t_read);
    hl_atomic_file_abort(j.guard); /* its temporary; the lock goes with it */
    hl_redist_destroy(j.r);
    hl_darray_destroy(j.in);
    hl_darray_destroy(j.out);
    hl_plan_destroy(j.chain);
    if (!inited)
        MPI_Finalize();
    return j.st != HL_OK ? 2 : 0;
}

/* Whether --procs is among the options: MPI then starts before the
 * arguments are checked, so that only process 0 prints their errors. */
static bool wants_procs(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "--procs"))
            return true;
    return false;
}

int transform_under_mpi(int argc, char **argv, int (*main_fn)(int, char **))
{
    if (wants_procs(argc, argv)) {
        int me = 0;
        if (MPI_Init(NULL, NULL) != MPI_SUCCESS)
            return cli_error("transform", "--procs: MPI_Init failed");
        MPI_Comm_rank(MPI_COMM_WORLD, &me);
        cli_quiet = me != 0; /* every process reaches the same error: process 0 says it */
        int rc = main_fn(argc, argv), all = rc;
        MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        MPI_Finalize();
        return all;
    }
    return -1;
}
