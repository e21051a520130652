/* hyperlayout — distributed layouts: the constructors, checked queries, and
 * one owner's cells as boxes for counting and for pack / unpack plans. */
#include "hyperlayout/dist.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "dist_boxes.h"
#include "plan/ir.h"
#include "core/intmath.h"

static hl_status fail(hl_dist *d, hl_status st)
{
    memset(d, 0, sizeof *d);
    return st;
}

/* What follows from the digits that a constructor set (rank, owners,
 * dim[i] but its dividers, round_stride, ki, in_tile, grid, owner_grid). */
static void finish(hl_dist *d)
{
    d->count = d->ki.count;
    d->tile_count = d->grid.count;
    d->tile_size = d->in_tile.count;
    d->div_owners = hl_divider_make(d->owners);
    int64_t cw = 1;
    for (int i = 0; i < d->rank; i++) {
        hl_dist_dim *m = &d->dim[i];
        m->div_tile = hl_divider_make(m->tile);
        m->div_owners = hl_divider_make(m->owners);
        d->course_weight[i] = cw;
        cw *= m->courses; /* <= the tile count */
    }
    d->course_weight[d->rank] = cw;

    /* the inverse reads the local digits off in stride order, the round
     * (always the largest stride) last */
    int n = 0;
    for (int i = 0; i < d->rank; i++) {
        const hl_dist_dim *m = &d->dim[i];
        if (m->tile > 1)
            d->local[n++] = (hl_dist_digit){i, false, m->tile, hl_divider_make(m->phase_stride)};
        if (m->courses > 1)
            d->local[n++] = (hl_dist_digit){i, true, m->courses, hl_divider_make(m->course_stride)};
    }
    for (int a = 1; a < n; a++)
        for (int b = a; b > 0 && d->local[b - 1].div.divisor > d->local[b].div.divisor; b--) {
            hl_dist_digit t = d->local[b];
            d->local[b] = d->local[b - 1];
            d->local[b - 1] = t;
        }
    d->local[n++] = (hl_dist_digit){-1, false, 0, hl_divider_make(d->round_stride)};
    d->nlocal = n;
}

hl_status hl_dist_upc(hl_dist *d, int rank, const int64_t *extent, const int64_t *tile,
                      int64_t owners)
{
    if (!d)
        return HL_ERR_NULL;
    memset(d, 0, sizeof *d); /* defined contents even on error */
    if (!extent || !tile)
        return HL_ERR_NULL;
    if (rank < 1 || rank > HL_MAX_RANK)
        return HL_ERR_RANK;
    for (int i = 0; i < rank; i++)
        if (extent[i] < 1 || tile[i] < 1)
            return HL_ERR_EXTENT;
    if (owners < 1)
        return HL_ERR_ARG;

    int64_t tiles[HL_MAX_RANK];
    for (int i = 0; i < rank; i++)
        tiles[i] = (extent[i] - 1) / tile[i] + 1; /* ceil, without overflow */
    /* N and B must fit; the tile count never exceeds N */
    hl_status st = hl_kindex_init(&d->ki, rank, extent);
    if (st == HL_OK)
        st = hl_kindex_init(&d->in_tile, rank, tile);
    if (st == HL_OK)
        st = hl_kindex_init(&d->grid, rank, tiles);
    if (st == HL_OK)
        st = hl_kindex_init(&d->owner_grid, rank, tiles); /* the owner sum is the tile index */
    if (st != HL_OK)
        return fail(d, st);
    /* owner 0 holds the most tiles: ceil(G / T) */
    int64_t most = (d->grid.count - 1) / owners + 1;
    if (__builtin_mul_overflow(most, d->in_tile.count, &d->local_max))
        return fail(d, HL_ERR_OVERFLOW);

    d->rank = rank;
    d->owners = owners;
    for (int i = 0; i < rank; i++)
        d->dim[i] = (hl_dist_dim){.extent = extent[i],
                                  .tile = tile[i],
                                  .tiles = tiles[i],
                                  .owners = tiles[i],
                                  .courses = 1,
                                  .phase_stride = d->in_tile.stride[i]};
    d->round_stride = d->in_tile.count;
    finish(d);
    return HL_OK;
}

