/*
 * test_closest4.c — the 4-wide closest-triangle hierarchy (closest4.h)
 * against brute force over ep_closest_on_triangle: random soups with
 * degenerate triangles, hints right and wrong, a closed torus, one
 * triangle; the lists of leaves near a block of points.
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

/* A block's list (ep_closest4_near, bound: the centre's distance plus the
 * half diagonal) answers every point of the block as brute force does, by
 * the list alone (ep_closest4_query_list) from a hint or from an upper
 * bound; a list made with too small a bound misses the closest triangle
 * of some point (so the comparison can fail); a list of more than `most`
 * leaves is refused. */
static void check_lists(const ep_mesh *m, double side, unsigned long seed)
{
    ep_closest4 w;
    ep_closest4_list l = {0};
    assert_int_equal(ep_closest4_build(&w, m), EP_OK);
    ep_rng r = ep_rng_seed(seed, 5);
    int missed = 0;
    for (int b = 0; b < 40; b++) {
        double lo[3], hi[3], c[3], r2 = 0;
        for (int a = 0; a < 3; a++) {
            lo[a] = -0.5 + 2 * ep_rng_uniform(&r);
            hi[a] = lo[a] + side * ep_rng_uniform(&r);
            c[a] = 0.5 * (lo[a] + hi[a]);
            r2 += (hi[a] - c[a]) * (hi[a] - c[a]);
        }
        int tc = -1, bt;
        double dc = INFINITY, tests = 0;
        ep_closest4_query(&w, c, &tc, &dc, &tests);
        double bound = (sqrt(dc) + sqrt(r2)) * (1 + 1e-9);
        for (int small = 0; small < 2; small++) {
            double bb = small ? 0.5 * sqrt(dc) : bound;
            assert_int_equal(ep_closest4_near(&l, &w, lo, hi, bb * bb, 1 << 30), EP_OK);
            assert_true(l.n >= (small ? 0 : 1));
            for (int k = 0; k < 30; k++) {
                double p[3];
                for (int a = 0; a < 3; a++)
                    p[a] = lo[a] + (hi[a] - lo[a]) * ep_rng_uniform(&r);
                double ref = brute(m, p, &bt), d2 = bound * bound;
                int t = -1;
                if (k % 2) { /* a hint: any triangle */
                    t = ep_rng_below(&r, m->nf);
                    d2 = tri_d2(m, t, p);
                }
                ep_closest4_query_list(&w, &l, p, &t, &d2, &tests);
                int ok = t >= 0 && fabs(sqrt(d2) - sqrt(ref)) <= 1e-12 * sqrt(ref) + 2e-9;
                if (small) {
                    missed += !ok;
                    continue;
                }
                if (!ok)
                    fail_msg("block %d point %d: %.17g, brute force %.17g (triangle %d, brute %d)", b, k, sqrt(d2),
                             sqrt(ref), t, bt);
                assert_true(fabs(tri_d2(m, t, p) - d2) <= 1e-9 * d2 + 1e-12);
            }
        }
        assert_int_equal(ep_closest4_near(&l, &w, lo, hi, bound * bound, 1 << 30), EP_OK);
        int n = l.n;
        assert_int_equal(ep_closest4_near(&l, &w, lo, hi, bound * bound, n - 1), EP_OK);
        assert_int_equal(l.n, -1);
        assert_int_equal(ep_closest4_near(&l, &w, lo, hi, bound * bound, n), EP_OK);
        assert_int_equal(l.n, n);
    }
    assert_true(missed > 0);
    ep_closest4_list_free(&l);
    ep_closest4_free(&w);
}

static void test_lists(void **state)
{
    (void)state;
    ep_mesh m;
    soup(&m, 3000, 41);
    check_lists(&m, 0.05, 1);
    check_lists(&m, 0.3, 2);
    ep_mesh_free(&m);
    make_torus(&m, 64, 32, 0.35, 0.12);
    for (int v = 0; v < m.nv; v++)
        for (int a = 0; a < 3; a++)
            m.vertices[3 * v + a] += 0.5;
    check_lists(&m, 0.05, 3);
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

EP_TEST_MAIN("closest4", cmocka_unit_test(test_soups), cmocka_unit_test(test_torus), cmocka_unit_test(test_lists),
             cmocka_unit_test(test_edge_cases))
