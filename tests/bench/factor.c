/*
 * factor — the numeric Cholesky factorization of a model's stiffness, by
 * CHOLMOD (cholmod_factorize under chol.c's thread settings: one core) and
 * by supernodal.h (ep_supernodal_factor) on one thread and on all, on one
 * symbolic analysis; the flops of that analysis and each rate beside the
 * dgemm of this run (issues 17 and 21: moddesc's factor on the voxel
 * dragon); and the symbolic analysis's time by cholmod_analyze (CHOLMOD's
 * default orderings of the unknowns) and by ep_chol_analyze (of the
 * vertices' 3 x 3 blocks), best of two each, the latter's factor the one
 * timed.  Each is run twice, alternating, and the better time kept: the
 * first factor of a run pays for memory fresh from the hypervisor, the
 * others reuse pages freed by the one before (DECISIONS "Memory fresh from
 * the hypervisor").  Then, on that factor, the solve of a block of 8
 * right-hand sides as moddesc's eigen solver does it (team.h
 * ep_team_solve, on one thread and on all) beside two groups of 4 each
 * solved alone on its own thread (ep_chol_rsolve: the way before it),
 * best of 5 each (DECISIONS "Team solves").
 * Usage: factor MESH [IDS]: IDS a file of fixed vertex ids (.bou); without
 * it the vertices of the mesh's lowest z are held.  E = 1e7, nu = 0.4.
 * Two lines: "bench factor: ..." and "bench factor: solves ...".
 */
#include <math.h>
#include <string.h>

#include "bench.h"
#include "chol.h"
#include "err.h"
#include "fem.h"
#include "material.h"
#include "mesh.h"
#include "model.h"
#include "team.h"
#include "select.h"
#include "supernodal.h"

/* Seconds of one factorization of A on a copy of the symbolic S: CHOLMOD
 * (threads 0) or ep_supernodal_factor on that many threads; -1 when it
 * failed, with the reason on stderr. */
static double time_factor(cholmod_factor *S, cholmod_sparse *A, int threads, cholmod_common *c)
{
    cholmod_factor *L = cholmod_copy_factor(S, c);
    int saved = omp_get_max_threads(), minor = -1, ok;
    if (!L)
        return -1;
    double t0 = ep_now();
    if (threads) {
        omp_set_num_threads(threads);
        ok = ep_supernodal_factor(L, A, &minor, c) == EP_OK;
        omp_set_num_threads(saved);
    } else {
        ok = ep_chol_factorize_cholmod(A, L, c);
        minor = c->status == CHOLMOD_NOT_POSDEF ? (int)L->minor : (int)L->n;
    }
    double t = ep_now() - t0;
    cholmod_free_factor(&L, c);
    if (!ok || minor != (int)S->n) {
        fprintf(stderr, "factor: %s failed: %s\n", threads ? "supernodal" : "CHOLMOD",
                !ok ? "out of memory" : "not positive definite (the support does not hold the mesh?)");
        return -1;
    }
    return t;
}

/* Best of 5 seconds of a solve of 8 right-hand sides on factor L: by
 * ep_team_solve on `threads` threads (groups 0), or as two groups of 4
 * by ep_chol_rsolve on two threads at once (groups 2); -1 when memory
 * cannot be had. */
static double time_solve(const cholmod_factor *L, int threads, int groups)
{
    int n = (int)L->n;
    ep_chol_rplan p;
    ep_team_plan t;
    double *B = malloc(sizeof(double) * 8 * (size_t)n), *X = malloc(sizeof(double) * 8 * (size_t)n), best = -1;
    if (!B || !X || ep_chol_rplan_init(&p, L, NULL))
        goto out;
    if (ep_team_plan_init(&t, &p) == EP_OK) {
        double *work[2] = {groups ? ep_chol_rsolve_work(&p, 4) : ep_team_work(&t, 8),
                           groups ? ep_chol_rsolve_work(&p, 4) : NULL};
        for (size_t i = 0; i < 8 * (size_t)n; i++)
            B[i] = sin(0.1 * (double)i);
        for (int rep = 0; rep < 5 && work[0] && (!groups || work[1]); rep++) {
            double t0 = ep_now();
            if (groups) {
#pragma omp parallel for num_threads(2)
                for (int g = 0; g < 2; g++)
                    ep_chol_rsolve(&p, B + 4 * (size_t)n * g, X + 4 * (size_t)n * g, 4, work[g]);
            } else
                ep_team_solve(&t, B, X, 8, work[0], threads);
            double dt = ep_now() - t0;
            best = best < 0 || dt < best ? dt : best;
        }
        free(work[0]);
        free(work[1]);
        ep_team_plan_free(&t);
    }
    ep_chol_rplan_free(&p);
out:
    free(B);
    free(X);
    return best;
}

