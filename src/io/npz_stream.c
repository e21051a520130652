/* hyperlayout — a .npy file or an .npz archive read from a stream (a pipe,
 * a terminal, a device; include/hyperlayout/npz.h): headers first, then
 * exactly the bytes they announce.  A stream cannot be mapped or searched
 * from its end, so an archive on it is read member by member through the
 * local headers, as it arrives; the member wanted is kept, the others are
 * read past without being kept.  The ZIP structure (signatures, local
 * headers, ZIP64 fields) is read as the mapped reader reads it (zip.h). */
#include "hyperlayout/npz.h"
#include "zip.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { NPY_PREAMBLE = 12 }; /* magic, version, header length (4 bytes from version 2) */

typedef struct stream {
    int fd;
    const char *label;
    char *why;
    size_t cap;
    const hl_npz_stream_options *opt;
} stream;

/* The kept file's memory: the caller's allocator, else malloc. */
static void *keep_alloc(const stream *r, size_t n)
{
    const hl_npz_stream_options *o = r->opt;
    return o && o->alloc ? o->alloc(n, o->user) : malloc(n ? n : 1);
}

static void keep_free(const stream *r, void *p, size_t n)
{
    const hl_npz_stream_options *o = r->opt;
    if (!p)
        return;
    if (o && o->release)
        o->release(p, n, o->user);
    else
        free(p);
}

/* "LABEL: member 'NAME': REASON" (NAME NULL: the only one). */
static void member_error(const stream *r, const char *name, const char *reason)
{
    snprintf(r->why, r->cap, "%s: %s%s%s%s", r->label, name ? "member '" : "", name ? name : "",
             name ? "': " : "", reason);
}

/* Up to n bytes: fewer only at the end of the stream. -1 on a read error. */
static int64_t take(stream *r, void *p, uint64_t n)
{
    uint64_t got = 0;
    while (got < n) {
        size_t want = n - got < ((size_t)1 << 30) ? (size_t)(n - got) : (size_t)1 << 30;
        ssize_t k = read(r->fd, (unsigned char *)p + got, want);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            snprintf(r->why, r->cap, "%s: %s", r->label, strerror(errno));
            return -1;
        }
        if (k == 0)
            break;
        got += (uint64_t)k;
    }
    return (int64_t)got;
}

static hl_status truncated(stream *r, const char *what)
{
    snprintf(r->why, r->cap, "%s: truncated: the stream ends inside %s", r->label, what);
    return HL_ERR_FORMAT;
}

/* Exactly n bytes. */
static hl_status need(stream *r, void *p, uint64_t n, const char *what)
{
    int64_t got = take(r, p, n);
    if (got < 0)
        return HL_ERR_IO;
    return (uint64_t)got == n ? HL_OK : truncated(r, what);
}

/* n bytes read past (kept = NULL) or kept. */
static hl_status pass(stream *r, unsigned char *kept, uint64_t n, const char *what)
{
    if (kept)
        return need(r, kept, n, what);
    unsigned char sink[1 << 16];
    for (uint64_t left = n; left > 0;) {
        uint64_t k = left < sizeof sink ? left : sizeof sink;
        hl_status st = need(r, sink, k, what);
        if (st != HL_OK)
            return st;
        left -= k;
    }
    return HL_OK;
}

/* A .npy file's header from the stream, `have` bytes of it (< 12) already
 * in head: *len gets the file's size (header and data), *header_len the
 * header's, and *bytes (unless NULL) a new buffer of *len bytes holding the
 * header, the data not yet read. */
