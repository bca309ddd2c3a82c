/*
 * elastic.c — energy, force and tangent of a hyperelastic body, assembled
 * by colors onto one pattern (elastic.h).
 */
#include "elastic.h"
#include "chol.h"
#include "err.h"
#include "fem.h"
#include "hex.h"
#include "sort.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAXPOINTS (EP_HEX_RULE_STVK * EP_HEX_RULE_STVK * EP_HEX_RULE_STVK)

/* Colors: greedy in rounds of 64 (a bit mask per vertex and round), so any
 * number of colors works.  Elements of a color in ascending order. */
static int color(ep_elastic *b)
{
    int nv = b->m->nv, ne = b->ne, left = ne, base = 0;
    uint64_t *used = ep_malloc((size_t)nv, sizeof *used);
    int *col = ep_malloc((size_t)ne + 1, sizeof *col);
    if (!used || !col) {
        free(used), free(col);
        return EP_ECOMPUTE;
    }
    for (int e = 0; e < ne; e++)
        col[e] = -1;
    while (left) {
        memset(used, 0, (size_t)nv * sizeof *used);
        for (int e = 0; e < ne; e++) {
            if (col[e] >= 0)
                continue;
            const int *c = b->el + (size_t)b->k * e;
            uint64_t taken = 0;
            for (int a = 0; a < b->k; a++)
                taken |= used[c[a]];
            if (taken == UINT64_MAX)
                continue;
            int bit = __builtin_ctzll(~taken);
            col[e] = base + bit;
            for (int a = 0; a < b->k; a++)
                used[c[a]] |= (uint64_t)1 << bit;
            left--;
        }
        base += 64;
    }
    int nc = 0;
    for (int e = 0; e < ne; e++)
        nc = col[e] + 1 > nc ? col[e] + 1 : nc;
    b->cptr = ep_calloc((size_t)nc + 2, sizeof *b->cptr);
    b->celem = ep_malloc((size_t)ne + 1, sizeof *b->celem);
    if (!b->cptr || !b->celem) {
        free(used), free(col);
        return EP_ECOMPUTE;
    }
    for (int e = 0; e < ne; e++)
        b->cptr[col[e] + 1]++;
    for (int c = 0; c < nc; c++)
        b->cptr[c + 1] += b->cptr[c];
    int *pos = ep_malloc((size_t)nc + 1, sizeof *pos);
    if (!pos) {
        free(used), free(col);
        return EP_ECOMPUTE;
    }
    memcpy(pos, b->cptr, (size_t)nc * sizeof *pos);
    for (int e = 0; e < ne; e++)
        b->celem[pos[col[e]]++] = e;
    b->ncolor = nc;
    free(pos), free(used), free(col);
    return EP_OK;
}

/* Position of row r in column j of b->K (sorted rows), or -1. */
static int find(const cholmod_sparse *K, int r, int j)
{
    const int *Ap = K->p, *Ai = K->i;
    int lo = Ap[j] + (int)EP_SORT_LOWER_BOUND(Ai + Ap[j], (size_t)(Ap[j + 1] - Ap[j]), r);
    return lo < Ap[j + 1] && Ai[lo] == r ? lo : -1;
}

/* Sx on K's pattern from a matrix S of a sub-pattern (same maps, upper). */
static void onto_pattern(const cholmod_sparse *K, const cholmod_sparse *S, double *Sx)
{
    const int *Sp = S->p, *Si = S->i;
    const double *x = S->x;
    memset(Sx, 0, sizeof *Sx * (size_t)((int *)K->p)[K->ncol]);
    for (int j = 0; j < (int)S->ncol; j++)
        for (int p = Sp[j]; p < Sp[j + 1]; p++) {
            int q = find(K, Si[p], j);
            assert(q >= 0);
            Sx[q] += x[p];
        }
}

