/*
 * rtreport.c — a runtime check's report (rtreport.h).
 */
#include "rtreport.h"
#include "err.h"

#include <math.h>
#include <string.h>

double ep_rtreport_rel_diff(const double *a, const double *b, size_t n)
{
    ep_rtreport_diff r = {0, 0};
    for (size_t i = 0; i < n; i++)
        ep_rtreport_diff_add(&r, a[i], b[i]);
    return ep_rtreport_diff_rel(&r);
}

double ep_rtreport_rel_norm(const double *a, const double *b, size_t n)
{
    double d = 0, m = 0;
    for (size_t i = 0; i < n; i++)
        d += (a[i] - b[i]) * (a[i] - b[i]), m += b[i] * b[i];
    return m > 0 ? sqrt(d / m) : sqrt(d);
}

void ep_rtreport_check_value(ep_rtreport *r, const char *name, double value, double tol)
{
    if (r->nchecks == EP_RTREPORT_MAX)
        return;
    int pass = value <= tol;
    r->check[r->nchecks++] = (ep_rtreport_check){name, value, tol, pass};
    r->failed += !pass;
}

static void item(ep_rtreport_item *list, int *n, const char *name, double value)
{
    if (*n < EP_RTREPORT_MAX)
        list[(*n)++] = (ep_rtreport_item){name, value};
}

void ep_rtreport_time(ep_rtreport *r, const char *name, double us) { item(r->time, &r->ntimes, name, us); }

void ep_rtreport_fact(ep_rtreport *r, const char *name, double value) { item(r->fact, &r->nfacts, name, value); }

static void print_json(const ep_rtreport *r, FILE *f)
{
    fprintf(f, "{\"file\": \"%s\", \"kind\": \"%s\", \"pass\": %s,", r->path, r->kind, r->failed ? "false" : "true");
    if (r->factorization)
        fprintf(f, " \"factorization\": \"%s\",", r->factorization);
    fprintf(f, "\n \"checks\": [");
    for (int i = 0; i < r->nchecks; i++)
        fprintf(f, "%s\n  {\"name\": \"%s\", \"value\": %.6g, \"tolerance\": %.3g, \"pass\": %s}", i ? "," : "",
                r->check[i].name, isfinite(r->check[i].value) ? r->check[i].value : -1.0, r->check[i].tol,
                r->check[i].pass ? "true" : "false");
    fprintf(f, "],\n \"timings_us\": {");
    for (int i = 0; i < r->ntimes; i++)
        fprintf(f, "%s\"%s\": %.4g", i ? ", " : "", r->time[i].name, r->time[i].value);
    fprintf(f, "},\n \"facts\": {");
    for (int i = 0; i < r->nfacts; i++)
        fprintf(f, "%s\"%s\": %.6g", i ? ", " : "", r->fact[i].name, r->fact[i].value);
    fprintf(f, "}}\n");
}

void ep_rtreport_print(const ep_rtreport *r, FILE *f, int json)
{
    if (json) {
        print_json(r, f);
        return;
    }
    if (r->factorization)
        fprintf(f, "rtcheck: %s: capacitance factorization: %s\n", r->path, r->factorization);
    for (int i = 0; i < r->nfacts; i++)
        fprintf(f, "rtcheck: %s: %s = %.6g\n", r->path, r->fact[i].name, r->fact[i].value);
    for (int i = 0; i < r->nchecks; i++)
        fprintf(f, "rtcheck: %s: %-44s %.3e (tolerance %.1e) %s\n", r->path, r->check[i].name, r->check[i].value,
                r->check[i].tol, r->check[i].pass ? "ok" : "FAILED");
    for (int i = 0; i < r->ntimes; i++)
        fprintf(f, "rtcheck: %s: %-44s %.2f us\n", r->path, r->time[i].name, r->time[i].value);
}

int ep_rtreport_verdict(const ep_rtreport *r)
{
    char names[512] = "";
    if (!r->failed)
        return EP_OK;
    for (int i = 0; i < r->nchecks; i++)
        if (!r->check[i].pass)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", names[0] ? "; " : "",
                     r->check[i].name);
    return ep_fail(EP_ECOMPUTE, "%s: %d check%s failed: %s", r->path, r->failed, r->failed > 1 ? "s" : "", names);
}
