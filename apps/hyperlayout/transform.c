/* hyperlayout transform — re-lays-out a .npy array by a chain of ops, run
 * as one fused plan.  The input is mapped, never modified; the output is
 * produced range by range through one small buffer and written atomically
 * (temporary file, then rename), so the memory used is the input's plus
 * the buffer's. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "bigbuf.h"
#include "cli.h"
#include "h5_cli.h"
#include "npy_sink.h"
#include "npy_source.h"
#include "parse.h"
#include "progress.h"
#include "transform.h"
#include "transform_gpu.h"

/* What --help prints: the usage, the ops and the options most runs use;
 * --help-all (and the man page, docs/cli.md) has the rest. */
static const char transform_short[] =
    "usage: hyperlayout transform [options] IN OUT OP [OP ...]\n"
    "       hyperlayout transform --in-place [options] FILE OP [OP ...]\n"
    "\n"
    "Applies the ops, fused into one pass, to IN and writes OUT atomically.  IN and\n"
    "OUT: FILE.npy, ARCHIVE.npz[:NAME], FILE.h5[:/DATASET] or '-'.  Dimension 0 is\n"
    "the fastest (NumPy's last axis); --axes numpy numbers them as NumPy does.\n"
    "\n"
    "ops\n"
    "  flip:D[,D...]  shift:S0,...  crinkle:D:N  uncrinkle:D:N  permute:P0,...\n"
    "  tile:T0,...  untile:T0,...  morton  unmorton  copy (the identity)\n"
    "\n"
    "options\n"
    "  --axes numpy|hyperlayout  how ops number dimensions (default hyperlayout)\n"
    "  --order C|F             OUT in C order (default) or Fortran order\n"
    "  --in-place              rewrite FILE through a temporary renamed over it\n"
    "  --threads N             OpenMP threads (default, and 0: all cores)\n"
    "  --effort estimate|measure  the cost model (default), or time the candidates\n"
    "  --wisdom FILE           read and update what measuring learnt\n"
    "  --explain               print what the fused plan does, then run it\n"
    "  --time                  print the phases (read, plan, execute, write)\n"
    "  --h5-mode replace|append  an HDF5 OUT: a new file, or a dataset added\n"
    "  --procs GRID            across processes, under mpirun -np P\n"
    "  -h, --help              this text; --help-all: every option\n"
    "\n"
    "More: hyperlayout transform --help-all, man hyperlayout (section transform),\n"
    "docs/cli.md.\n";

