/* hyperlayout — HDF5 datasets written: the file type and creation lists,
 * attributes copied, and the writer (a temporary file replaced at commit). */
#define _XOPEN_SOURCE 700 /* posix_memalign, strdup */

#include "hyperlayout/h5.h"

#ifdef HL_HAVE_HDF5

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hdf5.h>

#include "atomic.h"
#include "h5_internal.h"

/* ---- writing --------------------------------------------------------- */

hl_status hl_h5_lock_target(const char *path, int *lock, char *why, size_t cap)
{
    if (hl_atomic_lock(path, lock) == HL_OK)
        return HL_OK;
    if (errno == EWOULDBLOCK)
        return hl_h5_fail(HL_ERR_IO, why, cap, path, NULL, false, "another program has the file open "
                    "for writing (HDF5's file lock is held): %s", strerror(errno));
    return hl_h5_fail(HL_ERR_IO, why, cap, path, NULL, false, "cannot lock it for writing: %s",
                strerror(errno));
}

struct hl_h5_writer {
    hid_t file, dset, mem;
    int ndim;
    int64_t dims[HL_H5_MAX_NDIM];
    int64_t count;
    char *tmp, *path, *name;
    int lock; /* hl_atomic_lock's on the existing file, or -1 */
};

/* The file type for s (descr for bytes), or with *mem its memory type. */
hid_t hl_h5_file_type(const hl_shape *s, const char *descr, hid_t *mem)
{
    hid_t f = -1, m = -1;
    switch (s->dtype) {
    case HL_DTYPE_INT8: f = H5Tcopy(H5T_STD_I8LE); break;
    case HL_DTYPE_INT16: f = H5Tcopy(H5T_STD_I16LE); break;
    case HL_DTYPE_INT32: f = H5Tcopy(H5T_STD_I32LE); break;
    case HL_DTYPE_INT64: f = H5Tcopy(H5T_STD_I64LE); break;
    case HL_DTYPE_UINT8: f = H5Tcopy(H5T_STD_U8LE); break;
    case HL_DTYPE_UINT16: f = H5Tcopy(H5T_STD_U16LE); break;
    case HL_DTYPE_UINT32: f = H5Tcopy(H5T_STD_U32LE); break;
    case HL_DTYPE_UINT64: f = H5Tcopy(H5T_STD_U64LE); break;
    case HL_DTYPE_FLOAT16: f = hl_h5_make_f16(); m = hl_h5_make_f16(); break;
    case HL_DTYPE_FLOAT32: f = H5Tcopy(H5T_IEEE_F32LE); break;
    case HL_DTYPE_FLOAT64: f = H5Tcopy(H5T_IEEE_F64LE); break;
    case HL_DTYPE_COMPLEX64:
        f = hl_h5_make_complex(H5T_IEEE_F32LE, 4);
        m = hl_h5_make_complex(H5T_NATIVE_FLOAT, 4);
        break;
    case HL_DTYPE_COMPLEX128:
        f = hl_h5_make_complex(H5T_IEEE_F64LE, 8);
        m = hl_h5_make_complex(H5T_NATIVE_DOUBLE, 8);
        break;
    case HL_DTYPE_BOOL: f = hl_h5_make_bool(); m = hl_h5_make_bool(); break;
    default:
        if (descr && descr[0] == '|' && descr[1] == 'S') {
            f = H5Tcopy(H5T_C_S1);
            if (f >= 0 && (H5Tset_size(f, (size_t)s->elem_size) < 0 ||
                           H5Tset_strpad(f, H5T_STR_NULLPAD) < 0)) {
                H5Tclose(f);
                f = -1;
            }
        } else {
            f = H5Tcreate(H5T_OPAQUE, (size_t)s->elem_size);
        }
        m = f >= 0 ? H5Tcopy(f) : -1;
        break;
    }
    if (m < 0 && f >= 0 && s->dtype >= HL_DTYPE_INT8 && s->dtype <= HL_DTYPE_FLOAT64)
        m = H5Tget_native_type(f, H5T_DIR_DEFAULT);
    if (f < 0 || m < 0) {
        if (f >= 0)
            H5Tclose(f);
        if (m >= 0)
            H5Tclose(m);
        return -1;
    }
    *mem = m;
    return f;
}

