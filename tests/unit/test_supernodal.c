/*
 * test_supernodal.c — the numeric supernodal factorization (supernodal.h)
 * against CHOLMOD's own on the same symbolic analysis: equal to round-off,
 * the same bit for bit on one, two and three threads and from either triangle,
 * refactored in place, and the same failed pivot when the matrix is not
 * positive definite.  The matrix is a 27-point stencil on a 36^3 grid,
 * whose top separators make supernodes of 512 columns or more: the tiled
 * path (from EP_SUPERNODAL_BIG columns, with rows below the diagonal block
 * and several tiles) runs as well as the plain one.
 * The solves of narrow blocks (narrow.h, one supernode at a time and as a
 * team) are checked on it too, and
 * ep_chol_analyze's orderings on it and on its 3 x 3 block version.
 */
#include "helpers.h"

#include <omp.h>

#include "chol.h"
#include "team.h"
#include "supernodal.h"

enum { G = 36, N = G * G * G };

/* 27-point stencil on a g^3 grid, diagonal 26 + shift (off-diagonal -1 + a
 * small deterministic variation), in one triangle (stype +1 upper, -1
 * lower); bad >= 0: that unknown's diagonal is made negative. */
static cholmod_sparse *stencil_on(int g, int stype, double shift, int bad, cholmod_common *c)
{
    const int n = g * g * g;
    cholmod_triplet *T = cholmod_allocate_triplet(n, n, (size_t)n * 14, stype, CHOLMOD_REAL, c);
    int *ti = T->i, *tj = T->j;
    double *X = T->x;
    size_t nz = 0;
    for (int z = 0; z < g; z++)
        for (int y = 0; y < g; y++)
            for (int x = 0; x < g; x++) {
                int i = (z * g + y) * g + x;
                for (int dz = -1; dz <= 1; dz++)
                    for (int dy = -1; dy <= 1; dy++)
                        for (int dx = -1; dx <= 1; dx++) {
                            int xx = x + dx, yy = y + dy, zz = z + dz;
                            if (xx < 0 || yy < 0 || zz < 0 || xx >= g || yy >= g || zz >= g)
                                continue;
                            int j = (zz * g + yy) * g + xx;
                            if ((stype > 0 && j < i) || (stype < 0 && j > i))
                                continue;
                            int lo = i < j ? i : j, hi = i ^ j ^ lo; /* the same value either triangle */
                            ti[nz] = i, tj[nz] = j;
                            X[nz++] = i == j ? (i == bad ? -1.0 : 26.0 + shift)
                                             : -1.0 + 0.01 * sin(1.0 + lo + 0.5 * hi) * sin(1.0 + hi + 0.5 * lo);
                        }
            }
    T->nnz = nz;
    cholmod_sparse *A = cholmod_triplet_to_sparse(T, nz, c);
    cholmod_free_triplet(&T, c);
    assert_non_null(A);
    return A;
}

static cholmod_sparse *stencil(int stype, double shift, int bad, cholmod_common *c)
{
    return stencil_on(G, stype, shift, bad, c);
}

/* A copy of the symbolic factor S, factored by CHOLMOD (cholmod = 1) or by
 * ep_supernodal_factor on the given number of threads. */
static cholmod_factor *factor(cholmod_factor *S, cholmod_sparse *A, int cholmod, int threads, int *minor,
                              cholmod_common *c)
{
    cholmod_factor *L = cholmod_copy_factor(S, c);
    assert_non_null(L);
    if (cholmod) {
        assert_true(ep_chol_factorize_cholmod(A, L, c));
        *minor = c->status == CHOLMOD_NOT_POSDEF ? (int)L->minor : (int)L->n;
        return L;
    }
    int saved = omp_get_max_threads();
    omp_set_num_threads(threads);
    assert_true(ep_supernodal_takes(L, A));
    assert_int_equal(ep_supernodal_factor(L, A, minor, c), EP_OK);
    omp_set_num_threads(saved);
    return L;
}

static void free_factors(cholmod_factor **fs, int n, cholmod_common *c)
{
    for (int k = 0; k < n; k++)
        cholmod_free_factor(&fs[k], c);
}

