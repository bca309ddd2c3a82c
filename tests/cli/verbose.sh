#!/bin/sh
# -v in every tool (issue 45, point 6): each tool of cmd/ runs a small case
# twice, without and with -v, and
#   - the -v run prints everything the plain run prints (line for line,
#     numbers aside: timings differ) and more: its stages with their wall
#     and CPU times, the run's wall and CPU time, threads and peak memory,
#     the size of each file the command line names and of the output;
#   - for an HDF5 output, the datasets -v lists (name, type, shape) are
#     exactly those h5py finds in the file;
#   - -v changes what is printed only: the two outputs hold the same data
#     (floats to 1e-12);
#   - a tool of cmd/ without a case here fails the test.
# And voxelize: its passes and the mesh's checks report progress (the
# library's ep_progress_report, shown by lib/cli), which -v times.
. "$(dirname "$0")/common"
PY=/usr/bin/python3
D=data
B="$D/models/beam3/beam3_tet.veg --fixed-ids $D/models/beam3/beam3.bou"
W=$WORK

# inputs the cases share (made quietly, not under test)
"$BIN/moddesc" -q $B -E 1e7 --nu 0.4 --rho 1000 -k 3 -r 3 -o "$W/m.h5"
"$BIN/loopsub" -q $D/models/beam3/beam3_tet.veg -l 1 -o "$W/render.obj"
"$BIN/loopsub" -q $D/icosahedron.obj -l 1 --fixed-box -2,-2,-2,2,2,-0.6 -o "$W/s.h5"
"$BIN/bemsolve" -q "$W/s.h5" -E 1e5 --nu 0.3 -o "$W/gf.h5"
for i in 0 1; do "$BIN/polycoef" -q "$W/m.h5" --part $i/2 -o "$W/part.$i.h5"; done
printf 'force region tip 0 0 -0.01\n' >"$W/tip.loads"
$PY tests/cli/barmesh.py 8 2 2 4 1 1 2 "$W/bar2.msh"

# One case a line: TOOL|STAGES (the stages -v must name, in order)|OUTPUT|ARGS
# (OUT is the output's name, replaced per run).
cat >"$W/cases" <<EOF
voxelize|read compute boundary write|v.h5|$D/icosahedron.obj -R 8 -E 1e6 --nu 0.3 --rho 1000 -o OUT
loopsub|read compute write|l.h5|$D/icosahedron.obj -l 2 --fixed-box -2,-2,-2,2,2,-0.6 -o OUT
bemsolve|read compute solve and write|b.h5|$W/s.h5 -E 1e5 --nu 0.3 -o OUT
femcondense|read compute solve and write|f.h5|$D/cube.msh --fixed-region bottom -E 1 --nu 0.3 -o OUT
gfcompress|read write|g.h5|$W/gf.h5 --eps 0.05 -o OUT
moddesc|read compute write|m.h5|$B -E 1e7 --nu 0.4 --rho 1000 -k 2 -r 2 -o OUT
polycoef|read compute write|c.h5|$W/m.h5 -o OUT
embed|read compute write|e.h5|$W/m.h5 $W/render.obj -o OUT
epexport|read compute write|x.veg|$W/m.h5 -o OUT
epmerge|read merge|p.h5|$W/part.0.h5 $W/part.1.h5 -o OUT
femdata|read assemble element data write|d.h5|$D/cube.msh -E 1e6 --nu 0.3 --rho 800 -o OUT
fullsim|read set up simulate and write|t.h5|$D/beam-h0.05.msh --fixed-region fixed -E 1e6 --nu 0.3 $W/tip.loads --static --load-steps 1 -o OUT
mghier|read compute write|h.h5|$D/beam-h0.025.msh --coarse $D/beam-h0.05.msh --fixed-region fixed -E 1e7 --nu 0.3 --rho 1000 -o OUT
distfield|read compute write|z.h5|$D/icosahedron.obj --res 12 -o OUT
rtcheck|read check report||$W/m.h5
cubature|read compute write|q.h5|$W/m.h5 -o OUT
pointshell|read compute write|ps.h5|$D/icosahedron.obj --levels 2 --first 20 -o OUT
zonesplit|read compute write|zs.h5|$W/bar2.msh --region 1 --fixed-box -1,-1,-1,1e-9,2,2 -o OUT
EOF

