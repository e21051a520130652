/* hyperlayout info — what a .npy file holds, in NumPy's terms and in
 * hyperlayout's: shape and descr, notation, extents L0 first, sizes. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char info_usage[] =
    "usage: hyperlayout info FILE.npy\n"
    "\n"
    "Reads the header of a NumPy .npy file (format version 1.0, 2.0 or 3.0) and\n"
    "prints, one per line:\n"
    "  file          the path\n"
    "  format        .npy version\n"
    "  numpy shape   the shape as NumPy prints it, most significant first\n"
    "  numpy descr   the dtype as NumPy writes it (e.g. '<f4', '|V12')\n"
    "  notation      the hyperlayout shape, e.g. [4096,4095,float32]\n"
    "  rank          number of dimensions\n"
    "  extents       L0 first: L0 is NumPy's last axis, the fastest varying\n"
    "  N             number of elements\n"
    "  element size  bytes per element\n"
    "  data bytes    N * element size\n"
    "  data offset   where the data starts in the file (the header's size)\n"
    "  file bytes    the file's size\n"
    "\n"
    "Supported: C order, little-endian bool, int8..int64, uint8..uint64,\n"
    "float16/32/64, complex64/128 and void (|V<n>, shown as bytesN).  A file that\n"
    "is malformed, truncated or uses another feature (Fortran order, big-endian,\n"
    "object or structured dtype, 0-d or empty array) is a one-line error on\n"
    "stderr and exit status 2.\n"
    "\n"
    "  -h, --help   this text\n";

int cmd_info(int argc, char **argv)
{
    const char *file = NULL;
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a];
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            fputs(info_usage, stdout);
            return 0;
        }
        if (!strcmp(arg, "--")) {
            if (a + 1 < argc && !file)
                file = argv[++a];
            if (a + 1 < argc)
                return cli_error("info", "one FILE only (see hyperlayout info --help)");
            break;
        }
        if (arg[0] == '-' && arg[1] != '\0')
            return cli_error("info", "unknown option '%s' (see hyperlayout info --help)", arg);
        if (file)
            return cli_error("info", "one FILE only (see hyperlayout info --help)");
        file = arg;
    }
    if (!file)
        return cli_error("info", "no FILE given (see hyperlayout info --help)");

    hl_npy_info info;
    errno = 0;
    hl_status st = hl_npy_read_header(file, &info);
    if (st == HL_ERR_IO && errno != 0)
        return cli_error("info", "%s: %s (%s)", file, hl_strerror(st), strerror(errno));
    if (st != HL_OK)
        return cli_error("info", "%s: %s", file, hl_strerror(st));

    const hl_shape *s = &info.shape;
    char notation[HL_SHAPE_NOTATION_MAX];
    st = hl_shape_format(s, notation, sizeof notation);
    if (st != HL_OK)
        return cli_error("info", "%s: %s", file, hl_strerror(st));

    printf("file          %s\n", file);
    printf("format        .npy version %d.%d\n", info.version_major, info.version_minor);
    printf("numpy shape   (");
    for (int i = s->rank - 1; i >= 0; i--)
        printf("%" PRId64 "%s", s->extent[i], i > 0 ? ", " : s->rank == 1 ? "," : "");
    printf(")\n");
    printf("numpy descr   '%s'\n", info.descr);
    printf("notation      %s\n", notation);
    printf("rank          %d\n", s->rank);
    printf("extents       {");
    for (int i = 0; i < s->rank; i++)
        printf("%s%" PRId64, i ? ", " : "", s->extent[i]);
    printf("}  (L0 first)\n");
    printf("N             %" PRId64 "\n", hl_shape_count(s));
    printf("element size  %" PRId64 "\n", s->elem_size);
    printf("data bytes    %" PRId64 "\n", info.data_bytes);
    printf("data offset   %" PRId64 "\n", info.data_offset);
    if (info.file_bytes >= 0)
        printf("file bytes    %" PRId64 "\n", info.file_bytes);
    if (fflush(stdout) != 0 || ferror(stdout))
        return 2;
    return 0;
}
