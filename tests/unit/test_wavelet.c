/*
 * test_wavelet.c — wavelets on subdivision surfaces (wavelet.c) and wavelet
 * GF columns (gfw.c): perfect reconstruction, vanishing integrals, constants,
 * hats against barycentric coordinates, selective extraction and fast
 * summation against full reconstructions, the file round trip, bad input.
 */
#include "helpers.h"

#include "gfsrc.h"
#include "gfw.h"
#include "gfzip.h"
#include "h5.h"
#include "subdiv.h"
#include "wavelet.h"

/* The icosahedron refined `levels` times; areas derived. */
static void refined(ep_mesh *m, int levels, ep_subdiv_scheme scheme)
{
    ep_mesh_init(m);
    assert_int_equal(ep_model_read(m, "data/icosahedron.obj"), EP_OK);
    for (int i = 0; i < levels; i++)
        assert_int_equal(ep_subdiv_refine(m, scheme, NULL), EP_OK);
    free(m->boundary), free(m->vertex_area);
    m->boundary = NULL, m->vertex_area = NULL;
    assert_int_equal(ep_mesh_derive_boundary_data(m), EP_OK);
}

/* Rows = all vertices; domain 1 below z = -0.3 (the "fixed" rows). */
static void rows_of(const ep_mesh *m, int *rv, int8_t *dom, double *area)
{
    for (int v = 0; v < m->nv; v++) {
        rv[v] = v;
        dom[v] = m->vertices[3 * v + 2] < -0.3;
        area[v] = m->vertex_area[v];
    }
}

static void build(const ep_mesh *m, ep_wavelet_kind kind, int lifted, ep_wavelet *W)
{
    int *rv = malloc(m->nv * sizeof *rv);
    int8_t *dom = malloc(m->nv);
    double *area = malloc(m->nv * sizeof *area);
    rows_of(m, rv, dom, area);
    assert_int_equal(ep_wavelet_build(W, m, m->nv, rv, dom, area, kind, lifted), EP_OK);
    free(rv), free(dom), free(area);
}


/* Run check on every transform of a thrice Loop-refined icosahedron:
 * linear and Butterfly, lifted and (when unlifted_too) unlifted. */
static void each_transform(void (*check)(const ep_mesh *m, const ep_wavelet *W, int lifted), int unlifted_too)
{
    ep_mesh m;
    refined(&m, 3, EP_SUBDIV_LOOP);
    for (int kind = 0; kind < 2; kind++)
        for (int lifted = !unlifted_too; lifted < 2; lifted++) {
            ep_wavelet W;
            build(&m, kind, lifted, &W);
            check(&m, &W, lifted);
            ep_wavelet_free(&W);
        }
    ep_mesh_free(&m);
}

/* inverse(forward(x)) = x for every wavelet, lifted and unlifted, with two
 * domains; the slot order lists each domain coarse to fine. */
static void reconstructs(const ep_mesh *m, const ep_wavelet *W, int lifted)
{
    (void)lifted;
    assert_int_equal(W->nlevels, 4);
    for (int q = 1; q < W->n; q++) {
        int8_t d0 = m->vertices[3 * W->slot_row[q - 1] + 2] < -0.3, d1 = m->vertices[3 * W->slot_row[q] + 2] < -0.3;
        assert_true(d0 < d1 || (d0 == d1 && W->slot_level[q - 1] <= W->slot_level[q]));
    }
    ep_rng seed = ep_rng_seed(7, 0);
    double *x = malloc(3 * W->n * sizeof *x), *y = malloc(3 * W->n * sizeof *y), moved = 0, err = 0;
    for (int i = 0; i < 3 * W->n; i++)
        x[i] = y[i] = centered_uniform(&seed);
    ep_wavelet_forward(W, 3, y);
    for (int i = 0; i < 3 * W->n; i++)
        moved = fmax(moved, fabs(y[i] - x[i]));
    ep_wavelet_inverse(W, 3, y);
    for (int i = 0; i < 3 * W->n; i++)
        err = fmax(err, fabs(y[i] - x[i]));
    assert_true(moved > 0.1);
    assert_true(err < 1e-13);
    free(x), free(y);
}

