/*
 * test_distfield.c — signed distance fields (distfield.h, pseudonormal.h,
 * winding.h), their file (distfield_file.h) and the runtime lookup (sdf.h),
 * against analytic shapes and brute force.
 */
#include "helpers.h"
#include "surfaces.h"

#include "closest.h"
#include "distfield.h"
#include "distfield_file.h"
#include "pseudonormal.h"
#include "sdf.h"
#include "vec3.h"
#include "winding.h"

#include <float.h>

#define DRAGON "../shared/models/asianDragon/asianDragon.obj"

static void grid_point(const ep_distfield *g, long id, double p[3])
{
    long m = g->n + 1;
    p[0] = g->origin[0] + (double)(id % m) * g->h;
    p[1] = g->origin[1] + (double)(id / m % m) * g->h;
    p[2] = g->origin[2] + (double)(id / (m * m)) * g->h;
}

static void field(ep_distfield *g, const ep_mesh *m, int n, int sign)
{
    assert_int_equal(ep_distfield_setup(g, m, n, 1.5, NULL), EP_OK);
    assert_int_equal(ep_distfield_compute(g, m, sign, 0, 0, 2), EP_OK);
}

static int detect(const ep_mesh *m)
{
    int sign;
    char why[256];
    assert_int_equal(ep_distfield_detect_sign(m, &sign, why, sizeof why), EP_OK);
    return sign;
}

/* A closed unit sphere: pseudonormal detected; every value within the
 * chord error (1 - the nearest face plane's distance from the centre) plus
 * float rounding of |p| - 1; winding gives the same sign away from it. */
static void test_sphere_analytic(void **state)
{
    (void)state;
    ep_mesh m;
    ep_distfield g = {0}, w = {0};
    make_sphere(&m, 3);
    assert_int_equal(detect(&m), EP_DISTFIELD_PSEUDONORMAL);
    double chord = 0;
    for (int t = 0; t < m.nf; t++) {
        const int *f = &m.triangles[3 * t];
        double n[3];
        ep_vec3_normal(&m.vertices[3 * f[0]], &m.vertices[3 * f[1]], &m.vertices[3 * f[2]], n);
        chord = fmax(chord, 1 - ep_vec3_dot(n, &m.vertices[3 * f[0]]) / ep_vec3_norm(n));
    }
    field(&g, &m, 24, EP_DISTFIELD_PSEUDONORMAL);
    field(&w, &m, 24, EP_DISTFIELD_WINDING);
    long np = ep_distfield_points(24), far = 0;
    for (long id = 0; id < np; id++) {
        double p[3];
        grid_point(&g, id, p);
        double exact = ep_vec3_norm(p) - 1;
        if (fabs(g.value[id] - exact) > chord + 1e-6 * (1 + fabs(exact)))
            fail_msg("point %ld: %.9g, sphere %.9g, chord error %.3g", id, g.value[id], exact, chord);
        if (fabs(exact) > chord + sqrt(3.0) * g.h) {
            far++;
            assert_true((g.value[id] < 0) == (exact < 0));
            assert_true((w.value[id] < 0) == (exact < 0));
        }
    }
    assert_true(far > np / 2);
    assert_true(fabs(g.d_boundary - (0.5 * 3 - 1)) < 1e-6); /* box side 3: the nearest face point is 1.5 from the centre */
    ep_distfield_free(&g);
    ep_distfield_free(&w);
    ep_mesh_free(&m);
}

/* Signed distance to the torus of radii R, r. */
static double torus_signed(const double *p, double R, double r)
{
    double rho = sqrt(p[0] * p[0] + p[1] * p[1]) - R;
    return sqrt(rho * rho + p[2] * p[2]) - r;
}

/* A triangulated torus: within the chord error (the largest |phi| at 15
 * points of every triangle, with a 25% margin for what they miss). */
