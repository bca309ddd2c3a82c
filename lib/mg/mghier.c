/*
 * mghier.c — multigrid hierarchies: refinement, prolongations, TetGen
 * coarse meshes, Galerkin operators (mghier.h).
 */
#include "mghier.h"
#include "embed.h"
#include "err.h"
#include "fem.h"
#include "meshio.h"
#include "simplify.h"
#include "tet.h"
#include "sort.h"

#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int ep_mghier_init(ep_mghier *h, int nlevels)
{
    memset(h, 0, sizeof *h);
    if (!(h->level = ep_calloc((size_t)nlevels, sizeof *h->level)))
        return EP_ECOMPUTE;
    h->nlevels = nlevels;
    return EP_OK;
}

int ep_mghier_set_mesh(ep_mghier *h, int l, const ep_mesh *mesh)
{
    ep_mghier_level *L = &h->level[l];
    L->nv = mesh->nv, L->ne = mesh->tets ? mesh->ne : 0;
    if (!(L->x = ep_malloc(3 * (size_t)L->nv, sizeof *L->x)) || (L->ne && !(L->tets = ep_malloc(4 * (size_t)L->ne, sizeof *L->tets))))
        return EP_ECOMPUTE;
    memcpy(L->x, mesh->vertices, 3 * (size_t)L->nv * sizeof *L->x);
    if (L->ne)
        memcpy(L->tets, mesh->tets, 4 * (size_t)L->ne * sizeof *L->tets);
    return EP_OK;
}

