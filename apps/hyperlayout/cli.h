/* hyperlayout CLI — shared declarations of the subcommands. */
#ifndef CLI_H
#define CLI_H

#include "hyperlayout.h"

/* Each subcommand gets argv from its own name on and returns the exit code. */
int cmd_demo(int argc, char **argv);
int cmd_dist(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_ising(int argc, char **argv);
int cmd_stencil(int argc, char **argv);
int cmd_transform(int argc, char **argv);
int cmd_walker(int argc, char **argv);

/* demo --pictures DIR: writes the paper's pictures into DIR; the exit code. */
int demo_pictures(const char *dir);

/* Prints "hyperlayout CMD: MESSAGE" on stderr (nothing while cli_quiet is
 * set: the processes of an MPI run other than the first); returns 2 for
 * `return` chains. */
extern int cli_quiet;
int cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* mkdir -p: creates PATH and its missing parents; 0, or -1 with errno set
 * (ENOTDIR when PATH or a parent is there but no directory). */
int cli_make_dirs(const char *path);

/* Parses a shape given on the command line; the brackets may be left out
 * ("16,16,16" reads as "[16,16,16]"), which spares quoting in the shell. */
hl_status cli_parse_shape(hl_shape *s, const char *arg);

#endif
