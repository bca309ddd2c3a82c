/*
 * sdf — distance-field lookups (sdf.h) timed beside the machine's own
 * limits, measured in the same run (tests/bench/distfield.sh):
 *   sdf FIELD.h5   lookups, random (uniform in the box), coherent (a walk
 *                  of 4M steps of h/4: 96 MiB of points read once, the
 *                  field's lines as the walk reaches them) and coherent
 *                  in cache (a walk of 4096 steps queried 1024 times: the
 *                  arithmetic alone), single (ep_sdf_value, inline) and
 *                  batched (ep_sdf_values), wall and CPU nanoseconds a
 *                  query; the float-bit voxel index of 001 eq. 3.15 beside
 *                  the truncation sdf.h uses; the same loop reading the
 *                  walk's points alone (the share of a coherent single
 *                  query that is the bench's own point stream, not the
 *                  lookup: the points are made before the clock starts,
 *                  and single and batched time the same walk); the
 *                  random points' corner loads alone, no arithmetic
 *                  (corners_ns: one core's memory bound); the batch on
 *                  two threads, half the points each (wall); the
 *                  machine's dependent-load latency over 256 MiB, its rate
 *                  of independent random loads there (the floor of one
 *                  line), its sequential read rate (the bound of
 *                  streaming a query's 24 bytes of point) and the core's
 *                  clock (a chain of dependent adds: cycles a lookup)
 *   sdf tests      point-triangle tests a second on one core over cached
 *                  triangles (ep_closest_on_triangle): distfield's bound
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "closest.h"
#include "err.h"
#include "rng.h"
#include "sdf.h"
#include "sdf4.h"
#include "cli.h"

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* 001 eq. 3.15 by float bits: for n = 2^k and w = (x - x0) / side in
 * [0, 1), the mantissa of 1 + w (float) holds the voxel in its first k bits
 * and the weight in the rest. */
static inline double value_bits(const ep_sdf *s, const double p[3], int k, double side)
{
    int ijk[3];
    double w[3];
    for (int a = 0; a < 3; a++) {
        float u = (float)(1 + (p[a] - s->origin[a]) / side);
        uint32_t b;
        memcpy(&b, &u, 4);
        if (!(u >= 1 && u < 2))
            return ep_sdf_value(s, p);
        ijk[a] = (int)((b >> (23 - k)) & ((1u << k) - 1));
        w[a] = (double)(b & ((1u << (23 - k)) - 1)) / (double)(1u << (23 - k));
    }
    long m = s->n + 1, mm = m * m, id = ijk[0] + m * (ijk[1] + m * (long)ijk[2]);
    const float *v = s->value + id;
    double x0 = v[0] + w[0] * (v[1] - v[0]), x1 = v[m] + w[0] * (v[m + 1] - v[m]);
    double x2 = v[mm] + w[0] * (v[mm + 1] - v[mm]), x3 = v[mm + m] + w[0] * (v[mm + m + 1] - v[mm + m]);
    double y0 = x0 + w[1] * (x1 - x0), y1 = x2 + w[1] * (x3 - x2);
    return y0 + w[2] * (y1 - y0);
}

/* Dependent loads over 256 MiB (a random cycle): ns a load; and *indep,
 * independent loads at random places of the same array (the addresses
 * known ahead, as a batch of random lookups has them): ns a load when the
 * core overlaps as many misses as it can, the random-access bound. */
