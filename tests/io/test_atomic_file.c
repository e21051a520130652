/* apps/common's hl_atomic_file: the stream through which the applications and
 * benchmarks write images, checkpoints, CSV and JSON.  Abort leaves the
 * target as it was, commit replaces it whole, and no path — success, abort
 * or any failure — leaves a temporary behind.  (The library's own one-call
 * writer is tested through hl_npy_save in test_npy.c.) */
#define _XOPEN_SOURCE 700 /* mkdtemp, fork, setrlimit, dirent */

#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "atomic_file.h"

#define TMPDIR_PREFIX "hl_atomic_file"
#include "scratch.h"

/* ---- helpers ------------------------------------------------------------- */

/* A fresh directory NAME in the test's directory. */
static void make_dir(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/%s", tmpdir, name);
    assert_int_equal(mkdir(buf, 0700), 0);
}

/* The one entry of DIR that is not NAME (the temporary beside it): asserts
 * it is ".NAME.XXXXXX". */
static void assert_temporary_of(const char *dir, const char *name)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int found = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, name))
            continue;
        found++;
        assert_int_equal(e->d_name[0], '.');
        assert_int_equal(strncmp(e->d_name + 1, name, strlen(name)), 0);
        assert_int_equal(strlen(e->d_name), strlen(name) + 8);
        assert_int_equal(e->d_name[strlen(name) + 1], '.');
    }
    closedir(d);
    assert_int_equal(found, 1);
}

/* ---- tests: one call, begin / finish -------------------------------------- */

/* The chunks one after another; an existing file keeps its permission bits,
 * a new one gets 0666 less the umask; a symbolic link at the path becomes a
 * file (the library's writers replace the path itself); failures leave the
 * target and no temporary. */
static void test_one_call(void **state)
{
    (void)state;
    char dir[768], path[1024], other[1100];
    make_dir(dir, sizeof dir, "one");
    snprintf(path, sizeof path, "%s/a.npy", dir);
    write_file(path, original, sizeof original);
    assert_int_equal(chmod(path, 0604), 0);
    const void *chunks[] = {"head", "", "tail"};
    const size_t lens[] = {4, 0, 4};
    assert_int_equal(hl_atomic_write(path, 3, chunks, lens), HL_OK);
    size_t n;
    unsigned char *got = read_file(path, &n);
    assert_int_equal(n, 8);
    assert_memory_equal(got, "headtail", 8);
    free(got);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 07777, 0604);
    assert_int_equal(count_entries(dir), 1);

    mode_t old = umask(077);
    snprintf(other, sizeof other, "%s/new.npy", dir);
    assert_int_equal(hl_atomic_write(other, 0, NULL, NULL), HL_OK);
    umask(old);
    assert_int_equal(stat(other, &sb), 0);
    assert_int_equal(sb.st_mode & 07777, 0600);
    assert_int_equal(sb.st_size, 0);

    snprintf(other, sizeof other, "%s/link.npy", dir);
    assert_int_equal(symlink("a.npy", other), 0);
    assert_int_equal(hl_atomic_write(other, 1, chunks, lens), HL_OK);
    assert_int_equal(lstat(other, &sb), 0);
    assert_true(S_ISREG(sb.st_mode));
    got = read_file(path, &n); /* the link's old target is untouched */
    assert_int_equal(n, 8);
    free(got);
    assert_int_equal(count_entries(dir), 3);

    assert_int_equal(hl_atomic_write(NULL, 0, NULL, NULL), HL_ERR_NULL);
    assert_int_equal(hl_atomic_write(path, 1, NULL, lens), HL_ERR_NULL);
    errno = 0;
    assert_int_equal(hl_atomic_write("", 0, NULL, NULL), HL_ERR_IO);
    assert_int_equal(errno, ENOENT);
    snprintf(other, sizeof other, "%s/missing/x.npy", dir);
    errno = 0;
    assert_int_equal(hl_atomic_write(other, 1, chunks, lens), HL_ERR_IO);
    assert_int_equal(errno, ENOENT);
    /* a directory at the path: the rename fails, the temporary goes */
    snprintf(other, sizeof other, "%s/sub", dir);
    assert_int_equal(mkdir(other, 0700), 0);
    snprintf(path, sizeof path, "%s/sub/keep", dir);
    write_file(path, "x", 1);
    errno = 0;
    assert_int_equal(hl_atomic_write(other, 1, chunks, lens), HL_ERR_IO);
    assert_true(errno != 0);
    assert_int_equal(count_entries(dir), 4); /* a, new, link, sub */
    assert_int_equal(count_entries(other), 1);
}

