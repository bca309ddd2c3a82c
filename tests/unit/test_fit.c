/*
 * test_fit.c — Loop levels fitted onto a reference: on a sphere, a torus
 * and a genus-2 surface the result lies on the analytic shape within the
 * reference's own chord error, keeps its genus and has V_l = V_{l-1} +
 * E_{l-1}; the quality report (surfdist) against analytic values.
 */
#include "surfaces.h"

#include "fit.h"
#include "simplify.h"
#include "surfdist.h"

/* Largest distance of a triangulation inscribed in the unit sphere from
 * the sphere: 1 - the smallest distance of a face plane from the centre. */
static double sphere_sagitta(const ep_mesh *m)
{
    double worst = 0;
    for (int t = 0; t < m->nf; t++) {
        const double *a = &m->vertices[3 * m->triangles[3 * t]], *b = &m->vertices[3 * m->triangles[3 * t + 1]],
                     *c = &m->vertices[3 * m->triangles[3 * t + 2]];
        double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, w[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        double n[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]};
        double d = fabs(n[0] * a[0] + n[1] * a[1] + n[2] * a[2]) / sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        worst = nan_max(worst, 1 - d);
    }
    return worst;
}

/* Level l has E_{l-1} = 3 F_{l-1} / 2 new vertices (closed surface). */
static void check_level_counts(const ep_mesh *m, int nv0, int nf0, int levels)
{
    int expect = nv0, nf = nf0;
    for (int l = 0; l <= levels; l++) {
        int count = 0;
        for (int v = 0; v < m->nv; v++)
            count += m->level[v] == l;
        assert_int_equal(count, l == 0 ? nv0 : 3 * nf / 2);
        if (l > 0) {
            expect += 3 * nf / 2; /* V_l = V_{l-1} + E_{l-1} */
            nf *= 4;
        }
    }
    assert_int_equal(m->nv, expect);
    assert_int_equal(m->nf, nf);
}

static void fit_ok(ep_mesh *m, int levels, const ep_mesh *ref, ep_closest *tref, ep_fit_report *r)
{
    memset(r, 0, sizeof *r);
    assert_int_equal(ep_closest_build(tref, ref), EP_OK);
    int st = ep_fit_levels(m, levels, ref, tref, r);
    if (st)
        fail_msg("fit failed: %s", ep_errmsg());
    assert_int_equal(ep_mesh_check_closed(m), EP_OK);
}

/* Icosahedron, 3 levels onto a 10242-vertex sphere: every vertex on the
 * sphere within the reference's chord error, Hausdorff within the result's,
 * every vertex at its closest point, nothing opposed. */
static void sphere(void **s)
{
    (void)s;
    ep_mesh ref, m, tmp;
    ep_closest tref, tm;
    ep_fit_report r;
    ep_surfdist d;
    make_sphere(&ref, 5);
    make_sphere(&m, 0);
    fit_ok(&m, 3, &ref, &tref, &r);
    check_level_counts(&m, 12, 20, 3);
    double sag = sphere_sagitta(&ref);
    for (int v = 0; v < m.nv; v++) {
        const double *x = &m.vertices[3 * v];
        double rad = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        assert_true(rad <= 1 + 1e-12 && rad >= 1 - sag - 1e-12);
    }
    assert_int_equal(r.projected, m.nv);
    assert_int_equal(r.along_normal + r.kept, 0);
    assert_int_equal(ep_closest_build(&tm, &m), EP_OK);
    assert_int_equal(ep_surfdist_compare(&d, &m, &tm, &ref, &tref, 4), EP_OK);
    /* The result is inscribed too: it is at most its own sagitta from the
     * sphere, the reference at most its own. */
    double diag = ep_mesh_diameter(&ref), sm = sphere_sagitta(&m);
    assert_true(d.hausdorff * diag <= sm + sag);
    assert_true(d.hausdorff * diag >= sm - 2 * sag - 0.02 * sm); /* sampled at face centroids */
    assert_true(d.rms <= d.hausdorff);
    assert_int_equal(d.opposed, 0);
    assert_int_equal(d.genus, 0);
    assert_int_equal(d.ref_genus, 0);
    assert_true(d.min_angle > 30);
    ep_closest_free(&tm);
    ep_closest_free(&tref);
    (void)tmp;
    ep_mesh_free(&m);
    ep_mesh_free(&ref);
}

