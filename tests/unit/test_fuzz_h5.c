/*
 * test_fuzz_h5.c — the HDF5 fuzz target (tests/fuzz/fuzz_h5.c) run briefly:
 * its fixed corpus (tests/fuzz/h5corpus: every seed kind with each attribute
 * and dataset mutation and some byte flips) and every input that ever
 * failed it (tests/fuzz/regressions/h5-*).  Under make check SANITIZE=1 a
 * crash, leak or UB report in a reader fails the test; in plain builds it
 * checks each input is answered.
 */
#include "helpers.h"


#include "../fuzz/fuzz_h5.c"

static void corpus(void **s)
{
    (void)s;
    assert_true(fuzz_replay("tests/fuzz/h5corpus", "", "", LLVMFuzzerTestOneInput) >= 60);
}

static void regressions(void **s)
{
    (void)s;
    fuzz_replay("tests/fuzz/regressions", "h5-", "", LLVMFuzzerTestOneInput);
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
    /* the trajectory seed reaches rtcheck --reference's run against the
     * cubic seed (the same mesh), so the damaged copies do too */
    ep_h5 f, mf;
    ep_trajectory t;
    ep_rtreport rep = {.path = "trajectory.h5"};
    assert_int_equal(ep_h5_open(&f, EP_FUZZ_SEEDS "/trajectory.h5", "trajectory"), EP_OK);
    assert_int_equal(ep_model_load(&m, &f), EP_OK);
    assert_int_equal(ep_trajectory_read(&t, &f, m.nv), EP_OK);
    assert_true(t.T == 5 && t.complete && t.dynamic && t.nitem == 1);
    ep_trajectory_free(&t);
    ep_mesh_free(&m);
    assert_int_equal(ep_h5_open(&mf, EP_FUZZ_SEEDS "/cubic.h5", "cubic"), EP_OK);
    assert_int_equal(ep_rtref_run(&rep, &f, &mf, 1), EP_OK);
    assert_int_equal(rep.failed, 0);
    ep_h5_close(&mf);
    ep_h5_close(&f);
}

EP_TEST_MAIN("fuzz-h5", cmocka_unit_test(seeds_read), cmocka_unit_test(corpus), cmocka_unit_test(regressions))
