#!/bin/sh
# Hardening, round three (issue 37): one check per class of the red team's
# report, each failing on the tools and scripts before its fix.  Classes:
#   1 data loss in merges        2 parts are input         3 shell injection
#   4 sidecars in the commit     5 signals, thread stacks  6 bounded work
#   7 bad input accepted         8 messages                9 folded scan surfaces
. "$(dirname "$0")/common"
D=data
O="$WORK/out/o.h5"
E="$BIN/epmerge"
FC="$D/cube.msh --fixed-region bottom -E 1e6 --nu 0.3"

# edit IN OUT PYTHON: a copy of IN, changed by PYTHON over its open h5py File f
edit() {
    cp "$1" "$2"
    /usr/bin/python3 -c "import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], 'a')
$3" "$2"
}

for i in 0 1 2; do "$BIN/femcondense" -q $FC --part $i/3 -o "$WORK/p.$i.h5"; done
cp "$WORK/p.1.h5" "$WORK/keep.1.h5"

# --- class 1: an output that is an input, by any path -------------------------------
ln -s p.1.h5 "$WORK/link.h5"
ln "$WORK/p.0.h5" "$WORK/hard.h5"
for v in "" --virtual; do
    for o in p.1.h5 link.h5 hard.h5; do
        expect_fail "class 1: epmerge $v -o $o, an input (--virtual made it map itself)" 2 "the output is the input .*p\.[01]\.h5 \(the same file\)" \
            epmerge $v "$WORK/p.0.h5" "$WORK/p.1.h5" "$WORK/p.2.h5" -o "$WORK/$o"
    done
done
check "class 1: the part is untouched" cmp -s "$WORK/p.1.h5" "$WORK/keep.1.h5"
expect_fail "class 1: gfcompress -o its own input by a symbolic link" 2 "link.h5: the output is the input" gfcompress "$WORK/p.1.h5" -o "$WORK/link.h5"

# The Slurm merge job: parts named with blanks and globs, another run's
# files beside them and in the job's folder; it merges and removes its own.
mkdir -p "$WORK/slurm/run *" "$WORK/slurm/cwd"
R="$WORK/slurm/run */g f"
for i in 0 1 2; do cp "$WORK/p.$i.h5" "$R.$i.h5"; cp "$WORK/p.$i.h5" "$WORK/slurm/cwd/x.$i.h5"; done
cp "$WORK/p.0.h5" "$WORK/slurm/run */other.0.h5"
ABIN=$(cd "$BIN" && pwd)
(cd "$WORK/slurm/cwd" && EP_PARTS=3 EP_OUT="$R" EP_BIN="$ABIN" sh "$OLDPWD/scripts/slurm/merge.sbatch" "$WORK/slurm/merged.h5" >/dev/null 2>&1)
check "class 1: merge.sbatch merged the run's parts" [ -f "$WORK/slurm/merged.h5" ]
check "class 1: merge.sbatch removed exactly them" sh -c "! ls '$R'.*.h5 2>/dev/null && [ -f '$WORK/slurm/run */other.0.h5' ] && [ \$(ls '$WORK/slurm/cwd' | wc -l) = 3 ]"
(EP_PARTS='2; touch pwned' EP_OUT="$R" EP_BIN="$ABIN" sh scripts/slurm/merge.sbatch "$WORK/slurm/m2.h5" >/dev/null 2>&1)
check "class 1: merge.sbatch refuses a part count that is not a number" [ ! -e pwned ] && [ ! -e "$WORK/slurm/m2.h5" ]

