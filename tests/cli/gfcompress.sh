#!/bin/sh
# gfcompress: compressed columns reconstructed by an independent synthesis
# (gfcheck.py wavelet), errors of the order of eps and monotone, hierarchical
# GFs against the FEM relation with hat loads, the hierarchy of a tet mesh's
# surface, the plot, and bad input.  The transforms themselves are tested in
# tests/unit/test_wavelet.c.
. "$(dirname "$0")/common"
D=data
PY=/usr/bin/python3
GFCHECK="$(dirname "$0")/gfcheck.py"

"$BIN/loopsub" -q $D/icosahedron.obj -l 3 --fixed-box -2,-2,-2,2,2,-0.6 -o "$WORK/s3.h5"
"$BIN/bemsolve" -q "$WORK/s3.h5" -E 1e5 --nu 0.3 -o "$WORK/gf.h5"

# eps = 0 keeps every block; the file alone reproduces Xi (to its float32 storage).
"$BIN/gfcompress" "$WORK/gf.h5" --eps 0 -o "$WORK/w0.h5" >"$WORK/summary"
check "summary: errors, kept blocks, compression" grep -Eq "lifted linear wavelets, 4 levels, eps 0: RMS error .*, 380706 of 380706 blocks kept \(x1.0\)" "$WORK/summary"
check "kind gf-wavelet, every block kept, float32 [nnzb][3][3] blocks" [ "$(h5 "$WORK/w0.h5" "f.attrs['kind'], int(f['gf'].attrs['nnz_blocks']), f['gf/blocks'].shape, f['gf/blocks'].dtype, f['gf/colptr'].shape")" = "gf-wavelet 380706 (380706, 3, 3) float32 (594,)" ]
check "carries mesh, material and constraints" [ "$(h5 "$WORK/w0.h5" "'level' in f['mesh'], float(f['material'].attrs['E']), len(f['constraints/fixed'])")" = "True 100000.0 49" ]
check "eps 0: independent reconstruction equals Xi to float32 round-off" $PY "$GFCHECK" wavelet "$WORK/gf.h5" "$WORK/w0.h5" 1e-6

# RMS error monotone in eps and of the order of eps (000 eq. 3.52, C ~ 1).
"$BIN/gfcompress" "$WORK/gf.h5" --sweep 0.01,0.02,0.05,0.1,0.2 >"$WORK/table"
check "--sweep prints one row per threshold" [ "$(grep -vc '^#' "$WORK/table")" = 5 ]
check "--sweep: RMS error rises with eps, stays within [0.1, 1.5] eps; compression rises" $PY -c "
import numpy as np
t = np.loadtxt('$WORK/table')
eps, rms, comp = t[:, 0], t[:, 1], t[:, 4]
print(np.c_[eps, rms / eps, comp])
raise SystemExit(0 if (np.diff(rms) > 0).all() and (rms / eps > 0.1).all() and (rms / eps < 1.5).all() and (np.diff(comp) > 0).all() else 1)"
for opt in "--eps 0.05" "--eps 0.1 --wavelet butterfly" "--eps 0.05 --unlifted" "--eps 0.05 --threshold-base"; do
    # shellcheck disable=SC2086
    "$BIN/gfcompress" -q "$WORK/gf.h5" $opt -o "$WORK/w.h5"
    check "$opt: independent reconstruction matches the stored rms_error" $PY "$GFCHECK" wavelet "$WORK/gf.h5" "$WORK/w.h5" 0.15
done
check "compression attribute = dense blocks / kept blocks" [ "$(h5 "$WORK/w.h5" "abs(f['gf'].attrs['compression'] * f['gf'].attrs['nnz_blocks'] / ((len(f['gf/colptr']) - 1) * len(f['gf/row_vertex'])) - 1) < 1e-12")" = True ]
"$BIN/gfcompress" -q "$WORK/gf.h5" --eps 0.05 -o "$WORK/w05.h5"
check "the written file's errors are the sweep's row for its eps" [ "$(h5 "$WORK/w05.h5" "'%.6g %.6g' % (f['gf'].attrs['rms_error'], f['gf'].attrs['max_error'])")" = "$(awk '$1 == 0.05 {print $2, $3}' "$WORK/table")" ]

