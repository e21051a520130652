/* hyperlayout — the SPMD runner (tensor.h): one kernel over a grid of tiles
 * on OpenMP workers, cached or not.
 *
 * Everything a tile needs — its views, its caches' plans — is made when
 * the runner is, so a run only copies a view, fills, calls the kernel and
 * writes back.  The plans run on the worker's own thread (hl_execute_part
 * with one part): a worker is the seed's core and starts no threads. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "tensor_internal.h"

typedef struct spmd_tile {
    hl_tensor in_tile; /* the tile of the input: parent of its cache */
    hl_tensor in_win;  /* the tile plus the halo, clipped to the array */
    hl_tensor out;     /* the tile of the output */
    hl_tile_cache *cin, *cout;
} spmd_tile;

struct hl_spmd {
    const hl_tensor *in, *out;
    int workers;
    unsigned cache;
    int64_t ntiles;
    spmd_tile *tile;
    /* one scratch per worker for each cached side, as big as the largest
     * tile needs: made (and first touched by its worker) once */
    int64_t span_in, span_out;
    void **scratch_in, **scratch_out;
};

void hl_spmd_destroy(hl_spmd *r)
{
    if (!r)
        return;
    for (int64_t t = 0; r->tile && t < r->ntiles; t++) {
        hl_tile_cache_destroy(r->tile[t].cin);
        hl_tile_cache_destroy(r->tile[t].cout);
    }
    free(r->tile);
    for (int w = 0; w < r->workers; w++) {
        if (r->scratch_in)
            free(r->scratch_in[w]);
        if (r->scratch_out)
            free(r->scratch_out[w]);
    }
    free(r->scratch_in);
    free(r->scratch_out);
    free(r);
}

static hl_status make_tile(hl_spmd *r, spmd_tile *tl, const int64_t *grid, const int64_t *index,
                           const hl_spmd_options *opt)
{
    const hl_tensor *in = r->in;
    const int rank = in->rank;
    int64_t first[HL_MAX_RANK], extent[HL_MAX_RANK], lo[HL_MAX_RANK], wext[HL_MAX_RANK];
    hl_status st = hl_tensor_tile_box(r->out, grid, index, first, extent);
    if (st != HL_OK || (st = hl_tensor_sub(&tl->out, r->out, first, extent)) != HL_OK ||
        (st = hl_tensor_sub(&tl->in_tile, in, first, extent)) != HL_OK)
        return st;
    for (int i = 0; i < rank; i++) {
        const int64_t h = opt->halo ? opt->halo[i] : 0;
        const int64_t below = h < first[i] ? h : first[i];
        const int64_t room = in->extent[i] - first[i] - extent[i];
        lo[i] = -below;
        wext[i] = below + extent[i] + (h < room ? h : room);
    }
    if ((st = hl_tensor_view(&tl->in_win, in, first, lo, wext)) != HL_OK)
        return st;
    if (r->cache & HL_SPMD_CACHE_IN) {
        const hl_cache_options co = {opt->halo, opt->policy, opt->constant, NULL};
        if ((st = hl_tile_cache_create(&tl->cin, &tl->in_tile, &co)) != HL_OK)
            return st;
        const int64_t s = hl_tile_cache_span(tl->cin);
        r->span_in = s > r->span_in ? s : r->span_in;
    }
    if (r->cache & HL_SPMD_CACHE_OUT) {
        if ((st = hl_tile_cache_create(&tl->cout, &tl->out, NULL)) != HL_OK)
            return st;
        const int64_t s = hl_tile_cache_span(tl->cout);
        r->span_out = s > r->span_out ? s : r->span_out;
    }
    return HL_OK;
}

static hl_status alloc_scratch(hl_spmd *r)
{
    const int64_t elem = r->in->elem_size;
    if ((r->cache & HL_SPMD_CACHE_IN) &&
        !(r->scratch_in = calloc((size_t)r->workers, sizeof *r->scratch_in)))
        return HL_ERR_NOMEM;
    if ((r->cache & HL_SPMD_CACHE_OUT) &&
        !(r->scratch_out = calloc((size_t)r->workers, sizeof *r->scratch_out)))
        return HL_ERR_NOMEM;
    int failed = 0;
#pragma omp parallel num_threads(r->workers) reduction(| : failed)
    {
        /* each worker allocates and touches its own scratch, so that its
         * pages sit near the core that uses them */
        for (int w = omp_get_thread_num(); w < r->workers; w += omp_get_num_threads()) {
            if (r->scratch_in) {
                r->scratch_in[w] = malloc((size_t)(r->span_in * elem));
                if (r->scratch_in[w])
                    memset(r->scratch_in[w], 0, (size_t)(r->span_in * elem));
                failed |= !r->scratch_in[w];
            }
            if (r->scratch_out) {
                r->scratch_out[w] = malloc((size_t)(r->span_out * elem));
                if (r->scratch_out[w])
                    memset(r->scratch_out[w], 0, (size_t)(r->span_out * elem));
                failed |= !r->scratch_out[w];
            }
        }
    }
    return failed ? HL_ERR_NOMEM : HL_OK;
}