# --- class 2: parts are input ---------------------------------------------------------
P0="$WORK/p.0.h5" P2="$WORK/p.2.h5"
edit "$WORK/p.1.h5" "$WORK/rows.h5" "x = f['gf/xi'][()]; del f['gf/xi']; f['gf/xi'] = x[:-3]"
edit "$WORK/p.1.h5" "$WORK/f32.h5" "x = f['gf/xi'][()]; del f['gf/xi']; f.create_dataset('gf/xi', data=x.astype('f4'))"
edit "$WORK/p.1.h5" "$WORK/nan.h5" "x = f['gf/xi']; x[2, 5] = float('nan')"
edit "$WORK/p.1.h5" "$WORK/kind.h5" "f.attrs['kind'] = 'cubic'"
edit "$WORK/p.1.h5" "$WORK/half.h5" "f['part'].attrs['index'] = 1.5"
edit "$WORK/p.1.h5" "$WORK/huge.h5" "f['part'].attrs['index'] = 1e12"
edit "$WORK/p.1.h5" "$WORK/mat.h5" "f['material'].attrs['E'] = 2e6"
edit "$WORK/p.1.h5" "$WORK/mesh.h5" "v = f['mesh/vertices']; v[0, 0] += 1e-3"
edit "$WORK/p.1.h5" "$WORK/rowv.h5" "r = f['gf/row_vertex']; r[0], r[1] = r[1], r[0]"
expect_fail "class 2: a part's rows are not the columns it claims" 3 "rows.h5: /gf/xi has [0-9]+ rows, its /part claims columns" epmerge "$P0" "$WORK/rows.h5" "$P2" -o "$O"
expect_fail "class 2: float32 rows among float64 parts" 3 "f32.h5: /gf/xi is float32, .*p.0.h5's is float64" epmerge "$P0" "$WORK/f32.h5" "$P2" -o "$O"
expect_fail "class 2: a NaN in a part" 3 "nan.h5: /gf/xi: value is not finite at row 2" epmerge "$P0" "$WORK/nan.h5" "$P2" -o "$O"
expect_fail "class 2: a NaN in a part, --virtual" 3 "nan.h5: /gf/xi: value is not finite at row 2" epmerge --virtual "$P0" "$WORK/nan.h5" "$P2" -o "$O"
expect_fail "class 2: a part of another kind" 3 "kind.h5: a cubic file, .*p.0.h5 a gf file" epmerge "$P0" "$WORK/kind.h5" "$P2" -o "$O"
expect_fail "class 2: a part index that is no integer" 3 "half.h5: /part: index 1.5 is not a part index" epmerge "$P0" "$WORK/half.h5" "$P2" -o "$O"
expect_fail "class 8: a huge part index reported as given" 3 "huge.h5: /part: index 1000000000000 is not a part index" epmerge "$P0" "$WORK/huge.h5" "$P2" -o "$O"
expect_fail "class 2: a part of another material's run (its hash kept)" 3 "mat.h5: attribute E of /material differs from .*p.0.h5's" epmerge "$P0" "$WORK/mat.h5" "$P2" -o "$O"
expect_fail "class 2: a part of another mesh (its hash kept)" 3 "mesh.h5: /mesh/vertices differs from .*p.0.h5's" epmerge "$P0" "$WORK/mesh.h5" "$P2" -o "$O"
expect_fail "class 2: a part with other rows" 3 "rowv.h5: /gf/row_vertex differs" epmerge "$P0" "$WORK/rowv.h5" "$P2" -o "$O"
for i in 0 1 2; do
    edit "$WORK/p.$i.h5" "$WORK/bad.$i.h5" "t = f['mesh/tets']; a = t[0]; t[0] = [a[1], a[0], a[2], a[3]]"
done
expect_fail "class 2: part 0's model validated (an inverted tet in every part)" 3 "bad.0.h5: .*(tet|boundary)" epmerge "$WORK"/bad.[0-2].h5 -o "$O"
cp "$WORK/p.1.h5" "$WORK/v1.h5"
"$E" -q --virtual "$P0" "$WORK/v1.h5" "$P2" -o "$WORK/virtual.h5"
rm "$WORK/v1.h5"
expect_fail "class 2: a virtual merge whose part was deleted (rtcheck said ok)" 3 "virtual.h5: dataset /gf/[a-z_]+ maps rows of v1.h5, which is missing" rtcheck "$WORK/virtual.h5"
expect_fail "class 2: the same for gfcompress (read zeros)" 3 "maps rows of v1.h5, which is missing" gfcompress "$WORK/virtual.h5" -o "$O"

