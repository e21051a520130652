/* A tensor view with a cached halo tile.
 *
 * A 2D array of 48 x 40 doubles (dimension 0 fastest) is split into a 3 x 2
 * grid of tiles.  Each tile is copied, with a halo one cell wide, into a
 * scratch buffer of its own (a cached view: the same coordinates as the
 * tile, the halo at -1 and extent); outside the array the halo wraps
 * around (HL_HALO_PERIODIC).  A five-point average is computed from the
 * scratch alone, and compared with the same average computed from the
 * whole array with periodic indices.
 */
#include <hyperlayout.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { NX = 48, NY = 40 };

static int ok(hl_status st, const char *what)
{
    if (st != HL_OK)
        fprintf(stderr, "tensor_halo: %s: %s\n", what, hl_strerror(st));
    return st == HL_OK;
}

static double at(const hl_tensor *t, int64_t x0, int64_t x1)
{
    const int64_t x[2] = {x0, x1};
    return *(const double *)hl_tensor_ptr(t, x);
}

int main(void)
{
    static double a[NY][NX], out[NY][NX];
    for (int y = 0; y < NY; y++)
        for (int x = 0; x < NX; x++)
            a[y][x] = sin(0.3 * x) + cos(0.2 * y) + 0.01 * x * y;

    const int64_t extent[2] = {NX, NY}, grid[2] = {3, 2}, halo[2] = {1, 1};
    hl_tensor top;
    if (!ok(hl_tensor_init_standard(&top, a, 2, extent, sizeof(double)), "tensor"))
        return 1;
    const hl_cache_options copt = {halo, HL_HALO_PERIODIC, NULL, NULL};
    int64_t tiles = 0;
    for (int64_t ty = 0; ty < grid[1]; ty++)
        for (int64_t tx = 0; tx < grid[0]; tx++) {
            const int64_t index[2] = {tx, ty};
            hl_tensor tile, cached;
            hl_tile_cache *c;
            if (!ok(hl_tensor_tile(&tile, &top, grid, index), "tile") ||
                !ok(hl_tile_cache_create(&c, &tile, &copt), "cache"))
                return 1;
            double *scratch = malloc(hl_tile_cache_span(c) * sizeof(double));
            if (!scratch || !ok(hl_tile_cache_fill(c, scratch), "fill") ||
                !ok(hl_tile_cache_view(c, scratch, &cached), "view"))
                return 1;
            /* the kernel sees tile coordinates only; x = -1 and x = extent
               are the halo */
            for (int64_t y = 0; y < tile.extent[1]; y++)
                for (int64_t x = 0; x < tile.extent[0]; x++) {
                    const double v = (at(&cached, x, y) + at(&cached, x - 1, y) + at(&cached, x + 1, y) +
                                      at(&cached, x, y - 1) + at(&cached, x, y + 1)) / 5;
                    /* where this cell is in the whole array */
                    const int64_t local[2] = {x, y};
                    int64_t g[2];
                    hl_tensor_to_root(&tile, local, g);
                    out[g[1]][g[0]] = v;
                }
            free(scratch);
            hl_tile_cache_destroy(c);
            tiles++;
        }

    double worst = 0;
    for (int y = 0; y < NY; y++)
        for (int x = 0; x < NX; x++) {
            const double want = (a[y][x] + a[y][(x + NX - 1) % NX] + a[y][(x + 1) % NX] +
                                 a[(y + NY - 1) % NY][x] + a[(y + 1) % NY][x]) / 5;
            worst = fmax(worst, fabs(out[y][x] - want));
        }
    if (worst != 0) {
        fprintf(stderr, "tensor_halo: the cached tiles differ from the whole array by %g\n", worst);
        return 1;
    }
    printf("%lld cached tiles with a periodic halo of 1: the five-point average of a %dx%d "
           "array, identical to the direct one\n", (long long)tiles, NY, NX);
    return 0;
}
