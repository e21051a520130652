/* hyperlayout — the assignment of owners of a redistribution's `to` to
 * processes (redist_plan.h: relabel). */
#include <stdlib.h>

#include "redist_plan.h"

/* Maximum-weight perfect matching of the n x n matrix w (row r: process r,
 * column q: owner q), the Hungarian method (potentials, O(n^3)) on costs
 * -w; holds[r] gets r's column. */
static hl_status hungarian(const int64_t *w, int n, int64_t *holds)
{
    int64_t *u = calloc((size_t)n + 1, sizeof *u), *v = calloc((size_t)n + 1, sizeof *v);
    int64_t *minv = malloc(sizeof *minv * ((size_t)n + 1));
    int *p = calloc((size_t)n + 1, sizeof *p), *way = calloc((size_t)n + 1, sizeof *way);
    bool *used = malloc((size_t)n + 1);
    if (!u || !v || !minv || !p || !way || !used) {
        free(u), free(v), free(minv), free(p), free(way), free(used);
        return HL_ERR_NOMEM;
    }
    /* 1-based, p[j] = the row matched to column j */
    for (int i = 1; i <= n; i++) {
        p[0] = i;
        int j0 = 0;
        for (int j = 0; j <= n; j++) {
            minv[j] = INT64_MAX;
            used[j] = false;
        }
        do {
            used[j0] = true;
            const int i0 = p[j0];
            int64_t delta = INT64_MAX;
            int j1 = 0;
            for (int j = 1; j <= n; j++)
                if (!used[j]) {
                    const int64_t cur = -w[(size_t)(i0 - 1) * (size_t)n + (size_t)(j - 1)] -
                                        u[i0] - v[j];
                    if (cur < minv[j]) {
                        minv[j] = cur;
                        way[j] = j0;
                    }
                    if (minv[j] < delta) {
                        delta = minv[j];
                        j1 = j;
                    }
                }
            for (int j = 0; j <= n; j++)
                if (used[j]) {
                    u[p[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            j0 = j1;
        } while (p[j0] != 0);
        do {
            const int j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
        } while (j0);
    }
    for (int j = 1; j <= n; j++)
        holds[p[j] - 1] = j - 1;
    free(u), free(v), free(minv), free(p), free(way), free(used);
    return HL_OK;
}

typedef struct weighted {
    int64_t w;
    int r, q;
} weighted;

static int by_weight(const void *a, const void *b)
{
    const weighted *x = a, *y = b;
    if (x->w != y->w)
        return (x->w < y->w) - (x->w > y->w); /* heaviest first */
    if (x->r != y->r)
        return (x->r > y->r) - (x->r < y->r);
    return (x->q > y->q) - (x->q < y->q);
}

/* Greedy: the heaviest pairs first, each process and owner taken once. */
static hl_status greedy(const int64_t *w, int n, int64_t *holds)
{
    weighted *e = malloc(sizeof *e * (size_t)n * (size_t)n);
    bool *taken = calloc((size_t)n, 1);
    if (!e || !taken) {
        free(e), free(taken);
        return HL_ERR_NOMEM;
    }
    for (int r = 0; r < n; r++) {
        holds[r] = -1;
        for (int q = 0; q < n; q++)
            e[(size_t)r * (size_t)n + (size_t)q] = (weighted){w[(size_t)r * (size_t)n + (size_t)q], r, q};
    }
    qsort(e, (size_t)n * (size_t)n, sizeof *e, by_weight);
    for (size_t j = 0; j < (size_t)n * (size_t)n; j++)
        if (holds[e[j].r] < 0 && !taken[e[j].q]) {
            holds[e[j].r] = e[j].q;
            taken[e[j].q] = true;
        }
    free(e), free(taken);
    return HL_OK;
}

/* holds[r] for every process from the cells each holds for each owner of
 * `to` (row me: mine, gathered from all): a maximum-weight assignment,
 * the identity preferred among equal ones. */
hl_status redist_relabel(MPI_Comm comm, int me, int P, const int64_t *row, int64_t *holds)
{
    int64_t *w = malloc(sizeof *w * (size_t)P * (size_t)P);
    if (!w)
        return HL_ERR_NOMEM;
    if (MPI_Allgather(row, P, MPI_INT64_T, w, P, MPI_INT64_T, comm) != MPI_SUCCESS) {
        free(w);
        return HL_ERR_COMM;
    }
    (void)me;
    /* weights in cells, scaled so that one cell more outweighs every
     * fixed point; a fixed point adds 1 */
    for (int r = 0; r < P; r++)
        for (int q = 0; q < P; q++)
            w[(size_t)r * (size_t)P + (size_t)q] =
                w[(size_t)r * (size_t)P + (size_t)q] * ((int64_t)P + 1) + (r == q);
    const hl_status st = P <= 512 ? hungarian(w, P, holds) : greedy(w, P, holds);
    free(w);
    return st;
}
