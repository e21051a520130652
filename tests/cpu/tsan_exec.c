/* "Execution is thread-safe": one plan run from many threads at once, under
 * ThreadSanitizer (this program is built with -fsanitize=thread and the
 * library's sources).  Eight threads run whole plans into their own outputs
 * and four share one output through hl_execute_share; every result is
 * checked.  The plans use one OpenMP thread each (libgomp is not built for
 * TSan, so its own synchronisation would be invisible to it). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hyperlayout.h"

enum { N0 = 96, N1 = 80, N = N0 * N1, WHOLE = 8, SHARED = 4, PLANS = 4 };

static hl_plan *plans[PLANS];
static uint32_t in[N], want[PLANS][N], shared_out[PLANS][N];

typedef struct {
    int id;
    int bad;
    uint32_t out[N];
} worker;

static void *run_whole(void *arg)
{
    worker *w = arg;
    for (int rep = 0; rep < 20; rep++)
        for (int k = 0; k < PLANS; k++) {
            const hl_plan *p = plans[(k + w->id) % PLANS];
            if (hl_execute(p, in, w->out) != HL_OK ||
                memcmp(w->out, want[(k + w->id) % PLANS], sizeof w->out) != 0)
                w->bad = 1;
        }
    return NULL;
}

static void *run_share(void *arg)
{
    worker *w = arg;
    for (int k = 0; k < PLANS; k++)
        if (hl_execute_share(plans[k], in, shared_out[k], w->id, SHARED) != HL_OK)
            w->bad = 1;
    return NULL;
}

int main(void)
{
    hl_shape s;
    const hl_plan_options one = {1, false};
    const int perm[2] = {1, 0};
    const int64_t tile[2] = {8, 8}, shift[2] = {3, 77};
    if (hl_shape_parse(&s, "[80,96,uint32]") != HL_OK || hl_plan_flip(&plans[0], &s, 3, &one) ||
        hl_plan_permute(&plans[1], &s, perm, &one) || hl_plan_tile(&plans[2], &s, tile, &one) ||
        hl_plan_shift(&plans[3], &s, shift, &one)) {
        fprintf(stderr, "tsan_exec: planning failed\n");
        return 1;
    }
    for (int j = 0; j < N; j++)
        in[j] = (uint32_t)j * 2654435761u;
    for (int k = 0; k < PLANS; k++)
        hl_execute(plans[k], in, want[k]);
    static worker w[WHOLE + SHARED];
    pthread_t t[WHOLE + SHARED];
    for (int j = 0; j < WHOLE + SHARED; j++) {
        w[j].id = j < WHOLE ? j : j - WHOLE;
        if (pthread_create(&t[j], NULL, j < WHOLE ? run_whole : run_share, &w[j]) != 0) {
            fprintf(stderr, "tsan_exec: pthread_create failed\n");
            return 1;
        }
    }
    int bad = 0;
    for (int j = 0; j < WHOLE + SHARED; j++) {
        pthread_join(t[j], NULL);
        bad |= w[j].bad;
    }
    for (int k = 0; k < PLANS; k++) {
        bad |= memcmp(shared_out[k], want[k], sizeof want[k]) != 0;
        hl_plan_destroy(plans[k]);
    }
    if (bad) {
        fprintf(stderr, "tsan_exec: a result differs from the single-threaded one\n");
        return 1;
    }
    printf("tsan_exec: %d threads ran %d plans concurrently, results equal\n", WHOLE + SHARED, PLANS);
    return 0;
}
