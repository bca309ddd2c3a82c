#!/bin/sh
# femcondense: validation against analytic solutions and independent solvers
# (MATH.md §9, issue acceptance list), layout, and every error status.
. "$(dirname "$0")/common"
D=data
G="/usr/bin/python3 tests/cli/gfcheck.py"
F="$BIN/femcondense"

# --- layout -------------------------------------------------------------------
"$F" $D/cube.msh --fixed-region bottom -E 1e6 --nu 0.3 -o "$WORK/cube.h5" >"$WORK/summary"
check "cube: exit 0 and a summary with the solve rate" grep -q "GFlop/s" "$WORK/summary"
check "kind gf, method fem-tet4, traction hat" [ "$(h5 "$WORK/cube.h5" "f.attrs['kind'], f['gf'].attrs['method'], f['gf'].attrs['traction']")" = "gf fem-tet4 hat" ]
check "xi is [3m][3n]: free columns, all boundary rows" [ "$(h5 "$WORK/cube.h5" "f['gf/xi'].shape == (3 * len(f['gf/col_vertex']), 3 * len(f['gf/row_vertex'])) and len(f['gf/row_vertex']) == len(f['mesh/boundary']) and int(f['gf/row_fixed'][:].sum()) == len(f['gf/row_vertex']) - len(f['gf/col_vertex'])")" = True ]
check "file carries mesh, material and constraints" [ "$(h5 "$WORK/cube.h5" "float(f['material'].attrs['E']), len(f['constraints/fixed']) > 0, 'tets' in f['mesh']")" = "1000000.0 True True" ]
"$F" -q $D/cube.msh --fixed-region bottom -E 1e6 --nu 0.3 --single -o "$WORK/cube32.h5"
check "--single: float32 equal to the float64 file to 1e-6" [ "$(h5 "$WORK/cube32.h5" "f['gf/xi'].dtype == np.float32 and bool(np.allclose(f['gf/xi'][:], __import__('h5py').File('$WORK/cube.h5')['gf/xi'][:], rtol=1e-6, atol=1e-6 * np.abs(f['gf/xi'][:]).max()))")" = True ]
"$F" -q -j 1 --block 7 $D/cube.msh --fixed-region bottom -E 1e6 --nu 0.3 -o "$WORK/cube-j1.h5"
check "one thread, other block size: the same GFs" [ "$(h5 "$WORK/cube-j1.h5" "float(np.abs(f['gf/xi'][:] - __import__('h5py').File('$WORK/cube.h5')['gf/xi'][:]).max() / np.abs(f['gf/xi'][:]).max()) < 1e-12")" = True ]

# --- materials from a file (per region tag): E doubled halves every displacement ---
printf '# tag E nu rho\n3 2e6 0.3 1000\n' >"$WORK/mat.txt"
"$F" -q $D/cube.msh --fixed-region bottom -m "$WORK/mat.txt" -o "$WORK/cube-m.h5"
check "-m FILE: E doubled in region 3 halves displacements, keeps tractions" [ "$(h5 "$WORK/cube-m.h5" "(lambda a, b, d: float(np.abs(np.where(d, 2 * a, a) - b).max() / np.abs(b).max()) < 1e-12)(f['gf/xi'][:], __import__('h5py').File('$WORK/cube.h5')['gf/xi'][:], np.repeat(f['gf/row_fixed'][:] == 0, 3)[None, :])")" = True ]
printf '3 1e6 0.3 1000\n' >"$WORK/bad-region.txt"
printf '*VERTICES\n5 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 1 1 1\n*ELEMENTS\nTETS\n2 4 0\n1 1 2 3 4\n2 2 3 4 5\n*MATERIAL soft\nENU, 1000, 1e6, 0.3\n*MATERIAL hard\nENU, 1000, 1e9, 0.3\n*SET second\n2\n*REGION\nallElements, soft\nsecond, hard\n' >"$WORK/two.veg"
printf '1\n2\n3\n' >"$WORK/base.ids"
"$F" -q "$WORK/two.veg" --fixed-ids "$WORK/base.ids" --columns all -o "$WORK/two.h5"
check ".veg regions: per-element E stored in /material" [ "$(h5 "$WORK/two.h5" "f['material/E'][:].tolist()")" = "[1000000.0, 1000000000.0]" ]

