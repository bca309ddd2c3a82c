/*
 * pscontact.c — pointshell / distance-field contact (pscontact.h; 001
 * §3.5-3.10, Ch. 4; MATH.md §11).
 *
 * The cycle's cost is its contact set (8,022 points of the 12,632 nodes
 * traversed at the bench's deepest pose): adopt therefore lays the points
 * out in the order the traversal meets them, and a point reads its
 * element record and weights, not rows of 3r values: the displacement
 * u_v = U_v q of each vertex its element reaches is computed once a
 * cycle (a stamp a vertex), and the contact area has far fewer vertices
 * than points (doc/DECISIONS.md, "the contact cycle through the mesh").
 * Rows are single precision, [nbv][r][3], so that a row of three is one
 * 4-lane load (kernel.h's vectors); arithmetic stays in double.
 */
#include "pscontact.h"
#include "err.h"
#include "h5.h"
#include "kernel.h"
#include "pointshell_file.h"
#include "sdf4.h"

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
 * would change the ABI of the baseline build).  Built element by element:
 * GCC 12 makes one vcvtps2pd of this, but splits __builtin_convertvector
 * into two halves and an insert. */
#define ROW4(u) ({ v4f f_ = load4(u); (ep_v4d){f_[0], f_[1], f_[2], f_[3]}; })

/* A point's line (c->pt): words 0-5 P_s (double), 6-8 N_s, 9 its element
 * record, 10.. its K weights. */
#define PTW(K) ((K) == 8 ? 24 : 16)
#define PT(c, s, K) (&(c)->pt[(size_t)PTW(K) * (s)])

void ep_pscontact_pose_identity(ep_pscontact_pose *pose)
{
    memset(pose, 0, sizeof *pose);
    pose->Rp[0] = pose->Rp[4] = pose->Rp[8] = 1;
    pose->Rf[0] = pose->Rf[4] = pose->Rf[8] = 1;
}

void ep_pscontact_free(ep_pscontact *c)
{
    ep_pointshell_free(&c->ps);
    free(c->look), free(c->wake), free(c->x), free(c->xk), free(c->pending), free(c->y), free(c->vox), free(c->list),
        free(c->next), free(c->contact), free(c->absq), free(c->file_point), free(c->Uvf), free(c->pt), free(c->rec),
        free(c->af), free(c->G), free(c->vw), free(c->fvert);
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
 * already), so that a level's looked-up points are increasing addresses,
 * a node's new children are neighbours, and a traversal meets its
 * contacts in ascending order, as brute force does.  Cost O(S (6 + 6r)).
 * 0, EP_EINPUT (a tree that does not nest its levels) or EP_ECOMPUTE. */
