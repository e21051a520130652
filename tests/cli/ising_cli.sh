#!/bin/sh
# `hyperlayout ising`: help, one-line errors (exit 2) for bad input, a run's
# files, resuming (after completion, and after Ctrl-C) bit for bit, an
# earlier run in --out refused or replaced (--force), and the plot: drawn and
# announced only where numpy and matplotlib are there when it runs.
# Usage: ising_cli.sh path/to/hyperlayout PYTHON QUICK
#   PYTHON: the python3 built in for plots (ISING_PYTHON), empty for none;
#   QUICK: 1 for a slow (sanitizer) build
set -u
HL=$1
PYTHON=${2:-}
QUICK=${3:-0}
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
HL_SUB=ising

expect_file() { if [ -s "$1" ]; then ok; else bad "missing $1"; fi; }
lines() { wc -l <"$1" | tr -d ' '; }

# ---- help
expect_ok --help
for word in --dims --L --T --beta --sweeps --therm --seed --variant --threads --device --out --algorithm \
    --clusters --series --no-snapshot --plot --checkpoint-every --resume --force --progress --start --h; do
    expect_out "^  $word"
done
if "$HL" help ising >"$out" 2>"$err"; then ok; else bad "help ising"; fi
expect_out "crinkled"
if "$HL" --help | grep -q "ising"; then ok; else bad "hyperlayout --help lacks ising"; fi

# ---- bad input
expect_fail --L 64
expect_err "--T or --beta"
expect_fail --T 2 --beta 0.5
expect_fail --T 2 --L 5
expect_err "odd"
expect_fail --T 2 --L 64,63
expect_fail --T 2 --dims 9
expect_fail --T 2 --dims 0
# --procs without mpirun: one process (an MPI build) or no MPI at all; either way one line.
# Open MPI keeps allocations from MPI_Init to exit: not ours for a sanitizer build to report.
saved_asan=${ASAN_OPTIONS-}
export ASAN_OPTIONS="${saved_asan:+$saved_asan:}detect_leaks=0"
expect_fail --T 2 --L 8 --procs 2 --out "$dir/procs"
expect_err "--procs"
export ASAN_OPTIONS="$saved_asan"
expect_fail --T 2 --dims 3 --L 4,4
expect_err "--dims is 3"
expect_fail --T 2 --L 6,6 --variant B
expect_err "power of two"
expect_fail --T 2 --dims 3 --L 8 --variant C
expect_err "--dims 2"
expect_fail --T 2 --variant D
expect_fail --T -1
expect_err "not positive"
expect_fail --T 0
expect_fail --T 1:2:0
expect_err "STEP"
expect_fail --T 1:2
expect_fail --T abc
expect_fail --T 2,
expect_fail --T 0.001:100:0.0001
expect_err "10000"
expect_fail --beta -0.1
expect_fail --T 2 --sweeps 1
expect_fail --T 2 --sweeps x
expect_fail --T 2 --therm -1
expect_fail --T 2 --seed -1
expect_fail --T 2 --seed 18446744073709551616
expect_fail --T 2 --threads -1
expect_err "--threads needs a count from 0 to 4096: -1 is out of range"
expect_fail --T 2 --threads 4097
expect_err "--threads needs a count from 0 to 4096: 4097 is out of range"
expect_fail --T 2 --sweeps 2000000000000
expect_err "--sweeps needs a count from 2 to 2^40: 2000000000000 is out of range"
expect_fail --T 2 --seed 18446744073709551616
expect_err "--seed needs an integer from 0 to 2^64-1: 18446744073709551616 is out of range"
expect_fail --T 2 --dims x
expect_err "--dims needs a rank from 1 to 8, not 'x'"
expect_fail --T 2 --start sideways
expect_fail --T 2 --dynamics glauber
expect_fail --T 2 --h nan
expect_fail --T 2 --checkpoint-every -5
expect_fail --T 2 --frobnicate
expect_err "unknown option '--frobnicate'"
expect_fail --T 2 --frobnicate 3
expect_err "unknown option '--frobnicate'"
expect_fail --T 2 extra
expect_fail --T
expect_err "--T needs a value"
expect_fail --T 2 --sweeps
expect_err "--sweeps needs a value"
expect_fail --T 2 --resume --force
expect_fail --T 2 --out "$dir/none" --resume
expect_err "checkpoint.bin"
: >"$dir/afile"
expect_fail --T 2 --out "$dir/afile"