static void test_torus_analytic(void **state)
{
    (void)state;
    ep_mesh m;
    ep_distfield g = {0};
    const double R = 1, r = 0.35;
    make_torus(&m, 96, 48, R, r);
    assert_int_equal(detect(&m), EP_DISTFIELD_PSEUDONORMAL);
    double chord = 0;
    for (int t = 0; t < m.nf; t++)
        for (int a = 0; a <= 4; a++)
            for (int b = 0; a + b <= 4; b++) {
                const int *f = &m.triangles[3 * t];
                double p[3];
                for (int k = 0; k < 3; k++)
                    p[k] = (a * m.vertices[3 * f[0] + k] + b * m.vertices[3 * f[1] + k] +
                            (4 - a - b) * m.vertices[3 * f[2] + k]) / 4;
                chord = fmax(chord, fabs(torus_signed(p, R, r)));
            }
    chord *= 1.25;
    field(&g, &m, 32, EP_DISTFIELD_PSEUDONORMAL);
    for (long id = 0; id < ep_distfield_points(32); id++) {
        double p[3];
        grid_point(&g, id, p);
        double exact = torus_signed(p, R, r);
        if (fabs(g.value[id] - exact) > chord + 1e-6 * (1 + fabs(exact)))
            fail_msg("point %ld: %.9g, torus %.9g, chord error %.3g", id, g.value[id], exact, chord);
    }
    ep_distfield_free(&g);
    ep_mesh_free(&m);
}

/* The defects of a soup, each on a copy of a: holes (triangles removed),
 * flipped and duplicated triangles. */
enum { HOLES, FLIPPED, DOUBLED };

static void defect(ep_mesh *b, const ep_mesh *a, int kind, int count)
{
    ep_rng r = ep_rng_seed(38, (unsigned long)kind);
    copy_surface(b, a);
    if (kind == DOUBLED) {
        int *t = malloc(3 * sizeof(int) * (size_t)(b->nf + count));
        memcpy(t, b->triangles, 3 * sizeof(int) * (size_t)b->nf);
        for (int i = 0; i < count; i++)
            memcpy(&t[3 * (b->nf + i)], &a->triangles[3 * ep_rng_below(&r, a->nf)], 3 * sizeof(int));
        free(b->triangles);
        b->triangles = t;
        b->nf += count;
        return;
    }
    for (int i = 0; i < count; i++) {
        int t = ep_rng_below(&r, b->nf), *f = &b->triangles[3 * t];
        if (kind == FLIPPED) {
            int x = f[1];
            f[1] = f[2];
            f[2] = x;
        } else { /* remove: the last triangle moves into its place */
            memcpy(f, &b->triangles[3 * (b->nf - 1)], 3 * sizeof(int));
            b->nf--;
        }
    }
}

/* At every grid point farther than a cell diagonal from the surface (or
 * at `samples` random ones and every one the field puts inside), the sign equals the brute-force winding
 * number's (w > 1/2 inside). */
static void check_sign(const ep_mesh *m, int n, long samples, const char *what)
{
    ep_distfield g = {0};
    field(&g, m, n, detect(m));
    assert_int_equal(g.sign, EP_DISTFIELD_WINDING);
    ep_rng r = ep_rng_seed(7, 38);
    long np = ep_distfield_points(n), checked = 0, inside = 0;
    for (long k = 0; k < (samples ? samples + np : np); k++) {
        /* samples: that many random points, and every point the field puts inside */
        long id = !samples ? k : k < samples ? (long)(ep_rng_uniform(&r) * np) % np : k - samples;
        if (!(fabs(g.value[id]) > sqrt(3.0) * g.h) || (samples && k >= samples && g.value[id] > 0))
            continue;
        double p[3];
        grid_point(&g, id, p);
        int in = ep_winding_brute(m->vertices, m->triangles, m->nf, p) > 0.5;
        if (in != (g.value[id] < 0))
            fail_msg("%s: point %ld: value %.6g, brute-force winding says %s", what, id, g.value[id],
                     in ? "inside" : "outside");
        checked++;
        inside += in;
    }
    if (checked <= (samples ? samples : np) / 4 || inside == 0)
        fail_msg("%s: %ld points checked, %ld inside", what, checked, inside);
    ep_distfield_free(&g);
}

/* A bowl (the sphere without its cap z > 0.2): its winding number crosses
 * 1/2 in free space, inside the bowl, so a far region's samples disagree
 * and it is signed point by point; every far point then agrees with brute
 * force, but for those within 0.01 of w = 1/2 (no surface there: the
 * tree's dipole error may round them either way). */
