/*
 * fem.h — linear tetrahedral finite elements (MATH.md §1): element stiffness
 * and mass, the surface load (hat-function mass) matrix, and their assembly
 * straight into CHOLMOD sparse matrices; meshes of trilinear hexahedra are
 * assembled the same way from the hex element matrices below (on hex.h's
 * reference element).
 *
 * Degrees of freedom are numbered through maps: map[v] is the index of the
 * first of vertex v's three DOFs (x, y, z consecutive), or -1 when the vertex
 * has no DOF in that matrix (fixed, or outside the block wanted).  One routine
 * assembles any block K[rows, cols] this way, so the reduced stiffness, its
 * coupling to the support and the mass all come from the same code.
 * Shared by femcondense, moddesc, polycoef and rtcheck.
 */
#ifndef EP_FEM_H
#define EP_FEM_H

#include <cholmod.h>

#include "hex.h"
#include "material.h"
#include "mesh.h"

typedef enum {
    EP_FEM_STIFFNESS,   /* K_ab = V (lambda g_a g_b^T + mu g_b g_a^T + mu (g_a.g_b) I) */
    EP_FEM_MASS,        /* consistent: M_ab = rho V / 20 (1 + delta_ab) I */
    EP_FEM_MASS_LUMPED  /* rho V / 4 I on the diagonal */
} ep_fem_kind;

/* Element matrix of a tet, 12 x 12 row-major (row 3a+i, column 3b+j).
 * in: x[4][3] corners, lambda, mu, rho.  out: A.  Cost O(1). */
void ep_fem_element(ep_fem_kind kind, const double x[4][3], double lambda, double mu, double rho,
                    double A[12][12]);

/* DOF map of the vertices with keep[v] != 0 that belong to some element, in
 * vertex order: map[v] = 3 * (rank of v) or -1.  Returns the number of DOFs
 * in *ndof.  map is allocated (caller frees).  Cost O(nv + ne).
 * 0 or EP_ECOMPUTE. */
int ep_fem_dofmap(const ep_mesh *m, const char *keep, int **map, int *ndof);

/* Assemble the block A[rows, cols] of the global matrix of kind over every
 * element, as a packed, sorted CHOLMOD sparse matrix (nrow x ncol).
 * in:  m (tets or hexes), mat (per element or homogeneous), rowmap/colmap (DOF maps,
 *      nrow/ncol DOFs), upper (1: rowmap == colmap and only the upper triangle
 *      is stored, stype = 1, ready for cholmod_analyze).
 * Parallel over column vertices, each gathering its incident elements: no
 * dense intermediate, no atomics, the same result for any thread count.
 * Cost O(ne) element evaluations x 4 (tets) or column blocks x 8 (hexes,
 * each hex's Gauss rule once when the columns reach an eighth of the
 * hexes or more), memory O(nnz), plus then the rules: 1.6 kB a hex for
 * the stiffness, 216 B for the mass.
 * Returns NULL on failure with the message recorded (EP_ECOMPUTE). */
cholmod_sparse *ep_fem_assemble(const ep_mesh *m, const ep_material *mat, ep_fem_kind kind,
                                const int *rowmap, int nrow, const int *colmap, int ncol, int upper,
                                cholmod_common *c);

/* Surface load matrix over the boundary vertices (index = position in
 * m->boundary), one scalar per vertex pair (the 3 axes are alike):
 * consistent M_jk = integral of phi_j phi_k (per triangle A/12 (1 + delta);
 * on a hex mesh the bilinear hats of its quads, ep_hex_quad_mass), or
 * lumped = diag(vertex_area).  nb x nb, unsymmetric storage.
 * Cost O(nf).  NULL on failure. */
cholmod_sparse *ep_fem_surface_mass(const ep_mesh *m, int lumped, cholmod_common *c);

/* Element matrix of a hex, 24 x 24 row-major (row 3a+i, column 3b+j):
 * stiffness by the EP_HEX_RULE_LINEAR rule, consistent mass by the
 * EP_HEX_RULE_STVK rule (exact on every trilinear hex), lumped mass as the
 * row sums of the consistent one (rho integral of N_a).  A hex whose det J
 * is not positive at every point gives zeros.  Cost about 20k flops. */
void ep_fem_hex_element(ep_fem_kind kind, const double x[8][3], double lambda, double mu, double rho, double A[24][24]);

/* The three columns 3a..3a+2 of that matrix, C[3b+i][j] = A[3b+i][3a+j]:
 * what an assembly gathering per vertex needs, at an eighth of the cost.
 * Cost about 3k flops (stiffness), 6k (mass). */
void ep_fem_hex_element_columns(ep_fem_kind kind, const double x[8][3], double lambda, double mu, double rho, int a,
                            double C[24][3]);

#endif
