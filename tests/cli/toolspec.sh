#!/bin/sh
# A tool's command line is data (doc/CONVENTIONS.md §6): every tool has its
# spec cmd/spec/TOOL.json and keeps no option table in C; scripts/toolspec.py
# refuses a malformed spec with one line saying where and what, and leaves
# no header, so the build stops there; make regenerates a tool's header and
# rebuilds the tool when its spec, a group it includes or the generator
# changes; a target whose C type does not fit its kind does not compile.
. "$(dirname "$0")/common"
gen="/usr/bin/python3 scripts/toolspec.py"

for src in cmd/*.c; do
    tool=$(basename "$src" .c)
    check "$tool: has its spec cmd/spec/$tool.json" [ -f "cmd/spec/$tool.json" ]
    check "$tool: keeps no option table or ep_tool in C" sh -c "! grep -Eq 'ep_cli_opt|ep_tool |ep_cli_parse' '$src'"
done
for spec in cmd/spec/*.json; do
    tool=$(basename "$spec" .json)
    check "$spec: a tool of cmd/ ($tool.c)" [ -f "cmd/$tool.c" ]
    $gen "$spec" "$WORK/$tool.h" 2>"$WORK/err"
    check "$spec: generates" sh -c "[ -s '$WORK/$tool.h' ] && [ ! -s '$WORK/err' ]"
done

# bad NAME MESSAGE PYTHON: embed's spec changed by the Python statement (on
# the dict s; RAW instead writes the text itself) must fail with status 1,
# one line "toolspec: cmd/spec/embed.json...MESSAGE" and no header.
bad() {
    name=$1 want=$2 edit=$3
    mkdir -p "$WORK/bad/spec/groups" && cp cmd/spec/groups/*.json "$WORK/bad/spec/groups/"
    /usr/bin/python3 -c "import json, sys
s = json.load(open('cmd/spec/embed.json'))
RAW = None
$edit
open(sys.argv[1], 'w').write(RAW if RAW is not None else json.dumps(s))" "$WORK/bad/spec/embed.json"
    rm -f "$WORK/bad/embed.h"
    $gen "$WORK/bad/spec/embed.json" "$WORK/bad/embed.h" >"$WORK/out" 2>"$WORK/err"
    st=$?
    if [ $st -ne 1 ] || [ "$(wc -l <"$WORK/err")" -ne 1 ] || [ -e "$WORK/bad/embed.h" ] || [ -e "$WORK/bad/embed.h.tmp" ] ||
        ! grep -q "^toolspec: .*embed.json.*$want" "$WORK/err"; then
        not_ok "a spec with $name is refused" "status $st, stderr: $(cat "$WORK/err")"
    else
        ok "a spec with $name is refused: $(cat "$WORK/err")"
    fi
}
bad "a JSON syntax error" ':3:[0-9]*: not valid JSON' 'RAW = open("cmd/spec/embed.json").read().replace("\",\n", "\"\n", 2)'
bad "an unknown key" 'options\[0\] (--modes): unknown key "hepl"' 's["options"][0]["hepl"] = "x"'
bad "an unknown kind" "options\[1\] (--max-distance): kind \"dbl\" is not one of flag, int" 's["options"][1]["kind"] = "dbl"'
bad "an int without bounds" 'options\[1\] (--max-distance): an int takes its bounds lo and hi' 's["options"][1]["kind"] = "int"; del s["options"][1]["lo"], s["options"][1]["hi"]'
bad "a bound that is no number" 'lo must be a number or a C constant' 's["options"][1]["lo"] = "1 + x"'
bad "a flag with an argument" 'a flag takes no argument' 's["options"][0]["kind"] = "flag"'
bad "a choice without words" "a choice's arg lists its words" 's["options"][0]["kind"] = "choice"'
bad "a common option's letter" 'letter -o is a common option' 's["options"][0]["letter"] = "o"'
bad "a letter twice" '-x is the letter of --modes and --max-distance' 's["options"][0]["letter"] = s["options"][1]["letter"] = "x"'
bad "an option twice" '--modes is given twice' 's["options"].append(s["options"][0])'
bad "a target that is no field" 'target "o->modes"' 's["options"][0]["target"] = "o->modes"'
bad "no help" '(--modes): "help" is missing' 'del s["options"][0]["help"]'
bad "another tool's name" 'name "embedd" is not the file' 's["name"] = "embedd"'
bad "no inputs" '"inputs" is missing' 'del s["inputs"]'
bad "a bad output" 'output is "required", "optional" or' 's["output"] = "yes"'
bad "an unknown common group" 'common is a list of groups among material, fixed, columns' 's["common"] = ["materials"]'
bad "a group that does not exist" 'no group gfformm' 's["options"].append({"include": "gfformm", "target": "form"})'

# The build stops on a malformed spec: make's rule for the header fails with
# the generator's line and leaves no header (a copy of the Makefile and the
# generator, with embed's spec broken).
mkdir -p "$WORK/tree/cmd/spec/groups" "$WORK/tree/scripts"
cp Makefile "$WORK/tree/" && cp scripts/toolspec.py "$WORK/tree/scripts/" && ln -s "$(pwd)/lib" "$WORK/tree/lib"
cp cmd/spec/groups/*.json "$WORK/tree/cmd/spec/groups/"
sed 's/"kind": "double"/"kind": "dbl"/' cmd/spec/embed.json >"$WORK/tree/cmd/spec/embed.json"
make -C "$WORK/tree" build/gen/embed_spec.h >"$WORK/make.out" 2>&1
st=$?
check "make fails on a malformed spec, with the generator's message, and leaves no header" sh -c \
    "[ $st -ne 0 ] && grep -q 'toolspec: cmd/spec/embed.json: options\[1\] (--max-distance): kind \"dbl\"' '$WORK/make.out' &&
     [ ! -e '$WORK/tree/build/gen/embed_spec.h' ]"
cp cmd/spec/embed.json "$WORK/tree/cmd/spec/embed.json"
make -C "$WORK/tree" build/gen/embed_spec.h >"$WORK/make.out" 2>&1
check "... and makes the header once the spec is mended" grep -q 'parse_command_line' "$WORK/tree/build/gen/embed_spec.h"

# make rebuilds a tool when its spec or a group changes, and only that tool.
make -n -W cmd/spec/embed.json bin/embed >"$WORK/n" 2>&1
check "a changed spec regenerates its header and rebuilds its tool" sh -c \
    "grep -q 'toolspec.py cmd/spec/embed.json build/gen/embed_spec.h' '$WORK/n' && grep -q 'cmd/embed.c -o bin/embed' '$WORK/n'"
make -n bin/voxelize >"$WORK/n1" 2>&1
make -n -W cmd/spec/embed.json bin/voxelize >"$WORK/n2" 2>&1
check "... and no other tool" cmp -s "$WORK/n1" "$WORK/n2"
make -n -W cmd/spec/groups/gfform.json bin/femcondense >"$WORK/n" 2>&1
check "a changed group regenerates the specs that include it" sh -c \
    "grep -q 'toolspec.py cmd/spec/femcondense.json build/gen/femcondense_spec.h' '$WORK/n' && grep -q 'cmd/femcondense.c -o bin/femcondense' '$WORK/n'"

# A target of the wrong C type does not compile: --block (an int) needs a long.
cat >"$WORK/t.json" <<'EOF'
{"name": "t", "synopsis": "X", "purpose": "Y", "inputs": {"min": 0, "max": 0}, "output": "optional",
 "options": [{"name": "block", "kind": "int", "target": "block", "lo": 1, "hi": 9, "arg": "K", "help": "h"}]}
EOF
$gen "$WORK/t.json" "$WORK/t_spec.h"
printf 'typedef struct { int block; } opts;\n#include "t_spec.h"\nint main(int c, char **v) { ep_cli cli; opts o = {0}; parse_command_line(&cli, &o, c, v); return 0; }\n' >"$WORK/t.c"
inc=$(for d in lib/*/; do printf -- '-I%s ' "$d"; done)
cc -std=gnu11 -fsyntax-only $inc -I"$WORK" $(pkg-config --cflags hdf5 2>/dev/null) -I/usr/include/suitesparse "$WORK/t.c" >"$WORK/cc.out" 2>&1
st=$?
check "an int option's target that is an int, not a long, does not compile" sh -c \
    "[ $st -ne 0 ] && grep -q 'its target o->block must be a long' '$WORK/cc.out'"
sed -i 's/int block;/long block;/' "$WORK/t.c"
check "... and a long does" cc -std=gnu11 -fsyntax-only $inc -I"$WORK" $(pkg-config --cflags hdf5 2>/dev/null) -I/usr/include/suitesparse "$WORK/t.c"

finish
