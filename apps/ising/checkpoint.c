/* hyperlayout Ising — checkpoint files.
 *
 * Layout (native byte order, checked by a marker; one machine type writes
 * and reads them):
 *   "HLISING\0" u32 version  u32 0x01020304
 *   params: i32 rank, i64 extent[rank], u64 seed, f64 h, i32 ntemps,
 *           f64 beta[ntemps], i64 therm, i64 sweeps, i32 start,
 *           i32 dynamics + 256 * multispin (variant M's stream; 0 before it was),
 *           and for Wolff dynamics only i64 clusters per sweep
 *   state:  i32 temp (ntemps when all are done), i64 done, i64 sweep, i64 measured,
 *           i64 magnetisation[measured], i64 bonds[measured],
 *           f64 result fields x RESULT_DOUBLES for each finished temperature
 *   spins:  i8 [N] in logical k order (version 1)
 *           or, in a checkpoint of a run across processes (version 2, ising_mpi.h),
 *           i32 generation (the spins are in the .npy of that number beside
 *           the file) and u64 the lattice's checksum (ising_dist_checksum)
 *   u64 FNV-1a hash of every byte before it
 * Written through hl_atomic_file_*: a reader sees the previous checkpoint or
 * this one, whole. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "run.h"

#define CK_VERSION 1u      /* the spins inside */
#define CK_VERSION_DIST 2u /* the spins in a .npy beside it */
#define CK_MARKER 0x01020304u
static const char ck_magic[8] = {'H', 'L', 'I', 'S', 'I', 'N', 'G', '\0'};

/* ---- a hashing writer / reader ---- */

typedef struct ck_io {
    FILE *f;
    uint64_t hash;
    int bad;
} ck_io;

static void hash_bytes(ck_io *io, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) {
        io->hash ^= c[i];
        io->hash *= 0x100000001b3ull;
    }
}

static void put(ck_io *io, const void *p, size_t n)
{
    if (n && fwrite(p, 1, n, io->f) != n)
        io->bad = 1;
    hash_bytes(io, p, n);
}

static void get(ck_io *io, void *p, size_t n)
{
    if (io->bad || (n && fread(p, 1, n, io->f) != n)) {
        io->bad = 1;
        memset(p, 0, n);
        return;
    }
    hash_bytes(io, p, n);
}

#define PUT(io, v) put(io, &(v), sizeof(v))
#define GET(io, v) get(io, &(v), sizeof(v))

/* ---- results as a flat list of doubles ---- */

enum { RESULT_DOUBLES = 28 };

static void result_pack(const ising_result *r, double *d)
{
    const ising_estimate *e[8] = {&r->e, &r->m, &r->absm, &r->m2, &r->m4, &r->binder, &r->c, &r->chi};
    int n = 0;
    d[n++] = r->beta;
    d[n++] = r->h;
    d[n++] = (double)r->sites;
    d[n++] = (double)r->samples;
    for (int j = 0; j < 8; j++) {
        d[n++] = e[j]->mean;
        d[n++] = e[j]->err;
    }
    d[n++] = r->tau_e;
    d[n++] = r->tau_m;
    d[n++] = (double)r->bin;
    d[n++] = (double)r->bins;
    d[n++] = r->reliable;
    while (n < RESULT_DOUBLES)
        d[n++] = 0;
}

static void result_unpack(const double *d, ising_result *r)
{
    ising_estimate *e[8] = {&r->e, &r->m, &r->absm, &r->m2, &r->m4, &r->binder, &r->c, &r->chi};
    int n = 0;
    r->beta = d[n++];
    r->h = d[n++];
    r->sites = (int64_t)d[n++];
    r->samples = (int64_t)d[n++];
    for (int j = 0; j < 8; j++) {
        e[j]->mean = d[n++];
        e[j]->err = d[n++];
    }
    r->tau_e = d[n++];
    r->tau_m = d[n++];
    r->bin = (int64_t)d[n++];
    r->bins = (int64_t)d[n++];
    r->reliable = (int)d[n++];
}

