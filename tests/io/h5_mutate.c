/* A mutation harness for the HDF5 reader (issue 46): real files (made by
 * h5py, h5_fuzz.py) with bytes of their metadata changed, then listed,
 * opened, read (every conversion) and copied to a new file with the type
 * and attributes (hl_h5_writer_open's `like`), as `info` and `transform`
 * do.  Any mutant must give a status: a crash, a hang (alarm) or a
 * sanitizer report fails.  The mutant being tried is left at DIR/mutant.h5,
 * so that one that kills the process can be replayed.
 * Where FILE.h5.regions lists "OFFSET LENGTH" lines (h5_fuzz.py writes the
 * places of the type and dataspace messages), only those bytes change;
 * otherwise any of the first 4 KiB.
 * Usage: h5_mutate RUNS SEED DIR FILE.h5...  (prints runs, accepted, time) */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "hyperlayout.h"

enum { MAX_NAMES = 8, META = 4096 };

typedef struct {
    unsigned char *bytes;
    size_t len;
    size_t (*region)[2]; /* offset, length; NULL: the first META bytes */
    int nregion;
} seed_file;

static uint64_t rng_state;

static uint64_t next(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "h5_mutate: a mutant hangs (kept as mutant.h5)\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(3);
}

/* Changes 1 to 8 places in the first META bytes (the superblock, the root
 * group and the object headers of small files): a random byte, a flipped
 * bit, or a 1, 2, 4 or 8 byte field set to a boundary value. */
static void mutate(unsigned char *b, size_t len, const seed_file *s)
{
    static const uint64_t edge[] = {0, 1, 2, 7, 8, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000,
                                    0xffff, 0x7fffffff, 0x80000000u, 0xffffffffu,
                                    UINT64_MAX, UINT64_MAX / 2};
    const int n = 1 + (int)(next() % 8);
    for (int i = 0; i < n; i++) {
        size_t from = 0, region = len < META ? len : META;
        if (s->nregion > 0) {
            const size_t *r = s->region[next() % (uint64_t)s->nregion];
            from = r[0];
            region = r[0] + r[1];
        }
        const size_t at = from + (size_t)(next() % (region - from));
        switch (next() % 4) {
        case 0: b[at] = (unsigned char)next(); break;
        case 1: b[at] ^= (unsigned char)(1u << (next() % 8)); break;
        case 2: b[at] = (unsigned char)(b[at] + 1 + next() % 16); break;
        default: {
            const size_t w = (size_t)1 << (next() % 4);
            uint64_t v = edge[next() % (sizeof edge / sizeof *edge)];
            for (size_t k = 0; k < w && at + k < region; k++, v >>= 8)
                b[at + k] = (unsigned char)v;
        }
        }
    }
}

typedef struct {
    char names[MAX_NAMES][256];
    int n;
} listing;

static int visit(const char *name, const hl_h5_info *info, void *user)
{
    listing *L = user;
    (void)info;
    if (L->n < MAX_NAMES && strlen(name) < sizeof L->names[0])
        strcpy(L->names[L->n++], name);
    return 0;
}

/* One mutant: listed, each dataset read and copied; the datasets read. */
static int try_one(const char *path, const char *out)
{
    char why[1024];
    listing L = {.n = 0};
    int read = 0;
    (void)hl_h5_list(path, visit, &L, why, sizeof why);
    for (int i = 0; i < L.n; i++) {
        hl_h5_reader *r;
        hl_h5_info info;
        if (hl_h5_reader_open(&r, path, L.names[i], &info, why, sizeof why) != HL_OK)
            continue;
        const int64_t bytes = hl_shape_bytes(&info.shape);
        void *buf = bytes > 0 && bytes <= (16 << 20) ? malloc((size_t)bytes) : NULL;
        const int64_t count = hl_shape_count(&info.shape);
        if (buf && hl_h5_reader_read(r, 0, count, buf, why, sizeof why) == HL_OK) {
            read++;
            hl_h5_write_options opt = {0};
            opt.like = r;
            hl_h5_writer *w;
            if (hl_h5_writer_open(&w, out, "/x", &info.shape, &opt, why, sizeof why) == HL_OK) {
                if (hl_h5_writer_write(w, 0, count, buf, why, sizeof why) == HL_OK)
                    (void)hl_h5_writer_commit(w, why, sizeof why);
                else
                    hl_h5_writer_abort(w);
            }
        }
        free(buf);
        hl_h5_reader_close(r);
    }
    return read;
}

