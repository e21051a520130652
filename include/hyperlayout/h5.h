/* hyperlayout — HDF5 datasets as arrays (built when CMake finds HDF5:
 * Debian's libhdf5-dev or libhdf5-openmpi-dev; without it every function
 * here returns HL_ERR_UNSUPPORTED and says so in *why).
 *
 * Dimension order: HDF5 lists a dataset's dimensions slowest first, as
 * NumPy's shape does (h5py hands HDF5's dims over unchanged), so a dataset
 * of HDF5 dims (s0, ..., s(d-1)) is the array of extent[i] = s(d-1-i):
 * HDF5's LAST dimension is hyperlayout's dimension 0.  Elements are stored
 * in the file in the same order as in memory (C order), so a dataset read
 * here and written as .npy is the array h5py reads.
 *
 * Element types (the HDF5 file type -> hl_dtype; descr is NumPy's dtype.str
 * of what h5py reads):
 *   integer 1/2/4/8 bytes, either byte order   HL_DTYPE_INT* / UINT*  "<i4", ">u2"
 *   float 2/4/8 bytes (IEEE layouts)            HL_DTYPE_FLOAT16/32/64
 *   compound {r, i} of two floats of 4/8 bytes  HL_DTYPE_COMPLEX64/128 (h5py's complex)
 *   enum of 1 byte {FALSE=0, TRUE=1}            HL_DTYPE_BOOL (h5py's bool)
 *   another enum                                its base integer type
 *   fixed-length string of n bytes              HL_DTYPE_BYTES, "|S<n>"
 *   opaque, other compounds, arrays, bitfields  HL_DTYPE_BYTES, "|V<n>", the
 *                                               bytes as in the file
 * Loading converts numbers to this machine's byte order (HDF5 converts);
 * bytes elements are never converted.  Not supported (info.unsupported
 * names it): variable-length strings and sequences, references, time,
 * floats of other sizes, null dataspaces, more than HL_MAX_RANK dims, an
 * extent of 0.  A rank-0 (scalar) dataset has info.ndim 0 and is the
 * shape [1].
 *
 * Errors: HL_ERR_NOT_FOUND (no such file or dataset, or a path naming a
 * group), HL_ERR_FORMAT (not an HDF5 file, truncated or corrupt),
 * HL_ERR_UNSUPPORTED (a type above, or no HDF5), HL_ERR_ARG (bad creation
 * options, appending a name that exists), HL_ERR_RANGE (a range outside the
 * array), HL_ERR_MISMATCH, HL_ERR_IO, HL_ERR_NOMEM.
 * Every function that can fail takes why/cap: on error a one-line reason
 * naming the file, the dataset and HDF5's own message (HDF5's error stack is
 * captured, never printed; the caller's H5Eset_auto setting is restored).
 * docs/hdf5.md. */
#ifndef HYPERLAYOUT_H5_H
#define HYPERLAYOUT_H5_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base.h"
#include "shape.h"

