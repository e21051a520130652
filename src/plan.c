/* hyperlayout — plans and their execution.
 *
 * A plan is a chain of steps, each a pair of layouts (src, dst) over the
 * same logical extents.  Execution evaluates the chain's "effective k-index"
 * per output cell: the cell's source offset is found by walking back through
 * the steps (dst_j^-1 then src_j), so each input element is read once and
 * each output element written once whatever the chain's length. */
#include "hyperlayout/plan.h"

#include <omp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "hyperlayout/kindex.h"
#include "copy.h"
#include "elem.h"
#include "inplace.h"
#include "ir.h"
#include "lower.h"

typedef struct plan_step {
    hl_layout src, dst;
} plan_step;

struct hl_plan {
    int nsteps;
    plan_step *steps;
    int64_t elem_size, in_span, out_span;
    int threads;
    bool reference; /* evaluate cell by cell even where boxes exist */
    bool bijective; /* every step maps its cells one to one onto [0, N) on both sides */
    hl_shape out_shape;
    hl_copy *copy;  /* the lowered plan, or NULL: then cell by cell */
    hl_inplace *inplace; /* in place by dimensions, or NULL: then by cycles of cells */
    int64_t nboxes;
};

/* Plans lowered to more boxes than this run cell by cell instead. */
#define HL_PLAN_MAX_BOXES 65536

/* ---- construction ---------------------------------------------------------- */

static hl_status plan_alloc(hl_plan **plan, int nsteps)
{
    hl_plan *p = calloc(1, sizeof *p);
    if (!p)
        return HL_ERR_NOMEM;
    p->steps = calloc((size_t)nsteps, sizeof *p->steps);
    if (!p->steps) {
        free(p);
        return HL_ERR_NOMEM;
    }
    p->nsteps = nsteps;
    *plan = p;
    return HL_OK;
}

static hl_status check_options(const hl_plan_options *opt, int *threads, bool *reference)
{
    *threads = opt ? opt->threads : 0;
    *reference = opt && opt->reference;
    return *threads < 0 ? HL_ERR_ARG : HL_OK;
}

static bool same_extents(const hl_layout *a, const hl_layout *b)
{
    if (a->rank != b->rank)
        return false;
    for (int i = 0; i < a->rank; i++)
        if (a->extent[i] != b->extent[i])
            return false;
    return true;
}

/* Checks one step and the byte sizes of its buffers. */
static hl_status check_step(const hl_layout *src, const hl_layout *dst, int64_t elem_size)
{
    if (!same_extents(src, dst))
        return HL_ERR_MISMATCH;
    if (elem_size < 1)
        return HL_ERR_ELEM_SIZE;
    int64_t smin, dmin;
    hl_layout_bounds(src, &smin, NULL);
    hl_layout_bounds(dst, &dmin, NULL);
    if (smin < 0 || dmin < 0)
        return HL_ERR_RANGE;
    if (!hl_layout_is_injective(dst))
        return HL_ERR_UNSUPPORTED; /* two cells would land on one slot */
    if (hl_layout_span(src) > INT64_MAX / elem_size || hl_layout_span(dst) > INT64_MAX / elem_size)
        return HL_ERR_BYTES_OVERFLOW;
    return HL_OK;
}

static hl_status plan_finish(hl_plan *p)
{
    p->in_span = hl_layout_span(&p->steps[0].src);
    p->out_span = hl_layout_span(&p->steps[p->nsteps - 1].dst);
    p->bijective = true;
    for (int j = 0; j < p->nsteps; j++)
        p->bijective = p->bijective && hl_layout_is_bijection(&p->steps[j].src) &&
                       hl_layout_is_bijection(&p->steps[j].dst);
    if (p->nsteps > 1 || p->reference)
        return HL_OK;
    /* without it (unsupported, or no memory for it) in place walks cycles of cells */
    (void)hl_inplace_create(&p->inplace, &p->steps[0].src, &p->steps[0].dst, p->elem_size);
    hl_box *boxes;
    hl_status st = hl_lower(&p->steps[0].src, &p->steps[0].dst, HL_PLAN_MAX_BOXES, &boxes,
                            &p->nboxes);
    if (st != HL_OK)
        return st == HL_ERR_UNSUPPORTED ? HL_OK : st;
    st = hl_copy_create(&p->copy, boxes, p->nboxes, p->elem_size);
    free(boxes);
    return st;
}