void ep_mghier_free(ep_mghier *h)
{
    for (int l = 0; h->level && l < h->nlevels; l++) {
        ep_mghier_level *L = &h->level[l];
        free(L->x), free(L->tets);
        ep_bsr_free(&L->K);
        ep_csr_free(&L->P);
    }
    free(h->level);
    memset(h, 0, sizeof *h);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Index of edge (a, b) among the sorted keys. */
static int edge_index(const uint64_t *key, size_t n, int a, int b)
{
    uint64_t k = a < b ? (uint64_t)a << 32 | (uint32_t)b : (uint64_t)b << 32 | (uint32_t)a;
    return (int)EP_SORT_LOWER_BOUND(key, n, k);
}

static double tet_volume(const double *x, const int *t)
{
    double c[4][3], g[4][3], vol;
    for (int a = 0; a < 4; a++)
        memcpy(c[a], &x[3 * (size_t)t[a]], sizeof c[a]);
    ep_tet_gradients(c, &vol, g);
    return vol;
}

/* The edges of a tet as corner pairs, in the order of the midpoints m01
 * m02 m03 m12 m13 m23. */
static const int tet_edge[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};

int ep_mghier_refine(ep_mesh *fine, const ep_mesh *coarse, int **parents, int **elem_parent)
{
    ep_mesh_init(fine);
    *parents = *elem_parent = NULL;
    if (!coarse->tets || coarse->ne < 1)
        return ep_fail(EP_EINPUT, "%s: nested refinement needs a tet mesh", coarse->source);
    size_t ne = (size_t)coarse->ne, n6 = 6 * ne, nedge = 0;
    uint64_t *key = ep_malloc(n6, sizeof *key);
    if (!key)
        return EP_ECOMPUTE;
    for (size_t e = 0; e < ne; e++)
        for (int k = 0; k < 6; k++) {
            int a = coarse->tets[4 * e + tet_edge[k][0]], b = coarse->tets[4 * e + tet_edge[k][1]];
            key[6 * e + k] = a < b ? (uint64_t)a << 32 | (uint32_t)b : (uint64_t)b << 32 | (uint32_t)a;
        }
    qsort(key, n6, sizeof *key, cmp_u64);
    for (size_t i = 0; i < n6; i++)
        if (!i || key[i] != key[i - 1])
            key[nedge++] = key[i];
    int nv = coarse->nv + (int)nedge, st = EP_ECOMPUTE;
    snprintf(fine->source, sizeof fine->source, "%s", coarse->source);
    fine->nv = nv, fine->ne = (int)(8 * ne);
    fine->vertices = ep_malloc(3 * (size_t)nv, sizeof *fine->vertices);
    fine->tets = ep_malloc(4 * (size_t)fine->ne, sizeof *fine->tets);
    *parents = ep_malloc(2 * (size_t)nv, sizeof **parents);
    *elem_parent = ep_malloc((size_t)fine->ne, sizeof **elem_parent);
    if (!fine->vertices || !fine->tets || !*parents || !*elem_parent)
        goto out;
    memcpy(fine->vertices, coarse->vertices, 3 * (size_t)coarse->nv * sizeof *fine->vertices);
    for (int v = 0; v < coarse->nv; v++)
        (*parents)[2 * v] = (*parents)[2 * v + 1] = v;
    for (size_t i = 0; i < nedge; i++) {
        int a = (int)(key[i] >> 32), b = (int)(key[i] & 0xffffffffu), v = coarse->nv + (int)i;
        for (int j = 0; j < 3; j++)
            fine->vertices[3 * (size_t)v + j] = 0.5 * (coarse->vertices[3 * (size_t)a + j] + coarse->vertices[3 * (size_t)b + j]);
        (*parents)[2 * v] = a, (*parents)[2 * v + 1] = b;
    }
    for (size_t e = 0; e < ne; e++) {
        const int *c = &coarse->tets[4 * e];
        int m[6], *t = &fine->tets[32 * e];
        for (int k = 0; k < 6; k++)
            m[k] = coarse->nv + edge_index(key, nedge, c[tet_edge[k][0]], c[tet_edge[k][1]]);
        /* corner tets: scaled copies of the parent, same orientation */
        int corner[4][4] = {{c[0], m[0], m[1], m[2]}, {m[0], c[1], m[3], m[4]}, {m[1], m[3], c[2], m[5]},
                            {m[2], m[4], m[5], c[3]}};
        memcpy(t, corner, sizeof corner);
        /* the inner octahedron: opposite pairs (m01, m23), (m02, m13), (m03,
         * m12); split along the shortest, the other four a cycle round it */
        static const int diag[3][2] = {{0, 5}, {1, 4}, {2, 3}};
        static const int ring[3][4] = {{1, 2, 4, 3}, {0, 2, 5, 3}, {0, 1, 5, 4}};
        int best = 0;
        double len[3];
        for (int d = 0; d < 3; d++) {
            len[d] = 0;
            for (int j = 0; j < 3; j++) {
                double s = fine->vertices[3 * (size_t)m[diag[d][0]] + j] - fine->vertices[3 * (size_t)m[diag[d][1]] + j];
                len[d] += s * s;
            }
            best = len[d] < len[best] ? d : best;
        }
        for (int q = 0; q < 4; q++) {
            int *u = &t[16 + 4 * q];
            u[0] = m[diag[best][0]], u[1] = m[diag[best][1]];
            u[2] = m[ring[best][q]], u[3] = m[ring[best][(q + 1) % 4]];
            if (tet_volume(fine->vertices, u) < 0) {
                int s = u[2];
                u[2] = u[3], u[3] = s;
            }
        }
        for (int q = 0; q < 8; q++)
            (*elem_parent)[8 * e + q] = (int)e;
    }
    st = ep_mesh_complete(fine);
out:
    free(key);
    return st;
}

int ep_mghier_nested_prolongation(ep_csr *P, const int *parents, int nf, int nc)
{
    if (ep_csr_alloc(P, nf, nc, 2 * (size_t)nf))
        return EP_ECOMPUTE;
    int q = 0;
    for (int v = 0; v < nf; v++) {
        int a = parents[2 * v], b = parents[2 * v + 1];
        if (a == b)
            P->col[q] = a, P->val[q++] = 1;
        else {
            P->col[q] = a < b ? a : b, P->val[q++] = 0.5;
            P->col[q] = a < b ? b : a, P->val[q++] = 0.5;
        }
        P->rowptr[v + 1] = q;
    }
    return EP_OK;
}

int ep_mghier_embedded_prolongation(ep_csr *P, const double *xf, int nf, const double *xc, int nc, const int *tets,
                                    int ne, double limit, int *noutside, double *maxdist)
{
    ep_embed b = {0};
    int st = ep_embed_build(&b, xc, nc, tets, ne, 4, xf, nf, limit);
    if (!st && !(st = ep_csr_alloc(P, nf, nc, 4 * (size_t)nf))) {
        int q = 0;
        for (int v = 0; v < nf; v++) {
            int c[4];
            double w[4];
            memcpy(c, &b.col[4 * (size_t)v], sizeof c);
            memcpy(w, &b.w[4 * (size_t)v], sizeof w);
            for (int i = 1; i < 4; i++) /* ascending columns */
                for (int j = i; j > 0 && c[j - 1] > c[j]; j--) {
                    int s = c[j];
                    double t = w[j];
                    c[j] = c[j - 1], w[j] = w[j - 1], c[j - 1] = s, w[j - 1] = t;
                }
            for (int i = 0; i < 4; i++) /* a vertex on a face or an edge: rounding's 1e-17, not a weight */
                if (fabs(w[i]) > EP_MGHIER_MIN_WEIGHT)
                    P->col[q] = c[i], P->val[q++] = w[i];
            P->rowptr[v + 1] = q;
        }
        *noutside = b.noutside, *maxdist = b.maxdist;
    }
    ep_embed_free(&b);
    return st;
}

/* fine's boundary as a surface mesh of its own (vertices renumbered). */
static int boundary_surface(ep_mesh *s, const ep_mesh *m)
{
    int *id = ep_malloc((size_t)m->nv, sizeof *id);
    ep_mesh_init(s);
    snprintf(s->source, sizeof s->source, "%s", m->source);
    s->nv = m->nb, s->nf = m->nf;
    s->vertices = ep_malloc(3 * (size_t)m->nb, sizeof *s->vertices);
    s->triangles = ep_malloc(3 * (size_t)m->nf, sizeof *s->triangles);
    if (!id || !s->vertices || !s->triangles) {
        free(id);
        return EP_ECOMPUTE;
    }
    for (int i = 0; i < m->nb; i++) {
        id[m->boundary[i]] = i;
        memcpy(&s->vertices[3 * (size_t)i], &m->vertices[3 * (size_t)m->boundary[i]], 3 * sizeof(double));
    }
    for (size_t i = 0; i < 3 * (size_t)m->nf; i++)
        s->triangles[i] = id[m->triangles[i]];
    free(id);
    return ep_mesh_derive_boundary_data(s);
}

/* The interior points of a coarse level: a greedy maximal independent set
 * (in index order) of m's vertices more than `ring` edges from its
 * boundary, so that no two chosen ones share an element.  The coarse
 * vertices are then about every other fine vertex along each direction, a
 * uniform thinning of the fine mesh (002 §2.4.6), where the boundary alone
 * left the inside without vertices.  *pts: [*np][3] (allocated). */
static int interior_points(const ep_mesh *m, int ring, double **pts, int *np)
{
    const int *el;
    int k, ne = ep_mesh_elements(m, &el, &k), nv = m->nv, st = EP_ECOMPUTE;
    int *start = ep_calloc((size_t)nv + 1, sizeof *start), *list = ep_malloc((size_t)k * ne + 1, sizeof *list);
    int *dist = ep_malloc((size_t)nv, sizeof *dist);
    char *state = ep_calloc((size_t)nv, 1); /* 0 free, 1 next to a chosen one or near the boundary, 2 chosen */
    *pts = NULL, *np = 0;
    if (!start || !list || !dist || !state)
        goto out;
    for (size_t q = 0; q < (size_t)k * ne; q++) /* vertex -> elements */
        start[el[q] + 1]++;
    for (int v = 0; v < nv; v++)
        start[v + 1] += start[v];
    for (int e = 0; e < ne; e++)
        for (int a = 0; a < k; a++)
            list[start[el[(size_t)k * e + a]]++] = e;
    for (int v = nv; v > 0; v--)
        start[v] = start[v - 1];
    start[0] = 0;
    for (int v = 0; v < nv; v++)
        dist[v] = INT32_MAX;
    for (int i = 0; i < m->nb; i++)
        dist[m->boundary[i]] = 0;
    for (int d = 0; d < ring; d++) /* edges from the boundary, up to ring */
        for (int v = 0; v < nv; v++)
            if (dist[v] == d)
                for (int t = start[v]; t < start[v + 1]; t++)
                    for (int a = 0; a < k; a++) {
                        int u = el[(size_t)k * list[t] + a];
                        if (dist[u] > d + 1)
                            dist[u] = d + 1;
                    }
    int n = 0;
    for (int v = 0; v < nv; v++)
        if (dist[v] <= ring)
            state[v] = 1;
    for (int v = 0; v < nv; v++)
        if (!state[v]) {
            state[v] = 2, n++;
            for (int t = start[v]; t < start[v + 1]; t++)
                for (int a = 0; a < k; a++) {
                    int u = el[(size_t)k * list[t] + a];
                    if (!state[u])
                        state[u] = 1;
                }
        }
    if (!(*pts = ep_malloc(3 * (size_t)n + 1, sizeof **pts)))
        goto out;
    for (int v = 0; v < nv; v++)
        if (state[v] == 2)
            memcpy(&(*pts)[3 * (size_t)(*np)++], &m->vertices[3 * (size_t)v], 3 * sizeof **pts);
    st = EP_OK;
out:
    free(start), free(list), free(dist), free(state);
    return st;
}

int ep_mghier_tetgen(ep_mesh *coarse, const ep_mesh *fine, int target_nb, const char *tmpdir)
{
    ep_mesh surf = {0}, base = {0};
    ep_simplify_opts o;
    ep_simplify_report rep;
    char dir[1024], off[1100], out[1100], add[1100];
    int st;
    ep_mesh_init(coarse);
    snprintf(dir, sizeof dir, "%s/mghier.XXXXXX", tmpdir ? tmpdir : "/tmp");
    if (!mkdtemp(dir))
        return ep_fail(EP_EIO, "%s: cannot make a temporary folder for TetGen", dir);
    snprintf(off, sizeof off, "%s/coarse.off", dir);
    snprintf(out, sizeof out, "%s/coarse.1.node", dir);
    ep_simplify_opts_default(&o, target_nb < 4 ? 4 : target_nb);
    if ((st = boundary_surface(&surf, fine)) || (st = ep_simplify_build(&base, &surf, &o, &rep)))
        goto out;
    FILE *f = fopen(off, "w");
    if (!f) {
        st = ep_fail(EP_EIO, "%s: cannot write", off);
        goto out;
    }
    ep_meshio_write(f, &base, EP_MESHIO_OFF);
    if (fclose(f)) {
        st = ep_fail(EP_EIO, "%s: cannot write", off);
        goto out;
    }
    double *pts;
    int np;
    if ((st = interior_points(fine, EP_MGHIER_INTERIOR_RING, &pts, &np)))
        goto out;
    snprintf(add, sizeof add, "%s/coarse.a.node", dir);
    if (!(f = fopen(add, "w"))) {
        free(pts);
        st = ep_fail(EP_EIO, "%s: cannot write", add);
        goto out;
    }
    fprintf(f, "%d 3 0 0\n", np);
    for (int i = 0; i < np; i++)
        fprintf(f, "%d %.17g %.17g %.17g\n", i + 1, pts[3 * i], pts[3 * i + 1], pts[3 * i + 2]);
    free(pts);
    if (fclose(f)) {
        st = ep_fail(EP_EIO, "%s: cannot write", add);
        goto out;
    }
    /* TetGen 1.5 has crashed inserting points into some simplified
     * boundaries (the dragon's level 2 with ring 1): then the boundary alone */
    for (int attempt = 0; attempt < 2; attempt++) {
        char *argv[] = {"tetgen", attempt ? "-pQ" : "-pQi", off, NULL};
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
        pid_t pid;
        int ws = 0, sp = posix_spawnp(&pid, "tetgen", &fa, NULL, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
        if (sp) {
            st = ep_fail(EP_ECOMPUTE, "cannot run tetgen (scripts/install-deps installs it): %s", strerror(sp));
            goto out;
        }
        while (waitpid(pid, &ws, 0) < 0)
            ;
        st = WIFEXITED(ws) && !WEXITSTATUS(ws) ? EP_OK
                                               : ep_fail(EP_ECOMPUTE,
                                                         "tetgen -p failed on the simplified boundary (%d vertices; status %d)",
                                                         base.nv, WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
        if (!st)
            break;
    }
    if (st)
        goto out;
    st = ep_meshio_read(coarse, out);
out:
    ep_mesh_free(&surf);
    ep_mesh_free(&base);
    const char *ext[] = {"off", "a.node", "1.node", "1.ele", "1.face", "1.edge", "1.smesh"};
    for (int i = 0; i < 7; i++) {
        char p[1100];
        snprintf(p, sizeof p, "%s/coarse.%s", dir, ext[i]);
        unlink(p);
    }
    rmdir(dir);
    return st;
}

int ep_mghier_operators(ep_mghier *h, const ep_mesh *m, const ep_material *mat, const char *fixed)
{
    cholmod_common c;
    int *map = ep_malloc((size_t)m->nv, sizeof *map), st = EP_ECOMPUTE;
    if (!map)
        return EP_ECOMPUTE;
    for (int v = 0; v < m->nv; v++)
        map[v] = 3 * v;
    cholmod_start(&c);
    cholmod_sparse *K = ep_fem_assemble(m, mat, EP_FEM_STIFFNESS, map, 3 * m->nv, map, 3 * m->nv, 0, &c);
    free(map);
    if (!K || ep_bsr_from_cholmod(&h->level[0].K, K))
        goto out;
    if (fixed) {
        ep_bsr_hold(&h->level[0].K, fixed);
        ep_csr *P = &h->level[0].P;
        for (int v = 0; P->rowptr && v < P->n; v++)
            if (fixed[v])
                for (int k = P->rowptr[v]; k < P->rowptr[v + 1]; k++)
                    P->val[k] = 0;
    }
    for (int l = 1; l < h->nlevels; l++) {
        ep_csr Pt = {0};
        int s = ep_csr_transpose(&Pt, &h->level[l - 1].P) ||
                ep_bsr_galerkin(&h->level[l].K, &h->level[l - 1].K, &h->level[l - 1].P, &Pt);
        ep_csr_free(&Pt);
        if (s)
            goto out;
        ep_bsr_fill_empty_diagonal(&h->level[l].K);
    }
    st = EP_OK;
out:
    cholmod_free_sparse(&K, &c);
    cholmod_finish(&c);
    return st;
}
