/*
 * gfsink.c — GF rows to a dense or a wavelet-compressed file, in column
 * order whatever order they come in (gfsink.h).
 */
#include "gfsink.h"
#include "err.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

int ep_gfsink_open_dense(ep_gfsink *k, ep_h5 *f, const ep_gf_layout *L, const char *method,
                         const char *traction_model, int single)
{
    memset(k, 0, sizeof *k);
    k->dense = 1;
    return ep_gf_writer_open(&k->gw, f, L, method, traction_model, single);
}

double ep_gfsink_wavelet_bytes(int n)
{
    return (double)n * (EP_GFSINK_CHUNK * (72.0 + 40.0) + 216.0 * omp_get_max_threads() + 1);
}

int ep_gfsink_open_wavelet(ep_gfsink *k, ep_h5 *f, const ep_gf_layout *L, const char *method,
                           const char *traction_model, const ep_wavelet *W, const char *wavelet, int lifted,
                           int threshold_base, const double *eps, int ne)
{
    int n = L->n, st;
    memset(k, 0, sizeof *k);
    k->n = n;
    k->m = L->m;
    k->ne = ne;
    memcpy(k->eps, eps, (size_t)ne * sizeof *eps);
    if (!(k->slot_domain = ep_malloc((size_t)n, 1)) ||
        !(k->buf = ep_malloc((size_t)EP_GFSINK_CHUNK * 9, (size_t)n * sizeof *k->buf)) ||
        !(k->nnz = ep_malloc(EP_GFSINK_CHUNK, sizeof *k->nnz)) ||
        !(k->slot = ep_malloc((size_t)EP_GFSINK_CHUNK * n, sizeof *k->slot)) ||
        !(k->blk = ep_malloc((size_t)EP_GFSINK_CHUNK * 9, (size_t)n * sizeof *k->blk)))
        return EP_ECOMPUTE;
    for (int s = 0; s < n; s++) /* domain 0: free rows, 1: fixed rows (000 eq. 3.50 per domain) */
        k->slot_domain[s] = L->row_fixed[W->slot_row[s]];
    if ((st = ep_gfzip_init(&k->z, W, k->slot_domain, threshold_base)))
        return st;
    if (f) {
        k->writing = 1;
        return ep_gfw_writer_open(&k->w, f, L, method, traction_model, W, wavelet, lifted, eps[ne - 1]);
    }
    return EP_OK;
}

/* Compress the nc gathered columns and write the last threshold's. */
static int flush(ep_gfsink *k, int nc)
{
    int st;
    if (nc == 0)
        return EP_OK;
    if ((st = ep_gfzip_block(&k->z, k->buf, nc, k->eps, k->ne, k->tl, k->nnz, k->slot, k->blk)))
        return st;
    for (int c = 0; c < nc && k->writing && !st; c++)
        st = ep_gfw_writer_put(&k->w, k->nnz[c], &k->slot[(size_t)c * k->n], &k->blk[9 * (size_t)c * k->n]);
    k->buf0 = k->next;
    return st;
}

/* The next nrows GF rows, in order. */
static int feed(ep_gfsink *k, long nrows, const double *rows)
{
    size_t n3 = 3 * (size_t)k->n;
    int st = EP_OK;
    for (long i = 0; i < nrows && !st; i++) {
        memcpy(&k->buf[(size_t)(k->next - k->buf0) * n3], &rows[(size_t)i * n3], n3 * sizeof *rows);
        if (++k->next - k->buf0 == 3 * EP_GFSINK_CHUNK)
            st = flush(k, EP_GFSINK_CHUNK);
    }
    return st;
}

int ep_gfsink_put(void *ctx, long row0, long nrows, const double *rows)
{
    ep_gfsink *k = ctx;
    int st;
    if (k->dense)
        return ep_gf_writer_put(&k->gw, row0, nrows, rows);
    if (row0 != k->next) { /* early: keep a copy until its turn */
        size_t size = (size_t)nrows * 3 * (size_t)k->n;
        if (ep_grow_to(&k->wait, &k->capwait, (size_t)k->nwait + 1, sizeof *k->wait))
            return EP_ECOMPUTE;
        ep_gfsink_wait *w = &k->wait[k->nwait];
        if (!(w->rows = ep_malloc(size, sizeof *w->rows)))
            return EP_ECOMPUTE;
        memcpy(w->rows, rows, size * sizeof *rows);
        w->row0 = row0, w->nrows = nrows;
        k->nwait++;
        return EP_OK;
    }
    if ((st = feed(k, nrows, rows)))
        return st;
    for (int i = 0; i < k->nwait;) { /* the blocks now due, in turn */
        ep_gfsink_wait *w = &k->wait[i];
        if (w->row0 != k->next) {
            i++;
            continue;
        }
        st = feed(k, w->nrows, w->rows);
        free(w->rows);
        *w = k->wait[--k->nwait];
        if (st)
            return st;
        i = 0;
    }
    return EP_OK;
}

int ep_gfsink_close(ep_gfsink *k)
{
    int st;
    if (k->dense)
        return ep_gf_writer_close(&k->gw);
    if (k->next != 3L * k->m)
        return ep_fail(EP_ECOMPUTE, "GF rows %ld..%ld never came", k->next, 3L * k->m - 1);
    if ((st = flush(k, (int)((k->next - k->buf0) / 3))))
        return st;
    const ep_gfzip_tally *t = &k->tl[k->ne - 1];
    return k->writing ? ep_gfw_writer_close(&k->w, ep_gfzip_rms(t), t->maxrel) : EP_OK;
}

void ep_gfsink_free(ep_gfsink *k)
{
    ep_gf_writer_close(&k->gw);
    ep_gfw_writer_abort(&k->w);
    ep_gfzip_free(&k->z);
    for (int i = 0; i < k->nwait; i++)
        free(k->wait[i].rows);
    free(k->wait), free(k->slot_domain), free(k->buf), free(k->nnz), free(k->slot), free(k->blk);
    memset(k, 0, sizeof *k);
}