/* ---- params ---- */

static void params_put(ck_io *io, const ising_params *p)
{
    int32_t rank = p->rank, ntemps = p->ntemps, start = (int32_t)p->start,
            dyn = (int32_t)p->dynamics + 256 * (p->multispin != 0);
    PUT(io, rank);
    put(io, p->extent, (size_t)p->rank * sizeof p->extent[0]);
    PUT(io, p->seed);
    PUT(io, p->h);
    PUT(io, ntemps);
    put(io, p->beta, (size_t)p->ntemps * sizeof p->beta[0]);
    PUT(io, p->therm);
    PUT(io, p->sweeps);
    PUT(io, start);
    PUT(io, dyn);
    if (p->dynamics == ISING_WOLFF) {
        const int64_t clusters = p->clusters > 0 ? p->clusters : 1;
        PUT(io, clusters);
    }
}

/* Reads the params back and compares them with p, bit for bit. */
static hl_status params_check(ck_io *io, const ising_params *p)
{
    int32_t rank, ntemps, start, dyn;
    int64_t extent[ISING_MAX_RANK], therm, sweeps;
    uint64_t seed;
    double h, beta;
    int same = 1;
    GET(io, rank);
    if (io->bad || rank != p->rank)
        return io->bad ? HL_ERR_FORMAT : HL_ERR_MISMATCH;
    get(io, extent, (size_t)rank * sizeof extent[0]);
    same &= !memcmp(extent, p->extent, (size_t)rank * sizeof extent[0]);
    GET(io, seed);
    GET(io, h);
    GET(io, ntemps);
    same &= seed == p->seed && !memcmp(&h, &p->h, sizeof h) && ntemps == p->ntemps;
    if (io->bad || !same)
        return io->bad ? HL_ERR_FORMAT : HL_ERR_MISMATCH;
    for (int i = 0; i < ntemps; i++) {
        GET(io, beta);
        same &= !memcmp(&beta, &p->beta[i], sizeof beta);
    }
    GET(io, therm);
    GET(io, sweeps);
    GET(io, start);
    GET(io, dyn);
    same &=
        therm == p->therm && sweeps == p->sweeps && start == (int32_t)p->start &&
        dyn == (int32_t)p->dynamics + 256 * (p->multispin != 0);
    if (same && p->dynamics == ISING_WOLFF) {
        int64_t clusters;
        GET(io, clusters);
        same &= clusters == (p->clusters > 0 ? p->clusters : 1);
    }
    if (io->bad)
        return HL_ERR_FORMAT;
    return same ? HL_OK : HL_ERR_MISMATCH;
}

/* Writes a checkpoint: version 1 with the N spins, or (spins NULL) version 2
 * with gen and sum. */
static hl_status save(const char *path, const ising_params *p, const ising_state *s,
                      const int8_t *spins, int64_t N, int32_t gen, uint64_t sum)
{
    hl_atomic_file *af = NULL;
    hl_status st = hl_atomic_file_open(&af, path);
    if (st != HL_OK)
        return st;
    ck_io io = {hl_atomic_file_stream(af), 0xcbf29ce484222325ull, 0};
    const uint32_t version = spins ? CK_VERSION : CK_VERSION_DIST, marker = CK_MARKER;
    put(&io, ck_magic, sizeof ck_magic);
    PUT(&io, version);
    PUT(&io, marker);
    params_put(&io, p);
    int32_t temp = s->temp;
    PUT(&io, temp);
    PUT(&io, s->done);
    PUT(&io, s->sweep);
    PUT(&io, s->measured);
    put(&io, s->magnetisation, (size_t)s->measured * sizeof *s->magnetisation);
    put(&io, s->bonds, (size_t)s->measured * sizeof *s->bonds);
    for (int i = 0; i < s->temp; i++) {
        double d[RESULT_DOUBLES];
        result_pack(&s->results[i], d);
        put(&io, d, sizeof d);
    }
    if (spins) {
        put(&io, spins, (size_t)N);
    } else {
        PUT(&io, gen);
        PUT(&io, sum);
    }
    const uint64_t hash = io.hash;
    PUT(&io, hash);
    if (io.bad) {
        hl_atomic_file_abort(af);
        return HL_ERR_IO;
    }
    return hl_atomic_file_commit(af);
}

