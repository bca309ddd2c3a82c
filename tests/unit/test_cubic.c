/*
 * test_cubic.c — the cubic polynomial against the full StVK force (also with
 * per-element materials), its tangent against finite differences,
 * P = U^T K U, the split into lambda and mu parts, the index layout and the
 * storage sizes of 001 Fig. 2.8.
 */
#include "beam.h"

#include <math.h>

#include "cubic.h"
#include "fem.h"
#include "modal.h"
#include "select.h"
#include "stvk.h"

/* 001 Fig. 2.8: force + stiffness polynomials in doubles: 98.0 KiB at r = 12,
 * 223 KiB at r = 15, 3.0 MiB at r = 30; and the lexicographic indices. */
static void layout(void **s)
{
    (void)s;
    assert_int_equal(ep_cubic_runtime_bytes(12), 100368);
    assert_true(fabs(ep_cubic_runtime_bytes(12) / 1024.0 - 98.0) < 0.05);
    assert_true(fabs(ep_cubic_runtime_bytes(15) / 1024.0 - 223.0) < 0.05);
    assert_true(fabs(ep_cubic_runtime_bytes(30) / 1048576.0 - 3.0) < 0.05);
    int r = 7;
    long p = 0, t = 0;
    for (int i = 0; i < r; i++)
        for (int j = i; j < r; j++) {
            assert_int_equal(ep_cubic_pair(r, i, j), p++);
            for (int k = j; k < r; k++)
                assert_int_equal(ep_cubic_triple(r, i, j, k), t++);
        }
    assert_int_equal(p, ep_cubic_npairs(r));
    assert_int_equal(t, ep_cubic_ntriples(r));
}

/* A random q[r] whose largest vertex displacement u = U q [n3] is 10% of
 * the model's size (issue: "realistic size"). */
static void realistic_q(const ep_mesh *m, const double *U, int r, unsigned *seed, double *q, double *u)
{
    size_t n3 = 3 * (size_t)m->nv;
    for (int i = 0; i < r; i++)
        q[i] = 2.0 * rand_r(seed) / RAND_MAX - 1.0;
    memset(u, 0, n3 * sizeof *u);
    for (int i = 0; i < r; i++)
        for (size_t p = 0; p < n3; p++)
            u[p] += U[i * n3 + p] * q[i];
    double scale = 0.1 * ep_mesh_diameter(m) / maxabs(u, n3);
    for (int i = 0; i < r; i++)
        q[i] *= scale;
    for (size_t p = 0; p < n3; p++)
        u[p] *= scale;
}

/* Largest |R(q) - U^T f(U q)| over |U^T f(U q)|: the cubic polynomial c
 * against the full StVK force of sv, at u = U q.  w: pairs + triples of r;
 * f: [n3]. */
static double force_error(ep_stvk *sv, const ep_cubic *c, const double *U, const double *q, const double *u, double *w,
                          double *f)
{
    int r = c->r;
    size_t n3 = 3 * (size_t)sv->m->nv;
    double R[8], Rf[8];
    assert_true(r <= 8);
    assert_int_equal(ep_stvk_force(sv, u, f), EP_OK);
    for (int i = 0; i < r; i++) {
        Rf[i] = 0;
        for (size_t p = 0; p < n3; p++)
            Rf[i] += U[i * n3 + p] * f[p];
    }
    ep_cubic_force(c, q, R, w);
    double e = 0;
    for (int i = 0; i < r; i++)
        e = fmax(e, fabs(R[i] - Rf[i]));
    return e / maxabs(Rf, r);
}

