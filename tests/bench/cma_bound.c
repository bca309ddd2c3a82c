/*
 * cma_bound — the capacitance inverse from scratch split into its parts and
 * set beside its flop bound (used by rtcheck.sh; issue 21 aims 3 and 4):
 * cma_bound GF.h5 S prints, on one core as a runtime runs it, the medians
 * over footprints of s nodes (each free node's s nearest, 24 of them) of
 *   set     ep_cma_set (cma.h: gather, then the symmetric form's Cholesky
 *           factor or LDL^T, kept as C^-1, or LU and inverse); how many of
 *           the footprints it did by Cholesky and by LDL^T (c->factor)
 *   lu      ep_cma_set with ep_cma_use_lu (the GFs as stored, LU)
 *   gather  ep_cma_matrix (the blocks the factorization starts from)
 *   add     one-node addition at s nodes (the set's nearest other node)
 *   reads   what an addition of lossy GFs reads (cma.h): the node's column
 *           at the s rows, then its row across the s columns
 *   indefinite  on GFs of the symmetric form, how many footprints' Ahat
 *           (cma.h) has a negative eigenvalue (dsyev), and the most
 *           negative one over the largest ("lmin")
 * and, on matrices of the same order N = 3s, the LAPACK calls alone:
 *   chol    dpotrf, N^3 / 3 flops (the factor form's work)
 *   getr    dgetrf + dgetri, 2 N^3 flops (the LU form's)
 *   sytrf   dsytrf alone (symmetric indefinite, Bunch-Kaufman), N^3 / 3
 *           flops: LAPACK's factor of what cma.c's LDL^T takes
 *   sytr    dsytrf + dsycon + dsytri2 (its inverse), N^3 flops
 *   dgemm1  one core's dgemm GFlop/s at N x N x N and at 2000
 * Times are "median/best" us.  One line: "cholesky K/24 ldlt K/24 indefinite K/24 lmin X set US lu US gather US
 * add US column US row US chol US getr US sytrf US sytr US dgemm1 G dgemm1_2000 G N N".
 */
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "bench.h"
#include "cma.h"
#include "err.h"
#include "gfsrc.h"
#include "probe.h"
#include "stats.h"

enum { FOOTPRINTS = 24 };

/* "median/best" in us: the best shows the machine's speed when others
 * leave it alone (the benchmark machine is shared). */
static const char *us(ep_stats *t, char *buf)
{
    snprintf(buf, 48, "%.0f/%.0f", ep_stats_median(t) * 1e6, ep_stats_min(t) * 1e6);
    return buf;
}

/* One core's dgemm rate at n x n x n, best of five. */
static double dgemm1(int n)
{
    double *a = malloc(sizeof *a * n * n), *c = calloc((size_t)n * n, sizeof *c), best = 0;
    for (int i = 0; i < n * n; i++)
        a[i] = (i % 7) - 3.0;
    for (int r = 0; r < 5; r++) {
        double t0 = ep_now();
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, n, a, n, 0.0, c, n);
        best = fmax(best, 2.0 * n * n * (double)n / (ep_now() - t0) / 1e9);
    }
    free(a), free(c);
    return best;
}

/* Medians (us) of the LAPACK inverses alone on an SPD matrix of order N. */
static void lapack_alone(int N, char *chol, char *getr, char *sytrf, char *sytr)
{
    double *A = malloc(sizeof *A * N * N), *X = malloc(sizeof *X * N * N), *w = malloc(sizeof *w * 64 * N), rc;
    lapack_int *ip = malloc(sizeof *ip * 2 * N);
    ep_stats tc = {0}, tg = {0}, tf = {0}, ty = {0};
    for (int i = 0; i < N; i++) /* diagonally dominant SPD */
        for (int j = 0; j < N; j++)
            A[i * N + j] = i == j ? N : 1.0 / (1 + abs(i - j));
    double an = LAPACKE_dlange_work(LAPACK_COL_MAJOR, '1', N, N, A, N, w); /* dsycon's */
    for (int r = 0; r < 15; r++) {
        memcpy(X, A, sizeof *X * N * N);
        double t0 = ep_now();
        LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', N, X, N);
        ep_stats_add(&tc, ep_now() - t0);
        memcpy(X, A, sizeof *X * N * N);
        t0 = ep_now();
        LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, N, N, X, N, ip);
        LAPACKE_dgetri_work(LAPACK_COL_MAJOR, N, X, N, ip, w, 64 * N);
        ep_stats_add(&tg, ep_now() - t0);
        memcpy(X, A, sizeof *X * N * N);
        t0 = ep_now();
        LAPACKE_dsytrf_work(LAPACK_COL_MAJOR, 'L', N, X, N, ip, w, 64 * N);
        ep_stats_add(&tf, ep_now() - t0);
        LAPACKE_dsycon_work(LAPACK_COL_MAJOR, 'L', N, X, N, ip, an, &rc, w, ip + N);
        LAPACKE_dsytri2_work(LAPACK_COL_MAJOR, 'L', N, X, N, ip, w, 64 * N);
        ep_stats_add(&ty, ep_now() - t0);
    }
    us(&ty, sytr), us(&tf, sytrf);
    ep_stats_free(&ty), ep_stats_free(&tf);
    us(&tc, chol), us(&tg, getr);
    ep_stats_free(&tc), ep_stats_free(&tg);
    free(A), free(X), free(w), free(ip);
}

