/* hyperlayout — running the copy kernel's planes (copy.c plans them): the
 * plane runners of the solvers' rows, the row and block loops they use, and
 * the odometer that walks each box's outer digits, a thread's share of the
 * planes at a time. */
#include "copy_internal.h"

#include <omp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#include <xmmintrin.h>
#endif

enum {
    STAGE_ALIGN = 4096,    /* a staging buffer starts a page: a run assembled at its start by
                              unaligned stores never splits a page (at 384 bytes before a
                              page's end, the chain of [256,256,256] float32, rows of 1 KiB,
                              ran 2.2x slower; where malloc put the stage depended on the
                              process) */
    TR_STAGE_BYTES = 16384, /* a transpose plane's columns staged at a time (half an L1) */
    HALVES_CACHED_BYTES = 32768, /* a row read forwards at most this long is in the cache
                                    when read a second time */
};

/* ---- rows ------------------------------------------------------------------- */

typedef struct {
    uint64_t lo, hi;
} u128_pair;

/* A row: n elements, strides ds (out) and ss (in), in elements.  The common
 * strides get their own loops so that the compiler vectorises them. */
#define ROW_LOOP(T)                                                                                \
    do {                                                                                           \
        T *o = (T *)(void *)out;                                                                   \
        const T *s = (const T *)(const void *)in;                                                  \
        if (ds == 1 && ss == 1)                                                                    \
            for (int64_t i = 0; i < n; i++)                                                        \
                o[i] = s[i];                                                                       \
        else if (ds == 1 && ss == -1)                                                              \
            for (int64_t i = 0; i < n; i++)                                                        \
                o[i] = s[-i];                                                                      \
        else if (ds == 1 && ss == 2)                                                               \
            for (int64_t i = 0; i < n; i++)                                                        \
                o[i] = s[2 * i];                                                                   \
        else if (ds == 2 && ss == 1)                                                               \
            for (int64_t i = 0; i < n; i++)                                                        \
                o[2 * i] = s[i];                                                                   \
        else if (ds == 1)                                                                          \
            for (int64_t i = 0; i < n; i++)                                                        \
                o[i] = s[i * ss];                                                                  \
        else if (ss == 1)                                                                          \
            for (int64_t i = 0; i < n; i++)                                                        \
                o[i * ds] = s[i];                                                                  \
        else                                                                                       \
            for (int64_t i = 0; i < n; i++)                                                        \
                o[i * ds] = s[i * ss];                                                             \
    } while (0)

static void copy_row(char *out, const char *in, int64_t n, int64_t ds, int64_t ss, int64_t es,
                     const hl_cpu_isa *isa)
{
    if (n <= 0) /* a streamed row's empty head or tail: every row has two */
        return;
    if (ds == 1 && (ss == -1 || ss == 2 || ss == -2) && isa->strided) {
        const int64_t done = isa->strided(out, in, n, ss, es, false);
        out += done * es;
        in += done * ss * es;
        n -= done;
    }
    switch (es) {
    case 1: ROW_LOOP(uint8_t); break;
    case 2: ROW_LOOP(uint16_t); break;
    case 4: ROW_LOOP(uint32_t); break;
    case 8: ROW_LOOP(uint64_t); break;
    case 16: ROW_LOOP(u128_pair); break;
    default:
        for (int64_t i = 0; i < n; i++)
            memcpy(out + i * ds * es, in + i * ss * es, (size_t)es);
    }
}

#if defined(__SSE2__)
/* out[i] = in[-i] for i < n, the source read upwards (the cells of out
 * from the last): a chunk of a reversed row read the way the prefetchers
 * expect, when the chunks are taken upwards too. */
static void reverse_up(char *out, const char *in, int64_t n, int64_t es)
{
    int64_t i = n;
    if (es == 4) {
        for (; i >= 4; i -= 4)
            _mm_storeu_si128((__m128i *)(void *)(out + 4 * (i - 4)),
                             _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(const void *)(in - 4 * (i - 1))),
                                               _MM_SHUFFLE(0, 1, 2, 3)));
    } else if (es == 8) {
        for (; i >= 2; i -= 2)
            _mm_storeu_si128((__m128i *)(void *)(out + 8 * (i - 2)),
                             _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(const void *)(in - 8 * (i - 1))),
                                               _MM_SHUFFLE(1, 0, 3, 2)));
    }
    for (; i > 0; i--)
        memcpy(out + (i - 1) * es, in - (i - 1) * es, (size_t)es);
}
#endif

