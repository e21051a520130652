#!/bin/sh
# Compiles and runs the C example of README.md and checks what it prints, so
# that the README stays true.
# Usage: readme_example.sh README CC INCDIR LIB [EXTRA_FLAGS [LIBS [RUNNER]]]
# LIBS: what the static library needs after it (the CUDA runtime when built
# with CUDA); RUNNER: the command the example runs under (a cross build's
# emulator, words split by spaces).
set -eu
readme=$1 cc=$2 inc=$3 lib=$4 extra=${5:-} libs=${6:-} runner=${7:-}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
awk '/<!-- readme-example/ {on=1; next} on && /^```c/ {grab=1; next} grab && /^```/ {exit} grab {print}' \
    "$readme" >"$dir/example.c"
[ -s "$dir/example.c" ] || { echo "FAIL: no example found in $readme"; exit 1; }
# shellcheck disable=SC2086
"$cc" -std=c17 -Wall -Wextra -Werror $extra -I"$inc" "$dir/example.c" "$lib" $libs -fopenmp -o "$dir/example"
# shellcheck disable=SC2086
got=$($runner "$dir/example")
want=$(sed -n 's/^It prints `\(.*\)`\. .*/\1/p' "$readme")
if [ "$got" = "$want" ]; then
    echo "1 passed, 0 failed"
else
    echo "FAIL: README example printed '$got', README says '$want'"
    exit 1
fi
