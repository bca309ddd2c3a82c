/*
 * cubic.c — reduced StVK cubic polynomials by the quartic-energy route
 * (cubic.h), over tets, voxels (hex.h's box samples) and other hexes.
 */
#include "cubic.h"
#include "hex.h"
#include "tet.h"
#include "err.h"
#include "kernel.h"
#include "worker.h"

#include <assert.h>
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

long ep_cubic_npairs(int r) { return (long)r * (r + 1) / 2; }
long ep_cubic_ntriples(int r) { return (long)r * (r + 1) * (r + 2) / 6; }

long ep_cubic_pair(int r, int i, int j)
{
    assert(0 <= i && i <= j && j < r);
    /* pairs (0,0..r-1), (1,1..r-1), ...: rows before i hold r + (r-1) + ... */
    return (long)i * r - (long)i * (i - 1) / 2 + (j - i);
}

long ep_cubic_triple(int r, int i, int j, int k)
{
    assert(0 <= i && i <= j && j <= k && k < r);
    /* triples with first index below i, then pairs (j, k) of indices i..r-1 */
    long before = ep_cubic_ntriples(r) - ep_cubic_ntriples(r - i);
    return before + ep_cubic_pair(r - i, j - i, k - i);
}

int ep_cubic_alloc(ep_cubic *c, int r)
{
    memset(c, 0, sizeof *c);
    c->r = r;
    c->P = ep_calloc((size_t)r * r, sizeof *c->P);
    c->Q = ep_calloc((size_t)ep_cubic_npairs(r) * r, sizeof *c->Q);
    c->S = ep_calloc((size_t)ep_cubic_ntriples(r) * r, sizeof *c->S);
    if (!c->P || !c->Q || !c->S) {
        ep_cubic_free(c);
        return EP_ECOMPUTE;
    }
    return EP_OK;
}

void ep_cubic_free(ep_cubic *c)
{
    free(c->P);
    free(c->Q);
    free(c->S);
    memset(c, 0, sizeof *c);
}

long ep_cubic_runtime_bytes(int r)
{
    long np = ep_cubic_npairs(r), nt = ep_cubic_ntriples(r);
    return 8 * ((long)r * (r + np + nt) + np * (1 + r + np));
}

#define ROWS 7             /* energy components per integration point: 6 (mu) + 1 (lambda) */
#define CHUNK_ROWS (7 * 2048) /* rows stacked per BLAS-3 product */
#define HEX_POINTS (EP_HEX_RULE_STVK * EP_HEX_RULE_STVK * EP_HEX_RULE_STVK)
#define BOX_TOL 1e-10      /* a hex this close to a box is integrated by the box samples */

/* The factor of a box's Gram matrix (hex.h): G is block diagonal, a 27 x 27
 * block over the diagonal strains' samples (coupled by tr(E)^2) and a
 * diagonal over the 36 shear samples, so e^T G e = |F e_27|^2 + sum d_s^2
 * e_s^2 with F = sqrt(Lambda) Q^T from G_27 = Q Lambda Q^T (an eigen
 * decomposition: the lambda-only part is singular).  Kept per thread for
 * the last (lambda, mu, V, part): a voxel mesh has one. */
typedef struct {
    double lambda, mu, V;
    int part;
    double F[27 * 27], d[36];
    double xi[EP_HEX_BOX_SAMPLES][3];
    int comp[EP_HEX_BOX_SAMPLES];
} box_factor;

