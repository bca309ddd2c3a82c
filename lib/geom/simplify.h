/*
 * simplify.h — a coarse base mesh from a fine closed surface by
 * quadric-error edge collapses that keep its topology (Garland & Heckbert
 * 1997; the base domain James fits to a scan before subdividing onto it,
 * 000 §3.2.6, App. D.1).
 *
 * Every collapse is checked before it is made: the link condition (the two
 * ends of the edge share exactly the two vertices opposite it: genus and
 * manifoldness are kept, Dey et al. 1999), no face normal turns by more than
 * a bound (no folds), and no new angle falls below a bound (no slivers).
 * Edge flips that raise the smallest angle of nearly coplanar face pairs
 * then even out what the collapses left.  Why this is written here and not
 * taken from meshoptimizer, CGAL or OpenMesh: doc/DECISIONS.md.
 */
#ifndef EP_SIMPLIFY_H
#define EP_SIMPLIFY_H

#include "mesh.h"

/* Smallest angle (degrees) a collapse may create, unless the faces it
 * replaces already had a smaller one (then it may not make it worse). */
#define EP_SIMPLIFY_MIN_ANGLE 20.0
/* Largest turn (degrees) of a face normal in one collapse or flip. */
#define EP_SIMPLIFY_MAX_TURN 60.0

typedef struct ep_simplify_opts {
    int target_nv;    /* stop at this many vertices (at least 4) */
    double min_angle; /* EP_SIMPLIFY_MIN_ANGLE */
    double max_turn;  /* EP_SIMPLIFY_MAX_TURN */
} ep_simplify_opts;

typedef struct ep_simplify_report {
    int collapses;      /* edges collapsed */
    int flips;          /* edges flipped afterwards */
    int link_refused;   /* candidate collapses refused by the link condition */
    int shape_refused;  /* ... by the normal or the angle bound */
    double max_error;   /* largest quadric error of a collapse (squared length) */
    double min_angle;   /* smallest angle of the result, degrees */
    int parts;          /* connected parts (each keeps 4 vertices or more: a tetrahedron) */
} ep_simplify_report;

void ep_simplify_opts_default(ep_simplify_opts *o, int target_nv);

/* Build base, the closed, consistently oriented surface m simplified to
 * about o->target_nv vertices.
 *   Inputs     m: a surface that passes ep_mesh_check_closed (ep_repair_surface)
 *   Outputs    base: vertices (a subset of m's, in m's order, moved),
 *              triangles and boundary data; no groups or constraints (they
 *              name vertices of m); set up here, released by ep_mesh_free
 *              (also after a failure); *r: what was done
 *   Workspace  allocates O(nv + nf) internally
 *   Cost       O(nf log nf)
 *   Returns    0 (also when the bounds stop it above the target: r and
 *              base->nv say where); EP_EINPUT when m is not a closed
 *              manifold; EP_EUSAGE for a target below 4; EP_ECOMPUTE. */
int ep_simplify_build(ep_mesh *base, const ep_mesh *m, const ep_simplify_opts *o, ep_simplify_report *r);

#endif
