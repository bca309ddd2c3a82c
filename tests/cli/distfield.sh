#!/bin/sh
# distfield end to end: the icosahedron's field (a closed manifold: signed by
# pseudonormals) against brute force in Python; the .h5 and Vega's .dist of
# the same run equal bit for bit, the .dist read by a reader written here
# from Vega's documented layout (DistanceField::save: int32 -N N N, float64
# bmin, bmax, then float32 values x fastest); the XDMF sidecar's uniform
# grid; a soup (a face removed) signed by winding numbers; bad input.  The
# mathematics is unit-tested in tests/unit/test_distfield.c.
. "$(dirname "$0")/common"
PY=/usr/bin/python3
ICO=data/icosahedron.obj

"$BIN/distfield" $ICO --res 16 -o "$WORK/ico.h5" >"$WORK/log" 2>&1
check "exit 0 and a summary" grep -q "^distfield: .*ico.h5: 17^3 points.*sign: pseudonormal" "$WORK/log"
"$BIN/distfield" -q $ICO --res 16 -o "$WORK/ico.dist"
check "quiet .dist run" test -s "$WORK/ico.dist"

# brute force: every grid point's distance to the 20 triangles (closest point
# by minimizing over a fine barycentric sample plus the exact vertex/edge/face
# projections is overkill: use the exact region test), sign by the winding number
$PY - "$WORK/ico.h5" "$WORK/ico.dist" $ICO >"$WORK/py" 2>&1 <<'PY'
import sys, struct, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
vals = f["distfield/values"][:]
n = int(f["distfield"].attrs["resolution"]); h = float(f["distfield"].attrs["spacing"])
o = f["distfield/origin"][:]
# Vega's layout, read by hand
raw = open(sys.argv[2], "rb").read()
rx, ry, rz = struct.unpack("<3i", raw[:12])
bmin = struct.unpack("<3d", raw[12:36]); bmax = struct.unpack("<3d", raw[36:60])
dist = np.frombuffer(raw[60:], dtype="<f4").reshape(rz + 1, ry + 1, -rx + 1)
assert (rx, ry, rz) == (-n, n, n), (rx, ry, rz)
assert len(raw) == 60 + 4 * (n + 1) ** 3
assert np.array_equal(dist.view(np.uint32), vals.view(np.uint32)), "the .dist values differ from the .h5 values"
assert np.allclose(bmin, o, rtol=0, atol=0) and np.allclose(np.array(bmax) - bmin, n * h, rtol=1e-15)
# brute force
V, F = [], []
for line in open(sys.argv[3]):
    t = line.split()
    if t and t[0] == "v": V.append([float(x) for x in t[1:4]])
    if t and t[0] == "f": F.append([int(x.split("/")[0]) - 1 for x in t[1:4]])
V, F = np.array(V), np.array(F)
def closest(p, a, b, c):  # Ericson's region test, vectorized over the points p [k][3]
    ab, ac, ap = b - a, c - a, p - a
    d1, d2 = ap @ ab, ap @ ac
    bp = p - b; d3, d4 = bp @ ab, bp @ ac
    cp = p - c; d5, d6 = cp @ ab, cp @ ac
    va, vb, vc = d3 * d6 - d5 * d4, d5 * d2 - d1 * d6, d1 * d4 - d3 * d2
    den = va + vb + vc
    q = a + np.outer(vb / den, ab) + np.outer(vc / den, ac)
    def put(m, x): q[m] = x[m] if x.ndim == 2 else x
    with np.errstate(divide="ignore", invalid="ignore"):
        put((va <= 0) & (d4 - d3 >= 0) & (d5 - d6 >= 0), b + np.outer((d4 - d3) / ((d4 - d3) + (d5 - d6)), c - b))
        put((vb <= 0) & (d2 >= 0) & (d6 <= 0), a + np.outer(d2 / (d2 - d6), ac))
        put((d6 >= 0) & (d5 <= d6), np.tile(c, (len(p), 1)))
        put((vc <= 0) & (d1 >= 0) & (d3 <= 0), a + np.outer(d1 / (d1 - d3), ab))
        put((d3 >= 0) & (d4 <= d3), np.tile(b, (len(p), 1)))
        put((d1 <= 0) & (d2 <= 0), np.tile(a, (len(p), 1)))
    return np.linalg.norm(p - q, axis=1)
k, j, i = np.meshgrid(np.arange(n + 1), np.arange(n + 1), np.arange(n + 1), indexing="ij")
P = o + h * np.stack([i.ravel(), j.ravel(), k.ravel()], axis=1)
d = np.min([closest(P, *V[t]) for t in F], axis=0)
w = np.zeros(len(P))
for a, b, c in F:
    A, B, C = V[a] - P, V[b] - P, V[c] - P
    la, lb, lc = (np.linalg.norm(X, axis=1) for X in (A, B, C))
    det = np.einsum("ij,ij->i", A, np.cross(B, C))
    w += 2 * np.arctan2(det, la * lb * lc + np.einsum("ij,ij->i", A, B) * lc + np.einsum("ij,ij->i", B, C) * la
                        + np.einsum("ij,ij->i", C, A) * lb)
