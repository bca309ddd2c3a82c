/*
 * progress.c — progress on stderr (progress.h).
 */
#include "progress.h"
#include "err.h"

#include <stdio.h>
#include <unistd.h>

void ep_progress_start(ep_progress *p, const char *label, long total, int quiet)
{
    p->label = label;
    p->total = total > 0 ? total : 1;
    p->t0 = p->last = ep_now();
    p->tty = isatty(2);
    p->quiet = quiet;
}

void ep_progress_update(ep_progress *p, long done)
{
    double now = ep_now(), frac = (double)done / (double)p->total;
    if (p->quiet || now - p->last < (p->tty ? 0.2 : 5.0))
        return;
    p->last = now;
    double left = done > 0 ? (now - p->t0) * (1 - frac) / frac : 0; /* at the rate so far */
    if (p->tty) {
        int w = 30, k = (int)(frac * w);
        fprintf(stderr, "\r%s: [%.*s%*s] %3.0f%%  %.0fs, about %.0fs left", p->label, k,
                "##############################", w - k, "", 100 * frac, now - p->t0, left);
    } else {
        fprintf(stderr, "%s: %ld/%ld (%.0f%%) after %.0f s, about %.0f s left\n", p->label, done, p->total,
                100 * frac, now - p->t0, left);
    }
    fflush(stderr);
}

void ep_progress_end(ep_progress *p)
{
    if (!p->quiet && p->tty && p->last > p->t0)
        fprintf(stderr, "\r%*s\r", 76, "");
}
