/*
 * test_simplify.c — quadric-error simplification keeps the topology (genus
 * 0, 1, 2; the link condition stops at the smallest triangulations), folds
 * nothing and keeps the angle bound, and stays near the surface.
 */
#include "surfaces.h"

#include "simplify.h"
#include "surfdist.h"

static int genus_of(const ep_mesh *m)
{
    int g;
    assert_int_equal(ep_mesh_check_closed(m), EP_OK);
    assert_int_equal(ep_surfdist_genus(m, &g), EP_OK);
    return g;
}

/* Replace m by its simplification (m itself left unchanged by the call). */
static void simplify_ok(ep_mesh *m, int target, ep_simplify_report *r)
{
    ep_simplify_opts o;
    ep_mesh base, copy;
    ep_simplify_opts_default(&o, target);
    copy_surface(&copy, m);
    int st = ep_simplify_build(&base, m, &o, r);
    if (st)
        fail_msg("simplify failed: %s", ep_errmsg());
    assert_int_equal(copy.nv, m->nv); /* the input is left as it was */
    assert_memory_equal(copy.vertices, m->vertices, 3 * sizeof(double) * (size_t)m->nv);
    ep_mesh_free(&copy);
    ep_mesh_free(m);
    *m = base;
    assert_int_equal(ep_mesh_check_closed(m), EP_OK);
}

/* Unit normal of the torus (R, r) at the point nearest p. */
static void torus_normal(const double *p, double R, double *n)
{
    double rho = sqrt(p[0] * p[0] + p[1] * p[1]);
    double c[3] = {R * p[0] / rho, R * p[1] / rho, 0}; /* nearest point of the centre circle */
    double l = 0;
    for (int k = 0; k < 3; k++) {
        n[k] = p[k] - c[k];
        l += n[k] * n[k];
    }
    for (int k = 0; k < 3; k++)
        n[k] /= sqrt(l);
}

/* Genus 0, 1 and 2 reach the target with their genus. */
static void topology_kept(void **s)
{
    (void)s;
    for (int kind = 0; kind < 3; kind++) {
        ep_mesh m;
        ep_simplify_report r;
        int target = 60 + 20 * kind;
        make_of_genus(&m, kind, 1);
        int g = genus_of(&m), nv = m.nv;
        assert_int_equal(g, kind);
        simplify_ok(&m, target, &r);
        assert_int_equal(m.nv, target);
        assert_int_equal(r.collapses, nv - target);
        assert_int_equal(genus_of(&m), kind);
        ep_mesh_free(&m);
    }
}

/* Asked for 4 vertices, a torus stops at 7 or more (the smallest torus
 * triangulation, Moebius/Csaszar) and a genus-2 surface at 10 or more: the
 * link condition refuses every collapse that would close a handle. */
static void link_condition_stops(void **s)
{
    (void)s;
    ep_mesh m;
    ep_simplify_report r;
    make_torus(&m, 32, 12, 1.0, 0.35);
    simplify_ok(&m, 4, &r);
    assert_true(m.nv >= 7);
    assert_int_equal(genus_of(&m), 1);
    assert_true(r.link_refused > 0);
    ep_mesh_free(&m);
    make_genus2(&m, 3, 2);
    simplify_ok(&m, 4, &r);
    assert_true(m.nv >= 10);
    assert_int_equal(genus_of(&m), 2);
    ep_mesh_free(&m);
    make_sphere(&m, 3);
    simplify_ok(&m, 4, &r); /* a sphere can go down to the tetrahedron */
    assert_int_equal(m.nv, 4);
    assert_int_equal(m.nf, 4);
    ep_mesh_free(&m);
}

/* On a torus reduced 25-fold: every face still faces outward (its normal
 * agrees with the torus normal at its centroid), no angle below the bound,
 * and every vertex near the torus. */
static void no_folds_no_slivers(void **s)
{
    (void)s;
    const double R = 1.0, r0 = 0.35;
    ep_mesh m;
    ep_simplify_report r;
    make_torus(&m, 96, 32, R, r0);
    simplify_ok(&m, 120, &r);
    for (int t = 0; t < m.nf; t++) {
        const int *f = &m.triangles[3 * t];
        double c[3], u[3], w[3], n[3], tn[3];
        for (int k = 0; k < 3; k++) {
            c[k] = (m.vertices[3 * f[0] + k] + m.vertices[3 * f[1] + k] + m.vertices[3 * f[2] + k]) / 3;
            u[k] = m.vertices[3 * f[1] + k] - m.vertices[3 * f[0] + k];
            w[k] = m.vertices[3 * f[2] + k] - m.vertices[3 * f[0] + k];
        }
        n[0] = u[1] * w[2] - u[2] * w[1];
        n[1] = u[2] * w[0] - u[0] * w[2];
        n[2] = u[0] * w[1] - u[1] * w[0];
        torus_normal(c, R, tn);
        double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        assert_true((n[0] * tn[0] + n[1] * tn[1] + n[2] * tn[2]) / l > 0.5);
    }
    double mn, med;
    assert_int_equal(ep_surfdist_angles(&m, &mn, &med), EP_OK);
    assert_true(mn >= EP_SIMPLIFY_MIN_ANGLE - 1e-9);
    assert_true(fabs(mn - r.min_angle) < 1e-9);
    for (int v = 0; v < m.nv; v++)
        assert_true(torus_distance(&m.vertices[3 * v], R, r0) < 0.1 * r0);
    ep_mesh_free(&m);
}

static void refusals(void **s)
{
    (void)s;
    ep_mesh m, base;
    ep_simplify_report r;
    ep_simplify_opts o;
    make_sphere(&m, 1);
    ep_simplify_opts_default(&o, 3);
    expect_error(ep_simplify_build(&base, &m, &o, &r), EP_EUSAGE, "at least 4 vertices", NULL);
    ep_mesh_free(&base);
    ep_simplify_opts_default(&o, 10);
    m.nf--; /* one face missing: open */
    expect_error(ep_simplify_build(&base, &m, &o, &r), EP_EINPUT, "open surface", NULL);
    ep_mesh_free(&base);
    ep_mesh_free(&m);
}

/* Two closed parts, a sphere and one 20 times smaller (issue 37): each
 * keeps 4 vertices or more, every vertex on 3 faces or more, so no part
 * ends as 3 vertices on 2 faces (the small one did, the link condition
 * holding on a tetrahedron); the report counts 2 parts. */
static void parts_kept(void **s)
{
    const ep_mesh *a = *s; /* a sphere, 3 levels */
    ep_mesh m;
    ep_simplify_report r;
    make_pair(&m, a, 0.05, 3);
    simplify_ok(&m, 6, &r);
    assert_int_equal(r.parts, 2);
    int *faces = calloc((size_t)m.nv, sizeof *faces), small = 0;
    for (int t = 0; t < 3 * m.nf; t++)
        faces[m.triangles[t]]++;
    for (int v = 0; v < m.nv; v++) {
        assert_true(faces[v] >= 3);
        small += m.vertices[3 * v] > 2;
    }
    assert_true(small >= 4 && m.nv - small >= 4);
    free(faces);
    ep_mesh_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(topology_kept),
        cmocka_unit_test(link_condition_stops),
        cmocka_unit_test(no_folds_no_slivers),
        cmocka_unit_test(refusals),
        EP_SPHERE_TEST(parts_kept, 3),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
