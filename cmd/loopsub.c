/*
 * loopsub — subdivision-connectivity surface meshes for multiresolution work.
 *
 * Reads a closed triangle surface (or the boundary of a tet mesh), applies
 * LEVELS steps of Loop (or linear) 1-to-4 subdivision, optionally moving new
 * vertices onto a fine reference surface, and writes /mesh with level and
 * parents (HDF5) or the plain surface (.obj).  See loopsub(1).
 */
#include "cli.h"
#include "closest.h"
#include "err.h"
#include "h5.h"
#include "mem.h"
#include "mesh.h"
#include "meshio.h"
#include "model.h"
#include "progress.h"
#include "subdiv.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct {
    long levels;
    int levels_given;
    ep_subdiv_scheme scheme;
    const char *project;
} opts;

enum { OPT_SCHEME = 2000, OPT_PROJECT };

static const struct option options[] = {
    {"levels", required_argument, NULL, 'l'},
    {"scheme", required_argument, NULL, OPT_SCHEME},
    {"project-onto", required_argument, NULL, OPT_PROJECT},
    {0},
};

static int handle(int code, const char *arg, void *ctx)
{
    opts *o = ctx;
    switch (code) {
    case 'l':
        o->levels_given = 1;
        return ep_cli_int("--levels", arg, 0, 12, &o->levels);
    case OPT_SCHEME:
        if (!strcmp(arg, "loop"))
            o->scheme = EP_SUBDIV_LOOP;
        else if (!strcmp(arg, "linear"))
            o->scheme = EP_SUBDIV_LINEAR;
        else
            return ep_fail(EP_EUSAGE, "option --scheme: expected loop or linear, got \"%s\"", arg);
        return EP_OK;
    case OPT_PROJECT:
        o->project = arg;
        return EP_OK;
    }
    return EP_EUSAGE;
}

/* Sizes after L levels: V' = V + E, E' = 2E + 3F, F' = 4F (closed surface).
 * Refuse what int32 indices or the machine's memory cannot hold. */
static int check_size(const ep_mesh *m, long levels)
{
    double V = m->nv, F = m->nf, E = 1.5 * F;
    for (long l = 0; l < levels; l++) {
        V += E;
        E = 2 * E + 3 * F;
        F *= 4;
    }
    /* vertices, areas, level, parents, triangles, plus the edge tables of the
     * last step (about 12 ints per face of the previous level). */
    double bytes = V * (24 + 8 + 1 + 8 + 4) + F * 12 + F / 4 * 3 * 16 * 2;
    if (3 * F > 2147483647.0 || V > 2147483647.0)
        return ep_fail(EP_EUSAGE, "%ld levels give %.3g triangles: beyond 32-bit indices", levels, F);
    if (ep_mem_total() > 0 && bytes > 0.8 * ep_mem_total())
        return ep_fail(EP_ECOMPUTE, "%ld levels need about %.1f GiB, the machine has %.1f GiB", levels,
                       bytes / EP_MEM_GIB, ep_mem_total() / EP_MEM_GIB);
    return EP_OK;
}

/* The surface to subdivide: a tet mesh's boundary, or the surface without
 * unreferenced vertices.  A multiresolution input keeps its hierarchy. */
static int to_closed_surface(ep_mesh *m)
{
    int st;
    if (m->tets || m->nb < m->nv) {
        if (m->level)
            return ep_fail(EP_EINPUT, "%s: multiresolution mesh with vertices on no triangle", m->source);
        if ((st = ep_mesh_to_surface(m, NULL)))
            return st;
    }
    return ep_mesh_check_closed(m);
}

/* The surface as .obj or .off (by the name's extension), else as an
 * elastoprep file of kind mesh with its hierarchy and m->fixed. */
static int write_output(ep_cli *cli, const ep_mesh *m)
{
    int format = ep_meshio_format(cli->output), st;
    ep_h5 *f;
    if (format >= 0) {
        if ((st = ep_output_create_file(&cli->out)))
            return st;
        ep_meshio_write(cli->out.fp, m, format);
    } else if ((st = ep_cli_create_h5(cli, "mesh", &f)) || (st = ep_model_write(f, m, NULL, NULL)))
        return st;
    return ep_output_commit(&cli->out);
}

