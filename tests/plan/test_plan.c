/* Plans against brute-force references: every transform on random shapes
 * and element sizes, chains against their steps one by one, inverses, in
 * place against out of place, thread counts, and every error path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "hyperlayout.h"

#include "check.h"
#include "reference.h"


static const int64_t elem_sizes[] = {1, 2, 4, 8, 16, 3, 12};

/* ---- references: where does input cell x go? ------------------------------ */

typedef enum { OP_FLIP, OP_SHIFT, OP_CRINKLE, OP_UNCRINKLE, OP_PERMUTE, OP_TILE, OP_UNTILE,
               OP_MORTON, OP_UNMORTON, OP_COUNT } op_kind;

typedef struct {
    op_kind kind;
    uint64_t dims;
    int dim;
    int64_t step;
    int64_t v[8];
    int perm[8];
} op;

/* Output offset of input cell x (extents L) under a forward op (flip, shift,
 * crinkle, permute, tile, morton); *out_ext gets the output's extents. */
static int64_t ref_target(const op *o, int rank, const int64_t *L, const int64_t *x,
                          int64_t *out_ext)
{
    int64_t y[8];
    memcpy(out_ext, L, sizeof(int64_t) * (size_t)rank);
    memcpy(y, x, sizeof(int64_t) * (size_t)rank);
    switch (o->kind) {
    case OP_FLIP:
        for (int i = 0; i < rank; i++)
            if ((o->dims >> i) & 1)
                y[i] = L[i] - 1 - x[i];
        return ref_k(rank, L, y);
    case OP_SHIFT:
        for (int i = 0; i < rank; i++)
            y[i] = (((x[i] + o->v[i]) % L[i]) + L[i]) % L[i];
        return ref_k(rank, L, y);
    case OP_CRINKLE:
        for (int i = 0; i < rank; i++)
            if (o->dim == -1 || o->dim == i)
                y[i] = ref_crinkle_count(L[i], o->step, x[i]);
        return ref_k(rank, L, y);
    case OP_PERMUTE:
        for (int j = 0; j < rank; j++) {
            out_ext[j] = L[o->perm[j]];
            y[j] = x[o->perm[j]];
        }
        return ref_k(rank, out_ext, y);
    case OP_TILE: {
        int64_t t[8], u[8], nb[8], size = 1;
        const int64_t *b = o->v;
        for (int i = 0; i < rank; i++) {
            t[i] = x[i] / b[i];
            u[i] = x[i] % b[i];
            nb[i] = L[i] / b[i];
            size *= b[i];
        }
        return ref_k(rank, nb, t) * size + ref_k(rank, b, u);
    }
    case OP_MORTON: {
        int bits[8], most = 0;
        for (int i = 0; i < rank; i++) {
            for (bits[i] = 0; (1 << bits[i]) < L[i]; bits[i]++)
                ;
            most = bits[i] > most ? bits[i] : most;
        }
        int64_t m = 0;
        int pos = 0;
        for (int b = 0; b < most; b++)
            for (int i = 0; i < rank; i++)
                if (b < bits[i])
                    m |= ((x[i] >> b) & 1) << pos++;
        return m;
    }
    default: break; /* inverse ops: see ref_apply */
    }
    return -1;
}

/* Draws an op that applies to extents L. */
static void random_op(op *o, int rank, const int64_t *L)
{
    memset(o, 0, sizeof *o);
    int pow2 = 1;
    for (int i = 0; i < rank; i++)
        pow2 = pow2 && (L[i] & (L[i] - 1)) == 0;
    do
        o->kind = (op_kind)rnd(0, OP_COUNT - 1);
    while ((o->kind == OP_MORTON || o->kind == OP_UNMORTON) && !pow2);
    o->dims = rng() & ((1u << rank) - 1);
    for (int i = 0; i < rank; i++)
        o->v[i] = rnd(-2 * L[i], 2 * L[i]);
    o->dim = rnd(0, 3) == 0 ? -1 : (int)rnd(0, rank - 1);
    int64_t minL = L[0];
    for (int i = 0; i < rank; i++)
        minL = L[i] < minL ? L[i] : minL;
    o->step = rnd(1, o->dim == -1 ? minL : L[o->dim]);
    for (int i = 0; i < rank; i++)
        o->perm[i] = i;
    for (int i = rank - 1; i > 0; i--) {
        int t = (int)rnd(0, i), tmp = o->perm[i];
        o->perm[i] = o->perm[t];
        o->perm[t] = tmp;
    }
    if (o->kind == OP_TILE || o->kind == OP_UNTILE)
        for (int i = 0; i < rank; i++) { /* a divisor of L[i] */
            int64_t b;
            do
                b = rnd(1, L[i]);
            while (L[i] % b);
            o->v[i] = b;
        }
}

static hl_status make_plan(hl_plan **p, const op *o, const hl_shape *s, int threads)
{
    hl_plan_options opt = {threads, false};
    switch (o->kind) {
    case OP_FLIP: return hl_plan_flip(p, s, o->dims, &opt);
    case OP_SHIFT: return hl_plan_shift(p, s, o->v, &opt);
    case OP_CRINKLE: return hl_plan_crinkle(p, s, o->dim, o->step, &opt);
    case OP_UNCRINKLE: return hl_plan_uncrinkle(p, s, o->dim, o->step, &opt);
    case OP_PERMUTE: return hl_plan_permute(p, s, o->perm, &opt);
    case OP_TILE: return hl_plan_tile(p, s, o->v, &opt);
    case OP_UNTILE: return hl_plan_untile(p, s, o->v, &opt);
    case OP_MORTON: return hl_plan_morton(p, s, &opt);
    case OP_UNMORTON: return hl_plan_unmorton(p, s, &opt);
    case OP_COUNT: break;
    }
    return HL_ERR_ARG;
}

