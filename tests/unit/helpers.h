/*
 * helpers.h — shared by the cmocka unit tests: scratch files and status checks.
 * Tests run from the repository root (make check), so data/ is relative.
 */
#ifndef EP_TEST_HELPERS_H
#define EP_TEST_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>

#include "err.h"
#include "material.h"
#include "mesh.h"
#include "model.h"
#include "rng.h"
#include "select.h"

#include <math.h>

/* main() of a test binary: its group name, then its tests as
 * cmocka_unit_test(f), ... */
#define EP_TEST_MAIN(group, ...)                                                \
    int main(void)                                                              \
    {                                                                           \
        const struct CMUnitTest tests_[] = {__VA_ARGS__};                       \
        return cmocka_run_group_tests_name(group, tests_, NULL, NULL);          \
    }

/* cmocka fixtures.  EP_FIXTURE(name, T, open, close) defines name_setup,
 * which allocates a T and builds it by open(T *, prestate), and
 * name_teardown, which calls close(T *) and frees it, whatever the test
 * asserted.  EP_FIXTURE_TEST(f, name, prestate) runs test f on one: f
 * reads it as T *x = *state and may change it. */
#define EP_FIXTURE(name, T, open, close)                                                                           \
    static inline int name##_setup(void **state)                                                                   \
    {                                                                                                              \
        T *x_ = malloc(sizeof *x_);                                                                                \
        assert_non_null(x_);                                                                                       \
        open(x_, *state);                                                                                          \
        *state = x_;                                                                                               \
        return 0;                                                                                                  \
    }                                                                                                              \
    static inline int name##_teardown(void **state)                                                                \
    {                                                                                                              \
        close(*state);                                                                                             \
        free(*state);                                                                                              \
        return 0;                                                                                                  \
    }

