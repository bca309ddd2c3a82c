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
  kelvin GF X Y Z          manufactured solution: the Kelvin field of a unit point load
                           at (X, Y, Z) outside the body; prints the relative error
  sphere GF P TOL          solid sphere under pressure P: u = -P/(3K) x
  volume GF                volume change ratio of a ±x pull, incompressible vs nu 0.3 (run twice)
  compare A B TOL          relative Frobenius difference of the free-free blocks of two GF files
  rigid GF                 every vertex fixed: tractions of a rigid translation and rotation
  wavelet GF GFW TOL       reconstruct every gf-wavelet column from the file's own filters (an
                           independent synthesis); RMS error vs GF within TOL and equal to the
                           file's rms_error attribute
  wavelet-columns GF GFW   GF's columns (a few, solved exactly) against the same columns of GFW:
                           prints their relative RMS error (all rows, free rows)
  same A B TOL             /gf of two files (gf or gf-wavelet) equal: integer datasets and
                           string attributes exactly, numbers within TOL relative to each
                           dataset's largest value (float32 blocks: their rounding too)
  hierarchical GF GFL SURF TOL
                           GFL (gfcompress --constraint-level) against S u_b = M_s p with p the
                           level-l hat of each column, built from SURF's /mesh/level and parents
                           (vertices matched by position); GF must carry --condensed
"""
import sys

import h5py
import numpy as np

import ccx as ccx_run


def load(path):
    f = h5py.File(path, "r")
    g = {k: f["gf/" + k][()] for k in ("xi", "row_vertex", "row_fixed", "col_vertex")}
    g["x"] = f["mesh/vertices"][()]
    g["tri"] = f["mesh/triangles"][()]
    g["area"] = f["mesh/vertex_area"][()]
    g["lumped"] = f["gf"].attrs["traction_model"] == "lumped"
    g["condensed"] = f["gf/condensed"][()] if "gf/condensed" in f else None
    g["fixed"] = f["constraints/fixed"][()]
    g["triangles"] = f["gf"].attrs.get("entity", "vertex") == "triangle"  # constant elements
    return g


def nodes(g):
    """Positions and outward normals of the GF nodes: the row vertices, or the
    centroids and face normals of the row triangles (constant elements)."""
    if not g["triangles"]:
        return g["x"][g["row_vertex"]], vertex_normals(g)
    t = g["tri"][g["row_vertex"]]
    x = g["x"]
    c = np.cross(x[t[:, 1]] - x[t[:, 0]], x[t[:, 2]] - x[t[:, 0]])
    return x[t].mean(axis=1), c / np.linalg.norm(c, axis=1)[:, None]


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


def relation_residual(g, S, load):
    """Worst relative residual of S u_b = M_s p over the columns of g, where
    load(c) gives column c's prescribed values at the rows (a weight per row:
    a unit traction, or a hat function) and the GF gives the rest."""
    M3 = np.kron(surface_mass(g), np.eye(3))
    rf = g["row_fixed"].astype(bool)
    worst = 0.0
    for c in range(len(g["col_vertex"])):
        w = load(c)
        for a in range(3):
            row = g["xi"][3 * c + a].reshape(-1, 3)
            u = np.where(rf[:, None], 0.0, row)
            p = np.where(rf[:, None], row, 0.0)
            fixed_col = rf[w != 0].any()
            (u if fixed_col else p)[w != 0, a] = w[w != 0]
            r = S @ u.ravel() - M3 @ p.ravel()
            worst = max(worst, np.abs(r).max() / np.abs(M3 @ p.ravel()).max())
    return worst


def relation(path, tol):
    g = load(path)
    pos = {v: i for i, v in enumerate(g["row_vertex"])}

    def unit(c):
        w = np.zeros(len(g["row_vertex"]))
        w[pos[g["col_vertex"][c]]] = 1.0
        return w
    return verdict("S u_b - M_s p, max relative", relation_residual(g, g["condensed"], unit), tol)


def synthesize(w, c, odd):
    """Block column c of the gf-wavelet datasets w in row order, [row][b][a]: an
    independent synthesis from the file's own filters."""
    n = len(w["slots"])
    y = np.zeros((n, 3, 3))
    k0, k1 = w["colptr"][c], w["colptr"][c + 1]
    y[w["rowidx"][k0:k1]] = w["blocks"][k0:k1]
    for l in range(1, len(odd)):  # synthesis: undo the lift, then predict (000 eqs. 3.36, 3.28)
        for i in range(2):
            s = odd[l][w["lift_slot"][odd[l], i] >= 0]
            np.add.at(y, w["lift_slot"][s, i], -w["lift_weight"][s, i, None, None] * y[s])
        for s in odd[l]:
            q = slice(w["predict_ptr"][s], w["predict_ptr"][s + 1])
            y[s] += np.tensordot(w["predict_weight"][q], y[w["predict_slot"][q]], axes=1)
    x = np.zeros_like(y)
    x[w["slots"]] = y  # slot -> row
    return x