hl_status hl_dist_upc_1d(hl_dist *d, int64_t extent, int64_t tile, int64_t owners)
{
    return hl_dist_upc(d, 1, &extent, &tile, owners);
}

hl_status hl_dist_grid(hl_dist *d, int rank, const int64_t *extent, const hl_dist_axis *axis)
{
    if (!d)
        return HL_ERR_NULL;
    memset(d, 0, sizeof *d);
    if (!extent || !axis)
        return HL_ERR_NULL;
    if (rank < 1 || rank > HL_MAX_RANK)
        return HL_ERR_RANK;
    for (int i = 0; i < rank; i++) {
        if (extent[i] < 1 || (axis[i].kind == HL_DIST_CYCLIC && axis[i].tile < 1))
            return HL_ERR_EXTENT;
        if (axis[i].owners < 1 || (axis[i].kind == HL_DIST_NONE && axis[i].owners != 1))
            return HL_ERR_ARG;
        if (axis[i].kind != HL_DIST_NONE && axis[i].kind != HL_DIST_BLOCK &&
            axis[i].kind != HL_DIST_CYCLIC)
            return HL_ERR_ARG;
    }

    int64_t tile[HL_MAX_RANK], tiles[HL_MAX_RANK], owners[HL_MAX_RANK], stride = 1;
    for (int i = 0; i < rank; i++) {
        const int64_t L = extent[i], P = axis[i].owners;
        tile[i] = axis[i].kind == HL_DIST_NONE    ? L
                  : axis[i].kind == HL_DIST_BLOCK ? (L - 1) / P + 1
                                                  : axis[i].tile;
        tiles[i] = (L - 1) / tile[i] + 1;
        owners[i] = P;
        hl_dist_dim *m = &d->dim[i];
        m->extent = L;
        m->tile = tile[i];
        m->tiles = tiles[i];
        m->owners = P;
        m->courses = (tiles[i] - 1) / P + 1;
        /* a standard local array of extents C_i*b_i, y_i = phase_i + b_i*course_i */
        m->phase_stride = stride;
        int64_t local_extent;
        if (__builtin_mul_overflow(m->courses, tile[i], &local_extent) ||
            __builtin_mul_overflow(m->tile, stride, &m->course_stride) ||
            __builtin_mul_overflow(stride, local_extent, &stride))
            return fail(d, HL_ERR_OVERFLOW);
    }
    /* the tiles and a tile fit when the array and the local array do */
    hl_status st = hl_kindex_init(&d->ki, rank, extent);
    if (st == HL_OK)
        st = hl_kindex_init(&d->owner_grid, rank, owners);
    if (st == HL_OK)
        st = hl_kindex_init(&d->in_tile, rank, tile);
    if (st == HL_OK)
        st = hl_kindex_init(&d->grid, rank, tiles);
    if (st != HL_OK)
        return fail(d, st);
    d->rank = rank;
    d->owners = d->owner_grid.count;
    d->round_stride = stride;
    d->local_max = stride; /* owner 0 has C_i tiles along every dimension */
    finish(d);
    return HL_OK;
}

/* ---- checked queries ----------------------------------------------------- */

hl_status hl_dist_query(const hl_dist *d, const int64_t *x, hl_dist_place *place)
{
    if (!d || !x || !place)
        return HL_ERR_NULL;
    if (!hl_dist_valid_x(d, x))
        return HL_ERR_RANGE;
    *place = hl_dist_place_of(d, x);
    return HL_OK;
}

hl_status hl_dist_query_k(const hl_dist *d, int64_t k, hl_dist_place *place)
{
    if (!d || !place)
        return HL_ERR_NULL;
    if (!hl_dist_valid_k(d, k))
        return HL_ERR_RANGE;
    *place = hl_dist_place_of_k(d, k);
    return HL_OK;
}