/* Input with distinct bytes per element. */
static void fill(char *buf, int64_t n, int64_t es, uint64_t salt)
{
    for (int64_t k = 0; k < n; k++)
        for (int64_t b = 0; b < es; b++)
            buf[k * es + b] = (char)((uint64_t)k * 131u + (uint64_t)b * 7u + salt);
}

/* Applies o by the reference; returns the output extents in out_ext.  An
 * inverse op reads where the forward op would have written:
 * out[k(x)] = in[target(x)]. */
static void ref_apply(const op *o, int rank, const int64_t *L, int64_t es, const char *in,
                      char *out, int64_t *out_ext)
{
    op fwd = *o;
    const int inverse = o->kind == OP_UNCRINKLE || o->kind == OP_UNTILE || o->kind == OP_UNMORTON;
    if (inverse)
        fwd.kind = o->kind == OP_UNCRINKLE ? OP_CRINKLE : o->kind == OP_UNTILE ? OP_TILE : OP_MORTON;
    int64_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= L[i];
    for (int64_t k = 0; k < n; k++) {
        int64_t x[8], rest = k;
        for (int i = 0; i < rank; i++) {
            x[i] = rest % L[i];
            rest /= L[i];
        }
        int64_t t = ref_target(&fwd, rank, L, x, out_ext);
        if (inverse)
            memcpy(out + k * es, in + t * es, (size_t)es);
        else
            memcpy(out + t * es, in + k * es, (size_t)es);
    }
}

/* A random shape: small ones (every extent up to 8) exercise every code
 * path on few cells; big ones (up to 2^16 cells, extents up to 600) reach
 * the kernel's transposes, cut runs and partial chunks. */
static void random_shape(hl_shape *s, int64_t *es_out, bool big)
{
    int rank = (int)rnd(1, big ? 4 : 5);
    int64_t L[8];
    int pow2 = rnd(0, 2) == 0;
    int64_t n = 1;
    for (int i = 0; i < rank; i++) {
        if (big)
            L[i] = pow2 ? (int64_t)1 << rnd(0, 9) : rnd(1, 600);
        else
            L[i] = pow2 ? (int64_t)1 << rnd(0, 3) : rnd(1, 6);
        while (big && n * L[i] > ((int64_t)1 << 16))
            L[i] = (L[i] + 1) / 2;
        n *= L[i];
    }
    int64_t es = elem_sizes[rnd(0, 6)];
    assert_int_equal(hl_shape_init(s, rank, L, HL_DTYPE_BYTES, es), HL_OK);
    *es_out = es;
}

static void test_single_ops(void **state)
{
    (void)state;
    for (int t = 0; t < 6000; t++) {
        hl_shape s;
        int64_t es;
        random_shape(&s, &es, false);
        op o;
        random_op(&o, s.rank, s.extent);
        hl_plan *p;
        assert_int_equal(make_plan(&p, &o, &s, (int)rnd(0, 2)), HL_OK);
        int64_t n = hl_shape_count(&s);
        assert_int_equal(hl_plan_in_span(p), n);
        assert_int_equal(hl_plan_out_span(p), n);
        char *in = malloc((size_t)(n * es)), *want = malloc((size_t)(n * es)),
             *got = malloc((size_t)(n * es));
        fill(in, n, es, (uint64_t)t);
        int64_t out_ext[8];
        ref_apply(&o, s.rank, s.extent, es, in, want, out_ext);
        failure_shape(s.rank, s.extent);
        CHECK_EQ(hl_plan_boxes(p) > 0, 1, "op %d lowered to boxes", o.kind);
        assert_int_equal(hl_execute(p, in, got), HL_OK);
        if (memcmp(got, want, (size_t)(n * es)) != 0)
            fail_msg("op %d dim %d step %" PRId64 " es %" PRId64 ": output differs", o.kind, o.dim,
                     o.step, es);
        for (int i = 0; i < s.rank; i++)
            CHECK_EQ(hl_plan_out_shape(p)->extent[i], out_ext[i], "out extent %d", i);
        /* in place gives the same (every op here is a bijection on [0, N)) */
        assert_int_equal(hl_execute(p, in, in), HL_OK);
        assert_memory_equal(in, want, (size_t)(n * es));
        /* the inverse undoes it */
        hl_plan *inv;
        assert_int_equal(hl_plan_inverse(&inv, p), HL_OK);
        assert_int_equal(hl_execute(inv, want, got), HL_OK);
        fill(in, n, es, (uint64_t)t);
        assert_memory_equal(got, in, (size_t)(n * es));
        hl_plan_destroy(inv);
        hl_plan_destroy(p);
        free(in);
        free(want);
        free(got);
    }
    failure_shape(0, NULL);
}

/* A random chain of one to four ops against its steps applied one by one
 * by the reference; in place, and the inverse. */
