/*
 * zonesplit — one zone of a multizone model: the elements of a volumetric
 * mesh with one region tag, its seam and its support (000 §5.1; MATH.md
 * §12).  See zonesplit(1).
 */
#include "cli.h"
#include "err.h"
#include "h5.h"
#include "mesh.h"
#include "model.h"
#include "zonemesh.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long tag = LONG_MIN;
    const ep_cli_opt options[] = {
        {"region", 'r', EP_CLI_INT, &tag, INT_MIN, INT_MAX, .arg = "TAG",
         .help = "the region tag of the zone's elements (required)"},
        {0}};
    ep_tool tool = {
        .name = "zonesplit",
        .synopsis = "MESH --region TAG [--fixed-...] [-E PA --nu V --rho RHO | -m FILE] -o ZONE.h5",
        .purpose = "One zone of a multizone model (000 §5.1): the elements of MESH with region tag TAG, with\n"
                   "/constraints/seam (the vertices it shares with the other regions) and /constraints/fixed\n"
                   "(the seam and the zone's share of the --fixed-... support): the input of femcondense or\n"
                   "bemsolve for the zone's GFs, which rtcheck --zones and ep_bond(3) bond at the seams.",
        .common = EP_CLI_MATERIAL | EP_CLI_FIXED, .options = options, .min_inputs = 1, .max_inputs = 1,
        .need_output = 1,
    };
    ep_cli cli;
    ep_mesh m = {0}, z = {0};
    ep_material mat;
    ep_h5 *out;
    char *support = NULL;
    int st, nsupport = 0;

    ep_material_init(&mat);
    ep_cli_parse_or_exit(&cli, &tool, argc, argv);
    if (tag == LONG_MIN)
        ep_cli_exit(ep_fail(EP_EUSAGE, "no zone: give --region TAG"));

    /* read -> validate: the mesh, its material and support when given */
    if ((st = ep_cli_read_volume(&cli, &m, cli.inputs[0])))
        goto out;
    if ((cli.material_file || !isnan(cli.E) || !isnan(cli.nu)) && !(st = ep_cli_material(&cli, &m, 0.5, &mat))) {
        if (m.material || (m.material = ep_calloc(1, sizeof *m.material)))
            ep_material_free(m.material), st = ep_material_copy(m.material, &mat);
        else
            st = EP_ECOMPUTE;
    }
    if (st || ((ep_select_given(&cli.fixed) || m.fixed) && (st = ep_cli_fixed(&cli, &m, &support, &nsupport))))
        goto out;
    ep_cli_model_summary(&cli, &m, m.material);

    /* compute: the zone, its seam and support */
    if ((st = ep_zonemesh_extract(&z, &m, (int)tag, support, NULL)))
        goto out;

    /* write */
    if ((st = ep_cli_create_h5(&cli, "mesh", &out)) || (st = ep_model_write(out, &z, NULL, NULL)) ||
        (st = ep_output_commit(&cli.out)))
        goto out;
    if (!cli.quiet)
        printf("zonesplit: %s: region %ld: %d vertices, %d %s, %d seam vertices, %d fixed (%d of the support)\n",
               cli.output, tag, z.nv, z.tets ? z.ne : z.nh, z.tets ? "tets" : "hexes", z.nseam, z.nfixed,
               z.nfixed - z.nseam);
out:
    free(support);
    ep_material_free(&mat);
    ep_mesh_free(&z);
    ep_mesh_free(&m);
    ep_cli_exit(st);
}
