/* hyperlayout — cached tiles (tensor.h): a tile and its halo copied into a
 * scratch buffer of its own format by plans made once.
 *
 * Along each dimension the scratch's positions are cut into runs: cells
 * inside the array, then the halo outside it on either side, which a policy
 * maps back into the array (clamp, periodic, reflect, symmetric: each a run
 * of source coordinates stepping by +1 or -1; clamp gives runs of one
 * cell), fills with a constant or skips.  The boxes of the fill are the
 * products of one run per dimension, each lowered to the copy engine's
 * boxes; so filling is a plan's work with no test per element, which is
 * what the seed found its cache loop spending most of its time on. */
#include <stdlib.h>
#include <string.h>

#include "hyperlayout/kindex.h"
#include "hyperlayout/plan.h"
#include "plan/ir.h"
#include "plan/lower.h"
#include "tensor_internal.h"

enum { RUN_COPY, RUN_CONST, RUN_SKIP };

typedef struct run {
    int kind;
    int64_t dst, len; /* scratch positions dst .. dst+len-1 */
    int64_t src, dir; /* RUN_COPY: root coordinates src, src+dir, ... */
} run;

typedef struct box_list {
    hl_box *b;
    int64_t n, cap;
} box_list;

struct hl_tile_cache {
    hl_tensor view; /* the scratch view, data NULL */
    const hl_tensor *tile;
    /* where the fill reads: the nearest cached view among the tile and its
     * ancestors (a cache of a cached tile reads the parent's scratch), or
     * the top-level tensor */
    const hl_tensor *source;
    int64_t span, nboxes;
    hl_plan *copy, *fill_const, *back;
    /* pieces the box engine could not lower, as plans of their own */
    hl_plan **extra;
    int nextra;
    unsigned char *constant;
};

static hl_status append_boxes(box_list *l, const hl_box *b, int64_t n)
{
    if (l->n + n > l->cap) {
        int64_t cap = l->cap ? l->cap : 16;
        while (cap < l->n + n)
            cap *= 2;
        hl_box *nb = realloc(l->b, sizeof *nb * (size_t)cap);
        if (!nb)
            return HL_ERR_NOMEM;
        l->b = nb;
        l->cap = cap;
    }
    memcpy(l->b + l->n, b, sizeof *b * (size_t)n);
    l->n += n;
    return HL_OK;
}

static hl_boundary boundary_of(hl_halo_policy p)
{
    switch (p) {
    case HL_HALO_CLAMP:
        return HL_BOUNDARY_CLAMP;
    case HL_HALO_REFLECT:
        return HL_BOUNDARY_REFLECT;
    case HL_HALO_SYMMETRIC:
        return HL_BOUNDARY_SYMMETRIC;
    default:
        return HL_BOUNDARY_PERIODIC;
    }
}

/* The runs of one dimension: n scratch positions, position 0 at root
 * coordinate r0, the root's extent R, the source holding root coordinates
 * s0 .. s1-1 (the whole array, or a parent scratch with its halo).  A
 * position the source holds is copied; one outside the array and the
 * source follows the policy (a mapped cell must be in the source); one
 * inside the array that the source does not hold is HL_ERR_RANGE.  *runs
 * is allocated. */
static hl_status dim_runs(int64_t r0, int64_t n, int64_t R, int64_t s0, int64_t s1,
                          hl_halo_policy pol, run **runs, int *nruns)
{
    run *v = NULL;
    int cnt = 0, cap = 0;
    for (int64_t c = 0; c < n; c++) {
        const int64_t r = r0 + c;
        run x = {RUN_COPY, c, 1, r, 1};
        if (r < s0 || r >= s1) {
            if (r >= 0 && r < R)
                x.kind = -1;
            else if (pol == HL_HALO_SKIP)
                x.kind = RUN_SKIP;
            else if (pol == HL_HALO_CONSTANT)
                x.kind = RUN_CONST;
            else {
                x.src = hl_boundary_map(0, r, R, boundary_of(pol));
                if (x.src < s0 || x.src >= s1)
                    x.kind = -1;
            }
            if (x.kind < 0) {
                free(v);
                return HL_ERR_RANGE; /* in the array, not in the source */
            }
        }
        if (cnt > 0) {
            run *last = &v[cnt - 1];
            if (last->kind == x.kind && x.kind != RUN_COPY) {
                last->len++;
                continue;
            }
            if (last->kind == RUN_COPY && x.kind == RUN_COPY) {
                const int64_t step = x.src - (last->src + (last->len - 1) * last->dir);
                if (last->len == 1 && (step == 1 || step == -1))
                    last->dir = step;
                if (step == last->dir) {
                    last->len++;
                    continue;
                }
            }
        }
        if (cnt == cap) {
            cap = cap ? 2 * cap : 8;
            run *nv = realloc(v, sizeof *nv * (size_t)cap);
            if (!nv) {
                free(v);
                return HL_ERR_NOMEM;
            }
            v = nv;
        }
        v[cnt++] = x;
    }
    *runs = v;
    *nruns = cnt;
    return HL_OK;
}

