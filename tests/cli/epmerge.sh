#!/bin/sh
# epmerge and --part: for every splittable tool and N in 1, 2, 3, 7 the merged
# parts equal the single run (bit for bit; coefficients to 1e-13), parts of
# another run are refused naming them, and an interrupted merge leaves nothing.
. "$(dirname "$0")/common"
D=data
C="/usr/bin/python3 $PWD/tests/cli/partcheck.py"
E="$BIN/epmerge"

# split NAME TOOL N ARGS...: parts NAME.I.h5 of TOOL ARGS, merged into NAME.N.h5
split() {
    name=$1 tool=$2 n=$3
    shift 3
    i=0
    while [ $i -lt "$n" ]; do
        "$BIN/$tool" -q "$@" --part $i/"$n" -o "$WORK/$name.$i.h5" || return 1
        i=$((i + 1))
    done
    "$E" -q "$WORK"/"$name".[0-9]*.h5 -o "$WORK/$name.$n.h5"
}

FC="$D/cube.msh --fixed-region bottom -E 1e6 --nu 0.3"
"$BIN/femcondense" -q $FC --condensed -o "$WORK/fc.h5"
"$BIN/femcondense" -q $FC --block 5 -o "$WORK/fc5.h5"
"$BIN/loopsub" -q $D/icosahedron.obj -l 3 -o "$WORK/ico3.h5"
BS="$WORK/ico3.h5 --fixed-box -2,-2,-2,2,2,-0.5 -E 2e5 --nu 0.3"
"$BIN/bemsolve" -q $BS -o "$WORK/bs.h5"
MD="$D/cube.msh --fixed-region bottom -E 1e6 --nu 0.3 --rho 1000 -k 6 -r 10 --block 2"
"$BIN/moddesc" -q $MD -o "$WORK/md.h5"
"$BIN/polycoef" -q "$WORK/md.h5" -r 6 --split-material -o "$WORK/pc.h5"
for n in 1 2 3 7; do
    rm -f "$WORK"/fcp.* "$WORK"/fc5p.* "$WORK"/bsp.* "$WORK"/mdp.* "$WORK"/pcp.*
    split fcp femcondense $n $FC --condensed && check "femcondense, $n parts (blocks of 64): the single run bit for bit" $C "$WORK/fc.h5" "$WORK/fcp.$n.h5"
    split fc5p femcondense $n $FC --block 5 && check "femcondense --block 5, $n parts: the single run bit for bit" $C "$WORK/fc5.h5" "$WORK/fc5p.$n.h5"
    split bsp bemsolve $n $BS && check "bemsolve, $n parts: the single run bit for bit" $C "$WORK/bs.h5" "$WORK/bsp.$n.h5"
    # part 0 computes the modes, the others read them from its file
    "$BIN/moddesc" -q $MD --part 0/$n -o "$WORK/mdp.0.h5"
    i=1
    while [ $i -lt $n ]; do "$BIN/moddesc" -q $MD --modes "$WORK/mdp.0.h5" --part $i/$n -o "$WORK/mdp.$i.h5"; i=$((i + 1)); done
    "$E" -q "$WORK"/mdp.[0-9]*.h5 -o "$WORK/mdp.$n.h5"
    check "moddesc, $n parts (modes shared): derivatives and basis bit for bit" $C "$WORK/md.h5" "$WORK/mdp.$n.h5"
    split pcp polycoef $n "$WORK/md.h5" -r 6 --split-material && check "polycoef, $n parts: coefficients to 1e-13" $C "$WORK/pc.h5" "$WORK/pcp.$n.h5" 1e-13
done
# parts on machines of different sizes: each factors K itself (supernodal.h:
# the same factor on any thread count) and solves its blocks
OMP_NUM_THREADS=1 "$BIN/femcondense" -q $FC --condensed --part 0/2 -o "$WORK/fct.0.h5"
OMP_NUM_THREADS=2 "$BIN/femcondense" -q $FC --condensed --part 1/2 -o "$WORK/fct.1.h5"
"$E" -q "$WORK"/fct.[01].h5 -o "$WORK/fct.2.h5"
check "femcondense, 2 parts on 1 and 2 threads: the single run bit for bit" $C "$WORK/fc.h5" "$WORK/fct.2.h5"
# the same for moddesc on voxels whose top supernode is big enough to be factored
# in tiles (EP_SUPERNODAL_BIG columns or more)
"$BIN/voxelize" -q $D/models/asianDragon/asianDragon.obj -R 56 --largest -E 1e6 --nu 0.3 --rho 1000 -o "$WORK/v56.h5"
MV="$WORK/v56.h5 --free -k 6 -r 10"
"$BIN/moddesc" -q $MV -o "$WORK/mv.h5"
OMP_NUM_THREADS=1 "$BIN/moddesc" -q $MV --part 0/2 -o "$WORK/mvt.0.h5"
OMP_NUM_THREADS=2 "$BIN/moddesc" -q $MV --modes "$WORK/mvt.0.h5" --part 1/2 -o "$WORK/mvt.1.h5"
"$E" -q "$WORK"/mvt.[01].h5 -o "$WORK/mvt.2.h5"
check "moddesc --free on voxels, 2 parts on 1 and 2 threads: the single run bit for bit" $C "$WORK/mv.h5" "$WORK/mvt.2.h5"
OMP_NUM_THREADS=1 "$BIN/moddesc" -q $MV -o "$WORK/mv1.h5"
check "moddesc --free on voxels on 1 thread: the run on all threads bit for bit, basis included" $C "$WORK/mv.h5" "$WORK/mv1.h5"
# a basis of 64 vectors or more: LAPACK's dpotrf runs threaded from n = 64
for j in 1 2; do
    "$BIN/moddesc" -q data/beam-h0.05.msh --free -k 14 -r 100 -E 1e6 --nu 0.3 --rho 1000 -j $j -o "$WORK/mr$j.h5"
