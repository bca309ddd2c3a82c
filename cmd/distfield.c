/*
 * distfield — the signed distance field of a mesh or polygon soup on a
 * cubic grid (001 §3.11, MATH.md §10).  See distfield(1).
 */
#include "cli.h"
#include "distfield.h"
#include "distfield_file.h"
#include "err.h"
#include "h5.h"
#include "mem.h"
#include "mesh.h"
#include "model.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    long res;          /* LONG_MIN: not given */
    int unsign, sign;  /* sign: 0 auto, 1 pseudonormal, 2 winding */
    double offset, expand, band, max_memory;
    double box[4];     /* lower corner and side; side 0: not given */
} opts;

/* --box X,Y,Z,SIDE */
static int parse_box(void *target, const char *opt, const char *arg)
{
    double *b = ((opts *)target)->box;
    char *end;
    const char *s = arg;
    for (int i = 0; i < 4; i++) {
        b[i] = strtod(s, &end);
        if (end == s || !isfinite(b[i]) || (*end != (i < 3 ? ',' : '\0')))
            return ep_fail(EP_EUSAGE, "option %s: expected X,Y,Z,SIDE (the cube's lower corner and side), not \"%s\"",
                           opt, arg);
        s = end + 1;
    }
    if (!(b[3] > 0))
        return ep_fail(EP_EUSAGE, "option %s: the side must be > 0", opt);
    return EP_OK;
}

/* parse_command_line: the options and --help of cmd/spec/distfield.json (scripts/toolspec.py). */
#include "distfield_spec.h"

int main(int argc, char **argv)
{
    opts o = {.res = LONG_MIN, .expand = 1.5};
    ep_cli cli;
    ep_mesh m = {0};
    ep_distfield g = {0};
    ep_h5 *out;
    char why[EP_ERRMSG_MAX] = "", hash[EP_DISTFIELD_FILE_HASH];
    int st, sign;

    parse_command_line(&cli, &o, argc, argv);
    const char *ext = strrchr(cli.output, '.');
    if (!ep_cli_output_is(&cli, ".dist") && !(ext && (!strcmp(ext, ".h5") || !strcmp(ext, ".hdf5"))))
        ep_cli_exit(ep_fail(EP_EUSAGE, "%s: the output is an elastoprep .h5 or Vega's .dist", cli.output));
    if (o.res == LONG_MIN)
        ep_cli_exit(ep_fail(EP_EUSAGE, "no resolution: give --res N (cells a side)"));
    if (o.unsign && o.sign)
        ep_cli_exit(ep_fail(EP_EUSAGE, "--unsigned and --sign: choose one"));
    if (o.res < 1 || o.res > EP_DISTFIELD_MAX_RES)
        ep_cli_exit(ep_fail(EP_EINPUT, "resolution %ld: expected 1 to %d cells a side", o.res, EP_DISTFIELD_MAX_RES));

    /* read -> validate: the surface, the grid, the memory, the sign */
    double t0 = ep_now();
    if ((st = ep_model_read(&m, cli.inputs[0])))
        goto out;
    if ((st = ep_distfield_setup(&g, &m, (int)o.res, o.expand, o.box[3] > 0 ? o.box : NULL))) {
        snprintf(why, sizeof why, "%s", ep_errmsg());
        ep_fail(st, "%s: %s", cli.inputs[0], why);
        goto out;
    }
    double need = ep_distfield_bytes(g.n, m.nf, m.nv), limit = ep_mem_limit(o.max_memory);
    if (need > limit) {
        st = ep_fail(EP_EINPUT, "resolution %ld: the field needs about %.2f GiB, more than the %.2f GiB this machine "
                     "allows (--max-memory)", o.res, need / EP_MEM_GIB, limit / EP_MEM_GIB);
        goto out;
    }
    if ((st = ep_output_check_space(&cli.out, 4.0 * ep_distfield_points(g.n))))
        goto out;
    if ((st = ep_distfield_detect_sign(&m, &sign, why, sizeof why)))
        goto out;
    int auto_sign = sign;
    sign = o.unsign ? EP_DISTFIELD_UNSIGNED : o.sign ? o.sign : sign;
    if (sign == EP_DISTFIELD_PSEUDONORMAL && auto_sign != EP_DISTFIELD_PSEUDONORMAL) {
        st = ep_fail(EP_EINPUT, "%s: --sign pseudonormal needs a closed, consistently oriented manifold: %s",
                     cli.inputs[0], why);
        goto out;
    }
    double t_read = ep_now() - t0;

    /* compute */
    ep_cli_stage(&cli, "compute");
    t0 = ep_now();
    if ((st = ep_distfield_compute(&g, &m, sign, o.offset, o.band, 0)))
        goto out;
    double t_field = ep_now() - t0;

    /* write */
    if ((st = ep_cli_create_output(&cli, ep_cli_output_is(&cli, ".dist"), "distfield", &m, NULL, &out)))
        goto out;
    if (!out)
        ep_distfield_file_write_vega(cli.out.fp, &g);
    else {
        ep_distfield_file_hash(&m, hash);
        if ((st = ep_distfield_file_write(out, &g, hash)))
            goto out;
    }
    if ((st = ep_output_commit(&cli.out)))
        goto out;
    if (!cli.quiet) {
        long np = ep_distfield_points(g.n);
        printf("distfield: %s: %d^3 points, spacing %.4g, box from (%.4g, %.4g, %.4g); sign: %s", cli.output, g.n + 1,
               g.h, g.origin[0], g.origin[1], g.origin[2], ep_distfield_sign_name[sign]);
        if (sign == EP_DISTFIELD_WINDING)
            printf(" (%s; %ld points near the surface, %ld far regions, %ld signed point by point)",
                   o.sign ? "forced" : why, g.nnear, g.regions, g.mixed);
        else if (sign == EP_DISTFIELD_PSEUDONORMAL)
            printf(" (a closed oriented manifold)");
        printf("; d_boundary %.4g", g.d_boundary);
        if (g.band > 0)
            printf("; band %.4g: %ld of %ld points exact, the others within %.3g", g.band, g.exact, np,
                   ep_distfield_band_error(&g));
        printf("; read %.2f s, field %.2f s (%.3g points/s, %.3g point-triangle tests/s)\n", t_read, t_field,
               np / t_field, g.tests / t_field);
    }
out:
    ep_distfield_free(&g);
    ep_mesh_free(&m);
    ep_cli_exit(st);
}
