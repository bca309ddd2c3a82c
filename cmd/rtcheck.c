/*
 * rtcheck — a viewer-free runtime that runs what an interactive simulator runs
 * on elastoprep's files, checks the answers and times them.  See rtcheck(1).
 */
#include "cli.h"
#include "cma.h"
#include "cma_cache.h"
#include "cubic.h"
#include "err.h"
#include "h5.h"
#include "model.h"
#include "mem.h"
#include "modal.h"
#include "reduced.h"
#include "stvk.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    long contacts, trials, ops, steps, seed, threads;
    double dt, alpha, beta, mask_radius, energy_tol, reference_tol;
    int json, have_dt, have_beta;
    const char *reference, *switched;
} opts;

enum { OPT_CONTACTS = 2000, OPT_TRIALS, OPT_OPS, OPT_STEPS, OPT_DT, OPT_SEED, OPT_JSON, OPT_REF, OPT_SWITCHED,
       OPT_ALPHA, OPT_BETA, OPT_MASK, OPT_ETOL, OPT_RTOL };

static const struct option options[] = {
    {"contacts", required_argument, NULL, OPT_CONTACTS},
    {"trials", required_argument, NULL, OPT_TRIALS},
    {"ops", required_argument, NULL, OPT_OPS},
    {"steps", required_argument, NULL, OPT_STEPS},
    {"dt", required_argument, NULL, OPT_DT},
    {"seed", required_argument, NULL, OPT_SEED},
    {"json", no_argument, NULL, OPT_JSON},
    {"reference", required_argument, NULL, OPT_REF},
    {"switched", required_argument, NULL, OPT_SWITCHED},
    {"damping-mass", required_argument, NULL, OPT_ALPHA},
    {"damping-stiffness", required_argument, NULL, OPT_BETA},
    {"mask-radius", required_argument, NULL, OPT_MASK},
    {"energy-tol", required_argument, NULL, OPT_ETOL},
    {"reference-tol", required_argument, NULL, OPT_RTOL},
    {0},
};

static int nonneg(const char *opt, const char *arg, double *v)
{
    if (ep_cli_double(opt, arg, v) || !(*v >= 0))
        return ep_fail(EP_EUSAGE, "option %s: expected a number >= 0, got \"%s\"", opt, arg);
    return EP_OK;
}

static int handle(int code, const char *arg, void *ctx)
{
    opts *o = ctx;
    switch (code) {
    case OPT_CONTACTS: return ep_cli_int("--contacts", arg, 1, 100000, &o->contacts);
    case OPT_TRIALS: return ep_cli_int("--trials", arg, 1, 1000000, &o->trials);
    case OPT_OPS: return ep_cli_int("--ops", arg, 0, 1000000, &o->ops);
    case OPT_STEPS: return ep_cli_int("--steps", arg, 1, 100000000, &o->steps);
    case OPT_SEED: return ep_cli_int("--seed", arg, 0, 2147483647, &o->seed);
    case OPT_DT:
        o->have_dt = 1;
        if (ep_cli_double("--dt", arg, &o->dt) || !(o->dt > 0))
            return ep_fail(EP_EUSAGE, "option --dt: expected a time step > 0, got \"%s\"", arg);
        return EP_OK;
    case OPT_JSON: o->json = 1; return EP_OK;
    case OPT_REF: o->reference = arg; return EP_OK;
    case OPT_SWITCHED: o->switched = arg; return EP_OK;
    case OPT_ALPHA: return nonneg("--damping-mass", arg, &o->alpha);
    case OPT_BETA: o->have_beta = 1; return nonneg("--damping-stiffness", arg, &o->beta);
    case OPT_MASK: return nonneg("--mask-radius", arg, &o->mask_radius);
    case OPT_ETOL: return nonneg("--energy-tol", arg, &o->energy_tol);
    case OPT_RTOL: return nonneg("--reference-tol", arg, &o->reference_tol);
    }
    return EP_EUSAGE;
}

/* ---- the report ------------------------------------------------------------------ */

#define MAXITEMS 32

typedef struct {
    const char *path, *kind;
    int nchecks, ntimes, nfacts, failed;
    struct { const char *name; double value, tol; int pass; } check[MAXITEMS];
    struct { const char *name; double us; } time[MAXITEMS];
    struct { const char *name; double value; } fact[MAXITEMS];
} report;

/* A check passes when value <= tol (NaN fails). */
static void check(report *r, const char *name, double value, double tol)
{
    if (r->nchecks == MAXITEMS)
        return;
    int pass = value <= tol;
    r->check[r->nchecks++] = (typeof(r->check[0])){name, value, tol, pass};
    r->failed += !pass;
}

static void timing(report *r, const char *name, double us)
{
    if (r->ntimes < MAXITEMS)
        r->time[r->ntimes].name = name, r->time[r->ntimes++].us = us;
}

/* Latencies are reported as medians: the machines are shared, and a mean
 * carries every preemption and page fault of the run. */
typedef struct {
    double *v;
    long n, cap;
} samples;

