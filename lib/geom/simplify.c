/*
 * simplify.c — quadric-error edge collapses with the link condition, normal
 * and angle bounds, then angle-raising edge flips (simplify.h).
 *
 * Garland & Heckbert 1997: each vertex carries the sum of the squared
 * distances to the planes of its original faces (area-weighted quadric
 * Q = [A b; b' c]); collapsing edge (a b) to v costs v'A v + 2 b'v + c of
 * Q_a + Q_b, minimised over v.  Collapses come off a binary heap in order of
 * cost; an entry is stale when either end has changed since it was pushed
 * (a stamp per vertex).
 */
#include "simplify.h"
#include "err.h"
#include "vec3.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ep_simplify_opts_default(ep_simplify_opts *o, int target_nv)
{
    o->target_nv = target_nv;
    o->min_angle = EP_SIMPLIFY_MIN_ANGLE;
    o->max_turn = EP_SIMPLIFY_MAX_TURN;
}


/* Largest cosine of the three angles of (a b c): the smallest angle is
 * acos of it.  1 for a degenerate triangle. */
static double max_cos(const double *a, const double *b, const double *c)
{
    const double *p[3] = {a, b, c};
    double worst = -1;
    for (int k = 0; k < 3; k++) {
        double u[3], v[3];
        ep_vec3_sub(p[(k + 1) % 3], p[k], u);
        ep_vec3_sub(p[(k + 2) % 3], p[k], v);
        double l = sqrt(ep_vec3_dot(u, u) * ep_vec3_dot(v, v));
        double c0 = l > 0 ? ep_vec3_dot(u, v) / l : 1;
        worst = c0 > worst ? c0 : worst;
    }
    return worst;
}

/* ---- the working mesh -------------------------------------------------------- */

typedef struct {
    double cost, p[3];
    int a, b, sa, sb;
    int checked; /* p passed shape_ok when pushed (else: the unchecked optimum) */
} entry;

typedef struct {
    int nv, nf, alive_nv;
    double *x, *q;     /* [nv][3] positions, [nv][10] quadrics */
    int *f;            /* [nf][3] */
    char *fdead, *vdead;
    int **vf, *nvf, *cvf; /* faces of each vertex */
    int *stamp, *mark, tick;
    int *part, *part_nv;      /* connected part of each vertex; alive vertices of each part */
    int *nb, nnb, *nb2, nnb2; /* neighbour scratch */
    entry *heap;
    size_t nheap, cheap;
    double cos_turn, cos_angle;
    ep_simplify_report *r;
} S;

static int vf_add(S *s, int v, int t)
{
    if (s->nvf[v] == s->cvf[v]) {
        int c = s->cvf[v] ? 2 * s->cvf[v] : 8;
        if (ep_grow(&s->vf[v], (size_t)c, sizeof **s->vf))
            return EP_ECOMPUTE;
        s->cvf[v] = c;
    }
    s->vf[v][s->nvf[v]++] = t;
    return EP_OK;
}

static void vf_compact(S *s, int v)
{
    int k = 0;
    for (int i = 0; i < s->nvf[v]; i++)
        if (!s->fdead[s->vf[v][i]])
            s->vf[v][k++] = s->vf[v][i];
    s->nvf[v] = k;
}

/* Neighbours of v into out (deduplicated); returns their number. */
static int neighbours(S *s, int v, int *out)
{
    int n = 0;
    s->tick++;
    for (int i = 0; i < s->nvf[v]; i++) {
        const int *f = &s->f[3 * s->vf[v][i]];
        if (s->fdead[s->vf[v][i]])
            continue;
        for (int k = 0; k < 3; k++)
            if (f[k] != v && s->mark[f[k]] != s->tick) {
                s->mark[f[k]] = s->tick;
                out[n++] = f[k];
            }
    }
    return n;
}

static void quadric_add_plane(double *q, const double *n, double d, double w)
{
    q[0] += w * n[0] * n[0], q[1] += w * n[0] * n[1], q[2] += w * n[0] * n[2], q[3] += w * n[0] * d;
    q[4] += w * n[1] * n[1], q[5] += w * n[1] * n[2], q[6] += w * n[1] * d;
    q[7] += w * n[2] * n[2], q[8] += w * n[2] * d;
    q[9] += w * d * d;
}

