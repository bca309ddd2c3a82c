#!/bin/sh
# Split runs (issue 18) on the 155k-tet dragon (../shared/models), each part
# run one after the other on this machine, so a part's time is what a batch
# task would take:
#   polycoef r = 30 in 8 parts: the sum of the part times within 10% of the
#     single run; the merge under 1 s;
#   moddesc in 4 parts (part 0 computes the modes, the others read them):
#     the sum within 15%;
#   femcondense in 4 parts, on every 4th boundary column (the full dense run
#     writes 29 GB; single run, parts and merge would need 87 GB): the
#     repeated factorization's overhead, the merge rate beside the disk's
#     write rate (dd direct, fdatasync), and a --virtual merge under 1 s.
# Timings are wall clock on a shared machine: noisy.
TMPDIR=${PARTS_TMP:-${TMPDIR:-/tmp}}
. "$(dirname "$0")/common"
MESH=../shared/models/asianDragon/asianDragon-155k.veg
need_model "$MESH" parts
dgemm=$("$BENCH/dgemm")
now() { /usr/bin/python3 -c 'import time; print(time.time())'; }
# timed NAME CMD...: run CMD, add its wall time to $W/NAME
timed() {
    name=$1
    shift
    t0=$(now)
    "$@" >/dev/null
    /usr/bin/python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$t0" "$(now)" >>"$W/$name"
}
total() { /usr/bin/python3 -c "import sys; print('%.2f' % sum(float(l) for l in open(sys.argv[1])))" "$W/$1"; }
ratio() { /usr/bin/python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print('%+.1f%%' % (100 * (a / b - 1)))" "$1" "$2"; }
within() { /usr/bin/python3 -c "import sys; a, b, p = map(float, sys.argv[1:]); print('met' if a <= b * (1 + p / 100) else 'MISSED')" "$1" "$2" "$3"; }
MODEL="$MESH --fixed-ids ${MESH%.veg}.bou -E 1e7 --nu 0.4 --rho 1000"

# --- moddesc, 4 parts ------------------------------------------------------------------
timed md1 "$BIN/moddesc" -q $MODEL -k 20 -r 30 -o "$W/modes.h5"
timed md4 "$BIN/moddesc" -q $MODEL -k 20 -r 30 --part 0/4 -o "$W/m.0.h5"
for i in 1 2 3; do timed md4 "$BIN/moddesc" -q $MODEL -k 20 -r 30 --modes "$W/m.0.h5" --part $i/4 -o "$W/m.$i.h5"; done
timed mdm "$BIN/epmerge" -q "$W"/m.[0-3].h5 -o "$W/modes4.h5"
s=$(total md1) p=$(total md4)
echo "bench parts: moddesc k = 20, r = 30: single $s s, 4 parts $p s in all ($(ratio "$p" "$s"); target within 15%: $(within "$p" "$s" 15)), merge with the basis $(total mdm) s"
/usr/bin/python3 tests/cli/partcheck.py "$W/modes.h5" "$W/modes4.h5" && echo "bench parts: moddesc: merged file equals the single run bit for bit"
rm -f "$W"/m.[0-3].h5 "$W/modes4.h5"

# --- polycoef r = 30, 8 parts ----------------------------------------------------------
timed pc1 "$BIN/polycoef" -q "$W/modes.h5" -o "$W/cubic.h5"
for i in 0 1 2 3 4 5 6 7; do timed pc8 "$BIN/polycoef" -q "$W/modes.h5" --part $i/8 -o "$W/c.$i.h5"; done
timed pcm "$BIN/epmerge" -q "$W"/c.[0-7].h5 -o "$W/cubic8.h5"
s=$(total pc1) p=$(total pc8) m=$(total pcm)
echo "bench parts: polycoef r = 30: single $s s, 8 parts $p s in all ($(ratio "$p" "$s"); target within 10%: $(within "$p" "$s" 10)), merge $m s (target 1 s: $(within "$m" 1 0))"
# what each part repeats (its stage line): reading the model and the basis,
# the part hash, writing its file; the bound of 8 parts is the single run
# plus 7 of those
"$BIN/polycoef" "$W/modes.h5" --part 3/8 -o "$W/c.x.h5" | /usr/bin/python3 -c "
import re, sys
t = dict((k, float(v)) for k, v in re.findall(r'(model|basis|hash|sums|write) ([\d.]+) s', sys.stdin.read()))
rep = t['model'] + t['basis'] + t['hash'] + t['write']
s = float(sys.argv[1])
print('bench parts: polycoef: a part repeats %.2f s (read model %.2f s + basis %.2f s, hash %.2f s, write %.2f s; '
      'unix process start not included): 8 parts cannot take less than single + 7 x that = %.1f s (%+.0f%%)'
      % (rep, t['model'], t['basis'], t['hash'], t['write'], s + 7 * rep, 700 * rep / s))" "$s"
rm -f "$W/c.x.h5"
/usr/bin/python3 tests/cli/partcheck.py "$W/cubic.h5" "$W/cubic8.h5" 1e-13 && echo "bench parts: polycoef: merged coefficients equal the single run's to 1e-13"
rm -f "$W"/c.[0-7].h5 "$W/cubic8.h5"

# --- femcondense, 4 parts on every 4th boundary column ---------------------------------------
/usr/bin/python3 - "$MESH" "$W/cols.ids" <<'PY'
import sys, numpy as np
tets = []
sec = None
for l in open(sys.argv[1]):
    s = l.split()
    if not s or s[0].startswith('#'):
        continue
    if s[0].startswith('*'):
        sec = s[0]
        continue
    if sec == '*ELEMENTS' and len(s) == 5:
        tets.append([int(x) for x in s[1:]])
t = np.array(tets)
f = np.sort(np.concatenate([t[:, [0, 1, 2]], t[:, [0, 1, 3]], t[:, [0, 2, 3]], t[:, [1, 2, 3]]]), axis=1)
u, c = np.unique(f, axis=0, return_counts=True)
b = np.unique(u[c == 1])
open(sys.argv[2], 'w').write('\n'.join(str(v) for v in b[::4]) + '\n')
PY
FC="$MODEL --col-ids $W/cols.ids"
t0=$(now)
"$BIN/femcondense" $FC -o "$W/gf.h5" >"$W/fc1.txt"
/usr/bin/python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$t0" "$(now)" >"$W/fc1"
for i in 0 1 2 3; do timed fc4 "$BIN/femcondense" -q $FC --part $i/4 -o "$W/g.$i.h5"; done
gb=$(du -k "$W/gf.h5" | awk '{printf "%.2f", $1 / 1048576}')
sync
timed fcm "$BIN/epmerge" -q "$W"/g.[0-3].h5 -o "$W/gf4.h5"
sync
timed fcv "$BIN/epmerge" -q --virtual "$W"/g.[0-3].h5 -o "$W/gfv.h5"
cmp_ok=$(/usr/bin/python3 -c "
import h5py, numpy as np, sys
a, b, c = (h5py.File(sys.argv[i])['gf/xi'] for i in (1, 2, 3))
same = True
for r in range(0, a.shape[0], 512):
    x = a[r:r + 512]
    same = same and np.array_equal(x, b[r:r + 512]) and np.array_equal(x, c[r:r + 512])
print('bit for bit' if same else 'DIFFERENT')" "$W/gf.h5" "$W/gf4.h5" "$W/gfv.h5")
rm -f "$W/gf4.h5"
disk=$(disk_write_rate)
s=$(total fc1) p=$(total fc4) m=$(total fcm) v=$(total fcv)
fac=$(/usr/bin/python3 -c "import re, sys; s = open(sys.argv[1]).read(); print(' '.join(re.search(k + r' ([\d.]+) s', s).group(1) for k in ('assemble', 'factor')))" "$W/fc1.txt")
echo "bench parts: femcondense, $(sed -n 's/.*: \([0-9]* x [0-9]*\) GF blocks.*/\1/p' "$W/fc1.txt" | head -1) GF blocks ($gb GiB): single $s s, 4 parts $p s in all ($(ratio "$p" "$s"): each part repeats assembly + factorization, $(echo $fac | awk '{printf "%.1f + %.1f s", $1, $2}') in the single run)"
echo "bench parts: femcondense: merge $m s = $(/usr/bin/python3 -c "print('%.2f' % ($gb * 1.073741824 / $m))") GB/s beside the disk's write rate $disk GB/s (dd direct, fdatasync); --virtual merge $v s (target 1 s: $(within "$v" 1 0)); merged /gf/xi $cmp_ok"
echo "bench parts: this machine's dgemm: $dgemm GFlop/s"
