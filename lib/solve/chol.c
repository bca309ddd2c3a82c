/*
 * chol.c — CHOLMOD settings and a factorization safe on small machines (chol.h).
 */
#include "chol.h"
#include "blas.h"
#include "err.h"
#include "narrow.h"
#include "supernodal.h"

#include <assert.h>
#include <cblas.h>
#include <omp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Fault in block[0 .. block[1]) from its end down, 32 MiB at a time, on a
 * thread of its own.  MADV_POPULATE_WRITE writes nothing, so the owner may
 * fill the block meanwhile; from the end down the two meet once instead of
 * contending for the same pages all the way up. */
static void *populate(void *arg)
{
    long pagesize = sysconf(_SC_PAGESIZE);
    size_t *block = arg, chunk = (size_t)32 << 20, page = pagesize > 0 ? (size_t)pagesize : 4096;
    for (size_t end = block[1]; end > 0;) {
        size_t start = end > chunk ? end - chunk : 0;
        size_t lo = (block[0] + start + page - 1) / page * page, hi = (block[0] + end) / page * page;
        if (hi > lo)
            madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE); /* a hint: Linux < 5.14 refuses it */
        end = start;
    }
    free(block);
    return NULL;
}

/* CHOLMOD's allocations (the factor above all: 1 GB for the R = 128 voxel
 * dragon) with huge pages (err.h: ep_huge_pages).  A block of 64 MiB or
 * more is also faulted in on a second thread: CHOLMOD factors on one, and
 * memory fresh from the hypervisor costs 2-3 s a GiB on these machines
 * (membw touch), which two threads pay in parallel (membw touch's last two
 * figures).  The voxel dragon's factor: 11.3-11.6 s -> 8.9-9.6 s
 * (voxelize.sh's moddesc line). */
static void *huge_malloc(size_t bytes)
{
    void *p = malloc(bytes);
    size_t *block;
    pthread_t t;
    ep_huge_pages(p, bytes);
    if (p && bytes >= (size_t)64 << 20 && (block = malloc(2 * sizeof *block))) {
        block[0] = (size_t)p, block[1] = bytes;
        if (pthread_create(&t, NULL, populate, block))
            free(block); /* no thread: the factorization faults the pages itself */
        else
            pthread_detach(t);
    }
    return p;
}

static void *huge_calloc(size_t n, size_t size)
{
    void *p = calloc(n, size);
    ep_huge_pages(p, n * size); /* calloc has checked n * size */
    return p;
}

static void *huge_realloc(void *p, size_t bytes)
{
    void *q = realloc(p, bytes);
    ep_huge_pages(q, bytes);
    return q;
}

static void use_huge_pages(void)
{
    SuiteSparse_config.malloc_func = huge_malloc;
    SuiteSparse_config.calloc_func = huge_calloc;
    SuiteSparse_config.realloc_func = huge_realloc;
}

void ep_chol_start(cholmod_common *c)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, use_huge_pages);
    cholmod_start(c);
    c->print = 0;
    c->supernodal = CHOLMOD_SUPERNODAL;
}

int ep_chol_fail(const char *what, const cholmod_common *c)
{
    if (c->status == CHOLMOD_OUT_OF_MEMORY)
        return ep_fail(EP_ECOMPUTE, "out of memory (%s)", what);
    return ep_fail(EP_ECOMPUTE, "%s failed (CHOLMOD status %d)", what, c->status);
}

/* The pattern of A's bs x bs blocks (A symmetric, one triangle stored):
 * a block present when any entry of it is.  bs = 1: A itself (not a
 * copy; the caller frees B only when B != A).  Cost O(nnz(A)). */