static const char transform_usage[] =
    "usage: hyperlayout transform [options] IN OUT OP [OP ...]\n"
    "       hyperlayout transform --in-place[=unsafe] [options] FILE OP [OP ...]\n"
    "\n"
    "Applies the ops in the order given, fused into one plan (one read of every\n"
    "input element, one write of every output element).  IN is never modified;\n"
    "OUT is written atomically (a temporary beside it, renamed over it when\n"
    "complete; removed on any error or on SIGINT, SIGTERM, SIGHUP).  IN and OUT\n"
    "may be '-' (standard input / output); OUT may be a FIFO or a device, written\n"
    "through; a symbolic link is followed and its target replaced.  An existing OUT\n"
    "must be writable by you, and is locked while it is replaced: runs writing one\n"
    "file take turns (two --in-place runs on a file both take effect).  Files are\n"
    ".npy of any version, C or Fortran order and any dtype (big-endian and\n"
    "structured ones are moved as whole elements, bytes unchanged); ARCHIVE.npz:NAME\n"
    "reads one array of an .npz (NAME may be left out when it holds one; '-:NAME'\n"
    "for an archive on standard input), checked against its CRC-32.  OUT ending in\n"
    ".npz writes a one-array archive (member arr_0); OUT ARCHIVE.npz:NAME writes\n"
    "member NAME, every other member of an existing ARCHIVE kept as it was.\n"
    "IN and OUT may be HDF5 datasets, FILE.h5:/GROUP/DATASET (.h5, .hdf5, .he5;\n"
    "FILE.h5 alone: its only dataset as IN, /data as OUT): read slab by slab,\n"
    "written range by range (hyperslabs); an HDF5 IN's element type and\n"
    "attributes are kept in an HDF5 OUT (docs/hdf5.md).\n"
    "\n"
    "Dimensions use the library's numbering: 0 is the fastest, which is NumPy's\n"
    "LAST axis; lists give dimension 0 first.  With --axes numpy they are NumPy's\n"
    "axes (negative ones too) and lists go in NumPy's order.\n"
    "\n"
    "  flip:D[,D...]           reverse the listed dimensions (np.flip)\n"
    "  shift:S0,...,S(d-1)     cyclic shift, out[(x+s) mod L] = in[x] (np.roll)\n"
    "  crinkle:D:N             regroup dimension D by residue mod N (1 <= N <= L);\n"
    "  uncrinkle:D:N           D may be 'all'; the inverse\n"
    "  permute:P0,...,P(d-1)   output dimension j is input dimension Pj\n"
    "                          (with --axes numpy: np.transpose's axes)\n"
    "  tile:T0,...,T(d-1)      whole tiles one after another (tile extents divide extents)\n"
    "  untile:T0,...,T(d-1)    the inverse\n"
    "  morton / unmorton       Morton (Z) order of power-of-two extents, and back\n"
    "  copy                    the array as it is (a format conversion, e.g. to HDF5)\n"
    "\n";
/* (two strings: a C99 compiler need accept no literal longer than 4095 bytes) */
static const char transform_options[] =
    "  --axes numpy|hyperlayout  how ops number dimensions (default hyperlayout)\n"
    "  --order C|F             OUT in C order (default) or Fortran order\n"
    "  --in-place, --in-place=safe  rewrite FILE (or FILE.npz:NAME): through a\n"
    "                          temporary renamed over it\n"
    "  --in-place=unsafe       transform FILE in its own pages (no second copy on\n"
    "                          disk or in memory); NOT atomic: an interruption leaves\n"
    "                          it half done.  Only ops that can run in place\n"
    "  --threads N             OpenMP threads (default, and 0: all cores)\n"
    "  --no-verify             read stored .npz members without checking their\n"
    "                          CRC-32 (a pass over the data; deflated ones are\n"
    "                          always checked as they inflate)\n"
    "  --effort estimate|measure  planning effort: the cost model (default), or time\n"
    "                          the candidates of each transpose box and keep the\n"
    "                          fastest (tens of ms per box; the output is the same)\n"
    "  --wisdom FILE           read what earlier measuring learnt from FILE before\n"
    "                          planning (if FILE exists), and write it back, with\n"
    "                          what this run learnt, atomically after a successful run\n"
    "  --explain               print what the fused plan does (its layouts, boxes, the\n"
    "                          solver of each, threads, in place or not), then run it\n"
    "                          (on stderr when OUT is '-')\n"
    "  --progress              a progress line on stderr (default: on a terminal, for\n"
    "                          work longer than a second)\n"
    "  --quiet                 no progress line\n"
    "  --time                  print the phases (read, plan, execute, write) on stderr\n"
    "  --device cpu|gpu        where the plan runs (default cpu).  gpu: the first CUDA\n"
    "                          device; the input is uploaded whole, the output made\n"
    "                          whole beside it or range by range, downloaded and\n"
    "                          written (--time shows upload, execute and download)\n"
    "  --procs GRID            across processes (under mpirun -np P): IN is read\n"
    "                          collectively into blocks over the process grid GRID\n"
    "                          (slowest dimension first, as 2,2,1 or 2x2x1; one\n"
    "                          number P: slabs of the slowest dimension), moved\n"
    "                          between processes and transformed in one pass, and\n"
    "                          OUT written collectively (the same bytes as without\n"
    "                          --procs).  C-order numeric .npy files and HDF5\n"
    "                          datasets (read and written collectively)\n"
    "  -h, --help              the short text; --help-all: this text\n";

