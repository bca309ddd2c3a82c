/*
 * pscontact.c — pointshell / distance-field contact (pscontact.h; 001
 * §3.5-3.10, Ch. 4; MATH.md §11).
 */
#include "pscontact.h"
#include "err.h"
#include "h5.h"
#include "pointshell_file.h"
#include "sort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void ep_pscontact_pose_identity(ep_pscontact_pose *pose)
{
    memset(pose, 0, sizeof *pose);
    pose->Rp[0] = pose->Rp[4] = pose->Rp[8] = 1;
    pose->Rf[0] = pose->Rf[4] = pose->Rf[8] = 1;
}

void ep_pscontact_free(ep_pscontact *c)
{
    ep_pointshell_free(&c->ps);
    free(c->stamp), free(c->wake), free(c->d), free(c->x), free(c->pending), free(c->y), free(c->yd), free(c->list), free(c->next), free(c->contact), free(c->absq);
    memset(c, 0, sizeof *c);
}

int ep_pscontact_adopt(ep_pscontact *c, ep_pointshell *ps)
{
    memset(c, 0, sizeof *c);
    c->ps = *ps;
    memset(ps, 0, sizeof *ps);
    c->kc = 1;
    c->lc = 10;
    int S = c->ps.S, widest = 1;
    for (int l = 1; l <= c->ps.L; l++)
        if (c->ps.level_start[l] > widest)
            widest = c->ps.level_start[l];
    if (!(c->stamp = ep_calloc((size_t)S, sizeof *c->stamp)) ||
        !(c->wake = ep_calloc((size_t)c->ps.nn, sizeof *c->wake)) || !(c->d = ep_calloc((size_t)S, sizeof *c->d)) ||
        !(c->x = ep_malloc(3 * (size_t)S, sizeof *c->x)) ||
        !(c->list = ep_malloc((size_t)widest, sizeof *c->list)) ||
        !(c->next = ep_malloc((size_t)widest, sizeof *c->next)) ||
        !(c->contact = ep_malloc((size_t)S, sizeof *c->contact)) ||
        !(c->pending = ep_malloc((size_t)widest, sizeof *c->pending)) ||
        !(c->y = ep_malloc(3 * (size_t)widest, sizeof *c->y)) || !(c->yd = ep_malloc((size_t)widest, sizeof *c->yd)) ||
        !(c->absq = ep_calloc(2 * (size_t)c->ps.r + 1, sizeof *c->absq))) {
        ep_pscontact_free(c);
        return EP_ECOMPUTE;
    }
    return EP_OK;
}

int ep_pscontact_open(ep_pscontact *c, const char *path)
{
    ep_h5 f = {0};
    ep_pointshell ps = {0};
    memset(c, 0, sizeof *c);
    int st = ep_h5_open(&f, path, "pointshell");
    if (!st && !(st = ep_pointshell_file_read(&ps, &f)))
        st = ep_pscontact_adopt(c, &ps);
    ep_pointshell_free(&ps);
    int cst = ep_h5_close(&f);
    return st ? st : cst;
}

/* v + M q for a 3 x r row block M (row-major), the three rows summed
 * together (three independent chains for the adder, each still in j
 * order, so the sums are those of one row at a time). */
static inline void affine3(const double v[3], const double *M, int r, const double *q, double p[3])
{
    double v0 = v[0], v1 = v[1], v2 = v[2];
    for (int j = 0; j < r; j++) {
        v0 += M[j] * q[j];
        v1 += M[r + j] * q[j];
        v2 += M[2 * r + j] * q[j];
    }
    p[0] = v0, p[1] = v1, p[2] = v2;
}

/* Body position of point s at q: P_s + U_s q (eq. 3.6). */
static inline void body(const ep_pointshell *ps, int s, const double *q, double p[3])
{
    int r = ps->r;
    affine3(&ps->P[3 * (size_t)s], r ? &ps->U[(size_t)s * 3 * r] : NULL, r, q, p);
}

