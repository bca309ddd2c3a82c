#!/usr/bin/python3
"""gfsame.py A.h5 B.h5 TOL: every /gf/xi entry of A equals B's within TOL
relative (issue 43), and every other /gf dataset exactly.  An entry's scale
is the largest magnitude in B of its part of the GF matrix: free or fixed
columns, displacement or traction rows (one unit each).  Entry by entry
against itself would divide by zeros (an entry 0 serially is 1e-20 under
MPI), and against its own GF row the round-off of the LU shows already
between two serial runs: on a level-2 icosphere with every column, the
displacement rows of fixed columns differ by 5e-13 of their row's largest
value between 1 and 2 OpenMP threads.  Prints the worst difference, and the
worst relative to its row for information; exit 1 above TOL."""
import sys

import h5py
import numpy as np

fa, fb = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
tol = float(sys.argv[3])
ga, gb = fa["gf"], fb["gf"]
bad = sorted(ga.keys()) != sorted(gb.keys())
for k in sorted(ga.keys()):
    if k != "xi" and not np.array_equal(ga[k][()], gb[k][()]):
        print("/gf/%s differs" % k)
        bad = True
a, b = ga["xi"][()].astype(float), gb["xi"][()].astype(float)
if a.shape != b.shape:
    print("/gf/xi shapes %s and %s" % (a.shape, b.shape))
    sys.exit(1)
rf = gb["row_fixed"][()] != 0
fixed = np.repeat(rf, 3)
at = {v: i for i, v in enumerate(gb["row_vertex"][()])}
colfixed = np.repeat([rf[at[v]] for v in gb["col_vertex"][()]], 3)
worst = worst_row = 0.0
for cols in (colfixed, ~colfixed):
    for unit in (fixed, ~fixed):
        if cols.any() and unit.any():
            x, y = a[cols][:, unit], b[cols][:, unit]
            worst = max(worst, float(np.abs(x - y).max() / max(np.abs(y).max(), 1e-300)))
            row = np.maximum(np.abs(y).max(axis=1, keepdims=True), 1e-300)
            worst_row = max(worst_row, float((np.abs(x - y) / row).max()))
print("%s: /gf/xi %dx%d, worst entry %.3g relative (%.3g of its row's largest)" % (sys.argv[1], a.shape[0], a.shape[1],
                                                                                  worst, worst_row))
sys.exit(1 if bad or worst > tol else 0)
