/* hyperlayout transform — writing the output array. */
#define _GNU_SOURCE /* O_CLOEXEC */

#include "npy_sink.h"
#include "map_guard.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static hl_status io_error(npy_sink *k, char *why, size_t cap)
{
    snprintf(why, cap, "%s: %s", k->path, strerror(errno));
    return HL_ERR_IO;
}

static bool ends_npz(const char *s, size_t n) { return n >= 4 && !strncmp(s + n - 4, ".npz", 4); }

/* "X.npz" or "X.npz:NAME": an archive, the file's name and the member's
 * (empty when not named).  -1 when NAME is too long, -2 when the file's is. */
static int archive_name(const char *path, char *file, size_t file_cap, char *member)
{
    const char *colon = strrchr(path, ':');
    size_t n = strlen(path);
    const char *name = "";
    if (!ends_npz(path, n)) {
        if (!colon || strchr(colon, '/') || !ends_npz(path, (size_t)(colon - path)))
            return 0;
        n = (size_t)(colon - path);
        name = colon + 1;
    }
    if (strlen(name) >= HL_NPZ_NAME_MAX)
        return -1;
    if (n >= file_cap)
        return -2;
    memcpy(file, path, n);
    file[n] = '\0';
    strcpy(member, name);
    return 1;
}

/* The member's bytes through the deflater (finish: its end). */
static hl_status put_deflated(npy_sink *k, const void *p, size_t len, bool finish, char *why,
                              size_t cap)
{
    const void *z;
    size_t zlen;
    const hl_status st = hl_npz_deflater_put(k->deflate, p, len, finish, &z, &zlen);
    if (st != HL_OK) {
        snprintf(why, cap, "%s: deflating member '%s': %s", k->path, k->member, hl_strerror(st));
        return st;
    }
    if (hl_atomic_file_write(k->file, z, zlen) != HL_OK)
        return io_error(k, why, cap);
    k->stored += (int64_t)zlen;
    return HL_OK;
}

static hl_status put(npy_sink *k, const void *p, size_t len, bool member, char *why, size_t cap)
{
    if (member && k->deflate) {
        const hl_status st = put_deflated(k, p, len, false, why, cap);
        if (st != HL_OK)
            return st;
    } else if (hl_atomic_file_write(k->file, p, len) != HL_OK) {
        return io_error(k, why, cap);
    }
    if (member && k->archive)
        k->crc = hl_crc32(k->crc, p, len);
    if (member)
        k->member_bytes += (int64_t)len;
    return HL_OK;
}

/* The archive being replaced, mapped, and the edit that keeps its other
 * members. */
static hl_status open_edit(npy_sink *k, const char *file, char *why, size_t cap)
{
    const char *existing = hl_atomic_file_existing(k->file);
    struct stat sb;
    int fd = existing ? open(existing, O_RDONLY | O_CLOEXEC) : -1;
    if (existing && (fd < 0 || fstat(fd, &sb) != 0)) {
        hl_status st = io_error(k, why, cap);
        if (fd >= 0)
            close(fd);
        return st;
    }
    if (fd >= 0 && sb.st_size > 0) {
        void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            hl_status st = io_error(k, why, cap);
            close(fd);
            return st;
        }
        k->old = p;
        k->old_len = (size_t)sb.st_size;
        map_guard_watch(p, k->old_len, existing); /* its other members are copied */
    }
    if (fd >= 0)
        close(fd);
    hl_status st = hl_npz_edit_open(&k->edit, k->old, k->old_len, k->member);
    if (st == HL_ERR_FORMAT || st == HL_ERR_UNSUPPORTED)
        snprintf(why, cap, "%s: %s: member '%s' cannot be written into it (write %s to replace the "
                 "whole file)", file, st == HL_ERR_FORMAT ? "not an .npz archive, or a damaged one"
                 : "an archive laid out in a way hyperlayout does not rewrite", k->member, file);
    else if (st != HL_OK)
        snprintf(why, cap, "%s: %s", file, hl_strerror(st));
    return st;
}

