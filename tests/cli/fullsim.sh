#!/bin/sh
# fullsim: statics against CalculiX, the small-load limit, energy and
# frequency of Newmark dynamics, the trajectory file and its sidecar, and
# every error status (issue 41's validation list).
. "$(dirname "$0")/common"
D=data
C="/usr/bin/python3 tests/cli/fullcheck.py"
F="$BIN/fullsim"
BEAM="$D/beam-h0.05.msh --fixed-region fixed -E 1e6 --nu 0.3"

# --- statics: CalculiX *STATIC, NLGEOM on C3D4 is a St. Venant-Kirchhoff solid ---------
printf '# a tip load that bends the 1 m beam visibly\nforce region tip 0 0 -6\n' >"$WORK/tip.loads"
"$F" $BEAM "$WORK/tip.loads" --static --tol 1e-10 -o "$WORK/static.h5" >"$WORK/summary"
check "static: summary names the Newton iterations" grep -q "Newton iterations" "$WORK/summary"
bend=$($C bend "$WORK/static.h5")
echo "    tip displacement / model size: $bend"
check "static: the load bends the beam visibly (over 5% of its size)" /usr/bin/python3 -c "raise SystemExit(0 if $bend > 0.05 else 1)"
check "static: equal to CalculiX NLGEOM to 1e-5" $C ccx "$WORK/static.h5" 1e-5
check "static: kind trajectory, complete, 11 states (10 load steps)" [ "$(h5 "$WORK/static.h5" "f.attrs['kind'], int(f['trajectory'].attrs['complete']), f['trajectory/u'].shape[0], f['trajectory'].attrs['mode']")" = "trajectory 1 11 static" ]
check "static: Newton history with residuals falling below the tolerance" [ "$(h5 "$WORK/static.h5" "bool(f['newton/history'].shape[1] == 5 and f['newton/history'][:, 2].max() <= 1 and len(f['newton/history']) == int(f['trajectory/iterations'][:].sum()))")" = True ]

# --- small loads: StVK equals the linear solve K u = f -------------------------------------
printf 'force region tip 0 0 -1e-8\n' >"$WORK/small.loads"
"$F" -q $BEAM "$WORK/small.loads" --static --load-steps 1 -o "$WORK/small.h5"
"$F" -q $BEAM "$WORK/small.loads" --static --load-steps 1 --law linear -o "$WORK/small-lin.h5"
check "small load: StVK equals the linear solve to 1e-8" $C same "$WORK/small.h5" "$WORK/small-lin.h5" 1e-8
check "linear law: one Newton iteration" [ "$(h5 "$WORK/small-lin.h5" "int(f['trajectory/iterations'][-1])")" = 1 ]
printf '3 2e6 0.3 1000\n' >"$WORK/stiff.txt"
"$F" -q $D/beam-h0.05.msh --fixed-region fixed -m "$WORK/stiff.txt" "$WORK/small.loads" --static --load-steps 1 --law linear -o "$WORK/stiff.h5"
check "per-element material (-m): E doubled halves the linear displacement" $C same "$WORK/stiff.h5" "$WORK/small-lin.h5" 1e-10 0.5

# --- dynamics: modes of the same model (moddesc), energy, frequency ---------------------
"$BIN/moddesc" -q $BEAM --rho 1000 -k 3 -r 3 -o "$WORK/modes.h5"
printf 'displacement mode modes.h5 1 1e-2\nvelocity mode modes.h5 3 1e-1\n' >"$WORK/lin.loads"
"$F" $BEAM --rho 1000 --law linear "$WORK/lin.loads" --dt 0.01 --steps 100 -o "$WORK/lin.h5" >"$WORK/lin.txt" 2>/dev/null
check "linear law: 100 Newton iterations on one factorization (its tangent does not change)" grep -q "100 Newton iterations (1.00 per step), 1 factorizations (0 shifted)" "$WORK/lin.txt"
check "undamped linear run conserves energy to 1e-10 per step" $C energy "$WORK/lin.h5" 1e-10
check "initial energies: 1/2 lambda_1 s^2 elastic, 1/2 s^2 kinetic" [ "$(h5 "$WORK/lin.h5" "bool(abs(f['trajectory/energy'][0, 1] / (0.5e-4 * __import__('h5py').File('$WORK/modes.h5')['modes/eigenvalues'][0]) - 1) < 1e-10 and abs(f['trajectory/energy'][0, 0] / 0.005 - 1) < 1e-10)")" = True ]
"$F" -q $BEAM --rho 1000 --law linear --alpha 2 --beta 1e-3 "$WORK/lin.loads" --dt 0.01 --steps 100 -k 10 -o "$WORK/damped.h5"
check "Rayleigh damping: kinetic + elastic energy falls, the balance with dissipation holds to 1e-10" [ "$(h5 "$WORK/damped.h5" "(lambda e: bool(e[-1, 0] + e[-1, 1] < 0.5 * (e[0, 0] + e[0, 1]) and e[-1, 3] > 0 and abs(e[-1, 4] - e[0, 4]) < 1e-10 * e[0, 4]))(f['trajectory/energy'][()])")" = True ]
check "-k 10: states 0, 10, ..., 100" [ "$(h5 "$WORK/damped.h5" "f['trajectory/step'][:].tolist() == list(range(0, 101, 10))")" = True ]
printf 'displacement mode modes.h5 1 1e-4\n' >"$WORK/mode1.loads"
period=$(h5 "$WORK/modes.h5" "2 * np.pi / np.sqrt(f['modes/eigenvalues'][0])")
"$F" -q $BEAM --rho 1000 "$WORK/mode1.loads" --dt "$(/usr/bin/python3 -c "print($period / 300)")" --steps 600 -o "$WORK/vib.h5"
check "StVK free vibration from mode 1 oscillates at sqrt(lambda_1) to 1e-4" $C frequency "$WORK/vib.h5" "$WORK/modes.h5" 1 1e-4

