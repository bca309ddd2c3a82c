/*
 * select.h — vertex selections: which vertices are fixed (the reference
 * boundary conditions), or which carry Green's function columns.
 *
 * A selection is the union of up to three sources (DESIGN.md, command-line
 * conventions): a file of 1-based vertex ids (Vega .bou), an axis-aligned box,
 * and a mesh group (Gmsh physical group or Vega set, by tag or name).
 */
#ifndef EP_SELECT_H
#define EP_SELECT_H

#include "mesh.h"

typedef struct ep_select {
    const char *ids_file; /* borrowed: --fixed-ids FILE (or --col-ids ...), or NULL */
    int has_box;          /* a box was given */
    double box[6];        /* x0,y0,z0,x1,y1,z1 */
    const char *region;   /* borrowed: a group tag or name, or NULL */
} ep_select;

/* 1 if the selection names any source. */
int ep_select_given(const ep_select *s);

/* Parse "x0,y0,z0,x1,y1,z1" of option opt into s->box (x0 <= x1 etc.).
 * 0 or EP_EUSAGE. */
int ep_select_parse_box(ep_select *s, const char *opt, const char *arg);

/* Vertices of m that s selects: *ids ascending, unique, 0-based (allocated;
 * caller frees), *n of them.  what names them in messages ("fixed vertex").
 * An id outside 1..nv is an error naming file and line; a region the mesh
 * lacks is a usage error; an empty result is EP_EINPUT ("no fixed vertex
 * selected").  Cost O(nv + file size). */
int ep_select_apply(const ep_select *s, const ep_mesh *m, const char *what, int **ids, int *n);

/* The same among the boundary vertices of m, for what = "column" (messages
 * say "column vertex 7", "no boundary vertex selected for columns"): the id
 * file must name boundary vertices (EP_EINPUT otherwise), a box or group
 * contributes its boundary vertices. */
int ep_select_boundary(const ep_select *s, const ep_mesh *m, const char *what, int **ids, int *n);

/* The vertices v < nv with mask[v] != 0, ascending, as a new array (*ids
 * NULL and *n 0 when there are none).  0 or EP_ECOMPUTE. */
int ep_select_mask_ids(const char *mask, int nv, int **ids, int *n);

/* Read a .bou-style id file (1-based ids, blank/comma separated, '#'
 * comments) into 0-based ids checked against nv: *ids (allocated; caller
 * frees).  Cost O(file size).  0, EP_EINPUT naming file and line, EP_EIO. */
int ep_select_read_ids(const char *path, int nv, int **ids, int *n);

#endif
