/*
 * pscycle — one pointshell contact cycle (ep_pscontact_cycle) at the
 * deepest pose of rtcheck's scripted trajectory, timed beside its bounds
 * (tests/bench/pointshell.sh):
 *   pscycle PS.h5 FIELD.h5 [READ_GBS INDEP_NS]
 * The field object is placed as rtcheck places it (rtpshell.h: its box
 * centred over the pointshell's, lowered to first touch by bisection on
 * brute force, pushed in 2 % of the pointshell's size and slid 12.5 %), at q = 0 (rtcheck's pose without a cubic file) and at a random q
 * moving the model by 1 % (U_s q and the a_ij |q_j| of the spheres at
 * work).  For each: wall and thread-CPU microseconds a cycle (best and
 * median of 31), nodes traversed, points looked up, points in contact,
 * the vertices moved and element records read; the bytes the cycle must
 * touch (each looked-up point's line of P_s, N_s, record and weights, each
 * record's corners and gradients, each vertex's row U_v and its line of
 * workspace, each node's R_i,0 and links, each inner node's a_i row, all
 * at the precision the runtime holds them, and the distinct 64-byte lines
 * of the field its lookups read; not the level lists), that over READ_GBS (membw's one-core read rate of the same
 * run) as the bandwidth bound, and the field's distinct lines times
 * INDEP_NS (sdf's independent random load of the same run: the rate at
 * which random lines arrive when their addresses are known ahead) as the
 * lookups' latency bound; the time one core takes to read as many bytes
 * kept warm in its caches (a sweep repeated, as the cycle's data is when
 * cycles repeat at one pose: the bound when the working set stays
 * cached); then the speed-up over brute force and whether
 * the cycle's answer equals brute force's bit for bit.
 * Third, at q = 0, the pose of the thesis's contact: the field object
 * lowered (at the deepest pose's slide) only until 650 points touch, the
 * points in contact of 001 Table 3.1's dragon + Buddha row (2,900 nodes
 * traversed without temporal coherence, 615 us of traversal, 750 us a
 * cycle on a 2.66 GHz Core 2), found by bisection on brute force; the
 * deepest pose holds about twelve times as many.
 * PSCYCLE_PROFILE=N in the environment runs N cycles at the deepest pose
 * first (q = 0), for perf record; N,thesis at the thesis's contact.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "err.h"
#include "h5.h"
#include "mesh.h"
#include "model.h"
#include "pscontact.h"
#include "rng.h"
#include "rtpshell.h"
#include "sort.h"
#include "cli.h"

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int cmp_line(const void *x, const void *y)
{
    uintptr_t u = *(const uintptr_t *)x, v = *(const uintptr_t *)y;
    return (u > v) - (u < v);
}

/* Distinct 64-byte lines among n addresses (sorted in place). */
static long distinct_lines(uintptr_t *a, long n)
{
    long k = 0;
    for (long i = 0; i < n; i++)
        a[i] >>= 6;
    qsort(a, (size_t)n, sizeof *a, cmp_line);
    for (long i = 0; i < n; i++)
        k += i == 0 || a[i] != a[i - 1];
    return k;
}

/* The field lines the looked-up points of the last cycle read (the eight
 * corners of each one's voxel), and their count of points. */
static long field_lines(ep_pscontact *c, const ep_sdf *s, const double *q, const ep_pscontact_pose *p, long *points)
{
    uintptr_t *a = malloc(8 * sizeof *a * (size_t)c->ps.S);
    long n = 0, m = s->n + 1;
    *points = 0;
    for (int i = 0; i < c->ps.S; i++) {
        if (c->look[i].stamp != c->cycle)
            continue;
        ++*points;
        double x[3], z[3], y[3];
        ep_pscontact_point(c, i, q, p, x);
        for (int k = 0; k < 3; k++)
            z[k] = x[k] - p->tf[k];
        for (int k = 0; k < 3; k++)
            y[k] = p->Rf[k] * z[0] + p->Rf[3 + k] * z[1] + p->Rf[6 + k] * z[2];
        double w[3];
        long id = ep_sdf_voxel(s, y, w);
        if (id < 0)
            continue;
        const float *v = s->value + id;
        for (int k = 0; k < 8; k++)
            a[n++] = (uintptr_t)(v + (k & 1) + m * (k >> 1 & 1) + m * m * (k >> 2));
    }
    long lines = distinct_lines(a, n);
    free(a);
    return lines;
}

/* Best seconds of a read sweep over bytes (4 adder chains), warm: the
 * rate one core reads a working set of the cycle's size kept in cache
 * between cycles, as the cycle's own data is when it repeats. */
static double warm_read(double bytes)
{
    size_t n = ((size_t)bytes / sizeof(double) + 3) / 4 * 4;
    double *v = malloc(n * sizeof *v), best = INFINITY, sink = 0;
    for (size_t i = 0; i < n; i++)
        v[i] = (double)(i & 255);
    for (int pass = 0; pass < 50; pass++) {
        double s0 = 0, s1 = 0, s2 = 0, s3 = 0, t0 = cpu_now();
        for (size_t i = 0; i < n; i += 4)
            s0 += v[i], s1 += v[i + 1], s2 += v[i + 2], s3 += v[i + 3];
        best = fmin(best, cpu_now() - t0);
        sink += s0 + s1 + s2 + s3;
    }
    free(v);
    return sink == -1 ? 0 : best;
}

