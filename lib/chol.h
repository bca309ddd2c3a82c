/*
 * chol.h — CHOLMOD as every elastoprep tool uses it: one place for the
 * settings (no printing, supernodal) and for a factorization that stays fast
 * on a small machine.
 *
 * Why a module: CHOLMOD 3's supernodal numeric factorization opens OpenMP
 * teams of a fixed size (4) whatever the machine; on 2 cores they spin in
 * barriers and a factorization runs 10-20x slower.  Dynamic teams cap them at
 * the free cores, but OpenBLAS built for OpenMP deadlocks when its own teams
 * are cut short, so BLAS runs on one thread while dynamic teams are on.
 */
#ifndef EP_CHOL_H
#define EP_CHOL_H

#include <cholmod.h>

/* cholmod_start with errors returned, not printed, and supernodal factors
 * (BLAS-3 blocks for many right-hand sides). */
void ep_chol_start(cholmod_common *c);

/* cholmod_factorize(A, L) under the thread settings above; restores them.
 * Cost: CHOLMOD's numeric factorization, about the flops of its symbolic
 * analysis (c->fl); memory the factor (c->lnz entries) plus workspace.
 * Returns 0, or EP_ECOMPUTE with a message naming what (e.g. "the
 * stiffness"): out of memory, or not positive definite at pivot k of n. */
int ep_chol_factorize(cholmod_sparse *A, cholmod_factor *L, const char *what, cholmod_common *c);

/* One line for a failed CHOLMOD call: EP_ECOMPUTE. */
int ep_chol_fail(const char *what, const cholmod_common *c);

#endif