static double quadric_eval(const double *q, const double *v)
{
    return q[0] * v[0] * v[0] + 2 * q[1] * v[0] * v[1] + 2 * q[2] * v[0] * v[2] + 2 * q[3] * v[0] +
           q[4] * v[1] * v[1] + 2 * q[5] * v[1] * v[2] + 2 * q[6] * v[1] + q[7] * v[2] * v[2] + 2 * q[8] * v[2] + q[9];
}

/* ---- heap -------------------------------------------------------------------- */

static int heap_push(S *s, const entry *e)
{
    if (s->nheap == s->cheap) {
        size_t c = s->cheap ? 2 * s->cheap : 1024;
        if (ep_grow(&s->heap, c, sizeof *s->heap))
            return EP_ECOMPUTE;
        s->cheap = c;
    }
    size_t i = s->nheap++;
    while (i > 0 && s->heap[(i - 1) / 2].cost > e->cost) {
        s->heap[i] = s->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    s->heap[i] = *e;
    return EP_OK;
}

static entry heap_pop(S *s)
{
    entry top = s->heap[0], last = s->heap[--s->nheap];
    size_t i = 0, n = s->nheap;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && s->heap[c + 1].cost < s->heap[c].cost)
            c++;
        if (s->heap[c].cost >= last.cost)
            break;
        s->heap[i] = s->heap[c];
        i = c;
    }
    if (n)
        s->heap[i] = last;
    return top;
}

/* ---- collapse checks ----------------------------------------------------------- */

/* Link condition on a closed manifold: a and b share exactly two neighbours
 * (the vertices opposite edge a b).  More shared neighbours mean the
 * collapse would pinch the surface or close a handle.  A tetrahedron meets
 * the condition too, so each connected part keeps 4 vertices or more: of
 * two spheres, the smaller went on to 3 vertices on 2 faces (issue 37). */
static int link_ok(S *s, int a, int b)
{
    int na = neighbours(s, a, s->nb), common = 0;
    neighbours(s, b, s->nb2); /* marks b's ring with a new tick */
    for (int i = 0; i < na; i++)
        common += s->mark[s->nb[i]] == s->tick;
    return common == 2 && s->part_nv[s->part[a]] > 4;
}

/* Label the connected parts of the surface (s->part, s->part_nv); their
 * number. */
static int label_parts(S *s)
{
    int *p = s->part, n = 0;
    for (int v = 0; v < s->nv; v++)
        p[v] = v;
    for (int t = 0; t < s->nf; t++)
        for (int k = 0; k < 3; k++) { /* union by pointer jumping: find roots, link */
            int a = s->f[3 * t + k], b = s->f[3 * t + (k + 1) % 3];
            while (p[a] != a)
                a = p[a] = p[p[a]];
            while (p[b] != b)
                b = p[b] = p[p[b]];
            p[a < b ? b : a] = a < b ? a : b;
        }
    for (int v = 0; v < s->nv; v++) /* roots are the smallest ids: final labels in one pass */
        p[v] = p[v] == v ? n++ : p[p[v]];
    for (int v = 0; v < s->nv; v++)
        s->part_nv[p[v]]++;
    return n;
}

/* Do the faces around a and b stay unfolded and unsliver-like with the
 * merged vertex at p (limit: angle_limit)?  Faces on edge a b vanish; the others turn by less
 * than the bound and keep their smallest angle above the bound (or above
 * the smallest angle of the faces being replaced, when that is lower). */
/* The largest cosine shape_ok allows around a and b: the bound's, or the
 * worst of the faces there now when that is worse. */
static double angle_limit(S *s, int a, int b)
{
    double worst_old = -1;
    for (int e = 0; e < 2; e++) {
        int v = e ? b : a;
        for (int i = 0; i < s->nvf[v]; i++) {
            int t = s->vf[v][i];
            if (s->fdead[t])
                continue;
            const int *f = &s->f[3 * t];
            double c = max_cos(&s->x[3 * f[0]], &s->x[3 * f[1]], &s->x[3 * f[2]]);
            worst_old = c > worst_old ? c : worst_old;
        }
    }
    return worst_old > s->cos_angle ? worst_old : s->cos_angle;
}

