/*
 * rtpshell.c — pointshell / distance-field contact run and checked
 * (rtpshell.h).
 */
#include "rtpshell.h"
#include "closest.h"
#include "cubic.h"
#include "cubic_file.h"
#include "distfield_file.h"
#include "embed.h"
#include "err.h"
#include "mesh.h"
#include "model.h"
#include "pointshell_file.h"
#include "pscontact.h"
#include "reduced.h"
#include "rng.h"
#include "vec3.h"

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    ep_pscontact c;
    ep_sdf s;
    ep_mesh fm, sm, mm;   /* the field's source, the pointshell's source, the model */
    ep_cubic cubic;
    ep_cubic_tangent t;
    double *U;            /* the model's basis [r][3nv] (cubic file) */
    int r, have_model;
    ep_rtpshell_frame fr;
    double *q, *g, *g2;
} run;

static void run_free(run *X)
{
    ep_pscontact_free(&X->c);
    ep_sdf_free(&X->s);
    ep_mesh_free(&X->fm), ep_mesh_free(&X->sm), ep_mesh_free(&X->mm);
    if (X->have_model) {
        ep_cubic_tangent_free(&X->t);
        ep_cubic_free(&X->cubic);
    }
    free(X->U), free(X->q);
}

static void bbox(const double *x, int n, double lo[3], double hi[3])
{
    for (int a = 0; a < 3; a++)
        lo[a] = INFINITY, hi[a] = -INFINITY;
    for (int i = 0; i < n; i++)
        for (int a = 0; a < 3; a++)
            lo[a] = fmin(lo[a], x[3 * (size_t)i + a]), hi[a] = fmax(hi[a], x[3 * (size_t)i + a]);
}

void ep_rtpshell_place(const ep_rtpshell_frame *f, double z, double dx, ep_pscontact_pose *p)
{
    ep_pscontact_pose_identity(p);
    for (int a = 0; a < 2; a++)
        p->tf[a] = 0.5 * (f->lo[a] + f->hi[a]) - 0.5 * (f->flo[a] + f->fhi[a]);
    p->tf[0] += dx;
    p->tf[2] = z - f->flo[2];
    for (int a = 0; a < 3; a++)
        p->xc[a] = 0.5 * (f->lo[a] + f->hi[a]);
}

void ep_rtpshell_frame_init(ep_rtpshell_frame *f, ep_pscontact *c, const ep_sdf *s, const ep_mesh *fm,
                            const double *q)
{
    bbox(c->ps.P, c->ps.S, f->lo, f->hi);
    bbox(fm->vertices, fm->nv, f->flo, f->fhi);
    f->size = sqrt(ep_vec3_dist2(f->lo, f->hi));
    double a = f->lo[2] - (f->fhi[2] - f->flo[2]), b = f->hi[2] + 0.05 * f->size;
    ep_pscontact_out o = {0};
    ep_pscontact_pose p;
    for (int it = 0; it < 40; it++) {
        double m = 0.5 * (a + b);
        ep_rtpshell_place(f, m, 0, &p);
        ep_pscontact_brute(c, s, q, &p, c->ps.L, &o);
        if (o.contacts > 0)
            a = m;
        else
            b = m;
    }
    f->z0 = b;
}

/* A run of cycles' answers, checked against brute force after the run:
 * a brute-force pass between timed cycles would stream every point
 * through the caches and time each cycle cold, which a haptic loop's
 * cycles, back to back, are not (001 §3.13 keeps graphics off the haptic
 * core for that reason).  Rows [n][6 + r]: F, T, g; the contacts and
 * level reached per cycle. */
typedef struct {
    double *ftg;
    int *contacts, *depth;
} trace;

static int trace_alloc(trace *t, long n, int r)
{
    t->ftg = ep_malloc((size_t)n * (6 + r), sizeof *t->ftg);
    t->contacts = ep_malloc(2 * (size_t)n, sizeof *t->contacts);
    t->depth = t->contacts ? t->contacts + n : NULL;
    return t->ftg && t->contacts ? EP_OK : EP_ECOMPUTE;
}

