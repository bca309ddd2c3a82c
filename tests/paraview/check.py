"""check.py — ParaView reads every XDMF sidecar as the HDF5 file says (pvpython).

    pvpython tests/paraview/check.py FILE.xmf...                 (no display needed)
    pvpython tests/paraview/check.py --render FILE.xmf FIELD PNG (an X display)

For each sidecar: ParaView's own choice of reader (OpenDataFile) loads it
and must give the one grid its name says (OUT.xmf the simulation mesh,
OUT.surface.xmf a volume's boundary, OUT.gf.xmf the GF rows' grid,
OUT.render.xmf the render mesh, OUT.distance.xmf a distance field,
OUT.pointshell.xmf the points: issue 45, ParaView's default reader merged
the grids of one file); its points, cells and fields are compared with what
h5py reads from the HDF5 file beside it, by the field names' meaning
(elastoprep(5), XDMF SIDECARS), not by re-reading the sidecar's references:
  mode I / basis I / derivative I J   rows of /modes/U, /basis/U, /derivatives/Phi
  xi C A displacement, xi C A traction
                    row 3C+A of /gf/xi on the GF rows' vertices, at its free
                    rows (displacements) or its fixed rows (tractions), 0 at
                    the others
  render basis I    row I-1 of /embedding/Ubar on the render mesh
  region, level, distance             /mesh/region, /mesh/level, /embedding/distance
                                      (/distfield/values on a distance grid)
  level, normal (pointshell)          /pointshell/level, /pointshell/normals
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


PARTS = ("surface", "gf", "render", "distance", "pointshell")


def part_of(xmf):
    """(the HDF5 file's path, the grid the sidecar's name says)."""
    stem = os.path.splitext(xmf)[0]
    head, _, last = stem.rpartition(".")
    if head and last in PARTS:
        return head + ".h5", last
    return stem + ".h5", "mesh"


def expected(f, kind, name, part):
    """The array a field of that name must hold, or None when unknown."""
    w = name.split()
    if part == "pointshell":
        return {"level": f["pointshell/level"][()], "normal": f["pointshell/normals"][()]}.get(name)
    if part == "distance" and name == "distance":
        return f["distfield/values"][()].ravel()
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
    h5path, part = part_of(xmf)
    f = h5py.File(h5path, "r")
    kind = f.attrs["kind"].decode() if isinstance(f.attrs["kind"], bytes) else f.attrs["kind"]
    base = os.path.basename(xmf)
    reader = OpenDataFile(os.path.abspath(xmf))
    reader.UpdatePipeline()
    data = sm.Fetch(reader)
    got = blocks(data)
    # the one grid apart: a single dataset; only a model of tets and hexes
    # shows its volume as two pieces (a spatial collection), a trajectory
    # one grid a time step
    nvol = ("mesh/tets" in f) + ("mesh/hexes" in f)
    apart = len(got) == 1 or (part == "mesh" and nvol == 2 and len(got) == 2)
    check("%s (%s): ParaView's %s (its choice) shows the %s grid apart (%d dataset(s), %s)"
          % (base, kind, reader.GetXMLName(), part, len(got), data.GetClassName()), apart)
    V = f["mesh/vertices"][()]
    nfields = 0
    for _, b in got:
        if part == "distance":  # a uniform grid: its size and the values at its nodes
            d = f["distfield/values"].shape
            check("%s: distance grid of %s nodes" % (base, "x".join(map(str, d))),
                  b.IsA("vtkImageData") and sorted(b.GetDimensions()) == sorted(d))
            gname = part
        else:
            pts = vtk_to_numpy(b.GetPoints().GetData())
            conn = cells(b)
            gname = "mesh" if part == "surface" else part
        if part == "distance":
            pass
        elif part == "pointshell":
            check("%s: points are /pointshell/points" % base, np.array_equal(pts, f["pointshell/points"][()]))
            check("%s: a vertex cell per point" % base, conn.shape[1] == 1 and np.array_equal(conn[:, 0], f["pointshell/cells"][()]))
        elif gname == "render":
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
            check("%s: %s points are /mesh/vertices" % (base, part), np.array_equal(pts, V))
            ds = {4: "mesh/tets", 8: "mesh/hexes", 3: "mesh/triangles"}[conn.shape[1]]
            check("%s: %s cells are /%s" % (base, part, ds), np.array_equal(conn, f[ds][()]))
            if part == "surface" or (part == "mesh" and nvol == 0):
                check("%s: the %s grid is the triangles" % (base, part), ds == "mesh/triangles")
            elif part == "mesh":
                check("%s: the mesh grid is the volume, not its surface" % base, ds != "mesh/triangles")
        for attrs, where in ((b.GetPointData(), "point"), (b.GetCellData(), "cell")):
            for i in range(attrs.GetNumberOfArrays()):
                a = attrs.GetArray(i)
                want = expected(f, kind, a.GetName(), part)
                if want is None:
                    continue
                nfields += 1
                have = vtk_to_numpy(a)
                ok = have.shape == want.shape and np.array_equal(have, want.astype(have.dtype))
                check("%s: %s data \"%s\" equal the HDF5 data" % (base, where, a.GetName()), ok,
                      "shape %s vs %s, max diff %s" % (have.shape, want.shape,
                                                        np.abs(have - want).max() if ok is False and have.shape == want.shape else "-"))
    want_fields = {"modes": "modes/U", "cubic": "basis/U", "embedding": "basis/U"}.get(kind) if part == "mesh" else \
        {"gf": "gf/xi", "render": "embedding/Ubar", "distance": "distfield/values",
         "pointshell": "pointshell/level"}.get(part)
    if kind == "gf" and part == "mesh" and not os.path.exists(os.path.splitext(h5path)[0] + ".gf.xmf"):
        want_fields = "gf/xi"  # on the mesh's own vertices
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
