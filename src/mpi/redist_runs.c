/* hyperlayout — runs of cells of a redistribution planned cell by cell
 * (redist_plan.h): made from lists of offsets, copied, and merged into
 * boxes for the plan engine where they continue one another regularly. */
#include <stdlib.h>
#include <string.h>

#include "redist_plan.h"

/* Runs where off[] and pos[] (NULL: slot first + j) each go up by a
 * constant step.  Appends to out[*m]. */
void redist_to_runs(const int64_t *off, const int64_t *pos, int64_t first, int64_t n, run *out,
                    int64_t *m)
{
    for (int64_t j = 0; j < n; j++) {
        const int64_t p = pos ? pos[j] : first + j;
        run *last = *m > 0 ? &out[*m - 1] : NULL;
        if (last && last->len == 1) {
            last->sa = off[j] - last->at;
            last->sp = p - last->pos;
            last->len = 2;
        } else if (last && last->at + last->len * last->sa == off[j] &&
                   last->pos + last->len * last->sp == p) {
            last->len++;
        } else {
            out[(*m)++] = (run){off[j], p, 1, 1, 1};
        }
    }
}

/* Copies one run: element j from src slot s0 + j*ss to dst slot d0 + j*ds. */
void redist_copy_run(char *dst, int64_t d0, int64_t ds, const char *src, int64_t s0, int64_t ss,
                     int64_t len, size_t es)
{
    if (ds == 1 && ss == 1) {
        memcpy(dst + (size_t)d0 * es, src + (size_t)s0 * es, (size_t)len * es);
        return;
    }
#define HL_STRIDED(T)                                                                              \
    for (int64_t j = 0; j < len; j++) {                                                            \
        T v;                                                                                       \
        memcpy(&v, src + (size_t)(s0 + j * ss) * sizeof(T), sizeof(T));                           \
        memcpy(dst + (size_t)(d0 + j * ds) * sizeof(T), &v, sizeof(T));                            \
    }
    switch (es) {
    case 8:
        HL_STRIDED(uint64_t);
        break;
    case 4:
        HL_STRIDED(uint32_t);
        break;
    case 2:
        HL_STRIDED(uint16_t);
        break;
    case 1:
        HL_STRIDED(uint8_t);
        break;
    default:
        for (int64_t j = 0; j < len; j++)
            memcpy(dst + (size_t)(d0 + j * ds) * es, src + (size_t)(s0 + j * ss) * es, es);
    }
#undef HL_STRIDED
}

/* ---- runs to boxes: the plan engine for regular moves ------------------ */

/* Runs that continue one another regularly become boxes of several
 * digits (a slab's part for one peer, a transpose's rows): each pass merges
 * neighbours with the same digits whose bases go up by a constant step into
 * one box of one digit more.  Where few boxes remain, the copy is a plan
 * (hl_plan_from_boxes) run by the CPU kernels, which block transposes for
 * the caches; otherwise the runs are copied one by one. */
enum { MERGE_DIGITS = 8, MERGE_MAX_BOXES = 1024 };

typedef struct mbox {
    int nd;
    bool grown; /* made by this pass: its top digit may still grow */
    int64_t src, dst;
    int64_t ext[MERGE_DIGITS], ss[MERGE_DIGITS], ds[MERGE_DIGITS];
} mbox;

static bool same_digits(const mbox *a, const mbox *b, int nd)
{
    for (int t = 0; t < nd; t++)
        if (a->ext[t] != b->ext[t] || a->ss[t] != b->ss[t] || a->ds[t] != b->ds[t])
            return false;
    return true;
}

/* One pass over b[0..n): merged in place; returns the new count. */
static int64_t merge_pass(mbox *b, int64_t n)
{
    int64_t m = 0;
    for (int64_t j = 0; j < n; j++) {
        mbox x = b[j];
        x.grown = false;
        mbox *last = m > 0 ? &b[m - 1] : NULL;
        if (last && last->grown && last->nd == x.nd + 1 && same_digits(last, &x, x.nd)) {
            const int top = x.nd;
            if (x.src == last->src + last->ext[top] * last->ss[top] &&
                x.dst == last->dst + last->ext[top] * last->ds[top]) {
                last->ext[top]++;
                continue;
            }
        }
        if (last && !last->grown && last->nd == x.nd && x.nd < MERGE_DIGITS &&
            same_digits(last, &x, x.nd)) {
            last->ext[x.nd] = 2;
            last->ss[x.nd] = x.src - last->src;
            last->ds[x.nd] = x.dst - last->dst;
            last->nd++;
            last->grown = true;
            continue;
        }
        b[m++] = x;
    }
    return m;
}

/* The plan copying runs[0..n) (src = at, dst = pos; swapped: the other
 * way), or NULL where they stay too many boxes (or on any error: the runs
 * still do the work). */
hl_plan *redist_runs_plan(const run *runs, int64_t n, bool swapped, int64_t es, int64_t in_span,
                          int64_t out_span)
{
    if (n == 0)
        return NULL;
    mbox *b = malloc(sizeof *b * (size_t)n);
    if (!b)
        return NULL;
    for (int64_t j = 0; j < n; j++) {
        const run *u = &runs[j];
        b[j] = (mbox){.nd = 1, .src = swapped ? u->pos : u->at, .dst = swapped ? u->at : u->pos};
        b[j].ext[0] = u->len;
        b[j].ss[0] = swapped ? u->sp : u->sa;
        b[j].ds[0] = swapped ? u->sa : u->sp;
    }
    for (int64_t m = merge_pass(b, n); m < n; m = merge_pass(b, m))
        n = m;
    hl_plan *plan = NULL;
    hl_box *boxes = n <= MERGE_MAX_BOXES ? malloc(sizeof *boxes * (size_t)n) : NULL;
    if (boxes) {
        for (int64_t j = 0; j < n; j++) {
            boxes[j] = (hl_box){.ndigits = b[j].nd, .src_base = b[j].src, .dst_base = b[j].dst};
            for (int t = 0; t < b[j].nd; t++) {
                boxes[j].extent[t] = b[j].ext[t];
                boxes[j].src_stride[t] = b[j].ss[t];
                boxes[j].dst_stride[t] = b[j].ds[t];
            }
        }
        const hl_plan_options one = {.threads = 1};
        if (hl_plan_from_boxes(&plan, boxes, n, es, in_span, out_span, &one) != HL_OK)
            plan = NULL;
    }
    free(boxes);
    free(b);
    return plan;
}
