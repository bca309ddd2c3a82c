/*
 * rtgf.c — contact runtime on GF files, checked and timed (rtgf.h).
 *
 * One run is a sequence of landings.  Each one: land (a footprint's inverse
 * from the cache or from scratch, and by s sequential additions), slide
 * (additions and deletions at a fixed footprint size), push (contact solve,
 * global solution and force, against a direct solve and the reference
 * GFs), touch (a point contact through a pressure mask).
 */
#include "rtgf.h"
#include "cma.h"
#include "cma_cache.h"
#include "err.h"
#include "gfsrc.h"
#include "mem.h"
#include "probe.h"
#include "rng.h"
#include "stats.h"

#include <lapacke.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Whether node is one of the contact set's. */
static int in_set(const ep_cma *c, int node)
{
    for (int i = 0; i < c->s; i++)
        if (c->S[i] == node)
            return 1;
    return 0;
}

/* Direct dense solve of the switched problem, (E^T Xi E) p = u, by LU on
 * the GFs c uses (the symmetric form's when c->sym): the answer the
 * capacitance matrix must reproduce. */
static int direct_solve(ep_cma *c, const int *S, int s, const double *u, double *p)
{
    int N = 3 * s;
    double *G = ep_malloc((size_t)N * N, sizeof *G);
    lapack_int *ipiv = ep_malloc((size_t)N, sizeof *ipiv);
    int st = G && ipiv ? EP_OK : EP_ECOMPUTE;
    if (!st)
        ep_cma_matrix(c, S, s, G, N);
    memcpy(p, u, (size_t)N * sizeof *p);
    if (!st && LAPACKE_dgesv(LAPACK_ROW_MAJOR, N, 1, G, N, ipiv, p, 1))
        st = ep_fail(EP_ECOMPUTE, "direct solve: the contact matrix is singular");
    free(G), free(ipiv);
    return st;
}

/* Every column of the recomputed file `path` (whose fixed set adds S to
 * this one's) against the capacitance solution with S held at zero; when
 * both files have body-force rows, those too, under a unit gravity along
 * each axis (ep_cma_gravity, 000 eq. 2.38): *grav 1 and *gerr, max |v -
 * body| / max |body| over the axes (else *grav 0). */
