/*
 * rtzones.c — bonded zones, checked and timed (rtzones.h).
 */
#include "rtzones.h"
#include "bond.h"
#include "cma.h"
#include "err.h"
#include "gfsrc.h"
#include "rng.h"
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct run {
    int nz;
    ep_gfsrc *g;        /* [nz] */
    ep_gfsrc **gp;      /* [nz] */
    ep_bond b;
    ep_cma c;           /* the first zone's contacts */
    double **vbar, **v, **w; /* [nz][n][3]: loads, the bond's answers, the check's GF sums */
    double *uc;         /* [s][3] */
} run;

static void run_free(run *R)
{
    ep_bond_free(&R->b);
    ep_cma_free(&R->c);
    for (int i = 0; i < R->nz; i++) {
        if (R->g)
            ep_gfsrc_close(&R->g[i]);
        if (R->vbar)
            free(R->vbar[i]);
        if (R->v)
            free(R->v[i]);
        if (R->w)
            free(R->w[i]);
    }
    free(R->g), free(R->gp), free(R->vbar), free(R->v), free(R->w), free(R->uc);
}

/* A random rotation (axis and angle up to pi) and translation of size L. */
static void random_frame(ep_rng *r, double L, double R[9], double t[3])
{
    double ax[3], n = 0, th = M_PI * ep_rng_uniform(r);
    for (int a = 0; a < 3; a++)
        ax[a] = 2 * ep_rng_uniform(r) - 1, n += ax[a] * ax[a];
    n = sqrt(n) + 1e-300;
    for (int a = 0; a < 3; a++)
        ax[a] /= n, t[a] = L * (2 * ep_rng_uniform(r) - 1);
    double c = cos(th), s = sin(th), K[9] = {0, -ax[2], ax[1], ax[2], 0, -ax[0], -ax[1], ax[0], 0};
    for (int i = 0; i < 3; i++) /* Rodrigues: I + s K + (1 - c) K^2 */
        for (int j = 0; j < 3; j++) {
            double k2 = K[3 * i] * K[j] + K[3 * i + 1] * K[3 + j] + K[3 * i + 2] * K[6 + j];
            R[3 * i + j] = (i == j) + s * K[3 * i + j] + (1 - c) * k2;
        }
}

static void mat_vec(const double R[9], const double x[3], double y[3])
{
    for (int i = 0; i < 3; i++)
        y[i] = R[3 * i] * x[0] + R[3 * i + 1] * x[1] + R[3 * i + 2] * x[2];
}

/* Random tractions at a few free nodes of every zone (not the contacts). */
static void random_loads(run *R, ep_rng *r)
{
    for (int i = 0; i < R->nz; i++) {
        const ep_gfsrc *g = &R->g[i];
        memset(R->vbar[i], 0, 3 * (size_t)g->n * sizeof(double));
        for (int t = 0; t < 4; t++) {
            int row = ep_rng_below(r, g->n);
            if (g->file->L.row_fixed[row] || g->col_of_row[row] < 0)
                continue;
            for (int a = 0; a < 3; a++)
                R->vbar[i][3 * row + a] = 2 * ep_rng_uniform(r) - 1;
        }
    }
}

/* The check's own answer, zone by zone: w = the plain GF sum of the loads,
 * the seam displacements and the contact tractions the bond found (raw:
 * tractions at the seam rows), plus gravity. */
