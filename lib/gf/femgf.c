/*
 * femgf.c — FEM Green's functions by blocked sparse Cholesky solves (femgf.h).
 */
#include "femgf.h"
#include "blas.h"
#include "chol.h"
#include "err.h"
#include "mem.h"
#include "fem.h"
#include "stats.h"
#include "tet.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Everything the block solves share (read-only once built). */
typedef struct {
    const ep_mesh *m;
    const ep_gf_layout *L;
    int lumped, k, n3;           /* traction model, block size, 3 x boundary vertices */
    int *fmap, nf;               /* free DOFs (the factored unknowns) */
    int *cmap, nc;               /* fixed boundary DOFs (traction rows) */
    int *bidx;                   /* [nv] position in m->boundary, or -1 */
    cholmod_factor *K;           /* of K_ff */
    ep_chol_rplan plan;          /* its restricted solves: the rows the GF rows and reactions read */
    cholmod_sparse *Kcf, *Kfc, *Kcc, *Ms;
    cholmod_factor *Mcc;         /* consistent model: factor of M_s over fixed boundary vertices */
    double *carea;               /* lumped model: vertex area of each fixed boundary vertex */
    int nbd, *bord;              /* consistent model: fixed DOFs (cmap index) on the support's border */
    cholmod_sparse *U;           /* nf x nbd: M_fc at the border columns */
    int *qmap;                   /* [nf] row of Q of a free DOF a load reaches (a boundary vertex's, or
                                    a row of K_fc), or -1 */
    double *Q;                   /* K_ff^-1 K_fc M_cc^-1 E_border at those rows (nbd values a row) */
    double *C;                   /* LU of I - Q^T U (nbd x nbd) */
    int nfr, *frange;            /* the supernodes U reaches: nfr runs of factor rows (first, count) */
    int nfrows, nfsuper;         /* rows in those runs, supernodes they cover */
    double *F;                   /* L^-1 P U at those rows (nbd values a row, runs one after another) */
    int *ipiv;
    long qbody;                  /* 3 L->m: GF rows from here on are the body-force rows (MATH.md §12) */
    int nbody;                   /* 3 with body-force rows, else 0: the first block's leading columns
                                    (solve_block) */
    int g0;                      /* GF rows of the first block: k - nbody (every block k wide, the
                                    kernels' width), or k when k <= nbody (then k + nbody wide) */
    double *body;                /* o->body: [3][3n] */
    double *bf, *bc;             /* body load per free / fixed DOF (the lumped mass's diagonal, rho V / 4 a
                                    tet vertex: B e_a's entries), or NULL without body-force rows */
    double *Qb;                  /* [3][nbd] Q^T B e_a over every free DOF (border_solve) */
    int np;                      /* interior points (MATH.md §12), 0: none */
    int *ptv;                    /* [np][4] the vertices of each point's tet */
    double *ptw, *ptg, *ptlm;    /* [np][4] weights, [np][4][3] shape gradients, [np][2] lambda, mu */
    double *iout;                /* o->interior: [rows][9 np] */
} gfsys;

/* Per-thread workspace for one block. */
typedef struct {
    cholmod_common c;
    double *Z;                    /* right-hand sides, then the solution: nf x k in the factor's layout
                                     (chol.h ep_chol_rsolve_ordered: free DOF i at row plan.pos[i]) */
    cholmod_dense *R, *T, *P;     /* reactions, known support terms, per-axis mass solves */
    double *z;                    /* nbd x k Woodbury coefficients (solve_block) */
    double *work;                 /* ep_chol_rforward's and ep_chol_rbackward's */
    char *loaded;                 /* [nsuper] supernodes holding a load of the block (rhs_add) */
    double flops, cpu;            /* of this thread's solves: flops done, CPU seconds */
    double body_flops, body_cpu, body_wall; /* the body rows' share of the first block (solve_block) */
    double lead_flops, lead_cpu;  /* of it, their forward pass alone (ep_chol_rforward_lead) */
    double *rows[2];             /* [k][3n] GF rows of a block: one being solved, one being written */
    int busy[2];                 /* rows[i] waits for the writer (under the handoff's lock) */
    int cur;                     /* the buffer the next block is solved into */
} worker;

/* M_s,cc^-1 applied to the ncol columns of X (nc x ncol) in place: lumped,
 * a division by the vertex areas; consistent, one scalar factor for the three
 * axes, so the columns are regrouped per axis (3 ncol right-hand sides). */
static int mass_solve(const gfsys *s, double *X, int ncol, worker *w)
{
    int ncv = s->nc / 3;
    if (s->lumped) {
        for (int col = 0; col < ncol; col++)
            for (int i = 0; i < s->nc; i++)
                X[(size_t)col * (size_t)s->nc + i] /= s->carea[i / 3];
        return EP_OK;
    }
    for (int c0 = 0; c0 < ncol; c0 += s->k) { /* w->P holds 3k columns */
        int nq = ncol - c0 < s->k ? ncol - c0 : s->k;
        double *P = w->P->x, *R = X + (size_t)c0 * (size_t)s->nc;
        for (int col = 0; col < nq; col++)
            for (int c = 0; c < ncv; c++)
                for (int a = 0; a < 3; a++)
                    P[(size_t)(3 * col + a) * (size_t)ncv + c] = R[(size_t)col * (size_t)s->nc + 3 * c + a];
        w->P->ncol = 3 * (size_t)nq;
        cholmod_dense *Y = cholmod_solve(CHOLMOD_A, s->Mcc, w->P, &w->c);
        if (!Y)
            return ep_chol_fail("surface mass solve", &w->c);
        const double *y = Y->x;
        for (int col = 0; col < nq; col++)
            for (int c = 0; c < ncv; c++)
                for (int a = 0; a < 3; a++)
                    R[(size_t)col * (size_t)s->nc + 3 * c + a] = y[(size_t)(3 * col + a) * (size_t)ncv + c];
        cholmod_free_dense(&Y, &w->c);
    }
    return EP_OK;
}

/* Row of Z (the block in the factor's layout, nq values a row) of free DOF
 * i; writable when Z is (as strchr). */
static double *zrow(const gfsys *s, const double *Z, int nq, int i)
{
    return (double *)Z + (size_t)s->plan.pos[i] * (size_t)nq;
}

/* Add a to row i (a free DOF) of column col of the block's right-hand
 * sides w->Z; mark its supernode loaded (the forward solve starts there,
 * chol.h); with a support border, add a Q_i^T to the column's border terms
 * in w->z: they are read off the load as it is built (solve_block). */
static void rhs_add(const gfsys *s, worker *w, int nq, int i, int col, double a)
{
    zrow(s, w->Z, nq, i)[col] += a;
    w->loaded[s->plan.snode[s->plan.pos[i]]] = 1;
    if (s->nbd) {
        const double *q = s->Q + (size_t)s->qmap[i] * (size_t)s->nbd;
        double *zq = w->z + (size_t)col * (size_t)s->nbd;
        for (int d = 0; d < s->nbd; d++)
            zq[d] += a * q[d];
    }
}

/* The block's loads += U g, g = w->T at the border DOFs (rhs_add).  Most
 * blocks' loads do not reach the support: g = 0 is skipped. */
static void add_border(const gfsys *s, worker *w, int nq)
{
    const int *Up = s->U->p, *Ui = s->U->i;
    const double *Ux = s->U->x, *T = w->T->x;
    for (int col = 0; col < nq; col++)
        for (int d = 0; d < s->nbd; d++) {
            double g = T[(size_t)col * (size_t)s->nc + s->bord[d]];
            for (int p = Up[d]; p < Up[d + 1] && g != 0; p++)
                rhs_add(s, w, nq, Ui[p], col, g * Ux[p]);
        }
}