typedef struct {
    double read, plan, execute, write;
    gpu_phases gpu; /* --device gpu: execute is gpu.execute */
    int64_t bytes;
} phases;

/* Output ranges of this many bytes: small next to the arrays the tool is
 * for, big enough that a range's run and its write call cost nothing
 * extra. */
enum { RANGE_BYTES = 16 << 20 };

/* What the options cannot do together.  -1: go on; otherwise the exit
 * code. */
static int check_args(const transform_args *a)
{
    if (!a->out || a->nops == 0)
        return cli_error("transform", "need %s and at least one OP (copy: none; see --help)",
                         a->in_place ? "FILE" : "IN OUT");
    if (a->in_place && (!strcmp(a->in, "-") || !strncmp(a->in, "-:", 2)))
        return cli_error("transform", "--in-place needs a file, not '-'");
    char f[8], d[8];
    if (a->in_place && h5_path(a->in, f, sizeof f, d, sizeof d))
        return cli_error("transform", "--in-place is not supported for HDF5 datasets (write "
                                      "another dataset, e.g. with --h5-mode append)");
    const int rc = h5_check_output("transform", a->in, a->out, &a->h5);
    if (rc >= 0)
        return rc;
    if (a->wisdom && a->procs)
        return cli_error("transform", "--wisdom is not supported with --procs");
    if (a->gpu && (a->procs || a->in_place == IN_PLACE_UNSAFE))
        return cli_error("transform", "--device gpu runs in one process, out of the file's pages "
                                      "(not with --procs or --in-place=unsafe)");
    return -1;
}

/* -1: go on; otherwise the exit code. */
static int parse_args(int argc, char **argv, transform_args *a)
{
    int nfiles = 0, rc;
    const char *files[2] = {NULL, NULL};
    bool options_end = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (options_end || arg[0] != '-' || !strcmp(arg, "-") || !strncmp(arg, "-:", 2)) {
            if (nfiles < (a->in_place ? 1 : 2))
                files[nfiles++] = arg;
            else
                a->ops[a->nops++] = arg;
        } else if (!strcmp(arg, "--")) {
            options_end = true;
        } else if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            fputs(transform_short, stdout);
            return 0;
        } else if (!strcmp(arg, "--help-all")) {
            fputs(transform_usage, stdout);
            fputs(transform_options, stdout);
            fputs(h5_options_help, stdout);
            return 0;
        } else if (!strcmp(arg, "--threads")) {
            int64_t t;
            if (!value)
                return cli_error("transform", "--threads needs a value");
            if (parse_i64(value, 0, 4096, &t) != 0)
                return cli_error("transform", "--threads '%s': expected a count from 0 (all cores) to 4096", value);
            a->opt.threads = (int)t;
            i++;
        } else if (!strcmp(arg, "--effort")) {
            if (!value || (strcmp(value, "estimate") && strcmp(value, "measure")))
                return cli_error("transform", "--effort needs 'estimate' or 'measure'");
            a->opt.effort = !strcmp(value, "measure") ? HL_EFFORT_MEASURE : HL_EFFORT_ESTIMATE;
            i++;
        } else if (!strcmp(arg, "--wisdom")) {
            if (!value || !value[0])
                return cli_error("transform", "--wisdom needs a file");
            a->wisdom = value;
            i++;
        } else if (!strcmp(arg, "--axes")) {
            if (!value || (strcmp(value, "numpy") && strcmp(value, "hyperlayout")))
                return cli_error("transform", "--axes needs 'numpy' or 'hyperlayout'");
            a->numpy_axes = !strcmp(value, "numpy");
            i++;
        } else if (!strcmp(arg, "--order")) {
            if (!value || (strcmp(value, "C") && strcmp(value, "F")))
                return cli_error("transform", "--order needs 'C' or 'F'");
            a->fortran_out = value[0] == 'F';
            i++;
        } else if (!strcmp(arg, "--in-place") || !strcmp(arg, "--in-place=safe")) {
            a->in_place = IN_PLACE_SAFE;
        } else if (!strcmp(arg, "--in-place=unsafe")) {
            a->in_place = IN_PLACE_UNSAFE;
        } else if (!strcmp(arg, "--no-verify")) {
            a->no_verify = true;
        } else if (!strcmp(arg, "--explain")) {
            a->explain = true;
        } else if (!strcmp(arg, "--progress")) {
            a->progress = PROGRESS_ALWAYS;
        } else if (!strcmp(arg, "--quiet")) {
            a->progress = PROGRESS_NEVER;
        } else if (!strcmp(arg, "--device")) {
            if (!value || (strcmp(value, "cpu") && strcmp(value, "gpu")))
                return cli_error("transform", "--device needs 'cpu' or 'gpu'");
            a->gpu = !strcmp(value, "gpu");
            i++;
        } else if (!strcmp(arg, "--time")) {
            a->timing = true;
        } else if (!strcmp(arg, "--procs")) {
            if (!value)
                return cli_error("transform", "--procs needs a process grid (e.g. 2,2,1)");
            a->procs = value;
            i++;
        } else if ((rc = h5_parse_option("transform", argc, argv, &i, &a->h5)) >= 0) {
            if (rc > 0)
                return rc;
        } else {
            return cli_error("transform", "unknown option '%s' (see hyperlayout transform --help)", arg);
        }
    }
    if (a->in_place && nfiles == 2) /* --in-place given after IN OUT */
        return cli_error("transform", "--in-place takes one FILE (see --help)");
    a->in = files[0];
    a->out = a->in_place ? files[0] : files[1];
    return check_args(a);
}

