#!/usr/bin/env python3
"""The command blocks of README.md and docs/*.md, checked as far as a CPU
machine in a minute allows.

A command is a "$ " line in any fenced block (the lines after it, up to the
next "$ " line or the fence, its output), or a line of a ```sh block, or of
an unlabelled block whose first line is a command (a "hyperlayout ..." or
"build/bin/..." line); lines indented under a command continue it.  Running
every one is out of reach (GPUs, MPI ranks, installs, benchmarks of
minutes), so each kind of command gets the strictest check that fits:

  hyperlayout ...      run in the block's temporary directory when its input
                       files exist there (made by the block's earlier lines)
                       and it is quick; its output, where the page shows one,
                       compared ("..." stands for any lines).  Otherwise the
                       subcommand must be in `hyperlayout --help` and every
                       --option in `hyperlayout SUB --help`.
  bench programs       build/bin/NAME, build-gpu/bin/NAME: an add_executable
                       of NAME in the tree, and every --option a string in
                       its sources (GPU ones are not built here).
  scripts              scripts/*.sh, bench/*.py, sh FILE, python3 FILE: the
                       file exists and names every --option; sh tests/...
                       (quick) also runs, its output compared.
  make [X] [V=...]     the Makefile has target X and uses V.
  cmake -DV=...        V is named in CMakeLists.txt or cmake/.
  python3 -c CODE      run (it makes a block's inputs).
  mpirun -np N CMD     CMD checked as above.

Every path into the source tree (tests/..., src/..., bench/...) must exist:
the trees were reorganised and pages point into them.  What none of this
covers is in ALLOWED, with the reason: a new command no rule covers fails.

Usage: docs_commands.py SOURCE_DIR path/to/hyperlayout
"""
import glob
import os
import re
import shlex
import subprocess
import sys
import tempfile

SRC = os.path.abspath(sys.argv[1])
HL = os.path.abspath(sys.argv[2])

# Commands no rule checks, each with why.  Keyed by the command as the page
# writes it (comments and "$ " stripped); one no page writes any more fails,
# so the list cannot go stale.
ALLOWED = {
    'cc prog.c -Iinclude -Lbuild/lib -Wl,-rpath,"$PWD/build/lib" -lhyperlayout -o prog':
        "compiles the reader's prog.c: readme_example compiles the README's",
    'cc prog.c $(pkg-config --cflags --libs hyperlayout)':
        "needs an installed hyperlayout.pc: tests/install checks the installed tree",
    'PYTHONPATH=$HOME/.local/lib/python3/dist-packages python3 -c '
    '"import hyperlayout as hl; print(hl.library_version())"':
        "needs an install under $HOME: tests/install checks the installed module",
    # docs/python.md's pip install: CTest python_pip_install does the same in a temporary venv
    '/usr/bin/python3 -m venv --system-site-packages ~/venv': "python_pip_install makes one",
    '~/venv/bin/pip install --no-build-isolation .': "python_pip_install installs so",
    'cd /tmp && ~/venv/bin/python -c "import hyperlayout as hl; print(hl.__version__, '
    'hl._lib.lib._name)"': "python_pip_install imports it outside the source tree",
    '~/venv/bin/pip uninstall hyperlayout': "python_pip_install uninstalls it",
}

# hyperlayout subcommands too slow to run here (minutes of sweeps); checked
# by their options only.
SLOW = {'ising', 'walker'}
# Where the page's output depends on the machine (threads, ISA, timings):
# run, but the output not compared.
MACHINE_OUTPUT = {('docs/plan.md', 'transform')}

failures = []
checked = {'run': 0, 'compared': 0, 'options': 0, 'allowed': 0}
used_allowed = set()
help_cache = {}


def fail(where, msg):
    failures.append(f'{where}: {msg}')


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


def hyperlayout(where, page, words, line, want, cwd, env):
    sub = next((w for w in words[1:] if not w.startswith('-')), None)
    rc, top = hl_help(None)
    if sub is not None and not re.search(r'^  ' + re.escape(sub) + r'\b', top, re.M):
        fail(where, f'hyperlayout has no subcommand {sub!r}')
        return
    rc, text = hl_help(sub) if sub else (0, top)
    for o in options(words):
        if not names(text, o):
            fail(where, f'hyperlayout {sub or ""} --help does not name {o}')
    checked['options'] += 1
    if sub in SLOW or any('[' in w or w.isupper() or w.startswith('IN.') for w in words):
        return
    files = [w.split(':')[0] for w in words if re.search(r'\.(npy|npz|h5)(:|$)', w)]
    if os.environ.get('HL_DOCS_NO_HDF5') and any(f.endswith('.h5') for f in files):
        return  # a build without HDF5: its options checked, not run
    inputs = files[:1] if sub in ('transform', 'stencil') else files
    if any(not os.path.exists(os.path.join(cwd, f)) for f in inputs):
        return
    run(where, line, None if (page, sub) in MACHINE_OUTPUT else want, cwd, env)


