/*
 * xdmf.c — XDMF 3 sidecars that reference the HDF5 datasets in place
 * (xdmf.h).
 *
 * A row r of a dataset [k][3nv] is the XDMF 3 item
 *     <DataItem Dimensions="nv 3" Format="HDF">FILE:/modes/U|r 0:1 1:1 3nv:k 3nv</DataItem>
 * (the HDF5 controller's hyperslab: start, stride, count and the dataset's
 * extent, one number per rank), whose 3nv values, interleaved 3v + axis
 * (elastoprep(5)), are read as nv vectors by an Attribute of type Vector:
 * no copy of any number.  ParaView's Xdmf3 readers (the ones it opens .xmf
 * files with) read this form; they skip the XDMF 2 form, a HyperSlab item
 * around the dataset (ParaView 5.11, tests/paraview).
 */
#include "xdmf.h"
#include "err.h"
#include "mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct dset {
    int rank;
    hsize_t d[4];
    const char *number; /* XDMF NumberType */
    int precision;      /* bytes */
} dset;

typedef struct ctx {
    FILE *fp;            /* the stream of the grid being written: one of out[] */
    FILE *const *out;    /* a stream per part (xdmf.h) */
    unsigned used;       /* the parts begun: bit 1 << part */
    const char *kind;    /* the file's kind */
    char *note;          /* its name for the header's comment, escaped for one */
    ep_h5 *f;
    char href[4096 * 6]; /* the HDF5 file's name, XML-escaped */
    const char *columns;
    dset fixed;          /* /gf/row_fixed, when the file has one */
    long nfixed, nrows;  /* its rows that are tractions, of all */
} ctx;

/* The shape and element type of dataset name: 1 when it exists as a dataset
 * of rank <= 4 of a number type, else 0. */
static int shape(ep_h5 *f, const char *name, dset *s)
{
    int ok = 0;
    memset(s, 0, sizeof *s);
    if (!ep_h5_exists(f, name))
        return 0;
    hid_t d = H5Dopen2(f->id, name, H5P_DEFAULT);
    if (d < 0)
        return 0;
    hid_t t = H5Dget_type(d), sp = H5Dget_space(d);
    int rank = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
    H5T_class_t cls = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
    if (rank >= 1 && rank <= 4 && (cls == H5T_FLOAT || cls == H5T_INTEGER)) {
        s->rank = rank;
        H5Sget_simple_extent_dims(sp, s->d, NULL);
        s->precision = (int)H5Tget_size(t);
        s->number = cls == H5T_FLOAT ? "Float"
                  : s->precision == 1 ? (H5Tget_sign(t) == H5T_SGN_NONE ? "UChar" : "Char")
                  : H5Tget_sign(t) == H5T_SGN_NONE ? "UInt" : "Int";
        ok = 1;
    }
    if (t >= 0)
        H5Tclose(t);
    if (sp >= 0)
        H5Sclose(sp);
    H5Dclose(d);
    return ok;
}

static void escape(const char *s, char *out, size_t cap)
{
    size_t n = 0;
    for (; *s && n + 7 < cap; s++) {
        const char *e = *s == '&' ? "&amp;" : *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : *s == '"' ? "&quot;" : NULL;
        if (e)
            n += (size_t)snprintf(out + n, cap - n, "%s", e);
        else
            out[n++] = *s;
    }
    out[n] = '\0';
}

/* The same for the text of an XML comment, which may not hold "--": a '-'
 * after a '-' is written as a character reference (a comment shows it as
 * such, and stays well formed). */
static void escape_comment(const char *s, char *out, size_t cap)
{
    size_t n = 0;
    escape(s, out, cap);
    char *tmp = strdup(out);
    for (const char *q = tmp; q && *q && n + 7 < cap; q++) {
        if (*q == '-' && n && out[n - 1] == '-')
            n += (size_t)snprintf(out + n, cap - n, "&#45;");
        else
            out[n++] = *q;
    }
    out[n] = '\0';
    free(tmp);
}

int ep_xdmf_href_ok(const char *base)
{
    const unsigned char *p = (const unsigned char *)base;
    if (!*p)
        return 0;
    while (*p) {
        int extra = *p < 0x80 ? 0 : (*p & 0xe0) == 0xc0 ? 1 : (*p & 0xf0) == 0xe0 ? 2 : (*p & 0xf8) == 0xf0 ? 3 : -1;
        if (*p < 0x20 || *p == 0x7f || *p == ':' || *p == '|' || extra < 0 || (extra == 1 && *p < 0xc2))
            return 0;
        for (int k = 1; k <= extra; k++)
            if ((p[k] & 0xc0) != 0x80)
                return 0;
        p += 1 + extra;
    }
    return 1;
}

