/*
 * test_subdiv.c — Loop/linear subdivision (counts, parents, closedness, the
 * Loop stencils) and closest-point queries (against brute force).
 */
#include "model.h"
#include "helpers.h"

#include <math.h>

#include "closest.h"
#include "mesh.h"
#include "subdiv.h"

static void read_ico(ep_mesh *m)
{
    assert_int_equal(ep_model_read(m, "data/icosahedron.obj"), EP_OK);
    assert_int_equal(ep_mesh_check_closed(m), EP_OK);
}

/* V_{l+1} = V_l + E_l: 12, 42, 162, 642, 2562, 10242 (000 Fig. 1.1 rabbits). */
static void icosahedron_counts(void **s)
{
    (void)s;
    const int nv[] = {12, 42, 162, 642, 2562, 10242};
    ep_mesh m;
    read_ico(&m);
    for (int l = 1; l <= 5; l++) {
        assert_int_equal(ep_subdiv_refine(&m, EP_SUBDIV_LOOP, NULL), EP_OK);
        assert_int_equal(m.nv, nv[l]);
        assert_int_equal(m.nf, 20 << (2 * l));
        assert_int_equal(m.nb, m.nv);
        assert_int_equal(ep_mesh_check_closed(&m), EP_OK); /* closed, oriented */
        assert_int_equal(m.nv - 3 * m.nf / 2 + m.nf, 2);   /* Euler characteristic of a sphere */
    }
    ep_mesh_free(&m);
}

/* Levels ascend, parents are an edge of the previous level's mesh, and each
 * edge has exactly one odd vertex. */
static void parents_are_edges(void **s)
{
    (void)s;
    ep_mesh m;
    read_ico(&m);
    assert_int_equal(ep_subdiv_refine(&m, EP_SUBDIV_LINEAR, NULL), EP_OK);
    int nv1 = m.nv, nf1 = m.nf;
    int *tri1 = malloc(3 * sizeof(int) * (size_t)nf1);
    memcpy(tri1, m.triangles, 3 * sizeof(int) * (size_t)nf1);
    assert_int_equal(ep_subdiv_refine(&m, EP_SUBDIV_LINEAR, NULL), EP_OK);
    for (int v = 0; v < m.nv; v++) {
        int l = m.level[v];
        assert_int_equal(l, v < 12 ? 0 : v < nv1 ? 1 : 2);
        if (l < 2)
            continue;
        int a = m.parents[2 * v], b = m.parents[2 * v + 1], found = 0;
        assert_true(a < b && b < nv1);
        for (int t = 0; t < nf1 && !found; t++)
            for (int k = 0; k < 3; k++) {
                int p = tri1[3 * t + k], q = tri1[3 * t + (k + 1) % 3];
                found |= (p == a && q == b) || (p == b && q == a);
            }
        assert_true(found);
        for (int w = nv1; w < v; w++) /* one odd vertex per edge */
            assert_false(m.parents[2 * w] == a && m.parents[2 * w + 1] == b);
    }
    free(tri1);
    ep_mesh_free(&m);
}

/* Linear scheme: every odd vertex is the midpoint of its parents (on their
 * edge), and the enclosed volume is unchanged. */
static void linear_on_parent_edge(void **s)
{
    (void)s;
    ep_mesh m;
    double a0, v0, a1, v1;
    read_ico(&m);
    ep_mesh_surface_measures(&m, &a0, &v0);
    for (int l = 0; l < 3; l++)
        assert_int_equal(ep_subdiv_refine(&m, EP_SUBDIV_LINEAR, NULL), EP_OK);
    for (int v = 12; v < m.nv; v++)
        for (int c = 0; c < 3; c++) {
            double mid = 0.5 * (m.vertices[3 * m.parents[2 * v] + c] + m.vertices[3 * m.parents[2 * v + 1] + c]);
            assert_true(fabs(m.vertices[3 * v + c] - mid) < 1e-15);
        }
    ep_mesh_surface_measures(&m, &a1, &v1);
    assert_true(fabs(a1 - a0) < 1e-12 && fabs(v1 - v0) < 1e-12);
    ep_mesh_free(&m);
}

/* Loop's rules on one step, recomputed independently from the input mesh:
 * odd = 3/8 (a + b) + 1/8 (c + d); even = (1 - n beta) x + beta sum(nbrs). */
static void loop_stencils(void **s)
{
    (void)s;
    ep_mesh m, o;
    read_ico(&m);
    read_ico(&o);
    assert_true(fabs(ep_subdiv_loop_beta(6) - 1.0 / 16.0) < 1e-15); /* regular vertex */
    assert_int_equal(ep_subdiv_refine(&m, EP_SUBDIV_LOOP, NULL), EP_OK);
    /* every icosahedron vertex has valence 5; neighbours = vertices sharing a face */
    double beta = ep_subdiv_loop_beta(5);
    for (int v = 0; v < 12; v++) {
        double sum[3] = {0, 0, 0};
        int nb = 0;
        for (int w = 0; w < 12; w++) {
            int adj = 0;
            for (int t = 0; t < o.nf; t++) {
                const int *f = &o.triangles[3 * t];
                adj |= (f[0] == v || f[1] == v || f[2] == v) && (f[0] == w || f[1] == w || f[2] == w) && v != w;
            }
            if (adj) {
                nb++;
                for (int c = 0; c < 3; c++)
                    sum[c] += o.vertices[3 * w + c];
            }
        }
        assert_int_equal(nb, 5);
        for (int c = 0; c < 3; c++)
            assert_true(fabs(m.vertices[3 * v + c] - ((1 - 5 * beta) * o.vertices[3 * v + c] + beta * sum[c])) < 1e-14);
    }
    for (int v = 12; v < m.nv; v++) {
        int a = m.parents[2 * v], b = m.parents[2 * v + 1], opp[2], n = 0;
        for (int t = 0; t < o.nf; t++) {
            const int *f = &o.triangles[3 * t];
            for (int k = 0; k < 3; k++)
                if ((f[k] == a && f[(k + 1) % 3] == b) || (f[k] == b && f[(k + 1) % 3] == a))
                    opp[n++] = f[(k + 2) % 3];
        }
        assert_int_equal(n, 2);
        for (int c = 0; c < 3; c++) {
            double want = 0.375 * (o.vertices[3 * a + c] + o.vertices[3 * b + c]) +
                          0.125 * (o.vertices[3 * opp[0] + c] + o.vertices[3 * opp[1] + c]);
            assert_true(fabs(m.vertices[3 * v + c] - want) < 1e-15);
        }
    }
    ep_mesh_free(&m);
    ep_mesh_free(&o);
}

