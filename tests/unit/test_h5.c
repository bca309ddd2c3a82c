/*
 * test_h5.c — the HDF5 schema: exact round trips of /mesh, /material and
 * /constraints, and refusal of files of the wrong format, version, kind,
 * shape or type with a message naming file and dataset; written data
 * dropped from the page cache by ep_h5_drop_written still reads back.
 */
#include "model.h"
#include "helpers.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <math.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "h5.h"
#include "mesh.h"
#include "subdiv.h"

/* Create f at path (kind mesh, command test_h5) holding the mesh m; the
 * caller adds to it and closes it. */
static void create_mesh_file(ep_h5 *f, const char *path, const ep_mesh *m)
{
    assert_int_equal(ep_h5_create(f, path, "mesh", "test", "test_h5"), EP_OK);
    assert_int_equal(ep_model_write_mesh(f, m), EP_OK);
}

/* The model file read into m, and written to the scratch file name as
 * create_mesh_file does; returns its path. */
static const char *mesh_file(ep_h5 *f, ep_mesh *m, const char *model, const char *name)
{
    assert_int_equal(ep_model_read(m, model), EP_OK);
    const char *path = scratch(name);
    create_mesh_file(f, path, m);
    return path;
}

static void roundtrip_mesh(void **s)
{
    (void)s;
    ep_mesh m, r;
    ep_h5 f;
    const char *path = mesh_file(&f, &m, "data/models/beam3/beam3_tet.veg", "beam.h5");
    assert_int_equal(ep_model_write_material(&f, m.material), EP_OK);
    int fixed[] = {0, 5, 207};
    assert_int_equal(ep_model_write_fixed(&f, fixed, 3), EP_OK);
    assert_int_equal(ep_h5_close(&f), EP_OK);

    assert_int_equal(ep_model_read(&r, path), EP_OK);
    assert_int_equal(r.nv, m.nv);
    assert_int_equal(r.ne, m.ne);
    assert_int_equal(r.nf, m.nf);
    assert_int_equal(r.nb, m.nb);
    assert_memory_equal(r.vertices, m.vertices, 3 * sizeof(double) * (size_t)m.nv);
    assert_memory_equal(r.tets, m.tets, 4 * sizeof(int) * (size_t)m.ne);
    assert_memory_equal(r.triangles, m.triangles, 3 * sizeof(int) * (size_t)m.nf);
    assert_memory_equal(r.boundary, m.boundary, sizeof(int) * (size_t)m.nb);
    assert_memory_equal(r.vertex_area, m.vertex_area, sizeof(double) * (size_t)m.nb);
    assert_non_null(r.material);
    assert_true(r.material->E == 1e7 && r.material->nu == 0.45 && r.material->rho == 1000);

    int *fx, nfx;
    assert_int_equal(ep_h5_open(&f, path, "mesh"), EP_OK);
    assert_string_equal(f.kind, "mesh");
    assert_int_equal(ep_model_read_fixed(&f, m.nv, &fx, &nfx), EP_OK);
    assert_int_equal(nfx, 3);
    assert_memory_equal(fx, fixed, sizeof fixed);
    char cmd[64];
    assert_int_equal(ep_h5_get_attr_string(&f, "/", "command", cmd, sizeof cmd), EP_OK);
    assert_string_equal(cmd, "test_h5");
    free(fx);
    ep_h5_close(&f);
    ep_mesh_free(&r);
    ep_mesh_free(&m);
}

/* Pages of path in the page cache, out of *pages (mincore on a mapping). */
static size_t resident_pages(const char *path, size_t *pages)
{
    int fd = open(path, O_RDONLY);
    struct stat st;
    assert_true(fd >= 0 && fstat(fd, &st) == 0);
    long page = sysconf(_SC_PAGESIZE);
    *pages = ((size_t)st.st_size + (size_t)page - 1) / (size_t)page;
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    unsigned char *in = malloc(*pages);
    assert_true(p != MAP_FAILED && in && mincore(p, (size_t)st.st_size, in) == 0);
    size_t n = 0;
    for (size_t i = 0; i < *pages; i++)
        n += in[i] & 1;
    munmap(p, (size_t)st.st_size);
    close(fd);
    free(in);
    return n;
}

