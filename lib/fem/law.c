/*
 * law.c — hyperelastic laws at a point (law.h).
 */
#include "law.h"
#include "err.h"

#include <string.h>

static const char *const names[] = {"stvk", "linear"};

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
 * (MATH.md §2).  E = (D + D^T + D^T D)/2, not (F^T F - I)/2: the latter
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
    for (int k = 0; k < 3; k++)
        for (int l = 0; l < 3; l++) { /* dF = e_k e_l^T: (F^T dF)_ij = F_ki delta_lj */
            double dE[3][3], dS[3][3];
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    dE[i][j] = 0.5 * (F[k][i] * (l == j) + F[k][j] * (l == i));
            hooke(lambda, mu, dE, dS);
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    C[3 * i + j][3 * k + l] = (i == k) * S[l][j] + F[i][0] * dS[0][j] + F[i][1] * dS[1][j] +
                                              F[i][2] * dS[2][j];
        }
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

double ep_law_eval(ep_law_kind kind, double lambda, double mu, const double D[3][3], double P[3][3], double C[9][9])
{
    return kind == EP_LAW_LINEAR ? linear(lambda, mu, D, P, C) : stvk(lambda, mu, D, P, C);
}
