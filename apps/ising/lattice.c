/* hyperlayout Ising — the lattice: creation and parameters (its spins:
 * spins.c, their copies: mirror.c). */
#include "lattice.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hyperlayout/expert.h"

/* The kernels called name: HL_ERR_UNSUPPORTED when this CPU or build lacks
 * them, HL_ERR_ARG for a name that is no level. */
static hl_status kernels_named(const char *name, const ising_kernels **k)
{
    if (!strcmp(name, "generic")) {
        *k = &ising_kernels_generic;
        return HL_OK;
    }
    if (!strcmp(name, "avx2")) {
#if defined(ISING_HAVE_AVX2)
        if (__builtin_cpu_supports("avx2")) {
            *k = &ising_kernels_avx2;
            return HL_OK;
        }
#endif
        return HL_ERR_UNSUPPORTED;
    }
    if (!strcmp(name, "avx512")) {
#if defined(ISING_HAVE_AVX512)
        if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")) {
            *k = &ising_kernels_avx512;
            return HL_OK;
        }
#endif
        return HL_ERR_UNSUPPORTED;
    }
    return HL_ERR_ARG;
}

/* The default: the best kernels at or below the level the library's plans
 * use (HL_ISA, hl_isa_force), so that one setting runs the whole program at
 * one level.  sse2 and neon have no kernels of their own: generic's. */
static hl_status default_kernels(const ising_kernels **k)
{
    if (hl_isa_usable() != HL_OK)
        return HL_ERR_ISA;
    const char *lib = hl_isa_name();
    static const char *const levels[] = {"avx512", "avx2", "generic"};
    int from = !strcmp(lib, "avx512") ? 0 : !strcmp(lib, "avx2") ? 1 : 2;
    while (kernels_named(levels[from], k) != HL_OK)
        from++;
    return HL_OK;
}

hl_status ising_set_isa(ising *is, const char *name)
{
    if (!is)
        return HL_ERR_NULL;
    const ising_kernels *k = NULL;
    const hl_status st = name ? kernels_named(name, &k) : default_kernels(&k);
    if (st == HL_OK)
        is->kernels = k;
    return st;
}

const char *ising_isa_of(const ising *is)
{
    return is->kernels->name;
}

hl_status ising_create(ising **out, int rank, const int64_t *extent, uint64_t seed)
{
    if (!out || !extent)
        return HL_ERR_NULL;
    *out = NULL;
    if (rank < 1 || rank > ISING_MAX_RANK)
        return HL_ERR_RANK;
    for (int i = 0; i < rank; i++)
        if (extent[i] < 2 || extent[i] % 2) /* the checkerboard needs even extents */
            return HL_ERR_EXTENT;
    ising *is = calloc(1, sizeof *is);
    if (!is)
        return HL_ERR_NOMEM;
    hl_status st = hl_kindex_init(&is->ki, rank, extent);
    if (st == HL_OK)
        st = hl_kcrinkle_init(&is->cr, &is->ki, 0, 2);
    /* site sums and words are indexed with int64 and g = k/2 fits easily;
     * keep N below 2^40 so that byte counts and series stay sane */
    if (st == HL_OK && is->ki.count > ((int64_t)1 << 40))
        st = HL_ERR_OVERFLOW;
    if (st != HL_OK) {
        free(is);
        return st;
    }
    is->pow2 = hl_kpow2_init(&is->kp, rank, extent) == HL_OK;
    is->rank = rank;
    memcpy(is->extent, extent, (size_t)rank * sizeof *extent);
    is->count = is->ki.count;
    is->half = extent[0] / 2;
    is->seed = seed;
    st = default_kernels(&is->kernels);
    if (st != HL_OK) {
        free(is);
        return st;
    }
    size_t bytes = ((size_t)is->count + 63) / 64 * 64;
    is->spins = aligned_alloc(64, bytes);
    if (!is->spins) {
        free(is);
        return HL_ERR_NOMEM;
    }
    memset(is->spins, 1, bytes);
    is->clusters = 1;
    ising_set_variant(is, ISING_AUTO);
    ising_set_beta(is, 0.0, 0.0);
    *out = is;
    return HL_OK;
}

void ising_destroy(ising *is)
{
    if (!is)
        return;
    if (is->mirror) {
        ising_gpu_destroy(is->mirror->gpu);
        free(is->mirror);
    }
    ising_msc_free(is);
    ising_cluster_free(is->cluster);
    free(is->spins);
    free(is);
}

int ising_rank(const ising *is)
{
    return is->rank;
}

const int64_t *ising_extents(const ising *is)
{
    return is->extent;
}

int64_t ising_count(const ising *is)
{
    return is->count;
}

uint64_t ising_seed(const ising *is)
{
    return is->seed;
}

hl_status ising_set_variant(ising *is, ising_variant v)
{
    if (!is)
        return HL_ERR_NULL;
    const ising_variant to =
        v == ISING_AUTO ? (is->rank == 2 ? ISING_C : is->pow2 ? ISING_B : ISING_A) : v;
    switch (v) {
    case ISING_AUTO:
    case ISING_A:
    case ISING_REFERENCE:
        break;
    case ISING_M: {
        if (ising_dynamics_cluster(is->dynamics))
            return HL_ERR_UNSUPPORTED; /* the clusters are grown on bytes */
        hl_status st = ising_msc_attach(is);
        if (st != HL_OK)
            return st;
        break;
    }
    case ISING_B:
        if (!is->pow2)
            return HL_ERR_NOT_POW2;
        break;
    case ISING_C:
        if (is->rank != 2)
            return HL_ERR_RANK;
        break;
    default:
        return HL_ERR_ARG;
    }
    if ((to == ISING_M) != (is->variant == ISING_M)) {
        /* the spins' home changes: bytes and bits, and the device's copy */
        hl_status st = ising_sync_host(is);
        if (st != HL_OK)
            return st;
        ising_host_rewritten(is);
    }
    is->variant = to;
    return HL_OK;
}

