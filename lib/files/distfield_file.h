/*
 * distfield_file.h — files of kind "distfield" (elastoprep(5)): a signed
 * distance field on a cubic grid (distfield.h, 001 §3.11, MATH.md §10)
 * with what a contact runtime needs beside the values: the grid (origin,
 * spacing, resolution), the smallest value on the box's faces (d_boundary
 * of 001 eq. 3.14), the sign method and the SHA-256 of the source mesh.
 * The source surface goes in /mesh (model.h), so the XDMF sidecar shows
 * it beside the field.  Also Vega FEM's binary .dist layout.
 *
 *   /distfield/values  float32 [n+1][n+1][n+1] (z, y, x: x fastest)
 *   /distfield/origin  float64 [3], the box's lower corner
 *   /distfield attributes: resolution n, spacing h, d_boundary, offset,
 *                      band (0: exact everywhere), band_error, sign
 *                      ("pseudonormal", "winding" or "unsigned"),
 *                      source_hash (64 hex digits)
 *
 * .dist (Vega's DistanceField::save): int32 -n (negative: float data),
 * int32 n, int32 n, float64 bmin x y z, float64 bmax x y z, then the
 * (n+1)^3 float32 values, x fastest, then y, then z; little-endian.
 *
 * Files layer (doc/MODULES.md).
 */
#ifndef EP_DISTFIELD_FILE_H
#define EP_DISTFIELD_FILE_H

#include <stdio.h>

#include "distfield.h"
#include "h5.h"
#include "mesh.h"

/* Hex digits of a SHA-256 and the terminator. */
#define EP_DISTFIELD_FILE_HASH 65

/* SHA-256 of the mesh's vertices and triangles (their bytes, each array
 * behind its name and length), as 64 hex digits.  Cost O(nv + nf). */
void ep_distfield_file_hash(const ep_mesh *m, char hash[EP_DISTFIELD_FILE_HASH]);

/* Write the field g (computed) into f with the source hash.  0 or EP_EIO. */
int ep_distfield_file_write(ep_h5 *f, const ep_distfield *g, const char *hash);

/* Read the field of f into g (g->value allocated; ep_distfield_free in
 * every case) and, when hash is not NULL, the source hash.  Everything is
 * checked before the values are read: resolution 1..EP_DISTFIELD_MAX_RES,
 * the values' extents, finite origin, spacing > 0, a known sign; values
 * finite.  0; EP_EINPUT naming the file and the object; EP_ECOMPUTE. */
int ep_distfield_file_read(ep_distfield *g, ep_h5 *f, char hash[EP_DISTFIELD_FILE_HASH]);

/* Write g as Vega's .dist to fp (little-endian whatever the host).  Write
 * errors show on fp (ferror).  Cost O(n^3). */
void ep_distfield_file_write_vega(FILE *fp, const ep_distfield *g);

/* Read the .dist file path into g (origin, h from bmin and bmax, n;
 * g->value allocated).  Only cubes with float data are accepted (what
 * distfield writes).  0; EP_EIO when it cannot be read; EP_EINPUT for a
 * bad header or size. */
int ep_distfield_file_read_vega(ep_distfield *g, const char *path);

#endif
