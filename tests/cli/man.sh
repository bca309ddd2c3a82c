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
check "elastoprep(5) formats cleanly" sh -c '[ -z "$(groff -man -ww -z man/man5/elastoprep.5 2>&1)" ]'

make -s install PREFIX="$WORK/prefix" >/dev/null 2>&1
check "make install: tools and man pages" sh -c "[ -x '$WORK/prefix/bin/loopsub' ] && [ -f '$WORK/prefix/share/man/man1/loopsub.1' ] && [ -f '$WORK/prefix/share/man/man5/elastoprep.5' ]"
for page in man/man3/*.3; do # the runtime library's pages (issue 19 item 3)
    check "$(basename "$page"): formats cleanly" sh -c "[ -z \"\$(groff -man -ww -z '$page' 2>&1)\" ]"
done

finish