static hl_status npy_head(stream *r, unsigned char *head, size_t have, const char *what,
                          unsigned char **bytes, size_t *len, size_t *header_len)
{
    hl_status st = need(r, head + have, 10 - have, what);
    if (st == HL_OK && memcmp(head, "\x93NUMPY", 6) != 0) {
        snprintf(r->why, r->cap, "%s: not a .npy file, nor an .npz archive", r->label);
        st = HL_ERR_FORMAT;
    }
    if (st == HL_OK && head[6] != 1)
        st = need(r, head + 10, 2, what);
    if (st != HL_OK)
        return st;
    const size_t pre = head[6] == 1 ? 10 : 12;
    const uint64_t hlen = head[6] == 1 ? rd16(head + 8) : rd32(head + 8);
    if (hlen > HL_NPY_MAX_HEADER) {
        snprintf(r->why, r->cap, "%s: a .npy header of %" PRIu64 " bytes (hyperlayout reads up to %d)",
                 r->label, hlen, HL_NPY_MAX_HEADER);
        return HL_ERR_UNSUPPORTED;
    }
    unsigned char *h = malloc(pre + hlen);
    if (!h)
        return HL_ERR_NOMEM;
    memcpy(h, head, pre);
    hl_npy_info info;
    st = need(r, h + pre, hlen, what);
    if (st == HL_OK && (st = hl_npy_parse_header(h, pre + hlen, &info)) != HL_OK)
        snprintf(r->why, r->cap, "%s: %s", r->label,
                 st == HL_ERR_FORMAT ? "not a .npy file, or a malformed one" : hl_strerror(st));
    if (st == HL_OK && (info.unsupported || info.data_bytes < 0)) {
        snprintf(r->why, r->cap, "%s: hyperlayout cannot hold its array: %s", r->label,
                 info.unsupported ? info.unsupported : "elements of unknown size");
        st = HL_ERR_UNSUPPORTED;
    }
    const uint64_t total = pre + hlen + (uint64_t)(st == HL_OK ? info.data_bytes : 0);
    unsigned char *b = st == HL_OK && bytes && total <= SIZE_MAX ? keep_alloc(r, (size_t)total) : NULL;
    if (st == HL_OK && bytes && !b) {
        snprintf(r->why, r->cap, "%s: %" PRIu64 " bytes announced: %s", r->label, total,
                 strerror(errno));
        st = HL_ERR_NOMEM;
    }
    if (st == HL_OK) {
        if (b)
            memcpy(b, h, pre + hlen);
        if (bytes)
            *bytes = b;
        *len = (size_t)total;
        *header_len = pre + hlen;
    }
    free(h);
    return st;
}

/* Nothing after what was announced: waits for the end of the stream. */
static hl_status at_end(stream *r, const char *what)
{
    unsigned char extra;
    const int64_t k = take(r, &extra, 1);
    if (k == 1) {
        snprintf(r->why, r->cap, "%s: longer than %s", r->label, what);
        return HL_ERR_FORMAT;
    }
    return k < 0 ? HL_ERR_IO : HL_OK;
}

/* A .npy file: header, exactly its data, then the end. */
static hl_status stream_npy(stream *r, unsigned char head[NPY_PREAMBLE], unsigned char **buf,
                            size_t *buf_len)
{
    size_t hl;
    hl_status st = npy_head(r, head, 4, "the .npy header", buf, buf_len, &hl);
    if (st != HL_OK)
        return st;
    const int64_t got = take(r, *buf + hl, *buf_len - hl);
    if (got < 0)
        return HL_ERR_IO;
    if ((uint64_t)got < *buf_len - hl) {
        snprintf(r->why, r->cap, "%s: truncated: the header announces %zu bytes of data, the "
                 "stream held %" PRId64, r->label, *buf_len - hl, got);
        return HL_ERR_FORMAT;
    }
    return at_end(r, "its header announces");
}

/* The member entry named `name` matches `want` as hl_npz_find matches:
 * "a" or "a.npy" for the entry "a.npy". */
static bool matches(const char *name, size_t nlen, const char *want)
{
    size_t w = strlen(want), keep = nlen >= 4 && !memcmp(name + nlen - 4, ".npy", 4) ? nlen - 4 : nlen;
    if (nlen == w && !memcmp(name, want, w))
        return true;
    if (w >= 4 && !strcmp(want + w - 4, ".npy"))
        w -= 4;
    return keep == w && !memcmp(name, want, w);
}

