/* hyperlayout Ising — cluster updates: Wolff (one cluster at a time) and
 * Swendsen-Wang (every cluster at once), in any rank 1..8, h = 0.
 *
 * Both are the Fortuin-Kasteleyn construction: a bond between two aligned
 * neighbours is activated with probability p = 1 - exp(-2 beta) (J = 1), and
 * the clusters of activated bonds are flipped, each with probability 1/2
 * (SW) or the one grown from a random site always (Wolff).  A bond is one
 * neighbour slot, so with an extent of 2 the two slots between the same
 * pair of sites are two bonds, as in the energy.
 *
 * They act on the spins in logical k order (x0 fastest): a sweep call copies
 * the crinkled store out (the library's uncrinkle plan), runs its sweeps and
 * copies back.  Neighbours come from a table of the 2d neighbour slots of
 * every site, built once by the lattice's variant (A: hl_kindex_neighbour, B:
 * hl_kpow2_neighbour, C: by hand in 2D; all give the same table); lattices
 * whose table would pass 4 GiB (or N >= 2^32) find them site by site
 * through hl_kindex_neighbour instead.
 *
 * Random numbers.  Philox4x32-10 keyed by the seed (site.h), in phases of
 * their own, t = 2^63 + 4 s + purpose for sweep s:
 *   SW bonds (purpose 0): the sites are cut into fixed blocks of
 *     ISING_SW_BLOCK consecutive k; block b seeds a xoshiro256** generator
 *     from Philox calls (2b, 2b+1) of the phase, which then decides that
 *     block's bonds in order: for site k, one 64-bit draw per two
 *     dimensions (i, i+1), its low 32 bits for the bond to the +1
 *     neighbour in dimension i and its high 32 bits for dimension i+1; the
 *     bond is active when the pair is aligned and the number is below
 *     p 2^32.  (Wolff compares the top 53 bits.)  Blocks go to threads in
 *     any order: the bonds do not depend on the thread count.
 *   SW flips (purpose 1): the union-find links the larger root under the
 *     smaller, so every cluster's root is its smallest site k, whatever the
 *     order of the unions; the cluster flips when bit 0 of word 0 of Philox
 *     call k of the phase is 1.  So an SW sweep's result depends on the seed,
 *     the sweep and the spins only: identical on any number of threads.
 *   Wolff (purpose 2): one xoshiro256** generator per sweep, seeded from
 *     Philox calls 0 and 1 of the phase; it picks each cluster's first site
 *     (uniform over the N sites) and decides each bond tested, in the order
 *     of a stack-based growth.  Sequential, so one thread.
 * A sweep's numbers depend on (seed, sweep) only, so a checkpoint between
 * sweeps (spins and sweep counter) resumes bit for bit.
 *
 * A Wolff sweep is a fixed number of cluster flips (ising_set_clusters,
 * default 1), after which M and B are measured (kept up to date cluster by
 * cluster: the changes across the cluster's boundary).  Fixed, not "until N
 * spins have flipped": a sweep that stops on the cluster sizes measures at a
 * stopping time that depends on the trajectory, and the measurements are
 * biased (measured: 2D, T = 2.6, e off by 24 standard errors).  With K
 * clusters per sweep, tau in sweeps of N spin flips is
 * tau K <|C|> / N = tau K <m^2> (the cluster size's improved estimator,
 * <|C|> = N <m^2> at h = 0). */
#include "cluster.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "hyperlayout/plan.h"
#include "hyperlayout/shape.h"
#include "lattice.h"

/* Sites per block of SW's bond decisions (one generator each). */
#define ISING_SW_BLOCK 4096

struct ising_cluster {
    int64_t n;       /* sites */
    int slots;       /* 2d */
    uint32_t *nbr;   /* n * slots neighbours (slot 2i: -1 in dimension i, 2i+1: +1), or NULL */
    int direct;      /* find neighbours through the k-index, not the table */
    int8_t *spin;    /* logical order */
    int64_t *parent; /* SW's union-find forest, or Wolff's stack */
    int8_t *sign;    /* SW: -1 at a root whose cluster flips, else +1 */
};

/* ---- random numbers ---- */

static uint64_t cluster_phase(int64_t sweep, int purpose)
{
    return ((uint64_t)1 << 63) + 4 * (uint64_t)sweep + (uint64_t)purpose;
}

typedef struct xoshiro {
    uint64_t s[4];
} xoshiro;

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* xoshiro256** (Blackman and Vigna) */
static inline uint64_t xo_next(xoshiro *g)
{
    uint64_t *s = g->s;
    const uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return r;
}

