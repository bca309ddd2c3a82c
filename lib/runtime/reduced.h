/*
 * reduced.h — reduced-coordinate dynamics on polycoef's cubic polynomials
 * (MATH.md §5; 001 §2.7, §2.9): implicit Newmark with Rayleigh damping, a
 * static solve, and the reduced strain energy for energy checks.
 *
 * The basis is mass-orthonormal, so the reduced mass is I; the damping is
 * C(q) = alpha I + beta K(q).  Forces and tangents come from the runtime
 * stiffness polynomial (ep_cubic_tangent_eval) or from a cubature
 * (ep_cubature_eval, MATH.md §14: any law, cost |E| r^2): the step is the
 * same, only the evaluation differs.
 */
#ifndef EP_REDUCED_H
#define EP_REDUCED_H

#include "cubature.h"
#include "cubic.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ep_reduced {
    const ep_cubic_tangent *t; /* the polynomials, or NULL ... */
    int r, iterations;      /* Newton iterations per step at most (MATH.md §5: 1) */
    double tol;             /* stop iterating when |dq| <= tol |q| (default 0: never) */
    double dt, alpha, beta; /* time step; Rayleigh mass and stiffness factors */
    double *q, *qd, *qdd;   /* [r] state: position, velocity, acceleration */
    double *work;           /* R, K, A, residual, previous q, tangent workspace */
    const ep_cubature *cub; /* ... the cubature (borrowed) */
} ep_reduced;

/* Set up for t at rest at q = 0.  0, EP_EUSAGE (dt <= 0, negative damping)
 * or EP_ECOMPUTE. */
int ep_reduced_init(ep_reduced *n, const ep_cubic_tangent *t, double dt, double alpha, double beta);
void ep_reduced_free(ep_reduced *n);

/* The same on a cubature c (borrowed): R and K from ep_cubature_eval.
 * 0, EP_EUSAGE, EP_ECOMPUTE. */
int ep_reduced_init_cubature(ep_reduced *n, const ep_cubature *c, double dt, double alpha, double beta);

/* Start from q0 (NULL: 0) with velocity qd0 (NULL: 0) under the reduced
 * external force f (NULL: 0): the acceleration satisfies the equation of
 * motion, qdd = f - C qd - R(q).  Cost one tangent evaluation. */
void ep_reduced_start(ep_reduced *n, const double *q0, const double *qd0, const double *f);

/* One step under f[r] (NULL: 0): up to n->iterations Newton iterations on
 * (alpha1 I + alpha4 C + K) dq = -residual, Cholesky (LU when K is
 * indefinite), then the Newmark velocity and acceleration updates.  Cost
 * per iteration one tangent evaluation, O(r^4 / 4), and r^3 / 3.
 * 0 or EP_ECOMPUTE (singular system). */
int ep_reduced_step(ep_reduced *n, const double *f);

/* Static equilibrium R(q) = f by Newton from the q given, until the update is
 * below tol |q| (at most maxit iterations).  *iterations receives the
 * iterations used.  Allocates O(r^2 + ep_cubic_tangent_work(r)).  Cost per
 * iteration one tangent evaluation and r^3 / 3.  0 or EP_ECOMPUTE (not
 * converged, singular tangent, memory). */
int ep_reduced_static(const ep_cubic_tangent *t, const double *f, double *q, int maxit, double tol, int *iterations);

/* The same on a cubature (allocates O(r^2 + ep_cubature_work(c))). */
int ep_reduced_static_cubature(const ep_cubature *c, const double *f, double *q, int maxit, double tol,
                               int *iterations);

/* Reduced strain energy V(q) with R = dV/dq: for the homogeneous parts R1,
 * R2, R3 of degrees 1, 2, 3, V = q.R1/2 + q.R2/3 + q.R3/4 (Euler).  The parts
 * come from R(q), R(-q), R(2q).  Workspace w[npairs + ntriples + 4r].
 * Cost three force evaluations (ep_cubic_force). */
double ep_reduced_energy(const ep_cubic *c, const double *q, double *w);

#ifdef __cplusplus
}
#endif

#endif
