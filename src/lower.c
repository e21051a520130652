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
 *   reverse       V -> L-1-V                       (no cut)
 *   rotate a      V+a or V+a-L                     (cut where V >= L-a)
 *   radix R       V mod R and V div R              (sub-digits factored at R,
 *                                                   cut where a carry occurs)
 *   crinkle n     radix n, then cut where r >= L mod n
 *   uncrinkle n   cut at the first short group, then radix len+1 or len
 *
 * After both layouts have been pushed through, each piece's src and dst
 * offsets are affine in its sub-digits; the boxes of the plan are the
 * products of one piece per dimension. */
#include "lower.h"

#include <omp.h>
#include <stdbool.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <stdlib.h>
#include <string.h>

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
 * (the quotient then follows from e and T1: see split_v). */
static void radix(plist *out, piece p, int e, int64_t R)
{
    make_positive(&p, e);
    for (int j = 0; j < p.n; j++) {
        int64_t w = p.w[e][j], ext = p.ext[j];
        if (ext == 1 || w == 0 || w % R == 0 || w * (ext - 1) < R || R % w != 0)
            continue;
        /* d*w crosses multiples of R: factor d into (d mod f, d div f) */
        int64_t f = R / w, tail = ext % f;
        if (tail) {
            radix(out, sub_range(&p, j, 0, ext - tail), e, R);
            radix(out, sub_range(&p, j, ext - tail, tail), e, R);
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
            radix(out, q, EX_T1, R);
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

typedef struct {
    int64_t L, a, n, len, rem, split;
} step_arg;

static void do_rotate(plist *out, piece p, const void *arg)
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
    radix(&parts, p, EX_V, R);
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
        threshold(&parts, rq.p[t], EX_T1, s->rem ? s->rem : s->n, 0);
    for (int64_t t = 0; t < parts.n; t++) {
        piece *q = &parts.p[t];
        if (!q->tag) /* r < rem: groups of len+1 */
            combine(q, EX_V, s->len + (s->rem ? 1 : 0), EX_T1, 1, EX_T2, 0);
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

static void do_reverse(plist *out, piece p, const void *arg)
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

/* Pushes dimension i of layout lay through the pieces, adding its digits'
 * contributions to expression off. */
static bool push_layout(plist *l, const hl_layout *lay, int i, int off)
{
    const int64_t L = lay->extent[i];
    bool ok = each(l, do_start, NULL);
    for (int m = 0; m < lay->nmaps[i] && ok; m++) {
        const hl_coord_map map = lay->map[i][m];
        step_arg s = {.L = L, .a = map.arg, .n = map.arg};
        if (map.op == HL_COORD_CRINKLE || map.op == HL_COORD_UNCRINKLE) {
            s.len = L / map.arg;
            s.rem = L % map.arg;
            s.split = s.rem * (s.len + 1);
        }
        switch (map.op) {
        case HL_COORD_REVERSE: ok = each(l, do_reverse, &s); break;
        case HL_COORD_ROTATE: ok = each(l, do_rotate, &s); break;
        case HL_COORD_CRINKLE: ok = each(l, do_crinkle, &s); break;
        case HL_COORD_UNCRINKLE: ok = each(l, do_uncrinkle, &s); break;
        }
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

/* ---- the copy kernel -------------------------------------------------------- */

static int64_t abs64(int64_t v) { return v < 0 ? -v : v; }

/* A row: n elements, strides ds (out) and ss (in), in elements. */
#define ROW_LOOP(T)                                                                                \
    do {                                                                                           \
        T *o = (T *)(void *)out;                                                                   \
        const T *s = (const T *)(const void *)in;                                                  \
        if (ds == 1 && ss == 1)                                                                    \
            for (int64_t i = 0; i < n; i++)                                                        \
                o[i] = s[i];                                                                       \
        else if (ds == 1 && ss == -1)                                                              \
            for (int64_t i = 0; i < n; i++)                                                        \
                o[i] = s[-i];                                                                      \
        else if (ds == 1)                                                                          \
            for (int64_t i = 0; i < n; i++)                                                        \
                o[i] = s[i * ss];                                                                  \
        else                                                                                       \
            for (int64_t i = 0; i < n; i++)                                                        \
                o[i * ds] = s[i * ss];                                                             \
    } while (0)

typedef struct {
    uint64_t lo, hi;
} hl_u128_pair;

static void copy_row(char *out, const char *in, int64_t n, int64_t ds, int64_t ss, int64_t es)
{
    switch (es) {
    case 1: ROW_LOOP(uint8_t); break;
    case 2: ROW_LOOP(uint16_t); break;
    case 4: ROW_LOOP(uint32_t); break;
    case 8: ROW_LOOP(uint64_t); break;
    case 16: ROW_LOOP(hl_u128_pair); break;
    default:
        for (int64_t i = 0; i < n; i++)
            memcpy(out + i * ds * es, in + i * ss * es, (size_t)es);
    }
}

/* Rows written with non-temporal stores (large outputs only: they bypass the
 * cache, so a write does not first read its line, as memcpy does for big
 * copies).  The row is gathered in chunks into an L1-resident buffer by the
 * plain loops above, then streamed out 16 bytes at a time. */
static void stream_row(char *out, const char *in, int64_t n, int64_t ss, int64_t es)
{
#if defined(__SSE2__)
    enum { CHUNK = 2048 };
    _Alignas(64) char buf[CHUNK];
    /* elements up to a 16-byte boundary of out, with plain stores */
    int64_t head = 0;
    while (head < n && ((uintptr_t)(out + head * es) & 15) != 0)
        head++;
    if (head == n || (es & (es - 1)) != 0 || es > 16) {
        copy_row(out, in, n, 1, ss, es);
        return;
    }
    copy_row(out, in, head, 1, ss, es);
    int64_t i = head;
    const int64_t per = CHUNK / es, vec = 16 / es; /* whole 16-byte stores */
    while (n - i >= vec) {
        int64_t m = n - i < per ? (n - i) / vec * vec : per;
        const char *src = in + i * ss * es;
        const char *from = src;
        if (ss != 1) {
            copy_row(buf, src, m, 1, ss, es);
            from = buf;
        }
        __m128i *dst = (__m128i *)(void *)(out + i * es);
        for (int64_t b = 0; b < m * es / 16; b++)
            _mm_stream_si128(dst + b, _mm_loadu_si128((const __m128i *)(const void *)(from + 16 * b)));
        i += m;
    }
    copy_row(out + i * es, in + i * ss * es, n - i, 1, ss, es);
#else
    copy_row(out, in, n, 1, ss, es);
#endif
}

/* A box prepared for the kernel: the digits sorted with the dst-contiguous
 * one innermost and, when another digit is src-contiguous, that one second
 * (the two are then copied in square tiles, so that both sides stay in
 * cache). */
enum { BLOCK_MAX = 1024 };

typedef struct {
    int n;
    int64_t ext[HL_BOX_MAX_DIGITS], ss[HL_BOX_MAX_DIGITS], ds[HL_BOX_MAX_DIGITS];
    bool tiled;   /* digits 0 and 1 form a transpose */
    int blocked;  /* > 0: digits 0..blocked-1 form one block of `block`
                     cells, read at src offsets table[] and written at dst
                     offsets dtable[] (at 0, 1, 2, ... when dense) */
    bool dense;
    int64_t block;
    int64_t table[BLOCK_MAX], dtable[BLOCK_MAX];
} prepared;

static void prepare(const hl_box *b, prepared *p)
{
    p->n = 0;
    for (int t = 0; t < b->ndigits; t++) {
        int k = p->n++;
        p->ext[k] = b->extent[t];
        p->ss[k] = b->src_stride[t];
        p->ds[k] = b->dst_stride[t];
    }
    /* sort by |dst stride|, then merge digits that continue each other */
    for (int a = 1; a < p->n; a++)
        for (int c = a; c > 0 && abs64(p->ds[c - 1]) > abs64(p->ds[c]); c--) {
            int64_t t;
            t = p->ext[c], p->ext[c] = p->ext[c - 1], p->ext[c - 1] = t;
            t = p->ss[c], p->ss[c] = p->ss[c - 1], p->ss[c - 1] = t;
            t = p->ds[c], p->ds[c] = p->ds[c - 1], p->ds[c - 1] = t;
        }
    int m = 0;
    for (int t = 0; t < p->n; t++) {
        if (m > 0 && p->ds[t] == p->ds[m - 1] * p->ext[m - 1] && p->ss[t] == p->ss[m - 1] * p->ext[m - 1]) {
            p->ext[m - 1] *= p->ext[t];
            continue;
        }
        p->ext[m] = p->ext[t];
        p->ss[m] = p->ss[t];
        p->ds[m] = p->ds[t];
        m++;
    }
    p->n = m;
    p->tiled = false;
    p->blocked = 0;
    /* short rows (tiles, Morton bits, small extents): the innermost digits
     * up to BLOCK_MAX cells are copied as one block through tables of
     * offsets, and the digit reading most contiguously goes right after
     * them, so that consecutive blocks reuse the same source lines */
    if (p->n >= 2 && p->ext[0] < 64) {
        int k = 0;
        int64_t len = 1;
        while (k < p->n && len * p->ext[k] <= BLOCK_MAX) {
            len *= p->ext[k];
            k++;
        }
        if (k >= 2 || (k == 1 && p->n > 1)) {
            p->blocked = k;
            p->block = len;
            p->dense = true;
            int64_t d[HL_BOX_MAX_DIGITS] = {0}, so = 0, dof = 0;
            for (int64_t j = 0; j < len; j++) {
                p->table[j] = so;
                p->dtable[j] = dof;
                p->dense = p->dense && dof == j;
                for (int t = 0; t < k; t++) {
                    so += p->ss[t];
                    dof += p->ds[t];
                    if (++d[t] < p->ext[t])
                        break;
                    so -= p->ss[t] * p->ext[t];
                    dof -= p->ds[t] * p->ext[t];
                    d[t] = 0;
                }
            }
            int best = k;
            for (int t = k + 1; t < p->n; t++)
                if (abs64(p->ss[t]) < abs64(p->ss[best]))
                    best = t;
            for (; best > k; best--) {
                int64_t t;
                t = p->ext[best], p->ext[best] = p->ext[best - 1], p->ext[best - 1] = t;
                t = p->ss[best], p->ss[best] = p->ss[best - 1], p->ss[best - 1] = t;
                t = p->ds[best], p->ds[best] = p->ds[best - 1], p->ds[best - 1] = t;
            }
            return;
        }
    }
    /* the src-contiguous digit, if it is not the innermost and the innermost
     * reads a new cache line at every step, goes second: a transpose */
    int best = 0;
    for (int t = 1; t < p->n; t++)
        if (abs64(p->ss[t]) < abs64(p->ss[best]))
            best = t;
    if (p->n >= 2 && best > 0 && abs64(p->ss[best]) < abs64(p->ss[0]) && p->ext[best] >= 4 &&
        abs64(p->ss[0]) >= 16) {
        int64_t e = p->ext[best], s = p->ss[best], d = p->ds[best];
        for (int t = best; t > 1; t--) {
            p->ext[t] = p->ext[t - 1];
            p->ss[t] = p->ss[t - 1];
            p->ds[t] = p->ds[t - 1];
        }
        p->ext[1] = e;
        p->ss[1] = s;
        p->ds[1] = d;
        p->tiled = true;
    }
}

/* Copies one "plane" of the box: digits 0 (and 1 when tiled) at the given
 * outer offsets. */
/* out[dtable[j]] = in[table[j]] for one block (out[j] when dense). */
#define BLOCK_LOOP(T)                                                                              \
    do {                                                                                           \
        T *o = (T *)(void *)out;                                                                   \
        const T *s = (const T *)(const void *)in;                                                  \
        if (dtable)                                                                                \
            for (int64_t j = 0; j < n; j++)                                                        \
                o[dtable[j]] = s[table[j]];                                                        \
        else                                                                                       \
            for (int64_t j = 0; j < n; j++)                                                        \
                o[j] = s[table[j]];                                                                \
    } while (0)

static void copy_block(char *out, const char *in, const int64_t *table, const int64_t *dtable,
                       int64_t n, int64_t es)
{
    switch (es) {
    case 1: BLOCK_LOOP(uint8_t); break;
    case 2: BLOCK_LOOP(uint16_t); break;
    case 4: BLOCK_LOOP(uint32_t); break;
    case 8: BLOCK_LOOP(uint64_t); break;
    case 16: BLOCK_LOOP(hl_u128_pair); break;
    default:
        for (int64_t j = 0; j < n; j++)
            memcpy(out + (dtable ? dtable[j] : j) * es, in + table[j] * es, (size_t)es);
    }
}

static void copy_plane(const prepared *p, char *out, const char *in, int64_t es, bool stream)
{
    if (p->n == 0) {
        memcpy(out, in, (size_t)es);
        return;
    }
    if (p->blocked) {
        copy_block(out, in, p->table, p->dense ? NULL : p->dtable, p->block, es);
        return;
    }
    if (!p->tiled) {
        if (stream && p->ds[0] == 1)
            stream_row(out, in, p->ext[0], p->ss[0], es);
        else
            copy_row(out, in, p->ext[0], p->ds[0], p->ss[0], es);
        return;
    }
    /* a transpose of digits 0 (dst-contiguous) and 1 (src-contiguous), in
     * tiles staged through an L1 buffer so that memory is only ever read
     * and written along rows */
    enum { TILE_BYTES = 16384 };
    _Alignas(64) char buf[TILE_BYTES];
    const int64_t tile = es <= 4 ? 64 : es <= 16 ? 32 : 1;
    if (tile == 1 || tile * tile * es > TILE_BYTES) {
        for (int64_t b = 0; b < p->ext[1]; b++)
            copy_row(out + b * p->ds[1] * es, in + b * p->ss[1] * es, p->ext[0], p->ds[0], p->ss[0], es);
        return;
    }
    for (int64_t a0 = 0; a0 < p->ext[0]; a0 += tile)
        for (int64_t b0 = 0; b0 < p->ext[1]; b0 += tile) {
            int64_t na = p->ext[0] - a0 < tile ? p->ext[0] - a0 : tile;
            int64_t nb = p->ext[1] - b0 < tile ? p->ext[1] - b0 : tile;
            const char *src = in + (a0 * p->ss[0] + b0 * p->ss[1]) * es;
            char *dst = out + (a0 * p->ds[0] + b0 * p->ds[1]) * es;
            for (int64_t a = 0; a < na; a++) /* buf[a][b] = tile cell (a, b) */
                copy_row(buf + a * nb * es, src + a * p->ss[0] * es, nb, 1, p->ss[1], es);
            for (int64_t b = 0; b < nb; b++)
                copy_row(dst + b * p->ds[1] * es, buf + b * es, na, p->ds[0], nb, es);
        }
}

hl_status hl_run_boxes(const hl_box *boxes, int64_t nboxes, int64_t es, const char *in, char *out,
                       int threads)
{
    /* stream the output past the caches when it is much larger than them */
    int64_t cells = 0;
    for (int64_t bi = 0; bi < nboxes; bi++) {
        int64_t c = 1;
        for (int t = 0; t < boxes[bi].ndigits; t++)
            c *= boxes[bi].extent[t];
        cells += c;
    }
    const bool stream = cells * es >= ((int64_t)32 << 20);
    prepared *p = malloc(sizeof *p); /* with its offset table: too big for a stack frame */
    if (!p)
        return HL_ERR_NOMEM;
    for (int64_t bi = 0; bi < nboxes; bi++) {
        const hl_box *b = &boxes[bi];
        prepare(b, p);
        const int inner = p->n == 0 ? 0 : p->blocked ? p->blocked : p->tiled ? 2 : 1;
        int64_t outer = 1;
        for (int t = inner; t < p->n; t++)
            outer *= p->ext[t];
        const int64_t per_plane = p->n == 0 ? 1 : p->blocked ? p->block : p->ext[0] * (p->tiled ? p->ext[1] : 1);
        const int use = outer * per_plane * es >= (1 << 16) ? threads : 1;
#pragma omp parallel num_threads(use)
        {
            const int nt = omp_get_num_threads(), me = omp_get_thread_num();
            int64_t lo = outer * me / nt, hi = outer * (me + 1) / nt;
            int64_t d[HL_BOX_MAX_DIGITS], so = b->src_base, doff = b->dst_base, rest = lo;
            for (int t = inner; t < p->n; t++) {
                d[t] = rest % p->ext[t];
                rest /= p->ext[t];
                so += d[t] * p->ss[t];
                doff += d[t] * p->ds[t];
            }
            for (int64_t o = lo; o < hi; o++) {
                copy_plane(p, out + doff * es, in + so * es, es, stream);
                for (int t = inner; t < p->n; t++) { /* odometer over the outer digits */
                    so += p->ss[t];
                    doff += p->ds[t];
                    if (++d[t] < p->ext[t])
                        break;
                    so -= p->ss[t] * p->ext[t];
                    doff -= p->ds[t] * p->ext[t];
                    d[t] = 0;
                }
            }
#if defined(__SSE2__)
            if (stream)
                _mm_sfence(); /* order the streamed stores before returning */
#endif
        }
    }
    free(p);
    return HL_OK;
}
