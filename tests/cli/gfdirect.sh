#!/bin/sh
# GFs of large models without the dense matrix (issue 16): femcondense and
# bemsolve compress each block of solved columns at once (--wavelet) and
# solve the hat loads of hierarchical constraints directly
# (--constraint-level).  Each direct file must equal the dense solve followed
# by gfcompress with the same options (same kept blocks, float32 values, the
# same error attributes); a hierarchical column must satisfy the FEM
# relation S u_b = M_s p with its coarse hat load (the condensed stiffness:
# an independent factorization); rtcheck runs on both kinds; bad input.
. "$(dirname "$0")/common"
D=data
PY=/usr/bin/python3
GFCHECK="$(dirname "$0")/gfcheck.py"
FIX="--fixed-box -2,-2,-2,2,2,-0.6"
MAT="-E 1e5 --nu 0.3"

# FEM: a tet model of a 2-level loopsub surface (TetGen keeps its vertices).
"$BIN/loopsub" -q $D/icosahedron.obj -l 2 $FIX -o "$WORK/s2.h5"
"$BIN/loopsub" -q "$WORK/s2.h5" -l 0 -o "$WORK/s2.off"
(cd "$WORK" && tetgen -pYqQ s2.off >/dev/null)
T="$WORK/s2.1.ele"
# shellcheck disable=SC2086
"$BIN/femcondense" -q "$T" $FIX $MAT --condensed -o "$WORK/fem.h5"
# BEM: the surface itself.
# shellcheck disable=SC2086
"$BIN/bemsolve" -q "$WORK/s2.h5" $MAT -o "$WORK/bem.h5"

for w in linear butterfly; do
    for lift in "" --unlifted; do
        # shellcheck disable=SC2086
        "$BIN/gfcompress" -q "$WORK/fem.h5" --hierarchy "$WORK/s2.h5" --wavelet $w $lift --eps 0.05 -o "$WORK/ref.h5"
        # shellcheck disable=SC2086
        "$BIN/femcondense" "$T" $FIX $MAT --wavelet $w $lift --eps 0.05 --hierarchy "$WORK/s2.h5" -o "$WORK/d.h5" >"$WORK/summary"
        check "femcondense --wavelet $w $lift equals femcondense -> gfcompress" $PY "$GFCHECK" same "$WORK/d.h5" "$WORK/ref.h5" 1e-6
        # shellcheck disable=SC2086
        "$BIN/gfcompress" -q "$WORK/bem.h5" --wavelet $w $lift --eps 0.05 -o "$WORK/ref.h5"
        # shellcheck disable=SC2086
        "$BIN/bemsolve" -q "$WORK/s2.h5" $MAT --wavelet $w $lift --eps 0.05 -o "$WORK/d.h5"
        check "bemsolve --wavelet $w $lift equals bemsolve -> gfcompress" $PY "$GFCHECK" same "$WORK/d.h5" "$WORK/ref.h5" 1e-6
    done
done
check "femcondense --wavelet reports the errors and compression on the fly" \
    grep -Eq "femcondense: .*d.h5: unlifted butterfly wavelets, 3 levels, eps 0.05: RMS error .*% \(free rows .*%\), MAX error .*%, [0-9]+ of 23814 blocks kept" "$WORK/summary"
check "a gf-wavelet file written as solved carries the model" \
    [ "$(h5 "$WORK/d.h5" "f.attrs['kind'], float(f['material'].attrs['E']), len(f['constraints/fixed'])")" = "gf-wavelet 100000.0 15" ]

for l in 0 1; do
    "$BIN/gfcompress" -q "$WORK/fem.h5" --hierarchy "$WORK/s2.h5" --constraint-level $l -o "$WORK/ref$l.h5"
    # shellcheck disable=SC2086
    "$BIN/femcondense" "$T" $FIX $MAT --constraint-level $l --hierarchy "$WORK/s2.h5" -o "$WORK/fl$l.h5" >"$WORK/summary"
    check "femcondense --constraint-level $l: only the level-$l hat loads are solved" grep -q "hat-load columns" "$WORK/summary"
    check "femcondense --constraint-level $l equals gfcompress --constraint-level $l" $PY "$GFCHECK" same "$WORK/fl$l.h5" "$WORK/ref$l.h5" 1e-9
    check "femcondense --constraint-level $l: each column is the displacement of its hat load (S u_b = M_s p)" \
        $PY "$GFCHECK" hierarchical "$WORK/fem.h5" "$WORK/fl$l.h5" "$WORK/s2.h5" 1e-10
    "$BIN/gfcompress" -q "$WORK/bem.h5" --constraint-level $l -o "$WORK/ref.h5"
    # shellcheck disable=SC2086
    "$BIN/bemsolve" -q "$WORK/s2.h5" $MAT --constraint-level $l -o "$WORK/bl$l.h5"
    check "bemsolve --constraint-level $l equals gfcompress --constraint-level $l" $PY "$GFCHECK" same "$WORK/bl$l.h5" "$WORK/ref.h5" 1e-9
