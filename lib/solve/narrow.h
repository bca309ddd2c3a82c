/*
 * narrow.h — triangular solves of narrow blocks (4 or 8 right-hand sides)
 * on a supernodal Cholesky factor, by loops over L in place.
 *
 * dgemm and dtrsm copy ("pack") the block of L they are given before they
 * multiply; beside 4 to 8 columns the copy is a large part of the work,
 * where such a solve should be bound by reading L once.  Two uses:
 *
 *  - one supernode at a time (ep_narrow_forward, ep_narrow_backward):
 *    chol.c's restricted solves;
 *  - a whole solve of a block shared by threads: team.h.
 */
#ifndef EP_NARROW_H
#define EP_NARROW_H

/* 1 when these loops take k right-hand sides (4 or 8). */
int ep_narrow_takes(int k);

/* Supernode s's part of the forward solve on a block Z (row-major, rows zs
 * values apart, the k values at the start of each: zs = k, or k = 4 and zs
 * > 4: one half of a block of 8, or the leading columns of a wider block): Y1 = L11^-1 Y1 (Y1 = Z's rows of s's
 * columns), then Z's rows rows[0 .. nsrow - nscol) -= L21 Y1.  Ld: s's
 * values (column-major, leading dimension nsrow).  Cost (nscol^2 + 2
 * (nsrow - nscol) nscol) k flops. */
void ep_narrow_forward(int k, int zs, int nscol, int nsrow, const double *Ld, const int *rows, double *Y1, double *Z);

/* Its part of the backward solve: X1 -= L21^T Z's rows rows[..], then
 * X1 = L11^-T X1.  As ep_narrow_forward. */
void ep_narrow_backward(int k, int zs, int nscol, int nsrow, const double *Ld, const int *rows, double *X1,
                        double *Z);

#endif