static int shape_ok(S *s, int a, int b, const double *p, double limit)
{
    for (int e = 0; e < 2; e++) {
        int v = e ? b : a, o = e ? a : b;
        for (int i = 0; i < s->nvf[v]; i++) {
            int t = s->vf[v][i];
            const int *f = &s->f[3 * t];
            if (s->fdead[t] || f[0] == o || f[1] == o || f[2] == o)
                continue;
            const double *c[3];
            for (int k = 0; k < 3; k++)
                c[k] = f[k] == v ? p : &s->x[3 * f[k]];
            double n0[3], n1[3];
            ep_vec3_normal(&s->x[3 * f[0]], &s->x[3 * f[1]], &s->x[3 * f[2]], n0);
            ep_vec3_normal(c[0], c[1], c[2], n1);
            double l = sqrt(ep_vec3_dot(n0, n0) * ep_vec3_dot(n1, n1));
            if (!(l > 0) || ep_vec3_dot(n0, n1) < s->cos_turn * l)
                return 0;
            if (max_cos(c[0], c[1], c[2]) > limit)
                return 0;
        }
    }
    return 1;
}

/* Best position for collapsing a b: the quadric's minimiser when it is well
 * defined and near the edge, else the best point of the segment, then the
 * ends and the midpoint; with check, the best that passes shape_ok.  0 and
 * *e filled, or -1 when no candidate passes.  Shape checks cost most of a
 * run (perf), so edges are pushed unchecked and checked when they reach the
 * top of the heap. */
static int evaluate(S *s, int a, int b, int check, entry *e)
{
    double q[10], cand[5][3], cost[5];
    int nc = 0;
    for (int k = 0; k < 10; k++)
        q[k] = s->q[10 * a + k] + s->q[10 * b + k];
    const double *xa = &s->x[3 * a], *xb = &s->x[3 * b];
    double d[3], len2;
    ep_vec3_sub(xb, xa, d);
    len2 = ep_vec3_dot(d, d);
    /* A v = -b by Cramer's rule, when A is well conditioned (its
     * determinant against the cube of its scale). */
    double A[9] = {q[0], q[1], q[2], q[1], q[4], q[5], q[2], q[5], q[7]}, rhs[3] = {-q[3], -q[6], -q[8]};
    double c0[3], c1[3], c2[3];
    ep_vec3_cross(&A[3], &A[6], c0);
    ep_vec3_cross(&A[6], &A[0], c1);
    ep_vec3_cross(&A[0], &A[3], c2);
    double det = ep_vec3_dot(&A[0], c0), scale = q[0] + q[4] + q[7];
    if (fabs(det) > 1e-6 * scale * scale * scale) {
        double v[3];
        for (int k = 0; k < 3; k++) /* A symmetric: inverse rows are the cofactor vectors */
            v[k] = (c0[k] * rhs[0] + c1[k] * rhs[1] + c2[k] * rhs[2]) / det;
        double mid[3] = {0.5 * (xa[0] + xb[0]), 0.5 * (xa[1] + xb[1]), 0.5 * (xa[2] + xb[2])}, dm[3];
        ep_vec3_sub(v, mid, dm);
        if (ep_vec3_dot(dm, dm) <= len2)
            memcpy(cand[nc++], v, sizeof v);
    }
    /* Minimum of the quadric along a + t d, t in [0, 1]. */
    double Ad[3] = {ep_vec3_dot(&A[0], d), ep_vec3_dot(&A[3], d), ep_vec3_dot(&A[6], d)}, Aa[3] = {ep_vec3_dot(&A[0], xa), ep_vec3_dot(&A[3], xa), ep_vec3_dot(&A[6], xa)};
    double den = ep_vec3_dot(d, Ad), t = den > 0 ? -(ep_vec3_dot(d, Aa) - ep_vec3_dot(d, rhs)) / den : 0.5;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    for (int k = 0; k < 3; k++)
        cand[nc][k] = xa[k] + t * d[k];
    nc++;
    memcpy(cand[nc++], xa, sizeof cand[0]);
    memcpy(cand[nc++], xb, sizeof cand[0]);
    for (int k = 0; k < 3; k++)
        cand[nc][k] = 0.5 * (xa[k] + xb[k]);
    nc++;
    for (int i = 0; i < nc; i++)
        cost[i] = quadric_eval(q, cand[i]);
    double limit = check ? angle_limit(s, a, b) : 0;
    for (int tries = 0; tries < nc; tries++) {
        int best = -1;
        for (int i = 0; i < nc; i++)
            if (cost[i] < INFINITY && (best < 0 || cost[i] < cost[best]))
                best = i;
        if (best < 0)
            break;
        if (!check || shape_ok(s, a, b, cand[best], limit)) {
            e->cost = cost[best] > 0 ? cost[best] : 0;
            memcpy(e->p, cand[best], sizeof e->p);
            e->a = a, e->b = b, e->sa = s->stamp[a], e->sb = s->stamp[b];
            e->checked = check;
            return 0;
        }
        cost[best] = INFINITY;
    }
    return -1;
}

