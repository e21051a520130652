#!/bin/sh
# `mpirun -np P hyperlayout ising --procs GRID` against the one-process
# `hyperlayout ising`, bit for bit: results.csv, every series_NNN.csv (M and
# the energy of every measured sweep) and the final spins (the checkpoint's
# .npy against the one-process checkpoint's spins) for 2D 30x22 and 3D
# 10x14x18 lattices on grids 1x1, 2x1, 1x2, 3x1, 1x3, 2x2, 4 (chosen),
# 1x1x2, 3x1x1, 1x3x1, 2x2x1, 1x2x2, and 2D 80x6 (long rows) on 2x1, 1x3; a run stopped by SIGTERM after its first
# checkpoint and resumed on another process count gives the uninterrupted
# results; bad input gives one line on stderr and exit 2 on every process.
# Every command under `timeout`: nothing may hang.
# Usage: ising_cli.sh MPIEXEC path/to/hyperlayout
set -u
MPI=$1
HL=$2
# shellcheck source-path=SCRIPTDIR source=../cli/lib.sh
. "$(dirname "$0")/../cli/lib.sh"
mpi() { np=$1; shift; timeout 120 "$MPI" -q -np "$np" --oversubscribe "$HL" ising "$@"; }

# the final spins of a one-process checkpoint (the N bytes before its hash)
# and of a --procs checkpoint's newest .npy (the last N bytes)
spins_one() { n=$2; tail -c $((n + 8)) "$1" | head -c "$n"; }

same_run() { # REF OUT N WHAT
    for f in results.csv series_000.csv series_001.csv; do
        if cmp -s "$1/$f" "$2/$f"; then ok; else bad "$4: $f differs"; fi
    done
    spins_one "$1/checkpoint.bin" "$3" >"$dir/a"
    # two temperatures, a checkpoint after each (none between): the second is generation 1
    tail -c "$3" "$2/checkpoint_spins_1.npy" >"$dir/b"
    if [ "$(wc -c <"$dir/a")" -eq "$3" ] && cmp -s "$dir/a" "$dir/b"; then ok; else bad "$4: final spins differ"; fi
}

common="--T 2.1,2.4 --sweeps 30 --therm 5 --seed 11 --series --no-snapshot --no-plot --quiet --checkpoint-every 100000"
# 2D 30x22
timeout 120 "$HL" ising --L 30,22 $common --out "$dir/ref2" || bad "one-process 2D run"
for pg in 1:1x1 2:2x1 2:1x2 3:3x1 3:1x3 4:2x2 4:4; do
    np=${pg%%:*}
    g=${pg#*:}
    mpi "$np" --L 30,22 $common --procs "$g" --out "$dir/p2_$g" || bad "2D --procs $g exited $?"
    same_run "$dir/ref2" "$dir/p2_$g" 660 "2D 30x22 --procs $g"
done
# 3D 10x14x18, heat-bath in a field
common3="$common --dynamics heatbath --h 0.1"
timeout 120 "$HL" ising --L 10,14,18 $common3 --out "$dir/ref3" || bad "one-process 3D run"
for pg in 2:1x1x2 3:3x1x1 3:1x3x1 4:2x2x1 4:1x2x2; do
    np=${pg%%:*}
    g=${pg#*:}
    mpi "$np" --L 10,14,18 $common3 --procs "$g" --out "$dir/p3_$g" || bad "3D --procs $g exited $?"
    same_run "$dir/ref3" "$dir/p3_$g" 2520 "3D 10x14x18 --procs $g"
done

# 2D 80x6: rows of 20 and 40 sites of a colour (the vector words and, with
# AVX-512, the vector row update)
timeout 120 "$HL" ising --L 80,6 $common --out "$dir/ref80" || bad "one-process 80x6 run"
for pg in 2:2x1 3:1x3; do
    np=${pg%%:*}
    g=${pg#*:}
    mpi "$np" --L 80,6 $common --procs "$g" --out "$dir/p80_$g" || bad "80x6 --procs $g exited $?"
    same_run "$dir/ref80" "$dir/p80_$g" 480 "2D 80x6 --procs $g"
done

# stopped (SIGTERM to mpirun after the first checkpoint) on 2 processes,
# resumed on 3: the uninterrupted run's results
long="--L 30,22 --T 2.0,2.3,2.6 --sweeps 2000 --therm 100 --seed 3 --series --no-snapshot --no-plot --quiet"
timeout 120 "$HL" ising $long --out "$dir/ref_long" || bad "one-process long run"
timeout 120 "$MPI" -q -np 2 --oversubscribe "$HL" ising $long --procs 2x1 --checkpoint-every 0 \
    --out "$dir/stopped" >/dev/null 2>&1 &
pid=$!
i=0
while [ ! -f "$dir/stopped/checkpoint.bin" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
sleep 0.2
kill -TERM $pid 2>/dev/null
wait $pid
stopped=$?
mpi 3 $long --procs 1x3 --resume --out "$dir/stopped" || bad "resume on 3 processes exited $?"
for f in results.csv series_000.csv series_001.csv series_002.csv; do
    if cmp -s "$dir/ref_long/$f" "$dir/stopped/$f"; then ok; else bad "resumed run: $f differs"; fi
done
[ "$stopped" -ne 0 ] && echo "(the run was stopped, status $stopped, and resumed)" ||
    echo "(the run finished before it could be stopped: resume from its last checkpoint only)"
# and again on 1 process (a singleton, no mpirun) from the finished checkpoint
timeout 120 "$HL" ising $long --procs 1 --resume --out "$dir/stopped" || bad "resume as a singleton exited $?"
if cmp -s "$dir/ref_long/results.csv" "$dir/stopped/results.csv"; then ok; else bad "singleton resume: results differ"; fi

# bad input: exit 2 on every process, one line
expect_fail() { # NP ARGS...: lib.sh's expect_fail on NP processes; NP 0 runs without mpirun
    np=$1
    shift
    if [ "$np" -eq 0 ]; then
        timeout 60 "$HL" ising "$@" >"$out" 2>"$err"
    else
        timeout 60 "$MPI" -q -np "$np" --oversubscribe "$HL" ising "$@" >"$out" 2>"$err"
    fi
    refused $? "ising $* on $np"
}
base="--L 30,22 --T 2 --sweeps 10 --no-plot --out $dir/bad"
expect_fail 3 $base --procs 2x2          # the grid does not make the process count
expect_fail 2 $base --procs 2x1x1        # three entries for a 2D lattice
expect_fail 2 $base --procs 2xq          # not a count
expect_fail 2 $base --procs 2 --threads 2
expect_fail 0 $base --procs 2            # without mpirun: one process
expect_fail 2 $base --procs 2 --resume   # nothing to resume
expect_fail 2 --L 30,22 --T 2 --sweeps 10 --no-plot --out "$dir/ref2" --procs 2 --resume # a one-process checkpoint
expect_fail 0 --L 30,22 $common --out "$dir/p2_4" --resume                                # a --procs checkpoint without --procs

finish "ising --procs against one process"
