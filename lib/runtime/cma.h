/*
 * cma.h — the capacitance matrix algorithm a contact runtime runs on
 * precomputed Green's functions (MATH.md §7; 000 §2.2–2.3, §3.3, Ch. 4).
 *
 * Nodes are GF rows (boundary vertices).  The reference problem has the
 * free nodes loaded by tractions and the fixed ones held; a contact switches
 * a node set S of free nodes to prescribed displacements.  With E the
 * identity columns of S, C = -E^T Xi E (3s x 3s) and
 *   v = v0 + (E + Xi E) C^-1 E^T v0,  v0 = Xi (I - E E^T) vbar - E E^T vbar
 * (000 eqs. 2.35–2.37): v holds displacements at free nodes and tractions at
 * S and at the fixed nodes.
 *
 * The GFs come through gfsrc.h, dense or wavelet compressed alike; inverses
 * for node sets that come back are kept by cma_cache.h.
 *
 * The symmetric form (GFs with g->symmetric: femcondense --traction lumped,
 * dense or wavelet compressed).  Such GFs are Xi = S^-1 diag(a) over the
 * free nodes (MATH.md §1 "one boundary relation", the lumped load a_j e_a;
 * S the condensed stiffness with the support held, symmetric positive
 * definite), so with A = S^-1 restricted to the free nodes,
 *   C = -E^T A E diag(a_S) = -Ahat D,  Ahat = E^T A E (a principal
 *   submatrix of an SPD matrix: SPD),  C^-1 = -D^-1 Ahat^-1,
 * and Cholesky applies (MATH.md §7).  Stored GFs are symmetric only to
 * their error (solver residual, float32, wavelet thresholding), so every
 * operation here uses one block of each pair: Ahat(p, q) = Xi(p, q) / a_q
 * for node ids p < q, its transpose for p > q, sym(Xi(p, p)) / a_p on the
 * diagonal, i.e. the GFs Xihat(p, q) = Ahat(p, q) a_q (ep_cma_matrix).
 * Lossy GFs (gf-wavelet files: c->both) average the two blocks of each
 * pair instead, Ahat(p, q) = (Xi(p, q) / a_q + Xi(q, p)^T / a_p) / 2:
 * their thresholding error is far from symmetric, and one block of each
 * pair kept it (at eps 0.05 it made 17 of 24 footprints' Ahat
 * indefinite and put contact displacements 0.7 relative off the
 * uncompressed GFs': doc/DECISIONS.md).  C^-1 is kept as the Cholesky factor L of Ahat (EP_CMA_CHOLESKY), not as an
 * explicit inverse: from scratch costs dpotrf's (3s)^3 / 3 flops, against
 * (3s)^3 for dpotrf + dpotri and 2 (3s)^3 for LU + inverse; an addition
 * borders L (one triangular solve, 3 (3s)^2 flops), a deletion is a rank-3
 * update of L's trailing block, and a contact solve two triangular solves
 * where the explicit inverse takes one product.  A pair is read once (half
 * the blocks of a from-scratch gather), of lossy GFs twice.
 *
 * Lossy GFs can still leave Ahat with eigenvalues below zero (at higher
 * thresholds): then C^-1 is kept as Ahat = L D L^T (EP_CMA_LDLT), L unit
 * lower with identity 3x3 diagonal blocks and D block diagonal with one
 * 3x3 pivot a node, factored without pivoting.  That costs the Cholesky
 * factor's flops and keeps its cheap additions (against 2 (3s)^3 for LU
 * and the inverse); a deletion factors the rest again.  Ahat is an SPD
 * matrix perturbed by the GFs' error, and a factor whose growth max_r
 * sum_j |L(r, j)|^2 ||D_j|| exceeds 1e3 max_i |Ahat_ii| (the backward
 * error's bound, MATH.md §7) is not kept: LU then.
 * Once a set's Ahat was found indefinite, from scratch goes to the LDL^T
 * straight away, skipping a Cholesky attempt that would fail.  With
 * consistent traction
 * Xi = S^-1 M_s mixes neighbours and C is not of this form: LU and the
 * explicit inverse, as for the BEM's GFs.
 */
