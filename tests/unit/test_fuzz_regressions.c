/*
 * test_fuzz_regressions.c — every input that once crashed the mesh readers
 * under libFuzzer (tests/fuzz/regressions) goes through the fuzz target again.
 * Meaningful under make check SANITIZE=1, where ASan/UBSan turn the old
 * crashes back into failures; in plain builds it checks they read cleanly.
 */
#include "helpers.h"


#include "../fuzz/fuzz_mesh.c"

static void replay(void **s)
{
    (void)s;
    /* h5-*: the HDF5 target's (test_fuzz_h5) */
    assert_true(fuzz_replay("tests/fuzz/regressions", "", "h5-", LLVMFuzzerTestOneInput) > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(replay)};
    return cmocka_run_group_tests_name("fuzz-regressions", tests, NULL, NULL);
}