/* begin makes the temporary (a copy of the target when asked), finish puts
 * it in place, cancel removes it. */
static void test_begin_finish(void **state)
{
    (void)state;
    char dir[768], path[1024];
    make_dir(dir, sizeof dir, "begin");
    snprintf(path, sizeof path, "%s/f.h5", dir);
    write_file(path, original, sizeof original);

    char *tmp = NULL;
    assert_int_equal(hl_atomic_begin(path, true, &tmp), HL_OK);
    assert_non_null(tmp);
    assert_temporary_of(dir, "f.h5");
    size_t n;
    unsigned char *got = read_file(tmp, &n); /* the copy */
    assert_int_equal(n, sizeof original);
    assert_memory_equal(got, original, n);
    free(got);
    FILE *f = fopen(tmp, "ab");
    assert_non_null(f);
    fputs("+more", f);
    assert_int_equal(fclose(f), 0);
    assert_original(path); /* nothing shows before finish */
    assert_int_equal(hl_atomic_finish(tmp, path), HL_OK);
    got = read_file(path, &n);
    assert_int_equal(n, sizeof original + 5);
    assert_memory_equal(got + sizeof original, "+more", 5);
    free(got);
    assert_int_equal(count_entries(dir), 1);

    write_file(path, original, sizeof original);
    assert_int_equal(hl_atomic_begin(path, false, &tmp), HL_OK);
    assert_int_equal(count_entries(dir), 2);
    hl_atomic_cancel(tmp);
    assert_original(path);
    assert_int_equal(count_entries(dir), 1);
    hl_atomic_cancel(NULL);

    /* a begun temporary is listed for the signal hook: removed by it, the
     * finish then fails and the target stays */
    assert_int_equal(hl_atomic_begin(path, true, &tmp), HL_OK);
    assert_int_equal(count_entries(dir), 2);
    hl_atomic_remove_temporaries();
    assert_int_equal(count_entries(dir), 1);
    assert_int_equal(hl_atomic_finish(tmp, path), HL_ERR_IO);
    assert_original(path);
    /* and unlisted once finished: the hook leaves the new file alone */
    assert_int_equal(hl_atomic_begin(path, true, &tmp), HL_OK);
    assert_int_equal(hl_atomic_finish(tmp, path), HL_OK);
    hl_atomic_remove_temporaries();
    assert_original(path);
    assert_int_equal(count_entries(dir), 1);

    assert_int_equal(hl_atomic_begin(NULL, false, &tmp), HL_ERR_NULL);
    assert_int_equal(hl_atomic_begin(path, false, NULL), HL_ERR_NULL);
    char missing[1100];
    snprintf(missing, sizeof missing, "%s/missing/f.h5", dir);
    errno = 0;
    assert_int_equal(hl_atomic_begin(missing, false, &tmp), HL_ERR_IO);
    assert_int_equal(errno, ENOENT);
    assert_null(tmp);
    assert_int_equal(hl_atomic_begin(path, false, &tmp), HL_OK);
    assert_int_equal(hl_atomic_finish(tmp, NULL), HL_ERR_NULL); /* removed */
    assert_int_equal(count_entries(dir), 1);
    assert_original(path);
}

/* ---- tests: the stream ------------------------------------------------------ */

static void test_abort_and_commit(void **state)
{
    (void)state;
    char dir[768], path[1024];
    make_dir(dir, sizeof dir, "stream");
    snprintf(path, sizeof path, "%s/table.csv", dir);
    write_file(path, original, sizeof original);

    hl_atomic_file *f = NULL;
    assert_int_equal(hl_atomic_file_open(&f, path), HL_OK);
    assert_temporary_of(dir, "table.csv");
    fprintf(hl_atomic_file_stream(f), "half a table\n");
    hl_atomic_file_abort(f);
    assert_original(path);
    assert_int_equal(count_entries(dir), 1);

    assert_int_equal(hl_atomic_file_open(&f, path), HL_OK);
    for (int i = 0; i < 1000; i++)
        fprintf(hl_atomic_file_stream(f), "%d,%d\n", i, i * i);
    assert_int_equal(hl_atomic_file_commit(f), HL_OK);
    size_t n;
    unsigned char *got = read_file(path, &n);
    assert_int_equal(count_entries(dir), 1);
    assert_true(n > 8000);
    assert_memory_equal(got, "0,0\n1,1\n2,4\n", 12);
    assert_memory_equal(got + n - 11, "999,998001\n", 11);
    free(got);

    /* nothing written at all: an empty file */
    assert_int_equal(hl_atomic_file_open(&f, path), HL_OK);
    assert_int_equal(hl_atomic_file_commit(f), HL_OK);
    got = read_file(path, &n);
    assert_int_equal(n, 0);
    free(got);
    assert_int_equal(count_entries(dir), 1);
}

