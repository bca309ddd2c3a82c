#!/bin/sh
# XDMF sidecars (issue 19 item 1): every tool that writes an HDF5 file with a
# mesh writes OUT.xmf beside it (lib/xdmf.c through ep_output_commit) whose
# references are datasets of OUT.h5 with the stated extents, and one more
# sidecar per other grid (issue 45: OUT.surface.xmf, OUT.gf.xmf, ...), each
# holding one grid; a sidecar of a grid the new file lacks goes; --no-xdmf
# turns them off; --xdmf-columns picks the GF columns shown; a sidecar that
# cannot be written is refused before any work and nothing is left.
# ParaView itself reads them in make check-paraview (tests/paraview).
. "$(dirname "$0")/common"
D=data
X="/usr/bin/python3 tests/cli/xdmfcheck.py"
BEAM="$D/models/beam3/beam3_tet.veg --fixed-ids $D/models/beam3/beam3.bou -E 1e7 --nu 0.4 --rho 1000"

"$BIN/loopsub" -q $D/icosahedron.obj -l 2 --fixed-box -2,-2,-2,2,2,-0.6 -o "$WORK/s2.h5"
"$BIN/bemsolve" -q "$WORK/s2.h5" -E 1e5 --nu 0.3 -o "$WORK/gf.h5"
"$BIN/loopsub" -q $D/icosahedron.obj -l 1 --fixed-box -2,-2,-2,2,2,-0.6 -o "$WORK/s1.h5"
"$BIN/bemsolve" -q "$WORK/s1.h5" -E 1e5 --nu 0.3 -o "$WORK/gf1.h5"
"$BIN/femcondense" -q $D/cube.msh --fixed-region bottom -E 1 --nu 0.3 -o "$WORK/gft.h5"
"$BIN/gfcompress" -q "$WORK/gf.h5" --eps 0.05 -o "$WORK/w.h5"
"$BIN/moddesc" -q $BEAM -k 4 -r 6 -o "$WORK/m.h5"
"$BIN/polycoef" -q "$WORK/m.h5" -o "$WORK/c.h5"
"$BIN/moddesc" -q $D/two-voxels.veg --fixed-box -0.1,-0.1,-0.1,0.1,1.1,1.1 -k 2 -r 2 -o "$WORK/hex.h5"
for f in s2 gf gf1 gft w m c hex; do
    check "$f.h5: sidecar $f.xmf written, its references valid" sh -c "$X '$WORK/$f.xmf' >'$WORK/$f.names'"
    for x in "$WORK/$f".*.xmf; do
        [ -e "$x" ] || continue
        check "$f.h5: sidecar ${x##*/}: its references valid" sh -c "$X '$x' >>'$WORK/$f.names'"
    done
done
(cd "$WORK" && for x in *.xmf; do printf '%s ' "$x"; done) >"$WORK/sidecars"
check "one sidecar per grid: the mesh's, a volume's surface, a GF grid's ($(cat "$WORK/sidecars"))" [ \
    "$(cat "$WORK/sidecars")" = "c.surface.xmf c.xmf gf.xmf gf1.xmf gft.gf.xmf gft.surface.xmf gft.xmf hex.surface.xmf hex.xmf m.surface.xmf m.xmf s1.xmf s2.xmf w.xmf " ]
check "each sidecar holds one grid" sh -c "for x in '$WORK'/*.xmf; do [ \$(grep -c '^    <Grid ' \"\$x\") -eq 1 ] || exit 1; done"
check "the GFs on their own grid, none on the volume's" \
    sh -c "[ \$(grep -c '<Attribute Name=\"xi ' '$WORK/gft.gf.xmf') -gt 0 ] && ! grep -q 'Name=\"xi ' '$WORK/gft.xmf' '$WORK/gft.surface.xmf'"
check "no temporary left beside them" [ "$(ls -A "$WORK" | grep -c '^\.')" = 0 ]
check "modes: 4 modes, 10 derivatives, 6 basis vectors" \
    [ "$(grep -c '^mode ' "$WORK/m.names") $(grep -c '^derivative ' "$WORK/m.names") $(grep -c '^basis ' "$WORK/m.names")" = "4 10 6" ]
check "cubic: its 6 basis vectors" [ "$(grep -c '^basis ' "$WORK/c.names")" = 6 ]
check "hexes: a Hexahedron grid of /mesh/hexes" grep -q 'TopologyType="Hexahedron" NumberOfElements="2"' "$WORK/hex.xmf"
check "mesh: the level field" grep -qx level "$WORK/s2.names"
check "tets: the region field" grep -qx region "$WORK/m.names"
m=$(h5 "$WORK/gf.h5" "f['gf/col_vertex'].shape[0]")
check "gf of $m > 64 columns: the first 8 shown by default, displacement and traction apart" \
    [ "$(grep -c '^xi .* displacement$' "$WORK/gf.names") $(grep -c '^xi .* traction$' "$WORK/gf.names")" = "24 24" ]
