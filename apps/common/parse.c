/* hyperlayout applications — whole-string number parsing. */
#include "parse.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (end == s || *end)
        return -1;
    if (errno == ERANGE || x < lo || x > hi)
        return -2;
    *v = x;
    return 0;
}

/* A bound as people write it: 4096, 2^40, 2^63-1. */
static void format_bound(char *buf, size_t cap, int64_t x)
{
    if (x == INT64_MAX) {
        snprintf(buf, cap, "2^63-1");
        return;
    }
    if (x >= (INT64_C(1) << 20) && (x & (x - 1)) == 0) {
        int e = 0;
        while ((INT64_C(1) << e) != x)
            e++;
        snprintf(buf, cap, "2^%d", e);
        return;
    }
    snprintf(buf, cap, "%" PRId64, x);
}

int parse_i64_opt(const char *name, const char *what, const char *s, int64_t lo, int64_t hi,
                  int64_t *v, char *why, size_t cap)
{
    const int rc = parse_i64(s, lo, hi, v);
    if (rc == 0)
        return 0;
    char a[32], b[32];
    format_bound(a, sizeof a, lo);
    format_bound(b, sizeof b, hi);
    if (rc == -2)
        snprintf(why, cap, "%s needs %s from %s to %s: %s is out of range", name, what, a, b, s);
    else
        snprintf(why, cap, "%s needs %s from %s to %s, not '%s'", name, what, a, b, s);
    return -1;
}

int parse_double(const char *s, double *v)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || *end || errno == ERANGE || !isfinite(x))
        return -1;
    *v = x;
    return 0;
}

int parse_is_one_of(const char *arg, const char *const *names)
{
    for (; *names; names++)
        if (!strcmp(arg, *names))
            return 1;
    return 0;
}
