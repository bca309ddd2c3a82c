/*
 * meshio.c — the text mesh formats (meshio.h): readers for Gmsh .msh 2.2/4.1
 * ASCII (tets, 8-node hexahedra), TetGen .node/.ele, Vega .veg (TET and
 * CUBIC), .obj and .off, the surface writer for .obj and .off, and the .veg
 * writer.
 *
 * Each reader fills the raw arrays of an ep_mesh and checks what only the file
 * can tell (syntax, finite coordinates, index ranges) with "FILE:LINE:" errors;
 * ep_meshio_read then runs the checks and derivations common to all formats
 * (ep_mesh_complete).
 */
#include "meshio.h"
#include "err.h"
#include "meshbin.h"
#include "text.h"
#include "sort.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- growable arrays used while parsing ---------------------------------- */

typedef struct {
    int *a;
    size_t n, cap;
} ivec;

static int ivec_push(ivec *v, int x)
{
    if (ep_grow_to(&v->a, &v->cap, v->n + 1, sizeof *v->a))
        return EP_ECOMPUTE;
    v->a[v->n++] = x;
    return EP_OK;
}

typedef struct {
    double *a;
    size_t n, cap;
} dvec;

static int dvec_push3(dvec *v, const double x[3])
{
    if (ep_grow_to(&v->a, &v->cap, v->n + 3, sizeof *v->a))
        return EP_ECOMPUTE;
    memcpy(v->a + v->n, x, 3 * sizeof *x);
    v->n += 3;
    return EP_OK;
}

/* Sort and deduplicate v in place; returns the new length. */
static size_t sort_unique(int *v, size_t n)
{
    size_t k = 0;
    ep_sort_ints(v, n);
    for (size_t i = 0; i < n; i++)
        if (k == 0 || v[i] != v[k - 1])
            v[k++] = v[i];
    return k;
}

/* Vertex groups under construction: one growable id list per (dim, tag, name). */
typedef struct {
    ep_group *g;
    ivec *ids;
    int n;
} groups;

static int group_slot(groups *gs, int dim, int tag, const char *name, int *slot)
{
    for (int i = 0; i < gs->n; i++)
        if (gs->g[i].dim == dim && gs->g[i].tag == tag &&
            (tag >= 0 || !strcmp(gs->g[i].name, name))) {
            *slot = i;
            return EP_OK;
        }
    if (ep_grow(&gs->g, (size_t)gs->n + 1, sizeof *gs->g) ||
        ep_grow(&gs->ids, (size_t)gs->n + 1, sizeof *gs->ids))
        return EP_ECOMPUTE;
    memset(&gs->g[gs->n], 0, sizeof *gs->g);
    memset(&gs->ids[gs->n], 0, sizeof *gs->ids);
    gs->g[gs->n].dim = dim;
    gs->g[gs->n].tag = tag;
    snprintf(gs->g[gs->n].name, sizeof gs->g[gs->n].name, "%s", name ? name : "");
    *slot = gs->n++;
    return EP_OK;
}

static int group_add(groups *gs, int dim, int tag, const char *name, const int *v, int nv)
{
    int s, st = group_slot(gs, dim, tag, name, &s);
    for (int i = 0; i < nv && !st; i++)
        st = ivec_push(&gs->ids[s], v[i]);
    return st;
}

/* Move finished groups into the mesh (sorted, unique vertex lists). */
static void groups_finish(groups *gs, ep_mesh *m)
{
    for (int i = 0; i < gs->n; i++) {
        gs->g[i].nv = (int)sort_unique(gs->ids[i].a, gs->ids[i].n);
        gs->g[i].v = gs->ids[i].a;
    }
    free(gs->ids);
    m->groups = gs->g;
    m->ngroups = gs->n;
    memset(gs, 0, sizeof *gs);
}

static void groups_free(groups *gs)
{
    for (int i = 0; i < gs->n; i++)
        free(gs->ids[i].a);
    free(gs->ids);
    free(gs->g);
    memset(gs, 0, sizeof *gs);
}

/* Hand the parsed arrays to the mesh: volume elements of k = 4 (tets) or 8
 * (hexes) corners, their regions, surface triangles. */
static void take_arrays(ep_mesh *m, dvec *x, ivec *elems, int k, ivec *region, ivec *tris)
{
    m->nv = (int)(x->n / 3);
    m->vertices = x->a;
    if (elems && elems->n) {
        *(k == 8 ? &m->nh : &m->ne) = (int)(elems->n / (size_t)k);
        *(k == 8 ? &m->hexes : &m->tets) = elems->a;
        elems->a = NULL;
        if (region && region->n) {
            m->region = region->a;
            region->a = NULL;
        }
    }
    if (tris && tris->n) {
        m->nf = (int)(tris->n / 3);
        m->triangles = tris->a;
        tris->a = NULL;
    }
    x->a = NULL;
}

static int too_many(const ep_text *t, long n, long limit, const char *what)
{
    if (n < 0 || n > limit)
        return ep_text_fail(t, EP_EINPUT, "impossible %s count %ld", what, n);
    return EP_OK;
}

#define MAX_COUNT 0x7ffffff0L /* int32 indices in the file schema */

/* ---- .obj ------------------------------------------------------------------ */

static int read_obj(const char *path, ep_mesh *m)
{
    ep_text t;
    dvec x = {0};
    ivec tri = {0}, poly = {0};
    int r, st = ep_text_open(&t, path, '#');
    if (st)
        return st;
    while (!(r = ep_text_next(&t)) && !t.eof) {
        char *w;
        if ((st = ep_text_word(&t, &w)))
            goto out;
        if (!strcmp(w, "v")) {
            double p[3];
            for (int k = 0; k < 3 && !st; k++)
                st = ep_text_double(&t, &p[k]);
            if (st || (st = dvec_push3(&x, p)))
                goto out;
        } else if (!strcmp(w, "f")) {
            long nv = (long)(x.n / 3);
            poly.n = 0;
            while (ep_text_more(&t)) {
                char *tok, *e;
                if ((st = ep_text_word(&t, &tok)))
                    goto out;
                errno = 0;
                long id = strtol(tok, &e, 10);
                if (e == tok || (*e && *e != '/') || errno) {
                    st = ep_text_fail(&t, EP_EINPUT, "bad face vertex \"%.20s\"", tok);
                    goto out;
                }
                id = id < 0 ? nv + id : id - 1; /* negative: relative to the end */
                if (id < 0 || id >= nv) {
                    st = ep_text_fail(&t, EP_EINPUT, "vertex index %s out of range (1..%ld)", tok, nv);
                    goto out;
                }
                if ((st = ivec_push(&poly, (int)id)))
                    goto out;
            }
            if (poly.n < 3) {
                st = ep_text_fail(&t, EP_EINPUT, "face with fewer than 3 vertices");
                goto out;
            }
            for (size_t k = 1; k + 1 < poly.n && !st; k++) { /* fan */
                st = ivec_push(&tri, poly.a[0]);
                st = st ? st : ivec_push(&tri, poly.a[k]);
                st = st ? st : ivec_push(&tri, poly.a[k + 1]);
            }
            if (st)
                goto out;
        }
        /* vn, vt, g, o, s, usemtl, mtllib: not needed */
    }
    if (r)
        st = r;
    else if (tri.n == 0)
        st = ep_fail(EP_EINPUT, "%s: no faces (not an .obj surface)", path);
    if (!st)
        take_arrays(m, &x, NULL, 4, NULL, &tri);
out:
    free(x.a);
    free(tri.a);
    free(poly.a);
    ep_text_close(&t);
    return st;
}

