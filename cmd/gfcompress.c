/*
 * gfcompress — wavelet compression of boundary Green's functions, and
 * hierarchical GFs for coarser constraints.  See gfcompress(1).
 *
 * The mathematics is in the library: gfhier.h (the hierarchy under the GF
 * rows, hat-constraint columns), gfzip.h (a block of columns transformed,
 * thresholded and measured), gfw.h (the compressed file); sweep.h draws
 * and prints the --sweep table.
 */
#include "cli.h"
#include "err.h"
#include "gf.h"
#include "gfform.h"
#include "gfhier.h"
#include "gfsink.h"
#include "gfw.h"
#include "gfzip.h"
#include "h5.h"
#include "model.h"
#include "progress.h"
#include "sweep.h"
#include "wavelet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef EP_SOURCE_SCRIPTS /* the Makefile's: the source tree's scripts, where --plot looks last */
#define SOURCE_SCRIPTS EP_SOURCE_SCRIPTS
#else
#define SOURCE_SCRIPTS NULL
#endif

#define MAX_EPS EP_GFSINK_MAX_EPS
#define CHUNK EP_GFSINK_CHUNK /* block columns read together */

typedef struct {
    int kind;                 /* ep_wavelet_kind */
    int unlifted, threshold_base;
    double eps;
    ep_sweep sweep;           /* --sweep */
    const char *plot, *hierarchy;
    long level;               /* --constraint-level, -1: none */
} opts;

static double ratio(double a, double b) { return b > 0 ? a / b : 0; }

/* Put rows to the GF writer ctx (ep_gfhier_columns' sink). */
static int put_rows(void *ctx, long row0, long nrows, const double *rows)
{
    return ep_gf_writer_put(ctx, row0, nrows, rows);
}

/* --constraint-level: the GFs of level-l hat constraints, written to -o. */
static int write_hierarchical(ep_cli *cli, ep_gf_file *g, const ep_gfhier *H, int l, double t0)
{
    ep_gf_layout L2 = {0};
    ep_gf_writer w = {0};
    ep_h5 *out;
    double *area = NULL;
    int st;
    if (!(st = ep_gf_row_areas(g, &area)) && !(st = ep_gfhier_layout(&L2, H, &g->L, area, g->f.path, l)) &&
        !(st = ep_cli_create_h5(cli, "gf", &out)) &&
        !(st = ep_model_write(out, &g->mesh, NULL, NULL)) &&
        !(st = ep_gf_writer_open(&w, out, &L2, g->method, g->traction_model, 0)) &&
        !(st = ep_h5_set_attr_int(out, "/gf", "constraint_level", l)) &&
        !(st = ep_gfhier_columns(&L2, g, put_rows, &w)) && !(st = ep_gf_writer_close(&w)) &&
        !(st = ep_gf_write_extras(out, g, 0)) && /* interior rows are per column: not of hat loads */
        !(st = ep_output_commit(&cli->out)) && !cli->quiet)
        printf("gfcompress: %s: %d GF columns of level-%d hat constraints (of %d) in %.2f s\n", cli->output, L2.m,
               l, g->L.m, ep_now() - t0);
    ep_gf_writer_close(&w);
    ep_gf_layout_free(&L2);
    free(area);
    return st;
}

/* The wavelet transform of g's rows on the hierarchy (the finest hats'
 * areas: a hierarchical file's /gf/col_area weighs loads, not rows). */
static int transform_build(ep_wavelet *W, const ep_gf_file *g, const ep_gfhier *H, const opts *o)
{
    double *area = NULL;
    int st;
    memset(W, 0, sizeof *W);
    if (!(st = ep_gf_layout_row_areas(&g->L, &g->mesh, &area)))
        st = ep_wavelet_build(W, H->h, g->L.n, H->row_h, g->L.row_fixed, area, o->kind, !o->unlifted);
    free(area);
    return st;
}

/* Every column of g into the compressing sink k (gfsink.h, the routine the
 * solvers use too), CHUNK at a time. */
static int compress(ep_gf_file *g, ep_gfsink *k, int quiet)
{
    int m = g->L.m, st = EP_OK;
    double *rows = ep_malloc((size_t)CHUNK * 9, (size_t)g->L.n * sizeof *rows);
    ep_progress p;
    if (!rows)
        return EP_ECOMPUTE;
    ep_progress_start(&p, "gfcompress", m, quiet);
    for (int c0 = 0; c0 < m && !st; c0 += CHUNK) {
        int nc = m - c0 < CHUNK ? m - c0 : CHUNK;
        if (!(st = ep_gf_file_rows(g, 3L * c0, 3L * nc, rows)))
            st = ep_gfsink_put(k, 3L * c0, 3L * nc, rows);
        ep_progress_update(&p, c0 + nc);
    }
    ep_progress_end(&p);
    free(rows);
    return st ? st : ep_gfsink_close(k);
}

/* Checks between options; the plot is an output too: checked now,
 * committed with -o.  Exits on a bad combination. */
