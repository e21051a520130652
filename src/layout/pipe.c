/* hyperlayout — canonical pipelines (pipe.h).
 *
 * A pipe rewrites a list of maps acting on [0, e): the maps that are affine
 * on the values they receive (flips, offsets, shifts that do not wrap) are
 * folded into a pending y = sign * v + add, v the output of the maps
 * emitted so far; a map that is not affine there is emitted after the
 * pending part is written out as a flip and an offset, unless it can move
 * past a pending flip.  So flips travel to the end and offsets as far as
 * they can, and what is emitted is canonical. */
#include "pipe.h"

#include <stdlib.h>
#include <string.h>

void hl_pipe_init(pipe *p, int64_t e)
{
    p->n = 0;
    p->e = p->dom = p->L = e;
    p->sign = 1;
    p->add = 0;
    p->fail = false;
}

/* Takes the affine maps a cancellation leaves at the end of the emitted
 * ones back into the pending part, so that they travel on. */
static void unwind(pipe *p)
{
    while (p->n > 0) {
        const hl_coord_map last = p->op[p->n - 1];
        const int64_t L = p->opdom[p->n - 1];
        int64_t s, a;
        if (!hl_coord_table[last.op].affine(last, L, 0, L - 1, &s, &a))
            return;
        p->n--;
        p->add += p->sign * a; /* y = sign * (s v' + a) + add */
        p->sign *= s;
        p->dom = L;
    }
}

/* Appends m, acting on [0, L), to the emitted maps, merging it with the
 * last one where they combine. */
static void emit(pipe *p, hl_coord_map m, int64_t L)
{
    const hl_coord_info *op = &hl_coord_table[m.op];
    if (p->n > 0) {
        hl_coord_map *last = &p->op[p->n - 1];
        int left = hl_coord_table[last->op].merge(last, m, p->opdom[p->n - 1]);
        if (left < 2) {
            p->dom = op->after(m, L);
            if (left == 0) {
                p->n--;
                unwind(p);
            }
            return;
        }
    }
    if (p->n == PIPE_CAP) {
        p->fail = true;
        return;
    }
    p->opdom[p->n] = L;
    p->op[p->n++] = m;
    p->dom = op->after(m, L);
}

/* Writes the pending part out as maps into the domain [0, L). */
void hl_pipe_realize(pipe *p, int64_t L)
{
    int64_t c = p->add;
    if (p->sign < 0) { /* y = add - v = (dom-1-v) + add-(dom-1) */
        if (p->dom > 1)
            emit(p, (hl_coord_map){HL_COORD_FLIP, 0, 0}, p->dom);
        c -= p->dom - 1;
    }
    if (c < 0 || c > L - p->dom) {
        p->fail = true;
        return;
    }
    if (c != 0 || p->dom != L)
        emit(p, (hl_coord_map){HL_COORD_OFFSET, c, L}, p->dom);
    p->sign = 1;
    p->add = 0;
    p->L = L;
}

void hl_pipe_push(pipe *p, hl_coord_map m)
{
    if (p->fail)
        return;
    const hl_coord_info *op = &hl_coord_table[m.op];
    const int64_t L = p->L;
    int64_t lo = 0, hi = L - 1, s, a;
    if (p->n == 0) { /* nothing emitted: y is the pending map of [0, e) */
        lo = p->sign > 0 ? p->add : p->add - (p->e - 1);
        hi = lo + p->e - 1;
    }
    if (op->affine(m, L, lo, hi, &s, &a)) {
        p->sign *= s;
        p->add = s * p->add + a;
        p->L = op->after(m, L);
        return;
    }
    hl_coord_map moved = m;
    if (p->sign < 0 && p->add == L - 1 && p->dom == L && op->past_flip(&moved, L)) {
        emit(p, moved, L); /* the pending flip stays pending */
        return;
    }
    hl_pipe_realize(p, L);
    if (!p->fail)
        emit(p, m, L);
}

/* Runs maps acting on [0, e) through a pipe. */
void hl_pipe_maps(pipe *p, int64_t e, const hl_coord_map *maps, int n)
{
    hl_pipe_init(p, e);
    for (int m = 0; m < n; m++)
        hl_pipe_push(p, maps[m]);
}

/* Value of the maps of dimension i at x. */
int64_t hl_dim_run_maps(const hl_layout *lay, int i, int64_t x)
{
    int64_t L = lay->extent[i];
    for (int m = 0; m < lay->nmaps[i]; m++) {
        const hl_coord_info *op = &hl_coord_table[lay->map[i][m].op];
        x = op->apply(lay->map[i][m], L, x);
        L = op->after(lay->map[i][m], L);
    }
    return x;
}

void hl_layout_clear_like(hl_layout *lay, const hl_layout *like)
{
    memset(lay, 0, sizeof *lay);
    lay->rank = like->rank;
    memcpy(lay->extent, like->extent, sizeof lay->extent);
}

/* Number of digits of b in dimension i. */
int hl_dim_count_digits(const hl_layout *b, int i)
{
    int c = 0;
    for (int t = 0; t < b->ndigits; t++)
        c += b->digit[t].dim == i;
    return c;
}
