/*
 * fit.c — Loop levels moved onto a reference surface (fit.h).
 */
#include "fit.h"
#include "chol.h"
#include "err.h"
#include "subdiv.h"
#include "surfdist.h"
#include "vec3.h"
#include "sort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


/* Normal of face f of the vertex array x (twice the area long). */
static void tri_normal(const double *x, const int *f, double *n) { ep_vec3_normal(&x[3 * f[0]], &x[3 * f[1]], &x[3 * f[2]], n); }

/* Faces of each vertex, compressed rows: faces of v are vf[start[v] ..
 * start[v+1]).  Allocated; caller frees both. */
static int vertex_faces(const ep_mesh *m, int **start, int **vf)
{
    int *s = ep_calloc((size_t)m->nv + 1, sizeof *s), *f = ep_malloc(3 * (size_t)m->nf + 1, sizeof *f);
    if (!s || !f) {
        free(s);
        free(f);
        return EP_ECOMPUTE;
    }
    for (int i = 0; i < 3 * m->nf; i++)
        s[m->triangles[i] + 1]++;
    for (int v = 0; v < m->nv; v++)
        s[v + 1] += s[v];
    for (int i = 0; i < 3 * m->nf; i++)
        f[s[m->triangles[i]]++] = i / 3;
    for (int v = m->nv; v > 0; v--)
        s[v] = s[v - 1];
    s[0] = 0;
    *start = s;
    *vf = f;
    return EP_OK;
}

int ep_fit_limit_normals(const ep_mesh *m, double *n)
{
    int *start, *vf, st = EP_OK;
    if (vertex_faces(m, &start, &vf))
        return EP_ECOMPUTE;
    for (int v = 0; v < m->nv && !st; v++) {
        int deg = start[v + 1] - start[v];
        double t1[3] = {0, 0, 0}, t2[3] = {0, 0, 0};
        if (deg < 3) {
            st = ep_fail(EP_EINPUT, "%s: vertex %d is on %d faces (a closed surface needs 3 or more)", m->source,
                         v + 1, deg);
            break;
        }
        /* Ordered ring: face (v a b) gives b after a (outward orientation:
         * counter-clockwise seen from outside). */
        int first = -1, cur = -1;
        for (int i = 0; i < deg; i++) {
            const int *f = &m->triangles[3 * vf[start[v] + i]];
            int k = f[0] == v ? 0 : f[1] == v ? 1 : 2;
            if (i == 0)
                first = cur = f[(k + 1) % 3];
        }
        for (int i = 0; i < deg && !st; i++) {
            double c = cos(2 * M_PI * i / deg), s = sin(2 * M_PI * i / deg);
            const double *p = &m->vertices[3 * cur];
            for (int k = 0; k < 3; k++) {
                t1[k] += c * p[k];
                t2[k] += s * p[k];
            }
            int next = -1;
            for (int j = 0; j < deg && next < 0; j++) {
                const int *f = &m->triangles[3 * vf[start[v] + j]];
                int k = f[0] == v ? 0 : f[1] == v ? 1 : 2;
                if (f[(k + 1) % 3] == cur)
                    next = f[(k + 2) % 3];
            }
            if (next < 0 || (i + 1 < deg && next == first) || (i + 1 == deg && next != first))
                st = ep_fail(EP_EINPUT, "%s: the faces around vertex %d do not form one fan", m->source, v + 1);
            cur = next;
        }
        double *nv = &n[3 * v];
        nv[0] = t1[1] * t2[2] - t1[2] * t2[1];
        nv[1] = t1[2] * t2[0] - t1[0] * t2[2];
        nv[2] = t1[0] * t2[1] - t1[1] * t2[0];
        double l = sqrt(ep_vec3_dot(nv, nv));
        for (int k = 0; k < 3; k++)
            nv[k] = l > 0 ? nv[k] / l : 0;
    }
    free(start);
    free(vf);
    return st;
}

/* ---- projection ------------------------------------------------------------ */

enum { AT_CLOSEST, ALONG_NORMAL, KEPT };

