/*
 * repair.c — surface clean-up (repair.h).
 *
 * The surface is worked on in copies (rep[] for welding, a face array with
 * an alive flag) and written back to the mesh only when every check passed,
 * so a refusal leaves the mesh as it was read.
 */
#include "repair.h"
#include "closest.h"
#include "err.h"
#include "halfedge.h"
#include "vec3.h"
#include "sort.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ep_repair_report_init(ep_repair_report *r) { memset(r, 0, sizeof *r); }

void ep_repair_report_free(ep_repair_report *r)
{
    free(r->log);
    memset(r, 0, sizeof *r);
}

/* Append one line to the change log; a log that cannot grow is cut short
 * (the counts stay exact). */
__attribute__((format(printf, 2, 3))) static void note(ep_repair_report *r, const char *fmt, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n > sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    if (r->len + (size_t)n + 1 > r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 4096;
        while (cap < r->len + (size_t)n + 1)
            cap *= 2;
        char *p = realloc(r->log, cap);
        if (!p)
            return;
        r->log = p;
        r->cap = cap;
    }
    memcpy(r->log + r->len, line, (size_t)n);
    r->len += (size_t)n;
    r->log[r->len] = 0;
}

/* ---- working state ---------------------------------------------------------- */

typedef struct {
    const ep_mesh *m;
    const double *x; /* m->vertices */
    int nv, nf;
    int *rep;      /* [nv] weld representative (smallest coincident id) */
    int *f;        /* [nf][3] faces over representatives */
    char *alive;   /* [nf] */
    double h;      /* bounding-box diagonal */
} work;

/* The half-edges of the live faces (keep: NULL for all of them; else a
 * subset of them), sorted so that the sides of one edge are adjacent.
 * NULL on failure. */
static ep_halfedge *edge_table(const work *w, const char *keep, size_t *n)
{
    ep_halfedge *h;
    return ep_halfedge_table(w->f, w->nf, keep ? keep : w->alive, &h, n) ? NULL : h;
}

static double face_area2(const work *w, int t)
{
    double n[3];
    ep_vec3_normal(&w->x[3 * w->f[3 * t]], &w->x[3 * w->f[3 * t + 1]], &w->x[3 * w->f[3 * t + 2]], n);
    return 0.25 * ep_vec3_dot(n, n);
}

/* ---- welding ------------------------------------------------------------------ */

static int uf_find(int *p, int a)
{
    while (p[a] != a) {
        p[a] = p[p[a]];
        a = p[a];
    }
    return a;
}

/* Union keeping the smaller id as root, so the representative of a class is
 * its first vertex in file order. */
static void uf_union(int *p, int a, int b)
{
    a = uf_find(p, a);
    b = uf_find(p, b);
    if (a < b)
        p[b] = a;
    else if (b < a)
        p[a] = b;
}

static const double *sort_x;

static int cmp_x(const void *a, const void *b)
{
    double p = sort_x[3 * *(const int *)a], q = sort_x[3 * *(const int *)b];
    return (p > q) - (p < q);
}

/* Vertices within tol of each other (Euclidean) join one class: sorted by x,
 * each vertex meets only those within tol in x.  Cost O(nv log nv) plus the
 * window (a few vertices on a scan; every vertex of a plane perpendicular to
 * x in the worst case). */
static int weld(work *w, double tol, ep_repair_report *r)
{
    int *order = ep_malloc((size_t)w->nv, sizeof *order);
    if (!order)
        return EP_ECOMPUTE;
    for (int v = 0; v < w->nv; v++) {
        order[v] = v;
        w->rep[v] = v;
    }
    sort_x = w->x; /* qsort has no context argument; the sort is not reentered */
    qsort(order, (size_t)w->nv, sizeof *order, cmp_x);
    double t2 = tol * tol;
    for (int i = 0; i < w->nv; i++) {
        const double *p = &w->x[3 * order[i]];
        for (int j = i + 1; j < w->nv && w->x[3 * order[j]] - p[0] <= tol; j++) {
            const double *q = &w->x[3 * order[j]];
            double d2 = (q[0] - p[0]) * (q[0] - p[0]) + (q[1] - p[1]) * (q[1] - p[1]) + (q[2] - p[2]) * (q[2] - p[2]);
            if (d2 <= t2)
                uf_union(w->rep, order[i], order[j]);
        }
    }
    free(order);
    for (int v = 0; v < w->nv; v++) {
        w->rep[v] = uf_find(w->rep, v);
        if (w->rep[v] != v) {
            r->welded++;
            note(r, "welded vertex %d into vertex %d", v + 1, w->rep[v] + 1);
        }
    }
    return EP_OK;
}