/* A row written with non-temporal stores: they bypass the cache, so a write
 * does not first read its line (as memcpy does for big copies).  Only whole
 * 64-byte lines are streamed: a partial line written that way costs a
 * read-modify-write in memory, so the row's first and last partial lines get
 * plain stores.  Strided sources are gathered in chunks into an L1 buffer by
 * copy_row first. */
static void stream_row(char *out, const char *in, int64_t n, int64_t ss, int64_t es, bool upward,
                       const hl_cpu_isa *isa)
{
#if defined(__SSE2__)
    enum { CHUNK = 2048, LINE = 64 };
    _Alignas(64) char buf[CHUNK];
    if ((es & (es - 1)) != 0 || es > LINE) {
        copy_row(out, in, n, 1, ss, es, isa);
        return;
    }
    /* shifts, not divisions: a row of a few lines (flip:1 of [64,64,64,64]
     * float32, rows of 256 bytes) spent half its time in them */
    const int lg = __builtin_ctzll((unsigned long long)es);
    const int64_t line = LINE >> lg;
    int64_t head = (int64_t)(((uintptr_t)-(uintptr_t)out & (LINE - 1)) >> lg);
    if (((uintptr_t)out & (uintptr_t)(es - 1)) != 0 || head + line > n) {
        copy_row(out, in, n, 1, ss, es, isa);
        return;
    }
    const int64_t per = CHUNK >> lg, body = (n - head) & -line, end = head + body;
    const int64_t chunks = ss == 1 ? 0 : (body + per - 1) >> (__builtin_ctz(CHUNK) - lg);
    /* the partial lines at the ends get plain stores, which wait for their
     * lines to be read: requested now, written after the whole lines, so
     * that the streamed stores behind them in the store buffer do not wait
     * (rows of 1 KiB 16 bytes off a line ran 2.5x slower otherwise) */
    if (head)
        __builtin_prefetch(out, 1, 3);
    if (end < n)
        __builtin_prefetch(out + n * es - 1, 1, 3);
    if (ss == 1) /* one call for the whole lines: no chunks through the buffer */
        isa->lines(out + head * es, in + head * es, body * es);
    /* a row read backwards (a flip) whose next row lies above (`upward`) is
     * taken from its last chunk to its first, each read upwards: the rows
     * then make one rising stream, which the hardware prefetchers follow,
     * where a falling stream per row makes them start over at every row */
    const bool up = ss == -1 && upward;
    for (int64_t c = 0; c < chunks; c++) {
        const int64_t i = head + (up ? chunks - 1 - c : c) * per;
        const int64_t m = end - i < per ? end - i : per;
        const char *from = in + i * ss * es;
        /* strided rows: whole lines straight from registers where the level
         * permutes lanes (rows.h; none at the generic level), the rest
         * through the buffer; reversed
         * rows all through the buffer (straight from registers a reversal
         * of the whole array ran 0.82-0.91x on float32, and a row taken
         * upwards 0.4x on rows of 16 KiB: the kernels read each vector's
         * cells downwards) */
        const int64_t done =
            ss == -1 || !isa->strided ? 0 : isa->strided(out + i * es, from, m, ss, es, true);
        if (done == m)
            continue;
        if (up)
            reverse_up(buf, from + done * ss * es, m - done, es);
        else
            copy_row(buf, from + done * ss * es, m - done, 1, ss, es, isa);
        isa->lines(out + (i + done) * es, buf, (m - done) * es);
    }
    if (head)
        copy_row(out, in, head, 1, ss, es, isa);
    if (end < n)
        copy_row(out + end * es, in + end * ss * es, n - end, 1, ss, es, isa);
#else
    (void)upward; /* no chunks to order: the row goes through copy_row */
    copy_row(out, in, n, 1, ss, es, isa);
#endif
}

/* ---- blocks and in-cache transposes ------------------------------------------ */

/* out[dtab[j]] = in[stab[j]] for one block (out[j] when dtab is NULL). */
#define BLOCK_LOOP(T)                                                                              \
    do {                                                                                           \
        T *o = (T *)(void *)out;                                                                   \
        const T *s = (const T *)(const void *)in;                                                  \
        if (dtab)                                                                                  \
            for (int64_t j = 0; j < n; j++)                                                        \
                o[dtab[j]] = s[stab[j]];                                                           \
        else                                                                                       \
            for (int64_t j = 0; j < n; j++)                                                        \
                o[j] = s[stab[j]];                                                                 \
    } while (0)