static int box_factor_set(box_factor *bf, double lambda, double mu, double V, int part)
{
    if (bf->V == V && bf->lambda == lambda && bf->mu == mu && bf->part == part)
        return EP_OK;
    enum { NS = EP_HEX_BOX_SAMPLES };
    double G[NS * NS], ev[27];
    ep_hex_box_gram(part == 2 ? 0 : lambda, part == 1 ? 0 : mu, V, G);
    for (int a = 0; a < 27; a++)
        for (int b = 0; b < 27; b++)
            bf->F[a * 27 + b] = G[a * NS + b];
    if (LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'V', 'U', 27, bf->F, 27, ev))
        return ep_fail(EP_ECOMPUTE, "eigenvalues of a box's Gram matrix did not converge");
    /* columns of F are the eigenvectors: F^T scaled by sqrt(ev) row-wise */
    double Q[27 * 27];
    memcpy(Q, bf->F, sizeof Q);
    for (int a = 0; a < 27; a++)
        for (int b = 0; b < 27; b++)
            bf->F[a * 27 + b] = sqrt(fmax(ev[a], 0)) * Q[b * 27 + a];
    for (int s = 27; s < NS; s++)
        bf->d[s - 27] = sqrt(G[s * NS + s]);
    ep_hex_box_samples(bf->xi, bf->comp);
    bf->lambda = lambda, bf->mu = mu, bf->V = V, bf->part = part;
    return EP_OK;
}

static const int comp_ij[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};

/* Component c (0..5: 11, 22, 33, 12, 13, 23) of sym(A). */
static double sym_comp(const double A[3][3], int c)
{
    int i = comp_ij[c][0], j = comp_ij[c][1];
    return 0.5 * (A[i][j] + A[j][i]);
}

/* Component c of sym(A_jk), A_jk the q_j q_k part of D^T D / 2 (below). */
static double quadratic_comp(const double (*D)[3][3], int j, int k, int c)
{
    int a = comp_ij[c][0], b = comp_ij[c][1];
    double f = j == k ? 0.25 : 0.5; /* (1/2 or 1) times the 1/2 of sym */
    return f * (D[j][0][a] * D[k][0][b] + D[j][1][a] * D[k][1][b] + D[j][2][a] * D[k][2][b] + D[j][0][b] * D[k][0][a] +
                D[j][1][b] * D[k][1][a] + D[j][2][b] * D[k][2][a]);
}

/* D_j = grad of basis vector j over the element's corners, with gradients g. */
static void basis_gradients(const double *U, int r, size_t n3, const int *c, int k, const double g[8][3],
                            double (*D)[3][3])
{
    for (int j = 0; j < r; j++) {
        memset(D[j], 0, sizeof D[j]);
        for (int a = 0; a < k; a++) {
            const double *u = &U[(size_t)j * n3 + 3 * (size_t)c[a]];
            for (int i = 0; i < 3; i++)
                for (int l = 0; l < 3; l++)
                    D[j][i][l] += u[i] * g[a][l];
        }
    }
}

/* A_jk = f D_j^T D_k, f = 1/2 when j = k: the q_j q_k part of D^T D / 2. */
static void quadratic_part(const double (*D)[3][3], int j, int k, double A[3][3])
{
    double f = j == k ? 0.5 : 1.0;
    for (int i = 0; i < 3; i++)
        for (int l = 0; l < 3; l++)
            A[i][l] = f * (D[j][0][i] * D[k][0][l] + D[j][1][i] * D[k][1][l] + D[j][2][i] * D[k][2][l]);
}

/* Rows of one integration point of weight w: sqrt(mu w) (E11, E22, E33,
 * sqrt2 E12, sqrt2 E13, sqrt2 E23) and sqrt(lambda w / 2) tr E, for
 * E = sym(D_j) (column j of b) and E = the q_j q_k part of D^T D / 2
 * (column p of c).  part: 0 all rows, 1 the lambda row only, 2 the mu rows
 * only (zeros elsewhere). */
