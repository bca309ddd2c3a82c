/*
 * test_reduced.c — reduced dynamics (reduced.c): Newmark on a linear model
 * against the analytic damped oscillator of each mode, the static solve, and
 * the energy whose gradient is R.
 */
#include "helpers.h"

#include "cubic.h"
#include "reduced.h"

/* Q = S = 0, P = diag(omega^2): r independent oscillators. */
static void linear_model(ep_cubic *c, int r, const double *omega)
{
    assert_int_equal(ep_cubic_alloc(c, r), EP_OK);
    memset(c->P, 0, sizeof(double) * r * r);
    memset(c->Q, 0, sizeof(double) * r * ep_cubic_npairs(r));
    memset(c->S, 0, sizeof(double) * r * ep_cubic_ntriples(r));
    for (int i = 0; i < r; i++)
        c->P[i * r + i] = omega[i] * omega[i];
}

/* q'' + (alpha + beta w^2) q' + w^2 q = 0 from q0 at rest, per mode:
 * q0 e^{-z w t} (cos wd t + z w / wd sin wd t). */
static void damped_oscillator(void **s)
{
    (void)s;
    enum { r = 3 };
    double omega[r] = {2.0, 5.0, 11.0}, q0[r] = {0.3, -0.2, 0.1}, alpha = 0.4, beta = 0.002;
    ep_cubic c;
    ep_cubic_tangent t;
    ep_reduced nm;
    linear_model(&c, r, omega);
    assert_int_equal(ep_cubic_tangent_prepare(&t, &c), EP_OK);
    double dt = 0.001 / omega[r - 1] * 10; /* omega dt <= 0.01 */
    assert_int_equal(ep_reduced_init(&nm, &t, dt, alpha, beta), EP_OK);
    ep_reduced_start(&nm, q0, NULL, NULL);
    double worst = 0;
    int steps = (int)(2 * 2 * M_PI / omega[0] / dt); /* two periods of the slowest mode */
    for (int k = 1; k <= steps; k++) {
        assert_int_equal(ep_reduced_step(&nm, NULL), EP_OK);
        double time = k * dt;
        for (int i = 0; i < r; i++) {
            double w = omega[i], z = (alpha + beta * w * w) / (2 * w), wd = w * sqrt(1 - z * z);
            double exact = q0[i] * exp(-z * w * time) * (cos(wd * time) + z * w / wd * sin(wd * time));
            worst = nan_max(worst, fabs(nm.q[i] - exact) / fabs(q0[i]));
        }
    }
    assert_true(worst < 2e-3); /* trapezoidal rule: phase error ~ w t (w dt)^2 / 12 */
    assert_true(worst > 1e-7);  /* and it is measuring something */
    /* undamped: the energy q'q'/2 + V(q) is constant (trapezoidal rule, linear model) */
    double *w = malloc(sizeof(double) * (ep_cubic_npairs(r) + ep_cubic_ntriples(r) + 4 * r));
    ep_reduced_free(&nm);
    assert_int_equal(ep_reduced_init(&nm, &t, 0.05, 0, 0), EP_OK);
    ep_reduced_start(&nm, q0, NULL, NULL);
    double E0 = ep_reduced_energy(&c, q0, w), drift = 0;
    for (int k = 0; k < 500; k++) {
        ep_reduced_step(&nm, NULL);
        double E = ep_reduced_energy(&c, nm.q, w);
        for (int i = 0; i < r; i++)
            E += 0.5 * nm.qd[i] * nm.qd[i];
        drift = fmax(drift, fabs(E - E0) / E0);
    }
    assert_true(drift < 1e-12);
    ep_reduced_free(&nm);
    expect_error(ep_reduced_init(&nm, &t, 0, 0, 0), EP_EUSAGE, "time step", NULL);
    free(w);
    ep_cubic_tangent_free(&t);
    ep_cubic_free(&c);
}

/* A nonlinear model: random symmetric-gradient cubic (the energy of random
 * quadratic strains), the static solve finds q with R(q) = f, and V's
 * gradient is R (central differences). */
static void static_solve_and_energy(void **s)
{
    (void)s;
    enum { r = 4 };
    double omega[r] = {1, 2, 3, 4};
    ep_cubic c;
    ep_cubic_tangent t;
    linear_model(&c, r, omega);
    /* quartic energy (sum_k (g_k . q)^2)^2 / 4 with fixed g: R3 = (|Gq|^2) G^T G q */
    double G[r][r] = {{0.3, 0.1, 0, 0}, {0, 0.2, 0.1, 0}, {0.1, 0, 0.4, 0.2}, {0, 0.1, 0, 0.3}};
    for (int i = 0; i < r; i++)
        for (int j = i; j < r; j++)
            for (int k = j; k < r; k++)
                for (int e = 0; e < r; e++) {
                    /* coefficient of q_i q_j q_k in R_e = sum_{abc} M_ab M_ce q_a q_b q_c, M = G^T G */
                    int idx[3] = {i, j, k};
                    double sum = 0;
                    for (int p = 0; p < 6; p++) {
                        static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
                        int a = idx[perm[p][0]], b = idx[perm[p][1]], cc = idx[perm[p][2]];
                        double Mab = 0, Mce = 0;
                        for (int l = 0; l < r; l++)
                            Mab += G[l][a] * G[l][b], Mce += G[l][cc] * G[l][e];
                        sum += Mab * Mce;
                    }
                    int distinct = (i != j) + (j != k);
                    double mult = distinct == 2 ? 1 : distinct == 1 ? 2 : 6; /* permutations counted */
                    c.S[ep_cubic_triple(r, i, j, k) * r + e] = sum / mult;
                }
    assert_int_equal(ep_cubic_tangent_prepare(&t, &c), EP_OK);
    double want[r] = {0.8, -0.5, 0.6, 0.3}, f[r], q[r] = {0}, *w = malloc(sizeof(double) * 200);
    ep_cubic_force(&c, want, f, w);
    int iters = 0;
    assert_int_equal(ep_reduced_static(&t, f, q, 50, 1e-14, &iters), EP_OK);
    assert_true(iters > 0);
    for (int i = 0; i < r; i++)
        assert_true(fabs(q[i] - want[i]) < 1e-10);
    double R[r], h = 1e-5;
    ep_cubic_force(&c, want, R, w);
    for (int i = 0; i < r; i++) {
        double qp[r], qm[r];
        memcpy(qp, want, sizeof qp), memcpy(qm, want, sizeof qm);
        qp[i] += h, qm[i] -= h;
        double d = (ep_reduced_energy(&c, qp, w) - ep_reduced_energy(&c, qm, w)) / (2 * h);
        assert_true(fabs(d - R[i]) < 1e-8 * (1 + fabs(R[i])));
    }
    free(w);
    ep_cubic_tangent_free(&t);
    ep_cubic_free(&c);
}

EP_TEST_MAIN("reduced", cmocka_unit_test(damped_oscillator), cmocka_unit_test(static_solve_and_energy))