static int gf_sums(run *R)
{
    for (int i = 0; i < R->nz; i++) {
        ep_bond_zone *z = &R->b.z[i];
        ep_gfsrc *g = z->g;
        int cap = g->n + z->ns + z->s, k = 0;
        int *cols = ep_malloc((size_t)cap, sizeof *cols);
        double *ld = ep_malloc(3 * (size_t)cap, sizeof *ld);
        if (!cols || !ld) {
            free(cols), free(ld);
            return EP_ECOMPUTE;
        }
        for (int r = 0; r < g->n; r++) {
            int in_c = 0;
            for (int j = 0; j < z->s; j++)
                in_c |= z->c->S[j] == r;
            if (!g->file->L.row_fixed[r] && g->col_of_row[r] >= 0 && !in_c) {
                cols[k] = g->col_of_row[r];
                memcpy(&ld[3 * k++], &R->vbar[i][3 * r], 3 * sizeof(double));
            }
        }
        for (int j = 0; j < z->ns; j++) {
            cols[k] = z->scol[j];
            memcpy(&ld[3 * k++], &z->u[3 * j], 3 * sizeof(double));
        }
        for (int j = 0; j < z->s; j++) {
            cols[k] = g->col_of_row[z->c->S[j]];
            memcpy(&ld[3 * k++], &z->pc[3 * j], 3 * sizeof(double));
        }
        ep_gfsrc_sum(g, k, cols, ld, R->w[i]);
        const double *beta = R->b.beta;
        if (z->gw && (beta[0] != 0 || beta[1] != 0 || beta[2] != 0))
            for (size_t j = 0; j < 3 * (size_t)g->n; j++)
                R->w[i][j] += z->gw[j];
        free(cols), free(ld);
    }
    return EP_OK;
}

/* Continuity, balance and contacts from the GF sums: *cont the largest gap
 * between two zones' world positions of a seam vertex over the largest
 * seam displacement; *bal the largest world force sum over the largest
 * seam force; *con the largest contact displacement error over the
 * largest prescribed. */
static int seam_errors(run *R, double *cont, double *bal, double *con)
{
    ep_bond *b = &R->b;
    size_t N3 = 3 * (size_t)b->N;
    double *y = ep_calloc(N3, sizeof *y), *f = ep_calloc(N3, sizeof *f), ymax = 0, fmax_ = 0, gapmax = 0;
    char *seen = ep_calloc((size_t)b->N, 1);
    if (!y || !f || !seen) {
        free(y), free(f), free(seen);
        return EP_ECOMPUTE;
    }
    for (int i = 0; i < b->nz; i++) {
        ep_bond_zone *z = &b->z[i];
        for (int k = 0; k < z->ns; k++) {
            double p[3], fw[3], yw[3], xu[3];
            int gv = z->glob[k];
            for (int a = 0; a < 3; a++)
                p[a] = z->a[k] * R->w[i][3 * (size_t)z->srow[k] + a], xu[a] = z->x[3 * k + a] + z->u[3 * k + a];
            mat_vec(z->R, p, fw);
            mat_vec(z->R, xu, yw);
            for (int a = 0; a < 3; a++) {
                f[3 * gv + a] += fw[a];
                fmax_ = ep_rtreport_worst(fmax_, fabs(fw[a]));
                ymax = ep_rtreport_worst(ymax, fabs(z->u[3 * k + a]));
                yw[a] += z->t[a];
                if (seen[gv])
                    gapmax = ep_rtreport_worst(gapmax, fabs(yw[a] - y[3 * gv + a]));
                else
                    y[3 * gv + a] = yw[a];
            }
            seen[gv] = 1;
        }
    }
    double fres = 0;
    for (size_t j = 0; j < N3; j++)
        fres = ep_rtreport_worst(fres, fabs(f[j]));
    *cont = ymax > 0 ? gapmax / ymax : gapmax;
    *bal = fmax_ > 0 ? fres / fmax_ : fres;
    ep_rtreport_diff e = {0, 0};
    ep_bond_zone *z = &b->z[0];
    for (int j = 0; j < z->s; j++)
        for (int a = 0; a < 3; a++)
            ep_rtreport_diff_add(&e, R->w[0][3 * (size_t)z->c->S[j] + a], R->uc[3 * j + a]);
    *con = ep_rtreport_diff_rel(&e);
    free(y), free(f), free(seen);
    return EP_OK;
}