static void point_rows(double lambda, double mu, double w, int part, const double (*D)[3][3], int r, double *b,
                       long ldb, double *cc, long ldc)
{
    double sm = part == 1 ? 0 : sqrt(mu * w), sl = part == 2 ? 0 : sqrt(lambda * w / 2), r2 = sqrt(2.0);
#define ROWS_OF(E, out, ld)                                                                  \
    do {                                                                                     \
        (out)[0] = sm * (E)[0][0];                                                           \
        (out)[ld] = sm * (E)[1][1];                                                          \
        (out)[2 * (ld)] = sm * (E)[2][2];                                                    \
        (out)[3 * (ld)] = sm * r2 * 0.5 * ((E)[0][1] + (E)[1][0]);                           \
        (out)[4 * (ld)] = sm * r2 * 0.5 * ((E)[0][2] + (E)[2][0]);                           \
        (out)[5 * (ld)] = sm * r2 * 0.5 * ((E)[1][2] + (E)[2][1]);                           \
        (out)[6 * (ld)] = sl * ((E)[0][0] + (E)[1][1] + (E)[2][2]);                          \
    } while (0)
    for (int j = 0; j < r; j++)
        ROWS_OF(D[j], b + j, ldb);
    for (int j = 0; j < r; j++)
        for (int k = j; k < r; k++) {
            double A[3][3];
            quadratic_part(D, j, k, A);
            ROWS_OF(A, cc + ep_cubic_pair(r, j, k), ldc);
        }
#undef ROWS_OF
}

/* Per-thread workspace of element_rows. */
typedef struct {
    double (*D)[3][3];   /* [r] */
    double *eb, *ec;     /* box samples: [63][r], [63][np] */
    box_factor bf;
} rows_work;

/* Rows of one element (nrows of them, the rest of its slot zero): a tet
 * has one point; a box the 63 samples whose Gram factor rows are exact
 * (hex.h); any other hex 27 Gauss points.  b, cc: the element's slot, row
 * stride ldb = r and ldc = np. */
static int element_rows(const ep_mesh *m, const ep_material *mat, const double *U, int r, int e, int part,
                        int nrows, rows_work *wk, double *b, long ldb, double *cc, long ldc)
{
    const int *el;
    int k;
    ep_mesh_elements(m, &el, &k);
    const int *c = &el[(size_t)k * e];
    size_t n3 = 3 * (size_t)m->nv;
    long np = ep_cubic_npairs(r);
    double lambda, mu, x[8][3], h[3];
    ep_material_lame(mat, e, &lambda, &mu);
    for (int a = 0; a < k; a++)
        memcpy(x[a], &m->vertices[3 * (size_t)c[a]], sizeof x[a]);
    if (k == 4) {
        double vol, g[8][3];
        ep_tet_gradients(x, &vol, g);
        assert(vol > 0); /* every mesh passed ep_mesh_check_tets */
        basis_gradients(U, r, n3, c, k, g, wk->D);
        point_rows(lambda, mu, vol, part, wk->D, r, b, ldb, cc, ldc);
        return EP_OK;
    }
    int box = ep_hex_is_box(x, BOX_TOL, h), used = box ? EP_HEX_BOX_SAMPLES : ROWS * HEX_POINTS;
    if (nrows > used) { /* a box in a mesh with other hexes: its slot's tail */
        memset(b + (size_t)used * ldb, 0, sizeof(double) * (size_t)(nrows - used) * ldb);
        memset(cc + (size_t)used * ldc, 0, sizeof(double) * (size_t)(nrows - used) * ldc);
    }
    if (!box) {
        double w[HEX_POINTS], g[HEX_POINTS][8][3];
        if (ep_hex_rule(x, EP_HEX_RULE_STVK, w, g, NULL))
            return EP_EINPUT;
        for (int p = 0; p < HEX_POINTS; p++) {
            basis_gradients(U, r, n3, c, k, g[p], wk->D);
            point_rows(lambda, mu, w[p], part, wk->D, r, b + (size_t)ROWS * p * ldb, ldb, cc + (size_t)ROWS * p * ldc,
                       ldc);
        }
        return EP_OK;
    }
    box_factor *bf = &wk->bf;
    int st = box_factor_set(bf, lambda, mu, h[0] * h[1] * h[2], part);
    if (st)
        return st;
    for (int s = 0; s < EP_HEX_BOX_SAMPLES; s++) { /* the samples' values, e_s = E_comp(xi_s) */
        double g[8][3];
        ep_hex_gradients(x, bf->xi[s], g);
        basis_gradients(U, r, n3, c, k, g, wk->D);
        double *eb = wk->eb + (size_t)s * r, *ec = wk->ec + (size_t)s * np;
        for (int j = 0, p = 0; j < r; j++) {
            eb[j] = sym_comp(wk->D[j], bf->comp[s]);
            for (int kk = j; kk < r; kk++, p++)
                ec[p] = quadratic_comp(wk->D, j, kk, bf->comp[s]);
        }
    }
    /* rows 0..26: F e_27; rows 27..62: d_s e_s */
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 27, r, 27, 1.0, bf->F, 27, wk->eb, r, 0.0, b, (int)ldb);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 27, (int)np, 27, 1.0, bf->F, 27, wk->ec, (int)np, 0.0, cc,
                (int)ldc);
    for (int s = 27; s < EP_HEX_BOX_SAMPLES; s++) {
        double d = bf->d[s - 27];
        for (int j = 0; j < r; j++)
            b[(size_t)s * ldb + j] = d * wk->eb[(size_t)s * r + j];
        for (long p = 0; p < np; p++)
            cc[(size_t)s * ldc + p] = d * wk->ec[(size_t)s * np + p];
    }
    return EP_OK;
}