static void polynomial(void **state)
{
    (void)state;
    ep_mesh m;
    ep_material mat = test_material(1e7, 0.45, 1000);
    int r = 8;
    double *U = beam_basis(&m, &mat, NULL);
    size_t n3 = 3 * (size_t)m.nv;

    ep_cubic tot, lam, mu;
    assert_int_equal(ep_cubic_compute(&tot, &lam, &mu, &m, &mat, U, r), EP_OK);
    long npr = ep_cubic_npairs(r), nt = ep_cubic_ntriples(r);
    for (long i = 0; i < (long)r * nt; i++) /* total = lambda part + mu part */
        assert_true(fabs(tot.S[i] - lam.S[i] - mu.S[i]) <= 1e-12 * maxabs(tot.S, (size_t)r * nt));

    /* P = U^T K U */
    int *all, nd;
    cholmod_common cc;
    cholmod_start(&cc);
    ep_fem_dofmap(&m, NULL, &all, &nd);
    cholmod_sparse *K = ep_fem_assemble(&m, &mat, EP_FEM_STIFFNESS, all, nd, all, nd, 1, &cc);
    double *KU = malloc(r * n3 * sizeof *KU), one[2] = {1, 0}, zero[2] = {0, 0};
    cholmod_dense X = {.nrow = n3, .ncol = (size_t)r, .nzmax = n3 * r, .d = n3, .x = U, .xtype = CHOLMOD_REAL, .dtype = CHOLMOD_DOUBLE};
    cholmod_dense Y = X;
    Y.x = KU;
    cholmod_sdmult(K, 0, one, zero, &X, &Y, &cc);
    for (int i = 0; i < r; i++)
        for (int j = 0; j < r; j++) {
            double v = 0;
            for (size_t q = 0; q < n3; q++)
                v += U[i * n3 + q] * KU[j * n3 + q];
            assert_true(fabs(tot.P[i * r + j] - v) < 1e-10 * maxabs(tot.P, (size_t)r * r));
        }

    /* R(q) against U^T f(U q) at q with max vertex displacement ~10% of the model */
    ep_stvk sv;
    assert_int_equal(ep_stvk_init(&sv, &m, &mat), EP_OK);
    double q[8], R[8], *w = malloc((npr + nt) * sizeof *w), *u = malloc(n3 * sizeof *u), *f = malloc(n3 * sizeof *f);
    unsigned seed = 5;
    for (int trial = 0; trial < 5; trial++) {
        realistic_q(&m, U, r, &seed, q, u);
        assert_true(force_error(&sv, &tot, U, q, u, w, f) <= 1e-10);
        ep_cubic_force(&tot, q, R, w);
        /* tangent: central differences, symmetry */
        double Kt[64], Kp[64], Rp[8], Rm[8], qq[8], h = 1e-5 * maxabs(q, r);
        ep_cubic_stiffness(&tot, q, Kt);
        ep_cubic_tangent tg;
        double Rt[8], *wt = malloc((size_t)ep_cubic_tangent_work(r) * sizeof *wt);
        assert_int_equal(ep_cubic_tangent_prepare(&tg, &tot), EP_OK);
        ep_cubic_tangent_eval(&tg, q, Rt, Kp, wt);
        for (int i = 0; i < r * r; i++) /* the runtime's stiffness polynomial */
            assert_true(fabs(Kp[i] - Kt[i]) <= 1e-12 * maxabs(Kt, 64));
        for (int i = 0; i < r; i++) /* and its force by Euler's identity */
            assert_true(fabs(Rt[i] - R[i]) <= 1e-12 * maxabs(R, r));
        /* with the helper thread: the same values, every time, and the helper
         * stops and starts again */
        for (int round = 0; round < 2; round++) {
            assert_int_equal(ep_cubic_tangent_threads(&tg, 2), EP_OK);
            for (int rep = 0; rep < 500; rep++) {
                double K2[64], R2[8];
                ep_cubic_tangent_eval(&tg, q, R2, K2, wt);
                for (int i = 0; i < r * r; i++)
                    assert_true(fabs(K2[i] - Kp[i]) <= 1e-13 * maxabs(Kt, 64));
                for (int i = 0; i < r; i++)
                    assert_true(fabs(R2[i] - Rt[i]) <= 1e-13 * maxabs(R, r));
            }
            assert_int_equal(ep_cubic_tangent_threads(&tg, 1), EP_OK);
        }
        assert_int_equal(ep_cubic_tangent_threads(&tg, 2), EP_OK); /* freed with a helper running */
        free(wt);
        ep_cubic_tangent_free(&tg);
        /* fewer vectors, so the pairs with the constant coordinate share a
         * panel of T with the others (r(r+1)/2 not a multiple of 4) */
        for (int rs = 5; rs <= 7; rs++) {
            ep_cubic cs;
            double Ks[49], Kr[49], Rs[7], Rr[7], ws[128]; /* ws: pairs + triples of 7 */
            assert_int_equal(ep_cubic_compute(&cs, NULL, NULL, &m, &mat, U, rs), EP_OK);
            assert_int_equal(ep_cubic_tangent_prepare(&tg, &cs), EP_OK);
            double *wr = malloc((size_t)ep_cubic_tangent_work(rs) * sizeof *wr);
            ep_cubic_tangent_eval(&tg, q, Rr, Kr, wr);
            ep_cubic_stiffness(&cs, q, Ks);
            ep_cubic_force(&cs, q, Rs, ws);
            for (int i = 0; i < rs * rs; i++)
                assert_true(fabs(Kr[i] - Ks[i]) <= 1e-12 * maxabs(Ks, (size_t)rs * rs));
            for (int i = 0; i < rs; i++)
                assert_true(fabs(Rr[i] - Rs[i]) <= 1e-12 * maxabs(Rs, rs));
            free(wr);
            ep_cubic_tangent_free(&tg);
            ep_cubic_free(&cs);
        }
        for (int a = 0; a < r; a++) {
            memcpy(qq, q, sizeof qq);
            qq[a] += h;
            ep_cubic_force(&tot, qq, Rp, w);
            qq[a] -= 2 * h;
            ep_cubic_force(&tot, qq, Rm, w);
            for (int i = 0; i < r; i++) {
                assert_true(fabs((Rp[i] - Rm[i]) / (2 * h) - Kt[i * r + a]) <= 1e-6 * maxabs(Kt, 64));
                assert_true(fabs(Kt[i * r + a] - Kt[a * r + i]) <= 1e-10 * maxabs(Kt, 64));
            }
        }
    }
    ep_cubic_free(&tot);
    ep_cubic_free(&lam);
    ep_cubic_free(&mu);
    ep_stvk_free(&sv);
    cholmod_free_sparse(&K, &cc);
    cholmod_finish(&cc);
    free(all);
    free(KU);
    free(w);
    free(u);
    free(f);
    free(U);
    ep_mesh_free(&m);
}

