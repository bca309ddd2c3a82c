/*
 * test_bem.c — the BEM kernels and quadrature (bem.h, MATH.md §6) against
 * what holds without them: Hooke's law on the Kelvin displacement, the
 * equilibrium of a unit force inside a closed surface, the rigid-body
 * property of the double-layer rows on a rigid rotation, and the singular
 * (Duffy) rules against the near-singular ones just off the surface.
 */
#include "helpers.h"
#include "surfaces.h"

#include "bem.h"
#include "vec3.h"

enum { SPHERE_LEVELS = 2 }; /* 162 vertices, 320 triangles */

static void corners(const ep_mesh *m, int t, double v[3][3])
{
    for (int a = 0; a < 3; a++)
        for (int i = 0; i < 3; i++)
            v[a][i] = m->vertices[3 * (size_t)m->triangles[3 * t + a] + i];
}

/* p* is the traction of the displacement field u*: with G = 1, a central
 * difference of u* in the field point gives the strain, Hooke's law the
 * stress sigma = lambda tr(e) I + 2 e, and sigma n the traction. */
static void kelvin_is_elastic(void **s)
{
    (void)s;
    const double nu = 0.3, lambda = 2 * nu / (1 - 2 * nu), h = 1e-5;
    const double r0[][3] = {{0.7, -0.2, 0.4}, {-1.5, 0.3, 2.0}, {0.05, 0.9, -0.1}};
    double n[3] = {0.48, -0.6, 0.64}; /* unit */
    for (int c = 0; c < 3; c++) {
        double us[3][3], ps[3][3], up[3][3], um[3][3], ps_[3][3], grad[3][3][3]; /* grad[l][k][j] = d u_lk / d y_j */
        ep_bem_kelvin(r0[c], n, nu, us, ps);
        for (int l = 0; l < 3; l++)
            for (int k = 0; k < 3; k++)
                assert_true(fabs(us[l][k] - us[k][l]) < 1e-15 * maxabs(&us[0][0], 9)); /* reciprocity */
        for (int j = 0; j < 3; j++) {
            double rp[3] = {r0[c][0], r0[c][1], r0[c][2]}, rm[3] = {r0[c][0], r0[c][1], r0[c][2]};
            rp[j] += h, rm[j] -= h;
            ep_bem_kelvin(rp, n, nu, up, ps_);
            ep_bem_kelvin(rm, n, nu, um, ps_);
            for (int l = 0; l < 3; l++)
                for (int k = 0; k < 3; k++)
                    grad[l][k][j] = (up[l][k] - um[l][k]) / (2 * h);
        }
        double scale = maxabs(&ps[0][0], 9);
        for (int l = 0; l < 3; l++) {
            double div = grad[l][0][0] + grad[l][1][1] + grad[l][2][2];
            for (int k = 0; k < 3; k++) {
                double t = 0;
                for (int j = 0; j < 3; j++)
                    t += (lambda * div * (k == j) + grad[l][k][j] + grad[l][j][k]) * n[j];
                assert_true(fabs(t - ps[l][k]) < 1e-7 * scale);
            }
        }
    }
}

/* The derivative kernels (ep_bem_kelvin_grad) against central differences
 * of u* and p* in the load point x (r = y - x: d/dx = -d/dr), to 1e-7. */
static void kelvin_grad_differences(void **s)
{
    (void)s;
    const double h = 1e-5, r0[][3] = {{0.7, -0.2, 0.4}, {-1.5, 0.3, 2.0}, {0.05, 0.9, -0.1}};
    double n[3] = {0.48, -0.6, 0.64};
    for (int c = 0; c < 3; c++)
        for (int inu = 0; inu < 3; inu++) {
            double nu = inu == 0 ? 0.0 : inu == 1 ? 0.3 : 0.5, dus[3][3][3], dps[3][3][3];
            ep_bem_kelvin_grad(r0[c], n, nu, dus, dps);
            double su = maxabs(&dus[0][0][0], 27), sp = maxabs(&dps[0][0][0], 27);
            for (int j = 0; j < 3; j++) {
                double rp[3] = {r0[c][0], r0[c][1], r0[c][2]}, rm[3] = {r0[c][0], r0[c][1], r0[c][2]};
                double up[3][3], um[3][3], pp[3][3], pm[3][3];
                rp[j] -= h, rm[j] += h; /* x + h e_j, x - h e_j */
                ep_bem_kelvin(rp, n, nu, up, pp);
                ep_bem_kelvin(rm, n, nu, um, pm);
                for (int l = 0; l < 3; l++)
                    for (int k = 0; k < 3; k++) {
                        assert_true(fabs((up[l][k] - um[l][k]) / (2 * h) - dus[j][l][k]) < 1e-7 * su);
                        assert_true(fabs((pp[l][k] - pm[l][k]) / (2 * h) - dps[j][l][k]) < 1e-7 * sp);
                    }
            }
        }
}

