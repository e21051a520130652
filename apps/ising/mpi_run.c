/* hyperlayout Ising — the temperature sweep across processes (ising_mpi.h):
 * ising_run's loop (loop.c), with every decision that depends on a clock or a
 * signal (batch size, checkpoint, stop) taken together, and collective
 * checkpoints. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ising_mpi.h"
#include "loop.h"

hl_status ising_dist_spins_path(char *buf, size_t cap, const char *path, int gen)
{
    if (!buf || !path)
        return HL_ERR_NULL;
    size_t n = strlen(path);
    if (n >= 4 && !strcmp(path + n - 4, ".bin"))
        n -= 4;
    const int w = snprintf(buf, cap, "%.*s_spins_%d.npy", (int)n, path, gen);
    return w < 0 || (size_t)w >= cap ? HL_ERR_BUFFER : HL_OK;
}

static hl_status check_params(const ising_params *p)
{
    hl_status st = ising_check_params(p);
    if (st != HL_OK)
        return st;
    if (ising_dynamics_cluster(p->dynamics))
        return HL_ERR_UNSUPPORTED; /* Wolff and SW run in one process */
    return ising_check_betas(p);
}

/* Collective checkpoint: the spins into the generation the current state
 * file does not name, then the state file (process 0), which commits the
 * pair.  *gen becomes the new generation. */
static hl_status save(ising_dist *d, MPI_Comm comm, int me, const char *path,
                      const ising_params *p, const ising_state *s, int *gen)
{
    char spins[4200];
    const int next = *gen < 0 ? 0 : 1 - *gen;
    hl_status st = ising_dist_spins_path(spins, sizeof spins, path, next);
    st = hl_mpi_agree(comm, st, NULL, 0);
    if (st == HL_OK)
        st = ising_dist_write_npy(d, spins);
    uint64_t sum = 0;
    if (st == HL_OK)
        st = ising_dist_checksum(d, &sum);
    if (st == HL_OK) {
        hl_status s0 = me == 0 ? ising_checkpoint_save_dist(path, p, s, next, sum) : HL_OK;
        st = hl_mpi_agree(comm, s0, NULL, 0);
    }
    if (st == HL_OK)
        *gen = next;
    return st;
}

/* Collective resume: process 0 reads the state file, every process gets it,
 * the spins are read collectively and checked against the checksum.
 * HL_ERR_IO with errno ENOENT on every process when there is no state file. */
static hl_status load(ising_dist *d, MPI_Comm comm, int me, const char *path,
                      const ising_params *p, ising_state *s, int *gen)
{
    int g = 0, err = 0;
    uint64_t sum = 0;
    hl_status st = HL_OK;
    if (me == 0) {
        st = ising_checkpoint_load_dist(path, p, s, &g, &sum);
        err = st == HL_ERR_IO ? errno : 0;
    }
    int head[3] = {(int)st, err, g};
    if (MPI_Bcast(head, 3, MPI_INT, 0, comm) != MPI_SUCCESS)
        return HL_ERR_COMM;
    st = (hl_status)head[0];
    if (st != HL_OK) {
        errno = head[1];
        return st;
    }
    g = head[2];
    int64_t v[4] = {s->temp, s->done, s->sweep, s->measured};
    if (MPI_Bcast(v, 4, MPI_INT64_T, 0, comm) != MPI_SUCCESS ||
        MPI_Bcast(&sum, 1, MPI_UINT64_T, 0, comm) != MPI_SUCCESS)
        return HL_ERR_COMM;
    s->temp = (int)v[0];
    s->done = v[1];
    s->sweep = v[2];
    s->measured = v[3];
    if ((s->measured > 0 &&
         (MPI_Bcast(s->magnetisation, (int)s->measured, MPI_INT64_T, 0, comm) != MPI_SUCCESS ||
          MPI_Bcast(s->bonds, (int)s->measured, MPI_INT64_T, 0, comm) != MPI_SUCCESS)) ||
        (s->temp > 0 && MPI_Bcast(s->results, (int)(s->temp * sizeof *s->results), MPI_BYTE, 0,
                                  comm) != MPI_SUCCESS))
        return HL_ERR_COMM;
    char spins[4200];
    st = hl_mpi_agree(comm, ising_dist_spins_path(spins, sizeof spins, path, g), NULL, 0);
    if (st == HL_OK)
        st = ising_dist_read_npy(d, spins);
    if (st == HL_ERR_MISMATCH || st == HL_ERR_IO)
        st = HL_ERR_FORMAT; /* the state file names a spin file that is not this lattice's */
    uint64_t got = 0;
    if (st == HL_OK)
        st = ising_dist_checksum(d, &got);
    if (st == HL_OK && got != sum)
        st = HL_ERR_FORMAT;
    if (st == HL_OK)
        st = ising_dist_set_sweep_index(d, s->sweep);
    if (st == HL_OK)
        *gen = g;
    return st;
}