/* (out of line: inlined into run_plane, its gather loop ran tile:1,7 of
 * [4095,4097] float32 at 0.75x after an unrelated change to run_plane, the
 * same plan, the same loop, placed otherwise) */
static __attribute__((noinline)) void copy_block(char *out, const char *in, const int64_t *stab,
                                                 const int64_t *dtab, int64_t n, int64_t es)
{
    switch (es) {
    case 1: BLOCK_LOOP(uint8_t); break;
    case 2: BLOCK_LOOP(uint16_t); break;
    case 4: BLOCK_LOOP(uint32_t); break;
    case 8: BLOCK_LOOP(uint64_t); break;
    case 16: BLOCK_LOOP(u128_pair); break;
    default:
        for (int64_t j = 0; j < n; j++)
            memcpy(out + (dtab ? dtab[j] : j) * es, in + stab[j] * es, (size_t)es);
    }
}

/* n rows of `bytes` (8, 16, 32, 64 or 128) contiguous bytes, from in + stab[j]
 * cells to out + dtab[j] cells: a fixed size, so each is a few moves. */
#define SHORT_ROWS(B)                                                                              \
    do {                                                                                           \
        if (dtab)                                                                                  \
            for (int64_t j = 0; j < n; j++)                                                        \
                memcpy(out + dtab[j] * es, in + stab[j] * es, B);                                  \
        else                                                                                       \
            for (int64_t j = 0; j < n; j++)                                                        \
                memcpy(out + j * B, in + stab[j] * es, B);                                         \
    } while (0)

static void copy_short_rows(char *out, const char *in, const int64_t *stab, const int64_t *dtab,
                            int64_t n, int64_t bytes, int64_t es)
{
    switch (bytes) {
    case 8: SHORT_ROWS(8); break;
    case 16: SHORT_ROWS(16); break;
    case 32: SHORT_ROWS(32); break;
    case 64: SHORT_ROWS(64); break;
    default: SHORT_ROWS(128); break;
    }
}

/* ---- execution ---------------------------------------------------------------- */

/* A function that only prefetches has no effect GCC counts: out of line,
 * its calls are dropped as calls of a const function (a block's lookahead
 * split into shares vanished so, in a trial).  Inlined, the prefetches stay. */
#define PREFETCH_FN inline __attribute__((always_inline))

/* Requests the n bytes of a run that starts at `at` and goes in direction
 * dir (+1 forwards; -1: `at` is its last element). */
static PREFETCH_FN void prefetch_run(const char *at, int64_t n, int64_t dir, int64_t es)
{
#if defined(__SSE2__)
    const char *lo = dir < 0 ? at - n + es : at;
    for (int64_t l = 0; l < n; l += 64)
        _mm_prefetch(lo + l, _MM_HINT_T0);
#else
    (void)at, (void)n, (void)dir, (void)es;
#endif
}

enum { PREFETCH_MAX = 4096 }; /* longer runs train the hardware prefetchers */

/* The n bytes at `at` into the L2: a lane-permute plane's span, whose
 * loads then wait on the L2, not on memory (into the L1, as the other
 * planes request theirs, the 6-D chain ran at 0.7x: the requests fill the
 * L1's miss buffers and the loads queue behind them). */
static PREFETCH_FN void prefetch_l2(const char *at, int64_t n)
{
#if defined(__SSE2__)
    for (int64_t l = 0; l < n; l += 64)
        _mm_prefetch(at + l, _MM_HINT_T1);
#else
    (void)at, (void)n;
#endif
}

/* A block's lines (block_lines), into the L2 or into both caches: each
 * loop has its hint as a constant (GCC 12 dropped a loop of T1 requests
 * whose hint was a variable chosen outside it). */
static PREFETCH_FN void prefetch_cells(const char *at, const int64_t *tab, int64_t n, int64_t es,
                                       bool l2)
{
#if defined(__SSE2__)
    if (l2)
        for (int64_t j = 0; j < n; j++)
            _mm_prefetch(at + tab[j] * es, _MM_HINT_T1);
    else
        for (int64_t j = 0; j < n; j++)
            _mm_prefetch(at + tab[j] * es, _MM_HINT_T0);
#else
    (void)at, (void)tab, (void)n, (void)es, (void)l2;
#endif
}

