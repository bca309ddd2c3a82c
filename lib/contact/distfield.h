/*
 * distfield.h — signed distance fields of triangle meshes and polygon soups
 * on a cubic grid (001 §3.11, eq. 3.14; MATH.md §10), the data the
 * distance-field side of 6-DoF contact needs (001 Ch. 3).
 *
 * The box is a cube: the bounding box of the triangles' vertices, its
 * longest side times an expansion (1.5, 001 §3.11), centred; or given.
 * N cells a side, spacing h = side / N, values at the (N+1)^3 grid points,
 * x fastest, then y, then z (Vega's .dist order), stored as float32.
 *
 * Every value is the exact Euclidean distance to the closest point of the
 * triangle set (region tests, closest.h), rounded to float32: each grid
 * point runs an exact closest-triangle query on the wide hierarchy of
 * closest4.h whose first bound is the distance to the closest triangle of
 * the point before it in its 4^3 block (Lipschitz coherence: within 2h of
 * the answer, mostly equal to it), so the search prunes nearly everything
 * at once; boxes (eight at a time) and triangles (four, or eight with
 * AVX-512) are tested in double.  Each block first lists the leaves of the
 * hierarchy nearer to its box than its centre's distance plus its half
 * diagonal (an upper bound of every point's distance), once, and its
 * points scan that list instead of walking the tree; a block whose list
 * would pass EP_DISTFIELD_LIST leaves (coarse grids) walks the tree
 * (doc/DECISIONS.md has the measurements; in the environment
 * EP_DISTFIELD_TREE=1 walks the tree everywhere and EP_DISTFIELD_EMBREE=1
 * runs Embree's point query, rtcPointQuery, instead, the searches these
 * replaced, for the benchmark's comparisons).  The result is the minimum
 * over every triangle.  With a band W, a point whose coarse cell
 * (EP_DISTFIELD_COARSE cells wide, exact corners) has all corners farther
 * than W plus the cell's diagonal from the surface is interpolated instead,
 * with the error bound ep_distfield_band_error.
 *
 * Sign (negative inside):
 *   pseudonormal  closed, consistently oriented manifolds: the angle-
 *                 weighted pseudonormal of the closest feature
 *                 (pseudonormal.h), exact at every point.
 *   winding       anything else (soups): the generalized winding number
 *                 (winding.h), w > 1/2 inside.  A point within a cell
 *                 diagonal of the surface is signed by its own w; the
 *                 others form face-connected regions (neighbouring points
 *                 both farther than h/2 from the surface see no surface
 *                 between them), each signed by one w at a seed and checked
 *                 at every EP_DISTFIELD_SAMPLE-th point; a region whose
 *                 samples disagree (an open surface whose w crosses 1/2 in
 *                 free space) is signed point by point.
 *
 * Contact layer (doc/MODULES.md): geometry, no files.
 */
#ifndef EP_DISTFIELD_H
#define EP_DISTFIELD_H

#include <stddef.h>

#include "mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { EP_DISTFIELD_UNSIGNED = 0, EP_DISTFIELD_PSEUDONORMAL = 1, EP_DISTFIELD_WINDING = 2 };

/* Names of the sign methods, indexed by EP_DISTFIELD_*. */
extern const char *const ep_distfield_sign_name[3];

/* Largest resolution: (N+1)^3 grid points must be numbered by a long and
 * fit the file's int32 extents per axis. */
#define EP_DISTFIELD_MAX_RES 4096
/* Coarse cell of the --band approximation, in cells. */
#define EP_DISTFIELD_COARSE 4
/* Stride of the points that check a far region's sign. */
#define EP_DISTFIELD_SAMPLE 8
/* Leaves a block's list may hold; beyond, the block walks the tree (the
 * list's own walk and packing would cost more than its points save:
 * DECISIONS "Distance fields, round 5"). */
#define EP_DISTFIELD_LIST 768

typedef struct ep_distfield {
    int n;             /* cells per side; (n+1)^3 points */
    double origin[3];  /* lower corner of the box */
    double h;          /* grid spacing = side / n */
    float *value;      /* owned: [(n+1)^3] (allocated by compute) */
    double d_boundary; /* smallest value on the box's faces (001 eq. 3.14) */
    int sign;          /* EP_DISTFIELD_* */
    double offset;     /* subtracted from every distance (thin objects) */
    double band;       /* 0: exact everywhere; else the --band width */
    /* what the last computation did */
    double tests;      /* point-triangle distance tests */
    long exact;        /* points computed exactly (all of them without a band) */
    long nnear;        /* points within a cell diagonal, signed one by one */
    long regions;      /* far regions signed by one winding number each */
    long mixed;        /* of these, regions signed point by point */
} ep_distfield;

/* Points of the grid: (n+1)^3. */
long ep_distfield_points(int n);

/* The grid for the triangles tri [nt][3] of x [nv][3] (finite) at n cells
 * a side: the cube of side expand times the bounding box's longest side,
 * centred on it, or, with box non-NULL, the cube of lower corner box[0..2]
 * and side box[3].  No allocation.
 *   Returns    0; EP_EINPUT for no triangles, a triangle's vertex not
 *              finite, an object of zero size, n < 1 or above
 *              EP_DISTFIELD_MAX_RES, expand < 1 or a box side <= 0. */
int ep_distfield_setup(ep_distfield *g, const ep_mesh *m, int n, double expand,
                       const double *box);

/* Bytes a computation at n cells over nt triangles and nv vertices takes:
 * the field, one bit a point, the hierarchy and the sign's data, so that a
 * run too large is refused before allocating. */
double ep_distfield_bytes(int n, int nt, int nv);

/* The values: exact distances (with a band, within it), signed by method
 * sign (EP_DISTFIELD_*), minus offset; then d_boundary.
 *   Inputs     the triangles of setup; band 0 (exact everywhere) or W > 0;
 *              threads (OpenMP; < 1: omp_get_max_threads()).
 *   Outputs    g->value (allocated; ep_distfield_free), the statistics.
 *   Workspace  a bit a point, the wide hierarchy (closest4.h, O(nt)),
 *              the winding tree (O(nt)), the region fill's queue
 *              (breadth-first: a wavefront, O(n^2) ids).
 *   Cost       O((n+1)^3 log nt) typical; a far region signed point by
 *              point costs a winding number a point.
 *   Returns    0; EP_EINPUT when sign is PSEUDONORMAL and the surface is
 *              not a closed oriented manifold (the defect named);
 *              EP_ECOMPUTE (memory). */
int ep_distfield_compute(ep_distfield *g, const ep_mesh *m, int sign, double offset,
                         double band, int threads);

/* Bound on |value - exact| of the points the band approximation
 * interpolated: half the diagonal of a coarse cell (a 1-Lipschitz
 * function interpolated trilinearly), plus float32 rounding. */
double ep_distfield_band_error(const ep_distfield *g);

/* The sign method that applies: PSEUDONORMAL when the triangles form a
 * closed, consistently oriented manifold (ep_pseudonormal_check), else
 * WINDING; *why gets the first defect ("" for a manifold).  Cost
 * O(nt log nt).  0 or EP_ECOMPUTE. */
int ep_distfield_detect_sign(const ep_mesh *m, int *sign, char *why, size_t cap);

/* The distance from p to the triangles of m by brute force: the reference
 * of the checks (rtcheck, the tests).  Cost O(nf). */
double ep_distfield_brute(const ep_mesh *m, const double p[3]);

void ep_distfield_free(ep_distfield *g);

#ifdef __cplusplus
}
#endif

#endif
