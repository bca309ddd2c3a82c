/*
 * test_cubature.c — cubature (cubature.h, nnls.h; MATH.md §14): with every
 * element weighted 1 the cubature force and tangent equal U^T f(U q) and
 * U^T K(U q) U of the full body (elastic.h, an independent assembly) for
 * every law; Lawson-Hanson and the greedy reach the brute-force NNLS
 * optimum; a fitted StVK cubature agrees with polycoef's polynomials at
 * random poses of the training range to within tau; bad element sets are
 * refused; the reduced Newmark step runs on either source.
 */
#include "beam.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>

#include "cubature.h"
#include "cubic.h"
#include "elastic.h"
#include "modal.h"
#include "nnls.h"
#include "reduced.h"

/* Every element with weight 1: R and K against the full body's U^T f(Uq)
 * and U^T K(Uq) U, each law, at a pose moving the tip by 10% of the beam. */
static void all_elements(void **state)
{
    reduced_beam *beam = *state; /* beam.h */
    ep_mesh *m = &beam->m;
    const ep_material *mat = &beam->mat;
    int r = 8;
    double *U = beam->U;
    size_t n3 = 3 * (size_t)m->nv;
    int *all = malloc(sizeof *all * (size_t)m->ne);
    double *ones = malloc(sizeof *ones * (size_t)m->ne), q[8], R[8], K[64], Rf[8], Kf[64];
    double *u = calloc(n3, sizeof *u), *f = calloc(n3, sizeof *f), *x = NULL, *y = NULL, *full = calloc(n3, sizeof *full);
    for (int e = 0; e < m->ne; e++)
        all[e] = e, ones[e] = 1;
    ep_rng g = ep_rng_seed(2, 0);
    for (int i = 0; i < r; i++)
        q[i] = centered_uniform(&g);
    cblas_dgemv(CblasRowMajor, CblasTrans, r, (int)n3, 1.0, U, (int)n3, q, 1, 0.0, u, 1);
    double s = 0.1 * ep_mesh_diameter(m) / maxabs(u, n3);
    for (int i = 0; i < r; i++)
        q[i] *= s;
    cblas_dscal((int)n3, s, u, 1);
    for (int law = 0; law < 4; law++) {
        ep_cubature c;
        ep_elastic b;
        assert_int_equal(ep_cubature_prepare(&c, m, mat, (ep_law_kind)law, U, r, all, ones, m->ne), EP_OK);
        double *w = malloc(sizeof *w * (size_t)ep_cubature_work(&c));
        ep_cubature_eval(&c, q, R, K, w);
        assert_int_equal(ep_elastic_init(&b, m, mat, (ep_law_kind)law, NULL, 0), EP_OK);
        assert_int_equal(ep_elastic_eval(&b, u, NULL, f, 1), EP_OK);
        x = realloc(x, sizeof *x * (size_t)b.ndof), y = realloc(y, sizeof *y * (size_t)b.ndof);
        for (int i = 0; i < r; i++) {
            Rf[i] = cblas_ddot((int)n3, U + i * n3, 1, f, 1);
            ep_elastic_gather(&b, U + i * n3, x);
            ep_elastic_symv(&b, b.K->x, x, y);
            ep_elastic_scatter(&b, y, full);
            for (int j = 0; j < r; j++)
                Kf[j * r + i] = cblas_ddot((int)n3, U + j * n3, 1, full, 1);
        }
        for (int i = 0; i < r; i++)
            assert_true(fabs(R[i] - Rf[i]) <= 1e-12 * maxabs(Rf, (size_t)r));
        for (int i = 0; i < r * r; i++)
            assert_true(fabs(K[i] - Kf[i]) <= 1e-12 * maxabs(Kf, (size_t)(r * r)));
        /* the training contributions sum to the same force */
        double G[8];
        assert_int_equal(ep_cubature_contributions(m, mat, (ep_law_kind)law, U, r, NULL, 0, q, 1, NULL, G), EP_OK);
        for (int i = 0; i < r; i++)
            assert_true(fabs(G[i] - Rf[i]) <= 1e-12 * maxabs(Rf, (size_t)r));
        free(w);
        ep_elastic_free(&b);
        ep_cubature_free(&c);
    }
    free(all), free(ones), free(u), free(f), free(x), free(y), free(full);
}

/* The NNLS optimum by brute force over every set of columns: least squares
 * on the set, feasible when every weight is > 0; the smallest residual. */
