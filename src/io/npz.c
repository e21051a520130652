/* hyperlayout — .npz archives read: members listed and found through the
 * central directory (zip.c walks it), extracted (stored, or deflate
 * through zlib), and loaded from a file.  Every read of the archive goes
 * through `has`, so a malformed archive can only be refused, never read
 * past. */
#define _XOPEN_SOURCE 700 /* mmap */

#include "hyperlayout/npz.h"
#include "npy_native.h"
#include "zip.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef HL_HAVE_ZLIB
#include <zlib.h>
#endif

/* ---- reading ---------------------------------------------------------------- */

static hl_status cd_next(cd_iter *it, hl_npz_member *m)
{
    cd_raw r;
    hl_status st = hl_zip_cd_next_raw(it, &r);
    if (st != HL_OK)
        return st;
    if (r.flags & FLAG_ENCRYPTED)
        return HL_ERR_UNSUPPORTED;
    if (r.method == 0 && r.csize != r.usize)
        return HL_ERR_FORMAT;
    uint64_t data = hl_zip_data_start(it->z, r.local);
    if (!has(it->len, data, r.csize))
        return HL_ERR_FORMAT;
    size_t keep = r.nlen >= 4 && !memcmp(r.name + r.nlen - 4, ".npy", 4) ? r.nlen - 4 : r.nlen;
    if (keep >= HL_NPZ_NAME_MAX)
        return HL_ERR_UNSUPPORTED;
    memset(m, 0, sizeof *m);
    memcpy(m->name, r.name, keep);
    m->offset = (int64_t)data;
    m->size = (int64_t)r.usize;
    m->stored = (int64_t)r.csize;
    m->method = r.method;
    m->crc32 = r.crc;
    return HL_OK;
}

hl_status hl_npz_list(const void *zip, size_t len, hl_npz_member *members, int64_t cap, int64_t *count)
{
    if (!zip || !count || (!members && cap > 0))
        return HL_ERR_NULL;
    cd_iter it;
    hl_status st = hl_zip_cd_open(zip, len, &it);
    if (st != HL_OK)
        return st;
    int64_t n = 0;
    while (it.left > 0) {
        hl_npz_member m;
        st = cd_next(&it, &m);
        if (st != HL_OK)
            return st;
        if (n < cap)
            members[n] = m;
        n++;
    }
    *count = n;
    return n > cap ? HL_ERR_BUFFER : HL_OK;
}

hl_status hl_npz_find(const void *zip, size_t len, const char *name, hl_npz_member *m)
{
    if (!zip || !m)
        return HL_ERR_NULL;
    /* "a.npy" names the member listed as "a" — unless one is listed as
     * "a.npy" itself (its entry "a.npy.npy"), which the exact name wins */
    size_t want = 0;
    if (name) {
        want = strlen(name);
        if (want >= 4 && !strcmp(name + want - 4, ".npy"))
            want -= 4;
    }
    cd_iter it;
    hl_status st = hl_zip_cd_open(zip, len, &it);
    if (st != HL_OK)
        return st;
    /* an archive may list one name twice (zipfile appends): NumPy reads
     * the last entry of a name (zipfile's table keeps the last), so does
     * this (and an edit replaces every entry of the name) */
    int64_t seen = 0;
    bool exact = false;
    hl_npz_member found;
    while (it.left > 0) {
        hl_npz_member c;
        st = cd_next(&it, &c);
        if (st != HL_OK)
            return st;
        if (name && !strcmp(c.name, name)) {
            *m = c;
            exact = true;
            continue;
        }
        if (!name || (strlen(c.name) == want && !memcmp(c.name, name, want))) {
            seen++;
            found = c;
        }
    }
    if (exact)
        return HL_OK;
    if (seen == 1 || (name && seen > 1)) {
        *m = found;
        return HL_OK;
    }
    return !name && seen > 1 ? HL_ERR_ARG : HL_ERR_NOT_FOUND;
}

