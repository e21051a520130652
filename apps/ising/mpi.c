/* hyperlayout Ising — the lattice across MPI processes (ising_mpi.h). */
#include "ising_mpi.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hyperlayout/kindex.h"
#include "lattice.h" /* the kernels' word generator */
#include "mpi_kernel.h"

struct ising_dist {
    MPI_Comm comm; /* the caller's (the darray keeps a duplicate of its own) */
    int me, procs;
    int rank;
    int64_t extent[ISING_MAX_RANK];
    int64_t count;
    int64_t grid[ISING_MAX_RANK]; /* dimension 0 first */
    uint64_t seed;
    hl_darray *a;
    int8_t *spins; /* the darray's memory: box plus a halo of 1 */
    int64_t start[ISING_MAX_RANK], owned[ISING_MAX_RANK], local[ISING_MAX_RANK];
    int64_t stride[ISING_MAX_RANK]; /* of the local memory */
    int64_t gstride[ISING_MAX_RANK]; /* LP[i] of the global lattice */
    int64_t sites; /* owned */
    double beta, h;
    ising_dynamics dynamics;
    ising_table table;
    int64_t sweep;
    uint32_t *words; /* one row's random words */
    uint32_t *blockwords; /* the blocks of 64 words around them */
    const ising_kernels *kernels; /* their word generator; NULL: the best this CPU has */
    int avx512; /* rows by ising_dist_row_avx512 */
};

/* ---- creation ---------------------------------------------------------- */

