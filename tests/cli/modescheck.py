#!/usr/bin/python3
"""modescheck.py — independent checks of kind "modes" files: K and M are
assembled here again, densely, from the file's mesh and material (MATH.md §1),
with numpy alone.

  residual MODES TOL     max ||K psi - lambda M psi|| / (lambda ||M psi||)
  orthonormal MODES TOL  U M U^T = I for /modes/U and /basis/U
  freqs MODES            the frequencies in Hz, one line
"""
import sys

import h5py
import numpy as np


def assemble(f):
    x, T = f["mesh/vertices"][()], f["mesh/tets"][()]
    a = f["material"].attrs
    E, nu, rho = float(a["E"]), float(a["nu"]), float(a["rho"])
    lumped = f["modes"].attrs["mass"] == "lumped"
    mu, lam = E / (2 * (1 + nu)), E * nu / ((1 + nu) * (1 - 2 * nu))
    n = 3 * len(x)
    K, M = np.zeros((n, n)), np.zeros((n, n))
    for t in T:
        Dm = (x[t[1:]] - x[t[0]]).T
        V = np.linalg.det(Dm) / 6
        g = np.vstack([np.zeros(3), np.linalg.inv(Dm)])
        g[0] = -g[1:].sum(axis=0)
        for i in range(4):
            for j in range(4):
                Kab = V * (lam * np.outer(g[i], g[j]) + mu * np.outer(g[j], g[i]) + mu * (g[i] @ g[j]) * np.eye(3))
                K[3 * t[i]:3 * t[i] + 3, 3 * t[j]:3 * t[j] + 3] += Kab
                m = (rho * V / 4 if i == j else 0) if lumped else rho * V / 20 * (2 if i == j else 1)
                M[3 * t[i]:3 * t[i] + 3, 3 * t[j]:3 * t[j] + 3] += m * np.eye(3)
    free = np.ones(n, bool)
    if "constraints/fixed" in f:
        for v in f["constraints/fixed"][()]:
            free[3 * v:3 * v + 3] = False
    return K, M, free


def verdict(name, value, tol):
    print("%s: %.3e (tolerance %.1e) %s" % (name, value, tol, "ok" if value <= tol else "FAILED"))
    return 0 if value <= tol else 1


if __name__ == "__main__":
    cmd, path = sys.argv[1], sys.argv[2]
    f = h5py.File(path, "r")
    lam, U = f["modes/eigenvalues"][()], f["modes/U"][()]
    if cmd == "freqs":
        print(" ".join("%.6g" % (np.sqrt(l) / (2 * np.pi)) for l in lam))
        sys.exit(0)
    K, M, free = assemble(f)
    if cmd == "residual":
        assert np.all(U[:, ~free] == 0), "modes must vanish at fixed vertices"
        r = max(np.linalg.norm((K @ u - l * (M @ u))[free]) / (l * np.linalg.norm((M @ u)[free])) for l, u in zip(lam, U))
        sys.exit(verdict("eigen residual", r, float(sys.argv[3])))
    if cmd == "orthonormal":
        B = f["basis/U"][()]
        e = max(np.abs(A @ M @ A.T - np.eye(len(A))).max() for A in (U, B))
        sys.exit(verdict("U M U^T - I, modes and basis", e, float(sys.argv[3])))
    sys.exit("modescheck: unknown command " + cmd)
