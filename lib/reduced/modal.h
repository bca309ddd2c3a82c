/*
 * modal.h — vibration modes, modal derivatives and the reduced basis
 * (MATH.md §2-3; 001 §2.8).
 *
 * One ep_modal holds the reduced stiffness and mass (fixed vertices removed,
 * or none for a free-flying model) and the factor of K that both the eigen
 * solve (shift-invert) and the derivative solves reuse; a free-flying
 * model's K is singular, and its factor is that of K held at six DOFs
 * (3-2-1), whose solutions are made M-orthogonal to the rigid modes (MATH.md
 * §3).  Vectors are full-length [3nv], zero at fixed vertices.
 */
#ifndef EP_MODAL_H
#define EP_MODAL_H

#include <cholmod.h>

#include "material.h"
#include "mesh.h"
#include "stvk.h"

/* Right-hand sides per derivative solve for npairs derivatives (moddesc
 * --block's default): npairs in 4 ceil(npairs / 512) blocks of at most 128
 * columns, so two threads (or four parts of a split run) share them evenly
 * and the solves' products are wide (doc/DECISIONS.md).  It depends on
 * npairs alone: a split run's parts and any thread count see the same
 * blocks. */
int ep_modal_block(int npairs);

typedef enum { EP_MODAL_BASIS_PCA, EP_MODAL_BASIS_GRAM_SCHMIDT, EP_MODAL_BASIS_LINEAR, EP_MODAL_BASIS_POD } ep_modal_basis_kind;

/* The kinds' names as options and files spell them: "pca", "gram-schmidt",
 * "linear", "pod" (snapshots alone: ep_modal_basis_snapshots); ep_modal_basis_from_name: 0, or EP_EINPUT for another name (no
 * message: the caller knows where the name came from). */
const char *ep_modal_basis_name(ep_modal_basis_kind kind);
int ep_modal_basis_from_name(const char *name, ep_modal_basis_kind *kind);

/* The eigen solver of ep_modal_eigs: the block Krylov-Schur method with
 * ARPACK as its fallback (the default), or ARPACK alone (the tests compare
 * the two). */
typedef enum { EP_MODAL_EIGS_BLOCK, EP_MODAL_EIGS_ARPACK } ep_modal_eigensolver;

typedef struct ep_modal {
    const ep_mesh *m;
    const ep_material *mat;
    int free;                 /* free-flying: no fixed vertex, six rigid modes */
    int *map, ndof;           /* DOF map of the unknowns */
    cholmod_common c;
    cholmod_sparse *K, *M;    /* upper triangles over the unknowns */
    int *mp, *mi;             /* M as one scalar per vertex pair, both triangles (CSC): */
    double *mx;               /* M = Ms (x) I3, 1/9 of the index traffic per product */
    int *vfull, *mfi;         /* the vertex of each unknown vertex; mi as such vertices */
    cholmod_factor *F;        /* of K; free models: of K held at the six DOFs pin[] */
    int pin[6];
    double *R, *MR;           /* free models: the six rigid modes [6][ndof], M-orthonormal, and M R */
    ep_stvk stvk;
    double t_assemble, t_factor;  /* seconds */
    double lnz, fl;               /* nonzeros and flops of the factor (its symbolic analysis) */
    double t_rhs, t_solve;        /* derivatives: Hessian right-hand sides, solves */
    long nsolve;                  /* column solves of the eigen solve so far */
    long nblock;                  /* of them, block solves of EIG_BLOCK columns (block eigen solve) */
    ep_modal_eigensolver eigensolver; /* set after ep_modal_setup to choose */
    int used_arpack;              /* the last ep_modal_eigs ran ARPACK (asked, or the block method's fallback) */
    int threads;                  /* OpenMP threads at setup: the mass products' and block solves' team */
    double solve_flops;           /* flops of the derivative solves (constrained) */
} ep_modal;

/* Assemble K and M (consistent or lumped mass) over the vertices not fixed
 * and factor K; a free-flying model's K held at six DOFs (3-2-1: all of one
 * vertex, two of a second far from it, one of a third off their line), and
 * its rigid modes R (translations and rotations, M-orthonormalized).  Cost
 * O(ne) + one sparse factorization.  0, EP_EINPUT (a support that leaves a
 * rigid motion), EP_ECOMPUTE (also: a free-flying mesh in pieces, whose
 * held K is not positive definite). */
int ep_modal_setup(ep_modal *s, const ep_mesh *m, const ep_material *mat, const char *fixed, int lumped_mass);
void ep_modal_free(ep_modal *s);

/* Before the eigen solve: k modes and r basis vectors of the model s is set up
 * for, with k(k+1)/2 derivatives.  k is bounded by the unknowns (ARPACK
 * computes at most n - 1 eigenpairs; free models six more), and the
 * arrays of the run (modes, derivatives, basis, and the largest stage's
 * work: Lanczos vectors, the derivatives' right-hand sides and solutions,
 * the scaled vectors and their Gram matrix of kind's basis) by the memory
 * (ep_mem_limit): -k 599 on a 600-unknown model was accepted and crashed
 * inside CHOLMOD (issue 22, class 5).  0, EP_EUSAGE, EP_ECOMPUTE. */
