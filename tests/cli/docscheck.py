#!/usr/bin/python3
"""docscheck.py ROOT — the references of a source tree resolve from a clone.

Prints one line per problem and exits 1 when there is any:
- a citation "NNN §..", "NNN eq. ..", "NNN Fig. .." (also "\\(sc" in man
  pages) in lib/, cmd/ or man/ whose code NNN is not keyed in
  doc/REFERENCES.md;
- a "MATH.md §N" (or §N.M, §N-M) whose section has no heading in
  doc/MATH.md;
- a module of lib/ missing from the layer table of doc/MODULES.md, or an
  #include of lib/ that reaches up a layer.
"""
import glob
import os
import re
import sys

root = sys.argv[1]
problems = []


def read(path):
    with open(os.path.join(root, path), encoding="utf-8") as f:
        return f.read()


codes = set(re.findall(r"^\| (\d{3}) \|", read("doc/REFERENCES.md"), re.M))
sections = set()
for m in re.finditer(r"^#{2,3} (\d+(?:\.\d+)*)\.? ", read("doc/MATH.md"), re.M):
    sections.add(m.group(1))

SEC = r"(?:§|\\\(sc)"
CITE = re.compile(r"(?<![\w.])(\d{3}) (?:" + SEC + r"|eqs?\.|App\.|Table|Figs?\.|Ch\.)")
MATH = re.compile(r"MATH(?:\.md)? " + SEC + r" ?(\d+(?:\.\d+)?)(?:\s*(?:-|–|\\\(en)\s*(\d+(?:\.\d+)?))?")

files = []
for pattern in ("lib/*.[ch]", "cmd/*.c", "man/man*/*.[0-9]"):
    files += sorted(glob.glob(os.path.join(root, pattern)))
for path in files:
    rel = os.path.relpath(path, root)
    for n, line in enumerate(read(rel).split("\n"), 1):
        for m in CITE.finditer(line):
            if m.group(1) not in codes:
                problems.append(f"{rel}:{n}: citation code {m.group(1)} is not in doc/REFERENCES.md")
        for m in MATH.finditer(line):
            for s in filter(None, m.groups()):
                if s not in sections:
                    problems.append(f"{rel}:{n}: MATH.md §{s} has no heading in doc/MATH.md")

# Layers: "| N name | module module ... | ..." rows of doc/MODULES.md.
layer = {}
for m in re.finditer(r"^\| (\d) [^|]+\| ([a-z0-9_ ]+) \|", read("doc/MODULES.md"), re.M):
    for mod in m.group(2).split():
        layer[mod] = int(m.group(1))
for path in sorted(glob.glob(os.path.join(root, "lib/*.[ch]"))):
    rel = os.path.relpath(path, root)
    mod = os.path.basename(path)[:-2]
    if mod not in layer:
        problems.append(f"{rel}: module {mod} is not in the layer table of doc/MODULES.md")
        continue
    for n, line in enumerate(read(rel).split("\n"), 1):
        m = re.match(r'#include "([a-z0-9_]+)\.h"', line)
        if m and m.group(1) in layer and layer[m.group(1)] > layer[mod]:
            problems.append(f"{rel}:{n}: {mod} (layer {layer[mod]}) includes {m.group(1)}.h "
                            f"(layer {layer[m.group(1)]})")

for p in problems:
    print(p)
sys.exit(1 if problems else 0)