/* ---- .off ------------------------------------------------------------------ */

static int read_off(const char *path, ep_mesh *m)
{
    ep_text t;
    dvec x = {0};
    ivec tri = {0};
    long nv, nf, k;
    char *w;
    int st = ep_text_open(&t, path, '#');
    if (st)
        return st;
    if ((st = ep_text_need(&t, "the OFF header")) || (st = ep_text_word(&t, &w)))
        goto out;
    if (strcmp(w, "OFF")) {
        st = ep_text_fail(&t, EP_EINPUT, "not an OFF file (header \"%.20s\")", w);
        goto out;
    }
    if (!ep_text_more(&t) && (st = ep_text_need(&t, "vertex and face counts")))
        goto out;
    if ((st = ep_text_long(&t, &nv)) || (st = ep_text_long(&t, &nf)) ||
        (st = too_many(&t, nv, MAX_COUNT, "vertex")) || (st = too_many(&t, nf, MAX_COUNT, "face")))
        goto out;
    for (long i = 0; i < nv; i++) {
        double p[3];
        if ((st = ep_text_need(&t, "a vertex line")))
            goto out;
        for (int a = 0; a < 3 && !st; a++)
            st = ep_text_double(&t, &p[a]);
        if (st || (st = dvec_push3(&x, p)))
            goto out;
    }
    for (long f = 0; f < nf; f++) {
        long v[64];
        if ((st = ep_text_need(&t, "a face line")) || (st = ep_text_long(&t, &k)))
            goto out;
        if (k < 3 || k > 64) {
            st = ep_text_fail(&t, EP_EINPUT, "face with %ld vertices (3..64 supported)", k);
            goto out;
        }
        for (long i = 0; i < k; i++) {
            if ((st = ep_text_long(&t, &v[i])))
                goto out;
            if (v[i] < 0 || v[i] >= nv) {
                st = ep_text_fail(&t, EP_EINPUT, "vertex index %ld out of range (0..%ld)", v[i], nv - 1);
                goto out;
            }
        }
        for (long i = 1; i + 1 < k && !st; i++) {
            st = ivec_push(&tri, (int)v[0]);
            st = st ? st : ivec_push(&tri, (int)v[i]);
            st = st ? st : ivec_push(&tri, (int)v[i + 1]);
        }
        if (st)
            goto out;
    }
    if (nf == 0)
        st = ep_fail(EP_EINPUT, "%s: no faces", path);
    else
        take_arrays(m, &x, NULL, 4, NULL, &tri);
out:
    free(x.a);
    free(tri.a);
    ep_text_close(&t);
    return st;
}

/* ---- Gmsh .msh 2.2 and 4.1 ASCII ------------------------------------------- */

typedef struct {
    int dim, tag, nphys;
    int phys[8];
} entity;

typedef struct {
    ep_text t;
    double version;
    dvec x;
    ep_sort_pair *tags; /* node tag -> vertex index, sorted by tag after $Nodes */
    size_t ntags;
    ivec tets, hexes, region, tris;
    entity *ent;        /* 4.1 $Entities */
    int nent;
    struct { int dim, tag; char name[64]; } *names;
    int nnames;
    groups gs;
} msh;

/* A region or physical tag that an int holds, as text_int. */
static int tag_fits(ep_text *t, long x)
{
    if (x < -INT_MAX || x > INT_MAX)
        return ep_text_fail(t, EP_EINPUT, "tag %ld out of the range of region ids", x);
    return EP_OK;
}

/* An integer that an int holds, for ids and tags: a long cut to an int made
 * 4294967297 element 1 (issue 37, class 7).  0 or EP_EINPUT naming it. */
static int text_int(ep_text *t, int *v, const char *what)
{
    long x;
    int st = ep_text_long(t, &x);
    if (st)
        return st;
    if (x < INT_MIN || x > INT_MAX)
        return ep_text_fail(t, EP_EINPUT, "%s %ld out of the range of ids", what, x);
    *v = (int)x;
    return EP_OK;
}

static int msh_node(msh *s, long tag, int *index)
{
    const ep_sort_pair *hit = ep_sort_pairs_find(s->tags, s->ntags, tag);
    if (!hit)
        return ep_text_fail(&s->t, EP_EINPUT, "node %ld not defined in $Nodes", tag);
    *index = hit->id;
    return EP_OK;
}

static int msh_add_node(msh *s, long tag)
{
    double p[3];
    int st = EP_OK;
    for (int a = 0; a < 3 && !st; a++)
        st = ep_text_double(&s->t, &p[a]);
    if (st)
        return st;
    if (ep_grow(&s->tags, s->ntags + 1, sizeof *s->tags))
        return EP_ECOMPUTE;
    s->tags[s->ntags].key = tag;
    s->tags[s->ntags].id = (int)(s->x.n / 3);
    s->ntags++;
    return dvec_push3(&s->x, p);
}

static int msh_sort_tags(msh *s)
{
    ep_sort_pairs(s->tags, s->ntags);
    for (size_t i = 1; i < s->ntags; i++)
        if (s->tags[i].key == s->tags[i - 1].key)
            return ep_fail(EP_EINPUT, "%s: node %ld defined twice", s->t.path, (long)s->tags[i].key);
    return EP_OK;
}

