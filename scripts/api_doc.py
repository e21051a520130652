#!/usr/bin/env python3
"""docs/api.md from the installed headers' comments.

Every public function of include/hyperlayout/*.h -- declared, or defined
static inline, at the top level of a header; in fields_cxx.h the C++
overloads of fields.h's generic names -- one line each: its name (a link to
the line of its header), and the first sentence of the comment above it
(or above the group of declarations it belongs to).  Names ending in '_'
are the headers' own helpers, not API.  Functions are grouped by subject.

  api_doc.py INCLUDE_DIR > docs/api.md      write the page
  api_doc.py --check INCLUDE_DIR docs/api.md [LIB.so ...]
      the page is what INCLUDE_DIR gives, word for word, and names every
      hl_ function that each LIB.so exports and a header declares (a check
      that does not trust this parser: nm's view of the libraries)

Only the standard library: any python3 runs it.
"""
import os
import re
import subprocess
import sys

# Subjects, in the page's order: (title, headers, name patterns).  A
# function goes to the first subject that takes its header and, where the
# subject gives patterns, matches one.
SUBJECTS = [
    ('Shapes, status and the k-index', ['base.h', 'version.h', 'shape.h', 'kindex.h', 'neighbours.h'], None),
    ('Layouts', ['layout.h'], None),
    ('Execution and executors', ['plan.h', 'expert.h'], [r'hl_execute', r'hl_isa_']),
    ('Problems and plans', ['problem.h', 'plan.h', 'ops.h'], None),
    ('Wisdom', ['wisdom.h'], None),
    ('I/O: .npy, .npz, HDF5, atomic files', ['npy.h', 'npz.h', 'h5.h', 'atomic.h'], None),
    ('Distributions and distributed arrays (MPI)', ['dist.h', 'darray.h'], None),
    ('Tensors', ['tensor.h'], None),
    ('Fields', ['fields.h', 'fields_cxx.h'], None),
    ('CUDA', ['cuda.h'], None),
    ('The core as libhyperlayout_mpi uses it (no promise to applications)', ['mpi_core.h'], None),
]

DECL = re.compile(r'^(?!typedef|#|return|\s)[A-Za-z_][\w \t\*&]*?\b(hl_[a-z0-9_]+)\s*\(')


def strip_strings(line):
    return re.sub(r'"(\\.|[^"\\])*"', '""', line)


def signature(lines, i):
    """The declaration starting at lines[i], up to its ')' (one line)."""
    text = ''
    for l in lines[i:i + 8]:
        text += ' ' + l.strip()
        if ')' in l:
            break
    text = text.split('{')[0].rstrip(' ;')
    text = re.sub(r'\b(HL_API|HL_HOSTDEV|HL_FIELDS_INLINE|static|inline)\s+', '', text)
    return ' '.join(text.split())


def functions(path):
    """(name, line, summary) of the header's top-level functions; the
    summary is the comment's first sentence, or the declaration where the
    header gives no comment."""
    out = []
    depth = 0
    comment, last_comment, in_comment, skipping = [], None, False, False
    prev_decl = False  # the line before was (part of) a declaration
    lines = open(path, encoding='utf-8').read().split('\n')
    for no, raw in enumerate(lines, 1):
        line = strip_strings(raw)
        if in_comment:
            comment.append(line)
            if '*/' in line:
                in_comment = False
                last_comment = None if skipping else ' '.join(comment)
            continue
        if depth == 0 and line.startswith('/*') and (
                line.startswith('/* ----') or line.startswith('/* hyperlayout')):
            # a section rule or the file's own comment: no function's
            in_comment = '*/' not in line
            comment, last_comment, skipping = [], None, True
            continue
        if depth == 0 and line.startswith('/*'):
            comment, skipping = [line], False
            if '*/' in line:
                last_comment = line
            else:
                in_comment = True
            continue
        code = re.sub(r'/\*.*?\*/', '', line).split('//')[0]
        m = DECL.match(code) if depth == 0 else None
        if m and not m.group(1).endswith('_'):
            name = m.group(1)
            # a comment is a group's when the declarations follow it
            # without a blank line: the first takes it, the others where it
            # names them (hl_plan_uncrinkle under "crinkles (uncrinkles)")
            c = last_comment
            if c and prev_decl and name.split('_')[-1] not in c:
                c = None
            text = summary(c) or '`' + signature(lines, no - 1) + '`'
            out.append((name, no, text))
            prev_decl = True
        elif depth == 0 and not code.strip():
            # a blank line ends a group: its comment is not the next one's
            if prev_decl:
                last_comment = None
            prev_decl = False
        elif depth == 0 and code.startswith('#'):
            pass
        depth += code.count('{') - code.count('}')
        # extern "C" { ... } is the top level
        if 'extern "C" {' in raw or raw.startswith('extern "C"'):
            depth -= code.count('{')
        if depth < 0:
            depth = 0
    return out


