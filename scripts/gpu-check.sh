#!/usr/bin/env bash
# Builds what the GPU tests need and runs them, on a machine with nvcc, CMake,
# a C compiler and nothing from Debian (no cmocka, libpng, Random123; zlib is
# used when found).  One command, from anywhere in a copy of the working tree:
#
#   scripts/gpu-check.sh [--build-dir DIR] [--require-gpu] [--bench|--bench-quick]
#                        [-- CMAKE_ARGS...]
#   scripts/gpu-check.sh --stage-deps [--librett DIR]
#
# Exits non-zero when configuring, building or any test fails, and when a GPU
# is there (nvidia-smi -L lists one, or --require-gpu) but a test was skipped:
# a GPU machine must not pass by skipping.  docs/cuda.md, "Running on the GPU
# machine".
set -eu

usage() {
    cat <<'EOF'
usage: scripts/gpu-check.sh [--build-dir DIR] [--require-gpu] [--bench|--bench-quick]
                            [-- CMAKE_ARGS...]
       scripts/gpu-check.sh --stage-deps [--librett DIR]

Configures DIR (default build-gpu/, in the repository root) with
-DHL_GPU_ONLY=ON -DCMAKE_BUILD_TYPE=Release (the library with CUDA, the CUDA
tests and the GPU benchmarks only: no cmocka, libpng or Random123 needed),
builds it with all
cores, prints the GPUs (nvidia-smi -L), runs ctest --output-on-failure and
prints a summary line.

Fails (exit 1) when configuring, building or a test fails, or when a test
reports Skipped although a GPU is present (nvidia-smi -L lists one, or
--require-gpu is given; --require-gpu also fails when no GPU is listed).
Without a GPU the CUDA tests report Skipped and the script exits 0.

  --build-dir DIR   build directory (relative to the repository root)
  --require-gpu     insist on a GPU: no GPU listed or any skipped test fails
  --bench           after the tests, run the GPU benchmarks that were built
                    (bench_gpu_transforms, beside CuPy, LibreTT and cuTENSOR
                    through bench/gpu_vs_cupy.py when python3 has CuPy, or
                    beside bench_gpu_librett alone when it has not;
                    bench_gpu_chains: bench_chains' chains of ops, fused
                    against op by op and k copies; bench_gpu_paper: the
                    paper's Figures 11 and 12; bench_gpu_ising: Figure 13 and variant M;
                    bench_gpu_stencil: seed 004's stencil, cached and direct)
                    and print their tables;
                    output and CSV kept in DIR/NAME.log, .csv; then
                    bench/plot.py draws the GPU figures into DIR
                    (figure11_gpu, figure12_gpu, figure13_gpu,
                    engine_vs_cupy or gpu_transforms_ratio; .png, .svg)
                    where a python3 has matplotlib (else one line says so).
                    A benchmark that fails (a wrong kernel: exit 2) fails the
                    check, and so does one that skips (exit 77) where a GPU
                    is present
  --bench-quick     the same with --quick (small sizes, a smoke run)
  --stage-deps      only stage what the GPU machine lacks in .gpu-deps/
                    (ignored by git) and exit: run it where the headers are,
                    and carry .gpu-deps to the GPU machine.  Copies
                    /usr/include/Random123 (Debian's librandom123-dev) to
                    .gpu-deps/include/, which the Ising GPU test and benchmark
                    need (without them test_ising_cuda reports Skipped); with
                    --librett DIR (or LIBRETT_SRC=DIR), also builds LibreTT
                    from DIR (a source tree or a git directory) into
                    .gpu-deps/librett with scripts/peer-librett.sh, for
                    bench_gpu_librett (sm_90; LIBRETT_ARCH=N for another)
  --librett DIR     with --stage-deps: LibreTT's sources, as above
  -h, --help        this text
  -- CMAKE_ARGS     further arguments for the cmake configure step,
                    e.g. -- -DCMAKE_CUDA_ARCHITECTURES=90
EOF
}

build_dir=build-gpu
require_gpu=0
bench=""
stage_only=0
librett_src=${LIBRETT_SRC:-}
cmake_args=()
while [ $# -gt 0 ]; do
    case "$1" in
        -h|--help) usage; exit 0 ;;
        --build-dir) [ $# -ge 2 ] || { echo "gpu-check: --build-dir needs a directory" >&2; exit 2; }
                     build_dir=$2; shift 2 ;;
        --build-dir=*) build_dir=${1#--build-dir=}; shift ;;
        --require-gpu) require_gpu=1; shift ;;
        --bench) bench=full; shift ;;
        --bench-quick) bench=quick; shift ;;
        --stage-deps) stage_only=1; shift ;;
        --librett) [ $# -ge 2 ] || { echo "gpu-check: --librett needs a directory" >&2; exit 2; }
                   librett_src=$2; shift 2 ;;
        --librett=*) librett_src=${1#--librett=}; shift ;;
        --) shift; cmake_args=("$@"); break ;;
        *) echo "gpu-check: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