int main(int argc, char **argv)
{
    opts o = {0, 0, EP_SUBDIV_LOOP, NULL};
    ep_tool tool = {
        .name = "loopsub",
        .synopsis = "BASE.{obj,off,veg,msh,node,h5} -l LEVELS [options] -o OUT.{h5,obj,off}",
        .purpose = "Loop subdivision of a closed triangle surface (or of a tet mesh's boundary),\n"
                   "recording vertex levels and parents for multiresolution tools.",
        .help = "  -l, --levels L          subdivision steps, 0..12 (required)\n"
                "      --scheme S          loop (default) or linear (midpoints, flat faces stay flat)\n"
                "      --project-onto FINE move each new vertex to the closest point of surface FINE\n",
        .common = EP_CLI_FIXED,
        .options = options,
        .shortopts = "l:",
        .handle = handle,
        .ctx = &o,
        .min_inputs = 1,
        .max_inputs = 1,
        .need_output = 1,
    };
    ep_cli cli;
    ep_mesh m = {0}, fine = {0};
    ep_closest tree = {0};
    ep_progress bar;
    int st, base_nv;
    double t0 = ep_now();

    ep_cli_parse_or_exit(&cli, &tool, argc, argv);
    if (!o.levels_given)
        ep_cli_exit(ep_fail(EP_EUSAGE, "the number of levels is required (-l LEVELS)"));
    const char *ext = ep_text_ext(cli.output);
    if (strcasecmp(ext, "h5") && ep_meshio_format(cli.output) < 0)
        ep_cli_exit(ep_fail(EP_EUSAGE, "%s: output must be .h5, .obj or .off", cli.output));

    /* read -> validate */
    if ((st = ep_model_read(&m, cli.inputs[0])) || (st = to_closed_surface(&m)) || (st = check_size(&m, o.levels)) ||
        (st = ep_subdiv_mark_base(&m)))
        goto out;
    base_nv = m.nv;
    if (o.project && ((st = ep_model_read(&fine, o.project)) || (st = ep_closest_build(&tree, &fine))))
        goto out;

    /* compute */
    ep_progress_start(&bar, "loopsub", o.levels, cli.quiet);
    for (long l = 0; l < o.levels && !st; l++) {
        st = ep_subdiv_refine(&m, o.scheme, o.project ? &tree : NULL);
        ep_progress_update(&bar, l + 1);
        if (cli.verbose && !st)
            fprintf(stderr, "loopsub: step %ld: %d vertices, %d triangles (%.2f s)\n", l + 1, m.nv, m.nf,
                    ep_now() - t0);
    }
    ep_progress_end(&bar);
    if (st)
        goto out;
    if (o.project) { /* projection can fold or collapse triangles near thin features */
        int first, bad = ep_mesh_count_degenerate(&m, &first);
        if (bad)
            fprintf(stderr, "loopsub: warning: %d degenerate triangle%s after projection (first: %d); "
                    "try fewer levels or a finer base mesh\n", bad, bad == 1 ? "" : "s", first + 1);
    }

    /* write: the surface and the support selected on it; the input's
     * material and constraints do not carry over to the surface */
    if (m.material) {
        ep_material_free(m.material);
        free(m.material);
        m.material = NULL;
    }
    free(m.fixed);
    m.fixed = NULL, m.nfixed = 0;
    if ((ep_select_given(&cli.fixed) && (st = ep_select_apply(&cli.fixed, &m, "fixed vertex", &m.fixed, &m.nfixed))) ||
        (st = write_output(&cli, &m)))
        goto out;
    if (!cli.quiet) {
        double area, vol;
        ep_mesh_surface_measures(&m, &area, &vol);
        printf("loopsub: %s: %d vertices, %d triangles, %ld level%s from %d input vertices "
               "(%s); area %.6g, volume %.6g%s%s; %.2f s\n",
               cli.output, m.nv, m.nf, o.levels, o.levels == 1 ? "" : "s", base_nv,
               o.scheme == EP_SUBDIV_LOOP ? "Loop" : "linear", area, vol,
               o.project ? "; projected onto " : "", o.project ? o.project : "", ep_now() - t0);
        if (m.fixed)
            printf("loopsub: %d fixed vertices written to /constraints/fixed\n", m.nfixed);
    }
out:
    ep_closest_free(&tree);
    ep_mesh_free(&fine);
    ep_mesh_free(&m);
    ep_cli_exit(st);
}
