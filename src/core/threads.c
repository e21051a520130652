/* hyperlayout — the size of the OpenMP teams the library starts (threads.h). */
#define _POSIX_C_SOURCE 200809L /* sigset_t, pthread_sigmask: clang's -fopenmp does not imply them as gcc's does */
#include "threads.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <omp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

int hl_threads_bound(int requested)
{
    int n = requested > 0 ? requested : omp_get_max_threads();
    const int limit = omp_get_thread_limit(), procs = omp_get_num_procs();
    const int per_procs =
        procs > 0 && procs <= INT_MAX / HL_THREADS_PER_PROC ? procs * HL_THREADS_PER_PROC : INT_MAX;
    if (limit > 0 && n > limit)
        n = limit;
    if (n > per_procs)
        n = per_procs;
    return n > 1 ? n : 1;
}

/* libgomp's reading of OMP_STACKSIZE / GOMP_STACKSIZE (env.c): a number,
 * then optionally B, K, M or G (K when none), spaces around.  False when
 * unset or unreadable (libgomp then uses pthread's default too). */
static bool stack_size_of(const char *name, size_t *size)
{
    const char *s = getenv(name);
    if (!s)
        return false;
    while (isspace((unsigned char)*s))
        s++;
    if (!*s)
        return false;
    char *end;
    errno = 0;
    const unsigned long v = strtoul(s, &end, 10);
    if (errno || end == s)
        return false;
    while (isspace((unsigned char)*end))
        end++;
    int shift = 10;
    if (*end) {
        switch (tolower((unsigned char)*end)) {
        case 'b': shift = 0; break;
        case 'k': shift = 10; break;
        case 'm': shift = 20; break;
        case 'g': shift = 30; break;
        default: return false;
        }
        end++;
        while (isspace((unsigned char)*end))
            end++;
        if (*end)
            return false;
    }
    if (((v << shift) >> shift) != v)
        return false;
    *size = (size_t)(v << shift);
    return true;
}

/* The threads of a trial wait here until all are made. */
typedef struct gate {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    bool open;
} gate;

static void *wait_at_gate(void *arg)
{
    gate *g = arg;
    pthread_mutex_lock(&g->mutex);
    while (!g->open)
        pthread_cond_wait(&g->cond, &g->mutex);
    pthread_mutex_unlock(&g->mutex);
    return NULL;
}

/* Creates up to n threads alive together, then releases and joins them:
 * how many could be created.  The threads block every signal (they inherit
 * the mask), so that none is delivered to them. */
static int trial(int n)
{
    pthread_t *t = malloc(sizeof *t * (size_t)n);
    if (!t)
        return 0;
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) {
        free(t);
        return 0;
    }
    size_t stack;
    if (stack_size_of("OMP_STACKSIZE", &stack) || stack_size_of("GOMP_STACKSIZE", &stack))
        pthread_attr_setstacksize(&attr, stack); /* refused: libgomp would stop first */
    gate g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false};
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int made = 0;
    while (made < n && pthread_create(&t[made], &attr, wait_at_gate, &g) == 0)
        made++;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_mutex_lock(&g.mutex);
    g.open = true;
    pthread_cond_broadcast(&g.cond);
    pthread_mutex_unlock(&g.mutex);
    for (int i = 0; i < made; i++)
        pthread_join(t[i], NULL);
    pthread_attr_destroy(&attr);
    pthread_mutex_destroy(&g.mutex);
    pthread_cond_destroy(&g.cond);
    free(t);
    return made;
}

/* The largest team found to start (1 needs no new thread), and the
 * smallest found not to (0: none yet). */
static atomic_int verified = 1, refused = 0;
static pthread_mutex_t trying = PTHREAD_MUTEX_INITIALIZER;

int hl_threads_usable(int requested)
{
    const int n = hl_threads_bound(requested);
    int v = atomic_load(&verified);
    if (n <= v)
        return n;
    int r = atomic_load(&refused);
    if (r && n >= r)
        return v;
    pthread_mutex_lock(&trying);
    v = atomic_load(&verified);
    r = atomic_load(&refused);
    if (n > v && (!r || n < r)) {
        /* A team of n creates n - 1 threads: n of them leave one thread's
         * memory to spare for what libgomp allocates besides. */
        const int made = trial(n);
        if (made >= n) {
            v = n;
        } else {
            v = made > v ? made : v;
            r = v + 1;
            atomic_store(&refused, r);
        }
        atomic_store(&verified, v);
    }
    pthread_mutex_unlock(&trying);
    return n <= v ? n : v;
}
