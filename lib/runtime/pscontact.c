/*
 * pscontact.c — pointshell / distance-field contact (pscontact.h; 001
 * §3.5-3.10, Ch. 4; MATH.md §11).
 *
 * The cycle's cost is its contact set (8,022 points of the 12,632 nodes
 * traversed at the bench's deepest pose), each reading its rows U_s and
 * dN_s: adopt therefore lays the points out in the order the traversal
 * meets them and keeps the rows in single precision, [S][r][3], so that a
 * row of three is one 4-lane load (kernel.h's vectors); arithmetic stays
 * in double (doc/DECISIONS.md, "the contact cycle in single precision").
 */
#include "pscontact.h"
#include "err.h"
#include "h5.h"
#include "kernel.h"
#include "pointshell_file.h"
#include "sort.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Four floats from any 4-byte boundary (one row of three and the next
 * value, which multiplies a zero or is ignored). */
typedef float v4f __attribute__((vector_size(16), aligned(4)));

static inline v4f load4(const float *u)
{
    v4f f;
    memcpy(&f, u, sizeof f);
    return f;
}

/* The four as doubles (a macro: a function returning a 32-byte vector
 * would change the ABI of the baseline build). */
#define ROW4(u) __builtin_convertvector(load4(u), ep_v4d)

void ep_pscontact_pose_identity(ep_pscontact_pose *pose)
{
    memset(pose, 0, sizeof *pose);
    pose->Rp[0] = pose->Rp[4] = pose->Rp[8] = 1;
    pose->Rf[0] = pose->Rf[4] = pose->Rf[8] = 1;
}

void ep_pscontact_free(ep_pscontact *c)
{
    ep_pointshell_free(&c->ps);
    free(c->stamp), free(c->wake), free(c->d), free(c->x), free(c->pending), free(c->y), free(c->yd), free(c->list),
        free(c->next), free(c->contact), free(c->absq), free(c->file_point), free(c->Uf), free(c->dNf), free(c->af),
        free(c->G);
    memset(c, 0, sizeof *c);
}

/* Move v [S][k] (k values a point) to the new numbering nw: tmp [S k]. */
static void permute(double *v, int S, int k, const int *nw, double *tmp)
{
    for (int s = 0; s < S; s++)
        memcpy(&tmp[(size_t)nw[s] * k], &v[(size_t)s * k], (size_t)k * sizeof *v);
    memcpy(v, tmp, (size_t)S * k * sizeof *v);
}

/* Number the points of each level in the order the traversal meets them
 * (the new points of tree level l in node order; level 1 is node order
 * already), so that a level's looked-up points are increasing addresses
 * and a node's new children are neighbours.  Cost O(S (6 + 6r)). */
static int renumber(ep_pscontact *c)
{
    ep_pointshell *ps = &c->ps;
    int S = ps->S, next = 0, r = ps->r;
    int *nw = ep_malloc((size_t)S + 1, sizeof *nw);
    double *tmp = ep_malloc((size_t)S * (3 * (size_t)r > 3 ? 3 * (size_t)r : 3) + 1, sizeof *tmp);
    if (!nw || !tmp) {
        free(nw), free(tmp);
        return EP_ECOMPUTE;
    }
    for (int l = 1; l <= ps->L; l++) {
        for (int i = ps->node_start[l - 1]; i < ps->node_start[l]; i++) {
            int s = ps->node_point[i];
            if (s >= ps->level_start[l - 1] && s < ps->level_start[l])
                nw[s] = next++;
        }
        if (next != ps->level_start[l]) { /* not a nested tree: keep the file's order */
            next = -1;
            break;
        }
    }
    for (int s = 0; s < S; s++)
        c->file_point[s] = s;
    if (next == S) {
        permute(ps->P, S, 3, nw, tmp);
        permute(ps->N, S, 3, nw, tmp);
        if (r) {
            permute(ps->U, S, 3 * r, nw, tmp);
            permute(ps->dN, S, 3 * r, nw, tmp);
        }
        for (int s = 0; s < S; s++)
            c->file_point[nw[s]] = s;
        int *pt = (int *)tmp;
        for (int s = 0; s < S; s++)
            pt[nw[s]] = ps->parent[s] < 0 ? -1 : nw[ps->parent[s]];
        memcpy(ps->parent, pt, (size_t)S * sizeof *pt);
        for (int i = 0; i < ps->nn; i++)
            ps->node_point[i] = nw[ps->node_point[i]];
    }
    free(nw), free(tmp);
    return EP_OK;
}

/* The single-precision rows [S][r][3] (one float of padding) and the
 * sphere coefficients of those rows (eq. 3.12 over the rounded U_s, as
 * bind takes them over U_s), rounded up to floats: the bound stays a bound
 * of the points the runtime moves.  Cost O(S L r). */
