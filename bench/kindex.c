/* bench_kindex — micro-benchmark of the k-index apparatus (seed 000, sections 4–8).
 *
 * For every shape and operation it times three implementations on the same
 * sample of k values and reports nanoseconds per call:
 *
 *   div    a plain hand-written implementation with hardware / and %: the
 *          paper's Listing 1 (fromK with the precomputed LP[] the paper
 *          suggests, toK), Listing 2 (neighbour = fromK, step, toK; flip and
 *          shift are written the same way), equation 10 (index) and
 *          equation 22 (crinkle) with / and %;
 *   magic  the library's general path, hl_kindex_* (no hardware division:
 *          64-bit fixed-point fractions when N <= 2^32, else reciprocals);
 *   pow2   the library's power-of-two bit path, hl_kpow2_* (pow2 shapes only).
 *
 * Every timed loop folds its results into a checksum; all paths must give
 * the same checksum (and, in an untimed pass before the timing, the same
 * result element by element), otherwise the program stops with an error: the
 * benchmark doubles as a consistency check.  Shapes are parsed from their
 * notation at run time, so the compiler cannot fold them into constants.
 *
 * Each measurement is repeated and the minimum is kept; the repeats are spread
 * over the whole run and the paths are timed back to back within each repeat,
 * so that load from other processes and clock changes affect them alike; a
 * run during which the thread was descheduled is run again.
 * The loops measure throughput: successive k are independent.  Results are
 * folded as r ^ (k << 1), which no operation can cancel (flip(k) ^ k would be
 * a constant the compiler folds). */
#define _POSIX_C_SOURCE 200809L

/* Scalar code only: the per-element functions are measured as one thread /
 * one stencil point uses them.  (At -O3 GCC otherwise vectorises the short
 * loops over the rank with 16-byte loads of values just stored 8 bytes at a
 * time, and the store-forwarding stalls swamp what is being measured.)
 * Before the includes, so the library's inline functions get the same options. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-vectorize")
#endif

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "hyperlayout/kindex.h"
#include "hyperlayout/shape.h"

#if defined(__GNUC__)
#define NOINLINE __attribute__((noinline))
/* timed loops start on a 64-byte boundary, so that identical machine code
 * gets identical fetch alignment (else timings of short loops over the rank
 * differ by up to ~50% with the code's address alone) */
#define LOOPFN __attribute__((noinline, aligned(64)))
#else
#define NOINLINE
#define LOOPFN
#endif

/* ------------------------------------------------------------------------ */
/* Shapes                                                                    */
/* ------------------------------------------------------------------------ */

static const char *const default_shapes[] = {
    "[16,16,16]",           "[4096,4096]",    "[256,256,256]",
    "[64,64,64,64]",        "[16777216]",     "[16,16,16,16,16,16]",
    "[4095,4097]",          "[255,257,256]",  "[63,65,64,64]",
};
#define NSHAPES ((int)(sizeof default_shapes / sizeof default_shapes[0]))

typedef struct bshape {
    const char *name;
    int rank;
    int64_t count;                    /* N */
    int64_t extent[HL_MAX_RANK];      /* L[i], L0 first */
    int64_t lp[HL_MAX_RANK + 1];      /* LP[i] for the div path */
    int is_pow2;
    hl_kindex ki;                     /* magic */
    hl_kpow2 kp;                      /* pow2 (valid when is_pow2) */
    /* flip: dimensions 0, 2, 4, ... (the paper's figure 5 example f = {1,0,1}) */
    uint64_t flip_dims;
    uint64_t fmask;
    /* shift: s_i = +-(L_i/3 + i + 1), alternating sign */
    int64_t shift[HL_MAX_RANK];       /* as given */
    int64_t shift_red[HL_MAX_RANK];   /* reduced to [0, L_i) for the div path */
    hl_kshift ksh;
    int64_t kshift;
    /* crinkles with step 2: dimension 0 and the outermost dimension */
    int cdim[2];
    hl_kcrinkle cr[2];
    /* sample: k_j = j*step mod N; m distinct k, walked `iters` times in all */
    int64_t m, step, iters;
    /* toK input: coordinates of ntab sample points, rank values each */
    int64_t *xtab;
    int64_t ntab;
} bshape;

static void die(const char *msg, const char *arg)
{
    fprintf(stderr, "bench_kindex: %s%s%s\n", msg, arg ? " " : "", arg ? arg : "");
    exit(1);
}

