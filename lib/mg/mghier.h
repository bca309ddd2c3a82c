/*
 * mghier.h — geometric multigrid hierarchies of tet meshes (MATH.md §16;
 * 002 §2.4): the meshes of the levels, the prolongations P between them and
 * the Galerkin coarse operators K_c = P^T K P, what a V-cycle (vcycle.h)
 * runs on.
 *
 * Level 0 is the finest.  Nested hierarchies come from 1 -> 8 refinement
 * (edge midpoints; the inner octahedron split along its shortest diagonal,
 * 002 Fig. 2.11), where a fine vertex is a coarse one (weight 1) or the
 * midpoint of a coarse edge (1/2, 1/2).  Non-nested ones come from coarse
 * meshes given, or made here by simplifying the fine boundary and filling it
 * with TetGen; a fine vertex then takes the barycentric weights of the
 * coarse tet holding it, extrapolated from the nearest one outside the
 * coarse mesh (002 §2.4.3, as embed.h binds render vertices).  Either way
 * the weights sum to 1 and reproduce affine fields exactly.
 *
 * Support: the fine operator holds the fixed vertices (ep_bsr_hold) and
 * their prolongation rows are zero, so no correction moves them; a coarse
 * vertex reached only through fixed ones gets an identity row.
 */
#ifndef EP_MGHIER_H
#define EP_MGHIER_H

#include "bsr.h"
#include "material.h"
#include "mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ep_mghier_level {
    int nv, ne;
    double *x;        /* [nv][3] */
    int *tets;        /* [ne][4] */
    ep_bsr K;         /* the level's operator (level 0: assembled and held; others P^T K P) */
    ep_csr P;         /* level l + 1 -> l: nv x nv(l + 1); empty on the coarsest */
    int noutside;     /* vertices of this level outside the next coarser mesh */
    double maxdist;   /* the farthest of them from it */
} ep_mghier_level;

typedef struct ep_mghier {
    int nlevels, nested;
    ep_mghier_level *level; /* [nlevels], 0 the finest */
} ep_mghier;

/* Bytes per fine tet a hierarchy level holds (mesh, operator, prolongation,
 * the assembly's workspace), for the guard on refinement levels. */
#define EP_MGHIER_BYTES_PER_TET 1200.0

/* fine = coarse refined 1 -> 8 (tets only): coarse's vertices first, then
 * one per edge at its midpoint; parents[v] = (a, b), the endpoints of v's
 * edge (a == b == v for a coarse vertex); elem_parent[t] = the coarse tet
 * of fine tet t.  Every child keeps its parent's orientation (positive
 * volume).  fine gets the boundary data (ep_mesh_complete) but no material
 * or groups.
 *   Outputs    fine (set up here; ep_mesh_free in every case), *parents,
 *              *elem_parent (allocated; caller frees)
 *   Cost       O(ne log ne)
 *   Returns    0; EP_EINPUT (not a tet mesh); EP_ECOMPUTE. */
int ep_mghier_refine(ep_mesh *fine, const ep_mesh *coarse, int **parents, int **elem_parent);

/* P of a nested pair from ep_mghier_refine's parents (nf fine vertices, nc
 * coarse ones).  0 or EP_ECOMPUTE. */
int ep_mghier_nested_prolongation(ep_csr *P, const int *parents, int nf, int nc);

/* Weights of an embedded prolongation at or below this are dropped: a
 * fine vertex on a coarse face or edge gets 1e-17 from rounding on the
 * corners off it, and a coarse vertex reached by such weights alone would
 * give a numerically singular diagonal block (seen on the dragon with
 * `tetgen -pq1.6` levels).  Affine fields stay exact to 1e-14. */
#define EP_MGHIER_MIN_WEIGHT 1e-14

/* P of a non-nested pair: the fine vertices xf[nf][3] bound to the coarse
 * tets (xc[nc][3], tets[ne][4]); *noutside and *maxdist say how many lie
 * outside the coarse mesh and how far.
 *   Returns    0; EP_EINPUT when a fine vertex is farther than limit from
 *              every coarse tet (the coarse mesh does not cover the fine
 *              one; the message names the vertex, 1-based, and its
 *              distance); EP_ECOMPUTE. */
int ep_mghier_embedded_prolongation(ep_csr *P, const double *xf, int nf, const double *xc, int nc, const int *tets,
                                    int ne, double limit, int *noutside, double *maxdist);

/* A coarse tet mesh of fine made by TetGen: fine's boundary simplified
 * (simplify.h) to about target_nb vertices, and inside it a maximal
 * independent set of fine's vertices more than EP_MGHIER_INTERIOR_RING
 * edges from its boundary (no two of them in one element: about every
 * other vertex along each direction), filled by `tetgen -pi` (tets keeping
 * the simplified surface as their boundary, those points inserted, no
 * Steiner points for quality: -pq1.414 on the dragon kept 55% of the fine
 * vertices) in a temporary folder under tmpdir, removed afterwards; should
 * TetGen fail with the points, the boundary alone (`tetgen -p`).  The
 * inside points make the coarse level a uniform thinning of the fine one
 * (002 §2.4.6): from the boundary alone a coarse tet spans a limb's width,
 * and the dragon's two-grid cycle fell to 0.93 a cycle (0.86 with them).
 *   Outputs    coarse (set up here; ep_mesh_free in every case)
 *   Cost       the simplification O(nf log nf), O(nv) for the points, and
 *              TetGen's run
 *   Returns    0; EP_EINPUT (fine's boundary is no closed manifold);
 *              EP_ECOMPUTE (TetGen not found or failed: its status). */
#define EP_MGHIER_INTERIOR_RING 2
int ep_mghier_tetgen(ep_mesh *coarse, const ep_mesh *fine, int target_nb, const char *tmpdir);

/* The operators: level 0's K assembled from m (the mesh of level 0: its
 * tets or hexes, material mat) with the vertices fixed[v] != 0 held, then
 * for l = 1 .. nlevels - 1 K_l = P_l-1^T K_l-1 P_l-1 (rows of fixed fine
 * vertices zeroed in P_0 first).  The levels' meshes and P must be set.
 *   Cost       the assembly, and the Galerkin products (bsr.h)
 *   Returns    0 or EP_ECOMPUTE. */
int ep_mghier_operators(ep_mghier *h, const ep_mesh *m, const ep_material *mat, const char *fixed);

/* Level l's mesh from mesh (a copy of its vertices and, for a tet mesh,
 * tets).  0 or EP_ECOMPUTE. */
int ep_mghier_set_mesh(ep_mghier *h, int l, const ep_mesh *mesh);

/* Set up h for nlevels levels (levels zeroed).  0 or EP_ECOMPUTE. */
int ep_mghier_init(ep_mghier *h, int nlevels);
void ep_mghier_free(ep_mghier *h);

#ifdef __cplusplus
}
#endif

#endif
