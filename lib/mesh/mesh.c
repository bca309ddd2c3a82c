/*
 * mesh.c — derived mesh data and mesh checks (mesh.h): tet and hex checks,
 * the outward boundary surface, boundary vertex list and vertex areas,
 * closedness.
 */
#include "mesh.h"
#include "err.h"
#include "halfedge.h"
#include "hex.h"
#include "sort.h"
#include "tet.h"
#include "vec3.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ep_mesh_init(ep_mesh *m) { memset(m, 0, sizeof *m); }

int ep_mesh_complete(ep_mesh *m)
{
    int st = EP_OK;
    if (m->nv == 0)
        return ep_fail(EP_EINPUT, "%s: no vertices", m->source);
    /* Volumes, areas and stiffness take products of three coordinates: past
     * 1e100 they overflow, and coordinates x 1e300 were reported as
     * duplicate vertices (issue 22, class 13). */
    for (size_t i = 0; i < 3 * (size_t)m->nv; i++)
        if (!(fabs(m->vertices[i]) <= EP_MESH_MAX_COORD))
            return ep_fail(EP_EINPUT, "%s: vertex %zu: coordinate %g %s", m->source, i / 3 + 1, m->vertices[i],
                           isfinite(m->vertices[i]) ? "beyond 1e100 (products of coordinates would overflow)"
                                                    : "is not finite");
    double size = ep_mesh_diameter(m);
    if (!(size >= EP_MESH_MIN_SIZE))
        return ep_fail(EP_EINPUT, "%s: the model is %g across (its bounding-box diagonal), below %g: areas and "
                       "volumes would underflow; scale it up", m->source, size, EP_MESH_MIN_SIZE);
    if (m->tets && m->hexes)
        return ep_fail(EP_EINPUT, "%s: both tetrahedra and hexahedra (a mesh holds one kind of element)", m->source);
    if (m->hexes) /* the quads are known through the triangles' order only: always derived */
        st = ep_mesh_check_hexes(m, 0) ? EP_EINPUT : ep_mesh_extract_boundary(m);
    else if (m->tets && !(st = ep_mesh_check_tets(m)) && !m->triangles)
        st = ep_mesh_extract_boundary(m);
    if (!st && !m->boundary)
        st = ep_mesh_derive_boundary_data(m);
    return st;
}

void ep_mesh_free(ep_mesh *m)
{
    free(m->vertices);
    free(m->tets);
    free(m->hexes);
    free(m->region);
    free(m->triangles);
    free(m->boundary);
    free(m->vertex_area);
    free(m->level);
    free(m->parents);
    for (int i = 0; i < m->ngroups; i++)
        free(m->groups[i].v);
    free(m->groups);
    free(m->fixed);
    free(m->seam);
    if (m->material) {
        ep_material_free(m->material);
        free(m->material);
    }
    ep_mesh_init(m);
}

int ep_mesh_elements(const ep_mesh *m, const int **el, int *k)
{
    *el = m->tets ? m->tets : m->hexes;
    *k = m->tets ? 4 : m->hexes ? EP_HEX_NODES : 0;
    return ep_mesh_nelements(m);
}

int ep_mesh_nelements(const ep_mesh *m) { return m->tets ? m->ne : m->hexes ? m->nh : 0; }

int ep_mesh_check_hexes(const ep_mesh *m, int boxes)
{
    for (int e = 0; e < m->nh; e++) {
        double x[8][3], h[3];
        if (e % EP_PROGRESS_EVERY == 0)
            ep_progress_report("checking hexahedra", e, m->nh);
        for (int k = 0; k < 8; k++) {
            int v = m->hexes[8 * (size_t)e + k];
            if (v < 0 || v >= m->nv)
                return ep_fail(EP_EINPUT, "%s: element %d: vertex index %d out of range", m->source, e + 1, v + 1);
            memcpy(x[k], &m->vertices[3 * (size_t)v], sizeof x[k]);
        }
        double q = ep_hex_quality(x);
        if (!(q > 1e-9))
            return ep_fail(EP_EINPUT,
                           "%s: element %d: inverted or degenerate hexahedron (det J at the corners down to %.3g "
                           "of its mean)", m->source, e + 1, q);
        /* 1e-6 of the edge: coordinates printed to seven digits still make a box */
        if (boxes && !ep_hex_is_box(x, 1e-6, h))
            return ep_fail(EP_EINPUT,
                           "%s: element %d: not an axis-aligned box with its corners in CUBIC order (a CUBIC "
                           "element is a voxel)", m->source, e + 1);
    }
    ep_progress_report("checking hexahedra", m->nh, m->nh);
    return EP_OK;
}