static const char *msh_name(const msh *s, int dim, int tag)
{
    for (int i = 0; i < s->nnames; i++)
        if (s->names[i].dim == dim && s->names[i].tag == tag)
            return s->names[i].name;
    return "";
}

/* Nodes per element of the supported linear types; 0 for unsupported. */
static int msh_type_nodes(long type, int *dim)
{
    switch (type) {
    case 15: *dim = 0; return 1; /* point */
    case 1:  *dim = 1; return 2; /* line */
    case 2:  *dim = 2; return 3; /* triangle */
    case 3:  *dim = 2; return 4; /* quadrangle: boundary faces of hexes, for groups */
    case 4:  *dim = 3; return 4; /* tetrahedron */
    case 5:  *dim = 3; return 8; /* hexahedron, corners in the order of hex.h */
    default: return 0;
    }
}

/* One element: node tags already read into nodes[]; phys[] its physical tags. */
static int msh_element(msh *s, long type, const long *ntag, const int *phys, int nphys,
                       int elementary)
{
    int dim = 0, v[8], st = EP_OK;
    int nn = msh_type_nodes(type, &dim);
    for (int i = 0; i < nn && !st; i++)
        st = msh_node(s, ntag[i], &v[i]);
    for (int i = 0; i < nphys && !st; i++)
        st = group_add(&s->gs, dim, phys[i], msh_name(s, dim, phys[i]), v, nn);
    if (st)
        return st;
    if (type == 4 || type == 5) {
        if ((type == 4 && s->hexes.n) || (type == 5 && s->tets.n))
            return ep_text_fail(&s->t, EP_EINPUT, "tetrahedra and hexahedra in one mesh (a mesh holds one kind)");
        for (int i = 0; i < nn && !st; i++)
            st = ivec_push(type == 4 ? &s->tets : &s->hexes, v[i]);
        return st ? st : ivec_push(&s->region, nphys ? phys[0] : elementary);
    }
    if (type == 2)
        for (int i = 0; i < 3 && !st; i++)
            st = ivec_push(&s->tris, v[i]);
    return st;
}

static int msh_unsupported(msh *s, long type)
{
    static const char *higher[] = {[8] = "3-node lines", [9] = "6-node triangles", [10] = "9-node quadrangles",
                                   [11] = "10-node tetrahedra", [12] = "27-node hexahedra", [16] = "8-node quadrangles",
                                   [17] = "20-node hexahedra"};
    if (type >= 8 && type <= 17 && higher[type])
        return ep_text_fail(&s->t, EP_EINPUT,
                            "second-order elements (Gmsh type %ld, %s): elastoprep takes linear ones; export first "
                            "order (gmsh -3 -order 1, or Mesh.ElementOrder = 1 in the .geo)", type, higher[type]);
    return ep_text_fail(&s->t, EP_EINPUT,
                        "element type %ld not supported (linear tetrahedra 4, hexahedra 5, triangles 2, "
                        "quadrangles 3, lines 1 and points 15 only)", type);
}

static int msh_physical_names(msh *s)
{
    long n;
    int st = ep_text_need(&s->t, "the number of physical names");
    if (st || (st = ep_text_long(&s->t, &n)) || (st = too_many(&s->t, n, 1L << 20, "physical name")))
        return st;
    if (ep_grow(&s->names, (size_t)s->nnames + (size_t)n + 1, sizeof *s->names)) /* sections may repeat */
        return EP_ECOMPUTE;
    for (long i = 0; i < n; i++) {
        long dim, tag;
        if ((st = ep_text_need(&s->t, "a physical name")) || (st = ep_text_long(&s->t, &dim)) ||
            (st = ep_text_long(&s->t, &tag)) || (st = tag_fits(&s->t, tag)))
            return st;
        char *q = strchr(s->t.p, '"'), *e = q ? strchr(q + 1, '"') : NULL;
        if (!e)
            return ep_text_fail(&s->t, EP_EINPUT, "expected a quoted physical name");
        *e = '\0';
        s->names[s->nnames].dim = (int)dim;
        s->names[s->nnames].tag = (int)tag;
        snprintf(s->names[s->nnames].name, sizeof s->names[0].name, "%s", q + 1);
        s->nnames++;
    }
    return EP_OK;
}

static int msh_entities(msh *s)
{
    long cnt[4], total = 0;
    int st = ep_text_need(&s->t, "entity counts");
    for (int d = 0; d < 4 && !st; d++)
        st = ep_text_long(&s->t, &cnt[d]);
    for (int d = 0; d < 4 && !st; d++) {
        st = too_many(&s->t, cnt[d], 1L << 24, "entity");
        total += cnt[d];
    }
    if (st)
        return st;
    if (ep_grow(&s->ent, (size_t)s->nent + (size_t)total + 1, sizeof *s->ent))
        return EP_ECOMPUTE;
    for (int d = 0; d < 4; d++)
        for (long i = 0; i < cnt[d]; i++) {
            long tag, np, ph;
            double skip;
            entity *en = &s->ent[s->nent];
            if ((st = ep_text_need(&s->t, "an entity")) || (st = ep_text_long(&s->t, &tag)) ||
                (st = tag_fits(&s->t, tag)))
                return st;
            for (int k = 0; k < (d == 0 ? 3 : 6) && !st; k++) /* point xyz or bounding box */
                st = ep_text_double(&s->t, &skip);
            if (st || (st = ep_text_long(&s->t, &np)))
                return st;
            if (np < 0 || np > 8)
                return ep_text_fail(&s->t, EP_EINPUT, "entity with %ld physical tags (0..8 supported)", np);
            en->dim = d;
            en->tag = (int)tag;
            en->nphys = (int)np;
            for (long k = 0; k < np; k++) {
                if ((st = ep_text_long(&s->t, &ph)) || (st = tag_fits(&s->t, ph)))
                    return st;
                en->phys[k] = (int)(ph < 0 ? -ph : ph);
            }
            s->nent++;
        }
    return EP_OK;
}

static const entity *msh_entity(const msh *s, int dim, int tag)
{
    for (int i = 0; i < s->nent; i++)
        if (s->ent[i].dim == dim && s->ent[i].tag == tag)
            return &s->ent[i];
    return NULL;
}

