/* hyperlayout applications — numbers on command lines. */
#ifndef APPS_COMMON_PARSE_H
#define APPS_COMMON_PARSE_H

#include <stdint.h>

/* 0 when s is entirely one decimal integer in [lo, hi], else -1 (v untouched). */
int parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *v);

/* 0 when s is entirely one finite number, else -1 (v untouched). */
int parse_double(const char *s, double *v);

#endif
