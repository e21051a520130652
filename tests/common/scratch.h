/* A scratch directory per test program, removed with everything in it at
 * the end (a group set-up and tear-down for cmocka), a count of what a
 * directory holds — for tests that must leave no temporary file behind —
 * and whole files written and read back.  The helpers are inline so that a
 * file using only some of them builds without unused-function warnings.
 * Define TMPDIR_PREFIX (e.g. "hl_npy") before including; include after
 * <cmocka.h> and with _XOPEN_SOURCE 700. */
#ifndef HL_TESTS_SCRATCH_H
#define HL_TESTS_SCRATCH_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[512];

static int setup_dir(void **state)
{
    (void)state;
    const char *base = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/" TMPDIR_PREFIX "_XXXXXX", base && *base ? base : "/tmp");
    return mkdtemp(tmpdir) ? 0 : -1;
}

/* Removes dir and everything below it, read-only directories included. */
static int remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *e;
    char path[1024];
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (lstat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            chmod(path, 0700);
            remove_tree(path);
        } else {
            unlink(path);
        }
    }
    closedir(d);
    return rmdir(dir);
}

static int teardown_dir(void **state)
{
    (void)state;
    return remove_tree(tmpdir);
}

/* Number of entries in a directory other than . and .. */
static inline int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

static inline void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

/* Whole file into a malloc'ed buffer; *n its size. */
static inline unsigned char *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long size = ftell(f);
    assert_true(size >= 0);
    rewind(f);
    unsigned char *buf = malloc((size_t)size + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    *n = (size_t)size;
    return buf;
}

/* What a file replaced atomically holds until the replacement succeeds. */
static const char original[] = "the original contents, which a failed write must keep";

static inline void assert_original(const char *path)
{
    size_t n;
    unsigned char *got = read_file(path, &n);
    assert_int_equal(n, sizeof original);
    assert_memory_equal(got, original, sizeof original);
    free(got);
}

#endif
