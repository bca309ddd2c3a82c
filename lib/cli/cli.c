/*
 * cli.c — option parsing, the model of a run from options, the output and
 * the error exit (cli.h).
 */
#define _GNU_SOURCE
#include "cli.h"
#include "blas.h"
#include "embed.h"
#include "err.h"
#include "mem.h"
#include "model.h"
#include "points.h"
#include "progress.h"
#include "repair.h"
#include "winding.h"
#include "xdmf.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *progname = "elastoprep";

/* The model line of ep_cli_model_summary, printed by a successful exit: a
 * run that fails prints nothing on stdout. */
static char model_line[512], model_warnings[1200];
static const ep_output *main_output; /* the -o of the tool, for its note at exit */
static ep_cli *main_cli;             /* the tool's run, for the -v report at exit */

static void verbose_report(ep_cli *cli);

/* The stages lib/cli starts itself (ep_cli_stage): "read", "compute",
 * "write", each only after another of them (or none), so that a stage a
 * tool names runs on until the tool names the next. */
static void auto_stage(ep_cli *cli, const char *name)
{
    const char *cur = cli->stage_cur >= 0 ? cli->stage[cli->stage_cur].name : "read";
    if (!strcmp(cur, "read") || !strcmp(cur, "compute") || !strcmp(cur, "write"))
        ep_cli_stage(cli, name);
}

/* CPU seconds of the process, every thread, user and system. */
static double cpu_seconds(void)
{
    struct rusage r;
    if (getrusage(RUSAGE_SELF, &r))
        return 0;
    return (double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) + 1e-6 * (double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec);
}

_Noreturn void ep_cli_exit(int status)
{
    if (status != EP_OK)
        fprintf(stderr, "%s: %s\n", progname, *ep_errmsg() ? ep_errmsg() : "failed");
    else {
        fputs(model_line, stdout);
        fputs(model_warnings, stderr);
        if (main_output && main_output->note[0])
            fprintf(stderr, "%s: warning: %s\n", progname, main_output->note);
        if (main_cli && main_cli->verbose && !main_cli->done) {
            fflush(stdout);
            verbose_report(main_cli);
        }
    }
    ep_output_abort_all();
    fflush(stdout);
    exit(status);
}

/* ---- option parsing --------------------------------------------------------- */

/* Help lines: the option and its argument, then the text from column 26
 * (on the next line when the option is longer). */
enum { HELP_COLUMN = 26 };

static void print_options(const ep_cli_opt *t)
{
    for (; t && t->name; t++) {
        int n = t->letter ? printf("  -%c, --%s", t->letter, t->name) : printf("      --%s", t->name);
        if (t->kind != EP_CLI_FLAG && t->arg)
            n += printf(" %s", t->arg);
        if (n < HELP_COLUMN)
            printf("%*s", HELP_COLUMN - n, "");
        else
            printf("\n%*s", HELP_COLUMN, "");
        for (const char *h = t->help ? t->help : "";;) {
            const char *e = strchr(h, '\n');
            if (!e) {
                printf("%s\n", h);
                break;
            }
            printf("%.*s\n%*s", (int)(e - h), h, HELP_COLUMN, "");
            h = e + 1;
        }
    }
}

static void usage(const ep_tool *t, const ep_cli_opt *const groups[], int ngroups)
{
    printf("Usage: %s %s\n%s\n\n", t->name, t->synopsis, t->purpose);
    printf("Options:\n");
    for (int g = 0; g < ngroups; g++)
        print_options(groups[g]);
    printf("\nExit status: 0 ok, 1 computation failed, 2 usage error, 3 invalid input,\n"
           "4 I/O error.  See %s(1).\n", t->name);
}

int ep_cli_double(const char *opt, const char *arg, double *v)
{
    char *e;
    errno = 0;
    *v = strtod(arg, &e);
    if (e == arg || *e)
        return ep_fail(EP_EUSAGE, "option %s: expected a number, got \"%s\"", opt, arg);
    /* a number past the double range is named so (--nu 1e-320 was "not a
     * number"); a subnormal one is a number, taken as it is */
    if (!isfinite(*v) || (errno == ERANGE && fabs(*v) > 1))
        return ep_fail(EP_EUSAGE, "option %s: %s is not a finite number (beyond the double range)", opt, arg);
    return EP_OK;
}

int ep_cli_int(const char *opt, const char *arg, long lo, long hi, long *v)
{
    char *e;
    errno = 0;
    *v = strtol(arg, &e, 10);
    if (e == arg || *e || errno)
        return ep_fail(EP_EUSAGE, "option %s: expected an integer, got \"%s\"", opt, arg);
    if (*v < lo || *v > hi)
        return ep_fail(EP_EUSAGE, "option %s: %ld out of range [%ld, %ld]", opt, *v, lo, hi);
    return EP_OK;
}

