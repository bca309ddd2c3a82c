/*
 * team.h — a whole solve X = A^-1 B of a block of 4 or 8 right-hand sides
 * on a supernodal Cholesky factor, shared by threads: moddesc's eigen
 * blocks of 8 on two.
 *
 * The subtrees of the elimination tree below a few heavy supernodes go to
 * the threads whole, all k columns at once (one read of L for 8 columns);
 * the heavy supernodes (the top separators: 36% of the dragon's entries)
 * go by groups of 4 columns, one a thread (so k / 4 threads work there:
 * two at k = 8, one at k = 4).  No thread waits for another inside a
 * phase: four barriers a solve, where sharing each heavy supernode by rows
 * cost hundreds, and each one a time slice on a loaded machine
 * (doc/DECISIONS.md "Team solves").  Each supernode is narrow.h's kernel.
 *
 * Every value is computed by the same operations in the same order
 * whatever the number of threads: the results are the same bits on any
 * number of them.
 */
#ifndef EP_TEAM_H
#define EP_TEAM_H

struct ep_chol_rplan;

/* A plan of whole solves on a full plan's factor (want NULL): the light
 * subtrees (entries under 1/16 of the factor's each, the heaviest first),
 * the heavy supernodes above them, and the light supernodes' row lists with
 * rows outside their subtree moved to the subtree's own rows after Z's n
 * (the forward pass adds them into Z once every subtree is done: no two
 * threads write one row). */
typedef struct ep_team_plan {
    const struct ep_chol_rplan *p; /* borrowed */
    int nlight, nheavy;            /* subtrees, and supernodes above them */
    int nbuf;                      /* rows after Z's n: the subtrees' outside rows */
    int *light;                    /* [nlight] subtree roots (owns the block of all five) */
    int *first;                    /* [nlight] first supernode of each subtree (a postorder range) */
    int *boff;                     /* [nlight + 1] each subtree's first row after n */
    int *heavy;                    /* [nheavy] the heavy supernodes, ascending */
    int *xrows;                    /* [pi[nsuper]]: off-diagonal rows of light supernodes, outside ones moved */
    double flops;                  /* of one solve of one column */
} ep_team_plan;

/* The plan of whole solves on p (a plan of all rows).  A factor not in
 * postorder gets no light subtrees (all heavy: right, on one thread per
 * group of 4).  Cost O(nnz of L's row lists).  Returns 0, or EP_ECOMPUTE
 * with the message (out of memory, or row lists that are not an
 * elimination tree's). */
int ep_team_plan_init(ep_team_plan *t, const struct ep_chol_rplan *p);
void ep_team_plan_free(ep_team_plan *t);

/* Workspace of ep_team_solve for k right-hand sides: (n + nbuf) k
 * doubles, allocated (the caller frees; NULL with the message when memory
 * cannot be had). */
double *ep_team_work(const ep_team_plan *t, int k);

/* X = A^-1 B (B and X n x k column-major, leading dimension n, may be the
 * same array; k = 4 or 8) on up to `threads` threads (one from inside a
 * parallel region with nesting spent); work: ep_team_work's for k.  The
 * same bits whatever the threads.  Cost 4 lnz k flops (returned). */
double ep_team_solve(const ep_team_plan *t, const double *B, double *X, int k, double *work, int threads);

#endif
