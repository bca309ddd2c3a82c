#!/bin/sh
# bemsolve: validation against analytic fields and against femcondense, layout,
# diagnostics and every error status (MATH.md §6, §9).
. "$(dirname "$0")/common"
D=data
G="/usr/bin/python3 tests/cli/gfcheck.py"
B="$BIN/bemsolve"

for l in 1 2 3; do "$BIN/loopsub" -q $D/icosahedron.obj -l $l -o "$WORK/ico$l.h5"; done

# --- layout ------------------------------------------------------------------------
"$B" "$WORK/ico2.h5" --fixed-box -2,-2,-2,2,2,-0.5 -E 2e5 --nu 0.3 --check -o "$WORK/b2.h5" >"$WORK/summary"
check "summary: assembly, LU and solve rates" grep -q "LU .* GFlop/s), solve .* GFlop/s" "$WORK/summary"
check "--check: rigid-rotation and column residuals, condition" sh -c "grep -Eq 'rigid-rotation residual [0-9.e-]+, sampled column residual [0-9.]+e-1[0-9]' '$WORK/summary'"
check "kind gf, method bem-linear, same layout as femcondense" [ "$(h5 "$WORK/b2.h5" "f.attrs['kind'], f['gf'].attrs['method'], f['gf/xi'].shape == (3 * len(f['gf/col_vertex']), 3 * len(f['gf/row_vertex']))")" = "gf bem-linear True" ]
check "a loopsub input keeps its levels and parents" [ "$(h5 "$WORK/b2.h5" "'level' in f['mesh'] and 'parents' in f['mesh']")" = True ]
"$B" -q "$WORK/ico2.h5" --fixed-box -2,-2,-2,2,2,-0.5 -E 4e5 --nu 0.3 -o "$WORK/b2E.h5"
"$B" -q "$WORK/ico2.h5" --fixed-box -2,-2,-2,2,2,-0.5 -E 2e5 --nu 0.3 --single -o "$WORK/b2s.h5"
check "--single: float32, equal to the float64 file to 1e-6" [ "$(h5 "$WORK/b2s.h5" "f['gf/xi'].dtype == np.float32 and bool(np.allclose(f['gf/xi'][:], __import__('h5py').File('$WORK/b2.h5')['gf/xi'][:], rtol=1e-6, atol=1e-6 * np.abs(f['gf/xi'][:]).max()))")" = True ]
check "physical units: E doubled halves the displacement rows, keeps tractions" [ "$(h5 "$WORK/b2E.h5" "(lambda a, b, d: float(np.abs(np.where(d, 2 * a, a) - b).max() / np.abs(b).max()) < 1e-10)(f['gf/xi'][:], __import__('h5py').File('$WORK/b2.h5')['gf/xi'][:], np.repeat(f['gf/row_fixed'][:] == 0, 3)[None, :])")" = True ]

# --- body-force rows in every form (the values: tests/unit/test_gravity) ----------------
"$B" -q "$WORK/ico2.h5" --fixed-box -2,-2,-2,2,2,-0.5 -E 2e5 --nu 0.3 --rho 1000 --body-force --no-xdmf -o "$WORK/bb.h5"
"$B" -q "$WORK/ico2.h5" --fixed-box -2,-2,-2,2,2,-0.5 -E 2e5 --nu 0.3 --rho 1000 --body-force --wavelet linear --no-xdmf -o "$WORK/bbw.h5"
"$B" -q "$WORK/ico2.h5" --fixed-box -2,-2,-2,2,2,-0.5 -E 2e5 --nu 0.3 --rho 1000 --body-force --constraint-level 1 --no-xdmf -o "$WORK/bbh.h5"
"$BIN/gfcompress" -q "$WORK/bb.h5" --eps 0.05 --no-xdmf -o "$WORK/bbc.h5"
body_same() { h5 "$WORK/bb.h5" "bool(np.array_equal(f['gf/body'][:], __import__('h5py').File('$1')['gf/body'][:]))"; }
check "--body-force: /gf/body [3][3n], finite, not zero" [ "$(h5 "$WORK/bb.h5" "f['gf/body'].shape == (3, f['gf/xi'].shape[1]) and bool(np.isfinite(f['gf/body'][:]).all()) and bool(np.abs(f['gf/body'][:]).max() > 0)")" = True ]
check "--body-force: the same rows compressed as solved, by hat loads and through gfcompress" [ "$(body_same "$WORK/bbw.h5") $(body_same "$WORK/bbh.h5") $(body_same "$WORK/bbc.h5")" = "True True True" ]

