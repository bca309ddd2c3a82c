/*
 * surfdist.h — how far and how good a surface fitted to a reference is: the
 * quality report loopsub prints and stores as attributes of /mesh (issue 15):
 * two-sided Hausdorff and RMS distances between the surfaces (sampled, as a
 * fraction of the reference's bounding-box diagonal), the smallest and the
 * median triangle angle, the triangles whose normal opposes the reference's
 * nearest normal, and the genus of both.
 */
#ifndef EP_SURFDIST_H
#define EP_SURFDIST_H

#include "closest.h"
#include "mesh.h"

typedef struct ep_surfdist {
    double hausdorff;  /* max of the two one-sided maxima, / diagonal */
    double rms;        /* max of the two one-sided area-weighted RMS, / diagonal */
    double hausdorff_to_ref, hausdorff_from_ref; /* one-sided, / diagonal */
    double rms_to_ref, rms_from_ref;
    long samples;      /* points sampled on both surfaces together */
    double min_angle, median_angle; /* degrees, over the corners of the surface */
    int opposed;       /* triangles whose normal opposes the reference's nearest face normal */
    int folded;        /* triangles whose normal opposes a neighbour's (ep_surfdist_folds) */
    long thin;         /* triangles with an angle under EP_SURFDIST_MIN_ANGLE */
    int genus, ref_genus; /* summed over the connected parts */
    long intersecting;    /* pairs of triangles of the surface that cross (a mesher refuses them) */
} ep_surfdist;

/* Compare surface m with the reference ref (both closed; tm and tref their
 * closest-point hierarchies).  Each surface is sampled at its vertices and
 * at the centroids of an s x s split of each triangle, s^2 about
 * density x (triangle area / mean triangle area of the denser surface),
 * so both surfaces get about density x max(nf) samples.
 *   Inputs     m, tm, ref, tref (borrowed); density >= 1
 *   Outputs    *d
 *   Cost       O(samples log nf) (OpenMP), O(nf) memory
 *   Returns    0; EP_EINPUT when a surface has a boundary or a non-manifold
 *              edge (genus undefined); EP_ECOMPUTE (memory). */
int ep_surfdist_compare(ep_surfdist *d, const ep_mesh *m, const ep_closest *tm, const ep_mesh *ref,
                        const ep_closest *tref, int density);

/* Genus of a closed surface, summed over its connected parts:
 * sum (2 - chi_i) / 2 = parts - (V - E + F) / 2.  Cost O(nf log nf).
 * 0, EP_EINPUT (not a closed manifold) or EP_ECOMPUTE. */
int ep_surfdist_genus(const ep_mesh *m, int *genus);

/* Pairs of triangles of m that cross each other: triangles sharing an edge
 * are not tested, triangles sharing a vertex only away from it (TetGen
 * refuses a surface with any such pair: "faces are intersecting").
 *   Inputs     m; tm: its hierarchy (borrowed); only: NULL (every
 *              triangle), or [nf] flags: the pairs with a flagged triangle
 *   Outputs    *npairs; pairs (if not NULL): [npairs][2] triangle ids,
 *              first < second (allocated; caller frees)
 *   Cost       O(nf log nf) typical (box overlaps in the hierarchy); with
 *              only, O(flagged log nf)
 *   Returns    0 or EP_ECOMPUTE. */
int ep_surfdist_intersections(const ep_mesh *m, const ep_closest *tm, const char *only, int **pairs, long *npairs);

/* Smallest corner angle, degrees, of a surface a BEM and TetGen can use
 * (issue 37, class 9): loopsub --base writes none below it. */
#define EP_SURFDIST_MIN_ANGLE 5.0

/* Folded triangles of the surface m: those whose normal opposes (negative
 * dot product) the sum of the unit normals of the triangles around their
 * corners (those sharing an edge with it count twice, itself not at all):
 * the surface turns back over itself there.  A sharp ridge or a thin spike
 * is not a fold (the neighbours on both sides sum to a normal within 90
 * degrees); a triangle or a fan turned over is.  The dragon scan itself has
 * 68 of 49,998.
 *   Outputs    *count; flag (if not NULL, [nf], the caller's): 1 for each
 *              folded triangle, else 0
 *   Cost       O(nf + nv)
 *   Returns    0 or EP_ECOMPUTE. */
int ep_surfdist_folds(const ep_mesh *m, char *flag, int *count);

/* Unit normals of the triangles, fn [nf][3] (0 for a degenerate one), and
 * at each vertex their sum over its triangles, vn [nv][3] (both the
 * caller's).  Cost O(nf + nv). */
void ep_surfdist_unit_normals(const ep_mesh *m, double *fn, double *vn);

/* The fold test of ep_surfdist_folds for one triangle: its unit normal n
 * and the sums a, b, c at its corners (ep_surfdist_unit_normals, which
 * include n).  1 when folded.  Cost O(1). */
int ep_surfdist_folded(const double *n, const double *a, const double *b, const double *c);

/* Smallest corner angle of the triangle (a b c), degrees (0 for a
 * degenerate one).  Cost O(1). */
double ep_surfdist_min_angle(const double *a, const double *b, const double *c);

/* Smallest and median corner angle of the triangles, degrees.  Cost
 * O(nf log nf).  0 or EP_ECOMPUTE. */
int ep_surfdist_angles(const ep_mesh *m, double *min_deg, double *median_deg);

#endif
