/*
 * gfw.c — wavelet Green's function files: writer, reader, fast summation and
 * selective extraction (gfw.h; MATH.md §8, 000 §3.2–3.3).
 */
#include "gfw.h"
#include "gfzip.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "kernel.h"

/* ---- writer ------------------------------------------------------------------- */

int ep_gfw_writer_open(ep_gfw_writer *w, ep_h5 *f, const ep_gf_layout *L, const char *method,
                       const char *traction_model, const ep_wavelet *W, const char *wavelet, int lifted, double eps)
{
    int n = W->n, st;
    hsize_t d[2] = {(hsize_t)n, 2}, rows[3] = {0, 9};
    memset(w, 0, sizeof *w);
    w->f = f;
    w->m = L->m;
    w->n = n;
    w->rowidx.d = w->blocks.d = H5I_INVALID_HID;
    if (!(w->colptr = ep_calloc((size_t)w->m + 1, sizeof *w->colptr)))
        return EP_ECOMPUTE;
    if ((st = ep_gf_write_layout(f, L, method, strcmp(L->entity, "triangle") ? "hat" : "constant",
                                 traction_model)) ||
        (st = ep_h5_write(f, "/gf/slots", EP_I32, 1, d, W->slot_row)) ||
        (st = ep_h5_write(f, "/gf/slot_level", EP_I8, 1, d, W->slot_level)) ||
        (st = ep_h5_write(f, "/gf/lift_slot", EP_I32, 2, d, W->lift_slot)) ||
        (st = ep_h5_write(f, "/gf/lift_weight", EP_F64, 2, d, W->lift_w)))
        return st;
    d[0] = (hsize_t)n + 1;
    if ((st = ep_h5_write(f, "/gf/predict_ptr", EP_I32, 1, d, W->pred_ptr)))
        return st;
    d[0] = (hsize_t)W->pred_ptr[n];
    if ((st = ep_h5_write(f, "/gf/predict_slot", EP_I32, 1, d, W->pred_slot)) ||
        (st = ep_h5_write(f, "/gf/predict_weight", EP_F64, 1, d, W->pred_w)) ||
        (st = ep_h5_set_attr_string(f, "/gf", "wavelet", wavelet)) ||
        (st = ep_h5_set_attr_int(f, "/gf", "lifted", lifted)) ||
        (st = ep_h5_set_attr_double(f, "/gf", "eps", eps)) ||
        (st = ep_h5_stream_open(&w->rowidx, f, "/gf/rowidx", EP_I32, 1, rows)))
        return st;
    rows[1] = rows[2] = 3;
    return ep_h5_stream_open(&w->blocks, f, "/gf/blocks", EP_F32, 3, rows);
}

int ep_gfw_writer_put(ep_gfw_writer *w, int nnz, const int *slot, const float *blocks)
{
    int st;
    assert(w->col < w->m && nnz >= 0 && nnz <= w->n);
    for (int k = 0; k < nnz; k++) /* the reader's index counts on ascending slots */
        assert(slot[k] >= 0 && slot[k] < w->n && (k == 0 || slot[k - 1] < slot[k]));
    if ((st = ep_h5_stream_append(&w->rowidx, (hsize_t)nnz, slot)) ||
        (st = ep_h5_stream_append(&w->blocks, (hsize_t)nnz, blocks)))
        return st;
    w->colptr[w->col + 1] = w->colptr[w->col] + nnz;
    w->col++;
    return EP_OK;
}

void ep_gfw_writer_abort(ep_gfw_writer *w)
{
    ep_h5_stream_close(&w->rowidx);
    ep_h5_stream_close(&w->blocks);
    free(w->colptr);
    memset(w, 0, sizeof *w);
}

int ep_gfw_writer_close(ep_gfw_writer *w, double rms_error, double max_error)
{
    if (!w->colptr) /* zeroed, or released already */
        return EP_OK;
    hsize_t d[1] = {(hsize_t)w->m + 1};
    int64_t nnz = w->colptr[w->m];
    int st;
    if (!(st = ep_h5_stream_close(&w->rowidx)) && !(st = ep_h5_stream_close(&w->blocks)) &&
        !(st = ep_h5_write(w->f, "/gf/colptr", EP_I64, 1, d, w->colptr)) &&
        !(st = ep_h5_set_attr_double(w->f, "/gf", "rms_error", rms_error)) &&
        !(st = ep_h5_set_attr_double(w->f, "/gf", "max_error", max_error)) &&
        !(st = ep_h5_set_attr_int(w->f, "/gf", "nnz_blocks", (long)nnz)))
        st = ep_h5_set_attr_double(w->f, "/gf", "compression", nnz ? (double)w->m * w->n / (double)nnz : 0);
    ep_gfw_writer_abort(w);
    return st;
}