#ifndef EP_CMA_H
#define EP_CMA_H

#include "gfsrc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What ep_cma.Cinv holds for the set. */
enum ep_cma_form {
    EP_CMA_INVERSE,  /* C^-1, with a pending update (the LU path's form) */
    EP_CMA_CHOLESKY, /* L: Ahat = L L^T (the symmetric form) */
    EP_CMA_LDLT      /* L: Ahat = L D L^T, D's pivots in ep_cma.D (lossy GFs) */
};

/* The contact node set and the inverse capacitance matrix. */
typedef struct ep_cma {
    ep_gfsrc *g;    /* borrowed */
    int s, cap;
    int *S;         /* [s] rows */
    double *Cinv;   /* [3s][3s] row-major with leading dimension ld = 3 cap, so a
                       node is added or removed in place: C^-1, or a factor L
                       (L(i, j) = Cinv[j ld + i], i >= j: LAPACK's
                       column-major lower triangle) */
    int ld;
    int form;       /* enum ep_cma_form: what Cinv holds */
    double *D;      /* [cap][18]: with EP_CMA_LDLT node j's pivot D_j (3x3,
                       row-major) at D[18 j], D_j^-1 at D[18 j + 9] */
    double scale;   /* max |Ahat_ii| over the set, for the LDL^T's growth test;
                       0: not known (found from the LDL^T when needed) */
    int indefinite; /* a set's Ahat was indefinite: from scratch goes to LDL^T */
    int pending;    /* C^-1 = Cinv + U V: an addition leaves its rank-3 update
                       pending; the next update applies it, a removal in the
                       same pass as its own downdate (EP_CMA_INVERSE only) */
    double *U, *V;  /* [3s][3] and [3][ld], zero where nothing is pending */
    double *work;   /* update and solve workspace */
    int *cols;      /* [2n + 1] scratch */
    struct ep_worker *helper; /* NULL: updates on one thread */
    int sym;        /* 1: the symmetric form (above) applies */
    int both;       /* 1: it averages both blocks of a pair (lossy GFs, above) */
    double *gv;     /* [n][3] the body-force response (A^-1 B) beta of ep_cma_gravity,
                       or NULL: no body force */
    double beta[3]; /* that gravity */
    const char *factor; /* how the last ep_cma_set (or ep_cma_restore) held C^-1:
                           "cholesky", "ldlt" (the factors) or "lu" (the
                           inverse); updates may since have changed the form:
                           c->form tells what Cinv holds now */
} ep_cma;

/* An empty node set on the GFs g (borrowed: g must outlive c), with room
 * for a few nodes; it grows as nodes are added.  0 or EP_ECOMPUTE; free c
 * with ep_cma_free in every case (safe on a zeroed ep_cma). */
int ep_cma_init(ep_cma *c, ep_gfsrc *g);
void ep_cma_free(ep_cma *c);

/* Updates (ep_cma_add, ep_cma_remove) of the explicit inverse on 1 thread
 * (the default) or 2: a spinning helper thread (worker.h) shares each pass
 * over C^-1, taking rows from the last one back while the caller takes them
 * from the first on; evenly matched, each keeps the same rows in its own
 * cache from one update to the next.  The factor's updates (3 (3s)^2
 * flops) run on the caller.  0 or EP_ECOMPUTE (no thread). */
int ep_cma_threads(ep_cma *c, int threads);

/* The GFs as stored, LU from scratch, whatever g->symmetric says: for
 * comparison (rtcheck --factor lu).  Call before the first ep_cma_set. */
void ep_cma_use_lu(ep_cma *c);

