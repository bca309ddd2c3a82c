/*
 * narrow.h — triangular solves of narrow blocks (4 or 8 right-hand sides)
 * on a supernodal Cholesky factor, by loops over L in place.
 *
 * dgemm and dtrsm copy ("pack") the block of L they are given before they
 * multiply; beside 4 to 8 columns the copy is a large part of the work,
 * where such a solve should be bound by reading L once.  Two uses:
 *
 *  - one supernode at a time (ep_narrow_forward, ep_narrow_backward):
 *    chol.c's restricted solves, each on one thread;
 *  - a whole solve shared by a team of threads (ep_narrow_solve): moddesc's
 *    eigen blocks.  Subtrees of the elimination tree below a few heavy
 *    supernodes go to the threads whole; the heavy ones (the top
 *    separators, half the factor's entries on the dragon) are shared by
 *    rows or columns.  One block of 8 read by two threads reads L half as
 *    often as two blocks of 4, one a thread.
 *
 * Every value is computed by the same operations in the same order
 * whatever the team's size: the results are the same bits on 1 or 2
 * threads.
 */
#ifndef EP_NARROW_H
#define EP_NARROW_H

#include "chol.h"

/* 1 when these loops take k right-hand sides (4 or 8). */
int ep_narrow_takes(int k);

/* Supernode s's part of the forward solve on a block Z (row-major, k values
 * a row): Y1 = L11^-1 Y1 (Y1 = Z's rows of s's columns), then Z's rows
 * rows[0 .. nsrow - nscol) -= L21 Y1.  Ld: s's values (column-major,
 * leading dimension nsrow).  Shared by the nth threads of a team (me = 0 ..
 * nth - 1, all calling, barriers inside); nth = 1 from any thread alone.
 * Cost (nscol^2 + 2 (nsrow - nscol) nscol) k flops. */
void ep_narrow_forward(int k, int nscol, int nsrow, const double *Ld, const int *rows, double *Y1, double *Z, int me,
                       int nth);

/* Its part of the backward solve: X1 -= L21^T Z's rows rows[..], then
 * X1 = L11^-T X1.  As ep_narrow_forward. */
void ep_narrow_backward(int k, int nscol, int nsrow, const double *Ld, const int *rows, double *X1, double *Z, int me,
                        int nth);

/* A plan of team solves on a full plan's factor (want NULL): the light
 * subtrees (entries under 1/16 of the factor's each, the heaviest first),
 * the heavy supernodes above them, and the light supernodes' row lists with
 * rows outside their subtree moved to the subtree's own rows after Z's n
 * (the forward pass adds them into Z once every subtree is done: no two
 * threads write one row). */
typedef struct ep_narrow_plan {
    const ep_chol_rplan *p; /* not owned */
    int nlight, nheavy;     /* subtrees, and supernodes above them */
    int nbuf;               /* rows after Z's n: the subtrees' outside rows */
    int *light;             /* [nlight] subtree roots (owns the block of all four) */
    int *first;             /* [nlight] first supernode of each subtree (a postorder range) */
    int *boff;              /* [nlight + 1] each subtree's first row after n */
    int *heavy;             /* [nheavy] the heavy supernodes, ascending */
    int *xrows;             /* [pi[nsuper]]: off-diagonal rows of light supernodes, outside ones moved */
    double flops;           /* of one solve of one column */
} ep_narrow_plan;

/* The plan of team solves on p (a plan of all rows).  Cost O(nnz of L's
 * row lists).  Returns 0, or EP_ECOMPUTE (out of memory). */
int ep_narrow_plan_init(ep_narrow_plan *t, const ep_chol_rplan *p);
void ep_narrow_plan_free(ep_narrow_plan *t);

/* Workspace of ep_narrow_solve for k right-hand sides: (n + nbuf) k
 * values (NULL with the message when memory cannot be had). */
double *ep_narrow_work(const ep_narrow_plan *t, int k);

/* X = A^-1 B (B and X n x k column-major, leading dimension n, may be the
 * same array; k = 4 or 8) on a team of `threads` (1 from inside a parallel
 * region with nesting spent).  The same bits whatever the team's size.
 * Cost 4 lnz k flops (returned). */
double ep_narrow_solve(const ep_narrow_plan *t, const double *B, double *X, int k, double *work, int threads);

#endif