/* Rows per element the mesh needs: 7 (tets), 63 (all hexes boxes), 189. */
static int mesh_rows(const ep_mesh *m)
{
    if (m->tets)
        return ROWS;
    for (int e = 0; e < m->nh; e++) {
        double x[8][3], h[3];
        for (int a = 0; a < 8; a++)
            memcpy(x[a], &m->vertices[3 * (size_t)m->hexes[8 * (size_t)e + a]], sizeof x[a]);
        if (!ep_hex_is_box(x, BOX_TOL, h))
            return ROWS * HEX_POINTS;
    }
    return EP_HEX_BOX_SAMPLES;
}

/* BB (r x r), BC (r x np), CC (np x np, upper) summed over all elements. */
static int accumulate(const ep_mesh *m, const ep_material *mat, const double *U, int r, int part, int e_lo,
                      int e_hi, double *BB, double *BC, double *CC)
{
    int rows_e = mesh_rows(m), chunk = CHUNK_ROWS / rows_e > 0 ? CHUNK_ROWS / rows_e : 1;
    long np = ep_cubic_npairs(r), rows = (long)rows_e * chunk;
    double *B = ep_malloc((size_t)rows * r, sizeof *B), *C = ep_malloc((size_t)rows * np, sizeof *C);
    int failed = 0, nt = omp_get_max_threads();
    rows_work *wks = ep_calloc((size_t)nt, sizeof *wks); /* per thread, kept over the chunks (the box factor) */
    if (!B || !C || !wks) {
        free(B);
        free(C);
        free(wks);
        return EP_ECOMPUTE;
    }
    for (int t = 0; t < nt && !failed; t++) {
        wks[t].D = malloc(sizeof *wks[t].D * (size_t)r);
        if (m->hexes) {
            wks[t].eb = malloc(sizeof(double) * EP_HEX_BOX_SAMPLES * (size_t)r);
            wks[t].ec = malloc(sizeof(double) * EP_HEX_BOX_SAMPLES * (size_t)np);
        }
        failed = !wks[t].D || (m->hexes && (!wks[t].eb || !wks[t].ec));
    }
    memset(BB, 0, sizeof(double) * (size_t)r * r);
    memset(BC, 0, sizeof(double) * (size_t)r * np);
    memset(CC, 0, sizeof(double) * (size_t)np * np);
    for (int e0 = e_lo; e0 < e_hi && !failed; e0 += chunk) {
        int ne = e_hi - e0 < chunk ? e_hi - e0 : chunk;
        /* B and C row-major with leading dimension r and np: element rows stacked */
#pragma omp parallel num_threads(nt) reduction(| : failed)
        {
            rows_work *wk = &wks[omp_get_thread_num()];
#pragma omp for schedule(static)
            for (int e = 0; e < ne; e++)
                if (!failed)
                    failed = element_rows(m, mat, U, r, e0 + e, part, rows_e, wk, B + (size_t)rows_e * e * r, r,
                                          C + (size_t)rows_e * e * np, np) != EP_OK;
        }
        if (failed)
            break;
        int nr = rows_e * ne;
        cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, r, nr, 1.0, B, r, 1.0, BB, r);
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, r, (int)np, nr, 1.0, B, r, C, (int)np, 1.0, BC, (int)np);
        cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, (int)np, nr, 1.0, C, (int)np, 1.0, CC, (int)np);
    }
    for (int t = 0; t < nt; t++) {
        free(wks[t].D);
        free(wks[t].eb);
        free(wks[t].ec);
    }
    free(wks);
    free(B);
    free(C);
    return failed ? ep_fail(EP_ECOMPUTE, "out of memory (element gradients) or a degenerate element") : EP_OK;
}

