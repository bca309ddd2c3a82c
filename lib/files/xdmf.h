/*
 * xdmf.h — XDMF 3 sidecars: the text files OUT.xmf, OUT.surface.xmf, ...
 * written beside an elastoprep HDF5 file so that ParaView (and any XDMF
 * reader) shows it.  A sidecar holds no numbers of its own: every array is
 * the HDF5 dataset in place ("OUT.h5:/modes/U"), a row of a [k][3nv]
 * dataset addressed by a hyperslab and read as a vector per vertex.
 * elastoprep(5), XDMF SIDECARS.
 *
 * One sidecar per grid (issue 45, point 3): ParaView's default XDMF reader
 * (Xdmf3ReaderS, "Top Level Partition") merges every grid of a file into
 * one unnamed multi-piece dataset, in every layout tried (DECISIONS.md), so
 * each grid gets a file of its own, which every reader shows alone:
 *   OUT.xmf            the simulation mesh: tets, hexes (/mesh/hexes, VTK's
 *                      corner order, which is hex.h's; a spatial collection
 *                      "volume" of the two when a model has both), or the
 *                      boundary triangles when there is no volume;
 *                      /mesh/region as a cell field, /mesh/level as a point
 *                      field, and the kind's fields over its vertices
 *   OUT.surface.xmf    a volume's boundary triangles (/mesh/triangles)
 *                      ("boundary" is not used: ParaView's Enzo readers
 *                      claim any name with ".boundary." in it)
 *   OUT.gf.xmf         a gf file's rows when they are not all the mesh's
 *                      vertices (below)
 *   OUT.render.xmf     an embedding's render mesh
 *   OUT.distance.xmf   a distance field's uniform grid
 *   OUT.pointshell.xmf a pointshell's points
 *
 * What each kind shows (point fields are 3-vectors per vertex):
 *   modes       "mode I (F Hz)" (/modes/U), "derivative I J"
 *               (/derivatives/Phi), "basis I" (/basis/U)
 *   cubic       "basis I"
 *   cubature    "basis I", and "cubature weight" as a cell field (the
 *               chosen elements' weights, 0 elsewhere)
 *   gf          "xi C A displacement" and "xi C A traction" (/gf/xi row
 *               3C+A, the response to a unit load in direction A = x, y, z
 *               at col_vertex[C], at the free and at the fixed rows) on the
 *               GF rows' vertices: on the mesh itself (OUT.xmf) when the
 *               rows are all its vertices; else in OUT.gf.xmf, on the
 *               boundary surface when the rows are the first n vertices
 *               (TetGen and Gmsh number the surface first), else as values
 *               on vertex cells of the row vertices
 *   embedding   "basis I" on the simulation mesh; OUT.render.xmf:
 *               /render/vertices, /render/triangles, "render basis I"
 *               (/embedding/Ubar) and "distance"
 *   gf-wavelet  the mesh (its columns exist only as wavelet coefficients)
 *   distfield   the source surface; OUT.distance.xmf: the field's uniform
 *               grid (3DCoRectMesh) with its values
 *   pointshell  the mesh; OUT.pointshell.xmf: the points, "level", "normal"
 *   trajectory  OUT.xmf is a temporal collection: one grid per stored state
 *               at its time, "displacement" and "velocity" (/trajectory/u, /v)
 *
 * Files layer (doc/MODULES.md): reads the open file's shapes through HDF5,
 * writes text; output.c calls it when an HDF5 output is committed.
 */
#ifndef EP_XDMF_H
#define EP_XDMF_H

#include <stdio.h>

#include "h5.h"

/* A gf file of at most this many block columns shows them all; a larger one
 * its first EP_XDMF_FIRST_COLUMNS unless --xdmf-columns says otherwise. */
#define EP_XDMF_ALL_COLUMNS 64
#define EP_XDMF_FIRST_COLUMNS 8

/* 1 when base, an HDF5 file's name without its folder, can be referenced
 * from a sidecar beside it: an XDMF 3 reader cuts a reference
 * "FILE:/dataset|slab" at ':' and '|', and XML 1.0 holds no control
 * characters nor bytes that are not UTF-8 (issue 37, class 4).  Else 0: the
 * caller writes no sidecar (and warns). */
int ep_xdmf_href_ok(const char *base);

/* Check a --xdmf-columns list: "all", or comma-separated block-column
 * positions C (0-based, as in /gf/col_vertex) and ranges C0-C1.
 * 0 or EP_EUSAGE with "option --xdmf-columns: ...". */
int ep_xdmf_columns_check(const char *spec);

/* The grids, each in a sidecar of its own: EP_XDMF_MESH is OUT.xmf, the
 * others OUT.NAME.xmf with NAME = ep_xdmf_part_name(part). */
enum { EP_XDMF_MESH, EP_XDMF_SURFACE, EP_XDMF_GF, EP_XDMF_RENDER, EP_XDMF_DISTANCE, EP_XDMF_POINTSHELL,
       EP_XDMF_NPARTS };

/* "" for EP_XDMF_MESH, else the part's name ("surface", "gf", "render",
 * "distance", "pointshell"). */
const char *ep_xdmf_part_name(int part);

/* The sidecar's name of grid `part` for the HDF5 file h5name: its
 * extension .h5, .hdf5 or .he5 replaced by .xmf (EP_XDMF_MESH) or
 * .PART.xmf, else that appended.  0, or EP_EIO when it does not fit in
 * cap. */
int ep_xdmf_name(const char *h5name, int part, char *out, size_t cap);

/* 1 when the file at path is a sidecar that one of these functions wrote
 * for the HDF5 file href (its header names it), else 0.  Reads the
 * header (at most 24.3 KiB). */
int ep_xdmf_is_sidecar_of(const char *path, const char *href);

/* 1 when the file f carries a mesh (/mesh/vertices), so a sidecar can show it. */
int ep_xdmf_wanted(ep_h5 *f);

/* Write the XDMF 3 text of the open elastoprep file f (its kind from the
 * root attribute), each grid to its own stream fp[part] (EP_XDMF_NPARTS
 * open streams); *parts receives the set of parts written (bit 1 << part),
 * the streams of the others stay untouched.  href: how the sidecars name
 * the HDF5 file (its base name, the files being side by side); columns:
 * the gf columns shown (ep_xdmf_columns_check; NULL for the default);
 * positions past the last column are left out.
 *   Cost       O(number of fields) text; reads shapes only, and
 *              /gf/row_vertex (n ints) for a gf file.
 *   Returns    0; EP_EINPUT when a dataset's shape disagrees with the mesh;
 *              EP_EUSAGE for a bad columns list or an href no reader
 *              resolves; EP_EIO on a write error. */
int ep_xdmf_write(FILE *const fp[EP_XDMF_NPARTS], ep_h5 *f, const char *href, const char *columns, unsigned *parts);

#endif
