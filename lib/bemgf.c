/*
 * bemgf.c — dense BEM Green's function solve (bemgf.h).
 */
#include "bemgf.h"
#include "bem.h"
#include "err.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Unknown/known at each boundary row, and where its GF column goes. */
typedef struct {
    const ep_mesh *m;
    int n, N, M;        /* boundary vertices, 3n, 3m */
    int *bidx;          /* [nv] boundary position or -1 */
    char *fixedb;       /* [n] */
    int *col;           /* [n] GF column of the vertex, or -1 */
    double *x;          /* [n][3] scaled node positions */
    double len;         /* the length scale */
    double *At;         /* N x N column-major: A transposed, so a collocation row is contiguous */
    double *B;          /* N x M column-major right-hand sides */
    double nu;
    int constant;       /* constant elements: nodes are triangles, collocated at centroids */
    double rot[3];      /* rotation axis of the rigid-rotation check */
    double *rres;       /* [N] H u_rot (check) */
    double *rscale;     /* [N] sum |H| |u_rot| (check) */
} bemsys;

/* One collocation vertex i: its three rows of A (in place) and of B (into
 * brow[3][M], row-major, scattered by the caller) (MATH.md §6: A_:j = -G_:j
 * at fixed j, H_:j at free j; B_:j = G_:j for a free column, -H_:j for a
 * fixed one), with H_ii = -sum_{j != i} h_ij (000 eq. B.6). */
static void assemble_row(bemsys *s, int i, double *brow)
{
    const ep_mesh *m = s->m;
    double hsum[3][3] = {{0}}, ui[3], res[3] = {0, 0, 0}, scale[3] = {0, 0, 0};
    const double *xi = &s->x[3 * i];
    ui[0] = s->rot[1] * xi[2] - s->rot[2] * xi[1];
    ui[1] = s->rot[2] * xi[0] - s->rot[0] * xi[2];
    ui[2] = s->rot[0] * xi[1] - s->rot[1] * xi[0];
    for (int t = 0; t < m->nf; t++) {
        double v[3][3], g[3][3][3], h[3][3][3];
        int jb[3], sing = -1, corners = 3;
        for (int a = 0; a < 3; a++) {
            int w = m->triangles[3 * t + a];
            for (int k = 0; k < 3; k++)
                v[a][k] = m->vertices[3 * w + k] / s->len;
            jb[a] = s->constant ? t : s->bidx[w];
            if (!s->constant && jb[a] == i)
                sing = a;
        }
        if (s->constant) { /* one node per triangle: the hat integrals summed */
            ep_bem_triangle_constant(xi, (const double(*)[3])v, t == i, s->nu, g[0], h[0]);
            corners = 1;
        } else {
            ep_bem_triangle(xi, (const double(*)[3])v, sing, s->nu, g, h);
        }
        for (int a = 0; a < corners; a++) {
            int j = jb[a], c = s->col[j];
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
                    if (c >= 0)
                        brow[(size_t)l * (size_t)s->M + 3 * c + k] += s->fixedb[j] ? -h[a][l][k] : g[a][l][k];
                }
            }
        }
    }
    int c = s->col[i];
    for (int l = 0; l < 3; l++) {
        double *arow = s->At + (size_t)(3 * i + l) * (size_t)s->N;
        for (int k = 0; k < 3; k++) {
            res[l] -= hsum[l][k] * ui[k];
            scale[l] += fabs(hsum[l][k] * ui[k]);
            if (!s->fixedb[i])
                arow[3 * i + k] -= hsum[l][k];
            else if (c >= 0)
                brow[(size_t)l * (size_t)s->M + 3 * c + k] += hsum[l][k];
        }
        if (s->rres) {
            s->rres[3 * i + l] = res[l];
            s->rscale[3 * i + l] = scale[l];
        }
    }
}

