/*
 * sgs.c — block Gauss-Seidel sweeps on a compact lower-triangle copy
 * (sgs.h).
 */
#include "sgs.h"
#include "err.h"
#include "kernel.h"

#include <stdlib.h>
#include <string.h>

void ep_sgs_free(ep_sgs *S)
{
    free(S->rowptr), free(S->col), free(S->val), free(S->dinv), free(S->perm), free(S->src);
    memset(S, 0, sizeof *S);
}

/* Breadth-first search of K's block graph from s over the vertices with
 * stamp[] != tag (stamped tag here) into queue; returns the count, the
 * start of the last level in *last and the number of levels in *depth. */
static int bfs(const ep_bsr *K, int s, int *stamp, int tag, int *queue, int *last, int *depth)
{
    int head = 0, tail = 0, level_end = 1;
    queue[tail++] = s, stamp[s] = tag, *last = 0, *depth = 1;
    while (head < tail) {
        if (head == level_end)
            *last = head, level_end = tail, ++*depth;
        int u = queue[head++];
        for (int k = K->rowptr[u]; k < K->rowptr[u + 1]; k++)
            if (stamp[K->col[k]] != tag)
                stamp[K->col[k]] = tag, queue[tail++] = K->col[k];
    }
    return tail;
}

int ep_sgs_order(const ep_bsr *K, int *perm)
{
    int n = K->n, *stamp = ep_calloc((size_t)n + 1, sizeof *stamp), *queue = ep_malloc((size_t)n + 1, sizeof *queue);
    if (!stamp || !queue) {
        free(stamp), free(queue);
        return EP_ECOMPUTE;
    }
#define DEG(v) (K->rowptr[(v) + 1] - K->rowptr[v])
    int tag = 1, done = 0; /* stamp 1: placed in perm; 2, 3, ...: the searches for a start */
    for (int first = 0; first < n; first++) {
        if (stamp[first] == 1)
            continue;
        /* a pseudo-peripheral start (George and Liu): from the far end of
         * the last search, while the eccentricity grows */
        int s = first, ecc = -1;
        for (int pass = 0; pass < 8; pass++) {
            int last, depth, cnt = bfs(K, s, stamp, ++tag, queue, &last, &depth), t = queue[last];
            for (int q = last; q < cnt; q++)
                if (DEG(queue[q]) < DEG(t))
                    t = queue[q];
            if (depth <= ecc)
                break;
            ecc = depth, s = t;
        }
        /* Cuthill-McKee from s: each vertex's new neighbours by ascending degree */
        int head = done;
        perm[done++] = s, stamp[s] = 1;
        while (head < done) {
            int u = perm[head++], from = done;
            for (int k = K->rowptr[u]; k < K->rowptr[u + 1]; k++) {
                int w = K->col[k];
                if (stamp[w] == 1)
                    continue;
                stamp[w] = 1;
                int q = done++;
                for (; q > from && DEG(perm[q - 1]) > DEG(w); q--) /* insertion: rows are short */
                    perm[q] = perm[q - 1];
                perm[q] = w;
            }
        }
    }
#undef DEG
    free(stamp), free(queue);
    return EP_OK;
}

int ep_sgs_build(ep_sgs *S, const ep_bsr *K, const double *Dinv, const int *perm)
{
    int n = K->n, *iperm = NULL;
    memset(S, 0, sizeof *S);
    S->n = n;
    if (perm) {
        S->perm = ep_malloc((size_t)n + 1, sizeof *S->perm);
        iperm = ep_malloc((size_t)n + 1, sizeof *iperm);
        if (!S->perm || !iperm)
            goto fail;
        memcpy(S->perm, perm, (size_t)n * sizeof *perm);
        for (int J = 0; J < n; J++)
            iperm[perm[J]] = J;
    }
    size_t nnz = 0;
    for (int J = 0; J < n; J++) {
        int o = perm ? perm[J] : J;
        for (int k = K->rowptr[o]; k < K->rowptr[o + 1]; k++)
            nnz += (iperm ? iperm[K->col[k]] : K->col[k]) < J;
    }
    S->rowptr = ep_malloc((size_t)n + 1, sizeof *S->rowptr);
    S->col = ep_malloc(nnz ? nnz : 1, sizeof *S->col);
    S->src = ep_malloc(nnz ? nnz : 1, sizeof *S->src);
    S->val = ep_malloc(9 * (nnz ? nnz : 1), sizeof *S->val);
    S->dinv = ep_malloc(6 * ((size_t)n ? (size_t)n : 1), sizeof *S->dinv);
    if (!S->rowptr || !S->col || !S->src || !S->val || !S->dinv)
        goto fail;
    size_t q = 0;
    S->rowptr[0] = 0;
    for (int J = 0; J < n; J++) {
        int o = perm ? perm[J] : J;
        size_t start = q;
        for (int k = K->rowptr[o]; k < K->rowptr[o + 1]; k++) {
            int c = iperm ? iperm[K->col[k]] : K->col[k];
            if (c >= J)
                continue;
            size_t t = q++; /* insertion by the new column: rows are short */
            for (; t > start && S->col[t - 1] > c; t--)
                S->col[t] = S->col[t - 1], S->src[t] = S->src[t - 1];
            S->col[t] = c, S->src[t] = k;
        }
        S->rowptr[J + 1] = (int)q;
    }
    free(iperm);
    ep_sgs_values(S, K, Dinv);
    return EP_OK;
fail:
    free(iperm);
    ep_sgs_free(S);
    return EP_ECOMPUTE;
}

