/* hyperlayout — shapes and the paper's notation (docs/notation.md).
 *
 * A shape is a rank, one extent per dimension and an element type.  The
 * notation prints the most significant dimension first, like a C declaration
 * or a NumPy shape: [L(d-1),...,L1,L0] or [L(d-1),...,L0,type], e.g.
 * [128,128,128], [128,128,128,int32], [4,4,4,float64], [64,64,bytes12]. */
#ifndef HYPERLAYOUT_SHAPE_H
#define HYPERLAYOUT_SHAPE_H

#include <stddef.h>
#include <stdint.h>

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hl_dtype {
    HL_DTYPE_NONE = 0, /* untyped: one opaque byte per element */
    HL_DTYPE_INT8, HL_DTYPE_INT16, HL_DTYPE_INT32, HL_DTYPE_INT64,
    HL_DTYPE_UINT8, HL_DTYPE_UINT16, HL_DTYPE_UINT32, HL_DTYPE_UINT64,
    HL_DTYPE_FLOAT16, HL_DTYPE_FLOAT32, HL_DTYPE_FLOAT64,
    HL_DTYPE_COMPLEX64, HL_DTYPE_COMPLEX128,
    HL_DTYPE_BOOL,     /* one byte, 0 or 1 (NumPy's b1) */
    HL_DTYPE_BYTES,    /* opaque elements of elem_size bytes ("bytesN") */
    HL_DTYPE_COUNT
} hl_dtype;

typedef struct hl_shape {
    int rank;                    /* 1..HL_MAX_RANK */
    int64_t extent[HL_MAX_RANK]; /* extent[0] = L0, the fastest dimension */
    hl_dtype dtype;
    int64_t elem_size;           /* bytes per element */
} hl_shape;

/* Longest string hl_shape_format() can produce, terminator included. */
#define HL_SHAPE_NOTATION_MAX (2 + HL_MAX_RANK * 21 + 32)

/* Builds a shape from extents (extent[0] = L0).  elem_size is read only for
 * HL_DTYPE_BYTES; other types fix it. */
HL_API hl_status hl_shape_init(hl_shape *s, int rank, const int64_t *extent, hl_dtype dtype,
                        int64_t elem_size);

/* Parses the notation.  Spaces around numbers and commas are allowed; any
 * other stray character is HL_ERR_SYNTAX.  On error *s is left unchanged. */
HL_API hl_status hl_shape_parse(hl_shape *s, const char *text);

/* Writes the notation of s into buf (cap bytes, terminator included);
 * HL_ERR_BUFFER if it does not fit. */
HL_API hl_status hl_shape_format(const hl_shape *s, char *buf, size_t cap);

/* N, the number of elements, and N * elem_size (both checked at init). */
HL_API int64_t hl_shape_count(const hl_shape *s);
HL_API int64_t hl_shape_bytes(const hl_shape *s);

/* Name of a type as the notation writes it ("int32", "bytes"); NULL if bad. */
HL_API const char *hl_dtype_name(hl_dtype t);
/* Size in bytes of a fixed-size type; 0 for HL_DTYPE_BYTES or a bad value. */
HL_API int64_t hl_dtype_size(hl_dtype t);
/* Parses a type name alone ("float32", "bytes12"); sets *t and *size. */
HL_API hl_status hl_dtype_parse(const char *name, hl_dtype *t, int64_t *size);

#ifdef __cplusplus
}
#endif

#endif
