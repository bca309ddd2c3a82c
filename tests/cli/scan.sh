#!/bin/sh
# From a scan to a multiresolution model (issue 15): loopsub --base on an
# analytic sphere and torus given as fine triangulations (the result on the
# shape within the scan's own chord error, genus kept, V_l = V_{l-1} +
# E_{l-1}), a genus-2 surface, injected defects repaired to the clean
# result, each refusal with its message and status, the quality report in
# /mesh's attributes, and the TetGen interior of the pipeline whose boundary
# is the surface (femcondense, then gfcompress --hierarchy with every row
# matched).
. "$(dirname "$0")/common"
S="/usr/bin/python3 tests/cli/surfaces.py"
$S sphere "$WORK/sphere.obj" 5
$S torus "$WORK/torus.obj" 96 32 1 0.35
$S genus2 "$WORK/genus2.obj" 6 8
$S defects "$WORK/torus.obj" "$WORK/torus-bad.obj"

# py CODE: run Python with numpy and h5py; W is the work folder.
py() { /usr/bin/python3 -c "import sys, h5py, numpy as np; W = '$WORK'
def obj(p):
    v = [l.split()[1:4] for l in open(p) if l.startswith('v ')]
    f = [[int(i) - 1 for i in l.split()[1:4]] for l in open(p) if l.startswith('f ')]
    return np.array(v, float), np.array(f)
$1"; }

# --- sphere: on the sphere, counts per level, the report ------------------------------
"$BIN/loopsub" "$WORK/sphere.obj" --base 40 -l 2 -o "$WORK/sphere.h5" >"$WORK/sphere.txt"
check "sphere: exit 0" [ $? -eq 0 ]
check "sphere: base line names 40 vertices" grep -q "loopsub: base: 40 vertices" "$WORK/sphere.txt"
check "sphere: quality line" grep -Eq "loopsub: quality: Hausdorff [0-9.]+%, RMS [0-9.]+% .*genus 0 \(scan 0\)" "$WORK/sphere.txt"
# Every vertex on the unit sphere within the scan's chord error (the scan is inscribed).
check "sphere: every vertex within the scan's chord error of the unit sphere" [ "$(py "
x, t = obj(W + '/sphere.obj')
n = np.cross(x[t[:, 1]] - x[t[:, 0]], x[t[:, 2]] - x[t[:, 0]])
sag = 1 - np.min(np.abs((n * x[t[:, 0]]).sum(1)) / np.linalg.norm(n, axis=1))
r = np.linalg.norm(h5py.File(W + '/sphere.h5')['mesh/vertices'][:], axis=1)
print(bool(np.all(r <= 1 + 1e-12) and np.all(r >= 1 - sag - 1e-12)))")" = True ]
check "sphere: V_l = V_{l-1} + E_{l-1}: 40, 114, 456 vertices per level" \
    [ "$(h5 "$WORK/sphere.h5" "np.bincount(f['mesh/level'][:]).tolist(), len(f['mesh/triangles'])")" = "[40, 114, 456] 1216" ]
check "sphere: report in /mesh attributes (genus 0 and 0, no opposed normals, RMS <= Hausdorff < 1%)" \
    [ "$(h5 "$WORK/sphere.h5" "(lambda a: (int(a['genus']), int(a['scan_genus']), int(a['opposed_normals']), bool(0 < a['rms_distance'] <= a['hausdorff'] < 0.01), bool(a['min_angle'] > 10), a['scan'].endswith('sphere.obj')))(f['mesh'].attrs)")" = "(0, 0, 0, True, True, True)" ]

# --- torus, genus 2: on the shape, genus kept ------------------------------------------------
"$BIN/loopsub" -q "$WORK/torus.obj" --base 60 -l 2 -o "$WORK/torus.h5"
check "torus: every vertex within the scan's chord error of the analytic torus" [ "$(py "
def d(p): return np.abs(np.hypot(np.hypot(p[:, 0], p[:, 1]) - 1, p[:, 2]) - 0.35)
x, t = obj(W + '/torus.obj')
chord = max(d((x[t[:, a]] + x[t[:, b]]) / 2).max() for a, b in ((0, 1), (1, 2), (2, 0)))
chord = max(chord, d(x[t].mean(1)).max())
print(bool(d(h5py.File(W + '/torus.h5')['mesh/vertices'][:]).max() <= 1.01 * chord))")" = True ]
check "torus: genus 1 kept" [ "$(h5 "$WORK/torus.h5" "int(f['mesh'].attrs['genus']), int(f['mesh'].attrs['scan_genus'])")" = "1 1" ]
"$BIN/loopsub" -q "$WORK/genus2.obj" --base 60 -l 2 -o "$WORK/genus2.h5"
check "genus-2 surface: genus 2 kept" [ "$(h5 "$WORK/genus2.h5" "int(f['mesh'].attrs['genus']), int(f['mesh'].attrs['scan_genus'])")" = "2 2" ]

# --- injected defects: repaired, the same result as the clean scan ------------------------
"$BIN/loopsub" "$WORK/torus-bad.obj" --base 60 -l 2 -o "$WORK/bad.obj" >"$WORK/bad.txt"
"$BIN/loopsub" -q "$WORK/torus.obj" --base 60 -l 2 -o "$WORK/clean.obj"
check "defects: the result equals the clean scan's" cmp -s "$WORK/bad.obj" "$WORK/clean.obj"
# 6144 faces: 1229 with copied corners (3687 vertices), 559 stored twice, 473 zero-area faces, 878 reversed.
check "defects: one clean-up line with what was changed" grep -qx "loopsub: $WORK/torus-bad.obj: clean-up: welded 3687 vertices, dropped 559 duplicated faces, dropped 473 faces repeating a vertex, reversed 878 faces" "$WORK/bad.txt"
"$BIN/loopsub" -v "$WORK/torus-bad.obj" --base 60 -l 0 -o "$WORK/bad0.obj" >"$WORK/badv.txt" 2>/dev/null
check "defects: -v lists every change (3687 + 559 + 473 + 1 lines)" [ "$(grep -c '^loopsub:   ' "$WORK/badv.txt")" -eq 4720 ]
check "defects: -v names a welded vertex" grep -q "^loopsub:   welded vertex 3073 into vertex 1$" "$WORK/badv.txt"
check "clean scan: no clean-up line" sh -c "! $BIN/loopsub $WORK/torus.obj --base 60 -l 0 -o $WORK/c0.obj | grep -q clean-up"

# --- --base-mesh: a given base fitted onto the scan ----------------------------------------------
"$BIN/loopsub" -q "$WORK/sphere.obj" --base-mesh data/icosahedron.obj -l 2 -o "$WORK/ico.h5"
check "--base-mesh: icosahedron, 2 levels: 162 vertices on the sphere" [ "$(h5 "$WORK/ico.h5" "len(f['mesh/vertices']), bool(np.allclose(np.linalg.norm(f['mesh/vertices'][:], axis=1), 1, atol=1e-3))")" = "162 True" ]

# --- refusals ----------------------------------------------------------------------------------------
O="$WORK/out/s.h5"
printf 'v 0 0 0\nv 0 0 1\nv 1 0 0\nv -1 1 0\nv -1 -1 0\nf 1 2 3\nf 1 3 4\nf 1 2 4\nf 2 4 3\nf 1 5 2\nf 1 3 5\nf 2 5 3\n' >"$WORK/three.obj"
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 2 3 4\n' >"$WORK/open.obj"
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv -1 0 0\nv 0 -1 0\nv 0 0 -1\nf 1 3 2\nf 1 2 4\nf 2 3 4\nf 1 4 3\nf 1 5 6\nf 1 6 7\nf 5 7 6\nf 1 7 5\n' >"$WORK/pinch.obj"
printf 'v 0 0 0\nv 1 0 0\nv nan 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 2 3 4\nf 1 4 3\n' >"$WORK/nan.obj"
expect_fail "an edge with 3 faces" 3 "three.obj: non-manifold surface: edge \(1 2\) has 3 faces" loopsub "$WORK/three.obj" --base 10 -l 1 -o "$O"
expect_fail "an open surface" 3 "open.obj: open surface: 3 boundary edges \(first: edge \(1 3\)" loopsub "$WORK/open.obj" --base 10 -l 1 -o "$O"
expect_fail "a pinched vertex" 3 "pinch.obj: non-manifold vertex 1" loopsub "$WORK/pinch.obj" --base 10 -l 1 -o "$O"
expect_fail "a non-finite coordinate" 3 "nan.obj:3: non-finite" loopsub "$WORK/nan.obj" --base 10 -l 1 -o "$O"
expect_fail "--base below 4" 2 "--base" loopsub "$WORK/sphere.obj" --base 3 -l 1 -o "$O"
expect_fail "--base with --base-mesh" 2 "exclude each other" loopsub "$WORK/sphere.obj" --base 40 --base-mesh data/icosahedron.obj -l 1 -o "$O"
expect_fail "--base with --scheme" 2 "--scheme: fitting onto a scan uses Loop" loopsub "$WORK/sphere.obj" --base 40 --scheme linear -l 1 -o "$O"
expect_fail "--base with --project-onto" 2 "--project-onto: fitting" loopsub "$WORK/sphere.obj" --base 40 --project-onto "$WORK/sphere.obj" -l 1 -o "$O"

# --- the TetGen interior (scripts/pipeline.mk), its boundary, its GFs on the hierarchy ------------
P="$WORK/p"
make -s -f scripts/pipeline.mk BIN="$BIN" OUT="$P" SCAN="$WORK/torus.obj" BASE=60 LEVELS=2 MATERIAL="-E 1e7 --nu 0.4 --rho 1000" \
    SURFACE_FIXED="--fixed-box -2,-2,-1,2,-0.9,1" "$P/interior.ele" >"$WORK/make.txt" 2>&1
check "pipeline: the interior rule makes interior.node and interior.ele" [ -s "$P/interior.node" ] && [ -s "$P/interior.ele" ]
"$BIN/loopsub" -q "$P/interior.ele" -l 0 -o "$WORK/boundary.obj"
check "interior: its boundary has the surface's vertices and triangles" [ "$(py "
b, bt = obj(W + '/boundary.obj')
f = h5py.File(W + '/p/surface.h5'); s, st = f['mesh/vertices'][:], f['mesh/triangles'][:]
key = lambda x: np.lexsort(x.T[::-1])
print(len(b) == len(s) and len(bt) == len(st) and bool(np.allclose(b[key(b)], s[key(s)], rtol=0, atol=1e-12 * np.abs(s).max())))")" = True ]
"$BIN/femcondense" -q "$P/interior.ele" --fixed-box -2,-2,-1,2,-0.9,1 -E 1e6 --nu 0.4 -o "$WORK/gf.h5"
"$BIN/gfcompress" -q "$WORK/gf.h5" --hierarchy "$P/surface.h5" --eps 0.05 -o "$WORK/gfw.h5"
check "femcondense + gfcompress --hierarchy: exit 0" [ $? -eq 0 ]
check "every GF row matched to a distinct surface vertex at its position, none lost" [ "$(py "
g = h5py.File(W + '/gfw.h5'); f = h5py.File(W + '/p/surface.h5'); s = f['mesh/vertices'][:]
rows = g['mesh/vertices'][:][g['gf/row_vertex'][:]]
key = lambda x: np.lexsort(x.T[::-1])
print(len(rows) == len(s) and sorted(g['gf/slots'][:].tolist()) == list(range(len(s)))
      and bool(np.allclose(rows[key(rows)], s[key(s)], rtol=0, atol=1e-12 * np.abs(s).max()))
      and np.bincount(g['gf/slot_level'][:]).tolist() == np.bincount(f['mesh/level'][:]).tolist())")" = True ]

finish