hl_status ising_dist_create(ising_dist **out, MPI_Comm comm, int rank, const int64_t *extent,
                            const int64_t *grid, uint64_t seed)
{
    if (out)
        *out = NULL;
    int procs = 1, me = 0;
    if (MPI_Comm_size(comm, &procs) != MPI_SUCCESS || MPI_Comm_rank(comm, &me) != MPI_SUCCESS)
        return HL_ERR_COMM;
    hl_status st = HL_OK;
    if (!out || !extent)
        st = HL_ERR_NULL;
    else if (rank < 1 || rank > ISING_MAX_RANK)
        st = HL_ERR_RANK;
    for (int i = 0; st == HL_OK && i < rank; i++)
        if (extent[i] < 2 || extent[i] % 2)
            st = HL_ERR_EXTENT;
    int64_t g[HL_MAX_RANK] = {0}; /* slowest first, as hl_dist_parse takes it */
    int64_t product = 1;
    for (int i = 0; st == HL_OK && grid && i < rank; i++) {
        if (grid[i] < 1 || grid[i] > procs)
            st = HL_ERR_ARG;
        else
            product *= grid[i];
        g[rank - 1 - i] = grid ? grid[i] : 0;
    }
    if (st == HL_OK && grid && product != procs)
        st = HL_ERR_ARG;
    if (st == HL_OK && !grid)
        st = hl_dims_create(procs, rank, g);
    /* the same lattice, grid and seed everywhere */
    uint64_t fp[2 + 2 * ISING_MAX_RANK] = {0}, lo[2 + 2 * ISING_MAX_RANK], hi[2 + 2 * ISING_MAX_RANK];
    if (st == HL_OK) {
        fp[0] = (uint64_t)rank;
        fp[1] = seed;
        for (int i = 0; i < rank; i++) {
            fp[2 + i] = (uint64_t)extent[i];
            fp[2 + ISING_MAX_RANK + i] = (uint64_t)g[rank - 1 - i];
        }
    }
    hl_status all = hl_mpi_agree(comm, st, NULL, 0);
    if (all != HL_OK)
        return all;
    const int nfp = 2 + 2 * ISING_MAX_RANK;
    if (MPI_Allreduce(fp, lo, nfp, MPI_UINT64_T, MPI_MIN, comm) != MPI_SUCCESS ||
        MPI_Allreduce(fp, hi, nfp, MPI_UINT64_T, MPI_MAX, comm) != MPI_SUCCESS)
        return HL_ERR_COMM;
    if (memcmp(lo, hi, sizeof lo))
        return HL_ERR_MISMATCH;

    ising_dist *d = calloc(1, sizeof *d);
    st = d ? HL_OK : HL_ERR_NOMEM;
    if (st == HL_OK) {
        d->comm = comm;
        d->me = me;
        d->procs = procs;
        d->rank = rank;
        d->seed = seed;
        memcpy(d->extent, extent, (size_t)rank * sizeof *extent);
        for (int i = 0; i < rank; i++)
            d->grid[i] = g[rank - 1 - i];
        hl_kindex ki;
        st = hl_kindex_init(&ki, rank, extent);
        if (st == HL_OK && ki.count > ((int64_t)1 << 40))
            st = HL_ERR_OVERFLOW;
        if (st == HL_OK) {
            d->count = ki.count;
            for (int i = 0; i < rank; i++)
                d->gstride[i] = ki.stride[i];
        }
    }
    /* the same errors on every process (they depend on the arguments only) */
    all = hl_mpi_agree(comm, st, NULL, 0);
    if (all != HL_OK) {
        free(d);
        return all;
    }
    hl_shape shape;
    st = hl_shape_init(&shape, rank, extent, HL_DTYPE_INT8, 1);
    char spec[8 * ISING_MAX_RANK] = "";
    for (int i = 0; i < rank; i++)
        strcat(spec, i ? ",block" : "block");
    int64_t one[ISING_MAX_RANK];
    bool periodic[ISING_MAX_RANK];
    for (int i = 0; i < rank; i++) {
        one[i] = 1;
        periodic[i] = true;
    }
    hl_darray_options o = {0};
    o.halo_lo = one;
    o.halo_hi = one;
    o.periodic = periodic;
    o.neighbourhood = HL_HALO_STAR;
    o.grid = g;
    /* collective: the same status everywhere */
    st = hl_mpi_agree(comm, st, NULL, 0);
    if (st == HL_OK)
        st = hl_darray_create(&d->a, comm, &shape, spec, &o);
    if (st != HL_OK) {
        free(d);
        return st;
    }
    hl_darray_local(d->a, d->start, d->owned, d->local); /* returns the local count, halo included */
    d->sites = 1;
    for (int i = 0; i < rank; i++)
        d->sites *= d->owned[i];
    d->spins = hl_darray_data(d->a);
    d->words = malloc((size_t)(d->owned[0] / 2 + 1) * sizeof *d->words);
    d->blockwords = aligned_alloc(64, (size_t)((d->owned[0] / 2 + 1) / ISING_BLOCK + 2) * ISING_BLOCK *
                                          sizeof *d->blockwords);
    if (hl_mpi_agree(comm, d->words && d->blockwords ? HL_OK : HL_ERR_NOMEM, NULL, 0) != HL_OK) {
        ising_dist_destroy(d);
        return HL_ERR_NOMEM;
    }
    int64_t s = 1;
    for (int i = 0; i < rank; i++) {
        d->stride[i] = s;
        s *= d->local[i];
    }
    /* the table, and the kernels */
    st = hl_mpi_agree(comm, ising_dist_set_beta(d, 0.0, 0.0), NULL, 0);
    if (st == HL_OK)
        st = ising_dist_fill(d, 1);
    if (st != HL_OK) {
        ising_dist_destroy(d);
        return st;
    }
    *out = d;
    return HL_OK;
}

void ising_dist_destroy(ising_dist *d)
{
    if (!d)
        return;
    hl_darray_destroy(d->a);
    free(d->words);
    free(d->blockwords);
    free(d);
}

int ising_dist_rank(const ising_dist *d)
{
    return d->rank;
}

const int64_t *ising_dist_extents(const ising_dist *d)
{
    return d->extent;
}

int64_t ising_dist_count(const ising_dist *d)
{
    return d->count;
}

const int64_t *ising_dist_grid(const ising_dist *d)
{
    return d->grid;
}

int64_t ising_dist_box(const ising_dist *d, int64_t *start, int64_t *owned)
{
    for (int i = 0; i < d->rank; i++) {
        if (start)
            start[i] = d->start[i];
        if (owned)
            owned[i] = d->owned[i];
    }
    return d->sites;
}

hl_darray *ising_dist_array(ising_dist *d)
{
    return d->a;
}

/* ---- parameters --------------------------------------------------------- */

/* ising_set_beta's table (lattice.c), built by a one-site lattice of the
 * same rank so that both use one definition. */