static int pack(ep_pscontact *c)
{
    ep_pointshell *ps = &c->ps;
    int S = ps->S, r = ps->r, L = ps->L, nn = ps->nn;
    int *up = NULL;
    double *am = NULL;
    if (!(c->af = ep_calloc((size_t)nn * r + 4, sizeof *c->af)))
        return EP_ECOMPUTE;
    if (!r)
        return EP_OK;
    if (!(c->Uf = ep_calloc((size_t)S * 3 * r + 1, sizeof *c->Uf)) ||
        !(c->dNf = ep_calloc((size_t)S * 3 * r + 1, sizeof *c->dNf)) ||
        !(c->G = ep_calloc(4 * (size_t)r, sizeof *c->G)) || !(up = ep_malloc((size_t)nn, sizeof *up)) ||
        !(am = ep_calloc((size_t)nn * r + 1, sizeof *am))) {
        free(up), free(am);
        return EP_ECOMPUTE;
    }
    for (int s = 0; s < S; s++)
        for (int j = 0; j < r; j++)
            for (int k = 0; k < 3; k++) {
                c->Uf[((size_t)s * r + j) * 3 + k] = (float)ps->U[((size_t)s * 3 + k) * r + j];
                c->dNf[((size_t)s * r + j) * 3 + k] = (float)ps->dN[((size_t)s * 3 + k) * r + j];
            }
    for (int i = 0; i < ps->node_start[1]; i++)
        up[i] = -1;
    for (int i = 0; i < ps->node_start[L - 1]; i++)
        for (int k = 0; k < ps->node_count[i]; k++)
            up[ps->node_first[i] + k] = i;
    for (int i = ps->node_start[L - 1]; i < nn; i++) { /* every leaf up its ancestors */
        const float *Us = &c->Uf[(size_t)ps->node_point[i] * 3 * r];
        for (int p = up[i]; p >= 0; p = up[p]) {
            const float *Ua = &c->Uf[(size_t)ps->node_point[p] * 3 * r];
            for (int j = 0; j < r; j++) {
                double d0 = (double)Us[3 * j] - Ua[3 * j], d1 = (double)Us[3 * j + 1] - Ua[3 * j + 1],
                       d2 = (double)Us[3 * j + 2] - Ua[3 * j + 2];
                double d = sqrt(d0 * d0 + d1 * d1 + d2 * d2) * (1 + 4 * DBL_EPSILON);
                if (d > am[(size_t)p * r + j])
                    am[(size_t)p * r + j] = d;
            }
        }
    }
    for (size_t k = 0; k < (size_t)nn * r; k++) {
        float f = (float)am[k];
        c->af[k] = (double)f < am[k] ? nextafterf(f, INFINITY) : f;
    }
    free(am), free(up);
    return EP_OK;
}