static int msh_nodes(msh *s)
{
    long nblocks, nnodes, id;
    int st = ep_text_need(&s->t, "node counts");
    if (st)
        return st;
    if (s->version < 4) {
        if ((st = ep_text_long(&s->t, &nnodes)) || (st = too_many(&s->t, nnodes, MAX_COUNT, "node")))
            return st;
        for (long i = 0; i < nnodes; i++)
            if ((st = ep_text_need(&s->t, "a node")) || (st = ep_text_long(&s->t, &id)) ||
                (st = msh_add_node(s, id)))
                return st;
        return msh_sort_tags(s);
    }
    if ((st = ep_text_long(&s->t, &nblocks)) || (st = ep_text_long(&s->t, &nnodes)) ||
        (st = too_many(&s->t, nnodes, MAX_COUNT, "node")) ||
        (st = too_many(&s->t, nblocks, MAX_COUNT, "entity block")))
        return st;
    for (long b = 0; b < nblocks; b++) {
        long dim, tag, param, n;
        if ((st = ep_text_need(&s->t, "a node block")) || (st = ep_text_long(&s->t, &dim)) ||
            (st = ep_text_long(&s->t, &tag)) || (st = ep_text_long(&s->t, &param)) ||
            (st = ep_text_long(&s->t, &n)) || (st = too_many(&s->t, n, nnodes, "node")))
            return st;
        if (param)
            return ep_text_fail(&s->t, EP_EINPUT, "parametric nodes not supported");
        long *ids = ep_malloc((size_t)n + 1, sizeof *ids);
        if (!ids)
            return EP_ECOMPUTE;
        for (long i = 0; i < n && !st; i++)
            if (!(st = ep_text_need(&s->t, "a node tag")))
                st = ep_text_long(&s->t, &ids[i]);
        for (long i = 0; i < n && !st; i++)
            if (!(st = ep_text_need(&s->t, "node coordinates")))
                st = msh_add_node(s, ids[i]);
        free(ids);
        if (st)
            return st;
    }
    return msh_sort_tags(s);
}

static int msh_elements(msh *s)
{
    long nblocks, nel, id, type, ntag[8];
    int st = ep_text_need(&s->t, "element counts");
    if (st)
        return st;
    if (!s->ntags)
        return ep_text_fail(&s->t, EP_EINPUT, "$Elements before $Nodes");
    if (s->version < 4) {
        if ((st = ep_text_long(&s->t, &nel)) || (st = too_many(&s->t, nel, MAX_COUNT, "element")))
            return st;
        for (long i = 0; i < nel; i++) {
            long nt, tag;
            int phys = 0, elementary = 0, dim, nn;
            if ((st = ep_text_need(&s->t, "an element")) || (st = ep_text_long(&s->t, &id)) ||
                (st = ep_text_long(&s->t, &type)) || (st = ep_text_long(&s->t, &nt)))
                return st;
            if (!(nn = msh_type_nodes(type, &dim)))
                return msh_unsupported(s, type);
            for (long k = 0; k < nt; k++) {
                if ((st = ep_text_long(&s->t, &tag)) || (k < 2 && (st = tag_fits(&s->t, tag))))
                    return st;
                if (k == 0)
                    phys = (int)tag;
                if (k == 1)
                    elementary = (int)tag;
            }
            for (int k = 0; k < nn; k++)
                if ((st = ep_text_long(&s->t, &ntag[k])))
                    return st;
            if ((st = msh_element(s, type, ntag, &phys, phys != 0, elementary)))
                return st;
        }
        return EP_OK;
    }
    if ((st = ep_text_long(&s->t, &nblocks)) || (st = ep_text_long(&s->t, &nel)) ||
        (st = too_many(&s->t, nel, MAX_COUNT, "element")) ||
        (st = too_many(&s->t, nblocks, MAX_COUNT, "entity block")))
        return st;
    for (long b = 0; b < nblocks; b++) {
        long dim, tag, n;
        int edim, nn;
        if ((st = ep_text_need(&s->t, "an element block")) || (st = ep_text_long(&s->t, &dim)) ||
            (st = ep_text_long(&s->t, &tag)) || (st = tag_fits(&s->t, tag)) || (st = ep_text_long(&s->t, &type)) ||
            (st = ep_text_long(&s->t, &n)) || (st = too_many(&s->t, n, nel, "element")))
            return st;
        if (!(nn = msh_type_nodes(type, &edim)))
            return msh_unsupported(s, type);
        const entity *en = msh_entity(s, (int)dim, (int)tag);
        for (long i = 0; i < n; i++) {
            if ((st = ep_text_need(&s->t, "an element")) || (st = ep_text_long(&s->t, &id)))
                return st;
            for (int k = 0; k < nn; k++)
                if ((st = ep_text_long(&s->t, &ntag[k])))
                    return st;
            if ((st = msh_element(s, type, ntag, en ? en->phys : NULL, en ? en->nphys : 0, (int)tag)))
                return st;
        }
    }
    return EP_OK;
}

/* Skip to the $End line of the current section. */
static int msh_skip(msh *s, const char *section)
{
    int r;
    while (!(r = ep_text_next(&s->t)) && !s->t.eof)
        if (!strncmp(s->t.p, "$End", 4))
            return EP_OK;
    return r ? r : ep_fail(EP_EINPUT, "%s: section %s not closed", s->t.path, section);
}