static int sample(samples *s, double sec)
{
    if (s->n == s->cap && ep_grow(&s->v, (size_t)(s->cap = 2 * s->cap + 64), sizeof *s->v))
        return EP_ECOMPUTE;
    s->v[s->n++] = sec;
    return EP_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median in microseconds (sorts the samples). */
static double median_us(samples *s)
{
    qsort(s->v, (size_t)s->n, sizeof *s->v, cmp_double);
    return (s->n % 2 ? s->v[s->n / 2] : 0.5 * (s->v[s->n / 2 - 1] + s->v[s->n / 2])) * 1e6;
}

static void fact(report *r, const char *name, double value)
{
    if (r->nfacts < MAXITEMS)
        r->fact[r->nfacts].name = name, r->fact[r->nfacts++].value = value;
}

static void print_report(const report *r, int json, int quiet)
{
    if (json) {
        printf("{\"file\": \"%s\", \"kind\": \"%s\", \"pass\": %s,\n \"checks\": [", r->path, r->kind,
               r->failed ? "false" : "true");
        for (int i = 0; i < r->nchecks; i++)
            printf("%s\n  {\"name\": \"%s\", \"value\": %.6g, \"tolerance\": %.3g, \"pass\": %s}", i ? "," : "",
                   r->check[i].name, isfinite(r->check[i].value) ? r->check[i].value : -1.0, r->check[i].tol,
                   r->check[i].pass ? "true" : "false");
        printf("],\n \"timings_us\": {");
        for (int i = 0; i < r->ntimes; i++)
            printf("%s\"%s\": %.4g", i ? ", " : "", r->time[i].name, r->time[i].us);
        printf("},\n \"facts\": {");
        for (int i = 0; i < r->nfacts; i++)
            printf("%s\"%s\": %.6g", i ? ", " : "", r->fact[i].name, r->fact[i].value);
        printf("}}\n");
        return;
    }
    if (quiet)
        return;
    for (int i = 0; i < r->nfacts; i++)
        printf("rtcheck: %s: %s = %.6g\n", r->path, r->fact[i].name, r->fact[i].value);
    for (int i = 0; i < r->nchecks; i++)
        printf("rtcheck: %s: %-44s %.3e (tolerance %.1e) %s\n", r->path, r->check[i].name, r->check[i].value,
               r->check[i].tol, r->check[i].pass ? "ok" : "FAILED");
    for (int i = 0; i < r->ntimes; i++)
        printf("rtcheck: %s: %-44s %.2f us\n", r->path, r->time[i].name, r->time[i].us);
}

/* ---- shared helpers ----------------------------------------------------------------- */

static double urand(unsigned long *s) /* uniform [0, 1) */
{
    *s = *s * 6364136223846793005UL + 1442695040888963407UL;
    return (double)(*s >> 11) / 9007199254740992.0;
}

/* ||a - b||_F / ||b||_F: the relative error of a matrix as a whole. */
static double rel_frob(const double *a, const double *b, size_t n)
{
    double d = 0, m = 0;
    for (size_t i = 0; i < n; i++)
        d += (a[i] - b[i]) * (a[i] - b[i]), m += b[i] * b[i];
    return m > 0 ? sqrt(d / m) : sqrt(d);
}

/* rel_frob of two capacitance inverses over the same node order. */
static double inverse_diff(const ep_cma *a, const ep_cma *b, double *wa, double *wb)
{
    ep_cma_inverse(a, wa);
    ep_cma_inverse(b, wb);
    return rel_frob(wa, wb, 9 * (size_t)a->s * a->s);
}

static double rel_max(const double *a, const double *b, size_t n)
{
    double d = 0, m = 0;
    for (size_t i = 0; i < n; i++)
        d = fmax(d, fabs(a[i] - b[i])), m = fmax(m, fabs(b[i]));
    return m > 0 ? d / m : d;
}

/* ---- GF files: contact scenarios ------------------------------------------------------- */

typedef struct {
    ep_gfsrc *g;
    int nfree, *free;       /* free nodes with columns */
    double *dist;           /* [nfree] scratch */
    int *order;             /* [nfree] scratch */
    double diameter;
} nodes;

static const double *g_dist;
static int cmp_dist(const void *a, const void *b)
{
    double x = g_dist[*(const int *)a], y = g_dist[*(const int *)b];
    return (x > y) - (x < y);
}

/* Whether node is one of the contact set's. */
static int in_set(const ep_cma *c, int node)
{
    for (int i = 0; i < c->s; i++)
        if (c->S[i] == node)
            return 1;
    return 0;
}

/* The k free nodes nearest to node `seed` (a probe's footprint), into out. */
static void cluster(nodes *N, int seed, int k, int *out)
{
    const ep_mesh *m = &N->g->file->mesh;
    const int *rv = N->g->file->L.row_vertex;
    const double *x0 = &m->vertices[3 * (size_t)rv[seed]];
    for (int i = 0; i < N->nfree; i++) {
        const double *x = &m->vertices[3 * (size_t)rv[N->free[i]]];
        N->dist[i] = (x[0] - x0[0]) * (x[0] - x0[0]) + (x[1] - x0[1]) * (x[1] - x0[1]) + (x[2] - x0[2]) * (x[2] - x0[2]);
        N->order[i] = i;
    }
    g_dist = N->dist;
    qsort(N->order, (size_t)N->nfree, sizeof *N->order, cmp_dist);
    for (int i = 0; i < k; i++)
        out[i] = N->free[N->order[i]];
}

/* Direct dense solve of the switched problem, (E^T Xi E) p = u: the answer
 * the capacitance matrix must reproduce. */
static int direct_solve(ep_gfsrc *g, const int *S, int s, const double *u, double *p)
{
    int N = 3 * s;
    double *G = ep_malloc((size_t)N * N, sizeof *G), B[9];
    lapack_int *ipiv = ep_malloc((size_t)N, sizeof *ipiv);
    int st = G && ipiv ? EP_OK : EP_ECOMPUTE;
    for (int i = 0; !st && i < s; i++)
        for (int j = 0; j < s; j++) {
            ep_gfsrc_block(g, S[i], g->col_of_row[S[j]], B);
            for (int b = 0; b < 3; b++)
                for (int a = 0; a < 3; a++)
                    G[(size_t)(3 * i + b) * N + 3 * j + a] = B[3 * b + a];
        }
    memcpy(p, u, (size_t)N * sizeof *p);
    if (!st && LAPACKE_dgesv(LAPACK_ROW_MAJOR, N, 1, G, N, ipiv, p, 1))
        st = ep_fail(EP_ECOMPUTE, "direct solve: the contact matrix is singular");
    free(G), free(ipiv);
    return st;
}

/* Every column of the recomputed file `path` (whose fixed set adds S to
 * this one's) against the capacitance solution with S held at zero. */
static int check_switched(ep_gfsrc *g, ep_cma *c, const char *path, double *err)
{
    ep_gfsrc h;
    int st, n = g->n;
    double *vbar = NULL, *v = NULL, *pS = NULL, *zero = NULL;
    int *S = NULL, *col_row = NULL, s = 0;
    if ((st = ep_gfsrc_open(&h, path)))
        goto out;
    if (h.wavelet || h.n != n || memcmp(h.file->L.row_vertex, g->file->L.row_vertex, (size_t)n * sizeof(int))) {
        st = ep_fail(EP_EINPUT, "%s: --switched wants a dense GF file with the same rows", path);
        goto out;
    }
    if (!(S = ep_malloc((size_t)n, sizeof *S)) || !(vbar = ep_calloc(3 * (size_t)n, sizeof *vbar)) ||
        !(v = ep_malloc(3 * (size_t)n, sizeof *v)) || !(pS = ep_malloc(3 * (size_t)n, sizeof *pS)) ||
        !(zero = ep_calloc(3 * (size_t)n, sizeof *zero))) {
        st = EP_ECOMPUTE;
        goto out;
    }
    if ((st = ep_gf_layout_column_rows(&h.file->L, &col_row)))
        goto out;
    for (int r = 0; r < n; r++) {
        if (g->file->L.row_fixed[r] && !h.file->L.row_fixed[r]) {
            st = ep_fail(EP_EINPUT, "%s: row %d is fixed here but free in the reference", path, r);
            goto out;
        }
        if (h.file->L.row_fixed[r] && !g->file->L.row_fixed[r])
            S[s++] = r;
    }
    if (s == 0) {
        st = ep_fail(EP_EINPUT, "%s: fixes no node the reference leaves free", path);
        goto out;
    }
    if ((st = ep_cma_set(c, S, s)))
        goto out;
    *err = 0;
    double scale = 0;
    for (size_t i = 0; i < 9 * (size_t)h.m * n; i++)
        scale = fmax(scale, fabs(h.xi[i]));
    for (int col = 0; col < h.m; col++) {
        int r = col_row[col];
        if (g->col_of_row[r] < 0) {
            st = ep_fail(EP_EINPUT, "%s: column at row %d has no column in the reference", path, r);
            goto out;
        }
        for (int a = 0; a < 3; a++) {
            vbar[3 * r + a] = 1;
            ep_cma_solve(c, zero /* S held in place */, vbar, pS, v);
            vbar[3 * r + a] = 0;
            const double *want = &h.xi[(3 * (size_t)col + a) * 3 * n];
            for (int i = 0; i < 3 * n; i++)
                *err = fmax(*err, fabs(v[i] - want[i]) / scale);
        }
    }
out:
    ep_gfsrc_close(&h);
    free(vbar), free(v), free(pS), free(zero), free(S), free(col_row);
    return st;
}

static int run_gf(const char *path, const opts *o, report *rep)
{
    ep_gfsrc g, ref = {0};
    ep_cma c = {0}, seq = {0}, scratch = {0};
    ep_cma_cache cache;
    nodes N = {0};
    int st, haveref = 0;
    double *u = NULL, *p = NULL, *pd = NULL, *v = NULL, *vr = NULL, *pr = NULL, *rho = NULL, *ia = NULL, *ib = NULL;
    int *S = NULL, *seeds = NULL, *idx = NULL, *near = NULL;
    samples t_scratch = {0}, t_add = {0}, t_remove = {0};
    unsigned long rng = (unsigned long)o->seed * 2654435761UL + 1;
    ep_cma_cache_init(&cache, 256.0 * EP_MEM_MIB);
    if ((st = ep_gfsrc_open(&g, path)))
        goto out;
    rep->kind = g.wavelet ? "gf-wavelet" : "gf";
    int n = g.n;
    if (!(N.free = ep_malloc((size_t)n, sizeof(int))) || !(N.dist = ep_malloc((size_t)n, sizeof(double))) ||
        !(N.order = ep_malloc((size_t)n, sizeof(int)))) {
        st = EP_ECOMPUTE;
        goto out;
    }
    N.g = &g;
    for (int r = 0; r < n; r++)
        if (g.col_of_row[r] >= 0 && !g.file->L.row_fixed[r])
            N.free[N.nfree++] = r;
    int s = (int)o->contacts, pool = 3 * s;
    if (s > N.nfree) {
        st = ep_fail(EP_EUSAGE, "--contacts %d: the file has %d free nodes with GF columns", s, N.nfree);
        goto out;
    }
    pool = pool > N.nfree ? N.nfree : pool;
    N.diameter = ep_mesh_diameter(&g.file->mesh);
    if (o->reference) {
        if ((st = ep_gfsrc_open(&ref, o->reference)))
            goto out;
        haveref = 1;
        if (ref.n != n || ref.m != g.m || memcmp(ref.file->L.col_vertex, g.file->L.col_vertex, (size_t)g.m * sizeof(int))) {
            st = ep_fail(EP_EINPUT, "%s: --reference has other rows or columns than %s", o->reference, path);
            goto out;
        }
    }
    /* scratch solves the same contacts on the reference GFs */
    if ((st = ep_cma_init(&c, &g)) || (st = ep_cma_init(&seq, &g)) || (st = ep_cma_init(&scratch, haveref ? &ref : &g)) ||
        (st = ep_cma_threads(&seq, (int)o->threads)))
        goto out;
    if (!(S = ep_malloc((size_t)pool + 1, sizeof *S)) || !(near = ep_malloc((size_t)pool + 1, sizeof *near)) ||
        !(seeds = ep_malloc((size_t)o->trials, sizeof *seeds)) || !(u = ep_malloc(3 * (size_t)n, sizeof *u)) ||
        !(p = ep_malloc(3 * (size_t)n, sizeof *p)) || !(pd = ep_malloc(3 * (size_t)n, sizeof *pd)) ||
        !(pr = ep_malloc(3 * (size_t)n, sizeof *pr)) || !(v = ep_malloc(3 * (size_t)n, sizeof *v)) ||
        !(vr = ep_malloc(3 * (size_t)n, sizeof *vr)) || !(idx = ep_malloc((size_t)n, sizeof *idx)) ||
        !(rho = ep_malloc((size_t)n, sizeof *rho)) || !(ia = ep_malloc(9 * (size_t)pool * pool, sizeof *ia)) ||
        !(ib = ep_malloc(9 * (size_t)pool * pool, sizeof *ib))) {
        st = EP_ECOMPUTE;
        goto out;
    }
    double upd_err = 0, seq_err = 0, direct_err = 0, ref_disp = 0, ref_force = 0, mask_err = 0, kappa = 1;
    double t_solve = 0, t_global = 0, t_force = 0;
    long refused = 0;
    int reps = 20;
    for (long t = 0; t < o->trials; t++) {
        /* a probe lands: every fourth trial returns to an earlier spot */
        seeds[t] = t % 4 == 3 ? seeds[t - 3] : N.free[(int)(urand(&rng) * N.nfree) % N.nfree];
        for (int tries = 1;; tries++) {
            cluster(&N, seeds[t], pool, near);
            memcpy(S, near, (size_t)s * sizeof *S);
            if (ep_cma_cache_get(&cache, &c, S, s))
                break;
            double t0 = ep_now(), dt = 0;
            if (!(st = ep_cma_set(&c, S, s)) && !(dt = ep_now() - t0, st = ep_cma_set(&seq, NULL, 0)))
                for (int i = 0; i < s && !st; i++) /* not timed: s grows from 0 */
                    st = ep_cma_add(&seq, S[i]);
            if (st == EP_ECOMPUTE && tries < 20) { /* lossy GFs: a node's are a combination of the others' */
                refused++;
                seeds[t] = N.free[(int)(urand(&rng) * N.nfree) % N.nfree];
                continue;
            }
            if (st || (st = sample(&t_scratch, dt)) || (st = ep_cma_cache_put(&cache, &c)))
                goto out;
            kappa = fmax(kappa, 1 / c.rcond);
            seq_err = fmax(seq_err, inverse_diff(&seq, &c, ia, ib));
            break;
        }
        /* the probe slides: its footprint gains a random node of the 3S
         * nearest, then loses a random one, so additions are timed at S
         * nodes and deletions at S + 1 (a free choice of node drifts to 1.5 S) */
        if ((st = ep_cma_set(&seq, c.S, c.s)))
            goto out;
        for (long k = 0; k < o->ops; k++) {
            int cand, gain = seq.s <= s && seq.s < pool;
            if (!gain && seq.s <= 1)
                break; /* a footprint of all the free nodes cannot slide */
            if (gain)
                do
                    cand = near[(int)(urand(&rng) * pool) % pool];
                while (in_set(&seq, cand));
            else
                cand = seq.S[(int)(urand(&rng) * seq.s) % seq.s];
            double t0 = ep_now();
            if (!gain) {
                if ((st = ep_cma_remove(&seq, cand)))
                    goto out;
                if ((st = sample(&t_remove, ep_now() - t0)))
                    goto out;
            } else if ((st = ep_cma_add(&seq, cand)) == EP_ECOMPUTE) {
                refused++; /* a node the set's GFs already determine: another lands */
                st = EP_OK;
            } else if (st || (st = sample(&t_add, ep_now() - t0)))
                goto out;
        }
        if (o->ops) {
            ep_cma check_set;
            if ((st = ep_cma_init(&check_set, &g)) || (st = ep_cma_set(&check_set, seq.S, seq.s))) {
                ep_cma_free(&check_set);
                goto out;
            }
            upd_err = fmax(upd_err, inverse_diff(&seq, &check_set, ia, ib));
            kappa = fmax(kappa, 1 / check_set.rcond);
            ep_cma_free(&check_set);
        }
        /* contact: the footprint pushed in by 1% of the model size */
        for (int i = 0; i < s; i++)
            u[3 * i] = 0, u[3 * i + 1] = 0, u[3 * i + 2] = -0.01 * N.diameter;
        double t0 = ep_now();
        for (int k = 0; k < reps; k++)
            ep_cma_solve(&c, u, NULL, p, NULL);
        t_solve += (ep_now() - t0) / reps;
        t0 = ep_now();
        ep_cma_solve(&c, u, NULL, p, v);
        t_global += ep_now() - t0;
        double f[3];
        t0 = ep_now();
        for (int k = 0; k < reps; k++)
            ep_cma_force(&c, p, f);
        t_force += (ep_now() - t0) / reps;
        if ((st = direct_solve(&g, c.S, s, u, pd)))
            goto out;
        direct_err = fmax(direct_err, rel_max(p, pd, 3 * (size_t)s));
        if (haveref) {
            if ((st = ep_cma_set(&scratch, c.S, s)))
                goto out;
            ep_cma_solve(&scratch, u, NULL, pr, vr);
            /* what a user sees and feels: the displacement of the free nodes
             * off the footprint, and the contact force */
            double dd = 0, dn = 0, fw[3], fr[3];
            for (int q = 0; q < n; q++) {
                int inS = in_set(&c, q);
                for (int b = 0; !inS && !g.file->L.row_fixed[q] && b < 3; b++)
                    dd += (v[3 * q + b] - vr[3 * q + b]) * (v[3 * q + b] - vr[3 * q + b]), dn += vr[3 * q + b] * vr[3 * q + b];
            }
            ep_cma_force(&c, p, fw);
            ep_cma_force(&scratch, pr, fr);
            ref_disp = fmax(ref_disp, sqrt(dd / dn));
            ref_force = fmax(ref_force, rel_frob(fw, fr, 3));
        }
        /* point contact with a pressure mask at the probe's centre: the
         * masked stiffness's force, spread by the mask, moves the node by u */
        double radius = o->mask_radius > 0 ? o->mask_radius : 0.05 * N.diameter, K[9], fm[3], uc[3] = {0, 0, -0.01 * N.diameter};
        int k = ep_cma_mask(&g, seeds[t], radius, idx, rho);
        if ((st = ep_cma_mask_stiffness(&g, seeds[t], k, idx, rho, K)))
            goto out;
        for (int b = 0; b < 3; b++)
            fm[b] = K[3 * b] * uc[0] + K[3 * b + 1] * uc[1] + K[3 * b + 2] * uc[2];
        for (int q = 0; q < k; q++) {
            idx[q] = g.col_of_row[idx[q]];
            for (int a = 0; a < 3; a++)
                pd[3 * q + a] = rho[q] * fm[a];
        }
        ep_gfsrc_sum(&g, k, idx, pd, v);
        mask_err = fmax(mask_err, rel_max(&v[3 * seeds[t]], uc, 3));
    }
    fact(rep, "contact nodes", s);
    fact(rep, "trials", (double)o->trials);
    fact(rep, "update operations", (double)(t_add.n + t_remove.n));
    fact(rep, "update threads", (double)o->threads);
    fact(rep, "footprints and additions refused as singular", (double)refused);
    fact(rep, "cache hit rate", (double)cache.hits / (double)(cache.hits + cache.misses));
    /* Rounding in an inverse grows with the condition number of C: the
     * tolerance is 1e-10, or 1e-14 kappa for worse-conditioned contacts. */
    double tol_inv = fmax(1e-10, 1e-14 * kappa);
    fact(rep, "largest condition number of C", kappa);
    if (t_scratch.n)
        check(rep, "sequential additions vs from-scratch inverse", seq_err, tol_inv);
    if (o->ops)
        check(rep, "add/delete sequences vs from-scratch inverse", upd_err, tol_inv);
    check(rep, "contact tractions vs direct dense solve", direct_err, 1e-9);
    check(rep, "masked point contact reproduces displacement", mask_err, 1e-9);
    if (haveref) {
        fact(rep, "file rms_error", g.w.rms_error);
        check(rep, "displacements vs --reference (relative)", ref_disp, o->reference_tol);
        check(rep, "contact force vs --reference (relative)", ref_force, o->reference_tol);
    }
    if (o->switched) {
        double err = NAN;
        if ((st = check_switched(&g, &c, o->switched, &err)))
            goto out;
        check(rep, "switched solution vs --switched GFs", err, 1e-8);
    }
    if (t_scratch.n)
        timing(rep, "capacitance inverse from scratch", median_us(&t_scratch));
    if (t_add.n)
        timing(rep, "one-node addition", median_us(&t_add));
    if (t_remove.n)
        timing(rep, "one-node deletion", median_us(&t_remove));
    timing(rep, "contact solve (tractions at S)", t_solve / o->trials * 1e6);
    timing(rep, "global solution (all nodes)", t_global / o->trials * 1e6);
    timing(rep, "contact force", t_force / o->trials * 1e6);
out:
    ep_cma_cache_free(&cache);
    ep_cma_free(&c), ep_cma_free(&seq), ep_cma_free(&scratch);
    if (haveref)
        ep_gfsrc_close(&ref);
    ep_gfsrc_close(&g);
    free(N.free), free(N.dist), free(N.order);
    free(u), free(p), free(pd), free(pr), free(v), free(vr), free(rho), free(S), free(seeds), free(idx), free(near);
    free(ia), free(ib), free(t_scratch.v), free(t_add.v), free(t_remove.v);
    return st;
}

/* ---- cubic files: forces and dynamics ----------------------------------------------------- */

static int read_cubic(ep_h5 *f, ep_mesh *m, ep_cubic *c, double **U)
{
    hsize_t d[2] = {0, 0};
    void *p;
    int st;
    if ((st = ep_model_load(m, f)))
        return st;
    if (!m->tets || !m->material)
        return ep_fail(EP_EINPUT, "%s: a cubic file carries the tet mesh and its material", f->path);
    if ((st = ep_material_check(m->material, 0.5, f->path)) || (st = ep_h5_read(f, "/cubic/P", EP_F64, 2, d, &p)))
        return st;
    c->P = p;
    int r = c->r = (int)d[0];
    if (r < 1 || d[1] != (hsize_t)r)
        return ep_fail(EP_EINPUT, "%s: /cubic/P is not square", f->path);
    d[0] = (hsize_t)ep_cubic_npairs(r), d[1] = (hsize_t)r;
    if ((st = ep_h5_read(f, "/cubic/Q", EP_F64, 2, d, &p)))
        return st;
    c->Q = p;
    d[0] = (hsize_t)ep_cubic_ntriples(r), d[1] = (hsize_t)r;
    if ((st = ep_h5_read(f, "/cubic/S", EP_F64, 2, d, &p)))
        return st;
    c->S = p;
    d[0] = (hsize_t)r, d[1] = 3 * (hsize_t)m->nv;
    if ((st = ep_h5_read(f, "/basis/U", EP_F64, 2, d, &p)))
        return st;
    *U = p;
    size_t k[3] = {(size_t)r * r, (size_t)ep_cubic_npairs(r) * r, (size_t)ep_cubic_ntriples(r) * r};
    const double *a[3] = {c->P, c->Q, c->S};
    for (int q = 0; q < 3; q++)
        for (size_t i = 0; i < k[q]; i++)
            if (!isfinite(a[q][i]))
                return ep_fail(EP_EINPUT, "%s: /cubic/%c holds a non-finite value", f->path, "PQS"[q]);
    for (size_t i = 0; i < (size_t)r * d[1]; i++)
        if (!isfinite((*U)[i]))
            return ep_fail(EP_EINPUT, "%s: /basis/U holds a non-finite value", f->path);
    return EP_OK;
}

/* Largest vertex displacement of u = U^T q. */
static double max_disp(const double *U, int r, int nv, const double *q, double *u)
{
    double m = 0;
    memset(u, 0, 3 * (size_t)nv * sizeof *u);
    for (int i = 0; i < r; i++)
        cblas_daxpy(3 * nv, q[i], &U[(size_t)i * 3 * nv], 1, u, 1);
    for (int v = 0; v < nv; v++)
        m = fmax(m, sqrt(u[3 * v] * u[3 * v] + u[3 * v + 1] * u[3 * v + 1] + u[3 * v + 2] * u[3 * v + 2]));
    return m;
}

/* Release from q0 at rest for `steps` steps with `iterations` Newton
 * iterations per step (converged to 1e-10 when more than one): the largest
 * relative energy change from the start, the final energy over the start,
 * the largest |q| over |q0|, and the median seconds per step.  The steps are
 * timed in a run of their own, as a simulator's loop makes them: the energy
 * check reads the 1.2 MB force polynomial every step and would evict the
 * stiffness polynomial the step needs. */
static int release(const ep_cubic *c, const ep_cubic_tangent *t, const double *q0, const opts *o, double dt, double alpha,
                   double beta, int iterations, double *change, double *final, double *growth, double *sec)
{
    ep_reduced nm;
    int r = c->r, st;
    samples ts = {0};
    double *w = ep_malloc((size_t)(ep_cubic_npairs(r) + ep_cubic_ntriples(r) + 4 * r), sizeof *w), q0n = 0;
    if (!w)
        return EP_ECOMPUTE;
    if ((st = ep_reduced_init(&nm, t, dt, alpha, beta))) {
        free(w);
        return st;
    }
    nm.iterations = iterations;
    nm.tol = iterations > 1 ? 1e-10 : 0;
    ep_reduced_start(&nm, q0, NULL, NULL);
    for (long k = 0; k < o->steps && !st; k++) {
        double t0 = ep_now();
        if (!(st = ep_reduced_step(&nm, NULL)))
            st = sample(&ts, ep_now() - t0);
    }
    ep_reduced_start(&nm, q0, NULL, NULL);
    double E0 = ep_reduced_energy(c, q0, w);
    for (int i = 0; i < r; i++)
        q0n += q0[i] * q0[i];
    *change = 0, *growth = 0;
    for (long k = 0; k < o->steps && !st; k++) {
        st = ep_reduced_step(&nm, NULL);
        double E = ep_reduced_energy(c, nm.q, w), qn = 0;
        for (int i = 0; i < r; i++)
            E += 0.5 * nm.qd[i] * nm.qd[i], qn += nm.q[i] * nm.q[i];
        *change = fmax(*change, iterations > 1 ? fabs(E - E0) / E0 : (E - E0) / E0);
        *growth = fmax(*growth, sqrt(qn / q0n));
        *final = E / E0;
    }
    *sec = ts.n ? median_us(&ts) * 1e-6 : 0;
    ep_reduced_free(&nm);
    free(w), free(ts.v);
    return st;
}

static int run_cubic(ep_h5 *f, const opts *o, report *rep)
{
    ep_mesh m;
    ep_cubic c = {0};
    ep_cubic_tangent t = {0};
    ep_stvk sv = {0};
    double *U = NULL, *u = NULL, *fu = NULL, *w = NULL, *K = NULL;
    int st;
    unsigned long rng = (unsigned long)o->seed * 2654435761UL + 7;
    ep_mesh_init(&m);
    rep->kind = "cubic";
    if ((st = read_cubic(f, &m, &c, &U)) || (st = ep_cubic_tangent_prepare(&t, &c)) ||
        (st = ep_cubic_tangent_threads(&t, (int)o->threads)) ||
        (st = ep_stvk_init(&sv, &m, m.material)))
        goto out;
    int r = c.r, nv = m.nv;
    size_t nw = (size_t)(ep_cubic_npairs(r) + ep_cubic_ntriples(r) + ep_cubic_tangent_work(r) + 8 * r) + (size_t)r * r;
    if (!(u = ep_malloc(3 * (size_t)nv, sizeof *u)) || !(fu = ep_malloc(3 * (size_t)nv, sizeof *fu)) ||
        !(w = ep_malloc(nw, sizeof *w)) || !(K = ep_malloc(3 * (size_t)r * r, sizeof *K))) {
        st = EP_ECOMPUTE;
        goto out;
    }
    double *q = w + nw - (size_t)r * r, *R = q + r, *Rf = R + r, *R2 = Rf + r, *Rp = R2 + r, *Rm = Rp + r;
    double *Kfd = K + (size_t)r * r, *Kev = Kfd + (size_t)r * r, diameter = ep_mesh_diameter(&m);
    /* R(q) against U f(U^T q) at random q of 10 % model-size displacement */
    double force_err = 0, tangent_err = 0, eval_err = 0;
    for (long k = 0; k < o->trials && k < 5; k++) {
        for (int i = 0; i < r; i++)
            q[i] = urand(&rng) - 0.5;
        double s = 0.1 * diameter / max_disp(U, r, nv, q, u);
        for (int i = 0; i < r; i++)
            q[i] *= s;
        max_disp(U, r, nv, q, u);
        if ((st = ep_stvk_force(&sv, u, fu)))
            goto out;
        cblas_dgemv(CblasRowMajor, CblasNoTrans, r, 3 * nv, 1.0, U, 3 * nv, fu, 1, 0.0, Rf, 1);
        ep_cubic_force(&c, q, R, w);
        force_err = fmax(force_err, rel_max(R, Rf, (size_t)r));
        ep_cubic_tangent_eval(&t, q, R2, Kev, w);
        eval_err = fmax(eval_err, rel_max(R2, R, (size_t)r));
        double h = 1e-6 * s;
        for (int j = 0; j < r; j++) { /* tangent column j by central differences */
            double keep = q[j];
            q[j] = keep + h;
            ep_cubic_force(&c, q, Rp, w);
            q[j] = keep - h;
            ep_cubic_force(&c, q, Rm, w);
            q[j] = keep;
            for (int i = 0; i < r; i++)
                Kfd[(size_t)i * r + j] = (Rp[i] - Rm[i]) / (2 * h);
        }
        tangent_err = fmax(tangent_err, rel_max(Kev, Kfd, (size_t)r * r));
    }
    check(rep, "R(q) vs U f(U^T q), full StVK force", force_err, 1e-8);
    check(rep, "runtime R(q) vs coefficient R(q)", eval_err, 1e-10);
    check(rep, "runtime tangent vs differences of R", tangent_err, 1e-5);

    /* the basis's slowest and fastest periods; the default step resolves
     * the fastest in 20 steps */
    double *Pc = ep_malloc((size_t)r * r + r, sizeof *Pc), *ev = Pc ? Pc + (size_t)r * r : NULL;
    if (!Pc) {
        st = EP_ECOMPUTE;
        goto out;
    }
    memcpy(Pc, c.P, (size_t)r * r * sizeof *Pc);
    int bad = LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'V', 'U', r, Pc, r, ev);
    double w1 = sqrt(fmax(ev[0], 0)), wmax = sqrt(fmax(ev[r - 1], 0));
    for (int i = 0; i < r; i++)
        q[i] = Pc[(size_t)i * r]; /* column 0: the softest direction */
    free(Pc);
    if (bad || !(w1 > 0)) {
        st = ep_fail(EP_EINPUT, "%s: /cubic/P (= U K U^T) is not positive definite", f->path);
        goto out;
    }
    double s0 = 0.02 * diameter / max_disp(U, r, nv, q, u);
    for (int i = 0; i < r; i++)
        q[i] *= s0;
    /* pull along the softest direction of the basis (the lowest eigenvector
     * of P = U K U^T) to 2 % of the model size: the static solve must find
     * that shape again from rest */
    double *qs = Rp, *fpull = Rm, *fk = R2;
    ep_cubic_force(&c, q, fpull, w);
    memset(qs, 0, (size_t)r * sizeof *qs);
    int iters = 0;
    for (int k = 1; k <= 10; k++) { /* load steps keep Newton on the branch through q = 0 */
        for (int i = 0; i < r; i++)
            fk[i] = fpull[i] * k / 10;
        int it;
        if ((st = ep_reduced_static(&t, fk, qs, 50, 1e-12, &it)))
            goto out;
        iters += it;
    }
    check(rep, "static solve recovers the pulled shape", rel_max(qs, q, (size_t)r), 1e-8);
    fact(rep, "static Newton iterations (10 load steps)", iters);

    /* release: with damping (one Newton iteration per step, as a runtime
     * runs) the energy decays; without, the integrator conserves it */
    double dt = o->have_dt ? o->dt : 2 * M_PI / wmax / 20, beta = o->have_beta ? o->beta : 0.02 / w1;
    double change, final, growth, sec;
    fact(rep, "r", r);
    fact(rep, "evaluation threads", (double)o->threads);
    fact(rep, "slowest period (s)", 2 * M_PI / w1);
    fact(rep, "fastest period (s)", 2 * M_PI / wmax);
    fact(rep, "time step (s)", dt);
    fact(rep, "steps", (double)o->steps);
    if ((st = release(&c, &t, q, o, dt, o->alpha, beta, 1, &change, &final, &growth, &sec)))
        goto out;
    fact(rep, "damped: final energy / initial", final);
    check(rep, "damped: energy never rises (relative)", change, 1e-6);
    check(rep, "damped: energy decays (final / initial)", final, 1 - 1e-3);
    check(rep, "damped: bounded, max |q| / |q0|", growth, 10);
    timing(rep, "Newmark step, 1 Newton iteration", sec * 1e6);
    if ((st = release(&c, &t, q, o, dt, 0, 0, 10, &change, &final, &growth, &sec)))
        goto out;
    check(rep, "undamped: energy drift (relative)", change, o->energy_tol);
    check(rep, "undamped: bounded, max |q| / |q0|", growth, 10);
    timing(rep, "Newmark step, Newton converged", sec * 1e6);
out:
    ep_stvk_free(&sv);
    ep_cubic_tangent_free(&t);
    ep_cubic_free(&c);
    ep_mesh_free(&m);
    free(U), free(u), free(fu), free(w), free(K);
    return st;
}

