/*
 * test_hex.c — trilinear hexahedra: the Gauss rules, shape functions, element
 * stiffness and mass of boxes against closed-form integrals (separable 1-D
 * integrals of the hat functions, no quadrature), rigid motions in the null
 * space, the patch test on a distorted patch, local coordinates, box and
 * quality checks.
 */
#include "helpers.h"

#include <math.h>

#include "fem.h"
#include "hex.h"

/* Gauss rules integrate x^d exactly for d <= 2n - 1 and not for d = 2n. */
static void gauss_rules(void **s)
{
    (void)s;
    for (int n = 1; n <= EP_HEX_MAX_RULE; n++) {
        double x[EP_HEX_MAX_RULE], w[EP_HEX_MAX_RULE];
        ep_hex_gauss(n, x, w);
        for (int d = 0; d <= 2 * n; d++) {
            double sum = 0, exact = d % 2 ? 0 : 2.0 / (d + 1);
            for (int i = 0; i < n; i++)
                sum += w[i] * pow(x[i], d);
            if (d < 2 * n)
                assert_true(fabs(sum - exact) < 1e-15);
            else
                assert_true(fabs(sum - exact) > 1e-3);
        }
    }
}

/* N_a(corner b) = delta_ab, partition of unity, derivatives sum to zero. */
static void shape_functions(void **s)
{
    (void)s;
    for (int b = 0; b < 8; b++) {
        double xi[3] = {ep_hex_corner[b][0], ep_hex_corner[b][1], ep_hex_corner[b][2]}, N[8];
        ep_hex_shape(xi, N, NULL);
        for (int a = 0; a < 8; a++)
            assert_true(N[a] == (a == b));
    }
    double xi[3] = {0.3, -0.7, 0.1}, N[8], dN[8][3], sum = 0, ds[3] = {0};
    ep_hex_shape(xi, N, dN);
    for (int a = 0; a < 8; a++) {
        sum += N[a];
        for (int c = 0; c < 3; c++)
            ds[c] += dN[a][c];
    }
    assert_true(fabs(sum - 1) < 1e-15);
    for (int c = 0; c < 3; c++)
        assert_true(fabs(ds[c]) < 1e-15);
    /* faces: outward normals by the right-hand rule of the listed order */
    for (int f = 0; f < 6; f++) {
        const int *q = ep_hex_face[f];
        double n[3] = {0};
        for (int k = 0; k < 4; k++) { /* Newell's normal */
            const signed char *p = ep_hex_corner[q[k]], *r = ep_hex_corner[q[(k + 1) % 4]];
            n[0] += (p[1] - r[1]) * (p[2] + r[2]);
            n[1] += (p[2] - r[2]) * (p[0] + r[0]);
            n[2] += (p[0] - r[0]) * (p[1] + r[1]);
        }
        double c[3] = {0};
        for (int k = 0; k < 4; k++)
            for (int i = 0; i < 3; i++)
                c[i] += ep_hex_corner[q[k]][i] / 4.0;
        assert_true(n[0] * c[0] + n[1] * c[1] + n[2] * c[2] > 0);
    }
}

static void box_corners(const double lo[3], const double h[3], double x[8][3])
{
    for (int a = 0; a < 8; a++)
        for (int i = 0; i < 3; i++)
            x[a][i] = lo[i] + (ep_hex_corner[a][i] > 0 ? h[i] : 0);
}

/* 1-D integrals over [0, h] of the hats phi_0 = 1 - x/h, phi_1 = x/h:
 * with derivatives taken where da/db say. */
static double hat_integral(int sa, int da, int sb, int db, double h)
{
    if (da && db)
        return (sa == sb ? 1 : -1) / h;
    if (da) /* int phi_sa' phi_sb = (+-1/h)(h/2) */
        return sa ? 0.5 : -0.5;
    if (db)
        return sb ? 0.5 : -0.5;
    return h * (sa == sb ? 2 : 1) / 6;
}

/* int dN_a/dx_i dN_b/dx_j over the box, as a product of 1-D integrals. */
static double grad_integral(int a, int i, int b, int j, const double h[3])
{
    double v = 1;
    for (int d = 0; d < 3; d++)
        v *= hat_integral(ep_hex_corner[a][d] > 0, d == i, ep_hex_corner[b][d] > 0, d == j, h[d]);
    return v;
}

/* Element K, consistent and lumped M of a unit cube and of a box equal the
 * closed forms to 1e-12 (the 2-point rule is exact for K, the 3-point one
 * for M, and the rules use no closed form). */
