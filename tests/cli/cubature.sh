#!/bin/sh
# cubature: the file and its sidecar, both NNLS methods to tau, every law,
# rtcheck on the file (held-out error against U^T f(Uq)), training on a
# fullsim trajectory and the reduced run along it beside the polynomials'
# (e_max), and the bad inputs of issue 42 (exit 3).  The numerics (every
# element weighted 1 equals U^T f(Uq); NNLS against brute force; StVK
# against polycoef within tau) are in tests/unit/test_cubature.c.
. "$(dirname "$0")/common"
D=data
BEAM="$D/beam-h0.05.msh --fixed-region fixed -E 1e6 --nu 0.3"
"$BIN/moddesc" -q $BEAM --rho 1000 -k 4 -r 8 -o "$WORK/m.h5"

"$BIN/cubature" "$WORK/m.h5" -o "$WORK/c.h5" >"$WORK/summary"
cat "$WORK/summary" | sed 's/^/    /'
check "summary: elements kept, training and held-out errors" grep -q "greedy: [0-9]* of [0-9]* elements.*training error .*held-out error" "$WORK/summary"
check "kind cubature; elements ascending and in range; weights > 0; the basis copied" [ "$(h5 "$WORK/c.h5" "f.attrs['kind'], bool((np.diff(f['cubature/elements'][:]) > 0).all() and f['cubature/elements'][-1] < len(f['mesh/tets']) and (f['cubature/weights'][:] > 0).all()), bool(np.array_equal(f['basis/U'][:], __import__('h5py').File('$WORK/m.h5')['basis/U'][:]))")" = "cubature True True" ]
check "attributes: law stvk, training error <= tau = 1e-2, 10 held-out poses of r = 8" [ "$(h5 "$WORK/c.h5" "f['cubature'].attrs['law'], bool(f['cubature'].attrs['training_error'] <= 1e-2), f['cubature/heldout_q'].shape, f['cubature'].attrs['training']")" = "stvk True (10, 8) sampled" ]
check "cell weights: the chosen elements' weights, 0 elsewhere" [ "$(h5 "$WORK/c.h5" "bool(np.array_equal(np.nonzero(f['cubature/cell_weight'][:])[0], f['cubature/elements'][:]) and np.array_equal(f['cubature/cell_weight'][:][f['cubature/elements'][:]], f['cubature/weights'][:]))")" = True ]
check "basis_sha256 is the SHA-256 of /basis/U" [ "$(h5 "$WORK/c.h5" "f['cubature'].attrs['basis_sha256'] == __import__('hashlib').sha256(f['basis/U'][()].tobytes()).hexdigest()")" = True ]
check "XDMF: the chosen elements as a cell field, every item a dataset of the file" sh -c "grep -q 'cubature weight' '$WORK/c.xmf' && /usr/bin/python3 tests/cli/xdmfcheck.py '$WORK/c.xmf' >/dev/null"
"$BIN/rtcheck" "$WORK/c.h5" --steps 200 >"$WORK/rt.txt"
check "rtcheck: the held-out error against U^T f(Uq) within 2 tau, as the file states it; tangent; Newmark" [ $? -eq 0 ]
sed 's/^/    /' "$WORK/rt.txt"
check "rtcheck reports R + K time and GFlop/s" sh -c "grep -q 'R + K evaluation' '$WORK/rt.txt' && grep -q 'R + K GFlop/s' '$WORK/rt.txt'"

"$BIN/cubature" "$WORK/m.h5" --method lawson-hanson -o "$WORK/lh.h5" | sed 's/^/    /'
check "Lawson-Hanson reaches tau too" [ "$(h5 "$WORK/lh.h5" "f['cubature'].attrs['method'], bool(f['cubature'].attrs['training_error'] <= 1e-2)")" = "lawson-hanson True" ]
for law in linear corotated neohookean; do
    "$BIN/cubature" -q "$WORK/m.h5" --law $law -o "$WORK/$law.h5"
    check "law $law: fitted to tau, and rtcheck passes" sh -c "'$BIN/rtcheck' -q '$WORK/$law.h5' --steps 100"
done
check "a tighter tau keeps more elements" [ "$("$BIN/cubature" -q "$WORK/m.h5" --tau 1e-3 -o "$WORK/tight.h5"; h5 "$WORK/tight.h5" "len(f['cubature/elements']) > len(__import__('h5py').File('$WORK/c.h5')['cubature/elements'])")" = True ]

