/*
 * embed — bind a render mesh to a simulation mesh (weights W, and the render
 * basis Ubar = W U).  See embed(1).
 */
#include "cli.h"
#include "cubic_file.h"
#include "embed.h"
#include "embed_file.h"
#include "err.h"
#include "h5.h"
#include "mesh.h"
#include "meshio.h"
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The default --max-distance in element sizes (mean edge lengths): a render
 * surface over a coarse mesh lies within a fraction of an element of it; a
 * piece farther away belongs to some other object (issue 45). */
#define EP_EMBED_REACH 2.0
/* Weights outside [-1, 2] are warned about: the vertex moves with its
 * element's motion amplified. */
#define EP_EMBED_WEIGHT_SLACK 1.0

typedef struct {
    const char *modes;
    double max_distance; /* 0: EP_EMBED_REACH element sizes */
} opts;

/* The simulation mesh: volumetric (tets or hexes; the readers refuse a mix). */
static int check_simulation(const ep_mesh *m)
{
    if (m->ne < 1 && m->nh < 1)
        return ep_fail(EP_EINPUT, "%s: no tetrahedra or hexahedra to bind to (a surface mesh)", m->source);
    return EP_OK;
}

/* parse_command_line: the options and --help of cmd/spec/embed.json (scripts/toolspec.py). */
#include "embed_spec.h"

int main(int argc, char **argv)
{
    opts o = {NULL, 0};
    ep_cli cli;
    ep_mesh sim = {0}, ren = {0};
    ep_embed b = {0};
    ep_h5 mf = {0}, *out = NULL;
    double *U = NULL, *Ubar = NULL;
    int st, r = 0;

    parse_command_line(&cli, &o, argc, argv);
    if (o.modes && ep_cli_output_is(&cli, ".interp"))
        ep_cli_exit(ep_fail(EP_EUSAGE, "--modes: a .interp file holds weights only (write .h5 for Ubar)"));

    /* read -> validate */
    double t0 = ep_now();
    if ((st = ep_model_read(&sim, cli.inputs[0])) || (st = check_simulation(&sim)) ||
        (st = ep_model_read(&ren, cli.inputs[1])))
        goto out;
    if (o.modes && ((st = ep_h5_open(&mf, o.modes, NULL)) || (st = ep_cubic_file_basis(&mf, "/basis/U", sim.nv, 0, &U, &r))))
        goto out;
    ep_cli_model_summary(&cli, &sim, sim.material);
    double limit = o.max_distance > 0 ? o.max_distance : EP_EMBED_REACH * ep_mesh_edge_length(&sim);
    double t_read = ep_now() - t0;

    /* compute */
    t0 = ep_now();
    int k = sim.ne > 0 ? 4 : 8;
    if ((st = ep_embed_build(&b, sim.vertices, sim.nv, k == 4 ? sim.tets : sim.hexes, k == 4 ? sim.ne : sim.nh, k,
                             ren.vertices, ren.nv, limit))) {
        if (st == EP_EINPUT) {
            char msg[512];
            snprintf(msg, sizeof msg, "%s", ep_errmsg());
            ep_fail(EP_EINPUT, "%s: %s (%s)", cli.inputs[1], msg,
                    o.max_distance > 0 ? "--max-distance" : "twice the mean element edge length; --max-distance");
        }
        goto out;
    }
    if (U) {
        if (!(Ubar = ep_malloc((size_t)r * 3 * ren.nv, sizeof *Ubar))) {
            st = EP_ECOMPUTE;
            goto out;
        }
        ep_embed_apply(&b, U, sim.nv, r, Ubar);
    }
    double t_bind = ep_now() - t0;

    /* write (Vega's text interpolation file, or HDF5) */
    if ((st = ep_cli_create_output(&cli, ep_cli_output_is(&cli, ".interp"), "embedding", &sim, NULL, &out)))
        goto out;
    if (!out)
        ep_embed_file_write_interp(cli.out.fp, &b);
    else if ((st = ep_embed_file_write(out, &b, &ren, limit, Ubar, r)))
        goto out;
    if (U && !st) {
        hsize_t d[2] = {(hsize_t)r, 3 * (hsize_t)sim.nv};
        st = ep_h5_write(out, "/basis/U", EP_F64, 2, d, U);
    }
    if (st || (st = ep_output_commit(&cli.out)))
        goto out;
    int nextra, worst;
    double wmax = ep_embed_extrapolation(&b, EP_EMBED_WEIGHT_SLACK, &nextra, &worst);
    if (nextra)
        fprintf(stderr, "embed: warning: %d render vertices bound by extrapolation with weights outside [-%g, %g]; "
                "largest weight %.3g at render vertex %d, %.3g from its element (%.2g%% of the model's size)\n",
                nextra, EP_EMBED_WEIGHT_SLACK, 1 + EP_EMBED_WEIGHT_SLACK, wmax, worst + 1, b.dist[worst],
                100 * b.dist[worst] / ep_mesh_diameter(&sim));
    if (!cli.quiet) {
        printf("embed: %s: %d render vertices bound to %d %s of %d vertices: %d inside, %d outside (farthest %.3g, "
               "%.2g%% of the model's size)",
               cli.output, b.nr, k == 4 ? sim.ne : sim.nh, k == 4 ? "tets" : "hexes", sim.nv, b.nr - b.noutside,
               b.noutside, b.maxdist, 100 * b.maxdist / ep_mesh_diameter(&sim));
        printf("; largest weight %.3g", wmax);
        if (U)
            printf("; render basis Ubar = W U of %d fields", r);
        printf("; read %.2f s, bound in %.3f s\n", t_read, t_bind);
    }
out:
    ep_h5_close(&mf);
    free(U);
    free(Ubar);
    ep_embed_free(&b);
    ep_mesh_free(&sim);
    ep_mesh_free(&ren);
    ep_cli_exit(st);
}
