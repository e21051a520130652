/* hyperlayout demo --pictures — the paper's Figures 8 and 10 (seed 000,
 * section 8.3-8.4) redone on a generated test image, and its Figure 9 (the
 * checkerboard cube, crinkled) drawn in an oblique projection.
 *
 * The image is a [128,128,bytes3] array: one RGB pixel of 3 bytes per
 * element, dimension 0 the column x and dimension 1 the row y (row 0 at the
 * top), so dimension numbers mean what they mean in the paper's [128][128]
 * picture and the library moves 3-byte elements as the opaque "degree of
 * freedom" objects of the design.  Every re-laid-out picture is one plan run
 * through hl_execute and is checked, pixel by pixel, against the per-element
 * k-index maps of kindex.h before it is written. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "image.h"

#define SIDE 128
#define NPIX (SIDE * SIDE)
#define PIX 3 /* bytes per element */

/* ---- a 5x7 pixel font for the text in the image and the captions ---------- */

/* Rows top to bottom, bit 4 the leftmost column. */
static const struct glyph {
    char c;
    unsigned char row[7];
} font[] = {
    {'A', {0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11}}, {'C', {0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E}},
    {'E', {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F}}, {'F', {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10}},
    {'G', {0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F}}, {'H', {0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11}},
    {'I', {0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E}}, {'K', {0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11}},
    {'L', {0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F}}, {'N', {0x11, 0x19, 0x15, 0x13, 0x11, 0x11, 0x11}},
    {'O', {0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E}}, {'P', {0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10}},
    {'R', {0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11}}, {'S', {0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E}},
    {'T', {0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04}}, {'U', {0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E}},
    {'Y', {0x11, 0x11, 0x0A, 0x04, 0x04, 0x04, 0x04}}, {'0', {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E}},
    {'1', {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E}}, {'2', {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F}},
    {'4', {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02}}, {':', {0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x0C, 0x00}},
    {',', {0x00, 0x00, 0x00, 0x00, 0x0C, 0x04, 0x08}}, {' ', {0}},
    {'B', {0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E}}, {'D', {0x1E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x1E}},
    {'M', {0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11}}, {'W', {0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A}},
    {'X', {0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11}}, {'3', {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E}},
    {'5', {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E}}, {'6', {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E}},
    {'8', {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E}}, {'=', {0x00, 0x00, 0x1F, 0x00, 0x1F, 0x00, 0x00}},
    {'.', {0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C}}, {'-', {0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00}},
};

/* A character the font lacks draws as a solid block, so that a caption
 * cannot lose letters unnoticed. */
static const unsigned char *glyph_rows(char c)
{
    static const unsigned char block[7] = {0x1F, 0x1F, 0x1F, 0x1F, 0x1F, 0x1F, 0x1F};
    for (size_t i = 0; i < sizeof font / sizeof font[0]; i++)
        if (font[i].c == c)
            return font[i].row;
    return block;
}

/* Draws TEXT with its top-left corner at (x, y), each font pixel SCALE x
 * SCALE, into an RGB canvas WIDTH pixels wide and HEIGHT high (clipped). */
static void draw_text(uint8_t *canvas, int width, int height, int x, int y, int scale,
                      const char *text, const uint8_t rgb[3])
{
    for (; *text; text++, x += 6 * scale) {
        const unsigned char *rows = glyph_rows(*text);
        for (int gy = 0; gy < 7 * scale; gy++)
            for (int gx = 0; gx < 5 * scale; gx++) {
                int px = x + gx, py = y + gy;
                if (px < 0 || py < 0 || px >= width || py >= height ||
                    !((rows[gy / scale] >> (4 - gx / scale)) & 1))
                    continue;
                memcpy(canvas + ((size_t)py * (size_t)width + (size_t)px) * PIX, rgb, PIX);
            }
    }
}

/* The same, turned a quarter to the left: read from bottom to top, the
 * bottom-left corner of the first character at (x, y). */
static void draw_text_up(uint8_t *canvas, int width, int height, int x, int y, int scale,
                         const char *text, const uint8_t rgb[3])
{
    for (; *text; text++, y -= 6 * scale) {
        const unsigned char *rows = glyph_rows(*text);
        for (int gy = 0; gy < 7 * scale; gy++)
            for (int gx = 0; gx < 5 * scale; gx++) {
                int px = x + gy, py = y - gx;
                if (px < 0 || py < 0 || px >= width || py >= height ||
                    !((rows[gy / scale] >> (4 - gx / scale)) & 1))
                    continue;
                memcpy(canvas + ((size_t)py * (size_t)width + (size_t)px) * PIX, rgb, PIX);
            }
    }
}