int ep_fit_project(ep_mesh *m, const ep_closest *ref, ep_fit_report *r)
{
    int st = EP_ECOMPUTE, nv = m->nv;
    double *P = ep_malloc(3 * (size_t)nv, sizeof *P), *N = ep_malloc(3 * (size_t)nv, sizeof *N);
    double *reach = ep_calloc((size_t)nv, sizeof *reach);
    int *deg = ep_calloc((size_t)nv, sizeof *deg);
    char *mode = ep_calloc((size_t)nv, 1), *redo = ep_calloc((size_t)nv, 1);
    if (!P || !N || !reach || !deg || !mode || !redo)
        goto out;
    memcpy(P, m->vertices, 3 * (size_t)nv * sizeof *P);
    if ((st = ep_fit_limit_normals(m, N)))
        goto out;
    for (int t = 0; t < m->nf; t++) /* mean edge length at each vertex (each edge seen twice) */
        for (int k = 0; k < 3; k++) {
            int a = m->triangles[3 * t + k], b = m->triangles[3 * t + (k + 1) % 3];
            double e[3] = {P[3 * b] - P[3 * a], P[3 * b + 1] - P[3 * a + 1], P[3 * b + 2] - P[3 * a + 2]}, l = sqrt(ep_vec3_dot(e, e));
            reach[a] += l, reach[b] += l;
            deg[a] += 2, deg[b] += 2;
        }
    /* First choice: the closest point among faces turned the vertex's way. */
#pragma omp parallel for schedule(dynamic, 256)
    for (int v = 0; v < nv; v++) {
        double q[3], d2;
        int t;
        reach[v] = EP_FIT_RAY_REACH * reach[v] / deg[v];
        ep_closest_query_facing(ref, &P[3 * v], &N[3 * v], q, &t, &d2);
        if (t >= 0) {
            memcpy(&m->vertices[3 * v], q, sizeof q);
            mode[v] = AT_CLOSEST;
        } else {
            redo[v] = 1;
        }
    }
    /* Rounds: a flagged vertex goes along the normal, then (if flagged
     * again) stays where subdivision put them; a flag comes from a folded
     * triangle.  A vertex changes twice at most and a triangle with all
     * corners kept is not folded, so the rounds end. */
    for (;;) {
        int any = 0;
#pragma omp parallel for schedule(dynamic, 256)
        for (int v = 0; v < nv; v++) {
            if (!redo[v])
                continue;
            redo[v] = 0;
            double q[3];
            int hit;
            if (mode[v] == AT_CLOSEST && ep_closest_line(ref, &P[3 * v], &N[3 * v], reach[v], q, &hit)) {
                memcpy(&m->vertices[3 * v], q, sizeof q);
                mode[v] = ALONG_NORMAL;
            } else {
                memcpy(&m->vertices[3 * v], &P[3 * v], 3 * sizeof *P);
                mode[v] = KEPT;
            }
        }
        for (int t = 0; t < m->nf; t++) {
            const int *f = &m->triangles[3 * t];
            double n0[3], n1[3];
            tri_normal(P, f, n0);
            tri_normal(m->vertices, f, n1);
            if (ep_vec3_dot(n0, n1) > 0)
                continue;
            for (int k = 0; k < 3; k++)
                if (mode[f[k]] != KEPT) {
                    redo[f[k]] = 1;
                    any = 1;
                }
        }
        if (!any)
            break;
    }
    for (int v = 0; v < nv; v++) {
        r->projected += mode[v] == AT_CLOSEST;
        r->along_normal += mode[v] == ALONG_NORMAL;
        r->kept += mode[v] == KEPT;
    }
    st = ep_mesh_derive_boundary_data(m);
out:
    free(P);
    free(N);
    free(reach);
    free(deg);
    free(mode);
    free(redo);
    return st;
}

/* Area-weighted vertex normals (unit) of a surface: n [nv][3]. */
static void vertex_normals(const ep_mesh *m, double *n)
{
    memset(n, 0, 3 * (size_t)m->nv * sizeof *n);
    for (int t = 0; t < m->nf; t++) {
        double f[3];
        tri_normal(m->vertices, &m->triangles[3 * t], f);
        for (int k = 0; k < 3; k++)
            for (int c = 0; c < 3; c++)
                n[3 * m->triangles[3 * t + k] + c] += f[c];
    }
    for (int v = 0; v < m->nv; v++) {
        double l = sqrt(ep_vec3_dot(&n[3 * v], &n[3 * v]));
        for (int c = 0; c < 3 && l > 0; c++)
            n[3 * v + c] /= l;
    }
}


typedef struct {
    const ep_mesh *ref;
    const ep_closest *tref;
    const double *rn; /* [ref nv][3] vertex normals of the reference */
    double spring;    /* spring constant, in mean triangle areas of the level */
} fitctx;

/* One step of Hoppe et al.'s mesh optimization with fixed connectivity
 * (Hoppe, DeRose, Duchamp, McDonald, Stuetzle 1993): with the closest
 * points held fixed, the positions V minimise
 *   sum_s a_s |B_s V - x_s|^2 + sum_v a_v |v - q_v|^2 + k sum_edges |v_a - v_b|^2,
 * s over the reference's vertices x_s (area a_s; B_s the barycentric
 * weights of its closest point on m), v over m's vertices (area a_v; q_v the
 * closest point on the reference), k a spring that keeps the vertices
 * spread.  Pairs whose normals oppose (the far side of a thin part) are
 * left out.  One sparse SPD solve with three right-hand sides (CHOLMOD). */
/* The fitting matrix of a level: 3 x 3 blocks on the diagonal and on each
 * edge (upper triangle, CHOLMOD's compressed columns), a pattern fixed for
 * the level, so the ordering and symbolic factor are computed once and each
 * step only writes values (assembling through triplets took more time than
 * the factorization: perf on the dragon, L = 3). */
typedef struct {
    int *start, *row; /* vertices p <= q next to q (and q last): row[start[q] .. start[q+1]) */
    cholmod_sparse *A;
    cholmod_factor *L;
} pattern;

static void pattern_free(pattern *p, cholmod_common *c)
{
    free(p->start);
    free(p->row);
    cholmod_free_sparse(&p->A, c);
    cholmod_free_factor(&p->L, c);
    memset(p, 0, sizeof *p);
}

