/* hyperlayout — plans of ranges of a plan's output: its boxes cut to a
 * range, so that a big output can be produced slab by slab through a small
 * buffer (the CLI writes files this way, keeping its memory at the input
 * plus one slab); and the plan kind of a plan planned with its output's
 * ranges (hl_plan_options.range), a child plan each. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "plan_internal.h"
#include "core/intmath.h"

typedef struct {
    hl_box *boxes;
    int64_t n, cap;
    int64_t lo, hi; /* the output range */
} cut_list;

static hl_status keep(cut_list *c, const hl_box *b)
{
    if (c->n == HL_PLAN_MAX_BOXES)
        return HL_ERR_UNSUPPORTED;
    if (c->n == c->cap) {
        int64_t cap = c->cap ? 2 * c->cap : 16;
        hl_box *grown = realloc(c->boxes, (size_t)cap * sizeof *grown);
        if (!grown)
            return HL_ERR_NOMEM;
        c->boxes = grown;
        c->cap = cap;
    }
    c->boxes[c->n] = *b;
    c->boxes[c->n].dst_base -= c->lo;
    c->n++;
    return HL_OK;
}


/* The box without digit t, that digit fixed at k. */
static void fix_digit(hl_box *out, const hl_box *b, int t, int64_t k)
{
    *out = *b;
    out->src_base += k * b->src_stride[t];
    out->dst_base += k * b->dst_stride[t];
    for (int u = t + 1; u < b->ndigits; u++) {
        out->extent[u - 1] = b->extent[u];
        out->src_stride[u - 1] = b->src_stride[u];
        out->dst_stride[u - 1] = b->dst_stride[u];
    }
    out->ndigits--;
}

/* Keeps the cells of b (in normal form, ir.h: its last digit has the
 * largest output stride, every output stride is positive) written inside
 * [lo, hi): the whole box when it lies inside, otherwise it is cut along
 * its last digit into the run of whole slices inside, kept as one box, and
 * the slices that straddle an end, cut further.  Layouts' boxes are
 * mixed-radix on the output side, so at most two slices straddle per
 * level. */
static hl_status cut(cut_list *c, const hl_box *b)
{
    const int64_t dmin = b->dst_base;
    int64_t dmax = b->dst_base;
    for (int u = 0; u < b->ndigits; u++)
        dmax += (b->extent[u] - 1) * b->dst_stride[u];
    const int t = b->ndigits - 1;
    if (dmax < c->lo || dmin >= c->hi)
        return HL_OK;
    if ((dmin >= c->lo && dmax < c->hi) || t < 0)
        return keep(c, b);
    if (b->dst_stride[t] <= 0)
        return HL_ERR_UNSUPPORTED; /* cells written twice: not a plan's box */

    /* Digit t ascending in the output, k's slice at base + k*s + [rmin, rmax]. */
    const hl_box x = *b;
    const int64_t e = x.extent[t];
    const int64_t s = x.dst_stride[t];
    const int64_t rmin = dmin - x.dst_base, rmax = dmax - x.dst_base - (e - 1) * s;
    int64_t in_lo = hl_ceil_div(c->lo - x.dst_base - rmin, s);
    int64_t in_hi = hl_floor_div(c->hi - 1 - x.dst_base - rmax, s);
    int64_t any_lo = hl_ceil_div(c->lo - x.dst_base - rmax, s);
    int64_t any_hi = hl_floor_div(c->hi - 1 - x.dst_base - rmin, s);
    in_lo = in_lo < 0 ? 0 : in_lo;
    in_hi = in_hi > e - 1 ? e - 1 : in_hi;
    any_lo = any_lo < 0 ? 0 : any_lo;
    any_hi = any_hi > e - 1 ? e - 1 : any_hi;
    hl_status st = HL_OK;
    if (in_lo <= in_hi) {
        hl_box whole = x;
        whole.src_base += in_lo * x.src_stride[t];
        whole.dst_base += in_lo * s;
        whole.extent[t] = in_hi - in_lo + 1;
        st = keep(c, &whole);
    } else {
        in_lo = any_hi + 1; /* no whole slice: every touched one straddles */
        in_hi = any_hi;
    }
    hl_box slice;
    for (int64_t k = any_lo; st == HL_OK && k <= any_hi; k++) {
        if (k == in_lo && in_lo <= in_hi)
            k = in_hi + 1;
        if (k > any_hi)
            break;
        fix_digit(&slice, &x, t, k);
        st = cut(c, &slice);
    }
    return st;
}