hl_status hl_spmd_create(hl_spmd **rp, const hl_tensor *in, const hl_tensor *out,
                         const hl_spmd_options *opt)
{
    if (!rp)
        return HL_ERR_NULL;
    *rp = NULL;
    if (!in || !out || !opt)
        return HL_ERR_NULL;
    if (in->rank != out->rank || in->elem_size != out->elem_size)
        return HL_ERR_MISMATCH;
    for (int i = 0; i < in->rank; i++)
        if (in->extent[i] != out->extent[i] || in->lo[i] != 0 || out->lo[i] != 0)
            return HL_ERR_MISMATCH;
    if (in->parent || out->parent)
        return HL_ERR_ARG; /* top-level tensors: tiles are cut from them */
    if (opt->workers < 0 || (opt->cache & ~3u) || (int)opt->policy < 0 ||
        opt->policy >= HL_HALO_COUNT)
        return HL_ERR_ARG;
    const int rank = in->rank;
    int64_t grid[HL_MAX_RANK];
    const int workers = opt->workers ? opt->workers : omp_get_max_threads();
    int64_t ntiles = 1;
    for (int i = 0; i < rank; i++) {
        if (opt->grid)
            grid[i] = opt->grid[i];
        else if (i == rank - 1)
            grid[i] = workers < in->extent[i] ? workers : in->extent[i];
        else
            grid[i] = 1;
        if (grid[i] < 1 || grid[i] > in->extent[i])
            return HL_ERR_ARG;
        if (opt->halo && opt->halo[i] < 0)
            return HL_ERR_ARG;
        if (ntiles > (INT64_C(1) << 24) / grid[i])
            return HL_ERR_ARG; /* views are ~10 KB each */
        ntiles *= grid[i];
    }
    hl_spmd *r = calloc(1, sizeof *r);
    if (!r)
        return HL_ERR_NOMEM;
    r->in = in;
    r->out = out;
    r->workers = workers;
    r->cache = opt->cache;
    r->ntiles = ntiles;
    hl_status st = HL_OK;
    if (!(r->tile = calloc((size_t)ntiles, sizeof *r->tile)))
        st = HL_ERR_NOMEM;
    int64_t index[HL_MAX_RANK] = {0};
    for (int64_t t = 0; st == HL_OK && t < ntiles; t++) {
        st = make_tile(r, &r->tile[t], grid, index, opt);
        for (int i = 0; i < rank && ++index[i] == grid[i]; i++)
            index[i] = 0;
    }
    if (st == HL_OK)
        st = alloc_scratch(r);
    if (st != HL_OK) {
        hl_spmd_destroy(r);
        return st;
    }
    *rp = r;
    return HL_OK;
}

/* One tile on the calling worker: fill, kernel, write back. */
static hl_status run_tile(const hl_spmd *r, const spmd_tile *tl, int w, hl_spmd_kernel kernel,
                          void *arg, hl_tensor *vin, hl_tensor *vout)
{
    hl_status st;
    const hl_tensor *in = &tl->in_win, *out = &tl->out;
    if (tl->cin) {
        if ((st = hl_tile_cache_view(tl->cin, r->scratch_in[w], vin)) != HL_OK ||
            (st = hl_tile_cache_fill(tl->cin, r->scratch_in[w])) != HL_OK)
            return st;
        in = vin;
    }
    if (tl->cout) {
        if ((st = hl_tile_cache_view(tl->cout, r->scratch_out[w], vout)) != HL_OK)
            return st;
        out = vout;
    }
    if ((st = kernel(in, out, arg)) != HL_OK)
        return st;
    return tl->cout ? hl_tile_cache_writeback(tl->cout, r->scratch_out[w]) : HL_OK;
}

hl_status hl_spmd_run(const hl_spmd *r, hl_spmd_kernel kernel, void *arg)
{
    if (!r || !kernel)
        return HL_ERR_NULL;
    hl_status first = HL_OK;
#pragma omp parallel num_threads(r->workers)
    {
        const int w = omp_get_thread_num(), nw = omp_get_num_threads();
        hl_status st = HL_OK;
        /* the cached views are ~10 KB: off the worker's stack */
        hl_tensor *v = (r->cache) ? malloc(2 * sizeof *v) : NULL;
        if (r->cache && !v)
            st = HL_ERR_NOMEM;
        /* a contiguous run of tiles per worker (tiles count dimension 0
         * fastest): a worker's tiles are neighbours, so the halo rows one
         * tile reads were mostly just read by the same worker's previous
         * tile, and slabs along the slowest dimension stay with one core */
        const int64_t t0 = r->ntiles * w / nw, t1 = r->ntiles * (w + 1) / nw;
        for (int64_t t = t0; st == HL_OK && t < t1; t++)
            st = run_tile(r, &r->tile[t], w, kernel, arg, v, v ? v + 1 : NULL);
        free(v);
        if (st != HL_OK) {
#pragma omp critical(hl_spmd_status)
            if (first == HL_OK)
                first = st;
        }
    }
    return first;
}

int64_t hl_spmd_tiles(const hl_spmd *r)
{
    return r ? r->ntiles : 0;
}

int hl_spmd_workers(const hl_spmd *r)
{
    return r ? r->workers : 0;
}