/* C^-1 from scratch for nodes[s] (free nodes with GF columns, distinct).
 * Symmetric form: Ahat from s(s+1)/2 blocks (lossy GFs: s^2, both of each
 * pair) and its Cholesky factor
 * (dpotrf, (3s)^3 / 3 flops), kept as C^-1; should Ahat not be positive
 * definite (lossy GFs), its LDL^T by node blocks (the same flops), and
 * should that grow (above), LU on the same C.  Otherwise C from s^2
 * blocks, LU (dgetrf) and the inverse (dgetri): 2 (3s)^3 flops.  c->form
 * and c->factor name the one used.  0, EP_EINPUT (a node without a
 * column, a repeated node) or EP_ECOMPUTE (C singular to working
 * precision: reciprocal condition under 1e-12, by dgecon's estimate or
 * the Cholesky factor's diagonal; an LDL^T whose pivots' ratio is that
 * small leaves the verdict to LU). */
int ep_cma_set(ep_cma *c, const int *nodes, int s);

/* X[3s][3s] (row-major, leading dimension ld) = E^T Xi E for nodes[s], the
 * GFs this c uses (the symmetric form's Xihat when c->sym): what a direct
 * solve must use to be compared.  Cost s^2 block reads. */
void ep_cma_matrix(ep_cma *c, const int *nodes, int s, double *X, int ld);

/* Add one node.  Inverse: the sequential update of 000 eqs. 2.64–2.70
 * with the corrected C_Delta = I - B_DD - D_DD (MATH.md §7), O(s^2) flops
 * in one pass over C^-1.  Factor: L bordered by the node's row block
 * (L w = Ahat(S, d), then the 3x3 Cholesky of Ahat(d, d) - w^T w, or with
 * the LDL^T l = D^-1 w and the pivot Ahat(d, d) - w^T l), 3 (3s)^2 flops;
 * should the Cholesky's block not be positive definite (lossy GFs), L
 * becomes the LDL^T (O(s^2), once; the explicit inverse should that grow),
 * and should the LDL^T's new row grow
 * past its bound, the explicit inverse ((3s)^3 / 3 + (3s)^3 flops,
 * once), which the update above then takes.  Either reads 2s + 1 blocks
 * (the symmetric form s + 1; of lossy GFs 2s + 1).  0,
 * EP_EINPUT or EP_ECOMPUTE (C_Delta singular, as lossy GFs can make it:
 * the node's GFs a combination of the set's; the set is then unchanged). */
int ep_cma_add(ep_cma *c, int node);

/* Remove one node.  Inverse: the block-inverse downdate C1^-1 = P - q d^-1 r
 * of the partition of C^-1 (the same identity 000 §2.3.5 applies by
 * re-adding negated columns); the last node of S takes the removed one's
 * place.  Factor: the node's rows and columns leave L and its trailing
 * block takes their rank-3 part back (a Cholesky update by rotations);
 * the nodes after it in S move up one place.  Cost O(s^2).  The LDL^T's
 * set is factored again without the node (as ep_cma_set: (3s)^3 / 3 flops
 * and its block reads): the rank-3 update of an indefinite L D L^T is
 * not backward stable.  0, EP_EINPUT (not in S) or EP_ECOMPUTE (the set
 * left is singular: it is then empty). */
int ep_cma_remove(ep_cma *c, int node);

/* Gravity beta[3] (m/s^2) on every later solve (000 eq. 2.38; MATH.md
 * §12): the reference solution gains (A^-1 B) beta (gfsrc.h,
 * ep_gfsrc_gravity) before the capacitance update, so ep_cma_solve's v0 =
 * Xi vbar_rest + (A^-1 B) beta - E E^T (...) and its answer is the switched
 * problem's under the body load.  beta NULL or zero: none.  The inverse
 * and its updates do not change.  Cost 9n.  0, EP_EINPUT (GFs without
 * /gf/body) or EP_ECOMPUTE. */
