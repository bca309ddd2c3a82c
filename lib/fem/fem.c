/*
 * fem.c — linear tet element matrices and the assembly of tet and hex
 * meshes into CHOLMOD (fem.h).
 */
#define _GNU_SOURCE /* qsort_r */
#include "fem.h"
#include "hex.h"
#include "tet.h"
#include "err.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* Block (a, b) of a tet's element matrix of kind (MATH.md §1), 3 x 3 at A
 * (rows ld apart), from its corners' gradients g and volume vol; zero for
 * a degenerate or inverted tet (vol <= 0).  About 40 flops. */
static void tet_block(ep_fem_kind kind, const double g[4][3], double vol, double lambda, double mu, double rho, int a,
                      int b, double *A, int ld)
{
    if (!(vol > 0)) {
        for (int i = 0; i < 3; i++)
            memset(A + i * ld, 0, 3 * sizeof *A);
        return;
    }
    double gg = g[a][0] * g[b][0] + g[a][1] * g[b][1] + g[a][2] * g[b][2];
    double s = kind == EP_FEM_MASS ? rho * vol / 20.0 * (a == b ? 2.0 : 1.0) : (a == b ? rho * vol / 4.0 : 0.0);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            A[i * ld + j] = kind == EP_FEM_STIFFNESS
                                ? vol * (lambda * g[a][i] * g[b][j] + mu * g[b][i] * g[a][j] + (i == j ? mu * gg : 0))
                                : (i == j ? s : 0);
}

void ep_fem_element(ep_fem_kind kind, const double x[4][3], double lambda, double mu, double rho,
                    double A[12][12])
{
    double vol, g[4][3];
    ep_tet_gradients(x, &vol, g);
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            tet_block(kind, g, vol, lambda, mu, rho, a, b, &A[3 * a][3 * b], 12);
}

int ep_fem_dofmap(const ep_mesh *m, const char *keep, int **map, int *ndof)
{
    int *mp = ep_malloc((size_t)m->nv, sizeof *mp);
    char *used = ep_calloc((size_t)m->nv, 1);
    if (!mp || !used) {
        free(mp);
        free(used);
        return EP_ECOMPUTE;
    }
    const int *el;
    int k, ne = ep_mesh_elements(m, &el, &k);
    for (size_t i = 0; i < (size_t)k * ne; i++)
        used[el[i]] = 1;
    int n = 0;
    for (int v = 0; v < m->nv; v++) {
        mp[v] = used[v] && (!keep || keep[v]) ? 3 * n : -1;
        n += mp[v] >= 0;
    }
    free(used);
    *map = mp;
    *ndof = 3 * n;
    return EP_OK;
}

/* Elements around each vertex (CSR: ptr[nv+1], elem[k ne]). */
static int incidence(const ep_mesh *m, int **ptr, int **elem)
{
    const int *el;
    int k, ne = ep_mesh_elements(m, &el, &k);
    size_t n = (size_t)k * ne;
    int *p = ep_calloc((size_t)m->nv + 1, sizeof *p), *e = ep_malloc(n + 1, sizeof *e);
    if (!p || !e) {
        free(p);
        free(e);
        return EP_ECOMPUTE;
    }
    for (size_t i = 0; i < n; i++)
        p[el[i] + 1]++;
    for (int v = 0; v < m->nv; v++)
        p[v + 1] += p[v];
    for (int t = 0; t < ne; t++)
        for (int j = 0; j < k; j++)
            e[p[el[(size_t)k * t + j]]++] = t;
    for (int v = m->nv; v > 0; v--) /* undo the shift of the fill */
        p[v] = p[v - 1];
    p[0] = 0;
    *ptr = p;
    *elem = e;
    return EP_OK;
}

typedef struct {
    const int *rowmap;
    const int *el;  /* the mesh's elements, k corners each */
    int k;
    int *nbr;   /* scratch: row vertices of the current column vertex */
    int *mark;  /* [nv] column vertex that last listed w, or -1 */
} gather;

