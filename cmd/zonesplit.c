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

typedef struct {
    long tag; /* --region; LONG_MIN: not given */
} opts;

/* parse_command_line: the options and --help of cmd/spec/zonesplit.json (scripts/toolspec.py). */
#include "zonesplit_spec.h"

int main(int argc, char **argv)
{
    opts o = {LONG_MIN};
    ep_cli cli;
    ep_mesh m = {0}, z = {0};
    ep_material mat;
    ep_h5 *out;
    char *support = NULL;
    int st, nsupport = 0;

    ep_material_init(&mat);
    parse_command_line(&cli, &o, argc, argv);
    if (o.tag == LONG_MIN)
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
    if ((st = ep_zonemesh_extract(&z, &m, (int)o.tag, support, NULL)))
        goto out;

    /* write */
    if ((st = ep_cli_create_h5(&cli, "mesh", &out)) || (st = ep_model_write(out, &z, NULL, NULL)) ||
        (st = ep_output_commit(&cli.out)))
        goto out;
    if (!cli.quiet)
        printf("zonesplit: %s: region %ld: %d vertices, %d %s, %d seam vertices, %d fixed (%d of the support)\n",
               cli.output, o.tag, z.nv, z.tets ? z.ne : z.nh, z.tets ? "tets" : "hexes", z.nseam, z.nfixed,
               z.nfixed - z.nseam);
out:
    free(support);
    ep_material_free(&mat);
    ep_mesh_free(&z);
    ep_mesh_free(&m);
    ep_cli_exit(st);
}