static double max_diff(const cholmod_factor *a, const cholmod_factor *b, double *scale)
{
    const double *x = a->x, *y = b->x;
    double d = 0, s = 0;
    assert_int_equal(a->xsize, b->xsize);
    for (size_t k = 0; k < a->xsize; k++) {
        d = fmax(d, fabs(x[k] - y[k]));
        s = fmax(s, fabs(y[k]));
    }
    *scale = s;
    return d;
}

static void same_bits(const cholmod_factor *a, const cholmod_factor *b)
{
    assert_int_equal(a->xsize, b->xsize);
    assert_memory_equal(a->x, b->x, a->xsize * sizeof(double));
}

/* Equal to CHOLMOD's factor to 1e-12 of its largest entry; the same bits on
 * one thread and two, from either triangle, and refactored in place. */
static void equals_cholmod(void **state)
{
    (void)state;
    cholmod_common c;
    ep_chol_start(&c);
    cholmod_sparse *A = stencil(1, 0.5, -1, &c), *Alow = stencil(-1, 0.5, -1, &c);
    cholmod_factor *S = cholmod_analyze(A, &c);
    assert_non_null(S);
    assert_true(S->is_super);
    int big = 0, below = 0, minor;
    for (size_t s = 0; s < S->nsuper; s++) { /* the tiled path: a partial tile, rows below */
        int nscol = ((int *)S->super)[s + 1] - ((int *)S->super)[s], nsrow = ((int *)S->pi)[s + 1] - ((int *)S->pi)[s];
        big += nscol >= EP_SUPERNODAL_BIG;
        below += nscol >= EP_SUPERNODAL_BIG && nsrow > nscol && nscol % EP_SUPERNODAL_TILE;
    }
    assert_true(big >= 1 && below >= 1);
    cholmod_factor *ref = factor(S, A, 1, 1, &minor, &c);
    cholmod_factor *one = factor(S, A, 0, 1, &minor, &c);
    assert_int_equal(minor, N);
    cholmod_factor *two = factor(S, A, 0, 2, &minor, &c), *low = factor(S, Alow, 0, 2, &minor, &c);
    cholmod_factor *three = factor(S, A, 0, 3, &minor, &c);
    double scale, d = max_diff(two, ref, &scale);
    print_message("supernodal: %zu supernodes (%d of %d columns or more); |L - L_cholmod| %.2e of %.2e\n",
                  S->nsuper, big, EP_SUPERNODAL_BIG, d, scale);
    assert_true(d <= 1e-12 * scale);
    assert_true(two->is_ll && two->is_super && two->minor == (size_t)N);
    same_bits(one, two);
    same_bits(three, two);
    same_bits(low, two);
    /* refactored in place: another matrix of the pattern, then the first again */
    cholmod_sparse *B = stencil(1, 3.0, -1, &c);
    assert_int_equal(ep_supernodal_factor(low, B, &minor, &c), EP_OK);
    assert_true(max_diff(low, two, &scale) > 1e-6 * scale);
    assert_int_equal(ep_supernodal_factor(low, A, &minor, &c), EP_OK);
    same_bits(low, two);
    /* solves on it are CHOLMOD's: residual of A x = b */
    cholmod_dense *b = cholmod_ones(N, 1, CHOLMOD_REAL, &c), *x = cholmod_solve(CHOLMOD_A, two, b, &c);
    cholmod_dense *r = cholmod_copy_dense(b, &c);
    double one_[2] = {1, 0}, minus[2] = {-1, 0};
    cholmod_sdmult(A, 0, minus, one_, x, r, &c);
    assert_true(cholmod_norm_dense(r, 0, &c) < 1e-12 * cholmod_norm_dense(b, 0, &c));
    cholmod_free_dense(&b, &c);
    cholmod_free_dense(&x, &c);
    cholmod_free_dense(&r, &c);
    free_factors((cholmod_factor *[]){ref, one, two, three, low, S}, 6, &c);
    cholmod_free_sparse(&A, &c);
    cholmod_free_sparse(&Alow, &c);
    cholmod_free_sparse(&B, &c);
    cholmod_finish(&c);
}

