/* The HDF5 type decoding fuzzed in memory (issue 46): the encodings
 * (H5Tencode) of every kind of type a dataset can have are mutated, decoded
 * (H5Tdecode, the decoder of the file's datatype messages), classified as
 * the reader classifies a dataset's type (src/io/h5.c: the metadata checks
 * first), and, when accepted, a buffer of random elements is converted to
 * the memory type the reader would read it as (H5Tconvert: the conversion
 * H5Dread makes, where a damaged precision crashed H5T__conv_f_f and
 * H5T__conv_i_i).  Dataspace encodings (H5Sdecode) are mutated and decoded
 * too.  HDF5 1.10's own decoders crash on some mutants (a memcpy past the
 * encoding in H5O_msg_decode, below H5Tdecode; in a file the same bytes
 * crash H5Dopen, which hyperlayout's probe child takes): the runs go in
 * batches in child processes that write where they are (run, phase) to
 * shared memory, so a crash is told apart — inside HDF5's decoder
 * (counted and reported), or after the decode, in the checks and the
 * conversion (a failure) — and the next batch goes on after it.
 * Usage: h5_type_mutate RUNS SEED.  HL_H5_TYPE_NOCHECK=1 converts every
 * decoded integer and float type, checked or not (to show what the checks
 * prevent: it crashes). */
#define _GNU_SOURCE /* MAP_ANONYMOUS */

#include <hdf5.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "io/h5_internal.h"

/* H5Sencode's first byte (H5Tencode's is 3) */
enum { MAX_SEEDS = 64, PAD = 4096, NELEM = 7, SPACE_ENCODING = 1 };

typedef struct {
    unsigned char *bytes;
    size_t len;
} enc;

static enc seeds[MAX_SEEDS];
static int nseeds;
static uint64_t rng_state = 88172645463325252u;

