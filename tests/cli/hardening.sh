#!/bin/sh
# Hardening of the HDF5 files the tools pass to each other (issue 22): one
# attack per line, each the defect an attacker made of a valid file of one
# kind (tests/cli/h5attack.py), with the status and the one line it must now
# get.  Each check fails on the tools of 7d132f6 (they crashed, allocated
# gigabytes, hung, or passed the file with exit 0).  The output lifecycle's
# classes (3, 4, 8, 12) are tests/cli/output.sh, class 2 tests/cli/rtcheck.sh,
# class 14 tests/unit/test_select.c, HDF5 fuzzing tests/unit/test_fuzz_h5.c.
. "$(dirname "$0")/common"
D=data
O="$WORK/out/o.h5"
A="/usr/bin/python3 $(dirname "$0")/h5attack.py"
BEAM="$D/models/beam3/beam3_tet.veg"
BOU="$D/models/beam3/beam3.bou"

"$BIN/loopsub" -q $D/icosahedron.obj -l 2 --fixed-box -2,-2,-2,2,2,-0.5 -o "$WORK/s.h5"
"$BIN/bemsolve" -q "$WORK/s.h5" -E 1e5 --nu 0.3 -o "$WORK/gf.h5"
"$BIN/gfcompress" -q "$WORK/gf.h5" -o "$WORK/gfw.h5"
"$BIN/moddesc" -q $BEAM --fixed-ids $BOU -E 1e6 --nu 0.3 --rho 1000 -k 4 -r 6 -o "$WORK/m.h5"
"$BIN/polycoef" -q "$WORK/m.h5" -o "$WORK/c.h5"

# --- class 1: a string attribute that is not a scalar ------------------------------
$A attr_array "$WORK/c.h5" "$WORK/a1000.h5" /:kind:1000
$A attr_fixed_array "$WORK/c.h5" "$WORK/a3.h5" /:kind:3
$A attr_array "$WORK/gf.h5" "$WORK/method.h5" /gf:method:2
$A attr_array "$WORK/gfw.h5" "$WORK/wavelet.h5" /gf:wavelet:2
$A attr_array "$WORK/s.h5" "$WORK/format.h5" /:format:1000
expect_fail "class 1: kind as 1000 strings (SIGSEGV)" 3 "a1000.h5: attribute kind of / is not a scalar \(1000 values\)" rtcheck "$WORK/a1000.h5"
expect_fail "class 1: kind as 3 fixed strings (exit 0)" 3 "attribute kind of / is not a scalar \(3 values\)" polycoef "$WORK/a3.h5" -o "$O"
expect_fail "class 1: /gf method as 2 strings" 3 "attribute method of /gf is not a scalar" gfcompress "$WORK/method.h5" -o "$O"
expect_fail "class 1: /gf wavelet as 2 strings" 3 "attribute wavelet of /gf is not a scalar" rtcheck "$WORK/wavelet.h5"
expect_fail "class 1: format as 1000 strings, a mesh input" 3 "attribute format of / is not a scalar" femcondense "$WORK/format.h5" --fixed-box -2,-2,-2,2,2,-0.5 -E 1 --nu 0.3 -o "$O"

# --- class 9: libhdf5 reading a corrupted variable-length string ------------------
$A heap_corrupt "$WORK/c.h5" "$WORK/heap.h5"
$A heap_corrupt "$WORK/s.h5" "$WORK/heap-s.h5"
expect_fail "class 9: a corrupted global heap (SIGSEGV in libhdf5)" 3 "attribute format of / is damaged" rtcheck "$WORK/heap.h5"
expect_fail "class 9: the same in a mesh input" 3 "heap-s.h5: attribute format of / is damaged" loopsub "$WORK/heap-s.h5" -l 1 -o "$O"

