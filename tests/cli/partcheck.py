# partcheck.py SINGLE.h5 MERGED.h5 [TOL]: exit 0 when the merged file of a
# split run holds what the single run wrote: the same groups, datasets,
# attributes, shapes and types; data bit for bit, but datasets under /cubic
# (regrouped sums) within TOL of the largest entry; root attributes all but
# created and command (epmerge(1)).  Prints what differs.
import sys, h5py, numpy as np
a, b, tol = h5py.File(sys.argv[1]), h5py.File(sys.argv[2]), float(sys.argv[3]) if len(sys.argv) > 3 else 0
bad = []
def eq(u, v):
    u, v = np.asarray(u), np.asarray(v)
    return np.array_equal(u, v, equal_nan=u.dtype.kind == "f")
def names(f):
    out = {}
    f.visititems(lambda n, o: out.__setitem__(n, o))
    return out
na, nb = names(a), names(b)
if set(na) != set(nb): bad.append('objects differ: %s' % (set(na) ^ set(nb)))
for n in sorted(set(na) & set(nb)):
    x, y = na[n], nb[n]
    if dict(x.attrs) .keys() != dict(y.attrs).keys(): bad.append(n + ': attribute names differ')
    for k in x.attrs:
        if k in y.attrs and not eq(x.attrs[k], y.attrs[k]): bad.append(n + ': attribute ' + k)
    if isinstance(x, h5py.Dataset):
        if x.shape != y.shape or x.dtype != y.dtype: bad.append('%s: %s %s vs %s %s' % (n, x.shape, x.dtype, y.shape, y.dtype)); continue
        u, v = x[()], y[()]
        if tol and n.startswith('cubic'):
            e = np.abs(u - v).max() / max(np.abs(u).max(), 1e-300)
            if e > tol: bad.append('%s: relative %.2e' % (n, e))
        elif not np.array_equal(u, v): bad.append(n + ': data differ (max %.3g)' % np.abs(u.astype(float) - v.astype(float)).max())
for k in a.attrs:
    if k not in ('created', 'command') and not eq(a.attrs[k], b.attrs[k]): bad.append('root attribute ' + k)
if bad:
    print('\n'.join(bad))
sys.exit(1 if bad else 0)
