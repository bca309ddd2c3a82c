/*
 * rtreport.h — the report of a runtime check (rtcheck(1)): named checks of
 * a measured value against its tolerance, latencies in microseconds, and
 * facts about the run; printed as text lines or as one JSON object, and
 * turned into the run's verdict.
 */
#ifndef EP_RTREPORT_H
#define EP_RTREPORT_H

#include <math.h>
#include <stddef.h>
#include <stdio.h>

#define EP_RTREPORT_MAX 32 /* entries of each list; more are dropped */

typedef struct ep_rtreport_check {
    const char *name;  /* borrowed (string literals) */
    double value, tol;
    int pass;
} ep_rtreport_check;

typedef struct ep_rtreport_item {
    const char *name;  /* borrowed */
    double value;      /* a fact, or a latency in microseconds */
} ep_rtreport_item;

typedef struct ep_rtreport {
    const char *path, *kind;  /* borrowed: the file checked and its kind */
    const char *factorization; /* borrowed, or NULL: how a GF run inverted capacitance matrices */
    int nchecks, ntimes, nfacts, failed;
    ep_rtreport_check check[EP_RTREPORT_MAX];
    ep_rtreport_item time[EP_RTREPORT_MAX];
    ep_rtreport_item fact[EP_RTREPORT_MAX];
} ep_rtreport;

/* The larger of two error measures, NaN when either is: fmax drops a NaN,
 * and a check over NaN data passed as "ok" (issue 22, class 6). */
static inline double ep_rtreport_worst(double a, double b)
{
    return a != a || b != b ? a + b : a > b ? a : b;
}

/* A relative difference over entries gathered one by one: the running
 * max |a - b| (d) and max |b| (m) of answers a against references b,
 * NaN kept (ep_rtreport_worst).  Start from {0, 0}. */
typedef struct ep_rtreport_diff {
    double d, m;
} ep_rtreport_diff;

static inline void ep_rtreport_diff_add(ep_rtreport_diff *r, double a, double b)
{
    r->d = ep_rtreport_worst(r->d, fabs(a - b));
    r->m = ep_rtreport_worst(r->m, fabs(b));
}

/* max |a - b| / max |b| of what r gathered (the absolute difference when
 * every b was 0), NaN when any entry was. */
static inline double ep_rtreport_diff_rel(const ep_rtreport_diff *r)
{
    return r->m > 0 ? r->d / r->m : r->d;
}

/* ep_rtreport_diff_rel over a [n] against the reference b [n].  Cost
 * O(n). */
double ep_rtreport_rel_diff(const double *a, const double *b, size_t n);

/* ||a - b||_2 / ||b||_2 of a [n] against the reference b [n] (||a - b||_2
 * when b is 0): the relative error of a vector or a matrix as a whole;
 * NaN when any entry is.  Cost O(n). */
double ep_rtreport_rel_norm(const double *a, const double *b, size_t n);

/* A check passes when value <= tol (NaN fails). */
void ep_rtreport_check_value(ep_rtreport *r, const char *name, double value, double tol);
/* A latency, microseconds. */
void ep_rtreport_time(ep_rtreport *r, const char *name, double us);
/* A fact of the run (sizes, counts, the condition number met). */
void ep_rtreport_fact(ep_rtreport *r, const char *name, double value);

/* Print r to f: one JSON object when json, else one line per fact, check
 * and latency ("rtcheck: FILE: name value ..."). */
void ep_rtreport_print(const ep_rtreport *r, FILE *f, int json);

/* 0 when every check passed, else EP_ECOMPUTE with "FILE: N checks failed:
 * name; name". */
int ep_rtreport_verdict(const ep_rtreport *r);

#endif
