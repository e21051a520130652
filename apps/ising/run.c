/* hyperlayout Ising — the temperature sweep driver for one process: the
 * lattice and its checkpoint file behind the hooks of the shared loop
 * (loop.c). */

#include "run.h"

#include <stddef.h>

#include "loop.h"

static hl_status check_params(const ising_params *p)
{
    hl_status st = ising_check_params(p);
    if (st != HL_OK)
        return st;
    if (p->clusters < 0 || p->clusters > ((int64_t)1 << 40))
        return HL_ERR_ARG;
    if (ising_dynamics_cluster(p->dynamics) && p->h != 0)
        return HL_ERR_UNSUPPORTED; /* the cluster updates are for h = 0 */
    return ising_check_betas(p);
}

/* The context of the loop's hooks (loop.h) for one process. */
typedef struct run_ctx {
    ising *is;
    const ising_params *p;
    const ising_options *o;
} run_ctx;

static hl_status run_set_beta(void *ctx, double beta, double h)
{
    return ising_set_beta(((run_ctx *)ctx)->is, beta, h);
}

static hl_status run_sweep(void *ctx, int64_t count, int64_t *magnetisation, int64_t *bonds)
{
    return ising_sweep(((run_ctx *)ctx)->is, count, magnetisation, bonds);
}

static int64_t run_sweep_index(void *ctx)
{
    return ising_sweep_index(((run_ctx *)ctx)->is);
}

static hl_status run_start(void *ctx, ising_start how)
{
    ising *is = ((run_ctx *)ctx)->is;
    if (how != ISING_START_HOT)
        return ising_fill(is, how == ISING_START_UP ? 1 : -1);
    ising_randomize(is);
    return HL_OK;
}

static hl_status run_load(void *ctx, ising_state *s)
{
    const run_ctx *c = ctx;
    return ising_checkpoint_load(c->o->checkpoint, c->p, s, c->is);
}

static hl_status run_save(void *ctx, const ising_state *s)
{
    const run_ctx *c = ctx;
    return ising_checkpoint_save(c->o->checkpoint, c->p, s, c->is);
}

static hl_status run_finished(void *ctx, int temp, const ising_result *r,
                              const int64_t *magnetisation, const int64_t *bonds)
{
    const run_ctx *c = ctx;
    /* the callback reads the spins: on the GPU they come home here, once per temperature */
    hl_status st = ising_sync_host(c->is);
    if (st == HL_OK)
        st = c->o->finished(c->o->ctx, temp, r, magnetisation, bonds, c->is);
    return st;
}

static hl_status create(ising **out, const ising_params *p, const ising_options *o)
{
    hl_status st = ising_create(out, p->rank, p->extent, p->seed);
    if (st == HL_OK)
        st = ising_set_variant(*out, o->variant);
    if (st == HL_OK)
        st = ising_set_threads(*out, o->threads);
    if (st == HL_OK)
        st = ising_set_dynamics(*out, p->dynamics);
    if (st == HL_OK)
        st = ising_set_clusters(*out, p->clusters > 0 ? p->clusters : 1);
    if (st == HL_OK)
        st = ising_set_device(*out, o->device);
    return st;
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
    st = create(&is, p, o);
    if (st == HL_OK) {
        run_ctx c = {is, p, o};
        const ising_loop l = {
            .ctx = &c,
            .set_beta = run_set_beta,
            .sweep = run_sweep,
            .sweep_index = run_sweep_index,
            .start = run_start,
            .load = o->checkpoint && o->resume ? run_load : NULL,
            .save = o->checkpoint ? run_save : NULL,
            .finished = o->finished ? run_finished : NULL,
            .count = ising_count(is),
            .checkpoint_every = o->checkpoint_every,
            .progress = o->progress,
            .user = o->ctx,
        };
        st = ising_loop_run(p, &l, results, complete);
    }
    ising_destroy(is);
    return st;
}
