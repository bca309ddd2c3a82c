#!/bin/sh
# zones: bonded zones (issue 40 part 3; 000 §5.1, MATH.md §12).  A bar cut
# in two (and in three: a chain) by region tags, each zone's lumped FEM GFs
# computed with its seam held (zonesplit, femcondense --columns all), and
# bonded by rtcheck --zones: the bond must reproduce the GFs of the whole
# bar on the same mesh, column by column, to solver precision (and its
# body-force rows), besides rtcheck's own checks (seam continuity and force
# balance by plain GF sums in random frames, frame invariance, the chain's
# block tridiagonal factor against one dense factor); zonesplit's output checked
# with h5py; bad input: one line and the documented status.
. "$(dirname "$0")/common"
PY=/usr/bin/python3
T=tests/cli
MAT="-E 1e6 --nu 0.3 --rho 1000"
FIX="--fixed-box -1,-1,-1,1e-9,2,2"

$PY $T/barmesh.py 8 2 2 4 1 1 2 "$WORK/bar2.msh"
$PY $T/barmesh.py 9 2 2 4.5 1 1 3 "$WORK/bar3.msh"
$PY $T/barmesh.py 8 3 2 4 1 1 2 "$WORK/bar2b.msh" # another cross-section: its seam lies elsewhere

# the zones, and zonesplit's output
"$BIN/zonesplit" "$WORK/bar2.msh" --region 1 $FIX -o "$WORK/z1.h5" >"$WORK/summary"
check "summary: region, vertices, seam, support" grep -Eq "region 1: 45 vertices, 96 tets, 9 seam vertices, 18 fixed \(9 of the support\)" "$WORK/summary"
"$BIN/zonesplit" -q "$WORK/bar2.msh" --region 2 $FIX -o "$WORK/z2.h5"
res=$($PY - "$WORK/z1.h5" "$WORK/z2.h5" <<'PY'
import sys, h5py, numpy as np
a, b = (h5py.File(p, "r") for p in sys.argv[1:3])
xa, xb = a["/mesh/vertices"][...], b["/mesh/vertices"][...]
sa, sb = a["/constraints/seam"][...], b["/constraints/seam"][...]
fa, fb = set(a["/constraints/fixed"][...]), set(b["/constraints/fixed"][...])
ok = (np.all(np.abs(xa[sa, 0] - 2) < 1e-12) and np.all(np.abs(xb[sb, 0] - 2) < 1e-12)   # the cut at x = 2
      and len(sa) == 9 and sorted(map(tuple, xa[sa])) == sorted(map(tuple, xb[sb]))     # the same vertices
      and set(sa) <= fa and set(sb) == fb                                                # held; zone 2: the seam only
      and fa - set(sa) == set(np.where(xa[:, 0] < 1e-9)[0])                              # zone 1: the support too
      and a["/mesh/tets"].shape[0] + b["/mesh/tets"].shape[0] == 8 * 2 * 2 * 6
      and a.attrs["kind"] in (b"mesh", "mesh"))
print("ok" if ok else "bad")
PY
)
check "zonesplit: seam at the cut, shared, held; support kept; elements split" [ "$res" = ok ]

# GFs: the whole bar and each zone (lumped traction: the seam forces are the FEM's own)
"$BIN/femcondense" -q "$WORK/bar2.msh" $FIX $MAT --traction lumped --body-force -o "$WORK/whole2.h5"
for z in 1 2; do
    "$BIN/femcondense" -q "$WORK/z$z.h5" $MAT --traction lumped --columns all --body-force -o "$WORK/g$z.h5"
done
check "the GF file carries the seam" $PY -c "import h5py,sys; f=h5py.File('$WORK/g2.h5','r'); sys.exit(len(f['/constraints/seam']) != 9)"
"$BIN/rtcheck" --zones "$WORK/g1.h5" "$WORK/g2.h5" --reference "$WORK/whole2.h5" --reference-tol 1e-9 --contacts 5 --trials 5 >"$WORK/rt2" 2>&1
st=$?
check "two zones bonded: every check passes" [ $st -eq 0 ]
check "two zones: the whole bar's GFs to 1e-9" grep -Eq "bonded zones against the whole model's GFs +[0-9.e+-]+ \(tolerance 1.0e-09\) ok" "$WORK/rt2"
check "two zones: and its body-force rows" grep -Eq "bonded gravity against the whole model's /gf/body +[0-9.e+-]+ \(tolerance 1.0e-09\) ok" "$WORK/rt2"
check "two zones: one dense block" grep -Eq "chain \(block tridiagonal\) = 0" "$WORK/rt2"
grep -E "against the whole|seam solve|seam force|continuity" "$WORK/rt2" | sed 's/^/    /'

