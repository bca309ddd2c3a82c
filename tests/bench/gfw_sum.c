/*
 * gfw_sum — fast summation of wavelet GFs against dense summation (used by
 * gfcompress.sh): gfw_sum GF.h5 GFW.h5 prints, on one core, the time per
 * column summed (sparse wavelet blocks, then one inverse transform) for s = 1,
 * 10 and 100 columns beside the dense 3x3-block summation of the same columns
 * from /gf/xi, and the inverse transform's time per vertex (000 §3.3,
 * Fig. 7.11).  Lines: "s us_wavelet_per_col us_dense_per_col" and
 * "inverse us ns_per_vertex".
 */
#include <string.h>

#include "bench.h"
#include "err.h"
#include "gfw.h"
#include "rng.h"

int main(int argc, char **argv)
{
    ep_cli_restart(argv); /* the OpenBLAS kernels the tools run (cli.h) */
    ep_gf_file g;
    ep_gfw r;
    if (argc != 3 || ep_gf_file_open(&g, argv[1], "gf") || ep_gfw_open(&r, argv[2])) {
        fprintf(stderr, "gfw_sum: %s\n", argc == 3 ? ep_errmsg() : "usage: gfw_sum GF.h5 GFW.h5");
        return 1;
    }
    openblas_set_num_threads(1); /* a runtime's loop runs on one core */
    int n = g.L.n, m = g.L.m;
    size_t n3 = 3 * (size_t)n;
    double *xi = malloc(sizeof *xi * 3 * (size_t)m * n3), *acc = malloc(sizeof *acc * n3),
           *out = malloc(sizeof *out * n3), *dense = malloc(sizeof *dense * n3), loads[300];
    int cols[100];
    if (!xi || ep_gf_file_rows(&g, 0, 3L * m, xi))
        return 1;
    ep_rng rng = ep_rng_seed(1, 0);
    for (int i = 0; i < 300; i++)
        loads[i] = ep_rng_uniform(&rng) - 0.5;
    int counts[3] = {1, 10, 100};
    for (int q = 0; q < 3; q++) {
        int s = counts[q] < m ? counts[q] : m;
        for (int i = 0; i < s; i++)
            cols[i] = (int)((long)i * 7919 % m);
        int reps = 20000 / s + 5;
        double t0 = ep_now();
        for (int k = 0; k < reps; k++)
            ep_gfw_sum(&r, s, cols, loads, acc, out);
        double tw = (ep_now() - t0) / reps;
        t0 = ep_now();
        for (int k = 0; k < reps; k++) {
            memset(dense, 0, sizeof *dense * n3);
            for (int i = 0; i < s; i++) /* dense[j] += sum_a xi[3c+a][j] p_a */
                cblas_dgemv(CblasRowMajor, CblasTrans, 3, (int)n3, 1.0, &xi[3 * (size_t)cols[i] * n3], (int)n3,
                            &loads[3 * i], 1, 1.0, dense, 1);
        }
        double td = (ep_now() - t0) / reps;
        printf("%d %.3f %.3f\n", s, tw / s * 1e6, td / s * 1e6);
    }
    int reps = 2000;
    double t0 = ep_now();
    for (int k = 0; k < reps; k++)
        ep_wavelet_inverse(&r.W, 3, acc);
    double ti = (ep_now() - t0) / reps;
    printf("inverse %.3f %.3f\n", ti * 1e6, ti / n * 1e9);
    ep_gfw_close(&r);
    ep_gf_file_close(&g);
    free(xi), free(acc), free(out), free(dense);
    return 0;
}