jobs=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)

say() { printf 'gpu-check: %s\n' "$*"; }
fail() { printf 'gpu-check: FAIL: %s\n' "$*" >&2; exit 1; }

# Random123 (header only) for the Ising GPU test and benchmark: the GPU
# machine has no Debian packages, so a copy travels in .gpu-deps/include.
r123=.gpu-deps/include
if [ ! -f "$r123/Random123/philox.h" ] && [ -f /usr/include/Random123/philox.h ]; then
    mkdir -p "$r123" && cp -R /usr/include/Random123 "$r123/" || fail "copying Random123 to $r123"
fi
if [ -n "$librett_src" ] && [ "$stage_only" = 0 ]; then
    fail "--librett goes with --stage-deps"
fi
if [ "$stage_only" = 1 ]; then
    [ -f "$r123/Random123/philox.h" ] || fail "no /usr/include/Random123 here to stage (install librandom123-dev)"
    say "Random123 staged in $r123"
    # LibreTT for bench_gpu_librett, built here (outside the tree, installed
    # in .gpu-deps/librett with its sources for a rebuild there)
    if [ -n "$librett_src" ]; then
        if [ -f "$librett_src/CMakeLists.txt" ]; then
            set -- --src "$librett_src"
        else
            set -- --git-dir "$librett_src"
        fi
        scripts/peer-librett.sh "$@" --arch "${LIBRETT_ARCH:-90}" || fail "staging LibreTT from $librett_src"
    elif [ -f .gpu-deps/librett/lib/librett.a ]; then
        say "LibreTT: already staged in .gpu-deps/librett ($(sed -n 's/^commit: //p' .gpu-deps/librett/BUILD-INFO 2>/dev/null))"
    else
        say "LibreTT: not staged (--librett DIR stages it): bench_gpu_librett will not be built"
    fi
    exit 0
fi
if [ -f "$r123/Random123/philox.h" ]; then
    say "Random123: $r123"
    cmake_args=(-DHL_RANDOM123_INCLUDE_DIR="$root/$r123" ${cmake_args[@]+"${cmake_args[@]}"})
else
    say "Random123: none in $r123 (stage it with --stage-deps where it is installed); test_ising_cuda will be Skipped"
fi

# The GPUs, as the driver sees them.
gpus=0
if command -v nvidia-smi >/dev/null 2>&1; then
    smi=$(nvidia-smi -L 2>&1) || true
    printf '%s\n' "$smi"
    gpus=$(printf '%s\n' "$smi" | grep -c '^GPU [0-9]' || true)
else
    say "nvidia-smi not found: no GPU known"
fi
say "$gpus GPU(s) listed by nvidia-smi -L"
if [ "$require_gpu" = 1 ] && [ "$gpus" -eq 0 ]; then
    fail "--require-gpu and no GPU listed"
