/*
 * gfzip.c — wavelet compression of GF block columns (gfzip.h; MATH.md §8,
 * 000 §3.2-3.3).
 */
#include "gfzip.h"
#include "err.h"
#include "f32.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

void ep_gfzip_gather(const ep_wavelet *W, const double *xi3, double *x)
{
    size_t n3 = 3 * (size_t)W->n;
    for (int s = 0; s < W->n; s++) {
        size_t r = (size_t)W->slot_row[s];
        for (int b = 0; b < 3; b++)
            for (int a = 0; a < 3; a++)
                x[9 * (size_t)s + 3 * b + a] = xi3[a * n3 + 3 * r + b];
    }
}

static double norm9(const double *b)
{
    double t = 0;
    for (int i = 0; i < 9; i++)
        t += b[i] * b[i];
    return sqrt(t);
}

void ep_gfzip_amplitude(const ep_wavelet *W, const int8_t *slot_domain, const double *x, double amp[2])
{
    amp[0] = amp[1] = 0;
    for (int s = 0; s < W->n; s++) {
        double t = norm9(&x[9 * (size_t)s]);
        if (t > amp[slot_domain[s]])
            amp[slot_domain[s]] = t;
    }
}

int ep_gfzip_threshold(const ep_wavelet *W, const int8_t *slot_domain, const double *y, const double amp[2],
                     double eps, int threshold_base, int *slot, float *blocks)
{
    int L = W->nlevels - 1, nnz = 0;
    for (int s = 0; s < W->n; s++) {
        int l = W->slot_level[s];
        const double *b = &y[9 * (size_t)s];
        if ((l > 0 || threshold_base) && norm9(b) < ldexp(eps, l - L) * amp[slot_domain[s]])
            continue;
        slot[nnz] = s;
        for (int i = 0; i < 9; i++)
            blocks[9 * (size_t)nnz + i] = (float)b[i];
        nnz++;
    }
    return nnz;
}

void ep_gfzip_expand(const ep_wavelet *W, int nnz, const int *slot, const float *blocks, double *z)
{
    memset(z, 0, 9 * (size_t)W->n * sizeof *z);
    for (int k = 0; k < nnz; k++)
        for (int i = 0; i < 9; i++)
            z[9 * (size_t)slot[k] + i] = blocks[9 * (size_t)k + i];
    ep_wavelet_inverse(W, 9, z);
}

void ep_gfzip_error(const ep_wavelet *W, const int8_t *slot_domain, int nnz, const int *slot, const float *blocks,
                  const double *x, double *z, double err2[2], double maxerr[2], long nnz_dom[2])
{
    ep_gfzip_expand(W, nnz, slot, blocks, z);
    err2[0] = err2[1] = maxerr[0] = maxerr[1] = 0;
    nnz_dom[0] = nnz_dom[1] = 0;
    for (int k = 0; k < nnz; k++)
        nnz_dom[slot_domain[slot[k]]]++;
    for (int s = 0; s < W->n; s++) {
        double d[9];
        int dom = slot_domain[s];
        for (int i = 0; i < 9; i++)
            d[i] = z[9 * (size_t)s + i] - x[9 * (size_t)s + i];
        double t = norm9(d);
        err2[dom] += t * t;
        maxerr[dom] = t > maxerr[dom] ? t : maxerr[dom];
    }
}

/* ---- a block of columns ---------------------------------------------------------- */

int ep_gfzip_init(ep_gfzip *z, const ep_wavelet *W, const int8_t *slot_domain, int threshold_base)
{
    memset(z, 0, sizeof *z);
    z->W = W;
    z->slot_domain = slot_domain;
    z->threshold_base = threshold_base;
    z->n = W->n;
    z->nthreads = omp_get_max_threads();
    return (z->work = ep_malloc((size_t)z->nthreads * 27 * (size_t)W->n, sizeof *z->work)) ? EP_OK : EP_ECOMPUTE;
}

void ep_gfzip_free(ep_gfzip *z)
{
    free(z->work);
    memset(z, 0, sizeof *z);
}

static void tally_add(ep_gfzip_tally *t, const ep_gfzip_tally *c)
{
    for (int d = 0; d < 2; d++) {
        t->err2[d] += c->err2[d];
        t->ref2[d] += c->ref2[d];
        t->nnz[d] += c->nnz[d];
    }
    t->maxrel = c->maxrel > t->maxrel ? c->maxrel : t->maxrel;
    t->maxrel_free = c->maxrel_free > t->maxrel_free ? c->maxrel_free : t->maxrel_free;
}

