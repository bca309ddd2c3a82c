/*
 * fit.h — subdivision levels fitted onto a reference surface: a base mesh
 * subdivided by Loop's rules, every level moved onto a scan (000 §3.2.6,
 * App. D.1: a base mesh fitted to the scanned surface, then subdivided onto
 * it; 003, "multiresolution mesh issues").
 *
 * Each level (the base first) is fitted in a few steps of Hoppe et al.'s
 * mesh optimization with fixed connectivity (SIGGRAPH 1993): the scan's
 * vertices pull on their closest points of the level and the level's
 * vertices on their closest points of the scan, both along the scan's
 * normal (point-to-plane) with EP_FIT_MU of it in every direction, against
 * springs that keep the vertices spread; closest points are taken among
 * faces turned the same way (normal-compatible pairs, as in ICP), so the two
 * sides of a thin part do not pull on each other.  Then every vertex is
 * placed on the scan (ep_fit_project).  The next level starts from Loop's
 * edge rule on the fitted level, its even vertices where they were.
 */
#ifndef EP_FIT_H
#define EP_FIT_H

#include "closest.h"
#include "mesh.h"

/* Farthest a vertex may move along its limit normal, in mean lengths of its
 * edges: far enough to cross a thin feature's skin, not to reach another
 * part of the model. */
#define EP_FIT_RAY_REACH 3.0

/* Steps of the fit per level; its spring constant in mean triangle areas of
 * the level; the share of a data residual counted in every direction (the
 * rest along the scan normal).  Chosen on the dragon scan, base 150, L = 3
 * (doc/DECISIONS.md): point-to-point data (mu = 1) fold the genus-2 test
 * surface at its creases (test_fit); mu 0.1-0.5 do not; springs of 0.1 and
 * more pull the surface off the dragon's thin parts. */
#define EP_FIT_STEPS 4
#define EP_FIT_SPRING 0.01
#define EP_FIT_MU 0.3
/* Rounds of smoothing the corners of crossing triangles (fit.c, untangle). */
#define EP_FIT_UNTANGLE 30
/* The quality pass after the finest level (fit.c, settle; issue 37, class
 * 9): corners of folded triangles and of triangles with an angle under
 * EP_FIT_AIM_ANGLE degrees are moved, one at a time, to the best of a few
 * places near them (their ring's centroid projected onto the reference, in
 * the tangent plane or as it is; steps towards each neighbour and along the
 * normal), for at most EP_FIT_SETTLE rounds.  A move may take the surface
 * around the vertex no farther from where the projection left it than a
 * bound: EP_FIT_SETTLE_TOL of the reference's bounding-box diagonal at
 * first, doubled for the corners of what is still bad whenever a round
 * moves nothing; a patch still stuck when the bounds pass the diagonal is
 * smoothed, at most EP_FIT_SETTLE_SMOOTH times.  What is left folded or
 * under EP_SURFDIST_MIN_ANGLE is refused. */
#define EP_FIT_AIM_ANGLE 10.0
#define EP_FIT_SETTLE 60
#define EP_FIT_SETTLE_TOL 0.001
#define EP_FIT_SETTLE_SMOOTH 6

typedef struct ep_fit_report {
    long projected;    /* vertices moved to their closest point */
    long along_normal; /* vertices moved along the limit normal instead */
    long kept;         /* vertices left at their subdivision position */
    long untangled;    /* vertices moved off the reference so that no triangles cross */
    long crossing;     /* pairs of triangles still crossing (0 unless EP_FIT_UNTANGLE ran out) */
    long settled;      /* vertices moved by the quality pass (on the reference or off it) */
    int folded;        /* triangles left folded (ep_surfdist_folds), finest level */
    long thin;         /* triangles left with an angle under EP_SURFDIST_MIN_ANGLE, finest level */
} ep_fit_report;

/* Move every vertex of the closed surface m onto the reference ref: to its
 * closest point among the faces turned like its Loop limit normal; where
 * there is none, or moving there would fold a triangle of m (its normal
 * reversed), along the limit normal to the nearest crossing of the
 * reference facing the same way (within EP_FIT_RAY_REACH edge lengths);
 * where that fails too, the vertex stays (counted as kept: reported, not
 * hidden).
 *   Inputs     m: closed, consistently oriented; ref: hierarchy of the
 *              reference (borrowed)
 *   Outputs    m->vertices moved, boundary data derived; *r counts added
 *   Workspace  allocates O(nv + nf) internally
 *   Cost       O(nv log nf_ref) (OpenMP)
 *   Returns    0 or EP_ECOMPUTE (memory). */
int ep_fit_project(ep_mesh *m, const ep_closest *ref, ep_fit_report *r);

/* Loop limit normal (unit) of every vertex of the closed surface m
 * (Loop 1987: tangents sum cos(2 pi i / n) p_i and sin(2 pi i / n) p_i
 * over the ordered one-ring).  n: [nv][3] (caller's).  Cost O(nf).
 * 0, EP_EINPUT (not a closed manifold) or EP_ECOMPUTE. */
int ep_fit_limit_normals(const ep_mesh *m, double *n);

/* Fit the base m and `levels` Loop levels onto ref (header comment), each
 * level then untangled, the finest also settled (EP_FIT_AIM_ANGLE, moves
 * bounded from EP_FIT_SETTLE_TOL of the reference's diagonal).
 *   Inputs     m: closed, consistently oriented base (ep_simplify_build);
 *              ref, tref: the reference and its hierarchy (borrowed)
 *   Outputs    m: the finest level, /mesh/level and /mesh/parents set
 *              (V_l = V_{l-1} + E_{l-1}); *r: the last projection's counts,
 *              what the quality pass moved and left
 *   Workspace  allocates O(nv + nf) and one sparse factor of 3 nv unknowns
 *   Cost       per level EP_FIT_STEPS x (closest points both ways,
 *              O((nv + nv_ref) log nf), and a sparse Cholesky of a surface
 *              pattern); the finest level dominates; the quality pass
 *              O(nf) a round (at most EP_FIT_SETTLE) plus O(degree^3)
 *              per candidate place of each bad triangle's corners
 *   Returns    0; EP_ECOMPUTE (memory, a failed factorization, or a finest
 *              level with a folded triangle or an angle under
 *              EP_SURFDIST_MIN_ANGLE: the message gives the counts, r too,
 *              and m is left as the pass left it);
 *              EP_EINPUT when a level is not a closed manifold. */
int ep_fit_levels(ep_mesh *m, int levels, const ep_mesh *ref, const ep_closest *tref, ep_fit_report *r);

#endif
