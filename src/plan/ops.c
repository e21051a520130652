/* hyperlayout — the op grammar (hyperlayout/ops.h), in the library's
 * dimension numbering or NumPy's axes. */
#include "hyperlayout/ops.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A comma-separated list of integers into v (at most cap); the count, or
 * -1 for text that is not such a list, -2 for a number out of int64. */
static int parse_list(const char *s, int64_t *v, int cap)
{
    int n = 0;
    for (;;) {
        char *end;
        errno = 0;
        long long x = strtoll(s, &end, 10);
        if (end == s || n == cap || (*end != '\0' && *end != ','))
            return -1;
        if (errno == ERANGE)
            return -2;
        v[n++] = x;
        if (*end == '\0')
            return n;
        s = end + 1;
    }
}

/* The library's dimension of dimension or axis v of a rank-d array. */
static hl_status dim_of(int64_t v, int d, bool numpy_axes, int *dim, char *why, size_t cap)
{
    if (numpy_axes) {
        if (v < -d || v >= d) {
            snprintf(why, cap, "axis %" PRId64 " is out of bounds for an array of %d dimension%s", v,
                     d, d == 1 ? "" : "s");
            return HL_ERR_DIM;
        }
        *dim = d - 1 - (int)(v < 0 ? v + d : v);
        return HL_OK;
    }
    if (v < 0 || v >= d) {
        snprintf(why, cap, "dimension %" PRId64 " is not in 0..%d%s", v, d - 1,
                 v < 0 ? " (NumPy's negative axes need --axes numpy)" : "");
        return HL_ERR_DIM;
    }
    *dim = (int)v;
    return HL_OK;
}

/* A list of one value per dimension, dimension 0 first whatever the order
 * it was written in. */
static hl_status per_dim(const char *arg, int d, bool numpy_axes, int64_t *v, char *why, size_t cap)
{
    int64_t w[HL_MAX_RANK + 1];
    int n = parse_list(arg, w, HL_MAX_RANK + 1);
    if (n == -2) {
        snprintf(why, cap, "a value is out of range");
        return HL_ERR_RANGE;
    }
    if (n != d) {
        snprintf(why, cap, "needs %d comma-separated values (one per %s)", d,
                 numpy_axes ? "axis, axis 0 first" : "dimension, dimension 0 first");
        return HL_ERR_ARG;
    }
    for (int j = 0; j < d; j++)
        v[j] = numpy_axes ? w[d - 1 - j] : w[j];
    return HL_OK;
}

static hl_status flip_problem(const char *arg, const hl_shape *shape, bool numpy_axes,
                              hl_problem **pr, char *why, size_t cap)
{
    int64_t v[HL_MAX_RANK + 1];
    int n = parse_list(arg, v, HL_MAX_RANK + 1);
    if (n < 1 || n > shape->rank) {
        snprintf(why, cap, n == -2 ? "a value is out of range" : "expected flip:D[,D...]");
        return HL_ERR_ARG;
    }
    uint64_t dims = 0;
    for (int j = 0; j < n; j++) {
        int dim;
        hl_status st = dim_of(v[j], shape->rank, numpy_axes, &dim, why, cap);
        if (st != HL_OK)
            return st;
        if (dims >> dim & 1) {
            snprintf(why, cap, "repeated %s %" PRId64, numpy_axes ? "axis" : "dimension", v[j]);
            return HL_ERR_ARG;
        }
        dims |= (uint64_t)1 << dim;
    }
    return hl_problem_flip(pr, shape, dims);
}

static hl_status crinkle_problem(const char *name, const char *arg, const hl_shape *shape,
                                 bool numpy_axes, hl_problem **pr, char *why, size_t cap)
{
    const char *second = strchr(arg, ':');
    int64_t step;
    if (!second || parse_list(second + 1, &step, 1) != 1) {
        snprintf(why, cap, "expected %s:D:N (D may be 'all')", name);
        return HL_ERR_ARG;
    }
    int dim = -1;
    if (strncmp(arg, "all:", 4)) {
        char *end;
        errno = 0;
        long long x = strtoll(arg, &end, 10);
        if (end != second || errno == ERANGE) {
            snprintf(why, cap, "expected %s:D:N (D may be 'all')", name);
            return HL_ERR_ARG;
        }
        hl_status st = dim_of(x, shape->rank, numpy_axes, &dim, why, cap);
        if (st != HL_OK)
            return st;
    }
    if (step < 1) {
        snprintf(why, cap, "the step N must be at least 1");
        return HL_ERR_ARG;
    }
    return name[0] == 'c' ? hl_problem_crinkle(pr, shape, dim, step)
                          : hl_problem_uncrinkle(pr, shape, dim, step);
}

