/* hyperlayout — in-place passes: planning a plan that permutes each
 * dimension on its own.
 *
 * When both layouts of a plan keep one digit per dimension with the standard
 * stride LP[i] (up to sign) and differ only by coordinate maps (flip, shift,
 * crinkle, uncrinkle), the plan moves whole slabs: along dimension i, slab p
 * of every group (LP[i] contiguous elements) receives slab sigma_i(p).  The
 * dimensions commute, so they can be applied one after the other, each as
 * one pass; how a pass is run (cycles, gathers, swaps) is the executor's
 * business. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "layout/coord.h"
#include "core/intmath.h"

/* Longer dimensions get no stored sigma (8 bytes per position in the plan):
 * a reflection or rotation of them (flips, shifts) is one or two reflection
 * passes; anything else is not done by passes. */
#define MAX_LEN ((int64_t)1 << 20)

/* Whether dimension i is one digit of radix L_i and stride +-LP[i] (its
 * stride in *stride), as in the standard layout. */
static bool one_digit(const hl_layout *lay, int i, int64_t lp, int64_t *stride)
{
    int digits = 0;
    *stride = lp;
    for (int t = 0; t < lay->ndigits; t++)
        if (lay->digit[t].dim == i) {
            digits++;
            *stride = lay->digit[t].stride;
            if (lay->digit[t].radix != lay->extent[i] || (*stride != lp && *stride != -lp))
                return false;
        }
    return digits == 1 || lay->extent[i] == 1;
}

/* pos[v]: the slab (along dimension i) that the cell at x_i = v (others 0)
 * occupies; false when the layout is not the standard one up to
 * per-dimension maps. */
static bool positions(const hl_layout *lay, int i, int64_t lp, int64_t *pos)
{
    int64_t stride;
    if (!one_digit(lay, i, lp, &stride))
        return false;
    int64_t x[HL_MAX_RANK] = {0}, o0, o, lo = INT64_MAX;
    if (hl_layout_offset(lay, x, &o0) != HL_OK)
        return false;
    for (int64_t v = 0; v < lay->extent[i]; v++) {
        x[i] = v;
        if (hl_layout_offset(lay, x, &o) != HL_OK)
            return false;
        pos[v] = (o - o0) / lp;
        lo = pos[v] < lo ? pos[v] : lo;
    }
    for (int64_t v = 0; v < lay->extent[i]; v++)
        pos[v] -= lo;
    return true;
}

/* For a dimension whose maps are only flips and shifts, its position map
 * p(v) = (a + e v) mod L, e = +1 or -1, from two evaluations. */
static bool dihedral(const hl_layout *lay, int i, int64_t lp, int64_t *a, int64_t *e)
{
    const int64_t L = lay->extent[i];
    int64_t stride;
    if (!one_digit(lay, i, lp, &stride))
        return false;
    int64_t y[2] = {0, 1};
    for (int j = 0; j < lay->nmaps[i]; j++) {
        if (lay->map[i][j].op != HL_COORD_FLIP && lay->map[i][j].op != HL_COORD_SHIFT)
            return false;
        for (int k = 0; k < 2; k++)
            y[k] = hl_coord_apply(lay->map[i][j], L, y[k]);
    }
    if (stride < 0)
        for (int k = 0; k < 2; k++)
            y[k] = L - 1 - y[k];
    *a = y[0];
    *e = (y[1] - y[0] + L) % L == 1 ? 1 : -1;
    return true;
}

/* ---- moves ---------------------------------------------------------------- */

int64_t hl_ir_move_apply(const hl_ir_pass *pass, int64_t u)
{
    const int64_t L = pass->len;
    for (int k = 0; k < pass->nmoves; k++) {
        const hl_ir_move m = pass->move[k];
        if (m.op == HL_MOVE_DIHEDRAL)
            u = ((m.a + m.e * u) % L + L) % L;
        else if (m.op == HL_MOVE_CRINKLE)
            u = hl_crinkle_pos(L, m.a, u);
        else
            u = hl_crinkle_unpos(L, m.a, u);
    }
    return u;
}