static void perfect_reconstruction(void **s)
{
    (void)s;
    each_transform(reconstructs, 1);
}

/* A slot's synthesis weights (ep_wavelet_row_weights, from its closure
 * alone) dotted with random coefficients give the full inverse transform
 * at that slot, for every slot; they are few, ascending, and leave the
 * workspace zero. */
static void weights_synthesize(const ep_mesh *m, const ep_wavelet *W, int lifted)
{
    (void)m, (void)lifted;
    int n = W->n, *nz = malloc(n * sizeof *nz), most = 0;
    double *x = malloc(n * sizeof *x), *c = malloc(n * sizeof *c), *y = calloc(n, sizeof *y),
           *w = malloc(n * sizeof *w), *zero = calloc(n, sizeof *zero);
    ep_rng seed = ep_rng_seed(11, 0);
    for (int i = 0; i < n; i++)
        x[i] = c[i] = centered_uniform(&seed);
    ep_wavelet_inverse(W, 1, x);
    ep_wavelet_subset u;
    assert_int_equal(ep_wavelet_subset_init(&u, W), EP_OK);
    for (int s = 0; s < n; s++) {
        int nw = ep_wavelet_row_weights(W, &u, s, y, nz, w);
        double v = 0;
        for (int i = 0; i < nw; i++)
            v += w[i] * c[nz[i]];
        assert_true(fabs(v - x[s]) < 1e-13 * (1 + fabs(x[s])));
        for (int i = 1; i < nw; i++)
            assert_true(nz[i - 1] < nz[i]);
        assert_memory_equal(y, zero, n * sizeof *y);
        assert_memory_equal(u.seen, zero, (size_t)n); /* the marks are zero again */
        most = nw > most ? nw : most;
    }
    assert_true(most > 1 && most < n / 4);
    ep_wavelet_subset_free(&u);
    free(nz), free(x), free(c), free(y), free(w), free(zero);
}

static void synthesis_weights(void **s)
{
    (void)s;
    each_transform(weights_synthesize, 1);
}

/* Every predict stencil sums to 1, so constants have no wavelet coefficient
 * (000 §3.1.3), also at domain boundaries where the stencils fall back. */
static void constant_is_coarse(const ep_mesh *m, const ep_wavelet *W, int lifted)
{
    (void)m, (void)lifted;
    double *y = malloc(W->n * sizeof *y);
    for (int i = 0; i < W->n; i++)
        y[i] = 2.5;
    ep_wavelet_forward(W, 1, y);
    for (int i = 0; i < W->n; i++)
        if (W->slot_level[i] > 0)
            assert_true(fabs(y[i]) < 1e-13);
    free(y);
}

static void constants_are_coarse(void **s)
{
    (void)s;
    each_transform(constant_is_coarse, 0);
}

/* Lifted wavelets have zero integral: synthesize each unit wavelet
 * coefficient into the finest hat basis and integrate with the vertex areas
 * (000 eq. 3.31).  Unlifted ones do not, which shows the test can fail. */
static void integral_vanishes(const ep_mesh *m, const ep_wavelet *W, int lifted)
{
    double *y = malloc(W->n * sizeof *y), worst = 0;
    for (int q = 0; q < W->n; q++) {
        if (W->slot_level[q] == 0 || (lifted && W->lift_slot[2 * q] < 0))
            continue;
        memset(y, 0, W->n * sizeof *y);
        y[q] = 1;
        ep_wavelet_inverse(W, 1, y);
        double integral = 0, mass = 0;
        for (int k = 0; k < W->n; k++) {
            integral += y[k] * m->vertex_area[W->slot_row[k]];
            mass += fabs(y[k]) * m->vertex_area[W->slot_row[k]];
        }
        worst = nan_max(worst, fabs(integral) / mass);
    }
    if (lifted)
        assert_true(worst < 1e-13);
    else
        assert_true(worst > 0.1);
    free(y);
}