static void check_options(const ep_cli *cli, const opts *o, ep_output *png)
{
    int st;
    if (!cli->output && !o->sweep.n)
        ep_cli_exit(ep_fail(EP_EUSAGE, "no output: give -o FILE (or --sweep to print the table only)"));
    if (o->plot && !o->sweep.n)
        ep_cli_exit(ep_fail(EP_EUSAGE, "--plot draws the --sweep table: give --sweep too"));
    if (o->level >= 0 && o->sweep.n)
        ep_cli_exit(ep_fail(EP_EUSAGE, "--constraint-level writes GF columns; it takes no --sweep"));
    if (o->plot) {
        if ((st = ep_output_check(png, o->plot)))
            ep_cli_exit(st);
        png->keep_ext = 1; /* matplotlib picks the format by the extension */
    }
}

/* Wavelet compression: the --sweep table, and with -o the file at --eps
 * (the written threshold goes last in the list); the plot is drawn before
 * any commit, so a failed plot leaves no output behind. */
static int write_compressed(ep_cli *cli, ep_gf_file *g, const ep_gfhier *H, const opts *o, ep_output *png,
                            double t0)
{
    ep_wavelet W;
    ep_gfsink k = {0};
    ep_h5 *out = NULL;
    double eps[MAX_EPS];
    int n = g->L.n, ne = o->sweep.n, writing = cli->output != NULL, st;
    const char *wname = o->kind == EP_WAVELET_LINEAR ? "linear" : "butterfly";
    memcpy(eps, o->sweep.eps, (size_t)ne * sizeof *eps);
    if (writing)
        eps[ne++] = o->eps;
    if ((st = transform_build(&W, g, H, o)) ||
        (writing && ((st = ep_cli_create_h5(cli, "gf-wavelet", &out)) ||
                     (st = ep_model_write(out, &g->mesh, NULL, NULL)))) ||
        (st = ep_gfsink_open_wavelet(&k, out, &g->L, g->method, g->traction_model, &W, wname, !o->unlifted,
                                     o->threshold_base, eps, ne)) ||
        (writing && g->constraint_level >= 0 && /* the compressed GFs of hierarchical constraints */
         (st = ep_h5_set_attr_int(out, "/gf", "constraint_level", g->constraint_level))) ||
        (st = compress(g, &k, cli->quiet)) || (writing && (st = ep_gf_write_extras(out, g, 1))))
        goto out;
    const ep_gfzip_tally *tl = k.tl, *t = &tl[ne - 1];
    long dense[2] = {0, 0};
    for (int r = 0; r < n; r++)
        dense[g->L.row_fixed[r]] += g->L.m;
    if (o->plot) {
        char label[256];
        snprintf(label, sizeof label, "%s %s, %d x %d blocks", o->unlifted ? "unlifted" : "lifted", wname, n, g->L.m);
        if ((st = ep_output_reserve(png)) ||
            (st = ep_sweep_plot(png->tmp, o->plot, eps, o->sweep.n, tl, dense, label, SOURCE_SCRIPTS)))
            goto out;
    }
    if ((writing && (st = ep_output_commit(&cli->out))) || (o->plot && (st = ep_output_commit(png))))
        goto out;
    if (writing && !cli->quiet)
        printf("gfcompress: %s: %s%s wavelets, %d levels, eps %g: RMS error %.3g%%, MAX error %.3g%%, "
               "%ld of %ld blocks kept (x%.1f) in %.2f s\n",
               cli->output, o->unlifted ? "unlifted " : "lifted ", wname, H->levels, o->eps, 100 * ep_gfzip_rms(t),
               100 * t->maxrel, ep_gfzip_kept(t), dense[0] + dense[1], ratio(dense[0] + dense[1], ep_gfzip_kept(t)),
               ep_now() - t0);
    if (o->sweep.n)
        ep_sweep_print(stdout, eps, o->sweep.n, tl, dense);
out:
    ep_gfsink_free(&k);
    ep_wavelet_free(&W);
    return st;
}

/* parse_command_line: the options and --help of cmd/spec/gfcompress.json (scripts/toolspec.py). */
#include "gfcompress_spec.h"

int main(int argc, char **argv)
{
    opts o = {.kind = EP_WAVELET_LINEAR, .eps = 0.05, .level = -1};
    ep_cli cli;
    ep_gf_file g = {0};
    ep_gfhier H = {0};
    ep_output png = {0};
    double t0 = ep_now();
    int st;

    /* parse */
    parse_command_line(&cli, &o, argc, argv);
    check_options(&cli, &o, &png);

    /* read -> validate */
    if ((st = ep_gf_file_open(&g, cli.inputs[0], "gf")) || (st = ep_gfhier_load(&H, &g, o.hierarchy)))
        goto out;
    if (o.level > H.levels - 1) {
        st = ep_fail(EP_EUSAGE, "--constraint-level %ld: the hierarchy has levels 0..%d", o.level, H.levels - 1);
        goto out;
    }

    /* compute -> write */
    st = o.level >= 0 ? write_hierarchical(&cli, &g, &H, (int)o.level, t0)
                      : write_compressed(&cli, &g, &H, &o, &png, t0);
out:
    ep_output_abort(&png);
    ep_gfhier_free(&H);
    ep_gf_file_close(&g);
    ep_cli_exit(st);
}