hl_status hl_dist_locate(const hl_dist *d, int64_t owner, int64_t local, int64_t *x, int64_t *k)
{
    if (!d)
        return HL_ERR_NULL;
    if (!hl_dist_valid_owner(d, owner))
        return HL_ERR_ARG;
    if (!hl_dist_valid_local(d, owner, local))
        return HL_ERR_RANGE;
    int64_t y[HL_MAX_RANK];
    bool cell = hl_dist_coord_of(d, owner, local, y);
    if (x)
        memcpy(x, y, (size_t)d->rank * sizeof *x);
    if (k)
        *k = cell ? hl_kindex_tok(&d->ki, y) : HL_DIST_PADDING;
    return HL_OK;
}

/* ---- one owner's cells as boxes --------------------------------------------
 *
 * Along every dimension an owner's tiles are a progression g = a, a+step,
 * ... of tile coordinates, on which the global and the local offset are
 * both affine; a product of progressions, cut where the array's edge clips
 * the last tile, is a few boxes.  In an owner grid the owner's cells are
 * one such product (a = own_i, step P_i, course_i counting).  Dealt round
 * robin they are not a product: a tile is the owner's when its index s =
 * sum g_i*W_i is congruent to the owner mod T, which the walk below splits
 * into products dimension by dimension. */

/* A dimension as the boxes see it. */
typedef struct wdim {
    int64_t L, b, G; /* extent, tile, tiles */
    int64_t lp, s;   /* global stride of x, local stride of the phase */
    int64_t w;       /* dealing: weight of the tile coordinate in the tile index */
} wdim;

/* `count` tiles a, a+step, ... ; lstep: the local offset from one to the
 * next (0 when count is 1: it may not fit then). */
typedef struct wprog {
    int64_t a, step, count, lstep;
} wprog;

enum { MERGE_WINDOW = 4 }; /* recent boxes a new one may join */

typedef struct walk {
    int n;
    wdim dim[HL_MAX_RANK];
    wprog prog[HL_MAX_RANK];
    int64_t owner, owners, round_stride;
    int64_t cells;
    bool collect; /* boxes too, not only the cell count */
    hl_box *box;
    int64_t nbox, cap;
    hl_status st;
} walk;

/* Whether a box at bases (a's + ds, a's + dd) starts where a's digit t
 * ends, on both sides. */
static bool continues(const hl_box *a, int t, int64_t ds, int64_t dd)
{
    int64_t s, d;
    return !__builtin_mul_overflow(a->extent[t], a->src_stride[t], &s) &&
           !__builtin_mul_overflow(a->extent[t], a->dst_stride[t], &d) && s == ds && d == dd;
}

static bool same_digit(const hl_box *a, const hl_box *b, int t)
{
    return a->extent[t] == b->extent[t] && a->src_stride[t] == b->src_stride[t] &&
           a->dst_stride[t] == b->dst_stride[t];
}

/* Joins b into a when their union is one box: b continues a along one digit
 * (the same digits otherwise), b is one more step of a's last digit (a has
 * b's digits and that one more), or b is a at another offset (a gains a
 * digit).  Rows of tiles that repeat one another become one box. */
static bool merge(hl_box *a, const hl_box *b)
{
    const int64_t ds = b->src_base - a->src_base, dd = b->dst_base - a->dst_base;
    const int n = b->ndigits;
    if (a->ndigits == n + 1) {
        for (int t = 0; t < n; t++)
            if (!same_digit(a, b, t))
                return false;
        if (!continues(a, n, ds, dd))
            return false;
        a->extent[n]++;
        return true;
    }
    if (a->ndigits != n)
        return false;
    int diff = -1;
    for (int t = 0; t < n; t++) {
        if (a->src_stride[t] != b->src_stride[t] || a->dst_stride[t] != b->dst_stride[t])
            return false;
        if (a->extent[t] != b->extent[t]) {
            if (diff >= 0)
                return false;
            diff = t;
        }
    }
    for (int t = 0; t < n; t++)
        if ((diff < 0 || t == diff) && continues(a, t, ds, dd)) {
            a->extent[t] += b->extent[t];
            return true;
        }
    if (diff >= 0 || n == HL_BOX_MAX_DIGITS)
        return false;
    hl_box_add_digit(a, 2, ds, dd);
    return true;
}