/* Appends a move, merging dihedral ones and dropping identities. */
static void push_move(hl_ir_pass *pass, int64_t L, hl_ir_move m)
{
    if (m.op != HL_MOVE_DIHEDRAL && (m.a <= 1 || m.a >= L))
        return; /* a crinkle by 1 or by L moves nothing */
    if (m.op == HL_MOVE_DIHEDRAL && pass->nmoves > 0 &&
        pass->move[pass->nmoves - 1].op == HL_MOVE_DIHEDRAL) {
        hl_ir_move *f = &pass->move[pass->nmoves - 1]; /* m after f */
        *f = (hl_ir_move){HL_MOVE_DIHEDRAL, ((m.a + m.e * f->a) % L + L) % L, m.e * f->e};
        if (f->a == 0 && f->e == 1)
            pass->nmoves--;
        return;
    }
    if (m.op != HL_MOVE_DIHEDRAL && pass->nmoves > 0) { /* a crinkle undone */
        const hl_ir_move f = pass->move[pass->nmoves - 1];
        if (f.op != HL_MOVE_DIHEDRAL && f.op != m.op && f.a == m.a) {
            pass->nmoves--;
            return;
        }
    }
    if (m.op == HL_MOVE_DIHEDRAL && m.a == 0 && m.e == 1)
        return;
    pass->move[pass->nmoves++] = m;
}

/* The move that map m makes of the slab at u (inverse: of its inverse). */
static bool map_move(hl_coord_map m, int64_t L, bool inverse, hl_ir_move *out)
{
    switch (m.op) {
    case HL_COORD_FLIP: *out = (hl_ir_move){HL_MOVE_DIHEDRAL, L - 1, -1}; return true;
    case HL_COORD_SHIFT:
        *out = (hl_ir_move){HL_MOVE_DIHEDRAL, inverse ? (L - m.arg % L) % L : m.arg % L, 1};
        return true;
    case HL_COORD_CRINKLE:
        *out = (hl_ir_move){inverse ? HL_MOVE_UNCRINKLE : HL_MOVE_CRINKLE, m.arg, 0};
        return true;
    case HL_COORD_UNCRINKLE:
        *out = (hl_ir_move){inverse ? HL_MOVE_CRINKLE : HL_MOVE_UNCRINKLE, m.arg, 0};
        return true;
    default: return false;
    }
}

/* The moves of dimension i into pass->move: the slab at ps(v) goes to pd(v),
 * so first ps^-1 (the source's flipped stride, then its maps undone last to
 * first), then pd (the destination's maps, then its flipped stride).  False
 * (no moves) for maps of other kinds or too many moves. */
static bool dim_moves(hl_ir_pass *pass, const hl_layout *src, const hl_layout *dst, int i,
                      int64_t lp)
{
    const int64_t L = src->extent[i];
    int64_t ss, ds;
    pass->nmoves = 0;
    if (!one_digit(src, i, lp, &ss) || !one_digit(dst, i, lp, &ds) ||
        src->nmaps[i] + dst->nmaps[i] + 2 > HL_IR_MAX_MOVES)
        return false;
    const hl_ir_move flip = {HL_MOVE_DIHEDRAL, L - 1, -1};
    hl_ir_move m;
    if (ss < 0)
        push_move(pass, L, flip);
    for (int j = src->nmaps[i] - 1; j >= 0; j--) {
        if (!map_move(src->map[i][j], L, true, &m))
            return (pass->nmoves = 0) != 0;
        push_move(pass, L, m);
    }
    for (int j = 0; j < dst->nmaps[i]; j++) {
        if (!map_move(dst->map[i][j], L, false, &m))
            return (pass->nmoves = 0) != 0;
        push_move(pass, L, m);
    }
    if (ds < 0)
        push_move(pass, L, flip);
    return true;
}

/* Whether a pass's moves send every slab where sigma says (slab p
 * receives slab sigma[p]); the moves are dropped otherwise. */
static void check_moves(hl_ir_pass *pass)
{
    for (int64_t p = 0; p < pass->len && pass->nmoves > 0; p++)
        if (hl_ir_move_apply(pass, pass->sigma[p]) != p)
            pass->nmoves = 0;
}