/* "expected a, b or c" from "a|b|c". */
static int parse_choice(const ep_cli_opt *o, const char *opt, const char *arg)
{
    char list[256];
    size_t n = 0, len = strlen(arg);
    int i = 0;
    for (const char *w = o->arg;; w++, i++) {
        const char *e = strchr(w, '|');
        size_t wl = e ? (size_t)(e - w) : strlen(w);
        if (wl == len && !strncmp(w, arg, len)) {
            *(int *)o->target = i;
            return EP_OK;
        }
        if (n < sizeof list)
            n += (size_t)snprintf(list + n, sizeof list - n, "%s%.*s", !i ? "" : e ? ", " : " or ", (int)wl, w);
        if (!e)
            break;
        w = e;
    }
    return ep_fail(EP_EUSAGE, "option %s: expected %s, got \"%s\"", opt, list, arg);
}

static int parse_double(const ep_cli_opt *o, const char *opt, const char *arg)
{
    double *v = o->target;
    char what[128];
    if (o->what)
        snprintf(what, sizeof what, "%s", o->what);
    else if (o->lo < o->hi)
        snprintf(what, sizeof what, "a number in [%g, %g]", o->lo, o->hi);
    else
        snprintf(what, sizeof what, "a number");
    char *e;
    strtod(arg, &e);
    if (ep_cli_double(opt, arg, v) && e != arg && !*e)
        return EP_EUSAGE; /* a number beyond the double range: its own message */
    if (e == arg || *e || (o->lo < o->hi && !(*v >= o->lo && *v <= o->hi)))
        return ep_fail(EP_EUSAGE, "option %s: expected %s, got \"%s\"", opt, what, arg);
    return EP_OK;
}

/* The long nearest x: an option's bounds are doubles, and LONG_MAX as a
 * double (2^63) is out of a long's range (a plain cast gave LONG_MIN). */
static long bound_long(double x)
{
    return x >= 0x1p63 ? LONG_MAX : x <= -0x1p63 ? LONG_MIN : (long)x;
}

/* Store the argument of option o through its target. */
static int apply(const ep_cli_opt *o, const char *arg)
{
    char opt[128];
    snprintf(opt, sizeof opt, "--%s", o->name);
    switch (o->kind) {
    case EP_CLI_FLAG: *(int *)o->target = 1; return EP_OK;
    case EP_CLI_INT: return ep_cli_int(opt, arg, bound_long(o->lo), bound_long(o->hi), o->target);
    case EP_CLI_DOUBLE: return parse_double(o, opt, arg);
    case EP_CLI_BYTES: return ep_cli_bytes(opt, arg, o->target);
    case EP_CLI_CHOICE: return parse_choice(o, opt, arg);
    case EP_CLI_STRING: *(const char **)o->target = arg; return EP_OK;
    case EP_CLI_CALL: return o->call(o->target, opt, arg);
    }
    return ep_fail(EP_EUSAGE, "option %s: unknown kind", opt);
}

static void record_command(ep_cli *cli, int argc, char **argv)
{
    size_t n = 0;
    cli->command[0] = '\0';
    for (int i = 0; i < argc && n < sizeof cli->command; i++)
        n += (size_t)snprintf(cli->command + n, sizeof cli->command - n, "%s%s", i ? " " : "", argv[i]);
}

static int parse_box(void *sel, const char *opt, const char *arg)
{
    return ep_select_parse_box(sel, opt, arg);
}

static int parse_xdmf_columns(void *spec, const char *opt, const char *arg)
{
    (void)opt;
    *(const char **)spec = arg;
    return ep_xdmf_columns_check(arg);
}

/* The three options of a vertex selection into t[3], with their help lines:
 * --fixed-ids FILE, --fixed-box BOX, --fixed-region TAG for the support
 * (fixed), else --col-ids, --col-box, --col-region for the GF columns. */
static void selection_options(ep_cli_opt t[3], ep_select *sel, int fixed, const char *help[3])
{
    t[0] = (ep_cli_opt){fixed ? "fixed-ids" : "col-ids", 0, EP_CLI_STRING, &sel->ids_file, .arg = "FILE",
                        .help = help[0]};
    t[1] = (ep_cli_opt){fixed ? "fixed-box" : "col-box", 0, EP_CLI_CALL, sel, .arg = "x0,y0,z0,x1,y1,z1",
                        .help = help[1], .call = parse_box};
    t[2] = (ep_cli_opt){fixed ? "fixed-region" : "col-region", 0, EP_CLI_STRING, &sel->region, .arg = "TAG",
                        .help = help[2]};
}

/* At most this many options, common and the tool's, in one tool; getopt
 * codes of long options start above every letter. */
enum { MAX_OPTIONS = 96, LONG_CODE = 256 };

/* An output that is one of the inputs (the same name, a symbolic link or a
 * hard link to it: the same device and inode) would replace the data being
 * read; epmerge --virtual made a file that maps itself (issue 37, class 1).
 * EP_EUSAGE naming both. */