static int check_switched(ep_gfsrc *g, ep_cma *c, const char *path, double *err, int *grav, double *gerr)
{
    ep_gfsrc h = {0};
    int st, n = g->n;
    double *vbar = NULL, *v = NULL, *pS = NULL, *zero = NULL;
    int *S = NULL, *col_row = NULL, s = 0;
    if ((st = ep_gfsrc_open(&h, path)))
        goto out;
    if (h.wavelet || h.n != n || memcmp(h.file->L.row_vertex, g->file->L.row_vertex, (size_t)n * sizeof(int))) {
        st = ep_fail(EP_EINPUT, "%s: --switched wants a dense GF file with the same rows", path);
        goto out;
    }
    if (!(S = ep_malloc((size_t)n, sizeof *S)) || !(vbar = ep_calloc(3 * (size_t)n, sizeof *vbar)) ||
        !(v = ep_malloc(3 * (size_t)n, sizeof *v)) || !(pS = ep_malloc(3 * (size_t)n, sizeof *pS)) ||
        !(zero = ep_calloc(3 * (size_t)n, sizeof *zero))) {
        st = EP_ECOMPUTE;
        goto out;
    }
    if ((st = ep_gf_layout_column_rows(&h.file->L, &col_row)))
        goto out;
    for (int r = 0; r < n; r++) {
        if (g->file->L.row_fixed[r] && !h.file->L.row_fixed[r]) {
            st = ep_fail(EP_EINPUT, "%s: row %d is fixed here but free in the reference", path, r);
            goto out;
        }
        if (h.file->L.row_fixed[r] && !g->file->L.row_fixed[r])
            S[s++] = r;
    }
    if (s == 0) {
        st = ep_fail(EP_EINPUT, "%s: fixes no node the reference leaves free", path);
        goto out;
    }
    if ((st = ep_cma_set(c, S, s)))
        goto out;
    *err = 0;
    double scale = 0;
    for (size_t i = 0; i < 9 * (size_t)h.m * n; i++)
        scale = ep_rtreport_worst(scale, fabs(h.xi[i]));
    for (int col = 0; col < h.m; col++) {
        int r = col_row[col];
        if (g->col_of_row[r] < 0) {
            st = ep_fail(EP_EINPUT, "%s: column at row %d has no column in the reference", path, r);
            goto out;
        }
        for (int a = 0; a < 3; a++) {
            vbar[3 * r + a] = 1;
            ep_cma_solve(c, zero /* S held in place */, vbar, pS, v);
            vbar[3 * r + a] = 0;
            for (int q = 0; q < n; q++) /* h's block (q, col), load a */
                for (int b = 0; b < 3; b++)
                    *err = ep_rtreport_worst(
                        *err, fabs(v[3 * q + b] - h.xi[((size_t)col * n + q) * 9 + 3 * b + a]) / scale);
        }
    }
    *grav = g->body && h.body, *gerr = 0;
    for (int a = 0; a < 3 && *grav && !st; a++) {
        double beta[3] = {a == 0, a == 1, a == 2};
        if ((st = ep_cma_gravity(c, beta)))
            break;
        ep_cma_solve(c, zero, NULL, pS, v);
        *gerr = ep_rtreport_worst(*gerr, ep_rtreport_rel_diff(v, h.body + 3 * (size_t)n * a, 3 * (size_t)n));
        st = ep_cma_gravity(c, NULL);
    }
out:
    ep_gfsrc_close(&h);
    free(vbar), free(v), free(pS), free(zero), free(S), free(col_row);
    return st;
}

/* The state of one run. */
typedef struct {
    const ep_rtgf_opts *o;
    ep_gfsrc g, ref;        /* the GFs; ref: --reference (ref.n 0 without) */
    ep_cma c, seq, scratch; /* the landing's inverse; the sliding one; on the reference GFs */
    ep_cma_cache cache;
    ep_probe probe;
    ep_rng rng;
    int s, pool;            /* footprint size; the nodes it slides among (3s) */
    int *S, *near, *seeds, *idx;
    double *u, *p, *pd, *pr, *v, *vr, *rho, *ia, *ib;
    ep_stats t_scratch, t_add, t_remove;
    long by_form[3];        /* from-scratch inverses (timed) by enum ep_cma_form */
    int checked[3];         /* the first factor of each form against LU: factor_err */
    double factor_err[3];
    double t_solve, t_global, t_force;
    double upd_err, seq_err, direct_err, ref_disp, ref_force, mask_err, kappa;
    double *ist, t_interior, vm_max; /* interior rows (/gf/interior): the push's state, its time, max von Mises */
    long refused;
} run;

static void run_free(run *R)
{
    ep_cma_cache_free(&R->cache);
    ep_cma_free(&R->c), ep_cma_free(&R->seq), ep_cma_free(&R->scratch);
    ep_gfsrc_close(&R->ref);
    ep_gfsrc_close(&R->g);
    ep_probe_free(&R->probe);
    free(R->S), free(R->near), free(R->seeds), free(R->idx);
    free(R->u), free(R->p), free(R->pd), free(R->pr), free(R->v), free(R->vr), free(R->rho), free(R->ia), free(R->ib);
    free(R->ist);
    ep_stats_free(&R->t_scratch), ep_stats_free(&R->t_add), ep_stats_free(&R->t_remove);
}