/* The slab of x_i = 0 (one_digit holds): its maps, then a flipped stride. */
static int64_t position0(const hl_layout *lay, int i, int64_t lp)
{
    const int64_t L = lay->extent[i];
    int64_t x = 0, stride;
    (void)one_digit(lay, i, lp, &stride);
    for (int j = 0; j < lay->nmaps[i]; j++)
        x = hl_coord_apply(lay->map[i][j], L, x);
    return stride < 0 ? L - 1 - x : x;
}

/* A long dimension with crinkles: one pass of moves (sigma NULL), its moves
 * checked against the layouts on a sample of positions. */
static hl_status add_moves(hl_ir_pass *pass, int *n, const hl_layout *src, const hl_layout *dst,
                           int i, int64_t lp, int64_t count)
{
    const int64_t L = src->extent[i];
    hl_ir_pass p = {i, L, lp, count / (L * lp), NULL, -1, false, 0, 0, 0, {{0}}};
    if (!dim_moves(&p, src, dst, i, lp))
        return HL_ERR_UNSUPPORTED;
    if (p.nmoves == 0)
        return HL_OK;
    /* positions through the layouts' offsets, relative to x_i = 0, and where
     * the moves send v = 0 */
    int64_t x[HL_MAX_RANK] = {0}, s0, d0, so, dof;
    if (hl_layout_offset(src, x, &s0) != HL_OK || hl_layout_offset(dst, x, &d0) != HL_OK)
        return HL_ERR_UNSUPPORTED;
    const int64_t sp0 = position0(src, i, lp), dp0 = position0(dst, i, lp);
    for (int64_t k = 0; k <= 4096; k++) {
        const int64_t v = k < 2048 ? k % L : (L - 1 - (k - 2048) * 7919 % L + L) % L;
        x[i] = v;
        if (hl_layout_offset(src, x, &so) != HL_OK || hl_layout_offset(dst, x, &dof) != HL_OK)
            return HL_ERR_UNSUPPORTED;
        const int64_t ps = sp0 + (so - s0) / lp, pd = dp0 + (dof - d0) / lp;
        if (ps < 0 || ps >= L || hl_ir_move_apply(&p, ps) != pd)
            return HL_ERR_UNSUPPORTED;
    }
    pass[(*n)++] = p;
    return HL_OK;
}

/* A long dimension: sigma(p) = ps(pd^-1(p)) = g + f p, a reflection (f = -1,
 * one pass) or a rotation (f = +1: two reflections, p -> g - p, then
 * p -> -p). */
static hl_status add_long(hl_ir_pass *pass, int *n, const hl_layout *src, const hl_layout *dst,
                          int i, int64_t lp, int64_t count)
{
    const int64_t L = src->extent[i];
    int64_t a1, e1, a2, e2;
    if (!dihedral(src, i, lp, &a1, &e1) || !dihedral(dst, i, lp, &a2, &e2))
        return HL_ERR_UNSUPPORTED;
    const int64_t f = e1 * e2, g = ((a1 - f * a2) % L + L) % L;
    if (f == 1 && g == 0)
        return HL_OK; /* nothing moves */
    const int64_t consts[2] = {g, 0};
    for (int k = 0; k < (f == 1 ? 2 : 1); k++) {
        /* slab p receives slab (c - p) mod L: the slab at u goes to (c - u) mod L */
        pass[*n] = (hl_ir_pass){i, L, lp, count / (L * lp), NULL, consts[k], false, 0, 0, 1, {{0}}};
        pass[(*n)++].move[0] = (hl_ir_move){HL_MOVE_DIHEDRAL, consts[k], -1};
    }
    return HL_OK;
}

void hl_ir_passes_free(hl_ir_pass *passes, int n)
{
    for (int j = 0; j < n && passes; j++)
        free(passes[j].sigma);
    free(passes);
}

/* A short dimension: sigma from the two position maps, or no pass when
 * nothing moves. */