int main(int argc, char **argv)
{
    ep_cli_restart(argv); /* the OpenBLAS kernels the tools run (cli.h) */
    if (argc < 2) {
        fprintf(stderr, "usage: factor MESH [IDS]\n");
        return 2;
    }
    ep_mesh m;
    ep_material mat;
    ep_material_init(&mat);
    mat.E = 1e7, mat.nu = 0.4;
    if (ep_model_read(&m, argv[1])) {
        fprintf(stderr, "factor: %s\n", ep_errmsg());
        return 3;
    }
    char *keep = malloc((size_t)m.nv);
    int *ids = NULL, nids = 0, *map, n;
    double zmin = INFINITY;
    for (int v = 0; v < m.nv; v++) {
        keep[v] = 1;
        zmin = fmin(zmin, m.vertices[3 * (size_t)v + 2]);
    }
    if (argc > 2 ? ep_select_read_ids(argv[2], m.nv, &ids, &nids) : EP_OK) {
        fprintf(stderr, "factor: %s\n", ep_errmsg());
        return 3;
    }
    for (int i = 0; i < nids; i++)
        keep[ids[i]] = 0;
    double tol = 1e-9 * ep_mesh_diameter(&m);
    for (int v = 0; v < m.nv && argc <= 2; v++)
        keep[v] = m.vertices[3 * (size_t)v + 2] > zmin + tol;
    cholmod_common c;
    ep_chol_start(&c);
    if (ep_fem_dofmap(&m, keep, &map, &n))
        return 1;
    cholmod_sparse *K = ep_fem_assemble(&m, &mat, EP_FEM_STIFFNESS, map, n, map, n, 1, &c);
    /* the analyses, each twice alternating (the better kept), the last one
     * ep_chol_analyze's: its factor is the one timed below */
    cholmod_factor *S = NULL;
    double t_cholmod = INFINITY, t_blocks = INFINITY, fl_cholmod = 0;
    for (int round = 0; round < 4 && K; round++) {
        cholmod_free_factor(&S, &c);
        double t0 = ep_now();
        S = round % 2 ? ep_chol_analyze(K, 3, &c) : cholmod_analyze(K, &c);
        double t = ep_now() - t0;
        if (!S)
            break;
        if (round % 2)
            t_blocks = fmin(t_blocks, t);
        else
            t_cholmod = fmin(t_cholmod, t), fl_cholmod = c.fl;
    }
    if (!S) {
        fprintf(stderr, "factor: assembly or analysis failed\n");
        return 1;
    }
    double fl = c.fl, lnz = c.lnz, g = bench_dgemm_gflops(2000), best[3] = {INFINITY, INFINITY, INFINITY};
    int threads[3] = {0, 1, omp_get_max_threads()};
    for (int round = 0; round < 2; round++)
        for (int k = 0; k < 3; k++) {
            double t = time_factor(S, K, threads[k], &c);
            if (t < 0)
                return 1;
            best[k] = fmin(best[k], t);
        }
    printf("bench factor: %s, %d unknowns, %.3g entries, %.3g flops (dgemm %.1f GFlop/s, all cores, this run): "
           "CHOLMOD %.2f s (%.1f GFlop/s); supernodal on 1 thread %.2f s (%.1f), on %d %.2f s (%.1f GFlop/s, "
           "%.0f%% of dgemm, %.2fx CHOLMOD); analysis: cholmod_analyze %.2f s (%.3g flops), ep_chol_analyze "
           "on 3 x 3 blocks %.2f s\n",
           argv[1], n, lnz, fl, g, best[0], fl / best[0] / 1e9, best[1], fl / best[1] / 1e9, threads[2], best[2],
           fl / best[2] / 1e9, 100 * fl / best[2] / 1e9 / g, best[0] / best[2], t_cholmod, fl_cholmod, t_blocks);
    cholmod_factor *L = cholmod_copy_factor(S, &c);
    int minor = -1;
    if (!L || ep_supernodal_factor(L, K, &minor, &c) || minor != (int)L->n) {
        fprintf(stderr, "factor: the factor for the solves failed\n");
        return 1;
    }
    double one = time_solve(L, 1, 0), all = time_solve(L, threads[2], 0), two = time_solve(L, 2, 2);
    if (one < 0 || all < 0 || two < 0) {
        fprintf(stderr, "factor: out of memory (the solves)\n");
        return 1;
    }
    printf("bench factor: solves of a block of 8 (%.3g flops): ep_team_solve on 1 thread %.4f s, on %d %.4f s; "
           "two groups of 4 by ep_chol_rsolve, one a thread, %.4f s\n",
           32 * lnz, one, threads[2], all, two);
    cholmod_free_factor(&L, &c);
    cholmod_free_factor(&S, &c);
    cholmod_free_sparse(&K, &c);
    cholmod_finish(&c);
    free(keep), free(ids), free(map);
    ep_mesh_free(&m);
    ep_material_free(&mat);
    return 0;
}
