/*
 * newmark.c — reduced implicit Newmark on a cubic file, the loop of a
 * reduced-model simulator (libelastoprep(3), ep_reduced(3); 001 §2.7).
 *
 *     newmark CUBIC.h5 [STEPS]
 *
 * Reads the cubic polynomials of the reduced StVK forces and the basis U
 * (ep_cubic_file_read), prepares the runtime stiffness polynomial
 * (ep_cubic_tangent_prepare), releases the model from a small deflection
 * along its first basis vector and steps it without damping
 * (ep_reduced_step), printing q_1 and the energy now and then, and the
 * largest vertex displacement u = U q at the end.
 *
 * Its answers are checked (make check): undamped, the energy
 * |qd|^2 / 2 + V(q) (ep_reduced_energy) stays within 1e-3 of its start; and
 * the static solve (ep_reduced_static, Newton on the runtime stiffness
 * polynomial) of a force f is an equilibrium of the
 * force polynomial evaluated directly (ep_cubic_force: R(q) = f) to 1e-8.
 * Exit 0 when both hold, 1 otherwise.
 *
 * Build: cc newmark.c $(pkg-config --cflags --libs elastoprep) -lm -o newmark
 */
#include <elastoprep/elastoprep.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    ep_h5 f = {0};
    ep_mesh m = {0};
    ep_cubic c = {0};
    ep_cubic_tangent t = {0};
    ep_reduced nm = {0};
    double *U = NULL;
    int steps = argc > 2 ? atoi(argv[2]) : 400, st, bad = 0;
    if (argc < 2 || steps < 1) {
        fprintf(stderr, "usage: newmark CUBIC.h5 [STEPS]\n");
        return 2;
    }
    /* Read: the file's mesh (for nv), the polynomials and the basis. */
    if ((st = ep_h5_open(&f, argv[1], "cubic")) || (st = ep_model_load(&m, &f)) ||
        (st = ep_cubic_file_read(&c, &f, m.nv, &U)) || (st = ep_cubic_tangent_prepare(&t, &c))) {
        fprintf(stderr, "newmark: %s\n", ep_errmsg());
        goto out;
    }
    int r = c.r;
    /* A time step of 1/20 of the fastest period, bounded through Gershgorin:
     * omega_max^2 <= max_i sum_j |P_ij|. */
    double bound = 0;
    for (int i = 0; i < r; i++) {
        double row = 0;
        for (int j = 0; j < r; j++)
            row += fabs(c.P[i * r + j]);
        bound = fmax(bound, row);
    }
    double dt = 2 * M_PI / sqrt(bound) / 20;
    if ((st = ep_reduced_init(&nm, &t, dt, 0, 0))) {
        fprintf(stderr, "newmark: %s\n", ep_errmsg());
        goto out;
    }
    nm.iterations = 10; /* Newton to convergence each step: the energy check needs it */
    nm.tol = 1e-12;
    double *q0 = calloc((size_t)r, sizeof(double)), *w = malloc(sizeof(double) * (size_t)(ep_cubic_npairs(r) + ep_cubic_ntriples(r) + 4 * r));
    double *fq = calloc((size_t)r, sizeof(double)), *q = calloc((size_t)r, sizeof(double));
    /* A deflection whose linear strain energy is 1e-8 (mass-normalized units). */
    q0[0] = sqrt(2e-8 / c.P[0]);
    ep_reduced_start(&nm, q0, NULL, NULL);
    double E0 = ep_reduced_energy(&c, q0, w), drift = 0;
    printf("dt %.3e s, r %d\n step     q_1          energy\n", dt, r);
    for (int k = 1; k <= steps && !bad; k++) {
        if ((st = ep_reduced_step(&nm, NULL))) {
            fprintf(stderr, "newmark: %s\n", ep_errmsg());
            bad = 1;
            break;
        }
        double E = ep_reduced_energy(&c, nm.q, w);
        for (int i = 0; i < r; i++)
            E += 0.5 * nm.qd[i] * nm.qd[i];
        if (!isfinite(E)) { /* a NaN state: fmax below would drop it and say "ok" */
            fprintf(stderr, "newmark: step %d: the state is not finite (energy %g)\n", k, E);
            bad = 1;
            break;
        }
        drift = fmax(drift, fabs(E - E0) / E0);
        if (k % (steps / 8 ? steps / 8 : 1) == 0)
            printf("%5d  %12.5e  %12.5e\n", k, nm.q[0], E);
    }
    /* u = U q: the largest vertex displacement at the end. */
    double umax = 0;
    for (int v = 0; v < m.nv; v++) {
        double u[3] = {0, 0, 0};
        for (int i = 0; i < r; i++)
            for (int a = 0; a < 3; a++)
                u[a] += U[(size_t)i * 3 * m.nv + 3 * v + a] * nm.q[i];
        double un = hypot(hypot(u[0], u[1]), u[2]);
        umax = !(un <= umax) ? un : umax; /* NaN propagates */
    }
    /* Static: a force along q_1, solved by Newton on the tangent panels, then
     * checked on the coefficients themselves. */
    int its = 0;
    fq[0] = 1e-6 * c.P[0];
    double lin = 0, *R = calloc((size_t)r, sizeof(double));
    if (!bad && !(st = ep_reduced_static(&t, fq, q, 50, 1e-12, &its))) {
        ep_cubic_force(&c, q, R, w);
        for (int i = 0; i < r; i++)
            lin = !(fabs(R[i] - fq[i]) / fq[0] <= lin) ? fabs(R[i] - fq[i]) / fq[0] : lin; /* NaN propagates */
    } else if (!bad) {
        fprintf(stderr, "newmark: %s\n", ep_errmsg());
        bad = 1;
    }
    printf("largest |u| %.3e; energy drift %.2e; static: %d iterations, |R(q) - f| / |f| %.2e\n", umax, drift, its,
           lin);
    bad |= !(drift < 1e-3) || !(lin < 1e-8) || !isfinite(umax);
    printf("%s\n", bad ? "FAILED" : "ok");
    free(q0), free(w), free(fq), free(q), free(R);
    st = bad;
out:
    ep_reduced_free(&nm), ep_cubic_tangent_free(&t), ep_cubic_free(&c), free(U), ep_mesh_free(&m);
    ep_h5_close(&f);
    return st;
}
