/*
 * test_xdmf — XDMF sidecars through the output lifecycle (xdmf.h,
 * output.h): a committed HDF5 output with a mesh gets OUT.xmf naming its
 * datasets with their extents, one sidecar per grid (issue 45): an
 * embedding's render mesh and render basis in OUT.render.xmf, alone; an
 * aborted output leaves no file; no_xdmf and a file without a mesh get
 * none; a stale sidecar of a grid the new file lacks is removed, a file
 * that is not its sidecar is not; a sidecar name that is the output itself
 * is refused; sidecar names; the --xdmf-columns grammar.  ParaView itself
 * reads the sidecars of every tool in make check-paraview.
 */
#include "helpers.h"

#include <sys/stat.h>
#include <unistd.h>

#include "h5.h"
#include "output.h"
#include "xdmf.h"

static char text[1 << 16];

static const char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    size_t n = 0;
    text[0] = '\0';
    if (f) {
        n = fread(text, 1, sizeof text - 1, f);
        fclose(f);
    }
    text[n] = '\0';
    return text;
}

static int count(const char *s, const char *what)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, what)); p++)
        n++;
    return n;
}

static int exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* An embedding file: a one-tet mesh with a basis of 2, a render triangle of
 * 3 vertices with its render basis and distances. */
static void write_embedding(ep_h5 *f)
{
    double V[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}, U[24] = {0}, P[9] = {0.1, 0.1, 0.1, 0.2, 0.1, 0.1, 0.1, 0.2, 0.1};
    double Ubar[18] = {0}, dist[3] = {0, 0, 0.5};
    int T[4] = {0, 1, 2, 3}, tri[3] = {0, 1, 2};
    hsize_t dv[2] = {4, 3}, dt[2] = {1, 4}, dU[2] = {2, 12}, dp[2] = {3, 3}, dr[2] = {1, 3}, dB[2] = {2, 9}, dd[1] = {3};
    assert_int_equal(ep_h5_write(f, "/mesh/vertices", EP_F64, 2, dv, V), EP_OK);
    assert_int_equal(ep_h5_write(f, "/mesh/tets", EP_I32, 2, dt, T), EP_OK);
    assert_int_equal(ep_h5_write(f, "/basis/U", EP_F64, 2, dU, U), EP_OK);
    assert_int_equal(ep_h5_write(f, "/render/vertices", EP_F64, 2, dp, P), EP_OK);
    assert_int_equal(ep_h5_write(f, "/render/triangles", EP_I32, 2, dr, tri), EP_OK);
    assert_int_equal(ep_h5_write(f, "/embedding/Ubar", EP_F64, 2, dB, Ubar), EP_OK);
    assert_int_equal(ep_h5_write(f, "/embedding/distance", EP_F64, 1, dd, dist), EP_OK);
}

/* Open the output NAME.h5 in the scratch folder as an embedding file with
 * its datasets written, not committed; out, side and render receive the
 * paths of the file and of its two sidecars. */
static void open_embedding(ep_output *o, const char *name, int no_xdmf, char out[600], char side[600],
                           char render[600])
{
    snprintf(out, 600, "%s/%s.h5", scratch(""), name);
    snprintf(side, 600, "%s/%s.xmf", scratch(""), name);
    snprintf(render, 600, "%s/%s.render.xmf", scratch(""), name);
    assert_int_equal(ep_output_check(o, out), EP_OK);
    o->no_xdmf = no_xdmf;
    assert_int_equal(ep_output_create_h5(o, "embedding", "test", "test"), EP_OK);
    write_embedding(&o->h5);
}

