/* hyperlayout transform — re-lays-out a .npy array by a chain of ops, run
 * as one fused plan.  The input is read whole and never modified; the
 * output is written atomically (temporary file, then rename). */
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char transform_usage[] =
    "usage: hyperlayout transform [--threads N] [--explain] IN.npy OUT.npy OP [OP ...]\n"
    "\n"
    "Applies the ops in the order given, fused into one plan (one read of every\n"
    "input element, one write of every output element), and writes OUT.npy\n"
    "atomically.  Dimensions use the library's numbering: 0 is the fastest,\n"
    "which is NumPy's LAST axis; lists give dimension 0 first.\n"
    "\n"
    "  flip:D[,D...]           reverse the listed dimensions\n"
    "  shift:S0,...,S(d-1)     cyclic shift, out[(x+s) mod L] = in[x] (NumPy's roll)\n"
    "  crinkle:D:N             regroup dimension D by residue mod N (1 <= N <= L);\n"
    "  uncrinkle:D:N           D may be 'all'; the inverse\n"
    "  permute:P0,...,P(d-1)   output dimension j is input dimension Pj\n"
    "  tile:T0,...,T(d-1)      whole tiles one after another (tile extents divide extents)\n"
    "  untile:T0,...,T(d-1)    the inverse\n"
    "  morton / unmorton       Morton (Z) order of power-of-two extents, and back\n"
    "\n"
    "  --threads N             OpenMP threads (default: all cores)\n"
    "  --explain               print what the fused plan does (its layouts, boxes, the\n"
    "                          solver of each, threads, in place or not), then run it\n"
    "  -h, --help              this text\n";

/* Parses a comma-separated list of integers into v (at most cap); returns
 * the count or -1. */
static int parse_list(const char *s, int64_t *v, int cap)
{
    int n = 0;
    for (;;) {
        char *end;
        errno = 0;
        long long x = strtoll(s, &end, 10);
        if (end == s || errno == ERANGE || n == cap)
            return -1;
        v[n++] = x;
        if (*end == '\0')
            return n;
        if (*end != ',')
            return -1;
        s = end + 1;
    }
}

/* Builds the plan of one op on `shape`; *why says what is wrong, if anything
 * the library's status does not. */
static hl_status op_plan(const char *text, const hl_shape *shape, const hl_plan_options *opt,
                         hl_plan **plan, char *why, size_t cap)
{
    const int d = shape->rank;
    int64_t v[HL_MAX_RANK + 1];
    const char *colon = strchr(text, ':');
    size_t name_len = colon ? (size_t)(colon - text) : strlen(text);
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
                snprintf(why, cap, "extent %" PRId64 " of dimension %d is not a power of two",
                         shape->extent[i], i);
                return HL_ERR_NOT_POW2;
            }
        return IS("morton") ? hl_plan_morton(plan, shape, opt) : hl_plan_unmorton(plan, shape, opt);
    }
    if (IS("flip")) {
        int n = parse_list(arg, v, HL_MAX_RANK);
        if (n < 1) {
            snprintf(why, cap, "expected flip:D[,D...]");
            return HL_ERR_ARG;
        }
        uint64_t dims = 0;
        for (int j = 0; j < n; j++) {
            if (v[j] < 0 || v[j] >= d) {
                snprintf(why, cap, "dimension %" PRId64 " is not in 0..%d", v[j], d - 1);
                return HL_ERR_DIM;
            }
            dims |= (uint64_t)1 << v[j];
        }
        return hl_plan_flip(plan, shape, dims, opt);
    }
    if (IS("crinkle") || IS("uncrinkle")) {
        const char *second = strchr(arg, ':');
        char *end;
        int dim;
        if (!second) {
            snprintf(why, cap, "expected %.*s:D:N", (int)name_len, text);
            return HL_ERR_ARG;
        }
        if (!strncmp(arg, "all:", 4)) {
            dim = -1;
        } else {
            long long dd = strtoll(arg, &end, 10);
            if (end != second) {
                snprintf(why, cap, "expected %.*s:D:N", (int)name_len, text);
                return HL_ERR_ARG;
            }
            if (dd < 0 || dd >= d) {
                snprintf(why, cap, "dimension %lld is not in 0..%d", dd, d - 1);
                return HL_ERR_DIM;
            }
            dim = (int)dd;
        }
        if (parse_list(second + 1, v, 1) != 1) {
            snprintf(why, cap, "expected %.*s:D:N", (int)name_len, text);
            return HL_ERR_ARG;
        }
        return IS("crinkle") ? hl_plan_crinkle(plan, shape, dim, v[0], opt)
                             : hl_plan_uncrinkle(plan, shape, dim, v[0], opt);
    }
    if (IS("shift") || IS("permute") || IS("tile") || IS("untile")) {
        int n = parse_list(arg, v, HL_MAX_RANK);
        if (n != d) {
            snprintf(why, cap, "needs %d comma-separated values (one per dimension, dimension 0 first)", d);
            return HL_ERR_ARG;
        }
        if (IS("shift"))
            return hl_plan_shift(plan, shape, v, opt);
        if (IS("permute")) {
            int perm[HL_MAX_RANK];
            for (int j = 0; j < d; j++)
                perm[j] = v[j] >= 0 && v[j] < d ? (int)v[j] : -1;
            hl_status st = hl_plan_permute(plan, shape, perm, opt);
            if (st == HL_ERR_ARG)
                snprintf(why, cap, "not a permutation of 0..%d", d - 1);
            return st;
        }
        for (int i = 0; i < d; i++)
            if (v[i] < 1 || shape->extent[i] % v[i]) {
                snprintf(why, cap, "tile extent %" PRId64 " does not divide extent %" PRId64 " of dimension %d",
                         v[i], shape->extent[i], i);
                return HL_ERR_ARG;
            }
        return IS("tile") ? hl_plan_tile(plan, shape, v, opt) : hl_plan_untile(plan, shape, v, opt);
    }
