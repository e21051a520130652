/* hyperlayout — the SPMD runner (tensor.h): one kernel over a grid of tiles
 * on OpenMP threads, reading any number of input tensors and writing any
 * number of outputs, each cached or not.
 *
 * Everything a tile needs — its views, its caches' plans — is made when
 * the runner is, so a run only fills, calls the kernel and writes back.
 * The plans run on the worker's own thread (hl_execute_share with one
 * part): a worker is the seed's core and starts no threads.  The one-input
 * one-output runner (hl_spmd_create / hl_spmd_run) is this runner with
 * one of each. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "tensor_internal.h"
#include "core/threads.h"

typedef struct spmd_in {
    hl_tensor tile; /* the tile of the input: parent of its cache */
    hl_tensor win;  /* the tile plus the halo, clipped to the array */
    hl_tile_cache *cache;
} spmd_in;

typedef struct spmd_out {
    hl_tensor tile; /* the tile of the output */
    hl_tile_cache *cache;
} spmd_out;

struct hl_spmd {
    int nin, nout;
    const hl_tensor **in, **out; /* nin, nout top-level tensors */
    int threads;
    int64_t ntiles;
    spmd_in *tin;   /* ntiles x nin, tile-major */
    spmd_out *tout; /* ntiles x nout */
    /* per cached tensor (inputs, then outputs): the largest scratch a tile
     * needs, and one scratch per worker, made (and first touched by its
     * worker) once; NULL for a tensor that is not cached */
    int64_t *span;
    void **scratch; /* threads x (nin + nout) */
    bool cached;    /* any tensor cached */
};

void hl_spmd_destroy(hl_spmd *r)
{
    if (!r)
        return;
    for (int64_t t = 0; r->tin && t < r->ntiles * r->nin; t++)
        hl_tile_cache_destroy(r->tin[t].cache);
    for (int64_t t = 0; r->tout && t < r->ntiles * r->nout; t++)
        hl_tile_cache_destroy(r->tout[t].cache);
    free(r->tin);
    free(r->tout);
    for (int64_t s = 0; r->scratch && s < (int64_t)r->threads * (r->nin + r->nout); s++)
        free(r->scratch[s]);
    free(r->scratch);
    free(r->span);
    free(r->in);
    free(r->out);
    free(r);
}

/* The views and caches of tile `t` (grid index `index`). */
static hl_status make_tile(hl_spmd *r, int64_t t, const int64_t *grid, const int64_t *index,
                           const hl_spmd_io *in, const hl_spmd_io *out, const hl_spmd_options *opt)
{
    const hl_tensor *ref = r->nout ? r->out[0] : r->in[0];
    const int rank = ref->rank;
    int64_t first[HL_MAX_RANK], extent[HL_MAX_RANK], lo[HL_MAX_RANK], wext[HL_MAX_RANK];
    hl_status st = hl_tensor_tile_box(ref, grid, index, first, extent);
    if (st != HL_OK)
        return st;
    for (int j = 0; j < r->nout; j++) {
        spmd_out *o = &r->tout[t * r->nout + j];
        if ((st = hl_tensor_sub(&o->tile, r->out[j], first, extent)) != HL_OK)
            return st;
        if (out[j].cached || (opt->cache & HL_SPMD_CACHE_OUT)) {
            if ((st = hl_tile_cache_create(&o->cache, &o->tile, NULL)) != HL_OK)
                return st;
            const int64_t s = hl_tile_cache_span(o->cache);
            int64_t *span = &r->span[r->nin + j];
            *span = s > *span ? s : *span;
        }
    }
    for (int j = 0; j < r->nin; j++) {
        spmd_in *v = &r->tin[t * r->nin + j];
        const hl_tensor *src = r->in[j];
        const int64_t *halo = in[j].halo ? in[j].halo : opt->halo;
        if ((st = hl_tensor_sub(&v->tile, src, first, extent)) != HL_OK)
            return st;
        for (int i = 0; i < rank; i++) {
            const int64_t h = halo ? halo[i] : 0;
            const int64_t below = h < first[i] ? h : first[i];
            const int64_t room = src->extent[i] - first[i] - extent[i];
            lo[i] = -below;
            wext[i] = below + extent[i] + (h < room ? h : room);
        }
        if ((st = hl_tensor_view(&v->win, src, first, lo, wext)) != HL_OK)
            return st;
        if (in[j].cached || (opt->cache & HL_SPMD_CACHE_IN)) {
            const hl_cache_options co = {halo, opt->policy, opt->constant, NULL};
            if ((st = hl_tile_cache_create(&v->cache, &v->tile, &co)) != HL_OK)
                return st;
            const int64_t s = hl_tile_cache_span(v->cache);
            r->span[j] = s > r->span[j] ? s : r->span[j];
        }
    }
    return HL_OK;
}

