/*
 * bemgf.h — boundary Green's functions by the boundary element method
 * (MATH.md §6; 000 eq. 2.14): collocation rows of H u = G p assembled straight
 * into the mixed matrix A and the needed right-hand sides (the column swap:
 * H is never held beside G), one dense LU, all columns by blocked
 * back-substitution, then scaled back from the nondimensional system.
 */
#ifndef EP_BEMGF_H
#define EP_BEMGF_H

#include "gf_layout.h"
#include "mesh.h"

typedef struct ep_bemgf_opts {
    double E, nu;        /* homogeneous material; nu <= 0.5 */
    double max_memory;   /* bytes for A, the right-hand sides (and a copy of A with check) */
    int check;           /* diagnostics: rigid-rotation residual, sampled residuals, condition */
    int constant;        /* constant elements (L from ep_gf_layout_triangles) instead of linear */
    int block;           /* GF columns per block of right-hand sides (0: EP_BEMGF_BLOCK) */
    double sink_memory;  /* bytes the sink holds (compression buffers), for the guard */
    double rho;          /* density, for body (kg/m^3) */
    double *body;        /* out, or NULL: [3][3n] the body-force rows (MATH.md §12): row a the
                            response at the rows to the uniform body force rho e_a (linear
                            elements only), by the particular solution below */
    int npoints;         /* interior points (MATH.md §12, 000 eq. 2.22), 0: none */
    const double *points;/* [npoints][3] */
    double *interior;    /* out: [3m (+ 3 with body)][9 npoints] as femgf.h's: the
                            displacement by Somigliana's identity, the stress by Hooke's
                            law on its gradient by the derivative kernels (bem.h);
                            the body rows u_p + u_h, u_h from the homogeneous problem's data */
} ep_bemgf_opts;

/* Interior points a product with the kept boundary data takes (bemgf.c
 * interior_rows): the data (16 x 3m n bytes, 0.9 GB for the rabbit-4
 * sphere) are read once a batch; per thread 8 x 12 B (6n + 3m) bytes. */
#define EP_BEMGF_POINTS 16

/* The default block: a split run's parts (part.h) start on multiples of the
 * block, so a part solves the very blocks of the single run (OpenBLAS splits
 * a solve's columns over its threads, and a column's round-off depends on the
 * split). */
#define EP_BEMGF_BLOCK 128

typedef struct ep_bemgf_stats {
    int n3;                          /* order of A: 3 x boundary vertices */
    double memory;                   /* the guard's estimate, bytes */
    double t_assemble, t_rhs, t_lu, t_solve, t_write; /* seconds: A, the blocks' right-hand sides, ... */
    double lu_flops, solve_flops;    /* 2/3 N^3 and 2 N^2 (right-hand sides) */
    double rotation_residual;        /* max |H u_rot| / max |H||u_rot| (check) */
    double column_residual;          /* max |A xi - b| / |b| over sampled columns (check) */
    double rcond;                    /* reciprocal condition estimate of A (check) */
    double length;                   /* the length scale used */
    double t_interior;               /* seconds for the interior rows */
    double body_data_flops;          /* body rows: their boundary data's, summed in the assembly */
    double t_body_data_cpu;          /* CPU seconds of that sum (bemgf.c body_sum), timed on every 8th
                                        row (less the clock's own cost) and scaled to all rows */
    double t_assemble_cpu;           /* CPU seconds of the assembly's rows (serial solve), that sum included */
    double t_body_solve;             /* body rows: their share of the first block's solve (3 columns more) */
} ep_bemgf_stats;

/* Solve the GF columns of layout L on the boundary surface of m (triangles,
 * outward, closed).  L's rows are the nodes (boundary vertices, or triangles
 * for constant elements) and row_fixed marks Lambda_u0; its columns unit
 * loads at col_vertex, or the loads L->load_* (hat loads of hierarchical
 * constraints, 000 eq. 3.83).
 * out: GF rows through sink, a block of o->block columns at a time, in
 *      order (row q = 3c + a: column c, load direction a; rows[nq][3n]);
 *      stats.
 * Memory: A (twice with check), one block of right-hand sides, o->sink_memory.
 * Cost: assembly O(n nf) kernel integrals, and per block O(n x triangles
 * touching its loads) more for its right-hand sides; LU 2/3 (3n)^3; solve
 * 2 (3n)^2 per right-hand side.
 * Body force (o->body): the particular solution u_p = -|x - x0|^2 b /
 * (2 (lambda + 4 mu)) of mu Lap u + (lambda + mu) grad div u + b = 0
 * (MATH.md §12; x0 the nodes' centroid) leaves the homogeneous problem for
 * u_h = u - u_p with u_h = -u_p on the support and t_h = -sigma(u_p) n on
 * the free surface: its right-hand sides H_:fixed u_p - G~ t_p are summed
 * in the assembly's own kernel integrals (t_p = sigma(u_p) n_t exact at
 * each triangle's corners, so G~ integrates it exactly), and the three
 * columns are three more right-hand sides of the LU.  Rows: u = u_p + u_h
 * at free nodes, t = sigma(u_p) nbar + t_h at fixed ones (nbar the
 * area-weighted mean normal of the node's triangles).
 * Interior rows (o->npoints): every column's boundary data (u and p at
 * all nodes) is kept (3m x 6n), then per point u(x) = G_x p - H_x u
 * (Somigliana, c = 1 inside) and its gradient by the derivative kernels
 * d u* / dx, d p* / dx (ep_bem_triangle_grad: near-singular subdivision
 * near the surface), 12 rows a point, one product with the kept data;
 * the stress by Hooke's law on the gradient; a point whose solid angle says outside is EP_EINPUT.  With the
 * body force, three more rows: u = u_p(x) + u_h(x), u_h by Somigliana's
 * identity on the homogeneous problem's data (t_h = -sigma(u_p) n_t on the
 * free triangles, exact per triangle; u_h = -u_p and t_h solved on the
 * support; u_h solved on the free surface).
 * 0; EP_EINPUT (an interior point outside); EP_ECOMPUTE (memory estimate over o->max_memory, singular A); the
 * sink's status. */
