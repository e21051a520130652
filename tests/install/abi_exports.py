#!/usr/bin/env python3
"""The shared libraries export exactly the functions of the installed headers.

  abi_exports.py INCLUDE_DIR PYTHON_DIR HDF5(ON|OFF) LIBHYPERLAYOUT.so [LIBHYPERLAYOUT_MPI.so]

nm -D --defined-only of each library against the functions the headers
declare (every top-level declaration carries HL_API: scripts/add_hl_api.py):
libhyperlayout exports those of every header but darray.h, libhyperlayout_mpi
those of darray.h, nothing else, all hl_-prefixed.  Also: every hl_ function
libhyperlayout_mpi takes from the core is exported by it, and every function
the Python module binds by name (python/hyperlayout/_lib.py, mpi.py) is
exported by the library it loads.  The locks GCC makes for named OpenMP
critical sections (.gomp_critical_user_*, data) are not functions and are
left out.  mpi_core.h's HDF5 functions exist only
in a build with HDF5.  Only the standard library and binutils' nm.
"""
import os
import re
import subprocess
import sys

HL_DECL = re.compile(r'^HL_API\b[\w \t\*&]*?\b(hl_[a-z0-9_]+)\s*\(')
# a top-level declaration without HL_API (scripts/add_hl_api.py's rule)
BARE = re.compile(r'^(?!typedef|#|return|static|inline|constexpr|extern|HL_API|HL_HOSTDEV|HL_FIELDS_INLINE|\s)'
                  r'[A-Za-z_][\w \t\*&]*?\b(hl_[a-z0-9_]+)\s*\(')


def is_definition(lines, i):
    """Whether the declaration starting at lines[i] has a body."""
    for line in lines[i:i + 12]:
        for ch in line:
            if ch == ';':
                return False
            if ch == '{':
                return True
    return False


def declared(inc):
    """{name: header} of the HL_API functions; the failures."""
    names, bad = {}, []
    for h in sorted(os.listdir(inc)):
        if not h.endswith('.h') or h == 'fields_cxx.h':
            continue
        lines = open(os.path.join(inc, h)).read().split('\n')
        for n, line in enumerate(lines, 1):
            m = HL_DECL.match(line)
            if m:
                names[m.group(1)] = h
            elif BARE.match(line) and not is_definition(lines, n - 1):
                bad.append('%s:%d: %s declared without HL_API (run scripts/add_hl_api.py)'
                           % (h, n, BARE.match(line).group(1)))
    return names, bad


def nm(lib, *flags):
    out = subprocess.run(['nm', '-D', *flags, lib], check=True, capture_output=True,
                         text=True).stdout
    syms = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 2:
            syms[f[-1].split('@')[0]] = f[-2]
    return syms


def python_names(pydir, module):
    text = open(os.path.join(pydir, 'hyperlayout', module)).read()
    # the binding tables' rows: ("hl_name", restype, [argtypes])
    return set(re.findall(r'\(\s*"(hl_[a-z0-9_]+)",\s*(?:None|[\w.]+(?:\([^()]*\))?),\s*\[', text))


def compare(label, exported, want, bad):
    for s in sorted(set(exported) - set(want)):
        if s.startswith('.gomp_critical_user_') and exported[s] in 'BC':
            continue  # the lock of a named OpenMP critical section: GCC makes it global
        bad.append('%s exports %s (%s), which no installed header declares%s'
                   % (label, s, exported[s], '' if s.startswith('hl_') else ', not hl_-prefixed'))
    for s in sorted(set(want) - set(exported)):
        bad.append('%s does not export %s, declared in %s' % (label, s, want[s]))


def main():
    inc, pydir, hdf5, core = sys.argv[1:5]
    mpi = sys.argv[5] if len(sys.argv) > 5 else None
    decl, bad = declared(os.path.join(inc, 'hyperlayout'))
    want_core = {n: h for n, h in decl.items() if h != 'darray.h' and
                 not (hdf5 != 'ON' and h == 'mpi_core.h' and n.startswith('hl_h5_'))}
    core_syms = nm(core, '--defined-only')
    compare(os.path.basename(core), core_syms, want_core, bad)
    for n in sorted(python_names(pydir, '_lib.py') - set(core_syms)):
        bad.append('python/hyperlayout/_lib.py binds %s, which %s does not export' % (n, core))
    counts = ['%s: %d' % (os.path.basename(core), len(core_syms))]
    if mpi:
        mpi_syms = nm(mpi, '--defined-only')
        compare(os.path.basename(mpi), mpi_syms,
                {n: h for n, h in decl.items() if h == 'darray.h'}, bad)
        for n in sorted(s for s in nm(mpi, '--undefined-only') if s.startswith('hl_')):
            if n not in core_syms:
                bad.append('%s calls %s, which %s does not export' % (mpi, n, core))
        for n in sorted(python_names(pydir, 'mpi.py') - set(mpi_syms)):
            bad.append('python/hyperlayout/mpi.py binds %s, which %s does not export' % (n, mpi))
        counts.append('%s: %d' % (os.path.basename(mpi), len(mpi_syms)))
    print('exported: ' + ', '.join(counts) + '; declared: %d' % len(decl))
    for b in bad:
        print('abi_exports: ' + b)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
