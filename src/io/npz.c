/* hyperlayout — .npz archives: the zip reader (end records, central
 * directory, ZIP64 extra fields), member extraction (stored, or deflate
 * through zlib), and the writer of one-member stored archives.  Every read
 * of the archive goes through `has`, so a malformed archive can only be
 * refused, never read past. */
#define _XOPEN_SOURCE 700 /* mmap */

#include "hyperlayout/npz.h"
#include "atomic.h"
#include "npy_native.h"

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

enum {
    SIG_LOCAL = 0x04034b50,
    SIG_CENTRAL = 0x02014b50,
    SIG_END = 0x06054b50,
    SIG_END64 = 0x06064b50,
    SIG_LOCATOR64 = 0x07064b50,
    SIG_DESCRIPTOR = 0x08074b50,
    LOCAL_FIXED = 30,
    CENTRAL_FIXED = 46,
    END_FIXED = 22,
    END64_FIXED = 56,
    LOCATOR64_FIXED = 20,
    DESCRIPTOR64 = 24,
    ZIP64_EXTRA_ID = 1,
    VERSION_ZIP64 = 45,
    FLAG_ENCRYPTED = 1,
    FLAG_DESCRIPTOR = 8,
    DOS_DATE_1980 = 0x21, /* 1980-01-01: a fixed date keeps archives reproducible */
};

static const uint32_t MAX32 = 0xFFFFFFFFu;

