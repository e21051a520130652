/* hyperlayout internal — the row kernels of each instruction-set level, the
 * entries of isa.h's hl_cpu_isa that are not register transposes: rows read
 * backwards or with a stride of two, a crinkle's two halves, interleaved
 * channels split, short rows streamed or loaded in pairs, planes by lane
 * permutes and rows gathered through a table (the kernels: rows.c and
 * rows_lanes.c; the tables some of them run from: rows_tables.c).  An
 * entry a level lacks is NULL there, and the caller goes cell by cell or
 * through the stage.
 *
 * Rows read backwards or with a stride of two (a flip, a crinkle by 2,
 * both), at SSE2 and up (NULL at the generic and NEON levels):
 *
 *     out[i] = in[i * ss]     for i < done,  ss one of -1, 2, -2,
 *
 * for 4- and 8-byte cells, whole vectors at a time, each built from one or
 * two source vectors by a lane permute.  Returns `done`, the cells copied (a
 * multiple of the vector's cells): the caller finishes the row.  Only cells
 * of the row (i * ss for i < n) are read.  With `stream`, out is on a 64-byte
 * line, done is a whole number of lines and they are written with
 * non-temporal stores. */
#ifndef HYPERLAYOUT_CPU_ROWS_H
#define HYPERLAYOUT_CPU_ROWS_H

#include <stdbool.h>
#include <stdint.h>

typedef int64_t hl_strided_fn(char *out, const char *in, int64_t n, int64_t ss, int64_t es,
                              bool stream);

#if defined(__x86_64__) || defined(__i386__)
hl_strided_fn hl_strided_sse2, hl_strided_avx2, hl_strided_avx512;
#endif

/* A crinkle's two halves of a row from one read:
 *
 *     out0[i] = in[i * ss], out1[i] = in[i * ss + ss / 2]     for i < done,
 *
 * ss 2 or -2 (a flip of the crinkled row), 4- and 8-byte cells: each pair
 * of source vectors is read once and gives a vector of each half (read as
 * two strided rows, the row is read twice: crinkle:0:2 of [4096,4096]
 * float32 ran 0.7x so).  Returns `done` (n for these cells); only cells of
 * the row are read.  With `stream`, out0 and out1 are on lines and their
 * whole lines are written with non-temporal stores, the last partial line
 * with plain ones.  NULL below AVX2. */
typedef int64_t hl_halves_fn(char *out0, char *out1, const char *in, int64_t n, int64_t ss,
                             int64_t es, bool stream);
#if defined(__x86_64__) || defined(__i386__)
hl_halves_fn hl_halves_avx2, hl_halves_avx512;
#endif

/* A row of k interleaved channels (k = 3 or 4: RGB, RGBA, xyzw) split
 * into its k channels from one read:
 *
 *     out[j * ostride + i] = in[i * k + j]     for j < k, i < done,
 *
 * 4- and 8-byte cells, whole vectors (each channel's vector from the k
 * source vectors by two lane permutes and a blend; read as k strided rows,
 * cell by cell, the split of [4194304,4] float32 ran at 12 GB/s).  Returns
 * `done`; only cells of the row are read.  With `stream`, every channel's
 * output is on a line (ostride * es a multiple of 64), done a whole number
 * of lines, written with non-temporal stores.  NULL below AVX-512. */
typedef int64_t hl_channels_fn(char *out, int64_t ostride, const char *in, int64_t n, int64_t k,
                               int64_t es, bool stream);
#if defined(__x86_64__) || defined(__i386__)
hl_channels_fn hl_channels_avx512;
#endif

/* n rows of `bytes` bytes (8, 16, 32, 64 or 128) at in + stab[j] * es, one
 * after another into out (on a line, n * bytes a multiple of 64), written
 * with non-temporal stores straight from the source (a tile's rows,
 * Morton's pairs): a dense block's output is then written once, where a
 * pass through the stage writes it, reads it back and streams it.  All
 * loads of 128 bytes before their stores (stores between the loads were up
 * to 1.4x slower: tiles of [256,256,256] float64); at AVX-512 a line's rows
 * are joined in a register and stored at once.  NULL at the generic level. */
typedef void hl_short_rows_fn(char *out, const char *in, const int64_t *stab, int64_t n,
                              int64_t bytes, int64_t es);
#if defined(__x86_64__) || defined(__i386__)
hl_short_rows_fn hl_short_rows_sse2, hl_short_rows_avx512;
#endif

