#!/bin/sh
# pointshell end to end: the icosahedron's nested pointshell (points on the
# surface, inward normals, nested levels, the tree's rest radii covering
# their subtrees, checked in Python from the file); the XDMF sidecar's
# Polyvertex grid coloured by level; --modes on the cube's moddesc basis
# (U_s = W U against embed's weights, the sphere bound for random q); the
# cheaper orderings; an offset of a soup; bad input (exit 3, nothing
# written).  The mathematics is unit-tested in tests/unit/test_pointshell.c
# and test_pscontact.c.
. "$(dirname "$0")/common"
PY=/usr/bin/python3
ICO=data/icosahedron.obj

"$BIN/pointshell" $ICO --levels 3 --first 20 -o "$WORK/ico.h5" >"$WORK/log" 2>&1
check "exit 0 and a summary" grep -q "^pointshell: .*ico.h5: 420 points on 3 levels (repulsion: 20, 100, 420), zero set" "$WORK/log"
$PY - "$WORK/ico.h5" >"$WORK/py" 2>&1 <<'PY'
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r"); g = f["pointshell"]
P, N = g["points"][:], g["normals"][:]
V, F = f["mesh/vertices"][:], f["mesh/triangles"][:]
assert f.attrs["kind"] in ("pointshell", b"pointshell")
# on the icosahedron: each point in the plane of some face, inside it
n = np.cross(V[F[:, 1]] - V[F[:, 0]], V[F[:, 2]] - V[F[:, 0]]); n /= np.linalg.norm(n, axis=1)[:, None]
off = np.abs(((P[:, None, :] - V[F[:, 0]][None]) * n[None]).sum(2)).min(1)
assert off.max() < 1e-12, off.max()
# inward: against the centroid direction
c = V.mean(0)
assert ((N * (P - c)).sum(1) < 0).all()
assert np.allclose(np.linalg.norm(N, axis=1), 1)
ls = g["level_start"][:]; assert list(ls) == [0, 20, 100, 420], ls
lev = g["level"][:]; assert (np.diff(lev) >= 0).all() and lev[0] == 1 and lev[-1] == 3
# the tree: nodes of tree level l hold the points of levels <= l; radii cover subtrees
t = g["tree"]; st, pt, first, cnt, R = t["start"][:], t["point"][:], t["first"][:], t["count"][:], t["radius"][:]
assert list(st) == [0, 20, 120, 540]
up = -np.ones(len(pt), int)
for i in range(st[2]):
    up[first[i]:first[i] + cnt[i]] = i
worst = 0
for i in range(st[2], st[3]):
    a = up[i]
    while a >= 0:
        worst = max(worst, np.linalg.norm(P[pt[i]] - P[pt[a]]) - R[a]); a = up[a]
assert worst <= 1e-12, worst
print("ok")
PY
check "points on the surface, inward normals, nested levels, radii cover subtrees" grep -q "^ok" "$WORK/py" || cat "$WORK/py"
check "XDMF sidecar: the points as a Polyvertex grid coloured by level" sh -c \
    "grep -q 'Grid Name=\"pointshell\"' '$WORK/ico.pointshell.xmf' && grep -q 'TopologyType=\"Polyvertex\" NumberOfElements=\"420\"' '$WORK/ico.pointshell.xmf' && grep -q 'ico.h5:/pointshell/level' '$WORK/ico.pointshell.xmf' && ! grep -q /pointshell/ '$WORK/ico.xmf'"
"$BIN/pointshell" -q $ICO --levels 3 --first 20 -o "$WORK/ico2.h5"
a=$(h5 "$WORK/ico.h5" 'f["pointshell/points"][:].tobytes().hex()')
b=$(h5 "$WORK/ico2.h5" 'f["pointshell/points"][:].tobytes().hex()')
check "the same seed gives the same points" [ -n "$a" ] && [ "$a" = "$b" ]
"$BIN/pointshell" -q $ICO --levels 3 --first 20 --seed 2 -o "$WORK/ico3.h5"
c=$(h5 "$WORK/ico3.h5" 'f["pointshell/points"][:].tobytes().hex()')
check "--seed 2 is taken (its bound LONG_MAX) and gives other points" [ -n "$c" ] && [ "$a" != "$c" ]

