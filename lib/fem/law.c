/*
 * law.c — hyperelastic laws at a point (law.h).
 */
#include "law.h"
#include "err.h"

#include <math.h>
#include <string.h>

static const char *const names[] = {"stvk", "linear", "corotated", "neohookean"};

const char *ep_law_name(ep_law_kind kind) { return names[kind]; }

int ep_law_from_name(const char *name, ep_law_kind *kind)
{
    for (int k = 0; k < (int)(sizeof names / sizeof *names); k++)
        if (!strcmp(name, names[k])) {
            *kind = (ep_law_kind)k;
            return EP_OK;
        }
    return EP_EINPUT;
}

/* S = lambda tr(E) I + 2 mu E; returns mu tr(E E^T) + lambda/2 tr(E)^2 (E symmetric: W). */
static double hooke(double lambda, double mu, const double E[3][3], double S[3][3])
{
    double tr = E[0][0] + E[1][1] + E[2][2], ee = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            S[i][j] = lambda * tr * (i == j) + 2.0 * mu * E[i][j];
            ee += E[i][j] * E[i][j];
        }
    return mu * ee + 0.5 * lambda * tr * tr;
}

/* StVK: P = F S, and dP = dF S + F S(sym(F^T dF)) for the nine unit dF
 * (MATH.md §2), in closed form.  E = (D + D^T + D^T D)/2, not (F^T F - I)/2: the latter
 * loses the digits of a small strain to I's (a strain of 1e-10 kept 6). */
static double stvk(double lambda, double mu, const double D[3][3], double P[3][3], double C[9][9])
{
    double F[3][3], E[3][3], S[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            F[i][j] = (i == j) + D[i][j];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            E[i][j] = 0.5 * (D[i][j] + D[j][i] + D[0][i] * D[0][j] + D[1][i] * D[1][j] + D[2][i] * D[2][j]);
    double W = hooke(lambda, mu, E, S);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            P[i][j] = F[i][0] * S[0][j] + F[i][1] * S[1][j] + F[i][2] * S[2][j];
    if (!C)
        return W;
    /* dF = e_k e_l^T: dE = sym(F^T dF), tr dE = F_kl, so
     * dP_ij = delta_ik S_lj + lambda F_ij F_kl + mu (delta_lj (F F^T)_ik + F_il F_kj) */
    double FF[3][3];
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
            FF[i][k] = F[i][0] * F[k][0] + F[i][1] * F[k][1] + F[i][2] * F[k][2];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++)
                for (int l = 0; l < 3; l++)
                    C[3 * i + j][3 * k + l] = (i == k) * S[l][j] + lambda * F[i][j] * F[k][l] +
                                              mu * ((l == j) * FF[i][k] + F[i][l] * F[k][j]);
    return W;
}

/* Linear: P = S(e) with e = sym(D); C_ijkl = lambda d_ij d_kl + mu (d_ik d_jl + d_il d_jk). */
static double linear(double lambda, double mu, const double D[3][3], double P[3][3], double C[9][9])
{
    double e[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            e[i][j] = 0.5 * (D[i][j] + D[j][i]);
    double W = hooke(lambda, mu, e, P);
    if (C)
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                for (int k = 0; k < 3; k++)
                    for (int l = 0; l < 3; l++)
                        C[3 * i + j][3 * k + l] =
                            lambda * (i == j) * (k == l) + mu * ((i == k) * (j == l) + (i == l) * (j == k));
    return W;
}

/* Eigenvalues d and eigenvectors (columns of V) of the symmetric A by
 * cyclic Jacobi rotations (A destroyed); sorted descending, det V = +1. */
static void jacobi3(double A[3][3], double d[3], double V[3][3])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            V[i][j] = i == j;
    for (int sweep = 0; sweep < 50; sweep++) {
        double off = A[0][1] * A[0][1] + A[0][2] * A[0][2] + A[1][2] * A[1][2];
        double diag = A[0][0] * A[0][0] + A[1][1] * A[1][1] + A[2][2] * A[2][2];
        if (off <= 1e-36 * diag || off == 0)
            break;
        for (int p = 0; p < 2; p++)
            for (int q = p + 1; q < 3; q++) {
                if (A[p][q] == 0)
                    continue;
                double th = (A[q][q] - A[p][p]) / (2 * A[p][q]);
                double t = (th >= 0 ? 1 : -1) / (fabs(th) + sqrt(th * th + 1)), c = 1 / sqrt(t * t + 1), s = t * c;
                for (int k = 0; k < 3; k++) { /* A <- J^T A J, V <- V J */
                    double akp = A[k][p], akq = A[k][q];
                    A[k][p] = c * akp - s * akq, A[k][q] = s * akp + c * akq;
                }
                for (int k = 0; k < 3; k++) {
                    double apk = A[p][k], aqk = A[q][k];
                    A[p][k] = c * apk - s * aqk, A[q][k] = s * apk + c * aqk;
                }
                for (int k = 0; k < 3; k++) {
                    double vkp = V[k][p], vkq = V[k][q];
                    V[k][p] = c * vkp - s * vkq, V[k][q] = s * vkp + c * vkq;
                }
            }
    }
    for (int i = 0; i < 3; i++)
        d[i] = A[i][i];
    for (int i = 0; i < 2; i++) /* descending */
        for (int j = i + 1; j < 3; j++)
            if (d[j] > d[i]) {
                double t = d[i];
                d[i] = d[j], d[j] = t;
                for (int k = 0; k < 3; k++)
                    t = V[k][i], V[k][i] = V[k][j], V[k][j] = t;
            }
    double det = V[0][0] * (V[1][1] * V[2][2] - V[1][2] * V[2][1]) - V[0][1] * (V[1][0] * V[2][2] - V[1][2] * V[2][0]) +
                 V[0][2] * (V[1][0] * V[2][1] - V[1][1] * V[2][0]);
    if (det < 0)
        for (int k = 0; k < 3; k++)
            V[k][2] = -V[k][2];
}