static int pattern_build(pattern *p, const ep_mesh *m, cholmod_common *c)
{
    int nv = m->nv, *cnt = ep_calloc((size_t)nv + 1, sizeof *cnt);
    memset(p, 0, sizeof *p);
    if (!cnt)
        return EP_ECOMPUTE;
    /* Each edge (a < b) is seen from its two faces: count, fill, dedupe. */
    for (int t = 0; t < m->nf; t++)
        for (int e = 0; e < 3; e++) {
            int a = m->triangles[3 * t + e], b = m->triangles[3 * t + (e + 1) % 3];
            cnt[(a > b ? a : b) + 1]++;
        }
    for (int q = 0; q < nv; q++)
        cnt[q + 1] += cnt[q] + 1; /* + the diagonal */
    p->start = ep_malloc((size_t)nv + 1, sizeof *p->start);
    p->row = ep_malloc((size_t)cnt[nv] + 1, sizeof *p->row);
    int *fill = ep_malloc((size_t)nv, sizeof *fill);
    if (!p->start || !p->row || !fill) {
        free(cnt);
        free(fill);
        return EP_ECOMPUTE;
    }
    for (int q = 0; q < nv; q++) {
        fill[q] = cnt[q];
        p->row[fill[q]++] = q;
    }
    for (int t = 0; t < m->nf; t++)
        for (int e = 0; e < 3; e++) {
            int a = m->triangles[3 * t + e], b = m->triangles[3 * t + (e + 1) % 3];
            int lo = a < b ? a : b, hi = a < b ? b : a;
            p->row[fill[hi]++] = lo;
        }
    int k = 0;
    for (int q = 0; q < nv; q++) {
        ep_sort_ints(&p->row[cnt[q]], (size_t)(fill[q] - cnt[q]));
        p->start[q] = k;
        for (int i = cnt[q]; i < fill[q]; i++)
            if (i == cnt[q] || p->row[i] != p->row[i - 1])
                p->row[k++] = p->row[i];
    }
    p->start[nv] = k;
    free(cnt);
    free(fill);
    /* Columns 3q + c: rows 3p + r of every p < q, then 3q .. 3q + c. */
    size_t nnz = 9 * (size_t)(k - nv) + 6 * (size_t)nv;
    if (!(p->A = cholmod_allocate_sparse(3 * (size_t)nv, 3 * (size_t)nv, nnz, 1, 1, 1, CHOLMOD_REAL, c)))
        return ep_chol_fail("the fitting system", c);
    int *Ap = p->A->p, *Ai = p->A->i, z = 0;
    for (int q = 0; q < nv; q++)
        for (int cc = 0; cc < 3; cc++) {
            Ap[3 * q + cc] = z;
            for (int i = p->start[q]; i < p->start[q + 1]; i++)
                for (int r = 0; r < (p->row[i] == q ? cc + 1 : 3); r++)
                    Ai[z++] = 3 * p->row[i] + r;
        }
    Ap[3 * nv] = z;
    if (!(p->L = ep_chol_analyze(p->A, 3, c)))
        return ep_chol_fail("the fitting system", c);
    return EP_OK;
}

/* Add s times the 3 x 3 block blk at vertices (a, b), a and b equal or
 * joined by an edge (upper triangle). */
static void pattern_add(pattern *p, int a, int b, const double *blk, double s)
{
    int lo = a < b ? a : b, q = a < b ? b : a, i = p->start[q];
    while (p->row[i] != lo)
        i++;
    int slot = i - p->start[q], len = p->start[q + 1] - p->start[q];
    const int *Ap = p->A->p;
    double *Ax = p->A->x;
    for (int cc = 0; cc < 3; cc++)
        for (int r = 0; r < (lo == q ? cc + 1 : 3); r++)
            Ax[Ap[3 * q + cc] + 3 * slot + r] += s * blk[3 * r + cc];
    (void)len;
}

/* Symmetric 3x3 block w ((1 - mu) n n' + mu I) of a data term whose
 * residual counts along the normal n, and mu of it in every direction. */
static void data_block(double w, const double *n, double mu, double *blk)
{
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            blk[3 * r + c] = w * ((1 - mu) * n[r] * n[c] + (r == c ? mu : 0));
}