# --- class 5: declared extents that the file does not hold ------------------------
$A unallocated "$WORK/s.h5" "$WORK/huge.h5" /mesh/vertices:1000000000000
$A unallocated "$WORK/gfw.h5" "$WORK/huge-w.h5" /gf/blocks:"$(h5 "$WORK/gfw.h5" "len(f['gf/blocks'])")"
check "class 5: the attacked mesh file is small" [ "$(wc -c <"$WORK/huge.h5")" -lt 100000 ]
expect_fail "class 5: 10^12 unwritten vertices (exit 1 'out of memory')" 3 "/mesh/vertices declares 3000000000000 values but stores 0 bytes" rtcheck "$WORK/huge.h5"
expect_fail "class 5: unwritten chunks of the gf-wavelet blocks (read as zeros: 'singular')" 3 "/gf/blocks declares [0-9]+ values but stores 0 bytes" rtcheck "$WORK/huge-w.h5"
expect_fail "class 5: moddesc -k beyond the unknowns" 2 "700 modes asked, the model has [0-9]+ unknowns \(at most [0-9]+ modes\)" moddesc $BEAM --fixed-ids $BOU -E 1e6 --nu 0.3 --rho 1000 -k 700 -r 5 -o "$O"
case $BIN in
*san*) echo "# skipped under sanitizers: moddesc under an address-space cap" ;;
*)  (ulimit -v 4000000; "$BIN/moddesc" -q $BEAM --fixed-ids $BOU -E 1e6 --nu 0.3 --rho 1000 -k 599 -r 5 -o "$O" >"$WORK/stdout" 2>"$WORK/stderr")
    got=$?
    check "class 5: moddesc -k 599 under a 4 GB cap: exit 1 before the work, not SIGSEGV in CHOLMOD (got $got)" sh -c "[ $got -eq 1 ] && grep -q 'need about .* more than the memory' '$WORK/stderr'" ;;
esac

# --- class 6: NaN and empties ------------------------------------------------------
$A set_value "$WORK/m.h5" "$WORK/nan-lam.h5" /modes/eigenvalues:1:nan
$A set_value "$WORK/m.h5" "$WORK/nan-U.h5" /modes/U:5:nan
$A set_value "$WORK/m.h5" "$WORK/nan-B.h5" /basis/U:7:inf
$A set_attr "$WORK/m.h5" "$WORK/nan-rho.h5" /material:rho:nan
$A empty "$WORK/m.h5" "$WORK/no-lam.h5" /modes/eigenvalues
$A empty "$WORK/m.h5" "$WORK/no-basis.h5" /basis/U
$A empty "$WORK/m.h5" "$WORK/no-tets.h5" /mesh/tets
$A replace "$WORK/m.h5" "$WORK/one-tri.h5" /mesh/triangles:0,1,2:3
expect_fail "class 6: NaN eigenvalue (rtcheck said ok)" 3 "/modes/eigenvalues: value is not finite at \[1\]" rtcheck "$WORK/nan-lam.h5"
expect_fail "class 6: NaN in a mode" 3 "/modes/U: value is not finite at \[0\]\[5\]" rtcheck "$WORK/nan-U.h5"
expect_fail "class 6: Inf in the basis" 3 "/basis/U: value is not finite at \[0\]\[7\]" rtcheck "$WORK/nan-B.h5"
expect_fail "class 6: NaN density" 3 "a modes file needs a positive density" rtcheck "$WORK/nan-rho.h5"
expect_fail "class 6: empty /modes/eigenvalues (uninitialised reads)" 3 "/modes/eigenvalues is empty" rtcheck "$WORK/no-lam.h5"
expect_fail "class 6: polycoef on an empty basis" 3 "the basis /basis/U is empty" polycoef "$WORK/no-basis.h5" -o "$O"
expect_fail "class 6: femcondense on an empty /mesh/tets (crash)" 3 "/mesh/tets is empty" femcondense "$WORK/no-tets.h5" --fixed-ids $BOU -E 1 --nu 0.3 -o "$O"
expect_fail "class 6: a tet mesh whose /mesh/triangles is one triangle" 3 "/mesh/triangles holds 1 triangles, the boundary of /mesh/tets [0-9]+" femcondense "$WORK/one-tri.h5" --fixed-ids $BOU -E 1 --nu 0.3 -o "$O"
$A replace "$WORK/m.h5" "$WORK/turned.h5" /mesh/triangles:"$(h5 "$WORK/m.h5" "','.join(str(x) for x in np.concatenate([f['mesh/triangles'][0][::-1], f['mesh/triangles'][1:].ravel()]))")":3
expect_fail "class 6: one boundary triangle turned over" 3 "/mesh/triangles is not the boundary of /mesh/tets" moddesc "$WORK/turned.h5" --fixed-ids $BOU -E 1 --nu 0.3 --rho 1 -k 2 -r 2 -o "$O"

# --- class 7: float32 outputs ------------------------------------------------------
for E in 1e-40 1e40; do
    expect_fail "class 7: femcondense --single with E = $E" 3 "/gf/xi row [0-9]+: largest displacement value .* (exceeds float32's range|underflows float32)" \
        femcondense $BEAM --fixed-ids $BOU -E $E --nu 0.3 --single -o "$O"