/* R = dE/dq of E = q^T BB q + 2 q^T BC w + w^T CC w (row-major, upper
 * triangles of BB and CC valid). */
static void coefficients(int r, const double *BB, const double *BC, const double *CC, ep_cubic *c)
{
    long np = ep_cubic_npairs(r);
#define SYM(A, n, i, j) ((i) <= (j) ? (A)[(size_t)(i) * (n) + (j)] : (A)[(size_t)(j) * (n) + (i)])
#define PR(i, j) ((i) <= (j) ? ep_cubic_pair(r, i, j) : ep_cubic_pair(r, j, i))
    for (int i = 0; i < r; i++) /* linear: 2 BB q */
        for (int mm = 0; mm < r; mm++)
            c->P[(size_t)i * r + mm] = 2 * SYM(BB, r, mm, i);
    /* quadratic: 2 BC[m,(a,b)] + 2 sum over (i,k) = (a,b),(b,a) of (1 + d_mk) BC[i,(m,k)] */
    for (int a = 0; a < r; a++)
        for (int b = a; b < r; b++) {
            double *row = c->Q + (size_t)ep_cubic_pair(r, a, b) * r;
            for (int mm = 0; mm < r; mm++) {
                double v = 2 * BC[(size_t)mm * np + ep_cubic_pair(r, a, b)];
                v += 2 * (1 + (mm == b)) * BC[(size_t)a * np + PR(mm, b)];
                if (a != b)
                    v += 2 * (1 + (mm == a)) * BC[(size_t)b * np + PR(mm, a)];
                row[mm] = v;
            }
        }
    /* cubic: for each distinct k of the monomial q_a q_b q_e, 2 (1 + d_mk) CC[(m,k), rest] */
    for (int a = 0; a < r; a++)
        for (int b = a; b < r; b++)
            for (int e = b; e < r; e++) {
                double *row = c->S + (size_t)ep_cubic_triple(r, a, b, e) * r;
                int ks[3] = {a, b, e};
                for (int mm = 0; mm < r; mm++) {
                    double v = 0;
                    for (int t = 0; t < 3; t++) {
                        if ((t == 1 && b == a) || (t == 2 && (e == b || e == a)))
                            continue; /* each distinct value once */
                        int k = ks[t], c1 = ks[(t + 1) % 3], c2 = ks[(t + 2) % 3];
                        v += 2 * (1 + (mm == k)) * SYM(CC, np, PR(mm, k), PR(c1, c2));
                    }
                    row[mm] = v;
                }
            }
#undef SYM
#undef PR
}

int ep_cubic_compute(ep_cubic *total, ep_cubic *lam, ep_cubic *mu, const ep_mesh *m, const ep_material *mat,
                     const double *U, int r)
{
    return ep_cubic_compute_elements(total, lam, mu, m, mat, U, r, 0, ep_mesh_nelements(m));
}

int ep_cubic_compute_elements(ep_cubic *total, ep_cubic *lam, ep_cubic *mu, const ep_mesh *m,
                              const ep_material *mat, const double *U, int r, int e0, int e1)
{
    long np = ep_cubic_npairs(r);
    double *BB = ep_malloc((size_t)r * r, sizeof *BB), *BC = ep_malloc((size_t)r * np, sizeof *BC);
    double *CC = ep_malloc((size_t)np * np, sizeof *CC);
    int st = BB && BC && CC ? EP_OK : EP_ECOMPUTE;
    ep_cubic *out[3] = {total, lam, mu};
    for (int part = 0; part < 3 && !st; part++) {
        if (!out[part])
            continue;
        if ((st = ep_cubic_alloc(out[part], r)) || (st = accumulate(m, mat, U, r, part, e0, e1, BB, BC, CC)))
            break;
        coefficients(r, BB, BC, CC, out[part]);
    }
    free(BB);
    free(BC);
    free(CC);
    return st;
}