/* Z += F z at the supernodes U reaches: the forward solve of U z, known
 * from F = L^-1 P U (border_solve).  z: nbd x nq, column-major.  Returns
 * the flops. */
static double border_forward(const gfsys *s, const double *z, double *Z, int nq)
{
    const double *F = s->F;
    double rows = 0;
    for (int r = 0; r < s->nfr; r++) {
        int first = s->frange[2 * r], count = s->frange[2 * r + 1];
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, count, nq, s->nbd, 1.0, F, s->nbd, z, s->nbd, 1.0,
                    Z + (size_t)first * (size_t)nq, nq);
        F += (size_t)count * (size_t)s->nbd;
        rows += count;
    }
    return 2.0 * rows * s->nbd * nq;
}

/* Add c times the surface load of a unit traction in direction a at free
 * boundary vertex v, M_s e_(v,a), to the block's column col: at free DOFs
 * to the loads (rhs_add), its negative at fixed ones to t (nc: the known
 * part of their balance). */
static void add_traction(const gfsys *s, worker *w, int nq, int col, int v, int a, double c, double *t)
{
    const int *Mp = s->Ms->p, *Mi = s->Ms->i;
    const double *Mx = s->Ms->x;
    int j = s->bidx[v];
    for (int p = Mp[j]; p < Mp[j + 1]; p++) {
        int u = s->m->boundary[Mi[p]];
        if (s->fmap[u] >= 0)
            rhs_add(s, w, nq, s->fmap[u] + a, col, c * Mx[p]);
        else if (t && s->cmap[u] >= 0)
            t[s->cmap[u] + a] -= c * Mx[p];
    }
}

/* Body-force row a in the block's column col (MATH.md §12, 000 eq. 2.9):
 * B e_a at every free DOF of direction a (every supernode loaded: the
 * block's leading columns, ep_chol_rforward_lead, so not marked), its
 * negative at the fixed ones to t (the balance there is M_cc p_c = K_cf u_f
 * - f_c), and the border terms Q^T B e_a known from border_solve (Q is kept
 * only at boundary rows, rhs_add's, so the loads go in directly). */
static void body_rhs(const gfsys *s, worker *w, int nq, int col, int a, double *t)
{
    for (int i = a; i < s->nf; i += 3)
        zrow(s, w->Z, nq, i)[col] += s->bf[i];
    for (int i = a; t && i < s->nc; i += 3)
        t[i] -= s->bc[i];
    for (int d = 0; d < s->nbd; d++)
        w->z[(size_t)col * (size_t)s->nbd + d] += s->Qb[(size_t)a * (size_t)s->nbd + d];
}

/* The GF row of a block's column col: the lead body-force rows first
 * (qbody + col), then rows q0, q0 + 1, ... */
static long col_row(const gfsys *s, long q0, int lead, int col)
{
    return col < lead ? s->qbody + col : q0 + col - lead;
}

/* Right-hand sides of a block's nq columns (col_row), GF row q = 3c + a being a load at
 * col_vertex[c] in direction a (or column c's hat load, gf_layout.h).
 * Z (nf x nq, the factor's layout): M_s e_j at free DOFs for a unit
 * traction, -K_fc e_j for a unit displacement.  T (nc x nq, column-major):
 * the known part of the fixed-vertex balance, K_cc e_j or -M_s,cp e_j.
 * With them (rhs_add): the loaded supernodes and the border terms z. */
static void fill_rhs(const gfsys *s, worker *w, long q0, int lead, int nq)
{
    const ep_gf_layout *L = s->L;
    double *T = s->nc ? w->T->x : NULL;
    memset(w->Z, 0, sizeof(double) * (size_t)s->nf * (size_t)nq);
    memset(w->loaded, 0, (size_t)s->plan.nsuper);
    if (T)
        memset(T, 0, sizeof(double) * (size_t)s->nc * (size_t)nq);
    memset(w->z, 0, sizeof(double) * (size_t)s->nbd * (size_t)nq);
    for (int col = 0; col < nq; col++) {
        long q = col_row(s, q0, lead, col);
        double *t = T ? T + (size_t)col * (size_t)s->nc : NULL;
        if (q >= s->qbody) {
            body_rhs(s, w, nq, col, (int)(q - s->qbody), t);
            continue;
        }
        int c = (int)(q / 3), v = L->col_vertex[c], a = (int)(q % 3);
        if (L->load_ptr) { /* 000 eq. 3.83: the hat load, a combination of unit loads */
            for (int k = L->load_ptr[c]; k < L->load_ptr[c + 1]; k++)
                add_traction(s, w, nq, col, L->load_vertex[k], a, L->load_weight[k], t);
        } else if (s->fmap[v] >= 0) {
            add_traction(s, w, nq, col, v, a, 1.0, t);
        } else {
            int j = s->cmap[v] + a;
            for (int p = ((int *)s->Kfc->p)[j]; p < ((int *)s->Kfc->p)[j + 1]; p++)
                rhs_add(s, w, nq, ((int *)s->Kfc->i)[p], col, -((double *)s->Kfc->x)[p]);
            for (int p = ((int *)s->Kcc->p)[j]; p < ((int *)s->Kcc->p)[j + 1]; p++)
                t[((int *)s->Kcc->i)[p]] += ((double *)s->Kcc->x)[p];
        }
    }
}

/* R (nc x nq, column-major) = K_cf x, x the block Z in the factor's layout. */
static void reactions(const gfsys *s, const double *Z, int nq, double *R)
{
    const int *Kp = s->Kcf->p, *Ki = s->Kcf->i;
    const double *Kx = s->Kcf->x;
    memset(R, 0, sizeof(double) * (size_t)s->nc * (size_t)nq);
    for (int j = 0; j < s->nf; j++) /* K_cf's columns are the free DOFs; few hold entries */
        for (int p = Kp[j]; p < Kp[j + 1]; p++) {
            const double *x = zrow(s, Z, nq, j);
            for (int col = 0; col < nq; col++)
                R[(size_t)col * (size_t)s->nc + Ki[p]] += Kx[p] * x[col];
        }
}

/* The block's GF rows: rows[col][3j + b] = displacement (free DOF, from Z)
 * or traction (fixed, from R) of row vertex j in direction b.  Vertices go
 * eight at a time, so each Z row read serves every column while the rows'
 * 24-value runs are written whole. */
static void gather_rows(const gfsys *s, const double *Z, const double *R, int nq, double *rows)
{
    enum { V = 8 };
    const double *src[3 * V]; /* each value's place in column 0, and the step to the next column */
    size_t step[3 * V];
    for (int j0 = 0; j0 < s->L->n; j0 += V) {
        int nv = s->L->n - j0 < V ? s->L->n - j0 : V;
        for (int j = 0; j < nv; j++)
            for (int b = 0, v = s->L->row_vertex[j0 + j]; b < 3; b++) {
                int free = s->fmap[v] >= 0;
                src[3 * j + b] = free ? zrow(s, Z, nq, s->fmap[v] + b) : R + s->cmap[v] + b;
                step[3 * j + b] = free ? 1 : (size_t)s->nc;
            }
        for (int col = 0; col < nq; col++) {
            double *row = rows + (size_t)col * (size_t)s->n3 + 3 * (size_t)j0;
            for (int t = 0; t < 3 * nv; t++)
                row[t] = src[t][(size_t)col * step[t]];
        }
    }
}