static void vanishing_integral(void **s)
{
    (void)s;
    each_transform(integral_vanishes, 1);
}

/* On a linearly subdivided surface the level-l hat is the piecewise linear
 * hat of the coarse mesh: at every fine vertex it equals the barycentric
 * coordinate of k in the coarse triangle that holds the vertex. */
static void hat_is_coarse_hat(void **s)
{
    (void)s;
    ep_mesh coarse, m;
    ep_mesh_init(&coarse);
    assert_int_equal(ep_model_read(&coarse, "data/icosahedron.obj"), EP_OK);
    refined(&m, 2, EP_SUBDIV_LINEAR);
    double *hat = malloc(m.nv * sizeof *hat);
    for (int k = 0; k < coarse.nv; k++) {
        ep_wavelet_hat(&m, 0, k, hat);
        for (int v = 0; v < m.nv; v++) {
            double want = 0;
            const double *p = &m.vertices[3 * v];
            for (int t = 0; t < coarse.nf; t++) {
                const int *c = &coarse.triangles[3 * t];
                const double *a = &coarse.vertices[3 * c[0]], *b = &coarse.vertices[3 * c[1]],
                             *d = &coarse.vertices[3 * c[2]];
                double e1[3], e2[3], w[3], n[3];
                for (int i = 0; i < 3; i++)
                    e1[i] = b[i] - a[i], e2[i] = d[i] - a[i], w[i] = p[i] - a[i];
                n[0] = e1[1] * e2[2] - e1[2] * e2[1];
                n[1] = e1[2] * e2[0] - e1[0] * e2[2];
                n[2] = e1[0] * e2[1] - e1[1] * e2[0];
                double nn = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
                if (fabs(w[0] * n[0] + w[1] * n[1] + w[2] * n[2]) > 1e-9 * sqrt(nn))
                    continue; /* not in this triangle's plane */
                double c1[3] = {w[1] * e2[2] - w[2] * e2[1], w[2] * e2[0] - w[0] * e2[2], w[0] * e2[1] - w[1] * e2[0]};
                double c2[3] = {e1[1] * w[2] - e1[2] * w[1], e1[2] * w[0] - e1[0] * w[2], e1[0] * w[1] - e1[1] * w[0]};
                double l1 = (c1[0] * n[0] + c1[1] * n[1] + c1[2] * n[2]) / nn;
                double l2 = (c2[0] * n[0] + c2[1] * n[1] + c2[2] * n[2]) / nn, l0 = 1 - l1 - l2;
                if (l0 < -1e-9 || l1 < -1e-9 || l2 < -1e-9)
                    continue;
                want = c[0] == k ? l0 : c[1] == k ? l1 : c[2] == k ? l2 : 0;
                break;
            }
            assert_true(fabs(hat[v] - want) < 1e-12);
        }
    }
    free(hat);
    ep_mesh_free(&m);
    ep_mesh_free(&coarse);
}

/* A smooth "GF-like" block column: a decaying tensor field around vertex c. */
static void smooth_column(const ep_mesh *m, int c, double *xrow /* [n][9], row order */)
{
    const double *y = &m->vertices[3 * c];
    for (int v = 0; v < m->nv; v++) {
        const double *x = &m->vertices[3 * v];
        double d[3] = {x[0] - y[0], x[1] - y[1], x[2] - y[2]}, r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) + 0.2;
        for (int b = 0; b < 3; b++)
            for (int a = 0; a < 3; a++)
                xrow[9 * v + 3 * b + a] = ((a == b) + d[a] * d[b] / (r * r)) / r;
    }
}