/* ---- the test image ---------------------------------------------------------- */

static void set_pixel(uint8_t *img, int x, int y, int r, int g, int b)
{
    uint8_t *p = img + ((size_t)y * SIDE + (size_t)x) * PIX;
    p[0] = (uint8_t)r;
    p[1] = (uint8_t)g;
    p[2] = (uint8_t)b;
}

/* Smooth parts show that a crinkle's halves look alike; sharp ones (text,
 * checkerboard, one-pixel lines) show that they hold different pixels. */
static void make_test_image(uint8_t *img)
{
    for (int y = 0; y < SIDE; y++)
        for (int x = 0; x < SIDE; x++) {
            /* a diagonal gradient from deep blue to teal and purple */
            int r = 20 + x * 130 / 127, g = 40 + y * 120 / 127, b = 170 - (x + y) * 60 / 254;
            /* a shaded disc */
            int dx = x - 100, dy = y - 46, d2 = dx * dx + dy * dy;
            if (d2 <= 20 * 20) {
                r = 250;
                g = 230 - d2 * 130 / 400;
                b = 40;
                if (d2 >= 17 * 17)
                    g = 90;
            }
            /* a checkerboard of 4-pixel squares: crinkled with step 2 each
             * half holds 2-pixel squares */
            if (x >= 8 && x < 56 && y >= 76 && y < 124)
                r = g = b = ((x - 8) / 4 + (y - 76) / 4) % 2 ? 235 : 25;
            /* a red triangle, its edge a staircase of slope 1 */
            if (y >= 78 && y < 124 && x < 124 && x >= 124 - (y - 78))
                r = 200, g = 30 + (124 - y) * 2, b = 50;
            set_pixel(img, x, y, r, g, b);
        }
    static const uint8_t ink[3] = {255, 240, 120};
    draw_text(img, SIDE, SIDE, 6, 6, 2, "HYPER", ink);
    draw_text(img, SIDE, SIDE, 6, 26, 2, "LAYOUT", ink);
    /* The paper's one-pixel white line, on the diagonal: crinkled in both
     * dimensions, two of the four sub-images hold all of it and two none.
     * A vertical and a horizontal one-pixel line in cyan show the same in
     * one dimension: each lands in one half of its crinkle only. */
    for (int t = 0; t < SIDE; t++) {
        set_pixel(img, 65, t, 0, 230, 230);
        set_pixel(img, t, 66, 0, 230, 230);
    }
    for (int t = 0; t < SIDE; t++)
        set_pixel(img, t, t, 255, 255, 255);
}

/* ---- the pictures -------------------------------------------------------------- */

enum pic_kind { PIC_ORIGINAL, PIC_CRINKLE, PIC_UNCRINKLE, PIC_FLIP, PIC_SHIFT };

static const int64_t shift_by[2] = {40, 24};

static const struct picture {
    const char *file, *caption, *what;
    enum pic_kind kind;
    int dim; /* -1: both dimensions */
} pictures[] = {
    {"original.png", "ORIGINAL", "the generated test image", PIC_ORIGINAL, 0},
    {"crinkle_dim0.png", "CRINKLE:0:2", "crinkle:0:2 (Figure 8, middle)", PIC_CRINKLE, 0},
    {"crinkle_dim1.png", "CRINKLE:1:2", "crinkle:1:2 (Figure 8, right)", PIC_CRINKLE, 1},
    {"crinkle_both.png", "CRINKLE:ALL:2", "crinkle:all:2, both dimensions at once", PIC_CRINKLE, -1},
    {"uncrinkle_dim0.png", "UNCRINKLE:0:2", "uncrinkle:0:2 (Figure 10, middle)", PIC_UNCRINKLE, 0},
    {"uncrinkle_dim1.png", "UNCRINKLE:1:2", "uncrinkle:1:2 (Figure 10, right)", PIC_UNCRINKLE, 1},
    {"flip_dim0.png", "FLIP:0", "flip:0, mirrored left to right", PIC_FLIP, 0},
    {"flip_dim1.png", "FLIP:1", "flip:1, upside down", PIC_FLIP, 1},
    {"shift.png", "SHIFT:40,24", "shift:40,24, periodic (40 right, 24 down)", PIC_SHIFT, 0},
};
enum { NPICS = sizeof pictures / sizeof pictures[0] };

