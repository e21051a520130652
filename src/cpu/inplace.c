/* hyperlayout — running in-place passes on the CPU.
 *
 * A pass (ir.h) moves whole slabs along one dimension.  Its solver is
 * chosen at preparation: short rows of dimension 0 are gathered through a
 * buffer in cache; long dimensions kept as reflections are swapped pairwise;
 * anything else walks sigma's cycles (split at preparation).  Every
 * (group, piece of a slab) is an independent task that moves its piece with
 * one buffer: each element is read once and written once per pass.  Passes
 * of consecutive dimensions that all walk cycles (dimension 0's gather
 * among them) are fused first: one walk of the product's cycles, each row
 * gathered on its way (hl_inplace_fuse_passes). */
#include "inplace_internal.h"

#include <inttypes.h>
#include <omp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#include "elem.h"
#include "intranspose.h"
#include "layout/coord.h"

struct hl_inplace {
    int64_t es;
    int n;
    moved_dim *dim;
    bool transposes; /* some pass is a transpose (a permutation of dimensions) */
    bool whole;      /* some pass has only moves (a plan the walk of cells ran before) */
    int phases;      /* passes over the array, counting a transpose's own */
};

void hl_inplace_destroy(hl_inplace *ip)
{
    if (!ip)
        return;
    for (int j = 0; j < ip->n; j++) {
        free(ip->dim[j].order);
        free(ip->dim[j].start);
        free(ip->dim[j].fused);
        hl_intranspose_destroy(ip->dim[j].tr);
        hl_inplace_free_steps(&ip->dim[j]);
    }
    free(ip->dim);
    free(ip);
}

static int64_t buffer_of(const moved_dim *m, int64_t es, int workers)
{
    if (hl_inplace_segmented(m, es, workers))
        return SEGMENT_SLABS * m->slab * es;
    if (m->tr)
        return hl_intranspose_buffer(m->tr);
    if (m->nsteps)
        return hl_inplace_stream_buffer(m, es, workers);
    return is_gather(m) ? m->len * es : hl_inplace_piece_of(m, es, workers) * es;
}

/* A transpose, or the slab permutation the planner made of one. */
static bool is_transpose_pass(const hl_ir_pass *p) { return p->transpose || p->dim < 0; }

/* A reflection pass of a long dimension that is streamed. */
static bool streamed_reflection(const hl_ir_pass *p, int64_t es)
{
    return !p->sigma && !p->transpose && p->reflect >= 0 && p->nmoves == 1 &&
           p->len * p->slab * es > ROW_BYTES && p->slab * es <= STREAM_SLAB_MAX;
}

/* Whether p and q (the next pass) are the two reflections of a rotation. */
static bool joins(const hl_ir_pass *p, const hl_ir_pass *q, int64_t es)
{
    return streamed_reflection(p, es) && streamed_reflection(q, es) && p->dim == q->dim &&
           p->len == q->len && p->slab == q->slab && p->groups == q->groups;
}