hl_status hl_plan_create(hl_plan **plan, const hl_layout *src, const hl_layout *dst,
                         int64_t elem_size, const hl_plan_options *opt)
{
    if (!plan || !src || !dst)
        return HL_ERR_NULL;
    *plan = NULL;
    int threads;
    bool reference;
    hl_status st = check_options(opt, &threads, &reference);
    if (st == HL_OK)
        st = check_step(src, dst, elem_size);
    if (st != HL_OK)
        return st;
    hl_plan *p;
    if ((st = plan_alloc(&p, 1)) != HL_OK)
        return st;
    p->steps[0] = (plan_step){*src, *dst};
    p->elem_size = elem_size;
    p->threads = threads;
    p->reference = reference;
    /* the output read as a standard array of the logical extents */
    hl_shape_init(&p->out_shape, dst->rank, dst->extent, HL_DTYPE_BYTES, elem_size);
    if ((st = plan_finish(p)) != HL_OK) {
        hl_plan_destroy(p);
        return st;
    }
    *plan = p;
    return HL_OK;
}

/* A plan on a standard array of `shape`: src or dst is the standard layout
 * and the other one `other`; out_extent is the output's standard shape. */
static hl_status plan_on_shape(hl_plan **plan, const hl_shape *shape, const hl_layout *other,
                               bool other_is_dst, const int64_t *out_extent,
                               const hl_plan_options *opt)
{
    hl_layout std;
    hl_status st = hl_layout_standard(&std, shape->rank, shape->extent);
    if (st != HL_OK)
        return st;
    st = other_is_dst ? hl_plan_create(plan, &std, other, shape->elem_size, opt)
                      : hl_plan_create(plan, other, &std, shape->elem_size, opt);
    if (st != HL_OK)
        return st;
    hl_plan *p = *plan;
    p->out_shape = *shape;
    for (int i = 0; i < shape->rank; i++)
        p->out_shape.extent[i] = out_extent ? out_extent[i] : shape->extent[i];
    return HL_OK;
}

/* The standard layout of shape with modifier `mod` applied. */
typedef hl_status (*build_fn)(hl_layout *lay, const hl_shape *shape, const void *arg);

static hl_status build_and_plan(hl_plan **plan, const hl_shape *shape, build_fn build,
                                const void *arg, bool forward, const hl_plan_options *opt)
{
    if (!plan || !shape)
        return HL_ERR_NULL;
    *plan = NULL;
    hl_layout lay;
    hl_status st = build(&lay, shape, arg);
    if (st != HL_OK)
        return st;
    return plan_on_shape(plan, shape, &lay, forward, NULL, opt);
}

static hl_status build_flip(hl_layout *lay, const hl_shape *shape, const void *arg)
{
    hl_status st = hl_layout_standard(lay, shape->rank, shape->extent);
    return st != HL_OK ? st : hl_layout_flip(lay, lay, *(const uint64_t *)arg);
}

static hl_status build_shift(hl_layout *lay, const hl_shape *shape, const void *arg)
{
    if (!arg)
        return HL_ERR_NULL;
    hl_status st = hl_layout_standard(lay, shape->rank, shape->extent);
    return st != HL_OK ? st : hl_layout_shift(lay, lay, arg);
}

typedef struct {
    int dim;
    int64_t step;
} crinkle_arg;

static hl_status build_crinkle(hl_layout *lay, const hl_shape *shape, const void *arg)
{
    const crinkle_arg *c = arg;
    hl_status st = hl_layout_standard(lay, shape->rank, shape->extent);
    if (c->dim != -1)
        return st != HL_OK ? st : hl_layout_crinkle(lay, lay, c->dim, c->step);
    for (int i = 0; i < shape->rank && st == HL_OK; i++)
        st = hl_layout_crinkle(lay, lay, i, c->step);
    return st;
}

static hl_status build_tiled(hl_layout *lay, const hl_shape *shape, const void *arg)
{
    return hl_layout_tiled(lay, shape->rank, shape->extent, arg);
}

static hl_status build_morton(hl_layout *lay, const hl_shape *shape, const void *arg)
{
    (void)arg;
    return hl_layout_morton(lay, shape->rank, shape->extent);
}

hl_status hl_plan_flip(hl_plan **plan, const hl_shape *shape, uint64_t dims,
                       const hl_plan_options *opt)
{
    return build_and_plan(plan, shape, build_flip, &dims, true, opt);
}

hl_status hl_plan_shift(hl_plan **plan, const hl_shape *shape, const int64_t *shift,
                        const hl_plan_options *opt)
{
    return build_and_plan(plan, shape, build_shift, shift, true, opt);
}