static uint64_t next(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void add_type(hid_t t)
{
    size_t n = 0;
    if (t < 0 || nseeds == MAX_SEEDS || H5Tencode(t, NULL, &n) < 0 || n == 0)
        return;
    seeds[nseeds].bytes = calloc(1, n);
    seeds[nseeds].len = n;
    if (seeds[nseeds].bytes && H5Tencode(t, seeds[nseeds].bytes, &n) >= 0)
        nseeds++;
}

static void add_space(int rank, const hsize_t *dims, const hsize_t *max)
{
    hid_t s = rank ? H5Screate_simple(rank, dims, max) : H5Screate(H5S_SCALAR);
    size_t n = 0;
    if (s >= 0 && nseeds < MAX_SEEDS && H5Sencode(s, NULL, &n) >= 0 && n > 0) {
        seeds[nseeds].bytes = calloc(1, n);
        seeds[nseeds].len = n;
        if (seeds[nseeds].bytes && H5Sencode(s, seeds[nseeds].bytes, &n) >= 0)
            nseeds++;
    }
    if (s >= 0)
        H5Sclose(s);
}

static void make_seeds(void)
{
    const hid_t std[] = {H5T_STD_I8LE,   H5T_STD_U8LE,   H5T_STD_I16LE,  H5T_STD_U16BE,
                         H5T_STD_I32LE,  H5T_STD_U32BE,  H5T_STD_I64BE,  H5T_STD_U64LE,
                         H5T_IEEE_F32LE, H5T_IEEE_F32BE, H5T_IEEE_F64LE, H5T_IEEE_F64BE,
                         H5T_STD_B8LE,   H5T_STD_B32BE};
    for (size_t i = 0; i < sizeof std / sizeof *std; i++)
        add_type(std[i]);
    hid_t f16 = H5Tcopy(H5T_IEEE_F32LE); /* h5py's float16 */
    H5Tset_fields(f16, 15, 10, 5, 0, 10);
    H5Tset_size(f16, 2);
    H5Tset_ebias(f16, 15);
    add_type(f16);
    hid_t e = H5Tenum_create(H5T_NATIVE_INT8); /* h5py's bool */
    int8_t v0 = 0, v1 = 1;
    H5Tenum_insert(e, "FALSE", &v0);
    H5Tenum_insert(e, "TRUE", &v1);
    add_type(e);
    hid_t e2 = H5Tenum_create(H5T_STD_U16BE);
    uint16_t w0 = 3, w1 = 9;
    H5Tenum_insert(e2, "A", &w0);
    H5Tenum_insert(e2, "B", &w1);
    add_type(e2);
    for (int k = 0; k < 2; k++) { /* h5py's complex */
        const size_t half = k ? 8 : 4;
        hid_t c = H5Tcreate(H5T_COMPOUND, 2 * half);
        H5Tinsert(c, "r", 0, k ? H5T_IEEE_F64BE : H5T_IEEE_F32LE);
        H5Tinsert(c, "i", half, k ? H5T_IEEE_F64BE : H5T_IEEE_F32LE);
        add_type(c);
        H5Tclose(c);
    }
    hid_t c3 = H5Tcreate(H5T_COMPOUND, 16);
    H5Tinsert(c3, "x", 0, H5T_STD_I32LE);
    H5Tinsert(c3, "y", 8, H5T_IEEE_F64LE);
    add_type(c3);
    hid_t s = H5Tcopy(H5T_C_S1);
    H5Tset_size(s, 5);
    add_type(s);
    hid_t vs = H5Tcopy(H5T_C_S1);
    H5Tset_size(vs, H5T_VARIABLE);
    add_type(vs);
    const hsize_t ad[2] = {2, 3};
    hid_t arr = H5Tarray_create2(H5T_IEEE_F32LE, 2, ad);
    add_type(arr);
    hid_t op = H5Tcreate(H5T_OPAQUE, 6);
    add_type(op);
    const hsize_t d1[1] = {5}, d3[3] = {2, 3, 4}, m3[3] = {4, H5S_UNLIMITED, 4};
    add_space(1, d1, NULL);
    add_space(3, d3, m3);
    add_space(0, NULL, NULL);
    H5Tclose(f16), H5Tclose(e), H5Tclose(e2), H5Tclose(c3), H5Tclose(s), H5Tclose(vs);
    H5Tclose(arr), H5Tclose(op);
}

/* Mutates b[from, to) */
static void mutate(unsigned char *b, size_t from, size_t len)
{
    static const uint64_t edge[] = {0, 1, 2, 7, 8, 15, 16, 31, 32, 63, 64, 65, 127, 128, 167,
                                    255, 256, 0x7fff, 0xffff, 0x7fffffff, 0xffffffffu,
                                    UINT64_MAX};
    const int n = 1 + (int)(next() % 6);
    for (int i = 0; i < n; i++) {
        const size_t at = from + (size_t)(next() % (len - from));
        switch (next() % 4) {
        case 0: b[at] = (unsigned char)next(); break;
        case 1: b[at] ^= (unsigned char)(1u << (next() % 8)); break;
        case 2: b[at] = (unsigned char)(b[at] + 1 + next() % 8); break;
        default: {
            const size_t w = (size_t)1 << (next() % 3);
            uint64_t v = edge[next() % (sizeof edge / sizeof *edge)];
            for (size_t k = 0; k < w && at + k < len; k++, v >>= 8)
                b[at + k] = (unsigned char)v;
        }
        }
    }
}

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "h5_type_mutate: a mutant hangs\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(3);
}

/* One decoded type: classified, and converted when accepted (or, with
 * nocheck, whenever HDF5 has a native type for it).  1 when converted. */
static int try_type(hid_t t, bool nocheck)
{
    hl_h5_info info;
    hid_t mem = -1;
    hl_h5_classify(t, &info, &mem);
    const H5T_class_t c = H5Tget_class(t);
    if (mem < 0 && nocheck && (c == H5T_INTEGER || c == H5T_FLOAT))
        mem = H5Tget_native_type(t, H5T_DIR_DEFAULT);
    if (mem < 0) {
        H5Eclear2(H5E_DEFAULT);
        return 0;
    }
    const size_t fs = H5Tget_size(t), ms = H5Tget_size(mem);
    const size_t big = (fs > ms ? fs : ms) * NELEM;
    int done = 0;
    if (big > 0 && big < (1u << 24)) {
        unsigned char *buf = malloc(big), *bkg = calloc(1, big);
        for (size_t i = 0; buf && i < fs * NELEM; i++)
            buf[i] = (unsigned char)next();
        if (buf && bkg && H5Tconvert(t, mem, NELEM, buf, bkg, H5P_DEFAULT) >= 0)
            done = 1;
        free(buf);
        free(bkg);
    }
    H5Tclose(mem);
    H5Eclear2(H5E_DEFAULT);
    return done;
}

