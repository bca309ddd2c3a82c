/*
 * supernodal.h — the numeric supernodal Cholesky factorization on all the
 * machine's cores, into CHOLMOD's own factor (chol.h's ep_chol_factorize
 * calls it; every solve on the factor is CHOLMOD's or chol.h's as before).
 *
 * Why not cholmod_factorize: Debian 12's CHOLMOD (3.0.14) factors one
 * supernode after the other and takes its parallelism from BLAS alone, and
 * with OpenBLAS's teams on its many small calls it runs slower than on one
 * thread (DECISIONS "The numeric factorization on both cores").  Here the
 * subtrees of the supernodal elimination tree that do not depend on each
 * other are factored at the same time, each supernode by one thread with a
 * one-thread BLAS, and the top supernodes in blocks and tiles shared over
 * the threads: left-looking, as CHOLMOD's (the descendants' updates by dsyrk
 * and dgemm, then dpotrf and dtrsm), the updates applied in a fixed order
 * and the blocks fixed by the sizes, so the factor is the same bit for bit
 * on any number of threads (split runs' parts factor on their own machines
 * and must agree; on CPUs of one kind, as OpenBLAS picks its kernels by
 * CPU).  tests/bench/factor prints CHOLMOD's time beside this one's on one
 * thread and on all.
 */
#ifndef EP_SUPERNODAL_H
#define EP_SUPERNODAL_H

#include <cholmod.h>

/* Supernodes of EP_SUPERNODAL_BIG columns or more are factored in blocks of
 * EP_SUPERNODAL_TILE rows (their updates) and tiles of as many columns
 * (dpotrf, dtrsm, dsyrk, dgemm), shared over the threads. */
#define EP_SUPERNODAL_BIG 64
#define EP_SUPERNODAL_TILE 256

/* 1 when ep_supernodal_factor takes L and A: L supernodal with int
 * indices (symbolic from cholmod_analyze, or numeric supernodal real: then
 * refactored), A real, symmetric (stype != 0, either triangle) and of L's
 * order.  Otherwise 0: cholmod_factorize does it (ep_chol_factorize). */
int ep_supernodal_takes(const cholmod_factor *L, const cholmod_sparse *A);

/* L = chol(P A P^T) in L's supernodal pattern.
 *   Inputs     L and A as ep_supernodal_takes asks; c: the common L was
 *              analysed with.
 *   Outputs    L numeric (L->x allocated by CHOLMOD, is_ll); *minor and
 *              L->minor = n, or, not positive definite, the first column
 *              (0-based, permuted order) whose pivot failed, L's values
 *              then unusable.  CHOLMOD's minor to round-off: a clearly
 *              negative pivot is the same column, a near-zero one (a mesh
 *              not held) may be a neighbour.
 *   Workspace  per thread n ints and one update (the largest a thread
 *              meets: at most L->maxcsize values); the update lists, 12
 *              bytes per pair of a supernode and a descendant updating it;
 *              P A P^T (nnz(A) entries).
 *   Cost       the flops of the symbolic analysis (c->fl), on all threads
 *              where the elimination tree branches.
 * Returns 0 (*minor = n when positive definite), or EP_ECOMPUTE with the
 * message (out of memory; L's values are then unusable too). */
int ep_supernodal_factor(cholmod_factor *L, cholmod_sparse *A, int *minor, cholmod_common *c);

#endif
