/*
 * bemsolve — boundary Green's functions of a homogeneous linear-elastic solid
 * by the boundary element method: linear elements, vertex collocation, one
 * dense LU and every column by blocked back-substitution.  See bemsolve(1).
 */
#include "bemgf.h"
#include "cli.h"
#include "err.h"
#include "gf.h"
#include "h5.h"
#include "mesh.h"
#include "select.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int single, check, constant;
    double max_memory;
    ep_gf_columns cols;
} opts;

enum {
    OPT_SINGLE = 2000, OPT_CHECK, OPT_MAXMEM, OPT_ELEMENTS
};

static const struct option options[] = {
    EP_GF_COLUMN_OPTIONS,
    {"single", no_argument, NULL, OPT_SINGLE},
    {"check", no_argument, NULL, OPT_CHECK},
    {"max-memory", required_argument, NULL, OPT_MAXMEM},
    {"elements", required_argument, NULL, OPT_ELEMENTS},
    {0},
};

static int handle(int code, const char *arg, void *ctx)
{
    opts *o = ctx;
    int st = ep_gf_column_option(&o->cols, code, arg);
    if (st >= 0)
        return st;
    switch (code) {
    case OPT_SINGLE:
        o->single = 1;
        return EP_OK;
    case OPT_CHECK:
        o->check = 1;
        return EP_OK;
    case OPT_MAXMEM:
        return ep_cli_bytes("--max-memory", arg, &o->max_memory);
    case OPT_ELEMENTS:
        if (strcmp(arg, "linear") && strcmp(arg, "constant"))
            return ep_fail(EP_EUSAGE, "option --elements: expected linear or constant, got \"%s\"", arg);
        o->constant = !strcmp(arg, "constant");
        return EP_OK;
    }
    return EP_EUSAGE;
}

/* The BEM model is the boundary surface: closed, manifold, outward, welded.
 * An inward surface is turned around (with a note), not refused. */
static int validate_surface(ep_mesh *m, int quiet)
{
    int st, first;
    double area, vol;
    if ((st = ep_mesh_check_closed(m)) || (st = ep_mesh_check_distinct(m)))
        return st;
    if (ep_mesh_count_degenerate(m, &first))
        return ep_fail(EP_EINPUT, "%s: triangle %d is degenerate (zero area)", m->source, first + 1);
    ep_mesh_surface_measures(m, &area, &vol);
    if (vol < 0) {
        for (int t = 0; t < m->nf; t++) {
            int tmp = m->triangles[3 * t + 1];
            m->triangles[3 * t + 1] = m->triangles[3 * t + 2];
            m->triangles[3 * t + 2] = tmp;
        }
        if (!quiet)
            fprintf(stderr, "bemsolve: note: %s is oriented inward (enclosed volume %g); using it turned "
                    "outward\n", m->source, vol);
    }
    return EP_OK;
}

