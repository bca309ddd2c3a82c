/*
 * femdata — the FEM matrices and element data a simulator loads: K, M
 * consistent and lumped, corotated element data, reduced mass and gravity
 * of a basis, rigid-body data of a free-flying model.  See femdata(1).
 */
#include "cli.h"
#include "corot.h"
#include "cubic_file.h"
#include "err.h"
#include "fem.h"
#include "fem_file.h"
#include "h5.h"
#include "massprop.h"
#include "model.h"
#include "select.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *basis; /* --basis FILE */
    int lumped;        /* --mass for the reduced mass */
    int free;
} opts;

/* The basis: --basis FILE, else /basis/U of an elastoprep input, else none. */
static int read_basis(const opts *o, const char *input, int nv, double **U, int *r)
{
    const char *path = o->basis ? o->basis : input;
    size_t n = strlen(path);
    ep_h5 f = {0};
    int st = EP_OK;
    *U = NULL, *r = 0;
    if (!o->basis && !(n > 3 && !strcmp(path + n - 3, ".h5")))
        return EP_OK;
    if (!(st = ep_h5_open(&f, path, NULL)) && (o->basis || ep_h5_exists(&f, "/basis/U")))
        st = ep_cubic_file_basis(&f, "/basis/U", nv, 0, U, r);
    ep_h5_close(&f);
    return st;
}

/* parse_command_line: the options and --help of cmd/spec/femdata.json (scripts/toolspec.py). */
#include "femdata_spec.h"

int main(int argc, char **argv)
{
    opts o = {0};
    ep_cli cli;
    ep_mesh m = {0};
    ep_material mat = {0};
    ep_corot c = {0};
    ep_massprop rb = {0};
    cholmod_common cc;
    cholmod_sparse *A[3] = {NULL, NULL, NULL};
    char *fixed = NULL;
    int st, nfixed = 0, r = 0, *map = NULL, ndof;
    double *U = NULL, *Mr = NULL, *G = NULL, t0 = ep_now();

    parse_command_line(&cli, &o, argc, argv);
    if (o.free && ep_select_given(&cli.fixed))
        ep_cli_exit(ep_fail(EP_EUSAGE, "--free and --fixed-... exclude each other"));
    cholmod_start(&cc);

    /* read -> validate */
    if ((st = ep_cli_read_volume(&cli, &m, cli.inputs[0])) || (st = ep_cli_material(&cli, &m, 0.5, &mat)))
        goto out;
    for (int e = 0; e < (mat.ne ? mat.ne : 1); e++)
        if (isnan(ep_material_rho(&mat, e))) {
            st = ep_fail(EP_EUSAGE, "no density: give --rho (the mass matrices need it)");
            goto out;
        }
    o.free = o.free || (!ep_select_given(&cli.fixed) && !m.nfixed);
    if (o.free) /* an input's support is not the free-flying model's */
        free(m.fixed), m.fixed = NULL, m.nfixed = 0;
    else if ((st = ep_cli_fixed(&cli, &m, &fixed, &nfixed)))
        goto out;
    if ((st = read_basis(&o, cli.inputs[0], m.nv, &U, &r)))
        goto out;

    /* compute: every vertex keeps its DOFs (the support is /constraints/fixed) */
    ep_cli_stage(&cli, "assemble");
    if ((st = ep_fem_dofmap(&m, NULL, &map, &ndof)))
        goto out;
    if (ndof != 3 * m.nv) {
        st = ep_fail(EP_EINPUT, "%s: %d vertices belong to no element (remove them first)", m.source, m.nv - ndof / 3);
        goto out;
    }
    ep_fem_kind kinds[3] = {EP_FEM_STIFFNESS, EP_FEM_MASS, EP_FEM_MASS_LUMPED};
    for (int i = 0; i < 3; i++)
        if (!(A[i] = ep_fem_assemble(&m, &mat, kinds[i], map, ndof, map, ndof, 0, &cc))) {
            st = EP_ECOMPUTE;
            goto out;
        }
    ep_cli_stage(&cli, "element data");
    if ((st = ep_corot_build(&c, &m, &mat)) || (o.free && (st = ep_massprop_rigid(&rb, &m, &mat))))
        goto out;
    if (r) {
        Mr = ep_malloc((size_t)r * r, sizeof *Mr), G = ep_malloc(3 * (size_t)r, sizeof *G);
        if (!Mr || !G || (st = ep_massprop_reduced(A[o.lumped ? 2 : 1], U, r, Mr, G))) {
            st = st ? st : EP_ECOMPUTE;
            goto out;
        }
    }

    /* write */
    ep_cli_stage(&cli, "write");
    ep_h5 *f;
    if ((st = ep_cli_create_h5(&cli, "fem", &f)) || (st = ep_model_write(f, &m, &mat, fixed)) ||
        (st = ep_fem_file_write_matrix(f, "/fem/K", A[0])) || (st = ep_fem_file_write_matrix(f, "/fem/M", A[1])) ||
        (st = ep_fem_file_write_matrix(f, "/fem/M_lumped", A[2])) || (st = ep_fem_file_write_elements(f, &c)) ||
        (r && (st = ep_fem_file_write_reduced(f, Mr, G, r, o.lumped))) || (o.free && (st = ep_fem_file_write_rigid(f, &rb))))
        goto out;
    if (U) {
        hsize_t d[2] = {(hsize_t)r, 3 * (hsize_t)m.nv};
        if ((st = ep_h5_write(f, "/basis/U", EP_F64, 2, d, U)))
            goto out;
    }
    if ((st = ep_output_commit(&cli.out)))
        goto out;
    if (!cli.quiet) {
        printf("femdata: %s: %d %s, %d vertices: K %zu, M %zu nonzeros; element data of %d x %d", cli.output,
               c.ne, c.k == 4 ? "tets" : "hexes", m.nv, cholmod_nnz(A[0], &cc), cholmod_nnz(A[1], &cc), 3 * c.k,
               3 * c.k);
        if (r)
            printf("; reduced mass and gravity of %d basis vectors", r);
        if (o.free)
            printf("; rigid body: mass %.6g, centre (%.6g, %.6g, %.6g)", rb.mass, rb.center[0], rb.center[1],
                   rb.center[2]);
        printf("; %.2f s\n", ep_now() - t0);
    }
out:
    for (int i = 0; i < 3; i++)
        cholmod_free_sparse(&A[i], &cc);
    cholmod_finish(&cc);
    ep_corot_free(&c);
    free(map), free(fixed), free(U), free(Mr), free(G);
    ep_material_free(&mat);
    ep_mesh_free(&m);
    ep_cli_exit(st);
}
