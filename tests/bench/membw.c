/*
 * membw — the machine's memory bandwidth, measured in the same run as a
 * benchmark that is bound by it (tests/bench/voxelize.sh: u_render = Ubar q
 * reads Ubar once a frame).  Prints one line:
 *   "read1 GB/s readall GB/s"
 * the best of five passes summing a 512 MiB array (far beyond any cache) on
 * one thread (what the runtime's product uses) and on every core.
 * "membw touch" prints instead the cost of a first touch of fresh memory:
 *   "4k s/GiB huge s/GiB fresh1 s/GiB fresh2 s/GiB"
 * a 256 MiB block from malloc (4 KiB pages) and from ep_malloc (marked for
 * huge pages, err.h ep_huge_pages), each written once, best of three (the
 * second and third passes get the pages the first freed); then, each after
 * 3 s idle, a 1 GiB block from ep_malloc written once by one thread and by
 * two (wall seconds a GiB): on a virtual machine whose kernel returns free
 * pages to the hypervisor (page_reporting) this is what a tool pays for
 * memory it has not had before, and what a second thread saves (chol.c).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "cli.h"

/* Seconds to write p[bytes] once on threads threads (the writes kept). */
static double write_once(char *p, size_t bytes, int threads, int value)
{
    double t0 = ep_now();
#pragma omp parallel num_threads(threads)
    {
        size_t share = bytes / (size_t)omp_get_num_threads(), t = (size_t)omp_get_thread_num();
        memset(p + t * share, value, t + 1 == (size_t)omp_get_num_threads() ? bytes - t * share : share);
    }
    volatile char seen = p[bytes / 2];
    (void)seen;
    return ep_now() - t0;
}

/* Seconds per GiB to write a 256 MiB block once, best of three. */
static double first_touch(int hinted)
{
    size_t bytes = (size_t)256 << 20;
    double best = 1e30;
    for (int pass = 0; pass < 3; pass++) {
        char *p = hinted ? ep_malloc(bytes, 1) : malloc(bytes);
        if (!p)
            return 0;
        double t = write_once(p, bytes, 1, pass + 1) * (double)(1 << 30) / (double)bytes;
        best = t < best ? t : best;
        free(p);
    }
    return best;
}

/* Seconds per GiB to write a 1 GiB ep_malloc block once on threads
 * threads, after 3 s idle (the kernel has returned free pages by then). */
static double fresh_touch(int threads)
{
    size_t bytes = (size_t)1 << 30;
    sleep(3);
    char *p = ep_malloc(bytes, 1);
    if (!p)
        return 0;
    double t = write_once(p, bytes, threads, 1);
    free(p);
    return t;
}

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

int main(int argc, char **argv)
{
    ep_cli_restart(argv); /* the OpenBLAS kernels the tools run (cli.h) */
    if (argc > 1 && !strcmp(argv[1], "touch")) {
        double small = first_touch(0), huge = first_touch(1), fresh1 = fresh_touch(1);
        printf("%.3f %.3f %.3f %.3f\n", small, huge, fresh1, fresh_touch(2));
        return 0;
    }
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