static hl_status add_short(hl_ir_pass *pass, int *n, const hl_layout *src, const hl_layout *dst,
                           int i, int64_t lp, int64_t count)
{
    const int64_t L = src->extent[i];
    int64_t *ps = malloc(sizeof *ps * (size_t)L), *pd = malloc(sizeof *pd * (size_t)L),
            *sigma = malloc(sizeof *sigma * (size_t)L);
    hl_status st = HL_OK;
    if (!ps || !pd || !sigma) {
        st = HL_ERR_NOMEM;
    } else if (!positions(src, i, lp, ps) || !positions(dst, i, lp, pd)) {
        st = HL_ERR_UNSUPPORTED;
    } else {
        bool moves = false;
        for (int64_t v = 0; v < L; v++) { /* dst slab pd[v] receives src slab ps[v] */
            sigma[pd[v]] = ps[v];
            moves = moves || ps[v] != pd[v];
        }
        if (moves) {
            hl_ir_pass *p = &pass[(*n)++];
            *p = (hl_ir_pass){i, L, lp, count / (L * lp), sigma, -1, false, 0, 0, 0, {{0}}};
            sigma = NULL;
            if (dim_moves(p, src, dst, i, lp))
                check_moves(p);
        }
    }
    free(ps);
    free(pd);
    free(sigma);
    return st;
}

hl_status hl_ir_passes(const hl_layout *src, const hl_layout *dst, bool moves_only,
                       hl_ir_pass **out, int *nout)
{
    *out = NULL;
    *nout = 0;
    if (src->rank != dst->rank)
        return HL_ERR_UNSUPPORTED;
    int64_t smin, dmin;
    hl_layout_bounds(src, &smin, NULL);
    hl_layout_bounds(dst, &dmin, NULL);
    if (smin != 0 || dmin != 0 || !hl_layout_is_bijection(src) || !hl_layout_is_bijection(dst))
        return HL_ERR_UNSUPPORTED;
    /* a rotation of a long dimension takes two passes */
    hl_ir_pass *pass = calloc(2 * (size_t)src->rank, sizeof *pass);
    if (!pass)
        return HL_ERR_NOMEM;
    const int64_t count = hl_layout_count(src);
    int n = 0;
    hl_status st = HL_OK;
    int64_t lp = 1;
    for (int i = 0; i < src->rank && st == HL_OK; lp *= src->extent[i], i++) {
        if (src->extent[i] == 1)
            continue;
        if (src->extent[i] > MAX_LEN) {
            st = add_long(pass, &n, src, dst, i, lp, count);
            if (st == HL_ERR_UNSUPPORTED && moves_only)
                st = add_moves(pass, &n, src, dst, i, lp, count);
        }
        else
            st = add_short(pass, &n, src, dst, i, lp, count);
    }
    if (st != HL_OK) {
        hl_ir_passes_free(pass, n);
        return st;
    }
    *out = pass;
    *nout = n;
    return HL_OK;
}

/* ---- permutations of dimensions ------------------------------------------ */

/* Slabs of at least this many bytes are moved along the cycles of the slab
 * permutation (each move a long memcpy); shorter ones by the executor's
 * transposes, which move rows and bands of columns through buffers. */
#define LONG_SLAB_BYTES 256

/* The dimensions of a layout that is a standard array of its dimensions in
 * some order (one digit each of radix L_i, no maps, no base, the strides the
 * running products): order[0..*r), slowest first, dimensions of extent 1
 * left out. */
static bool dim_order(const hl_layout *lay, int *order, int *r)
{
    if (lay->base != 0)
        return false;
    int64_t stride[HL_MAX_RANK];
    int n = 0;
    for (int i = 0; i < lay->rank; i++) {
        if (lay->nmaps[i] != 0)
            return false;
        int digits = 0;
        for (int t = 0; t < lay->ndigits; t++)
            if (lay->digit[t].dim == i) {
                digits++;
                stride[i] = lay->digit[t].stride;
                if (lay->digit[t].radix != lay->extent[i])
                    return false;
            }
        if (lay->extent[i] == 1)
            continue;
        if (digits != 1)
            return false;
        order[n++] = i;
    }
    for (int a = 1; a < n; a++) /* by stride, largest first */
        for (int b = a; b > 0 && stride[order[b]] > stride[order[b - 1]]; b--) {
            const int t = order[b];
            order[b] = order[b - 1];
            order[b - 1] = t;
        }
    int64_t expect = 1;
    for (int a = n - 1; a >= 0; a--) {
        if (stride[order[a]] != expect)
            return false;
        expect *= lay->extent[order[a]];
    }
    *r = n;
    return true;
}

