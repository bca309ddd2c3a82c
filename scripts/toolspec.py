#!/usr/bin/python3
"""toolspec.py SPEC.json OUT.h — a tool's command line, from its data file to C.

A tool's description (name, synopsis, purpose, positional arguments, -o,
common option groups and every option of its own) is data: cmd/spec/TOOL.json
(doc/CONVENTIONS.md §6 gives the format).  This script, run by the Makefile,
checks it and writes OUT.h (build/gen/TOOL_spec.h, not tracked), which
cmd/TOOL.c includes after its `opts` struct and the parsers its options
call; it defines

    static void parse_command_line(ep_cli *cli, opts *o, int argc, char **argv)

which builds the ep_cli_opt table and the ep_tool of the spec, with each
option's target a field of *o, and calls ep_cli_parse_or_exit.  Each
target's C type is checked against its kind at compile time.  Options of a
shared group (cmd/spec/groups/NAME.json) come in with {"include": NAME,
"target": FIELD}: their targets are fields of o->FIELD.

A spec that is not valid JSON, or breaks a rule below, stops with one line
"SPEC: where: what" per problem on stderr and exit status 1, and OUT.h is
neither written nor left behind: the build fails there.  The same approach
as Redis's src/commands/*.json and utils/generate-command-code.py.
"""
import json
import os
import re
import sys

KINDS = {  # kind -> (ep_cli_kind, the C type of its target; None: any)
    "flag": ("EP_CLI_FLAG", "int"),
    "int": ("EP_CLI_INT", "long"),
    "double": ("EP_CLI_DOUBLE", "double"),
    "bytes": ("EP_CLI_BYTES", "double"),
    "choice": ("EP_CLI_CHOICE", "int"),
    "string": ("EP_CLI_STRING", "const char *"),
    "call": ("EP_CLI_CALL", None),
}
COMMON = {"material": "EP_CLI_MATERIAL", "fixed": "EP_CLI_FIXED", "columns": "EP_CLI_COLUMNS"}
# Letters the common options take (lib/cli/cli.c): -E -m -o -j -q -v -h -V.
COMMON_LETTERS = set("EmojqvhV")
TOP = {"name", "synopsis", "purpose", "common", "inputs", "output", "options", "about"}
OPTION = {"name", "letter", "kind", "target", "lo", "hi", "arg", "what", "call", "help", "note", "if"}
NAME = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")
FIELD = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\.[A-Za-z_][A-Za-z0-9_]*)*")
CNAME = re.compile(r"-?[A-Z_][A-Z0-9_]*")  # a C constant: INT_MAX, -INFINITY, EP_MESH_MAX_LEVEL
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class SpecError(Exception):
    pass


def fail(where, what):
    raise SpecError("%s: %s" % (where, what))


def text(v, where, key):
    """A text: one string, or a list of lines (joined with newlines)."""
    if isinstance(v, str) and v:
        return v
    if isinstance(v, list) and v and all(isinstance(x, str) for x in v):
        return "\n".join(v)
    fail(where, "%s must be a non-empty string or a list of lines" % key)


def c_string(s, indent):
    """s as C string literals, one a line of s."""
    lines = s.split("\n")
    esc = ['"%s%s"' % (l.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t"),
                       "\\n" if i < len(lines) - 1 else "") for i, l in enumerate(lines)]
    return ("\n" + " " * indent).join(esc)


def bound(v, where, key):
    if isinstance(v, bool) or not (isinstance(v, (int, float)) or (isinstance(v, str) and CNAME.fullmatch(v))):
        fail(where, "%s must be a number or a C constant (INT_MAX, -INFINITY, EP_...), not %s" % (key, json.dumps(v)))
    return repr(v) if isinstance(v, float) else str(v)


