/*
 * test_cma.c — the capacitance matrix algorithm (cma.c) on a synthetic GF
 * matrix: long random add/delete sequences against from-scratch inverses,
 * the contact solve against a direct dense solve, the cache, pressure masks.
 * The check against GFs recomputed by femcondense is tests/cli/rtcheck.sh.
 */
#include "helpers.h"

#include <lapacke.h>

#include "cma.h"
#include "cma_cache.h"
#include "rng.h"

/* Uniform in [-0.5, 0.5). */

/* Entry (b, a) of the dense block Xi(r, c) (gfsrc.h's layout). */
static double *xi_at(ep_gfsrc *g, int r, int c, int b, int a) { return &g->xi[((size_t)c * g->n + r) * 9 + 3 * b + a]; }

/* n free nodes on a circle, every one a column; Xi an unsymmetric block
 * matrix with a peak on the diagonal and a smooth tail (what GFs look like),
 * well enough conditioned that a from-scratch inverse is exact to ~1e-13. */
static void synthetic(ep_gfsrc *g, int n)
{
    memset(g, 0, sizeof *g);
    g->file = &g->own;
    ep_mesh_init(&g->own.mesh);
    g->n = g->m = n;
    g->own.mesh.nv = n;
    g->own.mesh.vertices = calloc(3 * n, sizeof(double));
    g->own.L.n = g->own.L.m = n;
    g->own.L.row_vertex = malloc(n * sizeof(int));
    g->own.L.col_vertex = malloc(n * sizeof(int));
    g->own.L.row_fixed = calloc(n, 1);
    g->col_of_row = malloc(n * sizeof(int));
    g->area = malloc(n * sizeof(double));
    g->xi = malloc(9 * (size_t)n * n * sizeof(double));
    g->col = malloc(72 * (size_t)n * sizeof(double)); /* room for a batch of 8 (symmetric_form) */
    g->batch = 1;                                     /* as ep_gfsrc_open gives dense GFs */
    ep_rng seed = ep_rng_seed(11, 0);
    for (int v = 0; v < n; v++) {
        g->own.L.row_vertex[v] = g->own.L.col_vertex[v] = g->col_of_row[v] = v;
        g->own.mesh.vertices[3 * v] = cos(2 * M_PI * v / n);
        g->own.mesh.vertices[3 * v + 1] = sin(2 * M_PI * v / n);
        g->area[v] = 0.5 + 0.01 * v;
    }
    for (int c = 0; c < n; c++)
        for (int a = 0; a < 3; a++)
            for (int r = 0; r < n; r++)
                for (int b = 0; b < 3; b++) {
                    double d = fabs(cos(2 * M_PI * (r - c) / n) - 1) + 0.5;
                    *xi_at(g, r, c, b, a) = (a == b) * (2.0 * (r == c) + 1 / d) + 0.1 * centered_uniform(&seed);
                }
}

static void synthetic_free(ep_gfsrc *g)
{
    ep_gf_layout_free(&g->own.L);
    ep_mesh_free(&g->own.mesh);
    free(g->col_of_row), free(g->area), free(g->xi), free(g->col);
}

static void synthetic_symmetric(ep_gfsrc *g, int n, double shift);


static double rel_diff(const double *a, const double *b, size_t k)
{
    double d = 0, m = 0;
    for (size_t i = 0; i < k; i++)
        d = fmax(d, fabs(a[i] - b[i])), m = fmax(m, fabs(b[i]));
    return d / m;
}

/* Relative max difference of the two inverses (compact copies). */
static double inverse_diff(const ep_cma *a, const ep_cma *b)
{
    size_t k = 9 * (size_t)a->s * a->s;
    double *x = malloc(k * sizeof *x + 8), *y = malloc(k * sizeof *y + 8);
    ep_cma_inverse(a, x), ep_cma_inverse(b, y);
    double d = rel_diff(x, y, k);
    free(x), free(y);
    return d;
}

/* Hundreds of random additions and deletions keep C^-1 equal to LU's
 * inverse from scratch for the same node list: the explicit inverse on one
 * thread or two (the set grows past 32 nodes, where a helper takes half of
 * each pass), and the symmetric form's factor (the sizes cross the
 * kernels' tiles of 8 rows with every remainder, and nodes leave from
 * every place). */
