/*
 * halfedge.h — the edge table of a triangle list: every side of every
 * triangle, keyed by its two ends and sorted so that the sides of one edge
 * are adjacent.  The closed-surface check (mesh), Loop subdivision
 * (subdiv) and the surface clean-up (repair) all find a surface's edges,
 * their faces and their orientation this way.  The directed table, keyed
 * by (from, to), finds the triangle a side leaves from: the pseudonormal
 * manifold check and fans (pseudonormal), the butterfly stencils' opposite
 * vertices (wavelet).
 */
#ifndef EP_HALFEDGE_H
#define EP_HALFEDGE_H

#include <stddef.h>
#include <stdint.h>

/* Side k of triangle t: from corner k to corner (k + 1) % 3, whose vertex
 * ids are lo < hi in some order. */
typedef struct ep_halfedge {
    int lo, hi, t, k;
} ep_halfedge;

/* The sides of the triangles tri[nf][3] with keep[t] != 0 (keep NULL: all),
 * sorted by (lo, hi, t, k): the sides of one edge form a run, in triangle
 * order.
 *   Outputs  *h the table (ep_malloc'd, 3 c + 1 entries, the caller frees
 *            it), *n = 3 c its length (c kept triangles); *h NULL on failure.
 *   Cost     O(nf log nf) time (qsort), 16 bytes per side.
 * 0 or EP_ECOMPUTE (memory). */
int ep_halfedge_table(const int *tri, int nf, const char *keep, ep_halfedge **h, size_t *n);

/* End of the run of sides of h[i]'s edge in the table h[n]: the first j > i
 * with other ends.  Cost O(run length). */
size_t ep_halfedge_run_end(const ep_halfedge *h, size_t n, size_t i);

/* First side of edge (a b) (either order) in the table h[n]; n when the
 * surface has no such edge.  Cost O(log n). */
size_t ep_halfedge_find(const ep_halfedge *h, size_t n, int a, int b);

/* Side k of triangle t as a directed edge: key = from << 32 | to (ids as
 * unsigned 32-bit), and its corner 3 t + k. */
typedef struct ep_dedge {
    uint64_t key;
    long corner;
} ep_dedge;

/* The directed sides of the triangles tri[nt][3], sorted by key (qsort:
 * sides of equal key, a non-manifold surface's, in any order): [3 nt]
 * (ep_malloc'd, the caller frees it), or NULL (EP_ECOMPUTE).  Cost
 * O(nt log nt) time, 16 bytes a side. */
ep_dedge *ep_halfedge_directed(const int *tri, int nt);

/* A position of the side from -> to in the directed table e[n], or -1.
 * Cost O(log n). */
long ep_halfedge_directed_find(const ep_dedge *e, long n, int from, int to);

/* 1 when side e of the triangles tri runs from lo to hi, 0 when from hi to
 * lo: two sides of one edge with equal directions are faces of opposite
 * orientation.  Cost O(1). */
static inline int ep_halfedge_forward(const ep_halfedge *e, const int *tri)
{
    return tri[3 * (size_t)e->t + e->k] == e->lo;
}

#endif
