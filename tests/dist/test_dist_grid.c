/* Owner grids (BLOCK / CYCLIC / NONE per dimension) against a brute-force
 * reference in ScaLAPACK's terms (dist_reference.h): every extent and axis
 * of ranks 1 and 2, pseudo-random ones of ranks 3 and 4, with the inverse,
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
/* Which shapes: owner grids                                                 */
/* ------------------------------------------------------------------------ */

static hl_dist_axis axis_of(int kind, int64_t owners, int64_t tile)
{
    return (hl_dist_axis){(hl_dist_kind)kind, owners, tile};
}

/* Rank 1: every extent 1..7 with NONE, BLOCK over 1..8 and CYCLIC(1..8)
 * over 1..8; rank 2: every pair of extents with every pair of 14 axes
 * (owners multiplying to at most 8). */
static void test_grid_rank12(void **state)
{
    (void)state;
    g_checked_shapes = g_checked_slots = 0;
    for (int64_t L0 = 1; L0 <= MAX_L; L0++) {
        const int64_t L[] = {L0};
        hl_dist_axis a = axis_of(HL_DIST_NONE, 1, 0);
        check_grid(1, L, &a);
        for (int64_t P = 1; P <= MAX_T; P++) {
            a = axis_of(HL_DIST_BLOCK, P, 0);
            check_grid(1, L, &a);
            for (int64_t b = 1; b <= MAX_B; b++) {
                a = axis_of(HL_DIST_CYCLIC, P, b);
                check_grid(1, L, &a);
            }
        }
    }
    static const hl_dist_axis axes[] = {
        {HL_DIST_NONE, 1, 0},   {HL_DIST_BLOCK, 1, 0},  {HL_DIST_BLOCK, 2, 0},
        {HL_DIST_BLOCK, 3, 0},  {HL_DIST_BLOCK, 4, 0},  {HL_DIST_CYCLIC, 1, 2},
        {HL_DIST_CYCLIC, 2, 1}, {HL_DIST_CYCLIC, 2, 2}, {HL_DIST_CYCLIC, 2, 3},
        {HL_DIST_CYCLIC, 3, 1}, {HL_DIST_CYCLIC, 3, 2}, {HL_DIST_CYCLIC, 2, 5},
        {HL_DIST_CYCLIC, 3, 8}, {HL_DIST_CYCLIC, 4, 2},
    };
    const int na = (int)(sizeof axes / sizeof axes[0]);
    for (int64_t L0 = 1; L0 <= MAX_L; L0++)
        for (int64_t L1 = 1; L1 <= MAX_L; L1++)
            for (int i = 0; i < na; i++)
                for (int j = 0; j < na; j++) {
                    if (axes[i].owners * axes[j].owners > MAX_T)
                        continue;
                    const int64_t L[] = {L0, L1};
                    const hl_dist_axis a[] = {axes[i], axes[j]};
                    check_grid(2, L, a);
                }
    print_message("grids, ranks 1-2: %" PRId64 " distributions, %" PRId64
                  " local slots checked\n", g_checked_shapes, g_checked_slots);
}

/* Ranks 3 and 4: pseudo-random extents 1..7, kinds, owners 1..3
 * (multiplying to at most 8) and cyclic tiles 1..8. */
static void test_grid_rank34(void **state)
{
    (void)state;
    g_checked_shapes = g_checked_slots = 0;
    for (int rank = 3; rank <= 4; rank++)
        for (int j = 0; j < (rank == 3 ? 1500 : 1000); j++) {
            int64_t L[MAX_R], T = 1;
            hl_dist_axis a[MAX_R];
            for (int i = 0; i < rank; i++) {
                L[i] = draw(1, MAX_L);
                const int kind = (int)draw(0, 2);
                int64_t P = kind == HL_DIST_NONE ? 1 : draw(1, 3);
                if (T * P > MAX_T)
                    P = 1;
                T *= P;
                a[i] = axis_of(kind, P, draw(1, MAX_B));
            }
            check_grid(rank, L, a);
        }
    print_message("grids, ranks 3-4 (random): %" PRId64 " distributions, %" PRId64
                  " local slots checked\n", g_checked_shapes, g_checked_slots);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grid_rank12),
        cmocka_unit_test(test_grid_rank34),
    };
    const char *filter = getenv("HL_TEST_FILTER");
    if (filter)
        cmocka_set_test_filter(filter);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
