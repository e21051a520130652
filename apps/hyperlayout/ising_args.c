/* hyperlayout ising — the command line read into an ising_cli, and the
 * temperature lists. */
#define _POSIX_C_SOURCE 200809L /* isatty */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ising_cli.h"
#include "parse.h"

/* ---- parsing ---- */

static int parse_double_span(const char *s, const char *stop, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || end != stop || errno == ERANGE || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/* A temperature list: items separated by commas, each X or FROM:TO:STEP.
 * Returns the count, or -1 with *why set. */
static int parse_temps(const char *s, double *v, const char **why)
{
    int n = 0;
    for (;;) {
        const char *comma = strchr(s, ',');
        const char *end = comma ? comma : s + strlen(s);
        const char *c1 = memchr(s, ':', (size_t)(end - s));
        if (!c1) {
            if (n == MAX_TEMPS || parse_double_span(s, end, &v[n]) < 0) {
                *why = n == MAX_TEMPS ? "more than 10000 temperatures" : "not a number";
                return -1;
            }
            n++;
        } else {
            const char *c2 = memchr(c1 + 1, ':', (size_t)(end - c1 - 1));
            double a, b, step;
            if (!c2 || parse_double_span(s, c1, &a) < 0 || parse_double_span(c1 + 1, c2, &b) < 0 ||
                parse_double_span(c2 + 1, end, &step) < 0) {
                *why = "a range is FROM:TO:STEP";
                return -1;
            }
            if (!(step > 0)) {
                *why = "the STEP of a range must be positive";
                return -1;
            }
            /* FROM, FROM +- STEP, ... up to TO, TO included when it is within
             * rounding of a step; either direction */
            const double span = fabs(b - a) / step;
            if (span > MAX_TEMPS) {
                *why = "more than 10000 temperatures";
                return -1;
            }
            const int64_t count = (int64_t)floor(span + 1e-9) + 1;
            for (int64_t i = 0; i < count; i++) {
                if (n == MAX_TEMPS) {
                    *why = "more than 10000 temperatures";
                    return -1;
                }
                v[n++] = a + (b >= a ? 1.0 : -1.0) * (double)i * step;
            }
        }
        if (!comma)
            return n;
        s = comma + 1;
    }
}

/* parse_value's groups answer this for an option that is not theirs. */
enum { NOT_THIS_GROUP = -2 };

/* --L: the comma-separated extents, each even (the checkerboard's two
 * colours must alternate across the periodic boundary).  -1 to go on, else
 * the exit status. */
static int parse_extents(ising_cli *cl, const char *v)
{
    cl->nL = 0;
    for (const char *s = v;;) {
        const char *comma = strchr(s, ',');
        char item[32];
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        if (cl->nL == ISING_MAX_RANK || len == 0 || len >= sizeof item)
            return cli_error(cmd, "--L needs 1 to %d comma-separated extents, not '%s'",
                             ISING_MAX_RANK, v);
        memcpy(item, s, len);
        item[len] = '\0';
        if (parse_i64(item, 1, INT64_MAX, &cl->L[cl->nL]) < 0)
            return cli_error(cmd, "--L: '%s' is not an extent from 1 to 2^63-1", item);
        if (cl->L[cl->nL] % 2)
            return cli_error(cmd,
                             "--L: extent %" PRId64 " is odd; the checkerboard needs even "
                             "extents",
                             cl->L[cl->nL]);
        cl->nL++;
        if (!comma)
            break;
        s = comma + 1;
    }
    return -1;
}

/* --seed: the whole range of the 64-bit key, which parse_i64 cannot hold. */
static int parse_seed(ising_cli *cl, const char *v)
{
    char *end;
    errno = 0;
    unsigned long long s = strtoull(v, &end, 10);
    if (end == v || *end || v[0] == '-')
        return cli_error(cmd, "--seed needs an integer from 0 to 2^64-1, not '%s'", v);
    if (errno == ERANGE)
        return cli_error(cmd, "--seed needs an integer from 0 to 2^64-1: %s is out of range", v);
    cl->seed = s;
    return -1;
}

/* The options whose value is a count in a range. */
static int parse_count(ising_cli *cl, const char *o, const char *v)
{
    const struct {
        const char *name, *what;
        int64_t min, max, *to;
    } counts[] = {
        {"--dims", "a rank", 1, ISING_MAX_RANK, &cl->dims},
        {"--sweeps", "a count", 2, (int64_t)1 << 40, &cl->sweeps},
        {"--therm", "a count", 0, (int64_t)1 << 40, &cl->therm},
        {"--clusters", "a count", 1, (int64_t)1 << 40, &cl->clusters},
        {"--threads", "a count", 0, 4096, &cl->threads}, /* 0: the default, as in the other commands */
    };
    char why[256];
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        if (!strcmp(o, counts[i].name)) {
            if (parse_i64_opt(o, counts[i].what, v, counts[i].min, counts[i].max, counts[i].to, why,
                              sizeof why) < 0)
                return cli_error(cmd, "%s", why);
            return -1;
        }
    return NOT_THIS_GROUP;
}

/* A word and the value it stands for. */
typedef struct {
    const char *word;
    int value;
} choice;

/* The value of word v among the choices (ended by a NULL word) into *value;
 * whether it is one of them. */
static bool choose(const choice *c, const char *v, int *value)
{
    for (; c->word; c++)
        if (!strcmp(v, c->word)) {
            *value = c->value;
            return true;
        }
    return false;
}

/* The options whose value is one word of a few. */
static int parse_choice(ising_cli *cl, const char *o, const char *v)
{
    static const choice starts[] = {
        {"hot", ISING_START_HOT}, {"up", ISING_START_UP}, {"down", ISING_START_DOWN}, {NULL, 0}};
    static const choice variants[] = {{"A", ISING_A}, {"a", ISING_A}, {"B", ISING_B},
                                      {"b", ISING_B}, {"C", ISING_C}, {"c", ISING_C},
                                      {"M", ISING_M}, {"m", ISING_M},
                                      {"reference", ISING_REFERENCE}, {"auto", ISING_AUTO},
                                      {NULL, 0}};
    static const choice devices[] = {
        {"cpu", ISING_DEVICE_CPU}, {"gpu", ISING_DEVICE_GPU}, {NULL, 0}};
    static const choice dynamics[] = {{"metropolis", ISING_METROPOLIS}, {"heatbath", ISING_HEATBATH},
                                      {"wolff", ISING_WOLFF}, {"sw", ISING_SW}, {NULL, 0}};
    int c;
    if (!strcmp(o, "--start")) {
        if (!choose(starts, v, &c))
            return cli_error(cmd, "--start is hot, up or down, not '%s'", v);
        cl->start = (ising_start)c;
    } else if (!strcmp(o, "--variant")) {
        if (!choose(variants, v, &c))
            return cli_error(cmd, "--variant is A, B, C, M, reference or auto, not '%s'", v);
        cl->variant = (ising_variant)c;
    } else if (!strcmp(o, "--device")) {
        if (!choose(devices, v, &c))
            return cli_error(cmd, "--device is cpu or gpu, not '%s'", v);
        cl->device = (ising_device)c;
    } else if (!strcmp(o, "--dynamics") || !strcmp(o, "--algorithm")) { /* one option, two names */
        if (!choose(dynamics, v, &c))
            return cli_error(cmd, "%s is metropolis, heatbath, wolff or sw, not '%s'", o, v);
        cl->dynamics = c;
    } else {
        return NOT_THIS_GROUP;
    }
    return -1;
}

/* The options whose value is text or a number of their own. */
static int parse_other(ising_cli *cl, const char *o, const char *v)
{
    if (!strcmp(o, "--L"))
        return parse_extents(cl, v);
    if (!strcmp(o, "--seed"))
        return parse_seed(cl, v);
    if (!strcmp(o, "--h")) {
        if (parse_double(v, &cl->h) < 0)
            return cli_error(cmd, "--h needs a number, not '%s'", v);
    } else if (!strcmp(o, "--T")) {
        cl->temps = v;
    } else if (!strcmp(o, "--beta")) {
        cl->betas = v;
    } else if (!strcmp(o, "--procs")) {
        cl->procs_arg = v;
    } else if (!strcmp(o, "--out")) {
        if (!v[0])
            return cli_error(cmd, "--out needs a directory");
        cl->out = v;
    } else if (!strcmp(o, "--checkpoint-every")) {
        if (parse_double(v, &cl->every) < 0 || cl->every < 0)
            return cli_error(cmd, "--checkpoint-every needs seconds >= 0, not '%s'", v);
    } else {
        return NOT_THIS_GROUP;
    }
    return -1;
}

/* The value v of option o into cl: -1 to go on, else the exit status. */
static int parse_value(ising_cli *cl, const char *o, const char *v)
{
    /* they choose how one process sweeps: ising_cli_check refuses them with --procs */
    if (!strcmp(o, "--variant") || !strcmp(o, "--threads") || !strcmp(o, "--device"))
        cl->one_process_option = 1;
    int rc = parse_count(cl, o, v);
    if (rc == NOT_THIS_GROUP)
        rc = parse_choice(cl, o, v);
    if (rc == NOT_THIS_GROUP)
        rc = parse_other(cl, o, v);
    if (rc == NOT_THIS_GROUP) /* in value_options but not handled: a bug */
        rc = cli_error(cmd, "option '%s' is not implemented", o);
    return rc;
}

/* The options into cl: -1 to go on, else the exit status (0 after --help). */
int ising_cli_parse(int argc, char **argv, ising_cli *cl)
{
    *cl = (ising_cli){.dims = 0, .L = {64}, .sweeps = 10000, .therm = 1000, .threads = 0, .nL = 1,
                      .snapshot = 1, .plot = -1, .checkpoint = 1,
                      .progress = isatty(STDERR_FILENO), .every = 60, .seed = 1,
                      .out = "ising-out", .variant = ISING_AUTO, .start = ISING_START_HOT,
                      .dynamics = -1, .device = ISING_DEVICE_CPU};
    snprintf(cl->device_label, sizeof cl->device_label, "cpu");
    cl->variant_name = "per-site";
    cl->isa = "generic";
    /* the options that take a value, each handled below */
    static const char *const value_options[] = {"--dims",    "--L",        "--h",       "--start",
                                                "--T",       "--beta",     "--sweeps",  "--therm",
                                                "--seed",    "--variant",  "--dynamics", "--threads",
                                                "--out",     "--checkpoint-every",      "--device",
                                                "--procs",   "--algorithm", "--clusters", NULL};

    for (int a = 1; a < argc; a++) {
        const char *o = argv[a];
        if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
            fputs(ising_usage, stdout);
            fputs(ising_usage_mc, stdout);
            fputs(ising_usage_procs, stdout);
            fputs(ising_usage_more, stdout);
            return 0;
        }
        /* flags without a value */
        if (!strcmp(o, "--series")) {
            cl->series = 1;
            continue;
        }
        if (!strcmp(o, "--no-snapshot")) {
            cl->snapshot = 0;
            continue;
        }
        if (!strcmp(o, "--plot") || !strcmp(o, "--no-plot")) {
            cl->plot = !strcmp(o, "--plot");
            continue;
        }
        if (!strcmp(o, "--no-checkpoint")) {
            cl->checkpoint = 0;
            continue;
        }
        if (!strcmp(o, "--resume")) {
            cl->resume = 1;
            continue;
        }
        if (!strcmp(o, "--force")) {
            cl->force = 1;
            continue;
        }
        if (!strcmp(o, "--progress") || !strcmp(o, "--no-progress")) {
            cl->progress = !strcmp(o, "--progress");
            continue;
        }
        if (!strcmp(o, "--quiet")) {
            cl->quiet = 1;
            continue;
        }
        if (strncmp(o, "--", 2))
            return cli_error(cmd, "unexpected argument '%s' (see hyperlayout ising --help)", o);
        /* an unknown option is reported as such, even as the last argument */
        if (!parse_is_one_of(o, value_options))
            return cli_error(cmd, "unknown option '%s' (see hyperlayout ising --help)", o);
        if (a + 1 >= argc)
            return cli_error(cmd, "%s needs a value (see hyperlayout ising --help)", o);
        const int rc = parse_value(cl, o, argv[++a]);
        if (rc >= 0)
            return rc;
    }
    return -1;
}

/* The temperatures of --T or --beta into T and beta (MAX_TEMPS each): their
 * count, or -1 after saying why. */
int ising_cli_temperatures(const ising_cli *cl, double *T, double *beta)
{
    const char *why = NULL;
    int nt = parse_temps(cl->temps ? cl->temps : cl->betas, cl->temps ? T : beta, &why);
    if (nt < 0) {
        cli_error(cmd, "%s '%s': %s", cl->temps ? "--T" : "--beta", cl->temps ? cl->temps : cl->betas,
                  why);
        return -1;
    }
    for (int i = 0; i < nt; i++) {
        if (cl->temps) {
            if (!(T[i] > 0)) {
                cli_error(cmd, "--T: temperature %g is not positive", T[i]);
                return -1;
            }
            beta[i] = 1 / T[i];
        } else {
            if (!(beta[i] >= 0)) {
                cli_error(cmd, "--beta: %g is negative", beta[i]);
                return -1;
            }
            T[i] = beta[i] > 0 ? 1 / beta[i] : (double)INFINITY;
        }
    }
    return nt;
}