static hl_status alloc_scratch(hl_spmd *r)
{
    const int nt = r->nin + r->nout;
    if (!(r->scratch = calloc((size_t)r->threads * (size_t)nt, sizeof *r->scratch)))
        return HL_ERR_NOMEM;
    int failed = 0;
#pragma omp parallel num_threads(r->threads) reduction(| : failed)
    {
        /* each worker allocates and touches its own scratch, so that its
         * pages sit near the core that uses them */
        for (int w = omp_get_thread_num(); w < r->threads; w += omp_get_num_threads())
            for (int j = 0; j < nt; j++) {
                if (!r->span[j])
                    continue;
                const int64_t es = (j < r->nin ? r->in[j] : r->out[j - r->nin])->elem_size;
                void *p = malloc((size_t)(r->span[j] * es));
                if (p)
                    memset(p, 0, (size_t)(r->span[j] * es));
                failed |= !p;
                r->scratch[(size_t)w * (size_t)nt + (size_t)j] = p;
            }
    }
    return failed ? HL_ERR_NOMEM : HL_OK;
}

static bool io_ok(const hl_tensor *t, const hl_tensor *ref)
{
    if (t->rank != ref->rank)
        return false;
    for (int i = 0; i < t->rank; i++)
        if (t->extent[i] != ref->extent[i] || t->lo[i] != 0)
            return false;
    return true;
}