int ep_elastic_init(ep_elastic *b, const ep_mesh *m, const ep_material *mat, ep_law_kind law, const char *fixed,
                    int lumped_mass)
{
    memset(b, 0, sizeof *b);
    b->m = m, b->mat = mat, b->law = law;
    b->ne = ep_mesh_elements(m, &b->el, &b->k);
    ep_chol_start(&b->c);
    char *keep = ep_malloc((size_t)m->nv + 1, 1);
    if (!keep)
        return EP_ECOMPUTE;
    for (int v = 0; v < m->nv; v++)
        keep[v] = !fixed || !fixed[v];
    int st = ep_fem_dofmap(m, keep, &b->map, &b->ndof);
    free(keep);
    if (st)
        return st;
    if ((st = ep_stvk_init(&b->geo, m, mat)))
        return st;
    /* the pattern of K (fem.h's stiffness), the mass on it */
    b->K = ep_fem_assemble(m, mat, EP_FEM_STIFFNESS, b->map, b->ndof, b->map, b->ndof, 1, &b->c);
    cholmod_sparse *M = b->K ? ep_fem_assemble(m, mat, lumped_mass ? EP_FEM_MASS_LUMPED : EP_FEM_MASS, b->map,
                                                b->ndof, b->map, b->ndof, 1, &b->c)
                             : NULL;
    size_t nnz = b->K ? (size_t)((int *)b->K->p)[b->ndof] : 0, kk = (size_t)b->k * b->k;
    b->Mx = ep_malloc(nnz + 1, sizeof *b->Mx);
    b->K0x = ep_malloc(nnz + 1, sizeof *b->K0x);
    b->slot = ep_malloc((size_t)b->ne * kk * 3 + 1, sizeof *b->slot);
    b->ework = ep_malloc((size_t)b->ne + 1, sizeof *b->ework);
    if (!M || !b->Mx || !b->K0x || !b->slot || !b->ework || color(b)) {
        cholmod_free_sparse(&M, &b->c);
        return EP_ECOMPUTE;
    }
    onto_pattern(b->K, M, b->Mx);
    cholmod_free_sparse(&M, &b->c);
#pragma omp parallel for schedule(static)
    for (int e = 0; e < b->ne; e++) {
        const int *c = b->el + (size_t)b->k * e;
        for (int a = 0; a < b->k; a++)
            for (int bb = 0; bb < b->k; bb++)
                for (int j = 0; j < 3; j++) {
                    int ra = b->map[c[a]], cb = b->map[c[bb]];
                    b->slot[((size_t)e * kk + (size_t)a * b->k + bb) * 3 + j] =
                        ra >= 0 && cb >= 0 && ra <= cb ? find(b->K, ra, cb + j) : -1;
                }
    }
    double *zero = ep_calloc(3 * (size_t)m->nv + 1, sizeof *zero);
    if (!zero || (st = ep_elastic_eval(b, zero, NULL, NULL, 1))) {
        free(zero);
        return EP_ECOMPUTE;
    }
    free(zero);
    memcpy(b->K0x, b->K->x, nnz * sizeof *b->K0x);
    return EP_OK;
}

void ep_elastic_free(ep_elastic *b)
{
    if (b->K)
        cholmod_free_sparse(&b->K, &b->c);
    if (b->m)
        cholmod_finish(&b->c);
    ep_stvk_free(&b->geo);
    free(b->map), free(b->Mx), free(b->K0x), free(b->slot);
    free(b->cptr), free(b->celem), free(b->ework);
    memset(b, 0, sizeof *b);
}

/* Element e: its energy, force added into f (NULL: none) and tangent added
 * into Kx at its slots (NULL: none).  f_a,i = sum_p w P_ij g_a,j;
 * K[3a+i][3b+k] = sum_p w sum_jl C[3i+j][3k+l] g_a,j g_b,l. */
