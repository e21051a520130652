/* hyperlayout (internal) — a .npy descr (NumPy's dtype.str, or the list of
 * fields of a structured dtype) to what hyperlayout needs to hold its data:
 * the element size, the hl_dtype, whether loading must swap bytes. */
#ifndef HYPERLAYOUT_NPY_DESCR_H
#define HYPERLAYOUT_NPY_DESCR_H

#include <stdbool.h>
#include <stdint.h>

#include "hyperlayout/npy.h"
#include "pylit.h"

typedef struct hl_npy_dtype {
    hl_dtype dtype;          /* simple numeric types; HL_DTYPE_BYTES for the rest */
    int64_t itemsize;        /* -1: not known (object, or a descr hyperlayout does not know) */
    bool swapped;            /* numeric, multi-byte, the byte order foreign to this host */
    bool structured;
    const char *unsupported; /* NULL, or why the data cannot be held as raw elements */
    char descr[HL_NPY_DESCR_MAX]; /* canonical (simple) or verbatim (structured) */
} hl_npy_dtype;

/* v: the parsed value of the header's 'descr' key.  HL_ERR_FORMAT when it is
 * not a dtype at all (not a string; a list that is not a list of fields);
 * HL_ERR_BYTES_OVERFLOW when the itemsize overflows int64.  A string that is
 * not a dtype hyperlayout knows is HL_OK with `unsupported` set. */
hl_status hl_npy_descr_parse(const hl_pyval *v, bool long_suffix, hl_npy_dtype *out);

bool hl_npy_host_little_endian(void);

#endif
