/*
 * progress.h — progress of a long stage on stderr, for the command-line
 * tools (the library itself never prints: a solver reports through a
 * callback, and the tool forwards it here).
 *
 * A bar when stderr is a terminal, else one line every few seconds, so a
 * batch log shows the run is alive without filling up; nothing when quiet.
 */
#ifndef EP_PROGRESS_H
#define EP_PROGRESS_H

typedef struct ep_progress {
    const char *label;  /* borrowed: the tool's name, starts every line */
    long total;
    double t0, last;
    int tty, quiet;
} ep_progress;

/* Start a stage of total steps (total <= 0 counts as 1). */
void ep_progress_start(ep_progress *p, const char *label, long total, int quiet);
/* done of total steps are finished.  Cost: a clock read; prints at most
 * every 0.2 s (terminal) or 5 s (log). */
void ep_progress_update(ep_progress *p, long done);
/* Erase the bar (terminal). */
void ep_progress_end(ep_progress *p);

#endif
