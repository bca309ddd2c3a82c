"""helpman.py BIN: --help against the man pages (issue 45 item 8).

A tool's own options, with their help text, are read from its spec
cmd/spec/TOOL.json (and the groups it includes), the one source --help is
generated from; the common options of lib/cli from --help.  For every tool:
(a) every option its man page's OPTIONS section documents is one of these
(and every option of the spec is in --help: the tool is built from its
spec); (b) every option --help mentions in its
text is an option of some tool (a stale mention names none); (c) every
numeric default --help gives for an option ("default: N", "default N") is
in the man page's paragraph of that option; (d) every option a message
names is one that exists (issue 37, class 8: hints name real options): the
string literals of cmd/TOOL.c against TOOL's --help, those of lib/ against
the tool the message names before the option ("femcondense --traction"),
else against every tool.  Prints one line per tool, "ok TOOL" or
"bad TOOL: what", then one for the hints, and exits 1 on any bad line.
"""
import glob, json, os, re, subprocess, sys

BIN = sys.argv[1]
tools = sorted(os.path.basename(p)[:-2] for p in glob.glob("cmd/*.c"))
OPT = re.compile(r"--[a-z][a-z-]*[a-z]")


def help_of(t):
    h = subprocess.run([os.path.join(BIN, t), "--help"], capture_output=True, text=True).stdout
    return re.sub(r"--[a-z-]+-\.\.\.", "", h)  # "--fixed-...": a family, not an option


def defined(h):
    """option -> its help text (the defining line and its continuation lines)."""
    out, cur = {}, None
    for line in h.splitlines():
        m = re.match(r"^ +(?:-[a-zA-Z], )?(--[a-z][a-z-]*[a-z])(.*)", line)
        if m:
            cur = m.group(1)
            out[cur] = m.group(2)
        elif cur and re.match(r"^ {10,}\S", line):
            out[cur] += " " + line.strip()
        else:
            cur = None
    return out


def man_paragraphs(t):
    """option -> its paragraph in the OPTIONS section (plain text)."""
    src = open("man/man1/%s.1" % t).read()
    sec = re.search(r"^\.SH OPTIONS\n(.*?)(?=^\.SH )", src, re.S | re.M)
    paras, cur = {}, []
    for block in re.split(r"^\.TP\n", sec.group(1) if sec else "", flags=re.M)[1:]:
        head, _, body = block.partition("\n")
        plain = lambda s: re.sub(r"\\f[BIRP]|\\\(..|\\", "", s).replace("\\-", "-")
        for o in OPT.findall(plain(head).replace("\\", "")):
            paras[o] = plain(head) + " " + plain(body)
    return paras


def spec_options(t):
    """option -> its help text, from the spec of t and the groups it includes."""
    out = {}
    for o in json.load(open("cmd/spec/%s.json" % t))["options"]:
        group = json.load(open("cmd/spec/groups/%s.json" % o["include"]))["options"] if "include" in o else [o]
        for g in group:
            if "if" in g:  # in another build only (EP_MPI: bemsolve-mpi, checked by its --help below)
                continue
            h = g["help"]
            out["--" + g["name"]] = " ".join(h) if isinstance(h, list) else h
    return out


helps = {t: help_of(t) for t in tools}
specs = {t: spec_options(t) for t in tools}
defs = {t: {**defined(helps[t]), **specs[t]} for t in tools}
every = set().union(*[set(d) for d in defs.values()])
bad = ndefaults = 0
for t in tools:
    problems = []
    paras = man_paragraphs(t)
    extra = sorted(set(paras) - set(defs[t]))
    if extra:
        problems.append("man page documents options --help does not define: " + " ".join(extra))
    unbuilt = sorted(set(specs[t]) - set(defined(helps[t])))
    if unbuilt:
        problems.append("--help lacks options of cmd/spec/%s.json (built from an older spec?): %s" % (t, " ".join(unbuilt)))
    stale = sorted(set(OPT.findall(helps[t])) - every)
    if stale:
        problems.append("--help names options no tool has: " + " ".join(stale))
    for o, text in defs[t].items():
        for d in re.findall(r"default:? (-?[0-9][0-9.e+-]*)", text):
            d = d.rstrip(".")
            ndefaults += o in paras
            if o in paras and d not in paras[o]:
                problems.append("%s: --help gives default %s, the man page does not" % (o, d))
    print(("bad %s: " % t + "; ".join(problems)) if problems else "ok " + t)
    bad += bool(problems)
print("%d numeric defaults compared" % ndefaults)

# (d) hints: options named in the messages of the sources.  Short options
# count where a message gives them ("give -E and --nu, or -m FILE").
SHORT = re.compile(r"(?:^|(?<=give )|(?<=try )|(?<=use )|(?<=\()|(?<=or )|(?<=and )|(?<=with ))-([A-Za-z])(?=[ ,)]|$)")
mpi = os.path.exists(os.path.join(BIN, "bemsolve-mpi"))  # lib/mpi's tool, built by make mpi
if mpi:
    helps["bemsolve-mpi"] = help_of("bemsolve-mpi")
    defs["bemsolve-mpi"] = defined(helps["bemsolve-mpi"])
known = sorted(helps)
letters = {t: set(re.findall(r"^ +-([a-zA-Z]), --", helps[t], re.M)) for t in known}
every_letter = set().union(*letters.values())


def literals(path):
    src = re.sub(r"/\*.*?\*/|//[^\n]*", "", open(path).read(), flags=re.S)
    for m in re.finditer(r'"((?:[^"\\\n]|\\.)*)"', src):
        yield src.count("\n", 0, m.start()) + 1, re.sub(r"--[a-z-]+-\.\.\.", "", m.group(1))


wrong, nhints = [], 0
for path in sorted(glob.glob("cmd/*.c") + glob.glob("lib/*/*.c")):
    own = os.path.basename(path)[:-2] if path.startswith("cmd/") else "bemsolve-mpi" if "/mpi/" in path else None
    if own == "bemsolve-mpi" and not mpi:
        continue
    for line, s in literals(path):
        for pat, is_long in ((OPT, True), (SHORT, False)):
            for m in pat.finditer(s):
                named = [w for w in re.findall(r"[a-z][a-z0-9-]*", s[:m.start()]) if w in known]
                tool = named[-1] if named else own  # the tool named last before it, else the file's, else any
                name = m.group(0) if is_long else m.group(1)
                have = (set(defs[tool]) if is_long else letters[tool]) if tool else (every if is_long else every_letter)
                nhints += 1
                if name not in have:
                    wrong.append("%s:%d: %s%s not an option of %s (\"%s\")" % (
                        path, line, "" if is_long else "-", name, tool or "any tool", s if len(s) < 80 else s[:77] + "..."))
print(("bad hints: " + "; ".join(wrong)) if wrong else "ok hints: %d options named in messages, each defined" % nhints)
sys.exit(1 if bad or wrong else 0)