/* ---- duplicated faces and fins ------------------------------------------------ */

static int cmp_tri_key(const void *x, const void *y)
{
    const int *a = x, *b = y; /* [sorted a0 a1 a2, face] */
    for (int k = 0; k < 4; k++)
        if (a[k] != b[k])
            return (a[k] > b[k]) - (a[k] < b[k]);
    return 0;
}

static void sort3(int *v)
{
    int t;
    if (v[0] > v[1]) { t = v[0]; v[0] = v[1]; v[1] = t; }
    if (v[1] > v[2]) { t = v[1]; v[1] = v[2]; v[2] = t; }
    if (v[0] > v[1]) { t = v[0]; v[0] = v[1]; v[1] = t; }
}

/* Faces with the same three vertices.  A face stored k times keeps one copy
 * when each of its edges has exactly one other face; when each has zero or
 * two others, the copies (a face and its reverse: they enclose nothing) are
 * a fin and all go.  Any other case keeps one copy and is left to the
 * manifold check. */
static int drop_duplicates(work *w, ep_repair_report *r)
{
    int st = EP_ECOMPUTE, *key = ep_malloc(4 * (size_t)w->nf, sizeof *key);
    char *lead = ep_calloc((size_t)w->nf, 1);
    ep_halfedge *h = NULL;
    size_t nh, ng = 0;
    if (!key || !lead)
        goto out;
    for (int t = 0; t < w->nf; t++)
        if (w->alive[t]) {
            memcpy(&key[4 * ng], &w->f[3 * t], 3 * sizeof *key);
            sort3(&key[4 * ng]);
            key[4 * ng++ + 3] = t;
        }
    qsort(key, ng, 4 * sizeof *key, cmp_tri_key);
    for (size_t i = 0; i < ng; i++)
        lead[key[4 * i + 3]] = i == 0 || memcmp(&key[4 * i], &key[4 * (i - 1)], 3 * sizeof *key) != 0;
    /* Faces per edge, counting each vertex triple once. */
    if (!(h = edge_table(w, lead, &nh)))
        goto out;
    for (size_t i = 0; i < ng;) {
        size_t j = i + 1;
        while (j < ng && !memcmp(&key[4 * i], &key[4 * j], 3 * sizeof *key))
            j++;
        if (j - i > 1) {
            int t0 = key[4 * i + 3], others[3];
            for (int k = 0; k < 3; k++) {
                size_t lo = ep_halfedge_find(h, nh, w->f[3 * t0 + k], w->f[3 * t0 + (k + 1) % 3]);
                others[k] = lo < nh ? (int)(ep_halfedge_run_end(h, nh, lo) - lo) - 1 : 0;
            }
            int fin = 1, extra = 1;
            for (int k = 0; k < 3; k++) {
                fin &= others[k] == 0 || others[k] == 2;
                extra &= others[k] == 1;
            }
            fin &= !extra;
            for (size_t c = fin ? i : i + 1; c < j; c++) {
                int t = key[4 * c + 3];
                w->alive[t] = 0;
                if (fin) {
                    r->fins++;
                    note(r, "dropped face %d: a fin (%zu faces on vertices %d %d %d enclose nothing)", t + 1,
                         j - i, key[4 * i] + 1, key[4 * i + 1] + 1, key[4 * i + 2] + 1);
                } else {
                    r->duplicate++;
                    note(r, "dropped face %d: a copy of face %d", t + 1, t0 + 1);
                }
            }
        }
        i = j;
    }
    st = EP_OK;
out:
    free(key);
    free(lead);
    free(h);
    return st;
}

/* ---- zero-area faces ---------------------------------------------------------- */

/* A zero-area face with three distinct vertices has one vertex c on its
 * longest side (p q).  Splitting the face across (p q) at c into two and
 * dropping the cap keeps the surface closed and its shape unchanged. */
