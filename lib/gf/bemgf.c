/*
 * bemgf.c — dense BEM Green's function solve (bemgf.h).
 */
#include "bemgf.h"
#include "bem.h"
#include "err.h"
#include "kernel.h"
#include "mem.h"
#include "stats.h"
#include "vec3.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef ep_bemgf_sys bemsys;

int ep_bemgf_integrals(const bemsys *s, int i, int t, int jb[3], double g[3][3][3], double h[3][3][3])
{
    const ep_mesh *m = s->m;
    double v[3][3];
    int sing = -1;
    for (int a = 0; a < 3; a++) {
        int w = m->triangles[3 * t + a];
        for (int k = 0; k < 3; k++)
            v[a][k] = m->vertices[3 * w + k] / s->len;
        jb[a] = s->constant ? t : s->bidx[w];
        if (!s->constant && jb[a] == i)
            sing = a;
    }
    if (s->constant) { /* one node per triangle: the hat integrals summed */
        ep_bem_triangle_constant(&s->x[3 * i], (const double(*)[3])v, t == i, s->nu, g[0], h[0]);
        return 1;
    }
    ep_bem_triangle(&s->x[3 * i], (const double(*)[3])v, sing, s->nu, g, h);
    return 3;
}

/* The particular solution's displacement at node j (nondimensional, the
 * system's: u G / len), per unit direction: u_p^k(j) = up_nd e_k. */
static double up_nd(const bemsys *s, int j)
{
    const double *x = &s->x[3 * j];
    double r2 = 0;
    for (int a = 0; a < 3; a++)
        r2 += (x[a] * s->len - s->x0[a]) * (x[a] * s->len - s->x0[a]);
    return -s->pq * s->rho * r2 / (2 * s->len);
}

/* sigma(u_p^k)(y) n for the body force rho e_k (physical units; MATH.md §12). */
static void particular_traction(const bemsys *s, const double y[3], const double n[3], int k, double t[3])
{
    double r[3] = {y[0] - s->x0[0], y[1] - s->x0[1], y[2] - s->x0[2]}, rn = r[0] * n[0] + r[1] * n[1] + r[2] * n[2];
    for (int a = 0; a < 3; a++)
        t[a] = -s->rho * (s->pl * r[k] * n[a] + s->pm * ((a == k) * rn + r[a] * n[k]));
}

/* Triangles whose integrals a row keeps for the body-force sum (body_sum):
 * 28 KB, in L1 (48 KB here) while they are summed.  Every BODY_TIMED-th
 * row's sums are timed by the thread's CPU clock, less the cost of a read
 * of it (a system call here: about 1 us, beside about 4 us of sum a chunk;
 * s->clk, body_setup): the rate of that sample is the sum's.  (The
 * monotonic clock is cheaper but counts the time another process holds
 * the core: 50% more on a loaded machine.) */
enum { BODY_CHUNK = 64, BODY_TIMED = 8 };

/* acc[l][k] += the body-force right-hand sides' share of row i from the
 * chunk's nc triangles tri0, tri0 + 1, ... (corner nodes jb[3 c ..], integrals gh[c]: g
 * then h, 27 values each): + h u_p at fixed corners (not i itself: its
 * H_ii comes from hsum), - g t_p at free ones.  t_p is rebuilt per corner
 * from tables that stay in L2 (s->bn: the triangle's normal, s->br: the
 * node's r = y - x0, or its u_p when fixed; 4 values each), not read as
 * 27 stored values a triangle (1.1 MB a row at 2,562 vertices, past L2).
 * t_p^k = -rho (pl r_k n + pm (e_k r.n + r n_k)) (particular_traction), so
 * column m of -t_p over k is rho (pl n_m r + pm r_m n + pm (r.n) e_m),
 * and acc[l] += g[a][l][m] times it; two sets of sums keep the chains of
 * multiply-adds short.  Lanes: k (the 4th zero).  Cost 162 flops
 * a triangle, counted as the 27 multiply-adds of a corner's 3 x 3 x 3
 * product (about twice that done: the rebuild and the 4th lane). */
static EP_KERNEL void body_sum(const bemsys *s, int i, const double *gh, int tri0, const int *jb, int nc,
                               ep_v4d acc[3])
{
    ep_v4d s0 = acc[0], s1 = acc[1], s2 = acc[2], t0 = {0, 0, 0, 0}, t1 = t0, t2 = t0;
    const double cl = s->rho * s->pl, cm = s->rho * s->pm;
    const ep_v4d e0 = {1, 0, 0, 0}, e1 = {0, 1, 0, 0}, e2 = {0, 0, 1, 0};
    for (int c = 0; c < nc; c++, gh += 54) {
        const ep_v4d n = *(const ep_v4d *)(s->bn + 4 * (size_t)(tri0 + c));
#pragma GCC unroll 3
        for (int a = 0; a < 3; a++) {
            int j = jb[3 * c + a];
            const ep_v4d r = *(const ep_v4d *)(s->br + 4 * (size_t)j);
            if (s->fixedb[j]) { /* r holds u_p: + h[l][k] u_p */
                const double *h = gh + 27 + 9 * a;
                double u = j != i ? r[0] : 0;
                t0 += u * (ep_v4d){h[0], h[1], h[2], 0};
                t1 += u * (ep_v4d){h[3], h[4], h[5], 0};
                t2 += u * (ep_v4d){h[6], h[7], h[8], 0};
                continue;
            }
            const double *g = gh + 9 * a;
            double rn = cm * (r[0] * n[0] + r[1] * n[1] + r[2] * n[2]);
            ep_v4d v0 = (cl * n[0]) * r + (cm * r[0]) * n + rn * e0;
            ep_v4d v1 = (cl * n[1]) * r + (cm * r[1]) * n + rn * e1;
            ep_v4d v2 = (cl * n[2]) * r + (cm * r[2]) * n + rn * e2;
            if (a & 1) /* two sets of sums: shorter chains */
                t0 += g[0] * v0 + g[1] * v1 + g[2] * v2, t1 += g[3] * v0 + g[4] * v1 + g[5] * v2,
                    t2 += g[6] * v0 + g[7] * v1 + g[8] * v2;
            else
                s0 += g[0] * v0 + g[1] * v1 + g[2] * v2, s1 += g[3] * v0 + g[4] * v1 + g[5] * v2,
                    s2 += g[6] * v0 + g[7] * v1 + g[8] * v2;
        }
    }
    acc[0] = s0 + t0, acc[1] = s1 + t1, acc[2] = s2 + t2;
}