/* ---- reader ------------------------------------------------------------------- */

static int read_into(ep_gfw *r, const char *name, ep_h5_type t, int rank, hsize_t d0, hsize_t d1, void **p)
{
    hsize_t d[2] = {d0, d1};
    return ep_h5_read(&r->g.f, name, t, rank, d, p);
}

/* Bits set in x, inline: the build targets x86-64 without POPCNT, where
 * __builtin_popcount is a call to libgcc, and a call in ep_gfw_row's loop
 * would send its nine accumulators to the stack. */
static inline int bits_set(uint32_t x)
{
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    return (int)((((x + (x >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24);
}

/* The index in blocks of column c's block at slot s, or -1 (not kept),
 * given p, the entry of s's word in the column's index. */
static inline int64_t block_in_word(const ep_gfw *r, int c, int64_t p, int s)
{
    uint64_t e = r->kept_bits[p];
    uint32_t bit = (uint32_t)1 << (s & 31);
    if (!((uint32_t)e & bit))
        return -1;
    return r->colptr[c] + (int64_t)(e >> 32) + bits_set((uint32_t)e & (bit - 1));
}

/* The same for any slot: a binary search for its word. */
static int64_t kept_block(const ep_gfw *r, int c, int s)
{
    int64_t lo = r->kept_ptr[c], hi = r->kept_ptr[c + 1] - 1;
    while (lo <= hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (r->kept_word[mid] == s >> 5)
            return block_in_word(r, c, mid, s);
        if (r->kept_word[mid] < s >> 5)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

/* Whether column c's kept block q opens a word of the index (slots ascend). */
static int opens_word(const ep_gfw *r, int c, int64_t q)
{
    return q == r->colptr[c] || r->rowidx[q] >> 5 != r->rowidx[q - 1] >> 5;
}

int ep_gfw_index(ep_gfw *r)
{
    int m = r->g.L.m;
    free(r->kept_ptr), free(r->kept_word), free(r->kept_bits);
    r->kept_word = NULL, r->kept_bits = NULL;
    if (!(r->kept_ptr = ep_malloc((size_t)m + 1, sizeof *r->kept_ptr)))
        return EP_ECOMPUTE;
    r->kept_ptr[0] = 0;
    for (int c = 0; c < m; c++) {
        int64_t words = 0;
        for (int64_t q = r->colptr[c]; q < r->colptr[c + 1]; q++)
            words += opens_word(r, c, q);
        r->kept_ptr[c + 1] = r->kept_ptr[c] + words;
    }
    size_t total = (size_t)r->kept_ptr[m] + 1;
    if (!(r->kept_word = ep_malloc(total, sizeof *r->kept_word)) ||
        !(r->kept_bits = ep_malloc(total, sizeof *r->kept_bits)))
        return EP_ECOMPUTE;
    for (int c = 0; c < m; c++) {
        int64_t p = r->kept_ptr[c] - 1;
        for (int64_t q = r->colptr[c]; q < r->colptr[c + 1]; q++) {
            int s = r->rowidx[q];
            if (opens_word(r, c, q))
                ++p, r->kept_word[p] = s >> 5, r->kept_bits[p] = (uint64_t)(q - r->colptr[c]) << 32;
            r->kept_bits[p] |= (uint64_t)1 << (s & 31);
        }
    }
    return EP_OK;
}

int ep_gfw_open(ep_gfw *r, const char *path)
{
    ep_wavelet *W = &r->W;
    const char *file = path;
    double v;
    int st;
    memset(r, 0, sizeof *r);
    if ((st = ep_gf_file_open(&r->g, path, "gf-wavelet")))
        return st;
    int n = r->g.L.n, m = r->g.L.m;
    W->n = n;
    if ((st = read_into(r, "/gf/slots", EP_I32, 1, n, 0, (void **)&W->slot_row)))
        return st;
    if ((st = read_into(r, "/gf/slot_level", EP_I8, 1, n, 0, (void **)&W->slot_level)))
        return st;
    if ((st = read_into(r, "/gf/predict_ptr", EP_I32, 1, n + 1, 0, (void **)&W->pred_ptr)))
        return st;
    if (W->pred_ptr[0] != 0 || W->pred_ptr[n] < 0)
        return ep_fail(EP_EINPUT, "%s: /gf/predict_ptr is not a pointer array", file);
    if ((st = read_into(r, "/gf/predict_slot", EP_I32, 1, W->pred_ptr[n], 0, (void **)&W->pred_slot)))
        return st;
    if ((st = read_into(r, "/gf/predict_weight", EP_F64, 1, W->pred_ptr[n], 0, (void **)&W->pred_w)))
        return st;
    if ((st = read_into(r, "/gf/lift_slot", EP_I32, 2, n, 2, (void **)&W->lift_slot)))
        return st;
    if ((st = read_into(r, "/gf/lift_weight", EP_F64, 2, n, 2, (void **)&W->lift_w)))
        return st;
    if (!(W->row_slot = ep_malloc((size_t)n, sizeof *W->row_slot)))
        return EP_ECOMPUTE;
    int L = 0;
    for (int s = 0; s < n; s++) {
        if (W->slot_row[s] < 0 || W->slot_row[s] >= n) /* "row -128" named no place (class 13) */
            return ep_fail(EP_EINPUT, "%s: /gf/slots: slot %d holds row %d, out of the rows [0, %d)", file, s,
                           W->slot_row[s], n);
        W->row_slot[W->slot_row[s]] = s;
        L = W->slot_level[s] > L ? W->slot_level[s] : L;
    }
    W->nlevels = L + 1;
    for (int s = 0; s < n; s++) /* pred_ptr must be monotone before index reads it */
        if (W->pred_ptr[s + 1] < W->pred_ptr[s] || W->pred_ptr[s + 1] > W->pred_ptr[n])
            return ep_fail(EP_EINPUT, "%s: /gf/predict_ptr is not monotone at slot %d", file, s);
    if ((st = ep_wavelet_index(W))) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", ep_errmsg()); /* ep_fail writes the buffer ep_errmsg reads */
        return st == EP_EINPUT ? ep_fail(EP_EINPUT, "%s: %s", file, msg) : st;
    }

    if ((st = read_into(r, "/gf/colptr", EP_I64, 1, m + 1, 0, (void **)&r->colptr)))
        return st;
    for (int c = 0; c < m; c++)
        if (r->colptr[c] < 0 || r->colptr[c + 1] < r->colptr[c] || r->colptr[c + 1] - r->colptr[c] > n || r->colptr[0])
            return ep_fail(EP_EINPUT, "%s: /gf/colptr is not a column pointer array (column %d)", file, c);
    hsize_t nnz = (hsize_t)r->colptr[m];
    if ((st = read_into(r, "/gf/rowidx", EP_I32, 1, nnz, 0, (void **)&r->rowidx)))
        return st;
    hsize_t d3[3] = {nnz, 3, 3};
    if ((st = ep_h5_read(&r->g.f, "/gf/blocks", EP_F32, 3, d3, (void **)&r->blocks)))
        return st;
    for (int c = 0; c < m; c++)
        for (int64_t k = r->colptr[c]; k < r->colptr[c + 1]; k++)
            if (r->rowidx[k] < 0 || r->rowidx[k] >= n || (k > r->colptr[c] && r->rowidx[k] <= r->rowidx[k - 1]))
                return ep_fail(EP_EINPUT, "%s: /gf/rowidx: column %d is not ascending slots in range", file, c);
    if ((st = ep_gfw_index(r)))
        return st;
    for (hsize_t i = 0; i < 9 * nnz; i++)
        if (!isfinite(r->blocks[i]))
            return ep_fail(EP_EINPUT, "%s: /gf/blocks: value is not finite (block %llu)", file,
                           (unsigned long long)(i / 9));
    if ((st = ep_h5_get_attr_string(&r->g.f, "/gf", "wavelet", r->wavelet, sizeof r->wavelet)) ||
        (st = ep_h5_get_attr_double(&r->g.f, "/gf", "lifted", &v)))
        return st;
    r->lifted = v != 0;
    ep_h5_get_attr_double(&r->g.f, "/gf", "eps", &r->eps);
    ep_h5_get_attr_double(&r->g.f, "/gf", "rms_error", &r->rms_error);
    ep_h5_get_attr_double(&r->g.f, "/gf", "max_error", &r->max_error);
    return EP_OK;
}

void ep_gfw_close(ep_gfw *r)
{
    ep_gf_file_close(&r->g);
    ep_wavelet_free(&r->W);
    free(r->colptr), free(r->rowidx), free(r->blocks);
    free(r->kept_ptr), free(r->kept_word), free(r->kept_bits);
    memset(r, 0, sizeof *r);
}

/* ---- runtime operations ------------------------------------------------------- */

void ep_gfw_sum(const ep_gfw *r, int k, const int *cols, const double *loads, double *acc, double *out)
{
    memset(acc, 0, 3 * (size_t)r->W.n * sizeof *acc);
    for (int i = 0; i < k; i++) {
        const double *p = &loads[3 * i];
        for (int64_t q = r->colptr[cols[i]]; q < r->colptr[cols[i] + 1]; q++) {
            const float *B = &r->blocks[9 * q];
            double *y = &acc[3 * (size_t)r->rowidx[q]];
            y[0] += B[0] * p[0] + B[1] * p[1] + B[2] * p[2];
            y[1] += B[3] * p[0] + B[4] * p[1] + B[5] * p[2];
            y[2] += B[6] * p[0] + B[7] * p[1] + B[8] * p[2];
        }
    }
    ep_wavelet_inverse(&r->W, 3, acc);
    ep_wavelet_to_rows(&r->W, 3, acc, out);
}

void ep_gfw_column(const ep_gfw *r, int c, double *z, double *out)
{
    int64_t q0 = r->colptr[c];
    ep_gfzip_expand(&r->W, (int)(r->colptr[c + 1] - q0), &r->rowidx[q0], &r->blocks[9 * q0], z);
    ep_wavelet_to_rows(&r->W, 9, z, out);
}

void ep_gfw_columns_rows(const ep_gfw *r, int nc, const int *cols, ep_wavelet_subset *u, int nr, const int *rows,
                         char *kept, double *z, double *out)
{
    int w = 9 * nc;
    for (int c = 0; c < nc; c++) /* the blocks the synthesis reads */
        for (int64_t q = r->colptr[cols[c]]; q < r->colptr[cols[c] + 1]; q++) {
            if (!u->reach[r->rowidx[q]])
                continue;
            double *y = &z[(size_t)r->rowidx[q] * w + 9 * c];
            kept[r->rowidx[q]] = 1;
            for (int i = 0; i < 9; i++)
                y[i] = r->blocks[9 * q + i];
        }
    ep_wavelet_subset_inverse(&r->W, u, w, z, kept);
    for (int c = 0; c < nc; c++)
        for (int k = 0; k < nr; k++)
            memcpy(&out[9 * ((size_t)c * nr + k)], &z[(size_t)r->W.row_slot[rows[k]] * w + 9 * c], 9 * sizeof *out);
    for (int c = 0; c < nc; c++) /* zero again: the kept blocks and the closure */
        for (int64_t q = r->colptr[cols[c]]; q < r->colptr[cols[c] + 1]; q++) {
            if (!u->reach[r->rowidx[q]])
                continue;
            kept[r->rowidx[q]] = 0;
            memset(&z[(size_t)r->rowidx[q] * w + 9 * c], 0, 9 * sizeof *z);
        }
    for (int k = 0; k < u->n; k++)
        memset(&z[(size_t)u->slot[k] * w], 0, (size_t)w * sizeof *z);
}

EP_KERNEL void ep_gfw_row(const ep_gfw *r, int nw, const int *wslot, const double *wval, int k, const int *cols,
                double *out)
{
    for (int j = 0; j < k; j++) {
        int c = cols[j];
        int64_t p = r->kept_ptr[c], end = r->kept_ptr[c + 1];
        double B[9] = {0}; /* in registers (the loop below unrolled), not in out */
        for (int i = 0; i < nw && p < end; i++) { /* the weights and the column's words, both in slot order */
            while (p < end && r->kept_word[p] < wslot[i] >> 5)
                p++;
            int64_t q = p < end && r->kept_word[p] == wslot[i] >> 5 ? block_in_word(r, c, p, wslot[i]) : -1;
            if (q < 0)
                continue;
            const float *x = &r->blocks[9 * q];
            double w = wval[i];
#pragma GCC unroll 9
            for (int t = 0; t < 9; t++)
                B[t] += w * x[t];
        }
        memcpy(&out[9 * (size_t)j], B, sizeof B);
    }
}

typedef struct column_ref {
    const ep_gfw *r;
    int c;
} column_ref;

/* Coefficient of slot s in column c. */
static int column_coef(void *ctx, int s, double *out)
{
    const column_ref *cr = ctx;
    int64_t q = kept_block(cr->r, cr->c, s);
    if (q < 0)
        return 0;
    for (int i = 0; i < 9; i++)
        out[i] = cr->r->blocks[9 * q + i];
    return 1;
}

void ep_gfw_block(const ep_gfw *r, int c, int row, ep_wavelet_ws *ws, double B[9])
{
    column_ref cr = {r, c};
    ep_wavelet_value_at(&r->W, r->W.row_slot[row], column_coef, &cr, ws, B);
}
