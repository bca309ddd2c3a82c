/*
 * test_fuzz_h5.c — the HDF5 fuzz target (tests/fuzz/fuzz_h5.c) run briefly:
 * its fixed corpus (tests/fuzz/h5corpus: every seed kind with each attribute
 * and dataset mutation and some byte flips) and every input that ever
 * failed it (tests/fuzz/regressions/h5-*).  Under make check SANITIZE=1 a
 * crash, leak or UB report in a reader fails the test; in plain builds it
 * checks each input is answered.
 */
#include "helpers.h"

#include <dirent.h>

#include "../fuzz/fuzz_h5.c"

/* Replay the files of folder whose names start with prefix; their count. */
static int replay_dir(const char *folder, const char *prefix)
{
    DIR *d = opendir(folder);
    struct dirent *e;
    int n = 0;
    assert_non_null(d);
    while ((e = readdir(d))) {
        char path[512];
        static uint8_t buf[1 << 12];
        if (e->d_name[0] == '.' || strncmp(e->d_name, prefix, strlen(prefix)))
            continue;
        snprintf(path, sizeof path, "%s/%s", folder, e->d_name);
        FILE *f = fopen(path, "rb");
        assert_non_null(f);
        size_t len = fread(buf, 1, sizeof buf, f);
        fclose(f);
        assert_int_equal(LLVMFuzzerTestOneInput(buf, len), 0);
        n++;
    }
    closedir(d);
    return n;
}

static void corpus(void **s)
{
    (void)s;
    assert_true(replay_dir("tests/fuzz/h5corpus", "") >= 60);
}

static void regressions(void **s)
{
    (void)s;
    replay_dir("tests/fuzz/regressions", "h5-");
}

/* The unmutated seeds read cleanly through every reader that fits them. */
static void seeds_read(void **s)
{
    (void)s;
    ep_mesh m;
    ep_gfw w;
    ep_gf_file g;
    assert_int_equal(ep_model_read(&m, EP_FUZZ_SEEDS "/modes.h5"), EP_OK);
    ep_mesh_free(&m);
    assert_int_equal(ep_gf_file_open(&g, EP_FUZZ_SEEDS "/gf.h5", "gf"), EP_OK);
    ep_gf_file_close(&g);
    assert_int_equal(ep_gfw_open(&w, EP_FUZZ_SEEDS "/gfw.h5"), EP_OK);
    ep_gfw_close(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(seeds_read),
        cmocka_unit_test(corpus),
        cmocka_unit_test(regressions),
    };
    return cmocka_run_group_tests_name("fuzz-h5", tests, NULL, NULL);
}