static int split_caps(work *w, ep_repair_report *r)
{
    double tiny = EP_REPAIR_ZERO_AREA * w->h * w->h;
    for (int pass = 0; pass < 8; pass++) {
        size_t nh;
        int changed = 0;
        ep_halfedge *h = edge_table(w, NULL, &nh);
        char *touched = ep_calloc((size_t)w->nf, 1);
        if (!h || !touched) {
            free(h);
            free(touched);
            return EP_ECOMPUTE;
        }
        for (int t = 0; t < w->nf; t++) {
            if (!w->alive[t] || touched[t] || !(sqrt(face_area2(w, t)) <= tiny))
                continue;
            int kl = 0; /* longest side */
            double best = -1;
            for (int k = 0; k < 3; k++) {
                const double *a = &w->x[3 * w->f[3 * t + k]], *b = &w->x[3 * w->f[3 * t + (k + 1) % 3]];
                double d = (a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]);
                if (d > best) {
                    best = d;
                    kl = k;
                }
            }
            int p = w->f[3 * t + kl], q = w->f[3 * t + (kl + 1) % 3], c = w->f[3 * t + (kl + 2) % 3];
            size_t lo = ep_halfedge_find(h, nh, p, q);
            if (lo == nh || ep_halfedge_run_end(h, nh, lo) - lo != 2)
                continue; /* not a manifold edge: the checks below name it */
            const ep_halfedge *o = h[lo].t == t ? &h[lo + 1] : &h[lo];
            int n = o->t, *nf = &w->f[3 * n];
            if (touched[n] || !w->alive[n] || sqrt(face_area2(w, n)) <= tiny)
                continue; /* a chain of caps: the next pass */
            int u = nf[o->k], v = nf[(o->k + 1) % 3], d = nf[(o->k + 2) % 3];
            if (d == c)
                continue;
            nf[0] = u, nf[1] = c, nf[2] = d;      /* the neighbour's own orientation */
            w->f[3 * t] = c, w->f[3 * t + 1] = v; /* the cap's slot takes the other half */
            w->f[3 * t + 2] = d;
            touched[t] = touched[n] = 1;
            changed = 1;
            r->caps++;
            note(r, "removed face %d: zero area, vertex %d on edge (%d %d); face %d split there", t + 1, c + 1,
                 (p < q ? p : q) + 1, (p < q ? q : p) + 1, n + 1);
        }
        free(h);
        free(touched);
        if (!changed)
            break;
    }
    for (int t = 0; t < w->nf; t++)
        if (w->alive[t] && !(sqrt(face_area2(w, t)) > tiny))
            return ep_fail(EP_EINPUT, "%s: face %d has zero area and no neighbour to absorb it", w->m->source, t + 1);
    return EP_OK;
}

/* ---- manifold checks and orientation ------------------------------------------ */

/* Every edge with two faces; no vertex where two sheets touch.  Fills
 * adj[3t+k] with the face across side k of face t. */
static int check_manifold(const work *w, const ep_halfedge *h, size_t nh, int *adj)
{
    size_t nopen = 0, first_open = 0;
    for (size_t i = 0; i < nh;) {
        size_t j = ep_halfedge_run_end(h, nh, i);
        if (j - i > 2)
            return ep_fail(EP_EINPUT, "%s: non-manifold surface: edge (%d %d) has %zu faces", w->m->source,
                           h[i].lo + 1, h[i].hi + 1, j - i);
        if (j - i == 1) {
            if (nopen++ == 0)
                first_open = i;
        } else {
            adj[3 * h[i].t + h[i].k] = h[i + 1].t;
            adj[3 * h[i + 1].t + h[i + 1].k] = h[i].t;
        }
        i = j;
    }
    if (nopen)
        return ep_fail(EP_EINPUT, "%s: open surface: %zu boundary edges (first: edge (%d %d) of face %d); "
                       "a closed surface is required", w->m->source, nopen, h[first_open].lo + 1,
                       h[first_open].hi + 1, h[first_open].t + 1);
    /* Corners of one vertex in faces across an edge through it are joined;
     * a manifold vertex has one class (one fan). */
    int st = EP_OK, *p = ep_malloc(3 * (size_t)w->nf, sizeof *p), *first = ep_malloc((size_t)w->nv, sizeof *first);
    if (!p || !first) {
        free(p);
        free(first);
        return EP_ECOMPUTE;
    }
    for (size_t c = 0; c < 3 * (size_t)w->nf; c++)
        p[c] = (int)c;
    for (size_t i = 0; i + 1 < nh; i += 2) {
        const ep_halfedge *a = &h[i], *b = &h[i + 1];
        for (int s = 0; s < 3; s++) /* corners of lo and hi in both faces */
            for (int u = 0; u < 3; u++)
                if (w->f[3 * a->t + s] == w->f[3 * b->t + u] && (w->f[3 * a->t + s] == a->lo || w->f[3 * a->t + s] == a->hi))
                    uf_union(p, 3 * a->t + s, 3 * b->t + u);
    }
    for (int v = 0; v < w->nv; v++)
        first[v] = -1;
    for (int t = 0; t < w->nf && !st; t++)
        for (int k = 0; k < 3 && w->alive[t] && !st; k++) {
            int v = w->f[3 * t + k], root = uf_find(p, 3 * t + k);
            if (first[v] < 0)
                first[v] = root;
            else if (first[v] != root)
                st = ep_fail(EP_EINPUT, "%s: non-manifold vertex %d: separate sheets of the surface meet there",
                             w->m->source, v + 1);
        }
    free(p);
    free(first);
    return st;
}

