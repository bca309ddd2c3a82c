/*
 * meshbin.h — the mesh files users have that are not line-oriented text:
 * binary Gmsh .msh (2.2 and 4.1), and STL (ASCII and binary; both forms
 * are read here because only the content tells them apart).
 *
 * A binary .msh is converted to the ASCII .msh it stands for, in memory,
 * so that meshio's one Gmsh parser reads both (element types, groups,
 * physical names and their checks stay in one place).  Data layer: no
 * HDF5 here; ep_meshio_read calls these.
 */
#ifndef EP_MESHBIN_H
#define EP_MESHBIN_H

#include <stddef.h>

#include "mesh.h"

/* If path is a binary .msh ("$MeshFormat" with file-type 1), convert it to
 * the equivalent ASCII .msh text: *text (malloc'd, NUL-terminated, *len
 * bytes) holds $MeshFormat (file-type 0), $PhysicalNames as read, and
 * $Entities (4.1), $Nodes and $Elements written out in ASCII with
 * coordinates in %.17g; other sections are dropped (the ASCII reader skips
 * them too).  An ASCII .msh leaves *text NULL.
 *   Cost      O(file size) time and about twice its size in memory
 *   Returns   0; EP_EIO (cannot read); EP_EINPUT "FILE: byte N: ..." for a
 *             truncated section, an impossible count, another byte order or
 *             size_t width, parametric nodes, or an element type whose size
 *             is unknown; EP_ECOMPUTE out of memory. */
int ep_meshbin_msh_text(const char *path, char **text, size_t *len);

/* Read an STL file, binary (80-byte header, a uint32 count, 50 bytes a
 * triangle: told by the size 84 + 50 n) or ASCII ("solid" ... "facet" /
 * "outer loop" / three "vertex x y z" ... "endsolid"), into m's vertices
 * and triangles.  STL repeats every vertex in each triangle: vertices with
 * identical coordinates are merged (exact comparison; welding close ones is
 * loopsub's clean-up).  Normals are ignored (orientation comes from the
 * vertex order).  m must be initialized (ep_mesh_init); ep_mesh_complete is
 * the caller's.
 *   Cost      O(n log n) for n triangles
 *   Returns   0; EP_EIO; EP_EINPUT "FILE: ..." (no triangles, a
 *             non-finite coordinate, a truncated binary file, ASCII syntax
 *             with its line); EP_ECOMPUTE out of memory. */
int ep_meshbin_read_stl(const char *path, ep_mesh *m);

#endif