/* The pose at the deepest pose's slide, lowered from above the
 * pointshell until 650 points touch at q (001 Table 3.1's dragon +
 * Buddha contact), by bisection on brute force; its height. */
static double thesis_pose(ep_pscontact *c, const ep_sdf *s, const ep_rtpshell_frame *B, const double *q,
                          ep_pscontact_pose *p)
{
    double lo = B->hi[2] + 0.05 * B->size, hi = B->z0 - 0.02 * B->size; /* no touch at lo */
    ep_pscontact_out b = {.g = calloc((size_t)c->ps.r + 1, sizeof(double))};
    for (int it = 0; it < 40; it++) {
        double z = 0.5 * (lo + hi);
        ep_rtpshell_place(B, z, 0.125 * B->size, p);
        ep_pscontact_brute(c, s, q, p, c->ps.L, &b);
        *(b.contacts >= 650 ? &hi : &lo) = z;
    }
    free(b.g);
    ep_rtpshell_place(B, hi, 0.125 * B->size, p);
    return hi;
}

static int same(const ep_pscontact_out *a, const ep_pscontact_out *b, int r)
{
    return !memcmp(a->F, b->F, sizeof a->F) && !memcmp(a->T, b->T, sizeof a->T) &&
           !memcmp(a->g, b->g, (size_t)r * sizeof *a->g) && a->contacts == b->contacts;
}

