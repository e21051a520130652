/* hyperlayout — neighbourhood offsets and neighbour tables. */
#include "hyperlayout/neighbours.h"

#include "threads.h"

#include <stddef.h>

static int valid_kind(hl_neighbourhood kind)
{
    return (unsigned)kind < HL_NEIGHBOURHOOD_COUNT;
}

hl_status hl_neighbourhood_count(int rank, hl_neighbourhood kind, int64_t radius, int64_t *count)
{
    if (!count)
        return HL_ERR_NULL;
    if (rank < 1 || rank > HL_MAX_RANK)
        return HL_ERR_RANK;
    if (!valid_kind(kind) || radius < 0)
        return HL_ERR_ARG;
    int64_t total = 0;
    if (kind == HL_MOORE) {
        /* (2r+1)^d points in the box */
        if (radius > (INT64_MAX - 1) / 2)
            return HL_ERR_OVERFLOW;
        int64_t side = 2 * radius + 1, n = 1;
        for (int i = 0; i < rank; i++)
            if (__builtin_mul_overflow(n, side, &n))
                return HL_ERR_OVERFLOW;
        total = n;
    } else {
        /* points with |d|_1 <= r: sum over j nonzero coordinates of
         * C(d,j) * C(r,j) * 2^j (choose the axes, split r among them, signs) */
        __extension__ typedef unsigned __int128 u128;
        u128 cd = 1, cr = 1; /* C(rank, j), C(radius, j) */
        for (int j = 0; j <= rank && j <= radius; j++) {
            if (j > 0) {
                cd = cd * (u128)(rank - j + 1) / (u128)j;
                cr = cr * (u128)(radius - j + 1) / (u128)j;
                if (cr > (u128)INT64_MAX)
                    return HL_ERR_OVERFLOW;
            }
            u128 term = cd * cr;
            if (term > (u128)INT64_MAX || j >= 63 || (term << j) > (u128)INT64_MAX)
                return HL_ERR_OVERFLOW;
            if (__builtin_add_overflow(total, (int64_t)(term << j), &total))
                return HL_ERR_OVERFLOW;
        }
    }
    *count = total - 1; /* the centre is not a neighbour */
    return HL_OK;
}

typedef struct {
    int rank;
    hl_neighbourhood kind;
    int64_t *out, used;
    int64_t cur[HL_MAX_RANK];
} emit_state;

/* Offsets in k order: the most significant dimension varies slowest, so
 * recurse from dimension rank-1 down to 0.  `budget` is what the von
 * Neumann norm has left; Moore never spends it. */
static void emit(emit_state *e, int dim, int64_t budget, int nonzero)
{
    if (dim < 0) {
        if (!nonzero)
            return;
        for (int i = 0; i < e->rank; i++)
            e->out[e->used * e->rank + i] = e->cur[i];
        e->used++;
        return;
    }
    for (int64_t v = -budget; v <= budget; v++) {
        e->cur[dim] = v;
        int64_t left = e->kind == HL_VON_NEUMANN ? budget - (v < 0 ? -v : v) : budget;
        emit(e, dim - 1, left, nonzero || v != 0);
    }
}

hl_status hl_neighbourhood_offsets(int rank, hl_neighbourhood kind, int64_t radius,
                                   int64_t *offsets, int64_t cap)
{
    int64_t m;
    hl_status st = hl_neighbourhood_count(rank, kind, radius, &m);
    if (st != HL_OK)
        return st;
    if (!offsets && m > 0)
        return HL_ERR_NULL;
    if (m > INT64_MAX / rank || cap < m * rank)
        return HL_ERR_BUFFER;
    emit_state e = {.rank = rank, .kind = kind, .out = offsets};
    emit(&e, rank - 1, radius, 0);
    return HL_OK;
}

static hl_status check_table_args(const hl_kindex *ki, const int64_t *offsets, int64_t m,
                                  hl_boundary bc)
{
    if (!ki || (!offsets && m > 0))
        return HL_ERR_NULL;
    if (m < 0 || (unsigned)bc >= HL_BOUNDARY_COUNT)
        return HL_ERR_ARG;
    return HL_OK;
}

/* Neighbour k through the cell's coordinate x, which the caller keeps. */
static inline int64_t neighbour_from_x(const hl_kindex *ki, int64_t k, const int64_t *x,
                                       const int64_t *delta, hl_boundary bc)
{
    int64_t kn = k;
    for (int i = 0; i < ki->rank; i++) {
        if (delta[i] == 0)
            continue;
        int64_t y = hl_boundary_map(x[i], delta[i], ki->extent[i], bc);
        if (y < 0)
            return HL_NO_NEIGHBOUR;
        kn += (y - x[i]) * ki->stride[i];
    }
    return kn;
}

hl_status hl_neighbours_of(const hl_kindex *ki, int64_t k, const int64_t *offsets, int64_t m,
                           hl_boundary bc, int64_t *out)
{
    hl_status st = check_table_args(ki, offsets, m, bc);
    if (st != HL_OK)
        return st;
    if (!out && m > 0)
        return HL_ERR_NULL;
    if (!hl_kindex_valid_k(ki, k))
        return HL_ERR_RANGE;
    int64_t x[HL_MAX_RANK];
    hl_kindex_fromk(ki, k, x);
    for (int64_t j = 0; j < m; j++)
        out[j] = neighbour_from_x(ki, k, x, offsets + j * ki->rank, bc);
    return HL_OK;
}

hl_status hl_neighbour_table(const hl_kindex *ki, const int64_t *offsets, int64_t m,
                             hl_boundary bc, void *dst, int64_t stride_bytes)
{
    hl_status st = check_table_args(ki, offsets, m, bc);
    if (st != HL_OK)
        return st;
    if (!dst)
        return HL_ERR_NULL;
    if (stride_bytes % (int64_t)sizeof(int64_t) != 0 || m > INT64_MAX / 8 || stride_bytes < m * 8)
        return HL_ERR_ARG;
    const int64_t n = ki->count, chunk = 4096;
    const int64_t nchunks = (n + chunk - 1) / chunk;
    char *base = dst;
    /* OpenMP's default team, if the process can start it (threads.h) */
    const int team = nchunks > 1 ? hl_threads_usable(0) : 1;
#pragma omp parallel for schedule(static) num_threads(team)
    for (int64_t c = 0; c < nchunks; c++) {
        int64_t k = c * chunk, end = k + chunk < n ? k + chunk : n;
        int64_t x[HL_MAX_RANK];
        hl_kindex_fromk(ki, k, x);
        for (; k < end; k++) {
            int64_t *row = (int64_t *)(void *)(base + (size_t)k * (size_t)stride_bytes);
            for (int64_t j = 0; j < m; j++)
                row[j] = neighbour_from_x(ki, k, x, offsets + j * ki->rank, bc);
            for (int i = 0; i < ki->rank && ++x[i] == ki->extent[i]; i++)
                x[i] = 0;
        }
    }
    return HL_OK;
}
