/* hyperlayout — a damaged HDF5 file: its metadata decoded in a child
 * process first, under bounds of memory and time. */
#define _XOPEN_SOURCE 700 /* posix_memalign, strdup */

#include "hyperlayout/h5.h"

#ifdef HL_HAVE_HDF5

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hdf5.h>

#include "atomic.h"
#include "h5_internal.h"

/* ---- a damaged file: HDF5's decoders tried in a child process first ------
 * HDF5 1.10 decodes a file's metadata as it finds it: some damaged object
 * headers, dataspace messages, B-trees and heaps crash it (SIGSEGV in
 * H5O_msg_read, H5HG_read, H5F__accum_read; h5py dies the same way) or make
 * it loop or allocate what a damaged length says.  What hyperlayout can
 * check itself it checks (types_sound, attr_sound); for the rest, the
 * metadata a command will decode — the one dataset and its attributes
 * (hl_h5_reader_open), or every object (hl_h5_list) — is decoded first in
 * a child process under bounds of memory (its own size and 256 MiB more),
 * processor time (2 s) and time (20 s).  Only when the child got through
 * does this process decode it; otherwise one line says that the file is
 * damaged.  A file whose every object passed is remembered (its device,
 * inode, size and change time), so that reading it after listing it costs
 * no second probe.  Without fork (it fails) the file is read as it is. */


#if defined(__SANITIZE_ADDRESS__)
#define HL_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HL_UNDER_ASAN 1
#endif
#endif
#ifndef HL_UNDER_ASAN
#define HL_UNDER_ASAN 0
#endif
#if HL_UNDER_ASAN
#include <sanitizer/common_interface_defs.h>

/* AddressSanitizer ends a process that reads out of bounds with exit
 * status 1, which the parent would take for HDF5's own error; in the
 * probe child that is HDF5 crashing, so it dies by a signal instead. */
static void die_by_signal(void)
{
    signal(SIGABRT, SIG_DFL);
    abort();
}
#endif

/* Set in the child when an attribute the checks let through cannot be read
 * within its bounds (HDF5 would allocate and clear what a damaged length
 * says): the file is then not remembered, and a reader refuses it. */
static bool probe_attr_failed;

static herr_t probe_attr(hid_t loc, const char *name, const H5A_info_t *ai, void *user)
{
    (void)ai, (void)user;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    hid_t t = a >= 0 ? H5Aget_type(a) : -1, s = a >= 0 ? H5Aget_space(a) : -1;
    char why[300];
    const hssize_t n = s >= 0 ? H5Sget_simple_extent_npoints(s) : -1;
    if (t >= 0 && s >= 0 && H5Tdetect_class(t, H5T_REFERENCE) <= 0 &&
        hl_h5_attr_sound(loc, name, t, n, why, sizeof why)) {
        void *buf = calloc(n > 0 ? (size_t)n : 1, H5Tget_size(t));
        if (!buf || H5Aread(a, t, buf) < 0) /* the child ends: nothing reclaimed */
            probe_attr_failed = true;
    }
    H5Eclear2(H5E_DEFAULT);
    return 0;
}

static void probe_object(hid_t o)
{
    if (H5Iget_type(o) == H5I_DATASET) {
        hl_h5_info info;
        hid_t mem;
        hl_h5_dataset_info(o, &info, &mem);
    }
    H5Aiterate2(o, H5_INDEX_NAME, H5_ITER_INC, NULL, probe_attr, NULL);
    H5Eclear2(H5E_DEFAULT);
}

static herr_t probe_link(hid_t g, const char *name, const H5L_info_t *li, void *user)
{
    (void)user;
    if (li->type == H5L_TYPE_HARD || li->type == H5L_TYPE_SOFT || li->type == H5L_TYPE_EXTERNAL) {
        hid_t o = H5Oopen(g, name, H5P_DEFAULT);
        if (o >= 0) {
            probe_object(o);
            H5Oclose(o);
        }
    }
    H5Eclear2(H5E_DEFAULT);
    return 0;
}

static void probe_child(const char *path, const char *dataset)
{
    long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld", &pages) != 1)
            pages = 0;
        fclose(f);
    }
#if HL_UNDER_ASAN
    __sanitizer_set_death_callback(die_by_signal);
#else /* ASan's shadow memory needs the address space unbounded */
    if (pages > 0) {
        const rlim_t cap = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)256 << 20);
        const struct rlimit as = {cap, cap};
        setrlimit(RLIMIT_AS, &as);
    }
#endif
    const struct rlimit cpu = {2, 3};
    setrlimit(RLIMIT_CPU, &cpu);
    signal(SIGALRM, SIG_DFL);
    alarm(20);
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0)
        _exit(1);
    if (dataset) {
        char why[256];
        hid_t d;
        if (hl_h5_open_dataset(file, path, dataset, &d, why, sizeof why) == HL_OK)
            probe_object(d);
    } else {
        H5Lvisit(file, H5_INDEX_NAME, H5_ITER_INC, probe_link, NULL);
    }
    _exit(probe_attr_failed ? 3 : 0);
}

typedef struct {
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec ctime;
} probed_file;

enum { PROBED = 8 };
static pthread_mutex_t probed_mutex = PTHREAD_MUTEX_INITIALIZER;
static probed_file probed[PROBED];
static int nprobed;

static bool same_file(const probed_file *a, const struct stat *sb)
{
    return a->dev == sb->st_dev && a->ino == sb->st_ino && a->size == sb->st_size &&
           a->ctime.tv_sec == sb->st_ctim.tv_sec && a->ctime.tv_nsec == sb->st_ctim.tv_nsec;
}

/* HL_OK when the metadata of path (dataset; NULL: every object) decoded in
 * a child; else HL_ERR_FORMAT and why. */
hl_status hl_h5_probe(const char *path, const char *dataset, char *why, size_t cap)
{
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return HL_OK; /* the open says what is wrong */
    bool known = false;
    pthread_mutex_lock(&probed_mutex);
    for (int i = 0; i < nprobed && !known; i++)
        known = same_file(&probed[i], &sb);
    pthread_mutex_unlock(&probed_mutex);
    if (known)
        return HL_OK;
    fflush(NULL);
    const pid_t pid = fork();
    if (pid < 0)
        return HL_OK;
    if (pid == 0)
        probe_child(path, dataset);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return HL_OK;
    if (WIFEXITED(status)) {
        if (!dataset && WEXITSTATUS(status) == 0) {
            pthread_mutex_lock(&probed_mutex);
            probed[nprobed < PROBED ? nprobed++ : PROBED - 1] =
                (probed_file){sb.st_dev, sb.st_ino, sb.st_size, sb.st_ctim};
            pthread_mutex_unlock(&probed_mutex);
        }
        if (dataset && WEXITSTATUS(status) == 3)
            return hl_h5_fail(HL_ERR_FORMAT, why, cap, path, dataset, false, "a damaged file: HDF5 "
                        "cannot read the dataset's attributes within bounds of memory");
        return HL_OK; /* HDF5's errors, if any, come again in this process */
    }
    const int sig = WTERMSIG(status);
    if (sig == SIGXCPU || sig == SIGALRM || sig == SIGKILL)
        return hl_h5_fail(HL_ERR_FORMAT, why, cap, path, dataset, false, "a damaged file: HDF5 could "
                    "not decode its metadata within bounds of memory and time");
    return hl_h5_fail(HL_ERR_FORMAT, why, cap, path, dataset, false, "a damaged file: HDF5 crashed "
                "decoding its metadata (%s)", strsignal(sig));
}


#endif /* HL_HAVE_HDF5 */