static void update_sequence(int threads, int symmetric)
{
    ep_gfsrc g;
    ep_cma c, ref;
    if (symmetric)
        synthetic_symmetric(&g, 80, 0.5);
    else
        synthetic(&g, 80);
    for (int r = 0; r < 80 && symmetric == 2; r++) /* 2: Ahat less 0.2 e e^T, e the x rows: indefinite from some size on */
        for (int col = 0; col < 80; col++)
            *xi_at(&g, r, col, 0, 0) -= 0.2 * g.area[col];
    assert_int_equal(ep_cma_init(&c, &g), EP_OK);
    assert_int_equal(ep_cma_init(&ref, &g), EP_OK);
    assert_int_equal(ep_cma_threads(&c, threads), EP_OK);
    ep_cma_use_lu(&ref);
    ep_rng seed = ep_rng_seed(5, 0);
    double worst = 0;
    int adds = 0, removes = 0, most = 0, first = 0, last = 0, ldlt = 0;
    for (int op = 1; op <= 400; op++) {
        int node = (int)((centered_uniform(&seed) + 0.5) * 80) % 80;
        int in = -1;
        for (int i = 0; i < c.s; i++)
            in = c.S[i] == node ? i : in;
        if (in >= 0 && c.s > 1 && (c.s > 40 || centered_uniform(&seed) < 0)) {
            first += in == 0, last += in == c.s - 1;
            assert_int_equal(ep_cma_remove(&c, node), EP_OK);
            removes++;
        } else if (in < 0) {
            assert_int_equal(ep_cma_add(&c, node), EP_OK);
            adds++;
        }
        if (symmetric == 2) /* the Cholesky factor until a complement is indefinite, then the LDL^T (or
                               LU, where that grew) */
            assert_true(c.form != EP_CMA_INVERSE || ldlt > 0);
        else
            assert_int_equal(c.form, symmetric ? EP_CMA_CHOLESKY : EP_CMA_INVERSE);
        ldlt += c.form == EP_CMA_LDLT;
        most = c.s > most ? c.s : most;
        if (op % 25 == 0) {
            assert_int_equal(ep_cma_set(&ref, c.S, c.s), EP_OK);
            worst = nan_max(worst, inverse_diff(&c, &ref));
        }
    }
    print_message("%s, %d threads: %d additions, %d deletions (%d first, %d last), up to %d nodes (%d ops as "
                  "LDL^T): %.2e\n", symmetric == 2 ? "indefinite factor" : symmetric ? "factor" : "inverse", threads,
                  adds, removes, first, last, most, ldlt, worst);
    assert_true(adds > 100 && removes > 50 && most > 32 && first > 0 && last > 0);
    assert_true(symmetric == 2 ? ldlt > 40 : ldlt == 0);
    assert_true(worst < 1e-10);
    expect_error(ep_cma_add(&c, c.S[0]), EP_EINPUT, "already", NULL);
    expect_error(ep_cma_remove(&ref, -5), EP_EINPUT, "not in the set", NULL);
    ep_cma_free(&c), ep_cma_free(&ref);
    synthetic_free(&g);
}

static void updates_match_scratch(void **s)
{
    (void)s;
    update_sequence(1, 0);
}

static void updates_match_scratch_two_threads(void **s)
{
    (void)s;
    update_sequence(2, 0);
}

/* Issue 21: the symmetric form keeps the Cholesky factor through every
 * addition and deletion. */
static void factor_updates_match_scratch(void **s)
{
    (void)s;
    update_sequence(1, 1);
    update_sequence(2, 1); /* a helper thread changes nothing there */
}

/* Lossy GFs can make Ahat indefinite: the factor becomes the LDL^T by node
 * blocks, which borders take and deletions factor again (or LU, where it
 * grew), against LU from scratch. */
static void ldlt_updates_match_scratch(void **s)
{
    (void)s;
    update_sequence(1, 2);
}

/* A node whose GFs are a combination of the set's (as a wavelet file's fine
 * vertex beside its parents can be) is refused, and the set and its inverse
 * stay as they were. */
static void dependent_node_refused(void **s)
{
    (void)s;
    enum { n = 12 };
    ep_gfsrc g;
    ep_cma c, ref;
    synthetic(&g, n);
    for (int r = 0; r < n; r++) /* column block 2 = the mean of 0 and 1, then row block 2 */
        for (int e = 0; e < 9; e++)
            *xi_at(&g, r, 2, e / 3, e % 3) = 0.5 * (*xi_at(&g, r, 0, e / 3, e % 3) + *xi_at(&g, r, 1, e / 3, e % 3));
    for (int col = 0; col < n; col++)
        for (int e = 0; e < 9; e++)
            *xi_at(&g, 2, col, e / 3, e % 3) =
                0.5 * (*xi_at(&g, 0, col, e / 3, e % 3) + *xi_at(&g, 1, col, e / 3, e % 3));
    assert_int_equal(ep_cma_init(&c, &g), EP_OK);
    assert_int_equal(ep_cma_init(&ref, &g), EP_OK);
    int kept[3] = {0, 1, 5};
    for (int i = 0; i < 3; i++)
        assert_int_equal(ep_cma_add(&c, kept[i]), EP_OK);
    expect_error(ep_cma_add(&c, 2), EP_ECOMPUTE, "combination of the set", NULL);
    assert_int_equal(c.s, 3);
    int with2[3] = {0, 1, 2}; /* from scratch: singular to working precision, refused */
    expect_error(ep_cma_set(&ref, with2, 3), EP_ECOMPUTE, "singular (reciprocal condition", NULL);
    assert_int_equal(ep_cma_set(&ref, kept, 3), EP_OK);
    assert_true(inverse_diff(&c, &ref) < 1e-12);
    assert_int_equal(ep_cma_add(&c, 7), EP_OK); /* and others still join */
    int four[4] = {0, 1, 5, 7};
    assert_int_equal(ep_cma_set(&ref, four, 4), EP_OK);
    assert_true(inverse_diff(&c, &ref) < 1e-12);
    ep_cma_free(&c), ep_cma_free(&ref);
    synthetic_free(&g);
}

/* The contact tractions p_S make the displacement at S what was prescribed:
 * a direct dense solve of (E^T Xi E) p = u - E^T Xi vbar gives the same p, and
 * the global solution's other rows are Xi applied to all the loads; with
 * the explicit inverse, and with the symmetric form's factor, for k nodes
 * (3k rows). */