static void check_chain(int t, bool big, int threads)
{
    {
        hl_shape s;
        int64_t es;
        random_shape(&s, &es, big);
        failure_shape(s.rank, s.extent);
        const hl_plan_options opt = {threads, false};
        const int64_t n = hl_shape_count(&s);
        int len = (int)rnd(1, 4), digit_ops = 1;
        hl_plan *steps[4];
        hl_shape cur = s;
        char *a = malloc((size_t)(n * es)), *b = malloc((size_t)(n * es)),
             *in = malloc((size_t)(n * es)), *got = malloc((size_t)(n * es));
        fill(in, n, es, (uint64_t)t);
        memcpy(a, in, (size_t)(n * es));
        for (int j = 0; j < len; j++) {
            op o;
            random_op(&o, cur.rank, cur.extent);
            assert_int_equal(make_plan(&steps[j], &o, &cur, 0), HL_OK);
            digit_ops = digit_ops && o.kind != OP_TILE && o.kind != OP_UNTILE &&
                        o.kind != OP_MORTON && o.kind != OP_UNMORTON;
            int64_t out_ext[8];
            ref_apply(&o, cur.rank, cur.extent, es, a, b, out_ext);
            memcpy(a, b, (size_t)(n * es));
            for (int i = 0; i < cur.rank; i++)
                cur.extent[i] = out_ext[i];
        }
        hl_plan *chain;
        assert_int_equal(hl_plan_compose(&chain, steps, len, &opt), HL_OK);
        /* chains of flips, shifts, crinkles and permutes fold into one step */
        if (digit_ops)
            assert_true(hl_plan_boxes(chain) > 0);
        assert_int_equal(hl_execute(chain, in, got), HL_OK);
        assert_memory_equal(got, a, (size_t)(n * es));
        for (int i = 0; i < cur.rank; i++)
            assert_int_equal(hl_plan_out_shape(chain)->extent[i], cur.extent[i]);
        /* in place and the inverse */
        assert_int_equal(hl_execute(chain, in, in), HL_OK);
        assert_memory_equal(in, a, (size_t)(n * es));
        hl_plan *inv;
        assert_int_equal(hl_plan_inverse(&inv, chain), HL_OK);
        assert_int_equal(hl_execute(inv, a, got), HL_OK);
        fill(in, n, es, (uint64_t)t);
        assert_memory_equal(got, in, (size_t)(n * es));
        hl_plan_destroy(inv);
        hl_plan_destroy(chain);
        for (int j = 0; j < len; j++)
            hl_plan_destroy(steps[j]);
        free(a);
        free(b);
        free(in);
        free(got);
    }
}

static void test_chains(void **state)
{
    (void)state;
    for (int t = 0; t < 4000; t++)
        check_chain(t, false, 0);
    failure_shape(0, NULL);
}

/* The same on big shapes, with 1 to 3 threads. */
static void test_big_chains(void **state)
{
    (void)state;
    for (int t = 0; t < 100; t++)
        check_chain(t, true, (int)rnd(1, 3));
    failure_shape(0, NULL);
}

/* Long rows, against the reference: out of place (rows cut into pieces for
 * the threads) and in place (rows too long for the row path: the cycles
 * are then shared out among the threads). */
static void test_long_rows(void **state)
{
    (void)state;
    static const int64_t lengths[][2] = {{100000, 1}, {70001, 1}, {3, 40000}, {30011, 4}};
    static const int64_t sizes[] = {1, 4, 8, 12};
    for (int64_t L = 1; L <= 40; L++) /* the reference's counting form of crinkle */
        for (int64_t n = 1; n <= L; n++)
            for (int64_t x = 0; x < L; x++)
                assert_int_equal(ref_crinkle_count(L, n, x), ref_crinkle(L, n, x));
    for (int t = 0; t < 32; t++) {
        const int64_t *L = lengths[t % 4];
        const int64_t es = sizes[t / 4 % 4];
        const int rank = L[1] == 1 ? 1 : 2;
        hl_shape s;
        assert_int_equal(hl_shape_init(&s, rank, L, HL_DTYPE_BYTES, es), HL_OK);
        failure_shape(rank, L);
        op o;
        do
            random_op(&o, rank, L);
        while (o.kind == OP_PERMUTE || o.kind == OP_TILE || o.kind == OP_UNTILE ||
               o.kind == OP_MORTON || o.kind == OP_UNMORTON);
        hl_plan *p;
        assert_int_equal(make_plan(&p, &o, &s, (int)rnd(1, 3)), HL_OK);
        const int64_t n = hl_shape_count(&s);
        char *a = malloc((size_t)(n * es)), *want = malloc((size_t)(n * es));
        fill(a, n, es, (uint64_t)t);
        int64_t out_ext[8];
        ref_apply(&o, rank, L, es, a, want, out_ext);
        char *got = malloc((size_t)(n * es));
        assert_int_equal(hl_execute(p, a, got), HL_OK);
        if (memcmp(got, want, (size_t)(n * es)) != 0)
            fail_msg("op %d dim %d step %" PRId64 " es %" PRId64 " differs", o.kind, o.dim, o.step, es);
        free(got);
        assert_int_equal(hl_execute(p, a, a), HL_OK);
        if (memcmp(a, want, (size_t)(n * es)) != 0)
            fail_msg("in place: op %d dim %d step %" PRId64 " es %" PRId64 " differs", o.kind, o.dim,
                     o.step, es);
        hl_plan_destroy(p);
        free(a);
        free(want);
    }
    failure_shape(0, NULL);
}