static void test_open_bowl(void **state)
{
    ep_mesh *s = *state; /* a sphere, 3 levels */
    ep_mesh b;
    ep_distfield g = {0};
    copy_surface(&b, s);
    b.nf = 0;
    for (int t = 0; t < s->nf; t++) {
        const int *f = &s->triangles[3 * t];
        if (s->vertices[3 * f[0] + 2] < 0.2 && s->vertices[3 * f[1] + 2] < 0.2 && s->vertices[3 * f[2] + 2] < 0.2)
            memcpy(&b.triangles[3 * b.nf++], f, 3 * sizeof(int));
    }
    field(&g, &b, 24, EP_DISTFIELD_WINDING);
    assert_true(g.mixed >= 1);
    long np = ep_distfield_points(24), checked = 0;
    for (long id = 0; id < np; id++) {
        double p[3];
        grid_point(&g, id, p);
        double w = ep_winding_brute(b.vertices, b.triangles, b.nf, p);
        if (!(fabs(g.value[id]) > sqrt(3.0) * g.h) || fabs(w - 0.5) < 0.01)
            continue;
        checked++;
        if ((w > 0.5) != (g.value[id] < 0))
            fail_msg("bowl: point %ld: value %.6g, brute-force winding number %.6f", id, g.value[id], w);
    }
    assert_true(checked > np / 2);
    ep_distfield_free(&g);
    ep_mesh_free(&b);
}

static void test_sign_soups(void **state)
{
    (void)state;
    ep_mesh s, t, b;
    make_sphere(&s, 3);
    defect(&b, &s, HOLES, 3);
    check_sign(&b, 20, 0, "sphere with holes");
    ep_mesh_free(&b);
    defect(&b, &s, FLIPPED, 40);
    check_sign(&b, 20, 0, "sphere with flipped faces");
    ep_mesh_free(&b);
    defect(&b, &s, DOUBLED, 60);
    check_sign(&b, 20, 0, "sphere with doubled faces");
    ep_mesh_free(&b);
    make_pair(&b, &s, 1, 0.8); /* two overlapping shells: w = 2 where they overlap */
    check_sign(&b, 24, 0, "two overlapping spheres");
    ep_mesh_free(&b);
    make_torus(&t, 48, 24, 0.45, 0.55); /* a spindle torus: the surface passes through itself */
    check_sign(&t, 24, 0, "self-intersecting torus");
    ep_mesh_free(&t);
    ep_mesh_free(&s);
    if (!have_file(DRAGON))
        return;
    ep_mesh d;
    assert_int_equal(ep_model_read(&d, DRAGON), EP_OK);
    check_sign(&d, 48, 300, "dragon scan");
    ep_mesh_free(&d);
}

/* The crossing check (ep_closest_walk over the edges): a closed sphere
 * passes; two overlapping spheres fail naming an edge and a triangle that
 * share no vertex and that the edge really crosses; the same spheres apart
 * pass. */
static void test_crossings(void **state)
{
    (void)state;
    ep_mesh s, b;
    int a, c, t;
    double u;
    make_sphere(&s, 2);
    assert_int_equal(ep_pseudonormal_check(s.vertices, s.nv, s.triangles, s.nf), EP_OK);
    make_pair(&b, &s, 1, 0.8);
    expect_error(ep_pseudonormal_check(b.vertices, b.nv, b.triangles, b.nf), EP_EINPUT, "crosses triangle",
                 "the surface intersects itself", NULL);
    assert_int_equal(sscanf(ep_errmsg(), "edge %d-%d crosses triangle %d", &a, &c, &t), 3);
    const int *f = &b.triangles[3 * (t - 1)];
    for (int k = 0; k < 3; k++)
        assert_true(f[k] != a - 1 && f[k] != c - 1);
    assert_int_equal(ep_closest_segment_hit(&b.vertices[3 * (a - 1)], &b.vertices[3 * (c - 1)], &b.vertices[3 * f[0]],
                                            &b.vertices[3 * f[1]], &b.vertices[3 * f[2]], &u),
                     1);
    ep_mesh_free(&b);
    make_pair(&b, &s, 1, 2.5);
    assert_int_equal(ep_pseudonormal_check(b.vertices, b.nv, b.triangles, b.nf), EP_OK);
    ep_mesh_free(&b);
    ep_mesh_free(&s);
}

/* At 10,000 random grid points of a defective soup, the field equals the
 * brute-force O(F) distance to 1e-6 relative (float rounding is 6e-8). */
