/* hyperlayout transform — reading the input array. */
#define _GNU_SOURCE /* MAP_POPULATE */

#include "npy_source.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bigbuf.h"
#include "map_guard.h"

static hl_status sys_error(const char *path, char *why, size_t cap)
{
    snprintf(why, cap, "%s: %s", path, strerror(errno));
    return HL_ERR_IO;
}

/* "A.npz:NAME" names a member when no file of that whole name exists;
 * "-:NAME" a member of the archive on standard input. */
static const char *split_member(const char *path, char *file, size_t cap)
{
    const char *colon = strrchr(path, ':');
    struct stat sb;
    if (!strncmp(path, "-:", 2) && stat(path, &sb) != 0) {
        strcpy(file, "-");
        return path + 2;
    }
    if (!colon || colon == path || (size_t)(colon - path) >= cap || stat(path, &sb) == 0)
        return NULL;
    memcpy(file, path, (size_t)(colon - path));
    file[colon - path] = '\0';
    return stat(file, &sb) == 0 ? colon + 1 : NULL;
}

/* The .npy file at bytes (len bytes: its header and at least the data it
 * announces) as s's array. */
static hl_status parse(npy_source *s, unsigned char *bytes, size_t len, const char *path,
                       char *why, size_t cap)
{
    hl_status st = hl_npy_parse_header(bytes, len, &s->info);
    if (st != HL_OK) {
        snprintf(why, cap, "%s: %s", path,
                 st == HL_ERR_FORMAT ? "not a .npy file, or a malformed or truncated one"
                                     : hl_strerror(st));
        return st;
    }
    s->info.file_bytes = (int64_t)len;
    if (s->info.unsupported) {
        snprintf(why, cap, "%s: hyperlayout cannot hold its array: %s", path, s->info.unsupported);
        return HL_ERR_UNSUPPORTED;
    }
    if ((uint64_t)s->info.data_bytes > len - (uint64_t)s->info.data_offset) {
        snprintf(why, cap, "%s: truncated: the header announces %" PRId64 " bytes of data, the file holds %" PRId64,
                 path, s->info.data_bytes, (int64_t)len - s->info.data_offset);
        return HL_ERR_FORMAT;
    }
    s->data = bytes + s->info.data_offset;
    return HL_OK;
}

/* The message about member `name` (NULL: the only one) of archive `path`. */
static void member_error(const char *path, const char *name, const char *reason, char *why,
                         size_t cap)
{
    snprintf(why, cap, "%s: %s%s%s%s", path, name ? "member '" : "", name ? name : "",
             name ? "': " : "", reason);
}

static hl_status open_member(npy_source *s, const char *name, unsigned flags, const char *path,
                             char *why, size_t cap)
{
    hl_npz_member m;
    hl_status st = hl_npz_find(s->map, s->map_len, name, &m);
    if (st != HL_OK) {
        member_error(path, name, st == HL_ERR_ARG ? "the archive holds several arrays: "
                                "name one as ARCHIVE.npz:NAME" : hl_strerror(st), why, cap);
        return st;
    }
    snprintf(s->member, sizeof s->member, "%s", m.name);
    if (m.method == 0) {
        if (!(flags & NPY_SOURCE_NO_VERIFY) &&
            hl_crc32(0, s->map + m.offset, (size_t)m.size) != m.crc32) {
            member_error(path, m.name, "its CRC-32 does not match its bytes (the "
                                    "archive is damaged; --no-verify reads it as it is)", why, cap);
            return HL_ERR_FORMAT;
        }
        return parse(s, s->map + m.offset, (size_t)m.size, path, why, cap);
    }
    if (!(s->buf = bigbuf_alloc((size_t)m.size)))
        return sys_error(path, why, cap);
    s->buf_len = (size_t)m.size;
    if ((st = hl_npz_extract(s->map, s->map_len, &m, s->buf)) != HL_OK) {
        member_error(path, m.name, st == HL_ERR_FORMAT ? "damaged: it does not inflate "
                                "to its size or its CRC-32 does not match" : hl_strerror(st), why, cap);
        return st;
    }
    return parse(s, s->buf, s->buf_len, path, why, cap);
}

static void *big_alloc(size_t bytes, void *user)
{
    (void)user;
    return bigbuf_alloc(bytes);
}

static void big_release(void *p, size_t bytes, void *user)
{
    (void)user;
    bigbuf_free(p, bytes);
}

hl_status npy_source_from_stream(npy_source *s, int fd, const char *member, unsigned flags,
                                 const char *label, char *why, size_t cap)
{
    memset(s, 0, sizeof *s);
    const hl_npz_stream_options opt = {.member = member,
                                       .no_verify = flags & NPY_SOURCE_NO_VERIFY,
                                       .alloc = big_alloc,
                                       .release = big_release};
    void *npy = NULL;
    size_t len = 0;
    hl_status st = hl_npz_stream_read(fd, label, &opt, &npy, &len, s->member, why, cap);
    if (st == HL_OK) {
        s->buf = s->map = npy;
        s->buf_len = s->map_len = len;
        st = parse(s, s->buf, s->buf_len, label, why, cap);
    }
    if (st != HL_OK)
        npy_source_close(s);
    return st;
}