/* One collocation node i: its three rows of A, in place (MATH.md §6: A_:j =
 * -G_:j at fixed j, H_:j at free j), with H_ii = -sum_{j != i} h_ij (000 eq.
 * B.6), kept in hsum for the right-hand sides of fixed columns; with body
 * rows, their right-hand sides' rows 3i.. from the same integrals (gl:
 * this thread's chunk of 54 BODY_CHUNK integrals); body_sum's
 * CPU seconds added to *body_cpu on every BODY_TIMED-th row). */
static void assemble_row(bemsys *s, int i, double *gl, double *body_cpu)
{
    const ep_mesh *m = s->m;
    double hsum[3][3] = {{0}}, ui[3], res[3] = {0, 0, 0}, scale[3] = {0, 0, 0};
    ep_v4d bacc[3] = {{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}}; /* [l] lanes k */
    int cjb[3 * BODY_CHUNK], nc = 0, timed = i % BODY_TIMED == 0;
    const double *xi = &s->x[3 * i];
    ui[0] = s->rot[1] * xi[2] - s->rot[2] * xi[1];
    ui[1] = s->rot[2] * xi[0] - s->rot[0] * xi[2];
    ui[2] = s->rot[0] * xi[1] - s->rot[1] * xi[0];
    for (int t = 0; t < m->nf; t++) {
        double g[3][3][3], h[3][3][3];
        int jb[3], corners = ep_bemgf_integrals(s, i, t, jb, g, h);
        if (s->bb) {
            memcpy(gl + 54 * (size_t)nc, g, 27 * sizeof *gl);
            memcpy(gl + 54 * (size_t)nc + 27, h, 27 * sizeof *gl);
            for (int a = 0; a < 3; a++)
                cjb[3 * nc + a] = jb[a];
            nc++;
            if (nc == BODY_CHUNK || t == m->nf - 1) {
                double c0 = timed ? ep_stats_thread_cpu() : 0;
                body_sum(s, i, gl, t + 1 - nc, cjb, nc, bacc);
                *body_cpu += timed ? ep_stats_thread_cpu() - c0 - s->clk : 0;
                nc = 0;
            }
        }
        for (int a = 0; a < corners; a++) {
            int j = jb[a];
            const double *xj = &s->x[3 * j];
            double uj[3] = {s->rot[1] * xj[2] - s->rot[2] * xj[1], s->rot[2] * xj[0] - s->rot[0] * xj[2],
                            s->rot[0] * xj[1] - s->rot[1] * xj[0]};
            for (int l = 0; l < 3; l++) {
                double *arow = s->At + (size_t)(3 * i + l) * (size_t)s->N;
                for (int k = 0; k < 3; k++) {
                    if (j != i) {
                        hsum[l][k] += h[a][l][k];
                        res[l] += h[a][l][k] * uj[k];
                        scale[l] += fabs(h[a][l][k] * uj[k]);
                    }
                    arow[3 * j + k] += s->fixedb[j] ? -g[a][l][k] : h[a][l][k];
                }
            }
        }
    }
    for (int k = 0; k < 3 && s->bb; k++)
        for (int l = 0; l < 3; l++)
            s->bb[(size_t)k * s->N + 3 * i + l] += bacc[l][k];
    for (int l = 0; l < 3; l++) {
        double *arow = s->At + (size_t)(3 * i + l) * (size_t)s->N;
        for (int k = 0; k < 3; k++) {
            res[l] -= hsum[l][k] * ui[k];
            scale[l] += fabs(hsum[l][k] * ui[k]);
            if (!s->fixedb[i])
                arow[3 * i + k] -= hsum[l][k];
            else if (s->bb) /* H_ii = -hsum_i (000 eq. B.6) on u_p at the fixed node */
                s->bb[(size_t)k * s->N + 3 * i + l] -= hsum[l][k] * up_nd(s, i);
            s->hsum[9 * (size_t)i + 3 * l + k] = hsum[l][k];
        }
        if (s->rres) {
            s->rres[3 * i + l] = res[l];
            s->rscale[3 * i + l] = scale[l];
        }
    }
}

/* The block's right-hand sides B (N x nq, column-major; GF rows q0 ..):
 * B_:j = G_:j for a unit traction at free node j, -H_:j (with the diagonal
 * hsum) for a unit displacement at fixed j, and a column's hat load the
 * weighted sum of those.  Collocation rows in parallel; every entry sums its
 * triangles in ascending order, as the row assembly does. */
