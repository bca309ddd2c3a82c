/*
 * subdiv.h — subdivision-connectivity meshes: one 1-to-4 refinement step of a
 * closed triangle surface, recording the hierarchy (/mesh/level, /mesh/parents)
 * that the wavelet transform rebuilds (MATH.md §8; 000 §3.1).
 */
#ifndef EP_SUBDIV_H
#define EP_SUBDIV_H

#include "closest.h"
#include "mesh.h"

typedef enum {
    EP_SUBDIV_LOOP,   /* Loop's smooth rules (odd 3/8,3/8,1/8,1/8; even beta(n)) */
    EP_SUBDIV_LINEAR  /* midpoints; geometry unchanged (flat faces stay flat) */
} ep_subdiv_scheme;

/* Refine m once: every edge (a, b) gains an odd vertex appended after the
 * existing ones (so vertices stay ordered coarse to fine), every triangle
 * becomes four with the same orientation.  m must be a closed manifold surface
 * (ep_mesh_check_closed) with no tets.  If m->level is NULL, the current
 * vertices become level 0 (ep_subdiv_mark_base).  Odd vertices get level max+1 and parents (a, b),
 * a < b.  Vertex groups gain the odd vertices whose parents are both members.
 *
 * With project non-NULL, existing vertices keep their positions and each new
 * vertex is placed by the scheme's edge rule, then moved to the closest point
 * of the reference surface (a displaced-subdivision approximation).
 *
 * V' = V + E, F' = 4F.  Cost O(F log F) (edge sort) plus O(E log F_ref) for
 * projection.  0 or EP_ECOMPUTE (memory). */
int ep_subdiv_refine(ep_mesh *m, ep_subdiv_scheme scheme, const ep_closest *project);

/* Refuse levels steps of refinement of m (closed) that int32 indices or
 * this machine's memory cannot hold: after L steps V' = V + E, E' = 2E +
 * 3F, F' = 4F, and the last step's edge tables beside the mesh.  Cost
 * O(levels).  0; EP_EUSAGE (beyond 32-bit indices) or EP_ECOMPUTE (more
 * than 80% of the machine's memory). */
int ep_subdiv_check_size(const ep_mesh *m, long levels);

/* Give a mesh without hierarchy one: every vertex level 0, parents (-1, -1).
 * No-op when m->level is set.  0 or EP_ECOMPUTE. */
int ep_subdiv_mark_base(ep_mesh *m);

/* Loop's even-vertex weight beta(n) for valence n (Loop 1987):
 * (1/n) (5/8 - (3/8 + cos(2 pi / n) / 4)^2). */
double ep_subdiv_loop_beta(int n);

#endif