/* Push every edge at v, unchecked. */
static int push_edges(S *s, int v)
{
    int n = neighbours(s, v, s->nb); /* evaluate() leaves s->nb alone */
    for (int i = 0; i < n; i++) {
        entry e;
        if (evaluate(s, v, s->nb[i], 0, &e) == 0 && heap_push(s, &e))
            return EP_ECOMPUTE;
    }
    return EP_OK;
}

/* Collapse b into a at p. */
static int collapse(S *s, int a, int b, const double *p)
{
    int opp[2], no = 0;
    for (int i = 0; i < s->nvf[b]; i++) {
        int t = s->vf[b][i];
        int *f = &s->f[3 * t];
        if (s->fdead[t])
            continue;
        if (f[0] == a || f[1] == a || f[2] == a) {
            s->fdead[t] = 1;
            for (int k = 0; k < 3; k++)
                if (f[k] != a && f[k] != b && no < 2)
                    opp[no++] = f[k];
            continue;
        }
        for (int k = 0; k < 3; k++)
            if (f[k] == b)
                f[k] = a;
        if (vf_add(s, a, t))
            return EP_ECOMPUTE;
    }
    memcpy(&s->x[3 * a], p, 3 * sizeof *p);
    for (int k = 0; k < 10; k++)
        s->q[10 * a + k] += s->q[10 * b + k];
    s->vdead[b] = 1;
    s->part_nv[s->part[b]]--;
    s->nvf[b] = 0;
    s->stamp[a]++;
    s->stamp[b]++;
    s->alive_nv--;
    vf_compact(s, a);
    for (int i = 0; i < no; i++) {
        vf_compact(s, opp[i]);
        s->stamp[opp[i]]++; /* its valence changed: the link condition of its edges too */
    }
    int st = push_edges(s, a);
    for (int i = 0; i < no && !st; i++)
        st = push_edges(s, opp[i]);
    return st;
}

/* ---- flips ------------------------------------------------------------------- */

/* Flip edge a b (faces t = (a b c), u = (b a d)) to c d when c and d are not
 * yet joined, a and b keep three neighbours, neither new face turns by more
 * than the bound, and the smallest angle of the pair rises. */