#ifdef __cplusplus
extern "C" {
#endif

/* HDF5's own limit on a dataspace's rank. */
#define HL_H5_MAX_NDIM 32
#define HL_H5_DESCR_MAX 32
#define HL_H5_FILTERS_MAX 256

typedef struct hl_h5_info {
    hl_shape shape;                 /* valid when unsupported == NULL; [1] for a scalar */
    int ndim;                       /* HDF5's rank, 0 (scalar) to 32 */
    int64_t dims[HL_H5_MAX_NDIM];   /* HDF5's dims, slowest first (NumPy's shape) */
    char descr[HL_H5_DESCR_MAX];    /* NumPy's dtype.str ("<f4", "|b1", "<c16", "|S5") */
    char type[96];                  /* the HDF5 type in words ("compound {r,i} of float32") */
    bool chunked;                   /* chunked layout (else contiguous or compact) */
    int64_t chunk[HL_H5_MAX_NDIM];  /* chunk dims, slowest first, when chunked */
    char filters[HL_H5_FILTERS_MAX]; /* "deflate(4),shuffle", "" for none */
    int nattrs;                     /* attributes on the dataset */
    int64_t storage_bytes;          /* bytes the data takes in the file */
    const char *unsupported;        /* NULL, or a static phrase naming the obstacle */
} hl_h5_info;

/* HL_OK when the library was built with HDF5, else HL_ERR_UNSUPPORTED. */
HL_API hl_status hl_h5_available(void);

/* What dataset DATASET ("/group/name"; a relative name is taken from the
 * root) of the HDF5 file PATH holds. */
HL_API hl_status hl_h5_info_get(const char *path, const char *dataset, hl_h5_info *info, char *why,
                         size_t cap);

/* Calls visit for every dataset of the file (depth first, names in
 * creation-independent alphabetical order): its full name ("/a/b") and
 * its info.  A non-zero return from visit stops the walk (HL_OK). */
typedef int (*hl_h5_visit)(const char *name, const hl_h5_info *info, void *user);
HL_API hl_status hl_h5_list(const char *path, hl_h5_visit visit, void *user, char *why, size_t cap);

/* ---- reading, range by range ---------------------------------------- */
typedef struct hl_h5_reader hl_h5_reader;

/* Opens the dataset and fills *info (info may be NULL).  HL_ERR_UNSUPPORTED
 * when info.unsupported is set (the message names it). */
HL_API hl_status hl_h5_reader_open(hl_h5_reader **r, const char *path, const char *dataset,
                            hl_h5_info *info, char *why, size_t cap);
/* Reads `count` elements from element `first` of the array in C order
 * (HDF5's order) into buf: at most 2*ndim hyperslabs, each into a memory
 * space of its own shape, so memory stays what the caller gives. */
HL_API hl_status hl_h5_reader_read(hl_h5_reader *r, int64_t first, int64_t count, void *buf, char *why,
                            size_t cap);
HL_API const hl_h5_info *hl_h5_reader_info(const hl_h5_reader *r);
HL_API void hl_h5_reader_close(hl_h5_reader *r);

/* The whole dataset into a new 64-byte aligned buffer (free()), as
 * hl_npy_load; *info may be NULL. */
HL_API hl_status hl_h5_load(const char *path, const char *dataset, hl_h5_info *info, void **data,
                     char *why, size_t cap);

/* ---- writing, range by range ---------------------------------------- */
typedef struct hl_h5_write_options {
    bool append;            /* add DATASET to the existing file PATH (it must not exist
                               there; groups on its path are created).  The file is
                               edited in a copy beside it, renamed over it at commit:
                               on any failure PATH is as it was.  false: a new file
                               holding DATASET only, renamed over PATH at commit */
    const int64_t *chunk;   /* chunk dims, slowest first (HDF5's order); NULL: contiguous,
                               unless deflate/shuffle ask for chunks (then ~1 MiB chunks
                               of whole fast rows) */
    int deflate;            /* 0: none; 1..9: gzip level */
    bool shuffle;           /* the shuffle filter before deflate */
    bool scalar;            /* a rank-0 dataset (the shape must hold one element) */
    const char *descr;      /* for HL_DTYPE_BYTES: "|S<n>" writes fixed-length strings,
                               anything else (NULL) opaque bytes */
    const hl_h5_reader *like; /* when set: the dataset takes this one's HDF5 element
                                 type (byte order, compound names kept; its size must be
                                 s's element size) and its attributes are copied (those
                                 holding references left out) */
} hl_h5_write_options;

typedef struct hl_h5_writer hl_h5_writer;

/* Creates DATASET of shape s (extents L0 first: HDF5 dims reversed) in a
 * temporary beside PATH.  opt may be NULL. */
HL_API hl_status hl_h5_writer_open(hl_h5_writer **w, const char *path, const char *dataset,
                            const hl_shape *s, const hl_h5_write_options *opt, char *why,
                            size_t cap);
/* Writes count elements at element `first` (C order) from buf. */
HL_API hl_status hl_h5_writer_write(hl_h5_writer *w, int64_t first, int64_t count, const void *buf,
                             char *why, size_t cap);
/* Closes the file, syncs it and renames it over PATH; frees w either way. */
HL_API hl_status hl_h5_writer_commit(hl_h5_writer *w, char *why, size_t cap);
/* Removes the temporary; PATH untouched.  NULL allowed. */
HL_API void hl_h5_writer_abort(hl_h5_writer *w);

/* One call: the whole array. */
HL_API hl_status hl_h5_save(const char *path, const char *dataset, const hl_shape *s, const void *data,
                     const hl_h5_write_options *opt, char *why, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
