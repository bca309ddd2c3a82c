/*
 * lu.c — the dense LU over MPI against LAPACK in the same run (issue 43;
 * MATH.md §15): pdgetrf on an n x n matrix over the run's ranks (the grid
 * bemsolve-mpi picks, blocks of EP_BEMMPI_NB), then pdgetrs on 3 x 128
 * right-hand sides; on one rank also LAPACK's dgetrf and dgetrs on the same
 * matrix, one thread and all threads.  Prints "lu P=... pdgetrf G GFlop/s
 * (G a rank) pdgetrs ..." lines that tests/bench/mpi.sh reads.
 * usage: mpirun -np P lu N
 */
#include "bemmpi.h"
#include "err.h"

#include <lapacke.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A diagonally dominant matrix entry, the same from any rank. */
static double entry(long i, long j, int n) { return (i == j ? n : 0) + (double)((i * 7 + j * 13) % 17) / 17.0 - 0.5; }

static void serial(int n, int nrhs, int threads)
{
    double *a = malloc(sizeof(double) * (size_t)n * n), *b = malloc(sizeof(double) * (size_t)n * nrhs);
    int *ipiv = malloc(sizeof(int) * (size_t)n);
    for (long j = 0; j < n; j++)
        for (long i = 0; i < n; i++)
            a[i + j * n] = entry(i, j, n);
    for (size_t k = 0; k < (size_t)n * nrhs; k++)
        b[k] = 1.0 + (double)(k % 5);
    omp_set_num_threads(threads);
    double t0 = ep_now();
    LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, a, n, ipiv);
    double t1 = ep_now();
    LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'N', n, nrhs, a, n, ipiv, b, n);
    double t2 = ep_now();
    printf("lu serial threads=%d n=%d: dgetrf %.2f GFlop/s (%.2f s), dgetrs %.2f GFlop/s\n", threads, n,
           2.0 / 3.0 * n * (double)n * n / (t1 - t0) / 1e9, t1 - t0, 2.0 * n * (double)n * nrhs / (t2 - t1) / 1e9);
    free(a), free(b), free(ipiv);
}

int main(int argc, char **argv)
{
    int rank = ep_ranks_start(&argc, &argv), n = argc > 1 ? atoi(argv[1]) : 3000, nrhs = 384, one = 1, zero = 0,
        nb = EP_BEMMPI_NB, info;
    ep_ranks_grid g;
    if (ep_ranks_grid_init(&g, NULL))
        return 2;
    if (g.size == 1 && rank == 0) {
        serial(n, nrhs, 1);
        serial(n, nrhs, omp_get_num_procs());
    }
    omp_set_num_threads(1);
    int locr = numroc_(&n, &nb, &g.myrow, &zero, &g.pr), locc = numroc_(&n, &nb, &g.mycol, &zero, &g.pc);
    int locq = numroc_(&nrhs, &nb, &g.mycol, &zero, &g.pc), lld = locr > 1 ? locr : 1, da[9], db[9];
    double *a = malloc(sizeof(double) * (size_t)lld * (locc > 1 ? locc : 1)),
           *b = malloc(sizeof(double) * (size_t)lld * (locq > 1 ? locq : 1));
    int *ipiv = malloc(sizeof(int) * ((size_t)locr + nb));
    for (int lj = 0; lj < locc; lj++)
        for (int li = 0; li < locr; li++) {
            long i = (long)(li / nb * g.pr + g.myrow) * nb + li % nb, j = (long)(lj / nb * g.pc + g.mycol) * nb + lj % nb;
            a[li + (size_t)lj * lld] = entry(i, j, n);
        }
    for (size_t k = 0; k < (size_t)lld * locq; k++)
        b[k] = 1.0 + (double)(k % 5);
    descinit_(da, &n, &n, &nb, &nb, &zero, &zero, &g.ctxt, &lld, &info);
    descinit_(db, &n, &nrhs, &nb, &nb, &zero, &zero, &g.ctxt, &lld, &info);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = ep_now();
    pdgetrf_(&n, &n, a, &one, &one, da, ipiv, &info);
    MPI_Barrier(MPI_COMM_WORLD);
    double t1 = ep_now();
    pdgetrs_("N", &n, &nrhs, a, &one, &one, da, ipiv, b, &one, &one, db, &info);
    MPI_Barrier(MPI_COMM_WORLD);
    double t2 = ep_now(), lu = 2.0 / 3.0 * n * (double)n * n / (t1 - t0) / 1e9,
           so = 2.0 * n * (double)n * nrhs / (t2 - t1) / 1e9;
    if (rank == 0)
        printf("lu P=%d grid=%dx%d n=%d: pdgetrf %.2f GFlop/s (%.2f a rank, %.2f s), pdgetrs %.2f GFlop/s (%.2f a rank)\n",
               g.size, g.pr, g.pc, n, lu, lu / g.size, t1 - t0, so, so / g.size);
    free(a), free(b), free(ipiv);
    ep_ranks_grid_free(&g);
    return 0;
}
