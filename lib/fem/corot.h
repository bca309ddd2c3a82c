/*
 * corot.h — corotated linear elements (MATH.md §16; 002 §2.3.3, §2.3.6):
 * the per-element data a corotated runtime reuses every step (volume, shape
 * gradients, the rest stiffness K_e and the consistent mass M_e), and the
 * per-step pieces built on it: the deformation gradient F, its rotation R
 * from the polar decomposition, the warped stiffness R K_e R^T and the
 * elastic force R K_e (R^T x - X).
 *
 * Tets and trilinear hexes alike: a tet's gradients are exact (constant);
 * a hex's are taken at its centre (xi = 0), where F is the element's mean
 * deformation gradient on a parallelepiped, and K_e, M_e are fem.h's
 * (2-point and 3-point Gauss rules).
 */
#ifndef EP_COROT_H
#define EP_COROT_H

#include "material.h"
#include "mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ep_corot {
    int ne, k;        /* elements; corners each (4 tets, 8 hexes) */
    int nv;
    const int *elem;  /* [ne][k] borrowed from the mesh */
    double *X;        /* [nv][3] rest positions (a copy) */
    double *vol;      /* [ne] */
    double *grad;     /* [ne][k][3] shape gradients (hexes: at the centre) */
    double *Ke;       /* [ne][3k][3k] rest stiffness, row-major, row 3a+i, column 3b+j */
    double *Me;       /* [ne][3k][3k] consistent mass (zeros when rho is not given) */
} ep_corot;

/* The element data of every tet or hex of m (mat: per element or
 * homogeneous; rho NaN: no mass).  Parallel over elements.
 *   Outputs    c (set up here; ep_corot_free in every case); c->elem
 *              borrows m's elements, so m outlives c
 *   Cost       O(ne) element matrices (tets 2 x 144 blocks, hexes about
 *              40k flops), memory 2 (3k)^2 + 3k + 1 doubles an element
 *   Returns    0; EP_EINPUT for a surface mesh or a degenerate element
 *              (named, 1-based); EP_ECOMPUTE (memory). */
int ep_corot_build(ep_corot *c, const ep_mesh *m, const ep_material *mat);
void ep_corot_free(ep_corot *c);

/* F = sum_a x_a g_a^T of element e at positions x[nv][3] (the rest
 * positions give I).  Cost 9k flops. */
void ep_corot_deformation(const ep_corot *c, int e, const double *x, double F[3][3]);

/* R, the rotation of the polar decomposition F = R S (002 §2.3.6): the
 * iteration A <- (A + A^-T) / 2 from A = F, until it moves less than 1e-12
 * (at most 30 steps; 002 stops after five, which leaves about 1e-3 of
 * error at a 90-degree rotation with 30 % stretch).  det F <= 0 (an
 * inverted element): the identity.  Cost about 60 flops a step. */
void ep_corot_rotation(const double F[3][3], double R[3][3]);

/* Warped stiffness Kw = R K_e R^T of element e ((3k)^2, row-major as K_e)
 * and, when f is not NULL, its elastic force f = R K_e (R^T x_e - X_e)
 * (3k values) at positions x[nv][3] (002 eqs. 2.18-2.19).  Cost about
 * 4 (3k)^2 3 flops. */
void ep_corot_warp(const ep_corot *c, int e, const double R[3][3], const double *x, double *Kw, double *f);

#ifdef __cplusplus
}
#endif

#endif