/* A crinkle's halves (copy_split) streamed where they lie differently
 * against the lines (a rotated row's, as the chain's): chunks of both from
 * one read into an L1 buffer, each streamed from there (as two strided
 * rows, the row was read twice: the chain of [4096,4096] float32 ran at
 * 20 GB/s).  Chunks start at lines of the first half, and go from the
 * row's last when read downwards, so that the source is read upwards. */
static void stream_halves(char *out, int64_t ostride, const char *in, int64_t n, int64_t ss,
                          int64_t es, const hl_cpu_isa *isa)
{
    enum { HALF_BYTES = 4096 };
    _Alignas(64) char buf[2][HALF_BYTES];
    /* chunks of 2 KiB of a half read upwards (4 KiB: the 1-D shift:1
     * crinkle:0:2 0.8x), of 4 KiB read downwards (2 KiB: the 2-D chain
     * 0.55x, whichever way the kernel went through them) */
    const int64_t per = (ss > 0 ? HALF_BYTES / 2 : HALF_BYTES) / es;
    int64_t head = (int64_t)(((uintptr_t)-(uintptr_t)out & 63) / (uintptr_t)es);
    head = head < n ? head : n;
    const int64_t chunks = 1 + (n - head + per - 1) / per; /* the head, then whole chunks */
    for (int64_t c = 0; c < chunks; c++) {
        const int64_t k = ss > 0 ? c : chunks - 1 - c;
        const int64_t a = k ? head + (k - 1) * per : 0, b = k ? (a + per < n ? a + per : n) : head;
        const char *from = in + a * ss * es;
        isa->halves(buf[0], buf[1], from, b - a, ss, es, false); /* whole (rows.h) */
        for (int64_t j = 0; j < 2; j++)
            stream_row(out + (j * ostride + a) * es, buf[j], b - a, 1, es, true, isa);
    }
}

/* Rows read together from one row of stride ss (rows.h): `ways` 2, a
 * crinkle's halves (ss 2 or -2), or 3 or 4 interleaved channels (ss =
 * ways): out[j * ostride + i] = in[i * ss + j * (ss / ways)], j < ways,
 * i < n.  Streamed when the rows lie alike against the lines (their heads,
 * up to a line, with plain stores), else halves through a buffer and
 * channels as strided rows one by one. */
static void copy_split(char *out, int64_t ostride, const char *in, int64_t n, int64_t ways,
                       int64_t ss, int64_t es, bool stream, const hl_cpu_isa *isa)
{
    const int64_t next = ss / ways; /* from one row's source to the next's */
    int64_t head = 0;
    if (stream) {
        const uintptr_t at = (uintptr_t)out & 63;
        /* (a short row read forwards is read twice as two strided rows,
         * the second time from the cache: crinkle:0:2 of [4095,4097]
         * float32, rows of 16 KiB, ran 0.87x through the buffer) */
        if (ways == 2 && (ostride * es) % 64 && at % (uintptr_t)es == 0 &&
            (ss < 0 || 2 * n * es > HALVES_CACHED_BYTES)) {
            stream_halves(out, ostride, in, n, ss, es, isa);
            return;
        }
        if ((ostride * es) % 64 || at % (uintptr_t)es) {
            for (int64_t j = 0; j < ways; j++)
                stream_row(out + j * ostride * es, in + j * next * es, n, ss, es, true, isa);
            return;
        }
        head = at ? (int64_t)(64 - at) / es : 0;
        head = head < n ? head : n;
        for (int64_t j = 0; j < ways; j++)
            copy_row(out + j * ostride * es, in + j * next * es, head, 1, ss, es, isa);
    }
    char *o = out + head * es;
    const char *s = in + head * ss * es;
    const int64_t done = head + (ways == 2 ? isa->halves(o, o + ostride * es, s, n - head, ss, es, stream)
                                           : isa->channels(o, ostride, s, n - head, ways, es, stream));
    for (int64_t j = 0; j < ways; j++)
        copy_row(out + (j * ostride + done) * es, in + (done * ss + j * next) * es, n - done, 1, ss,
                 es, isa);
}

/* A crinkle's two halves, the second `ostride` cells after the first in the
 * output and `next` (+-1) in the source: copy_split, whose second half is
 * the one a cell along the row's stride. */
static void copy_halves(char *out, int64_t ostride, const char *in, int64_t n, int64_t ss, int64_t next,
                        int64_t es, bool stream, const hl_cpu_isa *isa)
{
    if (next == ss / 2)
        copy_split(out, ostride, in, n, 2, ss, es, stream, isa);
    else
        copy_split(out + ostride * es, -ostride, in + next * es, n, 2, ss, es, stream, isa);
}

