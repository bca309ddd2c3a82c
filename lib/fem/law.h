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
 */
#ifndef EP_LAW_H
#define EP_LAW_H

typedef enum { EP_LAW_STVK, EP_LAW_LINEAR } ep_law_kind;

/* The names as options and files spell them ("stvk", "linear") and back:
 * ep_law_from_name returns 0, or EP_EINPUT (no message) for another name. */
const char *ep_law_name(ep_law_kind kind);
int ep_law_from_name(const char *name, ep_law_kind *kind);

/* The law at D (row i, column j: du_i/dX_j) with Lame parameters lambda, mu.
 *   Outputs  P[3][3]; C[9][9] (may be NULL): C[3i+j][3k+l] = dP_ij/dD_kl.
 *   Returns  W.
 *   Cost     about 100 flops, 1000 more with C. */
double ep_law_eval(ep_law_kind kind, double lambda, double mu, const double D[3][3], double P[3][3], double C[9][9]);

#endif