int ep_pscontact_adopt(ep_pscontact *c, ep_pointshell *ps)
{
    memset(c, 0, sizeof *c);
    c->ps = *ps;
    memset(ps, 0, sizeof *ps);
    c->kc = 1;
    c->lc = 10;
    int S = c->ps.S, widest = 1, r = c->ps.r;
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
        !(c->absq = ep_calloc(2 * (size_t)r + 4, sizeof *c->absq)) ||
        !(c->file_point = ep_malloc((size_t)S + 1, sizeof *c->file_point)) || renumber(c) || pack(c)) {
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

/* p = v + sum_j q_j M_j for the rows M [r][3] (floats), in double: lanes
 * 0-2 (lane 3 is not used). */
static inline void affine4(const double v[3], const float *M, int r, const double *q, ep_v4d *out)
{
    ep_v4d p = {v[0], v[1], v[2], 0}, p1 = {0, 0, 0, 0};
    int j = 0;
    for (; j + 1 < r; j += 2) { /* two adder chains */
        p += ROW4(&M[3 * j]) * q[j];
        p1 += ROW4(&M[3 * j + 3]) * q[j + 1];
    }
    if (j < r)
        p += ROW4(&M[3 * j]) * q[j];
    *out = p + p1;
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

/* World position of point s: R_p (P_s + U_s q) + t_p (eq. 3.6). */
static inline void world(const ep_pscontact *c, int s, const double *q, const ep_pscontact_pose *pose, double x[3])
{
    int r = c->ps.r;
    ep_v4d p4;
    affine4(&c->ps.P[3 * (size_t)s], r ? &c->Uf[(size_t)s * 3 * r] : NULL, r, q, &p4);
    double p[3] = {p4[0], p4[1], p4[2]};
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

/* Prefetch the rows of point s: P_s and U_s (3 r floats), with N_s and
 * dN_s instead when normals. */
static inline void prefetch_point(const ep_pscontact *c, int s, int normals)
{
    int r = c->ps.r;
    __builtin_prefetch(&(normals ? c->ps.N : c->ps.P)[3 * (size_t)s]);
    if (!r)
        return;
    const char *u = (const char *)&(normals ? c->dNf : c->Uf)[(size_t)s * 3 * r], *e = u + 3 * r * sizeof(float);
    for (; u < e; u += 64)
        __builtin_prefetch(u);
    __builtin_prefetch(e - 1); /* the last line when the row is not aligned */
}

/* The points pts [n] moved: world positions into c->x [S][3] and
 * field-frame positions into c->y [n][3], rows prefetched ahead (the
 * points are scattered).  Cost O(n (3r + 18)). */
EP_KERNEL static void move_points(ep_pscontact *c, const int *pts, int n, const double *q,
                                  const ep_pscontact_pose *pose)
{
    for (int k = 0; k < n; k++) {
        if (k + AHEAD < n)
            prefetch_point(c, pts[k + AHEAD], 0);
        int s = pts[k];
        double *x = &c->x[3 * (size_t)s], z[3];
        world(c, s, q, pose, x);
        for (int a = 0; a < 3; a++)
            z[a] = x[a] - pose->tf[a];
        rot_t(pose->Rf, z, &c->y[3 * (size_t)k]);
    }
}

/* Look up the points pts [n] (moved, then one batch of ep_sdf_values) into
 * c->d; the contacts (d < 0) appended to c->contact from nc.  Returns the
 * new count. */
static int look_up(ep_pscontact *c, const ep_sdf *sdf, const int *pts, int n, const double *q,
                   const ep_pscontact_pose *pose, int nc)
{
    move_points(c, pts, n, q, pose);
    ep_sdf_values(sdf, c->y, n, c->yd);
    for (int k = 0; k < n; k++) {
        int s = pts[k];
        c->d[s] = c->yd[k];
        if (c->d[s] < 0)
            c->contact[nc++] = s;
    }
    return nc;
}

/* Forces, torques, the reduced force and derivatives of the contact set
 * (sorted ascending: the same sums whatever found it), with the field's
 * values c->d[s] and world positions c->x[s] its finder stored (not
 * computed again).  The reduced force is summed as G_j += (U_s)_j f_b (a
 * row of three, f_b = -k d n_body) over the contacts, then g_j = s (G_j,x
 * + G_j,y + G_j,z).  Cost O(nc (9r + 30)), O(nc r^2) more with
 * derivatives. */
EP_KERNEL static void forces_sum(ep_pscontact *c, const double *q, const ep_pscontact_pose *pose, int nc,
                                 double scale, ep_pscontact_out *out)
{
    const ep_pointshell *ps = &c->ps;
    int r = ps->r;
    double k = c->kc, ks = k * scale;
    ep_v4d *G = (ep_v4d *)c->G;
    for (int j = 0; j < r && out->g; j++)
        G[j] = (ep_v4d){0, 0, 0, 0};
    for (int e = 0; e < nc; e++) {
        int s = c->contact[e];
        double x[3], nb[3], n[3], a[3], f[3];
        if (e + AHEAD < nc) /* scattered rows: N_s, dN_s of the contacts ahead */
            prefetch_point(c, c->contact[e + AHEAD], 1);
        double d = c->d[s];
        memcpy(x, &c->x[3 * (size_t)s], sizeof x);
        /* eq. 3.8: N_s + dN_s q, normalized */
        ep_v4d nb4;
        affine4(&ps->N[3 * (size_t)s], r ? &c->dNf[(size_t)s * 3 * r] : NULL, r, q, &nb4);
        double l = sqrt(nb4[0] * nb4[0] + nb4[1] * nb4[1] + nb4[2] * nb4[2]);
        for (int i = 0; i < 3; i++)
            nb[i] = nb4[i] / l;
        rot(pose->Rp, nb, n);
        for (int i = 0; i < 3; i++) {
            f[i] = -k * d * n[i]; /* eq. 3.1 */
            a[i] = x[i] - pose->xc[i];
            out->F[i] += scale * f[i];
        }
        double axf[3] = {a[1] * f[2] - a[2] * f[1], a[2] * f[0] - a[0] * f[2], a[0] * f[1] - a[1] * f[0]};
        for (int i = 0; i < 3; i++)
            out->T[i] += scale * axf[i]; /* eq. 3.3 */
        const float *Us = r ? &c->Uf[(size_t)s * 3 * r] : NULL;
        if (out->g) { /* U_s^T R_p^T f_s = U_s^T (-k d n_body) */
            ep_v4d fb = {-k * d * nb[0], -k * d * nb[1], -k * d * nb[2], 0};
            for (int j = 0; j < r; j++)
                G[j] += ROW4(&Us[3 * j]) * fb;
        }
        if (!out->derivatives)
            continue;
        double axn[3] = {a[1] * n[2] - a[2] * n[1], a[2] * n[0] - a[0] * n[2], a[0] * n[1] - a[1] * n[0]};
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
            wv[j] = (double)Us[3 * j] * nb[0] + (double)Us[3 * j + 1] * nb[1] + (double)Us[3 * j + 2] * nb[2];
        for (int i = 0; i < r; i++) {
            if (out->dg_dq)
                for (int j = 0; j < r; j++)
                    out->dg_dq[(size_t)i * r + j] -= ks * wv[i] * wv[j];
            if (out->dg_dt)
                for (int m = 0; m < 3; m++)
                    out->dg_dt[(size_t)i * 3 + m] += ks * wv[i] * n[m];
        }
    }
    for (int j = 0; j < r && out->g; j++)
        out->g[j] = scale * (G[j][0] + G[j][1] + G[j][2]);
}

static void forces(ep_pscontact *c, const double *q, const ep_pscontact_pose *pose, int nc,
                   ep_pscontact_out *out)
{
    int r = c->ps.r;
    double scale = c->lc > 0 && nc > c->lc ? (double)c->lc / nc : 1;
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
    forces_sum(c, q, pose, nc, scale, out);
    out->contacts = nc;
    out->scale = scale;
}

/* One level's nodes c->list [n] after their lookups: each culled (eq.
 * 3.12: d > R_i,0 + sum_j a_ij |q_j|, a leaf its point alone) or its
 * children appended to c->next.  Returns the children; *V counts the
 * nodes. */
EP_KERNEL static int expand(ep_pscontact *c, int n, int leaf, long *V)
{
    const ep_pointshell *ps = &c->ps;
    int r = ps->r, m = 0;
    for (int e = 0; e < n; e++) {
        int i = c->list[e];
        if (i < 0)
            continue;
        int s = ps->node_point[i];
        ++*V;
        double R = ps->R0[i];
        if (!leaf && r) {
            const float *a = &c->af[(size_t)i * r];
            ep_v4d acc = {0, 0, 0, 0};
            for (int j = 0; j < r; j += 4) /* absq is 0 past r: the next row's values multiply 0 */
                acc += ROW4(&a[j]) * *(const ep_v4d *)&c->absq[j];
            R += (acc[0] + acc[1]) + (acc[2] + acc[3]);
        }
        if (c->d[s] > R) {
            if (c->vmax > 0) /* nothing under it reaches the field for this many cycles */
                c->wake[i] = c->cycle + (long)fmin((c->d[s] - R) / c->vmax, 1e15);
        } else if (!leaf)
            for (int k = 0; k < ps->node_count[i]; k++)
                c->next[m++] = ps->node_first[i] + k;
    }
    return m;
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
    for (int j = r; j < (r + 3) / 4 * 4; j++)
        c->absq[j] = 0;
    for (int i = 0; i < n; i++)
        c->list[i] = i;
    for (int l = 1; l <= L; l++) {
        /* graceful degradation (001 §3.10.3): warm down to last cycle's depth, cold below */
        if (c->warm > 0 && l > 1 && V >= (l <= c->depth ? c->warm : cold))
            break;
        depth = l;
        int nb = 0;
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
        nc = look_up(c, sdf, c->pending, nb, q, pose, nc);
        lookups += nb;
        int m = expand(c, n, l == L, &V);
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

/* Every point of levels 1..depth looked up (the traversal's arithmetic):
 * the contact count. */
static int look_up_all(ep_pscontact *c, const ep_sdf *sdf, const double *q, const ep_pscontact_pose *pose,
                       int depth, int *N)
{
    *N = c->ps.level_start[depth < 1 ? 1 : depth > c->ps.L ? c->ps.L : depth];
    for (int s = 0; s < *N; s++)
        c->pending[s] = s;
    return look_up(c, sdf, c->pending, *N, q, pose, 0);
}

int ep_pscontact_brute(ep_pscontact *c, const ep_sdf *sdf, const double *q, const ep_pscontact_pose *pose, int depth,
                       ep_pscontact_out *out)
{
    int N, nc = look_up_all(c, sdf, q, pose, depth, &N);
    forces(c, q, pose, nc, out);
    out->traversed = out->lookups = N;
    out->skipped = 0;
    out->depth = depth;
    return EP_OK;
}

double ep_pscontact_energy(ep_pscontact *c, const ep_sdf *sdf, const double *q, const ep_pscontact_pose *pose,
                           int depth)
{
    int N, nc = look_up_all(c, sdf, q, pose, depth, &N);
    double E = 0;
    for (int e = 0; e < nc; e++)
        E += c->d[c->contact[e]] * c->d[c->contact[e]];
    double scale = c->lc > 0 && nc > c->lc ? (double)c->lc / nc : 1;
    return 0.5 * c->kc * scale * E;
}