done
check "moddesc --free -r 100 on 1 thread and on 2: the same bits, basis included" $C "$WORK/mr1.h5" "$WORK/mr2.h5"
check "a part is an ordinary gf file with /part" [ "$(h5 "$WORK/fcp.1.h5" "f.attrs['kind'], f['gf/xi'].shape[0] == 3 * len(f['gf/col_vertex']), f['part'].attrs['index'], f['part'].attrs['count'], f['part'].attrs['unit'], len(f['part'].attrs['hash'])")" = "gf True 1 7 columns 64" ]
check "an empty part (7 parts of 4 blocks) holds no column" [ "$(h5 "$WORK/fcp.0.h5" "f['gf/xi'].shape[0], f['part'].attrs['lo'], f['part'].attrs['hi']")" = "0 0 0" ]

# --- virtual datasets ---------------------------------------------------------------
split fcv femcondense 3 $FC --condensed
mkdir "$WORK/sub"
"$E" -q --virtual "$WORK"/fcv.[0-2].h5 -o "$WORK/fcv-virtual.h5"
check "--virtual: the single run's file, read through the parts" $C "$WORK/fc.h5" "$WORK/fcv-virtual.h5"
check "--virtual: /gf/xi is a virtual dataset over 3 sources" [ "$(h5 "$WORK/fcv-virtual.h5" "f['gf/xi'].is_virtual, len(f['gf/xi'].virtual_sources())")" = "True 3" ]
"$E" -q --virtual "$WORK"/bsp.[0-6].h5 -o "$WORK/bsp-virtual.h5"
"$BIN/gfcompress" -q "$WORK/bsp-virtual.h5" --eps 1e-3 -o "$WORK/v.gfw.h5"
"$BIN/gfcompress" -q "$WORK/bs.h5" --eps 1e-3 -o "$WORK/s.gfw.h5"
check "--virtual: gfcompress reads it as it reads the single run's" [ "$(h5 "$WORK/v.gfw.h5" "f['gf/blocks'][:].tobytes() == __import__('h5py').File('$WORK/s.gfw.h5')['gf/blocks'][:].tobytes()")" = True ]
"$E" -q --virtual "$WORK"/fcv.[0-2].h5 -o "$WORK/sub/elsewhere.h5"
check "--virtual in another folder: parts named by absolute path, read from anywhere" sh -c "cd / && $C '$WORK/fc.h5' '$WORK/sub/elsewhere.h5' >/dev/null"

