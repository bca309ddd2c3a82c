/*
 * mesh.h — tetrahedral, hexahedral and triangle meshes: the in-memory form of
 * /mesh.
 *
 * One struct serves volumetric models (tets or hexes set; triangles are their
 * outward boundary) and surface models (tets and hexes NULL; triangles
 * given).  A volumetric model holds one kind of element: tets or trilinear
 * hexahedra, never both (a conforming mix needs pyramids, which elastoprep
 * does not have); per-element data (region, material) is indexed by element,
 * whichever the kind.  The boundary of a hex mesh is its faces used once,
 * each quad (a, b, c, d) stored as the two triangles (a, b, c), (a, c, d) at
 * positions 2q and 2q + 1, so the quads can be recovered from the triangles;
 * its vertex areas are those of the bilinear quads.  Readers live
 * in meshio.h (text formats) and model.h (any file, .h5 included); this
 * module derives what every tool needs: boundary surface, boundary vertex
 * list, vertex areas, and the checks on them (one tet's geometry: tet.h).
 * All index arrays are 0-based.
 */
#ifndef EP_MESH_H
#define EP_MESH_H

#include <stdint.h>

#include "material.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A named set of vertices: a Gmsh physical group or a Vega *SET. */
typedef struct ep_group {
    char name[64];  /* physical name or set name, "" if none */
    int tag;        /* Gmsh physical tag; -1 for Vega sets */
    int dim;        /* dimension of the elements that define it (0..3) */
    int nv;
    int *v;         /* vertex ids, ascending, owned */
} ep_group;

/* The highest subdivision level a vertex may have (/mesh/level is int8;
 * loopsub refuses to refine past it, gfcompress --constraint-level to name
 * more). */
#define EP_MESH_MAX_LEVEL 126

typedef struct ep_mesh {
    char source[1024];    /* file it came from, for messages */
    int nv;
    double *vertices;     /* [nv][3] */
    int ne;
    int *tets;            /* [ne][4], positive volume; NULL for surfaces */
    int *region;          /* [ne] region tags, or NULL */
    int nh;
    int *hexes;           /* [nh][8] trilinear hexahedra, corner order of hex.h; NULL if none */
    int nf;
    int *triangles;       /* [nf][3] surface, outward orientation */
    int nb;
    int *boundary;        /* [nb] surface vertex ids, ascending */
    double *vertex_area;  /* [nb] a_j = integral of hat function j (MATH.md §1) */
    int8_t *level;        /* [nv] or NULL: level a vertex first appears */
    int *parents;         /* [nv][2] or NULL: edge endpoints of odd vertices */
    int ngroups;
    ep_group *groups;
    ep_material *material; /* owned; set by readers whose format carries one */
    int nfixed;
    int *fixed;           /* [nfixed] /constraints/fixed of an elastoprep file, or NULL */
    int nseam;
    int *seam;            /* [nseam] /constraints/seam, or NULL: the vertices a zone shares
                             with the zones bonded to it (zonemesh.h; 000 §5.1), ascending;
                             also in fixed */
} ep_mesh;

/* Largest coordinate magnitude a mesh may have: volumes and stiffness take
 * products of three coordinates, which must stay within double range. */
#define EP_MESH_MAX_COORD 1e100
/* Smallest size (bounding-box diagonal) a mesh may have.  Masses, modes and
 * their products take powers of the size that underflow on tiny models:
 * the beam3 pipeline (moddesc, polycoef, femcondense, bemsolve, rtcheck)
 * runs 1e-45 across and fails from 1e-50 with messages that name no size
 * ("exceeds the rank", "eigen decomposition failed", "a rigid motion
 * free", "zero area", from 1e-110 "non-positive volume 0") (issue 37,
 * class 8).  Readers refuse a smaller model, naming its size. */
#define EP_MESH_MIN_SIZE 1e-40

void ep_mesh_init(ep_mesh *m);
void ep_mesh_free(ep_mesh *m);

/* What every reader does after parsing (ep_meshio_read, ep_model_load):
 * refuse a mix of tets and hexes, check the elements, extract the boundary
 * surface of a tet mesh given without one and of every hex mesh (its
 * triangles are always derived), derive boundary and vertex areas.  0 or
 * the checks' status. */
int ep_mesh_complete(ep_mesh *m);

/* Elements of a volumetric mesh: *k corners each (4 tets, 8 hexes, 0 for a
 * surface), returned with their count (0 for a surface).  Cost O(1). */
int ep_mesh_elements(const ep_mesh *m, const int **el, int *k);

/* Number of volume elements, tets or hexes (0 for a surface).  Cost O(1). */
int ep_mesh_nelements(const ep_mesh *m);

/* Check every hex: indices in range, det J > 0 at every corner (not inverted
 * or degenerate, ep_hex_quality), and when boxes is set an axis-aligned box
 * in the corner order of hex.h (what a .veg CUBIC element is).  The error
 * names the element (1-based, file order).  Cost O(nh).  0 or EP_EINPUT. */
int ep_mesh_check_hexes(const ep_mesh *m, int boxes);

/* The boundary quads of a hex mesh: quad q is (a, b, c, d) from the
 * triangles 2q, 2q + 1 = (a, b, c), (a, c, d).  Cost O(1). */