static void trace_free(trace *t)
{
    free(t->ftg), free(t->contacts);
}

static void trace_keep(trace *t, long k, int r, const ep_pscontact_out *a)
{
    double *row = t->ftg + (size_t)k * (6 + r);
    memcpy(row, a->F, 3 * sizeof *row);
    memcpy(row + 3, a->T, 3 * sizeof *row);
    if (r)
        memcpy(row + 6, a->g, (size_t)r * sizeof *row);
    t->contacts[k] = a->contacts, t->depth[k] = a->depth;
}

/* The largest relative difference of the n cycles of t (pose k of
 * trajectory_pose, q qs[k]) from brute force over every point to level
 * (0: the level each cycle reached); 1 where the contact counts differ.
 * Cost n brute passes. */
static void trajectory_pose(const run *X, long k, long n, ep_pscontact_pose *p);
static double trace_check(run *X, const trace *t, long n, const double *qs, int level)
{
    int r = X->r;
    double worst = 0;
    ep_pscontact_out b = {.g = X->g2};
    ep_pscontact_pose p;
    for (long k = 0; k < n; k++) {
        const double *row = t->ftg + (size_t)k * (6 + r);
        trajectory_pose(X, k, n, &p);
        ep_pscontact_brute(&X->c, &X->s, r ? &qs[k * r] : NULL, &p, level ? level : t->depth[k], &b);
        worst = ep_rtreport_worst(worst, ep_rtreport_worst(ep_rtreport_rel_diff(row, b.F, 3),
                                                            ep_rtreport_rel_diff(row + 3, b.T, 3)));
        if (r)
            worst = ep_rtreport_worst(worst, ep_rtreport_rel_diff(row + 6, b.g, (size_t)r));
        if (t->contacts[k] != b.contacts)
            worst = ep_rtreport_worst(worst, 1);
    }
    return worst;
}

/* Largest displacement of the points under q. */
static double max_disp(const ep_pointshell *ps, const double *q)
{
    double m = 0;
    for (int s = 0; s < ps->S; s++) {
        double u2 = 0;
        for (int a = 0; a < 3; a++) {
            double v = 0;
            for (int j = 0; j < ps->r; j++)
                v += ps->U[((size_t)s * 3 + a) * ps->r + j] * q[j];
            u2 += v * v;
        }
        m = fmax(m, sqrt(u2));
    }
    return m;
}

static void random_q(const ep_pointshell *ps, ep_rng *g, double amount, double *q)
{
    for (int j = 0; j < ps->r; j++)
        q[j] = 2 * ep_rng_uniform(g) - 1;
    double d = max_disp(ps, q);
    for (int j = 0; j < ps->r; j++)
        q[j] *= d > 0 ? amount / d : 0;
}

/* Every point within each ancestor's sphere for random q. */
static void check_bound(run *X, ep_rtreport *rep, const ep_rtpshell_opts *o)
{
    const ep_pointshell *ps = &X->c.ps;
    int r = ps->r, *up = ep_malloc((size_t)ps->nn, sizeof *up);
    double *p = ep_malloc(3 * (size_t)ps->S, sizeof *p), worst = 0;
    if (!up || !p) {
        free(up), free(p);
        return;
    }
    for (int i = 0; i < ps->node_start[1]; i++)
        up[i] = -1;
    for (int i = 0; i < ps->node_start[ps->L - 1]; i++)
        for (int k = 0; k < ps->node_count[i]; k++)
            up[ps->node_first[i] + k] = i;
    ep_rng g = ep_rng_seed(o->seed, 391);
    long trials = r ? o->trials : 1;
    for (long k = 0; k < trials; k++) {
        random_q(ps, &g, (k % 2 ? 0.2 : 0.01) * X->fr.size, X->q);
        for (int s = 0; s < ps->S; s++) {
            ep_pscontact_pose id;
            ep_pscontact_pose_identity(&id);
            ep_pscontact_point(&X->c, s, X->q, &id, &p[3 * (size_t)s]);
        }
        for (int i = ps->node_start[ps->L - 1]; i < ps->nn; i++)
            for (int a = up[i]; a >= 0; a = up[a]) {
                double R = ps->R0[a];
                for (int j = 0; j < r; j++)
                    R += X->c.af[(size_t)a * r + j] * fabs(X->q[j]); /* the runtime's (float rows) */
                double d = sqrt(ep_vec3_dist2(&p[3 * (size_t)ps->node_point[i]], &p[3 * (size_t)ps->node_point[a]]));
                worst = ep_rtreport_worst(worst, (d - R) / X->fr.size);
            }
    }
    ep_rtreport_fact(rep, "sphere bound: random q (half moving the model 20 % of its size)", (double)trials);
    ep_rtreport_check_value(rep, "a point outside its node's sphere R_i,0 + sum a_ij |q_j| (of the size)", worst,
                            1e-12);
    free(up), free(p);
    memset(X->q, 0, (size_t)r * sizeof *X->q);
}

