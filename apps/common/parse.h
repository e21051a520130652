/* hyperlayout applications — numbers and options on command lines. */
#ifndef APPS_COMMON_PARSE_H
#define APPS_COMMON_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* 0 when s is entirely one decimal integer in [lo, hi]; -1 when it is not an
 * integer at all, -2 when it is one outside [lo, hi] (or outside int64);
 * v untouched on failure. */
int parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *v);

/* parse_i64 for the value s of option `name`, with the reason on failure:
 * 0, or -1 with one line in why[cap] that says what was wrong and gives
 * the range, `what` naming the kind of number ("a count", "an integer"):
 * "--threads needs a count from 0 to 4096: 5000 is out of range" or
 * "--threads needs a count from 0 to 4096, not 'x'".  Bounds of 2^20 and
 * more that are powers of two print as 2^N, INT64_MAX as 2^63-1. */
int parse_i64_opt(const char *name, const char *what, const char *s, int64_t lo, int64_t hi,
                  int64_t *v, char *why, size_t cap);

/* 0 when s is entirely one finite number, else -1 (v untouched). */
int parse_double(const char *s, double *v);

/* 1 when arg is one of names (NULL-terminated), else 0: lets a command tell
 * an unknown option from a known one that lacks its value. */
int parse_is_one_of(const char *arg, const char *const *names);

#endif