/* The sum over the surface of h (the hats of a triangle sum to one) is the
 * integral of p*: the traction a unit force at x puts on a closed surface
 * balances it, -I when x is inside, 0 outside, whatever the surface's shape
 * (the divergence theorem holds on the polyhedron itself).  Points near the
 * surface take the near-singular subdivision. */
static void traction_balances_force(void **s)
{
    (void)s;
    ep_mesh m;
    make_sphere(&m, SPHERE_LEVELS);
    const double x[][3] = {{0, 0, 0}, {0.2, -0.3, 0.1}, {0, 0, 0.9}, {0, 0, 2.5}, {0.3, 0.4, -1.4}};
    const int inside[] = {1, 1, 1, 0, 0};
    for (int c = 0; c < 5; c++)
        for (int constant = 0; constant < 2; constant++) {
            double sum[3][3] = {{0}}, v[3][3], g[3][3][3], h[3][3][3];
            for (int t = 0; t < m.nf; t++) {
                corners(&m, t, v);
                if (constant)
                    ep_bem_triangle_constant(x[c], v, 0, 0.3, g[0], h[0]);
                else
                    ep_bem_triangle(x[c], v, -1, 0.3, g, h);
                for (int a = 0; a < (constant ? 1 : 3); a++)
                    for (int l = 0; l < 3; l++)
                        for (int k = 0; k < 3; k++)
                            sum[l][k] += h[a][l][k];
            }
            for (int l = 0; l < 3; l++)
                for (int k = 0; k < 3; k++)
                    if (fabs(sum[l][k] + (inside[c] && l == k)) > 2e-6)
                        fail_msg("point %d (%s elements): integral of p*[%d][%d] = %.9f, expected %d", c,
                                 constant ? "constant" : "linear", l, k, sum[l][k], -(inside[c] && l == k));
        }
    ep_mesh_free(&m);
}

/* A rigid rotation u = w x y has zero traction, so H u = G p = 0 for every
 * collocation row, exactly for linear elements (the hats reproduce a linear
 * field) up to quadrature: the diagonal block from the rigid-body trick
 * (000 eq. B.6), every off-diagonal one from the regular, near-singular and
 * singular rules. */
static void double_layer_rigid_rotation(void **s)
{
    (void)s;
    ep_mesh m;
    make_sphere(&m, SPHERE_LEVELS);
    const double w[3] = {0.3, -0.8, 0.5};
    double (*H)[3][3] = calloc((size_t)m.nv, sizeof *H);
    assert_non_null(H);
    for (int i = 0; i < m.nv; i += 17) {
        const double *x = &m.vertices[3 * (size_t)i];
        memset(H, 0, (size_t)m.nv * sizeof *H);
        for (int t = 0; t < m.nf; t++) {
            double v[3][3], g[3][3][3], h[3][3][3];
            int sing = -1;
            corners(&m, t, v);
            for (int a = 0; a < 3; a++)
                sing = m.triangles[3 * t + a] == i ? a : sing;
            ep_bem_triangle(x, v, sing, 0.3, g, h);
            for (int a = 0; a < 3; a++)
                for (int l = 0; l < 3; l++)
                    for (int k = 0; k < 3; k++)
                        H[m.triangles[3 * t + a]][l][k] += h[a][l][k];
        }
        for (int l = 0; l < 3; l++) /* h_ii = -sum_{j != i} h_ij */
            for (int k = 0; k < 3; k++) {
                H[i][l][k] = 0;
                for (int j = 0; j < m.nv; j++)
                    H[i][l][k] -= j != i ? H[j][l][k] : 0;
            }
        double r[3] = {0}, size = 0;
        for (int j = 0; j < m.nv; j++) {
            double u[3], *y = &m.vertices[3 * (size_t)j];
            ep_vec3_cross(w, y, u);
            for (int l = 0; l < 3; l++)
                for (int k = 0; k < 3; k++) {
                    r[l] += H[j][l][k] * u[k];
                    size += fabs(H[j][l][k] * u[k]);
                }
        }
        if (maxabs(r, 3) > 1e-6 * size)
            fail_msg("row %d: |H u| = %.3g of %.3g", i, maxabs(r, 3), size);
    }
    free(H);
    ep_mesh_free(&m);
}

/* A triangle off the axes, and its unit normal. */
static const double tri[3][3] = {{0.1, 0.2, 0.0}, {1.3, 0.1, 0.2}, {0.4, 1.1, -0.1}};