# --- hexes: the same body of voxels ---------------------------------------------------------
printf '1\n4\n7\n10\n' >"$WORK/left.ids"
printf 'force box 1.9 -1 -1 3 2 2 0 0 -1e-5\n' >"$WORK/hexend.loads"
"$F" -q $D/two-voxels.veg --fixed-ids "$WORK/left.ids" "$WORK/hexend.loads" --static --load-steps 1 -o "$WORK/hex.h5"
"$F" -q $D/two-voxels.veg --fixed-ids "$WORK/left.ids" "$WORK/hexend.loads" --static --load-steps 1 --law linear -o "$WORK/hex-lin.h5"
check "hexes: a small load's StVK solve equals the linear one to 1e-8" $C same "$WORK/hex.h5" "$WORK/hex-lin.h5" 1e-8
printf 'force box 1.9 -1 -1 3 2 2 0 0 -1e3 impulse 0 0.01\n' >"$WORK/hexkick.loads"
"$F" -q $D/two-voxels.veg --fixed-ids "$WORK/left.ids" "$WORK/hexkick.loads" --law linear --dt 0.002 --steps 50 -o "$WORK/hexdyn.h5"
check "hexes: an impulse's work equals the energy after it to 1e-10" [ "$(h5 "$WORK/hexdyn.h5" "(lambda e: bool(np.abs(np.diff(e[:, 4])).max() < 1e-10 * np.abs(e[:, :3]).max() and e[-1, 2] > 0))(f['trajectory/energy'][()])")" = True ]
check "XDMF: a temporal collection of 51 states" [ "$(grep -c '<Time Value' "$WORK/hexdyn.xmf")" = 51 ]
check "XDMF: every item names a dataset of the file" sh -c '/usr/bin/python3 tests/cli/xdmfcheck.py "$1" >/dev/null' - "$WORK/hexdyn.xmf"

# --- Newton that does not converge: exit 1, the states so far kept, marked incomplete ---
printf 'force region tip 0 0 -2000\n' >"$WORK/huge.loads"
"$F" -q $BEAM "$WORK/huge.loads" --static --load-steps 4 --max-iter 3 -o "$WORK/fail.h5" 2>"$WORK/stderr"
check "no convergence: exit 1" [ $? -eq 1 ]
check "no convergence: one line naming the step and the last residual" [ "$(wc -l <"$WORK/stderr")" -eq 1 ] && grep -Eq "^fullsim: step 1: Newton did not converge in 3 iterations \(residual [0-9.e+-]+, relative" "$WORK/stderr"
check "no convergence: the file holds the initial state, complete 0 and the message" [ "$(h5 "$WORK/fail.h5" "f['trajectory/u'].shape[0], int(f['trajectory'].attrs['complete']), 'did not converge' in f['trajectory'].attrs['message']")" = "1 0 True" ]

