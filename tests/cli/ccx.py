"""ccx.py — one CalculiX run for the checks (fullcheck.py, gfcheck.py).

  displacements(x, tets, fixed, E, nu, step)
      writes a deck of the model (nodes x, C3D4 elements tets, 0-based; every
      DOF of the vertices fixed held; *ELASTIC E, nu: isotropic, a St.
      Venant-Kirchhoff solid under NLGEOM), then the step's own lines (from
      *STEP through its loads), *NODE PRINT of U and *END STEP; runs ccx in a
      scratch folder and returns the displacements [nv][3] of its .dat."""
import os
import subprocess
import tempfile

import numpy as np


def displacements(x, tets, fixed, E, nu, step):
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "job.inp"), "w") as o:
            o.write("*NODE, NSET=NALL\n")
            for i, p in enumerate(x):
                o.write("%d, %.17g, %.17g, %.17g\n" % (i + 1, *p))
            o.write("*ELEMENT, TYPE=C3D4, ELSET=EALL\n")
            for e, t in enumerate(tets):
                o.write("%d, %d, %d, %d, %d\n" % (e + 1, *(t + 1)))
            o.write("*BOUNDARY\n")
            for v in fixed:
                o.write("%d, 1, 3\n" % (v + 1))
            o.write("*MATERIAL, NAME=M\n*ELASTIC\n%.17g, %.17g\n*SOLID SECTION, ELSET=EALL, MATERIAL=M\n" % (E, nu))
            o.write(step)
            o.write("*NODE PRINT, NSET=NALL\nU\n*END STEP\n")
        subprocess.run(["ccx", "job"], cwd=d, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        U = np.zeros_like(x)
        with open(os.path.join(d, "job.dat")) as dat:
            for line in dat:
                w = line.split()
                if len(w) == 4 and w[0].isdigit():
                    U[int(w[0]) - 1] = [float(s) for s in w[1:]]
    return U