/* ep_h5_drop_written: below 64 MiB it only counts; past them, what was
 * written is on the disk and out of the page cache (checked on ext4, xfs and
 * btrfs; tmpfs keeps files in memory), and the file, written on, reads
 * back exactly. */
static void drop_written(void **s)
{
    (void)s;
    enum { N = 1 << 20 }; /* 8 MiB of doubles */
    ep_h5 f;
    struct statfs fs;
    size_t pages;
    double *a = malloc(N * sizeof *a), *back;
    hsize_t d[1] = {N};
    assert_non_null(a);
    for (int i = 0; i < N; i++)
        a[i] = 0.5 * i - 3;
    const char *path = scratch("drop.h5");
    assert_int_equal(ep_h5_create(&f, path, "mesh", "test", "test_h5"), EP_OK);
    assert_int_equal(ep_h5_write(&f, "/a", EP_F64, 1, d, a), EP_OK);
    assert_int_equal(ep_h5_drop_written(&f, 8.0 * N), EP_OK);
    assert_true(f.written == 8.0 * N);
    assert_int_equal(ep_h5_drop_written(&f, EP_H5_DROP_BYTES), EP_OK);
    assert_true(f.written == 0);
    size_t kept = resident_pages(path, &pages);
    assert_int_equal(statfs(path, &fs), 0);
    int disk = fs.f_type == EXT4_SUPER_MAGIC || fs.f_type == XFS_SUPER_MAGIC || fs.f_type == BTRFS_SUPER_MAGIC;
    if (disk && kept > pages / 10) /* tmpfs, overlays, network file systems may keep pages */
        fail_msg("%zu of %zu pages still cached after the drop", kept, pages);
    assert_int_equal(ep_h5_write(&f, "/b", EP_F64, 1, d, a), EP_OK);
    assert_int_equal(ep_h5_close(&f), EP_OK);
    assert_int_equal(ep_h5_open(&f, path, "mesh"), EP_OK);
    for (int k = 0; k < 2; k++) {
        assert_int_equal(ep_h5_read(&f, k ? "/b" : "/a", EP_F64, 1, d, (void **)&back), EP_OK);
        assert_memory_equal(back, a, N * sizeof *a);
        free(back);
    }
    ep_h5_close(&f);
    free(a);
}

/* Heterogeneous material: per-element datasets. */
static void roundtrip_material(void **s)
{
    (void)s;
    ep_material a, b;
    ep_h5 f;
    double *E = malloc(3 * sizeof *E), *nu = malloc(3 * sizeof *nu), *rho = malloc(3 * sizeof *rho);
    for (int e = 0; e < 3; e++) {
        E[e] = 1e6 * (e + 1);
        nu[e] = 0.1 * (e + 1);
        rho[e] = 1000 + e;
    }
    ep_material_init(&a);
    ep_material_set_elements(&a, 3, E, nu, rho);
    assert_int_equal(a.ne, 3);
    const char *path = scratch("mat.h5");
    assert_int_equal(ep_h5_create(&f, path, "mesh", "test", "x"), EP_OK);
    assert_int_equal(ep_model_write_material(&f, &a), EP_OK);
    ep_h5_close(&f);
    assert_int_equal(ep_h5_open(&f, path, NULL), EP_OK);
    assert_int_equal(ep_model_read_material(&b, &f, 3), EP_OK);
    assert_int_equal(b.ne, 3);
    assert_memory_equal(b.e_E, a.e_E, 3 * sizeof(double));
    assert_memory_equal(b.e_nu, a.e_nu, 3 * sizeof(double));
    assert_memory_equal(b.e_rho, a.e_rho, 3 * sizeof(double));
    ep_material_free(&b);
    expect_error(ep_model_read_material(&b, &f, 4), EP_EINPUT, "mat.h5", "/material/E", "shape [3]", "[4]", NULL);
    ep_h5_close(&f);
    ep_material_free(&a);
}