/* The rotation R of F = R S (det R = +1): from F^T F = V diag(s^2) V^T,
 * u1 = F v1 / |F v1|, u2 the unit part of F v2 normal to u1, u3 = u1 x u2,
 * R = sum u_i v_i^T; an inverted F leaves S = R^T F with a negative
 * smallest eigenvalue.  Rank-deficient F (a flat element) takes any unit
 * u2 normal to u1. */
static void rotation(const double F[3][3], double R[3][3])
{
    double C[3][3], d[3], V[3][3], u[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            C[i][j] = F[0][i] * F[0][j] + F[1][i] * F[1][j] + F[2][i] * F[2][j];
    jacobi3(C, d, V);
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < 3; i++)
            u[c][i] = F[i][0] * V[0][c] + F[i][1] * V[1][c] + F[i][2] * V[2][c];
    double n0 = sqrt(u[0][0] * u[0][0] + u[0][1] * u[0][1] + u[0][2] * u[0][2]);
    if (!(n0 > 0)) { /* F = 0: any rotation; the identity */
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                R[i][j] = i == j;
        return;
    }
    for (int i = 0; i < 3; i++)
        u[0][i] /= n0;
    double dot = u[0][0] * u[1][0] + u[0][1] * u[1][1] + u[0][2] * u[1][2];
    for (int i = 0; i < 3; i++)
        u[1][i] -= dot * u[0][i];
    double n1 = sqrt(u[1][0] * u[1][0] + u[1][1] * u[1][1] + u[1][2] * u[1][2]);
    if (!(n1 > 1e-14 * n0)) { /* any unit vector normal to u1 */
        int a = fabs(u[0][0]) < 0.6 ? 0 : 1;
        double e[3] = {a == 0, a == 1, 0};
        dot = u[0][a];
        for (int i = 0; i < 3; i++)
            u[1][i] = e[i] - dot * u[0][i];
        n1 = sqrt(u[1][0] * u[1][0] + u[1][1] * u[1][1] + u[1][2] * u[1][2]);
    }
    for (int i = 0; i < 3; i++)
        u[1][i] /= n1;
    u[2][0] = u[0][1] * u[1][2] - u[0][2] * u[1][1];
    u[2][1] = u[0][2] * u[1][0] - u[0][0] * u[1][2];
    u[2][2] = u[0][0] * u[1][1] - u[0][1] * u[1][0];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            R[i][j] = u[0][i] * V[j][0] + u[1][i] * V[j][1] + u[2][i] * V[j][2];
}