static cholmod_sparse *block_pattern(cholmod_sparse *A, int bs, cholmod_common *c)
{
    if (bs == 1)
        return A;
    int n = (int)A->ncol, nb = n / bs, *Ap = A->p, *Ai = A->i, *Anz = A->nz;
    size_t anz = cholmod_nnz(A, c);
    cholmod_sparse *B = cholmod_allocate_sparse(nb, nb, anz, 0, 1, A->stype, CHOLMOD_PATTERN, c);
    int *mark = ep_malloc((size_t)nb + 1, sizeof *mark);
    if (!B || !mark) {
        cholmod_free_sparse(&B, c);
        free(mark);
        return NULL;
    }
    int *Bp = B->p, *Bi = B->i, z = 0;
    for (int bi = 0; bi < nb; bi++)
        mark[bi] = -1;
    for (int bj = 0; bj < nb; bj++) {
        Bp[bj] = z;
        for (int j = bj * bs; j < (bj + 1) * bs; j++)
            for (int p = Ap[j], end = A->packed ? Ap[j + 1] : Ap[j] + Anz[j]; p < end; p++)
                if (mark[Ai[p] / bs] != bj)
                    mark[Ai[p] / bs] = bj, Bi[z++] = Ai[p] / bs;
    }
    Bp[nb] = z;
    free(mark);
    return B;
}

/* The symbolic factor of A under the ordering of B (A's blocks: A's
 * unknowns bs*k .. bs*k+bs-1 follow block k) by AMD (metis 0) or METIS
 * (metis 1), on c; out: fl[1], lnz[1] of it.  NULL when that ordering
 * failed (c->status).  Workspace: two permutations. */
static cholmod_factor *analyze_by(cholmod_sparse *A, cholmod_sparse *B, int bs, int metis, cholmod_common *c,
                                  double *fl, double *lnz)
{
    int n = (int)A->ncol, nb = (int)B->ncol, nmethods = c->nmethods, ordering = c->method[0].ordering;
    int *perm = ep_malloc((size_t)n + 1, sizeof *perm), *pb = ep_malloc((size_t)nb + 1, sizeof *pb);
    cholmod_factor *L = NULL;
    if (!perm || !pb)
        c->status = CHOLMOD_OUT_OF_MEMORY;
    else if (metis ? cholmod_metis(B, NULL, 0, 0, pb, c) : cholmod_amd(B, NULL, 0, pb, c)) {
        for (int k = 0; k < nb; k++)
            for (int r = 0; r < bs; r++)
                perm[bs * k + r] = bs * pb[k] + r;
        c->nmethods = 1, c->method[0].ordering = CHOLMOD_GIVEN;
        L = cholmod_analyze_p(A, perm, NULL, 0, c); /* postordered, supernodal: ep_chol_start's settings */
        c->nmethods = nmethods, c->method[0].ordering = ordering;
        *fl = c->fl, *lnz = c->lnz;
    }
    free(perm);
    free(pb);
    return L;
}

cholmod_factor *ep_chol_analyze(cholmod_sparse *A, int bs, cholmod_common *c)
{
    int n = (int)A->ncol, team = omp_get_max_threads() > 1;
    if (bs < 1 || n % bs)
        bs = 1;
    cholmod_sparse *B = block_pattern(A, bs, c);
    if (!B) {
        c->status = CHOLMOD_OUT_OF_MEMORY;
        return NULL;
    }
    double anz = (double)cholmod_nnz(A, c), fl[2] = {0, 0}, lnz[2] = {0, 0};
    cholmod_factor *La = NULL, *Lm = NULL;
    cholmod_common cm;
    ep_chol_start(&cm);
    /* AMD here, METIS beside it on a second thread when there is one
     * (alone, METIS only where the rule below can take it) */
#pragma omp parallel sections num_threads(2) if (team)
    {
#pragma omp section
        La = analyze_by(A, B, bs, 0, c, &fl[0], &lnz[0]);
#pragma omp section
        if (team)
            Lm = analyze_by(A, B, bs, 1, &cm, &fl[1], &lnz[1]);
    }
    int amd_good = La && (fl[0] < 500 * lnz[0] || lnz[0] < 5 * anz);
    if (!team && !amd_good)
        Lm = analyze_by(A, B, bs, 1, &cm, &fl[1], &lnz[1]);
    int take_metis = Lm && (!La || (!amd_good && lnz[1] < lnz[0]));
    /* the factor kept on c, so that c's memory counts hold it */
    cholmod_factor *L = take_metis ? cholmod_copy_factor(Lm, c) : La;
    if (take_metis)
        cholmod_free_factor(&La, c);
    cholmod_free_factor(&Lm, &cm);
    c->memory_usage += cm.memory_usage; /* the METIS side's peak on c's: a bound, as femgf sums its workers' */
    if (L) {
        c->status = CHOLMOD_OK;
        c->fl = fl[take_metis], c->lnz = lnz[take_metis];
    } else if (c->status >= CHOLMOD_OK) {
        c->status = cm.status < CHOLMOD_OK ? cm.status : CHOLMOD_OUT_OF_MEMORY;
    }
    cholmod_finish(&cm);
    if (B != A)
        cholmod_free_sparse(&B, c);
    return L;
}

