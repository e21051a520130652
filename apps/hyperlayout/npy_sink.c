/* hyperlayout transform — writing the output array. */
#include "npy_sink.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static hl_status io_error(npy_sink *k, char *why, size_t cap)
{
    snprintf(why, cap, "%s: %s", k->path, strerror(errno));
    return HL_ERR_IO;
}

static bool ends_npz(const char *s, size_t n) { return n >= 4 && !strncmp(s + n - 4, ".npz", 4); }

/* "X.npz" or "X.npz:NAME": an archive, and its member's name. */
static bool archive_name(const char *path, char *file, size_t file_cap, char *member)
{
    const char *colon = strrchr(path, ':');
    size_t n = strlen(path);
    const char *name = "arr_0"; /* np.savez's name for an unnamed array */
    if (!ends_npz(path, n)) {
        if (!colon || strchr(colon, '/') || !ends_npz(path, (size_t)(colon - path)))
            return false;
        n = (size_t)(colon - path);
        name = colon[1] ? colon + 1 : name;
    }
    if (n >= file_cap)
        return false;
    memcpy(file, path, n);
    file[n] = '\0';
    snprintf(member, HL_NPZ_NAME_MAX, "%s", name);
    return true;
}

static hl_status put(npy_sink *k, const void *p, size_t len, bool member, char *why, size_t cap)
{
    if (atomic_file_write(k->file, p, len) != HL_OK)
        return io_error(k, why, cap);
    if (member && k->archive)
        k->crc = hl_crc32(k->crc, p, len);
    if (member)
        k->member_bytes += (int64_t)len;
    return HL_OK;
}

hl_status npy_sink_open(npy_sink *k, const char *path, const hl_npy_info *info, char *why,
                        size_t cap)
{
    memset(k, 0, sizeof *k);
    k->path = path;
    char file[4096];
    k->archive = archive_name(path, file, sizeof file, k->member);
    unsigned char header[NPY_HEADER_CAP], local[1024], tail[1024];
    size_t hlen, llen = 0, tlen = 0;
    hl_status st = hl_npy_format_header_info(info, 0, header, sizeof header, &hlen);
    if (st == HL_OK && k->archive) {
        st = hl_npz_format_local(k->member, local, sizeof local, &llen);
        if (st == HL_OK) /* the tail's size does not depend on the CRC */
            st = hl_npz_format_tail(k->member, 0, (int64_t)hlen + info->data_bytes, tail,
                                    sizeof tail, &tlen);
    }
    if (st != HL_OK) {
        snprintf(why, cap, "%s: cannot write this header: %s", path, hl_strerror(st));
        return st;
    }
    if (atomic_file_open(&k->file, k->archive ? file : path) != HL_OK)
        return io_error(k, why, cap);
    const int64_t total = (int64_t)(llen + hlen + tlen) + info->data_bytes;
    if (atomic_file_reserve(k->file, total) != HL_OK) {
        st = io_error(k, why, cap);
        npy_sink_abort(k);
        return st;
    }
    if ((k->archive && (st = put(k, local, llen, false, why, cap)) != HL_OK) ||
        (st = put(k, header, hlen, true, why, cap)) != HL_OK) {
        npy_sink_abort(k);
        return st;
    }
    return HL_OK;
}

hl_status npy_sink_write(npy_sink *k, const void *data, size_t len, char *why, size_t cap)
{
    return put(k, data, len, true, why, cap);
}

hl_status npy_sink_commit(npy_sink *k, char *why, size_t cap)
{
    hl_status st = HL_OK;
    if (k->archive) {
        unsigned char tail[1024];
        size_t tlen;
        st = hl_npz_format_tail(k->member, k->crc, k->member_bytes, tail, sizeof tail, &tlen);
        if (st == HL_OK)
            st = put(k, tail, tlen, false, why, cap);
        else
            snprintf(why, cap, "%s: %s", k->path, hl_strerror(st));
    }
    if (st != HL_OK) {
        npy_sink_abort(k);
        return st;
    }
    st = atomic_file_commit(k->file);
    k->file = NULL;
    return st == HL_OK ? HL_OK : io_error(k, why, cap);
}

void npy_sink_abort(npy_sink *k)
{
    atomic_file_abort(k->file);
    k->file = NULL;
}
