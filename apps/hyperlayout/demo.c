/* hyperlayout demo — the k-index apparatus of seed 000 at work, everything
 * computed by the library: notation, strides, bit fields, a cell's
 * neighbours under each boundary mode, and flip / shift / crinkle of small
 * 2D arrays drawn as grids; with --pictures, the paper's Figures 8, 9 and 10
 * as PNG files (pictures.c). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char demo_usage[] =
    "usage: hyperlayout demo [--cell K] [--grid SHAPE]... [SHAPE ...]\n"
    "       hyperlayout demo --pictures DIR\n"
    "\n"
    "Shows the k-index apparatus (seed 000, sections 3-8) on each SHAPE:\n"
    "strides LP, the power-of-two bit fields (bits, offset, mask, inverse) where\n"
    "every extent is a power of two, and the neighbours of one cell under every\n"
    "boundary mode.  Then draws flip, shift and crinkle of small 2D arrays.\n"
    "\n"
    "  SHAPE          e.g. [16,16,16] or 16,16,16 (most significant first);\n"
    "                 default: [16,16,16] [4,4,4] [6,12] [5,3,7]\n"
    "  --cell K       the cell whose neighbours are listed (default: an edge\n"
    "                 cell, x0 = 0 and x1 = L1-1, so the boundary modes differ)\n"
    "  --grid SHAPE   a 2D shape to draw, at most [16,16]; may repeat\n"
    "                 (default: [4,4] and [5,7])\n"
    "  --pictures DIR instead, write the paper's pictures (Figures 8, 9 and 10)\n"
    "                 into DIR (made, with its parents, when it is not there):\n"
    "                 a generated 128x128 RGB test image\n"
    "                 with one-pixel lines, and that image crinkled and uncrinkled\n"
    "                 with step 2 in dimension 0 (x) and 1 (y), crinkled in both,\n"
    "                 flipped in each and shifted, each by one plan (hl_execute):\n"
    "                 original.png, crinkle_dim0.png, crinkle_dim1.png,\n"
    "                 crinkle_both.png, uncrinkle_dim0.png, uncrinkle_dim1.png,\n"
    "                 flip_dim0.png, flip_dim1.png, shift.png (128x128), and the\n"
    "                 side-by-side figure8.png, figure10.png, transforms.png;\n"
    "                 and figure9.png: an [8,8,8] cube coloured as the checkerboard\n"
    "                 update sees it, standard, crinkled with step 2 in dimension 0\n"
    "                 and in all three, each cube over its memory order\n"
    "  -h, --help     this text\n";

static const char *const default_shapes[] = {"[16,16,16]", "[4,4,4]", "[6,12]", "[5,3,7]"};
static const char *const default_grids[] = {"[4,4]", "[5,7]"};

static const char *const boundary_names[HL_BOUNDARY_COUNT] = {
    [HL_BOUNDARY_PERIODIC] = "periodic", [HL_BOUNDARY_CLAMP] = "clamp",
    [HL_BOUNDARY_REFLECT] = "reflect",   [HL_BOUNDARY_SYMMETRIC] = "symmetric",
    [HL_BOUNDARY_OPEN] = "open",
};

static void print_list_dec(const char *label, const int64_t *v, int n)
{
    printf("  %-9s {", label);
    for (int i = 0; i < n; i++)
        printf("%s%" PRId64, i ? ", " : "", v[i]);
    printf("}\n");
}

static void print_list_hex(const char *label, const uint64_t *v, int n, int digits)
{
    printf("  %-9s {", label);
    for (int i = 0; i < n; i++)
        printf("%s0x%0*" PRIX64, i ? ", " : "", digits, v[i]);
    printf("}\n");
}

static void print_binary(uint64_t k, int bits)
{
    if (bits == 0)
        bits = 1;
    for (int b = bits - 1; b >= 0; b--)
        putchar((k >> b) & 1 ? '1' : '0');
    putchar('b');
}

static void print_x(const int64_t *x, int rank)
{
    printf("(");
    for (int i = 0; i < rank; i++)
        printf("%s%" PRId64, i ? ", " : "", x[i]);
    printf(")");
}

/* The bit fields of section 5 and the worked examples of Figures 2 and 6,
 * on the paper's cell k = 110100110101b (masked to the array's bits). */
