/* hyperlayout Ising — a plot drawn without any plotting library: the 2D
 * magnetisation |m| against T with error bars, next to Yang's exact curve,
 * as an RGB PNG through image_write_png.  Axes carry tick labels in a 3x5
 * pixel font; the figure needs no Python. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exact.h"
#include "figure.h"
#include "image.h"

enum { W = 720, H = 440, LEFT = 60, RIGHT = 20, TOP = 20, BOTTOM = 50 };

typedef struct canvas {
    uint8_t *px;
    double t0, t1, m0, m1; /* data ranges of the plot area */
} canvas;

static void put(canvas *c, int x, int y, const uint8_t rgb[3])
{
    if (x < 0 || y < 0 || x >= W || y >= H)
        return;
    memcpy(c->px + 3 * (y * W + x), rgb, 3);
}

static void dot(canvas *c, int x, int y, int r, const uint8_t rgb[3])
{
    for (int dy = -r; dy <= r; dy++)
        for (int dx = -r; dx <= r; dx++)
            if (dx * dx + dy * dy <= r * r)
                put(c, x + dx, y + dy, rgb);
}

/* A line by Bresenham's algorithm, `dash` > 0 drawing dash pixels on and off. */
static void line(canvas *c, int x0, int y0, int x1, int y1, const uint8_t rgb[3], int dash)
{
    int dx = abs(x1 - x0), sx = x0 < x1 ? 1 : -1, dy = -abs(y1 - y0), sy = y0 < y1 ? 1 : -1, e = dx + dy;
    for (int i = 0;; i++) {
        if (!dash || (i / dash) % 2 == 0)
            put(c, x0, y0, rgb);
        if (x0 == x1 && y0 == y1)
            break;
        const int e2 = 2 * e;
        if (e2 >= dy) {
            e += dy;
            x0 += sx;
        }
        if (e2 <= dx) {
            e += dx;
            y0 += sy;
        }
    }
}

static int px_t(const canvas *c, double t)
{
    return LEFT + (int)lround((t - c->t0) / (c->t1 - c->t0) * (W - LEFT - RIGHT - 1));
}

static int px_m(const canvas *c, double m)
{
    return H - BOTTOM - (int)lround((m - c->m0) / (c->m1 - c->m0) * (H - TOP - BOTTOM - 1));
}

/* 3x5 glyphs of "0123456789.-Tm|", rows top down, bit 2 = left column. */
static const char glyphs[] = "0123456789.-Tm|";
static const uint8_t font[][5] = {
    {7, 5, 5, 5, 7}, {2, 6, 2, 2, 7}, {7, 1, 7, 4, 7}, {7, 1, 7, 1, 7}, {5, 5, 7, 1, 1},
    {7, 4, 7, 1, 7}, {7, 4, 7, 5, 7}, {7, 1, 1, 1, 1}, {7, 5, 7, 5, 7}, {7, 5, 7, 1, 7},
    {0, 0, 0, 0, 2}, {0, 0, 7, 0, 0}, {7, 2, 2, 2, 2}, {0, 0, 7, 7, 5}, {2, 2, 2, 2, 2},
};

/* Text at (x, y) (top left), each font pixel a 2x2 square. */
static void text(canvas *c, int x, int y, const char *s, const uint8_t rgb[3])
{
    for (; *s; s++, x += 8) {
        const char *g = strchr(glyphs, *s);
        if (!g)
            continue;
        for (int r = 0; r < 5; r++)
            for (int b = 0; b < 3; b++)
                if (font[g - glyphs][r] & (4 >> b))
                    for (int k = 0; k < 4; k++)
                        put(c, x + 2 * b + k % 2, y + 2 * r + k / 2, rgb);
    }
}

static void number(char *buf, double v)
{
    /* one decimal is all the ticks need */
    const long tenths = lround(v * 10);
    const long whole = labs(tenths) / 10, frac = labs(tenths) % 10;
    char *p = buf;
    if (tenths < 0)
        *p++ = '-';
    p += sprintf(p, "%ld", whole);
    if (frac)
        sprintf(p, ".%ld", frac);
}