static void dims(FILE *fp, const dset *s)
{
    for (int i = 0; i < s->rank; i++)
        fprintf(fp, "%s%llu", i ? " " : "", (unsigned long long)s->d[i]);
}

/* The whole dataset name as an HDF item. */
static void item(const ctx *c, const char *in, const char *name, const dset *s)
{
    fprintf(c->fp, "%s<DataItem Dimensions=\"", in);
    dims(c->fp, s);
    fprintf(c->fp, "\" NumberType=\"%s\" Precision=\"%d\" Format=\"HDF\">%s:%s</DataItem>\n", s->number,
            s->precision, c->href, name);
}

/* Rows [row0, row0 + nrows) of the rank-2 dataset name, shown as an array
 * [shown0][shown1] (the same values in C order): XDMF 3's hyperslab of an
 * HDF5 item, "FILE:/name|start:stride:count:extent" (each a row of the
 * dataset's rank), read by the HDF5 controller itself. */
static void slab(const ctx *c, const char *in, const char *name, const dset *s, unsigned long long row0,
                 unsigned long long nrows, unsigned long long shown0, unsigned long long shown1)
{
    fprintf(c->fp,
            "%s<DataItem Dimensions=\"%llu %llu\" NumberType=\"%s\" Precision=\"%d\" Format=\"HDF\">"
            "%s:%s|%llu 0:1 1:%llu %llu:",
            in, shown0, shown1, s->number, s->precision, c->href, name, row0, nrows, (unsigned long long)s->d[1]);
    dims(c->fp, s);
    fprintf(c->fp, "</DataItem>\n");
}

/* An attribute: row `row` of [k][3p] as p vectors, centred on nodes or cells. */
static void row_vector(const ctx *c, const char *label, const char *name, const dset *s, long row,
                       const char *center)
{
    fprintf(c->fp, "      <Attribute Name=\"%s\" AttributeType=\"Vector\" Center=\"%s\">\n", label, center);
    slab(c, "        ", name, s, (unsigned long long)row, 1, s->d[1] / 3, 3);
    fprintf(c->fp, "      </Attribute>\n");
}

static void scalar(const ctx *c, const char *label, const char *name, const dset *s, const char *center)
{
    fprintf(c->fp, "      <Attribute Name=\"%s\" AttributeType=\"Scalar\" Center=\"%s\">\n", label, center);
    item(c, "        ", name, s);
    fprintf(c->fp, "      </Attribute>\n");
}

/* Every row of name, when it is [k][3 np], as attributes "PREFIX I" (1-based). */
static int rows_as_vectors(const ctx *c, const char *prefix, const char *name, hsize_t np)
{
    dset s;
    char label[128];
    if (!shape(c->f, name, &s))
        return EP_OK;
    if (s.rank != 2 || s.d[1] != 3 * np || strcmp(s.number, "Float"))
        return ep_fail(EP_EINPUT, "%s: %s: expected float rows of %llu values (3 per vertex)", c->f->path, name,
                       (unsigned long long)(3 * np));
    for (hsize_t i = 0; i < s.d[0]; i++) {
        snprintf(label, sizeof label, "%s %llu", prefix, (unsigned long long)i + 1);
        row_vector(c, label, name, &s, (long)i, "Node");
    }
    return EP_OK;
}

/* The modes, named with their frequencies: "mode 1 (814.9 Hz)",
 * f = sqrt(lambda) / 2 pi (0 for rigid modes). */
static int modes(const ctx *c, hsize_t nv)
{
    dset s, se;
    double *ev = NULL;
    hsize_t k = 0;
    char label[128];
    int st;
    if (!shape(c->f, "/modes/U", &s))
        return EP_OK;
    if (!shape(c->f, "/modes/eigenvalues", &se) || se.rank != 1 || s.rank != 2 || se.d[0] != s.d[0])
        return rows_as_vectors(c, "mode", "/modes/U", nv);
    if (s.d[1] != 3 * nv || strcmp(s.number, "Float"))
        return ep_fail(EP_EINPUT, "%s: /modes/U: expected float rows of %llu values (3 per vertex)", c->f->path,
                       (unsigned long long)(3 * nv));
    if ((st = ep_h5_read(c->f, "/modes/eigenvalues", EP_F64, 1, &k, (void **)&ev)))
        return st;
    for (hsize_t i = 0; i < s.d[0]; i++) {
        snprintf(label, sizeof label, "mode %llu (%.4g Hz)", (unsigned long long)i + 1,
                 ev[i] > 0 ? sqrt(ev[i]) / (2 * M_PI) : 0.0);
        row_vector(c, label, "/modes/U", &s, (long)i, "Node");
    }
    free(ev);
    return EP_OK;
}