# every tool of cmd/ has a case
for c in cmd/*.c; do
    t=$(basename "$c" .c)
    grep -q "^$t|" "$W/cases" || not_ok "$t has a case in verbose.sh"
done

while IFS='|' read -r tool stages out args; do
    set --
    for a in $args; do
        case $a in OUT) set -- "$@" "$W/plain-$out" ;; *) set -- "$@" "$a" ;; esac
    done
    "$BIN/$tool" "$@" >"$W/p.out" 2>"$W/p.err"
    ps=$?
    set --
    for a in $args; do
        case $a in OUT) set -- "$@" "$W/v-$out" ;; *) set -- "$@" "$a" ;; esac
    done
    inputs=$(for a in "$@"; do [ -f "$a" ] && [ "$a" != "$W/v-$out" ] && echo "$a"; done)
    "$BIN/$tool" -v "$@" >"$W/v.out" 2>"$W/v.err"
    vs=$?
    if [ $ps -ne 0 ] || [ $vs -ne 0 ]; then
        not_ok "$tool: runs with and without -v" "status $ps and $vs: $(head -c 300 "$W/v.err")"
        continue
    fi
    r=$($PY - "$tool" "$stages" "$W" "$out" "$inputs" <<'PY'
import re, sys, os
import h5py, numpy as np
tool, stages, w, out, inputs = sys.argv[1:6]
inputs = [l for l in inputs.split("\n") if l]
mask = lambda l: re.sub(r"[0-9][0-9.e+-]*", "#", l.replace(w + "/plain-", "OUT").replace(w + "/v-", "OUT"))
bad = []
for s in ("out", "err"):
    plain = [mask(l) for l in open(w + "/p." + s)]
    verbose = [mask(l) for l in open(w + "/v." + s)]
    # the plain lines in order within the -v lines
    k = 0
    for l in plain:
        while k < len(verbose) and verbose[k] != l:
            k += 1
        if k == len(verbose):
            bad.append("plain line missing from -v std%s: %s" % (s, l.strip()))
            break
        k += 1
err = open(w + "/v.err").read().split("\n")
nplain = sum(1 for s in ("out", "err") for _ in open(w + "/p." + s))
nverbose = sum(1 for s in ("out", "err") for _ in open(w + "/v." + s))
if nverbose <= nplain:
    bad.append("-v prints %d lines, no more than the %d without it" % (nverbose, nplain))
st = [l for l in err if l.startswith(tool + ": stages: ")]
if len(st) != 1:
    bad.append("no stages line")
else:
    got = [m.group(1) for m in re.finditer(r"(?:: |, )([a-z][a-z ]*?) [0-9.e+-]+ s \(CPU [0-9.e+-]+ s\)", st[0])]
    if " ".join(got) != stages:  # names may hold blanks ("solve and write"): the joined text
        bad.append("stages %s, expected %s" % (got, stages))
if not any(re.match(r"%s: run: [0-9.e+-]+ s wall, [0-9.e+-]+ s CPU \(user [0-9.e+-]+, system [0-9.e+-]+\) on \d+ threads?; "
                    r"peak resident memory [0-9.]+ (bytes|KiB|MiB|GiB)$" % tool, l) for l in err):
    bad.append("no run line (wall, CPU, threads, peak memory)")
for i in inputs:
    if not any(l.startswith("%s: input %s: " % (tool, i)) for l in err):
        bad.append("input %s not reported" % i)
if out:
    p, v = w + "/plain-" + out, w + "/v-" + out
    if not any(l.startswith("%s: output %s: " % (tool, v)) for l in err):
        bad.append("output not reported")
    if out.endswith(".h5"):
        f, g = h5py.File(p, "r"), h5py.File(v, "r")
        listed = {}
        for l in err:
            m = re.match(r"%s:   (/\S+) (\S+) (\S+) [0-9.]+ (bytes|KiB|MiB|GiB)$" % tool, l)
            if m:
                listed[m.group(1)] = (m.group(2), m.group(3))
        found = {}
        def visit(name, o):
            if isinstance(o, h5py.Dataset):
                dt = o.dtype
                t = ("string" if dt.kind in "SOU" else ("float" if dt.kind == "f" else "uint" if dt.kind == "u" else "int")
                     + ("" if dt.kind in "SOU" else str(8 * dt.itemsize)))
                found["/" + name] = (t, "".join("[%d]" % d for d in o.shape) if o.shape else "scalar")
        g.visititems(visit)
        if listed != found:
            bad.append("-v lists %s, the file holds %s" % (sorted(set(listed.items()) ^ set(found.items()))[:4], len(found)))
        # the same data without and with -v
        def same(a, b, path="/"):
            if set(a.keys()) != set(b.keys()):
                return path
            for k in a:
                if isinstance(a[k], h5py.Dataset):
                    x, y = a[k][()], b[k][()]
                    if x.dtype.kind in "SOU" or x.dtype == object or x.dtype.kind in "iub":
                        eq = np.array_equal(x, y)
                    else:  # floats: femdata's mass properties sum over threads in any order (1e-14)
                        eq = x.shape == y.shape and np.allclose(x, y, rtol=1e-12, atol=1e-12 * np.abs(x).max(initial=0))
                    if not eq:
                        return path + k
                else:
                    r = same(a[k], b[k], path + k + "/")
                    if r:
                        return r
            return None
        d = same(f, g)
        if d:
            bad.append("the outputs differ at %s" % d)
    elif open(p, "rb").read() != open(v, "rb").read():
        bad.append("the outputs differ")
print("ok" if not bad else "; ".join(bad))
PY
)
    if [ "$r" = ok ]; then ok "$tool: -v adds stages, resources and files to everything it prints without, same output"
    else not_ok "$tool: -v" "$r"; fi
done <"$W/cases"

# voxelize's passes: with -v each is announced and timed; without it, quiet
# unless a pass runs for seconds (progress.h)
"$BIN/voxelize" -v $D/icosahedron.obj -R 8 -o "$W/vp.h5" >/dev/null 2>"$W/vp.err"
check "voxelize -v: each pass announced and timed (touched cells, outside cells, components, mesh; the mesh's checks and boundary faces)" \
    [ "$(grep -E '^voxelize: [a-z ]+: done in [0-9.e+-]+ s$' "$W/vp.err" | sed 's/: done in .*//' | tr '\n' ,)" = \
      "voxelize: touched cells,voxelize: outside cells,voxelize: components,voxelize: mesh,voxelize: checking hexahedra,voxelize: boundary faces," ]
check "voxelize -v: the grid's size and memory" grep -Eq '^voxelize: grid: [0-9]+ x [0-9]+ x [0-9]+ = [0-9]+ cells' "$W/vp.err"
"$BIN/voxelize" $D/icosahedron.obj -R 8 -o "$W/vq.h5" >/dev/null 2>"$W/vq.err"
check "voxelize without -v: no pass lines on a short run" [ ! -s "$W/vq.err" ]
finish
