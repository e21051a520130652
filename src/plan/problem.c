/* hyperlayout — problems (hyperlayout/problem.h): chains of layout pairs,
 * checked, chained, inverted and put in canonical form; no planning. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "executor.h" /* hl_appendf */
#include "layout/algebra.h" /* hl_layout_through */
#include "problem_internal.h"

/* ---- canonical form and hash ---------------------------------------------- */

/* FNV-1a */
static uint64_t mix(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * 0x100000001b3u;
    return h;
}

/* The fields that say what a layout is, never the unused entries of its
 * arrays: equal on every process. */
static uint64_t mix_layout(uint64_t h, const hl_layout *l)
{
    h = mix(h, &l->rank, sizeof l->rank);
    h = mix(h, l->extent, sizeof *l->extent * (size_t)l->rank);
    for (int i = 0; i < l->rank; i++) {
        h = mix(h, &l->nmaps[i], sizeof l->nmaps[i]);
        for (int m = 0; m < l->nmaps[i]; m++) {
            const int64_t v[3] = {l->map[i][m].op, l->map[i][m].arg, l->map[i][m].span};
            h = mix(h, v, sizeof v);
        }
    }
    for (int t = 0; t < l->ndigits; t++) {
        const int64_t v[3] = {l->digit[t].dim, l->digit[t].radix, l->digit[t].stride};
        h = mix(h, v, sizeof v);
    }
    return mix(h, &l->base, sizeof l->base);
}

/* A step read from the standard array: (src, dst) and (std, dst o src^-1)
 * move every cell alike, where the algebra can write the second. */
static void from_standard(hl_ir_step *s)
{
    hl_layout std, m;
    if (hl_layout_standard(&std, s->src.rank, s->src.extent) == HL_OK &&
        hl_layout_through(&m, &s->dst, &s->src, &std) == HL_OK) {
        s->src = std;
        s->dst = m;
    }
}

/* Folds each step into the one before where the algebra allows (whether
 * the fold still lowers to boxes is the planner's question, not the
 * problem's), reads each step from the standard array where it can, and
 * normalises every layout. */
static hl_status canonical(hl_problem *pr)
{
    pr->canon = malloc(sizeof *pr->canon * (size_t)pr->nsteps);
    if (!pr->canon)
        return HL_ERR_NOMEM;
    int n = 0;
    for (int t = 0; t < pr->nsteps; t++) {
        const hl_ir_step *s = &pr->steps[t];
        hl_layout folded;
        hl_ir_step *last = n > 0 ? &pr->canon[n - 1] : NULL;
        if (last && hl_layout_through(&folded, &last->src, &last->dst, &s->src) == HL_OK) {
            last->src = folded;
            last->dst = s->dst;
        } else {
            pr->canon[n++] = *s;
        }
    }
    for (int t = 0; t < n; t++) {
        hl_ir_step *s = &pr->canon[t];
        from_standard(s);
        hl_layout x;
        if (hl_layout_normalize(&x, &s->src) == HL_OK)
            s->src = x;
        if (hl_layout_normalize(&x, &s->dst) == HL_OK)
            s->dst = x;
    }
    pr->ncanon = n;
    uint64_t h = 0xcbf29ce484222325u;
    h = mix(h, &pr->elem_size, sizeof pr->elem_size);
    h = mix(h, &pr->ncanon, sizeof pr->ncanon);
    for (int t = 0; t < pr->ncanon; t++) {
        h = mix_layout(h, &pr->canon[t].src);
        h = mix_layout(h, &pr->canon[t].dst);
    }
    const hl_shape *o = &pr->out_shape;
    h = mix(h, &o->rank, sizeof o->rank);
    pr->hash = mix(h, o->extent, sizeof *o->extent * (size_t)o->rank);
    return HL_OK;
}

/* A problem of n steps, filled by the caller before finish(). */
static hl_status problem_alloc(hl_problem **pr, int n, int64_t elem_size)
{
    hl_problem *p = calloc(1, sizeof *p);
    if (!p)
        return HL_ERR_NOMEM;
    p->steps = malloc(sizeof *p->steps * (size_t)n);
    if (!p->steps) {
        free(p);
        return HL_ERR_NOMEM;
    }
    p->nsteps = n;
    p->elem_size = elem_size;
    *pr = p;
    return HL_OK;
}

static hl_status finish(hl_problem **pr, hl_problem *p)
{
    const hl_status st = canonical(p);
    if (st != HL_OK) {
        hl_problem_destroy(p);
        return st;
    }
    *pr = p;
    return HL_OK;
}

void hl_problem_destroy(hl_problem *pr)
{
    if (!pr)
        return;
    free(pr->steps);
    free(pr->canon);
    free(pr);
}

/* ---- construction ------------------------------------------------------- */

static bool same_extents(const hl_layout *a, const hl_layout *b)
{
    if (a->rank != b->rank)
        return false;
    for (int i = 0; i < a->rank; i++)
        if (a->extent[i] != b->extent[i])
            return false;
    return true;
}

/* One step and the byte sizes of its buffers. */
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

/* out[dst(x)] = in[src(x)], the output read as a standard array of
 * out_extent (NULL: the logical extents). */
