/*
 * bemmpi.c — dense BEM Green's functions over MPI (bemmpi.h; MATH.md §15).
 */
#include "bemmpi.h"
#include "err.h"
#include "mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Global row or column p of a block-cyclic layout (blocks of nb over np
 * processes, from process 0): its owner and its local index there. */
static int owner(int p, int np) { return (p / EP_BEMMPI_NB) % np; }
static int local(int p, int np) { return (p / (EP_BEMMPI_NB * np)) * EP_BEMMPI_NB + p % EP_BEMMPI_NB; }

static int numroc(int n, int iproc, int nprocs)
{
    int nb = EP_BEMMPI_NB, zero = 0;
    return numroc_(&n, &nb, &iproc, &zero, &nprocs);
}

double ep_bemmpi_bytes(const ep_ranks_grid *g, int n, int nf, int ncb)
{
    int N = 3 * n, kc = (ncb + g->size - 1) / g->size;
    double locr = numroc(N, g->myrow, g->pr), locc = numroc(N, g->mycol, g->pc),
           locq = numroc(3 * ncb, g->mycol, g->pc);
    return 8.0 * locr * locc + 8.0 * N * 3.0 * kc + 8.0 * locr * locq + 4.0 * (locr + EP_BEMMPI_NB) +
           160.0 * n + 40.0 * nf;
}

/* This rank's blocks of A (column-major, leading dimension lld; MATH.md §6:
 * A_:j = -G_:j at fixed j, H_:j at free j), from the triangles that touch a
 * node of its columns, and hpart, each own row's sum_{j != i} h_ij over its
 * own columns (000 eq. B.6; the ranks' sums add up to bemgf's hsum). */
static int assemble_local(const ep_bemgf_sys *s, const ep_ranks_grid *g, double *A, int lld, double *hpart)
{
    const ep_mesh *m = s->m;
    int n = s->n, nrow = 0, ntl = 0;
    char *colloc = ep_calloc((size_t)n, 1), *tmark = ep_calloc((size_t)m->nf, 1);
    int *rows = ep_malloc((size_t)n, sizeof *rows), *tris = ep_malloc((size_t)m->nf, sizeof *tris);
    if (!colloc || !tmark || !rows || !tris) {
        free(colloc), free(tmark), free(rows), free(tris);
        return EP_ECOMPUTE;
    }
    for (int j = 0; j < n; j++) {
        if ((colloc[j] = owner(3 * j, g->pc) == g->mycol))
            for (int p = s->ntri_ptr[j]; p < s->ntri_ptr[j + 1]; p++)
                tmark[s->ntri[p]] = 1;
        if (owner(3 * j, g->pr) == g->myrow)
            rows[nrow++] = j;
    }
    for (int t = 0; t < m->nf; t++)
        if (tmark[t])
            tris[ntl++] = t;
#pragma omp parallel for schedule(dynamic, 4)
    for (int r = 0; r < nrow; r++) {
        int i = rows[r], lr = local(3 * i, g->pr);
        double hs[3][3] = {{0}};
        for (int q = 0; q < ntl; q++) {
            double gg[3][3][3], hh[3][3][3];
            int jb[3], corners = ep_bemgf_integrals(s, i, tris[q], jb, gg, hh);
            for (int a = 0; a < corners; a++) {
                int j = jb[a];
                if (!colloc[j])
                    continue;
                double *col = A + lr + (size_t)local(3 * j, g->pc) * (size_t)lld;
                for (int k = 0; k < 3; k++)
                    for (int l = 0; l < 3; l++) {
                        if (j != i)
                            hs[l][k] += hh[a][l][k];
                        col[(size_t)k * lld + l] += s->fixedb[j] ? -gg[a][l][k] : hh[a][l][k];
                    }
            }
        }
        memcpy(&hpart[9 * (size_t)i], hs, sizeof hs);
    }
    free(colloc), free(tmark), free(rows), free(tris);
    return EP_OK;
}

/* The diagonal blocks of free rows: H_ii = -sum_{j != i} h_ij (000 eq. B.6). */
static void add_diagonal(const ep_bemgf_sys *s, const ep_ranks_grid *g, double *A, int lld)
{
    for (int i = 0; i < s->n; i++)
        if (!s->fixedb[i] && owner(3 * i, g->pr) == g->myrow && owner(3 * i, g->pc) == g->mycol)
            for (int k = 0; k < 3; k++)
                for (int l = 0; l < 3; l++)
                    A[local(3 * i, g->pr) + l + (size_t)(local(3 * i, g->pc) + k) * lld] -=
                        s->hsum[9 * (size_t)i + 3 * l + k];
}

/* Every block of columns: this rank's share of the right-hand sides (whole
 * columns, 1 x P layout), to the grid, pdgetrs, back, units, the sink. */