/* Where a batch's child is: shared with the parent. */
typedef struct {
    volatile long long run;    /* the run being made */
    volatile int phase;        /* 1 decoding (HDF5), 2 checking and converting */
    volatile long long decoded, converted;
} progress;

/* Runs [first, runs) in this (child) process; phase and run in *p. */
static void run_batch(long long first, long long runs, uint64_t seed, bool nocheck, progress *p)
{
    size_t cap = 0;
    unsigned char *b = NULL;
    for (long long k = first; k < runs; k++) {
        /* each run's own stream: a run replays alone, whatever crashed before it */
        rng_state = ((uint64_t)k + 1) * 0x9e3779b97f4a7c15u ^ (seed + 1) * 0x2545f4914f6cdd1du;
        const enc *s = &seeds[next() % (uint64_t)nseeds];
        if (s->len + PAD > cap) {
            cap = s->len + PAD;
            free(b);
            b = malloc(cap);
            if (!b)
                _exit(2);
        }
        memset(b, 0, cap); /* the decoders take no length: room to read past the end */
        memcpy(b, s->bytes, s->len);
        /* a type: all but the encoding's header; a dataspace: its extent
         * (the message a file holds), not the selection H5Sencode adds */
        const bool space = s->bytes[0] == SPACE_ENCODING;
        const size_t extent = space && s->len > 7 ? (size_t)s->bytes[3] | (size_t)s->bytes[4] << 8 : 0;
        if (space)
            mutate(b, 7, 7 + extent < s->len ? 7 + extent : s->len);
        else
            mutate(b, 2, s->len);
        p->run = k;
        if (k % 1024 == 0)
            alarm(20);
        p->phase = 1;
        if (space) {
            hid_t sp = H5Sdecode(b);
            p->phase = 2;
            if (sp >= 0) {
                p->decoded++;
                hsize_t dims[H5S_MAX_RANK], max[H5S_MAX_RANK];
                if (H5Sget_simple_extent_ndims(sp) >= 0)
                    (void)H5Sget_simple_extent_dims(sp, dims, max);
                (void)H5Sget_simple_extent_npoints(sp);
                H5Sclose(sp);
            }
        } else {
            hid_t t = H5Tdecode(b);
            p->phase = 2;
            if (t >= 0) {
                p->decoded++;
                p->converted += try_type(t, nocheck);
                H5Tclose(t);
            }
        }
        H5Eclear2(H5E_DEFAULT);
    }
    _exit(0);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: h5_type_mutate RUNS SEED\n");
        return 2;
    }
    const long long runs = atoll(argv[1]);
    const long long seed = atoll(argv[2]);
    const bool nocheck = getenv("HL_H5_TYPE_NOCHECK") != NULL;
    hl_h5_quiet q;
    hl_h5_quiet_on(&q);
    make_seeds();
    signal(SIGALRM, on_alarm);
    progress *p = mmap(NULL, sizeof *p, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return 2;
    memset(p, 0, sizeof *p);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long long decoder_faults = 0, check_faults = 0;
    long long first = getenv("HL_H5_TYPE_FIRST") ? atoll(getenv("HL_H5_TYPE_FIRST")) : 0;
    while (first < runs) {
        p->run = first;
        p->phase = 0;
        fflush(NULL);
        const pid_t pid = fork();
        if (pid < 0)
            return 2;
        if (pid == 0) {
            run_batch(first, runs, (uint64_t)seed, nocheck, p);
        }
        int status = 0;
        while (waitpid(pid, &status, 0) < 0)
            ;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
            break;
        if (WIFEXITED(status)) { /* 3: a hang (alarm) */
            fprintf(stderr, "h5_type_mutate: run %lld: exit %d\n", p->run, WEXITSTATUS(status));
            return 1;
        }
        if (p->phase == 1) {
            decoder_faults++;
        } else {
            check_faults++;
            fprintf(stderr, "h5_type_mutate: run %lld: signal %d after the decode (in the checks "
                    "or the conversion)\n", p->run, WTERMSIG(status));
        }
        first = p->run + 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("h5_type_mutate: %lld runs on %d encodings, %lld decoded, %lld converted, "
           "%lld crashes inside HDF5's decoder, %lld after it, %.1f s\n",
           runs, nseeds, p->decoded, p->converted, decoder_faults, check_faults,
           (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
    for (int i = 0; i < nseeds; i++)
        free(seeds[i].bytes);
    hl_h5_quiet_off(&q);
    return check_faults ? 1 : 0;
}
