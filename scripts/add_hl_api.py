#!/usr/bin/env python3
"""Puts HL_API (include/hyperlayout/base.h) before every function declared
at the top level of the installed headers, so that the shared libraries,
built with -fvisibility=hidden, export exactly those functions.

  scripts/add_hl_api.py [INCLUDE_DIR]     (default: include/hyperlayout)

A declaration is a line that starts (column 0) with a return type and an
hl_ name followed by '(' -- the same rule as scripts/api_doc.py -- and is
not a definition (static, inline, constexpr, HL_FIELDS_INLINE, or a body
'{' before the ';' that would end a declaration).
Idempotent: lines that have HL_API already are left as they are, so it can
be run again after headers change (the coordinator re-runs it at merge).
"""
import os
import re
import sys

DECL = re.compile(r'^(?!typedef|#|return|static|inline|constexpr|extern|HL_API|HL_HOSTDEV|HL_FIELDS_INLINE|\s)'
                  r'[A-Za-z_][\w \t\*&]*?\b(hl_[a-z0-9_]+)\s*\(')


def is_definition(lines, i):
    """Whether the declaration starting at lines[i] has a body."""
    for line in lines[i:i + 12]:
        for ch in line.split('//')[0]:
            if ch == ';':
                return False
            if ch == '{':
                return True
    return False


def mark(path):
    lines = open(path).read().split('\n')
    changed = 0
    for i, line in enumerate(lines):
        if DECL.match(line) and not is_definition(lines, i):
            lines[i] = 'HL_API ' + line
            changed += 1
    if changed:
        with open(path, 'w') as f:
            f.write('\n'.join(lines))
    return changed


def main():
    inc = sys.argv[1] if len(sys.argv) > 1 else 'include/hyperlayout'
    for name in sorted(os.listdir(inc)):
        if name.endswith('.h') and name != 'fields_cxx.h':  # C++ inline overloads only
            n = mark(os.path.join(inc, name))
            if n:
                print(f'{name}: {n}')


if __name__ == '__main__':
    main()
