"""Runs the Python block that follows MARKER in a Markdown file, as written
(docs/python.md's distributed example under mpirun).
usage: docs_example.py FILE.md MARKER"""
import re
import sys

text = open(sys.argv[1]).read()
marker = "<!-- %s -->" % sys.argv[2]
at = text.find(marker)
if at < 0:
    raise SystemExit("%s: no %s" % (sys.argv[1], marker))
block = re.match(r"\s*```python\n(.*?)```", text[at + len(marker):], re.S)
if not block:
    raise SystemExit("%s: no ```python block after %s" % (sys.argv[1], marker))
exec(compile(block.group(1), "%s (%s)" % (sys.argv[1], sys.argv[2]), "exec"), {"__name__": "__main__"})