hl_status hl_inplace_create(hl_inplace **out, const hl_ir_pass *passes, int npasses, int64_t es)
{
    *out = NULL;
    hl_inplace *ip = calloc(1, sizeof *ip);
    if (!ip || !(ip->dim = calloc((size_t)(npasses > 0 ? npasses : 1), sizeof *ip->dim))) {
        free(ip);
        return HL_ERR_NOMEM;
    }
    ip->es = es;
    for (int j = 0; j < npasses; j++) {
        const hl_ir_pass *p = &passes[j];
        hl_status st = HL_OK;
        const int fused = hl_inplace_fuse_passes(&ip->dim[ip->n], passes, j, npasses, es, &st);
        if (st != HL_OK) {
            hl_inplace_destroy(ip);
            return st;
        }
        if (fused) {
            ip->n++;
            j += fused - 1;
            continue;
        }
        hl_ir_pass joined;
        if (j + 1 < npasses && joins(p, &passes[j + 1], es)) {
            /* two reflections of a long dimension (a rotation): u -> c1 - u -> c2 - c1 + u */
            joined = *p;
            joined.move[0] = (hl_ir_move){HL_MOVE_DIHEDRAL,
                                          ((passes[j + 1].reflect - p->reflect) % p->len + p->len) % p->len, 1};
            p = &joined;
            j++;
        }
        moved_dim *m = &ip->dim[ip->n++];
        *m = (moved_dim){p->dim, p->len, p->slab, p->groups, 0, NULL, NULL, p->sigma, p->reflect, NULL,
                         NULL};
        if (p->transpose) {
            const hl_status s = hl_intranspose_create(&m->tr, p->groups, p->rows, p->cols, p->slab * es, p->mid);
            if (s != HL_OK) {
                hl_inplace_destroy(ip);
                return s;
            }
            continue;
        }
        const bool moves_only = !p->sigma && p->reflect < 0 && p->dim >= 0;
        const bool long_rows = p->len * p->slab * es > ROW_BYTES && p->slab * es <= STREAM_SLAB_MAX;
        if (p->nmoves > 0 && (moves_only || long_rows)) {
            const hl_status s = hl_inplace_stream_create(m, p, es);
            ip->whole = ip->whole || moves_only;
            if (s == HL_OK)
                continue;
            if (moves_only || s == HL_ERR_NOMEM) {
                hl_inplace_destroy(ip);
                return s;
            }
        }
        for (size_t k = 0; k < sizeof hl_inplace_solvers / sizeof *hl_inplace_solvers && !m->solver; k++)
            if (hl_inplace_solvers[k].applicable(p, es))
                m->solver = &hl_inplace_solvers[k];
        if (m->solver == &hl_inplace_solvers[2] && hl_inplace_split_cycles(m, p->sigma) != HL_OK) {
            hl_inplace_destroy(ip);
            return HL_ERR_NOMEM;
        }
    }
    for (int j = 0; j < npasses; j++)
        ip->transposes = ip->transposes || is_transpose_pass(&passes[j]);
    for (int j = 0; j < ip->n; j++) {
        ip->phases += ip->dim[j].tr       ? hl_intranspose_phases(ip->dim[j].tr)
                      : ip->dim[j].nsteps ? hl_inplace_stream_phases(&ip->dim[j])
                                          : 1;
    }
    *out = ip;
    return HL_OK;
}

static void run_pass(const moved_dim *m, char *a, int64_t es, const hl_exec_ctx *ctx, char *buf,
                     int64_t stride)
{
    if (m->tr) {
        hl_intranspose_run(m->tr, a, ctx, buf, stride);
        return;
    }
    if (m->nsteps) {
        hl_inplace_run_stream(m, a, es, ctx, buf, stride);
        return;
    }
    if (ctx->team > 1 && hl_inplace_segmented(m, es, ctx->team)) {
        hl_inplace_run_segmented(m, a, es, ctx->team, buf);
        return;
    }
    hl_inplace_run_items(m, a, es, ctx, buf, stride);
}

hl_status hl_inplace_run(const hl_inplace *ip, char *a, const hl_exec_ctx *ctx)
{
    if (ctx->team == 0 && ctx->shares > 1 && ip->n > 1 && !ip->transposes && !ip->whole)
        return HL_ERR_IN_PLACE; /* the second pass must wait for every share of the first */
    hl_exec_ctx whole = *ctx;
    if (ctx->team == 0 && ctx->shares > 1 && ip->phases > 1) {
        /* A permutation of dimensions ran in share 0 as a walk of cells
         * before it had passes; it still runs there whole rather than be
         * refused. */
        if (ctx->share != 0)
            return HL_OK;
        whole.shares = 1;
        ctx = &whole;
    }
    /* every buffer is allocated before the first pass: a failure must leave
     * the array as it was */
    const int workers = ctx->team > 0 ? ctx->team : 1;
    const int split = ctx->team > 0 ? ctx->team : ctx->shares;
    int64_t stride = 64;
    for (int j = 0; j < ip->n; j++) {
        const int64_t b = buffer_of(&ip->dim[j], ip->es, split);
        stride = b > stride ? b : stride;
    }
    stride = (stride + 63) / 64 * 64;
    char *buf = aligned_alloc(64, (size_t)(stride * workers));
    if (!buf)
        return HL_ERR_NOMEM;
    for (int j = 0; j < ip->n; j++)
        run_pass(&ip->dim[j], a, ip->es, ctx, buf, stride);
    free(buf);
    return HL_OK;
}