hl_status npy_sink_open(npy_sink *k, const char *path, char *why, size_t cap)
{
    memset(k, 0, sizeof *k);
    k->path = path;
    if (h5_path(path, k->h5file, sizeof k->h5file, k->h5dset, sizeof k->h5dset)) {
        /* HDF5 takes its own locks on the files it opens (an input that is
         * this file too): no lock of ours here, only the check that an
         * existing file may be replaced; the writer's temporary is made at start */
        k->h5 = true;
        if (hl_h5_available() != HL_OK) {
            hl_h5_writer_open(&k->h5w, k->h5file, k->h5dset, NULL, NULL, why, cap);
            return HL_ERR_UNSUPPORTED;
        }
        struct stat sb;
        if (stat(k->h5file, &sb) == 0 && (!S_ISREG(sb.st_mode) || access(k->h5file, W_OK) != 0)) {
            snprintf(why, cap, "%s: %s", k->h5file,
                     S_ISREG(sb.st_mode) ? strerror(errno) : "HDF5 is written to regular files only");
            return S_ISREG(sb.st_mode) ? HL_ERR_IO : HL_ERR_ARG;
        }
        return HL_OK;
    }
    char file[4096];
    const int arch = archive_name(path, file, sizeof file, k->member);
    if (arch == -2) {
        errno = ENAMETOOLONG;
        return io_error(k, why, cap);
    }
    if (arch < 0) {
        const char *colon = strrchr(path, ':');
        snprintf(why, cap, "%.*s: a member name of %zu bytes is too long (at most %d)",
                 (int)(colon - path), path, strlen(colon + 1), HL_NPZ_NAME_MAX - 1);
        return HL_ERR_ARG;
    }
    k->archive = arch > 0;
    k->named = k->archive && k->member[0];
    if (hl_atomic_file_open(&k->file, k->archive ? file : path) != HL_OK)
        return io_error(k, why, cap);
    if (k->named) {
        hl_status st = open_edit(k, file, why, cap);
        if (st != HL_OK) {
            npy_sink_abort(k);
            return st;
        }
    }
    return HL_OK;
}

/* Copies the records of the archive's other members into the new one. */
static hl_status copy_kept(npy_sink *k, char *why, size_t cap)
{
    int64_t off, len;
    for (int64_t i = 0; hl_npz_edit_copy(k->edit, i, &off, &len); i++) {
        hl_status st = put(k, k->old + off, (size_t)len, false, why, cap);
        if (st != HL_OK)
            return st;
    }
    if (k->old) {
        map_guard_forget(k->old);
        munmap(k->old, k->old_len);
    }
    k->old = NULL;
    return HL_OK;
}

static hl_status h5_start(npy_sink *k, const hl_npy_info *info, char *why, size_t cap)
{
    const int rank = info->shape.rank;
    if (info->fortran_order) {
        snprintf(why, cap, "%s: HDF5 datasets are written in C order (not --order F)", k->path);
        return HL_ERR_ARG;
    }
    if (k->h5opt.nchunk && k->h5opt.nchunk != rank) {
        snprintf(why, cap, "--h5-chunk has %d dims, the array %d", k->h5opt.nchunk, rank);
        return HL_ERR_ARG;
    }
    hl_h5_write_options o = {.append = k->h5opt.append, .deflate = k->h5opt.deflate,
                             .shuffle = k->h5opt.shuffle, .descr = info->descr,
                             .chunk = k->h5opt.nchunk ? k->h5opt.chunk : NULL};
    if (k->like) { /* the input's element type and attributes */
        const hl_h5_info *li = hl_h5_reader_info(k->like);
        if (li->shape.dtype == info->shape.dtype && li->shape.elem_size == info->shape.elem_size)
            o.like = k->like;
        o.scalar = k->like_scalar && hl_shape_count(&info->shape) == 1 && !o.chunk &&
                   !o.deflate && !o.shuffle;
    }
    k->h5elem = info->shape.elem_size;
    return hl_h5_writer_open(&k->h5w, k->h5file, k->h5dset[0] ? k->h5dset : "/data",
                             &info->shape, &o, why, cap);
}

