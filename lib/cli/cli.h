/*
 * cli.h — what every elastoprep tool shares on the command line (DESIGN.md,
 * command-line conventions): option parsing with the common options, the
 * model of a run (its material, support and GF columns) taken from options
 * or the input, the output file checked before any work, and the error exit
 * with the documented statuses.
 *
 * A tool describes itself in an ep_tool: its name, synopsis and purpose,
 * the common option groups it accepts, and a table of its own options
 * (ep_cli_opt: long name, argument kind, target, help line).  ep_cli_parse
 * parses every option, common or the tool's, by that one table path, and
 * generates --help from the tables.  Command-line layer (doc/MODULES.md): the
 * only module that knows getopt; the only one, with progress.h, that prints.
 *
 * A tool of cmd/ writes neither table in C: its description is the data
 * file cmd/spec/TOOL.json, from which scripts/toolspec.py generates the
 * ep_tool, the ep_cli_opt table and parse_command_line(cli, o, argc, argv)
 * into build/gen/TOOL_spec.h (doc/CONVENTIONS.md §6).  The whole of it
 * (femcondense, shortened):
 *
 *     cmd/spec/femcondense.json:
 *     {"name": "femcondense",
 *      "synopsis": "MESH --fixed-... [options] -o GF.h5",
 *      "purpose": "Boundary Green's functions ...",
 *      "common": ["material", "fixed", "columns"],
 *      "inputs": {"min": 1, "max": 1}, "output": "required",
 *      "options": [
 *        {"name": "traction", "kind": "choice", "target": "lumped", "arg": "consistent|lumped",
 *         "help": ["surface load of a unit traction: hat-function mass (default)",
 *                  "or vertex area"]},
 *        {"name": "block", "kind": "int", "target": "block", "lo": 1, "hi": 4096, "arg": "K",
 *         "help": "right-hand sides per solve (default 64)"},
 *        {"include": "gfform", "target": "form"}]}
 *
 *     cmd/femcondense.c:
 *     typedef struct { int lumped; long block; ep_gfform form; ... } opts;
 *     #include "femcondense_spec.h"
 *     ...
 *         opts o = {.block = 64};
 *         ep_cli cli;
 *         parse_command_line(&cli, &o, argc, argv);
 *
 * The targets keep their initial values (the defaults) unless the option is
 * given; checks between options (A excludes B) stay in the tool's main.
 */
#ifndef EP_CLI_H
#define EP_CLI_H

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

/* At most this many stages in a -v report (the last takes the rest). */
#define EP_CLI_STAGES 12

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
    char **argv;                   /* the command line (for -v: the files it names) */
    int argc;
    int done;                      /* --help or --version was printed: exit 0 */
    char command[4096];            /* the command line, for the file's 'command' attribute */
    ep_output out;                 /* -o, checked by ep_cli_parse */
    /* the run's stages, for -v (ep_cli_stage): name, wall and CPU seconds */
    struct { const char *name; double wall, cpu; } stage[EP_CLI_STAGES];
    int nstages, stage_cur;        /* entries, and the one running (-1: none) */
    double t0;                     /* the run's start (wall seconds) */
    double stage_t0, stage_cpu0;   /* the running stage's start */
} ep_cli;

/* The argument kinds of ep_cli_opt and what each stores through target.
 * A bad argument is a usage error "option --NAME: ..." (EP_EUSAGE). */
typedef enum {
    EP_CLI_FLAG,   /* no argument; int *target = 1 */
    EP_CLI_INT,    /* long *target: an integer in [lo, hi] */
    EP_CLI_DOUBLE, /* double *target: a finite number, in [lo, hi] when lo < hi */
    EP_CLI_BYTES,  /* double *target: a size > 0 with an optional K, M, G or T (ep_cli_bytes) */
    EP_CLI_CHOICE, /* int *target: the index of the argument among the words of arg ("a|b|c") */
    EP_CLI_STRING, /* const char **target: the argument itself (borrowed from argv) */
    EP_CLI_CALL    /* call(target, "--NAME", argument): anything else (lists, boxes) */
} ep_cli_kind;

