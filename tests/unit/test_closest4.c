/*
 * test_closest4.c — the 4-wide closest-triangle hierarchy (closest4.h)
 * against brute force over ep_closest_on_triangle: random soups with
 * degenerate triangles, hints right and wrong, a closed torus, one
 * triangle.
 */
#include "helpers.h"
#include "surfaces.h"

#include "closest.h"
#include "closest4.h"
#include "rng.h"
#include "vec3.h"

static double brute(const ep_mesh *m, const double p[3], int *tri)
{
    double best = INFINITY, q[3];
    for (int t = 0; t < m->nf; t++) {
        const int *f = &m->triangles[3 * t];
        ep_closest_on_triangle(p, &m->vertices[3 * f[0]], &m->vertices[3 * f[1]], &m->vertices[3 * f[2]], q);
        double d = ep_vec3_dist2(p, q);
        if (d < best) {
            best = d;
            *tri = t;
        }
    }
    return best;
}

static double tri_d2(const ep_mesh *m, int t, const double p[3])
{
    const int *f = &m->triangles[3 * t];
    double q[3];
    ep_closest_on_triangle(p, &m->vertices[3 * f[0]], &m->vertices[3 * f[1]], &m->vertices[3 * f[2]], q);
    return ep_vec3_dist2(p, q);
}

/* Every query of pts random points (in a box of side span around the
 * unit cube) equals brute force: the distance to 1e-12 relative (1e-9
 * absolute on degenerate triangles), and the triangle returned is at that
 * distance. */
static void check(const ep_mesh *m, int pts, double span, unsigned long seed)
{
    ep_closest4 w;
    assert_int_equal(ep_closest4_build(&w, m), EP_OK);
    ep_rng r = ep_rng_seed(seed, 4);
    for (int k = 0; k < pts; k++) {
        double p[3];
        for (int a = 0; a < 3; a++)
            p[a] = 0.5 + span * (ep_rng_uniform(&r) - 0.5);
        int bt = -1, t = -1;
        double ref = brute(m, p, &bt), d2 = INFINITY, tests = 0;
        if (k % 2) { /* a hint: any triangle */
            t = ep_rng_below(&r, m->nf);
            d2 = tri_d2(m, t, p);
        }
        ep_closest4_query(&w, p, &t, &d2, &tests);
        double tol = 1e-12 * ref + 1e-18;
        if (fabs(sqrt(d2) - sqrt(ref)) > 1e-12 * sqrt(ref) + 2e-9)
            fail_msg("point %d (%g %g %g): %.17g, brute force %.17g (triangle %d, brute %d)", k, p[0], p[1], p[2],
                     sqrt(d2), sqrt(ref), t, bt);
        assert_true(t >= 0 && t < m->nf);
        assert_true(fabs(tri_d2(m, t, p) - d2) <= 1e-9 * d2 + 1e-12 + tol);
        assert_true(tests < 4.0 * m->nf + 1); /* no leaf twice */
    }
    ep_closest4_free(&w);
}

/* A soup of n random triangles in the unit cube, of sizes from 0.01 to
 * 0.3, with every fifth degenerate: collinear corners, two corners at one
 * point, all three at one point, a needle. */
static void soup(ep_mesh *m, int n, unsigned long seed)
{
    ep_rng r = ep_rng_seed(seed, 9);
    memset(m, 0, sizeof *m);
    m->nv = 3 * n;
    m->nf = n;
    m->vertices = ep_malloc(9 * (size_t)n, sizeof *m->vertices);
    m->triangles = ep_malloc(3 * (size_t)n, sizeof *m->triangles);
    assert_non_null(m->vertices);
    assert_non_null(m->triangles);
    for (int t = 0; t < n; t++) {
        double *v = &m->vertices[9 * t], s = 0.01 + 0.29 * ep_rng_uniform(&r);
        for (int a = 0; a < 3; a++) {
            v[a] = ep_rng_uniform(&r);
            v[3 + a] = v[a] + s * (ep_rng_uniform(&r) - 0.5);
            v[6 + a] = v[a] + s * (ep_rng_uniform(&r) - 0.5);
        }
        switch (t % 20) {
        case 5: /* collinear */
            for (int a = 0; a < 3; a++)
                v[6 + a] = v[a] + 0.37 * (v[3 + a] - v[a]);
            break;
        case 10: /* two corners at one point */
            memcpy(&v[6], &v[3], 3 * sizeof *v);
            break;
        case 15: /* a point */
            memcpy(&v[3], v, 3 * sizeof *v);
            memcpy(&v[6], v, 3 * sizeof *v);
            break;
        case 19: /* a needle: the third corner 1e-9 off the first edge's middle */
            for (int a = 0; a < 3; a++)
                v[6 + a] = 0.5 * (v[a] + v[3 + a]) + (a == 2 ? 1e-9 : 0);
            break;
        }
        for (int k = 0; k < 3; k++)
            m->triangles[3 * t + k] = 3 * t + k;
    }
}

static void test_soups(void **state)
{
    (void)state;
    int sizes[] = {1, 2, 3, 4, 5, 7, 17, 200, 3000};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        ep_mesh m;
        soup(&m, sizes[i], 100 + i);
        check(&m, 2000, 1.2, 7 + i); /* inside the soup's cube */
        check(&m, 500, 30, 70 + i);  /* far away */
        ep_mesh_free(&m);
    }
}

/* A closed torus, grid-like points near and far (the distance field's use). */
static void test_torus(void **state)
{
    (void)state;
    ep_mesh m;
    make_torus(&m, 64, 32, 0.35, 0.12);
    for (int v = 0; v < m.nv; v++) /* into the unit cube */
        for (int a = 0; a < 3; a++)
            m.vertices[3 * v + a] += 0.5;
    check(&m, 5000, 1.5, 3);
    check(&m, 500, 10, 4);
    ep_mesh_free(&m);
}

/* Every centre at one point (the median fallback) and no triangles. */
static void test_edge_cases(void **state)
{
    (void)state;
    ep_mesh m;
    soup(&m, 40, 5);
    double base[9];
    memcpy(base, m.vertices, sizeof base);
    for (int t = 0; t < m.nf; t++) /* the same triangle 40 times, every other flipped */
        for (int k = 0; k < 3; k++)
            memcpy(&m.vertices[9 * t + 3 * k], &base[3 * (t % 2 && k ? 3 - k : k)], 3 * sizeof *base);
    check(&m, 300, 3, 11);
    ep_mesh_free(&m);
    ep_mesh e = {0};
    ep_closest4 w;
    assert_int_equal(ep_closest4_build(&w, &e), EP_EINPUT);
}

EP_TEST_MAIN("closest4", cmocka_unit_test(test_soups), cmocka_unit_test(test_torus), cmocka_unit_test(test_edge_cases))