static int read_msh(const char *path, ep_mesh *m)
{
    msh s;
    int r, st;
    char *bin = NULL, label[4200];
    size_t blen;
    memset(&s, 0, sizeof s);
    /* A binary file is read as the ASCII text it converts to (meshbin.h);
     * its messages name the line of that text. */
    if ((st = ep_meshbin_msh_text(path, &bin, &blen)))
        return st;
    snprintf(label, sizeof label, "%s (binary, as ASCII)", path);
    if ((st = bin ? ep_text_open_buffer(&s.t, label, bin, blen, 0) : ep_text_open(&s.t, path, 0))) {
        free(bin);
        return st;
    }
    while (!(r = ep_text_next(&s.t)) && !s.t.eof) {
        char *word, sec[64]; /* a copy: the line buffer moves as lines are read */
        if ((st = ep_text_word(&s.t, &word)))
            goto out;
        snprintf(sec, sizeof sec, "%s", word);
        if (sec[0] != '$') {
            st = ep_text_fail(&s.t, EP_EINPUT, "expected a $Section, found \"%.20s\"", sec);
            goto out;
        }
        if (!s.version && strcmp(sec, "$MeshFormat")) {
            st = ep_text_fail(&s.t, EP_EINPUT, "not a Gmsh file (no $MeshFormat)");
            goto out;
        }
        if (!strcmp(sec, "$MeshFormat")) {
            long ftype;
            if ((st = ep_text_need(&s.t, "the format version")) ||
                (st = ep_text_double(&s.t, &s.version)) || (st = ep_text_long(&s.t, &ftype)))
                goto out;
            if (ftype != 0) {
                st = ep_text_fail(&s.t, EP_EINPUT, "file-type %ld not supported (0 ASCII, 1 binary)", ftype);
                goto out;
            }
            if (!(s.version >= 2.0 && s.version < 3.0) && !(s.version >= 4.1 && s.version < 5.0)) {
                st = ep_text_fail(&s.t, EP_EINPUT, "MSH version %g not supported (2.2 or 4.1)", s.version);
                goto out;
            }
        } else if (!strcmp(sec, "$PhysicalNames")) {
            st = msh_physical_names(&s);
        } else if (!strcmp(sec, "$Entities")) {
            st = msh_entities(&s);
        } else if (!strcmp(sec, "$Nodes")) {
            st = msh_nodes(&s);
        } else if (!strcmp(sec, "$Elements")) {
            st = msh_elements(&s);
        }
        if (st || (st = msh_skip(&s, sec)))
            goto out;
    }
    if (r)
        st = r;
    else if (!s.version)
        st = ep_fail(EP_EINPUT, "%s: empty file (no $MeshFormat)", path);
    else if (!s.tets.n && !s.hexes.n && !s.tris.n)
        st = ep_fail(EP_EINPUT, "%s: no tetrahedra, hexahedra or triangles", path);
    if (st)
        goto out;
    take_arrays(m, &s.x, s.tets.n ? &s.tets : &s.hexes, s.tets.n ? 4 : 8, &s.region, s.tets.n || s.hexes.n ? NULL : &s.tris);
    groups_finish(&s.gs, m);
out:
    free(s.x.a);
    free(s.tags);
    free(s.tets.a);
    free(s.hexes.a);
    free(s.region.a);
    free(s.tris.a);
    free(s.ent);
    free(s.names);
    groups_free(&s.gs);
    ep_text_close(&s.t);
    free(bin);
    return st;
}

/* ---- TetGen .node/.ele ----------------------------------------------------- */

static int read_tetgen(const char *base, ep_mesh *m)
{
    char node[4160], ele[4160]; /* base (< 4096) + extension */
    ep_text t;
    dvec x = {0};
    ivec tets = {0}, region = {0};
    long n, dim, nattr, nbm, id, idbase = 0, npe, rattr;
    int st;
    snprintf(node, sizeof node, "%s.node", base);
    snprintf(ele, sizeof ele, "%s.ele", base);
    if ((st = ep_text_open(&t, node, '#')))
        return st;
    if ((st = ep_text_need(&t, "the .node header")) || (st = ep_text_long(&t, &n)) ||
        (st = ep_text_long(&t, &dim)) || (st = ep_text_long(&t, &nattr)) ||
        (st = ep_text_long(&t, &nbm)) || (st = too_many(&t, n, MAX_COUNT, "node")))
        goto out;
    if (dim != 3) {
        st = ep_text_fail(&t, EP_EINPUT, "dimension %ld (3 expected)", dim);
        goto out;
    }
    for (long i = 0; i < n; i++) {
        double p[3];
        if ((st = ep_text_need(&t, "a node")) || (st = ep_text_long(&t, &id)))
            goto out;
        if (i == 0)
            idbase = id; /* TetGen numbers from 0 or 1, as its input did */
        if (id != idbase + i) {
            st = ep_text_fail(&t, EP_EINPUT, "node id %ld out of sequence (expected %ld)", id, idbase + i);
            goto out;
        }
        for (int a = 0; a < 3 && !st; a++)
            st = ep_text_double(&t, &p[a]);
        if (st || (st = dvec_push3(&x, p)))
            goto out;
    }
    ep_text_close(&t);
    if ((st = ep_text_open(&t, ele, '#')))
        goto out;
    if ((st = ep_text_need(&t, "the .ele header")) || (st = ep_text_long(&t, &n)) ||
        (st = ep_text_long(&t, &npe)) || (st = ep_text_long(&t, &rattr)) ||
        (st = too_many(&t, n, MAX_COUNT, "tetrahedron")))
        goto out;
    if (npe != 4 && npe != 10) {
        st = ep_text_fail(&t, EP_EINPUT, "%ld nodes per tetrahedron (4 or 10 expected)", npe);
        goto out;
    }
    for (long e = 0; e < n; e++) {
        long v;
        if ((st = ep_text_need(&t, "a tetrahedron")) || (st = ep_text_long(&t, &id)))
            goto out;
        for (long k = 0; k < npe; k++) {
            if ((st = ep_text_long(&t, &v)))
                goto out;
            if (k >= 4) /* second-order nodes: the model is linear */
                continue;
            if (v - idbase < 0 || v - idbase >= (long)(x.n / 3)) {
                st = ep_text_fail(&t, EP_EINPUT, "node %ld out of range", v);
                goto out;
            }
            if ((st = ivec_push(&tets, (int)(v - idbase))))
                goto out;
        }
        if (rattr) {
            double r;
            if ((st = ep_text_double(&t, &r)))
                goto out;
            if (r != (int)fmin(fmax(r, INT_MIN), INT_MAX)) { /* region tags are integers */
                st = ep_text_fail(&t, EP_EINPUT, "region attribute %g is not an integer tag", r);
                goto out;
            }
            if ((st = ivec_push(&region, (int)r)))
                goto out;
        }
    }
    take_arrays(m, &x, &tets, 4, &region, NULL);
out:
    free(x.a);
    free(tets.a);
    free(region.a);
    ep_text_close(&t);
    return st;
}

/* ---- Vega .veg --------------------------------------------------------------- */

typedef struct {
    char name[64];
    double rho, E, nu;
} veg_material;

typedef struct {
    char name[64];
    ivec elems;  /* 1-based element ids */
} veg_set;

typedef struct {
    dvec x;
    ivec elems;  /* [n][npe], 0-based */
    int npe;     /* 4 (TET) or 8 (CUBIC) */
    veg_material *mat;
    int nmat;
    veg_set *set;
    int nset;
    struct { int set, mat; } *reg;
    int nreg;
} veg;