/* A file that is HDF5 but written by hand with a flaw, one flaw per call. */
typedef enum { NONE, WRONG_FORMAT, WRONG_VERSION, NO_KIND, VERT_SHAPE, VERT_TYPE, TRI_RANGE,
               NAN_VERTEX, BAD_PARENT, NO_TRIANGLES } flaw;

static const char *flawed_file(const char *name, flaw fl)
{
    ep_h5 f;
    const char *path = scratch(name);
    double x[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    int tri[4][3] = {{0, 2, 1}, {0, 1, 3}, {1, 2, 3}, {0, 3, 2}};
    int8_t level[4] = {0, 0, 0, 0};
    int parents[4][2] = {{-1, -1}, {-1, -1}, {-1, -1}, {-1, -1}};
    hsize_t d[2] = {4, 3};
    assert_int_equal(ep_h5_create(&f, path, "mesh", "test", "x"), EP_OK);
    if (fl == WRONG_FORMAT) {
        H5Adelete(f.id, "format");
        ep_h5_set_attr_string(&f, "/", "format", "other");
    }
    if (fl == WRONG_VERSION) {
        H5Adelete(f.id, "format_version");
        ep_h5_set_attr_int(&f, "/", "format_version", 2);
    }
    if (fl == NO_KIND)
        H5Adelete(f.id, "kind");
    if (fl == NAN_VERTEX)
        x[2][1] = NAN;
    if (fl == VERT_SHAPE)
        d[1] = 2;
    if (fl == VERT_TYPE)
        ep_h5_write(&f, "/mesh/vertices", EP_I32, 2, d, tri);
    else
        ep_h5_write(&f, "/mesh/vertices", EP_F64, 2, d, x);
    d[1] = 3;
    if (fl == TRI_RANGE)
        tri[2][1] = 4;
    if (fl != NO_TRIANGLES)
        ep_h5_write(&f, "/mesh/triangles", EP_I32, 2, d, tri);
    if (fl == BAD_PARENT) {
        level[3] = 1;
        parents[3][0] = 0;
        parents[3][1] = 0;
        ep_h5_write(&f, "/mesh/level", EP_I8, 1, d, level);
        d[1] = 2;
        ep_h5_write(&f, "/mesh/parents", EP_I32, 2, d, parents);
    }
    ep_h5_close(&f);
    return path;
}

static void refuses_flaws(void **s)
{
    (void)s;
    ep_mesh m;
    struct { flaw fl; const char *frag; } cases[] = {
        {WRONG_FORMAT, "format is \"other\""},
        {WRONG_VERSION, "format_version 2 not supported"},
        {NO_KIND, "attribute kind of / is missing"},
        {VERT_SHAPE, "/mesh/vertices has shape [4][2], expected [*][3]"},
        {VERT_TYPE, "/mesh/vertices has the wrong type"},
        {TRI_RANGE, "/mesh/triangles: index 4"},
        {NAN_VERTEX, "/mesh/vertices: value is not finite at [2][1]"},
        {BAD_PARENT, "/mesh/parents: bad parents (0, 0) of vertex 3"},
        {NO_TRIANGLES, "dataset /mesh/triangles is missing"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "flaw%zu.h5", i);
        const char *path = flawed_file(name, cases[i].fl);
        expect_error(ep_model_read(&m, path), EP_EINPUT, name, cases[i].frag, NULL);
    }
    /* The unflawed file reads. */
    assert_int_equal(ep_model_read(&m, flawed_file("good.h5", NONE)), EP_OK);
    assert_int_equal(m.nf, 4);
    ep_mesh_free(&m);
}

static void refuses_non_hdf5(void **s)
{
    (void)s;
    ep_h5 f;
    const char *txt = write_scratch("text.h5", "not hdf5\n", -1);
    expect_error(ep_h5_open(&f, txt, NULL), EP_EINPUT, "text.h5: not an HDF5 file", NULL);
    const char *empty = write_scratch("empty.h5", "", 0);
    expect_error(ep_h5_open(&f, empty, NULL), EP_EINPUT, "not an HDF5 file", NULL);
    expect_error(ep_h5_open(&f, scratch("missing.h5"), NULL), EP_EIO, "missing.h5: cannot open", NULL);
    /* A truncated real file. */
    const char *good = flawed_file("full.h5", NONE);
    FILE *in = fopen(good, "rb");
    char buf[1200];
    size_t n = fread(buf, 1, sizeof buf, in);
    fclose(in);
    const char *cut = write_scratch("cut.h5", buf, (long)n);
    ep_mesh m;
    int st = ep_model_read(&m, cut);
    assert_int_equal(st, EP_EINPUT);
    assert_non_null(strstr(ep_errmsg(), "cut.h5"));
    /* The wrong kind. */
    expect_error(ep_h5_open(&f, good, "gf"), EP_EINPUT, "kind is \"mesh\", expected \"gf\"", NULL);
}

/* libhdf5 1.10.8 loses buffers on the error paths of damaged headers
 * (metadata_checksummed reads hundreds): LeakSanitizer names only its
 * first frame, in the library, so the suppression names the library, as
 * tests/fuzz/fuzz_h5.c does; leaks of ours are reported from our frames. */
const char *__lsan_default_suppressions(void);
__attribute__((used)) const char *__lsan_default_suppressions(void)
{
    return "leak:libhdf5_serial.so\n";
}

/* Files are written in the 1.8 format (superblock 2: object headers, heaps
 * and B-trees with checksums), so a damaged header fails its read in
 * libhdf5's checksum rather than in its decoders (tests/fuzz/libhdf5).
 * Every 29th byte of a small mesh file flipped: each read is 0 or a clean
 * EP_EINPUT / EP_EIO (the SANITIZE build checks the memory). */
static void metadata_checksummed(void **s)
{
    (void)s;
    ep_mesh m, r;
    ep_h5 f;
    const char *path = mesh_file(&f, &m, "data/cube.msh", "sum.h5");
    assert_int_equal(ep_h5_close(&f), EP_OK);
    hid_t id = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    H5F_info2_t info;
    assert_true(id >= 0 && H5Fget_info2(id, &info) >= 0);
    assert_true(info.super.version >= 2);
    H5Fclose(id);
    FILE *in = fopen(path, "rb");
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, in);
    fclose(in);
    assert_true(n > 0 && n < sizeof buf);
    int refused = 0;
    for (size_t i = 0; i < n; i += 29) {
        buf[i] ^= 0x5a;
        const char *bad = write_scratch("sum-bad.h5", buf, (long)n);
        buf[i] ^= 0x5a;
        int st = ep_model_read(&r, bad);
        assert_true(st == EP_OK || st == EP_EINPUT || st == EP_EIO);
        if (st == EP_OK)
            ep_mesh_free(&r);
        refused += st != EP_OK;
    }
    print_message("%zu bytes, %d of %zu flips refused\n", n, refused, (n + 28) / 29);
    assert_true(refused > 0);
    ep_mesh_free(&m);
}

/* Hierarchy survives the round trip and is checked. */
static void roundtrip_hierarchy(void **s)
{
    (void)s;
    ep_mesh m, r;
    ep_h5 f;
    assert_int_equal(ep_model_read(&m, "data/octahedron.off"), EP_OK);
    assert_int_equal(ep_subdiv_refine(&m, EP_SUBDIV_LOOP, NULL), EP_OK);
    const char *path = scratch("oct1.h5");
    create_mesh_file(&f, path, &m);
    ep_h5_close(&f);
    assert_int_equal(ep_model_read(&r, path), EP_OK);
    assert_int_equal(r.nv, 18);
    assert_memory_equal(r.level, m.level, 18);
    assert_memory_equal(r.parents, m.parents, 36 * sizeof(int));
    ep_mesh_free(&r);
    ep_mesh_free(&m);
}

EP_TEST_MAIN("h5", cmocka_unit_test(roundtrip_mesh), cmocka_unit_test(roundtrip_material),
             cmocka_unit_test(refuses_flaws), cmocka_unit_test(refuses_non_hdf5), cmocka_unit_test(roundtrip_hierarchy),
             cmocka_unit_test(drop_written), cmocka_unit_test(metadata_checksummed))
