/* hyperlayout internal — the ZIP central directory walked (end records,
 * ZIP64 extra fields) and the names and lengths of the records written: zip.h. */
#include "zip.h"

#include <string.h>

/* The end of central directory record, and the ZIP64 one when its locator
 * stands before it: where the central directory is and how many entries. */
hl_status hl_zip_cd_open(const void *zip, size_t len, cd_iter *it)
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

hl_status hl_zip64_extra(const unsigned char *x, size_t n, uint64_t *usize, uint64_t *csize,
                         uint64_t *offset, bool *found)
{
    uint64_t *want[3] = {usize, csize, offset};
    if (found)
        *found = false;
    while (n >= 4) {
        uint16_t id = rd16(x), sz = rd16(x + 2);
        if (sz > n - 4)
            return HL_ERR_FORMAT;
        if (id == ZIP64_EXTRA_ID) {
            if (found)
                *found = true;
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


hl_status hl_zip_cd_next_raw(cd_iter *it, cd_raw *r)
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
    hl_status st = hl_zip64_extra(c + CENTRAL_FIXED + nlen, xlen, &r->usize, &r->csize, &r->local,
                                  NULL);
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
uint64_t hl_zip_data_start(const unsigned char *z, uint64_t local)
{
    zip_local l;
    hl_zip_local_read(z + local, &l);
    return local + LOCAL_FIXED + l.nlen + l.xlen;
}

void hl_zip_local_read(const unsigned char *h, zip_local *l)
{
    l->flags = rd16(h + 6);
    l->method = rd16(h + 8);
    l->crc = rd32(h + 14);
    l->csize = rd32(h + 18);
    l->usize = rd32(h + 22);
    l->nlen = rd16(h + 26);
    l->xlen = rd16(h + 28);
}

/* The zip name: NAME, with ".npy" appended unless it ends so. */
hl_status hl_zip_name(const char *name, char out[HL_NPZ_NAME_MAX + 4], size_t *n)
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

size_t hl_zip_local_len(size_t nlen) { return LOCAL_FIXED + nlen + 20; }
