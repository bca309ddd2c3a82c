#!/bin/sh
# Hex meshes through the tools: a voxel cantilever (.veg CUBIC) through
# femcondense, moddesc, polycoef and rtcheck; /mesh/hexes in every file;
# inverted and non-box CUBIC elements refused with one line and status 3.
# (The numerics are unit-tested in tests/unit/test_hexfem.c.)
. "$(dirname "$0")/common"

# voxels NX NY NZ H FILE [ELEMENT-LINE-OVERRIDE]: a .veg CUBIC grid of cubes of edge H, E = 1e6,
# nu = 0.4, rho = 1000; the .bou of the x = 0 vertices beside it.
voxels() {
    /usr/bin/python3 - "$@" <<'PY'
import sys
nx, ny, nz, h, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
over = sys.argv[6] if len(sys.argv) > 6 else None
vid = lambda i, j, k: 1 + i + (nx + 1) * (j + (ny + 1) * k)
corner = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]
with open(out, "w") as f:
    f.write("*VERTICES\n%d 3 0 0\n" % ((nx + 1) * (ny + 1) * (nz + 1)))
    for k in range(nz + 1):
        for j in range(ny + 1):
            for i in range(nx + 1):
                f.write("%d %r %r %r\n" % (vid(i, j, k), i * h, j * h, k * h))
    f.write("*ELEMENTS\nCUBIC\n%d 8 0\n" % (nx * ny * nz))
    e = 0
    for k in range(nz):
        for j in range(ny):
            for i in range(nx):
                e += 1
                line = "%d " % e + " ".join(str(vid(i + a, j + b, k + c)) for a, b, c in corner)
                f.write((over if over and e == 1 else line) + "\n")
    f.write("*MATERIAL steel\nENU, 1000, 1e6, 0.4\n*REGION\nallElements, steel\n")
with open(out[:-4] + ".bou", "w") as f:
    f.write(", ".join(str(vid(0, j, k)) for k in range(nz + 1) for j in range(ny + 1)) + "\n")
PY
}

voxels 8 2 2 0.05 "$WORK/beam.veg"
"$BIN/femcondense" "$WORK/beam.veg" --fixed-ids "$WORK/beam.bou" -o "$WORK/gf.h5" >"$WORK/gf.out"
check "femcondense: a voxel mesh gives GFs (method fem-hex8)" [ "$(h5 "$WORK/gf.h5" "f['gf'].attrs['method'], f['mesh/hexes'].shape, 'tets' in f['mesh']")" = "fem-hex8 (32, 8) False" ]
check "femcondense: the summary counts hexes" grep -q "from 32 hexes" "$WORK/gf.out"
check "the boundary is the quads split in two (2 x 72 triangles), vertex areas summing to the area" [ "$(h5 "$WORK/gf.h5" "len(f['mesh/triangles']), round(float(f['mesh/vertex_area'][:].sum()), 12)")" = "144 0.18" ]
"$BIN/rtcheck" "$WORK/gf.h5" --contacts 6 --trials 4 --ops 100 >"$WORK/rt-gf.out" 2>&1
check "rtcheck on the GFs of a hex model: every check passes" [ $? -eq 0 ]
"$BIN/moddesc" "$WORK/beam.veg" --fixed-ids "$WORK/beam.bou" -k 6 -r 8 -o "$WORK/m.h5" >"$WORK/m.out"
check "moddesc: modes and derivatives of a voxel mesh" [ "$(h5 "$WORK/m.h5" "f['modes/U'].shape, f['derivatives/Phi'].shape, f['mesh/hexes'].shape")" = "(6, 243) (21, 243) (32, 8)" ]
"$BIN/rtcheck" "$WORK/m.h5" >"$WORK/rt-m.out" 2>&1
check "rtcheck on the modes of a hex model" [ $? -eq 0 ]
"$BIN/polycoef" "$WORK/m.h5" -o "$WORK/c.h5" >"$WORK/c.out"
check "polycoef: the summary counts hexes" grep -q "from 32 hexes" "$WORK/c.out"
"$BIN/rtcheck" "$WORK/c.h5" --steps 200 >"$WORK/rt-c.out" 2>&1
check "rtcheck on the cubic polynomials of a hex model (against the full StVK force)" [ $? -eq 0 ]

"$BIN/bemsolve" -q "$WORK/beam.veg" --fixed-ids "$WORK/beam.bou" -E 1e6 --nu 0.4 -o "$WORK/bem.h5"
check "bemsolve: the boundary of a hex mesh (its quads' triangles) is the BEM surface, the GF rows those of femcondense" [ "$(h5 "$WORK/bem.h5" "len(f['mesh/triangles']), bool(np.array_equal(f['mesh/vertices'][:][f['gf/row_vertex'][:]], __import__('h5py').File('$WORK/gf.h5')['mesh/vertices'][:][__import__('h5py').File('$WORK/gf.h5')['gf/row_vertex'][:]]))")" = "144 True" ]

