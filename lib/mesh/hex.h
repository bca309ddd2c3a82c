/*
 * hex.h — trilinear hexahedra (001 §2.5, Table 2.1): the reference element,
 * Gauss rules, shape gradients at integration points, the boxes that share
 * their tensors, and the local coordinates of a point.  It is to a hex what
 * tet.h is to a tet (data layer, doc/MODULES.md): the element matrices
 * built on it are fem.h's (ep_fem_hex_element), beside the tet's.
 *
 * Corner order (Vega's CUBIC and Gmsh's 8-node hexahedron alike): corner a
 * sits at the reference coordinates ep_hex_corner[a] in {-1, 1}^3,
 *
 *        3 ------- 2          0 (-,-,-)  1 (+,-,-)  2 (+,+,-)  3 (-,+,-)
 *       /|        /|          4 (-,-,+)  5 (+,-,+)  6 (+,+,+)  7 (-,+,+)
 *      7 ------- 6 |      y
 *      | 0 ------| 1      |__ x       N_a(xi) = (1 + s_a0 xi0)(1 + s_a1 xi1)(1 + s_a2 xi2) / 8
 *      |/        |/      /
 *      4 ------- 5      z
 *
 * Exactness.  Where the map from the reference cube is affine (a
 * parallelepiped; every voxel is a box), a shape gradient is a polynomial of
 * degree 0 in its own reference coordinate and at most 1 in the others, and
 * the Jacobian is constant.  Counting the degree in each coordinate of the
 * integrands: K and M (at most 2) and the Hessian products at u = 0 (at most
 * 3) are integrated exactly by the 2-point Gauss rule per coordinate; the
 * StVK force, tangent and energy (at most 4) by the 3-point rule.  The
 * consistent mass of any trilinear hex (det J of degree at most 2 per
 * coordinate) is exact with 3 points.  On other hexes the integrands are
 * rational and the same rules are the usual approximations.
 */
#ifndef EP_HEX_H
#define EP_HEX_H

#define EP_HEX_NODES 8
#define EP_HEX_RULE_LINEAR 2 /* Gauss points per coordinate: K, Hessian products at u = 0 */
#define EP_HEX_RULE_STVK 3   /* Gauss points per coordinate: StVK force, tangent, energy; mass */
#define EP_HEX_MAX_RULE 4    /* largest rule ep_hex_gauss knows */

/* Reference coordinates of the corners, and the six faces as corner lists in
 * counterclockwise order seen from outside (outward normal by the right-hand
 * rule). */
extern const signed char ep_hex_corner[8][3];
extern const int ep_hex_face[6][4];

/* Gauss-Legendre rule on [-1, 1] with n = 1..EP_HEX_MAX_RULE points:
 * x[n] nodes, w[n] weights (summing to 2). */
void ep_hex_gauss(int n, double *x, double *w);

/* Shape functions N[8] and their reference derivatives dN[8][3] at xi. */
void ep_hex_shape(const double xi[3], double N[8], double dN[8][3]);

/* Physical shape gradients g[8][3] at xi of the hex with corners x[8][3];
 * returns det J (g untouched when det J <= 0).  Cost O(1). */
double ep_hex_gradients(const double x[8][3], const double xi[3], double g[8][3]);

/* The n^3-point tensor Gauss rule on the hex: for point p (index
 * (i n + j) n + k over the coordinates' nodes) w[p] = weight * det J,
 * g[p] the physical shape gradients (g NULL: the weights alone, the same
 * bits, at about half the cost), N[p] (may be NULL) the shape functions.
 * Returns 0, or EP_EINPUT when det J <= 0 at a point (message: the point's
 * det J; the caller adds the element).  Cost O(n^3). */
int ep_hex_rule(const double x[8][3], int n, double *w, double (*g)[8][3], double (*N)[8]);

/* Smallest det J over the eight corners divided by the hex's volume / 8:
 * 1 for a parallelepiped, <= 0 for an inverted or degenerate hex.  Cost O(1). */
double ep_hex_quality(const double x[8][3]);

/* 1 when the hex is an axis-aligned box in the corner order above (every
 * coordinate within tol times the largest edge of its place), with its edge
 * lengths in h[3] (> 0); 0 otherwise.  Cost O(1). */
int ep_hex_is_box(const double x[8][3], double tol, double h[3]);

/* Boxes that share their energy tensors (hexenergy.h): 1 when x is a box
 * to 1e-10, with x replaced by the box of edges h rounded to 42 bits of
 * mantissa (2e-13, relative), centred at the origin, and those edges in h;
 * 0 otherwise (x untouched).  A voxel mesh's cells differ by the rounding
 * of their coordinates, about 2^-45 of an edge, well inside the step, so a
 * grid's boxes mostly share one key (doc/DECISIONS.md); and every box with
 * the same h gets the same x, so what is kept for h is the same whichever
 * box made it.  Cost O(1). */
int ep_hex_canonical_box(double x[8][3], double h[3]);

/* Mass matrix of the bilinear quad p[4][3] (corners in cyclic order, the
 * face of a hex): M[a][b] = integral of N_a N_b dA, by the 4 x 4 Gauss rule,
 * exact when the quad is planar (dA is then affine in the face's
 * coordinates); its row sums are the integrals of the hats.  Cost O(1). */
void ep_hex_quad_mass(const double p[4][3], double M[4][4]);

/* Reference coordinates xi of the point p (inside or outside the hex):
 * closed form for parallelepipeds, else Newton's method on x(xi) = p from the
 * centre.  Returns 0, or EP_ECOMPUTE when Newton does not converge (|x(xi) -
 * p| above 1e-12 of the hex's size after 50 steps).  Cost O(1). */
int ep_hex_local(const double x[8][3], const double p[3], double xi[3]);

#endif
