/*
 * cubic_eval — time a runtime's evaluation of the reduced force R(q) and the
 * tangent stiffness together from a kind "cubic" file (used by polycoef.sh):
 * cubic_eval CUBIC.h5 prints microseconds per evaluation and the bytes of
 * coefficients read, with the bandwidth that implies, on one thread and on
 * two (a spinning helper thread streams half the coefficients).
 * cubic_eval CUBIC.h5 cpu: one thread, timed in thread CPU seconds (on a
 * loaded machine, beside a rate measured the same way).  cubic_eval
 * random R [cpu]: the same on random coefficients of size R (the
 * evaluation's cost is the coefficients' size, not their values: the
 * polynomials of r = 100 take polycoef an hour on the dragon).
 */
#include "bench.h"
#include "cubic.h"
#include "err.h"
#include "h5.h"
#include "stats.h"

#include <math.h>
#include <string.h>

int main(int argc, char **argv)
{
    ep_cli_restart(argv); /* the OpenBLAS kernels the tools run (cli.h) */
    ep_h5 f;
    ep_cubic c = {0};
    ep_cubic_tangent t = {0};
    hsize_t d[2] = {0, 0};
    void *p;
    int cpu = argc >= 3 && !strcmp(argv[argc - 1], "cpu");
    if (argc >= 3 && !strcmp(argv[1], "random")) { /* random coefficients of size r */
        int r = atoi(argv[2]);
        if (r < 1 || ep_cubic_alloc(&c, r))
            return 1;
        unsigned seed = 1;
        long np = ep_cubic_npairs(r), nt = ep_cubic_ntriples(r);
        for (long i = 0; i < (long)r * r; i++)
            c.P[i] = rand_r(&seed) / (double)RAND_MAX;
        for (long i = 0; i < np * r; i++)
            c.Q[i] = rand_r(&seed) / (double)RAND_MAX;
        for (long i = 0; i < nt * r; i++)
            c.S[i] = rand_r(&seed) / (double)RAND_MAX;
        goto run;
    }
    if ((argc != 2 && !(argc == 3 && cpu)) || ep_h5_open(&f, argv[1], "cubic") || ep_h5_read(&f, "/cubic/P", EP_F64, 2, d, &p)) {
        fprintf(stderr, "cubic_eval: %s\n", argc == 2 ? ep_errmsg() : "usage: cubic_eval CUBIC.h5");
        return 1;
    }
    c.r = (int)d[0];
    c.P = p;
    d[0] = 0;
    ep_h5_read(&f, "/cubic/Q", EP_F64, 2, d, &p);
    c.Q = p;
    d[0] = 0;
    ep_h5_read(&f, "/cubic/S", EP_F64, 2, d, &p);
    c.S = p;
    ep_h5_close(&f);
run:;
    int r = c.r;
    if (ep_cubic_tangent_prepare(&t, &c))
        return 1;
    double *q = malloc(sizeof *q * (size_t)r), *R = malloc(sizeof *R * (size_t)r), *K = malloc(sizeof *K * (size_t)r * r);
    double *w = malloc(sizeof *w * (size_t)ep_cubic_tangent_work(r));
    for (int i = 0; i < r; i++)
        q[i] = 1e-3 * (i + 1);
    openblas_set_num_threads(1);
    /* one line per thread count, 1 then 2: "threads us bytes GB/s" */
    for (int threads = 1; threads <= (cpu ? 1 : 2); threads++) {
        if (ep_cubic_tangent_threads(&t, threads))
            return 1;
        /* 4000 at r = 30 (1 MB read), fewer as the polynomials grow (r = 100: 106 MB, 40) */
        int reps = (int)fmax(20, fmin(4000, 4e9 / (double)ep_cubic_tangent_bytes(r)));
        for (int i = 0; i < 200; i++) /* warm the caches */
            ep_cubic_tangent_eval(&t, q, R, K, w);
        double best = 1e30;
        for (int round = 0; round < 5; round++) { /* the quietest of five rounds: the machine is shared */
            double t0 = cpu ? ep_stats_thread_cpu() : ep_now();
            for (int i = 0; i < reps; i++) {
                q[i % r] += 1e-12;
                ep_cubic_tangent_eval(&t, q, R, K, w);
            }
            best = fmin(best, ((cpu ? ep_stats_thread_cpu() : ep_now()) - t0) / reps * 1e6);
        }
        double bytes = (double)ep_cubic_tangent_bytes(r);
        printf("%d %.2f %.0f %.2f\n", threads, best, bytes, bytes / (best * 1e-6) / 1e9);
    }
    ep_cubic_tangent_free(&t);
    return 0;
}