void ep_mesh_quad(const ep_mesh *m, int q, int v[4]);

/* Check every tet: indices in range and volume > 0.  The error names the
 * element (1-based, file order) and its volume.  0 or EP_EINPUT. */
int ep_mesh_check_tets(const ep_mesh *m);

/* The corners of tet e of m: x[k] = vertex tets[4e + k].  Cost O(1). */
void ep_mesh_tet_corners(const ep_mesh *m, int e, double x[4][3]);

/* Derive the outward boundary surface of a tet or hex mesh (faces used by
 * exactly one element; a hex's quads split as the header says), replacing
 * m->triangles, then the boundary data.  A face shared by more than two
 * elements is an error.  Cost O(ne log ne).  0, EP_EINPUT or EP_ECOMPUTE. */
int ep_mesh_extract_boundary(ep_mesh *m);

/* Set m->boundary (vertices used by triangles, ascending) and m->vertex_area
 * (a_j = the integral of the hat function of vertex j: the sum of adjacent
 * triangle areas / 3; for a hex mesh the integral of the bilinear hat over
 * the adjacent quads, by the 4 x 4 Gauss rule, exact for planar quads).
 * Cost O(nf + nv). */
int ep_mesh_derive_boundary_data(ep_mesh *m);

/* Check that the triangles form a closed, consistently oriented 2-manifold:
 * every edge used exactly twice, once in each direction, and no triangle
 * repeating a vertex.  Topology only (see ep_mesh_count_degenerate for
 * geometry).  The error names the edge or triangle.  Cost O(nf log nf). */
int ep_mesh_check_closed(const ep_mesh *m);

/* Number of triangles of (near) zero area, relative to the model size; *first
 * receives the first one (-1 if none).  Cost O(nf). */
int ep_mesh_count_degenerate(const ep_mesh *m, int *first);

/* Replace a tet mesh by its boundary surface alone, renumbering the surface
 * vertices 0..nb-1 in ascending original order (tets and regions dropped,
 * groups reduced to their surface vertices).
 * old_id (may be NULL) receives the original id of each new vertex (owned by
 * the caller).  Cost O(nv + nf). */
int ep_mesh_to_surface(ep_mesh *m, int **old_id);

/* Make m the closed surface a surface tool works on: a volume mesh's
 * boundary, or a surface without its unreferenced vertices
 * (ep_mesh_to_surface; a multiresolution mesh keeps its hierarchy, and is
 * refused if that would renumber it), then ep_mesh_check_closed.  Cost
 * O(nv + nf log nf).  0, EP_EINPUT (the message names m->source, or the
 * edge) or EP_ECOMPUTE. */
int ep_mesh_closed_surface(ep_mesh *m);

/* Area of surface triangle t of m.  Cost O(1). */
double ep_mesh_triangle_area(const ep_mesh *m, int t);

/* Total surface area and enclosed volume (divergence theorem; meaningful for a
 * closed outward surface).  Cost O(nf). */
void ep_mesh_surface_measures(const ep_mesh *m, double *area, double *volume);

/* Check that the fixed vertices (fixed[v] != 0) hold every connected part of
 * the mesh, joined through tets or hexes (surface 0) or triangles (surface 1): each part
 * needs three fixed vertices not on one line, or it keeps a rigid motion and
 * the reference problem is singular.  The error names a vertex of the loose
 * part.  Cost O(elements + nv).  0, EP_EINPUT or EP_ECOMPUTE. */
int ep_mesh_check_support(const ep_mesh *m, const char *fixed, int surface);

/* Unfix the fixed vertices off the boundary surface (fixed[v] = 0 where v is
 * not in m->boundary): a surface model (the BEM) has no interior.  Out:
 * *dropped, how many.  Workspace nv bytes.  Cost O(nv).  0 or EP_ECOMPUTE. */
int ep_mesh_unfix_interior(const ep_mesh *m, char *fixed, int *dropped);

/* Check that no two surface vertices coincide (within 1e-12 of the model
 * size): an unwelded seam looks closed to a viewer but splits the BEM model.
 * Cost O(nb log nb).  0 or EP_EINPUT naming both vertices. */
int ep_mesh_check_distinct(const ep_mesh *m);

/* Bounding-box diagonal length, the model length scale.  Cost O(nv). */
double ep_mesh_diameter(const ep_mesh *m);

/* The element size: the mean length of the volume elements' edges (6 a tet,
 * 12 a hex; a shared edge counted once per element), or of the triangles'
 * for a surface; 0 for a mesh without elements.  Cost O(elements). */
double ep_mesh_edge_length(const ep_mesh *m);

/* A spatially coherent order of vertices and elements (Morton order of the
 * positions and of the element centroids): element loops that scatter into
 * per-vertex arrays then touch a moving front of them, not the whole array.
 * out: vrank[nv] (position of each vertex in the order), eorder[nelements]
 * (elements in order; NULL: not wanted).  Cost O(n log n).  0 or EP_ECOMPUTE. */
int ep_mesh_spatial_order(const ep_mesh *m, int *vrank, int *eorder);

/* Group whose tag (if spec is an integer) or name equals spec, or NULL. */
const ep_group *ep_mesh_find_group(const ep_mesh *m, const char *spec);

#ifdef __cplusplus
}
#endif

#endif
