/* hyperlayout — the coordinate maps, one row per op. */
#include "coord.h"

#include <inttypes.h>
#include <stdio.h>

#include "hyperlayout/kindex.h"

/* ---- crinkle arithmetic ---------------------------------------------------- */

int64_t hl_crinkle_pos(int64_t L, int64_t n, int64_t x)
{
    const int64_t len = L / n, rem = L % n, q = x / n, r = x % n;
    return r * len + (r < rem ? r : rem) + q;
}

int64_t hl_crinkle_unpos(int64_t L, int64_t n, int64_t p)
{
    const int64_t len = L / n, rem = L % n, split = rem * (len + 1);
    int64_t r, q;
    if (p < split) {
        r = p / (len + 1);
        q = p % (len + 1);
    } else {
        r = rem + (p - split) / len;
        q = (p - split) % len;
    }
    return q * n + r;
}

/* Whether the intervals are exactly [0, L). */
static bool covers(const hl_ival *in, int n, int64_t L)
{
    return n == 1 && in[0].lo == 0 && in[0].hi == L - 1;
}

/* ---- flip: x -> L-1-x ------------------------------------------------------ */

static int flip_print(char *buf, size_t size, hl_coord_map m)
{
    (void)m;
    return snprintf(buf, size, "flip");
}

static int64_t flip_apply(hl_coord_map m, int64_t L, int64_t x)
{
    (void)m;
    return L - 1 - x;
}

static int64_t same_domain(hl_coord_map m, int64_t L)
{
    (void)m;
    return L;
}

static hl_coord_map self_inverse(hl_coord_map m, int64_t L)
{
    (void)L;
    return m;
}

static int flip_merge(hl_coord_map *first, hl_coord_map next, int64_t L)
{
    (void)first;
    (void)L;
    return next.op == HL_COORD_FLIP ? 0 : 2;
}

static bool flip_affine(hl_coord_map m, int64_t L, int64_t lo, int64_t hi, int64_t *sign,
                        int64_t *add)
{
    (void)m;
    (void)lo;
    (void)hi;
    *sign = -1;
    *add = L - 1;
    return true;
}

static bool always(hl_coord_map *m, int64_t L)
{
    (void)m;
    (void)L;
    return true;
}

static bool never(hl_coord_map *m, int64_t L)
{
    (void)m;
    (void)L;
    return false;
}

static int64_t no_step(hl_coord_map m, int64_t L)
{
    (void)m;
    (void)L;
    return 0;
}

static int flip_image(hl_coord_map m, int64_t L, const hl_ival *in, int n, hl_ival *out, int cap)
{
    (void)m;
    if (n > cap)
        return -1;
    for (int t = 0; t < n; t++)
        out[t] = (hl_ival){L - 1 - in[t].hi, L - 1 - in[t].lo};
    return n;
}

/* ---- shift: x -> (x + a) mod L ---------------------------------------------- */

static int shift_print(char *buf, size_t size, hl_coord_map m)
{
    return snprintf(buf, size, "shift+%" PRId64, m.arg);
}

static int64_t shift_apply(hl_coord_map m, int64_t L, int64_t x)
{
    return hl_wrap_add(x, m.arg, L);
}

static int64_t shift_unapply(hl_coord_map m, int64_t L, int64_t y)
{
    return hl_wrap_add(y, m.arg ? L - m.arg : 0, L);
}

static hl_coord_map shift_inverse(hl_coord_map m, int64_t L)
{
    return (hl_coord_map){HL_COORD_SHIFT, m.arg ? L - m.arg : 0, 0};
}

static int shift_merge(hl_coord_map *first, hl_coord_map next, int64_t L)
{
    if (next.op != HL_COORD_SHIFT)
        return 2;
    first->arg = hl_wrap_add(first->arg, next.arg, L);
    return first->arg == 0 ? 0 : 1;
}

static bool shift_affine(hl_coord_map m, int64_t L, int64_t lo, int64_t hi, int64_t *sign,
                         int64_t *add)
{
    *sign = 1;
    if (hi < L - m.arg) {
        *add = m.arg;
        return true;
    }
    if (lo >= L - m.arg) {
        *add = m.arg - L;
        return true;
    }
    if (L == 2) { /* a rotation of two cells swaps them */
        *sign = -1;
        *add = 1;
        return true;
    }
    return false;
}

/* flip then shift a is shift -a then flip (the dihedral relation) */
static bool shift_past_flip(hl_coord_map *m, int64_t L)
{
    m->arg = m->arg ? L - m->arg : 0;
    return true;
}

