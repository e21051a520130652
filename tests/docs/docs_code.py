#!/usr/bin/env python3
"""The code blocks of README.md and docs/*.md, run.

  ```c, ```cpp  with a main(): compiled against this build (include/, the
                shared library) with -Wall -Wextra -Werror and run; it must
                exit 0.  A program that includes <hyperlayout/darray.h> is
                built with MPI's compiler and run on 2 processes (left out,
                and counted so, in a build without MPI).
  ```python     run by the Python that has NumPy, the module from python/
                and the library from this build (README's block from the
                source tree's root, as it says).
  ```c without a main(): an excerpt of declarations or of a loop, counted
                and listed with -v, not run.

The shell blocks are docs_commands.py's, docs/cli.md's docs_cli.sh's.

Usage: docs_code.py SRC CC CXX LIBDIR PYTHON [MPICC MPIEXEC]
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

SRC, CC, CXX, LIBDIR, PY = [os.path.abspath(a) if i in (0, 3) else a
                            for i, a in enumerate(sys.argv[1:6])]
MPICC = sys.argv[6] if len(sys.argv) > 6 else ''
MPIEXEC = sys.argv[7] if len(sys.argv) > 7 else ''
VERBOSE = os.environ.get('HL_DOCS_VERBOSE')

failures = []
count = {'c': 0, 'mpi': 0, 'python': 0, 'excerpt': 0, 'no-mpi': 0}


def blocks(page):
    lines = open(os.path.join(SRC, page), encoding='utf-8').read().split('\n')
    i = 0
    while i < len(lines):
        m = re.match(r'\s*```(\S*)', lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not re.match(r'\s*```', lines[j]):
            j += 1
        yield i + 1, m.group(1), '\n'.join(lines[i + 1:j]) + '\n'
        i = j + 1


def run(where, args, cwd, env=None, timeout=120):
    r = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if r.returncode:
        failures.append(f'{where}: {" ".join(args[:3])}... exited {r.returncode}\n{r.stdout}{r.stderr}')
    return r.returncode == 0


def c_program(where, lang, body, tmp):
    mpi = 'hyperlayout/darray.h' in body
    if mpi and not (MPICC and MPIEXEC and os.path.exists(os.path.join(LIBDIR, 'libhyperlayout_mpi.so'))):
        count['no-mpi'] += 1
        return
    ext = 'cpp' if lang in ('cpp', 'c++') else 'c'
    src = os.path.join(tmp, f'prog.{ext}')
    open(src, 'w').write(body)
    cc = MPICC if mpi else (CXX if ext == 'cpp' else CC)
    std = '-std=c++17' if ext == 'cpp' else '-std=c17'
    libs = ['-L' + LIBDIR, '-Wl,-rpath,' + LIBDIR] + (['-lhyperlayout_mpi'] if mpi else []) + \
        ['-lhyperlayout', '-lm', '-fopenmp']
    if not run(where, [cc, std, '-Wall', '-Wextra', '-Werror', '-I', os.path.join(SRC, 'include'),
                       src, '-o', os.path.join(tmp, 'prog')] + libs, tmp):
        return
    env = dict(os.environ, OMP_NUM_THREADS='2')
    if mpi:
        env.update(OMPI_ALLOW_RUN_AS_ROOT='1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM='1',
                   OMPI_MCA_rmaps_base_oversubscribe='1')
        args = [MPIEXEC, '-np', '2', '--oversubscribe', './prog']
    else:
        args = ['./prog']
    if run(where, args, tmp, env):
        count['mpi' if mpi else 'c'] += 1


def python_block(where, page, body, tmp):
    env = dict(os.environ, PYTHONPATH=os.path.join(SRC, 'python'),
               HYPERLAYOUT_LIBRARY=os.path.join(LIBDIR, 'libhyperlayout.so'), OMP_NUM_THREADS='2')
    src = os.path.join(tmp, 'block.py')
    open(src, 'w').write(body)
    if run(where, [PY, src], SRC if page == 'README.md' else tmp, env):
        count['python'] += 1


def main():
    pages = ['README.md'] + sorted(os.path.relpath(p, SRC)
                                   for p in glob.glob(os.path.join(SRC, 'docs', '*.md')))
    for page in pages:
        for line, lang, body in blocks(page):
            where = f'{page}:{line}'
            with tempfile.TemporaryDirectory() as tmp:
                if lang in ('c', 'cpp', 'c++') and re.search(r'\bint main\s*\(', body):
                    c_program(where, lang, body, tmp)
                elif lang in ('c', 'cpp', 'c++'):
                    count['excerpt'] += 1
                    if VERBOSE:
                        print(f'excerpt, not run: {where}')
                elif lang == 'python':
                    python_block(where, page, body, tmp)
    for f in failures:
        print('FAIL ' + f)
    print(f'{count["c"]} C/C++ programs run, {count["mpi"]} MPI programs run on 2 processes '
          f'({count["no-mpi"]} left out: no MPI), {count["python"]} Python blocks run, '
          f'{count["excerpt"]} C excerpts without main() not run; {len(failures)} failed')
    return 1 if failures or count['c'] < 3 else 0


sys.exit(main())
