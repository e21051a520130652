/* Random chains of the op grammar (issue 32): 1-6 ops of flip, shift,
 * crinkle, uncrinkle, permute, tile, untile, morton and unmorton on arrays
 * of rank 1-8, extents 1-70 (primes among them), elements of 1-64 bytes.
 * Every chain must plan without a cell-by-cell pass (one pass of boxes, or
 * stages of one pass each through scratch), and its output must equal the
 * reference (cell by cell through every step) byte for byte: out of place
 * and in place, on 1 and 2 threads, and its stages (hl_plan_stage), each of
 * boxes, run one by one through buffers of the test's.  The counts of chains
 * by stage count are printed (the closing notes quote them). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hyperlayout.h"
#include "random_plans.h"

/* CHAINS random chains; a quarter of them with HL_TESTS_QUICK (under the
 * emulator: tests/CMakeLists.txt) */
enum { CHAINS = 10000, QUICK_CHAINS = 2500, MAX_CELLS = 3000 };

static rp_rng rng = {0x6a09e667f3bcc909u};

static int64_t pick_divisor(int64_t n)
{
    int64_t d[64], k = 0;
    for (int64_t i = 1; i <= n && k < 64; i++)
        if (n % i == 0)
            d[k++] = i;
    return d[rp_below(&rng, k)];
}

static bool pow2(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

/* A random shape: rank 1-8, extents 1-70 (at most MAX_CELLS cells). */
static hl_shape random_shape(void)
{
    for (;;) {
        const int rank = 1 + (int)rp_below(&rng, 8);
        int64_t ext[8], cells = 1;
        for (int i = 0; i < rank; i++) {
            /* small ranks get long extents, primes among them; high ranks short */
            const int64_t top = rank <= 2 ? 70 : rank <= 4 ? 12 : 4;
            ext[i] = 1 + rp_below(&rng, top);
            if (rp_below(&rng, 3) == 0)
                ext[i] = (int64_t[]){2, 4, 8, 16, 32, 64}[rp_below(&rng, rank <= 2 ? 6 : 3)];
            cells *= ext[i];
        }
        hl_shape s;
        if (cells <= MAX_CELLS &&
            hl_shape_init(&s, rank, ext, HL_DTYPE_BYTES, 1 + rp_below(&rng, 64)) == HL_OK)
            return s;
    }
}

/* Appends one random op valid on extents ext (rank d) to text, updating ext. */
static void random_op(char *text, size_t cap, int d, int64_t *ext)
{
    char op[256];
    size_t n = 0;
    bool all_pow2 = true;
    for (int i = 0; i < d; i++)
        all_pow2 = all_pow2 && pow2(ext[i]);
    for (;;) {
        n = 0;
        switch (rp_below(&rng, 9)) {
        case 0: { /* flip */
            const uint64_t dims = 1 + (uint64_t)rp_below(&rng, ((int64_t)1 << d) - 1);
            n = (size_t)snprintf(op, sizeof op, "flip:");
            for (int i = 0, first = 1; i < d; i++)
                if ((dims >> i) & 1) {
                    n += (size_t)snprintf(op + n, sizeof op - n, first ? "%d" : ",%d", i);
                    first = 0;
                }
            break;
        }
        case 1: /* shift */
            n = (size_t)snprintf(op, sizeof op, "shift:");
            for (int i = 0; i < d; i++)
                n += (size_t)snprintf(op + n, sizeof op - n, i ? ",%lld" : "%lld",
                                      (long long)(rp_below(&rng, 2 * ext[i] + 1) - ext[i]));
            break;
        case 2:
        case 3: { /* crinkle, uncrinkle: one dimension, or all */
            const char *name = rp_below(&rng, 2) ? "crinkle" : "uncrinkle";
            if (rp_below(&rng, 4) == 0) {
                int64_t least = ext[0];
                for (int i = 1; i < d; i++)
                    least = ext[i] < least ? ext[i] : least;
                n = (size_t)snprintf(op, sizeof op, "%s:all:%lld", name,
                                     (long long)(1 + rp_below(&rng, least)));
            } else {
                const int k = (int)rp_below(&rng, d);
                n = (size_t)snprintf(op, sizeof op, "%s:%d:%lld", name, k,
                                     (long long)(1 + rp_below(&rng, ext[k])));
            }
            break;
        }
        case 4: { /* permute */
            int perm[8];
            for (int i = 0; i < d; i++)
                perm[i] = i;
            for (int i = d - 1; i > 0; i--) {
                const int j = (int)rp_below(&rng, i + 1), t = perm[i];
                perm[i] = perm[j];
                perm[j] = t;
            }
            n = (size_t)snprintf(op, sizeof op, "permute:");
            int64_t out[8];
            for (int i = 0; i < d; i++) {
                n += (size_t)snprintf(op + n, sizeof op - n, i ? ",%d" : "%d", perm[i]);
                out[i] = ext[perm[i]];
            }
            memcpy(ext, out, (size_t)d * sizeof *ext);
            break;
        }
        case 5:
        case 6: /* tile, untile */
            n = (size_t)snprintf(op, sizeof op, "%s:", rp_below(&rng, 2) ? "tile" : "untile");
            for (int i = 0; i < d; i++)
                n += (size_t)snprintf(op + n, sizeof op - n, i ? ",%lld" : "%lld",
                                      (long long)pick_divisor(ext[i]));
            break;
        default: /* morton, unmorton: power-of-two extents only */
            if (!all_pow2)
                continue;
            n = (size_t)snprintf(op, sizeof op, "%s", rp_below(&rng, 2) ? "morton" : "unmorton");
            break;
        }
        break;
    }
    const size_t used = strlen(text);
    snprintf(text + used, cap - used, "%s%s", used ? " " : "", op);
}

static void fill(unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)rp_next(&rng);
}

