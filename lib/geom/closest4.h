/*
 * closest4.h — exact closest-triangle queries on a wide box hierarchy (8
 * children a node), four triangles a vector test: the many-query search of distance fields
 * (distfield.h), where a good first bound (the neighbour point's triangle)
 * leaves the work in verifying it.
 *
 * The hierarchy is a binary tree split by the surface area heuristic (16
 * bins an axis; Wald 2007), collapsed to nodes of eight children (the two
 * children, then the children of the largest inner child until there are
 * eight): node boxes are the triangles' exact double boxes, eight to a
 * vector, so a node costs one 8-wide box-distance test (no float rounding
 * to allow for); each leaf (up to four triangles) is stored as its corners in structure-of-arrays doubles and
 * tested four at a time, branch-free: the squared distance is the minimum
 * of the three edge segments' and, when the point projects inside the
 * triangle, the plane's (MATH.md §10: the closest point by region tests;
 * the same value up to rounding).  The query visits the children nearest
 * first and passes over any box no nearer than the best so far, so the
 * result is the minimum over every triangle.
 *
 * Triangles whose corners are nearly collinear (sin of the angle at the
 * first corner below 1e-6) have no face region here: their distance is the
 * edges', larger than the face's by at most the triangle's width (below
 * 1e-6 of its edges).
 */
#ifndef EP_CLOSEST4_H
#define EP_CLOSEST4_H

#include "closest.h"
#include "kernel.h"

/* Eight doubles (one AVX-512 register, two AVX ones). */
typedef double ep_v8d __attribute__((vector_size(64), aligned(8)));

typedef struct ep_closest4_node {
    ep_v8d lo[3], hi[3]; /* children's boxes by axis; an empty slot is lo = +inf, hi = -inf */
    int child[8];        /* >= 0: a node; < 0: leaf -1 - child */
} ep_closest4_node;

typedef struct ep_closest4_leaf {
    ep_v4d v[9];         /* corners a, b, c of up to four triangles: ax ay az bx by bz cx cy cz */
    ep_v4d n[3];         /* normals ab x ac */
    ep_v4d inv[4];       /* 1 / |ab|^2, 1 / |bc|^2, 1 / |ca|^2, 1 / |n|^2; 0: point-like edge, no face region */
    int tri[4];          /* their ids; a short leaf repeats its last triangle */
} ep_closest4_leaf;

typedef struct ep_closest4 {
    ep_closest4_node *node;
    ep_closest4_leaf *leaf;
    int nnodes, nleaves;
} ep_closest4;

/* The 4-wide hierarchy of the triangles of m (finite vertices; copied
 * into the leaves, so m may change after).
 *   Workspace  a binary tree (2 nt nodes), boxes and centres (O(nt)).
 *   Cost       O(nt log nt) (binned surface-area heuristic); memory about
 *              150 bytes a triangle.
 *   Returns    0; EP_EINPUT for no triangles; EP_ECOMPUTE (memory). */
int ep_closest4_build(ep_closest4 *w, const ep_mesh *m);
void ep_closest4_free(ep_closest4 *w);

/* The closest triangle to p and its squared distance, starting from the
 * bound *d2 of triangle *tri (*tri = -1 and *d2 = INFINITY: none).  On
 * return *tri and *d2 hold the minimum over every triangle (ties keep the
 * earlier); *tests is increased by the triangles tested.  Workspace a stack
 * of 256 on the C stack.  Cost O(log nt) nodes typical.  Thread-safe. */
void ep_closest4_query(const ep_closest4 *w, const double p[3], int *tri, double *d2, double *tests);

#endif
