/*
 * polycoef — cubic polynomial coefficients of the reduced St. Venant-Kirchhoff
 * internal force for a basis U.  See polycoef(1).
 */
#include "cli.h"
#include "cubic.h"
#include "cubic_file.h"
#include "err.h"
#include "h5.h"
#include "mesh.h"
#include "model.h"
#include "vega.h"
#include "part.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *dataset;
    const char *basis_file; /* a Vega .U file, or NULL */
    long r;
    int split;
    ep_part part;
} opts;

/* The input's model must be volumetric with a valid material. */
static int check_model(const ep_mesh *m)
{
    if (!ep_mesh_nelements(m))
        return ep_fail(EP_EINPUT, "%s: no tetrahedra or hexahedra in /mesh (polycoef needs the volumetric model)",
                       m->source);
    if (!m->material)
        return ep_fail(EP_EINPUT, "%s: no /material", m->source);
    return ep_material_check(m->material, 0.5, m->source);
}

/* The basis of a Vega .U file for a model of nv vertices: its first rows
 * (all when rows is 0). */
static int read_vega_basis(const char *path, int nv, int rows, double **U, int *r)
{
    long len;
    int st = ep_vega_read_basis(path, U, r, &len);
    if (!st && len != 3L * nv)
        st = ep_fail(EP_EINPUT, "%s: a basis of %ld-vectors, the model has %d vertices (%ld values)", path, len, nv,
                     3L * nv);
    if (!st && rows > *r)
        st = ep_fail(EP_EUSAGE, "option -r: %d basis vectors asked, %s has %d", rows, path, *r);
    if (!st && rows)
        *r = rows;
    return st;
}

/* parse_command_line: the options and --help of cmd/spec/polycoef.json (scripts/toolspec.py). */
#include "polycoef_spec.h"

int main(int argc, char **argv)
{
    opts o = {.dataset = "/basis/U"};
    ep_cli cli;
    ep_mesh m = {0};
    ep_h5 in = {0}, *out;
    ep_cubic tot = {0}, lam = {0}, mu = {0};
    double *U = NULL, t0 = ep_now();
    int st, r = 0;

    parse_command_line(&cli, &o, argc, argv);
    if (o.basis_file && strcmp(o.dataset, "/basis/U"))
        ep_cli_exit(ep_fail(EP_EUSAGE, "give --basis or --basis-file, not both"));

    /* read -> validate */
    if ((st = ep_model_read(&m, cli.inputs[0])) || (st = check_model(&m)))
        goto out;
    double t_model = ep_now() - t0;
    if (o.basis_file) /* Vega's basis: [r][3nv] as stored, behind its header */
        st = read_vega_basis(o.basis_file, m.nv, (int)o.r, &U, &r);
    else if (!(st = ep_h5_open(&in, cli.inputs[0], NULL)))
        st = ep_cubic_file_basis(&in, o.dataset, m.nv, (int)o.r, &U, &r);
    if (st)
        goto out;
    ep_cli_model_summary(&cli, &m, m.material);

    double t_basis = ep_now() - t0 - t_model;
    /* compute: a part sums its range of elements (001 §2.6.3) */
    ep_part_share(&o.part, ep_mesh_nelements(&m), 1, "elements");
    if (o.part.count) {
        char creator[64], optstr[64];
        ep_part_hash h;
        snprintf(creator, sizeof creator, "polycoef %s", EP_VERSION);
        snprintf(optstr, sizeof optstr, "r=%d split=%d", r, o.split);
        ep_part_hash_init(&h, creator);
        ep_part_hash_model(&h, &m, NULL, NULL);
        ep_part_hash_string(&h, "options", optstr);
        ep_part_hash_bytes(&h, "basis", U, sizeof(double) * (size_t)r * 3 * m.nv);
        ep_part_hash_final(&h, &o.part);
    }
    double t_hash = ep_now() - t0 - t_model - t_basis;
    if ((st = ep_cubic_compute_elements(&tot, o.split ? &lam : NULL, o.split ? &mu : NULL, &m, m.material, U, r,
                                        (int)o.part.lo, (int)o.part.hi)))
        goto out;
    double t_coef = ep_now() - t0;

    /* write: mesh, material, constraints, the basis used, the coefficients */
    hsize_t d[2] = {(hsize_t)r, 3 * (hsize_t)m.nv};
    if ((st = ep_cli_create_h5(&cli, "cubic", &out)) || (st = ep_model_write(out, &m, NULL, NULL)) ||
        (st = ep_h5_write(out, "/basis/U", EP_F64, 2, d, U)) || (st = ep_cubic_file_write(out, "/cubic", &tot)) ||
        (o.split && ((st = ep_cubic_file_write(out, "/cubic/lambda", &lam)) ||
                     (st = ep_cubic_file_write(out, "/cubic/mu", &mu)))) ||
        (o.part.count && (st = ep_part_write(out, &o.part))) || (st = ep_output_commit(&cli.out)))
        goto out;
    double t_write = ep_now() - t0 - t_coef;
    if (!cli.quiet && o.part.count)
        printf("polycoef: %s: part %d of %d: elements %ld..%ld of %d\n", cli.output, o.part.index, o.part.count,
               o.part.lo, o.part.hi, ep_mesh_nelements(&m));
    if (!cli.quiet)
        printf("polycoef: %s: r = %d: %d + %ld + %ld coefficient vectors%s from %d %s in %.2f s "
               "(runtime force + stiffness polynomials: %.1f KiB)\n",
               cli.output, r, r, ep_cubic_npairs(r), ep_cubic_ntriples(r), o.split ? " (and lambda, mu parts)" : "",
               (int)(o.part.hi - o.part.lo), m.hexes ? "hexes" : "tets", t_coef, ep_cubic_runtime_bytes(r) / 1024.0);
    if (!cli.quiet) /* what a part repeats (read, hash, write) beside its share of the sums */
        printf("polycoef: %s: read model %.2f s, basis %.2f s; part hash %.2f s; sums %.2f s; write %.2f s\n",
               cli.output, t_model, t_basis, t_hash, t_coef - t_model - t_basis - t_hash, t_write);
out:
    ep_h5_close(&in);
    ep_cubic_free(&tot);
    ep_cubic_free(&lam);
    ep_cubic_free(&mu);
    free(U);
    ep_mesh_free(&m);
    ep_cli_exit(st);
}