static int shift_image(hl_coord_map m, int64_t L, const hl_ival *in, int n, hl_ival *out, int cap)
{
    int k = 0;
    for (int t = 0; t < n; t++) {
        const int64_t lo = in[t].lo, hi = in[t].hi, cut = L - m.arg;
        if (k + 2 > cap)
            return -1;
        if (hi < cut) {
            out[k++] = (hl_ival){lo + m.arg, hi + m.arg};
        } else if (lo >= cut) {
            out[k++] = (hl_ival){lo - cut, hi - cut};
        } else {
            out[k++] = (hl_ival){lo + m.arg, L - 1};
            out[k++] = (hl_ival){0, hi - cut};
        }
    }
    return k;
}

/* ---- crinkle and uncrinkle by n ---------------------------------------------- */

static int crinkle_print(char *buf, size_t size, hl_coord_map m)
{
    return snprintf(buf, size, "crinkle/%" PRId64, m.arg);
}

static int uncrinkle_print(char *buf, size_t size, hl_coord_map m)
{
    return snprintf(buf, size, "uncrinkle/%" PRId64, m.arg);
}

static int64_t crinkle_apply(hl_coord_map m, int64_t L, int64_t x)
{
    return hl_crinkle_pos(L, m.arg, x);
}

static int64_t crinkle_unapply(hl_coord_map m, int64_t L, int64_t y)
{
    return hl_crinkle_unpos(L, m.arg, y);
}

static hl_coord_map crinkle_inverse(hl_coord_map m, int64_t L)
{
    (void)L;
    return (hl_coord_map){HL_COORD_UNCRINKLE, m.arg, 0};
}

static hl_coord_map uncrinkle_inverse(hl_coord_map m, int64_t L)
{
    (void)L;
    return (hl_coord_map){HL_COORD_CRINKLE, m.arg, 0};
}

/* A crinkle cancels with its uncrinkle, and with n | L, crinkle by n with
 * crinkle by L/n (both swap the digit groups of L/n and n). */
static int crinkle_merge(hl_coord_map *first, hl_coord_map next, int64_t L)
{
    if (next.op != HL_COORD_CRINKLE && next.op != HL_COORD_UNCRINKLE)
        return 2;
    const bool same = next.op == first->op;
    if ((!same && next.arg == first->arg) || (same && next.arg * first->arg == L))
        return 0;
    return 2;
}

/* on one value every map is a translation */
static bool point_affine(hl_coord_map m, int64_t L, int64_t lo, int64_t hi, int64_t *sign,
                         int64_t *add)
{
    if (lo != hi)
        return false;
    *sign = 1;
    *add = hl_coord_table[m.op].apply(m, L, lo) - lo;
    return true;
}

/* with n | L the crinkle reverses with the array: (n-1-r)*(L/n) + (L/n-1-q) */
static bool crinkle_past_flip(hl_coord_map *m, int64_t L)
{
    return L % m->arg == 0;
}

static int64_t crinkle_step(hl_coord_map m, int64_t L)
{
    return L % m.arg == 0 ? m.arg : 0;
}

/* uncrinkle by n with n | L is the crinkle by L/n */
static int64_t uncrinkle_step(hl_coord_map m, int64_t L)
{
    return L % m.arg == 0 ? L / m.arg : 0;
}

/* Each residue class of an interval lands on consecutive positions. */
static int crinkle_image(hl_coord_map m, int64_t L, const hl_ival *in, int n, hl_ival *out,
                         int cap)
{
    if (covers(in, n, L)) {
        out[0] = in[0];
        return 1;
    }
    const int64_t step = m.arg;
    int k = 0;
    for (int t = 0; t < n; t++) {
        for (int64_t r = 0; r < step && r <= in[t].hi - in[t].lo; r++) {
            int64_t first = in[t].lo + r; /* residues in order from lo */
            int64_t last = in[t].hi - ((in[t].hi - first) % step);
            if (k == cap)
                return -1;
            out[k++] = (hl_ival){hl_crinkle_pos(L, step, first), hl_crinkle_pos(L, step, last)};
        }
    }
    return k;
}

/* An interval of positions is an arithmetic progression of coordinates:
 * only the whole domain stays an interval. */
static int uncrinkle_image(hl_coord_map m, int64_t L, const hl_ival *in, int n, hl_ival *out,
                           int cap)
{
    (void)m;
    (void)cap;
    if (!covers(in, n, L))
        return -1;
    out[0] = in[0];
    return 1;
}

/* ---- offset: x -> x + a into [0, span) -------------------------------------- */

