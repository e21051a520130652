/* hyperlayout internal — the ZIP format as .npz archives use it: record
 * signatures and sizes, little-endian fields, and the central directory
 * walk, local headers and ZIP64 fields (zip.c), shared by the mapped reader
 * (npz.c), the stream reader (npz_stream.c) and the rewriter (npz_edit.c). */
#ifndef HYPERLAYOUT_ZIP_H
#define HYPERLAYOUT_ZIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hyperlayout/npz.h"

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

static inline uint16_t rd16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t rd32(const unsigned char *p) { return (uint32_t)rd16(p) | (uint32_t)rd16(p + 2) << 16; }
static inline uint64_t rd64(const unsigned char *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* [off, off + n) lies inside [0, len). */
static inline bool has(size_t len, uint64_t off, uint64_t n) { return off <= len && n <= len - off; }

static inline unsigned char *wr16(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    return p + 2;
}
static inline unsigned char *wr32(unsigned char *p, uint32_t v) { return wr16(wr16(p, v & 0xFFFF), v >> 16); }
static inline unsigned char *wr64(unsigned char *p, uint64_t v)
{
    return wr32(wr32(p, (uint32_t)v), (uint32_t)(v >> 32));
}


typedef struct cd_iter {
    const unsigned char *z;
    const unsigned char *end_rec; /* the end of central directory record */
    size_t len;
    uint64_t p, end, left;
} cd_iter;

/* The end of central directory record, and the ZIP64 one when its locator
 * stands before it: where the central directory is and how many entries. */
hl_status hl_zip_cd_open(const void *zip, size_t len, cd_iter *it);

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
hl_status hl_zip_cd_next_raw(cd_iter *it, cd_raw *r);

/* Where the data of the record at `local` starts: after its local header,
 * whose name and extra field may differ in length from the central
 * directory's. */
uint64_t hl_zip_data_start(const unsigned char *z, uint64_t local);

/* The fields of a record that are 0xFFFFFFFF are in its ZIP64 extra
 * field (x, n bytes: the record's extra field), in this order: sizes, then
 * the local header offset (a local header has none: pass a value other than
 * 0xFFFFFFFF).  *found (unless NULL): whether the ZIP64 field is there.
 * HL_ERR_FORMAT when the extra field or the ZIP64 field is too short. */
hl_status hl_zip64_extra(const unsigned char *x, size_t n, uint64_t *usize, uint64_t *csize,
                         uint64_t *offset, bool *found);

/* A local header's fixed fields (h: LOCAL_FIXED bytes from its signature). */
typedef struct zip_local {
    uint16_t flags, method;
    uint32_t crc;
    uint64_t csize, usize;
    size_t nlen, xlen; /* its name's and extra field's lengths, which follow */
} zip_local;
void hl_zip_local_read(const unsigned char *h, zip_local *l);

/* The zip name: NAME, with ".npy" appended unless it ends so. */
hl_status hl_zip_name(const char *name, char out[HL_NPZ_NAME_MAX + 4], size_t *n);
size_t hl_zip_local_len(size_t nlen);

#endif