static double element(const ep_elastic *b, int e, const double *u, double *f, double *Kx)
{
    double w[MAXPOINTS], g[MAXPOINTS][8][3], lambda, mu, W = 0;
    const int *c = b->el + (size_t)b->k * e, k = b->k;
    ep_material_lame(b->mat, e, &lambda, &mu);
    int n = ep_stvk_points(&b->geo, e, EP_HEX_RULE_STVK, w, g); /* stvk.c's rule */
    double Ke[24][24];
    if (Kx)
        memset(Ke, 0, sizeof Ke);
    for (int p = 0; p < n; p++) {
        double D[3][3] = {{0}}, P[3][3], C[9][9];
        for (int a = 0; a < k; a++) {
            const double *ua = &u[3 * (size_t)c[a]];
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    D[i][j] += ua[i] * g[p][a][j];
        }
        W += w[p] * ep_law_eval(b->law, lambda, mu, D, P, Kx ? C : NULL);
        if (f)
            for (int a = 0; a < k; a++) {
                double *fa = &f[3 * (size_t)c[a]];
                for (int i = 0; i < 3; i++)
                    fa[i] += w[p] * (P[i][0] * g[p][a][0] + P[i][1] * g[p][a][1] + P[i][2] * g[p][a][2]);
            }
        if (!Kx)
            continue;
        double CG[9][3][8]; /* sum_l C[3i+j][3k+l] g_b,l */
        for (int r = 0; r < 9; r++)
            for (int kk = 0; kk < 3; kk++)
                for (int bb = 0; bb < k; bb++)
                    CG[r][kk][bb] = C[r][3 * kk] * g[p][bb][0] + C[r][3 * kk + 1] * g[p][bb][1] +
                                    C[r][3 * kk + 2] * g[p][bb][2];
        for (int a = 0; a < k; a++)
            for (int i = 0; i < 3; i++)
                for (int bb = 0; bb < k; bb++)
                    for (int kk = 0; kk < 3; kk++)
                        Ke[3 * a + i][3 * bb + kk] +=
                            w[p] * (g[p][a][0] * CG[3 * i][kk][bb] + g[p][a][1] * CG[3 * i + 1][kk][bb] +
                                    g[p][a][2] * CG[3 * i + 2][kk][bb]);
    }
    if (Kx) {
        const int *s = b->slot + (size_t)e * k * k * 3;
        for (int a = 0; a < k; a++)
            for (int bb = 0; bb < k; bb++, s += 3)
                for (int j = 0; j < 3 && s[0] >= 0; j++)
                    for (int i = 0; i < 3; i++)
                        if (b->map[c[a]] < b->map[c[bb]] || i <= j)
                            Kx[s[j] + i] += Ke[3 * a + i][3 * bb + j];
    }
    return W;
}

int ep_elastic_eval(ep_elastic *b, const double *u, double *W, double *f, int tangent)
{
    double t0 = ep_now();
    double *Kx = tangent ? b->K->x : NULL;
    if (f)
        memset(f, 0, 3 * (size_t)b->m->nv * sizeof *f);
    if (Kx)
        memset(Kx, 0, (size_t)((int *)b->K->p)[b->ndof] * sizeof *Kx);
    for (int cl = 0; cl < b->ncolor; cl++) {
#pragma omp parallel for schedule(static) if (b->cptr[cl + 1] - b->cptr[cl] >= 4096)
        for (int q = b->cptr[cl]; q < b->cptr[cl + 1]; q++) { /* small colors serial: a team per color costs more */
            int e = b->celem[q];
            b->ework[e] = element(b, e, u, f, Kx);
        }
    }
    if (W) {
        double sum = 0;
        for (int e = 0; e < b->ne; e++)
            sum += b->ework[e];
        *W = sum;
    }
    b->t_eval += ep_now() - t0;
    b->neval++;
    return EP_OK;
}

void ep_elastic_symv(const ep_elastic *b, const double *Sx, const double *x, double *y)
{
    const int *Ap = b->K->p, *Ai = b->K->i;
    int n = b->ndof;
    memset(y, 0, (size_t)n * sizeof *y);
    for (int j = 0; j < n; j++) {
        double yj = 0;
        for (int p = Ap[j]; p < Ap[j + 1]; p++) {
            int i = Ai[p];
            yj += Sx[p] * x[i];
            if (i != j)
                y[i] += Sx[p] * x[j];
        }
        y[j] += yj;
    }
}

void ep_elastic_gather(const ep_elastic *b, const double *full, double *x)
{
    for (int v = 0; v < b->m->nv; v++)
        if (b->map[v] >= 0)
            memcpy(&x[b->map[v]], &full[3 * (size_t)v], 3 * sizeof *x);
}

void ep_elastic_scatter(const ep_elastic *b, const double *x, double *full)
{
    for (int v = 0; v < b->m->nv; v++) {
        if (b->map[v] >= 0)
            memcpy(&full[3 * (size_t)v], &x[b->map[v]], 3 * sizeof *x);
        else
            memset(&full[3 * (size_t)v], 0, 3 * sizeof *full);
    }
}