# --- trained on a fullsim run; the reduced model along it (rtcheck --reference) ---------------
printf 'force region tip 0 0 -6\n' >"$WORK/tip.loads"
"$BIN/fullsim" -q $BEAM --rho 1000 "$WORK/tip.loads" --dt 0.02 --steps 20 --alpha 1 -o "$WORK/pull.h5"
"$BIN/polycoef" -q "$WORK/m.h5" -o "$WORK/cubic.h5"
"$BIN/cubature" "$WORK/m.h5" --trajectory "$WORK/pull.h5" --held-out 4 -o "$WORK/ct.h5" | sed 's/^/    /'
check "trained on the trajectory: 20 moving states (the rest state dropped), 16 to train, 4 held out" [ "$(h5 "$WORK/ct.h5" "f['cubature'].attrs['training'], int(f['cubature'].attrs['poses']), len(f['cubature/heldout_q'])")" = "trajectory 16 4" ]
"$BIN/rtcheck" --reference "$WORK/pull.h5" "$WORK/cubic.h5" --reference-tol 1 --json >"$WORK/rp.json"
"$BIN/rtcheck" --reference "$WORK/pull.h5" "$WORK/ct.h5" --reference-tol 1 --json >"$WORK/rc.json"
"$BIN/rtcheck" --reference "$WORK/pull.h5" "$WORK/c.h5" --reference-tol 1 --json >"$WORK/rs.json"
emax() { /usr/bin/python3 -c "import json, sys; r = json.load(open(sys.argv[1])); print([c for c in r['checks'] if c['name'].startswith('e_max')][0]['value'])" "$1"; }
ep=$(emax "$WORK/rp.json") ec=$(emax "$WORK/rc.json") es=$(emax "$WORK/rs.json")
echo "    e_max: polynomials $ep, cubature (trajectory) $ec, cubature (sampled) $es"
check "reduced dynamics on the cubature trained on the run follows fullsim: e_max within 0.01 of the exact polynomials'" /usr/bin/python3 -c "raise SystemExit(0 if abs($ec - $ep) <= 0.01 else 1)"
# Sampled poses weigh every basis vector alike, the run lives near its soft modes: looser (measured 0.035-0.11 over tau 1e-2 .. 1e-3, amplitude 0.05 .. 0.2)
check "reduced dynamics on the cubature trained on sampled poses: e_max below 0.15" /usr/bin/python3 -c "raise SystemExit(0 if 0 < $es <= 0.15 else 1)"

# neo-Hookean through a fullsim-recorded motion that bends the beam by over half its length
printf 'force region tip 0 0 -20\n' >"$WORK/big.loads"
"$BIN/fullsim" -q $BEAM --rho 1000 --law neohookean "$WORK/big.loads" --dt 0.02 --steps 40 --alpha 1 -o "$WORK/nh.h5"
"$BIN/cubature" -q "$WORK/m.h5" --law neohookean --trajectory "$WORK/nh.h5" --held-out 6 -o "$WORK/nhc.h5"
"$BIN/rtcheck" --reference "$WORK/nh.h5" "$WORK/nhc.h5" --reference-tol 1 --json >"$WORK/rn.json"
en=$(emax "$WORK/rn.json")
echo "    neo-Hookean: tip moved $(h5 "$WORK/nh.h5" "round(float(np.abs(f['trajectory/u'][()]).max()), 3)") m; e_max $en"
check "neo-Hookean: the cubature model runs through the fullsim motion (60% bend), e_max <= 0.1" /usr/bin/python3 -c "raise SystemExit(0 if 0 < $en <= 0.1 and $(h5 "$WORK/nh.h5" "float(np.abs(f['trajectory/u'][()]).max())") > 0.5 else 1)"

# --- bad input: one line, exit 3 -------------------------------------------------------------
O="$WORK/out/c.h5"
printf '0 0 0 0 0 0 0 0.01\n0.01 0 0 0 0 0 0\n' >"$WORK/short.txt"
expect_fail "poses that do not match the basis size" 3 "short.txt:2: a pose of fewer numbers, the basis has r = 8" cubature "$WORK/m.h5" --poses-file "$WORK/short.txt" -o "$O"
expect_fail "tau = 0" 3 "option --tau: 0: the tolerance must be > 0" cubature "$WORK/m.h5" --tau 0 -o "$O"
expect_fail "tau < 0" 3 "option --tau: -0.1: the tolerance must be > 0" cubature "$WORK/m.h5" --tau -0.1 -o "$O"
/usr/bin/python3 -c "
import h5py, shutil
shutil.copy('$WORK/pull.h5', '$WORK/moved.h5')
with h5py.File('$WORK/moved.h5', 'a') as f:
    f['mesh/vertices'][0, 0] += 1e-3
"
expect_fail "a basis whose mesh differs from the training data's" 3 "the training data's mesh .* is not the basis's" cubature "$WORK/m.h5" --trajectory "$WORK/moved.h5" -o "$O"
expect_fail "tau out of reach with the elements allowed" 1 "above tau = 1e-06" cubature "$WORK/m.h5" --tau 1e-6 --max-elements 5 -o "$O"
expect_fail "rtcheck --reference: a cubature of another law" 3 "a cubature of law neohookean, the trajectory's law is stvk" rtcheck --reference "$WORK/pull.h5" "$WORK/neohookean.h5"
/usr/bin/python3 -c "
import h5py, shutil
shutil.copy('$WORK/c.h5', '$WORK/other.h5')
with h5py.File('$WORK/other.h5', 'a') as f:
    f['basis/U'][0, 3] += 1
"
expect_fail "rtcheck: a basis that is not the one fitted" 3 "not the basis the cubature was fitted to" rtcheck "$WORK/other.h5"
finish