/* 1 when the ray o + s d, s > 0, crosses triangle (a b c): a segment
 * longer than the model (len) stands for the ray. */
static int ray_crosses(const double *o, const double *d, double len, const double *a, const double *b, const double *c)
{
    double e[3], t;
    for (int k = 0; k < 3; k++)
        e[k] = o[k] + len * d[k];
    return ep_closest_segment_hit(o, e, a, b, c, &t) && t > 0;
}

/* Orient each part consistently (a breadth-first walk across edges, each
 * neighbour taking the orientation that runs the shared edge the other
 * way), then outward: positive enclosed volume, or negative for a part inside
 * an odd number of others (a cavity's wall faces into the cavity). */
static int orient(work *w, const int *adj, ep_repair_report *r)
{
    int st = EP_ECOMPUTE, *part = ep_malloc((size_t)w->nf, sizeof *part);
    int *queue = ep_malloc((size_t)w->nf, sizeof *queue), *seed = NULL;
    char *flip = ep_calloc((size_t)w->nf, 1);
    double *vol = NULL;
    int np = 0;
    if (!part || !queue || !flip)
        goto out;
    for (int t = 0; t < w->nf; t++)
        part[t] = -1;
    for (int s = 0; s < w->nf; s++) {
        if (!w->alive[s] || part[s] >= 0)
            continue;
        if (ep_grow(&seed, (size_t)np + 1, sizeof *seed))
            goto out;
        seed[np] = s;
        int head = 0, tail = 0;
        part[s] = np;
        queue[tail++] = s;
        while (head < tail) {
            int t = queue[head++];
            for (int k = 0; k < 3; k++) {
                int n = adj[3 * t + k], a = w->f[3 * t + k], b = w->f[3 * t + (k + 1) % 3], same = 0;
                for (int j = 0; j < 3; j++) /* n runs a -> b too: opposite orientation */
                    same |= w->f[3 * n + j] == a && w->f[3 * n + (j + 1) % 3] == b;
                int want = flip[t] ^ same;
                if (part[n] < 0) {
                    part[n] = np;
                    flip[n] = (char)want;
                    queue[tail++] = n;
                } else if (flip[n] != want) {
                    st = ep_fail(EP_EINPUT, "%s: non-orientable surface (a Moebius band or Klein bottle) "
                                 "through faces %d and %d", w->m->source, t + 1, n + 1);
                    goto out;
                }
            }
        }
        np++;
    }
    if (!(vol = ep_calloc((size_t)np, sizeof *vol)))
        goto out;
    for (int t = 0; t < w->nf; t++) {
        if (!w->alive[t])
            continue;
        const double *o = &w->x[3 * w->f[3 * seed[part[t]]]]; /* origin near the part: less cancellation */
        double a[3], b[3], c[3];
        for (int k = 0; k < 3; k++) {
            a[k] = w->x[3 * w->f[3 * t] + k] - o[k];
            b[k] = w->x[3 * w->f[3 * t + 1] + k] - o[k];
            c[k] = w->x[3 * w->f[3 * t + 2] + k] - o[k];
        }
        double det = a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
        vol[part[t]] += (flip[t] ? -det : det) / 6;
    }
    for (int p = 0; p < np; p++) {
        int depth = 0;
        if (np > 1) { /* crossings of a ray from this part with the others */
            const int *f0 = &w->f[3 * seed[p]];
            double o[3], d[3] = {0.5773, 0.5791, 0.5755};
            for (int k = 0; k < 3; k++)
                o[k] = (w->x[3 * f0[0] + k] + w->x[3 * f0[1] + k] + w->x[3 * f0[2] + k]) / 3;
            for (int t = 0; t < w->nf; t++)
                if (w->alive[t] && part[t] != p)
                    depth += ray_crosses(o, d, 4 * w->h, &w->x[3 * w->f[3 * t]], &w->x[3 * w->f[3 * t + 1]], &w->x[3 * w->f[3 * t + 2]]);
        }
        if ((vol[p] < 0) != (depth % 2 == 1))
            for (int t = 0; t < w->nf; t++)
                if (part[t] == p)
                    flip[t] ^= 1;
    }
    int before = r->flipped;
    for (int t = 0; t < w->nf; t++)
        if (w->alive[t] && flip[t]) {
            int s = w->f[3 * t + 1];
            w->f[3 * t + 1] = w->f[3 * t + 2];
            w->f[3 * t + 2] = s;
            r->flipped++;
        }
    if (r->flipped > before)
        note(r, "reversed %d faces to orient %d part%s outward", r->flipped - before, np, np == 1 ? "" : "s");
    r->parts = np;
    st = EP_OK;
out:
    free(part);
    free(queue);
    free(seed);
    free(flip);
    free(vol);
    return st;
}

