/* Distributed transforms (hl_redist_plan_transform, hl_darray_transform_plan)
 * and process relabelling, against the single-process plan.
 *
 * - random chains of 1-3 ops (flip, shift, crinkle, uncrinkle, permute,
 *   tile, morton and inverses) on arrays of rank 1-5, between random
 *   distributions (owner grids of BLOCK / CYCLIC(b) / NONE, UPC tiles): every
 *   owner's memory under `to` holds exactly the single-process plan's output
 *   cells (the plan run on the whole array, which every process builds),
 *   padding untouched; the bytes sent are the cells whose owner changes;
 * - the same between darrays with halos (halos untouched);
 * - transforms that keep every element on its process send 0 bytes;
 * - relabelling: a flip of a block-distributed dimension sends nothing once
 *   relabelled; on random cases the bytes sent are the lower bound (found
 *   by trying every assignment) and the values are exact under the owner
 *   each process holds;
 * - wrong arguments give the same status everywhere.
 * Run with 1-4 processes; prints "N passed, M failed". */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "hyperlayout/darray.h"
#include "hyperlayout/ops.h"
#include "mpi_check.h"

static int me, procs;

/* A random op valid on extents ext (rank), appended to text; ext becomes
 * the op's output extents. */
static void random_op(char *text, int rank, int64_t *ext)
{
    char op[256] = "";
    char *p = op;
    const int64_t kind = below(8);
    bool pow2 = true;
    for (int i = 0; i < rank; i++)
        pow2 = pow2 && (ext[i] & (ext[i] - 1)) == 0;
    if (kind == 0) {
        const int64_t d = below(rank), e = below(rank);
        if (e != d && below(2))
            sprintf(p, "flip:%" PRId64 ",%" PRId64, d, e);
        else
            sprintf(p, "flip:%" PRId64, d);
    } else if (kind == 1) {
        p += sprintf(p, "shift:");
        for (int i = 0; i < rank; i++)
            p += sprintf(p, "%s%" PRId64, i ? "," : "", below(2 * ext[i] + 1) - ext[i]);
    } else if (kind == 2 || kind == 3) {
        const int d = (int)below(rank);
        sprintf(p, "%s:%d:%" PRId64, kind == 2 ? "crinkle" : "uncrinkle", d, 1 + below(ext[d]));
    } else if (kind == 4 || kind == 5) {
        int perm[HL_MAX_RANK];
        for (int i = 0; i < rank; i++)
            perm[i] = i;
        for (int i = rank - 1; i > 0; i--) {
            const int j = (int)below(i + 1), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        int64_t out[HL_MAX_RANK];
        p += sprintf(p, "permute:");
        for (int i = 0; i < rank; i++) {
            p += sprintf(p, "%s%d", i ? "," : "", perm[i]);
            out[i] = ext[perm[i]];
        }
        memcpy(ext, out, sizeof *out * (size_t)rank);
    } else if (kind == 6 || !pow2) {
        const bool un = below(2);
        p += sprintf(p, "%s:", un ? "untile" : "tile");
        for (int i = 0; i < rank; i++) {
            int64_t t = 1 + below(ext[i]);
            while (ext[i] % t)
                t--;
            p += sprintf(p, "%s%" PRId64, i ? "," : "", t);
        }
    } else {
        sprintf(p, "%s", below(2) ? "morton" : "unmorton");
    }
    strcat(text, text[0] ? " " : "");
    strcat(text, op);
}

/* Element j of the global input: es bytes made from its k index. */
static void value(int64_t k, int64_t es, unsigned char *e)
{
    if (es == 8) {
        memcpy(e, &k, 8);
        return;
    }
    for (int64_t b = 0; b < es; b++)
        e[b] = (unsigned char)(k * 131 + b * 7 + (k >> 8) + 1);
}

/* The memory of owner `owner` under d of the array whose cell k holds
 * value(k), padding 0xA5. */
static unsigned char *memory_of(const hl_dist *d, int64_t owner, int64_t es, int64_t *slots)
{
    *slots = hl_dist_local_count(d, owner);
    unsigned char *m = malloc((size_t)((*slots + 1) * es));
    memset(m, 0xA5, (size_t)((*slots + 1) * es));
    for (int64_t j = 0; j < *slots; j++) {
        const int64_t k = hl_dist_k_of(d, owner, j);
        if (k != HL_DIST_PADDING)
            value(k, es, m + j * es);
    }
    return m;
}

/* The whole output of plan p (NULL: identity) on the array of value(k), as
 * a single process computes it; *src (if not NULL) gets, per output k, the
 * input k it holds. */
static unsigned char *expected(const hl_plan *p, int64_t n, int64_t es, int64_t **src)
{
    unsigned char *g = malloc((size_t)(n * es)), *e = malloc((size_t)(n * es));
    for (int64_t k = 0; k < n; k++)
        value(k, es, g + k * es);
    if (p) {
        /* the same map for elements of es bytes: int64 k values moved by p
         * give the source of every output cell */
        int64_t *kin = malloc(sizeof *kin * (size_t)n), *kout = malloc(sizeof *kout * (size_t)n);
        for (int64_t k = 0; k < n; k++)
            kin[k] = k;
        if (hl_plan_elem_size(p) == 8) {
            EXPECT(hl_execute(p, kin, kout) == HL_OK, "single-process plan");
        } else {
            EXPECT(0, "test plans are made for 8-byte elements");
        }
        for (int64_t k = 0; k < n; k++)
            memcpy(e + k * es, g + kout[k] * es, (size_t)es);
        if (src)
            *src = kout;
        else
            free(kout);
        free(kin);
    } else {
        memcpy(e, g, (size_t)(n * es));
        if (src) {
            *src = malloc(sizeof **src * (size_t)n);
            for (int64_t k = 0; k < n; k++)
                (*src)[k] = k;
        }
    }
    free(g);
    return e;
}

/* Whether owner `owner`'s memory under `to` (out, slots) holds the output
 * cells of want (padding still 0xA5). */
static bool holds_output(const hl_dist *to, int64_t owner, const unsigned char *out, int64_t slots,
                         const unsigned char *want, int64_t es)
{
    unsigned char pad[64];
    memset(pad, 0xA5, sizeof pad);
    for (int64_t j = 0; j < slots; j++) {
        const int64_t k = hl_dist_k_of(to, owner, j);
        if (k == HL_DIST_PADDING ? memcmp(out + j * es, pad, (size_t)es)
                                 : memcmp(out + j * es, want + k * es, (size_t)es))
            return false;
    }
    return true;
}

static int64_t sum_all(int64_t v)
{
    int64_t s = 0;
    MPI_Allreduce(&v, &s, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    return s;
}

/* The fewest bytes any assignment of `to`'s owners to processes sends: all
 * cells less the most that stay, over every permutation (procs <= 4). */
static int64_t lower_bound(const hl_dist *from, const hl_dist *to, const int64_t *src, int64_t n,
                           int64_t es)
{
    int64_t v[4][4] = {{0}}, x[HL_MAX_RANK], y[HL_MAX_RANK];
    for (int64_t k = 0; k < n; k++) {
        hl_kindex_fromk(&to->ki, k, y);
        hl_kindex_fromk(&from->ki, src[k], x);
        v[hl_dist_owner_of(from, x)][hl_dist_owner_of(to, y)]++;
    }
    int64_t best = 0;
    for (int code = 0; code < 256; code++) { /* every perm as 4 base-4 digits */
        int perm[4], used = 0;
        bool ok = true;
        for (int r = 0; r < procs; r++) {
            perm[r] = code >> (2 * r) & 3;
            ok = ok && perm[r] < procs && !(used >> perm[r] & 1);
            used |= 1 << perm[r];
        }
        if (!ok || code >> (2 * procs))
            continue;
        int64_t stay = 0;
        for (int r = 0; r < procs; r++)
            stay += v[r][perm[r]];
        best = stay > best ? stay : best;
    }
    return (n - best) * es;
}

/* One case: from -> plan -> to, with or without relabelling; checks the
 * values and the bytes.  Returns the bytes this process sent. */
static int64_t run_case(int c, const char *ops, const hl_plan *p, const hl_dist *from,
                        const hl_dist *to, int64_t es, bool relabel, int64_t *sent_total)
{
    hl_redist *r = NULL;
    /* every other case is planned cell by cell and copies run by run, the
     * others are planned from boxes, packing (c = 0 mod 4) or through MPI
     * datatypes (c = 2 mod 4) */
    const hl_redist_options opt = {.relabel = relabel,
                                   .reference = c % 2 == 1,
                                   .method = c % 4 == 2 ? HL_HALO_DATATYPES : HL_HALO_PACK};
    hl_status st = hl_redist_plan_transform(&r, MPI_COMM_WORLD, from, p, to, es, &opt);
    EXPECT(st == HL_OK, "case %d '%s': %s", c, ops, hl_strerror(st));
    if (st != HL_OK)
        return 0;
    /* planned from boxes wherever asked: the random chains all have them */
    int64_t boxes = hl_redist_boxes(r), most = 0;
    MPI_Allreduce(&boxes, &most, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    EXPECT((most > 0) == !opt.reference, "case %d '%s': %" PRId64 " boxes planned", c, ops, most);
    const int64_t owner = hl_redist_owner(r);
    EXPECT(owner >= 0 && owner < procs && (relabel || owner == me), "case %d: owner %" PRId64, c,
           owner);
    int64_t na, nb;
    unsigned char *in = memory_of(from, me, es, &na);
    const int64_t slots = hl_dist_local_count(to, owner);
    unsigned char *out = malloc((size_t)((slots + 1) * es));
    memset(out, 0xA5, (size_t)((slots + 1) * es));
    nb = slots;
    int64_t *src;
    unsigned char *want = expected(p, from->count, es, &src);
    EXPECT(hl_redist_begin(r, in, out) == HL_OK && hl_redist_end(r) == HL_OK, "run");
    EXPECT(holds_output(to, owner, out, nb, want, es), "case %d '%s'%s: wrong cells on %d", c, ops,
           relabel ? " relabelled" : "", me);
    /* run twice: the plan is reusable */
    memset(out, 0xA5, (size_t)((slots + 1) * es));
    EXPECT(hl_redist_begin(r, in, out) == HL_OK && hl_redist_end(r) == HL_OK, "run again");
    EXPECT(holds_output(to, owner, out, nb, want, es), "case %d: second run differs", c);
    /* bytes: my cells whose holder under `to` is another process */
    int64_t kept = 0;
    const int64_t sent = hl_redist_bytes(r, &kept);
    int64_t leave = 0, stay = 0, x[HL_MAX_RANK], y[HL_MAX_RANK];
    int64_t *holder = malloc(sizeof *holder * (size_t)procs), o = owner;
    MPI_Allgather(&o, 1, MPI_INT64_T, holder, 1, MPI_INT64_T, MPI_COMM_WORLD);
    for (int64_t k = 0; k < to->count; k++) {
        hl_kindex_fromk(&from->ki, src[k], x);
        if (hl_dist_owner_of(from, x) != me)
            continue;
        hl_kindex_fromk(&to->ki, k, y);
        const int64_t q = hl_dist_owner_of(to, y);
        if (holder[me] == q)
            stay++;
        else
            leave++;
    }
    EXPECT(sent == leave * es && kept == stay * es,
           "case %d '%s': sent %" PRId64 " kept %" PRId64 ", expected %" PRId64 " / %" PRId64, c,
           ops, sent, kept, leave * es, stay * es);
    *sent_total = sum_all(sent);
    if (relabel) {
        const int64_t bound = lower_bound(from, to, src, to->count, es);
        EXPECT(*sent_total == bound, "case %d '%s': relabelled sends %" PRId64 ", lower bound %" PRId64,
               c, ops, *sent_total, bound);
    }
    free(holder);
    free(in);
    free(out);
    free(want);
    free(src);
    hl_redist_destroy(r);
    return sent;
}

/* Random chains between random distributions. */
static int64_t random_chains(void)
{
    int64_t moved = 0, done = 0;
    for (int c = 0; c < 160; c++) {
        const int rank = 1 + (int)below(5);
        int64_t ext[HL_MAX_RANK], cur[HL_MAX_RANK];
        const bool pow2 = below(3) == 0;
        for (int i = 0; i < rank; i++) {
            ext[i] = pow2 ? (int64_t)1 << below(rank <= 2 ? 5 : rank == 3 ? 3 : 2)
                          : 1 + below(rank <= 2 ? 23 : rank == 3 ? 7 : 4);
            cur[i] = ext[i];
        }
        char ops[1024] = "";
        const int nops = 1 + (int)below(3);
        for (int j = 0; j < nops; j++)
            random_op(ops, rank, cur);
        hl_shape s;
        hl_shape_init(&s, rank, ext, HL_DTYPE_BYTES, 8);
        hl_plan *p = NULL;
        char why[256];
        hl_status st = hl_plan_ops(&p, &s, ops, 0, NULL, why, sizeof why);
        EXPECT(st == HL_OK, "case %d: '%s': %s", c, ops, why);
        if (st != HL_OK)
            continue;
        const hl_shape *os = hl_plan_out_shape(p);
        char sa[128], sb[128];
        random_dist_spec(sa, rank);
        random_dist_spec(sb, rank);
        hl_dist a, b;
        if (hl_dist_parse(&a, sa, rank, ext, procs, NULL) != HL_OK ||
            hl_dist_parse(&b, sb, rank, os->extent, procs, NULL) != HL_OK) {
            hl_plan_destroy(p);
            continue; /* all none over several processes */
        }
        const int64_t es = below(3) == 0 ? 3 : 8;
        int64_t total, relabelled;
        moved += run_case(c, ops, p, &a, &b, es, false, &total);
        run_case(c, ops, p, &a, &b, es, true, &relabelled);
        EXPECT(relabelled <= total, "case %d: relabelling sends more (%" PRId64 " > %" PRId64 ")",
               c, relabelled, total);
        done++;
        hl_plan_destroy(p);
    }
    EXPECT(done > 100, "only %" PRId64 " random cases ran", done);
    return moved;
}

/* The same chains between darrays with halos: the box memories, halos
 * untouched. */
static void darray_chains(void)
{
    for (int c = 0; c < 60; c++) {
        const int rank = 1 + (int)below(4);
        int64_t ext[HL_MAX_RANK], cur[HL_MAX_RANK];
        for (int i = 0; i < rank; i++)
            cur[i] = ext[i] = 1 + below(rank <= 2 ? 13 : 5);
        char ops[1024] = "";
        const int nops = 1 + (int)below(2);
        for (int j = 0; j < nops; j++)
            random_op(ops, rank, cur);
        hl_shape s;
        hl_shape_init(&s, rank, ext, HL_DTYPE_BYTES, 8);
        hl_plan *p = NULL;
        char why[256];
        if (hl_plan_ops(&p, &s, ops, 0, NULL, why, sizeof why) != HL_OK) {
            EXPECT(0, "darray case %d: '%s': %s", c, ops, why);
            continue;
        }
        hl_shape os = *hl_plan_out_shape(p);
        char sa[128] = "", sb[128] = "";
        if (c % 3 == 2) { /* any distribution: several blocks per process */
            random_dist_spec(sa, rank);
            random_dist_spec(sb, rank);
        } else {
            for (int i = rank - 1; i >= 0; i--) {
                strcat(sa, below(2) ? "block" : "none");
                strcat(sb, below(2) ? "block" : "none");
                strcat(sa, i ? "," : "");
                strcat(sb, i ? "," : "");
            }
        }
        int64_t lo[HL_MAX_RANK], hi[HL_MAX_RANK];
        for (int i = 0; i < rank; i++) {
            lo[i] = below(2);
            hi[i] = below(3);
        }
        hl_darray_options oa = {.halo_lo = lo, .halo_hi = hi}, ob = {0};
        hl_darray *A = NULL, *B = NULL;
        if (hl_darray_create(&A, MPI_COMM_WORLD, &s, sa, &oa) != HL_OK ||
            hl_darray_create(&B, MPI_COMM_WORLD, &os, sb, c % 2 ? &oa : &ob) != HL_OK) {
            hl_darray_destroy(A);
            hl_darray_destroy(B);
            hl_plan_destroy(p);
            continue;
        }
        int64_t start[HL_MAX_RANK], owned[HL_MAX_RANK], local[HL_MAX_RANK];
        int64_t *want = (int64_t *)expected(p, hl_darray_dist(A)->count, 8, NULL);
        /* A: each owned cell its k index, halos -3 */
        const int64_t na = hl_darray_local(A, start, owned, local);
        int64_t *am = hl_darray_data(A), x[HL_MAX_RANK];
        for (int64_t j = 0; j < na; j++)
            am[j] = darray_cell(A, j, lo, x) ? hl_kindex_tok(&hl_darray_dist(A)->ki, x) : -3;
        const int64_t nb = hl_darray_local(B, start, owned, local);
        int64_t *bm = hl_darray_data(B);
        for (int64_t j = 0; j < nb; j++)
            bm[j] = -5;
        hl_redist *r = NULL;
        hl_status st = hl_darray_transform_plan(&r, A, p, B);
        EXPECT(st == HL_OK, "darray case %d '%s' %s -> %s: %s", c, ops, sa, sb, hl_strerror(st));
        if (st == HL_OK) {
            EXPECT(hl_redist_begin(r, am, bm) == HL_OK && hl_redist_end(r) == HL_OK, "run");
            const int64_t *blo = c % 2 ? lo : NULL;
            bool ok = true;
            int64_t seen = 0, all = 0;
            for (int64_t j = 0; j < nb; j++) {
                const bool inside = darray_cell(B, j, blo, x);
                seen += inside;
                ok = ok && (inside ? bm[j] == want[hl_kindex_tok(&hl_darray_dist(B)->ki, x)]
                                   : bm[j] == -5);
            }
            MPI_Allreduce(&seen, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
            EXPECT(all == hl_darray_dist(B)->count, "darray case %d: %" PRId64 " cells", c, all);
            EXPECT(ok, "darray case %d '%s' %s -> %s: wrong cells on %d", c, ops, sa, sb, me);
        }
        /* and a plain redistribution of A into B's distribution (no plan:
         * through MPI datatypes), halos and padding untouched */
        hl_darray *C = NULL;
        if (hl_darray_create(&C, MPI_COMM_WORLD, &s, sb, c % 2 ? &oa : &ob) == HL_OK) {
            const int64_t nc = hl_darray_local(C, start, owned, local);
            int64_t *cm = hl_darray_data(C);
            for (int64_t j = 0; j < nc; j++)
                cm[j] = -5;
            hl_redist *rc = NULL;
            st = hl_darray_transform_plan(&rc, A, NULL, C);
            EXPECT(st == HL_OK && hl_redist_begin(rc, am, cm) == HL_OK && hl_redist_end(rc) == HL_OK,
                   "darray case %d: plain redistribution: %s", c, hl_strerror(st));
            const int64_t *clo = c % 2 ? lo : NULL;
            bool ok = true;
            for (int64_t j = 0; j < nc; j++)
                ok = ok && (darray_cell(C, j, clo, x)
                                ? cm[j] == hl_kindex_tok(&hl_darray_dist(C)->ki, x)
                                : cm[j] == -5);
            EXPECT(ok, "darray case %d %s -> %s: plain redistribution wrong on %d", c, sa, sb, me);
            hl_redist_destroy(rc);
            hl_darray_destroy(C);
        }
        hl_redist_destroy(r);
        free(want);
        hl_darray_destroy(A);
        hl_darray_destroy(B);
        hl_plan_destroy(p);
    }
}

static hl_plan *ops_plan(int rank, const int64_t *ext, const char *ops)
{
    hl_shape s;
    hl_shape_init(&s, rank, ext, HL_DTYPE_BYTES, 8);
    hl_plan *p = NULL;
    char why[256];
    const hl_status st = hl_plan_ops(&p, &s, ops, 0, NULL, why, sizeof why);
    EXPECT(st == HL_OK, "'%s': %s", ops, why);
    return p;
}

/* Transforms that keep every element where it is send nothing; one that
 * moves a distributed dimension sends. */
static void local_transforms(void)
{
    const int64_t ext[3] = {5, 6, 4 * procs + 1}; /* [L2,L1,L0] = [4P+1,6,5] */
    const int64_t per[3] = {4 * procs + 1, 6, 5};
    static const struct {
        const char *ops, *from, *to;
        bool local;
    } cases[] = {
        {"flip:0", "block,none,none", "block,none,none", true},
        {"flip:0,1 shift:2,-1,0", "block,none,none", "block,none,none", true},
        {"crinkle:1:4 uncrinkle:0:2", "block,none,none", "block,none,none", true},
        {"permute:2,1,0", "block,none,none", "none,none,block", true},
        {"tile:1,2,1", "block,none,none", "block,none,none", true}, /* dims 0, 1 only */
        {"flip:2", "block,none,none", "block,none,none", false},
        {"shift:0,0,3", "block,none,none", "block,none,none", false},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        hl_plan *p = ops_plan(3, ext, cases[c].ops);
        if (!p)
            continue;
        hl_dist a, b;
        const hl_shape *os = hl_plan_out_shape(p);
        EXPECT(hl_dist_parse(&a, cases[c].from, 3, ext, procs, NULL) == HL_OK &&
                   hl_dist_parse(&b, cases[c].to, 3, os->extent, procs, NULL) == HL_OK,
               "specs");
        int64_t total;
        const int64_t sent = run_case((int)c, cases[c].ops, p, &a, &b, 8, false, &total);
        if (cases[c].local)
            EXPECT(sent == 0 && total == 0, "'%s' %s -> %s stays local but sends %" PRId64 " bytes",
                   cases[c].ops, cases[c].from, cases[c].to, total);
        else if (procs > 1)
            EXPECT(total > 0, "'%s' moves cells between processes but sends nothing",
                   cases[c].ops);
        hl_plan_destroy(p);
    }
    (void)per;
}

/* A flip of a block-distributed dimension: process r's block goes to owner
 * P-1-r; relabelled, nothing moves. */
static void relabel_flip(void)
{
    const int64_t ext[2] = {3, 6 * procs};
    hl_plan *p = ops_plan(2, ext, "flip:1");
    hl_dist a;
    EXPECT(hl_dist_parse(&a, "block,none", 2, ext, procs, NULL) == HL_OK, "spec");
    int64_t plain, relabelled;
    run_case(0, "flip:1", p, &a, &a, 8, false, &plain);
    const int64_t n = 3 * 6 * procs;
    EXPECT(plain == (procs % 2 ? n - n / procs : n) * 8 * (procs > 1),
           "flip of blocks sends %" PRId64 " bytes", plain);
    run_case(0, "flip:1", p, &a, &a, 8, true, &relabelled);
    EXPECT(relabelled == 0, "flip of blocks relabelled still sends %" PRId64 " bytes", relabelled);
    hl_redist *r;
    const hl_redist_options opt = {.relabel = true};
    EXPECT(hl_redist_plan_transform(&r, MPI_COMM_WORLD, &a, p, &a, 8, &opt) == HL_OK, "plan");
    EXPECT(hl_redist_owner(r) == procs - 1 - me, "process %d holds owner %" PRId64, me,
           hl_redist_owner(r));
    hl_redist_destroy(r);
    /* a 2-D grid with both dimensions flipped and reversed */
    const int64_t e2[2] = {4 * procs, 4 * procs};
    hl_plan *q = ops_plan(2, e2, "flip:0,1");
    hl_dist g;
    if (hl_dist_parse(&g, "block,block", 2, e2, procs, NULL) == HL_OK) {
        run_case(1, "flip:0,1", q, &g, &g, 8, true, &relabelled);
        EXPECT(relabelled == 0, "2-D flip relabelled sends %" PRId64, relabelled);
    }
    hl_plan_destroy(q);
    hl_plan_destroy(p);
}

static void errors(void)
{
    const int64_t ext[2] = {8, 6}, other[2] = {6, 8}, more[2] = {8, 7};
    hl_dist a, b, c;
    hl_dist_parse(&a, "block,none", 2, ext, procs, NULL);
    hl_dist_parse(&b, "block,none", 2, other, procs, NULL);
    hl_dist_parse(&c, "block,none", 2, more, procs, NULL);
    hl_plan *flip = ops_plan(2, ext, "flip:0");
    hl_plan *t = ops_plan(2, ext, "permute:1,0");
    hl_redist *r = NULL;
    /* from's cells are not the plan's input */
    hl_status st = hl_redist_plan_transform(&r, MPI_COMM_WORLD, &c, flip, &a, 8, NULL);
    EXPECT(st == HL_ERR_MISMATCH && !r, "from not the plan's input: %s", hl_strerror(st));
    /* to's extents differ from the output's ([8,6] -> [6,8] after the permute) */
    st = hl_redist_plan_transform(&r, MPI_COMM_WORLD, &a, t, &a, 8, NULL);
    EXPECT(st == HL_ERR_MISMATCH && !r, "to not the plan's output: %s", hl_strerror(st));
    st = hl_redist_plan_transform(&r, MPI_COMM_WORLD, &a, t, &b, 8, NULL);
    EXPECT(st == HL_OK, "permute: %s", hl_strerror(st));
    hl_redist_destroy(r);
    r = NULL;
    /* plans that differ between processes */
    st = hl_redist_plan_transform(&r, MPI_COMM_WORLD, &a, me == 0 ? flip : t, me == 0 ? &a : &b, 8,
                                  NULL);
    EXPECT(st == (procs > 1 ? HL_ERR_MISMATCH : HL_OK), "plans differing: %s", hl_strerror(st));
    hl_redist_destroy(r);
    r = NULL;
    /* a padded tiling is no bijection onto [0, N) */
    hl_shape s;
    hl_shape_init(&s, 2, ext, HL_DTYPE_BYTES, 8);
    hl_plan *padded = NULL;
    const int64_t tile[2] = {3, 4};
    EXPECT(hl_plan_tile(&padded, &s, tile, NULL) == HL_OK, "padded tile plan");
    st = hl_redist_plan_transform(&r, MPI_COMM_WORLD, &a, padded, &a, 8, NULL);
    EXPECT(st == HL_ERR_UNSUPPORTED && !r, "padded tiles: %s", hl_strerror(st));
    hl_plan_destroy(padded);
    hl_plan_destroy(flip);
    hl_plan_destroy(t);
}

/* The transpose permute:2,1,0 of an n^3 array of 4-byte cells, slabs in
 * and out (issue 33's case: 256^3 on 2 processes): planned from boxes it
 * puts every cell where the cell by cell planner (the reference) does,
 * sends the same bytes, and is planned in a handful of boxes. */
static int64_t cube(int64_t n)
{
    const int64_t ext[3] = {n, n, n}, es = 4;
    const int perm[3] = {2, 1, 0};
    hl_shape s;
    hl_shape_init(&s, 3, ext, HL_DTYPE_BYTES, es);
    hl_plan *p = NULL;
    hl_dist a, b;
    hl_redist *boxes = NULL, *cells = NULL;
    const hl_redist_options reference = {.reference = true};
    EXPECT(hl_plan_permute(&p, &s, perm, NULL) == HL_OK, "cube plan");
    EXPECT(hl_dist_parse(&a, "block,none,none", 3, ext, procs, NULL) == HL_OK &&
               hl_dist_parse(&b, "block,none,none", 3, ext, procs, NULL) == HL_OK,
           "cube distributions");
    double t = MPI_Wtime();
    hl_status st = hl_redist_plan_transform(&boxes, MPI_COMM_WORLD, &a, p, &b, es, NULL);
    const double t_boxes = MPI_Wtime() - t;
    t = MPI_Wtime();
    if (st == HL_OK)
        st = hl_redist_plan_transform(&cells, MPI_COMM_WORLD, &a, p, &b, es, &reference);
    const double t_cells = MPI_Wtime() - t;
    EXPECT(st == HL_OK, "cube redistributions: %s", hl_strerror(st));
    if (st != HL_OK) {
        hl_redist_destroy(boxes);
        hl_plan_destroy(p);
        return 0;
    }
    EXPECT(hl_redist_boxes(boxes) > 0 && hl_redist_boxes(boxes) <= 2 * procs,
           "cube: %" PRId64 " boxes", hl_redist_boxes(boxes));
    EXPECT(hl_redist_boxes(cells) == 0, "the reference is planned cell by cell");
    int64_t na, nb = hl_dist_local_count(&b, me), kb = 0, kc = 0;
    unsigned char *in = memory_of(&a, me, es, &na);
    unsigned char *ob = malloc((size_t)((nb + 1) * es)), *oc = malloc((size_t)((nb + 1) * es));
    memset(ob, 0x11, (size_t)((nb + 1) * es));
    memset(oc, 0x22, (size_t)((nb + 1) * es));
    EXPECT(hl_redist_begin(boxes, in, ob) == HL_OK && hl_redist_end(boxes) == HL_OK, "boxes run");
    EXPECT(hl_redist_begin(cells, in, oc) == HL_OK && hl_redist_end(cells) == HL_OK, "cells run");
    EXPECT(!memcmp(ob, oc, (size_t)(nb * es)), "cube %" PRId64 ": boxes and cells differ", n);
    int64_t y[3], wrong = 0;
    unsigned char e[8];
    for (int64_t j = 0; j < nb; j++)
        if (hl_dist_coord_of(&b, me, j, y)) { /* out[y] = in[x], x = (y2, y1, y0) */
            value(y[2] + n * y[1] + n * n * y[0], es, e);
            wrong += memcmp(ob + j * es, e, (size_t)es) != 0;
        }
    EXPECT(wrong == 0, "cube %" PRId64 ": %" PRId64 " cells wrong", n, wrong);
    EXPECT(hl_redist_bytes(boxes, &kb) == hl_redist_bytes(cells, &kc) && kb == kc,
           "cube: boxes and cells send different bytes");
    if (me == 0)
        printf("cube %" PRId64 "^3 transpose on %d processes: planned from boxes in %.4f s, "
               "cell by cell in %.3f s\n",
               n, procs, t_boxes, t_cells);
    free(in), free(ob), free(oc);
    hl_redist_destroy(boxes);
    hl_redist_destroy(cells);
    hl_plan_destroy(p);
    return sum_all(kb);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    rng = 0xbb67ae8584caa73bu;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    if (argc == 3 && !strcmp(argv[1], "--cube")) { /* the one big case, alone */
        const int64_t sent = cube(atoll(argv[2]));
        return mpi_check_finish("cube transpose", sent, "bytes kept");
    }
    int64_t moved = cube(24);
    moved += random_chains();
    darray_chains();
    local_transforms();
    relabel_flip();
    errors();
    return mpi_check_finish("distributed transforms", moved, "bytes moved");
}
