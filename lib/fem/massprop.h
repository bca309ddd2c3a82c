/*
 * massprop.h — the mass properties a simulator loads beside a model: the
 * rigid-body data of a free-flying model (001 §2.15: mass, centre of mass,
 * inertia tensor, for the rigid motion beside the reduced deformation) and
 * the reduced mass U^T M U and gravity U^T M g of a basis U.
 *
 * Exact for linear tets and trilinear hexes: the position is interpolated
 * by the same shape functions as the displacement (x = sum_a N_a x_a), so
 * the integrals of rho, rho x and rho x x^T are those of the consistent
 * mass matrix's scalar part m_ab = integral of rho N_a N_b:
 * mass = sum_ab m_ab, first moment sum_ab m_ab x_b, second moment
 * S = sum_ab m_ab x_a x_b^T.
 */
#ifndef EP_MASSPROP_H
#define EP_MASSPROP_H

#include <cholmod.h>

#include "material.h"
#include "mesh.h"

typedef struct ep_massprop {
    double mass;           /* integral of rho */
    double center[3];      /* centre of mass */
    double inertia[3][3];  /* about the centre: integral of rho (|r|^2 I - r r^T), r = x - center */
} ep_massprop;

/* The rigid-body data of the tets or hexes of m with density rho of mat.
 *   Cost     O(ne) element mass matrices, shared among the threads; the
 *            same bits on any thread count (sums by blocks of elements,
 *            added in block order)
 *   Workspace 13 doubles per 512 elements
 *   Returns  0; EP_EINPUT when rho is not given (NaN) or m has no elements;
 *            EP_ECOMPUTE when the workspace cannot be had. */
int ep_massprop_rigid(ep_massprop *r, const ep_mesh *m, const ep_material *mat);

/* Reduced mass Mr = U^T M U [r][r] and reduced gravity G [r][3],
 * G[i][a] = U_i^T M e_a for the unit acceleration e_a along axis a (any
 * gravity g is then G g): U [r][3nv] row-major (basis vector i at
 * U + 3nv i), M the 3nv x 3nv mass (both triangles stored).
 *   Workspace  3nv doubles (allocated internally)
 *   Cost       r products with M and r (r + 3) dot products of 3nv
 *   Returns    0 or EP_ECOMPUTE. */
int ep_massprop_reduced(const cholmod_sparse *M, const double *U, int r, double *Mr, double *G);

#endif
