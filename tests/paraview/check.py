"""check.py — ParaView reads every XDMF sidecar as the HDF5 file says (pvpython).

    pvpython tests/paraview/check.py FILE.xmf...                 (no display needed)
    pvpython tests/paraview/check.py --render FILE.xmf FIELD PNG (an X display)

For each sidecar: ParaView's own choice of reader (OpenDataFile) loads it;
every grid's points, cells and fields are compared with what h5py reads from
the HDF5 file beside it, by the field names' meaning (elastoprep(5), XDMF
SIDECARS), not by re-reading the sidecar's references:
  mode I / basis I / derivative I J   rows of /modes/U, /basis/U, /derivatives/Phi
  xi C A displacement, xi C A traction
                    row 3C+A of /gf/xi on the GF rows' vertices, at its free
                    rows (displacements) or its fixed rows (tractions), 0 at
                    the others
  render basis I    row I-1 of /embedding/Ubar on the render mesh
  region, level, distance             /mesh/region, /mesh/level, /embedding/distance
With --render, the grid of FILE is drawn warped by FIELD into PNG.  Prints
"ok - ..." / "not ok - ..." lines (tests/paraview/run.sh counts them).
"""
import os
import sys
import xml.etree.ElementTree as ET

import h5py
import numpy as np
from paraview import servermanager as sm
from paraview.simple import (ColorBy, GetActiveViewOrCreate, OpenDataFile, Render, SaveScreenshot, Show,
                             WarpByVector, ResetCamera)
from vtk.util.numpy_support import vtk_to_numpy

passed = failed = 0