/* ---- write back ------------------------------------------------------------- */

/* Map a sorted id list through newid (dropping -1), sorted and unique. */
static void remap_ids(int *v, int *n, const int *rep, const int *newid)
{
    int k = 0;
    for (int i = 0; i < *n; i++)
        if (newid[rep[v[i]]] >= 0)
            v[k++] = newid[rep[v[i]]];
    ep_sort_ints(v, (size_t)k);
    int u = 0;
    for (int i = 0; i < k; i++)
        if (u == 0 || v[i] != v[u - 1])
            v[u++] = v[i];
    *n = u;
}

static int commit(ep_mesh *m, work *w, ep_repair_report *r)
{
    int *newid = ep_malloc((size_t)w->nv, sizeof *newid), nt = 0, nv = 0;
    if (!newid)
        return EP_ECOMPUTE;
    for (int v = 0; v < w->nv; v++)
        newid[v] = -1;
    for (int t = 0; t < w->nf; t++)
        for (int k = 0; k < 3 && w->alive[t]; k++)
            newid[w->f[3 * t + k]] = 0;
    for (int v = 0; v < w->nv; v++) {
        if (newid[v] == 0) {
            newid[v] = nv;
            memmove(&m->vertices[3 * nv], &m->vertices[3 * v], 3 * sizeof *m->vertices);
            nv++;
        } else if (w->rep[v] == v) {
            r->unused++;
            note(r, "dropped vertex %d: on no face", v + 1);
        }
    }
    for (int t = 0; t < w->nf; t++)
        if (w->alive[t]) {
            for (int k = 0; k < 3; k++)
                m->triangles[3 * nt + k] = newid[w->f[3 * t + k]];
            nt++;
        }
    for (int g = 0; g < m->ngroups; g++)
        remap_ids(m->groups[g].v, &m->groups[g].nv, w->rep, newid);
    if (m->fixed)
        remap_ids(m->fixed, &m->nfixed, w->rep, newid);
    if (m->seam)
        remap_ids(m->seam, &m->nseam, w->rep, newid);
    m->nv = nv;
    m->nf = nt;
    free(newid);
    return ep_mesh_derive_boundary_data(m);
}

