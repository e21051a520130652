/* hyperlayout — NumPy .npy files (format versions 1.0, 2.0 and 3.0).
 *
 * A .npy file is a 6-byte magic "\x93NUMPY", a version (major, minor), the
 * header length (2 bytes little-endian for 1.0, 4 bytes for 2.0 and 3.0), the
 * header — a Python dict literal
 *     {'descr': '<f4', 'fortran_order': False, 'shape': (4096, 4095), }
 * padded with spaces and ending in '\n' — and the raw data.
 *
 * Every header NumPy writes parses: any dtype (simple or structured), C or
 * Fortran order, rank 0 to 64, zero extents.  hl_npy_info says what the file
 * holds in NumPy's terms (ndim, numpy_shape, descr) and, unless
 * info.unsupported names what prevents it, as an hl_shape.  Loading gives C
 * order and native byte order:
 *
 *   descr        hl_dtype              descr        hl_dtype
 *   |b1          HL_DTYPE_BOOL         <f2          HL_DTYPE_FLOAT16
 *   |i1 <i2 <i4 <i8  HL_DTYPE_INT*     <f4 <f8      HL_DTYPE_FLOAT32/64
 *   |u1 <u2 <u4 <u8  HL_DTYPE_UINT*    <c8 <c16     HL_DTYPE_COMPLEX64/128
 *   (and the same with '>': byte-swapped on load)
 *   anything else that has an element size: structured, |S<n>, <U<n>,
 *   <M8[..], <m8[..], <f16 (long double), |V<n>:  HL_DTYPE_BYTES, elem_size =
 *   NumPy's itemsize, the bytes as in the file (never swapped);
 *   untyped shapes are written as |V<elem_size>.
 *
 * A NumPy shape (s0,...,s(d-1)) becomes extent[i] = s(d-1-i): the last NumPy
 * axis, the fastest varying one in C order, is dimension 0 (also for a
 * Fortran-order file, whose data loading transposes).
 *
 * Status codes: HL_ERR_FORMAT for anything malformed or truncated (bad
 * magic, bad version, header or data shorter than announced, a header that is
 * not a dict literal with exactly the keys descr, fortran_order and shape, a
 * descr that is neither a string nor a list of (name, format[, shape])
 * fields); HL_ERR_UNSUPPORTED from the parsers only for a rank above
 * HL_NPY_MAX_NDIM or (file readers) a header above HL_NPY_MAX_HEADER, and
 * from the loaders for any file whose info.unsupported is set (object dtype,
 * a descr hyperlayout does not know, zero-size elements, 0-d, empty, rank
 * above HL_MAX_RANK); HL_ERR_OVERFLOW when an extent or the element count
 * overflows int64, HL_ERR_BYTES_OVERFLOW when the itemsize, the byte count or
 * the end of the data (data offset plus data bytes) does; HL_ERR_IO when the
 * operating system fails (errno tells why). */
#ifndef HYPERLAYOUT_NPY_H
#define HYPERLAYOUT_NPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base.h"
#include "shape.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest header (the dict with its padding) that the file readers accept;
 * a larger one is HL_ERR_UNSUPPORTED.  hl_npy_parse_header has no limit. */
#define HL_NPY_MAX_HEADER (1 << 20)

/* Capacity of hl_npy_info.descr: a structured dtype's field list. */
#define HL_NPY_DESCR_MAX 4096

/* Most axes a NumPy array has (NumPy 2's limit; NumPy 1's is 32). */
#define HL_NPY_MAX_NDIM 64

typedef struct hl_npy_info {
    hl_shape shape;                /* valid only when unsupported == NULL: extents L0 first
                                      (L0 = NumPy's LAST axis); dtype from the table above
                                      (also when swapped), HL_DTYPE_BYTES for the rest;
                                      elem_size = NumPy's itemsize */
    int version_major;             /* 1, 2 or 3 */
    int version_minor;             /* 0 */
    char descr[HL_NPY_DESCR_MAX];  /* simple dtypes: dtype.str as NumPy prints it ("<f4",
                                      ">f8", "|S5", "<M8[ns]", "|O"); structured: the list
                                      literal as written in the header; a descr hyperlayout
                                      does not know: as written */
    bool fortran_order;            /* data stored with NumPy's first axis fastest */
    bool swapped;                  /* multi-byte numeric data in the byte order foreign to
                                      this machine (loading swaps it) */
    bool structured;               /* descr is a list of fields */
    int ndim;                      /* NumPy's ndim, 0..HL_NPY_MAX_NDIM */
    int64_t numpy_shape[HL_NPY_MAX_NDIM]; /* NumPy's shape, in NumPy's order */
    const char *unsupported;       /* NULL when the data can be held as shape.elem_size-byte
                                      elements of `shape`; otherwise a static phrase naming
                                      the obstacle, for messages: "object dtype", "0-d array",
                                      "empty array (an extent is 0)", "rank above 32 (...)",
                                      "zero-size elements", "structured dtype too long",
                                      "a dtype hyperlayout does not know" */
    int64_t header_len;            /* the header length field: dict, padding and newline */
    int64_t data_offset;           /* bytes before the data: preamble plus header_len */
    int64_t data_bytes;            /* itemsize * element count; -1 when the itemsize is not
                                      known (object dtype: the data is a pickle; a descr
                                      hyperlayout does not know) */
    int64_t file_bytes;            /* size of the file; -1 when not known (parse_header,
                                      or not a regular file) */
} hl_npy_info;

