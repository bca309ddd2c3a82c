#!/bin/sh
# Vega FEM formats (issue 19 item 2): epexport's .veg, .bou, .U, .cub and
# .interp and
# polycoef --basis-file, in round trips that must be exact: a modes file as
# .veg + .U gives polycoef the very coefficients it computes from the modes
# file; .U and .cub read by an independent reader of the layouts of
# epexport(1) (numpy) equal the HDF5 data; a hex model's .veg reads back
# equal; bad requests refused with one line and their status.  The byte
# layouts themselves are checked against hand-made files in
# tests/unit/test_vega.c.
. "$(dirname "$0")/common"
D=data
PY=/usr/bin/python3
"$BIN/moddesc" -q $D/models/beam3/beam3_tet.veg --fixed-ids $D/models/beam3/beam3.bou -E 1e7 --nu 0.4 --rho 1000 \
    -k 4 -r 6 --no-xdmf -o "$WORK/m.h5"
"$BIN/polycoef" -q "$WORK/m.h5" --no-xdmf -o "$WORK/c.h5"
for out in m.veg m.bou m.U; do "$BIN/epexport" -q "$WORK/m.h5" -o "$WORK/$out"; done
"$BIN/epexport" "$WORK/c.h5" -o "$WORK/c.cub" >"$WORK/summary"
check "summary names the polynomials" grep -q "c.cub: r = 6 cubic polynomials" "$WORK/summary"

# .veg + .U -> polycoef: the same model, basis and coefficients, bit for bit
"$BIN/polycoef" -q "$WORK/m.veg" --basis-file "$WORK/m.U" --no-xdmf -o "$WORK/c2.h5"
check "polycoef on .veg + .U = polycoef on the modes file (P, Q, S, mesh, material, basis exactly)" \
    [ "$($PY -c "
import h5py, numpy as np, sys
a, b = h5py.File(sys.argv[1]), h5py.File(sys.argv[2])
same = all(np.array_equal(a[k][()], b[k][()]) for k in ('cubic/P', 'cubic/Q', 'cubic/S', 'basis/U', 'mesh/vertices', 'mesh/tets'))
print(same and dict(a['material'].attrs) == dict(b['material'].attrs))" "$WORK/c.h5" "$WORK/c2.h5")" = True ]
"$BIN/polycoef" -q "$WORK/m.veg" --basis-file "$WORK/m.U" -r 3 --no-xdmf -o "$WORK/c3.h5"
check "polycoef --basis-file -r 3: the first 3 vectors" [ "$(h5 "$WORK/c3.h5" "f['cubic/P'].shape")" = "(3, 3)" ]
"$BIN/epexport" -q "$WORK/m.veg" -o "$WORK/m2.veg"
check ".veg -> model -> .veg: the same bytes" cmp -s "$WORK/m.veg" "$WORK/m2.veg"
check ".bou: the fixed vertices, 1-based" [ "$(tr -d ',' <"$WORK/m.bou" | tr '\n' ' ')" = "$(h5 "$WORK/m.h5" "' '.join(str(v + 1) for v in f['constraints/fixed'][()])") " ]

# independent readers of the layouts (epexport(1), FILES)
cat >"$WORK/read.py" <<'PYEOF'
import sys, h5py, numpy as np
def vega_U(path):
    m, n = np.fromfile(path, "<i4", 2)
    return np.fromfile(path, "<f8", offset=8).reshape(n, m)      # column j contiguous
def vega_cub(path):
    r, l, q, c = np.fromfile(path, "<i4", 4)
    v = np.fromfile(path, "<f8", offset=16)
    return v[:r * l].reshape(r, l), v[r * l:r * (l + q)].reshape(r, q), v[r * (l + q):].reshape(r, c)
h = h5py.File(sys.argv[2], "r")
if sys.argv[1] == "U":
    print(np.array_equal(vega_U(sys.argv[3]), h[sys.argv[4]][()]))
else:
    L, Q, S = vega_cub(sys.argv[3])
    print(np.array_equal(L, h["cubic/P"][()].T) and np.array_equal(Q, h["cubic/Q"][()].T) and np.array_equal(S, h["cubic/S"][()].T))
PYEOF
check ".U read by numpy = /basis/U" [ "$($PY "$WORK/read.py" U "$WORK/m.h5" "$WORK/m.U" basis/U)" = True ]
"$BIN/epexport" -q "$WORK/m.h5" --basis /modes/U -o "$WORK/modes.U"
check "--basis /modes/U" [ "$($PY "$WORK/read.py" U "$WORK/m.h5" "$WORK/modes.U" modes/U)" = True ]
"$BIN/epexport" -q "$WORK/m.h5" --basis /derivatives/Phi -o "$WORK/phi.U"
check "--basis /derivatives/Phi" [ "$($PY "$WORK/read.py" U "$WORK/m.h5" "$WORK/phi.U" derivatives/Phi)" = True ]
check ".cub read by numpy = /cubic/P, Q, S transposed" [ "$($PY "$WORK/read.py" cub "$WORK/c.h5" "$WORK/c.cub")" = True ]

