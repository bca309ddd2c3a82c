/*
 * bsr.c — sparse matrices of 3 x 3 blocks and scalar prolongations
 * (bsr.h).
 */
#include "bsr.h"
#include "err.h"
#include "kernel.h"
#include "sort.h"

#include <cholmod.h>

#include <stdlib.h>
#include <string.h>

void ep_bsr_free(ep_bsr *A)
{
    free(A->rowptr), free(A->col), free(A->val);
    memset(A, 0, sizeof *A);
}

void ep_csr_free(ep_csr *P)
{
    free(P->rowptr), free(P->col), free(P->val);
    memset(P, 0, sizeof *P);
}

int ep_bsr_alloc(ep_bsr *A, int n, int m, size_t nnzb)
{
    memset(A, 0, sizeof *A);
    A->n = n, A->m = m;
    A->rowptr = ep_calloc((size_t)n + 1, sizeof *A->rowptr);
    A->col = ep_malloc(nnzb ? nnzb : 1, sizeof *A->col);
    A->val = ep_malloc(9 * (nnzb ? nnzb : 1), sizeof *A->val);
    return A->rowptr && A->col && A->val ? EP_OK : EP_ECOMPUTE;
}

int ep_csr_alloc(ep_csr *P, int n, int m, size_t nnz)
{
    memset(P, 0, sizeof *P);
    P->n = n, P->m = m;
    P->rowptr = ep_calloc((size_t)n + 1, sizeof *P->rowptr);
    P->col = ep_malloc(nnz ? nnz : 1, sizeof *P->col);
    P->val = ep_malloc(nnz ? nnz : 1, sizeof *P->val);
    return P->rowptr && P->col && P->val ? EP_OK : EP_ECOMPUTE;
}

/* Symmetric K: column 3I + a of the CSC arrays is row 3I + a, so block row
 * I gathers columns 3I..3I+2. */
int ep_bsr_from_cholmod(ep_bsr *A, const cholmod_sparse *K)
{
    const int *Kp = K->p, *Ki = K->i;
    const double *Kx = K->x;
    int n = (int)K->ncol / 3, *mark = ep_malloc((size_t)n, sizeof *mark);
    memset(A, 0, sizeof *A);
    if (!mark)
        return EP_ECOMPUTE;
    for (int J = 0; J < n; J++)
        mark[J] = -1;
    size_t nnzb = 0;
    for (int I = 0; I < n; I++) {
        mark[I] = I, nnzb++; /* the diagonal block, also of a vertex no element uses */
        for (int a = 0; a < 3; a++)
            for (int k = Kp[3 * I + a]; k < Kp[3 * I + a + 1]; k++)
                if (mark[Ki[k] / 3] != I)
                    mark[Ki[k] / 3] = I, nnzb++;
    }
    if (ep_bsr_alloc(A, n, n, nnzb)) {
        free(mark);
        return EP_ECOMPUTE;
    }
    for (int J = 0; J < n; J++)
        mark[J] = -1;
    size_t q = 0;
    for (int I = 0; I < n; I++) {
        size_t start = q;
        mark[I] = (int)q, A->col[q] = I, memset(&A->val[9 * q], 0, 9 * sizeof *A->val), q++;
        /* the row's blocks, ascending: CHOLMOD's columns are sorted */
        for (int a = 0; a < 3; a++)
            for (int k = Kp[3 * I + a]; k < Kp[3 * I + a + 1]; k++) {
                int J = Ki[k] / 3;
                if (mark[J] < (int)start) {
                    mark[J] = (int)q;
                    A->col[q] = J;
                    memset(&A->val[9 * q], 0, 9 * sizeof *A->val);
                    q++;
                }
            }
        /* insertion sort of the row (three sorted runs merged) */
        for (size_t s = start + 1; s < q; s++)
            for (size_t t = s; t > start && A->col[t - 1] > A->col[t]; t--) {
                int c = A->col[t];
                A->col[t] = A->col[t - 1], A->col[t - 1] = c;
            }
        for (size_t s = start; s < q; s++)
            mark[A->col[s]] = (int)s;
        for (int a = 0; a < 3; a++)
            for (int k = Kp[3 * I + a]; k < Kp[3 * I + a + 1]; k++) /* K[row][3I+a] = K[3I+a][row] */
                A->val[9 * (size_t)mark[Ki[k] / 3] + 3 * a + Ki[k] % 3] = Kx[k];
        A->rowptr[I + 1] = (int)q;
    }
    free(mark);
    return EP_OK;
}

