#!/bin/sh
# polycoef: layout, truncation, material split and errors (the numerics are
# checked against the full StVK force in tests/unit/test_cubic.c).
. "$(dirname "$0")/common"
D=data
"$BIN/moddesc" -q $D/models/beam3/beam3_tet.veg --fixed-ids $D/models/beam3/beam3.bou -k 6 -r 8 -o "$WORK/m.h5"
"$BIN/polycoef" "$WORK/m.h5" --split-material -o "$WORK/c.h5" >"$WORK/summary"
check "summary names r and the runtime size" grep -q "r = 8: 8 + 36 + 120 coefficient vectors" "$WORK/summary"
check "kind cubic; P [8][8], Q [36][8], S [120][8]; the basis copied" [ "$(h5 "$WORK/c.h5" "f.attrs['kind'], f['cubic/P'].shape, f['cubic/Q'].shape, f['cubic/S'].shape, bool(np.array_equal(f['basis/U'][:], __import__('h5py').File('$WORK/m.h5')['basis/U'][:]))")" = "cubic (8, 8) (36, 8) (120, 8) True" ]
check "carries mesh, material and constraints" [ "$(h5 "$WORK/c.h5" "'tets' in f['mesh'], float(f['material'].attrs['E']), len(f['constraints/fixed'])")" = "True 10000000.0 8" ]
check "--split-material: lambda part + mu part = total" [ "$(h5 "$WORK/c.h5" "all(np.allclose(f['cubic/' + k][:], f['cubic/lambda/' + k][:] + f['cubic/mu/' + k][:], rtol=1e-12, atol=1e-12 * np.abs(f['cubic/' + k][:]).max()) for k in 'PQS')")" = True ]
check "P is symmetric (= U^T K U)" [ "$(h5 "$WORK/c.h5" "bool(np.allclose(f['cubic/P'][:], f['cubic/P'][:].T, rtol=1e-12, atol=1e-12 * np.abs(f['cubic/P'][:]).max()))")" = True ]

# Truncation: -r 10 on a 20-vector basis equals the leading block of the
# full set (issue acceptance).
"$BIN/moddesc" -q $D/models/beam3/beam3_tet.veg --fixed-ids $D/models/beam3/beam3.bou -k 5 -r 20 -o "$WORK/m20.h5"
"$BIN/polycoef" -q "$WORK/m20.h5" -o "$WORK/c20.h5"
"$BIN/polycoef" -q "$WORK/m20.h5" -r 10 -o "$WORK/c10.h5"
check "-r 10 of a 20-vector basis is the leading block of the full set" /usr/bin/python3 -c "
import h5py, numpy as np, itertools
a, b = h5py.File('$WORK/c20.h5'), h5py.File('$WORK/c10.h5')
def idx(r, n):
    return {t: i for i, t in enumerate(itertools.combinations_with_replacement(range(r), n))}
ok = a['cubic/P'].shape == (20, 20) and b['cubic/P'].shape == (10, 10)
ok &= np.allclose(b['cubic/P'][:], a['cubic/P'][:10, :10], rtol=1e-12, atol=0)
for name, n in (('Q', 2), ('S', 3)):
    full, small = idx(20, n), idx(10, n)
    ok &= b['cubic/' + name].shape == (len(small), 10)
    for t, i in small.items():
        ok &= np.allclose(b['cubic/' + name][i], a['cubic/' + name][full[t], :10], rtol=1e-10, atol=1e-10 * np.abs(a['cubic/' + name][:]).max())
raise SystemExit(0 if ok else 1)"

# --- bad input ------------------------------------------------------------------
O="$WORK/out/c.h5"
"$BIN/loopsub" -q $D/icosahedron.obj -l 1 -o "$WORK/surface.h5"
"$BIN/femcondense" -q $D/cube.msh --fixed-region bottom -E 1 --nu 0.3 -o "$WORK/surface-tets.h5" # tets, no basis
/usr/bin/python3 -c "
import h5py, shutil
shutil.copy('$WORK/m.h5', '$WORK/short.h5')
with h5py.File('$WORK/short.h5', 'a') as f:
    U = f['basis/U'][:]
    del f['basis/U']
    f['basis/U'] = U[:, :-3]
"
expect_fail "a file without a basis" 3 "no basis /basis/U" polycoef "$WORK/surface-tets.h5" -o "$O"
expect_fail "a basis dataset that is not there" 3 "no basis /basis/V" polycoef "$WORK/m.h5" --basis /basis/V -o "$O"
expect_fail "a surface without tets" 3 "no tetrahedra" polycoef "$WORK/surface.h5" -o "$O"
expect_fail "a basis whose length does not match the mesh" 3 "/basis/U has shape \[8\]\[621\], expected \[\*\]\[624\]" polycoef "$WORK/short.h5" -o "$O"
expect_fail "r = 0" 2 "out of range" polycoef "$WORK/m.h5" -r 0 -o "$O"
expect_fail "r above the basis" 2 "-r 9: the basis /basis/U has 8 vectors" polycoef "$WORK/m.h5" -r 9 -o "$O"
printf "text\n" >"$WORK/text.h5"
expect_fail "not an HDF5 file" 3 "not an HDF5 file" polycoef "$WORK/text.h5" -o "$O"
finish
