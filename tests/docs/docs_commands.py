#!/usr/bin/env python3
"""Every command line of README.md's and docs/*.md's blocks, run.

A command is a "$ " line in any fenced block (the lines after it, up to the
next "$ " line or the fence, its output), or a line of a ```sh block, or of
an unlabelled block whose first line is a command (a "hyperlayout ..." or
"build/bin/..." line), or a line of an indented (4 spaces) block that
starts with a command (not history.md's: records of runs on past commits);
lines indented under a command continue it.
docs/cli.md's "$ " blocks are docs_cli.sh's.  Each block runs in a scratch
directory of its own, in order, so a line's inputs are what the block's
earlier lines made; an input no earlier line makes is generated first from
INPUTS (NumPy, h5py).  `hyperlayout` is this build's on PATH, build/bin/ is
this build's bin/, `mpirun -np N` is this MPI's with --oversubscribe (root
allowed).  Each line must exit 0 (a page shows an error as `CMD; echo "exit
status $?"`, its output compared), and where the page shows its output the
output must match ("..." stands for any lines).

  run        every hyperlayout and build/bin/ line, mpirun lines, python3 -c,
             sh tests/...; a line the page writes with sizes or lengths too
             big for a test runs with the OVERRIDES substitutions (which say
             what of the page's output is then still compared).
  synopsis   a line with placeholders (IN.npy, GRID, [--option], a | b, a
             last argument "-" that nothing is piped into) is a
             usage line, not an example: its program must exist and take
             every --option it names (hyperlayout SUB --help, a bench
             program's sources, a script's text).
  skipped    SKIP: each line that cannot sensibly run here, with the reason
             (builds and installs of the tree, GPUs, benchmarks of minutes);
             its make targets, CMake options, scripts, options and paths are
             still checked against the tree.

A line that is none of these fails, as does a SKIP entry no page writes any
more.  Lines needing MPI (or HDF5, or the benchmark programs) are left out,
and counted, in a build without them.  HL_DOCS_VERBOSE=1 lists each line's
check (and how long each run took).  Every path into the source tree (tests/..., scripts/...) must
exist.

Usage: docs_commands.py SOURCE_DIR BIN_DIR [MPIEXEC]
  BIN_DIR: the build's bin/ (hyperlayout, the bench programs)
"""
import glob
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time

SRC = os.path.abspath(sys.argv[1])
BIN = os.path.abspath(sys.argv[2])
HL = os.path.join(BIN, 'hyperlayout')
MPIEXEC = sys.argv[3] if len(sys.argv) > 3 else ''
NO_HDF5 = bool(os.environ.get('HL_DOCS_NO_HDF5'))

