/*
 * stats.c — latency samples and their median (stats.h).
 */
#include "stats.h"
#include "err.h"
#include "sort.h"

#include <stdlib.h>
#include <string.h>

int ep_stats_add(ep_stats *s, double x)
{
    if (ep_grow_to(&s->v, &s->cap, s->n + 1, sizeof *s->v))
        return EP_ECOMPUTE;
    s->v[s->n++] = x;
    return EP_OK;
}

double ep_stats_median(ep_stats *s)
{
    if (!s->n)
        return 0;
    ep_sort_doubles(s->v, s->n);
    return s->n % 2 ? s->v[s->n / 2] : 0.5 * (s->v[s->n / 2 - 1] + s->v[s->n / 2]);
}

void ep_stats_free(ep_stats *s)
{
    free(s->v);
    memset(s, 0, sizeof *s);
}
