/*
 * embed.h — binding a render mesh to a simulation mesh (001 §2.12, §3.13;
 * 002 §3.3.1 eq. 3.1): each render vertex p takes the simulation element
 * containing it and that element's interpolation weights, barycentric for a
 * tet, trilinear for a hex, so the render mesh follows the simulation mesh
 * as u_render(p) = sum_a w_a u(x_a) — a sparse matrix W, render vertices x
 * simulation vertices, and for a reduced basis U the render basis
 * Ubar = W U (001 §2.12): a renderer then needs no simulation mesh.
 *
 * A vertex outside every element binds to the nearest element with its
 * weights extrapolated (barycentric or trilinear coordinates beyond the
 * element, 002 eq. 3.1); both kinds of weights sum to 1 and reproduce affine
 * fields exactly, inside and outside (trilinear ones on parallelepipeds and
 * wherever the local coordinates are found, see ep_hex_local).
 *
 * Elements are found through a uniform grid of buckets over the simulation
 * mesh (each element listed in the buckets its bounding box meets); the
 * nearest element to an outside vertex by rings of buckets around it.
 */
#ifndef EP_EMBED_H
#define EP_EMBED_H

typedef struct ep_embed {
    int nr;          /* render vertices */
    int k;           /* weights per render vertex: 4 (tets) or 8 (hexes) */
    int *element;    /* [nr] containing or nearest element (0-based) */
    int *col;        /* [nr][k] simulation vertex of each weight: row i of W */
    double *w;       /* [nr][k] weights, summing to 1 */
    double *dist;    /* [nr] distance to the element, 0 inside */
    int noutside;    /* render vertices outside every element */
    double maxdist;  /* largest dist */
} ep_embed;

/* Bind the np render points p[np][3] to the simulation mesh of vertices
 * x[nv][3] and elements elem[ne][k] (k = 4: tets, positive volume; k = 8:
 * hexes in hex.h's corner order).  limit: largest distance allowed from a
 * point to its element.
 *   Workspace  the bucket grid, about 4 ne ints (allocated internally)
 *   Cost       O(ne + np) for vertices inside or near the mesh
 *   Returns    0; EP_EINPUT naming the first render vertex (1-based) farther
 *              than limit from every element; EP_ECOMPUTE (memory). */
int ep_embed_build(ep_embed *b, const double *x, int nv, const int *elem, int ne, int k, const double *p, int np,
                   double limit);
void ep_embed_free(ep_embed *b);

/* How far the binding extrapolates: the weight of largest magnitude over
 * all render vertices (returned, with its sign), its render vertex
 * (*vertex, 0-based), and the number of render vertices with a weight
 * outside [-bound, 1 + bound] (*count).  Inside an element weights lie in
 * [0, 1]; a vertex far outside gets weights of hundreds (002 eq. 3.1
 * extrapolated), which amplify the element's motion.  Cost O(k nr). */
double ep_embed_extrapolation(const ep_embed *b, double bound, int *count, int *vertex);

/* How deep the point p lies in element e of the mesh x[nv][3], elem[ne][k]
 * (k = 4 or 8): the smallest barycentric coordinate (tets) or 1 - max |xi|
 * (hexes), in *inside; negative outside, 0 on the element's boundary.
 * Returns 0, or EP_ECOMPUTE for a degenerate tet or a hex whose local
 * coordinates Newton does not find (ep_hex_local).  Cost O(1). */
int ep_embed_depth(const double *x, const int *elem, int k, int e, const double p[3], double *inside);

/* Ubar = W U for r fields: U[r][3nv], Ubar[r][3nr] (interleaved x, y, z).
 * Cost 6 k nr r flops. */
void ep_embed_apply(const ep_embed *b, const double *U, int nv, int r, double *Ubar);

/* Largest error of W reproducing the affine field f(x) = A x + c (A, c from
 * seed) at the render points, relative to the field's range over them.
 * Cost O(k nr). */
double ep_embed_affine_error(const ep_embed *b, const double *x, const double *p, unsigned seed);

#endif