static int try_flip(S *s, int t, int k)
{
    int *f = &s->f[3 * t], a = f[k], b = f[(k + 1) % 3], c = f[(k + 2) % 3], u = -1, d = -1;
    for (int i = 0; i < s->nvf[a] && u < 0; i++) {
        int g = s->vf[a][i];
        const int *h = &s->f[3 * g];
        if (g == t || s->fdead[g])
            continue;
        for (int j = 0; j < 3; j++)
            if (h[j] == b && h[(j + 1) % 3] == a) {
                u = g;
                d = h[(j + 2) % 3];
            }
    }
    if (u < 0 || c == d)
        return 0;
    int na = neighbours(s, a, s->nb), nb = neighbours(s, b, s->nb2);
    if (na <= 3 || nb <= 3)
        return 0;
    neighbours(s, c, s->nb);
    if (s->mark[d] == s->tick) /* c d already an edge */
        return 0;
    const double *xa = &s->x[3 * a], *xb = &s->x[3 * b], *xc = &s->x[3 * c], *xd = &s->x[3 * d];
    double before = fmax(max_cos(xa, xb, xc), max_cos(xb, xa, xd));
    double after = fmax(max_cos(xc, xd, xb), max_cos(xd, xc, xa));
    if (!(after < before - 1e-9))
        return 0;
    double n0[3], n1[3], m0[3], m1[3];
    ep_vec3_normal(xa, xb, xc, n0);
    ep_vec3_normal(xb, xa, xd, n1);
    ep_vec3_normal(xc, xd, xb, m0);
    ep_vec3_normal(xd, xc, xa, m1);
    double l0 = sqrt(ep_vec3_dot(n0, n0)), l1 = sqrt(ep_vec3_dot(n1, n1)), k0 = sqrt(ep_vec3_dot(m0, m0)), k1 = sqrt(ep_vec3_dot(m1, m1));
    if (!(k0 > 0 && k1 > 0) || ep_vec3_dot(n0, n1) < s->cos_turn * l0 * l1)
        return 0; /* a crease: flipping would change the shape */
    for (int i = 0; i < 2; i++) {
        const double *m = i ? m1 : m0, km = i ? k1 : k0;
        if (ep_vec3_dot(m, n0) < s->cos_turn * km * l0 || ep_vec3_dot(m, n1) < s->cos_turn * km * l1)
            return 0;
    }
    /* t = (c d b), u = (d c a): a loses t, b loses u, c gains u, d gains t. */
    f[0] = c, f[1] = d, f[2] = b;
    int *g = &s->f[3 * u];
    g[0] = d, g[1] = c, g[2] = a;
    for (int i = 0; i < s->nvf[a]; i++)
        if (s->vf[a][i] == t)
            s->vf[a][i] = s->vf[a][--s->nvf[a]];
    for (int i = 0; i < s->nvf[b]; i++)
        if (s->vf[b][i] == u)
            s->vf[b][i] = s->vf[b][--s->nvf[b]];
    if (vf_add(s, c, u) || vf_add(s, d, t))
        return -1;
    return 1;
}

static int flip_pass(S *s)
{
    int flips = 0;
    for (int t = 0; t < s->nf; t++)
        for (int k = 0; k < 3 && !s->fdead[t]; k++) {
            int r = try_flip(s, t, k);
            if (r < 0)
                return -1;
            flips += r;
        }
    return flips;
}

/* ---- driver -------------------------------------------------------------------- */

static void free_state(S *s)
{
    for (int v = 0; s->vf && v < s->nv; v++)
        free(s->vf[v]);
    free(s->vf);
    free(s->nvf);
    free(s->cvf);
    free(s->q);
    free(s->f);
    free(s->fdead);
    free(s->vdead);
    free(s->stamp);
    free(s->mark);
    free(s->part);
    free(s->part_nv);
    free(s->nb);
    free(s->nb2);
    free(s->heap);
}

