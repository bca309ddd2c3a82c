#!/bin/sh
# femdata: the matrices and element data written (kind fem) checked with
# scipy against independent facts: K's rigid translations, M's total mass,
# the element matrices assembling to K and M, the reduced gravity of the
# written M and basis against a direct U^T M g, U^T M U = I for moddesc's
# mass-orthonormal basis, the rigid-body data of the unit cube; bad input.
. "$(dirname "$0")/common"
D=data
PY=/usr/bin/python3
O="$WORK/out/f.h5"

"$BIN/moddesc" -q $D/models/beam3/beam3_tet.veg --fixed-ids $D/models/beam3/beam3.bou -k 6 -r 6 --basis linear -o "$WORK/modes.h5"
"$BIN/femdata" "$WORK/modes.h5" -o "$WORK/f.h5" >"$WORK/summary"
check "summary: matrices, element data, reduced mass" grep -Eq "450 tets, 208 vertices: K [0-9]+, M [0-9]+ nonzeros; element data of 12 x 12; reduced mass and gravity of 6 basis vectors" "$WORK/summary"
res=$($PY - "$WORK/f.h5" <<'PY'
import sys, h5py, numpy as np, scipy.sparse as sp
f = h5py.File(sys.argv[1], "r")
def csr(g):
    g = f[g]
    return sp.csr_matrix((g["values"][:], g["columns"][:], g["rowptr"][:]), shape=(g.attrs["rows"], g.attrs["cols"]))
K, M, ML = csr("fem/K"), csr("fem/M"), csr("fem/M_lumped")
x, tets = f["mesh/vertices"][:], f["mesh/tets"][:]
nv = len(x)
rho = f["material"].attrs["rho"]
vol = f["fem/elements/volume"][:]
# K: symmetric, rigid translations in its kernel
t = np.tile([1.0, 0.3, -0.2], nv)
out = [abs(K - K.T).max() < 1e-9 * abs(K).max(), np.abs(K @ t).max() < 1e-9 * abs(K).max()]
# M: total mass rho V along each axis, consistent and lumped alike; lumped diagonal
e = np.tile([1.0, 0, 0], nv)
out += [abs(e @ M @ e - rho * vol.sum()) < 1e-9 * rho * vol.sum(), abs(e @ ML @ e - rho * vol.sum()) < 1e-9 * rho * vol.sum(),
        (ML - sp.diags(ML.diagonal())).nnz == 0 or abs(ML - sp.diags(ML.diagonal())).max() == 0]
# element matrices assemble to K and M
Ke, Me = f["fem/elements/K"][:], f["fem/elements/M"][:]
dof = (3 * tets[:, :, None] + np.arange(3)).reshape(len(tets), 12)
r = np.repeat(dof, 12, axis=1).ravel(); c = np.tile(dof, 12).ravel()
KA = sp.csr_matrix((Ke.ravel(), (r, c)), shape=K.shape); MA = sp.csr_matrix((Me.ravel(), (r, c)), shape=K.shape)
out += [abs(KA - K).max() < 1e-12 * abs(K).max(), abs(MA - M).max() < 1e-12 * abs(M).max()]
# gradients: sum to zero, volumes those of the tets
g = f["fem/elements/gradient"][:]
p = x[tets]
v6 = np.einsum("ij,ij->i", np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]), p[:, 3] - p[:, 0]) / 6
out += [np.abs(g.sum(axis=1)).max() < 1e-9 * np.abs(g).max(), np.abs(v6 - vol).max() < 1e-14 * vol.max()]
# reduced: U^T M U = I (moddesc's basis is M-orthonormal), gravity = U^T M e_a
U = f["basis/U"][:]
G = np.stack([U @ (M @ np.tile(np.eye(3)[a], nv)) for a in range(3)], axis=1)
out += [np.abs(f["reduced/M"][:] - U @ (M @ U.T)).max() < 1e-12, np.abs(f["reduced/M"][:] - np.eye(len(U))).max() < 1e-8,
        np.abs(f["reduced/gravity"][:] - G).max() < 1e-12 * np.abs(G).max(), "rigid" not in f, f.attrs["kind"]]