/* The interior rows of a block's columns (col_row; femgf.h, MATH.md §12, 000
 * eq. 2.22) from the block's solution Z: u = sum_t w_t u_t over the point's
 * tet, sigma = lambda tr(eps) I + 2 mu eps with eps = sym(sum_t u_t g_t^T).
 * A fixed vertex moves only in its own displacement column.  Cost 90 flops
 * a point a row. */
static void interior_rows(const gfsys *s, const double *Z, long q0, int lead, int nq)
{
    const ep_gf_layout *L = s->L;
    for (int col = 0; col < nq; col++) {
        long q = col_row(s, q0, lead, col);
        int uv = -1, ua = (int)(q % 3);
        if (q < s->qbody && !L->load_ptr && s->fmap[L->col_vertex[q / 3]] < 0)
            uv = L->col_vertex[q / 3];
        double *out = s->iout + (size_t)q * 9 * (size_t)s->np;
        for (int k = 0; k < s->np; k++, out += 9) {
            const double *w = s->ptw + 4 * (size_t)k, *g = s->ptg + 12 * (size_t)k, *lm = s->ptlm + 2 * (size_t)k;
            double H[3][3] = {{0}}, u[3] = {0, 0, 0};
            for (int t = 0; t < 4; t++) {
                int v = s->ptv[4 * (size_t)k + t];
                for (int b = 0; b < 3; b++) {
                    double x = s->fmap[v] >= 0 ? zrow(s, Z, nq, s->fmap[v] + b)[col] : (v == uv && b == ua);
                    u[b] += w[t] * x;
                    for (int j = 0; j < 3; j++)
                        H[b][j] += x * g[3 * t + j];
                }
            }
            double tr = lm[0] * (H[0][0] + H[1][1] + H[2][2]);
            out[0] = u[0], out[1] = u[1], out[2] = u[2];
            for (int b = 0; b < 3; b++)
                out[3 + b] = tr + 2 * lm[1] * H[b][b];
            out[6] = lm[1] * (H[1][2] + H[2][1]);
            out[7] = lm[1] * (H[0][2] + H[2][0]);
            out[8] = lm[1] * (H[0][1] + H[1][0]);
        }
    }
}

/* Solve GF rows [q0, q0 + nq) into rows[nq][3n]: the coupled system
 *   K_ff u_f - M_fc p_c = M_fp p_p - K_fc u_c,   M_cc p_c = K_cf u_f + K_cc u_c - M_cp p_p
 * (MATH.md §1, one relation S u_b = M_s p).  Eliminating p_c leaves
 * (K_ff - U V) u_f = b + U g with U = M_fc (border columns), V = M_cc^-1 K_cf,
 * g = M_cc^-1 t.  Woodbury with the factor of K_ff: u_f = K_ff^-1 (b + U g + U z)
 * with z = (V u_f)_border = C^-1 Q^T (b + U g), Q = K_ff^-1 V_border^T =
 * K_ff^-1 K_fc M_cc^-1 E_border, C = I - Q^T U.  Q is kept at the rows a load
 * reaches, so z is known before the solve and one solve gives u_f: no
 * correction of the solution afterwards (it cost 2 3n nbd flops a column,
 * more than the forward term below on the benchmark meshes: DECISIONS).
 * U z's forward solve is F z, added between the two halves: as a load, U z
 * would take every block's forward pass through all the supernodes U
 * reaches.  Lumped traction has M_fc = 0: no border.  The block stays in
 * the factor's layout from its loads to its rows (no transposes: chol.h).
 * The block's nq columns are lead body-force rows (0 or 3: the first block
 * carries them, MATH.md §12), then GF rows q0, q0 + 1, ... (col_row).  The
 * body loads reach every supernode, a GF block's only some: the forward
 * pass runs the lead columns alone where no GF load reaches
 * (ep_chol_rforward_lead, one read of that part of the factor), then the
 * whole block where one does; the backward pass and the rest are the
 * block's.  The body rows' share goes to w->body_*: the lead pass, plus
 * lead / nq of the rest of the block (every column does the same work
 * there, up to the body loads' fill of every free DOF). */
static int solve_block(const gfsys *s, long q0, int lead, int nq, worker *w, double *rows)
{
    int st = EP_OK, nc = s->nc, nb = s->nbd;
    double *Z = w->Z, *T = nc ? w->T->x : NULL, *R = nc ? w->R->x : NULL, *z = nb ? w->z : NULL;
    double c0 = ep_stats_thread_cpu(), t0 = ep_now(), f0 = w->flops, lead_flops = 0, lead_cpu = 0, lead_wall = 0;
    fill_rhs(s, w, q0, lead, nq);
    if (nc && (st = mass_solve(s, T, nq, w))) /* g = M_cc^-1 t */
        return st;
    if (nb) {
        add_border(s, w, nq); /* b += U g; z = Q^T (b + U g) */
        LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'N', nb, nq, s->C, nb, s->ipiv, z, nb);
    }
    if (lead) {
        double c1 = ep_stats_thread_cpu(), t1 = ep_now();
        lead_flops = ep_chol_rforward_lead(&s->plan, Z, nq, w->work, w->loaded, lead);
        lead_cpu = ep_stats_thread_cpu() - c1, lead_wall = ep_now() - t1;
        w->flops += lead_flops;
    }
    w->flops += ep_chol_rforward(&s->plan, Z, nq, w->work, w->loaded);
    if (nb)
        w->flops += border_forward(s, z, Z, nq);
    w->flops += ep_chol_rbackward(&s->plan, Z, nq, w->work);
    if (nc) {
        reactions(s, Z, nq, R);
        if ((st = mass_solve(s, R, nq, w)))
            return st;
        for (size_t i = 0; i < (size_t)nc * (size_t)nq; i++) /* p_c = M_cc^-1 (K_cf u_f + t) */
            R[i] += T[i];
    }
    gather_rows(s, Z, R, nq, rows);
    if (s->np)
        interior_rows(s, Z, q0, lead, nq);
    if (lead) {
        double share = (double)lead / nq;
        memcpy(s->body, rows, sizeof *rows * (size_t)lead * (size_t)s->n3);
        w->body_flops = lead_flops + share * (w->flops - f0 - lead_flops);
        w->body_cpu = lead_cpu + share * (ep_stats_thread_cpu() - c0 - lead_cpu);
        w->body_wall = lead_wall + share * (ep_now() - t0 - lead_wall);
        w->lead_flops = lead_flops, w->lead_cpu = lead_cpu;
    }
    return EP_OK;
}

static double factor_bytes(const cholmod_factor *F, const cholmod_common *c)
{
    if (F->is_super)
        return 8.0 * (double)F->xsize + 4.0 * (double)F->ssize + 40.0 * (double)F->nsuper;
    return 12.0 * c->lnz;
}

static double sparse_bytes(const cholmod_sparse *A)
{
    return A ? 12.0 * (double)((const int *)A->p)[A->ncol] : 0; /* packed */
}

/* Condensed stiffness over the boundary DOFs (row-major = column-major, S is
 * symmetric): S = K_BB - K_BI K_II^-1 K_IB, interior = free non-boundary. */
