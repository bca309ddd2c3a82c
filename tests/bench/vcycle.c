/*
 * vcycle — one V-cycle on a multigrid file (tests/bench/vcycle.sh): the
 * median time of a cycle from zero under a gravity-like load, on one core,
 * beside the time to read the hierarchy's operators (every level's K and P)
 * from memory once at the single-thread rate the script passes (membw's
 * read1), and per tet beside Georgii's horse (002 Table 2.8: 33.3 ms for
 * 49,735 tets).  Usage: vcycle FILE.h5 READ1_GBPS [CYCLES].
 * Prints "vcycle MS bytes BYTES bound MS ratio R ns_per_tet NS speedup S
 * rate RATE cpu MS cpu_ratio R best MS once BYTES once_bound MS shape BYTES
 * shape_bound MS cached_gbps G": the median wall time of a cycle, then its
 * median CPU time (the thread's: what time-sharing on a loaded machine does
 * not stretch) and the best wall time, each beside the bound: the file's
 * operators (every level's K and P, double, both triangles) read once.
 * Then the bytes of ep_vcycle_bytes: the operators as the cycle holds them
 * read once, and as this cycle's passes read them (its shape's floor),
 * each at the same read rate; and the rate at which one core reads the
 * shape's bytes again and again (best of 20 passes: what a cache of that
 * size gives, beside membw's rate from memory).
 */
#include "err.h"
#include "mesh.h"
#include "mg_file.h"
#include "model.h"
#include "stats.h"
#include "vcycle.h"
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    ep_cli_restart(argv); /* the OpenBLAS kernels the tools run (cli.h) */
    if (argc < 3) {
        fprintf(stderr, "usage: vcycle FILE.h5 READ1_GBPS [CYCLES]\n");
        return 2;
    }
    double gbps = atof(argv[2]);
    int ncycles = argc > 3 ? atoi(argv[3]) : 30;
    ep_h5 f = {0};
    ep_mesh m = {0};
    ep_mghier h = {0};
    ep_vcycle v = {0};
    ep_stats s = {0}, sc = {0};
    int st;
    if ((st = ep_h5_open(&f, argv[1], "multigrid")) || (st = ep_model_load(&m, &f)) ||
        (st = ep_mg_file_read(&h, &f, m.nv)) || (st = ep_vcycle_init(&v, &h, NULL))) {
        fprintf(stderr, "vcycle: %s\n", ep_errmsg());
        return st;
    }
    size_t n = 3 * (size_t)m.nv;
    double *b = calloc(n, sizeof *b), *x = calloc(n, sizeof *x), bytes = 0, res[2];
    for (int i = 0; i < m.nv; i++) /* held rows are identities: a zero load there */
        b[3 * i + 2] = h.level[0].K.val[9 * (size_t)ep_bsr_find(&h.level[0].K, i, i)] == 1 ? 0 : -1;
    for (int l = 0; l < h.nlevels; l++)
        bytes += ep_bsr_bytes(&h.level[l].K) + (l + 1 < h.nlevels ? ep_csr_bytes(&h.level[l].P) : 0);
    for (int c = 0; c < ncycles; c++) {
        memset(x, 0, n * sizeof *x);
        double t0 = ep_now(), c0 = ep_stats_thread_cpu();
        ep_vcycle_cycle(&v, b, x);
        ep_stats_add(&s, ep_now() - t0);
        ep_stats_add(&sc, ep_stats_thread_cpu() - c0);
    }
    memset(x, 0, n * sizeof *x);
    double once, shape;
    ep_vcycle_bytes(&v, &once, &shape);
    size_t nc = (size_t)shape / sizeof(double);
    double *big = malloc(nc * sizeof *big), cbest = 1e30, sink = 0;
    for (size_t i = 0; i < nc; i++)
        big[i] = (double)(i & 7);
    for (int pass = 0; pass < 20; pass++) {
        double t0 = ep_now(), acc[8] = {0};
        for (size_t i = 0; i + 8 <= nc; i += 8)
            for (int j = 0; j < 8; j++)
                acc[j] += big[i + j];
        double t1 = ep_now() - t0;
        sink += acc[0] + acc[7];
        cbest = t1 < cbest ? t1 : cbest;
    }
    free(big);
    int it = ep_vcycle_solve(&v, b, x, 0, 10, NULL);
    double r10[11];
    memset(x, 0, n * sizeof *x);
    ep_vcycle_solve(&v, b, x, 0, it, r10);
    res[0] = r10[1], res[1] = r10[it];
    double best = ep_stats_min(&s), tc = ep_stats_median(&sc), t = ep_stats_median(&s), bound = bytes / (gbps * 1e9), ne = ep_mesh_nelements(&m);
    double horse = 33.3e-3 / 49735;
    printf("vcycle %.3f bytes %.0f bound %.3f ratio %.2f ns_per_tet %.1f speedup %.2f rate %.3f cpu %.3f cpu_ratio %.2f "
           "best %.3f once %.0f once_bound %.3f shape %.0f shape_bound %.3f cached_gbps %.2f\n",
           1e3 * t, bytes, 1e3 * bound, t / bound, 1e9 * t / ne, horse / (t / ne), pow(res[1] / res[0], 1.0 / (it - 1)),
           1e3 * tc, tc / bound, 1e3 * best, once, 1e3 * once / (gbps * 1e9), shape, 1e3 * shape / (gbps * 1e9),
           sink > 0 ? shape / cbest / 1e9 : 0);
    free(b), free(x);
    ep_stats_free(&s);
    ep_stats_free(&sc);
    ep_vcycle_free(&v);
    ep_mghier_free(&h);
    ep_mesh_free(&m);
    ep_h5_close(&f);
    return 0;
}