# ---- a 2D run: stdout table, CSV, JSON, snapshots, series, checkpoint
expect_ok --L 16 --T 1.5,3.0 --sweeps 200 --therm 50 --seed 3 --series --out "$dir/r2" --no-plot
expect_out "^# Ising d=2 L=16,16 h=0 seed=3 therm=50 sweeps=200 metropolis variant=C"
expect_out "^     1.5  -1\.9"
expect_out "results in"
[ "$(lines "$dir/r2/results.csv")" = 3 ] && ok || bad "results.csv: $(lines "$dir/r2/results.csv") lines"
head -1 "$dir/r2/results.csv" | grep -q "^T,beta,h,sweeps,e,e_err,m,m_err,absm,absm_err" && ok || bad "csv header"
grep -q '"dims": 2' "$dir/r2/results.json" && ok || bad "json dims"
grep -q '"complete": true' "$dir/r2/results.json" && ok || bad "json complete"
expect_file "$dir/r2/snapshot_000.png"
expect_file "$dir/r2/snapshot_001.png"
head -c 4 "$dir/r2/snapshot_000.png" | od -c | grep -q "P   N   G" && ok || bad "snapshot is not a PNG"
[ "$(lines "$dir/r2/series_001.csv")" = 201 ] && ok || bad "series_001.csv lines"
expect_file "$dir/r2/checkpoint.bin"
expect_file "$dir/r2/magnetisation.png"
[ ! -e "$dir/r2/observables.png" ] && ok || bad "--no-plot drew a plot"
# the same run again: the same numbers, whatever the variant and threads
cp "$dir/r2/results.csv" "$dir/want.csv"
expect_ok --L 16 --T 1.5,3.0 --sweeps 200 --therm 50 --seed 3 --out "$dir/r2b" --no-plot --variant A \
    --threads 2 --quiet
cmp -s "$dir/want.csv" "$dir/r2b/results.csv" && ok || bad "variant A / 2 threads gave other results"
# --threads 0: all cores, the default
expect_ok --L 16 --T 1.5,3.0 --sweeps 200 --therm 50 --seed 3 --out "$dir/r2t" --no-plot --threads 0 \
    --quiet
cmp -s "$dir/want.csv" "$dir/r2t/results.csv" && ok || bad "--threads 0 gave other results"
[ ! -s "$out" ] && ok || bad "--quiet printed"
# resuming a finished run gives its results again; another run's checkpoint is refused
expect_ok --L 16 --T 1.5,3.0 --sweeps 200 --therm 50 --seed 3 --out "$dir/r2" --resume --no-plot
expect_out "(resumed)"
cmp -s "$dir/want.csv" "$dir/r2/results.csv" && ok || bad "resumed results differ"
expect_fail --L 16 --T 1.5,3.0 --sweeps 200 --therm 50 --seed 4 --out "$dir/r2" --resume
expect_err "another run"

# ---- a damaged checkpoint (issue 31): refused before the run starts, one
# line naming the file and saying what is wrong; a changed byte among the
# spins, a truncated file
dmg="--L 16 --T 1.5,3.0 --sweeps 50 --therm 5 --seed 3 --no-plot"
# shellcheck disable=SC2086
expect_ok $dmg --out "$dir/dmg" --quiet
cp "$dir/dmg/checkpoint.bin" "$dir/ck.good"
size=$(wc -c <"$dir/ck.good" | tr -d ' ')
printf '\007' | dd of="$dir/dmg/checkpoint.bin" bs=1 seek=$((size - 20)) conv=notrunc 2>/dev/null
# shellcheck disable=SC2086
expect_fail $dmg --out "$dir/dmg" --resume
expect_err "--resume: $dir/dmg/checkpoint.bin: not a checkpoint, or damaged"
expect_err "checksum"
head -c $((size - 100)) "$dir/ck.good" >"$dir/dmg/checkpoint.bin"
# shellcheck disable=SC2086
expect_fail $dmg --out "$dir/dmg" --resume
expect_err "--resume: $dir/dmg/checkpoint.bin: not a checkpoint, or damaged"
cp "$dir/ck.good" "$dir/dmg/checkpoint.bin"
# shellcheck disable=SC2086
expect_ok $dmg --out "$dir/dmg" --resume --quiet