int ep_chol_factorize_cholmod(cholmod_sparse *A, cholmod_factor *L, cholmod_common *c)
{
    int dynamic = omp_get_dynamic();
    ep_blas_threads b = ep_blas_serial();
    omp_set_dynamic(1);
    int ok = cholmod_factorize(A, L, c);
    omp_set_dynamic(dynamic);
    ep_blas_restore(b);
    return ok;
}

int ep_chol_factorize(cholmod_sparse *A, cholmod_factor *L, const char *what, cholmod_common *c)
{
    int minor = 0;
    if (ep_supernodal_takes(L, A)) {
        if (ep_supernodal_factor(L, A, &minor, c))
            return ep_fail(EP_ECOMPUTE, "out of memory (the factor of %s)", what);
    } else {
        int ok = ep_chol_factorize_cholmod(A, L, c);
        if (!ok || c->status == CHOLMOD_OUT_OF_MEMORY)
            return ep_chol_fail(what, c);
        minor = c->status == CHOLMOD_NOT_POSDEF ? (int)L->minor : (int)L->n;
    }
    if (minor < (int)L->n)
        return ep_fail(EP_ECOMPUTE, "%s is not positive definite (pivot %d of %d): a part of the mesh is not "
                       "held, or elements are degenerate", what, minor + 1, (int)L->n);
    return EP_OK;
}

/* Rows of a supernode's off-diagonal block rows[nr] in runs of consecutive
 * indices 16 long on average: then one dgemm per run on the block itself,
 * instead of a gather or scatter of every row through a workspace (short
 * runs make the dgemms too small to pay).  Returns the number of runs, 0
 * when they are short; with len given, their lengths into len. */
static int long_runs(const int *rows, int nr, int *len)
{
    int runs = 1;
    for (int r = 1; r < nr; r++)
        runs += rows[r] != rows[r - 1] + 1;
    if (16 * runs > nr)
        return 0;
    for (int r = 0, q = 0; len && r < nr; r++, q++)
        for (len[q] = 1; r + 1 < nr && rows[r + 1] == rows[r] + 1; r++)
            len[q]++;
    return runs;
}

