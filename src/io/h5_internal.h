/* hyperlayout internal — the HDF5 helpers that the files of src/io/h5*.c
 * and the MPI part (src/mpi/darray_h5.c) share.  Only with HDF5 (HL_HAVE_HDF5). */
#ifndef HYPERLAYOUT_H5_INTERNAL_H
#define HYPERLAYOUT_H5_INTERNAL_H

#include <hdf5.h>

#include "hyperlayout/h5.h"
#include "hyperlayout/mpi_core.h" /* the exported ones, declared first */

/* HDF5's automatic error printing switched off, and restored. */
typedef struct hl_h5_quiet {
    H5E_auto2_t func;
    void *data;
} hl_h5_quiet;
void hl_h5_quiet_on(hl_h5_quiet *q);
void hl_h5_quiet_off(const hl_h5_quiet *q);

/* Says that an H5Fclose failed (its writes could not be flushed): HDF5 is
 * then not closed at exit, where it would try to flush that file for ever
 * (see h5.c, "the library's end"). */
void hl_h5_close_failed(void);

/* HDF5's error stack as "HDF5: outermost (innermost)", then cleared. */
void hl_h5_reason(char *buf, size_t cap);

/* The file (HL_ERR_NOT_FOUND, HL_ERR_FORMAT with a message) and a dataset
 * in it (HL_ERR_NOT_FOUND for a missing one or a group). */
hl_status hl_h5_open_file(const char *path, bool write, hid_t fapl, hid_t *file, char *why,
                          size_t cap);
hl_status hl_h5_open_dataset(hid_t file, const char *path, const char *dataset, hid_t *d,
                             char *why, size_t cap);

/* [first, first + count) in C order as a selection of space (2*ndim boxes at most). */
hl_status hl_h5_select_range(hid_t space, int ndim, const int64_t *dims, int64_t first,
                             int64_t count);

/* The file type for s (descr chooses strings or opaque for bytes) and its
 * memory type in *mem; -1 on failure. */
hid_t hl_h5_file_type(const hl_shape *s, const char *descr, hid_t *mem);

/* The dataset creation list of opt (chunks, filters); *st and what on error. */
hid_t hl_h5_dcpl(const hl_h5_write_options *opt, int ndim, const int64_t *dims, int64_t elem,
                 hl_status *st, char *what, size_t cap);
void hl_h5_auto_chunk(int ndim, const int64_t *dims, int64_t elem, hsize_t *chunk);

/* The lists a dataset of dims (HDF5's order; ndim 0: a scalar) is created
 * with, beside its type: its space, hl_h5_dcpl's creation list (*st and
 * what on error) and a link-creation list that makes missing groups, as
 * the serial and the collective writers both create one. */
void hl_h5_create_lists(const hl_h5_write_options *opt, int ndim, const int64_t *dims,
                        int64_t elem, hl_status *st, char *what, size_t cap, hid_t *space,
                        hid_t *dcpl, hid_t *lcpl);

/* Closes those of a dataset creation's handles that were made (>= 0). */
void hl_h5_close_create(hid_t space, hid_t dcpl, hid_t lcpl, hid_t ftype);

/* A dataset's info and the memory type to read it as (-1 when unsupported). */
void hl_h5_dataset_info(hid_t d, hl_h5_info *info, hid_t *mem);

/* hl_atomic_lock on PATH, its failure in why ("another program has the
 * file open for writing" for HDF5's lock held): HL_ERR_IO. */
hl_status hl_h5_lock_target(const char *path, int *lock, char *why, size_t cap);

/* File type ft as a dataset's type is classified (info's descr, type and
 * unsupported; the type metadata checked first) and *mem the memory type
 * a read converts it to (-1 when unsupported): for the type fuzzer. */
void hl_h5_classify(hid_t ft, hl_h5_info *info, hid_t *mem);

/* Copies every attribute of object from onto object to; the failures. */
int hl_h5_copy_attributes(hid_t from, hid_t to);

/* A reader (h5_read.c; h5_write.c copies its attributes). */
struct hl_h5_reader {
    hid_t file, dset, mem;
    hl_h5_info info;
    char *path, *name;
};

/* A reader's HDF5 handles (owned by the reader). */
typedef struct hl_h5_reader_ids {
    hid_t file, dset, mem;
} hl_h5_reader_ids;
hl_h5_reader_ids hl_h5_reader_handles(const hl_h5_reader *r);

/* ---- shared by the parts of h5.c (h5.c, h5_types.c, h5_probe.c, h5_read.c,
 * h5_write.c) ------------------------------------------------------------- */

/* "PATH:DATASET: WHAT: HDF5's reason" */
hl_status hl_h5_fail(hl_status st, char *why, size_t cap, const char *path, const char *dset,
                     bool hdf5, const char *fmt, ...);

/* IEEE half precision, little-endian (h5py's float16); h5py's bool (an
 * enum of int8 {FALSE = 0, TRUE = 1}); h5py's complex (a compound {r, i}
 * of two floats).  -1 on failure. */
hid_t hl_h5_make_f16(void);
hid_t hl_h5_make_bool(void);
hid_t hl_h5_make_complex(hid_t part, size_t half);

/* t and the types inside it that a read converts (an enum's base, the
 * members of a compound) sound; text says what is not. */
bool hl_h5_types_sound(hid_t t, char *text, size_t cap);

/* An attribute's type and element count n checked against the file before
 * HDF5 converts it (h5_types.c); else false and why. */
bool hl_h5_attr_sound(hid_t loc, const char *name, hid_t t, hssize_t n, char *why, size_t cap);

/* The boxes of the array's range [first, first + count) in C order (at
 * most 2 * ndim), in order: *pos (from first) advances past each one. */
bool hl_h5_next_box(int ndim, const int64_t *dims, int64_t *pos, int64_t end, hsize_t *start,
                    hsize_t *cnt);

/* HL_OK when the metadata of path (dataset; NULL: every object) decoded in
 * a child (h5_probe.c); else HL_ERR_FORMAT and why. */
hl_status hl_h5_probe(const char *path, const char *dataset, char *why, size_t cap);

/* count elements at first, between the dataset and buf, either way, box by
 * box (h5_read.c). */
hl_status hl_h5_transfer(hid_t dset, hid_t mem, int ndim, const int64_t *dims, int64_t first,
                         int64_t count, void *buf, bool write, hid_t dxpl, char *reason,
                         size_t rcap);

#endif
