/* hyperlayout — the tables rows.h's kernels run from, made once at
 * planning: lane permutes of a plane (hl_lanes_make) and short rows loaded
 * in pairs (hl_pairs_make). */
#include "rows.h"

#include <stdlib.h>
#include <string.h>


void hl_lanes_free(hl_lanes *t)
{
    free(t->first);
    free(t->idx);
    free(t->op);
    memset(t, 0, sizeof *t);
}

/* The 16-lane windows of the span that output vector v draws from: each
 * starts at the lowest source lane not yet in one (fewest windows for
 * these lanes; the source vectors themselves would take more where the
 * lanes lie across their boundaries, as a shifted row's do); their count. */
static int windows_of(const int64_t *src, int64_t n, int64_t span, int64_t v, int64_t *w)
{
    int64_t x[16];
    int k = 0, nw = 0;
    for (int64_t l = 16 * v; l < n && l < 16 * v + 16; l++) {
        int j = k++;
        for (; j > 0 && x[j - 1] > src[l]; j--)
            x[j] = x[j - 1];
        x[j] = src[l];
    }
    for (int j = 0; j < k; j++)
        if (nw == 0 || x[j] >= w[nw - 1] + 16) /* ending at the span's end at most */
            w[nw++] = x[j] + 16 > span && span >= 16 ? span - 16 : x[j];
    return nw;
}

bool hl_lanes_make(hl_lanes *t, const int64_t *src, int64_t n, int64_t span, int64_t max_ops,
                   bool *nomem)
{
    memset(t, 0, sizeof *t);
    *nomem = false;
    if (n <= 0 || span <= 0 || span > INT32_MAX)
        return false;
    int64_t w[16], ops = 0;
    t->nvec = (n + 15) / 16;
    for (int64_t v = 0; v < t->nvec; v++)
        ops += (windows_of(src, n, span, v, w) + 1) / 2;
    if (ops > max_ops * t->nvec)
        return false;
    t->tail = (int)(n - 16 * (t->nvec - 1));
    t->part = span >= 16 ? 0xFFFF : (uint16_t)((1u << span) - 1u);
    t->first = malloc(sizeof *t->first * (size_t)(t->nvec + 1));
    t->idx = aligned_alloc(64, (size_t)ops * 64);
    t->op = malloc(sizeof *t->op * (size_t)ops);
    if (!t->first || !t->idx || !t->op) {
        hl_lanes_free(t);
        *nomem = true;
        return false;
    }
    int64_t op = 0;
    for (int64_t v = 0; v < t->nvec; v++) {
        t->first[v] = op;
        const int k = windows_of(src, n, span, v, w);
        for (int j = 0; j < k; j += 2, op++) {
            /* one window alone loads it twice: an L1 hit, and no branch */
            const int64_t a = w[j], b = j + 1 < k ? w[j + 1] : w[j];
            hl_lane_op *o = &t->op[op];
            o->a = (int32_t)a;
            o->b = (int32_t)b;
            o->out = 0;
            memset(t->idx[op], 0, sizeof t->idx[op]);
            for (int64_t l = 16 * v; l < n && l < 16 * v + 16; l++) {
                const int64_t x = src[l];
                if (x - a >= 0 && x - a < 16)
                    t->idx[op][l - 16 * v] = (int32_t)(x - a);
                else if (x - b >= 0 && x - b < 16)
                    t->idx[op][l - 16 * v] = (int32_t)(x - b + 16);
                else
                    continue;
                o->out |= (uint16_t)(1u << (l - 16 * v));
            }
        }
    }
    t->first[t->nvec] = op;
    return true;
}

void hl_pairs_free(hl_pairs *p)
{
    free(p->run);
    free(p->dst);
    memset(p, 0, sizeof *p);
}

/* The runs of lines `line` (g of them) of a block: each of the lines'
 * rows paired with the one right after it or before it in the source,
 * runs in the order their first row comes in the output; the lanes of the
 * lines into idx.  False where a row has no partner among them. */
