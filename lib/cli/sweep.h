/*
 * sweep.h — gfcompress's threshold sweep: a list of wavelet thresholds
 * (--sweep), the table of errors and compression at each, from one pass of
 * the compressing sink (gfsink.h, gfzip.h's tallies; 000 §3.3.2), and its
 * drawing by the gfplot script (--plot, python3 with matplotlib).
 *
 * Command-line layer: it prints, and runs a script.
 */
#ifndef EP_SWEEP_H
#define EP_SWEEP_H

#include "gfsink.h"
#include "gfzip.h"

#include <stdio.h>

typedef struct ep_sweep {
    int n;                              /* thresholds given */
    double eps[EP_GFSINK_MAX_EPS - 1];  /* the written threshold goes last, after these */
} ep_sweep;

/* The --sweep option's callback (EP_CLI_CALL; ctx an ep_sweep): arg a comma
 * separated list of up to EP_GFSINK_MAX_EPS - 1 thresholds in [0,
 * EP_GFFORM_MAX_EPS], at most 1023 characters.  0 or EP_EUSAGE (one
 * message naming opt). */
int ep_sweep_parse(void *ctx, const char *opt, const char *arg);

/* The table on f, one line a threshold eps[e] (e < ne) with its tally
 * tl[e]: eps, RMS and maximum relative error, kept blocks, compression,
 * and the same over the free rows; dense[d] the blocks of domain d
 * (row_fixed d) in the uncompressed matrix.  Cost O(ne). */
void ep_sweep_print(FILE *f, const double *eps, int ne, const ep_gfzip_tally *tl, const long dense[2]);

/* Draw the table (as ep_sweep_print writes it) into png, a path the caller
 * owns (a temporary of the output lifecycle, committed by the caller;
 * name, the --plot argument, goes in messages), with the title label.  The
 * script is $ELASTOPREP_SCRIPTS/gfplot, else ../scripts/gfplot or
 * ../share/elastoprep/gfplot beside the running tool, else
 * source_dir/gfplot (source_dir NULL: none); it runs without a shell, the
 * table on its stdin, its output to /dev/null (its diagnostics would break
 * the one-line error rule).  Cost: one fork and exec, and the script's.
 * 0 or EP_EIO (no script, it could not run, or it failed). */
int ep_sweep_plot(const char *png, const char *name, const double *eps, int ne, const ep_gfzip_tally *tl,
                  const long dense[2], const char *label, const char *source_dir);

#endif
