/* hyperlayout Ising — the temperature sweep's loop (loop.h). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "loop.h"

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

hl_status ising_check_params(const ising_params *p)
{
    if (!p->beta)
        return HL_ERR_NULL;
    if (p->ntemps < 1 || p->therm < 0 || p->sweeps < 2 || !isfinite(p->h) ||
        (p->start != ISING_START_HOT && p->start != ISING_START_UP &&
         p->start != ISING_START_DOWN) ||
        (p->dynamics != ISING_METROPOLIS && p->dynamics != ISING_HEATBATH &&
         !ising_dynamics_cluster(p->dynamics)))
        return HL_ERR_ARG;
    return HL_OK;
}

hl_status ising_check_betas(const ising_params *p)
{
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

typedef struct loop_run {
    const ising_params *p;
    const ising_loop *l;
    ising_state s;
    int64_t per_temp, total, batch;
    double last_checkpoint;
    int stop;
} loop_run;

/* A step's status as the caller's hook agrees it (across processes
 * hl_mpi_agree, through mpi_run.c's dist_agree; the loop itself knows no
 * MPI), or this process's own where there is no hook. */
static hl_status agree(const ising_loop *l, hl_status st)
{
    return l->agree ? l->agree(l->ctx, st) : st;
}

/* A resumed state if there is one, else the fresh start p asks for. */
static hl_status begin(loop_run *r)
{
    const ising_loop *l = r->l;
    int resumed = 0;
    hl_status st = HL_OK;
    if (l->load) {
        st = l->load(l->ctx, &r->s);
        if (st == HL_ERR_IO && errno == ENOENT)
            st = HL_OK; /* nothing to resume: start afresh */
        else if (st == HL_OK)
            resumed = 1;
    }
    if (st == HL_OK && !resumed)
        st = l->start(l->ctx, r->p->start);
    return st;
}

/* The decisions after a batch that took t0..t1: the next batch's size,
 * whether to stop, whether a checkpoint is due. */
static hl_status decide(loop_run *r, hl_status st, int64_t n, double t0, double t1)
{
    const ising_loop *l = r->l;
    const ising_state *s = &r->s;
    ising_batch b = {
        .size = next_batch((t1 - t0) / (double)n * (double)r->batch, r->batch),
        .checkpoint = t1 - r->last_checkpoint >= l->checkpoint_every,
        .stop = l->progress &&
                l->progress(l->user, s->temp, s->temp * r->per_temp + s->done, r->total) != 0,
        .status = st,
    };
    if (l->decide)
        l->decide(l->ctx, &b);
    r->batch = b.size;
    r->stop = b.stop;
    if (b.status == HL_OK && l->save && s->done < r->per_temp && (r->stop || b.checkpoint)) {
        b.status = l->save(l->ctx, s);
        r->last_checkpoint = now();
    }
    return b.status;
}

/* One batch of sweeps at the current temperature, and what follows it. */
static hl_status sweep_batch(loop_run *r)
{
    const ising_params *p = r->p;
    const ising_loop *l = r->l;
    ising_state *s = &r->s;
    /* a batch does not cross from thermalisation into measurement */
    const int64_t phase_end = s->done < p->therm ? p->therm : r->per_temp;
    const int64_t n = r->batch < phase_end - s->done ? r->batch : phase_end - s->done;
    const double t0 = now();
    hl_status st;
    if (s->done < p->therm) {
        st = l->sweep(l->ctx, n, NULL, NULL);
    } else {
        st = l->sweep(l->ctx, n, s->magnetisation + s->measured, s->bonds + s->measured);
        s->measured += n;
    }
    s->done += n;
    s->sweep = l->sweep_index(l->ctx);
    return decide(r, st, n, t0, now());
}

/* The current temperature's series are complete: its estimates, the
 * caller's hook, and a checkpoint that starts the next temperature. */
static hl_status finish_temperature(loop_run *r)
{
    const ising_params *p = r->p;
    const ising_loop *l = r->l;
    const ising_state *s = &r->s;
    const int t = s->temp;
    ising_result *res = &s->results[t];
    hl_status st = agree(l, ising_analyse(s->magnetisation, s->bonds, p->sweeps, l->count,
                                          p->beta[t], p->h, p->beta[t], res));
    if (st == HL_OK && l->finished)
        st = agree(l, l->finished(l->ctx, t, res, s->magnetisation, s->bonds));
    if (st == HL_OK && l->save) {
        const ising_state next = {t + 1, 0, s->sweep, 0, s->magnetisation, s->bonds, s->results};
        st = l->save(l->ctx, &next);
        r->last_checkpoint = now();
    }
    return st;
}

/* Every temperature from the current one on, until the last or a stop. */
static hl_status run_temperatures(loop_run *r)
{
    const ising_params *p = r->p;
    ising_state *s = &r->s;
    hl_status st = HL_OK;
    for (; st == HL_OK && s->temp < p->ntemps; s->temp++, s->done = 0, s->measured = 0) {
        st = r->l->set_beta(r->l->ctx, p->beta[s->temp], p->h);
        while (st == HL_OK && s->done < r->per_temp) {
            st = sweep_batch(r);
            if (r->stop && s->done < r->per_temp)
                break;
        }
        if (st != HL_OK || s->done < r->per_temp)
            break;
        st = finish_temperature(r);
        if (r->stop) {
            s->temp++;
            break;
        }
    }
    return st;
}

hl_status ising_loop_run(const ising_params *p, const ising_loop *l, ising_result *results,
                         int *complete)
{
    *complete = 0;
    int64_t *mag = malloc((size_t)p->sweeps * sizeof *mag);
    int64_t *bonds = malloc((size_t)p->sweeps * sizeof *bonds);
    hl_status st = agree(l, mag && bonds ? HL_OK : HL_ERR_NOMEM);
    loop_run r = {p, l, {0, 0, 0, 0, mag, bonds, results}, p->therm + p->sweeps, 0, 1, 0, 0};
    r.total = r.per_temp * p->ntemps;
    if (st == HL_OK) /* a start or resume that failed on one process stops all */
        st = agree(l, begin(&r));
    if (st == HL_OK) {
        r.last_checkpoint = now();
        st = run_temperatures(&r);
    }
    st = agree(l, st);
    if (st == HL_OK && r.s.temp >= p->ntemps)
        *complete = 1;
    free(mag);
    free(bonds);
    return st;
}