/* Open the GFs (and the reference), the capacitance sets and the buffers. */
static int run_open(run *R, const char *path, const ep_rtgf_opts *o, ep_rtreport *rep)
{
    int st;
    R->o = o;
    R->rng = ep_rng_seed(o->seed, 1);
    R->kappa = 1;
    ep_cma_cache_init(&R->cache, 256.0 * EP_MEM_MIB);
    if ((st = ep_gfsrc_open(&R->g, path)) || (st = ep_probe_init(&R->probe, &R->g)))
        return st;
    rep->kind = R->g.wavelet ? "gf-wavelet" : "gf";
    int n = R->g.n, nfree = R->probe.nfree;
    R->s = o->contacts;
    if (nfree == 0) /* a file, not the options, is what is wrong (issue 22, class 13) */
        return ep_fail(EP_EINPUT, "%s: every GF row is fixed: no free node with a GF column to touch", path);
    if (R->s > nfree)
        return ep_fail(EP_EUSAGE, "--contacts %d: the file has %d free nodes with GF columns", R->s, nfree);
    R->pool = 3 * R->s > nfree ? nfree : 3 * R->s;
    if (o->reference) {
        if ((st = ep_gfsrc_open(&R->ref, o->reference)))
            return st;
        /* rows too: permuted rows compared other vertices' values (class 13) */
        if (R->ref.n != n || R->ref.m != R->g.m ||
            memcmp(R->ref.file->L.col_vertex, R->g.file->L.col_vertex, (size_t)R->g.m * sizeof(int)) ||
            memcmp(R->ref.file->L.row_vertex, R->g.file->L.row_vertex, (size_t)n * sizeof(int)) ||
            memcmp(R->ref.file->L.row_fixed, R->g.file->L.row_fixed, (size_t)n))
            return ep_fail(EP_EINPUT, "%s: --reference has other rows or columns (or another order) than %s",
                           o->reference, path);
    }
    /* scratch solves the same contacts on the reference GFs */
    if ((st = ep_cma_init(&R->c, &R->g)) || (st = ep_cma_init(&R->seq, &R->g)) ||
        (st = ep_cma_init(&R->scratch, o->reference ? &R->ref : &R->g)) || (st = ep_cma_threads(&R->seq, o->threads)))
        return st;
    if (o->lu)
        ep_cma_use_lu(&R->c), ep_cma_use_lu(&R->seq), ep_cma_use_lu(&R->scratch);
    size_t n3 = 3 * (size_t)n, pool = (size_t)R->pool;
    if (!(R->S = ep_malloc(pool + 1, sizeof *R->S)) || !(R->near = ep_malloc(pool + 1, sizeof *R->near)) ||
        !(R->seeds = ep_malloc((size_t)o->trials, sizeof *R->seeds)) || !(R->u = ep_malloc(n3, sizeof *R->u)) ||
        !(R->p = ep_malloc(n3, sizeof *R->p)) || !(R->pd = ep_malloc(n3, sizeof *R->pd)) ||
        !(R->pr = ep_malloc(n3, sizeof *R->pr)) || !(R->v = ep_malloc(n3, sizeof *R->v)) ||
        !(R->vr = ep_malloc(n3, sizeof *R->vr)) || !(R->idx = ep_malloc((size_t)n, sizeof *R->idx)) ||
        !(R->rho = ep_malloc((size_t)n, sizeof *R->rho)) || !(R->ia = ep_malloc(9 * pool * pool, sizeof *R->ia)) ||
        !(R->ib = ep_malloc(9 * pool * pool, sizeof *R->ib)) ||
        (R->g.np && !(R->ist = ep_malloc(9 * (size_t)R->g.np, sizeof *R->ist))))
        return EP_ECOMPUTE;
    return EP_OK;
}

/* ep_rtreport_rel_norm of two capacitance inverses over the same node order. */
static double inverse_diff(run *R, const ep_cma *a, const ep_cma *b)
{
    ep_cma_inverse(a, R->ia);
    ep_cma_inverse(b, R->ib);
    return ep_rtreport_rel_norm(R->ia, R->ib, 9 * (size_t)a->s * a->s);
}

