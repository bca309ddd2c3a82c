/*
 * test_pointshell.c — nested pointshells (pointshell.h): points on the
 * level set, inward normals on a sphere and a torus, spacing per level
 * against the nominal spacing, the nested tree, the binding's U_s and
 * dN_s against exact affine fields, the BD-tree sphere bound for 1,000
 * random q, offsets of soups with the interior component removed, and bad
 * input (001 §3.6-3.9, MATH.md §11).
 */
#include "helpers.h"
#include "surfaces.h"

#include "distfield.h"
#include "pointshell.h"
#include "vec3.h"

static ep_pointshell_opts opts(int levels, int first, int order)
{
    ep_pointshell_opts o = {.levels = levels, .first = first, .order = order, .res = 32, .iterations = 30,
                            .seed = 7, .threads = 2};
    return o;
}

/* Sample ps on m with opts(levels, first, order), which must succeed. */
static void sample_ok(ep_pointshell *ps, const ep_mesh *m, int levels, int first, int order)
{
    ep_pointshell_opts o = opts(levels, first, order);
    assert_int_equal(ep_pointshell_sample(ps, m, &o), EP_OK);
}

/* Every point of every level: on the level set to eps, unit normals. */
static void check_on_set(const ep_pointshell *ps, const ep_mesh *m, double D, double eps)
{
    for (int s = 0; s < ps->S; s++) {
        double d = ep_distfield_brute(m, &ps->P[3 * s]);
        assert_true(fabs(d - D) <= eps);
        assert_true(fabs(ep_vec3_norm(&ps->N[3 * s]) - 1) < 1e-12);
    }
}

/* Nearest-neighbour spacing of each level within a factor 2 of nominal
 * (the "lies within a factor 2 of the level's nominal spacing"):
 * every point of levels 1..l has its nearest neighbour in [s/2, 2s]. */
static void check_spacing(const ep_pointshell *ps)
{
    for (int l = 1; l <= ps->L; l++) {
        int n = ps->level_start[l], out = 0;
        double *nn = malloc(sizeof *nn * (size_t)n), s = ps->spacing[l - 1], lo = INFINITY, hi = 0;
        assert_int_equal(ep_pointshell_spacing(ps, l, nn), EP_OK);
        for (int i = 0; i < n; i++) {
            lo = fmin(lo, nn[i]);
            hi = fmax(hi, nn[i]);
            out += nn[i] < s / 2 || nn[i] > 2 * s;
        }
        print_message("level %d: %d points, nominal %.4g, nearest neighbour %.4g .. %.4g, %d outside [s/2, 2s]\n", l,
                      n, s, lo, hi, out);
        assert_int_equal(out, 0);
        free(nn);
    }
}

/* Unit sphere: points on it, normals -P (inward), spacing per level. */
static void test_sphere(void **state)
{
    const ep_mesh *m = *state; /* a sphere, 3 levels */
    ep_pointshell ps;
    sample_ok(&ps, m, 3, 40, EP_POINTSHELL_REPULSION);
    assert_int_equal(ps.S, 40 * 21); /* 40 + 160 + 640 */
    assert_int_equal(ps.level_start[1], 40);
    assert_int_equal(ps.level_start[2], 200);
    check_on_set(&ps, m, 0, 1e-12);
    for (int s = 0; s < ps.S; s++) /* inward: within the faceting of the radial direction */
        assert_true(ep_vec3_dot(&ps.N[3 * s], &ps.P[3 * s]) < -0.9);
    check_spacing(&ps);
    ep_pointshell_free(&ps);
}

/* Torus R = 1, r = 0.35: normals point to the tube's centre circle. */
static void test_torus(void **state)
{
    (void)state;
    ep_mesh m;
    ep_pointshell ps;
    make_torus(&m, 64, 24, 1, 0.35);
    sample_ok(&ps, &m, 3, 150, EP_POINTSHELL_REPULSION); /* 7 points round the tube on level 1 */
    check_on_set(&ps, &m, 0, 1e-12);
    for (int s = 0; s < ps.S; s++) {
        const double *p = &ps.P[3 * s];
        double rho = sqrt(p[0] * p[0] + p[1] * p[1]), c[3] = {p[0] / rho, p[1] / rho, 0}, d[3];
        ep_vec3_sub(c, p, d); /* toward the centre circle */
        assert_true(ep_vec3_dot(&ps.N[3 * s], d) / ep_vec3_norm(d) > 0.9);
    }
    check_spacing(&ps);
    ep_pointshell_free(&ps);
    ep_mesh_free(&m);
}

