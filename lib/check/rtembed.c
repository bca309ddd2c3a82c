/*
 * rtembed.c — an embedding file checked and its render update timed
 * (rtembed.h).
 */
#include "rtembed.h"
#include "cubic.h"
#include "cubic_file.h"
#include "embed.h"
#include "embed_file.h"
#include "err.h"
#include "mesh.h"
#include "model.h"
#include "reduced.h"
#include "rng.h"
#include "stats.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    ep_mesh m;        /* the simulation mesh */
    ep_embed b;
    double *p;        /* [nr][3] render vertices */
    double *Ubar;     /* [r][3nr] or NULL */
    int r, k, ne;
    const int *elem;  /* borrowed: m.tets or m.hexes */
} run;

static void run_free(run *X)
{
    ep_embed_free(&X->b);
    ep_mesh_free(&X->m);
    free(X->p), free(X->Ubar);
}

/* The binding itself: rows naming their element's vertices, weights summing
 * to 1, the positions and random affine fields reproduced, inside vertices
 * inside their element (no weight below zero), outside ones outside. */
static int check_binding(run *X, ep_rtreport *rep)
{
    const ep_embed *b = &X->b;
    int k = b->k, wrong_rows = 0, wrong_side = 0;
    double sum_err = 0, pos_err = 0, affine = 0, diameter = ep_mesh_diameter(&X->m);
    for (int i = 0; i < b->nr; i++) {
        const int *col = &b->col[(size_t)k * i], *ev = &X->elem[(size_t)k * b->element[i]];
        const double *w = &b->w[(size_t)k * i];
        double s = 0, x[3] = {0, 0, 0}, wmin = INFINITY;
        wrong_rows += memcmp(col, ev, (size_t)k * sizeof *col) != 0;
        for (int a = 0; a < k; a++) {
            s += w[a];
            wmin = fmin(wmin, w[a]);
            for (int d = 0; d < 3; d++)
                x[d] += w[a] * X->m.vertices[3 * (size_t)col[a] + d];
        }
        sum_err = ep_rtreport_worst(sum_err, fabs(s - 1));
        for (int d = 0; d < 3; d++)
            pos_err = ep_rtreport_worst(pos_err, fabs(x[d] - X->p[3 * (size_t)i + d]) / diameter);
        /* inside: every barycentric or trilinear weight >= 0; outside, some
         * is negative (a coordinate beyond [0, 1] or [-1, 1] makes a factor
         * of some corner's weight negative) */
        wrong_side += b->dist[i] == 0 ? wmin < -1e-9 : b->dist[i] > 1e-9 * diameter && wmin >= 0;
    }
    for (unsigned seed = 1; seed <= 3; seed++)
        affine = ep_rtreport_worst(affine, ep_embed_affine_error(b, X->m.vertices, X->p, seed));
    ep_rtreport_fact(rep, "render vertices", b->nr);
    ep_rtreport_fact(rep, "simulation vertices", X->m.nv);
    ep_rtreport_fact(rep, k == 4 ? "simulation tets" : "simulation hexes", X->ne);
    ep_rtreport_fact(rep, "render vertices outside the simulation mesh", b->noutside);
    ep_rtreport_fact(rep, "farthest outside vertex (distance)", b->maxdist);
    ep_rtreport_fact(rep, "farthest outside vertex / model size", b->maxdist / diameter);
    ep_rtreport_check_value(rep, "render vertices not bound to their element's vertices", wrong_rows, 0);
    ep_rtreport_check_value(rep, "render vertices on the wrong side of their element", wrong_side, 0);
    ep_rtreport_check_value(rep, "weights sum to 1, max |sum - 1|", sum_err, 1e-12);
    ep_rtreport_check_value(rep, "W x = render positions (relative to model size)", pos_err, 1e-10);
    ep_rtreport_check_value(rep, "affine fields reproduced (relative)", affine, 1e-12);
    return EP_OK;
}

/* Ubar against W U for the basis U [r][3nv]; a file without Ubar gets it
 * here. */
static int check_ubar(run *X, ep_rtreport *rep, const double *U, int r, const char *what)
{
    size_t n = (size_t)r * 3 * X->b.nr;
    double *WU = ep_malloc(n, sizeof *WU);
    if (!WU)
        return EP_ECOMPUTE;
    ep_embed_apply(&X->b, U, X->m.nv, r, WU);
    if (X->Ubar)
        ep_rtreport_check_value(rep, what, ep_rtreport_rel_diff(X->Ubar, WU, n), 1e-12);
    if (!X->Ubar)
        X->Ubar = WU, X->r = r;
    else
        free(WU);
    return EP_OK;
}

/* The cubic file's basis, on the same simulation mesh. */
static int cubic_basis(run *X, ep_h5 *cf, ep_cubic *c, double **U)
{
    hsize_t d[2] = {(hsize_t)X->m.nv, 3};
    void *v;
    int st;
    if ((st = ep_h5_read(cf, "/mesh/vertices", EP_F64, 2, d, &v)))
        return st;
    int same = !memcmp(v, X->m.vertices, 3 * (size_t)X->m.nv * sizeof(double));
    free(v);
    if (!same)
        return ep_fail(EP_EINPUT, "%s: its /mesh/vertices are not the simulation mesh of the embedding", cf->path);
    if ((st = ep_cubic_file_read(c, cf, X->m.nv, U)))
        return st;
    if (X->Ubar && X->r != c->r)
        return ep_fail(EP_EINPUT, "%s: r = %d, but the embedding's /embedding/Ubar has %d fields", cf->path, c->r, X->r);
    return EP_OK;
}