typedef struct record {
    char name[HL_NPZ_NAME_MAX]; /* as the archive lists it */
    char key[HL_NPZ_NAME_MAX];  /* without ".npy": np.load's key */
    uint16_t flags, method;
    uint32_t crc;
    uint64_t usize, csize;
    bool zip64;
} record;

/* The data descriptor after a member written as a stream. */
static hl_status descriptor(stream *r, record *m)
{
    unsigned char d[24];
    hl_status st = need(r, d, 4, "a data descriptor");
    const bool sig = st == HL_OK && rd32(d) == SIG_DESCRIPTOR;
    const size_t rest = (sig ? 4 : 0) + (m->zip64 ? 16 : 8);
    if (st == HL_OK)
        st = need(r, d + 4, rest, "a data descriptor");
    if (st != HL_OK)
        return st;
    const unsigned char *p = d + (sig ? 4 : 0);
    m->crc = rd32(p);
    const uint64_t c = m->zip64 ? rd64(p + 4) : rd32(p + 4), u = m->zip64 ? rd64(p + 12) : rd32(p + 8);
    if (c != m->csize || u != m->usize) {
        snprintf(r->why, r->cap, "%s: member '%s': its data descriptor gives other sizes than its "
                 "contents", r->label, m->key);
        return HL_ERR_FORMAT;
    }
    return HL_OK;
}

/* One member's contents: kept in *out (its .npy bytes, verified) when
 * `keep`, else read past. */
static hl_status member_data(stream *r, record *m, bool keep, unsigned char **out, size_t *out_len)
{
    const bool streamed = m->flags & FLAG_DESCRIPTOR;
    unsigned char *data = NULL;
    size_t len = 0;
    hl_status st = HL_OK;
    if (streamed && m->method != 0) {
        member_error(r, m->key, "compressed and written as a stream (its size follows its data): "
                     "save the archive to a file and read the file");
        return HL_ERR_UNSUPPORTED;
    }
    if (streamed) { /* stored: the .npy header inside announces the size */
        unsigned char head[NPY_PREAMBLE];
        size_t hl;
        st = npy_head(r, head, 0, "an archive member", keep ? &data : NULL, &len, &hl);
        if (st == HL_OK)
            st = pass(r, data ? data + hl : NULL, len - hl, "an archive member");
        m->usize = m->csize = len;
        if (st == HL_OK)
            st = descriptor(r, m);
    } else if (keep) {
        if (m->csize > SIZE_MAX || !(data = keep_alloc(r, len = (size_t)m->csize))) {
            snprintf(r->why, r->cap, "%s: member '%s' of %" PRIu64 " bytes: %s", r->label, m->key,
                     m->csize, strerror(errno ? errno : ENOMEM));
            return HL_ERR_NOMEM;
        }
        st = need(r, data, m->csize, "an archive member");
    } else {
        st = pass(r, NULL, m->csize, "an archive member");
    }
    if (st == HL_OK && keep) {
        const hl_npz_member z = {.offset = 0, .size = (int64_t)m->usize, .stored = (int64_t)m->csize,
                                 .method = m->method, .crc32 = m->crc};
        unsigned char *npy = data;
        if (m->method == 0 && !r->opt->no_verify && hl_crc32(0, data, len) != m->crc) {
            member_error(r, m->key, "its CRC-32 does not match its bytes (the archive is damaged; "
                         "--no-verify reads it as it is)");
            st = HL_ERR_FORMAT;
        } else if (m->method != 0) {
            npy = m->usize <= SIZE_MAX ? keep_alloc(r, (size_t)m->usize) : NULL;
            st = !npy ? HL_ERR_NOMEM : hl_npz_extract(data, len, &z, npy);
            if (st != HL_OK)
                member_error(r, m->key, st == HL_ERR_NOMEM ? strerror(ENOMEM) :
                             st == HL_ERR_FORMAT ? "damaged: it does not inflate to its size or "
                             "its CRC-32 does not match" : hl_strerror(st));
            keep_free(r, data, len);
            data = npy;
            len = (size_t)m->usize;
            if (st != HL_OK && npy) {
                keep_free(r, npy, len);
                data = NULL;
            }
        }
    }
    if (st != HL_OK) {
        keep_free(r, data, len);
        return st;
    }
    *out = data;
    *out_len = len;
    return HL_OK;
}