static int condense(const ep_mesh *m, const ep_material *mat, int k, cholmod_factor *FI, const int *imap, int ni,
                    const int *bmap, int nb3, double **out, cholmod_common *c)
{
    int st = EP_OK;
    double one[2] = {1, 0}, mone[2] = {-1, 0};
    cholmod_sparse *KIB = NULL, *KBB = NULL;
    cholmod_dense *B = NULL, *Z = NULL;
    double *S = ep_calloc((size_t)nb3 * (size_t)nb3, sizeof *S);
    if (!S)
        return EP_ECOMPUTE;
    KBB = ep_fem_assemble(m, mat, EP_FEM_STIFFNESS, bmap, nb3, bmap, nb3, 0, c);
    KIB = ni ? ep_fem_assemble(m, mat, EP_FEM_STIFFNESS, imap, ni, bmap, nb3, 0, c) : NULL;
    B = ni ? cholmod_allocate_dense((size_t)ni, (size_t)k, (size_t)ni, CHOLMOD_REAL, c) : NULL;
    if (!KBB || (ni && (!KIB || !B))) {
        st = ep_errmsg()[0] ? EP_ECOMPUTE : ep_chol_fail("condensation", c);
        goto out;
    }
    for (int j = 0; j < nb3; j++) /* S = K_BB */
        for (int p = ((int *)KBB->p)[j]; p < ((int *)KBB->p)[j + 1]; p++)
            S[(size_t)j * (size_t)nb3 + ((int *)KBB->i)[p]] = ((double *)KBB->x)[p];
    for (int j0 = 0; ni && j0 < nb3; j0 += k) {
        int nq = nb3 - j0 < k ? nb3 - j0 : k;
        double *b = B->x;
        const int *Kp = KIB->p, *Ki = KIB->i;
        const double *Kx = KIB->x;
        B->ncol = (size_t)nq;
        memset(b, 0, sizeof(double) * (size_t)ni * (size_t)nq);
        for (int col = 0; col < nq; col++)
            for (int p = Kp[j0 + col]; p < Kp[j0 + col + 1]; p++)
                b[(size_t)col * (size_t)ni + Ki[p]] = Kx[p];
        Z = cholmod_solve(CHOLMOD_A, FI, B, c);
        if (!Z) {
            st = ep_chol_fail("condensation solve", c);
            goto out;
        }
        cholmod_dense view = {.nrow = (size_t)nb3, .ncol = (size_t)nq, .nzmax = (size_t)nb3 * (size_t)nq,
                              .d = (size_t)nb3, .x = S + (size_t)j0 * (size_t)nb3, .xtype = CHOLMOD_REAL,
                              .dtype = CHOLMOD_DOUBLE};
        if (!cholmod_sdmult(KIB, 1, mone, one, Z, &view, c)) { /* S -= K_BI Z */
            st = ep_chol_fail("condensation product", c);
            goto out;
        }
        cholmod_free_dense(&Z, c);
    }
    *out = S;
    S = NULL;
out:
    free(S);
    cholmod_free_dense(&Z, c);
    cholmod_free_dense(&B, c);
    cholmod_free_sparse(&KIB, c);
    cholmod_free_sparse(&KBB, c);
    return st;
}

static void sys_free(gfsys *s, cholmod_common *c)
{
    free(s->fmap);
    free(s->cmap);
    free(s->bidx);
    free(s->carea);
    free(s->bord);
    free(s->qmap);
    free(s->Q);
    free(s->frange);
    free(s->F);
    free(s->C);
    free(s->ipiv);
    free(s->bf);
    free(s->bc);
    free(s->Qb);
    free(s->ptv);
    free(s->ptw);
    free(s->ptg);
    free(s->ptlm);
    cholmod_free_sparse(&s->U, c);
    ep_chol_rplan_free(&s->plan);
    cholmod_free_factor(&s->K, c);
    cholmod_free_factor(&s->Mcc, c);
    cholmod_free_sparse(&s->Kcf, c);
    cholmod_free_sparse(&s->Kfc, c);
    cholmod_free_sparse(&s->Kcc, c);
    cholmod_free_sparse(&s->Ms, c);
}

/* Factor the surface mass over the fixed boundary vertices (consistent model). */
static int factor_surface_mass(gfsys *s, cholmod_common *c)
{
    int ncv = s->nc / 3, *idx = ep_malloc((size_t)ncv, sizeof *idx), n = 0, st = EP_OK;
    if (!idx)
        return EP_ECOMPUTE;
    for (int j = 0; j < s->m->nb; j++)
        if (s->cmap[s->m->boundary[j]] >= 0)
            idx[n++] = j;
    cholmod_sparse *sub = cholmod_submatrix(s->Ms, idx, n, idx, n, 1, 1, c);
    cholmod_sparse *up = sub ? cholmod_copy(sub, 1, 1, c) : NULL;
    if (!up || !(s->Mcc = cholmod_analyze(up, c))) /* scalar and small: CHOLMOD's own choice, no METIS beside */
        st = ep_chol_fail("ordering of the surface mass at fixed vertices", c);
    else
        st = ep_chol_factorize(up, s->Mcc, "the surface mass at fixed vertices", c);
    cholmod_free_sparse(&sub, c);
    cholmod_free_sparse(&up, c);
    free(idx);
    return st;
}

static void workers_free(worker *w, int nt)
{
    for (int t = 0; w && t < nt; t++) {
        free(w[t].Z);
        cholmod_free_dense(&w[t].R, &w[t].c);
        cholmod_free_dense(&w[t].P, &w[t].c);
        cholmod_free_dense(&w[t].T, &w[t].c);
        free(w[t].work);
        free(w[t].rows[0]);
        free(w[t].rows[1]);
        free(w[t].z);
        free(w[t].loaded);
        cholmod_finish(&w[t].c);
    }
    free(w);
}

/* The widest block's columns: k, or g0 + 3 when the body rows lead a
 * first block wider than k (k <= 3). */
static int widest_block(const gfsys *s)
{
    return s->g0 + s->nbody > s->k ? s->g0 + s->nbody : s->k;
}

static worker *workers_new(const gfsys *s, int nt)
{
    worker *w = ep_calloc((size_t)nt, sizeof *w);
    int ok = w != NULL;
    for (int t = 0; ok && t < nt; t++) {
        ep_chol_start(&w[t].c);
        size_t kb = (size_t)widest_block(s);
        w[t].Z = ep_malloc((size_t)s->nf * kb, sizeof(double));
        w[t].work = ep_chol_rsolve_ordered_work(&s->plan, (int)kb);
        if (s->nc) {
            w[t].R = cholmod_allocate_dense((size_t)s->nc, kb, (size_t)s->nc, CHOLMOD_REAL, &w[t].c);
            w[t].T = cholmod_allocate_dense((size_t)s->nc, kb, (size_t)s->nc, CHOLMOD_REAL, &w[t].c);
            w[t].P = cholmod_allocate_dense((size_t)s->nc / 3, 3 * (size_t)s->k, (size_t)s->nc / 3, CHOLMOD_REAL,
                                            &w[t].c);
        }
        for (int i = 0; i < 2; i++)
            w[t].rows[i] = ep_malloc(kb * (size_t)s->n3, sizeof(double));
        w[t].z = ep_malloc(kb * (size_t)(s->nbd ? s->nbd : 1), sizeof(double));
        w[t].loaded = ep_malloc((size_t)s->plan.nsuper, 1);
        ok = w[t].Z && w[t].work && (!s->nc || (w[t].R && w[t].T && w[t].P)) && w[t].rows[0] && w[t].rows[1] &&
             w[t].z && w[t].loaded;
    }
    if (!ok) {
        workers_free(w, w ? nt : 0);
        ep_fail(EP_ECOMPUTE, "out of memory (solve blocks)");
        return NULL;
    }
    return w;
}

/* Consistent model: the fixed boundary vertices whose hat functions overlap a
 * free one's (the support's border) couple p_c into the free equations
 * through U = M_fc.  Lists their DOFs and builds U (nf x nbd). */
