#!/bin/sh
# docs/cli.md's examples, run and compared with what the page shows.
#
# An example is a fenced block (```) whose first line starts with "$ ": each
# "$ " line is a shell command, and the lines after it, up to the next "$ "
# line or the fence, are its output, standard output and standard error
# together.  A line "..." stands for any number of lines.  Every command must
# exit 0 (an example of an error shows its status with `echo`).  The commands
# run with `hyperlayout` on PATH, in a directory holding the files the page
# describes (written here byte by byte as NumPy writes them).
# Usage: docs_cli.sh path/to/hyperlayout [path/to/cli.md]
set -u
HL=$1
DOC=${2:-$(dirname "$0")/../../docs/cli.md}
# shellcheck source-path=SCRIPTDIR source=../cli/lib.sh
. "$(dirname "$0")/../cli/lib.sh"
# shellcheck source-path=SCRIPTDIR source=../cli/npz_lib.sh
. "$(dirname "$0")/../cli/npz_lib.sh"

case $HL in /*) ;; *) HL=$(pwd)/$HL ;; esac
mkdir "$dir/bin" "$dir/work" "$dir/ex"
ln -s "$HL" "$dir/bin/hyperlayout"

# ---- the files the page names
w=$dir/work
# np.save('x.npy', np.zeros((4096, 4095), np.float32)): the header, then
# 67092480 zero bytes (a sparse file)
npy_header '\223NUMPY\001\000' "{'descr': '<f4', 'fortran_order': False, 'shape': (4096, 4095), }" >"$w/x.npy"
dd if=/dev/null of="$w/x.npy" bs=1 seek=67092608 2>/dev/null
# np.save('empty.npy', np.zeros((0, 3), np.float32))
npy_header '\223NUMPY\001\000' "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3), }" >"$w/empty.npy"
# np.savez('two.npz', a=np.zeros(3), b=np.ones((2, 2), np.int16))
{ npy_header '\223NUMPY\001\000' "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }"
  head -c 24 /dev/zero; } >"$dir/a.npy"
{ npy_header '\223NUMPY\001\000' "{'descr': '<i2', 'fortran_order': False, 'shape': (2, 2), }"
  printf '\001\000\001\000\001\000\001\000'; } >"$dir/b.npy"
npz_stored "$w/two.npz" a "$dir/a.npy" b "$dir/b.npy"

# ---- the examples: ex/N.cmd, ex/N.want
awk -v ex="$dir/ex" '
    /^```/ {
        if (!fence) { fence = 1; first = 1; cmd = 0; next }
        fence = 0; next
    }
    !fence { next }
    first && !/^\$ / { fence = 2 }   # a fenced block that is no example
    fence == 2 { next }
    /^\$ / {
        n++; first = 0
        f = ex "/" n
        printf "%s\n", substr($0, 3) > (f ".cmd"); close(f ".cmd")
        printf "" > (f ".want")
        next
    }
    { printf "%s\n", $0 >> (f ".want") }
' "$DOC"

# match WANT GOT: GOT's lines are WANT's, where a line "..." stands for any
# number of lines
match() {
    awk '
        FNR == NR { want[++nw] = $0; next }
        { got[++ng] = $0 }
        function m(i, j,   k) {
            if (i > nw) return j > ng
            if (want[i] == "...") {
                for (k = j; k <= ng + 1; k++) if (m(i + 1, k)) return 1
                return 0
            }
            return j <= ng && want[i] == got[j] && m(i + 1, j + 1)
        }
        END { exit !m(1, 1) }
    ' "$1" "$2"
}

n=0
for cmd in "$dir"/ex/*.cmd; do
    [ -e "$cmd" ] || break
    n=$((n + 1))
    f=${cmd%.cmd}
    line=$(cat "$cmd")
    (cd "$w" && PATH="$dir/bin:$PATH" sh -c "$line") >"$f.got" 2>&1
    rc=$?
    if [ "$rc" -ne 0 ]; then
        bad "docs/cli.md: \$ $line exited $rc"
        cat "$f.got"
    elif match "$f.want" "$f.got"; then
        ok
    else
        bad "docs/cli.md: \$ $line: the output differs from the page's"
        echo "--- the page shows:"; cat "$f.want"
        echo "--- the command printed:"; cat "$f.got"
    fi
done
# the page's examples were found: at least those of dist and info
[ "$n" -ge 7 ] && ok || bad "docs/cli.md: $n examples found, expected at least 7"

finish docs_cli "$n examples"