/* The chunk dims of about 1 MiB of whole fast rows, HDF5's order. */
void hl_h5_auto_chunk(int ndim, const int64_t *dims, int64_t elem, hsize_t *chunk)
{
    int64_t cells = (1 << 20) / (elem > 0 ? elem : 1);
    for (int j = ndim - 1; j >= 0; j--) {
        int64_t c = cells < 1 ? 1 : cells;
        c = c < dims[j] ? c : dims[j];
        chunk[j] = (hsize_t)(c > 0 ? c : 1);
        cells /= dims[j] > 0 ? dims[j] : 1;
    }
}

/* The dataset creation list of opt for dims. */
void hl_h5_create_lists(const hl_h5_write_options *opt, int ndim, const int64_t *dims,
                        int64_t elem, hl_status *st, char *what, size_t cap, hid_t *space,
                        hid_t *dcpl, hid_t *lcpl)
{
    hsize_t d[HL_H5_MAX_NDIM];
    for (int j = 0; j < ndim; j++)
        d[j] = (hsize_t)dims[j];
    *space = ndim ? H5Screate_simple(ndim, d, NULL) : H5Screate(H5S_SCALAR);
    *dcpl = hl_h5_dcpl(opt, ndim, dims, elem, st, what, cap);
    *lcpl = H5Pcreate(H5P_LINK_CREATE);
    if (*lcpl >= 0)
        H5Pset_create_intermediate_group(*lcpl, 1);
}

void hl_h5_close_create(hid_t space, hid_t dcpl, hid_t lcpl, hid_t ftype)
{
    if (space >= 0)
        H5Sclose(space);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (lcpl >= 0)
        H5Pclose(lcpl);
    if (ftype >= 0)
        H5Tclose(ftype);
}

hid_t hl_h5_dcpl(const hl_h5_write_options *opt, int ndim, const int64_t *dims, int64_t elem,
                 hl_status *st, char *what, size_t cap)
{
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    const bool filters = opt && (opt->deflate > 0 || opt->shuffle);
    if (dcpl < 0) {
        *st = HL_ERR_NOMEM;
        return dcpl;
    }
    if ((opt && opt->chunk) || filters) {
        hsize_t ch[HL_H5_MAX_NDIM];
        if (ndim == 0) {
            snprintf(what, cap, "a scalar dataset cannot be chunked or filtered");
            *st = HL_ERR_ARG;
            return dcpl;
        }
        if (opt->chunk) {
            for (int j = 0; j < ndim; j++) {
                if (opt->chunk[j] < 1 || opt->chunk[j] > dims[j]) {
                    snprintf(what, cap, "chunk extent %" PRId64 " of dimension %d outside 1..%" PRId64,
                             opt->chunk[j], j, dims[j]);
                    *st = HL_ERR_ARG;
                    return dcpl;
                }
                ch[j] = (hsize_t)opt->chunk[j];
            }
        } else {
            hl_h5_auto_chunk(ndim, dims, elem, ch);
        }
        int64_t cb = elem;
        for (int j = 0; j < ndim; j++)
            cb = (int64_t)ch[j] > INT64_MAX / cb ? INT64_MAX : cb * (int64_t)ch[j];
        if (cb >= ((int64_t)1 << 32)) {
            snprintf(what, cap, "a chunk of %" PRId64 " bytes (HDF5's limit is 4 GiB)", cb);
            *st = HL_ERR_ARG;
            return dcpl;
        }
        if (H5Pset_chunk(dcpl, ndim, ch) < 0) {
            snprintf(what, cap, "cannot set the chunks");
            *st = HL_ERR_ARG;
            return dcpl;
        }
        if (opt->shuffle && H5Pset_shuffle(dcpl) < 0)
            *st = HL_ERR_UNSUPPORTED;
        if (opt->deflate > 0 && (opt->deflate > 9 || H5Zfilter_avail(H5Z_FILTER_DEFLATE) <= 0 ||
                                 H5Pset_deflate(dcpl, (unsigned)opt->deflate) < 0)) {
            snprintf(what, cap, opt->deflate > 9 ? "deflate level %d outside 1..9"
                                                 : "this HDF5 has no deflate filter (%d)",
                     opt->deflate);
            *st = opt->deflate > 9 ? HL_ERR_ARG : HL_ERR_UNSUPPORTED;
        }
    }
    return dcpl;
}

typedef struct {
    hid_t to;
    int errors;
    char why[400]; /* the first failure: the attribute and HDF5's reason */
} attr_copy;