/* A local header, its signature (in h) read. */
static hl_status local_header(stream *r, unsigned char h[LOCAL_FIXED], record *m)
{
    unsigned char var[2 * 0xFFFF];
    hl_status st = need(r, h + 4, LOCAL_FIXED - 4, "a member's header");
    if (st != HL_OK)
        return st;
    memset(m, 0, sizeof *m);
    zip_local l;
    hl_zip_local_read(h, &l);
    m->flags = l.flags;
    m->method = l.method;
    m->crc = l.crc;
    m->csize = l.csize;
    m->usize = l.usize;
    const size_t nlen = l.nlen, xlen = l.xlen;
    if ((st = need(r, var, nlen + xlen, "a member's header")) != HL_OK)
        return st;
    if (memchr(var, '\0', nlen) || nlen >= sizeof m->name) {
        snprintf(r->why, r->cap, "%s: an archive member's name is %s", r->label,
                 nlen >= sizeof m->name ? "too long" : "malformed");
        return nlen >= sizeof m->name ? HL_ERR_UNSUPPORTED : HL_ERR_FORMAT;
    }
    memcpy(m->name, var, nlen);
    memcpy(m->key, var, nlen >= 4 && !memcmp(var + nlen - 4, ".npy", 4) ? nlen - 4 : nlen);
    uint64_t no_offset = 0; /* a local header has none */
    if (hl_zip64_extra(var + nlen, xlen, &m->usize, &m->csize, &no_offset, &m->zip64) != HL_OK) {
        member_error(r, m->key, "its header's extra field is malformed");
        return HL_ERR_FORMAT;
    }
    if (m->flags & FLAG_ENCRYPTED) {
        member_error(r, m->key, "encrypted");
        return HL_ERR_UNSUPPORTED;
    }
    if (m->method != 0 && m->method != 8) {
        member_error(r, m->key, "compressed by a method other than deflate");
        return HL_ERR_UNSUPPORTED;
    }
    if (!(m->flags & FLAG_DESCRIPTOR) && m->method == 0 && m->csize != m->usize) {
        member_error(r, m->key, "stored with two different sizes");
        return HL_ERR_FORMAT;
    }
    return HL_OK;
}

/* The central directory and end records, read past; each says how long it
 * is, and nothing may follow the last. */
static hl_status directory(stream *r, uint32_t sig)
{
    const char *what = "the archive's directory";
    unsigned char f[44];
    hl_status st = HL_OK;
    while (st == HL_OK && sig == SIG_CENTRAL) { /* 46 bytes, then name, extra field, comment */
        if ((st = need(r, f, 42, what)) == HL_OK)
            st = pass(r, NULL, (uint64_t)rd16(f + 24) + rd16(f + 26) + rd16(f + 28), what);
        if (st == HL_OK && (st = need(r, f, 4, what)) == HL_OK)
            sig = rd32(f);
    }
    if (st == HL_OK && sig == SIG_END64) { /* its size after the size field */
        if ((st = need(r, f, 8, what)) == HL_OK)
            st = rd64(f) > 1 << 20 ? HL_ERR_FORMAT : pass(r, NULL, rd64(f), what);
        if (st == HL_OK && (st = need(r, f, 4, what)) == HL_OK)
            sig = rd32(f);
    }
    if (st == HL_OK && sig == SIG_LOCATOR64) {
        if ((st = need(r, f, 16, what)) == HL_OK && (st = need(r, f, 4, what)) == HL_OK)
            sig = rd32(f);
    }
    if (st == HL_OK && sig == SIG_END) { /* 22 bytes, then the comment */
        if ((st = need(r, f, 18, what)) == HL_OK)
            st = pass(r, NULL, rd16(f + 16), what);
        if (st == HL_OK)
            return at_end(r, "the archive it holds");
    }
    if (st == HL_OK || st == HL_ERR_FORMAT) {
        if (st == HL_OK || !r->why[0])
            snprintf(r->why, r->cap, "%s: not an .npz archive, or a damaged one (a record of "
                     "unknown kind)", r->label);
        st = HL_ERR_FORMAT;
    }
    return st;
}

