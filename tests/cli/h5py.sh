#!/bin/sh
# The h5py section of elastoprep(5) (issue 19 item 4), run as printed: the
# code between ".ft CR" and ".ft" of READING WITH H5PY, unescaped from groff,
# on files of every kind, against independent figures: a wavelet column
# reconstructed by the page's synthesis equals the dense column to the
# file's max_error; u = U q of a unit q is that basis row; a mode's
# frequency is sqrt(eigenvalue)/2pi; R(q) from the page's sum equals R(q)
# from the runtime (rtcheck's force check covers the C side) at q and is odd
# in its linear part; W u of an embedding is its render basis.
. "$(dirname "$0")/common"
D=data
PY=/usr/bin/python3
sed -n '/^\.SH READING WITH H5PY/,/^\.SH /p' man/man5/elastoprep.5 | sed -n '/^\.ft CR/,/^\.ft$/p' |
    sed '1d;$d' | sed 's/\\-/-/g; s/\\e/\\/g' >"$WORK/snippet.py"
check "the page's snippet extracted" [ "$(grep -c '^def ' "$WORK/snippet.py")" = 7 ]

"$BIN/loopsub" -q $D/icosahedron.obj -l 2 --fixed-box -2,-2,-2,2,2,-0.6 --no-xdmf -o "$WORK/s2.h5"
"$BIN/bemsolve" -q "$WORK/s2.h5" -E 1e5 --nu 0.3 --no-xdmf -o "$WORK/gf.h5"
"$BIN/gfcompress" -q "$WORK/gf.h5" --eps 0.02 --no-xdmf -o "$WORK/w.h5"
"$BIN/gfcompress" -q "$WORK/gf.h5" --eps 0.02 --wavelet butterfly --unlifted --no-xdmf -o "$WORK/wl.h5"
"$BIN/moddesc" -q $D/models/beam3/beam3_tet.veg --fixed-ids $D/models/beam3/beam3.bou -E 1e7 --nu 0.4 --rho 1000 \
    -k 4 -r 5 --no-xdmf -o "$WORK/m.h5"
"$BIN/polycoef" -q "$WORK/m.h5" --no-xdmf -o "$WORK/c.h5"
"$BIN/loopsub" -q $D/models/beam3/beam3_tet.veg -l 1 -o "$WORK/render.obj"
"$BIN/embed" -q "$WORK/m.h5" "$WORK/render.obj" --modes "$WORK/m.h5" --no-xdmf -o "$WORK/e.h5"

cat >"$WORK/run.py" <<'PYEOF'
import sys
import numpy as np
exec(open(sys.argv[1]).read())
W = sys.argv[2]
ok = lambda name, cond: print(("ok - " if cond else "not ok - ") + name)
kind, V, cells = mesh(W + "/m.h5")
ok("mesh: kind and tets", kind == "modes" and cells.shape[1] == 4 and V.shape[1] == 3)
rows, u, fixed = gf_column(W + "/gf.h5", 3, 2)
ok("gf column: one vector per row vertex", u.shape == (len(rows), 3) and fixed.any())
for w in ("w.h5", "wl.h5"):
    import h5py
    f = h5py.File(W + "/" + w, "r")
    worst = 0
    for c in (0, 5, 40):
        for a in range(3):
            rw, uw = gfw_column(W + "/" + w, c, a)
            rd, ud, _ = gf_column(W + "/gf.h5", c, a)
            worst = max(worst, np.abs(uw - ud).max())
    bound = f["gf"].attrs["max_error"] * np.abs(h5py.File(W + "/gf.h5", "r")["gf/xi"][()]).max()
    ok("%s: wavelet columns equal the dense ones to the file's max_error (%.2e <= %.2e)" % (w, worst, bound),
       np.array_equal(rw, rd) and worst <= 1.0001 * bound + 1e-300)
U = h5py.File(W + "/m.h5", "r")["basis/U"][()]
q = np.zeros(len(U)); q[2] = 1
ok("u = U q of a unit q is that basis row", np.array_equal(displacement(W + "/m.h5", q).ravel(), U[2]))
q = np.array([0.3, -0.2, 0.1, 0.05, -0.4])
ok("u = U q is the sum of the rows", np.allclose(displacement(W + "/c.h5", q).ravel(), sum(q[i] * U[i] for i in range(5))))
E = h5py.File(W + "/e.h5", "r")["embedding/Ubar"][()]
ur = render_displacement(W + "/e.h5", U[1])
ok("embedding: W u of basis vector 2 = /embedding/Ubar row 2", np.allclose(ur.ravel(), E[1], rtol=0, atol=1e-12 * np.abs(E[1]).max()))
phi, hz = mode(W + "/m.h5", 0)
lam = h5py.File(W + "/m.h5", "r")["modes/eigenvalues"][0]
ok("mode 1: a vector per vertex, sqrt(lambda)/2pi Hz", phi.shape == V.shape and abs(hz * 2 * np.pi - np.sqrt(lam)) < 1e-9 * hz)
P = h5py.File(W + "/c.h5", "r")["cubic/P"][()]
# R(t q) = t a + t^2 b + t^3 c: the parts from t = 1, -1, 2, and a = P q.
s = 1e-3
Rp, Rm, R2 = (cubic_force(W + "/c.h5", t * s * q) for t in (1, -1, 2))
b = (Rp + Rm) / 2
c = ((R2 - 4 * b) / 2 - (Rp - Rm) / 2) / 3
a = (Rp - Rm) / 2 - c
ok("R(q): the linear part is P q", np.allclose(a, s * q @ P, rtol=1e-6, atol=1e-9 * np.abs(s * q @ P).max()))
ok("R(q): quadratic and cubic parts present", np.abs(b).max() > 0 and np.abs(c).max() > 0)
PYEOF
$PY "$WORK/run.py" "$WORK/snippet.py" "$WORK" >"$WORK/out" 2>&1
cat "$WORK/out"
passed=$((passed + $(grep -c '^ok' "$WORK/out")))
failed=$((failed + $(grep -c '^not ok' "$WORK/out")))
check "the snippet ran without an error" [ "$(grep -vc '^ok\|^not ok' "$WORK/out")" = 0 ]
finish