"$BIN/moddesc" -q "$WORK/beam.veg" --free -k 4 -r 6 -o "$WORK/free.h5" && "$BIN/rtcheck" -q "$WORK/free.h5"
check "moddesc --free on a voxel mesh: six rigid modes excluded, rtcheck passes" [ $? -eq 0 ]
"$BIN/moddesc" -q "$WORK/beam.veg" --fixed-ids "$WORK/beam.bou" --mass lumped -k 4 -r 6 -o "$WORK/l.h5" && "$BIN/rtcheck" -q "$WORK/l.h5"
check "moddesc --mass lumped on a voxel mesh, rtcheck passes" [ $? -eq 0 ]

# split runs on a hex model (epmerge(1)): GFs bit for bit, coefficients to 1e-13
for i in 0 1 2; do
    "$BIN/femcondense" -q "$WORK/beam.veg" --fixed-ids "$WORK/beam.bou" --block 6 --part $i/3 -o "$WORK/gfp.$i.h5"
    "$BIN/polycoef" -q "$WORK/m.h5" --part $i/3 -o "$WORK/cp.$i.h5"
done
"$BIN/femcondense" -q "$WORK/beam.veg" --fixed-ids "$WORK/beam.bou" --block 6 -o "$WORK/gf6.h5"
"$BIN/epmerge" -q "$WORK"/gfp.[0-2].h5 -o "$WORK/gfp.h5"
"$BIN/epmerge" -q "$WORK"/cp.[0-2].h5 -o "$WORK/cp.h5"
check "femcondense --part on hexes: merged GFs are the single run's bit for bit" /usr/bin/python3 tests/cli/partcheck.py "$WORK/gf6.h5" "$WORK/gfp.h5"
check "polycoef --part on hexes: merged coefficients to 1e-13" /usr/bin/python3 tests/cli/partcheck.py "$WORK/c.h5" "$WORK/cp.h5" 1e-13

# polycoef on 256 voxels: 8 chunks of 32 (lib/cubic.c), summed per thread
# and regrouped by parts: N parts in 1, 2, 3, 7 and one thread instead of
# all merge to the single run to 1e-13
voxels 16 4 4 0.05 "$WORK/beam256.veg"
"$BIN/moddesc" -q "$WORK/beam256.veg" --fixed-ids "$WORK/beam256.bou" -k 4 -r 6 -o "$WORK/m256.h5"
"$BIN/polycoef" -q "$WORK/m256.h5" -o "$WORK/c256.h5"
OMP_NUM_THREADS=1 "$BIN/polycoef" -q "$WORK/m256.h5" -o "$WORK/c256-1.h5"
check "polycoef on voxels, one thread: the threads' sums to 1e-13" /usr/bin/python3 tests/cli/partcheck.py "$WORK/c256.h5" "$WORK/c256-1.h5" 1e-13
for n in 1 2 3 7; do
    rm -f "$WORK"/c256p.*
    i=0
    while [ $i -lt $n ]; do "$BIN/polycoef" -q "$WORK/m256.h5" --part $i/$n -o "$WORK/c256p.$i.h5"; i=$((i + 1)); done
    "$BIN/epmerge" -q "$WORK"/c256p.[0-9]*.h5 -o "$WORK/c256m.$n.h5"
    check "polycoef --part I/$n on 256 voxels: merged coefficients to 1e-13" /usr/bin/python3 tests/cli/partcheck.py "$WORK/c256.h5" "$WORK/c256m.$n.h5" 1e-13
done

# refusals: one line naming file and element, status 3, nothing written
voxels 2 1 1 0.1 "$WORK/inv.veg" "1 7 8 11 10 1 2 5 4"
expect_fail "inverted CUBIC element" 3 "inv.veg: element 1: inverted" femcondense "$WORK/inv.veg" --fixed-ids "$WORK/inv.bou" -o "$WORK/out/gf.h5"
voxels 2 1 1 0.1 "$WORK/turn.veg" "1 2 5 4 1 8 11 10 7"
expect_fail "CUBIC element not in Vega's order (a turned box)" 3 "turn.veg: element 1: not an axis-aligned box" moddesc "$WORK/turn.veg" --fixed-ids "$WORK/turn.bou" -k 2 -r 2 -o "$WORK/out/m.h5"
finish