static hl_status one_step(hl_problem **pr, const hl_layout *src, const hl_layout *dst,
                          int64_t elem_size, const int64_t *out_extent)
{
    if (!pr || !src || !dst)
        return HL_ERR_NULL;
    *pr = NULL;
    hl_status st = check_step(src, dst, elem_size);
    hl_problem *p;
    if (st != HL_OK || (st = problem_alloc(&p, 1, elem_size)) != HL_OK)
        return st;
    p->steps[0] = (hl_ir_step){*src, *dst};
    hl_shape_init(&p->out_shape, dst->rank, out_extent ? out_extent : dst->extent, HL_DTYPE_BYTES,
                  elem_size);
    return finish(pr, p);
}

hl_status hl_problem_create(hl_problem **pr, const hl_layout *src, const hl_layout *dst,
                            int64_t elem_size)
{
    return one_step(pr, src, dst, elem_size, NULL);
}

/* A problem on a standard array of `shape`: from it to `other` (forward)
 * or back; the output keeps the shape's element type. */
static hl_status on_shape(hl_problem **pr, const hl_shape *shape, const hl_layout *other,
                          bool forward, const int64_t *out_extent)
{
    hl_layout std;
    hl_status st = hl_layout_standard(&std, shape->rank, shape->extent);
    if (st == HL_OK)
        st = forward ? one_step(pr, &std, other, shape->elem_size, out_extent)
                     : one_step(pr, other, &std, shape->elem_size, out_extent);
    if (st != HL_OK)
        return st;
    hl_shape *o = &(*pr)->out_shape;
    const hl_shape keep = *o;
    *o = *shape;
    for (int i = 0; i < shape->rank; i++)
        o->extent[i] = keep.extent[i];
    return HL_OK;
}

/* The layout one of the section 8 transforms puts the standard array in. */
typedef hl_status (*build_fn)(hl_layout *lay, const hl_shape *shape, const void *arg);

static hl_status build(hl_problem **pr, const hl_shape *shape, build_fn fn, const void *arg,
                       bool forward)
{
    if (!pr || !shape)
        return HL_ERR_NULL;
    *pr = NULL;
    hl_layout lay;
    hl_status st = fn(&lay, shape, arg);
    return st != HL_OK ? st : on_shape(pr, shape, &lay, forward, NULL);
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
    return arg ? hl_layout_tiled(lay, shape->rank, shape->extent, arg) : HL_ERR_NULL;
}

static hl_status build_morton(hl_layout *lay, const hl_shape *shape, const void *arg)
{
    (void)arg;
    return hl_layout_morton(lay, shape->rank, shape->extent);
}

hl_status hl_problem_flip(hl_problem **pr, const hl_shape *shape, uint64_t dims)
{
    return build(pr, shape, build_flip, &dims, true);
}

hl_status hl_problem_shift(hl_problem **pr, const hl_shape *shape, const int64_t *shift)
{
    return build(pr, shape, build_shift, shift, true);
}

hl_status hl_problem_crinkle(hl_problem **pr, const hl_shape *shape, int dim, int64_t step)
{
    const crinkle_arg c = {dim, step};
    return build(pr, shape, build_crinkle, &c, true);
}

hl_status hl_problem_uncrinkle(hl_problem **pr, const hl_shape *shape, int dim, int64_t step)
{
    const crinkle_arg c = {dim, step};
    return build(pr, shape, build_crinkle, &c, false);
}

hl_status hl_problem_tile(hl_problem **pr, const hl_shape *shape, const int64_t *tile)
{
    return build(pr, shape, build_tiled, tile, true);
}

hl_status hl_problem_untile(hl_problem **pr, const hl_shape *shape, const int64_t *tile)
{
    return build(pr, shape, build_tiled, tile, false);
}

hl_status hl_problem_morton(hl_problem **pr, const hl_shape *shape)
{
    return build(pr, shape, build_morton, NULL, true);
}

hl_status hl_problem_unmorton(hl_problem **pr, const hl_shape *shape)
{
    return build(pr, shape, build_morton, NULL, false);
}

hl_status hl_problem_permute(hl_problem **pr, const hl_shape *shape, const int *perm)
{
    if (!pr || !shape || !perm)
        return HL_ERR_NULL;
    *pr = NULL;
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
    return st != HL_OK ? st : on_shape(pr, shape, &dst, true, out_extent);
}

/* ---- chains and inverses ----------------------------------------------- */