# --- class 3: hostile names reach no shell ---------------------------------------------
# The pipeline on names with ; $() backticks quotes % globs and blanks: one
# line, exit 2, nothing run (these ran "touch pwned"); and on a name with
# every character it takes, run as files.
mkdir -p "$WORK/mk"
cp $D/icosahedron.obj "$WORK/mk/ok,name+1@x~.obj"
PL="make -s -f scripts/pipeline.mk BIN=$BIN MATERIAL=-E\ 1e6\ --nu\ 0.3\ --rho\ 1000 MODES=-k\ 4\ -r\ 4 RES=6"
n=0
for v in "OUT=$WORK/mk/a;touch pwned" "OUT=$WORK/mk/a\$(touch pwned)" "SOUP=$WORK/mk/a\`touch pwned\`.obj" \
    "OUT=$WORK/mk/it's" "OUT=$WORK/mk/a b" "OUT=$WORK/mk/a%b" "OUT=$WORK/mk/*" "SOUP=$WORK/mk/\"q\".obj" \
    "MATERIAL=-E 1e6 --nu 0.3; touch pwned" "VOXEL=--largest \$(touch pwned)"; do
    n=$((n + 1))
    (cd "$WORK/mk" && make -s -f "$OLDPWD/scripts/pipeline.mk" BIN="$OLDPWD/$BIN" SOUP="$WORK/mk/ok,name+1@x~.obj" "$v" soup >"$WORK/stdout" 2>"$WORK/stderr")
    got=$?
    check "class 3: pipeline.mk $v: refused, one line, nothing run (got $got: $(head -c 160 "$WORK/stderr"))" \
        sh -c "[ $got -eq 2 ] && [ \$(wc -l <'$WORK/stderr') -eq 1 ] && grep -q 'pipeline.mk:.*\\*\\*\\* [A-Z]*=' '$WORK/stderr' && [ ! -e '$WORK/mk/pwned' ] && [ ! -e pwned ]"
done
(cd "$WORK/mk" && make -s -f "$OLDPWD/scripts/pipeline.mk" BIN="$OLDPWD/$BIN" SOUP="ok,name+1@x~.obj" OUT="run,1+2@x~" \
    MATERIAL="-E 1e6 --nu 0.3 --rho 1000" MODES="-k 4 -r 4" RES=6 soup >/dev/null 2>"$WORK/stderr")
check "class 3: pipeline.mk on a name of every character it takes: run as files ($(head -c 160 "$WORK/stderr"))" [ -f "$WORK/mk/run,1+2@x~/rtcheck-soup.txt" ]

# --- class 4: sidecars inside the commit ---------------------------------------------
mkdir -p "$WORK/x"
echo secret >"$WORK/x/target.txt"
ln -s target.txt "$WORK/x/s.xmf"
"$BIN/loopsub" -q $D/icosahedron.obj -l 1 -o "$WORK/x/s.h5"
check "class 4: a symbolic link at the sidecar's name is replaced, not followed" sh -c "[ \"\$(cat '$WORK/x/target.txt')\" = secret ] && [ ! -L '$WORK/x/s.xmf' ] && grep -q Xdmf '$WORK/x/s.xmf'"
"$BIN/loopsub" -q $D/icosahedron.obj -l 1 -o "$WORK/x/a--b&<c>\"d'.h5"
check "class 4: names in XML escaped, the comment too (well formed)" xmllint --noout "$WORK/x/a--b&<c>\"d'.xmf"
for c in : '|'; do
    "$BIN/loopsub" -q $D/icosahedron.obj -l 1 -o "$WORK/x/a${c}b.h5" 2>"$WORK/stderr"
    check "class 4: a name with '$c': the file, no sidecar pointing elsewhere, one warning" \
        sh -c "[ -f '$WORK/x/a${c}b.h5' ] && [ ! -e '$WORK/x/a${c}b.xmf' ] && [ \$(wc -l <'$WORK/stderr') -eq 1 ] && grep -q '^loopsub: warning: .*no XDMF sidecar' '$WORK/stderr'"
