/*
 * fullsim — full-space nonlinear statics and dynamics of a tet or hex model
 * under a load file: the reference every reduced model is measured
 * against (MATH.md §13; 001 §2.13).  See fullsim(1).
 */
#include "cli.h"
#include "err.h"
#include "h5.h"
#include "loads.h"
#include "mesh.h"
#include "model.h"
#include "nlsolve.h"
#include "progress.h"
#include "trajectory.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int is_static, free, lumped, law;
    double dt, alpha, beta, tol;
    long steps, every, load_steps, max_iter;
} opts;

/* What the report callback needs: the writer, the stride, the progress. */
typedef struct {
    ep_trajectory_writer w;
    long every, last, iters;
    double t0; /* the run's start */
    ep_progress progress;
} run;

static int on_step(void *ctx, const ep_nlsolve_state *s)
{
    run *r = ctx;
    int st = EP_OK;
    r->iters += s->iterations;
    if (s->step % r->every == 0 || s->step == r->last)
        st = ep_trajectory_append(&r->w, s);
    ep_progress_update(&r->progress, s->step);
    return st;
}

/* The states so far, marked incomplete, committed; then the failure's
 * message again, naming the file. */
static int keep_incomplete(ep_cli *cli, run *r, const ep_nlsolve *s, int status)
{
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", ep_errmsg());
    double per = s->last_step ? (ep_now() - r->t0) / (double)s->last_step : 0;
    if (!r->w.n || ep_trajectory_end(&r->w, 0, msg, s->hist, s->nhist, per) || ep_output_commit(&cli->out))
        return ep_fail(status, "%s", msg);
    return ep_fail(status, "%s; the %ld states before it are in %s, marked incomplete", msg, r->w.n, cli->output);
}

static int check_options(const opts *o, const ep_cli *cli)
{
    if (o->free && ep_select_given(&cli->fixed))
        return ep_fail(EP_EUSAGE, "--free and --fixed-... exclude each other");
    if (o->is_static && o->free)
        return ep_fail(EP_EUSAGE, "--static needs a support: a free body has no static equilibrium");
    if (!o->is_static && !(o->dt > 0))
        return ep_fail(EP_EUSAGE, "option --dt: expected a time step > 0 (or --static)");
    return EP_OK;
}

/* parse_command_line: the options and --help of cmd/spec/fullsim.json (scripts/toolspec.py). */
#include "fullsim_spec.h"

