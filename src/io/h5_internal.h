/* hyperlayout internal — the HDF5 helpers that the MPI part (src/mpi/darray_h5.c)
 * shares with src/io/h5.c.  Only with HDF5 (HL_HAVE_HDF5). */
#ifndef HYPERLAYOUT_H5_INTERNAL_H
#define HYPERLAYOUT_H5_INTERNAL_H

#include <hdf5.h>

#include "hyperlayout/h5.h"

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

/* A reader's HDF5 handles (owned by the reader). */
typedef struct hl_h5_reader_ids {
    hid_t file, dset, mem;
} hl_h5_reader_ids;
hl_h5_reader_ids hl_h5_reader_handles(const hl_h5_reader *r);

#endif
