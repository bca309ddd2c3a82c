/*
 * voxel.h — voxelizing a triangle soup (001 §2.5.1, Figs. 2.6-2.7): the cells
 * of a regular grid the surface touches, plus the cells it encloses, as a
 * hexahedral mesh.
 *
 * Graphics assets are rarely watertight, so nothing is asked of the soup:
 * it need not be closed, manifold or consistently oriented.  A cell is
 * touched when a triangle meets it (closed cell, exact separating-axis test;
 * a triangle lying in a grid plane touches the cells on both sides);
 * the cells no path of untouched cells joins to the outside of the grid
 * (a flood fill through shared faces) are enclosed.  A hole in the surface
 * smaller than a cell is bridged by the touched cells around it, so the
 * enclosed cells stay enclosed.  The solid is the touched plus the enclosed
 * cells (or the touched ones alone, a shell, for thin objects); it is split
 * into face-connected components, of which the largest may be kept alone.
 *
 * The grid has res cells along the longest side of the soup's bounding box
 * and as few as cover the box along the others, centred on it.
 *
 * Each pass reports its progress (ep_progress_report, err.h) every
 * EP_PROGRESS_EVERY steps and at its end: "touched cells" over the
 * triangles, "outside cells" over the untouched cells, "components" and
 * "mesh" over the cells.
 */
#ifndef EP_VOXEL_H
#define EP_VOXEL_H

#include <stddef.h>
#include <stdint.h>

#include "mesh.h"

/* Cell states. */
enum { EP_VOXEL_UNKNOWN = 0, EP_VOXEL_SURFACE = 1, EP_VOXEL_OUTSIDE = 2, EP_VOXEL_INSIDE = 3 };

typedef struct ep_voxel {
    int res;            /* cells along the longest side */
    int n[3];           /* cells per axis; cell (i, j, k) is i + n0 (j + n1 k) */
    double origin[3];   /* lower corner of cell (0, 0, 0) */
    double h;           /* cell edge */
    long ncells;
    uint8_t *cell;      /* [ncells] EP_VOXEL_* (allocated by ep_voxel_surface) */
    long nsurface, ninside;
    int *label;         /* [ncells] component of a solid cell (1..ncomp), 0 elsewhere */
    int ncomp;
    long *comp_size;    /* [ncomp + 1] cells per component (entry 0 unused) */
    int largest;        /* component with the most cells */
} ep_voxel;

/* The grid for the soup m (its triangles' vertices) at resolution res; no
 * allocation.  0, or EP_EINPUT: res < 1, no triangles, a soup of zero size,
 * or more cells than int32 ids can number. */
int ep_voxel_setup(ep_voxel *g, const ep_mesh *m, int res);
void ep_voxel_free(ep_voxel *g);

/* Bytes the grid's arrays take (states, fill queue, labels, corner ids),
 * and bytes a mesh of nh cells takes with what a tool derives from it (its
 * boundary), so that a run too large is refused before allocating. */
double ep_voxel_grid_bytes(const ep_voxel *g);
double ep_voxel_mesh_bytes(long nh);

/* Mark the cells the triangles of m touch (g->cell allocated here, states
 * SURFACE or UNKNOWN).  Cost O(nf + cells the triangles' boxes cover).
 * 0 or EP_ECOMPUTE. */
int ep_voxel_surface(ep_voxel *g, const ep_mesh *m);

/* Flood fill from the grid's boundary through untouched cells (OUTSIDE);
 * the rest become INSIDE.  Cost O(ncells).  0 or EP_ECOMPUTE. */
int ep_voxel_fill(ep_voxel *g);

/* Face-connected components of the solid cells (SURFACE, plus INSIDE unless
 * shell): g->label, ncomp, comp_size, largest.  Cost O(ncells).  0 or
 * EP_ECOMPUTE. */
int ep_voxel_components(ep_voxel *g, int shell);

/* The hex mesh of the solid cells (of component comp, or all when comp = 0;
 * ep_voxel_components first): vertices [nv][3] (the cells' corners, in grid
 * order) and hexes [nh][8] (cells in grid order, corners in the order of
 * hex.h), allocated; caller frees.  Cost O(ncells).  0, EP_EINPUT (no cell),
 * EP_ECOMPUTE. */
int ep_voxel_mesh(const ep_voxel *g, int comp, double **vertices, int *nv, int **hexes, int *nh);

/* Whether the closed triangle (a, b, c) meets the closed axis-aligned box
 * centred at c0 with half sizes hs (separating-axis test, 13 axes).
 * Cost O(1). */
int ep_voxel_triangle_box(const double a[3], const double b[3], const double c[3], const double c0[3],
                          const double hs[3]);

#endif