/* The generator of Philox calls (2b, 2b+1) of phase t. */
static xoshiro xo_seed(uint64_t seed, uint64_t t, uint64_t b)
{
    xoshiro g;
    const philox4x32_ctr_t a = ising_philox(seed, t, 2 * b), c = ising_philox(seed, t, 2 * b + 1);
    for (int i = 0; i < 2; i++) {
        g.s[i] = (uint64_t)a.v[2 * i] | (uint64_t)a.v[2 * i + 1] << 32;
        g.s[2 + i] = (uint64_t)c.v[2 * i] | (uint64_t)c.v[2 * i + 1] << 32;
    }
    if (!(g.s[0] | g.s[1] | g.s[2] | g.s[3]))
        g.s[0] = 1; /* the one state xoshiro cannot leave */
    return g;
}

/* A bond is activated when the top 53 bits of a number are below thr. */
static uint64_t bond_threshold(double beta)
{
    const double p = ising_cluster_padd(beta);
    return p >= 1 ? (uint64_t)1 << 53 : (uint64_t)floor(ldexp(p, 53));
}

/* SW: a bond is activated when a 32-bit number is below thr32 (2^32: always). */
static uint64_t bond_threshold32(double beta)
{
    const double p = ising_cluster_padd(beta);
    return p >= 1 ? (uint64_t)1 << 32 : (uint64_t)floor(ldexp(p, 32));
}

double ising_cluster_padd(double beta)
{
    return -expm1(-2 * beta);
}

/* ---- the work space ---- */

void ising_cluster_free(ising_cluster *c)
{
    if (!c)
        return;
    free(c->nbr);
    free(c->spin);
    free(c->parent);
    free(c->sign);
    free(c);
}

/* Neighbour slot j of logical site k by the k-index (the table's reference). */
static inline int64_t neighbour_direct(const ising *is, int64_t k, int j)
{
    return hl_kindex_neighbour(&is->ki, k, j >> 1, (j & 1) ? 1 : -1);
}

static inline int64_t neighbour(const ising *is, const ising_cluster *c, int64_t k, int j)
{
    return c->direct ? neighbour_direct(is, k, j) : (int64_t)c->nbr[k * c->slots + j];
}

/* The table, by the lattice's variant. */
static void build_table(const ising *is, ising_cluster *c, int nt)
{
    const int d = is->rank, slots = 2 * d;
    const ising_variant v = is->variant;
    const int64_t L0 = is->extent[0], L1 = d == 2 ? is->extent[1] : 1;
#pragma omp parallel for schedule(static) num_threads(nt) if (c->n >= 65536)
    for (int64_t k = 0; k < c->n; k++) {
        uint32_t *row = c->nbr + k * slots;
        if (v == ISING_C) { /* by hand: x0 = k mod L0, x1 = k div L0 */
            const int64_t x0 = k % L0, x1 = k / L0;
            row[0] = (uint32_t)(x0 ? k - 1 : k + L0 - 1);
            row[1] = (uint32_t)(x0 + 1 < L0 ? k + 1 : k - L0 + 1);
            row[2] = (uint32_t)(x1 ? k - L0 : k + (L1 - 1) * L0);
            row[3] = (uint32_t)(x1 + 1 < L1 ? k + L0 : k - (L1 - 1) * L0);
            continue;
        }
        for (int j = 0; j < slots; j++)
            row[j] = (uint32_t)(v == ISING_B ? hl_kpow2_neighbour(&is->kp, k, j >> 1, (j & 1) ? 1 : -1)
                                             : neighbour_direct(is, k, j));
    }
}

static hl_status workspace(ising *is, ising_cluster **out)
{
    if (is->cluster) {
        *out = is->cluster;
        return HL_OK;
    }
    ising_cluster *c = calloc(1, sizeof *c);
    if (!c)
        return HL_ERR_NOMEM;
    c->n = is->count;
    c->slots = 2 * is->rank;
    const size_t n = (size_t)c->n;
    c->spin = malloc(n);
    c->parent = malloc(n * sizeof *c->parent);
    c->sign = malloc(n);
    const int table = c->n < ((int64_t)1 << 32) && (double)c->n * c->slots * 4 <= 4294967296.0;
    if (table)
        c->nbr = malloc(n * (size_t)c->slots * sizeof *c->nbr);
    c->direct = !table;
    if (!c->spin || !c->parent || !c->sign || (table && !c->nbr)) {
        ising_cluster_free(c);
        return HL_ERR_NOMEM;
    }
    if (table)
        build_table(is, c, hl_threads_usable(is->threads));
    is->cluster = c;
    *out = c;
    return HL_OK;
}

hl_status ising_cluster_set_direct(ising *is, int direct)
{
    if (!is)
        return HL_ERR_NULL;
    ising_cluster *c;
    hl_status st = workspace(is, &c);
    if (st != HL_OK)
        return st;
    if (!direct && !c->nbr)
        return HL_ERR_UNSUPPORTED;
    c->direct = direct != 0;
    return HL_OK;
}

