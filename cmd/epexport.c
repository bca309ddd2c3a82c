/*
 * epexport — an elastoprep file in Vega FEM's formats: the model as .veg,
 * its fixed vertices as .bou, a basis as a ModalMatrix .U, the cubic
 * polynomials as a .cub, an embedding's weights as .interp.  See
 * epexport(1).
 */
#include "cli.h"
#include "cubic_file.h"
#include "embed_file.h"
#include "err.h"
#include "h5.h"
#include "mesh.h"
#include "meshio.h"
#include "model.h"
#include "vega.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OUT_VEG, OUT_BOU, OUT_U, OUT_CUB, OUT_INTERP };

/* The format of the output, by its extension; -1 for none of them. */
static int format_of(const char *path)
{
    static const char *ext[] = {".veg", ".bou", ".U", ".cub", ".interp"};
    size_t n = strlen(path);
    for (int k = 0; k < 5; k++) {
        size_t e = strlen(ext[k]);
        if (n > e && !strcmp(path + n - e, ext[k]))
            return k;
    }
    return -1;
}

/* The basis to export: the dataset asked for, else /basis/U, else /modes/U;
 * rows of 3 nv values (the model's vertices), or 3 nr for an embedding's
 * /embedding/Ubar (its render vertices): a dataset of another shape was
 * written as a basis no reader could use (issue 37, class 7). */
static int read_basis(ep_h5 *f, const char *asked, int nv, double **U, int *r, long *len)
{
    const char *name = asked ? asked : ep_h5_exists(f, "/basis/U") ? "/basis/U" : "/modes/U";
    hsize_t d[2] = {0, 0}, rv[2] = {0, 3};
    hid_t h;
    int st = ep_h5_read(f, name, EP_F64, 2, d, (void **)U);
    long nr = ep_h5_exists(f, "/render/vertices") && !ep_h5_open_dataset(f, "/render/vertices", EP_F64, 2, rv, &h)
                  ? (H5Dclose(h), (long)rv[0])
                  : -1;
    if (!st && (d[0] == 0 || d[0] > 100000 || (d[1] != 3 * (hsize_t)nv && (nr < 0 || d[1] != 3 * (hsize_t)nr))))
        st = ep_fail(EP_EINPUT, "%s: %s is [%llu][%llu], not a basis: rows of 3 x %d values (the vertices)%s expected",
                     f->path, name, (unsigned long long)d[0], (unsigned long long)d[1], nv,
                     nr >= 0 ? " or of 3 x the render vertices" : "");
    *r = (int)d[0];
    *len = (long)d[1];
    return st;
}

typedef struct {
    const char *dataset; /* --basis */
} opts;

/* parse_command_line: the options and --help of cmd/spec/epexport.json (scripts/toolspec.py). */
#include "epexport_spec.h"

int main(int argc, char **argv)
{
    opts o = {NULL};
    ep_cli cli;
    ep_mesh m = {0};
    ep_h5 in = {0};
    ep_cubic c = {0};
    ep_embed b = {0};
    double *U = NULL, *p = NULL;
    int st, r = 0;
    long len = 0;

    parse_command_line(&cli, &o, argc, argv);
    int format = format_of(cli.output);
    if (format < 0)
        ep_cli_exit(ep_fail(EP_EUSAGE, "%s: the output must end in .veg, .bou, .U, .cub or .interp", cli.output));
    if (o.dataset && format != OUT_U)
        ep_cli_exit(ep_fail(EP_EUSAGE, "option --basis: only a .U output takes a basis"));

    /* read -> validate */
    if ((st = ep_model_read(&m, cli.inputs[0])))
        goto out;
    if (format == OUT_VEG && !ep_mesh_nelements(&m))
        st = ep_fail(EP_EINPUT, "%s: no tetrahedra or hexahedra: a .veg holds a volumetric model", m.source);
    else if (format == OUT_BOU && !m.nfixed)
        st = ep_fail(EP_EINPUT, "%s: no /constraints/fixed to export", m.source);
    else if (format == OUT_U &&
             !(st = ep_h5_open(&in, cli.inputs[0], NULL)))
        st = read_basis(&in, o.dataset, m.nv, &U, &r, &len);
    else if (format == OUT_CUB && !(st = ep_h5_open(&in, cli.inputs[0], "cubic")))
        st = ep_cubic_file_read(&c, &in, m.nv, &U);
    else if (format == OUT_INTERP && !(st = ep_h5_open(&in, cli.inputs[0], "embedding")))
        st = ep_embed_file_read(&b, &p, NULL, &r, &in, m.nv, ep_mesh_nelements(&m));
    if (st)
        goto out;
    ep_cli_model_summary(&cli, &m, m.material);

    /* write */
    ep_cli_stage(&cli, "write");
    if ((st = ep_output_create_file(&cli.out)))
        goto out;
    switch (format) {
    case OUT_VEG: st = ep_meshio_write_veg(cli.out.fp, &m, m.material); break;
    case OUT_BOU:
        for (int i = 0; i < m.nfixed; i++) /* Vega's list files: 1-based ids, each followed by a comma */
            fprintf(cli.out.fp, "%d,\n", m.fixed[i] + 1);
        break;
    case OUT_U: ep_vega_write_basis(cli.out.fp, U, r, len); break;
    case OUT_INTERP: ep_embed_file_write_interp(cli.out.fp, &b); break; /* embed's own writer */
    default: st = ep_vega_write_cubic(cli.out.fp, &c); break;
    }
    if (st || (st = ep_output_commit(&cli.out)))
        goto out;
    if (!cli.quiet) {
        if (format == OUT_VEG)
            printf("epexport: %s: %d vertices, %d %s\n", cli.output, m.nv, ep_mesh_nelements(&m),
                   m.hexes ? "hexes" : "tets");
        else if (format == OUT_BOU)
            printf("epexport: %s: %d fixed vertices\n", cli.output, m.nfixed);
        else if (format == OUT_U)
            printf("epexport: %s: %ld x %d basis\n", cli.output, len, r);
        else if (format == OUT_CUB)
            printf("epexport: %s: r = %d cubic polynomials\n", cli.output, c.r);
        else
            printf("epexport: %s: %d render vertices bound to %d vertices each\n", cli.output, b.nr, b.k);
    }
out:
    ep_h5_close(&in);
    ep_cubic_free(&c);
    ep_embed_free(&b);
    free(U);
    free(p);
    ep_mesh_free(&m);
    ep_cli_exit(st);
}