hl_status ising_checkpoint_save(const char *path, const ising_params *p, const ising_state *s,
                                const ising *lattice)
{
    if (!path || !p || !s || !lattice)
        return HL_ERR_NULL;
    const int64_t N = ising_count(lattice);
    int8_t *spins = malloc((size_t)N);
    if (!spins)
        return HL_ERR_NOMEM;
    hl_status st = ising_get_spins(lattice, spins);
    if (st == HL_OK)
        st = save(path, p, s, spins, N, 0, 0);
    free(spins);
    return st;
}

hl_status ising_checkpoint_save_dist(const char *path, const ising_params *p, const ising_state *s,
                                     int gen, uint64_t checksum)
{
    if (!path || !p || !s)
        return HL_ERR_NULL;
    if (gen != 0 && gen != 1)
        return HL_ERR_ARG;
    return save(path, p, s, NULL, 0, gen, checksum);
}

/* Reads and checks the magic, version, marker and parameters: HL_ERR_UNSUPPORTED
 * for a checkpoint of the other kind (version 1 where 2 is wanted or back). */
static hl_status head_check(ck_io *io, const ising_params *p, uint32_t want)
{
    char magic[8];
    uint32_t version, marker;
    get(io, magic, sizeof magic);
    GET(io, version);
    GET(io, marker);
    if (io->bad || memcmp(magic, ck_magic, sizeof magic) || marker != CK_MARKER ||
        (version != CK_VERSION && version != CK_VERSION_DIST))
        return HL_ERR_FORMAT;
    if (version != want)
        return HL_ERR_UNSUPPORTED;
    return params_check(io, p);
}

/* Reads the state's counters and checks them against p (HL_ERR_FORMAT when
 * they cannot belong to it). */
static hl_status state_head(ck_io *io, const ising_params *p, int32_t *temp, int64_t *done,
                            int64_t *sweep, int64_t *measured)
{
    GET(io, *temp);
    GET(io, *done);
    GET(io, *sweep);
    GET(io, *measured);
    if (io->bad || *temp < 0 || *temp > p->ntemps || *done < 0 || *done > p->therm + p->sweeps ||
        *sweep < 0 || *measured < 0 || *measured > p->sweeps ||
        *measured != (*done > p->therm ? *done - p->therm : 0))
        return HL_ERR_FORMAT;
    return HL_OK;
}

/* Reads n bytes into the hash, keeping none of them. */
static void skip(ck_io *io, int64_t n)
{
    unsigned char chunk[1 << 16];
    while (n > 0 && !io->bad) {
        const size_t len = n < (int64_t)sizeof chunk ? (size_t)n : sizeof chunk;
        get(io, chunk, len);
        n -= (int64_t)len;
    }
}

/* The stored hash against the one computed, and nothing after it. */
static hl_status tail_check(ck_io *io)
{
    const uint64_t hash = io->hash;
    uint64_t stored;
    get(io, &stored, sizeof stored);
    return io->bad || stored != hash || fgetc(io->f) != EOF ? HL_ERR_FORMAT : HL_OK;
}

/* The whole file: the header and parameters, then the state read through
 * and the hash compared, so that a damaged checkpoint is found before a run
 * starts from it. */
