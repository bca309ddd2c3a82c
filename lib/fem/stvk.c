/*
 * stvk.c — St. Venant-Kirchhoff internal force, tangent and Hessian products
 * of tet and hex meshes (stvk.h).
 */
#include "stvk.h"
#include "hex.h"
#include "hexenergy.h"
#include "tet.h"
#include "err.h"
#include "kernel.h"

#include <assert.h>
#include <cblas.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

int ep_stvk_init(ep_stvk *s, const ep_mesh *m, const ep_material *mat)
{
    memset(s, 0, sizeof *s);
    s->m = m;
    s->mat = mat;
    s->ne = ep_mesh_elements(m, &s->el, &s->k);
    if (s->k != 4)
        return EP_OK;
    s->vol = ep_malloc((size_t)s->ne + 1, sizeof *s->vol);
    s->g = ep_malloc((size_t)s->ne + 1, sizeof *s->g);
    if (!s->vol || !s->g) {
        ep_stvk_free(s);
        return EP_ECOMPUTE;
    }
#pragma omp parallel for schedule(static)
    for (int e = 0; e < s->ne; e++) {
        double x[4][3];
        ep_mesh_tet_corners(m, e, x);
        ep_tet_gradients(x, &s->vol[e], s->g[e]);
        assert(s->vol[e] > 0); /* every mesh passed ep_mesh_check_tets */
    }
    return EP_OK;
}

void ep_stvk_free(ep_stvk *s)
{
    free(s->vol);
    free(s->g);
    memset(s, 0, sizeof *s);
}

#define MAXPOINTS (EP_HEX_RULE_STVK * EP_HEX_RULE_STVK * EP_HEX_RULE_STVK)

int ep_stvk_points(const ep_stvk *s, int e, int n, double *w, double (*g)[8][3])
{
    if (s->k == 4) {
        w[0] = s->vol[e];
        memcpy(g[0], s->g[e], sizeof s->g[e]);
        return 1;
    }
    double x[8][3];
    for (int a = 0; a < 8; a++)
        memcpy(x[a], &s->m->vertices[3 * (size_t)s->el[8 * (size_t)e + a]], sizeof x[a]);
    return ep_hex_rule(x, n, w, g, NULL) ? 0 : n * n * n;
}

/* D[i][j] = sum_a u_a[i] g_a[j] over the corners of element e. */
static void gradient(const ep_stvk *s, int e, const double g[8][3], const double *u, double D[3][3])
{
    memset(D, 0, 9 * sizeof(double));
    for (int a = 0; a < s->k; a++) {
        const double *ua = &u[3 * (size_t)s->el[(size_t)s->k * e + a]];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                D[i][j] += ua[i] * g[a][j];
    }
}

/* out_a += w P g_a for the corners of e. */
static void scatter(const ep_stvk *s, int e, double w, const double g[8][3], const double P[3][3], double *out)
{
    for (int a = 0; a < s->k; a++) {
        double *o = &out[3 * (size_t)s->el[(size_t)s->k * e + a]];
        for (int i = 0; i < 3; i++)
            o[i] += w * (P[i][0] * g[a][0] + P[i][1] * g[a][1] + P[i][2] * g[a][2]);
    }
}

/* Per-thread accumulators of n doubles, summed into out at the end. */
typedef struct {
    double *buf;
    int nt;
    size_t n;
} accum;

static int accum_open(accum *acc, size_t n)
{
    acc->nt = omp_get_max_threads();
    acc->n = n;
    acc->buf = ep_calloc((size_t)acc->nt * n, sizeof *acc->buf);
    return acc->buf ? EP_OK : EP_ECOMPUTE;
}

static void accum_close(accum *acc, double *out)
{
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < acc->n; i++) {
        double sum = 0;
        for (int t = 0; t < acc->nt; t++)
            sum += acc->buf[(size_t)t * acc->n + i];
        out[i] = sum;
    }
    free(acc->buf);
}

/* S = lambda tr(E) I + 2 mu E of the strain E. */
static void stress(double lambda, double mu, const double E[3][3], double S[3][3])
{
    double tr = E[0][0] + E[1][1] + E[2][2];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            S[i][j] = lambda * tr * (i == j) + 2.0 * mu * E[i][j];
}