hl_status hl_plan_cut_boxes(const hl_plan *p, int64_t first, int64_t count, hl_box **boxes,
                            int64_t *n)
{
    cut_list c = {NULL, 0, 0, first, first + count};
    hl_box b;
    hl_status st = HL_OK;
    for (int64_t i = 0; st == HL_OK && i < p->ir.nboxes; i++) {
        hl_ir_box(&p->ir, i, &b);
        st = cut(&c, &b);
    }
    if (st != HL_OK) {
        free(c.boxes);
        return st;
    }
    *boxes = c.boxes;
    *n = c.n;
    return HL_OK;
}

/* ---- the plan kind of output ranges ---------------------------------------- */

/* Over the kind p had (a single or composed pass), which runs it in place,
 * in shares, or with an executor that runs the whole pass. */
typedef struct {
    const hl_plan_kind *inner;
    void *inner_data;
    int nranges;
    hl_plan **ranges;
} ranged;

static hl_status ranged_prepare(hl_plan *p, void *data, const hl_executor *e, int64_t j)
{
    const ranged *d = data;
    return d->inner->prepare(p, d->inner_data, e, j);
}

static hl_status ranged_run(const hl_plan *p, void *data, const hl_executor *e, const void *in,
                            void *out, const hl_exec_ctx *ctx)
{
    const ranged *d = data;
    if (!e->ranges || in == out) /* e's state of the whole does it */
        return d->inner->run(p, d->inner_data, e, in, out, ctx);
    hl_status st = HL_OK;
    const int64_t es = p->ir.elem_size;
    for (int r = 0; r < d->nranges && st == HL_OK; r++)
        st = hl_plan_run(d->ranges[r], e, in, (char *)out + r * p->opt.range * es, ctx);
    return st;
}

/* The inner kind's text, then how many ranges and the first's solvers as
 * an example of all. */
static size_t ranged_describe(const hl_plan *p, const void *data, int stage, int step, char *buf,
                              size_t size, size_t used)
{
    const ranged *d = data;
    const size_t start = used;
    used += d->inner->describe(p, d->inner_data, stage, step, buf, size, used);
    const hl_plan *first = d->ranges[0];
    used += hl_appendf(buf, size, used,
                       "  output in %d range%s of %" PRId64 " elements, each planned with the "
                       "plan; range 0 of %" PRId64 " box%s:\n",
                       d->nranges, d->nranges == 1 ? "" : "s", p->opt.range, first->ir.nboxes,
                       first->ir.nboxes == 1 ? "" : "es");
    used += hl_describe_executors(first, buf, size, used);
    return used - start;
}

static bool ranged_fast_in_place(const hl_plan *p, const void *data, const hl_executor *e)
{
    const ranged *d = data;
    return d->inner->fast_in_place(p, d->inner_data, e);
}

static int64_t ranged_scratch_bytes(const hl_plan *p, const void *data)
{
    const ranged *d = data;
    return d->inner->scratch_bytes ? d->inner->scratch_bytes(p, d->inner_data) : 0;
}

static void ranged_destroy(void *data)
{
    ranged *d = data;
    for (int r = 0; r < d->nranges; r++)
        hl_plan_destroy(d->ranges[r]);
    free(d->ranges);
    if (d->inner->destroy)
        d->inner->destroy(d->inner_data);
    free(d);
}

static const hl_plan_kind ranged_kind = {
    .name = "ranged",
    .by_parts = false,
    .whole = false,
    .prepare = ranged_prepare,
    .run = ranged_run,
    .describe = ranged_describe,
    .fast_in_place = ranged_fast_in_place,
    .scratch_bytes = ranged_scratch_bytes,
    .destroy = ranged_destroy,
};

