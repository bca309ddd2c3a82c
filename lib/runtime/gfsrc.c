/*
 * gfsrc.c — GFs for a runtime, dense or wavelet compressed (gfsrc.h).
 */
#include "gfsrc.h"
#include "err.h"

#include <assert.h>
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Columns a wavelet gather synthesizes together: the closure's bookkeeping
 * once for 8, loops 72 values wide; z and col then take 72 n doubles
 * (370 KB at 642 vertices). */
enum { BATCH = 8 };

/* The dense file's rows ([3m][3n]: row 3c + a holds the responses to load
 * a at column c) into g->xi[m][n][9], block by block (gfsrc.h), a few MB of
 * columns at a time.  0, EP_EINPUT, EP_EIO or EP_ECOMPUTE. */
static int read_blocks(ep_gfsrc *g)
{
    size_t n = (size_t)g->n, n3 = 3 * n;
    int chunk = (int)((8 << 20) / (3 * n3 * sizeof(double))), st = EP_OK;
    chunk = chunk < 1 ? 1 : chunk > g->m ? g->m : chunk;
    double *rows = ep_malloc(3 * (size_t)chunk * n3, sizeof *rows);
    if (!rows)
        return EP_ECOMPUTE;
    for (int c0 = 0; c0 < g->m && !st; c0 += chunk) {
        int k = g->m - c0 < chunk ? g->m - c0 : chunk;
        if ((st = ep_gf_file_rows(g->file, 3L * c0, 3L * k, rows)))
            break;
        for (int c = 0; c < k; c++)
            for (size_t r = 0; r < n; r++)
                for (int a = 0; a < 3; a++)
                    for (int b = 0; b < 3; b++)
                        g->xi[((size_t)(c0 + c) * n + r) * 9 + 3 * b + a] = rows[(3 * (size_t)c + a) * n3 + 3 * r + b];
    }
    free(rows);
    return st;
}

int ep_gfsrc_open(ep_gfsrc *g, const char *path)
{
    int st;
    memset(g, 0, sizeof *g);
    if ((st = ep_gf_file_open(&g->own, path, NULL)))
        return st;
    if (!strcmp(g->own.f.kind, "gf-wavelet")) {
        ep_gf_file_close(&g->own);
        memset(&g->own, 0, sizeof g->own);
        g->wavelet = 1; /* ep_gfsrc_close then frees what a failed open read */
        if ((st = ep_gfw_open(&g->w, path)))
            return st;
        g->file = &g->w.g;
    } else
        g->file = &g->own;
    ep_gf_file *f = g->file;
    if (strcmp(f->entity, "vertex"))
        return ep_fail(EP_EINPUT, "%s: GFs of constant elements (entity triangle); the runtime needs vertex GFs",
                       path);
    g->n = f->L.n;
    g->m = f->L.m;
    g->body = f->body;
    g->np = f->np;
    g->points = f->points;
    g->interior = f->interior;
    g->interior_body = f->interior_body;
    /* femcondense's lumped GFs over free rows and columns are S_ff^-1 a_j
     * (MATH.md §1 "one boundary relation"); the consistent load M_s mixes
     * neighbours, the BEM's are not symmetric, and hierarchical columns
     * are hat loads (000 §3.6), not one vertex's */
    g->symmetric = !strncmp(f->method, "fem-", 4) && !strcmp(f->traction_model, "lumped") && f->constraint_level < 0;
    int *col_row;
    if ((st = ep_gf_layout_column_rows(&f->L, &col_row)))
        return st;
    if (!(g->col_of_row = ep_malloc((size_t)g->n, sizeof *g->col_of_row))) {
        free(col_row);
        return EP_ECOMPUTE;
    }
    for (int r = 0; r < g->n; r++)
        g->col_of_row[r] = -1;
    for (int c = 0; c < g->m; c++)
        g->col_of_row[col_row[c]] = c;
    free(col_row);
    if ((st = ep_gf_row_areas(f, &g->area)))
        return st;
    g->batch = 1;
    if (g->wavelet) {
        g->batch = BATCH;
        if ((st = ep_wavelet_ws_init(&g->ws, &g->w.W, 9)) ||
            !(g->acc = ep_malloc(3 * (size_t)g->n, sizeof *g->acc)) ||
            !(g->col = ep_malloc(9 * (size_t)BATCH * g->n, sizeof *g->col)) ||
            (st = ep_wavelet_subset_init(&g->u, &g->w.W)) ||
            !(g->z = ep_calloc(9 * (size_t)BATCH * g->n, sizeof *g->z)) || !(g->kept = ep_calloc((size_t)g->n, 1)) ||
            !(g->slots = ep_malloc((size_t)g->n, sizeof *g->slots)) ||
            (st = ep_wavelet_subset_init(&g->r, &g->w.W)) || !(g->ry = ep_calloc((size_t)g->n, sizeof *g->ry)) ||
            !(g->rslot = ep_malloc((size_t)g->n, sizeof *g->rslot)))
            return st ? st : EP_ECOMPUTE;
        return EP_OK;
    }
    if (!(g->xi = ep_malloc_huge(9 * (size_t)g->m * g->n, sizeof *g->xi)) ||
        !(g->col = ep_malloc(9 * (size_t)g->n, sizeof *g->col)))
        return EP_ECOMPUTE;
    return read_blocks(g);
}