/* P = F S at D = grad u, or (Dv given) its derivative along grad v:
 * dP = Dv S + F dS, dS = S(sym(F^T Dv)). */
static void first_piola(double lambda, double mu, const double D[3][3], const double (*Dv)[3], double P[3][3])
{
    double F[3][3], E[3][3], S[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            F[i][j] = (i == j) + D[i][j];
    for (int i = 0; i < 3; i++) /* Green strain */
        for (int j = 0; j < 3; j++)
            E[i][j] = 0.5 * (F[0][i] * F[0][j] + F[1][i] * F[1][j] + F[2][i] * F[2][j] - (i == j));
    stress(lambda, mu, E, S);
    if (!Dv) {
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                P[i][j] = F[i][0] * S[0][j] + F[i][1] * S[1][j] + F[i][2] * S[2][j];
        return;
    }
    double dE[3][3], dS[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            dE[i][j] = 0.5 * (F[0][i] * Dv[0][j] + F[1][i] * Dv[1][j] + F[2][i] * Dv[2][j] + Dv[0][i] * F[0][j] +
                              Dv[1][i] * F[1][j] + Dv[2][i] * F[2][j]);
    stress(lambda, mu, dE, dS);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            P[i][j] = Dv[i][0] * S[0][j] + Dv[i][1] * S[1][j] + Dv[i][2] * S[2][j] + F[i][0] * dS[0][j] +
                      F[i][1] * dS[1][j] + F[i][2] * dS[2][j];
}

/* f(u), or df(u)[v] when v is given. */
static int force(const ep_stvk *s, const double *u, const double *v, double *f)
{
    accum acc;
    if (accum_open(&acc, 3 * (size_t)s->m->nv))
        return EP_ECOMPUTE;
#pragma omp parallel num_threads(acc.nt)
    {
        double *mine = acc.buf + (size_t)omp_get_thread_num() * acc.n, w[MAXPOINTS], g[MAXPOINTS][8][3];
#pragma omp for schedule(static)
        for (int e = 0; e < s->ne; e++) {
            double lambda, mu;
            ep_material_lame(s->mat, e, &lambda, &mu);
            int n = ep_stvk_points(s, e, EP_HEX_RULE_STVK, w, g);
            for (int p = 0; p < n; p++) {
                double D[3][3], Dv[3][3], P[3][3];
                gradient(s, e, g[p], u, D);
                if (v)
                    gradient(s, e, g[p], v, Dv);
                first_piola(lambda, mu, D, v ? Dv : NULL, P);
                scatter(s, e, w[p], g[p], P, mine);
            }
        }
    }
    accum_close(&acc, f);
    return EP_OK;
}

int ep_stvk_force(const ep_stvk *s, const double *u, double *f) { return force(s, u, NULL, f); }

int ep_stvk_tangent(const ep_stvk *s, const double *u, const double *v, double *out)
{
    return force(s, u, v, out);
}

/* A stretch of the pairs list: pairs p .. p+len-1 are (a, b), (a, b+1), ...
 * (ep_modal_derivatives lists a row of the triangle as one). */
typedef struct {
    int p, a, b, len;
} pair_run;

/* The pairs' products of one element, added into its vertices' runs of acc
 * ([nv][3][npad] in spatial order: component i of pair p at i npad + p).
 * At [nv][3][kp] holds the k fields by vertex rank (kp: k rounded up to 4,
 * plus 4; the lanes past k zero).  At each integration point the k
 * gradients D_q and S1(D_q) are formed four fields a vector and laid out by
 * entry, DT[3l+j][q] = D_q[l][j] and ST likewise (the pad lanes 0), so
 * that for one a the next four b of a run are one vector each: d2P = D_a S1(D_b) + D_b S1(D_a) + lambda tr(E') I +
 * 2 mu E', E' = sym(D_a^T D_b), is 81 FMAs by broadcasts of D_a and S1(D_a)
 * for four pairs, and each corner's four products 9 more; the lanes past a
 * run's end are multiplied by 0 (npad = np + 3 leaves them room).  vrank
 * places a vertex's run, and only the vertices ranked in [rlo, rhi) are kept
 * (the others' go to trash [3][npad]: another thread owns them).  Workspace
 * DT, ST [9][kp].  About 100 k + 260 np flops per point
 * (a tet has 1; hexes take hex_pairs), counting a run's padded lanes as
 * its own, where the scalar loop took 110 k^2 + 130 np, most of it scalar. */
EP_KERNEL static void element_pairs(const ep_stvk *s, const int *vrank, int rlo, int rhi, int e, const double *At,
                                    size_t kp, const pair_run *runs, int nruns, size_t npad, double *restrict trash,
                                    double *restrict DT, double *restrict ST, double *restrict acc)
{
    double lambda, mu, w[MAXPOINTS], g[MAXPOINTS][8][3], *o[8];
    const double *av[8];
    ep_material_lame(s->mat, e, &lambda, &mu);
    int npts = ep_stvk_points(s, e, EP_HEX_RULE_LINEAR, w, g);
    for (int v = 0; v < s->k; v++) {
        int r = vrank[s->el[(size_t)s->k * e + v]];
        o[v] = r >= rlo && r < rhi ? acc + (size_t)r * 3 * npad : trash;
        av[v] = At + (size_t)r * 3 * kp;
    }
    for (int pt = 0; pt < npts; pt++) {
        /* DT[3l+j][q] = sum_v u_(q,v)[l] g_v[j], four fields a vector (the
         * pad lanes stay 0), then ST = S1 of it */
        for (size_t q = 0; q < kp; q += 4) {
            ep_v4d d[9];
#pragma GCC unroll 3
            for (int l = 0; l < 3; l++) {
                ep_v4d u0 = *(const ep_v4d *)(av[0] + l * kp + q), d0 = u0 * g[pt][0][0], d1 = u0 * g[pt][0][1],
                       d2 = u0 * g[pt][0][2];
                for (int v = 1; v < s->k; v++) {
                    ep_v4d u = *(const ep_v4d *)(av[v] + l * kp + q);
                    d0 += u * g[pt][v][0], d1 += u * g[pt][v][1], d2 += u * g[pt][v][2];
                }
                d[3 * l] = d0, d[3 * l + 1] = d1, d[3 * l + 2] = d2;
            }
            ep_v4d tr = lambda * (d[0] + d[4] + d[8]);
#pragma GCC unroll 9
            for (int t = 0; t < 9; t++) {
                int l = t / 3, j = t % 3;
                *(ep_v4d *)(DT + t * kp + q) = d[t];
                *(ep_v4d *)(ST + t * kp + q) = mu * (d[t] + d[3 * j + l]) + (l == j ? tr : (ep_v4d){0, 0, 0, 0});
            }
        }
        double V = w[pt];
        for (int ri = 0; ri < nruns; ri++) {
            const pair_run *run = &runs[ri];
            double Da[3][3], Sa[3][3];
            for (int t = 0; t < 9; t++)
                Da[t / 3][t % 3] = DT[t * kp + run->a], Sa[t / 3][t % 3] = ST[t * kp + run->a];
            for (int c = 0; c < run->len; c += 4) {
                const double *dt = DT + run->b + c, *st = ST + run->b + c;
                ep_v4d d[9], x[3][3], q[3][3];
#pragma GCC unroll 9
                for (int t = 0; t < 9; t++)
                    d[t] = *(const ep_v4d *)(dt + t * kp);
#pragma GCC unroll 3
                for (int i = 0; i < 3; i++)
#pragma GCC unroll 3
                    for (int j = 0; j < 3; j++) {
                        x[i][j] = Da[0][i] * d[j] + Da[1][i] * d[3 + j] + Da[2][i] * d[6 + j];
                        q[i][j] = Da[i][0] * *(const ep_v4d *)(st + j * kp) +
                                  Da[i][1] * *(const ep_v4d *)(st + (3 + j) * kp) +
                                  Da[i][2] * *(const ep_v4d *)(st + (6 + j) * kp) + Sa[0][j] * d[3 * i] +
                                  Sa[1][j] * d[3 * i + 1] + Sa[2][j] * d[3 * i + 2];
                    }
                ep_v4d tr = lambda * (x[0][0] + x[1][1] + x[2][2]);
#pragma GCC unroll 3
                for (int i = 0; i < 3; i++)
#pragma GCC unroll 3
                    for (int j = 0; j < 3; j++)
                        q[i][j] += mu * (x[i][j] + x[j][i]);
#pragma GCC unroll 3
                for (int i = 0; i < 3; i++)
                    q[i][i] += tr;
                int left = run->len - c;
                ep_v4d m = {V, left > 1 ? V : 0, left > 2 ? V : 0, left > 3 ? V : 0};
                for (int v = 0; v < s->k; v++) {
                    ep_v4d g0 = m * g[pt][v][0], g1 = m * g[pt][v][1], g2 = m * g[pt][v][2];
#pragma GCC unroll 3
                    for (int i = 0; i < 3; i++) {
                        ep_v4d *ov = (ep_v4d *)(o[v] + i * npad + run->p + c);
                        *ov += q[i][0] * g0 + q[i][1] * g1 + q[i][2] * g2;
                    }
                }
            }
        }
    }
}

/* The third derivative of a hex's energy at u = 0, T3[24][24][24] (fully
 * symmetric): its cubic part is 2 u^T V W(u) (hexenergy.h) with W_p(u) =
 * u^T S_p u (S_p: 1/2 at (3c+i, 3d+i) and (3d+i, 3c+i) for the corners p =
 * (c, d), c < d; 1 at (3c+i, 3c+i) for c = d), so with Vh[s][t][u] = sum_p
 * V[s][p] S_p[t][u], T3[s][t][u] = 4 (Vh[s][t][u] + Vh[t][s][u] +
 * Vh[u][s][t]).  Vh is nonzero only where t and u are one axis of corners
 * c, d: Vh[s][3c+i][3d+i] = Vc[s][c][d].  About 4e4 flops. */
static double hex_vh(const double Vc[][8][8], int s, int t, int u)
{
    return t % 3 == u % 3 ? Vc[s][t / 3][u / 3] : 0;
}

static void hex_third(const double *V, double *T3)
{
    enum { N = EP_HEXENERGY_DOFS, P = EP_HEXENERGY_PAIRS };
    double Vc[N][8][8];
    for (int c = 0, p = 0; c < 8; c++)
        for (int d = c; d < 8; d++, p++)
            for (int s = 0; s < N; s++)
                Vc[s][c][d] = Vc[s][d][c] = V[s * P + p] * (c == d ? 1.0 : 0.5);
    for (int a = 0; a < N; a++)
        for (int b = 0; b < N; b++)
            for (int u = 0; u < N; u++)
                T3[((size_t)a * N + b) * N + u] = 4 * (hex_vh(Vc, a, b, u) + hex_vh(Vc, b, a, u) + hex_vh(Vc, u, a, b));
}

/* Hex workspace of a thread: the tensors (kept for boxes) and their T3,
 * the element's basis X [24][k], Z = T3 X [24 * 24][k], H = X^T Z [k][24 k]. */
typedef struct {
    ep_hexenergy ht;
    long made; /* ht.made when T3 was formed */
    double *T3, *X, *Z, *H;
} hex_work;

/* The pairs' products of hex e (hexenergy.h, hex_third): h_ab[s] = sum_tu
 * T3[s][t][u] X[t][a] X[u][b] for all a, b by two dgemms (Z = T3 X, then H
 * = X^T Z: 2 * 24^3 k + 2 * 24^2 k^2 flops), added into the owned corners'
 * runs of acc as element_pairs does.  The 2 x 2 x 2 rule of element_pairs
 * (V is of degree 3).  Returns ep_hexenergy_of's status. */
static int hex_pairs(const ep_stvk *s, const int *vrank, int rlo, int rhi, int e, const double *A, int k,
                     const int *pairs, int np, size_t npad, double *trash, hex_work *w, double *acc)
{
    enum { N = EP_HEXENERGY_DOFS };
    size_t n3 = 3 * (size_t)s->m->nv;
    int st = ep_hexenergy_of(&w->ht, s->m, s->mat, e, 0, EP_HEX_RULE_LINEAR);
    if (st)
        return st;
    if (w->made != w->ht.made) {
        hex_third(w->ht.V, w->T3);
        w->made = w->ht.made;
    }
    const int *c = s->el + 8 * (size_t)e;
    double *o[8];
    for (int a = 0; a < 8; a++) {
        int r = vrank[c[a]];
        o[a] = r >= rlo && r < rhi ? acc + (size_t)r * 3 * npad : trash;
        for (int i = 0; i < 3; i++)
            for (int q = 0; q < k; q++)
                w->X[(3 * a + i) * (size_t)k + q] = A[(size_t)q * n3 + 3 * (size_t)c[a] + i];
    }
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N * N, k, N, 1.0, w->T3, N, w->X, k, 0.0, w->Z, k);
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, k, N * k, N, 1.0, w->X, k, w->Z, N * k, 0.0, w->H, N * k);
    for (int p = 0; p < np; p++) {
        const double *h = w->H + (size_t)pairs[2 * p] * N * k + pairs[2 * p + 1];
        for (int a = 0; a < 8; a++)
            for (int i = 0; i < 3; i++)
                o[a][i * npad + (size_t)p] += h[(size_t)(3 * a + i) * k];
    }
    return EP_OK;
}

