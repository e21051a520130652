
/* hyperlayout — in-place passes that stream a long dimension
 * (inplace_internal.h).
 *
 * Where a pass's rows are long and its slabs short (at most a line), cycles
 * walk memory a slab at a time (0.002 of the copy's speed for a crinkle of a
 * 1-D array).
 * Such a pass runs its moves (ir.h) instead, each as one to three passes
 * that stream the rows, with buffers of a block, a chunk or a short rotation
 * per worker:
 *   - a reflection: blocks swapped, reversed, from both ends of its two runs;
 *   - a rotation by a few slabs: through a buffer and one memmove, a longer
 *     one as two reflections;
 *   - a crinkle by a small N, the transpose of the row as a Q x N matrix of
 *     slabs (L = N Q + R): chunks of b rows transposed in cache ([b][N] ->
 *     [N][b]), then the chunks' pieces of b slabs permuted whole along
 *     cycles ([m][N] -> [N][m]), then (where b does not divide Q, or N does
 *     not divide L) the rows left over gathered through a buffer and each
 *     residue's run moved once to make room for its last slabs.  An
 *     uncrinkle is the same backwards; a crinkle by N with N | L and a small
 *     Q is the uncrinkle by Q; with N and Q both large, a transpose of
 *     intranspose.c.  A crinkle by a large N that does not divide L is left
 *     to the cycles (or, without sigma, to the walk of cells). */

#include "inplace_internal.h"

#include <inttypes.h>
#include <omp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void hl_inplace_free_steps(moved_dim *m)
{
    for (int k = 0; k < m->nsteps; k++) {
        stream_step *st = &m->steps[k];
        if (st->slabs) {
            free(st->slabs->order);
            free(st->slabs->start);
            free(st->slabs);
        }
        free(st->sigma);
        hl_intranspose_destroy(st->tr);
    }
    free(m->steps);
    m->steps = NULL;
    m->nsteps = 0;
}

/* dst[j] = src[k - 1 - j] for k elements of es bytes (no overlap) */
#define REVERSED(T)                                                                                \
    do {                                                                                           \
        T *d = (T *)(void *)dst;                                                                   \
        const T *s = (const T *)(const void *)src;                                                 \
        for (int64_t j = 0; j < k; j++)                                                            \
            d[j] = s[k - 1 - j];                                                                   \
    } while (0)

/* Whether slabs of es bytes at p and q can be moved as integers of es bytes
 * (a slab of several elements is aligned to an element only). */
static bool typed(const void *p, const void *q, int64_t es)
{
    return es <= 8 && ((uintptr_t)p | (uintptr_t)q) % (uintptr_t)es == 0;
}

static void copy_reversed(char *restrict dst, const char *restrict src, int64_t k, int64_t es)
{
    switch (typed(dst, src, es) ? es : 0) {
    case 1: REVERSED(uint8_t); break;
    case 2: REVERSED(uint16_t); break;
    case 4: REVERSED(uint32_t); break;
    case 8: REVERSED(uint64_t); break;
    default:
        for (int64_t j = 0; j < k; j++)
            memcpy(dst + j * es, src + (k - 1 - j) * es, (size_t)es);
    }
}

/* A chunk of b rows of n slabs becomes n rows of b (inverse: back), from
 * the copy of it in buf. */
#define LOCAL(T, NN)                                                                               \
    do {                                                                                           \
        T *restrict d = (T *)(void *)chunk;                                                        \
        const T *restrict s = (const T *)(const void *)buf;                                        \
        if (inverse)                                                                               \
            for (int64_t q = 0; q < b; q++)                                                        \
                for (int64_t r = 0; r < (NN); r++)                                                 \
                    d[q * (NN) + r] = s[r * b + q];                                                \
        else                                                                                       \
            for (int64_t r = 0; r < (NN); r++)                                                     \
                for (int64_t q = 0; q < b; q++)                                                    \
                    d[r * b + q] = s[q * (NN) + r];                                                \
    } while (0)

#define LOCAL_N(T)                                                                                 \
    do {                                                                                           \
        switch (n) {                                                                               \
        case 2: LOCAL(T, 2); break;                                                                \
        case 3: LOCAL(T, 3); break;                                                                \
        case 4: LOCAL(T, 4); break;                                                                \
        default: LOCAL(T, n);                                                                      \
        }                                                                                          \
    } while (0)

