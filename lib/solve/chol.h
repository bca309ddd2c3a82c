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
 * And that factorization runs on one core: ep_chol_factorize hands a
 * supernodal factor to supernodal.h's, which factors the elimination
 * tree's independent subtrees, and the top supernodes' tiles, on all cores
 * into the same CHOLMOD factor.
 */
#ifndef EP_CHOL_H
#define EP_CHOL_H

#include <cholmod.h>

/* cholmod_start with errors returned, not printed, and supernodal factors
 * (BLAS-3 blocks for many right-hand sides). */
void ep_chol_start(cholmod_common *c);

/* The symbolic factor of A (symmetric, one triangle stored) for
 * ep_chol_factorize: postordered, supernodal, its fill-reducing ordering
 * that of the graph of A's bs x bs blocks (bs: the unknowns of a vertex, 3;
 * 1, or bs not dividing n: the entries' graph), expanded to the unknowns.
 * Orderings as CHOLMOD's default strategy tries them: AMD, then METIS when
 * AMD's ordering leaves much fill (fl >= 500 lnz and lnz >= 5 nnz(A)), the
 * one of fewer nonzeros kept.  Why blocks: a third of the nodes and a ninth
 * of the edges; the 155k-tet dragon's ordering (tests/bench/factor prints
 * it) takes about half of cholmod_analyze's for the same flops.  With two
 * threads METIS runs beside AMD (on a cholmod_common of its own, with
 * ep_chol_start's settings, as every common here has), so the result does
 * not depend on the thread count; the factor kept is c's.  Sets c->fl and
 * c->lnz of the ordering kept, and adds the METIS side's peak memory to
 * c->memory_usage.  Workspace: the block graph and one symbolic factor more
 * while both are analyzed.  Cost: the orderings (AMD O(nnz) in practice,
 * METIS O(nnz log n)) and two symbolic analyses.  Returns NULL when no
 * ordering succeeded (c->status). */
cholmod_factor *ep_chol_analyze(cholmod_sparse *A, int bs, cholmod_common *c);

/* L = chol(P A P^T): a supernodal L by ep_supernodal_factor (all cores),
 * any other by cholmod_factorize under the thread settings above (restored).
 * Cost: about the flops of the symbolic analysis (c->fl); memory the
 * factor (c->lnz entries) plus workspace.
 * Returns 0, or EP_ECOMPUTE with a message naming what (e.g. "the
 * stiffness"): out of memory, or not positive definite at pivot k of n. */
int ep_chol_factorize(cholmod_sparse *A, cholmod_factor *L, const char *what, cholmod_common *c);

/* cholmod_factorize(A, L) under the thread settings above (restored):
 * CHOLMOD's own numeric factorization, for the factors supernodal.h does
 * not take and for comparisons (tests).  Returns cholmod_factorize's
 * result: 1 when done or not positive definite (c->status, L->minor say
 * which), 0 on failure (c->status). */
int ep_chol_factorize_cholmod(cholmod_sparse *A, cholmod_factor *L, cholmod_common *c);

/* One line for a failed CHOLMOD call: EP_ECOMPUTE. */
int ep_chol_fail(const char *what, const cholmod_common *c);

/* Restricted blocked solves on a supernodal factor (femgf's many right-hand
 * sides): the forward pass skips supernodes whose subtree of the elimination
 * tree holds no nonzero of the block's right-hand sides (their part of
 * L^-1 b is exactly zero), the backward pass those whose subtree holds no
 * wanted row (nothing wanted depends on them).  The block is kept row-major
 * (row i's k values contiguous), so the gathers and scatters between
 * supernodes read whole cache lines; per supernode one dtrsm and one dgemm,
 * or for blocks of 4 or 8 narrow.h's loops over L in place (BLAS would
 * copy L's block first, most of the work beside so few columns).
 * Wanted rows equal a full solve's to round-off (the skipped arithmetic is on
 * exact zeros or unread values). */
typedef struct ep_chol_rplan {
    const cholmod_factor *L; /* supernodal, not owned */
    int n, nsuper, maxrow;   /* order, supernodes, most off-diagonal rows of one */
    int *snode;              /* [n] supernode of each permuted row (owns the block of all five) */
    int *pos;                /* [n] permuted row of each unknown (A's row i is the factor's pos[i]) */
    int *parent;             /* [nsuper] parent supernode, or -1 */
    int *run_ptr;            /* [nsuper + 1] supernode s's off-diagonal rows, when they come in runs
                                of consecutive indices 16 long on average, are the runs of
                                run_len[run_ptr[s] .. run_ptr[s + 1]), updated in place (one dgemm
                                each); an empty range: through the workspace */
    int *run_len;            /* [run_ptr[nsuper]] (allocated apart) */
    int *want;               /* [nsuper] 1: subtree holds a wanted row */
} ep_chol_rplan;

/* Plan restricted solves on L (supernodal with int indices, as ep_chol_start
 * makes it, numerically factored or not: asserted):
 * want[i] (i in A's order, n) marks the rows a solve must produce; NULL:
 * all.  Cost O(n + nsuper + the off-diagonal rows of L's pattern).
 * Returns 0, or EP_ECOMPUTE (out of memory). */
int ep_chol_rplan_init(ep_chol_rplan *p, const cholmod_factor *L, const char *want);
void ep_chol_rplan_free(ep_chol_rplan *p);
/* Mark the ancestors of every marked supernode: mark[nsuper], 1 on entry
 * where a supernode's rows hold a load (or a wanted row), 1 on return where
 * its subtree does: the supernodes a forward (backward) solve visits.
 * Cost O(nsuper). */
