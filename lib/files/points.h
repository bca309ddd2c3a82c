/*
 * points.h — a list of points in space, from a text file (one "x y z" a
 * line, '#' comments) or an HDF5 file (dataset /points, float64 [P][3]):
 * the interior points of femcondense --interior (MATH.md §12, 000 eq.
 * 2.22).  elastoprep(5) documents both.
 */
#ifndef EP_POINTS_H
#define EP_POINTS_H

/* Read path (".h5": /points; anything else: text) into *p[*np][3]
 * (allocated, caller frees).  Cost O(P).  0; EP_EINPUT naming file and
 * line (or dataset) for a malformed or empty list or a non-finite value;
 * EP_EIO; EP_ECOMPUTE. */
int ep_points_read(const char *path, double **p, int *np);

#endif
