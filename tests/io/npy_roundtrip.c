/* Test helper for npy_numpy.py: loads IN with the library (hl_npy_load, or
 * hl_npz_load for ARCHIVE.npz / ARCHIVE.npz:NAME) and saves it to OUT
 * (hl_npy_save, or hl_npz_save with member "arr" when OUT ends in .npz), so
 * that NumPy can compare what the library read with what it wrote.  Prints
 * the shape's notation; on error a one-line message and exit status 2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hyperlayout.h"

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && !strcmp(s + n - t, tail);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: npy_roundtrip IN.npy|IN.npz[:NAME] OUT.npy|OUT.npz\n");
        return 2;
    }
    char *in = argv[1];
    const char *out = argv[2];
    hl_shape s;
    void *data = NULL;
    hl_status st;
    char *npz = strstr(in, ".npz");
    if (npz && (npz[4] == '\0' || npz[4] == ':')) {
        const char *name = NULL;
        if (npz[4] == ':') {
            npz[4] = '\0';
            name = npz + 5;
        }
        st = hl_npz_load(in, name, &s, &data);
    } else {
        st = hl_npy_load(in, &s, &data);
    }
    if (st == HL_OK)
        st = ends_with(out, ".npz") ? hl_npz_save(out, "arr", &s, data) : hl_npy_save(out, &s, data);
    free(data);
    if (st != HL_OK) {
        fprintf(stderr, "npy_roundtrip: %s: %s\n", argv[1], hl_strerror(st));
        return 2;
    }
    char notation[HL_SHAPE_NOTATION_MAX];
    if (hl_shape_format(&s, notation, sizeof notation) == HL_OK)
        printf("%s\n", notation);
    return 0;
}