hl_status hl_spmd_create_multi(hl_spmd **rp, const hl_spmd_io *in, int nin, const hl_spmd_io *out,
                               int nout, const hl_spmd_options *opt)
{
    if (!rp)
        return HL_ERR_NULL;
    *rp = NULL;
    if (!opt || (nin && !in) || (nout && !out))
        return HL_ERR_NULL;
    if (nin < 0 || nout < 0 || nin + nout < 1 || nin > HL_SPMD_MAX_TENSORS ||
        nout > HL_SPMD_MAX_TENSORS)
        return HL_ERR_ARG;
    for (int j = 0; j < nin; j++)
        if (!in[j].tensor)
            return HL_ERR_NULL;
    for (int j = 0; j < nout; j++)
        if (!out[j].tensor)
            return HL_ERR_NULL;
    const hl_tensor *ref = nout ? out[0].tensor : in[0].tensor;
    for (int j = 0; j < nin + nout; j++) {
        const hl_tensor *t = j < nin ? in[j].tensor : out[j - nin].tensor;
        if (!io_ok(t, ref))
            return HL_ERR_MISMATCH;
        if (t->parent)
            return HL_ERR_ARG; /* top-level tensors: tiles are cut from them */
        const int64_t *h = j < nin && in[j].halo ? in[j].halo : NULL;
        for (int i = 0; h && i < t->rank; i++)
            if (h[i] < 0)
                return HL_ERR_ARG;
    }
    if (opt->threads < 0 || (opt->cache & ~3u) || (int)opt->policy < 0 ||
        opt->policy >= HL_HALO_COUNT)
        return HL_ERR_ARG;
    const int rank = ref->rank;
    int64_t grid[HL_MAX_RANK];
    /* OpenMP's default or the count asked for, if the process can start
     * that many (threads.h): the scratch and the default grid follow it */
    const int threads = hl_threads_usable(opt->threads);
    int64_t ntiles = 1;
    for (int i = 0; i < rank; i++) {
        if (opt->grid)
            grid[i] = opt->grid[i];
        else if (i == rank - 1)
            grid[i] = threads < ref->extent[i] ? threads : ref->extent[i];
        else
            grid[i] = 1;
        if (grid[i] < 1 || grid[i] > ref->extent[i])
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
    r->nin = nin;
    r->nout = nout;
    r->threads = threads;
    r->ntiles = ntiles;
    hl_status st = HL_OK;
    r->in = calloc((size_t)nin + 1, sizeof *r->in);
    r->out = calloc((size_t)nout + 1, sizeof *r->out);
    r->span = calloc((size_t)(nin + nout), sizeof *r->span);
    r->tin = calloc((size_t)ntiles * (size_t)nin + 1, sizeof *r->tin);
    r->tout = calloc((size_t)ntiles * (size_t)nout + 1, sizeof *r->tout);
    if (!r->in || !r->out || !r->span || !r->tin || !r->tout)
        st = HL_ERR_NOMEM;
    for (int j = 0; st == HL_OK && j < nin; j++) {
        r->in[j] = in[j].tensor;
        r->cached |= in[j].cached || (opt->cache & HL_SPMD_CACHE_IN);
    }
    for (int j = 0; st == HL_OK && j < nout; j++) {
        r->out[j] = out[j].tensor;
        r->cached |= out[j].cached || (opt->cache & HL_SPMD_CACHE_OUT);
    }
    int64_t index[HL_MAX_RANK] = {0};
    for (int64_t t = 0; st == HL_OK && t < ntiles; t++) {
        st = make_tile(r, t, grid, index, in, out, opt);
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
    const hl_spmd_io i = {in, false, NULL}, o = {out, false, NULL};
    return hl_spmd_create_multi(rp, &i, 1, &o, 1, opt);
}

/* The views a worker hands its kernel: pointers to the tiles' own views,
 * or to the worker's cached views over its scratch. */
typedef struct spmd_worker {
    const hl_tensor **pin, **pout; /* nin, nout */
    hl_tensor *view;               /* nin + nout cached views (~10 KB each) */
} spmd_worker;

/* One tile on worker w: fill, kernel, write back. */
static hl_status run_tile(const hl_spmd *r, int64_t t, int w, spmd_worker *k,
                          hl_spmd_kernel_multi kernel, void *arg)
{
    hl_status st;
    const int nt = r->nin + r->nout;
    void *const *scratch = r->scratch + (size_t)w * (size_t)nt;
    for (int j = 0; j < r->nin; j++) {
        const spmd_in *v = &r->tin[t * r->nin + j];
        k->pin[j] = &v->win;
        if (v->cache) {
            if ((st = hl_tile_cache_view(v->cache, scratch[j], &k->view[j])) != HL_OK ||
                (st = hl_tile_cache_fill(v->cache, scratch[j])) != HL_OK)
                return st;
            k->pin[j] = &k->view[j];
        }
    }
    for (int j = 0; j < r->nout; j++) {
        const spmd_out *o = &r->tout[t * r->nout + j];
        k->pout[j] = &o->tile;
        if (o->cache) {
            hl_tensor *v = &k->view[r->nin + j];
            if ((st = hl_tile_cache_view(o->cache, scratch[r->nin + j], v)) != HL_OK)
                return st;
            k->pout[j] = v;
        }
    }
    if ((st = kernel(k->pin, r->nin, k->pout, r->nout, arg)) != HL_OK)
        return st;
    for (int j = 0; j < r->nout; j++) {
        const spmd_out *o = &r->tout[t * r->nout + j];
        if (o->cache && (st = hl_tile_cache_writeback(o->cache, scratch[r->nin + j])) != HL_OK)
            return st;
    }
    return HL_OK;
}

hl_status hl_spmd_run_multi(const hl_spmd *r, hl_spmd_kernel_multi kernel, void *arg)
{
    if (!r || !kernel)
        return HL_ERR_NULL;
    hl_status first = HL_OK;
#pragma omp parallel num_threads(r->threads)
    {
        const int w = omp_get_thread_num(), nw = omp_get_num_threads();
        hl_status st = HL_OK;
        spmd_worker k;
        k.pin = malloc(sizeof *k.pin * (size_t)(r->nin + r->nout));
        k.pout = k.pin ? k.pin + r->nin : NULL;
        /* the cached views are ~10 KB: off the worker's stack */
        k.view = r->cached ? malloc(sizeof *k.view * (size_t)(r->nin + r->nout)) : NULL;
        if (!k.pin || (r->cached && !k.view))
            st = HL_ERR_NOMEM;
        /* a contiguous run of tiles per worker (tiles count dimension 0
         * fastest): a worker's tiles are neighbours, so the halo rows one
         * tile reads were mostly just read by the same worker's previous
         * tile, and slabs along the slowest dimension stay with one core */
        const int64_t t0 = r->ntiles * w / nw, t1 = r->ntiles * (w + 1) / nw;
        for (int64_t t = t0; st == HL_OK && t < t1; t++)
            st = run_tile(r, t, w, &k, kernel, arg);
        free(k.pin);
        free(k.view);
        if (st != HL_OK) {
#pragma omp critical(hl_spmd_status)
            if (first == HL_OK)
                first = st;
        }
    }
    return first;
}

/* hl_spmd_run's kernel as a kernel of one input and one output. */
typedef struct spmd_single {
    hl_spmd_kernel kernel;
    void *arg;
} spmd_single;

static hl_status run_single(const hl_tensor *const *in, int nin, const hl_tensor *const *out,
                            int nout, void *arg)
{
    (void)nin;
    (void)nout;
    const spmd_single *s = arg;
    return s->kernel(in[0], out[0], s->arg);
}

hl_status hl_spmd_run(const hl_spmd *r, hl_spmd_kernel kernel, void *arg)
{
    if (!r || !kernel)
        return HL_ERR_NULL;
    if (r->nin != 1 || r->nout != 1)
        return HL_ERR_MISMATCH;
    spmd_single s = {kernel, arg};
    return hl_spmd_run_multi(r, run_single, &s);
}

int64_t hl_spmd_tiles(const hl_spmd *r)
{
    return r ? r->ntiles : 0;
}

int hl_spmd_threads(const hl_spmd *r)
{
    return r ? r->threads : 0;
}