static void team_check(const ep_team_plan *t, const double *b, const double *ref);

/* A supernodal tree that is not postordered (CHOLMOD's postorder off): all
 * supernodes in column order, still equal to CHOLMOD's and the same on one
 * thread and two; a team solve's plan on it has no light subtrees and
 * solves it right (team_check). */
static void not_postordered(void **state)
{
    (void)state;
    cholmod_common c;
    ep_chol_start(&c);
    c.postorder = 0;
    cholmod_sparse *A = stencil(1, 0.5, -1, &c);
    cholmod_factor *S = cholmod_analyze(A, &c);
    /* not postordered: some supernode's last child is not the one before it */
    const int *super = S->super, *pi = S->pi, *Ls = S->s;
    int *last = calloc(S->nsuper, sizeof *last), out_of_order = 0, minor;
    for (int t = 0; t < (int)S->nsuper; t++) {
        int nscol = super[t + 1] - super[t];
        if (pi[t + 1] - pi[t] > nscol) { /* the parent holds the first row below */
            int row = Ls[pi[t] + nscol], p = t;
            while (super[p + 1] <= row)
                p++;
            last[p] = t + 1;
        }
    }
    for (int t = 0; t < (int)S->nsuper; t++)
        out_of_order += last[t] && last[t] != t;
    free(last);
    assert_true(out_of_order > 0);
    cholmod_factor *ref = factor(S, A, 1, 1, &minor, &c), *one = factor(S, A, 0, 1, &minor, &c),
                   *two = factor(S, A, 0, 2, &minor, &c);
    double scale;
    assert_true(max_diff(two, ref, &scale) <= 1e-12 * scale);
    same_bits(one, two);
    /* team solves on it: no light subtrees, every supernode heavy */
    cholmod_dense *B = cholmod_zeros(N, 8, CHOLMOD_REAL, &c);
    double *b = B->x;
    for (size_t i = 0; i < (size_t)N * 8; i++) /* columns that differ: a group reading another's shows */
        b[i] = sin(0.3 + 1.7 * (double)i) + (i % N == 0);
    cholmod_dense *R = cholmod_solve(CHOLMOD_A, two, B, &c);
    ep_chol_rplan p;
    ep_team_plan t;
    assert_int_equal(ep_chol_rplan_init(&p, two, NULL), EP_OK);
    assert_int_equal(ep_team_plan_init(&t, &p), EP_OK);
    assert_int_equal(t.nlight, 0);
    assert_int_equal(t.nheavy, (int)two->nsuper);
    team_check(&t, B->x, R->x);
    ep_team_plan_free(&t);
    ep_chol_rplan_free(&p);
    cholmod_free_dense(&B, &c);
    cholmod_free_dense(&R, &c);
    free_factors((cholmod_factor *[]){ref, one, two, S}, 4, &c);
    cholmod_free_sparse(&A, &c);
    cholmod_finish(&c);
}

/* Not positive definite at a corner of the grid (a leaf supernode) or at
 * its centre (the top separator, tiled), a clearly negative pivot: the same
 * first failed pivot as CHOLMOD's, on one thread and two, and
 * ep_chol_factorize's message names it.  (A pivot near zero, a mesh not
 * held, may fail one column apart: supernodal.h.) */
static void not_positive_definite(void **state)
{
    (void)state;
    cholmod_common c;
    ep_chol_start(&c);
    const int bads[] = {0, (G / 2 * G + G / 2) * G + G / 2};
    for (int k = 0; k < 2; k++) {
        cholmod_sparse *A = stencil(1, 0.5, bads[k], &c);
        cholmod_factor *S = cholmod_analyze(A, &c);
        int m_ref, m1, m2;
        cholmod_factor *ref = factor(S, A, 1, 1, &m_ref, &c), *one = factor(S, A, 0, 1, &m1, &c),
                       *two = factor(S, A, 0, 2, &m2, &c);
        assert_true(m_ref < N);
        assert_int_equal(m1, m_ref);
        assert_int_equal(m2, m_ref);
        char want[64];
        snprintf(want, sizeof want, "(pivot %d of %d)", m_ref + 1, N);
        expect_error(ep_chol_factorize(A, S, "the stencil", &c), EP_ECOMPUTE, "the stencil is not positive definite",
                     want, NULL);
        free_factors((cholmod_factor *[]){ref, one, two, S}, 4, &c);
        cholmod_free_sparse(&A, &c);
    }
    cholmod_finish(&c);
}

