/* hyperlayout Ising — variant M on the host: the packed bits beside the
 * byte store (packing and unpacking), and the CPU sweeps, in units of
 * consecutive colour words spread over the threads (kernels: msc_impl.h,
 * one per instruction set). */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "hyperlayout/plan.h"
#include "lattice.h"

/* Colour words per unit of work: 16384 spins. */
#define MSC_UNIT 256

hl_status ising_msc_attach(ising *is)
{
    if (is->msc)
        return HL_OK;
    ising_msc_state *m = calloc(1, sizeof *m);
    if (!m)
        return HL_ERR_NOMEM;
    hl_status st = ising_msc_geom_init(&m->geo, is->rank, is->extent);
    if (st == HL_OK) {
        /* both halves of every row, a whole number of 64-byte lines, and a
         * guard line of zeros at each end (the CPU kernels' vector loads
         * may read up to 7 words past a run: msc_impl.h) */
        const size_t bytes = ((size_t)(2 * m->geo.words) * sizeof(uint64_t) + 63) / 64 * 64 + 2 * 64;
        m->alloc = aligned_alloc(64, bytes);
        if (!m->alloc) {
            st = HL_ERR_NOMEM;
        } else {
            memset(m->alloc, 0, bytes);
            m->bits = m->alloc + 8;
        }
    }
    if (st != HL_OK) {
        free(m);
        return st;
    }
    m->bits_stale = 1;
    is->msc = m;
    return HL_OK;
}

void ising_msc_free(ising *is)
{
    if (is->msc) {
        free(is->msc->alloc);
        free(is->msc);
        is->msc = NULL;
    }
}

/* Between the bytes and the bit planes, half-row by half-row: word j of
 * (row, r) holds bytes row*L0 + r*h + 64j ..; to_bits: bytes to words, else
 * back.  One loop for both ways, so that the two layouts cannot drift apart. */
static void convert(const ising *is, int to_bits)
{
    ising_msc_state *m = is->msc;
    const ising_msc_geom *g = &m->geo;
    const int64_t halves = 2 * g->rows, h = g->half, wpr = g->wpr;
    const int nt = hl_threads_usable(is->threads);
#pragma omp parallel for schedule(static) num_threads(nt) if (is->count >= 65536)
    for (int64_t hr = 0; hr < halves; hr++) {
        int8_t *bytes = is->spins + hr * h;
        uint64_t *words = m->bits + hr * wpr;
        for (int64_t j = 0; j < wpr; j++) {
            const int64_t n = h - 64 * j < 64 ? h - 64 * j : 64;
            int8_t *byte = bytes + 64 * j;
            if (to_bits) {
                uint64_t w = 0;
                for (int64_t b = 0; b < n; b++)
                    w |= (uint64_t)(byte[b] < 0) << b;
                words[j] = w;
            } else {
                const uint64_t w = words[j];
                for (int64_t b = 0; b < n; b++)
                    byte[b] = (int8_t)(1 - 2 * (int)(w >> b & 1));
            }
        }
    }
}

void ising_msc_pack(ising *is)
{
    convert(is, 1);
    is->msc->bits_stale = 0;
}

void ising_msc_unpack(const ising *is)
{
    convert(is, 0);
    is->msc->bytes_stale = 0;
}

/* One colour's half of the current sweep. */
static void half_sweep(ising *is, const ising_msc_plan *plan, int c, int bonds, int nt, int64_t *m_out,
                       int64_t *b_out)
{
    const int64_t W = is->msc->geo.words;
    const int64_t units = (W + MSC_UNIT - 1) / MSC_UNIT;
    int64_t m = 0, b = 0;
    /* a thread per two units at most, as the byte sweeps */
    const int team = units / 2 < nt ? (units >= 2 ? (int)(units / 2) : 1) : nt;
#pragma omp parallel for num_threads(team) schedule(dynamic, 1) reduction(+ : m, b)
    for (int64_t u = 0; u < units; u++) {
        const int64_t v0 = u * MSC_UNIT, v1 = v0 + MSC_UNIT < W ? v0 + MSC_UNIT : W;
        int64_t acc[2] = {0, 0};
        is->kernels->msc(is, plan, c, v0, v1, bonds, acc);
        m += acc[0];
        b += acc[1];
    }
    *m_out += m;
    *b_out += b;
}

hl_status ising_msc_sweep(ising *is, int64_t count, int64_t *magnetisation, int64_t *bonds)
{
    ising_msc_state *ms = is->msc;
    if (ms->bits_stale)
        ising_msc_pack(is);
    ising_msc_table tab;
    ising_msc_table_init(&tab, &is->table);
    ising_msc_plan *plan = malloc(sizeof *plan);
    if (!plan)
        return HL_ERR_NOMEM;
    ising_msc_plan_init(plan, &tab);
    const int nt = hl_threads_usable(is->threads);
    for (int64_t i = 0; i < count; i++) {
        int64_t m = 0, b = 0;
        half_sweep(is, plan, 0, 0, nt, &m, &b);
        half_sweep(is, plan, 1, 1, nt, &m, &b);
        is->sweep++;
        if (magnetisation)
            magnetisation[i] = m;
        if (bonds)
            bonds[i] = b;
    }
    if (count > 0)
        ms->bytes_stale = 1;
    free(plan);
    return HL_OK;
}
