/*
 * test_part.c — split runs (part.h): shares tile the whole on grain
 * boundaries for every count, including more parts than grains; --part
 * arguments; the run hash tells models and options apart; a set of parts
 * is accepted only whole, each part once, from one run, with messages
 * naming the files.
 */
#include "helpers.h"

#include "part.h"

static void shares(void **s)
{
    (void)s;
    long totals[] = {0, 1, 7, 64, 100, 214, 1000};
    long grains[] = {1, 3, 21, 32, 64};
    for (size_t a = 0; a < sizeof totals / sizeof *totals; a++)
        for (size_t b = 0; b < sizeof grains / sizeof *grains; b++)
            for (int n = 1; n <= 9; n++) {
                long at = 0, total = totals[a], grain = grains[b];
                for (int i = 0; i < n; i++) {
                    ep_part p = {.index = i, .count = n};
                    ep_part_share(&p, total, grain, "columns");
                    assert_int_equal(p.lo, at);               /* parts follow each other */
                    assert_true(p.hi >= p.lo);
                    assert_true(p.lo % grain == 0);           /* start on a grain */
                    assert_true(p.hi == total || p.hi % grain == 0);
                    long g = (total + grain - 1) / grain;     /* balanced: at most one grain apart */
                    assert_true((p.hi - p.lo + grain - 1) / grain <= g / n + 1);
                    at = p.hi;
                }
                assert_int_equal(at, total);                  /* and cover the whole */
            }
    ep_part whole = {0};
    ep_part_share(&whole, 42, 5, "pairs");
    assert_int_equal(whole.lo, 0);
    assert_int_equal(whole.hi, 42);
}

static void parse(void **s)
{
    (void)s;
    ep_part p;
    assert_int_equal(ep_part_parse(&p, "--part", "2/7"), EP_OK);
    assert_int_equal(p.index, 2);
    assert_int_equal(p.count, 7);
    assert_int_equal(ep_part_parse(&p, "--part", "0/1"), EP_OK);
    const char *bad[] = {"7/7", "-1/3", "3", "a/b", "1/0", "1/2x", "", "1/200000"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(ep_part_parse(&p, "--part", bad[i]), EP_EUSAGE);
        assert_non_null(strstr(ep_errmsg(), "option --part: "));
    }
}

static void hashes(void **s)
{
    (void)s;
    ep_mesh m = {0};
    ep_material mat = {.E = 1e6, .nu = 0.3, .rho = 1000};
    double v[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    int tets[4] = {0, 1, 2, 3}, tri[3] = {0, 1, 2};
    char fixed[4] = {1, 1, 1, 0};
    m.nv = 4, m.vertices = v, m.ne = 1, m.tets = tets, m.nf = 1, m.triangles = tri;
    ep_part a = {0}, b = {0};
    ep_part_hash h;
#define HASH(P, OPT)                                                                                             \
    do {                                                                                                         \
        ep_part_hash_init(&h, "femcondense 0.1.0");                                                              \
        ep_part_hash_model(&h, &m, &mat, fixed);                                                                 \
        ep_part_hash_string(&h, "options", OPT);                                                                 \
        ep_part_hash_final(&h, &P);                                                                              \
    } while (0)
    HASH(a, "block=64");
    HASH(b, "block=64");
    assert_string_equal(a.hash, b.hash);           /* deterministic */
    assert_int_equal(strlen(a.hash), EP_PART_HASH_LEN);
    HASH(b, "block=32");
    assert_string_not_equal(a.hash, b.hash);       /* an option */
    mat.E = 2e6;
    HASH(b, "block=64");
    assert_string_not_equal(a.hash, b.hash);       /* the material */
    mat.E = 1e6;
    v[3] = 1.0000000001;
    HASH(b, "block=64");
    assert_string_not_equal(a.hash, b.hash);       /* a vertex */
    v[3] = 1;
    fixed[3] = 1;
    HASH(b, "block=64");
    assert_string_not_equal(a.hash, b.hash);       /* the support */
    fixed[3] = 0;
    HASH(b, "block=64");
    assert_string_equal(a.hash, b.hash);
#undef HASH
}

/* n parts of count N from one run, as ep_part_read leaves them. */
static void make_set(ep_part *p, int n, int count, long total)
{
    for (int i = 0; i < n; i++) {
        memset(&p[i], 0, sizeof p[i]);
        p[i].index = i % count, p[i].count = count;
        ep_part_share(&p[i], total, 4, "columns");
        strcpy(p[i].hash, "abc");
        strcpy(p[i].creator, "femcondense 0.1.0");
    }
}

static void sets(void **s)
{
    (void)s;
    ep_part p[8];
    int order[8];
    const char *paths[8] = {"p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7"};
    make_set(p, 4, 4, 50);
    ep_part t = p[0];
    p[0] = p[2], p[2] = t; /* any order */
    assert_int_equal(ep_part_check_set(p, paths, 4, order), EP_OK);
    for (int j = 0; j < 4; j++)
        assert_int_equal(p[order[j]].index, j);

    make_set(p, 3, 4, 50);
    assert_int_equal(ep_part_check_set(p, paths, 3, order), EP_EINPUT);
    assert_string_equal(ep_errmsg(), "part 3 of 4 missing (3 of 4 given)");
    make_set(p, 2, 5, 50);
    p[1].index = 3;
    assert_int_equal(ep_part_check_set(p, paths, 2, order), EP_EINPUT);
    assert_string_equal(ep_errmsg(), "parts 1, 2, 4 of 5 missing (2 of 5 given)");
    make_set(p, 5, 4, 50);
    assert_int_equal(ep_part_check_set(p, paths, 5, order), EP_EINPUT);
    assert_string_equal(ep_errmsg(), "p0 and p4: both part 0 of 4");
    make_set(p, 4, 4, 50);
    strcpy(p[2].hash, "abd");
    assert_int_equal(ep_part_check_set(p, paths, 4, order), EP_EINPUT);
    assert_non_null(strstr(ep_errmsg(), "p2: not a part of the run of p0"));
    make_set(p, 4, 4, 50);
    strcpy(p[3].creator, "femcondense 0.2.0");
    assert_int_equal(ep_part_check_set(p, paths, 4, order), EP_EINPUT);
    assert_string_equal(ep_errmsg(), "p3: made by femcondense 0.2.0, p0 by femcondense 0.1.0");
    make_set(p, 4, 4, 50);
    p[1].hi -= 4, p[2].lo -= 4; /* tampered ranges that still tile */
    assert_int_equal(ep_part_check_set(p, paths, 4, order), EP_OK);
    p[2].lo += 1; /* a gap */
    assert_int_equal(ep_part_check_set(p, paths, 4, order), EP_EINPUT);
    assert_non_null(strstr(ep_errmsg(), "p2: part 2 holds columns"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(shares), cmocka_unit_test(parse), cmocka_unit_test(hashes),
                                       cmocka_unit_test(sets)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