void ep_sgs_values(ep_sgs *S, const ep_bsr *K, const double *Dinv)
{
    size_t nnz = (size_t)S->rowptr[S->n];
    for (size_t k = 0; k < nnz; k++) { /* block (J, I) of the order is K's (perm J, perm I) */
        const double *src = &K->val[9 * (size_t)S->src[k]];
        ep_sgs_real *dst = &S->val[9 * k];
        for (int e = 0; e < 9; e++)
            dst[e] = (ep_sgs_real)src[e];
    }
    for (int J = 0; J < S->n; J++) {
        const double *D = &Dinv[9 * (size_t)(S->perm ? S->perm[J] : J)];
        ep_sgs_real *d = &S->dinv[6 * (size_t)J];
        d[0] = (ep_sgs_real)D[0], d[3] = (ep_sgs_real)D[4], d[5] = (ep_sgs_real)D[8]; /* symmetric to rounding: the mean */
        d[1] = (ep_sgs_real)(0.5 * (D[1] + D[3])), d[2] = (ep_sgs_real)(0.5 * (D[2] + D[6])), d[4] = (ep_sgs_real)(0.5 * (D[5] + D[7]));
    }
}

/* s -= B y, B 3 x 3 row-major float. */
static inline void gather(const ep_sgs_real *B, const double *y, double *s0, double *s1, double *s2)
{
    *s0 -= (double)B[0] * y[0] + (double)B[1] * y[1] + (double)B[2] * y[2];
    *s1 -= (double)B[3] * y[0] + (double)B[4] * y[1] + (double)B[5] * y[2];
    *s2 -= (double)B[6] * y[0] + (double)B[7] * y[1] + (double)B[8] * y[2];
}

/* q += B^T d. */
static inline void push(const ep_sgs_real *B, double d0, double d1, double d2, double *q)
{
    q[0] += (double)B[0] * d0 + (double)B[3] * d1 + (double)B[6] * d2;
    q[1] += (double)B[1] * d0 + (double)B[4] * d1 + (double)B[7] * d2;
    q[2] += (double)B[2] * d0 + (double)B[5] * d1 + (double)B[8] * d2;
}

/* x_J = D~^-1 s (D~^-1 the 6 floats of a symmetric block). */
static inline void diag(const ep_sgs_real *D, double s0, double s1, double s2, double *y)
{
    y[0] = (double)D[0] * s0 + (double)D[1] * s1 + (double)D[2] * s2;
    y[1] = (double)D[1] * s0 + (double)D[3] * s1 + (double)D[4] * s2;
    y[2] = (double)D[2] * s0 + (double)D[4] * s1 + (double)D[5] * s2;
}

EP_KERNEL void ep_sgs_forward(const ep_sgs *S, const double *b, double *x, double *r, int zero)
{
    const int *rp = S->rowptr, *col = S->col;
    const ep_sgs_real *val = S->val;
    if (!zero) { /* r_J = sum_{I>J} K~_JI x_I: row I pushes K~_IJ^T x_I */
        memset(r, 0, 3 * (size_t)S->n * sizeof *r);
        for (int I = 0; I < S->n; I++)
            for (int k = rp[I]; k < rp[I + 1]; k++)
                push(&val[9 * (size_t)k], x[3 * I], x[3 * I + 1], x[3 * I + 2], &r[3 * (size_t)col[k]]);
    }
    for (int J = 0; J < S->n; J++) {
        double s0 = b[3 * J], s1 = b[3 * J + 1], s2 = b[3 * J + 2], y[3];
        if (!zero)
            s0 -= r[3 * J], s1 -= r[3 * J + 1], s2 -= r[3 * J + 2];
        int k0 = rp[J], k1 = rp[J + 1];
        for (int k = k0; k < k1; k++)
            gather(&val[9 * (size_t)k], &x[3 * (size_t)col[k]], &s0, &s1, &s2);
        diag(&S->dinv[6 * (size_t)J], s0, s1, s2, y);
        double d0 = zero ? y[0] : y[0] - x[3 * J], d1 = zero ? y[1] : y[1] - x[3 * J + 1],
               d2 = zero ? y[2] : y[2] - x[3 * J + 2];
        x[3 * J] = y[0], x[3 * J + 1] = y[1], x[3 * J + 2] = y[2];
        r[3 * J] = r[3 * J + 1] = r[3 * J + 2] = 0; /* the rows after J push their part here */
        for (int k = k0; k < k1; k++)
            push(&val[9 * (size_t)k], -d0, -d1, -d2, &r[3 * (size_t)col[k]]);
    }
}

EP_KERNEL void ep_sgs_backward(const ep_sgs *S, const double *b, double *x, double *acc)
{
    const int *rp = S->rowptr, *col = S->col;
    const ep_sgs_real *val = S->val;
    memset(acc, 0, 3 * (size_t)S->n * sizeof *acc);
    for (int J = S->n - 1; J >= 0; J--) {
        double s0 = b[3 * J] - acc[3 * J], s1 = b[3 * J + 1] - acc[3 * J + 1], s2 = b[3 * J + 2] - acc[3 * J + 2];
        int k0 = rp[J], k1 = rp[J + 1];
        for (int k = k0; k < k1; k++)
            gather(&val[9 * (size_t)k], &x[3 * (size_t)col[k]], &s0, &s1, &s2);
        double *y = &x[3 * J];
        diag(&S->dinv[6 * (size_t)J], s0, s1, s2, y);
        for (int k = k0; k < k1; k++)
            push(&val[9 * (size_t)k], y[0], y[1], y[2], &acc[3 * (size_t)col[k]]);
    }
}

double ep_sgs_bytes(const ep_sgs *S)
{
    return (double)(S->n + 1) * sizeof(int) + (double)S->n * 6 * sizeof(ep_sgs_real) +
           (double)S->rowptr[S->n] * (sizeof(int) + 9 * sizeof(ep_sgs_real));
}
