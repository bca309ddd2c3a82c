/*
 * ranks.h — the MPI ranks of one run (MATH.md §15): start and end, one
 * status for all, and the P_r x P_c process grid of BLACS.  Rank 0 speaks
 * for the run: the others' stdout and stderr go to /dev/null, and a failure
 * on any rank reaches rank 0 with its message before every rank ends.
 * MPI-only (lib/mpi: built by make mpi, never into the serial library).
 */
#ifndef EP_RANKS_H
#define EP_RANKS_H

#include <mpi.h>

/* A BLACS process grid over MPI_COMM_WORLD: rows x cols = ranks. */
typedef struct ep_ranks_grid {
    int rank, size;       /* this rank, ranks in the run */
    int ctxt;             /* BLACS context of the P_r x P_c grid (row-major) */
    int pr, pc, myrow, mycol;
    int ctxt_line;        /* BLACS context of the 1 x P grid: whole columns per rank */
    int node_ranks;       /* ranks sharing this rank's node (the memory guard's share) */
} ep_ranks_grid;

/* MPI_Init (argc, argv as main's), MPI_Finalize at exit, and rank 0 the
 * only one with stdout and stderr.  Returns this rank. */
int ep_ranks_start(int *argc, char ***argv);

/* Every rank's status st becomes one: 0 when all are 0, otherwise the status
 * and message (ep_errmsg) of the lowest failing rank, recorded on every rank
 * (ep_fail).  Collective; cost one allreduce, and one broadcast on failure. */
int ep_ranks_agree(int st);

/* The largest x over the ranks (a rank's peak resident memory).
 * Collective. */
double ep_ranks_max(double x);

/* The process grid for the run's ranks: spec "PRxPC" (NULL or "": the most
 * nearly square grid, P_r >= P_c) must multiply to the ranks.  0 or
 * EP_EUSAGE ("--grid 3x1 needs 3 ranks, the run has 4").  Collective. */
int ep_ranks_grid_init(ep_ranks_grid *g, const char *spec);
void ep_ranks_grid_free(ep_ranks_grid *g);

/* ScaLAPACK and BLACS (libscalapack-openmpi ships no C header). */
void Cblacs_get(int ctxt, int what, int *val);
void Cblacs_gridinit(int *ctxt, const char *order, int nprow, int npcol);
void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int ctxt);
int numroc_(const int *n, const int *nb, const int *iproc, const int *isrcproc, const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb, const int *irsrc,
               const int *icsrc, const int *ictxt, const int *lld, int *info);
void pdgetrf_(const int *m, const int *n, double *a, const int *ia, const int *ja, const int *desca, int *ipiv,
              int *info);
void pdgetrs_(const char *trans, const int *n, const int *nrhs, const double *a, const int *ia, const int *ja,
              const int *desca, const int *ipiv, double *b, const int *ib, const int *jb, const int *descb,
              int *info);
void pdgemr2d_(const int *m, const int *n, const double *a, const int *ia, const int *ja, const int *desca,
               double *b, const int *ib, const int *jb, const int *descb, const int *ictxt);

#endif