/* max over zones of max |a - b| / max |b| of the zones' answers. */
static double answers_differ(const run *R, double *const *a, double *const *bb)
{
    ep_rtreport_diff e = {0, 0};
    for (int i = 0; i < R->nz; i++)
        for (size_t j = 0; j < 3 * (size_t)R->g[i].n; j++)
            ep_rtreport_diff_add(&e, a[i][j], bb[i][j]);
    return ep_rtreport_diff_rel(&e);
}

/* The whole model's GFs against the bond's: every column of the whole
 * file at a vertex that is a free node with a column in some zone (not on
 * a seam); its rows matched by position.  *err the worst of the columns'
 * max |bond - whole| / max |whole| over displacement rows and, apart,
 * traction rows; *ncols the columns compared; *grav whether every file
 * has body-force rows, and then *gerr the same measure of the bond's
 * gravity solves against the whole model's /gf/body. */
static int whole_model(run *R, const char *path, double *err, int *ncols, int *grav, double *gerr)
{
    ep_gfsrc W = {0};
    int st = ep_gfsrc_open(&W, path);
    int *zz = NULL, *zr = NULL;
    *err = 0, *ncols = 0, *grav = 0, *gerr = 0;
    if (st)
        goto out;
    const ep_mesh *wm = &W.file->mesh;
    double tol = 1e-9 * ep_mesh_diameter(wm);
    /* each whole row's (zone, row): a zone where it is a boundary row */
    zz = ep_malloc((size_t)W.n, sizeof *zz), zr = ep_malloc((size_t)W.n, sizeof *zr);
    if (!zz || !zr) {
        st = EP_ECOMPUTE;
        goto out;
    }
    for (int r = 0; r < W.n; r++) {
        const double *X = &wm->vertices[3 * (size_t)W.file->L.row_vertex[r]];
        zz[r] = -1;
        for (int i = 0; i < R->nz && zz[r] < 0; i++) {
            const ep_gfsrc *g = &R->g[i];
            for (int q = 0; q < g->n; q++) {
                const double *x = &g->file->mesh.vertices[3 * (size_t)g->file->L.row_vertex[q]];
                if (fabs(x[0] - X[0]) <= tol && fabs(x[1] - X[1]) <= tol && fabs(x[2] - X[2]) <= tol) {
                    int seam = 0;
                    for (int k = 0; k < R->b.z[i].ns; k++)
                        seam |= R->b.z[i].srow[k] == q;
                    if (!seam && (g->file->L.row_fixed[q] != W.file->L.row_fixed[r])) {
                        st = ep_fail(EP_EINPUT, "%s: vertex %d is %s in the whole model but not in zone %d", path,
                                     W.file->L.row_vertex[r] + 1, W.file->L.row_fixed[r] ? "fixed" : "free", i + 1);
                        goto out;
                    }
                    zz[r] = i, zr[r] = q;
                    break;
                }
            }
        }
        if (zz[r] < 0) {
            st = ep_fail(EP_EINPUT, "%s: boundary vertex %d lies in no zone", path, W.file->L.row_vertex[r] + 1);
            goto out;
        }
    }
    for (int c = 0; c < W.m; c++) {
        int wr = W.file->L.col_vertex[c], r = -1;
        for (int q = 0; q < W.n && r < 0; q++)
            if (W.file->L.row_vertex[q] == wr)
                r = q;
        int i = zz[r], q = zr[r];
        if (R->g[i].file->L.row_fixed[q] || R->g[i].col_of_row[q] < 0)
            continue; /* a seam vertex (or no column in its zone) */
        (*ncols)++;
        for (int a = 0; a < 3; a++) {
            for (int j = 0; j < R->nz; j++)
                memset(R->vbar[j], 0, 3 * (size_t)R->g[j].n * sizeof(double));
            R->vbar[i][3 * q + a] = 1;
            if ((st = ep_bond_solve(&R->b, (const double *const *)R->vbar, NULL, R->v)))
                goto out;
            ep_rtreport_diff e[2] = {{0, 0}, {0, 0}};
            for (int rr = 0; rr < W.n; rr++) {
                double B[9];
                ep_gfsrc_block(&W, rr, c, B);
                for (int bb = 0; bb < 3; bb++)
                    ep_rtreport_diff_add(&e[W.file->L.row_fixed[rr]], R->v[zz[rr]][3 * (size_t)zr[rr] + bb],
                                         B[3 * bb + a]);
            }
            for (int t = 0; t < 2; t++)
                *err = ep_rtreport_worst(*err, ep_rtreport_diff_rel(&e[t]));
        }
    }
    *grav = W.body != NULL;
    for (int i = 0; i < R->nz; i++)
        *grav &= R->g[i].body != NULL;
    for (int a = 0; a < 3 && *grav; a++) { /* gravity e_a: the whole model's /gf/body row a */
        double beta[3] = {a == 0, a == 1, a == 2};
        ep_rtreport_diff e[2] = {{0, 0}, {0, 0}};
        for (int j = 0; j < R->nz; j++)
            memset(R->vbar[j], 0, 3 * (size_t)R->g[j].n * sizeof(double));
        if ((st = ep_bond_gravity(&R->b, beta)) || (st = ep_bond_solve(&R->b, NULL, NULL, R->v)))
            goto out;
        for (int rr = 0; rr < W.n; rr++)
            for (int bb = 0; bb < 3; bb++)
                ep_rtreport_diff_add(&e[W.file->L.row_fixed[rr]], R->v[zz[rr]][3 * (size_t)zr[rr] + bb],
                                     W.body[(size_t)a * 3 * W.n + 3 * rr + bb]);
        for (int t = 0; t < 2; t++)
            *gerr = ep_rtreport_worst(*gerr, ep_rtreport_diff_rel(&e[t]));
    }
    ep_bond_gravity(&R->b, NULL);
out:
    free(zz), free(zr);
    ep_gfsrc_close(&W);
    return st;
}

