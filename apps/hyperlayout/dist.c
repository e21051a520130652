/* hyperlayout dist — which process owns each cell of a distributed array:
 * the owner map of a small array (seed 001's `t0 t1 / t2 t3` picture) and
 * each owner's share, for a distribution written as hl_dist_parse reads it. */
#include <inttypes.h>
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

int cmd_dist(int argc, char **argv)
{
    const char *spec = NULL, *shape_arg = NULL, *grid_arg = NULL;
    int64_t procs = 4;
    int map = 0;
    for (int a = 1; a < argc; a++) {
        const char *o = argv[a];
        if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
            fputs(dist_usage, stdout);
            return 0;
        } else if (!strcmp(o, "--procs") && a + 1 < argc) {
            char *end;
            procs = strtoll(argv[++a], &end, 10);
            if (*end || procs < 1)
                return cli_error("dist", "--procs needs a positive count, not '%s'", argv[a]);
        } else if (!strcmp(o, "--grid") && a + 1 < argc) {
            grid_arg = argv[++a];
        } else if (!strcmp(o, "--map")) {
            map = 1;
        } else if (o[0] == '-' && o[1] && !(o[1] >= '0' && o[1] <= '9')) {
            return cli_error("dist", "unknown option '%s' (see --help)", o);
        } else if (!spec) {
            spec = o;
        } else if (!shape_arg) {
            shape_arg = o;
        } else {
            return cli_error("dist", "one SPEC and one SHAPE, not '%s' too (see --help)", o);
        }
    }
    if (!spec || !shape_arg)
        return cli_error("dist", "needs SPEC and SHAPE (see --help)");
    hl_shape s;
    hl_status st = cli_parse_shape(&s, shape_arg);
    if (st != HL_OK)
        return cli_error("dist", "shape '%s': %s", shape_arg, hl_strerror(st));
    int64_t grid[HL_MAX_RANK];
    if (grid_arg) {
        int n = 0;
        for (const char *p = grid_arg; *p;) {
            char *end;
            const long long g = strtoll(p, &end, 10);
            if (end == p || n == HL_MAX_RANK || (*end && *end != ','))
                return cli_error("dist", "--grid '%s': not a list of counts", grid_arg);
            grid[n++] = g;
            p = *end ? end + 1 : end;
        }
        if (n != s.rank)
            return cli_error("dist", "--grid '%s' has %d entries for a rank-%d shape", grid_arg,
                             n, s.rank);
        procs = 1;
        for (int i = 0; i < n; i++)
            procs *= grid[i];
    }
    hl_dist d;
    st = hl_dist_parse(&d, spec, s.rank, s.extent, procs, grid_arg ? grid : NULL);
    if (st != HL_OK)
        return cli_error("dist", "'%s' over %" PRId64 " process%s: %s", spec, procs,
                         procs == 1 ? "" : "es", hl_strerror(st));

    const bool upc = strncmp(spec, "upc:", 4) == 0;
    printf("distribution  %s\nshape         %s\nprocesses     %" PRId64 "\n", spec, shape_arg,
           d.owners);
    printf("%s", upc ? "tiles         [" : "grid          [");
    for (int i = s.rank - 1; i >= 0; i--)
        printf("%" PRId64 "%s", upc ? d.dim[i].tiles : d.dim[i].owners, i ? "," : "]");
    printf("%s\ntile          [", upc ? " (dealt round robin)" : " (slowest first)");
    for (int i = s.rank - 1; i >= 0; i--)
        printf("%" PRId64 "%s", d.dim[i].tile, i ? "," : "]\n");
    printf("\nprocess  %s  cells  local (with padding)\n",
           upc ? "tiles" : "cells along each dimension");
    for (int64_t t = 0; t < d.owners; t++) {
        int64_t cells = 0;
        (void)hl_dist_owner_elements(&d, t, &cells);
        printf("t%-7" PRId64 " ", t);
        if (upc) {
            printf("%5" PRId64, hl_dist_owner_tiles(&d, t));
        } else {
            printf("[");
            for (int i = s.rank - 1; i >= 0; i--) {
                int64_t weight = 1;
                for (int j = 0; j < i; j++)
                    weight *= d.dim[j].owners;
                const int64_t own = t / weight % d.dim[i].owners;
                printf("%" PRId64 "%s", owned_along(&d.dim[i], own), i ? "," : "]");
            }
        }
        printf("  %5" PRId64 "  %" PRId64 "\n", cells, hl_dist_local_count(&d, t));
    }
    if (map || d.count <= MAP_CELLS) {
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