/* A renderer's frame after a simulator's step: u_render = Ubar q (one
 * matrix-vector product, 3 nr r flops, reading the 24 nr r bytes of Ubar),
 * timed beside the reduced Newmark step that makes q (001 Table 2.1). */
static int time_frames(run *X, ep_rtreport *rep, const ep_cubic *c, const ep_rtembed_opts *o)
{
    int r = X->r, nr = X->b.nr, st;
    ep_cubic_tangent t = {0};
    ep_reduced nm = {0};
    ep_stats ts = {0}, tu = {0};
    ep_rng rng = ep_rng_seed(o->seed, 11);
    double *q = ep_malloc((size_t)r, sizeof *q), *u = ep_malloc(3 * (size_t)nr, sizeof *u), trace = 0;
    if (!q || !u) {
        st = EP_ECOMPUTE;
        goto out;
    }
    for (int i = 0; i < r; i++) {
        q[i] = 1e-3 * (ep_rng_uniform(&rng) - 0.5);
        trace += c->P[(size_t)i * r + i];
    }
    /* the largest eigenvalue of P is at most its trace: 20 steps a period of
     * the fastest mode, or shorter */
    if (!(trace > 0)) {
        st = ep_fail(EP_EINPUT, "/cubic/P has no positive trace");
        goto out;
    }
    double dt = 2 * M_PI / sqrt(trace) / 20;
    if ((st = ep_cubic_tangent_prepare(&t, c)) || (st = ep_reduced_init(&nm, &t, dt, 0, 0)))
        goto out;
    ep_reduced_start(&nm, q, NULL, NULL);
    for (long s = 0; s < o->steps && !st; s++) {
        double t0 = ep_now();
        if (!(st = ep_reduced_step(&nm, NULL)))
            st = ep_stats_add(&ts, ep_now() - t0);
    }
    for (long s = 0; s < o->frames && !st; s++) {
        double t0 = ep_now();
        cblas_dgemv(CblasColMajor, CblasNoTrans, 3 * nr, r, 1.0, X->Ubar, 3 * nr, nm.q, 1, 0.0, u, 1);
        st = ep_stats_add(&tu, ep_now() - t0);
    }
    if (st)
        goto out;
    double sec = ep_stats_median(&tu);
    ep_rtreport_fact(rep, "r", r);
    ep_rtreport_fact(rep, "u_render = Ubar q: Ubar MB read per frame", 24.0 * nr * r / 1e6);
    ep_rtreport_fact(rep, "u_render = Ubar q: GB/s that implies", sec > 0 ? 24.0 * nr * r / sec / 1e9 : 0);
    ep_rtreport_time(rep, "u_render = Ubar q, per frame", sec * 1e6);
    ep_rtreport_time(rep, "Newmark step, 1 Newton iteration", ep_stats_median(&ts) * 1e6);
out:
    ep_reduced_free(&nm);
    ep_cubic_tangent_free(&t);
    ep_stats_free(&ts);
    ep_stats_free(&tu);
    free(q), free(u);
    return st;
}

int ep_rtembed_run(ep_rtreport *rep, ep_h5 *f, ep_h5 *cubic, const ep_rtembed_opts *o)
{
    run X;
    ep_cubic c = {0};
    double *U = NULL;
    void *v;
    int st;
    memset(&X, 0, sizeof X);
    rep->kind = "embedding";
    if ((st = ep_model_load(&X.m, f)))
        goto out;
    X.k = X.m.ne > 0 ? 4 : 8;
    X.ne = X.k == 4 ? X.m.ne : X.m.nh;
    X.elem = X.k == 4 ? X.m.tets : X.m.hexes;
    if (X.ne < 1) {
        st = ep_fail(EP_EINPUT, "%s: an embedding file carries a mesh of tetrahedra or of hexahedra", f->path);
        goto out;
    }
    if ((st = ep_embed_file_read(&X.b, &X.p, &X.Ubar, &X.r, f, X.m.nv, X.ne)))
        goto out;
    if (X.b.k != X.k) {
        st = ep_fail(EP_EINPUT, "%s: /embedding rows of %d weights for elements of %d vertices", f->path, X.b.k, X.k);
        goto out;
    }
    if ((st = check_binding(&X, rep)))
        goto out;
    if (X.Ubar && ep_h5_exists(f, "/basis/U")) {
        hsize_t d[2] = {(hsize_t)X.r, 3 * (hsize_t)X.m.nv};
        if ((st = ep_h5_read(f, "/basis/U", EP_F64, 2, d, &v)))
            goto out;
        U = v;
        if ((st = check_ubar(&X, rep, U, X.r, "Ubar = W U of the file's /basis/U (relative)")))
            goto out;
        free(U);
        U = NULL;
    }
    if (cubic && (!(st = cubic_basis(&X, cubic, &c, &U)) &&
                  !(st = check_ubar(&X, rep, U, c.r, "Ubar = W U of the cubic file's basis (relative)"))))
        st = time_frames(&X, rep, &c, o);
out:
    ep_cubic_free(&c);
    free(U);
    run_free(&X);
    return st;
}