/* Whether the triangle f of V lies in element e of m (k corners): its
 * corners inside or on e's boundary, to 1e-9 of the coordinates. */
static int triangle_in_element(const ep_mesh *m, int k, int e, const double *V, const int *f)
{
    for (int c = 0; c < 3; c++) {
        double depth;
        if (ep_embed_depth(m->vertices, k == 4 ? m->tets : m->hexes, k, e, &V[3 * f[c]], &depth) || depth < -1e-9)
            return 0;
    }
    return 1;
}

/* Deformed normals (the runtime's, ep_pscontact_normal) against the
 * deformed source surface (the pointshell's /mesh, embedded in the model),
 * at q moving the model by 5 %.  The check takes the points whose closest
 * triangle lies in the point's own element: there the embedded surface
 * moves by one affine map and its normal is cof(F) N exactly, which the
 * runtime computes (the file's N + dN q would leave eq. 3.8's second order
 * in q, see DECISIONS).  Where a triangle crosses elements the
 * piecewise-linear surface kinks and F jumps (first order in q): reported,
 * not checked. */
static int check_normals(run *X, ep_rtreport *rep, const ep_rtpshell_opts *o)
{
    const ep_pointshell *ps = &X->c.ps;
    int r = ps->r, st, k = X->mm.ne > 0 ? 4 : 8;
    ep_embed b = {0}, bp = {0};
    ep_closest cl = {0};
    double *du = ep_calloc(3 * (size_t)X->sm.nv, sizeof *du), worst = 0, worst_all = 0;
    long inside = 0, all = 0;
    if (!du)
        return EP_ECOMPUTE;
    if ((st = ep_embed_build(&b, X->mm.vertices, X->mm.nv, k == 4 ? X->mm.tets : X->mm.hexes,
                             k == 4 ? X->mm.ne : X->mm.nh, k, X->sm.vertices, X->sm.nv, X->fr.size)) ||
        (st = ep_embed_build(&bp, X->mm.vertices, X->mm.nv, k == 4 ? X->mm.tets : X->mm.hexes,
                             k == 4 ? X->mm.ne : X->mm.nh, k, ps->P, ps->S, X->fr.size)) ||
        (st = ep_closest_build(&cl, &X->sm)))
        goto out;
    ep_rng g = ep_rng_seed(o->seed, 392);
    random_q(ps, &g, 0.05 * X->fr.size, X->q);
    for (int v = 0; v < X->sm.nv; v++) /* the source's displacement W U q */
        for (int c = 0; c < k; c++)
            for (int j = 0; j < r; j++)
                for (int a = 0; a < 3; a++)
                    du[3 * v + a] += b.w[(size_t)k * v + c] * X->U[(size_t)j * 3 * X->mm.nv + 3 * b.col[(size_t)k * v + c] + a] *
                                     X->q[j];
    int step = ps->S > 20000 ? ps->S / 20000 : 1;
    for (int s = 0; s < ps->S; s += step) {
        double cq[3], d2, x[3][3], n[3], ns[3];
        int t;
        ep_closest_query(&cl, &ps->P[3 * (size_t)s], cq, &t, &d2);
        for (int c = 0; c < 3; c++)
            for (int a = 0; a < 3; a++) {
                int v = X->sm.triangles[3 * t + c];
                x[c][a] = X->sm.vertices[3 * v + a] + du[3 * v + a];
            }
        ep_vec3_normal(x[0], x[1], x[2], n); /* outward: the inward normal is -n */
        ep_pscontact_normal(&X->c, s, X->q, ns); /* the runtime's: cof(I + G) N through the mesh */
        double cosang = -ep_vec3_dot(n, ns) / (ep_vec3_norm(n) * ep_vec3_norm(ns));
        /* against the face's own undeformed normal: points on edges and
         * corners carry averaged pseudonormals, compared with their face */
        double n0[3];
        const double *V = X->sm.vertices;
        const int *f = &X->sm.triangles[3 * t];
        ep_vec3_normal(&V[3 * f[0]], &V[3 * f[1]], &V[3 * f[2]], n0);
        if (-ep_vec3_dot(n0, &ps->N[3 * (size_t)s]) / ep_vec3_norm(n0) < 1 - 1e-9)
            continue;
        double deg = acos(fmin(1, fmax(-1, cosang))) * 180 / M_PI;
        worst_all = ep_rtreport_worst(worst_all, deg), all++;
        if (bp.dist[s] == 0 && triangle_in_element(&X->mm, k, bp.element[s], V, f))
            worst = ep_rtreport_worst(worst, deg), inside++;
    }
    ep_rtreport_fact(rep, "deformed normals compared, closest triangle in the point's element", (double)inside);
    ep_rtreport_fact(rep, "deformed normals compared, all (triangles across elements included)", (double)all);
    ep_rtreport_fact(rep, "deformed normal against the deformed surface's, all (degrees, q moving 5 %)", worst_all);
    if (inside == 0)
        st = ep_fail(EP_ECOMPUTE, "no point's closest triangle lies in the point's own element");
    else
        ep_rtreport_check_value(rep, "deformed normal against the deformed surface's (degrees, q moving 5 %)", worst,
                                5.2);
out:
    ep_embed_free(&b);
    ep_embed_free(&bp);
    ep_closest_free(&cl);
    free(du);
    memset(X->q, 0, (size_t)r * sizeof *X->q);
    return st;
}