void ep_cubic_force(const ep_cubic *c, const double *q, double *R, double *w)
{
    int r = c->r;
    long np = ep_cubic_npairs(r), nt = ep_cubic_ntriples(r);
    double *w3 = w + np;
    for (int i = 0, p = 0, t = 0; i < r; i++)
        for (int j = i; j < r; j++, p++) {
            w[p] = q[i] * q[j];
            for (int k = j; k < r; k++, t++)
                w3[t] = q[i] * q[j] * q[k];
        }
    cblas_dgemv(CblasRowMajor, CblasTrans, r, r, 1.0, c->P, r, q, 1, 0.0, R, 1);
    cblas_dgemv(CblasRowMajor, CblasTrans, (int)np, r, 1.0, c->Q, r, w, 1, 1.0, R, 1);
    cblas_dgemv(CblasRowMajor, CblasTrans, (int)nt, r, 1.0, c->S, r, w3, 1, 1.0, R, 1);
}

void ep_cubic_stiffness(const ep_cubic *c, const double *q, double *K)
{
    int r = c->r;
    /* K[m][a] = P[a][m] + sum_b Q[(a,b)][m] q_b (1 + d_ab)
     *         + sum over triples containing a: S[t][m] d(q_i q_j q_k)/dq_a */
    for (int mm = 0; mm < r; mm++)
        for (int a = 0; a < r; a++)
            K[(size_t)mm * r + a] = c->P[(size_t)a * r + mm];
    for (int i = 0; i < r; i++)
        for (int j = i; j < r; j++) {
            const double *row = c->Q + (size_t)ep_cubic_pair(r, i, j) * r;
            for (int mm = 0; mm < r; mm++) { /* d(q_i q_j)/dq_i = q_j, /dq_j = q_i */
                K[(size_t)mm * r + i] += row[mm] * q[j];
                K[(size_t)mm * r + j] += row[mm] * q[i];
            }
        }
    for (int i = 0, t = 0; i < r; i++)
        for (int j = i; j < r; j++)
            for (int k = j; k < r; k++, t++) {
                const double *row = c->S + (size_t)t * r;
                double di = q[j] * q[k], dj = q[i] * q[k], dk = q[i] * q[j];
                for (int mm = 0; mm < r; mm++) {
                    K[(size_t)mm * r + i] += row[mm] * di;
                    K[(size_t)mm * r + j] += row[mm] * dj;
                    K[(size_t)mm * r + k] += row[mm] * dk;
                }
            }
}

/* Start of the panel of rows p..p+3 (p a multiple of 4): the panels above
 * hold 4 (np - i) entries each, i = 0, 4, .., p - 4. */
static long panel_offset(int np, int p) { return (long)p * np - (long)p * (p - 4) / 2; }

/* Where the panel storage keeps entry (i, j) of T: in the diagonal blocks
 * both halves, elsewhere the upper one; within a panel, 4 x 4 blocks of
 * four row pieces of four. */
static double *panel_entry(const ep_cubic_tangent *t, long i, long j)
{
    if (i / 4 != j / 4 && j < i) {
        long k = i;
        i = j, j = k;
    }
    long p = i / 4 * 4;
    return &t->T[panel_offset(t->np, (int)p) + (j - p) / 4 * 16 + (i - p) * 4 + (j - p) % 4];
}

