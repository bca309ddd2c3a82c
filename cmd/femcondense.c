/*
 * femcondense — boundary Green's functions (and the condensed boundary
 * stiffness) of a tetrahedral linear-elastic model, by one sparse Cholesky
 * factorization and blocked solves.  See femcondense(1).
 */
#include "cli.h"
#include "err.h"
#include "femgf.h"
#include "gf.h"
#include "gfform.h"
#include "h5.h"
#include "mem.h"
#include "mesh.h"
#include "model.h"
#include "part.h"
#include "progress.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int lumped, condensed;
    long block;
    double max_memory;
    ep_gfform form; /* also --single, --body-force, --interior, --part */
} opts;

/* parse_command_line: the options and --help of cmd/spec/femcondense.json (scripts/toolspec.py). */
#include "femcondense_spec.h"

int main(int argc, char **argv)
{
    opts o = {.block = 64};
    ep_gfform_init(&o.form);
    ep_cli cli;
    ep_mesh m = {0};
    ep_material mat = {0};
    ep_gf_layout L = {0}, Lp = {0};
    ep_femgf_stats stats = {0};
    ep_h5 *f = NULL;
    char *fixed = NULL;
    int *cols = NULL, ncols = 0, nfixed = 0, st;
    double *S = NULL, *body = NULL, *pts = NULL, *pw = NULL, *irows = NULL, t0 = ep_now();
    int np = 0, *ptet = NULL;

    parse_command_line(&cli, &o, argc, argv);
    o.max_memory = ep_mem_limit(o.max_memory);
    if ((st = ep_gfform_check(&o.form, &cli, 0)))
        ep_cli_exit(st);

    /* read -> validate */
    if ((st = ep_cli_read_volume(&cli, &m, cli.inputs[0])))
        goto out;
    if ((st = ep_cli_material(&cli, &m, 0.5, &mat)) || (st = ep_cli_body_density(&mat, o.form.body, m.source)) || (st = ep_cli_fixed(&cli, &m, &fixed, &nfixed)) ||
        (st = ep_cli_columns(&cli, &m, &cols, &ncols)) ||
        (st = ep_gf_layout_build(&L, &m, fixed, cli.all_columns, cols, ncols)) ||
        (st = ep_gfform_plan(&o.form, &m, &L, m.source)) || (o.form.interior && (st = ep_cli_interior(&m, o.form.interior, &pts, &np, &ptet, &pw))))
        goto out;
    ep_cli_model_summary(&cli, &m, &mat);
    /* A part solves whole blocks of the single run, of the columns the run
     * solves (free columns, or the hat loads of --constraint-level): its
     * first GF row 3 c0 must be a multiple of the block, so c0 one of
     * block / gcd(block, 3). */
    char creator[64], optstr[160];
    snprintf(creator, sizeof creator, "femcondense %s", EP_VERSION);
    snprintf(optstr, sizeof optstr, "traction=%s condensed=%d single=%d block=%ld level=%ld",
             o.lumped ? "lumped" : "consistent", o.condensed, o.form.single, o.block, o.form.level);
    int condensed = o.condensed && o.form.part.index == 0; /* the condensed stiffness goes with part 0 */
    if ((st = ep_part_gf_share(&o.form.part, &Lp, creator, &m, &mat, fixed, o.form.L, optstr,
                               o.block % 3 ? o.block : o.block / 3)))
        goto out;
    if ((st = ep_gfform_use_layout(&o.form, &Lp, &cli.out, o.form.single)))
        goto out;

    /* compute -> write: each block of solved GF rows goes to the file at
     * once, dense or compressed (gfform.h) */
    if ((st = ep_gfform_open(&o.form, &cli, &m, &mat, fixed, m.hexes ? "fem-hex8" : "fem-tet4", o.lumped ? "lumped" : "consistent",
                             o.form.single)))
        goto out;
    f = &cli.out.h5;
    if ((o.form.body && !(body = ep_malloc(9 * (size_t)L.n, sizeof *body))) ||
        (pts && !(irows = ep_malloc(9 * (size_t)np * (3 * (size_t)o.form.L->m + 3), sizeof *irows)))) {
        st = EP_ECOMPUTE;
        goto out;
    }
    ep_femgf_opts fo = {o.lumped, (int)o.block, o.max_memory, condensed,
                        ep_gfform_bytes(&o.form, (double)omp_get_max_threads() * o.block), body, np, ptet, pw, irows};
    ep_gf_sink sink = ep_gfform_sink(&o.form, "femcondense", cli.quiet);
    if (Lp.m || condensed) /* an empty part (more parts than blocks) factors nothing */
        st = ep_femgf_solve(&m, &mat, fixed, &Lp, &fo, &sink, &S, &stats);
    ep_progress_end(&o.form.bar);
    hsize_t d[2] = {3 * (hsize_t)L.n, 3 * (hsize_t)L.n};
    if (st || (st = ep_gfsink_close(&o.form.sink)) ||
        (S && (st = ep_h5_write(f, "/gf/condensed", EP_F64, 2, d, S))) ||
        (body && (st = ep_gf_write_body(f, &L, body))) ||
        (pts && (st = ep_gf_write_interior(f, o.form.L, pts, np, irows, o.form.body))) ||
        (o.form.part.count && (st = ep_part_write(f, &o.form.part))) || (st = ep_output_commit(&cli.out)))
        goto out;

    if (!cli.quiet) {
        if (o.form.part.count)
            printf("femcondense: %s: part %d of %d: columns %ld..%ld of %d (each part repeats the factorization)\n",
                   cli.output, o.form.part.index, o.form.part.count, o.form.part.lo, o.form.part.hi, L.m);
        printf("femcondense: %s: %d x %d GF blocks (%s columns, %s traction%s) from %d %s, %d fixed vertices\n",
               cli.output, Lp.m, L.n, o.form.level >= 0 ? "hat-load" : cols ? "selected" : cli.all_columns ? "all" : "free",
               o.lumped ? "lumped" : "consistent", o.form.single ? ", float32" : "", ep_mesh_nelements(&m),
               m.hexes ? "hexes" : "tets", nfixed);
        printf("femcondense: %d unknowns, factor %.3g nonzeros; assemble %.2f s, factor %.2f s, "
               "solve %.2f s (%.3g flops, %.0f%% of full solves; %.1f GFlop/s on %d threads, %.1f per CPU second), write %.2f s%s; memory estimate %.0f MiB, "
               "peak resident %.0f MiB; total %.2f s\n",
               stats.ndof, stats.lnz, stats.t_assemble, stats.t_factor, stats.t_solve, stats.solve_flops,
               stats.full_flops > 0 ? 100 * stats.solve_flops / stats.full_flops : 0.0, stats.t_solve > 0 ? stats.solve_flops / stats.t_solve / 1e9 : 0.0, omp_get_max_threads(),
               stats.t_solve_cpu > 0 ? stats.solve_flops / stats.t_solve_cpu / 1e9 : 0.0,
               stats.t_write, o.condensed ? "; condensed stiffness written" : o.form.body ? "; body-force rows written" : "", stats.memory / EP_MEM_MIB,
               ep_mem_peak() / EP_MEM_MIB, ep_now() - t0);
        if (o.form.body) { /* issue 40: at most 3 right-hand sides' worth; an ordinary one: this run's average */
            double f3 = 3 * (stats.solve_flops - stats.body_flops) / (3.0 * Lp.m), c3 = stats.t_solve_cpu / Lp.m;
            printf("femcondense: body-force rows: %.3g flops in %.3f s (%.4f CPU s), %.2f full solves; 3 GF columns "
                   "of this run: %.3g flops, %.4f CPU s; ratio %.2f in flops, %.2f in CPU time; of theirs, the forward "
                   "alone where the first block's GF loads do not reach: %.3g flops, %.4f CPU s\n", stats.body_flops,
                   stats.t_body, stats.t_body_cpu, stats.body_flops / (4 * stats.lnz), f3, c3, stats.body_flops / f3,
                   stats.t_body_cpu / c3, stats.body_lead_flops, stats.t_body_lead_cpu);
        }
        if (stats.border_rank)
            printf("femcondense: support border: Woodbury rank %d (consistent traction), its forward term on %d "
                   "rows in %d supernodes\n", stats.border_rank, stats.border_rows, stats.border_supernodes);
        ep_gfform_report(&o.form, "femcondense", cli.output);
    }
out:
    ep_gfform_free(&o.form);
    free(S);
    free(body), free(pts), free(pw), free(ptet), free(irows);
    free(cols);
    free(fixed);
    ep_gf_layout_free(&L);
    ep_gf_layout_free(&Lp);
    ep_material_free(&mat);
    ep_mesh_free(&m);
    ep_cli_exit(st);
}