/* The tree: every point has one node a level from its own on; children
 * contiguous; a new point hangs under the nearest point above (brute
 * force); rest radii cover their subtrees exactly. */
static void check_tree(const ep_pointshell *ps)
{
    assert_int_equal(ps->node_start[1], ps->level_start[1]);
    for (int l = 1; l < ps->L; l++) {
        int nodes = ps->node_start[l + 1] - ps->node_start[l], seen = 0;
        assert_int_equal(nodes, ps->level_start[l + 1]);
        char *hit = calloc((size_t)ps->S, 1);
        for (int i = ps->node_start[l - 1]; i < ps->node_start[l]; i++) {
            assert_int_equal(ps->node_first[i], ps->node_start[l] + seen);
            assert_int_equal(ps->node_point[ps->node_first[i]], ps->node_point[i]); /* the copy first */
            for (int c = 0; c < ps->node_count[i]; c++) {
                int s = ps->node_point[ps->node_first[i] + c];
                assert_false(hit[s]);
                hit[s] = 1;
                if (c > 0) {
                    assert_int_equal(ps->parent[s], ps->node_point[i]);
                    double best = INFINITY;
                    for (int t = 0; t < ps->level_start[l]; t++)
                        best = fmin(best, ep_vec3_dist2(&ps->P[3 * s], &ps->P[3 * t]));
                    assert_true(ep_vec3_dist2(&ps->P[3 * s], &ps->P[3 * ps->parent[s]]) == best);
                }
            }
            seen += ps->node_count[i];
        }
        assert_int_equal(seen, nodes);
        free(hit);
    }
}

/* The cube's surface bound into its tets, with affine fields as the basis:
 * U_s = A_j P_s + c_j and dN_s[:, j] = (tr A_j) N_s - A_j^T N_s exactly (the
 * first-order cofactor of I + A_j, which turns normals); the BD-tree bound
 * for 1,000 random q, some moving the cube by 20 % of its size. */
static void test_bind_bound(void **state)
{
    (void)state;
    ep_mesh m;
    ep_pointshell ps;
    assert_int_equal(ep_model_read(&m, "data/cube.msh"), EP_OK);
    sample_ok(&ps, &m, 3, 24, EP_POINTSHELL_REPULSION);
    assert_int_equal(ep_pointshell_tree(&ps), EP_OK);
    check_tree(&ps);
    int r = 4;
    double A[4][3][3], c[4][3], size = ep_mesh_diameter(&m);
    ep_rng g = ep_rng_seed(3, 0);
    double *U = malloc(sizeof *U * (size_t)r * 3 * m.nv);
    for (int j = 0; j < r; j++) {
        for (int a = 0; a < 3; a++) {
            c[j][a] = ep_rng_uniform(&g) - 0.5;
            for (int b = 0; b < 3; b++)
                A[j][a][b] = ep_rng_uniform(&g) - 0.5;
        }
        for (int v = 0; v < m.nv; v++)
            for (int a = 0; a < 3; a++)
                U[(size_t)j * 3 * m.nv + 3 * v + a] = ep_vec3_dot(A[j][a], &m.vertices[3 * v]) + c[j][a];
    }
    assert_int_equal(ep_pointshell_bind(&ps, &m, U, r, size), EP_OK);
    for (int s = 0; s < ps.S; s++)
        for (int j = 0; j < r; j++)
            for (int a = 0; a < 3; a++) {
                const double *N = &ps.N[3 * s];
                double u = ep_vec3_dot(A[j][a], &ps.P[3 * s]) + c[j][a];
                double dn = (A[j][0][0] + A[j][1][1] + A[j][2][2]) * N[a] -
                            (A[j][0][a] * N[0] + A[j][1][a] * N[1] + A[j][2][a] * N[2]);
                assert_true(fabs(ps.U[(size_t)s * 3 * r + a * r + j] - u) < 1e-12);
                assert_true(fabs(ps.dN[(size_t)s * 3 * r + a * r + j] - dn) < 1e-12);
            }
    /* the sphere bound: every point inside every ancestor's sphere */
    int *up = malloc(sizeof *up * (size_t)ps.nn);
    for (int i = 0; i < ps.node_start[1]; i++)
        up[i] = -1;
    for (int i = 0; i < ps.node_start[ps.L - 1]; i++)
        for (int k = 0; k < ps.node_count[i]; k++)
            up[ps.node_first[i] + k] = i;
    double worst = -INFINITY, q[4];
    for (int trial = 0; trial < 1000; trial++) {
        double scale = trial % 2 ? 0.2 * size : 1e-3 * size, p[3], pa[3];
        for (int j = 0; j < r; j++)
            q[j] = scale * (2 * ep_rng_uniform(&g) - 1);
        for (int i = ps.node_start[ps.L - 1]; i < ps.nn; i++) {
            int s = ps.node_point[i];
            for (int a3 = 0; a3 < 3; a3++) {
                p[a3] = ps.P[3 * s + a3];
                for (int j = 0; j < r; j++)
                    p[a3] += ps.U[(size_t)s * 3 * r + a3 * r + j] * q[j];
            }
            for (int a = up[i]; a >= 0; a = up[a]) {
                int t = ps.node_point[a];
                double R = ps.R0[a];
                for (int a3 = 0; a3 < 3; a3++) {
                    pa[a3] = ps.P[3 * t + a3];
                    for (int j = 0; j < r; j++)
                        pa[a3] += ps.U[(size_t)t * 3 * r + a3 * r + j] * q[j];
                }
                for (int j = 0; j < r; j++)
                    R += ps.a[(size_t)a * r + j] * fabs(q[j]);
                worst = nan_max(worst, sqrt(ep_vec3_dist2(p, pa)) - R);
            }
        }
    }
    assert_true(worst <= 1e-12 * size);
    free(up);
    free(U);
    ep_pointshell_free(&ps);
    ep_mesh_free(&m);
}

