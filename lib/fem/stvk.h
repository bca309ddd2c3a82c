/*
 * stvk.h — St. Venant-Kirchhoff linear tetrahedra and trilinear hexahedra
 * (MATH.md §2; 001 §2.5): the internal force f(u), its derivative along a
 * field (the tangent stiffness times v) and its second derivative contracted
 * with two displacement fields, (H:a) b = d2f[a, b] at u = 0, which modal
 * derivatives need.
 *
 * At each integration point: D = grad u = sum_a u_a g_a^T, F = I + D,
 * E = (F^T F - I)/2, S = lambda tr(E) I + 2 mu E, P = F S, f_a += w P g_a.
 * A tet has one point (w = V, constant gradients); a hex the Gauss rules of
 * hex.h: 3 x 3 x 3 points for the force and the tangent (degree <= 4 per
 * coordinate on a parallelepiped: exact), 2 x 2 x 2 for the Hessian products
 * at u = 0 (degree <= 3: exact).
 */
#ifndef EP_STVK_H
#define EP_STVK_H

#include "material.h"
#include "mesh.h"

/* Element geometry computed once: volume and shape gradients of every tet
 * (a hex's rules are formed where they are used: 27 points of gradients
 * would take 5 KB per hex). */
typedef struct ep_stvk {
    const ep_mesh *m;
    const ep_material *mat;
    const int *el;      /* the mesh's elements (borrowed), k corners each */
    int k, ne;
    double *vol;        /* [ne] tets only */
    double (*g)[4][3];  /* [ne] tets only: shape gradients */
} ep_stvk;

int ep_stvk_init(ep_stvk *s, const ep_mesh *m, const ep_material *mat);
void ep_stvk_free(ep_stvk *s);

/* Integration points of element e: their number, weights w (det J times
 * the Gauss weight; a tet's volume) and corner gradients g; a hex by the
 * rule of n points per coordinate (hex.h), w [n^3] and g [n^3][8][3]
 * caller-owned.  0 points for a hex whose det J is not positive (the mesh
 * checks exclude it).  Cost O(1) a tet (a copy), O(n^3) a hex. */
int ep_stvk_points(const ep_stvk *s, int e, int n, double *w, double (*g)[8][3]);

/* f(u): in u[3nv]; out f[3nv] (overwritten).  OpenMP over elements with one
 * accumulator per thread.  Cost O(ne) (a hex: 27 points).  0 or EP_ECOMPUTE. */
int ep_stvk_force(const ep_stvk *s, const double *u, double *f);

/* The tangent stiffness K(u) = df/du applied to v: out = df(u)[v] (in u, v
 * [3nv]; out [3nv], overwritten), dP = dF S + F dS with dF = grad v,
 * dS = lambda tr(dE) I + 2 mu dE, dE = sym(F^T dF).  Cost O(ne).
 * 0 or EP_ECOMPUTE. */
int ep_stvk_tangent(const ep_stvk *s, const double *u, const double *v, double *out);

/* d2f[a, b] at u = 0 for pairs of fields: A holds k fields [k][3nv]; pair p
 * is (pairs[2p], pairs[2p+1]); out[np][3nv] (overwritten).  Per element the
 * k gradients are formed once, then each pair costs O(1):
 * d2P = D_a S1(D_b) + D_b S1(D_a) + lambda tr(E') I + 2 mu E',
 * S1(D) = lambda tr(D) I + mu (D + D^T), E' = (D_a^T D_b + D_b^T D_a)/2
 * (tets); a hex contracts its energy's third derivative T3 [24]^3
 * (hexenergy.h; once per size and material for voxels) with its k basis
 * rows in two dgemms, 2 24^3 k + 2 24^2 k^2 flops.
 * Cost O(ne (k + np)) for tets, O(ne (k + k^2)) for hexes; memory one
 * accumulator of (np + 3) 3nv doubles and 3 (np + 3) per thread, and for
 * tets the fields by vertex, about (k + 7) 3nv doubles.
 * 0 or EP_ECOMPUTE. */
int ep_stvk_hessian_pairs(const ep_stvk *s, const double *A, int k, const int *pairs, int np, double *out);

#endif