int main(int argc, char **argv)
{
    opts o = {.dt = NAN, .tol = 1e-8, .steps = 100, .every = 1, .load_steps = 10, .max_iter = 30};
    ep_cli cli;
    ep_mesh m = {0};
    ep_material mat = {0};
    ep_loads L = {0};
    ep_elastic b = {0};
    ep_nlsolve s = {0};
    run r = {0};
    char *fixed = NULL;
    double *u = NULL, *v = NULL, t0 = ep_now();
    int st, nfixed = 0;

    parse_command_line(&cli, &o, argc, argv);
    if ((st = check_options(&o, &cli)))
        ep_cli_exit(st);

    /* read -> validate */
    if ((st = ep_cli_read_volume(&cli, &m, cli.inputs[0])) || (st = ep_cli_material(&cli, &m, 0.5, &mat)) ||
        (!o.free && (st = ep_cli_fixed(&cli, &m, &fixed, &nfixed))) || (st = ep_loads_read(&L, cli.inputs[1], &m)))
        goto out;
    int gravity = 0;
    for (int i = 0; i < L.nitem; i++)
        gravity |= L.item[i].gravity;
    for (int e = 0; e < (mat.ne ? mat.ne : 1); e++)
        if ((!o.is_static || gravity) && isnan(ep_material_rho(&mat, e))) {
            st = ep_fail(EP_EUSAGE, "no density: give --rho (dynamics and gravity need a mass)");
            goto out;
        }
    u = ep_calloc(3 * (size_t)m.nv, sizeof *u), v = ep_calloc(3 * (size_t)m.nv, sizeof *v);
    if (!u || !v) {
        st = EP_ECOMPUTE;
        goto out;
    }
    if ((st = ep_trajectory_initial(&L.u0, m.nv, u)) || (st = ep_trajectory_initial(&L.v0, m.nv, v)))
        goto out;
    for (int i = 0; fixed && i < 3 * m.nv; i++)
        if (fixed[i / 3] && (u[i] != 0 || v[i] != 0)) {
            st = ep_fail(EP_EINPUT, "%s: the initial state moves fixed vertex %d", cli.inputs[1], i / 3 + 1);
            goto out;
        }

    /* compute, writing as it goes */
    ep_cli_stage(&cli, "set up");
    ep_nlsolve_opts so = {o.tol, (int)o.max_iter, o.load_steps, o.is_static ? 0 : o.dt, o.steps, o.alpha, o.beta};
    ep_trajectory_info info = {!o.is_static, o.lumped, ep_law_name(o.law), o.is_static ? 1.0 / o.load_steps : o.dt,
                               o.alpha, o.beta, o.tol, o.every, o.is_static ? o.load_steps : o.steps};
    ep_h5 *f;
    double t_setup = ep_now();
    if ((st = ep_elastic_init(&b, &m, &mat, o.law, fixed, o.lumped)) || (st = ep_loads_bind(&L, &b)) ||
        (st = ep_nlsolve_init(&s, &b, &L, &so)))
        goto out;
    t_setup = ep_now() - t_setup;
    if ((st = ep_cli_create_h5(&cli, "trajectory", &f)) || (st = ep_model_write(f, &m, &mat, fixed)) ||
        (st = ep_trajectory_begin(&r.w, f, m.nv, &info, &L)))
        goto out;
    r.every = o.every, r.last = info.steps;
    ep_cli_stage(&cli, "simulate and write");
    ep_progress_start(&r.progress, "fullsim", info.steps, cli.quiet);
    r.t0 = ep_now();
    st = ep_nlsolve_run(&s, u, v, on_step, &r);
    ep_progress_end(&r.progress);
    if (st) {
        st = keep_incomplete(&cli, &r, &s, st);
        goto out;
    }
    if ((st = ep_trajectory_end(&r.w, 1, NULL, s.hist, s.nhist, (ep_now() - r.t0) / (double)info.steps)) ||
        (st = ep_output_commit(&cli.out)))
        goto out;
    if (!cli.quiet) {
        long it = r.iters ? r.iters : 1;
        double work = b.t_eval + s.t_factor + s.t_solve, total = ep_now() - t0;
        printf("fullsim: %s: %s, %ld steps, %ld states, %d unknowns; %ld Newton iterations (%.2f per step), %ld "
               "factorizations (%ld shifted)\n", cli.output, o.is_static ? "static" : "dynamic", info.steps, r.w.n,
               b.ndof, r.iters, (double)r.iters / (double)info.steps, s.nfactor, s.nshift);
        printf("fullsim: setup %.3f s; per iteration %.4f s: assembly %.4f s (%ld in all), factor %.4f s (%.3g "
               "nonzeros, %.3g flops: %.2f GFlop/s), solve %.4f s; their sum %.4f s; total %.2f s\n", t_setup,
               (total - t_setup) / (double)it, b.t_eval / (double)it, b.neval, s.t_factor / (double)it, s.lnz, s.fl,
               s.t_factor > 0 ? s.fl * (double)s.nfactor / s.t_factor / 1e9 : 0.0, s.t_solve / (double)it,
               work / (double)it, total);
    }
out:
    ep_nlsolve_free(&s);
    ep_elastic_free(&b);
    ep_loads_free(&L);
    free(u), free(v), free(fixed);
    ep_material_free(&mat);
    ep_mesh_free(&m);
    ep_cli_exit(st);
}