/* The modal derivatives, named by their pairs (1-based mode numbers). */
static int derivatives(const ctx *c, hsize_t nv)
{
    dset s, sp;
    int *pairs = NULL, st;
    hsize_t pd[2] = {0, 2};
    char label[128];
    if (!shape(c->f, "/derivatives/Phi", &s))
        return EP_OK;
    if (!shape(c->f, "/derivatives/pairs", &sp))
        return rows_as_vectors(c, "derivative", "/derivatives/Phi", nv);
    if ((st = ep_h5_read(c->f, "/derivatives/pairs", EP_I32, 2, pd, (void **)&pairs)))
        return st;
    if (s.rank != 2 || s.d[1] != 3 * nv || pd[0] != s.d[0]) {
        free(pairs);
        return ep_fail(EP_EINPUT, "%s: /derivatives/Phi: expected [%llu][%llu]", c->f->path,
                       (unsigned long long)pd[0], (unsigned long long)(3 * nv));
    }
    for (hsize_t i = 0; i < s.d[0]; i++) {
        snprintf(label, sizeof label, "derivative %d %d", pairs[2 * i] + 1, pairs[2 * i + 1] + 1);
        row_vector(c, label, "/derivatives/Phi", &s, (long)i, "Node");
    }
    free(pairs);
    return EP_OK;
}

/* ---- which gf columns ------------------------------------------------------------- */

/* Row `row` of /gf/xi (3 values per GF row) as the part of one kind:
 * traction 0, the displacements (the free rows' entries, 0 at the fixed
 * ones), traction 1, the support tractions (the fixed rows', 0 elsewhere),
 * so that warping by the displacement means something and each field has
 * its own unit (m, Pa per unit load).  An XDMF 3 Function of the row (a
 * hyperslab, X) and /gf/row_fixed (F, 1 at a fixed row): X * (M # (M # M))
 * with M = F or 1 - F, '#' interlacing, so that the mask has a 1 or 0 per
 * component.  The element is <Function>, which ParaView's Xdmf3 readers
 * evaluate as they parse (its Expression and VariableNames); a <DataItem
 * ItemType="Function"> they read as an array of unknown type and skip
 * (ParaView 5.11).  ItemType and Function, the same expression in XDMF 2's
 * "$0, $1" form, keep the parser from asking the element for heavy data of
 * its own. */
static void masked_row(const ctx *c, const char *label, const dset *xi, long row, const char *center, int traction)
{
    const char *m3 = traction ? "(F#(F#F))" : "((1-F)#((1-F)#(1-F)))";
    const char *m3old = traction ? "($1#($1#$1))" : "((1-$1)#((1-$1)#(1-$1)))";
    fprintf(c->fp, "      <Attribute Name=\"%s\" AttributeType=\"Vector\" Center=\"%s\">\n", label, center);
    fprintf(c->fp, "        <Function Expression=\"X*%s\" VariableNames=\"X|F\" ItemType=\"Function\" "
                   "Function=\"$0*%s\" Dimensions=\"%llu 3\">\n",
            m3, m3old, (unsigned long long)(xi->d[1] / 3));
    slab(c, "          ", "/gf/xi", xi, (unsigned long long)row, 1, xi->d[1] / 3, 3);
    item(c, "          ", "/gf/row_fixed", &c->fixed);
    fprintf(c->fp, "        </Function>\n      </Attribute>\n");
}

/* Walk the list spec; with m > 0, set keep[c] for every position c < m
 * listed.  0 or EP_EUSAGE. */
