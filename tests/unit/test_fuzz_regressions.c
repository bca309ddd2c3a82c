/*
 * test_fuzz_regressions.c — every input that once crashed the mesh readers
 * under libFuzzer (tests/fuzz/regressions) goes through the fuzz target again.
 * Meaningful under make check SANITIZE=1, where ASan/UBSan turn the old
 * crashes back into failures; in plain builds it checks they read cleanly.
 */
#include "helpers.h"

#include <dirent.h>

#include "../fuzz/fuzz_mesh.c"

static void replay(void **s)
{
    (void)s;
    DIR *d = opendir("tests/fuzz/regressions");
    struct dirent *e;
    int n = 0;
    assert_non_null(d);
    while ((e = readdir(d))) {
        char path[512];
        static uint8_t buf[1 << 16];
        if (e->d_name[0] == '.' || !strncmp(e->d_name, "h5-", 3)) /* the HDF5 target's: test_fuzz_h5 */
            continue;
        snprintf(path, sizeof path, "tests/fuzz/regressions/%s", e->d_name);
        FILE *f = fopen(path, "rb");
        assert_non_null(f);
        size_t len = fread(buf, 1, sizeof buf, f);
        fclose(f);
        assert_int_equal(LLVMFuzzerTestOneInput(buf, len), 0);
        n++;
    }
    closedir(d);
    assert_true(n > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(replay)};
    return cmocka_run_group_tests_name("fuzz-regressions", tests, NULL, NULL);
}