# a chain of three: block tridiagonal, random frames
for z in 1 2 3; do
    "$BIN/zonesplit" -q "$WORK/bar3.msh" --region $z $FIX -o "$WORK/c$z.h5"
    "$BIN/femcondense" -q "$WORK/c$z.h5" $MAT --traction lumped --columns all --body-force -o "$WORK/gc$z.h5"
done
"$BIN/femcondense" -q "$WORK/bar3.msh" $FIX $MAT --traction lumped --body-force -o "$WORK/whole3.h5"
"$BIN/rtcheck" --zones "$WORK/gc1.h5" "$WORK/gc2.h5" "$WORK/gc3.h5" --reference "$WORK/whole3.h5" --reference-tol 1e-9 \
    --contacts 4 --trials 5 >"$WORK/rt3" 2>&1
st=$?
check "chain of three: every check passes" [ $st -eq 0 ]
check "chain of three: block tridiagonal" grep -Eq "chain \(block tridiagonal\) = 1" "$WORK/rt3"
check "chain of three: 2 seams, 2 diagonal blocks" grep -Eq "diagonal blocks = 2" "$WORK/rt3"
check "chain of three: tridiagonal equals one dense factor" grep -Eq "block tridiagonal factor against one dense factor +[0-9.e+-]+ \(tolerance 1.0e-09\) ok" "$WORK/rt3"
check "chain of three: the whole bar's GFs to 1e-9" grep -Eq "bonded zones against the whole model's GFs +[0-9.e+-]+ \(tolerance 1.0e-09\) ok" "$WORK/rt3"
grep -E "against|seam solve" "$WORK/rt3" | sed 's/^/    /'

# bad input
"$BIN/zonesplit" -q "$WORK/bar2b.msh" --region 2 -o "$WORK/y2.h5"
"$BIN/femcondense" -q "$WORK/y2.h5" $MAT --traction lumped --columns all -o "$WORK/gy2.h5"
expect_fail "seams that do not coincide: exit 3" 3 "seam vertex [0-9]+ at \(.*\) coincides with no seam vertex" \
    rtcheck --zones "$WORK/g1.h5" "$WORK/gy2.h5"
"$BIN/femcondense" -q "$WORK/z2.h5" $MAT --traction lumped -o "$WORK/gfree.h5"
expect_fail "no columns at the seam: exit 3" 3 "seam vertex [0-9]+ has no GF column" rtcheck --zones "$WORK/g1.h5" "$WORK/gfree.h5"
expect_fail "a file without a seam: exit 3" 3 "no seam \(/constraints/seam" rtcheck --zones "$WORK/g1.h5" "$WORK/whole2.h5"
expect_fail "one zone: usage" 2 "two zones or more" rtcheck --zones "$WORK/g1.h5"
expect_fail "three files without --zones: usage" 2 "more than two go with --zones only" rtcheck "$WORK/g1.h5" "$WORK/g2.h5" "$WORK/g1.h5"
expect_fail "zonesplit: no --region" 2 "no zone: give --region" zonesplit "$WORK/bar2.msh" -o "$WORK/out/z.h5"
expect_fail "zonesplit: an absent tag" 3 "no element has region tag 7" zonesplit "$WORK/bar2.msh" --region 7 -o "$WORK/out/z.h5"
$PY $T/barmesh.py 2 1 1 1 1 1 1 "$WORK/one.msh"
expect_fail "zonesplit: one region, no seam" 3 "region 1 shares no vertex with another region" zonesplit "$WORK/one.msh" --region 1 -o "$WORK/out/z.h5"
expect_fail "zonesplit: a surface" 3 "no region tags|not a volumetric mesh" zonesplit data/icosahedron.obj --region 1 -o "$WORK/out/z.h5"

# --- the pipeline's zones goal: zonesplit -> femcondense -> rtcheck --zones -------------
P="$WORK/pipe"
make -s -f scripts/pipeline.mk BIN="$BIN" OUT="$P" MESH="$WORK/bar2.msh" ZONES="1 2" FIXED="$FIX" MATERIAL="$MAT" >"$WORK/make.txt" 2>&1
check "pipeline ZONES=: every step made, rtcheck --zones passed and timed the seam solve" sh -c \
    "grep -q 'pipeline: done' '$WORK/make.txt' && ! grep -q FAILED '$P/rtcheck-zones.txt' && grep -q 'seam solve, same frames' '$P/rtcheck-zones.txt'"
check "pipeline ZONES=: the zone files stay beside their sidecars, and a second make has nothing to do" sh -c \
    "[ -f '$P/zone-1.h5' ] && [ -f '$P/zone-2.h5' ] && [ -z \"\$(make -s -f scripts/pipeline.mk BIN='$BIN' OUT='$P' MESH='$WORK/bar2.msh' ZONES='1 2' FIXED='$FIX' MATERIAL='$MAT' 2>&1 | grep -v '^pipeline: done')\" ]"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
