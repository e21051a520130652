/* hyperlayout — the command-line tool: dispatches to one subcommand. */
#define _POSIX_C_SOURCE 200809L /* mkdir, stat */

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "hyperlayout/expert.h"
#include "atomic_file.h"
#include "cli.h"

static const char usage[] =
    "usage: hyperlayout <command> [options] [arguments]\n"
    "\n"
    "Stores and re-lays-out rectilinear arrays of any rank (dimension 0 fastest;\n"
    "shapes are written most significant first: [L2,L1,L0] or [L2,L1,L0,type]).\n"
    "\n"
    "commands:\n"
    "  demo [SHAPE ...]   the k-index apparatus at work on the given shapes\n"
    "                     (default: the paper's examples)\n"
    "  demo --pictures DIR\n"
    "                     the paper's Figures 8, 9 and 10 as PNG files in DIR\n"
    "  dist SPEC SHAPE    how a distribution (block,cyclic:4,none or upc:[3][2])\n"
    "                     deals an array to processes: grid, shares, owner map\n"
    "  info FILE.npy      shape, type and sizes of a NumPy .npy file (or .npz members,\n"
    "                     or an HDF5 file's datasets: FILE.h5, FILE.h5:/DATASET)\n"
    "  ising --T LIST [options]\n"
    "                     the Ising model in 1..8 dimensions on the crinkled\n"
    "                     checkerboard: a temperature sweep with error bars\n"
    "  stencil IN.npy OUT.npy [options]\n"
    "                     seed 004's tiled stencil with logical indices, over\n"
    "                     a grid of tiles on OpenMP threads, cached or not\n"
    "  transform IN.npy OUT.npy OP [OP ...]\n"
    "                     re-lay-out an array: flip, shift, crinkle, permute,\n"
    "                     tile, morton and their inverses, fused into one pass\n"
    "  walker [options]   the Dirichlet SDE benchmark of seed 002: the Ptr, Par\n"
    "                     and Prop variants, timed and checked against each other\n"
    "  help [COMMAND]     this text, or COMMAND --help\n"
    "\n"
    "options:\n"
    "  -h, --help         this text\n"
    "  --version          the version\n"
    "\n"
    "Files: .npy, ARCHIVE.npz:NAME, and HDF5 datasets FILE.h5:/GROUP/DATASET\n"
    "wherever a file is accepted.  `hyperlayout COMMAND --help` documents each\n"
    "command.\n";

int cli_quiet;

int cli_error(const char *cmd, const char *fmt, ...)
{
    if (cli_quiet)
        return 2;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "hyperlayout %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 2;
}

int cli_make_dirs(const char *path)
{
    char buf[4096];
    if (strlen(path) >= sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(buf, path);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            const char c = *p;
            *p = '\0';
            if (mkdir(buf, 0777) < 0 && errno != EEXIST)
                return -1;
            *p = c;
            if (c == '\0')
                break;
        }
    }
    struct stat sb;
    if (stat(path, &sb) < 0)
        return -1;
    if (!S_ISDIR(sb.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

hl_status cli_parse_shape(hl_shape *s, const char *arg)
{
    if (arg[0] == '[' || arg[0] == '\0')
        return hl_shape_parse(s, arg);
    char buf[1024];
    if (snprintf(buf, sizeof buf, "[%s]", arg) >= (int)sizeof buf)
        return HL_ERR_SYNTAX;
    return hl_shape_parse(s, buf);
}

/* The subcommands; a new one is one line here, one in cli.h and its usage line. */
static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} commands[] = {
    {"demo", cmd_demo},
    {"dist", cmd_dist},
    {"info", cmd_info},
    {"ising", cmd_ising},
    {"stencil", cmd_stencil},
    {"transform", cmd_transform},
    {"walker", cmd_walker},
};

static int (*find_command(const char *name))(int, char **)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(commands[i].name, name))
            return commands[i].run;
    return NULL;
}

static bool asks_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return true;
    return false;
}

int main(int argc, char **argv)
{
    hl_atomic_install_cleanup();
    if (argc < 2) {
        fputs("hyperlayout: no command given (see hyperlayout --help)\n", stderr);
        return 2;
    }
    const char *cmd = argv[1];
    /* help with no command, and help's own --help, print this usage */
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") ||
        (!strcmp(cmd, "help") &&
         (argc == 2 || !strcmp(argv[2], "-h") || !strcmp(argv[2], "--help")))) {
        fputs(usage, stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        printf("hyperlayout %s\n", hl_version());
        return 0;
    }
    if (!strcmp(cmd, "help")) {
        int (*run)(int, char **) = find_command(argv[2]);
        if (!run)
            return cli_error("help", "unknown command '%s' (see hyperlayout --help)", argv[2]);
        char help[] = "--help";
        char *sub[] = {argv[2], help, NULL};
        return run(2, sub);
    }
    int (*run)(int, char **) = find_command(cmd);
    if (run) {
        /* a bad HL_ISA would fail the first plan: say so before any work,
         * with the value, unless only help is asked for */
        const char *isa = NULL;
        if (!asks_help(argc - 1, argv + 1) && hl_isa_setting(&isa) != HL_OK)
            return cli_error(cmd, "HL_ISA=%s: not a level this CPU and build have (generic, sse2, avx2, "
                                  "avx512 on x86-64, neon on aarch64, or auto)",
                             isa);
        return run(argc - 1, argv + 1);
    }
    fprintf(stderr, "hyperlayout: unknown command '%s' (see hyperlayout --help)\n", cmd);
    return 2;
}
