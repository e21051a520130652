/* hyperlayout Ising — the temperature sweep across processes (ising_mpi.h):
 * ising_run's loop, with every decision that depends on a clock or a signal
 * (batch size, checkpoint, stop) taken together, and collective
 * checkpoints. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ising_mpi.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static hl_status agree(MPI_Comm comm, hl_status st)
{
    int in = (int)st, out = 0;
    if (MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
        return HL_ERR_COMM;
    return (hl_status)out;
}

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
    if (!p->beta)
        return HL_ERR_NULL;
    if (p->ntemps < 1 || p->therm < 0 || p->sweeps < 2 || !isfinite(p->h) ||
        (p->start != ISING_START_HOT && p->start != ISING_START_UP &&
         p->start != ISING_START_DOWN) ||
        (p->dynamics != ISING_METROPOLIS && p->dynamics != ISING_HEATBATH &&
         !ising_dynamics_cluster(p->dynamics)))
        return HL_ERR_ARG;
    if (ising_dynamics_cluster(p->dynamics))
        return HL_ERR_UNSUPPORTED; /* Wolff and SW run in one process */
    for (int i = 0; i < p->ntemps; i++)
        if (!(p->beta[i] >= 0) || !isfinite(p->beta[i]))
            return HL_ERR_ARG;
    return HL_OK;
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
    st = agree(comm, st);
    if (st == HL_OK)
        st = ising_dist_write_npy(d, spins);
    uint64_t sum = 0;
    if (st == HL_OK)
        st = ising_dist_checksum(d, &sum);
    if (st == HL_OK) {
        hl_status s0 = me == 0 ? ising_checkpoint_save_dist(path, p, s, next, sum) : HL_OK;
        st = agree(comm, s0);
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
    st = agree(comm, ising_dist_spins_path(spins, sizeof spins, path, g));
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

/* Sweeps per batch: about a tenth of a second's worth (process 0's clock). */
static int64_t next_batch(double seconds, int64_t batch)
{
    if (seconds <= 0)
        return batch * 2;
    double b = (double)batch * 0.1 / seconds;
    b = b > 2.0 * (double)batch ? 2.0 * (double)batch : b;
    return b < 1 ? 1 : (int64_t)b;
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
    hl_status st = agree(comm, check_params(p));
    if (st != HL_OK)
        return st;
    ising_dist *d = NULL;
    st = ising_dist_create(&d, comm, p->rank, p->extent, o->grid, p->seed);
    if (st == HL_OK)
        st = ising_dist_set_dynamics(d, p->dynamics);
    int64_t *mag = malloc((size_t)p->sweeps * sizeof *mag);
    int64_t *bonds = malloc((size_t)p->sweeps * sizeof *bonds);
    if (st == HL_OK && (!mag || !bonds))
        st = HL_ERR_NOMEM;
    st = agree(comm, st);
    ising_state s = {0, 0, 0, 0, mag, bonds, results};
    int resumed = 0, gen = -1;
    if (st == HL_OK && o->checkpoint && o->resume) {
        st = load(d, comm, me, o->checkpoint, p, &s, &gen);
        if (st == HL_ERR_IO && errno == ENOENT)
            st = HL_OK; /* nothing to resume: start afresh */
        else if (st == HL_OK)
            resumed = 1;
    }
    if (st == HL_OK && !resumed) {
        if (p->start == ISING_START_HOT)
            st = ising_dist_randomize(d);
        else
            st = ising_dist_fill(d, p->start == ISING_START_UP ? 1 : -1);
    }
    const int64_t per_temp = p->therm + p->sweeps, total = per_temp * p->ntemps;
    double last_checkpoint = now();
    int64_t batch = 1;
    int stop = 0;
    for (; st == HL_OK && s.temp < p->ntemps; s.temp++, s.done = 0, s.measured = 0) {
        st = ising_dist_set_beta(d, p->beta[s.temp], p->h);
        while (st == HL_OK && s.done < per_temp) {
            const int64_t phase_end = s.done < p->therm ? p->therm : per_temp;
            const int64_t n = batch < phase_end - s.done ? batch : phase_end - s.done;
            const double t0 = now();
            if (s.done < p->therm) {
                st = ising_dist_sweep(d, n, NULL, NULL);
            } else {
                st = ising_dist_sweep(d, n, mag + s.measured, bonds + s.measured);
                s.measured += n;
            }
            s.done += n;
            s.sweep = ising_dist_sweep_index(d);
            const double t1 = now();
            int local_stop = o->progress ? o->progress(o->ctx, s.temp, s.temp * per_temp + s.done, total) : 0;
            /* process 0's clock decides the batch and the checkpoint; any
             * process may stop the run */
            int64_t dec[4] = {0, 0, local_stop != 0, (int64_t)st};
            if (me == 0) {
                dec[0] = next_batch((t1 - t0) / (double)n * (double)batch, batch);
                dec[1] = t1 - last_checkpoint >= o->checkpoint_every;
            }
            if (MPI_Allreduce(MPI_IN_PLACE, dec, 4, MPI_INT64_T, MPI_MAX, comm) != MPI_SUCCESS)
                dec[3] = HL_ERR_COMM;
            st = (hl_status)dec[3]; /* the worst of any process */
            batch = dec[0] > 0 ? dec[0] : 1;
            stop = (int)dec[2];
            if (st == HL_OK && o->checkpoint && s.done < per_temp && (stop || dec[1])) {
                st = save(d, comm, me, o->checkpoint, p, &s, &gen);
                last_checkpoint = now();
            }
            if (stop && s.done < per_temp)
                break;
        }
        if (st != HL_OK || s.done < per_temp)
            break;
        st = agree(comm, ising_analyse(mag, bonds, p->sweeps, ising_dist_count(d), p->beta[s.temp],
                                       p->h, p->beta[s.temp], &results[s.temp]));
        if (st == HL_OK && o->finished)
            st = agree(comm, o->finished(o->ctx, s.temp, &results[s.temp], mag, bonds, d));
        if (st == HL_OK && o->checkpoint) {
            ising_state next = {s.temp + 1, 0, s.sweep, 0, mag, bonds, results};
            st = save(d, comm, me, o->checkpoint, p, &next, &gen);
            last_checkpoint = now();
        }
        if (stop) {
            s.temp++;
            break;
        }
    }
    st = agree(comm, st);
    if (st == HL_OK && s.temp >= p->ntemps)
        *complete = 1;
    free(mag);
    free(bonds);
    ising_dist_destroy(d);
    return st;
}
