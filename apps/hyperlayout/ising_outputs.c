/* hyperlayout ising — after the run: results.csv and results.json, the
 * magnetisation figure, and the plot drawn by plot.py in a child process. */
#define _POSIX_C_SOURCE 200809L /* fork, waitpid */

#include <errno.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "figure.h"
#include "ising_cli.h"
#include "output.h"

/* Runs PYTHON SCRIPT DIR and waits; its exit status (plot.py: 0 drawn, 3 no
 * numpy or matplotlib), or -1 when it could not be run or was killed. */
static int run_plot(const char *python, const char *script, const char *dir)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        execl(python, python, script, dir, (char *)NULL);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) && WEXITSTATUS(status) != 127 ? WEXITSTATUS(status) : -1;
}

/* After the run: results.csv and results.json of the temperatures
 * finished, the magnetisation figure, the plot.  The exit status (130 when
 * interrupted; process 0 writes for all). */
int ising_cli_write_outputs(ising_cli *cl, int me, const ising_params *p,
                            const ising_result *results, int complete, double seconds,
                            const char *ckpath)
{
    const int nt = p->ntemps;
    hl_status st;
    char path[4200];
    /* the results of every finished temperature */
    int finished = complete ? nt : 0;
    while (!complete && finished < nt && results[finished].samples > 0)
        finished++;
    if (me != 0) { /* --procs: the files and messages are process 0's */
        return complete ? 0 : 130;
    }
    ising_run_info info = {cl->variant_name, cl->isa, ising_device_name(cl->device),
                           cl->procs_arg ? 1 : hl_threads_usable((int)cl->threads), seconds,
                           complete, cl->procs_arg ? cl->grid_text : NULL};
    snprintf(path, sizeof path, "%s/results.csv", cl->out);
    st = ising_write_csv(path, p, results, finished);
    if (st == HL_OK) {
        snprintf(path, sizeof path, "%s/results.json", cl->out);
        st = ising_write_json(path, p, &info, results, finished);
    }
    if (st != HL_OK) {
        cli_error(cmd, "%s: %s", path, hl_strerror(st));
        return 1;
    }
    /* 2D at h = 0: |m| against Yang's curve, drawn here (no Python needed) */
    const int figure = cl->dims == 2 && cl->h == 0 && finished >= 2;
    if (figure) {
        snprintf(path, sizeof path, "%s/magnetisation.png", cl->out);
        st = ising_magnetisation_figure(path, results, finished);
        if (st != HL_OK) {
            cli_error(cmd, "%s: %s", path, hl_strerror(st));
            return 1;
        }
    }
    if (!complete) {
        fprintf(stderr, "hyperlayout ising: interrupted; %s holds the state: run again with --resume\n",
                ckpath);
        return 130;
    }
    if (cl->plot < 0)
        cl->plot = nt >= 2;
    int plotted = 0; /* announced only when drawn */
    /* what was drawn all the same, for the lines that say what was not */
    const char *drawn = figure ? "; magnetisation.png was drawn" : "";
    if (cl->plot) {
#if defined(ISING_PYTHON) && defined(ISING_PLOT_SCRIPT)
        /* numpy and matplotlib are looked for now, by plot.py: they may have
         * been installed after hyperlayout was built */
        const int prc = run_plot(ISING_PYTHON, ISING_PLOT_SCRIPT, cl->out);
        plotted = prc == 0;
        if (prc == 3) /* plot.py said which module is missing */
            fprintf(stderr, "hyperlayout ising: no plot drawn for observables.png (%s needs numpy and "
                            "matplotlib); results.csv has the data%s\n",
                    ISING_PYTHON, drawn);
        else if (prc != 0)
            fprintf(stderr, "hyperlayout ising: the plot failed (%s %s %s): no plot drawn for "
                            "observables.png; results.csv has the data%s\n",
                    ISING_PYTHON, ISING_PLOT_SCRIPT, cl->out, drawn);
#else
        (void)run_plot;
        fprintf(stderr, "hyperlayout ising: no Python 3 was found at build time: no plot drawn for "
                        "observables.png; results.csv has the data%s\n",
                drawn);
#endif
    }
    if (!cl->quiet) {
        printf("# %.1f s; results in %s/results.csv and results.json", seconds, cl->out);
        if (figure)
            printf(", |m| against Yang's exact curve in %s/magnetisation.png", cl->out);
        if (plotted)
            printf(", plot in %s/observables.png", cl->out);
        else if (cl->plot)
            printf(", no plot drawn for the observables (see stderr)");
        printf("\n");
    }
    return 0;
}