/* Per-element materials are honoured (issue: material editing): on a beam
 * whose elements alternate between two materials, the polynomial still
 * equals the full StVK force, and differs from the homogeneous one by far
 * more than that tolerance. */
static void heterogeneous(void **state)
{
    (void)state;
    ep_mesh m;
    ep_material hom = test_material(1e7, 0.45, 1000), het;
    int r = 8;
    double *U = beam_basis(&m, &hom, NULL);
    size_t n3 = 3 * (size_t)m.nv;
    double *E = malloc(m.ne * sizeof *E), *nu = malloc(m.ne * sizeof *nu), *rho = malloc(m.ne * sizeof *rho);
    for (int e = 0; e < m.ne; e++) {
        E[e] = e % 2 ? 3e7 : 1e7;
        nu[e] = e % 2 ? 0.3 : 0.45;
        rho[e] = 1000;
    }
    ep_material_init(&het);
    ep_material_set_elements(&het, m.ne, E, nu, rho);
    assert_int_equal(het.ne, m.ne);
    ep_cubic ch, cm;
    assert_int_equal(ep_cubic_compute(&ch, NULL, NULL, &m, &het, U, r), EP_OK);
    assert_int_equal(ep_cubic_compute(&cm, NULL, NULL, &m, &hom, U, r), EP_OK);
    ep_stvk sv;
    assert_int_equal(ep_stvk_init(&sv, &m, &het), EP_OK);
    double q[8], *w = malloc((ep_cubic_npairs(r) + ep_cubic_ntriples(r)) * sizeof *w), *u = malloc(n3 * sizeof *u),
                 *f = malloc(n3 * sizeof *f);
    unsigned seed = 11;
    for (int trial = 0; trial < 3; trial++) {
        realistic_q(&m, U, r, &seed, q, u);
        assert_true(force_error(&sv, &ch, U, q, u, w, f) <= 1e-10);
        assert_true(force_error(&sv, &cm, U, q, u, w, f) > 1e-3);
    }
    ep_stvk_free(&sv);
    ep_cubic_free(&ch);
    ep_cubic_free(&cm);
    ep_material_free(&het);
    free(w);
    free(u);
    free(f);
    free(U);
    ep_mesh_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(layout), cmocka_unit_test(polynomial),
                                       cmocka_unit_test(heterogeneous)};
    return cmocka_run_group_tests_name("cubic", tests, NULL, NULL);
}