/* Farthest first: each level's packing (smallest pairwise distance) is at
 * least its covering radius over the later points (random orders fail). */
static void check_farthest(const ep_pointshell *ps)
{
    double *nn = malloc(sizeof *nn * (size_t)ps->S);
    for (int l = 1; l < ps->L; l++) {
        int n = ps->level_start[l];
        assert_int_equal(ep_pointshell_spacing(ps, l, nn), EP_OK);
        double pack = INFINITY, cover = 0;
        for (int i = 0; i < n; i++)
            pack = fmin(pack, nn[i]);
        for (int s = n; s < ps->S; s++) {
            double best = INFINITY;
            for (int t = 0; t < n; t++)
                best = fmin(best, sqrt(ep_vec3_dist2(&ps->P[3 * s], &ps->P[3 * t])));
            cover = fmax(cover, best);
        }
        assert_true(pack >= cover - 1e-12);
    }
    free(nn);
}

/* Cheaper orderings: vertices takes them all, farthest first; farthest
 * orders area-weighted samples farthest first. */
static void test_orderings(void **state)
{
    const ep_mesh *m = *state; /* a sphere, 2 levels */
    ep_pointshell ps;
    sample_ok(&ps, m, 3, 10, EP_POINTSHELL_VERTICES);
    assert_int_equal(ps.S, m->nv);
    check_on_set(&ps, m, 0, 1e-12);
    assert_int_equal(ep_pointshell_tree(&ps), EP_OK);
    check_tree(&ps);
    check_farthest(&ps);
    ep_pointshell_free(&ps);
    sample_ok(&ps, m, 2, 20, EP_POINTSHELL_FARTHEST);
    assert_int_equal(ps.S, 100);
    check_on_set(&ps, m, 0, 1e-12);
    check_farthest(&ps);
    ep_pointshell_free(&ps);
}

/* A closed sphere as a soup at offset D: every point at distance D, none
 * on the inner component (|P| > 1), normals inward (toward the surface);
 * a flat square (an open soup): points on both sides, normals opposing. */