/* The solve tests' case: the stencil factored on two threads, 8
 * right-hand sides B and cholmod_solve's solution R of them. */
typedef struct {
    cholmod_common c;
    cholmod_sparse *A;
    cholmod_factor *S, *L;
    cholmod_dense *B, *R;
} solve_case;

static void solve_case_open(solve_case *t)
{
    int minor;
    ep_chol_start(&t->c);
    t->A = stencil(1, 0.5, -1, &t->c);
    t->S = cholmod_analyze(t->A, &t->c);
    t->L = factor(t->S, t->A, 0, 2, &minor, &t->c);
    t->B = cholmod_zeros(N, 8, CHOLMOD_REAL, &t->c);
    double *b = t->B->x;
    for (size_t i = 0; i < (size_t)N * 8; i++)
        b[i] = sin(0.3 + 1.7 * (double)i) + (i % N == 0);
    t->R = cholmod_solve(CHOLMOD_A, t->L, t->B, &t->c);
}

static void solve_case_close(solve_case *t)
{
    cholmod_free_dense(&t->B, &t->c);
    cholmod_free_dense(&t->R, &t->c);
    free_factors((cholmod_factor *[]){t->L, t->S}, 2, &t->c);
    cholmod_free_sparse(&t->A, &t->c);
    cholmod_finish(&t->c);
}

/* Solves of narrow blocks (4 and 8 right-hand sides: narrow.c's loops,
 * no BLAS) on this factor, whose supernodes span many of the loops' panels
 * with remainders, and leave every remainder after the groups of columns
 * (asserted): equal to cholmod_solve's column by column to 1e-12, and
 * a restricted plan's wanted rows equal to the full solve's.  A block of 5
 * takes the BLAS path: the same to 1e-12 too. */
static void narrow_solves(void **state)
{
    (void)state;
    solve_case t;
    solve_case_open(&t);
    const cholmod_factor *L = t.L;
    const double *b = t.B->x, *ref = t.R->x;
    /* the loops' every shape: each remainder of 1 to 7 columns after the
     * groups of 8 (k = 4), and diagonal blocks of several 32-column panels
     * and a remainder */
    int rems = 0, panels = 0;
    for (size_t s = 0; s < L->nsuper; s++) {
        int nscol = ((const int *)L->super)[s + 1] - ((const int *)L->super)[s];
        rems |= 1 << nscol % 8;
        panels |= nscol > 64 && nscol % 32;
    }
    assert_int_equal(rems | 1, 0xff);
    assert_true(panels);
    char *want = calloc(N, 1);
    for (int i = 0; i < N; i += 7)
        want[i] = 1;
    ep_chol_rplan all, some;
    assert_int_equal(ep_chol_rplan_init(&all, L, NULL), EP_OK);
    assert_int_equal(ep_chol_rplan_init(&some, L, want), EP_OK);
    const int ks[3] = {4, 8, 5};
    for (int q = 0; q < 3; q++) {
        int k = ks[q];
        double *X = malloc(sizeof(double) * N * k), *Y = malloc(sizeof(double) * N * k);
        double *work = ep_chol_rsolve_work(&all, k), err = 0, errw = 0, scale = 0;
        ep_chol_rsolve(&all, b, X, k, work);
        ep_chol_rsolve(&some, b, Y, k, work);
        for (size_t i = 0; i < (size_t)N * k; i++) {
            err = fmax(err, fabs(X[i] - ref[i]));
            scale = fmax(scale, fabs(ref[i]));
            if (want[i % N])
                errw = fmax(errw, fabs(Y[i] - X[i]));
        }
        print_message("k = %d: |X - cholmod_solve| %.2e of %.2e; restricted %.2e\n", k, err, scale, errw);
        assert_true(err <= 1e-12 * scale);
        assert_true(errw <= 1e-12 * scale);
        free(X), free(Y), free(work);
    }
    ep_chol_rplan_free(&all);
    ep_chol_rplan_free(&some);
    free(want);
    solve_case_close(&t);
}

