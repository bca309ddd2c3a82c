/*
 * meshio.h — the text mesh formats a user hands the tools: Gmsh .msh 2.2 and
 * 4.1 ASCII (linear tetrahedra, 8-node hexahedra; binary ones through
 * meshbin.h's conversion), TetGen .node/.ele, Vega .veg (TET and CUBIC
 * elements, with its materials and sets), Wavefront .obj and .off, and STL
 * (meshbin.h); the surface writer for .obj and .off and the .veg writer.
 * Hexahedra come in hex.h's corner order, which is Gmsh's and Vega's.
 *
 * Data layer (doc/MODULES.md): no HDF5 here.  A tool reads its input with
 * ep_model_read (model.h), which also takes elastoprep .h5 files and sends
 * the text formats here.
 */
#ifndef EP_MESHIO_H
#define EP_MESHIO_H

#include <stdio.h>

#include "mesh.h"

/* Read a mesh chosen by extension (.msh, .veg, .obj, .off, .stl, .node/.ele
 * or the TetGen base name), then ep_mesh_complete.  m is initialized here.
 * Errors name file and line: 0, EP_EINPUT, EP_EIO, EP_EUSAGE (unknown
 * extension) or EP_ECOMPUTE.  Cost O(file size) plus the derivations. */
int ep_meshio_read(ep_mesh *m, const char *path);

/* Text formats ep_meshio_write writes: two surface formats and Vega's
 * volumetric one. */
enum { EP_MESHIO_OBJ, EP_MESHIO_OFF, EP_MESHIO_VEG };

/* The format of path by extension: EP_MESHIO_OBJ, EP_MESHIO_OFF,
 * EP_MESHIO_VEG, or -1 for any other. */
int ep_meshio_format(const char *path);

/* Write m to f: .obj (its surface: vertices and triangles, 1-based faces, a
 * comment line), .off (0-based, no comment: what TetGen reads) or .veg
 * (ep_meshio_write_veg with m->material).  Numbers in as many digits as
 * read back exactly (%.17g, .veg: the fewer of %.15g that do).  Write errors show on f
 * (ferror; ep_output_commit reports them).  Cost O(nv + nf + elements).
 * Returns 0, or the status of ep_meshio_write_veg. */
int ep_meshio_write(FILE *f, const ep_mesh *m, int format);

/* Write the volumetric model m to f as a Vega .veg file: *VERTICES,
 * *ELEMENTS (TET, or CUBIC for hexes, Vega's vertex order being hex.h's)
 * and, when mat is given with finite E, nu and rho, the material: one
 * *MATERIAL (ENU, rho, E, nu) per distinct value triple and region tag, a
 * *SET of its elements and a *REGION line each ("allElements" when there is
 * one); region tags come back from ep_meshio_read as 1, 2, ... in ascending
 * order of m->region.  Groups and fixed vertices are not written (Vega keeps
 * fixed vertices in a .bou file).
 *   Cost      O(nv + ne log ne)
 *   Returns   0; EP_EINPUT when m has no tets or hexes, or a hex is not an
 *             axis-aligned box (Vega's CUBIC elements are voxels: nothing is
 *             written); EP_ECOMPUTE out of memory. */
int ep_meshio_write_veg(FILE *f, const ep_mesh *m, const ep_material *mat);

#endif
