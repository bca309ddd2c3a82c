/*
 * dgemm — print the machine's dgemm rate (GFlop/s) measured now, for the
 * benchmark scripts to print beside their own rates (bench.h).  With the
 * argument "cpu": one thread's rate per CPU second, for rates a benchmark
 * measures in CPU seconds (time-sharing with other jobs distorts neither).
 */
#include "bench.h"

#include <string.h>
#include <time.h>

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    ep_cli_restart(argv); /* the OpenBLAS kernels the tools run (cli.h) */
    if (argc > 1 && !strcmp(argv[1], "cpu")) {
        enum { n = 2000 };
        double *a = calloc((size_t)n * n, sizeof *a), *b = calloc((size_t)n * n, sizeof *b),
               *c = calloc((size_t)n * n, sizeof *c), best = 0;
        openblas_set_num_threads(1);
        for (int r = 0; a && b && c && r < 3; r++) {
            double t0 = cpu_now();
            cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, n, b, n, 0.0, c, n);
            double g = 2.0 * n * (double)n * n / (cpu_now() - t0) / 1e9;
            best = g > best ? g : best;
        }
        printf("%.1f\n", best);
        free(a), free(b), free(c);
        return 0;
    }
    printf("%.1f\n", bench_dgemm_gflops(2000));
    return 0;
}
