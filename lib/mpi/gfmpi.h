/*
 * gfmpi.h — one GF file from every rank of an MPI run (MATH.md §15): the
 * file bemsolve writes, made by rank 0 (model, layout, the /gf/xi dataset:
 * gfform.h), then /gf/xi filled by collective parallel-HDF5 writes of each
 * rank's rows (MPI-IO), or, compressed (--wavelet), each rank's columns
 * compressed by it as they are solved (gfzip.h, the serial sink's routine)
 * and their kept blocks gathered on rank 0 into the serial sink's writer
 * (gfsink.h, gfw.h) in column order, with the ranks' error tallies added up,
 * so the file is the one the serial run writes; rank 0 commits it
 * (output.h), or every rank's failure leaves nothing.  MPI-only (lib/mpi).
 */
#ifndef EP_GFMPI_H
#define EP_GFMPI_H

#include "gfform.h"
#include "ranks.h"

typedef struct ep_gfmpi {
    const ep_ranks_grid *g; /* borrowed */
    ep_gfform *form;        /* borrowed: rank 0's output form (its sink and progress bar) */
    ep_cli *cli;            /* borrowed: rank 0 owns cli->out */
    int dense;
    ep_h5 par;              /* the file opened by every rank with MPI-IO (dense) */
    ep_gf_writer w;         /* /gf/xi in par, collective writes */
    long ncols;             /* 3n */
    /* compressed output: this rank's columns of a block, compressed */
    ep_gfzip z;
    int8_t *slot_domain;    /* [n] */
    ep_gfzip_tally tl;      /* this rank's errors and counts */
    int cap;                /* columns the buffers hold */
    int *nnz, *slot;        /* [cap], [cap][n] */
    float *blk;             /* [cap][n][9] */
    int *all_nnz, *all_slot; /* rank 0: the block's columns of every rank */
    float *all_blk;
    size_t all_ncols, all_cap; /* columns all_nnz, kept blocks all_slot and all_blk hold */
} ep_gfmpi;

/* Collective.  Rank 0 creates -o as ep_gfform_open does; for a dense file
 * every rank then opens it with MPI-IO, for a compressed one every rank
 * sets up gfzip's workspace (216 n bytes a thread).  0 or the first failing rank's
 * status (ep_ranks_agree); free w in every case. */
int ep_gfmpi_open(ep_gfmpi *w, const ep_ranks_grid *g, ep_gfform *f, ep_cli *cli, const ep_mesh *m,
                  const ep_material *mat, const char *fixed, const char *method, int single);

/* The solver's sink (bemmpi.h: put is collective, each rank its rows);
 * progress on rank 0 with label tool unless quiet.  Cost of a put: dense,
 * one collective write of the rank's rows; compressed, ep_gfzip_block on
 * the rank's columns, three gathers of their kept blocks to rank 0 and its
 * writes.  Memory: the rank's compressed columns (40 n bytes a column), on
 * rank 0 the block's of every rank. */
ep_gf_sink ep_gfmpi_sink(ep_gfmpi *w, const char *tool, int quiet);

/* Collective: close the parallel file, then rank 0 reopens it, closes the
 * sink (ep_gfsink_close: the compressed file's pointers and error
 * attributes) and commits it.  0 or the first failing rank's status. */
int ep_gfmpi_close(ep_gfmpi *w);

/* Release (after close, or instead of it on failure: rank 0's output is
 * aborted by ep_cli_exit). */
void ep_gfmpi_free(ep_gfmpi *w);

#endif
