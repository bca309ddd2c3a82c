/*
 * epmerge — put the parts of a split run (--part I/N of femcondense,
 * bemsolve, moddesc, polycoef) back together into the file the single run
 * writes, or present them as one through HDF5 virtual datasets.  See
 * epmerge(1).
 */
#include "cli.h"
#include "err.h"
#include "h5.h"
#include "mem.h"
#include "part.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
    int is_virtual;
} opts;

/* The name a virtual dataset records for part path: its name relative to
 * the output's folder when it lies there (the pair can move together),
 * else its absolute path.  0 or EP_EIO. */
static int source_name(const char *path, const char *output, char *name, size_t cap)
{
    char part[PATH_MAX], dir[PATH_MAX], tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", output);
    if (!realpath(path, part) || !realpath(dirname(tmp), dir))
        return ep_fail(EP_EIO, "%s: cannot resolve its path", path);
    size_t n = strlen(dir);
    if (!strncmp(part, dir, n) && part[n] == '/' && !strchr(part + n + 1, '/'))
        snprintf(name, cap, "%s", part + n + 1);
    else
        snprintf(name, cap, "%s", part);
    return EP_OK;
}

/* parse_command_line: the options and --help of cmd/spec/epmerge.json (scripts/toolspec.py). */
#include "epmerge_spec.h"

int main(int argc, char **argv)
{
    opts o = {0};
    ep_cli cli;
    ep_h5 f = {.id = H5I_INVALID_HID};
    ep_part *parts = NULL;
    char **src = NULL;
    int *order = NULL, st = EP_OK, n;
    double t0 = ep_now(), bytes = 0;

    parse_command_line(&cli, &o, argc, argv);
    n = cli.ninputs;

    /* read -> validate: one part open at a time (bounded open files) */
    parts = ep_calloc((size_t)n, sizeof *parts);
    src = ep_calloc((size_t)n, sizeof *src);
    order = ep_calloc((size_t)n, sizeof *order);
    if (!parts || !src || !order) {
        st = EP_ECOMPUTE;
        goto out;
    }
    for (int i = 0; i < n; i++) {
        struct stat sb;
        if ((st = ep_h5_open(&f, cli.inputs[i], NULL)) || (st = ep_part_read(&parts[i], &f)) ||
            (st = ep_h5_close(&f)))
            goto out;
        bytes += stat(cli.inputs[i], &sb) ? 0 : (double)sb.st_size;
        if (!(src[i] = ep_malloc(PATH_MAX, 1))) {
            st = EP_ECOMPUTE;
            goto out;
        }
        if (o.is_virtual ? (st = source_name(cli.inputs[i], cli.output, src[i], PATH_MAX))
                         : (snprintf(src[i], PATH_MAX, "%s", cli.inputs[i]), 0))
            goto out;
    }
    if ((st = ep_part_check_set(parts, (const char *const *)cli.inputs, n, order)))
        goto out;
    if (!o.is_virtual && (st = ep_output_check_space(&cli.out, bytes)))
        goto out;

    /* merge -> write: the parts' kind and creator, this command line */
    ep_cli_stage(&cli, "merge");
    if ((st = ep_output_create_h5(&cli.out, parts[0].kind, parts[0].creator, cli.command)) ||
        (st = ep_part_merge(&cli.out.h5, (const char *const *)cli.inputs, (const char *const *)src, parts, order, n,
                            o.is_virtual)) ||
        (st = ep_output_commit(&cli.out)))
        goto out;
    if (!cli.quiet) {
        double t = ep_now() - t0;
        printf("epmerge: %s: %d parts of %s (%s %ld..%ld), %s%.3g GB of parts in %.2f s (%.2f GB/s)\n", cli.output,
               n, parts[0].creator, parts[0].unit, 0L, parts[0].total, o.is_virtual ? "virtual, mapping " : "",
               bytes / 1e9, t, bytes / 1e9 / (t > 0 ? t : 1e-9));
    }
out:
    ep_h5_close(&f);
    for (int i = 0; src && i < n; i++)
        free(src[i]);
    free(src);
    free(parts);
    free(order);
    ep_cli_exit(st);
}
