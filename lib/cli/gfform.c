/*
 * gfform.c — dense, compressed-as-solved or hierarchical GF output of the
 * solvers (gfform.h).
 */
#include "gfform.h"
#include "err.h"
#include "h5.h"
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ep_gfform_init(ep_gfform *f)
{
    memset(f, 0, sizeof *f);
    f->choice = -1;
    f->eps = NAN;
    f->level = -1;
}

int ep_gfform_check(ep_gfform *f, const ep_cli *cli, int allow_eps)
{
    f->wavelet = f->choice >= 0;
    f->kind = f->choice == 1 ? EP_WAVELET_BUTTERFLY : EP_WAVELET_LINEAR;
    f->lifted = !f->unlifted;
    f->eps_given = !isnan(f->eps);
    if (!f->eps_given)
        f->eps = 0.05;
    if ((f->body || f->interior) && f->part.count)
        return ep_fail(EP_EUSAGE, "%s and --part do not go together (epmerge merges GF columns)",
                       f->body ? "--body-force" : "--interior");
    if (!allow_eps && !f->wavelet && (f->eps_given || f->unlifted || f->threshold_base))
        return ep_fail(EP_EUSAGE, "--eps, --unlifted and --threshold-base go with --wavelet");
    if (!allow_eps && !f->wavelet && f->level < 0 && f->hierarchy)
        return ep_fail(EP_EUSAGE, "--hierarchy goes with --wavelet or --constraint-level");
    if (f->wavelet && f->single)
        return ep_fail(EP_EUSAGE, "--single stores dense GFs; --wavelet blocks are float32 already");
    if (f->wavelet && f->part.count)
        return ep_fail(EP_EUSAGE, "--part and --wavelet exclude each other (split a dense run, then gfcompress)");
    if (f->level >= 0 && (cli->all_columns || ep_select_given(&cli->columns)))
        return ep_fail(EP_EUSAGE, "--constraint-level solves the hat loads of the free level-L vertices; "
                       "it takes no column selection");
    return EP_OK;
}

int ep_gfform_use_layout(ep_gfform *f, const ep_gf_layout *L, const ep_output *out, int single)
{
    f->L = L;
    return f->wavelet ? EP_OK : ep_output_check_space(out, 9.0 * L->m * (double)L->n * (single ? 4 : 8));
}

int ep_gfform_plan(ep_gfform *f, const ep_mesh *m, const ep_gf_layout *L, const char *source)
{
    int st;
    f->L = L;
    f->ncols_full = L->m;
    if (!f->wavelet && f->level < 0)
        return EP_OK;
    if ((st = ep_gfhier_build(&f->H, m, L, source, f->hierarchy)))
        return st;
    if ((st = ep_gf_layout_row_areas(L, m, &f->area)))
        return st;
    if (f->level >= 0) {
        if ((st = ep_gfhier_layout(&f->Lh, &f->H, L, f->area, source, (int)f->level)))
            return st;
        f->L = &f->Lh;
    }
    if (!f->wavelet)
        return EP_OK;
    st = ep_wavelet_build(&f->W, f->H.h, L->n, f->H.row_h, L->row_fixed, f->area, f->kind, f->lifted);
    if (st == EP_EINPUT) { /* name the file: the transform's message names the vertex */
        char msg[512];
        snprintf(msg, sizeof msg, "%s", ep_errmsg());
        return ep_fail(EP_EINPUT, "%s: --wavelet: %s", f->hierarchy ? f->hierarchy : source, msg);
    }
    return st;
}

double ep_gfform_bytes(const ep_gfform *f, double waiting)
{
    return f->wavelet ? ep_gfsink_wavelet_bytes(f->L->n) + 24.0 * f->L->n * waiting : 0;
}

int ep_gfform_open(ep_gfform *f, ep_cli *cli, const ep_mesh *m, const ep_material *mat, const char *fixed,
                   const char *method, const char *traction_model, int single)
{
    ep_h5 *out;
    int st;
    ep_cli_stage(cli, "solve and write"); /* the rows go to the file as they are solved */
    if ((st = ep_cli_create_h5(cli, f->wavelet ? "gf-wavelet" : "gf", &out)) ||
        (st = ep_model_write(out, m, mat, fixed)))
        return st;
    if (f->wavelet)
        st = ep_gfsink_open_wavelet(&f->sink, out, f->L, method, traction_model, &f->W,
                                    f->kind == EP_WAVELET_LINEAR ? "linear" : "butterfly", f->lifted,
                                    f->threshold_base, &f->eps, 1);
    else
        st = ep_gfsink_open_dense(&f->sink, out, f->L, method, traction_model, single);
    if (!st && f->level >= 0)
        st = ep_h5_set_attr_int(out, "/gf", "constraint_level", f->level);
    return st;
}

static int put_rows(void *ctx, long row0, long nrows, const double *rows)
{
    return ep_gfsink_put(&((ep_gfform *)ctx)->sink, row0, nrows, rows);
}

static void progress(void *ctx, long done, long total)
{
    (void)total;
    ep_progress_update(&((ep_gfform *)ctx)->bar, done);
}

/* A stage before the rows: a line when it starts, a bar or a line every few
 * seconds (progress.h) while it runs. */
static void stage(void *ctx, const char *what, long done, long total)
{
    ep_progress_stage(&((ep_gfform *)ctx)->stages, what, done, total);
}

ep_gf_sink ep_gfform_sink(ep_gfform *f, const char *tool, int quiet)
{
    f->tool = tool;
    f->quiet = quiet;
    ep_progress_stages_init(&f->stages, tool, quiet, 1);
    ep_progress_start(&f->bar, tool, 3L * f->L->m, quiet);
    return (ep_gf_sink){put_rows, progress, f, stage};
}

void ep_gfform_report(const ep_gfform *f, const char *tool, const char *path)
{
    if (f->level >= 0)
        printf("%s: %s: %d GF columns of level-%ld hat constraints (of %d)\n", tool, path, f->L->m, f->level,
               f->ncols_full);
    if (!f->wavelet)
        return;
    const ep_gfzip_tally *t = &f->sink.tl[0];
    int nfree = 0;
    for (int r = 0; r < f->L->n; r++)
        nfree += !f->L->row_fixed[r];
    double dense = (double)f->L->n * f->L->m, dense_free = (double)nfree * f->L->m;
    long kept = ep_gfzip_kept(t);
    printf("%s: %s: %s %s wavelets, %d levels, eps %g: RMS error %.3g%% (free rows %.3g%%), MAX error %.3g%%, "
           "%ld of %.0f blocks kept (x%.1f; free rows x%.1f)\n",
           tool, path, f->lifted ? "lifted" : "unlifted", f->kind == EP_WAVELET_LINEAR ? "linear" : "butterfly",
           f->W.nlevels, f->eps, 100 * ep_gfzip_rms(t), 100 * (t->ref2[0] > 0 ? sqrt(t->err2[0] / t->ref2[0]) : 0),
           100 * t->maxrel, kept, dense, kept ? dense / kept : 0, t->nnz[0] ? dense_free / t->nnz[0] : 0);
}

void ep_gfform_free(ep_gfform *f)
{
    ep_gfsink_free(&f->sink);
    ep_wavelet_free(&f->W);
    ep_gfhier_free(&f->H);
    ep_gf_layout_free(&f->Lh);
    free(f->area);
    memset(f, 0, sizeof *f);
}
