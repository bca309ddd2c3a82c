/*
 * cli.h — what every elastoprep tool shares on the command line (DESIGN.md,
 * command-line conventions): option parsing with the common options, error
 * exit with the documented statuses, progress reporting, atomic output files.
 *
 * A tool describes itself in an ep_tool (its options and a handler for them);
 * ep_cli_parse handles -h/-V/-q/-v/-j/-o and, when asked, the material and
 * fixed-vertex options, then calls the handler for the tool's own ones.
 */
#ifndef EP_CLI_H
#define EP_CLI_H

#include <getopt.h>
#include <stddef.h>

#include "err.h"
#include "material.h"
#include "mesh.h"
#include "select.h"

#define EP_VERSION "0.1.0"

/* Common option groups a tool accepts. */
enum { EP_CLI_MATERIAL = 1, EP_CLI_FIXED = 2 };

typedef struct ep_cli {
    const char *prog;
    const char *output;            /* -o FILE, or NULL */
    int quiet, verbose, threads;   /* threads 0: all cores */
    double E, nu, rho;             /* NaN when not given */
    const char *material_file;     /* -m FILE */
    ep_vsel fixed;
    char **inputs;                 /* positional arguments */
    int ninputs;
    char command[4096];            /* the command line, for the file's 'command' attribute */
} ep_cli;

typedef struct ep_tool {
    const char *name;
    const char *synopsis;          /* after the tool name: "BASE -l LEVELS ... -o OUT" */
    const char *purpose;           /* one line */
    const char *help;              /* the tool's own options, one per line, with defaults */
    unsigned common;               /* EP_CLI_* groups accepted */
    const struct option *options;  /* tool options, {0} terminated; val is the code passed
                                      on: a letter the common options do not use, or >= 2000 */
    const char *shortopts;         /* getopt letters of the tool options ("l:") */
    int (*handle)(int code, const char *arg, void *ctx); /* 0 or EP_EUSAGE with message */
    void *ctx;
    int min_inputs, max_inputs;
    int need_output;               /* -o is required */
} ep_tool;

/* Parse argv.  Returns EP_OK; EP_EUSAGE with a message; or -1 when --help or
 * --version was printed (the tool exits 0).  Sets the OpenMP thread count. */
int ep_cli_parse(const ep_tool *tool, int argc, char **argv, ep_cli *cli);

/* ep_cli_parse for a tool's main: exits 0 after --help or --version, and
 * with the usage status and message on a bad command line. */
void ep_cli_parse_or_exit(const ep_tool *tool, int argc, char **argv, ep_cli *cli);

/* Option argument parsers with "option --name: ..." usage errors. */
int ep_cli_double(const char *opt, const char *arg, double *v);
int ep_cli_int(const char *opt, const char *arg, long lo, long hi, long *v);

/* The material of a tool run: -m FILE (per region tag), else -E/--nu/--rho,
 * else the mesh's own (.veg, .h5), checked with ep_material_check(nu_max).
 * Missing E or nu is a usage error.  out is initialized here. */
int ep_cli_material(const ep_cli *cli, const ep_mesh *m, double nu_max, ep_material *out);

/* The support of a tool run as a mask fixed[nv]: the --fixed-* options, else
 * /constraints/fixed of an elastoprep input.  Neither: usage error; an empty
 * selection: EP_EINPUT.  *fixed is allocated; *nfixed counts the vertices. */
int ep_cli_fixed(const ep_cli *cli, const ep_mesh *m, char **fixed, int *nfixed);

/* Parse a byte count with an optional K, M, G or T suffix (powers of 1024). */
int ep_cli_bytes(const char *opt, const char *arg, double *bytes);

/* Print "prog: <ep_errmsg()>" on stderr (status != 0), remove unfinished
 * outputs, and exit with status. */
_Noreturn void ep_cli_exit(int status);

/* ---- atomic output ------------------------------------------------------ */

/* Reserve a temporary file next to path (same folder, so the final rename is
 * atomic); tmp receives its name.  It is removed on ep_cli_exit, at exit and on
 * SIGINT/SIGTERM/SIGHUP unless committed.  0 or EP_EIO. */
int ep_out_begin(const char *path, char *tmp, size_t cap);
/* Give tmp the permissions of a new file and rename it to path.  0 or EP_EIO. */
int ep_out_commit(const char *tmp, const char *path);
/* Remove every uncommitted temporary file. */
void ep_out_abort(void);

/* ---- progress ------------------------------------------------------------ */

/* A bar on stderr when it is a terminal, else a line every few seconds;
 * nothing when quiet. */
typedef struct ep_progress {
    const char *label;
    long total;
    double t0, last;
    int tty, quiet;
} ep_progress;

void ep_progress_start(ep_progress *p, const char *label, long total, int quiet);
void ep_progress_update(ep_progress *p, long done);
void ep_progress_end(ep_progress *p);

/* Physical memory of the machine in bytes (0 if unknown), for memory guards. */
double ep_mem_total(void);

/* The memory a run may use: limit (--max-memory) when given (> 0), else 90%
 * of the machine's. */
double ep_mem_limit(double limit);

/* Refuse, before any work, an output of about bytes that the free space of
 * its folder cannot hold: EP_ECOMPUTE with both figures. */
int ep_out_check_space(const char *path, double bytes);

/* Peak resident memory of this process so far, bytes (getrusage). */
double ep_peak_rss(void);

#endif
