/*
 * corot.c — corotated linear elements (corot.h).
 */
#include "corot.h"
#include "err.h"
#include "fem.h"
#include "hex.h"
#include "tet.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void ep_corot_free(ep_corot *c)
{
    free(c->X), free(c->vol), free(c->grad), free(c->Ke), free(c->Me);
    memset(c, 0, sizeof *c);
}

int ep_corot_build(ep_corot *c, const ep_mesh *m, const ep_material *mat)
{
    int k, ne = ep_mesh_elements(m, &c->elem, &k);
    const int *el = c->elem;
    memset(c, 0, sizeof *c);
    if (ne < 1)
        return ep_fail(EP_EINPUT, "%s: no tetrahedra or hexahedra (corotated elements need a volume mesh)", m->source);
    c->ne = ne, c->k = k, c->nv = m->nv, c->elem = el;
    size_t n3 = 3 * (size_t)k, nn = n3 * n3;
    c->X = ep_malloc(3 * (size_t)m->nv, sizeof *c->X);
    c->vol = ep_malloc((size_t)ne, sizeof *c->vol);
    c->grad = ep_malloc((size_t)ne * n3, sizeof *c->grad);
    c->Ke = ep_malloc_huge((size_t)ne * nn, sizeof *c->Ke);
    c->Me = ep_malloc_huge((size_t)ne * nn, sizeof *c->Me);
    if (!c->X || !c->vol || !c->grad || !c->Ke || !c->Me)
        return EP_ECOMPUTE;
    memcpy(c->X, m->vertices, 3 * (size_t)m->nv * sizeof *c->X);
    int bad = -1;
#pragma omp parallel for schedule(dynamic, 512)
    for (int e = 0; e < ne; e++) {
        double x[8][3], lambda, mu, rho = ep_material_rho(mat, e), *g = &c->grad[n3 * e];
        double *K = &c->Ke[nn * e], *M = &c->Me[nn * e];
        for (int a = 0; a < k; a++)
            memcpy(x[a], &m->vertices[3 * (size_t)el[(size_t)k * e + a]], sizeof x[a]);
        ep_material_lame(mat, e, &lambda, &mu);
        if (k == 4) {
            double gt[4][3];
            ep_tet_gradients(x, &c->vol[e], gt);
            if (!(c->vol[e] > 0)) {
#pragma omp critical
                bad = bad < 0 || e < bad ? e : bad;
                continue;
            }
            memcpy(g, gt, sizeof gt);
            ep_fem_element(EP_FEM_STIFFNESS, x, lambda, mu, 0, (double (*)[12])K);
            if (isnan(rho))
                memset(M, 0, nn * sizeof *M);
            else
                ep_fem_element(EP_FEM_MASS, x, lambda, mu, rho, (double (*)[12])M);
        } else {
            double xi[3] = {0, 0, 0}, gh[8][3], w[8], gp[8][8][3];
            if (!(ep_hex_gradients(x, xi, gh) > 0) || ep_hex_rule(x, 2, w, gp, NULL)) {
#pragma omp critical
                bad = bad < 0 || e < bad ? e : bad;
                continue;
            }
            memcpy(g, gh, sizeof gh);
            c->vol[e] = 0;
            for (int p = 0; p < 8; p++) /* 2-point rule: exact for det J (degree 2 a coordinate) */
                c->vol[e] += w[p];
            ep_fem_hex_element(EP_FEM_STIFFNESS, x, lambda, mu, 0, (double (*)[24])K);
            if (isnan(rho))
                memset(M, 0, nn * sizeof *M);
            else
                ep_fem_hex_element(EP_FEM_MASS, x, lambda, mu, rho, (double (*)[24])M);
        }
    }
    if (bad >= 0)
        return ep_fail(EP_EINPUT, "%s: element %d is degenerate or inverted", m->source, bad + 1);
    return EP_OK;
}

void ep_corot_deformation(const ep_corot *c, int e, const double *x, double F[3][3])
{
    const int *v = &c->elem[(size_t)c->k * e];
    const double *g = &c->grad[3 * (size_t)c->k * e];
    memset(F, 0, 9 * sizeof(double));
    for (int a = 0; a < c->k; a++)
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                F[i][j] += x[3 * (size_t)v[a] + i] * g[3 * a + j];
}

/* A^-T of a 3 x 3 matrix and its determinant (0: left unset). */
static double inverse_transpose(const double A[3][3], double B[3][3])
{
    double c[3][3];
    for (int i = 0; i < 3; i++) /* cofactors: A^-T = cof(A) / det A */
        for (int j = 0; j < 3; j++) {
            int i1 = (i + 1) % 3, i2 = (i + 2) % 3, j1 = (j + 1) % 3, j2 = (j + 2) % 3;
            c[i][j] = A[i1][j1] * A[i2][j2] - A[i1][j2] * A[i2][j1];
        }
    double det = A[0][0] * c[0][0] + A[0][1] * c[0][1] + A[0][2] * c[0][2];
    if (det != 0)
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                B[i][j] = c[i][j] / det;
    return det;
}

void ep_corot_rotation(const double F[3][3], double R[3][3])
{
    double A[3][3], B[3][3];
    memcpy(A, F, sizeof A);
    if (!(inverse_transpose(A, B) > 0)) {
        memset(R, 0, 9 * sizeof(double));
        R[0][0] = R[1][1] = R[2][2] = 1;
        return;
    }
    for (int it = 0; it < 30; it++) { /* 002 §2.3.6: A <- (A + A^-T) / 2 */
        double d = 0, s = 0;
        inverse_transpose(A, B);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                double a = 0.5 * (A[i][j] + B[i][j]);
                d += (a - A[i][j]) * (a - A[i][j]), s += a * a;
                A[i][j] = a;
            }
        if (d <= 1e-24 * s)
            break;
    }
    memcpy(R, A, 9 * sizeof(double));
}

void ep_corot_warp(const ep_corot *c, int e, const double R[3][3], const double *x, double *Kw, double *f)
{
    int k = c->k, n3 = 3 * k;
    const double *K = &c->Ke[(size_t)n3 * n3 * e];
    const int *v = &c->elem[(size_t)k * e];
    for (int a = 0; a < k; a++) /* block (a, b): R K_ab R^T */
        for (int b = 0; b < k; b++) {
            double T[3][3];
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    T[i][j] = R[i][0] * K[(3 * a + 0) * n3 + 3 * b + j] + R[i][1] * K[(3 * a + 1) * n3 + 3 * b + j] +
                              R[i][2] * K[(3 * a + 2) * n3 + 3 * b + j];
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    Kw[(3 * a + i) * n3 + 3 * b + j] = T[i][0] * R[j][0] + T[i][1] * R[j][1] + T[i][2] * R[j][2];
        }
    if (!f)
        return;
    double d[24]; /* R^T x_a - X_a */
    for (int a = 0; a < k; a++) {
        const double *xa = &x[3 * (size_t)v[a]], *Xa = &c->X[3 * (size_t)v[a]];
        for (int j = 0; j < 3; j++)
            d[3 * a + j] = R[0][j] * xa[0] + R[1][j] * xa[1] + R[2][j] * xa[2] - Xa[j];
    }
    for (int a = 0; a < k; a++) {
        double t[3] = {0, 0, 0}; /* (K d)_a, then R times it */
        for (int i = 0; i < 3; i++)
            for (int q = 0; q < n3; q++)
                t[i] += K[(3 * a + i) * n3 + q] * d[q];
        for (int i = 0; i < 3; i++)
            f[3 * a + i] = R[i][0] * t[0] + R[i][1] * t[1] + R[i][2] * t[2];
    }
}