def summary(comment):
    if not comment:
        return ''
    text = re.sub(r'\s*\*+/?\s*|/\*+', ' ', comment)
    text = ' '.join(text.split())
    m = re.match(r'(.+?\.)(\s|$)', text)
    s = m.group(1) if m else text
    if len(s) > 160:
        s = s[:157].rsplit(' ', 1)[0] + ' ...'
    return s.replace('|', '\\|')


def page(incdir):
    hdir = os.path.join(incdir, 'hyperlayout')
    headers = sorted(f for f in os.listdir(hdir) if f.endswith('.h'))
    found = {h: functions(os.path.join(hdir, h)) for h in headers}
    seen, groups = set(), [[] for _ in SUBJECTS]
    for h in headers:
        for name, no, text in found[h]:
            if name in seen:  # a C++ overload of a name already listed
                continue
            for g, (title, hs, pats) in enumerate(SUBJECTS):
                if h in hs and (pats is None or any(re.match(p, name) for p in pats)):
                    groups[g].append((name, h, no, text))
                    seen.add(name)
                    break
            else:
                raise SystemExit(f'api_doc.py: {h}: no subject takes {name}: add it to SUBJECTS')
    out = ['# API reference', '',
           'Every public function of the installed headers (`#include <hyperlayout.h>`, and',
           '`<hyperlayout/darray.h>`, `<hyperlayout/expert.h>`, `<hyperlayout/fields_cxx.h>`,',
           '`<hyperlayout/mpi_core.h>` where named; the shared libraries export exactly these),',
           'one line each with the first sentence of its header comment; the name links',
           'to the declaration, where the whole comment is. Generated by `scripts/api_doc.py`',
           'from the headers (`make docs`); the `api_page` test checks that it is current. For',
           'example, the first function most programs call:', '',
           '```c',
           '#include <hyperlayout.h>',
           '#include <stdio.h>',
           '',
           'int main(void) {',
           '    hl_shape s;',
           '    hl_status st = hl_shape_parse(&s, "[4,3,float64]");   /* every call returns a status */',
           '    if (st != HL_OK) { fprintf(stderr, "%s\\n", hl_strerror(st)); return 1; }',
           '    printf("%lld elements\\n", (long long)hl_shape_count(&s));',
           '    return 0;',
           '}',
           '```', '',
           f'{len(seen)} functions in {len(headers)} headers.', '']
    for (title, _, _), fs in zip(SUBJECTS, groups):
        if not fs:
            continue
        out += [f'## {title}', '', '| function | what it does |', '| --- | --- |']
        for name, h, no, text in fs:
            out.append(f'| [`{name}`](../include/hyperlayout/{h}#L{no}) | {text} |')
        out.append('')
    return '\n'.join(out), seen


def exported(lib):
    r = subprocess.run(['nm', '-D', '--defined-only', lib], capture_output=True, text=True, check=True)
    return {l.split()[-1] for l in r.stdout.splitlines() if re.search(r' T hl_', l)}


def main(argv):
    if argv[:1] == ['--check']:
        incdir, md, libs = argv[1], argv[2], argv[3:]
        want, names = page(incdir)
        bad = 0
        if open(md, encoding='utf-8').read() != want + '\n':
            print(f'{md} is not what {incdir} gives: run make docs')
            bad += 1
        hdir = os.path.join(incdir, 'hyperlayout')
        text = ''.join(open(os.path.join(hdir, h), encoding='utf-8').read()
                       for h in os.listdir(hdir) if h.endswith('.h'))
        text += open(os.path.join(incdir, 'hyperlayout.h'), encoding='utf-8').read()
        n = 0
        for lib in libs:
            for sym in sorted(exported(lib)):
                if re.search(r'\b' + sym + r'\s*\(', text):
                    n += 1
                    if f'[`{sym}`]' not in want:
                        print(f'{sym} ({os.path.basename(lib)}, declared in a header) is not on the page')
                        bad += 1
        print(f'{len(names)} functions listed; {n} exported functions of {len(libs)} libraries '
              f'found on the page; {bad} problems')
        return 1 if bad or (libs and n == 0) else 0
    text, _ = page(argv[0])
    sys.stdout.write(text + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