fi
if command -v nvcc >/dev/null 2>&1; then
    nvcc --version | tail -n 2
fi

# LibreTT (for bench_gpu_librett), when staged in .gpu-deps/librett: used as
# built where this nvcc release, C++ compiler and GPU architecture match the
# build's (BUILD-INFO), else built again from its staged sources; when that
# fails, bench_gpu_librett is left out (one line says so).
if [ -f .gpu-deps/librett/lib/librett.a ]; then
    arch=90
    if [ "$gpus" -gt 0 ]; then
        cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .') || cc=""
        case $cc in ''|*[!0-9]*) ;; *) arch=$cc ;; esac
    fi
    set +e
    why=$(scripts/peer-librett.sh --status --arch "$arch" 2>&1)
    st=$?
    set -e
    # HL_LIBRETT given either way: the build directory's cache keeps it
    if [ "$st" = 0 ]; then
        say "LibreTT: $why"
        cmake_args=(-DHL_LIBRETT=ON ${cmake_args[@]+"${cmake_args[@]}"})
    else
        say "LibreTT: $why; building it again from .gpu-deps/librett/src"
        if scripts/peer-librett.sh --rebuild --arch "$arch"; then
            cmake_args=(-DHL_LIBRETT=ON ${cmake_args[@]+"${cmake_args[@]}"})
        else
            say "LibreTT: the rebuild failed: bench_gpu_librett is left out"
            cmake_args=(-DHL_LIBRETT=OFF ${cmake_args[@]+"${cmake_args[@]}"})
            rm -f "$build_dir/bin/bench_gpu_librett" # not an earlier build's
        fi
    fi
else
    say "LibreTT: none in .gpu-deps/librett (stage it with --stage-deps --librett DIR): no bench_gpu_librett"
    rm -f "$build_dir/bin/bench_gpu_librett"
fi

say "configuring $build_dir (HL_GPU_ONLY=ON, Release)"
cmake -S . -B "$build_dir" -DHL_GPU_ONLY=ON -DCMAKE_BUILD_TYPE=Release ${cmake_args[@]+"${cmake_args[@]}"} \
    || fail "cmake configure of $build_dir"
say "building with $jobs jobs"
cmake --build "$build_dir" -j "$jobs" || fail "build of $build_dir"

log="$build_dir/gpu-check-ctest.log"
say "running the tests (log: $log)"
set +e
ctest --test-dir "$build_dir" --output-on-failure 2>&1 | tee "$log"
ctest_rc=${PIPESTATUS[0]}
set -e

# A benchmark program of the build, if it was built: its tables to the
# terminal and DIR/NAME.log, its CSV to DIR/NAME.csv.  Sets bench_failed.
# bench_gpu_transforms goes through bench/gpu_vs_cupy.py (CuPy's equivalents
# timed in the same run) when python3 has CuPy.
bench_failed=""
run_bench() {
    local name=$1 exe rc
    shift
    exe="$build_dir/bin/$name"
    if [ ! -x "$exe" ]; then
        say "$name: not built, not run"
        return 0
    fi
    local cmd=("$exe")
    if [ "$name" = bench_gpu_transforms ] && [ "$have_cupy" = 1 ]; then
        # with LibreTT's rows (bench_gpu_librett, where built) and cuTENSOR's
        cmd=(python3 bench/gpu_vs_cupy.py --bench "$exe")
    fi
    say "running $name $* (log: $build_dir/$name.log)"
    set +e
    "${cmd[@]}" "$@" --csv "$build_dir/$name.csv" 2>&1 | tee "$build_dir/$name.log"
    rc=${PIPESTATUS[0]}
    set -e
    case $rc in
        0) ;;
        77) if [ "$gpus" -gt 0 ] || [ "$require_gpu" = 1 ]; then
                bench_failed="${bench_failed:+$bench_failed }$name(skipped with a GPU present)"
            else
                say "$name: skipped (no GPU)"
            fi ;;
        *) bench_failed="${bench_failed:+$bench_failed }$name(exit $rc)" ;;
    esac
}
# bench/gpu_vs_cupy.py runs bench_gpu_librett itself; without CuPy it runs
# on its own after bench_gpu_transforms.
have_cupy=0
peers="bench_gpu_librett"
if [ -n "$bench" ]; then
    if command -v python3 >/dev/null 2>&1 && python3 -c 'import cupy' >/dev/null 2>&1; then
        have_cupy=1
        peers=""
    else
        say "python3 with CuPy not found: bench_gpu_transforms without the CuPy and cuTENSOR columns"
    fi
