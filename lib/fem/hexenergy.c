/*
 * hexenergy.c — a hex's St. Venant-Kirchhoff energy over its corners'
 * displacements and their dot products (hexenergy.h).
 */
#include "hexenergy.h"
#include "hex.h"
#include "err.h"

#include <assert.h>
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

enum { DOFS = EP_HEXENERGY_DOFS, PAIRS = EP_HEXENERGY_PAIRS, RANK = EP_HEXENERGY_RANK };
enum { COMPS = 7, MAX_POINTS = EP_HEX_RULE_STVK * EP_HEX_RULE_STVK * EP_HEX_RULE_STVK };

static const int comp_ij[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};

/* Index of the corner pair a <= b: (0,0..7), (1,1..7), ... */
static int pair_index(int a, int b) { return a * 8 - a * (a - 1) / 2 + (b - a); }

void ep_hexenergy_init(ep_hexenergy *t)
{
    memset(t->key, 0, sizeof t->key);
    t->made = 0;
}

/* The tensors of the hex x: at each Gauss point the seven components of
 * cubic.c's rows, sqrt(mu w) (E11, E22, E33, sqrt2 E12, sqrt2 E13, sqrt2
 * E23) and sqrt(lambda w / 2) tr E, as Bl u + Cp W; K = Bl^T Bl, V = Bl^T
 * Cp, D = Cp^T Cp summed over the points, G from D's top 28 eigenpairs. */
static int tensors(ep_hexenergy *t, const double x[8][3], double lambda, double mu, int part, int n)
{
    enum { NR = COMPS * MAX_POINTS };
    int np = n * n * n, nr = COMPS * np;
    double w[MAX_POINTS], g[MAX_POINTS][8][3], D[PAIRS * PAIRS], ev[PAIRS];
    double Bl[NR][DOFS], Cp[NR][PAIRS];
    assert(n >= 1 && n <= EP_HEX_RULE_STVK);
    t->made++;
    if (ep_hex_rule(x, n, w, g, NULL))
        return EP_EINPUT;
    memset(Bl, 0, sizeof Bl);
    memset(Cp, 0, sizeof Cp);
    for (int p = 0; p < np; p++) {
        double sm = part == 1 ? 0 : sqrt(mu * w[p]), sl = part == 2 ? 0 : sqrt(lambda * w[p] / 2);
        double (*bl)[DOFS] = Bl + COMPS * p, (*cp)[PAIRS] = Cp + COMPS * p;
        for (int c = 0; c < 6; c++) { /* unscaled: E_c = sym(D)_lk + (D^T D / 2)_lk */
            int l = comp_ij[c][0], k = comp_ij[c][1];
            for (int a = 0; a < 8; a++) {
                bl[c][3 * a + l] += 0.5 * g[p][a][k];
                bl[c][3 * a + k] += 0.5 * g[p][a][l];
                for (int b = a; b < 8; b++) /* W_ab for a < b stands for (a, b) and (b, a) */
                    cp[c][pair_index(a, b)] = a == b ? 0.5 * g[p][a][l] * g[p][a][k]
                                                           : 0.5 * (g[p][a][l] * g[p][b][k] + g[p][b][l] * g[p][a][k]);
            }
        }
        for (int s = 0; s < PAIRS; s++) {
            if (s < DOFS)
                bl[6][s] = sl * (bl[0][s] + bl[1][s] + bl[2][s]);
            cp[6][s] = sl * (cp[0][s] + cp[1][s] + cp[2][s]);
            for (int c = 0; c < 6; c++) {
                double f = c < 3 ? sm : sm * sqrt(2.0);
                if (s < DOFS)
                    bl[c][s] *= f;
                cp[c][s] *= f;
            }
        }
    }
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, DOFS, DOFS, nr, 1.0, &Bl[0][0], DOFS, &Bl[0][0], DOFS, 0.0,
                t->K, DOFS);
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, DOFS, PAIRS, nr, 1.0, &Bl[0][0], DOFS, &Cp[0][0], PAIRS, 0.0,
                t->V, PAIRS);
    if (n < EP_HEX_RULE_STVK)
        return EP_OK;
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, PAIRS, PAIRS, nr, 1.0, &Cp[0][0], PAIRS, &Cp[0][0], PAIRS, 0.0,
                D, PAIRS);
    if (LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'V', 'U', PAIRS, D, PAIRS, ev))
        return ep_fail(EP_ECOMPUTE, "eigenvalues of a hex's quartic form did not converge");
    /* ascending: the first 36 - 28 are the null space's round-off */
    if (!(ev[PAIRS - RANK - 1] <= 1e-9 * ev[PAIRS - 1]))
        return ep_fail(EP_ECOMPUTE, "a hex's quartic form has rank above %d", RANK);
    for (int r = 0; r < RANK; r++) {
        int k = PAIRS - RANK + r;
        double s = sqrt(fmax(ev[k], 0));
        for (int i = 0; i < PAIRS; i++)
            t->G[r * PAIRS + i] = s * D[i * PAIRS + k];
    }
    return EP_OK;
}

int ep_hexenergy_of(ep_hexenergy *t, const ep_mesh *m, const ep_material *mat, int e, int part, int n)
{
    double x[8][3], h[3], lambda, mu;
    for (int a = 0; a < 8; a++)
        memcpy(x[a], &m->vertices[3 * (size_t)m->hexes[8 * (size_t)e + a]], sizeof x[a]);
    ep_material_lame(mat, e, &lambda, &mu);
    if (!ep_hex_canonical_box(x, h)) {
        t->key[6] = 0;
        return tensors(t, x, lambda, mu, part, n);
    }
    /* the rounded box's tensors: the same for every box of the key, whichever
     * came first (the results do not depend on the thread count) */
    double key[7] = {h[0], h[1], h[2], lambda, mu, part, n};
    if (!memcmp(key, t->key, sizeof key))
        return EP_OK;
    int st = tensors(t, x, lambda, mu, part, n);
    key[6] = st ? 0 : n;
    memcpy(t->key, key, sizeof key);
    return st;
}
