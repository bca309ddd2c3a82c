/*
 * voxelize — a voxel hexahedral mesh from a triangle soup (001 §2.5.1).
 * See voxelize(1).
 */
#include "cli.h"
#include "err.h"
#include "h5.h"
#include "mem.h"
#include "mesh.h"
#include "meshio.h"
#include "model.h"
#include "voxel.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    long res;          /* LONG_MIN: not given */
    int shell, largest;
    double max_memory; /* 0: 90% of the machine's */
} opts;

/* Refuse a run whose arrays would not fit, before allocating them. */
static int check_memory(double bytes, double limit, const char *what, long res)
{
    if (bytes > limit)
        return ep_fail(EP_EINPUT, "resolution %ld: the %s needs about %s, more than the %s this machine allows "
                       "(--max-memory)", res, what, ep_mem_text(bytes), ep_mem_text(limit)); /* units below 1 GiB */
    return EP_OK;
}

/* "3 face-connected components (51234, 12, 1 cells)": the four largest. */
static void print_components(const ep_voxel *g)
{
    long top[4] = {0, 0, 0, 0};
    for (int c = 1; c <= g->ncomp; c++) {
        long s = g->comp_size[c];
        for (int i = 0; i < 4; i++)
            if (s > top[i]) {
                memmove(top + i + 1, top + i, (3 - i) * sizeof *top);
                top[i] = s;
                break;
            }
    }
    printf("%d face-connected component%s (", g->ncomp, g->ncomp == 1 ? "" : "s");
    for (int i = 0; i < 4 && i < g->ncomp; i++)
        printf("%s%ld", i ? ", " : "", top[i]);
    printf("%s cells)", g->ncomp > 4 ? ", ..." : "");
}

/* parse_command_line: the options and --help of cmd/spec/voxelize.json (scripts/toolspec.py). */
#include "voxelize_spec.h"

int main(int argc, char **argv)
{
    opts o = {.res = LONG_MIN};
    ep_cli cli;
    ep_mesh soup = {0}, hm = {0};
    ep_material mat;
    ep_voxel g = {0};
    ep_h5 *out;
    int st, have_mat = 0;
    double t0 = ep_now();

    ep_material_init(&mat);
    parse_command_line(&cli, &o, argc, argv);
    const char *ext = strrchr(cli.output, '.');
    int veg = ext && !strcmp(ext, ".veg");
    if (!veg && !(ext && (!strcmp(ext, ".h5") || !strcmp(ext, ".hdf5"))))
        ep_cli_exit(ep_fail(EP_EUSAGE, "%s: the output is Vega's .veg or an elastoprep mesh .h5", cli.output));
    if (o.res == LONG_MIN)
        ep_cli_exit(ep_fail(EP_EUSAGE, "no resolution: give -R RES (cells along the longest side)"));
    double limit = ep_mem_limit(o.max_memory);

    /* read -> validate: the soup, the grid, the memory it needs */
    if ((st = ep_model_read(&soup, cli.inputs[0])))
        goto out;
    if ((have_mat = cli.material_file || !isnan(cli.E) || !isnan(cli.nu)) && (st = ep_cli_material(&cli, &soup, 0.5, &mat)))
        goto out;
    if ((st = ep_voxel_setup(&g, &soup, (int)o.res)))
        goto out;
    if ((st = check_memory(ep_voxel_grid_bytes(&g), limit, "grid", o.res)))
        goto out;
    ep_cli_model_summary(&cli, &soup, have_mat ? &mat : NULL);
    ep_cli_verbose(&cli, "grid: %d x %d x %d = %ld cells %.4g wide, about %s", g.n[0], g.n[1], g.n[2], g.ncells,
                   g.h, ep_mem_text(ep_voxel_grid_bytes(&g)));

    /* compute */
    if ((st = ep_voxel_surface(&g, &soup)) || (!o.shell && (st = ep_voxel_fill(&g))) ||
        (st = ep_voxel_components(&g, o.shell)))
        goto out;
    int comp = o.largest ? g.largest : 0;
    long kept = comp ? (g.ncomp ? g.comp_size[comp] : 0) : g.nsurface + (o.shell ? 0 : g.ninside);
    if ((st = check_memory(ep_voxel_grid_bytes(&g) + ep_voxel_mesh_bytes(kept), limit, "mesh", o.res)) ||
        (st = ep_voxel_mesh(&g, comp, &hm.vertices, &hm.nv, &hm.hexes, &hm.nh)))
        goto out;
    snprintf(hm.source, sizeof hm.source, "%s", cli.output);
    ep_cli_stage(&cli, "boundary"); /* the hexahedra checked, their boundary faces found */
    if ((st = ep_mesh_complete(&hm)))
        goto out;
    double t_vox = ep_now() - t0;

    /* write */
    if ((st = ep_cli_create_output(&cli, veg, "mesh", &hm, have_mat ? &mat : NULL, &out)) ||
        (veg && (st = ep_meshio_write_veg(cli.out.fp, &hm, have_mat ? &mat : NULL))))
        goto out;
    if ((st = ep_output_commit(&cli.out)))
        goto out;
    if (!cli.quiet) {
        printf("voxelize: %s: %d x %d x %d grid of cells %.4g wide: %ld touched, %ld enclosed; ", cli.output, g.n[0],
               g.n[1], g.n[2], g.h, g.nsurface, o.shell ? 0L : g.ninside);
        print_components(&g);
        printf("; %d hexahedra on %d vertices%s in %.2f s\n", hm.nh, hm.nv, comp ? " (the largest component)" : "",
               t_vox);
    }
out:
    ep_voxel_free(&g);
    ep_material_free(&mat);
    ep_mesh_free(&soup);
    ep_mesh_free(&hm);
    ep_cli_exit(st);
}