/* Prints hl_plan_describe's text. */
static hl_status explain_plan(const hl_plan *plan, FILE *to)
{
    size_t len;
    hl_status st = hl_plan_describe(plan, NULL, 0, &len);
    char *text = st == HL_OK || st == HL_ERR_BUFFER ? malloc(len + 1) : NULL;
    if (!text)
        return st == HL_OK || st == HL_ERR_BUFFER ? HL_ERR_NOMEM : st;
    st = hl_plan_describe(plan, text, len + 1, NULL);
    if (st == HL_OK)
        fputs(text, to);
    free(text);
    return st;
}

/* Whether the ranges of a plan read far more pages than they use: an
 * output range of a transpose reads a little of every input row.  With
 * 4 KiB file pages every such read is a TLB miss (a 2 GiB transpose ran
 * 13 s instead of 1 s), so such inputs are moved onto huge pages first. */
static bool ranges_scatter(const hl_plan *p)
{
    int64_t count;
    const hl_plan *first = hl_plan_range(p, 0, NULL, &count);
    if (!first || hl_plan_ranges(p) < 2)
        return false;
    return hl_plan_pages_read(first, 4096) / 8 > count * hl_plan_elem_size(p) / 4096;
}

/* A plan of several stages: all but the last run here, through one buffer
 * of the largest intermediate (two when there are three or more stages);
 * *mid gets what the last stage reads.  The buffers are the caller's to
 * free (mid_buf, mid_bytes each). */
static hl_status run_first_stages(const hl_plan *chain, const void *in, const void **mid,
                                  unsigned char *mid_buf[2], size_t *mid_bytes)
{
    const int k = hl_plan_stages(chain);
    const int64_t elem = hl_plan_elem_size(chain);
    int64_t most = 0;
    for (int i = 0; i < k - 1; i++) {
        const int64_t span = hl_plan_out_span(hl_plan_stage(chain, i));
        most = span > most ? span : most;
    }
    *mid_bytes = (size_t)(most * elem);
    for (int b = 0; b < (k > 2 ? 2 : 1); b++)
        if (!(mid_buf[b] = bigbuf_alloc(*mid_bytes)))
            return HL_ERR_NOMEM;
    const void *from = in;
    for (int i = 0; i < k - 1; i++) {
        const hl_status st = hl_execute(hl_plan_stage(chain, i), from, mid_buf[i % 2]);
        if (st != HL_OK)
            return st;
        from = mid_buf[i % 2];
    }
    *mid = from;
    return HL_OK;
}

