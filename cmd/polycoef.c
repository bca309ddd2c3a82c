/*
 * polycoef — cubic polynomial coefficients of the reduced St. Venant-Kirchhoff
 * internal force for a basis U.  See polycoef(1).
 */
#include "cli.h"
#include "cubic.h"
#include "err.h"
#include "h5.h"
#include "mesh.h"
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *dataset;
    long r;
    int split;
} opts;

enum { OPT_BASIS = 2000, OPT_SPLIT };

static const struct option options[] = {
    {"basis", required_argument, NULL, OPT_BASIS},
    {"basis-size", required_argument, NULL, 'r'},
    {"split-material", no_argument, NULL, OPT_SPLIT},
    {0},
};

static int handle(int code, const char *arg, void *ctx)
{
    opts *o = ctx;
    switch (code) {
    case OPT_BASIS:
        o->dataset = arg;
        return EP_OK;
    case 'r':
        return ep_cli_int("--basis-size", arg, 1, 1000, &o->r);
    case OPT_SPLIT:
        o->split = 1;
        return EP_OK;
    }
    return EP_EUSAGE;
}

static int write_set(ep_h5 *f, const char *group, const ep_cubic *c)
{
    char name[64];
    hsize_t d[2] = {(hsize_t)c->r, (hsize_t)c->r};
    int st;
    snprintf(name, sizeof name, "%s/P", group);
    if ((st = ep_h5_write(f, name, EP_F64, 2, d, c->P)))
        return st;
    d[0] = (hsize_t)ep_cubic_npairs(c->r);
    snprintf(name, sizeof name, "%s/Q", group);
    if ((st = ep_h5_write(f, name, EP_F64, 2, d, c->Q)))
        return st;
    d[0] = (hsize_t)ep_cubic_ntriples(c->r);
    snprintf(name, sizeof name, "%s/S", group);
    return ep_h5_write(f, name, EP_F64, 2, d, c->S);
}

/* The input's basis: the first o->r vectors (all when 0) of o->dataset, each
 * of length 3nv and finite, from the volumetric model m with its material.
 * in is the input, opened here. */
static int read_basis(const ep_mesh *m, const char *path, const opts *o, ep_h5 *in, double **U, int *r)
{
    hsize_t d[2] = {0, 3 * (hsize_t)m->nv};
    void *p;
    int st;
    if (!m->tets)
        return ep_fail(EP_EINPUT, "%s: no tetrahedra in /mesh (polycoef needs the volumetric model)", m->source);
    if (!m->material)
        return ep_fail(EP_EINPUT, "%s: no /material", m->source);
    if ((st = ep_material_check(m->material, 0.5, m->source)) || (st = ep_h5_open(in, path, NULL)))
        return st;
    if (!ep_h5_exists(in, o->dataset))
        return ep_fail(EP_EINPUT, "%s: no basis %s (run moddesc, or name one with --basis)", in->path, o->dataset);
    if ((st = ep_h5_read(in, o->dataset, EP_F64, 2, d, &p)))
        return st;
    *U = p;
    *r = o->r ? (int)o->r : (int)d[0];
    if (*r > (int)d[0])
        return ep_fail(EP_EUSAGE, "-r %d: the basis %s has %d vectors", *r, o->dataset, (int)d[0]);
    for (size_t i = 0; i < (size_t)*r * d[1]; i++)
        if (!isfinite((*U)[i]))
            return ep_fail(EP_EINPUT, "%s: %s holds a non-finite value", in->path, o->dataset);
    return EP_OK;
}

int main(int argc, char **argv)
{
    opts o = {"/basis/U", 0, 0};
    ep_tool tool = {
        .name = "polycoef",
        .synopsis = "MODES.h5 [--basis DATASET] [-r N] [--split-material] -o CUBIC.h5",
        .purpose = "Cubic polynomial coefficients of the reduced St. Venant-Kirchhoff internal force\n"
                   "R(q) = U^T f(U q) for a basis U; mesh, material and support come from the input.",
        .help = "      --basis DATASET     the basis, rows of length 3nv (default /basis/U)\n"
                "  -r, --basis-size N      use the first N basis vectors (default: all)\n"
                "      --split-material    also write the lambda-only and mu-only coefficient sets\n",
        .options = options,
        .shortopts = "r:",
        .handle = handle,
        .ctx = &o,
        .min_inputs = 1,
        .max_inputs = 1,
        .need_output = 1,
    };
    ep_cli cli;
    ep_mesh m = {0};
    ep_h5 in = {0}, *out;
    ep_cubic tot = {0}, lam = {0}, mu = {0};
    double *U = NULL, t0 = ep_now();
    int st, r = 0;

    ep_cli_parse_or_exit(&cli, &tool, argc, argv);

    /* read -> validate */
    if ((st = ep_model_read(&m, cli.inputs[0])) || (st = read_basis(&m, cli.inputs[0], &o, &in, &U, &r)))
        goto out;

    /* compute */
    if ((st = ep_cubic_compute(&tot, o.split ? &lam : NULL, o.split ? &mu : NULL, &m, m.material, U, r)))
        goto out;
    double t_coef = ep_now() - t0;

    /* write: mesh, material, constraints, the basis used, the coefficients */
    hsize_t d[2] = {(hsize_t)r, 3 * (hsize_t)m.nv};
    if ((st = ep_cli_create_h5(&cli, "cubic", &out)) || (st = ep_model_write(out, &m, NULL, NULL)) ||
        (st = ep_h5_write(out, "/basis/U", EP_F64, 2, d, U)) || (st = write_set(out, "/cubic", &tot)) ||
        (o.split && ((st = write_set(out, "/cubic/lambda", &lam)) || (st = write_set(out, "/cubic/mu", &mu)))) ||
        (st = ep_output_commit(&cli.out)))
        goto out;
    if (!cli.quiet)
        printf("polycoef: %s: r = %d: %d + %ld + %ld coefficient vectors%s from %d tets in %.2f s "
               "(runtime force + stiffness polynomials: %.1f KiB)\n",
               cli.output, r, r, ep_cubic_npairs(r), ep_cubic_ntriples(r), o.split ? " (and lambda, mu parts)" : "",
               m.ne, t_coef, ep_cubic_runtime_bytes(r) / 1024.0);
out:
    ep_h5_close(&in);
    ep_cubic_free(&tot);
    ep_cubic_free(&lam);
    ep_cubic_free(&mu);
    free(U);
    ep_mesh_free(&m);
    ep_cli_exit(st);
}