hl_status hl_plan_make_ranges(hl_plan *p, const hl_planner *planner)
{
    const int64_t range = p->opt.range, n = p->ir.out_span;
    const int64_t k = n > 0 ? (n - 1) / range + 1 : 0;
    if (k > HL_PLAN_MAX_BOXES)
        return HL_ERR_ARG; /* ranges too small to be worth a plan each */
    if (k == 0)
        return HL_OK; /* no output: nothing to cut */
    ranged *d = calloc(1, sizeof *d);
    if (!d || !(d->ranges = calloc((size_t)(k > 0 ? k : 1), sizeof *d->ranges))) {
        free(d);
        return HL_ERR_NOMEM;
    }
    hl_plan_options o = p->opt;
    o.range = 0;
    hl_status st = HL_OK;
    for (int64_t r = 0; r < k && st == HL_OK; r++) {
        const int64_t first = r * range, count = first + range <= n ? range : n - first;
        hl_box *boxes = NULL;
        int64_t nboxes = 0;
        st = hl_plan_cut_boxes(p, first, count, &boxes, &nboxes);
        if (st == HL_OK)
            st = planner->boxes(&d->ranges[r], boxes, nboxes, p->ir.elem_size, p->ir.in_span,
                                count, &o);
        free(boxes);
        if (st == HL_OK)
            d->nranges = (int)r + 1;
    }
    d->inner = p->kind;
    d->inner_data = p->data;
    if (st != HL_OK) {
        d->inner = &hl_plan_single; /* p keeps its data */
        d->inner_data = NULL;
        ranged_destroy(d);
        return st;
    }
    p->kind = &ranged_kind;
    p->data = d;
    return HL_OK;
}

int hl_plan_ranges(const hl_plan *p)
{
    return p && p->kind == &ranged_kind ? ((const ranged *)p->data)->nranges : 0;
}

const hl_plan *hl_plan_range(const hl_plan *p, int i, int64_t *first, int64_t *count)
{
    if (!p || i < 0 || i >= hl_plan_ranges(p))
        return NULL;
    const hl_plan *q = ((const ranged *)p->data)->ranges[i];
    const int64_t at = (int64_t)i * p->opt.range;
    if (first)
        *first = at;
    if (count)
        *count = q->ir.out_span;
    return q;
}

/* Pages of one box's reads: its digits by increasing input stride, each
 * digit either widening the region read so far (its stride reaches no
 * further than the region, or than a page: the pages then touch) or
 * repeating it at places too far apart to share pages. */
static int64_t box_pages(const hl_box *b, int64_t elem, int64_t page)
{
    int order[HL_BOX_MAX_DIGITS], n = 0;
    for (int t = 0; t < b->ndigits; t++)
        if (b->extent[t] > 1)
            order[n++] = t;
    for (int i = 1; i < n; i++) /* insertion sort: a handful of digits */
        for (int j = i; j > 0 && llabs(b->src_stride[order[j]]) < llabs(b->src_stride[order[j - 1]]); j--) {
            int x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
    double region = (double)elem, regions = 1;
    for (int i = 0; i < n; i++) {
        const double step = (double)llabs(b->src_stride[order[i]]) * (double)elem;
        const double e = (double)b->extent[order[i]];
        if (step <= (region > (double)page ? region : (double)page))
            region += (e - 1) * step;
        else
            regions *= e;
    }
    const double pages = regions * ((region + (double)page - 1) / (double)page);
    return pages > 9e18 ? INT64_MAX : (int64_t)pages;
}

int64_t hl_plan_pages_read(const hl_plan *p, int64_t page_bytes)
{
    if (!p || page_bytes < 1 || !p->ir.lowered)
        return 0;
    const int64_t all = (p->ir.in_span * p->ir.elem_size + page_bytes - 1) / page_bytes;
    int64_t pages = 0;
    hl_box b;
    for (int64_t i = 0; i < p->ir.nboxes && pages < all; i++) {
        hl_ir_box(&p->ir, i, &b);
        const int64_t more = box_pages(&b, p->ir.elem_size, page_bytes);
        pages = more > all - pages ? all : pages + more;
    }
    return pages;
}