static hl_status make_table(ising_dist *d, double beta, double h, ising_dynamics dyn)
{
    int64_t ext[ISING_MAX_RANK];
    for (int i = 0; i < d->rank; i++)
        ext[i] = 2;
    ising *probe = NULL;
    hl_status st = ising_create(&probe, d->rank, ext, 0);
    if (st == HL_OK)
        st = ising_set_dynamics(probe, dyn);
    if (st == HL_OK)
        st = ising_set_beta(probe, beta, h);
    if (st == HL_OK) {
        d->table = *ising_table_of(probe);
        if (!d->kernels) { /* the best, until ising_dist_set_isa says otherwise */
            d->kernels = probe->kernels;
            d->avx512 = !strcmp(probe->kernels->name, "avx512");
        }
    }
    ising_destroy(probe);
    return st;
}

hl_status ising_dist_set_beta(ising_dist *d, double beta, double h)
{
    if (!d)
        return HL_ERR_NULL;
    if (!(beta >= 0) || !isfinite(beta) || !isfinite(h))
        return HL_ERR_ARG;
    hl_status st = make_table(d, beta, h, d->dynamics);
    if (st == HL_OK) {
        d->beta = beta;
        d->h = h;
    }
    return st;
}

hl_status ising_dist_set_dynamics(ising_dist *d, ising_dynamics dyn)
{
    if (!d)
        return HL_ERR_NULL;
    if (ising_dynamics_cluster(dyn))
        return HL_ERR_UNSUPPORTED; /* Wolff and SW run in one process (cluster.c) */
    if (dyn != ISING_METROPOLIS && dyn != ISING_HEATBATH)
        return HL_ERR_ARG;
    hl_status st = make_table(d, d->beta, d->h, dyn);
    if (st == HL_OK)
        d->dynamics = dyn;
    return st;
}

hl_status ising_dist_set_isa(ising_dist *d, const char *name)
{
    if (!d)
        return HL_ERR_NULL;
    int64_t ext[ISING_MAX_RANK];
    for (int i = 0; i < d->rank; i++)
        ext[i] = 2;
    ising *probe = NULL;
    hl_status st = ising_create(&probe, d->rank, ext, 0);
    if (st == HL_OK)
        st = ising_set_isa(probe, name);
    if (st == HL_OK) {
        d->kernels = probe->kernels;
        /* the vector row update goes with the AVX-512 kernels */
        d->avx512 = !strcmp(probe->kernels->name, "avx512");
    }
    ising_destroy(probe);
    return st;
}

const char *ising_dist_isa(const ising_dist *d)
{
    return d->kernels->name;
}

int64_t ising_dist_sweep_index(const ising_dist *d)
{
    return d->sweep;
}

hl_status ising_dist_set_sweep_index(ising_dist *d, int64_t s)
{
    if (!d)
        return HL_ERR_NULL;
    if (s < 0)
        return HL_ERR_ARG;
    d->sweep = s;
    return HL_OK;
}

/* ---- walking a region of the box ----------------------------------------- */

/* A region of the box: owned coordinates [lo_i, hi_i) per dimension. */
typedef struct region {
    int64_t lo[ISING_MAX_RANK], hi[ISING_MAX_RANK];
} region;

/* walk() calls row(d, arg, off, k, parity, n) for every row (fixed
 * x1..x(d-1)) of a region: the row's first site's local memory offset `off`,
 * global index k and colour `parity` (of its global coordinate sum), and
 * its n sites along dimension 0. */
typedef void (*row_fn)(const ising_dist *d, void *arg, int64_t off, int64_t k, int parity, int64_t n);

static void walk(const ising_dist *d, const region *r, row_fn row, void *arg)
{
    const int rank = d->rank;
    for (int i = 0; i < rank; i++)
        if (r->hi[i] <= r->lo[i])
            return;
    int64_t x[ISING_MAX_RANK];
    for (int i = 0; i < rank; i++)
        x[i] = r->lo[i];
    for (;;) {
        int64_t off = 0, k = 0;
        int64_t parity = 0;
        for (int i = 0; i < rank; i++) {
            const int64_t X = d->start[i] + x[i]; /* global coordinate */
            off += (x[i] + 1) * d->stride[i];     /* + 1: the halo below */
            k += X * d->gstride[i];
            parity += X;
        }
        row(d, arg, off, k, (int)(parity & 1), r->hi[0] - r->lo[0]);
        int i = 1;
        for (; i < rank; i++) {
            if (++x[i] < r->hi[i])
                break;
            x[i] = r->lo[i];
        }
        if (i == rank)
            return;
    }
}