static void box_matrices(void **s)
{
    (void)s;
    const double sizes[2][3] = {{1, 1, 1}, {1.0, 0.7, 1.3}}, lo[3] = {0.25, -1, 2};
    const double lambda = 1.7, mu = 0.9, rho = 2.5;
    for (int t = 0; t < 2; t++) {
        double x[8][3], K[24][24], M[24][24], L[24][24], maxK = 0, errK = 0, errM = 0, errL = 0;
        const double *h = sizes[t];
        box_corners(lo, h, x);
        ep_fem_hex_element(EP_FEM_STIFFNESS, x, lambda, mu, rho, K);
        ep_fem_hex_element(EP_FEM_MASS, x, lambda, mu, rho, M);
        ep_fem_hex_element(EP_FEM_MASS_LUMPED, x, lambda, mu, rho, L);
        double V = h[0] * h[1] * h[2];
        for (int a = 0; a < 8; a++)
            for (int b = 0; b < 8; b++) {
                double m = rho;
                for (int d = 0; d < 3; d++)
                    m *= hat_integral(ep_hex_corner[a][d] > 0, 0, ep_hex_corner[b][d] > 0, 0, h[d]);
                for (int i = 0; i < 3; i++)
                    for (int j = 0; j < 3; j++) {
                        double k = lambda * grad_integral(a, i, b, j, h) + mu * grad_integral(a, j, b, i, h);
                        if (i == j)
                            for (int c = 0; c < 3; c++)
                                k += mu * grad_integral(a, c, b, c, h);
                        maxK = fmax(maxK, fabs(k));
                        errK = fmax(errK, fabs(K[3 * a + i][3 * b + j] - k));
                        errM = fmax(errM, fabs(M[3 * a + i][3 * b + j] - (i == j ? m : 0)));
                        errL = fmax(errL, fabs(L[3 * a + i][3 * b + j] - (i == j && a == b ? rho * V / 8 : 0)));
                    }
            }
        assert_true(errK <= 1e-12 * maxK);
        assert_true(errM <= 1e-12 * rho * V);
        assert_true(errL <= 1e-12 * rho * V);
    }
}

/* A distorted (non-affine) hex used below: the unit cube with moved corners. */
static void distorted(double x[8][3])
{
    const double d[8][3] = {{0.05, -0.02, 0.03}, {0.1, 0.04, -0.05}, {-0.07, 0.12, 0.02}, {0.03, -0.06, 0.08},
                            {-0.04, 0.02, -0.1}, {0.06, -0.03, 0.05}, {0.15, 0.1, 0.12}, {-0.02, 0.05, -0.04}};
    const double lo[3] = {0, 0, 0}, h[3] = {1, 1.2, 0.9};
    box_corners(lo, h, x);
    for (int a = 0; a < 8; a++)
        for (int i = 0; i < 3; i++)
            x[a][i] += d[a][i];
}

/* K of a distorted hex is symmetric with the six rigid motions in its null
 * space; the masses sum to rho V (V by a 4-point rule). */
static void distorted_matrices(void **s)
{
    (void)s;
    double x[8][3], K[24][24], M[24][24], L[24][24], maxK = 0;
    distorted(x);
    ep_fem_hex_element(EP_FEM_STIFFNESS, x, 1.3, 0.8, 1, K);
    ep_fem_hex_element(EP_FEM_MASS, x, 1.3, 0.8, 3, M);
    ep_fem_hex_element(EP_FEM_MASS_LUMPED, x, 1.3, 0.8, 3, L);
    for (int i = 0; i < 24; i++)
        for (int j = 0; j < 24; j++)
            maxK = fmax(maxK, fabs(K[i][j]));
    for (int i = 0; i < 24; i++)
        for (int j = 0; j < 24; j++)
            assert_true(fabs(K[i][j] - K[j][i]) <= 1e-14 * maxK);
    for (int mode = 0; mode < 6; mode++) {
        double u[24];
        rigid_motion(mode, &x[0][0], 8, u);
        assert_true(max_product(&K[0][0], u, 24) <= 1e-13 * maxK);
    }
    double w[64], g[64][8][3], V = 0, sumM = 0, sumL = 0;
    assert_int_equal(ep_hex_rule(x, 4, w, g, NULL), 0);
    for (int p = 0; p < 64; p++)
        V += w[p];
    for (int i = 0; i < 24; i += 3)
        for (int j = 0; j < 24; j += 3) {
            sumM += M[i][j];
            sumL += L[i][j];
        }
    assert_true(fabs(sumM - 3 * V) < 1e-13 * V);
    assert_true(fabs(sumL - 3 * V) < 1e-13 * V);
    assert_true(ep_hex_quality(x) > 0.5 && ep_hex_quality(x) < 1);
    double h[3];
    assert_int_equal(ep_hex_is_box(x, 1e-9, h), 0);
}

/* Patch test: eight hexes around a displaced centre node (none of them
 * affine); an affine displacement gives zero force at the interior node,
 * and the boundary forces balance. */
