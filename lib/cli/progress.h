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

/* The stages of a library routine that reports them through a callback
 * (ep_gf_sink.stage, ep_voxel.progress): "TOOL: STAGE" as each one's
 * progress (a bar, or a line every few seconds); announce 1 adds a line
 * when each starts ("TOOL: STAGE (N steps)"), 2 also one when it ends
 * ("TOOL: STAGE: done in 1.23 s", for -v). */
typedef struct ep_progress_stages {
    const char *tool;   /* borrowed */
    int quiet, announce; /* announce: 0, 1 or 2 (above) */
    ep_progress bar;
    char label[96];     /* "TOOL: STAGE" of the stage running or last ended */
    int running;        /* 0: label ended (a repeated end is ignored) */
} ep_progress_stages;

void ep_progress_stages_init(ep_progress_stages *s, const char *tool, int quiet, int announce);
/* The callback: ctx is an ep_progress_stages; done of total steps of stage
 * what are finished (a new what starts a stage, done >= total ends it; the
 * end of a stage that has just ended is ignored, as when the last step is
 * reported from a loop and again after it).
 * Cost: a clock read and a string compare. */
void ep_progress_stage(void *ctx, const char *what, long done, long total);

#endif
