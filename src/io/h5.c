/* hyperlayout — HDF5 datasets as arrays (include/hyperlayout/h5.h): HDF5
 * itself — started and ended, its errors silenced and read into messages —
 * and files and datasets opened.  The other parts: h5_types.c, h5_probe.c,
 * h5_read.c, h5_write.c; h5_none.c without HDF5. */
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

/* ---- the library's end ------------------------------------------------
 * HDF5 closes itself at exit (atexit), flushing every file still open.  A
 * file whose writes failed (a file size limit, a full disk) cannot be
 * flushed, so its H5Fclose fails and leaves it open; at exit HDF5 then
 * tries again and again ("infinite loop closing library") and, under a
 * file size limit, dies in H5F_term_package (SIGSEGV).  Our writers close
 * every file they open and remove its temporary on error, so instead: HDF5
 * is told not to register its own handler (H5dont_atexit, before its first
 * call), and ours closes the library only when no file is left open; one
 * that is left is the abandoned temporary of a failed write, already
 * removed, whose descriptor the exit closes. */

static atomic_bool file_stuck; /* an H5Fclose failed: HDF5 may hold the file still */

void hl_h5_close_failed(void) { atomic_store(&file_stuck, true); }

static void close_library(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (!atomic_load(&file_stuck) && H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) == 0)
        H5close();
}

static void open_library(void)
{
    H5dont_atexit();
    if (H5open() >= 0)
        atexit(close_library);
}

/* ---- HDF5's error stack: silenced, and read into messages ------------ */

void hl_h5_quiet_on(hl_h5_quiet *q)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, open_library);
    H5Eget_auto2(H5E_DEFAULT, &q->func, &q->data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    H5Eclear2(H5E_DEFAULT);
}

void hl_h5_quiet_off(const hl_h5_quiet *q)
{
    H5Eclear2(H5E_DEFAULT);
    H5Eset_auto2(H5E_DEFAULT, q->func, q->data);
}

typedef struct {
    char first[256], last[256];
    int n;
} walk_data;

/* One description as one line: HDF5's I/O failures read "file write
 * failed: time = <ctime's text, newline and all>, filename = ..., errno =
 * 27, error message = 'File too large', buf = ..." — that becomes "file
 * write failed: File too large" (the system's reason); other control
 * characters become spaces. */
static void one_line(char *to, size_t cap, const char *d)
{
    const char *msg = strstr(d, "error message = '");
    const char *colon = strchr(d, ':');
    if (msg && colon && colon < msg) {
        msg += strlen("error message = '");
        const char *end = strchr(msg, '\'');
        snprintf(to, cap, "%.*s: %.*s", (int)(colon - d), d,
                 (int)(end ? (size_t)(end - msg) : strlen(msg)), msg);
    } else {
        snprintf(to, cap, "%s", d);
    }
    for (char *c = to; *c; c++)
        if ((unsigned char)*c < 32)
            *c = ' ';
}

static herr_t walk_cb(unsigned n, const H5E_error2_t *e, void *user)
{
    walk_data *w = user;
    (void)n;
    const char *d = e->desc && e->desc[0] ? e->desc : "(no description)";
    if (w->n++ == 0)
        one_line(w->first, sizeof w->first, d);
    one_line(w->last, sizeof w->last, d);
    return 0;
}

void hl_h5_reason(char *buf, size_t cap)
{
    walk_data w = {.n = 0};
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, walk_cb, &w);
    H5Eclear2(H5E_DEFAULT);
    if (w.n == 0)
        snprintf(buf, cap, "HDF5 gave no reason");
    else if (w.n == 1 || !strcmp(w.first, w.last))
        snprintf(buf, cap, "HDF5: %s", w.first);
    else
        snprintf(buf, cap, "HDF5: %s (%s)", w.first, w.last);
}

/* "PATH:DATASET: WHAT: HDF5's reason" */
hl_status hl_h5_fail(hl_status st, char *why, size_t cap, const char *path, const char *dset,
                      bool hdf5, const char *fmt, ...)
{
    if (!why || !cap)
        return st;
    char what[512], reason[600] = "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (hdf5)
        hl_h5_reason(reason, sizeof reason);
    snprintf(why, cap, "%s%s%s: %s%s%s", path ? path : "", dset ? ":" : "", dset ? dset : "",
             what, reason[0] ? ": " : "", reason);
    return st;
}

/* ---- opening --------------------------------------------------------- */

hl_status hl_h5_open_file(const char *path, bool write, hid_t fapl, hid_t *file, char *why,
                          size_t cap)
{
    struct stat sb;
    *file = -1;
    if (stat(path, &sb) != 0)
        return hl_h5_fail(errno == ENOENT ? HL_ERR_NOT_FOUND : HL_ERR_IO, why, cap, path, NULL, false,
                    "%s", strerror(errno));
    if (S_ISDIR(sb.st_mode))
        return hl_h5_fail(HL_ERR_IO, why, cap, path, NULL, false, "%s", strerror(EISDIR));
    const htri_t is = H5Fis_hdf5(path);
    if (is <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return hl_h5_fail(HL_ERR_FORMAT, why, cap, path, NULL, false, "not an HDF5 file (no HDF5 "
                    "signature)");
    }
    *file = H5Fopen(path, write ? H5F_ACC_RDWR : H5F_ACC_RDONLY, fapl);
    if (*file < 0)
        return hl_h5_fail(HL_ERR_FORMAT, why, cap, path, NULL, true, "cannot open the file");
    return HL_OK;
}

