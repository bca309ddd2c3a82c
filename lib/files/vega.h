/*
 * vega.h — Vega FEM's binary files for reduced models, so its runtime
 * (Barbič's reducedStvk and modalMatrix libraries) loads what elastoprep
 * computes, and elastoprep reads Vega's bases.  Layouts as Vega's own
 * matrixIO and StVKReducedInternalForces read and write them (epexport(1)):
 *
 *   .U   ModalMatrix: int32 m = 3nv, int32 n = r, then m n float64 in
 *        column-major order, column j the basis vector j interleaved 3v +
 *        axis.  That is /basis/U [r][3nv] as it is stored, behind the header.
 *   .cub the reduced StVK force's cubic polynomial: int32 r, int32 r,
 *        int32 r(r+1)/2, int32 r(r+1)(r+2)/6, then the linear, quadratic and
 *        cubic coefficients, each [output][term] with the terms of
 *        ep_cubic's lexicographic order (i, i <= j, i <= j <= k): the
 *        transposes of /cubic/P, Q and S, which are [term][output].
 * Integers and doubles are little-endian (what Vega reads on the machines
 * it runs on), whatever the host.
 *
 * Files layer (doc/MODULES.md): plain binary streams, no HDF5.
 */
#ifndef EP_VEGA_H
#define EP_VEGA_H

#include <stdio.h>

#include "cubic.h"

/* Write the basis U [r][len] (len = 3nv) as a .U file to f.  Write errors
 * show on f (ferror).  Cost O(r len). */
void ep_vega_write_basis(FILE *f, const double *U, int r, long len);

/* Read the .U file path: *U [*r][*len] (allocated; caller frees), every
 * value finite.  0; EP_EIO when it cannot be opened or read; EP_EINPUT when
 * the header is not m > 0, n > 0 with m a multiple of 3, or the size of the
 * file is not 8 + 8 m n bytes (a message naming the path and the sizes). */
int ep_vega_read_basis(const char *path, double **U, int *r, long *len);

/* Write the polynomials c as a .cub file to f.  Write errors show on f.
 * Allocates r ntriples doubles (the transposes).  Cost O(r ntriples).
 * 0 or EP_ECOMPUTE (memory; nothing written). */
int ep_vega_write_cubic(FILE *f, const ep_cubic *c);

/* Read the .cub file path into c (allocated here; free with ep_cubic_free
 * in every case).  0; EP_EIO; EP_EINPUT when the header's sizes are not
 * those of one r > 0, the file's size does not match, or a value is not
 * finite. */
int ep_vega_read_cubic(const char *path, ep_cubic *c);

#endif