/* The output range by range through one buffer, each range planned with
 * the plan (plans that run cell by cell have no ranges: the whole output
 * then goes through one buffer).  A plan of several stages runs its first
 * stages into buffers of the intermediate's size and its last range by
 * range, so that the memory is the input, the intermediate and the range
 * buffer (not a scratch array besides a whole output). */
static hl_status run_ranges(const hl_plan *chain, npy_source *src, npy_sink *sink, progress *pr,
                            phases *ph, char *why, size_t cap)
{
    const int stages = hl_plan_stages(chain);
    const hl_plan *last = hl_plan_stage(chain, stages - 1);
    const int64_t elem = hl_plan_elem_size(chain), n = hl_plan_out_span(chain);
    const int nranges = hl_plan_ranges(last);
    int64_t range = n;
    if (nranges > 0)
        (void)hl_plan_range(last, 0, NULL, &range);
    /* the data must also be aligned for the kernel's loads: an .npz
     * member may start anywhere */
    if ((uintptr_t)src->data % 64 != 0 || (stages == 1 && ranges_scatter(chain))) {
        double t0 = now_seconds();
        if (npy_source_to_memory(src) != HL_OK) {
            snprintf(why, cap, "%s", strerror(errno));
            return HL_ERR_NOMEM;
        }
        ph->read += now_seconds() - t0;
    }
    const void *in = src->data;
    unsigned char *mid[2] = {NULL, NULL};
    size_t mid_bytes = 0;
    hl_status st = HL_OK;
    if (stages > 1) {
        const double t0 = now_seconds();
        st = run_first_stages(chain, in, &in, mid, &mid_bytes);
        ph->execute += now_seconds() - t0;
        if (st != HL_OK)
            snprintf(why, cap, "%s", st == HL_ERR_NOMEM ? strerror(ENOMEM) : hl_strerror(st));
    }
    unsigned char *buf = st == HL_OK ? bigbuf_alloc((size_t)(range * elem)) : NULL;
    if (st == HL_OK && !buf) {
        snprintf(why, cap, "%s", strerror(errno));
        st = HL_ERR_NOMEM;
    }
    for (int r = 0; st == HL_OK && r < (nranges > 0 ? nranges : 1); r++) {
        int64_t first = 0, count = n;
        const hl_plan *part = nranges > 0 ? hl_plan_range(last, r, &first, &count) : last;
        double t0 = now_seconds();
        st = hl_execute(part, in, buf);
        double t1 = now_seconds();
        ph->execute += t1 - t0;
        if (st != HL_OK) {
            snprintf(why, cap, "%s", hl_strerror(st));
            break;
        }
        st = npy_sink_write(sink, buf, (size_t)(count * elem), why, cap);
        ph->write += now_seconds() - t1;
        progress_update(pr, (first + count) * elem);
    }
    bigbuf_free(buf, (size_t)(range * elem));
    for (int b = 0; b < 2; b++)
        bigbuf_free(mid[b], mid_bytes);
    return st;
}

/* --in-place=unsafe: the plan runs in the file's own pages, then the new
 * header is written over the old one (padded to its length). */