/* A member's rows; streamed (stream_row), where the group is not staged,
 * when they are rows of the output: a member of several rows (a crinkled
 * dimension under a cut one) written with plain stores ran at 0.4 of its
 * boxes run apart. */
static void copy_member(const member *m, char *out, const char *in, int64_t es, bool stream,
                        bool upward, const hl_cpu_isa *isa)
{
    out += m->dst_off * es;
    in += m->src_off * es;
    if (m->n == 0) {
        memcpy(out, in, (size_t)es);
        return;
    }
    stream = stream && m->ds[0] == 1 && m->ext[0] * es >= MIN_RUN_BYTES;
    if (m->n > 1) /* the next row: the member's own, else the next plane's */
        upward = m->ss[1] > 0;
    int64_t d[HL_ROW_GROUP_ROW_DIGITS] = {0}, rows = 1;
    for (int t = 1; t < m->n; t++)
        rows *= m->ext[t];
    for (int64_t r = 0; r < rows; r++) {
        if (stream)
            stream_row(out, in, m->ext[0], m->ss[0], es, upward, isa);
        else
            copy_row(out, in, m->ext[0], m->ds[0], m->ss[0], es, isa);
        for (int t = 1; t < m->n; t++) {
            out += m->ds[t] * es;
            in += m->ss[t] * es;
            if (++d[t] < m->ext[t])
                break;
            out -= m->ds[t] * m->ext[t] * es;
            in -= m->ss[t] * m->ext[t] * es;
            d[t] = 0;
        }
    }
}

/* A transpose plane straight from the registers, streamed only where
 * every column's micro-blocks start lines: a buffer off line boundaries
 * (NumPy's) gets plain stores for the columns of its first row chunk (the
 * row chunks start early by its offset: run_plane); streaming whole lines
 * with the partial ones at a column's ends written apart was slower,
 * through an L1 stage or not (measured: 0.5-0.85x). */
static void transpose_plane(const kbox *k, char *out, const char **row, int64_t rows, int64_t cols,
                            int64_t es, bool stream, const hl_cpu_isa *isa)
{
    const bool lines = stream && k->lines && ((uintptr_t)out & 63) == 0;
    /* rows off line boundaries (all by the same bytes): the first columns,
     * up to a line of source, go apart, so that every micro-block's loads
     * are whole lines of each row */
    int64_t h = 0;
    if (k->src_lines && cols * es >= 1024) {
        const uintptr_t at = ((uintptr_t)row[0] + (k->sdir < 0 ? (uintptr_t)es : 0)) & 63;
        h = at % (uintptr_t)es ? 0 : (int64_t)((k->sdir > 0 ? 64 - at : at) & 63) / es;
    }
    if (h) {
        hl_transpose_block(isa, out, k->dtab, row, rows, h, k->sdir, false, es);
        for (int64_t r = 0; r < rows; r++)
            row[r] += h * k->sdir * es;
    }
    hl_transpose_block(isa, out, k->dtab + h, row, rows, cols - h, k->sdir, lines, es);
}

/* ---- the plane runners (copy_solver's run) -------------------------------------- */

void hl_copy_run_group(const kbox *k, const int64_t *d, char *out, const char *in, int64_t es,
                       bool stream, char *stage, int64_t next, const hl_cpu_isa *isa)
{
    (void)d, (void)next;
    /* a short run read backwards or strided is assembled in the stage
     * and streamed whole; other runs member by member, rows streamed as
     * they are (pieces read forwards gain nothing from a pass through
     * the stage: shifts were up to 2x slower with it) */
    const bool staged = stream && k->staged;
    char *to = staged ? stage : out;
    for (int m = 0; m < k->nmem; m++) {
        const member *x = &k->mem[m];
        if (x->halves > 0) {
            const member *z = &k->mem[x->halves];
            const int64_t n = x->ext[0] < z->ext[0] ? x->ext[0] : z->ext[0];
            copy_split(to + x->dst_off * es, z->dst_off - x->dst_off, in + x->src_off * es, n, 2,
                       x->ss[0], es, stream && !staged, isa);
            const member *w = x->ext[0] > n ? x : z; /* the longer half's last cell */
            if (w->ext[0] > n)
                memcpy(to + (w->dst_off + n) * es, in + (w->src_off + n * w->ss[0]) * es, (size_t)es);
        } else if (x->split) {
            copy_halves(to + x->dst_off * es, x->ds[1], in + x->src_off * es, x->ext[0], x->ss[0],
                        x->ss[1], es, stream && !staged, isa);
        } else if (x->halves == 0) {
            copy_member(x, to, in, es, stream && !staged, k->n > 0 && k->ss[0] > 0, isa);
        }
    }
    if (staged)
        stream_row(out, stage, k->run_cells, 1, es, true, isa);
}

