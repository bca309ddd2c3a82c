/*
 * repair.h — surface clean-up: what a scanned or exported triangle surface
 * needs before the tools that require a closed, consistently oriented
 * 2-manifold (loopsub's simplification, bemsolve, the TetGen interior).
 *
 * Repairs only what has one right answer: coincident vertices are welded
 * (distance relative to the bounding-box diagonal), faces that repeat a
 * vertex are dropped, a face stored twice keeps one copy, a face stored with
 * both orientations whose edges are closed without it (a fin of zero
 * thickness, as in the dragon scan: edge (23470 23486) with 4 faces) is
 * dropped, a zero-area face with three distinct vertices (a cap) is removed
 * by splitting its neighbour across the long edge at the middle vertex, each
 * connected part is oriented consistently and outward (inward when it lies
 * inside an odd number of other parts: a cavity), and vertices on no face are
 * dropped.  What would need a guess is refused with EP_EINPUT, naming the
 * file and the element: an edge with three or more distinct faces, an open
 * boundary (with the number of boundary edges), a vertex where two sheets
 * touch, a non-orientable part, a non-finite coordinate.
 *
 * Ids in messages and in the change log are 1-based input ids.
 */
#ifndef EP_REPAIR_H
#define EP_REPAIR_H

#include <stddef.h>

#include "mesh.h"

/* Default weld distance, as a fraction of the bounding-box diagonal: far
 * below any feature a mesh resolves, far above the rounding of coordinates
 * printed with 9 or more digits. */
#define EP_REPAIR_WELD_TOL 1e-8

/* A face is of zero area below this fraction of the squared diagonal (the
 * threshold of ep_mesh_count_degenerate). */
#define EP_REPAIR_ZERO_AREA 1e-14

/* What a repair changed. */
typedef struct ep_repair_report {
    int welded;     /* vertices merged into a coincident one */
    int degenerate; /* faces dropped because they repeat a vertex (after welding) */
    int duplicate;  /* repeated copies of a face dropped (one copy kept) */
    int fins;       /* faces dropped as fins (a face and its reverse, closed without them) */
    int caps;       /* zero-area faces removed by splitting the neighbour across the long edge */
    int flipped;    /* faces reversed to orient their part */
    int unused;     /* vertices on no face dropped */
    int parts;      /* connected parts of the result */
    char *log;      /* one line per change, '\n'-terminated (allocated; ep_repair_report_free) */
    size_t len, cap;
} ep_repair_report;

void ep_repair_report_init(ep_repair_report *r);
void ep_repair_report_free(ep_repair_report *r);

/* Repair the surface of m in place (see the header comment), so that
 * ep_mesh_check_closed passes and every part encloses positive volume.
 *   Inputs     m: a surface (m->tets NULL); weld_tol: weld distance as a
 *              fraction of the bounding-box diagonal (EP_REPAIR_WELD_TOL)
 *   Outputs    m: vertices renumbered in their input order without the
 *              welded and unused ones; triangles, groups, /constraints/fixed,
 *              boundary and vertex areas updated; *r: counts and log
 *              (replaced; r initialized by the caller)
 *   Workspace  allocates O(nv + nf) internally
 *   Cost       O(nf log nf) plus O(parts x nf) when there are several parts
 *   Returns    0; EP_EINPUT for what cannot be repaired (m then unchanged),
 *              or a multiresolution mesh (m->level set) that would need a
 *              change; EP_ECOMPUTE (memory). */
int ep_repair_surface(ep_mesh *m, double weld_tol, ep_repair_report *r);

/* What a tool that needs a closed surface does with the mesh it read: a
 * plain surface is cleaned up (ep_repair_surface, EP_REPAIR_WELD_TOL); the
 * boundary of a tet mesh and a multiresolution surface (m->level set) keep
 * their numbering and are only checked (ep_mesh_check_closed).
 *   Outputs    m; *r (initialized by the caller) what was changed
 *   Cost       O(nf log nf)
 *   Returns    0; EP_EINPUT (what ep_repair_surface or the check refuses);
 *              EP_ECOMPUTE. */
int ep_repair_closed_surface(ep_mesh *m, ep_repair_report *r);

/* One line (no newline) saying what r changed, e.g. "welded 2 vertices,
 * dropped 1 duplicated face, reversed 480 faces" or "nothing to repair". */
void ep_repair_summary(const ep_repair_report *r, char *buf, size_t cap);

#endif
