/*
 * mg_file.h — sparse matrices in HDF5 and files of kind "multigrid"
 * (elastoprep(5)): a hierarchy of tet meshes with its prolongations and
 * Galerkin coarse operators (mghier.h; MATH.md §16), written by mghier and
 * read by rtcheck and a simulator's V-cycle (vcycle.h).
 *
 * A sparse matrix is a group of compressed sparse rows, as the embedding's
 * W, so scipy takes it as it is (csr_matrix((values, columns, rowptr)) or
 * bsr_matrix((values, columns, rowptr)) for blocks): rowptr int64 [n + 1],
 * columns int32 [nnz], values float64 [nnz] or [nnz][3][3], attributes
 * rows and cols (in blocks for a block matrix) and block (1 or 3).
 */
#ifndef EP_MG_FILE_H
#define EP_MG_FILE_H

#include "bsr.h"
#include "h5.h"
#include "mghier.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Write the scalar CSR of n x m with rowptr[n + 1] (int), col, val as group
 * name.  0 or EP_EIO. */
int ep_mg_file_write_csr(ep_h5 *f, const char *name, const ep_csr *P);
/* The same for a block matrix (values [nnzb][3][3], block = 3). */
int ep_mg_file_write_bsr(ep_h5 *f, const char *name, const ep_bsr *A);

/* Read group name as a scalar CSR of n x m (n, m: expected, -1 = any) into
 * P (set up here; ep_csr_free in every case): rowptr starting at 0,
 * nondecreasing, ending at nnz; columns in [0, m), ascending in a row;
 * finite values.  0, EP_EINPUT naming the file and dataset, EP_ECOMPUTE. */
int ep_mg_file_read_csr(ep_csr *P, ep_h5 *f, const char *name, int n, int m);
/* The same for a block matrix (block 3). */
int ep_mg_file_read_bsr(ep_bsr *A, ep_h5 *f, const char *name, int n, int m);

/* Write h into f: /multigrid (attributes levels, nested), per level l
 * /multigrid/level<l>/vertices [nv][3], tets [ne][4] (l >= 1; level 0's
 * mesh is /mesh), K (block CSR), and for l < levels - 1 P (CSR, nv x
 * nv(l + 1)) with the attributes outside and max_distance.  0 or EP_EIO. */
int ep_mg_file_write(ep_h5 *f, const ep_mghier *h);

/* Read the hierarchy of f, whose level 0 has nv vertices (its /mesh), into
 * h (set up here; ep_mghier_free in every case): every level's vertices,
 * tets (indices in range), K (square, the level's size) and P (sizes of
 * the two levels), as the readers above check them.  1 <= levels <=
 * EP_MG_FILE_MAX_LEVELS.  0, EP_EINPUT, EP_ECOMPUTE. */
#define EP_MG_FILE_MAX_LEVELS 16
int ep_mg_file_read(ep_mghier *h, ep_h5 *f, int nv);

#ifdef __cplusplus
}
#endif

#endif
