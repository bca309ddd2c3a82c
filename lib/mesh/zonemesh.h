/*
 * zonemesh.h — one zone of a multizone model (000 §5.1; MATH.md §12
 * "Multizone"): the elements of a volumetric mesh with one region tag, as a
 * mesh of its own, and its seam, the vertices it shares with elements of
 * the other regions.  Each zone's GFs are computed with its seam fixed
 * (femcondense, bemsolve); the runtime bonds the zones at their seams
 * (bond.h).
 */
#ifndef EP_ZONEMESH_H
#define EP_ZONEMESH_H

#include "mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The zone of region tag `tag` of the volumetric mesh m (tets or hexes with
 * m->region) into z, set up here: its elements in file order, its vertices
 * renumbered in ascending original order (old id of new vertex v:
 * (*old_id)[v], allocated; caller frees; old_id may be NULL), the region
 * tags, the material's elements (m->material, when m has one), then
 * ep_mesh_complete.  z->seam: the zone's vertices that an element of
 * another region also uses.  z->fixed: the seam and the vertices of the
 * zone with support[v] != 0 (support: m->nv flags, or NULL for none).
 * Cost O(nv + elements).  Returns 0; EP_EINPUT when m has no region tags,
 * no element has the tag, or the zone shares no vertex with another
 * region; EP_ECOMPUTE (memory).  Free z with ep_mesh_free in every case. */
int ep_zonemesh_extract(ep_mesh *z, const ep_mesh *m, int tag, const char *support, int **old_id);

#ifdef __cplusplus
}
#endif

#endif
