/*
 * cubature.h — reduced internal forces by cubature (MATH.md §14; An, Kim &
 * James 2008, "Optimizing Cubature for Efficient Integration of Subspace
 * Deformations"): for a basis U (r vectors, [r][3nv]) and a law of law.h,
 * the exact reduced force is a sum over every element,
 *   R(q) = U^T f(U q) = sum_e c_e(q),  c_e(q) = U_e^T f_e(U_e q),
 * and a cubature keeps a few elements E with weights w_e >= 0:
 *   R(q) ~ sum_{e in E} w_e U_e^T f_e(U_e q),
 *   K(q) ~ sum_{e in E} w_e U_e^T K_e(U_e q) U_e,
 * where U_e [12][r] holds U's rows at the element's corners.  The cost
 * grows with |E| r^2, not r^4 as polycoef's polynomials (cubic.h), and any
 * law works.  Linear tetrahedra (one integration point, MATH.md §1), whose
 * displacement gradient is linear in q: with B_e = G_e U_e [9][r] (G_e the
 * tet's 9 x 12 gradient operator), D_e = B_e q, U_e^T f_e = V B_e^T vec P(D_e)
 * and U_e^T K_e U_e = V B_e^T C(D_e) B_e (C = dP/dD, law.h): 9 rows an
 * element instead of 12, a quarter fewer flops and bytes.
 *
 * This module evaluates a cubature (ep_cubature_eval, what a runtime calls
 * each Newton iteration, as ep_cubic_tangent_eval) and computes the
 * per-element contributions the weights are fitted to
 * (ep_cubature_contributions); nnls.h fits the weights.
 */
#ifndef EP_CUBATURE_H
#define EP_CUBATURE_H

#include "law.h"
#include "material.h"
#include "mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ep_cubature {
    int r, n;              /* basis size, elements kept */
    ep_law_kind law;
    int *elem;             /* [n] element ids (0-based) */
    double *w;             /* [n] weights */
    double *geo;           /* [n][16]: w_e V_e, lambda, mu, 1 spare, then g[4][3] */
    double *B;             /* [n][9][r] B_e = G_e U_e: row 3i + j the gradient du_i/dX_j of every basis vector */
} ep_cubature;

/* Set up the cubature of elements elem[n] with weights w[n] on the tet
 * mesh m with material mat (per element Lame parameters), law, basis
 * U [r][3nv].
 *   Cost       36 n r (the gradient rows B_e), memory 8 n (9 r + 17)
 *   Returns    0; EP_EINPUT for an element id out of range, a negative or
 *              non-finite weight, a mesh without tets, a degenerate tet;
 *              EP_ECOMPUTE (memory).  Free with ep_cubature_free in every
 *              case. */
int ep_cubature_prepare(ep_cubature *c, const ep_mesh *m, const ep_material *mat, ep_law_kind law, const double *U,
                        int r, const int *elem, const double *w, int n);
void ep_cubature_free(ep_cubature *c);

/* Doubles of workspace ep_cubature_eval needs: 9 n (r + 2) + 9. */
long ep_cubature_work(const ep_cubature *c);

/* R(q) [r] (may be NULL) and K(q) [r][r] row-major (may be NULL) from
 * the cubature, as ep_cubic_tangent_eval returns them from the
 * polynomials.  Per element one law evaluation (with its tangent when K is
 * asked) and Z_e = w_e V_e C_e B_e; K is one dgemm over the stacked
 * elements, K = sum_e B_e^T Z_e.
 *   Workspace  w[ep_cubature_work(c)]
 *   Cost       2 * 9 n r (D) + 2 * 9 n r (R), plus n (2 * 81 r + law
 *              tangent) and 2 * 9 n r^2 (K); reads the 72 n r bytes of B
 *              once (twice with K) */
void ep_cubature_eval(const ep_cubature *c, const double *q, double *R, double *K, double *w);

/* Flops of one ep_cubature_eval with K (for a rate beside dgemm's). */
double ep_cubature_flops(const ep_cubature *c);

/* Bytes a runtime holds for the cubature: its element data and gradient
 * rows B (the counterpart of ep_cubic_runtime_bytes). */
long ep_cubature_runtime_bytes(const ep_cubature *c);

