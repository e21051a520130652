/* hyperlayout — NumPy .npz archives: zip files whose members are .npy files
 * ("NAME.npy"), as np.savez (stored, method 0) and np.savez_compressed
 * (deflate, method 8) write them, with ZIP64 records for large members.
 *
 * The reader works on an archive held in memory (read or memory-mapped by the
 * caller) and reads nothing outside [zip, zip + len).  Deflate needs zlib:
 * built without it (CMake did not find it), deflated members are
 * HL_ERR_UNSUPPORTED.  Status codes: HL_ERR_FORMAT for a malformed or
 * truncated archive (no end record, records or members outside the file, a
 * CRC that does not match); HL_ERR_UNSUPPORTED for valid archives
 * hyperlayout does not read (multi-disk, encrypted members, methods other
 * than 0 and 8, a member name of HL_NPZ_NAME_MAX bytes or more);
 * HL_ERR_NOT_FOUND when a named member is absent. */
#ifndef HYPERLAYOUT_NPZ_H
#define HYPERLAYOUT_NPZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base.h"
#include "npy.h"
#include "shape.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HL_NPZ_NAME_MAX 256

typedef struct hl_npz_member {
    char name[HL_NPZ_NAME_MAX]; /* the zip name without a final ".npy" (np.load's key) */
    int64_t offset;             /* where the member's bytes (its .npy file, possibly
                                   compressed) start in the archive */
    int64_t size;               /* uncompressed .npy bytes */
    int64_t stored;             /* bytes in the archive */
    int method;                 /* 0 stored, 8 deflate */
    uint32_t crc32;             /* of the uncompressed bytes */
} hl_npz_member;

/* CRC-32 as zlib's crc32() and zip compute it: crc = 0 to start, then the
 * previous result to continue over more bytes.  buf NULL returns crc. */
HL_API uint32_t hl_crc32(uint32_t crc, const void *buf, size_t n);

/* The members of an archive (len bytes: the whole file), in the central
 * directory's order, into members[0..cap); *count gets their number, also
 * when cap is too small (HL_ERR_BUFFER; members may then be NULL with cap
 * 0). */
HL_API hl_status hl_npz_list(const void *zip, size_t len, hl_npz_member *members, int64_t cap,
                      int64_t *count);

/* The member NAME ("a" or "a.npy"; a member listed under the exact name —
 * archive entry "a.npy.npy" — wins over the one listed as "a"; of several
 * entries of one name the last, as NumPy's np.load reads); NAME NULL:
 * the only member (HL_ERR_ARG when there are several, HL_ERR_NOT_FOUND when
 * none). */
HL_API hl_status hl_npz_find(const void *zip, size_t len, const char *name, hl_npz_member *m);

/* Uncompresses (or copies) member m into out (m->size bytes) and checks its
 * CRC (HL_ERR_FORMAT on a mismatch or a stream that does not give exactly
 * m->size bytes). */
HL_API hl_status hl_npz_extract(const void *zip, size_t len, const hl_npz_member *m, void *out);

/* The .npy header of member m, as hl_npy_parse_header gives it, without
 * extracting the member (a deflated one is inflated only as far as its
 * header); file_bytes is m->size, and the member must hold the data the
 * header announces (HL_ERR_FORMAT otherwise). */
HL_API hl_status hl_npz_member_header(const void *zip, size_t len, const hl_npz_member *m,
                               hl_npy_info *info);

/* How hl_npz_stream_read reads: the member, the check, the memory. */
typedef struct hl_npz_stream_options {
    const char *member; /* the archive member to keep ("a" or "a.npy", as hl_npz_find
                           names it); NULL: the archive must hold one array */
    bool no_verify;     /* do not check a stored member against its CRC-32 (a deflated
                           one is checked as it inflates) */
    /* The kept bytes' memory (NULL: malloc and free); alloc returns NULL with
     * errno set when the memory is not there. */
    void *(*alloc)(size_t bytes, void *user);
    void (*release)(void *p, size_t bytes, void *user);
    void *user;
} hl_npz_stream_options;

/* Reads a .npy file, or one member of an .npz archive, from the stream fd
 * (a pipe, a terminal, a device: what cannot be mapped or searched from
 * its end).  Headers first, then exactly the bytes they announce: a .npy
 * file's header, then its data; an archive member by member through its
 * local headers (a member written as a stream, stored, through the .npy
 * header inside it), the member wanted kept (its last entry, as NumPy
 * reads) and the others read past; then the central directory and the end
 * records.  A stream longer or shorter than announced is an error, and the
 * memory used is the kept file plus a constant.  On success *npy holds the
 * .npy file (*len bytes: its header and the data it announces; release it
 * as opt says) and member (HL_NPZ_NAME_MAX bytes) the member's name without
 * ".npy" ("" for a .npy stream).  On error why (cap bytes) says what is
 * wrong, named by label, with the system's reason: HL_ERR_FORMAT (not a
 * .npy file nor an .npz archive, truncated, damaged), HL_ERR_NOT_FOUND (no
 * such member), HL_ERR_ARG (several arrays and no member named; a member
 * named on a .npy stream), HL_ERR_UNSUPPORTED (encrypted, another method
 * than deflate, deflated and written as a stream), HL_ERR_IO, HL_ERR_NOMEM;
 * nothing is kept.  The header is not checked beyond what reading needs:
 * hl_npy_parse_header gives the array. */
