/*
 * bsr.h — sparse matrices of 3 x 3 blocks (one block a pair of vertices)
 * and scalar sparse matrices (a prolongation's weights, one per pair of
 * vertices, the same for the three axes): the operators of a multigrid
 * hierarchy (MATH.md §16; 002 §2.4-2.5) and what its runtime applies.
 *
 * Both are compressed sparse rows with column indices ascending within a
 * row.  A block is stored row-major: val[9 k + 3 a + b] is entry (3 I + a,
 * 3 J + b) of the scalar matrix when col[k] = J in block row I.  Blocks
 * halve the index traffic of a product beside scalar CSR (one int a
 * block, not nine) and keep a vertex's three unknowns together.
 */
#ifndef EP_BSR_H
#define EP_BSR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CHOLMOD's matrix and workspace by their struct tags: a caller of the
 * conversions below includes <cholmod.h>, and one who does not need them
 * needs no CHOLMOD header (the installed API names no CHOLMOD type). */
struct cholmod_sparse_struct;
struct cholmod_common_struct;

typedef struct ep_bsr {
    int n, m;     /* block rows, block columns */
    int *rowptr;  /* [n + 1] */
    int *col;     /* [rowptr[n]] */
    double *val;  /* [rowptr[n]][9] */
} ep_bsr;

typedef struct ep_csr {
    int n, m;     /* rows, columns */
    int *rowptr;  /* [n + 1] */
    int *col;     /* [rowptr[n]] */
    double *val;  /* [rowptr[n]] */
} ep_csr;

void ep_bsr_free(ep_bsr *A);
void ep_csr_free(ep_csr *P);

/* Allocate A with n x m blocks and nnzb blocks (rowptr zeroed, col and val
 * unset).  0 or EP_ECOMPUTE. */
int ep_bsr_alloc(ep_bsr *A, int n, int m, size_t nnzb);
int ep_csr_alloc(ep_csr *P, int n, int m, size_t nnz);

/* A from a CHOLMOD matrix K of 3n x 3n holding both triangles (unsymmetric
 * storage, stype 0, e.g. ep_fem_assemble with upper = 0): every 3 x 3 block
 * with a stored entry becomes a block, and every diagonal block is in the
 * pattern (zero for a vertex no element uses).  Cost O(nnz(K)).  0 or EP_ECOMPUTE. */
int ep_bsr_from_cholmod(ep_bsr *A, const struct cholmod_sparse_struct *K);

/* The scalar matrix of A as CHOLMOD's, 3n x 3m, upper (1: the upper
 * triangle only, stype 1, for cholmod_analyze; A square) or both.
 * Returns NULL with the message recorded. */
struct cholmod_sparse_struct *ep_bsr_to_cholmod(const ep_bsr *A, int upper, struct cholmod_common_struct *c);

/* y = A x (3m values in, 3n out).  Cost 18 nnzb flops; reads A once. */
void ep_bsr_mult(const ep_bsr *A, const double *x, double *y);

/* r = b - A x.  Cost 18 nnzb flops. */
void ep_bsr_residual(const ep_bsr *A, const double *b, const double *x, double *r);

/* Hold the vertices with fixed[v] != 0: their block rows and columns
 * become zero but for an identity diagonal block (present in A's pattern,
 * as every assembled diagonal is), so A u = b keeps u_v = b_v there and A
 * stays symmetric positive definite on the rest.  Cost O(nnzb). */
void ep_bsr_hold(ep_bsr *A, const char *fixed);

/* Give every block row whose diagonal block is zero (a coarse vertex whose
 * prolongation column meets only held fine vertices) an identity
 * diagonal: the coarse operator stays nonsingular and that vertex is
 * decoupled.  The diagonal must be in the pattern.  Returns the rows
 * changed.  Cost O(nnzb). */
int ep_bsr_fill_empty_diagonal(ep_bsr *A);

/* Index of block (i, j) in A, or -1 (binary search in row i).  Cost
 * O(log row length). */
long ep_bsr_find(const ep_bsr *A, int i, int j);

/* Q = P renumbered: Q's row i is P's row rowperm[i] (new to old; NULL:
 * the same), its columns colinv[j] for P's j (old to new; NULL: the same),
 * ascending.  Cost O(nnz log row length).  0 or EP_ECOMPUTE. */
int ep_csr_permute(ep_csr *Q, const ep_csr *P, const int *rowperm, const int *colinv);

/* Pt = P^T.  Cost O(nnz).  0 or EP_ECOMPUTE. */
int ep_csr_transpose(ep_csr *Pt, const ep_csr *P);

/* The Galerkin coarse operator C = P^T A P (MATH.md §16, 002 eq. 2.40):
 * scalar weights on 3 x 3 blocks, C_IJ = sum_ij P_iI A_ij P_jJ.  Pt is
 * P^T (ep_csr_transpose).  Gustavson's row-by-row product with a dense
 * accumulator over the coarse vertices: first the pattern (C allocated
 * here), then the values (ep_bsr_galerkin_values, also the in-place
 * update of a corotated step, 002 §2.5: the pattern stays).
 *   Workspace  m ints and 9 m doubles (allocated internally)
 *   Cost       O(sum over coarse rows I of the blocks of A P reached from
 *              I), 18 flops each
 *   Returns    0 or EP_ECOMPUTE. */
int ep_bsr_galerkin(ep_bsr *C, const ep_bsr *A, const ep_csr *P, const ep_csr *Pt);
/* The values of C = P^T A P into C's pattern (from ep_bsr_galerkin on the
 * same P and A's pattern).  work: 9 C->m doubles and C->m ints, zeroed on
 * entry and left zeroed.  Cost as above. */
void ep_bsr_galerkin_values(ep_bsr *C, const ep_bsr *A, const ep_csr *P, const ep_csr *Pt, double *work,
                            int *where);

/* xf += P xc on 3-vectors (xc: 3 P->m values, xf: 3 P->n).  Cost 6 nnz. */
void ep_csr_prolong(const ep_csr *P, const double *xc, double *xf);
/* xc = P^T xf on 3-vectors, through Pt = P^T (3 Pt->n values out).  Cost
 * 6 nnz. */
void ep_csr_restrict(const ep_csr *Pt, const double *xf, double *xc);

/* Bytes of A's and P's arrays (what a product reads once). */
double ep_bsr_bytes(const ep_bsr *A);
double ep_csr_bytes(const ep_csr *P);

#ifdef __cplusplus
}
#endif

#endif