/* Dimensions longer than 2^20 keep no cycles in the plan: flips and shifts
 * of them run in place as passes of swaps, crinkles by the general walk. */
static void test_long_dimension(void **state)
{
    (void)state;
    static const int64_t lengths[] = {((int64_t)1 << 20) + 3, ((int64_t)1 << 20) + 64};
    for (int t = 0; t < 8; t++) {
        /* flip; shift; flip then shift (a reflection); shift then crinkle */
        const int64_t L[1] = {lengths[t / 4]}, es = t % 2 ? 4 : 1, n = L[0];
        hl_shape s;
        assert_int_equal(hl_shape_init(&s, 1, L, HL_DTYPE_BYTES, es), HL_OK);
        op o[2];
        memset(o, 0, sizeof o);
        const int kind = t % 4, len = kind < 2 ? 1 : 2;
        op *flip = &o[0], *shift = &o[kind == 1 ? 0 : kind == 2 ? 1 : 0], *crinkle = &o[1];
        flip->kind = OP_FLIP;
        flip->dims = 1;
        if (kind == 1 || kind == 2 || kind == 3) {
            shift->kind = OP_SHIFT;
            shift->v[0] = rnd(-n, n);
        }
        if (kind == 3) {
            crinkle->kind = OP_CRINKLE;
            crinkle->step = 2;
        }
        hl_plan *steps[2], *chain;
        char *a = malloc((size_t)(n * es)), *b = malloc((size_t)(n * es)), *want = malloc((size_t)(n * es));
        fill(a, n, es, (uint64_t)t);
        memcpy(want, a, (size_t)(n * es));
        for (int j = 0; j < len; j++) {
            op *oj = &o[j];
            assert_int_equal(make_plan(&steps[j], oj, &s, (int)rnd(1, 3)), HL_OK);
            int64_t out_ext[1];
            ref_apply(oj, 1, L, es, want, b, out_ext);
            memcpy(want, b, (size_t)(n * es));
        }
        assert_int_equal(hl_plan_compose(&chain, steps, len, NULL), HL_OK);
        assert_int_equal(hl_execute(chain, a, a), HL_OK);
        if (memcmp(a, want, (size_t)(n * es)) != 0)
            fail_msg("long dimension %" PRId64 ", case %d: in place differs", n, t);
        hl_plan_destroy(chain);
        for (int j = 0; j < len; j++)
            hl_plan_destroy(steps[j]);
        free(a);
        free(b);
        free(want);
    }
}

/* Layout-to-layout plans with padding: a tiled array whose blocks do not
 * divide, and back. */
static void test_padded_tiles(void **state)
{
    (void)state;
    const int64_t L[] = {7, 5}, blk[] = {3, 2};
    hl_layout std, tiled;
    assert_int_equal(hl_layout_standard(&std, 2, L), HL_OK);
    assert_int_equal(hl_layout_tiled(&tiled, 2, L, blk), HL_OK);
    hl_plan *fwd, *back;
    assert_int_equal(hl_plan_create(&fwd, &std, &tiled, 4, NULL), HL_OK);
    assert_int_equal(hl_plan_out_span(fwd), 54);
    assert_int_equal(hl_plan_create(&back, &tiled, &std, 4, NULL), HL_OK);
    int32_t in[35], mid[54], out[35];
    for (int i = 0; i < 35; i++)
        in[i] = i * 3 + 1;
    memset(mid, 0xff, sizeof mid);
    assert_int_equal(hl_execute(fwd, in, mid), HL_OK);
    assert_int_equal(mid[(2 + 3 * 2) * 6], in[6 + 7 * 4]); /* x = (6, 4) */
    assert_int_equal(mid[(2 + 3 * 2) * 6 + 1], -1);        /* padding untouched */
    assert_int_equal(hl_execute(back, mid, out), HL_OK);
    assert_memory_equal(in, out, sizeof in);
    assert_int_equal(hl_execute(fwd, in, in), HL_ERR_IN_PLACE);
    hl_plan *chain;
    const hl_plan *both[] = {fwd, back};
    assert_int_equal(hl_plan_compose(&chain, both, 2, NULL), HL_OK);
    memset(out, 0, sizeof out);
    assert_int_equal(hl_execute(chain, in, out), HL_OK);
    assert_memory_equal(in, out, sizeof in);
    hl_plan_destroy(chain);
    hl_plan_destroy(fwd);
    hl_plan_destroy(back);
}

/* A random layout of extents L: standard, tiled or Morton, then random
 * flips, rotations and (un)crinkles. */
static void random_layout(hl_layout *lay, int rank, const int64_t *L)
{
    int64_t blk[8];
    switch (rnd(0, 2)) {
    case 0: assert_int_equal(hl_layout_standard(lay, rank, L), HL_OK); break;
    case 1:
        for (int i = 0; i < rank; i++)
            blk[i] = rnd(1, 4);
        assert_int_equal(hl_layout_tiled(lay, rank, L, blk), HL_OK);
        break;
    default: assert_int_equal(hl_layout_morton(lay, rank, L), HL_OK);
    }
    for (int m = (int)rnd(0, 4); m > 0; m--) {
        int d = (int)rnd(0, rank - 1);
        int64_t sh[8];
        for (int i = 0; i < rank; i++)
            sh[i] = rnd(-9, 9);
        switch (rnd(0, 3)) {
        case 0: assert_int_equal(hl_layout_flip(lay, lay, rng() & ((1u << rank) - 1)), HL_OK); break;
        case 1: assert_int_equal(hl_layout_shift(lay, lay, sh), HL_OK); break;
        case 2: assert_int_equal(hl_layout_crinkle(lay, lay, d, rnd(1, L[d])), HL_OK); break;
        default: assert_int_equal(hl_layout_uncrinkle(lay, lay, d, rnd(1, L[d])), HL_OK);
        }
    }
}