static int load(seed_file *s, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    s->bytes = NULL;
    s->len = 0;
    unsigned char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        unsigned char *b = realloc(s->bytes, s->len + n);
        if (!b)
            break;
        memcpy(b + s->len, chunk, n);
        s->bytes = b;
        s->len += n;
    }
    fclose(f);
    char name[4200];
    snprintf(name, sizeof name, "%s.regions", path);
    s->region = NULL;
    s->nregion = 0;
    if ((f = fopen(name, "r"))) {
        size_t at, cnt;
        while (fscanf(f, "%zu %zu", &at, &cnt) == 2) {
            size_t(*r)[2] = realloc(s->region, (size_t)(s->nregion + 1) * sizeof *r);
            if (!r || cnt == 0 || at + cnt > s->len) {
                free(r ? r : s->region);
                fclose(f);
                return -1;
            }
            r[s->nregion][0] = at;
            r[s->nregion][1] = cnt;
            s->region = r;
            s->nregion++;
        }
        fclose(f);
    }
    return s->len > 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: h5_mutate RUNS SEED DIR FILE.h5...\n");
        return 2;
    }
    if (hl_h5_available() != HL_OK) {
        printf("h5_mutate: built without HDF5\n");
        return 77;
    }
    const long long runs = atoll(argv[1]);
    rng_state = (uint64_t)atoll(argv[2]) * 0x9e3779b97f4a7c15u + 1;
    const int nseeds = argc - 4;
    seed_file *seeds = calloc((size_t)nseeds, sizeof *seeds);
    for (int i = 0; seeds && i < nseeds; i++)
        if (load(&seeds[i], argv[4 + i]) != 0) {
            fprintf(stderr, "h5_mutate: cannot read %s\n", argv[4 + i]);
            return 2;
        }
    char path[4096], out[4096];
    snprintf(path, sizeof path, "%s/mutant.h5", argv[3]);
    snprintf(out, sizeof out, "%s/copy.h5", argv[3]);
    /* HDF5 allocates and clears what a variable-length element's length
     * says (up to 4 GiB) before it reads the element: a damaged length
     * costs a minute and gigabytes, not a crash.  With the address space
     * bounded that allocation fails at once (HDF5 returns an error), so
     * the runs stay quick; a sanitizer's shadow memory needs it unbounded */
    bool asan = false;
#if defined(__SANITIZE_ADDRESS__)
    asan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    asan = true;
#endif
#endif
    if (!asan && !getenv("HL_H5_FUZZ_NO_MEMLIMIT")) {
        const struct rlimit as = {(rlim_t)512 << 20, (rlim_t)512 << 20};
        setrlimit(RLIMIT_AS, &as);
    }
    signal(SIGALRM, on_alarm);
    signal(SIGXFSZ, SIG_IGN);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long long accepted = 0;
    unsigned char *b = NULL;
    for (long long k = 0; k < runs; k++) {
        const seed_file *s = &seeds[next() % (uint64_t)nseeds];
        unsigned char *nb = realloc(b, s->len);
        if (!nb)
            return 2;
        b = nb;
        memcpy(b, s->bytes, s->len);
        mutate(b, s->len, s);
        unlink(path); /* a new file each time: the library remembers files it checked */
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(b, 1, s->len, f) != s->len || fclose(f) != 0) {
            fprintf(stderr, "h5_mutate: cannot write %s\n", path);
            return 2;
        }
        alarm(20);
        accepted += try_one(path, out) > 0;
        alarm(0);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    unlink(path);
    unlink(out);
    printf("h5_mutate: %lld runs, %lld mutants read at least one dataset, %.1f s\n", runs,
           accepted, (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
    free(b);
    for (int i = 0; seeds && i < nseeds; i++) {
        free(seeds[i].bytes);
        free(seeds[i].region);
    }
    free(seeds);
    return 0;
}
