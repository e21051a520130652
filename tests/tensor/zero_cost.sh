#!/bin/sh
# Zero cost of fields.h, proven by the compiler (seed 002): compiles
# tests/tensor/zero_cost_fields.c with CC at each optimisation level, for both
# orders, as API (-DZC_API), raw pointer (-DZC_RAW) and a deliberately
# costly accessor (-DZC_COSTLY), and compares the functions' instruction
# sequences after stripping what is not an instruction (directives,
# comments) and renumbering local labels.  Passes when API == RAW for every
# function (zc_rn_*: up to register names), and the self-test holds:
# COSTLY != RAW for every function (so the comparison sees an extra
# instruction wherever one appears).
#
# usage: zero_cost.sh CC SOURCE INCLUDE_DIR [LEVEL ...]   (default -O2)
# Exit 0 pass, 1 fail, 77 skip (CC not installed).
set -u
CC=$1
SRC=$2
INC=$3
shift 3
LEVELS=${*:-"-O2"}

if ! command -v "$CC" >/dev/null 2>&1; then
    echo "SKIP: compiler '$CC' not found"
    exit 77
fi
# The assembler's comment syntax depends on the target.
case $("$CC" -dumpmachine 2>/dev/null) in
x86_64* | i?86*) comment='#.*$' ;;
aarch64* | arm64*) comment='//.*$' ;;
*)
    echo "SKIP: $CC targets $("$CC" -dumpmachine); the checker reads x86-64 and AArch64 assembly"
    exit 77
    ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# normalize FILE.s DIR: one file per function in DIR holding its normalised
# instructions; local labels become L1, L2... in order of first appearance.
normalize() {
    mkdir -p "$2"
    awk -v dir="$2" -v comment="$comment" '
    function label(name) {
        if (!(name in ids)) ids[name] = ++nid
        return "L" ids[name]
    }
    {
        line = $0
        sub(comment, "", line)
        gsub(/^[ \t]+|[ \t]+$/, "", line)
        gsub(/[ \t]+/, " ", line)
        if (line == "") next
        if (line ~ /^[A-Za-z_.$][A-Za-z0-9_.$]*:$/) {
            name = substr(line, 1, length(line) - 1)
            if (name !~ /^\.L/) {               # a function starts
                fn = name
                out = dir "/" fn
                printf "" > out
                nid = 0
                split("", ids)
                next
            }
            if (fn != "") print label(name) ":" > out
            next
        }
        if (line ~ /^\.size /) { fn = ""; next }   # the function ended
        if (line ~ /^\./) {
            # directives: drop, except data (constant pools) of a function
            if (fn != "" && line ~ /^\.(byte|short|value|long|quad|zero|double|float) /)
                print line > out
            next
        }
        if (fn == "") next
        while (match(line, /\.L[A-Za-z0-9_.$]+/))
            line = substr(line, 1, RSTART - 1) label(substr(line, RSTART, RLENGTH)) \
                   substr(line, RSTART + RLENGTH)
        print line > out
    }' "$1"
}

# rename FILE: registers become R1, R2... in order of first appearance (used
# for the zc_rn_* functions only; see tests/tensor/zero_cost_fields.c).
rename() {
    awk '{
        line = $0; outl = ""
        while (match(line, /%[a-z0-9]+/)) {
            r = substr(line, RSTART, RLENGTH)
            if (!(r in ids)) ids[r] = ++n
            outl = outl substr(line, 1, RSTART - 1) "R" ids[r]
            line = substr(line, RSTART + RLENGTH)
        }
        print outl line
    }' "$1"
}

# same A B FN: whether A and B are the same code for function FN.
same() {
    case "$3" in
    zc_rn_*) [ -f "$1" ] && [ "$(rename "$1")" = "$(rename "$2")" ] ;;
    *) [ -f "$1" ] && cmp -s "$1" "$2" ;;
    esac
}

fail=0
checks=0
for level in $LEVELS; do
    for order in UNKNOWN_MAJOR EQUATION_MAJOR; do
        for v in API RAW COSTLY; do
            s="$tmp/$level.$order.$v.s"
            if ! "$CC" -std=c17 "$level" -S -fno-asynchronous-unwind-tables -I"$INC" \
                -DHL_FIELDS_ORDER=HL_FIELDS_$order -DZC_$v -o "$s" "$SRC"; then
                echo "FAIL: $CC $level $order $v does not compile"
                exit 1
            fi
            normalize "$s" "$tmp/$level.$order.$v"
        done
        raw="$tmp/$level.$order.RAW"
        for f in "$raw"/zc_*; do
            fn=$(basename "$f")
            n=$(grep -vc ':$' "$f")
            checks=$((checks + 1))
            api="$tmp/$level.$order.API/$fn"
            costly="$tmp/$level.$order.COSTLY/$fn"
            if same "$api" "$f" "$fn"; then
                how="identical"
                cmp -s "$api" "$f" || how="identical up to register names"
                nc=$(grep -vc ':$' "$costly" 2>/dev/null)
                printf '%-6s %-4s %-15s %-14s API == raw: %3s instructions, %s (costly: %s)\n' \
                    "$CC" "$level" "$order" "$fn" "$n" "$how" "${nc:-?}"
            else
                echo "FAIL: $CC $level $order $fn: the API costs instructions the raw pointer does not"
                [ -f "$api" ] && diff "$f" "$api" | sed 's/^/    /'
                fail=1
            fi
            if [ -f "$costly" ] && ! same "$costly" "$f" "$fn"; then
                :
            else
                echo "FAIL: $CC $level $order $fn: the checker does not see the costly accessor"
                fail=1
            fi
        done
    done
done
if [ "$checks" -lt 18 ]; then
    echo "FAIL: only $checks functions compared (expected 9 per order and level)"
    fail=1
fi
[ "$fail" -eq 0 ] && echo "PASS: $checks functions identical through the API; the costly accessor is caught in all of them"
exit "$fail"
