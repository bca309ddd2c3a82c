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
 * For a block of query points, ep_closest4_near lists once the leaves
 * within a bound of the block's box and ep_closest4_query_list scans
 * that list (eight boxes a vector, two leaves a test with AVX-512) in
 * place of a walk: the walk's node tests and child sorting were half its
 * cost when the first bound is already the answer.
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

/* The leaves whose boxes come within a distance of a box of query points
 * (a block of grid points), their boxes eight to a vector: one traversal
 * of the hierarchy a block, then each point of the block scans the list
 * (ep_closest4_query_list) instead of walking the tree. */
typedef struct ep_closest4_list {
    int n;           /* leaves listed, nearest to the block's box first */
    size_t cap;      /* room, in leaves (a multiple of 8) */
    int *leaf;       /* [cap] their ids (allocated) */
    double *gap;     /* [cap / 8] the smallest squared gap between the block's box and the boxes of leaves
                        8 c and after (allocated) */
    ep_v8d *lo, *hi; /* [3 cap / 8]: the boxes of leaves 8 c .. 8 c + 7 by axis at [3 c + axis] (allocated);
                        past n, lo = +inf and hi = -inf */
    struct ep_closest4_near_leaf *tmp; /* the listing's workspace (allocated) */
    size_t ntmp;
    int *order;      /* [cap] its order (allocated) */
} ep_closest4_list;

/* Into l (zeroed, or kept from an earlier call: its room is reused), the
 * leaves of w whose boxes are nearer than sqrt(r2) to the box [lo, hi],
 * nearest first (by buckets of the gap), l->n of them; l->n = -1, and
 * the walk stopped, when there are more than most.
 *   Cost       one traversal: the nodes within that distance; O(l->n).
 *   Returns    0; EP_ECOMPUTE (memory: l->n is then 0). */
int ep_closest4_near(ep_closest4_list *l, const ep_closest4 *w, const double lo[3], const double hi[3], double r2,
                     int most);
void ep_closest4_list_free(ep_closest4_list *l);

/* As ep_closest4_query over the leaves of l only: the same minimum when l
 * holds every leaf whose box is nearer to p than the answer (a list made
 * by ep_closest4_near for a box holding p, with sqrt(r2) at least an upper
 * bound of p's distance).  Leaves are tested in l's order, each only while
 * its box is nearer than the best so far (ties keep the earlier).
 *   Cost       a box test a leaf listed (eight a vector), a leaf test (four
 *              triangles a vector) a leaf nearer than the best.
 *   Thread-safe (l is read only). */
void ep_closest4_query_list(const ep_closest4 *w, const ep_closest4_list *l, const double p[3], int *tri, double *d2,
                            double *tests);

#endif
