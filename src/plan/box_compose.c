/* hyperlayout — composing two passes of boxes into one (box_compose.h).
 *
 * A box of pass A is a set of cells, digits a, written to the intermediate
 * at mid = A.dst_base + sum a_t A.dst_stride_t and read from in at an
 * affine offset too.  A box of pass B reads the intermediate at
 * mid = B.src_base + sum b_u B.src_stride_u.  With B's digits sorted by
 * stride s_1 < s_2 < ... and mixed-radix (s_u divides s_(u+1), and
 * s_(u+1) >= s_u * e_u), b follows from mid by a radix split:
 *
 *   V = mid - B.src_base          (V >= 0, V mod s_1 = 0)
 *   b_u = (V / s_u) mod (s_(u+1) / s_u)   (must be < e_u)
 *   b_n = V / s_n                          (must be < e_n)
 *
 * Starting from A's digits, V is affine in them; each radix split keeps it
 * affine by factoring a digit where its stride divides the radix (digit d
 * of extent f*g becomes d mod f and d div f: the common refinement of the
 * two digit structures) and cuts the box where a carry would occur
 * (the radix and threshold cuts of pieces.h, as lower.c uses them: a box of
 * sub-digits and a few affine expressions over them).  The memberships
 * (b_u < e_u, V >= 0, ...) cut off the cells B does not read.  What is left
 * of each pair of boxes is boxes of cells on which in, mid and out are all
 * affine: the composed pass.  Power-of-two tiles, Morton orders, permutes,
 * flips and crinkles of power-of-two extents refine without cuts (one box
 * per pair); shifts cut where their wrap-around crosses a tile. */
#include "box_compose.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pieces.h"

/* The pieces' expressions (pieces.h): the input offset, the intermediate
 * offset V, the output offset; then the two temporaries. */
enum { EX_IN, EX_V, EX_OUT };
#define MAXPIECES 65536  /* pieces of one pair of boxes */
#define MAX_PAIRS (1 << 22) /* pairs of boxes whose ranges are compared (more: unsupported) */
#define MAX_MET (1 << 14)   /* pairs whose ranges meet, composed (more: unsupported), so
                               that planning stays within milliseconds */

/* Keeps the pieces of *l where expression e < T (below) or e >= T. */
static bool keep_where(hl_plist *l, int e, int64_t T, bool below)
{
    hl_plist out = {.most = MAXPIECES};
    for (int64_t t = 0; t < l->n && !out.fail; t++) {
        hl_plist parts = {.most = MAXPIECES};
        hl_piece_threshold(&parts, l->p[t], e, T, 0);
        for (int64_t u = 0; u < parts.n; u++)
            if ((parts.p[u].tag == 0) == below)
                hl_piece_push(&out, &parts.p[u]);
        out.fail |= parts.fail;
        free(parts.p);
    }
    free(l->p);
    *l = out;
    return !out.fail;
}

/* Replaces V by V div R on every piece of *l, T1 = V mod R beside it. */
static bool split(hl_plist *l, int64_t R)
{
    hl_plist out = {.most = MAXPIECES};
    for (int64_t t = 0; t < l->n && !out.fail; t++) {
        hl_plist parts = {.most = MAXPIECES};
        hl_piece_radix(&parts, l->p[t], EX_V, R, 0);
        for (int64_t u = 0; u < parts.n; u++) {
            hl_piece *q = &parts.p[u];
            q->c[EX_V] = (q->c[EX_V] - q->c[HL_PIECE_T1]) / R;
            for (int j = 0; j < q->n; j++)
                q->w[EX_V][j] = (q->w[EX_V][j] - q->w[HL_PIECE_T1][j]) / R;
            hl_piece_push(&out, q);
        }
        out.fail |= parts.fail;
        free(parts.p);
    }
    free(l->p);
    *l = out;
    return !out.fail;
}

/* OUT += stride * expression e, on every piece. */
static void add_out(hl_plist *l, int e, int64_t stride)
{
    for (int64_t t = 0; t < l->n; t++) {
        hl_piece *q = &l->p[t];
        q->c[EX_OUT] += stride * q->c[e];
        for (int j = 0; j < q->n; j++)
            q->w[EX_OUT][j] += stride * q->w[e][j];
    }
}