static void rhs_block(const bemsys *s, int nq, double *B)
{
    memset(B, 0, sizeof(double) * (size_t)s->N * (size_t)nq);
#pragma omp parallel for schedule(dynamic, 16)
    for (int i = 0; i < s->n; i++) {
        for (int q = 0; q < s->nbtri; q++) {
            double g[3][3][3], h[3][3][3];
            int jb[3], corners = ep_bemgf_integrals(s, i, s->tri[q], jb, g, h);
            for (int a = 0; a < corners; a++)
                for (int e = s->head[jb[a]]; e >= 0; e = s->next[e]) {
                    int fx = s->fixedb[jb[a]];
                    for (int k = 0; k < 3; k++) {
                        double *col = B + (size_t)(3 * s->bcol[e] + k) * (size_t)s->N + 3 * i;
                        for (int l = 0; l < 3; l++)
                            col[l] += s->w[e] * (fx ? -h[a][l][k] : g[a][l][k]);
                    }
                }
        }
        if (s->fixedb[i])
            for (int e = s->head[i]; e >= 0; e = s->next[e])
                for (int k = 0; k < 3; k++)
                    for (int l = 0; l < 3; l++)
                        B[(size_t)(3 * s->bcol[e] + k) * (size_t)s->N + 3 * i + l] +=
                            s->w[e] * s->hsum[9 * (size_t)i + 3 * l + k];
    }
}

/* Unit outward normal n of triangle t; returns its area. */
static double triangle_normal(const ep_mesh *m, int t, double n[3])
{
    const int *tv = &m->triangles[3 * t];
    ep_vec3_normal(&m->vertices[3 * tv[0]], &m->vertices[3 * tv[1]], &m->vertices[3 * tv[2]], n);
    double len = ep_vec3_norm(n);
    for (int a = 0; a < 3; a++)
        n[a] /= len;
    return len / 2;
}

/* The particular solution's constants and its tractions at every
 * triangle's corners (bemgf.h, MATH.md §12). */
static int body_setup(bemsys *s, const ep_bemgf_opts *o)
{
    const ep_mesh *m = s->m;
    double nu = o->nu;
    s->rho = o->rho;
    s->pq = s->pm = (1 - 2 * nu) / (4 - 6 * nu); /* mu / (lambda + 4 mu) */
    s->pl = nu / (2 - 3 * nu);                   /* lambda / (lambda + 4 mu) */
    s->bb = ep_calloc(3 * (size_t)s->N, sizeof *s->bb);
    s->tp = ep_malloc(27 * (size_t)m->nf, sizeof *s->tp);
    s->bn = ep_calloc(4 * (size_t)m->nf, sizeof *s->bn);
    s->br = ep_calloc(4 * (size_t)s->n, sizeof *s->br);
    s->gl = ep_malloc(54 * BODY_CHUNK * (size_t)omp_get_max_threads(), sizeof *s->gl);
    if (!s->bb || !s->tp || !s->bn || !s->br || !s->gl)
        return EP_ECOMPUTE;
    s->clk = 1;
    for (int r = 0; r < 32; r++) { /* a read of the thread's CPU clock, as body_sum's timing pays it */
        double c0 = ep_stats_thread_cpu(), c1 = ep_stats_thread_cpu();
        s->clk = fmin(s->clk, c1 - c0);
    }
    for (int j = 0; j < s->n; j++)
        for (int a = 0; a < 3; a++)
            s->x0[a] += s->x[3 * j + a] * s->len / s->n;
    for (int t = 0; t < m->nf; t++) {
        const int *tv = &m->triangles[3 * t];
        double n[3];
        triangle_normal(m, t, n);
        for (int a = 0; a < 3; a++) { /* body_sum's tables */
            int j = s->bidx[tv[a]];
            s->bn[4 * (size_t)t + a] = n[a];
            for (int c = 0; c < 3; c++)
                s->br[4 * (size_t)j + c] = s->fixedb[j] ? (c ? 0 : up_nd(s, j)) : m->vertices[3 * tv[a] + c] - s->x0[c];
        }
        for (int a = 0; a < 3; a++)
            for (int k = 0; k < 3; k++)
                particular_traction(s, &m->vertices[3 * tv[a]], n, k, s->tp + 27 * (size_t)t + 9 * a + 3 * k);
    }
    return EP_OK;
}

/* The body-force rows (bemgf.h) from the three right-hand sides summed in
 * the assembly, solved on the LU (three more columns of the first block:
 * solve_blocks): u_p added at free rows (physical units) and sigma(u_p)
 * nbar at fixed ones. */
static void body_rows(bemsys *s, const ep_bemgf_opts *o)
{
    const ep_mesh *m = s->m;
    double G = o->E / (2.0 * (1.0 + o->nu));
    for (int j = 0; j < s->n; j++) {
        double nbar[3] = {0, 0, 0}, y[3], t[3];
        for (int a = 0; a < 3; a++)
            y[a] = s->x[3 * j + a] * s->len;
        double w = 0;
        for (int p = s->ntri_ptr[j]; p < s->ntri_ptr[j + 1] && s->fixedb[j]; p++) {
            double n[3], area = triangle_normal(m, s->ntri[p], n);
            for (int a = 0; a < 3; a++)
                nbar[a] += area * n[a];
            w += area;
        }
        for (int a = 0; a < 3 && w > 0; a++)
            nbar[a] /= w;
        for (int k = 0; k < 3; k++) {
            double *col = s->bb + (size_t)k * s->N + 3 * j, *out = o->body + (size_t)k * s->N + 3 * j;
            if (s->fixedb[j]) {
                particular_traction(s, y, nbar, k, t);
                for (int b = 0; b < 3; b++)
                    out[b] = t[b] + col[b];
            } else
                for (int b = 0; b < 3; b++)
                    out[b] = col[b] * s->len / G + (b == k) * up_nd(s, j) * s->len / G;
        }
    }
}

