/* hyperlayout — lowering a plan step to affine boxes.
 *
 * Every layout is, per logical dimension, a pipeline of coordinate maps
 * followed by a mixed-radix split into digits, so the lowering works one
 * dimension at a time.  The coordinate x_i in [0, L_i) is described by
 * "pieces": each piece is a box of sub-digits and a few affine expressions
 * over them (x itself, the value V being pushed through a pipeline, the src
 * and dst offsets, two temporaries).  Pushing V through a map or a radix
 * split cuts pieces where the result would not be affine:
 *
 *   flip          V -> L-1-V                       (no cut)
 *   shift a       V+a or V+a-L                     (cut where V >= L-a)
 *   radix R       V mod R and V div R              (sub-digits factored at R,
 *                                                   cut where a carry occurs)
 *   crinkle n     radix n, then cut where r >= L mod n (no cut when only
 *                 the last group is short)
 *   uncrinkle n   cut at the first short group, then radix len+1 or len
 *   offset a      V+a                              (no cut; the maps after it
 *                                                   act on [0, span))
 *
 * After both layouts have been pushed through, each piece's src and dst
 * offsets are affine in its sub-digits; the boxes of the plan are the
 * products of one piece per dimension. */
#include "lower.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "coord.h"

enum { EX_X, EX_V, EX_OS, EX_OD, EX_T1, EX_T2, NEX };
#define MAXSUB 24
#define MAXPIECES 4096

typedef struct piece {
    int n;
    int tag;
    int64_t ext[MAXSUB];
    int64_t c[NEX];
    int64_t w[NEX][MAXSUB];
} piece;

typedef struct plist {
    piece *p;
    int64_t n, cap;
    bool fail;
} plist;