static int fit_step(ep_mesh *m, const fitctx *fc, pattern *pat, cholmod_common *c)
{
    const ep_mesh *ref = fc->ref;
    ep_closest tm;
    int st = EP_ECOMPUTE, nv = m->nv;
    int *stri = ep_malloc((size_t)ref->nb + 1, sizeof *stri), *mtri = ep_malloc((size_t)nv, sizeof *mtri);
    double *sbar = ep_malloc(3 * (size_t)ref->nb + 1, sizeof *sbar), *mn = ep_malloc(3 * (size_t)nv, sizeof *mn);
    double *mq = ep_malloc(3 * (size_t)nv, sizeof *mq), *mqn = ep_malloc(3 * (size_t)nv, sizeof *mqn);
    cholmod_dense *B = NULL, *X = NULL;
    memset(&tm, 0, sizeof tm);
    if (!stri || !mtri || !sbar || !mn || !mq || !mqn || ep_closest_build(&tm, m))
        goto out;
    vertex_normals(m, mn);
    /* Closest points both ways (read-only queries, in parallel). */
#pragma omp parallel for schedule(dynamic, 256)
    for (int j = 0; j < ref->nb; j++) {
        int s = ref->boundary[j], t;
        double q[3], d2, n[3];
        ep_closest_query_facing(&tm, &ref->vertices[3 * s], &fc->rn[3 * s], q, &t, &d2);
        stri[j] = -1;
        if (t < 0)
            continue;
        const int *f = &m->triangles[3 * t];
        tri_normal(m->vertices, f, n);
        if (ep_vec3_dot(n, &fc->rn[3 * s]) <= 0)
            continue;
        stri[j] = t;
        ep_closest_barycentric(q, &m->vertices[3 * f[0]], &m->vertices[3 * f[1]], &m->vertices[3 * f[2]], &sbar[3 * j]);
    }
#pragma omp parallel for schedule(dynamic, 256)
    for (int v = 0; v < nv; v++) {
        int t;
        double d2, w[3], *n = &mqn[3 * v];
        ep_closest_query_facing(fc->tref, &m->vertices[3 * v], &mn[3 * v], &mq[3 * v], &t, &d2);
        mtri[v] = -1;
        if (t < 0)
            continue;
        const int *g = &ref->triangles[3 * t];
        ep_closest_barycentric(&mq[3 * v], &ref->vertices[3 * g[0]], &ref->vertices[3 * g[1]], &ref->vertices[3 * g[2]], w);
        for (int d = 0; d < 3; d++)
            n[d] = w[0] * fc->rn[3 * g[0] + d] + w[1] * fc->rn[3 * g[1] + d] + w[2] * fc->rn[3 * g[2] + d];
        double l = sqrt(ep_vec3_dot(n, n));
        if (l > 0 && ep_vec3_dot(n, &mn[3 * v]) > 0) {
            for (int d = 0; d < 3; d++)
                n[d] /= l;
            mtri[v] = t;
        }
    }
    double area, vol;
    ep_mesh_surface_measures(m, &area, &vol);
    double k = fc->spring * area / m->nf;
    if (!(B = cholmod_zeros(3 * (size_t)nv, 1, CHOLMOD_REAL, c))) {
        st = ep_chol_fail("the fitting system", c);
        goto out;
    }
    double *b = B->x;
    memset(pat->A->x, 0, pat->A->nzmax * sizeof(double));
#define ADDB(p, q, blk, s) pattern_add(pat, p, q, blk, s)
    for (int j = 0; j < ref->nb; j++) {
        if (stri[j] < 0)
            continue;
        const int *f = &m->triangles[3 * stri[j]];
        const double *w = &sbar[3 * j], *x = &ref->vertices[3 * ref->boundary[j]];
        double blk[9];
        data_block(ref->vertex_area[j], &fc->rn[3 * ref->boundary[j]], EP_FIT_MU, blk);
        for (int p = 0; p < 3; p++) {
            for (int q = p; q < 3; q++)
                ADDB(f[p], f[q], blk, w[p] * w[q] * (p != q && f[p] == f[q] ? 2 : 1));
            for (int r = 0; r < 3; r++)
                for (int d = 0; d < 3; d++)
                    b[3 * f[p] + r] += w[p] * blk[3 * r + d] * x[d];
        }
    }
    for (int v = 0; v < nv; v++) {
        double blk[9], eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
        if (mtri[v] >= 0) {
            data_block(m->vertex_area[v], &mqn[3 * v], EP_FIT_MU, blk);
            ADDB(v, v, blk, 1.0);
            for (int r = 0; r < 3; r++)
                for (int d = 0; d < 3; d++)
                    b[3 * v + r] += blk[3 * r + d] * mq[3 * v + d];
        }
        double tiny = 1e-12 * area / nv; /* keeps A definite */
        ADDB(v, v, eye, tiny);
        for (int d = 0; d < 3; d++)
            b[3 * v + d] += tiny * m->vertices[3 * v + d];
    }
    double eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    for (int t = 0; t < m->nf; t++) /* each edge twice: half the spring from each side */
        for (int e = 0; e < 3; e++) {
            int p = m->triangles[3 * t + e], q = m->triangles[3 * t + (e + 1) % 3];
            ADDB(p, p, eye, 0.5 * k);
            ADDB(q, q, eye, 0.5 * k);
            ADDB(p, q, eye, -0.5 * k);
        }
#undef ADDB
    if ((st = ep_chol_factorize(pat->A, pat->L, "the fitting system", c)))
        goto out;
    if (!(X = cholmod_solve(CHOLMOD_A, pat->L, B, c))) {
        st = ep_chol_fail("the fitting system", c);
        goto out;
    }
    memcpy(m->vertices, X->x, 3 * (size_t)nv * sizeof *m->vertices);
    st = ep_mesh_derive_boundary_data(m);
out:
    ep_closest_free(&tm);
    free(stri);
    free(mtri);
    free(sbar);
    free(mn);
    free(mq);
    free(mqn);
    cholmod_free_dense(&B, c);
    cholmod_free_dense(&X, c);
    return st;
}

/* Where triangles of m cross each other (the scan itself crosses itself
 * where two claws touch, and a fitted level follows it), move the corners
 * of the crossing triangles a quarter of the way to the centroid of their
 * neighbours, and again, until nothing crosses: a tet mesher refuses a surface that
 * does.  *moved: vertices moved (they leave the scan); *left: pairs still
 * crossing after EP_FIT_UNTANGLE rounds.  After the first round only the
 * triangles on a vertex flagged in the round before are searched, in the
 * tree refitted: a pair with no such vertex has not moved since a round in
 * which it did not cross (a crossing pair's corners are all flagged), so
 * the pairs found are all there are (the dragon at L = 4: 34 rounds). */
