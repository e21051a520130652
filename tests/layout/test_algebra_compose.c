/* Composition and inverses of random layouts against brute force (every
 * cell enumerated), with how many of each kind of pair the library
 * supports.  HL_SEED=n in the environment draws other random layouts. */
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

#include "algebra_reference.h"

/* ---- composition ------------------------------------------------------------------------ */

typedef struct {
    const char *what;
    int64_t ok, unsupported, range;
} tally;

static void count(tally *t, hl_status st)
{
    t->ok += st == HL_OK;
    t->unsupported += st == HL_ERR_UNSUPPORTED;
    t->range += st == HL_ERR_RANGE;
}

static void run(tally *t, const hl_layout *a, const hl_layout *b)
{
    count(t, check_compose(a, b, true));
}

static void report(const tally *t)
{
    print_message("%-44s %6" PRId64 " ok %6" PRId64 " unsupported %6" PRId64 " range\n", t->what,
                  t->ok, t->unsupported, t->range);
}

static void test_random_compose(void **state)
{
    (void)state;
    tally by_std = {"compose(a, standard(L_a))", 0, 0, 0};
    tally of_std = {"compose(standard, b)", 0, 0, 0};
    tally sub = {"compose(a, box of standard(L_a))", 0, 0, 0};
    tally bij = {"compose(a, bijection onto [0, N_a))", 0, 0, 0};
    tally any = {"compose(a, any b)", 0, 0, 0};
    hl_layout a, b, s, c;
    int64_t M[4], lo[4], e[4];
    for (int t = 0; t < 10000; t++) {
        random_layout(&a, rng() % 2 == 0);
        failure_shape(a.rank, a.extent);
        assert_int_equal(hl_layout_standard(&s, a.rank, a.extent), HL_OK);
        run(&by_std, &a, &s); /* = a */
        random_layout(&b, rng() % 2 == 0);
        int rank = random_factoring(hl_layout_span(&b) + rnd(-2, 2), M);
        assert_int_equal(hl_layout_standard(&s, rank, M), HL_OK);
        run(&of_std, &s, &b); /* = b where b fits, bounds included */
        if (hl_layout_count(&s) > 1 && hl_layout_compose(&c, &s, &b) == HL_OK)
            assert_true(hl_layout_equal(&c, &b)); /* (a 1-cell a gives no strides to extend) */
        for (int i = 0; i < a.rank; i++) {
            e[i] = rnd(1, a.extent[i]);
            lo[i] = rnd(0, a.extent[i] - e[i]);
        }
        assert_int_equal(hl_layout_standard(&s, a.rank, a.extent), HL_OK);
        assert_int_equal(hl_layout_slice(&b, &s, lo, e), HL_OK);
        run(&sub, &a, &b); /* = slice of a */
        rank = random_factoring(hl_layout_count(&a), M);
        random_on(&b, rank, M, true);
        run(&bij, &a, &b);
        random_layout(&b, false);
        run(&any, &a, &b);
    }
    failure_shape(0, NULL);
    report(&by_std);
    report(&of_std);
    report(&sub);
    report(&bij);
    report(&any);
    assert_int_equal(by_std.unsupported + by_std.range, 0);
    assert_int_equal(of_std.unsupported, 0);
    assert_int_equal(sub.unsupported, 0);
    assert_true(bij.ok > bij.unsupported);
    assert_true(any.ok > any.unsupported / 2);
}

/* ---- inverse ------------------------------------------------------------------------------ */

/* inverse_as(in, M) against the coordinates of every offset, and its
 * compositions with in against the standard layouts. */
static hl_status check_inverse(const hl_layout *in, int rank_m, const int64_t *M, tally *both,
                               tally *confirmed)
{
    hl_layout inv, c, std;
    const hl_status st = hl_layout_inverse_as(&inv, in, rank_m, M);
    if (st == HL_ERR_UNSUPPORTED)
        return st;
    assert_int_equal(st, HL_OK);
    const int64_t n = hl_layout_count(in);
    int64_t z[4], x[4];
    for (int64_t k = 0; k < n; k++) {
        unrank(rank_m, M, k, z);
        assert_int_equal(hl_layout_coord(in, k, x), HL_OK);
        CHECK_EQ(offset_of(&inv, z), ref_k(in->rank, in->extent, x), "inverse at %" PRId64, k);
    }
    assert_true(is_normal(&inv));
    assert_true(hl_layout_is_bijection(&inv));
    check_queries(&inv);
    /* compose(in, inv) and compose(inv, in) are standard: their offsets by
     * brute force; equal() must see it when their normal forms have no maps
     * (complete there: the standard layouts have no padding) */
    const hl_layout *pair[2][2] = {{in, &inv}, {&inv, in}};
    for (int k = 0; k < 2; k++) {
        const hl_status sc = check_compose(pair[k][0], pair[k][1], false);
        count(both, sc);
        if (sc != HL_OK)
            continue;
        assert_int_equal(hl_layout_compose(&c, pair[k][0], pair[k][1]), HL_OK);
        if (k == 0)
            assert_int_equal(hl_layout_standard(&std, rank_m, M), HL_OK);
        else
            assert_int_equal(hl_layout_standard(&std, in->rank, in->extent), HL_OK);
        if (!has_maps(&c) && !has_padding(&c))
            assert_true(hl_layout_equal(&c, &std));
        confirmed->ok += hl_layout_equal(&c, &std);
    }
    return st;
}

static void test_random_inverse(void **state)
{
    (void)state;
    tally same = {"inverse(in), M = L", 0, 0, 0};
    tally perm = {"inverse_as(in, M = L permuted)", 0, 0, 0};
    tally fact = {"inverse_as(in, M = any factoring of N)", 0, 0, 0};
    tally both = {"compose(in, inv), compose(inv, in)", 0, 0, 0};
    tally confirmed = {"", 0, 0, 0}; /* how many of `both` equal() confirms */
    hl_layout in, inv;
    int64_t M[4];
    int p[4];
    for (int t = 0; t < 10000; t++) {
        random_layout(&in, true);
        failure_shape(in.rank, in.extent);
        assert_true(hl_layout_is_bijection(&in));
        count(&same, check_inverse(&in, in.rank, in.extent, &both, &confirmed));
        shuffle(p, in.rank);
        for (int i = 0; i < in.rank; i++)
            M[p[i]] = in.extent[i];
        count(&perm, check_inverse(&in, in.rank, M, &both, &confirmed));
        const int rank = random_factoring(hl_layout_count(&in), M);
        count(&fact, check_inverse(&in, rank, M, &both, &confirmed));
        random_layout(&in, false);
        if (!hl_layout_is_bijection(&in))
            assert_int_equal(hl_layout_inverse(&inv, &in), HL_ERR_ARG);
    }
    failure_shape(0, NULL);
    report(&same);
    report(&perm);
    report(&fact);
    report(&both);
    print_message("%" PRId64 " of those %" PRId64 " compare equal() to the standard layout\n",
                  confirmed.ok, both.ok);
    /* what stays unsupported is no digit map in M: offset digits that cut
     * across the k order of M, or a dimension with maps split between
     * other dimensions' digits (docs/layout.md) */
    assert_true(same.ok > 2 * same.unsupported);
    assert_true(perm.ok > perm.unsupported);
    assert_true(fact.ok > fact.unsupported);
    assert_true(both.ok > 50 * both.unsupported);
}
int main(void)
{
    rng_state = getenv("HL_SEED") ? strtoull(getenv("HL_SEED"), NULL, 0) : 0x2545F4914F6CDD1Du;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_compose),
        cmocka_unit_test(test_random_inverse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
