/*
 * zonemesh.c — one zone of a multizone model and its seam (zonemesh.h).
 */
#include "zonemesh.h"
#include "err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The material of the zone's elements: homogeneous copied, per element
 * gathered.  0 or EP_ECOMPUTE. */
static int zone_material(ep_mesh *z, const ep_material *mat, const int *elem, int ne)
{
    if (!(z->material = ep_calloc(1, sizeof *z->material)))
        return EP_ECOMPUTE;
    ep_material_init(z->material);
    if (mat->ne == 0)
        return ep_material_copy(z->material, mat);
    double *E = ep_malloc((size_t)ne, sizeof *E), *nu = ep_malloc((size_t)ne, sizeof *nu),
           *rho = ep_malloc((size_t)ne, sizeof *rho);
    if (!E || !nu || !rho) {
        free(E), free(nu), free(rho);
        return EP_ECOMPUTE;
    }
    for (int e = 0; e < ne; e++) {
        E[e] = mat->e_E[elem[e]];
        nu[e] = mat->e_nu[elem[e]];
        rho[e] = mat->e_rho[elem[e]];
    }
    ep_material_set_elements(z->material, ne, E, nu, rho);
    return EP_OK;
}

int ep_zonemesh_extract(ep_mesh *z, const ep_mesh *m, int tag, const char *support, int **old_id)
{
    const int *el;
    int k, ne = ep_mesh_elements(m, &el, &k), nz = 0, st = EP_OK;
    ep_mesh_init(z);
    if (old_id)
        *old_id = NULL;
    snprintf(z->source, sizeof z->source, "%s", m->source);
    if (ne == 0 || !m->region)
        return ep_fail(EP_EINPUT, "%s: no region tags on the elements (zones are regions of a volumetric mesh)",
                       m->source);
    /* in[v]: bit 0 used by the zone, bit 1 used by another region */
    char *in = ep_calloc((size_t)m->nv, 1);
    int *newid = ep_malloc((size_t)m->nv, sizeof *newid), *elem = ep_malloc((size_t)ne, sizeof *elem);
    if (!in || !newid || !elem) {
        st = EP_ECOMPUTE;
        goto out;
    }
    for (int e = 0; e < ne; e++) {
        int mine = m->region[e] == tag;
        if (mine)
            elem[nz++] = e;
        for (int c = 0; c < k; c++)
            in[el[k * e + c]] |= (char)(mine ? 1 : 2);
    }
    if (nz == 0) {
        st = ep_fail(EP_EINPUT, "%s: no element has region tag %d", m->source, tag);
        goto out;
    }
    int nv = 0, ns = 0, nf = 0;
    for (int v = 0; v < m->nv; v++) {
        newid[v] = in[v] & 1 ? nv++ : -1;
        ns += in[v] == 3;
        nf += (in[v] & 1) && (in[v] == 3 || (support && support[v]));
    }
    if (ns == 0) {
        st = ep_fail(EP_EINPUT, "%s: region %d shares no vertex with another region (no seam)", m->source, tag);
        goto out;
    }
    z->nv = nv;
    z->nseam = ns;
    z->nfixed = nf;
    size_t zk = (size_t)nz * k;
    int *zel = ep_malloc(zk, sizeof *zel);
    if (k == 4)
        z->tets = zel, z->ne = nz;
    else
        z->hexes = zel, z->nh = nz;
    if (old_id && !(*old_id = ep_malloc((size_t)nv, sizeof **old_id)))
        zel = NULL;
    if (!zel || !(z->vertices = ep_malloc(3 * (size_t)nv, sizeof *z->vertices)) ||
        !(z->region = ep_malloc((size_t)nz, sizeof *z->region)) || !(z->seam = ep_malloc((size_t)ns, sizeof *z->seam)) ||
        !(z->fixed = ep_malloc((size_t)nf, sizeof *z->fixed))) {
        st = EP_ECOMPUTE;
        goto out;
    }
    ns = nf = 0;
    for (int v = 0; v < m->nv; v++) {
        if (newid[v] < 0)
            continue;
        memcpy(&z->vertices[3 * (size_t)newid[v]], &m->vertices[3 * (size_t)v], 3 * sizeof(double));
        if (old_id)
            (*old_id)[newid[v]] = v;
        if (in[v] == 3)
            z->seam[ns++] = newid[v];
        if (in[v] == 3 || (support && support[v]))
            z->fixed[nf++] = newid[v];
    }
    for (int e = 0; e < nz; e++) {
        z->region[e] = tag;
        for (int c = 0; c < k; c++)
            zel[(size_t)k * e + c] = newid[el[(size_t)k * elem[e] + c]];
    }
    if (m->material && (st = zone_material(z, m->material, elem, nz)))
        goto out;
    st = ep_mesh_complete(z);
out:
    free(in);
    free(newid);
    free(elem);
    if (st && old_id) {
        free(*old_id);
        *old_id = NULL;
    }
    return st;
}