/* An in-memory gf-wavelet set of ncol columns thresholded at eps. */
static void compress_columns(const ep_mesh *m, ep_wavelet *W, int ncol, double eps, ep_gfw *r)
{
    int n = W->n;
    int8_t *dom = calloc(n, 1);
    double *x = malloc(9 * n * sizeof *x), *y = malloc(9 * n * sizeof *y), amp[2];
    for (int q = 0; q < n; q++)
        dom[q] = m->vertices[3 * W->slot_row[q] + 2] < -0.3;
    memset(r, 0, sizeof *r);
    r->W = *W;
    r->colptr = calloc(ncol + 1, sizeof *r->colptr);
    r->rowidx = malloc((size_t)ncol * n * sizeof *r->rowidx);
    r->blocks = malloc((size_t)ncol * n * 9 * sizeof *r->blocks);
    for (int c = 0; c < ncol; c++) {
        smooth_column(m, (c * 37) % m->nv, x);
        ep_wavelet_to_slots(W, 9, x, y);
        ep_gfzip_amplitude(W, dom, y, amp);
        ep_wavelet_forward(W, 9, y);
        int64_t at = r->colptr[c];
        r->colptr[c + 1] = at + ep_gfzip_threshold(W, dom, y, amp, eps, 0, &r->rowidx[at], &r->blocks[9 * at]);
    }
    r->g.L.m = ncol;
    assert_int_equal(ep_gfw_index(r), EP_OK);
    free(dom), free(x), free(y);
}

/* A few rows of every column by partial synthesis (rows 1, 5, 9, ... and
 * the finest rows, whose closures reach every level), of one column at a
 * time or several together, and one row of every column by its synthesis
 * weights equal the full reconstruction.  z: [n][9] workspace (grown here,
 * returned), col: [n][9]. */
static double *partial_synthesis(const ep_gfw *r, int ncol, double *z, double *col)
{
    int n = r->W.n, nr = 0, *rows = malloc(n * sizeof *rows), *slots = malloc(n * sizeof *slots),
        *cols = malloc(ncol * sizeof *cols);
    double *part = malloc(45 * (size_t)n * sizeof *part), *y = calloc(n, sizeof *y), *w = malloc(n * sizeof *w),
           *row = malloc(9 * (size_t)ncol * sizeof *row), *zero = calloc(45 * (size_t)n, sizeof *zero),
           *work = malloc(9 * (size_t)n * sizeof *work);
    char *kept = calloc(n, 1);
    z = realloc(z, 45 * (size_t)n * sizeof *z); /* five columns at once */
    ep_wavelet_subset u;
    assert_int_equal(ep_wavelet_subset_init(&u, &r->W), EP_OK);
    for (int v = 1; v < n; v += 4)
        rows[nr++] = v;
    rows[nr++] = n - 1;
    for (int k = 0; k < nr; k++)
        slots[k] = r->W.row_slot[rows[k]];
    ep_wavelet_subset_set(&u, &r->W, slots, nr);
    assert_true(u.n >= nr && u.n < n);
    for (int c = 0; c < ncol; c++)
        cols[c] = c;
    for (int nc = 1; nc <= 5; nc += 2) /* the columns one, three and five at a time */
        for (int c0 = 0; c0 < ncol; c0 += nc) {
            int k = ncol - c0 < nc ? ncol - c0 : nc;
            memset(z, 0, 9 * (size_t)nc * n * sizeof *z);
            ep_gfw_columns_rows(r, k, cols + c0, &u, nr, rows, kept, z, part);
            assert_memory_equal(z, zero, 9 * (size_t)nc * n * sizeof *z); /* zero again, for the next columns */
            assert_memory_equal(kept, zero, (size_t)n);
            for (int c = 0; c < k; c++) {
                ep_gfw_column(r, c0 + c, work, col);
                for (int i = 0; i < nr; i++)
                    for (int q = 0; q < 9; q++)
                        assert_true(fabs(part[9 * ((size_t)c * nr + i) + q] - col[9 * rows[i] + q]) <
                                    1e-12 * (1 + fabs(col[9 * rows[i] + q])));
            }
        }
    nr = 0; /* planned again for other rows: the masks of the first plan are gone */
    for (int v = 2; v < n; v += 5)
        rows[nr++] = v;
    for (int k = 0; k < nr; k++)
        slots[k] = r->W.row_slot[rows[k]];
    ep_wavelet_subset_set(&u, &r->W, slots, nr);
    memset(z, 0, 27 * (size_t)n * sizeof *z);
    ep_gfw_columns_rows(r, 3, cols + 1, &u, nr, rows, kept, z, part);
    assert_memory_equal(z, zero, 27 * (size_t)n * sizeof *z);
    for (int c = 0; c < 3; c++) {
        ep_gfw_column(r, 1 + c, work, col);
        for (int i = 0; i < nr; i++)
            for (int q = 0; q < 9; q++)
                assert_true(fabs(part[9 * ((size_t)c * nr + i) + q] - col[9 * rows[i] + q]) <
                            1e-12 * (1 + fabs(col[9 * rows[i] + q])));
    }
    for (int v = 0; v < n; v += 7) {
        int nw = ep_wavelet_row_weights(&r->W, &u, r->W.row_slot[v], y, slots, w);
        assert_true(nw > 0 && nw < n);
        ep_gfw_row(r, nw, slots, w, ncol, cols, row);
        for (int c = 0; c < ncol; c++) {
            ep_gfw_column(r, c, z, col);
            for (int q = 0; q < 9; q++)
                assert_true(fabs(row[9 * c + q] - col[9 * v + q]) < 1e-12 * (1 + fabs(col[9 * v + q])));
        }
    }
    ep_wavelet_subset_free(&u);
    free(rows), free(slots), free(cols), free(part), free(y), free(w), free(row), free(zero), free(work), free(kept);
    return z;
}