/* The trajectory's pose at cycle k of n: lowered from 2 % above first
 * touch to 2 % in over the first half, then slid by a quarter of the size. */
static void trajectory_pose(const run *X, long k, long n, ep_pscontact_pose *p)
{
    double size = X->fr.size, deep_z = X->fr.z0 - 0.02 * size, s = (double)k / (n - 1);
    double z = s < 0.5 ? X->fr.z0 + 0.02 * size - 4 * s * 0.04 * size : deep_z;
    ep_rtpshell_place(&X->fr, z < deep_z ? deep_z : z, s < 0.5 ? 0 : (s - 0.5) * 2 * 0.25 * size, p);
}

/* Temporal coherence (001 §3.10.2) along the trajectory again, with the q
 * of each cycle as the first pass had them (qs [n][r]): vmax the largest
 * motion of any point relative to the field in one cycle (the field's step
 * plus max_s |U_s| |dq|, U_s the runtime's rows, ep_pscontact_modes); every cycle's answer
 * against brute force, the node visits skipped. */
static void coherence(run *X, ep_rtreport *rep, long n, const double *qs)
{
    ep_pscontact *c = &X->c;
    int r = X->r;
    double umax = 0, vmax = 0, worst = 0, tsum = 0;
    long skipped = 0, visits = 0;
    double *Us = ep_malloc(3 * (size_t)r + 1, sizeof *Us);
    if (!Us)
        return;
    for (int i = 0; r && i < c->ps.S; i++) {
        double u2 = 0;
        ep_pscontact_modes(c, i, Us);
        for (int j = 0; j < 3 * r; j++)
            u2 += Us[j] * Us[j];
        umax = fmax(umax, u2);
    }
    free(Us);
    ep_pscontact_pose p, p0;
    for (long k = 1; k < n; k++) {
        trajectory_pose(X, k - 1, n, &p0);
        trajectory_pose(X, k, n, &p);
        double dq = 0, dt = sqrt(ep_vec3_dist2(p.tf, p0.tf));
        for (int j = 0; j < r; j++)
            dq += (qs[k * r + j] - qs[(k - 1) * r + j]) * (qs[k * r + j] - qs[(k - 1) * r + j]);
        vmax = fmax(vmax, dt + sqrt(umax * dq));
    }
    c->vmax = vmax * (1 + 1e-9) + 1e-15 * X->fr.size;
    memset(c->wake, 0, (size_t)c->ps.nn * sizeof *c->wake);
    ep_pscontact_out a = {.g = X->g};
    trace t;
    if (trace_alloc(&t, n, r)) {
        trace_free(&t);
        c->vmax = 0;
        return;
    }
    for (long k = 0; k < n; k++) {
        trajectory_pose(X, k, n, &p);
        double t0 = ep_now();
        ep_pscontact_cycle(c, &X->s, r ? &qs[k * r] : NULL, &p, &a);
        tsum += ep_now() - t0;
        skipped += a.skipped, visits += a.traversed + a.skipped;
        trace_keep(&t, k, r, &a);
    }
    worst = trace_check(X, &t, n, qs, 0);
    trace_free(&t);
    c->vmax = 0;
    ep_rtreport_fact(rep, "temporal coherence: vmax, a point's largest motion a cycle (of the size)", vmax / X->fr.size);
    ep_rtreport_fact(rep, "temporal coherence: node visits skipped (fraction)", visits ? (double)skipped / visits : 0);
    ep_rtreport_time(rep, "contact cycle with temporal coherence, mean", 1e6 * tsum / n);
    ep_rtreport_check_value(rep, "temporal coherence: every cycle against brute force (relative)", worst, 1e-12);
}