#define UNTANGLE_STEP 0.25 /* 0.5 cost the dragon 0.5% of Hausdorff, 0.1 twice the rounds */
static int untangle(ep_mesh *m, long *moved, long *left)
{
    int *start = NULL, *vf = NULL, st = EP_ECOMPUTE;
    char *flag = ep_calloc((size_t)m->nv, 1), *ever = ep_calloc((size_t)m->nv, 1);
    char *near = ep_calloc((size_t)m->nf + 1, 1);
    double *x = ep_malloc(3 * (size_t)m->nv, sizeof *x);
    ep_closest tm = {0};
    *left = 0;
    if (!flag || !ever || !near || !x || vertex_faces(m, &start, &vf) || ep_closest_build(&tm, m))
        goto out;
    for (int round = 0; round <= EP_FIT_UNTANGLE; round++) {
        int *pairs;
        long n;
        if (round) { /* the triangles on last round's flagged vertices */
            ep_closest_refit(&tm);
            for (int t = 0; t < m->nf; t++) {
                const int *f = &m->triangles[3 * t];
                near[t] = flag[f[0]] | flag[f[1]] | flag[f[2]];
            }
        }
        if ((st = ep_surfdist_intersections(m, &tm, round ? near : NULL, &pairs, &n)))
            goto out;
        *left = n;
        if (!n || round == EP_FIT_UNTANGLE) {
            free(pairs);
            break;
        }
        memset(flag, 0, (size_t)m->nv);
        for (long i = 0; i < 2 * n; i++)
            for (int k = 0; k < 3; k++)
                flag[m->triangles[3 * pairs[i] + k]] = ever[m->triangles[3 * pairs[i] + k]] = 1;
        free(pairs);
        memcpy(x, m->vertices, 3 * (size_t)m->nv * sizeof *x);
        for (int v = 0; v < m->nv; v++) {
            if (!flag[v])
                continue;
            double c[3] = {0, 0, 0};
            int cnt = 0;
            for (int i = start[v]; i < start[v + 1]; i++) { /* each neighbour twice: once per face */
                const int *f = &m->triangles[3 * vf[i]];
                for (int k = 0; k < 3; k++)
                    if (f[k] != v) {
                        for (int d = 0; d < 3; d++)
                            c[d] += x[3 * f[k] + d];
                        cnt++;
                    }
            }
            for (int d = 0; d < 3; d++)
                m->vertices[3 * v + d] = (1 - UNTANGLE_STEP) * x[3 * v + d] + UNTANGLE_STEP * c[d] / cnt;
        }
    }
    *moved = 0;
    for (int v = 0; v < m->nv; v++)
        *moved += ever[v];
    st = ep_mesh_derive_boundary_data(m);
out:
    ep_closest_free(&tm);
    free(flag);
    free(ever);
    free(near);
    free(x);
    free(start);
    free(vf);
    return st;
}

/* ---- quality pass ---------------------------------------------------------- */

/* The surface around the vertices the quality pass moves: faces of each
 * vertex, unit face normals and their sums at the vertices
 * (ep_surfdist_unit_normals), kept current as vertices move. */
typedef struct {
    const int *start, *vf;
    double *fn, *vn;
    int *slot;        /* [nv] -1, or the place of a vertex of the tried vertex's ring in sum */
    double nn[64][3]; /* unit normals of the faces of the vertex being tried (degree <= 64) */
    double sum[65][3]; /* the normal sums at it (0) and its neighbours with those faces */
} around;

/* Unit normal of face t with vertex v at p. */
static void unit_normal_moved(const ep_mesh *m, int t, int v, const double *p, double *n)
{
    const int *f = &m->triangles[3 * t];
    const double *c[3];
    for (int k = 0; k < 3; k++)
        c[k] = f[k] == v ? p : &m->vertices[3 * f[k]];
    ep_vec3_normal(c[0], c[1], c[2], n);
    double l = ep_vec3_norm(n);
    for (int d = 0; d < 3; d++)
        n[d] = l > 0 ? n[d] / l : 0;
}

/* The neighbour of v that follows it in face f (each neighbour of a vertex
 * of a closed surface once over its faces). */
static int next_corner(const int *f, int v) { return f[0] == v ? f[1] : f[1] == v ? f[2] : f[0]; }

/* What moving vertex v to p leaves of the surface around it: minus the
 * number of folds (ep_surfdist_folds) among the triangles with a corner at
 * v (each counted degree(v) times) or at one of its neighbours (twice),
 * else the smallest angle, in degrees, of v's faces.  Fills A->nn and
 * A->sum.  Cost O(degree^2). */
static double local_quality(const ep_mesh *m, around *A, int v, const double *p)
{
    int s0 = A->start[v], deg = A->start[v + 1] - s0, folds = 0;
    double worst = 180;
    A->slot[v] = 0;
    memcpy(A->sum[0], &A->vn[3 * v], sizeof A->sum[0]);
    for (int i = 0; i < deg; i++) {
        int w = next_corner(&m->triangles[3 * A->vf[s0 + i]], v);
        A->slot[w] = i + 1;
        memcpy(A->sum[i + 1], &A->vn[3 * w], sizeof A->sum[0]);
    }
    for (int i = 0; i < deg; i++) { /* v's faces turned: their normals and the sums at their corners */
        int t = A->vf[s0 + i];
        const int *f = &m->triangles[3 * t];
        const double *c[3];
        unit_normal_moved(m, t, v, p, A->nn[i]);
        for (int k = 0; k < 3; k++) {
            c[k] = f[k] == v ? p : &m->vertices[3 * f[k]];
            for (int d = 0; d < 3; d++)
                A->sum[A->slot[f[k]]][d] += A->nn[i][d] - A->fn[3 * t + d];
        }
        worst = fmin(worst, ep_surfdist_min_angle(c[0], c[1], c[2]));
    }
    for (int i = 0; i <= deg; i++) { /* every face at v's neighbours, then at v */
        int u = i < deg ? next_corner(&m->triangles[3 * A->vf[s0 + i]], v) : v, fu = 0;
        for (int j = A->start[u]; j < A->start[u + 1]; j++) {
            const int *h = &m->triangles[3 * A->vf[j]];
            const double *n = &A->fn[3 * A->vf[j]], *c[3];
            for (int q = 0; q < deg && (h[0] == v || h[1] == v || h[2] == v); q++)
                if (A->vf[s0 + q] == A->vf[j]) {
                    n = A->nn[q];
                    break;
                }
            for (int k = 0; k < 3; k++)
                c[k] = A->slot[h[k]] >= 0 ? A->sum[A->slot[h[k]]] : &A->vn[3 * h[k]];
            fu += ep_surfdist_folded(n, c[0], c[1], c[2]);
        }
        folds += (i < deg ? 2 : deg) * fu;
    }
    A->slot[v] = -1;
    for (int i = 0; i < deg; i++)
        A->slot[next_corner(&m->triangles[3 * A->vf[s0 + i]], v)] = -1;
    return folds ? -folds : worst;
}

