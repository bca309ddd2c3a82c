#!/bin/sh
# voxelize end to end: a sphere's solid within one voxel layer of 4 pi r^3 / 3
# (and holding the polyhedron), every hex a box of the cell size in Vega's
# corner order; the sphere with holes smaller than a voxel still solid;
# --shell; two spheres as two components and --largest; .veg and .h5 outputs
# of the same mesh; bad input.  The triangle-box test, the fill and the
# components are unit-tested in tests/unit/test_voxel.c.
. "$(dirname "$0")/common"
PY=/usr/bin/python3

# soups: an icosphere of radius 1 (level 4, edges about 0.08), the same with
# every 97th triangle removed (holes smaller than a voxel at R = 16, 0.125),
# and two spheres apart (radius 1 and 0.4)
$PY - "$WORK" <<'PY'
import sys, numpy as np
def icosphere(levels):
    p = (1 + 5 ** 0.5) / 2
    v = [(-1, p, 0), (1, p, 0), (-1, -p, 0), (1, -p, 0), (0, -1, p), (0, 1, p), (0, -1, -p), (0, 1, -p),
         (p, 0, -1), (p, 0, 1), (-p, 0, -1), (-p, 0, 1)]
    f = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4), (11, 10, 2), (10, 7, 6),
         (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8), (3, 8, 9), (4, 9, 5), (2, 4, 11), (6, 2, 10), (8, 6, 7),
         (9, 8, 1)]
    v = [np.array(x, float) / np.linalg.norm(x) for x in v]
    for _ in range(levels):
        mid, g = {}, []
        def m(a, b):
            k = (min(a, b), max(a, b))
            if k not in mid:
                x = v[a] + v[b]
                v.append(x / np.linalg.norm(x))
                mid[k] = len(v) - 1
            return mid[k]
        for a, b, c in f:
            ab, bc, ca = m(a, b), m(b, c), m(c, a)
            g += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        f = g
    return np.array(v), np.array(f)
def write(path, parts):
    with open(path, "w") as out:
        n = 0
        for x, f in parts:
            for p in x:
                out.write("v %.17g %.17g %.17g\n" % tuple(p))
            for t in f:
                out.write("f %d %d %d\n" % tuple(t + 1 + n))
            n += len(x)
x, f = icosphere(4)
write(sys.argv[1] + "/sphere.obj", [(x, f)])
write(sys.argv[1] + "/holes.obj", [(x, np.array([t for i, t in enumerate(f) if i % 97]))])
write(sys.argv[1] + "/two.obj", [(x, f), (0.4 * x + [2.5, 0, 0], f)])
a = np.cross(x[f[:, 1]] - x[f[:, 0]], x[f[:, 2]] - x[f[:, 0]])
print(0.5 * np.linalg.norm(a, axis=1).sum(), np.einsum("ij,ij->i", x[f[:, 0]], a).sum() / 6,
      file=open(sys.argv[1] + "/measures", "w"))
PY

# solid FILE.h5: hexes, cell size, volume; whether every hex is a box of edge
# h in the corner order 0 (-,-,-) 1 (+,-,-) 2 (+,+,-) 3 (-,+,-) 4..7 (z +)
SOLID='import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
x, H = f["mesh/vertices"][:], f["mesh/hexes"][:]
h = x[H[0, 6], 0] - x[H[0, 0], 0]
s = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]])
boxes = bool(np.allclose(x[H] - x[H[:, :1]], h * s[None], atol=1e-12 * h))
print(len(H), h, len(H) * h ** 3, boxes)'
read area poly <"$WORK/measures"

"$BIN/voxelize" "$WORK/sphere.obj" -R 16 -o "$WORK/s.h5" >"$WORK/summary"
set -- $($PY -c "$SOLID" "$WORK/s.h5")
nh=$1 h=$2 V=$3 boxes=$4
check "sphere: the summary reports one component and the hexahedra written" grep -Eq "16 x 16 x 16 grid .* 1 face-connected component \($nh cells\); $nh hexahedra" "$WORK/summary"
check "sphere: every hex a box of the cell size (2/16) in Vega's corner order" [ "$boxes" = True ]
check "sphere: solid volume $V within one voxel layer (4 pi r^2 h) of 4 pi r^3 / 3" $PY -c "
from math import pi; V, h = $V, $h
raise SystemExit(0 if abs(h - 0.125) < 1e-12 and abs(V - 4 * pi / 3) <= 4 * pi * h else 1)"
check "sphere: the solid holds the polyhedron and exceeds it by less than area x h" $PY -c "
V, h = $V, $h
raise SystemExit(0 if $poly <= V < $poly + $area * h else 1)"
check "sphere: kind mesh with /mesh/hexes [$nh][8] and no tets" [ "$(h5 "$WORK/s.h5" "f.attrs['kind'], f['mesh/hexes'].shape[1], 'tets' in f['mesh']")" = "mesh 8 False" ]