done
check "level 1: a column per free vertex of level <= 1, constraint_level attribute" \
    [ "$(h5 "$WORK/fl1.h5" "f['gf/xi'].shape[0] // 3, int(f['gf'].attrs['constraint_level'])")" = "$(h5 "$WORK/s2.h5" "int(((f['mesh/level'][:] <= 1) & (f['mesh/vertices'][:, 2] >= -0.6)).sum())") 1" ]

# Both forms at once: the hierarchical GFs compressed as they are solved.
"$BIN/gfcompress" -q "$WORK/ref1.h5" --hierarchy "$WORK/s2.h5" --eps 0.05 -o "$WORK/ref.h5"
# shellcheck disable=SC2086
"$BIN/femcondense" -q "$T" $FIX $MAT --constraint-level 1 --wavelet linear --eps 0.05 --hierarchy "$WORK/s2.h5" -o "$WORK/flw.h5"
check "--constraint-level 1 --wavelet equals the two gfcompress steps" $PY "$GFCHECK" same "$WORK/flw.h5" "$WORK/ref.h5" 1e-6

# The runtime on the files written directly: contacts at level-1 vertices of
# a hierarchical file, and the capacitance algorithm on wavelet columns.
# shellcheck disable=SC2086
"$BIN/bemsolve" -q "$WORK/s2.h5" $MAT --wavelet linear --eps 0.02 -o "$WORK/bw.h5"
check "rtcheck on bemsolve --wavelet (against the dense GFs)" "$BIN/rtcheck" -q "$WORK/bw.h5" --reference "$WORK/bem.h5" --contacts 6 --trials 4
"$BIN/rtcheck" "$WORK/fl1.h5" --contacts 6 --trials 4 >"$WORK/rt"
check "rtcheck on femcondense --constraint-level 1: its checks pass" [ $? = 0 ]
check "rtcheck on a hierarchical file: contacts at the level-1 vertices" grep -q "hierarchical constraints at level = 1" "$WORK/rt"
check "rtcheck on femcondense --constraint-level 1 --wavelet" "$BIN/rtcheck" -q "$WORK/flw.h5" --contacts 6 --trials 4

# --- bad input ------------------------------------------------------------------
O="$WORK/out/gf.h5"
"$BIN/loopsub" -q "$WORK/s2.h5" -l 0 -o "$WORK/s2.obj"
"$BIN/loopsub" -q $D/icosahedron.obj -l 3 $FIX -o "$WORK/s3.h5"
# shellcheck disable=SC2086
expect_fail "--wavelet on a surface without subdivision connectivity" 3 "s2.obj: the mesh has no level data" bemsolve "$WORK/s2.obj" $MAT $FIX --wavelet linear -o "$O"
# shellcheck disable=SC2086
expect_fail "--wavelet on a tet mesh without levels" 3 "no level data.*--hierarchy" femcondense "$T" $MAT $FIX --wavelet linear -o "$O"
# shellcheck disable=SC2086
expect_fail "a level beyond the surface's" 3 "constraint-level 3: the hierarchy has levels 0..2" bemsolve "$WORK/s2.h5" $MAT --constraint-level 3 -o "$O"
# shellcheck disable=SC2086
expect_fail "a hierarchy whose positions do not match" 3 "mismatched mesh" femcondense "$T" $MAT $FIX --wavelet linear --hierarchy "$WORK/s3.h5" -o "$O"
# shellcheck disable=SC2086
expect_fail "eps < 0 (an option value, as gfcompress)" 2 "option --eps: expected a threshold >= 0" femcondense "$T" $MAT $FIX --wavelet linear --eps -0.1 -o "$O"
# shellcheck disable=SC2086
expect_fail "--eps without --wavelet" 2 "go with --wavelet" bemsolve "$WORK/s2.h5" $MAT --eps 0.1 -o "$O"
# shellcheck disable=SC2086
expect_fail "--single with --wavelet" 2 "float32 already" bemsolve "$WORK/s2.h5" $MAT --wavelet linear --single -o "$O"
# shellcheck disable=SC2086
expect_fail "--constraint-level with a column selection" 2 "no column selection" femcondense "$T" $MAT $FIX --constraint-level 0 --columns all --hierarchy "$WORK/s2.h5" -o "$O"
# shellcheck disable=SC2086
expect_fail "--wavelet with constant elements" 3 "constant elements" bemsolve "$WORK/s2.h5" $MAT --elements constant --wavelet linear -o "$O"
# split runs of hat-load columns (epmerge(1)): a part is a range of the
# columns the run solves, /gf/col_area included; merged, the single run bit for bit
for tool in femcondense bemsolve; do
    if [ $tool = femcondense ]; then IN="$T $FIX --hierarchy $WORK/s2.h5"; else IN="$WORK/s2.h5"; fi
    # shellcheck disable=SC2086
    "$BIN/$tool" -q $IN $MAT --constraint-level 1 --block 5 -o "$WORK/cl.h5"
    for i in 0 1 2; do
        # shellcheck disable=SC2086
        "$BIN/$tool" -q $IN $MAT --constraint-level 1 --block 5 --part $i/3 -o "$WORK/clp.$i.h5"
    done
    "$BIN/epmerge" -q "$WORK"/clp.[0-2].h5 -o "$WORK/clm.h5"
    check "$tool --constraint-level 1 in 3 parts: merged, the single run bit for bit" $PY tests/cli/partcheck.py "$WORK/cl.h5" "$WORK/clm.h5"
done
# shellcheck disable=SC2086
expect_fail "femcondense --part with --wavelet" 2 "--part and --wavelet exclude each other" femcondense "$T" $MAT $FIX --wavelet linear --hierarchy "$WORK/s2.h5" --part 0/2 -o "$O"
# shellcheck disable=SC2086
expect_fail "bemsolve --part with --wavelet" 2 "--part and --wavelet exclude each other" bemsolve "$WORK/s2.h5" $MAT --wavelet linear --part 1/2 -o "$O"
finish