# ---- an earlier run in --out: refused without --resume or --force; --force
# replaces it, leaving none of its files (and all of the user's) behind
sum_r2=$(cat "$dir/r2/checkpoint.bin" "$dir/r2/results.csv" | cksum)
expect_fail --L 16 --T 2.0 --sweeps 50 --therm 5 --out "$dir/r2" --no-plot
expect_err "$dir/r2 holds an earlier run"
expect_err "--resume"
expect_err "--force"
[ "$(cat "$dir/r2/checkpoint.bin" "$dir/r2/results.csv" | cksum)" = "$sum_r2" ] && ok ||
    bad "a refused run touched the earlier checkpoint or results"
# an interrupted run leaves a checkpoint alone, or a temporary: refused too
mkdir "$dir/ck" && : >"$dir/ck/checkpoint.bin"
expect_fail --L 16 --T 2.0 --sweeps 50 --out "$dir/ck"
mkdir "$dir/tmpf" && : >"$dir/tmpf/.results.json.Ab12Cd"
expect_fail --L 16 --T 2.0 --sweeps 50 --out "$dir/tmpf"
# the user's own files are no earlier run
mkdir "$dir/mine" && echo notes >"$dir/mine/notes.txt" && : >"$dir/mine/snapshot.png"
expect_ok --L 16 --T 2.0 --sweeps 50 --therm 5 --out "$dir/mine" --no-plot --quiet
: >"$dir/r2/.checkpoint.bin.x1Y2z3"
: >"$dir/r2/.observables.abc_123.png"
: >"$dir/r2/observables.png"
: >"$dir/r2/snapshot_1234.png"
for f in notes.txt snapshot_12.png snapshot_abc.png series_000.csv.bak results.txt .hidden \
    .results.csv.x; do
    echo mine >"$dir/r2/$f"
done
expect_ok --L 16 --T 2.0 --sweeps 50 --therm 5 --out "$dir/r2" --no-plot --force --quiet
[ "$(lines "$dir/r2/results.csv")" = 2 ] && ok || bad "--force: results.csv is not the new run's"
expect_file "$dir/r2/snapshot_000.png"
for f in snapshot_001.png series_000.csv series_001.csv magnetisation.png observables.png \
    snapshot_1234.png .checkpoint.bin.x1Y2z3 .observables.abc_123.png; do
    [ ! -e "$dir/r2/$f" ] && ok || bad "--force left the earlier run's $f"
done
for f in notes.txt snapshot_12.png snapshot_abc.png series_000.csv.bak results.txt .hidden \
    .results.csv.x; do
    [ "$(cat "$dir/r2/$f" 2>/dev/null)" = mine ] && ok || bad "--force removed the user's $f"
done

# ---- other ranks, --beta, field, start, dynamics
expect_ok --dims 3 --L 8 --beta 0.2:0.24:0.02 --sweeps 100 --therm 20 --out "$dir/r3" --no-plot
expect_out "variant=B"
[ "$(lines "$dir/r3/results.csv")" = 4 ] && ok || bad "3D results.csv lines"
expect_file "$dir/r3/snapshot_002.png"
expect_ok --dims 1 --L 64 --T 1 --sweeps 50 --therm 0 --out "$dir/r1" --no-plot
expect_out "heatbath"
[ ! -e "$dir/r1/snapshot_000.png" ] && ok || bad "1D drew a snapshot"
expect_ok --dims 1 --L 64 --T 1 --sweeps 50 --out "$dir/r1m" --no-plot --dynamics metropolis
expect_err "not ergodic"
expect_ok --dims 4 --L 6,4,4,2 --T 2 --h 0.5 --start down --sweeps 20 --therm 5 --out "$dir/r4" \
    --no-snapshot --variant A
expect_out "variant=A"
grep -q '"h": 0.5' "$dir/r4/results.json" && ok || bad "json h"
expect_ok --L 8 --T 2 --sweeps 10 --out "$dir/rref" --variant reference --no-plot

