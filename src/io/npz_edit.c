/* hyperlayout — .npz archives rewritten: one member replaced or added, the
 * others kept (the tail written after the new member), and hl_npz_save. */
#include "hyperlayout/npz.h"
#include "atomic.h"
#include "npy_native.h"
#include "zip.h"

#include <stdlib.h>
#include <string.h>

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
        if (!has(r->from + r->len, hl_zip_data_start(z, old), en->csize))
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
    hl_status st = hl_zip_name(name, e->zn, &e->nlen);
    cd_iter it = {0};
    if (st == HL_OK && len > 0)
        st = hl_zip_cd_open(zip, len, &it);
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
        if ((st = hl_zip_cd_next_raw(&it, &r)) != HL_OK)
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
    const uint64_t desc_off = e->member + hl_zip_local_len(e->nlen) + csize;
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