/* Per-thread scratch of a pass; 1 when it cannot be had. */
static int gather_open(gather *g, const ep_mesh *m, const int *rowmap, int maxdeg)
{
    int nv = m->nv;
    g->rowmap = rowmap;
    ep_mesh_elements(m, &g->el, &g->k);
    g->nbr = malloc(sizeof(int) * ((size_t)g->k * maxdeg + 1));
    g->mark = malloc(sizeof(int) * (size_t)nv);
    if (!g->nbr || !g->mark)
        return 1;
    for (int v = 0; v < nv; v++)
        g->mark[v] = -1;
    return 0;
}

static void gather_close(gather *g)
{
    free(g->nbr);
    free(g->mark);
}

static int cmp_by_map(const void *x, const void *y, void *map)
{
    int a = ((const int *)map)[*(const int *)x], b = ((const int *)map)[*(const int *)y];
    return (a > b) - (a < b);
}

/* Row vertices of column vertex v, sorted by row DOF; for upper storage only
 * those up to v itself (v last).  Returns their number. */
static int row_vertices(const int *ptr, const int *elem, int v, int upper, gather *g)
{
    int n = 0;
    for (int k = ptr[v]; k < ptr[v + 1]; k++)
        for (int b = 0; b < g->k; b++) {
            int w = g->el[(size_t)g->k * elem[k] + b];
            if (g->rowmap[w] < 0 || g->mark[w] == v || (upper && g->rowmap[w] > g->rowmap[v]))
                continue;
            g->mark[w] = v;
            g->nbr[n++] = w;
        }
    qsort_r(g->nbr, (size_t)n, sizeof *g->nbr, cmp_by_map, (void *)g->rowmap);
    return n;
}

static void hex_rule_columns(ep_fem_kind kind, int np, const double *w, const double (*g)[8][3],
                             const double (*N)[8], double lambda, double mu, double rho, int a, double C[24][3]);
static int hex_rule_n(ep_fem_kind kind);

/* A hex mesh's rules, each element's once (an assembly by column vertex
 * asks for every element's columns eight times; computing its rule each
 * time was most of a voxel model's assembly): per element the weights
 * w[np] and, for the stiffness, the gradients g[np][8][3]; the mass's shape
 * functions N[np] are the same for every element. */
typedef struct {
    int np, stride; /* points, doubles per element */
    double *r;      /* [nh][stride]: w, then g; zeros for an element whose det J fails */
    double N[EP_HEX_RULE_STVK * EP_HEX_RULE_STVK * EP_HEX_RULE_STVK][8];
} hex_rules;

/* Whether hex e has a corner among the assembly's columns (colmap >= 0):
 * the assembly asks for its columns. */
static int hex_assembled(const ep_mesh *m, const int *colmap, int e)
{
    for (int b = 0; b < 8; b++)
        if (colmap[m->hexes[8 * (size_t)e + b]] >= 0)
            return 1;
    return 0;
}

/* Fills h for kind with the rules of m's hexes that reach a column of
 * colmap, on every OpenMP thread.  Returns 1, h->r NULL, when those are
 * fewer than an eighth of the hexes (a block of few columns: each rule
 * where it is needed costs less than the table) or when the table's memory
 * cannot be had (plain malloc: the assembly goes on without it, so no
 * message is recorded).  Memory 8 (np + 24 np) bytes a hex for K (1.6 kB),
 * 8 np for M (216 B).  Cost O(nh). */
static int hex_rules_make(hex_rules *h, const ep_mesh *m, ep_fem_kind kind, const int *colmap)
{
    int n = hex_rule_n(kind), stiff = kind == EP_FEM_STIFFNESS, reached = 0;
    double gx[EP_HEX_MAX_RULE], gw[EP_HEX_MAX_RULE];
    h->r = NULL;
    for (int e = 0; e < m->nh; e++)
        reached += hex_assembled(m, colmap, e);
    h->np = n * n * n;
    h->stride = stiff ? 25 * h->np : h->np;
    if (8 * (size_t)reached < (size_t)m->nh || !(h->r = malloc((size_t)m->nh * sizeof(double) * (size_t)h->stride)))
        return 1;
    ep_hex_gauss(n, gx, gw);
    for (int i = 0, p = 0; i < n; i++) /* as ep_hex_rule's N */
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++, p++)
                ep_hex_shape((double[3]){gx[i], gx[j], gx[k]}, h->N[p], NULL);