def load_wavelet(path):
    f = h5py.File(path, "r")
    w = {k: f["gf/" + k][()] for k in ("slots", "slot_level", "predict_ptr", "predict_slot", "predict_weight",
                                       "lift_slot", "lift_weight", "colptr", "rowidx", "blocks", "col_vertex",
                                       "row_fixed")}
    lev = w["slot_level"]
    return f, w, [np.flatnonzero(lev == l) for l in range(lev.max() + 1)]


def wavelet(gf_path, gfw_path, tol):
    g = load(gf_path)
    f, w, odd = load_wavelet(gfw_path)
    assert np.array_equal(w["col_vertex"], g["col_vertex"])
    n = len(w["slots"])
    err2 = ref2 = 0.0
    for c in range(len(g["col_vertex"])):
        x = synthesize(w, c, odd)
        ref = g["xi"][3 * c:3 * c + 3].reshape(3, n, 3).transpose(1, 2, 0)  # [row][b][a]
        err2 += ((x - ref) ** 2).sum()
        ref2 += (ref ** 2).sum()
    rms = np.sqrt(err2 / ref2)
    stored = f["gf"].attrs["rms_error"]
    print("RMS error %.4g, file says %.4g" % (rms, stored))
    bad = verdict("reconstruction RMS error", rms, tol)
    return bad or verdict("difference from the file's rms_error", abs(rms - stored), 1e-6 * max(rms, 1e-3))


def wavelet_columns(gf_path, gfw_path):
    """The columns of GF (a few, solved exactly) against the same columns of
    GFW: relative RMS error over all rows and over the free rows."""
    g = load(gf_path)
    f, w, odd = load_wavelet(gfw_path)
    at = {v: c for c, v in enumerate(w["col_vertex"])}
    n, free = len(w["slots"]), ~w["row_fixed"].astype(bool)
    e2 = r2 = ef2 = rf2 = 0.0
    for c, v in enumerate(g["col_vertex"]):
        x = synthesize(w, at[v], odd)
        ref = g["xi"][3 * c:3 * c + 3].reshape(3, n, 3).transpose(1, 2, 0)
        d = (x - ref) ** 2
        e2, r2 = e2 + d.sum(), r2 + (ref ** 2).sum()
        ef2, rf2 = ef2 + d[free].sum(), rf2 + (ref[free] ** 2).sum()
    print("%d exact columns: RMS error %.4g, free rows %.4g (file's rms_error over all columns %.4g)"
          % (len(g["col_vertex"]), np.sqrt(e2 / r2), np.sqrt(ef2 / rf2), f["gf"].attrs["rms_error"]))
    return 0


def hierarchical(gf_path, gfl_path, surf_path, tol):
    g, gl = load(gf_path), load(gfl_path)
    s = h5py.File(surf_path, "r")
    xs, level, parents = s["mesh/vertices"][()], s["mesh/level"][()], s["mesh/parents"][()]
    lvl = h5py.File(gfl_path, "r")["gf"].attrs["constraint_level"]
    # row i of the GF <-> surface vertex at the same position
    xr = g["x"][g["row_vertex"]]
    d = ((xr[:, None, :] - xs[None, :, :]) ** 2).sum(axis=2)
    surf_of_row = d.argmin(axis=1)
    assert d.min(axis=1).max() < 1e-18 and len(set(surf_of_row)) == len(xr)
    row_of_surf = np.empty(len(xs), int)
    row_of_surf[surf_of_row] = np.arange(len(xr))
    pos = {v: i for i, v in enumerate(gl["row_vertex"])}
    rf = gl["row_fixed"].astype(bool)

    def hat(c):  # the level-l hat, interpolated down the hierarchy, on free rows
        h = np.zeros(len(xs))
        h[surf_of_row[pos[gl["col_vertex"][c]]]] = 1.0
        for v in np.flatnonzero(level > lvl):  # vertices are stored coarse to fine
            h[v] = 0.5 * (h[parents[v, 0]] + h[parents[v, 1]])
        w = h[surf_of_row]
        w[rf] = 0.0
        return w
    assert all(level[surf_of_row[pos[v]]] <= lvl for v in gl["col_vertex"])
    return verdict("level-%d hat columns: S u_b - M_s p, max relative" % lvl,
                   relation_residual(gl, g["condensed"], hat), tol)