/* ---- modes and mesh files ------------------------------------------------------------------ */

static int run_modes(ep_h5 *f, report *rep)
{
    ep_mesh m;
    ep_modal md = {0};
    hsize_t d[2] = {0, 0};
    void *p;
    double *lam = NULL, *U = NULL, *B = NULL, *MU = NULL;
    char *fixed = NULL;
    int st;
    ep_mesh_init(&m);
    rep->kind = "modes";
    if ((st = ep_model_load(&m, f)))
        goto out;
    if (!m.tets || !m.material) {
        st = ep_fail(EP_EINPUT, "%s: a modes file carries the tet mesh and its material", f->path);
        goto out;
    }
    if ((st = ep_h5_read(f, "/modes/eigenvalues", EP_F64, 1, d, &p)))
        goto out;
    lam = p;
    int k = (int)d[0];
    d[0] = (hsize_t)k, d[1] = 3 * (hsize_t)m.nv;
    if ((st = ep_h5_read(f, "/modes/U", EP_F64, 2, d, &p)))
        goto out;
    U = p;
    d[0] = 0;
    if ((st = ep_h5_read(f, "/basis/U", EP_F64, 2, d, &p)))
        goto out;
    B = p;
    int r = (int)d[0], nmax = k > r ? k : r;
    if (!(fixed = ep_calloc((size_t)m.nv, 1)) || !(MU = ep_malloc(3 * (size_t)m.nv * nmax, sizeof *MU))) {
        st = EP_ECOMPUTE;
        goto out;
    }
    for (int i = 0; i < m.nfixed; i++)
        fixed[m.fixed[i]] = 1;
    if ((st = ep_material_check(m.material, 0.5, f->path)) || (st = ep_modal_setup(&md, &m, m.material, fixed, 0)))
        goto out;
    const double *sets[2] = {U, B};
    int counts[2] = {k, r};
    double orth[2] = {0, 0}, resid = 0;
    for (int q = 0; q < 2; q++) {
        if ((st = ep_modal_mass_times(&md, sets[q], MU, counts[q])))
            goto out;
        for (int i = 0; i < counts[q]; i++)
            for (int j = 0; j < counts[q]; j++) {
                double dot = cblas_ddot(3 * m.nv, &sets[q][(size_t)i * 3 * m.nv], 1, &MU[(size_t)j * 3 * m.nv], 1);
                orth[q] = fmax(orth[q], fabs(dot - (i == j)));
            }
    }
    /* K psi - lambda M psi, relative to lambda |M psi| */
    double *KU = ep_malloc(3 * (size_t)m.nv * k, sizeof *KU);
    if (!KU || (st = ep_modal_stiffness_times(&md, U, KU, k)) || (st = ep_modal_mass_times(&md, U, MU, k))) {
        free(KU);
        st = st ? st : EP_ECOMPUTE;
        goto out;
    }
    for (int i = 0; i < k; i++) {
        double num = 0, den = 0;
        for (size_t e = 0; e < 3 * (size_t)m.nv; e++) {
            double mu = MU[(size_t)i * 3 * m.nv + e];
            num += (KU[(size_t)i * 3 * m.nv + e] - lam[i] * mu) * (KU[(size_t)i * 3 * m.nv + e] - lam[i] * mu);
            den += lam[i] * lam[i] * mu * mu;
        }
        resid = fmax(resid, sqrt(num / den));
    }
    free(KU);
    fact(rep, "modes", k);
    fact(rep, "basis vectors", r);
    fact(rep, "first frequency (Hz)", sqrt(fmax(lam[0], 0)) / (2 * M_PI));
    check(rep, "eigen residual |K psi - lambda M psi|", resid, 1e-6);
    check(rep, "modes M-orthonormal", orth[0], 1e-8);
    check(rep, "basis M-orthonormal", orth[1], 1e-8);
out:
    ep_modal_free(&md);
    ep_mesh_free(&m);
    free(lam), free(U), free(B), free(MU), free(fixed);
    return st;
}

