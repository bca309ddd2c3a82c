/*
 * rtmg.c — a multigrid file checked and timed (rtmg.h).
 */
#include "rtmg.h"
#include "corot.h"
#include "err.h"
#include "mesh.h"
#include "mg_file.h"
#include "model.h"
#include "stats.h"
#include "vcycle.h"
#include "warp.h"

#include <cholmod.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* 002: the horse, 49,735 tets, non-nested, 3 levels: 33.3 ms a linear
 * V-cycle (Table 2.8); corotated 285 ms assembly, 77 ms update, 74 ms
 * solve (Table 2.9, one thread). */
#define HORSE_TETS 49735.0
#define HORSE_VCYCLE_MS 33.3
#define HORSE_ASSEMBLY_MS 285.0
#define HORSE_UPDATE_MS 77.0
#define HORSE_SOLVE_MS 74.0
/* Plain V-cycles whose reductions are reported (the solve to the
 * tolerance is CG's, preconditioned by the same cycle). */
#define RTMG_PLAIN 20

typedef struct {
    ep_mesh m;
    ep_material mat;
    ep_mghier h;
    ep_vcycle v;
    ep_corot c;
    ep_warp w;
    char *fixed;
    double *b, *x, *y, *z, *res;
    cholmod_common cc;
    cholmod_sparse *K;
    cholmod_factor *L;
} run;

static void run_free(run *R)
{
    ep_warp_free(&R->w);
    ep_vcycle_free(&R->v);
    ep_corot_free(&R->c);
    ep_mghier_free(&R->h);
    cholmod_free_sparse(&R->K, &R->cc);
    cholmod_free_factor(&R->L, &R->cc);
    cholmod_finish(&R->cc);
    free(R->fixed), free(R->b), free(R->x), free(R->y), free(R->z), free(R->res);
    ep_material_free(&R->mat);
    ep_mesh_free(&R->m);
}

static double norm(const double *a, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += a[i] * a[i];
    return sqrt(s);
}

/* Q p for every 3-vector of p (n of them) into q. */
static void rotate(const double Q[3][3], const double *p, double *q, int n)
{
    for (int v = 0; v < n; v++)
        for (int i = 0; i < 3; i++)
            q[3 * v + i] = Q[i][0] * p[3 * v] + Q[i][1] * p[3 * v + 1] + Q[i][2] * p[3 * v + 2];
}

/* Gravity (0, 0, -9.81) as the load: rho V / k on each corner, zero at
 * the fixed vertices (MATH.md §12). */
static void gravity(run *R)
{
    for (int e = 0; e < R->c.ne; e++)
        for (int a = 0; a < R->c.k; a++)
            R->b[3 * (size_t)R->c.elem[(size_t)R->c.k * e + a] + 2] -= 9.81 * ep_material_rho(&R->mat, e) * R->c.vol[e] / R->c.k;
    for (int v = 0; v < R->m.nv; v++)
        if (R->fixed[v])
            R->b[3 * v] = R->b[3 * v + 1] = R->b[3 * v + 2] = 0;
}

static int load(run *R, ep_h5 *f)
{
    int st, *fx = NULL, nfx = 0;
    if ((st = ep_model_load(&R->m, f)) || (st = ep_model_read_material(&R->mat, f, ep_mesh_nelements(&R->m))) ||
        (st = ep_model_read_fixed(f, R->m.nv, &fx, &nfx)))
        return st;
    size_t n = 3 * (size_t)R->m.nv;
    R->fixed = ep_calloc((size_t)R->m.nv, 1);
    R->b = ep_calloc(n, sizeof *R->b), R->x = ep_calloc(n, sizeof *R->x);
    R->y = ep_calloc(n, sizeof *R->y), R->z = ep_calloc(n, sizeof *R->z);
    if (!R->fixed || !R->b || !R->x || !R->y || !R->z) {
        free(fx);
        return EP_ECOMPUTE;
    }
    for (int i = 0; i < nfx; i++)
        R->fixed[fx[i]] = 1;
    free(fx);
    if (isnan(ep_material_rho(&R->mat, 0)))
        return ep_fail(EP_EINPUT, "%s: /material has no density (the check loads the model by gravity)", f->path);
    if ((st = ep_mg_file_read(&R->h, f, R->m.nv)) || (st = ep_corot_build(&R->c, &R->m, &R->mat)))
        return st;
    gravity(R);
    return EP_OK;
}

