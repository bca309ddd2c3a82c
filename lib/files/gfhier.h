/*
 * gfhier.h — the subdivision hierarchy under a GF file's rows and the GFs
 * of hierarchical constraints (MATH.md §8; 000 §3.4-3.5): the level-l hat
 * function of a coarse vertex k is a combination of the finest hats, so its
 * GF column is the same combination of the file's columns,
 *   xi^l_k = sum_v hat^l_k(v) xi_v  (over the free boundary vertices v),
 * built level by level from xi^l_k = xi^{l+1}_k + 1/2 sum_children xi^{l+1}_m.
 * The hierarchy is the GF file's own mesh (a loopsub surface) or another
 * file's (a tet mesh of that surface), whose vertices are matched to the GF
 * rows by position.
 */
#ifndef EP_GFHIER_H
#define EP_GFHIER_H

#include "gf.h"

typedef struct ep_gfhier {
    ep_mesh own;        /* the hierarchy when read from another file */
    const ep_mesh *h;   /* borrowed: the hierarchy (the GF file's mesh, or own) */
    int *row_h;         /* [n] hierarchy vertex of each GF row */
    int levels;         /* L + 1: levels 0 .. L */
} ep_gfhier;

/* The hierarchy under the GF rows of layout L on mesh m (source names them
 * in messages): m itself (path NULL), or the loopsub surface at path, its
 * vertices matched to L's rows within 1e-6 of the model size.  Errors name
 * what does not match.  0, EP_EINPUT, EP_EIO or EP_ECOMPUTE; free H with
 * ep_gfhier_free in every case.  Cost O(n log n). */
int ep_gfhier_build(ep_gfhier *H, const ep_mesh *m, const ep_gf_layout *L, const char *source, const char *path);

/* The same for the GFs of file g (ep_gfhier_build on its mesh and layout). */
int ep_gfhier_load(ep_gfhier *H, const ep_gf_file *g, const char *path);
void ep_gfhier_free(ep_gfhier *H);

/* The layout of the GFs of level-l hat constraints (000 §3.5.3 eqs.
 * 3.83-3.84): L's rows, and as columns L's columns at vertices of level <=
 * l, each with its load, the level-l hat in the finest hats (ep_wavelet_hat)
 * restricted to free vertices (fixed vertices carry no traction load), and
 * its integral col_area (sum of hat x row_area[n], the rows' vertex areas).  A
 * solver given L2 solves these columns directly (m_l right-hand sides).
 * Cost O(columns x nv).  L2 is built here (free with ep_gf_layout_free).
 * 0, EP_EINPUT (l above the hierarchy's levels, no such column), EP_ECOMPUTE. */
int ep_gfhier_layout(ep_gf_layout *L2, const ep_gfhier *H, const ep_gf_layout *L, const double *row_area,
                     const char *source, int l);

/* The GF columns of L2 (from ep_gfhier_layout) as the same combinations of
 * the file's columns, xi^l_k = sum_v hat^l_k(v) xi_v: column k's three GF
 * rows [3][3n] go to put(ctx, 3k, 3, rows).  Cost per column one weighted
 * sum of the columns under its hat, O(support x 9n); reads those columns
 * from g.  0, EP_EINPUT (a column under a hat that the file lacks),
 * EP_ECOMPUTE, or put's status. */
int ep_gfhier_columns(const ep_gf_layout *L2, ep_gf_file *g,
                      int (*put)(void *ctx, long row0, long nrows, const double *rows), void *ctx);

#endif
