/*
 * cubic.h — cubic polynomials of reduced St. Venant-Kirchhoff internal forces
 * (MATH.md §4; 001 §2.1.8, §2.6): for a basis U (r vectors), the reduced
 * force R(q) = U^T f(U q) is
 *   R(q) = sum_i q_i P[i] + sum_{i<=j} q_i q_j Q[ij] + sum_{i<=j<=k} q_i q_j q_k S[ijk]
 * with P[i], Q[ij], S[ijk] in R^r, pairs and triples in lexicographic order
 * (DESIGN.md, kind "cubic").
 *
 * Coefficients come from the reduced energy, a quartic in q.  Per element,
 * W = mu |E|^2 + (lambda/2) tr(E)^2 with E = sym(D) + D^T D / 2 and
 * D = sum_j q_j D_j: written as the squared norm of seven components
 * (sqrt(mu V) E in the six symmetric entries, sqrt(lambda V / 2) tr E),
 * which are b_j q_j + c_p w_p (w_p = q_j q_k, p = (j <= k)).  Summed over all
 * elements, the energy is q^T BB q + 2 q^T BC w + w^T CC w; BB, BC, CC are
 * accumulated together as R^T R of rows R = [b | c] by one dsyrk per chunk
 * of stacked elements, each thread summing its own chunks, and R = dE/dq
 * gives P, Q, S.
 *
 * Hexes (001 §2.5): the quadratic part of E depends on the corners'
 * displacements only through their 36 dot products u_a . u_b, on which a
 * hex's quartic energy has rank 28 (hexenergy.h).  So per hex the
 * element's tensors (27 Gauss points of the StVK force: exact on
 * parallelepipeds; computed once per size and material for boxes) give BB
 * and BC by small products and 28 rows of CC's dsyrk, against 63 strain
 * samples of the smallest exact rule for a box and 189 of the Gauss points.
 */
#ifndef EP_CUBIC_H
#define EP_CUBIC_H

#include "material.h"
#include "mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ep_cubic {
    int r;
    double *P;   /* [r][r] */
    double *Q;   /* [r(r+1)/2][r] */
    double *S;   /* [r(r+1)(r+2)/6][r] */
} ep_cubic;

/* Number of pairs i <= j and triples i <= j <= k of r indices. */
long ep_cubic_npairs(int r);
long ep_cubic_ntriples(int r);
/* Lexicographic index of pair (i, j), i <= j, and triple (i, j, k), i <= j <= k. */
long ep_cubic_pair(int r, int i, int j);
long ep_cubic_triple(int r, int i, int j, int k);

int ep_cubic_alloc(ep_cubic *c, int r);
void ep_cubic_free(ep_cubic *c);

/* Coefficients for basis U[r][3nv] on mesh m (tets or hexes) with material
 * mat.  out: total (all parts), and when lam/mu are non-NULL the
 * lambda-only and mu-only parts (001 §2.11; total = lam + mu).
 * Cost: tets 7 ne n (n + 1) flops in dsyrk, n = r + r(r+1)/2 (O(7 ne r^4
 * / 4)); hexes 28 ne np (np + 1) in dsyrk, np = r(r+1)/2, plus 2 ne (28 +
 * r) 36 np in dgemm and 192 np for the pairs (a box's tensors once, any
 * other hex's ~2e6 flops).  Memory per thread n^2 + 2048 n doubles (a chunk
 * of rows; hexes about 2.3 times that), plus the basis by vertex (3 nv r).
 * Results are equal to round-off across thread counts (each thread sums
 * its chunks).  0 or EP_ECOMPUTE. */
int ep_cubic_compute(ep_cubic *total, ep_cubic *lam, ep_cubic *mu, const ep_mesh *m, const ep_material *mat,
                     const double *U, int r);

/* The same for the elements e0 <= e < e1 alone: the coefficients are
 * sums over elements, so those of a split run's parts add up to the whole
 * (part.h; regrouped sums, equal to round-off).  Cost in proportion. */
int ep_cubic_compute_elements(ep_cubic *total, ep_cubic *lam, ep_cubic *mu, const ep_mesh *m,
                              const ep_material *mat, const double *U, int r, int e0, int e1);