bool hl_box_by_src(const hl_box *b, hl_box *x)
{
    x->ndigits = 0;
    x->src_base = b->src_base;
    x->dst_base = b->dst_base;
    for (int t = 0; t < b->ndigits; t++) {
        if (b->extent[t] == 1)
            continue;
        int64_t s = b->src_stride[t], d = b->dst_stride[t];
        if (s == 0)
            return false; /* a cell read twice: no refinement */
        if (s < 0) {
            x->src_base += (b->extent[t] - 1) * s;
            x->dst_base += (b->extent[t] - 1) * d;
            s = -s;
            d = -d;
        }
        int u = x->ndigits++;
        for (; u > 0 && x->src_stride[u - 1] > s; u--) {
            x->extent[u] = x->extent[u - 1];
            x->src_stride[u] = x->src_stride[u - 1];
            x->dst_stride[u] = x->dst_stride[u - 1];
        }
        x->extent[u] = b->extent[t];
        x->src_stride[u] = s;
        x->dst_stride[u] = d;
    }
    return true;
}

/* A box of B made ready (hl_box_by_src); false when its digits are not
 * mixed-radix on the src side. */
static bool normalise_b(const hl_box *b, hl_box *x)
{
    if (!hl_box_by_src(b, x))
        return false;
    for (int u = 0; u + 1 < x->ndigits; u++)
        if (x->src_stride[u + 1] % x->src_stride[u] != 0 ||
            x->src_stride[u + 1] / x->src_stride[u] < x->extent[u])
            return false;
    return true;
}

/* Offsets' range of a box on one side. */
static void box_range(const hl_box *b, bool dst, int64_t *lo, int64_t *hi)
{
    int64_t a = dst ? b->dst_base : b->src_base, z = a;
    for (int t = 0; t < b->ndigits; t++) {
        const int64_t r = (b->extent[t] - 1) * (dst ? b->dst_stride[t] : b->src_stride[t]);
        *(r < 0 ? &a : &z) += r;
    }
    *lo = a;
    *hi = z;
}

/* The pieces of box a (of A) that box x (of B, normalised) reads, with
 * their in and out offsets; false when they do not refine. */
static bool compose_pair(const hl_box *a, const hl_box *x, hl_plist *l)
{
    hl_piece p;
    memset(&p, 0, sizeof p);
    for (int t = 0; t < a->ndigits; t++) {
        if (a->extent[t] == 1)
            continue;
        if (p.n == HL_PIECE_SUBS)
            return false;
        p.ext[p.n] = a->extent[t];
        p.w[EX_IN][p.n] = a->src_stride[t];
        p.w[EX_V][p.n] = a->dst_stride[t];
        p.n++;
    }
    p.c[EX_IN] = a->src_base;
    p.c[EX_V] = a->dst_base - x->src_base;
    p.c[EX_OUT] = x->dst_base;
    l->n = 0;
    l->fail = false;
    hl_piece_push(l, &p);
    if (!keep_where(l, EX_V, 0, false))
        return false;
    if (x->ndigits == 0) /* one cell, V = 0 */
        return keep_where(l, EX_V, 1, true);
    const int n = x->ndigits;
    if (x->src_stride[0] > 1) { /* V mod s_1 = 0, then V / s_1 */
        if (!split(l, x->src_stride[0]) || !keep_where(l, HL_PIECE_T1, 1, true))
            return false;
    }
    for (int u = 0; u < n && l->n > 0; u++) {
        if (u + 1 < n) {
            const int64_t R = x->src_stride[u + 1] / x->src_stride[u];
            if (!split(l, R) || (R > x->extent[u] && !keep_where(l, HL_PIECE_T1, x->extent[u], true)))
                return false;
            add_out(l, HL_PIECE_T1, x->dst_stride[u]);
        } else {
            if (!keep_where(l, EX_V, x->extent[u], true))
                return false;
            add_out(l, EX_V, x->dst_stride[u]);
        }
    }
    return true;
}

/* What compose and meet share: the boxes of b's cells that a writes, in the
 * order of b's boxes (then a's, then the pieces of each pair), each with
 * the index of its box of b when tags is not NULL; `whole`: every cell of
 * b must be one a writes, and the pairs compared are bounded (planning
 * stays within milliseconds). */