done
# one sidecar per grid (issue 45): a tet model's surface has its own, under the same rules
ln -s target.txt "$WORK/x/t.surface.xmf"
"$BIN/moddesc" -q $D/models/beam3/beam3_tet.veg --fixed-ids $D/models/beam3/beam3.bou -E 1e7 --nu 0.4 --rho 1000 \
    -k 2 -r 2 -o "$WORK/x/t--<&>.h5"
"$BIN/moddesc" -q $D/models/beam3/beam3_tet.veg --fixed-ids $D/models/beam3/beam3.bou -E 1e7 --nu 0.4 --rho 1000 \
    -k 2 -r 2 -o "$WORK/x/t.h5"
check "class 4: the surface sidecar: a symbolic link there replaced, not followed; names escaped" \
    sh -c "[ \"\$(cat '$WORK/x/target.txt')\" = secret ] && [ ! -L '$WORK/x/t.surface.xmf' ] && grep -q Xdmf '$WORK/x/t.surface.xmf' && xmllint --noout '$WORK/x/t--<&>.xmf' '$WORK/x/t--<&>.surface.xmf'"
"$BIN/moddesc" -q $D/models/beam3/beam3_tet.veg --fixed-ids $D/models/beam3/beam3.bou -E 1e7 --nu 0.4 --rho 1000 \
    -k 2 -r 2 -o "$WORK/x/a:t.h5" 2>"$WORK/stderr"
check "class 4: a name with ':' and two grids: no sidecar at all, one warning" \
    sh -c "[ -f '$WORK/x/a:t.h5' ] && [ -z \"\$(ls '$WORK/x' | grep '^a:t.*xmf')\" ] && [ \$(wc -l <'$WORK/stderr') -eq 1 ]"
if command -v strace >/dev/null; then
    strace -f -e trace=rename,renameat,renameat2 -o "$WORK/trace" "$BIN/loopsub" -q $D/icosahedron.obj -l 1 -o "$WORK/x/order.h5"
    check "class 4: the sidecar is renamed into place before the HDF5 file" \
        sh -c "grep -n 'order\\.xmf\"' '$WORK/trace' | head -1 | cut -d: -f1 >'$WORK/a'; grep -n 'order\\.h5\"' '$WORK/trace' | head -1 | cut -d: -f1 >'$WORK/b'; [ -s '$WORK/a' ] && [ \$(cat '$WORK/a') -lt \$(cat '$WORK/b') ]"
    strace -f -e trace=rename,renameat,renameat2 -o "$WORK/trace" "$BIN/moddesc" -q $D/models/beam3/beam3_tet.veg \
        --fixed-ids $D/models/beam3/beam3.bou -E 1e7 --nu 0.4 --rho 1000 -k 2 -r 2 -o "$WORK/x/order2.h5"
    check "class 4: both sidecars (mesh, surface) renamed into place before the HDF5 file" \
        sh -c "grep -n 'rename' '$WORK/trace' | grep -v '= -1' | sed 's/.*\\(order2[.a-z0-9]*\\)\"[^\"]*\$/\\1/' | tr '\\n' ' ' >'$WORK/a'; [ \"\$(cat '$WORK/a')\" = 'order2.xmf order2.surface.xmf order2.h5 ' ]"
fi

# --- class 5: thread stacks ----------------------------------------------------------
M="$D/models/beam3/beam3_tet.veg --fixed-ids $D/models/beam3/beam3.bou -E 1e6 --nu 0.3 --rho 1000 -k 6 -r 6"
(ulimit -S -s 128; "$BIN/moddesc" -q $M -o "$WORK/stack.h5" 2>"$WORK/stderr")
got=$?
check "class 5: moddesc under a soft stack limit of 128 KiB: raised, threads get their stacks (was SIGSEGV; got $got)" [ $got -eq 0 ]
# (a hard limit of 256 KiB: 128 KiB crashed now and then before main, in the
# loader, where no tool can act)
(ulimit -s 256; "$BIN/moddesc" -q $M -o "$WORK/stack.h5" >"$WORK/stdout" 2>"$WORK/stderr")
got=$?
check "class 5: a hard stack limit of 256 KiB refused before the work, one line (got $got)" \
    sh -c "[ $got -eq 2 ] && [ \$(wc -l <'$WORK/stderr') -eq 1 ] && grep -q '^moddesc: the stack limit (ulimit -s) is 256 KiB, below the 1 MiB' '$WORK/stderr'"

