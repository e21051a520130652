/* hyperlayout internal — the lock of a file replaced by name (atomic.h,
 * hl_atomic_lock): the HDF5 writers edit a copy of the file (hl_atomic_begin)
 * and rename it over the file, so two of them at once would each copy the
 * old file and the second rename would drop the first one's dataset.
 *
 * Two locks on one descriptor of the existing file:
 *   - a record lock on the open file description (fcntl F_OFD_SETLKW,
 *     exclusive), which every hyperlayout writer of such a file takes and
 *     waits for: writers take turns, each copying what the one before it
 *     left.  A record lock, not flock, because HDF5 itself uses flock;
 *   - flock shared, non-blocking: HDF5's own file lock (HDF5 1.10 and
 *     later) is flock, exclusive for a program that has the file open for
 *     writing (h5py's mode 'a'), shared for readers.  An exclusive holder is
 *     refused (EWOULDBLOCK) rather than waited for, as HDF5 refuses a read
 *     then: its writes would go to the file this writer replaces.  Held
 *     shared until the rename, so no HDF5 program opens the file for
 *     writing meanwhile, while readers (this process's own input among
 *     them) go on. */
#define _GNU_SOURCE /* F_OFD_SETLKW */

#include "io/atomic.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef F_OFD_SETLKW
#define LOCK_TRY F_OFD_SETLK
#define LOCK_WAIT F_OFD_SETLKW
#else /* process-wide record locks: enough between processes */
#define LOCK_TRY F_SETLK
#define LOCK_WAIT F_SETLKW
#endif

/* The files this process holds locked: a record lock of our own would make
 * us wait for ourselves for ever (EDEADLK instead). */
enum { HELD_MAX = 16 };
static pthread_mutex_t held_mutex = PTHREAD_MUTEX_INITIALIZER;
typedef struct {
    int fd;
    dev_t dev;
    ino_t ino;
} held_file;
static held_file held[HELD_MAX];
static int nheld;

static bool held_here(const struct stat *sb)
{
    bool found = false;
    pthread_mutex_lock(&held_mutex);
    for (int i = 0; i < nheld && !found; i++)
        found = held[i].dev == sb->st_dev && held[i].ino == sb->st_ino;
    pthread_mutex_unlock(&held_mutex);
    return found;
}

static void note_held(int fd, const struct stat *sb)
{
    pthread_mutex_lock(&held_mutex);
    if (nheld < HELD_MAX)
        held[nheld++] = (held_file){fd, sb->st_dev, sb->st_ino};
    pthread_mutex_unlock(&held_mutex);
}

static int record_lock(int fd, int cmd)
{
    struct flock l = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    int rc;
    while ((rc = fcntl(fd, cmd, &l)) != 0 && errno == EINTR)
        ;
    return rc;
}

static hl_status fail(int fd, int e)
{
    if (fd >= 0)
        close(fd);
    errno = e;
    return HL_ERR_IO;
}

hl_status hl_atomic_lock(const char *path, int *lock)
{
    if (!path || !lock)
        return HL_ERR_NULL;
    *lock = -1;
    for (;;) {
        struct stat sb, now;
        if (stat(path, &sb) != 0)
            return errno == ENOENT ? HL_OK : fail(-1, errno); /* a new file */
        if (!S_ISREG(sb.st_mode))
            return HL_OK; /* nothing a rename would replace under a lock */
        const int fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
            return errno == ENOENT ? HL_OK : fail(-1, errno);
        if (fstat(fd, &sb) != 0)
            return fail(fd, errno);
        if (record_lock(fd, LOCK_TRY) != 0) {
            if (errno != EAGAIN && errno != EACCES)
                return fail(fd, errno);
            if (held_here(&sb))
                return fail(fd, EDEADLK);
            fprintf(stderr, "%s: waiting for another process that is writing it\n", path);
            if (record_lock(fd, LOCK_WAIT) != 0)
                return fail(fd, errno);
        }
        if (stat(path, &now) != 0 || now.st_dev != sb.st_dev || now.st_ino != sb.st_ino) {
            close(fd); /* replaced (or removed) while we waited: lock what is there now */
            continue;
        }
        if (flock(fd, LOCK_SH | LOCK_NB) != 0)
            return fail(fd, errno == EWOULDBLOCK ? EWOULDBLOCK : errno);
        note_held(fd, &sb);
        *lock = fd;
        return HL_OK;
    }
}

void hl_atomic_unlock(int lock)
{
    if (lock < 0)
        return;
    pthread_mutex_lock(&held_mutex);
    for (int i = 0; i < nheld; i++)
        if (held[i].fd == lock) {
            held[i] = held[--nheld];
            break;
        }
    pthread_mutex_unlock(&held_mutex);
    const int e = errno;
    close(lock); /* and with it both locks */
    errno = e;
}
