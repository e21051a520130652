/* The atomic writer as a stream, for the applications (atomic_file.h):
 * atomic replacement of regular files (the library's temporary,
 * permissions, commit step and table of live temporaries, src/io/atomic.c),
 * write-through to everything else, and the opt-in signal handlers. */
#define _GNU_SOURCE /* mkstemp, fsync, fchmod, fdopen, posix_fallocate */

#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <unistd.h>

static void on_signal(int sig)
{
    hl_atomic_remove_temporaries();
    signal(sig, SIG_DFL);
    raise(sig);
}

void hl_atomic_install_cleanup(void)
{
    static atomic_flag once = ATOMIC_FLAG_INIT;
    if (!atomic_flag_test_and_set(&once))
        atexit(hl_atomic_remove_temporaries);
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction old, sa;
        if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
            continue; /* started with it ignored (nohup, a background job) */
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        for (size_t j = 0; j < sizeof sigs / sizeof *sigs; j++)
            sigaddset(&sa.sa_mask, sigs[j]);
        sigaction(sigs[i], &sa, NULL);
    }
    signal(SIGXFSZ, SIG_IGN);
}

/* ---- the file ------------------------------------------------------------ */

struct hl_atomic_file {
    FILE *fp;
    char *path;   /* the target, links resolved */
    char *tmp;    /* the temporary; NULL for direct targets */
    int slot;     /* the temporary's live slot, or -1 */
    int lock;     /* the existing target, open and flock()ed until commit or abort; or -1 */
    dev_t dev;    /* the locked file */
    ino_t ino;
    bool created; /* there was no target: commit must not replace one that appeared */
    hl_atomic_file *next; /* the process's open files (held_here) */
};

/* Whether this process holds the lock of that file (another hl_atomic_file of
 * it is open): under the list's lock, as several threads may open files. */
static pthread_mutex_t open_list = PTHREAD_MUTEX_INITIALIZER;
static hl_atomic_file *open_files;

static bool held_here(const struct stat *sb)
{
    bool held = false;
    pthread_mutex_lock(&open_list);
    for (const hl_atomic_file *g = open_files; g && !held; g = g->next)
        held = g->lock >= 0 && g->dev == sb->st_dev && g->ino == sb->st_ino;
    pthread_mutex_unlock(&open_list);
    return held;
}

/* PATH with symbolic links followed to the file they name (which need not
 * exist yet), so that the rename replaces the target, not the link. */
static char *follow_links(const char *path)
{
    char *p = strdup(path);
    for (int hops = 0; p; hops++) {
        struct stat sb;
        if (lstat(p, &sb) != 0 || !S_ISLNK(sb.st_mode))
            return p;
        if (hops == 40) {
            free(p);
            errno = ELOOP;
            return NULL;
        }
        char target[PATH_MAX];
        ssize_t n = readlink(p, target, sizeof target - 1);
        if (n < 0) {
            free(p);
            return NULL;
        }
        target[n] = '\0';
        const char *slash = strrchr(p, '/');
        size_t dirlen = target[0] == '/' || !slash ? 0 : (size_t)(slash - p) + 1;
        char *next = malloc(dirlen + (size_t)n + 1);
        if (next) {
            memcpy(next, p, dirlen);
            memcpy(next + dirlen, target, (size_t)n + 1);
        }
        free(p);
        p = next;
    }
    return NULL;
}

static void release(hl_atomic_file *f)
{
    pthread_mutex_lock(&open_list);
    for (hl_atomic_file **g = &open_files; *g; g = &(*g)->next)
        if (*g == f) {
            *g = f->next;
            break;
        }
    pthread_mutex_unlock(&open_list);
    if (f->lock >= 0)
        close(f->lock); /* and with it the lock */
    hl_atomic_live_release(f->slot);
    free(f->tmp);
    free(f->path);
    free(f);
}

static hl_status fail_errno(hl_atomic_file *f, int e)
{
    release(f);
    errno = e;
    return HL_ERR_IO;
}

/* An existing regular target: refused unless this process could write it
 * in place (the check open(O_WRONLY) makes: permissions, a read-only file
 * system), then locked (flock, exclusive), so that runs replacing one file
 * take turns: each reads what the one before it wrote.  The lock is on the
 * file, which a rename replaces; a run that waited for it finds the path
 * naming a new file and locks that instead.  *exists is false when the
 * target went away meanwhile.  0, or -1 with errno set. */
static int lock_target(hl_atomic_file *f, struct stat *sb, bool *exists)
{
    for (;;) {
        int fd = open(f->path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
            return -1;
        int rc = flock(fd, LOCK_EX | LOCK_NB);
        if (rc != 0 && errno == EWOULDBLOCK) {
            if (held_here(sb)) { /* waiting for ourselves would be for ever */
                close(fd);
                errno = EDEADLK;
                return -1;
            }
            fprintf(stderr, "%s: waiting for another process that is writing it\n", f->path);
            while ((rc = flock(fd, LOCK_EX)) != 0 && errno == EINTR)
                ;
        }
        struct stat held;
        if (rc != 0 || fstat(fd, &held) != 0) {
            int e = errno;
            close(fd);
            errno = e;
            return -1;
        }
        if (stat(f->path, sb) != 0) { /* removed while we waited */
            close(fd);
            *exists = false;
            return 0;
        }
        if (sb->st_dev == held.st_dev && sb->st_ino == held.st_ino && S_ISREG(sb->st_mode)) {
            f->lock = fd;
            f->dev = held.st_dev;
            f->ino = held.st_ino;
            return 0;
        }
        close(fd); /* replaced while we waited: lock the new file */
        if (!S_ISREG(sb->st_mode))
            return 0;
    }
}

/* Standard output or an existing FIFO or device: written in place. */
static hl_status open_direct(hl_atomic_file *f, int fd)
{
    if (fd < 0 || !(f->fp = fdopen(fd, "wb"))) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return fail_errno(f, e);
    }
    return HL_OK;
}