/* The entries of T (cubic.h): with e = (m, a), m <= a < r,
 *   K[m][a] = P[a][m] + sum_b (1 + d_ab) Q[(a,b)][m] q_b
 *           + sum_{b<=c} count_a(abc) S[sort(a,b,c)][m] q_b q_c,
 * so T[e][(r,r)] = P[a][m], T[e][(b,r)] = (1 + d_ab) Q[(a,b)][m] / 2 (w is
 * 2 q_b there), and T[e][(b,c)] the last coefficient over (2 - d_bc), which
 * is symmetric under swapping the pairs (m,a) and (b,c) (both are
 * derivatives of one quartic energy).  The block of the pairs (i, r) holds
 * P, so that H_(i,r) = (the part of R_i of degree 2, from the Q entries
 * above by symmetry) + 2 (P q)_i. */
int ep_cubic_tangent_prepare(ep_cubic_tangent *t, const ep_cubic *c)
{
    int r = c->r;
    long nr = ep_cubic_npairs(r), ns = ep_cubic_npairs(r + 1);
    memset(t, 0, sizeof *t);
    t->r = r;
    t->np = (int)((ns + 3) / 4 * 4);
    size_t nT = (size_t)panel_offset(t->np, t->np);
    if (!(t->T = aligned_alloc(64, (nT * sizeof *t->T + 63) / 64 * 64)))
        return ep_fail(EP_ECOMPUTE, "out of memory (%zu bytes)", nT * sizeof *t->T);
    memset(t->T, 0, nT * sizeof *t->T); /* the padding rows and columns stay 0 */
    while (t->split < t->np && 2 * ((long)nT - panel_offset(t->np, t->split)) > (long)nT)
        t->split += 4; /* with a helper: it takes the panels from split on, half the bytes */
    for (int m = 0; m < r; m++)
        for (int a = m; a < r; a++) {
            long e = ep_cubic_pair(r, m, a);
            *panel_entry(t, e, nr + r) = *panel_entry(t, nr + r, e) = c->P[(size_t)a * r + m];
            for (int b = 0; b < r; b++)
                *panel_entry(t, e, nr + b) = *panel_entry(t, nr + b, e) =
                    (1 + (a == b)) * c->Q[(size_t)(a <= b ? ep_cubic_pair(r, a, b) : ep_cubic_pair(r, b, a)) * r + m] / 2;
            for (int b = 0; b < r; b++)
                for (int cc = b; cc < r; cc++) {
                    long p = ep_cubic_pair(r, b, cc);
                    if (p > e)
                        continue; /* (e, p) is set with (p, e) */
                    int s[3] = {a, b, cc}, tmp;
                    if (s[0] > s[1]) tmp = s[0], s[0] = s[1], s[1] = tmp;
                    if (s[1] > s[2]) tmp = s[1], s[1] = s[2], s[2] = tmp;
                    if (s[0] > s[1]) tmp = s[0], s[0] = s[1], s[1] = tmp;
                    int count = (a == b) + (a == cc) + 1;
                    double k2 = count * c->S[(size_t)ep_cubic_triple(r, s[0], s[1], s[2]) * r + m];
                    *panel_entry(t, p, e) = *panel_entry(t, e, p) = k2 / (2 - (b == cc));
                }
        }
    for (int i = 0; i < r; i++)
        for (int k = i; k < r; k++)
            *panel_entry(t, nr + i, nr + k) = *panel_entry(t, nr + k, nr + i) = c->P[(size_t)i * r + k];
    return EP_OK;
}

void ep_cubic_tangent_free(ep_cubic_tangent *t)
{
    ep_worker_stop(t->helper);
    free(t->T);
    memset(t, 0, sizeof *t);
}

long ep_cubic_tangent_bytes(int r)
{
    long np = (ep_cubic_npairs(r + 1) + 3) / 4 * 4;
    return 8 * panel_offset((int)np, (int)np);
}

long ep_cubic_tangent_work(int r) { return 3 * ((ep_cubic_npairs(r + 1) + 3) / 4 * 4); }

int ep_cubic_tangent_threads(ep_cubic_tangent *t, int threads) { return ep_worker_use(&t->helper, threads); }

typedef double v4d __attribute__((vector_size(32), aligned(8)));