int main(int argc, char **argv)
{
    opts o = {0};
    ep_tool tool = {
        .name = "bemsolve",
        .synopsis = "SURFACE --fixed-... -E PA --nu V [options] -o GF.h5",
        .purpose = "Boundary Green's functions of a homogeneous elastic solid by the boundary element method:\n"
                   "linear elements, vertex collocation, one dense LU, all columns by back-substitution.",
        .help = "      --elements linear|constant\n"
                "                          hat functions at the vertices (default), or one constant\n"
                "                          value per triangle collocated at its centroid\n"
                EP_GF_COLUMN_HELP
                "      --single            store /gf/xi as float32\n"
                "      --check             report the rigid-rotation residual, sampled column residuals\n"
                "                          and the condition estimate of A\n"
                "      --max-memory SIZE   refuse runs needing more (default: 90% of the machine's)\n",
        .common = EP_CLI_MATERIAL | EP_CLI_FIXED,
        .options = options,
        .handle = handle,
        .ctx = &o,
        .min_inputs = 1,
        .max_inputs = 1,
        .need_output = 1,
    };
    ep_cli cli;
    ep_mesh m;
    ep_material mat;
    ep_gf_layout L;
    ep_bemgf_stats stats;
    ep_h5 f;
    ep_gf_writer w;
    char tmp[4096], *fixed = NULL;
    int *cols = NULL, ncols = 0, nfixed = 0, st, open = 0;
    double *xi = NULL, t0 = ep_now();

    ep_cli_parse_or_exit(&tool, argc, argv, &cli);
    o.max_memory = ep_mem_limit(o.max_memory);
    memset(&L, 0, sizeof L);
    ep_material_init(&mat);

    /* read -> validate */
    if ((st = ep_mesh_read(cli.inputs[0], &m)))
        ep_cli_exit(st);
    if ((st = validate_surface(&m, cli.quiet)) || (st = ep_cli_material(&cli, &m, 0.5 + 1e-12, &mat)))
        goto out;
    if (mat.ne) {
        st = ep_fail(EP_EINPUT, "%s: the material varies per element; the BEM needs a homogeneous one "
                     "(give -E and --nu, or use femcondense)", m.source);
        goto out;
    }
    if ((st = ep_cli_fixed(&cli, &m, &fixed, &nfixed)))
        goto out;
    int dropped = 0;
    char *onb = ep_calloc((size_t)m.nv, 1);
    if (!onb) {
        st = EP_ECOMPUTE;
        goto out;
    }
    for (int j = 0; j < m.nb; j++)
        onb[m.boundary[j]] = 1;
    for (int v = 0; v < m.nv; v++)
        if (fixed[v] && !onb[v]) { /* the BEM model has no interior */
            fixed[v] = 0;
            dropped++;
        }
    free(onb);
    nfixed -= dropped;
    if (dropped && !cli.quiet)
        fprintf(stderr, "bemsolve: note: %d fixed vertices inside the volume ignored (the BEM model is the "
                "surface)\n", dropped);
    if ((st = ep_mesh_check_support(&m, fixed, 1)))
        goto out;
    if (o.constant && ep_vsel_given(&o.cols.sel)) {
        st = ep_fail(EP_EUSAGE, "column selections (--col-...) need linear elements");
        goto out;
    }
    if (ep_vsel_given(&o.cols.sel) && (st = ep_gf_select_columns(&m, &o.cols.sel, &cols, &ncols)))
        goto out;
    if ((st = o.constant ? ep_gf_layout_triangles(&m, fixed, o.cols.all, &L)
                         : ep_gf_layout_build(&m, fixed, o.cols.all, cols, ncols, &L)))
        goto out;

    if ((st = ep_out_check_space(cli.output, 9.0 * L.m * (double)L.n * (o.single ? 4 : 8))))
        goto out;

    /* compute */
    ep_bemgf_opts bo = {mat.E, mat.nu, o.max_memory, o.check, o.constant};
    if ((st = ep_bemgf_solve(&m, &L, &bo, &xi, &stats)))
        goto out;

    /* write */
    if ((st = ep_out_begin(cli.output, tmp, sizeof tmp)) ||
        (st = ep_h5_create(&f, tmp, "gf", "bemsolve " EP_VERSION, cli.command)))
        goto out;
    open = 1;
    if (!(st = ep_h5_write_model(&f, &m, &mat, fixed)) &&
        !(st = ep_gf_writer_open(&w, &f, &L, o.constant ? "bem-constant" : "bem-linear", o.single))) {
        ep_h5_set_attr_string(&f, "/gf", "traction_model", "consistent");
        st = ep_gf_writer_put(&w, 0, 3L * L.m, xi);
        int cst = ep_gf_writer_close(&w);
        st = st ? st : cst;
    }
    int cst = ep_h5_close(&f);
    open = 0;
    st = st ? st : cst;
    if (st || (st = ep_out_commit(tmp, cli.output)))
        goto out;

    if (!cli.quiet) {
        printf("bemsolve: %s: %d x %d GF blocks (%s %s elements, %s columns%s), %d triangles, %d fixed vertices, "
               "nu = %g\n",
               cli.output, L.m, L.n, o.constant ? "constant" : "linear", o.constant ? "triangle" : "vertex",
               cols ? "selected" : o.cols.all ? "all" : "free", o.single ? ", float32" : "", m.nf, nfixed, mat.nu);
        printf("bemsolve: A is %d x %d; assemble %.2f s, LU %.2f s (%.1f GFlop/s), solve %.2f s (%.1f GFlop/s) "
               "on %d threads; memory %.0f MiB; total %.2f s\n",
               stats.n3, stats.n3, stats.t_assemble, stats.t_lu, stats.lu_flops / fmax(stats.t_lu, 1e-9) / 1e9,
               stats.t_solve, stats.solve_flops / fmax(stats.t_solve, 1e-9) / 1e9, omp_get_max_threads(),
               stats.memory / 1048576.0, ep_now() - t0);
        if (o.check)
            printf("bemsolve: check: rigid-rotation residual %.2e, sampled column residual %.2e, "
                   "condition estimate %.3g\n",
                   stats.rotation_residual, stats.column_residual, stats.rcond > 0 ? 1.0 / stats.rcond : INFINITY);
    }
out:
    if (open)
        ep_h5_close(&f);
    free(xi);
    free(cols);
    free(fixed);
    ep_gf_layout_free(&L);
    ep_material_free(&mat);
    ep_mesh_free(&m);
    ep_cli_exit(st);
}
