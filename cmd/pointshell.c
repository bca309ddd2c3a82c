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

/* parse_command_line: the options and --help of cmd/spec/pointshell.json (scripts/toolspec.py). */
#include "pointshell_spec.h"

int main(int argc, char **argv)
{
    opts o = {.levels = 4, .first = 320, .res = 128, .iterations = 30, .seed = 1};
    ep_cli cli;
    ep_mesh m = {0}, sim = {0};
    ep_pointshell ps = {0};
    ep_h5 mf = {0}, *out;
    double *U = NULL;
    int st, r = 0;

    parse_command_line(&cli, &o, argc, argv);
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