/* The training data of MATH.md §14: for the elements elems[ne] (NULL: all
 * of m's, ne ignored) and poses Q [T][r], the contributions
 * c_{e,t} = U_e^T f_e(U_e q_t) into C [ne][T][r] (NULL: none) and their
 * sum over the listed elements into G [T][r] (NULL: none; with every
 * element, the exact U^T f(U q_t)).
 *   Cost       ne (36 r + T (4 * 9 r + ~150)) flops; OpenMP over elements, each
 *              thread summing its own block of G (the same result on a
 *              given thread count); memory 3 nv r doubles (U by vertex)
 *              and T r per thread
 *   Returns    0, EP_EINPUT (no tets, degenerate tet), EP_ECOMPUTE */
int ep_cubature_contributions(const ep_mesh *m, const ep_material *mat, ep_law_kind law, const double *U, int r,
                              const int *elems, int ne, const double *Q, int T, double *C, double *G);

/* Training poses by sampled modal amplitudes (the default of
 * cubature(1); An et al. §5 scale by stiffness): q_i = z_i sqrt(k_min / k_i)
 * with z_i standard normal and k_i = (U^T K U)_ii the linear stiffness of
 * basis vector i, then the pose scaled so that its largest vertex
 * displacement |U q|_v is rho * amplitude * diameter of the mesh, rho
 * uniform in (0, 1].  Q [T][r] out.
 *   Cost       one pass of ep_cubature_contributions with r poses
 *              (the k_i), T products U^T q
 *   Returns    0, EP_EINPUT (a basis without stiffness), EP_ECOMPUTE */
int ep_cubature_sample(const ep_mesh *m, const ep_material *mat, const double *U, int r, int T, double amplitude,
                       unsigned long seed, double *Q);

/* Poses from full states X [T][3nv] projected on a mass-orthonormal
 * basis, q_t = U^T M x_t (M consistent, or lumped when lumped != 0).
 *   Cost       one mass assembly, T (nnz(M) + 6 nv r) flops
 *   Returns    0, EP_ECOMPUTE */
int ep_cubature_project(const ep_mesh *m, const ep_material *mat, int lumped, const double *U, int r,
                        const double *X, int T, double *Q);

/* How ep_cubature_fit chooses. */
typedef struct ep_cubature_fit_opts {
    int greedy;          /* 1: An et al.'s greedy; 0: Lawson-Hanson (nnls.h) */
    double tau;          /* stop at a relative training residual <= tau */
    int max_elements;    /* most elements kept */
    int sample;          /* greedy: columns drawn per iteration */
    long pool;           /* candidate elements (0: all that fit in pool_bytes) */
    double pool_bytes;   /* memory for the candidates' columns */
    unsigned long seed;  /* the pool's and the greedy's draws */
} ep_cubature_fit_opts;

/* A fitted cubature and its errors. */
typedef struct ep_cubature_fit {
    int n, pool;                  /* elements kept; candidates looked at */
    int *elem;                    /* [n] (allocated) */
    double *w;                    /* [n] (allocated) */
    double training_error;        /* |b - A w| / |b| over the training rows */
    double heldout_error;         /* rms over held-out poses of |R~ - R| / |R| */
    double heldout_max;           /* their largest */
    double t_forces, t_fit;       /* seconds: the contributions; the NNLS */
    long entered, removed;        /* NNLS columns that entered and left */
} ep_cubature_fit;

/* Fit weights (MATH.md §14): the poses Q [T][r] are training poses but for
 * the last H, which are held out.  The exact forces g_t come from every
 * element; the candidates' contributions, each pose's rows divided by
 * |g_t| (per-pose normalized), form the NNLS system A w = b over the
 * training rows; the held-out errors are measured with the weights found.
 *   Cost       ne T (contributions of all elements) + pool T again, then
 *              the NNLS (nnls.h); memory 8 pool T r bytes
 *   Returns    0; EP_EINPUT (a pose with zero force, no training pose);
 *              EP_ECOMPUTE (tau not reached with max_elements: the message
 *              says how close; memory).  Free with ep_cubature_fit_free. */
int ep_cubature_fit_weights(ep_cubature_fit *fit, const ep_mesh *m, const ep_material *mat, ep_law_kind law,
                            const double *U, int r, const double *Q, int T, int H, const ep_cubature_fit_opts *o);
void ep_cubature_fit_free(ep_cubature_fit *fit);

#ifdef __cplusplus
}
#endif

#endif
