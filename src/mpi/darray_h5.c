/* hyperlayout — collective HDF5 datasets of distributed arrays (parallel
 * HDF5 over MPI-IO).  Every process selects its blocks (boxes of the
 * dataset, halos left out) as one union of hyperslabs; HDF5 visits a
 * selection in the dataset's C order, so the process's cells go through a
 * buffer packed in that order: its blocks' rows sorted by their place in
 * the dataset.  One collective H5Dwrite / H5Dread per call, whatever the
 * distribution (block, cyclic, block-cyclic, UPC tiles). */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "darray_internal.h"

#ifndef HL_HAVE_PARALLEL_HDF5

hl_status hl_darray_write_h5(const hl_darray *a, const char *path, const char *dataset,
                             const hl_h5_write_options *opt, char *why, size_t cap)
{
    (void)a, (void)path, (void)dataset, (void)opt;
    if (why && cap)
        snprintf(why, cap, "this hyperlayout was built without parallel HDF5 (install "
                           "libhdf5-openmpi-dev, scripts/deps.sh, and rebuild)");
    return HL_ERR_UNSUPPORTED;
}

hl_status hl_darray_read_h5(hl_darray *a, const char *path, const char *dataset, char *why,
                            size_t cap)
{
    return hl_darray_write_h5(a, path, dataset, NULL, why, cap);
}

#else

#include <hdf5.h>

#include "io/atomic.h"
#include "io/h5_internal.h"

/* The file selection of this process's blocks (HDF5's order: dims reversed). */
static hl_status select_blocks(const hl_darray *a, hid_t space)
{
    darray_box b;
    bool first = true;
    H5Sselect_none(space);
    for (int64_t j = 0; j < a->nblocks; j++) {
        darray_block(a, a->me, j, &b);
        hsize_t start[HL_MAX_RANK], count[HL_MAX_RANK];
        bool empty = false;
        for (int i = 0; i < a->rank; i++) {
            start[a->rank - 1 - i] = (hsize_t)b.start[i];
            count[a->rank - 1 - i] = (hsize_t)b.owned[i];
            empty = empty || b.owned[i] <= 0;
        }
        if (empty)
            continue;
        if (H5Sselect_hyperslab(space, first ? H5S_SELECT_SET : H5S_SELECT_OR, start, NULL, count,
                                NULL) < 0)
            return HL_ERR_FORMAT;
        first = false;
    }
    return HL_OK;
}

/* Packs (or unpacks) the local memory's owned cells to (from) buf in the
 * dataset's order. */
static void pack(const hl_darray *a, const darray_run *r, int64_t n, char *buf, bool to_buf)
{
    const size_t e = (size_t)a->elem_size;
    int64_t at = 0;
    for (int64_t k = 0; k < n; k++) {
        char *mem = a->data + (size_t)r[k].mem * e;
        if (to_buf)
            memcpy(buf + (size_t)at * e, mem, (size_t)r[k].len * e);
        else
            memcpy(mem, buf + (size_t)at * e, (size_t)r[k].len * e);
        at += r[k].len;
    }
}

static hid_t mpio_fapl(const hl_darray *a)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl >= 0 && H5Pset_fapl_mpio(fapl, a->comm, MPI_INFO_NULL) < 0) {
        H5Pclose(fapl);
        return -1;
    }
    return fapl;
}

/* The collective read or write of p between the file selection fs and the
 * memory selection ms (created with the transfer list dxpl), then the three
 * closed.  Every process makes the call, also one that failed before it (st)
 * or has nothing to move (none): with nothing selected, so that the others
 * do not wait for it for ever.  The status; HDF5's reason on failure. */