static double latency_ns(double *indep, double *stream)
{
    *indep = *stream = NAN;
    size_t n = (256u << 20) / sizeof(size_t);
    size_t *next = malloc(n * sizeof *next);
    if (!next)
        return NAN;
    ep_rng r = ep_rng_seed(5, 5);
    for (size_t i = 0; i < n; i++)
        next[i] = i;
    for (size_t i = n - 1; i > 0; i--) { /* Sattolo: one cycle */
        size_t j = (size_t)(ep_rng_uniform(&r) * i) % i, t = next[i];
        next[i] = next[j];
        next[j] = t;
    }
    size_t at = 0, loads = 1 << 22, seq = 0;
    double t0 = ep_now();
    for (int rep = 0; rep < 3; rep++) { /* sequential: 4 adder chains */
        size_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        double t2 = ep_now();
        for (size_t i = 0; i + 4 <= n; i += 4)
            s0 += next[i], s1 += next[i + 1], s2 += next[i + 2], s3 += next[i + 3];
        double ns = 1e9 * (ep_now() - t2) / (n * sizeof *next);
        *stream = rep ? fmin(*stream, ns) : ns;
        seq += s0 + s1 + s2 + s3;
    }
    t0 = ep_now();
    for (size_t i = 0; i < loads; i++)
        at = next[at];
    double t = ep_now() - t0;
    size_t sum = 0, *idx = malloc(loads * sizeof *idx);
    if (idx) {
        for (size_t i = 0; i < loads; i++)
            idx[i] = (size_t)(ep_rng_uniform(&r) * n) % n;
        double t1 = ep_now();
        for (size_t i = 0; i < loads; i++)
            sum += next[idx[i]];
        *indep = 1e9 * (ep_now() - t1) / loads;
        free(idx);
    }
    free(next);
    return at + sum + seq == (size_t)-1 ? 0 : 1e9 * t / loads;
}

/* The core's clock in GHz: a chain of dependent register adds, one a
 * cycle (CPU time, so a shared core's other threads do not count). */
static double clock_ghz(void)
{
    long x = 0, one = 1, n = 1L << 27;
    __asm__("" : "+r"(one));
    double t0 = cpu_now();
    for (long i = 0; i < n; i++)
        __asm__ volatile("add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0" : "+r"(x) : "r"(one));
    return x == 4 * n ? 4 * n / (cpu_now() - t0) / 1e9 : NAN;
}

/* The corner loads alone of n lookups whose voxels id[] are known (no
 * arithmetic, each prefetched 64 lookups ahead as a batch would): ns a
 * lookup: one core's memory bound of random lookups in this layout,
 * whatever arithmetic follows them (two cores each overlap their own
 * misses, so two threads can go below it). */
static double corners_ns(const ep_sdf *s, const long *id, long n, double *sink)
{
    long m = s->n + 1, mm = m * m;
    float sum = 0;
    double t0 = cpu_now();
    for (long i = 0; i < n; i++) {
        if (i + 64 < n)
            ep_sdf4_prefetch(s->value, s->n, id[i + 64]);
        const float *v = s->value + id[i];
        sum += v[0] + v[1] + v[m] + v[m + 1] + v[mm] + v[mm + 1] + v[mm + m] + v[mm + m + 1];
    }
    double t = cpu_now() - t0;
    *sink += sum;
    return 1e9 * t / n;
}

/* ep_sdf_values on the machine's two cores: two threads, one half of the
 * points each (sdf.h: the field is read-only, any number of threads may
 * query it).  Wall ns a query. */
static double values_2threads_ns(const ep_sdf *s, const double *p, long n, double *d)
{
    double t0 = ep_now();
    long h = n / 2;
#pragma omp parallel for num_threads(2) schedule(static, 1) /* both halves even if the team is one thread */
    for (long k = 0; k < 2; k++)
        ep_sdf_values(s, p + 3 * k * h, k ? n - h : h, d + k * h);
    return 1e9 * (ep_now() - t0) / n;
}

static void tests_rate(void)
{
    enum { NT = 4096 };
    double *x = malloc(sizeof(double) * 9 * NT), q[3], p[3] = {0.3, 0.2, 0.1}, sum = 0;
    ep_rng r = ep_rng_seed(9, 9);
    for (int i = 0; i < 9 * NT; i++)
        x[i] = ep_rng_uniform(&r);
    long reps = 0;
    double t0 = cpu_now(), t;
    do {
        for (int i = 0; i < NT; i++) {
            ep_closest_on_triangle(p, &x[9 * i], &x[9 * i + 3], &x[9 * i + 6], q);
            sum += q[0];
        }
        reps++;
    } while ((t = cpu_now() - t0) < 0.5);
    printf("%.4g\n", sum > 0 ? reps * NT / t : 0);
    free(x);
}

