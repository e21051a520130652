/* hyperlayout — planning plans of several stages.  A chain whose steps do
 * not fold into one pass of boxes is run as a few passes instead of cell by
 * cell: each stage is the longest run of consecutive steps that folds into
 * a step that lowers to boxes, planned as a plan of its own, and the stages
 * run one after another through scratch (a staged plan, plan_staged.c:
 * FFTW's buffered sub-plans), so that k stages cost about k copies; or,
 * where the stages' boxes compose and that runs faster, as one pass (a
 * composed plan, plan_composed.c).  The stages are planned through the
 * planner handed in (plan_internal.h), not by naming plan.c. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "box_compose.h"
#include "layout/coord.h"
#include "hyperlayout/expert.h"
#include "layout/algebra.h"
#include "lower.h"
#include "plan_internal.h"
#include "core/threads.h"
#include "wisdom_internal.h"

/* The stages while they are planned: plans of their own, unprepared until
 * the plan that takes them is prepared. */
typedef struct {
    hl_plan **at;
    int n;
} stage_list;

static void free_stages(stage_list *l)
{
    for (int i = 0; i < l->n; i++)
        hl_plan_destroy(l->at[i]);
    free(l->at);
    l->at = NULL;
    l->n = 0;
}

/* Whether out[dst(x)] = in[src(x)] lowers to boxes within the limit. */
static bool lowers(const hl_layout *src, const hl_layout *dst)
{
    hl_box *boxes;
    int64_t n;
    if (hl_lower(src, dst, HL_PLAN_MAX_BOXES, &boxes, &n) != HL_OK)
        return false;
    free(boxes);
    return true;
}

int hl_plan_fold_steps(hl_ir_step *steps, int n, bool reference)
{
    int at = 0;
    bool low = false; /* whether steps[at - 1] lowers */
    for (int t = 0; t < n; t++) {
        const hl_ir_step next = steps[t];
        hl_layout folded;
        if (at > 0 && !reference &&
            hl_layout_through(&folded, &steps[at - 1].src, &steps[at - 1].dst, &next.src) == HL_OK) {
            /* a fold that loses the boxes is a stage boundary instead */
            const bool folded_low = lowers(&folded, &next.dst);
            if (folded_low || !low) {
                steps[at - 1].src = folded;
                steps[at - 1].dst = next.dst;
                low = folded_low;
                continue;
            }
        }
        steps[at++] = next;
        low = !reference && n > 1 && lowers(&next.src, &next.dst);
    }
    return at;
}

/* The boxes of plan q's one pass (unpacked); NULL when it has none. */
static hl_status unpack_boxes(const hl_plan *q, hl_box **boxes, int64_t *n)
{
    *boxes = NULL;
    *n = 0;
    if (!q->ir.lowered || hl_plan_is_staged(q))
        return HL_OK;
    hl_box *b = malloc(sizeof *b * (size_t)(q->ir.nboxes > 0 ? q->ir.nboxes : 1));
    if (!b)
        return HL_ERR_NOMEM;
    for (int64_t i = 0; i < q->ir.nboxes; i++)
        hl_ir_box(&q->ir, i, &b[i]);
    *boxes = b;
    *n = q->ir.nboxes;
    return HL_OK;
}

hl_status hl_plan_pass_boxes(const hl_plan *p, hl_box **boxes, int64_t *n)
{
    *boxes = NULL;
    *n = 0;
    if (!hl_plan_is_staged(p)) {
        const hl_status st = unpack_boxes(p, boxes, n);
        return st == HL_OK && !*boxes ? HL_ERR_UNSUPPORTED : st;
    }
    hl_box *cur = NULL, *next = NULL;
    int64_t ncur = 0, nnext = 0;
    hl_status st = hl_plan_pass_boxes(hl_plan_stage(p, 0), &cur, &ncur);
    for (int i = 1; i < hl_plan_stages(p) && st == HL_OK; i++) {
        if ((st = hl_plan_pass_boxes(hl_plan_stage(p, i), &next, &nnext)) != HL_OK)
            break;
        hl_box *c;
        int64_t nc;
        st = hl_box_compose(cur, ncur, next, nnext, HL_PLAN_MAX_BOXES, &c, &nc);
        free(cur);
        free(next);
        cur = st == HL_OK ? c : NULL;
        ncur = nc;
        next = NULL;
    }
    if (st != HL_OK) {
        free(cur);
        return st;
    }
    *boxes = cur;
    *n = ncur;
    return HL_OK;
}