/* The inverse from the landing's factor (Cholesky or LDL^T) against LU of
 * the same C (ep_cma_matrix, dgesv on the identity): the symmetric path's
 * own check.  Cost 8/3 (3s)^3, once a form. */
static int factor_vs_lu(run *R)
{
    ep_cma *c = &R->c;
    int s = c->s, N = 3 * s;
    double *G = R->ia, *X = R->ib;
    lapack_int *ipiv = ep_malloc((size_t)N, sizeof *ipiv);
    if (!ipiv)
        return EP_ECOMPUTE;
    ep_cma_matrix(c, c->S, s, G, N);
    for (size_t i = 0; i < (size_t)N * N; i++)
        G[i] = -G[i], X[i] = i % (N + 1) == 0;
    int bad = LAPACKE_dgesv(LAPACK_ROW_MAJOR, N, N, G, N, ipiv, X, N) != 0;
    free(ipiv);
    if (bad)
        return ep_fail(EP_ECOMPUTE, "LU of a capacitance matrix inverted by %s: singular", c->factor);
    ep_cma_inverse(c, G);
    R->factor_err[c->form] = ep_rtreport_rel_norm(G, X, (size_t)N * N);
    R->checked[c->form] = 1;
    return EP_OK;
}

static int random_free_node(run *R) { return R->probe.free[ep_rng_below(&R->rng, R->probe.nfree)]; }

/* Landing t: every fourth returns to an earlier spot (a cache hit); else the
 * inverse from scratch (timed) and by s sequential additions (its check).
 * A footprint whose GFs are singular (lossy wavelet GFs can make one) lands
 * elsewhere, counted. */
static int land(run *R, long t)
{
    int st, s = R->s;
    R->seeds[t] = t % 4 == 3 ? R->seeds[t - 3] : random_free_node(R);
    for (int tries = 1;; tries++) {
        ep_probe_footprint(&R->probe, R->seeds[t], R->pool, R->near);
        memcpy(R->S, R->near, (size_t)s * sizeof *R->S);
        if (ep_cma_cache_get(&R->cache, &R->c, R->S, s))
            return EP_OK;
        double t0 = ep_now(), dt = 0;
        if (!(st = ep_cma_set(&R->c, R->S, s)) && !(dt = ep_now() - t0, st = ep_cma_set(&R->seq, NULL, 0)))
            for (int i = 0; i < s && !st; i++) /* not timed: s grows from 0 */
                st = ep_cma_add(&R->seq, R->S[i]);
        if (st == EP_ECOMPUTE && tries < 20) {
            R->refused++;
            R->seeds[t] = random_free_node(R);
            continue;
        }
        if (st || (st = ep_stats_add(&R->t_scratch, dt)) || (st = ep_cma_cache_put(&R->cache, &R->c)))
            return st;
        R->by_form[R->c.form]++;
        if (R->c.form != EP_CMA_INVERSE && !R->checked[R->c.form] && (st = factor_vs_lu(R)))
            return st;
        double rc;
        if ((st = ep_cma_rcond(&R->c, &rc)))
            return st;
        R->kappa = ep_rtreport_worst(R->kappa, 1 / rc);
        R->seq_err = ep_rtreport_worst(R->seq_err, inverse_diff(R, &R->seq, &R->c));
        return EP_OK;
    }
}

/* The probe slides: its footprint gains a random node of the 3s nearest,
 * then loses a random one, so additions are timed at s nodes and deletions
 * at s + 1 (a free choice of node drifts to 1.5 s).  The final set is
 * checked against its inverse from scratch. */
