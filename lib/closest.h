/*
 * closest.h — closest-point queries on a triangle surface (bounding-volume
 * hierarchy of axis-aligned boxes).  Used by loopsub --project-onto to place
 * new vertices on a fine reference surface.
 */
#ifndef EP_CLOSEST_H
#define EP_CLOSEST_H

#include "mesh.h"

typedef struct ep_closest_node {
    double lo[3], hi[3];
    int first, count; /* leaf: triangles perm[first .. first+count); inner: count = 0, */
    int left, right;  /* children */
} ep_closest_node;

typedef struct ep_closest {
    const double *x;  /* borrowed: vertices [nv][3] */
    const int *tri;   /* borrowed: triangles [nt][3] */
    int nt;
    int *perm;        /* owned: triangle order of the leaves */
    ep_closest_node *node;
    int nnodes;
} ep_closest;

/* Build the hierarchy over the triangles of m (borrowed; must outlive c).
 * Cost O(nf log nf) time, O(nf) memory.  0 or EP_ECOMPUTE. */
int ep_closest_build(ep_closest *c, const ep_mesh *m);
void ep_closest_free(ep_closest *c);

/* Closest point q on the surface to p, its triangle and squared distance.
 * Cost O(log nf) typical.  Thread-safe (read-only). */
void ep_closest_query(const ep_closest *c, const double p[3], double q[3], int *tri, double *d2);

/* Closest point to p on triangle (a, b, c) (Ericson's region test). */
void ep_closest_on_triangle(const double p[3], const double a[3], const double b[3],
                            const double c[3], double q[3]);

#endif