def option(o, where, prefix):
    """The C initializer of one option (a dict of the spec), and its type check."""
    if not isinstance(o, dict):
        fail(where, "an option must be an object")
    if isinstance(o.get("name"), str):
        where = "%s (--%s)" % (where, o["name"])
    for k in sorted(set(o) - OPTION):
        fail(where, "unknown key \"%s\" (keys: %s)" % (k, ", ".join(sorted(OPTION))))
    for k in ("name", "kind", "target", "help"):
        if k not in o:
            fail(where, "\"%s\" is missing" % k)
    name = o["name"]
    if not isinstance(name, str) or not NAME.fullmatch(name):
        fail(where, "name %s: lower-case words joined by '-', without the leading --" % json.dumps(name))
    kind = o["kind"]
    if kind not in KINDS:
        fail(where, "kind %s is not one of %s" % (json.dumps(kind), ", ".join(KINDS)))
    ckind, ctype = KINDS[kind]
    target = o["target"]
    if not isinstance(target, str) or not (FIELD.fullmatch(target) or (target == "" and kind == "call")):
        fail(where, "target %s: a field of the tool's opts (\"block\", \"gf.ops\"; \"\" the whole struct, "
             "for a call)" % json.dumps(target))
    field = ".".join(x for x in (prefix, target) if x)
    letter = o.get("letter")
    if letter is not None and not (isinstance(letter, str) and len(letter) == 1 and letter.isalpha()):
        fail(where, "letter must be one letter")
    if letter in COMMON_LETTERS:
        fail(where, "letter -%s is a common option's" % letter)
    has_bounds = "lo" in o or "hi" in o
    if has_bounds and not ("lo" in o and "hi" in o):
        fail(where, "give both lo and hi, or neither")
    if kind == "int" and not has_bounds:
        fail(where, "an int takes its bounds lo and hi")
    if has_bounds and kind not in ("int", "double"):
        fail(where, "lo and hi go with an int or a double only")
    if "what" in o and kind != "double":
        fail(where, "what goes with a double only")
    if ("call" in o) != (kind == "call"):
        fail(where, "a call option names its parser in \"call\", and only it")
    if "call" in o and not (isinstance(o["call"], str) and IDENT.fullmatch(o["call"])):
        fail(where, "call must name a C function")
    arg = o.get("arg")
    if kind == "flag" and arg is not None:
        fail(where, "a flag takes no argument (arg)")
    if kind != "flag" and arg is None:
        fail(where, "arg (the argument's name in --help) is missing")
    if isinstance(arg, dict):
        if set(arg) != {"c"} or not isinstance(arg["c"], str) or not IDENT.fullmatch(arg["c"]):
            fail(where, "arg as an object is {\"c\": \"C_STRING_CONSTANT\"}")
        carg = arg["c"]
    elif arg is not None:
        if not isinstance(arg, str) or not arg or "\n" in arg:
            fail(where, "arg must be a one-line string")
        if kind == "choice" and "|" not in arg:
            fail(where, "a choice's arg lists its words, \"a|b\"")
        carg = c_string(arg, 0)
    if "if" in o and not (isinstance(o["if"], str) and IDENT.fullmatch(o["if"])):
        fail(where, "if must name a C macro")
    help_ = text(o["help"], where, "help")
    note = text(o["note"], where, "note") if "note" in o else None

    init = "{\"%s\", %s, %s, %s" % (name, "'%s'" % letter if letter else "0", ckind,
                                   "&o->" + field if field else "o")
    if has_bounds:
        init += ", %s, %s" % (bound(o["lo"], where, "lo"), bound(o["hi"], where, "hi"))
    if arg is not None:
        init += ", .arg = " + carg
    if "what" in o:
        if not isinstance(o["what"], str) or not o["what"]:
            fail(where, "what must be a string")
        init += ", .what = " + c_string(o["what"], 0)
    if "call" in o:
        init += ", .call = " + o["call"]
    init += ",\n         .help = " + c_string(help_, 17) + "},"
    if note:
        init = "/* " + note.replace("*/", "* /").replace("\n", "\n           ") + " */\n        " + init
    check = None
    if ctype:
        check = "_Static_assert(_Generic(o->%s, %s: 1, default: 0), \"--%s (%s): its target o->%s must be %s %s\");" % (
            field, ctype, name, kind, field, "an" if ctype[0] in "aeiou" else "a", ctype)
    return name, letter, init, check, o.get("if")


