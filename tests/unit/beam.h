/*
 * beam.h — the shipped beam3, held at its .bou support, with a reduced
 * basis: k = 5 modes and their derivatives, r = 8 vectors by mass-PCA
 * (modal.h).  Shared by test_cubature and test_cubic.
 */
#ifndef EP_TEST_BEAM_H
#define EP_TEST_BEAM_H

#include "helpers.h"
#include "modal.h"

/* Reads the beam into m and returns its basis U[8][3 nv] (allocated) for
 * the material mat; *fixed (allocated) the support's mask, when fixed is
 * not NULL. */
static inline double *beam_basis(ep_mesh *m, const ep_material *mat, char **fixed)
{
    ep_modal md;
    int k = 5, r = 8, np = k * (k + 1) / 2, pairs[30];
    char *held;
    read_beam3(m, &held, 1);
    assert_int_equal(ep_modal_setup(&md, m, mat, held, 0), EP_OK);
    size_t n3 = 3 * (size_t)m->nv;
    double lambda[5], sig[20], *Um = malloc(k * n3 * sizeof *Um), *Phi = malloc(np * n3 * sizeof *Phi),
                               *U = malloc(r * n3 * sizeof *U);
    assert_int_equal(ep_modal_eigs(&md, k, lambda, Um), EP_OK);
    assert_int_equal(ep_modal_derivatives(&md, Um, k, 0, np, ep_modal_block(np), pairs, Phi), EP_OK);
    assert_int_equal(ep_modal_basis(&md, EP_MODAL_BASIS_PCA, lambda, Um, k, Phi, r, U, sig), EP_OK);
    free(Um), free(Phi);
    ep_modal_free(&md);
    if (fixed)
        *fixed = held;
    else
        free(held);
    return U;
}

/* The beam of a homogeneous material (E 1e7, nu 0.45, rho 1000) with its
 * basis, as a fixture (helpers.h): EP_BEAM_BASIS_TEST(f); the test reads
 * it as reduced_beam *beam = *state. */
typedef struct {
    ep_mesh m;
    ep_material mat;
    char *fixed;
    double *U;
} reduced_beam;

static inline void reduced_beam_open(reduced_beam *b, void *unused)
{
    (void)unused;
    b->mat = test_material(1e7, 0.45, 1000);
    b->U = beam_basis(&b->m, &b->mat, &b->fixed);
}

static inline void reduced_beam_close(reduced_beam *b)
{
    free(b->U), free(b->fixed);
    ep_material_free(&b->mat);
    ep_mesh_free(&b->m);
}

EP_FIXTURE(reduced_beam, reduced_beam, reduced_beam_open, reduced_beam_close)
#define EP_BEAM_BASIS_TEST(f) EP_FIXTURE_TEST(f, reduced_beam, NULL)

#endif
