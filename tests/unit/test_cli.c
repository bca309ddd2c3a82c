/*
 * test_cli.c — common option parsing, atomic output, and a thread team's
 * first failure (err.h).
 */
#include "helpers.h"

#include <math.h>
#include <omp.h>
#include <sys/stat.h>

#include "cli.h"

typedef struct {
    long levels;
    const char *flag;
} ctx;

static int parse(ctx *c, ep_cli *cli, unsigned common, int argc, const char **argv)
{
    const ep_cli_opt opts[] = {
        {"levels", 'l', EP_CLI_INT, &c->levels, 0, 9, .arg = "L", .help = "levels"},
        {"flag", 0, EP_CLI_STRING, &c->flag, .arg = "X", .help = "a string"},
        {0}};
    ep_tool t = {.name = "tool", .synopsis = "IN -o OUT", .purpose = "test", .common = common, .options = opts,
                 .min_inputs = 1, .max_inputs = 1, .need_output = 1};
    return ep_cli_parse(cli, &t, argc, (char **)argv);
}

static void common_options(void **s)
{
    (void)s;
    ctx c = {0};
    ep_cli cli;
    const char *argv[] = {"tool", "in.msh", "-l", "3", "--flag", "x", "-E", "1e6", "--nu", "0.3",
                          "--fixed-box", "0,0,0,1,1,0", "--fixed-region", "bottom", "-j", "1", "-q", "-o", "out.h5"};
    assert_int_equal(parse(&c, &cli, EP_CLI_MATERIAL | EP_CLI_FIXED, 19, argv), EP_OK);
    assert_int_equal(c.levels, 3);
    assert_string_equal(c.flag, "x");
    assert_true(cli.E == 1e6 && cli.nu == 0.3 && isnan(cli.rho));
    assert_true(cli.fixed.has_box && cli.fixed.box[5] == 0);
    assert_string_equal(cli.fixed.region, "bottom");
    assert_int_equal(cli.threads, 1);
    assert_int_equal(cli.quiet, 1);
    assert_string_equal(cli.output, "out.h5");
    assert_int_equal(cli.ninputs, 1);
    assert_string_equal(cli.inputs[0], "in.msh");
    assert_non_null(strstr(cli.command, "tool in.msh -l 3"));
}

static void usage_errors(void **s)
{
    (void)s;
    ctx c = {0};
    ep_cli cli;
    const char *a1[] = {"tool", "in", "--bogus", "-o", "x"};
    expect_error(parse(&c, &cli, 0, 5, a1), EP_EUSAGE, "unknown option --bogus", NULL);
    const char *a2[] = {"tool", "in", "-E", "1e6", "-o", "x"}; /* material options not accepted */
    expect_error(parse(&c, &cli, 0, 6, a2), EP_EUSAGE, "unknown option -E", NULL);
    const char *a3[] = {"tool", "in", "-l", "10", "-o", "x"};
    expect_error(parse(&c, &cli, 0, 6, a3), EP_EUSAGE, "--levels: 10 out of range [0, 9]", NULL);
    const char *a4[] = {"tool", "in", "-l", "three", "-o", "x"};
    expect_error(parse(&c, &cli, 0, 6, a4), EP_EUSAGE, "--levels: expected an integer", NULL);
    const char *a5[] = {"tool", "in"};
    expect_error(parse(&c, &cli, 0, 2, a5), EP_EUSAGE, "no output file", NULL);
    const char *a6[] = {"tool", "-o", "x"};
    expect_error(parse(&c, &cli, 0, 3, a6), EP_EUSAGE, "missing input file", NULL);
    const char *a7[] = {"tool", "in", "-o"};
    expect_error(parse(&c, &cli, 0, 3, a7), EP_EUSAGE, "needs an argument", NULL);
    const char *a8[] = {"tool", "in", "--nu", "abc", "-o", "x"};
    expect_error(parse(&c, &cli, EP_CLI_MATERIAL, 6, a8), EP_EUSAGE, "--nu: expected a number", NULL);
    const char *a9[] = {"tool", "a", "b", "-o", "x"};
    expect_error(parse(&c, &cli, 0, 5, a9), EP_EUSAGE, "too many input files: b", NULL);
}

/* The temporary file lives beside the target, becomes the target on commit,
 * and disappears on abort. */
static void atomic_output(void **s)
{
    (void)s;
    ep_output o;
    const char *target = scratch("out.dat");
    assert_int_equal(ep_output_check(&o, target), EP_OK);
    assert_int_equal(ep_output_create_file(&o), EP_OK);
    const char *tmp = o.tmp;
    assert_non_null(strstr(tmp, "/.out.dat."));
    assert_int_equal(access(tmp, F_OK), 0);
    assert_int_not_equal(access(target, F_OK), 0);
    fputs("data\n", o.fp);
    char kept[4096];
    snprintf(kept, sizeof kept, "%s", tmp);
    assert_int_equal(ep_output_commit(&o), EP_OK);
    assert_int_equal(access(target, F_OK), 0);
    assert_int_not_equal(access(kept, F_OK), 0);
    struct stat st;
    stat(target, &st);
    assert_true(st.st_mode & S_IRUSR);

    const char *other = scratch("other.dat");
    assert_int_equal(ep_output_check(&o, other), EP_OK);
    assert_int_equal(ep_output_reserve(&o), EP_OK);
    snprintf(kept, sizeof kept, "%s", o.tmp);
    ep_output_abort_all();
    assert_int_not_equal(access(kept, F_OK), 0);
    assert_int_not_equal(access(other, F_OK), 0);

    expect_error(ep_output_check(&o, "/nonexistent-dir/x.h5"), EP_EIO,
                 "/nonexistent-dir/x.h5: cannot create a file in its folder", NULL);
}

/* A team's first failure (err.h): recorded once with its worker's own
 * message, which the reporting thread could not read, and reported there
 * with that worker's status; no failure reports 0. */
static void team_errors(void **s)
{
    (void)s;
    ep_team_error e = {0};
    assert_int_equal(ep_team_status(&e), EP_OK);
    int failures = 0;
#pragma omp parallel num_threads(4) reduction(+ : failures)
    {
        int t = omp_get_thread_num();
        if (t > 0) {
            ep_team_fail(&e, ep_fail(t % 2 ? EP_EINPUT : EP_ECOMPUTE, "worker %d failed", t));
            failures++;
        }
    }
    if (!failures)
        skip(); /* one thread only: nobody failed */
    ep_fail(EP_EIO, "the reporting thread's own message");
    int t = 0, st = ep_team_status(&e);
    assert_int_equal(sscanf(ep_errmsg(), "worker %d failed", &t), 1);
    assert_int_equal(st, t % 2 ? EP_EINPUT : EP_ECOMPUTE);
    ep_team_fail(&e, EP_EIO); /* a later failure changes nothing */
    assert_int_equal(ep_team_status(&e), st);
}

EP_TEST_MAIN("cli", cmocka_unit_test(common_options), cmocka_unit_test(usage_errors),
             cmocka_unit_test(atomic_output), cmocka_unit_test(team_errors))