void ep_chol_rplan_ancestors(const ep_chol_rplan *p, char *mark);

/* Workspace of one thread for blocks of up to k right-hand sides:
 * (n + maxrow) k + nsuper values. */
double *ep_chol_rsolve_work(const ep_chol_rplan *p, int k);

/* X = A^-1 B at the wanted rows (other rows unspecified), B and X n x k
 * column-major with leading dimension n (may be the same array).
 * Cost: at most 4 lnz k flops, less by the skipped supernodes; returns the
 * flops done.  Single-threaded BLAS when called from a parallel region. */
double ep_chol_rsolve(const ep_chol_rplan *p, const double *B, double *X, int k, double *work);

/* ep_chol_rsolve on vectors held in another layout (moddesc's full-length
 * derivatives: no gathered copy of 176 MB and no scatter back):
 * X = alpha A^-1 B, unknown i of A at row place[i] of B and X (NULL: row i),
 * columns ld apart.  Rows of X that are no unknown's are left as they are.
 * alpha = -1 is exact: the result equals ep_chol_rsolve's of -B bit for bit.
 * Cost as ep_chol_rsolve. */
double ep_chol_rsolve_rows(const ep_chol_rplan *p, const int *place, size_t ld, double alpha, const double *B,
                           double *X, int k, double *work);

/* Unknowns the transposes below move at a time: EP_CHOL_TILE rows of Z (k
 * values each: 16 KiB at femcondense's k = 64) stay in cache while B's
 * columns are read. */
#define EP_CHOL_TILE 32

/* ep_chol_rsolve_rows's two transposes, for unknowns i0 <= i < i1 (a
 * team shares them by ranges; ranges starting at multiples of
 * EP_CHOL_TILE move whole tiles): Z's rows pos[i] = alpha B's rows
 * place[i] (alpha = +-1), and X's rows place[i] = Z's rows pos[i].  Cost
 * (i1 - i0) k moves. */
void ep_chol_rgather(const ep_chol_rplan *p, const int *place, size_t ld, double alpha, const double *B, double *Z,
                     int k, int i0, int i1);
void ep_chol_rscatter(const ep_chol_rplan *p, const int *place, size_t ld, const double *Z, double *X, int k, int i0,
                      int i1);

/* ep_chol_rsolve on a block already in the factor's layout: Z (n x k,
 * row-major, row p->pos[i] holding A's unknown i) is B on entry and X on
 * return at the wanted rows.  A caller that builds its right-hand sides in
 * place (femgf) saves the two transposes, each a pass over n k values.
 * Rows of Z that are not wanted are unspecified on return.
 * work: ep_chol_rsolve_ordered_work's.  Cost as ep_chol_rsolve, plus one
 * read of Z for the supernodes the loads reach. */
double ep_chol_rsolve_ordered(const ep_chol_rplan *p, double *Z, int k, double *work);

/* The two halves of ep_chol_rsolve_ordered, for a caller that adds to the
 * forward result (femgf: the support border's term, whose own forward
 * solve is known).  ep_chol_rforward: Z = L^-1 Z at the supernodes the
 * loads reach, the other rows left as they are (zero: nothing reaches
 * them); loaded[nsuper] marks the supernodes whose rows hold Z's nonzeros
 * (more is allowed), or NULL: found by reading Z, one pass over n k values
 * (femgf marks them as it builds its loads).  ep_chol_rbackward: Z = L^-T Z
 * at the wanted rows.  Same workspace; each returns its flops. */
double ep_chol_rforward(const ep_chol_rplan *p, double *Z, int k, double *work, const char *loaded);
double ep_chol_rbackward(const ep_chol_rplan *p, double *Z, int k, double *work);

/* The forward half for a block whose first lead (<= 4) columns are loaded
 * at every supernode (femgf's body loads, a GF block's first columns) and
 * its other columns only at the supernodes loaded marks (and, as
 * ep_chol_rforward, their ancestors: the "wide" set).  This call does the
 * supernodes outside the wide set, on Z's first 4 columns only (narrow.h's
 * loops, rows k apart: k >= 4), all of them first: the wide set holds every
 * ancestor of its members, so none of theirs is below them.  Columns lead
 * .. 3 are zero there and stay zero.  Then ep_chol_rforward(p, Z, k, work,
 * loaded) does the wide set on all k columns.  The two together equal a
 * full forward of the lead columns and a restricted one of the others, the
 * factor outside the wide set read once for the lead columns instead of a
 * pass of their own.  (Packing the 4 columns into rows of 4 first made no
 * difference on the turtle: the pass is bound by reading L.)  Returns the
 * flops of the lead columns there: (nscol^2 + 2 nr nscol) lead a
 * supernode.  Same workspace as ep_chol_rforward. */
double ep_chol_rforward_lead(const ep_chol_rplan *p, double *Z, int k, double *work, const char *loaded, int lead);

/* Workspace of ep_chol_rsolve_ordered (and of its halves, ep_chol_rforward
 * and ep_chol_rbackward) for blocks of up to k right-hand sides: maxrow k +
 * nsuper values (caller frees; NULL with the message when memory cannot be
 * had). */
double *ep_chol_rsolve_ordered_work(const ep_chol_rplan *p, int k);

#endif