/* The box engine against cell-by-cell evaluation on random pairs of layouts,
 * padding included. */
static void test_boxes_against_cells(void **state)
{
    (void)state;
    int64_t lowered = 0, cases = 3000;
    for (int t = 0; t < cases; t++) {
        int rank = (int)rnd(1, 4);
        int64_t L[8];
        for (int i = 0; i < rank; i++)
            L[i] = rnd(1, 9);
        hl_layout src, dst;
        random_layout(&src, rank, L);
        random_layout(&dst, rank, L);
        int64_t es = elem_sizes[rnd(0, 6)];
        hl_plan *fast, *slow;
        const hl_plan_options ref = {1, true};
        assert_int_equal(hl_plan_create(&fast, &src, &dst, es, NULL), HL_OK);
        assert_int_equal(hl_plan_create(&slow, &src, &dst, es, &ref), HL_OK);
        assert_int_equal(hl_plan_boxes(slow), 0);
        lowered += hl_plan_boxes(fast) > 0;
        int64_t nin = hl_plan_in_span(fast), nout = hl_plan_out_span(fast);
        char *in = malloc((size_t)(nin * es)), *a = malloc((size_t)(nout * es)),
             *b = malloc((size_t)(nout * es));
        fill(in, nin, es, (uint64_t)t);
        memset(a, 0x5a, (size_t)(nout * es));
        memset(b, 0x5a, (size_t)(nout * es));
        assert_int_equal(hl_execute(fast, in, a), HL_OK);
        assert_int_equal(hl_execute(slow, in, b), HL_OK);
        if (memcmp(a, b, (size_t)(nout * es)) != 0)
            fail_msg("case %d: boxes and cells differ (rank %d, %" PRId64 " boxes)", t, rank,
                     hl_plan_boxes(fast));
        hl_plan_destroy(fast);
        hl_plan_destroy(slow);
        free(in);
        free(a);
        free(b);
    }
    /* nearly all of these lower; say so if that ever changes */
    print_message("%" PRId64 " of %" PRId64 " random layout pairs lowered to boxes\n", lowered, cases);
    assert_true(lowered * 10 >= cases * 9);
}

/* Whether this CPU has the AVX-512 kernels (the solvers only they have). */
static bool has_avx512(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_cpu_supports("avx512f");
#else
    return false;
#endif
}

/* Outputs of 32 MiB and more are streamed: the row groups (runs staged
 * whole, or their members streamed one by one), the blocks with lookahead
 * and the short-row blocks, on 1 and 2 threads, against the reference
 * evaluation cell by cell.  Each case names the solver it is there for. */
