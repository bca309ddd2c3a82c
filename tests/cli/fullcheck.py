"""fullcheck.py — checks of fullsim trajectories (tests/cli/fullsim.sh).

  ccx TRAJ TOL            the last state of a static StVK run equals CalculiX's
                          *STATIC, NLGEOM solve (C3D4, *ELASTIC: a St.
                          Venant-Kirchhoff solid) under the same *CLOADs
  same A B TOL [RATIO]    last displacements of A equal RATIO times B's
  energy TRAJ TOL         the total energy changes by at most TOL (relative
                          to its largest term) from any step to the next
  frequency TRAJ MODES I TOL
                          the motion started from mode I oscillates at
                          sqrt(lambda_I): crossings of its modal coordinate
  bend TRAJ               the largest displacement over the model's size
Each prints its figure and exits 1 when it is over the tolerance."""
import sys

import h5py
import numpy as np

import ccx as ccx_run


def verdict(what, value, tol):
    print("    %s %.3e (tolerance %g)" % (what, value, tol))
    return 0 if value <= tol else 1


def ccx(path, tol):
    f = h5py.File(path, "r")
    x, tets = f["mesh/vertices"][()], f["mesh/tets"][()]
    E, nu = f["material"].attrs["E"], f["material"].attrs["nu"]
    load = f["loads/base"][()].sum(0).reshape(-1, 3)
    u = f["trajectory/u"][-1].reshape(-1, 3)
    # increments of 0.1, and residual criteria far below CalculiX's defaults (0.005, 0.01)
    step = ("*STEP, NLGEOM, INC=1000\n*STATIC\n0.1, 1.0, 1e-5, 0.1\n"
            "*CONTROLS, PARAMETERS=FIELD\n1e-10, 1e-10\n*CLOAD\n")
    for v, a in zip(*np.nonzero(load)):
        step += "%d, %d, %.17g\n" % (v + 1, a + 1, load[v, a])
    U = ccx_run.displacements(x, tets, f["constraints/fixed"][()], E, nu, step)
    return verdict("CalculiX NLGEOM vs fullsim --static, max relative", np.abs(U - u).max() / np.abs(U).max(), tol)


def same(a, b, tol, ratio=1.0):
    ua = h5py.File(a, "r")["trajectory/u"][-1]
    ub = h5py.File(b, "r")["trajectory/u"][-1]
    return verdict("max relative difference", np.abs(ua - ratio * ub).max() / np.abs(ua).max(), tol)


def energy(path, tol):
    e = h5py.File(path, "r")["trajectory/energy"][()]
    scale = np.abs(e[:, :4]).max()
    return verdict("largest change of the total energy per step, relative", np.abs(np.diff(e[:, 4])).max() / scale, tol)


def frequency(path, modes, i, tol):
    f, g = h5py.File(path, "r"), h5py.File(modes, "r")
    psi, lam = g["modes/U"][i - 1], g["modes/eigenvalues"][i - 1]
    t, u = f["trajectory/time"][()], f["trajectory/u"][()]
    q = u @ psi / (psi @ psi)
    crossings = []
    for k in np.nonzero(np.sign(q[:-1]) != np.sign(q[1:]))[0]:
        lo = max(k - 1, 0)
        c = np.polyfit(t[lo:lo + 4] - t[k], q[lo:lo + 4], 3)  # a cubic through four samples around it
        r = [z.real + t[k] for z in np.roots(c) if abs(z.imag) < 1e-12 and t[k] - 1e-12 <= z.real + t[k] <= t[k + 1] + 1e-12]
        crossings.append(r[0])
    crossings = np.array(crossings)
    omega = np.pi * (len(crossings) - 1) / (crossings[-1] - crossings[0])
    print("    %d zero crossings; omega %.9g, sqrt(lambda) %.9g" % (len(crossings), omega, np.sqrt(lam)))
    return verdict("relative frequency error", abs(omega / np.sqrt(lam) - 1), tol)


def bend(path):
    f = h5py.File(path, "r")
    x = f["mesh/vertices"][()]
    u = f["trajectory/u"][-1].reshape(-1, 3)
    print("%.4f" % (np.linalg.norm(u, axis=1).max() / np.linalg.norm(x.max(0) - x.min(0))))
    return 0


if __name__ == "__main__":
    cmd, a = sys.argv[1], sys.argv[2:]
    if cmd == "ccx":
        sys.exit(ccx(a[0], float(a[1])))
    if cmd == "same":
        sys.exit(same(a[0], a[1], float(a[2]), float(a[3]) if len(a) > 3 else 1.0))
    if cmd == "energy":
        sys.exit(energy(a[0], float(a[1])))
    if cmd == "frequency":
        sys.exit(frequency(a[0], a[1], int(a[2]), float(a[3])))
    if cmd == "bend":
        sys.exit(bend(a[0]))
    sys.exit("unknown command " + cmd)
