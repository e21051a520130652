/* hyperlayout CLI — a progress line for long work on a terminal, and the
 * wall clock for --time. */
#ifndef CLI_PROGRESS_H
#define CLI_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

typedef enum { PROGRESS_AUTO, PROGRESS_ALWAYS, PROGRESS_NEVER } progress_mode;

typedef struct progress {
    const char *what;     /* "hyperlayout transform" */
    progress_mode mode;
    bool tty;             /* stderr is a terminal: one line rewritten in place */
    double start, shown;  /* seconds; shown: the last line's time, 0 before */
    int64_t total;        /* bytes */
    int last_tenth;       /* not a terminal: a line per tenth done */
} progress;

/* Monotonic seconds. */
double now_seconds(void);

void progress_start(progress *p, const char *what, progress_mode mode, int64_t total_bytes);

/* `done` of the total bytes are done.  AUTO shows nothing in the first
 * second, nor on anything but a terminal. */
void progress_update(progress *p, int64_t done);

/* Clears the line (a terminal) or ends it. */
void progress_end(progress *p);

#endif
