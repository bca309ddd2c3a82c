/*
 * test_elastic.c — the full-space body of fullsim (elastic.h, law.h):
 * every law's stress and tangent are derivatives of its energy (corotated
 * and neo-Hookean: rest, rotations, the linear limit, inversion), the
 * assembled force is the StVK force of stvk.h and the gradient of the
 * energy, the assembled tangent matrix is the derivative of the force, K(0)
 * is fem.h's stiffness, for tets and hexes, and the result does not depend
 * on the thread count.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "chol.h"
#include "elastic.h"
#include "fem.h"
#include "helpers.h"
#include "law.h"
#include "model.h"
#include "rng.h"
#include "stvk.h"

/* P = dW/dD and C = dP/dD by central differences, every law, at random
 * strains up to 0.3 (and, for the laws that allow it, an inverted element). */
static void law_derivatives(void **state)
{
    (void)state;
    ep_rng r = ep_rng_seed(7, 0);
    for (int kind = 0; kind < 4; kind++)
        for (int trial = 0; trial < 6; trial++) {
            double D[3][3], P[3][3], C[9][9], Pp[3][3], Pm[3][3], h = 1e-6, scale = 0;
            for (int i = 0; i < 9; i++)
                D[i / 3][i % 3] = 0.3 * centered_uniform(&r);
            if (trial == 5 && kind >= EP_LAW_COROTATED) /* inverted: F = diag(1.1, 0.9, -0.4) + small */
                for (int i = 0; i < 3; i++)
                    D[i][i] += i == 2 ? -1.4 : 0.1 * (1 - 2 * i) - D[i][i] * 0.8;
            ep_law_eval((ep_law_kind)kind, 2.0, 1.5, D, P, C);
            for (int p = 0; p < 81; p++)
                scale = fmax(scale, fabs(C[p / 9][p % 9]));
            for (int q = 0; q < 9; q++) {
                double Dp[3][3], Dm[3][3];
                memcpy(Dp, D, sizeof D), memcpy(Dm, D, sizeof D);
                Dp[q / 3][q % 3] += h, Dm[q / 3][q % 3] -= h;
                double Wp = ep_law_eval((ep_law_kind)kind, 2.0, 1.5, Dp, Pp, NULL);
                double Wm = ep_law_eval((ep_law_kind)kind, 2.0, 1.5, Dm, Pm, NULL);
                assert_true(fabs((Wp - Wm) / (2 * h) - P[q / 3][q % 3]) < 1e-7 * scale);
                for (int p = 0; p < 9; p++)
                    assert_true(fabs((Pp[p / 3][p % 3] - Pm[p / 3][p % 3]) / (2 * h) - C[p][q]) < 1e-7 * scale);
            }
        }
}

/* Corotated and neo-Hookean: no energy or stress at rest and under a
 * rotation, the linear law's tangent at rest, the same energy after a
 * rotation; neo-Hookean: finite on inverted and flat elements, with a
 * force that undoes the inversion. */
static void law_properties(void **state)
{
    (void)state;
    double Z[3][3] = {{0}}, P[3][3], C[9][9], Cl[9][9], Pl[3][3];
    ep_law_eval(EP_LAW_LINEAR, 2.0, 1.5, Z, Pl, Cl);
    double c = cos(0.7), s = sin(0.7), Q[3][3] = {{c, -s, 0}, {s * 0.6, c * 0.6, 0.8}, {-s * 0.8, -c * 0.8, 0.6}};
    ep_rng r = ep_rng_seed(11, 0);
    for (int kind = EP_LAW_COROTATED; kind <= EP_LAW_NEOHOOKEAN; kind++) {
        assert_true(fabs(ep_law_eval((ep_law_kind)kind, 2.0, 1.5, Z, P, C)) < 1e-15);
        for (int p = 0; p < 81; p++)
            assert_true(fabs(C[p / 9][p % 9] - Cl[p / 9][p % 9]) < 1e-12);
        for (int i = 0; i < 9; i++)
            assert_true(fabs(P[i / 3][i % 3]) < 1e-15);
        double D[3][3], QD[3][3];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                D[i][j] = Q[i][j] - (i == j); /* a pure rotation */
        assert_true(fabs(ep_law_eval((ep_law_kind)kind, 2.0, 1.5, D, P, NULL)) < 1e-13);
        for (int i = 0; i < 9; i++)
            assert_true(fabs(P[i / 3][i % 3]) < 1e-13);
        for (int i = 0; i < 9; i++)
            D[i / 3][i % 3] = 0.3 * centered_uniform(&r);
        for (int i = 0; i < 3; i++) /* Q F - I */
            for (int j = 0; j < 3; j++)
                QD[i][j] = Q[i][0] * ((0 == j) + D[0][j]) + Q[i][1] * ((1 == j) + D[1][j]) +
                           Q[i][2] * ((2 == j) + D[2][j]) - (i == j);
        double W0 = ep_law_eval((ep_law_kind)kind, 2.0, 1.5, D, P, NULL);
        assert_true(W0 > 0 && fabs(ep_law_eval((ep_law_kind)kind, 2.0, 1.5, QD, P, NULL) - W0) < 1e-12 * W0);
    }
    double Dinv[3][3] = {{0}}, Dflat[3][3] = {{0}};
    Dinv[2][2] = -1.5, Dflat[2][2] = -1; /* F = diag(1, 1, -0.5) and diag(1, 1, 0) */
    for (int t = 0; t < 2; t++) {
        double W = ep_law_eval(EP_LAW_NEOHOOKEAN, 2.0, 1.5, t ? Dflat : Dinv, P, C);
        assert_true(isfinite(W) && W > 0);
        for (int p = 0; p < 81; p++)
            assert_true(isfinite(C[p / 9][p % 9]));
        assert_true(P[2][2] < 0); /* dW/dF_33 < 0: the energy falls as F_33 grows back towards 1 */
    }
}

