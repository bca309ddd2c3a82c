#!/bin/sh
# loopsub command-line tests: counts, schema, hierarchy, chaining, projection,
# and one clear error line with the documented status for each bad input.
. "$(dirname "$0")/common"
D=data

# --- the acceptance case: icosahedron, 4 levels -------------------------------
"$BIN/loopsub" $D/icosahedron.obj -l 4 -o "$WORK/s4.h5" >"$WORK/summary"
check "icosahedron -l 4 exits 0" [ $? -eq 0 ]
check "summary names 2562 vertices and 5120 triangles" grep -q "2562 vertices, 5120 triangles" "$WORK/summary"
h5dump -H "$WORK/s4.h5" >"$WORK/s4.txt"
# (each check runs one command: a pipe after "check" would run it in a subshell whose verdict is lost)
check "h5dump: vertices ( 2562, 3 ) float64" sh -c "grep -A2 'DATASET \"vertices\"' '$WORK/s4.txt' | grep -q 'H5T_IEEE_F64LE' && grep -A2 'DATASET \"vertices\"' '$WORK/s4.txt' | grep -q '( 2562, 3 )'"
check "h5dump: triangles ( 5120, 3 )" sh -c "grep -A2 'DATASET \"triangles\"' '$WORK/s4.txt' | grep -q '( 5120, 3 )'"
check "h5dump: level ( 2562 ) int8" sh -c "grep -A2 'DATASET \"level\"' '$WORK/s4.txt' | grep -q 'H5T_STD_I8LE'"
check "h5dump: parents ( 2562, 2 )" sh -c "grep -A2 'DATASET \"parents\"' '$WORK/s4.txt' | grep -q '( 2562, 2 )'"
check "h5dump: boundary and vertex_area" sh -c "grep -q 'DATASET \"boundary\"' '$WORK/s4.txt' && grep -q 'DATASET \"vertex_area\"' '$WORK/s4.txt'"
check "root attributes format, format_version, kind" \
    [ "$(h5 "$WORK/s4.h5" "f.attrs['format'], int(f.attrs['format_version']), f.attrs['kind']")" = "elastoprep 1 mesh" ]
check "creator and command attributes" sh -c "h5dump -a /command '$WORK/s4.h5' | grep -q 'loopsub $D/icosahedron.obj -l 4'"

# Counts V_{l+1} = V_l + E_l for every level (independent recount in Python).
for l in 0 1 2 3 5; do
    "$BIN/loopsub" -q $D/icosahedron.obj -l $l -o "$WORK/s$l.h5"
done
check "icosahedron counts 12 42 162 10242" [ "$(for l in 0 1 2 5; do h5 "$WORK/s$l.h5" "len(f['mesh/vertices'])"; done | tr '\n' ' ')" = "12 42 162 10242 " ]
check "levels ordered coarse to fine, one per step" [ "$(h5 "$WORK/s3.h5" "np.bincount(f['mesh/level'][:]).tolist() == [12, 30, 120, 480] and bool(np.all(np.diff(f['mesh/level'][:]) >= 0))")" = True ]
# Closedness recomputed independently: every edge in exactly two triangles, in opposite directions.
check "level-3 surface closed and oriented" [ "$(h5 "$WORK/s3.h5" "(lambda t: (lambda e: len(set(e)) == len(e) and all((b, a) in set(e) for a, b in e))([(int(a), int(b)) for r in t for a, b in ((r[0], r[1]), (r[1], r[2]), (r[2], r[0]))]))(f['mesh/triangles'][:])")" = True ]
# Vertex areas sum to the total area.
check "vertex areas sum to the surface area" [ "$(h5 "$WORK/s3.h5" "(lambda x, t: abs(f['mesh/vertex_area'][:].sum() - 0.5 * np.linalg.norm(np.cross(x[t[:,1]] - x[t[:,0]], x[t[:,2]] - x[t[:,0]]), axis=1).sum()) < 1e-12)(f['mesh/vertices'][:], f['mesh/triangles'][:])")" = True ]