#pragma omp parallel for schedule(static, 1024)
    for (int e = 0; e < m->nh; e++) {
        if (!hex_assembled(m, colmap, e))
            continue; /* never read */
        double x[8][3], *r = h->r + (size_t)e * h->stride;
        for (int b = 0; b < 8; b++)
            memcpy(x[b], &m->vertices[3 * (size_t)m->hexes[8 * (size_t)e + b]], sizeof x[b]);
        if (ep_hex_rule(x, n, r, stiff ? (double(*)[8][3])(r + h->np) : NULL, NULL))
            memset(r, 0, sizeof(double) * (size_t)h->stride); /* no columns, as ep_fem_hex_element_columns */
    }
    return 0;
}

/* Columns 3a..3a+2 of the matrix of the element t of corners c[k]; h: the
 * hexes' rules, or NULL. */
static void element_columns(const ep_mesh *m, ep_fem_kind kind, int t, const int *c, int k, int a, double lambda,
                            double mu, double rho, const hex_rules *h, double C[24][3])
{
    double x[8][3];
    if (h) {
        const double *r = h->r + (size_t)t * h->stride;
        hex_rule_columns(kind, h->np, r, (const double(*)[8][3])(r + h->np), (const double(*)[8])h->N, lambda, mu,
                         rho, a, C);
        return;
    }
    for (int b = 0; b < k; b++)
        memcpy(x[b], &m->vertices[3 * (size_t)c[b]], sizeof x[b]);
    if (k == EP_HEX_NODES) {
        ep_fem_hex_element_columns(kind, x, lambda, mu, rho, a, C);
        return;
    }
    double vol, g[4][3]; /* the four blocks (b, a) alone: a quarter of ep_fem_element's */
    ep_tet_gradients(x, &vol, g);
    for (int b = 0; b < 4; b++)
        tet_block(kind, g, vol, lambda, mu, rho, b, a, C[3 * b], 3);
}

