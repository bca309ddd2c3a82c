/*
 * bond.h — zones bonded at seams (000 §5.1, eqs. 5.1-5.8 and 5.17-5.22;
 * MATH.md §12 "Multizone"): a multizone model from the GF files of its
 * zones, each computed with its seam fixed (zonesplit, then femcondense or
 * bemsolve with the seam's columns), bonded by continuity of displacement
 * and balance of force at the seam vertices, with contacts (cma.h) and
 * gravity in each zone, and each zone in a frame of its own (a kinematic
 * chain: a bone's rigid motion).
 *
 * The mathematics.  A zone z holds its seam vertices S_z fixed in its
 * reference problem, so its GFs give the seam tractions for given seam
 * displacements u and loads: p = P u + q, P = Xi_SS (the seam's fixed
 * columns at its fixed rows; with a contact set C, whose C^-1 cma.h keeps,
 * P = Xi_SS + Xi_SC C^-1 Xi_CS, the seam's response with C held) and q
 * the seam tractions of the loads, gravity and contacts with the seam held
 * (eqs. 5.1-5.5, 5.11).  Zone z's frame is the rigid motion x -> R_z x +
 * t_z of its rest (model) frame, in which its GFs, loads and answers live.
 * The unknowns are the world displacements d_k of the seam vertices k
 * (one per vertex, however many zones share it), measured from the vertex's
 * position in its first zone's frame; in zone z
 *   u_k = R_z^T d_k + h_k,  h_k = R_z^T (R_o x_k + t_o - t_z) - x_k
 * (continuity, eqs. 5.6, 5.15; h the frames' gap, eqs. 5.21-5.22, zero at
 * rest), and the seam forces balance in the world, Newton's third law
 * (eqs. 5.7, 5.16), with nodal forces a_k p_k (000 eq. 2.5):
 *   sum_z R_z D_z (P_z u_z + q_z) = 0,  D_z = diag(a_k):
 *   (sum_z R_z D_z P_z R_z^T) d = -sum_z R_z D_z (P_z h_z + q_z).
 * When the zones form a chain in the order given (each seam vertex shared
 * by zones j and j + 1 only), the seam matrix is block tridiagonal in the
 * seams (eqs. 5.17-5.20) and is factored so (block LU, [GL96]); otherwise
 * by one dense factor; Cholesky when every zone's GFs are symmetric
 * (femcondense --traction lumped: the seam matrix is then SPD), else LU.
 *
 * Exactness: the nodal force a_k p_k is the FEM's own reaction for
 * femcondense --traction lumped (MATH.md §1), so two such zones bonded
 * equal the GFs of their union on the same mesh to solver precision
 * (tests/cli/zones.sh); for consistent traction and BEM GFs it is the
 * lumped force of 000 eq. 2.5, an approximation of the order of the
 * discretization.
 */
#ifndef EP_BOND_H
#define EP_BOND_H

#include "cma.h"
#include "gfsrc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One zone of a bond. */
typedef struct ep_bond_zone {
    ep_gfsrc *g;        /* borrowed: the zone's GFs */
    ep_cma *c;          /* borrowed, or NULL: its contact set (ep_bond_contacts) */
    int ns;             /* seam vertices */
    int *srow, *scol;   /* [ns] their GF rows and columns */
    int *glob;          /* [ns] their seam-vertex index in the bond (ep_bond.N) */
    double *x;          /* [ns][3] their rest positions (the zone's frame) */
    double *a;          /* [ns] their areas a_k (gfsrc.h) */
    double R[9], t[3];  /* the zone's frame: x -> R x + t (row-major R), identity at rest */
    double *Xss;        /* [3ns][3ns] Xi_SS row-major, (3k + b, 3l + a): component b of the
                           traction at seam vertex k for a unit displacement a at l */
    double *P;          /* [3ns][3ns] P (above): Xss with the contacts' term */
    double *A, *Y;      /* [3ns][3ns] column-major: D P, and the seam matrix's scratch */
    double *Xsc, *Xcs;  /* contacts: [3ns][3s] Xi_SC and [3s][3ns] Xi_CS */
    double *Cinv;       /* contacts: [3s][3s] C^-1 */
    int s;              /* contact nodes when P was formed */
    double *q, *u, *p;  /* [ns][3]: q, and the last solve's seam displacements u and tractions p */
    double *pc;         /* [s][3] the last solve's contact tractions */
    double *cw;         /* [3s] scratch */
    double *gw;         /* [n][3] gravity's response in the zone's frame, or NULL */
} ep_bond_zone;