static hl_status collective(hid_t dset, hid_t mem, hid_t fs, hid_t ms, hid_t dxpl, bool write,
                            void *p, hl_status st, bool none, char *reason, size_t rcap)
{
    if (st != HL_OK || none) {
        if (fs >= 0)
            H5Sselect_none(fs);
        if (ms >= 0)
            H5Sselect_none(ms);
    }
    herr_t e = -1;
    if (fs >= 0 && ms >= 0 && dxpl >= 0)
        e = write ? H5Dwrite(dset, mem, ms, fs, dxpl, p) : H5Dread(dset, mem, ms, fs, dxpl, p);
    if (e < 0 && st == HL_OK)
        st = write ? HL_ERR_IO : HL_ERR_FORMAT;
    if (st != HL_OK)
        hl_h5_reason(reason, rcap);
    if (fs >= 0)
        H5Sclose(fs);
    if (ms >= 0)
        H5Sclose(ms);
    if (dxpl >= 0)
        H5Pclose(dxpl);
    return st;
}

/* A process holding one block (block / none distributions): the file
 * selection is its box, the memory selection the same box inside its frame
 * (halo and padding left out), both the same shape: no packing. */
static hl_status transfer_one(hl_darray *a, hid_t dset, hid_t mem, bool write, char *reason,
                              size_t rcap)
{
    darray_box b;
    darray_block(a, a->me, 0, &b);
    hsize_t frame[HL_MAX_RANK], start[HL_MAX_RANK], count[HL_MAX_RANK];
    bool empty = false;
    for (int i = 0; i < a->rank; i++) {
        const int k = a->rank - 1 - i;
        frame[k] = (hsize_t)a->local[i];
        start[k] = (hsize_t)a->lo[i];
        count[k] = (hsize_t)(b.owned[i] > 0 ? b.owned[i] : 0);
        empty = empty || b.owned[i] <= 0;
    }
    hid_t fs = H5Dget_space(dset), ms = H5Screate_simple(a->rank, frame, NULL);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    hl_status st = fs >= 0 && ms >= 0 && dxpl >= 0 &&
                   H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE) >= 0 ? HL_OK : HL_ERR_FORMAT;
    if (st == HL_OK && !empty) {
        if (H5Sselect_hyperslab(ms, H5S_SELECT_SET, start, NULL, count, NULL) < 0)
            st = HL_ERR_FORMAT;
        else
            st = select_blocks(a, fs);
    }
    return collective(dset, mem, fs, ms, dxpl, write, a->data, st, empty, reason, rcap);
}

/* The collective transfer of this process's cells; dset open on every process. */
static hl_status transfer(hl_darray *a, hid_t dset, hid_t mem, bool write, char *reason,
                          size_t rcap)
{
    if (a->nblocks == 1) /* one box: HDF5 reads into (writes from) the frame itself */
        return transfer_one(a, dset, mem, write, reason, rcap);
    darray_run *r = NULL;
    int64_t n = 0, cells = 0;
    hl_status st = darray_rows(a, &r, &n, &cells);
    char *buf = st == HL_OK ? malloc((size_t)(cells > 0 ? cells : 1) * (size_t)a->elem_size) : NULL;
    if (st == HL_OK && !buf)
        st = HL_ERR_NOMEM;
    hid_t fs = H5Dget_space(dset);
    const hsize_t one = (hsize_t)(cells > 0 ? cells : 1);
    hid_t ms = H5Screate_simple(1, &one, NULL);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    if (fs < 0 || ms < 0 || dxpl < 0 || H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE) < 0)
        st = st == HL_OK ? HL_ERR_FORMAT : st;
    if (st == HL_OK)
        st = select_blocks(a, fs);
    if (st == HL_OK && cells == 0)
        H5Sselect_none(ms);
    if (buf && write)
        pack(a, r, n, buf, true);
    char dummy[64];
    st = collective(dset, mem, fs, ms, dxpl, write, buf ? (void *)buf : (void *)dummy, st, false,
                    reason, rcap);
    if (st == HL_OK && !write)
        pack(a, r, n, buf, false);
    free(buf);
    free(r);
    return st;
}

