/*
 * stats.h — latency samples and their median.  Runtimes are timed on shared
 * machines: a mean carries every preemption and page fault of the run, the
 * median of many short samples does not.  Base layer.
 */
#ifndef EP_STATS_H
#define EP_STATS_H

#include <stddef.h>

typedef struct ep_stats {
    double *v;      /* [n] samples (allocated) */
    size_t n, cap;
} ep_stats;

/* Append x.  0 or EP_ECOMPUTE; free s with ep_stats_free in every case. */
int ep_stats_add(ep_stats *s, double x);

/* The median of the samples (sorts them; 0 when there are none).  Cost
 * O(n log n). */
double ep_stats_median(ep_stats *s);

/* Release s and zero it; safe on a zeroed ep_stats. */
void ep_stats_free(ep_stats *s);

#endif