# --- one relation S u_b = M_s p, reciprocity, switching ---------------------------
for tr in consistent lumped; do
    "$F" -q $D/cube.msh --fixed-region bottom -E 1e6 --nu 0.3 --columns all --condensed --traction $tr -o "$WORK/ref-$tr.h5"
    check "$tr: condensed stiffness times a GF column gives the load" $G relation "$WORK/ref-$tr.h5" 1e-10
    # switch the boundary vertices next to the support: the border couples back in the consistent model
    h5 "$WORK/ref-$tr.h5" "'\n'.join(str(v + 1) for v in f['gf/row_vertex'][:] if 0 < f['mesh/vertices'][v, 2] <= 0.3)" >"$WORK/more.ids"
    "$F" -q $D/cube.msh --fixed-region bottom --fixed-ids "$WORK/more.ids" -E 1e6 --nu 0.3 --columns all --traction $tr -o "$WORK/new-$tr.h5"
    check "$tr: capacitance formula on the reference GFs equals recomputed GFs" $G switch "$WORK/ref-$tr.h5" "$WORK/new-$tr.h5" 1e-8
done
check "lumped: Maxwell-Betti reciprocity a_i Xi_ij = (a_j Xi_ji)^T" $G betti "$WORK/ref-lumped.h5" 1e-10

# --- CalculiX (an independent FEM code, C3D4 static) ---------------------------------
printf '1\n' >"$WORK/col.ids"
"$F" -q $D/models/beam3/beam3_tet.veg --fixed-ids $D/models/beam3/beam3.bou --col-ids "$WORK/col.ids" --traction lumped -o "$WORK/beam3.h5"
check "CalculiX *CLOAD a_j equals the lumped GF column to 1e-6" $G ccx "$WORK/beam3.h5" 1 1e-6

# --- cantilever: tip deflection converges to Timoshenko ---------------------------
ratios=""
for h in 0.05 0.025 0.0125; do
    "$F" -q $D/beam-h$h.msh --fixed-region fixed --col-region tip -E 1 --nu 0.3 --traction lumped -o "$WORK/beam.h5"
    ratios="$ratios $($G cantilever "$WORK/beam.h5" 1 0.3)"
done
echo "    cantilever tip deflection / Timoshenko:$ratios"
check "cantilever: error decreases over three meshes, below 10% on the finest" /usr/bin/python3 -c "
r = [float(s) for s in '$ratios'.split()]
e = [abs(1 - x) for x in r]
raise SystemExit(0 if e[0] > e[1] > e[2] and e[2] < 0.1 else 1)"

# --- Lame hollow sphere through the GFs (--columns all, 6 held outer vertices) ----
errs=""
for h in 0.25 0.15 0.1; do
    $G axis-ids $D/hollow-sphere-h$h.msh 1 >"$WORK/axis.ids"
    "$F" -q $D/hollow-sphere-h$h.msh --fixed-ids "$WORK/axis.ids" -E 1 --nu 0.3 --columns all -o "$WORK/hs.h5"
    errs="$errs $($G lame "$WORK/hs.h5" 1 0.3 1 1 | sed 's/.*: \([0-9.e+-]*\) .*/\1/')"
done
echo "    Lame u_r RMS errors:$errs"
check "Lame: error falls under refinement, below 5% on h = 0.1" /usr/bin/python3 -c "
e = [float(s) for s in '$errs'.split()]
raise SystemExit(0 if e[0] > e[1] > e[2] and e[2] < 0.05 else 1)"

