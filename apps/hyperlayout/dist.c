/* hyperlayout dist — which process owns each cell of a distributed array:
 * the owner map of a small array (seed 001's `t0 t1 / t2 t3` picture) and
 * each owner's share, for a distribution written as hl_dist_parse reads it. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char dist_usage[] =
    "usage: hyperlayout dist SPEC SHAPE [--procs P] [--grid G,G,...] [--map]\n"
    "\n"
    "Prints how SPEC distributes an array of SHAPE over P processes: the process\n"
    "grid and tiles, each process's share (the cells it owns along every\n"
    "dimension, its cells in all, and its local memory including padding), and,\n"
    "for arrays of at most 4096 cells (or with --map), the owner of every cell:\n"
    "one row per index of dimension 1, one column per index of dimension 0, a\n"
    "block of rows per index of the slower dimensions.\n"
    "\n"
    "SPEC, like SHAPE, lists the slowest dimension first:\n"
    "  block,cyclic:4,none   per dimension: block (one block per process along\n"
    "                        it), cyclic (= cyclic:1) or cyclic:B (blocks of B\n"
    "                        dealt round robin), or none (not distributed)\n"
    "  upc:[3][2]            UPC's `shared [3][2]`: tiles of 3 x 2 cells dealt\n"
    "                        round robin over the P processes in tile order\n"
    "\n"
    "  --procs P     processes (default 4)\n"
    "  --grid G,...  processes along each dimension, slowest first, 1 on the\n"
    "                `none` ones (default: chosen as MPI_Dims_create does)\n"
    "  --map         print the owner map whatever the size\n"
    "  -h, --help    this text\n"
    "\n"
    "Example: hyperlayout dist block,block 4,4 --procs 4   (seed 001's picture)\n";

enum { MAP_CELLS = 4096 };

/* The cells of dimension i whose owner coordinate is own. */
static int64_t owned_along(const hl_dist_dim *m, int64_t own)
{
    /* tile t (cells t*b .. min(L, (t+1)*b) - 1) goes to coordinate t mod P */
    int64_t n = 0;
    for (int64_t t = own; t < m->tiles; t += m->owners) {
        const int64_t end = (t + 1) * m->tile < m->extent ? (t + 1) * m->tile : m->extent;
        n += end - t * m->tile;
    }
    return n;
}

static void print_map(const hl_dist *d, int width)
{
    const int r = d->rank;
    const int64_t L0 = d->dim[0].extent, L1 = r > 1 ? d->dim[1].extent : 1;
    int64_t x[HL_MAX_RANK] = {0};
    printf("owner map (rows: dimension %d, columns: dimension 0)\n", r > 1 ? 1 : 0);
    for (int64_t k = 0; k < d->count; k += L0 * L1) {
        if (r > 2) {
            hl_kindex_fromk(&d->ki, k, x);
            printf("[");
            for (int i = r - 1; i >= 2; i--)
                printf("%" PRId64 "%s", x[i], i > 2 ? "," : "");
            printf(",:,:]\n");
        }
        for (int64_t row = 0; row < L1; row++) {
            for (int64_t col = 0; col < L0; col++) {
                hl_kindex_fromk(&d->ki, k + row * L0 + col, x);
                printf("%s t%-*" PRId64, col ? "" : " ", width, hl_dist_owner_of(d, x));
            }
            printf("\n");
        }
    }
}

typedef struct {
    const char *spec, *shape, *grid; /* SPEC, SHAPE, --grid or NULL */
    int64_t procs;
    bool map;
} dist_args;

/* -1: go on; otherwise the exit code. */
static int parse_args(int argc, char **argv, dist_args *a)
{
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
            fputs(dist_usage, stdout);
            return 0;
        } else if (!strcmp(o, "--procs") && i + 1 < argc) {
            char *end;
            a->procs = strtoll(argv[++i], &end, 10);
            if (*end || a->procs < 1)
                return cli_error("dist", "--procs needs a positive count, not '%s'", argv[i]);
        } else if (!strcmp(o, "--grid") && i + 1 < argc) {
            a->grid = argv[++i];
        } else if (!strcmp(o, "--map")) {
            a->map = true;
        } else if (o[0] == '-' && o[1] && !(o[1] >= '0' && o[1] <= '9')) {
            return cli_error("dist", "unknown option '%s' (see --help)", o);
        } else if (!a->spec) {
            a->spec = o;
        } else if (!a->shape) {
            a->shape = o;
        } else {
            return cli_error("dist", "one SPEC and one SHAPE, not '%s' too (see --help)", o);
        }
    }
    if (!a->spec || !a->shape)
        return cli_error("dist", "needs SPEC and SHAPE (see --help)");
    return -1;
}

