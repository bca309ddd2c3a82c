/*
 * loopsub — subdivision-connectivity surface meshes for multiresolution work.
 *
 * Reads a closed triangle surface (or the boundary of a tet mesh), applies
 * LEVELS steps of Loop (or linear) 1-to-4 subdivision, optionally moving new
 * vertices onto a fine reference surface, and writes /mesh with level and
 * parents (HDF5) or the plain surface (.obj).  Given a scan with --base N
 * (or --base-mesh FILE), it cleans the scan up, simplifies it to a base of
 * about N vertices, fits every level onto the scan and reports (and stores)
 * how close and how good the result is.  See loopsub(1).
 */
#include "cli.h"
#include "closest.h"
#include "err.h"
#include "h5.h"
#include "mesh.h"
#include "meshio.h"
#include "model.h"
#include "fit.h"
#include "progress.h"
#include "repair.h"
#include "simplify.h"
#include "subdiv.h"
#include "surfdist.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct {
    long levels;           /* -1: not given */
    int scheme;            /* ep_subdiv_scheme; -1: not given (Loop) */
    const char *project;
    long base;             /* --base N: simplify the scan to about N vertices (0: not given) */
    const char *base_mesh; /* --base-mesh FILE: the base, the input being the scan */
} opts;

/* Samples per triangle of the denser surface in the quality report
 * (ep_surfdist_compare): about 600,000 on the dragon at L = 3. */
enum { REPORT_DENSITY = 4 };

/* The base mesh to fit onto the scan: --base-mesh FILE, or the scan
 * simplified to about --base N vertices. */
static int make_base(ep_mesh *base, const ep_mesh *scan, const opts *o, const ep_cli *cli)
{
    ep_simplify_opts so;
    ep_simplify_report sr;
    double t0 = ep_now();
    int st;
    if (o->base_mesh)
        return (st = ep_cli_read_closed_surface(cli, base, o->base_mesh)) ? st : ep_mesh_closed_surface(base);
    ep_simplify_opts_default(&so, (int)o->base);
    if ((st = ep_simplify_build(base, scan, &so, &sr)))
        return st;
    if (!cli->quiet)
        printf("loopsub: base: %d vertices, %d triangles from %d (%d collapses, %d flips; smallest angle %.1f deg); "
               "%.2f s\n", base->nv, base->nf, scan->nv, sr.collapses, sr.flips, sr.min_angle, ep_now() - t0);
    if (base->nv > o->base && !cli->quiet)
        fprintf(stderr, "loopsub: warning: the base stops at %d vertices, above --base %ld: the topology "
                "(link condition; %d closed part%s, 4 vertices or more each) and the angle bound allow no further "
                "collapse\n", base->nv, o->base, sr.parts, sr.parts == 1 ? "" : "s");
    return EP_OK;
}

/* The quality report of the fitted surface m against the scan, printed. */
static int report_quality(ep_surfdist *q, const ep_mesh *m, const ep_mesh *scan, const ep_closest *tscan,
                          const ep_fit_report *fr, const ep_cli *cli)
{
    ep_closest tm;
    int st = ep_closest_build(&tm, m);
    if (!st)
        st = ep_surfdist_compare(q, m, &tm, scan, tscan, REPORT_DENSITY);
    ep_closest_free(&tm);
    if (st || cli->quiet)
        return st;
    printf("loopsub: quality: Hausdorff %.3f%%, RMS %.4f%% of the scan's diagonal (%ld samples); angles: smallest "
           "%.1f, median %.1f deg; %d opposed normals, %d folded triangles; genus %d (scan %d)\n",
           100 * q->hausdorff, 100 * q->rms, q->samples, q->min_angle, q->median_angle, q->opposed, q->folded,
           q->genus, q->ref_genus);
    printf("loopsub: on the scan: %ld vertices at their closest point, %ld along the limit normal, %ld left where "
           "subdivision put them, %ld moved for their angles or folds, %ld moved off it so that no triangles "
           "cross (%ld pairs still cross)\n", fr->projected, fr->along_normal, fr->kept, fr->settled, fr->untangled,
           q->intersecting);
    return EP_OK;
}

/* The surface as .obj or .off (by the name's extension), else as an
 * elastoprep file of kind mesh with its hierarchy and m->fixed, and the
 * quality report q (when not NULL) as attributes of /mesh. */
static int write_output(ep_cli *cli, const ep_mesh *m, const ep_surfdist *q, const char *scan)
{
    int format = ep_meshio_format(cli->output), st;
    ep_h5 *f;
    if ((st = ep_cli_create_output(cli, format >= 0, "mesh", m, NULL, &f)))
        return st;
    if (format >= 0)
        ep_meshio_write(cli->out.fp, m, format);
    if (format < 0 && q &&
        ((st = ep_h5_set_attr_string(f, "/mesh", "scan", scan)) ||
         (st = ep_h5_set_attr_double(f, "/mesh", "hausdorff", q->hausdorff)) ||
         (st = ep_h5_set_attr_double(f, "/mesh", "rms_distance", q->rms)) ||
         (st = ep_h5_set_attr_int(f, "/mesh", "distance_samples", q->samples)) ||
         (st = ep_h5_set_attr_double(f, "/mesh", "min_angle", q->min_angle)) ||
         (st = ep_h5_set_attr_double(f, "/mesh", "median_angle", q->median_angle)) ||
         (st = ep_h5_set_attr_int(f, "/mesh", "opposed_normals", q->opposed)) ||
         (st = ep_h5_set_attr_int(f, "/mesh", "folded_triangles", q->folded)) ||
         (st = ep_h5_set_attr_int(f, "/mesh", "genus", q->genus)) ||
         (st = ep_h5_set_attr_int(f, "/mesh", "scan_genus", q->ref_genus))))
        return st;
    return ep_output_commit(&cli->out);
}