static int same_file(const char *input, const char *output)
{
    struct stat a, b;
    if (stat(input, &a) || stat(output, &b) || a.st_dev != b.st_dev || a.st_ino != b.st_ino)
        return EP_OK;
    return ep_fail(EP_EUSAGE, "%s: the output is the input %s (the same file): it would replace what it reads",
                   output, input);
}

/* The threads' stacks, before any work (issue 37, class 5).  glibc gives
 * each thread RLIMIT_STACK bytes: under "ulimit -s 32" the solvers' threads
 * and the main thread overflowed (SIGSEGV).  The soft limit of the main
 * thread is raised towards EP_CLI_STACK (the hard limit permitting; the main
 * stack grows against the current limit) and new threads get at least
 * EP_CLI_STACK; a limit that stays below EP_CLI_STACK_MIN is refused.  Then
 * threads x stack must fit the memory: -j N is refused, the default (all
 * cores) capped.  0 or EP_EUSAGE. */
#define EP_CLI_STACK (8 * EP_MEM_MIB)
#define EP_CLI_STACK_MIN (1 * EP_MEM_MIB)
/* Raise the soft stack limit towards EP_CLI_STACK (the hard limit
 * permitting). */
static void raise_stack(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < (rlim_t)EP_CLI_STACK) {
        rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > (rlim_t)EP_CLI_STACK ? (rlim_t)EP_CLI_STACK
                                                                                         : rl.rlim_max;
        setrlimit(RLIMIT_STACK, &rl);
    }
}

/* What the libraries that start before main must see (cli.h,
 * ep_cli_restart):
 *   - a soft stack limit below EP_CLI_STACK_MIN that the hard limit lets
 *     grow, raised, so that the threads those libraries start (OpenBLAS's)
 *     get stacks of the raised size too; under "ulimit -S -s 128" they
 *     overflowed now and then (SIGSEGV);
 *   - OpenBLAS's kernels where it fell back to its generic ones on a CPU it
 *     does not know (ep_blas_kernels_for_cpu: dgemm 6.5 -> 74 GFlop/s on
 *     the 2-core machine).  OPENBLAS_CORETYPE given by the user is kept. */
void ep_cli_restart(char **argv)
{
    struct rlimit rl;
    if (getenv("EP_RESTARTED"))
        return;
    int again = 0;
    if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        (double)rl.rlim_cur < EP_CLI_STACK_MIN) {
        raise_stack();
        again = getrlimit(RLIMIT_STACK, &rl) == 0 && (double)rl.rlim_cur >= EP_CLI_STACK_MIN; /* else refused in threads_fit */
    }
    const char *kernels = ep_blas_kernels_for_cpu();
    if (kernels) {
        setenv("OPENBLAS_CORETYPE", kernels, 1);
        again = 1;
    }
    if (!again)
        return;
    setenv("EP_RESTARTED", "1", 1);
    execv("/proc/self/exe", argv); /* on failure: go on as things are */
}

static int threads_fit(ep_cli *cli)
{
    struct rlimit rl;
    double stack = EP_CLI_STACK;
    if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        raise_stack();
        getrlimit(RLIMIT_STACK, &rl);
        if ((double)rl.rlim_cur < EP_CLI_STACK_MIN)
            return ep_fail(EP_EUSAGE, "the stack limit (ulimit -s) is %s, below the %s a tool needs",
                           ep_mem_text((double)rl.rlim_cur), ep_mem_text(EP_CLI_STACK_MIN));
        stack = fmax((double)rl.rlim_cur, EP_CLI_STACK);
    }
    pthread_attr_t attr; /* the default of the threads libgomp creates (no OMP_STACKSIZE) */
    if (!pthread_getattr_default_np(&attr)) {
        size_t have = 0;
        pthread_attr_getstacksize(&attr, &have);
        if ((double)have < EP_CLI_STACK && !pthread_attr_setstacksize(&attr, (size_t)EP_CLI_STACK))
            pthread_setattr_default_np(&attr);
        pthread_attr_destroy(&attr);
    }
    double mem = ep_mem_limit(0);
    if (cli->threads) {
        /* -j 4096 under a memory cap failed in libgomp with two lines of its
         * own (issue 22, class 13) */
        if (cli->threads * stack > mem)
            return ep_fail(EP_EUSAGE, "option --threads: %d threads need %s of stacks, more than the memory (%s)",
                           cli->threads, ep_mem_text(cli->threads * stack), ep_mem_text(mem));
        omp_set_num_threads(cli->threads);
    } else if (omp_get_max_threads() * stack > 0.5 * mem) {
        int fit = (int)(0.5 * mem / stack);
        omp_set_num_threads(fit > 1 ? fit : 1);
    }
    return EP_OK;
}

