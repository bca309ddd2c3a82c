/*
 * progress.c — progress on stderr (progress.h).
 */
#include "progress.h"
#include "err.h"

#include <stdio.h>
#include <string.h>
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

void ep_progress_stages_init(ep_progress_stages *s, const char *tool, int quiet, int announce)
{
    s->tool = tool;
    s->quiet = quiet;
    s->announce = quiet ? 0 : announce;
    s->label[0] = '\0';
    s->running = 0;
}

void ep_progress_stage(void *ctx, const char *what, long done, long total)
{
    ep_progress_stages *s = ctx;
    char label[96];
    snprintf(label, sizeof label, "%s: %s", s->tool, what);
    int same = !strcmp(label, s->label);
    if (same && !s->running && done >= total)
        return; /* this stage's end again */
    if (!same || !s->running) {
        if (s->running)
            ep_progress_end(&s->bar);
        s->running = 1;
        snprintf(s->label, sizeof s->label, "%s", label);
        if (s->announce)
            fprintf(stderr, "%s (%ld step%s)\n", label, total, total == 1 ? "" : "s");
        ep_progress_start(&s->bar, s->label, total, s->quiet);
    }
    ep_progress_update(&s->bar, done);
    if (done >= total) {
        ep_progress_end(&s->bar);
        if (s->announce > 1)
            fprintf(stderr, "%s: done in %.3g s\n", s->label, ep_now() - s->bar.t0);
        s->running = 0;
    }
}