/* An existing target is locked from open to commit or abort: a second
 * opener in this process is refused at once (waiting would be for ever),
 * one in another process waits and then writes over the first's file; a new
 * target that appears meanwhile is not replaced; a file this process could
 * not write is refused (root may write anything: that case is skipped). */
static void test_locks(void **state)
{
    (void)state;
    char dir[768], path[1024], fresh[1024];
    make_dir(dir, sizeof dir, "locks");
    snprintf(path, sizeof path, "%s/shared.csv", dir);
    snprintf(fresh, sizeof fresh, "%s/fresh.csv", dir);
    write_file(path, original, sizeof original);

    /* another process holds the lock (a fork made before any file was
     * open: a child inherits its parent's locks) */
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) { /* holds it for a second, then writes "first" */
        close(ready[0]);
        hl_atomic_file *h;
        if (hl_atomic_file_open(&h, path) != HL_OK)
            _exit(1);
        (void)!write(ready[1], "x", 1);
        sleep(1);
        fputs("first", hl_atomic_file_stream(h));
        _exit(hl_atomic_file_commit(h) == HL_OK ? 0 : 1);
    }
    close(ready[1]);
    char c;
    assert_int_equal(read(ready[0], &c, 1), 1);
    close(ready[0]);
    hl_atomic_file *f = NULL, *g = (hl_atomic_file *)1;
    assert_int_equal(hl_atomic_file_open(&f, path), HL_OK); /* waits for the child's commit */
    int wstatus;
    assert_int_equal(waitpid(pid, &wstatus, 0), pid); /* it committed; it may not have exited yet */
    assert_true(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0);
    size_t n;
    unsigned char *got = read_file(path, &n); /* what this opener now replaces */
    assert_int_equal(n, 5);
    assert_memory_equal(got, "first", 5);
    free(got);
    assert_string_equal(hl_atomic_file_existing(f), path);
    /* a second opener in this process: refused at once */
    errno = 0;
    assert_int_equal(hl_atomic_file_open(&g, path), HL_ERR_IO);
    assert_int_equal(errno, EDEADLK);
    assert_null(g);
    fputs("second", hl_atomic_file_stream(f));
    assert_int_equal(hl_atomic_file_commit(f), HL_OK);
    got = read_file(path, &n);
    assert_int_equal(n, 6);
    assert_memory_equal(got, "second", 6);
    free(got);

    /* a new file: not put over one that appeared meanwhile */
    assert_int_equal(hl_atomic_file_open(&f, fresh), HL_OK);
    assert_null(hl_atomic_file_existing(f));
    write_file(fresh, original, sizeof original);
    errno = 0;
    assert_int_equal(hl_atomic_file_commit(f), HL_ERR_IO);
    assert_int_equal(errno, EEXIST);
    assert_original(fresh);
    assert_int_equal(count_entries(dir), 2);

    if (geteuid() != 0) {
        assert_int_equal(chmod(fresh, 0444), 0);
        errno = 0;
        assert_int_equal(hl_atomic_file_open(&f, fresh), HL_ERR_IO);
        assert_int_equal(errno, EACCES);
        assert_original(fresh);
        assert_int_equal(count_entries(dir), 2);
    } else {
        print_message("running as root: the read-only target case is skipped (cli_faults runs it as nobody)\n");
    }
}

static void test_arguments(void **state)
{
    (void)state;
    char sentinel;
    hl_atomic_file *f = (hl_atomic_file *)(void *)&sentinel; /* open must clear it */
    assert_int_equal(hl_atomic_file_open(NULL, "x"), HL_ERR_NULL);
    assert_int_equal(hl_atomic_file_open(&f, NULL), HL_ERR_NULL);
    assert_null(f);
    errno = 0;
    assert_int_equal(hl_atomic_file_open(&f, ""), HL_ERR_IO);
    assert_int_equal(errno, ENOENT);
    assert_null(f);
    assert_null(hl_atomic_file_stream(NULL));
    assert_int_equal(hl_atomic_file_commit(NULL), HL_ERR_NULL);
    hl_atomic_file_abort(NULL);
}