static void show_pow2(const hl_kpow2 *kp)
{
    int total = kp->offset[kp->rank - 1] + kp->bits[kp->rank - 1];
    int digits = (total + 3) / 4 > 0 ? (total + 3) / 4 : 1;
    int64_t bits[HL_MAX_RANK], offset[HL_MAX_RANK];
    uint64_t lp[HL_MAX_RANK];
    for (int i = 0; i < kp->rank; i++) {
        bits[i] = kp->bits[i];
        offset[i] = kp->offset[i];
        lp[i] = (uint64_t)kp->stride[i];
    }
    printf("  every extent is a power of two: the bit-field path applies (eqs. 11-15)\n");
    print_list_dec("bits", bits, kp->rank);
    print_list_dec("offset", offset, kp->rank);
    print_list_hex("mask", kp->mask, kp->rank, digits);
    print_list_hex("inverse", kp->inverse, kp->rank, digits);
    print_list_hex("LP", lp, kp->rank, digits);

    int64_t k = (int64_t)(0xD35 & ((uint64_t)kp->count - 1));
    int64_t x[HL_MAX_RANK];
    hl_kpow2_fromk(kp, k, x);
    printf("  cell      k = ");
    print_binary((uint64_t)k, total);
    printf(" = %" PRId64 " -> x = ", k);
    print_x(x, kp->rank);
    printf("   (eq. 13: x_i = (k & mask_i) >> offset_i)\n");
    uint64_t dims = 1 | ((uint64_t)1 << (kp->rank - 1));
    uint64_t fmask = hl_kpow2_flipmask(kp, dims);
    int64_t kw = hl_kpow2_flip(k, fmask);
    printf("  flip      dims {0,%d}: fmask = 0x%0*" PRIX64 ", k_w = ", kp->rank - 1, digits, fmask);
    print_binary((uint64_t)kw, total);
    printf(" = %" PRId64 "   (eqs. 20-21)\n", kw);
}

static void show_neighbours(const hl_kindex *ki, int64_t k)
{
    int64_t x[HL_MAX_RANK];
    hl_kindex_fromk(ki, k, x);
    printf("  neighbours of k = %" PRId64 ", x = ", k);
    print_x(x, ki->rank);
    printf(" (k of the neighbour; - where an open boundary has none):\n");
    printf("     dim  step");
    for (int b = 0; b < HL_BOUNDARY_COUNT; b++)
        printf(" %10s", boundary_names[b]);
    printf("\n");
    for (int i = 0; i < ki->rank; i++) {
        for (int64_t n = -1; n <= 1; n += 2) {
            printf("  %6d  %+4" PRId64, i, n);
            for (int b = 0; b < HL_BOUNDARY_COUNT; b++) {
                int64_t kn = hl_kindex_neighbour_bc(ki, k, i, n, (hl_boundary)b);
                if (kn == HL_NO_NEIGHBOUR)
                    printf(" %10s", "-");
                else
                    printf(" %10" PRId64, kn);
            }
            printf("\n");
        }
    }
}

static void show_shape(const hl_shape *s, const int64_t *cell)
{
    char text[HL_SHAPE_NOTATION_MAX];
    hl_shape_format(s, text, sizeof text);
    hl_kindex ki;
    hl_kindex_init(&ki, s->rank, s->extent); /* cannot fail: s is a valid shape */
    printf("== %s   rank %d, N = %" PRId64 ", %" PRId64 " byte%s per element\n", text, s->rank,
           ki.count, s->elem_size, s->elem_size == 1 ? "" : "s");
    print_list_dec("L", ki.extent, ki.rank);
    print_list_dec("LP", ki.stride, ki.rank);

    hl_kpow2 kp;
    if (hl_kpow2_init(&kp, s->rank, s->extent) == HL_OK)
        show_pow2(&kp);
    else
        printf("  not every extent is a power of two: the general path (magic division) applies\n");

    int64_t k;
    if (cell) {
        k = *cell;
    } else {
        int64_t x[HL_MAX_RANK];
        for (int i = 0; i < ki.rank; i++)
            x[i] = i == 0 ? 0 : i == 1 ? ki.extent[1] - 1 : ki.extent[i] / 2;
        k = hl_kindex_tok(&ki, x);
    }
    show_neighbours(&ki, k);
    printf("\n");
}

/* ---- the grids ---------------------------------------------------------- */

enum op_kind { OP_NONE, OP_FLIP, OP_SHIFT, OP_CRINKLE, OP_UNCRINKLE };

typedef struct {
    enum op_kind kind;
    int dim;         /* flip, crinkle */
    int64_t a, b;    /* crinkle step; shift s0, s1 */
} grid_op;

