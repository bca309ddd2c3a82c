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

typedef struct ep_gf_layout {
    const char *entity; /* borrowed: "vertex", or "triangle" for constant boundary elements */
    int n;              /* block rows: every boundary vertex (or triangle), ascending */
    int *row_vertex;    /* [n] vertex (or triangle) ids */
    int8_t *row_fixed;  /* [n] 1: traction row (vertex fixed), 0: displacement */
    int m;              /* block columns */
    int *col_vertex;    /* [m] ascending */
} ep_gf_layout;

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
 * the same rows, columns L->col_vertex[c0..c1) (none when c0 == c1).
 * sub is set up here; free it with ep_gf_layout_free.  0 or EP_ECOMPUTE. */
int ep_gf_layout_columns(ep_gf_layout *sub, const ep_gf_layout *L, int c0, int c1);

/* Release L and zero it; safe on a zeroed layout. */
void ep_gf_layout_free(ep_gf_layout *L);

/* Row index of each column: (*col_row)[c] with row_vertex[(*col_row)[c]] ==
 * col_vertex[c] (allocated; caller frees).  0 or EP_ECOMPUTE. */
int ep_gf_layout_column_rows(const ep_gf_layout *L, int **col_row);

#endif