def same(a_path, b_path, tol):
    fa, fb = h5py.File(a_path, "r"), h5py.File(b_path, "r")
    ga, gb = fa["gf"], fb["gf"]
    if fa.attrs["kind"] != fb.attrs["kind"] or sorted(ga.keys()) != sorted(gb.keys()):
        print("kinds or datasets differ: %s %s / %s %s" % (fa.attrs["kind"], sorted(ga), fb.attrs["kind"], sorted(gb)))
        return 1
    bad = 0
    for k in sorted(ga.keys()):
        x, y = ga[k][()], gb[k][()]
        if x.shape != y.shape:
            print("/gf/%s: shapes %s and %s" % (k, x.shape, y.shape))
            bad = 1
        elif x.dtype.kind in "iu":
            if not np.array_equal(x, y):
                print("/gf/%s: %d entries differ" % (k, (x != y).sum()))
                bad = 1
        else:
            scale = max(np.abs(y).max(), 1e-300)
            ulp = np.abs(y) * (2.0 ** -23 if y.dtype == np.float32 else 0)
            d = (np.abs(x.astype(float) - y) - ulp).max() / scale if x.size else 0
            print("/gf/%s: max difference %.3g of the largest value" % (k, max(d, 0)))
            bad |= d > tol
    for k in sorted(set(ga.attrs) | set(gb.attrs)):
        x, y = ga.attrs.get(k), gb.attrs.get(k)
        if isinstance(x, (str, bytes)) or isinstance(y, (str, bytes)) or x is None or y is None:
            ok = x == y
        else:
            ok = abs(float(x) - float(y)) <= 1e-6 * max(abs(float(y)), 1e-300)
        if not ok:
            print("/gf attribute %s: %s and %s" % (k, x, y))
            bad = 1
    print("%s and %s: /gf %s" % (a_path, b_path, "equal" if not bad else "DIFFERENT"))
    return int(bad)


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


def material(path):
    a = h5py.File(path, "r")["material"].attrs
    return float(a["E"]), float(a["nu"])


def vertex_normals(g):
    """Area-weighted outward normals at the row vertices."""
    x, pos = g["x"], {v: i for i, v in enumerate(g["row_vertex"])}
    N = np.zeros((len(pos), 3))
    for t in g["tri"]:
        c = np.cross(x[t[1]] - x[t[0]], x[t[2]] - x[t[0]])
        for v in t:
            N[pos[v]] += c
    return N / np.linalg.norm(N, axis=1)[:, None]


def kelvin_field(y, n, x0, f, E, nu):
    """Displacement and traction (normal n) at points y of the Kelvin solution
    for a point force f at x0 (Love; the same formulas as MATH.md §6)."""
    G = E / (2 * (1 + nu))
    r = y - x0
    R = np.linalg.norm(r, axis=1)
    d = r / R[:, None]
    fd = d @ f
    u = ((3 - 4 * nu) * f[None, :] + fd[:, None] * d) / (16 * np.pi * (1 - nu) * G * R[:, None])
    drdn = np.sum(d * n, axis=1)
    a = 1 - 2 * nu
    fn = n @ f
    p = -(drdn[:, None] * (a * f[None, :] + 3 * fd[:, None] * d) - a * (fd[:, None] * n - fn[:, None] * d)) / (
        8 * np.pi * (1 - nu) * R[:, None] ** 2)
    return u, p


