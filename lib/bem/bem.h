/*
 * bem.h — boundary elements for linear elastostatics (MATH.md §6; 004 §5-7,
 * 000 App. A-B): Kelvin kernels, quadrature on flat triangles and the
 * collocation rows of H u = G p for linear (hat-function) elements.
 *
 * Everything here is nondimensional: shear modulus 1, lengths divided by the
 * model's length scale; bemgf.c scales the result back (000 §2.2.5).
 */
#ifndef EP_BEM_H
#define EP_BEM_H

#include "mesh.h"

/* Kelvin fundamental solutions at field point y for a unit point force at x,
 * G = 1 (MATH.md §6): u*[l][k] displacement k due to force l; p*[l][k]
 * traction k on a surface of outward normal n at y.  in: r = y - x (r != 0),
 * n, nu.  Cost O(1). */
void ep_bem_kelvin(const double r[3], const double n[3], double nu, double us[3][3], double ps[3][3]);

/* Integrals over triangle t of u* phi_a and p* phi_a for its three hat
 * functions a, with the collocation point x:
 *   g[a][l][k] = int u*_lk(x, y) phi_a(y) dy,  h[a][l][k] = int p*_lk phi_a dy.
 * singular: the index (0..2) of the corner equal to x, or -1.  Regular
 * triangles use a 7-point symmetric rule, subdivided 1-to-4 while x is within
 * two sub-triangle diameters (near-singular); singular ones a Duffy transform
 * at that corner with an 8 x 8 Gauss-Legendre rule, and h of the singular
 * corner itself is left 0 (the rigid-body trick supplies it).
 * Cost O(1) regular, O(depth) near-singular. */
void ep_bem_triangle(const double x[3], const double v[3][3], int singular, double nu, double g[3][3][3],
                     double h[3][3][3]);

/* Constant elements: g = int u* dy and h = int p* dy over triangle t for the
 * collocation point x; singular != 0 when x is the centroid of t (then g by
 * three Duffy sub-triangles, h left 0 for the rigid-body trick).
 * Cost as ep_bem_triangle (three times when singular). */
void ep_bem_triangle_constant(const double x[3], const double v[3][3], int singular, double nu, double g[3][3],
                              double h[3][3]);

/* The derivatives of the kernels with respect to the load point x (the
 * derivative kernels of the interior stress, 000 eq. 2.22; r = y - x):
 * dus[j][l][k] = d u*_lk / dx_j, dps[j][l][k] = d p*_lk / dx_j.  r != 0.
 * Cost O(1). */
void ep_bem_kelvin_grad(const double r[3], const double n[3], double nu, double dus[3][3][3], double dps[3][3][3]);

/* Subdivision depth of the derivative kernels' near-singular rule: a
 * triangle is split 1-to-4 while x is within four sub-triangle diameters,
 * at most this deep (sub-triangles 1/2^depth of the element). */
#define EP_BEM_GRAD_DEPTH 10

/* For an interior point x (off the triangle): g, h as ep_bem_triangle's
 * and their derivatives gd[a][j][l][k] = int d u*_lk / dx_j phi_a dy, hd
 * likewise of p*: Somigliana's identity and its gradient (the interior
 * stress, MATH.md §12).  Near-singular: the 7-point rule on sub-triangles
 * split while x is within four of their diameters (the 1/r^3 of d p*
 * needs more than ep_bem_triangle's two), up to EP_BEM_GRAD_DEPTH.
 * Cost O(1) far, O(depth) near the surface. */
void ep_bem_triangle_grad(const double x[3], const double v[3][3], double nu, double g[3][3][3], double h[3][3][3],
                          double gd[3][3][3][3], double hd[3][3][3][3]);

#endif