int main(int argc, char **argv)
{
    ep_cli_restart(argv); /* the OpenBLAS kernels the tools run (cli.h) */
    ep_gfsrc g;
    ep_probe p = {0};
    ep_cma c = {0}, l = {0};
    int s = argc == 3 ? atoi(argv[2]) : 0;
    if (argc != 3 || s < 1 || ep_gfsrc_open(&g, argv[1]) || ep_probe_init(&p, &g) || s + 1 > p.nfree ||
        ep_cma_init(&c, &g) || ep_cma_init(&l, &g)) {
        fprintf(stderr, "cma_bound: %s\n", argc == 3 ? ep_errmsg() : "usage: cma_bound GF.h5 S");
        return 1;
    }
    openblas_set_num_threads(1); /* a runtime's loop runs on one core */
    ep_cma_use_lu(&l);
    int N = 3 * s, *near = malloc(sizeof *near * (s + 1));
    double *X = malloc(sizeof *X * N * N);
    ep_stats ts = {0}, tl = {0}, tg = {0}, ta = {0}, tc = {0}, tr = {0};
    int nchol = 0, nldlt = 0, nneg = 0;
    double *w = malloc(sizeof *w * N), *rb = malloc(sizeof *rb * 9 * s), lmin = 0;
    for (int k = 0; k < FOOTPRINTS; k++) {
        ep_probe_footprint(&p, p.free[(long)k * p.nfree / FOOTPRINTS], s + 1, near);
        double t0 = ep_now();
        if (ep_cma_set(&c, near, s))
            goto fail;
        double t1 = ep_now();
        nchol += !strcmp(c.factor, "cholesky"), nldlt += !strcmp(c.factor, "ldlt");
        if (ep_cma_set(&l, near, s))
            goto fail;
        double t2 = ep_now();
        ep_cma_matrix(&c, near, s, X, N);
        double t3 = ep_now();
        int st = ep_cma_add(&c, near[s]);
        double t4 = ep_now();
        if (st && st != EP_ECOMPUTE) /* a node the set's lossy GFs determine: not timed */
            goto fail;
        ep_stats_add(&ts, t1 - t0), ep_stats_add(&tl, t2 - t1), ep_stats_add(&tg, t3 - t2);
        if (!st)
            ep_stats_add(&ta, t4 - t3);
        t0 = ep_now();
        ep_gfsrc_plan(&g, near, s);
        ep_gfsrc_node_columns(&g, 1, &near[s], s, near, g.col);
        t1 = ep_now();
        ep_gfsrc_node_row(&g, near[s], s, near, rb);
        ep_stats_add(&tc, t1 - t0), ep_stats_add(&tr, ep_now() - t1);
        if (c.sym) { /* Ahat = Xihat D^-1: its spectrum (not timed) */
            for (int i = 0; i < N * N; i++)
                X[i] /= g.area[near[i % N / 3]];
            if (LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'U', N, X, N, w))
                goto fail;
            nneg += w[0] < 0, lmin = fmin(lmin, w[0] / w[N - 1]);
        }
    }
    char chol[48], getr[48], sytrf[48], sytr[48], b[6][48];
    lapack_alone(N, chol, getr, sytrf, sytr);
    printf("cholesky %d/%d ldlt %d/%d indefinite %d/%d lmin %.1e set %s lu %s gather %s add %s column %s row %s "
           "chol %s getr %s sytrf %s sytr %s dgemm1 %.2f dgemm1_2000 %.2f N %d\n",
           nchol, FOOTPRINTS, nldlt, FOOTPRINTS, nneg, FOOTPRINTS, lmin, us(&ts, b[0]), us(&tl, b[1]), us(&tg, b[2]),
           ta.n ? us(&ta, b[3]) : "-", us(&tc, b[4]), us(&tr, b[5]), chol, getr, sytrf, sytr, dgemm1(N), dgemm1(2000),
           N);
    return 0;
fail:
    fprintf(stderr, "cma_bound: %s\n", ep_errmsg());
    return 1;
}