/* CHOLMOD on level 0's K: the reference solution y = K^-1 b. */
static int reference(run *R)
{
    cholmod_start(&R->cc);
    R->cc.print = 0;
    if (!(R->K = ep_bsr_to_cholmod(&R->h.level[0].K, 1, &R->cc)))
        return EP_ECOMPUTE;
    if (!(R->L = cholmod_analyze(R->K, &R->cc)) || !cholmod_factorize(R->K, R->L, &R->cc) ||
        R->cc.status != CHOLMOD_OK)
        return ep_fail(EP_ECOMPUTE, "CHOLMOD could not factor level 0's operator (status %d)", R->cc.status);
    cholmod_dense B = {R->K->nrow, 1, R->K->nrow, R->K->nrow, R->b, NULL, CHOLMOD_REAL, CHOLMOD_DOUBLE};
    cholmod_dense *X = cholmod_solve(CHOLMOD_A, R->L, &B, &R->cc);
    if (!X)
        return ep_fail(EP_ECOMPUTE, "CHOLMOD's solve failed (status %d)", R->cc.status);
    memcpy(R->y, X->x, R->K->nrow * sizeof *R->y);
    cholmod_free_dense(&X, &R->cc);
    return EP_OK;
}

static double ms_median(ep_stats *s)
{
    double t = ep_stats_median(s) * 1e3;
    ep_stats_free(s);
    return t;
}

