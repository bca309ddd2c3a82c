#!/bin/sh
# The Python package (issue 45 item 9): `pip install ./python` offline with
# Debian's setuptools; its readers against the C tools' output (moddesc's
# printed frequencies, the dense GF matrix against h5py) and its ctypes
# runtime against the C runtime: the Newmark trajectory of
# examples/newmark.c (built here on the library) step for step, and the
# contact solve against a direct numpy solve of 000 eqs. 2.35-2.37.
. "$(dirname "$0")/common"
PY=/usr/bin/python3
case $BIN in
*san*) echo "# skipped under SANITIZE: ctypes loads the optimized shared library"; finish; exit ;;
esac
SONAME=$(sed -n 's/^SONAME *:= *//p' Makefile)
LIB=$(ls build/opt/$SONAME.* 2>/dev/null | head -1)
check "the shared library is built" [ -n "$LIB" ]
check "the package looks for the Makefile's soname ($SONAME)" grep -q "^SONAME = \"$SONAME\"" python/elastoprep/runtime.py
export ELASTOPREP_LIB="$PWD/$LIB"

# pip, offline, no build isolation (Debian's python3-setuptools builds it)
cp -r python "$WORK/src" # pip builds in place: not in the source tree
$PY -m pip install --no-index --no-build-isolation --no-deps --quiet --target "$WORK/site" "$WORK/src" >"$WORK/pip.txt" 2>&1
check "pip install ./python --no-index (offline)" [ -f "$WORK/site/elastoprep/runtime.py" ] || cat "$WORK/pip.txt"
export PYTHONPATH="$WORK/site"

BEAM="data/models/beam3/beam3_tet.veg --fixed-ids data/models/beam3/beam3.bou -E 1e7 --nu 0.4 --rho 1000"
"$BIN/moddesc" $BEAM -k 6 -r 8 -o "$WORK/modes.h5" >"$WORK/moddesc.txt"
"$BIN/polycoef" -q "$WORK/modes.h5" -o "$WORK/cubic.h5"
"$BIN/femcondense" -q $BEAM --traction lumped -o "$WORK/gf.h5"

check "read(): modes frequencies are moddesc's printed ones (5 digits), U [6][nv][3], basis, material" [ "$($PY - "$WORK" <<'PY'
import sys, numpy as np, elastoprep as ep
w = sys.argv[1]
m = ep.read(w + "/modes.h5")
line = [l for l in open(w + "/moddesc.txt") if "frequencies (Hz)" in l][0]
printed = np.array([float(x) for x in line.split(":")[-1].split()])
print(m.kind, np.allclose(m.frequencies, printed, rtol=5e-5, atol=0), m.modes.shape == (6, len(m.vertices), 3),
      m.basis.shape[0], m.material == {"E": 1e7, "nu": 0.4, "rho": 1000.0}, len(m.fixed))
PY
)" = "modes True True 8 True 8" ]

check "read(): every kind's conveniences: gf columns, cubic P symmetric, u = U q" [ "$($PY - "$WORK" <<'PY'
import sys, h5py, numpy as np, elastoprep as ep
w = sys.argv[1]
g = ep.read(w + "/gf.h5")
rows, u, fixed = g.gf_column(3, 1)
h = h5py.File(w + "/gf.h5", "r")
c = ep.read(w + "/cubic.h5")
P, Q, S = c.cubic
q = np.arange(1, 9) * 1e-3
print(g.kind, np.array_equal(u.ravel(), h["gf/xi"][10]), fixed.sum() == 8, np.allclose(P, P.T),
      np.allclose(c.displacement(q), (q @ h5py.File(w + "/cubic.h5")["basis/U"][()]).reshape(-1, 3)))
try:
    g.frequencies
    print("no error")
except AttributeError:
    print("AttributeError")
PY
)" = "gf True True True True
AttributeError" ]

