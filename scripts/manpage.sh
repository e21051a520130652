#!/bin/sh
# Writes the man page hyperlayout.1 from the CLI's own --help texts, so the
# two cannot drift apart:  scripts/manpage.sh path/to/hyperlayout OUT.1 [RUNNER...]
# RUNNER: a command the CLI runs under, e.g. a cross build's emulator
# (qemu-aarch64 -L /usr/aarch64-linux-gnu).
set -eu
cli=$1
out=$2
shift 2

# roff: a backslash is \e; a line starting with . or ' would be a request.
roff() {
    sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/" -e 's/-/\\-/g'
}

usage=$("$@" "$cli" --help)
version=$("$@" "$cli" --version | sed 's/^hyperlayout //')
# The commands are the first words of the indented lines under "commands:".
commands=$(printf '%s\n' "$usage" |
    sed -n '/^commands:/,/^$/p' | sed -n 's/^  \([a-z][a-z]*\) .*/\1/p; s/^  \([a-z][a-z]*\)$/\1/p' |
    grep -v '^help$' | uniq)

tmp="$out.tmp.$$"
trap 'rm -f "$tmp"' EXIT
{
    echo ".TH HYPERLAYOUT 1 \"\" \"hyperlayout $version\" \"User Commands\""
    echo ".SH NAME"
    echo "hyperlayout \\- store and re\\-lay\\-out rectilinear arrays of any rank"
    echo ".SH SYNOPSIS"
    echo ".B hyperlayout"
    echo ".I command"
    echo "[options] [arguments]"
    echo ".SH DESCRIPTION"
    echo "This page is the text of"
    echo ".B hyperlayout \\-\\-help"
    echo "and of"
    echo ".BI \"hyperlayout \" command \" \\-\\-help\""
    echo "for each command."
    echo ".PP"
    echo ".nf"
    printf '%s\n' "$usage" | roff
    echo ".fi"
    echo ".SH COMMANDS"
    for c in $commands; do
        echo ".SS $c"
        echo ".nf"
        # transform's --help is the short text; the page gets all of it
        if [ "$c" = transform ]; then help=--help-all; else help=--help; fi
        "$@" "$cli" "$c" $help | roff
        echo ".fi"
    done
    echo ".SH SEE ALSO"
    echo "The guide in /usr/share/doc/hyperlayout (or the prefix's share/doc/hyperlayout):"
    echo "README.md, docs/install.md, docs/cli.md, docs/python.md."
} >"$tmp"
mv "$tmp" "$out"
trap - EXIT