/* What hl_darray_write_h5 holds between its collective steps. */
typedef struct {
    const hl_darray *a;
    const char *path, *name;
    const hl_h5_write_options *opt;
    char *why;
    size_t cap;
    char tmp[4096]; /* the temporary file, named by process 0 */
    hid_t fapl, file, dset, space, dcpl, lcpl, ft, mem;
    int lock; /* process 0: hl_atomic_lock's on the existing file, or -1 */
} h5_write;

/* The request checked, and on process 0 the temporary (a copy of the file
 * to append to) begun.  This process's status. */
static hl_status write_begin(h5_write *w)
{
    const hl_h5_write_options *opt = w->opt;
    hl_status st = w->path ? HL_OK : HL_ERR_NULL;
    if (st == HL_OK && (opt->scalar || opt->like)) {
        snprintf(w->why, w->cap,
                 "%s:%s: scalar datasets and copied types are not written collectively", w->path,
                 w->name);
        st = HL_ERR_UNSUPPORTED;
    }
    if (w->a->me != 0 || st != HL_OK)
        return st;
    char *t = NULL;
    st = hl_h5_lock_target(w->path, &w->lock, w->why, w->cap); /* held until write_commit */
    if (st != HL_OK)
        return st;
    if (opt->append && H5Fis_hdf5(w->path) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        snprintf(w->why, w->cap, "%s: not an existing HDF5 file: cannot add a dataset to it",
                 w->path);
        st = HL_ERR_NOT_FOUND;
    } else if (hl_atomic_begin(w->path, opt->append, &t) != HL_OK) {
        snprintf(w->why, w->cap, "%s: cannot write beside it: %s", w->path, strerror(errno));
        st = HL_ERR_IO;
    } else if (strlen(t) >= sizeof w->tmp) {
        hl_atomic_cancel(t);
        st = HL_ERR_ARG;
    } else {
        snprintf(w->tmp, sizeof w->tmp, "%s", t);
        free(t);
    }
    return st;
}

/* The temporary opened (appending) or created by every process together.
 * This process's status. */
static hl_status write_open(h5_write *w)
{
    w->fapl = mpio_fapl(w->a);
    if (w->fapl < 0)
        return HL_ERR_COMM;
    w->file = w->opt->append ? H5Fopen(w->tmp, H5F_ACC_RDWR, w->fapl)
                             : H5Fcreate(w->tmp, H5F_ACC_TRUNC, H5P_DEFAULT, w->fapl);
    if (w->file >= 0)
        return HL_OK;
    char reason[700];
    hl_h5_reason(reason, sizeof reason);
    snprintf(w->why, w->cap, "%s: cannot %s: %s", w->path,
             w->opt->append ? "open its copy" : "create it", reason);
    return HL_ERR_IO;
}

/* The dataset's space, creation lists and types; only a new name can be
 * appended.  This process's status. */
static hl_status write_define(h5_write *w)
{
    const hl_darray *a = w->a;
    hl_status st = HL_OK;
    if (w->opt->append && H5Lexists(w->file, w->name, H5P_DEFAULT) > 0) {
        snprintf(w->why, w->cap, "%s:%s: exists already (append adds new datasets only)", w->path,
                 w->name);
        st = HL_ERR_ARG;
    }
    H5Eclear2(H5E_DEFAULT); /* H5Lexists' complaint about a missing group on the way */
    if (st != HL_OK)
        return st;
    int64_t dims[HL_MAX_RANK];
    for (int i = 0; i < a->rank; i++)
        dims[i] = a->shape.extent[a->rank - 1 - i];
    char what[256] = "";
    hl_h5_create_lists(w->opt, a->rank, dims, a->elem_size, &st, what, sizeof what, &w->space,
                       &w->dcpl, &w->lcpl);
    if (st != HL_OK)
        snprintf(w->why, w->cap, "%s:%s: %s", w->path, w->name, what);
    w->ft = hl_h5_file_type(&a->shape, w->opt->descr, &w->mem);
    if (st == HL_OK && w->ft < 0) {
        snprintf(w->why, w->cap, "%s:%s: no HDF5 type for %s", w->path, w->name,
                 hl_dtype_name(a->shape.dtype));
        st = HL_ERR_UNSUPPORTED;
    }
    return st;
}

