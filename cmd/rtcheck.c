/*
 * rtcheck — a viewer-free runtime that runs what an interactive simulator runs
 * on elastoprep's files, checks the answers and times them.  See rtcheck(1).
 *
 * The runs are library modules: rtgf.h (contact on GF files), rtcubic.h
 * (reduced dynamics on cubic files), rtcubature.h (cubature files), rtembed.h (render meshes on embedding
 * files), rtmodes.h (modes and mesh files), rtdist.h (distance fields),
 * rtmg.h (multigrid files); the report they fill is rtreport.h's.
 */
#include "cli.h"
#include "err.h"
#include "h5.h"
#include "rtcubature.h"
#include "rtcubic.h"
#include "rtdist.h"
#include "rtpshell.h"
#include "rtembed.h"
#include "rtgf.h"
#include "rtmg.h"
#include "rtmodes.h"
#include "rtref.h"
#include "rtreport.h"
#include "rtzones.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    ep_rtgf_opts gf;
    ep_rtcubic_opts cubic;
    long contacts, trials, seed; /* copied into gf and cubic */
    int json, zones;
} opts;

/* parse_command_line: the options and --help of cmd/spec/rtcheck.json (scripts/toolspec.py). */
#include "rtcheck_spec.h"

int main(int argc, char **argv)
{
    opts o = {
        .gf = {.ops = 100, .reference_tol = 0.25},
        .cubic = {.steps = 1000, .beta = NAN, .energy_tol = 0.01},
        .contacts = 10, .trials = 20, .seed = 1,
    };
    ep_cli cli;
    ep_h5 f = {0}, cf = {0}, rf = {0};
    ep_rtreport rep = {0};
    int st;

    /* parse */
    parse_command_line(&cli, &o, argc, argv);
    o.gf.contacts = (int)o.contacts;
    o.gf.trials = o.cubic.trials = o.trials;
    o.gf.seed = o.cubic.seed = (unsigned long)o.seed;
    openblas_set_num_threads(1); /* a runtime's loop runs on one core... */
    o.gf.threads = o.cubic.threads = cli.threads >= 2 ? 2 : 1; /* ...unless -j 2 lends it a helper */
    rep.path = cli.inputs[0];

    /* read -> validate -> compute: the run the file's kind calls for */
    if (o.zones) { /* GF files of zones, bonded */
        ep_rtzones_opts zo = {(int)o.contacts, o.trials, (unsigned long)o.seed, o.gf.reference, o.gf.reference_tol};
        if (!(st = ep_rtzones_run(&rep, cli.inputs, cli.ninputs, &zo)) && (o.json || !cli.quiet))
            ep_rtreport_print(&rep, stdout, o.json);
        st = st ? st : ep_rtreport_verdict(&rep);
        goto out;
    }
    if ((st = ep_h5_open(&f, cli.inputs[0], NULL)))
        goto out;
    if (cli.ninputs > (strcmp(f.kind, "pointshell") ? 2 : 3)) { /* a pointshell: its field and its cubic file */
        st = ep_fail(EP_EUSAGE, "%d files: more than %s go with --zones only", cli.ninputs,
                     strcmp(f.kind, "pointshell") ? "two" : "three");
        goto out;
    }
    if (o.gf.reference && strcmp(f.kind, "gf") && strcmp(f.kind, "gf-wavelet")) { /* a reduced model's error */
        if (!(st = ep_h5_open(&rf, o.gf.reference, "trajectory")) &&
            !(st = ep_rtref_run(&rep, &rf, &f, o.gf.reference_tol)) && (o.json || !cli.quiet))
            ep_rtreport_print(&rep, stdout, o.json);
        st = st ? st : ep_rtreport_verdict(&rep);
        goto out;
    }
    if (!strcmp(f.kind, "pointshell")) { /* with DIST.h5 [CUBIC.h5]; --steps: the trajectory's cycles */
        ep_rtpshell_opts po = {o.cubic.steps < 10 ? 10 : o.cubic.steps, 50 * o.trials, (unsigned long)o.seed};
        if (cli.ninputs < 2)
            st = ep_fail(EP_EUSAGE, "a pointshell file goes with a distfield file (and the cubic file of its model)");
        else if (!(st = ep_h5_open(&rf, cli.inputs[1], "distfield")) &&
                 (cli.ninputs < 3 || !(st = ep_h5_open(&cf, cli.inputs[2], "cubic"))))
            st = ep_rtpshell_run(&rep, &f, &rf, cli.ninputs > 2 ? &cf : NULL, &po);
        goto report;
    }
    ep_cli_stage(&cli, "check");
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
    else if (!strcmp(f.kind, "cubature")) { /* --trials N: 10 N timed evaluations */
        ep_rtcubature_opts co = {o.cubic.steps, 10 * o.trials, (unsigned long)o.seed};
        st = ep_rtcubature_run(&rep, &f, &co);
    } else if (!strcmp(f.kind, "modes"))
        st = ep_rtmodes_run(&rep, &f);
    else if (!strcmp(f.kind, "mesh"))
        st = ep_rtmodes_mesh(&rep, &f);
    else if (!strcmp(f.kind, "distfield")) /* --trials N: 50 N brute-force samples */
        st = ep_rtdist_run(&rep, &f, 50 * o.trials, (unsigned long)o.seed);
    else if (!strcmp(f.kind, "multigrid")) {
        ep_rtmg_opts mo = {1e-8, 100, o.trials};
        st = ep_rtmg_run(&rep, &f, &mo);
    }
    else
        st = ep_fail(EP_EINPUT, "%s: kind \"%s\" is not one rtcheck knows", f.path, f.kind);
report:
    if (st)
        goto out;

    /* write: the report, and the verdict as the exit status */
    ep_cli_stage(&cli, "report");
    if (o.json || !cli.quiet)
        ep_rtreport_print(&rep, stdout, o.json);
    st = ep_rtreport_verdict(&rep);
out:
    ep_h5_close(&cf);
    ep_h5_close(&rf);
    ep_h5_close(&f);
    ep_cli_exit(st);
}
