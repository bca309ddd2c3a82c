#!/bin/sh
# make check-mpi (issue 43; MATH.md §15): bemsolve-mpi on 1, 2 and 4 ranks
# (4 oversubscribed) against the serial bemsolve on small closed surfaces:
# every GF entry to 1e-12 relative (linear and constant elements, free and
# fixed columns, float32), the wavelet files block for block, the Kelvin
# manufactured solution, and bad input failing as the serial tool does (one
# line from rank 0, its exit status, nothing written), on every rank;
# --check, --part, --body-force and --interior refused as the serial tool's.
. "$(dirname "$0")/../cli/common"
D=data
PY=/usr/bin/python3
SAME="$PY $(dirname "$0")/gfsame.py"
GFCHECK="$PY $(dirname "$0")/../cli/gfcheck.py"
# mpirun as root needs both; one thread a rank (2 cores); -q: no banner of
# mpirun's own beside the tool's one line.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
# (stdin from /dev/null: mpirun would read a loop's lines.)
mpi() { mpirun -q --oversubscribe "$@" </dev/null; }
MPI=mpi
S="$BIN/bemsolve"
M="$BIN/bemsolve-mpi"
FIX="--fixed-box -2,-2,-2,2,2,-0.5"
MAT="-E 2e5 --nu 0.3"

"$BIN/loopsub" -q $D/icosahedron.obj -l 2 -o "$WORK/ico2.h5"

# --- the serial run's files, entry by entry -------------------------------------------
# name | options
cases="lin-free|
lin-all|--columns all
const-free|--elements constant
const-all|--elements constant --columns all
single|--single"
echo "$cases" | while IFS='|' read -r name opts; do
    # shellcheck disable=SC2086
    "$S" -q "$WORK/ico2.h5" $FIX $MAT $opts -o "$WORK/s-$name.h5"
done
for P in 1 2 4; do
    echo "$cases" | while IFS='|' read -r name opts; do
        # shellcheck disable=SC2086
        $MPI -np $P "$M" -q "$WORK/ico2.h5" $FIX $MAT $opts --block 40 -o "$WORK/p$P-$name.h5"
        tol=1e-12
        [ "$name" = single ] && tol=1.2e-7 # float32: an ulp of the rounding may differ
        check "P=$P, $name: every GF entry as the serial run's to $tol" $SAME "$WORK/p$P-$name.h5" "$WORK/s-$name.h5" $tol
    done 2>&1 | tee "$WORK/log-$P"
    passed=$((passed + $(grep -c '^ok' "$WORK/log-$P")))
    failed=$((failed + $(grep -c '^not ok' "$WORK/log-$P")))
done

# --- the summary: from rank 0 only, the grid chosen for the ranks ----------------------
$MPI -np 4 "$M" "$WORK/ico2.h5" $FIX $MAT -o "$WORK/g.h5" >"$WORK/summary" 2>"$WORK/progress"
check "P=4: one summary (rank 0's), the grid 2 x 2 chosen" sh -c "[ \$(grep -c 'A is 486 x 486' '$WORK/summary') = 1 ] && grep -q '4 MPI ranks on a 2 x 2 grid' '$WORK/summary'"
$MPI -np 4 "$M" -q "$WORK/ico2.h5" $FIX $MAT --grid 4x1 -o "$WORK/g41.h5"
check "P=4 on a 4 x 1 grid: the same file" $SAME "$WORK/g41.h5" "$WORK/s-lin-free.h5" 1e-12

# --- wavelets: the compressed file of the serial run, block for block ------------------
"$BIN/loopsub" -q $D/icosahedron.obj -l 2 $FIX -o "$WORK/h2.h5"
"$S" -q "$WORK/h2.h5" $MAT --wavelet linear --eps 0.05 -o "$WORK/s-w.h5"
for P in 2 4; do
    $MPI -np $P "$M" -q "$WORK/h2.h5" $MAT --wavelet linear --eps 0.05 --block 40 -o "$WORK/p$P-w.h5"
    check "P=$P --wavelet: the serial file block for block" $GFCHECK same "$WORK/p$P-w.h5" "$WORK/s-w.h5" 1e-6
done