# --- body-force rows (MATH.md §12; the values: tests/unit/test_femgf, test_gravity) ----
body_dims() { h5ls "$1/gf/body" 2>/dev/null | sed -n 's/.*Dataset {\([0-9]*\), \([0-9]*\)}.*/\1x\2/p'; }
"$F" -q $D/cube.msh --fixed-region bottom -E 1e6 --nu 0.3 --rho 1000 --body-force --no-xdmf -o "$WORK/gb.h5"
n3=$(h5ls "$WORK/gb.h5/gf/xi" | sed -n 's/.*Dataset {[0-9]*, \([0-9]*\)}.*/\1/p')
check "--body-force: /gf/body is [3][3n]" [ "$(body_dims "$WORK/gb.h5")" = "3x$n3" ]
# --interior at boundary vertices and at a tet's centroid: a boundary point's
# displacement rows are the GF rows there (the values inside: tests/unit/test_femgf)
h5 "$WORK/gb.h5" "'\n'.join('%.17g %.17g %.17g' % tuple(f['mesh/vertices'][v]) for v in f['gf/row_vertex'][:40:9])" >"$WORK/pts.txt"
h5 "$WORK/gb.h5" "'%.17g %.17g %.17g' % tuple(f['mesh/vertices'][f['mesh/tets'][5]].mean(0))" >>"$WORK/pts.txt"
/usr/bin/python3 -c "import h5py, numpy as np; h5py.File('$WORK/pts.h5', 'w')['points'] = np.loadtxt('$WORK/pts.txt')"
"$F" -q $D/cube.msh --fixed-region bottom -E 1e6 --nu 0.3 --rho 1000 --body-force --interior "$WORK/pts.txt" --no-xdmf -o "$WORK/gi.h5"
"$F" -q $D/cube.msh --fixed-region bottom -E 1e6 --nu 0.3 --rho 1000 --body-force --interior "$WORK/pts.h5" --no-xdmf -o "$WORK/gi2.h5"
check "--interior: at boundary vertices, the displacement rows equal the GF rows (and the body rows)" [ "$(h5 "$WORK/gi.h5" "(lambda I, X, B, IB, fx: I.shape == (X.shape[0], 54) and all(np.allclose(I[:, 9 * k:9 * k + 3], X[:, 3 * r:3 * r + 3], rtol=0, atol=1e-12 * abs(X).max()) and np.allclose(IB[:, 9 * k:9 * k + 3], B[:, 3 * r:3 * r + 3], rtol=0, atol=1e-12 * abs(B).max()) for k, r in enumerate(range(0, 40, 9)) if not fx[r]) and bool(np.abs(I[:, 48:]).max() > 0))(f['gf/interior'][:], f['gf/xi'][:], f['gf/body'][:], f['gf/interior_body'][:], f['gf/row_fixed'][:])")" = True ]
check "--interior: a text and an HDF5 point list give the same rows" [ "$(h5 "$WORK/gi.h5" "bool(np.array_equal(f['gf/interior'][:], __import__('h5py').File('$WORK/gi2.h5')['gf/interior'][:]))")" = True ]