/* Every failure: HL_ERR_IO with errno set, the target untouched, no
 * temporary left. */
static void test_failures(void **state)
{
    (void)state;
    char dir[768], path[1024];
    make_dir(dir, sizeof dir, "fail");
    snprintf(path, sizeof path, "%s/target.csv", dir);
    write_file(path, original, sizeof original);

    /* a directory that does not exist: open fails */
    char other[1100];
    hl_atomic_file *f = NULL;
    snprintf(other, sizeof other, "%s/missing/x.csv", dir);
    errno = 0;
    assert_int_equal(hl_atomic_file_open(&f, other), HL_ERR_IO);
    assert_int_equal(errno, ENOENT);
    assert_null(f);

    /* a target that is a directory: refused at open, nothing created */
    snprintf(other, sizeof other, "%s/sub", dir);
    assert_int_equal(mkdir(other, 0700), 0);
    char inner[1200];
    snprintf(inner, sizeof inner, "%s/keep", other);
    write_file(inner, "x", 1);
    errno = 0;
    assert_int_equal(hl_atomic_file_open(&f, other), HL_ERR_IO);
    assert_int_equal(errno, EISDIR);
    assert_null(f);
    struct stat sb;
    assert_int_equal(stat(other, &sb), 0);
    assert_true(S_ISDIR(sb.st_mode));
    assert_int_equal(count_entries(other), 1);
    assert_int_equal(count_entries(dir), 2); /* target.csv, sub */

    /* the space claimed up front beyond a file size limit: EFBIG at once */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        hl_atomic_install_cleanup(); /* SIGXFSZ ignored */
        struct rlimit rl = {.rlim_cur = 65536, .rlim_max = 65536};
        if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
            _exit(3);
        hl_atomic_file *g;
        if (hl_atomic_file_open(&g, path) != HL_OK)
            _exit(4);
        errno = 0;
        hl_status st = hl_atomic_file_reserve(g, 1 << 20);
        int e = errno;
        hl_atomic_file_abort(g);
        _exit(st == HL_ERR_IO && e == EFBIG ? 0 : 1);
    }
    int wstatus;
    assert_int_equal(waitpid(pid, &wstatus, 0), pid);
    assert_true(WIFEXITED(wstatus));
    assert_int_equal(WEXITSTATUS(wstatus), 0);
    assert_original(path);
    assert_int_equal(count_entries(dir), 2);

    /* writing fails half way (file size limit): the stream's error makes
     * commit fail */
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = {.rlim_cur = 65536, .rlim_max = 65536};
        if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
            _exit(3);
        hl_atomic_file *g;
        if (hl_atomic_file_open(&g, path) != HL_OK)
            _exit(4);
        for (int i = 0; i < 100000; i++) /* 2.2 MB, far past the limit */
            fputs("0123456789,0123456789\n", hl_atomic_file_stream(g));
        errno = 0;
        hl_status st = hl_atomic_file_commit(g);
        _exit(st == HL_ERR_IO && errno != 0 ? 0 : 1);
    }
    assert_int_equal(waitpid(pid, &wstatus, 0), pid);
    assert_true(WIFEXITED(wstatus));
    assert_int_equal(WEXITSTATUS(wstatus), 0);
    assert_original(path);
    assert_int_equal(count_entries(dir), 2);

    /* a directory we may not write to (root may write anywhere: skip then) */
    if (geteuid() != 0) {
        char ro[1100], ro_target[1200];
        snprintf(ro, sizeof ro, "%s/ro", dir);
        assert_int_equal(mkdir(ro, 0700), 0);
        snprintf(ro_target, sizeof ro_target, "%s/target.csv", ro);
        write_file(ro_target, original, sizeof original);
        assert_int_equal(chmod(ro, 0500), 0);
        errno = 0;
        assert_int_equal(hl_atomic_file_open(&f, ro_target), HL_ERR_IO);
        assert_int_equal(errno, EACCES);
        assert_null(f);
        assert_original(ro_target);
        assert_int_equal(count_entries(ro), 1);
        assert_int_equal(chmod(ro, 0700), 0);
    } else {
        print_message("running as root: the read-only directory case is skipped\n");
    }
}

/* An existing file keeps its permission bits; a new one gets 0666 less the
 * umask; a path without a directory is relative to the working directory. */
