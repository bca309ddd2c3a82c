/*
 * pointshell.h — nested multiresolution pointshells with inward normals,
 * their binding into a reduced simulation mesh and their point-based
 * BD-tree (001 §3.6-3.9, eqs. 3.6-3.8, 3.12; MATH.md §11).
 *
 * The level set T.  A closed, consistently oriented manifold (a scan that
 * passes through itself is accepted: its points lie on it): its zero set
 * is the surface itself, and the projection onto T is the exact closest
 * point (one Newton step x <- x - phi grad phi of the exact signed
 * distance, |grad phi| = 1, lands there).  A soup (or a thin part) with an
 * offset D > 0: T is {d = D} of the exact unsigned distance d, and the
 * projection is Newton's x <- c + D (x - c) / |x - c| with c the closest
 * point, repeated until |d(x) - D| < eps.  Components of {d = D} enclosed by
 * another (the inner offset of a closed soup, cavities) are removed: a
 * point is kept when one step of a grid cell outward from it (away from c)
 * reaches the region of d > D connected to the box's faces, flood-filled
 * on the unsigned field of distfield.h at the given resolution (what 001
 * §3.8.1 does on the marching-cubes surface S, here on the field itself).
 *
 * Normals (inward, 001 Fig. 3.6): closed input, minus the angle-weighted
 * pseudonormal of the closest feature (pseudonormal.h), normalized;
 * offset, (c - x) / D, the direction to the closest point (the pseudonormal
 * of the offset surface's closest feature).
 *
 * Orderings (EP_POINTSHELL_*):
 *   repulsion  001 §3.8.1: level 1 has n1 stratified, area-weighted samples;
 *              level l adds n1 4^(l-1) (001: n_(i+1) = 4 n_i), the coarser
 *              ones frozen, so levels 1..l hold N_l = n1 (4^l - 1) / 3;
 *              each step moves each free point by eta sum_y g(|x-y|/R)
 *              (x-y)/|x-y|, g(t) = 2t^3 - 3t^2 + 1 (t < 1), neighbours from a
 *              hash grid of cell R, then projects it onto T; R = 2 s_l, eta =
 *              s_l / 8 (the step clamped to s_l / 4), with s_l = sqrt(2 A /
 *              (sqrt 3 N_l)) the nominal (hexagonal) spacing of N_l points
 *              on the area A of T: R halves from level to level.
 *   farthest   001 §3.9.1: N_L area-weighted samples projected onto T,
 *              ordered farthest point first; levels 1..l are the first N_l.
 *   vertices   the input's vertices (closed input only), farthest first;
 *              the last level takes all of them.
 *
 * Nested point tree (001 §3.9): tree level l holds a node for every point
 * of repulsion levels <= l; a node of level l+1 hangs under the node of
 * the nearest point of levels <= l (its own point's node for a copy).
 * Nodes are numbered level by level, the children of a node contiguous.
 *
 * Binding (001 eqs. 3.6-3.8): with a simulation mesh (tets or hexes,
 * embed.h) and its basis U [r][3nv]: U_s = sum_v phi_v(P_s) U_v (3 x r),
 * F_s,j = sum_v U_v,j grad phi_v(P_s)^T, dN_s[:, j] = (tr F_s,j) N_s -
 * F_s,j^T N_s (cof(I + F) N to first order; 001 eq. 3.8 has F_s,j N_s).
 * The same binding is kept per element (ps->bvert .. grad): each point's
 * element record and weights, the record's corners and shape-function
 * gradients, the corners' rows U_v, so that U_s = sum_c w_sc U_vc and the
 * element's displacement gradient of mode j is G_j = sum_c U_vc,j grad
 * phi_c^T (what ep_pscontact evaluates: a contact area has far fewer
 * vertices than points).
 * BD-tree (eq. 3.12): R_i,0 = max_{s in subtree(i)} |P_s - P_i|,
 * a_ij = max_{s in subtree(i)} |U_s,j - U_i,j|, so that
 * |p_s - p_i| <= R_i,0 + sum_j a_ij |q_j| for every q.
 *
 * Contact layer (doc/MODULES.md): geometry, no files.
 */
#ifndef EP_POINTSHELL_H
#define EP_POINTSHELL_H

#include "mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { EP_POINTSHELL_REPULSION = 0, EP_POINTSHELL_FARTHEST = 1, EP_POINTSHELL_VERTICES = 2 };

/* Names of the orderings, indexed by EP_POINTSHELL_*. */
extern const char *const ep_pointshell_order_name[3];

/* Most levels (n1 (4^L - 1) / 3 points must stay far below INT_MAX). */
#define EP_POINTSHELL_MAX_LEVELS 12

