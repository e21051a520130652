/* libxsmm as a peer: its out-of-place matrix transpose (libxsmm_otrans, or
 * libxsmm_otrans_omp on several threads).  It does 2-D transposes only: a
 * permutation applies when it exchanges two groups of dimensions, nothing
 * outside them (after dropping extents of one). */
#include <stdlib.h>

#include <libxsmm.h>
#include <omp.h>

#include "peers.h"

/* libxsmm_otrans_omp lives in libxsmmext. */
void libxsmm_otrans_omp(void *out, const void *in, unsigned int typesize, libxsmm_blasint m,
                        libxsmm_blasint n, libxsmm_blasint ldi, libxsmm_blasint ldo);

typedef struct {
    const void *in;
    void *out;
    int es, threads;
    libxsmm_blasint m, n; /* in: m fastest, n slowest */
} xplan;

static void *plan(const int *perm, int rank, const int *size, int es, const void *in, void *out,
                  int threads)
{
    /* output dims j = 0.. are input dims perm[j]: a 2-D transpose when they
     * read k, k+1, ..., rank-1, 0, 1, ..., k-1 for some k (extent-1 dims aside) */
    int dims[32], n = 0, outdims[32], no = 0;
    for (int i = 0; i < rank; i++)
        if (size[i] > 1)
            dims[n++] = i;
    for (int j = 0; j < rank; j++)
        if (size[perm[j]] > 1)
            outdims[no++] = perm[j];
    if (n < 2)
        return NULL;
    int k = 0;
    while (k < n && dims[k] != outdims[0])
        k++;
    if (k == 0 || k == n)
        return NULL;
    for (int j = 0; j < n; j++)
        if (outdims[j] != dims[(k + j) % n])
            return NULL;
    libxsmm_blasint m = 1, nn = 1;
    for (int j = 0; j < k; j++)
        m *= size[dims[j]];
    for (int j = k; j < n; j++)
        nn *= size[dims[j]];
    xplan *p = malloc(sizeof *p);
    if (!p)
        return NULL;
    *p = (xplan){in, out, es, threads, m, nn};
    libxsmm_init();
    return p;
}

static void execute(void *q)
{
    const xplan *p = q;
    if (p->threads == 1) {
        libxsmm_otrans(p->out, p->in, (unsigned int)p->es, p->m, p->n, p->m, p->n);
    } else {
        omp_set_num_threads(p->threads);
        libxsmm_otrans_omp(p->out, p->in, (unsigned int)p->es, p->m, p->n, p->m, p->n);
    }
}

static void destroy(void *q) { free(q); }

const struct peer_ops peer_libxsmm = {"libxsmm", plan, execute, destroy};