int ep_chol_rplan_init(ep_chol_rplan *p, const cholmod_factor *L, const char *want)
{
    memset(p, 0, sizeof *p);
    assert(L->is_super && L->itype == CHOLMOD_INT); /* ep_chol_start's settings */
    const int *super = L->super, *pi = L->pi, *Ls = L->s, *Perm = L->Perm;
    p->L = L;
    p->n = (int)L->n;
    p->nsuper = (int)L->nsuper;
    /* one block: snode, pos, parent, run_ptr, then want (zeroed) */
    if (!(p->snode = ep_calloc(2 * (size_t)p->n + 3 * (size_t)p->nsuper + 1, sizeof *p->snode)))
        return EP_ECOMPUTE;
    p->pos = p->snode + p->n;
    p->parent = p->pos + p->n;
    p->run_ptr = p->parent + p->nsuper;
    p->want = p->run_ptr + p->nsuper + 1;
    for (int j = 0; j < p->n; j++)
        p->pos[Perm ? Perm[j] : j] = j;
    for (int s = 0; s < p->nsuper; s++)
        for (int j = super[s]; j < super[s + 1]; j++)
            p->snode[j] = s;
    /* The first off-diagonal row of a supernode lies in its parent; every
     * other one in an ancestor.  Children precede parents. */
    for (int s = 0; s < p->nsuper; s++) {
        int nscol = super[s + 1] - super[s], nsrow = pi[s + 1] - pi[s];
        p->parent[s] = nsrow > nscol ? p->snode[Ls[pi[s] + nscol]] : -1;
        p->run_ptr[s + 1] = p->run_ptr[s] + long_runs(Ls + pi[s] + nscol, nsrow - nscol, NULL);
        if (nsrow - nscol > p->maxrow)
            p->maxrow = nsrow - nscol;
    }
    if (!(p->run_len = ep_malloc((size_t)p->run_ptr[p->nsuper] + 1, sizeof *p->run_len)))
        return EP_ECOMPUTE;
    for (int s = 0; s < p->nsuper; s++) {
        int nscol = super[s + 1] - super[s], nsrow = pi[s + 1] - pi[s];
        if (p->run_ptr[s] < p->run_ptr[s + 1])
            long_runs(Ls + pi[s] + nscol, nsrow - nscol, p->run_len + p->run_ptr[s]);
    }
    for (int j = 0; j < p->n; j++)
        if (!want || want[Perm ? Perm[j] : j])
            p->want[p->snode[j]] = 1;
    for (int s = 0; s < p->nsuper; s++)
        if (p->want[s] && p->parent[s] >= 0)
            p->want[p->parent[s]] = 1;
    return EP_OK;
}

void ep_chol_rplan_ancestors(const ep_chol_rplan *p, char *mark)
{
    for (int s = 0; s < p->nsuper; s++) /* children precede parents */
        if (mark[s] && p->parent[s] >= 0)
            mark[p->parent[s]] = 1;
}

void ep_chol_rplan_free(ep_chol_rplan *p)
{
    free(p->snode); /* the block holding pos, parent, run_ptr and want too */
    free(p->run_len);
    memset(p, 0, sizeof *p);
}

double *ep_chol_rsolve_work(const ep_chol_rplan *p, int k)
{
    return ep_malloc((size_t)(p->n + p->maxrow) * (size_t)k + (size_t)p->nsuper, sizeof(double));
}

double *ep_chol_rsolve_ordered_work(const ep_chol_rplan *p, int k)
{
    return ep_malloc((size_t)p->maxrow * (size_t)k + (size_t)p->nsuper, sizeof(double));
}

/* Unknowns moved between B's columns and Z's rows at a time (chol.h). */
enum { TILE = EP_CHOL_TILE };

/* The place in B and X of unknown i (in A's order). */
#define ROW(i) (place ? (size_t)place[i] : (size_t)(i))

void ep_chol_rgather(const ep_chol_rplan *p, const int *place, size_t ld, double alpha, const double *B, double *Z,
                     int k, int i0, int i1)
{
    size_t uk = (size_t)k;
    /* TILE unknowns at a time: B's columns are read TILE values at a run
     * and Z's TILE rows stay in L1 while they fill (one value per cache
     * line either way was 12% of femcondense on the dragon: perf) */
    for (size_t r0 = (size_t)i0; r0 < (size_t)i1; r0 += TILE) {
        size_t nr = (size_t)i1 - r0 < TILE ? (size_t)i1 - r0 : TILE;
        const int *pos = p->pos + r0;
        for (size_t j = 0; j < uk; j++) {
            const double *b = B + j * ld;
            for (size_t r = 0; r < nr; r++) /* alpha = +-1 exact */
                Z[(size_t)pos[r] * uk + j] = alpha * b[ROW(r0 + r)];
        }
    }
}

void ep_chol_rscatter(const ep_chol_rplan *p, const int *place, size_t ld, const double *Z, double *X, int k, int i0,
                      int i1)
{
    size_t uk = (size_t)k;
    for (size_t r0 = (size_t)i0; r0 < (size_t)i1; r0 += TILE) { /* as ep_chol_rgather */
        size_t nr = (size_t)i1 - r0 < TILE ? (size_t)i1 - r0 : TILE;
        const int *pos = p->pos + r0;
        for (size_t j = 0; j < uk; j++) {
            double *x = X + j * ld;
            for (size_t r = 0; r < nr; r++)
                x[ROW(r0 + r)] = Z[(size_t)pos[r] * uk + j];
        }
    }
}
#undef ROW

