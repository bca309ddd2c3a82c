/*
 * massprop.c — rigid-body data from the consistent mass, reduced mass and gravity (massprop.h).
 */
#include "massprop.h"
#include "err.h"
#include "fem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int ep_massprop_rigid(ep_massprop *r, const ep_mesh *m, const ep_material *mat)
{
    const int *el;
    int k, ne = ep_mesh_elements(m, &el, &k);
    double mass = 0, first[3] = {0, 0, 0}, S[3][3] = {{0}};
    memset(r, 0, sizeof *r);
    if (ne < 1)
        return ep_fail(EP_EINPUT, "%s: no tetrahedra or hexahedra (rigid-body data need a volume)", m->source);
    for (int e = 0; e < ne; e++)
        if (isnan(ep_material_rho(mat, e)))
            return ep_fail(EP_EINPUT, "%s: no density (rigid-body data need rho)", m->source);
    /* Each block of elements sums into its own slot, and the slots are
     * added in block order: the same bits on any thread count and in every
     * run (an OpenMP reduction adds in the order threads finish). */
    enum { BLK = 512, SUMS = 13 }; /* mass, first moment (3), second moment (9) */
    int nb = (ne + BLK - 1) / BLK;
    double *part = ep_calloc((size_t)nb * SUMS, sizeof *part);
    if (!part)
        return EP_ECOMPUTE;
#pragma omp parallel for schedule(dynamic, 1)
    for (int blk = 0; blk < nb; blk++) {
        double *p = &part[(size_t)SUMS * blk];
        int e1 = blk * BLK + BLK < ne ? blk * BLK + BLK : ne;
        for (int e = blk * BLK; e < e1; e++) {
            double x[8][3], lambda, mu, A[24][24];
            for (int a = 0; a < k; a++)
                memcpy(x[a], &m->vertices[3 * (size_t)el[(size_t)k * e + a]], sizeof x[a]);
            ep_material_lame(mat, e, &lambda, &mu);
            if (k == 4) {
                double T[12][12];
                ep_fem_element(EP_FEM_MASS, x, lambda, mu, ep_material_rho(mat, e), T);
                for (int a = 0; a < 12; a++)
                    memcpy(A[a], T[a], sizeof T[a]);
            } else
                ep_fem_hex_element(EP_FEM_MASS, x, lambda, mu, ep_material_rho(mat, e), A);
            for (int a = 0; a < k; a++)
                for (int b = 0; b < k; b++) {
                    double mab = A[3 * a][3 * b]; /* the scalar part: M_ab = m_ab I */
                    p[0] += mab;
                    for (int i = 0; i < 3; i++) {
                        p[1 + i] += mab * x[b][i];
                        for (int j = 0; j < 3; j++)
                            p[4 + 3 * i + j] += mab * x[a][i] * x[b][j];
                    }
                }
        }
    }
    for (int blk = 0; blk < nb; blk++) {
        const double *p = &part[(size_t)SUMS * blk];
        mass += p[0];
        for (int i = 0; i < 3; i++) {
            first[i] += p[1 + i];
            for (int j = 0; j < 3; j++)
                S[i][j] += p[4 + 3 * i + j];
        }
    }
    free(part);
    r->mass = mass;
    for (int i = 0; i < 3; i++)
        r->center[i] = first[i] / mass;
    double tr = 0, Sc[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) /* about the centre: S - mass c c^T */
            Sc[i][j] = S[i][j] - mass * r->center[i] * r->center[j];
    tr = Sc[0][0] + Sc[1][1] + Sc[2][2];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r->inertia[i][j] = (i == j ? tr : 0) - Sc[i][j];
    return EP_OK;
}

int ep_massprop_reduced(const cholmod_sparse *M, const double *U, int r, double *Mr, double *G)
{
    size_t n = M->ncol;
    const int *Mp = M->p, *Mi = M->i;
    const double *Mx = M->x;
    double *y = ep_malloc(n ? n : 1, sizeof *y);
    if (!y)
        return EP_ECOMPUTE;
    for (int i = 0; i < r; i++) {
        const double *u = &U[n * i];
        for (size_t j = 0; j < n; j++) /* y = M u: M symmetric, so its CSC columns are rows */
        {
            double s = 0;
            for (int k = Mp[j]; k < Mp[j + 1]; k++)
                s += Mx[k] * u[Mi[k]];
            y[j] = s;
        }
        for (int j = 0; j < r; j++) {
            double s = 0;
            for (size_t q = 0; q < n; q++)
                s += U[n * j + q] * y[q];
            Mr[(size_t)j * r + i] = s;
        }
        for (int a = 0; a < 3; a++) { /* U_i^T M e_a = (M u_i) . e_a */
            double s = 0;
            for (size_t q = (size_t)a; q < n; q += 3)
                s += y[q];
            G[3 * (size_t)i + a] = s;
        }
    }
    free(y);
    return EP_OK;
}
