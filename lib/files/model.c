/*
 * model.c — the model every file carries: /mesh, /material,
 * /constraints/fixed (model.h).
 */
#include "model.h"
#include "err.h"
#include "meshio.h"
#include "select.h"
#include "text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int ep_model_write_mesh(ep_h5 *f, const ep_mesh *m)
{
    hsize_t d[2];
    int st;
    d[0] = (hsize_t)m->nv, d[1] = 3;
    if ((st = ep_h5_write(f, "/mesh/vertices", EP_F64, 2, d, m->vertices)))
        return st;
    const int *el;
    int k, ne = ep_mesh_elements(m, &el, &k);
    if (k) {
        d[0] = (hsize_t)ne, d[1] = (hsize_t)k;
        if ((st = ep_h5_write(f, k == 4 ? "/mesh/tets" : "/mesh/hexes", EP_I32, 2, d, el)))
            return st;
        if (m->region && (st = ep_h5_write(f, "/mesh/region", EP_I32, 1, d, m->region)))
            return st;
    }
    d[0] = (hsize_t)m->nf, d[1] = 3;
    if ((st = ep_h5_write(f, "/mesh/triangles", EP_I32, 2, d, m->triangles)))
        return st;
    d[0] = (hsize_t)m->nb;
    if ((st = ep_h5_write(f, "/mesh/boundary", EP_I32, 1, d, m->boundary)) ||
        (st = ep_h5_write(f, "/mesh/vertex_area", EP_F64, 1, d, m->vertex_area)))
        return st;
    if (m->level) {
        d[0] = (hsize_t)m->nv, d[1] = 2;
        if ((st = ep_h5_write(f, "/mesh/level", EP_I8, 1, d, m->level)) ||
            (st = ep_h5_write(f, "/mesh/parents", EP_I32, 2, d, m->parents)))
            return st;
    }
    return EP_OK;
}

static int check_index(ep_h5 *f, const char *name, const int *v, size_t n, int lo, int hi)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] < lo || v[i] >= hi)
            return ep_fail(EP_EINPUT, "%s: %s: index %d at entry %zu out of range [%d, %d)", f->path,
                           name, v[i], i, lo, hi);
    return EP_OK;
}

/* Elements name[*][width] of vertices in [0, nv): *a (allocated), *n rows. */
static int read_elements(ep_h5 *f, const char *name, int width, int nv, int **a, int *n)
{
    hsize_t d[2] = {0, (hsize_t)width};
    void *p;
    int st = ep_h5_read(f, name, EP_I32, 2, d, &p);
    if (st)
        return st;
    *a = p;
    *n = (int)d[0];
    return check_index(f, name, *a, (size_t)width * d[0], 0, nv);
}

/* Level/parent hierarchy: base vertices have parents (-1, -1); an odd vertex
 * of level l has two distinct parents of lower level. */
static int check_hierarchy(ep_h5 *f, const ep_mesh *m)
{
    for (int v = 0; v < m->nv; v++) {
        const int *p = &m->parents[2 * v];
        int l = m->level[v];
        if (l < 0)
            return ep_fail(EP_EINPUT, "%s: /mesh/level: negative level at vertex %d", f->path, v);
        if (l == 0 ? (p[0] != -1 || p[1] != -1)
                   : (p[0] < 0 || p[1] < 0 || p[0] >= m->nv || p[1] >= m->nv || p[0] == p[1] ||
                      m->level[p[0]] >= l || m->level[p[1]] >= l))
            return ep_fail(EP_EINPUT, "%s: /mesh/parents: bad parents (%d, %d) of vertex %d (level %d)",
                           f->path, p[0], p[1], v, l);
        if (v > 0 && l < m->level[v - 1])
            return ep_fail(EP_EINPUT, "%s: /mesh/level: vertices not ordered coarse to fine at %d",
                           f->path, v);
    }
    return EP_OK;
}

/* A triangle turned so its smallest vertex comes first (orientation kept). */
static void rotate_min_first(int *t)
{
    while (t[0] > t[1] || t[0] > t[2]) {
        int a = t[0];
        t[0] = t[1], t[1] = t[2], t[2] = a;
    }
}