static int solve_blocks(const ep_ranks_grid *g, ep_bemgf_sys *s, const ep_gf_layout *L, int ncb, const double *A,
                        const int *descA, const int *ipiv, const ep_gf_sink *sink, ep_bemgf_stats *stats)
{
    int N = s->N, P = g->size, kmax = (ncb + P - 1) / P, one = 1, zero = 0, info, st = EP_OK;
    int locr = numroc(N, g->myrow, g->pr), lld = locr > 1 ? locr : 1;
    size_t nline = (size_t)N * 3 * kmax, ngrid = (size_t)lld * (size_t)numroc(3 * ncb, g->mycol, g->pc);
    double *Bl = ep_malloc(nline ? nline : 1, sizeof *Bl), *B2 = ep_malloc(ngrid ? ngrid : 1, sizeof *B2);
    if ((st = ep_ranks_agree(!Bl || !B2 ? EP_ECOMPUTE : EP_OK)))
        goto out;
    for (int c0 = 0; c0 < L->m && !st; c0 += ncb) {
        int nc = L->m - c0 < ncb ? L->m - c0 : ncb, nq = 3 * nc, kc = (nc + P - 1) / P, nbq = 3 * kc;
        int cs = c0 + g->rank * kc, mine = c0 + nc - cs < kc ? c0 + nc - cs : kc, dl[9], d2[9], nbb = EP_BEMMPI_NB;
        mine = mine > 0 ? mine : 0;
        double t0 = ep_now();
        if (mine)
            ep_bemgf_rhs(s, L, cs, mine, Bl);
        stats->t_rhs += ep_now() - t0;
        t0 = ep_now();
        descinit_(dl, &N, &nq, &N, &nbq, &zero, &zero, &g->ctxt_line, &N, &info);
        descinit_(d2, &N, &nq, &nbb, &nbb, &zero, &zero, &g->ctxt, &lld, &info);
        pdgemr2d_(&N, &nq, Bl, &one, &one, dl, B2, &one, &one, d2, &g->ctxt_line);
        pdgetrs_("N", &N, &nq, A, &one, &one, descA, ipiv, B2, &one, &one, d2, &info);
        pdgemr2d_(&N, &nq, B2, &one, &one, d2, Bl, &one, &one, dl, &g->ctxt_line);
        stats->t_solve += ep_now() - t0;
        if (info)
            st = ep_fail(EP_ECOMPUTE, "back-substitution failed (pdgetrs info %d)", info);
        if (mine)
            ep_bemgf_units(s, L, cs, mine, Bl);
        t0 = ep_now();
        if (!st)
            st = sink->put(sink->ctx, 3L * cs, 3L * mine, Bl);
        st = ep_ranks_agree(st);
        stats->t_write += ep_now() - t0;
        if (!st && sink->progress)
            sink->progress(sink->ctx, 3L * (c0 + nc), s->M);
    }
    stats->solve_flops = 2.0 * (double)N * N * s->M;
out:
    free(Bl), free(B2);
    return st;
}

int ep_bemmpi_solve(const ep_ranks_grid *g, const ep_mesh *m, const ep_gf_layout *L, const ep_bemgf_opts *o,
                    const ep_gf_sink *sink, ep_bemgf_stats *stats)
{
    ep_bemgf_sys s;
    int st, ncb = o->block > 0 ? o->block : EP_BEMGF_BLOCK, N = 3 * L->n, one = 1, zero = 0, nbb = EP_BEMMPI_NB,
            info = 0, descA[9];
    double *A = NULL, *hpart = NULL;
    int *ipiv = NULL;
    memset(&s, 0, sizeof s);
    memset(stats, 0, sizeof *stats);
    if (o->body || o->npoints) /* the serial solve's only (bemgf.h); the same on every rank */
        return ep_fail(EP_EUSAGE, "%s is for the serial bemsolve", o->body ? "--body-force" : "--interior");
    ncb = ncb < L->m ? ncb : L->m;
    stats->n3 = N;
    stats->memory = ep_bemmpi_bytes(g, L->n, m->nf, ncb) + o->sink_memory;
    st = EP_OK;
    if (o->max_memory > 0 && stats->memory * g->node_ranks > o->max_memory)
        st = ep_fail(EP_ECOMPUTE, "needs about %s a rank (its share of the dense %d x %d matrix and of %d right-hand "
                     "sides%s), %d ranks on a node: more than the %s allowed", ep_mem_text(stats->memory), N, N,
                     3 * ncb, o->sink_memory > 0 ? ", compression" : "", g->node_ranks, ep_mem_text(o->max_memory));
    if ((st = ep_ranks_agree(st)))
        return st;
    int locr = numroc(N, g->myrow, g->pr), locc = numroc(N, g->mycol, g->pc), lld = locr > 1 ? locr : 1;
    st = ep_bemgf_sys_init(&s, m, L, o, 0);
    A = ep_calloc((size_t)lld * (size_t)(locc > 1 ? locc : 1), sizeof *A);
    ipiv = ep_malloc((size_t)locr + EP_BEMMPI_NB, sizeof *ipiv);
    hpart = ep_calloc(9 * (size_t)s.n + 1, sizeof *hpart);
    if ((st = ep_ranks_agree(st ? st : !A || !ipiv || !hpart ? EP_ECOMPUTE : EP_OK)))
        goto out;
    stats->length = s.len;
    descinit_(descA, &N, &N, &nbb, &nbb, &zero, &zero, &g->ctxt, &lld, &info);
    double t0 = ep_now();
    if ((st = ep_ranks_agree(assemble_local(&s, g, A, lld, hpart))))
        goto out;
    MPI_Allreduce(hpart, s.hsum, 9 * s.n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    add_diagonal(&s, g, A, lld);
    stats->t_assemble = ep_now() - t0;
    MPI_Barrier(MPI_COMM_WORLD); /* the LU's time without the assembly's imbalance */
    t0 = ep_now();
    pdgetrf_(&N, &N, A, &one, &one, descA, ipiv, &info);
    stats->t_lu = ep_now() - t0;
    stats->lu_flops = 2.0 / 3.0 * (double)N * N * N;
    if (info) { /* info is the same on every rank */
        st = info > 0 ? ep_fail(EP_ECOMPUTE, "the BEM system is singular (a rigid motion left free, or duplicate "
                                "or degenerate elements)")
                      : ep_fail(EP_ECOMPUTE, "pdgetrf: argument %d is wrong", -info);
        goto out;
    }
    st = solve_blocks(g, &s, L, ncb, A, descA, ipiv, sink, stats);
out:
    ep_bemgf_sys_free(&s);
    free(A), free(ipiv), free(hpart);
    return st;
}