/* The first n bytes of member m's uncompressed contents into out. */
static hl_status inflate_prefix(const unsigned char *z, const hl_npz_member *m, void *out, int64_t n)
{
#ifdef HL_HAVE_ZLIB
    z_stream s;
    memset(&s, 0, sizeof s);
    if (inflateInit2(&s, -MAX_WBITS) != Z_OK) /* raw deflate: zip has no zlib wrapper */
        return HL_ERR_NOMEM;
    const unsigned char *in = z + m->offset;
    int64_t in_left = m->stored, out_left = n;
    unsigned char *o = out;
    int rc = Z_OK;
    while (out_left > 0 && rc == Z_OK) {
        if (s.avail_in == 0) {
            s.next_in = (unsigned char *)(uintptr_t)in; /* zlib does not write its input */
            s.avail_in = in_left > (int64_t)UINT32_MAX / 2 ? UINT32_MAX / 2 : (unsigned)in_left;
            in += s.avail_in;
            in_left -= s.avail_in;
        }
        s.next_out = o;
        s.avail_out = out_left > (int64_t)UINT32_MAX / 2 ? UINT32_MAX / 2 : (unsigned)out_left;
        unsigned before = s.avail_out;
        rc = inflate(&s, Z_NO_FLUSH);
        o += before - s.avail_out;
        out_left -= before - s.avail_out;
        if (rc == Z_BUF_ERROR && s.avail_in == 0 && in_left == 0)
            break; /* input ran out */
        if (rc == Z_BUF_ERROR)
            rc = Z_OK;
    }
    /* A whole member must end exactly where its size says. */
    if (out_left == 0 && n == m->size && rc == Z_OK) {
        unsigned char extra;
        s.next_out = &extra;
        s.avail_out = 1;
        if (s.avail_in == 0 && in_left > 0) {
            s.next_in = (unsigned char *)(uintptr_t)in;
            s.avail_in = in_left > (int64_t)UINT32_MAX / 2 ? UINT32_MAX / 2 : (unsigned)in_left;
        }
        rc = inflate(&s, Z_FINISH);
        if (s.avail_out == 0)
            rc = Z_DATA_ERROR;
    }
    inflateEnd(&s);
    if (rc == Z_MEM_ERROR)
        return HL_ERR_NOMEM;
    if (out_left != 0 || (n == m->size && rc != Z_STREAM_END) ||
        (rc != Z_OK && rc != Z_STREAM_END))
        return HL_ERR_FORMAT;
    return HL_OK;
#else
    (void)z;
    (void)m;
    (void)out;
    (void)n;
    return HL_ERR_UNSUPPORTED;
#endif
}

static hl_status check_member(size_t len, const hl_npz_member *m)
{
    if (m->offset < 0 || m->stored < 0 || m->size < 0 || !has(len, (uint64_t)m->offset, (uint64_t)m->stored))
        return HL_ERR_ARG;
    if (m->method != 0 && m->method != 8)
        return HL_ERR_UNSUPPORTED;
    if (m->method == 0 && m->stored != m->size)
        return HL_ERR_FORMAT;
    return HL_OK;
}

hl_status hl_npz_extract(const void *zip, size_t len, const hl_npz_member *m, void *out)
{
    if (!zip || !m || (!out && m->size > 0))
        return HL_ERR_NULL;
    hl_status st = check_member(len, m);
    if (st != HL_OK)
        return st;
    const unsigned char *z = zip;
    if (m->method == 0)
        memcpy(out, z + m->offset, (size_t)m->size);
    else
        st = inflate_prefix(z, m, out, m->size);
    if (st == HL_OK && hl_crc32(0, out, (size_t)m->size) != m->crc32)
        st = HL_ERR_FORMAT;
    return st;
}