static void push(walk *w, const hl_box *b)
{
    for (int64_t j = w->nbox - 1; j >= 0 && j >= w->nbox - MERGE_WINDOW; j--)
        if (merge(&w->box[j], b))
            return;
    if (w->nbox == w->cap) {
        if (w->cap == HL_DIST_MAX_BOXES) {
            w->st = HL_ERR_UNSUPPORTED;
            return;
        }
        int64_t cap = w->cap ? 2 * w->cap : 16;
        if (cap > HL_DIST_MAX_BOXES)
            cap = HL_DIST_MAX_BOXES;
        hl_box *more = realloc(w->box, (size_t)cap * sizeof *more);
        if (!more) {
            w->st = HL_ERR_NOMEM;
            return;
        }
        w->box = more;
        w->cap = cap;
    }
    w->box[w->nbox++] = *b;
}

/* The product of the progressions in w->prog, its tiles' local offsets
 * starting at lbase.  Along each dimension: the whole tiles, and the last
 * tile apart when the edge clips it — unless the tiles are contiguous on
 * both sides (step 1, local step one tile), when the dimension is one run
 * of cells. */
static void leaf(walk *w, int64_t lbase)
{
    int64_t full[HL_MAX_RANK], edge[HL_MAX_RANK], cells = 1;
    bool run[HL_MAX_RANK], two[HL_MAX_RANK];
    for (int i = 0; i < w->n; i++) {
        const wdim *m = &w->dim[i];
        const wprog *p = &w->prog[i];
        const int64_t left = m->L - (p->a + p->step * (p->count - 1)) * m->b;
        int64_t tile_span;
        edge[i] = left < m->b ? left : 0;
        full[i] = p->count - (edge[i] > 0);
        run[i] = full[i] > 0 && edge[i] > 0 && p->step == 1 &&
                 !__builtin_mul_overflow(m->b, m->s, &tile_span) && tile_span == p->lstep;
        two[i] = full[i] > 0 && edge[i] > 0 && !run[i];
        cells *= full[i] * m->b + edge[i];
    }
    w->cells += cells;
    if (!w->collect)
        return;
    int64_t boxes = 1;
    for (int i = 0; i < w->n && boxes <= HL_DIST_MAX_BOXES; i++)
        boxes *= two[i] ? 2 : 1;
    if (boxes > HL_DIST_MAX_BOXES) {
        w->st = HL_ERR_UNSUPPORTED;
        return;
    }
    bool last_tile[HL_MAX_RANK];
    for (int i = 0; i < w->n; i++)
        last_tile[i] = full[i] == 0;
    for (;;) {
        hl_box b;
        b.ndigits = 0;
        b.src_base = 0;
        b.dst_base = lbase;
        for (int i = 0; i < w->n; i++) {
            const wdim *m = &w->dim[i];
            const wprog *p = &w->prog[i];
            if (run[i]) {
                b.src_base += p->a * m->b * m->lp;
                hl_box_add_digit(&b, full[i] * m->b + edge[i], m->lp, m->s);
            } else if (!last_tile[i]) {
                b.src_base += p->a * m->b * m->lp;
                hl_box_add_digit(&b, m->b, m->lp, m->s);
                if (full[i] > 1)
                    hl_box_add_digit(&b, full[i], p->step * m->b * m->lp, p->lstep);
            } else {
                b.src_base += (p->a + p->step * (p->count - 1)) * m->b * m->lp;
                b.dst_base += (p->count - 1) * p->lstep;
                hl_box_add_digit(&b, edge[i], m->lp, m->s);
            }
        }
        push(w, &b);
        if (w->st != HL_OK)
            return;
        int i = 0;
        for (; i < w->n; i++) {
            if (two[i] && !last_tile[i]) {
                last_tile[i] = true;
                break;
            }
            last_tile[i] = full[i] == 0;
        }
        if (i == w->n)
            return;
    }
}

static int64_t mulmod(int64_t a, int64_t b, int64_t m)
{
    __extension__ typedef unsigned __int128 u128;
    return (int64_t)((u128)(uint64_t)a * (uint64_t)b % (uint64_t)m);
}

