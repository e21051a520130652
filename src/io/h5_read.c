/* hyperlayout — HDF5 datasets read: info, listing, the reader, loading. */
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

/* ---- public: info, list ---------------------------------------------- */

hl_status hl_h5_available(void) { return HL_OK; }

hl_status hl_h5_reader_open(hl_h5_reader **r, const char *path, const char *dataset,
                            hl_h5_info *info, char *why, size_t cap)
{
    if (!r)
        return HL_ERR_NULL;
    *r = NULL;
    if (!path)
        return HL_ERR_NULL;
    hl_h5_quiet q;
    hl_h5_quiet_on(&q);
    hl_h5_reader *x = calloc(1, sizeof *x);
    hl_status st = x ? HL_OK : HL_ERR_NOMEM;
    if (x) {
        x->file = x->dset = x->mem = -1;
        x->path = strdup(path);
        x->name = strdup(dataset && dataset[0] ? dataset : "/");
        if (!x->path || !x->name)
            st = HL_ERR_NOMEM;
    }
    if (st == HL_OK)
        st = hl_h5_probe(path, x->name, why, cap);
    if (st == HL_OK)
        st = hl_h5_open_file(path, false, H5P_DEFAULT, &x->file, why, cap);
    if (st == HL_OK)
        st = hl_h5_open_dataset(x->file, path, x->name, &x->dset, why, cap);
    if (st == HL_OK) {
        hl_h5_dataset_info(x->dset, &x->info, &x->mem);
        if (info)
            *info = x->info;
        if (x->info.unsupported)
            st = hl_h5_fail(HL_ERR_UNSUPPORTED, why, cap, path, x->name, false,
                      "unsupported: %s (type %s)", x->info.unsupported, x->info.type);
    }
    hl_h5_quiet_off(&q);
    if (st != HL_OK) {
        hl_h5_reader_close(x);
        return st;
    }
    *r = x;
    return HL_OK;
}

const hl_h5_info *hl_h5_reader_info(const hl_h5_reader *r) { return r ? &r->info : NULL; }

hl_h5_reader_ids hl_h5_reader_handles(const hl_h5_reader *r)
{
    return (hl_h5_reader_ids){r->file, r->dset, r->mem};
}

void hl_h5_reader_close(hl_h5_reader *r)
{
    if (!r)
        return;
    hl_h5_quiet q;
    hl_h5_quiet_on(&q);
    if (r->mem >= 0)
        H5Tclose(r->mem);
    if (r->dset >= 0)
        H5Dclose(r->dset);
    if (r->file >= 0)
        H5Fclose(r->file);
    hl_h5_quiet_off(&q);
    free(r->path);
    free(r->name);
    free(r);
}

/* count elements at first, between the dataset and buf, either way: box by
 * box (at most 2 * ndim), each into a memory space of the box's own shape.
 * HDF5 then maps chunks to memory directly; a 1-D memory space of another
 * shape is mapped through a projection, ten times slower on chunked
 * datasets (measured: a 0.13 GB chunked read 0.95 s against 0.1 s), and
 * HDF5 1.10 divides by zero (SIGFPE) doing it on a chunked dataset of rank
 * 32. */
hl_status hl_h5_transfer(hid_t dset, hid_t mem, int ndim, const int64_t *dims, int64_t first,
                          int64_t count, void *buf, bool write, hid_t dxpl, char *reason,
                          size_t rcap)
{
    if (count <= 0)
        return HL_OK;
    hid_t fs = H5Dget_space(dset);
    hl_status st = fs >= 0 ? HL_OK : HL_ERR_FORMAT;
    if (st == HL_OK && ndim > 0) {
        const size_t elem = H5Tget_size(mem);
        hsize_t start[HL_H5_MAX_NDIM], cnt[HL_H5_MAX_NDIM];
        int64_t pos = first;
        char *p = buf;
        while (st == HL_OK && hl_h5_next_box(ndim, dims, &pos, first + count, start, cnt)) {
            hid_t ms = H5Screate_simple(ndim, cnt, NULL);
            const hssize_t n = ms >= 0 ? H5Sget_simple_extent_npoints(ms) : -1;
            if (n < 0 || H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL) < 0 ||
                (write ? H5Dwrite(dset, mem, ms, fs, dxpl, p)
                       : H5Dread(dset, mem, ms, fs, dxpl, p)) < 0)
                st = HL_ERR_FORMAT;
            if (st != HL_OK)
                hl_h5_reason(reason, rcap);
            if (ms >= 0)
                H5Sclose(ms);
            p += n > 0 ? (size_t)n * elem : 0;
        }
        H5Sclose(fs);
        return st;
    }
    const hsize_t n = (hsize_t)count;
    hid_t ms = H5Screate_simple(1, &n, NULL);
    if (st == HL_OK)
        st = ms >= 0 ? hl_h5_select_range(fs, ndim, dims, first, count) : HL_ERR_FORMAT;
    if (st == HL_OK) {
        const herr_t e = write ? H5Dwrite(dset, mem, ms, fs, dxpl, buf)
                               : H5Dread(dset, mem, ms, fs, dxpl, buf);
        st = e < 0 ? HL_ERR_FORMAT : HL_OK;
    }
    if (st != HL_OK) /* before the closes below clear the stack */
        hl_h5_reason(reason, rcap);
    if (fs >= 0)
        H5Sclose(fs);
    if (ms >= 0)
        H5Sclose(ms);
    return st;
}