/* out[map(k)] = in[k]: the per-element maps of section 8. */
static hl_status apply(const hl_kindex *ki, grid_op op, const int64_t *in, int64_t *out)
{
    hl_kcrinkle cr = {0};
    hl_kshift sh = {0};
    hl_status st = HL_OK;
    if (op.kind == OP_CRINKLE || op.kind == OP_UNCRINKLE)
        st = hl_kcrinkle_init(&cr, ki, op.dim, op.a);
    if (op.kind == OP_SHIFT) {
        int64_t s[2] = {op.a, op.b};
        st = hl_kshift_init(&sh, ki, s);
    }
    if (st != HL_OK)
        return st;
    for (int64_t k = 0; k < ki->count; k++) {
        int64_t kw = k;
        switch (op.kind) {
        case OP_NONE: break;
        case OP_FLIP: kw = hl_kindex_flip(ki, k, (uint64_t)1 << op.dim); break;
        case OP_SHIFT: kw = hl_kindex_shift(ki, &sh, k); break;
        case OP_CRINKLE: kw = hl_kindex_crinkle(ki, &cr, k); break;
        case OP_UNCRINKLE: kw = hl_kindex_uncrinkle(ki, &cr, k); break;
        }
        out[kw] = in[k];
    }
    return HL_OK;
}

static void op_name(grid_op op, char *buf, size_t cap)
{
    switch (op.kind) {
    case OP_NONE: snprintf(buf, cap, "original"); break;
    case OP_FLIP: snprintf(buf, cap, "flip:%d", op.dim); break;
    case OP_SHIFT: snprintf(buf, cap, "shift:%" PRId64 ",%" PRId64, op.a, op.b); break;
    case OP_CRINKLE: snprintf(buf, cap, "crinkle:%d:%" PRId64, op.dim, op.a); break;
    case OP_UNCRINKLE: snprintf(buf, cap, "uncrinkle:%d:%" PRId64, op.dim, op.a); break;
    }
}

/* Draws several L1 x L0 grids side by side; row x1 = 0 on top. */
static void draw(const hl_kindex *ki, int64_t *const *grids, char names[][32], int n)
{
    int64_t L0 = ki->extent[0], L1 = ki->extent[1];
    int w = ki->count > 100 ? 4 : 3;
    int width = (int)L0 * w + 4;
    for (int g = 0; g < n; g++)
        printf("  %-*s", width - 2, names[g]);
    printf("\n");
    for (int64_t y = 0; y < L1; y++) {
        for (int g = 0; g < n; g++) {
            printf("  ");
            for (int64_t x = 0; x < L0; x++)
                printf("%*" PRId64, w, grids[g][y * L0 + x]);
            printf("  ");
        }
        printf("\n");
    }
    printf("\n");
}

static int show_grid(const hl_shape *s)
{
    char text[HL_SHAPE_NOTATION_MAX];
    hl_shape_format(s, text, sizeof text);
    hl_kindex ki;
    hl_kindex_init(&ki, 2, s->extent);
    int64_t L0 = s->extent[0], L1 = s->extent[1];
    int64_t step0 = L0 % 2 ? (L0 >= 3 ? 3 : 1) : 2; /* odd extents show the stable regrouping */
    int64_t step1 = L1 >= 2 ? 2 : 1;
    const grid_op ops[] = {
        {OP_NONE, 0, 0, 0},       {OP_FLIP, 0, 0, 0},          {OP_FLIP, 1, 0, 0},
        {OP_SHIFT, 0, 1, -1},     {OP_CRINKLE, 0, step0, 0},   {OP_CRINKLE, 1, step1, 0},
        {OP_UNCRINKLE, 0, step0, 0}, {OP_UNCRINKLE, 1, step1, 0},
    };
    enum { NOPS = sizeof ops / sizeof ops[0] };
    int64_t *buf = malloc(sizeof(int64_t) * (size_t)ki.count * (NOPS + 1));
    if (!buf)
        return cli_error("demo", "%s", hl_strerror(HL_ERR_NOMEM));
    int64_t *grids[NOPS + 1];
    char names[NOPS + 1][32];
    for (int64_t k = 0; k < ki.count; k++)
        buf[k] = k;
    for (int o = 0; o < NOPS; o++) {
        grids[o] = buf + (o + 1) * ki.count;
        apply(&ki, ops[o], buf, grids[o]);
        op_name(ops[o], names[o], sizeof names[o]);
    }
    /* crinkled in both dimensions (Figure 9, right): a chain of two maps */
    grids[NOPS] = buf;
    apply(&ki, ops[5], grids[4], grids[NOPS]);
    snprintf(names[NOPS], sizeof names[NOPS], "crinkle:0:%" PRId64 " crinkle:1:%" PRId64, step0, step1);

    printf("== %s   cell values are their original k; out[map(k)] = in[k]\n", text);
    int per_row = (int)(96 / (L0 * (ki.count > 100 ? 4 : 3) + 4));
    if (per_row < 1)
        per_row = 1;
    for (int g = 0; g < NOPS + 1; g += per_row)
        draw(&ki, grids + g, names + g, NOPS + 1 - g < per_row ? NOPS + 1 - g : per_row);
    free(buf);
    return 0;
}