static hl_status run_unsafe(const hl_plan *chain, npy_source *src, const hl_npy_info *oi,
                            phases *ph, char *why, size_t cap)
{
    unsigned char header[NPY_HEADER_CAP];
    size_t hlen;
    hl_status st = hl_npy_format_header_info(oi, (size_t)src->info.data_offset, header,
                                             sizeof header, &hlen);
    if (st != HL_OK) {
        snprintf(why, cap, "the new header does not fit in the old one's %" PRId64 " bytes: %s",
                 src->info.data_offset, hl_strerror(st));
        return st;
    }
    if ((uintptr_t)src->data % 64 != 0) { /* the kernel's loads need aligned cells */
        snprintf(why, cap, "its data starts at byte %" PRId64 ", not a multiple of 64: use --in-place",
                 src->info.data_offset);
        return HL_ERR_UNSUPPORTED;
    }
    double t0 = now_seconds();
    st = hl_execute(chain, src->data, src->data);
    ph->execute = now_seconds() - t0;
    if (st == HL_ERR_IN_PLACE) {
        snprintf(why, cap, "these ops cannot run in place (use --in-place, which writes a new file)");
        return st;
    }
    if (st != HL_OK) {
        snprintf(why, cap, "%s", hl_strerror(st));
        return st;
    }
    t0 = now_seconds();
    memcpy(src->map, header, hlen);
    if (msync(src->map, src->map_len, MS_SYNC) != 0) {
        snprintf(why, cap, "%s", strerror(errno));
        st = HL_ERR_IO;
    }
    ph->write = now_seconds() - t0;
    return st;
}

static void print_times(const phases *ph, double total)
{
    const double gb = 1e-9 * (double)ph->bytes;
    fprintf(stderr, "read     %8.3f s  %.3f GB\n", ph->read, gb);
    fprintf(stderr, "plan     %8.3f s\n", ph->plan);
    fprintf(stderr, "execute  %8.3f s  %.2f GB/s (read and written)\n", ph->execute,
            ph->execute > 0 ? 2 * gb / ph->execute : 0.0);
    if (ph->gpu.upload > 0) {
        fprintf(stderr, "upload   %8.3f s  %.2f GB/s (to the GPU)\n", ph->gpu.upload,
                gb / ph->gpu.upload);
        fprintf(stderr, "download %8.3f s  %.2f GB/s (from the GPU)\n", ph->gpu.download,
                ph->gpu.download > 0 ? gb / ph->gpu.download : 0.0);
    }
    fprintf(stderr, "write    %8.3f s  %.2f GB/s\n", ph->write,
            ph->write > 0 ? gb / ph->write : 0.0);
    fprintf(stderr, "total    %8.3f s\n", total);
}

/* --wisdom FILE before planning: refused now if it could not be written at
 * the end, and read when it exists.  -1: go on; otherwise the exit code. */
static int wisdom_in(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode))
        return cli_error("transform", "--wisdom %s: not a regular file (a wisdom file is read "
                         "whole and replaced)", path);
    if (stat(path, &sb) == 0 && (uint64_t)sb.st_size > HL_WISDOM_FILE_MAX)
        return cli_error("transform", "--wisdom %s: %lld bytes, more than the %zu MiB a wisdom "
                         "file may hold", path, (long long)sb.st_size, HL_WISDOM_FILE_MAX >> 20);
    hl_atomic_file *f;
    if (hl_atomic_file_open(&f, path) != HL_OK)
        return cli_error("transform", "--wisdom %s: cannot write: %s", path, strerror(errno));
    hl_atomic_file_abort(f);
    const hl_status st = hl_wisdom_import_file(path);
    if (st == HL_OK || (st == HL_ERR_IO && errno == ENOENT))
        return -1;
    if (st == HL_ERR_IO)
        return cli_error("transform", "--wisdom %s: cannot read: %s", path, strerror(errno));
    if (st == HL_ERR_SYNTAX)
        return cli_error("transform", "--wisdom %s: not a hyperlayout wisdom file (malformed)", path);
    if (st == HL_ERR_UNSUPPORTED)
        return cli_error("transform", "--wisdom %s: wisdom of another format version (this "
                         "hyperlayout reads version %d)", path, HL_WISDOM_VERSION);
    return cli_error("transform", "--wisdom %s: %s", path, hl_strerror(st));
}

