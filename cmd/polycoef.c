/*
 * polycoef — cubic polynomial coefficients of the reduced St. Venant-Kirchhoff
 * internal force for a basis U.  See polycoef(1).
 */
#include "cli.h"
#include "cubic.h"
#include "err.h"
#include "h5.h"
#include "mesh.h"

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
    ep_mesh m;
    ep_h5 in, out;
    ep_cubic tot = {0}, lam = {0}, mu = {0};
    double *U = NULL, t0 = ep_now();
    char tmp[4096];
    int st, inopen = 0;
    hsize_t d[2] = {0, 0};

    ep_cli_parse_or_exit(&tool, argc, argv, &cli);
    ep_mesh_init(&m);

    /* read -> validate */
    if ((st = ep_mesh_read(cli.inputs[0], &m)))
        ep_cli_exit(st);
    if (!m.tets) {
        st = ep_fail(EP_EINPUT, "%s: no tetrahedra in /mesh (polycoef needs the volumetric model)", m.source);
        goto out;
    }
    if (!m.material) {
        st = ep_fail(EP_EINPUT, "%s: no /material", m.source);
        goto out;
    }
    if ((st = ep_material_check(m.material, 0.5, m.source)) || (st = ep_h5_open(&in, cli.inputs[0], NULL)))
        goto out;
    inopen = 1;
    if (!ep_h5_exists(&in, o.dataset)) {
        st = ep_fail(EP_EINPUT, "%s: no basis %s (run moddesc, or name one with --basis)", in.path, o.dataset);
        goto out;
    }
    d[1] = 3 * (hsize_t)m.nv;
    void *p;
    if ((st = ep_h5_read(&in, o.dataset, EP_F64, 2, d, &p)))
        goto out;
    U = p;
    int r = o.r ? (int)o.r : (int)d[0];
    if (r > (int)d[0]) {
        st = ep_fail(EP_EUSAGE, "-r %d: the basis %s has %d vectors", r, o.dataset, (int)d[0]);
        goto out;
    }
    for (size_t i = 0; i < (size_t)r * d[1]; i++)
        if (!isfinite(U[i])) {
            st = ep_fail(EP_EINPUT, "%s: %s holds a non-finite value", in.path, o.dataset);
            goto out;
        }

    /* compute */
    if ((st = ep_cubic_compute(&m, m.material, U, r, &tot, o.split ? &lam : NULL, o.split ? &mu : NULL)))
        goto out;
    double t_coef = ep_now() - t0;

    /* write: mesh, material, constraints, the basis used, the coefficients */
    if ((st = ep_out_begin(cli.output, tmp, sizeof tmp)) ||
        (st = ep_h5_create(&out, tmp, "cubic", "polycoef " EP_VERSION, cli.command)))
        goto out;
    d[0] = (hsize_t)r;
    if (!(st = ep_h5_write_mesh(&out, &m)) && !(st = ep_h5_write_material(&out, m.material)) &&
        !(m.fixed && (st = ep_h5_write_fixed(&out, m.fixed, m.nfixed))) &&
        !(st = ep_h5_write(&out, "/basis/U", EP_F64, 2, d, U)) && !(st = write_set(&out, "/cubic", &tot)) && o.split &&
        !(st = write_set(&out, "/cubic/lambda", &lam)))
        st = write_set(&out, "/cubic/mu", &mu);
    int cst = ep_h5_close(&out);
    st = st ? st : cst;
    if (st || (st = ep_out_commit(tmp, cli.output)))
        goto out;
    if (!cli.quiet)
        printf("polycoef: %s: r = %d: %d + %ld + %ld coefficient vectors%s from %d tets in %.2f s "
               "(runtime force + stiffness polynomials: %.1f KiB)\n",
               cli.output, r, r, ep_cubic_npairs(r), ep_cubic_ntriples(r), o.split ? " (and lambda, mu parts)" : "",
               m.ne, t_coef, ep_cubic_runtime_bytes(r) / 1024.0);
out:
    if (inopen)
        ep_h5_close(&in);
    ep_cubic_free(&tot);
    ep_cubic_free(&lam);
    ep_cubic_free(&mu);
    free(U);
    ep_mesh_free(&m);
    ep_cli_exit(st);
}