# --- bad input ----------------------------------------------------------------------
O="$WORK/out/gf.h5"
printf '*VERTICES\n4 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n*ELEMENTS\nTETS\n1 4 0\n1 1 3 2 4\n' >"$WORK/inverted.veg"
printf '2\n' >"$WORK/one.ids"
expect_fail "nu = 0.5" 3 "Poisson's ratio must lie in \(-1, 0.5\)" femcondense $D/cube.msh --fixed-region bottom -E 1e6 --nu 0.5 -o "$O"
expect_fail "E <= 0" 3 "Young's modulus must be positive" femcondense $D/cube.msh --fixed-region bottom -E -1 --nu 0.3 -o "$O"
expect_fail "no material" 2 "no material" femcondense $D/cube.msh --fixed-region bottom -o "$O"
expect_fail "only -E" 2 "give both -E and --nu" femcondense $D/cube.msh --fixed-region bottom -E 1e6 -o "$O"
expect_fail "no fixed vertex option" 2 "no fixed vertex" femcondense $D/cube.msh -E 1e6 --nu 0.3 -o "$O"
expect_fail "body force without a density" 3 "body-force needs a density" femcondense $D/cube.msh --fixed-region bottom -E 1e6 --nu 0.3 --body-force -o "$O"
printf '0.5 0.5 0.5\n3 0.5 0.5\n' >"$WORK/outside.txt"
printf '0.5 0.5\n' >"$WORK/short.txt"
expect_fail "an interior point outside the body" 3 "a point lies outside the body [^(]*cube.msh \(render vertex 2 \(3, 0.5, 0.5\) is farther than [0-9.e+-]+ from every element\)$" femcondense $D/cube.msh --fixed-region bottom -E 1e6 --nu 0.3 --interior "$WORK/outside.txt" -o "$O"
expect_fail "an interior point list with two coordinates" 3 "short.txt:1: expected" femcondense $D/cube.msh --fixed-region bottom -E 1e6 --nu 0.3 --interior "$WORK/short.txt" -o "$O"
expect_fail "body force with --part" 2 "body-force and --part" femcondense $D/cube.msh --fixed-region bottom -E 1e6 --nu 0.3 --rho 1 --body-force --part 1/2 -o "$O"
expect_fail "empty fixed selection" 3 "no fixed vertex selected" femcondense $D/cube.msh --fixed-box 5,5,5,6,6,6 -E 1e6 --nu 0.3 -o "$O"
expect_fail "one fixed vertex leaves a rigid motion" 3 "rigid motion" femcondense $D/cube.msh --fixed-ids "$WORK/one.ids" -E 1e6 --nu 0.3 -o "$O"
expect_fail "inverted tet" 3 "element 1: non-positive volume" femcondense "$WORK/inverted.veg" --fixed-ids "$WORK/one.ids" -E 1 --nu 0.3 -o "$O"
expect_fail "surface mesh" 3 "not a volumetric mesh" femcondense $D/icosahedron.obj --fixed-ids "$WORK/one.ids" -E 1 --nu 0.3 -o "$O"
expect_fail "columns: a box with no boundary vertex" 3 "no boundary vertex selected for columns" femcondense $D/cube.msh --fixed-region bottom --col-box 0.4,0.4,0.4,0.6,0.6,0.6 -E 1 --nu 0.3 -o "$O"
h5 "$WORK/cube.h5" "[v + 1 for v in range(len(f['mesh/vertices'])) if v not in set(f['mesh/boundary'][:])][0]" >"$WORK/inner.ids"
expect_fail "columns: an interior vertex id" 3 "inner.ids: column vertex [0-9]* is not a boundary vertex" femcondense $D/cube.msh --fixed-region bottom --col-ids "$WORK/inner.ids" -E 1 --nu 0.3 -o "$O"
expect_fail "memory guard" 1 "needs about [0-9.]+ [KMG]iB .*more than the 1 KiB allowed" femcondense $D/cube.msh --fixed-region bottom -E 1 --nu 0.3 --max-memory 1K -o "$O"
expect_fail "bad --traction" 2 "expected consistent or lumped" femcondense $D/cube.msh --fixed-region bottom -E 1 --nu 0.3 --traction x -o "$O"
expect_fail "bad --max-memory" 2 "expected a size" femcondense $D/cube.msh --fixed-region bottom -E 1 --nu 0.3 --max-memory lots -o "$O"
printf 'not hdf5\n' >"$WORK/bad.h5"
expect_fail "not an HDF5 input" 3 "bad.h5: not an HDF5 file" femcondense "$WORK/bad.h5" -E 1 --nu 0.3 --fixed-ids "$WORK/one.ids" -o "$O"
finish
