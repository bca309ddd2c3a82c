/*
 * select.h — the reference boundary conditions: which vertices are fixed.
 *
 * A selection is the union of up to three sources (DESIGN.md, command-line
 * conventions): a file of 1-based vertex ids (Vega .bou), an axis-aligned box,
 * and a mesh group (Gmsh physical group or Vega set, by tag or name).
 */
#ifndef EP_SELECT_H
#define EP_SELECT_H

#include "mesh.h"

typedef struct ep_fixed_spec {
    const char *ids_file; /* --fixed-ids FILE, or NULL */
    int has_box;          /* --fixed-box given */
    double box[6];        /* x0,y0,z0,x1,y1,z1 */
    const char *region;   /* --fixed-region TAG, or NULL */
} ep_fixed_spec;

/* 1 if the spec names any source. */
int ep_fixed_given(const ep_fixed_spec *s);

/* Parse "x0,y0,z0,x1,y1,z1" into s->box (x0 <= x1 etc.).  0 or EP_EUSAGE. */
int ep_fixed_parse_box(ep_fixed_spec *s, const char *arg);

/* Vertices selected on m: ascending, unique, 0-based, *fixed owned by the
 * caller.  An id outside 1..nv is an error naming file and line; a region
 * the mesh lacks is a usage error; an empty result is EP_EINPUT ("no fixed
 * vertex").  Cost O(nv + file size). */
int ep_fixed_select(const ep_mesh *m, const ep_fixed_spec *s, int **fixed, int *nfixed);

/* Read a .bou-style id file (1-based ids, blank/comma separated, '#'
 * comments) into 0-based ids checked against nv. */
int ep_fixed_read_ids(const char *path, int nv, int **ids, int *n);

#endif