hl_status hl_plan_crinkle(hl_plan **plan, const hl_shape *shape, int dim, int64_t step,
                          const hl_plan_options *opt)
{
    crinkle_arg c = {dim, step};
    return build_and_plan(plan, shape, build_crinkle, &c, true, opt);
}

hl_status hl_plan_uncrinkle(hl_plan **plan, const hl_shape *shape, int dim, int64_t step,
                            const hl_plan_options *opt)
{
    crinkle_arg c = {dim, step};
    return build_and_plan(plan, shape, build_crinkle, &c, false, opt);
}

hl_status hl_plan_tile(hl_plan **plan, const hl_shape *shape, const int64_t *block,
                       const hl_plan_options *opt)
{
    return build_and_plan(plan, shape, build_tiled, block, true, opt);
}

hl_status hl_plan_untile(hl_plan **plan, const hl_shape *shape, const int64_t *block,
                         const hl_plan_options *opt)
{
    return build_and_plan(plan, shape, build_tiled, block, false, opt);
}

hl_status hl_plan_morton(hl_plan **plan, const hl_shape *shape, const hl_plan_options *opt)
{
    return build_and_plan(plan, shape, build_morton, NULL, true, opt);
}

hl_status hl_plan_unmorton(hl_plan **plan, const hl_shape *shape, const hl_plan_options *opt)
{
    return build_and_plan(plan, shape, build_morton, NULL, false, opt);
}

hl_status hl_plan_permute(hl_plan **plan, const hl_shape *shape, const int *perm,
                          const hl_plan_options *opt)
{
    if (!plan || !shape || !perm)
        return HL_ERR_NULL;
    *plan = NULL;
    /* the output is a standard array of extents E_j = L_{perm[j]}; cell x
     * sits there at y with y_j = x_{perm[j]} */
    int64_t out_extent[HL_MAX_RANK];
    uint64_t seen = 0;
    for (int j = 0; j < shape->rank; j++) {
        if (perm[j] < 0 || perm[j] >= shape->rank || ((seen >> perm[j]) & 1))
            return HL_ERR_ARG;
        seen |= (uint64_t)1 << perm[j];
        out_extent[j] = shape->extent[perm[j]];
    }
    hl_layout out_std, dst;
    hl_status st = hl_layout_standard(&out_std, shape->rank, out_extent);
    if (st == HL_OK)
        st = hl_layout_permute(&dst, &out_std, perm);
    if (st != HL_OK)
        return st;
    return plan_on_shape(plan, shape, &dst, true, out_extent, opt);
}

hl_status hl_plan_compose(hl_plan **plan, const hl_plan *const *steps, int count,
                          const hl_plan_options *opt)
{
    if (!plan || !steps)
        return HL_ERR_NULL;
    *plan = NULL;
    if (count < 1)
        return HL_ERR_ARG;
    int threads, total = 0;
    bool reference;
    hl_status st = check_options(opt, &threads, &reference);
    if (st != HL_OK)
        return st;
    for (int j = 0; j < count; j++) {
        if (!steps[j])
            return HL_ERR_NULL;
        if (steps[j]->elem_size != steps[0]->elem_size)
            return HL_ERR_MISMATCH;
        if (j > 0 && steps[j]->in_span != steps[j - 1]->out_span)
            return HL_ERR_MISMATCH;
        if (steps[j]->nsteps == 0)
            return HL_ERR_UNSUPPORTED; /* made from boxes: no layouts to chain */
        total += steps[j]->nsteps;
    }
    /* walking back through a step needs its dst decomposable */
    for (int j = 0; j < count; j++)
        for (int t = 0; t < steps[j]->nsteps; t++)
            if (!hl_layout_is_injective(&steps[j]->steps[t].dst))
                return HL_ERR_UNSUPPORTED;
    hl_plan *p;
    if ((st = plan_alloc(&p, total)) != HL_OK)
        return st;
    /* fold each step into the previous one where the layouts allow, so that
     * chains of flips, shifts, crinkles and permutes become one step */
    int at = 0;
    for (int j = 0; j < count; j++)
        for (int t = 0; t < steps[j]->nsteps; t++) {
            const plan_step *next = &steps[j]->steps[t];
            hl_layout folded;
            if (at > 0 && !reference &&
                hl_layout_through(&folded, &p->steps[at - 1].src, &p->steps[at - 1].dst,
                                  &next->src) == HL_OK) {
                p->steps[at - 1].src = folded;
                p->steps[at - 1].dst = next->dst;
            } else {
                p->steps[at++] = *next;
            }
        }
    p->nsteps = at;
    p->elem_size = steps[0]->elem_size;
    p->threads = threads;
    p->reference = reference;
    p->out_shape = steps[count - 1]->out_shape;
    if ((st = plan_finish(p)) != HL_OK) {
        hl_plan_destroy(p);
        return st;
    }
    *plan = p;
    return HL_OK;
}