static hl_status check(const char *path, const ising_params *p, uint32_t want)
{
    if (!path || !p)
        return HL_ERR_NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return HL_ERR_IO;
    ck_io io = {f, 0xcbf29ce484222325ull, 0};
    hl_status st = head_check(&io, p, want);
    int32_t temp = 0;
    int64_t done = 0, sweep = 0, measured = 0;
    if (st == HL_OK)
        st = state_head(&io, p, &temp, &done, &sweep, &measured);
    if (st == HL_OK) {
        int64_t spins = 1;
        for (int i = 0; i < p->rank; i++)
            spins *= p->extent[i];
        skip(&io, measured * 2 * (int64_t)sizeof(int64_t) +
                      temp * RESULT_DOUBLES * (int64_t)sizeof(double) +
                      (want == CK_VERSION ? spins : (int64_t)(sizeof(int32_t) + sizeof(uint64_t))));
        st = tail_check(&io);
    }
    int e = errno;
    fclose(f);
    errno = e;
    return st;
}

hl_status ising_checkpoint_check(const char *path, const ising_params *p)
{
    return check(path, p, CK_VERSION);
}

hl_status ising_checkpoint_check_dist(const char *path, const ising_params *p)
{
    return check(path, p, CK_VERSION_DIST);
}

/* Reads a checkpoint: version 1 into lattice, or (lattice NULL) version 2,
 * its generation and checksum into *gen and *sum. */
static hl_status load(const char *path, const ising_params *p, ising_state *s, ising *lattice,
                      int *gen_out, uint64_t *sum_out)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return HL_ERR_IO;
    ck_io io = {f, 0xcbf29ce484222325ull, 0};
    hl_status st = head_check(&io, p, lattice ? CK_VERSION : CK_VERSION_DIST);
    int32_t temp = 0;
    int64_t done = 0, sweep = 0, measured = 0;
    if (st == HL_OK)
        st = state_head(&io, p, &temp, &done, &sweep, &measured);
    const int64_t N = lattice ? ising_count(lattice) : 0;
    int8_t *spins = st == HL_OK && lattice ? malloc((size_t)N) : NULL;
    if (st == HL_OK && lattice && !spins)
        st = HL_ERR_NOMEM;
    int32_t gen = 0;
    uint64_t sum = 0;
    if (st == HL_OK) {
        get(&io, s->magnetisation, (size_t)measured * sizeof *s->magnetisation);
        get(&io, s->bonds, (size_t)measured * sizeof *s->bonds);
        for (int i = 0; i < temp; i++) {
            double d[RESULT_DOUBLES];
            get(&io, d, sizeof d);
            result_unpack(d, &s->results[i]);
        }
        if (lattice) {
            get(&io, spins, (size_t)N);
        } else {
            GET(&io, gen);
            GET(&io, sum);
        }
        st = tail_check(&io);
        if (st == HL_OK && gen != 0 && gen != 1)
            st = HL_ERR_FORMAT;
    }
    if (st == HL_OK && lattice)
        st = ising_set_spins(lattice, spins) == HL_OK ? HL_OK : HL_ERR_FORMAT;
    if (st == HL_OK) {
        if (lattice)
            ising_set_sweep_index(lattice, sweep);
        else {
            *gen_out = gen;
            *sum_out = sum;
        }
        s->temp = temp;
        s->done = done;
        s->sweep = sweep;
        s->measured = measured;
    }
    free(spins);
    fclose(f);
    return st;
}

hl_status ising_checkpoint_load(const char *path, const ising_params *p, ising_state *s,
                                ising *lattice)
{
    if (!path || !p || !s || !lattice)
        return HL_ERR_NULL;
    return load(path, p, s, lattice, NULL, NULL);
}

hl_status ising_checkpoint_load_dist(const char *path, const ising_params *p, ising_state *s,
                                     int *gen, uint64_t *checksum)
{
    if (!path || !p || !s || !gen || !checksum)
        return HL_ERR_NULL;
    return load(path, p, s, NULL, gen, checksum);
}