static void attr_failed(attr_copy *c, const char *name)
{
    if (c->errors++ == 0) {
        char reason[300];
        hl_h5_reason(reason, sizeof reason);
        snprintf(c->why, sizeof c->why, "attribute '%s': %s", name, reason);
    }
}

static herr_t copy_attr(hid_t loc, const char *name, const H5A_info_t *ai, void *user)
{
    (void)ai;
    attr_copy *c = user;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    hid_t t = a >= 0 ? H5Aget_type(a) : -1, s = a >= 0 ? H5Aget_space(a) : -1;
    if (t < 0 || s < 0 || H5Tdetect_class(t, H5T_REFERENCE) > 0) {
        if (t < 0 || s < 0) /* references would point into the other file: left out */
            attr_failed(c, name);
        goto out;
    }
    const hssize_t n = H5Sget_simple_extent_npoints(s);
    const size_t sz = H5Tget_size(t);
    char text[300];
    if (!hl_h5_attr_sound(loc, name, t, n, text, sizeof text)) {
        if (c->errors++ == 0)
            snprintf(c->why, sizeof c->why, "%s", text);
        goto out;
    }
    void *buf = calloc(n > 0 ? (size_t)n : 1, sz);
    hid_t b = -1;
    if (!buf || H5Aread(a, t, buf) < 0) {
        attr_failed(c, name);
    } else {
        b = H5Acreate2(c->to, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
        if (b < 0 || H5Awrite(b, t, buf) < 0)
            attr_failed(c, name);
        if (H5Tdetect_class(t, H5T_VLEN) > 0 || (H5Tget_class(t) == H5T_STRING &&
                                                  H5Tis_variable_str(t) > 0))
            H5Dvlen_reclaim(t, s, H5P_DEFAULT, buf);
    }
    if (b >= 0)
        H5Aclose(b);
    free(buf);
out:
    if (t >= 0)
        H5Tclose(t);
    if (s >= 0)
        H5Sclose(s);
    if (a >= 0)
        H5Aclose(a);
    return 0;
}

static int copy_attributes(hid_t from, hid_t to, char *why, size_t cap)
{
    attr_copy c = {to, 0, ""};
    if (H5Aiterate2(from, H5_INDEX_NAME, H5_ITER_INC, NULL, copy_attr, &c) < 0 && !c.errors++)
        hl_h5_reason(c.why, sizeof c.why);
    if (c.errors && why && cap)
        snprintf(why, cap, "%s", c.why);
    return c.errors;
}

int hl_h5_copy_attributes(hid_t from, hid_t to) { return copy_attributes(from, to, NULL, 0); }

/* The oldest file format that holds what the file of `like` holds (its
 * superblock's version says which library wrote it how): attributes of
 * more than 64 KiB, for one, need the 1.8 format (dense storage). */
static H5F_libver_t like_format(hid_t file)
{
    H5F_info2_t fi;
    if (H5Fget_info2(file, &fi) < 0) {
        H5Eclear2(H5E_DEFAULT);
        return H5F_LIBVER_EARLIEST;
    }
    return fi.super.version >= 3 ? H5F_LIBVER_V110
           : fi.super.version == 2 ? H5F_LIBVER_V18
                                   : H5F_LIBVER_EARLIEST;
}

hl_status hl_h5_writer_open(hl_h5_writer **w, const char *path, const char *dataset,
                            const hl_shape *s, const hl_h5_write_options *opt, char *why,
                            size_t cap)
{
    if (!w)
        return HL_ERR_NULL;
    *w = NULL;
    if (!path || !s)
        return HL_ERR_NULL;
    const hl_h5_write_options none = {0};
    if (!opt)
        opt = &none;
    const char *name = dataset && dataset[0] ? dataset : "/data";
    if (opt->scalar && hl_shape_count(s) != 1)
        return hl_h5_fail(HL_ERR_ARG, why, cap, path, name, false, "a scalar dataset holds one element");
    hl_h5_quiet q;
    hl_h5_quiet_on(&q);
    hl_h5_writer *x = calloc(1, sizeof *x);
    hl_status st = x ? HL_OK : HL_ERR_NOMEM;
    hid_t space = -1, dcpl = -1, lcpl = -1, ftype = -1;
    if (x) {
        x->file = x->dset = x->mem = x->lock = -1;
        x->path = strdup(path);
        x->name = strdup(name);
        if (!x->path || !x->name)
            st = HL_ERR_NOMEM;
        x->ndim = opt->scalar ? 0 : s->rank;
        for (int j = 0; j < x->ndim; j++)
            x->dims[j] = s->extent[s->rank - 1 - j];
        x->count = hl_shape_count(s);
    }
    struct stat sb;
    if (st == HL_OK && opt->append && stat(path, &sb) != 0)
        st = hl_h5_fail(errno == ENOENT ? HL_ERR_NOT_FOUND : HL_ERR_IO, why, cap, path, NULL, false,
                  "--h5-mode append needs an existing file: %s", strerror(errno));
    if (st == HL_OK)
        st = hl_h5_lock_target(path, &x->lock, why, cap);
    if (st == HL_OK && opt->append && H5Fis_hdf5(path) <= 0)
        st = hl_h5_fail(HL_ERR_FORMAT, why, cap, path, NULL, false, "not an HDF5 file (no HDF5 "
                  "signature): cannot add a dataset to it");
    if (st == HL_OK && hl_atomic_begin(path, opt->append, &x->tmp) != HL_OK)
        st = hl_h5_fail(HL_ERR_IO, why, cap, path, NULL, false, "cannot write beside it: %s",
                  strerror(errno));
    /* a copied dataset's attributes are written in its file's format */
    const H5F_libver_t low = opt->like ? like_format(opt->like->file) : H5F_LIBVER_EARLIEST;
    if (st == HL_OK) {
        hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
        if (fapl >= 0 && low != H5F_LIBVER_EARLIEST)
            H5Pset_libver_bounds(fapl, low, H5F_LIBVER_LATEST);
        x->file = fapl < 0        ? -1
                  : opt->append ? H5Fopen(x->tmp, H5F_ACC_RDWR, fapl)
                                : H5Fcreate(x->tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
        if (fapl >= 0)
            H5Pclose(fapl);
        if (x->file < 0)
            st = hl_h5_fail(opt->append ? HL_ERR_FORMAT : HL_ERR_IO, why, cap, path, NULL, true,
                      "cannot %s", opt->append ? "open its copy" : "create the file");
    }
    if (st == HL_OK && opt->append) {
        /* the name must be new: every component that exists must be a group */
        const htri_t e = H5Lexists(x->file, name, H5P_DEFAULT);
        H5Eclear2(H5E_DEFAULT);
        if (e > 0)
            st = hl_h5_fail(HL_ERR_ARG, why, cap, path, name, false,
                      "exists already (append adds new datasets only)");
    }
    if (st == HL_OK && opt->like) {
        hid_t lt = H5Dget_type(opt->like->dset);
        ftype = lt >= 0 ? H5Tcopy(lt) : -1;
        x->mem = H5Tcopy(opt->like->mem);
        if (lt >= 0)
            H5Tclose(lt);
        if (ftype >= 0 && (int64_t)H5Tget_size(ftype) != s->elem_size)
            st = hl_h5_fail(HL_ERR_MISMATCH, why, cap, path, name, false,
                      "elements of %" PRId64 " bytes, the type copied has %zu",
                      s->elem_size, H5Tget_size(ftype));
    } else if (st == HL_OK) {
        ftype = hl_h5_file_type(s, opt->descr, &x->mem);
    }
    if (st == HL_OK && (ftype < 0 || x->mem < 0))
        st = hl_h5_fail(HL_ERR_UNSUPPORTED, why, cap, path, name, true, "no HDF5 type for %s",
                  hl_dtype_name(s->dtype));
    if (st == HL_OK) {
        char what[256] = "";
        hl_h5_create_lists(opt, x->ndim, x->dims, s->elem_size, &st, what, sizeof what, &space,
                           &dcpl, &lcpl);
        if (st != HL_OK)
            hl_h5_fail(st, why, cap, path, name, !what[0], "%s", what[0] ? what : "bad creation options");
    }
    if (st == HL_OK) {
        x->dset = H5Dcreate2(x->file, name, ftype, space, lcpl, dcpl, H5P_DEFAULT);
        if (x->dset < 0)
            st = hl_h5_fail(HL_ERR_ARG, why, cap, path, name, true, "cannot create the dataset");
    }
    char awhy[400] = "";
    if (st == HL_OK && opt->like && copy_attributes(opt->like->dset, x->dset, awhy, sizeof awhy))
        st = hl_h5_fail(HL_ERR_FORMAT, why, cap, path, name, false, "cannot copy the %s", awhy);
    hl_h5_close_create(space, dcpl, lcpl, ftype);
    hl_h5_quiet_off(&q);
    if (st != HL_OK) {
        hl_h5_writer_abort(x);
        return st;
    }
    *w = x;
    return HL_OK;
}

hl_status hl_h5_writer_write(hl_h5_writer *w, int64_t first, int64_t count, const void *buf,
                             char *why, size_t cap)
{
    if (!w || (!buf && count > 0))
        return HL_ERR_NULL;
    if (first < 0 || count < 0 || first > w->count || count > w->count - first)
        return HL_ERR_RANGE;
    hl_h5_quiet q;
    hl_h5_quiet_on(&q);
    char reason[600];
    hl_status st = hl_h5_transfer(w->dset, w->mem, w->ndim, w->dims, first, count, (void *)(uintptr_t)buf,
                            true, H5P_DEFAULT, reason, sizeof reason);
    if (st != HL_OK)
        hl_h5_fail(HL_ERR_IO, why, cap, w->path, w->name, false, "cannot write: %s", reason);
    hl_h5_quiet_off(&q);
    return st == HL_OK ? HL_OK : HL_ERR_IO;
}

/* Everything closed; HDF5's reason for the first close that failed in
 * reason (each later call clears HDF5's error stack). */
static hl_status close_ids(hl_h5_writer *w, char *reason, size_t rcap)
{
    hl_status st = HL_OK;
    if (w->mem >= 0 && H5Tclose(w->mem) < 0 && st == HL_OK) {
        st = HL_ERR_IO;
        hl_h5_reason(reason, rcap);
    }
    if (w->dset >= 0 && H5Dclose(w->dset) < 0 && st == HL_OK) {
        st = HL_ERR_IO;
        hl_h5_reason(reason, rcap);
    }
    if (w->file >= 0 && H5Fclose(w->file) < 0) {
        hl_h5_close_failed();
        if (st == HL_OK)
            hl_h5_reason(reason, rcap);
        st = HL_ERR_IO;
    }
    w->mem = w->dset = w->file = -1;
    return st;
}

static void free_writer(hl_h5_writer *w)
{
    hl_atomic_unlock(w->lock);
    free(w->path);
    free(w->name);
    free(w);
}

hl_status hl_h5_writer_commit(hl_h5_writer *w, char *why, size_t cap)
{
    if (!w)
        return HL_ERR_NULL;
    hl_h5_quiet q;
    hl_h5_quiet_on(&q);
    char reason[600] = "";
    hl_status st = close_ids(w, reason, sizeof reason);
    if (st != HL_OK)
        hl_h5_fail(st, why, cap, w->path, w->name, false, "cannot finish the file: %s", reason);
    hl_h5_quiet_off(&q);
    if (st != HL_OK) {
        hl_atomic_cancel(w->tmp);
    } else if (hl_atomic_finish(w->tmp, w->path) != HL_OK) {
        st = hl_h5_fail(HL_ERR_IO, why, cap, w->path, NULL, false, "cannot put the file in place: %s",
                  strerror(errno));
    }
    free_writer(w);
    return st;
}

void hl_h5_writer_abort(hl_h5_writer *w)
{
    if (!w)
        return;
    hl_h5_quiet q;
    hl_h5_quiet_on(&q);
    char reason[600];
    (void)close_ids(w, reason, sizeof reason);
    hl_h5_quiet_off(&q);
    hl_atomic_cancel(w->tmp);
    free_writer(w);
}

hl_status hl_h5_save(const char *path, const char *dataset, const hl_shape *s, const void *data,
                     const hl_h5_write_options *opt, char *why, size_t cap)
{
    if (!data)
        return HL_ERR_NULL;
    hl_h5_writer *w;
    hl_status st = hl_h5_writer_open(&w, path, dataset, s, opt, why, cap);
    if (st != HL_OK)
        return st;
    st = hl_h5_writer_write(w, 0, hl_shape_count(s), data, why, cap);
    if (st != HL_OK) {
        hl_h5_writer_abort(w);
        return st;
    }
    return hl_h5_writer_commit(w, why, cap);
}


#endif /* HL_HAVE_HDF5 */