double ep_chol_rsolve(const ep_chol_rplan *p, const double *B, double *X, int k, double *work)
{
    return ep_chol_rsolve_rows(p, NULL, (size_t)p->n, 1.0, B, X, k, work);
}

double ep_chol_rsolve_rows(const ep_chol_rplan *p, const int *place, size_t ld, double alpha, const double *B,
                           double *X, int k, double *work)
{
    double *Z = work; /* Z = P B row-major, then X = P^T x */
    ep_chol_rgather(p, place, ld, alpha, B, Z, k, 0, p->n);
    double flops = ep_chol_rsolve_ordered(p, Z, k, work + (size_t)p->n * (size_t)k);
    ep_chol_rscatter(p, place, ld, Z, X, k, 0, p->n);
    return flops;
}

double ep_chol_rsolve_ordered(const ep_chol_rplan *p, double *Z, int k, double *work)
{
    double flops = ep_chol_rforward(p, Z, k, work, NULL);
    return flops + ep_chol_rbackward(p, Z, k, work);
}

/* Supernode s of the plan's factor as the solves read it: columns k1 ..
 * k1 + nscol of the block Ld (nsrow x nscol, column-major), whose
 * off-diagonal rows are rows[nr]; X1 its rows of the row-major block Z of
 * k columns.  Adds the supernode's flops to *flops. */
typedef struct {
    int nscol, nsrow, nr;
    const double *Ld;
    const int *rows;
    double *X1;
} supernode;

static supernode supernode_of(const ep_chol_rplan *p, int s, double *Z, int k, double *flops)
{
    const cholmod_factor *L = p->L;
    const int *super = L->super, *pi = L->pi;
    supernode v = {super[s + 1] - super[s], pi[s + 1] - pi[s], 0, (const double *)L->x + ((int *)L->px)[s],
                   (const int *)L->s + pi[s] + super[s + 1] - super[s], Z + (size_t)super[s] * (size_t)k};
    v.nr = v.nsrow - v.nscol;
    *flops += (double)v.nscol * v.nscol * k + 2.0 * v.nr * v.nscol * k;
    return v;
}

/* Forward, L y = P b, at supernode v = s by BLAS: in the transposed
 * (column-major k x n) view, Y1^T L11^T = B1^T, then E^T = Y1^T L21^T
 * scattered into the rows below.  Workspace E [nr k]. */
static void blas_forward(const ep_chol_rplan *p, int s, const supernode *v, double *Z, int k, double *E)
{
    size_t uk = (size_t)k;
    int nscol = v->nscol, nsrow = v->nsrow, nr = v->nr;
    const double *Ld = v->Ld;
    double *Y1 = v->X1;
    cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, k, nscol, 1.0, Ld, nsrow, Y1, k);
    if (!nr)
        return;
    if (p->run_ptr[s] < p->run_ptr[s + 1]) { /* Z's rows r..r+len are a k x len block: update in place */
        for (int q = p->run_ptr[s], r = 0, len; q < p->run_ptr[s + 1]; q++, r += len) {
            len = p->run_len[q];
            cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, k, len, nscol, -1.0, Y1, k, Ld + nscol + r, nsrow,
                        1.0, Z + (size_t)v->rows[r] * uk, k);
        }
        return;
    }
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, k, nr, nscol, 1.0, Y1, k, Ld + nscol, nsrow, 0.0, E, k);
    for (int r = 0; r < nr; r++) {
        double *z = Z + (size_t)v->rows[r] * uk;
        const double *e = E + (size_t)r * uk;
#pragma omp simd
        for (size_t j = 0; j < uk; j++)
            z[j] -= e[j];
    }
}

/* Backward, L^T x = y, at supernode v = s by BLAS: gather the rows below,
 * X1^T -= E^T L21, then X1^T L11 = Y1^T.  Workspace E [nr k]. */
