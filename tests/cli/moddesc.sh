#!/bin/sh
# moddesc: an independent assembly of K and M (numpy) checks the modes and the
# basis in the file; the cantilever's frequencies converge to Euler-Bernoulli;
# free-flying models; errors.
. "$(dirname "$0")/common"
D=data
C="/usr/bin/python3 tests/cli/modescheck.py"
MD="$BIN/moddesc"

"$MD" $D/models/beam3/beam3_tet.veg --fixed-ids $D/models/beam3/beam3.bou -k 10 -r 20 -o "$WORK/m.h5" >"$WORK/summary"
check "summary gives frequencies in Hz and stage times" sh -c "grep -q 'frequencies (Hz)' '$WORK/summary' && grep -q 'derivatives .* s (right-hand sides .*), basis .* s' '$WORK/summary'"
check "kind modes; eigenvalues [k], U [k][3nv], pairs [55][2], Phi [55][3nv], basis [r][3nv], sigma [65]" [ "$(h5 "$WORK/m.h5" "f.attrs['kind'], f['modes/eigenvalues'].shape, f['modes/U'].shape, f['derivatives/pairs'].shape, f['derivatives/Phi'].shape, f['basis/U'].shape, f['basis/sigma'].shape")" = "modes (10,) (10, 624) (55, 2) (55, 624) (20, 624) (65,)" ]
check "pairs (i, j), i <= j, lexicographic" [ "$(h5 "$WORK/m.h5" "f['derivatives/pairs'][:3].tolist(), f['derivatives/pairs'][-1].tolist()")" = "[[0, 0], [0, 1], [0, 2]] [9, 9]" ]
check "eigen residuals < 1e-8 against an independent K, M" $C residual "$WORK/m.h5" 1e-8
check "modes and PCA basis M-orthonormal to 1e-10" $C orthonormal "$WORK/m.h5" 1e-10
check "singular values descending" [ "$(h5 "$WORK/m.h5" "bool(np.all(np.diff(f['basis/sigma'][:]) <= 0))")" = True ]
for b in gram-schmidt linear; do
    "$MD" -q $D/models/beam3/beam3_tet.veg --fixed-ids $D/models/beam3/beam3.bou -k 10 -r 10 --basis $b -o "$WORK/mb.h5"
    check "--basis $b: M-orthonormal" $C orthonormal "$WORK/mb.h5" 1e-10
done
"$MD" -q $D/models/beam3/beam3_tet.veg --fixed-ids $D/models/beam3/beam3.bou -k 6 -r 6 --mass lumped -o "$WORK/ml.h5"
check "--mass lumped: residuals against the lumped M" $C residual "$WORK/ml.h5" 1e-8

# Cantilever 1 x 0.1 x 0.1, E = rho = 1: f1 = 1.8751^2 / (2 pi) sqrt(E I / (rho A)) / L^2.
ratios=""
for h in 0.05 0.025 0.0125; do
    "$MD" -q $D/beam-h$h.msh --fixed-region fixed -E 1 --nu 0.3 --rho 1 -k 2 -r 2 -o "$WORK/bm.h5"
    ratios="$ratios $($C freqs "$WORK/bm.h5" | awk '{printf "%.5f", $1 / (1.8751^2 / (2 * 3.14159265358979) * sqrt(0.1^4 / 12 / 0.01))}')"
done
echo "    first bending frequency / Euler-Bernoulli:$ratios"
check "cantilever: first frequency converges to Euler-Bernoulli (within 5% on the finest)" /usr/bin/python3 -c "
r = [float(s) for s in '$ratios'.split()]
raise SystemExit(0 if r[0] > r[1] > r[2] and abs(r[2] - 1) < 0.05 else 1)"

"$MD" $D/models/beam3/beam3_tet.veg --free -k 6 -r 8 -o "$WORK/free.h5" >"$WORK/summary"
check "--free: six rigid modes excluded" grep -q "free-flying, 6 rigid modes excluded" "$WORK/summary"
check "--free: modes and basis M-orthonormal" $C orthonormal "$WORK/free.h5" 1e-10
check "--free: residuals" $C residual "$WORK/free.h5" 1e-8
check "--free: modes M-orthogonal to translations and rotations" /usr/bin/python3 -c "
import sys; sys.path.insert(0, 'tests/cli')
import h5py, numpy as np, modescheck as mc
f = h5py.File('$WORK/free.h5'); K, M, _ = mc.assemble(f); x = f['mesh/vertices'][()]
R = [np.tile(np.eye(3)[a], len(x)) for a in range(3)] + [np.cross(np.eye(3)[a], x).ravel() for a in range(3)]
U = f['modes/U'][()]
e = max(abs(r @ M @ u) / np.sqrt((r @ M @ r) * (u @ M @ u)) for r in R for u in U)
print('    rigid-mode overlap', e); raise SystemExit(0 if e < 1e-8 else 1)"

# --- bad input ---------------------------------------------------------------------
O="$WORK/out/m.h5"
printf '*VERTICES\n5 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 1 1 1\n*ELEMENTS\nTETS\n2 4 0\n1 1 2 3 4\n2 2 3 4 5\n' >"$WORK/two.veg"
printf '1\n2\n3\n' >"$WORK/three.ids"
printf '1\n2\n' >"$WORK/two.ids"
expect_fail "k not below the unknowns" 2 "10 modes asked, the model has 6 unknowns" moddesc "$WORK/two.veg" --fixed-ids "$WORK/three.ids" -E 1 --nu 0.3 --rho 1 -k 10 -r 1 -o "$O"
expect_fail "r above modes and derivatives" 2 "-r 10 exceeds the 5 modes and modal derivatives" moddesc "$WORK/two.veg" --fixed-ids "$WORK/three.ids" -E 1 --nu 0.3 --rho 1 -k 2 -r 10 -o "$O"
printf '*VERTICES\n8 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 5 0 0\n6 6 0 0\n7 5 1 0\n8 5 0 1\n*ELEMENTS\nTETS\n2 4 0\n1 1 2 3 4\n2 5 6 7 8\n' >"$WORK/pieces.veg"
expect_fail "--free on a mesh in two pieces" 1 "held at six DOFs .a free-flying mesh in pieces.. is not positive definite" moddesc "$WORK/pieces.veg" --free -E 1 --nu 0.3 --rho 1 -k 2 -r 2 -o "$O"
expect_fail "no fixed vertex without --free" 2 "no fixed vertex" moddesc $D/models/beam3/beam3_tet.veg -k 4 -r 4 -o "$O"
expect_fail "degenerate constraint set" 3 "rigid motion" moddesc "$WORK/two.veg" --fixed-ids "$WORK/two.ids" -E 1 --nu 0.3 --rho 1 -k 1 -r 1 -o "$O"
expect_fail "nu = 0.5" 3 "Poisson's ratio" moddesc $D/cube.msh --fixed-region bottom -E 1 --nu 0.5 --rho 1 -o "$O"
expect_fail "no density" 2 "no density" moddesc $D/cube.msh --fixed-region bottom -E 1 --nu 0.3 -o "$O"
expect_fail "--free with a support" 2 "exclude each other" moddesc $D/cube.msh --free --fixed-region bottom -E 1 --nu 0.3 --rho 1 -o "$O"
finish