static void push(plist *l, const piece *p)
{
    if (l->fail)
        return;
    if (l->n == l->cap) {
        int64_t cap = l->cap ? 2 * l->cap : 16;
        piece *np = cap > MAXPIECES ? NULL : realloc(l->p, sizeof *np * (size_t)cap);
        if (!np) {
            l->fail = true;
            return;
        }
        l->p = np;
        l->cap = cap;
    }
    l->p[l->n++] = *p;
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static int64_t ceil_div(int64_t a, int64_t b)
{
    return -floor_div(-a, b);
}

/* Range of expression e over the piece. */
static void range(const piece *p, int e, int64_t *lo, int64_t *hi)
{
    int64_t a = p->c[e], b = p->c[e];
    for (int j = 0; j < p->n; j++) {
        int64_t r = p->w[e][j] * (p->ext[j] - 1);
        if (r < 0)
            a += r;
        else
            b += r;
    }
    *lo = a;
    *hi = b;
}

/* Relabels sub-digit j as ext-1-d, which negates its weights. */
static void reverse_sub(piece *p, int j)
{
    for (int k = 0; k < NEX; k++) {
        p->c[k] += p->w[k][j] * (p->ext[j] - 1);
        p->w[k][j] = -p->w[k][j];
    }
}

static void make_positive(piece *p, int e)
{
    for (int j = 0; j < p->n; j++)
        if (p->w[e][j] < 0)
            reverse_sub(p, j);
}

/* The part of p with sub-digit j in [start, start+len). */
static piece sub_range(const piece *p, int j, int64_t start, int64_t len)
{
    piece q = *p;
    q.ext[j] = len;
    for (int k = 0; k < NEX; k++)
        q.c[k] += start * p->w[k][j];
    return q;
}

/* Splits sub-digit j (extent f*g) into a low digit of extent f and a high
 * one of extent g. */
static bool factor(piece *p, int j, int64_t f)
{
    if (p->n == MAXSUB)
        return false;
    int h = p->n++;
    p->ext[h] = p->ext[j] / f;
    p->ext[j] = f;
    for (int k = 0; k < NEX; k++)
        p->w[k][h] = p->w[k][j] * f;
    return true;
}

/* dst = a*x + b*y + k, over constants and weights. */
static void combine(piece *p, int dst, int64_t a, int x, int64_t b, int y, int64_t k)
{
    p->c[dst] = a * p->c[x] + b * p->c[y] + k;
    for (int j = 0; j < p->n; j++)
        p->w[dst][j] = a * p->w[x][j] + b * p->w[y][j];
}

/* Appends the pieces of p tagged 0 where expression e < T and 1 where not. */
static void threshold(plist *out, piece p, int e, int64_t T, int depth)
{
    make_positive(&p, e);
    int64_t lo, hi;
    range(&p, e, &lo, &hi);
    if (hi < T || lo >= T) {
        p.tag = lo >= T;
        push(out, &p);
        return;
    }
    if (depth > MAXSUB) {
        out->fail = true;
        return;
    }
    int j = -1;
    int64_t reach = -1;
    for (int t = 0; t < p.n; t++) {
        int64_t r = p.w[e][t] * (p.ext[t] - 1);
        if (r > reach) {
            reach = r;
            j = t;
        }
    }
    const int64_t w = p.w[e][j], ext = p.ext[j];
    /* d < a: below whatever the rest is; d >= b: above whatever it is */
    int64_t a = ceil_div(T - (hi - reach), w), b = ceil_div(T - lo, w);
    a = a < 0 ? 0 : a > ext ? ext : a;
    b = b < a ? a : b > ext ? ext : b;
    if (a > 0) {
        piece q = sub_range(&p, j, 0, a);
        q.tag = 0;
        push(out, &q);
    }
    for (int64_t d = a; d < b && !out->fail; d++)
        threshold(out, sub_range(&p, j, d, 1), e, T, depth + 1);
    if (b < ext) {
        piece q = sub_range(&p, j, b, ext - b);
        q.tag = 1;
        push(out, &q);
    }
}

/* Appends the pieces of p on which EX_T1 = (e mod R) is affine, for e >= 0
 * (the quotient then follows from e and T1: see split_v).  Past a depth of
 * RADIX_DEPTH cuts it fails (the plan then runs cell by cell): some
 * compositions of radices that share no factor cut without end, and the
 * stack overflowed (uncrinkle:0:9 then crinkle:0:7 of [206180]). */
enum { RADIX_DEPTH = 64 };
static void radix(plist *out, piece p, int e, int64_t R, int depth)
{
    if (depth > RADIX_DEPTH) {
        out->fail = true;
        return;
    }
    make_positive(&p, e);
    for (int j = 0; j < p.n; j++) {
        int64_t w = p.w[e][j], ext = p.ext[j];
        if (ext == 1 || w == 0 || w % R == 0 || w * (ext - 1) < R || R % w != 0)
            continue;
        /* d*w crosses multiples of R: factor d into (d mod f, d div f) */
        int64_t f = R / w, tail = ext % f;
        if (tail) {
            radix(out, sub_range(&p, j, 0, ext - tail), e, R, depth + 1);
            radix(out, sub_range(&p, j, ext - tail, tail), e, R, depth + 1);
            return;
        }
        if (!factor(&p, j, f)) {
            out->fail = true;
            return;
        }
    }
    /* the sum of the remainders: e mod R unless it reaches R (a carry) */
    p.c[EX_T1] = p.c[e] - floor_div(p.c[e], R) * R;
    for (int j = 0; j < p.n; j++)
        p.w[EX_T1][j] = p.w[e][j] % R;
    int64_t lo, hi;
    range(&p, EX_T1, &lo, &hi);
    if (hi < R) {
        push(out, &p);
        return;
    }
    /* where the low part reaches R, take R off it; it may still reach R */
    plist parts = {0};
    threshold(&parts, p, EX_T1, R, 0);
    for (int64_t t = 0; t < parts.n && !parts.fail; t++) {
        piece q = parts.p[t];
        if (q.tag) {
            q.c[EX_T1] -= R;
            radix(out, q, EX_T1, R, depth + 1);
        } else {
            push(out, &q);
        }
    }
    out->fail |= parts.fail;
    free(parts.p);
}

/* Runs fn on every piece of *l, replacing *l by what it appends. */
typedef void (*piece_fn)(plist *out, piece p, const void *arg);

static bool each(plist *l, piece_fn fn, const void *arg)
{
    plist out = {0};
    for (int64_t t = 0; t < l->n && !out.fail; t++)
        fn(&out, l->p[t], arg);
    free(l->p);
    *l = out;
    return !out.fail;
}

/* A crinkle by n of L cells makes n groups: r < rem of len+1 cells, the
 * others of len.  Groups from `short_from` on are the short ones; when only
 * the last is short (rem = n-1: every odd extent crinkled by 2) every group
 * still starts at r*(len+1), so short_from is n and nothing is cut there
 * (three pieces per dimension had made the boxes of [255,257,256] four
 * times as many, each reading every other row). */
typedef struct {
    int64_t L, a, n, len, rem, short_from, split;
} step_arg;

static void do_shift(plist *out, piece p, const void *arg)
{
    const step_arg *s = arg;
    plist parts = {0};
    threshold(&parts, p, EX_V, s->L - s->a, 0);
    for (int64_t t = 0; t < parts.n; t++) {
        parts.p[t].c[EX_V] += s->a - (parts.p[t].tag ? s->L : 0);
        push(out, &parts.p[t]);
    }
    out->fail |= parts.fail;
    free(parts.p);
}

/* Radix split of V into T1 = V mod R and T2 = V div R = (V - T1) / R. */
static void split_v(plist *out, piece p, int64_t R)
{
    plist parts = {0};
    radix(&parts, p, EX_V, R, 0);
    for (int64_t t = 0; t < parts.n; t++) {
        piece *q = &parts.p[t];
        q->c[EX_T2] = (q->c[EX_V] - q->c[EX_T1]) / R;
        for (int j = 0; j < q->n; j++)
            q->w[EX_T2][j] = (q->w[EX_V][j] - q->w[EX_T1][j]) / R;
        push(out, q);
    }
    out->fail |= parts.fail;
    free(parts.p);
}

static void do_crinkle(plist *out, piece p, const void *arg)
{
    const step_arg *s = arg;
    plist rq = {0}, parts = {0};
    split_v(&rq, p, s->n); /* r = T1, q = T2 */
    for (int64_t t = 0; t < rq.n; t++)
        threshold(&parts, rq.p[t], EX_T1, s->short_from, 0);
    for (int64_t t = 0; t < parts.n; t++) {
        piece *q = &parts.p[t];
        if (!q->tag) /* r < short_from: groups start at r*(len+1) */
            combine(q, EX_V, s->len + 1, EX_T1, 1, EX_T2, 0);
        else
            combine(q, EX_V, s->len, EX_T1, 1, EX_T2, s->rem);
        push(out, q);
    }
    out->fail |= rq.fail || parts.fail;
    free(rq.p);
    free(parts.p);
}

static void do_uncrinkle(plist *out, piece p, const void *arg)
{
    const step_arg *s = arg;
    plist parts = {0};
    threshold(&parts, p, EX_V, s->split, 0);
    for (int64_t t = 0; t < parts.n && !out->fail; t++) {
        piece q = parts.p[t];
        plist rq = {0};
        if (!q.tag) {
            split_v(&rq, q, s->len + 1); /* q = T1 (position in group), r = T2 */
        } else {
            q.c[EX_V] -= s->split;
            split_v(&rq, q, s->len);
        }
        for (int64_t u = 0; u < rq.n; u++) {
            combine(&rq.p[u], EX_V, s->n, EX_T1, 1, EX_T2, q.tag ? s->rem : 0);
            push(out, &rq.p[u]);
        }
        out->fail |= rq.fail;
        free(rq.p);
    }
    out->fail |= parts.fail;
    free(parts.p);
}

/* One digit of a layout: OFF += (V mod R) * stride, V = V div R (the last
 * digit of a dimension takes V whole). */
typedef struct {
    int64_t radix, stride;
    int off;
    bool last;
} digit_arg;

static void do_digit(plist *out, piece p, const void *arg)
{
    const digit_arg *g = arg;
    if (g->last) {
        combine(&p, g->off, 1, g->off, g->stride, EX_V, 0);
        push(out, &p);
        return;
    }
    plist parts = {0};
    split_v(&parts, p, g->radix);
    for (int64_t t = 0; t < parts.n; t++) {
        piece *q = &parts.p[t];
        combine(q, g->off, 1, g->off, g->stride, EX_T1, 0);
        combine(q, EX_V, 1, EX_T2, 0, EX_T2, 0);
        push(out, q);
    }
    out->fail |= parts.fail;
    free(parts.p);
}

static void do_flip(plist *out, piece p, const void *arg)
{
    const step_arg *s = arg;
    p.c[EX_V] = s->L - 1 - p.c[EX_V];
    for (int j = 0; j < p.n; j++)
        p.w[EX_V][j] = -p.w[EX_V][j];
    push(out, &p);
}

static void do_start(plist *out, piece p, const void *arg)
{
    (void)arg;
    combine(&p, EX_V, 1, EX_X, 0, EX_X, 0);
    push(out, &p);
}

static void do_offset(plist *out, piece p, const void *arg)
{
    const step_arg *s = arg;
    p.c[EX_V] += s->a;
    push(out, &p);
}

/* The piece function of each coordinate op. */
static const piece_fn map_piece[HL_COORD_COUNT] = {
    [HL_COORD_FLIP] = do_flip,         [HL_COORD_SHIFT] = do_shift,
    [HL_COORD_CRINKLE] = do_crinkle,   [HL_COORD_UNCRINKLE] = do_uncrinkle,
    [HL_COORD_OFFSET] = do_offset,
};

/* Pushes dimension i of layout lay through the pieces, adding its digits'
 * contributions to expression off. */
static bool push_layout(plist *l, const hl_layout *lay, int i, int off)
{
    int64_t L = lay->extent[i];
    bool ok = each(l, do_start, NULL);
    for (int m = 0; m < lay->nmaps[i] && ok; m++) {
        const hl_coord_map map = lay->map[i][m];
        step_arg s = {.L = L, .a = map.arg, .n = map.arg};
        if (map.arg > 0) { /* the crinkles' groups (unused by the other ops) */
            s.len = L / map.arg;
            s.rem = L % map.arg;
            s.short_from = s.rem == map.arg - 1 ? map.arg : s.rem;
            s.split = s.short_from * (s.len + 1);
        }
        ok = each(l, map_piece[map.op], &s);
        L = hl_coord_table[map.op].after(map, L);
    }
    int last = -1;
    for (int t = 0; t < lay->ndigits; t++)
        if (lay->digit[t].dim == i)
            last = t;
    for (int t = 0; t < lay->ndigits && ok; t++) {
        if (lay->digit[t].dim != i)
            continue;
        digit_arg g = {lay->digit[t].radix, lay->digit[t].stride, off, t == last};
        ok = each(l, do_digit, &g);
    }
    return ok;
}

hl_status hl_lower(const hl_layout *src, const hl_layout *dst, int64_t max_boxes, hl_box **boxes,
                   int64_t *nboxes)
{
    const int rank = src->rank;
    plist dims[HL_MAX_RANK] = {{0}};
    hl_status st = HL_OK;
    int64_t total = 1;
    for (int i = 0; i < rank && st == HL_OK; i++) {
        piece p;
        memset(&p, 0, sizeof p);
        p.n = 1;
        p.ext[0] = src->extent[i];
        p.w[EX_X][0] = 1;
        push(&dims[i], &p);
        if (!push_layout(&dims[i], src, i, EX_OS) || !push_layout(&dims[i], dst, i, EX_OD))
            st = HL_ERR_UNSUPPORTED;
        else if (total > max_boxes / dims[i].n)
            st = HL_ERR_UNSUPPORTED;
        else
            total *= dims[i].n;
    }
    hl_box *b = NULL;
    if (st == HL_OK && !(b = malloc(sizeof *b * (size_t)total)))
        st = HL_ERR_NOMEM;
    int64_t at[HL_MAX_RANK] = {0};
    for (int64_t t = 0; st == HL_OK && t < total; t++) {
        hl_box *x = &b[t];
        x->ndigits = 0;
        x->src_base = src->base;
        x->dst_base = dst->base;
        for (int i = 0; i < rank && st == HL_OK; i++) {
            const piece *p = &dims[i].p[at[i]];
            x->src_base += p->c[EX_OS];
            x->dst_base += p->c[EX_OD];
            for (int j = 0; j < p->n; j++) {
                if (p->ext[j] == 1)
                    continue;
                if (x->ndigits == HL_BOX_MAX_DIGITS) {
                    st = HL_ERR_UNSUPPORTED;
                    break;
                }
                x->extent[x->ndigits] = p->ext[j];
                x->src_stride[x->ndigits] = p->w[EX_OS][j];
                x->dst_stride[x->ndigits] = p->w[EX_OD][j];
                x->ndigits++;
            }
        }
        for (int i = 0; i < rank && ++at[i] == dims[i].n; i++)
            at[i] = 0;
    }
    for (int i = 0; i < rank; i++)
        free(dims[i].p);
    if (st != HL_OK) {
        free(b);
        return st;
    }
    *boxes = b;
    *nboxes = total;
    return HL_OK;
}