def load(path, where):
    """The JSON value of the file path; a syntax error names its line and column."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except json.JSONDecodeError as e:
        fail("%s:%d:%d" % (where, e.lineno, e.colno), "not valid JSON: " + e.msg)
    except (OSError, UnicodeDecodeError) as e:
        fail(where, str(e))


def generate(path, groups_dir):
    where = path
    spec = load(path, where)
    if not isinstance(spec, dict):
        fail(where, "the spec must be a JSON object")
    for k in sorted(set(spec) - TOP):
        fail(where, "unknown key \"%s\" (keys: %s)" % (k, ", ".join(sorted(TOP))))
    for k in ("name", "synopsis", "purpose", "inputs", "output"):
        if k not in spec:
            fail(where, "\"%s\" is missing" % k)
    tool = os.path.basename(path)[:-5]
    if spec["name"] != tool:
        fail(where, "name %s is not the file's (%s)" % (json.dumps(spec["name"]), tool))
    synopsis = text(spec["synopsis"], where, "synopsis")
    purpose = text(spec["purpose"], where, "purpose")
    common = spec.get("common", [])
    if not isinstance(common, list) or any(c not in COMMON for c in common) or len(set(common)) != len(common):
        fail(where, "common is a list of groups among %s" % ", ".join(COMMON))
    inputs = spec["inputs"]
    if not (isinstance(inputs, dict) and set(inputs) == {"min", "max"} and type(inputs["min"]) is int
            and inputs["min"] >= 0 and (inputs["max"] is None or (type(inputs["max"]) is int
                                                                  and inputs["max"] >= inputs["min"]))):
        fail(where, "inputs is {\"min\": N, \"max\": M} with 0 <= N <= M, M null for no limit")
    output = spec["output"]
    if not (output in ("required", "optional") or (isinstance(output, dict) and set(output) == {"refused"}
                                                  and isinstance(output["refused"], str) and output["refused"])):
        fail(where, "output is \"required\", \"optional\" or {\"refused\": \"the message\"}")
    options = spec.get("options", [])
    if not isinstance(options, list):
        fail(where, "options must be a list")

    entries, seen, letters = [], {}, {}
    for i, o in enumerate(options):
        at = "%s: options[%d]" % (where, i)
        if isinstance(o, dict) and "include" in o:
            if set(o) != {"include", "target"} or not isinstance(o["include"], str) or not IDENT.fullmatch(
                    o["include"]) or not isinstance(o["target"], str) or not FIELD.fullmatch(o["target"]):
                fail(at, "an include is {\"include\": GROUP, \"target\": FIELD}")
            gpath = os.path.join(groups_dir, o["include"] + ".json")
            gwhere = gpath
            if not os.path.exists(gpath):
                fail(at, "no group %s (%s)" % (o["include"], gwhere))
            group = load(gpath, gwhere)
            if not (isinstance(group, dict) and set(group) <= {"group", "about", "options"}
                    and group.get("group") == o["include"] and isinstance(group.get("options"), list)):
                fail(gwhere, "a group is {\"group\": \"%s\", \"about\": ..., \"options\": [...]}" % o["include"])
            entries += [option(g, "%s: options[%d]" % (gwhere, j), o["target"]) for j, g in enumerate(group["options"])]
        else:
            entries.append(option(o, at, ""))
    for name, letter, _, _, _ in entries:
        if name in seen:
            fail(where, "--%s is given twice" % name)
        seen[name] = 1
        if letter and letter in letters:
            fail(where, "-%s is the letter of --%s and --%s" % (letter, letters[letter], name))
        if letter:
            letters[letter] = name

    out = ["/* %s's command line, generated by scripts/toolspec.py from %s: edit that file, not this one. */"
           % (tool, where),
           "#ifndef EP_SPEC_%s_H" % tool.upper(), "#define EP_SPEC_%s_H" % tool.upper(), "",
           "#include <float.h>", "#include <limits.h>", "#include <math.h>", "", "#include \"cli.h\"", "",
           "/* Parse argv into cli and the targets of %s's options in o (their" % tool,
           " * initial values are the defaults): ep_cli_parse_or_exit with the option",
           " * table and ep_tool of %s.  Exits after --help or --version and on a" % where,
           " * bad command line.  Cost O(argc). */",
           "static void parse_command_line(ep_cli *cli, opts *o, int argc, char **argv)", "{"]
    body = []
    for name, letter, init, check, cond in entries:
        if check:
            body.append(("    ", check, cond))
    tbl = []
    for name, letter, init, check, cond in entries:
        tbl.append(("        ", init, cond))

    def emit(items):
        for ind, line, cond in items:
            if cond:
                out.append("#ifdef " + cond)
            out.append(ind + line)
            if cond:
                out.append("#endif")
    emit(body)
    out.append("    const ep_cli_opt options[] = {")
    emit(tbl)
    out.append("        {0}};")
    fields = [".name = \"%s\"" % tool, ".synopsis = " + c_string(synopsis, 20), ".purpose = " + c_string(purpose, 19)]
    if common:
        fields.append(".common = " + " | ".join(COMMON[c] for c in common))
    fields.append(".options = options")
    fields.append(".min_inputs = %d, .max_inputs = %d" % (inputs["min"], -1 if inputs["max"] is None else inputs["max"]))
    if output == "required":
        fields.append(".need_output = 1")
    elif isinstance(output, dict):
        fields.append(".no_output = " + c_string(output["refused"], 0))
    out.append("    const ep_tool tool = {")
    out += ["        %s," % f for f in fields]
    out += ["    };", "    ep_cli_parse_or_exit(cli, &tool, argc, argv);", "}", "", "#endif", ""]
    return "\n".join(out)


def main():
    if len(sys.argv) != 3 or not sys.argv[1].endswith(".json"):
        sys.exit("usage: toolspec.py cmd/spec/TOOL.json OUT.h")
    spec, dest = sys.argv[1], sys.argv[2]
    try:
        code = generate(spec, os.path.join(os.path.dirname(spec), "groups"))
    except SpecError as e:
        sys.stderr.write("toolspec: %s\n" % e)
        sys.exit(1)
    tmp = dest + ".tmp"
    os.makedirs(os.path.dirname(dest) or ".", exist_ok=True)
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(code)
    os.replace(tmp, dest)


main()