static void solve_case(int symmetric, int k)
{
    enum { n = 60, KMAX = 16, NMAX = 3 * KMAX };
    int N = 3 * k;
    ep_gfsrc g;
    ep_cma c;
    if (symmetric)
        synthetic_symmetric(&g, n, 0.5);
    else
        synthetic(&g, n);
    assert_int_equal(ep_cma_init(&c, &g), EP_OK);
    c.indefinite = symmetric == 2; /* 2: the LDL^T of the same (definite) Ahat */
    int nodes[KMAX];
    for (int i = 0; i < k; i++)
        nodes[i] = 3 + i;
    assert_int_equal(ep_cma_set(&c, nodes, k), EP_OK);
    static const int form[3] = {EP_CMA_INVERSE, EP_CMA_CHOLESKY, EP_CMA_LDLT};
    assert_int_equal(c.form, form[symmetric]);
    double u[NMAX], *vbar = calloc(3 * n, sizeof *vbar), p[NMAX], *v = malloc(3 * n * sizeof *v);
    ep_rng seed = ep_rng_seed(9, 0);
    for (int i = 0; i < N; i++)
        u[i] = centered_uniform(&seed);
    for (int i = 0; i < 3; i++)
        vbar[3 * 30 + i] = centered_uniform(&seed), vbar[3 * 40 + i] = centered_uniform(&seed);
    ep_cma_solve(&c, u, vbar, p, v);
    /* direct: G p = u - E^T Xi vbar */
    double G[NMAX * NMAX], rhs[NMAX], B[9];
    lapack_int ipiv[NMAX];
    for (int i = 0; i < k; i++) {
        for (int j = 0; j < k; j++) {
            ep_gfsrc_block(&g, nodes[i], nodes[j], B);
            for (int b = 0; b < 3; b++)
                for (int a = 0; a < 3; a++)
                    G[(3 * i + b) * N + 3 * j + a] = B[3 * b + a];
        }
        for (int b = 0; b < 3; b++)
            rhs[3 * i + b] = u[3 * i + b];
        for (int src = 30; src <= 40; src += 10) {
            ep_gfsrc_block(&g, nodes[i], src, B);
            for (int b = 0; b < 3; b++)
                for (int a = 0; a < 3; a++)
                    rhs[3 * i + b] -= B[3 * b + a] * vbar[3 * src + a];
        }
    }
    assert_int_equal(LAPACKE_dgesv(LAPACK_ROW_MAJOR, N, 1, G, N, ipiv, rhs, 1), 0);
    if (k == 13)
        print_message("%s: contact tractions against a direct solve %.2e\n", c.factor, rel_diff(p, rhs, N));
    assert_true(rel_diff(p, rhs, N) < 1e-12);
    for (int i = 0; i < k; i++)
        for (int b = 0; b < 3; b++)
            assert_true(v[3 * nodes[i] + b] == p[3 * i + b]);
    /* row 50 = Xi(50, S) p + Xi(50, 30) vbar30 + Xi(50, 40) vbar40 */
    double want[3] = {0, 0, 0};
    for (int j = 0; j < k + 2; j++) {
        int col = j < k ? nodes[j] : 30 + 10 * (j - k);
        const double *load = j < k ? &p[3 * j] : &vbar[3 * col];
        ep_gfsrc_block(&g, 50, col, B);
        for (int b = 0; b < 3; b++)
            for (int a = 0; a < 3; a++)
                want[b] += B[3 * b + a] * load[a];
    }
    assert_true(rel_diff(&v[150], want, 3) < 1e-12);
    double f[3];
    ep_cma_force(&c, p, f);
    double fx = 0;
    for (int i = 0; i < k; i++)
        fx += g.area[nodes[i]] * p[3 * i];
    assert_true(fabs(f[0] - fx) <= 1e-14 * fabs(fx));
    free(vbar), free(v);
    ep_cma_free(&c);
    synthetic_free(&g);
}

static void solve_matches_direct(void **s)
{
    (void)s;
    for (int k = 1; k <= 16; k++) /* 3 to 48 rows: every remainder of the solves' tiles of 8 */
        solve_case(0, k), solve_case(1, k), solve_case(2, k);
}

/* Ahat of all n nodes of the symmetric-form g (row-major, 3n x 3n, malloc'd),
 * its first k rows and columns of node 2 made the mean of nodes p's and
 * q's (the same direction): a node dependent on two others in k
 * directions. */
static double *ahat_with_mean(ep_gfsrc *g, ep_cma *c, int n, int k, int p, int q)
{
    int N = 3 * n, *all = malloc(sizeof *all * n);
    double *A = malloc(sizeof *A * N * N);
    for (int i = 0; i < n; i++)
        all[i] = i;
    ep_cma_matrix(c, all, n, A, N); /* Xihat = Ahat D */
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            A[i * N + j] /= g->area[j / 3];
    for (int b = 0; b < k; b++)
        for (int j = 0; j < N; j++)
            A[(6 + b) * N + j] = 0.5 * (A[(3 * p + b) * N + j] + A[(3 * q + b) * N + j]);
    for (int b = 0; b < k; b++)
        for (int i = 0; i < N; i++)
            A[i * N + 6 + b] = 0.5 * (A[i * N + 3 * p + b] + A[i * N + 3 * q + b]);
    free(all);
    return A;
}

/* The GFs of g made what Ahat says: Xi(r, c) = Ahat(r, c) a_c. */
static void gfs_from_ahat(ep_gfsrc *g, const double *A, int n)
{
    int N = 3 * n;
    for (int r = 0; r < n; r++)
        for (int col = 0; col < n; col++)
            for (int e = 0; e < 9; e++)
                *xi_at(g, r, col, e / 3, e % 3) = A[(3 * r + e / 3) * N + 3 * col + e % 3] * g->area[col];
}

