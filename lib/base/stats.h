/*
 * stats.h — latency samples, their median and best, and the calling
 * thread's CPU time.  Runtimes are timed on shared machines: a mean
 * carries every preemption and page fault of the run, the median of many
 * short samples does not; the best shows the machine's speed when others
 * leave it alone, and CPU seconds a rate that time-sharing does not
 * distort.  Base layer.
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

/* The smallest sample (0 when there are none).  Cost O(n). */
double ep_stats_min(const ep_stats *s);

/* CPU seconds of the calling thread so far (CLOCK_THREAD_CPUTIME_ID).
 * Cost: one clock read. */
double ep_stats_thread_cpu(void);

/* Release s and zero it; safe on a zeroed ep_stats. */
void ep_stats_free(ep_stats *s);

#endif