# --- class 6: bounded work -----------------------------------------------------------
# 300 parts (most empty) under an open-file limit of 64: the merge holds
# three files at a time (it held them all: "Too many open files").
"$BIN/femcondense" -q $FC --no-xdmf --part 0/300 -o "$WORK/e0.h5"
N=300
/usr/bin/python3 - "$WORK" "$N" "$BIN" "$FC" <<'EOF'
import h5py, shutil, subprocess, sys, math
w, n, b, fc = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4].split()
total = h5py.File(w + '/e0.h5', 'r')['part'].attrs['total']
grain = 64
G = math.ceil(total / grain)
empty = w + '/e0.h5'
for i in range(n):
    g0, g1 = i * G // n, (i + 1) * G // n
    p = '%s/many.%d.h5' % (w, i)
    if g0 != g1:
        subprocess.check_call([b + '/femcondense', '-q'] + fc + ['--no-xdmf', '--part', '%d/%d' % (i, n), '-o', p])
        continue
    shutil.copy(empty, p)
    with h5py.File(p, 'a') as f:
        lo = min(g0 * grain, total)
        for k, v in (('index', i), ('lo', lo), ('hi', lo)):
            f['part'].attrs.modify(k, v)
EOF
"$BIN/femcondense" -q $FC -o "$WORK/whole.h5"
(ulimit -n 64; "$E" -q "$WORK"/many.*.h5 -o "$WORK/many.h5" 2>"$WORK/stderr")
check "class 6: epmerge of $N parts under ulimit -n 64 ($(head -c 200 "$WORK/stderr"))" /usr/bin/python3 tests/cli/partcheck.py "$WORK/whole.h5" "$WORK/many.h5"

# Huge triangles: 80 copies of a diagonal square across the box at R = 200;
# every triangle's bounding box is the whole grid (8e6 cells each: over
# 100 s of CPU), the cells it covers 40000 (a CPU-time cap, not a clock).
/usr/bin/python3 -c "
print('v 0 0 0\nv 1 1 0\nv 1 1 1\nv 0 0 1')
for k in range(40): print('f 1 2 3\nf 1 3 4')" >"$WORK/diag.obj"
(ulimit -t 40; "$BIN/voxelize" -q "$WORK/diag.obj" -R 200 -E 1e6 --nu 0.3 --rho 1 -o "$WORK/diag.h5" 2>"$WORK/stderr")
got=$?
check "class 6: voxelize on 80 box-spanning triangles within 40 s of CPU (got $got)" [ $got -eq 0 ]
# Far render vertices: refused without walking every ring of buckets.
"$BIN/voxelize" -q $D/models/asianDragon/asianDragon.obj -R 40 --largest -E 1e6 --nu 0.3 --rho 1000 -o "$WORK/vd.h5"
/usr/bin/python3 -c "
n = 240000
for i in range(n): print('v %g %g %g' % (1e3 + i * 1e-3, 2e3, -1e3))
for i in range(0, n - 2, 3): print('f %d %d %d' % (i + 1, i + 2, i + 3))" >"$WORK/far.obj"
(ulimit -t 20; "$BIN/embed" -q "$WORK/vd.h5" "$WORK/far.obj" -o "$WORK/far.h5" >/dev/null 2>"$WORK/stderr")
got=$?
check "class 6: embed refuses 240000 far render vertices within 20 s of CPU (got $got)" \
    sh -c "[ $got -eq 3 ] && grep -q 'render vertex 1 (1000, 2000, -1000) is farther than' '$WORK/stderr'"