/* In the symmetric form, a node one of whose directions is a combination
 * of the set's (Ahat's x-row and column of node 2 the mean of nodes 0's
 * and 1's) is refused by the factor as by the explicit inverse, and the
 * factor stays. */
static void dependent_direction_refused(void **s)
{
    (void)s;
    enum { n = 12 };
    ep_gfsrc g;
    ep_cma c, lu;
    synthetic_symmetric(&g, n, 0.5);
    assert_int_equal(ep_cma_init(&c, &g), EP_OK);
    double *A = ahat_with_mean(&g, &c, n, 1, 0, 1); /* node 2's x the mean of node 0's and 1's */
    gfs_from_ahat(&g, A, n);
    assert_int_equal(ep_cma_init(&lu, &g), EP_OK);
    ep_cma_use_lu(&lu);
    int two[2] = {0, 1};
    assert_int_equal(ep_cma_set(&c, two, 2), EP_OK);
    assert_int_equal(ep_cma_set(&lu, two, 2), EP_OK);
    int three[3] = {0, 1, 2}; /* from scratch, either form refuses the set */
    expect_error(ep_cma_set(&c, three, 3), EP_ECOMPUTE, "singular", NULL);
    expect_error(ep_cma_set(&lu, three, 3), EP_ECOMPUTE, "singular", NULL);
    assert_int_equal(ep_cma_set(&c, two, 2), EP_OK);
    assert_int_equal(ep_cma_set(&lu, two, 2), EP_OK);
    assert_int_equal(c.form, EP_CMA_CHOLESKY);
    assert_int_not_equal(ep_cma_add(&c, 2), EP_OK);
    assert_int_not_equal(ep_cma_add(&lu, 2), EP_OK);
    assert_true(c.s == 2 && c.form == EP_CMA_CHOLESKY && lu.s == 2);
    assert_int_equal(ep_cma_add(&c, 5), EP_OK); /* and others still join the factor */
    assert_int_equal(ep_cma_add(&lu, 5), EP_OK);
    assert_true(c.form == EP_CMA_CHOLESKY && inverse_diff(&c, &lu) < 1e-10);
    free(A);
    ep_cma_free(&c), ep_cma_free(&lu);
    synthetic_free(&g);
}

/* The cache returns what was stored for the same node set in any order,
 * counts hits and misses, and drops the least recently used entry to fit. */