/* The trajectory, the refinement, the budget and the speed. */
static int trajectory(run *X, ep_rtreport *rep, const ep_rtpshell_opts *o)
{
    ep_pscontact *c = &X->c;
    int r = X->r, L = c->ps.L, st = EP_OK;
    ep_reduced nm = {0};
    double z0 = X->fr.z0, depth = 0.02 * X->fr.size, slide = 0.25 * X->fr.size;
    if (X->have_model) {
        double *P = ep_malloc((size_t)r * r + r, sizeof *P), *ev = P ? P + (size_t)r * r : NULL, umax = 0;
        if (!P)
            return EP_ECOMPUTE;
        memcpy(P, X->cubic.P, (size_t)r * r * sizeof *P);
        int bad = LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'U', r, P, r, ev);
        double w1 = sqrt(fmax(ev[0], 0)), wmax = sqrt(fmax(ev[r - 1], 0));
        free(P);
        if (bad || !(w1 > 0))
            return ep_fail(EP_EINPUT, "the cubic file's /cubic/P is not positive definite");
        for (int s = 0; s < c->ps.S; s++) {
            double u2 = 0;
            for (int i = 0; i < 3 * r; i++)
                u2 += c->ps.U[(size_t)s * 3 * r + i] * c->ps.U[(size_t)s * 3 * r + i];
            umax = fmax(umax, u2);
        }
        c->kc = 4 * w1 * w1 / (c->lc * umax); /* contact 4x the softest mode's stiffness */
        if ((st = ep_reduced_init(&nm, &X->t, 2 * M_PI / wmax / 20, 0, 0.02 / w1)))
            return st;
        ep_reduced_start(&nm, NULL, NULL, NULL);
        ep_rtreport_fact(rep, "Newmark time step (s)", nm.dt);
    } else
        c->kc = 1;
    ep_rtreport_fact(rep, "penalty stiffness k_C", c->kc);
    long n = o->cycles, maxnodes = 0, sumnodes = 0, maxcontacts = 0, ntouch = 0;
    double tsum = 0, tmax = 0, tstep = 0, ttouch = 0, worst = 0, deep_z = z0 - depth;
    ep_pscontact_pose p;
    ep_pscontact_out a = {.g = X->g}, b = {.g = X->g2};
    c->warm = 0;
    trace tr = {0};
    double *qs = ep_malloc((size_t)n * r + 1, sizeof *qs);
    if (!qs || trace_alloc(&tr, n, r)) {
        free(qs);
        trace_free(&tr);
        st = EP_ECOMPUTE;
        goto out;
    }
    for (long k = 0; k < n; k++) {
        trajectory_pose(X, k, n, &p);
        memcpy(&qs[k * r], X->q, (size_t)r * sizeof *qs);
        double t0 = ep_now();
        ep_pscontact_cycle(c, &X->s, X->q, &p, &a);
        double dt = ep_now() - t0;
        tsum += dt, tmax = fmax(tmax, dt);
        if (a.contacts)
            ttouch += dt, ntouch++;
        sumnodes += a.traversed, maxnodes = a.traversed > maxnodes ? a.traversed : maxnodes;
        maxcontacts = a.contacts > maxcontacts ? a.contacts : maxcontacts;
        trace_keep(&tr, k, r, &a);
        if (X->have_model) {
            t0 = ep_now();
            if ((st = ep_reduced_step(&nm, a.g)))
                break;
            tstep += ep_now() - t0;
            memcpy(X->q, nm.q, (size_t)r * sizeof *X->q);
        }
    }
    if (!st)
        worst = trace_check(X, &tr, n, qs, L); /* no budget: every cycle to the last level */
    trace_free(&tr);
    if (st) {
        free(qs);
        goto out;
    }
    ep_rtreport_fact(rep, "cycles (lowered, pushed in 2 %, slid 25 % of the size)", (double)n);
    ep_rtreport_fact(rep, "nodes traversed a cycle, mean", (double)sumnodes / n);
    ep_rtreport_fact(rep, "nodes traversed a cycle, max", (double)maxnodes);
    ep_rtreport_fact(rep, "points in contact, max", (double)maxcontacts);
    ep_rtreport_time(rep, "contact cycle, mean", 1e6 * tsum / n);
    ep_rtreport_time(rep, "contact cycle, max", 1e6 * tmax);
    if (ntouch)
        ep_rtreport_time(rep, "contact cycle, mean over the cycles in contact", 1e6 * ttouch / ntouch);
    if (X->have_model)
        ep_rtreport_time(rep, "reduced Newmark step", 1e6 * tstep / n);
    ep_rtreport_fact(rep, "nodes traversed per microsecond", sumnodes / (1e6 * tsum));
    ep_rtreport_check_value(rep, "traversal's force, torque, reduced force against brute force (relative)", worst,
                            1e-12);
    coherence(X, rep, n, qs);
    free(qs);

    /* the deepest pose: refinement, budget, speed (q as the run left it) */
    ep_rtpshell_place(&X->fr, deep_z, slide / 2, &p);
    ep_pscontact_brute(c, &X->s, X->q, &p, L, &b);
    double FL = ep_vec3_norm(b.F);
    for (int l = 2; l < L; l++) {
        static const char *name[] = {"", "", "force of level 2 against level L (relative)",
                                     "force of level 3 against level L (relative)",
                                     "force of level 4 against level L (relative)",
                                     "force of level 5 against level L (relative)"};
        ep_pscontact_out e = {0};
        ep_pscontact_brute(c, &X->s, X->q, &p, l, &e);
        double d[3] = {e.F[0] - b.F[0], e.F[1] - b.F[1], e.F[2] - b.F[2]};
        if (l <= 5)
            ep_rtreport_fact(rep, name[l], FL > 0 ? ep_vec3_norm(d) / FL : 0);
    }
    long full = 0;
    double tt = INFINITY, tb = INFINITY;
    for (int k = 0; k < 21; k++) { /* back to back, as a haptic loop's cycles */
        double t0 = ep_now();
        ep_pscontact_cycle(c, &X->s, X->q, &p, &a);
        tt = fmin(tt, ep_now() - t0);
        full = a.traversed;
    }
    for (int k = 0; k < 3; k++) {
        double t0 = ep_now();
        ep_pscontact_brute(c, &X->s, X->q, &p, L, &b);
        tb = fmin(tb, ep_now() - t0);
    }
    ep_rtreport_time(rep, "contact cycle at the deepest pose", 1e6 * tt);
    ep_rtreport_time(rep, "brute force over every point there", 1e6 * tb);
    ep_rtreport_fact(rep, "speed-up of the tree over brute force", tb / tt);
    c->warm = full / 10 > 0 ? full / 10 : 1;
    c->depth = L;
    ep_pscontact_cycle(c, &X->s, X->q, &p, &a);
    ep_pscontact_brute(c, &X->s, X->q, &p, a.depth, &b);
    ep_rtreport_fact(rep, "budget: warm threshold (a tenth of the full traversal's nodes)", (double)c->warm);
    ep_rtreport_fact(rep, "budget: level reached", a.depth);
    ep_rtreport_fact(rep, "budget: nodes traversed", (double)a.traversed);
    ep_rtreport_check_value(rep, "budget: force against brute force to the level reached (relative)",
                            ep_rtreport_rel_diff(a.F, b.F, 3), 1e-12);
    c->warm = 0;