/* Fast summation (one inverse transform) equals the sum of the columns
 * reconstructed one by one; selective extraction, partial synthesis and a
 * row's synthesis weights equal the full reconstruction. */
static void fast_sum_and_extraction(void **s)
{
    (void)s;
    ep_mesh m;
    refined(&m, 3, EP_SUBDIV_LOOP);
    for (int kind = 0; kind < 2; kind++) {
        ep_wavelet W;
        ep_gfw r;
        ep_wavelet_ws ws;
        build(&m, kind, 1, &W);
        int n = W.n, ncol = 12, cols[5] = {0, 3, 4, 7, 11};
        compress_columns(&m, &W, ncol, 0.05, &r);
        assert_true(r.colptr[ncol] < (int64_t)ncol * n / 2); /* it did compress */
        double *z = malloc(9 * n * sizeof *z), *col = malloc(9 * n * sizeof *col), *dense = calloc(3 * n, sizeof *dense),
               *acc = malloc(3 * n * sizeof *acc), *out = malloc(3 * n * sizeof *out), loads[15], err = 0, scale = 0;
        ep_rng seed = ep_rng_seed(3, 0);
        for (int i = 0; i < 15; i++)
            loads[i] = centered_uniform(&seed);
        assert_int_equal(ep_wavelet_ws_init(&ws, &W, 9), EP_OK);
        for (int i = 0; i < 5; i++) {
            ep_gfw_column(&r, cols[i], z, col);
            for (int v = 0; v < n; v++)
                for (int b = 0; b < 3; b++)
                    for (int a = 0; a < 3; a++)
                        dense[3 * v + b] += col[9 * v + 3 * b + a] * loads[3 * i + a];
            for (int v = 0; v < n; v++) {
                double B[9];
                ep_gfw_block(&r, cols[i], v, &ws, B);
                for (int q = 0; q < 9; q++)
                    assert_true(fabs(B[q] - col[9 * v + q]) < 1e-12 * (1 + fabs(col[9 * v + q])));
            }
        }
        ep_gfw_sum(&r, 5, cols, loads, acc, out);
        for (int i = 0; i < 3 * n; i++)
            err = fmax(err, fabs(out[i] - dense[i])), scale = fmax(scale, fabs(dense[i]));
        assert_true(err < 1e-12 * scale);
        z = partial_synthesis(&r, ncol, z, col);
        ep_wavelet_ws_free(&ws);
        free(z), free(col), free(dense), free(acc), free(out);
        free(r.colptr), free(r.rowidx), free(r.blocks);
        free(r.kept_ptr), free(r.kept_word), free(r.kept_bits);
        ep_wavelet_free(&W);
    }
    ep_mesh_free(&m);
}

