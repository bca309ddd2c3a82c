/*
 * nnls.h — sparse nonnegative least squares: min |A w - b| over w >= 0 with
 * few nonzeros, stopped once |A w - b| <= tau |b| (the cubature fit of
 * MATH.md §14).  Two ways to choose the columns:
 *
 *   Lawson-Hanson   the active-set method (Lawson & Hanson 1974, ch. 23):
 *                   the column of largest gradient A^T (b - A w) enters the
 *                   set, least squares on the set, a step back to the
 *                   boundary and out when a weight would turn negative.  It
 *                   looks at every column every iteration.
 *   greedy          An, Kim & James 2008 (§4): the column among a random
 *                   sample of the others whose direction best matches the
 *                   residual, a_j^T r / |a_j|, joins the allowed set; then
 *                   Lawson-Hanson on the allowed set alone (warm started).
 *                   A sample costs sample m flops instead of ncol m.
 *
 * Both keep the Gram matrix of the set and its Cholesky factor: a column
 * enters by one row appended to the factor (m k + k^2 flops), leaves by a
 * refactorization (LAPACK dpotrf, k^3 / 3); the least-squares solve is
 * LAPACK dpotrs on the normal equations.  Squaring the condition number is
 * harmless at the tolerances of a cubature (1e-2 .. 1e-6 relative); a
 * column nearly dependent on the set (pivot below 1e-10 of its norm) is
 * refused and never offered again.
 *
 * A is stored by columns: column j is A[j * ld .. j * ld + m).
 */
#ifndef EP_NNLS_H
#define EP_NNLS_H

typedef struct ep_nnls {
    int m, ld, ncol;      /* rows used, column stride, columns */
    const double *A, *b;  /* borrowed */
    double bnorm;
    int cap, k;           /* most columns kept; columns in the set */
    int *set;             /* [cap] column ids */
    double *w;            /* [cap] their weights */
    double *G, *L;        /* [cap][cap] Gram of the set and its Cholesky factor (lower, row-major) */
    double *atb, *z;      /* [cap] */
    double *res;          /* [m] b - A w */
    double *grad, *norm;  /* [ncol] */
    char *state;          /* [ncol]: 0 out, 1 in the set, 2 refused */
    double resid;         /* |b - A w| / |b| */
    long iterations;      /* columns entered */
    long removals;        /* columns that left */
} ep_nnls;

/* Set up for A [ncol][ld] (m rows used of each column) and b [m], at most
 * cap columns in the set.  Cost ncol m (the column norms), memory
 * 2 cap^2 + ncol doubles.  0, EP_EUSAGE (b = 0, cap < 1), EP_ECOMPUTE.
 * Free with ep_nnls_free in every case. */
int ep_nnls_init(ep_nnls *s, const double *A, int m, int ld, int ncol, const double *b, int cap);
void ep_nnls_free(ep_nnls *s);

/* Lawson-Hanson over every column until s->resid <= tau, the set holds
 * cap columns, or no column has a positive gradient (w is then the
 * optimum).  Cost per entering column ncol m (the gradient) plus m k.
 * 0 or EP_ECOMPUTE; s->resid says how close it came. */
int ep_nnls_lawson_hanson(ep_nnls *s, double tau);

/* The greedy of An et al. with sample columns drawn per iteration (seed:
 * the draw), Lawson-Hanson on the allowed set after each.  Stops as
 * ep_nnls_lawson_hanson does.  Cost per iteration sample m + k m.
 * 0 or EP_ECOMPUTE. */
int ep_nnls_greedy(ep_nnls *s, double tau, int sample, unsigned long seed);

#endif
