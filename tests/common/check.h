/* Failure reporting shared by the property tests.  CHECK_EQ compares
 * inline and formats a message — naming the shape under test, set with
 * failure_shape() — only on failure, since these tests make ~1e9 checks.
 * Include after <cmocka.h>. */
#ifndef HL_TESTS_CHECK_H
#define HL_TESTS_CHECK_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

static int check_rank;          /* 0: no shape to name */
static const int64_t *check_L;  /* extents, L0 first */

static inline void failure_shape(int rank, const int64_t *L)
{
    check_rank = rank;
    check_L = L;
}

/* inline: a file that includes this for failure_shape() alone compiles
 * without an unused-function warning */
static inline void check_failed(const char *file, int line, const char *expr, int64_t got,
                                int64_t want, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

static inline void check_failed(const char *file, int line, const char *expr, int64_t got,
                                int64_t want, const char *fmt, ...)
{
    char shape[HL_MAX_RANK * 24 + 16] = "", ctx[256];
    size_t n = 0;
    for (int i = check_rank - 1; i >= 0; i--)
        n += (size_t)snprintf(shape + n, sizeof shape - n, "%s%" PRId64 "%s",
                              i == check_rank - 1 ? "shape [" : "", check_L[i], i ? "," : "]: ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx, sizeof ctx, fmt, ap);
    va_end(ap);
    print_error("%s%s: %s = %" PRId64 ", expected %" PRId64 "\n", shape, ctx, expr, got, want);
    _fail(file, line);
}

#define CHECK_EQ(got, want, ...)                                                                   \
    do {                                                                                           \
        const int64_t got_ = (int64_t)(got), want_ = (int64_t)(want);                              \
        if (got_ != want_)                                                                         \
            check_failed(__FILE__, __LINE__, #got, got_, want_, __VA_ARGS__);                      \
    } while (0)

#endif
