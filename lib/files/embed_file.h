/*
 * embed_file.h — files of kind "embedding" (elastoprep(5)): a render mesh
 * bound to the simulation mesh the file carries in /mesh.  The weight matrix
 * W (render vertices x simulation vertices) is stored in compressed sparse
 * rows, so any sparse library takes it as it is (scipy:
 * csr_matrix((weights, columns, rowptr))); the render mesh (/render) and,
 * given a reduced basis U, the render basis Ubar = W U (001 §2.12) go with
 * it, so a renderer needs no simulation mesh.  Also Vega FEM's text
 * interpolation file (.interp).  Written by embed, read by rtcheck.
 */
#ifndef EP_EMBED_FILE_H
#define EP_EMBED_FILE_H

#include <stdio.h>

#include "embed.h"
#include "h5.h"
#include "mesh.h"

/* Write the binding b of the render mesh render into f: /render/vertices
 * [nr][3], /render/triangles [nf][3] (when it has triangles),
 * /embedding/rowptr int64 [nr+1], /embedding/columns int32 [nr k],
 * /embedding/weights [nr k], /embedding/element int32 [nr],
 * /embedding/distance [nr], with the attributes element_vertices (k),
 * outside, max_distance and limit on /embedding; and, when Ubar is not NULL,
 * /embedding/Ubar [r][3nr].  0 or EP_EIO. */
int ep_embed_file_write(ep_h5 *f, const ep_embed *b, const ep_mesh *render, double limit, const double *Ubar, int r);

/* Read the embedding of f, bound to a simulation mesh of nv vertices, into b
 * (a CSR whose rows all have k = element_vertices entries, 4 or 8; element
 * ids below ne), the render vertices into *p [nr][3] (allocated; caller
 * frees) and, when the file has one and Ubar is not NULL, the render basis
 * into *Ubar [*r][3nr] (allocated; caller frees; NULL and 0 when absent).
 * Everything is checked: shapes, rowptr, column and element ranges, finite
 * values.  0, EP_EINPUT naming the dataset, EP_ECOMPUTE. */
int ep_embed_file_read(ep_embed *b, double **p, double **Ubar, int *r, ep_h5 *f, int nv, int ne);

/* Write b as Vega FEM's interpolation text file: one line per render vertex,
 * its 0-based index then k pairs of a 0-based simulation vertex and its
 * weight (17 significant digits, so the weights read back exactly).  Write
 * errors show on out (ferror).  Cost O(nr k). */
void ep_embed_file_write_interp(FILE *out, const ep_embed *b);

#endif
