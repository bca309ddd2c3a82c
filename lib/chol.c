/*
 * chol.c — CHOLMOD settings and a factorization safe on small machines (chol.h).
 */
#include "chol.h"
#include "err.h"
#include "kernel.h"
#include "supernodal.h"

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
    /* OpenBLAS's setter also sets OpenMP's thread count: save both. */
    int dynamic = omp_get_dynamic(), blas = openblas_get_num_threads(), threads = omp_get_max_threads();
    openblas_set_num_threads(1);
    omp_set_dynamic(1);
    int ok = cholmod_factorize(A, L, c);
    omp_set_dynamic(dynamic);
    openblas_set_num_threads(blas);
    omp_set_num_threads(threads);
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

/* Rows of a supernode's off-diagonal block in runs of consecutive indices
 * 16 long on average: then one dgemm per run on the block itself, instead
 * of a gather or scatter of every row through a workspace (short runs make
 * the dgemms too small to pay). */
static int long_runs(const int *rows, int nr)
{
    int runs = 1;
    for (int r = 1; r < nr; r++)
        runs += rows[r] != rows[r - 1] + 1;
    return 16 * runs <= nr;
}

int ep_chol_rplan_init(ep_chol_rplan *p, const cholmod_factor *L, const char *want)
{
    memset(p, 0, sizeof *p);
    if (!L->is_super || L->itype != CHOLMOD_INT)
        return ep_fail(EP_ECOMPUTE, "restricted solves need a supernodal factor");
    const int *super = L->super, *pi = L->pi, *Ls = L->s, *Perm = L->Perm;
    p->L = L;
    p->n = (int)L->n;
    p->nsuper = (int)L->nsuper;
    /* one block: snode, pos, parent, runs, then want (zeroed) */
    if (!(p->snode = ep_calloc(2 * (size_t)p->n + 3 * (size_t)p->nsuper, sizeof *p->snode)))
        return EP_ECOMPUTE;
    p->pos = p->snode + p->n;
    p->parent = p->pos + p->n;
    p->runs = p->parent + p->nsuper;
    p->want = p->runs + p->nsuper;
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
        p->runs[s] = long_runs(Ls + pi[s] + nscol, nsrow - nscol);
        if (nsrow - nscol > p->maxrow)
            p->maxrow = nsrow - nscol;
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
    free(p->snode); /* the block holding pos, parent, runs and want too */
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

/* Unknowns moved between B's columns and Z's rows at a time: TILE rows of
 * Z (k values each: 16 KiB at femcondense's k = 64) stay in cache while
 * B's columns are read. */
enum { TILE = 32 };

double ep_chol_rsolve(const ep_chol_rplan *p, const double *B, double *X, int k, double *work)
{
    return ep_chol_rsolve_rows(p, NULL, (size_t)p->n, 1.0, B, X, k, work);
}

double ep_chol_rsolve_rows(const ep_chol_rplan *p, const int *place, size_t ld, double alpha, const double *B,
                           double *X, int k, double *work)
{
    size_t n = (size_t)p->n, uk = (size_t)k;
    /* the place in B and X of unknown i (in A's order) */
#define ROW(i) (place ? (size_t)place[i] : (size_t)(i))
    double *Z = work;
    /* Z = P B row-major, TILE unknowns at a time: B's columns are read TILE
     * values at a run and Z's TILE rows stay in L1 while they fill (one value
     * per cache line either way was 12% of femcondense on the dragon: perf). */
    for (size_t r0 = 0; r0 < n; r0 += TILE) {
        size_t nr = n - r0 < TILE ? n - r0 : TILE;
        const int *pos = p->pos + r0;
        for (size_t j = 0; j < uk; j++) {
            const double *b = B + j * ld;
            for (size_t r = 0; r < nr; r++) /* alpha = +-1 exact */
                Z[(size_t)pos[r] * uk + j] = alpha * b[ROW(r0 + r)];
        }
    }
    double flops = ep_chol_rsolve_ordered(p, Z, k, work + n * uk);
    for (size_t r0 = 0; r0 < n; r0 += TILE) { /* X = P^T x, as Z was filled */
        size_t nr = n - r0 < TILE ? n - r0 : TILE;
        const int *pos = p->pos + r0;
        for (size_t j = 0; j < uk; j++) {
            double *x = X + j * ld;
            for (size_t r = 0; r < nr; r++)
                x[ROW(r0 + r)] = Z[(size_t)pos[r] * uk + j];
        }
    }
#undef ROW
    return flops;
}

/* Narrow blocks (k = 4 or 8 right-hand sides: moddesc's eigen solves go
 * in groups of 4, a derivative --block of 4 or 8 too) skip BLAS.  dgemm and dtrsm copy ("pack") the block of L they are given before
 * they multiply, and with 4 to 8 columns beside it the copy is a large part
 * of the work, where the solve should be bound by reading L once.  These
 * loops read L in place, in contiguous column streams, with the k values
 * of 8 / (k / 4) columns in registers: 2 k flops per entry of L, in one
 * order whatever the thread.  moddesc's modes stage on the R = 128 voxel
 * dragon: 11.2 s -> 7.3 s (doc/DECISIONS.md). */
/* Row r of a row-major block of K values a row: Z's row rows[r], or the
 * r-th row from Z when rows is NULL. */
static inline ep_v4d *narrow_row(double *Z, const int *rows, int r, int K)
{
    return (ep_v4d *)(Z + (size_t)(rows ? rows[r] : r) * K);
}

/* Z[row r] -= sum_c L21[r][c] Y[c] for r < nr, c0 <= c < c0 + CB (L21
 * column-major, ld; Y and Z row-major, K values a row): CB contiguous streams (reading a
 * few rows across the columns is a stride of ld the prefetcher does not
 * follow: twice the time), the CB rows of Y in registers, two sums in
 * flight per row of Z. */
static inline __attribute__((always_inline)) void forward_cols(int K, int CB, int c0, int nr, const double *L21,
                                                                int ld, const double *Y, const int *rows, double *Z)
{
    enum { KV_MAX = 2 };
    const int KV = K / 4;
    const double *l = L21 + (size_t)c0 * ld;
    ep_v4d y[8][KV_MAX];
    Y += (size_t)c0 * K;
#pragma GCC unroll 8
    for (int j = 0; j < CB; j++)
#pragma GCC unroll 2
        for (int v = 0; v < KV; v++)
            y[j][v] = ((const ep_v4d *)(Y + (size_t)j * K))[v];
    for (int r = 0; r < nr; r++) {
        ep_v4d *z = narrow_row(Z, rows, r, K), a[2][KV_MAX];
#pragma GCC unroll 2
        for (int v = 0; v < KV; v++)
            a[0][v] = z[v], a[1][v] = (ep_v4d){0, 0, 0, 0};
#pragma GCC unroll 8
        for (int j = 0; j < CB; j++)
#pragma GCC unroll 2
            for (int v = 0; v < KV; v++)
                a[j & 1][v] -= l[r + (size_t)j * ld] * y[j][v];
#pragma GCC unroll 2
        for (int v = 0; v < KV; v++)
            z[v] = a[0][v] + a[1][v];
    }
}

/* X[c] -= sum_r L21[r][c] Z[row r] for c0 <= c < c0 + CB, r < nr: CB sums
 * of K values in registers. */
static inline __attribute__((always_inline)) void backward_cols(int K, int CB, int c0, int nr, const double *L21,
                                                                 int ld, const double *Z, const int *rows, double *X)
{
    enum { KV_MAX = 2 };
    const int KV = K / 4;
    const double *l = L21 + (size_t)c0 * ld;
    ep_v4d a[8][KV_MAX] = {{{0}}};
    X += (size_t)c0 * K;
    for (int r = 0; r < nr; r++) {
        const ep_v4d *z = narrow_row((double *)Z, rows, r, K);
#pragma GCC unroll 8
        for (int j = 0; j < CB; j++)
#pragma GCC unroll 2
            for (int v = 0; v < KV; v++)
                a[j][v] += l[r + (size_t)j * ld] * z[v];
    }
#pragma GCC unroll 8
    for (int j = 0; j < CB; j++)
#pragma GCC unroll 2
        for (int v = 0; v < KV; v++)
            ((ep_v4d *)(X + (size_t)j * K))[v] -= a[j][v];
}

/* cols (forward_cols or backward_cols) over the nscol columns of L21 in
 * groups of 8 / (K / 4), the registers' worth, and the last few as one
 * group of their own: one pass over Z's rows for the remainder too.  The
 * dragon's supernodes are vertices' columns, multiples of 3, mostly 9 to 64
 * wide, so nearly all end in a remainder; a pass per remainder column was a
 * quarter of the forward solve's samples (perf). */
#define NARROW_GROUPS(K, nscol, cols, ...)                                                                            \
    do {                                                                                                              \
        const int CB_ = 8 / ((K) / 4);                                                                                \
        int c_ = 0;                                                                                                   \
        for (; c_ + CB_ <= (nscol); c_ += CB_)                                                                        \
            cols(K, CB_, c_, __VA_ARGS__);                                                                            \
        switch ((nscol) - c_) {                                                                                       \
        case 7: cols(K, 7, c_, __VA_ARGS__); break;                                                                   \
        case 6: cols(K, 6, c_, __VA_ARGS__); break;                                                                   \
        case 5: cols(K, 5, c_, __VA_ARGS__); break;                                                                   \
        case 4: cols(K, 4, c_, __VA_ARGS__); break;                                                                   \
        case 3: cols(K, 3, c_, __VA_ARGS__); break;                                                                   \
        case 2: cols(K, 2, c_, __VA_ARGS__); break;                                                                   \
        case 1: cols(K, 1, c_, __VA_ARGS__); break;                                                                   \
        }                                                                                                             \
    } while (0)

/* Z[row r] -= sum_c L21[r][c] Y[c] for r < nr, c < nscol. */
static inline __attribute__((always_inline)) void narrow_forward_k(int K, int nr, int nscol, const double *L21, int ld,
                                                                    const double *Y, const int *rows, double *Z)
{
    NARROW_GROUPS(K, nscol, forward_cols, nr, L21, ld, Y, rows, Z);
}

/* X[c] -= sum_r L21[r][c] Z[row r] for c < nscol, r < nr. */
static inline __attribute__((always_inline)) void narrow_backward_k(int K, int nr, int nscol, const double *L21,
                                                                     int ld, double *Z, const int *rows, double *X)
{
    NARROW_GROUPS(K, nscol, backward_cols, nr, L21, ld, Z, rows, X);
}

/* Panels of the diagonal block's triangular solves: the triangle of a panel
 * by substitution, the rest of the block by the loops above. */
enum { NARROW_PANEL = 32 };

/* y = (y - sum_j l[j step] Y[j]) / d over the rows j of Y in [j0, j1):
 * one unknown of a panel's substitution. */
static inline __attribute__((always_inline)) void narrow_substitute(int K, double *y, const double *Y, int j0, int j1,
                                                                     const double *l, size_t step, double d)
{
    enum { KV_MAX = 2 };
    const int KV = K / 4;
    ep_v4d a[KV_MAX];
#pragma GCC unroll 2
    for (int v = 0; v < KV; v++)
        a[v] = ((ep_v4d *)y)[v];
    for (int j = j0; j < j1; j++)
#pragma GCC unroll 2
        for (int v = 0; v < KV; v++)
            a[v] -= l[(size_t)j * step] * ((const ep_v4d *)(Y + (size_t)j * K))[v];
#pragma GCC unroll 2
    for (int v = 0; v < KV; v++)
        ((ep_v4d *)y)[v] = a[v] / d;
}

/* Y = L11^-1 Y (L11 lower triangular nscol x nscol, column-major, ld). */
static inline __attribute__((always_inline)) void narrow_lsolve_k(int K, int nscol, const double *L11, int ld,
                                                                   double *Y)
{
    for (int c0 = 0; c0 < nscol; c0 += NARROW_PANEL) {
        int c1 = c0 + NARROW_PANEL < nscol ? c0 + NARROW_PANEL : nscol;
        for (int c = c0; c < c1; c++) /* row c of L11: entries ld apart */
            narrow_substitute(K, Y + (size_t)c * K, Y, c0, c, L11 + c, (size_t)ld, L11[c + (size_t)c * ld]);
        narrow_forward_k(K, nscol - c1, c1 - c0, L11 + c1 + (size_t)c0 * ld, ld, Y + (size_t)c0 * K, NULL,
                         Y + (size_t)c1 * K);
    }
}

/* Y = L11^-T Y. */
static inline __attribute__((always_inline)) void narrow_ltsolve_k(int K, int nscol, const double *L11, int ld,
                                                                    double *Y)
{
    for (int c1 = nscol; c1 > 0; c1 -= NARROW_PANEL) {
        int c0 = c1 - NARROW_PANEL > 0 ? c1 - NARROW_PANEL : 0;
        narrow_backward_k(K, nscol - c1, c1 - c0, L11 + c1 + (size_t)c0 * ld, ld, Y + (size_t)c1 * K, NULL,
                          Y + (size_t)c0 * K);
        for (int c = c1 - 1; c >= c0; c--) /* column c of L11: contiguous */
            narrow_substitute(K, Y + (size_t)c * K, Y, c + 1, c1, L11 + (size_t)c * ld, 1, L11[c + (size_t)c * ld]);
    }
}

/* Supernode s's part of the forward solve on a narrow block Z (row-major,
 * k values a row): Y1 = L11^-1 Y1, then the rows below -= L21 Y1. */
EP_KERNEL static void narrow_forward(int k, int nscol, int nsrow, const double *Ld, const int *rows, double *Y1,
                                     double *Z)
{
    if (k == 4) {
        narrow_lsolve_k(4, nscol, Ld, nsrow, Y1);
        narrow_forward_k(4, nsrow - nscol, nscol, Ld + nscol, nsrow, Y1, rows, Z);
    } else {
        narrow_lsolve_k(8, nscol, Ld, nsrow, Y1);
        narrow_forward_k(8, nsrow - nscol, nscol, Ld + nscol, nsrow, Y1, rows, Z);
    }
}

/* Its part of the backward solve: X1 -= L21^T (the rows below), then X1 =
 * L11^-T X1. */
EP_KERNEL static void narrow_backward(int k, int nscol, int nsrow, const double *Ld, const int *rows, double *X1,
                                      double *Z)
{
    if (k == 4) {
        narrow_backward_k(4, nsrow - nscol, nscol, Ld + nscol, nsrow, Z, rows, X1);
        narrow_ltsolve_k(4, nscol, Ld, nsrow, X1);
    } else {
        narrow_backward_k(8, nsrow - nscol, nscol, Ld + nscol, nsrow, Z, rows, X1);
        narrow_ltsolve_k(8, nscol, Ld, nsrow, X1);
    }
}

static int narrow(int k) { return k == 4 || k == 8; }

double ep_chol_rsolve_ordered(const ep_chol_rplan *p, double *Z, int k, double *work)
{
    double flops = ep_chol_rforward(p, Z, k, work, NULL);
    return flops + ep_chol_rbackward(p, Z, k, work);
}

double ep_chol_rforward(const ep_chol_rplan *p, double *Z, int k, double *work, const char *loaded)
{
    const cholmod_factor *L = p->L;
    const int *super = L->super, *pi = L->pi, *px = L->px, *Ls = L->s;
    const double *Lx = L->x;
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
    /* Forward, L y = P b: in the transposed (column-major k x n) view, Y1^T
     * L11^T = B1^T, then E^T = Y1^T L21^T scattered into the rows below. */
    for (int s = 0; s < p->nsuper; s++) {
        if (!fwd[s])
            continue;
        int k1 = super[s], nscol = super[s + 1] - k1, nsrow = pi[s + 1] - pi[s], nr = nsrow - nscol;
        const double *Ld = Lx + px[s];
        double *Y1 = Z + (size_t)k1 * uk;
        const int *rows = Ls + pi[s] + nscol;
        flops += (double)nscol * nscol * k + 2.0 * nr * nscol * k;
        if (narrow(k)) {
            narrow_forward(k, nscol, nsrow, Ld, rows, Y1, Z);
            continue;
        }
        cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, k, nscol, 1.0, Ld, nsrow, Y1, k);
        if (!nr)
            continue;
        if (p->runs[s]) { /* Z's rows r..r+len are a k x len block: update in place */
            for (int r = 0, len; r < nr; r += len) {
                for (len = 1; r + len < nr && rows[r + len] == rows[r] + len; len++)
                    ;
                cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, k, len, nscol, -1.0, Y1, k, Ld + nscol + r, nsrow,
                            1.0, Z + (size_t)rows[r] * uk, k);
            }
            continue;
        }
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, k, nr, nscol, 1.0, Y1, k, Ld + nscol, nsrow, 0.0, E, k);
        for (int r = 0; r < nr; r++) {
            double *z = Z + (size_t)Ls[pi[s] + nscol + r] * uk;
            const double *e = E + (size_t)r * uk;
#pragma omp simd
            for (size_t j = 0; j < uk; j++)
                z[j] -= e[j];
        }
    }
    return flops;
}