done
$A scale "$WORK/gf.h5" "$WORK/gf-small.h5" /gf/xi:1e-30
$A scale "$WORK/gf.h5" "$WORK/gf-big.h5" /gf/xi:1e40
expect_fail "class 7: gfcompress on GFs float32 flushes to zero" 3 "/gf/blocks: .* underflows float32" gfcompress "$WORK/gf-small.h5" -o "$O"
expect_fail "class 7: gfcompress on GFs beyond float32 (inf blocks)" 3 "/gf/blocks: .* exceeds float32's range" gfcompress "$WORK/gf-big.h5" -o "$O"
"$BIN/femcondense" -q $BEAM --fixed-ids $BOU -E 1e6 --nu 0.3 --single -o "$WORK/single.h5"
check "class 7: --single of ordinary units still writes" [ -f "$WORK/single.h5" ]

# --- class 10: a FIFO as input is refused, not waited on --------------------------
mkfifo "$WORK/fifo.h5" "$WORK/fifo.bou" "$WORK/fifo.veg" "$WORK/fifo.mat"
fifo() { # NAME PATTERN TOOL ARGS: as expect_fail, with a timeout for the old hang
    name=$1 pattern=$2
    shift 2
    timeout 20 "$BIN/$@" >/dev/null 2>"$WORK/stderr"
    got=$?
    check "class 10: $name: exit 4 naming the FIFO (got $got: $(head -c 200 "$WORK/stderr"))" \
        sh -c "[ $got -eq 4 ] && [ \$(wc -l <'$WORK/stderr') -eq 1 ] && grep -q '$pattern: is a FIFO, not a regular file' '$WORK/stderr'"
}
fifo ".h5 input" fifo.h5 rtcheck "$WORK/fifo.h5"
fifo "--fixed-ids" fifo.bou femcondense $BEAM --fixed-ids "$WORK/fifo.bou" -E 1 --nu 0.3 -o "$O"
fifo "a mesh" fifo.veg moddesc "$WORK/fifo.veg" --fixed-ids $BOU -E 1 --nu 0.3 --rho 1 -o "$O"
fifo "a material file" fifo.mat femcondense $BEAM --fixed-ids $BOU -m "$WORK/fifo.mat" -o "$O"

# --- class 13: misleading messages and statuses -------------------------------------
/usr/bin/python3 -c "
import h5py, sys, time
f = h5py.File('$WORK/gf.h5', 'r+')  # a writer: libhdf5 locks the file
open('$WORK/locked', 'w').close()
time.sleep(30)" &
holder=$!
k=0
while [ ! -f "$WORK/locked" ] && [ $k -lt 100 ]; do sleep 0.1; k=$((k + 1)); done
expect_fail "class 13: a file a writer holds is locked, not 'damaged or truncated?'" 4 "gf.h5: locked by another process" rtcheck "$WORK/gf.h5"
kill $holder 2>/dev/null
wait $holder 2>/dev/null
$A empty "$WORK/m.h5" "$WORK/nofix.h5" /constraints/fixed
expect_fail "class 13: an empty /constraints/fixed is invalid input, not usage" 3 "/constraints/fixed is empty" femcondense "$WORK/nofix.h5" -E 1 --nu 0.3 -o "$O"
/usr/bin/python3 -c "
import h5py, shutil
for name, edit in (('allfixed', lambda f: f['gf/row_fixed'].__setitem__(slice(None), 1)),
                   ('row-1', lambda f: f['gf/row_vertex'].__setitem__(3, -1)),
                   ('nanpred', lambda f: f['gf/predict_weight'].__setitem__(0, float('nan'))),
                   ('slot8', lambda f: (f.__setitem__('n', len(f['gf/slots'])), f.__delitem__('gf/slots'), f.create_dataset('gf/slots', data=[-128] * len(f['n'][()] * [0]), dtype='i1'))),
                   ('kind', lambda f: f.attrs.__setitem__('kind', 'foo'))):
    src = '$WORK/gf.h5' if name in ('allfixed', 'row-1', 'kind') else '$WORK/gfw.h5'
    shutil.copy(src, '$WORK/%s.h5' % name)
    with h5py.File('$WORK/%s.h5' % name, 'a') as f:
        edit(f)