static int slide(run *R)
{
    ep_cma *seq = &R->seq;
    int st, s = R->s, pool = R->pool;
    if (!R->o->ops)
        return EP_OK;
    if ((st = ep_cma_set(seq, R->c.S, R->c.s)))
        return st;
    for (long k = 0; k < R->o->ops; k++) {
        int cand, gain = seq->s <= s && seq->s < pool;
        if (!gain && seq->s <= 1)
            break; /* a footprint of all the free nodes cannot slide */
        if (gain)
            do
                cand = R->near[ep_rng_below(&R->rng, pool)];
            while (in_set(seq, cand));
        else
            cand = seq->S[ep_rng_below(&R->rng, seq->s)];
        double t0 = ep_now();
        if (!gain) {
            if ((st = ep_cma_remove(seq, cand)) || (st = ep_stats_add(&R->t_remove, ep_now() - t0)))
                return st;
        } else if ((st = ep_cma_add(seq, cand)) == EP_ECOMPUTE) {
            R->refused++; /* a node the set's GFs already determine: another lands */
            st = EP_OK;
        } else if (st || (st = ep_stats_add(&R->t_add, ep_now() - t0)))
            return st;
    }
    ep_cma check = {0};
    double rc;
    if (!(st = ep_cma_init(&check, &R->g))) {
        if (R->o->lu) /* the C seq has: --factor lu's GFs as stored, not the symmetric form's */
            ep_cma_use_lu(&check);
        if (!(st = ep_cma_set(&check, seq->S, seq->s)) && !(st = ep_cma_rcond(&check, &rc))) {
            R->upd_err = ep_rtreport_worst(R->upd_err, inverse_diff(R, seq, &check));
            R->kappa = ep_rtreport_worst(R->kappa, 1 / rc);
        }
    }
    ep_cma_free(&check);
    return st;
}

/* Contact: the footprint pushed in by 1% of the model size.  The solves are
 * timed; the tractions compared with a direct dense solve; with
 * --reference, what a user sees and feels (the displacement of the free
 * nodes off the footprint, the contact force) with the reference GFs'. */
static int push(run *R)
{
    enum { REPS = 20 };
    const ep_gf_layout *L = &R->g.file->L;
    int st, s = R->s, n = R->g.n;
    double f[3];
    for (int i = 0; i < s; i++)
        R->u[3 * i] = 0, R->u[3 * i + 1] = 0, R->u[3 * i + 2] = -0.01 * R->probe.diameter;
    double t0 = ep_now();
    for (int k = 0; k < REPS; k++)
        ep_cma_solve(&R->c, R->u, NULL, R->p, NULL);
    R->t_solve += (ep_now() - t0) / REPS;
    t0 = ep_now();
    ep_cma_solve(&R->c, R->u, NULL, R->p, R->v);
    R->t_global += ep_now() - t0;
    t0 = ep_now();
    for (int k = 0; k < REPS; k++)
        ep_cma_force(&R->c, R->p, f);
    R->t_force += (ep_now() - t0) / REPS;
    if (R->ist) { /* the interior state of the push (MATH.md §12): displacement, stress, von Mises */
        t0 = ep_now();
        if ((st = ep_cma_interior(&R->c, NULL, R->p, R->ist)))
            return st;
        for (int k = 0; k < R->g.np; k++)
            R->vm_max = fmax(R->vm_max, ep_gfsrc_von_mises(R->ist + 9 * (size_t)k + 3));
        R->t_interior += ep_now() - t0;
    }
    if ((st = direct_solve(&R->c, R->c.S, s, R->u, R->pd)))
        return st;
    R->direct_err = ep_rtreport_worst(R->direct_err, ep_rtreport_rel_diff(R->p, R->pd, 3 * (size_t)s));
    if (!R->o->reference)
        return EP_OK;
    if ((st = ep_cma_set(&R->scratch, R->c.S, s)))
        return st;
    ep_cma_solve(&R->scratch, R->u, NULL, R->pr, R->vr);
    double dd = 0, dn = 0, fw[3], fr[3];
    for (int q = 0; q < n; q++) {
        int inS = in_set(&R->c, q);
        for (int b = 0; !inS && !L->row_fixed[q] && b < 3; b++) {
            double e = R->v[3 * q + b] - R->vr[3 * q + b];
            dd += e * e, dn += R->vr[3 * q + b] * R->vr[3 * q + b];
        }
    }
    ep_cma_force(&R->c, R->p, fw);
    ep_cma_force(&R->scratch, R->pr, fr);
    R->ref_disp = ep_rtreport_worst(R->ref_disp, sqrt(dd / dn));
    R->ref_force = ep_rtreport_worst(R->ref_force, ep_rtreport_rel_norm(fw, fr, 3));
    return EP_OK;
}