# --- refusals: exit 3 naming the parts -------------------------------------------------
O="$WORK/out/m.h5"
"$BIN/femcondense" -q $D/cube-tetgen.node --fixed-box -9,-9,-9,9,9,0.01 -E 1e6 --nu 0.3 --condensed --part 2/3 -o "$WORK/mesh.h5"
"$BIN/femcondense" -q $D/cube.msh --fixed-region bottom -E 2e6 --nu 0.3 --condensed --part 2/3 -o "$WORK/mat.h5"
"$BIN/femcondense" -q $FC --condensed --traction lumped --part 2/3 -o "$WORK/opt.h5"
cp "$WORK/fcv.2.h5" "$WORK/version.h5"
/usr/bin/python3 -c "import h5py; f = h5py.File('$WORK/version.h5', 'r+'); f.attrs['creator'] = 'femcondense 0.0.9'"
expect_fail "another mesh refused" 3 "mesh.h5: not a part of the run of .*fcv.0.h5 \(different mesh, material, options or tool version\)" epmerge "$WORK/fcv.0.h5" "$WORK/fcv.1.h5" "$WORK/mesh.h5" -o "$O"
expect_fail "another material refused" 3 "mat.h5: not a part of the run" epmerge "$WORK/fcv.0.h5" "$WORK/fcv.1.h5" "$WORK/mat.h5" -o "$O"
expect_fail "another option refused" 3 "opt.h5: not a part of the run" epmerge "$WORK/fcv.0.h5" "$WORK/fcv.1.h5" "$WORK/opt.h5" -o "$O"
expect_fail "another tool version refused" 3 "version.h5: made by femcondense 0.0.9, .*fcv.0.h5 by femcondense 0.1.0" epmerge "$WORK/fcv.0.h5" "$WORK/fcv.1.h5" "$WORK/version.h5" -o "$O"
expect_fail "another tool refused" 3 "made by bemsolve" epmerge "$WORK/fcv.0.h5" "$WORK/bsp.0.h5" -o "$O"
expect_fail "parts of another count refused" 3 "fcp.1.h5: a part of 7, .*fcv.0.h5 a part of 3" epmerge "$WORK/fcv.0.h5" "$WORK/fcp.1.h5" -o "$O"
expect_fail "a missing part named" 3 "part 1 of 3 missing" epmerge "$WORK/fcv.0.h5" "$WORK/fcv.2.h5" -o "$O"
expect_fail "missing parts named" 3 "parts 0, 2 of 3 missing" epmerge "$WORK/fcv.1.h5" -o "$O"
expect_fail "a duplicated part named" 3 "fcv.1.h5 and .*fcv.1.h5: both part 1 of 3" epmerge "$WORK/fcv.0.h5" "$WORK/fcv.1.h5" "$WORK/fcv.1.h5" "$WORK/fcv.2.h5" -o "$O"
expect_fail "a file made without --part" 3 "fc.h5: no /part: not a part file" epmerge "$WORK/fcv.0.h5" "$WORK/fc.h5" -o "$O"
expect_fail "--part out of range" 2 "option --part: 3/3: need 0 <= I < N" femcondense $FC --part 3/3 -o "$O"
expect_fail "--part malformed" 2 "option --part: expected I/N" polycoef "$WORK/md.h5" --part 1 -o "$O"
expect_fail "--modes of another model" 3 "modes of another model" moddesc $D/cube.msh --fixed-region bottom -E 2e6 --nu 0.3 --rho 1000 --modes "$WORK/md.h5" --part 1/2 -o "$O"
# a free-flying model's parts read the modes too (its rigid modes are the model's own)
MF="$D/cube.msh --free -E 1e6 --nu 0.3 --rho 1000 -k 6 -r 10 --block 2"
"$BIN/moddesc" -q $MF -o "$WORK/mf.h5"
"$BIN/moddesc" -q $MF --part 0/3 -o "$WORK/mfp.0.h5"
for i in 1 2; do "$BIN/moddesc" -q $MF --modes "$WORK/mfp.0.h5" --part $i/3 -o "$WORK/mfp.$i.h5"; done
"$E" -q "$WORK"/mfp.[0-2].h5 -o "$WORK/mfp.h5"
check "moddesc --free, 3 parts (modes shared): derivatives and basis bit for bit" $C "$WORK/mf.h5" "$WORK/mfp.h5"

# --- make -f scripts/pipeline.mk PARTS=N: the same files as one job per step -----------
for p in "" 2; do
    make -s -j2 -f scripts/pipeline.mk PARTS=$p OUT="$WORK/pl$p" MESH=$D/cube.msh FIXED="--fixed-region bottom" \
        MATERIAL="-E 1e6 --nu 0.3 --rho 1000" MODES="-k 6 -r 10" BIN="$BIN" "$WORK/pl$p/gf-fem.h5" "$WORK/pl$p/cubic.h5" >/dev/null 2>&1
done
check "pipeline PARTS=2: 2 parts of each step, merged" [ "$(cd "$WORK/pl2/parts" && ls ./*.h5 | sed 's|^./||' | tr '\n' ' ')" = "cubic.0.h5 cubic.1.h5 gf-fem.0.h5 gf-fem.1.h5 modes.0.h5 modes.1.h5 " ]
check "pipeline PARTS=2: GFs and modes as one job per step makes them" sh -c "$C '$WORK/pl/gf-fem.h5' '$WORK/pl2/gf-fem.h5' && $C '$WORK/pl/modes.h5' '$WORK/pl2/modes.h5'"
check "pipeline PARTS=2: coefficients to 1e-13" $C "$WORK/pl/cubic.h5" "$WORK/pl2/cubic.h5" 1e-13

# --- an interrupted merge leaves no output --------------------------------------------
rm -rf "$WORK/out" && mkdir "$WORK/out"
(ulimit -f 64; "$E" -q "$WORK"/bsp.[0-6].h5 -o "$WORK/out/full.h5" 2>"$WORK/err"; echo $? >"$WORK/status")
check "a full disk (file-size limit): exit 4, no output, no temporary" [ "$(cat "$WORK/status")" = 4 -a -z "$(ls -A "$WORK/out")" ]
"$E" -q "$WORK"/bsp.[0-6].h5 -o "$WORK/out/sig.h5" &
pid=$!
sleep 0.05
kill -TERM $pid 2>/dev/null
wait $pid
st=$?
left=$(ls -A "$WORK/out")
check "SIGTERM during a merge: nothing left, or the whole file (exit $st)" sh -c "[ -z '$left' ] || { [ $st = 0 ] && $C '$WORK/bs.h5' '$WORK/out/sig.h5' >/dev/null; }"
finish