void ep_mesh_quad(const ep_mesh *m, int q, int v[4])
{
    const int *t = &m->triangles[6 * (size_t)q];
    v[0] = t[0], v[1] = t[1], v[2] = t[2], v[3] = t[5];
}

void ep_mesh_tet_corners(const ep_mesh *m, int e, double x[4][3])
{
    for (int k = 0; k < 4; k++)
        memcpy(x[k], &m->vertices[3 * (size_t)m->tets[4 * (size_t)e + k]], sizeof x[k]);
}

int ep_mesh_check_tets(const ep_mesh *m)
{
    /* Relative to the model size, so a degenerate sliver fails too. */
    double h = ep_mesh_diameter(m), tiny = 1e-14 * h * h * h;
    for (int e = 0; e < m->ne; e++) {
        double x[4][3], vol, g[4][3];
        for (int k = 0; k < 4; k++) {
            int v = m->tets[4 * e + k];
            if (v < 0 || v >= m->nv)
                return ep_fail(EP_EINPUT, "%s: element %d: vertex index %d out of range", m->source,
                               e + 1, v + 1);
        }
        ep_mesh_tet_corners(m, e, x);
        ep_tet_gradients(x, &vol, g);
        if (!(vol > tiny))
            return ep_fail(EP_EINPUT, "%s: element %d: non-positive volume %.3g (%s tetrahedron)",
                           m->source, e + 1, vol, vol < 0 ? "inverted" : "degenerate");
    }
    return EP_OK;
}

/* A face keyed by its sorted vertices (a triangle's fourth -1), remembering
 * its oriented form. */
typedef struct {
    int key[4];
    int v[4];
} face;

static int cmp_face(const void *a, const void *b)
{
    const int *x = ((const face *)a)->key, *y = ((const face *)b)->key;
    for (int k = 0; k < 4; k++)
        if (x[k] != y[k])
            return (x[k] > y[k]) - (x[k] < y[k]);
    return 0;
}

/* Sort the n faces f by key into out: a counting sort on the smallest vertex
 * (keys are vertex ids < nv), then each bucket by the rest of the key — a
 * bucket holds the faces around one vertex, a few dozen.  Faces with equal
 * keys end up adjacent, in the order qsort by cmp_face gives.  Cost O(n +
 * nv) plus the buckets' sorts; out and the nv + 1 counts are the workspace
 * (a qsort of all n faces dominated the read of a large tet mesh: embed's
 * "read" time in tests/bench/embed.sh).
 * 0, EP_EINPUT (a vertex id out of range) or EP_ECOMPUTE. */
static int sort_faces(const face *f, size_t n, int nv, face *out)
{
    size_t *start = ep_calloc((size_t)nv + 2, sizeof *start);
    if (!start)
        return EP_ECOMPUTE;
    for (size_t i = 0; i < n; i++) {
        if (f[i].key[0] < 0 || f[i].key[0] >= nv) { /* the readers check indices first */
            free(start);
            return ep_fail(EP_EINPUT, "element vertex index %d out of range (1..%d)", f[i].key[0] + 1, nv);
        }
        start[f[i].key[0] + 2]++;
    }
    for (int v = 0; v < nv; v++)
        start[v + 2] += start[v + 1];
    for (size_t i = 0; i < n; i++)
        out[start[f[i].key[0] + 1]++] = f[i];
    for (int v = 0; v < nv; v++) { /* start[v] is now where bucket v begins */
        face *b = &out[start[v]];
        size_t nb = start[v + 1] - start[v];
        if (nb > 32) {
            qsort(b, nb, sizeof *b, cmp_face);
            continue;
        }
        for (size_t i = 1; i < nb; i++)
            for (size_t j = i; j > 0 && cmp_face(&b[j - 1], &b[j]) > 0; j--) {
                face t = b[j];
                b[j] = b[j - 1];
                b[j - 1] = t;
            }
    }
    free(start);
    return EP_OK;
}