static int veg_keyword(const char *line, const char *kw)
{
    size_t n = strlen(kw);
    return !strncasecmp(line, kw, n) && (line[n] == '\0' || line[n] == ' ' || line[n] == '\t' ||
                                         line[n] == '\r' || line[n] == '\n');
}

/* Text after the keyword, trimmed: the name of *MATERIAL or *SET, the file of *INCLUDE. */
static void veg_arg(const char *line, size_t kwlen, char *out, size_t cap)
{
    const char *s = line + kwlen;
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strcspn(s, "\r\n");
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    snprintf(out, cap, "%.*s", (int)n, s);
}

static int veg_vertices(ep_text *t, veg *g)
{
    long n, id;
    int st;
    if ((st = ep_text_need(t, "the vertex count")) || (st = ep_text_long(t, &n)) ||
        (st = too_many(t, n, MAX_COUNT, "vertex")))
        return st;
    if (g->x.n)
        return ep_text_fail(t, EP_EINPUT, "second *VERTICES section");
    for (long i = 0; i < n; i++) {
        double p[3];
        if ((st = ep_text_need(t, "a vertex")) || (st = ep_text_long(t, &id)))
            return st;
        if (id != i + 1)
            return ep_text_fail(t, EP_EINPUT, "vertex id %ld out of sequence (expected %ld)", id, i + 1);
        for (int a = 0; a < 3 && !st; a++)
            st = ep_text_double(t, &p[a]);
        if (st || (st = dvec_push3(&g->x, p)))
            return st;
    }
    return EP_OK;
}

static int veg_elements(ep_text *t, veg *g)
{
    long n, npe, id, v;
    char *type;
    int st;
    if ((st = ep_text_need(t, "the element type")) || (st = ep_text_word(t, &type)))
        return st;
    int cubic = !strcasecmp(type, "CUBIC");
    if (strcasecmp(type, "TET") && strcasecmp(type, "TETS") && !cubic)
        return ep_text_fail(t, EP_EINPUT, "element type %s not supported (TET or CUBIC)", type);
    if (g->npe)
        return ep_text_fail(t, EP_EINPUT, "second *ELEMENTS section");
    if ((st = ep_text_need(t, "the element count")) || (st = ep_text_long(t, &n)) ||
        (st = ep_text_long(t, &npe)) || (st = too_many(t, n, MAX_COUNT / 8, "element")))
        return st;
    g->npe = cubic ? 8 : 4;
    if (npe != g->npe)
        return ep_text_fail(t, EP_EINPUT, "%ld vertices per element (%d expected)", npe, g->npe);
    long nv = (long)(g->x.n / 3);
    for (long e = 0; e < n; e++) {
        if ((st = ep_text_need(t, "an element")) || (st = ep_text_long(t, &id)))
            return st;
        for (int k = 0; k < g->npe; k++) {
            if ((st = ep_text_long(t, &v)))
                return st;
            if (v < 1 || v > nv)
                return ep_text_fail(t, EP_EINPUT, "vertex index %ld out of range (1..%ld)", v, nv);
            if ((st = ivec_push(&g->elems, (int)(v - 1))))
                return st;
        }
    }
    return EP_OK;
}

static int veg_material_section(ep_text *t, veg *g, const char *name)
{
    char *kind;
    int st;
    if ((st = ep_text_need(t, "the material line")) || (st = ep_text_word(t, &kind)))
        return st;
    if (strcasecmp(kind, "ENU"))
        return ep_text_fail(t, EP_EINPUT, "material model %s not supported (ENU only)", kind);
    if (ep_grow(&g->mat, (size_t)g->nmat + 1, sizeof *g->mat))
        return EP_ECOMPUTE;
    veg_material *mt = &g->mat[g->nmat];
    snprintf(mt->name, sizeof mt->name, "%.63s", name);
    if ((st = ep_text_double(t, &mt->rho)) || (st = ep_text_double(t, &mt->E)) ||
        (st = ep_text_double(t, &mt->nu)))
        return st;
    g->nmat++;
    return EP_OK;
}

static int veg_set_section(ep_text *t, veg *g, const char *name)
{
    int r, st, id = 0;
    if (ep_grow(&g->set, (size_t)g->nset + 1, sizeof *g->set))
        return EP_ECOMPUTE;
    veg_set *s = &g->set[g->nset++];
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%.63s", name);
    while (!(r = ep_text_next(t)) && !t->eof) {
        if (t->p[0] == '*') {
            ep_text_unread(t);
            return EP_OK;
        }
        while (ep_text_more(t))
            if ((st = text_int(t, &id, "element")) || (st = ivec_push(&s->elems, id)))
                return st;
    }
    return r ? r : EP_OK;
}

static int veg_find(const char *name, const void *arr, int n, size_t stride)
{
    for (int i = 0; i < n; i++)
        if (!strcmp((const char *)arr + (size_t)i * stride, name))
            return i;
    return -1;
}

static int veg_region_section(ep_text *t, veg *g)
{
    int r, st;
    while (!(r = ep_text_next(t)) && !t->eof) {
        char *set, *mat;
        if (t->p[0] == '*') {
            ep_text_unread(t);
            return EP_OK;
        }
        if ((st = ep_text_word(t, &set)) || (st = ep_text_word(t, &mat)))
            return st;
        int si = strcmp(set, "allElements") ? veg_find(set, g->set, g->nset, sizeof *g->set) : -2;
        int mi = veg_find(mat, g->mat, g->nmat, sizeof *g->mat);
        if (si == -1)
            return ep_text_fail(t, EP_EINPUT, "unknown set %s", set);
        if (mi < 0)
            return ep_text_fail(t, EP_EINPUT, "unknown material %s", mat);
        if (ep_grow(&g->reg, (size_t)g->nreg + 1, sizeof *g->reg))
            return EP_ECOMPUTE;
        g->reg[g->nreg].set = si;
        g->reg[g->nreg].mat = mi;
        g->nreg++;
    }
    return r ? r : EP_OK;
}

