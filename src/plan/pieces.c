/* hyperlayout — pieces (pieces.h): cutting boxes of sub-digits so that
 * their affine expressions stay affine. */
#include "pieces.h"
#include "core/intmath.h"

#include <stdlib.h>

void hl_piece_push(hl_plist *l, const hl_piece *p)
{
    if (l->fail)
        return;
    if (l->n == l->cap) {
        int64_t cap = l->cap ? 2 * l->cap : 16;
        const int64_t most = l->most > 0 ? l->most : HL_PIECE_MOST;
        hl_piece *np = cap > most ? NULL : realloc(l->p, sizeof *np * (size_t)cap);
        if (!np) {
            l->fail = true;
            return;
        }
        l->p = np;
        l->cap = cap;
    }
    l->p[l->n++] = *p;
}

void hl_piece_range(const hl_piece *p, int e, int64_t *lo, int64_t *hi)
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
static void reverse_sub(hl_piece *p, int j)
{
    for (int k = 0; k < HL_PIECE_EXPRS; k++) {
        p->c[k] += p->w[k][j] * (p->ext[j] - 1);
        p->w[k][j] = -p->w[k][j];
    }
}

void hl_piece_make_positive(hl_piece *p, int e)
{
    for (int j = 0; j < p->n; j++)
        if (p->w[e][j] < 0)
            reverse_sub(p, j);
}

hl_piece hl_piece_sub_range(const hl_piece *p, int j, int64_t start, int64_t len)
{
    hl_piece q = *p;
    q.ext[j] = len;
    for (int k = 0; k < HL_PIECE_EXPRS; k++)
        q.c[k] += start * p->w[k][j];
    return q;
}

bool hl_piece_factor(hl_piece *p, int j, int64_t f)
{
    if (p->n == HL_PIECE_SUBS)
        return false;
    int h = p->n++;
    p->ext[h] = p->ext[j] / f;
    p->ext[j] = f;
    for (int k = 0; k < HL_PIECE_EXPRS; k++)
        p->w[k][h] = p->w[k][j] * f;
    return true;
}

void hl_piece_combine(hl_piece *p, int dst, int64_t a, int x, int64_t b, int y, int64_t k)
{
    p->c[dst] = a * p->c[x] + b * p->c[y] + k;
    for (int j = 0; j < p->n; j++)
        p->w[dst][j] = a * p->w[x][j] + b * p->w[y][j];
}

void hl_piece_threshold(hl_plist *out, hl_piece p, int e, int64_t T, int depth)
{
    hl_piece_make_positive(&p, e);
    int64_t lo, hi;
    hl_piece_range(&p, e, &lo, &hi);
    if (hi < T || lo >= T) {
        p.tag = lo >= T;
        hl_piece_push(out, &p);
        return;
    }
    if (depth > HL_PIECE_SUBS) {
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
    int64_t a = hl_ceil_div(T - (hi - reach), w), b = hl_ceil_div(T - lo, w);
    a = a < 0 ? 0 : a > ext ? ext : a;
    b = b < a ? a : b > ext ? ext : b;
    if (a > 0) {
        hl_piece q = hl_piece_sub_range(&p, j, 0, a);
        q.tag = 0;
        hl_piece_push(out, &q);
    }
    for (int64_t d = a; d < b && !out->fail; d++)
        hl_piece_threshold(out, hl_piece_sub_range(&p, j, d, 1), e, T, depth + 1);
    if (b < ext) {
        hl_piece q = hl_piece_sub_range(&p, j, b, ext - b);
        q.tag = 1;
        hl_piece_push(out, &q);
    }
}

enum { RADIX_DEPTH = 64 };
void hl_piece_radix(hl_plist *out, hl_piece p, int e, int64_t R, int depth)
{
    if (depth > RADIX_DEPTH) {
        out->fail = true;
        return;
    }
    hl_piece_make_positive(&p, e);
    for (int j = 0; j < p.n; j++) {
        int64_t w = p.w[e][j], ext = p.ext[j];
        if (ext == 1 || w == 0 || w % R == 0 || w * (ext - 1) < R || R % w != 0)
            continue;
        /* d*w crosses multiples of R: factor d into (d mod f, d div f) */
        int64_t f = R / w, tail = ext % f;
        if (tail) {
            hl_piece_radix(out, hl_piece_sub_range(&p, j, 0, ext - tail), e, R, depth + 1);
            hl_piece_radix(out, hl_piece_sub_range(&p, j, ext - tail, tail), e, R, depth + 1);
            return;
        }
        if (!hl_piece_factor(&p, j, f)) {
            out->fail = true;
            return;
        }
    }
    /* the sum of the remainders: e mod R unless it reaches R (a carry) */
    p.c[HL_PIECE_T1] = p.c[e] - hl_floor_div(p.c[e], R) * R;
    for (int j = 0; j < p.n; j++)
        p.w[HL_PIECE_T1][j] = p.w[e][j] % R;
    int64_t lo, hi;
    hl_piece_range(&p, HL_PIECE_T1, &lo, &hi);
    if (hi < R) {
        hl_piece_push(out, &p);
        return;
    }
    /* where the low part reaches R, take R off it; it may still reach R */
    hl_plist parts = {.most = out->most};
    hl_piece_threshold(&parts, p, HL_PIECE_T1, R, 0);
    for (int64_t t = 0; t < parts.n && !parts.fail; t++) {
        hl_piece q = parts.p[t];
        if (q.tag) {
            q.c[HL_PIECE_T1] -= R;
            hl_piece_radix(out, q, HL_PIECE_T1, R, depth + 1);
        } else {
            hl_piece_push(out, &q);
        }
    }
    out->fail |= parts.fail;
    free(parts.p);
}