/* Lowers one piece (src layout -> dst layout) into boxes, or, where the box
 * engine cannot, into a plan of its own. */
static hl_status add_piece(hl_tile_cache *c, box_list *l, const hl_layout *src,
                           const hl_layout *dst)
{
    hl_box *b = NULL;
    int64_t n = 0;
    hl_status st = hl_lower(src, dst, HL_PLAN_MAX_BOXES, &b, &n);
    if (st == HL_OK) {
        st = append_boxes(l, b, n);
        free(b);
        return st;
    }
    if (st != HL_ERR_UNSUPPORTED)
        return st;
    hl_plan **ne = realloc(c->extra, sizeof *ne * (size_t)(c->nextra + 1));
    if (!ne)
        return HL_ERR_NOMEM;
    c->extra = ne;
    const hl_plan_options one = {1, false};
    st = hl_plan_create(&c->extra[c->nextra], src, dst, c->view.elem_size, &one);
    if (st == HL_OK)
        c->nextra++;
    return st;
}

static hl_status make_pieces(hl_tile_cache *c, const hl_layout *scr, hl_halo_policy pol,
                             box_list *copies, box_list *consts)
{
    const hl_tensor *tile = c->tile, *root = tile->root, *S = c->source;
    const int rank = tile->rank;
    run *runs[HL_MAX_RANK] = {0};
    int nruns[HL_MAX_RANK] = {0};
    int64_t s0[HL_MAX_RANK];
    hl_status st = HL_OK;
    for (int i = 0; i < rank && st == HL_OK; i++) {
        s0[i] = S->at[i] + S->lo[i]; /* root coordinate of the source's first cell */
        st = dim_runs(tile->at[i] + c->view.lo[i], c->view.extent[i], root->extent[i], s0[i],
                      s0[i] + S->extent[i], pol, &runs[i], &nruns[i]);
    }
    int at[HL_MAX_RANK] = {0};
    bool more = st == HL_OK;
    while (more) {
        int64_t dlo[HL_MAX_RANK], slo[HL_MAX_RANK], len[HL_MAX_RANK];
        uint64_t flip = 0;
        int kind = RUN_COPY;
        for (int i = 0; i < rank; i++) {
            const run *r = &runs[i][at[i]];
            dlo[i] = r->dst;
            len[i] = r->len;
            slo[i] = (r->dir > 0 ? r->src : r->src - (r->len - 1)) - s0[i];
            if (r->dir < 0)
                flip |= UINT64_C(1) << i;
            if (r->kind > kind)
                kind = r->kind; /* skip beats constant beats copy */
        }
        hl_layout src, dst;
        if (kind != RUN_SKIP && (st = hl_layout_slice(&dst, scr, dlo, len)) != HL_OK)
            break;
        if (kind == RUN_COPY) {
            if ((st = hl_layout_slice(&src, &S->layout, slo, len)) != HL_OK ||
                (flip && (st = hl_layout_flip(&src, &src, flip)) != HL_OK) ||
                (st = add_piece(c, copies, &src, &dst)) != HL_OK)
                break;
        } else if (kind == RUN_CONST) {
            static const int64_t zero[HL_MAX_RANK];
            hl_box *b = NULL;
            int64_t n = 0;
            /* every cell of the piece reads the one constant element */
            if ((st = hl_layout_strided(&src, rank, len, zero, 0)) != HL_OK ||
                (st = hl_lower(&src, &dst, HL_PLAN_MAX_BOXES, &b, &n)) != HL_OK)
                break;
            st = append_boxes(consts, b, n);
            free(b);
            if (st != HL_OK)
                break;
        }
        int i = 0;
        while (i < rank && ++at[i] == nruns[i])
            at[i++] = 0;
        more = i < rank;
    }
    for (int i = 0; i < rank; i++)
        free(runs[i]);
    return st;
}

void hl_tile_cache_destroy(hl_tile_cache *c)
{
    if (!c)
        return;
    hl_plan_destroy(c->copy);
    hl_plan_destroy(c->fill_const);
    hl_plan_destroy(c->back);
    for (int j = 0; j < c->nextra; j++)
        hl_plan_destroy(c->extra[j]);
    free(c->extra);
    free(c->constant);
    free(c);
}

