/*
 * reduced.c — implicit Newmark, static solve and energy in reduced
 * coordinates (reduced.h; MATH.md §5).
 */
#include "reduced.h"

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "kernel.h"

/* work layout: R[r] K[r*r] A[r*r] res[r] q_prev[r] v[r] spare[r*r] ipiv[r] kv[r] eval workspace */
#define W_R(n) ((n)->work)
#define W_K(n) (W_R(n) + (n)->r)
#define W_A(n) (W_K(n) + (size_t)(n)->r * (n)->r)
#define W_RES(n) (W_A(n) + (size_t)(n)->r * (n)->r)
#define W_QP(n) (W_RES(n) + (n)->r)
#define W_V(n) (W_QP(n) + (n)->r)
#define W_SPARE(n) (W_V(n) + (n)->r)
#define W_IPIV(n) ((lapack_int *)(W_SPARE(n) + (size_t)(n)->r * (n)->r))
#define W_KV(n) (W_SPARE(n) + (size_t)(n)->r * (n)->r + (n)->r)
#define W_EVAL(n) (W_KV(n) + (n)->r)

/* The forces' source: the polynomials t, or the cubature c. */
static size_t eval_work(const ep_cubic_tangent *t, const ep_cubature *c)
{
    return (size_t)(c ? ep_cubature_work(c) : ep_cubic_tangent_work(t->r));
}

static void eval(const ep_cubic_tangent *t, const ep_cubature *c, const double *q, double *R, double *K, double *w)
{
    if (c)
        ep_cubature_eval(c, q, R, K, w);
    else
        ep_cubic_tangent_eval(t, q, R, K, w);
}

static int setup(ep_reduced *n, const ep_cubic_tangent *t, const ep_cubature *c, double dt, double alpha,
                 double beta)
{
    int r = c ? c->r : t->r;
    memset(n, 0, sizeof *n);
    if (!(dt > 0) || !(alpha >= 0) || !(beta >= 0))
        return ep_fail(EP_EUSAGE, "Newmark: time step %g and damping (%g, %g) must be positive", dt, alpha, beta);
    n->t = t, n->cub = c;
    n->r = r;
    n->iterations = 1;
    n->dt = dt, n->alpha = alpha, n->beta = beta;
    n->q = ep_calloc(3 * (size_t)r, sizeof *n->q);
    n->work = ep_calloc(3 * (size_t)r * r + 6 * (size_t)r + eval_work(t, c), sizeof *n->work);
    if (!n->q || !n->work) {
        ep_reduced_free(n);
        return EP_ECOMPUTE;
    }
    n->qd = n->q + r;
    n->qdd = n->qd + r;
    return EP_OK;
}

int ep_reduced_init(ep_reduced *n, const ep_cubic_tangent *t, double dt, double alpha, double beta)
{
    return setup(n, t, NULL, dt, alpha, beta);
}

int ep_reduced_init_cubature(ep_reduced *n, const ep_cubature *c, double dt, double alpha, double beta)
{
    return setup(n, NULL, c, dt, alpha, beta);
}

void ep_reduced_free(ep_reduced *n)
{
    free(n->q), free(n->work);
    memset(n, 0, sizeof *n);
}

void ep_reduced_start(ep_reduced *n, const double *q0, const double *qd0, const double *f)
{
    int r = n->r;
    double *R = W_R(n), *K = W_K(n);
    for (int i = 0; i < r; i++)
        n->q[i] = q0 ? q0[i] : 0, n->qd[i] = qd0 ? qd0[i] : 0;
    eval(n->t, n->cub, n->q, R, K, W_EVAL(n));
    for (int i = 0; i < r; i++) { /* qdd = f - (alpha I + beta K) qd - R */
        double kd = 0;
        for (int j = 0; j < r; j++)
            kd += K[(size_t)i * r + j] * n->qd[j];
        n->qdd[i] = (f ? f[i] : 0) - n->alpha * n->qd[i] - n->beta * kd - R[i];
    }
}

/* Solve A x = b for symmetric A[r][r] (destroyed); b becomes x.  A
 * row-major symmetric matrix is its own column-major transpose, so the
 * column-major LAPACK routines take it without LAPACKE's transposed copy.
 * Cholesky first; when A is indefinite (a large deformation), LU on the copy
 * saved in spare[r][r] (ipiv: r ints). */
static int solve_sym(int r, double *A, double *b, double *spare, lapack_int *ipiv)
{
    memcpy(spare, A, (size_t)r * r * sizeof *A);
    if (LAPACKE_dposv_work(LAPACK_COL_MAJOR, 'L', r, 1, A, r, b, r) == 0)
        return EP_OK;
    /* dposv writes b only after a successful factorization */
    if (LAPACKE_dgesv_work(LAPACK_COL_MAJOR, r, 1, spare, r, ipiv, b, r))
        return ep_fail(EP_ECOMPUTE, "the reduced system matrix is singular");
    return EP_OK;
}

/* The Newton system of a step: A = ck K + cd I and kv = K v.
 * in: K[r][r], v[r]; out: A[r][r], kv[r].  3 r^2 flops. */