int hl_inplace_passes(const hl_inplace *ip) { return ip->n; }

size_t hl_inplace_describe(const hl_inplace *ip, char *buf, size_t size, size_t used)
{
    const size_t start = used;
    for (int j = 0; j < ip->n; j++) {
        const moved_dim *m = &ip->dim[j];
        if (m->tr) {
            int64_t rows, cols, mid;
            hl_intranspose_shape(m->tr, &rows, &cols, &mid);
            used += hl_appendf(buf, size, used, "    pass %d: transpose of %" PRId64 " matrices of %" PRId64
                               " x %" PRId64 " slabs of %" PRId64 " elements", j, m->groups * mid, rows, cols,
                               m->slab);
            if (mid > 1)
                used += hl_appendf(buf, size, used, " (%" PRId64 " interleaved: rows %" PRId64 " slabs apart)",
                                   mid, mid * cols);
            used += hl_appendf(buf, size, used, ": %s (%d pass%s)\n", hl_intranspose_name(m->tr),
                               hl_intranspose_phases(m->tr), hl_intranspose_phases(m->tr) == 1 ? "" : "es");
            continue;
        }
        if (m->nsteps) {
            used += hl_appendf(buf, size, used, "    pass %d: dimension %d, %" PRId64 " slabs of %" PRId64
                               " elements in %" PRId64 " groups: streamed in %d pass%s:", j, m->dim,
                               m->len, m->slab, m->groups, hl_inplace_stream_phases(m),
                               hl_inplace_stream_phases(m) == 1 ? "" : "es");
            for (int k = 0; k < m->nsteps; k++) {
                const stream_step *st = &m->steps[k];
                used += hl_appendf(buf, size, used, "%s %s", k ? "," : "", hl_inplace_step_names[st->kind]);
                if (st->kind == ST_LOCAL)
                    used += hl_appendf(buf, size, used, " (%" PRId64 " x %" PRId64 ")",
                                       st->inverse ? st->n : st->b, st->inverse ? st->b : st->n);
                else if (st->kind == ST_SLABS)
                    used += hl_appendf(buf, size, used, " (%" PRId64 " pieces, %" PRId64 " cycles)",
                                       st->slabs->len, st->slabs->ncycles);
                else if (st->kind == ST_TRANSPOSE)
                    used += hl_appendf(buf, size, used, " (%s)", hl_intranspose_name(st->tr));
            }
            used += hl_appendf(buf, size, used, "\n");
            continue;
        }
        if (m->dim < 0)
            used += hl_appendf(buf, size, used, "    pass %d: transpose as %" PRId64 " slabs of %" PRId64
                               " elements in %" PRId64 " groups: %s", j, m->len, m->slab,
                               m->groups, m->solver->name);
        else if (m->dims > 1)
            used += hl_appendf(buf, size, used, "    pass %d: dimensions %d to %d fused, %" PRId64
                               " slabs of %" PRId64 " elements in %" PRId64 " groups: %s", j, m->dim,
                               m->dim + m->dims - 1, m->len, m->slab, m->groups, m->solver->name);
        else
            used += hl_appendf(buf, size, used, "    pass %d: dimension %d, %" PRId64 " slabs of %" PRId64
                               " elements in %" PRId64 " groups: %s", j, m->dim, m->len, m->slab,
                               m->groups, m->solver->name);
        if (m->solver == &hl_inplace_solvers[2] || m->solver == &hl_inplace_fused_solver)
            used += hl_appendf(buf, size, used, " (%" PRId64 " cycles)", m->ncycles);
        used += hl_appendf(buf, size, used, "\n");
    }
    return used - start;
}