void ep_gfsrc_close(ep_gfsrc *g)
{
    if (g->wavelet)
        ep_gfw_close(&g->w);
    else
        ep_gf_file_close(&g->own);
    ep_wavelet_ws_free(&g->ws);
    ep_wavelet_subset_free(&g->u);
    ep_wavelet_subset_free(&g->r);
    free(g->col_of_row), free(g->area), free(g->xi), free(g->acc), free(g->col), free(g->z), free(g->kept);
    free(g->slots);
    free(g->ry), free(g->rslot);
    memset(g, 0, sizeof *g);
}

int ep_gfsrc_gravity(const ep_gfsrc *g, const double beta[3], double *out)
{
    if (!g->body)
        return ep_fail(EP_EINPUT, "%s: no body-force rows /gf/body (femcondense or bemsolve --body-force)",
                       g->file->f.path);
    size_t n3 = 3 * (size_t)g->n;
    for (size_t i = 0; i < n3; i++)
        out[i] = beta[0] * g->body[i] + beta[1] * g->body[n3 + i] + beta[2] * g->body[2 * n3 + i];
    return EP_OK;
}

int ep_gfsrc_interior(const ep_gfsrc *g, int k, const int *cols, const double *loads, const double *beta,
                      double *out)
{
    size_t n9 = 9 * (size_t)g->np;
    int grav = beta && (beta[0] != 0 || beta[1] != 0 || beta[2] != 0);
    if (!g->interior)
        return ep_fail(EP_EINPUT, "%s: no interior rows /gf/interior (femcondense --interior)", g->file->f.path);
    if (grav && !g->interior_body)
        return ep_fail(EP_EINPUT, "%s: no interior body-force rows /gf/interior_body (--body-force)",
                       g->file->f.path);
    memset(out, 0, n9 * sizeof *out);
    for (int i = 0; i <= k; i++) {
        const double *w = i < k ? &loads[3 * (size_t)i] : beta,
                     *r = i < k ? g->interior + 3 * (size_t)cols[i] * n9 : g->interior_body;
        for (int a = 0; a < 3 && (i < k || grav); a++)
            if (w[a] != 0)
                cblas_daxpy((int)n9, w[a], r + (size_t)a * n9, 1, out, 1);
    }
    return EP_OK;
}

double ep_gfsrc_von_mises(const double s[6])
{
    double a = s[0] - s[1], b = s[1] - s[2], c = s[2] - s[0];
    return sqrt((a * a + b * b + c * c) / 2 + 3 * (s[3] * s[3] + s[4] * s[4] + s[5] * s[5]));
}