/* Where no single move helps (a fold of several vertices), the flagged
 * vertices and `rings` rings around them take one Gauss-Seidel step half
 * way to the centroid of their ring (off the reference: the patch flattens,
 * and the next rounds of settle put it back where they can).  flag: [nv] 1
 * on the flagged vertices (changed).  Cost O(nf rings + nv). */
static void smooth_patch(ep_mesh *m, const int *start, const int *vf, char *flag, char *ever, int rings)
{
    for (int g = 1; g <= rings; g++)
        for (int t = 0; t < m->nf; t++) {
            const int *f = &m->triangles[3 * t];
            if (flag[f[0]] == g || flag[f[1]] == g || flag[f[2]] == g)
                for (int k = 0; k < 3; k++)
                    flag[f[k]] = flag[f[k]] ? flag[f[k]] : (char)(g + 1);
        }
    for (int v = 0; v < m->nv; v++) { /* Gauss-Seidel order: in place */
        if (!flag[v])
            continue;
        double c[3] = {0, 0, 0};
        int deg = start[v + 1] - start[v];
        for (int i = start[v]; i < start[v + 1]; i++) {
            const int *f = &m->triangles[3 * vf[i]];
            int k = f[0] == v ? 0 : f[1] == v ? 1 : 2;
            for (int d = 0; d < 3; d++)
                c[d] += (m->vertices[3 * f[(k + 1) % 3] + d] + m->vertices[3 * f[(k + 2) % 3] + d]) / (2 * deg);
        }
        for (int d = 0; d < 3; d++)
            m->vertices[3 * v + d] = 0.5 * (m->vertices[3 * v + d] + c[d]);
        ever[v] = 1;
    }
}

/* How far moving vertex v to p takes the surface from where it was before
 * the pass: the largest distance from x0[u], u being v or one of its
 * neighbours, to the faces around v's neighbours (v's own among them, v at
 * p).  Where nothing moved it is 0 for a vertex that was on its faces.
 * Cost O(degree^3). */
static double uncovered(const ep_mesh *m, const around *A, int v, const double *p, const double *x0)
{
    double worst = 0;
    for (int i = A->start[v]; i <= A->start[v + 1]; i++) {
        int u = i < A->start[v + 1] ? next_corner(&m->triangles[3 * A->vf[i]], v) : v;
        double best = INFINITY;
        for (int i2 = A->start[v]; i2 < A->start[v + 1] && best > 0; i2++) {
            int w = next_corner(&m->triangles[3 * A->vf[i2]], v);
            for (int j = A->start[w]; j < A->start[w + 1]; j++) {
                const int *g = &m->triangles[3 * A->vf[j]];
                const double *c[3];
                double q[3];
                for (int h = 0; h < 3; h++)
                    c[h] = g[h] == v ? p : &m->vertices[3 * g[h]];
                ep_closest_on_triangle(&x0[3 * u], c[0], c[1], c[2], q);
                best = fmin(best, ep_vec3_dist2(q, &x0[3 * u]));
            }
        }
        worst = fmax(worst, best);
    }
    return sqrt(worst);
}

/* Move the corners of folded triangles (ep_surfdist_folds) and of
 * triangles with an angle under EP_FIT_AIM_ANGLE, one vertex at a time
 * (Gauss-Seidel), each to the best of its candidate places: the centroid c
 * of its ring projected onto the reference (the closest point facing the
 * ring's normal), c moved into the vertex's tangent plane, c itself, a
 * half and a quarter of the way to each; a half, a quarter and an eighth of
 * its mean edge towards each neighbour and both ways along the ring's
 * normal.  A candidate counts only if it leaves the surface around v within
 * v's bound of where it was before the pass (uncovered, x0): the bound
 * starts at tol and doubles for the corners of what is still bad whenever
 * a round moves nothing, so the surface gives way only where it must, and
 * only as far.  The nearest candidate that leaves no fold around the vertex
 * and reaches the aim is taken; else the one with the fewest folds, then
 * the largest smallest angle of its faces, if better than where it is.
 * When nothing moves with every bound past the diagonal, the patch around
 * the bad triangles is smoothed (smooth_patch: the corners, then one ring,
 * then two; at most EP_FIT_SETTLE_SMOOTH times).  Rounds until no triangle
 * is bad or EP_FIT_SETTLE rounds.  ever[v] set for each vertex moved.
 * Cost per round O(nf + nv) plus O(degree^3) per candidate of a flagged
 * vertex. */