/* The dataset created by every process together.  This process's status. */
static hl_status write_create(h5_write *w)
{
    w->dset = H5Dcreate2(w->file, w->name, w->ft, w->space, w->lcpl, w->dcpl, H5P_DEFAULT);
    if (w->dset >= 0)
        return HL_OK;
    char reason[700];
    hl_h5_reason(reason, sizeof reason);
    snprintf(w->why, w->cap, "%s:%s: cannot create the dataset: %s", w->path, w->name, reason);
    return HL_ERR_ARG;
}

/* The cells written by every process together.  This process's status. */
static hl_status write_cells(h5_write *w)
{
    char reason[700];
    /* transfer reads a->data only, when it writes */
    const hl_status st = transfer((hl_darray *)(uintptr_t)w->a, w->dset, w->mem, true, reason,
                                  sizeof reason);
    if (st != HL_OK)
        snprintf(w->why, w->cap, "%s:%s: cannot write: %s", w->path, w->name, reason);
    return st;
}

/* Everything open closed, on every process whatever st; a failed close of
 * the dataset or of the file (the collective flush) fails the write. */
static hl_status write_close(h5_write *w, hl_status st)
{
    if (w->dset >= 0 && H5Dclose(w->dset) < 0 && st == HL_OK)
        st = HL_ERR_IO;
    hl_h5_close_create(w->space, w->dcpl, w->lcpl, w->ft);
    if (w->mem >= 0)
        H5Tclose(w->mem);
    if (w->file >= 0 && H5Fclose(w->file) < 0) {
        hl_h5_close_failed();
        st = st == HL_OK ? HL_ERR_IO : st;
    }
    if (w->fapl >= 0)
        H5Pclose(w->fapl);
    return st;
}

/* Process 0 puts the temporary in place after a write every process agrees
 * succeeded (st), else removes it: the file appears whole, or nothing
 * changes.  This process's status. */
static hl_status write_commit(h5_write *w, hl_status st)
{
    if (w->a->me != 0)
        return st;
    char *t = strdup(w->tmp);
    if (st == HL_OK && t && hl_atomic_finish(t, w->path) != HL_OK) {
        snprintf(w->why, w->cap, "%s: cannot put the file in place: %s", w->path, strerror(errno));
        st = HL_ERR_IO;
    } else if (st != HL_OK || !t) {
        hl_atomic_cancel(t);
        st = st == HL_OK ? HL_ERR_NOMEM : st;
    }
    hl_atomic_unlock(w->lock); /* after the rename: the next writer copies this file */
    w->lock = -1;
    return st;
}

/* Each step's status is agreed by every process before the next, and every
 * process makes every agree in the same order whatever failed, so that a
 * failure anywhere reaches all as a status (with the first failing
 * process's reason) and no collective call waits for ever. */