static void test_exact(void **state)
{
    (void)state;
    ep_mesh t, b;
    ep_distfield g = {0};
    make_torus(&t, 48, 24, 1, 0.35);
    defect(&b, &t, HOLES, 5);
    field(&g, &b, 40, EP_DISTFIELD_UNSIGNED);
    ep_rng r = ep_rng_seed(1, 38);
    long np = ep_distfield_points(40);
    for (int k = 0; k < 10000; k++) {
        long id = (long)(ep_rng_uniform(&r) * np) % np;
        double p[3];
        grid_point(&g, id, p);
        double d = ep_distfield_brute(&b, p);
        if (fabs(g.value[id] - d) > 1e-6 * d)
            fail_msg("point %ld: %.9g, brute force %.9g", id, g.value[id], d);
    }
    assert_true(g.tests < 200.0 * np); /* the hint bound prunes: far fewer tests than F a point */
    ep_distfield_free(&g);
    ep_mesh_free(&b);
    ep_mesh_free(&t);
}

/* --band: exact within the band, the rest within the printed bound. */
static void test_band(void **state)
{
    (void)state;
    ep_mesh s;
    ep_distfield g = {0};
    make_sphere(&s, 3);
    assert_int_equal(ep_distfield_setup(&g, &s, 32, 3, NULL), EP_OK);
    assert_int_equal(ep_distfield_compute(&g, &s, EP_DISTFIELD_PSEUDONORMAL, 0, 0.2, 2), EP_OK);
    double bound = ep_distfield_band_error(&g);
    long np = ep_distfield_points(32);
    assert_true(g.exact < np);
    for (long id = 0; id < np; id++) {
        double p[3];
        grid_point(&g, id, p);
        double d = ep_distfield_brute(&s, p) * (ep_vec3_norm(p) < 1 ? -1 : 1);
        double tol = fabs(d) <= 0.2 ? 1e-6 * (1 + fabs(d)) : bound + 1e-6 * (1 + fabs(d));
        if (fabs(g.value[id] - d) > tol)
            fail_msg("point %ld: %.9g, brute force %.9g (tolerance %.3g)", id, g.value[id], d, tol);
    }
    ep_distfield_free(&g);
    ep_mesh_free(&s);
}

static void test_bad_input(void **state)
{
    ep_mesh *s = *state; /* a sphere, 1 level */
    ep_mesh b;
    ep_distfield g = {0};
    copy_surface(&b, s);
    b.nf = 0;
    expect_error(ep_distfield_setup(&g, &b, 16, 1.5, NULL), EP_EINPUT, "no triangles", NULL);
    b.nf = s->nf;
    b.vertices[4] = NAN;
    expect_error(ep_distfield_setup(&g, &b, 16, 1.5, NULL), EP_EINPUT, "not finite", NULL);
    expect_error(ep_distfield_setup(&g, s, 0, 1.5, NULL), EP_EINPUT, "resolution 0", NULL);
    ep_mesh_free(&b);
    defect(&b, s, HOLES, 1);
    assert_int_equal(detect(&b), EP_DISTFIELD_WINDING);
    assert_int_equal(ep_distfield_setup(&g, &b, 8, 1.5, NULL), EP_OK);
    expect_error(ep_distfield_compute(&g, &b, EP_DISTFIELD_PSEUDONORMAL, 0, 0, 1), EP_EINPUT, "open", NULL);
    assert_null(g.value);
    ep_distfield_free(&g);
    ep_mesh_free(&b);
}

/* The HDF5 file and Vega's .dist give the values back bit for bit. */
static void test_files(void **state)
{
    (void)state;
    ep_mesh s;
    ep_distfield g = {0}, a = {0}, v = {0};
    ep_h5 f = {0};
    char hash[EP_DISTFIELD_FILE_HASH], back[EP_DISTFIELD_FILE_HASH];
    make_sphere(&s, 2);
    field(&g, &s, 12, EP_DISTFIELD_PSEUDONORMAL);
    ep_distfield_file_hash(&s, hash);
    const char *path = scratch("field.h5"), *dist = scratch("field.dist");
    assert_int_equal(ep_h5_create(&f, path, "distfield", "test", "test"), EP_OK);
    assert_int_equal(ep_distfield_file_write(&f, &g, hash), EP_OK);
    assert_int_equal(ep_h5_close(&f), EP_OK);
    assert_int_equal(ep_h5_open(&f, path, "distfield"), EP_OK);
    assert_int_equal(ep_distfield_file_read(&a, &f, back), EP_OK);
    assert_int_equal(ep_h5_close(&f), EP_OK);
    FILE *fp = fopen(dist, "wb");
    ep_distfield_file_write_vega(fp, &g);
    fclose(fp);
    assert_int_equal(ep_distfield_file_read_vega(&v, dist), EP_OK);
    long np = ep_distfield_points(12);
    assert_int_equal(a.n, 12);
    assert_int_equal(v.n, 12);
    assert_string_equal(hash, back);
    assert_memory_equal(a.value, g.value, 4 * (size_t)np);
    assert_memory_equal(v.value, g.value, 4 * (size_t)np);
    assert_true(a.h == g.h && a.d_boundary == g.d_boundary && a.sign == g.sign);
    assert_true(fabs(v.h - g.h) < 1e-15 && v.origin[2] == g.origin[2]);
    ep_distfield_free(&a);
    ep_distfield_free(&v);
    ep_distfield_free(&g);
    ep_mesh_free(&s);
}