#undef IS
    snprintf(why, cap, "unknown op (see hyperlayout transform --help)");
    return HL_ERR_ARG;
}

/* Prints hl_plan_describe's text on stdout. */
static hl_status explain_plan(const hl_plan *plan)
{
    size_t len;
    hl_status st = hl_plan_describe(plan, NULL, 0, &len);
    char *text = st == HL_OK || st == HL_ERR_BUFFER ? malloc(len + 1) : NULL;
    if (!text)
        return st == HL_OK || st == HL_ERR_BUFFER ? HL_ERR_NOMEM : st;
    st = hl_plan_describe(plan, text, len + 1, NULL);
    if (st == HL_OK)
        fputs(text, stdout);
    free(text);
    return st;
}

int cmd_transform(int argc, char **argv)
{
    const char *files[2] = {NULL, NULL};
    const char **ops = calloc((size_t)argc, sizeof *ops);
    int nfiles = 0, nops = 0, rc = 0;
    bool explain = false;
    hl_plan_options opt = {0};
    if (!ops)
        return cli_error("transform", "%s", hl_strerror(HL_ERR_NOMEM));
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a];
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            fputs(transform_usage, stdout);
            free(ops);
            return 0;
        } else if (!strcmp(arg, "--threads")) {
            char *end;
            long t = a + 1 < argc ? strtol(argv[a + 1], &end, 10) : -1;
            if (a + 1 >= argc || *end != '\0' || t < 1 || t > 4096) {
                free(ops);
                return cli_error("transform", "--threads needs a count from 1 to 4096");
            }
            opt.threads = (int)t;
            a++;
        } else if (!strcmp(arg, "--explain")) {
            explain = true;
        } else if (arg[0] == '-' && arg[1] == '-') {
            free(ops);
            return cli_error("transform", "unknown option '%s' (see hyperlayout transform --help)", arg);
        } else if (nfiles < 2) {
            files[nfiles++] = arg;
        } else {
            ops[nops++] = arg;
        }
    }
    if (nfiles < 2 || nops == 0) {
        free(ops);
        return cli_error("transform", "need IN.npy OUT.npy and at least one OP (see --help)");
    }

    hl_shape shape;
    void *in = NULL, *out = NULL;
    hl_plan **plans = calloc((size_t)nops, sizeof *plans), *chain = NULL;
    hl_status st = plans ? hl_npy_load(files[0], &shape, &in) : HL_ERR_NOMEM;
    if (st != HL_OK) {
        rc = cli_error("transform", "%s: %s", files[0], hl_strerror(st));
        goto done;
    }
    hl_shape cur = shape;
    for (int j = 0; j < nops; j++) {
        char why[160], text[HL_SHAPE_NOTATION_MAX];
        st = op_plan(ops[j], &cur, &opt, &plans[j], why, sizeof why);
        if (st != HL_OK) {
            hl_shape_format(&cur, text, sizeof text);
            rc = cli_error("transform", "op '%s' on %s: %s", ops[j], text,
                              why[0] ? why : hl_strerror(st));
            goto done;
        }
        cur = *hl_plan_out_shape(plans[j]);
    }
    st = hl_plan_compose(&chain, (const hl_plan *const *)plans, nops, &opt);
    if (st == HL_OK && explain)
        st = explain_plan(chain);
    if (st == HL_OK) {
        size_t bytes = (size_t)(hl_plan_out_span(chain) * shape.elem_size);
        out = aligned_alloc(64, (bytes + 63) / 64 * 64);
        st = out ? hl_execute(chain, in, out) : HL_ERR_NOMEM;
    }
    if (st == HL_OK)
        st = hl_npy_save(files[1], hl_plan_out_shape(chain), out);
    if (st != HL_OK)
        rc = cli_error("transform", "%s: %s", files[1], hl_strerror(st));
done:
    for (int j = 0; plans && j < nops; j++)
        hl_plan_destroy(plans[j]);
    hl_plan_destroy(chain);
    free(plans);
    free(ops);
    free(in);
    free(out);
    return rc;
}
