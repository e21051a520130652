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
  ```c without a main(): an excerpt (declarations, or statements out of a
                function).  Each has a harness in FRAGMENTS, keyed by its page
                and first line (not an #include): the declarations the text
                around it defines, and where the excerpt's statements go
                (file scope, or a function body).  Every one is compiled with -Wall -Wextra
                -Werror; those that can run (no GPU, no endless loop, no
                MPI) are linked and run, asserting the values their comments
                state.  A declaration excerpt is checked against the headers:
                its prototypes must agree with theirs (a conflict is an
                error), a struct it shows must have the header's members at
                the header's offsets, and every function it declares must be
                in the library (linked).  An excerpt without a harness fails.

The shell blocks are docs_commands.py's, docs/cli.md's docs_cli.sh's.
HL_DOCS_VERBOSE=1 says what became of each excerpt.

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
count = {'c': 0, 'mpi': 0, 'python': 0, 'excerpt': 0, 'excerpt-run': 0, 'no-mpi': 0}


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



# ---- excerpts: each one's harness -----------------------------------------
#
# Keyed by (page, the excerpt's first line that is not an #include, its
# comment dropped).  Fields:
#   kind   'decls': the excerpt at file scope (prototypes, a struct, a
#          function definition); 'body': its statements in a function body.
#   pre    file-scope declarations the page's surrounding text defines.
#   setup  statements before a body excerpt (values for what it reads).
#   post   statements after it: the values its comments state, asserted
#          (a failed one exits 1), and the uses its results would get.
#   run    link against this build and run (False: compiled only, with the
#          reason in `why`).
#   mpi    an MPI excerpt: MPI's compiler (left out, counted, without MPI).
#   flags  extra compiler flags, each with its reason in `why`.
# Headers an excerpt includes by "name.h" (the applications' own) are looked
# up by name under apps/, wherever they sit, so files may move.
FRAGMENTS = {
    ('docs/cuda.md', 'int hl_cuda_devices(void);'): dict(
        kind='decls', run=True, post='if (hl_cuda_devices() < 0) return 1;',
        why='prototypes: checked against the header, linked; no device here gives 0'),
    ('docs/cuda.md', 'const int64_t L[3] = {256, 256, 256};'): dict(
        kind='body', run=False,
        pre='static void *d_in, *d_out;            /* device arrays of L\'s cells */\n'
            'static const void *in; static void *out; static int64_t iterations;\n',
        post='(void)st;',
        why='needs a GPU (the application\'s CUDA kernels): compiled only'),
    ('docs/darray.md', 'hl_shape s; hl_shape_parse(&s, "[512,512,512,float64]");'): dict(
        kind='body', run=False, mpi=True, post='(void)st; (void)u;',
        why='a time loop without end: compiled only (darray.md\'s MPI programs run)'),
    ('docs/darray.md', 'int64_t start[3], owned[3], frame[3], off;'): dict(
        kind='body', run=False, mpi=True,
        pre='#include <hyperlayout/darray.h>\n'
            'static hl_darray *a;                       /* the previous excerpt\'s */\n'
            'static const int64_t lo[3] = {1, 1, 1};\n',
        flags=['-Wno-unused-variable'],
        why='the loop body is a comment, so b and at are unused; compiled only'),
    ('docs/darray.md', 'hl_dist slabs, pencils;'): dict(
        kind='body', run=False, mpi=True,
        pre='#include <hyperlayout/darray.h>\n'
            'static const int64_t extent[3] = {64, 64, 64}, procs = 4;\n'
            'static double *in, *out;\n',
        why='collective calls on 4 processes with buffers the text leaves out: compiled only'),
    ('docs/dist.md', 'const int64_t extent[] = {9, 5};'): dict(
        kind='body', run=True,
        post='if (d.owners != 6) return 1;    /* "T = 6 owners" */'),
    ('docs/dist.md', 'hl_dist d;'): dict(
        kind='body', run=True,
        pre='static int A[48], mine[48];     /* int A[6][8], owner 2\'s cells */\n',
        setup='for (int i = 0; i < 48; i++) A[i] = i;',
        post='if (st != HL_OK || p.tile != 5 || p.owner != 2 || p.course != 1 || p.phase != 3 ||\n'
             '    p.local != 9 || k != 35 || mine[9] != A[3 + 8 * 4]) return 1;'),
    ('docs/fields.md', 'hl_fields_eqs eqs;'): dict(
        kind='body', run=True,
        pre='static double out[16];\n',
        setup='const int64_t nunk = 5, u = 2, p = 4, c = 1;\ndouble sum = 0;',
        # property p of unknown u is 1; component c of equation 2 (property
        # 4 + c = 5) of u is 0.5; out: the last extract, unknown u's properties
        post='if (st != HL_OK || eqs.nprop != 9 || eqs.offset[0] != 0 || eqs.offset[1] != 3 ||\n'
             '    eqs.offset[2] != 4 || sum != 0.5 || out[4] != 1.0 || out[5] != 0.5) return 1;'),
    ('docs/fields.md', 'hl_status hl_fields_plan(hl_plan **plan, int from, int64_t nunk, int64_t nprop,'): dict(
        kind='decls', run=True),
    ('docs/ising.md', 'int64_t L[3] = {32, 32, 32}, M[1000], B[1000];'): dict(
        kind='body', run=False,
        why='the application\'s functions, not the library\'s: compiled only '
            '(the ising tests run them)'),
    ('docs/npy.md', 'typedef struct hl_npy_info {'): dict(kind='decls', run=True),
    ('docs/npy.md', 'hl_status hl_npz_list(const void *zip, size_t len, hl_npz_member *members, int64_t cap, int64_t *count);'):
        dict(kind='decls', run=True),
    ('docs/tensor.md', 'hl_status stencil(const hl_tensor *A, const hl_tensor *B, void *arg)'): dict(
        kind='decls', run=True, keep_as='tensor_stencil'),
    ('docs/tensor.md', 'hl_tensor a, b;'): dict(
        kind='body', run=True, pre_from='tensor_stencil',
        pre='enum { m = 16, n = 12 };                  /* float[n][m] */\n'
            'static float a_arr[m * n], b_arr[m * n];\n'
            'static hl_layout any_layout;\n',
        setup='for (int i = 0; i < m * n; i++) a_arr[i] = (float)(i % 7);\n'
              'if (hl_layout_tiled(&any_layout, 2, (int64_t[]){m, n}, (int64_t[]){4, 4})) return 1;',
        # b (under any_layout) is the 5-point mean inside, a on the boundary
        post='for (int64_t y = 0; y < n; y++)\n'
             '    for (int64_t x = 0; x < m; x++) {\n'
             '        const float *s = a_arr + x + m * y;\n'
             '        float want = *s;\n'
             '        if (x > 0 && y > 0 && x < m - 1 && y < n - 1)\n'
             '            want = (*s + s[-1] + s[1] + s[-m] + s[m]) / 5;\n'
             '        int64_t off;\n'
             '        if (hl_layout_offset(&any_layout, (int64_t[]){x, y}, &off) || b_arr[off] != want)\n'
             '            return 1;\n'
             '    }'),
}
kept = {}


def strip_comments(text):
    return re.sub(r'/\*.*?\*/', ' ', re.sub(r'//[^\n]*', '', text), flags=re.S)


def fragment_key(page, body):
    first = next(l for l in body.split('\n') if l.strip() and not l.startswith('#include'))
    return page, re.sub(r'\s+', ' ', strip_comments(first)).strip()


def top_level(text):
    """The excerpt's file-scope statements (ending in ';' outside braces)."""
    out, depth, cur = [], 0, ''
    for ch in strip_comments(text):
        cur += ch
        if ch in '{(':
            depth += 1
        elif ch in '})':
            depth -= 1
        elif ch == ';' and depth == 0:
            out.append(cur.strip())
            cur = ''
    return out


def decls_checks(body):
    """body with each struct it shows renamed, plus the checks: the struct's
    members at the header's offsets, every declared function's address."""
    checks, funcs = [], []
    for name in re.findall(r'typedef struct (\w+) \{', body):
        m = re.search(r'typedef struct ' + name + r' \{(.*?)\n\} ' + name + ';', body, re.S)
        members = []
        for decl in strip_comments(m.group(1)).split(';'):
            decl = re.sub(r'\[[^\]]*\]', '', decl)
            for piece in decl.split(','):
                ids = re.findall(r'[A-Za-z_]\w*', piece)
                if ids:
                    members.append(ids[-1])
        body = body.replace(m.group(0), m.group(0).replace(name, 'doc_' + name))
        checks.append(f'_Static_assert(sizeof(doc_{name}) == sizeof({name}), "{name}: the size");')
        for f in members:
            checks.append(f'_Static_assert(offsetof(doc_{name}, {f}) == offsetof({name}, {f}) && '
                          f'sizeof(((doc_{name} *)0)->{f}) == sizeof((({name} *)0)->{f}), '
                          f'"{name}.{f}: not where the header has it");')
    for st in top_level(body):
        if st.startswith('typedef') or '(' not in st:
            continue
        funcs.append(re.findall(r'(\w+)\s*\(', st)[0])
    uses = ''.join(f'    {{ void (*volatile f)(void) = (void (*)(void)){f}; (void)f; }}\n' for f in funcs)
    return body, '\n'.join(checks) + '\n', uses


def app_include_dirs(body):
    dirs = []
    for h in re.findall(r'#include "([^"]+)"', body):
        found = [d for d, _, files in os.walk(os.path.join(SRC, 'apps')) if h in files]
        dirs += found[:1]
    return dirs


def excerpt(where, page, line, body, tmp):
    key = fragment_key(page, body)
    h = FRAGMENTS.get(key)
    if h is None:
        failures.append(f'{where}: an excerpt without a harness: add {key!r} to FRAGMENTS '
                        '(docs_code.py), with what the text around it defines')
        return
    seen_keys.add(key)
    if h.get('keep_as'):
        kept[h['keep_as']] = (line, body)
    mpi = h.get('mpi', False)
    if mpi and not MPICC:
        count['no-mpi'] += 1
        return
    incs = ''.join(l + '\n' for l in body.split('\n') if l.startswith('#include'))
    rest = '\n'.join('' if l.startswith('#include') else l for l in body.split('\n'))
    src = ('#include <hyperlayout.h>\n#include <stddef.h>\n#include <stdio.h>\n' + incs +
           '#line 1 "harness"\n' + h.get('pre', ''))
    if h.get('pre_from'):
        kline, kbody = kept[h['pre_from']]
        src += f'#line {kline + 1} "{page}"\n' + kbody
    line_mark = f'#line {line + 1} "{page}"\n'
    if h['kind'] == 'decls':
        rest, checks, uses = decls_checks(rest)
        src += (line_mark + rest + '#line 1 "harness"\n' + checks +
                'int main(void)\n{\n' + uses + h.get('post', '') + '\n    return 0;\n}\n')
    else:
        src += ('static int excerpt(void)\n{\n' + h.get('setup', '') + '\n' + line_mark + rest +
                '#line 1 "harness"\n' + h.get('post', '') + '\n    return 0;\n}\n'
                'int main(void) { return excerpt(); }\n')
    path = os.path.join(tmp, 'excerpt.c')
    open(path, 'w').write(src)
    cc = MPICC if mpi else CC
    args = [cc, '-std=c17', '-Wall', '-Wextra', '-Werror'] + h.get('flags', []) + \
        ['-I', os.path.join(SRC, 'include')] + \
        [a for d in app_include_dirs(body) for a in ('-I', d)] + [path]
    if not h['run']:
        if run(where, args + ['-c', '-o', os.path.join(tmp, 'excerpt.o')], tmp):
            count['excerpt'] += 1
            if VERBOSE:
                print(f'{where}: excerpt compiled, not run: {h["why"]}')
        return
    libs = ['-L' + LIBDIR, '-Wl,-rpath,' + LIBDIR, '-lhyperlayout', '-lm', '-fopenmp']
    if run(where, args + ['-o', os.path.join(tmp, 'excerpt')] + libs, tmp) and \
            run(where, ['./excerpt'], tmp, dict(os.environ, OMP_NUM_THREADS='2')):
        count['excerpt'] += 1
        count['excerpt-run'] += 1
        if VERBOSE:
            print(f'{where}: excerpt compiled, linked and run')


seen_keys = set()


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
                    excerpt(where, page, line, body, tmp)
                elif lang == 'python':
                    python_block(where, page, body, tmp)
    for key in set(FRAGMENTS) - seen_keys:
        failures.append(f'FRAGMENTS: no page shows the excerpt {key!r} any more: drop its harness')
    for f in failures:
        print('FAIL ' + f)
    print(f'{count["c"]} C/C++ programs run, {count["mpi"]} MPI programs run on 2 processes '
          f'({count["no-mpi"]} left out: no MPI), {count["python"]} Python blocks run, '
          f'{count["excerpt"]} C excerpts compiled in their harness '
          f'({count["excerpt-run"]} of them linked and run); {len(failures)} failed')
    return 1 if failures or count['c'] < 3 else 0


sys.exit(main())