/* --wisdom FILE after a successful run: written atomically, with what other
 * runs added to it meanwhile (read again under the file's lock, held from
 * that read to the rename).  A file that did not exist has no lock to
 * take: when another run put one in place first (EEXIST at the commit),
 * the merge is done again under that file's lock, so that concurrent runs
 * all add their wisdom and none fails. */
static int wisdom_out(const char *path)
{
    hl_status st = HL_OK;
    for (int attempt = 0; attempt < 100; attempt++) {
        hl_atomic_file *f;
        char *text = NULL;
        if (hl_atomic_file_open(&f, path) != HL_OK)
            return cli_error("transform", "--wisdom %s: cannot write: %s", path, strerror(errno));
        (void)hl_wisdom_import_file(path); /* a file damaged meanwhile is replaced */
        st = hl_wisdom_export(&text);
        if (st == HL_OK && hl_atomic_file_write(f, text, strlen(text)) != HL_OK)
            st = HL_ERR_IO;
        free(text);
        if (st != HL_OK) {
            const int e = errno;
            hl_atomic_file_abort(f);
            errno = e;
        } else {
            st = hl_atomic_file_commit(f);
        }
        if (!(st == HL_ERR_IO && errno == EEXIST))
            break;
    }
    if (st == HL_OK)
        return 0;
    if (st == HL_ERR_IO)
        return cli_error("transform", "--wisdom %s: cannot write: %s", path, strerror(errno));
    return cli_error("transform", "--wisdom %s: %s", path, hl_strerror(st));
}

/* transform without --procs: what one run holds. */
typedef struct {
    npy_source src;
    npy_sink sink;
    hl_plan *chain;
    hl_npy_info oi; /* the output's header */
    char why[1024];
} local_job;

/* The output first: when it is the input too, its lock keeps other runs
 * from replacing it between our read and our write.  Then the input. */
static hl_status local_open(const transform_args *a, local_job *j, phases *ph, double start)
{
    hl_status st = HL_OK;
    if (a->in_place != IN_PLACE_UNSAFE &&
        (st = npy_sink_open(&j->sink, a->out, j->why, sizeof j->why)) != HL_OK)
        return st;
    ph->write = now_seconds() - start;
    j->sink.h5opt = a->h5;
    const double t0 = now_seconds();
    char h5f[8], h5d[8];
    if (h5_path(a->in, h5f, sizeof h5f, h5d, sizeof h5d)) {
        st = h5_source_open(&j->src, a->in, j->why, sizeof j->why);
        j->sink.like = j->src.h5;
        j->sink.like_scalar = j->src.h5 && hl_h5_reader_info(j->src.h5)->ndim == 0;
    } else {
        st = npy_source_open(&j->src, a->in,
                             (a->in_place == IN_PLACE_UNSAFE ? NPY_SOURCE_SHARED : 0) |
                                 (a->no_verify ? NPY_SOURCE_NO_VERIFY : 0),
                             j->why, sizeof j->why);
    }
    ph->read = now_seconds() - t0;
    return st;
}

/* The chain's plan and the output's header. */
static hl_status local_plan(const transform_args *a, local_job *j, phases *ph)
{
    const double t0 = now_seconds();
    /* in the file's own pages there is no output to cut; the GPU cuts its own */
    const int64_t elem = j->src.info.shape.elem_size;
    const int64_t range =
        a->in_place == IN_PLACE_UNSAFE || a->gpu ? 0 : (RANGE_BYTES + elem - 1) / elem;
    hl_shape logical;
    const hl_status st = chain_plan(a, &j->src.info, range, &j->chain, &logical, j->why,
                                    sizeof j->why);
    ph->plan = now_seconds() - t0;
    j->oi = j->src.info;
    j->oi.shape = logical;
    j->oi.fortran_order = a->fortran_out;
    ph->bytes = j->oi.data_bytes;
    return st;
}

