/*
 * test_output.c — the output lifecycle (output.h): targets checked, the
 * temporary beside the target, commit and abort, cleanup on every catchable
 * signal (a crash included) and on a file-size limit.  Children are forked
 * for what ends a process; the parent checks what they left.
 */
#include "helpers.h"

#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "output.h"

/* A fresh, empty folder name inside the scratch folder. */
static const char *fresh_dir(const char *name)
{
    const char *d = scratch(name);
    mkdir(d, 0755);
    return d;
}

/* Number of entries of folder d (dot files included). */
static int entries(const char *d)
{
    DIR *dir = opendir(d);
    struct dirent *e;
    int n = 0;
    assert_non_null(dir);
    while ((e = readdir(dir)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(dir);
    return n;
}

static void targets(void **s)
{
    (void)s;
    ep_output o;
    const char *d = fresh_dir("targets");
    char fifo[600], path[600];
    expect_error(ep_output_check(&o, "/dev/null"), EP_EIO, "/dev/null: is a character device", NULL);
    expect_error(ep_output_check(&o, d), EP_EIO, "is a directory", NULL);
    snprintf(fifo, sizeof fifo, "%s/fifo", d);
    assert_int_equal(mkfifo(fifo, 0644), 0);
    expect_error(ep_output_check(&o, fifo), EP_EIO, "fifo: is a FIFO", NULL);
    snprintf(path, sizeof path, "%s/none/x.h5", d);
    expect_error(ep_output_check(&o, path), EP_EIO, "cannot create a file in its folder", NULL);
    expect_error(ep_output_check(&o, ""), EP_EIO, "empty output file name", NULL);
    /* a loop of links */
    snprintf(path, sizeof path, "%s/loop", d);
    assert_int_equal(symlink("loop", path), 0);
    expect_error(ep_output_check(&o, path), EP_EIO, "symbolic link", NULL);
    /* a bare name is a file in the current folder */
    assert_int_equal(ep_output_check(&o, "x.h5"), EP_OK);
    assert_string_equal(o.path, "x.h5");
}

/* A link is followed: the file it names is replaced, the link stays. */
static void symlink_followed(void **s)
{
    (void)s;
    ep_output o;
    const char *real = fresh_dir("real"), *links = fresh_dir("links");
    char target[600], link[600];
    snprintf(target, sizeof target, "%s/t.txt", real);
    snprintf(link, sizeof link, "%s/l.txt", links);
    FILE *f = fopen(target, "w");
    fputs("old\n", f);
    fclose(f);
    assert_int_equal(symlink(target, link), 0);
    assert_int_equal(ep_output_check(&o, link), EP_OK);
    assert_string_equal(o.path, target);
    assert_int_equal(ep_output_create_file(&o), EP_OK);
    assert_non_null(strstr(o.tmp, "/real/.t.txt."));
    fputs("new\n", o.fp);
    assert_int_equal(ep_output_commit(&o), EP_OK);
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    char buf[16] = "";
    f = fopen(target, "r");
    assert_non_null(fgets(buf, sizeof buf, f));
    fclose(f);
    assert_string_equal(buf, "new\n");
    assert_int_equal(entries(real), 1);
}

/* Abort is safe on a zeroed output, after a commit and twice; a commit with
 * nothing written is an error. */
static void abort_rules(void **s)
{
    (void)s;
    ep_output o, z;
    memset(&z, 0, sizeof z);
    ep_output_abort(&z);
    ep_output_abort(&z);
    const char *d = fresh_dir("abort");
    char path[600];
    snprintf(path, sizeof path, "%s/a.h5", d);
    assert_int_equal(ep_output_check(&o, path), EP_OK);
    expect_error(ep_output_commit(&o), EP_EIO, "nothing was written", NULL);
    assert_int_equal(ep_output_create_h5(&o, "mesh", "test", "test"), EP_OK);
    assert_int_equal(entries(d), 1);
    ep_output_abort(&o);
    ep_output_abort(&o);
    assert_int_equal(entries(d), 0);
    assert_int_equal(ep_output_check(&o, path), EP_OK);
    assert_int_equal(ep_output_create_h5(&o, "mesh", "test", "test"), EP_OK);
    assert_int_equal(ep_output_commit(&o), EP_OK);
    ep_output_abort(&o); /* after a commit: the output stays */
    assert_int_equal(access(path, F_OK), 0);
    assert_int_equal(entries(d), 1);
}

/* A child opens an HDF5 output and a plain one, then receives sig (raised:
 * the same delivery a kill gives).  It must die by sig with nothing left.
 * (SIGSEGV, SIGBUS, SIGFPE and SIGILL are cmocka's in this program, which the
 * handler passes them on to: tests/cli/output.sh sends those to a tool.) */
static void signals(void **s)
{
    (void)s;
    const int sigs[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU, SIGABRT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        char name[32], a[600], b[600];
        snprintf(name, sizeof name, "sig%d", sigs[i]);
        const char *d = fresh_dir(name);
        snprintf(a, sizeof a, "%s/a.h5", d);
        snprintf(b, sizeof b, "%s/b.obj", d);
        fflush(NULL);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            ep_output x, y;
            if (ep_output_check(&x, a) || ep_output_create_h5(&x, "mesh", "test", "test") || ep_output_check(&y, b) ||
                ep_output_create_file(&y))
                _exit(90);
            fputs("v 0 0 0\n", y.fp);
            fflush(y.fp);
            raise(sigs[i]);
            _exit(91); /* not reached: the signal ends the process */
        }
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        if (!WIFSIGNALED(status) || WTERMSIG(status) != sigs[i])
            fail_msg("signal %d: child status %#x", sigs[i], status);
        if (entries(d) != 0)
            fail_msg("signal %d: %d files left in %s", sigs[i], entries(d), d);
    }
}

/* A file-size limit: the write fails (EFBIG, the signal ignored), commit is
 * EP_EIO naming the output, nothing is left, and the process exits normally
 * (libhdf5 1.10's exit handler crashed on the file whose close failed). */
static void file_size_limit(void **s)
{
    (void)s;
    const char *d = fresh_dir("efbig");
    char path[600];
    snprintf(path, sizeof path, "%s/big.h5", d);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct rlimit rl = {65536, 65536};
        ep_output o;
        hsize_t n = 1 << 18;
        double *x = calloc(n, sizeof *x);
        if (!x || setrlimit(RLIMIT_FSIZE, &rl) || ep_output_check(&o, path) ||
            ep_output_create_h5(&o, "mesh", "test", "test")) {
            fprintf(stderr, "setup: %s\n", ep_errmsg());
            _exit(90);
        }
        int st = ep_h5_write(&o.h5, "/x", EP_F64, 1, &n, x);
        st = st ? st : ep_output_commit(&o);
        if (st != EP_EIO || !strstr(ep_errmsg(), "big.h5")) {
            fprintf(stderr, "status %d: %s\n", st, ep_errmsg());
            _exit(91);
        }
        ep_output_abort_all();
        scratch_dir[0] = '\0'; /* the scratch folder is the parent's to remove */
        exit(st);              /* through the exit handlers */
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != EP_EIO)
        fail_msg("child status %#x (exit %d), expected exit %d", status, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                 EP_EIO);
    assert_int_equal(entries(d), 0);
}

int main(void)
{
    /* Under nohup SIGHUP arrives ignored, and the output layer keeps a signal
     * its process ignores (as nohup intends): the signals test needs it at
     * its default before the first output installs the handlers. */
    signal(SIGHUP, SIG_DFL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(targets),
        cmocka_unit_test(symlink_followed),
        cmocka_unit_test(abort_rules),
        cmocka_unit_test(signals),
        cmocka_unit_test(file_size_limit),
    };
    return cmocka_run_group_tests_name("output", tests, NULL, NULL);
}
