/* hyperlayout CLI — progress lines. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void progress_start(progress *p, const char *what, progress_mode mode, int64_t total_bytes)
{
    p->what = what;
    p->mode = mode;
    p->tty = isatty(STDERR_FILENO);
    p->start = now_seconds();
    p->shown = 0;
    p->total = total_bytes > 0 ? total_bytes : 1;
    p->last_tenth = 0;
}

void progress_update(progress *p, int64_t done)
{
    if (p->mode == PROGRESS_NEVER || (p->mode == PROGRESS_AUTO && !p->tty))
        return;
    const double t = now_seconds(), elapsed = t - p->start;
    if (p->mode == PROGRESS_AUTO && elapsed < 1.0)
        return;
    const double frac = (double)done / (double)p->total;
    if (p->tty) {
        if (p->shown > 0 && t - p->shown < 0.1 && done < p->total)
            return;
    } else {
        const int tenth = (int)(frac * 10);
        if (tenth <= p->last_tenth && done < p->total)
            return;
        p->last_tenth = tenth;
    }
    p->shown = t;
    fprintf(stderr, "%s%s: %3.0f%% of %.2f GB, %.2f GB/s%s", p->tty ? "\r" : "", p->what,
            100 * frac, 1e-9 * (double)p->total, elapsed > 0 ? 1e-9 * (double)done / elapsed : 0.0,
            p->tty ? "\033[K" : "\n");
    fflush(stderr);
}

void progress_end(progress *p)
{
    if (p->shown > 0 && p->tty) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
}