# Lines not run, each with why (keyed by the line as the page writes it,
# comments and "$ " stripped).
GPU = 'needs an NVIDIA GPU (scripts/gpu-check.sh runs it there)'
SKIP = {
    # building, installing and cross-building the tree itself
    'make demo': 'builds the tree and runs the demo and benchmarks: minutes',
    'make check': 'the whole suite, this test among it',
    'make': 'builds the tree this test runs in',
    'make install PREFIX=$HOME/.local': 'installs: tests/install checks an install',
    'cmake --install build --prefix $HOME/.local': 'installs: tests/install checks an install',
    'DESTDIR=/tmp/stage make install PREFIX=/usr': 'installs: tests/install checks a staged one',
    'scripts/deps.sh --bench': 'installs Debian packages (root, network)',
    'scripts/deps.sh --cross aarch64': 'installs Debian packages (root, network)',
    'cmake -S . -B build -DHL_HPTT_DIR=/path/to/hptt': 'configures another build against an HPTT outside the tree',
    'scripts/cross-check.sh aarch64': 'a whole cross build and its suite under qemu: an hour',
    'cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64.cmake -DHL_WERROR=ON':
        'a cross build (scripts/cross-check.sh)',
    'cmake --build build-aarch64 -j 2': 'a cross build (scripts/cross-check.sh)',
    # the reader's own program and installed copies
    'cc prog.c -Iinclude -Lbuild/lib -Wl,-rpath,"$PWD/build/lib" -lhyperlayout -o prog':
        "compiles the reader's prog.c: readme_example compiles the README's",
    'cc prog.c $(pkg-config --cflags --libs hyperlayout)':
        "needs an installed hyperlayout.pc: tests/install checks the installed tree",
    'PYTHONPATH=$HOME/.local/lib/python3/dist-packages python3 -c '
    '"import hyperlayout as hl; print(hl.library_version())"':
        "needs an install under $HOME: tests/install checks the installed module",
    '/usr/bin/python3 -m venv --system-site-packages ~/venv': "python_pip_install makes one",
    '~/venv/bin/pip install --no-build-isolation .': "python_pip_install installs so",
    'cd /tmp && ~/venv/bin/python -c "import hyperlayout as hl; print(hl.__version__, '
    'hl._lib.lib._name)"': "python_pip_install imports it outside the source tree",
    '~/venv/bin/pip uninstall hyperlayout': "python_pip_install uninstalls it",
    # GPUs
    'scripts/gpu-check.sh --stage-deps --librett /path/to/Librett': 'needs nvcc and a LibreTT clone',
    'scripts/gpu-check.sh --require-gpu --bench': GPU,
    'build-gpu/bin/bench_gpu_librett --quick': GPU,
    'python3 bench/gpu_vs_cupy.py --bench build-gpu/bin/bench_gpu_transforms --quick': GPU,
    'build/bin/bench_gpu_paper': GPU,
    'build/bin/bench_gpu_paper --quick': GPU,
    'build/bin/bench_gpu_paper --dims 2 --sizes 1024,8192 --elem 4 --ops flip --csv flip.csv': GPU,
    'scripts/gpu-check.sh --bench': GPU,
    'scripts/gpu-check.sh': 'builds build-gpu/ with nvcc and runs its suite on a GPU',
    'scripts/gpu-check.sh --require-gpu': GPU,
    'scripts/gpu-check.sh --bench-quick': GPU,
    'scripts/gpu-check.sh -- -DCMAKE_CUDA_ARCHITECTURES=90': 'builds build-gpu/ with nvcc',
    'scripts/gpu-check.sh --stage-deps': 'copies Random123 headers for a GPU machine',
    'scripts/gpu-check.sh --require-gpu && build-gpu/bin/bench_gpu_ising': GPU,
    # benchmarks of minutes (their --quick runs are the bench_* CTest tests)
    'python3 bench/compare_numpy.py --permutes': 'a benchmark: bench_peers and NumPy, minutes',
    '/usr/bin/python3 bench/python_mpi.py --np 2 --sizes 16,128,256,1024 --reps 5':
        'a benchmark of minutes over MPI (bench/python_mpi.py, sizes up to 1 GiB)',
}

# The inputs a page's lines read but no earlier line of its block makes:
# (page, file) -> Python (NumPy, h5py) that makes it in the block's directory.
INPUTS = {
    # "a: 4096x4096 float32": zeros, a sparse file as open_memmap makes it
    ('docs/plan.md', 'a.npy'):
        "np.lib.format.open_memmap('a.npy', 'w+', np.float32, (4096, 4096)).flush()",
    ('docs/hdf5.md', 'big.h5'):
        "h5py.File('big.h5', 'w').create_dataset('rho', data=np.random.rand(8, 6, 4))",
    ('docs/darray.md', 'in.npy'): "np.save('in.npy', np.random.rand(6, 5, 4))",
}


# Lines run other than as written, each with why: `sub` (old, new) on the
# line, `add` words appended; `keep` the page's output lines still compared
# (regular expressions; the other lines stand for any lines).
OVERRIDES = {
    ('docs/plan.md', 'hyperlayout transform --explain a.npy out.npy flip:0'): dict(
        keep=[r'^problem ', r'^plan:', r'^  step 0:', r'^ +(src|dst) ', r'^  lowered to'],
        why='the executor lines depend on the machine (threads, ISA, caches)'),
    ('docs/ising.md', 'build/bin/hyperlayout ising --dims 3 --L 32 --T 4.0:5.0:0.1 --sweeps 10000 --therm 2000 --out run3d'): dict(
        sub=[('--T 4.0:5.0:0.1', '--T 4.0:4.2:0.1'), ('--sweeps 10000', '--sweeps 20'),
             ('--therm 2000', '--therm 5')],
        why='11 temperatures of 12000 sweeps of 32^3: minutes'),
    ('docs/darray.md', 'mpirun -np 4 build/bin/hyperlayout ising --L 30,22 --T 2.0:2.6:0.2 --procs 2x2 --out run2d'): dict(
        add=['--sweeps', '20', '--therm', '5', '--no-plot'],
        why='the default sweeps: a minute on 4 processes (the plots: ising.md\'s line draws them)'),
    ('docs/darray.md', 'mpirun -np 3 build/bin/hyperlayout ising --L 30,22 --T 2.0:2.6:0.2 --procs 1x3 --out run2d --resume'): dict(
        add=['--sweeps', '20', '--therm', '5', '--no-plot'],
        why='the same run: it resumes the finished checkpoint of 2x2 processes on 1x3'),
    ('docs/benchmarks.md', 'build/bin/bench_kindex'): dict(
        add=['--quick'], why='the full benchmark: minutes'),
    ('docs/benchmarks.md', 'build/bin/bench_kindex --csv kindex.csv'): dict(
        add=['--quick'], why='the full benchmark: minutes'),
    ('docs/walker.md', 'build/bin/hyperlayout walker --particles 4000 --stats-every 700'): dict(
        add=['--end', '35', '--variant', 'ptr'],
        keep=[r'^stationary Dirichlet', r'^     700 '],
        why='2800 steps of 3 variants: half a minute; the first 700 steps of one give the '
            'same first row'),
}