# Linear scheme: odd vertices on their parents' edge (midpoints).
"$BIN/loopsub" -q $D/octahedron.off -l 3 --scheme linear -o "$WORK/oct3.h5"
check "linear scheme: odd vertices are parent-edge midpoints" [ "$(h5 "$WORK/oct3.h5" "(lambda x, p, l: bool(np.allclose(x[l > 0], 0.5 * (x[p[l > 0, 0]] + x[p[l > 0, 1]]), atol=1e-15)))(f['mesh/vertices'][:], f['mesh/parents'][:], f['mesh/level'][:])")" = True ]

# .obj output and chaining from an .h5 (hierarchy continues).
"$BIN/loopsub" -q $D/octahedron.off -l 2 -o "$WORK/oct2.obj"
check ".obj output: 66 vertices, 128 faces" [ "$(grep -c '^v ' "$WORK/oct2.obj") $(grep -c '^f ' "$WORK/oct2.obj")" = "66 128" ]
"$BIN/loopsub" -q "$WORK/oct2.obj" -l 0 -o "$WORK/oct2.off"
"$BIN/loopsub" -q "$WORK/oct2.off" -l 0 -o "$WORK/oct2b.obj"
check ".off output reads back to the same surface" cmp -s "$WORK/oct2.obj" "$WORK/oct2b.obj"
"$BIN/loopsub" -q "$WORK/s2.h5" -l 1 -o "$WORK/s2to3.h5"
check "chaining an .h5 continues the hierarchy" [ "$(h5 "$WORK/s2to3.h5" "len(f['mesh/vertices']), int(f['mesh/level'][:].max())")" = "642 3" ]
check "chained result equals three levels at once" [ "$(h5 "$WORK/s2to3.h5" "bool(np.array_equal(f['mesh/triangles'][:], __import__('h5py').File('$WORK/s3.h5')['mesh/triangles'][:]))")" = True ]

# Tet mesh input: its boundary; fixed vertices written as constraints.
"$BIN/loopsub" -q $D/cube.msh -l 1 --scheme linear --fixed-region bottom -o "$WORK/cube1.h5"
check "tet mesh boundary subdivided, fixed set at z = 0" [ "$(h5 "$WORK/cube1.h5" "bool(np.all(f['mesh/vertices'][:][f['constraints/fixed'][:], 2] == 0)) and len(f['constraints/fixed']) > 0")" = True ]

# Projection onto a fine surface (displaced-subdivision approximation).
"$BIN/loopsub" $D/models/asianDragon/asianDragon.veg -l 1 --project-onto $D/models/asianDragon/asianDragon.obj -o "$WORK/dragon.h5" >"$WORK/summary"
check "projection onto the fine dragon" grep -q "projected onto" "$WORK/summary"

check "--help exits 0 with usage" sh -c "'$BIN/loopsub' --help | grep -q '^Usage: loopsub'"
check "--version" sh -c "'$BIN/loopsub' --version | grep -q 'elastoprep'"

# --- bad input: status, one line, nothing left behind ---------------------------
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 2 3 4\n' >"$WORK/open.obj"
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv 1 1 1\nf 1 3 2\nf 1 2 4\nf 2 3 4\nf 1 4 3\nf 2 3 5\nf 3 2 4\n' >"$WORK/nonmanifold.obj"
printf 'v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n' >"$WORK/nan.obj"
printf '*VERTICES\n4 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n*ELEMENTS\nTETS\n1 4 0\n1 1 3 2 4\n' >"$WORK/inverted.veg"
printf '*VERTICES\n4 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n*ELEMENTS\nTETS\n1 4 0\n1 1 2 3 7\n' >"$WORK/range.veg"
head -c 2000 /bin/sh >"$WORK/garbage.obj"
: >"$WORK/empty.off"
head -c 3000 "$WORK/s2.h5" >"$WORK/truncated.h5"
/usr/bin/python3 -c "
import h5py, numpy as np
with h5py.File('$WORK/shape.h5', 'w') as f:
    f.attrs['format'] = 'elastoprep'; f.attrs['format_version'] = 1; f.attrs['kind'] = 'mesh'
    f['mesh/vertices'] = np.zeros((4, 2)); f['mesh/triangles'] = np.zeros((1, 3), 'i4')