hl_status hl_atomic_file_open(hl_atomic_file **out, const char *path)
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
    hl_atomic_file *f = calloc(1, sizeof *f);
    if (!f)
        return HL_ERR_NOMEM;
    f->slot = f->lock = -1;
    pthread_mutex_lock(&open_list);
    f->next = open_files;
    open_files = f;
    pthread_mutex_unlock(&open_list);
    if (!strcmp(path, "-")) {
        f->path = strdup("-");
        if (!f->path)
            return fail_errno(f, ENOMEM);
        hl_status st = open_direct(f, dup(STDOUT_FILENO));
        if (st == HL_OK)
            *out = f;
        return st;
    }
    if (!(f->path = follow_links(path)))
        return fail_errno(f, errno);
    struct stat sb;
    bool exists = stat(f->path, &sb) == 0;
    if (exists && S_ISDIR(sb.st_mode))
        return fail_errno(f, EISDIR);
    if (exists && S_ISREG(sb.st_mode) && lock_target(f, &sb, &exists) != 0)
        return fail_errno(f, errno);
    f->created = !exists;
    if (exists && !S_ISREG(sb.st_mode)) {
        hl_status st = open_direct(f, open(f->path, O_WRONLY | O_CLOEXEC));
        if (st == HL_OK)
            *out = f;
        return st;
    }

    char *template = hl_atomic_temp_template(f->path);
    if (!template)
        return fail_errno(f, ENOMEM);
    int fd = hl_atomic_temp_create(template, &f->slot);
    if (fd < 0) {
        const int e = errno;
        free(template);
        return fail_errno(f, e);
    }
    f->tmp = template;
    if (fchmod(fd, hl_atomic_mode(exists ? &sb : NULL)) != 0 || !(f->fp = fdopen(fd, "wb"))) {
        int e = errno;
        close(fd);
        unlink(f->tmp);
        return fail_errno(f, e);
    }
    *out = f;
    return HL_OK;
}

bool hl_atomic_file_is_direct(const hl_atomic_file *f) { return f && !f->tmp; }

const char *hl_atomic_file_existing(const hl_atomic_file *f)
{
    return f && f->lock >= 0 ? f->path : NULL;
}

FILE *hl_atomic_file_stream(hl_atomic_file *f) { return f ? f->fp : NULL; }

hl_status hl_atomic_file_write(hl_atomic_file *f, const void *buf, size_t len)
{
    if (!f || (!buf && len > 0))
        return HL_ERR_NULL;
    if (fflush(f->fp) != 0)
        return HL_ERR_IO;
    return hl_atomic_write_all(fileno(f->fp), buf, len) == 0 ? HL_OK : HL_ERR_IO;
}

hl_status hl_atomic_file_reserve(hl_atomic_file *f, int64_t bytes)
{
    if (!f)
        return HL_ERR_NULL;
    if (hl_atomic_file_is_direct(f) || bytes <= 0)
        return HL_OK;
    const int fd = fileno(f->fp);
    int e = posix_fallocate(fd, 0, (off_t)bytes);
    if (e == 0)
        return HL_OK;
    if (e != EOPNOTSUPP && e != EINVAL) {
        errno = e;
        return HL_ERR_IO;
    }
    /* a file system that cannot allocate ahead: at least compare with
     * what it has free */
    struct statvfs vfs;
    if (fstatvfs(fd, &vfs) == 0 && (uint64_t)vfs.f_bavail * vfs.f_frsize < (uint64_t)bytes) {
        errno = ENOSPC;
        return HL_ERR_IO;
    }
    return HL_OK;
}

void hl_atomic_file_abort(hl_atomic_file *f)
{
    if (!f)
        return;
    int e = errno;
    fclose(f->fp);
    if (!hl_atomic_file_is_direct(f))
        unlink(f->tmp);
    release(f);
    errno = e;
}

/* Cuts space claimed by hl_atomic_file_reserve but not written. */
static int trim(int fd)
{
    off_t end = lseek(fd, 0, SEEK_CUR);
    return end < 0 ? -1 : ftruncate(fd, end);
}

hl_status hl_atomic_file_commit(hl_atomic_file *f)
{
    if (!f)
        return HL_ERR_NULL;
    const bool direct = hl_atomic_file_is_direct(f);
    /* a FIFO or terminal cannot be synced (EINVAL): flushed is done */
    int fail = ferror(f->fp) || fflush(f->fp) != 0 || (!direct && trim(fileno(f->fp)) != 0) ||
               (fsync(fileno(f->fp)) != 0 && !(direct && (errno == EINVAL || errno == EROFS)));
    int e = fail ? (errno ? errno : EIO) : 0;
    if (fclose(f->fp) != 0 && !fail) {
        fail = 1;
        e = errno;
    }
    if (!direct && hl_atomic_place(f->tmp, f->path, f->created, fail, e) != HL_OK)
        return fail_errno(f, errno);
    if (direct && fail)
        return fail_errno(f, e);
    release(f);
    return HL_OK;
}