hl_status hl_h5_open_dataset(hid_t file, const char *path, const char *dataset, hid_t *d,
                             char *why, size_t cap)
{
    *d = -1;
    const char *name = dataset && dataset[0] ? dataset : "/";
    /* each component must exist (H5Oopen's message for a missing one names
     * the component's parent only) */
    char part[1024];
    const size_t len = strlen(name);
    if (len >= sizeof part)
        return hl_h5_fail(HL_ERR_ARG, why, cap, path, dataset, false, "name too long");
    for (size_t i = 1; i <= len; i++) {
        if (i < len && name[i] != '/')
            continue;
        memcpy(part, name, i);
        part[i] = '\0';
        if (i == 1 && name[0] == '/')
            continue;
        const htri_t e = H5Lexists(file, part, H5P_DEFAULT);
        if (e <= 0) {
            if (e < 0)
                return hl_h5_fail(HL_ERR_NOT_FOUND, why, cap, path, dataset, true, "no such dataset");
            return hl_h5_fail(HL_ERR_NOT_FOUND, why, cap, path, dataset, false,
                        "no such dataset ('%s' does not exist)", part);
        }
        if (i < len) { /* a component on the way must be a group to look into */
            hid_t g = H5Oopen(file, part, H5P_DEFAULT);
            const H5I_type_t t = g >= 0 ? H5Iget_type(g) : H5I_BADID;
            if (g >= 0)
                H5Oclose(g);
            if (t != H5I_GROUP)
                return hl_h5_fail(HL_ERR_NOT_FOUND, why, cap, path, dataset, t == H5I_BADID,
                            "no such dataset ('%s' is %s, not a group)", part,
                            t == H5I_DATASET    ? "a dataset"
                            : t == H5I_DATATYPE ? "a named datatype"
                            : t == H5I_BADID    ? "an object HDF5 cannot open"
                                                : "another object");
        }
    }
    hid_t o = H5Oopen(file, name, H5P_DEFAULT);
    if (o < 0)
        return hl_h5_fail(HL_ERR_FORMAT, why, cap, path, dataset, true, "cannot open the object");
    const H5I_type_t t = H5Iget_type(o);
    if (t != H5I_DATASET) {
        H5Oclose(o);
        return hl_h5_fail(HL_ERR_NOT_FOUND, why, cap, path, dataset, false, "not a dataset (a %s)",
                    t == H5I_GROUP ? "group" : t == H5I_DATATYPE ? "named datatype" : "other object");
    }
    *d = o;
    return HL_OK;
}

/* The boxes of the array's range [first, first + count) in C order (at
 * most 2 * ndim), in order: *pos (from first) advances past each one. */
bool hl_h5_next_box(int ndim, const int64_t *dims, int64_t *pos, int64_t end, hsize_t *start,
                     hsize_t *cnt)
{
    if (*pos >= end)
        return false;
    int64_t stride[HL_H5_MAX_NDIM];
    stride[ndim - 1] = 1;
    for (int k = ndim - 2; k >= 0; k--)
        stride[k] = stride[k + 1] * dims[k + 1];
    int k = 0;
    while (k < ndim - 1 && !(*pos % stride[k] == 0 && *pos + stride[k] <= end))
        k++;
    for (int j = 0; j < ndim; j++) {
        const int64_t idx = (*pos / stride[j]) % dims[j];
        start[j] = j <= k ? (hsize_t)idx : 0;
        cnt[j] = j < k ? 1 : (hsize_t)dims[j];
    }
    int64_t units = (end - *pos) / stride[k];
    if (units > dims[k] - (int64_t)start[k])
        units = dims[k] - (int64_t)start[k];
    cnt[k] = (hsize_t)units;
    *pos += units * stride[k];
    return true;
}

/* The array's range [first, first + count) in C order as a selection of
 * space: at most 2 * ndim boxes (the whole dataset: all of it). */
hl_status hl_h5_select_range(hid_t space, int ndim, const int64_t *dims, int64_t first,
                             int64_t count)
{
    int64_t total = 1;
    for (int j = 0; j < ndim; j++)
        total *= dims[j];
    if (ndim == 0 || (first == 0 && count == total))
        return H5Sselect_all(space) < 0 ? HL_ERR_FORMAT : HL_OK;
    int64_t pos = first;
    hsize_t start[HL_H5_MAX_NDIM], cnt[HL_H5_MAX_NDIM];
    bool firstbox = true;
    while (hl_h5_next_box(ndim, dims, &pos, first + count, start, cnt)) {
        if (H5Sselect_hyperslab(space, firstbox ? H5S_SELECT_SET : H5S_SELECT_OR, start, NULL,
                                cnt, NULL) < 0)
            return HL_ERR_FORMAT;
        firstbox = false;
    }
    return HL_OK;
}


#endif /* HL_HAVE_HDF5 */