static void test_random_chains(void **state)
{
    (void)state;
    int64_t by_stages[8] = {0}, in_place = 0, checked = 0;
    char ops[2048], why[256];
    static char text[1 << 16];
    const int64_t chains = getenv("HL_TESTS_QUICK") ? QUICK_CHAINS : CHAINS;
    while (checked < chains) {
        hl_shape s = random_shape();
        int64_t ext[8];
        memcpy(ext, s.extent, sizeof ext);
        ops[0] = '\0';
        const int nops = 1 + (int)rp_below(&rng, 6);
        for (int k = 0; k < nops; k++)
            random_op(ops, sizeof ops, s.rank, ext);
        /* the two-thread plan has its output planned in ranges too */
        int64_t cells = 1;
        for (int i = 0; i < s.rank; i++)
            cells *= s.extent[i];
        const hl_plan_options one = {1, false, HL_EFFORT_ESTIMATE, 0},
                              two = {2, false, HL_EFFORT_ESTIMATE,
                                     cells / 65536 + 1 + (int64_t)rp_below(&rng, (uint64_t)cells)},
                              ref = {1, true, HL_EFFORT_ESTIMATE};
        hl_plan *p1, *p2, *pr;
        if (hl_plan_ops(&p1, &s, ops, 0, &one, why, sizeof why) != HL_OK)
            fail_msg("planning '%s' on rank %d: %s", ops, s.rank, why);
        assert_int_equal(hl_plan_ops(&p2, &s, ops, 0, &two, why, sizeof why), HL_OK);
        assert_int_equal(hl_plan_ops(&pr, &s, ops, 0, &ref, why, sizeof why), HL_OK);
        size_t len;
        assert_int_equal(hl_plan_describe(p1, text, sizeof text, &len), HL_OK);
        if (strstr(text, "cell by cell"))
            fail_msg("'%s' (rank %d) runs cell by cell:\n%s", ops, s.rank, text);
        const char *st = strstr(text, " stages, one pass each");
        int stages = 1;
        if (st) {
            while (st > text && st[-1] >= '0' && st[-1] <= '9')
                st--;
            stages = atoi(st);
        }
        by_stages[stages < 7 ? stages : 7]++;
        assert_int_equal(hl_plan_stages(p1), stages);
        assert_null(hl_plan_stage(p1, stages));
        assert_null(hl_plan_stage(p1, -1));
        if (stages == 1)
            assert_ptr_equal(hl_plan_stage(p1, 0), p1);

        const size_t in_bytes = (size_t)(hl_plan_in_span(p1) * hl_plan_elem_size(p1));
        const size_t out_bytes = (size_t)(hl_plan_out_span(p1) * hl_plan_elem_size(p1));
        unsigned char *in = malloc(in_bytes), *want = calloc(1, out_bytes), *got = calloc(1, out_bytes);
        assert_non_null(in);
        fill(in, in_bytes);
        assert_int_equal(hl_execute(pr, in, want), HL_OK);
        if (stages > 1) { /* the stages run one by one through buffers of the caller's */
            const void *from = in;
            unsigned char *mid[2] = {NULL, NULL};
            for (int i = 0; i < stages; i++) {
                const hl_plan *q = hl_plan_stage(p1, i);
                assert_non_null(q);
                assert_true(hl_plan_boxes(q) > 0);
                unsigned char *to = got;
                if (i < stages - 1) {
                    mid[i % 2] = realloc(mid[i % 2], (size_t)(hl_plan_out_span(q) * hl_plan_elem_size(q)));
                    to = mid[i % 2];
                }
                assert_int_equal(hl_execute(q, from, to), HL_OK);
                from = to;
            }
            if (memcmp(got, want, out_bytes))
                fail_msg("'%s' (rank %d): its stages run one by one differ", ops, s.rank);
            free(mid[0]);
            free(mid[1]);
        }
        { /* the last stage's planned ranges, one by one (run after the first
             * stages as hyperlayout transform does) */
            const int k = hl_plan_stages(p2);
            const hl_plan *last = hl_plan_stage(p2, k - 1);
            const int nr = hl_plan_ranges(last);
            assert_true(nr > 0);
            const void *from = in;
            unsigned char *mid[2] = {NULL, NULL};
            for (int i = 0; i < k - 1; i++) {
                const hl_plan *q = hl_plan_stage(p2, i);
                mid[i % 2] = realloc(mid[i % 2], (size_t)(hl_plan_out_span(q) * hl_plan_elem_size(q)));
                assert_int_equal(hl_execute(q, from, mid[i % 2]), HL_OK);
                from = mid[i % 2];
            }
            memset(got, 0, out_bytes);
            const int64_t es = hl_plan_elem_size(p2);
            unsigned char *buf = malloc((size_t)(two.range * es));
            for (int r = 0; r < nr; r++) {
                int64_t first, count;
                const hl_plan *part = hl_plan_range(last, r, &first, &count);
                assert_int_equal(hl_execute(part, from, buf), HL_OK);
                memcpy(got + first * es, buf, (size_t)(count * es));
            }
            if (memcmp(got, want, out_bytes))
                fail_msg("'%s' (rank %d): its planned output ranges differ", ops, s.rank);
            free(buf);
            free(mid[0]);
            free(mid[1]);
        }
        const hl_plan *plans[2] = {p1, p2};
        for (int t = 0; t < 2; t++) {
            memset(got, 0, out_bytes);
            assert_int_equal(hl_execute(plans[t], in, got), HL_OK);
            if (memcmp(got, want, out_bytes))
                fail_msg("'%s' (rank %d, %d thread%s): the output differs from the reference", ops,
                         s.rank, t + 1, t ? "s" : "");
            if (in_bytes == out_bytes) {
                memcpy(got, in, in_bytes);
                const hl_status rc = hl_execute(plans[t], got, got);
                if (rc == HL_OK) {
                    in_place += t == 0;
                    if (memcmp(got, want, out_bytes))
                        fail_msg("'%s' (rank %d, %d thread%s) in place: the output differs", ops,
                                 s.rank, t + 1, t ? "s" : "");
                } else {
                    assert_int_equal(rc, HL_ERR_IN_PLACE);
                }
            }
        }
        free(in);
        free(want);
        free(got);
        hl_plan_destroy(p1);
        hl_plan_destroy(p2);
        hl_plan_destroy(pr);
        checked++;
    }
    print_message("%lld chains: one pass %lld, 2 stages %lld, 3 stages %lld, 4+ stages %lld; "
                  "%lld also in place\n", (long long)checked, (long long)by_stages[1],
                  (long long)by_stages[2], (long long)by_stages[3],
                  (long long)(by_stages[4] + by_stages[5] + by_stages[6] + by_stages[7]),
                  (long long)in_place);
}