/* One option of a tool's table, which ends with {0}. */
typedef struct ep_cli_opt {
    const char *name;   /* the long name without "--" */
    int letter;         /* the short option letter, or 0 (letters of the common options are taken) */
    ep_cli_kind kind;
    void *target;       /* where the value goes (the type ep_cli_kind says) */
    double lo, hi;      /* INT, DOUBLE: accepted range, bounds included */
    const char *arg;    /* the argument's name in --help ("K", "SIZE"); CHOICE: the words, "a|b|c" */
    const char *help;   /* --help text; lines after the first separated by \n */
    const char *what;   /* DOUBLE: the message's "expected WHAT" (default "a number") */
    int (*call)(void *target, const char *opt, const char *arg); /* CALL: 0 or EP_EUSAGE with message */
} ep_cli_opt;

typedef struct ep_tool {
    const char *name;
    const char *synopsis;          /* after the tool name: "BASE -l LEVELS ... -o OUT" */
    const char *purpose;           /* one line (or two) */
    unsigned common;               /* EP_CLI_* groups accepted */
    const ep_cli_opt *options;     /* the tool's own options, {0} terminated, or NULL */
    int min_inputs, max_inputs;    /* positional arguments; max -1: no limit */
    int need_output;               /* -o is required */
    const char *no_output;         /* -o is refused with this message (a tool that writes no file) */
} ep_tool;

/* Start the tool again (execv of /proc/self/exe, once: EP_RESTARTED) when
 * a library that starts before main must see something else: a soft stack
 * limit raised, OpenBLAS's kernels chosen where it fell back to its generic
 * ones (ep_blas_kernels_for_cpu).  ep_cli_parse calls it first; a tool that
 * starts MPI calls it before MPI_Init.  Returns when nothing is to change
 * (or the execv failed: the tool goes on as it is).  Cost O(1). */
void ep_cli_restart(char **argv);

/* Parse argv into cli (zeroed here) for tool.  After --help or --version
 * (printed on stdout) cli->done is 1.  Installs the progress hook of the
 * library's long loops (ep_progress_hook: progress.h's stages; with -v each
 * loop's start and time).  The output -o is checked
 * (ep_output_check) before any work, so a directory, a device or a missing
 * folder fails here.  Sets the OpenMP thread count.
 * Returns 0; EP_EUSAGE with a message; EP_EIO for an output that cannot be
 * written. */
int ep_cli_parse(ep_cli *cli, const ep_tool *tool, int argc, char **argv);

/* ep_cli_parse for a tool's main: exits 0 after --help or --version, and
 * with the status and message on a bad command line. */
void ep_cli_parse_or_exit(ep_cli *cli, const ep_tool *tool, int argc, char **argv);

/* The argument parsers of the kinds, for CALL parsers that need one:
 * "option --name: ..." usage errors. */
int ep_cli_double(const char *opt, const char *arg, double *v);
int ep_cli_int(const char *opt, const char *arg, long lo, long hi, long *v);
/* A byte count with an optional K, M, G or T suffix (powers of 1024). */
int ep_cli_bytes(const char *opt, const char *arg, double *bytes);

/* The model a tool runs on, for its summary (issue 45): unless -q, one
 * line, printed on stdout by ep_cli_exit when the run succeeds (after the
 * tool's own summary), "PROG: model: N vertices, M tets|hexes|triangles, bounding box
 * [x0, x1] x [y0, y1] x [z0, z1] (D across); E ..., nu ..., rho ..."
 * (ranges for per-element materials; mat NULL: no material); and, even
 * with -q, one "PROG: warning: ..." line on stderr for each finding of
 * ep_material_plausible (units, locking), also at a successful exit (a
 * failing run keeps to its one line).  Starts the stage "compute"
 * (ep_cli_stage).  Cost O(nv + elements). */
void ep_cli_model_summary(ep_cli *cli, const ep_mesh *m, const ep_material *mat);

/* The material of a tool run: -m FILE (per region tag), else -E/--nu/--rho,
 * else the mesh's own (.veg, .h5), checked with ep_material_check(nu_max).
 * Missing E or nu is a usage error.  out is initialized here; free it with
 * ep_material_free in every case. */
int ep_cli_material(const ep_cli *cli, const ep_mesh *m, double nu_max, ep_material *out);

/* --interior POINTS (points.h) located in m's tets (embed.h): *p[*np][3],
 * *tet[*np] the tet holding each and *w[*np][4] its barycentric weights in
 * the tet's vertex order (all allocated; caller frees).  A point farther
 * than 1e-9 of the model's size from every tet: EP_EINPUT naming it; a
 * mesh without tets: EP_EINPUT. */
int ep_cli_interior(const ep_mesh *m, const char *path, double **p, int *np, int **tet, double **w);

