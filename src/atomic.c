/* hyperlayout internal — a file replaced atomically in one call (temporary
 * file, fsync, rename).  Plain file descriptors: the library writes whole
 * buffers and needs no stream. */
#define _XOPEN_SOURCE 700 /* mkstemp, fsync, fchmod */

#include "atomic.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

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

/* "DIR/.NAME.XXXXXX" for mkstemp: in the target's directory, so that the
 * rename stays within one file system. */
static char *temp_template(const char *path)
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

/* write(2) until done: it may write less than asked (a signal, a file size
 * limit reached part way, whose next call then fails with EFBIG). */
static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        size_t part = len < ((size_t)1 << 30) ? len : ((size_t)1 << 30);
        ssize_t w = write(fd, p, part);
        if (w < 0) {
            if (errno == EINTR)
                continue;
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

hl_status hl_atomic_write(const char *path, int n, const void *const *chunks, const size_t *lens)
{
    if (!path || n < 0 || (n > 0 && (!chunks || !lens)))
        return HL_ERR_NULL;
    if (path[0] == '\0') {
        errno = ENOENT;
        return HL_ERR_IO;
    }
    char *tmp = temp_template(path);
    if (!tmp)
        return HL_ERR_NOMEM;
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        errno = e;
        return HL_ERR_IO;
    }
    struct stat sb;
    mode_t mode = stat(path, &sb) == 0 && S_ISREG(sb.st_mode) ? (sb.st_mode & 07777)
                                                              : (0666 & ~current_umask());
    int fail = fchmod(fd, mode) != 0;
    for (int i = 0; !fail && i < n; i++)
        fail = lens[i] > 0 && write_all(fd, chunks[i], lens[i]) != 0;
    fail = fail || fsync(fd) != 0;
    int e = fail ? errno : 0;
    if (close(fd) != 0 && !fail) {
        fail = 1;
        e = errno;
    }
    if (!fail && rename(tmp, path) != 0) {
        fail = 1;
        e = errno;
    }
    if (fail) {
        unlink(tmp);
        free(tmp);
        errno = e ? e : EIO;
        return HL_ERR_IO;
    }
    free(tmp);
    sync_directory(path);
    return HL_OK;
}
