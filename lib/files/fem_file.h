/*
 * fem_file.h — files of kind "fem" (elastoprep(5)): the matrices and the
 * per-element data a simulator of the model loads instead of assembling
 * them (MATH.md §1, §16; 001 §2.15): K, M consistent and lumped as CSR,
 * the corotated element data (volumes, shape gradients, K_e, M_e), and,
 * when known, the reduced mass U^T M U and gravity U^T M e_a of a basis
 * and the rigid-body data of a free-flying model.  Written by femdata.
 */
#ifndef EP_FEM_FILE_H
#define EP_FEM_FILE_H

#include <cholmod.h>

#include "corot.h"
#include "h5.h"
#include "massprop.h"

/* A 3nv x 3nv matrix with both triangles stored (a symmetric CSC is its own
 * CSR) as the CSR group name (mg_file.h's layout, block 1).  0 or EP_EIO. */
int ep_fem_file_write_matrix(ep_h5 *f, const char *name, const cholmod_sparse *A);

/* /fem/elements: volume [ne], gradient [ne][k][3], K [ne][3k][3k],
 * M [ne][3k][3k], attribute element_vertices k.  0 or EP_EIO. */
int ep_fem_file_write_elements(ep_h5 *f, const ep_corot *c);

/* /reduced/M [r][r] and /reduced/gravity [r][3] (attribute mass:
 * "consistent" or "lumped").  0 or EP_EIO. */
int ep_fem_file_write_reduced(ep_h5 *f, const double *Mr, const double *G, int r, int lumped);

/* /rigid: mass (attribute), center [3], inertia [3][3].  0 or EP_EIO. */
int ep_fem_file_write_rigid(ep_h5 *f, const ep_massprop *p);

#endif
