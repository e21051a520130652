/* hyperlayout ising — the run directory (--out): an earlier run found,
 * refused or cleared, and the checkpoint that --resume continues. */
#define _POSIX_C_SOURCE 200809L /* opendir, access */

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ising_cli.h"
#include "parse.h"
#ifdef HL_HAVE_MPI
#include "ising_mpi.h"
#endif

/* ---- output directory ---- */

/* ---- an earlier run in the output directory ---- */

/* Whether s is at least min characters, all decimal digits. */
static int all_digits(const char *s, size_t len, size_t min)
{
    if (len < min)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

/* Whether name, a file name in --out, is one this command writes: the fixed
 * names, snapshot_NNN.png and series_NNN.csv, and the temporaries that their
 * atomic writes leave behind when killed (".NAME.XXXXXX" of hl_atomic_file,
 * plot.py's ".observables.*.png").  Nothing else in the directory is ours. */
static int is_run_file(const char *name)
{
    static const char *const fixed[] = {"results.csv",     "results.json",      "checkpoint.bin",
                                        "observables.png", "magnetisation.png", NULL};
    static const struct {
        const char *prefix, *suffix;
    } numbered[] = {{"snapshot_", ".png"}, {"series_", ".csv"}};
    if (parse_is_one_of(name, fixed))
        return 1;
    const size_t n = strlen(name);
    /* --procs: the checkpoint's spins, and the NAME.XXXXXX temporaries their
     * collective writes left before they went through src/io/atomic.c
     * (.NAME.XXXXXX, below) */
    if (!strncmp(name, "checkpoint_spins_", 17) && (name[17] == '0' || name[17] == '1') &&
        !strncmp(name + 18, ".npy", 4) &&
        (name[22] == '\0' || (name[22] == '.' && strlen(name + 23) == 6)))
        return 1;
    for (size_t i = 0; i < sizeof numbered / sizeof numbered[0]; i++) {
        const size_t lp = strlen(numbered[i].prefix), ls = strlen(numbered[i].suffix);
        if (n > lp + ls && !strncmp(name, numbered[i].prefix, lp) &&
            !strcmp(name + n - ls, numbered[i].suffix) && all_digits(name + lp, n - lp - ls, 3))
            return 1;
    }
    if (name[0] == '.' && n > 8 && name[n - 7] == '.') { /* .NAME.XXXXXX */
        char inner[256];
        if (n - 8 < sizeof inner) {
            memcpy(inner, name + 1, n - 8);
            inner[n - 8] = '\0';
            if (inner[0] != '.' && is_run_file(inner))
                return 1;
        }
    }
    return n > 17 && !strncmp(name, ".observables.", 13) && !strcmp(name + n - 4, ".png");
}

/* Counts the files of an earlier run in dir and, with remove set, deletes
 * them (only those: anything else there is the user's).  -1 with errno set
 * when the directory cannot be read or a file not removed. */
static int earlier_run(const char *dir, int remove)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int count = 0, fail = 0;
    char path[4400];
    for (struct dirent *e; (e = readdir(d));) {
        if (!is_run_file(e->d_name))
            continue;
        count++;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (remove && unlink(path) < 0 && errno != ENOENT)
            fail = errno;
    }
    closedir(d);
    if (fail) {
        errno = fail;
        return -1;
    }
    return count;
}

/* --out made ready by process 0 (a new run must not overwrite an earlier
 * one's checkpoint and results unasked), and with --procs said to all: 0
 * or the exit status. */
int ising_cli_prepare_out(const ising_cli *cl, int me, const char *ckpath)
{
    int rc = 0;
    /* --procs: process 0 alone looks at and prepares the directory, and says
     * how it went to all */
    if (me != 0)
        goto prepared;
    if (cli_make_dirs(cl->out) < 0) {
        rc = cli_error(cmd, "--out %s: %s", cl->out, strerror(errno));
        goto prepared;
    }
    if (cl->resume && access(ckpath, R_OK) < 0) {
        rc = cli_error(cmd, "--resume: %s: %s", ckpath, strerror(errno));
        goto prepared;
    }
    /* A new run must not overwrite an earlier one's checkpoint and results
     * unasked, nor leave its other files (snapshots of temperatures this run
     * has not, series) beside the new ones: refuse, or with --force clear
     * them first (so that none is left even if this run stops early). */
    if (!cl->resume) {
        const int earlier = earlier_run(cl->out, cl->force);
        if (earlier < 0) {
            rc = cli_error(cmd, "--out %s: %s", cl->out, strerror(errno));
            goto prepared;
        }
        if (earlier > 0 && !cl->force) {
            rc = cli_error(cmd,
                           "--out %s holds an earlier run: continue it with --resume, or replace it "
                           "with --force (or choose another --out)",
                           cl->out);
            goto prepared;
        }
    }
prepared:
#ifdef HL_HAVE_MPI
    if (cl->procs_arg)
        MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
#endif
    return rc;
}

/* --resume: the checkpoint is this run's (process 0 reads it, all are
 * told): 0 or the exit status. */
int ising_cli_check_resume(const ising_cli *cl, int me, const ising_params *p, const char *ckpath)
{
    int rc = 0;
    hl_status st;
    if (cl->resume && me == 0) {
        st = cl->procs_arg ? ising_checkpoint_check_dist(ckpath, p) : ising_checkpoint_check(ckpath, p);
        if (st == HL_ERR_UNSUPPORTED) {
            rc = cli_error(cmd,
                           cl->procs_arg ? "--resume: %s was written by a one-process run: resume it "
                                       "without --procs"
                                     : "--resume: %s was written by a run across processes: resume "
                                       "it with mpirun and --procs",
                           ckpath);
            goto checked;
        }
        if (st == HL_ERR_MISMATCH) {
            rc = cli_error(cmd,
                           "--resume: %s is of another run (lattice, temperatures, sweeps, seed, start, "
                           "--algorithm or --clusters differ, or one of the runs is variant M)",
                           ckpath);
            goto checked;
        }
        if (st != HL_OK) {
            rc = cli_error(cmd, "--resume: %s: %s", ckpath,
                           st == HL_ERR_IO ? strerror(errno)
                                           : "not a checkpoint, or damaged (truncated, or changed "
                                             "since it was written: its length or checksum is wrong)");
            goto checked;
        }
    }
checked:
#ifdef HL_HAVE_MPI
    if (cl->procs_arg)
        MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
#endif
    return rc;
}