static void test_offset(void **state)
{
    (void)state;
    ep_mesh m;
    ep_pointshell ps;
    make_sphere(&m, 2);
    double D = 0.08;
    ep_pointshell_opts o = opts(2, 40, EP_POINTSHELL_REPULSION);
    o.offset = D;
    assert_int_equal(ep_pointshell_sample(&ps, &m, &o), EP_OK);
    check_on_set(&ps, &m, D, 1e-8);
    for (int s = 0; s < ps.S; s++) {
        assert_true(ep_vec3_norm(&ps.P[3 * s]) > 1);
        assert_true(ep_vec3_dot(&ps.N[3 * s], &ps.P[3 * s]) < -0.9);
    }
    assert_true(fabs(ps.area - 4 * M_PI * (1 + D) * (1 + D)) < 0.25 * ps.area); /* both sides of the facets, less the inner */
    ep_pointshell_free(&ps);
    ep_mesh_free(&m);

    ep_mesh_init(&m);
    snprintf(m.source, sizeof m.source, "square");
    m.nv = 4, m.nf = 2;
    m.vertices = calloc(12, sizeof *m.vertices);
    m.triangles = malloc(6 * sizeof *m.triangles);
    double sq[12] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
    int tr[6] = {0, 1, 2, 0, 2, 3};
    memcpy(m.vertices, sq, sizeof sq);
    memcpy(m.triangles, tr, sizeof tr);
    assert_int_equal(ep_mesh_derive_boundary_data(&m), EP_OK);
    o.offset = 0.05;
    assert_int_equal(ep_pointshell_sample(&ps, &m, &o), EP_OK);
    check_on_set(&ps, &m, 0.05, 1e-8);
    int up = 0, down = 0;
    for (int s = 0; s < ps.S; s++) {
        const double *p = &ps.P[3 * s], *n = &ps.N[3 * s];
        if (p[2] > 0.049 && p[0] > 0 && p[0] < 1 && p[1] > 0 && p[1] < 1)
            up++, assert_true(n[2] < -0.99);
        if (p[2] < -0.049 && p[0] > 0 && p[0] < 1 && p[1] > 0 && p[1] < 1)
            down++, assert_true(n[2] > 0.99);
    }
    assert_true(up > ps.S / 4 && down > ps.S / 4);
    ep_pointshell_free(&ps);
    ep_mesh_free(&m);
}

/* Bad input: levels 0 or too many, an open surface without an offset,
 * a NaN vertex, no triangles; a point outside the simulation mesh. */
static void test_bad_input(void **state)
{
    ep_mesh *m = *state; /* a sphere, 1 level */
    ep_mesh cube;
    ep_pointshell ps;
    ep_pointshell_opts o = opts(0, 10, EP_POINTSHELL_REPULSION);
    assert_int_equal(ep_pointshell_sample(&ps, m, &o), EP_EINPUT);
    assert_non_null(strstr(ep_errmsg(), "levels 0"));
    o = opts(EP_POINTSHELL_MAX_LEVELS + 1, 10, EP_POINTSHELL_REPULSION);
    assert_int_equal(ep_pointshell_sample(&ps, m, &o), EP_EINPUT);
    o = opts(2, 10, EP_POINTSHELL_REPULSION);
    m->nf--; /* a hole */
    assert_int_equal(ep_pointshell_sample(&ps, m, &o), EP_EINPUT);
    assert_non_null(strstr(ep_errmsg(), "--offset"));
    m->nf++;
    m->vertices[4] = NAN;
    assert_int_equal(ep_pointshell_sample(&ps, m, &o), EP_EINPUT);
    assert_non_null(strstr(ep_errmsg(), "not finite"));
    m->vertices[4] = 0.5;
    int nf = m->nf;
    m->nf = 0;
    assert_int_equal(ep_pointshell_sample(&ps, m, &o), EP_EINPUT);
    m->nf = nf;
    /* the unit sphere moved 10 away from the unit cube's tets */
    for (int v = 0; v < m->nv; v++)
        m->vertices[3 * v] += 10;
    assert_int_equal(ep_model_read(&cube, "data/cube.msh"), EP_OK);
    assert_int_equal(ep_pointshell_sample(&ps, m, &o), EP_OK);
    assert_int_equal(ep_pointshell_tree(&ps), EP_OK);
    double *U = calloc(3 * (size_t)cube.nv, sizeof *U);
    assert_int_equal(ep_pointshell_bind(&ps, &cube, U, 1, ep_mesh_diameter(&cube)), EP_EINPUT);
    free(U);
    ep_pointshell_free(&ps);
    ep_mesh_free(&cube);
}

EP_TEST_MAIN("pointshell", EP_SPHERE_TEST(test_sphere, 3), cmocka_unit_test(test_torus),
             cmocka_unit_test(test_bind_bound), EP_SPHERE_TEST(test_orderings, 2), cmocka_unit_test(test_offset),
             EP_SPHERE_TEST(test_bad_input, 1))