cholmod_sparse *ep_bsr_to_cholmod(const ep_bsr *A, int upper, cholmod_common *c)
{
    /* CSC of A^T's pattern = CSR of A: column 3I + b of the result holds
     * rows 3J + a of blocks (J, I)... build it as A^T's rows, i.e. for a
     * symmetric A the same; for a general A transpose through CHOLMOD. */
    size_t nnz = 9 * (size_t)A->rowptr[A->n];
    cholmod_sparse *T = cholmod_allocate_sparse(3 * (size_t)A->m, 3 * (size_t)A->n, nnz, 1, 1, 0, CHOLMOD_REAL, c);
    if (!T) {
        ep_fail(EP_ECOMPUTE, "out of memory (a %d x %d block matrix for CHOLMOD)", A->n, A->m);
        return NULL;
    }
    int *Tp = T->p, *Ti = T->i;
    double *Tx = T->x;
    size_t q = 0;
    /* T = A^T in CSC: column 3I + a of T is row 3I + a of A */
    for (int I = 0; I < A->n; I++)
        for (int a = 0; a < 3; a++) {
            Tp[3 * I + a] = (int)q;
            for (int k = A->rowptr[I]; k < A->rowptr[I + 1]; k++)
                for (int b = 0; b < 3; b++) {
                    Ti[q] = 3 * A->col[k] + b;
                    Tx[q++] = A->val[9 * (size_t)k + 3 * a + b];
                }
        }
    Tp[3 * A->n] = (int)q;
    cholmod_sparse *R = cholmod_transpose(T, 1, c);
    cholmod_free_sparse(&T, c);
    if (R && upper) {
        cholmod_sparse *U = cholmod_copy(R, 1, 1, c);
        cholmod_free_sparse(&R, c);
        R = U;
    }
    if (!R)
        ep_fail(EP_ECOMPUTE, "CHOLMOD could not convert a %d x %d block matrix (status %d)", A->n, A->m, c->status);
    return R;
}

static inline void block_mult_add(const double *B, const double *x, double *y)
{
    y[0] += B[0] * x[0] + B[1] * x[1] + B[2] * x[2];
    y[1] += B[3] * x[0] + B[4] * x[1] + B[5] * x[2];
    y[2] += B[6] * x[0] + B[7] * x[1] + B[8] * x[2];
}

EP_KERNEL void ep_bsr_mult(const ep_bsr *A, const double *x, double *y)
{
    for (int I = 0; I < A->n; I++) {
        double s[3] = {0, 0, 0};
        for (int k = A->rowptr[I]; k < A->rowptr[I + 1]; k++)
            block_mult_add(&A->val[9 * (size_t)k], &x[3 * (size_t)A->col[k]], s);
        y[3 * I] = s[0], y[3 * I + 1] = s[1], y[3 * I + 2] = s[2];
    }
}

EP_KERNEL void ep_bsr_residual(const ep_bsr *A, const double *b, const double *x, double *r)
{
    for (int I = 0; I < A->n; I++) {
        double s[3] = {0, 0, 0};
        for (int k = A->rowptr[I]; k < A->rowptr[I + 1]; k++)
            block_mult_add(&A->val[9 * (size_t)k], &x[3 * (size_t)A->col[k]], s);
        r[3 * I] = b[3 * I] - s[0], r[3 * I + 1] = b[3 * I + 1] - s[1], r[3 * I + 2] = b[3 * I + 2] - s[2];
    }
}