int ep_cli_parse(ep_cli *cli, const ep_tool *tool, int argc, char **argv)
{
    int help = 0, version = 0, st;
    long threads = 0;
    char threads_help[64];
    memset(cli, 0, sizeof *cli);
    cli->prog = progname = tool->name;
    main_cli = cli;
    cli->stage_cur = -1;
    cli->t0 = ep_now();
    ep_cli_restart(argv);
    cli->E = cli->nu = cli->rho = NAN;
    cli->argv = argv;
    cli->argc = argc;
    record_command(cli, argc, argv);
    snprintf(threads_help, sizeof threads_help, "threads (default: all cores, %d here)", omp_get_num_procs());

    /* The common groups, in the order --help lists them around the tool's. */
    ep_cli_opt columns[5] = {{"columns", 0, EP_CLI_CHOICE, &cli->all_columns, .arg = "free|all",
                              .help = "GF columns: free boundary vertices (default) or all of them"}},
               fixed[4] = {{0}};
    selection_options(&columns[1], &cli->columns, 0, (const char *[]){
        "GF columns: these boundary vertices (1-based ids), and/or", "the boundary vertices in a box, and/or",
        "those of a physical group or set"});
    selection_options(fixed, &cli->fixed, 1, (const char *[]){
        "fixed vertices, 1-based ids (Vega .bou)", "fixed: the vertices inside the box",
        "fixed: the vertices of a physical group or set"});
    const ep_cli_opt material[] = {
        {"young", 'E', EP_CLI_DOUBLE, &cli->E, .arg = "PA", .help = "Young's modulus"},
        {"nu", 0, EP_CLI_DOUBLE, &cli->nu, .arg = "V", .help = "Poisson's ratio"},
        {"rho", 0, EP_CLI_DOUBLE, &cli->rho, .arg = "KG_PER_M3", .help = "density"},
        {"material", 'm', EP_CLI_STRING, &cli->material_file, .arg = "FILE",
         .help = "per-region materials: lines \"TAG E nu rho\""},
        {0}};
    char xdmf_help[128];
    snprintf(xdmf_help, sizeof xdmf_help, "GF columns the sidecar shows (0-based, e.g. 0,4-7;\n"
             "default: all up to %d, else the first %d)", EP_XDMF_ALL_COLUMNS, EP_XDMF_FIRST_COLUMNS);
    const ep_cli_opt xdmf[] = { /* the XDMF sidecar of an HDF5 output (xdmf.h) */
        {"no-xdmf", 0, EP_CLI_FLAG, &cli->no_xdmf, .help = "no XDMF sidecars (OUT.xmf, one per grid) beside an HDF5 output"},
        {"xdmf-columns", 0, EP_CLI_CALL, &cli->xdmf_columns, .arg = "all|LIST", .help = xdmf_help,
         .call = parse_xdmf_columns},
        {0}};
    const ep_cli_opt base[] = {
        {"output", 'o', EP_CLI_STRING, &cli->output, .arg = "FILE", .help = "output file"},
        {"threads", 'j', EP_CLI_INT, &threads, 1, 4096, .arg = "N", .help = threads_help},
        {"quiet", 'q', EP_CLI_FLAG, &cli->quiet, .help = "no progress and no summary"},
        {"verbose", 'v', EP_CLI_FLAG, &cli->verbose,
         .help = "more detail on stderr: stage times, CPU, memory, files"},
        {"help", 'h', EP_CLI_FLAG, &help, .help = "this help"},
        {"version", 'V', EP_CLI_FLAG, &version, .help = "version"},
        {0}};
    const ep_cli_opt *groups[] = {
        tool->common & EP_CLI_COLUMNS ? columns : NULL, tool->options,
        tool->common & EP_CLI_MATERIAL ? material : NULL, tool->common & EP_CLI_FIXED ? fixed : NULL,
        tool->no_output ? NULL : xdmf, base};
    enum { NGROUPS = sizeof groups / sizeof *groups };

    /* One getopt table: long option k returns LONG_CODE + k, a letter
     * itself. */
    const ep_cli_opt *all[MAX_OPTIONS];
    struct option longopts[MAX_OPTIONS + 1];
    char shortopts[2 * MAX_OPTIONS + 2] = ":";
    int n = 0, ns = 1;
    for (int g = 0; g < NGROUPS; g++)
        for (const ep_cli_opt *o = groups[g]; o && o->name; o++) {
            if (n == MAX_OPTIONS)
                return ep_fail(EP_EUSAGE, "%s: more than %d options", tool->name, MAX_OPTIONS);
            all[n] = o;
            longopts[n] = (struct option){o->name, o->kind == EP_CLI_FLAG ? no_argument : required_argument, NULL,
                                          LONG_CODE + n};
            n++;
            if (o->letter) {
                shortopts[ns++] = (char)o->letter;
                if (o->kind != EP_CLI_FLAG)
                    shortopts[ns++] = ':';
            }
        }
    memset(&longopts[n], 0, sizeof longopts[n]);
    shortopts[ns] = '\0';

    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        const char *name = argv[optind - 1];
        if (c == '?')
            return ep_fail(EP_EUSAGE, "unknown option %s (try --help)",
                           optopt ? (char[]){'-', (char)optopt, 0} : name);
        if (c == ':')
            return ep_fail(EP_EUSAGE, "option %s needs an argument", name);
        const ep_cli_opt *o = c >= LONG_CODE ? all[c - LONG_CODE] : NULL;
        for (int k = 0; !o && k < n; k++)
            if (all[k]->letter == c)
                o = all[k];
        if ((st = apply(o, optarg)))
            return st;
        if (help) {
            usage(tool, groups, NGROUPS);
            cli->done = 1;
            return EP_OK;
        }
        if (version) {
            printf("%s (elastoprep) %s\n", tool->name, EP_VERSION);
            cli->done = 1;
            return EP_OK;
        }
    }
    cli->threads = (int)threads;
    cli->inputs = argv + optind;
    cli->ninputs = argc - optind;
    if (cli->ninputs < tool->min_inputs)
        return ep_fail(EP_EUSAGE, "missing input file (try --help)");
    if (tool->max_inputs >= 0 && cli->ninputs > tool->max_inputs)
        return ep_fail(EP_EUSAGE, "too many input files: %s", cli->inputs[tool->max_inputs]);
    if (tool->need_output && !cli->output)
        return ep_fail(EP_EUSAGE, "no output file (-o FILE)");
    if (tool->no_output && cli->output)
        return ep_fail(EP_EUSAGE, "%s", tool->no_output);
    if (cli->output && (st = ep_output_check(&cli->out, cli->output)))
        return st;
    main_output = &cli->out;
    cli->out.no_xdmf = cli->no_xdmf;
    cli->out.xdmf_columns = cli->xdmf_columns;
    for (int p = 0; cli->output && !cli->no_xdmf && p < EP_XDMF_NPARTS; p++) { /* the sidecars' names, too */
        char side[4096];
        ep_output o;
        if ((st = ep_xdmf_name(cli->output, p, side, sizeof side)) || (st = ep_output_check_sidecar(&o, side)))
            return st;
    }
    for (int i = 0; cli->output && i < cli->ninputs; i++)
        if ((st = same_file(cli->inputs[i], cli->output)))
            return st;
    if ((st = threads_fit(cli)))
        return st;
    /* the library's long loops (ep_progress_report): their progress after a
     * few seconds, and with -v a line when each starts and one with its time */
    static ep_progress_stages loops;
    ep_progress_stages_init(&loops, tool->name, cli->quiet, cli->verbose ? 2 : 0);
    ep_progress_hook(ep_progress_stage, &loops);
    auto_stage(cli, "read");
    return EP_OK;
}