static inline void rot(const double R[9], const double x[3], double y[3])
{
    for (int a = 0; a < 3; a++)
        y[a] = R[3 * a] * x[0] + R[3 * a + 1] * x[1] + R[3 * a + 2] * x[2];
}

static inline void rot_t(const double R[9], const double x[3], double y[3])
{
    for (int a = 0; a < 3; a++)
        y[a] = R[a] * x[0] + R[3 + a] * x[1] + R[6 + a] * x[2];
}

/* World position of point s (ep_pscontact_point, inlined here). */
static inline void world(const ep_pscontact *c, int s, const double *q, const ep_pscontact_pose *pose, double x[3])
{
    double p[3];
    body(&c->ps, s, q, p);
    rot(pose->Rp, p, x);
    for (int a = 0; a < 3; a++)
        x[a] += pose->tp[a];
}

void ep_pscontact_point(const ep_pscontact *c, int s, const double *q, const ep_pscontact_pose *pose, double x[3])
{
    world(c, s, q, pose, x);
}

/* Points ahead whose rows are prefetched (about a memory latency's worth
 * of work at a few tens of nanoseconds a point). */
#define AHEAD 8

/* Prefetch the rows of point s: P_s and U_s (3 r doubles), with normals
 * N_s and dN_s too. */
static inline void prefetch_point(const ep_pointshell *ps, int s, int normals)
{
    size_t row = 3 * (size_t)ps->r * sizeof *ps->U;
    for (int k = 0; k <= normals && ps->r; k++) { /* r = 0: no rows */
        const char *u = (const char *)&(k ? ps->dN : ps->U)[(size_t)s * 3 * ps->r], *e = u + row;
        __builtin_prefetch(&(k ? ps->N : ps->P)[3 * (size_t)s]);
        for (; u < e; u += 64)
            __builtin_prefetch(u);
        __builtin_prefetch(e - 1); /* the last line when the row is not aligned */
    }
}

/* Point s in the field's frame y (world x too). */
static inline void field_point2(const ep_pscontact *c, int s, const double *q, const ep_pscontact_pose *pose,
                                double x[3], double y[3])
{
    double z[3];
    world(c, s, q, pose, x);
    for (int a = 0; a < 3; a++)
        z[a] = x[a] - pose->tf[a];
    rot_t(pose->Rf, z, y);
}

/* The field's value at point s (world x too). */
static inline double lookup(const ep_pscontact *c, const ep_sdf *sdf, int s, const double *q,
                            const ep_pscontact_pose *pose, double x[3])
{
    double y[3];
    field_point2(c, s, q, pose, x, y);
    return ep_sdf_value(sdf, y);
}

/* Forces, torques, the reduced force and derivatives of the contact set
 * (sorted ascending: the same sums whatever found it), with the field's
 * values c->d[s] and world positions c->x[s] its finder stored (not
 * computed again). */