# --- an open soup: holes smaller than a voxel --------------------------------
"$BIN/voxelize" -q "$WORK/holes.obj" -R 16 -o "$WORK/holes.h5"
set -- $($PY -c "$SOLID" "$WORK/holes.h5")
check "open sphere (holes < a voxel): still solid, within a few cells of the closed one ($1 vs $nh)" $PY -c "
raise SystemExit(0 if abs($1 - $nh) <= 60 and $1 > 0.9 * $nh else 1)"
"$BIN/voxelize" "$WORK/holes.obj" -R 16 --shell -o "$WORK/shell.h5" >"$WORK/summary"
set -- $($PY -c "$SOLID" "$WORK/shell.h5")
check "--shell: only the touched cells (fewer than the solid's, none at the centre)" $PY -c "
import h5py, numpy as np
f = h5py.File('$WORK/shell.h5')
c = f['mesh/vertices'][:][f['mesh/hexes'][:]].mean(axis=1)
raise SystemExit(0 if $1 < $nh and np.linalg.norm(c, axis=1).min() > 0.6 else 1)"
check "--shell: no enclosed cells reported" grep -q " 0 enclosed" "$WORK/summary"

# --- components ------------------------------------------------------------------
"$BIN/voxelize" "$WORK/two.obj" -R 24 -o "$WORK/two.h5" >"$WORK/two.txt"
"$BIN/voxelize" "$WORK/two.obj" -R 24 --largest -o "$WORK/big.h5" >"$WORK/big.txt"
big=$(sed -n 's/.*2 face-connected components (\([0-9]*\), \([0-9]*\) cells).*/\1/p' "$WORK/two.txt")
small=$(sed -n 's/.*2 face-connected components (\([0-9]*\), \([0-9]*\) cells).*/\2/p' "$WORK/two.txt")
check "two spheres: two components reported, the larger first" [ -n "$big" ] && [ "$big" -gt "$small" ]
check "--largest keeps the larger ($big cells)" [ "$($PY -c "$SOLID" "$WORK/big.h5" | cut -d' ' -f1)" = "$big" ]
check "without --largest both ($big + $small cells)" [ "$($PY -c "$SOLID" "$WORK/two.h5" | cut -d' ' -f1)" = "$((big + small))" ]

# --- .veg: the same mesh, read back by the tools --------------------------------
"$BIN/voxelize" -q "$WORK/sphere.obj" -R 16 -E 1e6 --nu 0.4 --rho 1000 -o "$WORK/s.veg"
check ".veg: CUBIC elements, $nh of them" sh -c "grep -q '^\*ELEMENTS' '$WORK/s.veg' && grep -q '^CUBIC' '$WORK/s.veg' && grep -Eq '^$nh 8( 0)?$' '$WORK/s.veg'"
"$BIN/embed" -q "$WORK/s.veg" "$WORK/sphere.obj" -o "$WORK/from-veg.h5"
check ".veg read back: the same vertices and hexes as the .h5" $PY -c "
import h5py, numpy as np
a, b = h5py.File('$WORK/s.h5'), h5py.File('$WORK/from-veg.h5')
raise SystemExit(0 if np.array_equal(a['mesh/hexes'][:], b['mesh/hexes'][:]) and np.allclose(a['mesh/vertices'][:], b['mesh/vertices'][:], rtol=0, atol=1e-15) and float(b['material'].attrs['E']) == 1e6 else 1)"

# --- the sphere's render mesh bound to its voxels: exact for affine fields --------
"$BIN/embed" -q "$WORK/s.h5" "$WORK/sphere.obj" -o "$WORK/e.h5"
check "embed into the voxel hexes: affine fields exact, weights sum to 1, 8 a row" [ "$($PY -c "
import h5py, numpy as np
f = h5py.File('$WORK/e.h5')
e = f['embedding']
k = int(e.attrs['element_vertices'])
c, w = e['columns'][:].reshape(-1, k), e['weights'][:].reshape(-1, k)
x, p = f['mesh/vertices'][:], f['render/vertices'][:]
A, t = np.random.default_rng(2).standard_normal((3, 3)), np.ones(3)
err = np.abs(np.einsum('ik,ikd->id', w, x[c] @ A.T + t) - (p @ A.T + t)).max()
print(k, err < 1e-13, np.abs(w.sum(1) - 1).max() < 1e-14)")" = "8 True True" ]
"$BIN/rtcheck" -q "$WORK/e.h5"
check "rtcheck passes the hex embedding" [ $? -eq 0 ]