double ep_chol_rbackward(const ep_chol_rplan *p, double *Z, int k, double *work)
{
    const cholmod_factor *L = p->L;
    const int *super = L->super, *pi = L->pi, *px = L->px, *Ls = L->s;
    const double *Lx = L->x;
    size_t uk = (size_t)k;
    double *E = work, flops = 0;
    /* Backward, L^T x = y: gather the rows below, X1^T -= E^T L21, then
     * X1^T L11 = Y1^T. */
    for (int s = p->nsuper - 1; s >= 0; s--) {
        if (!p->want[s])
            continue;
        int k1 = super[s], nscol = super[s + 1] - k1, nsrow = pi[s + 1] - pi[s], nr = nsrow - nscol;
        const double *Ld = Lx + px[s];
        double *X1 = Z + (size_t)k1 * uk;
        const int *rows = Ls + pi[s] + nscol;
        flops += (double)nscol * nscol * k + 2.0 * nr * nscol * k;
        if (narrow(k)) {
            narrow_backward(k, nscol, nsrow, Ld, rows, X1, Z);
            continue;
        }
        if (nr && p->runs[s]) {
            for (int r = 0, len; r < nr; r += len) {
                for (len = 1; r + len < nr && rows[r + len] == rows[r] + len; len++)
                    ;
                cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, k, nscol, len, -1.0, Z + (size_t)rows[r] * uk, k,
                            Ld + nscol + r, nsrow, 1.0, X1, k);
            }
        } else if (nr) {
            for (int r = 0; r < nr; r++)
                memcpy(E + (size_t)r * uk, Z + (size_t)Ls[pi[s] + nscol + r] * uk, uk * sizeof *E);
            cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, k, nscol, nr, -1.0, E, k, Ld + nscol, nsrow, 1.0,
                        X1, k);
        }
        cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasNoTrans, CblasNonUnit, k, nscol, 1.0, Ld, nsrow, X1, k);
    }
    return flops;
}