/* parse_command_line: the options and --help of cmd/spec/loopsub.json (scripts/toolspec.py). */
#include "loopsub_spec.h"

int main(int argc, char **argv)
{
    opts o = {-1, -1, NULL, 0, NULL};
    ep_cli cli;
    ep_mesh m = {0}, fine = {0}, scan = {0};
    ep_closest tree = {0};
    ep_progress bar;
    ep_fit_report fr = {0};
    ep_surfdist q;
    int st, base_nv, fitting;
    double t0 = ep_now();

    parse_command_line(&cli, &o, argc, argv);
    if (o.levels < 0)
        ep_cli_exit(ep_fail(EP_EUSAGE, "the number of levels is required (-l LEVELS)"));
    const char *ext = ep_text_ext(cli.output);
    if (strcasecmp(ext, "h5") && (ep_meshio_format(cli.output) < 0 || ep_meshio_format(cli.output) == EP_MESHIO_VEG))
        ep_cli_exit(ep_fail(EP_EUSAGE, "%s: output must be .h5, .obj or .off", cli.output));
    fitting = o.base || o.base_mesh;
    if (o.base && o.base_mesh)
        ep_cli_exit(ep_fail(EP_EUSAGE, "--base and --base-mesh exclude each other (simplify the scan, or give the base)"));
    if (fitting && (o.project || o.scheme >= 0))
        ep_cli_exit(ep_fail(EP_EUSAGE, "%s: fitting onto a scan uses Loop levels and its own projection",
                            o.project ? "--project-onto" : "--scheme"));
    if (o.scheme < 0)
        o.scheme = EP_SUBDIV_LOOP;

    /* read -> validate: the surface to subdivide (or the scan and its base) */
    if (fitting) {
        if ((st = ep_cli_read_closed_surface(&cli, &scan, cli.inputs[0])) ||
            (st = ep_mesh_closed_surface(&scan)) || (st = make_base(&m, &scan, &o, &cli)) ||
            (st = ep_closest_build(&tree, &scan)))
            goto out;
    } else if ((st = ep_cli_read_closed_surface(&cli, &m, cli.inputs[0])) || (st = ep_mesh_closed_surface(&m)))
        goto out;
    if ((st = ep_subdiv_check_size(&m, o.levels)) || (st = ep_subdiv_mark_base(&m)))
        goto out;
    base_nv = m.nv;
    if (o.project && ((st = ep_model_read(&fine, o.project)) || (st = ep_closest_build(&tree, &fine))))
        goto out;
    ep_cli_model_summary(&cli, fitting ? &scan : &m, NULL);

    /* compute */
    if (fitting) {
        if ((st = ep_fit_levels(&m, (int)o.levels, &scan, &tree, &fr)) ||
            (st = report_quality(&q, &m, &scan, &tree, &fr, &cli)))
            goto out;
        if (fr.kept + q.intersecting > 0)
            fprintf(stderr, "loopsub: warning: %ld vertices are off the scan and %ld triangle pairs cross; "
                    "try another --base\n", fr.kept, q.intersecting);
    } else {
        ep_progress_start(&bar, "loopsub", o.levels, cli.quiet);
        for (long l = 0; l < o.levels && !st; l++) {
            st = ep_subdiv_refine(&m, o.scheme, o.project ? &tree : NULL);
            ep_progress_update(&bar, l + 1);
            if (cli.verbose && !st)
                fprintf(stderr, "loopsub: step %ld: %d vertices, %d triangles (%.2f s)\n", l + 1, m.nv, m.nf,
                        ep_now() - t0);
        }
        ep_progress_end(&bar);
        if (st)
            goto out;
    }
    if (o.project) { /* projection can fold or collapse triangles near thin features */
        int first, bad = ep_mesh_count_degenerate(&m, &first);
        if (bad)
            fprintf(stderr, "loopsub: warning: %d degenerate triangle%s after projection (first: %d); "
                    "try fewer levels or a finer base mesh\n", bad, bad == 1 ? "" : "s", first + 1);
    }

    /* write: the surface and the support selected on it; the input's
     * material and constraints do not carry over to the surface */
    if (m.material) {
        ep_material_free(m.material);
        free(m.material);
        m.material = NULL;
    }
    free(m.fixed);
    m.fixed = NULL, m.nfixed = 0;
    if ((ep_select_given(&cli.fixed) && (st = ep_select_apply(&cli.fixed, &m, "fixed vertex", &m.fixed, &m.nfixed))) ||
        (st = write_output(&cli, &m, fitting ? &q : NULL, cli.inputs[0])))
        goto out;
    if (!cli.quiet) {
        double area, vol;
        ep_mesh_surface_measures(&m, &area, &vol);
        printf("loopsub: %s: %d vertices, %d triangles, %ld level%s from %d %s vertices "
               "(%s); area %.6g, volume %.6g%s%s; %.2f s\n",
               cli.output, m.nv, m.nf, o.levels, o.levels == 1 ? "" : "s", base_nv, fitting ? "base" : "input",
               fitting ? "Loop, fitted onto the scan" : o.scheme == EP_SUBDIV_LOOP ? "Loop" : "linear", area, vol,
               o.project ? "; projected onto " : "", o.project ? o.project : "", ep_now() - t0);
        if (m.fixed)
            printf("loopsub: %d fixed vertices written to /constraints/fixed\n", m.nfixed);
    }
out:
    ep_closest_free(&tree);
    ep_mesh_free(&fine);
    ep_mesh_free(&scan);
    ep_mesh_free(&m);
    ep_cli_exit(st);
}
