/*
 * cli.h — what every elastoprep tool shares on the command line (DESIGN.md,
 * command-line conventions): option parsing with the common options, the
 * model of a run (its material, support and GF columns) taken from options
 * or the input, the output file checked before any work, and the error exit
 * with the documented statuses.
 *
 * A tool describes itself in an ep_tool (its options and a handler for them);
 * ep_cli_parse handles -h/-V/-q/-v/-j/-o and, when asked, the material,
 * fixed-vertex and GF-column options, then calls the handler for the tool's
 * own ones.  Command-line layer (doc/MODULES.md): the only module that
 * knows getopt; the only one, with progress.h, that prints.
 */
#ifndef EP_CLI_H
#define EP_CLI_H

#include <getopt.h>
#include <stddef.h>

#include "err.h"
#include "material.h"
#include "mesh.h"
#include "output.h"
#include "select.h"

#define EP_VERSION "0.1.0"

/* Common option groups a tool accepts. */
enum {
    EP_CLI_MATERIAL = 1, /* -E/--young, --nu, --rho, -m/--material */
    EP_CLI_FIXED = 2,    /* --fixed-ids, --fixed-box, --fixed-region */
    EP_CLI_COLUMNS = 4   /* --columns free|all, --col-ids, --col-box, --col-region */
};

typedef struct ep_cli {
    const char *prog;
    const char *output;            /* -o FILE, or NULL */
    int quiet, verbose, threads;   /* threads 0: all cores */
    double E, nu, rho;             /* NaN when not given */
    const char *material_file;     /* -m FILE */
    ep_select fixed;               /* --fixed-... */
    int all_columns;               /* --columns all */
    ep_select columns;             /* --col-... */
    int no_xdmf;                   /* --no-xdmf */
    const char *xdmf_columns;      /* --xdmf-columns, or NULL */
    char **inputs;                 /* positional arguments */
    int ninputs;
    int done;                      /* --help or --version was printed: exit 0 */
    char command[4096];            /* the command line, for the file's 'command' attribute */
    ep_output out;                 /* -o, checked by ep_cli_parse */
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
    const char *no_output;         /* -o is refused with this message (a tool that writes no file) */
} ep_tool;

/* Parse argv into cli (zeroed here) for tool.  After --help or --version
 * (printed on stdout) cli->done is 1.  The output -o is checked
 * (ep_output_check) before any work, so a directory, a device or a missing
 * folder fails here.  Sets the OpenMP thread count.
 * Returns 0; EP_EUSAGE with a message; EP_EIO for an output that cannot be
 * written. */
int ep_cli_parse(ep_cli *cli, const ep_tool *tool, int argc, char **argv);

/* ep_cli_parse for a tool's main: exits 0 after --help or --version, and
 * with the status and message on a bad command line. */
void ep_cli_parse_or_exit(ep_cli *cli, const ep_tool *tool, int argc, char **argv);

/* Option argument parsers with "option --name: ..." usage errors. */
int ep_cli_double(const char *opt, const char *arg, double *v);
int ep_cli_int(const char *opt, const char *arg, long lo, long hi, long *v);
/* A byte count with an optional K, M, G or T suffix (powers of 1024). */
int ep_cli_bytes(const char *opt, const char *arg, double *bytes);

/* The material of a tool run: -m FILE (per region tag), else -E/--nu/--rho,
 * else the mesh's own (.veg, .h5), checked with ep_material_check(nu_max).
 * Missing E or nu is a usage error.  out is initialized here; free it with
 * ep_material_free in every case. */
int ep_cli_material(const ep_cli *cli, const ep_mesh *m, double nu_max, ep_material *out);

/* The support of a tool run as a mask fixed[nv]: the --fixed-* options, else
 * /constraints/fixed of an elastoprep input.  Neither: usage error; an empty
 * selection: EP_EINPUT.  *fixed is allocated (caller frees); *nfixed counts
 * the vertices. */
int ep_cli_fixed(const ep_cli *cli, const ep_mesh *m, char **fixed, int *nfixed);

/* The GF columns the --col-... options select (ep_select_boundary): *cols
 * (allocated; caller frees) ascending; *cols NULL and *ncols 0 when no
 * --col-... option was given (then cli->all_columns decides).  0, EP_EINPUT
 * or EP_EUSAGE. */
int ep_cli_columns(const ep_cli *cli, const ep_mesh *m, int **cols, int *ncols);

/* Create the output -o as an HDF5 file of kind (ep_output_create_h5, with
 * creator "TOOL VERSION" and the command line): *f is the open file, owned
 * by cli->out until ep_output_commit(&cli->out) or the exit.  0 or EP_EIO. */
int ep_cli_create_h5(ep_cli *cli, const char *kind, ep_h5 **f);

/* Read the closed surface of path for a tool that needs one (ep_model_read,
 * then ep_repair_closed_surface: a plain surface cleaned up, a tet mesh's
 * boundary or a hierarchy checked) and print, unless -q, one line on what
 * the clean-up changed ("prog: PATH: clean-up: ...", nothing when nothing
 * changed) and with -v each change.  m is set up here.  0 or the status of
 * the read or the clean-up. */
int ep_cli_read_closed_surface(const ep_cli *cli, ep_mesh *m, const char *path);

/* Print "prog: <ep_errmsg()>" on stderr (status != 0), remove every
 * uncommitted output (ep_output_abort_all), and exit with status. */
_Noreturn void ep_cli_exit(int status);

#endif
