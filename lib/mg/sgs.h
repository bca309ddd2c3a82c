/*
 * sgs.h — block Gauss-Seidel sweeps on a compact copy of a symmetric
 * 3 x 3 block operator: what a V-cycle's smoothing reads (MATH.md §16,
 * 002 §2.4.4; vcycle.h).
 *
 * A sweep is bound by the bytes it reads (issue 44: one dragon V-cycle read
 * 3 x the operators' bytes at 2.4-3.3 x the time to read them once).  The
 * copy keeps what a sweep needs and no more:
 *   - the strict lower triangle only (block row J holds K_JI for I < J,
 *     columns ascending): K is symmetric, so row J's blocks also give the
 *     upper triangle's K_IJ = K_JI^T, pushed to rows I as a sweep passes J
 *     (both directions read each block once);
 *   - the values as float (9 of them a block), 32-bit column indices: 40
 *     bytes a block where ep_bsr holds 76 for each of both triangles, and
 *     the inverse diagonal blocks as the 6 floats of a symmetric 3 x 3.
 * So a sweep reads about a quarter of what one over the ep_bsr reads.  And
 * the copy may number the vertices in its own order (ep_sgs_order:
 * Cuthill-McKee), so that the x a row gathers and the rows it pushes to
 * were touched a few hundred rows before, in cache: in the dragon's mesh
 * order the median distance was 7,220 of 35,034 rows and a sweep missed the
 * 2 MB L2 on most blocks.  The sums are carried in double.  The sweeps are exact block Gauss-Seidel on
 * the symmetric matrix K~ = L~ + D~ + L~^T, L~ the float lower blocks and
 * D~ the inverse of the float inverse diagonal: the forward sweep and the
 * backward one are each other's adjoints, so a V-cycle built on them stays
 * symmetric positive definite (a CG preconditioner: vcycle.h).  K~ differs
 * from K by float rounding (relative 6e-8 a value); a caller who needs K's
 * own answer corrects with K's residual in double (ep_vcycle_solve).
 */
#ifndef EP_SGS_H
#define EP_SGS_H

#include "bsr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The stored values' type (float: see above; double for a comparison). */
#ifndef EP_SGS_REAL
#define EP_SGS_REAL float
#endif
typedef EP_SGS_REAL ep_sgs_real;

typedef struct ep_sgs {
    int n;        /* block rows (vertices) */
    int *rowptr;  /* [n + 1] */
    int *col;     /* [rowptr[n]] columns I < J of block row J, ascending */
    ep_sgs_real *val;   /* [rowptr[n]][9] K_JI row-major */
    ep_sgs_real *dinv;  /* [n][6] inverse diagonal blocks: (0,0) (0,1) (0,2) (1,1) (1,2) (2,2) */
    int *perm;    /* [n] row J of S is K's block row perm[J] (NULL: the same numbering) */
    int *src;     /* [rowptr[n]] the index in K of each block (for ep_sgs_values) */
} ep_sgs;

/* An order of K's vertices for the sweeps: Cuthill-McKee on the graph of
 * K's blocks (each connected part from a pseudo-peripheral vertex,
 * neighbours by ascending degree), so a row's blocks lie within the
 * breadth-first front of the rows before it.  Not reversed: the reverse
 * order (what a factorization wants) sweeps the same fronts, but on the
 * thin gmsh beam of 2 TetGen levels the cycle's CG took 85 iterations
 * against 39 (double values; 37 with float; the dragon 29 either way).  perm[new] = old, n values.
 *   Workspace  3 n ints (allocated)
 *   Cost       O(nnzb)
 *   Returns    0 or EP_ECOMPUTE (memory). */
int ep_sgs_order(const ep_bsr *K, int *perm);

/* S from K (square, symmetric, every diagonal block in the pattern, columns
 * ascending: as ep_bsr_from_cholmod and ep_bsr_galerkin make it) and the
 * inverses of its diagonal blocks Dinv[n][9] (symmetric), in the order perm
 * (perm[new] = old, copied; NULL: K's).  The pattern is the lower triangle
 * in that order; the values are those of ep_sgs_values.
 *   Cost       O(nnzb log row length)
 *   Returns    0 or EP_ECOMPUTE (memory). */
int ep_sgs_build(ep_sgs *S, const ep_bsr *K, const double *Dinv, const int *perm);
/* The values again after K's values (not its pattern) changed.  Cost
 * O(nnzb). */
void ep_sgs_values(ep_sgs *S, const ep_bsr *K, const double *Dinv);
void ep_sgs_free(ep_sgs *S);

/* A forward sweep, row by row ascending, x_J = D~_J^-1 (b_J - sum_{I<J}
 * K~_JI x_I(new) - sum_{I>J} K~_JI x_I(old)), that also leaves the
 * residual r = b - K~ x of the new x.  Row J's residual after the sweep is
 * -sum_{I>J} K~_JI d_I, d the change of x (its own and lower parts cancel):
 * row I pushes K~_IJ^T d_I to the rows J < I of its blocks, in cache.
 *   zero       x = 0 on entry (a coarse level; a preconditioner's cycle):
 *              the upper part is zero and the sweep reads S once; else a
 *              first pass over S gathers sum_{I>J} K~_JI x_I into r
 *   Workspace  r holds the upper part during the sweep
 *   Cost       36 flops a block (both triangles); reads S once (twice
 *              unless zero) and x, b, r. */
void ep_sgs_forward(const ep_sgs *S, const double *b, double *x, double *r, int zero);

/* A backward sweep, rows descending: x_J = D~_J^-1 (b_J - sum_{I>J} K~_JI
 * x_I(new) - sum_{I<J} K~_JI x_I(old)), any x.  Row J gathers its lower
 * blocks from the old x, then pushes K~_JI^T x_J(new) to the rows I < J
 * still to come.
 *   Workspace  acc: 3 n doubles (overwritten)
 *   Cost       36 flops a block; reads S once. */
void ep_sgs_backward(const ep_sgs *S, const double *b, double *x, double *acc);

/* Bytes of S's arrays: what one pass reads. */
double ep_sgs_bytes(const ep_sgs *S);

#ifdef __cplusplus
}
#endif

#endif