def projected_traction(g, x0, f, E, nu):
    """Hat-function values of the exact traction sigma n_face on the flat
    triangles, by L2 projection (M p = int phi_j sigma n): the data the
    collocation BEM is consistent with, also across sharp edges."""
    x, pos = g["x"], {v: i for i, v in enumerate(g["row_vertex"])}
    bary = np.array([[1 / 3, 1 / 3, 1 / 3], [0.0597158717897698, 0.4701420641051151, 0.4701420641051151],
                     [0.4701420641051151, 0.0597158717897698, 0.4701420641051151],
                     [0.4701420641051151, 0.4701420641051151, 0.0597158717897698],
                     [0.7974269853530873, 0.1012865073234563, 0.1012865073234563],
                     [0.1012865073234563, 0.7974269853530873, 0.1012865073234563],
                     [0.1012865073234563, 0.1012865073234563, 0.7974269853530873]])
    w = np.array([0.225] + [0.1323941527885062] * 3 + [0.1259391805448271] * 3)
    b = np.zeros((len(pos), 3))
    for t in g["tri"]:
        c = np.cross(x[t[1]] - x[t[0]], x[t[2]] - x[t[0]])
        A = 0.5 * np.linalg.norm(c)
        nf = c / (2 * A)
        yq = bary @ x[t]
        _, pq = kelvin_field(yq, np.tile(nf, (len(yq), 1)), x0, f, E, nu)
        for a in range(3):
            b[pos[t[a]]] += A * (w * bary[:, a]) @ pq
    M = surface_mass(dict(g, lumped=False))
    return np.linalg.solve(M, b)


def kelvin(path, x0):
    g = load(path)
    E, nu = material(path)
    Xi, rf = square_xi(g), g["row_fixed"].astype(bool)
    y, n = nodes(g)
    f = np.array([0.3, -0.5, 0.8])
    u, p = kelvin_field(y, n, np.array(x0), f, E, nu)
    if not g["triangles"]:  # hat functions: project sigma n_face onto them
        p = projected_traction(g, np.array(x0), f, E, nu)
    vbar = np.where(rf[:, None], u, p)
    v = (Xi @ vbar.ravel()).reshape(-1, 3)
    err = np.abs(v[~rf] - u[~rf]).max() / np.abs(u).max()
    print("%.6e" % err)
    return 0


def kelvin_stress(y, x0, f, E, nu, h=1e-6):
    """Stress (xx yy zz yz xz xy) of the Kelvin field at points y, by central
    differences of its displacement (smooth away from x0)."""
    G, lam = E / (2 * (1 + nu)), E * nu / ((1 + nu) * (1 - 2 * nu))
    n0 = np.zeros_like(y)
    grad = np.zeros((len(y), 3, 3))
    for j in range(3):
        e = np.zeros(3)
        e[j] = h
        grad[:, :, j] = (kelvin_field(y + e, n0, x0, f, E, nu)[0] - kelvin_field(y - e, n0, x0, f, E, nu)[0]) / (2 * h)
    eps = (grad + grad.transpose(0, 2, 1)) / 2
    tr = np.trace(eps, axis1=1, axis2=2)
    s = 2 * G * eps + lam * tr[:, None, None] * np.eye(3)
    return np.stack([s[:, 0, 0], s[:, 1, 1], s[:, 2, 2], s[:, 1, 2], s[:, 0, 2], s[:, 0, 1]], axis=1)


def kelvin_interior(path, x0):
    """The Kelvin field's boundary data through the interior rows (bemsolve
    --interior, --columns all): displacement and stress at the interior
    points against the field's, each relative to its largest."""
    g = load(path)
    E, nu = material(path)
    f5 = h5py.File(path, "r")
    I, pts = f5["gf/interior"][()], f5["gf/interior_points"][()]
    rf = g["row_fixed"].astype(bool)
    y, n = nodes(g)
    f = np.array([0.3, -0.5, 0.8])
    u, p = kelvin_field(y, n, np.array(x0), f, E, nu)
    p = projected_traction(g, np.array(x0), f, E, nu)
    vbar = np.where(rf[:, None], u, p)
    v = (vbar.ravel() @ I).reshape(-1, 9)
    ue, se = kelvin_field(pts, np.zeros_like(pts), np.array(x0), f, E, nu)[0], kelvin_stress(pts, np.array(x0), f, E, nu)
    print("%.6e %.6e" % (np.abs(v[:, :3] - ue).max() / np.abs(ue).max(), np.abs(v[:, 3:] - se).max() / np.abs(se).max()))
    return 0


