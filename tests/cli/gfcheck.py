#!/usr/bin/python3
"""gfcheck.py — independent numerical checks of kind "gf" files (numpy only).

Each subcommand prints what it measured and exits 0 when it is within the
tolerance given, 1 otherwise:

  relation GF TOL          S u_b = M_s p for every column (needs --condensed)
  betti GF TOL             a_i Xi_ij = (a_j Xi_ji)^T on the free-free block (Xi_ij: at i, load at j)
  switch REF NEW TOL       capacitance formula (MATH.md §7) on REF = NEW
  lame GF E NU P TOL       hollow sphere a = 0.5, b = 1 under inner pressure
  cantilever GF E NU       tip deflection / Timoshenko value (prints the ratio)
  ccx GF VERTEX TOL        CalculiX C3D4 static solve vs the lumped GF column
  axis-ids MSH R           1-based ids of the Gmsh 4.1 nodes nearest +-R e_x, e_y, e_z
"""
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np


def load(path):
    f = h5py.File(path, "r")
    g = {k: f["gf/" + k][()] for k in ("xi", "row_vertex", "row_fixed", "col_vertex")}
    g["x"] = f["mesh/vertices"][()]
    g["tri"] = f["mesh/triangles"][()]
    g["area"] = f["mesh/vertex_area"][()]
    g["lumped"] = f["gf"].attrs["traction_model"] == "lumped"
    g["condensed"] = f["gf/condensed"][()] if "gf/condensed" in f else None
    g["fixed"] = f["constraints/fixed"][()]
    return g


def surface_mass(g):
    """Scalar hat-function mass over the row vertices, or diag(a) (MATH.md §1)."""
    rv = g["row_vertex"]
    if g["lumped"]:
        return np.diag(g["area"])
    pos = {v: i for i, v in enumerate(rv)}
    M = np.zeros((len(rv), len(rv)))
    x = g["x"]
    for t in g["tri"]:
        A = 0.5 * np.linalg.norm(np.cross(x[t[1]] - x[t[0]], x[t[2]] - x[t[0]]))
        for i in range(3):
            for j in range(3):
                M[pos[t[i]], pos[t[j]]] += A / 12 * (2 if i == j else 1)
    return M


def square_xi(g):
    """Xi as the n x n block matrix of MATH.md §7 (v = Xi vbar); needs --columns all."""
    assert np.array_equal(g["col_vertex"], g["row_vertex"]), "needs --columns all"
    return g["xi"].T


def verdict(name, value, tol):
    ok = value <= tol
    print("%s: %.3e (tolerance %.1e) %s" % (name, value, tol, "ok" if ok else "FAILED"))
    return 0 if ok else 1


def relation(path, tol):
    g = load(path)
    S, M3 = g["condensed"], np.kron(surface_mass(g), np.eye(3))
    rf = g["row_fixed"].astype(bool)
    pos = {v: i for i, v in enumerate(g["row_vertex"])}
    worst = 0.0
    for c, v in enumerate(g["col_vertex"]):
        for a in range(3):
            row = g["xi"][3 * c + a].reshape(-1, 3)
            u = np.where(rf[:, None], 0.0, row)
            p = np.where(rf[:, None], row, 0.0)
            (u if rf[pos[v]] else p)[pos[v], a] = 1.0
            r = S @ u.ravel() - M3 @ p.ravel()
            worst = max(worst, np.abs(r).max() / np.abs(M3 @ p.ravel()).max())
    return verdict("S u_b - M_s p, max relative", worst, tol)


def betti(path, tol):
    g = load(path)
    rf = g["row_fixed"].astype(bool)
    pos = {v: i for i, v in enumerate(g["row_vertex"])}
    cols = [c for c, v in enumerate(g["col_vertex"]) if not rf[pos[v]]]
    a, xi = g["area"], g["xi"]
    worst, scale = 0.0, 0.0
    for ci in cols:
        i = pos[g["col_vertex"][ci]]
        for cj in cols:
            j = pos[g["col_vertex"][cj]]
            Bij = xi[3 * cj:3 * cj + 3, 3 * i:3 * i + 3].T  # response at i to a load at j
            Bji = xi[3 * ci:3 * ci + 3, 3 * j:3 * j + 3].T
            worst = max(worst, np.abs(a[i] * Bij - (a[j] * Bji).T).max())
            scale = max(scale, np.abs(a[i] * Bij).max())
    return verdict("Maxwell-Betti asymmetry, relative", worst / scale, tol)


def switch(ref, new, tol):
    """MATH.md §7: C = -E^T Xi E, v0 = [Xi (I - E E^T) - E E^T] vbar,
    v = v0 + (E + Xi E) C^-1 E^T v0, for vbar = every unit vector."""
    g, h = load(ref), load(new)
    Xi, Xn = square_xi(g), square_xi(h)
    rf, nf = g["row_fixed"].astype(bool), h["row_fixed"].astype(bool)
    S = np.where(nf & ~rf)[0]
    assert len(S) and not np.any(rf & ~nf), "NEW must fix a superset of REF's vertices"
    dofs = np.concatenate([3 * S + a for a in range(3)])
    n = Xi.shape[0]
    E = np.zeros((n, len(dofs)))
    E[dofs, np.arange(len(dofs))] = 1
    C = -E.T @ Xi @ E
    I = np.eye(n)
    V0 = (Xi @ (I - E @ E.T) - E @ E.T) @ I
    V = V0 + (E + Xi @ E) @ np.linalg.solve(C, E.T @ V0)
    return verdict("capacitance update vs recomputed GFs, relative", np.abs(V - Xn).max() / np.abs(Xn).max(), tol)