/* Parses the preamble and header at the start of buf (len bytes; bytes after
 * the header, the data, are ignored).  HL_ERR_FORMAT when len is shorter
 * than the header announces.  file_bytes is set to -1.  On error *info is
 * left unchanged.  Reads nothing outside [buf, buf + len). */
HL_API hl_status hl_npy_parse_header(const void *buf, size_t len, hl_npy_info *info);

/* Reads and parses the header of a file and, when data_bytes >= 0, checks
 * that the file holds all the data the header announces (HL_ERR_FORMAT
 * otherwise; bytes after the data are allowed, as NumPy allows them). */
HL_API hl_status hl_npy_read_header(const char *path, hl_npy_info *info);

/* Array data as a .npy file stores it (Fortran order, foreign byte order)
 * converted to what hyperlayout holds (C order of info->shape, native byte
 * order), for callers that read or map the file themselves: dst gets the
 * info->data_bytes bytes of src converted.  src == dst is
 * allowed unless the data must move between buffers (a Fortran-order
 * array with more than one axis longer than 1).  A transposed src that is not
 * 64-byte aligned is first copied to an aligned buffer (one more copy of the
 * data in memory).  HL_ERR_UNSUPPORTED when
 * info->unsupported is set. */
HL_API hl_status hl_npy_to_native(const hl_npy_info *info, const void *src, void *dst);

/* A new 64-byte-aligned buffer of at least n bytes (at least one). */
HL_API hl_status hl_npy_alloc(int64_t n, void **p);

/* Reads a whole file: on success *shape is the array's shape and *data a new
 * 64-byte aligned buffer of hl_shape_bytes(shape) bytes that the caller
 * releases with free(), in C order and native byte order: a Fortran-order
 * file is transposed (through a temporary: the peak memory is twice the
 * data), a swapped one byte-swapped per number (each half of a complex).
 * HL_ERR_UNSUPPORTED when the header's `unsupported` is set.  On error *data
 * is NULL and *shape unchanged. */
HL_API hl_status hl_npy_load(const char *path, hl_shape *shape, void **data);

/* Reads a file into the caller's buffer of hl_shape_bytes(expect) bytes,
 * converted as hl_npy_load does (a Fortran-order file through a temporary of
 * the data's size).  HL_ERR_MISMATCH unless the file's rank, extents and element size equal
 * those of expect and its dtype is expect's (HL_DTYPE_NONE and
 * HL_DTYPE_BYTES of the same size match each other).  On error the buffer
 * may have been partly written. */
HL_API hl_status hl_npy_load_into(const char *path, const hl_shape *expect, void *data);

/* Writes the preamble and header for shape s into buf (cap bytes): version
 * 1.0 when the header length fits in 2 bytes, else 2.0; the data start is a
 * multiple of 64 bytes; the dict is byte for byte what NumPy writes.  *len
 * is set to the header's size (the data offset) even when the status is
 * HL_ERR_BUFFER (cap too small; buf may then be NULL). */
HL_API hl_status hl_npy_format_header(const hl_shape *s, void *buf, size_t cap, size_t *len);

/* The header for an array of info->shape (its extents), descr info->descr
 * (quoted when simple, verbatim when info->structured) and
 * info->fortran_order (the NumPy shape written is still the logical one, in
 * NumPy's order; NumPy's growth room follows its last axis then).  min_len 0:
 * the natural size (data start a multiple of 64, as hl_npy_format_header).
 * min_len > 0: padded with spaces to exactly min_len bytes (for rewriting a
 * header in place); HL_ERR_RANGE when it does not fit.  *len gets the size
 * even on HL_ERR_BUFFER.  Version 1.0, or 2.0 when the length needs 4 bytes;
 * 3.0 when the descr has bytes above 0x7F (UTF-8 field names) unless
 * info->version_major is 1 or 2 (a Latin-1 header copied).  The other
 * fields of info are not read.  HL_ERR_ARG for a descr that is not one
 * (an unterminated descr, quotes in a simple one, a structured one that is
 * not a list of fields); HL_ERR_UNSUPPORTED for a descr without an element
 * size (object, unknown); HL_ERR_MISMATCH when the descr's itemsize is not
 * shape.elem_size; the shape errors as hl_npy_format_header. */
HL_API hl_status hl_npy_format_header_info(const hl_npy_info *info, size_t min_len, void *buf, size_t cap,
                                    size_t *len);

/* Writes a .npy file of shape s from data (hl_shape_bytes(s) bytes) with the
 * header of hl_npy_format_header.  Atomic: the file is written to a new
 * temporary file in the same directory, flushed to disk (fsync), then
 * renamed over path.  On error the temporary file is removed and an existing
 * file at path is left untouched.  A replaced file keeps its permission
 * bits; a new one gets 0666 less the umask. */
HL_API hl_status hl_npy_save(const char *path, const hl_shape *s, const void *data);

#ifdef __cplusplus
}
#endif

#endif