typedef struct ep_bond {
    int nz;
    ep_bond_zone *z;    /* [nz] */
    int N;              /* seam vertices of the bond, each shared by 2 zones or more */
    int *owner;         /* [N] the first zone holding each (its frame measures d) */
    int *owner_k;       /* [N] its index in that zone's seam */
    int chain;          /* 1: a chain in the order given, block tridiagonal */
    int nblocks;        /* diagonal blocks (chain: the seams, nz - 1; else 1) */
    int *block;         /* [nblocks + 1] offsets in seam vertices */
    double *M;          /* [3N][3N] column-major: the seam matrix, then its block LU */
    int *ipiv;          /* [3N] */
    int stale;          /* M must be formed and factored again (a frame or a contact set changed) */
    int chol;           /* 1: every zone's GFs symmetric (femcondense --traction lumped): M is
                           SPD, its diagonal blocks by Cholesky; 0: LU */
    double beta[3];     /* world gravity (m/s^2), 0: none */
    double *d;          /* [N][3] the last solve's world seam displacements */
    double *work;       /* [3N] */
    int *rows, *cols;   /* scratch for the GF sums: loaded rows and their columns */
    double *loads;      /* and their loads */
    double *zero;       /* contact displacements when none are given */
    int nwork;
} ep_bond;

/* Bond the zones g[nz] (borrowed; they must outlive b), each a zone's GFs
 * with /constraints/seam (zonesplit) and columns at its seam vertices:
 * the seam vertices of different zones are matched by rest position, to
 * 1e-9 of the largest zone's size; every seam vertex must match one of
 * another zone.  Frames at rest, no contacts, no gravity.
 * Cost O(S^2) for S seam vertices in all (the matching), plus each zone's
 * Xi_SS, ns^2 block reads (gfsrc.h).  Returns 0; EP_EUSAGE (fewer than two
 * zones); EP_EINPUT (a zone without a seam, a seam vertex that is not a
 * fixed row with a GF column, one that coincides with no other zone's:
 * the message names the file and the vertex, 1-based); EP_ECOMPUTE
 * (memory).  Free b with ep_bond_free in every case (safe on a zeroed
 * ep_bond). */
int ep_bond_init(ep_bond *b, ep_gfsrc *const *g, int nz);
void ep_bond_free(ep_bond *b);

/* Zone z's frame: the rigid motion x -> R x + t (R row-major, a rotation)
 * of its rest frame; its loads, contacts and answers stay in its own frame.
 * The seam matrix is formed and factored again at the next solve.
 * Cost O(1).  0, or EP_EINPUT (z out of range; R not a rotation to 1e-9). */
int ep_bond_frame(ep_bond *b, int z, const double R[9], const double t[3]);

/* Zone z's contact set: c (borrowed, on zone z's GFs, its nodes set by
 * ep_cma_set/add/remove), or NULL for none.  Call again after every change
 * of c's node set: P_z is formed from c's C^-1 at the next solve (O(ns^2 s
 * + s^2 ns) flops).  0, or EP_EINPUT (z out of range, c on other GFs). */
int ep_bond_contacts(ep_bond *b, int z, ep_cma *c);

/* World gravity beta[3] (m/s^2) on every zone (000 eq. 2.38; each zone's
 * /gf/body turned into its frame: R_z^T beta), NULL or zero: none.
 * 0, or EP_EINPUT (a zone without /gf/body). */
int ep_bond_gravity(ep_bond *b, const double beta[3]);

/* Solve the bonded problem.  vbar[z] (NULL, or vbar[z] NULL: no loads):
 * [n_z][3] tractions at zone z's free nodes, its frame (entries at fixed,
 * seam and contact nodes ignored); uc[z]: [s_z][3] the displacements of
 * its contact nodes (zones with contacts).  Out: v[z] (v NULL, or v[z]
 * NULL: not wanted) [n_z][3], zone z's solution in its frame: the
 * displacements at its free nodes and (bonded, no longer held) at its
 * seam vertices, the tractions at its contact nodes and its support; b->d
 * the world seam displacements, each zone's u, p (seam) and pc (contacts).
 * Cost: after a frame or contact change, the seam matrix, sum_z (3 ns_z)^2
 * 3 flops to form and 2/3 (3N)^3 (chain: about 14/3 (3n)^3 a seam of n
 * vertices) to factor; then O(N^2 + sum_z ns_z (k_z + ns_z + s_z)) for
 * k_z loaded nodes, plus for each v wanted one weighted GF sum over
 * k_z + ns_z + s_z columns (gfsrc.h).  0, EP_ECOMPUTE (the seam matrix is
 * singular: a zone neither supported nor bonded). */
int ep_bond_solve(ep_bond *b, const double *const *vbar, const double *const *uc, double *const *v);

#ifdef __cplusplus
}
#endif

#endif