static void cache(void **s)
{
    (void)s;
    ep_gfsrc g;
    ep_cma c, ref;
    ep_cma_cache k;
    synthetic(&g, 40);
    ep_cma_init(&c, &g), ep_cma_init(&ref, &g);
    ep_cma_cache_init(&k, 3 * (9.0 * 16 * sizeof(double) + 2 * 4 * sizeof(int) + sizeof(ep_cma_cache_entry)) + 1);
    int a[4] = {9, 2, 7, 4}, b[4] = {1, 3, 5, 8}, d[4] = {10, 11, 12, 13}, e[4] = {20, 21, 22, 23};
    assert_int_equal(ep_cma_cache_get(&k, &c, a, 4), 0);
    ep_cma_set(&c, a, 4);
    assert_int_equal(ep_cma_cache_put(&k, &c), EP_OK);
    int a2[4] = {4, 7, 9, 2};
    assert_int_equal(ep_cma_cache_get(&k, &c, a2, 4), 1);
    assert_int_equal(ep_cma_set(&ref, c.S, 4), EP_OK); /* c.S in the stored order */
    assert_memory_equal(c.S, a, sizeof a);
    assert_true(inverse_diff(&c, &ref) < 1e-12);
    ep_cma_set(&c, b, 4), ep_cma_cache_put(&k, &c);
    ep_cma_set(&c, d, 4), ep_cma_cache_put(&k, &c);
    assert_int_equal(ep_cma_cache_get(&k, &c, a, 4), 1); /* a is now the most recent; b the oldest */
    ep_cma_set(&c, e, 4), ep_cma_cache_put(&k, &c);
    assert_int_equal(k.n, 3);
    assert_int_equal(ep_cma_cache_get(&k, &c, b, 4), 0);
    assert_int_equal(ep_cma_cache_get(&k, &c, a, 4), 1);
    assert_int_equal(k.hits, 3);
    assert_int_equal(k.misses, 2);
    ep_cma_cache_free(&k);
    ep_cma_free(&c), ep_cma_free(&ref);
    synthetic_free(&g);

    /* an explicit inverse with an addition pending comes back whole */
    synthetic(&g, 40);
    ep_cma_init(&c, &g), ep_cma_init(&ref, &g);
    ep_cma_cache_init(&k, 1e6);
    assert_int_equal(ep_cma_set(&ref, a, 4), EP_OK);
    assert_int_equal(ep_cma_add(&ref, 30), EP_OK);
    assert_int_equal(ref.pending, 1);
    assert_int_equal(ep_cma_cache_put(&k, &ref), EP_OK);
    int five[5] = {30, 9, 7, 4, 2};
    assert_int_equal(ep_cma_cache_get(&k, &c, five, 5), 1);
    assert_true(c.form == EP_CMA_INVERSE && !c.pending && inverse_diff(&c, &ref) == 0);
    ep_cma_cache_free(&k);
    ep_cma_free(&c), ep_cma_free(&ref);
    synthetic_free(&g);

    /* the symmetric form's factor comes back as stored: the same bits */
    synthetic_symmetric(&g, 40, 0.5);
    ep_cma_init(&c, &g), ep_cma_init(&ref, &g);
    ep_cma_cache_init(&k, 1e6);
    assert_int_equal(ep_cma_set(&ref, a, 4), EP_OK);
    assert_int_equal(ep_cma_add(&ref, 30), EP_OK);
    assert_int_equal(ep_cma_remove(&ref, 2), EP_OK); /* S = 9, 7, 4, 30 */
    assert_int_equal(ref.form, EP_CMA_CHOLESKY);
    assert_int_equal(ep_cma_cache_put(&k, &ref), EP_OK);
    int sorted[4] = {4, 7, 9, 30}, stored[4] = {9, 7, 4, 30};
    assert_int_equal(ep_cma_set(&c, b, 4), EP_OK);
    assert_int_equal(ep_cma_cache_get(&k, &c, sorted, 4), 1);
    assert_int_equal(c.form, EP_CMA_CHOLESKY);
    assert_memory_equal(c.S, stored, sizeof stored);
    assert_true(inverse_diff(&c, &ref) == 0);
    ref.indefinite = 1; /* the LDL^T comes back with its pivots, and updates go on from it alike */
    assert_int_equal(ep_cma_set(&ref, a, 4), EP_OK);
    assert_int_equal(ep_cma_add(&ref, 31), EP_OK);
    assert_int_equal(ep_cma_remove(&ref, 9), EP_OK); /* S = 2, 7, 4, 31 */
    assert_int_equal(ref.form, EP_CMA_LDLT);
    assert_int_equal(ep_cma_cache_put(&k, &ref), EP_OK);
    int sorted2[4] = {2, 4, 7, 31};
    assert_int_equal(ep_cma_cache_get(&k, &c, sorted2, 4), 1);
    assert_true(c.form == EP_CMA_LDLT && !strcmp(c.factor, "ldlt") && inverse_diff(&c, &ref) == 0);
    assert_true(c.scale == 0 && !ep_cma_add(&c, 33) && !ep_cma_add(&ref, 33)); /* the growth test's scale, from L D L^T */
    double Xs[225], big = 0; /* max |Ahat_ii| of the 5 nodes, from the GFs */
    ep_cma_matrix(&c, c.S, c.s, Xs, 15);
    for (int i = 0; i < 15; i++)
        big = fmax(big, fabs(Xs[16 * i] / g.area[c.S[i / 3]]));
    assert_true(fabs(c.scale / big - 1) < 1e-12 && fabs(ref.scale / big - 1) < 1e-12);
    assert_true(!ep_cma_remove(&c, 7) && !ep_cma_remove(&ref, 7));
    assert_true(c.form == EP_CMA_LDLT && inverse_diff(&c, &ref) == 0);
    ep_cma lu;
    ep_cma_init(&lu, &g);
    ep_cma_use_lu(&lu); /* a factor is refused where the updates would read the GFs as stored */
    assert_int_equal(ep_cma_cache_get(&k, &lu, sorted, 4), 0); /* refused: a miss */
    expect_error(ep_cma_restore(&lu, stored, 4, 1, k.e[0].state), EP_EINPUT, "symmetric form", NULL);
    expect_error(ep_cma_restore(&c, stored, 4, 3, k.e[0].state), EP_EINPUT, "unknown form 3", NULL);
    ep_cma_free(&lu);
    ep_cma_cache_free(&k);
    ep_cma_free(&c), ep_cma_free(&ref);
    synthetic_free(&g);
}

/* Pressure masks: a^T rho = 1; radius 0 is the node alone (rho = 1/a); the
 * masked stiffness reproduces the prescribed displacement at the node when
 * its force is spread by the mask (000 eqs. 4.28–4.30). */
static void masks(void **s)
{
    (void)s;
    ep_gfsrc g;
    synthetic(&g, 50);
    int idx[50], k;
    double rho[50], K[9], u[3] = {0.1, -0.2, 0.05};
    k = ep_cma_mask(&g, 7, 0, idx, rho);
    assert_int_equal(k, 1);
    assert_true(idx[0] == 7 && fabs(rho[0] - 1 / g.area[7]) < 1e-15);
    k = ep_cma_mask(&g, 7, 0.5, idx, rho);
    assert_true(k > 3);
    double norm = 0;
    for (int q = 0; q < k; q++)
        norm += g.area[idx[q]] * rho[q];
    assert_true(fabs(norm - 1) < 1e-14);
    assert_int_equal(ep_cma_mask_stiffness(&g, 7, k, idx, rho, K), EP_OK);
    double f[3], loads[150], *v = malloc(3 * 50 * sizeof *v);
    int cols[50];
    for (int b = 0; b < 3; b++)
        f[b] = K[3 * b] * u[0] + K[3 * b + 1] * u[1] + K[3 * b + 2] * u[2];
    for (int q = 0; q < k; q++) {
        cols[q] = idx[q];
        for (int a = 0; a < 3; a++)
            loads[3 * q + a] = rho[q] * f[a];
    }
    ep_gfsrc_sum(&g, k, cols, loads, v);
    assert_true(rel_diff(&v[21], u, 3) < 1e-12);
    free(v);
    synthetic_free(&g);
}

