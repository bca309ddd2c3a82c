/*
 * test_cleanup.c — the one cleanup rule of doc/CONVENTIONS.md §3: a release
 * function accepts a zeroed object and leaves it zeroed, so calling it twice
 * is harmless; an opening function zeroes its object first, so the release
 * after a failed open is safe even when the object held garbage before.
 * Run under SANITIZE=1 a violation is a reported double free or a read of
 * garbage.
 */
#include "helpers.h"

#include "bond.h"
#include "chol.h"
#include "cli.h"
#include "bsr.h"
#include "closest.h"
#include "cma.h"
#include "cma_cache.h"
#include "corot.h"
#include "cubature.h"
#include "cubature_file.h"
#include "cubic.h"
#include "distfield.h"
#include "gf.h"
#include "gfform.h"
#include "gfhier.h"
#include "gfsink.h"
#include "gfsrc.h"
#include "gfw.h"
#include "mghier.h"
#include "nnls.h"
#include "modal.h"
#include "model.h"
#include "team.h"
#include "output.h"
#include "pseudonormal.h"
#include "reduced.h"
#include "sdf.h"
#include "stvk.h"
#include "text.h"
#include "vcycle.h"
#include "warp.h"
#include "wavelet.h"
#include "winding.h"

/* Release a zeroed object twice, and check it is zeroed after. */
#define TWICE(type, release)                                                   \
    do {                                                                       \
        type x_, z_;                                                           \
        memset(&x_, 0, sizeof x_);                                             \
        memset(&z_, 0, sizeof z_);                                             \
        release(&x_);                                                          \
        release(&x_);                                                          \
        assert_memory_equal(&x_, &z_, sizeof x_);                              \
    } while (0)

/* The same for a release that returns a status: 0 both times. */
#define TWICE_OK(type, call)                                                   \
    do {                                                                       \
        type x_;                                                               \
        memset(&x_, 0, sizeof x_);                                             \
        assert_int_equal(call, EP_OK);                                         \
        assert_int_equal(call, EP_OK);                                         \
    } while (0)

static void release_zeroed(void **s)
{
    (void)s;
    TWICE(ep_mesh, ep_mesh_free);
    ep_material mat, init;
    memset(&mat, 0, sizeof mat);
    ep_material_free(&mat);
    ep_material_free(&mat);
    ep_material_init(&init); /* a material's released state is its initial one: values NaN, "not given" */
    assert_memory_equal(&mat, &init, sizeof mat);
    TWICE(ep_gf_layout, ep_gf_layout_free);
    TWICE(ep_gf_file, ep_gf_file_close);
    TWICE(ep_gfw, ep_gfw_close);
    TWICE(ep_gfw_writer, ep_gfw_writer_abort);
    TWICE(ep_gfsrc, ep_gfsrc_close);
    TWICE(ep_gfsink, ep_gfsink_free);
    TWICE(ep_gfform, ep_gfform_free);
    TWICE(ep_gfhier, ep_gfhier_free);
    TWICE(ep_wavelet, ep_wavelet_free);
    TWICE(ep_cma, ep_cma_free);
    TWICE(ep_bond, ep_bond_free);
    TWICE(ep_cma_cache, ep_cma_cache_free);
    TWICE(ep_cubic, ep_cubic_free);
    TWICE(ep_cubic_tangent, ep_cubic_tangent_free);
    TWICE(ep_cubature, ep_cubature_free);
    TWICE(ep_cubature_fit, ep_cubature_fit_free);
    TWICE(ep_cubature_file, ep_cubature_file_free);
    TWICE(ep_nnls, ep_nnls_free);
    TWICE(ep_reduced, ep_reduced_free);
    TWICE(ep_stvk, ep_stvk_free);
    TWICE(ep_modal, ep_modal_free);
    TWICE(ep_closest, ep_closest_free);
    TWICE(ep_distfield, ep_distfield_free);
    TWICE(ep_pseudonormal, ep_pseudonormal_free);
    TWICE(ep_winding, ep_winding_free);
    TWICE(ep_sdf, ep_sdf_free);
    TWICE(ep_chol_rplan, ep_chol_rplan_free);
    TWICE(ep_team_plan, ep_team_plan_free);
    TWICE(ep_text, ep_text_close);
    TWICE(ep_output, ep_output_abort);
    TWICE(ep_bsr, ep_bsr_free);
    TWICE(ep_csr, ep_csr_free);
    TWICE(ep_mghier, ep_mghier_free);
    TWICE(ep_corot, ep_corot_free);
    TWICE(ep_vcycle, ep_vcycle_free);
    TWICE(ep_warp, ep_warp_free);
    /* those that report: nothing to report on a zeroed object, twice */
    TWICE_OK(ep_h5, ep_h5_close(&x_));
    TWICE_OK(ep_h5_stream, ep_h5_stream_close(&x_));
    TWICE_OK(ep_gf_writer, ep_gf_writer_close(&x_));
    TWICE_OK(ep_gfw_writer, ep_gfw_writer_close(&x_, 0, 0));
}

/* An object full of garbage, an open that fails, then the release. */
#define GARBAGE(x) memset(&(x), 0xA5, sizeof(x))

static void failed_open_then_release(void **s)
{
    (void)s;
    const char *none = scratch("none.h5"), *text = write_scratch("t.txt", "not hdf5\n", -1);
    ep_mesh m;
    GARBAGE(m);
    assert_int_equal(ep_model_read(&m, none), EP_EIO);
    ep_mesh_free(&m);
    GARBAGE(m);
    assert_int_equal(ep_model_read(&m, text), EP_EUSAGE); /* .txt: no mesh format */
    ep_mesh_free(&m);
    ep_gf_file g;
    GARBAGE(g);
    assert_int_equal(ep_gf_file_open(&g, text, NULL), EP_EINPUT);
    ep_gf_file_close(&g);
    ep_gfw r;
    GARBAGE(r);
    assert_int_equal(ep_gfw_open(&r, none), EP_EIO);
    ep_gfw_close(&r);
    ep_gfsrc src;
    GARBAGE(src);
    assert_int_equal(ep_gfsrc_open(&src, none), EP_EIO);
    ep_gfsrc_close(&src);
    ep_sdf sdf;
    GARBAGE(sdf);
    assert_int_equal(ep_sdf_open(&sdf, none), EP_EIO);
    ep_sdf_free(&sdf);
    ep_h5 f;
    GARBAGE(f);
    assert_int_equal(ep_h5_open(&f, none, NULL), EP_EIO);
    assert_int_equal(ep_h5_close(&f), EP_OK);
    ep_material mat;
    GARBAGE(mat);
    assert_int_equal(ep_material_read(&mat, none, 1, NULL), EP_EIO);
    ep_material_free(&mat);
    ep_text t;
    GARBAGE(t);
    assert_int_equal(ep_text_open(&t, none, '#'), EP_EIO);
    ep_text_close(&t);
    ep_output o;
    GARBAGE(o);
    assert_int_equal(ep_output_check(&o, "/dev/null"), EP_EIO);
    ep_output_abort(&o);
    ep_gf_layout L;
    GARBAGE(L);
    ep_mesh tiny;
    ep_mesh_init(&tiny);
    char fixed[1] = {1};
    tiny.nv = 1;
    assert_int_equal(ep_gf_layout_build(&L, &tiny, fixed, 0, NULL, 0), EP_EINPUT); /* no boundary: no column */
    ep_gf_layout_free(&L);
}

EP_TEST_MAIN("cleanup", cmocka_unit_test(release_zeroed), cmocka_unit_test(failed_open_then_release))
