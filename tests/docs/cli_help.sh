#!/bin/sh
# The CLI's help as the first hour needs it: `transform --help` short (the
# usage, every op, ten options, where the rest is) and `--help-all` naming
# every option transform parses; `info`'s lines aligned (every value at
# column 15); `ising --help`'s placeholders distinct (none the name of a
# --variant value, none shared by two options but counts and lists).
#   cli_help.sh path/to/hyperlayout SRC
set -u
HL=$1
SRC=$2
# shellcheck source-path=SCRIPTDIR source=../cli/lib.sh
. "$(dirname "$0")/../cli/lib.sh"

# transform --help: short, complete where it must be
"$HL" transform --help >"$dir/short" 2>&1 || bad "transform --help failed"
n=$(wc -l <"$dir/short")
[ "$n" -le 40 ] && ok || bad "transform --help is $n lines (at most 40)"
for op in flip: shift: crinkle: uncrinkle: permute: tile: untile: morton unmorton; do
    grep -q "$op" "$dir/short" && ok || bad "transform --help does not name the op $op"
done
nopt=$(grep -c '^  --' "$dir/short")
[ "$nopt" -ge 10 ] && [ "$nopt" -le 12 ] && ok || bad "transform --help lists $nopt options (ten, and help)"
for where in "--help-all" "man hyperlayout" "docs/cli.md"; do
    grep -q -- "$where" "$dir/short" && ok || bad "transform --help does not point to $where"
done
# --help-all: every option the sources parse
"$HL" transform --help-all >"$dir/all" 2>&1 || bad "transform --help-all failed"
for o in $(grep -oh 'strcmp(arg, "--[a-z0-9=-]*"' "$SRC/apps/hyperlayout/transform.c" \
        "$SRC/apps/hyperlayout/h5_cli.c" | sed 's/.*"\(--.*\)"/\1/' | sort -u); do
    [ "$o" = "--" ] && continue
    grep -q -- "$o" "$dir/all" && ok || bad "transform --help-all does not name $o"
done

# info: the values in one column, whatever the label
npy_header '\223NUMPY\001\000' "{'descr': '<f4', 'fortran_order': True, 'shape': (3, 2), }" >"$dir/f.npy"
head -c 24 /dev/zero >>"$dir/f.npy"
"$HL" info "$dir/f.npy" >"$dir/info" 2>&1 || bad "info failed"
grep -q '^fortran order yes' "$dir/info" && ok || bad "info: no aligned 'fortran order yes' line"
if awk 'substr($0, 14, 1) != " " || substr($0, 15, 1) == " " { exit 1 }' "$dir/info"; then ok; else
    bad "info's values are not all at column 15:"; cat "$dir/info"
fi

# ising --help: "--opt PLACEHOLDER" lines
"$HL" ising --help >"$dir/ising" 2>&1 || bad "ising --help failed"
sed -n 's/^  \(--[a-z-]*\) \([A-Z][A-Z0-9]*\)\b.*/\1 \2/p' "$dir/ising" >"$dir/ph"
[ -s "$dir/ph" ] && ok || bad "ising --help: no placeholders found"
while read -r opt ph; do
    case $ph in A | B | C | M) [ "$opt" = --variant ] || bad "ising --help: $opt's placeholder $ph is a variant's name" ;; esac
    case $ph in N | LIST) continue ;; esac  # counts and temperature lists: one meaning each
    uses=$(awk -v p="$ph" '$2 == p' "$dir/ph" | wc -l)
    [ "$uses" -eq 1 ] && ok || bad "ising --help: placeholder $ph names $uses options"
done <"$dir/ph"

finish cli_help "transform --help $n lines, $nopt options"