hl_status hl_darray_write_h5(const hl_darray *a, const char *path, const char *dataset,
                             const hl_h5_write_options *opt, char *why, size_t cap)
{
    if (!a)
        return HL_ERR_NULL;
    if (why && cap)
        why[0] = '\0';
    const hl_h5_write_options none = {0};
    h5_write w = {.a = a, .path = path, .name = dataset && dataset[0] ? dataset : "/data",
                  .opt = opt ? opt : &none, .why = why, .cap = cap, .tmp = "", .fapl = -1,
                  .file = -1, .dset = -1, .space = -1, .dcpl = -1, .lcpl = -1, .ft = -1,
                  .mem = -1, .lock = -1};
    hl_h5_quiet q;
    hl_h5_quiet_on(&q);
    hl_status st = hl_mpi_agree(a->comm, write_begin(&w), why, cap);
    if (st != HL_OK) {
        if (w.tmp[0]) /* process 0 began; another process failed */
            hl_atomic_cancel(strdup(w.tmp));
        hl_atomic_unlock(w.lock);
        hl_h5_quiet_off(&q);
        return st;
    }
    MPI_Bcast(w.tmp, sizeof w.tmp, MPI_CHAR, 0, a->comm);
    st = hl_mpi_agree(a->comm, write_open(&w), why, cap);
    st = hl_mpi_agree(a->comm, st == HL_OK ? write_define(&w) : st, why, cap);
    st = hl_mpi_agree(a->comm, st == HL_OK ? write_create(&w) : st, why, cap);
    if (st == HL_OK)
        st = write_cells(&w);
    st = hl_mpi_agree(a->comm, write_close(&w, st), why, cap);
    st = hl_mpi_agree(a->comm, write_commit(&w, st), why, cap);
    hl_h5_quiet_off(&q);
    return st;
}

hl_status hl_darray_read_h5(hl_darray *a, const char *path, const char *dataset, char *why,
                            size_t cap)
{
    if (!a)
        return HL_ERR_NULL;
    if (why && cap)
        why[0] = '\0';
    hl_h5_quiet q;
    hl_h5_quiet_on(&q);
    hl_status st = path ? HL_OK : HL_ERR_NULL;
    /* process 0 checks the file first, so that a missing one is one message */
    if (a->me == 0 && st == HL_OK) {
        hl_h5_info info;
        st = hl_h5_info_get(path, dataset, &info, why, cap);
        if (st == HL_OK && info.unsupported) {
            snprintf(why, cap, "%s:%s: unsupported: %s", path, dataset, info.unsupported);
            st = HL_ERR_UNSUPPORTED;
        }
        bool same = st == HL_OK && info.shape.rank == a->rank && info.ndim == a->rank &&
                    info.shape.elem_size == a->elem_size;
        for (int i = 0; same && i < a->rank; i++)
            same = info.shape.extent[i] == a->shape.extent[i];
        if (st == HL_OK && !same) {
            char t1[HL_SHAPE_NOTATION_MAX], t2[HL_SHAPE_NOTATION_MAX];
            hl_shape_format(&info.shape, t1, sizeof t1);
            hl_shape_format(&a->shape, t2, sizeof t2);
            snprintf(why, cap, "%s:%s: holds %s, the array is %s", path, dataset, t1, t2);
            st = HL_ERR_MISMATCH;
        }
    }
    st = hl_mpi_agree(a->comm, st, why, cap);
    if (st != HL_OK) {
        hl_h5_quiet_off(&q);
        return st;
    }
    hid_t fapl = mpio_fapl(a), file = -1, dset = -1, mem = -1;
    st = fapl < 0 ? HL_ERR_COMM : HL_OK;
    if (st == HL_OK)
        st = hl_h5_open_file(path, false, fapl, &file, why, cap);
    if (st == HL_OK)
        st = hl_h5_open_dataset(file, path, dataset, &dset, why, cap);
    if (st == HL_OK) {
        hl_h5_info info;
        hl_h5_dataset_info(dset, &info, &mem);
        if (mem < 0)
            st = HL_ERR_UNSUPPORTED;
    }
    st = hl_mpi_agree(a->comm, st, why, cap);
    if (st == HL_OK) {
        char reason[700];
        st = transfer(a, dset, mem, false, reason, sizeof reason);
        if (st != HL_OK) {
            snprintf(why, cap, "%s:%s: cannot read: %s", path, dataset, reason);
        }
    }
    if (mem >= 0)
        H5Tclose(mem);
    if (dset >= 0)
        H5Dclose(dset);
    if (file >= 0)
        H5Fclose(file);
    if (fapl >= 0)
        H5Pclose(fapl);
    st = hl_mpi_agree(a->comm, st, why, cap);
    hl_h5_quiet_off(&q);
    return st;
}

#endif