static int border_coupling(gfsys *s, cholmod_common *c)
{
    const int *Mp = s->Ms->p, *Mi = s->Ms->i;
    const double *Mx = s->Ms->x;
    int nv = 0;
    size_t nnz = 0;
    for (int j = 0; j < s->m->nb; j++) {
        int v = s->m->boundary[j], border = 0;
        if (s->cmap[v] < 0)
            continue;
        for (int p = Mp[j]; p < Mp[j + 1]; p++)
            if (s->fmap[s->m->boundary[Mi[p]]] >= 0) {
                border = 1;
                nnz += 3;
            }
        nv += border;
    }
    s->nbd = 3 * nv;
    if (!nv)
        return EP_OK;
    s->bord = ep_malloc((size_t)s->nbd, sizeof *s->bord);
    cholmod_triplet *T = cholmod_allocate_triplet((size_t)s->nf, (size_t)s->nbd, nnz, 0, CHOLMOD_REAL, c);
    if (!s->bord || !T) {
        cholmod_free_triplet(&T, c);
        return ep_fail(EP_ECOMPUTE, "out of memory (support border)");
    }
    int d = 0;
    for (int j = 0; j < s->m->nb; j++) {
        int v = s->m->boundary[j], first = 1;
        if (s->cmap[v] < 0)
            continue;
        for (int p = Mp[j]; p < Mp[j + 1]; p++) {
            int u = s->m->boundary[Mi[p]];
            if (s->fmap[u] < 0)
                continue;
            if (first) {
                for (int a = 0; a < 3; a++)
                    s->bord[d + a] = s->cmap[v] + a;
                first = 0;
            }
            for (int a = 0; a < 3; a++) {
                ((int *)T->i)[T->nnz] = s->fmap[u] + a;
                ((int *)T->j)[T->nnz] = d + a;
                ((double *)T->x)[T->nnz++] = Mx[p];
            }
        }
        d += first ? 0 : 3;
    }
    s->U = cholmod_triplet_to_sparse(T, nnz, c);
    cholmod_free_triplet(&T, c);
    return s->U ? EP_OK : ep_chol_fail("support border", c);
}

/* F = L^-1 P U (border_forward) at the supernodes U reaches, found as the
 * forward solve finds a block's: those holding a row of U, then their
 * ancestors.  Runs of consecutive factor rows are merged. */
static int border_reach(gfsys *s)
{
    const ep_chol_rplan *p = &s->plan;
    const int *super = s->K->super, *Up = s->U->p, *Ui = s->U->i;
    const double *Ux = s->U->x;
    int nb = s->nbd, st = EP_OK;
    size_t rows = 0;
    char *reach = ep_calloc((size_t)p->nsuper, 1);
    double *X = ep_calloc((size_t)p->n * (size_t)nb, sizeof *X), *work = ep_chol_rsolve_ordered_work(p, nb);
    s->frange = ep_malloc(2 * (size_t)p->nsuper, sizeof *s->frange);
    if (!reach || !X || !work || !s->frange) {
        st = EP_ECOMPUTE;
        goto out;
    }
    for (int d = 0; d < nb; d++)
        for (int q = Up[d]; q < Up[d + 1]; q++) {
            X[(size_t)p->pos[Ui[q]] * (size_t)nb + d] = Ux[q];
            reach[p->snode[p->pos[Ui[q]]]] = 1;
        }
    ep_chol_rplan_ancestors(p, reach);
    ep_chol_rforward(p, X, nb, work, reach);
    for (int j = 0; j < p->nsuper; j++) {
        if (!reach[j])
            continue;
        s->nfsuper++;
        int *last = s->nfr ? s->frange + 2 * (s->nfr - 1) : NULL;
        if (last && last[0] + last[1] == super[j])
            last[1] += super[j + 1] - super[j];
        else {
            s->frange[2 * s->nfr] = super[j];
            s->frange[2 * s->nfr++ + 1] = super[j + 1] - super[j];
        }
        rows += (size_t)(super[j + 1] - super[j]);
    }
    s->nfrows = (int)rows;
    if (!(s->F = ep_malloc(rows * (size_t)nb, sizeof *s->F))) {
        st = EP_ECOMPUTE;
        goto out;
    }
    for (int r = 0, at = 0; r < s->nfr; r++) {
        size_t len = (size_t)s->frange[2 * r + 1] * (size_t)nb;
        memcpy(s->F + (size_t)at * (size_t)nb, X + (size_t)s->frange[2 * r] * (size_t)nb, len * sizeof *X);
        at += s->frange[2 * r + 1];
    }
out:
    free(reach);
    free(X);
    free(work);
    return st;
}

/* After the factorization, solve_block's Woodbury terms: Q = K_ff^-1 K_fc
 * M_cc^-1 E_border (nbd solves on the factor), kept at the rows a load
 * reaches (the free DOFs of boundary vertices and, with displacement
 * columns, the rows of K_fc), the LU of C = I - Q^T U, and F (border_reach). */
static int border_solve(gfsys *s, worker *w)
{
    int nb = s->nbd, nf = s->nf, nq = 0, st = EP_OK;
    double one[2] = {1, 0}, zero[2] = {0, 0};
    cholmod_dense *E = cholmod_zeros((size_t)s->nc, (size_t)nb, CHOLMOD_REAL, &w->c), *B = NULL, *Qd = NULL;
    if (!E)
        return ep_chol_fail("support border solves", &w->c);
    for (int d = 0; d < nb; d++)
        ((double *)E->x)[(size_t)d * (size_t)s->nc + s->bord[d]] = 1;
    if ((st = mass_solve(s, E->x, nb, w)))
        goto out;
    if (!(B = cholmod_allocate_dense((size_t)nf, (size_t)nb, (size_t)nf, CHOLMOD_REAL, &w->c)) ||
        !cholmod_sdmult(s->Kcf, 1, one, zero, E, B, &w->c)) { /* B = K_fc M_cc^-1 E_border */
        st = ep_chol_fail("support border solves", &w->c);
        goto out;
    }
    cholmod_free_dense(&E, &w->c);
    if (!(Qd = cholmod_solve(CHOLMOD_A, s->K, B, &w->c))) {
        st = ep_chol_fail("support border solves", &w->c);
        goto out;
    }
    cholmod_free_dense(&B, &w->c);
    if (!(s->qmap = ep_malloc((size_t)nf, sizeof *s->qmap))) {
        st = EP_ECOMPUTE;
        goto out;
    }
    for (int i = 0; i < nf; i++)
        s->qmap[i] = -1;
    for (int j = 0; j < s->m->nb; j++)
        for (int a = 0, v = s->m->boundary[j]; a < 3 && s->fmap[v] >= 0; a++)
            s->qmap[s->fmap[v] + a] = nq++;
    for (int i = 0; i < nf && s->Kfc; i++) /* K_cf's columns are the free DOFs */
        if (s->qmap[i] < 0 && ((int *)s->Kcf->p)[i + 1] > ((int *)s->Kcf->p)[i])
            s->qmap[i] = nq++;
    s->Q = ep_malloc((size_t)nq * (size_t)nb, sizeof *s->Q);
    s->C = ep_malloc((size_t)nb * (size_t)nb, sizeof *s->C);
    s->ipiv = ep_malloc((size_t)nb, sizeof *s->ipiv);
    if (!s->Q || !s->C || !s->ipiv) {
        st = EP_ECOMPUTE;
        goto out;
    }
    for (int i = 0; i < nf; i++)
        for (int d = 0; d < nb && s->qmap[i] >= 0; d++)
            s->Q[(size_t)s->qmap[i] * (size_t)nb + d] = ((double *)Qd->x)[(size_t)d * (size_t)nf + i];
    if (s->bf) { /* the body loads reach every free DOF: Q^T B e_a while Q is whole */
        if (!(s->Qb = ep_calloc(3 * (size_t)nb, sizeof *s->Qb))) {
            st = EP_ECOMPUTE;
            goto out;
        }
        for (int d = 0; d < nb; d++)
            for (int i = 0; i < nf; i++)
                s->Qb[(size_t)(i % 3) * (size_t)nb + d] += ((double *)Qd->x)[(size_t)d * (size_t)nf + i] * s->bf[i];
    }
    const int *Up = s->U->p, *Ui = s->U->i;
    const double *Ux = s->U->x;
    for (int j = 0; j < nb; j++) /* U's rows are boundary DOFs: all in Q */
        for (int i = 0; i < nb; i++) {
            double c = i == j;
            for (int p = Up[j]; p < Up[j + 1]; p++)
                c -= s->Q[(size_t)s->qmap[Ui[p]] * (size_t)nb + i] * Ux[p];
            s->C[(size_t)j * nb + i] = c;
        }
    if (LAPACKE_dgetrf(LAPACK_COL_MAJOR, nb, nb, s->C, nb, s->ipiv) != 0) {
        st = ep_fail(EP_ECOMPUTE, "the traction support system is singular (support border of %d vertices)", nb / 3);
        goto out;
    }
    cholmod_free_dense(&Qd, &w->c);
    st = border_reach(s);
out:
    cholmod_free_dense(&E, &w->c);
    cholmod_free_dense(&B, &w->c);
    cholmod_free_dense(&Qd, &w->c);
    return st;
}