# --- rigid motions: every vertex fixed, Xi maps displacement to traction ---------------
rot=""
for l in 1 2 3; do
    "$B" -q "$WORK/ico$l.h5" --fixed-box -2,-2,-2,2,2,2 -E 1 --nu 0.3 --columns all -o "$WORK/all.h5"
    r=$($G rigid "$WORK/all.h5")
    rot="$rot ${r#* }"
    check "level $l: rigid translation gives zero traction (round-off)" [ "$(echo "$r" | awk '{print ($1 < 1e-12)}')" = 1 ]
done
echo "    rigid rotation traction residuals:$rot"
check "rigid rotation residual small and falling" /usr/bin/python3 -c "
r = [float(s) for s in '$rot'.split()]
raise SystemExit(0 if r[0] > r[1] > r[2] and r[2] < 1e-6 else 1)"

# --- manufactured solution: Kelvin field of a point load outside the body --------------
errs=""
ierrs=""
printf '0 0 0\n0.3 -0.2 0.1\n-0.4 0.2 -0.3\n0.6 0.1 0.2\n' >"$WORK/ip.txt"
for l in 1 2 3; do
    "$B" -q "$WORK/ico$l.h5" --fixed-box -2,-2,-2,2,2,-0.6 -E 1 --nu 0.3 --columns all --interior "$WORK/ip.txt" -o "$WORK/k.h5"
    errs="$errs $($G kelvin "$WORK/k.h5" 2 0.5 0.3)"
    ierrs="$ierrs $($G kelvin_interior "$WORK/k.h5" 2 0.5 0.3)"
done
echo "    Kelvin field at interior points (displacement stress), levels 1-3:$ierrs"
check "Kelvin field at interior points (--interior): displacement and stress errors fall, below 0.2% and 0.5% at level 3" /usr/bin/python3 -c "
e = [float(s) for s in '$ierrs'.split()]
u, s = e[0::2], e[1::2]
raise SystemExit(0 if u[0] > u[1] > u[2] and s[0] > s[1] > s[2] and u[2] < 2e-3 and s[2] < 5e-3 else 1)"
"$BIN/loopsub" -q $D/models/turtle/turtle-volumetric-homogeneous.veg -l 0 -o "$WORK/t0.h5"
"$BIN/loopsub" -q $D/models/turtle/turtle-volumetric-homogeneous.veg -l 1 -o "$WORK/t1.h5"
terrs=""
for l in 0 1; do
    "$B" -q "$WORK/t$l.h5" --fixed-box -10,-10,-10,10,-0.1,10 -E 1 --nu 0.3 --columns all -o "$WORK/k.h5"
    terrs="$terrs $($G kelvin "$WORK/k.h5" 0 3 6)"
done
/usr/bin/python3 -c "
import math
e = [float(s) for s in '$errs'.split()]; t = [float(s) for s in '$terrs'.split()]
print('    Kelvin field, icosphere levels 1-3: errors %s, observed orders %s' % (e, [round(math.log2(e[i] / e[i + 1]), 2) for i in range(2)]))
print('    Kelvin field, turtle (non-convex) levels 0-1: errors %s, observed order %.2f' % (t, math.log2(t[0] / t[1])))"
check "Kelvin field on the icosphere: error falls at order >= 1.3, below 0.5% at level 3" /usr/bin/python3 -c "
import math
e = [float(s) for s in '$errs'.split()]
raise SystemExit(0 if all(math.log2(e[i] / e[i + 1]) >= 1.3 for i in range(2)) and e[2] < 5e-3 else 1)"
check "Kelvin field on the non-convex turtle: error falls at order >= 1.3" /usr/bin/python3 -c "
import math
t = [float(s) for s in '$terrs'.split()]
raise SystemExit(0 if math.log2(t[0] / t[1]) >= 1.3 and t[1] < 0.1 else 1)"

# --- solid sphere under pressure, six vertices held at u = -P/(3K) x -------------------
h5 "$WORK/ico3.h5" "'\n'.join(str(int(np.argmin(np.linalg.norm(f['mesh/vertices'][:] / np.linalg.norm(f['mesh/vertices'][:], axis=1)[:, None] - t, axis=1))) + 1) for t in np.vstack([np.eye(3), -np.eye(3)]))" >"$WORK/axis.ids"
"$B" -q "$WORK/ico3.h5" --fixed-ids "$WORK/axis.ids" -E 1 --nu 0.3 --columns all -o "$WORK/sph.h5"
check "sphere under pressure matches -P/(3K) x within 2%" $G sphere "$WORK/sph.h5" 1 0.02