out:
    ep_reduced_free(&nm);
    return st;
}

int ep_rtpshell_run(ep_rtreport *rep, ep_h5 *psf, ep_h5 *df, ep_h5 *cf, const ep_rtpshell_opts *o)
{
    run X;
    ep_pointshell ps = {0};
    ep_distfield g = {0};
    int st;
    memset(&X, 0, sizeof X);
    rep->kind = "pointshell";
    if ((st = ep_pointshell_file_read(&ps, psf)) || (st = ep_model_load(&X.sm, psf)) ||
        (st = ep_distfield_file_read(&g, df, NULL)) || (st = ep_model_load(&X.fm, df)))
        goto out;
    if ((st = ep_pscontact_adopt(&X.c, &ps)))
        goto out;
    ep_sdf_adopt(&X.s, &g);
    X.r = X.c.ps.r;
    if (cf) {
        if ((st = ep_model_load(&X.mm, cf)))
            goto out;
        X.have_model = 1; /* ep_cubic_free in every case */
        if ((st = ep_cubic_file_read(&X.cubic, cf, X.mm.nv, &X.U)))
            goto out;
        if (X.cubic.r != X.r) {
            st = ep_fail(EP_EINPUT, "%s: a basis of %d columns, but the pointshell %s is bound to %d", cf->path,
                         X.cubic.r, psf->path, X.r);
            goto out;
        }
        if ((st = ep_cubic_tangent_prepare(&X.t, &X.cubic)))
            goto out;
    }
    if (!(X.q = ep_calloc(3 * (size_t)X.r + 3, sizeof *X.q))) {
        st = EP_ECOMPUTE;
        goto out;
    }
    X.g = X.q + X.r, X.g2 = X.g + X.r;
    ep_rtpshell_frame_init(&X.fr, &X.c, &X.s, &X.fm, X.q);
    ep_rtreport_fact(rep, "points", X.c.ps.S);
    ep_rtreport_fact(rep, "levels", X.c.ps.L);
    ep_rtreport_fact(rep, "tree nodes", X.c.ps.nn);
    ep_rtreport_fact(rep, "reduced coordinates r", X.r);
    ep_rtreport_fact(rep, "field resolution", X.s.n);
    check_bound(&X, rep, o);
    if (X.have_model && X.r > 0 && (st = check_normals(&X, rep, o)))
        goto out;
    st = trajectory(&X, rep, o);
out:
    ep_pointshell_free(&ps);
    ep_distfield_free(&g);
    run_free(&X);
    return st;
}
