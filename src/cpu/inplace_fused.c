
/* hyperlayout — fused in-place passes (inplace_internal.h).
 *
 * Passes along consecutive dimensions that each permute their slabs along
 * cycles permute, together, the slabs of the first along the product of
 * their sigmas: one walk of the product's cycles moves every element once,
 * where the passes moved it once each.  Dimension 0's gather of short rows
 * joins them as the rows' own permutation, applied as each row moves (its
 * fixed points too).  The product's sigma costs 8 bytes a slab, so at most
 * FUSE_MAX slabs; slabs of fewer than FUSE_SLAB_MIN bytes are walked too
 * slowly one by one to gain from it.  Workers share the walk by cycles
 * (and, without the gather, by pieces of the slabs), as they share the
 * passes it replaces. */

#include "inplace_internal.h"

#include <inttypes.h>
#include <omp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { FUSE_MAX = 1 << 20, FUSE_SLAB_MIN = 256 };

const pass_solver hl_inplace_fused_solver = {"in-place cycles, rows gathered", NULL, hl_inplace_cycle_items};

/* Whether a fused walk is shared by segments of its cycles rather than by
 * whole cycles: too few cycles for the workers (a shift of two dimensions
 * whose extents are coprime is a single cycle). */
bool hl_inplace_segmented(const moved_dim *m, int64_t es, int workers)
{
    return m->row_sigma && workers > 1 && m->groups * m->ncycles < 8 * workers &&
           m->slab * es <= SEGMENT_ROW_MAX && m->len >= 2;
}

/* The cycle holding position p of order[]. */
static int64_t cycle_at(const moved_dim *m, int64_t p)
{
    const int64_t c = first_cycle(m, p);
    return c < m->ncycles && m->start[c] == p ? c : c - 1;
}

/* The segment of [0, L) cut in R holding position p. */
static int64_t segment_at(int64_t L, int64_t R, int64_t p)
{
    int64_t r = p * R / L;
    while (L * (r + 1) / R <= p)
        r++;
    while (L * r / R > p)
        r--;
    return r;
}

/* The fused walk with every group's order[] cut into R segments, shared
 * by the workers in two phases: each segment first saves the old rows
 * that other segments overwrite before it reads them (its first row, and
 * the first row of the cycle it leaves unfinished), then walks its
 * positions; where it runs into the next segment or closes a cycle begun
 * in an earlier one it reads the saved row. */
void hl_inplace_run_segmented(const moved_dim *m, char *a, int64_t es, int workers, char *buf)
{
    const int64_t step = m->slab * es, L = m->len;
    int64_t R = (8 * workers + m->groups - 1) / m->groups;
    R = R < L ? R : L;
    const int64_t items = m->groups * R;
    char *const saved = buf, *const tmps = buf + 2 * items * step;
    const row_prefetch pf = prefetch_of(step);
#pragma omp parallel num_threads(workers)
    {
#pragma omp for schedule(static)
        for (int64_t t = 0; t < items; t++) {
            char *base = a + t / R * L * step;
            const int64_t r = t % R, from = L * r / R, to = L * (r + 1) / R;
            hl_elem_copy(saved + 2 * t * step, base + m->order[from] * step, step);
            const int64_t c = cycle_at(m, to - 1), cs = m->start[c];
            if (m->start[c + 1] > to && cs >= from)
                hl_elem_copy(saved + (2 * t + 1) * step, base + m->order[cs] * step, step);
        }
        char *tmp = tmps + omp_get_thread_num() * step;
#pragma omp for schedule(dynamic, 1)
        for (int64_t t = 0; t < items; t++) {
            char *base = a + t / R * L * step;
            const int64_t r = t % R, from = L * r / R, to = L * (r + 1) / R;
            prefetch_walk(m, base, step, step, pf, from);
            for (int64_t c = cycle_at(m, from); c < m->ncycles && m->start[c] < to; c++) {
                const int64_t cs = m->start[c], ce = m->start[c + 1];
                const int64_t lo = cs > from ? cs : from, hi = ce < to ? ce : to;
                if (cs >= from)
                    hl_elem_copy(tmp, base + m->order[cs] * step, step);
                for (int64_t j = lo; j < hi; j++) {
                    prefetch_at(m, base, step, step, pf, j + 1 + pf.ahead);
                    const char *src;
                    if (j == ce - 1)
                        src = cs >= from ? tmp : saved + (2 * (t - r + segment_at(L, R, cs)) + 1) * step;
                    else if (j + 1 == to)
                        src = saved + 2 * (t + 1) * step;
                    else
                        src = base + m->order[j + 1] * step;
                    gather_row(base + m->order[j] * step, src, m->row_sigma, m->slab, es);
                }
            }
        }
    }
}

static bool walks_cycles(const hl_ir_pass *p) { return p->sigma && !p->transpose && p->dim >= 0; }

/* Whether pass q continues pass p: the next dimension, whose slabs are p's
 * rows. */
static bool continues(const hl_ir_pass *p, const hl_ir_pass *q)
{
    return q->dim == p->dim + 1 && q->slab == p->slab * p->len && q->groups * q->len == p->groups;
}

/* Passes j, j + 1, ... fused into *m where that saves a pass over the
 * array: the number fused, 0 for none. */
int hl_inplace_fuse_passes(moved_dim *m, const hl_ir_pass *passes, int j, int npasses, int64_t es, hl_status *st)
{
    const bool gather = walks_cycles(&passes[j]) && hl_inplace_gather_applies(&passes[j], es);
    const int k = j + gather; /* the first pass of slabs */
    int e = k;
    int64_t len = 1;
    while (e < npasses && walks_cycles(&passes[e]) && (e == j || continues(&passes[e - 1], &passes[e])) &&
           len <= FUSE_MAX / passes[e].len) {
        len *= passes[e].len;
        e++;
    }
    if (e - k < 2 - gather || passes[k].slab * es < FUSE_SLAB_MIN)
        return 0;
    moved_dim f = {passes[j].dim, len, passes[k].slab, passes[e - 1].groups, 0, NULL, NULL, NULL, -1};
    f.dims = e - j;
    f.row_sigma = gather ? passes[j].sigma : NULL;
    f.solver = gather ? &hl_inplace_fused_solver : &hl_inplace_solvers[2];
    if (!(f.fused = calloc((size_t)len, sizeof *f.fused))) {
        *st = HL_ERR_NOMEM;
        return 0;
    }
    /* slab P = sum of p_t w_t receives slab sum of sigma_t[p_t] w_t */
    for (int64_t t = k, w = 1; t < e; w *= passes[t].len, t++)
        for (int64_t P = 0; P < len; P++)
            f.fused[P] += passes[t].sigma[P / w % passes[t].len] * w;
    f.sigma = f.fused;
    if (hl_inplace_split_cycles(&f, f.fused) != HL_OK) {
        free(f.order);
        free(f.start);
        free(f.fused);
        *st = HL_ERR_NOMEM;
        return 0;
    }
    *m = f;
    return e - j;
}