hl_status npy_sink_start(npy_sink *k, const hl_npy_info *info, const char *member, char *why,
                         size_t cap)
{
    if (k->h5) {
        const hl_status st = h5_start(k, info, why, cap);
        if (st != HL_OK)
            npy_sink_abort(k);
        return st;
    }
    if (k->archive && !k->named)
        snprintf(k->member, sizeof k->member, "%s", member ? member : "arr_0");
    unsigned char header[NPY_HEADER_CAP], local[1024];
    size_t hlen, llen = 0, tlen = 0;
    int64_t kept = 0, off, len;
    hl_status st = hl_npy_format_header_info(info, 0, header, sizeof header, &hlen);
    if (st == HL_OK && k->archive && !k->edit)
        st = hl_npz_edit_open(&k->edit, NULL, 0, k->member);
    /* a member rewritten keeps its compression (np.savez_compressed's
     * deflate); without zlib it is stored */
    int method = st == HL_OK && k->archive ? hl_npz_edit_method(k->edit) : 0;
    if (method == 8 && hl_npz_deflater_open(&k->deflate) != HL_OK)
        method = 0;
    if (st == HL_OK && k->archive)
        st = hl_npz_format_local_method(k->member, method, local, sizeof local, &llen);
    if (st == HL_OK && k->archive) { /* the tail's size does not depend on the CRC */
        st = hl_npz_edit_tail(k->edit, 0, (int64_t)hlen + info->data_bytes, NULL, 0, &tlen);
        st = st == HL_ERR_BUFFER ? HL_OK : st;
        for (int64_t i = 0; hl_npz_edit_copy(k->edit, i, &off, &len); i++)
            kept += len;
    }
    if (st != HL_OK) {
        snprintf(why, cap, "%s: cannot write this header: %s", k->path, hl_strerror(st));
        npy_sink_abort(k);
        return st;
    }
    const int64_t total = kept + (int64_t)(llen + hlen + tlen) + info->data_bytes;
    if (hl_atomic_file_reserve(k->file, total) != HL_OK) {
        st = io_error(k, why, cap);
        npy_sink_abort(k);
        return st;
    }
    if ((k->archive && ((st = copy_kept(k, why, cap)) != HL_OK ||
                        (st = put(k, local, llen, false, why, cap)) != HL_OK)) ||
        (st = put(k, header, hlen, true, why, cap)) != HL_OK) {
        npy_sink_abort(k);
        return st;
    }
    return HL_OK;
}

hl_status npy_sink_write(npy_sink *k, const void *data, size_t len, char *why, size_t cap)
{
    if (k->h5) {
        if (len % (size_t)k->h5elem != 0) {
            snprintf(why, cap, "%s: a write of part of an element", k->path);
            return HL_ERR_ARG;
        }
        const int64_t n = (int64_t)len / k->h5elem;
        const hl_status st = hl_h5_writer_write(k->h5w, k->h5pos, n, data, why, cap);
        k->h5pos += n;
        return st;
    }
    return put(k, data, len, true, why, cap);
}

hl_status npy_sink_commit(npy_sink *k, char *why, size_t cap)
{
    hl_status st = HL_OK;
    if (k->h5) {
        st = hl_h5_writer_commit(k->h5w, why, cap);
        k->h5w = NULL;
        npy_sink_abort(k); /* the lock */
        return st;
    }
    if (k->deflate && (st = put_deflated(k, NULL, 0, true, why, cap)) != HL_OK) {
        npy_sink_abort(k);
        return st;
    }
    if (k->archive) {
        size_t tlen = 0;
        const int64_t stored = k->deflate ? k->stored : k->member_bytes;
        const int method = k->deflate ? 8 : 0;
        (void)hl_npz_edit_tail_method(k->edit, k->crc, k->member_bytes, stored, method, NULL, 0,
                                      &tlen);
        unsigned char *tail = malloc(tlen ? tlen : 1);
        st = tail ? hl_npz_edit_tail_method(k->edit, k->crc, k->member_bytes, stored, method,
                                            tail, tlen, &tlen)
                  : HL_ERR_NOMEM;
        if (st == HL_OK)
            st = put(k, tail, tlen, false, why, cap);
        else
            snprintf(why, cap, "%s: %s", k->path, hl_strerror(st));
        free(tail);
    }
    if (st != HL_OK) {
        npy_sink_abort(k);
        return st;
    }
    st = hl_atomic_file_commit(k->file);
    k->file = NULL;
    if (st != HL_OK && errno == EEXIST)
        snprintf(why, cap, "%s: another process created this file while this run wrote it; "
                 "it is left as that process wrote it", k->path);
    else if (st != HL_OK)
        st = io_error(k, why, cap);
    npy_sink_abort(k); /* what is left: the edit */
    return st;
}

void npy_sink_abort(npy_sink *k)
{
    hl_h5_writer_abort(k->h5w);
    k->h5w = NULL;
    hl_atomic_file_abort(k->file);
    k->file = NULL;
    if (k->old) {
        map_guard_forget(k->old);
        munmap(k->old, k->old_len);
    }
    k->old = NULL;
    hl_npz_edit_destroy(k->edit);
    k->edit = NULL;
    hl_npz_deflater_destroy(k->deflate);
    k->deflate = NULL;
}
