/*
 * gfzip.h — wavelet compression of a block of GF columns (000 §3.2-3.3,
 * eqs. 3.49-3.51; MATH.md §8): each block column is gathered into slot
 * order, transformed, thresholded relative to its largest block per domain,
 * rounded to float32, and its error measured by an inverse transform, for
 * one or several thresholds at once.  A block at a time, so a tool can
 * compress columns as they come: from a file (gfcompress) or, later, as a
 * solver produces them (issue 16).  The file side is gfw.h's writer.
 */
#ifndef EP_GFZIP_H
#define EP_GFZIP_H

#include <stdint.h>

#include "wavelet.h"

/* ---- one block column, x[n][9] in slot order: x[s][3b + a] is component b
 * of the response at the slot's row for a unit load in direction a ---- */

/* Gather block column c from its three /gf/xi rows xi3[3][3n] (row order)
 * into x[n][9] in slot order. */
void ep_gfzip_gather(const ep_wavelet *W, const double *xi3, double *x);

/* Frobenius norm of the largest block of each domain: amp[d], d = 0 (free
 * rows) and 1 (fixed rows); slot_domain[n].  000 eq. 3.50. */
void ep_gfzip_amplitude(const ep_wavelet *W, const int8_t *slot_domain, const double *x, double amp[2]);

/* Threshold the transformed column y[n][9] (000 eqs. 3.49–3.51): a block of
 * level l >= 1 is dropped when its Frobenius norm is below
 * 2^(l-L) eps amp[domain]; base blocks are kept unless threshold_base (then
 * with 2^(-L) eps).  Outputs: slot[nnz] ascending and blocks[nnz][9] rounded
 * to float32; returns nnz.  Cost O(9n). */
int ep_gfzip_threshold(const ep_wavelet *W, const int8_t *slot_domain, const double *y, const double amp[2],
                     double eps, int threshold_base, int *slot, float *blocks);

/* The column in slot order, z[n][9], from its kept blocks: scattered and
 * inverse transformed.  Cost one inverse transform. */
void ep_gfzip_expand(const ep_wavelet *W, int nnz, const int *slot, const float *blocks, double *z);

/* Error of a compressed column against the original x[n][9] (slot order),
 * per domain d (slot_domain): err2[d] = squared Frobenius norm of the
 * difference on the domain's rows, maxerr[d] = its largest block error;
 * nnz_dom[d] = kept blocks of the domain.  Workspace z[n][9].  Cost: one
 * inverse transform. */
void ep_gfzip_error(const ep_wavelet *W, const int8_t *slot_domain, int nnz, const int *slot, const float *blocks,
                  const double *x, double *z, double err2[2], double maxerr[2], long nnz_dom[2]);

/* ---- a block of columns ---- */

/* Errors and kept blocks, per domain d (0: free rows, the displacement
 * block 000 Fig. 7.1 reports; 1: fixed rows) and for whole columns. */
typedef struct ep_gfzip_tally {
    double err2[2], ref2[2]; /* squared Frobenius norms of the error and of the GFs */
    double maxrel_free;      /* 000 eq. 7.2 on the free rows */
    double maxrel;           /* the same over whole columns */
    long nnz[2];             /* kept blocks */
} ep_gfzip_tally;

/* What compressing needs besides the columns, and per-thread workspace. */
typedef struct ep_gfzip {
    const ep_wavelet *W;          /* borrowed: the transform */
    const int8_t *slot_domain;    /* borrowed: [n] domain of each slot */
    int threshold_base;           /* threshold the base-level blocks too */
    int n, nthreads;
    double *work;                 /* [nthreads][3][n][9] */
} ep_gfzip;

/* Set up for the transform W (n slots) and the domains slot_domain[n], with
 * workspace for the OpenMP threads.  Allocates 216 n bytes per thread.
 * 0 or EP_ECOMPUTE; free z with ep_gfzip_free in every case. */
int ep_gfzip_init(ep_gfzip *z, const ep_wavelet *W, const int8_t *slot_domain, int threshold_base);
void ep_gfzip_free(ep_gfzip *z);

/* Compress nc block columns given as their GF rows, rows[nc][3][3n] (the
 * three /gf/xi rows of each column), for each threshold eps[ne]: tl[ne]
 * accumulates the errors and counts (in column order, so the sums do not
 * depend on the thread count).  The last threshold's result of column k:
 * nnz[k] kept blocks, their slots slot[k][n] (ascending) and values
 * blocks[k][n][9] (float32).  Threads over columns.
 * Cost per column and threshold: one forward and one inverse transform,
 * O(9 n stencil).  0 or EP_ECOMPUTE. */
int ep_gfzip_block(ep_gfzip *z, const double *rows, int nc, const double *eps, int ne, ep_gfzip_tally *tl, int *nnz,
                   int *slot, float *blocks);

/* RMS error relative to the GFs over all rows; kept blocks. */
double ep_gfzip_rms(const ep_gfzip_tally *t);
long ep_gfzip_kept(const ep_gfzip_tally *t);

#endif
