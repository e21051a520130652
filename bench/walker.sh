#!/bin/sh
# The seed's walker table (seed 002, "Comparison of the algorithms"): builds
# bench_walker with each compiler at each optimisation level, runs the
# builds round-robin --repeat times (each run times Ptr, Par, Prop and the
# Gaussian generator alone in lockstep, chunk by chunk, in process CPU
# time), and prints the minimum times, Par/Ptr, Prop/Ptr, the -O0/-O3
# speedups, and the same ratios net of the generator's own time; then
# writes the numbers as CSV.
#
# Only the integrator (apps/walker/advance_*.c) and its driver are built at
# the level under test; the Gaussian generator and the SDE set-up are built
# at -O2 in every configuration, as the seed's MKL generator was an
# optimised library in its DEBUG builds too.
#
# usage: bench/walker.sh [--particles N] [--ncomp K] [--end T] [--repeat R]
#                        [--compilers "gcc clang"] [--levels "-O0 -O3"]
#                        [--csv FILE] [--dir BUILD_DIR]
# Defaults: the seed's 40000 particles, K = 100, end time 140 (dt 0.05),
# R = 3; CSV to build/bench-walker/walker.csv.  On a small shared machine
# the full size takes hours at -O0: scale --particles down (the table says
# what it used).
set -eu
cd "$(dirname "$0")/.."

