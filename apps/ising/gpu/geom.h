/* hyperlayout Ising on the GPU — where a thread's sites and their neighbours
 * lie in the crinkled store, for each variant.  HL_HOSTDEV static inline on
 * plain structs, so that the host tests evaluate exactly what a CUDA thread
 * does (tests/apps/test_ising_gpu_index.c checks every site of small lattices
 * against Listing 7 computed from kindex.h).
 *
 * Sites of colour c are numbered by their colour rank g = k / 2 (site.h).
 * With h = L0 / 2, site g lies in row g div h (the L0 sites sharing x1, x2,
 * ...) at x0 = 2q + r, q = g mod h, where r is the parity of c plus the
 * row's other coordinates.  Crinkled with step 2 in dimension 0, that row
 * stores its even x0 first: the site sits at row*L0 + r*h + q, its
 * dimension-0 neighbours in the other half at q and q -+ 1 (wrapping within
 * the half), and its neighbours in dimension i >= 1 at the same place of
 * the neighbouring rows.  Only the row's quantities need the k-index; a
 * thread's sites mostly share one row, so it finds them once. */
#ifndef ISING_CUDA_GEOM_H
#define ISING_CUDA_GEOM_H

#include <stdint.h>
#include <string.h>

#include "hyperlayout/kindex.h"
#include "ising.h"

/* A site's own offset and its 2d neighbours': slot 0 the site, slots
 * 1 + 2i and 2 + 2i its neighbours at -1 and +1 in dimension i. */
#define ISING_SLOTS (1 + 2 * ISING_MAX_RANK)

/* What every thread of a half-sweep reads; built on the host. */
typedef struct ising_geom {
    int rank;
    int half_bits;        /* B: log2 h */
    int64_t half;         /* h = L0 / 2 */
    int64_t L0, L1;       /* C */
    int64_t sites;        /* G = N / 2, the sites of one colour */
    hl_divider div_half;  /* A, C: g -> row */
    int64_t at[2], ot[2]; /* in a row: where its x0 parity-r run starts, and its dimension-0 neighbours' */
    hl_kindex ki;         /* A and the reference */
    hl_kcrinkle cr;       /* the reference */
    hl_kpow2 kp;          /* B */
} ising_geom;

/* The quantities of one row for colour c. */
typedef struct ising_row {
    int r;                                /* x0 parity of the row's colour-c sites */
    int64_t self, other;                  /* offsets of q = 0 of their run and of the other half */
    int64_t nb[2 * (ISING_MAX_RANK - 1)]; /* offsets of q = 0 of the run in the rows at -1, +1 in dims 1.. */
} ising_row;

/* The geometry of `variant` (A, B, C or REFERENCE, already checked against
 * the extents by ising_set_variant): each finds the row offsets its own way,
 * as the CPU kernels do. */
static inline hl_status ising_geom_init(ising_geom *g, int rank, const int64_t *extent, ising_variant variant)
{
    memset(g, 0, sizeof *g);
    hl_status st = hl_kindex_init(&g->ki, rank, extent);
    if (st == HL_OK)
        st = hl_kcrinkle_init(&g->cr, &g->ki, 0, 2);
    if (st != HL_OK)
        return st;
    g->rank = rank;
    g->L0 = extent[0];
    g->L1 = rank > 1 ? extent[1] : 1;
    g->half = extent[0] / 2;
    g->sites = g->ki.count / 2;
    g->div_half = hl_divider_make(g->half);
    if (variant == ISING_B) {
        st = hl_kpow2_init(&g->kp, rank, extent);
        if (st != HL_OK)
            return st;
        while (((int64_t)1 << g->half_bits) < g->half)
            g->half_bits++;
    }
    for (int r = 0; r < 2; r++) {
        const int64_t nb0 = r ? -1 : 1; /* x0 = r's neighbour in the other half */
        if (variant == ISING_B) {
            g->at[r] = hl_kpow2_crinkle(&g->kp, r, 0, 1);
            g->ot[r] = hl_kpow2_crinkle(&g->kp, hl_kpow2_neighbour(&g->kp, r, 0, nb0), 0, 1);
        } else if (variant == ISING_C) {
            g->at[r] = r * g->half;
            g->ot[r] = (1 - r) * g->half;
        } else {
            g->at[r] = hl_kindex_crinkle(&g->ki, &g->cr, r);
            g->ot[r] = hl_kindex_crinkle(&g->ki, &g->cr, hl_kindex_neighbour(&g->ki, r, 0, nb0));
        }
    }
    return HL_OK;
}

/* The row of colour rank g. */
HL_HOSTDEV static inline int64_t ising_row_index(const ising_geom *geo, int variant, int64_t g)
{
    return variant == ISING_B ? g >> geo->half_bits : hl_div(geo->div_half, g);
}

/* Variant A: the general k-index of the row's first site k0. */
HL_HOSTDEV static inline void ising_row_a(const ising_geom *geo, int rank, int c, int64_t row, ising_row *rw)
{
    const hl_kindex *ki = &geo->ki;
    const int64_t k0 = row * geo->L0;
    int64_t par = c;
    for (int i = 1; i < rank; i++)
        par += hl_kindex_index(ki, k0, i);
    const int r = (int)(par & 1);
    const int64_t at = geo->at[r];
    rw->r = r;
    rw->self = k0 + at;
    rw->other = k0 + geo->ot[r];
    for (int i = 1; i < rank; i++) {
        rw->nb[2 * i - 2] = hl_kindex_neighbour(ki, k0, i, -1) + at;
        rw->nb[2 * i - 1] = hl_kindex_neighbour(ki, k0, i, 1) + at;
    }
}