static void sort_key(int *k, int n)
{
    for (int i = 1; i < n; i++) /* insertion sort of 3 or 4 */
        for (int j = i; j > 0 && k[j - 1] > k[j]; j--) {
            int t = k[j];
            k[j] = k[j - 1];
            k[j - 1] = t;
        }
}

int ep_mesh_extract_boundary(ep_mesh *m)
{
    /* Faces of a positive tet (0,1,2,3), each oriented with its normal pointing
     * away from the opposite vertex; a hex's are ep_hex_face. */
    static const int fv[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
    const int *el;
    int k, ne = ep_mesh_elements(m, &el, &k), hex = k == EP_HEX_NODES;
    int nfe = hex ? 6 : 4, nc = hex ? 4 : 3;
    size_t nall = (size_t)nfe * (size_t)ne, nb = 0;
    face *all = ep_malloc(nall + 1, sizeof *all), *f = ep_malloc(nall + 1, sizeof *f);
    if (!all || !f) {
        free(all);
        free(f);
        return EP_ECOMPUTE;
    }
    for (int e = 0; e < ne; e++) {
        if (e % EP_PROGRESS_EVERY == 0)
            ep_progress_report("boundary faces", e, ne + 1L); /* the last step: the sort */
        for (int j = 0; j < nfe; j++) {
            face *x = &all[(size_t)nfe * e + j];
            x->key[3] = x->v[3] = -1;
            for (int i = 0; i < nc; i++)
                x->key[i] = x->v[i] = el[(size_t)k * e + (hex ? ep_hex_face[j][i] : fv[j][i])];
            sort_key(x->key, nc);
        }
    }
    int st = sort_faces(all, nall, m->nv, f);
    ep_progress_report("boundary faces", ne + 1L, ne + 1L);
    free(all);
    if (st) {
        free(f);
        return st;
    }
    for (size_t i = 0; i < nall;) {
        size_t j = i + 1;
        while (j < nall && !cmp_face(&f[i], &f[j]))
            j++;
        if (j - i > 2) {
            st = ep_fail(EP_EINPUT, "%s: face (%d %d %d%s) shared by %zu %s (non-manifold)", m->source,
                             f[i].key[0] + 1, f[i].key[1] + 1, f[i].key[2] + 1, hex ? " ..." : "", j - i,
                             hex ? "hexahedra" : "tetrahedra");
            free(f);
            return st;
        }
        if (j - i == 1)
            f[nb++] = f[i];
        i = j;
    }
    size_t ntri = nb * (size_t)(nc - 2);
    int *tri = ep_malloc(ntri ? 3 * ntri : 1, sizeof *tri);
    if (!tri) {
        free(f);
        return EP_ECOMPUTE;
    }
    for (size_t i = 0; i < nb; i++) {
        const int *v = f[i].v;
        if (hex) { /* quad (a, b, c, d): (a, b, c), (a, c, d) */
            int *t = &tri[6 * i];
            t[0] = v[0], t[1] = v[1], t[2] = v[2], t[3] = v[0], t[4] = v[2], t[5] = v[3];
        } else
            memcpy(&tri[3 * i], v, 3 * sizeof *v);
    }
    free(f);
    free(m->triangles);
    m->triangles = tri;
    m->nf = (int)ntri;
    free(m->boundary);
    free(m->vertex_area);
    m->boundary = NULL;
    m->vertex_area = NULL;
    return ep_mesh_derive_boundary_data(m);
}

double ep_mesh_triangle_area(const ep_mesh *m, int t)
{
    const int *v = &m->triangles[3 * t];
    double n[3];
    ep_vec3_normal(&m->vertices[3 * v[0]], &m->vertices[3 * v[1]], &m->vertices[3 * v[2]], n);
    return 0.5 * ep_vec3_norm(n);
}

int ep_mesh_derive_boundary_data(ep_mesh *m)
{
    int *slot = ep_malloc((size_t)m->nv, sizeof *slot);
    if (!slot)
        return EP_ECOMPUTE;
    for (int v = 0; v < m->nv; v++)
        slot[v] = -1;
    for (int t = 0; t < m->nf; t++)
        for (int k = 0; k < 3; k++) {
            int v = m->triangles[3 * t + k];
            if (v < 0 || v >= m->nv) {
                free(slot);
                return ep_fail(EP_EINPUT, "%s: triangle %d: vertex index %d out of range (1..%d)",
                               m->source, t + 1, v + 1, m->nv);
            }
            slot[v] = 0;
        }
    int nb = 0;
    for (int v = 0; v < m->nv; v++)
        if (slot[v] == 0)
            slot[v] = nb++;
    int *b = ep_malloc((size_t)nb, sizeof *b);
    double *a = ep_calloc((size_t)nb, sizeof *a);
    if (!b || !a) {
        free(slot);
        free(b);
        free(a);
        return EP_ECOMPUTE;
    }
    for (int v = 0; v < m->nv; v++)
        if (slot[v] >= 0)
            b[slot[v]] = v;
    /* a_j = integral of the hat function: one third of the adjacent area,
     * or on a hex mesh's quads that of the bilinear hat. */
    for (int t = 0; !m->hexes && t < m->nf; t++) {
        double third = ep_mesh_triangle_area(m, t) / 3.0;
        for (int k = 0; k < 3; k++)
            a[slot[m->triangles[3 * t + k]]] += third;
    }
    for (int q = 0; m->hexes && q < m->nf / 2; q++) {
        int v[4];
        double p[4][3], M[4][4];
        ep_mesh_quad(m, q, v);
        for (int k = 0; k < 4; k++)
            memcpy(p[k], &m->vertices[3 * (size_t)v[k]], sizeof p[k]);
        ep_hex_quad_mass(p, M); /* the hat's integral is a row sum */
        for (int k = 0; k < 4; k++)
            a[slot[v[k]]] += M[k][0] + M[k][1] + M[k][2] + M[k][3];
    }
    free(slot);
    free(m->boundary);
    free(m->vertex_area);
    m->boundary = b;
    m->vertex_area = a;
    m->nb = nb;
    return EP_OK;
}

int ep_mesh_check_closed(const ep_mesh *m)
{
    size_t ne;
    int st = EP_OK;
    if (m->nf == 0)
        return ep_fail(EP_EINPUT, "%s: no surface triangles", m->source);
    for (int t = 0; t < m->nf; t++) {
        const int *v = &m->triangles[3 * t];
        if (v[0] == v[1] || v[1] == v[2] || v[0] == v[2])
            return ep_fail(EP_EINPUT, "%s: triangle %d repeats a vertex", m->source, t + 1);
    }
    ep_halfedge *e;
    if ((st = ep_halfedge_table(m->triangles, m->nf, NULL, &e, &ne)))
        return st;
    for (size_t i = 0; i < ne && !st;) {
        size_t j = ep_halfedge_run_end(e, ne, i);
        if (j - i == 1)
            st = ep_fail(EP_EINPUT, "%s: open surface: edge (%d %d) of triangle %d has one face",
                         m->source, e[i].lo + 1, e[i].hi + 1, e[i].t + 1);
        else if (j - i > 2)
            st = ep_fail(EP_EINPUT, "%s: non-manifold surface: edge (%d %d) has %zu faces",
                         m->source, e[i].lo + 1, e[i].hi + 1, j - i);
        else if (ep_halfedge_forward(&e[i], m->triangles) == ep_halfedge_forward(&e[i + 1], m->triangles))
            st = ep_fail(EP_EINPUT, "%s: inconsistent orientation: triangles %d and %d across edge (%d %d)",
                         m->source, e[i].t + 1, e[i + 1].t + 1, e[i].lo + 1, e[i].hi + 1);
        i = j;
    }
    free(e);
    return st;
}

int ep_mesh_count_degenerate(const ep_mesh *m, int *first)
{
    double h = ep_mesh_diameter(m);
    int n = 0;
    *first = -1;
    for (int t = 0; t < m->nf; t++)
        if (!(ep_mesh_triangle_area(m, t) > 1e-14 * h * h)) {
            if (n++ == 0)
                *first = t;
        }
    return n;
}

int ep_mesh_to_surface(ep_mesh *m, int **old_id)
{
    int *newid = ep_malloc((size_t)m->nv, sizeof *newid);
    double *x = ep_malloc(3 * (size_t)m->nb, sizeof *x);
    int *old = ep_malloc((size_t)m->nb, sizeof *old);
    if (!newid || !x || !old) {
        free(newid);
        free(x);
        free(old);
        return EP_ECOMPUTE;
    }
    for (int v = 0; v < m->nv; v++)
        newid[v] = -1;
    for (int j = 0; j < m->nb; j++) {
        newid[m->boundary[j]] = j;
        old[j] = m->boundary[j];
        memcpy(&x[3 * j], &m->vertices[3 * m->boundary[j]], 3 * sizeof *x);
    }
    for (int t = 0; t < 3 * m->nf; t++)
        m->triangles[t] = newid[m->triangles[t]];
    for (int j = 0; j < m->nb; j++)
        m->boundary[j] = j;
    free(m->vertices);
    m->vertices = x;
    m->nv = m->nb;
    free(m->tets);
    free(m->hexes);
    free(m->region);
    m->tets = m->hexes = m->region = NULL;
    m->ne = m->nh = 0;
    for (int i = 0; i < m->ngroups; i++) { /* keep each group's surface vertices */
        ep_group *g = &m->groups[i];
        int k = 0;
        for (int j = 0; j < g->nv; j++)
            if (newid[g->v[j]] >= 0)
                g->v[k++] = newid[g->v[j]];
        g->nv = k; /* still ascending: newid preserves order */
    }
    int ns = 0; /* the seam's surface vertices (all of them: a seam lies on the boundary) */
    for (int j = 0; j < m->nseam; j++)
        if (newid[m->seam[j]] >= 0)
            m->seam[ns++] = newid[m->seam[j]];
    m->nseam = ns;
    free(newid);
    free(m->level);
    free(m->parents);
    m->level = NULL;
    m->parents = NULL;
    if (old_id)
        *old_id = old;
    else
        free(old);
    return EP_OK;
}

int ep_mesh_closed_surface(ep_mesh *m)
{
    int st;
    if (m->tets || m->hexes || m->nb < m->nv) {
        if (m->level)
            return ep_fail(EP_EINPUT, "%s: multiresolution mesh with vertices on no triangle", m->source);
        if ((st = ep_mesh_to_surface(m, NULL)))
            return st;
    }
    return ep_mesh_check_closed(m);
}

void ep_mesh_surface_measures(const ep_mesh *m, double *area, double *volume)
{
    double A = 0, V = 0;
    for (int t = 0; t < m->nf; t++) {
        const double *p = &m->vertices[3 * m->triangles[3 * t]],
                     *q = &m->vertices[3 * m->triangles[3 * t + 1]],
                     *r = &m->vertices[3 * m->triangles[3 * t + 2]];
        double c[3];
        ep_vec3_cross(q, r, c);
        V += (p[0] * c[0] + p[1] * c[1] + p[2] * c[2]) / 6.0;
        A += ep_mesh_triangle_area(m, t);
    }
    *area = A;
    *volume = V;
}

double ep_mesh_diameter(const ep_mesh *m)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int v = 0; v < m->nv; v++)
        for (int a = 0; a < 3; a++) {
            double c = m->vertices[3 * v + a];
            lo[a] = c < lo[a] ? c : lo[a];
            hi[a] = c > hi[a] ? c : hi[a];
        }
    if (m->nv == 0)
        return 0;
    return sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                (hi[2] - lo[2]) * (hi[2] - lo[2]));
}

