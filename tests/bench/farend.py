"""farend.py — the far end of a Vega model from its support, where the
benchmarks that load a model (cubature.sh, fullsim.sh) put their force box.
Imported with the bench folder on sys.path (numpy; /usr/bin/python3)."""
import numpy as np


def far_end(veg, bou, frac):
    """The vertices x [n][3] of the .veg file veg, the centroid c of its
    support (the 1-based ids of the .bou file bou), each vertex's distance d
    from c, and the box lo, hi (widened by 1e-9) of the vertices at least
    frac of the largest distance away."""
    lines = open(veg).read().split("\n")
    i = next(k for k, l in enumerate(lines) if l.strip() == "*VERTICES")
    n = int(lines[i + 1].split()[0])
    x = np.array([[float(t) for t in l.split()[1:4]] for l in lines[i + 2:i + 2 + n]])
    fixed = np.array([int(t) - 1 for t in open(bou).read().replace(",", " ").split() if t.strip().isdigit()])
    c = x[fixed].mean(0)
    d = np.linalg.norm(x - c, axis=1)
    far = x[d >= frac * d.max()]
    return x, c, d, far.min(0) - 1e-9, far.max(0) + 1e-9