cholmod_sparse *ep_fem_assemble(const ep_mesh *m, const ep_material *mat, ep_fem_kind kind,
                                const int *rowmap, int nrow, const int *colmap, int ncol, int upper,
                                cholmod_common *c)
{
    int *ptr = NULL, *elem = NULL, maxdeg = 0, failed = 0;
    cholmod_sparse *A = NULL;
    size_t *cnt = ep_calloc((size_t)ncol + 1, sizeof *cnt);
    if (!cnt || incidence(m, &ptr, &elem))
        goto fail;
    for (int v = 0; v < m->nv; v++)
        maxdeg = ptr[v + 1] - ptr[v] > maxdeg ? ptr[v + 1] - ptr[v] : maxdeg;

    /* Pass 1: entries per column (3 per row vertex; the diagonal block of
     * upper storage keeps rows i <= j). */
#pragma omp parallel reduction(| : failed)
    {
        gather g;
        failed = gather_open(&g, m, rowmap, maxdeg);
#pragma omp for schedule(dynamic, 256)
        for (int v = 0; v < m->nv; v++) {
            if (failed || colmap[v] < 0)
                continue;
            int n = row_vertices(ptr, elem, v, upper, &g);
            for (int j = 0; j < 3; j++)
                cnt[colmap[v] + j + 1] = 3 * (size_t)n - (upper ? 2 - (size_t)j : 0);
        }
        gather_close(&g);
    }
    if (failed) {
        ep_fail(EP_ECOMPUTE, "out of memory (assembly workspace)");
        goto fail;
    }
    for (int j = 0; j < ncol; j++)
        cnt[j + 1] += cnt[j];
    A = cholmod_allocate_sparse((size_t)nrow, (size_t)ncol, cnt[ncol], 1, 1, upper ? 1 : 0, CHOLMOD_REAL, c);
    if (!A) {
        ep_fail(EP_ECOMPUTE, "out of memory (sparse matrix of %zu entries)", cnt[ncol]);
        goto fail;
    }
    int *Ap = A->p, *Ai = A->i;
    double *Ax = A->x;
    for (int j = 0; j <= ncol; j++)
        Ap[j] = (int)cnt[j];

    hex_rules hr = {.r = NULL};
    if (m->hexes) /* without the table, each rule where it is needed (hr.r NULL) */
        (void)hex_rules_make(&hr, m, kind, colmap);

    /* Pass 2: row indices, then the element blocks A_ba (row vertex w at local
     * b, column vertex v at local a) added at their slots. */
#pragma omp parallel reduction(| : failed)
    {
        gather g;
        int *slot = malloc(sizeof(int) * (size_t)m->nv);
        failed = gather_open(&g, m, rowmap, maxdeg) || !slot;
#pragma omp for schedule(dynamic, 256)
        for (int v = 0; v < m->nv; v++) {
            if (failed || colmap[v] < 0)
                continue;
            int n = row_vertices(ptr, elem, v, upper, &g);
            for (int j = 0; j < 3; j++) {
                int col = colmap[v] + j, q = Ap[col];
                for (int k = 0; k < n; k++)
                    for (int i = 0; i < 3; i++) {
                        int row = rowmap[g.nbr[k]] + i;
                        if (upper && row > col)
                            continue;
                        Ai[q] = row;
                        Ax[q++] = 0;
                    }
            }
            for (int k = 0; k < n; k++)
                slot[g.nbr[k]] = k;
            for (int k = ptr[v]; k < ptr[v + 1]; k++) {
                int t = elem[k], a = 0;
                const int *corner = &g.el[(size_t)g.k * t];
                double lambda, mu, C[24][3]; /* the element's columns of v: C[3b+i][j] = A_e[3b+i][3a+j] */
                while (corner[a] != v)
                    a++;
                ep_material_lame(mat, t, &lambda, &mu);
                element_columns(m, kind, t, corner, g.k, a, lambda, mu, ep_material_rho(mat, t), hr.r ? &hr : NULL, C);
                for (int b = 0; b < g.k; b++) {
                    int w = corner[b];
                    if (rowmap[w] < 0 || (upper && rowmap[w] > rowmap[v]))
                        continue;
                    for (int j = 0; j < 3; j++)
                        for (int i = 0; i < 3; i++) {
                            if (upper && w == v && i > j)
                                continue;
                            Ax[Ap[colmap[v] + j] + 3 * slot[w] + i] += C[3 * b + i][j];
                        }
                }
            }
        }
        gather_close(&g);
        free(slot);
    }
    if (failed) {
        ep_fail(EP_ECOMPUTE, "out of memory (assembly workspace)");
        cholmod_free_sparse(&A, c);
    }
    free(hr.r);
fail:
    free(cnt);
    free(ptr);
    free(elem);
    return A;
}

cholmod_sparse *ep_fem_surface_mass(const ep_mesh *m, int lumped, cholmod_common *c)
{
    int *slot = ep_malloc((size_t)m->nv, sizeof *slot);
    cholmod_sparse *M = NULL;
    cholmod_triplet *T = NULL;
    if (!slot)
        return NULL;
    for (int j = 0; j < m->nb; j++)
        slot[m->boundary[j]] = j;
    /* a hex mesh's hats are bilinear on its quads (triangles 2q, 2q + 1; 16 entries per quad) */
    size_t nz = lumped ? (size_t)m->nb : m->hexes ? 8 * (size_t)m->nf : 9 * (size_t)m->nf;
    T = cholmod_allocate_triplet((size_t)m->nb, (size_t)m->nb, nz, 0, CHOLMOD_REAL, c);
    if (!T) {
        free(slot);
        ep_fail(EP_ECOMPUTE, "out of memory (surface mass matrix)");
        return NULL;
    }
    int *Ti = T->i, *Tj = T->j;
    double *Tx = T->x;
    size_t k = 0;
    if (lumped) {
        for (int j = 0; j < m->nb; j++, k++) {
            Ti[k] = Tj[k] = j;
            Tx[k] = m->vertex_area[j];
        }
    } else if (m->hexes) {
        for (int q = 0; q < m->nf / 2; q++) {
            int v[4];
            double p[4][3], Mq[4][4];
            ep_mesh_quad(m, q, v);
            for (int a = 0; a < 4; a++)
                memcpy(p[a], &m->vertices[3 * (size_t)v[a]], sizeof p[a]);
            ep_hex_quad_mass(p, Mq);
            for (int a = 0; a < 4; a++)
                for (int b = 0; b < 4; b++, k++) {
                    Ti[k] = slot[v[a]];
                    Tj[k] = slot[v[b]];
                    Tx[k] = Mq[a][b];
                }
        }
    } else {
        for (int t = 0; t < m->nf; t++) {
            const int *v = &m->triangles[3 * t];
            double area = ep_mesh_triangle_area(m, t);
            for (int a = 0; a < 3; a++) /* MATH.md §1: A/12 (1 + delta) */
                for (int b = 0; b < 3; b++, k++) {
                    Ti[k] = slot[v[a]];
                    Tj[k] = slot[v[b]];
                    Tx[k] = area / 12.0 * (a == b ? 2.0 : 1.0);
                }
        }
    }
    T->nnz = k;
    M = cholmod_triplet_to_sparse(T, k, c);
    if (!M)
        ep_fail(EP_ECOMPUTE, "out of memory (surface mass matrix)");
    cholmod_free_triplet(&T, c);
    free(slot);
    return M;
}

