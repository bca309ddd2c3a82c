/*
 * stats.c — latency samples and their median (stats.h).
 */
#include "stats.h"
#include "err.h"

#include <stdlib.h>
#include <string.h>

int ep_stats_add(ep_stats *s, double x)
{
    if (ep_grow_to(&s->v, &s->cap, s->n + 1, sizeof *s->v))
        return EP_ECOMPUTE;
    s->v[s->n++] = x;
    return EP_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double ep_stats_median(ep_stats *s)
{
    if (!s->n)
        return 0;
    qsort(s->v, s->n, sizeof *s->v, cmp_double);
    return s->n % 2 ? s->v[s->n / 2] : 0.5 * (s->v[s->n / 2 - 1] + s->v[s->n / 2]);
}

void ep_stats_free(ep_stats *s)
{
    free(s->v);
    memset(s, 0, sizeof *s);
}