def lame(path, E, nu, P, tol):
    """MATH.md §9: u_r = P a^3 / (E (b^3 - a^3)) [(1 - 2 nu) r + (1 + nu) b^3 / (2 r^2)]."""
    g = load(path)
    a, b = 0.5, 1.0
    ur = lambda r: P * a**3 / (E * (b**3 - a**3)) * ((1 - 2 * nu) * r + (1 + nu) * b**3 / (2 * r**2))
    Xi, x, rf = square_xi(g), g["x"][g["row_vertex"]], g["row_fixed"].astype(bool)
    r = np.linalg.norm(x, axis=1)
    n = x / r[:, None]
    inner = r < 0.75
    vbar = np.zeros_like(x)
    vbar[inner & ~rf] = P * n[inner & ~rf]      # traction on the body at the cavity: P along r
    vbar[rf] = ur(r[rf])[:, None] * n[rf]        # analytic displacement at the held vertices
    v = (Xi @ vbar.ravel()).reshape(-1, 3)
    got = np.sum(v[~rf] * n[~rf], axis=1)
    err = np.sqrt(np.mean((got - ur(r[~rf])) ** 2)) / ur(a)
    return verdict("hollow sphere u_r, RMS error / u_r(a)", err, tol)


def cantilever(path, E, nu):
    """Uniform traction t_z = 1 on the columns (the tip face); mean tip u_z
    against Timoshenko: delta = P L^3 / (3 E I) + P L / (k G A)."""
    g = load(path)
    pos = {v: i for i, v in enumerate(g["row_vertex"])}
    cols = g["col_vertex"]
    u = sum(g["xi"][3 * c + 2] for c in range(len(cols))).reshape(-1, 3)
    P = sum(g["area"][pos[v]] for v in cols)
    L, b = 1.0, 0.1
    I, A, G = b**4 / 12, b * b, E / (2 * (1 + nu))
    delta = P * L**3 / (3 * E * I) + P * L / (5.0 / 6.0 * G * A)
    tip = np.mean([u[pos[v], 2] for v in cols])
    print("%.6f" % (tip / delta))
    return 0


def axis_ids(msh, R):
    lines = open(msh).read().split("\n")
    i = lines.index("$Nodes")
    nblocks = int(lines[i + 1].split()[0])
    k, xyz = i + 2, []  # ep_mesh numbers nodes in file order: ids are 1-based positions
    for _ in range(nblocks):
        n = int(lines[k].split()[3])
        xyz += [[float(c) for c in l.split()] for l in lines[k + 1 + n:k + 1 + 2 * n]]
        k += 1 + 2 * n
    xyz = np.array(xyz)
    for a in range(3):
        for sgn in (1, -1):
            target = np.zeros(3)
            target[a] = sgn * R
            print(int(np.argmin(np.linalg.norm(xyz - target, axis=1))) + 1)
    return 0


def ccx(path, vertex, tol):
    """A C3D4 *STATIC deck with *CLOAD a_j at one vertex (1-based id) in z,
    solved by CalculiX; its boundary displacements must equal the lumped GF
    column of that vertex."""
    g = load(path)
    x, tets = g["x"], h5py.File(path, "r")["mesh/tets"][()]
    E = h5py.File(path, "r")["material"].attrs["E"]
    nu = h5py.File(path, "r")["material"].attrs["nu"]
    j = vertex - 1
    pos = {v: i for i, v in enumerate(g["row_vertex"])}
    c = list(g["col_vertex"]).index(j)
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "job.inp"), "w") as o:
            o.write("*NODE, NSET=NALL\n")
            for i, p in enumerate(x):
                o.write("%d, %.17g, %.17g, %.17g\n" % (i + 1, *p))
            o.write("*ELEMENT, TYPE=C3D4, ELSET=EALL\n")
            for e, t in enumerate(tets):
                o.write("%d, %d, %d, %d, %d\n" % (e + 1, *(t + 1)))
            o.write("*BOUNDARY\n")
            for v in g["fixed"]:
                o.write("%d, 1, 3\n" % (v + 1))
            o.write("*MATERIAL, NAME=M\n*ELASTIC\n%.17g, %.17g\n*SOLID SECTION, ELSET=EALL, MATERIAL=M\n" % (E, nu))
            o.write("*STEP\n*STATIC\n*CLOAD\n%d, 3, %.17g\n*NODE PRINT, NSET=NALL\nU\n*END STEP\n" % (vertex, g["area"][pos[j]]))
        subprocess.run(["ccx", "job"], cwd=d, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        U = np.zeros_like(x)
        with open(os.path.join(d, "job.dat")) as dat:
            for line in dat:
                w = line.split()
                if len(w) == 4 and w[0].isdigit():
                    U[int(w[0]) - 1] = [float(s) for s in w[1:]]
    col = g["xi"][3 * c + 2].reshape(-1, 3)
    rf = g["row_fixed"].astype(bool)
    rv = g["row_vertex"]
    err = np.abs(col[~rf] - U[rv[~rf]]).max() / np.abs(U[rv]).max()
    return verdict("CalculiX vs lumped GF column, max relative", err, tol)


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "relation":
        sys.exit(relation(args[0], float(args[1])))
    if cmd == "betti":
        sys.exit(betti(args[0], float(args[1])))
    if cmd == "switch":
        sys.exit(switch(args[0], args[1], float(args[2])))
    if cmd == "lame":
        sys.exit(lame(args[0], *map(float, args[1:5])))
    if cmd == "cantilever":
        sys.exit(cantilever(args[0], float(args[1]), float(args[2])))
    if cmd == "ccx":
        sys.exit(ccx(args[0], int(args[1]), float(args[2])))
    if cmd == "axis-ids":
        sys.exit(axis_ids(args[0], float(args[1])))
    sys.exit("gfcheck: unknown command " + cmd)