int ep_cma_gravity(ep_cma *c, const double beta[3]);

/* The interior state (gfsrc.h ep_gfsrc_interior: displacement and stress
 * at the file's interior points, MATH.md §12) of the solution
 * ep_cma_solve gave for vbar and pS: the same loads (vbar at the free
 * nodes outside S, pS at S) and ep_cma_gravity's gravity.  out[np][9].
 * Cost O(n) + 27 np (k + s + 1) flops for k loaded nodes.  0 or EP_EINPUT
 * (GFs without interior rows). */
int ep_cma_interior(ep_cma *c, const double *vbar, const double *pS, double *out);

/* Solve the switched problem: displacements uS[s][3] prescribed at S and
 * tractions vbar[n][3] at the other free nodes (NULL: none; entries at S and
 * at fixed nodes are ignored), under ep_cma_gravity's body force if set.
 * Out: pS[s][3], the tractions at S, and v[n][3]
 * (NULL: not wanted), the whole solution (000 §3.3.4).  Cost O(s^2 + s k)
 * for k loaded nodes, plus one weighted GF sum for v. */
void ep_cma_solve(ep_cma *c, const double *uS, const double *vbar, double *pS, double *v);

/* C^-1 copied out compactly: out[3s][3s], row-major.  Cost O(s^2); from
 * the Cholesky factor 2 (3s)^3 / 3 flops (L^-1, then L^-T L^-1), from the
 * LDL^T (3s)^3 / 3 + (3s)^3 (L^-T times D^-1 L^-1). */
void ep_cma_inverse(const ep_cma *c, double *out);

/* The reciprocal 1-norm condition number of C for the current set,
 * 1 / (||C||_1 ||C^-1||_1), exact: C from its blocks (ep_cma_matrix) and
 * C^-1 by ep_cma_inverse.  A check, not for a runtime's loop.  0 or
 * EP_ECOMPUTE (memory). */
int ep_cma_rcond(ep_cma *c, double *rcond);

/* What c holds for its set, compactly, for a cache (cma_cache.h):
 * out[3s][3s] row-major, C^-1 (the pending update applied) or a factor in
 * Cinv's layout, the LDL^T's pivots D_j in its diagonal blocks.  Cost
 * O(s^2). */
void ep_cma_save(const ep_cma *c, double *out);

/* Make nodes[s] the node set, in that order, with state[3s][3s] that
 * ep_cma_save gave out for them in the given form (enum ep_cma_form).
 * Cost O(s^2).  0, EP_EINPUT (a form out of range; a factor, but c has
 * not the symmetric form: its updates would read other blocks) or
 * EP_ECOMPUTE (memory, or an LDL^T pivot that will not invert: the set is
 * then empty). */
int ep_cma_restore(ep_cma *c, const int *nodes, int s, int form, const double *state);

/* Contact force f = a_S^T p_S (000 eq. 4.12).  Cost O(s). */
void ep_cma_force(const ep_cma *c, const double *pS, double f[3]);

/* Vertex pressure mask of free node i (000 §4.2.1, eqs. 4.22–4.24):
 * rho_j = (1 - |x_j - x_i| / radius)_+ over free nodes with columns,
 * normalized so a^T rho = 1; radius 0 gives the single-node mask 1/a_i.
 * Out: idx[k] (rows), rho[k]; k returned (idx, rho hold n entries).
 * Cost O(n). */
int ep_cma_mask(const ep_gfsrc *g, int i, double radius, int *idx, double *rho);

/* Masked vertex stiffness K_i = (sum_j rho_j Xi(i, j))^-1 (000 eq. 4.29),
 * K[3b + a].  Cost k block reads (ep_gfsrc_block).  0 or EP_ECOMPUTE
 * (singular). */
int ep_cma_mask_stiffness(ep_gfsrc *g, int i, int k, const int *idx, const double *rho, double K[9]);

#ifdef __cplusplus
}
#endif

#endif
