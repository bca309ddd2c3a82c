/*
 * warp.h — the corotated (stiffness-warped) linear step a simulator runs on
 * a multigrid hierarchy (MATH.md §16; 002 §2.3.6, Table 2.9): per element
 * the rotation R_e of its deformation gradient (polar decomposition), the
 * warped stiffness R_e K_e R_e^T assembled into level 0's operator in place
 * and the elastic force R_e K_e (R_e^T x - X); then ep_vcycle_update and
 * V-cycles solve K(x) dx = f_ext - f(x).
 */
#ifndef EP_WARP_H
#define EP_WARP_H

#include "bsr.h"
#include "corot.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ep_warp {
    const ep_corot *c;  /* borrowed: the element data */
    ep_bsr *K;          /* borrowed: level 0's operator (its pattern holds every element's blocks) */
    const char *fixed;  /* borrowed, [nv] or NULL: held vertices */
    long *slot;         /* [ne][k][k] index of block (a, b) of element e in K */
    double *R;          /* [ne][3][3] the rotations of the last assembly */
    double *Kw;         /* one element's warped matrix, (3k)^2 */
} ep_warp;

/* Set up the step: the block slots of every element in K.
 *   Returns   0; EP_EINPUT when K's pattern lacks a block of an element
 *             (another mesh); EP_ECOMPUTE. */
int ep_warp_init(ep_warp *w, const ep_corot *c, ep_bsr *K, const char *fixed);
void ep_warp_free(ep_warp *w);

/* At positions x[nv][3]: R_e of every element, K = sum R_e K_e R_e^T in
 * place (the fixed vertices held, ep_bsr_hold), f[3 nv] = the elastic
 * forces sum R_e K_e (R_e^T x_e - X_e), zero at fixed vertices.
 * Cost per element: F, the polar iteration, 4 (3k)^3 / k flops of the
 * warp, the scatter; one thread. */
void ep_warp_assemble(ep_warp *w, const double *x, double *f);

#ifdef __cplusplus
}
#endif

#endif