static void local_transpose(char *chunk, char *buf, int64_t b, int64_t n, int64_t es, bool inverse)
{
    memcpy(buf, chunk, (size_t)(b * n * es));
    switch (typed(chunk, buf, es) ? es : 0) {
    case 1: LOCAL_N(uint8_t); break;
    case 2: LOCAL_N(uint16_t); break;
    case 4: LOCAL_N(uint32_t); break;
    case 8: LOCAL_N(uint64_t); break;
    default:
        for (int64_t q = 0; q < b; q++)
            for (int64_t r = 0; r < n; r++) {
                const int64_t i = q * n + r, o = r * b + q;
                memcpy(chunk + (inverse ? i : o) * es, buf + (inverse ? o : i) * es, (size_t)es);
            }
    }
}

/* The rows left over by the chunks (Q - m b of them, and L mod N slabs):
 * gathered by residue into buf, and each residue's run moved to its place
 * with its share of them after it (inverse: back). */
static void tail_row(const stream_step *st, int64_t L, char *base, int64_t es, char *buf)
{
    const int64_t n = st->n, q = st->q, qm = st->m * st->b, rem = q - qm, R = L - q * n;
    const int64_t t = rem * n + R;
    char *tail = base + qm * n * es;
    if (!st->inverse) {
        for (int64_t x = 0; x < t; x++)
            memcpy(buf + hl_crinkle_pos(t, n, x) * es, tail + x * es, (size_t)es);
        for (int64_t r = n - 1; r >= 0; r--) {
            const int64_t at = r * q + (r < R ? r : R), c = rem + (r < R);
            if (qm > 0 && at != r * qm)
                memmove(base + at * es, base + r * qm * es, (size_t)(qm * es));
            memcpy(base + (at + qm) * es, buf + (r * rem + (r < R ? r : R)) * es, (size_t)(c * es));
        }
    } else {
        for (int64_t r = 0; r < n; r++) {
            const int64_t at = r * q + (r < R ? r : R), c = rem + (r < R);
            memcpy(buf + (r * rem + (r < R ? r : R)) * es, base + (at + qm) * es, (size_t)(c * es));
            if (qm > 0 && at != r * qm)
                memmove(base + r * qm * es, base + at * es, (size_t)(qm * es));
        }
        for (int64_t x = 0; x < t; x++)
            memcpy(tail + x * es, buf + hl_crinkle_pos(t, n, x) * es, (size_t)es);
    }
}

/* A rotation of a row through buf (the shorter side of it): the slab at u
 * goes to (u + c) mod L. */
static void rotate_row(int64_t c, int64_t L, char *base, int64_t es, char *buf)
{
    if (c <= L - c) {
        memcpy(buf, base + (L - c) * es, (size_t)(c * es));
        memmove(base + c * es, base, (size_t)((L - c) * es));
        memcpy(base, buf, (size_t)(c * es));
    } else {
        const int64_t s = L - c;
        memcpy(buf, base, (size_t)(s * es));
        memmove(base, base + s * es, (size_t)((L - s) * es));
        memcpy(base + (L - s) * es, buf, (size_t)(s * es));
    }
}

/* Items of a reflection: per group, the blocks of pairs of its two runs
 * [0, c] and [c + 1, L). */
static int64_t reverse_blocks(int64_t pairs, int64_t k) { return (pairs + k - 1) / k; }

static void reverse_item(const moved_dim *m, const stream_step *st, int64_t t, char *a, int64_t es,
                         char *buf)
{
    const int64_t L = m->len, B = m->slab * es, c = st->c;
    const int64_t k = REVERSE_BLOCK / B > 1 ? REVERSE_BLOCK / B : 1;
    const int64_t na = reverse_blocks((c + 1) / 2, k), nb = reverse_blocks((L - c - 1) / 2, k);
    const int64_t g = t / (na + nb), j = t % (na + nb);
    const int64_t s0 = j < na ? 0 : c + 1, n = j < na ? c + 1 : L - c - 1;
    const int64_t i0 = (j < na ? j : j - na) * k, kk = n / 2 - i0 < k ? n / 2 - i0 : k;
    char *front = a + (g * L + s0 + i0) * B, *back = a + (g * L + s0 + n - i0 - kk) * B;
    memcpy(buf, front, (size_t)(kk * B));
    copy_reversed(front, back, kk, B);
    copy_reversed(back, buf, kk, B);
}

static int64_t step_items(const moved_dim *m, const stream_step *st, int64_t es)
{
    switch (st->kind) {
    case ST_REVERSE: {
        const int64_t B = m->slab * es, k = REVERSE_BLOCK / B > 1 ? REVERSE_BLOCK / B : 1;
        return m->groups * (reverse_blocks((st->c + 1) / 2, k) +
                            reverse_blocks((m->len - st->c - 1) / 2, k));
    }
    case ST_LOCAL: return m->groups * st->m;
    default: return m->groups; /* ROTATE, TAIL: a row each */
    }
}