/* ep_chol_rforward_lead (femgf's body rows in a GF block): k columns, the
 * first 3 loaded at every unknown, the others at a few unknowns only; the
 * lead pass, then the restricted forward of the
 * loaded supernodes and the backward pass equal cholmod_solve's to 1e-12,
 * for k = 4 (all narrow), 8 (narrow) and 11 (BLAS beside the lead pass).
 * The lead pass must have work to do (supernodes outside the wide set)
 * and the restricted forward must skip them (fewer flops than a full
 * forward of the block). */
static void lead_forward(void **state)
{
    (void)state;
    solve_case t;
    solve_case_open(&t);
    ep_chol_rplan p;
    assert_int_equal(ep_chol_rplan_init(&p, t.L, NULL), EP_OK);
    const int ks[3] = {4, 8, 11}, spots[3] = {5, N / 2 + 17, N - 40};
    for (int q = 0; q < 3; q++)
        {
            int k = ks[q];
            cholmod_dense *B = cholmod_zeros(N, (size_t)k, CHOLMOD_REAL, &t.c);
            double *b = B->x, *Z = malloc(sizeof(double) * N * k), *X = malloc(sizeof(double) * N * k);
            double *work = ep_chol_rsolve_ordered_work(&p, k);
            char *loaded = calloc((size_t)p.nsuper, 1);
            for (int j = 0; j < k; j++)
                for (int i = 0; i < N; i++)
                    if (j < 3 || i == spots[j % 3] + j)
                        b[(size_t)j * N + i] = sin(0.3 + 1.7 * (i + (double)j * N)) + (i == 0);
            for (int j = 3; j < k; j++)
                loaded[p.snode[p.pos[spots[j % 3] + j]]] = 1;
            cholmod_dense *R = cholmod_solve(CHOLMOD_A, t.L, B, &t.c);
            ep_chol_rgather(&p, NULL, N, 1.0, b, Z, k, 0, N);
            double fl = ep_chol_rforward_lead(&p, Z, k, work, loaded, 3);
            double fw = ep_chol_rforward(&p, Z, k, work, loaded);
            ep_chol_rbackward(&p, Z, k, work);
            ep_chol_rscatter(&p, NULL, N, Z, X, k, 0, N);
            double err = 0, scale = 0, full = 0;
            for (int s = 0; s < p.nsuper; s++) {
                double nscol = ((int *)t.L->super)[s + 1] - ((int *)t.L->super)[s];
                full += nscol * nscol + 2 * (((int *)t.L->pi)[s + 1] - ((int *)t.L->pi)[s] - nscol) * nscol;
            }
            for (size_t i = 0; i < (size_t)N * k; i++) {
                err = fmax(err, fabs(X[i] - ((double *)R->x)[i]));
                scale = fmax(scale, fabs(((double *)R->x)[i]));
            }
            print_message("k = %d: |X - cholmod_solve| %.2e of %.2e; lead pass %.3g flops, then %.3g (full forward of "
                          "the block %.3g)\n", k, err, scale, fl, fw, full * k);
            assert_true(err <= 1e-12 * scale);
            assert_true(fl > 0 && fw < full * k);
            free(Z), free(X), free(work), free(loaded);
            cholmod_free_dense(&B, &t.c);
            cholmod_free_dense(&R, &t.c);
        }
    ep_chol_rplan_free(&p);
    solve_case_close(&t);
}

/* Whole solves by plan t on its factor: equal to ref (cholmod_solve's of
 * b) to 1e-12 for k = 4 and 8, and the same bits on 1, 2 and 3 threads
 * (each of those five times: a race shows by chance only) and on each of
 * two threads solving alone inside a parallel region. */