/* The elements in eorder with a corner ranked in [r0, r1): the element
 * list of the thread that owns those vertices.  out: *list (allocated),
 * *n.  Cost O(ne). */
static int owner_elements(const ep_stvk *s, const int *vrank, const int *eorder, int r0, int r1, int **list, int *n)
{
    *n = 0;
    for (int pass = 0; pass < 2; pass++) {
        int c = 0;
        for (int ei = 0; ei < s->ne; ei++) {
            const int *el = s->el + (size_t)s->k * eorder[ei];
            int mine = 0;
            for (int v = 0; v < s->k; v++)
                mine |= vrank[el[v]] >= r0 && vrank[el[v]] < r1;
            if (mine && pass)
                (*list)[c] = eorder[ei];
            c += mine;
        }
        if (!pass && !(*list = ep_malloc((size_t)c + 1, sizeof **list)))
            return EP_ECOMPUTE;
        *n = c;
    }
    return EP_OK;
}

/* The pairs list as runs (pair_run); *n of them.  NULL when out of memory.
 * Cost O(np). */
static pair_run *pair_runs(const int *pairs, int np, int *n)
{
    pair_run *runs = ep_malloc((size_t)np + 1, sizeof *runs);
    *n = 0;
    for (int p = 0; runs && p < np; p++) {
        pair_run *last = *n ? &runs[*n - 1] : NULL;
        if (last && pairs[2 * p] == last->a && pairs[2 * p + 1] == last->b + last->len)
            last->len++;
        else
            runs[(*n)++] = (pair_run){p, pairs[2 * p], pairs[2 * p + 1], 1};
    }
    return runs;
}