hl_status hl_h5_reader_read(hl_h5_reader *r, int64_t first, int64_t count, void *buf, char *why,
                            size_t cap)
{
    if (!r || (!buf && count > 0))
        return HL_ERR_NULL;
    const int64_t n = hl_shape_count(&r->info.shape);
    if (first < 0 || count < 0 || first > n || count > n - first)
        return HL_ERR_RANGE;
    hl_h5_quiet q;
    hl_h5_quiet_on(&q);
    char reason[600];
    hl_status st = hl_h5_transfer(r->dset, r->mem, r->info.ndim, r->info.dims, first, count, buf,
                            false, H5P_DEFAULT, reason, sizeof reason);
    if (st != HL_OK)
        hl_h5_fail(st, why, cap, r->path, r->name, false, "cannot read elements %" PRId64 "..%" PRId64
             ": %s", first, first + count - 1, reason);
    hl_h5_quiet_off(&q);
    return st;
}

hl_status hl_h5_info_get(const char *path, const char *dataset, hl_h5_info *info, char *why,
                         size_t cap)
{
    if (!info)
        return HL_ERR_NULL;
    hl_h5_reader *r = NULL;
    hl_status st = hl_h5_reader_open(&r, path, dataset, info, why, cap);
    if (st == HL_ERR_UNSUPPORTED && info->unsupported)
        st = HL_OK; /* info says why */
    hl_h5_reader_close(r);
    return st;
}

typedef struct {
    hl_h5_visit visit;
    void *user;
    int stop;
} list_data;

static herr_t list_cb(hid_t g, const char *name, const H5L_info_t *li, void *user)
{
    list_data *L = user;
    /* soft and external links too, followed as transform follows them (a
     * dangling one, which transform cannot read either, is left out) */
    if (li->type != H5L_TYPE_HARD && li->type != H5L_TYPE_SOFT && li->type != H5L_TYPE_EXTERNAL)
        return 0;
    hid_t o = H5Oopen(g, name, H5P_DEFAULT);
    if (o < 0) {
        H5Eclear2(H5E_DEFAULT);
        return 0;
    }
    if (H5Iget_type(o) == H5I_DATASET) {
        hl_h5_info *info = malloc(sizeof *info);
        hid_t mem = -1;
        if (!info) {
            H5Oclose(o);
            return -1;
        }
        hl_h5_dataset_info(o, info, &mem);
        if (mem >= 0)
            H5Tclose(mem);
        char full[1100];
        snprintf(full, sizeof full, "/%s", name);
        L->stop = L->visit(full, info, L->user);
        free(info);
    }
    H5Oclose(o);
    return L->stop ? 1 : 0;
}

hl_status hl_h5_list(const char *path, hl_h5_visit visit, void *user, char *why, size_t cap)
{
    if (!path || !visit)
        return HL_ERR_NULL;
    hl_h5_quiet q;
    hl_h5_quiet_on(&q);
    hid_t file = -1;
    hl_status st = hl_h5_probe(path, NULL, why, cap);
    if (st == HL_OK)
        st = hl_h5_open_file(path, false, H5P_DEFAULT, &file, why, cap);
    if (st == HL_OK) {
        list_data L = {visit, user, 0};
        if (H5Lvisit(file, H5_INDEX_NAME, H5_ITER_INC, list_cb, &L) < 0)
            st = hl_h5_fail(HL_ERR_FORMAT, why, cap, path, NULL, true, "cannot walk the file");
        H5Fclose(file);
    }
    hl_h5_quiet_off(&q);
    return st;
}

hl_status hl_h5_load(const char *path, const char *dataset, hl_h5_info *info, void **data,
                     char *why, size_t cap)
{
    if (!data)
        return HL_ERR_NULL;
    *data = NULL;
    hl_h5_reader *r;
    hl_status st = hl_h5_reader_open(&r, path, dataset, info, why, cap);
    if (st != HL_OK)
        return st;
    const int64_t bytes = hl_shape_bytes(&r->info.shape);
    void *buf = NULL;
    if (posix_memalign(&buf, 64, (size_t)((bytes + 63) / 64 * 64)) != 0)
        st = hl_h5_fail(HL_ERR_NOMEM, why, cap, path, dataset, false, "%s", strerror(ENOMEM));
    if (st == HL_OK)
        st = hl_h5_reader_read(r, 0, hl_shape_count(&r->info.shape), buf, why, cap);
    hl_h5_reader_close(r);
    if (st != HL_OK) {
        free(buf);
        return st;
    }
    *data = buf;
    return HL_OK;
}


#endif /* HL_HAVE_HDF5 */
