#!/bin/sh
# tests/paraview/run.sh BINDIR OUTDIR — ParaView opens the XDMF sidecar of
# every kind of file the demo makes (make check-paraview; issue 19 item 1).
#
# Small inputs through the demo's tools (scripts/pipeline.mk): a subdivision
# surface (kind mesh), BEM and FEM Green's functions (gf; the FEM ones on a
# tet mesh whose boundary TetGen numbers first), their wavelet compression
# (gf-wavelet), modes and cubic polynomials of the beam, modes of a hex
# model (Vega CUBIC voxels), the beam's subdivided surface embedded in it
# with its render basis (embedding), a distance field and a pointshell.
# Each file has one sidecar per grid (OUT.xmf, OUT.surface.xmf, OUT.gf.xmf,
# OUT.render.xmf, OUT.distance.xmf, OUT.pointshell.xmf; issue 45).  Debian's
# pvpython (under Xvfb: Debian builds ParaView for X, not for EGL or OSMesa)
# loads every .xmf with the reader it picks itself, which must show the one
# grid the name says, and compares it and every field with
# h5py (tests/paraview/check.py); the shipped scripts/epview draws the
# first mode and a GF column into OUTDIR/mode1.png and gf-column.png, kept,
# and tests/paraview/notblank.py checks that each shows something.  Ends
# with "N passed, N failed".
set -eu
BIN=$1
OUT=$2
D=data
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
BIN=$(cd "$BIN" && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/ep-pv-XXXXXX")
trap 'rm -rf "$W"' EXIT
BEAM="$D/models/beam3/beam3_tet.veg --fixed-ids $D/models/beam3/beam3.bou -E 1e7 --nu 0.4 --rho 1000"

"$BIN/moddesc" -q $BEAM -k 6 -r 8 -o "$W/modes.h5"
"$BIN/polycoef" -q "$W/modes.h5" -o "$W/cubic.h5"
"$BIN/loopsub" -q $D/models/beam3/beam3_tet.veg -l 1 -o "$W/render.obj"
"$BIN/embed" -q "$W/modes.h5" "$W/render.obj" --modes "$W/modes.h5" -o "$W/embedding.h5"
"$BIN/moddesc" -q $D/two-voxels.veg --fixed-box -0.1,-0.1,-0.1,0.1,1.1,1.1 -k 2 -r 2 -o "$W/hexes.h5"
"$BIN/loopsub" -q $D/icosahedron.obj -l 2 --fixed-box -2,-2,-2,2,2,-0.6 -o "$W/surface.h5"
"$BIN/bemsolve" -q "$W/surface.h5" -E 1e5 --nu 0.3 -o "$W/gf-bem.h5"
"$BIN/gfcompress" -q "$W/gf-bem.h5" --eps 0.05 -o "$W/gf-wavelet.h5"
"$BIN/loopsub" -q "$W/surface.h5" -l 0 -o "$W/surface.off"
tetgen -pq1.414YQ "$W/surface.off" >/dev/null
"$BIN/femcondense" -q "$W/surface.1.ele" --fixed-box -2,-2,-2,2,2,-0.6 -E 1e5 --nu 0.3 --xdmf-columns 0-3 \
    -o "$W/gf-fem.h5"
# the TetGen cube with its vertices numbered backwards: the surface is not
# numbered first, so the GFs show on vertex cells of the row vertices
/usr/bin/python3 - "$D/cube-tetgen" "$W/cube-rev" <<'PY'
import sys
src, dst = sys.argv[1], sys.argv[2]
node = open(src + ".node").read().split("\n")
n = int(node[0].split()[0])
rows = [l.split() for l in node[1:n + 1]]
with open(dst + ".node", "w") as f:
    f.write(node[0] + "\n")
    for k, r in enumerate(reversed(rows)):
        f.write("%d %s\n" % (k + 1, " ".join(r[1:])))
ele = open(src + ".ele").read().split("\n")
m = int(ele[0].split()[0])
with open(dst + ".ele", "w") as f:
    f.write(ele[0] + "\n")
    for l in ele[1:m + 1]:
        e = l.split()
        f.write("%s %s\n" % (e[0], " ".join(str(n + 1 - int(v)) for v in e[1:5])))
PY
"$BIN/femcondense" -q "$W/cube-rev.ele" --fixed-box -0.1,-0.1,-0.1,1.1,1.1,0.1 -E 1 --nu 0.3 --xdmf-columns 0-2 \
    -o "$W/gf-reversed.h5"
"$BIN/femcondense" -q $D/cube.msh --fixed-region bottom -E 1 --nu 0.3 --xdmf-columns 2,7 -o "$W/gf-cube.h5"
"$BIN/distfield" -q $D/icosahedron.obj --res 8 -o "$W/distfield.h5"
"$BIN/pointshell" -q $D/icosahedron.obj --levels 3 --first 20 -o "$W/pointshell.h5"

cd "$W"
for f in *.xmf; do cp "$f" "$OUT/"; done # the sidecars tested, kept beside the picture
command -v xvfb-run >/dev/null || { echo "xvfb-run missing: scripts/install-deps --paraview"; exit 1; }
status=0
pvpython "$OLDPWD/tests/paraview/check.py" *.xmf >"$W/checks" 2>"$W/stderr" || status=$?
for want in modes.surface.xmf embedding.render.xmf gf-fem.gf.xmf gf-reversed.gf.xmf distfield.distance.xmf \
    pointshell.pointshell.xmf; do # each kind of grid apart was checked
    if [ -e "$want" ]; then echo "ok - $want written and checked"; else echo "not ok - $want missing"; status=1; fi
done >>"$W/checks"
cat "$W/checks"
[ $status -eq 0 ] || grep -v '^ *[0-9]* *0x' "$W/stderr" | tail -20
# The picture needs an X display.  Debian's ParaView under Xvfb fails to
# connect to the server now and then ("bad X server connection", SIGABRT:
# 3 of 14 runs here, before drawing anything): a render killed by a signal
# is tried again, up to three times in all, and says so.
# The shipped script (scripts/epview) draws the first mode and a GF column,
# each sidecar given by its bare name (ParaView's Xdmf3 readers alone take
# x.xmf for a folder), and each picture must show something (notblank.py).
# The GF column is asked of gf-fem.xmf, whose fields are in gf-fem.gf.xmf:
# epview finds a field in the file's other sidecars.
# Debian's ParaView under Xvfb fails to connect to the server now and then
# ("bad X server connection", SIGABRT, and xvfb-run's own exit status 5
# after it), before drawing anything: such a run is tried again, up to five
# times in all, and says so.
for job in "modes.xmf|mode 1|mode1.png" "gf-fem.xmf|xi 0 z displacement|gf-column.png"; do
    xmf=${job%%|*} rest=${job#*|}
    field=${rest%%|*} png=${rest#*|}
    rm -f "$OUT/$png"
    for try in 1 2 3 4 5; do
        rs=0
        xvfb-run -a -s "-screen 0 1024x768x24" pvpython "$OLDPWD/scripts/epview" "$xmf" "$field" -o "$OUT/$png" \
            >"$W/render" 2>"$W/stderr" || rs=$?
        [ $rs -ne 0 ] && [ $try -lt 5 ] || break
        echo "# pvpython (under xvfb-run) ended with status $rs before drawing: $(grep -o 'ERR|.*' "$W/stderr" | head -1)"
    done
    cat "$W/render"
    if [ $rs -eq 0 ] && [ -s "$OUT/$png" ]; then
        echo "ok - epview $xmf \"$field\" -o $png (a bare relative name)" >>"$W/renders"
    else
        echo "not ok - epview $xmf \"$field\" -o $png: status $rs" >>"$W/renders"
        grep -v '^ *[0-9]* *0x' "$W/stderr" | tail -20
        status=1
    fi
done
pvpython "$OLDPWD/tests/paraview/notblank.py" "$OUT/mode1.png" "$OUT/gf-column.png" >>"$W/renders" 2>"$W/stderr" || status=1
cat "$W/renders"
echo "$(cat "$W/checks" "$W/renders" | grep -c '^ok') passed, $(cat "$W/checks" "$W/renders" | grep -c '^not ok') failed"
[ $status -eq 0 ]