void ep_cli_parse_or_exit(ep_cli *cli, const ep_tool *tool, int argc, char **argv)
{
    int st = ep_cli_parse(cli, tool, argc, argv);
    if (st || cli->done)
        ep_cli_exit(st);
}

int ep_cli_output_is(const ep_cli *cli, const char *ext)
{
    size_t n = cli->output ? strlen(cli->output) : 0, e = strlen(ext);
    return n >= e && !strcmp(cli->output + n - e, ext);
}

int ep_cli_create_output(ep_cli *cli, int text, const char *kind, const ep_mesh *m, const ep_material *mat,
                         ep_h5 **f)
{
    int st;
    *f = NULL;
    ep_cli_stage(cli, "write");
    if (text)
        return ep_output_create_file(&cli->out);
    if ((st = ep_cli_create_h5(cli, kind, f)) || (st = ep_model_write(*f, m, mat, NULL)))
        return st;
    return EP_OK;
}

int ep_cli_create_h5(ep_cli *cli, const char *kind, ep_h5 **f)
{
    char creator[128];
    int st;
    snprintf(creator, sizeof creator, "%s %s", cli->prog, EP_VERSION);
    *f = NULL;
    auto_stage(cli, "write");
    if ((st = ep_output_create_h5(&cli->out, kind, creator, cli->command)))
        return st;
    *f = &cli->out.h5;
    return EP_OK;
}

/* "E 2e+11" or "E 1e+06..2e+06" over the elements, into out; its length. */
static size_t range(char *out, size_t cap, const char *sep, const char *name, const ep_material *mat,
                    double (*get)(const ep_material *, int))
{
    double lo = INFINITY, hi = -INFINITY;
    int k;
    for (int e = 0; e < (mat->ne ? mat->ne : 1); e++) {
        lo = fmin(lo, get(mat, e));
        hi = fmax(hi, get(mat, e));
    }
    if (isnan(lo) || isinf(lo))
        k = snprintf(out, cap, "%s%s not given", sep, name);
    else if (lo == hi)
        k = snprintf(out, cap, "%s%s %.4g", sep, name, lo);
    else
        k = snprintf(out, cap, "%s%s %.4g..%.4g", sep, name, lo, hi);
    return k < 0 ? 0 : (size_t)k < cap ? (size_t)k : cap ? cap - 1 : 0;
}