/* Side-by-side figures, as the paper lays them out. */
static const struct montage {
    const char *file, *what;
    int n, pic[5];
} montages[] = {
    {"figure8.png", "Figure 8: original, crinkle:0:2, crinkle:1:2", 3, {0, 1, 2}},
    {"figure10.png", "Figure 10: original, uncrinkle:0:2, uncrinkle:1:2", 3, {0, 4, 5}},
    {"transforms.png", "original, flip:0, flip:1, shift:40,24, crinkle:all:2", 5, {0, 6, 7, 8, 3}},
};

static hl_status plan_of(const struct picture *pic, const hl_shape *s, hl_plan **p)
{
    switch (pic->kind) {
    case PIC_CRINKLE:
        return hl_plan_crinkle(p, s, pic->dim, 2, NULL);
    case PIC_UNCRINKLE:
        return hl_plan_uncrinkle(p, s, pic->dim, 2, NULL);
    case PIC_FLIP:
        return hl_plan_flip(p, s, (uint64_t)1 << pic->dim, NULL);
    case PIC_SHIFT:
        return hl_plan_shift(p, s, shift_by, NULL);
    default:
        return HL_ERR_ARG;
    }
}

/* Where pixel k goes under the picture's op, by the per-element maps
 * (out[map(k)] = in[k]): an independent check of the plan. */
static int64_t map_of(const struct picture *pic, const hl_kindex *ki, const hl_kcrinkle cr[2],
                      const hl_kshift *sh, int64_t k)
{
    switch (pic->kind) {
    case PIC_CRINKLE:
        if (pic->dim < 0) /* crinkles of different dimensions commute */
            return hl_kindex_crinkle(ki, &cr[1], hl_kindex_crinkle(ki, &cr[0], k));
        return hl_kindex_crinkle(ki, &cr[pic->dim], k);
    case PIC_UNCRINKLE:
        return hl_kindex_uncrinkle(ki, &cr[pic->dim], k);
    case PIC_FLIP:
        return hl_kindex_flip(ki, k, (uint64_t)1 << pic->dim);
    case PIC_SHIFT:
        return hl_kindex_shift(ki, sh, k);
    default:
        return k;
    }
}

/* Writes DIR/FILE and lists it with WHAT; the exit code. */
static int write_png(const char *dir, const char *file, const uint8_t *px, int width, int height,
                     const char *what)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s", dir, file) >= (int)sizeof path)
        return cli_error("demo", "--pictures '%s': path too long", dir);
    hl_status st = image_write_png(path, px, width, height, 3, (int64_t)width * PIX);
    if (st != HL_OK)
        return cli_error("demo", "cannot write %s: %s%s%s", path, hl_strerror(st),
                         st == HL_ERR_IO ? ": " : "", st == HL_ERR_IO ? strerror(errno) : "");
    printf("  %-19s %4dx%-4d %s\n", file, width, height, what);
    return 0;
}

/* Panels magnified 2x so that single pixels show, captions underneath. */
static int write_montage(const char *dir, const struct montage *m, uint8_t *const *pics)
{
    enum { ZOOM = 2, GAP = 12, PANEL = SIDE * ZOOM, CAPTION = 7 * 2 + 10 };
    const int width = m->n * PANEL + (m->n + 1) * GAP, height = PANEL + 2 * GAP + CAPTION;
    uint8_t *canvas = malloc((size_t)width * (size_t)height * PIX);
    if (!canvas)
        return cli_error("demo", "%s", hl_strerror(HL_ERR_NOMEM));
    memset(canvas, 236, (size_t)width * (size_t)height * PIX);
    static const uint8_t dark[3] = {30, 30, 30};
    for (int j = 0; j < m->n; j++) {
        const uint8_t *src = pics[m->pic[j]];
        const int x0 = GAP + j * (PANEL + GAP);
        for (int y = 0; y < PANEL; y++)
            for (int x = 0; x < PANEL; x++)
                memcpy(canvas + ((size_t)(GAP + y) * (size_t)width + (size_t)(x0 + x)) * PIX,
                       src + ((size_t)(y / ZOOM) * SIDE + (size_t)(x / ZOOM)) * PIX, PIX);
        const char *cap = pictures[m->pic[j]].caption;
        const int tw = (int)strlen(cap) * 12 - 2;
        draw_text(canvas, width, height, x0 + (PANEL - tw) / 2, GAP + PANEL + 8, 2, cap, dark);
    }
    int rc = write_png(dir, m->file, canvas, width, height, m->what);
    free(canvas);
    return rc;
}

