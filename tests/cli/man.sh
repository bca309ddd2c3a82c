#!/bin/sh
# Documentation tests: every tool has a man page that formats without groff
# warnings and documents every long option its --help lists; the file-format
# page exists; make install places tools and pages.
. "$(dirname "$0")/common"

for src in cmd/*.c; do
    tool=$(basename "$src" .c)
    page=man/man1/$tool.1
    check "$tool: man page exists" [ -f "$page" ]
    check "$tool: man page formats cleanly" sh -c "[ -z \"\$(groff -man -ww -z '$page' 2>&1)\" ]"
    missing=""
    for opt in $("$BIN/$tool" --help | grep -o -- '--[a-z][a-z-]*[a-z]' | sort -u); do
        grep -q -- "$(echo "$opt" | sed 's/-/\\\\-/g')" "$page" || missing="$missing $opt"
    done
    check "$tool: man page documents every option of --help${missing:+ (missing:$missing)}" [ -z "$missing" ]
done
# --help against the man pages both ways, and the defaults --help gives (issue 45 item 8)
/usr/bin/python3 tests/cli/helpman.py "$BIN" >"$WORK/helpman.txt" 2>&1
check "every man page documents only options --help defines, --help names no option no tool has, defaults agree, messages name options that exist" [ $? -eq 0 ] || grep -v '^ok' "$WORK/helpman.txt"
abs=$(cd "$BIN" && pwd)
mkdir -p "$WORK/tree/man/man1" "$WORK/tree/cmd" && cp man/man1/*.1 "$WORK/tree/man/man1" && cp tests/cli/helpman.py "$WORK/tree"
for c in cmd/*.c; do : >"$WORK/tree/$c"; done
cp -r cmd/spec "$WORK/tree/cmd/"
printf '.TP\n.BR \\-\\-bogus " " \\fIN\\fR\nGone.\n' | sed -i '/^\.SH OPTIONS/r /dev/stdin' "$WORK/tree/man/man1/embed.1"
sed -i 's/default 10)/default 12)/' "$WORK/tree/man/man1/rtcheck.1"
sed -i 's/"options": \[/"options": [{"name": "stale", "kind": "flag", "target": "x", "help": "h"}, /' "$WORK/tree/cmd/spec/femdata.json"
(cd "$WORK/tree" && /usr/bin/python3 helpman.py "$abs" >"$WORK/helpman2.txt" 2>&1)
check "... and a tool not built from its spec" grep -q '^bad femdata: --help lacks options of cmd/spec/femdata.json (built from an older spec?): --stale' "$WORK/helpman2.txt"
check "... the check finds a man page's option --help lacks and a default that changed" sh -c "grep -q '^bad embed: man page documents options --help does not define: --bogus' '$WORK/helpman2.txt' && grep -q '^bad rtcheck: --contacts: --help gives default 10, the man page does not' '$WORK/helpman2.txt'"
# hints that name no option (issue 37, class 8): embed's own, and one in lib/ naming femcondense
printf 'return ep_fail(EP_EINPUT, "far vertex (raise it with --max-dist D)");\n' >"$WORK/tree/cmd/embed.c"
mkdir -p "$WORK/tree/lib/files" && printf 'ep_fail(EP_EINPUT, "no rows (femcondense --body)");\n' >"$WORK/tree/lib/files/x.c"
(cd "$WORK/tree" && /usr/bin/python3 helpman.py "$abs" >"$WORK/helpman3.txt" 2>&1)
check "... and a message's hint that names no option of its tool, or of the tool it names" sh -c "grep -q '^bad hints: cmd/embed.c:1: --max-dist not an option of embed .*; lib/files/x.c:1: --body not an option of femcondense' '$WORK/helpman3.txt'"
check "elastoprep(5) formats cleanly" sh -c '[ -z "$(groff -man -ww -z man/man5/elastoprep.5 2>&1)" ]'

make -s install PREFIX="$WORK/prefix" >/dev/null 2>&1
check "make install: tools and man pages" sh -c "[ -x '$WORK/prefix/bin/loopsub' ] && [ -f '$WORK/prefix/share/man/man1/loopsub.1' ] && [ -f '$WORK/prefix/share/man/man5/elastoprep.5' ]"
for page in man/man3/*.3; do # the runtime library's pages (issue 19 item 3)
    check "$(basename "$page"): formats cleanly" sh -c "[ -z \"\$(groff -man -ww -z '$page' 2>&1)\" ]"
done

finish