void ep_cli_model_summary(ep_cli *cli, const ep_mesh *m, const ep_material *mat)
{
    auto_stage(cli, "compute");
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int v = 0; v < m->nv; v++)
        for (int a = 0; a < 3; a++) {
            lo[a] = fmin(lo[a], m->vertices[3 * v + a]);
            hi[a] = fmax(hi[a], m->vertices[3 * v + a]);
        }
    double size = ep_mesh_diameter(m);
    model_line[0] = '\0';
    if (!cli->quiet && m->nv) {
        size_t n = (size_t)snprintf(model_line, sizeof model_line,
                                    "%s: model: %d vertices, %d %s, bounding box [%.4g, %.4g] x [%.4g, %.4g] x "
                                    "[%.4g, %.4g] (%.4g across)", cli->prog, m->nv,
                                    m->ne ? m->ne : m->nh ? m->nh : m->nf, m->ne ? "tets" : m->nh ? "hexes" : "triangles",
                                    lo[0], hi[0], lo[1], hi[1], lo[2], hi[2], size);
        if (mat) {
            n += range(model_line + n, sizeof model_line - n, "; ", "E", mat, ep_material_E);
            n += range(model_line + n, sizeof model_line - n, ", ", "nu", mat, ep_material_nu);
            n += range(model_line + n, sizeof model_line - n, ", ", "rho", mat, ep_material_rho);
        }
        if (n + 2 < sizeof model_line)
            strcat(model_line, "\n");
    }
    char msg[1024];
    size_t at = 0;
    model_warnings[0] = '\0';
    if (mat && ep_material_plausible(mat, size, m->ne > 0, msg, sizeof msg))
        for (char *line = strtok(msg, "\n"); line && at < sizeof model_warnings; line = strtok(NULL, "\n")) {
            int k = snprintf(model_warnings + at, sizeof model_warnings - at, "%s: warning: %s\n", cli->prog, line);
            at += k > 0 ? (size_t)k : 0;
        }
}

int ep_cli_material(const ep_cli *cli, const ep_mesh *m, double nu_max, ep_material *out)
{
    int st;
    ep_material_init(out);
    if (cli->material_file) {
        if ((st = ep_material_read(out, cli->material_file, ep_mesh_nelements(m), m->region)))
            return st;
        return ep_material_check(out, nu_max, cli->material_file);
    }
    if (!isnan(cli->E) || !isnan(cli->nu)) {
        if (isnan(cli->E) || isnan(cli->nu))
            return ep_fail(EP_EUSAGE, "give both -E and --nu (or -m FILE)");
        out->E = cli->E;
        out->nu = cli->nu;
        out->rho = cli->rho;
        return ep_material_check(out, nu_max, "command line");
    }
    if (m->material) {
        if ((st = ep_material_copy(out, m->material)))
            return st;
        if (!isnan(cli->rho)) /* --rho alone overrides the file's density */
            for (int e = 0; e < (out->ne ? out->ne : 1); e++)
                *(out->ne ? &out->e_rho[e] : &out->rho) = cli->rho;
        return ep_material_check(out, nu_max, m->source);
    }
    return ep_fail(EP_EUSAGE, "no material: give -E and --nu, or -m FILE (%s has none)", m->source);
}

int ep_cli_fixed(const ep_cli *cli, const ep_mesh *m, char **fixed, int *nfixed)
{
    int *ids = NULL, n = 0, st = EP_OK;
    char *mask = ep_calloc((size_t)m->nv, 1);
    if (!mask)
        return EP_ECOMPUTE;
    if (ep_select_given(&cli->fixed)) {
        if ((st = ep_select_apply(&cli->fixed, m, "fixed vertex", &ids, &n)))
            goto out;
    } else if (m->fixed && m->nfixed > 0) {
        ids = m->fixed;
        n = m->nfixed;
    } else {
        st = ep_fail(EP_EUSAGE, "no fixed vertex: give --fixed-ids, --fixed-box or --fixed-region "
                     "(%s has no /constraints/fixed)", m->source);
        goto out;
    }
    for (int i = 0; i < n; i++)
        mask[ids[i]] = 1;
    *fixed = mask;
    *nfixed = n;
    mask = NULL;
out:
    if (ids != m->fixed)
        free(ids);
    free(mask);
    return st;
}