/* The consistent body load of a unit acceleration per DOF of map (ndof
 * DOFs): the diagonal of the lumped mass, the row sums of the consistent
 * one (fem.h), i.e. the integral of rho phi_v (MATH.md §12).  *out
 * allocated.  Cost one assembly of the lumped mass. */
static int body_load(const ep_mesh *m, const ep_material *mat, const int *map, int ndof, double **out,
                     cholmod_common *c)
{
    cholmod_sparse *M = ndof ? ep_fem_assemble(m, mat, EP_FEM_MASS_LUMPED, map, ndof, map, ndof, 0, c) : NULL;
    double *b = ep_calloc((size_t)(ndof ? ndof : 1), sizeof *b);
    if ((ndof && !M) || !b) {
        cholmod_free_sparse(&M, c);
        free(b);
        return EP_ECOMPUTE;
    }
    for (int j = 0; j < ndof; j++)
        for (int p = ((int *)M->p)[j]; p < ((int *)M->p)[j + 1]; p++)
            b[j] += ((double *)M->x)[p]; /* diagonal: its only entry */
    cholmod_free_sparse(&M, c);
    *out = b;
    return EP_OK;
}

/* Each interior point's tet vertices, weights, shape gradients and Lame
 * parameters. */
static int interior_setup(gfsys *s, const ep_mesh *m, const ep_material *mat, const ep_femgf_opts *o)
{
    int np = o->npoints;
    if (!m->ne || m->nh)
        return ep_fail(EP_EINPUT, "%s: interior rows need a tet mesh", m->source);
    s->np = np;
    s->iout = o->interior;
    s->ptv = ep_malloc(4 * (size_t)np, sizeof *s->ptv);
    s->ptw = ep_malloc(4 * (size_t)np, sizeof *s->ptw);
    s->ptg = ep_malloc(12 * (size_t)np, sizeof *s->ptg);
    s->ptlm = ep_malloc(2 * (size_t)np, sizeof *s->ptlm);
    if (!s->ptv || !s->ptw || !s->ptg || !s->ptlm)
        return EP_ECOMPUTE;
    for (int k = 0; k < np; k++) {
        int e = o->point_tet[k];
        double x[4][3], vol;
        for (int t = 0; t < 4; t++) {
            s->ptv[4 * k + t] = m->tets[4 * (size_t)e + t];
            s->ptw[4 * k + t] = o->point_weight[4 * (size_t)k + t];
            for (int j = 0; j < 3; j++)
                x[t][j] = m->vertices[3 * (size_t)s->ptv[4 * k + t] + j];
        }
        ep_tet_gradients(x, &vol, (double(*)[3])(s->ptg + 12 * (size_t)k));
        ep_material_lame(mat, e, &s->ptlm[2 * k], &s->ptlm[2 * k + 1]);
    }
    return EP_OK;
}

/* Phase 1: DOF maps (free: factored; fixed boundary: traction rows), the
 * stiffness blocks, the surface load matrix and, for traction rows, the
 * surface mass at fixed vertices (lumped areas, or its factor and the
 * support border).  *Kff (allocated) is the matrix to factor. */
static int sys_build(gfsys *s, const ep_mesh *m, const ep_material *mat, const char *fixed, const ep_gf_layout *L,
                     const ep_femgf_opts *o, char *keep, cholmod_sparse **Kff, cholmod_common *c)
{
    int st;
    s->m = m;
    s->L = L;
    s->lumped = o->lumped;
    s->k = o->block;
    s->n3 = 3 * L->n;
    if (!(s->bidx = ep_malloc((size_t)m->nv, sizeof *s->bidx)))
        return EP_ECOMPUTE;
    if ((st = ep_mesh_check_support(m, fixed, 0)))
        return st;
    for (int v = 0; v < m->nv; v++)
        s->bidx[v] = -1;
    for (int j = 0; j < m->nb; j++)
        s->bidx[m->boundary[j]] = j;
    for (int v = 0; v < m->nv; v++)
        keep[v] = !fixed[v];
    if ((st = ep_fem_dofmap(m, keep, &s->fmap, &s->nf)))
        return st;
    for (int v = 0; v < m->nv; v++)
        keep[v] = fixed[v] && s->bidx[v] >= 0;
    if ((st = ep_fem_dofmap(m, keep, &s->cmap, &s->nc)))
        return st;

    *Kff = ep_fem_assemble(m, mat, EP_FEM_STIFFNESS, s->fmap, s->nf, s->fmap, s->nf, 1, c);
    s->Ms = ep_fem_surface_mass(m, o->lumped, c);
    s->qbody = 3L * L->m;
    s->nbody = o->body ? 3 : 0;
    s->g0 = s->k > s->nbody ? s->k - s->nbody : s->k;
    s->body = o->body;
    if (o->npoints && (st = interior_setup(s, m, mat, o)))
        return st;
    if (!*Kff || !s->Ms || (o->body && ((st = body_load(m, mat, s->fmap, s->nf, &s->bf, c)) ||
                                        (st = body_load(m, mat, s->cmap, s->nc, &s->bc, c)))))
        return st ? st : EP_ECOMPUTE;
    if (!s->nc)
        return EP_OK;
    int fixed_cols = 0;
    for (int q = 0; q < L->m; q++)
        fixed_cols |= !L->load_ptr && fixed[L->col_vertex[q]] != 0;
    if (!(s->Kcf = ep_fem_assemble(m, mat, EP_FEM_STIFFNESS, s->cmap, s->nc, s->fmap, s->nf, 0, c)))
        return EP_ECOMPUTE;
    if (fixed_cols) {
        s->Kfc = cholmod_transpose(s->Kcf, 1, c);
        s->Kcc = ep_fem_assemble(m, mat, EP_FEM_STIFFNESS, s->cmap, s->nc, s->cmap, s->nc, 0, c);
        if (!s->Kfc || !s->Kcc)
            return EP_ECOMPUTE;
    }
    if (!o->lumped)
        return (st = factor_surface_mass(s, c)) ? st : border_coupling(s, c);
    if (!(s->carea = ep_malloc((size_t)s->nc / 3, sizeof *s->carea)))
        return EP_ECOMPUTE;
    for (int v = 0; v < m->nv; v++)
        if (s->cmap[v] >= 0)
            s->carea[s->cmap[v] / 3] = m->vertex_area[s->bidx[v]];
    return EP_OK;
}

