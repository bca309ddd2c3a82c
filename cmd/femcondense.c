/*
 * femcondense — boundary Green's functions (and the condensed boundary
 * stiffness) of a tetrahedral linear-elastic model, by one sparse Cholesky
 * factorization and blocked solves.  See femcondense(1).
 */
#include "cli.h"
#include "err.h"
#include "femgf.h"
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
    int lumped, condensed, single;
    long block;
    double max_memory;
    ep_gf_columns cols;
} opts;

enum {
    OPT_TRACTION = 2000, OPT_CONDENSED, OPT_SINGLE,
    OPT_BLOCK, OPT_MAXMEM
};

static const struct option options[] = {
    EP_GF_COLUMN_OPTIONS,
    {"traction", required_argument, NULL, OPT_TRACTION},
    {"condensed", no_argument, NULL, OPT_CONDENSED},
    {"single", no_argument, NULL, OPT_SINGLE},
    {"block", required_argument, NULL, OPT_BLOCK},
    {"max-memory", required_argument, NULL, OPT_MAXMEM},
    {0},
};

static int handle(int code, const char *arg, void *ctx)
{
    opts *o = ctx;
    int st = ep_gf_column_option(&o->cols, code, arg);
    if (st >= 0)
        return st;
    switch (code) {
    case OPT_TRACTION:
        if (strcmp(arg, "consistent") && strcmp(arg, "lumped"))
            return ep_fail(EP_EUSAGE, "option --traction: expected consistent or lumped, got \"%s\"", arg);
        o->lumped = !strcmp(arg, "lumped");
        return EP_OK;
    case OPT_CONDENSED:
        o->condensed = 1;
        return EP_OK;
    case OPT_SINGLE:
        o->single = 1;
        return EP_OK;
    case OPT_BLOCK:
        return ep_cli_int("--block", arg, 1, 4096, &o->block);
    case OPT_MAXMEM:
        return ep_cli_bytes("--max-memory", arg, &o->max_memory);
    }
    return EP_EUSAGE;
}

typedef struct {
    ep_gf_writer w;
    ep_progress bar;
} sink_ctx;

static int put_rows(void *ctx, long row0, long nrows, const double *rows)
{
    return ep_gf_writer_put(&((sink_ctx *)ctx)->w, row0, nrows, rows);
}

static void progress(void *ctx, long done, long total)
{
    (void)total;
    ep_progress_update(&((sink_ctx *)ctx)->bar, done);
}

int main(int argc, char **argv)
{
    opts o = {.block = 64};
    ep_tool tool = {
        .name = "femcondense",
        .synopsis = "MESH --fixed-... [-E PA --nu V | -m FILE] [options] -o GF.h5",
        .purpose = "Boundary Green's functions (and condensed stiffness) of a tetrahedral model by sparse\n"
                   "Cholesky: one factorization, then every column solved in blocks of right-hand sides.",
        .help = EP_GF_COLUMN_HELP
                "      --traction consistent|lumped\n"
                "                          surface load of a unit traction: hat-function mass (default)\n"
                "                          or vertex area\n"
                "      --condensed         also write the condensed stiffness /gf/condensed\n"
                "      --single            store /gf/xi as float32\n"
                "      --block K           right-hand sides per solve (default 64)\n"
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
    ep_femgf_stats stats;
    ep_h5 f;
    sink_ctx sc;
    char tmp[4096], *fixed = NULL;
    int *cols = NULL, ncols = 0, nfixed = 0, st, fopen_ok = 0;
    double *S = NULL, t0 = ep_now();

    ep_cli_parse_or_exit(&tool, argc, argv, &cli);
    o.max_memory = ep_mem_limit(o.max_memory);
    memset(&L, 0, sizeof L);
    ep_material_init(&mat);

    /* read -> validate */
    if ((st = ep_mesh_read(cli.inputs[0], &m)))
        ep_cli_exit(st);
    if (!m.tets) {
        st = ep_fail(EP_EINPUT, "%s: not a tetrahedral mesh (femcondense needs tets)", m.source);
        goto out;
    }
    if ((st = ep_cli_material(&cli, &m, 0.5, &mat)) || (st = ep_cli_fixed(&cli, &m, &fixed, &nfixed)))
        goto out;
    if (ep_vsel_given(&o.cols.sel) && (st = ep_gf_select_columns(&m, &o.cols.sel, &cols, &ncols)))
        goto out;
    if ((st = ep_gf_layout_build(&m, fixed, o.cols.all, cols, ncols, &L)))
        goto out;
    if ((st = ep_out_check_space(cli.output, 9.0 * L.m * (double)L.n * (o.single ? 4 : 8))))
        goto out;

    /* compute -> write, streaming GF rows into the file */
    if ((st = ep_out_begin(cli.output, tmp, sizeof tmp)) ||
        (st = ep_h5_create(&f, tmp, "gf", "femcondense " EP_VERSION, cli.command)))
        goto out;
    fopen_ok = 1;
    if ((st = ep_h5_write_model(&f, &m, &mat, fixed)) || (st = ep_gf_writer_open(&sc.w, &f, &L, "fem-tet4", o.single)))
        goto out;
    ep_h5_set_attr_string(&f, "/gf", "traction_model", o.lumped ? "lumped" : "consistent");
    ep_progress_start(&sc.bar, "femcondense", 3L * L.m, cli.quiet);
    ep_femgf_opts fo = {o.lumped, (int)o.block, o.max_memory, o.condensed};
    ep_femgf_sink sink = {put_rows, progress, &sc};
    st = ep_femgf_solve(&m, &mat, fixed, &L, &fo, &sink, &S, &stats);
    ep_progress_end(&sc.bar);
    int cst = ep_gf_writer_close(&sc.w);
    st = st ? st : cst;
    if (!st && S) {
        hsize_t d[2] = {3 * (hsize_t)L.n, 3 * (hsize_t)L.n};
        st = ep_h5_write(&f, "/gf/condensed", EP_F64, 2, d, S);
    }
    cst = ep_h5_close(&f);
    fopen_ok = 0;
    st = st ? st : cst;
    if (st || (st = ep_out_commit(tmp, cli.output)))
        goto out;

    if (!cli.quiet) {
        printf("femcondense: %s: %d x %d GF blocks (%s columns, %s traction%s) from %d tets, %d fixed vertices\n",
               cli.output, L.m, L.n, cols ? "selected" : o.cols.all ? "all" : "free",
               o.lumped ? "lumped" : "consistent", o.single ? ", float32" : "", m.ne, nfixed);
        printf("femcondense: %d unknowns, factor %.3g nonzeros; assemble %.2f s, factor %.2f s, "
               "solve %.2f s (%.1f GFlop/s on %d threads), write %.2f s%s; memory estimate %.0f MiB, "
               "peak resident %.0f MiB; total %.2f s\n",
               stats.ndof, stats.lnz, stats.t_assemble, stats.t_factor, stats.t_solve,
               stats.t_solve > 0 ? stats.solve_flops / stats.t_solve / 1e9 : 0.0, omp_get_max_threads(),
               stats.t_write, o.condensed ? "; condensed stiffness written" : "", stats.memory / 1048576.0,
               ep_peak_rss() / 1048576.0, ep_now() - t0);
    }
out:
    if (fopen_ok) {
        ep_gf_writer_close(&sc.w);
        ep_h5_close(&f);
    }
    free(S);
    free(cols);
    free(fixed);
    ep_gf_layout_free(&L);
    ep_material_free(&mat);
    ep_mesh_free(&m);
    ep_cli_exit(st);
}