double ep_mesh_edge_length(const ep_mesh *m)
{
    static const int tet[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
    static const int hex[12][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6},
                                   {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
    static const int tri[3][2] = {{0, 1}, {1, 2}, {2, 0}};
    const int(*edges)[2] = m->ne ? tet : m->nh ? hex : tri;
    const int *el = m->ne ? m->tets : m->nh ? m->hexes : m->triangles;
    int n = m->ne ? m->ne : m->nh ? m->nh : m->nf, k = m->ne ? 4 : m->nh ? 8 : 3, ne = m->ne ? 6 : m->nh ? 12 : 3;
    double sum = 0;
    for (int e = 0; e < n; e++)
        for (int j = 0; j < ne; j++) {
            const double *a = m->vertices + 3 * el[k * e + edges[j][0]], *b = m->vertices + 3 * el[k * e + edges[j][1]];
            sum += sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
        }
    return n ? sum / ((double)n * ne) : 0;
}

/* 21 bits of x spread to every third bit. */
static uint64_t spread3(uint64_t x)
{
    x &= 0x1fffff;
    x = (x | x << 32) & 0x1f00000000ffffULL;
    x = (x | x << 16) & 0x1f0000ff0000ffULL;
    x = (x | x << 8) & 0x100f00f00f00f00fULL;
    x = (x | x << 4) & 0x10c30c30c30c30c3ULL;
    x = (x | x << 2) & 0x1249249249249249ULL;
    return x;
}

/* Sort the n points p[n][3] by Morton code within the box lo + [0, len]^3:
 * out order[n] (ids in order).  0 or EP_ECOMPUTE. */
static int morton_sort(int n, const double *p, const double lo[3], double len, int *order)
{
    ep_sort_pair *k = ep_malloc((size_t)n + 1, sizeof *k);
    if (!k)
        return EP_ECOMPUTE;
    double scale = len > 0 ? 2097151.0 / len : 0;
    for (int i = 0; i < n; i++) {
        uint64_t c = 0;
        for (int a = 0; a < 3; a++) {
            double t = (p[3 * i + a] - lo[a]) * scale;
            c |= spread3((uint64_t)(t < 0 ? 0 : t > 2097151.0 ? 2097151.0 : t)) << a;
        }
        k[i].key = (int64_t)c, k[i].id = i; /* 63 bits: the order of c */
    }
    ep_sort_pairs(k, (size_t)n);
    for (int i = 0; i < n; i++)
        order[i] = k[i].id;
    free(k);
    return EP_OK;
}

int ep_mesh_spatial_order(const ep_mesh *m, int *vrank, int *eorder)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, len = 0;
    for (int v = 0; v < m->nv; v++)
        for (int a = 0; a < 3; a++)
            lo[a] = fmin(lo[a], m->vertices[3 * v + a]);
    for (int v = 0; v < m->nv; v++)
        for (int a = 0; a < 3; a++)
            len = fmax(len, m->vertices[3 * v + a] - lo[a]);
    int *order = ep_malloc((size_t)m->nv + 1, sizeof *order);
    const int *el;
    int k, ne = ep_mesh_elements(m, &el, &k);
    double *c = eorder ? ep_malloc(3 * (size_t)ne + 1, sizeof *c) : NULL;
    int st = order && (c || !eorder) ? morton_sort(m->nv, m->vertices, lo, len, order) : EP_ECOMPUTE;
    for (int i = 0; !st && i < m->nv; i++)
        vrank[order[i]] = i;
    if (!st && eorder) {
        for (int e = 0; e < ne; e++)
            for (int a = 0; a < 3; a++) {
                const int *t = &el[(size_t)k * e];
                double sum = 0;
                for (int j = 0; j < k; j++)
                    sum += m->vertices[3 * (size_t)t[j] + a];
                c[3 * (size_t)e + a] = sum / k;
            }
        st = morton_sort(ne, c, lo, len, eorder);
    }
    free(order);
    free(c);
    return st ? ep_fail(EP_ECOMPUTE, "out of memory (mesh order)") : EP_OK;
}

const ep_group *ep_mesh_find_group(const ep_mesh *m, const char *spec)
{
    char *end;
    long tag = strtol(spec, &end, 10);
    int numeric = *spec && !*end;
    const ep_group *best = NULL;
    for (int i = 0; i < m->ngroups; i++) {
        const ep_group *g = &m->groups[i];
        if (numeric ? g->tag != tag : strcmp(g->name, spec))
            continue;
        /* Gmsh numbers physical groups per dimension: prefer surfaces, the
         * usual support, then the lowest dimension. */
        if (!best || (g->dim == 2 && best->dim != 2) || (best->dim != 2 && g->dim < best->dim))
            best = g;
    }
    return best;
}

/* Union-find over vertices, joined through elements. */
static int root(int *parent, int v)
{
    while (parent[v] != v)
        v = parent[v] = parent[parent[v]];
    return v;
}

int ep_mesh_check_support(const ep_mesh *m, const char *fixed, int surface)
{
    const int *el = m->triangles;
    int k_el = 3, nel = surface ? m->nf : ep_mesh_elements(m, &el, &k_el);
    int *parent = ep_malloc((size_t)m->nv, sizeof *parent), *first = ep_malloc((size_t)m->nv, sizeof *first);
    int *second = ep_malloc((size_t)m->nv, sizeof *second);
    char *solid = ep_calloc((size_t)m->nv, 1), *used = ep_calloc((size_t)m->nv, 1);
    int st = EP_OK;
    if (!parent || !first || !second || !solid || !used) {
        st = EP_ECOMPUTE;
        goto out;
    }
    for (int v = 0; v < m->nv; v++) {
        parent[v] = v;
        first[v] = second[v] = -1;
    }
    for (int t = 0; t < nel; t++)
        for (int k = 0; k < k_el; k++) {
            used[el[k_el * t + k]] = 1;
            int a = root(parent, el[k_el * t]), b = root(parent, el[k_el * t + k]);
            parent[a] = b;
        }
    /* Per part: two distinct fixed vertices, then any third off their line. */
    double h = ep_mesh_diameter(m), tol = 1e-9 * h * h;
    for (int v = 0; v < m->nv; v++) {
        if (!used[v] || !fixed[v])
            continue;
        int r = root(parent, v);
        if (solid[r])
            continue;
        if (first[r] < 0) {
            first[r] = v;
        } else if (second[r] < 0) {
            second[r] = v;
        } else {
            double n[3];
            ep_vec3_normal(&m->vertices[3 * first[r]], &m->vertices[3 * second[r]], &m->vertices[3 * v], n);
            solid[r] = ep_vec3_norm(n) > tol;
        }
    }
    for (int v = 0; v < m->nv; v++)
        if (used[v] && !solid[root(parent, v)]) {
            int r = root(parent, v);
            st = ep_fail(EP_EINPUT,
                         "%s: the fixed vertices leave a rigid motion free (the part containing vertex "
                         "%d has %s fixed; it needs three not on one line)",
                         m->source, v + 1,
                         first[r] < 0 ? "none" : second[r] < 0 ? "one" : "only collinear ones");
            break;
        }
out:
    free(parent);
    free(first);
    free(second);
    free(solid);
    free(used);
    return st;
}

typedef struct {
    double x[3];
    int v;
} point;

static int cmp_point(const void *a, const void *b)
{
    const point *p = a, *q = b;
    for (int i = 0; i < 3; i++)
        if (p->x[i] != q->x[i])
            return (p->x[i] > q->x[i]) - (p->x[i] < q->x[i]);
    return 0;
}

int ep_mesh_check_distinct(const ep_mesh *m)
{
    /* Sorted by x, then y, z: coincident vertices are neighbours up to the
     * tolerance in x, so a window scan over equal-ish x finds them. */
    point *p = ep_malloc((size_t)m->nb, sizeof *p);
    int st = EP_OK;
    if (!p)
        return EP_ECOMPUTE;
    double tol = 1e-12 * ep_mesh_diameter(m);
    for (int j = 0; j < m->nb; j++) {
        memcpy(p[j].x, &m->vertices[3 * m->boundary[j]], sizeof p[j].x);
        p[j].v = m->boundary[j];
    }
    qsort(p, (size_t)m->nb, sizeof *p, cmp_point);
    for (int j = 0; j < m->nb && !st; j++)
        for (int k = j + 1; k < m->nb && p[k].x[0] - p[j].x[0] <= tol && !st; k++)
            if (fabs(p[k].x[1] - p[j].x[1]) <= tol && fabs(p[k].x[2] - p[j].x[2]) <= tol)
                st = ep_fail(EP_EINPUT, "%s: duplicate vertices %d and %d (same position)", m->source,
                             (p[j].v < p[k].v ? p[j].v : p[k].v) + 1, (p[j].v < p[k].v ? p[k].v : p[j].v) + 1);
    free(p);
    return st;
}

int ep_mesh_unfix_interior(const ep_mesh *m, char *fixed, int *dropped)
{
    char *onb = ep_calloc((size_t)m->nv, 1);
    *dropped = 0;
    if (!onb)
        return EP_ECOMPUTE;
    for (int j = 0; j < m->nb; j++)
        onb[m->boundary[j]] = 1;
    for (int v = 0; v < m->nv; v++)
        if (fixed[v] && !onb[v]) {
            fixed[v] = 0;
            ++*dropped;
        }
    free(onb);
    return EP_OK;
}
