/*
 * gfsink.h — where GF rows go as they are solved or read: a dense GF file
 * (kind "gf", gf.h's writer), or wavelet compression (gfzip.h) into a
 * gf-wavelet file (gfw.h's writer) with its error tallies (000 §3.2-3.3,
 * eqs. 3.49-3.51; MATH.md §8).  One routine for every producer: the solvers
 * (femcondense, bemsolve: the dense GFs never exist) and gfcompress (from a
 * dense file), so their compressed files are the same.
 *
 * Rows arrive in blocks in any order (a solver's threads finish out of
 * order); a block that is not next waits, and columns are compressed CHUNK
 * at a time in column order, so the output and the error sums do not depend
 * on the arrival order.  Memory: one chunk of columns (72 n CHUNK bytes),
 * its kept blocks (40 n CHUNK), gfzip's workspace (216 n per thread) and the
 * blocks waiting for their turn; kept blocks go to the file as they come.
 */
#ifndef EP_GFSINK_H
#define EP_GFSINK_H

#include "gf.h"
#include "gfw.h"
#include "gfzip.h"

#define EP_GFSINK_CHUNK 32 /* block columns compressed together */
#define EP_GFSINK_MAX_EPS 32

typedef struct ep_gfsink_wait {
    long row0, nrows;
    double *rows;
} ep_gfsink_wait;

typedef struct ep_gfsink {
    int dense;                  /* 1: rows go to gw unchanged */
    ep_gf_writer gw;
    /* compression */
    ep_gfzip z;
    ep_gfw_writer w;            /* open when writing a gf-wavelet file */
    int writing;
    int8_t *slot_domain;        /* [n] */
    int n, m;                   /* block rows, block columns */
    long next;                  /* the next GF row due */
    double *buf;                /* [CHUNK][3][3n]: the columns being gathered, from GF row buf0 */
    long buf0;
    int *nnz, *slot;            /* [CHUNK], [CHUNK][n] */
    float *blk;                 /* [CHUNK][n][9] */
    ep_gfsink_wait *wait;       /* blocks that came early */
    int nwait;
    size_t capwait;
    int ne;                     /* thresholds; the last one's columns are written */
    double eps[EP_GFSINK_MAX_EPS];
    ep_gfzip_tally tl[EP_GFSINK_MAX_EPS];
} ep_gfsink;

/* Rows into the dense GF file f (ep_gf_writer_open's arguments). */
int ep_gfsink_open_dense(ep_gfsink *k, ep_h5 *f, const ep_gf_layout *L, const char *method,
                         const char *traction_model, int single);

/* Rows compressed with the transform W (built on L's rows) for each
 * threshold eps[ne] (ne <= EP_GFSINK_MAX_EPS), the last written to the
 * gf-wavelet file f with L's layout (f NULL: the tallies only, gfcompress
 * --sweep).  wavelet ("linear" or "butterfly"), lifted: the file's
 * attributes.  Allocates the chunk buffers and gfzip's workspace.
 * 0, EP_EIO or EP_ECOMPUTE; close or abort k in every case. */
int ep_gfsink_open_wavelet(ep_gfsink *k, ep_h5 *f, const ep_gf_layout *L, const char *method,
                           const char *traction_model, const ep_wavelet *W, const char *wavelet, int lifted,
                           int threshold_base, const double *eps, int ne);

/* Bytes ep_gfsink_open_wavelet allocates for n block rows (the memory
 * guards add it), not counting blocks that wait for their turn. */
double ep_gfsink_wavelet_bytes(int n);

/* Receive GF rows [row0, row0 + nrows) as rows[nrows][3n] (the solvers'
 * sink signature; ctx is the ep_gfsink).  Blocks may come in any order, one
 * call at a time; a block that is not next is copied until its turn.
 * 0, EP_EIO or EP_ECOMPUTE. */
int ep_gfsink_put(void *ctx, long row0, long nrows, const double *rows);

/* Finish: every row must have come; compress what is gathered, write the
 * column pointers and the RMS/MAX error attributes of the written threshold
 * (000 eq. 7.2), close the dataset.  0, EP_EIO, EP_ECOMPUTE (rows missing). */
int ep_gfsink_close(ep_gfsink *k);

/* Release everything (after close, or instead of it on failure); safe on a
 * zeroed sink. */
void ep_gfsink_free(ep_gfsink *k);

#endif