/* The context of the loop's hooks (loop.h) across processes. */
typedef struct dist_ctx {
    ising_dist *d;
    MPI_Comm comm;
    int me;
    int gen; /* the spin file generation of the last checkpoint; -1: none */
    const ising_params *p;
    const ising_dist_options *o;
} dist_ctx;

static hl_status dist_set_beta(void *ctx, double beta, double h)
{
    return ising_dist_set_beta(((dist_ctx *)ctx)->d, beta, h);
}

static hl_status dist_sweep(void *ctx, int64_t count, int64_t *magnetisation, int64_t *bonds)
{
    return ising_dist_sweep(((dist_ctx *)ctx)->d, count, magnetisation, bonds);
}

static int64_t dist_sweep_index(void *ctx)
{
    return ising_dist_sweep_index(((dist_ctx *)ctx)->d);
}

static hl_status dist_start(void *ctx, ising_start how)
{
    ising_dist *d = ((dist_ctx *)ctx)->d;
    return how == ISING_START_HOT ? ising_dist_randomize(d)
                                  : ising_dist_fill(d, how == ISING_START_UP ? 1 : -1);
}

static hl_status dist_load(void *ctx, ising_state *s)
{
    dist_ctx *c = ctx;
    return load(c->d, c->comm, c->me, c->o->checkpoint, c->p, s, &c->gen);
}

static hl_status dist_save(void *ctx, const ising_state *s)
{
    dist_ctx *c = ctx;
    return save(c->d, c->comm, c->me, c->o->checkpoint, c->p, s, &c->gen);
}

static hl_status dist_finished(void *ctx, int temp, const ising_result *r,
                               const int64_t *magnetisation, const int64_t *bonds)
{
    const dist_ctx *c = ctx;
    return c->o->finished(c->o->ctx, temp, r, magnetisation, bonds, c->d);
}

static hl_status dist_agree(void *ctx, hl_status st)
{
    return hl_mpi_agree(((dist_ctx *)ctx)->comm, st, NULL, 0);
}

/* Process 0's clock decides the batch and the checkpoint; any process may
 * stop the run; the worst status of any process goes on. */
static void dist_decide(void *ctx, ising_batch *b)
{
    const dist_ctx *c = ctx;
    int64_t dec[4] = {c->me == 0 ? b->size : 0, c->me == 0 ? b->checkpoint : 0, b->stop != 0,
                      (int64_t)b->status};
    if (MPI_Allreduce(MPI_IN_PLACE, dec, 4, MPI_INT64_T, MPI_MAX, c->comm) != MPI_SUCCESS)
        dec[3] = HL_ERR_COMM;
    b->size = dec[0] > 0 ? dec[0] : 1;
    b->checkpoint = (int)dec[1];
    b->stop = (int)dec[2];
    b->status = (hl_status)dec[3];
}

hl_status ising_dist_run(const ising_params *p, const ising_dist_options *o, ising_result *results,
                         int *complete)
{
    if (!p || !o || !results || !complete)
        return HL_ERR_NULL;
    *complete = 0;
    MPI_Comm comm = o->comm;
    int me = 0;
    if (MPI_Comm_rank(comm, &me) != MPI_SUCCESS)
        return HL_ERR_COMM;
    hl_status st = hl_mpi_agree(comm, check_params(p), NULL, 0);
    if (st != HL_OK)
        return st;
    ising_dist *d = NULL;
    st = ising_dist_create(&d, comm, p->rank, p->extent, o->grid, p->seed);
    if (st == HL_OK)
        st = ising_dist_set_dynamics(d, p->dynamics);
    st = hl_mpi_agree(comm, st, NULL, 0);
    if (st == HL_OK) {
        dist_ctx c = {d, comm, me, -1, p, o};
        const ising_loop l = {
            .ctx = &c,
            .set_beta = dist_set_beta,
            .sweep = dist_sweep,
            .sweep_index = dist_sweep_index,
            .start = dist_start,
            .load = o->checkpoint && o->resume ? dist_load : NULL,
            .save = o->checkpoint ? dist_save : NULL,
            .finished = o->finished ? dist_finished : NULL,
            .agree = dist_agree,
            .decide = dist_decide,
            .count = ising_dist_count(d),
            .checkpoint_every = o->checkpoint_every,
            .progress = o->progress,
            .user = o->ctx,
        };
        st = ising_loop_run(p, &l, results, complete);
    }
    ising_dist_destroy(d);
    return st;
}