static void test_permissions(void **state)
{
    (void)state;
    char dir[768], path[1024];
    make_dir(dir, sizeof dir, "perm");
    snprintf(path, sizeof path, "%s/kept.csv", dir);
    write_file(path, original, sizeof original);
    assert_int_equal(chmod(path, 0604), 0);
    hl_atomic_file *f;
    assert_int_equal(hl_atomic_file_open(&f, path), HL_OK);
    fputs("a,b\n", hl_atomic_file_stream(f));
    assert_int_equal(hl_atomic_file_commit(f), HL_OK);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 07777, 0604);

    mode_t old = umask(027);
    snprintf(path, sizeof path, "%s/new.csv", dir);
    assert_int_equal(hl_atomic_file_open(&f, path), HL_OK);
    assert_int_equal(hl_atomic_file_commit(f), HL_OK);
    umask(old);
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 07777, 0640);

    char cwd[1024];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(dir), 0);
    assert_int_equal(hl_atomic_file_open(&f, "rel.csv"), HL_OK);
    fputs("relative\n", hl_atomic_file_stream(f));
    assert_int_equal(hl_atomic_file_commit(f), HL_OK);
    assert_int_equal(chdir(cwd), 0);
    assert_int_equal(count_entries(dir), 3); /* kept, new, rel */
}

/* Targets that are not regular files are written through, never replaced;
 * a symbolic link is followed and its target replaced. */