failures = []
checked = {'run': 0, 'compared': 0, 'synopsis': 0, 'skipped': 0, 'no-mpi': 0, 'no-hdf5': 0,
           'not-built': 0}
used = set()
help_cache = {}


VERBOSE = os.environ.get('HL_DOCS_VERBOSE')


def fail(where, msg):
    failures.append(f'{where}: {msg}')


def say(where, what, line):
    if VERBOSE:
        print(f'{where}: {what}: {line}')


def hl_help(sub):
    if sub not in help_cache:
        # transform's --help is short: every option is in --help-all
        args = [HL, '--help'] if sub is None else \
            [HL, sub, '--help-all' if sub == 'transform' else '--help']
        r = subprocess.run(args, capture_output=True, text=True, timeout=30)
        help_cache[sub] = (r.returncode, r.stdout + r.stderr)
    return help_cache[sub]


def options(words):
    """The --options a command names, synopsis brackets and values dropped."""
    out = []
    for w in words:
        for m in re.finditer(r'(?:^|[\[|])(--[A-Za-z0-9][A-Za-z0-9-]*)', w):
            out.append(m.group(1))
    return out


def names(text, o):
    """Whether text names option o itself, not a longer one it begins."""
    return re.search(re.escape(o) + r'(?![A-Za-z0-9-])', text) is not None


def placeholder(w):
    """A synopsis's word: [--opt], a | b, IN.npy, GRID, FILE.h5:/GROUP/X, N,N,..."""
    return '[' in w or w in ('|', '...') or w.startswith('N,') or \
        re.fullmatch(r'[A-Z][A-Z0-9_]*(\.\w+)?(:\S*)?', w) is not None


def check_paths(where, words):
    for w in words:
        w = w.strip('[]')
        if re.match(r'(tests|src|include|bench|scripts|docs|apps|python|cmake)/', w):
            if not os.path.exists(os.path.join(SRC, w.split(':')[0])):
                fail(where, f'{w}: no such file in the source tree')


def match(want, got):
    """got's lines are want's, a line "..." standing for any lines."""
    memo = {}

    def m(i, j):
        if (i, j) not in memo:
            if i == len(want):
                r = j == len(got)
            elif want[i] == '...':
                r = any(m(i + 1, k) for k in range(j, len(got) + 1))
            else:
                r = j < len(got) and want[i] == got[j] and m(i + 1, j + 1)
            memo[i, j] = r
        return memo[i, j]
    return m(0, 0)


def hl_options(where, words):
    """hyperlayout's subcommand exists and takes every --option named."""
    sub = next((w for w in words[1:] if not w.startswith('-')), None)
    rc, top = hl_help(None)
    if sub is not None and not re.search(r'^  ' + re.escape(sub) + r'\b', top, re.M):
        fail(where, f'hyperlayout has no subcommand {sub!r}')
        return sub
    rc, text = hl_help(sub) if sub else (0, top)
    for o in options(words):
        if not names(text, o):
            fail(where, f'hyperlayout {sub or ""} --help does not name {o}')
    return sub