/* The boundary of the box (sites next to the halo) as at most 2d regions
 * that cover it once each, and its interior; an empty box has none. */
static int boundary(const ising_dist *d, region *b, region *interior)
{
    const int rank = d->rank;
    int n = 0;
    for (int i = 0; i < rank; i++) {
        interior->lo[i] = 1;
        interior->hi[i] = d->owned[i] - 1;
    }
    if (d->sites == 0)
        return 0;
    /* the sites whose first dimension at an edge is j */
    for (int j = 0; j < rank; j++) {
        for (int side = 0; side < 2; side++) {
            const int64_t e = side ? d->owned[j] - 1 : 0;
            if (side && e == 0)
                continue; /* one site thick: one edge */
            region *r = &b[n++];
            for (int i = 0; i < rank; i++) {
                if (i < j) {
                    r->lo[i] = 1;
                    r->hi[i] = d->owned[i] - 1;
                } else if (i == j) {
                    r->lo[i] = e;
                    r->hi[i] = e + 1;
                } else {
                    r->lo[i] = 0;
                    r->hi[i] = d->owned[i];
                }
            }
        }
    }
    return n;
}

/* ---- the update ----------------------------------------------------------- */

typedef struct half_arg {
    int c;
    int bonds;
    uint64_t t;
    int64_t m, b;
} half_arg;

/* The words of colour ranks g0 .. g0+n-1 in phase t (site.h's ising_word
 * for each) by scalar Philox calls, each made once: call b*16 + j serves
 * g = b*64 + j + 16 w, w = 0..3 (for short runs, below 16 ranks, that is
 * one call per word). */
static void row_words(uint32_t *out, uint64_t seed, uint64_t t, int64_t g0, int64_t n)
{
    const int64_t g1 = g0 + n - 1;
    for (int64_t b = g0 / ISING_BLOCK; b <= g1 / ISING_BLOCK; b++) {
        const int64_t base = b * ISING_BLOCK;
        for (int j = 0; j < 16; j++) {
            if (base + j + 48 < g0 || base + j > g1)
                continue;
            const philox4x32_ctr_t r = ising_philox(seed, t, (uint64_t)(b * 16 + j));
            for (int w = 0; w < 4; w++) {
                const int64_t g = base + j + 16 * w;
                if (g >= g0 && g <= g1)
                    out[g - g0] = r.v[w];
            }
        }
    }
}

/* The sites of colour c of one row: site.h's rule with the global words. */
static void update_row(const ising_dist *d, void *arg, int64_t off, int64_t k, int parity, int64_t n)
{
    half_arg *h = arg;
    int8_t *s = d->spins;
    const int rank = d->rank;
    /* the first site of colour c: x0 parity decides */
    const int64_t first = (parity == h->c) ? 0 : 1;
    if (first >= n)
        return;
    /* consecutive sites of one colour in a row have consecutive ranks g */
    const int64_t count = (n - first + 1) / 2, g0 = (k + first) >> 1;
    const uint32_t *word = d->words;
    if (count >= 16) {
        /* whole blocks by the vector generator (64 words per 16 calls): cheaper
         * than one scalar call per word or two from 16 words on */
        const int64_t b0 = g0 / ISING_BLOCK, b1 = (g0 + count - 1) / ISING_BLOCK;
        d->kernels->generate(d->blockwords, d->seed, h->t, b0, b1 - b0 + 1);
        word = d->blockwords + (g0 - b0 * ISING_BLOCK);
    } else {
        row_words(d->words, d->seed, h->t, g0, count);
    }
    int64_t m = 0, b = 0;
#if defined(ISING_HAVE_AVX512)
    if (d->avx512 && count >= 16) {
        ising_dist_row_avx512(s, off + first, count, d->stride, rank, word, &d->table, h->bonds, &h->m,
                              &h->b);
        return;
    }
#endif
    for (int64_t q = 0; q < count; q++) {
        const int64_t o = off + first + 2 * q;
        int sum = s[o - 1] + s[o + 1];
        for (int i = 1; i < rank; i++)
            sum += s[o - d->stride[i]] + s[o + d->stride[i]];
        const int8_t ns = ising_update(s[o], sum, word[q], &d->table);
        s[o] = ns;
        m += ns;
        if (h->bonds)
            b += ns * sum;
    }
    h->m += m;
    h->b += b;
}

