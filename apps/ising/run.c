/* hyperlayout Ising — the temperature sweep driver. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "run.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
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
    if (p->clusters < 0 || p->clusters > ((int64_t)1 << 40))
        return HL_ERR_ARG;
    if (ising_dynamics_cluster(p->dynamics) && p->h != 0)
        return HL_ERR_UNSUPPORTED; /* the cluster updates are for h = 0 */
    for (int i = 0; i < p->ntemps; i++)
        if (!(p->beta[i] >= 0) || !isfinite(p->beta[i]))
            return HL_ERR_ARG;
    return HL_OK;
}

/* Sweeps per batch between calls to `progress` and checks of the clock:
 * about a tenth of a second's worth. */
static int64_t next_batch(double seconds, int64_t batch)
{
    if (seconds <= 0)
        return batch * 2;
    double b = (double)batch * 0.1 / seconds;
    b = b > 2.0 * (double)batch ? 2.0 * (double)batch : b;
    return b < 1 ? 1 : (int64_t)b;
}

hl_status ising_run(const ising_params *pp, const ising_options *o, ising_result *results,
                    int *complete)
{
    if (!pp || !o || !results || !complete)
        return HL_ERR_NULL;
    /* the stream follows the variant: a checkpoint of M resumes as M only */
    ising_params q = *pp;
    q.multispin = o->variant == ISING_M;
    const ising_params *p = &q;
    *complete = 0;
    hl_status st = check_params(p);
    if (st != HL_OK)
        return st;
    ising *is = NULL;
    st = ising_create(&is, p->rank, p->extent, p->seed);
    if (st == HL_OK)
        st = ising_set_variant(is, o->variant);
    if (st == HL_OK)
        st = ising_set_threads(is, o->threads);
    if (st == HL_OK)
        st = ising_set_dynamics(is, p->dynamics);
    if (st == HL_OK)
        st = ising_set_clusters(is, p->clusters > 0 ? p->clusters : 1);
    if (st == HL_OK)
        st = ising_set_device(is, o->device);
    int64_t *mag = malloc((size_t)p->sweeps * sizeof *mag);
    int64_t *bonds = malloc((size_t)p->sweeps * sizeof *bonds);
    if (st == HL_OK && (!mag || !bonds))
        st = HL_ERR_NOMEM;
    ising_state s = {0, 0, 0, 0, mag, bonds, results};
    int resumed = 0;
    if (st == HL_OK && o->checkpoint && o->resume) {
        st = ising_checkpoint_load(o->checkpoint, p, &s, is);
        if (st == HL_ERR_IO && errno == ENOENT)
            st = HL_OK; /* nothing to resume: start afresh */
        else if (st == HL_OK)
            resumed = 1;
    }
    if (st == HL_OK && !resumed) {
        if (p->start == ISING_START_HOT)
            ising_randomize(is);
        else
            st = ising_fill(is, p->start == ISING_START_UP ? 1 : -1);
    }
    const int64_t per_temp = p->therm + p->sweeps, total = per_temp * p->ntemps;
    double last_checkpoint = now();
    int64_t batch = 1;
    int stop = 0;
    for (; st == HL_OK && s.temp < p->ntemps; s.temp++, s.done = 0, s.measured = 0) {
        st = ising_set_beta(is, p->beta[s.temp], p->h);
        while (st == HL_OK && s.done < per_temp) {
            /* a batch does not cross from thermalisation into measurement */
            const int64_t phase_end = s.done < p->therm ? p->therm : per_temp;
            const int64_t n = batch < phase_end - s.done ? batch : phase_end - s.done;
            const double t0 = now();
            if (s.done < p->therm) {
                st = ising_sweep(is, n, NULL, NULL);
            } else {
                st = ising_sweep(is, n, mag + s.measured, bonds + s.measured);
                s.measured += n;
            }
            s.done += n;
            s.sweep = ising_sweep_index(is);
            const double t1 = now();
            batch = next_batch((t1 - t0) / (double)n * (double)batch, batch);
            if (o->progress)
                stop = o->progress(o->ctx, s.temp, s.temp * per_temp + s.done, total);
            if (st == HL_OK && o->checkpoint && s.done < per_temp &&
                (stop || t1 - last_checkpoint >= o->checkpoint_every)) {
                st = ising_checkpoint_save(o->checkpoint, p, &s, is);
                last_checkpoint = now();
            }
            if (stop && s.done < per_temp)
                break;
        }
        if (st != HL_OK || s.done < per_temp)
            break;
        st = ising_analyse(mag, bonds, p->sweeps, ising_count(is), p->beta[s.temp], p->h,
                           p->beta[s.temp], &results[s.temp]);
        /* the callback reads the spins: on the GPU they come home here, once per temperature */
        if (st == HL_OK && o->finished)
            st = ising_sync_host(is);
        if (st == HL_OK && o->finished)
            st = o->finished(o->ctx, s.temp, &results[s.temp], mag, bonds, is);
        if (st == HL_OK && o->checkpoint) {
            ising_state next = {s.temp + 1, 0, s.sweep, 0, mag, bonds, results};
            st = ising_checkpoint_save(o->checkpoint, p, &next, is);
            last_checkpoint = now();
        }
        if (stop) {
            s.temp++;
            break;
        }
    }
    if (st == HL_OK && s.temp >= p->ntemps)
        *complete = 1;
    free(mag);
    free(bonds);
    ising_destroy(is);
    return st;
}