# --- the soup pipeline: voxelize -> moddesc -> polycoef -> embed -> rtcheck ---------
P="$WORK/p"
make -s -f scripts/pipeline.mk BIN="$BIN" OUT="$P" SOUP="$WORK/holes.obj" RES=8 MODES="-k 4 -r 6" MATERIAL="-E 1e7 --nu 0.4 --rho 1000" >"$WORK/make.txt" 2>&1
check "pipeline SOUP=: every step made, rtcheck passed on the cubic and the render files" sh -c "[ -s '$P/rtcheck-soup.txt' ] && ! grep -q FAILED '$P/rtcheck-soup.txt' && grep -q 'u_render = Ubar q, per frame' '$P/rtcheck-soup.txt' && grep -q 'pipeline: done' '$WORK/make.txt'"
check "pipeline SOUP=: the render file carries the soup and Ubar [6][3 x 2562]" [ "$(h5 "$P/render.h5" "f['embedding/Ubar'].shape, len(f['render/vertices']), 'hexes' in f['mesh']")" = "(6, 7686) 2562 True" ]

# --- -m FILE: a material file femcondense takes (issue 45: E was NaN) -----------
printf '# tag E nu rho\ndefault 2e11 0.3 7800\n' >"$WORK/steel.txt"
printf '1 7e10 0.33 2700\n' >"$WORK/one.txt"
"$BIN/voxelize" -q "$WORK/sphere.obj" -R 8 -m "$WORK/steel.txt" -o "$WORK/m.h5"
check "-m FILE with a default line: E, nu, rho stored" [ "$(h5 "$WORK/m.h5" "[float(f['material'].attrs[k]) for k in ('E', 'nu', 'rho')]")" = "[200000000000.0, 0.3, 7800.0]" ]
"$BIN/voxelize" -q "$WORK/sphere.obj" -R 8 -m "$WORK/one.txt" -o "$WORK/m1.h5"
check "-m FILE with one tagged entry: that entry (voxels have no region tags)" [ "$(h5 "$WORK/m1.h5" "float(f['material'].attrs['E'])")" = "70000000000.0" ]
printf '1 7e10 0.33 2700\n2 2e11 0.3 7800\n' >"$WORK/two.txt"
expect_fail "-m FILE with two tagged entries and no default: which one is ambiguous" 3 "two.txt: the model has no region tags" voxelize "$WORK/sphere.obj" -R 8 -m "$WORK/two.txt" -o "$WORK/out/v.h5"

# --- bad input -------------------------------------------------------------------
O="$WORK/out/v.h5"
expect_fail "resolution 0" 3 "resolution 0: must be at least 1" voxelize "$WORK/sphere.obj" -R 0 -o "$O"
expect_fail "a resolution over the memory allowed, refused before allocating" 3 "resolution 1000: the grid needs about [0-9.]+ GiB, more than the 512 MiB" voxelize "$WORK/sphere.obj" -R 1000 --max-memory 512M -o "$O"
expect_fail "a resolution whose corners int32 ids cannot number" 3 "resolution 5000: .* grid cells, more than int32 ids can number" voxelize "$WORK/sphere.obj" -R 5000 -o "$O"
: >"$WORK/empty.obj"
expect_fail "an empty soup" 3 "empty.obj: no" voxelize "$WORK/empty.obj" -R 8 -o "$O"
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\n' >"$WORK/points.obj"
expect_fail "a soup of points, no triangles" 3 "points.obj: no" voxelize "$WORK/points.obj" -R 8 -o "$O"
printf 'v 1 1 1\nv 1 1 1\nv 1 1 1\nf 1 2 3\n' >"$WORK/dot.obj"
expect_fail "a soup of zero size (reported by its size, issue 37)" 3 "dot.obj: the model is 0 across" voxelize "$WORK/dot.obj" -R 8 -o "$O"
expect_fail "no -R" 2 "no resolution" voxelize "$WORK/sphere.obj" -o "$O"
expect_fail "-R not a number" 2 "option --resolution" voxelize "$WORK/sphere.obj" -R many -o "$O"
expect_fail "an output of another kind" 2 "" voxelize "$WORK/sphere.obj" -R 8 -o "$WORK/out/v.msh"
finish