int main(int argc, char **argv)
{
    ep_cli_restart(argv); /* the OpenBLAS kernels the tools run (cli.h) */
    if (argc == 2 && !strcmp(argv[1], "tests")) {
        tests_rate();
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: sdf FIELD.h5 | sdf tests\n");
        return 2;
    }
    ep_sdf s;
    if (ep_sdf_open(&s, argv[1])) {
        fprintf(stderr, "sdf: %s\n", ep_errmsg());
        return 1;
    }
    const long N = 1 << 22, NC = 4096; /* points; the cached walk's */
    double *p = malloc(sizeof(double) * 3 * N), *d = malloc(sizeof(double) * N), side = s.n * s.h, sink = 0;
    ep_rng r = ep_rng_seed(1, 1);
    int k = 0;
    while ((1 << k) < s.n)
        k++;
    static const char *name[3] = {"random", "coherent", "cached"};
    for (int kind = 0; kind < 3; kind++) {
        long np = kind == 2 ? NC : N, reps = N / np;
        for (long i = 0; i < np; i++)
            for (int a = 0; a < 3; a++) {
                double x = kind == 0 || i == 0 ? s.origin[a] + ep_rng_uniform(&r) * side
                                               : p[3 * (i - 1) + a] + (ep_rng_uniform(&r) - 0.5) * 0.5 * s.h;
                p[3 * i + a] = fmin(fmax(x, s.origin[a]), s.origin[a] + 0.999999 * side);
            }
        long *id = NULL; /* the random points' voxels, for corners_ns */
        if (kind == 0 && (id = malloc(sizeof *id * np)))
            for (long i = 0; i < np; i++) {
                double w[3];
                id[i] = ep_sdf_voxel(&s, &p[3 * i], w);
            }
        double best[7][2];
        for (int v = 0; v < 7; v++)
            best[v][0] = best[v][1] = INFINITY;
        for (int rep = 0; rep < 3; rep++)
            for (int v = 0; v < 7; v++) {
                if (v == 5) { /* wall and CPU the same: one thread, nothing else */
                    if (id)
                        best[5][0] = best[5][1] = fmin(best[5][1], corners_ns(&s, id, np, &sink));
                    continue;
                }
                if (v == 6) {
                    if (kind < 2)
                        best[6][0] = best[6][1] = fmin(best[6][1], values_2threads_ns(&s, p, np, d));
                    continue;
                }
                if (v == 3 && (1 << k) != s.n)
                    continue;
                double w0 = ep_now(), c0 = cpu_now();
                for (long q = 0; q < reps; q++) {
                    if (v == 0)
                        for (long i = 0; i < np; i++)
                            sink += ep_sdf_value(&s, &p[3 * i]);
                    else if (v == 1)
                        ep_sdf_values(&s, p, np, d), sink += d[np / 2];
                    else if (v == 2)
                        for (long i = 0; i < np; i++)
                            d[i] = ep_sdf_value(&s, &p[3 * i]);
                    else if (v == 3)
                        for (long i = 0; i < np; i++)
                            sink += value_bits(&s, &p[3 * i], k, side);
                    else { /* the walk's points alone: what the single loop reads besides the field */
                        double s0 = 0, s1 = 0, s2 = 0;
                        for (long i = 0; i < np; i++)
                            s0 += p[3 * i], s1 += p[3 * i + 1], s2 += p[3 * i + 2];
                        sink += s0 + s1 + s2;
                    }
                }
                best[v][0] = fmin(best[v][0], 1e9 * (ep_now() - w0) / N);
                best[v][1] = fmin(best[v][1], 1e9 * (cpu_now() - c0) / N);
            }
        printf("%s", name[kind]);
        for (int v = 0; v < 7; v++)
            printf(" %.2f %.2f", best[v][0], best[v][1]);
        printf("\n");
        free(id);
    }
    printf("clock %.3f\n", clock_ghz());
    double indep, stream, lat = latency_ns(&indep, &stream);
    printf("latency %.1f %.1f %.4f\n", lat, indep, stream);
    if (sink == 12345.678)
        printf("\n");
    free(p);
    free(d);
    ep_sdf_free(&s);
    return 0;
}