void ep_bsr_hold(ep_bsr *A, const char *fixed)
{
    for (int I = 0; I < A->n; I++)
        for (int k = A->rowptr[I]; k < A->rowptr[I + 1]; k++) {
            int J = A->col[k];
            if (fixed[I] || fixed[J]) {
                double *B = &A->val[9 * (size_t)k];
                memset(B, 0, 9 * sizeof *B);
                if (I == J)
                    B[0] = B[4] = B[8] = 1;
            }
        }
}

long ep_bsr_find(const ep_bsr *A, int i, int j)
{
    int b = A->rowptr[i], e = A->rowptr[i + 1], lo = b + (int)EP_SORT_LOWER_BOUND(A->col + b, (size_t)(e - b), j);
    return lo < e && A->col[lo] == j ? lo : -1;
}

int ep_bsr_fill_empty_diagonal(ep_bsr *A)
{
    int changed = 0;
    for (int I = 0; I < A->n; I++) {
        long k = ep_bsr_find(A, I, I);
        if (k < 0)
            continue;
        double *B = &A->val[9 * k], s = 0;
        for (int t = 0; t < 9; t++)
            s += B[t] * B[t];
        if (s == 0)
            B[0] = B[4] = B[8] = 1, changed++;
    }
    return changed;
}

int ep_csr_transpose(ep_csr *Pt, const ep_csr *P)
{
    size_t nnz = (size_t)P->rowptr[P->n];
    if (ep_csr_alloc(Pt, P->m, P->n, nnz))
        return EP_ECOMPUTE;
    for (size_t k = 0; k < nnz; k++)
        Pt->rowptr[P->col[k] + 1]++;
    for (int j = 0; j < P->m; j++)
        Pt->rowptr[j + 1] += Pt->rowptr[j];
    int *next = ep_malloc((size_t)P->m + 1, sizeof *next);
    if (!next)
        return EP_ECOMPUTE;
    memcpy(next, Pt->rowptr, ((size_t)P->m + 1) * sizeof *next);
    for (int i = 0; i < P->n; i++) /* rows ascending: each row of Pt comes out sorted */
        for (int k = P->rowptr[i]; k < P->rowptr[i + 1]; k++) {
            int q = next[P->col[k]]++;
            Pt->col[q] = i, Pt->val[q] = P->val[k];
        }
    free(next);
    return EP_OK;
}

int ep_csr_permute(ep_csr *Q, const ep_csr *P, const int *rowperm, const int *colinv)
{
    if (ep_csr_alloc(Q, P->n, P->m, (size_t)P->rowptr[P->n]))
        return EP_ECOMPUTE;
    int q = 0;
    for (int i = 0; i < P->n; i++) {
        int o = rowperm ? rowperm[i] : i, start = q;
        for (int k = P->rowptr[o]; k < P->rowptr[o + 1]; k++) {
            int c = colinv ? colinv[P->col[k]] : P->col[k], t = q++;
            for (; t > start && Q->col[t - 1] > c; t--) /* insertion: rows are short */
                Q->col[t] = Q->col[t - 1], Q->val[t] = Q->val[t - 1];
            Q->col[t] = c, Q->val[t] = P->val[k];
        }
        Q->rowptr[i + 1] = q;
    }
    return EP_OK;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int ep_bsr_galerkin(ep_bsr *C, const ep_bsr *A, const ep_csr *P, const ep_csr *Pt)
{
    int nc = P->m, *mark = ep_malloc((size_t)nc, sizeof *mark), *row = ep_malloc((size_t)nc, sizeof *row);
    double *work = ep_calloc(9 * (size_t)nc, sizeof *work);
    int *where = ep_malloc((size_t)nc, sizeof *where), st = EP_ECOMPUTE;
    size_t cap = 0, nnzb = 0;
    memset(C, 0, sizeof *C);
    if (!mark || !row || !work || !where)
        goto out;
    C->n = C->m = nc;
    if (!(C->rowptr = ep_calloc((size_t)nc + 1, sizeof *C->rowptr)))
        goto out;
    for (int J = 0; J < nc; J++)
        mark[J] = -1, where[J] = -1;
    for (int I = 0; I < nc; I++) {
        int len = 0;
        for (int t = Pt->rowptr[I]; t < Pt->rowptr[I + 1]; t++) {
            int i = Pt->col[t];
            for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
                int j = A->col[k];
                for (int s = P->rowptr[j]; s < P->rowptr[j + 1]; s++)
                    if (mark[P->col[s]] != I)
                        mark[P->col[s]] = I, row[len++] = P->col[s];
            }
        }
        qsort(row, (size_t)len, sizeof *row, cmp_int);
        if (ep_grow_to(&C->col, &cap, nnzb + (size_t)len, sizeof *C->col))
            goto out;
        memcpy(&C->col[nnzb], row, (size_t)len * sizeof *row);
        nnzb += (size_t)len;
        C->rowptr[I + 1] = (int)nnzb;
    }
    if (!(C->val = ep_malloc(9 * (nnzb ? nnzb : 1), sizeof *C->val)))
        goto out;
    ep_bsr_galerkin_values(C, A, P, Pt, work, where);
    st = EP_OK;
out:
    free(mark), free(row), free(work), free(where);
    return st;
}