static void team_check(const ep_team_plan *t, const double *b, const double *ref)
{
    for (int k = 4; k <= 8; k += 4) {
        size_t bytes = sizeof(double) * N * k;
        double *X[3], *work = ep_team_work(t, k), err = 0, scale = 0;
        for (int j = 0; j < 3; j++)
            X[j] = malloc(bytes);
        assert_true(ep_team_solve(t, b, X[0], k, work, 1) > 0);
        for (size_t i = 0; i < (size_t)N * k; i++) {
            err = fmax(err, fabs(X[0][i] - ref[i]));
            scale = fmax(scale, fabs(ref[i]));
        }
        print_message("k = %d: |X - cholmod_solve| %.2e of %.2e\n", k, err, scale);
        assert_true(err <= 1e-12 * scale);
        for (int rep = 0; rep < 5; rep++)
            for (int th = 2; th <= 3; th++) {
                memset(X[1], 0xff, bytes); /* NaN: an entry the solve skips shows */
                ep_team_solve(t, b, X[1], k, work, th);
                assert_memory_equal(X[1], X[0], bytes);
            }
        memset(X[1], 0xff, bytes);
        memset(X[2], 0xff, bytes);
        int ran = 0;
#pragma omp parallel num_threads(2)
        {
            double *w = ep_team_work(t, k), *Y = omp_get_thread_num() ? X[2] : X[1];
            ep_team_solve(t, b, Y, k, w, 2);
            free(w);
#pragma omp single
            ran = omp_get_num_threads();
        }
        for (int j = 1; j <= ran; j++)
            assert_memory_equal(X[j], X[0], bytes);
        for (int j = 0; j < 3; j++)
            free(X[j]);
        free(work);
    }
}

/* Team solves (narrow.h) on the solve case's factor (team_check).  The
 * plan has light subtrees, heavy supernodes of several panels and rows
 * moved to the subtrees' own (asserted), so every path of the solve runs.
 * (not_postordered checks the plan without subtrees.) */
static void team_solves(void **state)
{
    (void)state;
    solve_case sc;
    solve_case_open(&sc);
    const cholmod_factor *L = sc.L;
    ep_chol_rplan p;
    ep_team_plan t;
    assert_int_equal(ep_chol_rplan_init(&p, L, NULL), EP_OK);
    assert_int_equal(ep_team_plan_init(&t, &p), EP_OK);
    int wide = 0;
    for (int h = 0; h < t.nheavy; h++)
        wide |= ((const int *)L->super)[t.heavy[h] + 1] - ((const int *)L->super)[t.heavy[h]] > 64;
    print_message("team plan: %d light subtrees, %d heavy supernodes, %d moved rows\n", t.nlight, t.nheavy, t.nbuf);
    assert_true(t.nlight >= 4 && wide && t.nbuf > 0);
    team_check(&t, sc.B->x, sc.R->x);
    ep_team_plan_free(&t);
    ep_chol_rplan_free(&p);
    solve_case_close(&sc);
}

/* The stencil's unknowns as vertices of three each: A (x) B3, B3 a 3 x 3
 * SPD block, upper triangle (what a stiffness's pattern looks like). */
static cholmod_sparse *stencil_blocks(cholmod_sparse *A, cholmod_common *c)
{
    static const double B3[3][3] = {{2, 0.5, 0.1}, {0.5, 2, 0.5}, {0.1, 0.5, 2}};
    const int *Ap = A->p, *Ai = A->i, nv = (int)A->ncol;
    const double *Ax = A->x;
    cholmod_triplet *T = cholmod_allocate_triplet(3 * nv, 3 * nv, 9 * (size_t)Ap[nv], 1, CHOLMOD_REAL, c);
    int *ti = T->i, *tj = T->j;
    double *X = T->x;
    size_t nz = 0;
    for (int j = 0; j < nv; j++)
        for (int p = Ap[j]; p < Ap[j + 1]; p++)
            for (int r = 0; r < 3; r++)
                for (int q = Ai[p] == j ? r : 0; q < 3; q++)
                    ti[nz] = 3 * Ai[p] + r, tj[nz] = 3 * j + q, X[nz++] = Ax[p] * B3[r][q];
    T->nnz = nz;
    cholmod_sparse *K = cholmod_triplet_to_sparse(T, nz, c);
    cholmod_free_triplet(&T, c);
    assert_non_null(K);
    return K;
}

