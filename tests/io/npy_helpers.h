/* What the .npy tests share: the scratch directory, .npy images built
 * byte by byte around a header dict, and NumPy's descr of each fixed type.
 * Define _XOPEN_SOURCE 700 (mkdtemp, fork, setrlimit, dirent) before
 * including. */
#ifndef HL_TESTS_NPY_HELPERS_H
#define HL_TESTS_NPY_HELPERS_H

#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
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

#include "hyperlayout.h"

#define TMPDIR_PREFIX "hl_npy"
#include "scratch.h"

/* ---- helpers ------------------------------------------------------------- */

static inline const char *in_dir(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/%s", tmpdir, name);
    return buf;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static inline uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Du;
}

/* A .npy file image: magic, version major.0, the length field (2 or 4
 * bytes), dict, spaces up to an `align` boundary and '\n' (align 0: no
 * padding, no newline).  Returns the length written into out. */
static inline size_t build(unsigned char *out, size_t cap, int major, const char *dict,
                           size_t align)
{
    size_t pre = major == 1 ? 10 : 12, n = strlen(dict);
    size_t total = pre + n;
    if (align) {
        total += 1;
        total = (total + align - 1) / align * align;
    }
    assert_true(total <= cap);
    memcpy(out, "\x93NUMPY", 6);
    out[6] = (unsigned char)major;
    out[7] = 0;
    size_t hlen = total - pre;
    for (size_t i = 8; i < pre; i++)
        out[i] = (unsigned char)(hlen >> (8 * (i - 8)));
    memcpy(out + pre, dict, n);
    if (align) {
        memset(out + pre + n, ' ', total - pre - n - 1);
        out[total - 1] = '\n';
    }
    return total;
}

/* Parses a header built around dict from an exactly sized heap copy, so
 * that the sanitizers see any read past the end. */
static inline hl_status parse_dict_v(int major, const char *dict, hl_npy_info *info)
{
    unsigned char img[8192];
    size_t n = build(img, sizeof img, major, dict, 64);
    unsigned char *copy = malloc(n);
    assert_non_null(copy);
    memcpy(copy, img, n);
    hl_status st = hl_npy_parse_header(copy, n, info);
    free(copy);
    return st;
}

static inline hl_status parse_dict(const char *dict)
{
    hl_npy_info info;
    return parse_dict_v(1, dict, &info);
}

#define DICT(descr, fortran, shape)                                                                \
    "{'descr': " descr ", 'fortran_order': " fortran ", 'shape': " shape ", }"

static const hl_dtype fixed_types[] = {
    HL_DTYPE_INT8,    HL_DTYPE_INT16,     HL_DTYPE_INT32,      HL_DTYPE_INT64,
    HL_DTYPE_UINT8,   HL_DTYPE_UINT16,    HL_DTYPE_UINT32,     HL_DTYPE_UINT64,
    HL_DTYPE_FLOAT16, HL_DTYPE_FLOAT32,   HL_DTYPE_FLOAT64,    HL_DTYPE_COMPLEX64,
    HL_DTYPE_COMPLEX128, HL_DTYPE_BOOL,
};
static const char *const fixed_descr[] = {
    "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8",
    "<f2", "<f4", "<f8", "<c8", "<c16", "|b1",
};

#endif