static int offset_print(char *buf, size_t size, hl_coord_map m)
{
    return snprintf(buf, size, "offset+%" PRId64 ":%" PRId64, m.arg, m.span);
}

static int64_t offset_apply(hl_coord_map m, int64_t L, int64_t x)
{
    (void)L;
    return x + m.arg;
}

static int64_t offset_unapply(hl_coord_map m, int64_t L, int64_t y)
{
    (void)L;
    return y - m.arg;
}

static int64_t offset_after(hl_coord_map m, int64_t L)
{
    (void)L;
    return m.span;
}

static hl_coord_map offset_inverse(hl_coord_map m, int64_t L)
{
    return (hl_coord_map){HL_COORD_OFFSET, -m.arg, L};
}

static int offset_merge(hl_coord_map *first, hl_coord_map next, int64_t L)
{
    if (next.op != HL_COORD_OFFSET)
        return 2;
    first->arg += next.arg;
    first->span = next.span;
    return first->arg == 0 && first->span == L ? 0 : 1;
}

static bool offset_affine(hl_coord_map m, int64_t L, int64_t lo, int64_t hi, int64_t *sign,
                          int64_t *add)
{
    (void)L;
    (void)lo;
    (void)hi;
    *sign = 1;
    *add = m.arg;
    return true;
}

static int offset_image(hl_coord_map m, int64_t L, const hl_ival *in, int n, hl_ival *out,
                        int cap)
{
    (void)L;
    if (n > cap)
        return -1;
    for (int t = 0; t < n; t++)
        out[t] = (hl_ival){in[t].lo + m.arg, in[t].hi + m.arg};
    return n;
}

/* ---- the table ---------------------------------------------------------------- */

const hl_coord_info hl_coord_table[HL_COORD_COUNT] = {
    [HL_COORD_FLIP] = {.name = "flip", .print = flip_print, .apply = flip_apply,
                       .unapply = flip_apply, .after = same_domain, .inverse = self_inverse,
                       .merge = flip_merge, .affine = flip_affine, .past_flip = always,
                       .crinkle_step = no_step, .image = flip_image},
    [HL_COORD_SHIFT] = {.name = "shift", .print = shift_print, .apply = shift_apply,
                        .unapply = shift_unapply, .after = same_domain, .inverse = shift_inverse,
                        .merge = shift_merge, .affine = shift_affine,
                        .past_flip = shift_past_flip, .crinkle_step = no_step,
                        .image = shift_image},
    [HL_COORD_CRINKLE] = {.name = "crinkle", .print = crinkle_print, .apply = crinkle_apply,
                          .unapply = crinkle_unapply, .after = same_domain,
                          .inverse = crinkle_inverse, .merge = crinkle_merge,
                          .affine = point_affine, .past_flip = crinkle_past_flip,
                          .crinkle_step = crinkle_step, .image = crinkle_image},
    [HL_COORD_UNCRINKLE] = {.name = "uncrinkle", .print = uncrinkle_print,
                            .apply = crinkle_unapply, .unapply = crinkle_apply,
                            .after = same_domain, .inverse = uncrinkle_inverse,
                            .merge = crinkle_merge, .affine = point_affine,
                            .past_flip = crinkle_past_flip, .crinkle_step = uncrinkle_step,
                            .image = uncrinkle_image},
    [HL_COORD_OFFSET] = {.name = "offset", .print = offset_print, .apply = offset_apply,
                         .unapply = offset_unapply, .after = offset_after,
                         .inverse = offset_inverse, .merge = offset_merge,
                         .affine = offset_affine, .past_flip = never, .crinkle_step = no_step,
                         .image = offset_image},
};

/* ---- public ----------------------------------------------------------------- */

static bool known(hl_coord_op op)
{
    return (unsigned)op < HL_COORD_COUNT;
}

int64_t hl_coord_apply(hl_coord_map m, int64_t L, int64_t x)
{
    return known(m.op) ? hl_coord_table[m.op].apply(m, L, x) : x;
}

int64_t hl_coord_unapply(hl_coord_map m, int64_t L, int64_t y)
{
    return known(m.op) ? hl_coord_table[m.op].unapply(m, L, y) : y;
}

const char *hl_coord_name(hl_coord_op op)
{
    return known(op) ? hl_coord_table[op].name : "unknown";
}

int64_t hl_coord_domain(const hl_layout *lay, int i, int m)
{
    int64_t L = lay->extent[i];
    for (int j = 0; j < m; j++)
        L = hl_coord_table[lay->map[i][j].op].after(lay->map[i][j], L);
    return L;
}