/* The lookup: grid values at grid points; within interpolation error of
 * the sphere inside; never above the true distance outside (eq. 3.14);
 * batched and threaded queries equal single ones. */
static void test_lookup(void **state)
{
    (void)state;
    ep_mesh s;
    ep_distfield g = {0};
    ep_sdf f;
    make_sphere(&s, 3);
    field(&g, &s, 16, EP_DISTFIELD_PSEUDONORMAL);
    float v5 = g.value[5 + 17 * (3 + 17 * 7)];
    ep_sdf_adopt(&f, &g);
    assert_null(g.value);
    double p[3] = {f.origin[0] + 5 * f.h, f.origin[1] + 3 * f.h, f.origin[2] + 7 * f.h};
    assert_true(ep_sdf_value(&f, p) == v5);
    enum { N = 4000 };
    double *q = malloc(sizeof(double) * 3 * N), *d = malloc(sizeof(double) * N), *e = malloc(sizeof(double) * N);
    ep_rng r = ep_rng_seed(3, 38);
    for (int i = 0; i < N; i++)
        for (int k = 0; k < 3; k++) /* inside the box for i even, up to 10 sides away for i odd */
            q[3 * i + k] = i % 2 ? 20 * (ep_rng_uniform(&r) - 0.5) * 3 : f.origin[k] + ep_rng_uniform(&r) * 16 * f.h;
    ep_sdf_values(&f, q, N, d);
#pragma omp parallel for num_threads(2)
    for (int i = 0; i < N; i++)
        e[i] = ep_sdf_value(&f, &q[3 * i]);
    for (int i = 0; i < N; i++) {
        assert_true(d[i] == e[i]);
        double exact = ep_distfield_brute(&s, &q[3 * i]) * (ep_vec3_norm(&q[3 * i]) < 1 ? -1 : 1);
        if (ep_sdf_box_distance(&f, &q[3 * i]) > 0)
            assert_true(d[i] <= exact + 1e-12);
        else /* chord error < 0.02 at level 3, trilinear error of a 1-Lipschitz field < h sqrt(3) / 2 */
            assert_true(fabs(d[i] - exact) < 0.02 + f.h * sqrt(3.0) / 2);
    }
    free(q);
    free(d);
    free(e);
    ep_sdf_free(&f);
    ep_mesh_free(&s);
}

/* The lookup as it was before the inline and AVX2 paths (the voxel by a
 * loop, every product rounded on its own): the reference the new paths
 * must equal bit for bit. */
static double lookup_reference(const ep_sdf *f, const double p[3])
{
    int ijk[3];
    double w[3];
    for (int a = 0; a < 3; a++) {
        double x = (p[a] - f->origin[a]) * f->inv_h;
        if (!(x >= 0 && x <= f->n))
            return ep_sdf_box_distance(f, p) + f->d_boundary;
        int i = (int)x;
        i -= i == f->n;
        ijk[a] = i;
        w[a] = x - i;
    }
    long m = f->n + 1, mm = m * m;
    const float *v = f->value + ijk[0] + m * (ijk[1] + m * (long)ijk[2]);
    volatile double t[7];
    t[0] = w[0] * (v[1] - v[0]), t[1] = w[0] * (v[m + 1] - v[m]);
    t[2] = w[0] * (v[mm + 1] - v[mm]), t[3] = w[0] * (v[mm + m + 1] - v[mm + m]);
    double x0 = v[0] + t[0], x1 = v[m] + t[1], x2 = v[mm] + t[2], x3 = v[mm + m] + t[3];
    t[4] = w[1] * (x1 - x0), t[5] = w[1] * (x3 - x2);
    double y0 = x0 + t[4], y1 = x2 + t[5];
    t[6] = w[2] * (y1 - y0);
    return y0 + t[6];
}