def bench_program(where, name, words):
    for cm in glob.glob(os.path.join(SRC, 'bench', '*.cmake')) + \
            glob.glob(os.path.join(SRC, '**', 'CMakeLists.txt'), recursive=True):
        if '/build' in cm[len(SRC):]:
            continue
        text = open(cm).read()
        m = re.search(r'add_executable\(\s*' + re.escape(name) + r'\s([^)]*)\)', text)
        if m:
            break
    else:
        fail(where, f'no add_executable({name} ...) in the tree')
        return
    srcs = []
    for s in m.group(1).split():
        here = os.path.dirname(cm)
        s = s.replace('${PROJECT_SOURCE_DIR}', SRC).replace('${CMAKE_CURRENT_LIST_DIR}', here)
        p = os.path.join(here, s.replace('${CMAKE_CURRENT_SOURCE_DIR}', here))
        if os.path.isfile(p):
            srcs.append(p)
    # the options may be parsed in a header the program shares (bench/'s
    # harness.h, included from bench/ and its subfolders, and by headers)
    for p in srcs:  # grows as headers are found
        for inc in re.findall(r'#include "([^"]+)"', open(p).read()):
            for d in (os.path.dirname(p), os.path.join(SRC, 'bench')):
                q = os.path.normpath(os.path.join(d, inc))
                if os.path.isfile(q):
                    if q not in srcs:
                        srcs.append(q)
                    break
    text = ''.join(open(p).read() for p in srcs)
    for o in options(words):
        if not names(text, '"' + o):
            fail(where, f'{name} has no option {o} ({", ".join(os.path.relpath(p, SRC) for p in srcs)})')


def script(where, path, words):
    p = os.path.join(SRC, path)
    if not os.path.isfile(p):
        fail(where, f'{path}: no such script')
        return
    text = open(p).read()
    for o in options(words):
        if not names(text, o):
            fail(where, f'{path} has no option {o}')


def make(where, words):
    text = open(os.path.join(SRC, 'Makefile')).read()
    for w in words[1:]:
        if '=' in w:
            var = w.split('=')[0]
            if not re.search(r'\b' + var + r'\b', text):
                fail(where, f'the Makefile does not use {var}')
        elif not re.search(r'^' + re.escape(w) + r':', text, re.M):
            fail(where, f'the Makefile has no target {w}')


def cmake(where, words):
    text = open(os.path.join(SRC, 'CMakeLists.txt')).read()
    for p in glob.glob(os.path.join(SRC, 'cmake', '*')) + glob.glob(os.path.join(SRC, '*', '*.cmake')) + \
            glob.glob(os.path.join(SRC, '*', 'CMakeLists.txt')):
        if os.path.isfile(p):
            text += open(p).read()
    for w in words:
        if w.startswith('-D'):
            var = w[2:].split('=')[0]
            if not var.startswith('CMAKE_') and not re.search(r'\b' + var + r'\b', text):
                fail(where, f'no CMake option {var}')


def split(line):
    """The line's commands (split at ; and &&), as (words, the part as shell text)."""
    lex = shlex.shlex(line, posix=True, punctuation_chars=';&|>')
    lex.whitespace_split = True
    lex.commenters = '#'
    parts, tokens = [], []
    for t in lex:
        if t in (';', '&&'):
            parts.append(tokens)
            tokens = []
        else:
            tokens.append(t)
    parts.append(tokens)
    out = []
    for tokens in parts:
        # what runs is the part as the page writes it, its redirections kept
        text = ' '.join(t if t in ('>', '|') else shlex.quote(t) for t in tokens)
        words = [t for t in tokens if t not in ('>', '|')]
        while words and re.match(r'[A-Z_]+=', words[0]):
            words = words[1:]
        if words:
            out.append((words, text))
    return out


def static_checks(where, words):
    """What can be checked of a command without running it."""
    check_paths(where, words)
    cmd = words[0]
    if cmd in ('hyperlayout', 'build/bin/hyperlayout'):
        hl_options(where, words)
    elif re.match(r'build(-gpu)?/bin/', cmd):
        bench_program(where, os.path.basename(cmd), words)
    elif cmd in ('python3', '/usr/bin/python3', 'sh') and words[1:2] != ['-c'] and len(words) > 1 \
            and not words[1].startswith('-'):
        script(where, words[1], words[2:])
    elif re.match(r'(scripts|bench)/', cmd):
        script(where, cmd, words[1:])
    elif cmd == 'make':
        make(where, words)
    elif cmd == 'cmake':
        cmake(where, words)


