/*
 * gf_layout.h — the layout of boundary Green's functions (elastoprep(5),
 * kind "gf"): which vertices (or triangles) are block rows, which are fixed,
 * and which are block columns.  The solvers (femgf.h, bemgf.h) fill a
 * layout's columns; the file module (gf.h) stores it.  No HDF5 and no
 * command line here.
 */
#ifndef EP_GF_LAYOUT_H
#define EP_GF_LAYOUT_H

#include <stdint.h>

#include "mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ep_gf_layout {
    const char *entity; /* borrowed: "vertex", or "triangle" for constant boundary elements */
    int n;              /* block rows: every boundary vertex (or triangle), ascending */
    int *row_vertex;    /* [n] vertex (or triangle) ids */
    int8_t *row_fixed;  /* [n] 1: traction row (vertex fixed), 0: displacement */
    int m;              /* block columns */
    int *col_vertex;    /* [m] ascending */
    /* Column loads, or NULL: column c is a unit load at col_vertex[c].  When
     * given, column c is the load sum_k load_weight[k] e_(load_vertex[k]) over
     * k in load_ptr[c] .. load_ptr[c+1]: a hat-function load of a coarse
     * constraint (000 §3.5.3 eqs. 3.83-3.84; gfhier.h), whose GF the solvers
     * compute as one right-hand side.  Load vertices are free boundary
     * vertices (mesh ids). */
    int *load_ptr;      /* [m+1] */
    int *load_vertex;
    double *load_weight;
    double *col_area;   /* [m] integral of each column's load (hat loads), or NULL: the
                           vertex area of its row (/gf/col_area) */
} ep_gf_layout;

/* Where a solver's GF rows go (femgf.h, bemgf.h; gfsink.h writes them). */
typedef struct ep_gf_sink {
    /* Receives GF rows [row0, row0 + nrows) as rows[nrows][3n], row 3c + a
     * being column c's load in direction a: blocks in any order, one call at
     * a time, from a thread that may not be the caller's (femgf: a writer
     * thread outside OpenMP, progress too). */
    int (*put)(void *ctx, long row0, long nrows, const double *rows);
    void (*progress)(void *ctx, long done, long total); /* may be NULL */
    void *ctx;
} ep_gf_sink;

/* Build the layout of vertex GFs on m.  Columns: the free boundary vertices
 * (all_columns 0), all boundary vertices (1), or the explicit vertex list
 * cols[ncols] when cols != NULL (each must be a boundary vertex; see
 * ep_select_boundary).  fixed[v] != 0 marks Lambda_u0.
 * Returns 0, EP_EINPUT (a column that is no boundary vertex, no column at
 * all) or EP_ECOMPUTE; free L with ep_gf_layout_free in every case. */
int ep_gf_layout_build(ep_gf_layout *L, const ep_mesh *m, const char *fixed, int all_columns, const int *cols,
                       int ncols);

/* The layout of constant boundary elements: one block row per triangle; a
 * triangle is fixed when its three vertices are; columns: the free triangles,
 * or all.  0, EP_EINPUT (no free triangle, or no fixed one) or EP_ECOMPUTE. */
int ep_gf_layout_triangles(ep_gf_layout *L, const ep_mesh *m, const char *fixed, int all_columns);

/* The layout of columns [c0, c1) of L (a part of a split run, part.h):
 * the same rows, columns L->col_vertex[c0..c1) (none when c0 == c1), with
 * their hat loads and areas when L has them (--constraint-level).
 * sub is set up here; free it with ep_gf_layout_free.  0 or EP_ECOMPUTE. */
int ep_gf_layout_columns(ep_gf_layout *sub, const ep_gf_layout *L, int c0, int c1);

/* Release L and zero it; safe on a zeroed layout. */
void ep_gf_layout_free(ep_gf_layout *L);

/* Area of each row's hat function (vertex rows: m->vertex_area of the
 * row's boundary vertex), *area[n] allocated.  0 or EP_ECOMPUTE. */
int ep_gf_layout_row_areas(const ep_gf_layout *L, const ep_mesh *m, double **area);

/* Row index of each column: (*col_row)[c] with row_vertex[(*col_row)[c]] ==
 * col_vertex[c] (allocated; caller frees).  0 or EP_ECOMPUTE. */
int ep_gf_layout_column_rows(const ep_gf_layout *L, int **col_row);

#ifdef __cplusplus
}
#endif

#endif