# --- class 7: bad input accepted -----------------------------------------------------
sed 's/^2$/4294967298/' tests/fuzz/seed.veg >"$WORK/ovf.veg"
expect_fail "class 7: a *SET element id beyond int (was element 2)" 3 "ovf.veg:[0-9]+: element 4294967298 out of the range of ids" \
    moddesc "$WORK/ovf.veg" --free -k 2 -r 2 -o "$O"
/usr/bin/python3 - "$WORK/ovt.msh" <<'EOF'
import sys
out, inel, done = [], False, False
for l in open('data/cube-v22.msh').read().split('\n'):
    inel = (inel or l.startswith('$Elements')) and not l.startswith('$EndElements')
    w = l.split()
    if inel and len(w) > 5 and w[1] == '4' and not done:
        w[3], done = '4294967297', True
        l = ' '.join(w)
    out.append(l)
open(sys.argv[1], 'w').write('\n'.join(out))
EOF
expect_fail "class 7: a region tag beyond int (was region 1)" 3 "ovt.msh:[0-9]+: tag 4294967297 out of the range of region ids" \
    moddesc "$WORK/ovt.msh" --free -E 1 --nu 0.3 --rho 1 -k 2 -r 2 -o "$O"
"$BIN/moddesc" -q $FC --rho 1000 -k 4 -r 6 -o "$WORK/md.h5"
expect_fail "class 7: epexport --basis /mesh/vertices (written as a basis)" 3 "/mesh/vertices is \[[0-9]+\]\[3\], not a basis" \
    epexport "$WORK/md.h5" --basis /mesh/vertices -o "$WORK/out/b.U"

# --- class 8: messages ---------------------------------------------------------------
expect_fail "class 8: memory below 1 GiB keeps its unit (was 0.00 GiB)" 3 "needs about [0-9.]+ MiB, more than the 1 MiB" \
    voxelize "$WORK/diag.obj" -R 100 --max-memory 1M -E 1 --nu 0.3 --rho 1 -o "$O"
# A tiny model (the beam 1e-50 across; subnormal: 1e-310) is reported against
# its size, not as a rank, an eigen decomposition, a rigid motion or a
# degenerate tet (what moddesc said).
for e in 50 310; do
    /usr/bin/python3 - "$e" "$WORK/tiny$e.veg" <<'PY'
import sys
e, out, sec, first = int(sys.argv[1]), [], None, False
for l in open('data/models/beam3/beam3_tet.veg').read().split('\n'):
    w = l.split()
    if l.startswith('*'):
        sec, first = l.strip(), True
    elif sec == '*VERTICES' and len(w) == 4 and not first:
        l = '%s %.17g %.17g %.17g' % (w[0], *(float(x) * 10.0 ** -e for x in w[1:]))
    first = first and not w
    out.append(l)
open(sys.argv[2], 'w').write('\n'.join(out))
PY
    expect_fail "class 8: a model 1e-$e across is reported by its size" 3 "tiny$e.veg: the model is [0-9.e-]+ across .*below 1e-40" \
        moddesc "$WORK/tiny$e.veg" --fixed-ids data/models/beam3/beam3.bou -E 1e7 --nu 0.4 --rho 1000 -k 4 -r 6 -o "$O"