static bool pair_lines(const int64_t *stab, const int64_t *line, int g, int64_t per, int64_t half,
                       int64_t *run, uint64_t (*idx)[8])
{
    const int64_t rows = g * per, nruns = rows / 2, q = 8 / per; /* 64-bit lanes a row */
    int64_t r = 0;
    int64_t at[16]; /* the run of each row, and its place in it (2 * run + 1: second) */
    for (int64_t i = 0; i < rows; i++)
        at[i] = -1;
    for (int64_t i = 0; i < rows; i++) {
        if (at[i] >= 0)
            continue;
        const int64_t a = stab[line[i / per] * per + i % per];
        int64_t j = i + 1;
        for (; j < rows; j++) {
            const int64_t b = stab[line[j / per] * per + j % per];
            if (at[j] < 0 && (b == a + half || b == a - half))
                break;
        }
        if (j == rows || r == nruns)
            return false;
        const int64_t b = stab[line[j / per] * per + j % per];
        run[r] = a < b ? a : b;
        at[i] = 2 * r + (a < b ? 0 : 1);
        at[j] = 2 * r + (a < b ? 1 : 0);
        r++;
    }
    for (int64_t i = 0; i < rows; i++)
        for (int64_t k = 0; k < q; k++)
            idx[i / per][(i % per) * q + k] = (uint64_t)(at[i] * q + k);
    return true;
}

/* The lines' offsets of a block written at dtab (hl_pairs_make): false
 * where a line's rows are not together, or a line does not start one. */
static bool line_offsets(hl_pairs *p, const int64_t *dtab, int64_t lines, int64_t per, int64_t half,
                         int64_t es, bool *nomem)
{
    for (int64_t l = 0; l < lines; l++) {
        if ((dtab[l * per] * es) % 64)
            return false;
        for (int64_t i = 1; i < per; i++)
            if (dtab[l * per + i] != dtab[l * per] + i * half)
                return false;
    }
    if (!(p->dst = malloc(sizeof *p->dst * (size_t)lines))) {
        *nomem = true;
        return false;
    }
    for (int64_t l = 0; l < lines; l++)
        p->dst[l] = dtab[l * per] * es;
    return true;
}

bool hl_pairs_make(hl_pairs *p, const int64_t *stab, const int64_t *dtab, int64_t n, int64_t bytes,
                   int64_t es, bool *nomem)
{
    memset(p, 0, sizeof *p);
    *nomem = false;
    const int64_t per = 64 / bytes, lines = n * bytes / 64, half = bytes / es;
    if ((bytes != 8 && bytes != 16) || bytes % es || lines < 2 || lines * 64 != n * bytes)
        return false;
    if (dtab && !line_offsets(p, dtab, lines, per, half, es, nomem)) {
        hl_pairs_free(p);
        return false;
    }
    p->w = 2 * bytes;
    for (p->g = 1; p->g <= 2; p->g++) {
        for (p->d = 1; p->d <= (p->g == 1 ? 1 : lines / 2); p->d *= 2) {
            if (lines % (p->g * p->d))
                continue;
            p->steps = lines / p->g;
            const int64_t nr = p->g * 64 / p->w;
            p->run = malloc(sizeof *p->run * (size_t)(p->steps * nr));
            if (!p->run) {
                *nomem = true;
                hl_pairs_free(p);
                return false;
            }
            bool ok = true;
            for (int64_t s = 0; s < p->steps && ok; s++) {
                const int64_t first = s / p->d * p->g * p->d + s % p->d;
                const int64_t line[2] = {first, first + p->d};
                uint64_t idx[2][8];
                ok = pair_lines(stab, line, p->g, per, half, p->run + s * nr, s ? idx : p->idx) &&
                     (s == 0 || memcmp(idx, p->idx, sizeof *idx * (size_t)p->g) == 0);
            }
            if (ok) {
                for (int64_t r = 0; r < p->steps * nr; r++)
                    p->run[r] *= es;
                return true;
            }
            free(p->run);
            p->run = NULL;
        }
    }
    hl_pairs_free(p);
    return false;
}