int ep_simplify_build(ep_mesh *base, const ep_mesh *m, const ep_simplify_opts *o, ep_simplify_report *r)
{
    S s = {0};
    int st;
    ep_mesh_init(base);
    memset(r, 0, sizeof *r);
    if (o->target_nv < 4)
        return ep_fail(EP_EUSAGE, "a base mesh needs at least 4 vertices (asked for %d)", o->target_nv);
    if ((st = ep_mesh_check_closed(m)))
        return st;
    st = EP_ECOMPUTE;
    snprintf(base->source, sizeof base->source, "%s", m->source);
    base->vertices = ep_malloc(3 * (size_t)m->nv, sizeof *base->vertices);
    base->triangles = ep_malloc(3 * (size_t)m->nf, sizeof *base->triangles);
    if (!base->vertices || !base->triangles)
        goto out;
    memcpy(base->vertices, m->vertices, 3 * (size_t)m->nv * sizeof *m->vertices);
    s.nv = s.alive_nv = m->nv;
    s.nf = m->nf;
    s.x = base->vertices;
    s.r = r;
    s.cos_turn = cos(o->max_turn * M_PI / 180);
    s.cos_angle = cos(o->min_angle * M_PI / 180);
    s.q = ep_calloc(10 * (size_t)s.nv, sizeof *s.q);
    s.f = ep_malloc(3 * (size_t)s.nf, sizeof *s.f);
    s.fdead = ep_calloc((size_t)s.nf, 1);
    s.vdead = ep_calloc((size_t)s.nv, 1);
    s.vf = ep_calloc((size_t)s.nv, sizeof *s.vf);
    s.nvf = ep_calloc((size_t)s.nv, sizeof *s.nvf);
    s.cvf = ep_calloc((size_t)s.nv, sizeof *s.cvf);
    s.stamp = ep_calloc((size_t)s.nv, sizeof *s.stamp);
    s.mark = ep_calloc((size_t)s.nv, sizeof *s.mark);
    s.nb = ep_malloc((size_t)s.nv, sizeof *s.nb);
    s.nb2 = ep_malloc((size_t)s.nv, sizeof *s.nb2);
    s.part = ep_malloc((size_t)s.nv, sizeof *s.part);
    s.part_nv = ep_calloc((size_t)s.nv, sizeof *s.part_nv);
    if (!s.q || !s.f || !s.fdead || !s.vdead || !s.vf || !s.nvf || !s.cvf || !s.stamp || !s.mark || !s.nb || !s.nb2 ||
        !s.part || !s.part_nv)
        goto out;
    memcpy(s.f, m->triangles, 3 * (size_t)s.nf * sizeof *s.f);
    r->parts = label_parts(&s);
    for (int t = 0; t < s.nf; t++) {
        const int *f = &s.f[3 * t];
        double n[3];
        ep_vec3_normal(&s.x[3 * f[0]], &s.x[3 * f[1]], &s.x[3 * f[2]], n);
        double l = sqrt(ep_vec3_dot(n, n));
        if (l > 0) { /* weight: the face's area */
            for (int k = 0; k < 3; k++)
                n[k] /= l;
            double d = -ep_vec3_dot(n, &s.x[3 * f[0]]);
            for (int k = 0; k < 3; k++)
                quadric_add_plane(&s.q[10 * f[k]], n, d, 0.5 * l);
        }
        for (int k = 0; k < 3; k++)
            if (vf_add(&s, f[k], t))
                goto out;
    }
    for (int v = 0; v < s.nv; v++) {
        int n = neighbours(&s, v, s.nb);
        for (int i = 0; i < n; i++) {
            entry e;
            if (s.nb[i] > v && evaluate(&s, v, s.nb[i], 0, &e) == 0 && heap_push(&s, &e))
                goto out;
        }
    }
    while (s.alive_nv > o->target_nv && s.nheap) {
        entry e = heap_pop(&s);
        if (s.vdead[e.a] || s.vdead[e.b] || e.sa != s.stamp[e.a] || e.sb != s.stamp[e.b])
            continue;
        if (!link_ok(&s, e.a, e.b)) {
            r->link_refused++;
            continue;
        }
        if (!e.checked) { /* the best position that passes, back on the heap at its cost */
            entry c;
            if (evaluate(&s, e.a, e.b, 1, &c)) {
                r->shape_refused++;
                continue;
            }
            if (heap_push(&s, &c))
                goto out;
            continue;
        }
        if (!shape_ok(&s, e.a, e.b, e.p, angle_limit(&s, e.a, e.b))) { /* a neighbour moved since */
            r->shape_refused++;
            continue;
        }
        if (collapse(&s, e.a, e.b, e.p))
            goto out;
        r->collapses++;
        r->max_error = e.cost > r->max_error ? e.cost : r->max_error;
    }
    for (int pass = 0; pass < 50; pass++) {
        int n = flip_pass(&s);
        if (n < 0)
            goto out;
        r->flips += n;
        if (!n)
            break;
    }
    /* The surviving vertices in their old order. */
    int *newid = s.mark, nv = 0, nf = 0;
    for (int v = 0; v < s.nv; v++)
        if (!s.vdead[v]) {
            newid[v] = nv;
            memmove(&base->vertices[3 * nv], &base->vertices[3 * v], 3 * sizeof *base->vertices);
            nv++;
        }
    double worst = -1;
    for (int t = 0; t < s.nf; t++)
        if (!s.fdead[t]) {
            for (int k = 0; k < 3; k++)
                base->triangles[3 * nf + k] = newid[s.f[3 * t + k]];
            const int *f = &base->triangles[3 * nf];
            double c = max_cos(&base->vertices[3 * f[0]], &base->vertices[3 * f[1]], &base->vertices[3 * f[2]]);
            worst = c > worst ? c : worst;
            nf++;
        }
    base->nv = nv;
    base->nf = nf;
    r->min_angle = acos(worst) * 180 / M_PI;
    st = ep_mesh_derive_boundary_data(base);
out:
    free_state(&s);
    if (st)
        ep_mesh_free(base);
    return st;
}