int ep_modal_plan(const ep_modal *s, int k, int r, ep_modal_basis_kind kind);

/* What ep_modal_basis and the mass products need, and no more: the DOF map
 * and M (no stiffness, no factor; epmerge forms a split run's basis with
 * it).  The same M, to the bit, as ep_modal_setup's.  Cost O(ne).  0,
 * EP_EINPUT, EP_ECOMPUTE. */
int ep_modal_setup_mass(ep_modal *s, const ep_mesh *m, const ep_material *mat, const char *fixed, int lumped_mass);

/* The k lowest modes of K psi = lambda M psi, shift-invert on the factor
 * (OP = K^-1 M; free models OP = P K_held^-1 P^T M with P the M-orthogonal
 * projection off the rigid modes, which OP maps to zero, so the k lowest
 * elastic modes come out and no rigid one): the block Krylov-Schur method,
 * or ARPACK dsaupd/dseupd mode 3 as its fallback (s->eigensolver).
 * lambda[k] ascending, U[k][3nv] M-orthonormal.  Cost: iterations of one
 * mass product and one pair of triangular solves with the factor (4 lnz
 * flops) per column, 2-3 ncv of them for ARPACK (ncv = max(3 k, k + 20));
 * workspace O(ndof ncv).  0, EP_EUSAGE (k too large for the unknowns),
 * EP_ECOMPUTE (no convergence). */
int ep_modal_eigs(ep_modal *s, int k, double *lambda, double *U);

/* Modal derivatives Phi_ij, i <= j, of the pairs p0 <= p < p1 in the order
 * (0,0), (0,1), .., (1,1), .. (all: 0, k(k+1)/2): constrained,
 * K Phi = -(H:psi_j) psi_i with the factor of K (001 eq. 2.47), solved in
 * blocks of block right-hand sides numbered from pair 0, so that a part of a
 * split run (p0 a multiple of block, part.h) repeats the whole run's
 * arithmetic; free-flying, the right-hand side projected onto range(K) and
 * the solution taken M-orthogonal to the rigid modes (one solve with the
 * held K: the projected load has no net force or moment, so the six held
 * DOFs carry no reaction and the solve is exact).  out: pairs [p1-p0][2], Phi [p1-p0][3nv].
 * Cost one Hessian assembly (O(ne k^2) whatever the range, plus O(ne) per
 * pair) and p1 - p0 solves. */
int ep_modal_derivatives(ep_modal *s, const double *U, int k, int p0, int p1, int block, int *pairs, double *Phi);

/* Reduced basis of r vectors, B[r][3nv] with B M B^T = I:
 * PCA: the vectors (lambda1/lambda_j) psi_j and (lambda1^2/(lambda_i lambda_j))
 * Phi_ij/|Phi_ij|_M (001 eq. 2.52), mass-PCA through the origin (MATH.md §3);
 * GRAM_SCHMIDT: the same vectors M-orthonormalized in order; LINEAR: the
 * first r modes.  sigma[m] (m = k + k(k+1)/2; for LINEAR, k): singular values
 * descending (PCA), norms before normalization (Gram-Schmidt), or the mode
 * scales lambda1/lambda_j.  Cost: m mass products, m^2 ndof for the Gram
 * matrix and m^3 for its eigen decomposition (PCA), about 4 r m ndof
 * (Gram-Schmidt); workspace 2 m ndof + r ndof doubles.
 * 0, EP_EUSAGE (r too large), EP_ECOMPUTE. */
int ep_modal_basis(ep_modal *s, ep_modal_basis_kind kind, const double *lambda, const double *U, int k,
                   const double *Phi, int r, double *B, double *sigma);

/* Mass-PCA (MATH.md §3, §13) of the list of ep_modal_basis's PCA, k modes
 * and the first np derivatives (both may be 0: a POD of the snapshots
 * alone), followed by ns snapshots X [ns][3nv] (full-length, zeroed at held
 * vertices), scaled together by 1 / max |x|_M so that the largest counts as
 * the first mode does (scale 1).  out: B [r][3nv] (B M B^T = I), sigma
 * [k + np + ns] descending.  Cost as ep_modal_basis's PCA for m = k + np +
 * ns vectors, and a copy of them (m 3nv doubles).  0, EP_EUSAGE (r more
 * than m, or than the list's rank), EP_ECOMPUTE. */
int ep_modal_basis_snapshots(ep_modal *s, const double *lambda, const double *U, int k, const double *Phi, int np,
                             const double *X, int ns, int r, double *B, double *sigma);

/* y = M x, and y = K x, for nvec full-length vectors (fixed entries of y
 * are 0).  Cost O(nnz) per vector. */
int ep_modal_mass_times(ep_modal *s, const double *x, double *y, int nvec);
int ep_modal_stiffness_times(ep_modal *s, const double *x, double *y, int nvec);

#endif