static int settle(ep_mesh *m, const ep_closest *ref, char *ever, const double *x0, double tol, double diag)
{
    int *start = NULL, *vf = NULL, st = EP_ECOMPUTE;
    char *flag = ep_malloc((size_t)m->nv + 1, 1);
    char *idle = ep_calloc((size_t)m->nv + 1, 1); /* tried, and nothing near it changed since */
    double *bound = ep_malloc((size_t)m->nv + 1, sizeof *bound);
    around A = {0};
    A.slot = ep_malloc((size_t)m->nv + 1, sizeof *A.slot);
    A.fn = ep_malloc(3 * (size_t)m->nf + 1, sizeof *A.fn);
    A.vn = ep_malloc(3 * (size_t)m->nv + 1, sizeof *A.vn);
    if (!flag || !idle || !bound || !A.slot || !A.fn || !A.vn || vertex_faces(m, &start, &vf))
        goto out;
    A.start = start, A.vf = vf;
    for (int v = 0; v < m->nv; v++)
        bound[v] = tol, A.slot[v] = -1;
    for (int round = 0, smoothed = 0; round < EP_FIT_SETTLE; round++) {
        int any = 0, moved = 0;
        ep_surfdist_unit_normals(m, A.fn, A.vn);
        memset(flag, 0, (size_t)m->nv);
        for (int t = 0; t < m->nf; t++) {
            const int *f = &m->triangles[3 * t];
            if (!ep_surfdist_folded(&A.fn[3 * t], &A.vn[3 * f[0]], &A.vn[3 * f[1]], &A.vn[3 * f[2]]) &&
                ep_surfdist_min_angle(&m->vertices[3 * f[0]], &m->vertices[3 * f[1]], &m->vertices[3 * f[2]]) >=
                    EP_FIT_AIM_ANGLE)
                continue;
            flag[f[0]] = flag[f[1]] = flag[f[2]] = 1;
            any = 1;
        }
        for (int v = 0; v < m->nv && any; v++) {
            int deg = start[v + 1] - start[v];
            if (!flag[v] || idle[v] || deg > 64)
                continue;
            double *x = &m->vertices[3 * v], c[3] = {0, 0, 0}, n[3] = {0, 0, 0}, cand[9 + 3 * (64 + 2)][3];
            int nc = 0, tri;
            for (int i = start[v]; i < start[v + 1]; i++) { /* each neighbour twice: once per face */
                const int *f = &m->triangles[3 * vf[i]];
                int k = f[0] == v ? 0 : f[1] == v ? 1 : 2;
                const double *a = &m->vertices[3 * f[(k + 1) % 3]], *b = &m->vertices[3 * f[(k + 2) % 3]];
                double ab[3];
                ep_vec3_cross(a, b, ab); /* the ring's vector area: independent of x */
                for (int d = 0; d < 3; d++) {
                    c[d] += (a[d] + b[d]) / (2 * deg);
                    n[d] += ab[d];
                }
            }
            double ln = ep_vec3_norm(n), e[3], q[3], d2, reach = 0;
            for (int d = 0; d < 3; d++)
                n[d] = ln > 0 ? n[d] / ln : 0;
            for (int i = start[v]; i < start[v + 1]; i++) { /* mean edge length at v */
                const int *f = &m->triangles[3 * vf[i]];
                int k = f[0] == v ? 0 : f[1] == v ? 1 : 2;
                reach += sqrt(ep_vec3_dist2(x, &m->vertices[3 * f[(k + 1) % 3]])) / deg;
            }
            ep_vec3_sub(c, x, e);
            double en = ep_vec3_dot(e, n);
            ep_closest_query_facing(ref, c, n, q, &tri, &d2);
            if (tri >= 0 && ep_vec3_dist2(q, x) > reach * reach)
                tri = -1; /* a facing point farther than an edge: another part of the scan */
            if (tri >= 0)
                memcpy(cand[nc++], q, sizeof q);
            for (int d = 0; d < 3; d++)
                cand[nc][d] = x[d] + e[d] - en * n[d];
            nc++;
            memcpy(cand[nc++], c, sizeof c);
            for (int i = 0, full = nc; i < full; i++) /* half and a quarter of the way to each */
                for (int j = 1; j <= 2; j++, nc++)
                    for (int d = 0; d < 3; d++)
                        cand[nc][d] = x[d] + (cand[i][d] - x[d]) / (2 * j);
            for (int i = start[v]; i < start[v + 1] + 2; i++) { /* steps to each neighbour, along +-n */
                double dir[3];
                if (i < start[v + 1]) {
                    ep_vec3_sub(&m->vertices[3 * next_corner(&m->triangles[3 * vf[i]], v)], x, dir);
                    double l = ep_vec3_norm(dir);
                    for (int d = 0; d < 3; d++)
                        dir[d] *= l > 0 ? reach / l : 0;
                } else
                    for (int d = 0; d < 3; d++)
                        dir[d] = (i == start[v + 1] ? reach : -reach) * n[d];
                for (int j = 2; j <= 8; j *= 2, nc++)
                    for (int d = 0; d < 3; d++)
                        cand[nc][d] = x[d] + dir[d] / j;
            }
            double best = local_quality(m, &A, v, x), nearest = INFINITY;
            int pick = -1, good = -1;
            for (int i = 0; i < nc; i++) {
                double qi = local_quality(m, &A, v, cand[i]), di = ep_vec3_dist2(x, cand[i]);
                int nearer = qi >= EP_FIT_AIM_ANGLE && di < nearest; /* the nearest that is good */
                if ((!nearer && qi <= best) || uncovered(m, &A, v, cand[i], x0) > bound[v])
                    continue;
                if (nearer)
                    nearest = di, good = i;
                if (qi > best)
                    best = qi, pick = i;
            }
            pick = good >= 0 ? good : pick;
            idle[v] = pick < 0;
            if (pick < 0)
                continue;
            local_quality(m, &A, v, cand[pick]); /* A.nn for the place taken */
            for (int i = 0; i < deg; i++) { /* the sums at v and its neighbours, then the faces */
                const int *f = &m->triangles[3 * vf[start[v] + i]];
                for (int k = 0; k < 3; k++)
                    for (int d = 0; d < 3; d++)
                        A.vn[3 * f[k] + d] += A.nn[i][d] - A.fn[3 * vf[start[v] + i] + d];
            }
            for (int i = 0; i < deg; i++)
                memcpy(&A.fn[3 * vf[start[v] + i]], A.nn[i], sizeof A.nn[i]);
            memcpy(x, cand[pick], sizeof cand[pick]);
            for (int i = start[v]; i < start[v + 1]; i++) /* what v's place changes: wake them */
                for (int j = start[next_corner(&m->triangles[3 * vf[i]], v)]; j < start[next_corner(&m->triangles[3 * vf[i]], v) + 1]; j++)
                    for (int k = 0; k < 3; k++)
                        idle[m->triangles[3 * vf[j] + k]] = 0;
            ever[v] = 1;
            moved++;
        }
        if (!any)
            break;
        if (!moved) { /* stuck: relax the bounds of the stuck corners, or smooth their patch */
            int relaxed = 0;
            for (int v = 0; v < m->nv; v++)
                if (flag[v] && bound[v] <= diag) {
                    bound[v] *= 2;
                    idle[v] = 0;
                    relaxed = 1;
                }
            if (relaxed)
                continue;
            if (smoothed == EP_FIT_SETTLE_SMOOTH)
                break;
            smooth_patch(m, start, vf, flag, ever, smoothed < 2 ? smoothed : 2);
            memset(idle, 0, (size_t)m->nv);
            smoothed++;
        }
    }
    st = ep_mesh_derive_boundary_data(m);
out:
    free(flag);
    free(idle);
    free(bound);
    free(A.slot);
    free(A.fn);
    free(A.vn);
    free(start);
    free(vf);
    return st;
}