/* The points of --interior PATH inside the closed surface m (the BEM's
 * body): *p [*np][3] (allocated; caller frees).  Checked before any work,
 * so a point outside fails with one line and nothing else printed: the
 * generalized winding number of m's triangles at each point (orientation
 * either way) must be at least 1/2, through winding.h's tree (exact near
 * the surface, dipoles far from it).  Cost O(nf log nf) to build, then
 * O(log nf) a point far from the surface (threads over the points).
 * 0, EP_EINPUT naming
 * the first point outside (1-based), EP_EIO, or EP_ECOMPUTE. */
int ep_cli_interior_surface(const ep_mesh *m, const char *path, double **p, int *np);

/* --body-force (want != 0) needs a density everywhere (MATH.md §12): 0, or
 * EP_EINPUT naming source ("SOURCE: --body-force needs a density ..."). */
int ep_cli_body_density(const ep_material *mat, int want, const char *source);

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

/* Whether the output -o ends in ext (".dist", ".interp", ".veg"; case
 * counts).  Cost O(length). */
int ep_cli_output_is(const ep_cli *cli, const char *ext);

/* The output -o of a tool that writes either a text format or an
 * elastoprep HDF5 file (distfield .dist, embed .interp, voxelize .veg,
 * loopsub .obj/.off): starts the stage "write"; text nonzero, creates the
 * plain file (ep_output_create_file), which the tool writes through
 * cli->out.fp, and sets *f NULL; else creates the HDF5 file of kind
 * (ep_cli_create_h5) with the model m and its material mat (NULL: none)
 * written (ep_model_write), *f the open file.  Either is committed by
 * ep_output_commit(&cli->out).  0 or the status of the create or the write
 * (EP_EIO).  Cost: the model's write. */
int ep_cli_create_output(ep_cli *cli, int text, const char *kind, const ep_mesh *m, const ep_material *mat,
                         ep_h5 **f);

/* Read the volumetric model of path for a tool that needs elements
 * (ep_model_read, then EP_EINPUT "PATH: not a volumetric mesh (PROG needs
 * tets or hexes)" when it has none).  m is set up here.  0 or a status. */
int ep_cli_read_volume(const ep_cli *cli, ep_mesh *m, const char *path);

/* Read the closed surface of path for a tool that needs one (ep_model_read,
 * then ep_repair_closed_surface: a plain surface cleaned up, a tet mesh's
 * boundary or a hierarchy checked) and print, unless -q, one line on what
 * the clean-up changed ("prog: PATH: clean-up: ...", nothing when nothing
 * changed) and with -v each change.  m is set up here.  0 or the status of
 * the read or the clean-up. */
int ep_cli_read_closed_surface(const ep_cli *cli, ep_mesh *m, const char *path);

/* -v (issue 45, point 6): what every tool adds with -v, on stderr, when
 * its run succeeds (ep_cli_exit):
 *   "PROG: stages: read 0.012 s, compute 1.23 s (CPU 2.41 s), write ..."
 *   "PROG: run: 1.26 s wall, 2.47 s CPU (user 2.40, system 0.07) on 2
 *    threads; peak resident memory 45.2 MiB"
 *   "PROG: input PATH: 1.2 MiB" for each file the command line names
 *   (positional or an option's argument) other than the output
 *   "PROG: output PATH: 3.4 MiB, 12 datasets" and, for an HDF5 output,
 *   "PROG:   /mesh/vertices float64 [1234][3] 28.9 KiB" for each of them,
 *   and its XDMF sidecar's size.
 * A stage runs from one ep_cli_stage to the next (a name seen before goes
 * on adding to that stage).  ep_cli_parse starts "read",
 * ep_cli_model_summary "compute" and ep_cli_create_h5 "write", each only
 * when the running stage is one of these three, so a tool names only the
 * stages of its own, and a stage it names runs on until it names the next.
 * Cost: a clock read and a getrusage a stage. */
void ep_cli_stage(ep_cli *cli, const char *name);

/* With -v, one line "PROG: " + the printf text on stderr (solver
 * statistics, sizes); nothing otherwise. */
__attribute__((format(printf, 2, 3))) void ep_cli_verbose(const ep_cli *cli, const char *fmt, ...);

/* Print "prog: <ep_errmsg()>" on stderr (status != 0), remove every
 * uncommitted output (ep_output_abort_all), and exit with status.  A run
 * that succeeds prints the model line (ep_cli_model_summary) and, with -v,
 * the report of ep_cli_stage. */
_Noreturn void ep_cli_exit(int status);

#endif
