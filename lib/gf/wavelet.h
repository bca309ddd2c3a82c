/*
 * wavelet.h — second-generation wavelets on subdivision-connectivity surfaces
 * (MATH.md §8; 000 §3.1–3.2, Schröder–Sweldens 1995).
 *
 * A transform acts on vertex data split into domains (for GFs: the free rows
 * and the fixed rows), each ordered coarse to fine.  Its filters are explicit:
 * for every odd slot m a predict stencil (linear: the two aunts; Butterfly:
 * eight points; boundary fallbacks of 000 §3.1.5) and up to two lifting
 * weights (000 eqs. 3.33, 3.39).  Filters are built once from the mesh
 * hierarchy, or read back from a gf-wavelet file, so a reader never needs the
 * hierarchy itself.  Data is "slot order": slot k holds `width` doubles.
 *
 * Transforms are in place and O(n · width).
 */
#ifndef EP_WAVELET_H
#define EP_WAVELET_H

#include <stdint.h>

#include "mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { EP_WAVELET_LINEAR, EP_WAVELET_BUTTERFLY } ep_wavelet_kind;

typedef struct ep_wavelet {
    int n;              /* slots */
    int nlevels;        /* L + 1 */
    int *slot_row;      /* [n] row (position in the caller's data) of each slot */
    int *row_slot;      /* [n] inverse permutation */
    int8_t *slot_level; /* [n] level of each slot, non-decreasing within a domain */
    int *pred_ptr;      /* [n+1] predict stencil of slot k: pred_ptr[k] .. pred_ptr[k+1] */
    int *pred_slot;     /* coarser slots of the same domain */
    double *pred_w;     /* their weights */
    int *lift_slot;     /* [n][2] slots updated by slot k's wavelet (-1: none) */
    double *lift_w;     /* [n][2] lifting weights s */
    /* derived by ep_wavelet_index */
    int *by_level;      /* slots grouped by level: level l is by_level[level_ptr[l] .. level_ptr[l+1]) */
    int *level_ptr;     /* [nlevels+1] */
    int *kid_ptr;       /* [n+1] transpose of lift: the slots lifting slot k, coarse to fine */
    int *kid_slot;
    double *kid_w;
} ep_wavelet;

/* Build the filters.
 *   Inputs  h           hierarchy mesh: level, parents, triangles (the finest
 *                       level), vertices; 1-to-4 subdivision connectivity
 *           n           rows
 *           row_vertex  [n] vertex id in h of each row
 *           row_domain  [n] domain of each row (small integers >= 0)
 *           row_area    [n] integral of the finest hat function of each row
 *           kind, lifted
 *   Output  W           (free with ep_wavelet_free)
 * Slots list domain 0 coarse to fine, then domain 1, ...; ties keep row order.
 * Scaling-function integrals follow the refinement relation with the predict
 * weights (000 eq. 3.34), so lifted wavelets have zero integral.
 * Cost O(n log n + nf log nf).  0, EP_EINPUT (not subdivision connectivity)
 * or EP_ECOMPUTE. */
int ep_wavelet_build(ep_wavelet *W, const ep_mesh *h, int n, const int *row_vertex, const int8_t *row_domain,
                     const double *row_area, ep_wavelet_kind kind, int lifted);

/* Derive by_level, level_ptr and the kid lists from the filters (called by
 * ep_wavelet_build; a reader that loaded the filters calls it itself), after
 * checking them: every stencil and lifting slot in range and of a coarser
 * level.  Cost O(n + stencil entries); allocates O(n).
 * 0, EP_EINPUT (message names the first bad slot) or EP_ECOMPUTE. */
int ep_wavelet_index(ep_wavelet *W);

void ep_wavelet_free(ep_wavelet *W);

/* Forward transform (analysis, fine to coarse) of x[n][width] in slot order,
 * in place.  Cost O(n · stencil · width). */
void ep_wavelet_forward(const ep_wavelet *W, int width, double *x);

/* Inverse transform (synthesis, coarse to fine), in place.  Cost as the
 * forward transform. */
void ep_wavelet_inverse(const ep_wavelet *W, int width, double *x);

/* Gather rows -> slot order, and scatter back: y[slot] = x[slot_row[slot]].
 * Cost O(n width). */
void ep_wavelet_to_slots(const ep_wavelet *W, int width, const double *x, double *y);
void ep_wavelet_to_rows(const ep_wavelet *W, int width, const double *y, double *x);