"
expect_fail "class 13: every GF row fixed is invalid input, not usage" 3 "allfixed.h5: every GF row is fixed" rtcheck "$WORK/allfixed.h5"
expect_fail "class 13: row -1 printed as stored, not 'vertex 0'" 3 "/gf/row_vertex: row 3 holds -1, out of the vertex ids" rtcheck "$WORK/row-1.h5"
expect_fail "class 13: a NaN prediction weight named, not a 'bad slot'" 3 "/gf/predict_weight: value is not finite at \[0\]" rtcheck "$WORK/nanpred.h5"
expect_fail "class 13: int8 slots: the slot and the row it holds" 3 "/gf/slots: slot 0 holds row -128, out of the rows" rtcheck "$WORK/slot8.h5"
expect_fail "class 13: a kind no tool knows, in a tool reading only /mesh" 3 "kind \"foo\" is not an elastoprep kind" femcondense "$WORK/kind.h5" --fixed-box -2,-2,-2,2,2,-0.5 -E 1 --nu 0.3 -o "$O"
/usr/bin/python3 -c "
import h5py, shutil, numpy as np
shutil.copy('$WORK/gf.h5', '$WORK/perm.h5')
with h5py.File('$WORK/perm.h5', 'a') as f:
    n = len(f['gf/row_vertex']); p = np.arange(n)[::-1]
    for k in ('gf/row_vertex', 'gf/row_fixed'): f[k][...] = f[k][()][p]
    x = f['gf/xi'][()].reshape(-1, n, 3)[:, p, :]; f['gf/xi'][...] = x.reshape(-1, 3 * n)
"
expect_fail "class 13: --reference in another row order names the reference" 3 "perm.h5: --reference has other rows or columns \(or another order\) than" rtcheck "$WORK/gfw.h5" --reference "$WORK/perm.h5"
nl="$WORK/a
b.veg"
expect_fail "class 13: a file name with a newline: one line" 4 "a\?b.veg: cannot open" femcondense "$nl" --fixed-ids $BOU -E 1 --nu 0.3 -o "$O"
printf 'v 0 0 0\nv 1 0 x\r\nv 0 1 0\nf 1 2 3\n' >"$WORK/cr.obj"
expect_fail "class 13: a syntax error quoting a carriage return: one line" 3 "cr.obj:2: " loopsub "$WORK/cr.obj" -l 1 -o "$O"
awk '{if ($1 == "v") printf "v %g %g %g\n", $2 * 1e300, $3 * 1e300, $4 * 1e300; else print}' $D/icosahedron.obj >"$WORK/huge.obj"
expect_fail "class 13: coordinates x 1e300 named, not 'duplicate vertices'" 3 "huge.obj: vertex 1: coordinate .* beyond 1e100" bemsolve "$WORK/huge.obj" --fixed-box -1e301,-1e301,-1e301,1e301,1e301,0 -E 1 --nu 0.3 -o "$O"
long=$(awk 'BEGIN { for (i = 0; i < 30; i++) printf "0.00000000000000000000000000000000001%s", i < 29 ? "," : "" }')
expect_fail "class 13: --sweep longer than its buffer refused, not cut" 2 "option --sweep: the list is longer than 1023 characters" gfcompress "$WORK/gf.h5" --sweep "$long"
"$BIN/femcondense" -q $BEAM --fixed-ids $BOU -E 1e6 --nu 1e-320 -o "$WORK/nu.h5" 2>"$WORK/stderr"
check "class 13: --nu 1e-320 is a number (exit $?)" [ -f "$WORK/nu.h5" ]
expect_fail "class 13: --nu 1e999 out of the double range" 2 "option --nu: 1e999 is not a finite number" femcondense $BEAM --fixed-ids $BOU -E 1 --nu 1e999 -o "$O"
case $BIN in
*san*) echo "# skipped under sanitizers: -j under an address-space cap" ;;
*) (ulimit -v 2000000; "$BIN/femcondense" $BEAM --fixed-ids $BOU -E 1e6 --nu 0.3 -j 4096 -o "$O" >/dev/null 2>"$WORK/stderr")
    got=$?
    check "class 13: -j 4096 under a memory cap: exit 2, one line (got $got)" sh -c "[ $got -eq 2 ] && [ \$(wc -l <'$WORK/stderr') -eq 1 ] && grep -q 'option --threads: 4096 threads need 32 GiB of stacks' '$WORK/stderr'" ;;
esac

finish