/* ---- Figure 9: the checkerboard cube ------------------------------------------ */

/* An [8,8,8] cube whose cells are coloured as the Ising model's checkerboard
 * update sees them, (x0 + x1 + x2) even or odd, in three panels: standard
 * order, crinkled with step 2 in dimension 0, crinkled in all three.  Each
 * element is the cell's standard k (2 bytes), so that the plans' output is
 * checked against the per-element maps before it is drawn; a cell is then
 * drawn at its place in the re-laid-out array and coloured by the parity of
 * the cell it holds.  Oblique projection: dimension 0 to the right,
 * dimension 1 up, dimension 2 into the page, so the front face is the
 * slice x2 = 0, the first 64 cells in memory.  Under each cube a strip shows
 * memory itself: k = 0 ... 511, one row of 64 cells per slice x2, cells
 * updated in the same half-sweep running together once crinkled.
 * tests/cli/pictures_check.py knows these dimensions. */
enum {
    C9_N = 8,                 /* cells per side */
    C9_CELLS = C9_N * C9_N * C9_N,
    C9_C = 20,                /* front size of a cell, pixels */
    C9_DX = 8, C9_DY = 6,     /* screen offset per cell of depth */
    C9_PW = 290,              /* panel width */
    C9_OX = 40,               /* front-bottom-left corner: panel x + C9_OX */
    C9_BY = 224,              /* ... and y */
    C9_SX = 17, C9_SY = 284,  /* the memory strip's top-left, panel-relative x */
    C9_SCELL = 4,             /* strip cell side; rows C9_SCELL + 1 apart */
    C9_GAP = 12,
    C9_W = C9_GAP + 3 * (C9_PW + C9_GAP), C9_H = 344,
};

/* The two colours of the checkerboard and, per face, their shades: front,
 * top (lit), right (shadowed), edges. */
static const uint8_t c9_base[2][3] = {{32, 52, 128}, {238, 226, 196}};

static void c9_shade(uint8_t out[3], int parity, int face)
{
    for (int c = 0; c < 3; c++) {
        int v = c9_base[parity][c];
        if (face == 1)
            v = v + (255 - v) * 3 / 10;
        else if (face == 2)
            v = v * 70 / 100;
        else if (face == 3)
            v = v * 50 / 100;
        out[c] = (uint8_t)v;
    }
}

static void c9_put(uint8_t *canvas, int x, int y, const uint8_t rgb[3])
{
    if (x >= 0 && y >= 0 && x < C9_W && y < C9_H)
        memcpy(canvas + ((size_t)y * C9_W + (size_t)x) * PIX, rgb, PIX);
}

/* Fills the parallelogram (quadrilateral, convex) of corners P[4] (in order),
 * then draws its edges in EDGE. */
static void c9_face(uint8_t *canvas, const double px[4], const double py[4], const uint8_t fill[3],
                    const uint8_t edge[3])
{
    double x0 = px[0], x1 = px[0], y0 = py[0], y1 = py[0];
    for (int i = 1; i < 4; i++) {
        x0 = px[i] < x0 ? px[i] : x0;
        x1 = px[i] > x1 ? px[i] : x1;
        y0 = py[i] < y0 ? py[i] : y0;
        y1 = py[i] > y1 ? py[i] : y1;
    }
    for (int y = (int)y0; y <= (int)y1; y++)
        for (int x = (int)x0; x <= (int)x1; x++) {
            const double cx = x + 0.5, cy = y + 0.5;
            int pos = 0, neg = 0;
            for (int i = 0; i < 4; i++) {
                const int j = (i + 1) % 4;
                const double cr = (px[j] - px[i]) * (cy - py[i]) - (py[j] - py[i]) * (cx - px[i]);
                pos += cr > 0;
                neg += cr < 0;
            }
            if (!pos || !neg)
                c9_put(canvas, x, y, fill);
        }
    for (int i = 0; i < 4; i++) { /* the edges, one pixel wide */
        const int j = (i + 1) % 4;
        const double dx = px[j] - px[i], dy = py[j] - py[i];
        const int steps = (int)(fabs(dx) > fabs(dy) ? fabs(dx) : fabs(dy));
        for (int t = 0; t <= steps; t++) {
            const double f = steps ? (double)t / steps : 0;
            int ex = (int)floor(px[i] + f * dx), ey = (int)floor(py[i] + f * dy);
            if (ex >= (int)x1)
                ex = (int)x1 - 1; /* the right and bottom edges inside the face */
            if (ey >= (int)y1)
                ey = (int)y1 - 1;
            c9_put(canvas, ex, ey, edge);
        }
    }
}

