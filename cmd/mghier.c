/*
 * mghier — a multigrid hierarchy of a tet mesh: the level meshes (nested by
 * 1 -> 8 refinement, or non-nested: given or made by TetGen), the
 * prolongations and the Galerkin coarse operators.  See mghier(1).
 */
#include "cli.h"
#include "err.h"
#include "mem.h"
#include "mesh.h"
#include "mg_file.h"
#include "mghier.h"
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COARSE 15

typedef struct {
    long levels;
    int nested, ncoarse;
    const char *coarse[MAX_COARSE];
    double max_distance, max_memory;
} opts;

static int coarse_arg(void *target, const char *opt, const char *arg)
{
    opts *o = target;
    if (o->ncoarse == MAX_COARSE)
        return ep_fail(EP_EUSAGE, "option %s: at most %d coarse meshes", opt, MAX_COARSE);
    o->coarse[o->ncoarse++] = arg;
    return EP_OK;
}

/* Nested: m (the coarsest) refined levels - 1 times into *fine; the
 * support and a per-element material follow the refinement. */
static int refine(ep_mghier *h, const opts *o, ep_mesh *fine, ep_material *mat, char **fixed)
{
    int L = h->nlevels, st = EP_OK;
    double tets = fine->ne * pow(8, L - 1), need = tets * EP_MGHIER_BYTES_PER_TET, have = ep_mem_limit(o->max_memory);
    if (need > have)
        return ep_fail(EP_EINPUT, "%s: %ld levels refine %d tets into %.4g, about %s, more than this machine's %s",
                       fine->source, o->levels, fine->ne, tets, ep_mem_text(need), ep_mem_text(have));
    for (int l = L - 1; l > 0 && !st; l--) {
        ep_mesh next;
        int *parents = NULL, *ep = NULL;
        if (!(st = ep_mghier_set_mesh(h, l, fine)) && !(st = ep_mghier_refine(&next, fine, &parents, &ep)) &&
            !(st = ep_mghier_nested_prolongation(&h->level[l - 1].P, parents, next.nv, fine->nv))) {
            char *f = ep_calloc((size_t)next.nv, 1);
            for (int v = 0; f && v < next.nv; v++)
                f[v] = (*fixed)[parents[2 * v]] && (*fixed)[parents[2 * v + 1]];
            free(*fixed), *fixed = f;
            if (!f)
                st = EP_ECOMPUTE;
            if (mat->ne > 0) { /* children take their parent's material */
                double *E = ep_malloc((size_t)next.ne, sizeof *E), *nu = ep_malloc((size_t)next.ne, sizeof *nu),
                       *rho = ep_malloc((size_t)next.ne, sizeof *rho);
                for (int t = 0; E && nu && rho && t < next.ne; t++)
                    E[t] = mat->e_E[ep[t]], nu[t] = mat->e_nu[ep[t]], rho[t] = mat->e_rho[ep[t]];
                free(mat->e_E), free(mat->e_nu), free(mat->e_rho);
                mat->e_E = mat->e_nu = mat->e_rho = NULL, mat->ne = 0;
                if (!E || !nu || !rho)
                    st = EP_ECOMPUTE;
                ep_material_set_elements(mat, next.ne, E, nu, rho);
            }
        }
        free(parents), free(ep);
        ep_mesh_free(fine);
        *fine = next;
    }
    return st ? st : ep_mghier_set_mesh(h, 0, fine);
}

/* Non-nested: the coarse meshes given or made by TetGen, each bound to the
 * next finer level. */