#define EP_FIXTURE_TEST(f, name, prestate)                                                                         \
    cmocka_unit_test_prestate_setup_teardown(f, name##_setup, name##_teardown, (void *)(prestate))

/* A mesh read by ep_model_read: EP_MODEL_TEST(f, path) (relative to the
 * repository). */
static inline void model_open(ep_mesh *m, void *path) { assert_int_equal(ep_model_read(m, path), EP_OK); }
EP_FIXTURE(model, ep_mesh, model_open, ep_mesh_free)
#define EP_MODEL_TEST(f, path) EP_FIXTURE_TEST(f, model, path)

/* A scratch folder for this test binary, removed at exit. */
static char scratch_dir[256];

static inline void scratch_cleanup(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", scratch_dir);
}

/* Path of name inside the scratch folder (static buffer, rotating). */
static inline const char *scratch(const char *name)
{
    static char buf[4][512];
    static int k;
    if (!scratch_dir[0]) {
        snprintf(scratch_dir, sizeof scratch_dir, "/tmp/ep-test-XXXXXX");
        if (!mkdtemp(scratch_dir))
            abort();
        atexit(scratch_cleanup);
    }
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", scratch_dir, name);
    return buf[k];
}

/* Write len bytes of text (len < 0: strlen) to the scratch file name; returns its path. */
static inline const char *write_scratch(const char *name, const char *text, long len)
{
    const char *path = scratch(name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    size_t n = len < 0 ? strlen(text) : (size_t)len;
    assert_int_equal(fwrite(text, 1, n, f), n);
    fclose(f);
    return path;
}

/* Assert that status is expected and the error message contains every
 * fragment given (NULL-terminated). */
static inline void expect_error(int status, int expected, ...)
{
    va_list ap;
    const char *frag;
    if (status != expected)
        fail_msg("status %d, expected %d; message: %s", status, expected, ep_errmsg());
    va_start(ap, expected);
    while ((frag = va_arg(ap, const char *)))
        if (!strstr(ep_errmsg(), frag))
            fail_msg("message \"%s\" lacks \"%s\"", ep_errmsg(), frag);
    va_end(ap);
}

/* 1 when ../shared/models (the project's reference meshes) is present. */
static inline int have_file(const char *path) { return access(path, R_OK) == 0; }

/* A homogeneous material. */
static inline ep_material test_material(double E, double nu, double rho)
{
    ep_material m;
    ep_material_init(&m);
    m.E = E;
    m.nu = nu;
    m.rho = rho;
    return m;
}

/* Uniform in [-0.5, 0.5). */
static inline double centered_uniform(ep_rng *r) { return ep_rng_uniform(r) - 0.5; }

/* The larger of a and b, NaN when either is (fmax drops a NaN, so a test
 * whose worst error went through it would pass on NaN answers). */
static inline double nan_max(double a, double b) { return a != a || b != b ? a + b : a > b ? a : b; }

static inline double maxabs(const double *x, size_t n)
{
    double v = 0;
    for (size_t i = 0; i < n; i++)
        v = nan_max(v, fabs(x[i]));
    return v;
}

/* The mask[nv] (allocated) of the vertices of m that spec selects. */
/* Rigid motion mode of the points x[n][3] into u[3n]: a unit translation
 * along axis mode (0-2), or the infinitesimal rotation w x x about axis
 * mode - 3 (3-5), the null space of an unsupported stiffness (MATH.md §1). */
static inline void rigid_motion(int mode, const double *x, int n, double *u)
{
    double w[3] = {mode == 3, mode == 4, mode == 5};
    for (int v = 0; v < n; v++)
        for (int a = 0; a < 3; a++)
            u[3 * v + a] = mode < 3 ? (a == mode)
                                    : w[(a + 1) % 3] * x[3 * v + (a + 2) % 3] - w[(a + 2) % 3] * x[3 * v + (a + 1) % 3];
}

/* max_i |(K u)_i| for a dense row-major K[n][n]. */
static inline double max_product(const double *K, const double *u, int n)
{
    double m = 0;
    for (int i = 0; i < n; i++) {
        double f = 0;
        for (int j = 0; j < n; j++)
            f += K[(size_t)i * n + j] * u[j];
        m = nan_max(m, fabs(f));
    }
    return m;
}

static inline char *select_mask(const ep_mesh *m, const ep_select *spec)
{
    int *ids, n;
    char *mask = calloc((size_t)m->nv, 1);
    assert_non_null(mask);
    assert_int_equal(ep_select_apply(spec, m, "fixed vertex", &ids, &n), EP_OK);
    for (int i = 0; i < n; i++)
        mask[ids[i]] = 1;
    free(ids);
    return mask;
}

/* The mask of a mesh group (by tag or name). */
static inline char *region_mask(const ep_mesh *m, const char *region)
{
    ep_select spec = {.region = region};
    return select_mask(m, &spec);
}

/* The shipped beam3 and, in *fixed (allocated), the mask of its .bou support
 * (all zero when held is 0). */
static inline void read_beam3(ep_mesh *m, char **fixed, int held)
{
    ep_select spec = {.ids_file = "data/models/beam3/beam3.bou"};
    assert_int_equal(ep_model_read(m, "data/models/beam3/beam3_tet.veg"), EP_OK);
    *fixed = held ? select_mask(m, &spec) : calloc((size_t)m->nv, 1);
}

/* Run a fuzz target on every file of folder whose name starts with prefix
 * (all when "") and not with skip (none when ""); the number run.  Each must
 * return 0 (under SANITIZE=1, a crash or report fails the test). */
static inline int fuzz_replay(const char *folder, const char *prefix, const char *skip,
                              int (*target)(const uint8_t *, size_t))
{
    DIR *d = opendir(folder);
    struct dirent *e;
    int n = 0;
    assert_non_null(d);
    while ((e = readdir(d))) {
        char path[512];
        static uint8_t buf[1 << 16];
        if (e->d_name[0] == '.' || strncmp(e->d_name, prefix, strlen(prefix)) ||
            (*skip && !strncmp(e->d_name, skip, strlen(skip))))
            continue;
        snprintf(path, sizeof path, "%s/%s", folder, e->d_name);
        FILE *f = fopen(path, "rb");
        assert_non_null(f);
        size_t len = fread(buf, 1, sizeof buf, f);
        fclose(f);
        assert_int_equal(target(buf, len), 0);
        n++;
    }
    closedir(d);
    return n;
}

#endif