int ep_cli_bytes(const char *opt, const char *arg, double *bytes)
{
    char *e;
    double v = strtod(arg, &e);
    double scale = 1;
    switch (*e) {
    case 'K': case 'k': scale = EP_MEM_KIB; e++; break;
    case 'M': case 'm': scale = EP_MEM_MIB; e++; break;
    case 'G': case 'g': scale = EP_MEM_GIB; e++; break;
    case 'T': case 't': scale = EP_MEM_TIB; e++; break;
    }
    if (*e == 'B' || *e == 'b')
        e++;
    if (e == arg || *e || !(v > 0) || !isfinite(v))
        return ep_fail(EP_EUSAGE, "option %s: expected a size such as 4G or 512M, got \"%s\"", opt, arg);
    *bytes = v * scale;
    return EP_OK;
}

int ep_cli_columns(const ep_cli *cli, const ep_mesh *m, int **cols, int *ncols)
{
    *cols = NULL;
    *ncols = 0;
    return ep_select_given(&cli->columns) ? ep_select_boundary(&cli->columns, m, "column", cols, ncols) : EP_OK;
}

int ep_cli_read_volume(const ep_cli *cli, ep_mesh *m, const char *path)
{
    int st = ep_model_read(m, path);
    if (!st && !ep_mesh_nelements(m))
        st = ep_fail(EP_EINPUT, "%s: not a volumetric mesh (%s needs tets or hexes)", m->source, cli->prog);
    return st;
}

int ep_cli_read_closed_surface(const ep_cli *cli, ep_mesh *m, const char *path)
{
    ep_repair_report r;
    char line[512];
    int st;
    ep_repair_report_init(&r);
    if (!(st = ep_model_read(m, path)) && !(st = ep_repair_closed_surface(m, &r)) && !cli->quiet && r.log) {
        ep_repair_summary(&r, line, sizeof line);
        printf("%s: %s: clean-up: %s\n", cli->prog, path, line);
        for (const char *p = r.log; cli->verbose && *p;) {
            const char *e = strchr(p, '\n');
            printf("%s:   %.*s\n", cli->prog, (int)(e - p), p);
            p = e + 1;
        }
    }
    ep_repair_report_free(&r);
    return st;
}

int ep_cli_body_density(const ep_material *mat, int want, const char *source)
{
    if (want && !ep_material_has_density(mat))
        return ep_fail(EP_EINPUT, "%s: --body-force needs a density (give --rho, or a material file or "
                       "model with rho)", source);
    return EP_OK;
}

int ep_cli_interior_surface(const ep_mesh *m, const char *path, double **p, int *np)
{
    ep_closest c = {0};
    ep_winding w = {0};
    int st = ep_points_read(path, p, np);
    if (st || (st = ep_closest_build(&c, m)) || (st = ep_winding_build(&w, &c)))
        goto out;
    int first = *np; /* the first point outside, by the tree's winding numbers (O(log F) a point) */
    const double *x = *p;
#pragma omp parallel for schedule(dynamic, 64) reduction(min : first)
    for (int k = 0; k < *np; k++)
        if (!(fabs(ep_winding_eval(&w, x + 3 * (size_t)k)) >= 0.5) && k < first)
            first = k;
    if (first < *np)
        st = ep_fail(EP_EINPUT, "%s: interior point %d (%g, %g, %g) lies outside the body %s", path, first + 1,
                     x[3 * (size_t)first], x[3 * (size_t)first + 1], x[3 * (size_t)first + 2], m->source);
out:
    ep_winding_free(&w);
    ep_closest_free(&c);
    return st;
}

int ep_cli_interior(const ep_mesh *m, const char *path, double **p, int *np, int **tet, double **w)
{
    ep_embed b = {0};
    int st;
    *p = *w = NULL;
    *tet = NULL;
    if (!m->ne || m->nh)
        return ep_fail(EP_EINPUT, "%s: --interior needs a tet mesh", m->source);
    if ((st = ep_points_read(path, p, np)))
        return st;
    if ((st = ep_embed_build(&b, m->vertices, m->nv, m->tets, m->ne, 4, *p, *np, 1e-9 * ep_mesh_diameter(m)))) {
        char why[EP_ERRMSG_MAX]; /* ep_fail writes the buffer ep_errmsg() reads */
        snprintf(why, sizeof why, "%s", ep_errmsg());
        ep_embed_free(&b);
        return st == EP_EINPUT ? ep_fail(EP_EINPUT, "%s: a point lies outside the body %s (%s)", path, m->source, why)
                               : st;
    }
    *tet = ep_malloc((size_t)*np, sizeof **tet);
    *w = ep_malloc(4 * (size_t)*np, sizeof **w);
    for (int k = 0; *tet && *w && k < *np; k++) { /* the weights in the tet's own vertex order */
        int e = (*tet)[k] = b.element[k];
        for (int t = 0; t < 4; t++)
            for (int u = 0; u < 4; u++)
                if (b.col[4 * (size_t)k + u] == m->tets[4 * (size_t)e + t])
                    (*w)[4 * (size_t)k + t] = b.w[4 * (size_t)k + u];
    }
    ep_embed_free(&b);
    return *tet && *w ? EP_OK : EP_ECOMPUTE;
}