static hl_status permute_problem(const char *arg, const hl_shape *shape, bool numpy_axes,
                                 hl_problem **pr, char *why, size_t cap)
{
    const int d = shape->rank;
    int64_t v[HL_MAX_RANK];
    hl_status st = per_dim(arg, d, false, v, why, cap);
    if (st != HL_OK)
        return st;
    int perm[HL_MAX_RANK];
    for (int j = 0; j < d; j++) {
        /* NumPy's transpose: output axis i is input axis axes[i] */
        int64_t p = numpy_axes ? v[d - 1 - j] : v[j];
        int dim = -1;
        if (dim_of(p, d, numpy_axes, &dim, why, cap) != HL_OK)
            dim = -1;
        perm[j] = dim;
    }
    st = hl_problem_permute(pr, shape, perm);
    if (st == HL_ERR_ARG)
        snprintf(why, cap, "not a permutation of %s",
                 numpy_axes ? "the axes (each once, negative allowed)" : "0..d-1");
    return st;
}

static hl_status one_op(const char *text, const hl_shape *shape, bool numpy_axes,
                        hl_problem **pr, char *why, size_t cap)
{
    const int d = shape->rank;
    int64_t v[HL_MAX_RANK];
    const char *colon = strchr(text, ':');
    const size_t name_len = colon ? (size_t)(colon - text) : strlen(text);
    const char *arg = colon ? colon + 1 : "";
    why[0] = '\0';
#define IS(name) (name_len == strlen(name) && !strncmp(text, name, name_len))
    if (IS("morton") || IS("unmorton")) {
        if (colon) {
            snprintf(why, cap, "takes no arguments");
            return HL_ERR_ARG;
        }
        for (int i = 0; i < d; i++)
            if (shape->extent[i] & (shape->extent[i] - 1)) {
                snprintf(why, cap, "extent %" PRId64 " of %s %d is not a power of two",
                         shape->extent[i], numpy_axes ? "axis" : "dimension",
                         numpy_axes ? d - 1 - i : i);
                return HL_ERR_NOT_POW2;
            }
        return IS("morton") ? hl_problem_morton(pr, shape) : hl_problem_unmorton(pr, shape);
    }
    if (IS("copy")) { /* the identity: a format conversion (.npy to HDF5...) moves no element */
        if (colon) {
            snprintf(why, cap, "takes no arguments");
            return HL_ERR_ARG;
        }
        int perm[HL_MAX_RANK];
        for (int i = 0; i < d; i++)
            perm[i] = i;
        return hl_problem_permute(pr, shape, perm);
    }
    if (IS("flip"))
        return flip_problem(arg, shape, numpy_axes, pr, why, cap);
    if (IS("crinkle") || IS("uncrinkle"))
        return crinkle_problem(IS("crinkle") ? "crinkle" : "uncrinkle", arg, shape, numpy_axes, pr,
                               why, cap);
    if (IS("permute"))
        return permute_problem(arg, shape, numpy_axes, pr, why, cap);
    if (IS("shift") || IS("tile") || IS("untile")) {
        hl_status st = per_dim(arg, d, numpy_axes, v, why, cap);
        if (st != HL_OK)
            return st;
        if (IS("shift"))
            return hl_problem_shift(pr, shape, v);
        for (int i = 0; i < d; i++)
            if (v[i] < 1 || shape->extent[i] % v[i]) {
                snprintf(why, cap, "tile extent %" PRId64 " does not divide extent %" PRId64 " of %s %d",
                         v[i], shape->extent[i], numpy_axes ? "axis" : "dimension",
                         numpy_axes ? d - 1 - i : i);
                return HL_ERR_ARG;
            }
        return IS("tile") ? hl_problem_tile(pr, shape, v) : hl_problem_untile(pr, shape, v);
    }
#undef IS
    snprintf(why, cap, "unknown op (see hyperlayout transform --help)");
    return HL_ERR_ARG;
}

