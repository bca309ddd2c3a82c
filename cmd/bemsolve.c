/*
 * bemsolve — boundary Green's functions of a homogeneous linear-elastic solid
 * by the boundary element method: linear elements, vertex collocation, one
 * dense LU and every column by blocked back-substitution.  See bemsolve(1).
 */
#include "bemgf.h"
#include "cli.h"
#include "err.h"
#include "gf.h"
#include "gfform.h"
#include "h5.h"
#include "mem.h"
#include "mesh.h"
#include "model.h"
#include "part.h"
#ifdef EP_MPI /* make mpi: bin/bemsolve-mpi (bemsolve(1), OVER MPI) */
#include "bemmpi.h"
#include "gfmpi.h"
#endif

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int check, constant;
    long block;
    double max_memory;
    ep_gfform form; /* also --single, --body-force, --interior, --part */
    const char *grid;
} opts;

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

/* The BEM model has no interior: fixed vertices off the surface are dropped
 * (with a note), and what remains must hold every rigid motion. */
static int surface_support(const ep_mesh *m, char *fixed, int *nfixed, int quiet)
{
    int dropped, st = ep_mesh_unfix_interior(m, fixed, &dropped);
    if (st)
        return st;
    *nfixed -= dropped;
    if (dropped && !quiet)
        fprintf(stderr, "bemsolve: note: %d fixed vertices inside the volume ignored (the BEM model is the "
                "surface)\n", dropped);
    return ep_mesh_check_support(m, fixed, 1);
}

/* parse_command_line: the options and --help of cmd/spec/bemsolve.json (scripts/toolspec.py). */
#include "bemsolve_spec.h"