int main(int argc, char **argv)
{
    ep_cli_restart(argv); /* the OpenBLAS kernels the tools run (cli.h) */
    if (argc != 3 && argc != 5) {
        fprintf(stderr, "usage: pscycle PS.h5 FIELD.h5 [READ_GBS INDEP_NS]\n");
        return 2;
    }
    double gbs = argc == 5 ? atof(argv[3]) : NAN, indep = argc == 5 ? atof(argv[4]) : NAN;
    ep_pscontact c;
    ep_sdf s;
    ep_mesh fm = {0};
    ep_h5 f = {0};
    if (ep_pscontact_open(&c, argv[1]) || ep_sdf_open(&s, argv[2]) || ep_h5_open(&f, argv[2], "distfield") ||
        ep_model_load(&fm, &f) || ep_h5_close(&f)) {
        fprintf(stderr, "pscycle: %s\n", ep_errmsg());
        return 1;
    }
    const ep_pointshell *ps = &c.ps;
    int r = ps->r;
    double *q = calloc(3 * (size_t)r + 3, sizeof *q), *g = q + r, *g2 = g + r;
    ep_pscontact_out a = {.g = g}, b = {.g = g2};
    ep_pscontact_pose p;
    ep_rtpshell_frame B;
    ep_rtpshell_frame_init(&B, &c, &s, &fm, q);
    ep_rtpshell_place(&B, B.z0 - 0.02 * B.size, 0.125 * B.size, &p); /* rtcheck's deepest pose */
    const char *prof = getenv("PSCYCLE_PROFILE");
    if (prof) { /* only cycles at that pose (or the thesis's: N,thesis), for perf record */
        ep_pscontact_pose pp = p;
        if (strstr(prof, "thesis"))
            thesis_pose(&c, &s, &B, q, &pp);
        for (long k = 0, n = atol(prof); k < n; k++)
            ep_pscontact_cycle(&c, &s, q, &pp, &a);
    }
    printf("pointshell: %d points, %d levels, %d nodes, r = %d; bound through %d element records of %d corners, %d "
           "vertices; field %d^3; U_v, weights, gradients, a_ij held in %zu-byte values\n",
           ps->S, ps->L, ps->nn, r, ps->nbe, ps->k, ps->nbv, s.n, sizeof *c.Uvf);
    static const char *label[] = {"q = 0", "q moving 1 %", "the thesis's contact"};
    for (int pass = 0; pass < 3; pass++) {
        if (pass == 2) { /* q = 0, lowered until 650 points touch (001 Table 3.1) */
            memset(q, 0, (size_t)r * sizeof *q);
            double z = thesis_pose(&c, &s, &B, q, &p);
            printf("pscycle %s: the field's lowest point at z0 %+.4g of the size (z0: first touch unslid; the deepest "
                   "pose: -0.02)\n", label[pass], (z - B.z0) / B.size);
        }
        if (pass == 1) { /* q moving the model by 1 % of its size */
            ep_rng rg = ep_rng_seed(7, 39);
            double umax = 0;
            for (int j = 0; j < r; j++)
                q[j] = 2 * ep_rng_uniform(&rg) - 1;
            for (int i = 0; i < ps->S; i++) {
                double u2 = 0;
                for (int k = 0; k < 3; k++) {
                    double v = 0;
                    for (int j = 0; j < r; j++)
                        v += ps->U[((size_t)i * 3 + k) * r + j] * q[j];
                    u2 += v * v;
                }
                umax = fmax(umax, u2);
            }
            for (int j = 0; j < r; j++)
                q[j] *= umax > 0 ? 0.01 * B.size / sqrt(umax) : 0;
        }
        enum { REPS = 31 };
        double tw[REPS], tc[REPS];
        for (int k = 0; k < REPS; k++) {
            double w0 = ep_now(), c0 = cpu_now();
            ep_pscontact_cycle(&c, &s, q, &p, &a);
            tc[k] = 1e6 * (cpu_now() - c0);
            tw[k] = 1e6 * (ep_now() - w0);
        }
        long looked;
        long flines = field_lines(&c, &s, q, &p, &looked);
        double tb = INFINITY;
        for (int k = 0; k < 3; k++) {
            double w0 = cpu_now();
            ep_pscontact_brute(&c, &s, q, &p, a.depth, &b);
            tb = fmin(tb, 1e6 * (cpu_now() - w0));
        }
        ep_sort_doubles(tw, REPS);
        ep_sort_doubles(tc, REPS);
        /* bytes: each looked-up point's line (P_s, N_s, record id,
         * weights); the records those reach (corners, gradients); each
         * vertex reached its row U_v and its line of workspace (u_v, f_v
         * and their ticks); the nodes; the inner nodes' a_i; the field's
         * lines */
        ep_pscontact_cycle(&c, &s, q, &p, &a); /* the cycle's stamps again (brute force stamped all) */
        double es = sizeof *c.Uvf, k = ps->k; /* the rows, weights and gradients in es */
        long nrec = 0, nrecc = 0, nvert = 0;
        char *seen = calloc((size_t)ps->nbe + 1, 2);
        for (int i = 0; i < ps->S && r; i++)
            if (c.look[i].stamp == c.cycle && !seen[ps->belem[i]]++)
                nrec++;
        for (int e = 0; e < a.contacts && r; e++)
            if (!seen[ps->nbe + 1 + ps->belem[c.contact[e]]]++)
                nrecc++;
        free(seen);
        for (int v = 0; v < ps->nbv; v++)
            nvert += c.vw[8 * (size_t)v + 3] == (double)c.tick;
        double row = k == 8 ? 96 : 64, node = 8 + 12.0; /* a point's line (P_s, N_s, record, weights); a node: R_i,0,
                                                             point, first child, children */
        double vbytes = nvert * (3.0 * r * es + 64) + nrec * 4 * k * es; /* a record: corners and gradients */
        double bytes = a.lookups * row + vbytes + a.traversed * node + a.inner * r * es +
                       64.0 * flines;
        double lines = flines;
        double bw_us = bytes / (gbs * 1e3), lat_us = lines * indep * 1e-3, warm_us = 1e6 * warm_read(bytes);
        printf("pscycle %s: %ld nodes traversed, %ld points looked up, %d in contact, depth %d; %ld vertices moved "
               "(%.2f a point looked up), %d with a force; %ld element records looked up, %ld in contact\n",
               label[pass], a.traversed, a.lookups, a.contacts, a.depth, nvert,
               (double)nvert / (a.lookups ? a.lookups : 1), c.nfv, nrec, nrecc);
        printf("pscycle %s: %.1f us wall best, %.1f median; %.1f us CPU best, %.1f median (target 150 us: %s%s)\n",
               label[pass], tw[0], tw[REPS / 2], tc[0], tc[REPS / 2], tc[REPS / 2] <= 150 ? "met" : "MISSED",
               pass == 2 ? "; the thesis: 2,900 nodes, 615 us traversal, 750 us cycle" : "");
        printf("pscycle %s: bound: %.3g bytes (%.0f a contact: %.0f B a point looked up, %.3g the "
               "vertices and records, %ld inner nodes' a_i, %ld distinct field lines) at %.2f GB/s (one core's read rate, this run): %.1f us; the "
               "field's %.0f lines at %.2f ns an independent random load (this run): %.1f us; the cycle (CPU best) "
               "takes %.1fx the larger\n",
               label[pass], bytes, bytes / (a.contacts ? a.contacts : 1), row, vbytes, a.inner, flines,
               gbs, bw_us, lines, indep, lat_us, tc[0] / fmax(bw_us, lat_us));
        printf("pscycle %s: warm bound: one core reads the same %.3g bytes in cache (a sequential sweep, repeated, "
               "CPU) in %.1f us (%.1f GB/s): the cycle takes %.1fx that\n",
               label[pass], bytes, warm_us, bytes / warm_us * 1e-3, tc[0] / warm_us);
        printf("pscycle %s: %.1f ns CPU a contact, %.1f ns a node (%.1f nodes a us); brute force %.0f us CPU: %.1fx; "
               "traversal %s brute force\n",
               label[pass], 1e3 * tc[0] / (a.contacts ? a.contacts : 1), 1e3 * tc[0] / a.traversed,
               a.traversed / tc[0], tb, tb / tc[0], same(&a, &b, r) ? "equals (bit for bit)" : "DIFFERS FROM");
    }
    free(q);
    ep_mesh_free(&fm);
    ep_sdf_free(&s);
    ep_pscontact_free(&c);
    return 0;
}
