/*
 * cli.c — option parsing, error exit, atomic output and progress (cli.h).
 */
#define _GNU_SOURCE
#include "cli.h"
#include "err.h"

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

static const char *progname = "elastoprep";

/* ---- atomic output ------------------------------------------------------ */

#define MAX_OUT 8
static char pending[MAX_OUT][4096]; /* "" when free; written before the handler can see it */
static volatile sig_atomic_t handlers_set;

void ep_out_abort(void)
{
    for (int i = 0; i < MAX_OUT; i++)
        if (pending[i][0]) {
            unlink(pending[i]);
            pending[i][0] = '\0';
        }
}

static void on_signal(int sig)
{
    for (int i = 0; i < MAX_OUT; i++) /* unlink is async-signal-safe */
        if (pending[i][0])
            unlink(pending[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_cleanup(void)
{
    if (handlers_set)
        return;
    handlers_set = 1;
    atexit(ep_out_abort);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

int ep_out_begin(const char *path, char *tmp, size_t cap)
{
    const char *slash = strrchr(path, '/');
    int slot = -1;
    for (int i = 0; i < MAX_OUT && slot < 0; i++)
        if (!pending[i][0])
            slot = i;
    if (slot < 0)
        return ep_fail(EP_EIO, "%s: too many open outputs", path);
    int n = slash ? snprintf(tmp, cap, "%.*s/.%s.XXXXXX", (int)(slash - path), path, slash + 1)
                  : snprintf(tmp, cap, ".%s.XXXXXX", path);
    if (n < 0 || (size_t)n >= cap || (size_t)n >= sizeof pending[0])
        return ep_fail(EP_EIO, "%s: output name too long", path);
    install_cleanup();
    int fd = mkstemp(tmp);
    if (fd < 0)
        return ep_fail(EP_EIO, "%s: cannot create a file in its folder: %s", path, strerror(errno));
    close(fd);
    memcpy(pending[slot], tmp, (size_t)n + 1);
    return EP_OK;
}

int ep_out_commit(const char *tmp, const char *path)
{
    mode_t mask = umask(0);
    umask(mask);
    chmod(tmp, 0666 & ~mask);
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return ep_fail(EP_EIO, "%s: cannot write: %s", path, strerror(e));
    }
    for (int i = 0; i < MAX_OUT; i++)
        if (!strcmp(pending[i], tmp))
            pending[i][0] = '\0';
    return EP_OK;
}

_Noreturn void ep_cli_exit(int status)
{
    if (status != EP_OK)
        fprintf(stderr, "%s: %s\n", progname, *ep_errmsg() ? ep_errmsg() : "failed");
    ep_out_abort();
    fflush(stdout);
    exit(status);
}

/* ---- option parsing --------------------------------------------------------- */

enum {
    OPT_NU = 1000, OPT_RHO, OPT_FIXED_IDS, OPT_FIXED_BOX, OPT_FIXED_REGION
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

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static void usage(const ep_tool *t)
{
    printf("Usage: %s %s\n%s\n\n", t->name, t->synopsis, t->purpose);
    if (t->help && *t->help)
        printf("Options:\n%s", t->help);
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
    if (e == arg || *e || errno || !isfinite(*v))
        return ep_fail(EP_EUSAGE, "option %s: expected a number, got \"%s\"", opt, arg);
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
    case OPT_FIXED_BOX: return ep_vsel_parse_box(&cli->fixed, "--fixed-box", arg);
    case OPT_FIXED_REGION: cli->fixed.region = arg; return EP_OK;
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

int ep_cli_parse(const ep_tool *tool, int argc, char **argv, ep_cli *cli)
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
            return -1;
        }
        if (c == 'V') {
            printf("%s (elastoprep) %s\n", tool->name, EP_VERSION);
            return -1;
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
    if (cli->threads)
        omp_set_num_threads(cli->threads);
    return EP_OK;
}

void ep_cli_parse_or_exit(const ep_tool *tool, int argc, char **argv, ep_cli *cli)
{
    int st = ep_cli_parse(tool, argc, argv, cli);
    if (st < 0)
        exit(EP_OK);
    if (st)
        ep_cli_exit(st);
}

/* ---- progress -------------------------------------------------------------- */

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
    if (p->tty) {
        int w = 30, k = (int)(frac * w);
        fprintf(stderr, "\r%s: [%.*s%*s] %3.0f%%  %.0fs", p->label, k,
                "##############################", w - k, "", 100 * frac, now - p->t0);
    } else {
        fprintf(stderr, "%s: %ld/%ld (%.0f%%) after %.0f s\n", progname, done, p->total,
                100 * frac, now - p->t0);
    }
    fflush(stderr);
}

void ep_progress_end(ep_progress *p)
{
    if (!p->quiet && p->tty && p->last > p->t0)
        fprintf(stderr, "\r%*s\r", 60, "");
}

double ep_peak_rss(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? 1024.0 * (double)ru.ru_maxrss : 0.0;
}

int ep_out_check_space(const char *out, double bytes)
{
    char dir[4096];
    const char *slash = strrchr(out, '/');
    struct statvfs sv;
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - out) : 1, slash ? out : ".");
    if (statvfs(dir[0] ? dir : "/", &sv) == 0) {
        double avail = (double)sv.f_bavail * (double)sv.f_frsize;
        if (bytes > avail)
            return ep_fail(EP_ECOMPUTE, "the output needs about %.2f GiB, %s has %.2f GiB free",
                           bytes / 1073741824.0, dir[0] ? dir : "/", avail / 1073741824.0);
    }
    return EP_OK;
}

double ep_mem_limit(double limit)
{
    return limit > 0 ? limit : 0.9 * ep_mem_total();
}

double ep_mem_total(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && size > 0 ? (double)pages * (double)size : 0.0;
}

int ep_cli_material(const ep_cli *cli, const ep_mesh *m, double nu_max, ep_material *out)
{
    int st;
    ep_material_init(out);
    if (cli->material_file) {
        if ((st = ep_material_read(cli->material_file, m->ne, m->region, out)))
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
    if (ep_vsel_given(&cli->fixed)) {
        if ((st = ep_vsel_apply(m, &cli->fixed, "fixed vertex", &ids, &n)))
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
    case 'K': case 'k': scale = 1024.0; e++; break;
    case 'M': case 'm': scale = 1048576.0; e++; break;
    case 'G': case 'g': scale = 1073741824.0; e++; break;
    case 'T': case 't': scale = 1099511627776.0; e++; break;
    }
    if (*e == 'B' || *e == 'b')
        e++;
    if (e == arg || *e || !(v > 0) || !isfinite(v))
        return ep_fail(EP_EUSAGE, "option %s: expected a size such as 4G or 512M, got \"%s\"", opt, arg);
    *bytes = v * scale;
    return EP_OK;
}
