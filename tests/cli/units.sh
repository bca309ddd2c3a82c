#!/bin/sh
# Units and plausibility (issue 45 item 4): every tool's summary gives the
# model's bounding box and material; implausible combinations are warned
# about on stderr and still computed: a mesh in millimetres with SI moduli,
# E = 1 with rho = 1.1, linear tets at nu >= 0.45 (not hexes).
. "$(dirname "$0")/common"
PY=/usr/bin/python3
D=data
BEAM="$D/models/beam3/beam3_tet.veg --fixed-ids $D/models/beam3/beam3.bou"

"$BIN/moddesc" $BEAM -E 1e7 --nu 0.4 --rho 1000 -k 2 -r 2 -o "$WORK/ok.h5" >"$WORK/ok.out" 2>"$WORK/ok.err"
check "a plausible model: no warning" [ $? -eq 0 -a ! -s "$WORK/ok.err" ]
check "summary: the bounding box and the material, as the file holds them" [ "$($PY - "$WORK" <<'PY'
import sys, re, h5py, numpy as np
w = sys.argv[1]
line = [l for l in open(w + "/ok.out") if l.startswith("moddesc: model: ")][0]
m = re.search(r"(\d+) vertices, (\d+) tets, bounding box \[(\S+), (\S+)\] x \[(\S+), (\S+)\] x \[(\S+), (\S+)\] \((\S+) across\); E (\S+), nu (\S+), rho (\S+)$", line)
f = h5py.File(w + "/ok.h5", "r")
x = f["mesh/vertices"][()]
box = np.array([float(v) for v in m.groups()[2:8]]).reshape(3, 2)
print(int(m.group(1)) == len(x), int(m.group(2)) == len(f["mesh/tets"]),
      np.allclose(box, np.stack([x.min(0), x.max(0)], 1), rtol=1e-3, atol=1e-12),
      abs(float(m.group(9)) - np.linalg.norm(x.max(0) - x.min(0))) < 1e-3,
      [float(m.group(k)) for k in (10, 11, 12)] == [float(f["material"].attrs[k]) for k in ("E", "nu", "rho")])
PY
)" = "True True True True True" ]

"$BIN/moddesc" $BEAM -E 1 --nu 0.3 --rho 1.1 -k 2 -r 2 -o "$WORK/gcc.h5" >/dev/null 2>"$WORK/gcc.err"
check "E = 1 with rho = 1.1: warned (units), computed" sh -c "[ -s '$WORK/gcc.h5' ] && [ \$(wc -l <'$WORK/gcc.err') -eq 1 ] && grep -q '^moddesc: warning: E = 1 with rho = 1.1: the density looks like g/cm^3' '$WORK/gcc.err'"

"$BIN/femcondense" -q $BEAM -E 1e7 --nu 0.49 -o "$WORK/lock.h5" 2>"$WORK/lock.err"
check "nu = 0.49 on linear tets: locking warned even with -q (hexes or a lower nu suggested), computed" sh -c "[ -s '$WORK/lock.h5' ] && grep -q '^femcondense: warning: nu = 0.49 on linear tetrahedra: volumetric locking.*use hexahedra (voxelize) or a lower nu' '$WORK/lock.err'"
"$BIN/moddesc" -q $D/two-voxels.veg --fixed-box -0.1,-0.1,-0.1,0.1,1.1,1.1 -E 1e7 --nu 0.49 --rho 1000 -k 2 -r 2 -o "$WORK/hex.h5" 2>"$WORK/hex.err"
check "nu = 0.49 on hexes: no locking warning" [ -s "$WORK/hex.h5" -a ! -s "$WORK/hex.err" ]

# the beam in millimetres (1000 x) with steel in SI
$PY - "$D/models/beam3/beam3_tet.veg" "$WORK/mm.veg" <<'PY'
import sys
out, sec = [], None
for l in open(sys.argv[1]):
    t = l.split()
    if l.startswith("*"):
        sec = l.strip()
    elif sec == "*VERTICES" and len(t) == 4:
        l = "%s %.17g %.17g %.17g\n" % (t[0], *(1000 * float(c) for c in t[1:]))
    out.append(l)
open(sys.argv[2], "w").writelines(out)
PY
"$BIN/moddesc" "$WORK/mm.veg" --fixed-ids $D/models/beam3/beam3.bou -E 2e11 --nu 0.3 --rho 7800 -k 2 -r 2 -o "$WORK/mm.h5" >"$WORK/mm.out" 2>"$WORK/mm.err"
check "a mesh in mm with SI moduli: warned (1008 units across), computed" sh -c "[ -s '$WORK/mm.h5' ] && grep -q '^moddesc: warning: the model is 1008 units across with E = 2e+11 and rho = 7800, SI values .*if the mesh is in millimetres, scale it to metres' '$WORK/mm.err'"
"$BIN/moddesc" -q "$WORK/mm.veg" --fixed-ids $D/models/beam3/beam3.bou -E 2e5 --nu 0.3 --rho 7.8e-9 -k 2 -r 2 -o "$WORK/mmt.h5" 2>"$WORK/mmt.err"
check "... in mm-t-s units (E in MPa, rho in t/mm^3): no warning" [ -s "$WORK/mmt.h5" -a ! -s "$WORK/mmt.err" ]
check "... where SI moduli on the mm mesh gave eigenvalues 1e6 too small (frequencies 1000x: what the warning is about)" [ "$($PY -c "
import h5py, numpy as np
a = h5py.File('$WORK/mmt.h5')['modes/eigenvalues'][:]
b = h5py.File('$WORK/mm.h5')['modes/eigenvalues'][:]
print(np.allclose(a, 1e6 * b, rtol=1e-6))")" = True ]

# every tool with a model prints it
"$BIN/polycoef" "$WORK/ok.h5" -o "$WORK/c.h5" >"$WORK/p.out" 2>&1
"$BIN/loopsub" $D/icosahedron.obj -l 1 -o "$WORK/s.h5" >"$WORK/l.out" 2>&1
"$BIN/bemsolve" "$WORK/s.h5" --fixed-box -2,-2,-2,2,2,-0.6 -E 1e5 --nu 0.3 -o "$WORK/g.h5" >"$WORK/b.out" 2>&1
"$BIN/femcondense" $BEAM -E 1e7 --nu 0.4 -o "$WORK/f.h5" >"$WORK/f.out" 2>&1
"$BIN/voxelize" $D/icosahedron.obj -R 4 -E 1e7 --nu 0.4 --rho 1000 -o "$WORK/v.h5" >"$WORK/v.out" 2>&1
"$BIN/embed" "$WORK/ok.h5" $D/icosahedron.obj --max-distance 10 -o "$WORK/e.h5" >"$WORK/e.out" 2>&1
"$BIN/epexport" "$WORK/c.h5" -o "$WORK/m.veg" >"$WORK/x.out" 2>&1
bad=""
for t in p:polycoef l:loopsub b:bemsolve f:femcondense v:voxelize e:embed x:epexport; do
    grep -Eq "^${t#*:}: model: [0-9]+ vertices, [0-9]+ [a-z]+, bounding box \[" "$WORK/${t%%:*}.out" || bad="$bad ${t#*:}"
done
check "every tool's summary gives the model's bounding box${bad:+: not$bad}" [ -z "$bad" ]
check "... and its material (femcondense, bemsolve, polycoef)" sh -c "grep -q '; E 1e+07, nu 0.4, rho not given' '$WORK/f.out' && grep -q '; E 1e+05, nu 0.3' '$WORK/b.out' && grep -q '; E 1e+07, nu 0.4, rho 1000' '$WORK/p.out'"
finish