# --- nu = 0.5: incompressible, no volume change ------------------------------------------
"$B" -q "$WORK/ico3.h5" --fixed-ids "$WORK/axis.ids" -E 1 --nu 0.5 --columns all -o "$WORK/nu5.h5"
"$B" -q "$WORK/ico3.h5" --fixed-ids "$WORK/axis.ids" -E 1 --nu 0.3 --columns all -o "$WORK/nu3.h5"
v5=$($G volume "$WORK/nu5.h5"); v3=$($G volume "$WORK/nu3.h5")
echo "    relative volume change of a pull: nu = 0.5: $v5, nu = 0.3: $v3"
check "nu = 0.5 solves and changes the volume < 1% of nu = 0.3's" /usr/bin/python3 -c "raise SystemExit(0 if abs($v5) < 0.01 * abs($v3) else 1)"

# --- BEM against FEM on the same surface (tetgen -pY keeps it), same fixed set ----------
diffs=""
for spec in "2 0.001" "3 0.0002"; do
    set -- $spec
    "$BIN/loopsub" -q $D/icosahedron.obj -l $1 -o "$WORK/s$1.off"
    tetgen -pYq1.414a$2 -Q "$WORK/s$1.off" >/dev/null
    # TetGen keeps the input points first, in order: the surface ids carry over.
    h5 "$WORK/ico$1.h5" "'\n'.join(str(i + 1) for i, p in enumerate(f['mesh/vertices'][:]) if p[2] <= -0.5)" >"$WORK/fix.ids"
    "$B" -q "$WORK/s$1.1.ele" --fixed-ids "$WORK/fix.ids" -E 1 --nu 0.3 -o "$WORK/bf.h5"
    "$BIN/femcondense" -q "$WORK/s$1.1.ele" --fixed-ids "$WORK/fix.ids" -E 1 --nu 0.3 -o "$WORK/ff.h5"
    diffs="$diffs $($G compare "$WORK/bf.h5" "$WORK/ff.h5" 1)"
done
echo "    BEM vs FEM free-free blocks, relative Frobenius difference:$diffs"
check "BEM and FEM agree better as both meshes refine" /usr/bin/python3 -c "
d = [float(s) for s in '$diffs'.split()]
raise SystemExit(0 if d[1] < 0.7 * d[0] and d[1] < 0.2 else 1)"

# --- constant elements: one node per triangle, collocated at the centroid ---------------
crot=""
cerr=""
for l in 1 2 3; do
    "$B" -q "$WORK/ico$l.h5" --elements constant --fixed-box -2,-2,-2,2,2,2 -E 1 --nu 0.3 --columns all -o "$WORK/call.h5"
    r=$($G rigid "$WORK/call.h5")
    crot="$crot ${r#* }"
    check "constant, level $l: rigid translation gives zero traction" [ "$(echo "$r" | awk '{print ($1 < 1e-12)}')" = 1 ]
    "$B" -q "$WORK/ico$l.h5" --elements constant --fixed-box -2,-2,-2,2,2,-0.6 -E 1 --nu 0.3 --columns all -o "$WORK/ck.h5"
    cerr="$cerr $($G kelvin "$WORK/ck.h5" 2 0.5 0.3)"
done
echo "    constant elements: rigid rotation residuals:$crot; Kelvin field errors:$cerr"
check "constant elements: triangle layout, method bem-constant" [ "$(h5 "$WORK/ck.h5" "f['gf'].attrs['method'], f['gf'].attrs['entity'], len(f['gf/row_vertex']) == len(f['mesh/triangles'])")" = "bem-constant triangle True" ]
check "constant elements: the rotation residual falls under refinement (they cannot represent it)" /usr/bin/python3 -c "
r = [float(s) for s in '$crot'.split()]
raise SystemExit(0 if r[0] > r[1] > r[2] and r[2] < 1e-3 else 1)"
check "constant elements: Kelvin-field error falls at order >= 0.8, below 15% at level 3" /usr/bin/python3 -c "
import math
e = [float(s) for s in '$cerr'.split()]
raise SystemExit(0 if e[0] > e[1] > e[2] and math.log2(e[1] / e[2]) >= 0.8 and e[2] < 0.15 else 1)"