typedef struct ep_pointshell {
    int S;            /* points */
    int L;            /* levels */
    int *level_start; /* owned: [L+1]; repulsion level l (1-based) is points [level_start[l-1], level_start[l]) */
    double *P;        /* owned: [S][3] rest positions */
    double *N;        /* owned: [S][3] unit inward normals */
    int *parent;      /* owned: [S] the nearest point of the levels above (-1 on level 1) */
    double *spacing;  /* owned: [L] nominal spacing s_l of each level */
    double offset;    /* 0: the zero set of a closed surface; else the offset D */
    double area;      /* area of T (estimated for an offset) */
    int order;        /* EP_POINTSHELL_* */
    /* the nested tree */
    int nn;           /* nodes: sum over l of level_start[l] */
    int *node_start;  /* owned: [L+1]; tree level l is nodes [node_start[l-1], node_start[l]) */
    int *node_point;  /* owned: [nn] */
    int *node_first;  /* owned: [nn] first child (nodes of the last level: -1) */
    int *node_count;  /* owned: [nn] children */
    double *R0;       /* owned: [nn] rest radius */
    /* the binding (r = 0 without one) */
    int r;
    double *U;        /* owned: [S][3][r] displacement modes U_s, row c = coordinate */
    double *dN;       /* owned: [S][3][r] normal corrections dN_s (NULL in a shell read from a file or
                         taken by ep_pscontact_adopt: ep_pointshell_dn makes them again from the records) */
    double *a;        /* owned: [nn][r] BD-tree coefficients a_ij */
    double max_embed; /* largest distance of a point from its element */
    /* the binding through the mesh (r > 0): U_s = sum_c w_sc U_v(c) (001
     * eq. 3.6), so the runtime moves the element's vertices, not the point */
    int k;            /* corners of an element: 4 (tets) or 8 (hexes) */
    int nbv;          /* bound vertices: the corners of the elements holding points */
    int nbe;          /* element records: a tet holding points, or one a point for hexes */
    int *bvert;       /* owned: [nbv] the simulation mesh's vertex (0-based) */
    double *Uv;       /* owned: [nbv][3][r] its rows of the basis U_v */
    int *belem;       /* owned: [S] the point's element record */
    double *bw;       /* owned: [S][k] the point's weights phi_c(P_s) */
    int *corner;      /* owned: [nbe][k] the record's corners (bound vertices) */
    double *grad;     /* owned: [nbe][k][3] grad phi_c (a tet's constants; a hex's at its point) */
} ep_pointshell;

/* How the points are made (ep_pointshell_sample). */
typedef struct ep_pointshell_opts {
    int levels;     /* L >= 1 */
    int first;      /* n1 >= 1: points on level 1 */
    int order;      /* EP_POINTSHELL_* */
    double offset;  /* 0: closed input, the zero set; > 0: the offset D */
    int res;        /* cells a side of the flood grid (offset only) */
    int iterations; /* repulsion steps a level */
    unsigned long seed;
    int threads;    /* OpenMP; < 1: all */
} ep_pointshell_opts;

/* Points a run of o takes (the last level's count; for vertices, nv). */
double ep_pointshell_count(const ep_pointshell_opts *o, int nv);

/* Bytes a run takes at most, so that a run too large is refused first:
 * the points, normals, tree and binding (r columns), the grids. */
double ep_pointshell_bytes(const ep_pointshell_opts *o, int nv, int r);

/* The points, normals and levels of m's surface (triangles m->triangles
 * over m->vertices) by o.
 *   Inputs     m: finite triangles (closed, consistently oriented when
 *              o->offset is 0: checked, ep_mesh_check_closed).
 *   Outputs    ps->S, L, level_start, P, N, spacing, offset, area, order
 *              (allocated; ep_pointshell_free in every case).
 *   Workspace  the closest-point hierarchy, pseudonormals (O(nf)); the
 *              hash grid (O(S)); with an offset the unsigned field at
 *              o->res and its flood mask.
 *   Cost       repulsion: O(iterations S log nf); farthest, vertices:
 *              O(S^2) distance updates (the cheap route for small shells).
 *   Returns    0; EP_EINPUT: no triangles, an open or non-manifold surface
 *              without an offset (the defect named), a surface of zero area,
 *              levels or first out of range, an offset surface on which no
 *              point survives; EP_ECOMPUTE (memory). */
int ep_pointshell_sample(ep_pointshell *ps, const ep_mesh *m, const ep_pointshell_opts *o);

/* The nested point tree: parents, nodes and rest radii R_i,0.
 * Cost O(S log S + S L).  0 or EP_ECOMPUTE. */
int ep_pointshell_tree(ep_pointshell *ps);

/* Bind the points to the simulation mesh sim (tets or hexes) with the
 * basis U [r][3 sim->nv]: ps->U, dN, a, the element records k .. grad
 * (allocated), max_embed.  A point
 * farther than limit from every element is refused.  Needs the tree.
 *   Cost       O(S (k + r)) plus embed's O(ne + S); O(S L r) for a_ij.
 *   Returns    0; EP_EINPUT naming the first point (1-based) farther than
 *              limit; EP_ECOMPUTE. */
int ep_pointshell_bind(ep_pointshell *ps, const ep_mesh *sim, const double *U, int r, double limit);

/* The normal corrections dN_s (eq. 3.8, the first-order cofactor:
 * column j = (tr G_j) N_s - G_j^T N_s, G_j = sum_c U_vc,j grad phi_c^T)
 * of every point from the element records (Uv, corner, grad, belem) into
 * dN [S][3][r] (caller's): what bind stores in ps->dN, the same bits.
 * Cost O(S k 3r). */
void ep_pointshell_dn(const ep_pointshell *ps, double *dN);

/* Nearest-neighbour distance of every point of levels <= l among the
 * points of levels <= l (1-based l): nn [level_start[l]] (caller's).
 * Brute force over a hash grid.  Cost O(N_l).  0 or EP_ECOMPUTE. */
int ep_pointshell_spacing(const ep_pointshell *ps, int l, double *nn);

void ep_pointshell_free(ep_pointshell *ps);

#ifdef __cplusplus
}
#endif

#endif