int ep_bemgf_solve(const ep_mesh *m, const ep_gf_layout *L, const ep_bemgf_opts *o, const ep_gf_sink *sink,
                   ep_bemgf_stats *stats);

/* ---- the pieces, for a solver that holds A in parts (lib/mpi/bemmpi) ------
 * The nodes of the system, scaled; the serial solver adds A (At, ipiv) and
 * the check's arrays.  Unknown/known at each boundary row. */
typedef struct ep_bemgf_sys {
    const ep_mesh *m;
    int n, N, M;        /* nodes (boundary vertices, or triangles), 3n, 3m */
    int *bidx;          /* [nv] boundary position or -1 */
    char *fixedb;       /* [n] */
    double *x;          /* [n][3] scaled node positions */
    double len;         /* the length scale */
    double *At;         /* serial: N x N column-major, A transposed (a collocation row contiguous) */
    int *ipiv;          /* serial: [N] LU pivots */
    double *hsum;       /* [n][3][3] sum_{j != i} h_ij of each collocation row (000 eq. B.6) */
    int *ntri_ptr, *ntri; /* triangles touching each node (CSR over nodes) */
    double nu, G;       /* G = E / 2(1 + nu), for the units */
    int constant;       /* constant elements: nodes are triangles, collocated at centroids */
    double rot[3];      /* rotation axis of the rigid-rotation check */
    double *rres;       /* [N] H u_rot (check) */
    double *rscale;     /* [N] sum |H| |u_rot| (check) */
    /* one block's loads by node (ep_bemgf_rhs): node j carries entries
     * head[j], next[e], ... of block column bcol[e] with weight w[e]; tri[ntri]
     * the triangles touching a loaded node, ascending */
    int *head, *next, *bcol, *tri, nbtri, nload, *tmark;
    double *w;
    /* body force and interior rows (MATH.md §12; serial only), NULL/0 without */
    double *bb;         /* N x 3 column-major: the body-force right-hand sides, then rows */
    double *tp;         /* [nf][3 corners][3 directions k][3] sigma(u_p^k) n_t at the corners (physical) */
    double *bn, *br;    /* [nf][4] triangle normals, [n][4] node r = y - x0 (u_p at fixed nodes) for
                           bemgf.c body_sum */
    double *gl;         /* [threads][64][54]: each assembling thread's chunk of g, h (bemgf.c body_sum) */
    double clk;         /* seconds a read of the thread's CPU clock costs (body_sum's timing) */
    double x0[3], rho;  /* the particular solution's centre, the density */
    double pq, pl, pm;  /* u_p^k = -pq rho |r|^2 / (2 G) e_k, sigma^k n = -rho (pl r_k n + pm (e_k r.n + r n_k)) */
    double *sol;        /* interior rows: [3m][6n] each GF row's p (3n), then u (3n), physical */
} ep_bemgf_sys;

/* The nodes of L on m, scaled to the model's diameter (G = 1, 000 §2.2.5),
 * hsum and the triangles of each node; with_matrix: A's N x N too (and the
 * check's arrays when o->check).  0 or EP_ECOMPUTE (out of memory); free s
 * with ep_bemgf_sys_free in every case.  Cost O(n + nf). */
int ep_bemgf_sys_init(ep_bemgf_sys *s, const ep_mesh *m, const ep_gf_layout *L, const ep_bemgf_opts *o,
                      int with_matrix);
void ep_bemgf_sys_free(ep_bemgf_sys *s);

/* The integrals over triangle t for collocation node i (nondimensional): g,
 * h of its corners (linear elements) or of the triangle itself (constant),
 * h of the singular corner left 0; their nodes jb.  Returns the number of
 * nodes, 3 or 1.  Cost O(1) (near-singular: O(depth)). */
int ep_bemgf_integrals(const ep_bemgf_sys *s, int i, int t, int jb[3], double g[3][3][3], double h[3][3][3]);

/* The right-hand sides of L's columns [c0, c0 + nc): B (N x 3nc, column
 * major, leading dimension N), all collocation rows, with s->hsum complete
 * (MATH.md §6).  Workspace: s's block loads.  Cost O(n x triangles touching
 * the loads).  0 or EP_ECOMPUTE (out of memory). */
int ep_bemgf_rhs(ep_bemgf_sys *s, const ep_gf_layout *L, int c0, int nc, double *B);

/* Solved columns [c0, c0 + nc) of B (as ep_bemgf_rhs) back to physical
 * units: a free column's displacement rows times L/G, a fixed column's
 * traction rows times G/L.  Cost O(N nc). */
void ep_bemgf_units(const ep_bemgf_sys *s, const ep_gf_layout *L, int c0, int nc, double *B);

#endif