static void test_streamed(void **state)
{
    (void)state;
    static const struct {
        const char *shape, *ops, *solver;
    } cases[] = {
        {"[130,251,258,float32]", "flip:0 shift:1,-1,1 crinkle:0:2", "row groups"},
        {"[1031,4102,float64]", "flip:0 shift:-3,5 crinkle:0:2", "row groups"},
        {"[2050,4100,float32]", "shift:7,0", "row groups"},
        /* odd extents crinkled by 2: one box per dimension's main part
         * (only the last group is short), whole-line boxes not grouped;
         * a group whose members are several rows, read in source order */
        {"[255,257,256,float32]", "crinkle:all:2", "strided rows"},
        {"[255,257,256,float32]", "uncrinkle:all:2", "lane permutes"},
        {"[255,257,257,float32]", "crinkle:all:2", "row groups"},
        /* both halves of crinkled rows from one read, on lines and not,
         * forwards and flipped (rows of 1 KiB read downwards, of 16 KiB
         * upwards from their last vector); the chains above take them in
         * their row groups */
        {"[4096,4128,float32]", "crinkle:0:2", "both halves of a crinkled row"},
        {"[4096,4104,float32]", "flip:0 crinkle:0:2", "both halves of a crinkled row"},
        {"[130,256,256,float64]", "crinkle:all:2", "both halves of a crinkled row"},
        {"[256,256,256,float32]", "flip:0 crinkle:0:2", "both halves of a crinkled row"},
        {"[16777216,float32]", "crinkle:0:2", "both halves of a crinkled row"}, /* cut rows */
        /* a rotated row's halves, which lie differently against the lines
         * (through a buffer), the lowering's two boxes joined as one: read
         * downwards with the second half first, and upwards */
        {"[16777216,float32]", "flip:0 shift:1 crinkle:0:2", "both halves of a crinkled row"},
        {"[8388608,float64]", "shift:1 crinkle:0:2", "both halves of a crinkled row"},
        /* an odd row's halves, one member of a group beside its last cell */
        {"[4095,4097,float32]", "flip:0 crinkle:0:2", "both halves of a crinkled row"},
        /* interleaved channels split from one read: on lines, and not */
        {"[4194304,4,float32]", "permute:1,0", "4 channels split"},
        {"[2796203,3,float64]", "permute:1,0", "3 channels split"},
        /* members of pairs (an odd uncrinkle) walked along their next digit;
         * long runs whose outer digits go in source order */
        {"[4095,4097,float32]", "uncrinkle:0:2", "row groups"},
        {"[4095,4097,float64]", "crinkle:all:2", "row groups"},
        /* Morton's pairs of rows loaded together, a line a step (2-D and
         * 3-D) or two lines (4-D, and float64) */
        {"[2048,4096,float32]", "morton", "rows loaded in pairs, 1 line a step"},
        {"[64,64,64,64,float32]", "morton", "rows loaded in pairs, 2 lines a step by lane permutes, output lines by a table"},
        {"[64,64,64,64,float64]", "morton", "rows loaded in pairs, 2 lines a step"},
        {"[128,256,264,float32]", "tile:8,8,8", "rows streamed straight"},
        {"[130,130,130,4,float64]", "tile:4,2,2,2", "short-row blocks"},
        /* blocks of a digit cut evenly, its counter ordered with the others
         * (rows of 12 bytes: rows of 8 and 16 are cells of a transpose) */
        {"[2040,2040,3,float32]", "permute:0,2,1", "short-row blocks"},
        /* rows of components transposed as cells of their size */
        {"[2048,4096,2,float32]", "permute:0,2,1", "cells of 8 bytes"},
        {"[2048,2048,4,float32]", "flip:1 permute:0,2,1", "cells of 16 bytes"},
        /* the direct stores of dense blocks: rows of 64 bytes, and a last
         * chunk of one tile (a half batch of 64 bytes) */
        {"[2048,2056,float64]", "tile:8,8", "rows streamed straight"},
        {"[2048,4100,float32]", "tile:4,4", "rows loaded in pairs"},
        /* lane permutes (AVX-512, as the halves; other levels: the solvers
         * before them); rows of 512 bytes, the longest a box's take */
        {"[64,64,64,64,float64]", "flip:0", "lane permutes"},
        {"[16,16,16,16,16,16,float32]", "flip:0 shift:1,-1,1,-1,1,-1 crinkle:0:2", "row groups by lane permutes"},
        {"[64,64,64,64,float32]", "shift:3,1,-1,2 crinkle:0:2", "row groups by lane permutes"},
        /* rows read forwards, taken in rising source order and written
         * downwards: odd rows (partial lines at both ends), a flip beside a
         * rotation (two boxes), and a group's rotated runs */
        {"[4095,2049,float32]", "flip:1", "planes in rising source order, written downwards"},
        {"[255,257,130,float32]", "flip:1 shift:0,0,3", "planes in rising source order, written downwards"},
        {"[130,255,257,float32]", "flip:1 shift:1,1,1", "planes in rising source order, written downwards"},
        /* blocks of rows of 128 bytes read downwards (their lines requested
         * ahead) */
        {"[64,64,64,16,float64]", "flip:1", "rows streamed straight"},
        /* a transpose whose output runs of 1 KiB start their row chunks at
         * a line of a buffer 16 bytes off one */
        {"[256,256,256,float32]", "permute:1,0,2", "register transpose"},
        /* whole matrices of 16 KiB, through the stage when 16 bytes off */
        {"[64,64,64,64,float32]", "permute:1,0,3,2", "register transpose"},
        /* output rows of 1028 bytes, which cannot start lines: staged */
        {"[255,257,256,float32]", "permute:1,0,2", "staged"},
    };
    const bool avx512 = has_avx512();
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        hl_shape s;
        assert_int_equal(hl_shape_parse(&s, cases[c].shape), HL_OK);
        const int64_t bytes = hl_shape_count(&s) * s.elem_size;
        assert_true(bytes >= (int64_t)32 << 20);
        /* the output on a line boundary (blocks then stream straight from
         * the source) and 16 bytes off one (as malloc's and NumPy's) */
        char *in = malloc((size_t)bytes), *want = malloc((size_t)bytes);
        char *line = aligned_alloc(64, (size_t)((bytes + 127) / 64 * 64)); /* a multiple of 64 */
        assert_non_null(in);
        assert_non_null(want);
        assert_non_null(line);
        /* bytes with no period (a pattern of period 256 hid swapped cells
         * 64 float32 apart) */
        for (int64_t i = 0; i < bytes; i++)
            in[i] = (char)(((uint64_t)i * 0x9E3779B97F4A7C15u) >> 56);
        /* the reference cell by cell on 2 threads: most of this test's time
         * under the sanitizers, where it may run alone at the end */
        const hl_plan_options ref = {2, true};
        hl_plan *slow;
        assert_int_equal(hl_plan_ops(&slow, &s, cases[c].ops, 0, &ref, NULL, 0), HL_OK);
        assert_int_equal(hl_execute(slow, in, want), HL_OK);
        for (int run = 0; run < 4; run++) {
            const int threads = 1 + run % 2;
            char *got = line + (run < 2 ? 0 : 16);
            const hl_plan_options opt = {threads, false};
            hl_plan *fast;
            assert_int_equal(hl_plan_ops(&fast, &s, cases[c].ops, 0, &opt, NULL, 0), HL_OK);
            char text[8192];
            assert_int_equal(hl_plan_describe(fast, text, sizeof text, NULL), HL_OK);
            const bool avx512_only = strstr(cases[c].solver, "lane permutes") != NULL ||
                                     strstr(cases[c].solver, "both halves") != NULL ||
                                     strstr(cases[c].solver, "channels split") != NULL ||
                                     strstr(cases[c].solver, "cells of 16") != NULL ||
                                     strstr(cases[c].solver, "in pairs") != NULL;
            if (!strstr(text, cases[c].solver) && !(avx512_only && !avx512))
                fail_msg("%s %s: no '%s' in\n%s", cases[c].shape, cases[c].ops, cases[c].solver,
                         text);
            memset(got, 0x5a, (size_t)bytes);
            assert_int_equal(hl_execute(fast, in, got), HL_OK);
            if (memcmp(got, want, (size_t)bytes) != 0)
                fail_msg("%s %s on %d threads, output %d bytes off a line, differs from the "
                         "reference", cases[c].shape, cases[c].ops, threads, run < 2 ? 0 : 16);
            hl_plan_destroy(fast);
        }
        hl_plan_destroy(slow);
        free(in);
        free(want);
        free(line);
    }
}

