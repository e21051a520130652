# The command-line tests' shared helpers (tests/*/*.sh), POSIX
# sh.  A script sets HL (the hyperlayout binary), then sources this file:
#   . "$(dirname "$0")/lib.sh"
# CTest runs each script by its path, so $0 finds this file.
#
# $dir is a temporary directory, removed on exit; a script that has more to
# clean up sets its own EXIT trap, removing $dir too.  $out and $err hold the
# last run's stdout and stderr.  HL_SUB, set after sourcing, is a subcommand
# that every run of a script shares (ising_cli.sh's runs are all of `ising`).

pass=0
fail=0
HL_SUB=
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
out=$dir/stdout
err=$dir/stderr

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# run ARGS...: hyperlayout [HL_SUB] ARGS..., its output kept in $out and $err
run() { "$HL" ${HL_SUB:+"$HL_SUB"} "$@" >"$out" 2>"$err"; }

# expect_ok ARGS...: exit 0
expect_ok() {
    if run "$@"; then ok; else bad "hyperlayout${HL_SUB:+ $HL_SUB} $* exited $?"; cat "$err"; fi
}

# refused RC WHAT: the run of WHAT that wrote $out and $err and exited RC was
# a refusal of bad input: exit 2, exactly one line on stderr (one with text:
# counted both as newlines and as non-empty lines, so neither a blank line
# nor an unterminated second line passes), nothing on stdout.  Scripts that
# start the tool themselves (under mpirun) call it directly.
refused() {
    rc=$1
    shift
    if [ "$rc" -ne 2 ]; then bad "$* exited $rc, expected 2"; cat "$err"; return; fi
    n=$(wc -l <"$err")
    if [ "$n" -ne 1 ] || [ "$(grep -c . "$err")" -ne 1 ]; then
        bad "$*: $n lines on stderr"; cat "$err"; return
    fi
    if [ -s "$out" ]; then bad "$*: wrote to stdout"; cat "$out"; return; fi
    ok
}
# expect_fail ARGS...: refused (above)
expect_fail() {
    run "$@"
    refused $? "hyperlayout${HL_SUB:+ $HL_SUB} $*"
}

# expect_err TEXT: the last run's stderr contains TEXT
expect_err() { if grep -q -F -e "$1" "$err"; then ok; else bad "stderr lacks '$1'"; cat "$err"; fi; }
# expect_out PATTERN: the last run printed a line matching PATTERN
expect_out() { if grep -q -e "$1" "$out"; then ok; else bad "stdout lacks '$1'"; cat "$out"; fi; }

# npy_header MAGIC-VERSION DICT: a .npy header padded to 128 bytes (DICT at
# most 117 characters); MAGIC-VERSION is printf's escapes, so that a test can
# write a wrong magic or version
npy_header() {
    # shellcheck disable=SC2059 # $1 is a format: its escapes are the point
    printf "$1\166\000"
    printf '%-117s\n' "$2"
}

# skipped WHAT: a check that cannot run here (counted in $skip)
skip=0
skipped() { skip=$((skip + 1)); echo "skipped: $*"; }

# no_temps DIR WHAT: no hidden temporary (".NAME.XXXXXX") left in DIR
no_temps() {
    if ls -A "$1" | grep -q '^\..*\.......$'; then bad "$2: temporaries left: $(ls -A "$1" | grep '^\.' | tr '\n' ' ')"; else ok; fi
}

# finish LABEL [MORE]: the counts (and MORE), and the script's exit status:
# a script ends with it
finish() {
    echo "$1: $pass passed, $fail failed${2:+, $2}"
    [ "$fail" -eq 0 ]
}