hl_status hl_npz_member_header(const void *zip, size_t len, const hl_npz_member *m, hl_npy_info *info)
{
    if (!zip || !m || !info)
        return HL_ERR_NULL;
    hl_status st = check_member(len, m);
    if (st != HL_OK)
        return st;
    const unsigned char *z = zip;
    hl_npy_info tmp;
    if (m->method == 0) {
        st = hl_npy_parse_header(z + m->offset, (size_t)m->size, &tmp);
    } else {
        /* The preamble says how much header there is: inflate that much. */
        unsigned char pre[12];
        int64_t n = m->size < 12 ? m->size : 12;
        st = inflate_prefix(z, m, pre, n);
        if (st == HL_OK && n < 12)
            st = HL_ERR_FORMAT;
        if (st == HL_OK) {
            uint64_t hlen = pre[6] == 1 ? rd16(pre + 8) : rd32(pre + 8);
            size_t total = (pre[6] == 1 ? 10 : 12) + (size_t)hlen;
            if (hlen > HL_NPY_MAX_HEADER)
                st = memcmp(pre, "\x93NUMPY", 6) ? HL_ERR_FORMAT : HL_ERR_UNSUPPORTED;
            else if ((int64_t)total > m->size)
                st = HL_ERR_FORMAT;
            unsigned char *buf = st == HL_OK ? malloc(total) : NULL;
            if (st == HL_OK && !buf)
                st = HL_ERR_NOMEM;
            if (st == HL_OK)
                st = inflate_prefix(z, m, buf, (int64_t)total);
            if (st == HL_OK)
                st = hl_npy_parse_header(buf, total, &tmp);
            free(buf);
        }
    }
    if (st != HL_OK)
        return st;
    tmp.file_bytes = m->size;
    if (tmp.data_bytes >= 0 && m->size - tmp.data_offset < tmp.data_bytes)
        return HL_ERR_FORMAT; /* the member is shorter than its data */
    *info = tmp;
    return HL_OK;
}

/* ---- files ------------------------------------------------------------------- */

/* The archive at path, mapped read-only. */
static hl_status map_file(const char *path, const unsigned char **z, size_t *len)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return HL_ERR_IO;
    struct stat sb;
    hl_status st = HL_OK;
    if (fstat(fd, &sb) != 0) {
        st = HL_ERR_IO;
    } else if (S_ISDIR(sb.st_mode)) {
        errno = EISDIR;
        st = HL_ERR_IO;
    } else if (!S_ISREG(sb.st_mode) || sb.st_size < END_FIXED || (uint64_t)sb.st_size > SIZE_MAX) {
        st = HL_ERR_FORMAT; /* too short for an end record (or not a file to map) */
    } else {
        void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            st = HL_ERR_IO;
        } else {
            *z = p;
            *len = (size_t)sb.st_size;
        }
    }
    int e = errno;
    close(fd);
    errno = e;
    return st;
}

/* Member m of the mapped archive, converted into a new buffer. */
static hl_status load_member(const unsigned char *z, size_t len, const hl_npz_member *m, hl_shape *shape,
                             void **data)
{
    hl_npy_info info;
    hl_status st = hl_npz_member_header(z, len, m, &info);
    if (st == HL_OK && info.unsupported)
        st = HL_ERR_UNSUPPORTED;
    if (st != HL_OK)
        return st;
    void *out = NULL, *tmp = NULL;
    const unsigned char *npy = z + m->offset;
    st = hl_npy_alloc(info.data_bytes, &out);
    if (st == HL_OK && m->method == 0) {
        if (hl_crc32(0, npy, (size_t)m->size) != m->crc32)
            st = HL_ERR_FORMAT;
    } else if (st == HL_OK) {
        st = hl_npy_alloc(m->size, &tmp);
        if (st == HL_OK)
            st = hl_npz_extract(z, len, m, tmp);
        npy = tmp;
    }
    if (st == HL_OK)
        st = hl_npy_to_native(&info, npy + info.data_offset, out);
    free(tmp);
    if (st != HL_OK) {
        free(out);
        return st;
    }
    *shape = info.shape;
    *data = out;
    return HL_OK;
}

hl_status hl_npz_load(const char *path, const char *name, hl_shape *shape, void **data)
{
    if (data)
        *data = NULL;
    if (!path || !shape || !data)
        return HL_ERR_NULL;
    const unsigned char *z = NULL;
    size_t len = 0;
    hl_status st = map_file(path, &z, &len);
    if (st != HL_OK)
        return st;
    hl_npz_member m;
    st = hl_npz_find(z, len, name, &m);
    if (st == HL_OK)
        st = load_member(z, len, &m, shape, data);
    munmap((void *)(uintptr_t)z, len);
    return st;
}