/* Projection: new vertices land on the reference surface (distance ~ 0) and
 * old vertices keep their positions. */
static void projection(void **s)
{
    (void)s;
    ep_mesh m, fine;
    ep_closest tree;
    read_ico(&fine);
    for (int l = 0; l < 3; l++)
        assert_int_equal(ep_subdiv_refine(&fine, EP_SUBDIV_LINEAR, NULL), EP_OK);
    for (int v = 0; v < fine.nv; v++) { /* push the fine mesh onto the unit sphere */
        double *x = &fine.vertices[3 * v], r = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        for (int c = 0; c < 3; c++)
            x[c] /= r;
    }
    assert_int_equal(ep_closest_build(&tree, &fine), EP_OK);
    read_ico(&m);
    double x0[3];
    memcpy(x0, m.vertices, sizeof x0);
    assert_int_equal(ep_subdiv_refine(&m, EP_SUBDIV_LOOP, &tree), EP_OK);
    assert_memory_equal(m.vertices, x0, sizeof x0);
    for (int v = 12; v < m.nv; v++) {
        double q[3], d2;
        int t;
        ep_closest_query(&tree, &m.vertices[3 * v], q, &t, &d2);
        assert_true(t >= 0 && d2 < 1e-24);
        double r = sqrt(m.vertices[3 * v] * m.vertices[3 * v] + m.vertices[3 * v + 1] * m.vertices[3 * v + 1] +
                        m.vertices[3 * v + 2] * m.vertices[3 * v + 2]);
        assert_true(r > 0.98 && r <= 1.0 + 1e-12); /* on the fine polyhedron inside the sphere */
    }
    ep_closest_free(&tree);
    ep_mesh_free(&m);
    ep_mesh_free(&fine);
}

/* The hierarchy query equals brute force over all triangles. */
static void closest_brute_force(void **s)
{
    const ep_mesh *m = *s; /* data/models/turtle/turtle-volumetric-homogeneous.veg */
    ep_closest tree;
    assert_int_equal(ep_closest_build(&tree, m), EP_OK);
    srand(7);
    for (int i = 0; i < 500; i++) {
        double p[3], q[3], best = INFINITY, d2;
        int t;
        for (int c = 0; c < 3; c++)
            p[c] = -5 + 10.0 * rand() / (double)RAND_MAX;
        for (int k = 0; k < m->nf; k++) {
            double r[3];
            const int *f = &m->triangles[3 * k];
            ep_closest_on_triangle(p, &m->vertices[3 * f[0]], &m->vertices[3 * f[1]], &m->vertices[3 * f[2]], r);
            double d = (r[0] - p[0]) * (r[0] - p[0]) + (r[1] - p[1]) * (r[1] - p[1]) + (r[2] - p[2]) * (r[2] - p[2]);
            best = fmin(best, d);
        }
        ep_closest_query(&tree, p, q, &t, &d2);
        assert_true(fabs(d2 - best) <= 1e-12 * (1 + best));
    }
    ep_closest_free(&tree);
}

/* Closest point on a triangle: the interior, edge and vertex regions. */
static void closest_on_triangle(void **s)
{
    (void)s;
    const double a[3] = {0, 0, 0}, b[3] = {1, 0, 0}, c[3] = {0, 1, 0};
    struct { double p[3], q[3]; } cases[] = {
        {{0.2, 0.2, 5}, {0.2, 0.2, 0}},  {{-1, -1, 0}, {0, 0, 0}},      {{2, -1, 1}, {1, 0, 0}},
        {{-1, 3, 0}, {0, 1, 0}},         {{0.5, -2, 0}, {0.5, 0, 0}},   {{-2, 0.5, 0}, {0, 0.5, 0}},
        {{1, 1, -3}, {0.5, 0.5, 0}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double q[3];
        ep_closest_on_triangle(cases[i].p, a, b, c, q);
        for (int k = 0; k < 3; k++)
            assert_true(fabs(q[k] - cases[i].q[k]) < 1e-15);
    }
}

EP_TEST_MAIN("subdiv", cmocka_unit_test(icosahedron_counts), cmocka_unit_test(parents_are_edges),
             cmocka_unit_test(linear_on_parent_edge), cmocka_unit_test(loop_stencils),
             cmocka_unit_test(projection),
             EP_MODEL_TEST(closest_brute_force, "data/models/turtle/turtle-volumetric-homogeneous.veg"),
             cmocka_unit_test(closest_on_triangle))
