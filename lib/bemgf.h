/*
 * bemgf.h — boundary Green's functions by the boundary element method
 * (MATH.md §6; 000 eq. 2.14): collocation rows of H u = G p assembled straight
 * into the mixed matrix A and the needed right-hand sides (the column swap:
 * H is never held beside G), one dense LU, all columns by blocked
 * back-substitution, then scaled back from the nondimensional system.
 */
#ifndef EP_BEMGF_H
#define EP_BEMGF_H

#include "gf_layout.h"
#include "mesh.h"

/* GF rows (3 per block column) per back-substitution: a multiple of 3, so
 * that a split run's parts start on block boundaries at whole columns
 * (part.h); large enough for BLAS-3 rates. */
#define EP_BEMGF_BLOCK 192

typedef struct ep_bemgf_opts {
    double E, nu;        /* homogeneous material; nu <= 0.5 */
    double max_memory;   /* bytes for A, the right-hand sides (and a copy of A with check) */
    int check;           /* diagnostics: rigid-rotation residual, sampled residuals, condition */
    int constant;        /* constant elements (L from ep_gf_layout_triangles) instead of linear */
} ep_bemgf_opts;

typedef struct ep_bemgf_stats {
    int n3;                          /* order of A: 3 x boundary vertices */
    double memory;                   /* the guard's estimate, bytes */
    double t_assemble, t_lu, t_solve; /* seconds */
    double lu_flops, solve_flops;    /* 2/3 N^3 and 2 N^2 (right-hand sides) */
    double rotation_residual;        /* max |H u_rot| / max |H||u_rot| (check) */
    double column_residual;          /* max |A xi - b| / |b| over sampled columns (check) */
    double rcond;                    /* reciprocal condition estimate of A (check) */
    double length;                   /* the length scale used */
} ep_bemgf_stats;

/* Solve the GF columns of layout L on the boundary surface of m (triangles,
 * outward, closed).  L's rows are the nodes (boundary vertices, or triangles
 * for constant elements) and row_fixed marks Lambda_u0.
 * out: *xi, the 3m x 3n file layout (row-major: GF column c is row c), owned
 * by the caller; stats.
 * Cost: assembly O(n nf) kernel integrals, LU 2/3 (3n)^3, solve 2 (3n)^2 3m.
 * 0; EP_ECOMPUTE (memory estimate over o->max_memory, singular A). */
int ep_bemgf_solve(const ep_mesh *m, const ep_gf_layout *L, const ep_bemgf_opts *o, double **xi,
                   ep_bemgf_stats *stats);

#endif