# ---- cluster updates: refused with a field, across processes, on the GPU,
# --clusters without Wolff; a Wolff and an SW run, the same results for
# another variant and thread count, resumed bit for bit after completion
expect_fail --T 2 --algorithm wolff --h 0.1
expect_err "zero field"
expect_fail --T 2 --algorithm sw --device gpu --out "$dir/cgpu"
expect_err "on the CPU"
expect_fail --T 2 --algorithm wolff --variant M --out "$dir/cm"
expect_err "not with --variant M"
expect_fail --T 2 --clusters 4
expect_err "only with --algorithm wolff"
expect_fail --T 2 --algorithm wolff --clusters 0
expect_fail --T 2 --algorithm swendsen
expect_err "metropolis, heatbath, wolff or sw"
expect_ok --dims 3 --L 8 --T 4.5 --algorithm wolff --clusters 4 --sweeps 200 --therm 20 --out "$dir/cw" --no-plot
expect_out "wolff (4 clusters per sweep)"
grep -q '"clusters": 4' "$dir/cw/results.json" && ok || bad "json clusters"
cp "$dir/cw/results.csv" "$dir/cw.csv"
expect_ok --dims 3 --L 8 --T 4.5 --algorithm wolff --clusters 4 --sweeps 200 --therm 20 --out "$dir/cw" --no-plot \
    --resume --variant A --threads 1
cmp -s "$dir/cw/results.csv" "$dir/cw.csv" && ok || bad "wolff resumed after completion: other results"
expect_fail --dims 3 --L 8 --T 4.5 --algorithm wolff --clusters 5 --sweeps 200 --therm 20 --out "$dir/cw" \
    --no-plot --resume
expect_err "another run"
expect_err "--clusters differ" # issue 46: the message names the option that can differ
expect_ok --L 16,8 --T 2.2 --algorithm sw --sweeps 100 --therm 10 --out "$dir/cs1" --no-plot --threads 1
expect_ok --L 16,8 --T 2.2 --dynamics sw --sweeps 100 --therm 10 --out "$dir/cs2" --no-plot --threads 2 \
    --variant A
cut -d, -f1-24 "$dir/cs1/results.csv" >"$dir/cs1.cut"
cut -d, -f1-24 "$dir/cs2/results.csv" >"$dir/cs2.cut"
cmp -s "$dir/cs1.cut" "$dir/cs2.cut" && ok || bad "sw results depend on threads or variant"

# ---- --device: on a GPU the same files as the CPU's; without one (or
# without CUDA in the build) one line saying "no CUDA device", exit 2 and
# nothing written
expect_fail --T 2 --device tpu
expect_err "cpu or gpu"
dargs="--L 10,6 --T 2.2 --h 0.2 --sweeps 40 --therm 5 --seed 4 --no-plot"
# shellcheck disable=SC2086
expect_ok $dargs --out "$dir/dcpu" --device cpu
expect_out "isa="
# shellcheck disable=SC2086
if "$HL" ising $dargs --out "$dir/dgpu" --device gpu >"$out" 2>"$err"; then
    ok
    expect_out "device=gpu"
    cmp -s "$dir/dcpu/results.csv" "$dir/dgpu/results.csv" && ok || bad "--device gpu: results.csv differs"
    cmp -s "$dir/dcpu/snapshot_000.png" "$dir/dgpu/snapshot_000.png" && ok || bad "--device gpu: snapshot differs"
    grep -q '"device": "gpu"' "$dir/dgpu/results.json" && ok || bad "json device"
else
    rc=$?
    [ "$rc" = 2 ] && ok || bad "--device gpu without a GPU exited $rc, expected 2"
    expect_err "no CUDA device"
    [ "$(lines "$err")" = 1 ] && ok || bad "--device gpu: not one line on stderr"
    [ ! -e "$dir/dgpu" ] && ok || bad "--device gpu without a GPU created --out"
fi

# ---- Ctrl-C: a checkpoint, exit 130, and --resume finishes bit for bit
if [ "$QUICK" = 1 ]; then
    args="--L 64 --T 2.0:2.6:0.2 --sweeps 2000 --therm 100 --seed 9 --no-plot --no-snapshot"
else
    args="--L 128 --T 2.0:2.6:0.2 --sweeps 20000 --therm 100 --seed 9 --no-plot --no-snapshot"