/* Evaluation for a runtime: R(q) with the vectors of q_i q_j and q_i q_j q_k
 * (BLAS-2).  in: c, q[r]; out: R[r]; workspace w[npairs + ntriples].
 * Cost 2 r (r + npairs + ntriples) flops, O(r^4 / 6). */
void ep_cubic_force(const ep_cubic *c, const double *q, double *R, double *w);

/* Tangent stiffness Ktilde(q) = dR/dq [r][r] (row-major; symmetric), from
 * P, Q, S directly.  Cost O(r^4 / 2): for checks; a
 * runtime prepares the stiffness polynomial below. */
void ep_cubic_stiffness(const ep_cubic *c, const double *q, double *K);

/* What a runtime evaluates each step (001 §2.6.4): the stiffness polynomial
 * in symmetric storage.  With a constant coordinate q_r = 1 appended, the
 * reduced energy becomes a homogeneous quartic in r + 1 variables, whose
 * Hessian is
 *   H(q)_e = sum_p T[e][p] w_p,  w_p = (2 - d_kl) q_k q_l  for p = (k, l),
 * a symmetric matrix T over the ns = (r+1)(r+2)/2 pairs k <= l <= r times
 * the vector of pair products.  Pairs of the first r variables come first
 * (in the order of ep_cubic_pair), then (k, r) for k = 0..r.  Their entries
 * hold the three parts of Ktilde(q): the quadratic part from the quartic
 * energy (S), the linear part in the columns (k, r) (Q), the constant in
 * the column (r, r) (P).  The rows (i, r) give the force: by Euler's
 * identity for the homogeneous quartic, R_i = (sum_j Ktilde_ij q_j +
 * H_(i,r)) / 3.  So one evaluation of R and Ktilde is one pass over T.
 *
 * T decides the cost (0.99 MB at r = 30, more than a core's L2, read once
 * per evaluation).  It is kept as its upper triangle in panels of four rows,
 * np = ns rounded up to 4 (zero padded); a panel runs from its diagonal
 * block (stored whole) to column np - 1 in 4 x 4 blocks of four row pieces,
 * so one evaluation is one sequential stream.  With a helper thread
 * (ep_cubic_tangent_threads) the helper streams the panels from row split
 * on, the caller the rest: at r = 30 each half nearly fits its core's
 * 512 KB L2, which the whole does not. */
typedef struct ep_cubic_tangent {
    int r;
    int np;             /* ns rounded up to a multiple of 4 */
    int split;          /* first row of the helper's panels */
    double *T;          /* panels of T, 64-byte aligned */
    struct ep_worker *helper; /* NULL: one thread */
} ep_cubic_tangent;

/* Build the panels of T from the coefficients c (allocated in t; free with
 * ep_cubic_tangent_free in every case).  Cost O(r^4) once, memory
 * ep_cubic_tangent_bytes(r).  0 or EP_ECOMPUTE. */
int ep_cubic_tangent_prepare(ep_cubic_tangent *t, const ep_cubic *c);
void ep_cubic_tangent_free(ep_cubic_tangent *t);

/* Evaluate on 1 thread (the default) or 2 (a spinning helper thread, see
 * worker.h).  0 or EP_ECOMPUTE (no thread to be had). */
int ep_cubic_tangent_threads(ep_cubic_tangent *t, int threads);

/* Doubles of workspace ep_cubic_tangent_eval needs. */
long ep_cubic_tangent_work(int r);

/* Ktilde(q) [r][r] full row-major, and R(q) [r] when R is not NULL.
 * workspace w[ep_cubic_tangent_work(r)].  One pass over T: about 2 ns^2
 * flops, ep_cubic_tangent_bytes(r) bytes read. */
void ep_cubic_tangent_eval(const ep_cubic_tangent *t, const double *q, double *R, double *K, double *w);

/* Bytes of coefficients ep_cubic_tangent_eval reads. */
long ep_cubic_tangent_bytes(int r);

/* Bytes a runtime stores for the force polynomial plus the stiffness
 * polynomial in symmetric storage: 8 [r (r + np + nt) + r(r+1)/2 (1 + r + np)]
 * (001 Fig. 2.8: 98.0 KiB at r = 12). */
long ep_cubic_runtime_bytes(int r);

#ifdef __cplusplus
}
#endif

#endif
