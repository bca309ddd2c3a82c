# lib.sh — helpers for the command-line tests (sourced; POSIX sh).
#
# Each test script runs tools from $BIN on files in $WORK (a fresh folder),
# counts passes and failures, and ends with the line "N passed, N failed".

: "${BIN:?BIN must name the folder of the tools}"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ep-cli-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
passed=0
failed=0

ok() { passed=$((passed + 1)); echo "ok - $1"; }
not_ok() { failed=$((failed + 1)); echo "not ok - $1"; [ -n "${2:-}" ] && printf '    %s\n' "$2"; return 0; }

# check NAME COMMAND...: pass when the command (a shell test) succeeds.
check() {
    name=$1
    shift
    if "$@"; then ok "$name"; else not_ok "$name"; fi
}

# expect_fail NAME STATUS PATTERN TOOL ARGS...: the tool must exit with STATUS,
# print exactly one line on stderr that starts with "TOOL: " and matches
# PATTERN (grep -E), print nothing on stdout, and leave no file in $WORK/out
# (neither the output nor a temporary).
expect_fail() {
    name=$1 want=$2 pattern=$3 tool=$4
    shift 4
    rm -rf "$WORK/out"
    mkdir -p "$WORK/out"
    "$BIN/$tool" "$@" >"$WORK/stdout" 2>"$WORK/stderr"
    got=$?
    lines=$(wc -l <"$WORK/stderr")
    left=$(ls -A "$WORK/out")
    if [ "$got" -ne "$want" ]; then
        not_ok "$name" "exit status $got, expected $want; stderr: $(head -c 300 "$WORK/stderr")"
    elif [ "$lines" -ne 1 ]; then
        not_ok "$name" "$lines lines on stderr: $(head -c 300 "$WORK/stderr")"
    elif ! grep -Eq "^$tool: .*$pattern" "$WORK/stderr"; then
        not_ok "$name" "stderr \"$(cat "$WORK/stderr")\" does not match \"$pattern\""
    elif [ -s "$WORK/stdout" ]; then
        not_ok "$name" "printed on stdout: $(head -c 200 "$WORK/stdout")"
    elif [ -n "$left" ]; then
        not_ok "$name" "left files behind: $left"
    else
        ok "$name"
    fi
}

# h5 FILE EXPR: evaluate a Python expression over the open h5py File f.
h5() {
    /usr/bin/python3 -c "import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], 'r')
print($2)" "$1"
}

finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