/* Bytes of the serial solve: A (and its copy with check), one block of nq
 * right-hand sides, the nodes, the sink, the body force's and the interior
 * rows' kept boundary data. */
static double solve_memory(const ep_mesh *m, const ep_gf_layout *L, const ep_bemgf_opts *o, int nq)
{
    double N = 3.0 * L->n;
    return 8.0 * N * (N * (o->check ? 2 : 1) + nq) + 4.0 * N + 72.0 * L->n + 24.0 * m->nf + o->sink_memory +
           (o->body ? 59.0 * N + 252.0 * m->nf : 0) + /* bb, tp, body_sum's tables (its chunks: 28 KB a thread) */
           (o->npoints ? 16.0 * N * 3.0 * L->m : 0);
}

int ep_bemgf_sys_init(bemsys *s, const ep_mesh *m, const ep_gf_layout *L, const ep_bemgf_opts *o, int with_matrix)
{
    memset(s, 0, sizeof *s);
    s->m = m;
    s->M = 3 * L->m;
    s->nu = o->nu;
    s->G = o->E / (2.0 * (1.0 + o->nu));
    s->rot[0] = 1 / sqrt(14.0), s->rot[1] = 2 / sqrt(14.0), s->rot[2] = 3 / sqrt(14.0);
    s->constant = o->constant;
    s->n = L->n;
    s->N = 3 * L->n;
    int nn = s->constant ? m->nf : s->n;
    size_t nload = 0;
    for (int c = 0; c < L->m; c++)
        nload += L->load_ptr ? (size_t)(L->load_ptr[c + 1] - L->load_ptr[c]) : 1;
    s->bidx = ep_malloc((size_t)m->nv, sizeof *s->bidx);
    s->fixedb = ep_malloc((size_t)s->n, 1);
    s->x = ep_malloc(3 * (size_t)s->n, sizeof *s->x);
    s->hsum = ep_calloc(9 * (size_t)s->n, sizeof *s->hsum);
    s->ntri_ptr = ep_calloc((size_t)nn + 1, sizeof *s->ntri_ptr);
    s->ntri = ep_malloc(3 * (size_t)m->nf, sizeof *s->ntri);
    s->head = ep_malloc((size_t)nn, sizeof *s->head);
    s->next = ep_malloc(nload + 1, sizeof *s->next);
    s->bcol = ep_malloc(nload + 1, sizeof *s->bcol);
    s->w = ep_malloc(nload + 1, sizeof *s->w);
    s->tri = ep_malloc((size_t)m->nf, sizeof *s->tri);
    s->tmark = ep_calloc((size_t)m->nf, sizeof *s->tmark);
    if (with_matrix) {
        s->At = ep_calloc((size_t)s->N * (size_t)s->N, sizeof *s->At);
        s->ipiv = ep_malloc((size_t)s->N, sizeof *s->ipiv);
        if (o->check) {
            s->rres = ep_malloc((size_t)s->N, sizeof *s->rres);
            s->rscale = ep_malloc((size_t)s->N, sizeof *s->rscale);
        }
    }
    if (!s->bidx || !s->fixedb || !s->x || !s->hsum || !s->ntri_ptr || !s->ntri || !s->head || !s->next ||
        !s->bcol || !s->w || !s->tri || !s->tmark || (with_matrix && (!s->At || !s->ipiv)) ||
        (with_matrix && o->check && (!s->rres || !s->rscale)))
        return EP_ECOMPUTE;
    s->len = ep_mesh_diameter(m);
    for (int v = 0; v < m->nv; v++)
        s->bidx[v] = -1;
    for (int j = 0; j < m->nb; j++)
        s->bidx[m->boundary[j]] = j;
    for (int j = 0; j < nn; j++)
        s->head[j] = -1;
    for (int j = 0; j < s->n; j++) {
        const int *tv = &m->triangles[3 * L->row_vertex[j]];
        s->fixedb[j] = L->row_fixed[j];
        for (int a = 0; a < 3; a++)
            s->x[3 * j + a] = (s->constant ? (m->vertices[3 * tv[0] + a] + m->vertices[3 * tv[1] + a] +
                                              m->vertices[3 * tv[2] + a]) / 3.0
                                           : m->vertices[3 * L->row_vertex[j] + a]) / s->len;
    }
    /* the triangles touching each node, ascending */
    for (int t = 0; t < m->nf; t++)
        for (int a = 0; a < (s->constant ? 1 : 3); a++)
            s->ntri_ptr[(s->constant ? t : s->bidx[m->triangles[3 * t + a]]) + 1]++;
    for (int j = 0; j < nn; j++)
        s->ntri_ptr[j + 1] += s->ntri_ptr[j];
    for (int t = 0; t < m->nf; t++)
        for (int a = 0; a < (s->constant ? 1 : 3); a++) {
            int j = s->constant ? t : s->bidx[m->triangles[3 * t + a]];
            s->ntri[s->ntri_ptr[j]++] = t;
        }
    for (int j = nn; j > 0; j--)
        s->ntri_ptr[j] = s->ntri_ptr[j - 1];
    s->ntri_ptr[0] = 0;
    return EP_OK;
}

void ep_bemgf_sys_free(bemsys *s)
{
    free(s->bidx), free(s->fixedb), free(s->x), free(s->At), free(s->ipiv), free(s->hsum);
    free(s->ntri_ptr), free(s->ntri), free(s->rres), free(s->rscale);
    free(s->head), free(s->next), free(s->bcol), free(s->w), free(s->tri), free(s->tmark);
    free(s->bb), free(s->tp), free(s->bn), free(s->br), free(s->gl), free(s->sol);
    memset(s, 0, sizeof *s);
}

