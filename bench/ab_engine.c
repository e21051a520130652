/* bench_ab_engine — two builds of libhyperlayout timed in one process.
 *
 * Whether a change made the engine slower is hard to see from two runs of
 * bench_transforms: on a shared machine the bandwidth drifts between runs,
 * and where the heap puts the buffers changes from one process to the
 * next.  This program loads both shared libraries (dlopen, each with its own
 * symbols), plans the same op with each, and runs the two plans alternately
 * on the same buffers, out of place and (the ops that run in place by
 * dimensions) in place; the table gives the best GB/s of each and NEW/OLD.
 * The ops and shapes are bench_transforms'. */
#define _GNU_SOURCE /* RTLD_DEEPBIND */

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "hyperlayout.h"

static const char usage[] =
    "usage: bench_ab_engine OLD/libhyperlayout.so NEW/libhyperlayout.so [--reps N]\n"
    "                       [--op NAME] [--shape SHAPE] [--csv FILE] [--isa LEVEL]\n"
    "\n"
    "Runs the plans of both libraries alternately on the same buffers (2^24\n"
    "elements, float32 and float64) and prints the best GB/s of each, bytes\n"
    "read + written, and NEW/OLD, out of place and in place.  --op / --shape:\n"
    "only the ops whose name starts with NAME / that shape (e.g. [4096,4096]).\n"
    "--isa generic|sse2|avx2|avx512|neon: both libraries' kernels at that level\n"
    "(default: the environment's HL_ISA where the library reads it, else the best).\n";

/* The entry points used, looked up in one library. */
typedef struct {
    void *handle;
    hl_status (*shape_parse)(hl_shape *, const char *);
    hl_status (*flip)(hl_plan **, const hl_shape *, uint64_t, const hl_plan_options *);
    hl_status (*shift)(hl_plan **, const hl_shape *, const int64_t *, const hl_plan_options *);
    hl_status (*crinkle)(hl_plan **, const hl_shape *, int, int64_t, const hl_plan_options *);
    hl_status (*permute)(hl_plan **, const hl_shape *, const int *, const hl_plan_options *);
    hl_status (*tile)(hl_plan **, const hl_shape *, const int64_t *, const hl_plan_options *);
    hl_status (*morton)(hl_plan **, const hl_shape *, const hl_plan_options *);
    hl_status (*compose)(hl_plan **, const hl_plan *const *, int, const hl_plan_options *);
    hl_status (*execute)(const hl_plan *, const void *, void *);
    void (*destroy)(hl_plan *);
    int64_t (*in_span)(const hl_plan *);
    int64_t (*out_span)(const hl_plan *);
    hl_status (*isa_force)(const char *);
    const char *(*isa_name)(void);
} lib;

#define LOOKUP(l, field, name)                                                                     \
    (*(void **)(&(l)->field) = dlsym((l)->handle, name)) != NULL

static int load(lib *l, const char *path)
{
    /* DEEPBIND: each library's calls to itself stay inside it */
    l->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!l->handle) {
        fprintf(stderr, "bench_ab_engine: %s\n", dlerror());
        return 0;
    }
    if (LOOKUP(l, shape_parse, "hl_shape_parse") && LOOKUP(l, flip, "hl_plan_flip") &&
        LOOKUP(l, shift, "hl_plan_shift") && LOOKUP(l, crinkle, "hl_plan_crinkle") &&
        LOOKUP(l, permute, "hl_plan_permute") && LOOKUP(l, tile, "hl_plan_tile") &&
        LOOKUP(l, morton, "hl_plan_morton") && LOOKUP(l, compose, "hl_plan_compose") &&
        LOOKUP(l, execute, "hl_execute") && LOOKUP(l, destroy, "hl_plan_destroy") &&
        LOOKUP(l, in_span, "hl_plan_in_span") && LOOKUP(l, out_span, "hl_plan_out_span") &&
        LOOKUP(l, isa_force, "hl_isa_force") && LOOKUP(l, isa_name, "hl_isa_name"))
        return 1;
    fprintf(stderr, "bench_ab_engine: %s lacks a function: %s\n", path, dlerror());
    return 0;
}

enum { FLIP0, FLIP_ALL, FLIP1, SHIFT, CRINKLE0, CRINKLE_ALL, PERMUTE, SWAP01, PAIRS, ROT_UP, ROT_DOWN, TILE, MORTON, CHAIN, NOPS };

static const struct {
    const char *name;
    int in_place;
} ops[NOPS] = {
    {"flip:0", 1},      {"flip:all", 1}, {"flip:1", 1}, {"shift:1,-1,..", 1}, {"crinkle:0:2", 1},
    {"crinkle:all:2", 1}, {"permute:reverse", 0}, {"permute:1,0,..", 0},
    {"permute:pairs", 0},   {"permute:rot+1", 0},    {"permute:rot-1", 0},
    {"tile:8,..", 0},       {"morton", 0},
    {"chain:flip,shift,crinkle", 1},
};