hl_status hl_plan_from_boxes(hl_plan **plan, const hl_box *boxes, int64_t nboxes,
                             int64_t elem_size, int64_t in_span, int64_t out_span,
                             const hl_plan_options *opt)
{
    if (!plan || (!boxes && nboxes > 0))
        return HL_ERR_NULL;
    *plan = NULL;
    int threads;
    bool reference;
    hl_status st = check_options(opt, &threads, &reference);
    if (st != HL_OK)
        return st;
    if (elem_size < 1)
        return HL_ERR_ELEM_SIZE;
    if (nboxes < 0 || in_span < 0 || out_span < 0)
        return HL_ERR_ARG;
    if (in_span > INT64_MAX / elem_size || out_span > INT64_MAX / elem_size)
        return HL_ERR_BYTES_OVERFLOW;
    for (int64_t b = 0; b < nboxes; b++) {
        const hl_box *x = &boxes[b];
        if (x->ndigits < 0 || x->ndigits > HL_BOX_MAX_DIGITS)
            return HL_ERR_ARG;
        int64_t slo = x->src_base, shi = x->src_base, dlo = x->dst_base, dhi = x->dst_base;
        for (int t = 0; t < x->ndigits; t++) {
            if (x->extent[t] < 1)
                return HL_ERR_EXTENT;
            const int64_t s = (x->extent[t] - 1) * x->src_stride[t];
            const int64_t d = (x->extent[t] - 1) * x->dst_stride[t];
            *(s < 0 ? &slo : &shi) += s;
            *(d < 0 ? &dlo : &dhi) += d;
        }
        if (slo < 0 || dlo < 0 || shi >= in_span || dhi >= out_span)
            return HL_ERR_RANGE;
    }
    hl_plan *p = calloc(1, sizeof *p);
    if (!p)
        return HL_ERR_NOMEM;
    p->elem_size = elem_size;
    p->threads = threads;
    p->in_span = in_span;
    p->out_span = out_span;
    p->nboxes = nboxes;
    hl_shape_init(&p->out_shape, 1, &out_span, HL_DTYPE_BYTES, elem_size);
    if ((st = hl_copy_create(&p->copy, boxes, nboxes, elem_size)) != HL_OK) {
        hl_plan_destroy(p);
        return st;
    }
    *plan = p;
    return HL_OK;
}

hl_status hl_plan_inverse(hl_plan **inverse, const hl_plan *q)
{
    if (!inverse || !q)
        return HL_ERR_NULL;
    *inverse = NULL;
    if (q->nsteps == 0)
        return HL_ERR_UNSUPPORTED;
    for (int t = 0; t < q->nsteps; t++)
        if (!hl_layout_is_injective(&q->steps[t].src))
            return HL_ERR_UNSUPPORTED;
    hl_plan *p;
    hl_status st = plan_alloc(&p, q->nsteps);
    if (st != HL_OK)
        return st;
    for (int t = 0; t < q->nsteps; t++) {
        const plan_step *s = &q->steps[q->nsteps - 1 - t];
        p->steps[t] = (plan_step){s->dst, s->src};
    }
    p->elem_size = q->elem_size;
    p->threads = q->threads;
    p->reference = q->reference;
    /* the inverse's output is the original input, a standard array of the
     * first step's extents */
    hl_shape_init(&p->out_shape, q->steps[0].src.rank, q->steps[0].src.extent, HL_DTYPE_BYTES,
                  q->elem_size);
    if ((st = plan_finish(p)) != HL_OK) {
        hl_plan_destroy(p);
        return st;
    }
    *inverse = p;
    return HL_OK;
}

void hl_plan_destroy(hl_plan *p)
{
    if (!p)
        return;
    free(p->steps);
    hl_copy_destroy(p->copy);
    hl_inplace_destroy(p->inplace);
    free(p);
}

