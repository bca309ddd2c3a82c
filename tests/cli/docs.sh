#!/bin/sh
# Documentation references resolve from a clone (doc/REFERENCES.md,
# doc/MATH.md, doc/MODULES.md): every citation code and MATH.md section in
# lib/, cmd/ and man/, every module in its folder's row of the folder table,
# no include up a layer or across a folder rule, no include circle, every
# tool (cmd/*.c) under 250 lines; and the check itself catches each kind of
# break.
. "$(dirname "$0")/common"
here=$(dirname "$0")

out=$(/usr/bin/python3 "$here/docscheck.py" . 2>&1)
check "every citation, MATH.md section and layer resolves${out:+: $out}" [ -z "$out" ]
for f in doc/REFERENCES.md doc/MATH.md doc/MODULES.md doc/CONVENTIONS.md; do
    check "README points at $f" grep -q "$f" README.md
done

# A copy with one break of each kind must fail, naming each.
mkdir -p "$WORK/tree"
cp -r doc lib cmd man "$WORK/tree/"
printf '/* 005 §2.1 and MATH.md §42 */\n' >>"$WORK/tree/cmd/femcondense.c"
printf '.\\" 007 eq. 3.1, MATH.md \\(sc1.9\n' >>"$WORK/tree/man/man1/loopsub.1"
printf '#include "cli.h"\n' >>"$WORK/tree/lib/mesh/mesh.c"
printf '#include "bem.h"\n' >>"$WORK/tree/lib/fem/fem.c"
printf '#include "hex.h"\n' >>"$WORK/tree/lib/mesh/tet.c"
printf '#include "tet.h"\n' >>"$WORK/tree/lib/mesh/hex.h"
printf '#include "../base/err.h"\n' >>"$WORK/tree/lib/mesh/select.c"
printf '/* stray.h */\n' >"$WORK/tree/lib/base/stray.h"
mv "$WORK/tree/lib/mesh/text.h" "$WORK/tree/lib/base/text.h" 2>/dev/null
mv "$WORK/tree/lib/base/text.c" "$WORK/tree/lib/mesh/text.c"
rm "$WORK/tree/lib/bem/README.md"
lines=$(wc -l <"$WORK/tree/cmd/voxelize.c")
while [ "$lines" -lt 250 ]; do echo >>"$WORK/tree/cmd/voxelize.c"; lines=$((lines + 1)); done
/usr/bin/python3 "$here/docscheck.py" "$WORK/tree" >"$WORK/problems" 2>&1
check "a broken tree fails the check" [ $? -eq 1 ]
for want in "cmd/femcondense.c:[0-9]*: citation code 005 is not in doc/REFERENCES.md" \
    "cmd/femcondense.c:[0-9]*: MATH.md §42 has no heading in doc/MATH.md" \
    "man/man1/loopsub.1:[0-9]*: citation code 007" "man/man1/loopsub.1:[0-9]*: MATH.md §1.9 has no heading" \
    "lib/mesh/mesh.c:[0-9]*: mesh (mesh, layer 2) includes cli.h (cli, layer 8): up a layer" \
    "lib/fem/fem.c:[0-9]*: fem (fem, layer 3) includes bem.h (bem, layer 3): across a folder rule" \
    "include circle between hex tet: hex includes tet at lib/mesh/hex.h:[0-9]*; tet includes hex at lib/mesh/tet.c:[0-9]*" \
    "lib/mesh/select.c:[0-9]*: includes \"../base/err.h\": name a module's header, not a path" \
    "lib/base/stray.h: module stray is not in the folder table" \
    "lib/mesh/text.c: module text is listed in folder base" \
    "lib/bem: no README.md" "cmd/voxelize.c: 250 lines: a tool stays under 250"; do
    check "the check reports: $want" grep -q "^$want" "$WORK/problems"
done
finish