static void forces(ep_pscontact *c, const double *q, const ep_pscontact_pose *pose, int nc,
                   ep_pscontact_out *out)
{
    const ep_pointshell *ps = &c->ps;
    int r = ps->r;
    double k = c->kc, scale = c->lc > 0 && nc > c->lc ? (double)c->lc / nc : 1;
    ep_sort_ints_radix(c->contact, (size_t)nc, c->pending); /* pending: [S] */
    memset(out->F, 0, sizeof out->F);
    memset(out->T, 0, sizeof out->T);
    memset(out->dF_dt, 0, sizeof out->dF_dt), memset(out->dF_dw, 0, sizeof out->dF_dw);
    memset(out->dT_dt, 0, sizeof out->dT_dt), memset(out->dT_dw, 0, sizeof out->dT_dw);
    if (out->g)
        memset(out->g, 0, (size_t)r * sizeof *out->g);
    if (out->derivatives && out->dg_dq)
        memset(out->dg_dq, 0, (size_t)r * r * sizeof *out->dg_dq);
    if (out->derivatives && out->dg_dt)
        memset(out->dg_dt, 0, (size_t)r * 3 * sizeof *out->dg_dt);
    for (int e = 0; e < nc; e++) {
        int s = c->contact[e];
        double x[3], nb[3], n[3], a[3], f[3];
        if (e + AHEAD < nc) /* scattered rows: P_s, U_s, dN_s of the contacts ahead */
            prefetch_point(ps, c->contact[e + AHEAD], 1);
        double d = c->d[s];
        memcpy(x, &c->x[3 * (size_t)s], sizeof x);
        /* eq. 3.8: N_s + dN_s q, normalized */
        affine3(&ps->N[3 * (size_t)s], r ? &ps->dN[(size_t)s * 3 * r] : NULL, r, q, nb);
        double l = sqrt(nb[0] * nb[0] + nb[1] * nb[1] + nb[2] * nb[2]);
        for (int i = 0; i < 3; i++)
            nb[i] /= l;
        rot(pose->Rp, nb, n);
        for (int i = 0; i < 3; i++) {
            f[i] = -k * d * n[i]; /* eq. 3.1 */
            a[i] = x[i] - pose->xc[i];
            out->F[i] += scale * f[i];
        }
        double axf[3] = {a[1] * f[2] - a[2] * f[1], a[2] * f[0] - a[0] * f[2], a[0] * f[1] - a[1] * f[0]};
        for (int i = 0; i < 3; i++)
            out->T[i] += scale * axf[i]; /* eq. 3.3 */
        for (int j = 0; j < r && out->g; j++) /* U_s^T R_p^T f_s = U_s^T (-k d n_body) */
            out->g[j] += scale * -k * d *
                         (ps->U[((size_t)s * 3) * r + j] * nb[0] + ps->U[((size_t)s * 3 + 1) * r + j] * nb[1] +
                          ps->U[((size_t)s * 3 + 2) * r + j] * nb[2]);
        if (!out->derivatives)
            continue;
        double axn[3] = {a[1] * n[2] - a[2] * n[1], a[2] * n[0] - a[0] * n[2], a[0] * n[1] - a[1] * n[0]};
        double ks = k * scale;
        for (int i = 0; i < 3; i++)
            for (int m = 0; m < 3; m++) {
                out->dF_dt[3 * i + m] += ks * n[i] * n[m];
                out->dF_dw[3 * i + m] += ks * n[i] * axn[m];
                out->dT_dt[3 * i + m] += ks * axn[i] * n[m]; /* [a]x n n^T = (a x n) n^T */
                out->dT_dw[3 * i + m] += ks * axn[i] * axn[m];
            }
        if (!r)
            continue;
        double *wv = c->absq + r; /* w = U_s^T n_body */
        for (int j = 0; j < r; j++)
            wv[j] = ps->U[((size_t)s * 3) * r + j] * nb[0] + ps->U[((size_t)s * 3 + 1) * r + j] * nb[1] +
                    ps->U[((size_t)s * 3 + 2) * r + j] * nb[2];
        for (int i = 0; i < r; i++) {
            if (out->dg_dq)
                for (int j = 0; j < r; j++)
                    out->dg_dq[(size_t)i * r + j] -= ks * wv[i] * wv[j];
            if (out->dg_dt)
                for (int m = 0; m < 3; m++)
                    out->dg_dt[(size_t)i * 3 + m] += ks * wv[i] * n[m];
        }
    }
    out->contacts = nc;
    out->scale = scale;
}