/* Point contact with a pressure mask at the probe's centre: the masked
 * stiffness's force, spread by the mask, moves the node by u (000 §4.2). */
static int touch(run *R, int node)
{
    double d = R->probe.diameter, radius = R->o->mask_radius > 0 ? R->o->mask_radius : 0.05 * d;
    double K[9], fm[3], uc[3] = {0, 0, -0.01 * d};
    int st, k = ep_cma_mask(&R->g, node, radius, R->idx, R->rho);
    if ((st = ep_cma_mask_stiffness(&R->g, node, k, R->idx, R->rho, K)))
        return st;
    for (int b = 0; b < 3; b++)
        fm[b] = K[3 * b] * uc[0] + K[3 * b + 1] * uc[1] + K[3 * b + 2] * uc[2];
    for (int q = 0; q < k; q++) {
        R->idx[q] = R->g.col_of_row[R->idx[q]];
        for (int a = 0; a < 3; a++)
            R->pd[3 * q + a] = R->rho[q] * fm[a];
    }
    ep_gfsrc_sum(&R->g, k, R->idx, R->pd, R->v);
    R->mask_err = ep_rtreport_worst(R->mask_err, ep_rtreport_rel_diff(&R->v[3 * node], uc, 3));
    return EP_OK;
}

static void report(run *R, ep_rtreport *rep)
{
    const ep_rtgf_opts *o = R->o;
    if (R->g.file->constraint_level >= 0) /* 000 §3.6: contacts at the coarse vertices, hat loads */
        ep_rtreport_fact(rep, "hierarchical constraints at level", R->g.file->constraint_level);
    /* which factorization the timed from-scratch inverses used (cma.h) */
    static const char *name[8] = {"lu", "lu", "cholesky", "cholesky, lu", "ldlt", "ldlt, lu", "cholesky, ldlt",
                                  "cholesky, ldlt, lu"};
    rep->factorization = name[(R->by_form[EP_CMA_INVERSE] > 0) | 2 * (R->by_form[EP_CMA_CHOLESKY] > 0) |
                              4 * (R->by_form[EP_CMA_LDLT] > 0)];
    if (R->c.sym) {
        ep_rtreport_fact(rep, "from-scratch inverses by Cholesky", (double)R->by_form[EP_CMA_CHOLESKY]);
        ep_rtreport_fact(rep, "from-scratch inverses by LDL^T", (double)R->by_form[EP_CMA_LDLT]);
    }
    ep_rtreport_fact(rep, "contact nodes", R->s);
    ep_rtreport_fact(rep, "trials", (double)o->trials);
    ep_rtreport_fact(rep, "update operations", (double)(R->t_add.n + R->t_remove.n));
    ep_rtreport_fact(rep, "update threads", (double)o->threads);
    ep_rtreport_fact(rep, "footprints and additions refused as singular", (double)R->refused);
    ep_rtreport_fact(rep, "cache hit rate", (double)R->cache.hits / (double)(R->cache.hits + R->cache.misses));
    /* The error model of an updated inverse (rtcheck(1), TOLERANCES): each
     * update of C^-1 (3s x 3s, s <= S + 1 nodes) is backward stable with
     * error about 3(S+1) u, u = 2^-53 the unit roundoff, which the inverse
     * amplifies by its condition number; N updates add up at most linearly:
     *   |updated - scratch| / |scratch| <= G kappa(C) 3(S+1) u (N+1)
     * with N = S sequential additions, or --ops additions and deletions.
     * kappa is measured on the final sets only; the sets a sequence passes
     * through may be worse conditioned: G = EP_RTGF_GROWTH covers that.
     * (The fixed 1e-14 kappa of before failed femcondense's beam3 GFs.) */
    double u = DBL_EPSILON / 2, grow = EP_RTGF_GROWTH * R->kappa * 3.0 * (R->s + 1) * u;
    ep_rtreport_fact(rep, "largest condition number of C", R->kappa);
    if (R->t_scratch.n)
        ep_rtreport_check_value(rep, "sequential additions vs from-scratch inverse", R->seq_err, grow * (R->s + 1));
    if (o->ops)
        ep_rtreport_check_value(rep, "add/delete sequences vs from-scratch inverse", R->upd_err,
                                grow * ((double)o->ops + 1));
    if (R->checked[EP_CMA_CHOLESKY]) /* one inverse: the error model of a single from-scratch inverse */
        ep_rtreport_check_value(rep, "Cholesky inverse vs LU of the same C", R->factor_err[EP_CMA_CHOLESKY], grow);
    if (R->checked[EP_CMA_LDLT])
        ep_rtreport_check_value(rep, "LDL^T inverse vs LU of the same C", R->factor_err[EP_CMA_LDLT], grow);
    ep_rtreport_check_value(rep, "contact tractions vs direct dense solve", R->direct_err, 1e-9);
    ep_rtreport_check_value(rep, "masked point contact reproduces displacement", R->mask_err, 1e-9);
    if (o->reference) {
        ep_rtreport_fact(rep, "file rms_error", R->g.w.rms_error);
        ep_rtreport_check_value(rep, "displacements vs --reference (relative)", R->ref_disp, o->reference_tol);
        ep_rtreport_check_value(rep, "contact force vs --reference (relative)", R->ref_force, o->reference_tol);
    }
}

