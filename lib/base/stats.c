/*
 * stats.c — latency samples and their median (stats.h).
 */
#include "stats.h"
#include "err.h"
#include "sort.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

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

double ep_stats_min(const ep_stats *s)
{
    double m = s->n ? s->v[0] : 0;
    for (size_t i = 1; i < s->n; i++)
        m = s->v[i] < m ? s->v[i] : m;
    return m;
}

double ep_stats_thread_cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void ep_stats_free(ep_stats *s)
{
    free(s->v);
    memset(s, 0, sizeof *s);
}