/* why and cap as the callers give them, or a local buffer. */
#define WHY_BUFFER(why, cap)                                                                       \
    char local_why[256];                                                                           \
    if (!(why) || (cap) == 0) {                                                                    \
        (why) = local_why;                                                                         \
        (cap) = sizeof local_why;                                                                  \
    }                                                                                              \
    (why)[0] = '\0'

hl_status hl_problem_op(hl_problem **pr, const hl_shape *shape, const char *text, unsigned flags,
                        char *why, size_t cap)
{
    WHY_BUFFER(why, cap);
    if (!pr || !shape || !text)
        return HL_ERR_NULL;
    *pr = NULL;
    return one_op(text, shape, flags & HL_OPS_NUMPY_AXES, pr, why, cap);
}

/* Length of the op starting at s (up to white space). */
static size_t op_length(const char *s)
{
    size_t n = 0;
    while (s[n] && !isspace((unsigned char)s[n]))
        n++;
    return n;
}

hl_status hl_problem_ops(hl_problem **pr, const hl_shape *shape, const char *ops, unsigned flags,
                         char *why, size_t cap)
{
    WHY_BUFFER(why, cap);
    if (!pr || !shape || !ops)
        return HL_ERR_NULL;
    *pr = NULL;
    /* an op is at least two characters and a separator apart from the next */
    const size_t most = strlen(ops) / 2 + 1;
    hl_problem **steps = calloc(most, sizeof *steps);
    char *text = malloc(strlen(ops) + 1);
    hl_status st = steps && text ? HL_OK : HL_ERR_NOMEM;
    hl_shape cur = *shape;
    int n = 0;
    for (const char *s = ops; st == HL_OK;) {
        while (isspace((unsigned char)*s))
            s++;
        if (!*s)
            break;
        const size_t len = op_length(s);
        memcpy(text, s, len);
        text[len] = '\0';
        s += len;
        char reason[256];
        st = one_op(text, &cur, flags & HL_OPS_NUMPY_AXES, &steps[n], reason, sizeof reason);
        if (st != HL_OK) {
            char notation[HL_SHAPE_NOTATION_MAX];
            if (hl_shape_format(&cur, notation, sizeof notation) != HL_OK)
                notation[0] = '\0';
            snprintf(why, cap, "op '%s' on %s: %s", text, notation,
                     reason[0] ? reason : hl_strerror(st));
            break;
        }
        cur = *hl_problem_out_shape(steps[n++]);
    }
    if (st == HL_OK && n == 0) /* no op: the identity, as the op copy */
        st = one_op("copy", shape, false, &steps[n++], why, cap);
    if (st == HL_OK)
        st = hl_problem_chain(pr, (const hl_problem *const *)steps, n);
    for (int j = 0; steps && j < n; j++)
        hl_problem_destroy(steps[j]);
    free(steps);
    free(text);
    return st;
}

/* Plans the problem built (st its status), which it destroys. */
static hl_status plan_problem(hl_plan **plan, hl_status st, hl_problem *pr,
                              const hl_plan_options *opt)
{
    if (st == HL_OK)
        st = hl_plan_problem(plan, pr, opt);
    hl_problem_destroy(pr);
    return st;
}

hl_status hl_plan_op(hl_plan **plan, const hl_shape *shape, const char *text, unsigned flags,
                     const hl_plan_options *opt, char *why, size_t cap)
{
    if (!plan)
        return HL_ERR_NULL;
    *plan = NULL;
    hl_problem *pr = NULL;
    const hl_status st = hl_problem_op(&pr, shape, text, flags, why, cap);
    return plan_problem(plan, st, pr, opt);
}

hl_status hl_plan_ops(hl_plan **plan, const hl_shape *shape, const char *ops, unsigned flags,
                      const hl_plan_options *opt, char *why, size_t cap)
{
    if (!plan)
        return HL_ERR_NULL;
    *plan = NULL;
    hl_problem *pr = NULL;
    const hl_status st = hl_problem_ops(&pr, shape, ops, flags, why, cap);
    return plan_problem(plan, st, pr, opt);
}