/* The cost rule: whether one pass of the composed boxes c beats the two
 * passes of a's and b's boxes.  Set from bench_chains' 18 chains (three
 * arrays of 2^24 elements, 1 and 2 threads, 2026-11-27, every chain
 * composed): fused/separate was 1.7-4.3 where the composed boxes are
 * transposes of blocks of >= 32 bytes (tile then permute, the crinkle
 * chains, Morton then permute of [4096,4096] float64: 2x2 of 8 bytes) or
 * forward rows, even short (tile then tile: rows of 2 elements, 1.2-2.4);
 * it was 0.55-0.63 (1 thread) for 2x2 transposes of float32 (Morton then
 * permute of rank 3 and 4: 16-byte blocks), 0.58-0.67 where the innermost
 * digit runs backwards on one side (tile then flip:0 of rank 2 and 3: the
 * reversal moves into short rows), and 0.61-0.86 where composing cuts the
 * boxes (tile then shift: 8 or 16 boxes become 13-167, of odd extents).
 * So: compose when it cuts nothing (no more boxes than the larger side)
 * and at least 90% of the cells are in rows or in transposes of >= 32
 * bytes. */
enum { MIN_BLOCK_BYTES = 32 };

static bool worth_composing(int64_t na, int64_t nb, const hl_box *c, int64_t nc,
                            int64_t elem_size)
{
    if (nc > (na > nb ? na : nb))
        return false;
    double good = 0, all = 0;
    for (int64_t i = 0; i < nc; i++) {
        bool row;
        const int64_t bytes = hl_box_inner_bytes(&c[i], elem_size, &row);
        const double cells = (double)hl_box_cells(&c[i]);
        all += cells;
        if ((row && bytes > 0) || bytes >= MIN_BLOCK_BYTES)
            good += cells;
    }
    return good >= 0.9 * all;
}

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The best of three runs of the plans one after another, in -> (mid ->)
 * out, after one untimed run; a huge value when one cannot run. */
static double time_runs(hl_plan *const *plans, int n, const void *in, void *mid, void *out)
{
    double best = 1e30;
    for (int r = 0; r < 4; r++) {
        const double t0 = seconds();
        for (int j = 0; j < n; j++)
            if (hl_execute(plans[j], j == 0 ? in : mid, j == n - 1 ? out : mid) != HL_OK)
                return 1e30;
        const double t = seconds() - t0;
        best = r > 0 && t < best ? t : best;
    }
    return best;
}

/* HL_EFFORT_MEASURE: whether the composed boxes c of stages [from, i]
 * run faster as one pass than a (stages [from, i)) and b (stage i) as two,
 * timed on buffers of the arrays' sizes (FFTW's measured planning). */
static hl_status measure_merge(const hl_plan *p, const hl_planner *planner, const stage_list *l,
                               int from, int i, const hl_box *a, int64_t na, const hl_box *b,
                               int64_t nb, const hl_box *c, int64_t nc, bool *merge)
{
    const int64_t es = p->ir.elem_size, in_span = l->at[from]->ir.in_span;
    const int64_t mid_span = l->at[i]->ir.in_span, out_span = l->at[i]->ir.out_span;
    const hl_plan_options o = {.threads = p->opt.threads};
    hl_plan *two[2] = {NULL, NULL}, *one = NULL;
    unsigned char *in = calloc((size_t)(in_span > 0 ? in_span : 1), (size_t)es);
    unsigned char *mid = calloc((size_t)(mid_span > 0 ? mid_span : 1), (size_t)es);
    unsigned char *out = calloc((size_t)(out_span > 0 ? out_span : 1), (size_t)es);
    hl_status st = in && mid && out ? HL_OK : HL_ERR_NOMEM;
    if (st == HL_OK)
        st = planner->boxes(&two[0], a, na, es, in_span, mid_span, &o);
    if (st == HL_OK)
        st = planner->boxes(&two[1], b, nb, es, mid_span, out_span, &o);
    if (st == HL_OK)
        st = planner->boxes(&one, c, nc, es, in_span, out_span, &o);
    if (st == HL_OK)
        *merge = time_runs(&one, 1, in, NULL, out) < time_runs(two, 2, in, mid, out);
    hl_plan_destroy(two[0]);
    hl_plan_destroy(two[1]);
    hl_plan_destroy(one);
    free(in);
    free(mid);
    free(out);
    return st;
}