def make_inputs(where, page, words, cwd, env):
    """The files the command reads that its block has not made: from INPUTS."""
    sub = next((w for w in words[1:] if not w.startswith('-')), None)
    files = [w.split(':')[0] for w in words if re.search(r'\.(npy|npz|h5)(:|$)', w)]
    inputs = files[:1] if sub in ('transform', 'stencil') and '--in-place' not in words else files
    for f in inputs:
        if os.path.exists(os.path.join(cwd, f)):
            continue
        code = INPUTS.get((page, f))
        if code is None:
            fail(where, f'reads {f}, which no earlier line of its block makes: add it to INPUTS')
            return False
        r = subprocess.run([sys.executable, '-c', 'import numpy as np\n' +
                            ('import h5py\n' if '.h5' in f else '') + code],
                           cwd=cwd, env=env, capture_output=True, text=True, timeout=60)
        if r.returncode:
            fail(where, f'making {f} failed: {r.stderr}')
            return False
    return True


def run(where, args, shell_text, want, cwd, env, keep=None):
    t0 = time.monotonic()
    try:
        r = subprocess.run(shell_text if args is None else args, shell=args is None, cwd=cwd,
                           env=env, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        fail(where, 'ran past 120 s: cut it down in OVERRIDES')
        return
    checked['run'] += 1
    say(where, f'run in {time.monotonic() - t0:.1f} s' + (', output compared' if want is not None else ''),
        shell_text or ' '.join(args))
    if r.returncode != 0:
        fail(where, f'exited {r.returncode}:\n{r.stdout}{r.stderr}')
        return
    if want is None:
        return
    if keep is not None:
        want = [w if any(re.search(k, w) for k in keep) else '...'
                for w in want]
        want = [w for i, w in enumerate(want) if w != '...' or i == 0 or want[i - 1] != '...']
    got = (r.stdout + r.stderr).rstrip('\n').split('\n')
    checked['compared'] += 1
    if not match(want, got):
        fail(where, 'the output differs from the page\'s:\n--- the page shows:\n' +
             '\n'.join(want) + '\n--- the command printed:\n' + '\n'.join(got))


def check(where, page, line, want, cwd, env):
    line = re.sub(r'\s+#\s.*$', '', line)  # the page's comment
    if line in SKIP:
        used.add(line)
        checked['skipped'] += 1
        say(where, 'skipped (' + SKIP[line] + ')', line)
        for words, _ in split(line):
            static_checks(where, words)
        return
    ov = OVERRIDES.get((page, line), {})
    if ov:
        used.add((page, line))
    for words, text in split(line):
        np_ = None
        if words[0] == 'mpirun':
            if words[1] != '-np' and words[1:3] == ['--oversubscribe', '-np']:
                words = words[:1] + words[2:]
            np_, words = words[2], words[3:]
        static_checks(where, words)
        # "info -" without a pipe into it: standard input as a usage line
        if any(placeholder(w) for w in words) or (words[-1] == '-' and '|' not in line):
            checked['synopsis'] += 1
            say(where, 'usage line, options checked', text)
            continue
        cmd = words[0]
        for old, new in ov.get('sub', []):
            if old not in line:
                fail(where, f'OVERRIDES: the line no longer has {old!r}')
            words = [w for w in shlex.split(' '.join(words).replace(old, new))]
        words = words + ov.get('add', [])
        if NO_HDF5 and any(re.search(r'\.h5(:|$)', w) for w in words):
            checked['no-hdf5'] += 1
            continue
        if np_ is not None and not MPIEXEC:
            checked['no-mpi'] += 1
            continue
        if re.match(r'build/bin/', cmd) and not os.path.exists(os.path.join(BIN, cmd[10:])):
            checked['not-built'] += 1  # a build without the benchmarks (HL_BUILD_BENCH=OFF)
            say(where, 'not built here', text)
            continue
        if cmd in ('hyperlayout',) or re.match(r'build/bin/', cmd):
            if cmd.endswith('hyperlayout') and not make_inputs(where, page, words, cwd, env):
                continue
            args, run_env = words, env
            if np_ is not None:
                args = [MPIEXEC, '--oversubscribe', '-np', np_] + words
                if cmd == 'hyperlayout':
                    args[4] = HL
                # Open MPI keeps allocations from MPI_Init to exit: not ours
                # for a sanitizer build's leak check to report
                run_env = dict(env, ASAN_OPTIONS=':'.join(
                    o for o in (env.get('ASAN_OPTIONS'), 'detect_leaks=0') if o))
            run(where, args, None, want, cwd, run_env, ov.get('keep'))
        elif cmd in ('python3', '/usr/bin/python3') and words[1:2] == ['-c']:
            run(where, None, text, want, cwd, env)
        elif cmd == 'sh' and words[1].startswith('tests/'):
            # the tests' scripts are quick and take paths from the root
            run(where, None, text, want, SRC, env)
        else:
            fail(where, f'no rule runs {line!r}: run it, or add it to SKIP with why')


def blocks(page):
    """(line number, command, output lines or None) of each block, a list a block."""
    lines = open(os.path.join(SRC, page)).read().split('\n')
    out, i = [], 0
    command = r'(\$ )?(hyperlayout|mpirun|build(-gpu)?/bin/\S+|python3|/usr/bin/python3|sh|cc|make|cmake|scripts/\S+) '
    while i < len(lines):
        m = re.match(r'\s*```(\S*)', lines[i])
        if not m:
            # an indented block after a blank line whose first line is a command
            # (history.md's are records of runs on past commits, not examples)
            if lines[i].startswith('    ') and (i == 0 or not lines[i - 1].strip()) and \
                    re.match(command, lines[i].strip()) and page != 'docs/history.md':
                cmds, indent = [], len(lines[i]) - len(lines[i].lstrip())
                while i < len(lines) and lines[i].startswith(' ' * indent):
                    if lines[i][indent].isspace():  # deeper: the line goes on
                        cmds[-1][1] += ' ' + lines[i].strip()
                    else:
                        cmds.append([i + 1, lines[i].strip(), None])
                    i += 1
                out.append(cmds)
                continue
            i += 1
            continue
        lang, start = m.group(1), i + 1
        end = start
        while end < len(lines) and not re.match(r'\s*```', lines[end]):
            end += 1
        body = lines[start:end]
        i = end + 1
        cmds = []
        if body and body[0].startswith('$ ') and page == 'docs/cli.md':
            pass  # docs_cli runs these, in the files it makes for them
        elif body and body[0].startswith('$ '):
            for k, l in enumerate(body):
                if l.startswith('$ '):
                    cmds.append([start + k + 1, l[2:], []])
                else:
                    cmds[-1][2].append(l)
        elif lang in ('sh', 'bash', 'console') or (
                lang == '' and body and re.match(r'(hyperlayout|build/bin/\S+) ', body[0])):
            for k, l in enumerate(body):
                if not l.strip() or l.lstrip().startswith('#'):
                    continue
                if l[0].isspace() and cmds:
                    cmds[-1][1] += ' ' + l.strip()
                else:
                    cmds.append([start + k + 1, l, None])
        if cmds:
            out.append(cmds)
    return out


def main():
    pages = ['README.md'] + sorted(os.path.relpath(p, SRC)
                                   for p in glob.glob(os.path.join(SRC, 'docs', '*.md')))
    with tempfile.TemporaryDirectory() as tmp:
        os.mkdir(os.path.join(tmp, 'bin'))
        os.symlink(HL, os.path.join(tmp, 'bin', 'hyperlayout'))
        # the pages' python3 is one with NumPy: this one
        os.symlink(sys.executable, os.path.join(tmp, 'bin', 'python3'))
        env = dict(os.environ, PATH=os.path.join(tmp, 'bin') + ':' + os.environ['PATH'],
                   OMP_NUM_THREADS='1', OMPI_ALLOW_RUN_AS_ROOT='1',
                   OMPI_ALLOW_RUN_AS_ROOT_CONFIRM='1', OMPI_MCA_rmaps_base_oversubscribe='1')
        n = 0
        for page in pages:
            for b, cmds in enumerate(blocks(page)):
                # each block in a directory of its own: its inputs are what
                # its earlier lines make; build/bin/ is this build's
                cwd = os.path.join(tmp, f'{page.replace("/", "_")}.{b}')
                os.makedirs(os.path.join(cwd, 'build'))
                os.symlink(BIN, os.path.join(cwd, 'build', 'bin'))
                for lineno, line, want in cmds:
                    n += 1
                    check(f'{page}:{lineno}', page, line.strip(), want, cwd, env)
    for key in set(SKIP) | set(OVERRIDES):
        if key not in used:
            fail('SKIP/OVERRIDES', f'no page writes {key!r} any more: drop it')
    for f in failures:
        print('FAIL ' + f)
    print(f'{n} command lines: {checked["run"]} commands run ({checked["compared"]} outputs compared), '
          f'{checked["synopsis"]} usage lines checked by their options, {checked["skipped"]} lines '
          f'skipped (SKIP), {checked["no-mpi"]} left out without MPI, {checked["no-hdf5"]} '
          f'without HDF5, {checked["not-built"]} programs not built')
    # the pages were found and their blocks read
    if n < 50:
        print(f'FAIL only {n} commands found')
        return 1
    return 1 if failures else 0


sys.exit(main())
