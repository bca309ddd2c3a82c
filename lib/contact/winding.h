/*
 * winding.h — the generalized winding number of a triangle soup
 * (Jacobson, Kavan & Sorkine-Hornung 2013; MATH.md §10): w(x) = sum over
 * the triangles of the solid angle they subtend at x, over 4 pi.  It is 1
 * inside and 0 outside a closed, consistently oriented surface, whatever
 * its shells, and degrades gracefully on soups: holes, flipped, doubled or
 * overlapping faces, self-intersections (inside iff w > 1/2).
 *
 * Brute force costs O(F) a point.  The tree (Barill et al. 2018) puts on
 * each node of the closest-point hierarchy (closest.h) the sum of its
 * triangles' area vectors and their area-weighted centre; a node seen from
 * farther than EP_WINDING_BETA times its radius counts as one dipole, the
 * rest exactly: O(log F) a point far from the surface.
 *
 * Contact layer (doc/MODULES.md): geometry only.
 */
#ifndef EP_WINDING_H
#define EP_WINDING_H

#include "closest.h"

/* A node counts as a dipole when the point is farther than this times its
 * radius (Barill et al. 2018 use 2; the dipole's relative error is about
 * (radius / distance)^2 of the node's solid angle). */
#define EP_WINDING_BETA 2.0

typedef struct ep_winding {
    const ep_closest *tree; /* borrowed: the hierarchy and the triangles */
    double *area;           /* owned: [nnodes][3] sum of area vectors (1/2 (b-a) x (c-a)) */
    double *centre;         /* owned: [nnodes][3] area-weighted centroid */
    double *radius;         /* owned: [nnodes] bound on |vertex - centre| */
} ep_winding;

/* Solid angle of triangle (a, b, c) seen from p (Van Oosterom & Strackee
 * 1983, MATH.md §10): positive when p is on the side the normal (b-a) x
 * (c-a) points away from.  In [-2 pi, 2 pi].  Cost O(1), one atan2. */
double ep_winding_solid_angle(const double p[3], const double a[3], const double b[3], const double c[3]);

/* w(p) by brute force over the nt triangles tri [nt][3] of the vertices
 * x [nv][3].  Cost O(nt). */
double ep_winding_brute(const double *x, const int *tri, int nt, const double p[3]);

/* The per-node sums over the built hierarchy tree (borrowed; must outlive
 * w).  Allocates O(nodes).  Cost O(F).  0 or EP_ECOMPUTE. */
int ep_winding_build(ep_winding *w, const ep_closest *tree);
void ep_winding_free(ep_winding *w);

/* w(p) through the tree: exact near p, dipoles beyond EP_WINDING_BETA
 * radii.  Cost O(log F) far from the surface, up to O(F) on it.
 * Thread-safe (read-only). */
double ep_winding_eval(const ep_winding *w, const double p[3]);

#endif