int ep_rtmg_run(ep_rtreport *rep, ep_h5 *f, const ep_rtmg_opts *o)
{
    run R = {0};
    int st, ne;
    size_t n;
    if ((st = load(&R, f)) || (st = reference(&R)) || (st = ep_vcycle_init(&R.v, &R.h, NULL)))
        goto out;
    n = 3 * (size_t)R.m.nv, ne = R.c.ne;
    if (!(R.res = ep_calloc((size_t)o->cycles + 1, sizeof *R.res))) {
        st = EP_ECOMPUTE;
        goto out;
    }

    /* linear: plain V-cycles from 0, each cycle's reduction; then CG
     * preconditioned by a V-cycle to tol, against CHOLMOD */
    int it = ep_vcycle_solve(&R.v, R.b, R.x, o->tol, (int)(o->cycles < RTMG_PLAIN ? o->cycles : RTMG_PLAIN), R.res);
    double worst = 0;
    for (int i = 1; i < it; i++) /* the first cycle may raise the 2-norm (energy falls) */
        worst = ep_rtreport_worst(worst, R.res[i + 1] / R.res[i]);
    ep_rtreport_fact(rep, "levels", R.h.nlevels);
    ep_rtreport_fact(rep, "elements", ne);
    ep_rtreport_fact(rep, "vertices", R.m.nv);
    ep_rtreport_fact(rep, "vcycles", it);
    for (int i = 0; i < it && i < 3; i++)
        ep_rtreport_fact(rep, i == 0 ? "reduction_cycle1" : i == 1 ? "reduction_cycle2" : "reduction_cycle3",
                         R.res[i + 1] / R.res[i]);
    ep_rtreport_fact(rep, "reduction_mean", it ? pow(R.res[it] / R.res[0], 1.0 / it) : 0);
    ep_rtreport_check_value(rep, "vcycle_worst_reduction_after_first", worst, 0.95);
    memset(R.x, 0, n * sizeof *R.x);
    int pit = ep_vcycle_pcg(&R.v, R.b, R.x, o->tol, (int)o->cycles, R.res);
    ep_rtreport_fact(rep, "pcg_iterations", pit);
    ep_rtreport_fact(rep, "pcg_reduction_mean", pit ? pow(R.res[pit] / R.res[0], 1.0 / pit) : 0);
    ep_rtreport_check_value(rep, "pcg_residual", R.res[pit], o->tol);
    ep_rtreport_check_value(rep, "pcg_vs_cholmod", ep_rtreport_rel_norm(R.x, R.y, n), 100 * o->tol);

    /* timed: one V-cycle from 0 (002 Table 2.8) */
    ep_stats s = {0};
    for (long t = 0; t < o->trials; t++) {
        memset(R.z, 0, n * sizeof *R.z);
        double t0 = ep_now();
        ep_vcycle_cycle(&R.v, R.b, R.z);
        ep_stats_add(&s, ep_now() - t0);
    }
    double t_cycle = ms_median(&s);
    ep_rtreport_time(rep, "vcycle", 1e3 * t_cycle);
    ep_rtreport_fact(rep, "vcycle_ns_per_tet", 1e6 * t_cycle / ne);
    ep_rtreport_fact(rep, "table2.8_horse_ns_per_tet", 1e6 * HORSE_VCYCLE_MS / HORSE_TETS);

    /* corotated: a rigid rotation Q of the rest shape, 40 degrees about (1, 2, 3) */
    double Q[3][3], ax[3] = {1, 2, 3}, th = 40 * M_PI / 180, an = norm(ax, 3);
    for (int i = 0; i < 3; i++)
        ax[i] /= an;
    for (int i = 0; i < 3; i++) /* Rodrigues */
        for (int j = 0; j < 3; j++)
            Q[i][j] = cos(th) * (i == j) + (1 - cos(th)) * ax[i] * ax[j] +
                      sin(th) * (i == j ? 0 : ((j - i + 3) % 3 == 1 ? -1 : 1) * ax[3 - i - j]);
    double *xq = ep_malloc(n, sizeof *xq), *fel = ep_malloc(n, sizeof *fel), *bq = ep_malloc(n, sizeof *bq);
    if (!xq || !fel || !bq || (st = ep_warp_init(&R.w, &R.c, &R.h.level[0].K, R.fixed))) {
        st = st ? st : EP_ECOMPUTE;
        free(xq), free(fel), free(bq);
        goto out;
    }
    rotate(Q, R.c.X, xq, R.m.nv);
    rotate(Q, R.b, bq, R.m.nv);
    /* the scale of the rigid force's rounding: the linear force K (Q X - X)
     * of the same displacement, which does not vanish (R.z, R.x as scratch) */
    for (size_t i = 0; i < n; i++)
        R.z[i] = xq[i] - R.c.X[i];
    ep_bsr_mult(&R.h.level[0].K, R.z, R.x);
    for (int v = 0; v < R.m.nv; v++)
        if (R.fixed[v])
            R.x[3 * v] = R.x[3 * v + 1] = R.x[3 * v + 2] = 0;
    double linear = norm(R.x, n), t0 = ep_now();
    ep_warp_assemble(&R.w, xq, fel);
    double t_asm = ep_now() - t0, rerr = 0;
    for (int e = 0; e < ne; e++)
        for (int i = 0; i < 9; i++)
            rerr = ep_rtreport_worst(rerr, fabs(R.w.R[9 * (size_t)e + i] - Q[i / 3][i % 3]));
    ep_rtreport_check_value(rep, "corot_rotation_error", rerr, 1e-10);
    ep_rtreport_check_value(rep, "corot_rigid_force", norm(fel, n) / fmax(linear, 1e-300), 1e-8);
    t0 = ep_now();
    if ((st = ep_vcycle_update(&R.v)))
        goto corot_out;
    double t_upd = ep_now() - t0;
    memset(R.z, 0, n * sizeof *R.z);
    t0 = ep_now();
    for (int c = 0; c < 3; c++) /* 002 Table 2.12: 2 to 3 V-cycles a step */
        ep_vcycle_cycle(&R.v, bq, R.z);
    double t_solve = ep_now() - t0;
    memset(R.z, 0, n * sizeof *R.z);
    ep_vcycle_pcg(&R.v, bq, R.z, o->tol, (int)o->cycles, NULL);
    rotate(Q, R.y, xq, R.m.nv); /* Q times CHOLMOD's linear solution */
    ep_rtreport_check_value(rep, "corot_step_vs_rotated_linear", ep_rtreport_rel_norm(R.z, xq, n), 100 * o->tol);
    ep_rtreport_time(rep, "corot_assembly", 1e6 * t_asm);
    ep_rtreport_time(rep, "corot_update", 1e6 * t_upd);
    ep_rtreport_time(rep, "corot_solve_3_vcycles", 1e6 * t_solve);
    ep_rtreport_fact(rep, "corot_assembly_ns_per_tet", 1e9 * t_asm / ne);
    ep_rtreport_fact(rep, "corot_update_ns_per_tet", 1e9 * t_upd / ne);
    ep_rtreport_fact(rep, "corot_solve_ns_per_tet", 1e9 * t_solve / ne);
    ep_rtreport_fact(rep, "table2.9_horse_assembly_ns_per_tet", 1e6 * HORSE_ASSEMBLY_MS / HORSE_TETS);
    ep_rtreport_fact(rep, "table2.9_horse_update_ns_per_tet", 1e6 * HORSE_UPDATE_MS / HORSE_TETS);
    ep_rtreport_fact(rep, "table2.9_horse_solve_ns_per_tet", 1e6 * HORSE_SOLVE_MS / HORSE_TETS);
corot_out:
    free(xq), free(fel), free(bq);
out:
    run_free(&R);
    return st;
}