/* Phase 2: the rows of A, and the rigid-rotation residual (check).  The
 * sink's stage callback hears the rows done from the master thread. */
static void assemble(bemsys *s, int check, const ep_gf_sink *sink, ep_bemgf_stats *stats)
{
    double t0 = ep_now();
    long done = 0;
    double body_cpu = 0, cpu = 0;
    if (sink->stage)
        sink->stage(sink->ctx, "assembly", 0, s->n);
#pragma omp parallel for schedule(dynamic, 4) reduction(+ : body_cpu, cpu)
    for (int i = 0; i < s->n; i++) {
        double c0 = ep_stats_thread_cpu();
        assemble_row(s, i, s->gl ? s->gl + 54 * BODY_CHUNK * (size_t)omp_get_thread_num() : NULL, &body_cpu);
        cpu += ep_stats_thread_cpu() - c0;
        long d;
#pragma omp atomic capture
        d = ++done;
        if (sink->stage && omp_get_thread_num() == 0)
            sink->stage(sink->ctx, "assembly", d, s->n);
    }
    stats->body_data_flops = s->bb ? 162.0 * s->n * s->m->nf : 0;
    stats->t_body_data_cpu = body_cpu * s->n / ((s->n + BODY_TIMED - 1) / BODY_TIMED); /* the sample's share */
    stats->t_assemble_cpu = cpu;
    if (sink->stage)
        sink->stage(sink->ctx, "assembly", s->n, s->n);
    stats->t_assemble = ep_now() - t0;
    if (check) {
        double worst = 0, scale = 0;
        for (int p = 0; p < s->N; p++) {
            worst = fmax(worst, fabs(s->rres[p]));
            scale = fmax(scale, s->rscale[p]);
        }
        stats->rotation_residual = worst / scale;
    }
}

/* Node of a layout vertex (or triangle). */
static int node_of(const bemsys *s, int v) { return s->constant ? v : s->bidx[v]; }

/* The loads of block columns [c0, c0 + nc) by node, and the triangles they
 * touch (ascending, by a mark per triangle). */
static void block_loads(bemsys *s, const ep_gf_layout *L, int c0, int nc)
{
    s->nload = 0;
    s->nbtri = 0;
    for (int c = c0; c < c0 + nc; c++) {
        int k0 = L->load_ptr ? L->load_ptr[c] : 0, k1 = L->load_ptr ? L->load_ptr[c + 1] : 1;
        for (int k = k0; k < k1; k++) {
            int j = node_of(s, L->load_ptr ? L->load_vertex[k] : L->col_vertex[c]), e = s->nload++;
            s->bcol[e] = c - c0;
            s->w[e] = L->load_ptr ? L->load_weight[k] : 1.0;
            s->next[e] = s->head[j]; /* entries of a node: any order, each its own column */
            s->head[j] = e;
            for (int p = s->ntri_ptr[j]; p < s->ntri_ptr[j + 1]; p++)
                s->tmark[s->ntri[p]] = 1;
        }
    }
    for (int t = 0; t < s->m->nf; t++)
        if (s->tmark[t]) {
            s->tri[s->nbtri++] = t;
            s->tmark[t] = 0;
        }
}

int ep_bemgf_rhs(bemsys *s, const ep_gf_layout *L, int c0, int nc, double *B)
{
    block_loads(s, L, c0, nc);
    rhs_block(s, 3 * nc, B);
    for (int c = c0; c < c0 + nc; c++) { /* clear the loads */
        int k0 = L->load_ptr ? L->load_ptr[c] : 0, k1 = L->load_ptr ? L->load_ptr[c + 1] : 1;
        for (int k = k0; k < k1; k++)
            s->head[node_of(s, L->load_ptr ? L->load_vertex[k] : L->col_vertex[c])] = -1;
    }
    return EP_OK;
}

void ep_bemgf_units(const bemsys *s, const ep_gf_layout *L, int c0, int nc, double *B)
{
    double G = s->G, len = s->len;
    for (int c = 0; c < nc; c++) {
        int cf = s->fixedb[node_of(s, L->col_vertex[c0 + c])];
        for (int a = 0; a < 3; a++) {
            double *col = B + (size_t)(3 * c + a) * s->N;
            for (int j = 0; j < s->n; j++)
                for (int b = 0; b < 3; b++)
                    col[3 * j + b] *= cf ? (s->fixedb[j] ? G / len : 1.0) : (s->fixedb[j] ? 1.0 : len / G);
        }
    }
}

/* The boundary data of GF rows 3 c0 .. 3 (c0 + nc) (B in physical units)
 * into s->sol: at free nodes p the column's load and u solved, at fixed
 * ones p solved and u the column's own unit displacement or 0. */
static void keep_solution(bemsys *s, const ep_gf_layout *L, int c0, int nc, const double *B)
{
    size_t n3 = 3 * (size_t)s->n;
    for (int c = c0; c < c0 + nc; c++)
        for (int a = 0; a < 3; a++) {
            const double *col = B + (size_t)(3 * (c - c0) + a) * n3;
            double *p = s->sol + (3 * (size_t)c + a) * 2 * n3, *u = p + n3;
            memset(p, 0, 2 * n3 * sizeof *p);
            for (int j = 0; j < s->n; j++)
                for (int b = 0; b < 3; b++)
                    (s->fixedb[j] ? p : u)[3 * j + b] = col[3 * j + b];
            int k0 = L->load_ptr ? L->load_ptr[c] : 0, k1 = L->load_ptr ? L->load_ptr[c + 1] : 1;
            for (int k = k0; k < k1; k++) {
                int j = node_of(s, L->load_ptr ? L->load_vertex[k] : L->col_vertex[c]);
                (s->fixedb[j] ? u : p)[3 * j + a] += L->load_ptr ? L->load_weight[k] : 1.0;
            }
        }
}