# --- bad input ------------------------------------------------------------------------
O="$WORK/out/gf.h5"
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 2 3 4\n' >"$WORK/open.obj"
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv 1 1 1\nf 1 3 2\nf 1 2 4\nf 2 3 4\nf 1 4 3\nf 2 3 5\nf 3 2 4\n' >"$WORK/nm.obj"
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv 0 0 0\nv -1 0 0\nv 0 -1 0\nv 0 0 -1\nf 1 3 2\nf 1 2 4\nf 2 3 4\nf 1 4 3\nf 5 6 7\nf 5 8 6\nf 6 8 7\nf 5 7 8\n' >"$WORK/dup.obj"
printf '1\n2\n3\n' >"$WORK/three.ids"
h5 "$WORK/ico2.h5" "'\n'.join(str(i + 1) for i, p in enumerate(f['mesh/vertices'][:]) if abs(p[0]) < 1e-9 and abs(p[1]) < 1e-9)" >"$WORK/line.ids"
printf '0 0 0\n3 0 0\n' >"$WORK/out.txt"
expect_fail "an interior point outside the body" 3 "interior point 2 .* outside the body" bemsolve "$WORK/ico1.h5" --fixed-box -2,-2,-2,2,2,-0.5 -E 1 --nu 0.3 --interior "$WORK/out.txt" -o "$O"
expect_fail "body force without a density" 3 "body-force needs a density" bemsolve "$WORK/ico2.h5" --fixed-box -2,-2,-2,2,2,-0.5 -E 1 --nu 0.3 --body-force -o "$O"
expect_fail "body force with constant elements" 2 "body-force need linear elements" bemsolve "$WORK/ico2.h5" --fixed-box -2,-2,-2,2,2,-0.5 -E 1 --nu 0.3 --rho 1 --elements constant --body-force -o "$O"
expect_fail "open surface" 3 "open surface" bemsolve "$WORK/open.obj" --fixed-ids "$WORK/three.ids" -E 1 --nu 0.3 -o "$O"
expect_fail "non-manifold surface" 3 "non-manifold" bemsolve "$WORK/nm.obj" --fixed-ids "$WORK/three.ids" -E 1 --nu 0.3 -o "$O"
# Coincident vertices 1 and 5 are welded by the clean-up; the two tetrahedra then touch at vertex 1.
expect_fail "coincident vertices welded: a pinched vertex" 3 "non-manifold vertex 1" bemsolve "$WORK/dup.obj" --fixed-ids "$WORK/three.ids" -E 1 --nu 0.3 -o "$O"
expect_fail "no fixed vertex" 2 "no fixed vertex" bemsolve "$WORK/ico2.h5" -E 1 --nu 0.3 -o "$O"
expect_fail "collinear fixed set" 3 "only collinear ones" bemsolve "$WORK/ico2.h5" --fixed-ids "$WORK/line.ids" -E 1 --nu 0.3 -o "$O"
expect_fail "nu above 0.5" 3 "Poisson's ratio must lie in \(-1, 0.5\]" bemsolve "$WORK/ico2.h5" --fixed-ids "$WORK/three.ids" -E 1 --nu 0.6 -o "$O"
printf '*VERTICES\n5 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 1 1 1\n*ELEMENTS\nTETS\n2 4 0\n1 1 2 3 4\n2 2 3 4 5\n*MATERIAL soft\nENU, 1000, 1e6, 0.3\n*MATERIAL hard\nENU, 1000, 1e9, 0.3\n*SET second\n2\n*REGION\nallElements, soft\nsecond, hard\n' >"$WORK/two.veg"
expect_fail "per-element materials" 3 "homogeneous" bemsolve "$WORK/two.veg" --fixed-ids "$WORK/three.ids" -o "$O"
expect_fail "constant elements with a column selection" 2 "need linear elements" bemsolve "$WORK/ico2.h5" --elements constant --fixed-box -2,-2,-2,2,2,-0.5 --col-box 0,0,0,1,1,1 -E 1 --nu 0.3 -o "$O"
expect_fail "constant elements, no fully fixed triangle" 3 "no triangle has all three vertices fixed" bemsolve "$WORK/ico2.h5" --elements constant --fixed-ids "$WORK/three.ids" -E 1 --nu 0.3 -o "$O"
expect_fail "memory guard" 1 "needs about [0-9.]+ [KMG]iB .*more than the 1 KiB allowed" bemsolve "$WORK/ico2.h5" --fixed-ids "$WORK/three.ids" -E 1 --nu 0.3 --max-memory 1K -o "$O"

# Inward orientation: the clean-up turns the .obj around and says so; the result equals the outward run.
"$BIN/loopsub" -q "$WORK/ico1.h5" -l 0 -o "$WORK/ico1.obj"
awk '/^f /{print "f", $2, $4, $3; next} {print}' "$WORK/ico1.obj" >"$WORK/inward.obj"
"$B" -q "$WORK/ico1.obj" --fixed-box -2,-2,-2,2,2,-0.5 -E 1 --nu 0.3 -o "$WORK/out1.h5"
"$B" "$WORK/inward.obj" --fixed-box -2,-2,-2,2,2,-0.5 -E 1 --nu 0.3 -o "$WORK/in1.h5" >"$WORK/note" 2>&1
check "inward surface: the clean-up turns it outward" grep -q "inward.obj: clean-up: reversed 80 faces" "$WORK/note"
check "inward surface: the same GFs as the outward one" [ "$(h5 "$WORK/in1.h5" "bool(np.allclose(f['gf/xi'][:], __import__('h5py').File('$WORK/out1.h5')['gf/xi'][:], rtol=0, atol=1e-12 * np.abs(f['gf/xi'][:]).max()))")" = True ]
finish