static int renumber(ep_pscontact *c)
{
    ep_pointshell *ps = &c->ps;
    int S = ps->S, next = 0, r = ps->r;
    int *nw = ep_malloc((size_t)S + 1, sizeof *nw);
    double *tmp = ep_malloc((size_t)S * (3 * (size_t)r > 8 ? 3 * (size_t)r : 8) + 1, sizeof *tmp);
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
        if (next != ps->level_start[l]) { /* ep_pointshell_tree and the file's checks make it so */
            free(nw), free(tmp);
            return ep_fail(EP_EINPUT, "the pointshell's tree level %d does not hold each new point once", l);
        }
    }
    {
        permute(ps->P, S, 3, nw, tmp);
        permute(ps->N, S, 3, nw, tmp);
        if (r) {
            permute(ps->U, S, 3 * r, nw, tmp);
            permute(ps->bw, S, ps->k, nw, tmp);
            int *be = (int *)tmp;
            for (int s = 0; s < S; s++)
                be[nw[s]] = ps->belem[s];
            memcpy(ps->belem, be, (size_t)S * sizeof *be);
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

/* Number the element records and bound vertices in the order the points
 * (in adopt's order) first reach them, so that a level's points read
 * nearby records and vertices; those no point reaches go last.  Cost
 * O(S k + nbe 3k + nbv 3r).  0 or EP_ECOMPUTE. */
static int renumber_bind(ep_pscontact *c)
{
    ep_pointshell *ps = &c->ps;
    int S = ps->S, k = ps->k, r = ps->r, nbv = ps->nbv, nbe = ps->nbe, ne = 0, nv = 0;
    size_t wide = (size_t)nbe * 3 * k > (size_t)nbv * 3 * r ? (size_t)nbe * 3 * k : (size_t)nbv * 3 * r;
    int *re = ep_malloc((size_t)nbe + 1, sizeof *re), *rv = ep_malloc((size_t)nbv + 1, sizeof *rv);
    double *tmp = ep_malloc(wide + 1, sizeof *tmp);
    if (!re || !rv || !tmp) {
        free(re), free(rv), free(tmp);
        return EP_ECOMPUTE;
    }
    for (int e = 0; e < nbe; e++)
        re[e] = -1;
    for (int v = 0; v < nbv; v++)
        rv[v] = -1;
    for (int s = 0; s < S; s++) {
        int e = ps->belem[s];
        if (re[e] >= 0)
            continue;
        re[e] = ne++;
        for (int a = 0; a < k; a++)
            if (rv[ps->corner[(size_t)k * e + a]] < 0)
                rv[ps->corner[(size_t)k * e + a]] = nv++;
    }
    for (int e = 0; e < nbe; e++)
        if (re[e] < 0)
            re[e] = ne++;
    for (int v = 0; v < nbv; v++)
        if (rv[v] < 0)
            rv[v] = nv++;
    permute(ps->grad, nbe, 3 * k, re, tmp);
    permute(ps->Uv, nbv, 3 * r, rv, tmp);
    int *t = (int *)tmp;
    for (int e = 0; e < nbe; e++)
        for (int a = 0; a < k; a++)
            t[(size_t)k * re[e] + a] = rv[ps->corner[(size_t)k * e + a]];
    memcpy(ps->corner, t, (size_t)nbe * k * sizeof *t);
    for (int v = 0; v < nbv; v++)
        t[rv[v]] = ps->bvert[v];
    memcpy(ps->bvert, t, (size_t)nbv * sizeof *t);
    for (int s = 0; s < S; s++)
        ps->belem[s] = re[ps->belem[s]];
    free(re), free(rv), free(tmp);
    return EP_OK;
}

/* The rows the runtime moves point s by, U [r][3] = sum_c w_sc U_vc
 * over the single-precision weights (c->pt) and rows (c->Uvf), in
 * double.  Cost O(K 3r). */
static void point_rows(const ep_pscontact *c, int s, int K, double *U)
{
    int r = c->ps.r;
    const int *cn = &c->ps.corner[(size_t)c->ps.k * c->ps.belem[s]];
    for (int j = 0; j < r; j++)
        for (int a = 0; a < 3; a++) {
            double u = 0;
            for (int b = 0; b < c->ps.k; b++)
                u += (double)PT(c, s, K)[10 + b].f * c->Uvf[((size_t)cn[b] * r + j) * 3 + a];
            U[(size_t)j * 3 + a] = u;
        }
}

/* The single-precision rows [nbv][r][3] (one float of padding), weights
 * and gradients [nbe][k][3] (one float of padding), the cycle's vertex
 * workspace, and the sphere coefficients of the rows U_s = sum_c w_sc U_vc
 * those give (eq. 3.12 over them, as bind takes them over U_s), rounded up
 * to floats: the bound stays a bound of the points the runtime moves.
 * Cost O(S (L + k) r); workspace the rows of the inner nodes' points
 * (point_rows, [level_start[L-1]][r][3] doubles, the points above the
 * finest level: about a third of S in the bench's shells), not all S
 * points' rows and a second copy of the coefficients in double. */
static int pack(ep_pscontact *c)
{
    ep_pointshell *ps = &c->ps;
    int S = ps->S, r = ps->r, L = ps->L, nn = ps->nn, k = ps->k, nbv = ps->nbv;
    int *up = NULL;
    double *Ue = NULL, *Us = NULL;
    int K = k == 8 ? 8 : 4;
    if (!(c->af = ep_calloc((size_t)nn * r + 4, sizeof *c->af)) ||
        !(c->pt = ep_calloc((size_t)PTW(K) * S, sizeof *c->pt)))
        return EP_ECOMPUTE;
    for (int s = 0; s < S; s++) {
        ep_psword *pt = PT(c, s, K);
        memcpy(pt, &ps->P[3 * (size_t)s], 3 * sizeof(double));
        for (int a = 0; a < 3; a++)
            pt[6 + a].f = (float)ps->N[3 * (size_t)s + a];
        for (int b = 0; r && b < k; b++)
            pt[10 + b].f = (float)ps->bw[(size_t)k * s + b];
        pt[9].i = r ? ps->belem[s] : 0;
    }
    if (!r)
        return EP_OK;
    if (!(c->Uvf = ep_calloc((size_t)nbv * 3 * r + 1, sizeof *c->Uvf)) ||
        !(c->rec = ep_malloc_huge((size_t)ps->nbe * 4 * k, sizeof *c->rec)) ||
        !(c->vw = ep_malloc_huge(8 * (size_t)nbv, sizeof *c->vw)) ||
        !(c->fvert = ep_malloc((size_t)nbv, sizeof *c->fvert)) ||
        !(c->G = ep_calloc(4 * (size_t)r, sizeof *c->G)) || !(up = ep_malloc((size_t)nn, sizeof *up)) ||
        !(Us = ep_malloc(3 * (size_t)r, sizeof *Us)) ||
        !(Ue = ep_malloc((size_t)ps->level_start[L > 1 ? L - 1 : 0] * 3 * r + 1, sizeof *Ue))) {
        free(up), free(Ue), free(Us);
        return EP_ECOMPUTE;
    }
    for (int v = 0; v < nbv; v++)
        for (int j = 0; j < r; j++)
            for (int a = 0; a < 3; a++)
                c->Uvf[((size_t)v * r + j) * 3 + a] = (float)ps->Uv[((size_t)v * 3 + a) * r + j];
    for (int e = 0; e < ps->nbe; e++)
        for (int b = 0; b < k; b++) {
            c->rec[(size_t)4 * k * e + b].i = ps->corner[(size_t)k * e + b];
            for (int a = 0; a < 3; a++)
                c->rec[(size_t)4 * k * e + k + 3 * b + a].f = (float)ps->grad[((size_t)k * e + b) * 3 + a];
        }
    for (size_t i = 0; i < 8 * (size_t)nbv; i++)
        c->vw[i] = 0; /* ticks start at 1 */
    int na = ps->level_start[L > 1 ? L - 1 : 0]; /* the points of the tree's inner nodes (adopt's numbering) */
    for (int s = 0; s < na; s++)
        point_rows(c, s, K, &Ue[(size_t)s * 3 * r]);
    for (int i = 0; i < ps->node_start[1]; i++)
        up[i] = -1;
    for (int i = 0; i < ps->node_start[L - 1]; i++)
        for (int b = 0; b < ps->node_count[i]; b++)
            up[ps->node_first[i] + b] = i;
    for (int i = ps->node_start[L - 1]; i < nn; i++) { /* every leaf up its ancestors */
        point_rows(c, ps->node_point[i], K, Us);
        for (int p = up[i]; p >= 0; p = up[p]) {
            const double *Ua = &Ue[(size_t)ps->node_point[p] * 3 * r];
            for (int j = 0; j < r; j++) {
                double d0 = Us[3 * j] - Ua[3 * j], d1 = Us[3 * j + 1] - Ua[3 * j + 1], d2 = Us[3 * j + 2] - Ua[3 * j + 2];
                double d = sqrt(d0 * d0 + d1 * d1 + d2 * d2) * (1 + 4 * DBL_EPSILON);
                float *a = &c->af[(size_t)p * r + j]; /* the largest d rounded up: the largest rounded up */
                if (d > (double)*a) {
                    float f = (float)d;
                    *a = (double)f < d ? nextafterf(f, INFINITY) : f;
                }
            }
        }
    }
    free(up), free(Ue), free(Us);
    return EP_OK;
}

int ep_pscontact_adopt(ep_pscontact *c, ep_pointshell *ps)
{
    memset(c, 0, sizeof *c);
    c->ps = *ps;
    memset(ps, 0, sizeof *ps);
    free(c->ps.dN); /* the cycle forms cof(F) N from the records; a write-back makes dN again (ep_pointshell_dn) */
    c->ps.dN = NULL;
    c->kc = 1;
    c->lc = 10;
    int S = c->ps.S, widest = 1, r = c->ps.r, st = EP_ECOMPUTE;
    if (r && (!c->ps.belem || !c->ps.corner || (c->ps.k != 4 && c->ps.k != 8))) {
        ep_pscontact_free(c);
        return ep_fail(EP_EINPUT, "a bound pointshell without its element records (pointshell.h)");
    }
    for (int l = 1; l <= c->ps.L; l++)
        if (c->ps.level_start[l] > widest)
            widest = c->ps.level_start[l];
    widest = (widest + 3) / 4 * 4; /* process4's last four padded */
    if (!(c->look = ep_calloc((size_t)S, sizeof *c->look)) ||
        !(c->wake = ep_calloc((size_t)c->ps.nn, sizeof *c->wake)) || !(c->x = ep_malloc(8 * (size_t)S, sizeof *c->x)) ||
        !(c->xk = ep_malloc(10 * (size_t)widest, sizeof *c->xk)) ||
        !(c->list = ep_malloc((size_t)widest + 8, sizeof *c->list)) ||
        !(c->next = ep_malloc((size_t)widest + 8, sizeof *c->next)) ||
        !(c->contact = ep_malloc((size_t)S, sizeof *c->contact)) ||
        !(c->pending = ep_malloc((size_t)widest, sizeof *c->pending)) ||
        !(c->y = ep_malloc(4 * (size_t)widest, sizeof *c->y)) || !(c->vox = ep_malloc((size_t)widest, sizeof *c->vox)) ||
        !(c->absq = ep_calloc(2 * (size_t)r + 4, sizeof *c->absq)) ||
        !(c->file_point = ep_malloc((size_t)S + 1, sizeof *c->file_point)) || (st = renumber(c)) ||
        (r && (st = renumber_bind(c))) || (st = pack(c))) {
        ep_pscontact_free(c);
        return st;
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

/* u = sum_j q_j M_j for the rows M [r][3] (floats), in double: lanes
 * 0-2 (lane 3 is not used). */
static inline __attribute__((always_inline)) void rows_q(const float *M, int r, const double *q, ep_v4d *out)
{
    ep_v4d p = {0, 0, 0, 0}, p1 = {0, 0, 0, 0};
    int j = 0;
    for (; j + 1 < r; j += 2) { /* two adder chains */
        p += ROW4(&M[3 * j]) * q[j];
        p1 += ROW4(&M[3 * j + 3]) * q[j + 1];
    }
    if (j < r)
        p += ROW4(&M[3 * j]) * q[j];
    *out = p + p1;
}

/* A record's corners and gradients (adopt's layout, c->rec: k ids, then
 * k rows of three floats). */
#define REC(c, e, K) (&(c)->rec[(size_t)4 * (K) * (e)])

/* The displacements u [K] of the corners of point s's element record:
 * u_v = U_v q (001 eq. 3.6 at the vertex), from the tick's cache (cache:
 * computed and stamped on a vertex's first use in the tick; a vertex's
 * workspace c->vw is one line, u_v and its tick, f_v and its tick) or
 * computed.  Either way the same arithmetic, so the same bits.  K is a
 * constant where it is inlined (4 or 8).  Cost O(K) cached, O(3r) a
 * vertex computed. */
static inline __attribute__((always_inline)) void corner_u(const ep_pscontact *c, int s, const double *q, int cache,
                                                           ep_v4d *u, const int K)
{
    int r = c->ps.r;
    const ep_psword *rc = REC(c, PT(c, s, K)[9].i, K);
    double tick = (double)c->tick;
    for (int a = 0; a < K; a++) { /* whole-vector loads and stores: no store forwarding split */
        int v = rc[a].i;
        ep_v4d *vw = (ep_v4d *)&c->vw[8 * (size_t)v];
        if (cache) {
            ep_v4d cur = *vw;
            if (cur[3] == tick) {
                u[a] = cur;
                continue;
            }
        }
        rows_q(&c->Uvf[(size_t)v * 3 * r], r, q, &u[a]);
        if (cache) {
            ep_v4d t = u[a];
            t[3] = tick;
            *vw = t;
        }
    }
}

/* Body position of point s: P_s + sum_c w_sc u_c (= P_s + U_s q, eq.
 * 3.6), u from corner_u; lane 3 is not used. */
static inline __attribute__((always_inline)) void body_point(const ep_pscontact *c, int s, const ep_v4d *u, ep_v4d *out,
                                                             const int K)
{
    const ep_psword *pt = PT(c, s, K);
    double P[3];
    memcpy(P, pt, sizeof P);
    ep_v4d p = {P[0], P[1], P[2], 0};
    for (int a = 0; c->ps.r && a < K; a++)
        p += u[a] * (double)pt[10 + a].f;
    *out = p;
}

/* The unnormalized inward normal of point s in the body frame: with the
 * element's displacement gradient G = sum_c u_c grad phi_c^T and F = I +
 * G, the cofactor (Nanson) transform cof(F) N = N_1 (F_2 x F_3) + N_2 (F_3
 * x F_1) + N_3 (F_1 x F_2) (F_i the columns): N + (tr G) N - G^T N (=
 * N_s + dN_s q, eq. 3.8 with the Nanson dN_s) plus cof(G) N, its second
 * order, so that it is the deformed normal of the element's linear map
 * exactly (001 §3.6.2's F t1 x F t2); lane 3 is 0.  Cost O(9 K + 30). */
static inline __attribute__((always_inline)) void body_normal(const ep_pscontact *c, int s, const ep_v4d *u,
                                                              ep_v4d *out, const int K)
{
    const ep_psword *pt = PT(c, s, K);
    ep_v4d N = {pt[6].f, pt[7].f, pt[8].f, 0};
    if (!c->ps.r) {
        *out = N;
        return;
    }
    ep_v4d F0 = {1, 0, 0, 0}, F1 = {0, 1, 0, 0}, F2 = {0, 0, 1, 0}; /* the columns of F = I + G */
    const ep_psword *g = REC(c, pt[9].i, K) + K;
    for (int a = 0; a < K; a++) {
        F0 += u[a] * (double)g[3 * a].f;
        F1 += u[a] * (double)g[3 * a + 1].f;
        F2 += u[a] * (double)g[3 * a + 2].f;
    }
#define CROSS(x, y) ((ep_v4d){x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0], 0})
    *out = CROSS(F1, F2) * N[0] + CROSS(F2, F0) * N[1] + CROSS(F0, F1) * N[2];
#undef CROSS
}

/* A pose as vectors: R_p's columns and t_p (body to world), R_f's rows
 * and t_f (world to the field's frame: R_f^T (x - t_f) = sum_b row_b (x -
 * t_f)_b), x_c. */
typedef struct {
    ep_v4d Rp[3], tp, Rf[3], tf, xc;
} frame;

static inline void frame_of(const ep_pscontact_pose *p, frame *f)
{
    for (int b = 0; b < 3; b++) {
        f->Rp[b] = (ep_v4d){p->Rp[b], p->Rp[3 + b], p->Rp[6 + b], 0};
        f->Rf[b] = (ep_v4d){p->Rf[3 * b], p->Rf[3 * b + 1], p->Rf[3 * b + 2], 0};
    }
    f->tp = (ep_v4d){p->tp[0], p->tp[1], p->tp[2], 0};
    f->tf = (ep_v4d){p->tf[0], p->tf[1], p->tf[2], 0};
    f->xc = (ep_v4d){p->xc[0], p->xc[1], p->xc[2], 0};
}

/* M x for the columns M [3] (a macro: a function returning a 32-byte
 * vector would change the ABI of the baseline build). */
#define MAT3(M, x) ({ ep_v4d x_ = (x); (M)[0] * x_[0] + (M)[1] * x_[1] + (M)[2] * x_[2]; })

/* World position of point s: R_p (P_s + U_s q) + t_p (eq. 3.6). */
static inline __attribute__((always_inline)) void world(const ep_pscontact *c, int s, const double *q, int cache,
                                                        const frame *f, ep_v4d *x, const int K)
{
    ep_v4d u[8], p;
    if (c->ps.r)
        corner_u(c, s, q, cache, u, K);
    body_point(c, s, u, &p, K);
    *x = MAT3(f->Rp, p) + f->tp;
}

void ep_pscontact_point(const ep_pscontact *c, int s, const double *q, const ep_pscontact_pose *pose, double x[3])
{
    frame f;
    frame_of(pose, &f);
    ep_v4d x4;
    if (c->ps.k == 8)
        world(c, s, q, 0, &f, &x4, 8);
    else
        world(c, s, q, 0, &f, &x4, 4);
    x[0] = x4[0], x[1] = x4[1], x[2] = x4[2];
}

void ep_pscontact_normal(const ep_pscontact *c, int s, const double *q, double n[3])
{
    ep_v4d u[8];
    int K = c->ps.k == 8 ? 8 : 4;
    if (c->ps.r)
        corner_u(c, s, q, 0, u, K);
    ep_v4d nb;
    body_normal(c, s, u, &nb, K);
    double il = 1 / sqrt(nb[0] * nb[0] + nb[1] * nb[1] + nb[2] * nb[2]);
    for (int a = 0; a < 3; a++)
        n[a] = nb[a] * il;
}

void ep_pscontact_modes(const ep_pscontact *c, int s, double *U)
{
    int k = c->ps.k == 8 ? 8 : 4, r = c->ps.r;
    for (int a = 0; a < 3; a++)
        for (int j = 0; j < r; j++) {
            double v = 0;
            for (int b = 0; b < k; b++)
                v += (double)PT(c, s, k)[10 + b].f * c->Uvf[((size_t)REC(c, PT(c, s, k)[9].i, k)[b].i * r + j) * 3 + a];
            U[a * r + j] = v;
        }
}

/* The pipeline of a batch of points (process): a point's line prefetched
 * AHEAD points before it is moved, its record AHEAD2 before, its corners'
 * vertex lines AHEAD3 before (each about a memory latency of work ahead).
 * The batch runs in blocks of BLOCK points: the block's points moved
 * (their voxels prefetched), then looked up, so that each loop's body is
 * small enough for the core to run several points at once and a block's
 * voxels are still in the first-level cache when they are read; the
 * contacts' forces in a loop of their own after the batch. */
#define AHEAD 32
#define AHEAD2 20
#define AHEAD3 10
#define BLOCK 64

/* The lines the move of pts[k + AHEAD..] reads, prefetched (AHEAD,
 * AHEAD2, AHEAD3 above).  Cost O(K). */
static inline __attribute__((always_inline)) void prefetch_ahead(const ep_pscontact *c, const int *pts, int n, int k,
                                                                 const int K)
{
    if (k + AHEAD < n) {
        const ep_psword *pt = PT(c, pts[k + AHEAD], K);
        __builtin_prefetch(pt);
        if (K > 4)
            __builtin_prefetch(pt + PTW(K) - 1);
    }
    if (c->ps.r && k + AHEAD2 < n) {
        const ep_psword *rc = REC(c, PT(c, pts[k + AHEAD2], K)[9].i, K);
        __builtin_prefetch(rc);
        if (K > 4)
            __builtin_prefetch(rc + 16);
    }
    if (c->ps.r && k + AHEAD3 < n) {
        const ep_psword *rc = REC(c, PT(c, pts[k + AHEAD3], K)[9].i, K);
        for (int a = 0; a < K; a++)
            __builtin_prefetch(&c->vw[8 * (size_t)rc[a].i]);
    }
}

/* The running sums of a cycle's forces, before the Lc / l scale: F, T
 * (sum of f_s and of (x_s - x_c) x f_s, eqs. 3.1, 3.3); c->vw's f_v and
 * the derivatives into out (k, not k s). */
typedef struct {
    ep_v4d F, T;
} sums;

/* A contact's body force f_b = -k d n_b / |n_b| (R_p^T f_s) spread to its
 * corners, f_v += w_sv f_b (sums_finish takes g = sum_v U_v^T f_v): the
 * corners' ids v [K] and weights w [K] at stride st.  A vertex's first
 * force of the tick appends it to c->fvert.  Cost O(K). */
static inline __attribute__((always_inline)) void contact_corners(ep_pscontact *c, const int *v, const float *w, int st,
                                                                  const ep_v4d *fbp, const int K)
{
    ep_v4d fb = *fbp; /* by address: a 32-byte vector argument changes the baseline build's ABI (Clang refuses it) */
    double tick = (double)c->tick;
    for (int b = 0; b < K; b++) {
        int vb = v[st * b];
        ep_v4d *vw = (ep_v4d *)&c->vw[8 * (size_t)vb + 4], fv = *vw;
        if (fv[3] != tick) {
            c->fvert[c->nfv++] = vb;
            fv = fb * (double)w[st * b];
        } else
            fv += fb * (double)w[st * b];
        fv[3] = tick;
        *vw = fv;
    }
}

/* A contact's terms of the derivatives (pscontact.h; k, not k s): n its
 * world normal, a = x_s - x_c, nb its unit body normal, its corners' ids v
 * and weights w at stride st (r > 0).  Cost O(r^2 + K 3r). */
static inline __attribute__((always_inline)) void contact_derivs(ep_pscontact *c, ep_pscontact_out *out,
                                                                 const ep_v4d *np, const ep_v4d *ap, const ep_v4d *nbp,
                                                                 const int *v, const float *w, int st, const int K)
{
    ep_v4d n = *np, a = *ap, nb = *nbp;
    int r = c->ps.r;
    double k = c->kc, axn[3] = {a[1] * n[2] - a[2] * n[1], a[2] * n[0] - a[0] * n[2], a[0] * n[1] - a[1] * n[0]};
    for (int i = 0; i < 3; i++)
        for (int m = 0; m < 3; m++) {
            out->dF_dt[3 * i + m] += k * n[i] * n[m];
            out->dF_dw[3 * i + m] += k * n[i] * axn[m];
            out->dT_dt[3 * i + m] += k * axn[i] * n[m]; /* [a]x n n^T = (a x n) n^T */
            out->dT_dw[3 * i + m] += k * axn[i] * axn[m];
        }
    if (!r)
        return;
    double *wv = c->absq + r; /* w = U_s^T n_body = sum_c w_sc U_vc^T n_body */
    for (int j = 0; j < r; j++)
        wv[j] = 0;
    for (int b = 0; b < K; b++) {
        const float *Uv = &c->Uvf[(size_t)v[st * b] * 3 * r];
        for (int j = 0; j < r; j++)
            wv[j] += (double)w[st * b] * ((double)Uv[3 * j] * nb[0] + (double)Uv[3 * j + 1] * nb[1] + (double)Uv[3 * j + 2] * nb[2]);
    }
    for (int i = 0; i < r; i++) {
        if (out->dg_dq)
            for (int j = 0; j < r; j++)
                out->dg_dq[(size_t)i * r + j] -= k * wv[i] * wv[j];
        if (out->dg_dt)
            for (int m = 0; m < 3; m++)
                out->dg_dt[(size_t)i * 3 + m] += k * wv[i] * n[m];
    }
}

/* Contact e's force added to the sums (its world x, d and unnormalized
 * body normal stored by its move and lookup in c->x): f_s = -k d n_s with n_s = R_p n_b / |n_b| (eq. 3.8, n_b
 * from body_normal), its corners' f_v (contact_corners) and, with
 * out->derivatives, its terms of those (contact_derivs).  Cost O(12 K +
 * 30), O(r^2 + K 3r) more with derivatives. */
static inline __attribute__((always_inline)) void contact_force(ep_pscontact *c, int e, const frame *fr, sums *z, ep_pscontact_out *out,
                                                                const int K)
{
    int r = c->ps.r, s = c->contact[e];
    const double *x = &c->x[8 * (size_t)e];
    double k = c->kc, d = x[3];
    ep_v4d nb = *(const ep_v4d *)&x[4]; /* body_normal's, at the point's move */
    nb *= 1 / sqrt(nb[0] * nb[0] + nb[1] * nb[1] + nb[2] * nb[2]);
    ep_v4d n = MAT3(fr->Rp, nb), f = n * (-k * d), a = (ep_v4d){x[0], x[1], x[2], 0} - fr->xc; /* eq. 3.1 */
    z->F += f;
    z->T += (ep_v4d){a[1] * f[2] - a[2] * f[1], a[2] * f[0] - a[0] * f[2], a[0] * f[1] - a[1] * f[0], 0}; /* eq. 3.3 */
    const ep_psword *pt = PT(c, s, K), *rc = r ? REC(c, pt[9].i, K) : NULL;
    if (out->g && r) {
        ep_v4d fb = nb * (-k * d);
        contact_corners(c, &rc[0].i, &pt[10].f, 1, &fb, K);
    }
    if (out->derivatives)
        contact_derivs(c, out, &n, &a, &nb, r ? &rc[0].i : NULL, &pt[10].f, 1, K);
}

/* The distance of a moved point: inside the field's box (id >= 0, its
 * voxel) the trilinear of its weights w, else the bound at its
 * field-frame position w (sdf.h).  process_k's and look4's (when a four
 * is not all inside the box): one arithmetic, the same bits on either
 * path.  Cost ep_sdf_trilinear's or ep_sdf_value's. */
static inline __attribute__((always_inline)) double dist_at(const ep_sdf *sdf, long id, const double *w)
{
    return id >= 0 ? ep_sdf_trilinear(sdf, id, w) : ep_sdf_value(sdf, w);
}

/* Point s looked up at d recorded (process_k, look4): c->look[s].d and,
 * in contact (d < 0), s appended to c->contact at *nc.  Returns whether
 * in contact. */
static inline __attribute__((always_inline)) int look_record(ep_pscontact *c, int s, double d, int *nc)
{
    c->look[s].d = d;
    if (!(d < 0))
        return 0;
    c->contact[(*nc)++] = s;
    return 1;
}

/* The points pts [n] (ascending) moved (world x into c->xk, the voxel
 * into c->vox and its weights into c->y, or outside the field's box the
 * field-frame y) and looked up (c->look); the contacts (d < 0), their
 * x and d into c->x, appended to c->contact from nc and, with out, their
 * forces added to the running sums (c->vw's f_v, fvert; F and T carried
 * in out->F, out->T; the derivatives) in that order, so that a traversal,
 * which meets its contacts in ascending order (adopt's numbering), and
 * brute force sum the same terms in the same order.  In blocks of BLOCK
 * points (a block moved, then looked up), the forces after the batch, so
 * that each stage is a loop whose points do not wait on each other and
 * each record, vertex line or voxel is in cache when it is read.  Returns
 * the contacts.  Cost O(n (K + 40)),
 * O(3r) a vertex reached, and contact_force's per contact. */
static inline __attribute__((always_inline)) int process_k(ep_pscontact *c, const ep_sdf *sdf, const int *pts, int n,
                                                           const double *q, const ep_pscontact_pose *pose, int nc,
                                                           ep_pscontact_out *out, int early, const int K)
{
    int done = nc, r = c->ps.r;
    frame fr;
    frame_of(pose, &fr);
    sums z;
    if (out)
        z.F = (ep_v4d){out->F[0], out->F[1], out->F[2], 0}, z.T = (ep_v4d){out->T[0], out->T[1], out->T[2], 0};
    for (int k0 = 0; k0 < n; k0 += BLOCK) {
        int k1 = k0 + BLOCK < n ? k0 + BLOCK : n;
        for (int k = k0; k < k1; k++) { /* move point k, prefetch its voxel */
            prefetch_ahead(c, pts, n, k, K);
            ep_v4d x, y, u[8], p, nb = {0, 0, 0, 0};
            int s = pts[k];
            if (r)
                corner_u(c, s, q, 1, u, K);
            body_point(c, s, u, &p, K);
            if (out && early) /* the normal while u is at hand: most points a cycle looks up are contacts */
                body_normal(c, s, u, &nb, K);
            x = MAT3(fr.Rp, p) + fr.tp;
            y = MAT3(fr.Rf, x - fr.tf);
            double *xk = &c->xk[8 * (size_t)k];
            *(ep_v4d *)xk = x, *(ep_v4d *)&xk[4] = nb;
            ep_v4d w = {0, 0, 0, 0};
            long id = c->vox[k] = ep_sdf_voxel(sdf, (const double *)&y, (double *)&w);
            *(ep_v4d *)&c->y[4 * (size_t)k] = id >= 0 ? w : y; /* its weights in place of y */
            if (id >= 0)
                ep_sdf4_prefetch(sdf->value, sdf->n, id);
        }
        for (int k = k0; k < k1; k++) { /* look point k up */
            int s = pts[k];
            double d = dist_at(sdf, c->vox[k], &c->y[4 * (size_t)k]);
            if (look_record(c, s, d, &nc)) {
                double *x = &c->x[8 * (size_t)(nc - 1)];
                memcpy(x, &c->xk[8 * (size_t)k], 8 * sizeof *x);
                x[3] = d;
                if (out && !early) { /* the same normal from the tick's u, for a contact only */
                    ep_v4d u[8], nb;
                    if (r)
                        corner_u(c, s, q, 1, u, K);
                    body_normal(c, s, u, &nb, K);
                    *(ep_v4d *)&x[4] = nb;
                }
            }
        }
    }
    if (out) {
        while (done < nc)
            contact_force(c, done++, &fr, &z, out, K);
        for (int a = 0; a < 3; a++)
            out->F[a] = z.F[a], out->T[a] = z.T[a];
    }
    return nc;
}

#if EP_SDF4
/* The four-point path (process4): the same stages as process_k, each on
 * four points a vector, one lane a point (AVX2 and FMA, chosen at run time
 * by quad_ok).  Lane arithmetic does not depend on the other lanes, and a
 * batch's last four is padded with copies of its last point, so a point's
 * bits do not depend on where it falls in a batch: a traversal and brute
 * force (process4 both) still agree bit for bit. */
#define QUAD __attribute__((target("avx2,fma")))
/* Loops of a fixed few trips unrolled whole, so that their arrays of
 * vectors live in registers (-O2 keeps them in memory otherwise: 18 %
 * slower, DECISIONS). */
#define UNROLL _Pragma("GCC unroll 16")

/* The first three rows of the 4 x 4 transpose of a0..a3 (four points'
 * x, y, z and a fourth value): x[i] the i-th value of each.  Cost 7
 * shuffles. */
QUAD static inline void t43(__m256d a0, __m256d a1, __m256d a2, __m256d a3, __m256d x[3])
{
    __m256d t0 = _mm256_unpacklo_pd(a0, a1), t1 = _mm256_unpackhi_pd(a0, a1); /* x0 x1 z0 z1, y0 y1 - - */
    __m256d t2 = _mm256_unpacklo_pd(a2, a3), t3 = _mm256_unpackhi_pd(a2, a3);
    x[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
    x[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
    x[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
}

/* Four rows of eight 32-bit words (from any 4-byte boundary) as columns:
 * the low half of col[j] is word j of each row, the high half word j + 4.
 * Cost 4 loads, 8 shuffles. */
QUAD static inline void t48(const ep_psword *r0, const ep_psword *r1, const ep_psword *r2, const ep_psword *r3,
                            __m256 col[4])
{
    __m256 b0 = _mm256_loadu_ps(&r0->f), b1 = _mm256_loadu_ps(&r1->f), b2 = _mm256_loadu_ps(&r2->f),
           b3 = _mm256_loadu_ps(&r3->f);
    __m256 u0 = _mm256_unpacklo_ps(b0, b1), u1 = _mm256_unpackhi_ps(b0, b1);
    __m256 u2 = _mm256_unpacklo_ps(b2, b3), u3 = _mm256_unpackhi_ps(b2, b3);
    col[0] = _mm256_shuffle_ps(u0, u2, 0x44);
    col[1] = _mm256_shuffle_ps(u0, u2, 0xEE);
    col[2] = _mm256_shuffle_ps(u1, u3, 0x44);
    col[3] = _mm256_shuffle_ps(u1, u3, 0xEE);
}

#define LO(v) _mm256_cvtps_pd(_mm256_castps256_ps128(v))
#define HI(v) _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1))

/* A pose broadcast: R_p [i][b], t_p, R_f^T [i][b] (y_i = sum_b R_f,bi
 * (x - t_f)_b), t_f. */
typedef struct {
    __m256d Rp[3][3], tp[3], Rf[3][3], tf[3], xc[3];
} frame4;

QUAD static inline void frame4_of(const ep_pscontact_pose *p, frame4 *f)
{
    for (int i = 0; i < 3; i++) {
        for (int b = 0; b < 3; b++) {
            f->Rp[i][b] = _mm256_set1_pd(p->Rp[3 * i + b]);
            f->Rf[i][b] = _mm256_set1_pd(p->Rf[3 * b + i]);
        }
        f->tp[i] = _mm256_set1_pd(p->tp[i]);
        f->tf[i] = _mm256_set1_pd(p->tf[i]);
        f->xc[i] = _mm256_set1_pd(p->xc[i]);
    }
}

/* a x b, one component a register. */
QUAD static inline void cross4(const __m256d a[3], const __m256d b[3], __m256d o[3])
{
    o[0] = _mm256_fmsub_pd(a[1], b[2], _mm256_mul_pd(a[2], b[1]));
    o[1] = _mm256_fmsub_pd(a[2], b[0], _mm256_mul_pd(a[0], b[2]));
    o[2] = _mm256_fmsub_pd(a[0], b[1], _mm256_mul_pd(a[1], b[0]));
}

/* The four points s[4] moved (process_k's move, four-wide, tets and r =
 * 0): their lines transposed (P_s, N_s, record, weights), their records
 * (corners, gradients), the corners' u_v (computed into c->vw for those
 * not yet of this tick, then four lines transposed a corner), the body
 * point P_s + sum_c w_sc u_c, F = I + sum_c u_c grad phi_c^T and cof(F)
 * N_s (body_normal's), both frames, the voxel (sdf4.h).  Out: xq [40]
 * the world x then the unnormalized body normal, one coordinate a row of
 * four, then (r > 0) the corners' ids (16 ints) and weights (16 floats),
 * a corner a row of four; wq [12] the voxel's weights (or the field-frame y outside the
 * box), likewise; vq [4] the voxel (-1 outside), its lines prefetched.
 * Cost ~300 instructions, O(3r) a vertex computed. */
QUAD static inline __attribute__((always_inline)) void move4(ep_pscontact *c, const ep_sdf *sdf,
                                                             const ep_sdf4_k *kk, const int s[4], const double *q,
                                                             const frame4 *f, double *xq, double *wq, int *vq)
{
    const ep_psword *l[4];
    UNROLL for (int j = 0; j < 4; j++)
        l[j] = PT(c, s[j], 4);
    __m256d p[3], nb[3], x[3], y[3], dd[3];
    __m256 col[4];
    t43(_mm256_loadu_pd((const double *)(const void *)l[0]), _mm256_loadu_pd((const double *)(const void *)l[1]),
        _mm256_loadu_pd((const double *)(const void *)l[2]), _mm256_loadu_pd((const double *)(const void *)l[3]), p);
    t48(l[0] + 6, l[1] + 6, l[2] + 6, l[3] + 6, col); /* N_s (3), record, w_sc (4) */
    __m256d N[3] = {LO(col[0]), LO(col[1]), LO(col[2])};
    int r = c->ps.r;
    if (r) {
        __m256d w[4] = {HI(col[0]), HI(col[1]), HI(col[2]), HI(col[3])}, F[3][3], g[4][3];
        const ep_psword *rc[4];
        UNROLL for (int j = 0; j < 4; j++)
            rc[j] = REC(c, l[j][9].i, 4);
        __m256 d[4], e[4];
        t48(rc[0], rc[1], rc[2], rc[3], d);         /* corners 0-3 | gradient words 0-3 */
        t48(rc[0] + 8, rc[1] + 8, rc[2] + 8, rc[3] + 8, e); /* gradient words 4-11 */
        g[0][0] = HI(d[0]), g[0][1] = HI(d[1]), g[0][2] = HI(d[2]), g[1][0] = HI(d[3]);
        g[1][1] = LO(e[0]), g[1][2] = LO(e[1]), g[2][0] = LO(e[2]), g[2][1] = LO(e[3]);
        g[2][2] = HI(e[0]), g[3][0] = HI(e[1]), g[3][1] = HI(e[2]), g[3][2] = HI(e[3]);
        int *v = (int *)(void *)&xq[24], miss = 0; /* the corners' ids [a][lane], for the contacts */
        UNROLL for (int a = 0; a < 4; a++)
            _mm_storeu_ps((float *)(void *)&xq[32] + 4 * a, _mm256_extractf128_ps(col[a], 1));
        double tick = (double)c->tick;
        __m256d tk = _mm256_set1_pd(tick);
        UNROLL for (int a = 0; a < 4; a++) { /* the corners whose u_v is not of this tick */
            __m128i vi = _mm_castps_si128(_mm256_castps256_ps128(d[a]));
            _mm_storeu_si128((__m128i *)(void *)&v[4 * a], vi);
            __m256d t = _mm256_i32gather_pd(c->vw + 3, _mm_slli_epi32(vi, 3), 8);
            miss |= _mm256_movemask_pd(_mm256_cmp_pd(t, tk, _CMP_NEQ_UQ)) << 4 * a;
        }
        while (miss) {
            int b = __builtin_ctz(miss);
            miss &= miss - 1;
            ep_v4d *vw = (ep_v4d *)&c->vw[8 * (size_t)v[b]];
            if ((*vw)[3] != tick) { /* a vertex twice in the four: once */
                ep_v4d u;
                rows_q(&c->Uvf[(size_t)v[b] * 3 * r], r, q, &u);
                u[3] = tick;
                *vw = u;
            }
        }
        UNROLL for (int i = 0; i < 3; i++)
            UNROLL for (int b = 0; b < 3; b++)
                F[b][i] = _mm256_set1_pd(i == b);
        UNROLL for (int a = 0; a < 4; a++) { /* body_point's and body_normal's sums, in their order */
            __m256d u[3];
            t43(_mm256_loadu_pd(&c->vw[8 * (size_t)v[4 * a]]), _mm256_loadu_pd(&c->vw[8 * (size_t)v[4 * a + 1]]),
                _mm256_loadu_pd(&c->vw[8 * (size_t)v[4 * a + 2]]), _mm256_loadu_pd(&c->vw[8 * (size_t)v[4 * a + 3]]),
                u);
            UNROLL for (int i = 0; i < 3; i++) {
                p[i] = _mm256_fmadd_pd(u[i], w[a], p[i]);
                UNROLL for (int b = 0; b < 3; b++)
                    F[b][i] = _mm256_fmadd_pd(u[i], g[a][b], F[b][i]);
            }
        }
        __m256d c0[3], c1[3], c2[3]; /* cof(F) N = N_1 (F_2 x F_3) + N_2 (F_3 x F_1) + N_3 (F_1 x F_2) */
        cross4(F[1], F[2], c0);
        cross4(F[2], F[0], c1);
        cross4(F[0], F[1], c2);
        UNROLL for (int i = 0; i < 3; i++)
            nb[i] = _mm256_fmadd_pd(c2[i], N[2], _mm256_fmadd_pd(c1[i], N[1], _mm256_mul_pd(c0[i], N[0])));
    } else
        UNROLL for (int i = 0; i < 3; i++)
            nb[i] = N[i];
    UNROLL for (int i = 0; i < 3; i++) { /* x = R_p p + t_p; y = R_f^T (x - t_f) */
        x[i] = _mm256_fmadd_pd(f->Rp[i][2], p[2], _mm256_fmadd_pd(f->Rp[i][1], p[1], _mm256_fmadd_pd(f->Rp[i][0], p[0], f->tp[i])));
        dd[i] = _mm256_sub_pd(x[i], f->tf[i]);
    }
    UNROLL for (int i = 0; i < 3; i++)
        y[i] = _mm256_fmadd_pd(f->Rf[i][2], dd[2], _mm256_fmadd_pd(f->Rf[i][1], dd[1], _mm256_mul_pd(f->Rf[i][0], dd[0])));
    ep_sdf4_vox vx = ep_sdf4_voxel(kk, y);
    UNROLL for (int i = 0; i < 3; i++) {
        _mm256_storeu_pd(&xq[4 * i], x[i]);
        _mm256_storeu_pd(&xq[12 + 4 * i], nb[i]);
        _mm256_storeu_pd(&wq[4 * i], _mm256_blendv_pd(y[i], vx.w[i], vx.in)); /* its weights in place of y */
    }
    int in = _mm256_movemask_pd(vx.in);
    _mm_storeu_si128((__m128i *)(void *)vq, vx.id);
    UNROLL for (int j = 0; j < 4; j++)
        if (in >> j & 1)
            ep_sdf4_prefetch(sdf->value, sdf->n, vq[j]);
        else
            vq[j] = -1;
}

/* The three rows x (a coordinate a row of four) as four vectors (x, y,
 * z, 0), one a lane.  Cost 8 shuffles. */
QUAD static inline void t34(const __m256d x[3], ep_v4d a[4])
{
    __m256d z = _mm256_setzero_pd();
    __m256d t0 = _mm256_unpacklo_pd(x[0], x[1]), t1 = _mm256_unpackhi_pd(x[0], x[1]); /* x0 y0 x2 y2, x1 y1 x3 y3 */
    __m256d t2 = _mm256_unpacklo_pd(x[2], z), t3 = _mm256_unpackhi_pd(x[2], z);
    a[0] = (ep_v4d)_mm256_permute2f128_pd(t0, t2, 0x20);
    a[1] = (ep_v4d)_mm256_permute2f128_pd(t1, t3, 0x20);
    a[2] = (ep_v4d)_mm256_permute2f128_pd(t0, t2, 0x31);
    a[3] = (ep_v4d)_mm256_permute2f128_pd(t1, t3, 0x31);
}

/* contact_force for the lanes of mask (ascending: contact order) of a
 * four moved and looked up: xq as move4 leaves it (world x, unnormalized
 * body normal, corners, weights), d their distances.  Each lane's unit
 * normal, world normal n, force f and torque a x f in its lane (the same
 * operations whatever its neighbours), then added to the sums one contact
 * at a time (contact_corners, contact_derivs as contact_force).  Cost ~60
 * vector operations, contact_corners' and contact_derivs' a contact. */
QUAD static inline __attribute__((always_inline)) void force4(ep_pscontact *c, const double *xq, __m256d dv, int mask,
                                                              const frame4 *f4, sums *z, ep_pscontact_out *out)
{
    int r = c->ps.r;
    __m256d nb[3], n[3], f[3], a[3], t[3], fb[3];
    UNROLL for (int i = 0; i < 3; i++)
        nb[i] = _mm256_loadu_pd(&xq[12 + 4 * i]);
    __m256d il = _mm256_div_pd(_mm256_set1_pd(1), _mm256_sqrt_pd(_mm256_fmadd_pd(nb[2], nb[2], _mm256_fmadd_pd(nb[1], nb[1], _mm256_mul_pd(nb[0], nb[0])))));
    __m256d kd = _mm256_mul_pd(_mm256_set1_pd(-c->kc), dv); /* -k d */
    UNROLL for (int i = 0; i < 3; i++)
        nb[i] = _mm256_mul_pd(nb[i], il);
    UNROLL for (int i = 0; i < 3; i++) { /* eq. 3.1 */
        n[i] = _mm256_fmadd_pd(f4->Rp[i][2], nb[2], _mm256_fmadd_pd(f4->Rp[i][1], nb[1], _mm256_mul_pd(f4->Rp[i][0], nb[0])));
        f[i] = _mm256_mul_pd(n[i], kd);
        fb[i] = _mm256_mul_pd(nb[i], kd);
        a[i] = _mm256_sub_pd(_mm256_loadu_pd(&xq[4 * i]), f4->xc[i]);
    }
    cross4(a, f, t); /* eq. 3.3 */
    ep_v4d F[4], T[4], FB[4], N[4], A[4], NB[4];
    t34(f, F), t34(t, T);
    if (out->g && r)
        t34(fb, FB);
    if (out->derivatives)
        t34(n, N), t34(a, A), t34(nb, NB);
    const int *v = (const int *)(const void *)&xq[24];
    const float *w = (const float *)(const void *)&xq[32];
    while (mask) {
        int j = __builtin_ctz(mask);
        mask &= mask - 1;
        z->F += F[j];
        z->T += T[j];
        if (out->g && r)
            contact_corners(c, v + j, w + j, 4, &FB[j], 4);
        if (out->derivatives)
            contact_derivs(c, out, &N[j], &A[j], &NB[j], v + j, w + j, 4, 4);
    }
}

/* Four moved points looked up (sdf4.h's trilinear when all four lie in
 * the box, else one by one: the same bits), the first valid of them
 * recorded as process_k does (c->look, and the contacts into c->contact
 * from nc) and, with out, the contacts' forces
 * added to the sums in their order (force4).  Returns nc.  Cost ~60
 * instructions, force4's. */
QUAD static inline __attribute__((always_inline)) int look4(ep_pscontact *c, const ep_sdf *sdf, const ep_sdf4_k *kk,
                                                            const int *s, int valid, const double *xq,
                                                            const double *wq, const int *vq, int nc,
                                                            const frame4 *f4, sums *z, ep_pscontact_out *out)
{
    double d[4];
    if ((vq[0] | vq[1] | vq[2] | vq[3]) >= 0) {
        ep_sdf4_vox vx = {.id = _mm_loadu_si128((const __m128i *)(const void *)vq)};
        UNROLL for (int i = 0; i < 3; i++)
            vx.w[i] = _mm256_loadu_pd(&wq[4 * i]);
        _mm256_storeu_pd(d, ep_sdf4_trilinear(sdf->value, kk, &vx));
    } else
        for (int j = 0; j < 4; j++) { /* the padded lanes too: force4 reads all four */
            double y[3] = {wq[j], wq[4 + j], wq[8 + j]};
            d[j] = dist_at(sdf, vq[j], y);
        }
    int mask = 0;
    for (int j = 0; j < valid; j++)
        mask |= look_record(c, s[j], d[j], &nc) << j;
    if (out && mask)
        force4(c, xq, _mm256_loadu_pd(d), mask, f4, z, out);
    return nc;
}

/* process_k four points a vector (tets or r = 0; quad_ok): in blocks of
 * BLOCK points, each four moved (move4; c->xk, c->y and vox4 hold a
 * four's outputs at 10 doubles, 4 doubles and 1 int a point), then looked up, its
 * contacts' forces added as each four is looked up (look4, force4: the
 * lanes are in point order, so the sums are still in contact order; the
 * four's x and normal are at hand, so nothing is copied for a later
 * pass; c->x is not used).  The normal is formed at every
 * move (process_k's early), brute force's too.  Returns the contacts.
 * Cost O(n (K + 40) / 4) vector operations, O(3r) a vertex reached,
 * force4's per four with a contact. */
QUAD static int process4(ep_pscontact *c, const ep_sdf *sdf, const int *pts, int n, const double *q,
                         const ep_pscontact_pose *pose, int nc, ep_pscontact_out *out)
{
    frame4 f4;
    frame4_of(pose, &f4);
    ep_sdf4_k kk;
    ep_sdf4_init(sdf->n, sdf->origin, sdf->inv_h, &kk);
    sums z;
    if (out)
        z.F = (ep_v4d){out->F[0], out->F[1], out->F[2], 0}, z.T = (ep_v4d){out->T[0], out->T[1], out->T[2], 0};
    int *vox4 = (int *)(void *)c->vox; /* the 32-bit ids, one a point (pscontact.h) */
    for (int k0 = 0; k0 < n; k0 += BLOCK) {
        int k1 = k0 + BLOCK < n ? k0 + BLOCK : n;
        for (int k = k0; k < k1; k += 4) {
            int s[4];
            UNROLL for (int j = 0; j < 4; j++) {
                prefetch_ahead(c, pts, n, k + j, 4);
                s[j] = pts[k + j < n ? k + j : n - 1]; /* the last four padded with the last point */
            }
            move4(c, sdf, &kk, s, q, &f4, &c->xk[10 * (size_t)k], &c->y[4 * (size_t)k], &vox4[k]);
        }
        for (int k = k0; k < k1; k += 4)
            nc = look4(c, sdf, &kk, &pts[k], n - k < 4 ? n - k : 4, &c->xk[10 * (size_t)k], &c->y[4 * (size_t)k],
                       &vox4[k], nc, &f4, &z, out);
    }
    if (out) {
        for (int a = 0; a < 3; a++)
            out->F[a] = z.F[a], out->T[a] = z.T[a];
    }
    return nc;
}
#undef LO
#undef HI

/* Whether process4 serves c and the field s: tets or r = 0, a CPU with
 * AVX2 and FMA, 32-bit gather indices (the field's and 8 nbv). */
static int quad_ok(const ep_pscontact *c, const ep_sdf *s)
{
    return c->ps.k != 8 && ep_sdf4_fits(s->n) && c->ps.nbv < (1 << 27) && __builtin_cpu_supports("avx2") &&
           __builtin_cpu_supports("fma");
}
#endif

/* process_k for the pointshell's element kind (4: tets, also r = 0; 8:
 * hexes).  early: a point's normal formed at its move (a cycle, whose
 * points looked up are mostly contacts), else at its contact (brute
 * force): the same function of the same u, so the same bits. */
EP_KERNEL static int process(ep_pscontact *c, const ep_sdf *sdf, const int *pts, int n, const double *q,
                             const ep_pscontact_pose *pose, int nc, ep_pscontact_out *out, int early)
{
#if EP_SDF4
    if (quad_ok(c, sdf))
        return process4(c, sdf, pts, n, q, pose, nc, out);
#endif
    if (c->ps.k == 8)
        return process_k(c, sdf, pts, n, q, pose, nc, out, early, 8);
    return process_k(c, sdf, pts, n, q, pose, nc, out, early, 4);
}

/* Zero out's sums (and c->G) before a cycle's first process. */
static void sums_start(ep_pscontact *c, ep_pscontact_out *out)
{
    int r = c->ps.r;
    memset(out->F, 0, sizeof out->F);
    memset(out->T, 0, sizeof out->T);
    memset(out->dF_dt, 0, sizeof out->dF_dt), memset(out->dF_dw, 0, sizeof out->dF_dw);
    memset(out->dT_dt, 0, sizeof out->dT_dt), memset(out->dT_dw, 0, sizeof out->dT_dw);
    if (r)
        memset(c->G, 0, 4 * (size_t)r * sizeof *c->G);
    c->nfv = 0;
    if (out->derivatives && out->dg_dq)
        memset(out->dg_dq, 0, (size_t)r * r * sizeof *out->dg_dq);
    if (out->derivatives && out->dg_dt)
        memset(out->dg_dt, 0, (size_t)r * 3 * sizeof *out->dg_dt);
}

/* The sums scaled by Lc / l (001 §3.5) into out, g_j = s (G_j,x + G_j,y +
 * G_j,z). */
static void sums_finish(ep_pscontact *c, int nc, ep_pscontact_out *out)
{
    int r = c->ps.r;
    double scale = c->lc > 0 && nc > c->lc ? (double)c->lc / nc : 1;
    for (int i = 0; i < 3; i++)
        out->F[i] *= scale, out->T[i] *= scale;
    if (out->g && r) { /* G_j = sum_v (U_v)_j f_v, in the order contacts first reached the vertices */
        ep_v4d *G = (ep_v4d *)c->G;
        for (int e = 0; e < c->nfv; e++) {
            int v = c->fvert[e];
            const float *Uv = &c->Uvf[(size_t)v * 3 * r];
            ep_v4d fv = *(const ep_v4d *)&c->vw[8 * (size_t)v + 4];
            fv[3] = 0;
            for (int j = 0; j < r; j++)
                G[j] += ROW4(&Uv[3 * j]) * fv;
        }
    }
    for (int j = 0; j < r && out->g; j++)
        out->g[j] = scale * (c->G[4 * j] + c->G[4 * j + 1] + c->G[4 * j + 2]);
    if (out->derivatives) {
        for (int i = 0; i < 9; i++)
            out->dF_dt[i] *= scale, out->dF_dw[i] *= scale, out->dT_dt[i] *= scale, out->dT_dw[i] *= scale;
        for (int i = 0; i < r * r && out->dg_dq; i++)
            out->dg_dq[i] *= scale;
        for (int i = 0; i < 3 * r && out->dg_dt; i++)
            out->dg_dt[i] *= scale;
    }
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
        if (c->look[s].d > R) {
            if (c->vmax > 0) /* nothing under it reaches the field for this many cycles */
                c->wake[i] = c->cycle + (long)fmin((c->look[s].d - R) / c->vmax, 1e15);
        } else if (!leaf) {
            int first = ps->node_first[i], count = ps->node_count[i];
            if (count <= 8) { /* eight ids stored whatever the count (the lists have 8 spare): no loop to mispredict */
                typedef int v8i __attribute__((vector_size(32)));
                v8i ids = (v8i){0, 1, 2, 3, 4, 5, 6, 7} + first;
                memcpy(&c->next[m], &ids, sizeof ids);
                m += count;
            } else
                for (int k = 0; k < count; k++)
                    c->next[m++] = first + k;
        }
    }
    return m;
}

int ep_pscontact_cycle(ep_pscontact *c, const ep_sdf *sdf, const double *q, const ep_pscontact_pose *pose,
                       ep_pscontact_out *out)
{
    const ep_pointshell *ps = &c->ps;
    int r = ps->r, L = ps->L, n = ps->node_start[1], nc = 0, depth = 0;
    long V = 0, inner = 0, lookups = 0, skipped = 0, cold = c->cold > 0 ? c->cold : (long)(0.8 * c->warm);
    c->cycle++;
    c->tick++;
    sums_start(c, out);
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
            if (c->look[s].stamp != c->cycle) {
                c->look[s].stamp = c->cycle;
                c->pending[nb++] = s;
            }
        }
        nc = process(c, sdf, c->pending, nb, q, pose, nc, out, 1);
        lookups += nb;
        long V0 = V;
        int m = expand(c, n, l == L, &V);
        inner += l < L ? V - V0 : 0;
        int *t = c->list;
        c->list = c->next;
        c->next = t;
        n = m;
    }
    c->depth = depth;
    sums_finish(c, nc, out);
    out->traversed = V;
    out->inner = inner;
    out->lookups = lookups;
    out->skipped = skipped;
    out->depth = depth;
    return EP_OK;
}

/* Every point of levels 1..depth looked up (the traversal's arithmetic),
 * the forces summed with out: the contact count. */
static int look_up_all(ep_pscontact *c, const ep_sdf *sdf, const double *q, const ep_pscontact_pose *pose,
                       int depth, int *N, ep_pscontact_out *out)
{
    *N = c->ps.level_start[depth < 1 ? 1 : depth > c->ps.L ? c->ps.L : depth];
    c->tick++;
    for (int s = 0; s < *N; s++)
        c->pending[s] = s;
    return process(c, sdf, c->pending, *N, q, pose, 0, out, 0);
}

int ep_pscontact_brute(ep_pscontact *c, const ep_sdf *sdf, const double *q, const ep_pscontact_pose *pose, int depth,
                       ep_pscontact_out *out)
{
    int N;
    sums_start(c, out);
    sums_finish(c, look_up_all(c, sdf, q, pose, depth, &N, out), out);
    out->traversed = out->lookups = N;
    out->inner = 0;
    out->skipped = 0;
    out->depth = depth;
    return EP_OK;
}

double ep_pscontact_energy(ep_pscontact *c, const ep_sdf *sdf, const double *q, const ep_pscontact_pose *pose,
                           int depth)
{
    int N, nc = look_up_all(c, sdf, q, pose, depth, &N, NULL);
    double E = 0;
    for (int e = 0; e < nc; e++) { /* every path records a looked-up point's d in c->look */
        double d = c->look[c->contact[e]].d;
        E += d * d;
    }
    double scale = c->lc > 0 && nc > c->lc ? (double)c->lc / nc : 1;
    return 0.5 * c->kc * scale * E;
}