/* One transpose: [outer][M][K][inner] -> [outer][K][M][inner]; with mid > 1
 * (M = K), [outer][M][mid][K][inner] -> [outer][K][mid][M][inner]. */
typedef struct {
    int64_t outer, m, k, inner, mid;
} swap_t;

static int64_t product(const int64_t *ext, const int *dims, int from, int to)
{
    int64_t p = 1;
    for (int a = from; a < to; a++)
        p *= ext[dims[a]];
    return p;
}

/* Rearranges cur[] into tgt[] by exchanges of two adjacent groups of
 * dimensions, each group as long as the target allows.  From the slow end
 * (fast = false), a target dimension is brought forward over the group before
 * it; from the fast end, a group is moved back behind the rest.  Returns the
 * number of exchanges. */
static int plan_swaps(const int *tgt, const int *cur0, int r, const int64_t *ext, bool fast,
                      swap_t *out)
{
    int cur[HL_MAX_RANK], n = 0;
    memcpy(cur, cur0, sizeof *cur * (size_t)r);
    for (int step = 0; step < r; step++) {
        const int pos = fast ? r - 1 - step : step;
        if (cur[pos] == tgt[pos])
            continue;
        int k = 0;
        while (cur[k] != tgt[pos])
            k++;
        int tmp[HL_MAX_RANK], t = 0;
        if (!fast) { /* cur[pos..k) and the run cur[k..k+len) matching tgt[pos..] swap */
            int len = 1;
            while (k + len < r && cur[k + len] == tgt[pos + len])
                len++;
            out[n++] = (swap_t){product(ext, cur, 0, pos), product(ext, cur, pos, k),
                                product(ext, cur, k, k + len), product(ext, cur, k + len, r)};
            for (int a = 0; a < pos; a++)
                tmp[t++] = cur[a];
            for (int a = k; a < k + len; a++)
                tmp[t++] = cur[a];
            for (int a = pos; a < k; a++)
                tmp[t++] = cur[a];
            for (int a = k + len; a < r; a++)
                tmp[t++] = cur[a];
        } else { /* the run cur(k-len..k] matching tgt(..pos] and cur(k..pos] swap */
            int len = 1;
            while (k - len >= 0 && cur[k - len] == tgt[pos - len])
                len++;
            const int g0 = k - len + 1;
            out[n++] = (swap_t){product(ext, cur, 0, g0), product(ext, cur, g0, k + 1),
                                product(ext, cur, k + 1, pos + 1), product(ext, cur, pos + 1, r)};
            for (int a = 0; a < g0; a++)
                tmp[t++] = cur[a];
            for (int a = k + 1; a <= pos; a++)
                tmp[t++] = cur[a];
            for (int a = g0; a <= k; a++)
                tmp[t++] = cur[a];
            for (int a = pos + 1; a < r; a++)
                tmp[t++] = cur[a];
        }
        memcpy(cur, tmp, sizeof *cur * (size_t)r);
    }
    return n;
}

/* ---- choosing the passes ---------------------------------------------------- */

/* The planner's costs, in passes at the copy's speed: moving whole slabs
 * of 1 KiB and more (requested ahead, as fast as the copy) or transposing a
 * matrix that fits in cache is one pass; square tiles a little more, and
 * when their rows lie other rows apart (an exchange over dimensions between)
 * one and a half (measured 1.7 copies' time on [256,256,256] float32); the
 * row-and-column decomposition is a pass of rows and one or two of bands of
 * columns, which walk the whole height of the matrix in short runs
 * (measured about half the speed). */
static double slab_cost(int64_t bytes) { return bytes >= 1024 ? 1.0 : 1.5; }

