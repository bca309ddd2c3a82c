#!/usr/bin/python3
"""docscheck.py ROOT — the references of a source tree resolve from a clone.

Prints one line per problem and exits 1 when there is any:
- a citation "NNN §..", "NNN eq. ..", "NNN Fig. .." (also "\\(sc" in man
  pages) in lib/, cmd/ (the tools and their specs) or man/ whose code NNN is not keyed in
  doc/REFERENCES.md;
- a "MATH.md §N" (or §N.M, §N-M) whose section has no heading in
  doc/MATH.md;
- the folder table of doc/MODULES.md: a module of lib/ missing from its
  folder's row (or listed there and absent), a folder without a row or a
  README.md, a folder that may include one of its own layer or above;
- an #include of lib/ that reaches up a layer or across a folder rule, or
  that names a path instead of a module;
- a circle of includes between modules (a module's .c and .h together);
- a tool's main, cmd/*.c, of TOOL_LINES lines or more (tools stay thin:
  parse, read, validate, compute, write; the work goes into lib/).
"""
import glob
import os
import re
import sys

root = sys.argv[1]
problems = []
TOOL_LINES = 250


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
for pattern in ("lib/*/*.[ch]", "cmd/*.c", "cmd/spec/*.json", "cmd/spec/groups/*.json", "man/man*/*.[0-9]"):
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

# Folders: "| folder | N | module ... | folder ... | ..." rows of doc/MODULES.md.
ROW = re.compile(r"^\| ([a-z]+) \| (\d+) \| ([a-z0-9_ ]+) \| ([a-z ]+|—) \|", re.M)
folder_of, layer, may = {}, {}, {}
for m in ROW.finditer(read("doc/MODULES.md")):
    f = m.group(1)
    layer[f] = int(m.group(2))
    may[f] = set(m.group(4).split()) - {"—"}
    for mod in m.group(3).split():
        folder_of[mod] = f
for f in sorted(may):
    for g in sorted(may[f]):
        if g not in layer:
            problems.append(f"doc/MODULES.md: folder {f} may include {g}, which has no row")
        elif layer[g] >= layer[f]:
            problems.append(f"doc/MODULES.md: folder {f} (layer {layer[f]}) may include {g} "
                            f"(layer {layer[g]}): only lower layers")
    if not os.path.isdir(os.path.join(root, "lib", f)):
        problems.append(f"doc/MODULES.md: folder {f} is not in lib/")
    elif not os.path.isfile(os.path.join(root, "lib", f, "README.md")):
        problems.append(f"lib/{f}: no README.md")

includes = {}  # module -> {included module: "file:line" of the first include}
present = set()
for path in sorted(glob.glob(os.path.join(root, "lib/*/*.[ch]"))):
    rel = os.path.relpath(path, root)
    f, mod = rel.split("/")[1], os.path.basename(path)[:-2]
    present.add(mod)
    if f not in layer:
        problems.append(f"{rel}: folder {f} is not in the folder table of doc/MODULES.md")
        continue
    if folder_of.get(mod) != f:
        where = f"listed in folder {folder_of[mod]}" if mod in folder_of else "not in the folder table"
        problems.append(f"{rel}: module {mod} is {where} of doc/MODULES.md")
        continue
    for n, line in enumerate(read(rel).split("\n"), 1):
        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
        if not m:
            continue
        name = m.group(1)
        if not re.fullmatch(r"[a-z0-9_]+\.h", name):
            problems.append(f"{rel}:{n}: includes \"{name}\": name a module's header, not a path")
            continue
        dep = name[:-2]
        if dep == mod or dep not in folder_of:
            continue
        includes.setdefault(mod, {}).setdefault(dep, f"{rel}:{n}")
        g = folder_of[dep]
        if g != f and g not in may[f]:
            why = "up a layer" if layer[g] > layer[f] else "across a folder rule"
            problems.append(f"{rel}:{n}: {mod} ({f}, layer {layer[f]}) includes {name} "
                            f"({g}, layer {layer[g]}): {why}")
for mod in sorted(set(folder_of) - present):
    problems.append(f"doc/MODULES.md: module {mod} of folder {folder_of[mod]} is not in lib/{folder_of[mod]}/")

# Circles: the strongly connected components of the include graph (Tarjan).
index, low, stack, on, circles = {}, {}, [], set(), []
def visit(v):
    index[v] = low[v] = len(index)
    stack.append(v)
    on.add(v)
    for w in sorted(includes.get(v, {})):
        if w not in index:
            visit(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            on.discard(w)
            comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            circles.append(sorted(comp))
for v in sorted(includes):
    if v not in index:
        visit(v)
for comp in circles:
    at = "; ".join(f"{a} includes {b} at {includes[a][b]}" for a in comp for b in sorted(includes[a]) if b in comp)
    problems.append(f"include circle between {' '.join(comp)}: {at}")

for path in sorted(glob.glob(os.path.join(root, "cmd/*.c"))):
    rel = os.path.relpath(path, root)
    n = read(rel).count("\n")
    if n >= TOOL_LINES:
        problems.append(f"{rel}: {n} lines: a tool stays under {TOOL_LINES} (its work belongs in lib/)")

for p in problems:
    print(p)
sys.exit(1 if problems else 0)