static double brute_nnls(const double *A, int m, int n, const double *b, double *wbest)
{
    double best = INFINITY;
    for (unsigned mask = 0; mask < (1u << n); mask++) {
        int k = __builtin_popcount(mask), cols[16], c = 0;
        double M[64 * 16], rhs[64], res = 0;
        for (int j = 0; j < n; j++)
            if (mask >> j & 1)
                cols[c++] = j;
        for (int i = 0; i < m; i++) {
            rhs[i] = b[i];
            for (int c2 = 0; c2 < k; c2++)
                M[c2 * m + i] = A[(size_t)cols[c2] * m + i];
        }
        if (k && LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', m, k, 1, M, m, rhs, m))
            continue;
        int ok = 1;
        for (int c2 = 0; c2 < k; c2++)
            ok &= rhs[c2] > 0;
        if (!ok)
            continue;
        double w[16] = {0};
        for (int c2 = 0; c2 < k; c2++)
            w[cols[c2]] = rhs[c2];
        for (int i = 0; i < m; i++) {
            double a = b[i];
            for (int j = 0; j < n; j++)
                a -= A[(size_t)j * m + i] * w[j];
            res += a * a;
        }
        if (res < best)
            best = res, memcpy(wbest, w, sizeof w);
    }
    return sqrt(best);
}

static void nnls_optimum(void **state)
{
    (void)state;
    int m = 20, n = 12;
    ep_rng g = ep_rng_seed(4, 0);
    for (int trial = 0; trial < 4; trial++) {
        double A[20 * 12], b[20], wb[16];
        for (int i = 0; i < m * n; i++)
            A[i] = centered_uniform(&g) + (trial & 1) * 0.3;
        for (int i = 0; i < m; i++)
            b[i] = centered_uniform(&g) + 0.5;
        double best = brute_nnls(A, m, n, b, wb), bn = cblas_dnrm2(m, b, 1);
        for (int greedy = 0; greedy < 2; greedy++) {
            ep_nnls s;
            assert_int_equal(ep_nnls_init(&s, A, m, m, n, b, n), EP_OK);
            assert_int_equal(greedy ? ep_nnls_greedy(&s, 0, 3, 7) : ep_nnls_lawson_hanson(&s, 0), EP_OK);
            assert_true(fabs(s.resid * bn - best) <= 1e-10 * bn);
            for (int i = 0; i < s.k; i++)
                assert_true(s.w[i] > 0 && fabs(s.w[i] - wb[s.set[i]]) <= 1e-8 * (1 + fabs(wb[s.set[i]])));
            ep_nnls_free(&s);
            ep_nnls_free(&s);
        }
    }
    /* a tolerance stops early with the residual under it */
    double A[20 * 12], b[20];
    for (int i = 0; i < m * n; i++)
        A[i] = ep_rng_uniform(&g);
    for (int i = 0; i < m; i++)
        b[i] = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++)
            b[i] += (j % 3 == 0) * A[j * m + i];
    ep_nnls s;
    assert_int_equal(ep_nnls_init(&s, A, m, m, n, b, n), EP_OK);
    assert_int_equal(ep_nnls_lawson_hanson(&s, 0.2), EP_OK);
    assert_true(s.resid <= 0.2 && s.k < 4);
    ep_nnls_free(&s);
}

/* A fitted StVK cubature against polycoef's polynomials (exact for StVK) at
 * fresh random poses of the training range: relative rms within tau; and
 * the reduced Newmark step on both sources stays close over a short run. */