/* Plans that run through scratch (staged, and composed in place) run from
 * several threads at once: a run that finds the plan's scratch taken uses
 * scratch of its own (plan_staged.c, scratch.c), and every run's output
 * equals the reference, out of place and in place. */
static void test_concurrent_scratch(void **state)
{
    (void)state;
    enum { THREADS = 6, ROUNDS = 8 };
    /* two staged, two composed into one pass (on this shape, at estimate) */
    const char *chains[] = {"tile:8,8 shift:3,77", "morton permute:1,0", "tile:8,8 permute:1,0",
                            "tile:8,8 untile:4,4"};
    hl_shape s;
    assert_int_equal(hl_shape_parse(&s, "[64,128,uint32]"), HL_OK);
    const hl_plan_options one = {1, false}, ref = {1, true};
    int staged = 0, through_scratch = 0;
    for (size_t c = 0; c < sizeof chains / sizeof *chains; c++) {
        char why[256];
        hl_plan *p, *pr;
        if (hl_plan_ops(&p, &s, chains[c], 0, &one, why, sizeof why) != HL_OK)
            fail_msg("planning '%s': %s", chains[c], why);
        assert_int_equal(hl_plan_ops(&pr, &s, chains[c], 0, &ref, why, sizeof why), HL_OK);
        staged += hl_plan_stages(p) > 1;
        through_scratch += hl_plan_scratch_bytes(p) > 0;
        const int64_t n = hl_plan_in_span(p);
        assert_int_equal(hl_plan_out_span(p), n);
        uint32_t *in = malloc((size_t)n * 4), *want = malloc((size_t)n * 4);
        uint32_t *got = malloc((size_t)THREADS * (size_t)n * 4);
        assert_non_null(in);
        assert_non_null(want);
        assert_non_null(got);
        for (int64_t i = 0; i < n; i++)
            in[i] = (uint32_t)i * 2654435761u;
        assert_int_equal(hl_execute(pr, in, want), HL_OK);
        int bad = 0;
#pragma omp parallel num_threads(THREADS) reduction(+ : bad)
        {
            uint32_t *mine = got + (size_t)omp_get_thread_num() * (size_t)n;
            for (int r = 0; r < ROUNDS; r++) {
                memset(mine, 0, (size_t)n * 4);
                bad += hl_execute(p, in, mine) != HL_OK || memcmp(mine, want, (size_t)n * 4) != 0;
                memcpy(mine, in, (size_t)n * 4);
                bad += hl_execute(p, mine, mine) != HL_OK || memcmp(mine, want, (size_t)n * 4) != 0;
            }
        }
        if (bad)
            fail_msg("'%s': %d of %d concurrent runs differ from the reference", chains[c], bad,
                     THREADS * ROUNDS * 2);
        free(in);
        free(want);
        free(got);
        hl_plan_destroy(p);
        hl_plan_destroy(pr);
    }
    /* the chains are meant to cover both kinds of plans with scratch */
    assert_true(staged > 0);
    assert_true(through_scratch > staged);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_chains),
        cmocka_unit_test(test_concurrent_scratch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