/* --grid's counts for an array of `rank` dimensions, and *procs their
 * product.  -1: go on; otherwise the exit code. */
static int parse_grid(const char *text, int rank, int64_t *grid, int64_t *procs)
{
    int n = 0;
    for (const char *p = text; *p;) {
        char *end;
        const long long g = strtoll(p, &end, 10);
        if (end == p || n == HL_MAX_RANK || (*end && *end != ','))
            return cli_error("dist", "--grid '%s': not a list of counts", text);
        grid[n++] = g;
        p = *end ? end + 1 : end;
    }
    if (n != rank)
        return cli_error("dist", "--grid '%s' has %d entries for a rank-%d shape", text, n, rank);
    *procs = 1;
    for (int i = 0; i < n; i++)
        *procs *= grid[i];
    return -1;
}

/* The distribution of the arguments.  -1: go on; otherwise the exit
 * code. */
static int plan_dist(dist_args *a, hl_dist *d)
{
    hl_shape s;
    hl_status st = cli_parse_shape(&s, a->shape);
    if (st != HL_OK)
        return cli_error("dist", "shape '%s': %s", a->shape, hl_strerror(st));
    int64_t grid[HL_MAX_RANK];
    int rc = a->grid ? parse_grid(a->grid, s.rank, grid, &a->procs) : -1;
    if (rc >= 0)
        return rc;
    st = hl_dist_parse(d, a->spec, s.rank, s.extent, a->procs, a->grid ? grid : NULL);
    if (st != HL_OK)
        return cli_error("dist", "'%s' over %" PRId64 " process%s: %s", a->spec, a->procs,
                         a->procs == 1 ? "" : "es", hl_strerror(st));
    return -1;
}

/* The grid (or UPC's tiles) and each process's share. */
static void print_shares(const dist_args *a, const hl_dist *d)
{
    const bool upc = strncmp(a->spec, "upc:", 4) == 0;
    const int rank = d->rank;
    printf("distribution  %s\nshape         %s\nprocesses     %" PRId64 "\n", a->spec, a->shape,
           d->owners);
    printf("%s", upc ? "tiles         [" : "grid          [");
    for (int i = rank - 1; i >= 0; i--)
        printf("%" PRId64 "%s", upc ? d->dim[i].tiles : d->dim[i].owners, i ? "," : "]");
    printf("%s\ntile          [", upc ? " (dealt round robin)" : " (slowest first)");
    for (int i = rank - 1; i >= 0; i--)
        printf("%" PRId64 "%s", d->dim[i].tile, i ? "," : "]\n");
    printf("\nprocess  %s  cells  local (with padding)\n",
           upc ? "tiles" : "cells along each dimension");
    for (int64_t t = 0; t < d->owners; t++) {
        int64_t cells = 0;
        (void)hl_dist_owner_elements(d, t, &cells);
        printf("t%-7" PRId64 " ", t);
        if (upc) {
            printf("%5" PRId64, hl_dist_owner_tiles(d, t));
        } else {
            printf("[");
            for (int i = rank - 1; i >= 0; i--) {
                int64_t weight = 1;
                for (int j = 0; j < i; j++)
                    weight *= d->dim[j].owners;
                const int64_t own = t / weight % d->dim[i].owners;
                printf("%" PRId64 "%s", owned_along(&d->dim[i], own), i ? "," : "]");
            }
        }
        printf("  %5" PRId64 "  %" PRId64 "\n", cells, hl_dist_local_count(d, t));
    }
}

int cmd_dist(int argc, char **argv)
{
    dist_args a = {.procs = 4};
    hl_dist d;
    int rc = parse_args(argc, argv, &a);
    if (rc < 0)
        rc = plan_dist(&a, &d);
    if (rc >= 0)
        return rc;
    print_shares(&a, &d);
    if (a.map || d.count <= MAP_CELLS) {
        int width = 1;
        for (int64_t t = d.owners - 1; t >= 10; t /= 10)
            width++;
        printf("\n");
        print_map(&d, width);
    } else {
        printf("\n(owner map left out: %" PRId64 " cells; --map prints it)\n", d.count);
    }
    return 0;
}