/* The columns of ep_fem_hex_element_columns from the element's rule:
 * np points, weights w[np] (weight * det J), gradients g[np] (stiffness
 * only) and the rule's shape functions N[np] (mass only).  Cost about 3k
 * flops (stiffness), 2k (mass). */
static void hex_rule_columns(ep_fem_kind kind, int np, const double *w, const double (*g)[8][3],
                             const double (*N)[8], double lambda, double mu, double rho, int a, double C[24][3])
{
    memset(C, 0, 72 * sizeof(double));
    for (int p = 0; p < np; p++)
        for (int b = 0; b < 8; b++) {
            if (kind == EP_FEM_STIFFNESS) { /* the tet's block (fem.h) at each point */
                const double *ga = g[p][a], *gb = g[p][b];
                double gg = ga[0] * gb[0] + ga[1] * gb[1] + ga[2] * gb[2];
                for (int i = 0; i < 3; i++)
                    for (int j = 0; j < 3; j++)
                        C[3 * b + i][j] += w[p] * (lambda * gb[i] * ga[j] + mu * ga[i] * gb[j] + (i == j ? mu * gg : 0));
            } else {
                double s = rho * w[p] * N[p][a] * N[p][b];
                int row = kind == EP_FEM_MASS ? b : a; /* lumped: the column sum on the diagonal */
                for (int i = 0; i < 3; i++)
                    C[3 * row + i][i] += s;
            }
        }
}

/* Points per coordinate of kind's rule. */
static int hex_rule_n(ep_fem_kind kind) { return kind == EP_FEM_STIFFNESS ? EP_HEX_RULE_LINEAR : EP_HEX_RULE_STVK; }

void ep_fem_hex_element_columns(ep_fem_kind kind, const double x[8][3], double lambda, double mu, double rho, int a,
                            double C[24][3])
{
    enum { NP = EP_HEX_RULE_STVK * EP_HEX_RULE_STVK * EP_HEX_RULE_STVK };
    double w[NP], g[NP][8][3], N[NP][8];
    int n = hex_rule_n(kind), stiff = kind == EP_FEM_STIFFNESS;
    if (ep_hex_rule(x, n, w, stiff ? g : NULL, stiff ? NULL : N)) {
        memset(C, 0, 72 * sizeof(double));
        return;
    }
    hex_rule_columns(kind, n * n * n, w, (const double(*)[8][3])g, (const double(*)[8])N, lambda, mu, rho, a, C);
}

void ep_fem_hex_element(ep_fem_kind kind, const double x[8][3], double lambda, double mu, double rho, double A[24][24])
{
    for (int a = 0; a < 8; a++) {
        double C[24][3];
        ep_fem_hex_element_columns(kind, x, lambda, mu, rho, a, C);
        for (int r = 0; r < 24; r++)
            for (int j = 0; j < 3; j++)
                A[r][3 * a + j] = C[r][j];
    }
}