static void c9_line(uint8_t *canvas, int x0, int y0, int x1, int y1, const uint8_t rgb[3])
{
    const int steps = abs(x1 - x0) > abs(y1 - y0) ? abs(x1 - x0) : abs(y1 - y0);
    for (int t = 0; t <= steps; t++)
        c9_put(canvas, x0 + (x1 - x0) * t / (steps ? steps : 1), y0 + (y1 - y0) * t / (steps ? steps : 1),
               rgb);
}

/* An arrow from (x0, y0) to (x1, y1) with a head of two short strokes. */
static void c9_arrow(uint8_t *canvas, int x0, int y0, int x1, int y1, const uint8_t rgb[3])
{
    c9_line(canvas, x0, y0, x1, y1, rgb);
    const double len = hypot(x1 - x0, y1 - y0), ux = (x1 - x0) / len, uy = (y1 - y0) / len;
    for (int s = -1; s <= 1; s += 2) {
        const double hx = -ux * 6 + s * -uy * 4, hy = -uy * 6 + s * ux * 4;
        c9_line(canvas, x1, y1, x1 + (int)lround(hx), y1 + (int)lround(hy), rgb);
    }
}

/* The parity of the cell whose standard k is K. */
static int c9_parity(int64_t k)
{
    return (int)((k % C9_N + k / C9_N % C9_N + k / (C9_N * C9_N)) & 1);
}

/* Draws one panel at canvas x PX: the cube of CELLS (the re-laid-out array of
 * standard k's), its axes, CAPTION and the memory strip. */