# --- bad input: one line, exit 3 (input) or 2 (usage), nothing written -------------------
printf 'force vertex 100000 0 0 1\n' >"$WORK/missing.loads"
expect_fail "a load on a vertex that does not exist" 3 "missing.loads:1: vertex 100000 does not exist" fullsim $BEAM "$WORK/missing.loads" --static -o "$WORK/out/x.h5"
printf 'force box 5 5 5 6 6 6 0 0 1\n' >"$WORK/empty.loads"
expect_fail "a box with no vertex" 3 "empty.loads:1: .*no loaded vertex" fullsim $BEAM "$WORK/empty.loads" --static -o "$WORK/out/x.h5"
printf 'force region tip 0 0 1 ramp 0\n' >"$WORK/ramp.loads"
expect_fail "a ramp of no time" 3 "ramp.loads:1: ramp time must be > 0" fullsim $BEAM "$WORK/ramp.loads" --static -o "$WORK/out/x.h5"
printf 'torque region tip 0 0 1\n' >"$WORK/word.loads"
expect_fail "an unknown item" 3 "word.loads:1: expected force, gravity" fullsim $BEAM "$WORK/word.loads" --static -o "$WORK/out/x.h5"
printf 'displacement mode modes.h5 9 1\n' >"$WORK/nomode.loads"
expect_fail "a mode the file does not hold" 3 "mode 9 asked, the file holds 3" fullsim $BEAM --rho 1000 "$WORK/nomode.loads" --dt 0.01 -o "$WORK/out/x.h5"
expect_fail "dt = 0" 2 "option --dt: expected a time step > 0" fullsim $BEAM --rho 1000 "$WORK/tip.loads" --dt 0 -o "$WORK/out/x.h5"
expect_fail "dt < 0" 2 "option --dt: expected a time step > 0" fullsim $BEAM --rho 1000 "$WORK/tip.loads" --dt -1 -o "$WORK/out/x.h5"
expect_fail "dt NaN" 2 "option --dt" fullsim $BEAM --rho 1000 "$WORK/tip.loads" --dt nan -o "$WORK/out/x.h5"
expect_fail "neither --static nor --dt" 2 "option --dt: expected a time step > 0 \(or --static\)" fullsim $BEAM --rho 1000 "$WORK/tip.loads" -o "$WORK/out/x.h5"
expect_fail "no fixed vertices without --free" 2 "fixed" fullsim $D/beam-h0.05.msh -E 1e6 --nu 0.3 --rho 1000 "$WORK/tip.loads" --dt 0.01 -o "$WORK/out/x.h5"
expect_fail "--free with --static" 2 "--static needs a support" fullsim $D/beam-h0.05.msh -E 1e6 --nu 0.3 --free "$WORK/tip.loads" --static -o "$WORK/out/x.h5"
expect_fail "dynamics without a density" 2 "no density" fullsim $BEAM "$WORK/tip.loads" --dt 0.01 -o "$WORK/out/x.h5"
expect_fail "a load file that does not exist" 4 "nothing.loads" fullsim $BEAM "$WORK/nothing.loads" --static -o "$WORK/out/x.h5"

# --- rtcheck --reference: a reduced model run along the trajectory ---------------------
"$BIN/rtcheck" --reference "$WORK/lin.h5" "$WORK/modes.h5" >"$WORK/rt.txt"
check "rtcheck --reference: linear modes holding the motion reproduce it (e_max <= 1e-8)" sh -c "grep 'e_max' '$WORK/rt.txt' | awk '{ exit !(\$(NF-3) + 0 <= 1e-8) }'"
check "rtcheck --reference: reduced and full frequencies, and both times per step" sh -c "grep -q 'reduced frequency 1 (Hz)' '$WORK/rt.txt' && grep -q 'full frequency 1 (Hz)' '$WORK/rt.txt' && grep -q 'full step (fullsim)' '$WORK/rt.txt' && grep -q 'reduced step' '$WORK/rt.txt'"
"$BIN/polycoef" -q "$WORK/modes.h5" -o "$WORK/cubic.h5"
"$F" -q $BEAM --rho 1000 "$WORK/tip.loads" --dt 0.02 --steps 20 --alpha 1 -o "$WORK/pull.h5"
"$BIN/rtcheck" --reference "$WORK/pull.h5" "$WORK/cubic.h5" --reference-tol 1 --json >"$WORK/rt.json"
check "rtcheck --reference: a cubic model under the trajectory's loads, e_max reported" [ "$(/usr/bin/python3 -c "import json, sys; r = json.load(open(sys.argv[1])); e = [c for c in r['checks'] if c['name'].startswith('e_max')][0]['value']; print('    e_max', e, file=sys.stderr); print(0 < e < 1)" "$WORK/rt.json")" = True ]
cp "$WORK/pull.h5" "$WORK/longstep.h5"
/usr/bin/python3 -c "import h5py, sys; h5py.File(sys.argv[1], 'r+')['trajectory/step'][-1] = 2000000000" "$WORK/longstep.h5"
expect_fail "rtcheck --reference: a damaged step number (2e9 reduced steps to run) is refused" 3 "/trajectory/step: step 2000000000 at row 20 does not follow every 1 up to steps 20" rtcheck --reference "$WORK/longstep.h5" "$WORK/cubic.h5"
cp "$WORK/pull.h5" "$WORK/nanevery.h5"
/usr/bin/python3 -c "import h5py, sys; h5py.File(sys.argv[1], 'r+')['trajectory'].attrs['every'] = float('nan')" "$WORK/nanevery.h5"
expect_fail "rtcheck --reference: a NaN every is refused before it is converted (UBSan found the cast)" 3 "/trajectory: every nan and steps 20, expected whole numbers up to 1e9" rtcheck --reference "$WORK/nanevery.h5" "$WORK/cubic.h5"
expect_fail "rtcheck --reference: a model of another mesh" 3 "the model of another mesh" rtcheck --reference "$WORK/hexdyn.h5" "$WORK/modes.h5"