static void patch_test(void **s)
{
    (void)s;
    enum { NV = 27 };
    double X[NV][3];
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < 3; j++)
            for (int i = 0; i < 3; i++) {
                double *p = X[(k * 3 + j) * 3 + i];
                p[0] = i + 0.1 * sin(3.0 * i + j);
                p[1] = j + 0.1 * cos(2.0 * j + k);
                p[2] = k + 0.1 * sin(i + 2.0 * k);
            }
    X[13][0] += 0.23, X[13][1] -= 0.17, X[13][2] += 0.11; /* the interior node */
    double K[3 * NV][3 * NV] = {{0}}, u[3 * NV], A[3][3] = {{0.01, 0.02, -0.03}, {0.015, -0.01, 0.005}, {0.02, 0.01, 0.03}};
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < 2; j++)
            for (int i = 0; i < 2; i++) {
                int v[8];
                double x[8][3], Ke[24][24];
                for (int a = 0; a < 8; a++) {
                    v[a] = ((k + (ep_hex_corner[a][2] > 0)) * 3 + j + (ep_hex_corner[a][1] > 0)) * 3 + i +
                           (ep_hex_corner[a][0] > 0);
                    memcpy(x[a], X[v[a]], sizeof x[a]);
                }
                double h[3];
                assert_int_equal(ep_hex_is_box(x, 1e-6, h), 0);
                ep_fem_hex_element(EP_FEM_STIFFNESS, x, 2.0, 1.0, 1, Ke);
                for (int a = 0; a < 8; a++)
                    for (int b = 0; b < 8; b++)
                        for (int p = 0; p < 3; p++)
                            for (int q = 0; q < 3; q++)
                                K[3 * v[a] + p][3 * v[b] + q] += Ke[3 * a + p][3 * b + q];
            }
    for (int v = 0; v < NV; v++)
        for (int i = 0; i < 3; i++)
            u[3 * v + i] = 0.3 * (i == 1) + A[i][0] * X[v][0] + A[i][1] * X[v][1] + A[i][2] * X[v][2];
    double fmax_ = 0, fint = 0, total[3] = {0};
    for (int r = 0; r < 3 * NV; r++) {
        double f = 0;
        for (int c = 0; c < 3 * NV; c++)
            f += K[r][c] * u[c];
        fmax_ = fmax(fmax_, fabs(f));
        if (r / 3 == 13)
            fint = fmax(fint, fabs(f));
        total[r % 3] += f;
    }
    assert_true(fmax_ > 1e-3); /* a real load on the boundary */
    assert_true(fint < 1e-13 * fmax_);
    for (int i = 0; i < 3; i++)
        assert_true(fabs(total[i]) < 1e-13 * fmax_);
}

/* Local coordinates: x(xi) = p inside and outside, on a box (closed form)
 * and a distorted hex (Newton); det J <= 0 is reported. */
static void local_coordinates(void **s)
{
    (void)s;
    double xb[8][3], xd[8][3];
    const double lo[3] = {1, 2, 3}, h[3] = {0.5, 0.25, 2};
    box_corners(lo, h, xb);
    distorted(xd);
    for (int t = 0; t < 2; t++) {
        double(*x)[3] = t ? xd : xb;
        for (int k = 0; k < 20; k++) {
            double xi0[3] = {1.4 * sin(k + 1.0), 1.3 * cos(2.0 * k), 0.9 * sin(3.0 * k + 2)}, N[8], p[3] = {0}, xi[3];
            ep_hex_shape(xi0, N, NULL);
            for (int a = 0; a < 8; a++)
                for (int i = 0; i < 3; i++)
                    p[i] += N[a] * x[a][i];
            assert_int_equal(ep_hex_local(x, p, xi), 0);
            for (int i = 0; i < 3; i++)
                assert_true(fabs(xi[i] - xi0[i]) < 1e-10);
        }
    }
    double hb[3];
    assert_int_equal(ep_hex_is_box(xb, 1e-12, hb), 1);
    for (int i = 0; i < 3; i++)
        assert_true(fabs(hb[i] - h[i]) < 1e-15);
    assert_true(fabs(ep_hex_quality(xb) - 1) < 1e-14);
    /* mirror: swap the z-faces, an inverted hex */
    double xi_[8][3], w[8], g[8][8][3];
    for (int a = 0; a < 8; a++)
        memcpy(xi_[a], xb[a ^ 4], sizeof xi_[a]);
    assert_true(ep_hex_quality(xi_) < 0);
    assert_int_equal(ep_hex_rule(xi_, 2, w, g, NULL), EP_EINPUT);
    assert_non_null(strstr(ep_errmsg(), "det J"));
    assert_int_equal(ep_hex_is_box(xi_, 1e-9, hb), 0);
}

EP_TEST_MAIN("hex", cmocka_unit_test(gauss_rules), cmocka_unit_test(shape_functions), cmocka_unit_test(box_matrices),
             cmocka_unit_test(distorted_matrices), cmocka_unit_test(patch_test), cmocka_unit_test(local_coordinates))
