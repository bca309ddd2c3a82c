/*
 * rtcheck — a viewer-free runtime that runs what an interactive simulator runs
 * on elastoprep's files, checks the answers and times them.  See rtcheck(1).
 *
 * The runs are library modules: rtgf.h (contact on GF files), rtcubic.h
 * (reduced dynamics on cubic files), rtmodes.h (modes and mesh files); the
 * report they fill is rtreport.h's.
 */
#include "cli.h"
#include "err.h"
#include "h5.h"
#include "rtcubic.h"
#include "rtembed.h"
#include "rtgf.h"
#include "rtmodes.h"
#include "rtreport.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    ep_rtgf_opts gf;
    ep_rtcubic_opts cubic;
    int json;
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
    long v;
    int st;
    switch (code) {
    case OPT_CONTACTS:
        if (!(st = ep_cli_int("--contacts", arg, 1, 100000, &v)))
            o->gf.contacts = (int)v;
        return st;
    case OPT_TRIALS:
        if (!(st = ep_cli_int("--trials", arg, 1, 1000000, &v)))
            o->gf.trials = o->cubic.trials = v;
        return st;
    case OPT_OPS: return ep_cli_int("--ops", arg, 0, 1000000, &o->gf.ops);
    case OPT_STEPS: return ep_cli_int("--steps", arg, 1, 100000000, &o->cubic.steps);
    case OPT_SEED:
        if (!(st = ep_cli_int("--seed", arg, 0, 2147483647, &v)))
            o->gf.seed = o->cubic.seed = (unsigned long)v;
        return st;
    case OPT_DT:
        if (ep_cli_double("--dt", arg, &o->cubic.dt) || !(o->cubic.dt > 0))
            return ep_fail(EP_EUSAGE, "option --dt: expected a time step > 0, got \"%s\"", arg);
        return EP_OK;
    case OPT_JSON: o->json = 1; return EP_OK;
    case OPT_REF: o->gf.reference = arg; return EP_OK;
    case OPT_SWITCHED: o->gf.switched = arg; return EP_OK;
    case OPT_ALPHA: return nonneg("--damping-mass", arg, &o->cubic.alpha);
    case OPT_BETA: return nonneg("--damping-stiffness", arg, &o->cubic.beta);
    case OPT_MASK: return nonneg("--mask-radius", arg, &o->gf.mask_radius);
    case OPT_ETOL: return nonneg("--energy-tol", arg, &o->cubic.energy_tol);
    case OPT_RTOL: return nonneg("--reference-tol", arg, &o->gf.reference_tol);
    }
    return EP_EUSAGE;
}

int main(int argc, char **argv)
{
    opts o = {
        .gf = {.contacts = 10, .trials = 20, .ops = 100, .seed = 1, .reference_tol = 0.25},
        .cubic = {.trials = 20, .steps = 1000, .seed = 1, .beta = NAN, .energy_tol = 0.01},
    };
    ep_tool tool = {
        .name = "rtcheck",
        .synopsis = "FILE.h5 [CUBIC.h5] [--contacts S] [--trials N] [--ops N] [--steps N] [--dt T] [--seed N]\n"
                    "       [--reference GF.h5] [--switched GF.h5] [--json]",
        .purpose = "Run what a real-time simulator runs on an elastoprep file (capacitance-matrix contact\n"
                   "on gf/gf-wavelet files, reduced Newmark dynamics on cubic files, render updates on\n"
                   "embedding files, with CUBIC.h5 timed beside the Newmark step), check the answers\n"
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
        .max_inputs = 2,
        .no_output = "rtcheck writes no file (redirect --json instead of -o)",
    };
    ep_cli cli;
    ep_h5 f = {0}, cf = {0};
    ep_rtreport rep = {0};
    int st;

    /* parse */
    ep_cli_parse_or_exit(&cli, &tool, argc, argv);
    openblas_set_num_threads(1); /* a runtime's loop runs on one core... */
    o.gf.threads = o.cubic.threads = cli.threads >= 2 ? 2 : 1; /* ...unless -j 2 lends it a helper */
    rep.path = cli.inputs[0];

    /* read -> validate -> compute: the run the file's kind calls for */
    if ((st = ep_h5_open(&f, cli.inputs[0], NULL)))
        goto out;
    if (cli.ninputs > 1 && strcmp(f.kind, "embedding")) {
        st = ep_fail(EP_EUSAGE, "a second file (%s) goes with an embedding file only", cli.inputs[1]);
        goto out;
    }
    if (!strcmp(f.kind, "embedding")) {
        ep_rtembed_opts eo = {o.cubic.steps, o.cubic.steps, o.cubic.seed};
        if (cli.ninputs < 2 || !(st = ep_h5_open(&cf, cli.inputs[1], "cubic")))
            st = ep_rtembed_run(&rep, &f, cli.ninputs > 1 ? &cf : NULL, &eo);
    } else if (!strcmp(f.kind, "gf") || !strcmp(f.kind, "gf-wavelet")) {
        ep_h5_close(&f); /* the GF run opens the file its own way */
        st = ep_rtgf_run(&rep, cli.inputs[0], &o.gf);
    } else if (!strcmp(f.kind, "cubic"))
        st = ep_rtcubic_run(&rep, &f, &o.cubic);
    else if (!strcmp(f.kind, "modes"))
        st = ep_rtmodes_run(&rep, &f);
    else if (!strcmp(f.kind, "mesh"))
        st = ep_rtmodes_mesh(&rep, &f);
    else
        st = ep_fail(EP_EINPUT, "%s: kind \"%s\" is not one rtcheck knows", f.path, f.kind);
    if (st)
        goto out;

    /* write: the report, and the verdict as the exit status */
    if (o.json || !cli.quiet)
        ep_rtreport_print(&rep, stdout, o.json);
    st = ep_rtreport_verdict(&rep);
out:
    ep_h5_close(&cf);
    ep_h5_close(&f);
    ep_cli_exit(st);
}