static void stvk_against_polynomials(void **state)
{
    reduced_beam *beam = *state; /* beam.h */
    ep_mesh *m = &beam->m;
    const ep_material *mat = &beam->mat;
    int r = 8, T = 60, H = 10, P = 20;
    double tau = 1e-2, *U = beam->U;
    double *Q = malloc(sizeof *Q * (size_t)T * r), *Qt = malloc(sizeof *Qt * (size_t)P * r);
    assert_int_equal(ep_cubature_sample(m, mat, U, r, T, 0.1, 1, Q), EP_OK);
    assert_int_equal(ep_cubature_sample(m, mat, U, r, P, 0.1, 99, Qt), EP_OK);
    for (int greedy = 0; greedy < 2; greedy++) {
        ep_cubature_fit fit;
        ep_cubature_fit_opts o = {greedy, tau, 400, 50, 0, 1e9, 3};
        assert_int_equal(ep_cubature_fit_weights(&fit, m, mat, EP_LAW_STVK, U, r, Q, T, H, &o), EP_OK);
        assert_true(fit.training_error <= tau && fit.n > 0 && fit.n < m->ne / 2);
        ep_cubature c;
        ep_cubic cub;
        assert_int_equal(ep_cubature_prepare(&c, m, mat, EP_LAW_STVK, U, r, fit.elem, fit.w, fit.n), EP_OK);
        assert_int_equal(ep_cubic_compute(&cub, NULL, NULL, m, mat, U, r), EP_OK);
        double *w = malloc(sizeof *w * (size_t)ep_cubature_work(&c)), *wc = malloc(sizeof *wc * 200), R[8], Rp[8],
               sum = 0;
        for (int t = 0; t < P; t++) {
            ep_cubature_eval(&c, Qt + t * r, R, NULL, w);
            ep_cubic_force(&cub, Qt + t * r, Rp, wc);
            double e2 = 0, g2 = 0;
            for (int i = 0; i < r; i++)
                e2 += (R[i] - Rp[i]) * (R[i] - Rp[i]), g2 += Rp[i] * Rp[i];
            sum += e2 / g2;
        }
        print_message("cubature %s: %d elements, training %.3g, held-out %.3g, fresh poses %.3g\n",
                      greedy ? "greedy" : "lawson-hanson", fit.n, fit.training_error, fit.heldout_error, sqrt(sum / P));
        assert_true(sqrt(sum / P) <= tau);
        /* Newmark on both (Newton converged), released from 0.3 of a training
         * pose, 50 steps of 1e-4 s (20 a period of the stiffest basis vector;
         * the motion holds every vector's frequency, so phase errors of the
         * stiff ones grow fast with longer steps): |q_poly - q_cub| within 5%. */
        ep_cubic_tangent tg;
        ep_reduced a, bb;
        double qr[8];
        for (int i = 0; i < r; i++)
            qr[i] = 0.3 * Q[i];
        assert_int_equal(ep_cubic_tangent_prepare(&tg, &cub), EP_OK);
        assert_int_equal(ep_reduced_init(&a, &tg, 1e-4, 0, 0), EP_OK);
        assert_int_equal(ep_reduced_init_cubature(&bb, &c, 1e-4, 0, 0), EP_OK);
        a.iterations = bb.iterations = 20, a.tol = bb.tol = 1e-12;
        ep_reduced_start(&a, qr, NULL, NULL), ep_reduced_start(&bb, qr, NULL, NULL);
        double d = 0, qa = 0;
        for (int k = 0; k < 50; k++) {
            assert_int_equal(ep_reduced_step(&a, NULL), EP_OK);
            assert_int_equal(ep_reduced_step(&bb, NULL), EP_OK);
            double d2 = 0, a2 = 0;
            for (int i = 0; i < r; i++)
                d2 += (a.q[i] - bb.q[i]) * (a.q[i] - bb.q[i]), a2 += a.q[i] * a.q[i];
            d = fmax(d, sqrt(d2)), qa = fmax(qa, sqrt(a2));
        }
        print_message("Newmark, 50 steps: largest |q_poly - q_cub| %.3g of max |q_poly| %.3g\n", d, qa);
        assert_true(d <= 0.05 * qa);
        double q0[8];
        for (int i = 0; i < r; i++)
            q0[i] = 0.3 * Q[i];
        int it;
        double fz[8]; /* the static solve finds the pose whose force it is given */
        ep_cubature_eval(&c, q0, fz, NULL, w);
        double qs[8] = {0};
        assert_int_equal(ep_reduced_static_cubature(&c, fz, qs, 50, 1e-12, &it), EP_OK);
        for (int i = 0; i < r; i++)
            assert_true(fabs(qs[i] - q0[i]) <= 1e-8 * qa);
        ep_reduced_free(&a), ep_reduced_free(&bb);
        ep_cubic_tangent_free(&tg);
        ep_cubic_free(&cub);
        ep_cubature_free(&c);
        ep_cubature_fit_free(&fit);
        ep_cubature_fit_free(&fit);
        free(w), free(wc);
    }
    free(Q), free(Qt);
}

/* Element ids out of range and negative or NaN weights: EP_EINPUT. */
static void bad_sets(void **state)
{
    reduced_beam *beam = *state; /* beam.h */
    ep_mesh *m = &beam->m;
    const ep_material *mat = &beam->mat;
    double *U = beam->U;
    int el[2] = {0, m->ne};
    double w[2] = {1, 1};
    ep_cubature c;
    expect_error(ep_cubature_prepare(&c, m, mat, EP_LAW_STVK, U, 8, el, w, 2), EP_EINPUT, "out of range", NULL);
    ep_cubature_free(&c);
    el[1] = 1, w[1] = -1;
    expect_error(ep_cubature_prepare(&c, m, mat, EP_LAW_STVK, U, 8, el, w, 2), EP_EINPUT, "not a finite number >= 0",
                 NULL);
    ep_cubature_free(&c);
    w[1] = NAN;
    expect_error(ep_cubature_prepare(&c, m, mat, EP_LAW_STVK, U, 8, el, w, 2), EP_EINPUT, "weight 2", NULL);
    ep_cubature_free(&c);
    ep_cubature_free(&c);
}

EP_TEST_MAIN("cubature", EP_BEAM_BASIS_TEST(all_elements), cmocka_unit_test(nnls_optimum),
             EP_BEAM_BASIS_TEST(stvk_against_polynomials), EP_BEAM_BASIS_TEST(bad_sets))