/* Selective reconstruction: the value at one slot of the inverse transform of
 * a sparse coefficient vector, without the full transform (000 §3.3.3).  The
 * coefficients are given by coef(ctx, slot, out[width]) returning 0 for a zero
 * coefficient.  The recursion visits the slot's dependency cone (O(levels ·
 * stencil) slots for linear wavelets) and memoizes in the workspace.
 *   Workspace  ws (ep_wavelet_ws_init / _free), one per thread. */
typedef struct ep_wavelet_ws {
    int stamp;
    int *mark;     /* [n] */
    double *base;  /* [n][width] */
    int width;
} ep_wavelet_ws;

int ep_wavelet_ws_init(ep_wavelet_ws *ws, const ep_wavelet *W, int width);
void ep_wavelet_ws_free(ep_wavelet_ws *ws);
void ep_wavelet_value_at(const ep_wavelet *W, int slot, int (*coef)(void *ctx, int slot, double *out),
                         void *ctx, ep_wavelet_ws *ws, double *out);

/* Partial synthesis for a few rows of many columns (rtcheck's capacitance
 * gathers): the rows' slots and their predict-stencil ancestors, coarse to
 * fine, are all that synthesis needs at those rows, besides the raw
 * coefficients of the slots lifting them (000 eqs. 3.28, 3.36). */
typedef struct ep_wavelet_subset {
    int n;         /* slots in the closure */
    int *slot;     /* [W->n] the closure, coarse to fine */
    int *lev;      /* [nlevels + 1] slot[lev[l] .. lev[l + 1]) are of level l */
    char *in;      /* [W->n] 1: in the closure */
    char *reach;   /* [W->n] 1: a slot synthesis at the closure reads (the closure and
                      the slots lifting it): coefficients elsewhere need not be given */
    int *next;     /* [W->n] scratch of ep_wavelet_subset_set, _inverse and
                      ep_wavelet_row_weights */
    char *seen;    /* [W->n] zero between calls: ep_wavelet_row_weights' marks */
} ep_wavelet_subset;

int ep_wavelet_subset_init(ep_wavelet_subset *u, const ep_wavelet *W); /* 0 or EP_ECOMPUTE */
void ep_wavelet_subset_free(ep_wavelet_subset *u);
/* The closure of slots[k] (k < nk).  Cost O(closure x stencil). */
void ep_wavelet_subset_set(ep_wavelet_subset *u, const ep_wavelet *W, const int *slots, int nk);
/* x[n][width]: in, the coefficients (at least at the closure and at the
 * slots lifting it); out, at the closure slots, the synthesized values
 * (ep_wavelet_inverse's there); the other slots unchanged.  nz[n] (or
 * NULL): 0 where the coefficient is known to be zero, skipped.  u->next
 * is its scratch.  Cost O(closure x (stencil + kids) x width). */
void ep_wavelet_subset_inverse(const ep_wavelet *W, ep_wavelet_subset *u, int width, double *x, const char *nz);
/* The weights of synthesis at one slot, value = sum_i w[i] coef[nz[i]]
 * (a row of ep_wavelet_inverse: ep_wavelet_subset_inverse transposed, fine
 * to coarse): returns their count nw (at most the closure and its kids;
 * nz and w hold n), w[nw] the weights and nz[nw] their slots, ascending.
 * u is set to the slot's closure, its next and seen used; y[n]
 * zero on entry and on return.  Cost O(closure x (stencil + kids)), which
 * grows with the levels, not with n. */
int ep_wavelet_row_weights(const ep_wavelet *W, ep_wavelet_subset *u, int slot, double *y, int *nz, double *w);

/* The level-l hat function of vertex k (level(k) <= l) in the finest hat
 * basis: linear interpolation down the hierarchy, hat[v] = (hat[p1] +
 * hat[p2]) / 2 for every vertex of level > l (000 §3.4; the refinement
 * xi^l_k = xi^{l+1}_k + 1/2 sum_children xi^{l+1}_m of MATH.md §8).
 *   Input   h (vertices ordered coarse to fine, as loopsub writes them)
 *   Output  hat[nv], overwritten.  Cost O(nv). */
void ep_wavelet_hat(const ep_mesh *h, int l, int k, double *hat);

#ifdef __cplusplus
}
#endif

#endif