static int embed_levels(ep_mghier *h, const opts *o, const ep_mesh *fine)
{
    /* TetGen's levels fill the simplified boundary: near by construction */
    double limit = o->max_distance > 0 ? o->max_distance : o->ncoarse ? 0.05 * ep_mesh_diameter(fine) : INFINITY;
    int st = ep_mghier_set_mesh(h, 0, fine);
    ep_mesh prev = {0}; /* the level above, when TetGen made it */
    for (int l = 1; l < h->nlevels && !st; l++) {
        ep_mesh c = {0};
        const ep_mesh *above = l > 1 ? &prev : fine;
        const char *name = o->ncoarse ? o->coarse[l - 1] : "the TetGen mesh";
        if (o->ncoarse)
            st = ep_model_read(&c, name);
        else /* each level from the one above: its boundary simplified 4x, every other vertex inside */
            st = ep_mghier_tetgen(&c, above, above->nb / 4, getenv("TMPDIR"));
        if (!st && !c.tets)
            st = ep_fail(EP_EINPUT, "%s: not a tet mesh (coarse levels are tets)", name);
        if (!st)
            st = ep_mghier_set_mesh(h, l, &c);
        ep_mesh_free(&prev);
        prev = c;
        ep_mghier_level *F = &h->level[l - 1], *C = &h->level[l];
        if (!st && (st = ep_mghier_embedded_prolongation(&F->P, F->x, F->nv, C->x, C->nv, C->tets, C->ne, limit,
                                                         &F->noutside, &F->maxdist)) == EP_EINPUT) {
            char msg[EP_ERRMSG_MAX];
            snprintf(msg, sizeof msg, "%s", ep_errmsg());
            st = ep_fail(EP_EINPUT, "%s does not cover level %d: %s (%s %.3g)", name, l - 1, msg,
                         o->max_distance > 0 ? "--max-distance" : "5% of the mesh's size,", limit);
        }
    }
    ep_mesh_free(&prev);
    return st;
}

/* parse_command_line: the options and --help of cmd/spec/mghier.json (scripts/toolspec.py). */
#include "mghier_spec.h"

int main(int argc, char **argv)
{
    opts o = {.levels = 3};
    ep_cli cli;
    ep_mesh m = {0};
    ep_material mat = {0};
    ep_mghier h = {0};
    char *fixed = NULL;
    int st, nfixed;
    double t0 = ep_now();

    parse_command_line(&cli, &o, argc, argv);
    if (o.nested && o.ncoarse)
        ep_cli_exit(ep_fail(EP_EUSAGE, "--nested and --coarse exclude each other"));
    if (o.ncoarse)
        o.levels = o.ncoarse + 1;

    /* read -> validate */
    if ((st = ep_cli_read_volume(&cli, &m, cli.inputs[0])) || (st = ep_cli_material(&cli, &m, 0.5, &mat)) ||
        (st = ep_cli_fixed(&cli, &m, &fixed, &nfixed)))
        goto out;
    if (o.nested && !m.tets) {
        st = ep_fail(EP_EINPUT, "%s: --nested refines tets, not hexes", m.source);
        goto out;
    }

    /* compute */
    ep_cli_stage(&cli, "compute");
    if ((st = ep_mghier_init(&h, (int)o.levels)))
        goto out;
    h.nested = o.nested || o.levels == 1;
    if ((st = o.nested ? refine(&h, &o, &m, &mat, &fixed) : embed_levels(&h, &o, &m)))
        goto out;
    double t_mesh = ep_now() - t0, t1 = ep_now();
    if ((st = ep_mghier_operators(&h, &m, &mat, fixed)))
        goto out;
    double t_op = ep_now() - t1;

    /* write */
    ep_h5 *f;
    if ((st = ep_cli_create_h5(&cli, "multigrid", &f)) || (st = ep_model_write(f, &m, &mat, fixed)) ||
        (st = ep_mg_file_write(f, &h)) || (st = ep_output_commit(&cli.out)))
        goto out;
    if (!cli.quiet) {
        printf("mghier: %s: %d levels (%s):", cli.output, h.nlevels, h.nested ? "nested" : "non-nested");
        for (int l = 0; l < h.nlevels; l++)
            printf("%s %d vertices, %d blocks", l ? ";" : "", h.level[l].nv, h.level[l].K.rowptr[h.level[l].K.n]);
        for (int l = 0; l + 1 < h.nlevels; l++)
            if (h.level[l].noutside)
                printf("; level %d: %d vertices outside level %d (farthest %.3g)", l, h.level[l].noutside, l + 1,
                       h.level[l].maxdist);
        printf("; meshes %.2f s, operators %.2f s, total %.2f s\n", t_mesh, t_op, ep_now() - t0);
    }
out:
    ep_mghier_free(&h);
    free(fixed);
    ep_material_free(&mat);
    ep_mesh_free(&m);
    ep_cli_exit(st);
}