/* Short rows loaded in pairs (AVX-512) in arrays small enough not to be
 * streamed: plain stores, into an output on a line and 16 bytes off one,
 * against the reference cell by cell; one line a step and two, rows of 8
 * and 16 bytes, lines written one after another and by a table, and a flip
 * before Morton (rows read downwards). */
static void test_pairs_in_cache(void **state)
{
    (void)state;
    int tabled = 0;
    static const char *const cases[][2] = {
        {"[32,32,32,float32]", "morton"},     {"[64,64,float32]", "morton"},
        {"[8,8,8,8,float64]", "morton"},      {"[16,16,16,16,float32]", "morton"},
        {"[8,8,8,8,8,8,float32]", "morton"},  {"[64,64,float32]", "tile:4,4"},
        {"[4,4,4,64,float32]", "morton"}, {"[8,8,4,64,float32]", "morton"}, /* lines by a table */
        {"[64,128,float64]", "tile:2,4"},     {"[4,4,4,4,4,4,float32]", "flip:2 morton"},
    };
    const bool avx512 = has_avx512();
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        hl_shape s;
        assert_int_equal(hl_shape_parse(&s, cases[c][0]), HL_OK);
        const int64_t bytes = hl_shape_count(&s) * s.elem_size;
        char *in = malloc((size_t)bytes), *want = malloc((size_t)bytes);
        char *line = aligned_alloc(64, (size_t)((bytes + 127) / 64 * 64));
        assert_non_null(in);
        assert_non_null(want);
        assert_non_null(line);
        for (int64_t i = 0; i < bytes; i++)
            in[i] = (char)(((uint64_t)i * 0x9E3779B97F4A7C15u) >> 56);
        const hl_plan_options ref = {1, true}, opt = {1, false};
        hl_plan *slow, *fast;
        assert_int_equal(hl_plan_ops(&slow, &s, cases[c][1], 0, &ref, NULL, 0), HL_OK);
        assert_int_equal(hl_plan_ops(&fast, &s, cases[c][1], 0, &opt, NULL, 0), HL_OK);
        char text[8192];
        assert_int_equal(hl_plan_describe(fast, text, sizeof text, NULL), HL_OK);
        if (avx512 && !strstr(text, "rows loaded in pairs"))
            fail_msg("%s %s: no pairs in\n%s", cases[c][0], cases[c][1], text);
        tabled += strstr(text, "output lines by a table") != NULL;
        assert_int_equal(hl_execute(slow, in, want), HL_OK);
        for (int off = 0; off <= 16; off += 16) {
            memset(line, 0x5a, (size_t)bytes + 16);
            assert_int_equal(hl_execute(fast, in, line + off), HL_OK);
            assert_memory_equal(line + off, want, (size_t)bytes);
        }
        hl_plan_destroy(fast);
        hl_plan_destroy(slow);
        free(in);
        free(want);
        free(line);
    }
    assert_true(avx512 ? tabled >= 2 : tabled == 0);
}

/* A composition of radices that share no factor: lowering the fold gives
 * up (the plan runs in two stages, each of which lowers) instead of
 * cutting without end (the stack overflowed). */
static void test_deep_radix(void **state)
{
    (void)state;
    hl_shape s;
    assert_int_equal(hl_shape_parse(&s, "[206180,uint8]"), HL_OK);
    const int64_t n = hl_shape_count(&s);
    unsigned char *in = malloc((size_t)n), *mid = malloc((size_t)n), *want = malloc((size_t)n),
                  *got = malloc((size_t)n);
    assert_non_null(in);
    assert_non_null(mid);
    assert_non_null(want);
    assert_non_null(got);
    for (int64_t i = 0; i < n; i++)
        in[i] = (unsigned char)(i * 7 + i / 251);
    hl_plan *a, *b, *ab;
    assert_int_equal(hl_plan_ops(&a, &s, "uncrinkle:0:9", 0, NULL, NULL, 0), HL_OK);
    assert_int_equal(hl_plan_ops(&b, &s, "crinkle:0:7", 0, NULL, NULL, 0), HL_OK);
    assert_int_equal(hl_plan_ops(&ab, &s, "uncrinkle:0:9 crinkle:0:7", 0, NULL, NULL, 0), HL_OK);
    assert_int_equal(hl_execute(a, in, mid), HL_OK);
    assert_int_equal(hl_execute(b, mid, want), HL_OK);
    assert_int_equal(hl_execute(ab, in, got), HL_OK);
    assert_memory_equal(got, want, (size_t)n);
    hl_plan_destroy(a);
    hl_plan_destroy(b);
    hl_plan_destroy(ab);
    free(in);
    free(mid);
    free(want);
    free(got);
}