/* The condensed stiffness's DOF maps (interior: free non-boundary; boundary)
 * and K_II. */
typedef struct {
    cholmod_sparse *KII;
    cholmod_factor *FI;
    int *imap, *bmap, ni, nb3;
} condsys;

static int cond_build(condsys *cs, const ep_mesh *m, const ep_material *mat, const char *fixed, const gfsys *s,
                      char *keep, cholmod_common *c)
{
    int st;
    for (int v = 0; v < m->nv; v++)
        keep[v] = !fixed[v] && s->bidx[v] < 0;
    if ((st = ep_fem_dofmap(m, keep, &cs->imap, &cs->ni)))
        return st;
    for (int v = 0; v < m->nv; v++)
        keep[v] = s->bidx[v] >= 0;
    if ((st = ep_fem_dofmap(m, keep, &cs->bmap, &cs->nb3)))
        return st;
    if (cs->ni && !(cs->KII = ep_fem_assemble(m, mat, EP_FEM_STIFFNESS, cs->imap, cs->ni, cs->imap, cs->ni, 1, c)))
        return EP_ECOMPUTE;
    if (cs->KII && !(cs->FI = ep_chol_analyze(cs->KII, 3, c)))
        return ep_chol_fail("ordering of the interior stiffness", c);
    return EP_OK;
}

static void cond_free(condsys *cs, cholmod_common *c)
{
    cholmod_free_sparse(&cs->KII, c);
    cholmod_free_factor(&cs->FI, c);
    free(cs->imap);
    free(cs->bmap);
}

/* Phase 2, after the symbolic analysis: the memory guard.  Per thread:
 * Z (nf k) and the ordered solve's workspace (maxrow k + nsuper, counted
 * as nf k: maxrow <= nf), k the widest block's width (k, or k + 3 when
 * the body rows' first block is wider),
 * support terms, two buffers of GF rows; shared: the border matrices, what
 * the sink holds. */
static int memory_guard(const gfsys *s, const condsys *cs, const ep_mesh *m, cholmod_sparse *Kff, int nt,
                        const ep_femgf_opts *o, cholmod_common *c, ep_femgf_stats *stats)
{
    double blocks = (double)nt * 8.0 * (double)widest_block(s) * (2.0 * s->nf + 5.0 * s->nc + 2.0 * s->n3 + s->nbd) +
                    8.0 * (double)s->nbd * (3.0 * s->nf + s->nc + s->nbd); /* border_solve: B, Q, CHOLMOD's Y */
    double mesh = 16.0 * m->ne + 32.0 * m->nh + 24.0 * m->nv + 12.0 * m->nf + 12.0 * m->nb + 12.0 * m->nv; /* + DOF maps */
    double need = factor_bytes(s->K, c) + sparse_bytes(Kff) + sparse_bytes(s->Kcf) * 2 + sparse_bytes(s->Kcc) +
                  blocks + mesh + o->sink_memory;
    double cond = o->condensed ? 8.0 * (double)cs->nb3 * cs->nb3 + (cs->FI ? factor_bytes(cs->FI, c) : 0) : 0;
    stats->memory = need + cond;
    if (o->max_memory > 0 && stats->memory > o->max_memory)
        return ep_fail(EP_ECOMPUTE,
                       "needs about %s (factor %s, %d solve blocks %s%s%s%s%s), more than the %s allowed",
                       ep_mem_text(stats->memory), ep_mem_text(factor_bytes(s->K, c)), nt, ep_mem_text(blocks),
                       o->condensed ? ", condensed stiffness " : "", o->condensed ? ep_mem_text(cond) : "",
                       o->sink_memory > 0 ? ", compression " : "", o->sink_memory > 0 ? ep_mem_text(o->sink_memory) : "",
                       ep_mem_text(o->max_memory));
    return EP_OK;
}

/* The rows a block's solution is read at: the free DOFs of the GF row
 * vertices, and those K_cf couples to the support (the reactions). */
static int plan_solves(gfsys *s)
{
    char *want = ep_calloc((size_t)s->nf, 1);
    if (!want)
        return EP_ECOMPUTE;
    for (int j = 0; j < s->L->n; j++) {
        int v = s->L->row_vertex[j];
        for (int b = 0; b < 3 && s->fmap[v] >= 0; b++)
            want[s->fmap[v] + b] = 1;
    }
    for (int j = 0; s->Kcf && j < s->nf; j++)
        want[j] |= ((int *)s->Kcf->p)[j + 1] > ((int *)s->Kcf->p)[j];
    for (int k = 0; k < 4 * s->np; k++) /* the interior points' tets */
        for (int b = 0; b < 3 && s->fmap[s->ptv[k]] >= 0; b++)
            want[s->fmap[s->ptv[k]] + b] = 1;
    int st = ep_chol_rplan_init(&s->plan, s->K, want);
    free(want);
    return st;
}


/* Solved blocks on their way to the sink.  One writer thread calls the
 * sink (one call at a time: HDF5 is not thread-safe) while the solving
 * threads go on in their other buffer, so a wait for the disk holds no
 * core (with the writes inside the solve loop a thread stood idle for each:
 * femcondense's "write" line, doc/DECISIONS.md). */
typedef struct {
    long row0;
    int nrows, slot;                /* slot 2 t + i: worker t's rows[i] */
    size_t skip;                    /* values of the buffer before the GF rows (the body rows') */
} handed;

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t queued, written; /* a block waits for the writer; a buffer is free again */
    const ep_gf_sink *sink;
    worker *w;
    handed *q;                      /* ring of 2 nt: each worker holds at most its two buffers */
    int head, count, size;
    long total, done;
    int closed, failed, status;     /* no more blocks; a block or a write failed: its status, message */
    char msg[1024];
    double t_write;                 /* seconds in the sink */
} handoff;

/* Record the first failure (st, with the calling thread's message); lock held. */
static void handoff_fail(handoff *h, int st)
{
    if (!h->failed) {
        h->failed = 1;
        h->status = st;
        snprintf(h->msg, sizeof h->msg, "%s", ep_errmsg());
    }
    pthread_cond_broadcast(&h->written);
}

static void *handoff_writer(void *arg)
{
    handoff *h = arg;
    omp_set_num_threads(1); /* a sink's own loops (gfzip) stay on this thread: the solvers hold the cores */
    pthread_mutex_lock(&h->lock);
    for (;;) {
        while (!h->count && !h->closed)
            pthread_cond_wait(&h->queued, &h->lock);
        if (!h->count)
            break;
        handed b = h->q[h->head];
        int failed = h->failed, st = EP_OK;
        h->head = (h->head + 1) % h->size;
        h->count--;
        pthread_mutex_unlock(&h->lock);
        double t0 = ep_now();
        if (!failed)
            st = h->sink->put(h->sink->ctx, b.row0, b.nrows, h->w[b.slot / 2].rows[b.slot % 2] + b.skip);
        h->t_write += ep_now() - t0;
        if (!st && !failed && h->sink->progress) /* outside the lock: a slow terminal holds no solver */
            h->sink->progress(h->sink->ctx, h->done + b.nrows, h->total);
        pthread_mutex_lock(&h->lock);
        h->w[b.slot / 2].busy[b.slot % 2] = 0;
        h->done += b.nrows;
        if (st)
            handoff_fail(h, st);
        pthread_cond_broadcast(&h->written);
    }
    pthread_mutex_unlock(&h->lock);
    return NULL;
}