static hl_status build(hl_tile_cache *c, const hl_cache_options *opt)
{
    const hl_tensor *tile = c->tile;
    const int rank = tile->rank;
    hl_layout scr;
    hl_status st;
    if (opt && opt->format) {
        if (opt->format->rank != rank)
            return HL_ERR_RANK;
        for (int i = 0; i < rank; i++)
            if (opt->format->extent[i] != c->view.extent[i])
                return HL_ERR_MISMATCH;
        int64_t min, max;
        hl_layout_bounds(opt->format, &min, &max);
        if (min < 0)
            return HL_ERR_RANGE;
        st = hl_layout_normalize(&scr, opt->format);
    } else {
        st = hl_layout_standard(&scr, rank, c->view.extent);
    }
    if (st != HL_OK)
        return st;
    c->view.layout = scr;
    hl_tensor_find_affine(&c->view);
    c->span = hl_layout_span(&scr);

    box_list copies = {0}, consts = {0};
    const hl_halo_policy pol = opt ? opt->policy : HL_HALO_SKIP;
    st = make_pieces(c, &scr, pol, &copies, &consts);
    const hl_plan_options one = {1, false};
    const int64_t elem = tile->elem_size;
    if (st == HL_OK && copies.n > 0)
        st = hl_plan_from_boxes(&c->copy, copies.b, copies.n, elem, hl_layout_span(&c->source->layout),
                                c->span, &one);
    if (st == HL_OK && consts.n > 0)
        st = hl_plan_from_boxes(&c->fill_const, consts.b, consts.n, elem, 1, c->span, &one);
    c->nboxes = copies.n + consts.n;
    free(copies.b);
    free(consts.b);
    if (st != HL_OK)
        return st;

    /* the write-back: the tile's own cells of the scratch onto the tile */
    int64_t in_lo[HL_MAX_RANK];
    for (int i = 0; i < rank; i++)
        in_lo[i] = tile->lo[i] - c->view.lo[i];
    hl_layout inner;
    if ((st = hl_layout_slice(&inner, &scr, in_lo, tile->extent)) != HL_OK)
        return st;
    return hl_plan_create(&c->back, &inner, &tile->layout, elem, &one);
}

hl_status hl_tile_cache_create(hl_tile_cache **cp, const hl_tensor *tile,
                               const hl_cache_options *opt)
{
    if (!cp)
        return HL_ERR_NULL;
    *cp = NULL;
    if (!tile)
        return HL_ERR_NULL;
    /* the fill's source: the nearest cached view up the tile's chain (its
     * buffer is the tile's), else the top-level tensor */
    const hl_tensor *S = tile;
    while (!S->cached && S->parent)
        S = S->parent;
    if (S->data != tile->data)
        return HL_ERR_UNSUPPORTED;
    const hl_halo_policy pol = opt ? opt->policy : HL_HALO_SKIP;
    if ((int)pol < 0 || pol >= HL_HALO_COUNT)
        return HL_ERR_ARG;
    if (pol == HL_HALO_CONSTANT && !opt->constant)
        return HL_ERR_NULL;
    hl_tile_cache *c = calloc(1, sizeof *c);
    if (!c)
        return HL_ERR_NOMEM;
    c->tile = tile;
    c->source = S;
    hl_tensor *v = &c->view;
    v->data = NULL;
    v->elem_size = tile->elem_size;
    v->rank = tile->rank;
    for (int i = 0; i < tile->rank; i++) {
        const int64_t h = opt && opt->halo ? opt->halo[i] : 0;
        if (h < 0 || h > INT64_MAX / 4 - tile->extent[i]) {
            free(c);
            return HL_ERR_ARG;
        }
        v->lo[i] = tile->lo[i] - h;
        v->extent[i] = tile->extent[i] + 2 * h;
        v->at[i] = tile->at[i];
    }
    v->parent = tile;
    v->root = tile->root;
    v->cached = true;
    hl_status st = HL_OK;
    if (pol == HL_HALO_CONSTANT) {
        if (!(c->constant = malloc((size_t)tile->elem_size)))
            st = HL_ERR_NOMEM;
        else
            memcpy(c->constant, opt->constant, (size_t)tile->elem_size);
    }
    if (st == HL_OK)
        st = build(c, opt);
    if (st != HL_OK) {
        hl_tile_cache_destroy(c);
        return st;
    }
    *cp = c;
    return HL_OK;
}

int64_t hl_tile_cache_span(const hl_tile_cache *c)
{
    return c ? c->span : 0;
}

int64_t hl_tile_cache_boxes(const hl_tile_cache *c)
{
    return c ? c->nboxes : 0;
}

hl_status hl_tile_cache_view(const hl_tile_cache *c, void *scratch, hl_tensor *view)
{
    if (!c || !scratch || !view)
        return HL_ERR_NULL;
    *view = c->view;
    view->data = scratch;
    return HL_OK;
}

hl_status hl_tile_cache_fill(const hl_tile_cache *c, void *scratch)
{
    if (!c || !scratch)
        return HL_ERR_NULL;
    hl_status st = HL_OK;
    const void *src = c->tile->data;
    if (c->copy)
        st = hl_execute_share(c->copy, src, scratch, 0, 1);
    for (int j = 0; st == HL_OK && j < c->nextra; j++)
        st = hl_execute_share(c->extra[j], src, scratch, 0, 1);
    if (st == HL_OK && c->fill_const)
        st = hl_execute_share(c->fill_const, c->constant, scratch, 0, 1);
    return st;
}

hl_status hl_tile_cache_writeback(const hl_tile_cache *c, const void *scratch)
{
    if (!c || !scratch)
        return HL_ERR_NULL;
    return hl_execute_share(c->back, scratch, c->tile->data, 0, 1);
}
