/* hyperlayout — distributions written as text, and process grids chosen
 * like MPI_Dims_create. */
#include "hyperlayout/dist.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

hl_status hl_dims_create(int64_t procs, int n, int64_t *dims)
{
    if (!dims)
        return HL_ERR_NULL;
    if (procs < 1 || n < 1 || n > HL_MAX_RANK)
        return HL_ERR_ARG;
    int64_t left = procs;
    int nfree = 0;
    for (int i = 0; i < n; i++) {
        if (dims[i] < 0)
            return HL_ERR_ARG;
        if (dims[i] == 0)
            nfree++;
        else if (left % dims[i])
            return HL_ERR_ARG;
        else
            left /= dims[i];
    }
    if (nfree == 0)
        return left == 1 ? HL_OK : HL_ERR_ARG;
    /* the prime factors, largest first, each to the free dimension with the
     * smallest product so far: as balanced as the factors allow */
    int64_t factor[64], prod[HL_MAX_RANK];
    int nf = 0;
    for (int64_t p = 2; p * p <= left; p++)
        while (left % p == 0) {
            factor[nf++] = p;
            left /= p;
        }
    if (left > 1)
        factor[nf++] = left;
    for (int j = 0; j < nfree; j++)
        prod[j] = 1;
    for (int f = nf - 1; f >= 0; f--) {
        int best = 0;
        for (int j = 1; j < nfree; j++)
            if (prod[j] < prod[best])
                best = j;
        prod[best] *= factor[f];
    }
    /* non-increasing, as MPI_Dims_create orders them */
    for (int a = 1; a < nfree; a++)
        for (int b = a; b > 0 && prod[b - 1] < prod[b]; b--) {
            const int64_t t = prod[b];
            prod[b] = prod[b - 1];
            prod[b - 1] = t;
        }
    for (int i = 0, j = 0; i < n; i++)
        if (dims[i] == 0)
            dims[i] = prod[j++];
    return HL_OK;
}

/* A non-negative integer at *p (no sign, no overflow); advances *p. */
static bool read_count(const char **p, int64_t *v)
{
    if (!isdigit((unsigned char)**p))
        return false;
    errno = 0;
    char *end;
    const long long x = strtoll(*p, &end, 10);
    if (errno || x < 0)
        return false;
    *v = x;
    *p = end;
    return true;
}

/* upc:[b]...[b], slowest first; tile[] receives dimension 0 first. */
static hl_status parse_upc(const char *s, int rank, int64_t *tile)
{
    int n = 0;
    int64_t t[HL_MAX_RANK];
    while (*s == '[') {
        s++;
        if (n == HL_MAX_RANK || !read_count(&s, &t[n]) || t[n] < 1 || *s != ']')
            return HL_ERR_SYNTAX;
        s++;
        n++;
    }
    if (*s || n != rank)
        return n != rank && !*s ? HL_ERR_RANK : HL_ERR_SYNTAX;
    for (int i = 0; i < n; i++)
        tile[i] = t[n - 1 - i];
    return HL_OK;
}

/* AXIS(,AXIS)*, slowest first; axis[] receives dimension 0 first, owners
 * 0 for the distributed dimensions (to be chosen) and 1 for none. */
static hl_status parse_axes(const char *s, int rank, hl_dist_axis *axis)
{
    hl_dist_axis a[HL_MAX_RANK];
    int n = 0;
    for (;;) {
        if (n == HL_MAX_RANK)
            return HL_ERR_RANK;
        const size_t len = strcspn(s, ",");
        hl_dist_axis *x = &a[n++];
        if (len == 5 && !strncmp(s, "block", 5)) {
            *x = (hl_dist_axis){HL_DIST_BLOCK, 0, 0};
        } else if (len == 4 && !strncmp(s, "none", 4)) {
            *x = (hl_dist_axis){HL_DIST_NONE, 1, 0};
        } else if (len >= 6 && !strncmp(s, "cyclic", 6)) {
            *x = (hl_dist_axis){HL_DIST_CYCLIC, 0, 1};
            const char *q = s + 6;
            if (len > 6 && (*q != ':' || (q++, !read_count(&q, &x->tile)) || x->tile < 1 ||
                            q != s + len))
                return HL_ERR_SYNTAX;
        } else {
            return HL_ERR_SYNTAX;
        }
        s += len;
        if (!*s)
            break;
        s++; /* the comma */
    }
    if (n != rank)
        return HL_ERR_RANK;
    for (int i = 0; i < n; i++)
        axis[i] = a[n - 1 - i];
    return HL_OK;
}

hl_status hl_dist_parse(hl_dist *d, const char *spec, int rank, const int64_t *extent,
                        int64_t procs, const int64_t *grid)
{
    if (!d)
        return HL_ERR_NULL;
    memset(d, 0, sizeof *d);
    if (!spec || !extent)
        return HL_ERR_NULL;
    if (rank < 1 || rank > HL_MAX_RANK)
        return HL_ERR_RANK;
    if (procs < 1)
        return HL_ERR_ARG;
    if (!strncmp(spec, "upc:", 4)) {
        int64_t tile[HL_MAX_RANK];
        const hl_status st = parse_upc(spec + 4, rank, tile);
        return st != HL_OK ? st : hl_dist_upc(d, rank, extent, tile, procs);
    }
    hl_dist_axis axis[HL_MAX_RANK];
    hl_status st = parse_axes(spec, rank, axis);
    if (st != HL_OK)
        return st;
    /* the grid over the distributed dimensions, slowest first as MPI
     * orders it; a given grid has 1 for every undistributed dimension */
    int64_t dims[HL_MAX_RANK];
    int nd = 0;
    for (int i = rank - 1; i >= 0; i--) {
        if (grid) {
            const int64_t g = grid[rank - 1 - i];
            if (g < 1 || (axis[i].kind == HL_DIST_NONE && g != 1))
                return HL_ERR_ARG;
            axis[i].owners = g;
        } else if (axis[i].kind != HL_DIST_NONE) {
            dims[nd++] = 0;
        }
    }
    if (!grid) {
        if (nd == 0)
            return procs == 1 ? hl_dist_grid(d, rank, extent, axis) : HL_ERR_ARG;
        if ((st = hl_dims_create(procs, nd, dims)) != HL_OK)
            return st;
        for (int i = rank - 1, j = 0; i >= 0; i--)
            if (axis[i].kind != HL_DIST_NONE)
                axis[i].owners = dims[j++];
    }
    int64_t total = 1;
    for (int i = 0; i < rank; i++)
        total *= axis[i].owners;
    if (total != procs)
        return HL_ERR_ARG;
    return hl_dist_grid(d, rank, extent, axis);
}