# --- Kelvin's manufactured solution holds as serially ------------------------------------
"$S" -q "$WORK/ico2.h5" --fixed-box -2,-2,-2,2,2,-0.6 -E 1 --nu 0.3 --columns all -o "$WORK/ks.h5"
$MPI -np 2 "$M" -q "$WORK/ico2.h5" --fixed-box -2,-2,-2,2,2,-0.6 -E 1 --nu 0.3 --columns all -o "$WORK/kp.h5"
es=$($GFCHECK kelvin "$WORK/ks.h5" 2 0.5 0.3)
ep=$($GFCHECK kelvin "$WORK/kp.h5" 2 0.5 0.3)
echo "    Kelvin field, icosphere level 2: serial error $es, 2 ranks $ep"
check "Kelvin field under MPI: the serial error (to 1e-9), below 2%" $PY -c "
es, ep = float('$es'), float('$ep')
raise SystemExit(0 if abs(ep - es) <= 1e-9 * es and ep < 0.02 else 1)"

# --- bad input: one line from rank 0, the serial status, nothing written --------------
# mpi_fail NAME STATUS PATTERN P ARGS...: as expect_fail (tests/cli/common).
mpi_fail() {
    name=$1 want=$2 pattern=$3 np=$4
    shift 4
    rm -rf "$WORK/out"
    mkdir -p "$WORK/out"
    $MPI -np "$np" "$M" "$@" >"$WORK/stdout" 2>"$WORK/stderr"
    got=$?
    if [ "$got" -ne "$want" ] || [ "$(wc -l <"$WORK/stderr")" -ne 1 ] || ! grep -Eq "^bemsolve: .*$pattern" "$WORK/stderr" ||
        [ -s "$WORK/stdout" ] || [ -n "$(ls -A "$WORK/out")" ]; then
        not_ok "$name" "exit $got (want $want); stderr: $(head -c 300 "$WORK/stderr"); left: $(ls -A "$WORK/out")"
    else
        ok "$name"
    fi
}
grep -v '^f' $D/icosahedron.obj >"$WORK/open.obj"
grep '^f' $D/icosahedron.obj | tail -n +2 >>"$WORK/open.obj"
O="$WORK/out/x.h5"
for P in 1 4; do
    "$S" "$WORK/open.obj" $FIX $MAT -o "$WORK/x.h5" 2>"$WORK/serial-err"
    mpi_fail "P=$P: an open surface fails as serially (exit 3)" 3 "$(sed 's/^bemsolve: //; s/[()]/./g' "$WORK/serial-err")" $P "$WORK/open.obj" $FIX $MAT -o "$O"
done
mpi_fail "a grid that does not make the ranks: a usage line" 2 "--grid 3x1 needs 3 ranks, the run has 4" 4 "$WORK/ico2.h5" $FIX $MAT --grid 3x1 -o "$O"
mpi_fail "a grid that is no grid" 2 "--grid wants PRxPC" 2 "$WORK/ico2.h5" $FIX $MAT --grid 2by1 -o "$O"
mpi_fail "--check is the serial tool's" 2 "--check is for the serial bemsolve" 2 "$WORK/ico2.h5" $FIX $MAT --check -o "$O"
printf '0 0 0\n' >"$WORK/pts.txt"
mpi_fail "--body-force is the serial tool's" 2 "--body-force is for the serial bemsolve$" 2 "$WORK/ico2.h5" $FIX $MAT --rho 1000 --body-force -o "$O"
mpi_fail "--interior is the serial tool's" 2 "--interior is for the serial bemsolve$" 2 "$WORK/ico2.h5" $FIX $MAT --interior "$WORK/pts.txt" -o "$O"
mpi_fail "memory guard, on every node" 1 "needs about .* a rank .*more than the 1 KiB allowed" 2 "$WORK/ico2.h5" $FIX $MAT --max-memory 1K -o "$O"
# a failure in the middle of the writes, on whichever rank holds the row:
# rank 0 reports it, the half-written file goes
mpi_fail "float32 overflow while writing: one line, nothing left" 3 "largest displacement value .*write float64" 4 "$WORK/ico2.h5" $FIX -E 1e-300 --nu 0.3 --single -o "$O"
finish