/* Batched lookups (four points a step with AVX2 gathers where the CPU has
 * them), single ones (the packed SSE2 path, and the scalar one it hands
 * the edges to) and ep_sdf_trilinear after ep_sdf_voxel equal the
 * reference bit for bit: random fields of odd and tiny sizes, points
 * inside, on the faces (the upper face's clamped voxel), at grid points,
 * outside, NaN and -0 on a lower face at 0, in runs that are not
 * multiples of four. */
static void test_lookup_batch(void **state)
{
    (void)state;
    static const int sizes[] = {1, 2, 13, 40};
    ep_rng r = ep_rng_seed(7, 38);
    for (size_t c = 0; c < sizeof sizes / sizeof *sizes; c++) {
        int n = sizes[c];
        long np = ep_distfield_points(n);
        ep_distfield g = {.n = n, .h = 0.137 + 0.01 * c, .d_boundary = 0.25, .sign = EP_DISTFIELD_WINDING};
        g.origin[0] = -0.7, g.origin[1] = 0.2, g.origin[2] = 1.1;
        if (c == 1) /* a lower face at 0: a coordinate of -0 (the packed path hands it to the scalar one) */
            g.origin[0] = g.origin[2] = 0;
        g.value = malloc(sizeof(float) * (size_t)np);
        for (long i = 0; i < np; i++) /* mixed signs and magnitudes */
            g.value[i] = (float)((ep_rng_uniform(&r) - 0.4) * (i % 7 ? 1 : 1e3));
        ep_sdf f;
        ep_sdf_adopt(&f, &g);
        enum { N = 1003 };
        double *q = malloc(sizeof(double) * 3 * N), *d = malloc(sizeof(double) * N), side = n * f.h;
        for (int i = 0; i < N; i++)
            for (int k = 0; k < 3; k++) {
                double u = ep_rng_uniform(&r), x = f.origin[k] + u * side;
                if (i % 97 == 5) /* outside: the quad goes point by point */
                    x = f.origin[k] - 0.3 * side + 1.6 * u * side;
                else if (i % 11 == 3) /* on a grid point or a face */
                    x = f.origin[k] + f.h * (int)(u * (n + 1));
                else if (i % 13 == 4 && k == 1)
                    x = f.origin[k] + side;
                q[3 * i + k] = i == 200 ? NAN : x;
                if (i % 17 == 6 && c == 1 && k != 1)
                    q[3 * i + k] = -0.0;
            }
        ep_sdf_values(&f, q, N, d);
        long inside = 0;
        for (int i = 0; i < N; i++) {
            double e = ep_sdf_value(&f, &q[3 * i]), ref = lookup_reference(&f, &q[3 * i]);
            assert_memory_equal(&d[i], &e, sizeof e);
            assert_memory_equal(&d[i], &ref, sizeof e);
            double w[3];
            long id = ep_sdf_voxel(&f, &q[3 * i], w); /* pscontact's path: the voxel, then the interpolation */
            if (id >= 0) {
                double t = ep_sdf_trilinear(&f, id, w);
                assert_memory_equal(&t, &ref, sizeof t);
            }
            inside += ep_sdf_box_distance(&f, &q[3 * i]) == 0;
        }
        assert_true(inside > N / 2);
        double p[3] = {f.origin[0], f.origin[1], f.origin[2]}; /* a grid point: its value */
        assert_true(ep_sdf_value(&f, p) == f.value[0]);
        free(q);
        free(d);
        ep_sdf_free(&f);
    }
}

EP_TEST_MAIN("distfield", cmocka_unit_test(test_sphere_analytic), cmocka_unit_test(test_torus_analytic),
             cmocka_unit_test(test_sign_soups), EP_SPHERE_TEST(test_open_bowl, 3), cmocka_unit_test(test_exact), cmocka_unit_test(test_band),
             EP_SPHERE_TEST(test_bad_input, 1), cmocka_unit_test(test_files), cmocka_unit_test(test_lookup),
             cmocka_unit_test(test_lookup_batch),
             cmocka_unit_test(test_crossings))