/* Writer -> file -> reader gives the same filters and columns; a damaged
 * filter is refused with the slot named. */
static void file_round_trip(void **s)
{
    (void)s;
    ep_mesh m;
    ep_wavelet W;
    ep_gfw mem, back;
    ep_gf_file src;
    ep_h5 f;
    ep_gfw_writer w;
    refined(&m, 2, EP_SUBDIV_LOOP);
    build(&m, EP_WAVELET_BUTTERFLY, 1, &W);
    int n = W.n, ncol = 5;
    compress_columns(&m, &W, ncol, 0.02, &mem);
    memset(&src, 0, sizeof src);
    src.L.entity = "vertex";
    src.L.n = n;
    src.L.m = ncol;
    src.L.row_vertex = malloc(n * sizeof(int));
    src.L.row_fixed = malloc(n);
    src.L.col_vertex = malloc(ncol * sizeof(int));
    for (int v = 0; v < n; v++)
        src.L.row_vertex[v] = v, src.L.row_fixed[v] = m.vertices[3 * v + 2] < -0.3;
    for (int c = 0; c < ncol; c++)
        src.L.col_vertex[c] = (c * 37) % m.nv;
    strcpy(src.method, "test"), strcpy(src.traction, "hat");
    const char *path = scratch("w.h5");
    assert_int_equal(ep_h5_create(&f, path, "gf-wavelet", "test", "test"), EP_OK);
    assert_int_equal(ep_model_write_mesh(&f, &m), EP_OK);
    assert_int_equal(ep_gfw_writer_open(&w, &f, &src.L, src.method, "", &W, "butterfly", 1, 0.02), EP_OK);
    for (int c = 0; c < ncol; c++)
        assert_int_equal(ep_gfw_writer_put(&w, (int)(mem.colptr[c + 1] - mem.colptr[c]), &mem.rowidx[mem.colptr[c]],
                                           &mem.blocks[9 * mem.colptr[c]]), EP_OK);
    assert_int_equal(ep_gfw_writer_close(&w, 0.01, 0.02), EP_OK);
    assert_int_equal(ep_h5_close(&f), EP_OK);

    assert_int_equal(ep_gfw_open(&back, path), EP_OK);
    assert_int_equal(back.W.nlevels, W.nlevels);
    assert_true(back.lifted && !strcmp(back.wavelet, "butterfly") && back.eps == 0.02);
    double *z = malloc(9 * n * sizeof *z), *a = malloc(9 * n * sizeof *a), *b = malloc(9 * n * sizeof *b);
    for (int c = 0; c < ncol; c++) {
        ep_gfw_column(&mem, c, z, a);
        ep_gfw_column(&back, c, z, b);
        for (int i = 0; i < 9 * n; i++)
            assert_true(a[i] == b[i]);
    }
    /* the reader's index of the kept blocks is the set's */
    assert_memory_equal(back.kept_ptr, mem.kept_ptr, (ncol + 1) * sizeof *back.kept_ptr);
    assert_memory_equal(back.kept_word, mem.kept_word, back.kept_ptr[ncol] * sizeof *back.kept_word);
    assert_memory_equal(back.kept_bits, mem.kept_bits, back.kept_ptr[ncol] * sizeof *back.kept_bits);
    ep_gfw_close(&back);

    /* a runtime's row reads (gfsrc.h: weights, then the index) and block
     * reads (selective extraction) equal the whole columns */
    ep_gfsrc g;
    int nodes[5];
    double row[45], B[9];
    assert_int_equal(ep_gfsrc_open(&g, path), EP_OK);
    for (int c = 0; c < ncol; c++)
        nodes[c] = src.L.col_vertex[c]; /* row v is vertex v */
    for (int v = 0; v < n; v += 3) {
        ep_gfsrc_node_row(&g, v, ncol, nodes, row);
        for (int c = 0; c < ncol; c++) {
            ep_gfw_column(&mem, c, z, a);
            ep_gfsrc_block(&g, v, c, B);
            for (int q = 0; q < 9; q++)
                assert_true(fabs(row[9 * c + q] - a[9 * v + q]) < 1e-12 * (1 + fabs(a[9 * v + q])) &&
                            fabs(B[q] - a[9 * v + q]) < 1e-12 * (1 + fabs(a[9 * v + q])));
        }
    }
    ep_gfsrc_close(&g);

    /* a stencil naming a finer slot is refused */
    int bad = W.pred_slot[W.pred_ptr[n - 1]];
    W.pred_slot[W.pred_ptr[n - 1]] = n - 1;
    path = scratch("bad.h5");
    assert_int_equal(ep_h5_create(&f, path, "gf-wavelet", "test", "test"), EP_OK);
    assert_int_equal(ep_model_write_mesh(&f, &m), EP_OK);
    assert_int_equal(ep_gfw_writer_open(&w, &f, &src.L, src.method, "", &W, "butterfly", 1, 0.02), EP_OK);
    for (int c = 0; c < ncol; c++)
        assert_int_equal(ep_gfw_writer_put(&w, 0, NULL, NULL), EP_OK);
    assert_int_equal(ep_gfw_writer_close(&w, 0, 0), EP_OK);
    assert_int_equal(ep_h5_close(&f), EP_OK);
    expect_error(ep_gfw_open(&back, path), EP_EINPUT, "bad.h5", "predict stencil", NULL);
    ep_gfw_close(&back);
    W.pred_slot[W.pred_ptr[n - 1]] = bad;

    free(z), free(a), free(b);
    free(mem.colptr), free(mem.rowidx), free(mem.blocks);
    free(mem.kept_ptr), free(mem.kept_word), free(mem.kept_bits);
    ep_gf_layout_free(&src.L);
    ep_wavelet_free(&W);
    ep_mesh_free(&m);
}