/* A torus simplified to 100 vertices, 2 levels onto a fine torus: every
 * vertex within the reference's chord error of the analytic torus; genus 1. */
static void torus(void **s)
{
    (void)s;
    const double R = 1.0, r0 = 0.35;
    ep_mesh ref, m, fine;
    ep_closest tref;
    ep_fit_report r;
    ep_simplify_opts o;
    ep_simplify_report sr;
    make_torus(&ref, 192, 64, R, r0);
    double chord = 0; /* the reference's largest distance from the torus, at edge midpoints and centroids */
    for (int t = 0; t < ref.nf; t++) {
        const int *f = &ref.triangles[3 * t];
        for (int e = 0; e < 4; e++) {
            double p[3];
            for (int k = 0; k < 3; k++)
                p[k] = e < 3 ? 0.5 * (ref.vertices[3 * f[e] + k] + ref.vertices[3 * f[(e + 1) % 3] + k])
                             : (ref.vertices[3 * f[0] + k] + ref.vertices[3 * f[1] + k] + ref.vertices[3 * f[2] + k]) / 3;
            chord = fmax(chord, torus_distance(p, R, r0));
        }
    }
    make_torus(&fine, 48, 16, R, r0);
    ep_simplify_opts_default(&o, 100);
    assert_int_equal(ep_simplify_build(&m, &fine, &o, &sr), EP_OK);
    ep_mesh_free(&fine);
    int nv0 = m.nv, nf0 = m.nf;
    fit_ok(&m, 2, &ref, &tref, &r);
    check_level_counts(&m, nv0, nf0, 2);
    for (int v = 0; v < m.nv; v++)
        assert_true(torus_distance(&m.vertices[3 * v], R, r0) <= 1.01 * chord);
    int g;
    assert_int_equal(ep_surfdist_genus(&m, &g), EP_OK);
    assert_int_equal(g, 1);
    ep_closest_free(&tref);
    ep_mesh_free(&m);
    ep_mesh_free(&ref);
}

/* Genus 2 survives simplification and two fitted levels, and the fit
 * brings the surface onto the reference (Hausdorff under 1% of the
 * diagonal, where the coarse base is several times that away). */
static void genus2(void **s)
{
    (void)s;
    ep_mesh ref, m;
    ep_closest tref, tm;
    ep_fit_report r;
    ep_simplify_opts o;
    ep_simplify_report sr;
    ep_surfdist d0, d;
    make_genus2(&ref, 8, 10);
    ep_simplify_opts_default(&o, 60);
    assert_int_equal(ep_simplify_build(&m, &ref, &o, &sr), EP_OK);
    assert_int_equal(ep_closest_build(&tref, &ref), EP_OK);
    assert_int_equal(ep_closest_build(&tm, &m), EP_OK);
    assert_int_equal(ep_surfdist_compare(&d0, &m, &tm, &ref, &tref, 4), EP_OK);
    ep_closest_free(&tm);
    ep_closest_free(&tref);
    fit_ok(&m, 2, &ref, &tref, &r);
    assert_int_equal(ep_closest_build(&tm, &m), EP_OK);
    assert_int_equal(ep_surfdist_compare(&d, &m, &tm, &ref, &tref, 4), EP_OK);
    assert_int_equal(d.genus, 2);
    assert_int_equal(d.ref_genus, 2);
    assert_true(d.hausdorff < 0.01);
    assert_true(d.hausdorff < 0.5 * d0.hausdorff);
    assert_int_equal(d.opposed, 0);
    assert_int_equal(d.intersecting, 0);
    assert_int_equal(r.crossing, 0);
    ep_closest_free(&tm);
    ep_closest_free(&tref);
    ep_mesh_free(&m);
    ep_mesh_free(&ref);
}