static int veg_parse(const char *path, veg *g, int depth)
{
    ep_text t;
    int r, st = ep_text_open(&t, path, '#');
    char arg[512];
    if (st)
        return st;
    while (!(r = ep_text_next(&t)) && !t.eof) {
        const char *l = t.p;
        if (veg_keyword(l, "*VERTICES")) {
            st = veg_vertices(&t, g);
        } else if (veg_keyword(l, "*ELEMENTS")) {
            st = veg_elements(&t, g);
        } else if (veg_keyword(l, "*MATERIAL")) {
            veg_arg(l, 9, arg, sizeof arg);
            st = veg_material_section(&t, g, arg);
        } else if (veg_keyword(l, "*SET")) {
            veg_arg(l, 4, arg, sizeof arg);
            st = veg_set_section(&t, g, arg);
        } else if (veg_keyword(l, "*REGION")) {
            st = veg_region_section(&t, g);
        } else if (veg_keyword(l, "*INCLUDE")) {
            char inc[4096];
            const char *slash = strrchr(path, '/');
            veg_arg(l, 8, arg, sizeof arg);
            if (depth >= 8) {
                st = ep_text_fail(&t, EP_EINPUT, "*INCLUDE nested too deeply");
            } else {
                if (arg[0] == '/' || !slash)
                    snprintf(inc, sizeof inc, "%s", arg);
                else
                    snprintf(inc, sizeof inc, "%.*s/%s", (int)(slash - path), path, arg);
                FILE *probe = fopen(inc, "r");
                if (!probe)
                    st = ep_text_fail(&t, EP_EIO, "*INCLUDE %s: cannot open: %s", inc, strerror(errno));
                else {
                    fclose(probe);
                    st = veg_parse(inc, g, depth + 1);
                }
            }
        } else if (l[0] == '*') {
            st = ep_text_fail(&t, EP_EINPUT, "unknown section %.30s", l);
        } else if (!g->x.n) {
            st = ep_text_fail(&t, EP_EINPUT, "not a Vega .veg file (no *VERTICES)");
        }
        /* other lines between sections: ignored, as Vega does */
        if (st)
            break;
    }
    if (r)
        st = r;
    ep_text_close(&t);
    return st;
}

/* Materials per element from *REGION (later entries override earlier ones);
 * region tag = 1-based index of the *REGION entry; sets become vertex groups. */
static int veg_finish(const char *path, veg *g, ep_mesh *m)
{
    const int *el;
    int npe, ne = ep_mesh_elements(m, &el, &npe), st = EP_OK;
    groups gs = {0};
    double *E = NULL, *nu = NULL, *rho = NULL;
    int *reg = ep_calloc((size_t)ne, sizeof *reg);
    if (!reg)
        return EP_ECOMPUTE;
    for (int i = 0; i < g->nset && !st; i++) {
        veg_set *s = &g->set[i];
        st = group_slot(&gs, 3, -1, s->name, &(int){0});
        for (size_t j = 0; j < s->elems.n && !st; j++) {
            int e = s->elems.a[j] - 1;
            if (e < 0 || e >= ne)
                st = ep_fail(EP_EINPUT, "%s: set %s: element %d out of range (1..%d)", path,
                             s->name, e + 1, ne);
            else
                st = group_add(&gs, 3, -1, s->name, &el[(size_t)npe * e], npe);
        }
    }
    for (int r = 0; r < g->nreg && !st; r++) {
        if (g->reg[r].set == -2) {
            for (int e = 0; e < ne; e++)
                reg[e] = r + 1;
            continue;
        }
        veg_set *s = &g->set[g->reg[r].set];
        for (size_t k = 0; k < s->elems.n; k++)
            reg[s->elems.a[k] - 1] = r + 1;
    }
    if (st)
        goto out;
    groups_finish(&gs, m);
    if (g->nmat == 0) {
        m->region = reg;
        return EP_OK;
    }
    E = ep_malloc((size_t)ne, sizeof *E);
    nu = ep_malloc((size_t)ne, sizeof *nu);
    rho = ep_malloc((size_t)ne, sizeof *rho);
    m->material = ep_calloc(1, sizeof *m->material);
    if (!E || !nu || !rho || !m->material) {
        st = EP_ECOMPUTE;
        goto out;
    }
    ep_material_init(m->material);
    for (int e = 0; e < ne; e++) {
        /* A single material and no *REGION: it applies to every element. */
        int mi = reg[e] ? g->reg[reg[e] - 1].mat : (g->nmat == 1 && !g->nreg ? 0 : -1);
        if (mi < 0) {
            st = ep_fail(EP_EINPUT, "%s: element %d has no material (in no *REGION)", path, e + 1);
            goto out;
        }
        E[e] = g->mat[mi].E;
        nu[e] = g->mat[mi].nu;
        rho[e] = g->mat[mi].rho;
    }
    ep_material_set_elements(m->material, ne, E, nu, rho);
    E = nu = rho = NULL;
    m->region = reg;
    reg = NULL;
out:
    groups_free(&gs);
    free(E);
    free(nu);
    free(rho);
    free(reg);
    return st;
}

static int read_veg(const char *path, ep_mesh *m)
{
    veg g;
    memset(&g, 0, sizeof g);
    int st = veg_parse(path, &g, 0);
    if (!st && !g.x.n)
        st = ep_fail(EP_EINPUT, "%s: no *VERTICES (empty or not a .veg file)", path);
    if (!st && !g.elems.n)
        st = ep_fail(EP_EINPUT, "%s: no *ELEMENTS", path);
    if (!st) {
        take_arrays(m, &g.x, &g.elems, g.npe, NULL, NULL);
        st = veg_finish(path, &g, m);
    }
    /* Vega's CUBIC elements are voxels: axis-aligned boxes in the corner
     * order of hex.h (cubicMesh.h), which the exact box integration needs */
    if (!st && m->hexes)
        st = ep_mesh_check_hexes(m, 1);
    free(g.x.a);
    free(g.elems.a);
    free(g.mat);
    for (int i = 0; i < g.nset; i++)
        free(g.set[i].elems.a);
    free(g.set);
    free(g.reg);
    return st;
}

/* ---- dispatch and writer ---------------------------------------------------- */

int ep_meshio_read(ep_mesh *m, const char *path)
{
    const char *ext = ep_text_ext(path);
    char base[4096];
    int st;
    ep_mesh_init(m);
    snprintf(m->source, sizeof m->source, "%s", path);
    if (!strcasecmp(ext, "msh"))
        st = read_msh(path, m);
    else if (!strcasecmp(ext, "veg"))
        st = read_veg(path, m);
    else if (!strcasecmp(ext, "obj"))
        st = read_obj(path, m);
    else if (!strcasecmp(ext, "off"))
        st = read_off(path, m);
    else if (!strcasecmp(ext, "stl"))
        st = ep_meshbin_read_stl(path, m);
    else if (!strcasecmp(ext, "node") || !strcasecmp(ext, "ele")) {
        snprintf(base, sizeof base, "%.*s", (int)(ext - 1 - path), path);
        st = read_tetgen(base, m);
    } else
        st = ep_fail(EP_EUSAGE, "%s: unknown mesh format (expected .msh, .node/.ele, .veg, "
                     ".obj, .off, .stl or .h5)", path);
    if (!st)
        st = ep_mesh_complete(m);
    if (st)
        ep_mesh_free(m);
    return st;
}