int ep_pscontact_cycle(ep_pscontact *c, const ep_sdf *sdf, const double *q, const ep_pscontact_pose *pose,
                       ep_pscontact_out *out)
{
    const ep_pointshell *ps = &c->ps;
    int r = ps->r, L = ps->L, n = ps->node_start[1], nc = 0, depth = 0;
    long V = 0, lookups = 0, skipped = 0, cold = c->cold > 0 ? c->cold : (long)(0.8 * c->warm);
    c->cycle++;
    for (int j = 0; j < r; j++)
        c->absq[j] = fabs(q[j]);
    for (int i = 0; i < n; i++)
        c->list[i] = i;
    for (int l = 1; l <= L; l++) {
        /* graceful degradation (001 §3.10.3): warm down to last cycle's depth, cold below */
        if (c->warm > 0 && l > 1 && V >= (l <= c->depth ? c->warm : cold))
            break;
        depth = l;
        int m = 0, nb = 0;
        /* the level's new points moved and looked up as one batch: the field's
         * voxels are prefetched ahead (ep_sdf_values), so the memory
         * latencies of random lookups overlap */
        for (int e = 0; e < n; e++) {
            int i = c->list[e], s = ps->node_point[i];
            if (c->vmax > 0 && c->wake[i] > c->cycle) { /* temporal coherence (001 §3.10.2) */
                skipped++;
                c->list[e] = -1;
                continue;
            }
            if (c->stamp[s] != c->cycle) {
                c->stamp[s] = c->cycle;
                c->pending[nb++] = s;
            }
        }
        /* the points are scattered: their rows of P and U (3 r doubles, a
         * few cache lines) are prefetched ahead, so the latencies overlap */
        for (int k = 0; k < nb; k++) {
            if (k + AHEAD < nb)
                prefetch_point(ps, c->pending[k + AHEAD], 0);
            field_point2(c, c->pending[k], q, pose, &c->x[3 * (size_t)c->pending[k]], &c->y[3 * (size_t)k]);
        }
        ep_sdf_values(sdf, c->y, nb, c->yd);
        for (int k = 0; k < nb; k++) {
            int s = c->pending[k];
            c->d[s] = c->yd[k];
            if (c->d[s] < 0)
                c->contact[nc++] = s;
        }
        lookups += nb;
        for (int e = 0; e < n; e++) {
            int i = c->list[e];
            if (i < 0)
                continue;
            int s = ps->node_point[i];
            V++;
            double R = ps->R0[i];
            const double *a = r ? &ps->a[(size_t)i * r] : NULL;
            for (int j = 0; j < r && l < L; j++)
                R += a[j] * c->absq[j]; /* eq. 3.12 (a leaf: its point alone) */
            if (c->d[s] > R) {
                if (c->vmax > 0) /* nothing under it reaches the field for this many cycles */
                    c->wake[i] = c->cycle + (long)fmin((c->d[s] - R) / c->vmax, 1e15);
            } else if (l < L)
                for (int k = 0; k < ps->node_count[i]; k++)
                    c->next[m++] = ps->node_first[i] + k;
        }
        int *t = c->list;
        c->list = c->next;
        c->next = t;
        n = m;
    }
    c->depth = depth;
    forces(c, q, pose, nc, out);
    out->traversed = V;
    out->lookups = lookups;
    out->skipped = skipped;
    out->depth = depth;
    return EP_OK;
}

int ep_pscontact_brute(ep_pscontact *c, const ep_sdf *sdf, const double *q, const ep_pscontact_pose *pose, int depth,
                       ep_pscontact_out *out)
{
    int nc = 0, N = c->ps.level_start[depth < 1 ? 1 : depth > c->ps.L ? c->ps.L : depth];
    for (int s = 0; s < N; s++) {
        if ((c->d[s] = lookup(c, sdf, s, q, pose, &c->x[3 * (size_t)s])) < 0)
            c->contact[nc++] = s;
    }
    forces(c, q, pose, nc, out);
    out->traversed = out->lookups = N;
    out->skipped = 0;
    out->depth = depth;
    return EP_OK;
}

double ep_pscontact_energy(ep_pscontact *c, const ep_sdf *sdf, const double *q, const ep_pscontact_pose *pose,
                           int depth)
{
    int nc = 0, N = c->ps.level_start[depth < 1 ? 1 : depth > c->ps.L ? c->ps.L : depth];
    double E = 0;
    for (int s = 0; s < N; s++) {
        double x[3], d = lookup(c, sdf, s, q, pose, x);
        if (d < 0) {
            nc++;
            E += d * d;
        }
    }
    double scale = c->lc > 0 && nc > c->lc ? (double)c->lc / nc : 1;
    return 0.5 * c->kc * scale * E;
}
