/* bench_peers' adapters: each peer transposes a dense array whose dimension
 * 0 varies fastest (column-major, hyperlayout's order), out[y] = in[x] with
 * y_j = x_{perm[j]} (hl_plan_permute's and HPTT's convention).  An adapter
 * returns NULL where its library cannot do the permutation. */
#ifndef HL_BENCH_PEERS_H
#define HL_BENCH_PEERS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct peer peer;

struct peer_ops {
    const char *name;
    /* Plans the permutation of an array of rank dims with extents size[]
     * (dimension 0 fastest) of elements of es bytes (4 or 8), from in to out,
     * on `threads` threads.  May run the transpose while planning. */
    void *(*plan)(const int *perm, int rank, const int *size, int es, const void *in, void *out,
                  int threads);
    void (*execute)(void *plan);
    void (*destroy)(void *plan);
};

#ifdef HL_HAVE_HPTT
extern const struct peer_ops peer_hptt;
#endif
#ifdef HL_HAVE_LIBXSMM
extern const struct peer_ops peer_libxsmm;
#endif

#ifdef __cplusplus
}
#endif

#endif