/* Somigliana's rows at x (nondimensional) and their gradient: W[12][6n],
 * row l: u_l(x) = sum W[l] . (p, u) physical, W = ((len / G) G_x, -H_x);
 * row 3 + 3j + l: d u_l / d x_j (physical, per metre) by the derivative
 * kernels (bem.h ep_bem_triangle_grad).  Returns the trace of sum H_x / 3
 * (-1 inside, 0 outside: the solid angle).  With body rows (s->tp),
 * eb[l][k] = (len / G) sum G_x t_h over the free triangles' corners and
 * ebd[j][l][k] its gradient, t_h = -sigma(u_p^k) n_t there, exact per
 * triangle as in the assembly (body_sum): the part of the body columns'
 * u_h the nodal data do not carry. */
static double somigliana_rows(const bemsys *s, const double x[3], double lg, double *W, double eb[3][3],
                              double ebd[3][3][3])
{
    const ep_mesh *m = s->m;
    size_t n3 = 3 * (size_t)s->n, n6 = 2 * n3;
    double hs = 0, il = 1.0 / s->len;
    memset(W, 0, 12 * n6 * sizeof *W);
    memset(eb, 0, 9 * sizeof(double));
    memset(ebd, 0, 27 * sizeof(double));
    for (int t = 0; t < m->nf; t++) {
        double v[3][3], g[3][3][3], h[3][3][3], gd[3][3][3][3], hd[3][3][3][3];
        int jb[3];
        for (int a = 0; a < 3; a++) {
            jb[a] = s->bidx[m->triangles[3 * t + a]];
            for (int k = 0; k < 3; k++)
                v[a][k] = m->vertices[3 * m->triangles[3 * t + a] + k] / s->len;
        }
        ep_bem_triangle_grad(x, (const double(*)[3])v, s->nu, g, h, gd, hd);
        for (int a = 0; a < 3 && s->tp; a++)
            if (!s->fixedb[jb[a]])
                for (int k = 0; k < 3; k++) {
                    const double *tp = s->tp + 27 * (size_t)t + 9 * a + 3 * k;
                    for (int l = 0; l < 3; l++) {
                        eb[l][k] -= lg * (g[a][l][0] * tp[0] + g[a][l][1] * tp[1] + g[a][l][2] * tp[2]);
                        for (int j = 0; j < 3; j++)
                            ebd[j][l][k] -= lg * il * (gd[a][j][l][0] * tp[0] + gd[a][j][l][1] * tp[1] + gd[a][j][l][2] * tp[2]);
                    }
                }
        for (int a = 0; a < 3; a++)
            for (int l = 0; l < 3; l++) {
                hs += h[a][l][l];
                for (int k = 0; k < 3; k++) {
                    size_t cp = 3 * (size_t)jb[a] + k, cu = n3 + cp;
                    W[(size_t)l * n6 + cp] += lg * g[a][l][k];
                    W[(size_t)l * n6 + cu] -= h[a][l][k];
                    for (int j = 0; j < 3; j++) {
                        double *row = W + (size_t)(3 + 3 * j + l) * n6;
                        row[cp] += lg * il * gd[a][j][l][k];
                        row[cu] -= il * hd[a][j][l][k];
                    }
                }
            }
    }
    return hs / 3;
}

/* The body columns' boundary data (MATH.md §12) as s->sol's rows m3 ..
 * m3 + 2, physical: u_h solved at free nodes, -u_p at fixed ones; t_h
 * solved at fixed nodes (the free triangles' -sigma(u_p) n_t go by
 * somigliana_rows' eb). */
static void keep_body(bemsys *s, const ep_bemgf_opts *o, int m3)
{
    size_t n3 = 3 * (size_t)s->n;
    double G = o->E / (2.0 * (1.0 + o->nu));
    for (int k = 0; k < 3; k++) {
        double *p = s->sol + (size_t)(m3 + k) * 2 * n3, *u = p + n3;
        const double *col = s->bb + (size_t)k * s->N;
        memset(p, 0, 2 * n3 * sizeof *p);
        for (int j = 0; j < s->n; j++)
            for (int b = 0; b < 3; b++) {
                if (s->fixedb[j]) {
                    p[3 * j + b] = col[3 * j + b];
                    u[3 * j + b] = b == k ? -up_nd(s, j) * s->len / G : 0;
                } else
                    u[3 * j + b] = col[3 * j + b] * s->len / G;
            }
    }
}

/* The interior rows (bemgf.h) of every kept column: per point its
 * Somigliana rows and their gradient by the derivative kernels; per batch
 * of EP_BEMGF_POINTS points one product with the kept data (12 B x 6n
 * times 6n x 3m, and the 3 body columns: the 16 x 3m n bytes of kept data
 * read once a batch, not once a point), then the displacement and Hooke's stress on the gradient (the
 * body columns': of u = u_p + u_h, u_p's gradient exact).  Points on
 * threads. */