static void tri_normal(double n[3])
{
    ep_vec3_normal(tri[0], tri[1], tri[2], n);
    double len = ep_vec3_norm(n);
    for (int i = 0; i < 3; i++)
        n[i] /= len;
}

/* The integral of 1/|y - x| over tri for x in its plane, in closed form:
 * in polar coordinates about x each edge contributes d ln((s2 + R2)/(s1 + R1)),
 * d the distance from x to the edge's line (positive inside), s1, s2 the
 * ends' coordinates along the edge from the foot of that distance, R1, R2
 * their distances from x. */
static double integral_inv_r(const double x[3])
{
    double n[3], sum = 0;
    tri_normal(n);
    for (int e = 0; e < 3; e++) {
        const double *p1 = tri[e], *p2 = tri[(e + 1) % 3];
        double t[3], a[3], b[3], out[3];
        ep_vec3_sub(p2, p1, t);
        double len = ep_vec3_norm(t);
        for (int i = 0; i < 3; i++)
            t[i] /= len;
        ep_vec3_sub(p1, x, a);
        ep_vec3_sub(p2, x, b);
        ep_vec3_cross(t, n, out);
        double d = ep_vec3_dot(a, out);
        if (fabs(d) > 1e-14)
            sum += d * log((ep_vec3_dot(b, t) + ep_vec3_norm(b)) / (ep_vec3_dot(a, t) + ep_vec3_norm(a)));
    }
    return sum;
}

/* The singular single-layer integrals against the closed form: the trace of
 * u* is (10 - 12 nu) / (16 pi (1 - nu)) / r, so the trace of g (summed over
 * the hats, which sum to one) is that constant times the integral of 1/r.
 * Measured agreement: 2e-8 at the corners (Duffy at a corner), 5e-5 at the
 * centroid (three Duffy sub-triangles, two of them thin). */
static void singular_rules_closed_form(void **s)
{
    (void)s;
    const double nu = 0.3, c = (10 - 12 * nu) / (16 * M_PI * (1 - nu));
    for (int a = 0; a < 3; a++) {
        double g[3][3][3], h[3][3][3], trace = 0, want = c * integral_inv_r(tri[a]);
        ep_bem_triangle(tri[a], tri, a, nu, g, h);
        for (int b = 0; b < 3; b++)
            trace += g[b][0][0] + g[b][1][1] + g[b][2][2];
        if (fabs(trace - want) > 1e-7 * want)
            fail_msg("corner %d: trace of g %.12f, closed form %.12f", a, trace, want);
    }
    double x[3] = {0}, g[3][3], h[3][3];
    for (int a = 0; a < 3; a++)
        for (int i = 0; i < 3; i++)
            x[i] += tri[a][i] / 3;
    ep_bem_triangle_constant(x, tri, 1, nu, g, h);
    double trace = g[0][0] + g[1][1] + g[2][2], want = c * integral_inv_r(x);
    if (fabs(trace - want) > 1e-4 * want)
        fail_msg("centroid: trace of g %.12f, closed form %.12f", trace, want);
}

/* The Duffy rule at a corner against the near-singular rule at a point just
 * off the triangle: g is continuous across the surface, and so is h of the
 * hats that vanish at the point.  The agreement is the near-singular rule's
 * at its subdivision limit, 4e-4 of the largest entry here. */
static void singular_rules_match_nearby(void **s)
{
    (void)s;
    double n[3];
    tri_normal(n);
    for (int a = 0; a < 3; a++) {
        double gs[3][3][3], hs[3][3][3], gn[3][3][3], hn[3][3][3], x[3];
        for (int i = 0; i < 3; i++)
            x[i] = tri[a][i] + 1e-7 * n[i];
        ep_bem_triangle(tri[a], tri, a, 0.3, gs, hs);
        ep_bem_triangle(x, tri, -1, 0.3, gn, hn);
        double gscale = maxabs(&gs[0][0][0], 27);
        double hscale = fmax(maxabs(&hs[(a + 1) % 3][0][0], 9), maxabs(&hs[(a + 2) % 3][0][0], 9));
        for (int b = 0; b < 3; b++)
            for (int l = 0; l < 3; l++)
                for (int k = 0; k < 3; k++) {
                    assert_true(fabs(gs[b][l][k] - gn[b][l][k]) < 1e-3 * gscale);
                    if (b != a)
                        assert_true(fabs(hs[b][l][k] - hn[b][l][k]) < 1e-3 * hscale);
                }
    }
}

EP_TEST_MAIN("bem", cmocka_unit_test(kelvin_is_elastic), cmocka_unit_test(kelvin_grad_differences), cmocka_unit_test(traction_balances_force),
             cmocka_unit_test(double_layer_rigid_rotation), cmocka_unit_test(singular_rules_closed_form),
             cmocka_unit_test(singular_rules_match_nearby))