int ep_repair_surface(ep_mesh *m, double weld_tol, ep_repair_report *r)
{
    work w = {m, m->vertices, m->nv, m->nf, NULL, NULL, NULL, ep_mesh_diameter(m)};
    ep_repair_report trial;
    ep_halfedge *h = NULL;
    int *adj = NULL, st = EP_ECOMPUTE;
    size_t nh;
    if (m->tets || m->hexes)
        return ep_fail(EP_EUSAGE, "%s: surface repair applies to triangle surfaces, not volume meshes", m->source);
    if (m->nf == 0)
        return ep_fail(EP_EINPUT, "%s: no surface triangles", m->source);
    for (int t = 0; t < m->nf; t++)
        for (int k = 0; k < 3; k++) {
            int v = m->triangles[3 * t + k];
            if (v < 0 || v >= m->nv)
                return ep_fail(EP_EINPUT, "%s: face %d: vertex index %d out of range (1..%d)", m->source, t + 1,
                               v + 1, m->nv);
            const double *p = &m->vertices[3 * v];
            if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]))
                return ep_fail(EP_EINPUT, "%s: face %d: vertex %d has a non-finite coordinate", m->source, t + 1,
                               v + 1);
        }
    ep_repair_report_init(&trial);
    w.rep = ep_malloc((size_t)m->nv, sizeof *w.rep);
    w.f = ep_malloc(3 * (size_t)m->nf, sizeof *w.f);
    w.alive = ep_malloc((size_t)m->nf, 1);
    adj = ep_malloc(3 * (size_t)m->nf, sizeof *adj);
    if (!w.rep || !w.f || !w.alive || !adj)
        goto out;
    if ((st = weld(&w, weld_tol * w.h, &trial)))
        goto out;
    for (int t = 0; t < m->nf; t++) {
        int *f = &w.f[3 * t];
        for (int k = 0; k < 3; k++)
            f[k] = w.rep[m->triangles[3 * t + k]];
        w.alive[t] = f[0] != f[1] && f[1] != f[2] && f[0] != f[2];
        if (!w.alive[t]) {
            trial.degenerate++;
            note(&trial, "dropped face %d: it repeats vertex %d", t + 1, (f[0] == f[1] || f[0] == f[2] ? f[0] : f[1]) + 1);
        }
    }
    if ((st = drop_duplicates(&w, &trial)) || (st = split_caps(&w, &trial)))
        goto out;
    st = EP_ECOMPUTE;
    if (!(h = edge_table(&w, NULL, &nh)))
        goto out;
    if (nh == 0) {
        st = ep_fail(EP_EINPUT, "%s: no faces left after dropping degenerate and duplicated ones", m->source);
        goto out;
    }
    if ((st = check_manifold(&w, h, nh, adj)) || (st = orient(&w, adj, &trial)))
        goto out;
    if (m->level && (trial.welded || trial.degenerate || trial.duplicate || trial.fins || trial.caps ||
                     trial.flipped || m->nb < m->nv)) {
        st = ep_fail(EP_EINPUT, "%s: multiresolution surface needs repair (its hierarchy would be lost)",
                     m->source);
        goto out;
    }
    if ((st = commit(m, &w, &trial)))
        goto out;
    ep_repair_report_free(r);
    *r = trial;
    ep_repair_report_init(&trial);
out:
    ep_repair_report_free(&trial);
    free(w.rep);
    free(w.f);
    free(w.alive);
    free(adj);
    free(h);
    return st;
}

int ep_repair_closed_surface(ep_mesh *m, ep_repair_report *r)
{
    if (m->tets || m->hexes || m->level) /* a volume mesh's boundary, a hierarchy: checked, never renumbered */
        return ep_mesh_check_closed(m);
    return ep_repair_surface(m, EP_REPAIR_WELD_TOL, r);
}

void ep_repair_summary(const ep_repair_report *r, char *buf, size_t cap)
{
    const struct {
        int n;
        const char *one, *many;
    } item[] = {
        {r->welded, "welded %d vertex", "welded %d vertices"},
        {r->duplicate, "dropped %d duplicated face", "dropped %d duplicated faces"},
        {r->fins, "dropped %d fin face", "dropped %d fin faces"},
        {r->degenerate, "dropped %d face repeating a vertex", "dropped %d faces repeating a vertex"},
        {r->caps, "removed %d zero-area face", "removed %d zero-area faces"},
        {r->flipped, "reversed %d face", "reversed %d faces"},
        {r->unused, "dropped %d unused vertex", "dropped %d unused vertices"},
    };
    size_t len = 0;
    buf[0] = 0;
    for (size_t i = 0; i < sizeof item / sizeof *item; i++) {
        if (!item[i].n || len + 2 >= cap)
            continue;
        if (len)
            len += (size_t)snprintf(buf + len, cap - len, ", ");
        if (len < cap)
            len += (size_t)snprintf(buf + len, cap - len, item[i].n == 1 ? item[i].one : item[i].many, item[i].n);
    }
    if (!len)
        snprintf(buf, cap, "nothing to repair");
}
