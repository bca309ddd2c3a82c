/*
 * femgf.h — boundary Green's functions and condensed stiffness from a
 * tetrahedral FEM model (MATH.md §1; 000 §2.1.3, 002 §2.3).
 *
 * One supernodal CHOLMOD factorization of the stiffness with the support
 * eliminated; every requested GF column is then solved as one of a block of
 * right-hand sides (threads over blocks), turned into a GF row of the file
 * layout (displacements at free boundary vertices, tractions at fixed ones)
 * and handed to a sink that writes it (on a writer thread of its own), so
 * memory stays bounded by the factor plus two blocks per thread.
 *
 * All GFs come from one boundary relation S u_b = M_s p, M_s the surface load
 * matrix of the chosen traction model (consistent hat-function mass, or lumped
 * diag(a)): a free column solves K u = M_s e_(j,a) with the support held, and
 * traction rows solve M_s,ff p_f = (K u)_f - M_s,fp p_p.  Only then is the
 * capacitance algebra of MATH.md §7 exact on the result.
 */
#ifndef EP_FEMGF_H
#define EP_FEMGF_H

#include "gf_layout.h"
#include "material.h"
#include "mesh.h"

typedef struct ep_femgf_opts {
    int lumped;         /* traction model: 1 lumped diag(a), 0 consistent */
    int block;          /* right-hand sides per solve call (> 0) */
    double max_memory;  /* bytes the factor, blocks and condensed matrix may use */
    int condensed;      /* also compute S = K_bb - K_bi K_ii^-1 K_ib (3n x 3n) */
    double sink_memory; /* bytes the sink holds (compression buffers), for the guard */
    double *body;       /* out, or NULL: [3][3n] the body-force rows (MATH.md §12; 000 eqs.
                           2.9-2.11): row a = A^-1 B e_a, the response at the layout's rows
                           (displacements at free rows, tractions at fixed ones) to the
                           consistent body load of a unit acceleration e_a times the density,
                           B e_a = integral of Phi^T rho e_a dV (ep_material_rho per element) */
    int npoints;        /* interior points (MATH.md §12, 000 eq. 2.22), 0: none */
    const int *point_tet;       /* [npoints] the tet holding each (ep_cli_interior) */
    const double *point_weight; /* [npoints][4] its barycentric weights, in the tet's vertex order */
    double *interior;   /* out with points: [3m (+ 3 with body)][9 npoints] the interior rows of
                           every GF row (and body-force row): at point k, 9k + 0..2 the
                           displacement, 9k + 3..8 the stress xx yy zz yz xz xy */
} ep_femgf_opts;

typedef struct ep_femgf_stats {
    int ndof;           /* order of the factored stiffness */
    double lnz;         /* nonzeros of its factor */
    double memory;      /* the guard's estimate, bytes */
    double peak;        /* CHOLMOD's peak memory use, bytes */
    double t_assemble, t_factor, t_solve, t_write, t_condense; /* seconds; t_write (the writer thread's, in
                                                                 the sink) overlaps t_solve; t_factor
                                                                 includes the support border's solves */
    double solve_flops; /* forward + backward substitutions done (restricted solves, chol.h) */
    double t_solve_cpu; /* CPU seconds of the solving threads in the solves: a rate on a shared machine */
    double full_flops;  /* of full solves: 4 lnz per right-hand side */
    double body_flops, t_body; /* of the body-force rows (o->body; in solve_flops, t_solve too): their
                           lead pass and their share of the first block (femgf.c solve_block) */
    double t_body_cpu;  /* their CPU seconds (not in t_solve_cpu: that stays the GF columns') */
    double body_lead_flops, t_body_lead_cpu; /* of these, the body columns' forward pass alone, where
                           the first block's GF loads do not reach (a full forward's
                           excess over a GF column's restricted one) */
    int border_rank;    /* consistent traction: the support border's Woodbury rank (3 x its vertices), or 0 */
    int border_rows, border_supernodes; /* the rows its forward term F z is added to, and their supernodes */
} ep_femgf_stats;



/* Solve the GF columns of layout L.
 * in:  m (tets, boundary), mat, fixed[nv] (the support; checked to hold every
 *      rigid motion), L (rows: all boundary vertices; columns: unit loads at
 *      col_vertex, or the loads L->load_* such as the hat loads of
 *      hierarchical constraints, 000 eq. 3.83), o.
 * out: rows through sink; *condensed (when o->condensed) the row-major
 *      3n x 3n matrix S over the boundary DOFs (caller frees); stats.
 * Cost: one factorization, plus at most 4 lnz flops per column (less by the
 * supernodes a block's loads and the boundary rows do not reach); with a
 * support border (consistent traction) border_rank solves once, and per
 * column 2 border_rows border_rank flops more (the forward term), border_rank
 * per load value and border_rank^2 (its Woodbury coefficients).
 * With o->npoints (tets only), each GF row also gets the interior rows at
 * those points: the displacement by the shape functions of the tet holding
 * the point, the stress C : eps of that tet's constant strain (no extra
 * solve: the restricted solves also keep the tets' vertices).
 * With o->body, the three body-force rows ride in the first block as 3 more
 * right-hand sides of its solve (their forward pass alone where no GF load
 * of the block reaches, chol.h ep_chol_rforward_lead; their border terms
 * Q^T b from the border solves, no extra solve); they do not go to the sink.
 * Returns 0; EP_ECOMPUTE with the estimate when memory would exceed
 * o->max_memory, or when the stiffness is not positive definite; EP_EINPUT for
 * a support that leaves a rigid motion; the sink's status if it fails. */
int ep_femgf_solve(const ep_mesh *m, const ep_material *mat, const char *fixed, const ep_gf_layout *L,
                   const ep_femgf_opts *o, const ep_gf_sink *sink, double **condensed,
                   ep_femgf_stats *stats);

#endif