with h5py.File('$WORK/foreign.h5', 'w') as f:
    f['data'] = np.zeros(3)
"
O="$WORK/out/o.h5"
expect_fail "no arguments" 2 "missing input file" loopsub
expect_fail "no -l" 2 "levels is required" loopsub $D/icosahedron.obj -o "$O"
expect_fail "unknown option" 2 "unknown option --bogus" loopsub $D/icosahedron.obj -l 1 --bogus -o "$O"
expect_fail "too many levels" 2 "out of range" loopsub $D/icosahedron.obj -l 13 -o "$O"
expect_fail "bad scheme" 2 "expected loop or linear" loopsub $D/icosahedron.obj -l 1 --scheme cubic -o "$O"
expect_fail "bad output extension" 2 "must be .h5, .obj or .off" loopsub $D/icosahedron.obj -l 1 -o "$WORK/out/o.txt"
expect_fail "missing input" 4 "cannot open" loopsub "$WORK/none.obj" -l 1 -o "$O"
expect_fail "unwritable output folder" 4 "cannot create" loopsub $D/icosahedron.obj -l 1 -o "$WORK/out/no/such/dir/o.h5"
expect_fail "binary garbage" 3 "garbage.obj: not a text file" loopsub "$WORK/garbage.obj" -l 1 -o "$O"
expect_fail "empty file" 3 "empty.off:.*unexpected end of file" loopsub "$WORK/empty.off" -l 1 -o "$O"
expect_fail "open surface" 3 "open surface" loopsub "$WORK/open.obj" -l 1 -o "$O"
expect_fail "non-manifold surface" 3 "non-manifold" loopsub "$WORK/nonmanifold.obj" -l 1 -o "$O"
expect_fail "NaN coordinate" 3 "nan.obj:2: non-finite" loopsub "$WORK/nan.obj" -l 1 -o "$O"
expect_fail "inverted tet" 3 "element 1: non-positive volume" loopsub "$WORK/inverted.veg" -l 1 -o "$O"
expect_fail "index out of range" 3 "range.veg:10: vertex index 7 out of range" loopsub "$WORK/range.veg" -l 1 -o "$O"
expect_fail "truncated HDF5" 3 "truncated.h5" loopsub "$WORK/truncated.h5" -l 1 -o "$O"
expect_fail "wrong HDF5 shape" 3 "/mesh/vertices has shape \[4\]\[2\], expected \[\*\]\[3\]" loopsub "$WORK/shape.h5" -l 1 -o "$O"
expect_fail "foreign HDF5" 3 "foreign.h5: attribute format of / is missing" loopsub "$WORK/foreign.h5" -l 1 -o "$O"
expect_fail "empty fixed selection" 3 "no fixed vertex" loopsub $D/icosahedron.obj -l 1 --fixed-box 5,5,5,6,6,6 -o "$O"
expect_fail "unknown region" 2 "no physical group or set" loopsub $D/cube.msh -l 1 --fixed-region nowhere -o "$O"

# A failed run leaves an existing output untouched.
cp "$WORK/s2.h5" "$WORK/keep.h5"
"$BIN/loopsub" "$WORK/open.obj" -l 1 -o "$WORK/keep.h5" 2>/dev/null
check "failed run keeps the previous output" cmp -s "$WORK/s2.h5" "$WORK/keep.h5"

# SIGTERM during a long run: no output and no temporary file remain.
mkdir -p "$WORK/sig"
"$BIN/loopsub" -q $D/icosahedron.obj -l 10 -o "$WORK/sig/big.h5" &
pid=$!
sleep 0.5
kill -TERM $pid 2>/dev/null
wait $pid 2>/dev/null
status=$?
check "SIGTERM: killed by the signal" [ $status -eq 143 ]
check "SIGTERM: nothing left behind" [ -z "$(ls -A "$WORK/sig")" ]

finish