EP_KERNEL static void newton_system(int r, const double *restrict K, const double *restrict v, double ck, double cd,
                                    double *restrict A, double *restrict kv)
{
    for (int i = 0; i < r; i++) {
        const double *k = K + (size_t)i * r;
        double *a = A + (size_t)i * r, s = 0;
#pragma omp simd reduction(+ : s)
        for (int j = 0; j < r; j++) {
            s += k[j] * v[j];
            a[j] = ck * k[j];
        }
        a[i] += cd;
        kv[i] = s;
    }
}

int ep_reduced_step(ep_reduced *n, const double *f)
{
    const double bt = 0.25, gm = 0.5, h = n->dt; /* MATH.md §5 */
    const double a1 = 1 / (bt * h * h), a2 = 1 / (bt * h), a3 = (1 - 2 * bt) / (2 * bt), a4 = gm / (bt * h),
                 a5 = 1 - gm / bt, a6 = (1 - gm / (2 * bt)) * h;
    int r = n->r, st;
    double *R = W_R(n), *K = W_K(n), *A = W_A(n), *res = W_RES(n), *qp = W_QP(n), *v = W_V(n), *kv = W_KV(n);
    memcpy(qp, n->q, (size_t)r * sizeof *qp);
    for (int it = 0; it < n->iterations; it++) {
        eval(n->t, n->cub, n->q, R, K, W_EVAL(n));
        for (int i = 0; i < r; i++) /* the velocity the step implies, for the damping force */
            v[i] = a4 * (n->q[i] - qp[i]) + a5 * n->qd[i] + a6 * n->qdd[i];
        newton_system(r, K, v, 1 + a4 * n->beta, a1 + a4 * n->alpha, A, kv); /* alpha4 beta K + K */
        for (int i = 0; i < r; i++)
            res[i] = -(a1 * (n->q[i] - qp[i]) - a2 * n->qd[i] - a3 * n->qdd[i] + n->alpha * v[i] + n->beta * kv[i] + R[i] -
                       (f ? f[i] : 0));
        if ((st = solve_sym(r, A, res, W_SPARE(n), W_IPIV(n))))
            return st;
        double dn = 0, qn = 0;
        for (int i = 0; i < r; i++) {
            n->q[i] += res[i];
            dn += res[i] * res[i], qn += n->q[i] * n->q[i];
        }
        if (dn <= n->tol * n->tol * qn)
            break;
    }
    for (int i = 0; i < r; i++) {
        double dq = n->q[i] - qp[i], qd = n->qd[i];
        n->qd[i] = a4 * dq + a5 * qd + a6 * n->qdd[i];
        n->qdd[i] = a1 * dq - a2 * qd - a3 * n->qdd[i];
    }
    return EP_OK;
}

static int static_solve(const ep_cubic_tangent *t, const ep_cubature *c, const double *f, double *q, int maxit,
                        double tol, int *iterations)
{
    int r = c ? c->r : t->r, it, st = EP_OK;
    double *K = ep_malloc(2 * (size_t)r * r + 3 * (size_t)r + eval_work(t, c), sizeof *K);
    *iterations = 0;
    if (!K)
        return EP_ECOMPUTE;
    double *spare = K + (size_t)r * r, *R = spare + (size_t)r * r, *w = R + 2 * r;
    for (it = 1; it <= maxit; it++) {
        double dn = 0, qn = 0;
        eval(t, c, q, R, K, w);
        for (int i = 0; i < r; i++)
            R[i] = f[i] - R[i];
        if ((st = solve_sym(r, K, R, spare, (lapack_int *)(R + r))))
            break;
        for (int i = 0; i < r; i++) {
            q[i] += R[i];
            dn += R[i] * R[i];
            qn += q[i] * q[i];
        }
        if (sqrt(dn) <= tol * sqrt(qn))
            break;
    }
    free(K);
    if (st)
        return st;
    if (it > maxit)
        return ep_fail(EP_ECOMPUTE, "static solve: Newton did not converge in %d iterations", maxit);
    *iterations = it;
    return EP_OK;
}

int ep_reduced_static(const ep_cubic_tangent *t, const double *f, double *q, int maxit, double tol, int *iterations)
{
    return static_solve(t, NULL, f, q, maxit, tol, iterations);
}

int ep_reduced_static_cubature(const ep_cubature *c, const double *f, double *q, int maxit, double tol,
                               int *iterations)
{
    return static_solve(NULL, c, f, q, maxit, tol, iterations);
}

double ep_reduced_energy(const ep_cubic *c, const double *q, double *w)
{
    int r = c->r;
    double *a = w, *b = a + r, *c2 = b + r, *d = c2 + r, *fw = d + r, V = 0;
    ep_cubic_force(c, q, a, fw); /* R(q) = R1 + R2 + R3 */
    for (int i = 0; i < r; i++)
        d[i] = -q[i];
    ep_cubic_force(c, d, b, fw); /* R(-q) = -R1 + R2 - R3 */
    for (int i = 0; i < r; i++)
        d[i] = 2 * q[i];
    ep_cubic_force(c, d, c2, fw); /* R(2q) = 2 R1 + 4 R2 + 8 R3 */
    for (int i = 0; i < r; i++) {
        double R2 = (a[i] + b[i]) / 2, R3 = (c2[i] - 4 * R2 - (a[i] - b[i])) / 6, R1 = (a[i] - b[i]) / 2 - R3;
        V += q[i] * (R1 / 2 + R2 / 3 + R3 / 4);
    }
    return V;
}
