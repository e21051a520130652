/* hl_mpi_agree: for random sets of failing processes (each with a random
 * status, a reason or none, and a why of any cap or none), every process
 * must return the worst status, and every process that passed a why must
 * hold the lowest failing process's reason (its hl_strerror where it wrote
 * none), cut to its cap; all succeeding: HL_OK and every why untouched.  A
 * process passing no why while the others pass one must not make any wait
 * (the test's timeout would catch a hang).  Prints "N passed, 0 failed". */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <mpi.h>

#include "hyperlayout/darray.h"
#include "mpi_check.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, procs;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    int64_t cases = 0;
    for (int c = 0; c < 400; c++) {
        /* every process draws every process's part, to keep the generators
         * in step and to know the expected answer */
        hl_status st[4] = {HL_OK, HL_OK, HL_OK, HL_OK};
        bool wrote[4] = {false}, none[4] = {false};
        size_t cap[4];
        for (int q = 0; q < procs; q++) {
            if (below(3) == 0)
                st[q] = (hl_status)(1 + below(HL_ERR_COMM));
            wrote[q] = below(2) == 0;
            none[q] = below(5) == 0;
            cap[q] = (size_t)(1 + below(80));
        }
        hl_status worst = HL_OK;
        int first = -1;
        for (int q = 0; q < procs; q++) {
            worst = st[q] > worst ? st[q] : worst;
            if (st[q] != HL_OK && first < 0)
                first = q;
        }
        char why[96];
        memset(why, 'x', sizeof why);
        why[sizeof why - 1] = '\0';
        if (wrote[me] && !none[me]) /* a caller writes its reason within its cap */
            snprintf(why, cap[me], "process %d: case %d went wrong here", me, c);
        else
            why[0] = '\0';
        char before[96];
        memcpy(before, why, sizeof why);
        const hl_status got =
            hl_mpi_agree(MPI_COMM_WORLD, st[me], none[me] ? NULL : why, none[me] ? 0 : cap[me]);
        EXPECT(got == worst, "case %d: status %d, expected %d", c, (int)got, (int)worst);
        if (first < 0 || none[me]) {
            EXPECT(!memcmp(why, before, sizeof why), "case %d: why changed to '%s'", c, why);
        } else {
            char want[4096];
            if (wrote[first] && !none[first] && cap[first] > 1) /* a reason, not "" */
                snprintf(want, cap[first], "process %d: case %d went wrong here", first, c);
            else
                snprintf(want, sizeof want, "%s", hl_strerror(st[first]));
            want[cap[me] - 1 < sizeof want ? cap[me] - 1 : sizeof want - 1] = '\0';
            EXPECT(!strcmp(why, want), "case %d: why '%s', expected '%s'", c, why, want);
        }
        cases++;
    }
    return mpi_check_finish("hl_mpi_agree", cases, "cases");
}