static uint16_t rd16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const unsigned char *p) { return (uint32_t)rd16(p) | (uint32_t)rd16(p + 2) << 16; }
static uint64_t rd64(const unsigned char *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* [off, off + n) lies inside [0, len). */
static bool has(size_t len, uint64_t off, uint64_t n) { return off <= len && n <= len - off; }

/* ---- reading ---------------------------------------------------------------- */

typedef struct cd_iter {
    const unsigned char *z;
    const unsigned char *end_rec; /* the end of central directory record */
    size_t len;
    uint64_t p, end, left;
} cd_iter;

/* The end of central directory record, and the ZIP64 one when its locator
 * stands before it: where the central directory is and how many entries. */
static hl_status cd_open(const void *zip, size_t len, cd_iter *it)
{
    const unsigned char *z = zip;
    if (len < END_FIXED)
        return HL_ERR_FORMAT;
    size_t lo = len - END_FIXED > 0xFFFF ? len - END_FIXED - 0xFFFF : 0;
    size_t pos = len - END_FIXED + 1;
    bool found = false;
    while (pos-- > lo) /* the record is followed only by its comment */
        if (rd32(z + pos) == SIG_END && pos + END_FIXED + rd16(z + pos + 20) <= len) {
            found = true;
            break;
        }
    if (!found)
        return HL_ERR_FORMAT;
    const unsigned char *e = z + pos;
    uint64_t disk = rd16(e + 4), cd_disk = rd16(e + 6), on_disk = rd16(e + 8), entries = rd16(e + 10);
    uint64_t cd_size = rd32(e + 12), cd_off = rd32(e + 16);
    if (pos >= LOCATOR64_FIXED && rd32(e - LOCATOR64_FIXED) == SIG_LOCATOR64) {
        const unsigned char *loc = e - LOCATOR64_FIXED;
        uint64_t off = rd64(loc + 8);
        if (rd32(loc + 4) != 0 || rd32(loc + 16) > 1)
            return HL_ERR_UNSUPPORTED; /* multi-disk */
        if (!has(len, off, END64_FIXED) || rd32(z + off) != SIG_END64)
            return HL_ERR_FORMAT;
        const unsigned char *r = z + off;
        disk = rd32(r + 16);
        cd_disk = rd32(r + 20);
        on_disk = rd64(r + 24);
        entries = rd64(r + 32);
        cd_size = rd64(r + 40);
        cd_off = rd64(r + 48);
    }
    if (disk != 0 || cd_disk != 0 || on_disk != entries)
        return HL_ERR_UNSUPPORTED; /* multi-disk */
    if (!has(len, cd_off, cd_size) || entries > cd_size / CENTRAL_FIXED)
        return HL_ERR_FORMAT;
    it->z = z;
    it->end_rec = e;
    it->len = len;
    it->p = cd_off;
    it->end = cd_off + cd_size;
    it->left = entries;
    return HL_OK;
}

/* The fields of a central directory entry that are 0xFFFFFFFF are in its
 * ZIP64 extra field, in this order: sizes, then the local header offset. */
static hl_status zip64_extra(const unsigned char *x, size_t n, uint64_t *usize, uint64_t *csize,
                             uint64_t *offset)
{
    uint64_t *want[3] = {usize, csize, offset};
    while (n >= 4) {
        uint16_t id = rd16(x), sz = rd16(x + 2);
        if (sz > n - 4)
            return HL_ERR_FORMAT;
        if (id == ZIP64_EXTRA_ID) {
            const unsigned char *f = x + 4;
            size_t left = sz;
            for (int i = 0; i < 3; i++) {
                if (*want[i] != MAX32)
                    continue;
                if (left < 8)
                    return HL_ERR_FORMAT;
                *want[i] = rd64(f);
                f += 8;
                left -= 8;
            }
            return HL_OK;
        }
        x += 4 + sz;
        n -= 4 + (size_t)sz;
    }
    return HL_OK;
}

/* One central directory entry as it stands, its ZIP64 fields resolved. */
typedef struct cd_raw {
    const unsigned char *entry; /* the entry: fixed part, name, extra field, comment */
    size_t entry_len;
    const char *name;
    size_t nlen;
    uint16_t flags, method;
    uint32_t crc;
    uint64_t usize, csize, local; /* local: where its local header starts */
} cd_raw;

static hl_status cd_next_raw(cd_iter *it, cd_raw *r)
{
    const unsigned char *z = it->z;
    if (!has(it->end, it->p, CENTRAL_FIXED) || rd32(z + it->p) != SIG_CENTRAL)
        return HL_ERR_FORMAT;
    const unsigned char *c = z + it->p;
    size_t nlen = rd16(c + 28), xlen = rd16(c + 30), clen = rd16(c + 32);
    if (!has(it->end, it->p + CENTRAL_FIXED, (uint64_t)nlen + xlen + clen))
        return HL_ERR_FORMAT;
    r->entry = c;
    r->entry_len = CENTRAL_FIXED + nlen + xlen + clen;
    r->name = (const char *)c + CENTRAL_FIXED;
    r->nlen = nlen;
    r->flags = rd16(c + 8);
    r->method = rd16(c + 10);
    r->crc = rd32(c + 16);
    r->csize = rd32(c + 20);
    r->usize = rd32(c + 24);
    r->local = rd32(c + 42);
    hl_status st = zip64_extra(c + CENTRAL_FIXED + nlen, xlen, &r->usize, &r->csize, &r->local);
    if (st != HL_OK)
        return st;
    it->p += r->entry_len;
    it->left--;
    if (memchr(r->name, '\0', nlen) || r->csize > INT64_MAX || r->usize > INT64_MAX)
        return HL_ERR_FORMAT;
    /* the local header must be inside the archive */
    if (!has(it->len, r->local, LOCAL_FIXED) || rd32(z + r->local) != SIG_LOCAL)
        return HL_ERR_FORMAT;
    return HL_OK;
}

/* Where the data of the record at `local` starts: after its local header,
 * whose name and extra field may differ in length from the central
 * directory's. */
static uint64_t data_start(const unsigned char *z, uint64_t local)
{
    return local + LOCAL_FIXED + rd16(z + local + 26) + rd16(z + local + 28);
}

static hl_status cd_next(cd_iter *it, hl_npz_member *m)
{
    cd_raw r;
    hl_status st = cd_next_raw(it, &r);
    if (st != HL_OK)
        return st;
    if (r.flags & FLAG_ENCRYPTED)
        return HL_ERR_UNSUPPORTED;
    if (r.method == 0 && r.csize != r.usize)
        return HL_ERR_FORMAT;
    uint64_t data = data_start(it->z, r.local);
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
    hl_status st = cd_open(zip, len, &it);
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
    hl_status st = cd_open(zip, len, &it);
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

/* ---- writing ------------------------------------------------------------------- */

static unsigned char *wr16(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    return p + 2;
}
static unsigned char *wr32(unsigned char *p, uint32_t v) { return wr16(wr16(p, v & 0xFFFF), v >> 16); }
static unsigned char *wr64(unsigned char *p, uint64_t v)
{
    return wr32(wr32(p, (uint32_t)v), (uint32_t)(v >> 32));
}

/* The zip name: NAME, with ".npy" appended unless it ends so. */
static hl_status zip_name(const char *name, char out[HL_NPZ_NAME_MAX + 4], size_t *n)
{
    if (!name)
        return HL_ERR_NULL;
    size_t len = strlen(name);
    if (len == 0 || len >= HL_NPZ_NAME_MAX)
        return HL_ERR_ARG;
    memcpy(out, name, len);
    if (!(len >= 4 && !strcmp(name + len - 4, ".npy"))) {
        memcpy(out + len, ".npy", 4);
        len += 4;
    }
    *n = len;
    return HL_OK;
}

static size_t local_len(size_t nlen) { return LOCAL_FIXED + nlen + 20; }

hl_status hl_npz_format_local(const char *name, void *buf, size_t cap, size_t *len)
{
    return hl_npz_format_local_method(name, 0, buf, cap, len);
}

hl_status hl_npz_format_local_method(const char *name, int method, void *buf, size_t cap,
                                     size_t *len)
{
    char zn[HL_NPZ_NAME_MAX + 4];
    size_t nlen;
    if (!len || (!buf && cap > 0))
        return HL_ERR_NULL;
    hl_status st = zip_name(name, zn, &nlen);
    if (st != HL_OK)
        return st;
    *len = local_len(nlen);
    if (cap < *len)
        return HL_ERR_BUFFER;
    unsigned char *p = buf;
    p = wr32(p, SIG_LOCAL);
    p = wr16(p, VERSION_ZIP64);
    p = wr16(p, FLAG_DESCRIPTOR);
    p = wr16(p, method == 8 ? 8 : 0); /* deflated or stored */
    p = wr16(p, 0);             /* time */
    p = wr16(p, DOS_DATE_1980); /* date */
    p = wr32(p, 0);             /* CRC: in the data descriptor */
    p = wr32(p, MAX32);         /* sizes: in the ZIP64 field, then the descriptor */
    p = wr32(p, MAX32);
    p = wr16(p, (uint32_t)nlen);
    p = wr16(p, 20);
    memcpy(p, zn, nlen);
    p += nlen;
    p = wr16(p, ZIP64_EXTRA_ID);
    p = wr16(p, 16);
    p = wr64(p, 0);
    wr64(p, 0);
    return HL_OK;
}

/* ---- rewriting an archive: one member replaced or added, the others kept ---- */

typedef struct edit_entry {
    const unsigned char *entry; /* the old central entry (in edit->blob); NULL: the new member */
    uint64_t usize, csize;
    uint64_t local;             /* its local header's offset in the new archive */
} edit_entry;

typedef struct edit_range {
    uint64_t from, len, to; /* a kept record: old offset, length, new offset */
} edit_range;

struct hl_npz_edit {
    char zn[HL_NPZ_NAME_MAX + 4]; /* the new member's zip name */
    size_t nlen;
    edit_entry *entries;          /* in the new directory's order */
    int64_t n;
    edit_range *ranges;
    int64_t nranges;
    uint64_t member;              /* the new member's local header offset */
    unsigned char *blob;          /* the old central directory and archive comment */
    const unsigned char *comment; /* the archive comment: the blob's last bytes */
    size_t comment_len;
    int method;                   /* the replaced member's (its last entry's): 0 or 8 */
};

void hl_npz_edit_destroy(hl_npz_edit *e)
{
    if (!e)
        return;
    free(e->entries);
    free(e->ranges);
    free(e->blob);
    free(e);
}

typedef struct record_start {
    uint64_t off;
    bool removed; /* the replaced member's record */
} record_start;

static int by_offset(const void *a, const void *b)
{
    const record_start *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* The kept records, compacted in their old order: which byte ranges to
 * copy, and each kept entry's new local header offset. */
static hl_status plan_ranges(hl_npz_edit *e, const unsigned char *z, record_start *starts,
                             int64_t ns, uint64_t cd_off)
{
    qsort(starts, (size_t)ns, sizeof *starts, by_offset);
    e->ranges = malloc(((size_t)ns + 1) * sizeof *e->ranges);
    if (!e->ranges)
        return HL_ERR_NOMEM;
    uint64_t to = 0;
    for (int64_t i = 0; i < ns;) {
        int64_t j = i;
        bool removed = false, kept = false;
        for (; j < ns && starts[j].off == starts[i].off; j++)
            *(starts[j].removed ? &removed : &kept) = true;
        if (removed && kept)
            return HL_ERR_FORMAT; /* the replaced member's record is another's too */
        const uint64_t end = j < ns ? starts[j].off : cd_off;
        if (starts[i].off >= cd_off)
            return HL_ERR_UNSUPPORTED; /* a record after the central directory */
        if (kept) {
            e->ranges[e->nranges++] = (edit_range){starts[i].off, end - starts[i].off, to};
            to += end - starts[i].off;
        }
        i = j;
    }
    e->member = to;
    for (int64_t k = 0; k < e->n; k++) {
        edit_entry *en = &e->entries[k];
        if (!en->entry) {
            en->local = e->member;
            continue;
        }
        const uint64_t old = en->local;
        int64_t lo = 0, hi = e->nranges - 1;
        while (lo < hi) { /* the range that starts at `old` */
            int64_t mid = (lo + hi) / 2;
            if (e->ranges[mid].from < old)
                lo = mid + 1;
            else
                hi = mid;
        }
        const edit_range *r = &e->ranges[lo];
        if (!has(r->from + r->len, data_start(z, old), en->csize))
            return HL_ERR_FORMAT; /* its data runs into the next record */
        en->local = r->to;
    }
    return HL_OK;
}

hl_status hl_npz_edit_open(hl_npz_edit **out, const void *zip, size_t len, const char *name)
{
    if (!out)
        return HL_ERR_NULL;
    *out = NULL;
    if (!zip && len > 0)
        return HL_ERR_NULL;
    hl_npz_edit *e = calloc(1, sizeof *e);
    if (!e)
        return HL_ERR_NOMEM;
    hl_status st = zip_name(name, e->zn, &e->nlen);
    cd_iter it = {0};
    if (st == HL_OK && len > 0)
        st = cd_open(zip, len, &it);
    const uint64_t cd_off = it.p, cd_len = it.end - it.p;
    const unsigned char *z = zip;
    if (st == HL_OK && len > 0) {
        e->comment_len = rd16(it.end_rec + 20); /* the archive comment follows the end record */
        e->blob = malloc(cd_len + e->comment_len + 1);
        e->entries = malloc((it.left + 1) * sizeof *e->entries);
        if (!e->blob || !e->entries)
            st = HL_ERR_NOMEM;
    } else if (st == HL_OK) {
        e->entries = malloc(sizeof *e->entries);
        st = e->entries ? HL_OK : HL_ERR_NOMEM;
    }
    record_start *starts = st == HL_OK ? malloc((it.left + 1) * sizeof *starts) : NULL;
    if (st == HL_OK && !starts)
        st = HL_ERR_NOMEM;
    int64_t ns = 0;
    bool placed = false; /* the new member has its entry */
    if (st == HL_OK && len > 0) {
        memcpy(e->blob, z + cd_off, cd_len);
        memcpy(e->blob + cd_len, it.end_rec + END_FIXED, e->comment_len);
        e->comment = e->blob + cd_len;
    }
    while (st == HL_OK && it.left > 0) {
        cd_raw r;
        if ((st = cd_next_raw(&it, &r)) != HL_OK)
            break;
        const bool replaced = r.nlen == e->nlen && !memcmp(r.name, e->zn, e->nlen);
        starts[ns++] = (record_start){r.local, replaced};
        if (replaced) /* the entry NumPy reads is the last of the name */
            e->method = r.method == 8 ? 8 : 0;
        if (replaced && placed)
            continue; /* a second entry of that name goes too */
        placed |= replaced;
        e->entries[e->n++] = (edit_entry){replaced ? NULL : e->blob + (r.entry - (z + cd_off)),
                                          r.usize, r.csize, r.local};
    }
    if (st == HL_OK && !placed)
        e->entries[e->n++] = (edit_entry){NULL, 0, 0, 0};
    if (st == HL_OK)
        st = plan_ranges(e, z, starts, ns, cd_off);
    free(starts);
    if (st != HL_OK) {
        hl_npz_edit_destroy(e);
        return st;
    }
    *out = e;
    return HL_OK;
}

bool hl_npz_edit_copy(const hl_npz_edit *e, int64_t i, int64_t *offset, int64_t *len)
{
    if (!e || i < 0 || i >= e->nranges || !offset || !len)
        return false;
    *offset = (int64_t)e->ranges[i].from;
    *len = (int64_t)e->ranges[i].len;
    return true;
}

/* Writes (p not NULL) and measures entry en of the new directory: an old
 * entry as it was but for its offset and ZIP64 field, or the new member's.
 * 0 when the entry's extra field would overflow. */
static size_t central_entry(unsigned char *p, const hl_npz_edit *e, const edit_entry *en,
                            uint32_t crc, uint64_t size, uint64_t stored, int method)
{
    const uint64_t usize = en->entry ? en->usize : size, csize = en->entry ? en->csize : stored;
    const int nu = usize >= MAX32, nc = csize >= MAX32, no = en->local >= MAX32;
    const size_t z64 = nu + nc + no ? 4 + 8 * (size_t)(nu + nc + no) : 0;
    const unsigned char *c = en->entry;
    size_t nlen = e->nlen, xlen = 0, clen = 0, other = 0;
    if (c) {
        nlen = rd16(c + 28);
        xlen = rd16(c + 30);
        clen = rd16(c + 32);
        const unsigned char *x = c + CENTRAL_FIXED + nlen;
        for (size_t at = 0; at + 4 <= xlen && at + 4 + rd16(x + at + 2) <= xlen; at += 4 + rd16(x + at + 2))
            if (rd16(x + at) != ZIP64_EXTRA_ID)
                other += 4 + rd16(x + at + 2);
    }
    if (other + z64 > 0xFFFF)
        return 0;
    const size_t total = CENTRAL_FIXED + nlen + other + z64 + clen;
    if (!p)
        return total;
    if (c) {
        memcpy(p, c, CENTRAL_FIXED);
        if (z64 && rd16(c + 6) < VERSION_ZIP64)
            wr16(p + 6, VERSION_ZIP64);
    } else {
        unsigned char *q = p;
        q = wr32(q, SIG_CENTRAL);
        q = wr16(q, 3u << 8 | VERSION_ZIP64); /* made by: Unix, so the mode bits below count */
        q = wr16(q, VERSION_ZIP64);
        q = wr16(q, FLAG_DESCRIPTOR);
        q = wr16(q, method == 8 ? 8 : 0); /* deflated or stored */
        q = wr16(q, 0);
        q = wr16(q, DOS_DATE_1980);
        q = wr32(q, crc);
        wr16(p + 28, (uint32_t)nlen);
        wr16(p + 32, 0);               /* comment */
        wr16(p + 36, 0);               /* internal attributes */
        wr32(p + 38, 0100644u << 16);  /* a regular file, rw-r--r-- */
    }
    wr32(p + 20, nc ? MAX32 : (uint32_t)csize);
    wr32(p + 24, nu ? MAX32 : (uint32_t)usize);
    wr16(p + 30, (uint32_t)(other + z64));
    wr16(p + 34, 0); /* disk */
    wr32(p + 42, no ? MAX32 : (uint32_t)en->local);
    unsigned char *q = p + CENTRAL_FIXED;
    memcpy(q, c ? (const char *)c + CENTRAL_FIXED : e->zn, nlen);
    q += nlen;
    if (c) {
        const unsigned char *x = c + CENTRAL_FIXED + nlen;
        for (size_t at = 0; at + 4 <= xlen && at + 4 + rd16(x + at + 2) <= xlen; at += 4 + rd16(x + at + 2))
            if (rd16(x + at) != ZIP64_EXTRA_ID) {
                memcpy(q, x + at, 4 + (size_t)rd16(x + at + 2));
                q += 4 + rd16(x + at + 2);
            }
    }
    if (z64) {
        q = wr16(q, ZIP64_EXTRA_ID);
        q = wr16(q, (uint32_t)(z64 - 4));
        if (nu)
            q = wr64(q, usize);
        if (nc)
            q = wr64(q, csize);
        if (no)
            q = wr64(q, en->local);
    }
    if (c)
        memcpy(q, c + CENTRAL_FIXED + nlen + xlen, clen);
    return total;
}

int hl_npz_edit_method(const hl_npz_edit *e) { return e ? e->method : 0; }

hl_status hl_npz_edit_tail(const hl_npz_edit *e, uint32_t crc, int64_t size, void *buf, size_t cap,
                           size_t *len)
{
    return hl_npz_edit_tail_method(e, crc, size, size, 0, buf, cap, len);
}

hl_status hl_npz_edit_tail_method(const hl_npz_edit *e, uint32_t crc, int64_t size, int64_t stored,
                                  int method, void *buf, size_t cap, size_t *len)
{
    if (!e || !len || (!buf && cap > 0))
        return HL_ERR_NULL;
    if (size < 0 || stored < 0)
        return HL_ERR_RANGE;
    const uint64_t usize = (uint64_t)size, csize = (uint64_t)stored;
    const uint64_t desc_off = e->member + local_len(e->nlen) + csize;
    if (desc_off < csize || desc_off > (uint64_t)INT64_MAX - 4096)
        return HL_ERR_RANGE;
    const uint64_t cd_off = desc_off + DESCRIPTOR64;
    uint64_t cd_size = 0;
    for (int64_t k = 0; k < e->n; k++) {
        size_t one = central_entry(NULL, e, &e->entries[k], crc, usize, csize, method);
        if (one == 0)
            return HL_ERR_UNSUPPORTED;
        cd_size += one;
    }
    const uint64_t n = (uint64_t)e->n;
    const bool far = cd_off >= MAX32 || cd_size >= MAX32 || n >= 0xFFFF; /* ZIP64 end records */
    const uint64_t total = DESCRIPTOR64 + cd_size + (far ? END64_FIXED + LOCATOR64_FIXED : 0) +
                           END_FIXED + e->comment_len;
    if (total > SIZE_MAX)
        return HL_ERR_RANGE;
    *len = (size_t)total;
    if (cap < *len)
        return HL_ERR_BUFFER;
    unsigned char *p = buf;
    p = wr32(p, SIG_DESCRIPTOR);
    p = wr32(p, crc);
    p = wr64(p, csize); /* 8-byte sizes: the local header has a ZIP64 field */
    p = wr64(p, usize);
    for (int64_t k = 0; k < e->n; k++)
        p += central_entry(p, e, &e->entries[k], crc, usize, csize, method);
    if (far) {
        p = wr32(p, SIG_END64);
        p = wr64(p, END64_FIXED - 12); /* the record's size after this field */
        p = wr16(p, 3u << 8 | VERSION_ZIP64);
        p = wr16(p, VERSION_ZIP64);
        p = wr32(p, 0);
        p = wr32(p, 0);
        p = wr64(p, n);
        p = wr64(p, n);
        p = wr64(p, cd_size);
        p = wr64(p, cd_off);
        p = wr32(p, SIG_LOCATOR64);
        p = wr32(p, 0);
        p = wr64(p, cd_off + cd_size);
        p = wr32(p, 1);
    }
    p = wr32(p, SIG_END);
    p = wr16(p, 0);
    p = wr16(p, 0);
    p = wr16(p, n >= 0xFFFF ? 0xFFFF : (uint32_t)n);
    p = wr16(p, n >= 0xFFFF ? 0xFFFF : (uint32_t)n);
    p = wr32(p, cd_size >= MAX32 ? MAX32 : (uint32_t)cd_size);
    p = wr32(p, far ? MAX32 : (uint32_t)cd_off);
    p = wr16(p, (uint32_t)e->comment_len);
    if (e->comment_len)
        memcpy(p, e->comment, e->comment_len);
    return HL_OK;
}

hl_status hl_npz_format_tail(const char *name, uint32_t crc, int64_t size, void *buf, size_t cap,
                             size_t *len)
{
    if (!len || (!buf && cap > 0))
        return HL_ERR_NULL;
    hl_npz_edit *e;
    hl_status st = hl_npz_edit_open(&e, NULL, 0, name);
    if (st == HL_OK)
        st = hl_npz_edit_tail(e, crc, size, buf, cap, len);
    hl_npz_edit_destroy(e);
    return st;
}

hl_status hl_npz_save(const char *path, const char *name, const hl_shape *s, const void *data)
{
    if (!path || !name || !s || !data)
        return HL_ERR_NULL;
    unsigned char local[LOCAL_FIXED + HL_NPZ_NAME_MAX + 4 + 20];
    unsigned char header[2048];
    unsigned char tail[DESCRIPTOR64 + CENTRAL_FIXED + HL_NPZ_NAME_MAX + 4 + 20 + END64_FIXED +
                       LOCATOR64_FIXED + END_FIXED];
    size_t llen, hlen, tlen;
    hl_status st = hl_npz_format_local(name, local, sizeof local, &llen);
    if (st == HL_OK)
        st = hl_npy_format_header(s, header, sizeof header, &hlen);
    if (st != HL_OK)
        return st;
    size_t bytes = (size_t)hl_shape_bytes(s);
    uint32_t crc = hl_crc32(hl_crc32(0, header, hlen), data, bytes);
    st = hl_npz_format_tail(name, crc, (int64_t)(hlen + bytes), tail, sizeof tail, &tlen);
    if (st != HL_OK)
        return st;
    const void *chunks[4] = {local, header, data, tail};
    size_t lens[4] = {llen, hlen, bytes, tlen};
    return hl_atomic_write(path, 4, chunks, lens);
}

/* ---- deflating a member as it is written ------------------------------------ */

struct hl_npz_deflater {
#ifdef HL_HAVE_ZLIB
    z_stream s;
#endif
    unsigned char *buf; /* the compressed bytes of the last call */
    size_t cap;
};

hl_status hl_npz_deflater_open(hl_npz_deflater **out)
{
    if (!out)
        return HL_ERR_NULL;
    *out = NULL;
#ifdef HL_HAVE_ZLIB
    hl_npz_deflater *d = calloc(1, sizeof *d);
    if (!d)
        return HL_ERR_NOMEM;
    /* level 6 and raw deflate, as Python's zipfile writes np.savez_compressed */
    if (deflateInit2(&d->s, 6, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(d);
        return HL_ERR_NOMEM;
    }
    *out = d;
    return HL_OK;
#else
    return HL_ERR_UNSUPPORTED;
#endif
}

hl_status hl_npz_deflater_put(hl_npz_deflater *d, const void *in, size_t len, bool finish,
                              const void **out, size_t *out_len)
{
    if (!d || !out || !out_len || (!in && len > 0))
        return HL_ERR_NULL;
#ifdef HL_HAVE_ZLIB
    size_t done = 0;
    const unsigned char *p = in;
    for (;;) {
        /* in pieces zlib's 32-bit counts can hold */
        const uInt part = len - (size_t)(p - (const unsigned char *)in) > (1u << 30)
                              ? (1u << 30)
                              : (uInt)(len - (size_t)(p - (const unsigned char *)in));
        const bool last = (size_t)(p - (const unsigned char *)in) + part == len;
        d->s.next_in = (Bytef *)(uintptr_t)p; /* zlib does not write its input */
        d->s.avail_in = part;
        int rc;
        do {
            if (d->cap - done < 65536) {
                const size_t ncap = d->cap ? 2 * d->cap : (size_t)1 << 20;
                unsigned char *b = realloc(d->buf, ncap);
                if (!b)
                    return HL_ERR_NOMEM;
                d->buf = b;
                d->cap = ncap;
            }
            d->s.next_out = d->buf + done;
            d->s.avail_out = (uInt)(d->cap - done > (1u << 30) ? (1u << 30) : d->cap - done);
            const uInt before = d->s.avail_out;
            rc = deflate(&d->s, last && finish ? Z_FINISH : Z_NO_FLUSH);
            done += before - d->s.avail_out;
            if (rc == Z_STREAM_ERROR)
                return HL_ERR_ARG;
        } while (d->s.avail_out == 0 || d->s.avail_in > 0 || (last && finish && rc != Z_STREAM_END));
        p += part;
        if (last)
            break;
    }
    *out = d->buf;
    *out_len = done;
    return HL_OK;
#else
    (void)finish;
    return HL_ERR_UNSUPPORTED;
#endif
}

void hl_npz_deflater_destroy(hl_npz_deflater *d)
{
    if (!d)
        return;
#ifdef HL_HAVE_ZLIB
    deflateEnd(&d->s);
#endif
    free(d->buf);
    free(d);
}
