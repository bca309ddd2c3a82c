/*
 * law.h — hyperelastic material laws at one integration point: the energy
 * density W, the first Piola-Kirchhoff stress P = dW/dF and its derivative
 * dP/dF, as functions of the displacement gradient D = grad u (F = I + D).
 * fullsim's elements (elastic.h) call a law through this one entry, so a
 * new law (the corotated and neo-Hookean laws of the cubature issue, MATH.md
 * §14, §16) is one more case here and one more name, nothing else.
 *
 *   stvk    St. Venant-Kirchhoff (MATH.md §2): E = (F^T F - I)/2,
 *           S = lambda tr(E) I + 2 mu E, P = F S,
 *           W = mu tr(E^2) + lambda/2 tr(E)^2.
 *   linear  its small-strain limit (MATH.md §1): e = (D + D^T)/2,
 *           P = lambda tr(e) I + 2 mu e, W = mu tr(e^2) + lambda/2 tr(e)^2;
 *           dP/dF is constant, so K(u) = K of fem.h.
 *   corotated  corotated linear elasticity (MATH.md §14, §16; McAdams et
 *           al. 2011): F = R S with R a rotation (det R = +1 even when F is
 *           inverted: the polar decomposition with the sign of det F put on
 *           S's smallest singular value), W = mu |F - R|^2 +
 *           lambda/2 tr(S - I)^2, P = 2 mu (F - R) + lambda tr(S - I) R;
 *           dP holds dR = R [w]x, w = (tr S I - S)^-1 vee(R^T dF - dF^T R).
 *           Defined while no two singular values of S sum to 0 (an element
 *           inverted flat).  Its linearization at F = I is the linear law.
 *   neohookean  the stable neo-Hookean of Smith, de Goes & Kim (2018,
 *           "Stable Neo-Hookean Flesh Simulation", eq. 14):
 *           W = mu'/2 (I_C - 3) + lambda'/2 (J - a)^2 - mu'/2 log(I_C + 1)
 *           (less its value at rest), I_C = |F|^2, J = det F,
 *           a = 1 + 3 mu' / (4 lambda'), mu' = 4 mu / 3,
 *           lambda' = lambda + 5 mu / 6 (so its linearization at F = I is
 *           the linear law with lambda, mu);
 *           P = mu' (1 - 1/(I_C + 1)) F + lambda' (J - a) cof F.
 *           There is no log J: energy, force and tangent are finite for
 *           any F, an inverted (J < 0) or flat (J = 0) element included,
 *           and the force pushes an inverted element back (the inversion
 *           handling the cubature issue asks for).
 */
#ifndef EP_LAW_H
#define EP_LAW_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { EP_LAW_STVK, EP_LAW_LINEAR, EP_LAW_COROTATED, EP_LAW_NEOHOOKEAN } ep_law_kind;

/* The laws' names joined by '|', as a choice option spells them. */
#define EP_LAW_CHOICES "stvk|linear|corotated|neohookean"

/* The names as options and files spell them ("stvk", "linear", "corotated",
 * "neohookean") and back:
 * ep_law_from_name returns 0, or EP_EINPUT (no message) for another name. */
const char *ep_law_name(ep_law_kind kind);
int ep_law_from_name(const char *name, ep_law_kind *kind);

/* The law at D (row i, column j: du_i/dX_j) with Lame parameters lambda, mu.
 *   Outputs  P[3][3]; C[9][9] (may be NULL): C[3i+j][3k+l] = dP_ij/dD_kl.
 *   Returns  W.
 *   Cost     about 100 flops, 1000 more with C (corotated: a 3 x 3
 *            Jacobi eigensolve more, about 600 flops). */
double ep_law_eval(ep_law_kind kind, double lambda, double mu, const double D[3][3], double P[3][3], double C[9][9]);

#ifdef __cplusplus
}
#endif

#endif
