/* hyperlayout applications — whole-string number parsing. */
#include "parse.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

int parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (end == s || *end || errno == ERANGE || x < lo || x > hi)
        return -1;
    *v = x;
    return 0;
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