/* Corotated (law.h): W = mu |F - R|^2 + lambda/2 tr(S - I)^2. */
static double corotated(double lambda, double mu, const double D[3][3], double P[3][3], double C[9][9])
{
    double F[3][3], R[3][3], S[3][3], W = 0, trs = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            F[i][j] = (i == j) + D[i][j];
    rotation(F, R);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            S[i][j] = R[0][i] * F[0][j] + R[1][i] * F[1][j] + R[2][i] * F[2][j];
            W += mu * (F[i][j] - R[i][j]) * (F[i][j] - R[i][j]);
        }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            S[i][j] = S[j][i] = 0.5 * (S[i][j] + S[j][i]);
    trs = S[0][0] + S[1][1] + S[2][2] - 3; /* tr(S - I) */
    W += 0.5 * lambda * trs * trs;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            P[i][j] = 2 * mu * (F[i][j] - R[i][j]) + lambda * trs * R[i][j];
    if (!C)
        return W;
    /* G = (tr S I - S)^-1 by its adjugate */
    double A[3][3], G[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            A[i][j] = (i == j) * (trs + 3) - S[i][j];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            G[j][i] = A[(i + 1) % 3][(j + 1) % 3] * A[(i + 2) % 3][(j + 2) % 3] -
                      A[(i + 1) % 3][(j + 2) % 3] * A[(i + 2) % 3][(j + 1) % 3];
    double det = A[0][0] * G[0][0] + A[0][1] * G[1][0] + A[0][2] * G[2][0];
    for (int k = 0; k < 3; k++)
        for (int l = 0; l < 3; l++) { /* dF = e_k e_l^T: (R^T dF)_ij = R_ki delta_lj */
            double M[3][3], b[3], w[3], dR[3][3];
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    M[i][j] = R[k][i] * (l == j) - R[k][j] * (l == i); /* R^T dF - dF^T R */
            b[0] = M[2][1], b[1] = M[0][2], b[2] = M[1][0];
            for (int i = 0; i < 3; i++)
                w[i] = (G[i][0] * b[0] + G[i][1] * b[1] + G[i][2] * b[2]) / det;
            double Wx[3][3] = {{0, -w[2], w[1]}, {w[2], 0, -w[0]}, {-w[1], w[0], 0}};
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    dR[i][j] = R[i][0] * Wx[0][j] + R[i][1] * Wx[1][j] + R[i][2] * Wx[2][j];
            double rdf = R[k][l]; /* R : dF */
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    C[3 * i + j][3 * k + l] =
                        2 * mu * ((i == k) * (j == l) - dR[i][j]) + lambda * (rdf * R[i][j] + trs * dR[i][j]);
        }
    return W;
}

/* epsilon_ijk for i, j, k in 0..2. */
static int levi(int i, int j, int k)
{
    if (i == j || j == k || i == k)
        return 0;
    return (j - i + 3) % 3 == 1 ? 1 : -1;
}

/* Stable neo-Hookean (law.h).  I_C - 3 = 2 tr D + |D|^2 and J - 1 from D's
 * invariants, so that a small strain keeps its digits. */
static double neohookean(double lambda, double mu, const double D[3][3], double P[3][3], double C[9][9])
{
    double mu1 = 4 * mu / 3, lam1 = lambda + 5 * mu / 6, a = 0.75 * mu1 / lam1, F[3][3], cof[3][3];
    double trD = D[0][0] + D[1][1] + D[2][2], dd = 0, trD2 = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            F[i][j] = (i == j) + D[i][j];
            dd += D[i][j] * D[i][j];
            trD2 += D[i][j] * D[j][i];
        }
    double detD = D[0][0] * (D[1][1] * D[2][2] - D[1][2] * D[2][1]) - D[0][1] * (D[1][0] * D[2][2] - D[1][2] * D[2][0]) +
                  D[0][2] * (D[1][0] * D[2][1] - D[1][1] * D[2][0]);
    double x = 2 * trD + dd, jm1 = trD + 0.5 * (trD * trD - trD2) + detD; /* I_C - 3, J - 1 */
    double Wt = 0.5 * mu1 * x - 0.5 * mu1 * log1p(0.25 * x) + 0.5 * lam1 * ((jm1 - a) * (jm1 - a) - a * a);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            cof[i][j] = F[(i + 1) % 3][(j + 1) % 3] * F[(i + 2) % 3][(j + 2) % 3] -
                        F[(i + 1) % 3][(j + 2) % 3] * F[(i + 2) % 3][(j + 1) % 3];
    double ic1 = x + 4, cf = mu1 * (1 - 1 / ic1), cj = lam1 * (jm1 - a);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            P[i][j] = cf * F[i][j] + cj * cof[i][j];
    if (!C)
        return Wt;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++)
                for (int l = 0; l < 3; l++) {
                    double dcof = 0; /* d cof_ij / d F_kl = eps_ikm eps_jln F_mn */
                    if (i != k && j != l) {
                        int m = 3 - i - k, n = 3 - j - l;
                        dcof = levi(i, k, m) * levi(j, l, n) * F[m][n];
                    }
                    C[3 * i + j][3 * k + l] = cf * (i == k) * (j == l) + 2 * mu1 * F[k][l] * F[i][j] / (ic1 * ic1) +
                                              lam1 * cof[k][l] * cof[i][j] + cj * dcof;
                }
    return Wt;
}

double ep_law_eval(ep_law_kind kind, double lambda, double mu, const double D[3][3], double P[3][3], double C[9][9])
{
    switch (kind) {
    case EP_LAW_LINEAR:
        return linear(lambda, mu, D, P, C);
    case EP_LAW_COROTATED:
        return corotated(lambda, mu, D, P, C);
    case EP_LAW_NEOHOOKEAN:
        return neohookean(lambda, mu, D, P, C);
    default:
        return stvk(lambda, mu, D, P, C);
    }
}
