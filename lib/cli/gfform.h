/*
 * gfform.h — the form a GF solver writes its Green's functions in
 * (femcondense, bemsolve; issue 16): dense (kind gf), wavelet compressed as
 * the columns are solved (kind gf-wavelet: --wavelet, --eps, --unlifted,
 * --threshold-base, --hierarchy; 000 §3.2-3.3), or the GFs of hierarchical
 * constraints solved directly (--constraint-level L: one right-hand side per
 * hat load of a level-L vertex, 000 §3.5.3 eqs. 3.83-3.84, §3.6), the last
 * two combined at will.  The dense GF matrix never exists: every block of
 * solved rows goes through gfsink.h at once, the same routine gfcompress
 * uses, so the file equals femcondense/bemsolve -> gfcompress.
 *
 * Command-line layer: the options, their checks, and the plan a tool
 * follows (layout to solve, hierarchy, transform, output sink).
 */
#ifndef EP_GFFORM_H
#define EP_GFFORM_H

#include "cli.h"
#include "gfhier.h"
#include "gfsink.h"
#include "part.h"
#include "progress.h"
#include "wavelet.h"

#define EP_GFFORM_MAX_EPS 1e6 /* --eps values are in [0, EP_GFFORM_MAX_EPS], as gfcompress's */

/* The options themselves (--wavelet, --eps, --unlifted, --threshold-base,
 * --hierarchy, --constraint-level) are the option group
 * cmd/spec/groups/gfform.json, which a tool's spec includes with its
 * ep_gfform as target; ep_gfform_check settles them after the parse. */
typedef struct ep_gfform {
    /* options, as parsed (cmd/spec/groups/gfform.json) */
    int choice;                 /* --wavelet: 0 linear, 1 butterfly; -1 not given */
    int unlifted, threshold_base;
    double eps;                 /* NaN: not given */
    const char *hierarchy;      /* borrowed: --hierarchy */
    long level;                 /* --constraint-level, -1: none */
    /* what else the file holds (the tool's own options, with its spec's
     * targets form.single, form.body, form.interior, form.part) */
    int single;                 /* --single: dense GFs stored as float32 */
    int body;                   /* --body-force: also /gf/body */
    const char *interior;       /* borrowed: --interior POINTS, or NULL */
    ep_part part;               /* --part I/N; count 0: the whole run */
    /* settled by ep_gfform_check */
    int wavelet;                /* 1: --wavelet given */
    ep_wavelet_kind kind;
    int lifted, eps_given;
    /* the plan */
    const ep_gf_layout *L;      /* borrowed: the layout to solve (the tool's, or Lh) */
    ep_gf_layout Lh;            /* hierarchical constraints' layout */
    int ncols_full;             /* columns of the tool's layout */
    ep_gfhier H;
    ep_wavelet W;
    double *area;
    ep_gfsink sink;
    ep_progress bar;
    ep_progress_stages stages;  /* the stages before the first rows (ep_gf_sink.stage) */
    const char *tool;
    int quiet;
} ep_gfform;

/* Before the parse: nothing given (dense output). */
void ep_gfform_init(ep_gfform *f);

/* After the parse: the settled values (linear lifted wavelets, eps 0.05
 * unless given), and the options that do not go together: --body-force or
 * --interior with --part (epmerge merges GF columns), --eps, --unlifted,
 * --threshold-base without --wavelet (unless allow_eps: gfcompress, which
 * always compresses), --hierarchy without either form, --single with
 * --wavelet, a column selection with --constraint-level, --part with
 * --wavelet (epmerge merges dense GF columns only).  0 or EP_EUSAGE. */
int ep_gfform_check(ep_gfform *f, const ep_cli *cli, int allow_eps);

/* Solve and write the columns of layout L (borrowed: a part's share of the
 * plan's, ep_part_gf_share) instead of the plan's, after checking that
 * out's file system has room for them when they are written dense
 * (float32 when single).  0 or EP_ECOMPUTE (ep_output_check_space). */
int ep_gfform_use_layout(ep_gfform *f, const ep_gf_layout *L, const ep_output *out, int single);

/* The plan on mesh m whose GF layout is L (source names m in messages):
 * the hierarchy (when a form needs it), the hat-load layout, the transform.
 * 0; EP_EINPUT (no subdivision connectivity, a level beyond the
 * hierarchy's, a hierarchy whose positions do not match, constant elements);
 * EP_EIO; EP_ECOMPUTE.  Free f in every case. */
int ep_gfform_plan(ep_gfform *f, const ep_mesh *m, const ep_gf_layout *L, const char *source);

/* Bytes the sink holds beside the solver (memory guards): the compression
 * chunk and workspace, and up to `waiting` solved rows of length 3n that
 * come before their turn.  0 for dense output. */
double ep_gfform_bytes(const ep_gfform *f, double waiting);

/* Create the output -o (kind gf or gf-wavelet), write the model (m, mat,
 * fixed: ep_model_write) and open the sink for the plan's layout; the
 * constraint_level attribute of /gf when given.  Starts the stage "solve
 * and write" (ep_cli_stage).  0 or EP_EIO/EP_ECOMPUTE. */
int ep_gfform_open(ep_gfform *f, ep_cli *cli, const ep_mesh *m, const ep_material *mat, const char *fixed,
                   const char *method, const char *traction_model, int single);

/* The solver's sink: rows to f's sink, progress (label tool, unless quiet)
 * on the bar f->bar, started here; the caller ends it (ep_progress_end). */
ep_gf_sink ep_gfform_sink(ep_gfform *f, const char *tool, int quiet);

/* One summary line on stdout ("TOOL: ... RMS error ...") for a compressed
 * run; nothing otherwise. */
void ep_gfform_report(const ep_gfform *f, const char *tool, const char *path);

/* Release the plan and the sink, and zero f (options too). */
void ep_gfform_free(ep_gfform *f);

#endif