static int run_mesh(ep_h5 *f, report *rep)
{
    ep_mesh m;
    int st;
    ep_mesh_init(&m);
    rep->kind = "mesh";
    if ((st = ep_model_load(&m, f)))
        goto out;
    int first, deg = ep_mesh_count_degenerate(&m, &first);
    fact(rep, "vertices", m.nv);
    fact(rep, "triangles", m.nf);
    if (m.level) {
        int L = 0;
        for (int v = 0; v < m.nv; v++)
            L = m.level[v] > L ? m.level[v] : L;
        fact(rep, "subdivision levels", L + 1);
    }
    check(rep, "degenerate triangles", deg, 0);
    if (!m.tets)
        check(rep, "closed manifold surface (0: yes)", ep_mesh_check_closed(&m) ? 1 : 0, 0);
out:
    ep_mesh_free(&m);
    return st;
}

int main(int argc, char **argv)
{
    opts o = {10, 20, 100, 1000, 1, 1, 0, 0, 0, 0, 0.01, 0.25, 0, 0, 0, NULL, NULL};
    ep_tool tool = {
        .name = "rtcheck",
        .synopsis = "FILE.h5 [--contacts S] [--trials N] [--ops N] [--steps N] [--dt T] [--seed N]\n"
                    "       [--reference GF.h5] [--switched GF.h5] [--json]",
        .purpose = "Run what a real-time simulator runs on an elastoprep file (capacitance-matrix contact\n"
                   "on gf/gf-wavelet files, reduced Newmark dynamics on cubic files), check the answers\n"
                   "and time them; also checks mesh and modes files.",
        .help = "      --contacts S        contact nodes per scenario (default 10)\n"
                "      --trials N          contact scenarios, or random force checks (default 20)\n"
                "      --ops N             random node additions/deletions per scenario (default 100)\n"
                "      --reference GF.h5   the uncompressed GFs of a gf-wavelet file: report the error\n"
                "      --reference-tol X   allowed relative error against --reference (default 0.25)\n"
                "      --switched GF.h5    GFs recomputed with more fixed nodes: the capacitance\n"
                "                          solution must reproduce every column\n"
                "      --mask-radius R     pressure-mask radius (default 5% of the model size)\n"
                "      --steps N           Newmark steps of the released model (default 1000)\n"
                "      --dt T              time step (default: 1/20 of the fastest basis period)\n"
                "      --damping-mass A    Rayleigh alpha (default 0)\n"
                "      --damping-stiffness B  Rayleigh beta (default: 1% damping of the slowest mode)\n"
                "      --energy-tol X      allowed undamped energy drift (default 0.01)\n"

                "      --seed N            random seed (default 1)\n"
                "      --json              print the report as JSON\n",
        .options = options,
        .handle = handle,
        .ctx = &o,
        .min_inputs = 1,
        .max_inputs = 1,
        .no_output = "rtcheck writes no file (redirect --json instead of -o)",
    };
    ep_cli cli;
    ep_h5 f;
    report rep = {0};
    int st;
    ep_cli_parse_or_exit(&cli, &tool, argc, argv);
    openblas_set_num_threads(1); /* a runtime's loop runs on one core... */
    o.threads = cli.threads >= 2 ? 2 : 1; /* ...unless -j 2 lends it a helper */
    rep.path = cli.inputs[0];
    if ((st = ep_h5_open(&f, cli.inputs[0], NULL)))
        ep_cli_exit(st);
    if (!strcmp(f.kind, "gf") || !strcmp(f.kind, "gf-wavelet")) {
        ep_h5_close(&f);
        st = run_gf(cli.inputs[0], &o, &rep);
    } else {
        if (!strcmp(f.kind, "cubic"))
            st = run_cubic(&f, &o, &rep);
        else if (!strcmp(f.kind, "modes"))
            st = run_modes(&f, &rep);
        else if (!strcmp(f.kind, "mesh"))
            st = run_mesh(&f, &rep);
        else
            st = ep_fail(EP_EINPUT, "%s: kind \"%s\" is not one rtcheck knows", f.path, f.kind);
        ep_h5_close(&f);
    }
    if (st)
        ep_cli_exit(st);
    print_report(&rep, o.json, cli.quiet);
    if (rep.failed) {
        char names[512] = "";
        for (int i = 0; i < rep.nchecks; i++)
            if (!rep.check[i].pass)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", names[0] ? "; " : "",
                         rep.check[i].name);
        ep_cli_exit(ep_fail(EP_ECOMPUTE, "%s: %d check%s failed: %s", rep.path, rep.failed,
                            rep.failed > 1 ? "s" : "", names));
    }
    ep_cli_exit(EP_OK);
}