/* y = the part of T x that the panels of rows [p0, p1) hold, in one
 * sequential pass: each 4 x 4 block right of a panel's diagonal block serves
 * its four rows (s) and, mirrored, four entries of y.  in: T (np), x[np]
 * (zero padded); out: y[np].  2 (entries of the panels) flops.  (One
 * stream the prefetcher follows, where dsymv on the same matrix reads four
 * row streams; tests/bench/cubic_eval times the whole evaluation.) */
EP_KERNEL static void panel_symv(int np, const double *restrict T, int p0, int p1, const double *restrict x,
                                 double *restrict y)
{
    memset(y, 0, sizeof(double) * (size_t)np);
    const v4d *A = (const v4d *)(T + panel_offset(np, p0));
    for (int p = p0; p < p1; p += 4, A += 4) {
        v4d X = *(const v4d *)(x + p), s0 = A[0] * X, s1 = A[1] * X, s2 = A[2] * X, s3 = A[3] * X;
        v4d x0 = {x[p], x[p], x[p], x[p]}, x1 = {x[p + 1], x[p + 1], x[p + 1], x[p + 1]},
            x2 = {x[p + 2], x[p + 2], x[p + 2], x[p + 2]}, x3 = {x[p + 3], x[p + 3], x[p + 3], x[p + 3]};
        for (int k = p + 4; k < np; k += 4) {
            A += 4;
            v4d Xk = *(const v4d *)(x + k);
            s0 += A[0] * Xk, s1 += A[1] * Xk, s2 += A[2] * Xk, s3 += A[3] * Xk;
            *(v4d *)(y + k) += (A[0] * x0 + A[1] * x1) + (A[2] * x2 + A[3] * x3);
        }
        y[p] += (s0[0] + s0[1]) + (s0[2] + s0[3]);
        y[p + 1] += (s1[0] + s1[1]) + (s1[2] + s1[3]);
        y[p + 2] += (s2[0] + s2[1]) + (s2[2] + s2[3]);
        y[p + 3] += (s3[0] + s3[1]) + (s3[2] + s3[3]);
    }
}

/* The helper's share of an evaluation: the panels from split on. */
typedef struct {
    const ep_cubic_tangent *t;
    const double *w2;
    double *y;
} share;

static void helper_share(void *p)
{
    const share *h = p;
    panel_symv(h->t->np, h->t->T, h->t->split, h->t->np, h->w2, h->y);
}

void ep_cubic_tangent_eval(const ep_cubic_tangent *t, const double *q, double *R, double *K, double *w)
{
    int r = t->r, np = t->np;
    long nr = ep_cubic_npairs(r);
    double *w2 = w, *y = w + np, *y1 = y + np;
    for (int i = 0, p = 0; i < r; i++)
        for (int j = i; j < r; j++, p++)
            w2[p] = q[i] * q[j] * (i == j ? 1.0 : 2.0); /* (2 - d_p) w_p */
    for (int k = 0; k < r; k++)
        w2[nr + k] = 2 * q[k]; /* pairs (k, r) with q_r = 1 */
    w2[nr + r] = 1;
    for (long p = nr + r + 1; p < np; p++)
        w2[p] = 0;
    if (t->helper) { /* each thread streams its half of T from its own L2 */
        share h = {t, w2, y1};
        ep_worker_run(t->helper, helper_share, &h);
        panel_symv(np, t->T, 0, t->split, w2, y);
        ep_worker_wait(t->helper);
        for (int e = 0; e < np; e++)
            y[e] += y1[e];
    } else
        panel_symv(np, t->T, 0, np, w2, y);
    for (int m = 0, e = 0; m < r; m++)
        for (int a = m; a < r; a++, e++)
            K[(size_t)m * r + a] = K[(size_t)a * r + m] = y[e];
    for (int i = 0; R && i < r; i++) { /* Euler: R_i = (sum_j K_ij q_j + H_(i,r)) / 3 */
        double s = y[nr + i];
        for (int j = 0; j < r; j++)
            s += K[(size_t)i * r + j] * q[j];
        R[i] = s / 3;
    }
}