/* Whether stages [from, i] run as one pass of their composed boxes c: what
 * the wisdom holds for their problem, else (HL_EFFORT_MEASURE) what timing
 * says, recorded as wisdom, else the cost rule. */
static hl_status decide_merge(const hl_plan *p, const hl_planner *planner, const stage_list *l,
                              int from, int i, const hl_box *a, int64_t na, const hl_box *b,
                              int64_t nb, const hl_box *c, int64_t nc, bool *merge)
{
    *merge = worth_composing(na, nb, c, nc, p->ir.elem_size);
    const hl_problem **parts = malloc(sizeof *parts * (size_t)(i - from + 1));
    hl_problem *pr = NULL;
    hl_status st = parts ? HL_OK : HL_ERR_NOMEM;
    for (int j = from; j <= i && st == HL_OK; j++)
        if (!(parts[j - from] = l->at[j]->problem))
            st = HL_ERR_UNSUPPORTED;
    if (st == HL_OK)
        st = hl_problem_chain(&pr, parts, i - from + 1);
    free(parts);
    if (st != HL_OK) /* no problem to key wisdom by: the rule decides */
        return st == HL_ERR_NOMEM ? st : HL_OK;
    const hl_wisdom_chain_key key = {hl_isa_name(), p->ir.elem_size,
                                     hl_threads_bound(p->opt.threads), hl_problem_hash(pr)};
    hl_problem_destroy(pr);
    if (hl_wisdom_lookup_compose(&key, merge) || p->opt.effort != HL_EFFORT_MEASURE)
        return HL_OK;
    st = measure_merge(p, planner, l, from, i, a, na, b, nb, c, nc, merge);
    return st == HL_OK ? hl_wisdom_record_compose(&key, *merge) : st;
}

/* Stages [from, to) merged into one plan of their composed boxes: the
 * plan of those steps as a chain (hl_plan_compose, which composes them
 * again: see make_stages' "whole" case). */
static hl_status merge_stages(stage_list *l, const hl_planner *planner, int from, int to,
                              const hl_plan_options *opt)
{
    if (to - from == 1) { /* a stage as it is: its output ranges, if it writes p's output */
        hl_plan *q = l->at[from];
        if (opt->range == 0 || !q->ir.lowered)
            return HL_OK;
        q->opt.range = opt->range;
        return hl_plan_make_ranges(q, planner);
    }
    hl_plan *merged;
    const hl_status st =
        planner->chain(&merged, (const hl_plan *const *)&l->at[from], to - from, opt);
    if (st != HL_OK) /* e.g. spans that differ: the stages stay as they are */
        return st == HL_ERR_NOMEM ? st : HL_OK;
    for (int i = from; i < to; i++)
        hl_plan_destroy(l->at[i]);
    l->at[from] = merged;
    for (int i = to; i < l->n; i++)
        l->at[i - (to - from - 1)] = l->at[i];
    l->n -= to - from - 1;
    return HL_OK;
}

/* The groups of consecutive stages whose boxes compose (box_compose.h) and
 * that the cost rule says run faster as one pass, merged; a chain that is
 * one such group becomes a plan of one pass (*whole: its boxes, the caller
 * packs them). */
