/*
 * meshio.h — the text mesh formats a user hands the tools: Gmsh .msh 2.2 and
 * 4.1 ASCII, TetGen .node/.ele, Vega .veg (with its materials and sets),
 * Wavefront .obj and .off; and the surface writer for .obj and .off.
 *
 * Data layer (doc/MODULES.md): no HDF5 here.  A tool reads its input with
 * ep_model_read (model.h), which also takes elastoprep .h5 files and sends
 * the text formats here.
 */
#ifndef EP_MESHIO_H
#define EP_MESHIO_H

#include <stdio.h>

#include "mesh.h"

/* Read a text mesh chosen by extension (.msh, .veg, .obj, .off, .node/.ele
 * or the TetGen base name), then ep_mesh_complete.  m is initialized here.
 * Errors name file and line: 0, EP_EINPUT, EP_EIO, EP_EUSAGE (unknown
 * extension) or EP_ECOMPUTE.  Cost O(file size) plus the derivations. */
int ep_meshio_read(ep_mesh *m, const char *path);

/* Surface formats ep_meshio_write writes. */
enum { EP_MESHIO_OBJ, EP_MESHIO_OFF };

/* The surface format of path by extension: EP_MESHIO_OBJ, EP_MESHIO_OFF, or
 * -1 for any other. */
int ep_meshio_format(const char *path);

/* Write the surface of m (vertices and triangles, full precision) to f as
 * .obj (1-based faces, a comment line) or .off (0-based, no comment: what
 * TetGen reads).  Write errors show on f (ferror; ep_output_commit reports
 * them).  Cost O(nv + nf). */
void ep_meshio_write(FILE *f, const ep_mesh *m, int format);

#endif
