/*
 * hex.c — trilinear hexahedra: reference element, rules, element matrices,
 * local coordinates (hex.h).
 */
#include "hex.h"
#include "err.h"

#include <math.h>
#include <string.h>

const signed char ep_hex_corner[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                         {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};

const int ep_hex_face[6][4] = {{0, 4, 7, 3}, {1, 2, 6, 5}, {0, 1, 5, 4},
                               {3, 7, 6, 2}, {0, 3, 2, 1}, {4, 5, 6, 7}};

void ep_hex_gauss(int n, double *x, double *w)
{
    /* Gauss-Legendre nodes and weights (Abramowitz & Stegun, Table 25.4) */
    static const double x3 = 0.77459666924148337704, x4a = 0.33998104358485626480, x4b = 0.86113631159405257522;
    static const double w4a = 0.65214515486254614263, w4b = 0.34785484513745385737;
    switch (n) {
    case 1:
        x[0] = 0, w[0] = 2;
        break;
    case 2:
        x[0] = -1 / sqrt(3.0), x[1] = 1 / sqrt(3.0), w[0] = w[1] = 1;
        break;
    case 3:
        x[0] = -x3, x[1] = 0, x[2] = x3, w[0] = w[2] = 5.0 / 9, w[1] = 8.0 / 9;
        break;
    default:
        x[0] = -x4b, x[1] = -x4a, x[2] = x4a, x[3] = x4b, w[0] = w[3] = w4b, w[1] = w[2] = w4a;
        break;
    }
}

void ep_hex_shape(const double xi[3], double N[8], double dN[8][3])
{
    for (int a = 0; a < 8; a++) {
        const signed char *s = ep_hex_corner[a];
        double f0 = 1 + s[0] * xi[0], f1 = 1 + s[1] * xi[1], f2 = 1 + s[2] * xi[2];
        if (N)
            N[a] = f0 * f1 * f2 / 8;
        if (dN) {
            dN[a][0] = s[0] * f1 * f2 / 8;
            dN[a][1] = f0 * s[1] * f2 / 8;
            dN[a][2] = f0 * f1 * s[2] / 8;
        }
    }
}

/* J[i][c] = dx_i / dxi_c at the derivatives dN; returns det J, inverse in
 * Ji (inverse 0: Ji holds the cofactors, det J the same bits). */
static double jacobian_of(const double x[8][3], const double dN[8][3], double Ji[3][3], int inverse)
{
    double J[3][3] = {{0}};
    for (int a = 0; a < 8; a++)
        for (int i = 0; i < 3; i++)
            for (int c = 0; c < 3; c++)
                J[i][c] += x[a][i] * dN[a][c];
    /* cofactors: Ji = adj(J) / det */
    Ji[0][0] = J[1][1] * J[2][2] - J[1][2] * J[2][1];
    Ji[0][1] = J[0][2] * J[2][1] - J[0][1] * J[2][2];
    Ji[0][2] = J[0][1] * J[1][2] - J[0][2] * J[1][1];
    Ji[1][0] = J[1][2] * J[2][0] - J[1][0] * J[2][2];
    Ji[1][1] = J[0][0] * J[2][2] - J[0][2] * J[2][0];
    Ji[1][2] = J[0][2] * J[1][0] - J[0][0] * J[1][2];
    Ji[2][0] = J[1][0] * J[2][1] - J[1][1] * J[2][0];
    Ji[2][1] = J[0][1] * J[2][0] - J[0][0] * J[2][1];
    Ji[2][2] = J[0][0] * J[1][1] - J[0][1] * J[1][0];
    double det = J[0][0] * Ji[0][0] + J[0][1] * Ji[1][0] + J[0][2] * Ji[2][0];
    if (inverse && det > 0)
        for (int c = 0; c < 3; c++)
            for (int i = 0; i < 3; i++)
                Ji[c][i] /= det;
    return det;
}

static double jacobian(const double x[8][3], const double dN[8][3], double Ji[3][3])
{
    return jacobian_of(x, dN, Ji, 1);
}

double ep_hex_gradients(const double x[8][3], const double xi[3], double g[8][3])
{
    double dN[8][3], Ji[3][3];
    ep_hex_shape(xi, NULL, dN);
    double det = jacobian(x, dN, Ji);
    if (!(det > 0))
        return det;
    for (int a = 0; a < 8; a++) /* g_a = J^-T dN_a: g_a[i] = sum_c Ji[c][i] dN_a[c] */
        for (int i = 0; i < 3; i++)
            g[a][i] = Ji[0][i] * dN[a][0] + Ji[1][i] * dN[a][1] + Ji[2][i] * dN[a][2];
    return det;
}

int ep_hex_rule(const double x[8][3], int n, double *w, double (*g)[8][3], double (*N)[8])
{
    double gx[EP_HEX_MAX_RULE], gw[EP_HEX_MAX_RULE];
    ep_hex_gauss(n, gx, gw);
    for (int i = 0, p = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++, p++) {
                double xi[3] = {gx[i], gx[j], gx[k]};
                double det, dN[8][3], Ji[3][3];
                if (g)
                    det = ep_hex_gradients(x, xi, g[p]);
                else { /* the weights alone: det J as ep_hex_gradients has it */
                    ep_hex_shape(xi, NULL, dN);
                    det = jacobian_of(x, dN, Ji, 0);
                }
                if (!(det > 0))
                    return ep_fail(EP_EINPUT, "det J = %.3g at the Gauss point (%.3f, %.3f, %.3f)", det, xi[0], xi[1],
                                   xi[2]);
                w[p] = gw[i] * gw[j] * gw[k] * det;
                if (N)
                    ep_hex_shape(xi, N[p], NULL);
            }
    return EP_OK;
}

double ep_hex_quality(const double x[8][3])
{
    double dN[8][3], Ji[3][3], vol = 0, dmin = INFINITY;
    for (int a = 0; a < 8; a++) {
        double xi[3] = {ep_hex_corner[a][0], ep_hex_corner[a][1], ep_hex_corner[a][2]};
        ep_hex_shape(xi, NULL, dN);
        double det = jacobian(x, dN, Ji);
        dmin = det < dmin ? det : dmin;
    }
    /* volume by the 2-point rule (det J has degree <= 2 per coordinate) */
    double gx[2], gw[2];
    ep_hex_gauss(2, gx, gw);
    for (int p = 0; p < 8; p++) {
        double xi[3] = {gx[p >> 2], gx[(p >> 1) & 1], gx[p & 1]};
        ep_hex_shape(xi, NULL, dN);
        vol += jacobian(x, dN, Ji);
    }
    return vol > 0 ? dmin / (vol / 8) : -1;
}

int ep_hex_is_box(const double x[8][3], double tol, double h[3])
{
    for (int i = 0; i < 3; i++)
        h[i] = x[6][i] - x[0][i];
    double size = fmax(fabs(h[0]), fmax(fabs(h[1]), fabs(h[2])));
    if (!(h[0] > 0 && h[1] > 0 && h[2] > 0))
        return 0;
    for (int a = 0; a < 8; a++)
        for (int i = 0; i < 3; i++) {
            double want = x[0][i] + (ep_hex_corner[a][i] > 0 ? h[i] : 0);
            if (!(fabs(x[a][i] - want) <= tol * size))
                return 0;
        }
    return 1;
}

void ep_hex_quad_mass(const double p[4][3], double M[4][4])
{
    double gx[EP_HEX_MAX_RULE], gw[EP_HEX_MAX_RULE];
    ep_hex_gauss(EP_HEX_MAX_RULE, gx, gw);
    memset(M, 0, 16 * sizeof(double));
    for (int i = 0; i < EP_HEX_MAX_RULE; i++)
        for (int j = 0; j < EP_HEX_MAX_RULE; j++) {
            /* x(s, t) = sum N_k p_k on [0, 1]^2, dA = |x_s x x_t| ds dt */
            double s = (gx[i] + 1) / 2, t = (gx[j] + 1) / 2, w = gw[i] * gw[j] / 4, xs[3], xt[3];
            for (int c = 0; c < 3; c++) {
                xs[c] = (1 - t) * (p[1][c] - p[0][c]) + t * (p[2][c] - p[3][c]);
                xt[c] = (1 - s) * (p[3][c] - p[0][c]) + s * (p[2][c] - p[1][c]);
            }
            double n0 = xs[1] * xt[2] - xs[2] * xt[1], n1 = xs[2] * xt[0] - xs[0] * xt[2],
                   n2 = xs[0] * xt[1] - xs[1] * xt[0], dA = w * sqrt(n0 * n0 + n1 * n1 + n2 * n2);
            double N[4] = {(1 - s) * (1 - t), s * (1 - t), s * t, (1 - s) * t};
            for (int a = 0; a < 4; a++)
                for (int b = 0; b < 4; b++)
                    M[a][b] += N[a] * N[b] * dA;
        }
}

int ep_hex_canonical_box(double x[8][3], double h[3])
{
    enum { BITS = 42 };
    if (!ep_hex_is_box(x, 1e-10, h))
        return 0;
    for (int i = 0; i < 3; i++) {
        int ex;
        double f = frexp(h[i], &ex);
        h[i] = ldexp(round(ldexp(f, BITS)), ex - BITS);
    }
    for (int a = 0; a < 8; a++)
        for (int i = 0; i < 3; i++)
            x[a][i] = ep_hex_corner[a][i] * h[i] / 2;
    return 1;
}

int ep_hex_local(const double x[8][3], const double p[3], double xi[3])
{
    /* x(xi) = c0 + sum_i c_i xi_i + (bilinear and trilinear terms); the
     * affine part gives the start, and the answer for parallelepipeds. */
    double c[8][3] = {{0}}, size = 0;
    for (int a = 0; a < 8; a++) {
        const signed char *s = ep_hex_corner[a];
        double m[8] = {1, s[0], s[1], s[2], s[0] * s[1], s[0] * s[2], s[1] * s[2], s[0] * s[1] * s[2]};
        for (int t = 0; t < 8; t++)
            for (int i = 0; i < 3; i++)
                c[t][i] += m[t] * x[a][i] / 8;
    }
    for (int t = 1; t < 4; t++)
        size = fmax(size, fabs(c[t][0]) + fabs(c[t][1]) + fabs(c[t][2]));
    double nonaffine = 0;
    for (int t = 4; t < 8; t++)
        nonaffine = fmax(nonaffine, fabs(c[t][0]) + fabs(c[t][1]) + fabs(c[t][2]));
    /* affine part: J(0) xi = p - c0 (J at the centre is the affine map's) */
    double Ji[3][3], r[3], dN[8][3];
    memset(xi, 0, 3 * sizeof *xi);
    ep_hex_shape(xi, NULL, dN);
    if (!(jacobian(x, dN, Ji) > 0))
        return ep_fail(EP_ECOMPUTE, "degenerate hexahedron");
    for (int i = 0; i < 3; i++)
        r[i] = p[i] - c[0][i];
    for (int k = 0; k < 3; k++)
        xi[k] = Ji[k][0] * r[0] + Ji[k][1] * r[1] + Ji[k][2] * r[2];
    if (nonaffine <= 1e-14 * size)
        return EP_OK;
    for (int it = 0; it < 50; it++) {
        double N[8], err = 0;
        ep_hex_shape(xi, N, dN);
        for (int i = 0; i < 3; i++) {
            r[i] = p[i];
            for (int a = 0; a < 8; a++)
                r[i] -= N[a] * x[a][i];
            err = fmax(err, fabs(r[i]));
        }
        if (err <= 1e-12 * size)
            return EP_OK;
        if (!(jacobian(x, dN, Ji) > 0))
            break;
        for (int k = 0; k < 3; k++)
            xi[k] += Ji[k][0] * r[0] + Ji[k][1] * r[1] + Ji[k][2] * r[2];
    }
    return ep_fail(EP_ECOMPUTE, "no local coordinates found (Newton did not converge)");
}
