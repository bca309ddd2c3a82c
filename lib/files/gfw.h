/*
 * gfw.h — wavelet Green's functions (kind "gf-wavelet", elastoprep(5)): the
 * block-sparse writer of the columns gfzip.h compresses, and the reader with
 * the two runtime operations on compressed columns — fast summation (000
 * §3.3, eq. 3.54) and selective extraction (000 §3.3.3).
 *
 * A block column c is handled as x[n][9] in slot order: x[s][3b + a] is
 * component b of the response at the slot's row for a unit load in direction
 * a at column c, i.e. the 3x3 GF block as a matrix (response = block · load).
 */
#ifndef EP_GFW_H
#define EP_GFW_H

#include <stdint.h>

#include "gf.h"
#include "wavelet.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writer: /gf layout and attributes as for kind "gf", the filters, and the
 * columns streamed in order. */
typedef struct ep_gfw_writer {
    ep_h5 *f;
    ep_h5_stream rowidx, blocks;
    int64_t *colptr;   /* [m+1] */
    int m, n, col;
} ep_gfw_writer;

/* Open the writer of the columns of layout L (method, traction_model: as
 * for ep_gf_writer_open) transformed by W.  0, EP_EIO or EP_ECOMPUTE;
 * finish with ep_gfw_writer_close or ep_gfw_writer_abort. */
int ep_gfw_writer_open(ep_gfw_writer *w, ep_h5 *f, const ep_gf_layout *L, const char *method,
                       const char *traction_model, const ep_wavelet *W, const char *wavelet, int lifted, double eps);
/* Append the next column's kept blocks.  0 or EP_EIO. */
int ep_gfw_writer_put(ep_gfw_writer *w, int nnz, const int *slot, const float *blocks);
/* Write colptr and the error attributes; frees the writer.  0 or EP_EIO
 * (0 and nothing written on a zeroed or released writer). */
int ep_gfw_writer_close(ep_gfw_writer *w, double rms_error, double max_error);
/* Free the writer without finishing the file; safe on a zeroed writer. */
void ep_gfw_writer_abort(ep_gfw_writer *w);

/* A gf-wavelet file in memory. */
typedef struct ep_gfw {
    ep_gf_file g;       /* mesh and layout */
    ep_wavelet W;
    int64_t *colptr;    /* [m+1] */
    int *rowidx;        /* [nnzb] slots, ascending within a column */
    float *blocks;      /* [nnzb][9] */
    /* The index of kept slots (ep_gfw_index): column c's words of 32
     * slots that hold a kept one, kept_ptr[c] .. kept_ptr[c + 1], ascending:
     * word w = kept_word[p] (slots 32 w .. 32 w + 31), kept_bits[p] its
     * kept slots (bit t: slot 32 w + t) in the low half and the column's
     * kept blocks in its earlier words in the high half.  A slot's block
     * is then one mask and popcount within its word; 12 bytes a non-empty
     * word, at most a third of the 36-byte blocks they index. */
    int64_t *kept_ptr;  /* [m+1] */
    int *kept_word;
    uint64_t *kept_bits;
    char wavelet[16];
    int lifted;
    double eps, rms_error, max_error;
} ep_gfw;

/* Read and check a gf-wavelet file (shapes, index ranges, filters, column
 * pointers, finite blocks) and index its kept blocks.  Cost: one read and
 * one pass over the file's datasets; memory their size and the index's.
 * 0, EP_EINPUT, EP_EIO or EP_ECOMPUTE; close with ep_gfw_close even on
 * failure. */
int ep_gfw_open(ep_gfw *r, const char *path);
void ep_gfw_close(ep_gfw *r);
/* (Re)build the index of kept slots from r->colptr and r->rowidx
 * (ascending slots in range) for r->g.L.m columns: ep_gfw_open does; a set
 * built in memory calls it before ep_gfw_row or ep_gfw_block.  Cost
 * O(nnzb + m).  0 or EP_ECOMPUTE. */
int ep_gfw_index(ep_gfw *r);

/* Fast summation (000 eq. 3.54): out[n][3] (row order) = sum_i Xi_{cols[i]}
 * loads[i], with loads[k][3], by summing the sparse wavelet blocks and one
 * inverse transform.  Workspace acc[n][3].  Cost O(sum of nnz + n). */
void ep_gfw_sum(const ep_gfw *r, int k, const int *cols, const double *loads, double *acc, double *out);

/* Block column c reconstructed in full: out[n][9] in row order (x layout
 * above).  Workspace z[n][9].  Cost O(nnz of the column + 9 n) (one inverse
 * transform). */
void ep_gfw_column(const ep_gfw *r, int c, double *z, double *out);

/* Rows of block columns cols[nc] at once, out[c][k][9] = the block of
 * column cols[c] at row rows[k], by one partial synthesis of width 9 nc: u
 * the closure of those rows' slots (or of more rows).  Together, the
 * closure's bookkeeping (slots, kids, stencils) is paid once for nc
 * columns and its loops run 9 nc values wide.  Workspace (the caller's,
 * zero on entry and again on return): z[n][9 nc]; kept[n], the slots
 * whose blocks were read; u->next.  Cost O(nnz of the columns + 9 nc
 * closure x stencil). */
void ep_gfw_columns_rows(const ep_gfw *r, int nc, const int *cols, ep_wavelet_subset *u, int nr, const int *rows,
                         char *kept, double *z, double *out);

/* One row of many block columns, out[k][9] = the block of column cols[k]
 * at the row whose nonzero synthesis weights (ep_wavelet_row_weights) are
 * wval[nw] at the slots wslot[nw], ascending.  Cost per column nw + its
 * non-empty words of the index (a walk of both in slot order), not a pass
 * over its kept blocks. */
void ep_gfw_row(const ep_gfw *r, int nw, const int *wslot, const double *wval, int k, const int *cols,
                double *out);

/* Selective extraction (000 §3.3.3): the 3x3 block B[3b + a] of column c at
 * row `row` without a full inverse transform.  ws from ep_wavelet_ws_init(W, 9).
 * Cost O(levels x stencil) coefficient look-ups in the index, each a
 * binary search of the column's non-empty words. */
void ep_gfw_block(const ep_gfw *r, int c, int row, ep_wavelet_ws *ws, double B[9]);

#ifdef __cplusplus
}
#endif

#endif