int ep_stvk_hessian_pairs(const ep_stvk *s, const double *A, int k, const int *pairs, int np, double *out)
{
    size_t n3 = 3 * (size_t)s->m->nv, nv = (size_t)s->m->nv, npad = (size_t)np + 3;
    /* One accumulator, vertex-major, [nv][3][npad]: an element's vertices
     * are contiguous runs, not 4 np scattered cache lines, and a component
     * of consecutive pairs is one vector.  Vertices are
     * placed and elements visited in the mesh's spatial order: at np = 210 a
     * vertex's run is 5 KB, and in file order each element would fetch four
     * of them from anywhere in 176 MB (most of the time went there).  Each
     * thread owns a range of vertex ranks and visits the elements that touch
     * it, keeping its own vertices' sums: an element on a range's edge is
     * worked twice (a few per cent), where one accumulator per thread cost
     * their pages and a summation as long as the elements' work.  A
     * vertex's sum runs over its elements in eorder whatever the thread
     * count: the right-hand sides do not depend on it. */
    int *vrank = ep_malloc(nv + 1, sizeof *vrank), *eorder = ep_malloc((size_t)s->ne + 1, sizeof *eorder), nruns = 0;
    double *acc = ep_malloc_huge(npad * n3, sizeof *acc);
    int hex = s->k == 8; /* hexes read the pairs list itself (hex_pairs) */
    pair_run *runs = hex ? NULL : pair_runs(pairs, np, &nruns);
    if (!vrank || !eorder || !acc || (!hex && !runs) || ep_mesh_spatial_order(s->m, vrank, eorder)) {
        free(vrank), free(eorder), free(acc), free(runs);
        return EP_ECOMPUTE;
    }
    /* tets: the fields by vertex rank, At[r][l][q] = A[q][3v + l] (kp apart,
     * the lanes past k zero): a tet's four vertices are four contiguous runs */
    size_t kp = ((size_t)k + 3) / 4 * 4 + 4;
    int failed = 0, nt = omp_get_max_threads();
    double *At = hex ? NULL : ep_calloc(nv * 3 * kp, sizeof *At);
    if (!hex && !At) {
        free(vrank), free(eorder), free(acc), free(runs);
        return EP_ECOMPUTE;
    }
#pragma omp parallel for schedule(static) if (!hex)
    for (size_t v = 0; v < (hex ? 0 : nv); v++)
        for (int l = 0; l < 3; l++)
            for (int q = 0; q < k; q++)
                At[((size_t)vrank[v] * 3 + l) * kp + q] = A[(size_t)q * n3 + 3 * v + l];
    ep_team_error err = {0};
#pragma omp parallel num_threads(nt) reduction(| : failed)
    {
        int t = omp_get_thread_num(), nth = omp_get_num_threads(), r0 = (int)(nv * t / nth),
            r1 = (int)(nv * (t + 1) / nth), *list = NULL, nlist = 0;
        double *DT = NULL, *ST = NULL;
        double *trash = ep_malloc(3 * npad, sizeof(double));
        hex_work hw = {.made = -1};
        enum { N = EP_HEXENERGY_DOFS };
        if (hex) {
            ep_hexenergy_init(&hw.ht);
            hw.T3 = ep_malloc(N * N * N, sizeof(double));
            hw.X = ep_malloc(N * (size_t)k, sizeof(double));
            hw.Z = ep_malloc(N * N * (size_t)k, sizeof(double));
            hw.H = ep_malloc(N * (size_t)k * k, sizeof(double));
            failed = !hw.T3 || !hw.X || !hw.Z || !hw.H;
        } else {
            DT = ep_malloc(9 * kp, sizeof(double)), ST = ep_malloc(9 * kp, sizeof(double));
            failed = !DT || !ST;
        }
        failed = failed || !trash || owner_elements(s, vrank, eorder, r0, r1, &list, &nlist);
        if (!failed) { /* the owner's pages, zeroed where they are used */
            memset(acc + (size_t)r0 * 3 * npad, 0, sizeof *acc * (size_t)(r1 - r0) * 3 * npad);
            for (int ei = 0, st = EP_OK; ei < nlist && !st; ei++)
                if (!hex)
                    element_pairs(s, vrank, r0, r1, list[ei], At, kp, runs, nruns, npad, trash, DT, ST, acc);
                else if ((st = hex_pairs(s, vrank, r0, r1, list[ei], A, k, pairs, np, npad, trash, &hw, acc)))
                    ep_team_fail(&err, st);
        }
        free(hw.T3), free(hw.X), free(hw.Z), free(hw.H);
        free(list);
        free(DT);
        free(ST);
        free(trash);
    }
    /* [nv][3][npad] into [np][3nv], by blocks of 32 vertices: their runs
     * (32 x 5 KB at np = 210) stay in cache while each pair's 96 values are
     * written in one stretch (a vertex at a time wrote np values a page
     * apart: as long as the elements' work). */
    if (!failed && !err.status) {
#pragma omp parallel for schedule(static)
        for (size_t v0 = 0; v0 < nv; v0 += 32) {
            size_t v1 = v0 + 32 < nv ? v0 + 32 : nv;
            for (int p = 0; p < np; p++)
                for (size_t v = v0; v < v1; v++)
                    for (int i = 0; i < 3; i++)
                        out[(size_t)p * n3 + 3 * v + i] = acc[((size_t)vrank[v] * 3 + i) * npad + p];
        }
    }
    free(acc), free(vrank), free(eorder), free(runs), free(At);
    if (err.status)
        return ep_team_status(&err);
    return failed ? ep_fail(EP_ECOMPUTE, "out of memory (Hessian products)") : EP_OK;
}