/* One colour's half of the current sweep, the halo current on entry and on
 * return: the boundary, the exchange started, the interior, the exchange
 * finished. */
static hl_status half_sweep(ising_dist *d, int c, int bonds, int64_t *m, int64_t *b)
{
    region edge[2 * ISING_MAX_RANK], inner;
    const int n = boundary(d, edge, &inner);
    half_arg h = {c, bonds, ising_phase(d->sweep, c), 0, 0};
    for (int j = 0; j < n; j++)
        walk(d, &edge[j], update_row, &h);
    hl_status st = hl_darray_halo_begin(d->a);
    if (d->sites)
        walk(d, &inner, update_row, &h);
    hl_status st2 = st == HL_OK ? hl_darray_halo_end(d->a) : st;
    *m += h.m;
    *b += h.b;
    return st2;
}

static hl_status exchange(ising_dist *d)
{
    hl_status st = hl_darray_halo_begin(d->a);
    if (st == HL_OK)
        st = hl_darray_halo_end(d->a);
    return st;
}

hl_status ising_dist_sweep(ising_dist *d, int64_t count, int64_t *magnetisation, int64_t *bonds)
{
    if (!d)
        return HL_ERR_NULL;
    hl_status st = count < 0 ? HL_ERR_ARG : HL_OK;
    /* the series of a batch reduced at once: one Allreduce per batch of up
     * to 4096 sweeps */
    enum { BATCH = 4096 };
    int64_t *acc = st == HL_OK ? malloc(2 * BATCH * sizeof *acc) : NULL;
    if (st == HL_OK && !acc)
        st = HL_ERR_NOMEM;
    st = hl_mpi_agree(d->comm, st, NULL, 0);
    for (int64_t i0 = 0; st == HL_OK && i0 < count; i0 += BATCH) {
        const int64_t nb = count - i0 < BATCH ? count - i0 : BATCH;
        for (int64_t i = 0; st == HL_OK && i < nb; i++) {
            int64_t m = 0, b = 0;
            st = half_sweep(d, 0, 0, &m, &b);
            if (st == HL_OK)
                st = half_sweep(d, 1, 1, &m, &b);
            d->sweep++;
            acc[i] = m;
            acc[BATCH + i] = b;
        }
        if (st != HL_OK)
            break;
        if (magnetisation || bonds) {
            if (MPI_Allreduce(MPI_IN_PLACE, acc, (int)nb, MPI_INT64_T, MPI_SUM, d->comm) != MPI_SUCCESS ||
                MPI_Allreduce(MPI_IN_PLACE, acc + BATCH, (int)nb, MPI_INT64_T, MPI_SUM, d->comm) !=
                    MPI_SUCCESS)
                st = HL_ERR_COMM;
            if (st == HL_OK && magnetisation)
                memcpy(magnetisation + i0, acc, (size_t)nb * sizeof *acc);
            if (st == HL_OK && bonds)
                memcpy(bonds + i0, acc + BATCH, (size_t)nb * sizeof *acc);
        }
    }
    free(acc);
    return st;
}

/* ---- starts, measurement, checksums ---------------------------------------- */

typedef struct fill_arg {
    int hot;
    int8_t value;
    uint64_t t[2];
} fill_arg;

static void fill_row(const ising_dist *d, void *arg, int64_t off, int64_t k, int parity, int64_t n)
{
    fill_arg *f = arg;
    for (int64_t j = 0; j < n; j++) {
        int8_t v = f->value;
        if (f->hot) { /* ising_randomize: the words of sweep -1 */
            const int c = (int)((parity + j) & 1);
            v = (ising_word(d->seed, f->t[c], (k + j) >> 1) >> 31) ? -1 : 1;
        }
        d->spins[off + j] = v;
    }
}

static void whole(const ising_dist *d, region *r)
{
    for (int i = 0; i < d->rank; i++) {
        r->lo[i] = 0;
        r->hi[i] = d->owned[i];
    }
}

static hl_status fill(ising_dist *d, int hot, int value)
{
    fill_arg f = {hot, (int8_t)value, {ising_phase(-1, 0), ising_phase(-1, 1)}};
    region r;
    whole(d, &r);
    walk(d, &r, fill_row, &f);
    return hl_mpi_agree(d->comm, exchange(d), NULL, 0);
}

