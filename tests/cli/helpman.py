"""helpman.py BIN: --help against the man pages (issue 45 item 8).

For every tool: (a) every option its man page's OPTIONS section documents
is an option its --help defines; (b) every option --help mentions in its
text is an option of some tool (a stale mention names none); (c) every
numeric default --help gives for an option ("default: N", "default N") is
in the man page's paragraph of that option.  Prints one line per tool,
"ok TOOL" or "bad TOOL: what", and exits 1 on any bad line.
"""
import glob, os, re, subprocess, sys

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


helps = {t: help_of(t) for t in tools}
defs = {t: defined(helps[t]) for t in tools}
every = set().union(*[set(d) for d in defs.values()])
bad = ndefaults = 0
for t in tools:
    problems = []
    paras = man_paragraphs(t)
    extra = sorted(set(paras) - set(defs[t]))
    if extra:
        problems.append("man page documents options --help does not define: " + " ".join(extra))
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
sys.exit(1 if bad else 0)
