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

#include "layout/coord.h"
#include "pieces.h"

/* The pieces' expressions (pieces.h): x, the value V pushed through a
 * pipeline, the src and dst offsets; then the two temporaries. */
enum { EX_X, EX_V, EX_OS, EX_OD };

/* Runs fn on every piece of *l, replacing *l by what it appends. */
typedef void (*piece_fn)(hl_plist *out, hl_piece p, const void *arg);

static bool each(hl_plist *l, piece_fn fn, const void *arg)
{
    hl_plist out = {0};
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

static void do_shift(hl_plist *out, hl_piece p, const void *arg)
{
    const step_arg *s = arg;
    hl_plist parts = {0};
    hl_piece_threshold(&parts, p, EX_V, s->L - s->a, 0);
    for (int64_t t = 0; t < parts.n; t++) {
        parts.p[t].c[EX_V] += s->a - (parts.p[t].tag ? s->L : 0);
        hl_piece_push(out, &parts.p[t]);
    }
    out->fail |= parts.fail;
    free(parts.p);
}

/* Radix split of V into T1 = V mod R and T2 = V div R = (V - T1) / R. */
static void split_v(hl_plist *out, hl_piece p, int64_t R)
{
    hl_plist parts = {0};
    hl_piece_radix(&parts, p, EX_V, R, 0);
    for (int64_t t = 0; t < parts.n; t++) {
        hl_piece *q = &parts.p[t];
        q->c[HL_PIECE_T2] = (q->c[EX_V] - q->c[HL_PIECE_T1]) / R;
        for (int j = 0; j < q->n; j++)
            q->w[HL_PIECE_T2][j] = (q->w[EX_V][j] - q->w[HL_PIECE_T1][j]) / R;
        hl_piece_push(out, q);
    }
    out->fail |= parts.fail;
    free(parts.p);
}

static void do_crinkle(hl_plist *out, hl_piece p, const void *arg)
{
    const step_arg *s = arg;
    hl_plist rq = {0}, parts = {0};
    split_v(&rq, p, s->n); /* r = T1, q = T2 */
    for (int64_t t = 0; t < rq.n; t++)
        hl_piece_threshold(&parts, rq.p[t], HL_PIECE_T1, s->short_from, 0);
    for (int64_t t = 0; t < parts.n; t++) {
        hl_piece *q = &parts.p[t];
        if (!q->tag) /* r < short_from: groups start at r*(len+1) */
            hl_piece_combine(q, EX_V, s->len + 1, HL_PIECE_T1, 1, HL_PIECE_T2, 0);
        else
            hl_piece_combine(q, EX_V, s->len, HL_PIECE_T1, 1, HL_PIECE_T2, s->rem);
        hl_piece_push(out, q);
    }
    out->fail |= rq.fail || parts.fail;
    free(rq.p);
    free(parts.p);
}

static void do_uncrinkle(hl_plist *out, hl_piece p, const void *arg)
{
    const step_arg *s = arg;
    hl_plist parts = {0};
    hl_piece_threshold(&parts, p, EX_V, s->split, 0);
    for (int64_t t = 0; t < parts.n && !out->fail; t++) {
        hl_piece q = parts.p[t];
        hl_plist rq = {0};
        if (!q.tag) {
            split_v(&rq, q, s->len + 1); /* q = T1 (position in group), r = T2 */
        } else {
            q.c[EX_V] -= s->split;
            split_v(&rq, q, s->len);
        }
        for (int64_t u = 0; u < rq.n; u++) {
            hl_piece_combine(&rq.p[u], EX_V, s->n, HL_PIECE_T1, 1, HL_PIECE_T2, q.tag ? s->rem : 0);
            hl_piece_push(out, &rq.p[u]);
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

static void do_digit(hl_plist *out, hl_piece p, const void *arg)
{
    const digit_arg *g = arg;
    if (g->last) {
        hl_piece_combine(&p, g->off, 1, g->off, g->stride, EX_V, 0);
        hl_piece_push(out, &p);
        return;
    }
    hl_plist parts = {0};
    split_v(&parts, p, g->radix);
    for (int64_t t = 0; t < parts.n; t++) {
        hl_piece *q = &parts.p[t];
        hl_piece_combine(q, g->off, 1, g->off, g->stride, HL_PIECE_T1, 0);
        hl_piece_combine(q, EX_V, 1, HL_PIECE_T2, 0, HL_PIECE_T2, 0);
        hl_piece_push(out, q);
    }
    out->fail |= parts.fail;
    free(parts.p);
}

static void do_flip(hl_plist *out, hl_piece p, const void *arg)
{
    const step_arg *s = arg;
    p.c[EX_V] = s->L - 1 - p.c[EX_V];
    for (int j = 0; j < p.n; j++)
        p.w[EX_V][j] = -p.w[EX_V][j];
    hl_piece_push(out, &p);
}

static void do_start(hl_plist *out, hl_piece p, const void *arg)
{
    (void)arg;
    hl_piece_combine(&p, EX_V, 1, EX_X, 0, EX_X, 0);
    hl_piece_push(out, &p);
}

static void do_offset(hl_plist *out, hl_piece p, const void *arg)
{
    const step_arg *s = arg;
    p.c[EX_V] += s->a;
    hl_piece_push(out, &p);
}

/* The piece function of each coordinate op. */
static const piece_fn map_piece[HL_COORD_COUNT] = {
    [HL_COORD_FLIP] = do_flip,         [HL_COORD_SHIFT] = do_shift,
    [HL_COORD_CRINKLE] = do_crinkle,   [HL_COORD_UNCRINKLE] = do_uncrinkle,
    [HL_COORD_OFFSET] = do_offset,
};

/* Pushes dimension i of layout lay through the pieces, adding its digits'
 * contributions to expression off. */
static bool push_layout(hl_plist *l, const hl_layout *lay, int i, int off)
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
    hl_plist dims[HL_MAX_RANK] = {{0}};
    hl_status st = HL_OK;
    int64_t total = 1;
    for (int i = 0; i < rank && st == HL_OK; i++) {
        hl_piece p;
        memset(&p, 0, sizeof p);
        p.n = 1;
        p.ext[0] = src->extent[i];
        p.w[EX_X][0] = 1;
        hl_piece_push(&dims[i], &p);
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
            const hl_piece *p = &dims[i].p[at[i]];
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