fi
case $bench in
    full) for b in bench_gpu_transforms $peers bench_gpu_chains bench_gpu_paper bench_gpu_ising bench_gpu_stencil; do
              run_bench $b
          done ;;
    quick) for b in bench_gpu_transforms $peers bench_gpu_chains bench_gpu_paper bench_gpu_ising bench_gpu_stencil; do
               run_bench $b --quick
           done ;;
esac

# The GPU figures from the benchmarks' CSV (bench/plot.py), with the first
# python3 that has matplotlib; without one a line says so and nothing fails.
# A CSV that plot.py cannot draw fails the check.
if [ -n "$bench" ]; then
    plot_py=""
    for p in /usr/bin/python3 python3; do
        if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import numpy, matplotlib' >/dev/null 2>&1; then
            plot_py=$p; break
        fi
    done
    csvs=()
    for b in bench_gpu_paper bench_gpu_ising bench_gpu_transforms; do
        [ -s "$build_dir/$b.csv" ] && csvs+=("$build_dir/$b.csv")
    done
    if [ ${#csvs[@]} -eq 0 ]; then
        say "no GPU benchmark CSV to draw"
    elif [ -z "$plot_py" ]; then
        say "no python3 with matplotlib: the GPU figures are not drawn (CSV in $build_dir)"
    elif "$plot_py" bench/plot.py --out-dir "$build_dir" "${csvs[@]}"; then
        say "GPU figures drawn into $build_dir"
    else
        bench_failed="${bench_failed:+$bench_failed }bench/plot.py"
    fi
fi

total=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#' "$log" || true)
passed=$(grep -E '^ *[0-9]+/[0-9]+ Test +#' "$log" | grep -c ' Passed ' || true)
skipped_names=$(grep -E '^ *[0-9]+/[0-9]+ Test +#' "$log" | grep 'Skipped' \
    | sed -E 's/^.*Test +#[0-9]+: ([^ ]+) .*$/\1/' | tr '\n' ' ' || true)
skipped_names=${skipped_names% }
skipped=$(grep -E '^ *[0-9]+/[0-9]+ Test +#' "$log" | grep -c 'Skipped' || true)
failed=$((total - passed - skipped))

status=PASS
why=""
if [ "$ctest_rc" -ne 0 ]; then
    status=FAIL; why="ctest exited $ctest_rc"
fi
if [ "$total" -eq 0 ]; then
    status=FAIL; why="${why:+$why; }no tests ran"
fi
if [ "$skipped" -gt 0 ] && { [ "$gpus" -gt 0 ] || [ "$require_gpu" = 1 ]; }; then
    status=FAIL; why="${why:+$why; }skipped with a GPU present: $skipped_names"
fi
if [ -n "$bench_failed" ]; then
    status=FAIL; why="${why:+$why; }benchmarks failed: $bench_failed"
fi

summary="$total tests: $passed passed, $skipped skipped, $failed failed; $gpus GPU(s)"
if [ "$status" = PASS ]; then
    if [ "$skipped" -gt 0 ]; then
        say "PASS ($summary; skipped without a GPU: $skipped_names)"
    else
        say "PASS ($summary)"
    fi
    exit 0
fi
say "FAIL ($summary): $why" >&2
exit 1