# --modes: the cube's basis; U_s = W U with embed's weights, the sphere bound for random q
D=data
"$BIN/moddesc" -q $D/cube.msh --fixed-region bottom -E 1e6 --nu 0.3 --rho 1000 -k 4 -r 6 -o "$WORK/m.h5"
"$BIN/pointshell" $D/cube.msh --levels 3 --first 16 --modes "$WORK/m.h5" -o "$WORK/cube.h5" >"$WORK/log" 2>&1
check "--modes: bound to 6 modes" grep -q "bound to 6 modes of .* tets" "$WORK/log"
$PY - "$WORK/cube.h5" "$WORK/m.h5" >"$WORK/py" 2>&1 <<'PY'
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r"); g = f["pointshell"]; m = h5py.File(sys.argv[2], "r")
P, U, dN, N = g["points"][:], g["U"][:], g["dN"][:], g["normals"][:]
X, T, B = m["mesh/vertices"][:], m["mesh/tets"][:], m["basis/U"][:]
r = B.shape[0]; assert U.shape == (len(P), 3, r)
# barycentric coordinates of each point in each tet: the tet holding it
worst, worstn, one = 0, 0, 0
for s in range(0, len(P), 3):
    hold = []
    for t in T:
        A = np.column_stack([X[t[1]] - X[t[0]], X[t[2]] - X[t[0]], X[t[3]] - X[t[0]]])
        l = np.linalg.solve(A, P[s] - X[t[0]]); w = np.array([1 - l.sum(), *l])
        if w.min() > -1e-9:
            hold.append((t, A, w))
    t, A, w = hold[0]
    Us = sum(w[a] * B[:, 3 * t[a]:3 * t[a] + 3].T for a in range(4))
    worst = max(worst, np.abs(Us - U[s]).max())
    if len(hold) == 1:  # inside one tet's face: its gradient is the one (across tets it jumps)
        Ai = np.linalg.inv(A); grads = [-Ai.sum(0), Ai[0], Ai[1], Ai[2]]  # grad of each barycentric coordinate
        u = [B[:, 3 * t[a]:3 * t[a] + 3] for a in range(4)]  # [r][3] each: mode j's displacement of corner a
        trG = sum(u[a] @ grads[a] for a in range(4))  # tr G_j, G_j = sum_a u_a,j (x) grad_a
        GtN = sum(np.outer(grads[a], u[a] @ N[s]) for a in range(4))  # G_j^T N_s, columns j
        Fn = np.outer(N[s], trG) - GtN  # first-order cof(I + G_j) N_s, columns j
        worstn = max(worstn, np.abs(Fn - dN[s]).max()); one += 1
assert one > 10
assert worst < 1e-12 and worstn < 1e-9, (worst, worstn)
# the sphere bound for random q, some of them moving the cube by 20 % of its size
t = g["tree"]; st, pt, first, cnt, R, a = t["start"][:], t["point"][:], t["first"][:], t["count"][:], t["radius"][:], t["a"][:]
up = -np.ones(len(pt), int)
for i in range(st[-2]):
    up[first[i]:first[i] + cnt[i]] = i
leaves = np.arange(st[-2], st[-1])
rng = np.random.default_rng(1); bad = 0
for k in range(100):
    q = rng.uniform(-1, 1, r); size = np.linalg.norm(X.max(0) - X.min(0))
    q *= (0.2 if k % 2 else 0.01) * size / max(np.abs(np.einsum("sij,j->si", U, q)).max(), 1e-30)
    p = P + np.einsum("sij,j->si", U, q)
    for i in leaves:
        b = up[i]
        while b >= 0:
            bad += np.linalg.norm(p[pt[i]] - p[pt[b]]) > R[b] + a[b] @ np.abs(q) + 1e-12 * size; b = up[b]
assert bad == 0, bad
print("ok", worst, worstn)
PY
check "--modes: U_s = W U, dN_s = (tr G) N - G^T N (Nanson), every point inside its spheres for random q" grep -q "^ok" "$WORK/py" || cat "$WORK/py"

# rtcheck: the cube's pointshell against the icosahedron's field, with the
# cubic polynomials in the loop; a damaged tree is refused (exit 3)
"$BIN/polycoef" -q "$WORK/m.h5" -o "$WORK/c.h5"
"$BIN/distfield" -q $ICO --res 32 -o "$WORK/field.h5"
"$BIN/rtcheck" "$WORK/cube.h5" "$WORK/field.h5" "$WORK/c.h5" --steps 60 --trials 2 >"$WORK/rt" 2>&1
st=$?
check "rtcheck: pointshell + distfield + cubic passes" [ $st -eq 0 ] || cat "$WORK/rt"
check "rtcheck: traversal equals brute force, the sphere bound, the normals, times" sh -c \
    "grep -q 'traversal.s force, torque, reduced force against brute force .* ok' '$WORK/rt' && grep -q 'outside its node.s sphere .* ok' '$WORK/rt' && grep -q 'deformed normal .* ok' '$WORK/rt' && grep -q 'contact cycle, mean .* us' '$WORK/rt' && grep -q 'budget: level reached' '$WORK/rt'"
check "rtcheck: temporal coherence with the Newmark q in the loop skips nodes and equals brute force" sh -c \
    "grep -q 'temporal coherence: every cycle against brute force .* ok' '$WORK/rt' && awk '/node visits skipped/ {f = \$NF} END {exit !(f > 0)}' '$WORK/rt'"
