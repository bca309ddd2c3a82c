"""notblank.py PNG... — each picture shows something (pvpython; make check-paraview).

A picture passes when more than 2 % of its pixels differ from its corner
pixel (the background) and it has more than 50 distinct colours (a drawn,
shaded and colour-mapped model; a blank or one-colour image has 1 or 2).
Prints "ok - ..." / "not ok - ..." lines.
"""
import sys

import numpy as np
from vtkmodules.vtkIOImage import vtkPNGReader
from vtk.util.numpy_support import vtk_to_numpy

bad = 0
for png in sys.argv[1:]:
    r = vtkPNGReader()
    r.SetFileName(png)
    r.Update()
    img = r.GetOutput()
    a = vtk_to_numpy(img.GetPointData().GetScalars())
    a = a[:, :3] if a.ndim == 2 else a[:, None]
    drawn = float((a != a[0]).any(1).mean()) if len(a) else 0.0
    colours = len(np.unique(a, axis=0)) if len(a) else 0
    ok = drawn > 0.02 and colours > 50
    bad += not ok
    print("%s - %s is not blank: %.1f%% of %d pixels drawn, %d colours" % ("ok" if ok else "not ok", png,
                                                                             100 * drawn, len(a), colours))
sys.exit(1 if bad else 0)