static int cmp_tri(const void *a, const void *b)
{
    const int *x = a, *y = b;
    for (int i = 0; i < 3; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}

/* A tet mesh's /mesh/triangles must be the boundary its tets imply, with
 * the same orientation: a tool trusts it as the surface where loads go
 * (one bogus triangle made GFs of a 3-vertex "boundary"; issue 22, class
 * 6).  stored (nstored triangles) against m's derived triangles.
 * Cost O(nf log nf). */
static int check_triangles(ep_h5 *f, const ep_mesh *m, int *stored, int nstored)
{
    int st = EP_OK, *derived = NULL;
    if (nstored != m->nf)
        return ep_fail(EP_EINPUT, "%s: /mesh/triangles holds %d triangles, the boundary of /mesh/tets %d",
                       f->path, nstored, m->nf);
    if (!(derived = ep_malloc(3 * (size_t)m->nf + 1, sizeof *derived)))
        return EP_ECOMPUTE;
    memcpy(derived, m->triangles, 3 * (size_t)m->nf * sizeof *derived);
    for (int t = 0; t < m->nf; t++) {
        rotate_min_first(&stored[3 * t]);
        rotate_min_first(&derived[3 * t]);
    }
    qsort(stored, (size_t)m->nf, 3 * sizeof *stored, cmp_tri);
    qsort(derived, (size_t)m->nf, 3 * sizeof *derived, cmp_tri);
    for (int t = 0; t < m->nf && !st; t++)
        if (cmp_tri(&stored[3 * t], &derived[3 * t]))
            st = ep_fail(EP_EINPUT,
                         "%s: /mesh/triangles is not the boundary of /mesh/tets (triangle %d %d %d, expected %d %d %d)",
                         f->path, stored[3 * t] + 1, stored[3 * t + 1] + 1, stored[3 * t + 2] + 1,
                         derived[3 * t] + 1, derived[3 * t + 1] + 1, derived[3 * t + 2] + 1);
    free(derived);
    return st;
}

int ep_model_load(ep_mesh *m, ep_h5 *f)
{
    hsize_t d[2];
    void *p;
    int st, *stored = NULL, nstored = 0;
    ep_mesh_init(m);
    snprintf(m->source, sizeof m->source, "%s", f->path);
    d[0] = 0, d[1] = 3;
    if ((st = ep_h5_read(f, "/mesh/vertices", EP_F64, 2, d, &p)))
        goto fail;
    m->vertices = p;
    m->nv = (int)d[0];
    if (m->nv == 0) {
        st = ep_fail(EP_EINPUT, "%s: /mesh/vertices is empty", f->path);
        goto fail;
    }
    if (ep_h5_exists(f, "/mesh/tets") && (st = read_elements(f, "/mesh/tets", 4, m->nv, &m->tets, &m->ne)))
        goto fail;
    if (ep_h5_exists(f, "/mesh/hexes") && (st = read_elements(f, "/mesh/hexes", 8, m->nv, &m->hexes, &m->nh)))
        goto fail;
    if ((m->tets && m->ne == 0) || (m->hexes && m->nh == 0)) { /* femcondense crashed on it (issue 22, class 6) */
        st = ep_fail(EP_EINPUT, "%s: /mesh/%s is empty", f->path, m->tets ? "tets" : "hexes");
        goto fail;
    }
    if (m->tets && m->hexes) {
        st = ep_fail(EP_EINPUT, "%s: /mesh/tets and /mesh/hexes both present (a mesh holds one kind of element)",
                     f->path);
        goto fail;
    }
    if (m->tets || m->hexes) {
        if (ep_h5_exists(f, "/mesh/region")) {
            d[0] = (hsize_t)ep_mesh_nelements(m);
            if ((st = ep_h5_read(f, "/mesh/region", EP_I32, 1, d, &p)))
                goto fail;
            m->region = p;
        }
    }
    /* a hex mesh's triangles are derived (its quads are known by their order) */
    if (!m->hexes && (ep_h5_exists(f, "/mesh/triangles") || !m->tets) &&
        (st = read_elements(f, "/mesh/triangles", 3, m->nv, &m->triangles, &m->nf)))
        goto fail;
    if (!m->tets && !m->hexes && m->nf == 0) {
        st = ep_fail(EP_EINPUT, "%s: /mesh/triangles is empty", f->path);
        goto fail;
    }
    if (m->tets && m->triangles) { /* derived from the tets below, then compared */
        stored = m->triangles;
        nstored = m->nf;
        m->triangles = NULL;
        m->nf = 0;
    }
    if (ep_h5_exists(f, "/mesh/level") || ep_h5_exists(f, "/mesh/parents")) {
        d[0] = (hsize_t)m->nv, d[1] = 2;
        if ((st = ep_h5_read(f, "/mesh/level", EP_I8, 1, d, &p)))
            goto fail;
        m->level = p;
        if ((st = ep_h5_read(f, "/mesh/parents", EP_I32, 2, d, &p)))
            goto fail;
        m->parents = p;
        if ((st = check_hierarchy(f, m)))
            goto fail;
    }
    if (ep_h5_exists(f, "/constraints/fixed") && (st = ep_model_read_fixed(f, m->nv, &m->fixed, &m->nfixed)))
        goto fail;
    if (ep_h5_exists(f, "/constraints/seam") && (st = ep_model_read_seam(f, m)))
        goto fail;
    /* boundary and vertex_area are derived data: recomputed from the triangles
     * (ep_mesh_complete), so a file cannot carry an inconsistent copy into a tool. */
    if (ep_h5_exists(f, "/material")) {
        if (!(m->material = ep_calloc(1, sizeof *m->material))) {
            st = EP_ECOMPUTE;
            goto fail;
        }
        if ((st = ep_model_read_material(m->material, f, ep_mesh_nelements(m))))
            goto fail;
    }
    if ((st = ep_mesh_complete(m)) || (stored && (st = check_triangles(f, m, stored, nstored))))
        goto fail;
    free(stored);
    return EP_OK;
fail:
    free(stored);
    ep_mesh_free(m);
    return st;
}

int ep_model_write_material(ep_h5 *f, const ep_material *mat)
{
    hid_t g = H5Gcreate2(f->id, "/material", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        return ep_fail(EP_EIO, "%s: cannot create /material", f->path);
    H5Gclose(g);
    if (mat->ne) {
        hsize_t d = (hsize_t)mat->ne;
        int st;
        if ((st = ep_h5_write(f, "/material/E", EP_F64, 1, &d, mat->e_E)) ||
            (st = ep_h5_write(f, "/material/nu", EP_F64, 1, &d, mat->e_nu)) ||
            (st = ep_h5_write(f, "/material/rho", EP_F64, 1, &d, mat->e_rho)))
            return st;
        return EP_OK;
    }
    int st = ep_h5_set_attr_double(f, "/material", "E", mat->E);
    st = st ? st : ep_h5_set_attr_double(f, "/material", "nu", mat->nu);
    return st ? st : ep_h5_set_attr_double(f, "/material", "rho", mat->rho);
}

int ep_model_read_material(ep_material *mat, ep_h5 *f, int ne)
{
    int st;
    ep_material_init(mat);
    if (ep_h5_exists(f, "/material/E")) {
        hsize_t d = (hsize_t)ne;
        void *E = NULL, *nu = NULL, *rho = NULL;
        if ((st = ep_h5_read(f, "/material/E", EP_F64, 1, &d, &E)) ||
            (st = ep_h5_read(f, "/material/nu", EP_F64, 1, &d, &nu)) ||
            (st = ep_h5_read(f, "/material/rho", EP_F64, 1, &d, &rho))) {
            free(E);
            free(nu);
            free(rho);
            return st;
        }
        ep_material_set_elements(mat, ne, E, nu, rho);
    } else if ((st = ep_h5_get_attr_double(f, "/material", "E", &mat->E)) ||
               (st = ep_h5_get_attr_double(f, "/material", "nu", &mat->nu)) ||
               (st = ep_h5_get_attr_double(f, "/material", "rho", &mat->rho))) {
        return st;
    }
    return ep_material_check(mat, 0.5 + 1e-12, f->path);
}

int ep_model_write_fixed(ep_h5 *f, const int *fixed, int nfixed)
{
    hsize_t d = (hsize_t)nfixed;
    return ep_h5_write(f, "/constraints/fixed", EP_I32, 1, &d, fixed);
}

int ep_model_write(ep_h5 *f, const ep_mesh *m, const ep_material *mat, const char *fixed)
{
    int st, *ids = NULL, n = 0;
    if (!mat)
        mat = m->material;
    if ((st = ep_model_write_mesh(f, m)) || (mat && (st = ep_model_write_material(f, mat))))
        return st;
    if (fixed && (st = ep_select_mask_ids(fixed, m->nv, &ids, &n)))
        return st;
    if (fixed ? n > 0 : m->fixed && m->nfixed > 0)
        st = ep_model_write_fixed(f, fixed ? ids : m->fixed, fixed ? n : m->nfixed);
    free(ids);
    if (!st && m->seam && m->nseam > 0) {
        hsize_t d = (hsize_t)m->nseam;
        st = ep_h5_write(f, "/constraints/seam", EP_I32, 1, &d, m->seam);
    }
    return st;
}

int ep_model_read(ep_mesh *m, const char *path)
{
    const char *ext = ep_text_ext(path);
    ep_h5 f = {0};
    int st;
    if (strcasecmp(ext, "h5") && strcasecmp(ext, "hdf5"))
        return ep_meshio_read(m, path);
    ep_mesh_init(m);
    if (!(st = ep_h5_open(&f, path, NULL)))
        st = ep_model_load(m, &f);
    ep_h5_close(&f);
    return st;
}

int ep_model_read_seam(ep_h5 *f, ep_mesh *m)
{
    hsize_t d = 0;
    void *p = NULL;
    int st = ep_h5_read(f, "/constraints/seam", EP_I32, 1, &d, &p);
    if (st)
        return st;
    if (d == 0) {
        free(p);
        return ep_fail(EP_EINPUT, "%s: /constraints/seam is empty", f->path);
    }
    if ((st = check_index(f, "/constraints/seam", p, d, 0, m->nv))) {
        free(p);
        return st;
    }
    m->seam = p;
    m->nseam = (int)d;
    return EP_OK;
}

int ep_model_read_fixed(ep_h5 *f, int nv, int **fixed, int *nfixed)
{
    hsize_t d = 0;
    void *p;
    int st = ep_h5_read(f, "/constraints/fixed", EP_I32, 1, &d, &p);
    if (st)
        return st;
    if (d == 0) { /* tools write none rather than an empty one; it was a usage error (class 13) */
        free(p);
        return ep_fail(EP_EINPUT, "%s: /constraints/fixed is empty", f->path);
    }
    if ((st = check_index(f, "/constraints/fixed", p, d, 0, nv))) {
        free(p);
        return st;
    }
    *fixed = p;
    *nfixed = (int)d;
    return EP_OK;
}
