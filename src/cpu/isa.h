/* hyperlayout internal — the CPU kernels of one instruction-set level
 * (generic C, SSE2, AVX2, AVX-512) in one table, and which table plans made
 * now use: the best this CPU and build have, or the one hl_isa_force chose.
 * The kernels themselves live with their algorithms (regtranspose.c, rows.c). */
#ifndef HYPERLAYOUT_CPU_ISA_H
#define HYPERLAYOUT_CPU_ISA_H

#include <stdbool.h>
#include <stdint.h>

#include "rows.h"

/* A block transposed through registers (regtranspose.h). */
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
    hl_strided_fn *strided; /* rows read backwards or with a stride of 2 (rows.h); NULL:
                               cell by cell */
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

/* The kernels plans made now use: the forced level, else HL_ISA's, else
 * the best this CPU and build have. */
const hl_cpu_isa *hl_cpu_isa_current(void);

#endif