/* x in [0, m) with a*x = 1 (mod m), for gcd(a, m) = 1 and m >= 2
 * (extended Euclid; the coefficients stay within m, their products are
 * formed in 128 bits). */
static int64_t inverse_mod(int64_t a, int64_t m)
{
    __extension__ typedef __int128 i128;
    int64_t r0 = m, r1 = a % m, x0 = 0, x1 = 1;
    while (r1) {
        int64_t q = r0 / r1, t = r0 - q * r1;
        r0 = r1, r1 = t;
        t = (int64_t)(x0 - (i128)q * x1);
        x0 = x1, x1 = t;
    }
    return x0 < 0 ? x0 + m : x0;
}

static void set_prog(walk *w, int i, int64_t a, int64_t step)
{
    const wdim *m = &w->dim[i];
    wprog *p = &w->prog[i];
    p->a = a;
    p->step = step;
    p->count = (m->G - 1 - a) / step + 1;
    /* step*w is a multiple of T (both ends are the owner's), and step
     * divides T */
    p->lstep = p->count > 1 ? m->w / (w->owners / step) * w->round_stride : 0;
}

/* The owner's tiles when dealt: those whose index s = sum_j g_j*W_j is
 * congruent to the owner mod T.  From dimension i on the question is which
 * (g_i, ..., g_(n-1)) have g_i + G_i*t = rho (mod M), t the tile index over
 * the dimensions above i (`sum`: what the starts chosen below add to s).
 * G_i*t mod M depends on t only mod M/gcd(G_i, M), so each start a = rho
 * (mod gcd) of g_i, stepping by M, goes with one class sigma of t: the same
 * question one dimension up, modulus M/gcd.  Once M is 1 every tile above
 * qualifies, and the recursion ends in products of progressions. */
static void deal(walk *w, int i, int64_t M, int64_t rho, int64_t sum)
{
    const wdim *m = &w->dim[i];
    if (i == w->n - 1) {
        if (rho < m->G) {
            set_prog(w, i, rho, M);
            sum += rho * m->w;
            leaf(w, (sum - w->owner) / w->owners * w->round_stride);
        }
        return;
    }
    const int64_t g = hl_gcd64(m->G, M), up = M / g, end = m->G < M ? m->G : M;
    const int64_t inv = up > 1 ? inverse_mod(m->G / g % up, up) : 0;
    for (int64_t a = rho % g; a < end && w->st == HL_OK; a += g) {
        int64_t sigma = 0;
        if (up > 1) {
            int64_t r = (rho - a) / g % up;
            sigma = mulmod(r < 0 ? r + up : r, inv, up);
        }
        set_prog(w, i, a, M);
        deal(w, i + 1, up, sigma, sum + a * m->w);
        if (end - a <= g)
            break;
    }
}

/* Feeds every box of the owner's cells to leaf(). */
static void walk_owner(walk *w, const hl_dist *d, int64_t owner)
{
    w->owner = owner;
    w->owners = d->owners;
    w->round_stride = d->round_stride;
    w->cells = 0;
    w->st = HL_OK;
    if (owner >= d->owner_grid.count)
        return;
    if (d->owner_grid.count <= d->owners) {
        /* one round: the owner digits are the owner's coordinate */
        int64_t own[HL_MAX_RANK];
        hl_kindex_fromk(&d->owner_grid, owner, own);
        w->n = d->rank;
        for (int i = 0; i < d->rank; i++) {
            const hl_dist_dim *m = &d->dim[i];
            const int64_t n = hl_dist_tiles_along_(m, own[i]);
            if (n == 0)
                return;
            w->dim[i] = (wdim){m->extent, m->tile, m->tiles, d->ki.stride[i], m->phase_stride, 0};
            w->prog[i] = (wprog){own[i], m->owners, n, n > 1 ? m->course_stride : 0};
        }
        leaf(w, 0);
        return;
    }
    /* Dealt round robin (every C_i = 1, P_i = G_i).  Dimensions of extent 1
     * add nothing; dimension i joins the one below when that one's tiles
     * are whole and its own are single cells, since x_(i-1) + L_(i-1)*x_i
     * is then one coordinate cut into the same tiles: fewer, longer
     * progressions. */
    int n = 0;
    for (int i = 0; i < d->rank; i++) {
        const hl_dist_dim *m = &d->dim[i];
        if (m->extent == 1)
            continue;
        if (n > 0 && w->dim[n - 1].L % w->dim[n - 1].b == 0 && m->tile == 1) {
            wdim *below = &w->dim[n - 1];
            below->L *= m->extent;
            below->G = below->L / below->b;
            continue;
        }
        w->dim[n++] = (wdim){m->extent, m->tile, m->tiles, d->ki.stride[i], m->phase_stride, 0};
    }
    int64_t weight = 1;
    for (int j = 0; j < n; j++) {
        w->dim[j].w = weight;
        weight *= w->dim[j].G;
    }
    w->n = n;
    deal(w, 0, d->owners, owner, 0);
}