static bool is_zip(const unsigned char *p, size_t len)
{
    return len >= 4 && p[0] == 'P' && p[1] == 'K' && (p[2] == 3 || p[2] == 5);
}

/* The archive or .npy file in s->map. */
static hl_status parse_map(npy_source *s, const char *member, unsigned flags, const char *label,
                           char *why, size_t cap)
{
    if (s->map_len == 0) {
        snprintf(why, cap, "%s: empty file", label);
        return HL_ERR_FORMAT;
    }
    const bool zip = is_zip(s->map, s->map_len);
    if (zip && (flags & NPY_SOURCE_SHARED)) {
        snprintf(why, cap, "%s: an .npz archive cannot be rewritten in place by --in-place=unsafe "
                 "(--in-place can)", label);
        return HL_ERR_ARG;
    }
    if (zip || member)
        return open_member(s, member, flags, label, why, cap);
    return parse(s, s->map, s->map_len, label, why, cap);
}

hl_status npy_source_from_memory(npy_source *s, unsigned char *bytes, size_t len,
                                 const char *member, unsigned flags, const char *label, char *why,
                                 size_t cap)
{
    memset(s, 0, sizeof *s);
    s->map = bytes;
    s->map_len = len;
    hl_status st = parse_map(s, member, flags, label, why, cap);
    if (st != HL_OK)
        npy_source_close(s);
    return st;
}

hl_status npy_source_open(npy_source *s, const char *path, unsigned flags, char *why, size_t cap)
{
    memset(s, 0, sizeof *s);
    char file[4096];
    const char *member = split_member(path, file, sizeof file);
    const char *name = member ? file : path;
    const bool stdin_ = !strcmp(name, "-");
    const bool shared = flags & NPY_SOURCE_SHARED;
    const char *label = stdin_ ? "standard input" : name;
    int fd = stdin_ ? STDIN_FILENO : open(name, (shared ? O_RDWR : O_RDONLY) | O_CLOEXEC);
    struct stat sb;
    hl_status st = HL_OK;
    if (fd < 0 || fstat(fd, &sb) != 0) {
        st = sys_error(name, why, cap);
    } else if (S_ISDIR(sb.st_mode)) {
        errno = EISDIR;
        st = sys_error(name, why, cap);
    } else if (S_ISREG(sb.st_mode) && sb.st_size > 0) {
        s->map_len = (size_t)sb.st_size;
        /* populated now: one pass over the page cache instead of a fault
         * per 4 KiB page later — unless the file would crowd out memory,
         * where reading it all up front would only evict its own start */
        const double ram = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
        const int populate = (double)s->map_len < 0.5 * ram ? MAP_POPULATE : 0;
        s->map = mmap(NULL, s->map_len, shared ? PROT_READ | PROT_WRITE : PROT_READ,
                      (shared ? MAP_SHARED : MAP_PRIVATE) | populate, fd, 0);
        if (s->map == MAP_FAILED) {
            s->map = NULL;
            st = sys_error(name, why, cap);
        } else {
            s->mapped = true;
            map_guard_watch(s->map, s->map_len, name); /* a file cut short meanwhile */
            map_guard_test_pause();
            st = parse_map(s, member, flags, label, why, cap);
        }
    } else if (S_ISREG(sb.st_mode)) {
        snprintf(why, cap, "%s: empty file", name);
        st = HL_ERR_FORMAT;
    } else if (shared) {
        snprintf(why, cap, "%s: in place needs a regular file", name);
        st = HL_ERR_ARG;
    } else {
        st = npy_source_from_stream(s, fd, member, flags, label, why, cap);
    }
    if (fd >= 0 && !stdin_)
        close(fd); /* a mapping outlives its descriptor */
    if (st != HL_OK)
        npy_source_close(s);
    return st;
}

hl_status npy_source_to_memory(npy_source *s)
{
    if (s->buf && s->data >= s->buf && s->data < s->buf + s->buf_len &&
        (uintptr_t)s->data % 64 == 0)
        return HL_OK; /* already the process's own, aligned */
    /* small pieces: the copy adds at most one piece to the memory in use */
    const size_t n = (size_t)s->info.data_bytes, piece = (size_t)4 << 20;
    unsigned char *to = bigbuf_alloc(n);
    if (!to)
        return HL_ERR_NOMEM;
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    for (size_t at = 0; at < n; at += piece) {
        const size_t len = n - at < piece ? n - at : piece;
        memcpy(to + at, s->data + at, len);
        if (s->mapped) { /* the file's pages copied: let them go */
            uintptr_t lo = ((uintptr_t)(s->data + at) + page - 1) / page * page;
            uintptr_t hi = ((uintptr_t)(s->data + at + len)) / page * page;
            if (hi > lo)
                (void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
        }
    }
    if (s->mapped) {
        map_guard_forget(s->map);
        munmap(s->map, s->map_len);
    }
    bigbuf_free(s->buf, s->buf_len);
    s->mapped = false;
    s->map = NULL;
    s->map_len = 0;
    s->buf = s->data = to;
    s->buf_len = n;
    return HL_OK;
}

void npy_source_close(npy_source *s)
{
    if (s->mapped) {
        map_guard_forget(s->map);
        munmap(s->map, s->map_len);
    }
    bigbuf_free(s->buf, s->buf_len);
    hl_h5_reader_close(s->h5);
    memset(s, 0, sizeof *s);
}