static hl_status make(const lib *l, int op, const hl_shape *s, hl_plan **p)
{
    const int d = s->rank;
    int64_t v[HL_MAX_RANK];
    int perm[HL_MAX_RANK];
    switch (op) {
    case FLIP0: return l->flip(p, s, 1, NULL);
    case FLIP_ALL: return l->flip(p, s, ((uint64_t)1 << d) - 1, NULL);
    case FLIP1: return l->flip(p, s, d > 1 ? 2 : 1, NULL);
    case SHIFT:
        for (int i = 0; i < d; i++)
            v[i] = i % 2 ? -1 : 1;
        return l->shift(p, s, v, NULL);
    case CRINKLE0: return l->crinkle(p, s, 0, 2, NULL);
    case CRINKLE_ALL: return l->crinkle(p, s, -1, 2, NULL);
    case PERMUTE:
        for (int i = 0; i < d; i++)
            perm[i] = d - 1 - i;
        return l->permute(p, s, perm, NULL);
    case SWAP01: /* the two fastest dimensions swapped */
    case PAIRS:  /* ... and every further pair too (1,0,3,2,5,4 in NumPy's order, rank 6) */
        for (int i = 0; i < d; i++)
            perm[i] = i;
        for (int i = 0; i + 1 < d && (i == 0 || op == PAIRS); i += 2) {
            perm[d - 1 - i] = d - 2 - i;
            perm[d - 2 - i] = d - 1 - i;
        }
        return l->permute(p, s, perm, NULL);
    case ROT_UP:   /* 1,2,0 in NumPy's order, rank 3 */
    case ROT_DOWN: /* 2,0,1 */
        for (int i = 0; i < d; i++)
            perm[i] = (i + (op == ROT_UP ? 1 : d - 1)) % d;
        return l->permute(p, s, perm, NULL);
    case TILE:
        for (int i = 0; i < d; i++) /* the largest divisor up to 8 */
            for (v[i] = 8; s->extent[i] % v[i]; v[i]--)
                ;
        return l->tile(p, s, v, NULL);
    case MORTON: return l->morton(p, s, NULL);
    default: {
        hl_plan *steps[3] = {NULL, NULL, NULL};
        hl_status st = make(l, FLIP0, s, &steps[0]);
        if (st == HL_OK)
            st = make(l, SHIFT, s, &steps[1]);
        if (st == HL_OK)
            st = make(l, CRINKLE0, s, &steps[2]);
        if (st == HL_OK)
            st = l->compose(p, (const hl_plan *const *)steps, 3, NULL);
        for (int j = 0; j < 3; j++)
            l->destroy(steps[j]);
        return st;
    }
    }
}

/* Best seconds of each library's plan, out of place [k][0] and in place
 * [k][1]; the libraries alternate which goes first. */
static void time_pair(const lib *l, hl_plan *const *p, char *a, char *b, int in_place, int reps,
                      double best[2][2])
{
    for (int k = 0; k < 2; k++)
        best[k][0] = best[k][1] = 1e30;
    for (int r = 0; r < reps; r++)
        for (int j = 0; j < 2; j++) {
            const int k = r % 2 ? 1 - j : j;
            double t = bench_now();
            l[k].execute(p[k], a, b);
            t = bench_now() - t;
            best[k][0] = t < best[k][0] ? t : best[k][0];
            if (!in_place)
                continue;
            t = bench_now();
            l[k].execute(p[k], b, b);
            t = bench_now() - t;
            best[k][1] = t < best[k][1] ? t : best[k][1];
        }
}

/* Both libraries loaded, at one level (--isa forced on both, else
 * whatever each chose, which must agree).  0, or 2 after a line on stderr. */
static int load_both(lib *l, const char *const *paths, const char *isa)
{
    if (!load(&l[0], paths[0]) || !load(&l[1], paths[1]))
        return 2;
    for (int k = 0; k < 2 && isa; k++) {
        const hl_status st = l[k].isa_force(isa);
        if (st != HL_OK) {
            fprintf(stderr, "bench_ab_engine: --isa %s: %s refuses it (%s)\n", isa, paths[k],
                    st == HL_ERR_ARG ? "not a level" : "the CPU or build lacks it");
            return 2;
        }
    }
    if (strcmp(l[0].isa_name(), l[1].isa_name())) {
        fprintf(stderr, "bench_ab_engine: the libraries run at different levels (%s, %s): give --isa\n",
                l[0].isa_name(), l[1].isa_name());
        return 2;
    }
    return 0;
}

/* One op on shape s with both libraries: a row of the table and the CSV.
 * 0, 1 when a library cannot plan it, 2 when out of memory. */