/* Short rows of 8 or 16 bytes whose output lines, one or two at a time,
 * take their rows in pairs that lie side by side in the source (Morton's
 * pairs of float32: a line of 2-D or 3-D Morton order is 8 pairs from 4
 * rows of 4 cells): each step loads those runs of 2 rows, 4 of 16 bytes or
 * 2 of 32 to a register, and makes its lines by one permute of 64-bit lanes
 * each (across two registers for two lines), the same permutes for every
 * step of the block (row by row, a line took 8 loads and 7 shuffles: 0.5x
 * in L1).  Made once, at planning, from a dense block's rows. */
typedef struct hl_pairs {
    int g;            /* lines a step: 1, or 2 (lines l and l + d) */
    int64_t d;        /* g == 2: the second line's distance from the first, in lines */
    int64_t w;        /* bytes of a run of 2 rows: 16 or 32 */
    int64_t steps;    /* of a block */
    int64_t *run;     /* steps x (g * 64 / w): the runs' offsets in the source, in bytes */
    int64_t *dst;     /* each line's offset in the block's output, in bytes; NULL: the
                         lines one after another */
    uint64_t idx[2][8]; /* line j of a step: its 64-bit lanes from the step's registers
                           (lanes 8..15: the second register) */
} hl_pairs;

/* The table of a block of n rows of `bytes` (8 or 16) at stab[j] (cells
 * of es bytes), written one after another as whole lines (dtab NULL), or
 * at dtab[j], each line's rows together and the line whole: false (nothing
 * allocated) where its lines do not pair up so, or memory runs out
 * (*nomem set). */
bool hl_pairs_make(hl_pairs *p, const int64_t *stab, const int64_t *dtab, int64_t n, int64_t bytes,
                   int64_t es, bool *nomem);
void hl_pairs_free(hl_pairs *p);

/* Runs a table: out, the block's first line (on a line), from in.  With
 * `stream` the lines are written with non-temporal stores. */
typedef void hl_pairs_fn(char *out, const char *in, const hl_pairs *p, bool stream);
#if defined(__x86_64__) || defined(__i386__)
hl_pairs_fn hl_pairs_avx512;
#endif

/* A plane whose output is one contiguous run and whose source lies in a
 * short span, in any order: its cells as 32-bit lanes (a cell of 8 bytes is
 * two), each output vector of 16 lanes built by two-source lane permutes of
 * windows of 16 lanes of the span, at any lane up to its end (a span
 * shorter than a window is loaded masked).  The table is made once, at
 * planning. */
typedef struct hl_lane_op {
    int32_t a, b; /* the first lanes of its two windows */
    uint16_t out; /* the output lanes it supplies */
} hl_lane_op;

typedef struct hl_lanes {
    int64_t nvec;  /* output vectors; the last has `tail` lanes (1..16) */
    int tail;
    uint16_t part; /* the lanes of a window that are the span's: all, unless it is shorter */
    int64_t *first;     /* nvec + 1: the ops of vector v are [first[v], first[v + 1]) */
    int32_t (*idx)[16]; /* per op: lanes 0..15 of the first window, 16..31 of the second */
    hl_lane_op *op;
} hl_lanes;

/* The table for output lane l <- source lane src[l] (0 <= src[l] < span),
 * l < n.  False (and nothing allocated) when it would take more than
 * max_ops permutes per output vector on average, or memory runs out
 * (*nomem set). */
bool hl_lanes_make(hl_lanes *t, const int64_t *src, int64_t n, int64_t span, int64_t max_ops,
                   bool *nomem);
void hl_lanes_free(hl_lanes *t);

/* Runs a table: out (the plane's first cell) from span (its source span's
 * first cell).  `stream`: out is on a line and the plane whole lines,
 * written with non-temporal stores. */
typedef void hl_lanes_fn(char *out, const char *span, const hl_lanes *t, bool stream);
#if defined(__x86_64__) || defined(__i386__)
hl_lanes_fn hl_lanes_avx512;
#endif

/* out[x] = in[idx[x]] for x < n, cells of es = 4 or 8 bytes, 32-bit
 * indices: a row permuted in cache through a table (intranspose.c's row
 * pass), by the level's gathers.  NULL at the generic and SSE2 levels. */
typedef void hl_gather_fn(char *out, const char *in, const int32_t *idx, int64_t n, int64_t es);
#if defined(__x86_64__) || defined(__i386__)
hl_gather_fn hl_gather_avx2, hl_gather_avx512;
#endif

#endif
