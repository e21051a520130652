/* hyperlayout internal — the copy kernel's out-of-place transposes and
 * streamed lines, one kernel set per instruction-set level (SSE2, AVX2,
 * AVX-512), chosen at run time (or forced: hl_isa_force).
 *
 * A block is r rows of c cells: row a starts at row[a] (anywhere) and is
 * read forwards (dir = +1) or backwards (dir = -1); it is written
 * transposed, straight into the output, column b at out + dtab[b] cells:
 *
 *     out[dtab[b] + a] = row[a][b * dir]     for a < r, b < c.
 *
 * Cells move through registers only, in micro-blocks whose columns are one
 * 64-byte line of output each (16 x 16 float32 with AVX-512, two 8 x 8 with
 * AVX2, four 4 x 4 with SSE2; 4 x 4 cells of 16 bytes with AVX-512, other
 * levels cell by cell); with `lines`, every column that starts a
 * micro-block lies on a line boundary and is written with a non-temporal
 * store (no read of the line it replaces).  Rows and columns that do not
 * fill a micro-block go cell by cell (rows: by masked micro-blocks where the
 * level has `edges`). */
#ifndef HYPERLAYOUT_CPU_TRANSPOSE_H
#define HYPERLAYOUT_CPU_TRANSPOSE_H

#include <stdbool.h>
#include <stdint.h>

#include "rows.h"

typedef void hl_transpose_fn(char *out, const int64_t *dtab, const char *const *row, int64_t r,
                             int64_t c, int64_t dir, bool lines);

/* n bytes (a multiple of 64) from src to dst (on a 64-byte line) with
 * non-temporal stores, one store per line where the level has them. */
typedef void hl_lines_fn(char *dst, const char *src, int64_t n);

/* The kernels of one level. */
typedef struct hl_cpu_isa {
    const char *name;
    hl_transpose_fn *cells4, *cells8; /* 4- and 8-byte cells */
    hl_transpose_fn *cells16;         /* 16-byte cells; NULL: cell by cell */
    hl_lines_fn *lines;
    hl_strided_fn *strided; /* rows read backwards or with a stride of 2 (rows.h) */
    hl_lanes_fn *lanes;     /* planes by lane permutes (rows.h); NULL: the level has none */
    bool edges;             /* rows short of a micro-block go by masked micro-blocks, not
                               cell by cell */
    hl_short_rows_fn *short_rows; /* short rows streamed straight from the source (rows.h);
                                     NULL: through the stage */
    hl_halves_fn *halves; /* a crinkle's two halves of a row from one read (rows.h); NULL:
                             none */
    hl_channels_fn *channels; /* a row of 3 or 4 interleaved channels split from one read
                                 (rows.h); NULL: none */
    hl_pairs_fn *pairs; /* short rows loaded in pairs, lines by lane permutes (rows.h);
                           NULL: none */
    hl_gather_fn *gather; /* a row of 4- or 8-byte cells permuted through a table (rows.h);
                             NULL: cell by cell */
} hl_cpu_isa;

/* The kernels plans made now use: the forced level, else the best this CPU
 * and build have. */
const hl_cpu_isa *hl_cpu_isa_current(void);

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