static void step_item(const moved_dim *m, const stream_step *st, int64_t t, char *a, int64_t es,
                      char *buf)
{
    const int64_t B = m->slab * es, row = m->len * B;
    switch (st->kind) {
    case ST_REVERSE: reverse_item(m, st, t, a, es, buf); break;
    case ST_ROTATE: rotate_row(st->c, m->len, a + t * row, B, buf); break;
    case ST_LOCAL: {
        const int64_t g = t / st->m, j = t % st->m;
        local_transpose(a + g * row + j * st->b * st->n * B, buf, st->b, st->n, B, st->inverse);
        break;
    }
    case ST_TAIL: tail_row(st, m->len, a + t * row, B, buf); break;
    default: break;
    }
}

void hl_inplace_run_stream(const moved_dim *m, char *a, int64_t es, const hl_exec_ctx *ctx, char *buf,
                       int64_t stride)
{
    for (int k = 0; k < m->nsteps; k++) {
        const stream_step *st = &m->steps[k];
        if (st->kind == ST_TRANSPOSE) {
            hl_intranspose_run(st->tr, a, ctx, buf, stride);
            continue;
        }
        if (st->kind == ST_SLABS) {
            if (st->slabs->groups == m->groups) {
                hl_inplace_run_items(st->slabs, a, es, ctx, buf, stride);
            } else { /* rows with a tail: one at a time */
                for (int64_t g = 0; g < m->groups; g++)
                    hl_inplace_run_items(st->slabs, a + g * m->len * m->slab * es, es, ctx, buf, stride);
            }
            continue;
        }
        const int64_t items = step_items(m, st, es);
        if (ctx->team == 0) {
            const int64_t lo = items * ctx->share / ctx->shares, hi = items * (ctx->share + 1) / ctx->shares;
            for (int64_t t = lo; t < hi; t++)
                step_item(m, st, t, a, es, buf);
            continue;
        }
        /* items of equal cost, each worker a contiguous share (interleaved
         * blocks halved a reflection's speed on two threads) */
        const int use = items > 1 ? ctx->team : 1;
#pragma omp parallel num_threads(use)
        {
            const int64_t nt = omp_get_num_threads(), me = omp_get_thread_num();
            for (int64_t t = items * me / nt; t < items * (me + 1) / nt; t++)
                step_item(m, st, t, a, es, buf + me * stride);
        }
    }
}

static hl_status add_step(moved_dim *m, stream_step st)
{
    stream_step *s = realloc(m->steps, sizeof *s * (size_t)(m->nsteps + 1));
    if (!s)
        return HL_ERR_NOMEM;
    m->steps = s;
    m->steps[m->nsteps++] = st;
    return HL_OK;
}

/* Rows of a chunk for slabs of B bytes: pieces of at least CHUNK_SLAB
 * bytes, a divisor of Q where one is near. */
static int64_t chunk_rows(int64_t q, int64_t B)
{
    const int64_t b0 = (CHUNK_SLAB + B - 1) / B;
    for (int64_t b = b0; b <= 2 * b0 && b <= q; b++)
        if (q % b == 0)
            return b;
    return b0;
}