static int columns_walk(const char *spec, long m, char *keep)
{
    if (!strcmp(spec, "all")) {
        for (long c = 0; keep && c < m; c++)
            keep[c] = 1;
        return EP_OK;
    }
    const char *p = spec;
    while (1) {
        char *e;
        long a = strtol(p, &e, 10), b = a;
        if (e == p || a < 0)
            return ep_fail(EP_EUSAGE, "option --xdmf-columns: expected \"all\" or positions such as 0,4-7, got \"%s\"",
                           spec);
        p = e;
        if (*p == '-') {
            b = strtol(p + 1, &e, 10);
            if (e == p + 1 || b < a)
                return ep_fail(EP_EUSAGE, "option --xdmf-columns: bad range in \"%s\"", spec);
            p = e;
        }
        for (long c = a; keep && c <= b && c < m; c++)
            keep[c] = 1;
        if (!*p)
            return EP_OK;
        if (*p++ != ',')
            return ep_fail(EP_EUSAGE, "option --xdmf-columns: expected \"all\" or positions such as 0,4-7, got \"%s\"",
                           spec);
    }
}

int ep_xdmf_columns_check(const char *spec) { return columns_walk(spec, 0, NULL); }

/* The GF rows shown: /gf/xi row 3C+A as "xi C A" on `center` of the grid
 * being written. */
static int gf_fields(const ctx *c, const dset *xi, const char *center)
{
    long m = (long)(xi->d[0] / 3);
    char *keep = ep_calloc((size_t)m + 1, 1), label[128];
    int st = EP_OK;
    if (!keep)
        return EP_ECOMPUTE;
    if (c->columns)
        st = columns_walk(c->columns, m, keep);
    else
        for (long k = 0; k < m; k++)
            keep[k] = m <= EP_XDMF_ALL_COLUMNS || k < EP_XDMF_FIRST_COLUMNS;
    for (long k = 0; !st && k < m; k++)
        for (int a = 0; keep[k] && a < 3; a++) {
            snprintf(label, sizeof label, "xi %ld %c", k, "xyz"[a]);
            if (c->nfixed < 0) {
                row_vector(c, label, "/gf/xi", xi, 3 * k + a, center);
                continue;
            }
            snprintf(label, sizeof label, "xi %ld %c displacement", k, "xyz"[a]);
            if (!c->nfixed) /* no support row: the row is all displacement */
                row_vector(c, label, "/gf/xi", xi, 3 * k + a, center);
            else if (c->nfixed < c->nrows)
                masked_row(c, label, xi, 3 * k + a, center, 0);
            snprintf(label, sizeof label, "xi %ld %c traction", k, "xyz"[a]);
            if (c->nfixed == c->nrows)
                row_vector(c, label, "/gf/xi", xi, 3 * k + a, center);
            else if (c->nfixed)
                masked_row(c, label, xi, 3 * k + a, center, 1);
        }
    free(keep);
    return st;
}

/* /gf/row_fixed into c (its shape, and how many rows are tractions): 0, or
 * EP_EINPUT when it does not have a 0 or 1 for each of the n GF rows. */
static int gf_row_kinds(ctx *c, hsize_t n)
{
    signed char *fx = NULL;
    hsize_t d = n;
    int st;
    c->nrows = (long)n;
    c->nfixed = -1; /* no /gf/row_fixed: the rows shown as they are, "xi C A" */
    if (!ep_h5_exists(c->f, "/gf/row_fixed"))
        return EP_OK;
    c->nfixed = 0;
    if (!shape(c->f, "/gf/row_fixed", &c->fixed) || c->fixed.rank != 1 || c->fixed.d[0] != n)
        return ep_fail(EP_EINPUT, "%s: /gf/row_fixed: expected [%llu]", c->f->path, (unsigned long long)n);
    if ((st = ep_h5_read(c->f, "/gf/row_fixed", EP_I8, 1, &d, (void **)&fx)))
        return st;
    for (hsize_t i = 0; i < n && !st; i++)
        if (fx[i] == 1)
            c->nfixed++;
        else if (fx[i])
            st = ep_fail(EP_EINPUT, "%s: /gf/row_fixed[%llu] = %d: expected 0 or 1", c->f->path,
                         (unsigned long long)i, fx[i]);
    free(fx);
    return st;
}

/* ---- grids ------------------------------------------------------------------------ */

static const char *const part_names[EP_XDMF_NPARTS] = {"", "surface", "gf", "render", "distance", "pointshell"};

const char *ep_xdmf_part_name(int part) { return part >= 0 && part < EP_XDMF_NPARTS ? part_names[part] : ""; }

/* Write the following grids to part's sidecar, its header first when it is
 * the first. */
