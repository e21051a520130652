/* hyperlayout — NumPy .npy files (format versions 1.0, 2.0 and 3.0).
 *
 * A .npy file is a 6-byte magic "\x93NUMPY", a version (major, minor), the
 * header length (2 bytes little-endian for 1.0, 4 bytes for 2.0 and 3.0), the
 * header — a Python dict literal
 *     {'descr': '<f4', 'fortran_order': False, 'shape': (4096, 4095), }
 * padded with spaces and ending in '\n' — and the raw data.
 *
 * hyperlayout reads and writes arrays in C order and native (little-endian)
 * byte order of the types below; everything else is HL_ERR_UNSUPPORTED:
 *
 *   descr        hl_dtype              descr        hl_dtype
 *   |b1          HL_DTYPE_BOOL         <f2          HL_DTYPE_FLOAT16
 *   |i1 <i2 <i4 <i8  HL_DTYPE_INT*     <f4 <f8      HL_DTYPE_FLOAT32/64
 *   |u1 <u2 <u4 <u8  HL_DTYPE_UINT*    <c8 <c16     HL_DTYPE_COMPLEX64/128
 *   |V<n>        HL_DTYPE_BYTES (elem_size n); untyped shapes are written as |V<elem_size>
 *
 * A NumPy shape (s0,...,s(d-1)) becomes extent[i] = s(d-1-i): the last NumPy
 * axis, the fastest varying one in C order, is dimension 0.
 *
 * Status codes: HL_ERR_FORMAT for anything malformed or truncated (bad
 * magic, bad version, header or data shorter than announced, a header that is
 * not a dict literal with exactly the keys descr, fortran_order and shape);
 * HL_ERR_UNSUPPORTED for valid files hyperlayout cannot hold (Fortran order,
 * big-endian, object, structured and other dtypes, rank 0 or above
 * HL_MAX_RANK, an extent of zero, a header above HL_NPY_MAX_HEADER bytes);
 * HL_ERR_OVERFLOW when an extent or the element count overflows int64,
 * HL_ERR_BYTES_OVERFLOW when the byte count or the end of the data (data
 * offset plus data bytes) does; HL_ERR_IO when the operating system fails
 * (errno tells why). */
#ifndef HYPERLAYOUT_NPY_H
#define HYPERLAYOUT_NPY_H

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

/* Capacity of hl_npy_info.descr: "|V" and 19 digits fit. */
#define HL_NPY_DESCR_MAX 32

typedef struct hl_npy_info {
    hl_shape shape;                /* extents L0 first, dtype and element size */
    int version_major;             /* 1, 2 or 3 */
    int version_minor;             /* 0 */
    char descr[HL_NPY_DESCR_MAX];  /* canonical descr, as NumPy prints dtype.str: "<f4", "|V12" */
    int64_t header_len;            /* the header length field: dict, padding and newline */
    int64_t data_offset;           /* bytes before the data: preamble plus header_len */
    int64_t data_bytes;            /* N * elem_size */
    int64_t file_bytes;            /* size of the file; -1 when not known (parse_header,
                                      or not a regular file) */
} hl_npy_info;

/* Parses the preamble and header at the start of buf (len bytes; bytes after
 * the header, the data, are ignored).  HL_ERR_FORMAT when len is shorter
 * than the header announces.  file_bytes is set to -1.  On error *info is
 * left unchanged.  Reads nothing outside [buf, buf + len). */
hl_status hl_npy_parse_header(const void *buf, size_t len, hl_npy_info *info);

/* Reads and parses the header of a file and checks that the file holds
 * all the data the header announces (HL_ERR_FORMAT otherwise; bytes after
 * the data are allowed, as NumPy allows them). */
hl_status hl_npy_read_header(const char *path, hl_npy_info *info);

/* Reads a whole file: on success *shape is the array's shape and *data a new
 * 64-byte aligned buffer of hl_shape_bytes(shape) bytes that the caller
 * releases with free().  On error *data is NULL and *shape unchanged. */
hl_status hl_npy_load(const char *path, hl_shape *shape, void **data);

/* Reads a file into the caller's buffer of hl_shape_bytes(expect) bytes.
 * HL_ERR_MISMATCH unless the file's rank, extents and element size equal
 * those of expect and its dtype is expect's (HL_DTYPE_NONE and
 * HL_DTYPE_BYTES of the same size match each other).  On error the buffer
 * may have been partly written. */
hl_status hl_npy_load_into(const char *path, const hl_shape *expect, void *data);

/* Writes the preamble and header for shape s into buf (cap bytes): version
 * 1.0 when the header length fits in 2 bytes, else 2.0; the data start is a
 * multiple of 64 bytes; the dict is byte for byte what NumPy writes.  *len
 * is set to the header's size (the data offset) even when the status is
 * HL_ERR_BUFFER (cap too small; buf may then be NULL). */
hl_status hl_npy_format_header(const hl_shape *s, void *buf, size_t cap, size_t *len);

/* Writes a .npy file of shape s from data (hl_shape_bytes(s) bytes) with the
 * header of hl_npy_format_header.  Atomic: the file is written to a new
 * temporary file in the same directory, flushed to disk (fsync), then
 * renamed over path.  On error the temporary file is removed and an existing
 * file at path is left untouched.  A replaced file keeps its permission
 * bits; a new one gets 0666 less the umask. */
hl_status hl_npy_save(const char *path, const hl_shape *s, const void *data);

#ifdef __cplusplus
}
#endif

#endif
