/*
 * gfsrc.h — boundary Green's functions as a runtime reads them (MATH.md §7;
 * 000 §3.3): 3x3 blocks Xi(row, col) and weighted sums of columns, whether
 * the file is dense (kind "gf", loaded whole) or wavelet compressed (kind
 * "gf-wavelet": blocks by selective extraction, 000 §3.3.3; sums by fast
 * summation, one inverse transform, 000 eq. 3.54).
 */
#ifndef EP_GFSRC_H
#define EP_GFSRC_H

#include "gf.h"
#include "gfw.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ep_gfsrc {
    ep_gf_file *file;   /* points into own or w: the layout and mesh (dense: also /gf/xi) */
    ep_gf_file own;     /* dense files */
    ep_gfw w;           /* wavelet files */
    int wavelet;        /* 1: w is open */
    int n, m;           /* rows, columns */
    int symmetric;      /* 1: Xi(i, j) / area[j] is symmetric positive definite over the
                           free nodes with columns (femcondense --traction lumped:
                           Xi = S^-1 diag(a), MATH.md §7), so cma.h may use Cholesky */
    int *col_of_row;    /* [n] column of each row, -1 for none */
    double *area;       /* [n] vertex areas */
    double *xi;         /* dense: [m][n][9], the block (row, col) at xi[9 (col n + row)] as
                           ep_gfsrc_block gives it: a gather reads 72 contiguous bytes a
                           block, where the file's rows ([3m][3n]) spread it over three */
    ep_wavelet_ws ws;   /* wavelet: selective extraction */
    double *acc;        /* wavelet: [n][3] fast-summation workspace */
    double *col;        /* [batch][n][9] the blocks of a gather (wavelet: the second [n][9]
                           also a row's synthesis weights, compact) */
    ep_wavelet_subset u;/* wavelet: the rows of ep_gfsrc_plan */
    double *z;          /* wavelet: [n][9 batch] partial synthesis, zero between calls */
    char *kept;         /* wavelet: [n] the slots whose blocks a synthesis read, zero between calls */
    int batch;          /* columns ep_gfsrc_node_columns synthesizes together: 8 (wavelet), 1 */
    int *slots;         /* wavelet: [n] scratch */
    ep_wavelet_subset r;/* wavelet: the closure of ep_gfsrc_node_row's row */
    double *ry;         /* wavelet: [n] its synthesis weights, zero between calls */
    int *rslot;         /* wavelet: [n] the slots of its weights */
    const double *body; /* [3][3n] the file's /gf/body (borrowed from file), or NULL: the
                           responses to a unit acceleration times the density (MATH.md §12) */
    int np;             /* interior points (/gf/interior_points), 0: none; borrowed from file: */
    const double *points, *interior, *interior_body; /* [np][3], [3m][9 np], [3][9 np] or NULL */
} ep_gfsrc;

/* Open a gf or gf-wavelet file (vertex GFs) for a runtime: dense files are
 * loaded whole (8 * 9mn bytes), wavelet ones by ep_gfw_open.  Cost: one
 * read of the file.  0, EP_EINPUT, EP_EIO or EP_ECOMPUTE; close with
 * ep_gfsrc_close even on failure. */
int ep_gfsrc_open(ep_gfsrc *g, const char *path);
void ep_gfsrc_close(ep_gfsrc *g);

/* The 3x3 block Xi(row, col) as a matrix, B[3b + a]: component b at row for a
 * unit load in direction a at column col.  Dense O(1); wavelet O(levels). */
void ep_gfsrc_block(ep_gfsrc *g, int row, int col, double B[9]);

/* Many columns at a few rows (the capacitance matrix's gathers): plan for
 * rows[nr] (wavelet: their synthesis closure, O(closure); dense: nothing),
 * then out[c][k][9] = Xi(rows[k], column of nodes[c]) for nodes[nc] and
 * any rows within the plan, blocks B[3b + a] as ep_gfsrc_block's.  Dense
 * O(nc nr); wavelet O(nnz of the columns + 9 nc closure x stencil), by
 * partial syntheses of g->batch columns at a time, against O(nc nr
 * levels) look-ups by selective extraction. */
void ep_gfsrc_plan(ep_gfsrc *g, const int *rows, int nr);
void ep_gfsrc_node_columns(ep_gfsrc *g, int nc, const int *nodes, int nr, const int *rows, double *out);

/* One row of many columns: out[k][9] = Xi(row, column of nodes[k]).  Dense
 * O(k); wavelet O(closure x (stencil + kids)) for the row's synthesis
 * weights, then a walk of each column's index beside them (ep_gfw_row). */
void ep_gfsrc_node_row(ep_gfsrc *g, int row, int k, const int *nodes, double *out);

/* The body-force response to gravity beta[3] (m/s^2): out[n][3] = sum_a
 * beta_a /gf/body row a (MATH.md §12; 000 eq. 2.38), displacements at free
 * rows, tractions at fixed ones.  Cost 9n.  0, or EP_EINPUT when the file
 * has no /gf/body (femcondense/bemsolve --body-force). */
int ep_gfsrc_gravity(const ep_gfsrc *g, const double beta[3], double *out);

/* The interior state at the file's interior points (femcondense
 * --interior; MATH.md §12, 000 eq. 2.22) for loads[k][3] at the columns
 * cols[k] and gravity beta[3] (NULL: none): out[np][9] = sum_i sum_a
 * loads[i][a] /gf/interior row 3 cols[i] + a (+ sum_a beta_a
 * /gf/interior_body row a); per point the displacement (3) and the stress
 * (xx yy zz yz xz xy).  Cost 27 np (k + 1) flops.  0, or EP_EINPUT (no
 * interior rows, or gravity without /gf/interior_body). */
int ep_gfsrc_interior(const ep_gfsrc *g, int k, const int *cols, const double *loads, const double *beta,
                      double *out);

/* The von Mises stress of s[6] (xx yy zz yz xz xy):
 * sqrt(((sxx - syy)^2 + (syy - szz)^2 + (szz - sxx)^2) / 2 + 3 (syz^2 + sxz^2 + sxy^2)). */
double ep_gfsrc_von_mises(const double s[6]);

/* out[n][3] = sum_i Xi(:, cols[i]) loads[i][3].  Dense O(9 k n); wavelet O(kept
 * blocks + n). */
void ep_gfsrc_sum(ep_gfsrc *g, int k, const int *cols, const double *loads, double *out);

#ifdef __cplusplus
}
#endif

#endif
