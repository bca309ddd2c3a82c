/*
 * closest.h — closest-point and line queries on a triangle surface
 * (bounding-volume hierarchy of axis-aligned boxes).  Used by loopsub
 * --project-onto to place new vertices on a fine reference surface, by the
 * fitting of Loop levels onto a scan (fit.h), the quality report and the
 * crossing-triangle search (surfdist.h), and the orientation of nested parts
 * in surface clean-up (repair.h).
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

/* The boxes of c again after its mesh's vertices moved (the same
 * triangles, the same tree): leaves from their triangles, inner nodes as
 * the union of their children (children follow their parent in node[]).
 * Queries stay exact; only the splits' quality goes as far as the
 * vertices moved.  Cost O(nt), no sort (a build sorts: O(nt log nt)). */
void ep_closest_refit(ep_closest *c);

/* Depth first over the hierarchy, right child before left: a node whose
 * enter(ctx, id, node) is 0 is passed over with all below it; each
 * triangle t of an entered leaf, in the order of perm, gets leaf(ctx, t),
 * and a nonzero return of leaf ends the walk and is returned (0 when the
 * walk ends by itself or the tree is empty).  The one traversal of the
 * winding numbers, line and segment tests and crossing searches; always
 * inlined, so that constant callbacks inline into the caller's loop as
 * the hand-written loops were.  Workspace a
 * stack of 128 (the median split keeps the depth below log2(nt) + 1).
 * Cost: the nodes entered.  Thread-safe when the callbacks are. */
static inline __attribute__((always_inline)) int
ep_closest_walk(const ep_closest *c, int (*enter)(void *ctx, int id, const ep_closest_node *n),
                int (*leaf)(void *ctx, int t), void *ctx)
{
    int stack[128], sp = 0;
    if (c->nt == 0)
        return 0;
    stack[sp++] = 0;
    while (sp) {
        int id = stack[--sp];
        const ep_closest_node *n = &c->node[id];
        if (!enter(ctx, id, n))
            continue;
        if (!n->count) {
            stack[sp++] = n->left;
            stack[sp++] = n->right;
            continue;
        }
        for (int i = n->first; i < n->first + n->count; i++) {
            int r = leaf(ctx, c->perm[i]);
            if (r)
                return r;
        }
    }
    return 0;
}

/* Closest point q on the surface to p, its triangle and squared distance.
 * Cost O(log nf) typical.  Thread-safe (read-only). */
void ep_closest_query(const ep_closest *c, const double p[3], double q[3], int *tri, double *d2);

/* As ep_closest_query, among the triangles whose normal points within 90
 * degrees of n (n need not be unit): the normal-compatible closest point
 * of ICP, which skips the far side of a thin part.  *tri = -1 and *d2 =
 * INFINITY when no triangle faces n.  Cost O(log nf) typical, more where
 * the facing triangles are far.  Thread-safe. */
void ep_closest_query_facing(const ep_closest *c, const double p[3], const double n[3], double q[3], int *tri,
                             double *d2);

/* Nearest crossing (smallest |s|, |s| < reach) of the line p + s d with a
 * triangle whose normal points along d: 1 with q and *tri, or 0.  d unit
 * (reach is then a length).  Cost O(log nf) typical.  Thread-safe. */
int ep_closest_line(const ep_closest *c, const double p[3], const double d[3], double reach, double q[3], int *tri);

/* Where segment p q meets triangle (a b c) (Moeller & Trumbore 1997): 1 with
 * *t in [0, 1] the parameter from p, or 0 (also for a segment in the
 * triangle's plane).  Cost O(1). */
int ep_closest_segment_hit(const double p[3], const double q[3], const double a[3], const double b[3],
                           const double c[3], double *t);

/* Barycentric coordinates w of q (in the plane of triangle (a b c)):
 * q = w0 a + w1 b + w2 c; (1, 0, 0) for a degenerate triangle.  Cost O(1). */
void ep_closest_barycentric(const double q[3], const double a[3], const double b[3], const double c[3], double w[3]);

/* Closest point to p on triangle (a, b, c) (Ericson's region test).
 * Cost O(1). */
void ep_closest_on_triangle(const double p[3], const double a[3], const double b[3],
                            const double c[3], double q[3]);

/* The feature of a triangle a closest point lies on: its interior, corner
 * a, b or c, edge ab, bc or ca (edge j joins corners j and j + 1 mod 3). */
enum {
    EP_CLOSEST_FACE = 0,
    EP_CLOSEST_VERTEX0, EP_CLOSEST_VERTEX1, EP_CLOSEST_VERTEX2,
    EP_CLOSEST_EDGE0, EP_CLOSEST_EDGE1, EP_CLOSEST_EDGE2
};

/* As ep_closest_on_triangle, returning the feature (EP_CLOSEST_*) whose
 * region p is in: the sign of a distance by pseudonormals (pseudonormal.h)
 * needs it.  Cost O(1). */
int ep_closest_on_triangle_feature(const double p[3], const double a[3], const double b[3], const double c[3],
                                   double q[3]);

#endif