# --- moddesc --snapshots, --sketch: bases from full-space data -----------------------------
"$BIN/moddesc" -q $BEAM --rho 1000 -k 3 -r 2 --basis pod --snapshots "$WORK/lin.h5" -o "$WORK/pod.h5"
check "POD of a motion in span(psi_1, psi_3) recovers it: principal angles <= 1e-10" [ "$(h5 "$WORK/pod.h5" "(lambda B, P: (lambda Q1, Q2: bool(max(np.linalg.norm(Q2 - Q1 @ (Q1.T @ Q2), 2), np.linalg.norm(Q1 - Q2 @ (Q2.T @ Q1), 2)) <= 1e-10))(np.linalg.qr(B.T)[0], np.linalg.qr(P.T)[0]))(f['basis/U'][()], __import__('h5py').File('$WORK/modes.h5')['modes/U'][[0, 2]])")" = True ]
check "POD basis: mass-orthonormal (rtcheck's modes check)" sh -c "'$BIN/rtcheck' -q '$WORK/pod.h5'"
# r = 4: the fifth singular value of these solves lies at round-off (the
# Gram matrix of mass-PCA squares it below double precision), kept or not
# by the BLAS kernels' rounding; four hold the solution to 2.5e-10
"$BIN/moddesc" -q $BEAM --rho 1000 -k 3 -r 4 --basis pod --sketch "$WORK/tip.loads" -o "$WORK/sketch.h5"
check "sketch basis: holds the static solution of its load to 1e-6" [ "$(h5 "$WORK/sketch.h5" "(lambda Q, u: bool(np.linalg.norm(u - Q @ (Q.T @ u)) <= 1e-6 * np.linalg.norm(u)))(np.linalg.qr(f['basis/U'][()].T)[0], __import__('h5py').File('$WORK/static.h5')['trajectory/u'][-1])")" = True ]
"$BIN/moddesc" -q $BEAM --rho 1000 -k 3 -r 8 --snapshots "$WORK/lin.h5" --snapshots "$WORK/vib.h5" -o "$WORK/mixed.h5"
check "modes, derivatives and snapshots mixed: 8 mass-orthonormal vectors, 3 modes + 6 derivatives + 101 + 601 states" [ "$(h5 "$WORK/mixed.h5" "f['basis/U'].shape[0], f['basis/sigma'].shape[0]")" = "8 711" ] && "$BIN/rtcheck" -q "$WORK/mixed.h5"
expect_fail "--basis pod without snapshots" 2 "go with --basis pca or pod" moddesc $BEAM --rho 1000 -k 3 -r 2 --basis pod -o "$WORK/out/x.h5"
expect_fail "--snapshots of another mesh" 3 "a trajectory of another mesh" moddesc $BEAM --rho 1000 -k 3 -r 2 --snapshots "$WORK/hexdyn.h5" -o "$WORK/out/x.h5"

# --- free body: an impulse's momentum, exactly (trapezoidal rule, impulse edges on steps) --
printf 'force region tip 1 0 0 impulse 0 0.05\n' >"$WORK/push.loads"
"$F" -q $D/beam-h0.05.msh -E 1e6 --nu 0.3 --rho 1000 --free "$WORK/push.loads" --dt 0.01 --steps 20 -o "$WORK/free.h5"
check "--free: the momentum 1^T M v after 1 N for 0.05 s is 0.05 N s to 1e-10" [ "$(h5 "$WORK/free.h5" "(lambda x, t: bool(abs(sum(1000 * abs(np.linalg.det(x[e[1:]] - x[e[0]])) / 24 * f['trajectory/v'][-1].reshape(-1, 3)[e, 0].sum() for e in t) / 0.05 - 1) < 1e-10))(f['mesh/vertices'][()], f['mesh/tets'][()])")" = True ]
finish
