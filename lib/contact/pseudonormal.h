/*
 * pseudonormal.h — the sign of a distance to a closed, consistently
 * oriented triangle manifold by the angle-weighted pseudonormal of the
 * closest feature (Baerentzen & Aanaes 2005; MATH.md §10): a point x with
 * closest point c on feature f is inside iff (x - c) . n_f < 0, where n_f
 * is the face's normal, an edge's the sum of its two faces' unit normals,
 * a vertex's the sum of its faces' unit normals weighted by their angles
 * at it.  Exact (not a heuristic) for every point, near or far, when the
 * surface is a closed oriented manifold without self-intersections.
 *
 * Contact layer (doc/MODULES.md): geometry only.
 */
#ifndef EP_PSEUDONORMAL_H
#define EP_PSEUDONORMAL_H

#include <stddef.h>

typedef struct ep_pseudonormal {
    double *face;   /* owned: [nt][3] unit face normals */
    double *edge;   /* owned: [nt][3][3] edge j = (corner j, corner j+1 mod 3) of triangle t */
    double *vertex; /* owned: [nv][3] */
} ep_pseudonormal;

/* Whether the triangles tri [nt][3] over nv vertices x [nv][3] form a
 * closed, consistently oriented 2-manifold: every directed edge (a, b)
 * once, its reverse (b, a) once, no triangle of zero area or with a
 * repeated corner, no vertex whose triangles make more than one fan, and
 * no edge crossing a triangle that shares no vertex with it (the surface
 * does not pass through itself: two closed shells that overlap are not
 * one manifold, and their pseudonormals would sign the overlap wrong).
 *   Cost       O(nt log nt) (a hierarchy, closest.h), O(nt) memory.
 *   Returns    0 when they do; EP_EINPUT with the first defect ("edge 4-9
 *              has no opposite: the surface is open"), ids 1-based;
 *              EP_ECOMPUTE (memory). */
int ep_pseudonormal_check(const double *x, int nv, const int *tri, int nt);

/* The face, edge and vertex pseudonormals of a surface that passed
 * ep_pseudonormal_check.  Cost O(nt log nt).  0 or EP_ECOMPUTE. */
int ep_pseudonormal_build(ep_pseudonormal *pn, const double *x, int nv, const int *tri, int nt);
void ep_pseudonormal_free(ep_pseudonormal *pn);

/* The pseudonormal of feature (closest.h's EP_CLOSEST_FACE, _VERTEX0..2,
 * _EDGE0..2) of triangle t of tri.  Cost O(1). */
const double *ep_pseudonormal_of(const ep_pseudonormal *pn, const int *tri, int t, int feature);

#endif