int ep_meshio_format(const char *path)
{
    const char *ext = ep_text_ext(path);
    return !strcasecmp(ext, "obj")   ? EP_MESHIO_OBJ
           : !strcasecmp(ext, "off") ? EP_MESHIO_OFF
           : !strcasecmp(ext, "veg") ? EP_MESHIO_VEG
                                     : -1;
}

/* An element's material group: region tag and material values. */
typedef struct {
    int region, e;
    double E, nu, rho;
} veg_key;

static int cmp_veg_key(const void *a, const void *b)
{
    const veg_key *x = a, *y = b;
    if (x->region != y->region)
        return (x->region > y->region) - (x->region < y->region);
    if (x->E != y->E)
        return (x->E > y->E) - (x->E < y->E);
    if (x->nu != y->nu)
        return (x->nu > y->nu) - (x->nu < y->nu);
    if (x->rho != y->rho)
        return (x->rho > y->rho) - (x->rho < y->rho);
    return (x->e > y->e) - (x->e < y->e);
}

/* x in the fewest digits that read back as x (%.15g or %.17g). */
static const char *shortest(char buf[32], double x)
{
    snprintf(buf, 32, "%.15g", x);
    if (strtod(buf, NULL) != x)
        snprintf(buf, 32, "%.17g", x);
    return buf;
}

static int same_group(const veg_key *x, const veg_key *y)
{
    return x->region == y->region && x->E == y->E && x->nu == y->nu && x->rho == y->rho;
}

int ep_meshio_write_veg(FILE *f, const ep_mesh *m, const ep_material *mat)
{
    const int *el;
    int k, ne = ep_mesh_elements(m, &el, &k), st;
    if (!ne)
        return ep_fail(EP_EINPUT, "%s: no tetrahedra or hexahedra to write as .veg", m->source);
    if (m->hexes && (st = ep_mesh_check_hexes(m, 1)))
        return st;
    int with_mat = mat != NULL;
    for (int e = 0; with_mat && e < (mat->ne ? mat->ne : 1); e++)
        with_mat = isfinite(ep_material_E(mat, e)) && isfinite(ep_material_nu(mat, e)) &&
                   isfinite(ep_material_rho(mat, e));
    veg_key *key = with_mat ? ep_malloc((size_t)ne, sizeof *key) : NULL;
    if (with_mat && !key)
        return EP_ECOMPUTE;
    fprintf(f, "# Vega mesh file (elastoprep): %d vertices, %d elements%s\n\n*VERTICES\n%d 3 0 0\n", m->nv, ne,
            with_mat ? "" : "; no material (E, nu and rho are needed)", m->nv);
    char b0[32], b1[32], b2[32];
    for (int v = 0; v < m->nv; v++)
        fprintf(f, "%d %s %s %s\n", v + 1, shortest(b0, m->vertices[3 * v]), shortest(b1, m->vertices[3 * v + 1]),
                shortest(b2, m->vertices[3 * v + 2]));
    fprintf(f, "\n*ELEMENTS\n%s\n%d %d 0\n", k == 8 ? "CUBIC" : "TET", ne, k);
    for (int e = 0; e < ne; e++) {
        fprintf(f, "%d", e + 1);
        for (int j = 0; j < k; j++)
            fprintf(f, " %d", el[(size_t)k * e + j] + 1);
        fputc('\n', f);
    }
    if (!with_mat)
        return EP_OK;
    /* groups of equal region tag and material, in ascending order */
    for (int e = 0; e < ne; e++)
        key[e] = (veg_key){m->region ? m->region[e] : 0, e, ep_material_E(mat, e), ep_material_nu(mat, e),
                           ep_material_rho(mat, e)};
    qsort(key, (size_t)ne, sizeof *key, cmp_veg_key);
    int ngroups = 0;
    for (int i = 0; i < ne; i++)
        if (i == 0 || !same_group(&key[i], &key[i - 1])) {
            ngroups++;
            fprintf(f, "\n*MATERIAL material%d\nENU, %s, %s, %s\n", ngroups, shortest(b0, key[i].rho),
                    shortest(b1, key[i].E), shortest(b2, key[i].nu));
        }
    for (int i = 0, g = 0, col = 0; ngroups > 1 && i < ne; i++) { /* Vega's layout: 8 ids a line */
        if (i == 0 || !same_group(&key[i], &key[i - 1]))
            fprintf(f, "\n*SET set%d\n", ++g), col = 0;
        int last = i + 1 == ne || !same_group(&key[i + 1], &key[i]);
        fprintf(f, "%d,%s", key[i].e + 1, ++col % 8 == 0 || last ? "\n" : " ");
    }
    fprintf(f, "\n*REGION\n");
    if (ngroups == 1)
        fprintf(f, "allElements, material1\n");
    for (int g = 1; ngroups > 1 && g <= ngroups; g++)
        fprintf(f, "set%d, material%d\n", g, g);
    free(key);
    return EP_OK;
}

int ep_meshio_write(FILE *f, const ep_mesh *m, int format)
{
    int obj = format == EP_MESHIO_OBJ, base = obj; /* .obj counts from 1 */
    if (format == EP_MESHIO_VEG)
        return ep_meshio_write_veg(f, m, m->material);
    if (obj)
        fprintf(f, "# elastoprep surface: %d vertices, %d triangles\n", m->nv, m->nf);
    else
        fprintf(f, "OFF\n%d %d 0\n", m->nv, m->nf); /* no comment line: TetGen reads none */
    for (int v = 0; v < m->nv; v++)
        fprintf(f, "%s%.17g %.17g %.17g\n", obj ? "v " : "", m->vertices[3 * v], m->vertices[3 * v + 1],
                m->vertices[3 * v + 2]);
    for (int t = 0; t < m->nf; t++)
        fprintf(f, "%s %d %d %d\n", obj ? "f" : "3", m->triangles[3 * t] + base, m->triangles[3 * t + 1] + base,
                m->triangles[3 * t + 2] + base);
    return EP_OK;
}