void ep_gfsrc_block(ep_gfsrc *g, int row, int col, double B[9])
{
    assert(row >= 0 && row < g->n && col >= 0 && col < g->m);
    if (g->wavelet) {
        ep_gfw_block(&g->w, col, row, &g->ws, B);
        return;
    }
    memcpy(B, &g->xi[((size_t)col * g->n + row) * 9], 9 * sizeof *B);
}

void ep_gfsrc_plan(ep_gfsrc *g, const int *rows, int nr)
{
    if (!g->wavelet)
        return;
    for (int k = 0; k < nr; k++)
        g->slots[k] = g->w.W.row_slot[rows[k]];
    ep_wavelet_subset_set(&g->u, &g->w.W, g->slots, nr);
}

/* Dense: a runtime's dense GFs are cold (27 MB for 642 vertices), so the
 * blocks a few ahead (72 bytes, one or two cache lines each) are
 * prefetched and their misses overlap instead of queueing one by one. */
static void dense_columns(ep_gfsrc *g, int nc, const int *nodes, int nr, const int *rows, double *out)
{
    enum { AHEAD = 16 };
    long total = (long)nc * nr;
    for (long t = 0; t < total; t++) {
        long u = t + AHEAD;
        if (u < total) {
            const double *x = g->xi + ((size_t)g->col_of_row[nodes[u / nr]] * g->n + rows[u % nr]) * 9;
            __builtin_prefetch(x), __builtin_prefetch(x + 8);
        }
        ep_gfsrc_block(g, rows[t % nr], g->col_of_row[nodes[t / nr]], &out[9 * t]);
    }
}

void ep_gfsrc_node_columns(ep_gfsrc *g, int nc, const int *nodes, int nr, const int *rows, double *out)
{
    if (!g->wavelet) {
        dense_columns(g, nc, nodes, nr, rows, out);
        return;
    }
    for (int c0 = 0; c0 < nc; c0 += BATCH) {
        int k = nc - c0 < BATCH ? nc - c0 : BATCH, cols[BATCH];
        for (int c = 0; c < k; c++)
            cols[c] = g->col_of_row[nodes[c0 + c]];
        ep_gfw_columns_rows(&g->w, k, cols, &g->u, nr, rows, g->kept, g->z, out + 9 * (size_t)c0 * nr);
    }
}

void ep_gfsrc_node_row(ep_gfsrc *g, int row, int k, const int *nodes, double *out)
{
    if (!g->wavelet) {
        for (int j = 0; j < k; j++)
            ep_gfsrc_block(g, row, g->col_of_row[nodes[j]], &out[9 * (size_t)j]);
        return;
    }
    double *w = g->col + 9 * (size_t)g->n; /* the second half of col */
    for (int j = 0; j < k; j++)
        g->slots[j] = g->col_of_row[nodes[j]];
    int nw = ep_wavelet_row_weights(&g->w.W, &g->r, g->w.W.row_slot[row], g->ry, g->rslot, w);
    ep_gfw_row(&g->w, nw, g->rslot, w, k, g->slots, out);
}

void ep_gfsrc_sum(ep_gfsrc *g, int k, const int *cols, const double *loads, double *out)
{
    if (g->wavelet) {
        ep_gfw_sum(&g->w, k, cols, loads, g->acc, out);
        return;
    }
    int n3 = 3 * g->n;
    memset(out, 0, (size_t)n3 * sizeof *out);
    for (int i = 0; i < k; i++) /* out[3r + b] += sum_a B(r)[3b + a] load[a]: column c's blocks as [3n][3] */
        cblas_dgemv(CblasRowMajor, CblasNoTrans, n3, 3, 1.0, &g->xi[9 * (size_t)cols[i] * g->n], 3, &loads[3 * i], 1,
                    1.0, out, 1);
}
