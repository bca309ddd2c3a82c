/*
 * subdiv.c — Loop and linear 1-to-4 subdivision with level/parent records
 * (subdiv.h).
 */
#include "subdiv.h"
#include "err.h"
#include "halfedge.h"
#include "mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double ep_subdiv_loop_beta(int n)
{
    double c = 0.375 + 0.25 * cos(2.0 * M_PI / n);
    return (0.625 - c * c) / n;
}

int ep_subdiv_mark_base(ep_mesh *m)
{
    if (m->level)
        return EP_OK;
    m->level = ep_calloc((size_t)m->nv, sizeof *m->level);
    m->parents = ep_malloc(2 * (size_t)m->nv, sizeof *m->parents);
    if (!m->level || !m->parents) {
        free(m->level);
        free(m->parents);
        m->level = NULL;
        m->parents = NULL;
        return EP_ECOMPUTE;
    }
    for (int i = 0; i < 2 * m->nv; i++)
        m->parents[i] = -1;
    return EP_OK;
}

/* A new vertex joins a vertex group (physical group, set) when both its
 * parents belong to it, so a refined support patch stays the same patch.
 * Odd vertices are numbered after the old ones: lists stay ascending. */
static int extend_groups(ep_mesh *m, int nv, int ne, const int *ends)
{
    char *in = m->ngroups ? ep_malloc((size_t)nv, 1) : NULL;
    if (m->ngroups && !in)
        return EP_ECOMPUTE;
    for (int i = 0; i < m->ngroups; i++) {
        ep_group *g = &m->groups[i];
        int add = 0;
        memset(in, 0, (size_t)nv);
        for (int k = 0; k < g->nv; k++)
            in[g->v[k]] = 1;
        for (int e = 0; e < ne; e++)
            add += in[ends[2 * e]] && in[ends[2 * e + 1]];
        if (ep_grow(&g->v, (size_t)(g->nv + add), sizeof *g->v)) {
            free(in);
            return EP_ECOMPUTE;
        }
        for (int e = 0; e < ne; e++)
            if (in[ends[2 * e]] && in[ends[2 * e + 1]])
                g->v[g->nv++] = nv + e;
    }
    free(in);
    return EP_OK;
}