static void use(ctx *c, int part)
{
    c->fp = c->out[part];
    if (c->used & 1u << part)
        return;
    c->used |= 1u << part;
    fprintf(c->fp, "<?xml version=\"1.0\" ?>\n"
                   "<!-- XDMF 3 sidecar of %s (elastoprep kind \"%s\"), grid \"%s\": every array is read from it in\n"
                   "     place.  Each grid of the file has a sidecar of its own; open it in ParaView; elastoprep(5),\n"
                   "     XDMF SIDECARS. -->\n"
                   "<Xdmf Version=\"3.0\">\n  <Domain>\n",
            c->note, c->kind, part ? part_names[part] : "mesh");
}

static void grid_begin(const ctx *c, const char *gname, const char *topo, const char *cells, const dset *cs,
                       const char *verts, const dset *vs, unsigned long long prefix)
{
    fprintf(c->fp, "    <Grid Name=\"%s\" GridType=\"Uniform\">\n", gname);
    fprintf(c->fp, "      <Topology TopologyType=\"%s\" NumberOfElements=\"%llu\"%s>\n", topo,
            (unsigned long long)cs->d[0], !strcmp(topo, "Polyvertex") ? " NodesPerElement=\"1\"" : "");
    item(c, "        ", cells, cs);
    fprintf(c->fp, "      </Topology>\n      <Geometry GeometryType=\"XYZ\">\n");
    if (prefix) /* the first `prefix` vertices */
        slab(c, "        ", verts, vs, 0, prefix, prefix, 3);
    else
        item(c, "        ", verts, vs);
    fprintf(c->fp, "      </Geometry>\n");
}

static void grid_end(const ctx *c) { fprintf(c->fp, "    </Grid>\n"); }

/* The fields of the kind over the simulation mesh's vertices. */
static int mesh_fields(const ctx *c, const char *kind, hsize_t nv, const dset *cells, int volume)
{
    dset s;
    int st = EP_OK;
    if (volume && shape(c->f, "/mesh/region", &s) && s.rank == 1 && s.d[0] == cells->d[0])
        scalar(c, "region", "/mesh/region", &s, "Cell");
    if (shape(c->f, "/mesh/level", &s) && s.rank == 1 && s.d[0] == nv)
        scalar(c, "level", "/mesh/level", &s, "Node");
    if (!strcmp(kind, "modes") && !(st = modes(c, nv)))
        st = derivatives(c, nv);
    if (!strcmp(kind, "cubature") && volume && shape(c->f, "/cubature/cell_weight", &s) && s.rank == 1 &&
        s.d[0] == cells->d[0]) /* the chosen elements: their weights, 0 elsewhere */
        scalar(c, "cubature weight", "/cubature/cell_weight", &s, "Cell");
    if (!st && (!strcmp(kind, "modes") || !strcmp(kind, "cubic") || !strcmp(kind, "embedding") ||
                !strcmp(kind, "cubature")))
        st = rows_as_vectors(c, "basis", "/basis/U", nv);
    return st;
}

/* 1 when ids[n] is 0, 1, ..., n-1. */
static int is_prefix(const int *ids, long n)
{
    for (long i = 0; i < n; i++)
        if (ids[i] != i)
            return 0;
    return 1;
}

/* The GF rows' own grid when they are not all the mesh's vertices. */
static int gf_grid(ctx *c, const dset *vs, const dset *tris, const dset *xi, int *on_mesh)
{
    dset rs;
    int *rows = NULL, st;
    char entity[16] = "vertex";
    hsize_t n = 0;
    *on_mesh = 0;
    if (!shape(c->f, "/gf/row_vertex", &rs) || rs.rank != 1)
        return ep_fail(EP_EINPUT, "%s: /gf/row_vertex is missing", c->f->path);
    n = rs.d[0];
    if (xi->rank != 2 || xi->d[1] != 3 * n || xi->d[0] % 3)
        return ep_fail(EP_EINPUT, "%s: /gf/xi: expected [3m][%llu]", c->f->path, (unsigned long long)(3 * n));
    if ((st = gf_row_kinds(c, n)) || (st = ep_h5_read(c->f, "/gf/row_vertex", EP_I32, 1, &n, (void **)&rows)))
        return st;
    if (ep_h5_exists(c->f, "/gf") && H5Aexists_by_name(c->f->id, "/gf", "entity", H5P_DEFAULT) > 0)
        ep_h5_get_attr_string(c->f, "/gf", "entity", entity, sizeof entity);
    int prefix = is_prefix(rows, (long)n);
    if (!strcmp(entity, "triangle")) { /* bem-constant: rows are triangles */
        if (prefix && tris->rank == 2 && n == tris->d[0]) {
            use(c, EP_XDMF_GF);
            grid_begin(c, "gf", "Triangle", "/mesh/triangles", tris, "/mesh/vertices", vs, 0);
            st = gf_fields(c, xi, "Cell");
            grid_end(c);
        }
    } else if (prefix && n == vs->d[0]) {
        *on_mesh = 1; /* the mesh grid carries them */
    } else if (prefix && tris->rank == 2) {
        /* the surface of a tet mesh whose boundary is numbered first */
        use(c, EP_XDMF_GF);
        grid_begin(c, "gf", "Triangle", "/mesh/triangles", tris, "/mesh/vertices", vs, n);
        st = gf_fields(c, xi, "Node");
        grid_end(c);
    } else {
        /* any other numbering: one vertex cell per row, values on the cells */
        use(c, EP_XDMF_GF);
        grid_begin(c, "gf", "Polyvertex", "/gf/row_vertex", &rs, "/mesh/vertices", vs, 0);
        st = gf_fields(c, xi, "Cell");
        grid_end(c);
    }
    free(rows);
    return st;
}