# the C example, built on the library in the tree, and the same run through ctypes
mkdir -p "$WORK/inc/elastoprep" && ln -s "$PWD/lib/runtime/elastoprep.h" "$WORK/inc/elastoprep/"
cc -O2 -I"$WORK/inc" $(for d in lib/*/; do printf -- '-I%s ' "${d%/}"; done) -I/usr/include/suitesparse \
    $(pkg-config --cflags hdf5) examples/newmark.c -o "$WORK/newmark" build/opt/libelastoprep.a -fopenmp \
    $(pkg-config --libs hdf5 openblas lapacke arpack) -lcholmod -lsuitesparseconfig -lnettle -lm >"$WORK/cc.txt" 2>&1
"$WORK/newmark" "$WORK/cubic.h5" 400 >"$WORK/newmark.txt" 2>&1
check "examples/newmark.c runs (the C reference)" grep -q '^ok' "$WORK/newmark.txt"
grep -q '^ok' "$WORK/newmark.txt" || head -5 "$WORK/cc.txt" "$WORK/newmark.txt"
check "Newmark (ctypes): q_1 at every printed step is the C example's (to its 6 digits), energy kept" [ "$($PY - "$WORK" <<'PY'
import sys, numpy as np, elastoprep as ep
w = sys.argv[1]
P = ep.read(w + "/cubic.h5").cubic[0]
dt = 2 * np.pi / np.sqrt(np.abs(P).sum(1).max()) / 20
ref = [l.split() for l in open(w + "/newmark.txt") if l.split() and l.split()[0].isdigit()]
n = ep.Newmark(w + "/cubic.h5", dt=dt, iterations=10, tol=1e-12)
q0 = np.zeros(n.r)
q0[0] = np.sqrt(2e-8 / P[0, 0])
n.start(q0)
E0, ok, k = n.energy(q0), True, 0
for step, q1, E in ref:
    while k < int(step):
        n.step()
        k += 1
    ok &= abs(n.q[0] - float(q1)) <= 1e-5 * abs(float(q1)) + 1e-12 * q0[0]
    ok &= abs(n.energy(n.q) + 0.5 * n.qd @ n.qd - float(E)) <= 1e-5 * float(E)
f = np.zeros(n.r)
f[0] = 1e-6 * P[0, 0]
q, its = n.static(f)
print(len(ref) == 8, ok, its > 0, n.displacement(q).shape == (n.nv, 3))
PY
)" = "True True True True" ]

check "Contact (ctypes): a 3-node set's solve is the direct solve of 000 eqs. 2.35-2.37 to 1e-10; add, remove" [ "$($PY - "$WORK" <<'PY'
import sys, numpy as np, elastoprep as ep
w = sys.argv[1]
g = ep.read(w + "/gf.h5")
xi = g.xi                                   # [3m][3n]: row 3c + a, response to column c's load
rows, cols = g["gf/row_vertex"], g["gf/col_vertex"]
n = len(rows)
col_of_row = {int(np.flatnonzero(rows == v)[0]): c for c, v in enumerate(cols)}
S = sorted(col_of_row)[:: len(col_of_row) // 3][:3]
X = np.zeros((3 * n, 3 * n))                # X[:, 3j + b]: the response to a load at row j
for j, c in col_of_row.items():
    X[:, 3 * j:3 * j + 3] = xi[3 * c:3 * c + 3].T
E = np.zeros((3 * n, 3 * len(S)))
for k, j in enumerate(S):
    E[3 * j:3 * j + 3, 3 * k:3 * k + 3] = np.eye(3)
uS = np.random.default_rng(1).standard_normal((len(S), 3)) * 1e-4
vbar = E @ uS.ravel()                       # displacements at S, no traction elsewhere
v0 = X @ (vbar - E @ E.T @ vbar) - E @ E.T @ vbar
C = -E.T @ X @ E
v = v0 + (E + X @ E) @ np.linalg.solve(C, E.T @ v0)
c = ep.Contact(w + "/gf.h5")
c.set(S)
p, vc = c.solve(uS)
ok = np.abs(vc.ravel()[[3 * j + a for j in S for a in range(3)]] - v[[3 * j + a for j in S for a in range(3)]]).max() <= 1e-10 * np.abs(v).max()
free = [j for j in range(n) if j not in S and j in col_of_row]
ok &= np.abs(vc.ravel()[[3 * j + a for j in free for a in range(3)]] - v[[3 * j + a for j in free for a in range(3)]]).max() <= 1e-10 * np.abs(v).max()
c.remove(S[1]); c.add(S[1])
p2, _ = c.solve(uS[[0, 2, 1]])
print(bool(ok), sorted(c.nodes.tolist()) == sorted(S), np.allclose(p2, p[[0, 2, 1]], rtol=1e-9, atol=1e-9 * np.abs(p).max()))
try:
    c.add(S[0])
    print("no error")
except ep.ElastoprepError as e:
    print("ElastoprepError")
PY
)" = "True True True
ElastoprepError" ]
# make install: the package beside the library, found without ELASTOPREP_LIB
STAGE="$WORK/stage"
make -s install PREFIX="$STAGE" >"$WORK/install.log" 2>&1
site=$(ls -d "$STAGE"/lib/python3*/dist-packages)
check "make install: the package, its library path, elastoprep-python(7)" sh -c "[ -f '$site/elastoprep/files.py' ] && grep -q '$STAGE/lib/$SONAME' '$site/elastoprep/_libpath.py' && [ -f '$STAGE/share/man/man7/elastoprep-python.7' ]"
check "installed package: contact solve through the installed library" [ "$(env -u ELASTOPREP_LIB PYTHONPATH="$site" $PY -c "
import elastoprep as ep
c = ep.Contact('$WORK/gf.h5'); c.set([0, 1])
print(ep.library()._name == '$STAGE/lib/$SONAME', c.solve([[0, 0, 1e-4]] * 2)[0].shape)")" = "True (2, 3)" ]
check "elastoprep-python(7) formats cleanly" sh -c '[ -z "$(groff -man -ww -z man/man7/elastoprep-python.7 2>&1)" ]'
finish
