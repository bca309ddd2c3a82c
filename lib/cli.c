/*
 * cli.c — option parsing, the model of a run from options, the output and
 * the error exit (cli.h).
 */
#define _GNU_SOURCE
#include "cli.h"
#include "err.h"
#include "mem.h"
#include "model.h"
#include "repair.h"

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static const char *progname = "elastoprep";

_Noreturn void ep_cli_exit(int status)
{
    if (status != EP_OK)
        fprintf(stderr, "%s: %s\n", progname, *ep_errmsg() ? ep_errmsg() : "failed");
    ep_output_abort_all();
    fflush(stdout);
    exit(status);
}

/* ---- option parsing --------------------------------------------------------- */

enum {
    OPT_NU = 1000, OPT_RHO, OPT_FIXED_IDS, OPT_FIXED_BOX, OPT_FIXED_REGION,
    OPT_COLUMNS, OPT_COL_IDS, OPT_COL_BOX, OPT_COL_REGION
};

static const struct option common_opts[] = {
    {"help", no_argument, NULL, 'h'},       {"version", no_argument, NULL, 'V'},
    {"quiet", no_argument, NULL, 'q'},      {"verbose", no_argument, NULL, 'v'},
    {"threads", required_argument, NULL, 'j'}, {"output", required_argument, NULL, 'o'},
};
static const struct option material_opts[] = {
    {"young", required_argument, NULL, 'E'}, {"nu", required_argument, NULL, OPT_NU},
    {"rho", required_argument, NULL, OPT_RHO}, {"material", required_argument, NULL, 'm'},
};
static const struct option fixed_opts[] = {
    {"fixed-ids", required_argument, NULL, OPT_FIXED_IDS},
    {"fixed-box", required_argument, NULL, OPT_FIXED_BOX},
    {"fixed-region", required_argument, NULL, OPT_FIXED_REGION},
};
static const struct option column_opts[] = {
    {"columns", required_argument, NULL, OPT_COLUMNS},
    {"col-ids", required_argument, NULL, OPT_COL_IDS},
    {"col-box", required_argument, NULL, OPT_COL_BOX},
    {"col-region", required_argument, NULL, OPT_COL_REGION},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static void usage(const ep_tool *t)
{
    printf("Usage: %s %s\n%s\n\n", t->name, t->synopsis, t->purpose);
    printf("Options:\n");
    if (t->common & EP_CLI_COLUMNS)
        printf("      --columns free|all  GF columns: free boundary vertices (default) or all of them\n"
               "      --col-ids FILE      GF columns: these boundary vertices (1-based ids), and/or\n"
               "      --col-box x0,y0,z0,x1,y1,z1\n"
               "                          the boundary vertices in a box, and/or\n"
               "      --col-region TAG    those of a physical group or set\n");
    if (t->help && *t->help)
        printf("%s", t->help);
    if (t->common & EP_CLI_MATERIAL)
        printf("  -E, --young PA          Young's modulus\n"
               "      --nu V              Poisson's ratio\n"
               "      --rho KG_PER_M3     density\n"
               "  -m, --material FILE     per-region materials: lines \"TAG E nu rho\"\n");
    if (t->common & EP_CLI_FIXED)
        printf("      --fixed-ids FILE    fixed vertices, 1-based ids (Vega .bou)\n"
               "      --fixed-box x0,y0,z0,x1,y1,z1\n"
               "                          fixed: the vertices inside the box\n"
               "      --fixed-region TAG  fixed: the vertices of a physical group or set\n");
    printf("  -o, --output FILE       output file\n"
           "  -j, --threads N         threads (default: all cores, %d here)\n"
           "  -q, --quiet             no progress and no summary\n"
           "  -v, --verbose           more detail on stderr\n"
           "  -h, --help              this help\n"
           "  -V, --version           version\n\n"
           "Exit status: 0 ok, 1 computation failed, 2 usage error, 3 invalid input,\n"
           "4 I/O error.  See %s(1).\n", omp_get_num_procs(), t->name);
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

static void record_command(ep_cli *cli, int argc, char **argv)
{
    size_t n = 0;
    cli->command[0] = '\0';
    for (int i = 0; i < argc && n < sizeof cli->command; i++)
        n += (size_t)snprintf(cli->command + n, sizeof cli->command - n, "%s%s", i ? " " : "", argv[i]);
}

static int common_option(int c, const char *arg, ep_cli *cli, const char *optname)
{
    long n;
    switch (c) {
    case 'q': cli->quiet = 1; return EP_OK;
    case 'v': cli->verbose = 1; return EP_OK;
    case 'o': cli->output = arg; return EP_OK;
    case 'j':
        if (ep_cli_int("--threads", arg, 1, 4096, &n))
            return EP_EUSAGE;
        cli->threads = (int)n;
        return EP_OK;
    case 'E': return ep_cli_double("--young", arg, &cli->E);
    case OPT_NU: return ep_cli_double("--nu", arg, &cli->nu);
    case OPT_RHO: return ep_cli_double("--rho", arg, &cli->rho);
    case 'm': cli->material_file = arg; return EP_OK;
    case OPT_FIXED_IDS: cli->fixed.ids_file = arg; return EP_OK;
    case OPT_FIXED_BOX: return ep_select_parse_box(&cli->fixed, "--fixed-box", arg);
    case OPT_FIXED_REGION: cli->fixed.region = arg; return EP_OK;
    case OPT_COLUMNS:
        if (strcmp(arg, "free") && strcmp(arg, "all"))
            return ep_fail(EP_EUSAGE, "option --columns: expected free or all, got \"%s\"", arg);
        cli->all_columns = !strcmp(arg, "all");
        return EP_OK;
    case OPT_COL_IDS: cli->columns.ids_file = arg; return EP_OK;
    case OPT_COL_BOX: return ep_select_parse_box(&cli->columns, "--col-box", arg);
    case OPT_COL_REGION: cli->columns.region = arg; return EP_OK;
    default: return ep_fail(EP_EUSAGE, "unknown option %s", optname);
    }
}

/* Tool option codes are distinct from the common ones (letters not used by
 * the common options, or values from 2000 up). */
static int is_tool_option(const ep_tool *t, int c)
{
    for (const struct option *o = t->options; o && o->name; o++)
        if (o->val == c)
            return 1;
    return 0;
}

int ep_cli_parse(ep_cli *cli, const ep_tool *tool, int argc, char **argv)
{
    struct option opts[64];
    size_t n = 0;
    char shortopts[64];
    memset(cli, 0, sizeof *cli);
    cli->prog = progname = tool->name;
    cli->E = cli->nu = cli->rho = NAN;
    record_command(cli, argc, argv);
#define ADD(arr)                                   \
    for (size_t i = 0; i < COUNT(arr); i++)        \
        opts[n++] = arr[i];
    ADD(common_opts);
    if (tool->common & EP_CLI_MATERIAL)
        ADD(material_opts);
    if (tool->common & EP_CLI_FIXED)
        ADD(fixed_opts);
    if (tool->common & EP_CLI_COLUMNS)
        ADD(column_opts);
#undef ADD
    for (const struct option *o = tool->options; o && o->name && n < COUNT(opts) - 1; o++)
        opts[n++] = *o;
    memset(&opts[n], 0, sizeof opts[n]);
    snprintf(shortopts, sizeof shortopts, ":hVqvj:o:%s%s", tool->common & EP_CLI_MATERIAL ? "E:m:" : "",
             tool->shortopts ? tool->shortopts : "");
    opterr = 0;
    optind = 1;
    int c, st;
    while ((c = getopt_long(argc, argv, shortopts, opts, NULL)) != -1) {
        const char *name = argv[optind - 1];
        if (c == 'h') {
            usage(tool);
            cli->done = 1;
            return EP_OK;
        }
        if (c == 'V') {
            printf("%s (elastoprep) %s\n", tool->name, EP_VERSION);
            cli->done = 1;
            return EP_OK;
        }
        if (c == '?')
            return ep_fail(EP_EUSAGE, "unknown option %s (try --help)",
                           optopt ? (char[]){'-', (char)optopt, 0} : name);
        if (c == ':')
            return ep_fail(EP_EUSAGE, "option %s needs an argument", name);
        st = is_tool_option(tool, c) ? tool->handle(c, optarg, tool->ctx)
                                     : common_option(c, optarg, cli, name);
        if (st)
            return st;
    }
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
    if (cli->threads) {
        /* each thread takes a stack of RLIMIT_STACK bytes (glibc's default):
         * -j 4096 under a memory cap failed in libgomp with two lines of its
         * own (issue 22, class 13) */
        struct rlimit rl;
        double stack = getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY ? (double)rl.rlim_cur
                                                                                         : 8 * EP_MEM_MIB;
        if (cli->threads * stack > ep_mem_limit(0))
            return ep_fail(EP_EUSAGE, "option --threads: %d threads need %s of stacks, more than the memory (%s)",
                           cli->threads, ep_mem_text(cli->threads * stack), ep_mem_text(ep_mem_limit(0)));
        omp_set_num_threads(cli->threads);
    }
    return EP_OK;
}

void ep_cli_parse_or_exit(ep_cli *cli, const ep_tool *tool, int argc, char **argv)
{
    int st = ep_cli_parse(cli, tool, argc, argv);
    if (st || cli->done)
        ep_cli_exit(st);
}

int ep_cli_create_h5(ep_cli *cli, const char *kind, ep_h5 **f)
{
    char creator[128];
    int st;
    snprintf(creator, sizeof creator, "%s %s", cli->prog, EP_VERSION);
    *f = NULL;
    if ((st = ep_output_create_h5(&cli->out, kind, creator, cli->command)))
        return st;
    *f = &cli->out.h5;
    return EP_OK;
}

int ep_cli_material(const ep_cli *cli, const ep_mesh *m, double nu_max, ep_material *out)
{
    int st;
    ep_material_init(out);
    if (cli->material_file) {
        if ((st = ep_material_read(out, cli->material_file, m->ne, m->region)))
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
