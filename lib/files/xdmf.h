/*
 * xdmf.h — XDMF 3 sidecars: the text file OUT.xmf written beside an
 * elastoprep HDF5 file so that ParaView (and any XDMF reader) shows it.  The
 * sidecar holds no numbers of its own: every array is the HDF5 dataset in
 * place ("OUT.h5:/modes/U"), a row of a [k][3nv] dataset addressed by a
 * hyperslab and read as a vector per vertex.  elastoprep(5), XDMF SIDECARS.
 *
 * What each kind shows (point fields are 3-vectors per vertex):
 *   every kind  the mesh: tets, hexes (/mesh/hexes, VTK's corner order, which
 *               is hex.h's), or the boundary triangles when there is no
 *               volume; /mesh/region as a cell field, /mesh/level as a point
 *               field
 *   modes       "mode I" (/modes/U), "derivative I J" (/derivatives/Phi),
 *               "basis I" (/basis/U)
 *   cubic       "basis I"
 *   cubature    "basis I", and "cubature weight" as a cell field (the
 *               chosen elements' weights, 0 elsewhere)
 *   gf          "xi C A" (/gf/xi row 3C+A: the response to a unit load in
 *               direction A = x, y, z at col_vertex[C]) on the GF rows'
 *               vertices: on the mesh itself when the rows are all its
 *               vertices, on the boundary surface when the rows are the
 *               first n vertices (TetGen and Gmsh number the surface first),
 *               else as values on vertex cells of the row vertices
 *   embedding   the simulation mesh with "basis I", and a second grid
 *               "render": /render/vertices, /render/triangles, "render
 *               basis I" (/embedding/Ubar) and "distance"
 *   gf-wavelet  the mesh (its columns exist only as wavelet coefficients)
 *   distfield   the source surface, and a second grid "distance": the
 *               field's uniform grid (3DCoRectMesh) with its values
 *   trajectory  a temporal collection: one grid per stored state at its
 *               time, "displacement" and "velocity" (/trajectory/u, /v)
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

/* The sidecar's name for the HDF5 file h5name: its extension .h5, .hdf5 or
 * .he5 replaced by .xmf, else .xmf appended.  0, or EP_EIO when it does not
 * fit in cap. */
int ep_xdmf_name(const char *h5name, char *out, size_t cap);

/* 1 when the file f carries a mesh (/mesh/vertices), so a sidecar can show it. */
int ep_xdmf_wanted(ep_h5 *f);

/* Write the XDMF 3 text for the open elastoprep file f (its kind from the
 * root attribute) to fp.  href: how the sidecar names the HDF5 file (its
 * base name, the two being side by side); columns: the gf columns shown
 * (ep_xdmf_columns_check; NULL for the default); positions past the last
 * column are left out.
 *   Cost       O(number of fields) text; reads shapes only, and
 *              /gf/row_vertex (n ints) for a gf file.
 *   Returns    0; EP_EINPUT when a dataset's shape disagrees with the mesh;
 *              EP_EUSAGE for a bad columns list; EP_EIO on a write error. */
int ep_xdmf_write(FILE *fp, ep_h5 *f, const char *href, const char *columns);

#endif