/* Level data that is not 1-to-4 subdivision is refused with advice. */
static void not_subdivision(void **s)
{
    (void)s;
    ep_mesh m;
    ep_wavelet W;
    refined(&m, 2, EP_SUBDIV_LOOP);
    int *rv = malloc(m.nv * sizeof *rv);
    int8_t *dom = malloc(m.nv);
    double *area = malloc(m.nv * sizeof *area);
    rows_of(&m, rv, dom, area);
    int v = m.nv - 1; /* an odd vertex of the finest level claims other parents */
    m.parents[2 * v] = 0, m.parents[2 * v + 1] = 1;
    expect_error(ep_wavelet_build(&W, &m, m.nv, rv, dom, area, EP_WAVELET_LINEAR, 1), EP_EINPUT, "loopsub", NULL);
    free(rv), free(dom), free(area);
    ep_mesh_free(&m);
}

EP_TEST_MAIN("wavelet", cmocka_unit_test(perfect_reconstruction), cmocka_unit_test(synthesis_weights),
             cmocka_unit_test(constants_are_coarse),
             cmocka_unit_test(vanishing_integral), cmocka_unit_test(hat_is_coarse_hat),
             cmocka_unit_test(fast_sum_and_extraction), cmocka_unit_test(file_round_trip),
             cmocka_unit_test(not_subdivision))