int ep_subdiv_refine(ep_mesh *m, ep_subdiv_scheme scheme, const ep_closest *project)
{
    size_t nh = 3 * (size_t)m->nf;
    int nv = m->nv, ne = 0, st = EP_ECOMPUTE;
    ep_halfedge *h = NULL;
    int *edge_of = ep_malloc(nh, sizeof *edge_of);     /* [nf][3] edge index of each side */
    int *opp = ep_malloc(nh, sizeof *opp);             /* per edge: two opposite corners */
    int *ends = ep_malloc(nh, sizeof *ends);           /* per edge: lo, hi */
    double *x = NULL, *nsum = ep_calloc(3 * (size_t)nv, sizeof *nsum);
    int *val = ep_calloc((size_t)nv, sizeof *val), *tri = NULL, *par = NULL;
    int8_t *lev = NULL;
    if (!edge_of || !opp || !ends || !nsum || !val || ep_subdiv_mark_base(m) ||
        ep_halfedge_table(m->triangles, m->nf, NULL, &h, &nh))
        goto out;
    /* Closed manifold input: half-edges pair up, one edge per pair. */
    for (size_t i = 0; i < nh; i += 2, ne++) {
        ends[2 * ne] = h[i].lo;
        ends[2 * ne + 1] = h[i].hi;
        for (int s = 0; s < 2; s++) {
            const ep_halfedge *e = &h[i + (size_t)s];
            edge_of[3 * e->t + e->k] = ne;
            opp[2 * ne + s] = m->triangles[3 * e->t + (e->k + 2) % 3];
        }
    }
    int nv2 = nv + ne;
    x = ep_malloc(3 * (size_t)nv2, sizeof *x);
    tri = ep_malloc(12 * (size_t)m->nf, sizeof *tri);
    lev = ep_malloc((size_t)nv2, sizeof *lev);
    par = ep_malloc(2 * (size_t)nv2, sizeof *par);
    if (!x || !tri || !lev || !par)
        goto out;

    /* Even vertices: Loop's vertex rule, or unchanged. */
    for (int e = 0; e < ne; e++) {
        int a = ends[2 * e], b = ends[2 * e + 1];
        for (int c = 0; c < 3; c++) {
            nsum[3 * a + c] += m->vertices[3 * b + c];
            nsum[3 * b + c] += m->vertices[3 * a + c];
        }
        val[a]++;
        val[b]++;
    }
    for (int v = 0; v < nv; v++) {
        double beta = scheme == EP_SUBDIV_LOOP && !project ? ep_subdiv_loop_beta(val[v]) : 0.0;
        for (int c = 0; c < 3; c++)
            x[3 * v + c] = (1.0 - val[v] * beta) * m->vertices[3 * v + c] + beta * nsum[3 * v + c];
    }
    /* Odd vertices: edge rule, then the optional projection. */
    int maxlev = 0;
    for (int v = 0; v < nv; v++) {
        lev[v] = m->level[v];
        par[2 * v] = m->parents[2 * v];
        par[2 * v + 1] = m->parents[2 * v + 1];
        maxlev = lev[v] > maxlev ? lev[v] : maxlev;
    }
    if (maxlev >= EP_MESH_MAX_LEVEL) {
        st = ep_fail(EP_EINPUT, "%s: too many subdivision levels", m->source);
        goto out;
    }
#pragma omp parallel for schedule(static)
    for (int e = 0; e < ne; e++) {
        int a = ends[2 * e], b = ends[2 * e + 1], c = opp[2 * e], d = opp[2 * e + 1];
        double *p = &x[3 * (size_t)(nv + e)];
        for (int k = 0; k < 3; k++) {
            double mid = 0.5 * (m->vertices[3 * a + k] + m->vertices[3 * b + k]);
            p[k] = scheme == EP_SUBDIV_LOOP
                       ? 0.75 * mid + 0.125 * (m->vertices[3 * c + k] + m->vertices[3 * d + k])
                       : mid;
        }
        if (project) {
            double q[3], d2;
            int t;
            ep_closest_query(project, p, q, &t, &d2);
            if (t >= 0)
                memcpy(p, q, sizeof q);
        }
        lev[nv + e] = (int8_t)(maxlev + 1);
        par[2 * (nv + e)] = a;
        par[2 * (nv + e) + 1] = b;
    }
    /* Faces: corners k, odd vertices on sides k (k -> k+1); orientation kept. */
    for (int t = 0; t < m->nf; t++) {
        const int *v = &m->triangles[3 * t];
        int o[3];
        for (int k = 0; k < 3; k++)
            o[k] = nv + edge_of[3 * t + k];
        int *f = &tri[12 * (size_t)t];
        int quad[4][3] = {{v[0], o[0], o[2]}, {v[1], o[1], o[0]}, {v[2], o[2], o[1]}, {o[0], o[1], o[2]}};
        memcpy(f, quad, sizeof quad);
    }
    if ((st = extend_groups(m, nv, ne, ends)))
        goto out;
    st = EP_ECOMPUTE;
    free(m->vertices);
    free(m->triangles);
    free(m->level);
    free(m->parents);
    m->vertices = x;
    m->triangles = tri;
    m->level = lev;
    m->parents = par;
    m->nv = nv2;
    m->nf *= 4;
    x = NULL;
    tri = par = NULL;
    lev = NULL;
    st = ep_mesh_derive_boundary_data(m);
out:
    free(h);
    free(edge_of);
    free(opp);
    free(ends);
    free(nsum);
    free(val);
    free(x);
    free(tri);
    free(lev);
    free(par);
    return st;
}

int ep_subdiv_check_size(const ep_mesh *m, long levels)
{
    double V = m->nv, F = m->nf, E = 1.5 * F;
    for (long l = 0; l < levels; l++) {
        V += E;
        E = 2 * E + 3 * F;
        F *= 4;
    }
    /* vertices, areas, level, parents, triangles, plus the edge tables of the
     * last step (about 12 ints per face of the previous level). */
    double bytes = V * (24 + 8 + 1 + 8 + 4) + F * 12 + F / 4 * 3 * 16 * 2;
    if (3 * F > 2147483647.0 || V > 2147483647.0)
        return ep_fail(EP_EUSAGE, "%ld levels give %.3g triangles: beyond 32-bit indices", levels, F);
    if (ep_mem_total() > 0 && bytes > 0.8 * ep_mem_total())
        return ep_fail(EP_ECOMPUTE, "%ld levels need about %s, the machine has %s", levels,
                       ep_mem_text(bytes), ep_mem_text(ep_mem_total()));
    return EP_OK;
}