/* The output written through the sink, on the CPU range by range or on the
 * GPU, and committed. */
static hl_status local_write(const transform_args *a, local_job *j, phases *ph)
{
    double t0 = now_seconds();
    /* in place, an archive's member keeps its name */
    hl_status st = npy_sink_start(&j->sink, &j->oi, a->in_place && j->src.member[0] ?
                                  j->src.member : NULL, j->why, sizeof j->why);
    ph->write += now_seconds() - t0;
    if (st != HL_OK)
        return st;
    progress pr;
    progress_start(&pr, "hyperlayout transform", a->progress, j->oi.data_bytes);
    if (a->gpu) {
        st = gpu_run(j->chain, &j->src, &j->sink, &pr, &ph->gpu, j->why, sizeof j->why);
        ph->execute = ph->gpu.execute;
    } else {
        st = run_ranges(j->chain, &j->src, &j->sink, &pr, ph, j->why, sizeof j->why);
    }
    progress_end(&pr);
    t0 = now_seconds();
    st = st == HL_OK ? npy_sink_commit(&j->sink, j->why, sizeof j->why)
                     : (npy_sink_abort(&j->sink), st);
    ph->write += now_seconds() - t0;
    return st;
}

/* transform in this process: open, plan, explain, run (in the file's pages
 * or into the output).  The exit code. */
static int transform_local(const transform_args *a, phases *ph, double start)
{
    local_job j = {.chain = NULL};
    if (a->gpu && !gpu_available(j.why, sizeof j.why)) /* before any file is touched */
        return cli_error("transform", "--device gpu: %s", j.why);
    hl_status st = local_open(a, &j, ph, start);
    if (st == HL_OK)
        st = local_plan(a, &j, ph);
    int rc = st != HL_OK ? cli_error("transform", "%s", j.why) : -1;
    if (rc < 0 && a->explain &&
        explain_plan(j.chain, !strcmp(a->out, "-") ? stderr : stdout) != HL_OK)
        rc = cli_error("transform", "cannot describe the plan");
    if (rc < 0 && a->in_place == IN_PLACE_UNSAFE) {
        st = run_unsafe(j.chain, &j.src, &j.oi, ph, j.why, sizeof j.why);
        rc = st != HL_OK ? cli_error("transform", "%s: %s", a->in, j.why) : 0;
    }
    if (rc < 0) {
        st = local_write(a, &j, ph);
        rc = st != HL_OK ? cli_error("transform", "%s", j.why) : 0;
    }
    npy_sink_abort(&j.sink); /* after a commit: nothing left to do */
    hl_plan_destroy(j.chain);
    npy_source_close(&j.src);
    return rc;
}

static int transform_main(int argc, char **argv);

int cmd_transform(int argc, char **argv)
{
    const int rc = transform_under_mpi(argc, argv, transform_main);
    return rc >= 0 ? rc : transform_main(argc, argv);
}

static int transform_main(int argc, char **argv)
{
    const double start = now_seconds();
    transform_args a = {.progress = PROGRESS_AUTO};
    a.ops = calloc((size_t)argc, sizeof *a.ops);
    if (!a.ops)
        return cli_error("transform", "%s", hl_strerror(HL_ERR_NOMEM));
    int rc = parse_args(argc, argv, &a);
    if (rc < 0 && a.wisdom)
        rc = wisdom_in(a.wisdom);
    phases ph = {0};
    if (rc < 0 && a.procs) {
        rc = transform_procs(&a);
    } else if (rc < 0) {
        rc = transform_local(&a, &ph, start);
        if (rc == 0 && a.wisdom)
            rc = wisdom_out(a.wisdom);
        if (rc == 0 && a.timing)
            print_times(&ph, now_seconds() - start);
    }
    free(a.ops);
    return rc;
}
