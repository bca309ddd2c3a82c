/*
 * hexenergy.h — the St. Venant-Kirchhoff energy of a trilinear hex as a
 * polynomial in its corners' displacements u_a (numerics layer,
 * doc/MODULES.md), for polycoef's reduced polynomials (cubic.c) and
 * moddesc's Hessian products at u = 0 (stvk.c).
 *
 * With g_a = grad N_a the displacement gradient is D = sum_a u_a g_a^T and
 * D^T D = sum_ab W_ab g_a g_b^T, W_ab = u_a . u_b: the quadratic part of
 * the Green strain E = sym(D) + D^T D / 2 depends on u only through the 36
 * dot products W_ab (a <= b, in the order (0,0), (0,1), .., (0,7), (1,1),
 * ..: ep_cubic_pair(8, a, b)).  So
 * the energy integral of mu |E|^2 + lambda/2 tr(E)^2 is
 *   u^T K u + 2 u^T V W + W^T D W,
 * K [24][24] (half the stiffness matrix), V [24][36], D [36][36], with
 * u's entry 3a + i the displacement of corner a along axis i.  W_ab = c_a +
 * c_b gives sum_ab W_ab g_a g_b^T = 0 (the hats sum to one, so the g_a sum
 * to zero): D has an 8-dimensional null space and rank 28, D = G^T G with
 * G [28][36].  The Gauss points of the rule decide what is exact on a
 * parallelepiped: 2 x 2 x 2 integrates K and V (degree 2 and 3 per
 * coordinate), 3 x 3 x 3 also D (degree 4).
 */
#ifndef EP_HEXENERGY_H
#define EP_HEXENERGY_H

#include "material.h"
#include "mesh.h"

enum { EP_HEXENERGY_DOFS = 24, EP_HEXENERGY_PAIRS = 36, EP_HEXENERGY_RANK = 28 };

/* One hex's tensors, and the key of the box they were made for: boxes of
 * one size (edges rounded to 42 bits: 2e-13, relative), material, part and
 * rule share them, those of the box of the rounded edges, so a voxel mesh
 * computes them once and every box gets the same whatever the order. */
typedef struct ep_hexenergy {
    double key[7]; /* box edges h[3], lambda, mu, part, rule; rule 0: none kept */
    long made;     /* tensors computed so far: a caller's own derived data is stale when it moves */
    double K[EP_HEXENERGY_DOFS * EP_HEXENERGY_DOFS];
    double V[EP_HEXENERGY_DOFS * EP_HEXENERGY_PAIRS];
    double G[EP_HEXENERGY_RANK * EP_HEXENERGY_PAIRS]; /* only when rule >= 3 */
} ep_hexenergy;

/* Nothing kept (the next ep_hexenergy_of computes). */
void ep_hexenergy_init(ep_hexenergy *t);

/* The tensors of hex e of m (material mat) by the Gauss rule of n points per
 * coordinate (hex.h); part 0 the whole energy, 1 its lambda part, 2 its mu
 * part.  G is computed when n >= 3 (the quartic exact).  Kept ones are
 * reused when e is a box of the same key.  Returns 0, EP_EINPUT (a hex
 * whose det J is not positive) or EP_ECOMPUTE (the eigenvalues).  Cost:
 * 7 n^3 rows of 60 products (about 6e4 n^3 flops), plus a 36 x 36
 * eigendecomposition for G; nothing for a kept box. */
int ep_hexenergy_of(ep_hexenergy *t, const ep_mesh *m, const ep_material *mat, int e, int part, int n);

#endif