static hl_status compose_stages(const hl_plan *p, const hl_planner *planner, stage_list *l,
                                const hl_plan_options *opt, hl_box **whole, int64_t *nwhole)
{
    *whole = NULL;
    *nwhole = 0;
    const int k = l->n;
    int ngroups = 0, *first = malloc(sizeof *first * (size_t)k); /* each group's first stage */
    if (!first)
        return HL_ERR_NOMEM;
    hl_box *cur = NULL, *next = NULL, *c = NULL;
    int64_t ncur = 0, nnext = 0, nc = 0;
    hl_status st = unpack_boxes(l->at[0], &cur, &ncur);
    first[ngroups++] = 0;
    for (int i = 1; i < k && st == HL_OK; i++) {
        if ((st = unpack_boxes(l->at[i], &next, &nnext)) != HL_OK)
            break;
        hl_status cs = HL_ERR_UNSUPPORTED;
        if (cur && next)
            cs = hl_box_compose(cur, ncur, next, nnext, HL_PLAN_MAX_BOXES, &c, &nc);
        if (cs == HL_ERR_NOMEM) {
            st = cs;
            break;
        }
        bool merge = false;
        if (cs == HL_OK &&
            (st = decide_merge(p, planner, l, first[ngroups - 1], i, cur, ncur, next, nnext, c,
                               nc, &merge)) != HL_OK) {
            free(c);
            break;
        }
        if (merge) {
            free(cur);
            free(next);
            cur = c;
            ncur = nc;
        } else {
            free(c);
            free(cur);
            cur = next;
            ncur = nnext;
            first[ngroups++] = i;
        }
        c = next = NULL;
    }
    if (st == HL_OK && ngroups == 1 && k > 1) {
        *whole = cur;
        *nwhole = ncur;
        cur = NULL;
    } else {
        for (int g = ngroups - 1; g >= 0 && st == HL_OK; g--) { /* from the end: indices stay */
            hl_plan_options o = *opt; /* output ranges for the group that writes the output */
            o.range = g + 1 < ngroups ? 0 : opt->range;
            st = merge_stages(l, planner, first[g], g + 1 < ngroups ? first[g + 1] : k, &o);
        }
    }
    free(cur);
    free(next);
    free(first);
    return st;
}

hl_status hl_plan_make_stages(hl_plan *p, const hl_planner *planner)
{
    hl_ir *ir = &p->ir;
    const int k = ir->nsteps;
    stage_list l = {calloc((size_t)k, sizeof *l.at), 0};
    if (!l.at)
        return HL_ERR_NOMEM;
    /* the stages are prepared with the plan's executors (plan.c), once
     * composing has decided which stay; until then they have boxes, not
     * executors or output ranges */
    hl_plan_options opt = {.threads = p->opt.threads, .effort = p->opt.effort};
    hl_status st = HL_OK;
    for (int i = 0; i < k && st == HL_OK; i++) {
        hl_problem *pr;
        st = hl_problem_create(&pr, &ir->steps[i].src, &ir->steps[i].dst, ir->elem_size);
        if (st == HL_OK)
            st = planner->problem(&l.at[i], pr, &opt);
        if (st == HL_OK)
            l.n = i + 1;
    }
    opt.range = p->opt.range; /* for the stage that writes the output */
    hl_box *whole = NULL;
    int64_t nwhole = 0;
    if (st == HL_OK)
        st = compose_stages(p, planner, &l, &opt, &whole, &nwhole);
    if (st != HL_OK || whole) {
        free_stages(&l);
        if (st != HL_OK)
            return st;
        /* one pass: the composed boxes; in place they write scratch and
         * it is copied back (plan_composed.c), as the stages ran through
         * scratch, rather than walking cycles of cells */
        st = hl_ir_pack_boxes(ir, whole, nwhole);
        free(whole);
        const int64_t bytes = ir->in_place ? (ir->in_span * ir->elem_size + 63) / 64 * 64 : 0;
        return st != HL_OK ? st : hl_plan_set_composed(p, bytes);
    }
    int64_t most = 0; /* the largest intermediate */
    bool fits = true;  /* every intermediate fits in out (and in, in place) */
    for (int i = 0; i < l.n; i++) {
        /* the last stage's output too: in place it may land in scratch */
        const int64_t span = l.at[i]->ir.out_span;
        most = span > most ? span : most;
        if (i < l.n - 1)
            fits = fits && span <= ir->out_span && span <= ir->in_span;
    }
    return hl_plan_set_staged(p, l.at, l.n, fits ? 1 : 2, (most * ir->elem_size + 63) / 64 * 64);
}
