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

/* The status every process agrees on, and the first failing process's
 * reason in every why. */
static hl_status agree(const hl_darray *a, hl_status st, char *why, size_t cap)
{
    int mine = st != HL_OK ? a->me : a->procs, first = 0;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, a->comm);
    const hl_status all = darray_agree(a->comm, st);
    if (first < a->procs && why && cap) {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s", a->me == first ? (why[0] ? why : hl_strerror(st)) : "");
        MPI_Bcast(msg, sizeof msg, MPI_CHAR, first, a->comm);
        if (a->me != first || !why[0])
            snprintf(why, cap, "%s", msg[0] ? msg : hl_strerror(all));
    }
    return all;
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

hl_status hl_darray_write_h5(const hl_darray *a, const char *path, const char *dataset,
                             const hl_h5_write_options *opt, char *why, size_t cap)
{
    if (!a)
        return HL_ERR_NULL;
    if (why && cap)
        why[0] = '\0';
    const hl_h5_write_options none = {0};
    opt = opt ? opt : &none;
    const char *name = dataset && dataset[0] ? dataset : "/data";
    hl_h5_quiet q;
    hl_h5_quiet_on(&q);
    char tmp[4096] = "";
    hl_status st = path ? HL_OK : HL_ERR_NULL;
    if (st == HL_OK && (opt->scalar || opt->like)) {
        snprintf(why, cap, "%s:%s: scalar datasets and copied types are not written collectively",
                 path, name);
        st = HL_ERR_UNSUPPORTED;
    }
    /* process 0: the temporary (a copy of the file to append to), its name to all */
    if (a->me == 0 && st == HL_OK) {
        char *t = NULL;
        if (opt->append && H5Fis_hdf5(path) <= 0) {
            H5Eclear2(H5E_DEFAULT);
            snprintf(why, cap, "%s: not an existing HDF5 file: cannot add a dataset to it", path);
            st = HL_ERR_NOT_FOUND;
        } else if (hl_atomic_begin(path, opt->append, &t) != HL_OK) {
            snprintf(why, cap, "%s: cannot write beside it: %s", path, strerror(errno));
            st = HL_ERR_IO;
        } else if (strlen(t) >= sizeof tmp) {
            hl_atomic_cancel(t);
            st = HL_ERR_ARG;
        } else {
            snprintf(tmp, sizeof tmp, "%s", t);
            free(t);
        }
    }
    st = agree(a, st, why, cap);
    if (st != HL_OK) {
        hl_h5_quiet_off(&q);
        return st;
    }
    MPI_Bcast(tmp, sizeof tmp, MPI_CHAR, 0, a->comm);
    hid_t fapl = mpio_fapl(a), file = -1, dset = -1, space = -1, dcpl = -1, lcpl = -1, ft = -1,
          mem = -1;
    if (fapl < 0)
        st = HL_ERR_COMM;
    if (st == HL_OK) {
        file = opt->append ? H5Fopen(tmp, H5F_ACC_RDWR, fapl)
                           : H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
        if (file < 0) {
            char reason[700];
            hl_h5_reason(reason, sizeof reason);
            snprintf(why, cap, "%s: cannot %s: %s", path, opt->append ? "open its copy" : "create it",
                     reason);
            st = HL_ERR_IO;
        }
    }
    st = agree(a, st, why, cap);
    int64_t dims[HL_MAX_RANK];
    for (int i = 0; i < a->rank; i++)
        dims[i] = a->shape.extent[a->rank - 1 - i];
    if (st == HL_OK && opt->append && H5Lexists(file, name, H5P_DEFAULT) > 0) {
        snprintf(why, cap, "%s:%s: exists already (append adds new datasets only)", path, name);
        st = HL_ERR_ARG;
    }
    H5Eclear2(H5E_DEFAULT);
    if (st == HL_OK) {
        char what[256] = "";
        hl_h5_create_lists(opt, a->rank, dims, a->elem_size, &st, what, sizeof what, &space, &dcpl,
                           &lcpl);
        if (st != HL_OK)
            snprintf(why, cap, "%s:%s: %s", path, name, what);
        ft = hl_h5_file_type(&a->shape, opt->descr, &mem);
        if (st == HL_OK && ft < 0) {
            snprintf(why, cap, "%s:%s: no HDF5 type for %s", path, name,
                     hl_dtype_name(a->shape.dtype));
            st = HL_ERR_UNSUPPORTED;
        }
    }
    st = agree(a, st, why, cap);
    if (st == HL_OK) {
        dset = H5Dcreate2(file, name, ft, space, lcpl, dcpl, H5P_DEFAULT);
        if (dset < 0) {
            char reason[700];
            hl_h5_reason(reason, sizeof reason);
            snprintf(why, cap, "%s:%s: cannot create the dataset: %s", path, name, reason);
            st = HL_ERR_ARG;
        }
    }
    st = agree(a, st, why, cap);
    if (st == HL_OK) {
        char reason[700];
        st = transfer((hl_darray *)(uintptr_t)a, dset, mem, true, reason, sizeof reason);
        if (st != HL_OK) {
            snprintf(why, cap, "%s:%s: cannot write: %s", path, name, reason);
        }
    }
    if (dset >= 0 && H5Dclose(dset) < 0 && st == HL_OK)
        st = HL_ERR_IO;
    hl_h5_close_create(space, dcpl, lcpl, ft);
    if (mem >= 0)
        H5Tclose(mem);
    if (file >= 0 && H5Fclose(file) < 0 && st == HL_OK)
        st = HL_ERR_IO;
    if (fapl >= 0)
        H5Pclose(fapl);
    st = agree(a, st, why, cap);
    /* the file appears whole, or nothing changes */
    if (a->me == 0) {
        char *t = strdup(tmp);
        if (st == HL_OK && t && hl_atomic_finish(t, path) != HL_OK) {
            snprintf(why, cap, "%s: cannot put the file in place: %s", path, strerror(errno));
            st = HL_ERR_IO;
        } else if (st != HL_OK || !t) {
            hl_atomic_cancel(t);
            st = st == HL_OK ? HL_ERR_NOMEM : st;
        }
    }
    st = agree(a, st, why, cap);
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
    st = agree(a, st, why, cap);
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
    st = agree(a, st, why, cap);
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
    st = agree(a, st, why, cap);
    hl_h5_quiet_off(&q);
    return st;
}

#endif