static void report_times(run *R, ep_rtreport *rep)
{
    long trials = R->o->trials;
    if (R->t_scratch.n)
        ep_rtreport_time(rep, "capacitance inverse from scratch", ep_stats_median(&R->t_scratch) * 1e6);
    if (R->t_add.n)
        ep_rtreport_time(rep, "one-node addition", ep_stats_median(&R->t_add) * 1e6);
    if (R->t_remove.n)
        ep_rtreport_time(rep, "one-node deletion", ep_stats_median(&R->t_remove) * 1e6);
    ep_rtreport_time(rep, "contact solve (tractions at S)", R->t_solve / trials * 1e6);
    ep_rtreport_time(rep, "global solution (all nodes)", R->t_global / trials * 1e6);
    ep_rtreport_time(rep, "contact force", R->t_force / trials * 1e6);
    if (R->ist) {
        ep_rtreport_time(rep, "interior state (displacement, stress, von Mises at the interior points)",
                         R->t_interior / trials * 1e6);
        ep_rtreport_fact(rep, "interior points", R->g.np);
        ep_rtreport_fact(rep, "largest von Mises stress at the interior points in a push", R->vm_max);
    }
}

int ep_rtgf_run(ep_rtreport *rep, const char *path, const ep_rtgf_opts *o)
{
    run R;
    int st;
    memset(&R, 0, sizeof R);
    if ((st = run_open(&R, path, o, rep)))
        goto out;
    for (long t = 0; t < o->trials; t++)
        if ((st = land(&R, t)) || (st = slide(&R)) || (st = push(&R)) || (st = touch(&R, R.seeds[t])))
            goto out;
    report(&R, rep);
    if (o->switched) {
        double err = NAN, gerr = NAN;
        int grav = 0;
        if ((st = check_switched(&R.g, &R.c, o->switched, &err, &grav, &gerr)))
            goto out;
        ep_rtreport_check_value(rep, "switched solution vs --switched GFs", err, 1e-8);
        if (grav)
            ep_rtreport_check_value(rep, "switched solution under gravity vs --switched /gf/body", gerr, 1e-8);
    }
    report_times(&R, rep);
out:
    run_free(&R);
    return st;
}
