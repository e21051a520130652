#!/bin/sh
# Runs the CPU-facing tests again at other instruction-set levels: each
# level named (default: generic avx2) through the environment's HL_ISA, so
# that a machine with AVX-512 also checks what users with AVX2 or an older
# CPU run.  A level this CPU lacks is reported and left out, not failed.
# The build must exist (make build); BUILD and JOBS as in the Makefile.
#
#   scripts/check-levels.sh [LEVEL ...]     levels: generic sse2 avx2 avx512 neon
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
LABELS=${LABELS:-'plan|cpu|tensor|apps|cli|python'}
[ -d "$BUILD" ] || { echo "scripts/check-levels.sh: no build in $BUILD (run make build)" >&2; exit 2; }
[ $# -gt 0 ] || set -- generic avx2

# What the CPU has, as the library's run-time checks see it.
cpu=$(grep -m1 -E '^(flags|Features)' /proc/cpuinfo 2>/dev/null || true)
has() { printf '%s\n' "$cpu" | grep -qw -- "$1"; }

for level in "$@"; do
    case $level in
    generic) ok=1 ;;
    sse2 | avx2) has "$level" && ok=1 || ok=0 ;;
    avx512) has avx512f && ok=1 || ok=0 ;;
    neon) has asimd && ok=1 || ok=0 ;;
    *) echo "scripts/check-levels.sh: '$level' is no level (generic sse2 avx2 avx512 neon)" >&2; exit 2 ;;
    esac
    if [ "$ok" = 0 ]; then
        echo "== HL_ISA=$level: this CPU lacks it, left out"
        continue
    fi
    echo "== HL_ISA=$level: ctest -L '$LABELS'"
    start=$(date +%s)
    HL_ISA=$level ctest --test-dir "$BUILD" -L "$LABELS" -j "$JOBS" --output-on-failure
    echo "== HL_ISA=$level: $(($(date +%s) - start)) s"
done