particles=40000
ncomp=100
end=140
repeat=3
compilers="gcc clang"
levels="-O0 -O3"
csv=build/bench-walker/walker.csv
dir=build/bench-walker
while [ $# -gt 0 ]; do
    case $1 in
    --particles) particles=$2 ;;
    --ncomp) ncomp=$2 ;;
    --end) end=$2 ;;
    --repeat) repeat=$2 ;;
    --compilers) compilers=$2 ;;
    --levels) levels=$2 ;;
    --csv) csv=$2 ;;
    --dir) dir=$2 ;;
    -h | --help)
        awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
        exit 0
        ;;
    *)
        echo "bench/walker.sh: unknown option '$1' (see --help)" >&2
        exit 2
        ;;
    esac
    [ $# -ge 2 ] || { echo "bench/walker.sh: $1 needs a value" >&2; exit 2; }
    shift 2
done
mkdir -p "$dir"

# build CC LEVEL: the binary's path on stdout
build() {
    out="$dir/walker_$1$2"
    w=apps/walker
    common="-std=c17 -fopenmp -D_POSIX_C_SOURCE=200809L -Iinclude -I$w -Iapps/common"
    # shellcheck disable=SC2086
    "$1" $common -O2 -c $w/gauss.c -o "$out.gauss.o" &&
        "$1" $common -O2 -c $w/sde.c -o "$out.sde.o" &&
        "$1" $common -O2 -c $w/stats.c -o "$out.stats.o" &&
        "$1" $common -O2 -c src/core/status.c -o "$out.status.o" &&
        "$1" $common -O2 -c apps/common/parse.c -o "$out.parse.o" &&
        "$1" $common "$2" $w/advance_ptr.c $w/advance_par.c $w/advance_prop.c $w/run.c \
            bench/walker_bench.c "$out.gauss.o" "$out.sde.o" "$out.stats.o" "$out.status.o" \
            "$out.parse.o" \
            -lm -o "$out" >&2 &&
        echo "$out"
}

configs=""
for cc in $compilers; do
    if ! command -v "$cc" >/dev/null 2>&1; then
        echo "bench/walker.sh: $cc not found, skipped" >&2
        continue
    fi
    for level in $levels; do
        bin=$(build "$cc" "$level") || { echo "bench/walker.sh: $cc $level: build failed" >&2; exit 1; }
        configs="$configs $cc/$level=$bin"
    done
done
[ -n "$configs" ] || { echo "bench/walker.sh: no compiler" >&2; exit 1; }

raw="$dir/raw.txt"
: >"$raw"
r=1
while [ "$r" -le "$repeat" ]; do
    for c in $configs; do
        name=${c%%=*}
        bin=${c#*=}
        echo "bench/walker.sh: repetition $r/$repeat, $name" >&2
        "$bin" --particles "$particles" --ncomp "$ncomp" --end "$end" --repeat 1 |
            sed "s|^|$name |" >>"$raw"
    done
    r=$((r + 1))
done

steps=$(awk -v e="$end" 'BEGIN { printf "%d", e / 0.05 + 0.5 }')
mkdir -p "$(dirname "$csv")"
tmp_csv="$csv.tmp.$$"
awk -v particles="$particles" -v ncomp="$ncomp" -v steps="$steps" -v repeat="$repeat" \
    -v csv="$tmp_csv" -v configs="$configs" '
function keep(key, t) { if (!(key in best) || t < best[key]) best[key] = t }
$2 == "time" { keep($1 SUBSEP $3, $5) }
$2 == "identical" && $3 != "yes" { bad[$1] = 1; nbad++ }
END {
    n = split(configs, list, " ")
    printf "walker (seed 002): %d particles, K = %d, dt 0.05, %d steps, 1 thread, CPU seconds; minimum of %d runs\n\n",
        particles, ncomp, steps, repeat
    printf "%-12s %9s %9s %9s %8s %8s %9s %8s %8s\n", "Run", "Ptr (s)", "Par (s)", "Prop (s)",
        "Par/Ptr", "Prop/Ptr", "RNG (s)", "net Par", "net Prop"
    print "compiler,level,ptr_s,par_s,prop_s,par_over_ptr,prop_over_ptr,rng_s,net_par_over_ptr,net_prop_over_ptr,particles,ncomp,steps,repeat" > csv
    last = ""
    for (i = 1; i <= n; i++) {
        name = list[i]; sub(/=.*/, "", name)
        cc = name; sub(/\/.*/, "", cc)
        lv = name; sub(/.*\//, "", lv)
        p = best[name, "Ptr"]; a = best[name, "Par"]; q = best[name, "Prop"]; g = best[name, "RNG"]
        np = (p > g) ? (a - g) / (p - g) : 0; nq = (p > g) ? (q - g) / (p - g) : 0
        printf "%-12s %9.3f %9.3f %9.3f %8.3f %8.3f %9.3f %8.3f %8.3f%s\n", name, p, a, q, a / p, q / p,
            g, np, nq, (name in bad) ? "  STATES DIFFER" : ""
        printf "%s,%s,%.6f,%.6f,%.6f,%.4f,%.4f,%.6f,%.4f,%.4f,%d,%d,%d,%d\n", cc, lv, p, a, q, a / p,
            q / p, g, np, nq, particles, ncomp, steps, repeat > csv
        t[cc, lv, "Ptr"] = p; t[cc, lv, "Par"] = a; t[cc, lv, "Prop"] = q
        if (cc != last) { nl = 0; last = cc }
        lvs[cc, ++nl] = lv
        if (nl == 2) {
            l0 = lvs[cc, 1]; l1 = lvs[cc, 2]
            printf "%-12s %8.2fx %8.2fx %8.2fx   (speedup %s -> %s)\n\n", l0 "/" l1,
                t[cc, l0, "Ptr"] / t[cc, l1, "Ptr"], t[cc, l0, "Par"] / t[cc, l1, "Par"],
                t[cc, l0, "Prop"] / t[cc, l1, "Prop"], l0, l1
        }
    }
    print "\nnet: (variant - RNG) / (Ptr - RNG), the integrator without the Gaussian generator,"
    print "which every variant calls identically.  Final states bitwise equal in every run" \
        (nbad ? " EXCEPT those marked." : ".")
}' "$raw"
mv "$tmp_csv" "$csv"
echo "bench/walker.sh: wrote $csv (raw times: $raw)" >&2