/* A distance field's grid: a uniform grid (3DCoRectMesh, its origin and
 * spacing given z, y, x as XDMF orders them) with the values on its nodes;
 * ParaView's contour at 0 shows the surface. */
static int distfield_grid(const ctx *c, const dset *vals)
{
    double h = 0, *o = NULL;
    hsize_t d3 = 3;
    int st;
    if (vals->rank != 3 || (st = ep_h5_get_attr_double(c->f, "/distfield", "spacing", &h)) ||
        (st = ep_h5_read(c->f, "/distfield/origin", EP_F64, 1, &d3, (void **)&o)))
        return ep_fail(EP_EINPUT, "%s: /distfield: expected values [n+1]^3, origin [3] and spacing", c->f->path);
    fprintf(c->fp, "    <Grid Name=\"distance\" GridType=\"Uniform\">\n"
                   "      <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"");
    dims(c->fp, vals);
    fprintf(c->fp, "\"/>\n      <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
                   "        <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">%.17g %.17g "
                   "%.17g</DataItem>\n"
                   "        <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">%.17g %.17g "
                   "%.17g</DataItem>\n      </Geometry>\n",
            o[2], o[1], o[0], h, h, h);
    scalar(c, "distance", "/distfield/values", vals, "Node");
    grid_end(c);
    free(o);
    return EP_OK;
}

/* A pointshell (pointshell_file.h): its points as Polyvertex cells, the
 * repulsion level as a scalar (ParaView colours by it) and the inward
 * normals as vectors. */
static int pointshell_grid(const ctx *c, const dset *pts)
{
    dset cells, level, normals;
    if (pts->rank != 2 || pts->d[1] != 3 || !shape(c->f, "/pointshell/cells", &cells) || cells.rank != 1 ||
        cells.d[0] != pts->d[0] || !shape(c->f, "/pointshell/level", &level) || level.d[0] != pts->d[0] ||
        !shape(c->f, "/pointshell/normals", &normals) || normals.rank != 2 || normals.d[0] != pts->d[0])
        return ep_fail(EP_EINPUT, "%s: /pointshell: expected points [S][3], cells [S], level [S], normals [S][3]",
                       c->f->path);
    grid_begin(c, "pointshell", "Polyvertex", "/pointshell/cells", &cells, "/pointshell/points", pts, 0);
    scalar(c, "level", "/pointshell/level", &level, "Node");
    fprintf(c->fp, "      <Attribute Name=\"normal\" AttributeType=\"Vector\" Center=\"Node\">\n");
    item(c, "        ", "/pointshell/normals", &normals);
    fprintf(c->fp, "      </Attribute>\n");
    grid_end(c);
    return EP_OK;
}

/* A trajectory (trajectory.h) as a temporal collection: one grid per
 * stored state at its /trajectory/time, with "displacement" and "velocity"
 * rows of /trajectory/u and /v, so ParaView plays the motion (Warp By
 * Vector on the displacement). */
static int trajectory_grids(const ctx *c, const char *topo, const char *cells, const dset *cs, const dset *vs)
{
    dset ts, us, vv;
    double *t = NULL;
    char name[64];
    int st;
    if (!shape(c->f, "/trajectory/time", &ts) || !shape(c->f, "/trajectory/u", &us) ||
        !shape(c->f, "/trajectory/v", &vv) || us.rank != 2 || us.d[1] != 3 * vs->d[0] || vv.d[0] != us.d[0] ||
        ts.d[0] != us.d[0])
        return ep_fail(EP_EINPUT, "%s: /trajectory: expected time [T], u and v [T][%llu]", c->f->path,
                       (unsigned long long)(3 * vs->d[0]));
    hsize_t T = ts.d[0];
    if ((st = ep_h5_read(c->f, "/trajectory/time", EP_F64, 1, &T, (void **)&t)))
        return st;
    fprintf(c->fp, "    <Grid Name=\"trajectory\" GridType=\"Collection\" CollectionType=\"Temporal\">\n");
    for (hsize_t i = 0; i < T; i++) {
        snprintf(name, sizeof name, "state %llu", (unsigned long long)i);
        grid_begin(c, name, topo, cells, cs, "/mesh/vertices", vs, 0);
        fprintf(c->fp, "      <Time Value=\"%.17g\"/>\n", t[i]);
        row_vector(c, "displacement", "/trajectory/u", &us, (long)i, "Node");
        row_vector(c, "velocity", "/trajectory/v", &vv, (long)i, "Node");
        grid_end(c);
    }
    fprintf(c->fp, "    </Grid>\n");
    free(t);
    return EP_OK;
}

int ep_xdmf_wanted(ep_h5 *f)
{
    dset s;
    return shape(f, "/mesh/vertices", &s) && s.rank == 2 && s.d[1] == 3;
}

int ep_xdmf_name(const char *h5name, int part, char *out, size_t cap)
{
    const char *slash = strrchr(h5name, '/'), *base = slash ? slash + 1 : h5name, *dot = strrchr(base, '.');
    const char *pn = ep_xdmf_part_name(part);
    size_t keep = strlen(h5name);
    if (dot && dot != base && (!strcmp(dot, ".h5") || !strcmp(dot, ".hdf5") || !strcmp(dot, ".he5")))
        keep = (size_t)(dot - h5name);
    if (keep + strlen(pn) + 6 > cap)
        return ep_fail(EP_EIO, "%.80s...: name too long for its XDMF sidecar", h5name);
    snprintf(out, cap, "%.*s%s%s.xmf", (int)keep, h5name, *pn ? "." : "", pn);
    return EP_OK;
}

int ep_xdmf_is_sidecar_of(const char *path, const char *href)
{
    enum { CAP = 4096 * 6 + 256 }; /* the header of the longest name */
    char *head = ep_malloc(CAP, 1), *note = ep_malloc(CAP, 1), *want = ep_malloc(CAP + 64, 1);
    struct stat sb;
    int yes = 0;
    FILE *fp = NULL;
    if (head && note && want && lstat(path, &sb) == 0 && S_ISREG(sb.st_mode) && (fp = fopen(path, "r"))) {
        size_t n = fread(head, 1, CAP - 1, fp);
        head[n] = '\0';
        escape_comment(href, note, CAP);
        snprintf(want, CAP + 64, "\n<!-- XDMF 3 sidecar of %s (elastoprep kind \"", note); /* no '"' in note */
        yes = !strncmp(head, "<?xml", 5) && strstr(head, want) != NULL;
        fclose(fp);
    }
    free(head);
    free(note);
    free(want);
    return yes;
}

int ep_xdmf_write(FILE *const fp[EP_XDMF_NPARTS], ep_h5 *f, const char *href, const char *columns, unsigned *parts)
{
    ctx c = {.out = fp, .f = f, .columns = columns};
    dset vs, tets, hexes, tris, xi;
    char kind[32] = "";
    int st = EP_OK, on_mesh = 0;
    *parts = 0;
    if (columns && (st = ep_xdmf_columns_check(columns)))
        return st;
    if (!shape(f, "/mesh/vertices", &vs) || vs.rank != 2 || vs.d[1] != 3)
        return ep_fail(EP_EINPUT, "%s: /mesh/vertices: expected [nv][3]", f->path);
    ep_h5_get_attr_string(f, "/", "kind", kind, sizeof kind);
    if (!ep_xdmf_href_ok(href))
        return ep_fail(EP_EUSAGE, "%s: no XDMF reference resolves this name", href);
    escape(href, c.href, sizeof c.href);
    if (!(c.note = ep_malloc(sizeof c.href, 1)))
        return EP_ECOMPUTE;
    escape_comment(href, c.note, sizeof c.href);
    c.kind = kind;
    int has_tets = shape(f, "/mesh/tets", &tets) && tets.rank == 2 && tets.d[0] > 0;
    int has_hexes = shape(f, "/mesh/hexes", &hexes) && hexes.rank == 2 && hexes.d[0] > 0;
    int has_tris = shape(f, "/mesh/triangles", &tris) && tris.rank == 2 && tris.d[0] > 0;
    int is_gf = !strcmp(kind, "gf") && shape(f, "/gf/xi", &xi);
    /* The GF rows' own grid (OUT.gf.xmf) when they are not the mesh's vertices. */
    int nvol = has_tets + has_hexes;
    if (is_gf && !(st = gf_grid(&c, &vs, &tris, &xi, &on_mesh)) && !on_mesh)
        is_gf = 0; /* shown on its own grid */
    /* The simulation mesh (OUT.xmf): tets and hexes (a spatial collection when both), or the surface. */
    use(&c, EP_XDMF_MESH);
    if (!st && nvol == 1 && !strcmp(kind, "trajectory")) { /* the motion in place of the still mesh */
        st = trajectory_grids(&c, has_tets ? "Tetrahedron" : "Hexahedron", has_tets ? "/mesh/tets" : "/mesh/hexes",
                              has_tets ? &tets : &hexes, &vs);
        nvol = -1;
    }
    if (nvol > 1)
        fprintf(c.fp, "    <Grid Name=\"volume\" GridType=\"Collection\" CollectionType=\"Spatial\">\n");
    for (int part = 0; !st && part < 3; part++) {
        const char *topo = part == 0 ? "Tetrahedron" : part == 1 ? "Hexahedron" : "Triangle";
        const char *cells = part == 0 ? "/mesh/tets" : part == 1 ? "/mesh/hexes" : "/mesh/triangles";
        const dset *cs = part == 0 ? &tets : part == 1 ? &hexes : &tris;
        if (nvol < 0 || !(part == 0 ? has_tets : part == 1 ? has_hexes : has_tris && !nvol))
            continue;
        grid_begin(&c, part == 0 && nvol > 1 ? "tets" : part == 1 && nvol > 1 ? "hexes" : part < 2 ? "volume" : "surface",
                   topo, cells, cs, "/mesh/vertices", &vs, 0);
        if (!(st = mesh_fields(&c, kind, vs.d[0], cs, part < 2)) && is_gf)
            st = gf_fields(&c, &xi, "Node");
        grid_end(&c);
    }
    if (nvol > 1)
        fprintf(c.fp, "    </Grid>\n");
    /* A volume's boundary (OUT.surface.xmf), so a viewer shows and hides it apart. */
    if (!st && nvol && has_tris) {
        use(&c, EP_XDMF_SURFACE);
        grid_begin(&c, "surface", "Triangle", "/mesh/triangles", &tris, "/mesh/vertices", &vs, 0);
        grid_end(&c);
    }
    dset rv, rt, dist;
    if (!st && !strcmp(kind, "embedding") && shape(f, "/render/vertices", &rv) && shape(f, "/render/triangles", &rt)) {
        use(&c, EP_XDMF_RENDER);
        grid_begin(&c, "render", "Triangle", "/render/triangles", &rt, "/render/vertices", &rv, 0);
        if (shape(f, "/embedding/distance", &dist) && dist.rank == 1 && dist.d[0] == rv.d[0])
            scalar(&c, "distance", "/embedding/distance", &dist, "Node");
        st = rows_as_vectors(&c, "render basis", "/embedding/Ubar", rv.d[0]);
        grid_end(&c);
    }
    dset dvals;
    if (!st && !strcmp(kind, "distfield") && shape(f, "/distfield/values", &dvals)) {
        use(&c, EP_XDMF_DISTANCE);
        st = distfield_grid(&c, &dvals);
    }
    if (!st && !strcmp(kind, "pointshell") && shape(f, "/pointshell/points", &dvals)) {
        use(&c, EP_XDMF_POINTSHELL);
        st = pointshell_grid(&c, &dvals);
    }
    for (int part = 0; part < EP_XDMF_NPARTS; part++)
        if (c.used & 1u << part) {
            fprintf(fp[part], "  </Domain>\n</Xdmf>\n");
            if (!st && ferror(fp[part]))
                st = ep_fail(EP_EIO, "%s: cannot write its XDMF sidecar", f->path);
        }
    free(c.note);
    *parts = st ? 0 : c.used;
    return st;
}