hl_status ising_magnetisation_figure(const char *path, const ising_result *r, int n)
{
    if (!path || !r)
        return HL_ERR_NULL;
    if (n < 1)
        return HL_ERR_ARG;
    canvas c = {malloc(3 * W * H), INFINITY, -INFINITY, 0, 1.05};
    if (!c.px)
        return HL_ERR_NOMEM;
    memset(c.px, 255, 3 * W * H);
    for (int i = 0; i < n; i++) {
        const double T = 1 / r[i].beta;
        c.t0 = T < c.t0 ? T : c.t0;
        c.t1 = T > c.t1 ? T : c.t1;
    }
    if (!(c.t1 > c.t0)) {
        c.t0 -= 0.5;
        c.t1 += 0.5;
    }
    const double pad = 0.03 * (c.t1 - c.t0);
    c.t0 -= pad;
    c.t1 += pad;
    static const uint8_t black[3] = {0, 0, 0}, grey[3] = {200, 200, 200}, blue[3] = {31, 119, 180},
                         red[3] = {214, 39, 40}, dark[3] = {120, 120, 120};
    char buf[32];
    /* grid and ticks: T every 0.5 (or 0.1 for short ranges), m every 0.2 */
    const double step = c.t1 - c.t0 > 2 ? 0.5 : 0.1;
    for (double t = ceil(c.t0 / step) * step; t <= c.t1; t += step) {
        const int x = px_t(&c, t);
        line(&c, x, TOP, x, H - BOTTOM, grey, 0);
        number(buf, t);
        text(&c, x - 4 * (int)strlen(buf), H - BOTTOM + 8, buf, black);
    }
    for (int k = 0; k <= 5; k++) {
        const int y = px_m(&c, 0.2 * k);
        line(&c, LEFT, y, W - RIGHT, y, grey, 0);
        number(buf, 0.2 * k);
        text(&c, LEFT - 8 * (int)strlen(buf) - 6, y - 5, buf, black);
    }
    line(&c, LEFT, TOP, LEFT, H - BOTTOM, black, 0);
    line(&c, LEFT, H - BOTTOM, W - RIGHT, H - BOTTOM, black, 0);
    text(&c, (LEFT + W - RIGHT) / 2, H - 18, "T", black);
    text(&c, 8, TOP + 4, "|m|", black);
    /* Tc, dashed; Yang's curve */
    const double tc = ising2d_tc();
    if (tc > c.t0 && tc < c.t1)
        line(&c, px_t(&c, tc), TOP, px_t(&c, tc), H - BOTTOM, dark, 4);
    int px = -1, py = -1;
    for (int x = LEFT; x < W - RIGHT; x++) {
        const double t = c.t0 + (double)(x - LEFT) / (W - LEFT - RIGHT - 1) * (c.t1 - c.t0);
        const int y = px_m(&c, ising2d_magnetisation(t));
        if (px >= 0)
            for (int w = -1; w <= 1; w++)
                line(&c, px, py + w, x, y + w, blue, 0);
        px = x;
        py = y;
    }
    /* the simulation: error bars and points */
    for (int i = 0; i < n; i++) {
        const int x = px_t(&c, 1 / r[i].beta);
        const double m = r[i].absm.mean, e = r[i].absm.err;
        const int ylo = px_m(&c, m - e), yhi = px_m(&c, m + e);
        line(&c, x, ylo, x, yhi, red, 0);
        line(&c, x - 3, ylo, x + 3, ylo, red, 0);
        line(&c, x - 3, yhi, x + 3, yhi, red, 0);
        dot(&c, x, px_m(&c, m), 3, red);
    }
    hl_status st = image_write_png(path, c.px, W, H, 3, 3 * W);
    free(c.px);
    return st;
}
