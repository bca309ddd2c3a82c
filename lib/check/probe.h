/*
 * probe.h — where a probe touches a GF model: the free boundary nodes that
 * have GF columns, and the k of them nearest to a seed node (a contact's
 * footprint).  What the runtime checks (rtgf.h) land and slide.
 */
#ifndef EP_PROBE_H
#define EP_PROBE_H

#include "gfsrc.h"

typedef struct ep_probe {
    const ep_gfsrc *g;  /* borrowed */
    int nfree;
    int *free;          /* [nfree] free nodes (rows) with columns, ascending */
    double diameter;    /* of the model, the length scale of loads */
    struct ep_probe_dist { double d2; int i; } *order; /* [nfree] scratch */
} ep_probe;

/* The free nodes of g with columns.  0 or EP_ECOMPUTE; free p with
 * ep_probe_free in every case. */
int ep_probe_init(ep_probe *p, const ep_gfsrc *g);
void ep_probe_free(ep_probe *p);

/* The k (<= nfree) free nodes nearest to node seed, nearest first, into
 * out[k].  Cost O(nfree log nfree). */
void ep_probe_footprint(ep_probe *p, int seed, int k, int *out);

#endif