int ep_rtzones_run(ep_rtreport *rep, char *const *paths, int nz, const ep_rtzones_opts *o)
{
    run R = {.nz = nz};
    ep_stats t_form = {0}, t_solve = {0}, c_form = {0}, c_solve = {0}; /* wall and the thread's CPU seconds */
    int st = EP_OK;
    rep->path = paths[0];
    rep->kind = "zones";
    if (!(R.g = ep_calloc((size_t)nz, sizeof *R.g)) || !(R.gp = ep_calloc((size_t)nz, sizeof *R.gp)) ||
        !(R.vbar = ep_calloc((size_t)nz, sizeof *R.vbar)) || !(R.v = ep_calloc((size_t)nz, sizeof *R.v)) ||
        !(R.w = ep_calloc((size_t)nz, sizeof *R.w))) {
        st = EP_ECOMPUTE;
        goto out;
    }
    double size = 0;
    int grav = 1;
    for (int i = 0; i < nz; i++) {
        if ((st = ep_gfsrc_open(&R.g[i], paths[i])))
            goto out;
        R.gp[i] = &R.g[i];
        size_t n3 = 3 * (size_t)R.g[i].n;
        if (!(R.vbar[i] = ep_calloc(n3, sizeof(double))) || !(R.v[i] = ep_calloc(n3, sizeof(double))) ||
            !(R.w[i] = ep_calloc(n3, sizeof(double)))) {
            st = EP_ECOMPUTE;
            goto out;
        }
        size = fmax(size, ep_mesh_diameter(&R.g[i].file->mesh));
        grav &= R.g[i].body != NULL;
    }
    if ((st = ep_bond_init(&R.b, R.gp, nz)))
        goto out;
    ep_bond *b = &R.b;
    ep_rtreport_fact(rep, "zones", nz);
    ep_rtreport_fact(rep, "seam vertices", b->N);
    ep_rtreport_fact(rep, "seam unknowns", 3.0 * b->N);
    ep_rtreport_fact(rep, "chain (block tridiagonal)", b->chain);
    ep_rtreport_fact(rep, "diagonal blocks", b->nblocks);

    /* the first zone's contacts: o->contacts free nodes with columns */
    ep_rng rng = ep_rng_seed(o->seed, 40);
    if ((st = ep_cma_init(&R.c, &R.g[0])))
        goto out;
    int s = 0, *nodes = ep_malloc((size_t)R.g[0].n + 1, sizeof *nodes);
    if (!nodes) {
        st = EP_ECOMPUTE;
        goto out;
    }
    for (int r = 0; r < R.g[0].n && s < o->contacts; r++)
        if (!R.g[0].file->L.row_fixed[r] && R.g[0].col_of_row[r] >= 0 && ep_rng_uniform(&rng) < 0.5)
            nodes[s++] = r;
    if (s > 0 && !(st = ep_cma_set(&R.c, nodes, s)))
        st = ep_bond_contacts(b, 0, &R.c);
    free(nodes);
    if (st || !(R.uc = ep_calloc(3 * (size_t)(s > 0 ? s : 1), sizeof *R.uc))) {
        st = st ? st : EP_ECOMPUTE;
        goto out;
    }
    ep_rtreport_fact(rep, "contact nodes", s);
    ep_rtreport_fact(rep, "gravity", grav);

    /* trials: random frames, loads, contact displacements, gravity */
    double cont = 0, bal = 0, con = 0, inv = 0, tri = 0;
    double gbeta[3] = {0, 0, -9.81};
    for (long t = 0; t < o->trials && !st; t++) {
        double Rm[9], tv[3], e1, e2, e3;
        for (int i = 0; i < nz && !st; i++) {
            random_frame(&rng, size, Rm, tv);
            st = ep_bond_frame(b, i, Rm, tv);
        }
        random_loads(&R, &rng);
        for (int j = 0; j < 3 * s; j++)
            R.uc[j] = 1e-3 * size * (2 * ep_rng_uniform(&rng) - 1);
        const double *ucs[1] = {R.uc};
        if (st || (grav && (st = ep_bond_gravity(b, gbeta))))
            break;
        if ((st = ep_bond_solve(b, (const double *const *)R.vbar, s ? ucs : NULL, R.v)) || (st = gf_sums(&R)) ||
            (st = seam_errors(&R, &e1, &e2, &e3)))
            break;
        cont = ep_rtreport_worst(cont, e1), bal = ep_rtreport_worst(bal, e2), con = ep_rtreport_worst(con, e3);
        /* one common frame for every zone (gravity turned with it): the same answers in the zones' frames */
        random_frame(&rng, size, Rm, tv);
        for (int i = 0; i < nz && !st; i++)
            st = ep_bond_frame(b, i, Rm, tv);
        double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, zero[3] = {0, 0, 0}, gw[3];
        mat_vec(Rm, gbeta, gw);
        if (st || (grav && (st = ep_bond_gravity(b, gw))) ||
            (st = ep_bond_solve(b, (const double *const *)R.vbar, s ? ucs : NULL, R.v)))
            break;
        for (int i = 0; i < nz; i++) /* at rest */
            memcpy(R.w[i], R.v[i], 3 * (size_t)R.g[i].n * sizeof(double));
        for (int i = 0; i < nz && !st; i++)
            st = ep_bond_frame(b, i, I, zero);
        if (st || (grav && (st = ep_bond_gravity(b, gbeta))) ||
            (st = ep_bond_solve(b, (const double *const *)R.vbar, s ? ucs : NULL, R.v)))
            break;
        inv = ep_rtreport_worst(inv, answers_differ(&R, R.w, R.v));
        if (b->chain) { /* the block tridiagonal factor against one dense factor of the same matrix */
            int nb = b->nblocks, b1 = b->block[1];
            for (int i = 0; i < nz; i++)
                memcpy(R.w[i], R.v[i], 3 * (size_t)R.g[i].n * sizeof(double));
            b->nblocks = 1, b->block[1] = b->block[nb], b->stale = 1; /* one block: one dense factor */
            st = ep_bond_solve(b, (const double *const *)R.vbar, s ? ucs : NULL, R.v);
            b->nblocks = nb, b->block[1] = b1, b->stale = 1;
            tri = ep_rtreport_worst(tri, answers_differ(&R, R.v, R.w));
        }
    }
    if (st)
        goto out;
    ep_rtreport_check_value(rep, "seam continuity (world, GF sums)", cont, 1e-9);
    ep_rtreport_check_value(rep, "seam force balance (world, GF sums)", bal, 1e-8);
    if (s > 0)
        ep_rtreport_check_value(rep, "contact displacements (GF sums)", con, 1e-8);
    ep_rtreport_check_value(rep, "one frame for all: answers unchanged", inv, 1e-9);
    if (b->chain)
        ep_rtreport_check_value(rep, "block tridiagonal factor against one dense factor", tri, 1e-9);

    /* timing: the seam matrix formed, factored and solved (new frames), and solved alone */
    ep_bond_gravity(b, NULL);
    ep_bond_contacts(b, 0, NULL);
    for (int i = 0; i < nz; i++)
        memset(R.vbar[i], 0, 3 * (size_t)R.g[i].n * sizeof(double));
    for (int rep_ = 0; rep_ < 200 && !st; rep_++) {
        double Rm[9], tv[3];
        random_frame(&rng, size, Rm, tv);
        st = ep_bond_frame(b, nz - 1, Rm, tv);
        double t0 = ep_now(), c0 = ep_stats_thread_cpu();
        st = st ? st : ep_bond_solve(b, NULL, NULL, NULL);
        double t1 = ep_now(), c1 = ep_stats_thread_cpu();
        st = st ? st : ep_bond_solve(b, NULL, NULL, NULL);
        double t2 = ep_now(), c2 = ep_stats_thread_cpu();
        if (!st && !(st = ep_stats_add(&t_form, t1 - t0)) && !(st = ep_stats_add(&t_solve, t2 - t1)) &&
            !(st = ep_stats_add(&c_form, c1 - c0)))
            st = ep_stats_add(&c_solve, c2 - c1);
    }
    if (st)
        goto out;
    ep_rtreport_time(rep, "seam solve, frames changed (form, factor, solve)", ep_stats_median(&t_form) * 1e6);
    ep_rtreport_time(rep, "seam solve, same frames", ep_stats_median(&t_solve) * 1e6);
    ep_rtreport_fact(rep, "seam solve best (us)", ep_stats_min(&t_form) * 1e6);
    ep_rtreport_fact(rep, "seam solve CPU median (us)", ep_stats_median(&c_form) * 1e6);
    ep_rtreport_fact(rep, "seam solve CPU best (us)", ep_stats_min(&c_form) * 1e6);
    ep_rtreport_fact(rep, "seam solve, same frames, CPU median (us)", ep_stats_median(&c_solve) * 1e6);

    if (o->reference) {
        double err, gerr;
        int nc, wgrav;
        for (int i = 0; i < nz; i++) {
            double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, zero[3] = {0, 0, 0};
            ep_bond_frame(b, i, I, zero);
        }
        if ((st = whole_model(&R, o->reference, &err, &nc, &wgrav, &gerr)))
            goto out;
        ep_rtreport_fact(rep, "whole-model columns compared", nc);
        ep_rtreport_check_value(rep, "bonded zones against the whole model's GFs", err, o->reference_tol);
        if (wgrav)
            ep_rtreport_check_value(rep, "bonded gravity against the whole model's /gf/body", gerr, o->reference_tol);
    }
out:
    ep_stats_free(&t_form), ep_stats_free(&t_solve), ep_stats_free(&c_form), ep_stats_free(&c_solve);
    run_free(&R);
    return st;
}