/* Variant B: the power-of-two bit fields (equations 13 and 16). */
HL_HOSTDEV static inline void ising_row_b(const ising_geom *geo, int rank, int c, int64_t row, ising_row *rw)
{
    const hl_kpow2 *kp = &geo->kp;
    const int64_t k0 = row << kp->bits[0];
    int64_t par = c;
    for (int i = 1; i < rank; i++)
        par += hl_kpow2_index(kp, k0, i);
    const int r = (int)(par & 1);
    const int64_t at = geo->at[r];
    rw->r = r;
    rw->self = k0 + at;
    rw->other = k0 + geo->ot[r];
    for (int i = 1; i < rank; i++) {
        rw->nb[2 * i - 2] = hl_kpow2_neighbour(kp, k0, i, -1) + at;
        rw->nb[2 * i - 1] = hl_kpow2_neighbour(kp, k0, i, 1) + at;
    }
}

/* Variant C, by hand for d = 2: row y, rows y -+ 1 with the wrap written out. */
HL_HOSTDEV static inline void ising_row_c(const ising_geom *geo, int c, int64_t y, ising_row *rw)
{
    const int64_t L0 = geo->L0, h = geo->half;
    const int r = (int)((c + y) & 1);
    rw->r = r;
    rw->self = y * L0 + r * h;
    rw->other = y * L0 + (1 - r) * h;
    rw->nb[0] = (y == 0 ? geo->L1 - 1 : y - 1) * L0 + r * h;
    rw->nb[1] = (y + 1 == geo->L1 ? 0 : y + 1) * L0 + r * h;
}

HL_HOSTDEV static inline void ising_row_of(const ising_geom *geo, int variant, int rank, int c, int64_t row,
                                           ising_row *rw)
{
    if (variant == ISING_C)
        ising_row_c(geo, c, row, rw);
    else if (variant == ISING_B)
        ising_row_b(geo, rank, c, row, rw);
    else
        ising_row_a(geo, rank, c, row, rw);
}

/* The slots (ISING_SLOTS above) of the row's site q. */
HL_HOSTDEV static inline void ising_site_in_row(const ising_geom *geo, const ising_row *rw, int rank, int64_t q,
                                                int64_t *off)
{
    const int64_t h = geo->half;
    /* x0 = 2q + r: for r = 0 the other half's q - 1 and q, for r = 1 its q and q + 1 */
    const int64_t lo = rw->r ? q : (q == 0 ? h - 1 : q - 1);
    const int64_t hi = rw->r ? (q + 1 == h ? 0 : q + 1) : q;
    off[0] = rw->self + q;
    off[1] = rw->other + lo;
    off[2] = rw->other + hi;
    for (int j = 0; j < 2 * (rank - 1); j++)
        off[3 + j] = rw->nb[j] + q;
}

/* Listing 7 literally, for any site: its k from g and c, then the crinkled
 * positions of it and of its periodic neighbours.  The oracle of the others,
 * and the REFERENCE variant on the GPU. */
HL_HOSTDEV static inline void ising_site_reference(const ising_geom *geo, int rank, int c, int64_t g, int64_t *off)
{
    const hl_kindex *ki = &geo->ki;
    int64_t x[HL_MAX_RANK], par = 0;
    hl_kindex_fromk(ki, 2 * g, x);
    for (int i = 0; i < rank; i++)
        par += x[i];
    const int64_t k = (par & 1) == c ? 2 * g : 2 * g + 1;
    off[0] = hl_kindex_crinkle(ki, &geo->cr, k);
    for (int i = 0; i < rank; i++) {
        off[1 + 2 * i] = hl_kindex_crinkle(ki, &geo->cr, hl_kindex_neighbour(ki, k, i, -1));
        off[2 + 2 * i] = hl_kindex_crinkle(ki, &geo->cr, hl_kindex_neighbour(ki, k, i, 1));
    }
}

/* A thread's way through its sites: the row found for one serves the next
 * while it stays in that row. */
typedef struct ising_walk {
    int64_t row, q; /* row < 0: none found yet */
    ising_row rw;
} ising_walk;

/* The slots of colour-c site g, the next of the thread's sites after those
 * already walked (each 16 further along than the one before). */
HL_HOSTDEV static inline void ising_walk_site(const ising_geom *geo, int variant, int rank, int c, ising_walk *w,
                                              int64_t g, int64_t *off)
{
    if (variant == ISING_REFERENCE) {
        ising_site_reference(geo, rank, c, g, off);
        return;
    }
    w->q += 16;
    if (w->row < 0 || w->q >= geo->half) {
        w->row = ising_row_index(geo, variant, g);
        w->q = g - w->row * geo->half;
        ising_row_of(geo, variant, rank, c, w->row, &w->rw);
    }
    ising_site_in_row(geo, &w->rw, rank, w->q, off);
}

/* Threads of a half-sweep: thread n makes Philox call n (site.h), whose four
 * words serve g = (n / 16) * 64 + n mod 16 + 16 j, j = 0..3; the calls of the
 * last, partial block that serve no site are not made. */
HL_HOSTDEV static inline int64_t ising_threads(int64_t sites)
{
    const int64_t tail = sites % ISING_BLOCK;
    return sites / ISING_BLOCK * 16 + (tail < 16 ? tail : 16);
}

HL_HOSTDEV static inline int64_t ising_thread_site(int64_t n, int j)
{
    return n / 16 * ISING_BLOCK + n % 16 + 16 * j;
}

#endif