static void embedding_sidecar(void **s)
{
    (void)s;
    ep_output o;
    char out[600], side[600], render[600];
    open_embedding(&o, "emb", 0, out, side, render);
    assert_false(exists(side));
    assert_int_equal(ep_output_commit(&o), EP_OK);
    const char *x = slurp(side);
    assert_int_equal(count(x, "<Grid "), 1); /* the simulation mesh alone */
    assert_null(strstr(x, "render"));
    assert_non_null(strstr(x, "<Xdmf Version=\"3.0\">"));
    assert_non_null(strstr(x, "TopologyType=\"Tetrahedron\" NumberOfElements=\"1\""));
    assert_non_null(strstr(x, "Format=\"HDF\">emb.h5:/mesh/tets</DataItem>"));
    assert_non_null(strstr(x, "<Attribute Name=\"basis 2\" AttributeType=\"Vector\" Center=\"Node\">"));
    assert_non_null(strstr(x, "emb.h5:/basis/U|1 0:1 1:1 12:2 12</DataItem>"));
    x = slurp(render);
    assert_int_equal(count(x, "<Grid "), 1);
    assert_non_null(strstr(x, "<Xdmf Version=\"3.0\">"));
    assert_non_null(strstr(x, "<Grid Name=\"render\""));
    assert_non_null(strstr(x, "Dimensions=\"3 3\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">emb.h5:/embedding/Ubar|1 0:1 1:1 9:2 9"));
    assert_non_null(strstr(x, "<Attribute Name=\"distance\" AttributeType=\"Scalar\" Center=\"Node\">"));
    assert_null(strstr(x, "render basis 3"));
}

static void abort_and_off(void **s)
{
    (void)s;
    ep_output o;
    char out[600], side[600], render[600];
    /* aborted: no file */
    open_embedding(&o, "ab", 0, out, side, render);
    ep_output_abort(&o);
    assert_false(exists(out));
    assert_false(exists(side));
    assert_false(exists(render));
    /* no_xdmf: the file alone */
    open_embedding(&o, "ab", 1, out, side, render);
    assert_int_equal(ep_output_commit(&o), EP_OK);
    assert_true(exists(out));
    assert_false(exists(side));
    assert_false(exists(render));
    /* no mesh: nothing to show */
    snprintf(out, sizeof out, "%s", scratch("nomesh.h5"));
    snprintf(side, sizeof side, "%s", scratch("nomesh.xmf"));
    assert_int_equal(ep_output_check(&o, out), EP_OK);
    assert_int_equal(ep_output_create_h5(&o, "mesh", "test", "test"), EP_OK);
    assert_int_equal(ep_output_commit(&o), EP_OK);
    assert_false(exists(side));
    /* a basis whose rows do not fit the mesh: the commit fails, nothing is left */
    snprintf(out, sizeof out, "%s", scratch("bad.h5"));
    snprintf(side, sizeof side, "%s", scratch("bad.xmf"));
    assert_int_equal(ep_output_check(&o, out), EP_OK);
    assert_int_equal(ep_output_create_h5(&o, "modes", "test", "test"), EP_OK);
    double V[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0}, U[4] = {0};
    int tri[3] = {0, 1, 2};
    hsize_t dv[2] = {3, 3}, dt[2] = {1, 3}, du[2] = {1, 4};
    assert_int_equal(ep_h5_write(&o.h5, "/mesh/vertices", EP_F64, 2, dv, V), EP_OK);
    assert_int_equal(ep_h5_write(&o.h5, "/mesh/triangles", EP_I32, 2, dt, tri), EP_OK);
    assert_int_equal(ep_h5_write(&o.h5, "/modes/U", EP_F64, 2, du, U), EP_OK);
    expect_error(ep_output_commit(&o), EP_EINPUT, "/modes/U: expected float rows of 9 values", NULL);
    assert_false(exists(out));
    assert_false(exists(side));
}

/* A sidecar of a grid the new file lacks, left by an earlier output of the
 * name, goes at the commit; a file at such a name that is not that file's
 * sidecar stays, and so does everything after an abort. */
static void stale_sidecars(void **s)
{
    (void)s;
    ep_output o;
    char out[600], side[600], render[600], gf[600], other[600];
    open_embedding(&o, "st", 0, out, side, render);
    assert_int_equal(ep_output_commit(&o), EP_OK);
    assert_true(exists(render));
    snprintf(gf, sizeof gf, "%s", scratch("st.gf.xmf")); /* a user's file */
    FILE *f = fopen(gf, "w");
    assert_non_null(f);
    fputs("<?xml version=\"1.0\" ?>\n<!-- XDMF 3 sidecar of st.h5x (elastoprep kind \"gf\"): -->\n", f);
    fclose(f);
    open_embedding(&o, "other", 0, out, other, render); /* another file's sidecar at a name of st's */
    assert_int_equal(ep_output_commit(&o), EP_OK);
    snprintf(other, sizeof other, "%s", scratch("st.distance.xmf"));
    assert_int_equal(rename(render, other), 0);
    /* st.h5 again, with a mesh and no render mesh: its render sidecar goes */
    snprintf(out, sizeof out, "%s", scratch("st.h5"));
    snprintf(render, sizeof render, "%s", scratch("st.render.xmf"));
    assert_true(ep_xdmf_is_sidecar_of(render, "st.h5"));
    assert_false(ep_xdmf_is_sidecar_of(render, "st.h"));
    assert_false(ep_xdmf_is_sidecar_of(gf, "st.h5"));
    assert_int_equal(ep_output_check(&o, out), EP_OK);
    assert_int_equal(ep_output_create_h5(&o, "mesh", "test", "test"), EP_OK);
    double V[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    int T[4] = {0, 1, 2, 3};
    hsize_t dv[2] = {4, 3}, dt[2] = {1, 4};
    assert_int_equal(ep_h5_write(&o.h5, "/mesh/vertices", EP_F64, 2, dv, V), EP_OK);
    assert_int_equal(ep_h5_write(&o.h5, "/mesh/tets", EP_I32, 2, dt, T), EP_OK);
    ep_output_abort(&o);
    assert_true(exists(render)); /* an abort changes nothing */
    assert_int_equal(ep_output_check(&o, out), EP_OK);
    assert_int_equal(ep_output_create_h5(&o, "mesh", "test", "test"), EP_OK);
    assert_int_equal(ep_h5_write(&o.h5, "/mesh/vertices", EP_F64, 2, dv, V), EP_OK);
    assert_int_equal(ep_h5_write(&o.h5, "/mesh/tets", EP_I32, 2, dt, T), EP_OK);
    assert_int_equal(ep_output_commit(&o), EP_OK);
    assert_false(exists(render));
    assert_true(exists(gf));
    assert_true(exists(other));
    assert_null(strstr(slurp(side), "render"));
}

/* The output a symbolic link to its own render sidecar's name: refused at
 * the commit, nothing changed (the link, the file it names). */
static void sidecar_is_output(void **s)
{
    (void)s;
    ep_output o;
    char out[600], side[600], render[600];
    snprintf(render, sizeof render, "%s", scratch("loop.render.xmf"));
    FILE *f = fopen(render, "w");
    assert_non_null(f);
    fputs("mine\n", f);
    fclose(f);
    snprintf(out, sizeof out, "%s", scratch("loop.h5"));
    assert_int_equal(symlink("loop.render.xmf", out), 0);
    assert_int_equal(ep_output_check(&o, out), EP_OK);
    assert_int_equal(ep_output_create_h5(&o, "embedding", "test", "test"), EP_OK);
    write_embedding(&o.h5);
    expect_error(ep_output_commit(&o), EP_EIO, "the XDMF sidecar's name is the output itself", NULL);
    snprintf(side, sizeof side, "%s", scratch("loop.xmf"));
    assert_false(exists(side));
    assert_string_equal(slurp(render), "mine\n");
}

static void names_and_columns(void **s)
{
    (void)s;
    char n[64];
    static const struct {
        const char *h5;
        int part;
        const char *xmf;
    } names[] = {{"a/b.h5", EP_XDMF_MESH, "a/b.xmf"},          {"a/b.h5", EP_XDMF_SURFACE, "a/b.surface.xmf"},
                 {"x.hdf5", EP_XDMF_RENDER, "x.render.xmf"},   {"d.h5/gf", EP_XDMF_GF, "d.h5/gf.gf.xmf"},
                 {".h5", EP_XDMF_MESH, ".h5.xmf"},             {"p.he5", EP_XDMF_POINTSHELL, "p.pointshell.xmf"},
                 {"q", EP_XDMF_DISTANCE, "q.distance.xmf"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        assert_int_equal(ep_xdmf_name(names[i].h5, names[i].part, n, sizeof n), EP_OK);
        assert_string_equal(n, names[i].xmf);
    }
    expect_error(ep_xdmf_name("0123456789012345678901234567890123456789012345678901234567890.h5", EP_XDMF_MESH, n,
                              sizeof n),
                 EP_EIO, "name too long", NULL);
    /* the longest part name must fit too */
    assert_int_equal(ep_xdmf_name("0123456789012345678901234567890123456789012345678.h5", EP_XDMF_MESH, n, sizeof n),
                     EP_OK);
    expect_error(ep_xdmf_name("0123456789012345678901234567890123456789012345678.h5", EP_XDMF_POINTSHELL, n, sizeof n),
                 EP_EIO, "name too long", NULL);
    assert_int_equal(ep_xdmf_columns_check("all"), EP_OK);
    assert_int_equal(ep_xdmf_columns_check("0,4-7,12"), EP_OK);
    expect_error(ep_xdmf_columns_check(""), EP_EUSAGE, "option --xdmf-columns", NULL);
    expect_error(ep_xdmf_columns_check("3,"), EP_EUSAGE, "option --xdmf-columns", NULL);
    expect_error(ep_xdmf_columns_check("-2"), EP_EUSAGE, "option --xdmf-columns", NULL);
    expect_error(ep_xdmf_columns_check("5-2"), EP_EUSAGE, "bad range", NULL);
}

EP_TEST_MAIN("xdmf", cmocka_unit_test(embedding_sidecar), cmocka_unit_test(abort_and_off), cmocka_unit_test(stale_sidecars),
             cmocka_unit_test(sidecar_is_output), cmocka_unit_test(names_and_columns))
