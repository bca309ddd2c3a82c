/*
 * elastic.h — a hyperelastic body of tets or hexes for full-space
 * simulation (MATH.md §13; 001 §2.1.9-2.1.10): its energy E(u), internal
 * force f(u) = dE/du and tangent stiffness K(u) = df/du under any law of
 * law.h, per element materials (heterogeneous), the mass M and the
 * reference stiffness K(0), all three matrices on one sparse pattern over
 * the unknowns (the fixed vertices' DOFs removed), ready for CHOLMOD.
 *
 * Integration as stvk.h: a tet one point (exact for StVK), a hex the
 * 3 x 3 x 3 Gauss rule.  The assembly scatters element by element in
 * colors (no two elements of a color share a vertex), so no atomics are
 * needed and every sum runs in the same order whatever the thread count:
 * the results do not depend on it.
 *
 * Vectors u, f are full-length [3nv] (3v + axis); the matrices are over the
 * unknowns of map (map[v] = 3 * rank of v, -1 for a fixed vertex).
 */
#ifndef EP_ELASTIC_H
#define EP_ELASTIC_H

#include <cholmod.h>

#include "law.h"
#include "material.h"
#include "mesh.h"
#include "stvk.h"

typedef struct ep_elastic {
    const ep_mesh *m;          /* borrowed */
    const ep_material *mat;    /* borrowed */
    ep_law_kind law;
    const int *el;             /* the mesh's elements (borrowed), k corners each */
    int k, ne;
    int *map, ndof;            /* DOF map of the unknowns */
    ep_stvk geo;               /* element geometry (tets: volumes and shape gradients) */
    cholmod_common c;
    cholmod_sparse *K;         /* upper triangle over the unknowns: K(u) of the last ep_elastic_eval with a tangent */
    double *Mx, *K0x;          /* [nnz(K)]: the mass and K(0) on K's pattern */
    int *slot;                 /* [ne][k][k][3]: position in K->x of (row 3 map[a], column 3 map[b] + j), or -1 */
    int *cptr, *celem, ncolor; /* elements by color: celem[cptr[c] .. cptr[c+1]) */
    double *ework;             /* [ne] element energies of the last evaluation */
    double t_eval;             /* seconds in ep_elastic_eval so far */
    long neval;                /* its calls */
} ep_elastic;

/* Set up the body: DOF map from fixed[nv] (NULL: no fixed vertex), element
 * geometry, the pattern of K, its slots and colors, the mass (consistent or
 * lumped) and K(0).  Cost O(ne) element evaluations, memory O(nnz(K) + 48 ne)
 * (tets; hexes 192 ne ints of slots).  0 or EP_ECOMPUTE. */
int ep_elastic_init(ep_elastic *b, const ep_mesh *m, const ep_material *mat, ep_law_kind law, const char *fixed,
                    int lumped_mass);
void ep_elastic_free(ep_elastic *b);

/* At u [3nv]: the energy *W (may be NULL), f(u) into f [3nv] (may be NULL;
 * fixed vertices get their reaction), and with tangent != 0 K(u) into
 * b->K's values.  Cost O(ne) law evaluations (27 per hex), about 3000 flops
 * a tet with the tangent.  0 or EP_ECOMPUTE (out of memory). */
int ep_elastic_eval(ep_elastic *b, const double *u, double *W, double *f, int tangent);

/* y = S x for a symmetric matrix S on K's pattern (values Sx: b->K->x,
 * b->Mx or b->K0x), x and y over the unknowns [ndof].  Cost O(nnz). */
void ep_elastic_symv(const ep_elastic *b, const double *Sx, const double *x, double *y);

/* Full-length [3nv] to unknowns [ndof] and back (fixed entries 0). */
void ep_elastic_gather(const ep_elastic *b, const double *full, double *x);
void ep_elastic_scatter(const ep_elastic *b, const double *x, double *full);

#endif