/* The steps of a crinkle by n (inverse: an uncrinkle) of every row. */
static hl_status add_crinkle(moved_dim *md, int64_t n, bool inverse, int64_t es)
{
    const int64_t L = md->len, B = md->slab * es;
    int64_t q = L / n;
    if (L % n == 0 && n * chunk_rows(q, B) * B > CHUNK_MAX && q * chunk_rows(n, B) * B <= CHUNK_MAX) {
        const int64_t t = n; /* crinkle by n = uncrinkle by q */
        n = q;
        q = t;
        inverse = !inverse;
    }
    const int64_t b = chunk_rows(q, B);
    if (n * b * B > CHUNK_MAX) {
        if (L % n != 0)
            return HL_ERR_UNSUPPORTED;
        stream_step st = {.kind = ST_TRANSPOSE};
        if (hl_intranspose_create(&st.tr, md->groups, inverse ? n : q, inverse ? q : n, B, 1) != HL_OK)
            return HL_ERR_NOMEM;
        const hl_status s = add_step(md, st);
        if (s != HL_OK)
            hl_intranspose_destroy(st.tr);
        return s;
    }
    const int64_t m = q / b;
    const bool tail = m * b * n != L;
    stream_step local = {.kind = ST_LOCAL, .inverse = inverse, .n = n, .b = b, .m = m, .q = q};
    stream_step rest = local;
    rest.kind = ST_TAIL;
    stream_step slabs = {.kind = ST_SLABS};
    if (m > 1) { /* [m][n] pieces of b slabs -> [n][m] (inverse: back) */
        const int64_t len = m * n;
        slabs.sigma = malloc(sizeof *slabs.sigma * (size_t)len);
        slabs.slabs = calloc(1, sizeof *slabs.slabs);
        if (!slabs.sigma || !slabs.slabs) {
            free(slabs.sigma);
            free(slabs.slabs);
            return HL_ERR_NOMEM;
        }
        for (int64_t j = 0; j < m; j++)
            for (int64_t r = 0; r < n; r++) {
                if (inverse)
                    slabs.sigma[j * n + r] = r * m + j;
                else
                    slabs.sigma[r * m + j] = j * n + r;
            }
        moved_dim *sd = slabs.slabs;
        *sd = (moved_dim){-1, len, b * md->slab, tail ? 1 : md->groups, 0, NULL, NULL, slabs.sigma,
                          -1, &hl_inplace_solvers[2], NULL, 0, NULL};
        const hl_status sc = hl_inplace_split_cycles(sd, slabs.sigma);
        sd->whole_pieces = true;
        if (sc != HL_OK) {
            free(sd->order);
            free(sd->start);
            free(sd);
            free(slabs.sigma);
            return HL_ERR_NOMEM;
        }
    }
    hl_status s = HL_OK;
    if (!inverse) {
        if (m > 0)
            s = add_step(md, local);
        if (s == HL_OK && slabs.slabs)
            s = add_step(md, slabs);
        if (s == HL_OK && tail)
            s = add_step(md, rest);
    } else {
        if (tail)
            s = add_step(md, rest);
        if (s == HL_OK && slabs.slabs)
            s = add_step(md, slabs);
        if (s == HL_OK && m > 0)
            s = add_step(md, local);
    }
    if (s != HL_OK && slabs.slabs && (md->nsteps == 0 || md->steps[md->nsteps - 1].slabs != slabs.slabs)) {
        free(slabs.slabs->order);
        free(slabs.slabs->start);
        free(slabs.slabs);
        free(slabs.sigma);
    }
    return s;
}

/* The streamed steps of a pass's moves; HL_ERR_UNSUPPORTED (no steps) for a
 * move they cannot do. */
hl_status hl_inplace_stream_create(moved_dim *md, const hl_ir_pass *p, int64_t es)
{
    const int64_t L = md->len, B = md->slab * es;
    hl_status s = HL_OK;
    for (int k = 0; k < p->nmoves && s == HL_OK; k++) {
        const hl_ir_move mv = p->move[k];
        if (mv.op != HL_MOVE_DIHEDRAL) {
            s = add_crinkle(md, mv.a, mv.op == HL_MOVE_UNCRINKLE, es);
        } else if (mv.e < 0) {
            s = add_step(md, (stream_step){.kind = ST_REVERSE, .c = mv.a});
        } else if (mv.a * B <= ROTATE_MAX || (L - mv.a) * B <= ROTATE_MAX) {
            s = add_step(md, (stream_step){.kind = ST_ROTATE, .c = mv.a});
        } else { /* u -> L - 1 - u -> a - 1 - (L - 1 - u) = u + a */
            s = add_step(md, (stream_step){.kind = ST_REVERSE, .c = L - 1});
            if (s == HL_OK)
                s = add_step(md, (stream_step){.kind = ST_REVERSE, .c = mv.a - 1});
        }
    }
    if (s != HL_OK)
        hl_inplace_free_steps(md);
    return s;
}

/* Bytes of buffer one worker needs for a streamed pass. */
int64_t hl_inplace_stream_buffer(const moved_dim *m, int64_t es, int workers)
{
    const int64_t B = m->slab * es;
    int64_t need = REVERSE_BLOCK > B ? REVERSE_BLOCK : B;
    for (int k = 0; k < m->nsteps; k++) {
        const stream_step *st = &m->steps[k];
        int64_t b = 0;
        if (st->kind == ST_ROTATE)
            b = (st->c < m->len - st->c ? st->c : m->len - st->c) * B;
        else if (st->kind == ST_LOCAL || st->kind == ST_TAIL)
            b = st->n * (st->b + 1) * B;
        else if (st->kind == ST_SLABS)
            b = hl_inplace_piece_of(st->slabs, es, workers) * es;
        else if (st->kind == ST_TRANSPOSE)
            b = hl_intranspose_buffer(st->tr);
        need = b > need ? b : need;
    }
    return need;
}

/* The passes over the array a streamed pass makes. */
int hl_inplace_stream_phases(const moved_dim *m)
{
    int n = 0;
    for (int k = 0; k < m->nsteps; k++)
        n += m->steps[k].tr ? hl_intranspose_phases(m->steps[k].tr) : 1;
    return n;
}

const char *const hl_inplace_step_names[] = {"reflection", "rotation", "chunks transposed",
                                         "pieces along cycles", "rows left over", "transpose"};
