/*
 * bemmpi.h — the dense BEM Green's functions over MPI (MATH.md §15): the 3n x
 * 3n system of bemgf.h in a 2-D block-cyclic layout over a P_r x P_c BLACS
 * grid, each rank assembling only its own blocks (bemgf's integrals), one
 * pdgetrf, and pdgetrs on each block of GF right-hand sides, which each rank
 * computes for its share of the block's columns (bemgf's right-hand sides)
 * and pdgemr2d moves between the 1 x P and the P_r x P_c layouts.
 * MPI-only (lib/mpi).
 */
#ifndef EP_BEMMPI_H
#define EP_BEMMPI_H

#include "bemgf.h"
#include "ranks.h"

/* Matrix block of the block-cyclic layout: a multiple of 3, so a node's
 * three rows (and columns) share a block (MATH.md §15: nb 64-256). */
#define EP_BEMMPI_NB 96

/* Bytes one rank holds for n nodes on grid g with blocks of ncb GF
 * columns: its share of A, of the right-hand sides in both layouts, the
 * pivots and the nodes. */
double ep_bemmpi_bytes(const ep_ranks_grid *g, int n, int nf, int ncb);

/* Solve the GF columns of L on m (as ep_bemgf_solve) over the ranks of g.
 * Collective: every rank passes the same m, L, o.  out: each block of
 * o->block columns, every rank's share of it through sink->put (collective:
 * called on every rank, nrows 0 on a rank without columns; rows
 * [row0, row0 + nrows) as rows[nrows][3n]), in order; progress on rank 0;
 * stats (memory: this rank's estimate; flops the whole run's).
 * A rank integrates, for each of its rows' nodes, the triangles that touch a
 * node of its columns: a triangle whose corners' columns lie on several
 * process columns is integrated on each (at most 3), so the assembly's
 * total work grows with P_c, up to 3 x the serial one, and not with P_r:
 * ranks.h's default grid is tall (P_r >= P_c; 2 ranks: 2 x 1, no repeats).
 * Memory per rank: 8 (3n)^2 / P for A, 2 x 8 (3n)(3 ncb) / P for the
 * right-hand sides.  Cost: the assembly's O(n nf) integrals over P,
 * (2/3)(3n)^3 / P flops of LU, 2 (3n)^2 per right-hand side over P.
 * No body-force or interior rows (o->body, o->npoints: EP_EUSAGE).
 * 0; EP_EUSAGE; EP_ECOMPUTE (memory over o->max_memory on a node, singular A,
 * out of memory); the sink's status; the same on every rank (ep_ranks_agree). */
int ep_bemmpi_solve(const ep_ranks_grid *g, const ep_mesh *m, const ep_gf_layout *L, const ep_bemgf_opts *o,
                    const ep_gf_sink *sink, ep_bemgf_stats *stats);

#endif