static double swap_cost(swap_t w, int64_t es)
{
    const int64_t bytes = w.inner * es, g = hl_gcd64(w.m, w.k);
    if (w.m == 1 || w.k == 1)
        return 0;
    if (w.mid > 1)
        return 1.5;
    if (bytes >= LONG_SLAB_BYTES && w.m * w.k <= MAX_LEN)
        return slab_cost(bytes);
    if (w.m * w.k * bytes <= (1 << 19))
        return 1.0;
    if (w.m == w.k)
        return 1.2;
    if (g > 1 && g * bytes >= LONG_SLAB_BYTES) { /* in blocks (expand, below) */
        const int64_t a = w.m / g, b = w.k / g;
        return swap_cost((swap_t){w.outer * a, g, b, g * w.inner}, es) +
               swap_cost((swap_t){w.outer * a * b, g, g, w.inner}, es) +
               swap_cost((swap_t){w.outer, a, b * g, g * w.inner}, es);
    }
    return g > 1 ? 5.0 : 3.0;
}

/* A step of the chosen sequence: an exchange of two groups of dimensions,
 * or (last) a permutation of the slabs above a common suffix of dimensions:
 * from[] to to[] (np dimensions, slowest first), slabs of `inner` elements. */
typedef struct {
    bool slabs;
    swap_t sw;
    int np;
    int from[HL_MAX_RANK], to[HL_MAX_RANK];
    int64_t inner;
} step_t;

/* The exchange of cur[pos..k) and cur[k2..end) over cur[k..k2) (k == k2:
 * adjacent), and the order after it. */
static swap_t exchange(const int *cur, int r, const int64_t *ext, int pos, int k, int k2, int end, int *next)
{
    int t = 0;
    for (int a = 0; a < pos; a++)
        next[t++] = cur[a];
    for (int a = k2; a < end; a++)
        next[t++] = cur[a];
    for (int a = k; a < k2; a++)
        next[t++] = cur[a];
    for (int a = pos; a < k; a++)
        next[t++] = cur[a];
    for (int a = end; a < r; a++)
        next[t++] = cur[a];
    return (swap_t){product(ext, cur, 0, pos), product(ext, cur, pos, k), product(ext, cur, k2, end),
                    product(ext, cur, end, r), product(ext, cur, k, k2)};
}

/* Whether cur can finish in one pass of slabs: the longest common suffix
 * with tgt makes slabs of at least LONG_SLAB_BYTES and few enough of them
 * to keep a permutation; its length in *t. */
static bool can_finish(const int *cur, const int *tgt, int r, const int64_t *ext, int64_t es, int *t)
{
    int n = 0;
    while (n < r && cur[r - 1 - n] == tgt[r - 1 - n])
        n++;
    *t = n;
    return n < r && product(ext, cur, r - n, r) * es >= LONG_SLAB_BYTES &&
           product(ext, cur, 0, r - n) <= MAX_LEN;
}

enum { SEARCH_RANK = 7 }; /* 7! = 5040 orders at most */

/* Index of an order among the permutations of the source order (Lehmer code). */
static int state_index(const int *cur, const int *pos_of, int r)
{
    int idx = 0;
    for (int a = 0; a < r; a++) {
        int smaller = 0;
        for (int b = a + 1; b < r; b++)
            smaller += pos_of[cur[b]] < pos_of[cur[a]];
        idx = idx * (r - a) + smaller;
    }
    return idx;
}

typedef struct {
    double cost;
    int prev, done;
    int order[SEARCH_RANK];
    step_t how; /* the step that reached it */
} node_t;

/* The cheapest sequence of steps from src order so to tgt (Dijkstra over the
 * orders, r <= SEARCH_RANK): into steps[], count returned; -1 without memory. */