/* Column k of the block for every threshold: its tallies ct[ne], and the
 * last threshold's blocks.  x, y, z: the thread's [n][9] workspaces. */
static void column(const ep_gfzip *zp, const double *rows3, const double *eps, int ne, ep_gfzip_tally *ct, int *nnz,
                   int *slot, float *blocks, double *x, double *y, double *z)
{
    const ep_wavelet *W = zp->W;
    const int8_t *dom = zp->slot_domain;
    int n = zp->n;
    double amp[2], ref2[2] = {0, 0};
    ep_gfzip_gather(W, rows3, x);
    ep_gfzip_amplitude(W, dom, x, amp);
    memcpy(y, x, 9 * (size_t)n * sizeof *y);
    ep_wavelet_forward(W, 9, y);
    double colmax = amp[0] > amp[1] ? amp[0] : amp[1];
    for (int q = 0; q < n; q++)
        for (int i = 0; i < 9; i++)
            ref2[dom[q]] += x[9 * (size_t)q + i] * x[9 * (size_t)q + i];
    for (int e = 0; e < ne; e++) {
        ep_gfzip_tally *c = &ct[e];
        double maxerr[2];
        int kept = ep_gfzip_threshold(W, dom, y, amp, eps[e], zp->threshold_base, slot, blocks);
        ep_gfzip_error(W, dom, kept, slot, blocks, x, z, c->err2, maxerr, c->nnz);
        c->ref2[0] = ref2[0], c->ref2[1] = ref2[1];
        c->maxrel = colmax > 0 ? (maxerr[0] > maxerr[1] ? maxerr[0] : maxerr[1]) / colmax : 0;
        c->maxrel_free = amp[0] > 0 ? maxerr[0] / amp[0] : 0;
        *nnz = kept;
    }
}

int ep_gfzip_block(ep_gfzip *z, const double *rows, int nc, const double *eps, int ne, ep_gfzip_tally *tl, int *nnz,
                   int *slot, float *blocks)
{
    int n = z->n;
    size_t n3 = 3 * (size_t)n, n9 = 9 * (size_t)n;
    /* The blocks are float32: a column whose values float32 cannot hold
     * with its relative accuracy is refused, not written as inf or zeros.
     * Lifting and prediction weights are partitions of unity, so the
     * coefficients stay within a small multiple of the column's values:
     * the factor 16 keeps them under FLT_MAX. */
    for (int k = 0; k < nc; k++) {
        double amax[2] = {0, 0}; /* per domain: displacements and tractions differ in units */
        for (int a = 0; a < 3; a++)
            for (size_t i = 0; i < n3; i++) {
                int d = z->slot_domain[z->W->row_slot[i / 3]];
                amax[d] = fmax(amax[d], fabs(rows[3 * n3 * k + n3 * a + i]));
            }
        for (int d = 0; d < 2; d++) {
            int r = 16 * amax[d] > FLT_MAX ? 1 : ep_f32_range(amax[d]);
            if (r)
                return ep_fail(EP_EINPUT, "/gf/blocks: a GF column's largest %s value %.3g %s",
                               d ? "traction" : "displacement", amax[d], ep_f32_what(r));
        }
    }
    ep_gfzip_tally *ct = ep_calloc((size_t)nc * ne + 1, sizeof *ct);
    if (!ct)
        return EP_ECOMPUTE;
    /* a thread that asked for fewer gets them: femgf's writer thread, beside
     * the solvers that hold the cores, asks for one */
    int nt = omp_get_max_threads() < z->nthreads ? omp_get_max_threads() : z->nthreads;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
    for (int k = 0; k < nc; k++) {
        double *w = &z->work[3 * n9 * (size_t)omp_get_thread_num()];
        column(z, &rows[3 * n3 * k], eps, ne, &ct[(size_t)k * ne], &nnz[k], &slot[(size_t)k * n],
               &blocks[n9 * k], w, w + n9, w + 2 * n9);
    }
    for (int k = 0; k < nc; k++) /* in column order: sums independent of the threads */
        for (int e = 0; e < ne; e++)
            tally_add(&tl[e], &ct[(size_t)k * ne + e]);
    free(ct);
    return EP_OK;
}

static double ratio(double a, double b) { return b > 0 ? a / b : 0; }

double ep_gfzip_rms(const ep_gfzip_tally *t)
{
    return sqrt(ratio(t->err2[0] + t->err2[1], t->ref2[0] + t->ref2[1]));
}

long ep_gfzip_kept(const ep_gfzip_tally *t) { return t->nnz[0] + t->nnz[1]; }