/* The solve loop of solve_all, with the writer started: every block solved
 * and handed over, then the writer joined.  0 or the first failure's status. */
static int handoff_run(const gfsys *s, worker *w, int nt, handoff *h, pthread_t writer, ep_femgf_stats *stats)
{
    /* block 0: the body rows (if any) and GF rows [0, g0); block b > 0: GF
     * rows from g0 + (b - 1) k, k of them (without body rows, b k) */
    long total = h->total, nblocks = total > s->g0 ? 1 + (total - s->g0 + s->k - 1) / s->k : (total || s->nbody);
    int st = EP_OK;
    double t1 = ep_now();
#pragma omp parallel num_threads(nt)
    {
        int t = omp_get_thread_num();
        worker *me = &w[t];
#pragma omp for schedule(dynamic, 1)
        for (long b = 0; b < nblocks; b++) {
            pthread_mutex_lock(&h->lock);
            while (me->busy[me->cur] && !h->failed)
                pthread_cond_wait(&h->written, &h->lock);
            int failed = h->failed;
            pthread_mutex_unlock(&h->lock);
            if (failed)
                continue;
            long b0 = b ? s->g0 + (b - 1) * s->k : 0, width = b ? s->k : s->g0;
            int nq = (int)(total - b0 < width ? total - b0 : width), lead = b ? 0 : s->nbody;
            double c0 = ep_stats_thread_cpu();
            int bst = solve_block(s, b0, lead, lead + nq, me, me->rows[me->cur]);
            me->cpu += ep_stats_thread_cpu() - c0;
            pthread_mutex_lock(&h->lock);
            if (bst) {
                handoff_fail(h, bst);
            } else if (nq) {
                size_t skip = (size_t)lead * (size_t)s->n3;
                h->q[(h->head + h->count++) % h->size] = (handed){b0, nq, 2 * t + me->cur, skip};
                me->busy[me->cur] = 1;
                me->cur ^= 1;
                pthread_cond_signal(&h->queued);
            }
            pthread_mutex_unlock(&h->lock);
        }
    }
    stats->t_solve = ep_now() - t1;
    pthread_mutex_lock(&h->lock);
    h->closed = 1;
    pthread_cond_signal(&h->queued);
    pthread_mutex_unlock(&h->lock);
    pthread_join(writer, NULL);
    if (h->failed)
        st = ep_fail(h->status, "%s", h->msg);
    stats->t_write = h->t_write;
    stats->solve_flops = 0;
    for (int t = 0; t < nt; t++) {
        stats->solve_flops += w[t].flops, stats->t_solve_cpu += w[t].cpu - w[t].body_cpu;
        stats->body_flops += w[t].body_flops, stats->t_body_cpu += w[t].body_cpu, stats->t_body += w[t].body_wall;
        stats->body_lead_flops += w[t].lead_flops, stats->t_body_lead_cpu += w[t].lead_cpu;
    }
    stats->full_flops = 4.0 * stats->lnz * (double)total;
    return st;
}

/* Phase 3: every block of right-hand sides.  Blocks go to threads
 * dynamically, and a solved block to the writer at once, so no thread
 * waits for the slowest block of a round or for the disk. */
static int solve_all(const gfsys *s, worker *w, int nt, const ep_gf_sink *sink, ep_femgf_stats *stats)
{
    long total = 3L * s->L->m;
    int st;
    pthread_t writer;
    handoff h = {.sink = sink, .w = w, .total = total, .size = 2 * nt};
    if (!(h.q = ep_malloc((size_t)h.size, sizeof *h.q)))
        return ep_fail(EP_ECOMPUTE, "out of memory (solve blocks)");
    pthread_mutex_init(&h.lock, NULL);
    pthread_cond_init(&h.queued, NULL);
    pthread_cond_init(&h.written, NULL);
    if (pthread_create(&writer, NULL, handoff_writer, &h))
        st = ep_fail(EP_ECOMPUTE, "cannot start the GF writer thread");
    else
        st = handoff_run(s, w, nt, &h, writer, stats);
    pthread_cond_destroy(&h.written);
    pthread_cond_destroy(&h.queued);
    pthread_mutex_destroy(&h.lock);
    free(h.q);
    return st;
}

int ep_femgf_solve(const ep_mesh *m, const ep_material *mat, const char *fixed, const ep_gf_layout *L,
                   const ep_femgf_opts *o, const ep_gf_sink *sink, double **condensed,
                   ep_femgf_stats *stats)
{
    gfsys s;
    condsys cs = {0};
    cholmod_common c;
    cholmod_sparse *Kff = NULL;
    worker *w = NULL;
    int st, nt = omp_get_max_threads();
    char *keep = ep_malloc((size_t)m->nv, 1);
    double t0 = ep_now(), t1;

    memset(&s, 0, sizeof s);
    memset(stats, 0, sizeof *stats);
    ep_chol_start(&c);
    if (!keep) {
        st = EP_ECOMPUTE;
        goto out;
    }
    if ((st = sys_build(&s, m, mat, fixed, L, o, keep, &Kff, &c)))
        goto out;
    stats->t_assemble = ep_now() - t0;
    /* Symbolic analysis first: the memory guard needs the factor's size. */
    if (!(s.K = ep_chol_analyze(Kff, 3, &c))) {
        st = ep_chol_fail("ordering of the stiffness", &c);
        goto out;
    }
    stats->lnz = c.lnz;
    stats->ndof = s.nf;
    t1 = ep_now();
    if ((o->condensed && (st = cond_build(&cs, m, mat, fixed, &s, keep, &c))) ||
        (st = memory_guard(&s, &cs, m, Kff, nt, o, &c, stats)))
        goto out;
    stats->t_assemble += ep_now() - t1;
    t1 = ep_now();
    if ((st = ep_chol_factorize(Kff, s.K, "the stiffness", &c)))
        goto out;
    stats->t_factor = ep_now() - t1;
    cholmod_free_sparse(&Kff, &c); /* the factor is all the solves need */
    if ((st = plan_solves(&s)))
        goto out;
    if (!(w = workers_new(&s, nt))) {
        st = EP_ECOMPUTE;
        goto out;
    }
    t1 = ep_now();
    if (s.nbd) { /* nbd solves on the factor, counted with it; BLAS on one thread, as the
                  * blocks' solves run (ep_blas_serial): the same bits on any count */
        ep_blas_threads blas = ep_blas_serial();
        st = border_solve(&s, &w[0]);
        ep_blas_restore(blas);
        if (st)
            goto out;
    }
    stats->border_rank = s.nbd;
    stats->border_rows = s.nfrows;
    stats->border_supernodes = s.nfsuper;
    stats->t_factor += ep_now() - t1;
    if ((st = solve_all(&s, w, nt, sink, stats)))
        goto out;
    if (o->condensed) {
        t1 = ep_now();
        if ((cs.FI && (st = ep_chol_factorize(cs.KII, cs.FI, "the interior stiffness", &c))) ||
            (st = condense(m, mat, s.k, cs.FI, cs.imap, cs.ni, cs.bmap, cs.nb3, condensed, &c)))
            goto out;
        stats->t_condense = ep_now() - t1;
    }
    stats->peak = (double)c.memory_usage;
    for (int t = 0; t < nt; t++)
        stats->peak += (double)w[t].c.memory_usage;
out:
    workers_free(w, nt);
    cholmod_free_sparse(&Kff, &c);
    cond_free(&cs, &c);
    sys_free(&s, &c);
    cholmod_finish(&c);
    free(keep);
    return st;
}