def sphere(path, P, tol):
    g = load(path)
    E, nu = material(path)
    K = E / (3 * (1 - 2 * nu))
    Xi, rf = square_xi(g), g["row_fixed"].astype(bool)
    y, n = g["x"][g["row_vertex"]], vertex_normals(g)
    exact = -P / (3 * K) * y
    vbar = np.where(rf[:, None], exact, -P * n)
    v = (Xi @ vbar.ravel()).reshape(-1, 3)
    return verdict("sphere under pressure, max |u - u_exact| / max |u_exact|",
                   np.abs(v[~rf] - exact[~rf]).max() / np.abs(exact).max(), tol)


def volume_change(path):
    """Traction t = n_x e_x (a pull on the +-x sides), the fixed vertices held at
    zero; prints the volume change (integral of u . n) over the surface area."""
    g = load(path)
    Xi, rf = square_xi(g), g["row_fixed"].astype(bool)
    n = vertex_normals(g)
    vbar = np.where(rf[:, None], 0.0, n[:, 0:1] * np.array([1.0, 0, 0])[None, :])
    v = (Xi @ vbar.ravel()).reshape(-1, 3)
    dV = np.sum(g["area"][~rf] * np.sum(v[~rf] * n[~rf], axis=1))
    print("%.6e" % (dV / g["area"].sum() / np.abs(v[~rf]).max()))
    return 0


def compare(a, b, tol):
    g, h = load(a), load(b)
    assert np.array_equal(g["row_vertex"], h["row_vertex"]) and np.array_equal(g["col_vertex"], h["col_vertex"])
    rf = np.repeat(g["row_fixed"].astype(bool), 3)
    pos = {v: i for i, v in enumerate(g["row_vertex"])}
    cf = np.repeat([bool(g["row_fixed"][pos[v]]) for v in g["col_vertex"]], 3)
    A, B = g["xi"][np.ix_(~cf, ~rf)], h["xi"][np.ix_(~cf, ~rf)]
    d = np.linalg.norm(A - B) / np.linalg.norm(B)
    print("%.6e" % d)
    return 0 if d <= tol else 1


def rigid(path):
    """With every vertex fixed, Xi maps displacements to tractions; rigid motions
    give none.  Prints the translation and rotation residuals, each relative to
    the sum of the magnitudes of the terms."""
    g = load(path)
    Xi, (y, _) = square_xi(g), nodes(g)
    out = []
    for ubar in (np.tile([1.0, -2.0, 0.5], (len(y), 1)), np.cross([0.3, -0.2, 0.9], y)):
        v = Xi @ ubar.ravel()
        out.append(np.abs(v).max() / (np.abs(Xi) @ np.abs(ubar.ravel())).max())
    print("%.6e %.6e" % tuple(out))
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
    U = ccx_run.displacements(x, tets, g["fixed"], E, nu, "*STEP\n*STATIC\n*CLOAD\n%d, 3, %.17g\n" % (vertex, g["area"][pos[j]]))
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
    if cmd == "kelvin_interior":
        sys.exit(kelvin_interior(args[0], [float(a) for a in args[1:4]]))
    if cmd == "kelvin":
        sys.exit(kelvin(args[0], [float(a) for a in args[1:4]]))
    if cmd == "sphere":
        sys.exit(sphere(args[0], float(args[1]), float(args[2])))
    if cmd == "volume":
        sys.exit(volume_change(args[0]))
    if cmd == "compare":
        sys.exit(compare(args[0], args[1], float(args[2])))
    if cmd == "rigid":
        sys.exit(rigid(args[0]))
    if cmd == "wavelet":
        sys.exit(wavelet(args[0], args[1], float(args[2])))
    if cmd == "wavelet-columns":
        sys.exit(wavelet_columns(args[0], args[1]))
    if cmd == "same":
        sys.exit(same(args[0], args[1], float(args[2])))
    if cmd == "hierarchical":
        sys.exit(hierarchical(args[0], args[1], args[2], float(args[3])))
    if cmd == "axis-ids":
        sys.exit(axis_ids(args[0], float(args[1])))
    sys.exit("gfcheck: unknown command " + cmd)