def run(where, line, want, cwd, env):
    r = subprocess.run(line, shell=True, cwd=cwd, env=env, capture_output=True, text=True,
                       timeout=60)
    checked['run'] += 1
    if r.returncode != 0:
        fail(where, f'exited {r.returncode}:\n{r.stdout}{r.stderr}')
    elif want is not None:
        got = (r.stdout + r.stderr).rstrip('\n').split('\n')
        checked['compared'] += 1
        if not match(want, got):
            fail(where, 'the output differs from the page\'s:\n--- the page shows:\n' +
                 '\n'.join(want) + '\n--- the command printed:\n' + '\n'.join(got))


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
    # the options may be parsed in a header the program shares
    for p in list(srcs):
        for inc in re.findall(r'#include "([^"]+)"', open(p).read()):
            q = os.path.join(os.path.dirname(p), inc)
            if os.path.isfile(q):
                srcs.append(q)
    text = ''.join(open(p).read() for p in srcs)
    for o in options(words):
        if not names(text, '"' + o):
            fail(where, f'{name} has no option {o} ({", ".join(os.path.relpath(p, SRC) for p in srcs)})')
    checked['options'] += 1


def script(where, path, words):
    p = os.path.join(SRC, path)
    if not os.path.isfile(p):
        fail(where, f'{path}: no such script')
        return
    text = open(p).read()
    for o in options(words):
        if not names(text, o):
            fail(where, f'{path} has no option {o}')
    checked['options'] += 1


def make(where, words):
    text = open(os.path.join(SRC, 'Makefile')).read()
    for w in words[1:]:
        if '=' in w:
            var = w.split('=')[0]
            if not re.search(r'\b' + var + r'\b', text):
                fail(where, f'the Makefile does not use {var}')
        elif not re.search(r'^' + re.escape(w) + r':', text, re.M):
            fail(where, f'the Makefile has no target {w}')
    checked['options'] += 1


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
    checked['options'] += 1


def check(where, page, line, want, cwd, env):
    if line in ALLOWED:
        used_allowed.add(line)
        checked['allowed'] += 1
        return
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
    for tokens in parts:
        # what runs is the part as the page writes it, its redirections kept
        part = ' '.join(t if t in ('>', '|') else shlex.quote(t) for t in tokens)
        words = [t for t in tokens if t not in ('>', '|')]
        while words and re.match(r'[A-Z_]+=', words[0]):
            words = words[1:]
        if words[:1] == ['mpirun']:
            words = words[3:]
        if not words:
            continue
        check_paths(where, words)
        cmd = words[0]
        if cmd in ('hyperlayout', 'build/bin/hyperlayout'):
            hyperlayout(where, page, words, part if cmd == 'hyperlayout'
                        else part.replace('build/bin/hyperlayout', 'hyperlayout', 1), want, cwd, env)
        elif re.match(r'build(-gpu)?/bin/', cmd):
            bench_program(where, os.path.basename(cmd), words)
        elif cmd in ('python3', '/usr/bin/python3') and words[1:2] == ['-c']:
            r = subprocess.run(part, shell=True, cwd=cwd, env=env, capture_output=True, text=True,
                               timeout=60)
            checked['run'] += 1
            if r.returncode:
                fail(where, f'exited {r.returncode}: {r.stderr}')
        elif cmd == 'sh' and words[1].startswith('tests/'):
            # the tests' scripts are quick and take paths from the root
            script(where, words[1], words[2:])
            run(where, part, want, SRC, env)
        elif cmd in ('python3', '/usr/bin/python3', 'sh'):
            script(where, words[1], words[2:])
        elif re.match(r'(scripts|bench)/', cmd):
            script(where, cmd, words[1:])
        elif cmd == 'make':
            make(where, words)
        elif cmd == 'cmake':
            cmake(where, words)
        else:
            fail(where, f'no rule checks {line!r}: check it, or add it to ALLOWED with why')


def blocks(page):
    """(line number, command, output lines or None) of each block, a list a block."""
    lines = open(os.path.join(SRC, page)).read().split('\n')
    out, i = [], 0
    while i < len(lines):
        m = re.match(r'\s*```(\S*)', lines[i])
        if not m:
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
                   OMP_NUM_THREADS='1')
        n = 0
        for page in pages:
            for b, cmds in enumerate(blocks(page)):
                # each block in a directory of its own: its inputs are what
                # its earlier lines make
                cwd = os.path.join(tmp, f'{page.replace("/", "_")}.{b}')
                os.mkdir(cwd)
                for lineno, line, want in cmds:
                    n += 1
                    check(f'{page}:{lineno}', page, line.strip(), want, cwd, env)
    for line in set(ALLOWED) - used_allowed:
        fail('ALLOWED', f'no page writes {line!r} any more: drop it')
    for f in failures:
        print('FAIL ' + f)
    print(f'{n} commands: {checked["run"]} run ({checked["compared"]} outputs compared), '
          f'{checked["options"]} checked by their options, {checked["allowed"]} allowed')
    # the pages were found and their blocks read
    if n < 50:
        print(f'FAIL only {n} commands found')
        return 1
    return 1 if failures else 0


sys.exit(main())