static void c9_panel(uint8_t *canvas, int px, const uint16_t *cells, const char *caption)
{
    static const uint8_t dark[3] = {30, 30, 30};
    const double ox = px + C9_OX, by = C9_BY;
    /* back to front: the visible faces look along +x0, +x1 and -x2 */
    for (int s = 0; s <= 3 * (C9_N - 1); s++)
        for (int x2 = C9_N - 1; x2 >= 0; x2--)
            for (int x1 = 0; x1 < C9_N; x1++) {
                const int x0 = s - x1 - (C9_N - 1 - x2);
                if (x0 < 0 || x0 >= C9_N)
                    continue;
                const int par = c9_parity(cells[x0 + C9_N * (x1 + C9_N * x2)]);
                uint8_t fill[3], edge[3];
                c9_shade(edge, par, 3);
                /* corner (a, b, c) of the cell at screen position */
#define C9X(a, b, c) (ox + (a) * C9_C + (c) * C9_DX)
#define C9Y(a, b, c) (by - (b) * C9_C - (c) * C9_DY)
                const double fx[4] = {C9X(x0, x1, x2), C9X(x0 + 1, x1, x2), C9X(x0 + 1, x1 + 1, x2),
                                      C9X(x0, x1 + 1, x2)};
                const double fy[4] = {C9Y(x0, x1, x2), C9Y(x0 + 1, x1, x2), C9Y(x0 + 1, x1 + 1, x2),
                                      C9Y(x0, x1 + 1, x2)};
                const double tx[4] = {C9X(x0, x1 + 1, x2), C9X(x0 + 1, x1 + 1, x2),
                                      C9X(x0 + 1, x1 + 1, x2 + 1), C9X(x0, x1 + 1, x2 + 1)};
                const double ty[4] = {C9Y(x0, x1 + 1, x2), C9Y(x0 + 1, x1 + 1, x2),
                                      C9Y(x0 + 1, x1 + 1, x2 + 1), C9Y(x0, x1 + 1, x2 + 1)};
                const double rx[4] = {C9X(x0 + 1, x1, x2), C9X(x0 + 1, x1, x2 + 1),
                                      C9X(x0 + 1, x1 + 1, x2 + 1), C9X(x0 + 1, x1 + 1, x2)};
                const double ry[4] = {C9Y(x0 + 1, x1, x2), C9Y(x0 + 1, x1, x2 + 1),
                                      C9Y(x0 + 1, x1 + 1, x2 + 1), C9Y(x0 + 1, x1 + 1, x2)};
#undef C9X
#undef C9Y
                c9_shade(fill, par, 2);
                c9_face(canvas, rx, ry, fill, edge);
                c9_shade(fill, par, 1);
                c9_face(canvas, tx, ty, fill, edge);
                c9_shade(fill, par, 0);
                c9_face(canvas, fx, fy, fill, edge);
            }
    /* the axes, outside the cube */
    const int x0 = px + C9_OX, side = C9_N * C9_C;
    c9_arrow(canvas, x0, C9_BY + 8, x0 + side, C9_BY + 8, dark);
    draw_text(canvas, C9_W, C9_H, x0 + (side - 58) / 2, C9_BY + 13, 2, "DIM 0", dark);
    c9_arrow(canvas, x0 - 8, C9_BY, x0 - 8, C9_BY - side, dark);
    draw_text_up(canvas, C9_W, C9_H, x0 - 30, C9_BY - (side - 58) / 2, 2, "DIM 1", dark);
    c9_arrow(canvas, x0 + side + 8, C9_BY + 2, x0 + side + 8 + C9_N * C9_DX, C9_BY + 2 - C9_N * C9_DY, dark);
    draw_text(canvas, C9_W, C9_H, x0 + side + 4, C9_BY + 13, 2, "DIM 2", dark);
    /* the caption */
    const int tw = (int)strlen(caption) * 12 - 2;
    draw_text(canvas, C9_W, C9_H, px + (C9_PW - tw) / 2, C9_BY + 36, 2, caption, dark);
    /* memory: row x2, cell k mod 64 */
    for (int k = 0; k < C9_CELLS; k++) {
        const int r = k / (C9_N * C9_N), c = k % (C9_N * C9_N);
        uint8_t fill[3];
        c9_shade(fill, c9_parity(cells[k]), 0);
        for (int y = 0; y < C9_SCELL; y++)
            for (int x = 0; x < C9_SCELL; x++)
                c9_put(canvas, px + C9_SX + c * C9_SCELL + x, C9_SY + r * (C9_SCELL + 1) + y, fill);
    }
    draw_text(canvas, C9_W, C9_H, px + C9_SX, C9_SY + C9_N * (C9_SCELL + 1) + 4, 1,
              "MEMORY: K = 0 TO 511, 64 CELLS A ROW", dark);
}

/* Figure 9 into DIR/figure9.png; the exit code. */
static int write_figure9(const char *dir)
{
    const int64_t ext[3] = {C9_N, C9_N, C9_N};
    hl_shape s;
    hl_kindex ki;
    hl_kcrinkle cr[3];
    hl_status st = hl_shape_init(&s, 3, ext, HL_DTYPE_BYTES, 2);
    if (st == HL_OK)
        st = hl_kindex_init(&ki, 3, ext);
    for (int d = 0; d < 3 && st == HL_OK; d++)
        st = hl_kcrinkle_init(&cr[d], &ki, d, 2);
    if (st != HL_OK)
        return cli_error("demo", "figure 9: %s", hl_strerror(st));
    static uint16_t cube[3][C9_CELLS], ref[C9_CELLS];
    for (int k = 0; k < C9_CELLS; k++)
        cube[0][k] = (uint16_t)k;
    static const int dims[2] = {0, -1};
    static const char *const what[2] = {"crinkle:0:2", "crinkle:all:2"};
    for (int j = 0; j < 2; j++) {
        hl_plan *p = NULL;
        st = hl_plan_crinkle(&p, &s, dims[j], 2, NULL);
        if (st == HL_OK)
            st = hl_execute(p, cube[0], cube[j + 1]);
        hl_plan_destroy(p);
        if (st != HL_OK)
            return cli_error("demo", "figure 9, %s: %s", what[j], hl_strerror(st));
        for (int64_t k = 0; k < C9_CELLS; k++) {
            int64_t m = hl_kindex_crinkle(&ki, &cr[0], k);
            if (dims[j] < 0)
                m = hl_kindex_crinkle(&ki, &cr[2], hl_kindex_crinkle(&ki, &cr[1], m));
            ref[m] = (uint16_t)k;
        }
        if (memcmp(ref, cube[j + 1], sizeof ref) != 0)
            return cli_error("demo", "figure 9, %s: the plan's cube differs from the per-element maps'",
                             what[j]);
    }
    uint8_t *canvas = malloc((size_t)C9_W * C9_H * PIX);
    if (!canvas)
        return cli_error("demo", "%s", hl_strerror(HL_ERR_NOMEM));
    memset(canvas, 236, (size_t)C9_W * C9_H * PIX);
    static const char *const caption[3] = {"STANDARD ORDER", "CRINKLE:0:2", "CRINKLE:ALL:2"};
    for (int j = 0; j < 3; j++)
        c9_panel(canvas, C9_GAP + j * (C9_PW + C9_GAP), cube[j], caption[j]);
    int rc = write_png(dir, "figure9.png", canvas, C9_W, C9_H,
                       "Figure 9: [8,8,8] checkerboard, standard, crinkle:0:2, crinkle:all:2");
    free(canvas);
    return rc;
}