hl_status ising_dist_fill(ising_dist *d, int value)
{
    if (!d)
        return HL_ERR_NULL;
    if (value != 1 && value != -1)
        return HL_ERR_ARG; /* the same value on every process: no agreement needed */
    return fill(d, 0, value);
}

hl_status ising_dist_randomize(ising_dist *d)
{
    if (!d)
        return HL_ERR_NULL;
    return fill(d, 1, 1);
}

typedef struct measure_arg {
    int64_t m, b;
    uint64_t sum;
    int8_t *box;
    int64_t pos;
} measure_arg;

/* M and B: every site and its +1 neighbour in each dimension. */
static void measure_row(const ising_dist *d, void *arg, int64_t off, int64_t k, int parity, int64_t n)
{
    (void)k;
    (void)parity;
    measure_arg *a = arg;
    const int8_t *s = d->spins;
    for (int64_t j = 0; j < n; j++) {
        const int64_t o = off + j;
        int sum = 0;
        for (int i = 0; i < d->rank; i++)
            sum += s[o + d->stride[i]];
        a->m += s[o];
        a->b += s[o] * sum;
    }
}

hl_status ising_dist_measure(ising_dist *d, int64_t *magnetisation, int64_t *bonds)
{
    if (!d)
        return HL_ERR_NULL;
    measure_arg a = {0, 0, 0, NULL, 0};
    region r;
    whole(d, &r);
    walk(d, &r, measure_row, &a);
    int64_t v[2] = {a.m, a.b};
    if (MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT64_T, MPI_SUM, d->comm) != MPI_SUCCESS)
        return HL_ERR_COMM;
    if (magnetisation)
        *magnetisation = v[0];
    if (bonds)
        *bonds = v[1];
    return HL_OK;
}

/* splitmix64's finaliser */
static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15u;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static void checksum_row(const ising_dist *d, void *arg, int64_t off, int64_t k, int parity, int64_t n)
{
    (void)parity;
    measure_arg *a = arg;
    for (int64_t j = 0; j < n; j++)
        a->sum += mix(2 * (uint64_t)(k + j) + (d->spins[off + j] < 0));
}

hl_status ising_dist_checksum(ising_dist *d, uint64_t *sum)
{
    if (!d || !sum)
        return HL_ERR_NULL;
    measure_arg a = {0, 0, 0, NULL, 0};
    region r;
    whole(d, &r);
    walk(d, &r, checksum_row, &a);
    if (MPI_Allreduce(&a.sum, sum, 1, MPI_UINT64_T, MPI_SUM, d->comm) != MPI_SUCCESS)
        return HL_ERR_COMM;
    return HL_OK;
}

static void box_row(const ising_dist *d, void *arg, int64_t off, int64_t k, int parity, int64_t n)
{
    (void)k;
    (void)parity;
    measure_arg *a = arg;
    memcpy(a->box + a->pos, d->spins + off, (size_t)n);
    a->pos += n;
}

void ising_dist_get_box(const ising_dist *d, int8_t *box)
{
    measure_arg a = {0, 0, 0, box, 0};
    region r;
    whole(d, &r);
    walk(d, &r, box_row, &a);
}

/* ---- files ------------------------------------------------------------------ */

hl_status ising_dist_write_npy(ising_dist *d, const char *path)
{
    if (!d)
        return HL_ERR_NULL;
    return hl_darray_write_npy(d->a, path);
}

typedef struct check_arg {
    int bad;
} check_arg;

static void check_row(const ising_dist *d, void *arg, int64_t off, int64_t k, int parity, int64_t n)
{
    (void)k;
    (void)parity;
    check_arg *a = arg;
    for (int64_t j = 0; j < n; j++)
        a->bad |= d->spins[off + j] != 1 && d->spins[off + j] != -1;
}

hl_status ising_dist_read_npy(ising_dist *d, const char *path)
{
    if (!d)
        return HL_ERR_NULL;
    hl_status st = hl_darray_read_npy(d->a, path);
    if (st == HL_OK) {
        check_arg a = {0};
        region r;
        whole(d, &r);
        walk(d, &r, check_row, &a);
        st = hl_mpi_agree(d->comm, a.bad ? HL_ERR_FORMAT : HL_OK, NULL, 0);
    }
    if (st == HL_OK)
        st = hl_mpi_agree(d->comm, exchange(d), NULL, 0);
    return st;
}