"$BIN/gfcompress" -q "$WORK/gf.h5" --sweep 0.01,0.1 --plot "$WORK/sweep.png" >/dev/null
check "--plot draws a PNG" sh -c "head -c 8 '$WORK/sweep.png' | od -c | grep -q 'P   N   G'"

# Hierarchical GFs of a tet model of the loopsub surface (TetGen keeps the
# surface vertices): level-l hat loads satisfy femcondense's S u_b = M_s p.
"$BIN/loopsub" -q $D/icosahedron.obj -l 2 -o "$WORK/s2.h5"
"$BIN/loopsub" -q "$WORK/s2.h5" -l 0 -o "$WORK/s2.off"
(cd "$WORK" && tetgen -pYqQ s2.off >/dev/null)
"$BIN/femcondense" -q "$WORK/s2.1.ele" --fixed-box -2,-2,-2,2,2,-0.6 -E 1e5 --nu 0.3 --condensed -o "$WORK/gft.h5"
for l in 0 1; do
    "$BIN/gfcompress" "$WORK/gft.h5" --hierarchy "$WORK/s2.h5" --constraint-level $l -o "$WORK/gfl$l.h5" >"$WORK/summary"
    check "level $l: GF columns at the level-$l vertices only" grep -q "of level-$l hat constraints" "$WORK/summary"
    check "level $l: hat-load columns solve S u_b = M_s p" $PY "$GFCHECK" hierarchical "$WORK/gft.h5" "$WORK/gfl$l.h5" "$WORK/s2.h5" 1e-10
done
base=$(h5 "$WORK/s2.h5" "int(((f['mesh/level'][:] == 0) & (f['mesh/vertices'][:, 2] >= -0.6)).sum())")
check "level 0: a column per free base vertex ($base), kind gf, constraint_level attribute" [ "$(h5 "$WORK/gfl0.h5" "f.attrs['kind'], f['gf/xi'].shape[0] // 3, int(f['gf'].attrs['constraint_level'])")" = "gf $base 0" ]
"$BIN/gfcompress" -q "$WORK/gft.h5" --hierarchy "$WORK/s2.h5" --eps 0.02 -o "$WORK/wt.h5"
check "a tet model's GFs compress with the surface's hierarchy" $PY "$GFCHECK" wavelet "$WORK/gft.h5" "$WORK/wt.h5" 0.05

# --- bad input ------------------------------------------------------------------
O="$WORK/out/w.h5"
"$BIN/bemsolve" -q "$WORK/s2.h5" --elements constant -E 1e5 --nu 0.3 --fixed-box -2,-2,-2,2,2,-0.6 -o "$WORK/gfc.h5"
cp "$WORK/gf.h5" "$WORK/trunc.h5" && truncate -s 20000 "$WORK/trunc.h5"
expect_fail "GFs without level data" 3 "no level data.*loopsub" gfcompress "$WORK/gft.h5" -o "$O"
expect_fail "a hierarchy of another mesh" 3 "mismatched mesh" gfcompress "$WORK/gft.h5" --hierarchy "$WORK/s3.h5" -o "$O"
expect_fail "wrong kind (a mesh file)" 3 "kind is \"mesh\", expected \"gf\"" gfcompress "$WORK/s3.h5" -o "$O"
expect_fail "wrong kind (already compressed)" 3 "kind is \"gf-wavelet\"" gfcompress "$WORK/w0.h5" -o "$O"
expect_fail "constant-element GFs" 3 "entity triangle" gfcompress "$WORK/gfc.h5" -o "$O"
expect_fail "a truncated file" 3 "gf.h5|trunc.h5" gfcompress "$WORK/trunc.h5" -o "$O"
expect_fail "negative eps" 2 "--eps" gfcompress "$WORK/gf.h5" --eps -1 -o "$O"
expect_fail "unknown wavelet" 2 "expected linear or butterfly" gfcompress "$WORK/gf.h5" --wavelet haar -o "$O"
expect_fail "no output and no sweep" 2 "no output" gfcompress "$WORK/gf.h5"
expect_fail "--plot without --sweep" 2 "give --sweep" gfcompress "$WORK/gf.h5" --plot "$WORK/out/p.png" -o "$O"
expect_fail "a constraint level above the finest" 2 "levels 0..3" gfcompress "$WORK/gf.h5" --constraint-level 5 -o "$O"
finish
