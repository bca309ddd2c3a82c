/*
 * model.h — the model every elastoprep file carries (DESIGN.md, elastoprep(5)):
 * /mesh, /material and /constraints/fixed, written by every tool and read by
 * every tool; and reading a model from any supported mesh file.
 *
 * It sits above the mesh module (data) and the HDF5 module (files), so that
 * neither needs the other: mesh.c and meshio.c know no HDF5, h5.c knows no
 * mesh.
 */
#ifndef EP_MODEL_H
#define EP_MODEL_H

#include "h5.h"
#include "material.h"
#include "mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Read a model from path, chosen by extension: the text formats of meshio.h
 * (.msh, .node/.ele or the TetGen base name, .veg, .obj, .off) or .h5/.hdf5
 * (the /mesh of any elastoprep file, with /material and /constraints/fixed
 * when present).  Then validates (finite coordinates, indices in range,
 * positive tet volumes) and derives the boundary surface, boundary list and
 * vertex areas (ep_mesh_complete).  m is initialized here; free it with
 * ep_mesh_free after success and failure alike.
 * Returns 0, EP_EINPUT, EP_EIO, EP_EUSAGE (unknown extension) or EP_ECOMPUTE. */
int ep_model_read(ep_mesh *m, const char *path);

/* The same from the open file f: /mesh checked (shapes, finite coordinates,
 * index ranges, the level/parent hierarchy), /material and
 * /constraints/fixed when present, then ep_mesh_complete.  boundary and
 * vertex_area are recomputed from the triangles (a hex mesh's triangles from
 * its hexes), so a file cannot carry an inconsistent copy into a tool.  Cost O(file size). */
int ep_model_load(ep_mesh *m, ep_h5 *f);

/* Write the model into f: /mesh (vertices, tets or hexes, region, triangles,
 * boundary, vertex_area, level, parents); /material from mat, or from
 * m->material when mat is NULL (nothing when both are); /constraints/fixed:
 * the vertices with fixed[v] != 0, or m->fixed when fixed is NULL (nothing
 * when the set is empty); /constraints/seam: m->seam when m has one.
 * 0, EP_EIO or EP_ECOMPUTE. */
int ep_model_write(ep_h5 *f, const ep_mesh *m, const ep_material *mat, const char *fixed);

/* The three parts one by one. */
int ep_model_write_mesh(ep_h5 *f, const ep_mesh *m);
/* /material: attributes E, nu, rho, or datasets [ne] when heterogeneous. */
int ep_model_write_material(ep_h5 *f, const ep_material *mat);
/* /constraints/fixed: vertex ids fixed[nfixed] in [0, nv). */
int ep_model_write_fixed(ep_h5 *f, const int *fixed, int nfixed);

/* Read /material of a model of ne elements into mat (initialized here; free
 * with ep_material_free), checked with ep_material_check.  0, EP_EINPUT. */
int ep_model_read_material(ep_material *mat, ep_h5 *f, int ne);
/* Read /constraints/fixed, checked against nv: *fixed (allocated; caller
 * frees) and *nfixed.  0, EP_EINPUT. */
int ep_model_read_fixed(ep_h5 *f, int nv, int **fixed, int *nfixed);

/* Read /constraints/seam (the vertices a zone shares with the zones bonded
 * to it, 000 §5.1; zonemesh.h), checked against m->nv, into m->seam and
 * m->nseam.  0 or EP_EINPUT (empty, or an id out of range). */
int ep_model_read_seam(ep_h5 *f, ep_mesh *m);

#ifdef __cplusplus
}
#endif

#endif