hl_status hl_dist_owner_elements(const hl_dist *d, int64_t owner, int64_t *count)
{
    if (!d || !count)
        return HL_ERR_NULL;
    if (!hl_dist_valid_owner(d, owner))
        return HL_ERR_ARG;
    walk w;
    w.collect = false;
    walk_owner(&w, d, owner);
    *count = w.cells;
    return HL_OK;
}

hl_status hl_dist_owner_boxes(const hl_dist *d, int64_t owner, hl_box **boxes, int64_t *n)
{
    *boxes = NULL;
    *n = 0;
    walk *w = malloc(sizeof *w);
    if (!w)
        return HL_ERR_NOMEM;
    w->collect = true;
    w->box = NULL;
    w->nbox = w->cap = 0;
    walk_owner(w, d, owner);
    const hl_status st = w->st;
    if (st == HL_OK) {
        *boxes = w->box;
        *n = w->nbox;
    } else {
        free(w->box);
    }
    free(w);
    return st;
}

/* ---- pack / unpack ---------------------------------------------------------- */

hl_status hl_dist_pack_plan(hl_plan **plan, const hl_dist *d, int64_t owner, int64_t elem_size,
                            bool unpack, const hl_plan_options *opt)
{
    if (!plan)
        return HL_ERR_NULL;
    *plan = NULL;
    if (!d)
        return HL_ERR_NULL;
    if (!hl_dist_valid_owner(d, owner))
        return HL_ERR_ARG;
    if (elem_size < 1)
        return HL_ERR_ELEM_SIZE;
    const int64_t nlocal = hl_dist_local_count(d, owner);
    int64_t bytes;
    if (__builtin_mul_overflow(d->count, elem_size, &bytes) ||
        __builtin_mul_overflow(nlocal, elem_size, &bytes))
        return HL_ERR_BYTES_OVERFLOW;

    hl_box *box;
    int64_t nbox;
    hl_status st = hl_dist_owner_boxes(d, owner, &box, &nbox);
    if (st == HL_OK) {
        if (unpack)
            for (int64_t j = 0; j < nbox; j++)
                hl_box_swap(&box[j]);
        st = hl_plan_from_boxes(plan, box, nbox, elem_size, unpack ? nlocal : d->count,
                                unpack ? d->count : nlocal, opt);
    }
    free(box);
    return st;
}

static hl_status pack_run(const hl_dist *d, int64_t owner, const void *in, void *out,
                          int64_t elem_size, bool unpack)
{
    if (!d || !in || !out)
        return HL_ERR_NULL;
    hl_plan *p;
    hl_status st = hl_dist_pack_plan(&p, d, owner, elem_size, unpack, NULL);
    if (st != HL_OK)
        return st;
    st = hl_execute(p, in, out);
    hl_plan_destroy(p);
    return st;
}

hl_status hl_dist_pack(const hl_dist *d, int64_t owner, const void *global, void *local,
                       int64_t elem_size)
{
    return pack_run(d, owner, global, local, elem_size, false);
}

hl_status hl_dist_unpack(const hl_dist *d, int64_t owner, const void *local, void *global,
                         int64_t elem_size)
{
    return pack_run(d, owner, local, global, elem_size, true);
}