static void blas_backward(const ep_chol_rplan *p, int s, const supernode *v, double *Z, int k, double *E)
{
    size_t uk = (size_t)k;
    int nscol = v->nscol, nsrow = v->nsrow, nr = v->nr;
    const double *Ld = v->Ld;
    double *X1 = v->X1;
    if (p->run_ptr[s] < p->run_ptr[s + 1]) {
        for (int q = p->run_ptr[s], r = 0, len; q < p->run_ptr[s + 1]; q++, r += len) {
            len = p->run_len[q];
            cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, k, nscol, len, -1.0, Z + (size_t)v->rows[r] * uk, k,
                        Ld + nscol + r, nsrow, 1.0, X1, k);
        }
    } else if (nr) {
        for (int r = 0; r < nr; r++)
            memcpy(E + (size_t)r * uk, Z + (size_t)v->rows[r] * uk, uk * sizeof *E);
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, k, nscol, nr, -1.0, E, k, Ld + nscol, nsrow, 1.0, X1, k);
    }
    cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasNoTrans, CblasNonUnit, k, nscol, 1.0, Ld, nsrow, X1, k);
}

/* Supernode s's part of the forward sweep (backward = 0) or of the
 * backward one: narrow.c's loops when they take k, else BLAS.  Adds its
 * flops to *flops.  Workspace E [nr k]. */
static void sweep(const ep_chol_rplan *p, int s, double *Z, int k, double *E, double *flops, int backward)
{
    supernode v = supernode_of(p, s, Z, k, flops);
    if (ep_narrow_takes(k))
        (backward ? ep_narrow_backward : ep_narrow_forward)(k, k, v.nscol, v.nsrow, v.Ld, v.rows, v.X1, Z);
    else
        (backward ? blas_backward : blas_forward)(p, s, &v, Z, k, E);
}

double ep_chol_rforward(const ep_chol_rplan *p, double *Z, int k, double *work, const char *loaded)
{
    size_t n = (size_t)p->n, uk = (size_t)k;
    double *E = work, flops = 0;
    char *fwd = (char *)(E + (size_t)p->maxrow * uk);
    /* The supernodes holding a nonzero of B, then their ancestors. */
    if (loaded)
        memcpy(fwd, loaded, (size_t)p->nsuper);
    else
        memset(fwd, 0, (size_t)p->nsuper);
    for (size_t i = 0; i < n && !loaded; i++) {
        const double *z = Z + i * uk;
        int nz = 0;
        for (size_t j = 0; j < uk; j++)
            nz |= z[j] != 0;
        if (nz)
            fwd[p->snode[i]] = 1;
    }
    ep_chol_rplan_ancestors(p, fwd);
    for (int s = 0; s < p->nsuper; s++)
        if (fwd[s])
            sweep(p, s, Z, k, E, &flops, 0);
    return flops;
}

double ep_chol_rforward_lead(const ep_chol_rplan *p, double *Z, int k, double *work, const char *loaded, int lead)
{
    assert(lead >= 1 && lead <= 4 && k >= 4);
    double flops = 0, unused = 0;
    char *wide = (char *)(work + (size_t)p->maxrow * (size_t)k); /* ep_chol_rforward's marks, recomputed there */
    memcpy(wide, loaded, (size_t)p->nsuper);
    ep_chol_rplan_ancestors(p, wide);
    /* Outside the wide set no descendant is in it (it holds every
     * ancestor of its members): these supernodes may all go first. */
    for (int s = 0; s < p->nsuper; s++)
        if (!wide[s]) {
            supernode v = supernode_of(p, s, Z, k, &unused);
            flops += ((double)v.nscol * v.nscol + 2.0 * v.nr * v.nscol) * lead;
            ep_narrow_forward(4, k, v.nscol, v.nsrow, v.Ld, v.rows, v.X1, Z); /* columns lead..3: zeros stay zero */
        }
    return flops;
}

double ep_chol_rbackward(const ep_chol_rplan *p, double *Z, int k, double *work)
{
    double flops = 0;
    for (int s = p->nsuper - 1; s >= 0; s--)
        if (p->want[s])
            sweep(p, s, Z, k, work, &flops, 1);
    return flops;
}