static void test_special_targets(void **state)
{
    (void)state;
    char dir[768], path[1024], link[1024];
    make_dir(dir, sizeof dir, "special");
    hl_atomic_file *f;
    assert_int_equal(hl_atomic_file_open(&f, "/dev/null"), HL_OK);
    assert_true(hl_atomic_file_is_direct(f));
    assert_int_equal(hl_atomic_file_reserve(f, (int64_t)1 << 40), HL_OK); /* nothing to claim */
    assert_int_equal(hl_atomic_file_write(f, "discarded", 9), HL_OK);
    assert_int_equal(hl_atomic_file_commit(f), HL_OK);
    struct stat sb;
    assert_int_equal(stat("/dev/null", &sb), 0);
    assert_true(S_ISCHR(sb.st_mode));

    snprintf(path, sizeof path, "%s/fifo", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) { /* the reader: what comes through must be the bytes sent */
        FILE *r = fopen(path, "rb");
        char got[16] = {0};
        size_t n = r ? fread(got, 1, sizeof got, r) : 0;
        _exit(n == 11 && !memcmp(got, "hello fifo\n", 11) ? 0 : 1);
    }
    assert_int_equal(hl_atomic_file_open(&f, path), HL_OK);
    assert_true(hl_atomic_file_is_direct(f));
    fputs("hello ", hl_atomic_file_stream(f));
    assert_int_equal(hl_atomic_file_write(f, "fifo\n", 5), HL_OK);
    assert_int_equal(hl_atomic_file_commit(f), HL_OK);
    int wstatus;
    assert_int_equal(waitpid(pid, &wstatus, 0), pid);
    assert_true(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0);
    assert_int_equal(lstat(path, &sb), 0);
    assert_true(S_ISFIFO(sb.st_mode));

    snprintf(path, sizeof path, "%s/target.csv", dir);
    snprintf(link, sizeof link, "%s/link.csv", dir);
    write_file(path, original, sizeof original);
    assert_int_equal(symlink("target.csv", link), 0);
    assert_int_equal(hl_atomic_file_open(&f, link), HL_OK);
    assert_false(hl_atomic_file_is_direct(f));
    assert_int_equal(hl_atomic_file_reserve(f, 4096), HL_OK);
    assert_int_equal(hl_atomic_file_write(f, "new\n", 4), HL_OK);
    assert_int_equal(hl_atomic_file_commit(f), HL_OK);
    assert_int_equal(lstat(link, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    size_t n;
    unsigned char *got = read_file(path, &n);
    assert_int_equal(n, 4); /* the claimed space is not left as a tail */
    assert_memory_equal(got, "new\n", 4);
    free(got);
    assert_int_equal(count_entries(dir), 3); /* fifo, target, link */
}

static void on_term(int sig)
{
    (void)sig;
    hl_atomic_remove_temporaries();
    _exit(7);
}

/* A child with a stream on PATH open and written to (it says so through a
 * pipe), then waiting to be ended, or calling exit() at once.  cleanup: the
 * library's handlers; own_handler: SIGTERM's handler is on_term. */
static pid_t child_with_open_file(const char *path, bool cleanup, bool own_handler, bool exits)
{
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(ready[0]);
        if (cleanup)
            hl_atomic_install_cleanup();
        if (own_handler) {
            struct sigaction sa;
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = on_term;
            sigemptyset(&sa.sa_mask);
            sigaction(SIGTERM, &sa, NULL);
        }
        hl_atomic_file *g;
        if (hl_atomic_file_open(&g, path) != HL_OK)
            _exit(1);
        fputs("partial", hl_atomic_file_stream(g));
        fflush(hl_atomic_file_stream(g));
        (void)!write(ready[1], "x", 1);
        if (exits)
            exit(5);
        for (;;)
            pause();
    }
    close(ready[1]);
    char c;
    assert_int_equal(read(ready[0], &c, 1), 1);
    close(ready[0]);
    return pid;
}

/* More files open than the hook's 32 slots: every one opens and commits;
 * the hook removes the listed temporaries and leaves the others. */
static void test_many_open(void **state)
{
    (void)state;
    enum { N = 40 };
    char dir[768], path[1024];
    make_dir(dir, sizeof dir, "many");
    hl_atomic_file *f[N];
    for (int i = 0; i < N; i++) {
        snprintf(path, sizeof path, "%s/f%02d", dir, i);
        assert_int_equal(hl_atomic_file_open(&f[i], path), HL_OK);
    }
    assert_int_equal(count_entries(dir), N);
    hl_atomic_remove_temporaries();
    assert_int_equal(count_entries(dir), N - 32);
    for (int i = 0; i < N; i++)
        hl_atomic_file_abort(f[i]);
    assert_int_equal(count_entries(dir), 0);
    for (int i = 0; i < N; i++) {
        snprintf(path, sizeof path, "%s/f%02d", dir, i);
        assert_int_equal(hl_atomic_file_open(&f[i], path), HL_OK);
        assert_int_equal(hl_atomic_file_write(f[i], "x", 1), HL_OK);
    }
    for (int i = 0; i < N; i++)
        assert_int_equal(hl_atomic_file_commit(f[i]), HL_OK);
    assert_int_equal(count_entries(dir), N);
}

/* A terminating signal or exit() with a stream open: the application's own
 * handler calls the hook, or the library's handlers (installed only when
 * asked) do; the target is untouched and no temporary is left.  Without
 * either, the temporary stays (the library installs nothing by itself). */
static void test_signal_cleanup(void **state)
{
    (void)state;
    char dir[768], path[1024];
    make_dir(dir, sizeof dir, "signal");
    snprintf(path, sizeof path, "%s/out.csv", dir);
    write_file(path, original, sizeof original);
    int wstatus;

    pid_t pid = child_with_open_file(path, false, true, false);
    assert_int_equal(count_entries(dir), 2);
    assert_int_equal(kill(pid, SIGTERM), 0);
    assert_int_equal(waitpid(pid, &wstatus, 0), pid);
    assert_true(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 7);
    assert_original(path);
    assert_int_equal(count_entries(dir), 1);

    pid = child_with_open_file(path, true, false, false);
    assert_int_equal(kill(pid, SIGINT), 0);
    assert_int_equal(waitpid(pid, &wstatus, 0), pid);
    assert_true(WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGINT); /* dies of it */
    assert_original(path);
    assert_int_equal(count_entries(dir), 1);

    pid = child_with_open_file(path, true, false, true);
    assert_int_equal(waitpid(pid, &wstatus, 0), pid);
    assert_true(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 5);
    assert_original(path);
    assert_int_equal(count_entries(dir), 1);

    pid = child_with_open_file(path, false, false, false);
    assert_int_equal(kill(pid, SIGKILL), 0); /* nothing can clean up after this */
    assert_int_equal(waitpid(pid, &wstatus, 0), pid);
    assert_original(path);
    assert_temporary_of(dir, "out.csv");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_call),
        cmocka_unit_test(test_begin_finish),
        cmocka_unit_test(test_signal_cleanup),
        cmocka_unit_test(test_many_open),
        cmocka_unit_test(test_abort_and_commit),
        cmocka_unit_test(test_locks),
        cmocka_unit_test(test_arguments),
        cmocka_unit_test(test_failures),
        cmocka_unit_test(test_permissions),
        cmocka_unit_test(test_special_targets),
    };
    return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