/* The body of path (held at x = 0) at a random u: force, energy gradient, tangent, K(0), threads. */
static void body_checks(const char *path, int hexes)
{
    ep_mesh m;
    ep_material mat = test_material(1e6, 0.3, 1000);
    ep_elastic b;
    ep_stvk sv;
    assert_int_equal(ep_model_read(&m, path), EP_OK);
    char *fixed = calloc((size_t)m.nv, 1);
    for (int v = 0; v < m.nv; v++) /* held: the vertices at the least x */
        fixed[v] = m.vertices[3 * v] < 1e-9;
    assert_int_equal(ep_elastic_init(&b, &m, &mat, EP_LAW_STVK, fixed, 0), EP_OK);
    assert_int_equal(ep_stvk_init(&sv, &m, &mat), EP_OK);
    size_t n3 = 3 * (size_t)m.nv;
    int n = b.ndof;
    double *u = calloc(n3, sizeof *u), *f = calloc(n3, sizeof *f), *g = calloc(n3, sizeof *g), *du = calloc(n3, sizeof *du);
    double *x = calloc((size_t)n, sizeof *x), *y = calloc((size_t)n, sizeof *y), *fp = calloc(n3, sizeof *fp),
           *fm = calloc(n3, sizeof *fm), *a = calloc((size_t)n, sizeof *a), *c = calloc((size_t)n, sizeof *c);
    ep_rng r = ep_rng_seed(3, hexes);
    for (size_t i = 0; i < n3; i++)
        u[i] = fixed[i / 3] ? 0 : 0.02 * centered_uniform(&r), du[i] = fixed[i / 3] ? 0 : centered_uniform(&r);
    double W;
    assert_int_equal(ep_elastic_eval(&b, u, &W, f, 1), EP_OK);
    assert_int_equal(ep_stvk_force(&sv, u, g), EP_OK);
    for (size_t i = 0; i < n3; i++) /* the StVK force of stvk.h */
        assert_true(fabs(f[i] - g[i]) <= 1e-10 * maxabs(g, n3));
    /* dW/du . du and K du by central differences along du */
    double h = 1e-6, Wp, Wm, dot = 0;
    double *up = calloc(n3, sizeof *up), *um = calloc(n3, sizeof *um);
    for (size_t i = 0; i < n3; i++)
        up[i] = u[i] + h * du[i], um[i] = u[i] - h * du[i], dot += f[i] * du[i];
    ep_elastic_gather(&b, du, x);
    ep_elastic_symv(&b, b.K->x, x, y); /* K(u) du: the tangent at u (eval above) */
    assert_int_equal(ep_elastic_eval(&b, up, &Wp, fp, 0), EP_OK);
    assert_int_equal(ep_elastic_eval(&b, um, &Wm, fm, 0), EP_OK);
    assert_true(fabs((Wp - Wm) / (2 * h) - dot) <= 1e-6 * fabs(dot));
    for (size_t i = 0; i < n3; i++)
        fp[i] = (fp[i] - fm[i]) / (2 * h);
    ep_elastic_gather(&b, fp, a);
    assert_true(maxabs(a, (size_t)n) > 0);
    for (int i = 0; i < n; i++)
        assert_true(fabs(a[i] - y[i]) <= 1e-6 * maxabs(a, (size_t)n));
    /* K(0) is fem.h's stiffness (tets: the same one-point rule) */
    if (!hexes) {
        cholmod_common cc;
        ep_chol_start(&cc);
        cholmod_sparse *K = ep_fem_assemble(&m, &mat, EP_FEM_STIFFNESS, b.map, n, b.map, n, 1, &cc);
        assert_non_null(K);
        assert_int_equal(((int *)K->p)[n], ((int *)b.K->p)[n]);
        for (int p = 0; p < ((int *)K->p)[n]; p++)
            assert_true(fabs(((double *)K->x)[p] - b.K0x[p]) <= 1e-12 * maxabs(b.K0x, (size_t)((int *)K->p)[n]));
        cholmod_free_sparse(&K, &cc);
        cholmod_finish(&cc);
    }
    /* one thread: the same bits */
    int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    assert_int_equal(ep_elastic_eval(&b, u, &Wp, g, 1), EP_OK);
    omp_set_num_threads(threads);
    assert_true(Wp == W && !memcmp(f, g, n3 * sizeof *f));
    free(u), free(f), free(g), free(du), free(x), free(y), free(fp), free(fm), free(a), free(c), free(up), free(um);
    free(fixed);
    ep_stvk_free(&sv);
    ep_elastic_free(&b);
    ep_material_free(&mat);
    ep_mesh_free(&m);
}

static void tets(void **state)
{
    (void)state;
    body_checks("data/beam-h0.05.msh", 0);
}

static void hexes(void **state)
{
    (void)state;
    body_checks("data/two-voxels.veg", 1);
}

/* Release functions take a zeroed object, twice. */
static void cleanup(void **state)
{
    (void)state;
    ep_elastic b;
    memset(&b, 0, sizeof b);
    ep_elastic_free(&b);
    ep_elastic_free(&b);
}

EP_TEST_MAIN("elastic", cmocka_unit_test(law_derivatives), cmocka_unit_test(law_properties), cmocka_unit_test(tets), cmocka_unit_test(hexes),
             cmocka_unit_test(cleanup))