/* Sorted copy of n pairs, to compare pair sets. */
static int cmp_pair(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

/* Untangle's shortcuts: a tree refitted after the vertices moved finds the
 * pairs a tree built anew finds, and the search from flagged triangles
 * finds exactly the pairs with a flagged member (spheres 2.5 apart moved
 * to 1.5, every third triangle flagged). */
static void intersections_refit_only(void **s)
{
    (void)s;
    ep_mesh a, m;
    ep_closest fresh, moved;
    int *pa, *pb, *pc;
    long na, nb, nc, want = 0;
    make_sphere(&a, 3);
    make_pair(&m, &a, 1.0, 2.5);
    assert_int_equal(ep_closest_build(&moved, &m), EP_OK);
    for (int v = a.nv; v < m.nv; v++)
        m.vertices[3 * v] -= 1.0; /* the second sphere's centre from 2.5 to 1.5 */
    ep_closest_refit(&moved);
    assert_int_equal(ep_closest_build(&fresh, &m), EP_OK);
    assert_int_equal(ep_surfdist_intersections(&m, &fresh, NULL, &pa, &na), EP_OK);
    assert_int_equal(ep_surfdist_intersections(&m, &moved, NULL, &pb, &nb), EP_OK);
    assert_true(na > 30);
    assert_int_equal(na, nb);
    qsort(pa, (size_t)na, 2 * sizeof *pa, cmp_pair);
    qsort(pb, (size_t)nb, 2 * sizeof *pb, cmp_pair);
    assert_memory_equal(pa, pb, 2 * sizeof *pa * (size_t)na);
    char *only = calloc((size_t)m.nf, 1);
    for (int t = 0; t < m.nf; t += 3)
        only[t] = 1;
    assert_int_equal(ep_surfdist_intersections(&m, &moved, only, &pc, &nc), EP_OK);
    qsort(pc, (size_t)nc, 2 * sizeof *pc, cmp_pair);
    for (long i = 0; i < na; i++)
        if (only[pa[2 * i]] || only[pa[2 * i + 1]]) {
            assert_true(want < nc);
            assert_int_equal(pc[2 * want], pa[2 * i]);
            assert_int_equal(pc[2 * want + 1], pa[2 * i + 1]);
            want++;
        }
    assert_true(want > 0 && want < na);
    assert_int_equal(nc, want);
    free(only), free(pa), free(pb), free(pc);
    ep_closest_free(&fresh);
    ep_closest_free(&moved);
    ep_mesh_free(&a);
    ep_mesh_free(&m);
}

/* Two unit spheres with centres 1.5 apart cross along a circle; 2.5 apart
 * they do not; one sphere's neighbouring triangles never count. */
static void intersections(void **s)
{
    (void)s;
    for (int k = 0; k < 2; k++) {
        ep_mesh a, m;
        ep_closest tm;
        long n;
        int *pairs;
        make_sphere(&a, 3);
        make_pair(&m, &a, 1.0, k ? 2.5 : 1.5);
        assert_int_equal(ep_closest_build(&tm, &m), EP_OK);
        assert_int_equal(ep_surfdist_intersections(&m, &tm, NULL, &pairs, &n), EP_OK);
        if (k) {
            assert_int_equal(n, 0);
        } else {
            /* The circle x = 0.75 crosses about 2 pi 0.66 / edge ~ 2 x 30 triangle pairs; every
             * pair is one triangle of each sphere, both straddling the plane x = 0.75. */
            assert_true(n > 30);
            for (long i = 0; i < n; i++) {
                assert_true(pairs[2 * i] < a.nf && pairs[2 * i + 1] >= a.nf);
                for (int j = 0; j < 2; j++) {
                    const int *f = &m.triangles[3 * pairs[2 * i + j]];
                    double lo = INFINITY, hi = -INFINITY;
                    for (int c = 0; c < 3; c++)
                        lo = fmin(lo, m.vertices[3 * f[c]]), hi = fmax(hi, m.vertices[3 * f[c]]);
                    assert_true(lo <= 0.75 + 0.2 && hi >= 0.75 - 0.2);
                }
            }
        }
        free(pairs);
        ep_closest_free(&tm);
        assert_int_equal(ep_closest_build(&tm, &a), EP_OK);
        assert_int_equal(ep_surfdist_intersections(&a, &tm, NULL, NULL, &n), EP_OK);
        assert_int_equal(n, 0);
        ep_closest_free(&tm);
        ep_mesh_free(&a);
        ep_mesh_free(&m);
    }
}

/* The report on known shapes: a cube split into right isosceles triangles
 * has angles 45, 45, 90 (minimum and median 45); an inside-out sphere
 * opposes its reference everywhere; a surface against itself is at 0. */
static void report_values(void **s)
{
    (void)s;
    const char *cube = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n"
                       "f 1 3 2\nf 1 4 3\nf 5 6 7\nf 5 7 8\nf 1 2 6\nf 1 6 5\nf 2 3 7\nf 2 7 6\n"
                       "f 3 4 8\nf 3 8 7\nf 4 1 5\nf 4 5 8\n";
    ep_mesh m, inv;
    ep_closest tm, ti;
    ep_surfdist d;
    double mn, med;
    assert_int_equal(ep_model_read(&m, write_scratch("cube.obj", cube, -1)), EP_OK);
    assert_int_equal(ep_surfdist_angles(&m, &mn, &med), EP_OK);
    assert_true(fabs(mn - 45) < 1e-9 && fabs(med - 45) < 1e-9);
    ep_mesh_free(&m);
    make_sphere(&m, 2);
    copy_surface(&inv, &m);
    for (int t = 0; t < inv.nf; t++) {
        int x = inv.triangles[3 * t + 1];
        inv.triangles[3 * t + 1] = inv.triangles[3 * t + 2];
        inv.triangles[3 * t + 2] = x;
    }
    assert_int_equal(ep_closest_build(&tm, &m), EP_OK);
    assert_int_equal(ep_closest_build(&ti, &inv), EP_OK);
    assert_int_equal(ep_surfdist_compare(&d, &inv, &ti, &m, &tm, 2), EP_OK);
    assert_int_equal(d.opposed, inv.nf);
    assert_int_equal(ep_surfdist_compare(&d, &m, &tm, &m, &tm, 2), EP_OK);
    assert_int_equal(d.opposed, 0);
    assert_true(d.hausdorff < 1e-12 && d.rms < 1e-12);
    assert_true(d.samples >= 2 * 2 * m.nf);
    ep_closest_free(&tm);
    ep_closest_free(&ti);
    ep_mesh_free(&m);
    ep_mesh_free(&inv);
}

/* Folds (issue 37, class 9): a sphere has none; a regular tetrahedron's
 * faces each oppose their three neighbours (normals at 109.5 degrees); a
 * vertex of the sphere pushed through to the far side of its ring turns its
 * fan over: its faces fold and so do the faces across the fan's rim, and
 * nothing else. */
static void folds(void **s)
{
    (void)s;
    const char *tet = "v 1 1 1\nv 1 -1 -1\nv -1 1 -1\nv -1 -1 1\nf 1 2 3\nf 1 4 2\nf 1 3 4\nf 2 4 3\n";
    ep_mesh m;
    int n;
    char *flag;
    assert_int_equal(ep_model_read(&m, write_scratch("tet.obj", tet, -1)), EP_OK);
    assert_int_equal(ep_surfdist_folds(&m, NULL, &n), EP_OK);
    assert_int_equal(n, 4);
    ep_mesh_free(&m);
    make_sphere(&m, 2);
    assert_int_equal(ep_surfdist_folds(&m, NULL, &n), EP_OK);
    assert_int_equal(n, 0);
    for (int k = 0; k < 3; k++) /* vertex 0 (valence 5) to -0.8 of its place: through the sphere */
        m.vertices[k] *= -0.8;
    flag = malloc((size_t)m.nf);
    assert_int_equal(ep_surfdist_folds(&m, flag, &n), EP_OK);
    int fan = 0, rim = 0;
    for (int t = 0; t < m.nf; t++) {
        const int *f = &m.triangles[3 * t];
        int at = f[0] == 0 || f[1] == 0 || f[2] == 0;
        fan += at;
        rim += flag[t] && !at;
        if (at)
            assert_true(flag[t]);
    }
    assert_int_equal(fan, 5);
    assert_int_equal(n, fan + rim);
    assert_true(rim <= 5);
    double a = ep_surfdist_min_angle(&m.vertices[3], &m.vertices[6], &m.vertices[9]);
    assert_true(a > 0 && a <= 60);
    free(flag);
    ep_mesh_free(&m);
}

/* Degrees of the smallest corner of triangle (a b c), by the law of
 * cosines (not ep_surfdist_min_angle's atan2). */
static double smallest_corner(const double *a, const double *b, const double *c)
{
    const double *p[3] = {a, b, c};
    double worst = 180;
    for (int k = 0; k < 3; k++) {
        const double *o = p[k], *u = p[(k + 1) % 3], *w = p[(k + 2) % 3];
        double uu = 0, ww = 0, uw = 0;
        for (int d = 0; d < 3; d++) {
            uu += (u[d] - o[d]) * (u[d] - o[d]);
            ww += (w[d] - o[d]) * (w[d] - o[d]);
            uw += (u[d] - o[d]) * (w[d] - o[d]);
        }
        worst = fmin(worst, acos(fmax(-1, fmin(1, uw / sqrt(uu * ww)))) * 180 / M_PI);
    }
    return worst;
}

/* The refusal: a base whose two apexes have 80 faces each (two cones on an
 * 80-gon of the unit circle) fitted onto a sphere.  The faces at a vertex
 * of a smooth surface share about 360 degrees, so one of them keeps an
 * angle under 360 / 80 = 4.5 degrees whatever the quality pass does: the
 * fit fails with EP_ECOMPUTE, and the counts it reports (and names in the
 * message) are those of the surface it leaves. */
static void refused(void **s)
{
    (void)s;
    enum { N = 80 };
    char text[N * 64 + 2 * N * 32 + 64], *o = text;
    for (int i = 0; i < N; i++)
        o += sprintf(o, "v %.17g %.17g 0\n", cos(2 * M_PI * i / N), sin(2 * M_PI * i / N));
    o += sprintf(o, "v 0 0 1\nv 0 0 -1\n");
    for (int i = 0; i < N; i++)
        o += sprintf(o, "f %d %d %d\nf %d %d %d\n", i + 1, (i + 1) % N + 1, N + 1, (i + 1) % N + 1, i + 1, N + 2);
    ep_mesh m, ref;
    ep_closest tref;
    ep_fit_report r = {0};
    make_sphere(&ref, 3);
    assert_int_equal(ep_model_read(&m, write_scratch("bipyramid.obj", text, -1)), EP_OK);
    assert_int_equal(ep_mesh_check_closed(&m), EP_OK);
    assert_int_equal(ep_closest_build(&tref, &ref), EP_OK);
    assert_int_equal(ep_fit_levels(&m, 1, &ref, &tref, &r), EP_ECOMPUTE);
    long thin = 0, apex = 0;
    for (int t = 0; t < m.nf; t++) {
        const int *f = &m.triangles[3 * t];
        int under = smallest_corner(&m.vertices[3 * f[0]], &m.vertices[3 * f[1]], &m.vertices[3 * f[2]]) < 5;
        thin += under;
        apex += under && (f[0] == N || f[1] == N || f[2] == N || f[0] == N + 1 || f[1] == N + 1 || f[2] == N + 1);
    }
    int folded;
    assert_int_equal(ep_surfdist_folds(&m, NULL, &folded), EP_OK);
    assert_true(apex >= 1);
    assert_int_equal(r.thin, thin);
    assert_int_equal(r.folded, folded);
    char want[160];
    snprintf(want, sizeof want, "keeps %d folded triangle%s and %ld with an angle under 5 degrees", folded,
             folded == 1 ? "" : "s", thin);
    assert_non_null(strstr(ep_errmsg(), want));
    ep_closest_free(&tref);
    ep_mesh_free(&m);
    ep_mesh_free(&ref);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sphere),
        cmocka_unit_test(torus),
        cmocka_unit_test(genus2),
        cmocka_unit_test(intersections),
        cmocka_unit_test(intersections_refit_only),
        cmocka_unit_test(report_values),
        cmocka_unit_test(folds),
        cmocka_unit_test(refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