void hl_copy_run_lanes(const kbox *k, const int64_t *d, char *out, const char *in, int64_t es,
                       bool stream, char *stage, int64_t next, const hl_cpu_isa *isa)
{
    (void)d, (void)next;
    const char *span = in + k->span_lo * es;
    const int64_t bytes = k->plane_cells * es;
    if (stream && ((uintptr_t)out & 63) == 0 && bytes % 64 == 0) {
        isa->lanes(out, span, &k->lanes, true);
    } else if (stream && bytes <= 2 * STAGE_BYTES) {
        isa->lanes(stage, span, &k->lanes, false);
        stream_row(out, stage, k->plane_cells, 1, es, true, isa);
    } else {
        isa->lanes(out, span, &k->lanes, false);
    }
}

void hl_copy_run_cell(const kbox *k, const int64_t *d, char *out, const char *in, int64_t es,
                      bool stream, char *stage, int64_t next, const hl_cpu_isa *isa)
{
    (void)k, (void)d, (void)stream, (void)stage, (void)next, (void)isa;
    memcpy(out, in, (size_t)es);
}

void hl_copy_run_rows(const kbox *k, const int64_t *d, char *out, const char *in, int64_t es,
                      bool stream, char *stage, int64_t next, const hl_cpu_isa *isa)
{
    (void)stage;
    int64_t n = k->ext[0];
    if (k->cut)
        n = n - d[k->inner] * k->cut < k->cut ? n - d[k->inner] * k->cut : k->cut;
    /* the span a row (or the rows read with it) reads: n * |ss| cells */
    const int64_t span = n * hl_abs64(k->ss[0]) * es;
    if (next && hl_abs64(k->ss[0]) <= 4 && span <= PREFETCH_MAX)
        prefetch_run(in + next, span, k->ss[0] > 0 ? 1 : -1, es);
    if (k->ways == 2) {
        copy_halves(out, k->ds[1], in, n, k->ss[0], k->ss[1], es, stream, isa);
        return;
    }
    if (k->ways > 1) {
        copy_split(out, k->ds[1], in, n, k->ways, k->ss[0], es, stream, isa);
        return;
    }
    if (stream && k->ds[0] == 1)
        stream_row(out, in, n, k->ss[0], es, k->inner < k->n && k->ss[k->inner] > 0, isa);
    else
        copy_row(out, in, n, k->ds[0], k->ss[0], es, isa);
}

void hl_copy_run_block(const kbox *k, const int64_t *d, char *out, const char *in, int64_t es,
                       bool stream, char *stage, int64_t next, const hl_cpu_isa *isa)
{
    /* the last chunk of a cut digit is a prefix of the tables */
    int64_t cells = k->block;
    if (k->cut) {
        const int64_t left = k->ext[k->inner - 1] - d[k->inner] * k->cut;
        if (left < k->cut)
            cells = k->block / k->cut * left;
    }
    if (next && k->row_len >= 16 && hl_abs64(k->ss[0]) == 1)
        for (int64_t j = 0; j < cells / k->row_len; j++)
            prefetch_run(in + next + k->stab[j] * es, k->row_len * es, k->ss[0], es);
    const bool pairs = k->pairs.steps && cells == k->block; /* (whole blocks) */
    if (stream && (pairs || (k->dense && k->short_rows && isa->short_rows)) &&
        ((uintptr_t)out & 63) == 0 && (cells * es) % 64 == 0) {
        if (pairs)
            isa->pairs(out, in, &k->pairs, true);
        else
            isa->short_rows(out, in, k->stab, cells / k->row_len, k->row_len * es, es);
        return;
    }
    char *to = k->dense && stream && cells * es <= 2 * STAGE_BYTES ? stage : out;
    if (pairs)
        isa->pairs(to, in, &k->pairs, false);
    else if (k->row_len == 1)
        copy_block(to, in, k->stab, k->dense ? NULL : k->dtab, cells, es);
    else if (k->short_rows)
        copy_short_rows(to, in, k->stab, k->dense ? NULL : k->dtab, cells / k->row_len, k->row_len * es, es);
    else
        for (int64_t j = 0; j < cells / k->row_len; j++)
            copy_row(to + k->dtab[j] * es, in + k->stab[j] * es, k->row_len, k->ds[0], k->ss[0], es, isa);
    if (to == stage)
        stream_row(out, stage, cells, 1, es, true, isa);
}