/* GFs of the symmetric form (cma.h): Xi(r, c) = A(r, c) a_c with A a
 * Gaussian kernel of the circle's points (positive definite) plus shift I,
 * 3x3 blocks coupled by a small symmetric random part; shift < 0 makes A
 * indefinite. */
static void synthetic_symmetric(ep_gfsrc *g, int n, double shift)
{
    synthetic(g, n);
    g->symmetric = 1;
    ep_rng seed = ep_rng_seed(5, 0);
    const double *x = g->own.mesh.vertices;
    for (int c = 0; c < n; c++)
        for (int r = 0; r <= c; r++) {
            double d2 = 0, R[9];
            for (int k = 0; k < 3; k++)
                d2 += (x[3 * r + k] - x[3 * c + k]) * (x[3 * r + k] - x[3 * c + k]);
            for (int q = 0; q < 9; q++)
                R[q] = 0.002 * centered_uniform(&seed);
            for (int b = 0; b < 3; b++)
                for (int a = 0; a < 3; a++) {
                    double v = (a == b) * (exp(-d2 / 0.3) + shift * (r == c)) + R[3 * b + a] + R[3 * a + b];
                    *xi_at(g, r, c, b, a) = v * g->area[c]; /* A(r, c) a_c */
                    *xi_at(g, c, r, a, b) = v * g->area[r]; /* A(c, r) = A(r, c)^T */
                }
        }
}

/* 1 / (||C||_1 ||C^-1||_1) with C = -ep_cma_matrix and C^-1 by dgesv on
 * the identity: ep_cma_rcond's answer, independently. */
static double one_norm_rcond(ep_cma *c, const int *nodes, int s)
{
    int N = 3 * s;
    double *X = malloc(sizeof *X * (size_t)N * N), *Y = calloc((size_t)N * N, sizeof *Y), cn = 0, in = 0;
    lapack_int *ipiv = malloc(sizeof *ipiv * N);
    ep_cma_matrix(c, nodes, s, X, N);
    for (int j = 0; j < N; j++) {
        double a = 0;
        for (int i = 0; i < N; i++)
            a += fabs(X[(size_t)i * N + j]);
        cn = fmax(cn, a);
        Y[(size_t)j * N + j] = 1;
    }
    assert_int_equal(LAPACKE_dgesv(LAPACK_ROW_MAJOR, N, N, X, N, ipiv, Y, N), 0);
    for (int j = 0; j < N; j++) {
        double b = 0;
        for (int i = 0; i < N; i++)
            b += fabs(Y[(size_t)i * N + j]);
        in = fmax(in, b);
    }
    free(X), free(Y), free(ipiv);
    return 1 / (cn * in);
}

/* Issue 21: on GFs of the symmetric form the from-scratch inverse by
 * Cholesky equals LU on the GFs as stored (ep_cma_use_lu) to 1e-10; the
 * additions and deletions, which read one block of each pair, equal it
 * too; an indefinite A falls back to LU of the same C (against dgesv on
 * ep_cma_matrix). */