static int search(const int *so, const int *tgt, int r, const int64_t *ext, int64_t es,
                  step_t *steps)
{
    int pos_of[HL_MAX_RANK];
    for (int a = 0; a < r; a++)
        pos_of[so[a]] = a;
    int states = 1; /* r! orders */
    for (int a = 2; a <= r; a++)
        states *= a;
    node_t *node = calloc((size_t)states, sizeof *node);
    if (!node)
        return -1;
    for (int j = 0; j < states; j++)
        node[j].cost = -1;
    const int start = state_index(so, pos_of, r), goal = state_index(tgt, pos_of, r);
    node[start].cost = 0;
    node[start].prev = -1;
    memcpy(node[start].order, so, sizeof *so * (size_t)r);
    for (;;) {
        int u = -1;
        for (int j = 0; j < states; j++)
            if (node[j].cost >= 0 && !node[j].done && (u < 0 || node[j].cost < node[u].cost))
                u = j;
        if (u < 0 || u == goal)
            break;
        node[u].done = 1;
        const int *cur = node[u].order;
        int next[HL_MAX_RANK];
        for (int pos = 0; pos < r; pos++)
            for (int k = pos + 1; k < r; k++)
                for (int k2 = k; k2 < r; k2++)
                    for (int end = k2 + 1; end <= r; end++) {
                        /* groups apart only of equal extent (square matrices) */
                        if (k2 > k && product(ext, cur, pos, k) != product(ext, cur, k2, end))
                            continue;
                        const swap_t w = exchange(cur, r, ext, pos, k, k2, end, next);
                        const double c = node[u].cost + swap_cost(w, es);
                        const int v = state_index(next, pos_of, r);
                        if (!node[v].done && (node[v].cost < 0 || c < node[v].cost)) {
                            node[v].cost = c;
                            node[v].prev = u;
                            memcpy(node[v].order, next, sizeof *next * (size_t)r);
                            node[v].how = (step_t){.slabs = false, .sw = w};
                        }
                    }
        int t;
        if (can_finish(cur, tgt, r, ext, es, &t)) {
            const double c = node[u].cost + slab_cost(product(ext, cur, r - t, r) * es);
            if (node[goal].cost < 0 || c < node[goal].cost) {
                node[goal].cost = c;
                node[goal].prev = u;
                memcpy(node[goal].order, tgt, sizeof *tgt * (size_t)r);
                step_t st = {.slabs = true, .np = r - t, .inner = product(ext, cur, r - t, r)};
                memcpy(st.from, cur, sizeof *cur * (size_t)(r - t));
                memcpy(st.to, tgt, sizeof *tgt * (size_t)(r - t));
                node[goal].how = st;
            }
        }
    }
    int n = 0;
    for (int v = goal; node[v].prev >= 0; v = node[v].prev)
        n++;
    int at = n;
    for (int v = goal; node[v].prev >= 0; v = node[v].prev)
        steps[--at] = node[v].how;
    free(node);
    return n;
}

/* sigma of a permutation of slabs: the slabs indexed by from[] (mixed radix,
 * slowest first) go to the positions indexed by to[]. */
static int64_t *slab_sigma(const step_t *st, const int64_t *ext)
{
    const int64_t count = product(ext, st->from, 0, st->np);
    int64_t *sigma = malloc(sizeof *sigma * (size_t)count);
    if (!sigma)
        return NULL;
    int64_t x[HL_MAX_RANK] = {0}; /* coordinates by logical dimension */
    for (int64_t p = 0; p < count; p++) { /* p: position in to[] order */
        int64_t rest = p;
        for (int a = st->np - 1; a >= 0; a--) {
            x[st->to[a]] = rest % ext[st->to[a]];
            rest /= ext[st->to[a]];
        }
        int64_t q = 0;
        for (int a = 0; a < st->np; a++)
            q = q * ext[st->from[a]] + x[st->from[a]];
        sigma[p] = q;
    }
    return sigma;
}