signed = np.where(w / (4 * np.pi) > 0.5, -d, d)
err = np.abs(vals.ravel() - signed) / np.maximum(np.abs(signed), 1e-30)
assert err.max() < 1e-6, err.max()
face = min(vals[0].min(), vals[-1].min(), vals[:, 0].min(), vals[:, -1].min(), vals[:, :, 0].min(), vals[:, :, -1].min())
assert float(f["distfield"].attrs["d_boundary"]) == float(face)
assert f["distfield"].attrs["sign"] in ("pseudonormal", b"pseudonormal")
assert len(f["distfield"].attrs["source_hash"]) == 64
print("ok", err.max(), (signed < 0).sum())
PY
check "values equal brute force to 1e-6, .dist equals .h5 bit for bit" grep -q "^ok" "$WORK/py"
[ "$(grep -c ^ok "$WORK/py")" -eq 1 ] || cat "$WORK/py"

check "XDMF sidecar: a 3DCoRectMesh of 17^3 with the values, in its own ico.distance.xmf" \
    grep -q 'TopologyType="3DCoRectMesh" Dimensions="17 17 17"' "$WORK/ico.distance.xmf"
check "XDMF sidecar: the values from the file, the surface alone in ico.xmf" sh -c "grep -q 'ico.h5:/distfield/values' '$WORK/ico.distance.xmf' && ! grep -q /distfield/ '$WORK/ico.xmf'"

# rtcheck: the field passes; a field with one far value's sign flipped, or a
# value off by 1e-4, fails (exit 1) naming the check
"$BIN/rtcheck" "$WORK/ico.h5" >"$WORK/rt" 2>&1
check "rtcheck passes the field" sh -c "grep -q 'signs differing from the brute-force winding number .* ok' '$WORK/rt' && grep -q 'lookup, random points' '$WORK/rt'"
cp "$WORK/ico.h5" "$WORK/bad.h5"
$PY -c "
import h5py, numpy as np
f = h5py.File('$WORK/bad.h5', 'r+'); v = f['distfield/values']; a = v[:]
a[a > 0.5] *= -1; a[np.abs(a) < 0.5] *= 1 + 1e-4; v[...] = a"
"$BIN/rtcheck" -q "$WORK/bad.h5" >"$WORK/rt" 2>"$WORK/rterr"
check "rtcheck fails a field with wrong signs and values" sh -c "[ $? -eq 1 ] && grep -q 'signs differing' '$WORK/rterr' && grep -q 'grid value' '$WORK/rterr'"

# a soup: the icosahedron less one face, and with one face doubled, flipped
sed '/^f /{x;s/^/x/;/^x\{1\}$/{x;d};x}' $ICO >"$WORK/open.obj"
grep -q '^f ' $ICO && [ "$(grep -c '^f ' "$WORK/open.obj")" -eq 19 ] || echo "    (open.obj not made)"
"$BIN/distfield" "$WORK/open.obj" --res 8 -o "$WORK/open.h5" >"$WORK/log" 2>&1
check "an open mesh is signed by winding numbers, and says why" grep -q "sign: winding (edge .* has no opposite" "$WORK/log"
"$BIN/distfield" -q "$WORK/open.obj" --res 8 --unsigned -o "$WORK/uns.h5"
check "--unsigned: no negative value" test "$(h5 "$WORK/uns.h5" '(f["distfield/values"][:] < 0).sum()')" = 0
"$BIN/distfield" -q $ICO --res 8 --offset 0.25 -o "$WORK/off.h5"
"$BIN/distfield" -q $ICO --res 8 -o "$WORK/plain.h5"
check "--offset D stores d - D" test "$($PY -c "
import h5py, numpy as np
a = h5py.File('$WORK/off.h5')['distfield/values'][:]; b = h5py.File('$WORK/plain.h5')['distfield/values'][:]
print(np.abs(a - (b - 0.25)).max() < 1e-6)")" = True
"$BIN/distfield" $ICO --res 16 --band 0.1 -o "$WORK/band.h5" >"$WORK/log" 2>&1
check "--band prints its error bound" grep -q "band 0.1: .* points exact, the others within" "$WORK/log"

# bad input: exit 3 (input) or 2 (usage), one line, nothing written
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\n' >"$WORK/empty.obj"
printf 'v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n' >"$WORK/nan.obj"
expect_fail "empty mesh" 3 "no faces" distfield "$WORK/empty.obj" --res 8 -o "$WORK/out/x.h5"
expect_fail "NaN vertex" 3 "non-finite" distfield "$WORK/nan.obj" --res 8 -o "$WORK/out/x.h5"
expect_fail "resolution 0" 3 "resolution 0" distfield $ICO --res 0 -o "$WORK/out/x.h5"
expect_fail "resolution beyond the memory" 3 "resolution 4000: .* more than" distfield $ICO --res 4000 \
    --max-memory 1G -o "$WORK/out/x.h5"
expect_fail "--sign pseudonormal on an open mesh" 3 "sign pseudonormal needs a closed.*open" distfield \
    "$WORK/open.obj" --res 8 --sign pseudonormal -o "$WORK/out/x.h5"
expect_fail "no resolution" 2 "no resolution" distfield $ICO -o "$WORK/out/x.h5"
expect_fail "--unsigned with --sign" 2 "choose one" distfield $ICO --res 8 --unsigned --sign winding -o "$WORK/out/x.h5"
expect_fail "bad --box" 2 "X,Y,Z,SIDE" distfield $ICO --res 8 --box 1,2 -o "$WORK/out/x.h5"
expect_fail "wrong output kind" 2 "the output is" distfield $ICO --res 8 -o "$WORK/out/x.veg"
finish