static int time_op(const lib *l, int op, const hl_shape *s, const char *shape, const char *type,
                   const char *text, int reps, bench_csv *csv)
{
    hl_plan *p[2] = {NULL, NULL};
    if (make(&l[0], op, s, &p[0]) != HL_OK || make(&l[1], op, s, &p[1]) != HL_OK) {
        fprintf(stderr, "bench_ab_engine: cannot plan %s on %s\n", ops[op].name, text);
        return 1;
    }
    const int64_t in = l[0].in_span(p[0]) * s->elem_size;
    const int64_t out = l[0].out_span(p[0]) * s->elem_size;
    const size_t cap = (size_t)((in > out ? in : out) + 63) / 64 * 64;
    char *a = aligned_alloc(64, cap), *b = aligned_alloc(64, cap);
    if (!a || !b)
        return 2;
    memset(a, 1, cap);
    memset(b, 2, cap);
    double best[2][2], gb[2][2];
    time_pair(l, p, a, b, ops[op].in_place, reps, best);
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < 2; j++)
            gb[k][j] = (double)(in + out) / best[k][j] / 1e9;
    printf("%-22s %-8s %-26s %8.2f %8.2f %7.2f", shape, type, ops[op].name, gb[0][0], gb[1][0],
           gb[1][0] / gb[0][0]);
    if (ops[op].in_place)
        printf(" %8.2f %8.2f %7.2f\n", gb[0][1], gb[1][1], gb[1][1] / gb[0][1]);
    else
        printf(" %8s %8s %7s\n", "-", "-", "-");
    fflush(stdout);
    bench_csv_row(csv, "\"%s\",%s,\"%s\",%.3f,%.3f,%.4f", shape, type, ops[op].name, gb[0][0],
                  gb[1][0], gb[1][0] / gb[0][0]);
    if (ops[op].in_place)
        bench_csv_row(csv, ",%.3f,%.3f,%.4f\n", gb[0][1], gb[1][1], gb[1][1] / gb[0][1]);
    else
        bench_csv_row(csv, ",,,\n");
    free(a);
    free(b);
    l[0].destroy(p[0]);
    l[1].destroy(p[1]);
    return 0;
}

/* Every op (that --op leaves) on one shape and type.  0, 1 (an op failed)
 * or 2. */
static int time_shape(const lib *l, const char *shape, const char *type, const char *only_op,
                      int reps, bench_csv *csv)
{
    char text[64];
    hl_shape s;
    snprintf(text, sizeof text, "%.*s,%s]", (int)strlen(shape) - 1, shape, type);
    if (l[1].shape_parse(&s, text) != HL_OK)
        return 2;
    bool pow2 = true;
    for (int i = 0; i < s.rank; i++)
        pow2 = pow2 && (s.extent[i] & (s.extent[i] - 1)) == 0;
    int failed = 0;
    for (int op = 0; op < NOPS; op++) {
        if ((op == MORTON && !pow2) || (only_op && strncmp(ops[op].name, only_op, strlen(only_op))))
            continue;
        const int rc = time_op(l, op, &s, shape, type, text, reps, csv);
        if (rc == 2)
            return 2;
        failed |= rc;
    }
    return failed;
}

int main(int argc, char **argv)
{
    const char *paths[2] = {NULL, NULL}, *only_op = NULL, *only_shape = NULL, *csv_path = NULL,
               *isa = NULL;
    int reps = 9;
    const bench_opt opts[] = {BENCH_OPT_REPS(&reps), {"--op", BENCH_STR, &only_op, NULL},
                              {"--shape", BENCH_STR, &only_shape, NULL}, BENCH_OPT_CSV(&csv_path),
                              {"--isa", BENCH_STR, &isa, NULL}, BENCH_OPT_END};
    bench_cli cli = {"bench_ab_engine", usage, opts, paths, 2, 0, 0};
    const int prc = bench_parse(&cli, argc, argv);
    if (prc != BENCH_GO)
        return prc;
    if (cli.nargs != 2 || reps < 1) {
        fputs(usage, stderr);
        return 2;
    }
    lib l[2];
    if (load_both(l, paths, isa))
        return 2;
    bench_csv *csv;
    if (bench_csv_open(&csv, "bench_ab_engine", csv_path,
                       "shape,dtype,op,old_gbps,new_gbps,new_over_old,old_in_place_gbps,"
                       "new_in_place_gbps,in_place_new_over_old"))
        return 2;
    static const char *const shapes[] = {"[4096,4096]", "[4095,4097]", "[256,256,256]",
                                         "[255,257,256]", "[64,64,64,64]", "[16777216]",
                                         "[16,16,16,16,16,16]"};
    static const char *const types[] = {"float32", "float64"};
    printf("bench_ab_engine: best of %d, level %s; GB/s = (bytes read + written) / s\n\n", reps,
           l[1].isa_name());
    printf("%-22s %-8s %-26s %8s %8s %7s %8s %8s %7s\n", "shape", "dtype", "op", "old", "new",
           "new/old", "old inpl", "new inpl", "new/old");
    int failed = 0;
    for (size_t si = 0; si < sizeof shapes / sizeof *shapes && failed < 2; si++)
        for (int ti = 0; ti < 2 && failed < 2 && (!only_shape || !strcmp(only_shape, shapes[si])); ti++)
            failed |= time_shape(l, shapes[si], types[ti], only_op, reps, csv);
    if (bench_csv_close(csv, failed < 2) || failed >= 2)
        return 2;
    return failed;
}