int ep_fit_levels(ep_mesh *m, int levels, const ep_mesh *ref, const ep_closest *tref, ep_fit_report *r)
{
    double *even = NULL, *x0 = NULL, *rn = ep_malloc(3 * (size_t)ref->nv, sizeof *rn);
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, diag;
    char *ever = NULL;
    cholmod_common c;
    int st = EP_OK;
    fitctx fc = {ref, tref, rn, EP_FIT_SPRING};
    if (!rn)
        return EP_ECOMPUTE;
    vertex_normals(ref, rn);
    for (int v = 0; v < ref->nv; v++)
        for (int d = 0; d < 3; d++)
            lo[d] = fmin(lo[d], ref->vertices[3 * v + d]), hi[d] = fmax(hi[d], ref->vertices[3 * v + d]);
    diag = sqrt(ep_vec3_dist2(lo, hi));
    ep_chol_start(&c);
    for (int l = 0; l <= levels; l++) {
        int nv = m->nv;
        if (l > 0) {
            /* Odd vertices start from Loop's edge rule on the fitted level;
             * even vertices from where the level before put them. */
            if ((st = ep_grow(&even, 3 * (size_t)nv, sizeof *even)))
                break;
            memcpy(even, m->vertices, 3 * (size_t)nv * sizeof *even);
            if ((st = ep_subdiv_refine(m, EP_SUBDIV_LOOP, NULL)))
                break;
            memcpy(m->vertices, even, 3 * (size_t)nv * sizeof *even);
        }
        pattern pat;
        st = pattern_build(&pat, m, &c);
        for (int it = 0; it < EP_FIT_STEPS && !st; it++)
            st = fit_step(m, &fc, &pat, &c);
        pattern_free(&pat, &c);
        if (st)
            break;
        ep_fit_report rr = {0};
        long moved = 0, left = 0;
        if ((st = ep_fit_project(m, tref, l == levels ? r : &rr)))
            break;
        /* Settle, then untangle what crosses; again while untangling moves
         * vertices (its smoothing can leave a thin triangle).  Settling is
         * bounded by where the projection put the vertices (x0). */
        if ((st = ep_grow(&ever, (size_t)m->nv, 1)) || (st = ep_grow(&x0, 3 * (size_t)m->nv, sizeof *x0)))
            break;
        memset(ever, 0, (size_t)m->nv);
        memcpy(x0, m->vertices, 3 * (size_t)m->nv * sizeof *x0);
        for (int pass = 0; pass < 3 && !st; pass++)
            if ((l < levels || !(st = settle(m, tref, ever, x0, EP_FIT_SETTLE_TOL * diag, diag))) &&
                !(st = untangle(m, &moved, &left)) && !moved)
                break;
        if (st)
            break;
        if (l == levels) {
            r->untangled = moved, r->crossing = left;
            for (int v = 0; v < m->nv; v++)
                r->settled += ever[v];
        }
    }
    if (!st && !(st = ep_surfdist_folds(m, NULL, &r->folded))) {
        r->thin = 0;
        for (int t = 0; t < m->nf; t++) {
            const int *f = &m->triangles[3 * t];
            r->thin += ep_surfdist_min_angle(&m->vertices[3 * f[0]], &m->vertices[3 * f[1]], &m->vertices[3 * f[2]]) <
                       EP_SURFDIST_MIN_ANGLE;
        }
        if (r->folded || r->thin)
            st = ep_fail(EP_ECOMPUTE, "%s: the fitted surface keeps %d folded triangle%s and %ld with an angle under "
                         "%g degrees (a BEM and TetGen need neither); a base of another size may fit",
                         ref->source, r->folded, r->folded == 1 ? "" : "s", r->thin, EP_SURFDIST_MIN_ANGLE);
    }
    cholmod_finish(&c);
    free(even);
    free(x0);
    free(ever);
    free(rn);
    return st;
}
