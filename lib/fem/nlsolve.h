/*
 * nlsolve.h — full-space nonlinear statics and dynamics of an elastic body
 * (MATH.md §13; 001 §2.1.9-2.1.10, §2.13): static Newton with load steps
 * and a backtracking line search, and implicit Newmark (beta 1/4, gamma
 * 1/2, MATH.md §5 in full space) with Rayleigh damping D = alpha M +
 * beta K(0).
 *
 * Both are Newton's method on a potential, so one routine serves both:
 *   Phi(u) = E(u) - f_ext^T u + 1/2 d^T H d + b^T d,   d = u - u_n,
 *   r = grad Phi = f(u) - f_ext + H d + b,   A = K(u) + H;
 * statics: H = 0, b = 0, f_ext scaled by the load step; Newmark:
 * H = a1 M + a4 D, b = -M (a2 v + a3 a) + D (a5 v + a6 a) (MATH.md §5's
 * a1..a6).  A step solves A delta = -r with CHOLMOD: one symbolic analysis
 * (ep_chol_analyze) for the run, a numeric factorization per iteration
 * (under the linear law, whose tangent is K(0) at every u, one for as long
 * as H stays: one factorization for a linear Newmark or static run).
 * Then a backtracking line search (Armijo, halving) on Phi.
 *
 * Indefinite tangents: K(u) of StVK loses definiteness under large
 * compression.  When the factorization meets a non-positive pivot, the
 * iteration retries with A + tau diag(K(0)), tau = 1e-3, 1e-2, .. 1e3
 * (a Levenberg-Marquardt shift scaled per unknown): the shifted matrix is
 * positive definite, so delta stays a descent direction of Phi and the
 * line search keeps the iteration going; the shift is recorded in the
 * Newton history (0: none).  A matrix that no shift makes positive
 * definite fails the step.
 *
 * Convergence: |r| <= tol max(|f_ext|, |f(u)|, |H d|, |b|) over the
 * unknowns (2-norms; H d and b apart, since they cancel where the body
 * turns and round-off acts on each).  Energies of a state: kinetic 1/2 v^T M v, elastic
 * E(u), the external work and the damping's dissipation so far (trapezoidal
 * sums, the exact balance of the trapezoidal rule for a linear body), and
 * their total T + E - W_ext + W_damp, constant up to the Newton tolerance.
 */
#ifndef EP_NLSOLVE_H
#define EP_NLSOLVE_H

#include <cholmod.h>

#include "elastic.h"
#include "loads.h"

typedef struct ep_nlsolve_opts {
    double tol;        /* relative residual (default 1e-8) */
    int max_iter;      /* Newton iterations per step (default 30) */
    long load_steps;   /* statics: equal load increments (default 10) */
    double dt;         /* dynamics: time step (> 0); 0: statics */
    long steps;        /* dynamics: time steps */
    double alpha, beta; /* Rayleigh damping */
} ep_nlsolve_opts;

/* One Newton iteration: its step, number (1-based), the residual before
 * it, the line search's step length and the shift (0: none). */
typedef struct ep_nlsolve_iter {
    long step;
    int iter;
    double residual, length, shift;
} ep_nlsolve_iter;

enum { EP_NLSOLVE_KINETIC, EP_NLSOLVE_ELASTIC, EP_NLSOLVE_WORK, EP_NLSOLVE_DAMPING, EP_NLSOLVE_TOTAL,
       EP_NLSOLVE_NENERGY };

/* A state handed to the report callback after each step (step 0: the
 * initial state): full-length u, v, f_ext [3nv] (borrowed for the call). */
typedef struct ep_nlsolve_state {
    long step;
    double t;          /* time, or the load factor of a static step */
    const double *u, *v, *f_ext;
    double energy[EP_NLSOLVE_NENERGY];
    int iterations;    /* Newton iterations of this step */
    double residual;   /* final relative residual */
} ep_nlsolve_state;

/* The callback: 0 to go on, else a status that stops the run. */
typedef int (*ep_nlsolve_report)(void *ctx, const ep_nlsolve_state *s);

typedef struct ep_nlsolve {
    ep_elastic *b;              /* borrowed */
    const ep_loads *L;          /* borrowed, bound (ep_loads_bind) */
    ep_nlsolve_opts o;
    cholmod_sparse *A;          /* the iteration matrix on b->K's pattern */
    cholmod_factor *F;          /* its symbolic analysis, refactored per iteration */
    ep_nlsolve_iter *hist;      /* the Newton history (allocated) */
    long nhist;
    double t_factor, t_solve;   /* seconds in numeric factorizations and solves */
    long nfactor, nshift;       /* factorizations, and those shifted */
    int held;                   /* F holds K(0) + held_cM M + held_cK K(0) unshifted (linear law) */
    double held_cM, held_cK;
    double fl, lnz;             /* flops and nonzeros of one factorization (the symbolic analysis) */
    double last_residual;       /* relative residual of the last iteration */
    long last_step;             /* the last step finished (failed_step - 1) */
} ep_nlsolve;

/* Set up for body b and bound loads L; the symbolic analysis of K(0).
 * 0 or EP_ECOMPUTE. */
int ep_nlsolve_init(ep_nlsolve *s, ep_elastic *b, const ep_loads *L, const ep_nlsolve_opts *o);
void ep_nlsolve_free(ep_nlsolve *s);

/* Statics from u [3nv] (in: the start, zero at fixed vertices; out: the
 * solution under the full loads), load step k solving f(u) = (k/n) f_ext.
 * Dynamics (o.dt > 0) from u, v [3nv] (out: the last state), the initial
 * acceleration from M a = f_ext(0) - f(u) - D v.
 * report after every step (and for the initial state).  Cost per Newton
 * iteration: one ep_elastic_eval with the tangent, a numeric
 * factorization (more when shifted; none under the linear law while H is
 * that of the last one), a solve, O(nnz) products; line search
 * trials one evaluation each.  Returns 0; EP_ECOMPUTE when a step's Newton
 * does not converge (message: step, iterations, residual; the states before
 * it were reported) or a matrix stays indefinite; the callback's status. */
int ep_nlsolve_run(ep_nlsolve *s, double *u, double *v, ep_nlsolve_report report, void *ctx);

#endif