print(*out)
PY
)
set -- $res
check "K symmetric, rigid translations in its kernel" [ "$1 $2" = "True True" ]
check "M and lumped M: total mass rho V; lumped M diagonal" [ "$3 $4 $5" = "True True True" ]
check "element K_e and M_e assemble to /fem/K and /fem/M" [ "$6 $7" = "True True" ]
check "element gradients sum to 0, volumes those of the tets" [ "$8 $9" = "True True" ]
shift 9
check "reduced mass = U^T M U = I for moddesc's basis" [ "$1 $2" = "True True" ]
check "reduced gravity of the written M and U = a direct U^T M g" [ "$3" = True ]
check "a supported model has no /rigid; kind fem" [ "$4 $5" = "True fem" ]

"$BIN/femdata" -q $D/cube.msh -E 1e6 --nu 0.3 --rho 800 -o "$WORK/c.h5"
check "free-flying unit cube: mass rho, centre (1/2, 1/2, 1/2), inertia rho/6 I" [ "$(h5 "$WORK/c.h5" "abs(f['rigid'].attrs['mass'] - 800) < 1e-9, np.abs(f['rigid/center'][:] - 0.5).max() < 1e-12, np.abs(f['rigid/inertia'][:] - 800 / 6 * np.eye(3)).max() < 1e-9")" = "True True True" ]
"$BIN/voxelize" -q $D/icosahedron.obj -R 4 -o "$WORK/vox.h5"
"$BIN/femdata" -q "$WORK/vox.h5" -E 1e6 --nu 0.3 --rho 800 -o "$WORK/v.h5"
check "hexes: 24 x 24 element matrices, element masses summing to rho V" [ "$(h5 "$WORK/v.h5" "f['fem/elements/K'].shape[1:], abs(f['fem/elements/M'][:, 0::3, 0::3].sum() - 800 * f['fem/elements/volume'][:].sum()) < 1e-9 * f['rigid'].attrs['mass']")" = "(24, 24) True" ]

# the rigid-body sums: the same bits on 1 and 2 threads (sums by blocks of
# elements in block order; an OpenMP reduction added them as threads finished)
"$BIN/voxelize" -q $D/icosahedron.obj -R 24 -o "$WORK/vox24.h5"
for t in 1 2; do OMP_NUM_THREADS=$t "$BIN/femdata" -q "$WORK/vox24.h5" -E 1e6 --nu 0.3 --rho 800 -o "$WORK/r$t.h5"; done
check "rigid-body data: the same bits on 1 and 2 threads ($(h5 "$WORK/r1.h5" "len(f['mesh/hexes'])") hexes)" [ "$(h5 "$WORK/r1.h5" "all(np.array_equal(f[k][()], h5py.File('$WORK/r2.h5')[k][()]) for k in ('rigid/center', 'rigid/inertia')) and f['rigid'].attrs['mass'] == h5py.File('$WORK/r2.h5')['rigid'].attrs['mass']")" = True ]

expect_fail "no density" 2 "no density: give --rho" femdata $D/cube.msh -E 1e6 --nu 0.3 -o "$O"
expect_fail "--free with a support" 2 "exclude each other" femdata $D/cube.msh --free --fixed-region bottom -E 1e6 --nu 0.3 --rho 1 -o "$O"
expect_fail "a surface" 3 "not a volumetric mesh" femdata $D/icosahedron.obj -E 1e6 --nu 0.3 --rho 1 -o "$O"
expect_fail "a basis of another mesh" 3 "basis/U" femdata $D/cube.msh --basis "$WORK/modes.h5" -E 1e6 --nu 0.3 --rho 1 -o "$O"

finish
