/*
 * bench.h — shared by the benchmarks: the machine's own limit measured in the
 * same run (dgemm GFlop/s through OpenBLAS), timing, and the report line format
 * "bench NAME: RATE UNIT (machine: X GFlop/s dgemm; published: ...)".
 */
#ifndef EP_BENCH_H
#define EP_BENCH_H

#include <cblas.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

/* Best of three n x n x n dgemm runs, in GFlop/s, with all cores. */
static inline double bench_dgemm_gflops(int n)
{
    double *a = malloc(sizeof(double) * (size_t)n * (size_t)n);
    double *b = malloc(sizeof(double) * (size_t)n * (size_t)n);
    double *c = calloc((size_t)n * (size_t)n, sizeof(double));
    double best = 0;
    if (!a || !b || !c) {
        free(a);
        free(b);
        free(c);
        return 0;
    }
    for (size_t i = 0; i < (size_t)n * (size_t)n; i++) {
        a[i] = (double)(i % 7) - 3.0;
        b[i] = (double)(i % 5) - 2.0;
    }
    for (int r = 0; r < 3; r++) {
        double t0 = ep_now();
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, n, b, n, 0.0, c, n);
        double g = 2.0 * n * (double)n * n / (ep_now() - t0) / 1e9;
        best = g > best ? g : best;
    }
    free(a);
    free(b);
    free(c);
    return best;
}

/* Print the machine line once per benchmark program. */
static inline double bench_machine(void)
{
    double g = bench_dgemm_gflops(2000);
    printf("machine: %d cores, dgemm %.1f GFlop/s (n = 2000, OpenBLAS, this run)\n",
           omp_get_num_procs(), g);
    return g;
}

#endif
