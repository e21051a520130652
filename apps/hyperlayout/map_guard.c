/* hyperlayout CLI — SIGBUS from a mapped input that shrank: one line, the
 * temporaries removed, exit status 2 (map_guard.h). */
#define _POSIX_C_SOURCE 200809L /* sigaction, siginfo_t, O_CLOEXEC */

#include "map_guard.h"

#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic_file.h"

/* Fixed slots, so that the handler reads nothing being allocated; a slot's
 * message is written before the slot is marked used. */
enum { SLOTS = 8, MESSAGE_MAX = 1200 };

static struct {
    atomic_int used; /* 0 free, 2 being filled, 1 listed */
    uintptr_t lo, hi;
    char message[MESSAGE_MAX];
    size_t message_len;
} slots[SLOTS];

static void on_sigbus(int sig, siginfo_t *info, void *context)
{
    (void)context;
    const uintptr_t at = (uintptr_t)info->si_addr;
    for (int i = 0; i < SLOTS; i++) {
        if (atomic_load(&slots[i].used) == 1 && at >= slots[i].lo && at < slots[i].hi) {
            /* several threads may fault at once: the first speaks and ends
             * the process, the others wait for that */
            static atomic_flag first = ATOMIC_FLAG_INIT;
            if (atomic_flag_test_and_set(&first))
                for (;;)
                    pause();
            hl_atomic_remove_temporaries();
            ssize_t w = write(STDERR_FILENO, slots[i].message, slots[i].message_len);
            (void)w;
            _exit(2);
        }
    }
    /* not ours: the default action when the faulting access runs again */
    signal(sig, SIG_DFL);
}

static void install(void)
{
    static atomic_flag once = ATOMIC_FLAG_INIT;
    if (atomic_flag_test_and_set(&once))
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);
}

void map_guard_watch(const void *base, size_t len, const char *name)
{
    if (!base || len == 0)
        return;
    install();
    for (int i = 0; i < SLOTS; i++) {
        int expect = 0;
        if (atomic_compare_exchange_strong(&slots[i].used, &expect, 2)) {
            slots[i].lo = (uintptr_t)base;
            slots[i].hi = (uintptr_t)base + len;
            int n = snprintf(slots[i].message, MESSAGE_MAX,
                             "hyperlayout: %s: the file shrank while it was being read (another "
                             "program truncated or replaced it in place); nothing was written\n",
                             name);
            slots[i].message_len = n < 0 ? 0 : n >= MESSAGE_MAX ? MESSAGE_MAX - 1 : (size_t)n;
            atomic_store(&slots[i].used, 1);
            return;
        }
    }
}

void map_guard_forget(const void *base)
{
    for (int i = 0; i < SLOTS; i++)
        if (atomic_load(&slots[i].used) == 1 && slots[i].lo == (uintptr_t)base)
            atomic_store(&slots[i].used, 0);
}

void map_guard_test_pause(void)
{
    const char *fifo = getenv("HYPERLAYOUT_TEST_MAP_PAUSE");
    if (!fifo || !fifo[0])
        return;
    const int fd = open(fifo, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    char buf[64];
    while (read(fd, buf, sizeof buf) > 0)
        ;
    close(fd);
}