/* ---- measurement ---- */

static void measure(const ising *is, const ising_cluster *c, int nt, int64_t *m_out, int64_t *b_out)
{
    int64_t m = 0, b = 0;
    const int8_t *s = c->spin;
    const int d = is->rank;
#pragma omp parallel for schedule(static) reduction(+ : m, b) num_threads(nt) if (c->n >= 65536)
    for (int64_t k = 0; k < c->n; k++) {
        int sum = 0;
        for (int i = 0; i < d; i++)
            sum += s[neighbour(is, c, k, 2 * i + 1)];
        m += s[k];
        b += s[k] * sum;
    }
    *m_out = m;
    *b_out = b;
}

/* ---- Swendsen-Wang ---- */

static inline int64_t load(const int64_t *p)
{
    return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/* The root of x, halving the path on the way.  Every parent is an ancestor
 * of smaller index, and stays one, so concurrent halving is harmless. */
static inline int64_t find(int64_t *parent, int64_t x)
{
    for (;;) {
        const int64_t p = load(parent + x);
        if (p == x)
            return x;
        const int64_t g = load(parent + p);
        if (g != p)
            __atomic_store_n(parent + x, g, __ATOMIC_RELAXED);
        x = g;
    }
}

/* Joins the trees of a and b, the larger root under the smaller, lock-free:
 * a root is only ever changed by a compare-and-swap that expects it to be a
 * root still. */
static inline void unite(int64_t *parent, int64_t a, int64_t b, int concurrent)
{
    for (;;) {
        a = find(parent, a);
        b = find(parent, b);
        if (a == b)
            return;
        if (a < b) {
            const int64_t t = a;
            a = b;
            b = t;
        }
        if (!concurrent) { /* one thread: a plain store (a locked instruction costs ~20 cycles) */
            parent[a] = b;
            return;
        }
        int64_t expect = a;
        if (__atomic_compare_exchange_n(parent + a, &expect, b, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            return;
    }
}

static void sw_sweep(ising *is, ising_cluster *c, int nt)
{
    const int64_t n = c->n;
    const int d = is->rank;
    const uint64_t thr32 = bond_threshold32(is->beta);
    const uint64_t tb = cluster_phase(is->sweep, 0), tf = cluster_phase(is->sweep, 1);
    const int64_t blocks = (n + ISING_SW_BLOCK - 1) / ISING_SW_BLOCK;
    int8_t *s = c->spin;
    int64_t *parent = c->parent;
    const int team = blocks < nt ? (int)blocks : nt;
#pragma omp parallel num_threads(team)
    {
#pragma omp for schedule(static)
        for (int64_t k = 0; k < n; k++)
            parent[k] = k;
        /* bonds, block by block, each with its own numbers: a 32-bit
         * number per bond, aligned or not (no branch to mispredict), half
         * of a 64-bit draw */
#pragma omp for schedule(dynamic, 1)
        for (int64_t b = 0; b < blocks; b++) {
            xoshiro g = xo_seed(is->seed, tb, (uint64_t)b);
            const int64_t k1 = (b + 1) * ISING_SW_BLOCK < n ? (b + 1) * ISING_SW_BLOCK : n;
            for (int64_t k = b * ISING_SW_BLOCK; k < k1; k++) {
                unsigned bits = 0;
                for (int i = 0; i < d; i += 2) {
                    const uint64_t u = xo_next(&g);
                    const int64_t q0 = neighbour(is, c, k, 2 * i + 1);
                    bits |= (unsigned)((s[q0] == s[k]) & ((u & 0xffffffffu) < thr32)) << i;
                    if (i + 1 < d) {
                        const int64_t q1 = neighbour(is, c, k, 2 * i + 3);
                        bits |= (unsigned)((s[q1] == s[k]) & ((u >> 32) < thr32)) << (i + 1);
                    }
                }
                while (bits) {
                    const int i = __builtin_ctz(bits);
                    bits &= bits - 1;
                    unite(parent, k, neighbour(is, c, k, 2 * i + 1), team > 1);
                }
            }
        }
        /* each root (the cluster's smallest site) draws its cluster's flip */
#pragma omp for schedule(static)
        for (int64_t k = 0; k < n; k++)
            if (load(parent + k) == k)
                c->sign[k] = (ising_philox(is->seed, tf, (uint64_t)k).v[0] & 1) ? -1 : 1;
#pragma omp for schedule(static)
        for (int64_t k = 0; k < n; k++)
            s[k] = (int8_t)(s[k] * c->sign[find(parent, k)]);
    }
}

/* ---- Wolff ---- */

/* Grows and flips the cluster of site k0 with generator g; returns its size
 * and adds its change of M and B to *dm, *db.  The cluster is grown from a
 * list that keeps its members (taken first in, first out); a member is
 * marked by the value -2 s0 until it is complete, so that `s[q] == s0`
 * means "aligned with the cluster's old spin and not in it yet".  Then each
 * member's slots tell the bonds across the boundary: to a site of spin s0
 * (their product goes from +1 to -1) or of -s0 (from -1 to +1). */
static int64_t wolff_cluster(const ising *is, ising_cluster *c, int64_t k0, uint64_t thr, xoshiro *g,
                             int64_t *dm, int64_t *db)
{
    int8_t *s = c->spin;
    int64_t *list = c->parent, size = 0;
    const int8_t s0 = s[k0], mark = (int8_t)(-2 * s0);
    const int slots = c->slots;
    s[k0] = mark;
    list[size++] = k0;
    for (int64_t head = 0; head < size; head++) {
        const int64_t k = list[head];
        for (int j = 0; j < slots; j++) {
            const int64_t q = neighbour(is, c, k, j);
            if (s[q] == s0 && (xo_next(g) >> 11) < thr) {
                s[q] = mark;
                list[size++] = q;
            }
        }
    }
    int64_t aligned = 0, opposed = 0;
    for (int64_t i = 0; i < size; i++) {
        const int64_t k = list[i];
        for (int j = 0; j < slots; j++) {
            const int8_t v = s[neighbour(is, c, k, j)];
            aligned += v == s0;
            opposed += v == -s0;
        }
    }
    for (int64_t i = 0; i < size; i++)
        s[list[i]] = (int8_t)-s0;
    *dm -= 2 * s0 * size;
    *db += 2 * (opposed - aligned);
    return size;
}

/* One Wolff sweep: is->clusters cluster flips. */
static void wolff_sweep(ising *is, ising_cluster *c, int64_t *m, int64_t *b)
{
    const uint64_t thr = bond_threshold(is->beta);
    xoshiro g = xo_seed(is->seed, cluster_phase(is->sweep, 2), 0);
    const uint64_t n = (uint64_t)c->n;
    for (int64_t i = 0; i < is->clusters; i++) {
        const int64_t k0 = (int64_t)hl_mulhi_u64(xo_next(&g), n);
        wolff_cluster(is, c, k0, thr, &g, m, b);
    }
}

/* The workspace, holding the spins in logical order (the start of every
 * cluster call; each ends by crinkling them back). */
static hl_status enter(ising *is, ising_cluster **c)
{
    hl_status st = workspace(is, c);
    return st == HL_OK ? ising_relayout(is, 0, is->spins, (*c)->spin) : st;
}

hl_status ising_cluster_sweep(ising *is, int64_t count, int64_t *magnetisation, int64_t *bonds)
{
    if (is->h != 0)
        return HL_ERR_UNSUPPORTED;
    if (is->dynamics != ISING_WOLFF && is->dynamics != ISING_SW)
        return HL_ERR_ARG;
    if (count == 0)
        return HL_OK;
    ising_cluster *c;
    hl_status st = enter(is, &c);
    if (st != HL_OK)
        return st;
    const int nt = hl_threads_usable(is->threads);
    /* Wolff keeps M and B up to date cluster by cluster */
    int64_t m = 0, b = 0;
    if (is->dynamics == ISING_WOLFF)
        measure(is, c, nt, &m, &b);
    for (int64_t i = 0; i < count; i++) {
        if (is->dynamics == ISING_SW)
            sw_sweep(is, c, nt);
        else
            wolff_sweep(is, c, &m, &b);
        is->sweep++;
        if (magnetisation || bonds) {
            if (is->dynamics == ISING_SW)
                measure(is, c, nt, &m, &b);
            if (magnetisation)
                magnetisation[i] = m;
            if (bonds)
                bonds[i] = b;
        }
    }
    return ising_relayout(is, 1, c->spin, is->spins);
}

hl_status ising_wolff_flip(ising *is, int64_t seed_site, uint64_t state[4], int64_t *size)
{
    if (!is || !state || !size)
        return HL_ERR_NULL;
    if (seed_site < 0 || seed_site >= is->count)
        return HL_ERR_RANGE;
    ising_cluster *c;
    hl_status st = enter(is, &c);
    if (st != HL_OK)
        return st;
    xoshiro g;
    memcpy(g.s, state, sizeof g.s);
    int64_t dm = 0, db = 0;
    *size = wolff_cluster(is, c, seed_site, bond_threshold(is->beta), &g, &dm, &db);
    memcpy(state, g.s, sizeof g.s);
    return ising_relayout(is, 1, c->spin, is->spins);
}
