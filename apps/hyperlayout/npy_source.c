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

static hl_status sys_error(const char *path, char *why, size_t cap)
{
    snprintf(why, cap, "%s: %s", path, strerror(errno));
    return HL_ERR_IO;
}

/* All of a pipe or terminal, into a growing huge-page buffer. */
static hl_status read_stream(npy_source *s, int fd, const char *path, char *why, size_t cap)
{
    size_t len = 0, room = 0;
    for (;;) {
        if (len == room) {
            size_t want = room ? 2 * room : (size_t)64 << 20;
            unsigned char *grown = bigbuf_grow(s->buf, room, want);
            if (!grown)
                return sys_error(path, why, cap);
            s->buf = grown;
            room = s->buf_len = want;
        }
        ssize_t r = read(fd, s->buf + len, room - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return sys_error(path, why, cap);
        if (r == 0)
            break;
        len += (size_t)r;
    }
    s->map = s->buf; /* the bytes to parse; not a mapping of a file */
    s->map_len = len;
    return HL_OK;
}

/* "A.npz:NAME" names a member when no file of that whole name exists. */
static const char *split_member(const char *path, char *file, size_t cap)
{
    const char *colon = strrchr(path, ':');
    struct stat sb;
    if (!colon || colon == path || (size_t)(colon - path) >= cap || stat(path, &sb) == 0)
        return NULL;
    memcpy(file, path, (size_t)(colon - path));
    file[colon - path] = '\0';
    return stat(file, &sb) == 0 ? colon + 1 : NULL;
}

static hl_status parse_npy(npy_source *s, unsigned char *bytes, size_t len, const char *path,
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

static hl_status open_member(npy_source *s, const char *name, const char *path, char *why, size_t cap)
{
    hl_npz_member m;
    hl_status st = hl_npz_find(s->map, s->map_len, name, &m);
    if (st != HL_OK) {
        snprintf(why, cap, "%s: %s%s%s", path, name ? "member '" : "", name ? name : "",
                 name ? "': " : "");
        snprintf(why + strlen(why), cap - strlen(why), "%s",
                 st == HL_ERR_ARG ? "the archive holds several arrays: name one as ARCHIVE.npz:NAME"
                                  : hl_strerror(st));
        return st;
    }
    if (m.method == 0)
        return parse_npy(s, s->map + m.offset, (size_t)m.size, path, why, cap);
    if (!(s->buf = bigbuf_alloc((size_t)m.size)))
        return sys_error(path, why, cap);
    s->buf_len = (size_t)m.size;
    if ((st = hl_npz_extract(s->map, s->map_len, &m, s->buf)) != HL_OK) {
        snprintf(why, cap, "%s: member '%s': %s", path, m.name, hl_strerror(st));
        return st;
    }
    return parse_npy(s, s->buf, s->buf_len, path, why, cap);
}

hl_status npy_source_open(npy_source *s, const char *path, bool shared, char *why, size_t cap)
{
    memset(s, 0, sizeof *s);
    char file[4096];
    const char *member = split_member(path, file, sizeof file);
    const char *name = member ? file : path;
    const bool stdin_ = !strcmp(path, "-");
    int fd = stdin_ ? STDIN_FILENO : open(name, (shared ? O_RDWR : O_RDONLY) | O_CLOEXEC);
    struct stat sb;
    hl_status st = HL_OK;
    if (fd < 0 || fstat(fd, &sb) != 0)
        st = sys_error(name, why, cap);
    else if (S_ISDIR(sb.st_mode)) {
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
        }
    } else if (S_ISREG(sb.st_mode)) {
        snprintf(why, cap, "%s: empty file", name);
        st = HL_ERR_FORMAT;
    } else if (shared) {
        snprintf(why, cap, "%s: in place needs a regular file", name);
        st = HL_ERR_ARG;
    } else {
        st = read_stream(s, fd, stdin_ ? "standard input" : name, why, cap);
    }
    if (fd >= 0 && !stdin_)
        close(fd); /* a mapping outlives its descriptor */
    if (st == HL_OK && s->map_len == 0) {
        snprintf(why, cap, "%s: empty file", stdin_ ? "standard input" : name);
        st = HL_ERR_FORMAT;
    }
    if (st == HL_OK) {
        const bool zip = s->map_len >= 4 && s->map[0] == 'P' && s->map[1] == 'K' &&
                         (s->map[2] == 3 || s->map[2] == 5);
        if (zip && shared) {
            snprintf(why, cap, "%s: an .npz archive cannot be rewritten in place", name);
            st = HL_ERR_ARG;
        } else if (zip || member) {
            st = open_member(s, member, name, why, cap);
        } else {
            st = parse_npy(s, s->map, s->map_len, stdin_ ? "standard input" : name, why, cap);
        }
    }
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
        if (s->map && s->map != s->buf) { /* the file's pages copied: let them go */
            uintptr_t lo = ((uintptr_t)(s->data + at) + page - 1) / page * page;
            uintptr_t hi = ((uintptr_t)(s->data + at + len)) / page * page;
            if (hi > lo)
                (void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
        }
    }
    if (s->map && s->map != s->buf)
        munmap(s->map, s->map_len);
    bigbuf_free(s->buf, s->buf_len);
    s->map = NULL;
    s->map_len = 0;
    s->buf = s->data = to;
    s->buf_len = n;
    return HL_OK;
}

void npy_source_close(npy_source *s)
{
    if (s->map && s->map != s->buf)
        munmap(s->map, s->map_len);
    bigbuf_free(s->buf, s->buf_len);
    memset(s, 0, sizeof *s);
}
