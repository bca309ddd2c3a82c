/*
 * sweep.c — gfcompress's threshold sweep: the list, the table, the plot
 * (sweep.h).
 */
#include "sweep.h"
#include "cli.h"
#include "err.h"
#include "gfform.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { MAX_LIST = EP_GFSINK_MAX_EPS - 1 };

int ep_sweep_parse(void *ctx, const char *opt, const char *arg)
{
    ep_sweep *w = ctx;
    char buf[1024], *save, *tok;
    if (strlen(arg) >= sizeof buf) /* it was cut there silently (issue 22, class 13) */
        return ep_fail(EP_EUSAGE, "option %s: the list is longer than %zu characters", opt, sizeof buf - 1);
    snprintf(buf, sizeof buf, "%s", arg);
    w->n = 0;
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        double e;
        if (w->n == MAX_LIST || ep_cli_double(opt, tok, &e) || !(e >= 0 && e <= EP_GFFORM_MAX_EPS))
            return ep_fail(EP_EUSAGE, "option %s: expected up to %d thresholds >= 0, got \"%s\"", opt, MAX_LIST,
                           arg);
        w->eps[w->n++] = e;
    }
    return w->n ? EP_OK : ep_fail(EP_EUSAGE, "option %s: no threshold given", opt);
}

static double ratio(double a, double b) { return b > 0 ? a / b : 0; }

void ep_sweep_print(FILE *f, const double *eps, int ne, const ep_gfzip_tally *tl, const long dense[2])
{
    fprintf(f, "# eps rms_error max_error kept_blocks compression rms_free max_free compression_free\n");
    for (int e = 0; e < ne; e++) {
        const ep_gfzip_tally *t = &tl[e];
        fprintf(f, "%g %.6g %.6g %ld %.6g %.6g %.6g %.6g\n", eps[e], ep_gfzip_rms(t), t->maxrel, ep_gfzip_kept(t),
                ratio(dense[0] + dense[1], ep_gfzip_kept(t)), sqrt(ratio(t->err2[0], t->ref2[0])), t->maxrel_free,
                ratio(dense[0], t->nnz[0]));
    }
}

/* The drawing script into path[cap] (ep_sweep_plot says where it looks):
 * 0, or -1 when none is executable. */
static int find_script(char *path, size_t cap, const char *source_dir)
{
    char exe[4096];
    const char *env = getenv("ELASTOPREP_SCRIPTS");
    if (env) {
        snprintf(path, cap, "%s/gfplot", env);
        return access(path, X_OK) ? -1 : 0;
    }
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k <= 0)
        return -1;
    exe[k] = '\0';
    const char *dir = dirname(exe);
    const char *where[] = {"../scripts/gfplot", "../share/elastoprep/gfplot"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, cap, "%s/%s", dir, where[i]);
        if (!access(path, X_OK))
            return 0;
    }
    if (!source_dir)
        return -1;
    snprintf(path, cap, "%s/gfplot", source_dir);
    return access(path, X_OK) ? -1 : 0;
}

int ep_sweep_plot(const char *png, const char *name, const double *eps, int ne, const ep_gfzip_tally *tl,
                  const long dense[2], const char *label, const char *source_dir)
{
    char script[4096];
    int fd[2], status;
    if (find_script(script, sizeof script, source_dir))
        return ep_fail(EP_EIO, "--plot: cannot find the gfplot script (set ELASTOPREP_SCRIPTS)");
    if (pipe(fd))
        return ep_fail(EP_EIO, "--plot: cannot run %s: %s", script, strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]), close(fd[1]);
        return ep_fail(EP_EIO, "--plot: cannot run %s: %s", script, strerror(errno));
    }
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(fd[0], 0);
        if (null >= 0)
            dup2(null, 1), dup2(null, 2);
        close(fd[0]), close(fd[1]);
        execl(script, script, png, label, (char *)NULL);
        _exit(127);
    }
    close(fd[0]);
    FILE *p = fdopen(fd[1], "w");
    if (p) {
        void (*old)(int) = signal(SIGPIPE, SIG_IGN); /* a script that exits early closes the pipe */
        ep_sweep_print(p, eps, ne, tl, dense);
        fclose(p);
        signal(SIGPIPE, old);
    } else
        close(fd[1]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!p || !WIFEXITED(status) || WEXITSTATUS(status))
        return ep_fail(EP_EIO, "--plot %s: %s failed (it needs /usr/bin/python3 with matplotlib; "
                       "run it by hand to see why)", name, script);
    return EP_OK;
}