int ep_bemgf_solve(const ep_mesh *m, const ep_gf_layout *L, const ep_bemgf_opts *o, double **xi,
                   ep_bemgf_stats *stats)
{
    bemsys s;
    int st = EP_OK, *ipiv = NULL, nsample = 0, sample[8];
    double *Acopy = NULL, *Bsample = NULL;
    memset(&s, 0, sizeof s);
    memset(stats, 0, sizeof *stats);
    s.m = m;
    s.M = 3 * L->m;
    s.nu = o->nu;
    s.rot[0] = 1 / sqrt(14.0), s.rot[1] = 2 / sqrt(14.0), s.rot[2] = 3 / sqrt(14.0);
    s.constant = o->constant;
    s.n = L->n;
    s.N = 3 * L->n;
    stats->n3 = s.N;
    stats->memory = 8.0 * s.N * ((double)s.N * (o->check ? 2 : 1) + s.M) + 4.0 * s.N +
                    8.0 * omp_get_max_threads() * 48.0 * s.M; /* row buffers of the assembly */
    if (o->max_memory > 0 && stats->memory > o->max_memory)
        return ep_fail(EP_ECOMPUTE, "needs about %.2f GiB (dense %d x %d matrix%s and %d right-hand sides), more "
                       "than the %.2f GiB allowed", stats->memory / 1073741824.0, s.N, s.N,
                       o->check ? " twice" : "", s.M, o->max_memory / 1073741824.0);
    s.bidx = ep_malloc((size_t)m->nv, sizeof *s.bidx);
    s.fixedb = ep_malloc((size_t)s.n, 1);
    s.col = ep_malloc((size_t)s.n, sizeof *s.col);
    s.x = ep_malloc(3 * (size_t)s.n, sizeof *s.x);
    s.At = ep_calloc((size_t)s.N * (size_t)s.N, sizeof *s.At);
    s.B = ep_malloc((size_t)s.N * (size_t)s.M, sizeof *s.B); /* every entry written once */
    ipiv = ep_malloc((size_t)s.N, sizeof *ipiv);
    if (o->check) {
        s.rres = ep_malloc((size_t)s.N, sizeof *s.rres);
        s.rscale = ep_malloc((size_t)s.N, sizeof *s.rscale);
    }
    if (!s.bidx || !s.fixedb || !s.col || !s.x || !s.At || !s.B || !ipiv || (o->check && (!s.rres || !s.rscale))) {
        st = EP_ECOMPUTE;
        goto out;
    }
    /* Nondimensional: G = 1, lengths over the model's diameter (000 §2.2.5).
     * Nodes: the boundary vertices, or the triangles' centroids. */
    stats->length = s.len = ep_mesh_diameter(m);
    for (int v = 0; v < m->nv; v++)
        s.bidx[v] = -1;
    for (int j = 0; j < m->nb; j++)
        s.bidx[m->boundary[j]] = j;
    for (int j = 0; j < s.n; j++) {
        const int *tv = &m->triangles[3 * L->row_vertex[j]];
        s.fixedb[j] = L->row_fixed[j];
        s.col[j] = -1;
        for (int a = 0; a < 3; a++)
            s.x[3 * j + a] = (s.constant ? (m->vertices[3 * tv[0] + a] + m->vertices[3 * tv[1] + a] +
                                            m->vertices[3 * tv[2] + a]) / 3.0
                                         : m->vertices[3 * L->row_vertex[j] + a]) / s.len;
    }
    for (int c = 0; c < L->m; c++)
        s.col[s.constant ? L->col_vertex[c] : s.bidx[L->col_vertex[c]]] = c;

    /* Rows of B are strided in its column-major storage: each thread fills a
     * chunk of CHUNK vertices' rows contiguously, then writes them as runs of
     * 3 CHUNK doubles per column. */
    enum { CHUNK = 16 };
    int failed = 0;
    double t0 = ep_now();
#pragma omp parallel reduction(| : failed)
    {
        double *buf = malloc(sizeof(double) * 3 * CHUNK * (size_t)s.M);
        failed = buf == NULL;
#pragma omp for schedule(dynamic, 1)
        for (int i0 = 0; i0 < s.n; i0 += CHUNK) {
            int i1 = i0 + CHUNK < s.n ? i0 + CHUNK : s.n;
            if (!buf)
                continue;
            memset(buf, 0, sizeof(double) * 3 * CHUNK * (size_t)s.M);
            for (int i = i0; i < i1; i++)
                assemble_row(&s, i, buf + (size_t)(3 * (i - i0)) * s.M);
            for (int q = 0; q < s.M; q++) {
                double *col = s.B + (size_t)q * s.N + 3 * i0;
                for (int r = 0; r < 3 * (i1 - i0); r++)
                    col[r] = buf[(size_t)r * s.M + q];
            }
        }
        free(buf);
    }
    if (failed) {
        st = ep_fail(EP_ECOMPUTE, "out of memory (assembly rows)");
        goto out;
    }
    stats->t_assemble = ep_now() - t0;
    if (o->check) {
        double worst = 0, scale = 0;
        for (int p = 0; p < s.N; p++) {
            worst = fmax(worst, fabs(s.rres[p]));
            scale = fmax(scale, s.rscale[p]);
        }
        stats->rotation_residual = worst / scale;
        /* Sampled columns: keep A and their right-hand sides for the residual. */
        nsample = L->m < 8 ? L->m : 8;
        Acopy = ep_malloc((size_t)s.N * (size_t)s.N, sizeof *Acopy);
        Bsample = ep_malloc((size_t)s.N * (size_t)nsample, sizeof *Bsample);
        if (!Acopy || !Bsample) {
            st = EP_ECOMPUTE;
            goto out;
        }
        memcpy(Acopy, s.At, sizeof(double) * (size_t)s.N * (size_t)s.N);
        for (int k = 0; k < nsample; k++) {
            sample[k] = (int)((long)k * (s.M - 1) / (nsample > 1 ? nsample - 1 : 1));
            memcpy(Bsample + (size_t)k * s.N, s.B + (size_t)sample[k] * s.N, sizeof(double) * (size_t)s.N);
        }
    }
    double anorm = o->check ? LAPACKE_dlange(LAPACK_COL_MAJOR, '1', s.N, s.N, s.At, s.N) : 0;

    t0 = ep_now();
    if (LAPACKE_dgetrf(LAPACK_COL_MAJOR, s.N, s.N, s.At, s.N, ipiv) != 0) {
        st = ep_fail(EP_ECOMPUTE, "the BEM system is singular (a rigid motion left free, or duplicate or "
                     "degenerate elements)");
        goto out;
    }
    stats->t_lu = ep_now() - t0;
    stats->lu_flops = 2.0 / 3.0 * (double)s.N * s.N * s.N;
    if (o->check)
        LAPACKE_dgecon(LAPACK_COL_MAJOR, '1', s.N, s.At, s.N, anorm, &stats->rcond);
    t0 = ep_now();
    /* A x = b with A^T factored: the transposed solve (BLAS-3), in blocks of
     * EP_BEMGF_BLOCK columns, so that a part of a split run (whose first
     * column is a multiple of the block) solves the very blocks the whole
     * run solves: OpenBLAS splits a solve's columns over its threads, and
     * a column's round-off depends on the split. */
    for (int q0 = 0; q0 < s.M; q0 += EP_BEMGF_BLOCK) {
        int nq = s.M - q0 < EP_BEMGF_BLOCK ? s.M - q0 : EP_BEMGF_BLOCK;
        if (LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'T', s.N, nq, s.At, s.N, ipiv, s.B + (size_t)q0 * s.N, s.N) != 0) {
            st = ep_fail(EP_ECOMPUTE, "back-substitution failed");
            goto out;
        }
    }
    stats->t_solve = ep_now() - t0;
    stats->solve_flops = 2.0 * (double)s.N * s.N * s.M;
    if (o->check) {
        double worst = 0;
        for (int k = 0; k < nsample; k++) {
            double *r = Bsample + (size_t)k * s.N, bn = 0, rn = 0;
            for (int p = 0; p < s.N; p++)
                bn = fmax(bn, fabs(r[p]));
            /* r = A xi - b, with A = Acopy^T */
            cblas_dgemv(CblasColMajor, CblasTrans, s.N, s.N, 1.0, Acopy, s.N, s.B + (size_t)sample[k] * s.N, 1,
                        -1.0, r, 1);
            for (int p = 0; p < s.N; p++)
                rn = fmax(rn, fabs(r[p]));
            worst = fmax(worst, rn / bn);
        }
        stats->column_residual = worst;
    }
    /* Back to physical units: a free column's displacement rows carry L/G,
     * a fixed column's traction rows G/L (G = E / 2(1 + nu)). */
    double G = o->E / (2.0 * (1.0 + o->nu)), len = stats->length;
    for (int c = 0; c < L->m; c++) {
        int cf = s.fixedb[s.constant ? L->col_vertex[c] : s.bidx[L->col_vertex[c]]];
        for (int a = 0; a < 3; a++) {
            double *col = s.B + (size_t)(3 * c + a) * s.N;
            for (int j = 0; j < s.n; j++)
                for (int b = 0; b < 3; b++)
                    col[3 * j + b] *= cf ? (s.fixedb[j] ? G / len : 1.0) : (s.fixedb[j] ? 1.0 : len / G);
        }
    }
    *xi = s.B;
    s.B = NULL;
out:
    free(s.bidx);
    free(s.fixedb);
    free(s.col);
    free(s.x);
    free(s.At);
    free(s.B);
    free(s.rres);
    free(s.rscale);
    free(ipiv);
    free(Acopy);
    free(Bsample);
    return st;
}
