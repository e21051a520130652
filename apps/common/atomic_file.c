/* hyperlayout applications — atomic file replacement through a stream
 * (temporary file, fsync, rename). */
#define _XOPEN_SOURCE 700 /* mkstemp, fsync, fchmod, fdopen */

#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

struct atomic_file {
    FILE *fp;
    char *path; /* the target */
    char *tmp;  /* the temporary beside it */
};

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

static void release(atomic_file *f)
{
    free(f->path);
    free(f->tmp);
    free(f);
}

hl_status atomic_file_open(atomic_file **out, const char *path)
{
    if (!out)
        return HL_ERR_NULL;
    *out = NULL;
    if (!path)
        return HL_ERR_NULL;
    if (path[0] == '\0') {
        errno = ENOENT;
        return HL_ERR_IO;
    }
    atomic_file *f = calloc(1, sizeof *f);
    if (!f)
        return HL_ERR_NOMEM;
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    size_t baselen = strlen(path + dirlen);
    if (baselen > 200)
        baselen = 200; /* stay below NAME_MAX */
    f->path = strdup(path);
    f->tmp = malloc(dirlen + baselen + 16);
    if (!f->path || !f->tmp) {
        release(f);
        return HL_ERR_NOMEM;
    }
    memcpy(f->tmp, path, dirlen);
    f->tmp[dirlen] = '.';
    memcpy(f->tmp + dirlen + 1, path + dirlen, baselen);
    memcpy(f->tmp + dirlen + 1 + baselen, ".XXXXXX", 8);

    int fd = mkstemp(f->tmp);
    if (fd < 0) {
        int e = errno;
        release(f);
        errno = e;
        return HL_ERR_IO;
    }
    struct stat sb;
    mode_t mode = stat(path, &sb) == 0 && S_ISREG(sb.st_mode) ? (sb.st_mode & 07777)
                                                              : (0666 & ~current_umask());
    if (fchmod(fd, mode) != 0 || !(f->fp = fdopen(fd, "wb"))) {
        int e = errno;
        close(fd);
        unlink(f->tmp);
        release(f);
        errno = e;
        return HL_ERR_IO;
    }
    *out = f;
    return HL_OK;
}

FILE *atomic_file_stream(atomic_file *f) { return f ? f->fp : NULL; }

void atomic_file_abort(atomic_file *f)
{
    if (!f)
        return;
    int e = errno;
    fclose(f->fp);
    unlink(f->tmp);
    release(f);
    errno = e;
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

hl_status atomic_file_commit(atomic_file *f)
{
    if (!f)
        return HL_ERR_NULL;
    int fail = ferror(f->fp) || fflush(f->fp) != 0 || fsync(fileno(f->fp)) != 0;
    int e = fail ? (errno ? errno : EIO) : 0;
    if (fclose(f->fp) != 0 && !fail) {
        fail = 1;
        e = errno;
    }
    if (!fail && rename(f->tmp, f->path) != 0) {
        fail = 1;
        e = errno;
    }
    if (fail) {
        unlink(f->tmp);
        release(f);
        errno = e;
        return HL_ERR_IO;
    }
    sync_directory(f->path);
    release(f);
    return HL_OK;
}