hl_status hl_ir_transposes(const hl_layout *src, const hl_layout *dst, int64_t es,
                           hl_ir_pass **out, int *nout)
{
    *out = NULL;
    *nout = 0;
    int so[HL_MAX_RANK], dord[HL_MAX_RANK], rs, rd;
    if (src->rank != dst->rank || !dim_order(src, so, &rs) || !dim_order(dst, dord, &rd) || rs != rd)
        return HL_ERR_UNSUPPORTED;
    for (int i = 0; i < src->rank; i++)
        if (src->extent[i] != dst->extent[i])
            return HL_ERR_UNSUPPORTED;
    const int64_t *ext = src->extent;
    step_t chosen[HL_MAX_RANK + 1];
    int nchosen;
    if (rs <= SEARCH_RANK) {
        if ((nchosen = search(so, dord, rs, ext, es, chosen)) < 0)
            return HL_ERR_NOMEM;
    } else { /* too many orders to search: greedy exchanges from either end */
        swap_t slow[HL_MAX_RANK], fast[HL_MAX_RANK];
        const int ns = plan_swaps(dord, so, rs, ext, false, slow);
        const int nf = plan_swaps(dord, so, rs, ext, true, fast);
        double cs = 0, cf = 0;
        for (int j = 0; j < ns; j++)
            cs += swap_cost(slow[j], es);
        for (int j = 0; j < nf; j++)
            cf += swap_cost(fast[j], es);
        nchosen = cf < cs ? nf : ns;
        for (int j = 0; j < nchosen; j++)
            chosen[j] = (step_t){.slabs = false, .sw = cf < cs ? fast[j] : slow[j]};
    }
    /* A transpose of M = a g by K = b g with a large common factor g is
     * three of blocks instead: [a][g][b][g] -> [a][b][g][g] (slabs of g),
     * each g x g block transposed, [a][b g][g] -> [b g][a][g] (slabs of g):
     * moves of whole slabs and transposes of contiguous blocks, where the
     * row-and-column decomposition would walk bands of columns the height
     * of the matrix twice. */
    step_t sw[3 * (HL_MAX_RANK + 1)];
    int n = 0;
    for (int j = 0; j < nchosen; j++) {
        if (chosen[j].slabs) { /* a final permutation of slabs: no exchange to cut */
            sw[n++] = chosen[j];
            continue;
        }
        const swap_t w = chosen[j].sw;
        const int64_t g = hl_gcd64(w.m, w.k), a = w.m / g, b = w.k / g;
        if (g == 1 || w.m == w.k || w.mid > 1 || g * w.inner * es < LONG_SLAB_BYTES ||
            w.m * w.k * w.inner * es <= (1 << 19) ||
            (w.inner * es >= LONG_SLAB_BYTES && w.m * w.k <= MAX_LEN)) {
            sw[n++] = chosen[j];
            continue;
        }
        if (b > 1)
            sw[n++] = (step_t){.sw = {w.outer * a, g, b, g * w.inner}};
        sw[n++] = (step_t){.sw = {w.outer * a * b, g, g, w.inner}};
        if (a > 1)
            sw[n++] = (step_t){.sw = {w.outer, a, b * g, g * w.inner}};
    }
    hl_ir_pass *pass = calloc((size_t)(n > 0 ? n : 1), sizeof *pass);
    if (!pass)
        return HL_ERR_NOMEM;
    for (int j = 0; j < n; j++) {
        const swap_t *w = &sw[j].sw;
        int64_t *sigma = NULL;
        if (sw[j].slabs) {
            const int64_t len = product(ext, sw[j].from, 0, sw[j].np);
            pass[j] = (hl_ir_pass){-1, len, sw[j].inner, 1, NULL, -1, false, 0, 0};
            sigma = slab_sigma(&sw[j], ext);
        } else if (w->mid > 1) {
            pass[j] = (hl_ir_pass){-1, w->m * w->mid * w->k, w->inner, w->outer, NULL, -1, true, w->m, w->k};
            pass[j].mid = w->mid;
            continue;
        } else if (w->inner * es >= LONG_SLAB_BYTES && w->m * w->k <= MAX_LEN) {
            /* a permutation of long slabs: dst slab q * M + p is src slab p * K + q */
            const int64_t len = w->m * w->k;
            pass[j] = (hl_ir_pass){-1, len, w->inner, w->outer, NULL, -1, false, 0, 0};
            if ((sigma = malloc(sizeof *sigma * (size_t)len)))
                for (int64_t q = 0; q < w->k; q++)
                    for (int64_t p = 0; p < w->m; p++)
                        sigma[q * w->m + p] = p * w->k + q;
        } else {
            pass[j] = (hl_ir_pass){-1, w->m * w->k, w->inner, w->outer, NULL, -1, true, w->m, w->k};
            continue;
        }
        if (!sigma) {
            hl_ir_passes_free(pass, j);
            return HL_ERR_NOMEM;
        }
        pass[j].sigma = sigma;
    }
    *out = pass;
    *nout = n;
    return HL_OK;
}