static hl_status meet(const hl_box *a, int64_t na, const hl_box *b, int64_t nb, int64_t max_boxes,
                      bool whole, hl_box **boxes, int64_t **tags, int64_t *nboxes)
{
    *boxes = NULL;
    *nboxes = 0;
    if (tags)
        *tags = NULL;
    if (whole && na > 0 && nb > MAX_PAIRS / na)
        return HL_ERR_UNSUPPORTED;
    /* A's boxes' intermediate ranges, to skip pairs that cannot meet */
    int64_t(*arange)[2] = malloc(sizeof *arange * (size_t)(na > 0 ? na : 1));
    if (!arange)
        return HL_ERR_NOMEM;
    for (int64_t i = 0; i < na; i++)
        box_range(&a[i], true, &arange[i][0], &arange[i][1]);
    hl_status st = HL_OK;
    hl_box *out = NULL;
    int64_t *tag = NULL;
    int64_t n = 0, cap = 0, want = 0, got = 0, met = 0;
    hl_plist l = {.most = MAXPIECES};
    for (int64_t j = 0; j < nb && st == HL_OK; j++) {
        hl_box x;
        if (!normalise_b(&b[j], &x)) {
            st = HL_ERR_UNSUPPORTED;
            break;
        }
        want += hl_box_cells(&x);
        int64_t lo, hi;
        box_range(&x, false, &lo, &hi);
        for (int64_t i = 0; i < na && st == HL_OK; i++) {
            if (arange[i][1] < lo || arange[i][0] > hi)
                continue;
            if (whole && ++met > MAX_MET) {
                st = HL_ERR_UNSUPPORTED;
                break;
            }
            if (!compose_pair(&a[i], &x, &l)) {
                st = HL_ERR_UNSUPPORTED;
                break;
            }
            for (int64_t t = 0; t < l.n && st == HL_OK; t++) {
                const hl_piece *q = &l.p[t];
                if (n == max_boxes) {
                    st = HL_ERR_UNSUPPORTED;
                    break;
                }
                if (n == cap) {
                    const int64_t c2 = cap ? 2 * cap : 16;
                    hl_box *grown = realloc(out, sizeof *grown * (size_t)c2);
                    int64_t *more = tags ? realloc(tag, sizeof *more * (size_t)c2) : NULL;
                    if (grown)
                        out = grown;
                    if (more)
                        tag = more;
                    if (!grown || (tags && !more)) {
                        st = HL_ERR_NOMEM;
                        break;
                    }
                    cap = c2;
                }
                if (tags)
                    tag[n] = j;
                hl_box *y = &out[n++];
                y->ndigits = 0;
                y->src_base = q->c[EX_IN];
                y->dst_base = q->c[EX_OUT];
                int64_t cells = 1;
                for (int d = 0; d < q->n; d++) {
                    if (q->ext[d] == 1)
                        continue;
                    y->extent[y->ndigits] = q->ext[d];
                    y->src_stride[y->ndigits] = q->w[EX_IN][d];
                    y->dst_stride[y->ndigits] = q->w[EX_OUT][d];
                    y->ndigits++;
                    cells *= q->ext[d];
                }
                got += cells;
            }
        }
    }
    free(l.p);
    free(arange);
    if (st == HL_OK && whole && got != want)
        st = HL_ERR_UNSUPPORTED; /* B reads cells A does not write */
    if (st != HL_OK) {
        free(out);
        free(tag);
        return st;
    }
    *boxes = out;
    *nboxes = n;
    if (tags)
        *tags = tag;
    return HL_OK;
}

hl_status hl_box_compose(const hl_box *a, int64_t na, const hl_box *b, int64_t nb,
                         int64_t max_boxes, hl_box **boxes, int64_t *nboxes)
{
    return meet(a, na, b, nb, max_boxes, true, boxes, NULL, nboxes);
}

hl_status hl_box_meet(const hl_box *a, int64_t na, const hl_box *b, int64_t nb, int64_t max_boxes,
                      hl_box **boxes, int64_t **tags, int64_t *nboxes)
{
    return meet(a, na, b, nb, max_boxes, false, boxes, tags, nboxes);
}

int64_t hl_box_inner_bytes(const hl_box *b, int64_t elem_size, bool *row)
{
    int ss = -1, ds = -1; /* the digits of stride +-1 on each side */
    for (int t = 0; t < b->ndigits; t++) {
        if (b->extent[t] < 2)
            continue;
        if (b->src_stride[t] == 1 || b->src_stride[t] == -1)
            ss = t;
        if (b->dst_stride[t] == 1 || b->dst_stride[t] == -1)
            ds = t;
    }
    *row = false;
    if (hl_box_cells(b) == 1)
        return *row = true, elem_size; /* one cell: nothing to walk */
    if (ss < 0 || ds < 0)
        return 0;
    if (ss != ds)
        return b->extent[ss] * b->extent[ds] * elem_size;
    if (b->src_stride[ss] != b->dst_stride[ss])
        return 0; /* backwards on one side */
    *row = true;
    int64_t run = b->extent[ss];
    for (bool grew = true; grew;) { /* the digits that continue it on both sides */
        grew = false;
        for (int t = 0; t < b->ndigits; t++)
            if (b->extent[t] > 1 && b->src_stride[t] == run * b->src_stride[ss] &&
                b->dst_stride[t] == run * b->dst_stride[ss]) {
                run *= b->extent[t];
                grew = true;
                break;
            }
    }
    return run * elem_size;
}