void ep_bsr_galerkin_values(ep_bsr *C, const ep_bsr *A, const ep_csr *P, const ep_csr *Pt, double *work, int *where)
{
    for (int I = 0; I < C->n; I++) {
        for (int k = C->rowptr[I]; k < C->rowptr[I + 1]; k++)
            where[C->col[k]] = 1;
        for (int t = Pt->rowptr[I]; t < Pt->rowptr[I + 1]; t++) {
            int i = Pt->col[t];
            double pi = Pt->val[t];
            for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
                const double *B = &A->val[9 * (size_t)k];
                int j = A->col[k];
                for (int s = P->rowptr[j]; s < P->rowptr[j + 1]; s++) {
                    double w = pi * P->val[s], *acc = &work[9 * (size_t)P->col[s]];
                    for (int e = 0; e < 9; e++)
                        acc[e] += w * B[e];
                }
            }
        }
        for (int k = C->rowptr[I]; k < C->rowptr[I + 1]; k++) {
            double *acc = &work[9 * (size_t)C->col[k]];
            memcpy(&C->val[9 * (size_t)k], acc, 9 * sizeof *acc);
            memset(acc, 0, 9 * sizeof *acc);
            where[C->col[k]] = 0;
        }
    }
}

EP_KERNEL void ep_csr_prolong(const ep_csr *P, const double *xc, double *xf)
{
    for (int i = 0; i < P->n; i++) {
        double s0 = 0, s1 = 0, s2 = 0;
        for (int k = P->rowptr[i]; k < P->rowptr[i + 1]; k++) {
            const double *x = &xc[3 * (size_t)P->col[k]];
            double w = P->val[k];
            s0 += w * x[0], s1 += w * x[1], s2 += w * x[2];
        }
        xf[3 * i] += s0, xf[3 * i + 1] += s1, xf[3 * i + 2] += s2;
    }
}

void ep_csr_restrict(const ep_csr *Pt, const double *xf, double *xc)
{
    ep_csr_prolong(Pt, xf, (memset(xc, 0, 3 * (size_t)Pt->n * sizeof *xc), xc));
}

double ep_bsr_bytes(const ep_bsr *A)
{
    return (double)(A->n + 1) * sizeof(int) + (double)A->rowptr[A->n] * (sizeof(int) + 9 * sizeof(double));
}

double ep_csr_bytes(const ep_csr *P)
{
    return (double)(P->n + 1) * sizeof(int) + (double)P->rowptr[P->n] * (sizeof(int) + sizeof(double));
}