/* ep_chol_analyze: on bs = 1 (and a bs that does not divide n) CHOLMOD's
 * default orderings and choice, so cholmod_analyze's fill exactly, on one
 * thread and on two, with c's memory count back where it was once the
 * factor is freed; on the 3 x 3 blocks of A (x) B3 (a 16^3 grid) a
 * vertex's unknowns stay together in the ordering, the fill is within 10%
 * of cholmod_analyze's, the factor solves A x = b, and one thread gives
 * the ordering two do. */
static void analyze_blocks(void **state)
{
    (void)state;
    cholmod_common c;
    ep_chol_start(&c);
    cholmod_sparse *A = stencil(1, 0.5, -1, &c);
    cholmod_factor *S = cholmod_analyze(A, &c);
    double lnz = c.lnz;
    int saved = omp_get_max_threads();
    for (int t = 1; t <= 2; t++)
        for (int bs = 1; bs <= 5; bs += 4) {
            omp_set_num_threads(t);
            size_t inuse = c.memory_inuse;
            cholmod_factor *E = ep_chol_analyze(A, bs, &c);
            assert_non_null(E);
            print_message("%d thread(s), bs %d: lnz %.6g, cholmod_analyze %.6g\n", t, bs, c.lnz, lnz);
            assert_true(c.lnz == lnz);
            cholmod_free_factor(&E, &c);
            assert_int_equal(c.memory_inuse, inuse); /* the factor kept is counted on c */
        }
    omp_set_num_threads(saved);
    cholmod_free_factor(&S, &c);
    cholmod_free_sparse(&A, &c);
    A = stencil_on(16, 1, 0.5, -1, &c);
    cholmod_sparse *K = stencil_blocks(A, &c);
    int n = (int)K->ncol;
    S = cholmod_analyze(K, &c);
    lnz = c.lnz;
    cholmod_factor *E[2];
    double elnz[2];
    for (int t = 0; t < 2; t++) {
        omp_set_num_threads(t + 1);
        E[t] = ep_chol_analyze(K, 3, &c);
        elnz[t] = c.lnz;
        assert_non_null(E[t]);
    }
    omp_set_num_threads(saved);
    print_message("3 x 3 blocks: lnz %.6g (one thread %.6g), cholmod_analyze %.6g\n", elnz[1], elnz[0], lnz);
    assert_true(elnz[0] == elnz[1] && elnz[1] <= 1.1 * lnz);
    const int *P = E[1]->Perm, *P1 = E[0]->Perm;
    for (int i = 0; i < n; i++) {
        assert_int_equal(P[i], P1[i]);
        assert_int_equal(P[i], P[i - i % 3] + i % 3);
        assert_int_equal(P[i - i % 3] % 3, 0);
    }
    assert_int_equal(ep_chol_factorize(K, E[1], "K", &c), EP_OK);
    cholmod_dense *B = cholmod_ones(n, 1, CHOLMOD_REAL, &c), *X = cholmod_solve(CHOLMOD_A, E[1], B, &c);
    cholmod_dense *R = cholmod_copy_dense(B, &c);
    double one[2] = {1, 0}, minus[2] = {-1, 0};
    cholmod_sdmult(K, 0, minus, one, X, R, &c);
    double res = cholmod_norm_dense(R, 0, &c), scale = cholmod_norm_dense(B, 0, &c);
    print_message("|K x - b| %.2e of %.2e\n", res, scale);
    assert_true(res <= 1e-12 * scale);
    cholmod_free_dense(&B, &c);
    cholmod_free_dense(&X, &c);
    cholmod_free_dense(&R, &c);
    free_factors((cholmod_factor *[]){S, E[0], E[1]}, 3, &c);
    cholmod_free_sparse(&K, &c);
    cholmod_free_sparse(&A, &c);
    cholmod_finish(&c);
}

EP_TEST_MAIN("supernodal", cmocka_unit_test(equals_cholmod), cmocka_unit_test(not_postordered),
             cmocka_unit_test(not_positive_definite), cmocka_unit_test(narrow_solves), cmocka_unit_test(lead_forward),
             cmocka_unit_test(team_solves),
             cmocka_unit_test(analyze_blocks))