static void test_errors(void **state)
{
    (void)state;
    hl_plan *p = (hl_plan *)&p;
    hl_shape s;
    assert_int_equal(hl_shape_parse(&s, "[4,6,float32]"), HL_OK);
    const hl_plan_options bad = {-1, false};
    assert_int_equal(hl_plan_flip(&p, &s, 1, &bad), HL_ERR_ARG);
    assert_null(p);
    assert_int_equal(hl_plan_flip(NULL, &s, 1, NULL), HL_ERR_NULL);
    assert_int_equal(hl_plan_flip(&p, NULL, 1, NULL), HL_ERR_NULL);
    assert_int_equal(hl_plan_flip(&p, &s, 4, NULL), HL_ERR_DIM);
    assert_int_equal(hl_plan_shift(&p, &s, NULL, NULL), HL_ERR_NULL);
    assert_int_equal(hl_plan_crinkle(&p, &s, 2, 2, NULL), HL_ERR_DIM);
    assert_int_equal(hl_plan_crinkle(&p, &s, 0, 7, NULL), HL_ERR_STEP);
    assert_int_equal(hl_plan_crinkle(&p, &s, -1, 5, NULL), HL_ERR_STEP);
    assert_int_equal(hl_plan_uncrinkle(&p, &s, 0, 0, NULL), HL_ERR_STEP);
    const int perm_bad[] = {1, 1};
    assert_int_equal(hl_plan_permute(&p, &s, perm_bad, NULL), HL_ERR_ARG);
    const int64_t blk_bad[] = {0, 2};
    assert_int_equal(hl_plan_tile(&p, &s, blk_bad, NULL), HL_ERR_ARG);
    assert_int_equal(hl_plan_tile(&p, &s, NULL, NULL), HL_ERR_NULL);

    hl_layout a, b;
    const int64_t L1[] = {4, 6}, L2[] = {6, 4}, ov[] = {1, 1}, neg[] = {-1, 4};
    hl_layout_standard(&a, 2, L1);
    hl_layout_standard(&b, 2, L2);
    assert_int_equal(hl_plan_create(&p, &a, &b, 4, NULL), HL_ERR_MISMATCH);
    assert_int_equal(hl_plan_create(&p, &a, &a, 0, NULL), HL_ERR_ELEM_SIZE);
    assert_int_equal(hl_plan_create(&p, NULL, &a, 4, NULL), HL_ERR_NULL);
    hl_layout_strided(&b, 2, L1, ov, 0);
    assert_int_equal(hl_plan_create(&p, &a, &b, 4, NULL), HL_ERR_UNSUPPORTED);
    hl_layout_strided(&b, 2, L1, neg, 0);
    assert_int_equal(hl_plan_create(&p, &a, &b, 4, NULL), HL_ERR_RANGE);
    const int64_t huge[] = {(int64_t)1 << 61, 2};
    hl_layout_standard(&b, 2, huge);
    assert_int_equal(hl_plan_create(&p, &b, &b, 8, NULL), HL_ERR_BYTES_OVERFLOW);

    /* an overlapping source is fine forward, but has no inverse */
    hl_layout_strided(&b, 2, L1, ov, 0);
    assert_int_equal(hl_plan_create(&p, &b, &a, 4, NULL), HL_OK);
    hl_plan *inv;
    assert_int_equal(hl_plan_inverse(&inv, p), HL_ERR_UNSUPPORTED);
    int32_t in[9], out[24];
    for (int i = 0; i < 9; i++)
        in[i] = i;
    assert_int_equal(hl_execute(p, in, out), HL_OK);
    assert_int_equal(out[1 + 4 * 2], 1 + 2); /* x = (1, 2) reads in[1 + 2] */
    assert_int_equal(hl_execute(p, in, in), HL_ERR_IN_PLACE);
    assert_int_equal(hl_execute(p, NULL, out), HL_ERR_NULL);

    hl_plan *f1, *f2, *chain;
    hl_shape s8;
    hl_shape_parse(&s8, "[4,6,float64]");
    hl_plan_flip(&f1, &s, 1, NULL);
    hl_plan_flip(&f2, &s8, 1, NULL);
    const hl_plan *pair[] = {f1, f2};
    assert_int_equal(hl_plan_compose(&chain, pair, 2, NULL), HL_ERR_MISMATCH);
    assert_int_equal(hl_plan_compose(&chain, pair, 0, NULL), HL_ERR_ARG);
    const hl_plan *with_null[] = {f1, NULL};
    assert_int_equal(hl_plan_compose(&chain, with_null, 2, NULL), HL_ERR_NULL);
    hl_plan_destroy(f1);
    hl_plan_destroy(f2);
    hl_plan_destroy(p);
    hl_plan_destroy(NULL);
}

int main(void)
{
    rng_state = 0x2545F4914F6CDD1Du;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_ops), cmocka_unit_test(test_chains),
        cmocka_unit_test(test_big_chains), cmocka_unit_test(test_long_rows),
        cmocka_unit_test(test_long_dimension),
        cmocka_unit_test(test_padded_tiles), cmocka_unit_test(test_boxes_against_cells),
        cmocka_unit_test(test_streamed), cmocka_unit_test(test_pairs_in_cache),
        cmocka_unit_test(test_deep_radix),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