int64_t hl_plan_in_span(const hl_plan *p) { return p->in_span; }
int64_t hl_plan_out_span(const hl_plan *p) { return p->out_span; }
int64_t hl_plan_elem_size(const hl_plan *p) { return p->elem_size; }
const hl_shape *hl_plan_out_shape(const hl_plan *p) { return &p->out_shape; }
int64_t hl_plan_boxes(const hl_plan *p) { return p->copy ? p->nboxes : 0; }

/* ---- execution ----------------------------------------------------------- */

/* Source offset of the cell y of the last step, walking back through the
 * chain; -1 when it falls on a padding slot of an intermediate result. */
static int64_t source_of(const hl_plan *p, const int64_t *y)
{
    int64_t off, x[HL_MAX_RANK];
    const plan_step *last = &p->steps[p->nsteps - 1];
    hl_layout_offset(&last->src, y, &off);
    for (int j = p->nsteps - 2; j >= 0; j--) {
        if (hl_layout_coord(&p->steps[j].dst, off, x) != HL_OK)
            return -1;
        hl_layout_offset(&p->steps[j].src, x, &off);
    }
    return off;
}

/* Output offset of the input cell at offset k, walking forward; -1 for a
 * padding slot. */
static int64_t target_of(const hl_plan *p, int64_t k)
{
    int64_t x[HL_MAX_RANK];
    for (int j = 0; j < p->nsteps; j++) {
        if (hl_layout_coord(&p->steps[j].src, k, x) != HL_OK)
            return -1;
        hl_layout_offset(&p->steps[j].dst, x, &k);
    }
    return k;
}

static void execute_out_of_place(const hl_plan *p, const char *in, char *out)
{
    const hl_layout *last = &p->steps[p->nsteps - 1].dst;
    const int64_t n = hl_layout_count(last), es = p->elem_size, chunk = 1024;
    const int rank = last->rank;
    const int64_t nchunks = (n + chunk - 1) / chunk;
    const int threads = nchunks < 2 ? 1 : p->threads > 0 ? p->threads : omp_get_max_threads();
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t c = 0; c < nchunks; c++) {
        int64_t y[HL_MAX_RANK], k = c * chunk, end = k + chunk < n ? k + chunk : n;
        int64_t rest = k;
        for (int i = 0; i < rank; i++) {
            y[i] = rest % last->extent[i];
            rest /= last->extent[i];
        }
        for (; k < end; k++) {
            int64_t to, from = source_of(p, y);
            hl_layout_offset(last, y, &to);
            if (from >= 0)
                hl_elem_copy(out + to * es, in + from * es, es);
            else
                memset(out + to * es, 0, (size_t)es);
            for (int i = 0; i < rank && ++y[i] == last->extent[i]; i++)
                y[i] = 0;
        }
    }
}

/* In place by following the permutation's cycles, with one visited bit per
 * element. */
static hl_status execute_in_place(const hl_plan *p, char *a)
{
    const int64_t n = p->in_span, es = p->elem_size;
    uint64_t *seen = calloc((size_t)(n / 64 + 1), sizeof *seen);
    char *carry = malloc((size_t)es * 2);
    if (!seen || !carry) {
        free(seen);
        free(carry);
        return HL_ERR_NOMEM;
    }
    char *hold = carry, *spare = carry + es;
    for (int64_t s = 0; s < n; s++) {
        if ((seen[s / 64] >> (s % 64)) & 1)
            continue;
        hl_elem_copy(hold, a + s * es, es);
        int64_t k = s;
        do {
            int64_t next = target_of(p, k);
            seen[next / 64] |= (uint64_t)1 << (next % 64);
            hl_elem_copy(spare, a + next * es, es);
            hl_elem_copy(a + next * es, hold, es);
            char *t = hold;
            hold = spare;
            spare = t;
            k = next;
        } while (k != s);
    }
    free(seen);
    free(carry);
    return HL_OK;
}

hl_status hl_execute(const hl_plan *p, const void *in, void *out)
{
    if (!p || !in || !out)
        return HL_ERR_NULL;
    if (in == out) {
        if (!p->bijective || p->in_span != p->out_span)
            return HL_ERR_IN_PLACE;
        if (p->inplace)
            return hl_inplace_run(p->inplace, out, p->threads > 0 ? p->threads : omp_get_max_threads());
        return execute_in_place(p, out);
    }
    if (p->copy)
        return hl_copy_run(p->copy, in, out,
                            p->threads > 0 ? p->threads : omp_get_max_threads());
    execute_out_of_place(p, in, out);
    return HL_OK;
}