/* ---- -v: the stages, the resources, the files ------------------------------------- */

void ep_cli_stage(ep_cli *cli, const char *name)
{
    double now = ep_now(), cpu = cpu_seconds();
    int k = 0;
    while (k < cli->nstages && strcmp(cli->stage[k].name, name))
        k++;
    if (k == cli->stage_cur)
        return;
    if (cli->stage_cur >= 0) {
        cli->stage[cli->stage_cur].wall += now - cli->stage_t0;
        cli->stage[cli->stage_cur].cpu += cpu - cli->stage_cpu0;
    }
    if (k == cli->nstages && k < EP_CLI_STAGES) {
        cli->stage[k].name = name;
        cli->stage[k].wall = cli->stage[k].cpu = 0;
        cli->nstages++;
    }
    cli->stage_cur = k < cli->nstages ? k : cli->nstages - 1; /* a full table: the last goes on */
    cli->stage_t0 = now;
    cli->stage_cpu0 = cpu;
}

void ep_cli_verbose(const ep_cli *cli, const char *fmt, ...)
{
    va_list ap;
    if (!cli->verbose)
        return;
    fprintf(stderr, "%s: ", cli->prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* One dataset of the output, for the report. */
static void report_dataset(void *ctx, const ep_h5_info *d)
{
    char shape[160] = "";
    size_t n = 0;
    for (int i = 0; i < d->rank && n < sizeof shape; i++)
        n += (size_t)snprintf(shape + n, sizeof shape - n, "[%llu]", (unsigned long long)d->dims[i]);
    fprintf(stderr, "%s:   %s %s %s %s\n", (const char *)ctx, d->name, d->type, d->rank ? shape : "scalar",
            ep_mem_text(d->bytes));
}

static void count_dataset(void *ctx, const ep_h5_info *d)
{
    (void)d;
    ++*(int *)ctx;
}

/* The files of the run: the size of each file the command line names
 * (an input, or an option's file such as --fixed-ids), the output's size
 * and, for an elastoprep HDF5 file, its datasets; its XDMF sidecar when
 * this run wrote it. */
static void report_files(const ep_cli *cli)
{
    struct stat st;
    for (int i = 1; i < cli->argc; i++) {
        const char *a = cli->argv[i];
        if (a[0] != '-' && (!cli->output || strcmp(a, cli->output)) && !stat(a, &st) && S_ISREG(st.st_mode))
            fprintf(stderr, "%s: input %s: %s\n", cli->prog, a, ep_mem_text((double)st.st_size));
    }
    if (!cli->output || cli->out.tmp[0] || stat(cli->output, &st) || !S_ISREG(st.st_mode))
        return;
    ep_h5 f = {0};
    int n = 0;
    if (ep_h5_open(&f, cli->output, NULL) || ep_h5_walk(&f, count_dataset, &n)) {
        fprintf(stderr, "%s: output %s: %s\n", cli->prog, cli->output, ep_mem_text((double)st.st_size));
    } else {
        fprintf(stderr, "%s: output %s: %s, kind %s, %d dataset%s\n", cli->prog, cli->output,
                ep_mem_text((double)st.st_size), f.kind, n, n == 1 ? "" : "s");
        ep_h5_walk(&f, report_dataset, (void *)cli->prog);
    }
    ep_h5_close(&f);
    char side[4096];
    for (int p = 0; !cli->no_xdmf && p < EP_XDMF_NPARTS; p++)
        if (!ep_xdmf_name(cli->output, p, side, sizeof side) && !stat(side, &st) &&
            (double)st.st_mtime >= floor(cli->t0) - 1)
            fprintf(stderr, "%s: output %s: %s (XDMF sidecar)\n", cli->prog, side, ep_mem_text((double)st.st_size));
}

static void verbose_report(ep_cli *cli)
{
    char line[1024];
    size_t n = 0;
    ep_cli_stage(cli, "(end)"); /* closes the running stage */
    for (int k = 0; k < cli->nstages && n < sizeof line; k++)
        if (strcmp(cli->stage[k].name, "(end)"))
            n += (size_t)snprintf(line + n, sizeof line - n, "%s%s %.3g s (CPU %.3g s)", n ? ", " : "",
                                  cli->stage[k].name, cli->stage[k].wall, cli->stage[k].cpu);
    fprintf(stderr, "%s: stages: %s\n", cli->prog, line);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    fprintf(stderr, "%s: run: %.3g s wall, %.3g s CPU (user %.3g, system %.3g) on %d thread%s; peak resident "
            "memory %s\n", cli->prog, ep_now() - cli->t0, cpu_seconds(),
            (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec,
            (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec, omp_get_max_threads(),
            omp_get_max_threads() == 1 ? "" : "s", ep_mem_text(ep_mem_peak()));
    report_files(cli);
}
