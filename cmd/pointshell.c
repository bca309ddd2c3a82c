/*
 * pointshell — a nested multiresolution pointshell with inward normals, its
 * nested point tree and, with --modes, its binding into a reduced model
 * (U_s, dN_s, BD-tree a_ij; 001 §3.6-3.9, MATH.md §11).  See pointshell(1).
 */
#include "cli.h"
#include "cubic_file.h"
#include "err.h"
#include "h5.h"
#include "mem.h"
#include "mesh.h"
#include "model.h"
#include "pointshell.h"
#include "pointshell_file.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    long levels, first, res, iterations, seed, rank;
    int order;
    double offset, max_memory;
    const char *modes;
} opts;

int main(int argc, char **argv)
{
    opts o = {.levels = 4, .first = 320, .res = 128, .iterations = 30, .seed = 1};
    const ep_cli_opt options[] = {
        /* any integer: levels out of range are invalid input (exit 3), refused by ep_pointshell_sample */
        {"levels", 'l', EP_CLI_INT, &o.levels, INT_MIN, INT_MAX, .arg = "L",
         .help = "levels of the nested pointshell, each adding 4x the points\n"
                 "the one before added (default 4)"},
        {"first", 0, EP_CLI_INT, &o.first, 1, INT_MAX, .arg = "N",
         .help = "points on level 1 (default 320): L levels hold N (4^L - 1) / 3"},
        {"order", 0, EP_CLI_CHOICE, &o.order, .arg = "repulsion|farthest|vertices",
         .help = "repulsion (default): particle repulsion on the level set, level by level;\n"
                 "farthest: area-weighted samples ordered farthest first; vertices: the\n"
                 "surface's vertices ordered farthest first (001 §3.9.1)"},
        {"offset", 0, EP_CLI_DOUBLE, &o.offset, 0, INFINITY, .arg = "D", .what = "a distance >= 0",
         .help = "sample the offset surface at distance D (soups, thin parts), its\n"
                 "interior components removed; 0 (default): the closed surface itself"},
        {"res", 0, EP_CLI_INT, &o.res, 4, 2048, .arg = "N",
         .help = "cells a side of the unsigned field that finds the offset's interior\n"
                 "components (default 128)"},
        {"iterations", 0, EP_CLI_INT, &o.iterations, 0, 100000, .arg = "K",
         .help = "repulsion steps a level (default 30)"},
        {"seed", 0, EP_CLI_INT, &o.seed, 0, LONG_MAX, .arg = "S", .help = "random samples' seed (default 1)"},
        {"modes", 0, EP_CLI_STRING, &o.modes, .arg = "FILE",
         .help = "a moddesc or polycoef output (/basis/U on tets or hexes): bind the points,\n"
                 "with U_s, dN_s and the BD-tree coefficients"},
        {"rank", 0, EP_CLI_INT, &o.rank, 1, INT_MAX, .arg = "R",
         .help = "with --modes, the basis' first R columns (default all)"},
        {"max-memory", 0, EP_CLI_BYTES, &o.max_memory, .arg = "SIZE",
         .help = "refuse runs needing more (default: 90% of the machine's)"},
        {0}};
    ep_tool tool = {
        .name = "pointshell",
        .synopsis = "SURFACE [--levels L] [--first N] [--order repulsion|farthest|vertices] [--offset D [--res N]] "
                    "[--modes FILE [--rank R]] -o OUT.h5",
        .purpose = "A nested multiresolution pointshell of a closed surface (or the offset surface of a soup) with\n"
                   "inward normals and its nested point tree; with --modes, bound into a reduced model with the\n"
                   "BD-tree coefficients, for pointshell / distance-field contact (001 §3.6-3.9).",
        .options = options, .min_inputs = 1, .max_inputs = 1, .need_output = 1,
    };
    ep_cli cli;
    ep_mesh m = {0}, sim = {0};
    ep_pointshell ps = {0};
    ep_h5 mf = {0}, *out;
    double *U = NULL;
    int st, r = 0;

    ep_cli_parse_or_exit(&cli, &tool, argc, argv);
    if (o.rank && !o.modes)
        ep_cli_exit(ep_fail(EP_EUSAGE, "--rank: give --modes FILE"));
    if (o.order == EP_POINTSHELL_VERTICES && o.offset > 0)
        ep_cli_exit(ep_fail(EP_EUSAGE, "--order vertices takes the surface's own vertices: no --offset"));

    /* read -> validate: the surface, the basis, the memory */
    double t0 = ep_now();
    if ((st = ep_model_read(&m, cli.inputs[0])))
        goto out;
    if (m.nf < 1) {
        st = ep_fail(EP_EINPUT, "%s: no triangles to sample (an empty surface)", cli.inputs[0]);
        goto out;
    }
    if (o.offset == 0) { /* the zero set: a scan's defects cleaned up (doubled faces, seams), else refused */
        ep_mesh_free(&m);
        if ((st = ep_cli_read_closed_surface(&cli, &m, cli.inputs[0]))) {
            char msg[EP_ERRMSG_MAX];
            snprintf(msg, sizeof msg, "%s", ep_errmsg());
            if (st == EP_EINPUT)
                ep_fail(st, "%s (the zero set needs a closed surface; give --offset D for a soup)", msg);
            goto out;
        }
    }
    if (o.modes && ((st = ep_model_read(&sim, o.modes)) || (st = ep_h5_open(&mf, o.modes, NULL)) ||
                    (st = ep_cubic_file_basis(&mf, "/basis/U", sim.nv, (int)o.rank, &U, &r))))
        goto out;
    if (o.modes && sim.ne < 1 && sim.nh < 1) {
        st = ep_fail(EP_EINPUT, "%s: no tetrahedra or hexahedra to bind to", o.modes);
        goto out;
    }
    ep_pointshell_opts po = {.levels = o.levels < -1000 ? -1000 : o.levels > 1000 ? 1000 : (int)o.levels,
                             .first = (int)o.first, .order = o.order, .offset = o.offset, .res = (int)o.res,
                             .iterations = (int)o.iterations, .seed = (unsigned long)o.seed, .threads = cli.threads};
    double need = po.levels >= 1 && po.levels <= EP_POINTSHELL_MAX_LEVELS ? ep_pointshell_bytes(&po, m.nv, r) : 0;
    double limit = ep_mem_limit(o.max_memory);
    if (need > limit) {
        st = ep_fail(EP_EINPUT, "%ld levels of %ld points on level 1: about %.2f GiB, more than the %.2f GiB this "
                     "machine allows (--max-memory)", o.levels, o.first, need / EP_MEM_GIB, limit / EP_MEM_GIB);
        goto out;
    }
    double t_read = ep_now() - t0;

    /* compute: points, tree, binding */
    ep_cli_stage(&cli, "compute");
    t0 = ep_now();
    if ((st = ep_pointshell_sample(&ps, &m, &po)))
        goto fail_named;
    double t_points = ep_now() - t0;
    t0 = ep_now();
    if ((st = ep_pointshell_tree(&ps)))
        goto out;
    if (U && (st = ep_pointshell_bind(&ps, &sim, U, r, ep_mesh_diameter(&sim)))) {
        if (st == EP_EINPUT) {
            char msg[EP_ERRMSG_MAX];
            snprintf(msg, sizeof msg, "%s", ep_errmsg());
            ep_fail(EP_EINPUT, "%s: the mesh of %s does not hold the surface: %s (farther than the model's size)",
                    cli.inputs[0], o.modes, msg);
        }
        goto out;
    }
    double t_tree = ep_now() - t0;

    /* write */
    if ((st = ep_cli_create_h5(&cli, "pointshell", &out)) || (st = ep_model_write(out, &m, NULL, NULL)) ||
        (st = ep_pointshell_file_write(out, &ps)) || (st = ep_output_commit(&cli.out)))
        goto out;
    if (!cli.quiet) {
        printf("pointshell: %s: %d points on %d levels (%s", cli.output, ps.S, ps.L,
               ep_pointshell_order_name[ps.order]);
        for (int l = 1; l <= ps.L; l++)
            printf("%s%d", l == 1 ? ": " : ", ", ps.level_start[l]);
        printf("), %s", ps.offset > 0 ? "offset surface" : "zero set");
        if (ps.offset > 0)
            printf(" at %.4g", ps.offset);
        printf(" of area %.4g, finest spacing %.3g; %d tree nodes", ps.area, ps.spacing[ps.L - 1], ps.nn);
        if (r)
            printf("; bound to %d modes of %d %s (farthest point %.3g from its element)", r,
                   sim.ne > 0 ? sim.ne : sim.nh, sim.ne > 0 ? "tets" : "hexes", ps.max_embed);
        printf("; read %.2f s, points %.2f s, tree and binding %.2f s\n", t_read, t_points, t_tree);
    }
    goto out;
fail_named:
    if (st == EP_EINPUT && !strstr(ep_errmsg(), cli.inputs[0])) {
        char msg[EP_ERRMSG_MAX];
        snprintf(msg, sizeof msg, "%s", ep_errmsg());
        ep_fail(EP_EINPUT, "%s: %s", cli.inputs[0], msg);
    }
out:
    ep_h5_close(&mf);
    free(U);
    ep_pointshell_free(&ps);
    ep_mesh_free(&m);
    ep_mesh_free(&sim);
    ep_cli_exit(st);
}
