/* UPC's dealing of tiles over owners against a brute-force reference that
 * does what UPC does (dist_reference.h): every small distribution of ranks
 * 1 to 4 (extents 1..7, tiles 1..8, owners 1..5), with the inverse,
 * per-owner sizes, iteration and pack / unpack plans. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hyperlayout.h"

#include "check.h"
#include "dist_reference.h"

/* ------------------------------------------------------------------------ */
/* Which shapes: UPC's dealing                                               */
/* ------------------------------------------------------------------------ */

#define UPC_T 5 /* owners 1..5 */

/* Ranks 1 and 2: every extent 1..7, every tile 1..8, every T 1..5. */
static void test_exhaustive_rank12(void **state)
{
    (void)state;
    g_checked_shapes = g_checked_slots = 0;
    for (int64_t L0 = 1; L0 <= MAX_L; L0++)
        for (int64_t b0 = 1; b0 <= MAX_B; b0++)
            for (int T = 1; T <= UPC_T; T++) {
                const int64_t L[] = {L0}, b[] = {b0};
                check_shape(1, L, b, T);
            }
    for (int64_t L0 = 1; L0 <= MAX_L; L0++)
        for (int64_t L1 = 1; L1 <= MAX_L; L1++)
            for (int64_t b0 = 1; b0 <= MAX_B; b0++)
                for (int64_t b1 = 1; b1 <= MAX_B; b1++)
                    for (int T = 1; T <= UPC_T; T++) {
                        const int64_t L[] = {L0, L1}, b[] = {b0, b1};
                        check_shape(2, L, b, T);
                    }
    print_message("ranks 1-2: %" PRId64 " distributions, %" PRId64 " local slots checked\n",
                  g_checked_shapes, g_checked_slots);
}

/* Rank 3: every extent 1..7, with the tiles of every dimension drawn from
 * 1..8 in a rotating pattern so that each tile value meets each extent in
 * each dimension, and T cycling through 1..5. */
static void test_exhaustive_rank3(void **state)
{
    (void)state;
    g_checked_shapes = g_checked_slots = 0;
    for (int64_t L0 = 1; L0 <= MAX_L; L0++)
        for (int64_t L1 = 1; L1 <= MAX_L; L1++)
            for (int64_t L2 = 1; L2 <= MAX_L; L2++)
                for (int64_t s = 0; s < MAX_B; s++) {
                    const int64_t L[] = {L0, L1, L2};
                    const int64_t b[] = {1 + s, 1 + (s + 3 + L0) % MAX_B,
                                         1 + (s + 5 + L1 + 2 * L0) % MAX_B};
                    check_shape(3, L, b, 1 + (int)((s + L0 + 2 * L1 + 3 * L2) % UPC_T));
                }
    print_message("rank 3: %" PRId64 " distributions, %" PRId64 " local slots checked\n",
                  g_checked_shapes, g_checked_slots);
}

/* Ranks 3 and 4: pseudo-random extents 1..7, tiles 1..8, T 1..5 (draw(),
 * a fixed sequence, so a failure reproduces). */
static void test_random_rank34(void **state)
{
    (void)state;
    g_checked_shapes = g_checked_slots = 0;
    for (int rank = 3; rank <= 4; rank++)
        for (int j = 0; j < (rank == 3 ? 2000 : 1000); j++) {
            int64_t L[MAX_R], b[MAX_R];
            for (int i = 0; i < rank; i++) {
                L[i] = draw(1, MAX_L);
                b[i] = draw(1, MAX_B);
            }
            check_shape(rank, L, b, (int)draw(1, UPC_T));
        }
    print_message("ranks 3-4 (random): %" PRId64 " distributions, %" PRId64
                  " local slots checked\n", g_checked_shapes, g_checked_slots);
}

/* Rank 4, every extent 1..7: tiles and T cycling through all values. */
static void test_rank4_all_extents(void **state)
{
    (void)state;
    g_checked_shapes = g_checked_slots = 0;
    int64_t j = 0;
    for (int64_t L0 = 1; L0 <= MAX_L; L0++)
        for (int64_t L1 = 1; L1 <= MAX_L; L1++)
            for (int64_t L2 = 1; L2 <= MAX_L; L2++)
                for (int64_t L3 = 1; L3 <= MAX_L; L3++, j++) {
                    const int64_t L[] = {L0, L1, L2, L3};
                    const int64_t b[] = {1 + j % 8, 1 + (j / 8) % 8, 1 + (j / 64) % 8,
                                         1 + (j / 3) % 8};
                    check_shape(4, L, b, 1 + (int)(j % UPC_T));
                }
    print_message("rank 4: %" PRId64 " distributions, %" PRId64 " local slots checked\n",
                  g_checked_shapes, g_checked_slots);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exhaustive_rank12),
        cmocka_unit_test(test_exhaustive_rank3),
        cmocka_unit_test(test_random_rank34),
        cmocka_unit_test(test_rank4_all_extents),
    };
    const char *filter = getenv("HL_TEST_FILTER");
    if (filter)
        cmocka_set_test_filter(filter);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
