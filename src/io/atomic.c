/* hyperlayout internal — a file replaced atomically in one call (temporary
 * file, fsync, rename), and the steps the stream form (apps/common/atomic_file.c)
 * shares with it.  Plain file descriptors: the library writes whole buffers
 * and needs no stream. */
#define _GNU_SOURCE /* mkstemp, fsync, fchmod, copy_file_range, renameat2 */

#include "io/atomic.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/fs.h> /* FICLONE */
#include <sys/ioctl.h>
#endif

/* ---- temporaries a signal handler may remove ------------------------------
 * Fixed slots, so that the handler (any thread may run it) reads nothing
 * that is being allocated or freed.  A slot lists a temporary only once the
 * file exists under its final name (mkstemp's candidates never show), so
 * the handler can remove nothing but our own temporaries; a signal between
 * mkstemp and the listing leaves one stray temporary.  A slot's generation
 * changes at every claim: the handler copies the path, then unlinks the
 * copy only if the slot still lists the same temporary. */

enum { LIVE_SLOTS = 32 };

static struct {
    atomic_int used;  /* 0 free, 2 being filled (skipped), 1 listed */
    atomic_uint gen;
    char path[PATH_MAX];
} live[LIVE_SLOTS];

/* Lists NAME in a free slot; -1 when all are taken (or NAME is too long). */
static int live_list(const char *name)
{
    if (strlen(name) >= PATH_MAX)
        return -1;
    for (int i = 0; i < LIVE_SLOTS; i++) {
        int expect = 0;
        if (atomic_compare_exchange_strong(&live[i].used, &expect, 2)) {
            atomic_fetch_add(&live[i].gen, 1);
            strcpy(live[i].path, name);
            atomic_store(&live[i].used, 1);
            return i;
        }
    }
    return -1;
}

void hl_atomic_live_release(int slot)
{
    if (slot >= 0)
        atomic_store(&live[slot].used, 0);
}

/* The slot listing temporary NAME (made by hl_atomic_begin), or -1: only
 * its owner releases a slot, so a match stays valid. */
static int live_find(const char *name)
{
    for (int i = 0; i < LIVE_SLOTS; i++)
        if (atomic_load(&live[i].used) == 1 && strcmp(live[i].path, name) == 0)
            return i;
    return -1;
}

void hl_atomic_remove_temporaries(void)
{
    char copy[PATH_MAX];
    for (int i = 0; i < LIVE_SLOTS; i++) {
        const unsigned gen = atomic_load(&live[i].gen);
        if (atomic_load(&live[i].used) != 1)
            continue;
        size_t n = 0;
        while (n < sizeof copy - 1 && (copy[n] = live[i].path[n]) != '\0')
            n++;
        copy[n] = '\0';
        if (atomic_load(&live[i].used) == 1 && atomic_load(&live[i].gen) == gen)
            (void)unlink(copy);
    }
}

/* Whether the directory part of TEMPLATE exists (as a directory). */
static bool directory_exists(const char *template)
{
    const char *slash = strrchr(template, '/');
    char *dir = slash ? strndup(template, (size_t)(slash - template) + 1) : strdup(".");
    struct stat sb;
    const bool is = dir && stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode);
    free(dir);
    return is;
}

int hl_atomic_temp_create(char *template, int *slot)
{
    const int fd = mkstemp(template);
    int e = errno;
    /* ENOENT from a directory that exists: a file system that makes no
     * new files (/proc, /sys), which "No such file or directory" would not
     * tell; say that creating is not permitted */
    if (fd < 0 && e == ENOENT && directory_exists(template))
        e = EPERM;
    *slot = fd >= 0 ? live_list(template) : -1;
    errno = e;
    return fd;
}

/* The process's umask, without changing it (umask() would, and is not
 * thread-safe); 022 when /proc does not tell. */
static mode_t current_umask(void)
{
    mode_t mask = 022;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return mask;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "Umask:", 6) == 0) {
            mask = (mode_t)strtoul(line + 6, NULL, 8) & 0777;
            break;
        }
    }
    fclose(f);
    return mask;
}

unsigned hl_atomic_mode(const struct stat *existing)
{
    return existing && S_ISREG(existing->st_mode) ? (existing->st_mode & 07777)
                                                  : (0666 & ~current_umask());
}

char *hl_atomic_temp_template(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    size_t baselen = strlen(path + dirlen);
    if (baselen > 200)
        baselen = 200; /* stay below NAME_MAX */
    char *tmp = malloc(dirlen + baselen + 9);
    if (!tmp)
        return NULL;
    memcpy(tmp, path, dirlen);
    tmp[dirlen] = '.';
    memcpy(tmp + dirlen + 1, path + dirlen, baselen);
    memcpy(tmp + dirlen + 1 + baselen, ".XXXXXX", 8);
    return tmp;
}

/* write(2) may write less than asked: a signal, a file size limit reached
 * part way (whose next call then fails with EFBIG). */
int hl_atomic_write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        size_t part = len < ((size_t)1 << 30) ? len : ((size_t)1 << 30);
        ssize_t w = write(fd, p, part);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO; /* no progress and no reason: do not spin */
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}


/* Makes the rename durable; the new file is in place whatever this says. */
static void sync_directory(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, (size_t)(slash - path) + 1) : strdup(".");
    if (!dir)
        return;
    int dfd = open(dir, O_RDONLY);
    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
    free(dir);
}