void hl_copy_run_transpose(const kbox *k, const int64_t *d, char *out, const char *in, int64_t es,
                           bool stream, char *stage, int64_t next, const hl_cpu_isa *isa)
{
    /* the last chunk of a cut digit is a prefix of the tables */
    const int64_t rl = k->row_last, cl = k->col_last;
    const int64_t cc = d[k->inner] * k->col_chunk, rc = d[k->inner + 1] * k->row_chunk;
    int64_t lo = rc, hi = rc + k->row_chunk;
    if (k->shift && stream) {
        /* chunks start s rows early, so that chunk 1 on starts a line
         * (rows_in = 1: the row digit is digit 0, dst stride 1); with
         * masked row edges chunk 0 is only the head up to the first
         * line, else a whole chunk less the offset (plain stores) */
        const uintptr_t at = ((uintptr_t)out - (uintptr_t)(rc * es)) & 63;
        int64_t s = at % (uintptr_t)es ? 0 : (int64_t)at / es;
        if (s && k->edges)
            s = k->row_chunk - (int64_t)(64 - at) / es;
        lo = rc - s > 0 ? rc - s : 0;
        hi -= s;
        out += (lo - rc) * es;
        in += (lo - rc) * k->ss[rl] * es;
    }
    if (hi > k->ext[rl])
        hi = k->ext[rl];
    if (hi <= lo)
        return;
    const int64_t rows = k->rows_in * (hi - lo);
    const int64_t cols = k->cols_in * (k->ext[cl] - cc < k->col_chunk ? k->ext[cl] - cc : k->col_chunk);
    const char *row[TR_ROWS_MAX];
    for (int64_t r = 0; r < rows; r++)
        row[r] = in + k->stab[r] * es;
    if (stream && k->staged)
        hl_transpose_staged(isa, out, k->dtab, row, rows, cols, k->sdir, es, stage, TR_STAGE_BYTES);
    else if (stream && k->one_run && ((uintptr_t)out & 63) && rows * cols == k->plane_cells) {
        /* a whole matrix off a line (16 bytes off, as NumPy's): through
         * the stage, then streamed as one run (its columns written
         * there straight, all partial lines, with plain stores: the
         * 1,0,3,2 transpose of [64,64,64,64] 0.45 of aligned, 0.77 so) */
        hl_transpose_block(isa, stage, k->dtab, row, rows, cols, k->sdir, false, es);
        stream_row(out, stage, rows * cols, 1, es, true, isa);
    } else
        transpose_plane(k, out, row, rows, cols, es, stream, isa);
    if (next) /* the start of each row of the next plane (short rows: whole) */
        for (int64_t r = 0; r < rows; r++)
            prefetch_run(in + next + k->stab[r] * es, cols * es < 1024 ? cols * es : 1024, k->sdir, es);
}

/* The outer digits and offsets of plane p. */
static void plane_at(const kbox *k, int64_t p, int64_t *d, int64_t *so, int64_t *doff)
{
    *so = k->src_base;
    *doff = k->dst_base;
    for (int t = k->inner; t < k->n; t++) {
        d[t] = p % k->ext[t];
        p /= k->ext[t];
        *so += d[t] * k->ss[t];
        *doff += d[t] * k->ds[t];
    }
}

static inline __attribute__((always_inline)) void next_plane(const kbox *k, int64_t *d, int64_t *so,
                                                             int64_t *doff)
{
    for (int t = k->inner; t < k->n; t++) { /* odometer over the outer digits */
        *so += k->ss[t];
        *doff += k->ds[t];
        if (++d[t] < k->ext[t])
            break;
        *so -= k->ss[t] * k->ext[t];
        *doff -= k->ds[t] * k->ext[t];
        d[t] = 0;
    }
}