HL_API hl_status hl_npz_stream_read(int fd, const char *label, const hl_npz_stream_options *opt,
                                    void **npy, size_t *len, char *member, char *why, size_t cap);

/* Pieces for a one-member archive written as a stream (the data's CRC and
 * size known only at the end), method 0 (stored) as np.savez writes: the
 * local header at archive offset 0 (general-purpose flag bit 3: CRC and
 * sizes in the data descriptor; a ZIP64 extra field so that members above
 * 4 GiB work), then the member's `size` bytes, then the tail: the data
 * descriptor, the central directory and the end records (ZIP64 records when
 * the size or an offset needs them).  NAME gets ".npy" appended unless it
 * ends so.  *len gets the size even on HL_ERR_BUFFER (buf may then be NULL
 * with cap 0).  HL_ERR_ARG for an empty name or one of HL_NPZ_NAME_MAX bytes
 * or more, HL_ERR_RANGE for a negative size. */
HL_API hl_status hl_npz_format_local(const char *name, void *buf, size_t cap, size_t *len);
/* The same for a member of the given method: 0 stored, 8 deflated (its
 * bytes then hl_npz_deflater's output, its tail hl_npz_edit_tail_method's). */
HL_API hl_status hl_npz_format_local_method(const char *name, int method, void *buf, size_t cap,
                                     size_t *len);
HL_API hl_status hl_npz_format_tail(const char *name, uint32_t crc, int64_t size, void *buf, size_t cap,
                             size_t *len);

/* Rewriting one member of an archive, the others kept: the new archive is
 * the records of every other member (local header, data and descriptor)
 * copied byte for byte, in their order, from the byte ranges that
 * hl_npz_edit_copy gives; then the new member as a stream, as above:
 * hl_npz_format_local's bytes and the member's `size` bytes; then
 * hl_npz_edit_tail's bytes: the member's data descriptor, the central
 * directory (every other entry as it was, its offset re-encoded; the new
 * member where the one it replaces stood, or last) and the end records,
 * the archive comment kept.  Every entry named NAME (".npy" appended unless
 * it ends so) is replaced.  zip NULL with len 0: a new archive of one
 * member.  The edit keeps its own copy of what it needs: the archive may
 * be unmapped once the ranges are copied.  HL_ERR_FORMAT for a malformed
 * archive (as the reader; also records that overlap), HL_ERR_UNSUPPORTED
 * for one whose records do not all precede its central directory. */
typedef struct hl_npz_edit hl_npz_edit;
HL_API hl_status hl_npz_edit_open(hl_npz_edit **e, const void *zip, size_t len, const char *name);
/* The i-th range to copy (i from 0); false past the last. */
HL_API bool hl_npz_edit_copy(const hl_npz_edit *e, int64_t i, int64_t *offset, int64_t *len);
/* *len gets the size even on HL_ERR_BUFFER; it does not depend on crc. */
HL_API hl_status hl_npz_edit_tail(const hl_npz_edit *e, uint32_t crc, int64_t size, void *buf, size_t cap,
                           size_t *len);
/* The method (0 stored, 8 deflated) of the member the edit replaces (the
 * last entry of its name), 0 when it adds one: a member rewritten keeps
 * its compression, as np.savez_compressed wrote it. */
HL_API int hl_npz_edit_method(const hl_npz_edit *e);
/* hl_npz_edit_tail for a member of `size` bytes stored as `stored` bytes
 * by method 0 or 8 (crc: of the uncompressed bytes). */
HL_API hl_status hl_npz_edit_tail_method(const hl_npz_edit *e, uint32_t crc, int64_t size, int64_t stored,
                                  int method, void *buf, size_t cap, size_t *len);

/* Deflating a member as it is written (raw deflate, as zip stores it):
 * hl_npz_deflater_put compresses len bytes (finish: the last ones, ending
 * the stream) and gives the compressed bytes produced (*out, *out_len;
 * valid until the next call).  HL_ERR_UNSUPPORTED in a build without zlib,
 * HL_ERR_NOMEM, HL_ERR_NULL. */
typedef struct hl_npz_deflater hl_npz_deflater;
HL_API hl_status hl_npz_deflater_open(hl_npz_deflater **d);
HL_API hl_status hl_npz_deflater_put(hl_npz_deflater *d, const void *in, size_t len, bool finish,
                              const void **out, size_t *out_len);
HL_API void hl_npz_deflater_destroy(hl_npz_deflater *d);
HL_API void hl_npz_edit_destroy(hl_npz_edit *e);

/* Loads member NAME (NULL: the only member) of the archive at path as
 * hl_npy_load does: a new 64-byte-aligned buffer in C order, native byte
 * order (HL_ERR_UNSUPPORTED when the member's header says hyperlayout cannot
 * hold it).  The archive is memory-mapped, so only the member's pages are
 * read; a deflated member is inflated into a temporary first.  On error
 * *data is NULL and *shape unchanged. */
HL_API hl_status hl_npz_load(const char *path, const char *name, hl_shape *shape, void **data);

/* Writes the array as a one-member archive (member NAME.npy, stored, the
 * .npy bytes hl_npy_save writes), atomically as hl_npy_save does. */
HL_API hl_status hl_npz_save(const char *path, const char *name, const hl_shape *s, const void *data);

#ifdef __cplusplus
}
#endif

#endif