def check(name, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
        print("ok - " + name)
    else:
        failed += 1
        print("not ok - " + name + (": " + detail if detail else ""))


def blocks(d):
    """(name, dataset) of every leaf of what a reader produced."""
    if d.IsA("vtkMultiPieceDataSet"):
        return [("", d.GetPiece(i)) for i in range(d.GetNumberOfPieces()) if d.GetPiece(i)]
    if d.IsA("vtkMultiBlockDataSet"):
        out = []
        for i in range(d.GetNumberOfBlocks()):
            name = d.GetMetaData(i).Get(d.NAME()) if d.HasMetaData(i) else str(i)
            for n, b in blocks(d.GetBlock(i)):
                out.append((n if n else name, b))
        return out
    return [("", d)]


def cells(b):
    """Connectivity of an unstructured grid as [ncells][k] (all cells of one size)."""
    conn = vtk_to_numpy(b.GetCells().GetConnectivityArray())
    return conn.reshape(b.GetNumberOfCells(), -1)


def expected(f, kind, name, rows):
    """The array a field of that name must hold, or None when unknown."""
    w = name.split()
    if w[0] == "mode":
        return f["modes/U"][int(w[1]) - 1].reshape(-1, 3)
    if w[0] == "basis":
        return f["basis/U"][int(w[1]) - 1].reshape(-1, 3)
    if w[0] == "derivative":
        pairs = f["derivatives/pairs"][()]
        i = [k for k in range(len(pairs)) if (pairs[k] == [int(w[1]) - 1, int(w[2]) - 1]).all()][0]
        return f["derivatives/Phi"][i].reshape(-1, 3)
    if w[0] == "xi":  # "xi C A displacement" / "xi C A traction": the row's free / fixed entries, 0 elsewhere
        row = f["gf/xi"][3 * int(w[1]) + "xyz".index(w[2])].reshape(-1, 3)
        if len(w) == 3:
            return row
        fixed = f["gf/row_fixed"][()].astype(row.dtype)[:, None]
        return row * (fixed if w[3] == "traction" else 1 - fixed)
    if name.startswith("render basis"):
        return f["embedding/Ubar"][int(w[2]) - 1].reshape(-1, 3)
    if name in ("region", "level"):
        return f["mesh/" + name][()]
    if name == "distance":
        return f["embedding/distance"][()]
    return None


def check_file(xmf):
    h5path = os.path.splitext(xmf)[0] + ".h5"
    f = h5py.File(h5path, "r")
    kind = f.attrs["kind"].decode() if isinstance(f.attrs["kind"], bytes) else f.attrs["kind"]
    base = os.path.basename(xmf)
    reader = OpenDataFile(os.path.abspath(xmf))
    reader.UpdatePipeline()
    data = sm.Fetch(reader)
    got = blocks(data)
    check("%s (%s): ParaView's %s reads %d grid(s)" % (base, kind, reader.GetXMLName(), len(got)), len(got) > 0)
    V = f["mesh/vertices"][()]
    nfields = 0
    for _, b in got:
        pts = vtk_to_numpy(b.GetPoints().GetData())
        conn = cells(b)
        names = [b.GetPointData().GetArrayName(i) for i in range(b.GetPointData().GetNumberOfArrays())]
        names += [b.GetCellData().GetArrayName(i) for i in range(b.GetCellData().GetNumberOfArrays())]
        # Readers drop the grid names: tell the grids apart by what they show.
        gname = ("render" if "distance" in names or any(n.startswith("render") for n in names)
                 else "gf" if any(n.startswith("xi ") for n in names) and (len(pts) != len(V) or conn.shape[1] == 1)
                 else "mesh")
        if gname == "render":
            check("%s: render points are /render/vertices" % base, np.array_equal(pts, f["render/vertices"][()]))
            check("%s: render cells are /render/triangles" % base, np.array_equal(conn, f["render/triangles"][()]))
        elif gname == "gf":
            rows = f["gf/row_vertex"][()]
            if conn.shape[1] == 1:  # vertex cells of the row vertices
                check("%s: gf cells are the row vertices" % base, np.array_equal(conn[:, 0], rows))
                check("%s: gf points are /mesh/vertices" % base, np.array_equal(pts, V))
            else:
                check("%s: gf points are the row vertices" % base, np.array_equal(pts, V[rows]))
                ds = "mesh/triangles"
                check("%s: gf cells are %s" % (base, ds), np.array_equal(conn, f[ds][()]))
        else:
            check("%s: %s points are /mesh/vertices" % (base, gname or "mesh"), np.array_equal(pts, V))
            ds = {4: "mesh/tets", 8: "mesh/hexes", 3: "mesh/triangles"}[conn.shape[1]]
            check("%s: %s cells are /%s" % (base, gname or "mesh", ds), np.array_equal(conn, f[ds][()]))
        for attrs, where in ((b.GetPointData(), "point"), (b.GetCellData(), "cell")):
            for i in range(attrs.GetNumberOfArrays()):
                a = attrs.GetArray(i)
                want = expected(f, kind, a.GetName(), None)
                if want is None:
                    continue
                nfields += 1
                have = vtk_to_numpy(a)
                ok = have.shape == want.shape and np.array_equal(have, want.astype(have.dtype))
                check("%s: %s data \"%s\" equal the HDF5 data" % (base, where, a.GetName()), ok,
                      "shape %s vs %s, max diff %s" % (have.shape, want.shape,
                                                        np.abs(have - want).max() if ok is False and have.shape == want.shape else "-"))
    want_fields = {"modes": "modes/U", "cubic": "basis/U", "gf": "gf/xi", "embedding": "embedding/Ubar"}.get(kind)
    if want_fields:
        check("%s: fields of %s shown" % (base, want_fields), nfields > 0)
    # every field the sidecar names is read: none skipped (ParaView 5.11 skipped
    # a <DataItem ItemType="Function">, issue 45)
    named = {a.get("Name") for a in ET.parse(xmf).getroot().iter("Attribute")}
    read = set()
    for _, b in got:
        for attrs in (b.GetPointData(), b.GetCellData()):
            read |= {attrs.GetArrayName(i) for i in range(attrs.GetNumberOfArrays())}
    check("%s: ParaView reads all %d fields the sidecar names" % (base, len(named)), named <= read,
          "missing: %s" % sorted(named - read)[:6])
    return reader, got


def render(reader, field, png):
    view = GetActiveViewOrCreate("RenderView")
    view.ViewSize = [800, 600]
    d = sm.Fetch(reader)
    b = blocks(d)[0][1] if d.IsA("vtkMultiBlockDataSet") else d
    pts = vtk_to_numpy(b.GetPoints().GetData())
    u = vtk_to_numpy(b.GetPointData().GetArray(field))
    diag = np.linalg.norm(pts.max(0) - pts.min(0))
    warp = WarpByVector(Input=reader, Vectors=["POINTS", field])
    warp.ScaleFactor = 0.15 * diag / max(np.abs(u).max(), 1e-300)  # tip moves ~15% of the size
    Show(reader, view).Opacity = 0.25
    disp = Show(warp, view)
    ColorBy(disp, ("POINTS", field, "Magnitude"))
    disp.RescaleTransferFunctionToDataRange(True)
    disp.SetRepresentationType("Surface With Edges")
    ResetCamera(view)
    cam = view.GetActiveCamera()
    cam.Elevation(25)
    cam.Azimuth(35)
    ResetCamera(view)
    Render(view)
    SaveScreenshot(png, view, ImageResolution=[800, 600])
    check("%s rendered warped by \"%s\" into %s" % (os.path.basename(png), field, png), os.path.getsize(png) > 10000)


def main():
    if sys.argv[1] == "--render":
        xmf, field, png = sys.argv[2:5]
        os.makedirs(os.path.dirname(os.path.abspath(png)), exist_ok=True)
        reader = OpenDataFile(os.path.abspath(xmf))
        reader.UpdatePipeline()
        render(reader, field, png)
    else:
        for xmf in sys.argv[1:]:
            check_file(xmf)
    sys.stdout.flush()
    # Leave without ParaView's teardown, which under Xvfb reports a GLX error
    # after the work is done.
    os._exit(1 if failed else 0)


main()