static int interior_rows(bemsys *s, const ep_bemgf_opts *o, int m3g)
{
    int m3 = m3g + (s->tp ? 3 : 0); /* the GF rows, then the body rows */
    size_t n6 = 6 * (size_t)s->n, P = (size_t)o->npoints;
    double G = o->E / (2.0 * (1.0 + o->nu)), lam = 2 * G * o->nu / (1 - 2 * o->nu), lg = s->len / G;
    long nbat = ((long)P + EP_BEMGF_POINTS - 1) / EP_BEMGF_POINTS;
    int bad = -1;
#pragma omp parallel
    {
        double *W = ep_malloc(12 * EP_BEMGF_POINTS * n6, sizeof *W),
               *U = ep_malloc(12 * EP_BEMGF_POINTS * (size_t)m3, sizeof *U), (*eb)[3][3] = NULL, (*ebd)[3][3][3] = NULL;
        eb = ep_malloc(EP_BEMGF_POINTS, sizeof *eb), ebd = ep_malloc(EP_BEMGF_POINTS, sizeof *ebd);
#pragma omp for schedule(dynamic, 1)
        for (long bt = 0; bt < nbat; bt++) { /* a batch of points: one product reads the kept data once */
            long k0 = bt * EP_BEMGF_POINTS, nk = (long)P - k0 < EP_BEMGF_POINTS ? (long)P - k0 : EP_BEMGF_POINTS;
            if (!W || !U || !eb || !ebd) {
                bad = -2;
                continue;
            }
            for (long i = 0; i < nk; i++) {
                double x[3];
                for (int a = 0; a < 3; a++)
                    x[a] = o->points[3 * (k0 + i) + a] / s->len;
                if (somigliana_rows(s, x, lg, W + 12 * (size_t)i * n6, eb[i], ebd[i]) > -0.5)
                    bad = (int)(k0 + i);
            }
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, 12 * (int)nk, m3, (int)n6, 1.0, W, (int)n6, s->sol,
                        (int)n6, 0.0, U, m3);
            for (long i = 0; i < nk; i++) {
                long k = k0 + i;
                double *Ui = U + 12 * (size_t)i * m3, r[3], r2 = 0;
                for (int a = 0; a < 3; a++)
                    r[a] = o->points[3 * k + a] - s->x0[a], r2 += r[a] * r[a];
                for (int kk = 0; kk < 3 && s->tp; kk++) /* the body columns: + the free triangles' t_h, + u_p */
                    for (int l = 0; l < 3; l++) {
                        Ui[(size_t)l * m3 + m3g + kk] += eb[i][l][kk] - (l == kk) * s->pq * s->rho * r2 / (2 * G);
                        for (int j = 0; j < 3; j++)
                            Ui[(size_t)(3 + 3 * j + l) * m3 + m3g + kk] +=
                                ebd[i][j][l][kk] - (l == kk) * s->pq * s->rho * r[j] / G;
                    }
                for (int q = 0; q < m3; q++) {
                    double *out = o->interior + (size_t)q * 9 * P + 9 * (size_t)k, H[3][3];
                    for (int b = 0; b < 3; b++) {
                        out[b] = Ui[(size_t)b * m3 + q];
                        for (int j = 0; j < 3; j++)
                            H[b][j] = Ui[(size_t)(3 + 3 * j + b) * m3 + q];
                    }
                    double tr = lam * (H[0][0] + H[1][1] + H[2][2]);
                    for (int b = 0; b < 3; b++)
                        out[3 + b] = tr + 2 * G * H[b][b];
                    out[6] = G * (H[1][2] + H[2][1]), out[7] = G * (H[0][2] + H[2][0]), out[8] = G * (H[0][1] + H[1][0]);
                }
            }
        }
        free(W), free(U), free(eb), free(ebd);
    }
    if (bad == -2)
        return EP_ECOMPUTE;
    if (bad >= 0)
        return ep_fail(EP_EINPUT, "%s: interior point %d (%g, %g, %g) lies outside the body", s->m->source, bad + 1,
                       o->points[3 * bad], o->points[3 * bad + 1], o->points[3 * bad + 2]);
    return EP_OK;
}

/* Phase 4: every block of columns: right-hand sides, the transposed solve
 * with the LU of A^T (BLAS-3), sampled residuals (check), physical units,
 * and the rows to the sink. */