static void check(hl_status st, const char *what, const char *shape)
{
    if (st != HL_OK) {
        fprintf(stderr, "bench_kindex: %s failed for %s: %s\n", what, shape, hl_strerror(st));
        exit(1);
    }
}

static void plain_fromk(const bshape *s, int64_t k, int64_t *x);

static void shape_setup(bshape *s, const char *notation, int64_t max_sample)
{
    hl_shape sh;
    memset(s, 0, sizeof *s);
    s->name = notation;
    check(hl_shape_parse(&sh, notation), "hl_shape_parse", notation);
    s->rank = sh.rank;
    int64_t lp = 1;
    for (int i = 0; i < s->rank; i++) {
        s->extent[i] = sh.extent[i];
        s->lp[i] = lp;
        lp *= sh.extent[i];
    }
    s->lp[s->rank] = lp;
    s->count = lp;
    check(hl_kindex_init(&s->ki, s->rank, s->extent), "hl_kindex_init", notation);
    hl_status st = hl_kpow2_init(&s->kp, s->rank, s->extent);
    s->is_pow2 = st == HL_OK;
    if (st != HL_OK && st != HL_ERR_NOT_POW2)
        check(st, "hl_kpow2_init", notation);

    for (int i = 0; i < s->rank; i += 2)
        s->flip_dims |= (uint64_t)1 << i;
    if (s->is_pow2)
        s->fmask = hl_kpow2_flipmask(&s->kp, s->flip_dims);

    for (int i = 0; i < s->rank; i++) {
        int64_t v = s->extent[i] / 3 + i + 1;
        s->shift[i] = (i & 1) ? -v : v;
        int64_t r = s->shift[i] % s->extent[i];
        s->shift_red[i] = r < 0 ? r + s->extent[i] : r;
    }
    check(hl_kshift_init(&s->ksh, &s->ki, s->shift), "hl_kshift_init", notation);
    if (s->is_pow2)
        s->kshift = hl_kpow2_shiftk(&s->kp, s->shift);

    s->cdim[0] = 0;
    s->cdim[1] = s->rank - 1;
    for (int c = 0; c < 2; c++)
        check(hl_kcrinkle_init(&s->cr[c], &s->ki, s->cdim[c], 2), "hl_kcrinkle_init", notation);

    if (s->count <= max_sample) {
        /* all k, walked several times so that every timing is long enough */
        s->m = s->count;
        s->step = 1;
        s->iters = (max_sample / s->count) * s->count;
    } else {
        /* an odd step, so that the sample covers [0,N) evenly and all the
         * low-order digits vary from one sample to the next */
        s->m = max_sample;
        s->step = (s->count / max_sample) | 1;
        s->iters = s->m;
    }
    s->ntab = s->m < 16384 ? s->m : 16384;
    s->xtab = malloc((size_t)(s->ntab * s->rank) * sizeof *s->xtab);
    if (!s->xtab)
        die("out of memory", NULL);
    int64_t every = s->m / s->ntab, k = 0;
    for (int64_t t = 0; t < s->ntab; t++) {
        plain_fromk(s, k, s->xtab + t * s->rank);
        for (int64_t e = 0; e < every; e++) { /* k += every*step mod N */
            k += s->step;
            if (k >= s->count)
                k -= s->count;
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Path "div": hardware / and %                                              */
/* ------------------------------------------------------------------------ */

/* Listing 1 fromK, with the precomputed LP[] the paper suggests (one
 * hardware division per dimension gives both quotient and remainder). */
static inline void div_fromk(const bshape *s, int64_t k, int64_t *x)
{
    for (int i = s->rank - 1; i >= 0; i--) {
        int64_t lp = s->lp[i];
        x[i] = k / lp;
        k = k % lp;
    }
}

static void plain_fromk(const bshape *s, int64_t k, int64_t *x)
{
    div_fromk(s, k, x);
}

/* Listing 1 toK. */
static inline int64_t div_tok(const bshape *s, const int64_t *x)
{
    int64_t k = 0, lp = 1;
    for (int i = 0; i < s->rank; i++) {
        k += x[i] * lp;
        lp *= s->extent[i];
    }
    return k;
}

/* Equation 10. */
static inline int64_t div_index(const bshape *s, int64_t k, int i)
{
    return (k / s->lp[i]) % s->extent[i];
}

/* Listing 2: decompose, step with periodic wrap, recompose. */
static inline int64_t div_neighbour(const bshape *s, int64_t k, int i, int64_t inc)
{
    int64_t x[HL_MAX_RANK];
    div_fromk(s, k, x);
    x[i] = (x[i] + inc + s->extent[i]) % s->extent[i];
    return div_tok(s, x);
}

static inline int64_t div_flip(const bshape *s, int64_t k)
{
    int64_t x[HL_MAX_RANK];
    div_fromk(s, k, x);
    for (int i = 0; i < s->rank; i++)
        if ((s->flip_dims >> i) & 1)
            x[i] = s->extent[i] - 1 - x[i];
    return div_tok(s, x);
}

static inline int64_t div_shift(const bshape *s, int64_t k)
{
    int64_t x[HL_MAX_RANK];
    div_fromk(s, k, x);
    for (int i = 0; i < s->rank; i++)
        x[i] = (x[i] + s->shift_red[i]) % s->extent[i];
    return div_tok(s, x);
}

/* Equation 22 with / and %: x -> (x % n)*(L/n) + x/n.  When n does not
 * divide L the groups of residue r < L%n hold one cell more, which adds
 * min(r, L%n) (the NumPy definition the library implements). */
static inline int64_t div_crinkle(const bshape *s, int64_t k, int c)
{
    int i = s->cdim[c];
    int64_t n = s->cr[c].step, L = s->extent[i], lp = s->lp[i];
    int64_t x = (k / lp) % L;
    int64_t r = x % n, q = x / n, g = L % n;
    int64_t y = r * (L / n) + (r < g ? r : g) + q;
    return k + (y - x) * lp;
}

/* ------------------------------------------------------------------------ */
/* Path "magic": hl_kindex_*                                                 */
/* ------------------------------------------------------------------------ */

static inline void magic_fromk(const bshape *s, int64_t k, int64_t *x)
{
    hl_kindex_fromk(&s->ki, k, x);
}
static inline int64_t magic_tok(const bshape *s, const int64_t *x)
{
    return hl_kindex_tok(&s->ki, x);
}
static inline int64_t magic_index(const bshape *s, int64_t k, int i)
{
    return hl_kindex_index(&s->ki, k, i);
}
static inline int64_t magic_neighbour(const bshape *s, int64_t k, int i, int64_t inc)
{
    return hl_kindex_neighbour(&s->ki, k, i, inc);
}
static inline int64_t magic_flip(const bshape *s, int64_t k)
{
    return hl_kindex_flip(&s->ki, k, s->flip_dims);
}
static inline int64_t magic_shift(const bshape *s, int64_t k)
{
    return hl_kindex_shift(&s->ki, &s->ksh, k);
}
static inline int64_t magic_crinkle(const bshape *s, int64_t k, int c)
{
    return hl_kindex_crinkle(&s->ki, &s->cr[c], k);
}

/* ------------------------------------------------------------------------ */
/* Path "pow2": hl_kpow2_*                                                   */
/* ------------------------------------------------------------------------ */

static inline void pow2_fromk(const bshape *s, int64_t k, int64_t *x)
{
    hl_kpow2_fromk(&s->kp, k, x);
}
static inline int64_t pow2_tok(const bshape *s, const int64_t *x)
{
    return hl_kpow2_tok(&s->kp, x);
}
static inline int64_t pow2_index(const bshape *s, int64_t k, int i)
{
    return hl_kpow2_index(&s->kp, k, i);
}
static inline int64_t pow2_neighbour(const bshape *s, int64_t k, int i, int64_t inc)
{
    return hl_kpow2_neighbour(&s->kp, k, i, inc);
}
static inline int64_t pow2_flip(const bshape *s, int64_t k)
{
    return hl_kpow2_flip(k, s->fmask);
}
static inline int64_t pow2_shift(const bshape *s, int64_t k)
{
    return hl_kpow2_shift(&s->kp, k, s->kshift);
}
static inline int64_t pow2_crinkle(const bshape *s, int64_t k, int c)
{
    return hl_kpow2_crinkle(&s->kp, k, s->cdim[c], 1);
}

/* ------------------------------------------------------------------------ */
/* Timed loops: one function per (operation, path)                           */
/* ------------------------------------------------------------------------ */

/* The sample walk shared by every loop: k_j = j*step mod N. */
#define KLOOP_BEGIN(s)                                                       \
    const int64_t n_ = (s)->count, step_ = (s)->step, m_ = (s)->iters;      \
    int64_t k = 0;                                                           \
    for (int64_t j_ = 0; j_ < m_; j_++) {                                   \
        const int64_t k2 = k << 1;
#define KLOOP_END                                                            \
    k += step_;                                                              \
    if (k >= n_)                                                             \
        k -= n_;                                                             \
    }

#define DEFINE_LOOPS(P)                                                      \
    static LOOPFN int64_t loop_fromk_##P(const bshape *s)                 \
    {                                                                        \
        int64_t cs = 0, x[HL_MAX_RANK];                                      \
        const int d = s->rank;                                               \
        KLOOP_BEGIN(s)                                                       \
        P##_fromk(s, k, x);                                                  \
        int64_t t = 0;                                                       \
        for (int i = 0; i < d; i++)                                          \
            t += x[i] ^ k2;                                                  \
        cs += t;                                                             \
        KLOOP_END                                                            \
        return cs;                                                           \
    }                                                                        \
    static LOOPFN int64_t loop_tok_##P(const bshape *s)                   \
    {                                                                        \
        int64_t cs = 0;                                                      \
        const int d = s->rank;                                               \
        const int64_t nt = s->ntab, rounds = s->iters / s->ntab;             \
        for (int64_t r = 0; r < rounds; r++) {                               \
            const int64_t *x = s->xtab;                                      \
            for (int64_t t = 0; t < nt; t++, x += d)                         \
                cs += P##_tok(s, x) ^ t;                                     \
        }                                                                    \
        return cs;                                                           \
    }                                                                        \
    static LOOPFN int64_t loop_index_##P(const bshape *s)                 \
    {                                                                        \
        int64_t cs = 0;                                                      \
        const int d = s->rank;                                               \
        KLOOP_BEGIN(s)                                                       \
        int64_t t = 0;                                                       \
        for (int i = 0; i < d; i++)                                          \
            t += P##_index(s, k, i) ^ k2;                                    \
        cs += t;                                                             \
        KLOOP_END                                                            \
        return cs;                                                           \
    }                                                                        \
    static LOOPFN int64_t loop_nbr_##P(const bshape *s)                   \
    {                                                                        \
        int64_t cs = 0;                                                      \
        const int d = s->rank;                                               \
        KLOOP_BEGIN(s)                                                       \
        int64_t t = 0;                                                       \
        for (int i = 0; i < d; i++) {                                        \
            int64_t kp_ = P##_neighbour(s, k, i, +1);                        \
            int64_t km_ = P##_neighbour(s, k, i, -1);                        \
            t += (kp_ ^ k2) + 2 * (km_ ^ k2);                                \
        }                                                                    \
        cs += t;                                                             \
        KLOOP_END                                                            \
        return cs;                                                           \
    }                                                                        \
    static LOOPFN int64_t loop_flip_##P(const bshape *s)                  \
    {                                                                        \
        int64_t cs = 0;                                                      \
        KLOOP_BEGIN(s)                                                       \
        cs += P##_flip(s, k) ^ k2;                                           \
        KLOOP_END                                                            \
        return cs;                                                           \
    }                                                                        \
    static LOOPFN int64_t loop_shift_##P(const bshape *s)                 \
    {                                                                        \
        int64_t cs = 0;                                                      \
        KLOOP_BEGIN(s)                                                       \
        cs += P##_shift(s, k) ^ k2;                                          \
        KLOOP_END                                                            \
        return cs;                                                           \
    }                                                                        \
    static LOOPFN int64_t loop_crinkle0_##P(const bshape *s)              \
    {                                                                        \
        int64_t cs = 0;                                                      \
        KLOOP_BEGIN(s)                                                       \
        cs += P##_crinkle(s, k, 0) ^ k2;                                     \
        KLOOP_END                                                            \
        return cs;                                                           \
    }                                                                        \
    static LOOPFN int64_t loop_crinkleD_##P(const bshape *s)              \
    {                                                                        \
        int64_t cs = 0;                                                      \
        KLOOP_BEGIN(s)                                                       \
        cs += P##_crinkle(s, k, 1) ^ k2;                                     \
        KLOOP_END                                                            \
        return cs;                                                           \
    }

/* Every result of every operation at one k, for the element-by-element check:
 * fromK digits, toK of the reference digits, index per dimension, neighbours
 * +1/-1 per dimension, flip, shift, the two crinkles. */
#define DEFINE_EVAL(P)                                                       \
    static int eval_##P(const bshape *s, int64_t k, const int64_t *xref, int64_t *out) \
    {                                                                        \
        int n = 0, d = s->rank;                                              \
        int64_t x[HL_MAX_RANK];                                              \
        P##_fromk(s, k, x);                                                  \
        for (int i = 0; i < d; i++)                                          \
            out[n++] = x[i];                                                 \
        out[n++] = P##_tok(s, xref);                                         \
        for (int i = 0; i < d; i++)                                          \
            out[n++] = P##_index(s, k, i);                                   \
        for (int i = 0; i < d; i++) {                                        \
            out[n++] = P##_neighbour(s, k, i, +1);                           \
            out[n++] = P##_neighbour(s, k, i, -1);                           \
        }                                                                    \
        out[n++] = P##_flip(s, k);                                           \
        out[n++] = P##_shift(s, k);                                          \
        out[n++] = P##_crinkle(s, k, 0);                                     \
        out[n++] = P##_crinkle(s, k, 1);                                     \
        return n;                                                            \
    }

#define DEFINE_PATH(P) DEFINE_LOOPS(P) DEFINE_EVAL(P)

DEFINE_PATH(div)
DEFINE_PATH(magic)
DEFINE_PATH(pow2)

/* the empty loop: the harness cost per k, for reference */
static LOOPFN int64_t loop_empty(const bshape *s)
{
    int64_t cs = 0;
    KLOOP_BEGIN(s)
    cs += k ^ k2;
    KLOOP_END
    return cs;
}

enum { OP_FROMK, OP_TOK, OP_INDEX, OP_NBR, OP_FLIP, OP_SHIFT, OP_CRINKLE0, OP_CRINKLED, NOPS };
enum { P_DIV, P_MAGIC, P_POW2, NPATHS };

typedef int64_t (*loop_fn)(const bshape *);
typedef int (*eval_fn)(const bshape *, int64_t, const int64_t *, int64_t *);

static const char *const op_name[NOPS] = {
    "fromK", "toK", "index(k,i)", "nbr +-1", "flip{0,2,..}", "shift", "crinkle0/2", "crinkleD/2",
};
static const char *const path_name[NPATHS] = {"div", "magic", "pow2"};

#define LOOPS_OF(P)                                                          \
    {loop_fromk_##P, loop_tok_##P, loop_index_##P, loop_nbr_##P, loop_flip_##P, loop_shift_##P, \
     loop_crinkle0_##P, loop_crinkleD_##P}
static const loop_fn loops[NPATHS][NOPS] = {LOOPS_OF(div), LOOPS_OF(magic), LOOPS_OF(pow2)};
static const eval_fn evals[NPATHS] = {eval_div, eval_magic, eval_pow2};

/* Calls per sample element (index: one per dimension; neighbour: two per dimension). */
static int64_t calls_per_k(const bshape *s, int op)
{
    switch (op) {
    case OP_INDEX:
        return s->rank;
    case OP_NBR:
        return 2 * s->rank;
    default:
        return 1;
    }
}

static int64_t calls_total(const bshape *s, int op)
{
    if (op == OP_TOK)
        return (s->iters / s->ntab) * s->ntab;
    return s->iters * calls_per_k(s, op);
}

static int path_applies(const bshape *s, int p)
{
    return p != P_POW2 || s->is_pow2;
}

/* ------------------------------------------------------------------------ */
/* Untimed element-by-element consistency check                              */
/* ------------------------------------------------------------------------ */

static void describe_slot(const bshape *s, int slot, char *buf, size_t cap)
{
    int d = s->rank;
    if (slot < d)
        snprintf(buf, cap, "fromK x[%d]", slot);
    else if (slot == d)
        snprintf(buf, cap, "toK");
    else if (slot < 2 * d + 1)
        snprintf(buf, cap, "index(k,%d)", slot - d - 1);
    else if (slot < 4 * d + 1)
        snprintf(buf, cap, "neighbour(k,%d,%s1)", (slot - 2 * d - 1) / 2,
                 (slot - 2 * d - 1) % 2 ? "-" : "+");
    else
        snprintf(buf, cap, "%s", (const char *const[]){"flip", "shift", "crinkle dim 0",
                                                        "crinkle outermost dim"}[slot - 4 * d - 1]);
}

static NOINLINE void verify(const bshape *s, int64_t max_checks)
{
    int64_t every = s->m > max_checks ? s->m / max_checks : 1;
    int64_t k = 0, stride = 0;
    for (int64_t e = 0; e < every; e++) { /* stride = every*step mod N */
        stride += s->step;
        if (stride >= s->count)
            stride -= s->count;
    }
    int64_t nchk = s->m / every;
    int64_t ref[4 * HL_MAX_RANK + 8], got[4 * HL_MAX_RANK + 8], xref[HL_MAX_RANK];
    for (int64_t j = 0; j < nchk; j++) {
        div_fromk(s, k, xref);
        if (div_tok(s, xref) != k)
            die("div path: toK(fromK(k)) != k on", s->name);
        int n = eval_div(s, k, xref, ref);
        if (ref[s->rank] != k)
            die("div path: toK(fromK(k)) != k on", s->name);
        for (int p = 1; p < NPATHS; p++) {
            if (!path_applies(s, p))
                continue;
            evals[p](s, k, xref, got);
            for (int slot = 0; slot < n; slot++) {
                if (got[slot] == ref[slot])
                    continue;
                char what[64];
                describe_slot(s, slot, what, sizeof what);
                fprintf(stderr,
                        "bench_kindex: INCONSISTENT %s on %s at k=%" PRId64 ": div gives %" PRId64
                        ", %s gives %" PRId64 "\n",
                        what, s->name, k, ref[slot], path_name[p], got[slot]);
                exit(2);
            }
        }
        for (int c = 0; c < 2; c++) {
            int64_t kc = ref[4 * s->rank + 3 + c];
            if (hl_kindex_uncrinkle(&s->ki, &s->cr[c], kc) != k) {
                fprintf(stderr, "bench_kindex: INCONSISTENT uncrinkle(crinkle(k)) != k on %s at k=%" PRId64 "\n",
                        s->name, k);
                exit(2);
            }
        }
        k += stride;
        if (k >= s->count)
            k -= s->count;
    }
}

/* ------------------------------------------------------------------------ */
/* Timing and report                                                         */
/* ------------------------------------------------------------------------ */

typedef struct result {
    const bshape *s;
    int op;
    int64_t calls;
    double ns[NPATHS]; /* per call; NAN where not applicable (pow2 on other shapes) */
    int64_t checksum;
} result;

static double cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* One timed run of loop (p, op); *ns per call.  Timed with CLOCK_MONOTONIC;
 * a run during which the thread lost the CPU (its CPU time is more than 2%
 * short of the elapsed time: another process was scheduled on this core) is
 * run again, up to a few times. */
static int64_t time_loop(const bshape *s, int op, int p, double *ns)
{
    int64_t cs = 0;
    for (int attempt = 0; attempt < 5; attempt++) {
        double c0 = cpu_ns(), t0 = (bench_now() * 1e9);
        cs = loops[p][op](s);
        double t1 = (bench_now() * 1e9), c1 = cpu_ns();
        *ns = (t1 - t0) / (double)calls_total(s, op);
        if (c1 - c0 >= 0.98 * (t1 - t0))
            break;
    }
    return cs;
}

static void result_init(result *r, const bshape *s, int op)
{
    r->s = s;
    r->op = op;
    r->calls = calls_total(s, op);
    r->checksum = 0;
    for (int p = 0; p < NPATHS; p++)
        r->ns[p] = path_applies(s, p) ? (double)INFINITY : (double)NAN;
}

/* One repeat of every path of one (shape, operation), back to back; keeps
 * the minimum time per path and checks the checksums against the first. */
static void measure_once(result *r, int first)
{
    const bshape *s = r->s;
    for (int p = 0; p < NPATHS; p++) {
        if (!path_applies(s, p))
            continue;
        double ns;
        int64_t cs = time_loop(s, r->op, p, &ns);
        if (first && p == 0) {
            r->checksum = cs;
        } else if (cs != r->checksum) {
            fprintf(stderr,
                    "bench_kindex: CHECKSUM MISMATCH for %s on %s: %s gives %" PRId64
                    ", div gives %" PRId64 "\n",
                    op_name[r->op], s->name, path_name[p], cs, r->checksum);
            exit(2);
        }
        if (ns < r->ns[p])
            r->ns[p] = ns;
    }
}

static double empty_ns(const bshape *s, int reps)
{
    double best = (double)INFINITY;
    for (int rep = 0; rep < reps; rep++) {
        double t0 = (bench_now() * 1e9);
        volatile int64_t cs = loop_empty(s);
        double t1 = (bench_now() * 1e9);
        (void)cs;
        if ((t1 - t0) / (double)s->iters < best)
            best = (t1 - t0) / (double)s->iters;
    }
    return best;
}

/* v with `prec` decimals, or "n/a" for NaN. */
static void fmt_num(char *buf, size_t cap, double v, int prec)
{
    if (isnan(v))
        snprintf(buf, cap, "n/a");
    else
        snprintf(buf, cap, "%.*f", prec, v);
}

static void print_header(void)
{
    printf("%-21s %-13s %8s %8s %8s %11s %9s %9s\n", "shape", "op", "div ns", "magic ns",
           "pow2 ns", "magic/pow2", "div/pow2", "div/magic");
}

static void print_row(const result *r)
{
    char a[32], b[32], c[32], d[32], e[32], f[32];
    fmt_num(a, sizeof a, r->ns[P_DIV], 3);
    fmt_num(b, sizeof b, r->ns[P_MAGIC], 3);
    fmt_num(c, sizeof c, r->ns[P_POW2], 3);
    fmt_num(d, sizeof d, r->ns[P_MAGIC] / r->ns[P_POW2], 2);
    fmt_num(e, sizeof e, r->ns[P_DIV] / r->ns[P_POW2], 2);
    fmt_num(f, sizeof f, r->ns[P_DIV] / r->ns[P_MAGIC], 2);
    int over = !isnan(r->ns[P_POW2]) && r->ns[P_MAGIC] / r->ns[P_POW2] > 1.25;
    printf("%-21s %-13s %8s %8s %8s %10s%s %9s %9s\n", r->s->name, op_name[r->op], a, b, c, d,
           over ? "*" : " ", e, f);
}

/* One CSV text field (RFC 4180): quoted, with inner quotes doubled, when it
 * contains a comma, a quote or a line break (shapes "[16,16,16]", the op
 * "flip{0,2,..}"); as is otherwise. */
static void csv_field(FILE *f, const char *v)
{
    if (!v[strcspn(v, ",\"\r\n")]) {
        fputs(v, f);
        return;
    }
    fputc('"', f);
    for (; *v; v++) {
        if (*v == '"')
            fputc('"', f);
        fputc(*v, f);
    }
    fputc('"', f);
}

static void write_csv(const char *path, const result *res, int nres)
{
    bench_csv *csv;
    if (bench_csv_open(&csv, "bench_kindex", path,
                       "shape,rank,N,op,calls,ns_div,ns_magic,ns_pow2,magic_over_pow2,div_over_pow2,"
                       "div_over_magic,checksum"))
        exit(1);
    FILE *f = bench_csv_stream(csv);
    for (int j = 0; j < nres; j++) {
        const result *r = &res[j];
        char c[32], d[32], e[32];
        fmt_num(c, sizeof c, r->ns[P_POW2], 4);
        fmt_num(d, sizeof d, r->ns[P_MAGIC] / r->ns[P_POW2], 4);
        fmt_num(e, sizeof e, r->ns[P_DIV] / r->ns[P_POW2], 4);
        csv_field(f, r->s->name);
        fprintf(f, ",%d,%" PRId64 ",", r->s->rank, r->s->count);
        csv_field(f, op_name[r->op]);
        fprintf(f, ",%" PRId64 ",%.4f,%.4f,%s,%s,%s,%.4f,%" PRId64 "\n", r->calls, r->ns[P_DIV],
                r->ns[P_MAGIC], c, d, e, r->ns[P_DIV] / r->ns[P_MAGIC], r->checksum);
    }
    if (bench_csv_close(csv, 1))
        exit(1);
}

static const char usage[] =
    "usage: bench_kindex [--quick] [--csv FILE] [--help]\n"
    "\n"
    "Times the k-index operations (fromK, toK, index, periodic neighbour +-1,\n"
    "flip, shift, crinkle) for three implementations on the same shapes:\n"
    "  div    plain code with hardware / and % (paper's Listings 1-2, eq. 10, 22)\n"
    "  magic  the library's general path hl_kindex_* (no hardware division)\n"
    "  pow2   the library's power-of-two bit path hl_kpow2_*\n"
    "and prints ns per call and the ratios magic/pow2 (target <= 1.25) and\n"
    "div/pow2.  Results are cross-checked; any disagreement is an error (exit 2).\n"
    "\n"
    "  --quick      fewer repeats and a smaller sample (smoke run)\n"
    "  --csv FILE   also write the table as CSV\n"
    "  --help       this text\n";

/* Geometric means over the power-of-two shapes, per op and over all. */
static void print_geomeans(const result *res, int nres)
{
    printf("\ngeometric mean over the power-of-two shapes (target magic/pow2 <= 1.25):\n");
    printf("%-13s %11s %9s %9s\n", "op", "magic/pow2", "div/pow2", "div/magic");
    double all_lm = 0, gms[NOPS];
    int all_n = 0, nfail = 0;
    for (int op = 0; op < NOPS; op++) {
        double lm = 0, ld = 0, ldm = 0;
        int n = 0;
        for (int j = 0; j < nres; j++) {
            if (res[j].op != op || !res[j].s->is_pow2)
                continue;
            lm += log(res[j].ns[P_MAGIC] / res[j].ns[P_POW2]);
            ld += log(res[j].ns[P_DIV] / res[j].ns[P_POW2]);
            ldm += log(res[j].ns[P_DIV] / res[j].ns[P_MAGIC]);
            n++;
        }
        gms[op] = n ? exp(lm / n) : (double)NAN;
        if (!n)
            continue;
        all_lm += lm;
        all_n += n;
        nfail += gms[op] > 1.25;
        printf("%-13s %11.2f %9.2f %9.2f%s\n", op_name[op], gms[op], exp(ld / n), exp(ldm / n),
               gms[op] > 1.25 ? "   above target" : "");
    }
    printf("summary: geomean magic/pow2:");
    for (int op = 0; op < NOPS; op++)
        printf(" %s %.2f%s", op_name[op], gms[op], op < NOPS - 1 ? "," : ";");
    printf(" all ops %.2f; %d of %d ops above 1.25\n", exp(all_lm / all_n), nfail, NOPS);
}

int main(int argc, char **argv)
{
    int quick = 0;
    const char *csv = NULL;
    const bench_opt opts[] = {BENCH_OPT_QUICK(&quick), BENCH_OPT_CSV(&csv), BENCH_OPT_END};
    bench_cli cli = {"bench_kindex", usage, opts, NULL, 0, 0, 0};
    const int prc = bench_parse(&cli, argc, argv);
    if (prc != BENCH_GO)
        return prc;
    const int64_t max_sample = quick ? (int64_t)1 << 16 : (int64_t)1 << 20;
    const int64_t max_checks = quick ? (int64_t)1 << 12 : (int64_t)1 << 14;
    const int reps = quick ? 2 : 7;

    bshape *shapes = calloc(NSHAPES, sizeof *shapes);
    result *res = calloc((size_t)NSHAPES * NOPS, sizeof *res);
    if (!shapes || !res)
        die("out of memory", NULL);

    double t_start = bench_now();
    for (int si = 0; si < NSHAPES; si++)
        shape_setup(&shapes[si], default_shapes[si], max_sample);
    printf("bench_kindex: ns per call, minimum of %d repeats, %" PRId64
           " k per measurement (all k, repeated, when N is smaller; else every step-th k)\n",
           reps, shapes[0].iters);
    printf("  index: per (k,i) call over all i; nbr: per call, +1 and -1 in every dimension;\n"
           "  flip: dimensions 0,2,4,...; shift: every dimension; crinkle: step 2 in dim 0 / "
           "outermost dim;\n"
           "  scalar loops (no auto-vectorisation); harness cost per k (empty loop): %.2f ns\n"
           "  '*' marks magic/pow2 above the 1.25 target\n\n",
           empty_ns(&shapes[1], reps));
    for (int si = 0; si < NSHAPES; si++)
        verify(&shapes[si], max_checks);
    /* The repeats are the outer loop: the repeats of one measurement are
     * spread over the whole run, so a burst of load from other processes
     * spoils only a few of them, and the minimum is kept. */
    int nres = NSHAPES * NOPS;
    for (int si = 0; si < NSHAPES; si++)
        for (int op = 0; op < NOPS; op++)
            result_init(&res[si * NOPS + op], &shapes[si], op);
    for (int rep = 0; rep < reps; rep++)
        for (int j = 0; j < nres; j++)
            measure_once(&res[j], rep == 0);
    print_header();
    for (int j = 0; j < nres; j++)
        print_row(&res[j]);
    print_geomeans(res, nres);
    printf("\nall results and checksums agree between paths; total time %.1f s\n",
           bench_now() - t_start);
    if (csv) {
        write_csv(csv, res, nres);
        printf("wrote %s\n", csv);
    }
    for (int si = 0; si < NSHAPES; si++)
        free(shapes[si].xtab);
    free(shapes);
    free(res);
    return 0;
}