fi
# shellcheck disable=SC2086
"$HL" ising $args --out "$dir/full" --quiet >/dev/null 2>&1 && ok || bad "reference run failed"
# shellcheck disable=SC2086
"$HL" ising $args --out "$dir/int" --checkpoint-every 0 --quiet >/dev/null 2>"$err" &
pid=$!
sleep 0.3
kill -INT $pid 2>/dev/null
wait $pid
rc=$?
if [ "$rc" -eq 130 ]; then
    ok
    expect_err "--resume"
    expect_file "$dir/int/checkpoint.bin"
    # shellcheck disable=SC2086
    "$HL" ising $args --out "$dir/int" --resume --quiet >/dev/null 2>"$err" && ok || bad "resume failed"
elif [ "$rc" -eq 0 ]; then
    echo "note: the run finished before Ctrl-C; nothing to resume"
else
    bad "interrupted run exited $rc"
fi
cmp -s "$dir/full/results.csv" "$dir/int/results.csv" && ok || bad "interrupted and resumed run differs"

# ---- the plot: numpy and matplotlib are looked for when it is drawn, so a
# plot is announced exactly when observables.png was written.  A stand-in
# matplotlib on PYTHONPATH plays "installed after the build" and "missing".
if [ -n "$PYTHON" ]; then
    mkdir -p "$dir/nompl/matplotlib" "$dir/fakempl/matplotlib"
    echo 'raise ImportError("No module named matplotlib (test stand-in)")' \
        >"$dir/nompl/matplotlib/__init__.py"
    cat >"$dir/fakempl/matplotlib/__init__.py" <<'PY'
def use(backend):
    pass
PY
    cat >"$dir/fakempl/matplotlib/pyplot.py" <<'PY'
# enough of pyplot for plot.py: every call succeeds, savefig writes a stub
class _Any:
    def __getattr__(self, name):
        return self
    def __call__(self, *a, **k):
        return self
    def __iter__(self):
        return iter([self] * 6)
    def get_legend_handles_labels(self):
        return [], []
    def savefig(self, f, **k):
        f.write(b"\x89PNG stand-in")
def subplots(*a, **k):
    return _Any(), _Any()
PY
    export PYTHONPATH="$dir/nompl"
    expect_ok --L 16 --T 2.0,2.5 --sweeps 100 --therm 10 --out "$dir/rn" --plot
    [ ! -e "$dir/rn/observables.png" ] && ok || bad "a plot without matplotlib"
    if grep -q "observables.png" "$out"; then bad "announced a plot it did not draw"; cat "$out"; else ok; fi
    expect_out "no plot drawn"
    expect_err "no plot"
    # what was drawn and what was not, named (issue 31): magnetisation.png
    # needs no Python, and is there
    expect_file "$dir/rn/magnetisation.png"
    expect_out "magnetisation.png, no plot drawn for the observables (see stderr)$"
    expect_err "no plot drawn for observables.png"
    expect_err "magnetisation.png was drawn"
    if "$PYTHON" -c "import numpy" 2>/dev/null; then
        PYTHONPATH="$dir/fakempl"
        expect_ok --L 16 --T 2.0,2.5 --sweeps 100 --therm 10 --out "$dir/rf" --plot
        expect_file "$dir/rf/observables.png"
        expect_out "plot in .*observables.png"
    else
        echo "note: $PYTHON has no numpy: the drawn plot is not tested"
    fi
    unset PYTHONPATH
    if "$PYTHON" -c "import numpy, matplotlib" 2>/dev/null; then
        expect_ok --L 16 --T 2.0,2.5 --sweeps 100 --therm 10 --out "$dir/rp" --plot
        expect_file "$dir/rp/observables.png"
        expect_out "observables.png"
        head -c 4 "$dir/rp/observables.png" | od -c | grep -q "P   N   G" && ok || bad "observables.png is not a PNG"
    fi
else
    # no Python at build time: the plot is not drawn, and the line says which
    expect_ok --L 16 --T 2.0,2.5 --sweeps 100 --therm 10 --out "$dir/rn" --plot
    expect_file "$dir/rn/magnetisation.png"
    expect_out "no plot drawn for the observables (see stderr)$"
    expect_err "no plot drawn for observables.png"
    expect_err "magnetisation.png was drawn"
fi

finish ising_cli