done
# Several closed parts: a sphere and one 20 times smaller, simplified to a
# base of 10: the small one kept 3 vertices on 2 faces ("vertex 8 is on 2
# faces"); now each part keeps a tetrahedron or more.
/usr/bin/python3 tests/cli/surfaces.py sphere "$WORK/sph.obj" 4
/usr/bin/python3 - "$WORK/sph.obj" "$WORK/parts.obj" <<'PY'
import sys
v = [l.split()[1:4] for l in open(sys.argv[1]) if l.startswith('v ')]
f = [l.split()[1:4] for l in open(sys.argv[1]) if l.startswith('f ')]
out = ['v ' + ' '.join(x) for x in v] + ['v %.17g %.17g %.17g' % (0.05 * float(a) + 3, 0.05 * float(b), 0.05 * float(c)) for a, b, c in v]
out += ['f ' + ' '.join(x) for x in f] + ['f ' + ' '.join(str(int(i) + len(v)) for i in x) for x in f]
open(sys.argv[2], 'w').write('\n'.join(out) + '\n')
PY
"$BIN/loopsub" "$WORK/parts.obj" --base 10 -l 2 -o "$WORK/parts.h5" >"$WORK/parts.txt" 2>&1
got=$?
check "class 8: loopsub --base 10 on two closed parts of unequal size (exit $got: $(grep -v model: "$WORK/parts.txt" | head -1 | cut -c1-90))" [ $got -eq 0 ]
check "class 8: ... both parts kept, genus 0 of the scan's 0, each base part 4 vertices or more" [ "$(h5 "$WORK/parts.h5" "int(f['mesh'].attrs['genus']), int(f['mesh'].attrs['scan_genus']), sorted(int(((f['mesh/vertices'][:][f['mesh/level'][:] == 0, 0] > 2) == k).sum()) >= 4 for k in (0, 1)), int((f['mesh/vertices'][:, 0] > 2).sum()) > 0")" = "0 0 [True, True] True" ]

# --- class 9: scan surfaces without folds ------------------------------------------------
# The dragon scan at L = 3 (the issue's test): folds and angles counted here
# from the written surface, not taken from loopsub's report.
# surface_quality FILE: "FOLDED MIN_ANGLE" of the surface /mesh in FILE, a
# folded triangle being one whose normal opposes the sum of the unit normals
# of the triangles around its corners (elastoprep(5)).
surface_quality() {
    /usr/bin/python3 - "$1" <<'PY'
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], 'r')
x, t = f['mesh/vertices'][:], f['mesh/triangles'][:]
n = np.cross(x[t[:, 1]] - x[t[:, 0]], x[t[:, 2]] - x[t[:, 0]])
n /= np.linalg.norm(n, axis=1)[:, None]
s = np.zeros_like(x)
for k in range(3):
    np.add.at(s, t[:, k], n)
folded = int(((n * (s[t[:, 0]] + s[t[:, 1]] + s[t[:, 2]] - 3 * n)).sum(1) < 0).sum())
ang = [np.arctan2(np.linalg.norm(np.cross(x[t[:, (k + 1) % 3]] - x[t[:, k]], x[t[:, (k + 2) % 3]] - x[t[:, k]]), axis=1),
                  ((x[t[:, (k + 1) % 3]] - x[t[:, k]]) * (x[t[:, (k + 2) % 3]] - x[t[:, k]])).sum(1)) for k in range(3)]
print(folded, np.degrees(np.min(ang)))
PY
}
"$BIN/loopsub" data/models/asianDragon/asianDragon.obj --base 150 -l 3 -o "$WORK/dragon.h5" >"$WORK/dragon.txt" 2>&1
got=$?
set -- $(surface_quality "$WORK/dragon.h5" 2>/dev/null)
check "class 9: loopsub --base 150 -l 3 on the dragon scan (exit $got; was 96 opposed normals, smallest angle 0.6)" [ $got -eq 0 ]
check "class 9: ... no folded triangle (counted here: ${1:-none})" [ "${1:-x}" = 0 ]
check "class 9: ... no angle under 5 degrees (smallest: ${2:-none})" awk -v a="${2:-0}" 'BEGIN { exit !(a >= 5) }'
attrs=$(h5 "$WORK/dragon.h5" "int(f['mesh'].attrs['folded_triangles']), bool(f['mesh'].attrs['min_angle'] >= 5)" 2>&1)
check "class 9: ... the report and /mesh's attributes say so ($attrs)" sh -c "grep -q ', 0 folded triangles;' '$WORK/dragon.txt' && [ '$attrs' = '0 True' ]"
dist=$(h5 "$WORK/dragon.h5" "'%.4f %.3f' % (100 * f['mesh'].attrs['rms_distance'], 100 * f['mesh'].attrs['hausdorff'])" 2>&1)
check "class 9: ... and the pass keeps it on the scan: RMS <= 0.1%, Hausdorff <= 1.1% of the diagonal (RMS, Hausdorff %: $dist; 0.117 and 2.91 when the pass moved whole patches)" \
    awk -v r="${dist%% *}" -v h="${dist##* }" 'BEGIN { exit !(r + 0 > 0 && r <= 0.1 && h <= 1.1) }'