/* Runs planes [lo, hi) of one box. */
static void run_planes(const kbox *k, int64_t lo, int64_t hi, const char *in, char *out, int64_t es,
                       bool stream, char *stage, const hl_cpu_isa *isa)
{
    void (*const run_plane)(const kbox *, const int64_t *, char *, const char *, int64_t, bool,
                            char *, int64_t, const hl_cpu_isa *) = k->solver->run;
    int64_t d[WORK_DIGITS] = {0}, so, doff;
    plane_at(k, lo, d, &so, &doff);
    if (!k->ahead) {
        /* the next plane is most likely one step of the first outer digit
         * away; its source is requested while this one is copied, since
         * short streams, or streams read backwards, train no prefetcher */
        int t = k->inner;
        while (t < k->n && k->ext[t] == 1) /* a chunk counter of one chunk */
            t++;
        const int64_t next = t < k->n ? k->ss[t] * es : 0;
        for (int64_t o = lo; o < hi; o++) {
            run_plane(k, d, out + doff * es, in + so * es, es, stream, stage, next, isa);
            next_plane(k, d, &so, &doff);
        }
        return;
    }
    /* lookahead: a second odometer k->ahead planes in front */
    const bool lined = k->lined && (((uintptr_t)in + (uintptr_t)(k->src_base * es)) & 63) == 0;
    int64_t da[WORK_DIGITS] = {0}, soa = 0, unused;
    if (lo + k->ahead < hi)
        plane_at(k, lo + k->ahead, da, &soa, &unused);
    for (int64_t o = lo; o < hi; o++) {
        if (o + k->ahead < hi) {
            if (k->span_ahead && k->pf_l2)
                prefetch_l2(in + (soa + k->span_lo) * es, k->span_bytes);
            else if (k->span_ahead)
                prefetch_run(in + (soa + k->span_lo) * es, k->span_bytes, 1, es);
            else if (lined)
                prefetch_cells(in + soa * es, k->ptab_lined, k->npf_lined, es, k->pf_l2);
            else
                prefetch_cells(in + soa * es, k->ptab, k->npf, es, k->pf_l2);
            next_plane(k, da, &soa, &unused);
        }
        run_plane(k, d, out + doff * es, in + so * es, es, stream, stage, 0, isa);
        next_plane(k, d, &so, &doff);
    }
}

/* Runs share `me` of `nt` of the work: contiguous ranges of equal work,
 * cut at plane boundaries. */
static void run_share(const hl_copy *c, int64_t work, int me, int nt, const char *in, char *out,
                      char *stage)
{
    const int64_t lo = work / nt * me + work % nt * me / nt;
    const int64_t hi = work / nt * (me + 1) + work % nt * (me + 1) / nt;
    int64_t start = 0;
    for (int64_t i = 0; i < c->nboxes && start < hi; i++) {
        const kbox *k = &c->box[i];
        const int64_t plane = k->plane_cells * k->es, size = k->planes * plane;
        if (start + size > lo) {
            int64_t p0 = lo > start ? (lo - start + plane - 1) / plane : 0;
            int64_t p1 = (hi - start + plane - 1) / plane;
            if (p1 > k->planes)
                p1 = k->planes;
            if (p0 < p1)
                run_planes(k, p0, p1, in, out, k->es, c->stream, stage, c->isa);
        }
        start += size;
    }
#if defined(__SSE2__)
    if (c->stream)
        _mm_sfence(); /* order the streamed stores before returning */
#endif
}

hl_status hl_copy_run(const hl_copy *c, const char *in, char *out, const hl_exec_ctx *ctx)
{
    int64_t work = 0; /* bytes */
    for (int64_t i = 0; i < c->nboxes; i++)
        work += c->box[i].planes * c->box[i].plane_cells * c->box[i].es;
    const bool stage_needed = c->stream;
    if (ctx->team == 0) {
        char *stage = stage_needed ? aligned_alloc(STAGE_ALIGN, 2 * STAGE_BYTES) : NULL;
        if (stage_needed && !stage)
            return HL_ERR_NOMEM;
        run_share(c, work, ctx->share, ctx->shares, in, out, stage);
        free(stage);
        return HL_OK;
    }
    const int use = work >= (1 << 16) ? ctx->team : 1;
    int failed = 0;
#pragma omp parallel num_threads(use) reduction(| : failed)
    {
        char *stage = stage_needed ? aligned_alloc(STAGE_ALIGN, 2 * STAGE_BYTES) : NULL;
        if (stage_needed && !stage)
            failed = 1;
        else
            run_share(c, work, omp_get_thread_num(), omp_get_num_threads(), in, out, stage);
        free(stage);
    }
    return failed ? HL_ERR_NOMEM : HL_OK;
}
