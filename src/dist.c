/* hyperlayout — UPC blocked distributions: set-up, checked queries, per-thread
 * counts and pack / unpack. */
#include "hyperlayout/dist.h"

#include <stddef.h>
#include <string.h>

hl_status hl_dist_init(hl_dist *d, int rank, const int64_t *extent, const int64_t *block_extent,
                       int64_t threads)
{
    if (!d)
        return HL_ERR_NULL;
    memset(d, 0, sizeof *d); /* defined contents even on error */
    if (!extent || !block_extent)
        return HL_ERR_NULL;
    if (rank < 1 || rank > HL_MAX_RANK)
        return HL_ERR_RANK;
    for (int i = 0; i < rank; i++)
        if (extent[i] < 1 || block_extent[i] < 1)
            return HL_ERR_EXTENT;
    if (threads < 1)
        return HL_ERR_ARG;

    int64_t grid[HL_MAX_RANK];
    for (int i = 0; i < rank; i++)
        grid[i] = (extent[i] - 1) / block_extent[i] + 1; /* ceil, without overflow */

    /* N and B must fit; the block count never exceeds N. */
    hl_status st = hl_kindex_init(&d->ki, rank, extent);
    if (st == HL_OK)
        st = hl_kindex_init(&d->box, rank, block_extent);
    if (st == HL_OK)
        st = hl_kindex_init(&d->grid, rank, grid);
    if (st != HL_OK) {
        memset(d, 0, sizeof *d);
        return st;
    }
    int64_t nb = d->grid.count, bs = d->box.count;
    /* thread 0 holds the most blocks: ceil(nb / T) */
    int64_t most = (nb - 1) / threads + 1, local_max;
    if (__builtin_mul_overflow(most, bs, &local_max)) {
        memset(d, 0, sizeof *d);
        return HL_ERR_OVERFLOW;
    }
    d->rank = rank;
    d->threads = threads;
    d->count = d->ki.count;
    d->block_count = nb;
    d->block_size = bs;
    d->local_max = local_max;
    for (int i = 0; i < HL_MAX_RANK; i++)
        d->div_block[i] = hl_divider_make(i < rank ? block_extent[i] : 1);
    d->div_threads = hl_divider_make(threads);
    d->div_block_size = hl_divider_make(bs);
    return HL_OK;
}

hl_status hl_dist_init_1d(hl_dist *d, int64_t extent, int64_t block_extent, int64_t threads)
{
    return hl_dist_init(d, 1, &extent, &block_extent, threads);
}

hl_status hl_dist_query(const hl_dist *d, const int64_t *x, hl_dist_place *place)
{
    if (!d || !x || !place)
        return HL_ERR_NULL;
    if (!hl_dist_valid_x(d, x))
        return HL_ERR_RANGE;
    *place = hl_dist_place_of(d, x);
    return HL_OK;
}

hl_status hl_dist_query_k(const hl_dist *d, int64_t k, hl_dist_place *place)
{
    if (!d || !place)
        return HL_ERR_NULL;
    if (!hl_dist_valid_k(d, k))
        return HL_ERR_RANGE;
    *place = hl_dist_place_of_k(d, k);
    return HL_OK;
}

hl_status hl_dist_locate(const hl_dist *d, int64_t thread, int64_t local, int64_t *x, int64_t *k)
{
    if (!d)
        return HL_ERR_NULL;
    if (!hl_dist_valid_thread(d, thread))
        return HL_ERR_ARG;
    if (!hl_dist_valid_local(d, thread, local))
        return HL_ERR_RANGE;
    int64_t y[HL_MAX_RANK];
    bool element = hl_dist_coord_of(d, thread, local, y);
    if (x)
        memcpy(x, y, (size_t)d->rank * sizeof *x);
    if (k)
        *k = element ? hl_kindex_tok(&d->ki, y) : HL_DIST_PADDING;
    return HL_OK;
}

hl_status hl_dist_thread_elements(const hl_dist *d, int64_t thread, int64_t *count)
{
    if (!d || !count)
        return HL_ERR_NULL;
    if (!hl_dist_valid_thread(d, thread))
        return HL_ERR_ARG;
    int64_t n = 0, c[HL_MAX_RANK];
    for (int64_t block = thread; block < d->block_count;) {
        hl_kindex_fromk(&d->grid, block, c);
        int64_t m = 1;
        for (int i = 0; i < d->rank; i++) {
            int64_t b = d->box.extent[i], left = d->ki.extent[i] - c[i] * b;
            m *= b < left ? b : left;
        }
        n += m;
        if (d->threads >= d->block_count - block)
            break;
        block += d->threads;
    }
    *count = n;
    return HL_OK;
}

/* Checks shared by pack and unpack. */
static hl_status check_copy(const hl_dist *d, int64_t thread, const void *a, const void *b,
                            int64_t elem_size)
{
    if (!d || !a || !b)
        return HL_ERR_NULL;
    if (!hl_dist_valid_thread(d, thread))
        return HL_ERR_ARG;
    if (elem_size < 1)
        return HL_ERR_ELEM_SIZE;
    int64_t bytes;
    if (__builtin_mul_overflow(d->count, elem_size, &bytes) ||
        __builtin_mul_overflow(hl_dist_local_count(d, thread), elem_size, &bytes))
        return HL_ERR_BYTES_OVERFLOW;
    return HL_OK;
}

/* Walks the thread's elements one dimension-0 row at a time: a row is
 * contiguous both in k order and in local storage (both strides are 1).
 * pack: src is the array, dst the local storage; unpack: the other way. */
static void copy_rows(const hl_dist *d, int64_t thread, char *dst, const char *src,
                      size_t elem_size, bool pack)
{
    hl_dist_iter it;
    if (hl_dist_iter_init(&it, d, thread) != HL_OK)
        return; /* not reached: checked by the caller */
    while (hl_dist_iter_valid(&it)) {
        int64_t run = it.hi[0] - it.lo[0];
        size_t at_k = (size_t)it.k * elem_size, at_local = (size_t)it.local * elem_size;
        if (pack)
            memcpy(dst + at_local, src + at_k, (size_t)run * elem_size);
        else
            memcpy(dst + at_k, src + at_local, (size_t)run * elem_size);
        /* jump to the row's last element; next() then starts the next row */
        it.x[0] = it.hi[0] - 1;
        it.phase += run - 1;
        it.local += run - 1;
        it.k += run - 1;
        hl_dist_iter_next(&it);
    }
}

hl_status hl_dist_pack(const hl_dist *d, int64_t thread, const void *global, void *local,
                       int64_t elem_size)
{
    hl_status st = check_copy(d, thread, global, local, elem_size);
    if (st != HL_OK)
        return st;
    copy_rows(d, thread, local, global, (size_t)elem_size, true);
    return HL_OK;
}

hl_status hl_dist_unpack(const hl_dist *d, int64_t thread, const void *local, void *global,
                         int64_t elem_size)
{
    hl_status st = check_copy(d, thread, local, global, elem_size);
    if (st != HL_OK)
        return st;
    copy_rows(d, thread, global, local, (size_t)elem_size, false);
    return HL_OK;
}