static int solve_blocks(bemsys *s, const ep_gf_layout *L, int ncb, const double *Acopy, const ep_gf_sink *sink,
                        ep_bemgf_stats *stats)
{
    int st = EP_OK, nsample = s->M < 8 ? s->M : 8;
    double *B = ep_malloc((size_t)s->N * (3 * (size_t)ncb + (s->bb ? 3 : 0)), sizeof *B),
           *Bs = Acopy ? ep_malloc((size_t)s->N * 8, sizeof *Bs) : NULL;
    if (!B || (Acopy && !Bs)) {
        st = EP_ECOMPUTE;
        goto out;
    }
    double worst = 0;
    for (int c0 = 0; c0 < L->m && !st; c0 += ncb) {
        int nc = L->m - c0 < ncb ? L->m - c0 : ncb, nq = 3 * nc;
        /* the body rows: three more columns, first in the first block (so
         * their bits do not depend on the block's width) */
        int nb = s->bb && c0 == 0 ? 3 : 0;
        double t0 = ep_now(), *Bg = B + (size_t)nb * s->N;
        ep_bemgf_rhs(s, L, c0, nc, Bg);
        stats->t_rhs += ep_now() - t0;
        int samp[8], ns = 0; /* sampled GF rows in this block: keep their right-hand sides */
        for (int k = 0; Acopy && k < nsample; k++) {
            long q = (long)k * (s->M - 1) / (nsample > 1 ? nsample - 1 : 1) - 3L * c0;
            if (q >= 0 && q < nq && (ns == 0 || samp[ns - 1] != q)) {
                memcpy(Bs + (size_t)ns * s->N, Bg + (size_t)q * s->N, sizeof(double) * (size_t)s->N);
                samp[ns++] = (int)q;
            }
        }
        if (nb)
            memcpy(B, s->bb, sizeof(double) * 3 * (size_t)s->N);
        t0 = ep_now();
        /* A x = b with A^T factored: the transposed solve */
        if (LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'T', s->N, nq + nb, s->At, s->N, s->ipiv, B, s->N) != 0) {
            st = ep_fail(EP_ECOMPUTE, "back-substitution failed");
            break;
        }
        double dt = ep_now() - t0;
        stats->t_solve += dt * nq / (nq + nb);
        if (nb) {
            stats->t_body_solve = dt * nb / (nq + nb);
            memcpy(s->bb, B, sizeof(double) * 3 * (size_t)s->N);
        }
        for (int k = 0; k < ns; k++) { /* r = A xi - b, with A = Acopy^T */
            double bn = 0, rn = 0, *r = Bs + (size_t)k * s->N;
            for (int p = 0; p < s->N; p++)
                bn = fmax(bn, fabs(r[p]));
            cblas_dgemv(CblasColMajor, CblasTrans, s->N, s->N, 1.0, Acopy, s->N, Bg + (size_t)samp[k] * s->N, 1,
                        -1.0, r, 1);
            for (int p = 0; p < s->N; p++)
                rn = fmax(rn, fabs(r[p]));
            worst = fmax(worst, rn / bn);
        }
        ep_bemgf_units(s, L, c0, nc, Bg);
        if (s->sol)
            keep_solution(s, L, c0, nc, Bg);
        t0 = ep_now();
        if ((st = sink->put(sink->ctx, 3L * c0, nq, Bg)))
            break;
        stats->t_write += ep_now() - t0;
        if (sink->progress)
            sink->progress(sink->ctx, 3L * (c0 + nc), s->M);
    }
    stats->solve_flops = 2.0 * (double)s->N * s->N * s->M;
    stats->column_residual = worst;
out:
    free(B), free(Bs);
    return st;
}

int ep_bemgf_solve(const ep_mesh *m, const ep_gf_layout *L, const ep_bemgf_opts *o, const ep_gf_sink *sink,
                   ep_bemgf_stats *stats)
{
    bemsys s;
    int st, ncb = o->block > 0 ? o->block : EP_BEMGF_BLOCK;
    double *Acopy = NULL;
    memset(&s, 0, sizeof s);
    memset(stats, 0, sizeof *stats);
    ncb = ncb < L->m ? ncb : L->m;
    stats->n3 = 3 * L->n;
    stats->memory = solve_memory(m, L, o, 3 * ncb);
    if (o->max_memory > 0 && stats->memory > o->max_memory) {
        st = ep_fail(EP_ECOMPUTE, "needs about %s (dense %d x %d matrix%s and %d right-hand sides%s), "
                     "more than the %s allowed", ep_mem_text(stats->memory), 3 * L->n, 3 * L->n,
                     o->check ? " twice" : "", 3 * ncb, o->sink_memory > 0 ? ", compression" : "",
                     ep_mem_text(o->max_memory));
        goto out;
    }
    if ((st = ep_bemgf_sys_init(&s, m, L, o, 1)) || (o->body && (st = body_setup(&s, o))))
        goto out;
    stats->length = s.len;
    assemble(&s, o->check, sink, stats);
    double anorm = 0;
    if (o->check) { /* keep A for the sampled residuals */
        if (!(Acopy = ep_malloc((size_t)s.N * (size_t)s.N, sizeof *Acopy))) {
            st = EP_ECOMPUTE;
            goto out;
        }
        memcpy(Acopy, s.At, sizeof(double) * (size_t)s.N * (size_t)s.N);
        anorm = LAPACKE_dlange(LAPACK_COL_MAJOR, '1', s.N, s.N, s.At, s.N);
    }
    double t0 = ep_now();
    if (sink->stage) /* one LAPACK call: its start and end */
        sink->stage(sink->ctx, "LU", 0, 1);
    if (LAPACKE_dgetrf(LAPACK_COL_MAJOR, s.N, s.N, s.At, s.N, s.ipiv) != 0) {
        st = ep_fail(EP_ECOMPUTE, "the BEM system is singular (a rigid motion left free, or duplicate or "
                     "degenerate elements)");
        goto out;
    }
    stats->t_lu = ep_now() - t0;
    if (sink->stage)
        sink->stage(sink->ctx, "LU", 1, 1);
    stats->lu_flops = 2.0 / 3.0 * (double)s.N * s.N * s.N;
    if (o->check)
        LAPACKE_dgecon(LAPACK_COL_MAJOR, '1', s.N, s.At, s.N, anorm, &stats->rcond);
    if (o->npoints && !(s.sol = ep_malloc(6 * (size_t)s.n * 3 * ((size_t)L->m + (s.tp ? 1 : 0)), sizeof *s.sol))) {
        st = EP_ECOMPUTE;
        goto out;
    }
    if (!(st = solve_blocks(&s, L, ncb, Acopy, sink, stats)) && s.bb)
        body_rows(&s, o);
    if (!st && o->npoints) {
        double t1 = ep_now();
        if (s.tp)
            keep_body(&s, o, 3 * L->m);
        st = interior_rows(&s, o, 3 * L->m);
        stats->t_interior = ep_now() - t1;
    }
out:
    ep_bemgf_sys_free(&s);
    free(Acopy);
    return st;
}