int demo_pictures(const char *dir)
{
    /* like mkdir -p: DIR and its missing parents are created */
    if (cli_make_dirs(dir) != 0)
        return cli_error("demo", "--pictures '%s': %s", dir,
                         errno == ENOTDIR ? "not a directory" : strerror(errno));

    const int64_t ext[2] = {SIDE, SIDE};
    hl_shape s;
    hl_kindex ki;
    hl_kcrinkle cr[2];
    hl_kshift sh;
    hl_status st = hl_shape_init(&s, 2, ext, HL_DTYPE_BYTES, PIX);
    if (st == HL_OK)
        st = hl_kindex_init(&ki, 2, ext);
    for (int d = 0; d < 2 && st == HL_OK; d++)
        st = hl_kcrinkle_init(&cr[d], &ki, d, 2);
    if (st == HL_OK)
        st = hl_kshift_init(&sh, &ki, shift_by);
    if (st != HL_OK)
        return cli_error("demo", "%s", hl_strerror(st));

    uint8_t *store = malloc((size_t)(NPICS + 1) * NPIX * PIX);
    if (!store)
        return cli_error("demo", "%s", hl_strerror(HL_ERR_NOMEM));
    uint8_t *pics[NPICS], *ref = store + (size_t)NPICS * NPIX * PIX;
    for (int i = 0; i < NPICS; i++)
        pics[i] = store + (size_t)i * NPIX * PIX;
    make_test_image(pics[0]);

    int rc = 0;
    for (int i = 1; i < NPICS && !rc; i++) {
        hl_plan *p = NULL;
        st = plan_of(&pictures[i], &s, &p);
        if (st == HL_OK)
            st = hl_execute(p, pics[0], pics[i]);
        hl_plan_destroy(p);
        if (st != HL_OK) {
            rc = cli_error("demo", "%s: %s", pictures[i].what, hl_strerror(st));
            break;
        }
        for (int64_t k = 0; k < NPIX; k++)
            memcpy(ref + map_of(&pictures[i], &ki, cr, &sh, k) * PIX, pics[0] + k * PIX, PIX);
        if (memcmp(ref, pics[i], NPIX * PIX) != 0)
            rc = cli_error("demo", "%s: the plan's picture differs from the per-element maps'",
                           pictures[i].what);
    }
    if (!rc) {
        printf("hyperlayout demo: the paper's pictures (seed 000, Figures 8, 9 and 10) on a generated\n"
               "[128,128,bytes3] RGB image, dimension 0 = x, dimension 1 = y (row 0 on top); each\n"
               "one plan run by hl_execute and checked against the per-element maps; in %s:\n",
               dir);
        for (int i = 0; i < NPICS && !rc; i++)
            rc = write_png(dir, pictures[i].file, pics[i], SIDE, SIDE, pictures[i].what);
        for (size_t m = 0; m < sizeof montages / sizeof montages[0] && !rc; m++)
            rc = write_montage(dir, &montages[m], pics);
        if (!rc)
            rc = write_figure9(dir);
    }
    free(store);
    return rc;
}