/* Over an existing file or not: RENAME_NOREPLACE, else (a file system
 * without it) link(), which refuses an existing name too. */
static int rename_into(const char *tmp, const char *path, bool noreplace)
{
    if (!noreplace)
        return rename(tmp, path);
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS)
        return -1;
    if (link(tmp, path) != 0)
        return -1;
    (void)unlink(tmp);
    return 0;
}

hl_status hl_atomic_place(const char *tmp, const char *path, bool noreplace, int fail, int e)
{
    if (!fail && rename_into(tmp, path, noreplace) != 0) {
        fail = 1;
        e = errno;
    }
    if (fail) {
        unlink(tmp);
        errno = e ? e : EIO;
        return HL_ERR_IO;
    }
    sync_directory(path);
    return HL_OK;
}

/* hl_atomic_place, then tmp freed (errno kept). */
static hl_status commit(char *tmp, const char *path, int fail, int e)
{
    const hl_status st = hl_atomic_place(tmp, path, false, fail, e);
    e = errno;
    free(tmp);
    errno = e;
    return st;
}

hl_status hl_atomic_write(const char *path, int n, const void *const *chunks, const size_t *lens)
{
    if (!path || n < 0 || (n > 0 && (!chunks || !lens)))
        return HL_ERR_NULL;
    if (path[0] == '\0') {
        errno = ENOENT;
        return HL_ERR_IO;
    }
    char *tmp = hl_atomic_temp_template(path);
    if (!tmp)
        return HL_ERR_NOMEM;
    int slot;
    int fd = hl_atomic_temp_create(tmp, &slot);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        errno = e;
        return HL_ERR_IO;
    }
    struct stat sb;
    int fail = fchmod(fd, hl_atomic_mode(stat(path, &sb) == 0 ? &sb : NULL)) != 0;
    for (int i = 0; !fail && i < n; i++)
        fail = lens[i] > 0 && hl_atomic_write_all(fd, chunks[i], lens[i]) != 0;
    fail = fail || fsync(fd) != 0;
    int e = fail ? errno : 0;
    if (close(fd) != 0 && !fail) {
        fail = 1;
        e = errno;
    }
    const hl_status st = commit(tmp, path, fail, e);
    hl_atomic_live_release(slot);
    return st;
}

/* The bytes of file descriptor `from` into `to`: shared blocks (FICLONE)
 * where the file system can, else copy_file_range, else read/write. */
static int copy_fd(int from, int to)
{
#ifdef __linux__
    if (ioctl(to, FICLONE, from) == 0)
        return 0;
    for (;;) {
        ssize_t n = copy_file_range(from, NULL, to, NULL, (size_t)1 << 30, 0);
        if (n == 0)
            return 0;
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP)
                break; /* fall back to reading */
            return -1;
        }
    }
    if (lseek(from, 0, SEEK_SET) < 0 || lseek(to, 0, SEEK_SET) < 0 || ftruncate(to, 0) != 0)
        return -1;
#endif
    char *buf = malloc((size_t)1 << 20);
    if (!buf)
        return -1;
    for (;;) {
        ssize_t n = read(from, buf, (size_t)1 << 20);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 || hl_atomic_write_all(to, buf, (size_t)n) != 0) {
            const int e = errno;
            free(buf);
            errno = e;
            return n == 0 ? 0 : -1;
        }
    }
}

hl_status hl_atomic_begin(const char *path, bool copy, char **tmp)
{
    if (!path || !tmp)
        return HL_ERR_NULL;
    *tmp = NULL;
    if (path[0] == '\0') {
        errno = ENOENT;
        return HL_ERR_IO;
    }
    char *name = hl_atomic_temp_template(path);
    if (!name)
        return HL_ERR_NOMEM;
    int slot;
    int fd = hl_atomic_temp_create(name, &slot);
    if (fd < 0) {
        const int e = errno;
        free(name);
        errno = e;
        return HL_ERR_IO;
    }
    struct stat sb;
    int fail = fchmod(fd, hl_atomic_mode(stat(path, &sb) == 0 ? &sb : NULL)) != 0;
    if (!fail && copy) {
        const int from = open(path, O_RDONLY);
        fail = from < 0 || copy_fd(from, fd) != 0;
        if (from >= 0) {
            const int e = errno;
            close(from);
            errno = e;
        }
    }
    const int e = errno;
    if (close(fd) != 0 && !fail)
        fail = 1;
    if (fail) {
        unlink(name);
        hl_atomic_live_release(slot);
        free(name);
        errno = e ? e : EIO;
        return HL_ERR_IO;
    }
    *tmp = name;
    return HL_OK;
}

hl_status hl_atomic_finish(char *tmp, const char *path)
{
    if (!tmp || !path) {
        hl_atomic_cancel(tmp);
        return HL_ERR_NULL;
    }
    int fd = open(tmp, O_RDONLY);
    int fail = fd < 0 || fsync(fd) != 0;
    int e = errno;
    if (fd >= 0)
        close(fd);
    const int slot = live_find(tmp);
    const hl_status st = commit(tmp, path, fail, e);
    hl_atomic_live_release(slot);
    return st;
}

void hl_atomic_cancel(char *tmp)
{
    if (tmp) {
        const int e = errno;
        unlink(tmp);
        hl_atomic_live_release(live_find(tmp));
        free(tmp);
        errno = e;
    }
}