ising_variant ising_variant_of(const ising *is)
{
    return is->variant;
}

const char *ising_variant_name(ising_variant v)
{
    switch (v) {
    case ISING_AUTO:
        return "auto";
    case ISING_A:
        return "A";
    case ISING_B:
        return "B";
    case ISING_C:
        return "C";
    case ISING_REFERENCE:
        return "reference";
    case ISING_M:
        return "M";
    default:
        return "?";
    }
}

hl_status ising_set_threads(ising *is, int threads)
{
    if (!is)
        return HL_ERR_NULL;
    if (threads < 0)
        return HL_ERR_ARG;
    is->threads = threads;
    return HL_OK;
}

/* The thresholds of beta, h and the dynamics: for a = s S (spin s, neighbour
 * sum S), dE = 2 (a + s h); a flip is accepted when the word is below
 * floor(P 2^32), or outright (Metropolis, dE <= 0) when a <= cut. */
static void build_table(ising_table *t, int rank, double beta, double h, ising_dynamics dyn)
{
    const int twod = 2 * rank;
    memset(t, 0, sizeof *t);
    t->twod = twod;
    t->symmetric = h == 0;
    for (int n = 0; n < 2; n++) {
        const double s = n ? -1.0 : 1.0;
        /* Metropolis: a <= -s h  <=>  a <= floor(-s h) for integer a, |a| <= 2d;
         * heat-bath accepts nothing outright */
        double cut = dyn == ISING_METROPOLIS ? floor(-s * h) : -twod - 1;
        cut = cut < -twod - 1 ? -twod - 1 : cut > twod ? twod : cut;
        t->cut[n] = (int8_t)cut;
        for (int e = 0; e <= twod; e++) {
            const int a = 2 * e - twod;
            const double dE = 2.0 * (a + s * h);
            if (a <= t->cut[n]) {
                t->thr[n][e] = UINT32_MAX; /* never read: accepted outright */
                continue;
            }
            /* P < 1 here (Metropolis: dE > 0), so floor(P 2^32) <= 2^32 - 1
             * but where P rounds to 1 */
            const double p = dyn == ISING_METROPOLIS ? exp(-beta * dE) : 1 / (1 + exp(beta * dE));
            const double x = floor(ldexp(p, 32));
            t->thr[n][e] = x >= 4294967295.0 ? UINT32_MAX : (uint32_t)x;
        }
    }
}

hl_status ising_set_beta(ising *is, double beta, double h)
{
    if (!is)
        return HL_ERR_NULL;
    if (!(beta >= 0) || !isfinite(beta) || !isfinite(h))
        return HL_ERR_ARG;
    if (h != 0 && ising_dynamics_cluster(is->dynamics))
        return HL_ERR_UNSUPPORTED; /* the cluster updates are for h = 0 */
    build_table(&is->table, is->rank, beta, h, is->dynamics);
    is->beta = beta;
    is->h = h;
    return HL_OK;
}

hl_status ising_set_dynamics(ising *is, ising_dynamics d)
{
    if (!is)
        return HL_ERR_NULL;
    if (d != ISING_METROPOLIS && d != ISING_HEATBATH && d != ISING_WOLFF && d != ISING_SW)
        return HL_ERR_ARG;
    /* the cluster updates: h = 0, on the CPU, on the byte lattice (not M's bits) */
    if (ising_dynamics_cluster(d) && (is->h != 0 || is->mirror || is->variant == ISING_M))
        return HL_ERR_UNSUPPORTED;
    is->dynamics = d;
    build_table(&is->table, is->rank, is->beta, is->h, d);
    return HL_OK;
}

ising_dynamics ising_dynamics_of(const ising *is)
{
    return is->dynamics;
}

const char *ising_dynamics_name(ising_dynamics d)
{
    switch (d) {
    case ISING_METROPOLIS:
        return "metropolis";
    case ISING_HEATBATH:
        return "heatbath";
    case ISING_WOLFF:
        return "wolff";
    case ISING_SW:
        return "sw";
    default:
        return "?";
    }
}

int ising_dynamics_cluster(ising_dynamics d)
{
    return d == ISING_WOLFF || d == ISING_SW;
}

hl_status ising_set_clusters(ising *is, int64_t clusters)
{
    if (!is)
        return HL_ERR_NULL;
    if (clusters < 1 || clusters > ((int64_t)1 << 40))
        return HL_ERR_ARG;
    is->clusters = clusters;
    return HL_OK;
}

int64_t ising_clusters_of(const ising *is)
{
    return is->clusters;
}

const ising_table *ising_table_of(const ising *is)
{
    return &is->table;
}

int64_t ising_sweep_index(const ising *is)
{
    return is->sweep;
}

hl_status ising_set_sweep_index(ising *is, int64_t s)
{
    if (!is)
        return HL_ERR_NULL;
    if (s < 0)
        return HL_ERR_ARG;
    is->sweep = s;
    return HL_OK;
}
