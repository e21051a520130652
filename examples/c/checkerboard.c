/* A checkerboard sweep on a crinkled lattice, neighbours through the k-index.
 *
 * The spins of an L x L lattice are stored crinkled along dimension 0 with
 * step 2 (the paper's checkerboard layout): each row holds its even sites,
 * then its odd ones, so one colour of a row is contiguous.  A sweep
 * updates the black sites (x0 + x1 even), then the white ones; here the
 * update is the zero-temperature majority rule (a spin takes the sign of
 * the sum of its four neighbours; a tie keeps it), which needs no random
 * numbers, so the result can be checked against the same sweep on the
 * plain lattice.  At the end the lattice is uncrinkled by a plan and saved
 * as an .npy file (int8, NumPy shape (L, L)).
 *
 *   checkerboard [OUT.npy]      (default lattice.npy)
 */
#include <hyperlayout.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { L = 64, SWEEPS = 4 };

static int check(hl_status st, const char *what)
{
    if (st != HL_OK)
        fprintf(stderr, "checkerboard: %s: %s\n", what, hl_strerror(st));
    return st != HL_OK;
}

/* The majority rule at logical site k of a plain (standard) lattice. */
static int8_t majority(const int8_t *s, const hl_kindex *ki, int64_t k)
{
    int sum = 0;
    for (int d = 0; d < 2; d++)
        for (int n = -1; n <= 1; n += 2)
            sum += s[hl_kindex_neighbour_bc(ki, k, d, n, HL_BOUNDARY_PERIODIC)];
    return sum > 0 ? 1 : sum < 0 ? -1 : s[k];
}

int main(int argc, char **argv)
{
    const char *out = argc > 1 ? argv[1] : "lattice.npy";
    const int64_t extent[2] = {L, L};
    hl_kindex ki;
    hl_kcrinkle cr; /* dimension 0, step 2: logical k -> stored position */
    if (check(hl_kindex_init(&ki, 2, extent), "k-index") ||
        check(hl_kcrinkle_init(&cr, &ki, 0, 2), "crinkle"))
        return 1;

    int8_t *plain = malloc(L * L), *stored = malloc(L * L), *next = malloc(L * L);
    if (!plain || !stored || !next)
        return 1;
    /* a reproducible random start, the same in both lattices */
    uint64_t seed = 12345;
    for (int64_t k = 0; k < L * L; k++) {
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        plain[k] = (seed >> 63) ? 1 : -1;
        stored[hl_kindex_crinkle(&ki, &cr, k)] = plain[k];
    }

    for (int sweep = 0; sweep < SWEEPS; sweep++)
        for (int colour = 0; colour < 2; colour++) {
            /* the crinkled lattice: walk the stored order, find each site's
               logical k, its neighbours' logical k, and read them where they
               are stored */
            for (int64_t p = 0; p < L * L; p++) {
                const int64_t k = hl_kindex_uncrinkle(&ki, &cr, p);
                int64_t x[2];
                hl_kindex_fromk(&ki, k, x);
                if ((x[0] + x[1]) % 2 != colour)
                    continue;
                int sum = 0;
                for (int d = 0; d < 2; d++)
                    for (int n = -1; n <= 1; n += 2) {
                        const int64_t kn = hl_kindex_neighbour_bc(&ki, k, d, n, HL_BOUNDARY_PERIODIC);
                        sum += stored[hl_kindex_crinkle(&ki, &cr, kn)];
                    }
                if (sum)
                    stored[p] = sum > 0 ? 1 : -1;
            }
            /* the same half-sweep on the plain lattice (one colour reads
               only the other colour, so updating in place is exact) */
            memcpy(next, plain, L * L);
            for (int64_t k = 0; k < L * L; k++) {
                int64_t x[2];
                hl_kindex_fromk(&ki, k, x);
                if ((x[0] + x[1]) % 2 == colour)
                    next[k] = majority(plain, &ki, k);
            }
            memcpy(plain, next, L * L);
        }

    /* back to the standard order by a plan, then compared and saved */
    hl_shape s;
    hl_plan *p;
    if (check(hl_shape_parse(&s, "[64,64,int8]"), "shape") ||
        check(hl_plan_uncrinkle(&p, &s, 0, 2, NULL), "plan"))
        return 1;
    hl_status st = hl_execute(p, stored, next);
    hl_plan_destroy(p);
    if (check(st, "execute"))
        return 1;
    if (memcmp(next, plain, L * L) != 0) {
        fprintf(stderr, "checkerboard: the crinkled sweep differs from the plain one\n");
        return 1;
    }
    int64_t m = 0;
    for (int64_t k = 0; k < L * L; k++)
        m += next[k];
    if (check(hl_npy_save(out, &s, next), out))
        return 1;
    printf("%d sweeps of a %dx%d checkerboard: magnetisation %lld, the same as on the plain "
           "lattice; saved %s\n", SWEEPS, L, L, (long long)m, out);
    free(plain);
    free(stored);
    free(next);
    return 0;
}
