/*
 * vcycle.h — the multigrid solver a simulator runs on a hierarchy of kind
 * multigrid (mghier.h, mg_file.h; MATH.md §16, 002 §2.4.4-2.4.6): V-cycles
 * with block Gauss-Seidel (forward before the coarse correction, backward
 * after: a symmetric cycle) or damped block Jacobi smoothing on 3 x 3
 * vertex blocks, restriction P^T, prolongation P, and a CHOLMOD factor on
 * the coarsest level; and, for a corotated step, the update of the coarse
 * operators after the finest one changed (in place: the patterns stay,
 * 002 §2.5).
 *
 * One thread: the cost of a cycle is a few passes over the operators, so
 * memory bandwidth bounds it (tests/bench/vcycle.sh prints the bound).
 * Gauss-Seidel sweeps read a compact copy of each level but the coarsest
 * (sgs.h: the lower triangle in float, in Cuthill-McKee order): a
 * quarter of the bytes of a sweep over K.  The sweeps then solve with a
 * float-rounded K~; a cycle from a nonzero x is x + B (b - K x) with K's
 * residual in double, so plain cycles converge to K's own answer.
 */
#ifndef EP_VCYCLE_H
#define EP_VCYCLE_H

#include "mghier.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { EP_VCYCLE_GAUSS_SEIDEL, EP_VCYCLE_JACOBI } ep_vcycle_smoother;

typedef struct ep_vcycle_opts {
    ep_vcycle_smoother smoother;
    int pre, post;  /* smoothing sweeps before and after the coarse correction (default 1, 1) */
    double omega;   /* Jacobi damping (default 0.6) */
    int coarse_post; /* sweeps after the correction on levels >= 1 (default 1; 0: those levels
                      * read their K once a cycle, in the residual-fused sweep: the dragon's
                      * reduction 0.827 a cycle against 0.836, the box beam's of 3 levels
                      * 0.743 against 0.696) */
} ep_vcycle_opts;

typedef struct ep_vcycle {
    ep_mghier *h;          /* borrowed: its operators are updated in place by ep_vcycle_update */
    ep_vcycle_opts o;
    ep_csr *Pt;            /* [nlevels - 1] transposes of the prolongations */
    double **Dinv;         /* [nlevels - 1][nv][9] inverse diagonal blocks */
    double **b, **x, **r;  /* per level work vectors, 3 nv each */
    double *pcg;           /* ep_vcycle_pcg's r, z, p, q: 4 x 3 nv(0) doubles */
    double *gwork;         /* Galerkin accumulator: 9 nv(1) doubles */
    int *gwhere;
    struct ep_vcycle_coarse *coarse; /* the coarsest level's CHOLMOD factor and workspace
                                      * (vcycle.c: CHOLMOD's types stay out of the API) */
    struct ep_sgs *sgs;    /* [nlevels - 1] Gauss-Seidel: the compact float copies the sweeps read,
                            * each in its own vertex order (sgs.h, not an installed header);
                            * NULL for Jacobi */
    ep_csr *Pc, *Ptc;      /* [nlevels - 1] Gauss-Seidel: P and P^T in those orders */
} ep_vcycle;

/* Set up the solver on h (borrowed; levels with operators): inverse
 * diagonal blocks, transposes, the coarsest factor.  o NULL: the defaults.
 *   Cost      O(nnz of the operators) and the coarsest factorization
 *   Returns   0; EP_ECOMPUTE (a singular diagonal block or coarsest
 *             operator, memory). */
int ep_vcycle_init(ep_vcycle *v, ep_mghier *h, const ep_vcycle_opts *o);
void ep_vcycle_free(ep_vcycle *v);

/* After the values (not the pattern) of level 0's operator changed: the
 * coarse operators by P^T K P into their patterns, the inverse diagonal
 * blocks, the coarsest factor (numeric refactorization).
 *   Cost      the Galerkin products (bsr.h) and the coarsest factor
 *   Returns   0 or EP_ECOMPUTE. */
int ep_vcycle_update(ep_vcycle *v);

/* One V-cycle on level 0: x improved in place toward K x = b (3 nv values
 * each).  From x = 0 (every element zero) the cycle proper; otherwise
 * x += B (b - K x), B the cycle from zero (the same in exact arithmetic).
 * Cost (Gauss-Seidel): per level pre + post passes over its compact copy
 * (one more for each forward sweep after the first), one over P and one
 * over P^T, the coarsest solve; from a nonzero x a product with K
 * (ep_vcycle_bytes). */
void ep_vcycle_cycle(ep_vcycle *v, const double *b, double *x);

/* The bytes of operator data one cycle from zero reads (vectors not
 * counted): *once, every operator the cycle uses read once (Gauss-Seidel:
 * each level's compact copy, P and P^T in its order, the coarsest factor;
 * Jacobi: K, P, P^T, the factor); *shape, as this cycle's passes read them
 * (a level's copy once a sweep, twice for a forward sweep from a nonzero x;
 * Jacobi: K once a sweep but the first and once for the residual; the
 * factor twice, L then L^T).  Cost O(nlevels) and the coarsest factor's
 * columns. */
void ep_vcycle_bytes(const ep_vcycle *v, double *once, double *shape);

/* V-cycles from x until |b - K x| <= tol |b| or maxcycles; res[i] (may be
 * NULL; maxcycles + 1 values): the relative residual before cycle i and
 * after the last.  Returns the cycles run. */
int ep_vcycle_solve(ep_vcycle *v, const double *b, double *x, double tol, int maxcycles, double *res);

/* Conjugate gradients on K x = b preconditioned by one V-cycle from zero
 * (a symmetric positive definite preconditioner when the sweeps before and
 * after match: pre == post == coarse_post, as the defaults), from x until
 * |b - K x| <= tol |b| or maxit iterations; res (may be NULL; maxit + 1
 * values): the relative residual before iteration i and after the last.
 * Where a few modes converge slowly under plain cycles (a thin limb's
 * bending the coarse space misses: the dragon's spines, 0.87 a cycle),
 * CG removes them in a few iterations (the dragon to 1e-8: 33 iterations
 * against 134 cycles).  Cost per iteration: a V-cycle, one product with
 * K, three dot products.  Returns the iterations run. */
int ep_vcycle_pcg(ep_vcycle *v, const double *b, double *x, double tol, int maxit, double *res);

#ifdef __cplusplus
}
#endif

#endif
