/*
 * membw — the machine's memory bandwidth, measured in the same run as a
 * benchmark that is bound by it (tests/bench/voxelize.sh: u_render = Ubar q
 * reads Ubar once a frame).  Prints one line:
 *   "read1 GB/s readall GB/s"
 * the best of five passes summing a 512 MiB array (far beyond any cache) on
 * one thread (what the runtime's product uses) and on every core.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "err.h"

static double sweep(const double *a, size_t n, int threads, double *sink)
{
    double best = 0;
    for (int pass = 0; pass < 5; pass++) {
        double s = 0, t0 = ep_now();
        /* four independent sums in registers: the adds' latency must not
         * bound the loop */
#pragma omp parallel num_threads(threads) reduction(+ : s)
        {
            double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
#pragma omp for schedule(static)
            for (size_t i = 0; i < n; i += 4) {
                s0 += a[i];
                s1 += a[i + 1];
                s2 += a[i + 2];
                s3 += a[i + 3];
            }
            s += s0 + s1 + s2 + s3;
        }
        double gbs = (double)n * sizeof *a / (ep_now() - t0) / 1e9;
        best = gbs > best ? gbs : best;
        *sink += s;
    }
    return best;
}

int main(void)
{
    size_t n = (size_t)1 << 26; /* 512 MiB of doubles */
    double *a = malloc(n * sizeof *a), sink = 0;
    if (!a)
        return 1;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        a[i] = (double)(i & 1023);
    double one = sweep(a, n, 1, &sink), all = sweep(a, n, omp_get_num_procs(), &sink);
    printf("%.2f %.2f\n", one, all);
    free(a);
    return sink == 42 ? 2 : 0; /* keep the sums */
}