m1=$(h5 "$WORK/gf1.h5" "f['gf/col_vertex'].shape[0]")
check "gf of $m1 <= 64 columns: all shown" [ "$(grep -c '^xi .* displacement$' "$WORK/gf1.names")" = $((3 * m1)) ]
check "... each an XDMF 3 Function of its /gf/xi row and /gf/row_fixed (issue 45: m and Pa apart)" \
    [ "$(grep -c '<Function Expression="X\*((1-F)#((1-F)#(1-F)))" VariableNames="X|F"' "$WORK/gf1.xmf") $(grep -c '<Function Expression="X\*(F#(F#F))"' "$WORK/gf1.xmf")" = "$((3 * m1)) $((3 * m1))" ]
check "gf-wavelet: the mesh only" [ "$(grep -c '^xi ' "$WORK/w.names")" = 0 ]
check "tet GFs on the surface grid (boundary numbered first)" grep -q "gft.h5:/mesh/vertices|0 0:1 1:" "$WORK/gft.gf.xmf"
"$BIN/moddesc" -q $BEAM -k 2 -r 2 -o "$WORK/gft.h5"
check "a stale sidecar (gft.gf.xmf of the GF file once there) goes with the new file; the others are new" \
    sh -c "[ ! -e '$WORK/gft.gf.xmf' ] && grep -q 'Name=\"mode 1 ' '$WORK/gft.xmf' && grep -q 'kind \"modes\"' '$WORK/gft.surface.xmf'"
echo '<?xml version="1.0" ?><!-- mine -->' >"$WORK/m.gf.xmf"
"$BIN/moddesc" -q $BEAM -k 4 -r 6 -o "$WORK/m.h5"
check "a file at a sidecar's name that is not one stays" grep -q mine "$WORK/m.gf.xmf"
rm -f "$WORK/m.gf.xmf"

"$BIN/bemsolve" -q "$WORK/s2.h5" -E 1e5 --nu 0.3 --xdmf-columns 0,5-6,9999 -o "$WORK/gfc.h5"
$X "$WORK/gfc.xmf" >"$WORK/gfc.names"
check "--xdmf-columns 0,5-6,9999: columns 0, 5, 6 (past the last: left out)" \
    [ "$(grep '^xi ' "$WORK/gfc.names" | cut -d' ' -f2 | uniq | tr '\n' ' ')" = "0 5 6 " ]
"$BIN/bemsolve" -q "$WORK/s2.h5" -E 1e5 --nu 0.3 --xdmf-columns all -o "$WORK/gfa.h5"
check "--xdmf-columns all: every column" [ "$($X "$WORK/gfa.xmf" | grep -c '^xi ')" = $((6 * m)) ]
"$BIN/moddesc" -q $BEAM -k 2 -r 2 --no-xdmf -o "$WORK/nx.h5"
check "--no-xdmf: no sidecar" sh -c "[ -f '$WORK/nx.h5' ] && [ ! -e '$WORK/nx.xmf' ] && [ ! -e '$WORK/nx.surface.xmf' ]"
"$BIN/loopsub" -q $D/icosahedron.obj -l 1 -o "$WORK/plain.off"
check "a plain output (.off) has no sidecar" [ ! -e "$WORK/plain.off.xmf" ]

expect_fail "--xdmf-columns: a bad list" 2 "option --xdmf-columns: expected \"all\" or positions" \
    bemsolve "$WORK/s2.h5" -E 1e5 --nu 0.3 --xdmf-columns 3,x -o "$WORK/out/g.h5"
expect_fail "--xdmf-columns: a reversed range" 2 "option --xdmf-columns: bad range" \
    bemsolve "$WORK/s2.h5" -E 1e5 --nu 0.3 --xdmf-columns 7-2 -o "$WORK/out/g.h5"
rm -rf "$WORK/out" && mkdir -p "$WORK/out/g.xmf"
"$BIN/moddesc" $BEAM -k 2 -r 2 -o "$WORK/out/g.h5" >"$WORK/stdout" 2>"$WORK/stderr"
got=$?
check "sidecar name is a directory: exit 4 before any work (got $got)" [ $got -eq 4 ]
check "sidecar name is a directory: the message names it" grep -q "^moddesc: .*g.xmf: is a directory" "$WORK/stderr"
check "sidecar name is a directory: no output, no temporary" [ "$(ls -A "$WORK/out")" = g.xmf ]
rm -rf "$WORK/out" && mkdir -p "$WORK/out/g.surface.xmf"
"$BIN/moddesc" $BEAM -k 2 -r 2 -o "$WORK/out/g.h5" >"$WORK/stdout" 2>"$WORK/stderr"
got=$?
check "the surface sidecar's name is a directory: exit 4 before any work, the message names it (got $got)" \
    sh -c "[ $got -eq 4 ] && grep -q '^moddesc: .*g.surface.xmf: is a directory' '$WORK/stderr' && [ \"\$(ls -A '$WORK/out')\" = g.surface.xmf ]"
rm -rf "$WORK/out" && mkdir -p "$WORK/out"
(ulimit -f 8; "$BIN/bemsolve" -q "$WORK/s2.h5" -E 1e5 --nu 0.3 -o "$WORK/out/g.h5" 2>/dev/null)
check "an output that cannot be written leaves no sidecar" [ -z "$(ls -A "$WORK/out")" ]
finish