# a real mesh: the demo dragon's 2,591 tets (10 modes) and its scan bound
# into them; the runtime's normals (exact cofactor of the element's F)
# against the deformed scan at q moving it 5 % (001 Fig. 3.7: 5.2 deg)
DR=data/models/asianDragon
"$BIN/moddesc" -q $DR/asianDragon.veg --fixed-ids $DR/asianDragon.bou -k 20 -r 10 -o "$WORK/dm.h5" 2>/dev/null
"$BIN/pointshell" -q $DR/asianDragon.obj --modes "$WORK/dm.h5" --levels 3 --first 300 -o "$WORK/dps.h5"
"$BIN/polycoef" -q "$WORK/dm.h5" -o "$WORK/dc.h5" 2>/dev/null
"$BIN/rtcheck" "$WORK/dps.h5" "$WORK/field.h5" "$WORK/dc.h5" --steps 10 --trials 1 >"$WORK/drt" 2>&1
check "rtcheck: the dragon scan's deformed normals within 5.2 deg of the deformed surface's" sh -c \
    "grep -q 'deformed normal against the deformed surface.s (degrees, q moving 5 %) .* ok' '$WORK/drt' && awk -F= '/normals compared, closest triangle in the point.s element/ {n = \$NF} END {exit !(n > 500)}' '$WORK/drt'" || cat "$WORK/drt"
"$BIN/rtcheck" -q "$WORK/ico.h5" "$WORK/field.h5" >"$WORK/rt" 2>&1
check "rtcheck: a rigid pointshell (r = 0) without a model" [ $? -eq 0 ] || cat "$WORK/rt"
cp "$WORK/ico.h5" "$WORK/bad.h5"
$PY -c "
import h5py
f = h5py.File('$WORK/bad.h5', 'r+'); r = f['pointshell/tree/radius']; a = r[:]; a[0] *= 0.5; r[...] = a"
expect_fail "rtcheck: a radius that does not cover its subtree" 3 "/tree/radius" rtcheck "$WORK/bad.h5" "$WORK/field.h5"
expect_fail "rtcheck: a pointshell without a field" 2 "goes with a distfield" rtcheck "$WORK/ico.h5"

# cheaper orderings; an offset of a soup (the icosahedron less one face)
"$BIN/pointshell" -q $ICO --order vertices --levels 2 --first 3 -o "$WORK/v.h5"
check "--order vertices: the 12 vertices, 3 then 12" test "$(h5 "$WORK/v.h5" 'list(f["pointshell/level_start"][:])')" = "[0, 3, 12]"
"$BIN/pointshell" -q $ICO --order farthest --levels 2 --first 5 -o "$WORK/fp.h5"
check "--order farthest: 25 points" test "$(h5 "$WORK/fp.h5" 'f["pointshell/points"].shape[0]')" = 25
sed '/^f /{x;s/^/x/;/^x\{1\}$/{x;d};x}' $ICO >"$WORK/open.obj"
"$BIN/pointshell" "$WORK/open.obj" --offset 0.05 --res 32 --levels 2 --first 20 -o "$WORK/off.h5" >"$WORK/log" 2>&1
check "--offset on a soup: an offset surface" grep -q "offset surface at 0.05" "$WORK/log"

# bad input: exit 3, one line, nothing written
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\n' >"$WORK/empty.obj"
printf 'v 0 0 0\nv nan 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 3 4\nf 1 4 2\nf 2 4 3\n' >"$WORK/nan.obj"
expect_fail "empty surface" 3 "no (faces|triangles)" pointshell "$WORK/empty.obj" -o "$WORK/out/x.h5"
expect_fail "NaN surface" 3 "finite" pointshell "$WORK/nan.obj" -o "$WORK/out/x.h5"
expect_fail "levels 0" 3 "levels 0" pointshell $ICO --levels 0 -o "$WORK/out/x.h5"
expect_fail "levels beyond the memory" 3 "more than the .* GiB" pointshell $ICO --levels 12 --first 1000 \
    -o "$WORK/out/x.h5"
expect_fail "an open surface without --offset" 3 "give --offset" pointshell "$WORK/open.obj" -o "$WORK/out/x.h5"
# a mesh that does not hold the surface: the icosahedron moved 10 sizes away from the cube
awk '/^v /{$2 = $2 + 30} {print}' $ICO >"$WORK/far.obj"
expect_fail "modes mesh does not hold the surface" 3 "does not hold the surface" pointshell "$WORK/far.obj" \
    --levels 2 --first 10 --modes "$WORK/m.h5" -o "$WORK/out/x.h5"
expect_fail "--rank without --modes" 2 "give --modes" pointshell $ICO --rank 3 -o "$WORK/out/x.h5"
finish
