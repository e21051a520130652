#!/bin/sh
# The planner names no executor (issue 47): of src/plan, only the table
# (executors.c) names an executor's row; the kinds and the entry points ask
# a row what it can do.  $1: the source tree's root.
set -eu
root=$1
rows=$(grep -rhoE 'const hl_executor (hl_[a-z0-9_]+_executor) =' "$root/src" | awk '{print $3}' | sort -u)
[ -n "$rows" ] || { echo "no executor rows found under $root/src"; exit 1; }
bad=0
for row in $rows; do
    # each row must be in the table, and named nowhere else in src/plan
    grep -qw "$row" "$root/src/plan/executors.c" || { echo "$row: not in src/plan/executors.c"; bad=1; }
    for f in $(grep -rlw "$row" "$root/src/plan" || true); do
        [ "$f" = "$root/src/plan/executors.c" ] && continue
        grep -nw "$row" "$f" | sed "s|^|$f:|"
        bad=1
    done
done
[ $bad -eq 0 ] && echo "src/plan names the executors ($(echo $rows | tr '\n' ' ')) only in executors.c"
exit $bad