static void symmetric_form(void **s)
{
    (void)s;
    ep_gfsrc g;
    int n = 80, nodes[40];
    synthetic_symmetric(&g, n, 0.5);
    ep_cma chol, lu, seq;
    assert_int_equal(ep_cma_init(&chol, &g), EP_OK);
    assert_int_equal(ep_cma_init(&lu, &g), EP_OK);
    assert_int_equal(ep_cma_init(&seq, &g), EP_OK);
    ep_cma_use_lu(&lu);
    for (int s1 = 10; s1 <= 40; s1 += 30) {
        g.batch = s1 == 40 ? 8 : 1; /* columns a gather takes together, as wavelet files have them */
        for (int i = 0; i < s1; i++)
            nodes[i] = (37 * i + 3) % n; /* ids in no order: both halves of each pair are read */
        assert_int_equal(ep_cma_set(&chol, nodes, s1), EP_OK);
        assert_string_equal(chol.factor, "cholesky");
        assert_int_equal(ep_cma_set(&lu, nodes, s1), EP_OK);
        assert_string_equal(lu.factor, "lu");
        double d = inverse_diff(&chol, &lu), rc, rl, want = one_norm_rcond(&chol, nodes, s1);
        assert_int_equal(ep_cma_rcond(&chol, &rc), EP_OK);
        assert_int_equal(ep_cma_rcond(&lu, &rl), EP_OK);
        print_message("symmetric form, s = %d: Cholesky vs LU %.2e (rcond %.2e)\n", s1, d, rc);
        assert_true(d < 1e-10);
        assert_true(fabs(rc / want - 1) < 1e-10 && fabs(rl / want - 1) < 1e-10); /* exact, either form */
        assert_int_equal(ep_cma_set(&seq, NULL, 0), EP_OK);
        for (int i = 0; i < s1; i++)
            assert_int_equal(ep_cma_add(&seq, nodes[i]), EP_OK);
        assert_true(inverse_diff(&seq, &chol) < 1e-10);
        assert_int_equal(ep_cma_remove(&seq, nodes[3]), EP_OK);
        assert_int_equal(ep_cma_add(&seq, nodes[3]), EP_OK); /* last now: reorder chol's set the same way */
        int again[40];
        memcpy(again, seq.S, (size_t)s1 * sizeof *again);
        assert_int_equal(ep_cma_set(&chol, again, s1), EP_OK);
        assert_true(inverse_diff(&seq, &chol) < 1e-10);
    }
    double rc;
    assert_int_equal(ep_cma_set(&chol, NULL, 0), EP_OK); /* an empty set: nothing for LAPACK */
    assert_int_equal(ep_cma_rcond(&chol, &rc), EP_OK);
    assert_true(chol.form == EP_CMA_CHOLESKY && rc == 1);
    ep_cma_free(&chol), ep_cma_free(&lu), ep_cma_free(&seq);
    synthetic_free(&g);

    synthetic_symmetric(&g, n, -0.2); /* indefinite */
    ep_cma c;
    int N = 3 * 40, one[1] = {0};
    double *X = malloc(sizeof *X * N * N), *Id = calloc((size_t)N * N, sizeof *Id), *got = malloc(sizeof *got * N * N);
    lapack_int ipiv[120];
    for (int i = 0; i < 40; i++)
        nodes[i] = (37 * i + 3) % n, Id[i * (N + 1)] = 1, Id[(i + 40) * (N + 1)] = 1, Id[(i + 80) * (N + 1)] = 1;
    assert_int_equal(ep_cma_init(&c, &g), EP_OK);
    assert_int_equal(ep_cma_init(&lu, &g), EP_OK);
    ep_cma_use_lu(&lu);
    assert_int_equal(ep_cma_set(&c, one, 1), EP_OK); /* one node: definite */
    assert_string_equal(c.factor, "cholesky");
    assert_int_equal(ep_cma_set(&c, nodes, 40), EP_OK);
    assert_string_equal(c.factor, "ldlt");
    ep_cma_matrix(&c, nodes, 40, X, N);
    for (int i = 0; i < N * N; i++)
        X[i] = -X[i];
    assert_int_equal(LAPACKE_dgesv(LAPACK_ROW_MAJOR, N, N, X, N, ipiv, Id, N), 0);
    ep_cma_inverse(&c, got);
    double d = rel_diff(got, Id, (size_t)N * N), want = one_norm_rcond(&c, nodes, 40);
    assert_int_equal(ep_cma_rcond(&c, &rc), EP_OK);
    print_message("indefinite, s = 40: LDL^T vs LU %.2e (rcond %.2e)\n", d, rc);
    assert_true(d < 1e-10 && fabs(rc / want - 1) < 1e-10);
    assert_int_equal(ep_cma_set(&lu, nodes, 40), EP_OK); /* the contact solve, against LU's */
    double u[120], pc[120], pl[120];
    for (int i = 0; i < N; i++)
        u[i] = sin(1.0 + i);
    ep_cma_solve(&c, u, NULL, pc, NULL), ep_cma_solve(&lu, u, NULL, pl, NULL);
    assert_true(rel_diff(pc, pl, (size_t)N) < 1e-10);
    assert_int_equal(ep_cma_set(&c, one, 1), EP_OK); /* once indefinite, from scratch goes to the LDL^T */
    assert_string_equal(c.factor, "ldlt");
    assert_int_equal(ep_cma_set(&lu, one, 1), EP_OK);
    assert_true(inverse_diff(&c, &lu) < 1e-12);
    /* node by node, the Cholesky factor takes the first nodes; the addition
     * whose Schur complement is not positive definite makes it the LDL^T,
     * which then takes the rest */
    ep_cma_free(&c);
    assert_int_equal(ep_cma_init(&c, &g), EP_OK);
    int held = 0;
    for (int i = 0; i < 40; i++) {
        assert_int_equal(ep_cma_add(&c, nodes[i]), EP_OK);
        held += c.form == EP_CMA_CHOLESKY;
    }
    print_message("indefinite: the Cholesky factor held %d of 40 additions\n", held);
    assert_true(held > 0 && c.form == EP_CMA_LDLT);
    ep_cma_inverse(&c, got);
    assert_true(rel_diff(got, Id, (size_t)N * N) < 1e-10);
    /* then deletions from the last, a middle and the first place: the set
     * factored again, until the order left has a leading block near
     * singular (its LDL^T grows past the bound): LU */
    int gone[3] = {nodes[39], nodes[20], nodes[0]}, forms[3] = {EP_CMA_LDLT, EP_CMA_LDLT, EP_CMA_INVERSE};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(ep_cma_remove(&c, gone[i]), EP_OK);
        assert_int_equal(c.form, forms[i]);
        assert_int_equal(ep_cma_set(&lu, c.S, c.s), EP_OK);
        assert_true(inverse_diff(&c, &lu) < 1e-10);
    }
    ep_cma_free(&lu);
    free(X), free(Id), free(got);
    ep_cma_free(&c);
    synthetic_free(&g);
}

/* Lossy GFs (c->both): each pair's two blocks are averaged, so an error
 * antisymmetric in Ahat cancels, where one block of each pair keeps it;
 * an addition reads the same averages as from scratch, on the factor and
 * on the explicit inverse alike. */
