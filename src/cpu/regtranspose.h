/* hyperlayout internal — the copy kernel's out-of-place transposes and
 * streamed lines, one kernel set per instruction-set level (SSE2, AVX2,
 * AVX-512; NEON on aarch64), gathered with the other kernels of each level
 * in its table (isa.h).
 *
 * A block is r rows of c cells: row a starts at row[a] (anywhere) and is
 * read forwards (dir = +1) or backwards (dir = -1); it is written
 * transposed, straight into the output, column b at out + dtab[b] cells:
 *
 *     out[dtab[b] + a] = row[a][b * dir]     for a < r, b < c.
 *
 * Cells move through registers only, in micro-blocks whose columns are one
 * 64-byte line of output each (16 x 16 float32 with AVX-512, two 8 x 8 with
 * AVX2, four 4 x 4 with SSE2 and NEON; 4 x 4 cells of 16 bytes with
 * AVX-512, other levels cell by cell); with `lines`, every column that
 * starts a micro-block lies on a line boundary and is written with a
 * non-temporal store (no read of the line it replaces; NEON: plain
 * stores).  Rows and columns that do not fill a micro-block go cell by cell
 * (rows: by masked micro-blocks where the level has `edges`). */
#ifndef HYPERLAYOUT_CPU_REGTRANSPOSE_H
#define HYPERLAYOUT_CPU_REGTRANSPOSE_H

#include <stdbool.h>
#include <stdint.h>

#include "isa.h"

/* The kernels of each level, for the level's table (isa.c). */
hl_transpose_fn hl_transpose4_generic, hl_transpose8_generic;
hl_lines_fn hl_lines_generic;
#if defined(__x86_64__) || defined(__i386__)
hl_transpose_fn hl_transpose4_sse2, hl_transpose8_sse2, hl_transpose4_avx2, hl_transpose8_avx2,
    hl_transpose4_avx512, hl_transpose8_avx512, hl_transpose16_avx512;
hl_lines_fn hl_lines_sse2, hl_lines_avx2, hl_lines_avx512;
#endif
#if defined(__aarch64__)
hl_transpose_fn hl_transpose4_neon, hl_transpose8_neon;
#endif

/* Any cell size (the 4- and 8-byte cases through isa's kernels). */
void hl_transpose_block(const hl_cpu_isa *isa, char *out, const int64_t *dtab,
                        const char *const *row, int64_t r, int64_t c, int64_t dir, bool lines,
                        int64_t es);

/* The same block for a large output whose columns do not start lines (an
 * odd extent), r <= 256: strips of columns are transposed into `stage`
 * (stage_bytes, in L1) and written out as runs — columns that follow each
 * other in the output make one run — whole lines with non-temporal stores,
 * the partial lines at a run's ends with plain ones. */
void hl_transpose_staged(const hl_cpu_isa *isa, char *out, const int64_t *dtab,
                         const char *const *row, int64_t r, int64_t c, int64_t dir, int64_t es,
                         char *stage, int64_t stage_bytes);

#endif