hl_status hl_problem_chain(hl_problem **pr, const hl_problem *const *parts, int count)
{
    if (!pr || !parts)
        return HL_ERR_NULL;
    *pr = NULL;
    if (count < 1)
        return HL_ERR_ARG;
    int total = 0;
    for (int j = 0; j < count; j++) {
        if (!parts[j])
            return HL_ERR_NULL;
        if (parts[j]->elem_size != parts[0]->elem_size)
            return HL_ERR_MISMATCH;
        if (j > 0 && hl_problem_in_span(parts[j]) != hl_problem_out_span(parts[j - 1]))
            return HL_ERR_MISMATCH;
        if (total > INT32_MAX / 2 - parts[j]->nsteps)
            return HL_ERR_ARG;
        total += parts[j]->nsteps;
    }
    /* walking back through a step needs its dst decomposable */
    for (int j = 0; j < count; j++)
        for (int t = 0; t < parts[j]->nsteps; t++)
            if (!hl_layout_is_injective(&parts[j]->steps[t].dst))
                return HL_ERR_UNSUPPORTED;
    hl_problem *p;
    const hl_status st = problem_alloc(&p, total, parts[0]->elem_size);
    if (st != HL_OK)
        return st;
    int at = 0;
    for (int j = 0; j < count; j++)
        for (int t = 0; t < parts[j]->nsteps; t++)
            p->steps[at++] = parts[j]->steps[t];
    p->out_shape = parts[count - 1]->out_shape;
    return finish(pr, p);
}

hl_status hl_problem_inverse(hl_problem **inverse, const hl_problem *q)
{
    if (!inverse || !q)
        return HL_ERR_NULL;
    *inverse = NULL;
    for (int t = 0; t < q->nsteps; t++)
        if (!hl_layout_is_injective(&q->steps[t].src))
            return HL_ERR_UNSUPPORTED;
    hl_problem *p;
    const hl_status st = problem_alloc(&p, q->nsteps, q->elem_size);
    if (st != HL_OK)
        return st;
    for (int t = 0; t < q->nsteps; t++) {
        const hl_ir_step *s = &q->steps[q->nsteps - 1 - t];
        p->steps[t] = (hl_ir_step){s->dst, s->src};
    }
    /* the inverse's output is the original input, a standard array of the
     * first step's extents */
    hl_shape_init(&p->out_shape, q->steps[0].src.rank, q->steps[0].src.extent, HL_DTYPE_BYTES,
                  q->elem_size);
    return finish(inverse, p);
}

hl_status hl_problem_copy(hl_problem **copy, const hl_problem *pr)
{
    if (!copy || !pr)
        return HL_ERR_NULL;
    return hl_problem_chain(copy, &pr, 1);
}

/* ---- queries ------------------------------------------------------------- */

bool hl_problem_equal(const hl_problem *a, const hl_problem *b)
{
    if (!a || !b)
        return a == b;
    if (a->hash != b->hash || a->elem_size != b->elem_size || a->ncanon != b->ncanon ||
        a->out_shape.rank != b->out_shape.rank)
        return false;
    for (int i = 0; i < a->out_shape.rank; i++)
        if (a->out_shape.extent[i] != b->out_shape.extent[i])
            return false;
    for (int t = 0; t < a->ncanon; t++)
        if (!hl_layout_equal(&a->canon[t].src, &b->canon[t].src) ||
            !hl_layout_equal(&a->canon[t].dst, &b->canon[t].dst))
            return false;
    return true;
}

uint64_t hl_problem_hash(const hl_problem *pr) { return pr ? pr->hash : 0; }
int64_t hl_problem_elem_size(const hl_problem *pr) { return pr ? pr->elem_size : 0; }
int64_t hl_problem_in_span(const hl_problem *pr)
{
    return pr ? hl_layout_span(&pr->steps[0].src) : 0;
}

int64_t hl_problem_out_span(const hl_problem *pr)
{
    return pr ? hl_layout_span(&pr->steps[pr->nsteps - 1].dst) : 0;
}

const hl_shape *hl_problem_out_shape(const hl_problem *pr) { return pr ? &pr->out_shape : NULL; }
int hl_problem_steps(const hl_problem *pr) { return pr ? pr->ncanon : 0; }

/* hl_layout_format at buf + used (the hl_appendf convention). */
static size_t append_layout(const hl_layout *lay, char *buf, size_t size, size_t used)
{
    const int64_t n = hl_layout_format(lay, buf && used < size ? buf + used : NULL,
                                       used < size ? size - used : 0);
    return n > 0 ? (size_t)n : 0;
}

size_t hl_problem_append_text(const hl_problem *pr, char *buf, size_t size, size_t used)
{
    const size_t start = used;
    used += hl_appendf(buf, size, used,
                       "problem %016" PRIx64 ": %d step%s (canonical), elements of %" PRId64
                       " bytes\n",
                       pr->hash, pr->ncanon, pr->ncanon == 1 ? "" : "s", pr->elem_size);
    for (int t = 0; t < pr->ncanon; t++) {
        used += hl_appendf(buf, size, used, "  step %d: src ", t);
        used += append_layout(&pr->canon[t].src, buf, size, used);
        used += hl_appendf(buf, size, used, "\n          dst ");
        used += append_layout(&pr->canon[t].dst, buf, size, used);
        used += hl_appendf(buf, size, used, "\n");
    }
    return used - start;
}

hl_status hl_problem_describe(const hl_problem *pr, char *buf, size_t size, size_t *length)
{
    if (!pr || (!buf && size > 0))
        return HL_ERR_NULL;
    if (buf && size > 0)
        buf[0] = '\0';
    const size_t used = hl_problem_append_text(pr, buf, size, 0);
    if (length)
        *length = used;
    return used < size ? HL_OK : HL_ERR_BUFFER;
}