static void lossy_pairs_averaged(void **s)
{
    (void)s;
    enum { n = 40, k = 12, N = 3 * k };
    ep_gfsrc g;
    ep_cma c, ref;
    synthetic_symmetric(&g, n, 0.5);
    g.batch = 8; /* as wavelet files: pairs within one batch of columns too */
    int nodes[k + 1];
    for (int i = 0; i <= k; i++)
        nodes[i] = (17 * i + 5) % n;
    double *A0 = malloc(sizeof *A0 * N * N), *A1 = malloc(sizeof *A1 * N * N);
    assert_int_equal(ep_cma_init(&c, &g), EP_OK);
    assert_int_equal(ep_cma_init(&ref, &g), EP_OK);
    ep_cma_matrix(&c, nodes, k, A0, N); /* Xihat before the error */
    ep_rng seed = ep_rng_seed(3, 0);
    for (int col = 0; col < n; col++) /* Ahat(r, col) += E, Ahat(col, r) -= E^T */
        for (int r = 0; r < col; r++)
            for (int e = 0; e < 9; e++) {
                double E = 0.01 * centered_uniform(&seed);
                *xi_at(&g, r, col, e / 3, e % 3) += E * g.area[col];
                *xi_at(&g, col, r, e % 3, e / 3) -= E * g.area[r];
            }
    ep_cma_matrix(&c, nodes, k, A1, N); /* one block of each pair: the error stays */
    double one = rel_diff(A1, A0, (size_t)N * N);
    c.both = ref.both = 1;
    ep_cma_matrix(&c, nodes, k, A1, N);
    double both = rel_diff(A1, A0, (size_t)N * N);
    print_message("antisymmetric error of 1e-2: one block of each pair %.1e, both averaged %.1e\n", one, both);
    assert_true(one > 1e-3 && both < 1e-14);
    assert_int_equal(ep_cma_set(&c, nodes, k), EP_OK); /* the updates read the same averages */
    assert_int_equal(ep_cma_add(&c, nodes[k]), EP_OK);
    assert_int_equal(ep_cma_remove(&c, nodes[3]), EP_OK);
    assert_int_equal(ep_cma_set(&ref, c.S, c.s), EP_OK);
    assert_true(c.form == EP_CMA_CHOLESKY && inverse_diff(&c, &ref) < 1e-12);
    /* and so do the explicit inverse's (a factor's fallback): C^-1 of the
     * first k restored as the inverse, then nodes[k] added */
    assert_int_equal(ep_cma_set(&ref, nodes, k), EP_OK);
    ep_cma_inverse(&ref, A1);
    assert_int_equal(ep_cma_restore(&c, nodes, k, EP_CMA_INVERSE, A1), EP_OK);
    assert_int_equal(ep_cma_add(&c, nodes[k]), EP_OK);
    assert_int_equal(ep_cma_set(&ref, nodes, k + 1), EP_OK);
    assert_true(c.form == EP_CMA_INVERSE && inverse_diff(&c, &ref) < 1e-12);
    free(A0), free(A1);
    ep_cma_free(&c), ep_cma_free(&ref);
    synthetic_free(&g);
}

/* An LDL^T that would grow past its bound is not kept: Ahat's node 2 the
 * mean of nodes 0 and 3 less 1e-7 on its diagonal (its Schur complement
 * -1e-7 I: a tiny pivot, indefinite), node 5 coupled to it by 1 more than
 * the mean says.  Added in turn, the Cholesky factor becomes the LDL^T at
 * node 2 and the explicit inverse at node 5 (its row would grow past the
 * bound); from scratch the set goes to LU.  Either equals LU of the same C. */
static void ldlt_growth_refused(void **s)
{
    (void)s;
    enum { n = 12, N = 3 * n };
    ep_gfsrc g;
    ep_cma c, lu;
    synthetic_symmetric(&g, n, 0.5);
    assert_int_equal(ep_cma_init(&c, &g), EP_OK);
    double *A = ahat_with_mean(&g, &c, n, 3, 0, 3);
    for (int b = 0; b < 3; b++) {
        A[(6 + b) * N + 6 + b] -= 1e-7;
        A[(6 + b) * N + 15 + b] += 1.0, A[(15 + b) * N + 6 + b] += 1.0;
    }
    gfs_from_ahat(&g, A, n);
    assert_int_equal(ep_cma_init(&lu, &g), EP_OK);
    ep_cma_use_lu(&lu);
    int order[4] = {0, 3, 2, 5}, forms[4] = {EP_CMA_CHOLESKY, EP_CMA_CHOLESKY, EP_CMA_LDLT, EP_CMA_INVERSE};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(ep_cma_add(&c, order[i]), EP_OK);
        assert_int_equal(c.form, forms[i]);
    }
    assert_int_equal(ep_cma_set(&lu, order, 4), EP_OK);
    double d = inverse_diff(&c, &lu);
    assert_true(d < 1e-5); /* kappa(C) about 1e9 */
    ep_cma scratch;
    assert_int_equal(ep_cma_init(&scratch, &g), EP_OK);
    assert_int_equal(ep_cma_set(&scratch, order, 4), EP_OK);
    assert_string_equal(scratch.factor, "lu");
    assert_true(scratch.indefinite && inverse_diff(&scratch, &lu) < 1e-5);
    print_message("a growing LDL^T: the inverse by additions %.1e from LU, from scratch by LU\n", d);
    free(A);
    ep_cma_free(&c), ep_cma_free(&lu), ep_cma_free(&scratch);
    synthetic_free(&g);
}

EP_TEST_MAIN("cma", cmocka_unit_test(updates_match_scratch), cmocka_unit_test(updates_match_scratch_two_threads),
             cmocka_unit_test(factor_updates_match_scratch), cmocka_unit_test(ldlt_updates_match_scratch),
             cmocka_unit_test(dependent_node_refused), cmocka_unit_test(dependent_direction_refused),
             cmocka_unit_test(solve_matches_direct), cmocka_unit_test(cache), cmocka_unit_test(masks),
             cmocka_unit_test(symmetric_form), cmocka_unit_test(ldlt_growth_refused),
             cmocka_unit_test(lossy_pairs_averaged))