int main(int argc, char **argv)
{
    opts o = {0};
    ep_gfform_init(&o.form);
    ep_cli cli;
    ep_mesh m = {0};
    ep_material mat = {0};
    ep_gf_layout L = {0}, Lp = {0};
    ep_bemgf_stats stats;
    char *fixed = NULL;
    int *cols = NULL, ncols = 0, nfixed = 0, np = 0, st;
    double *body = NULL, *pts = NULL, *irows = NULL, t0 = ep_now();
#ifdef EP_MPI
    ep_ranks_grid grid = {.ctxt = -1, .ctxt_line = -1};
    int rank = ep_ranks_start(&argc, &argv);
#endif

    parse_command_line(&cli, &o, argc, argv);
#ifdef EP_MPI /* what the MPI solve does not do is refused (bemsolve(1), OVER MPI) */
    if (o.check || o.form.part.count || o.form.body || o.form.interior)
        ep_cli_exit(ep_fail(EP_EUSAGE, "%s is for the serial bemsolve", o.check ? "--check" : o.form.part.count ? "--part"
                                                                        : o.form.body ? "--body-force" : "--interior"));
    if ((st = ep_ranks_grid_init(&grid, o.grid)))
        ep_cli_exit(st);
    cli.quiet |= rank != 0;
#endif
    o.max_memory = ep_mem_limit(o.max_memory);
    if (o.constant && (ep_select_given(&cli.columns) || o.form.body || o.form.interior))
        ep_cli_exit(ep_fail(EP_EUSAGE, "%s need linear elements",
                            o.form.body ? "--body-force" : o.form.interior ? "--interior" : "column selections (--col-...)"));
    if ((st = ep_gfform_check(&o.form, &cli, 0)))
        ep_cli_exit(st);

    /* read -> validate */
    if ((st = ep_cli_read_closed_surface(&cli, &m, cli.inputs[0])) || (st = validate_surface(&m, cli.quiet)) ||
        (st = ep_cli_material(&cli, &m, 0.5 + 1e-12, &mat)) || (st = ep_cli_body_density(&mat, o.form.body, m.source)))
        goto out;
    if (mat.ne) {
        st = ep_fail(EP_EINPUT, "%s: the material varies per element; the BEM needs a homogeneous one "
                     "(give -E and --nu, or use femcondense)", m.source);
        goto out;
    }
    if ((st = ep_cli_fixed(&cli, &m, &fixed, &nfixed)) || (st = surface_support(&m, fixed, &nfixed, cli.quiet)) ||
        (st = ep_cli_columns(&cli, &m, &cols, &ncols)) ||
        (st = o.constant ? ep_gf_layout_triangles(&L, &m, fixed, cli.all_columns)
                         : ep_gf_layout_build(&L, &m, fixed, cli.all_columns, cols, ncols)) ||
        (st = ep_gfform_plan(&o.form, &m, &L, m.source)) || (o.form.interior && (st = ep_cli_interior_surface(&m, o.form.interior, &pts, &np))))
        goto out;
    ep_cli_model_summary(&cli, &m, &mat);
    /* A part: whole blocks of right-hand sides of the single run (bemgf.h),
     * of the columns the run solves (free columns, or the hat loads of
     * --constraint-level). */
    long ncb = o.block > 0 ? o.block : EP_BEMGF_BLOCK;
    char creator[64], optstr[128];
    snprintf(creator, sizeof creator, "bemsolve %s", EP_VERSION);
    snprintf(optstr, sizeof optstr, "elements=%s single=%d block=%ld level=%ld", o.constant ? "constant" : "linear",
             o.form.single, ncb, o.form.level);
    if ((st = ep_part_gf_share(&o.form.part, &Lp, creator, &m, &mat, fixed, o.form.L, optstr, ncb)))
        goto out;
    if ((st = ep_gfform_use_layout(&o.form, &Lp, &cli.out, o.form.single)))
        goto out;

    /* compute -> write: each block of solved GF rows goes to the file at
     * once, dense or compressed (gfform.h); an empty part (more parts than
     * blocks) solves nothing */
    const char *method = o.constant ? "bem-constant" : "bem-linear";
    if ((o.form.body && !(body = ep_malloc(9 * (size_t)L.n, sizeof *body))) ||
        (pts && !(irows = ep_malloc(27 * (size_t)np * ((size_t)o.form.L->m + (body ? 1 : 0)), sizeof *irows)))) {
        st = EP_ECOMPUTE;
        goto out;
    }
    ep_bemgf_opts bo = {mat.E, mat.nu, o.max_memory, o.check, o.constant, (int)o.block, ep_gfform_bytes(&o.form, 0),
                        mat.rho, body, np, pts, irows};
    memset(&stats, 0, sizeof stats);
#ifdef EP_MPI /* every rank its blocks; one file from all (gfmpi.h) */
    ep_gfmpi gm;
    if (!(st = ep_gfmpi_open(&gm, &grid, &o.form, &cli, &m, &mat, fixed, method, o.form.single))) {
        ep_gf_sink sink = ep_gfmpi_sink(&gm, "bemsolve", cli.quiet);
        if (!(st = ep_bemmpi_solve(&grid, &m, &Lp, &bo, &sink, &stats)))
            st = ep_gfmpi_close(&gm);
    }
    ep_gfmpi_free(&gm);
    if (st)
        goto out;
    double peak = ep_ranks_max(ep_mem_peak()); /* every rank's, before rank 0 reports */
#else
    if ((st = ep_gfform_open(&o.form, &cli, &m, &mat, fixed, method, "consistent", o.form.single)))
        goto out;
    ep_gf_sink sink = ep_gfform_sink(&o.form, "bemsolve", cli.quiet);
    if (Lp.m)
        st = ep_bemgf_solve(&m, &Lp, &bo, &sink, &stats);
    ep_progress_end(&o.form.bar);
    if (st || (st = ep_gfsink_close(&o.form.sink)) || (o.form.part.count && (st = ep_part_write(&cli.out.h5, &o.form.part))) ||
        (body && (st = ep_gf_write_body(&cli.out.h5, &L, body))) ||
        (pts && (st = ep_gf_write_interior(&cli.out.h5, o.form.L, pts, np, irows, body != NULL))) ||
        (st = ep_output_commit(&cli.out)))
        goto out;
#endif

    if (!cli.quiet) {
        if (o.form.part.count)
            printf("bemsolve: %s: part %d of %d: columns %ld..%ld of %d (each part repeats the assembly and LU)\n",
                   cli.output, o.form.part.index, o.form.part.count, o.form.part.lo, o.form.part.hi, L.m);
        printf("bemsolve: %s: %d x %d GF blocks (%s %s elements, %s columns%s), %d triangles, %d fixed vertices, "
               "nu = %g\n",
               cli.output, Lp.m, L.n, o.constant ? "constant" : "linear", o.constant ? "triangle" : "vertex",
               o.form.level >= 0 ? "hat-load" : cols ? "selected" : cli.all_columns ? "all" : "free", o.form.single ? ", float32" : "", m.nf, nfixed, mat.nu);
        printf("bemsolve: A is %d x %d; assemble %.2f s (right-hand sides %.2f s), LU %.2f s (%.1f GFlop/s), solve %.2f s (%.1f GFlop/s) "
               "on %d threads; memory %.0f MiB; total %.2f s\n",
               stats.n3, stats.n3, stats.t_assemble, stats.t_rhs, stats.t_lu, stats.lu_flops / fmax(stats.t_lu, 1e-9) / 1e9,
               stats.t_solve, stats.solve_flops / fmax(stats.t_solve, 1e-9) / 1e9, omp_get_max_threads(),
               stats.memory / EP_MEM_MIB, ep_now() - t0);
        if (np) /* issue 40: time per point per column beside the flop rate */
            printf("bemsolve: interior rows: %d points in %.2f s, %.3g us a point a column, %.1f GFlop/s with the "
                   "products' %.3g flops\n", np, stats.t_interior, 1e6 * stats.t_interior / np / (3.0 * Lp.m),
                   144.0 * L.n * 3.0 * Lp.m * np / fmax(stats.t_interior, 1e-9) / 1e9, 144.0 * L.n * 3.0 * Lp.m * np);
        if (body) /* issue 40: beside 3 GF columns of this run (tests/bench/bemsolve.sh times the assembly's share) */
            printf("bemsolve: body-force rows: boundary data %.3g flops, solve %.4f s; 3 GF columns %.4f s; the data's "
                   "sum %.3f CPU s (%.1f GFlop/s a CPU second) of the assembly's %.2f CPU s\n", stats.body_data_flops,
                   stats.t_body_solve, (stats.t_rhs + stats.t_solve) / Lp.m, stats.t_body_data_cpu,
                   stats.body_data_flops / fmax(stats.t_body_data_cpu, 1e-9) / 1e9, stats.t_assemble_cpu);
        printf("bemsolve: peak resident %.0f MiB\n", ep_mem_peak() / EP_MEM_MIB);
#ifdef EP_MPI
        printf("bemsolve: %d MPI ranks on a %d x %d grid (blocks of %d); memory a rank: estimate %.0f MiB, "
               "largest peak resident %.0f MiB\n", grid.size, grid.pr, grid.pc, EP_BEMMPI_NB,
               stats.memory / EP_MEM_MIB, peak / EP_MEM_MIB);
#endif
        ep_gfform_report(&o.form, "bemsolve", cli.output);
        if (o.check)
            printf("bemsolve: check: rigid-rotation residual %.2e, sampled column residual %.2e, "
                   "condition estimate %.3g\n",
                   stats.rotation_residual, stats.column_residual, stats.rcond > 0 ? 1.0 / stats.rcond : INFINITY);
    }
out:
#ifdef EP_MPI
    ep_ranks_grid_free(&grid);
#endif
    ep_gfform_free(&o.form);
    free(body), free(pts), free(irows), free(cols), free(fixed);
    ep_gf_layout_free(&L);
    ep_gf_layout_free(&Lp);
    ep_material_free(&mat);
    ep_mesh_free(&m);
    ep_cli_exit(st);
}