/* An archive: its members in order, the one wanted kept; then the central
 * directory and end records, which are read past. */
static hl_status stream_zip(stream *r, unsigned char head[LOCAL_FIXED], const char *want,
                            unsigned char **buf, size_t *buf_len, char *member)
{
    uint64_t records = 0;
    bool found = false;
    hl_status st = HL_OK;
    uint32_t sig = rd32(head);
    while (st == HL_OK && sig == SIG_LOCAL) {
        record m;
        if ((st = local_header(r, head, &m)) != HL_OK)
            break;
        records++;
        /* a name listed twice: the last entry, as NumPy reads (hl_npz_find) */
        const bool keep = !want || matches(m.name, strlen(m.name), want);
        if (!want && records > 1) {
            snprintf(r->why, r->cap, "%s: the archive holds several arrays: name one as -:NAME", r->label);
            return HL_ERR_ARG;
        }
        unsigned char *npy = NULL;
        size_t len = 0;
        if ((st = member_data(r, &m, keep, &npy, &len)) != HL_OK)
            break;
        if (keep) {
            found = true;
            keep_free(r, *buf, *buf_len); /* an earlier entry of the name */
            *buf = npy;
            *buf_len = len;
            memcpy(member, m.key, HL_NPZ_NAME_MAX);
        }
        if ((st = need(r, head, 4, "the archive")) == HL_OK)
            sig = rd32(head);
    }
    if (st != HL_OK)
        return st;
    if (!found && (sig == SIG_CENTRAL || sig == SIG_END)) {
        member_error(r, want, want ? hl_strerror(HL_ERR_NOT_FOUND) : "the archive holds no array");
        return HL_ERR_NOT_FOUND;
    }
    return directory(r, sig);
}

hl_status hl_npz_stream_read(int fd, const char *label, const hl_npz_stream_options *opt,
                             void **npy, size_t *len, char *member, char *why, size_t cap)
{
    if (npy)
        *npy = NULL;
    if (len)
        *len = 0;
    if (member)
        member[0] = '\0';
    if (!label || !npy || !len || !member || (!why && cap > 0))
        return HL_ERR_NULL;
    const hl_npz_stream_options none = {0};
    stream r = {fd, label, why, cap, opt ? opt : &none};
    const char *want = r.opt->member;
    unsigned char head[LOCAL_FIXED];
    unsigned char *buf = NULL;
    size_t buf_len = 0;
    int64_t got = take(&r, head, 4);
    hl_status st = HL_OK;
    if (got < 0) {
        st = HL_ERR_IO;
    } else if (got == 0) {
        snprintf(why, cap, "%s: empty file", label);
        st = HL_ERR_FORMAT;
    } else if (got < 4) {
        snprintf(why, cap, "%s: not a .npy file, nor an .npz archive (%" PRId64 " bytes)", label, got);
        st = HL_ERR_FORMAT;
    } else if (head[0] == 'P' && head[1] == 'K') {
        st = stream_zip(&r, head, want, &buf, &buf_len, member);
    } else if (want) {
        snprintf(why, cap, "%s: not an .npz archive: no member '%s' to read", label, want);
        st = HL_ERR_ARG;
    } else {
        st = stream_npy(&r, head, &buf, &buf_len);
    }
    if (st != HL_OK) {
        keep_free(&r, buf, buf_len);
        member[0] = '\0';
        return st;
    }
    *npy = buf;
    *len = buf_len;
    return HL_OK;
}