# hexahedra: two voxels (Vega CUBIC, data/two-voxels.veg), through .h5 and back to .veg
"$BIN/moddesc" -q $D/two-voxels.veg --fixed-box -0.1,-0.1,-0.1,0.1,1.1,1.1 -k 2 -r 2 --no-xdmf -o "$WORK/two.h5"
"$BIN/epexport" -q "$WORK/two.h5" -o "$WORK/two-out.veg"
"$BIN/epexport" -q "$WORK/two-out.veg" -o "$WORK/two-again.veg"
check "hexes: .h5 -> .veg has the CUBIC elements" grep -q "^CUBIC" "$WORK/two-out.veg"
check "hexes: .veg -> .veg the same bytes" cmp -s "$WORK/two-out.veg" "$WORK/two-again.veg"
"$BIN/epexport" -q "$WORK/two.h5" -o "$WORK/two.U"
check "hexes: the basis as .U" [ "$($PY "$WORK/read.py" U "$WORK/two.h5" "$WORK/two.U" basis/U)" = True ]

# an embedding's weights: epexport writes what embed -o .interp writes (embed's writer)
"$BIN/loopsub" -q $D/models/beam3/beam3_tet.veg -l 1 -o "$WORK/render.obj"
"$BIN/embed" -q "$WORK/m.h5" "$WORK/render.obj" --modes "$WORK/m.h5" --no-xdmf -o "$WORK/e.h5"
"$BIN/embed" -q "$WORK/m.h5" "$WORK/render.obj" -o "$WORK/e.interp"
"$BIN/epexport" -q "$WORK/e.h5" -o "$WORK/e2.interp"
check ".interp of an embedding file = embed's own .interp" cmp -s "$WORK/e.interp" "$WORK/e2.interp"
"$BIN/epexport" -q "$WORK/e.h5" --basis /embedding/Ubar -o "$WORK/ubar.U"
check "--basis /embedding/Ubar: the render basis as .U" [ "$($PY "$WORK/read.py" U "$WORK/e.h5" "$WORK/ubar.U" embedding/Ubar)" = True ]
expect_fail ".interp of a modes file" 3 "kind" epexport "$WORK/m.h5" -o "$WORK/out/x.interp"

expect_fail "output of no Vega kind" 2 "the output must end in .veg, .bou, .U, .cub or .interp" epexport "$WORK/m.h5" -o "$WORK/out/x.txt"
expect_fail "--basis with a .veg" 2 "option --basis: only a .U output takes a basis" \
    epexport "$WORK/m.h5" --basis /modes/U -o "$WORK/out/x.veg"
expect_fail ".cub of a modes file" 3 "kind" epexport "$WORK/m.h5" -o "$WORK/out/x.cub"
expect_fail ".bou of a model without fixed vertices" 3 "no /constraints/fixed" \
    epexport $D/models/beam3/beam3_tet.veg -o "$WORK/out/x.bou"
expect_fail ".U of a missing dataset" 3 "/nothing" epexport "$WORK/m.h5" --basis /nothing -o "$WORK/out/x.U"
expect_fail ".veg of a surface" 3 "no tetrahedra or hexahedra" epexport $D/icosahedron.obj -o "$WORK/out/x.veg"
expect_fail "polycoef: a .U of another model" 3 "two.U: a basis of 36-vectors, the model has" \
    polycoef "$WORK/m.veg" --basis-file "$WORK/two.U" -o "$WORK/out/c.h5"
expect_fail "polycoef: --basis and --basis-file" 2 "give --basis or --basis-file, not both" \
    polycoef "$WORK/m.veg" --basis /modes/U --basis-file "$WORK/m.U" -o "$WORK/out/c.h5"
expect_fail "polycoef: -r beyond the .U" 2 "option -r: 9 basis vectors asked" \
    polycoef "$WORK/m.veg" --basis-file "$WORK/m.U" -r 9 -o "$WORK/out/c.h5"
printf 'garbage' >"$WORK/bad.U"
expect_fail "polycoef: a .U that is not one" 3 "bad.U" polycoef "$WORK/m.veg" --basis-file "$WORK/bad.U" -o "$WORK/out/c.h5"
finish