int cmd_demo(int argc, char **argv)
{
    const char *shapes[64], *grids[16];
    int nshapes = 0, ngrids = 0;
    int64_t cell = 0;
    int have_cell = 0;
    const char *pictures = NULL;
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a];
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            fputs(demo_usage, stdout);
            return 0;
        } else if (!strcmp(arg, "--pictures")) {
            if (a + 1 >= argc)
                return cli_error("demo", "--pictures needs a directory");
            pictures = argv[++a];
        } else if (!strcmp(arg, "--cell") || !strcmp(arg, "--grid")) {
            if (a + 1 >= argc)
                return cli_error("demo", "%s needs a value", arg);
            const char *val = argv[++a];
            if (arg[2] == 'g') {
                if (ngrids == (int)(sizeof grids / sizeof grids[0]))
                    return cli_error("demo", "too many --grid options");
                grids[ngrids++] = val;
            } else {
                char *end;
                long long v = strtoll(val, &end, 0);
                if (*val == '\0' || *end != '\0')
                    return cli_error("demo", "--cell '%s' is not an integer", val);
                cell = v;
                have_cell = 1;
            }
        } else if (arg[0] == '-' && arg[1] == '-') {
            return cli_error("demo", "unknown option '%s' (see hyperlayout demo --help)", arg);
        } else {
            if (nshapes == (int)(sizeof shapes / sizeof shapes[0]))
                return cli_error("demo", "too many shapes");
            shapes[nshapes++] = arg;
        }
    }
    if (pictures) {
        if (nshapes || ngrids || have_cell)
            return cli_error("demo", "--pictures takes no SHAPE, --grid or --cell");
        return demo_pictures(pictures);
    }
    if (nshapes == 0)
        for (size_t i = 0; i < sizeof default_shapes / sizeof *default_shapes; i++)
            shapes[nshapes++] = default_shapes[i];
    if (ngrids == 0)
        for (size_t i = 0; i < sizeof default_grids / sizeof *default_grids; i++)
            grids[ngrids++] = default_grids[i];

    /* Parse everything first so that a typo fails before any output. */
    hl_shape parsed[64], parsed_grids[16];
    for (int i = 0; i < nshapes; i++) {
        hl_status st = cli_parse_shape(&parsed[i], shapes[i]);
        if (st != HL_OK)
            return cli_error("demo", "bad shape '%s': %s", shapes[i], hl_strerror(st));
        int64_t n = hl_shape_count(&parsed[i]);
        if (have_cell && (cell < 0 || cell >= n))
            return cli_error("demo", "--cell %" PRId64 " is outside '%s' (0..%" PRId64 ")",
                             cell, shapes[i], n - 1);
    }
    for (int i = 0; i < ngrids; i++) {
        const hl_shape *g = &parsed_grids[i];
        hl_status st = cli_parse_shape(&parsed_grids[i], grids[i]);
        if (st != HL_OK)
            return cli_error("demo", "bad --grid shape '%s': %s", grids[i], hl_strerror(st));
        if (g->rank != 2 || g->extent[0] > 16 || g->extent[1] > 16)
            return cli_error("demo", "--grid '%s': need a 2D shape of at most [16,16]", grids[i]);
    }

    printf("hyperlayout demo: the k-index apparatus (seed 000, sections 3-8)\n");
    printf("k = x0 + L0*x1 + L0*L1*x2 + ...; shapes print most significant first, lists L0 first\n\n");
    for (int i = 0; i < nshapes; i++)
        show_shape(&parsed[i], have_cell ? &cell : NULL);
    printf("Transforms of 2D arrays (section 8): flip, shift, crinkle, uncrinkle\n\n");
    for (int i = 0; i < ngrids; i++) {
        int rc = show_grid(&parsed_grids[i]);
        if (rc)
            return rc;
    }
    return 0;
}