# What the pass cannot fix is refused with the counts (exit 1, nothing
# written): a base whose two apexes have 80 faces each.  The faces at a
# vertex of a smooth surface share about 360 degrees, so one keeps an angle
# under 360/80 = 4.5 whatever the pass does.  With 40 faces (9 degrees
# each) the same scan fits.
/usr/bin/python3 tests/cli/surfaces.py sphere "$WORK/s3.obj" 3
/usr/bin/python3 tests/cli/surfaces.py bipyramid "$WORK/bip80.obj" 80
/usr/bin/python3 tests/cli/surfaces.py bipyramid "$WORK/bip40.obj" 40
expect_fail "class 9: a base with 80 faces at a vertex: refused with the counts" 1 \
    "s3\.obj: the fitted surface keeps [0-9]+ folded triangles? and [1-9][0-9]* with an angle under 5 degrees" \
    loopsub -q "$WORK/s3.obj" --base-mesh "$WORK/bip80.obj" -l 1 -o "$WORK/out/b80.h5"
"$BIN/loopsub" -q "$WORK/s3.obj" --base-mesh "$WORK/bip40.obj" -l 1 -o "$WORK/b40.h5"
got=$?
set -- $(surface_quality "$WORK/b40.h5" 2>/dev/null)
check "class 9: ... with 40 faces it fits (exit $got; folded ${1:-none}, smallest angle ${2:-none})" \
    sh -c "[ $got -eq 0 ] && [ '${1:-x}' = 0 ] && awk -v a='${2:-0}' 'BEGIN { exit !(a >= 5) }'"

# --- class 5: every catchable signal cleans up -----------------------------------------
ulimit -c 0
"$BIN/loopsub" -q $D/icosahedron.obj -l 2 --fixed-box -2,-2,-2,2,2,-0.5 -o "$WORK/s.h5"
"$BIN/bemsolve" -q "$WORK/s.h5" -E 1e5 --nu 0.3 -o "$WORK/gf.h5"
mkdir -p "$WORK/scripts" # a stand-in gfplot that holds the run (tests/cli/output.sh)
printf '#!/bin/sh\ncat >/dev/null; echo $$ >"$GFPLOT_READY.tmp"; mv "$GFPLOT_READY.tmp" "$GFPLOT_READY"; exec sleep 60\n' >"$WORK/scripts/gfplot"
chmod +x "$WORK/scripts/gfplot"
n=0
# SIGPWR 30, SIGIO 29, SIGSYS 31, SIGTRAP 5, SIGSTKFLT 16, real-time 34 (SIGRTMIN), 40, 64 (SIGRTMAX)
for sig in 30 29 31 5 16 34 40 64; do
    n=$((n + 1))
    rm -rf "$WORK/out" && mkdir -p "$WORK/out"
    ready="$WORK/ready$n"
    ELASTOPREP_SCRIPTS="$WORK/scripts" GFPLOT_READY="$ready" "$BIN/gfcompress" -q "$WORK/gf.h5" --sweep 0.1 --plot "$WORK/out/p.png" \
        -o "$WORK/out/w.h5" >/dev/null 2>&1 &
    pid=$!
    k=0
    while [ ! -f "$ready" ] && [ $k -lt 300 ]; do sleep 0.1; k=$((k + 1)); done
    kill -$sig $pid
    wait $pid
    got=$?
    [ -f "$ready" ] && kill "$(cat "$ready")" 2>/dev/null
    check "class 5: signal $sig: the run ends, nothing left (status $got: $(ls -A "$WORK/out" | tr '\n' ' '))" sh -c "[ $got -ge 129 ] && [ -z \"\$(ls -A '$WORK/out')\" ]"
done

finish
