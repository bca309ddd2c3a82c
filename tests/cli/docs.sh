#!/bin/sh
# Documentation references resolve from a clone (doc/REFERENCES.md,
# doc/MATH.md, doc/MODULES.md): every citation code and MATH.md section in
# lib/, cmd/ and man/, every module in the layer table and no include up a
# layer; and the check itself catches each kind of break.
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
printf '/* 005 §2.1 and MATH.md §12 */\n' >>"$WORK/tree/cmd/femcondense.c"
printf '.\\" 007 eq. 3.1, MATH.md \\(sc1.9\n' >>"$WORK/tree/man/man1/loopsub.1"
printf '#include "cli.h"\n' >>"$WORK/tree/lib/mesh.c"
printf '/* stray.h */\n' >"$WORK/tree/lib/stray.h"
/usr/bin/python3 "$here/docscheck.py" "$WORK/tree" >"$WORK/problems" 2>&1
check "a broken tree fails the check" [ $? -eq 1 ]
for want in "cmd/femcondense.c:[0-9]*: citation code 005 is not in doc/REFERENCES.md" \
    "cmd/femcondense.c:[0-9]*: MATH.md §12 has no heading in doc/MATH.md" \
    "man/man1/loopsub.1:[0-9]*: citation code 007" "man/man1/loopsub.1:[0-9]*: MATH.md §1.9 has no heading" \
    "lib/mesh.c:[0-9]*: mesh (layer 2) includes cli.h (layer 6)" \
    "lib/stray.h: module stray is not in the layer table"; do
    check "the check reports: $want" grep -q "^$want" "$WORK/problems"
done
finish
