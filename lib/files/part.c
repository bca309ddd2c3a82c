/*
 * part.c — shares, /part and the run hash of split runs (part.h).
 */
#include "part.h"
#include "err.h"
#include "modal.h"
#include "model.h"
#include "modes_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ep_part_parse(void *part, const char *opt, const char *arg)
{
    ep_part *p = part;
    char *end;
    memset(p, 0, sizeof *p);
    errno = 0;
    long i = strtol(arg, &end, 10);
    if (end == arg || *end != '/' || errno)
        return ep_fail(EP_EUSAGE, "option %s: expected I/N (part I of N, 0 <= I < N), got \"%s\"", opt, arg);
    const char *s = end + 1;
    long n = strtol(s, &end, 10);
    if (end == s || *end || errno)
        return ep_fail(EP_EUSAGE, "option %s: expected I/N (part I of N, 0 <= I < N), got \"%s\"", opt, arg);
    if (n < 1 || n > 100000 || i < 0 || i >= n)
        return ep_fail(EP_EUSAGE, "option %s: %s: need 0 <= I < N <= 100000", opt, arg);
    p->index = (int)i;
    p->count = (int)n;
    return EP_OK;
}

void ep_part_share(ep_part *p, long total, long grain, const char *unit)
{
    p->total = total;
    snprintf(p->unit, sizeof p->unit, "%s", unit);
    if (p->count == 0) {
        p->lo = 0;
        p->hi = total;
        return;
    }
    long g = (total + grain - 1) / grain, g0 = (long)((double)p->index * g / p->count),
         g1 = (long)((double)(p->index + 1) * g / p->count);
    /* the products stay exact in double for any realistic g * N */
    p->lo = g0 * grain < total ? g0 * grain : total;
    p->hi = g1 * grain < total ? g1 * grain : total;
}

void ep_part_hash_init(ep_part_hash *h, const char *creator)
{
    sha256_init(&h->ctx);
    ep_part_hash_string(h, "creator", creator);
}

void ep_part_hash_bytes(ep_part_hash *h, const char *name, const void *data, size_t n)
{
    unsigned long long len = n;
    sha256_update(&h->ctx, strlen(name) + 1, (const uint8_t *)name);
    sha256_update(&h->ctx, sizeof len, (const uint8_t *)&len);
    if (n)
        sha256_update(&h->ctx, n, data);
}

void ep_part_hash_long(ep_part_hash *h, const char *name, long v) { ep_part_hash_bytes(h, name, &v, sizeof v); }

void ep_part_hash_double(ep_part_hash *h, const char *name, double v)
{
    ep_part_hash_bytes(h, name, &v, sizeof v);
}

void ep_part_hash_string(ep_part_hash *h, const char *name, const char *s)
{
    ep_part_hash_bytes(h, name, s ? s : "", s ? strlen(s) : 0);
}

static void hash_material(ep_part_hash *h, const ep_material *mat)
{
    if (!mat) {
        ep_part_hash_string(h, "material", "none");
        return;
    }
    ep_part_hash_double(h, "E", mat->E);
    ep_part_hash_double(h, "nu", mat->nu);
    ep_part_hash_double(h, "rho", mat->rho);
    ep_part_hash_long(h, "material ne", mat->ne);
    if (mat->ne) {
        ep_part_hash_bytes(h, "e_E", mat->e_E, sizeof(double) * (size_t)mat->ne);
        ep_part_hash_bytes(h, "e_nu", mat->e_nu, sizeof(double) * (size_t)mat->ne);
        ep_part_hash_bytes(h, "e_rho", mat->e_rho, sizeof(double) * (size_t)mat->ne);
    }
}

void ep_part_hash_model(ep_part_hash *h, const ep_mesh *m, const ep_material *mat, const char *fixed)
{
    ep_part_hash_bytes(h, "vertices", m->vertices, sizeof(double) * 3 * (size_t)m->nv);
    ep_part_hash_bytes(h, "tets", m->tets, m->tets ? sizeof(int) * 4 * (size_t)m->ne : 0);
    ep_part_hash_bytes(h, "hexes", m->hexes, m->hexes ? sizeof(int) * 8 * (size_t)m->nh : 0);
    ep_part_hash_bytes(h, "triangles", m->triangles, sizeof(int) * 3 * (size_t)m->nf);
    hash_material(h, mat ? mat : m->material);
    if (fixed) {
        ep_part_hash_bytes(h, "fixed mask", fixed, (size_t)m->nv);
    } else {
        /* the same mask as a list would give: hash the list as a mask */
        char *mask = ep_calloc((size_t)m->nv + 1, 1);
        for (int i = 0; mask && i < m->nfixed; i++)
            mask[m->fixed[i]] = 1;
        ep_part_hash_bytes(h, "fixed mask", mask, mask ? (size_t)m->nv : 0);
        free(mask);
    }
}

void ep_part_hash_layout(ep_part_hash *h, const ep_gf_layout *L)
{
    ep_part_hash_string(h, "entity", L->entity);
    ep_part_hash_bytes(h, "row_vertex", L->row_vertex, sizeof(int) * (size_t)L->n);
    ep_part_hash_bytes(h, "row_fixed", L->row_fixed, (size_t)L->n);
    ep_part_hash_bytes(h, "col_vertex", L->col_vertex, sizeof(int) * (size_t)L->m);
    if (L->load_ptr) { /* hat-load columns (--constraint-level) */
        int nk = L->load_ptr[L->m];
        ep_part_hash_bytes(h, "load_ptr", L->load_ptr, sizeof(int) * ((size_t)L->m + 1));
        ep_part_hash_bytes(h, "load_vertex", L->load_vertex, sizeof(int) * (size_t)nk);
        ep_part_hash_bytes(h, "load_weight", L->load_weight, sizeof(double) * (size_t)nk);
    }
    if (L->col_area)
        ep_part_hash_bytes(h, "col_area", L->col_area, sizeof(double) * (size_t)L->m);
}

void ep_part_hash_final(ep_part_hash *h, ep_part *p)
{
    uint8_t d[SHA256_DIGEST_SIZE];
    sha256_digest(&h->ctx, sizeof d, d);
    for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
        snprintf(p->hash + 2 * i, 3, "%02x", d[i]);
}

int ep_part_gf_share(ep_part *p, ep_gf_layout *sub, const char *creator, const ep_mesh *m, const ep_material *mat,
                     const char *fixed, const ep_gf_layout *L, const char *options, long grain)
{
    ep_part_share(p, L->m, grain, "columns");
    if (p->count) {
        ep_part_hash h;
        ep_part_hash_init(&h, creator);
        ep_part_hash_model(&h, m, mat, fixed);
        ep_part_hash_layout(&h, L);
        ep_part_hash_string(&h, "options", options);
        ep_part_hash_final(&h, p);
        snprintf(p->creator, sizeof p->creator, "%s", creator);
    }
    return ep_gf_layout_columns(sub, L, (int)p->lo, (int)p->hi);
}

int ep_part_write(ep_h5 *f, const ep_part *p)
{
    hid_t g = H5Gcreate2(f->id, "/part", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        return ep_fail(EP_EIO, "%s: cannot create /part", f->path);
    H5Gclose(g);
    int st;
    if ((st = ep_h5_set_attr_int(f, "/part", "index", p->index)) ||
        (st = ep_h5_set_attr_int(f, "/part", "count", p->count)) ||
        (st = ep_h5_set_attr_int(f, "/part", "lo", p->lo)) ||
        (st = ep_h5_set_attr_int(f, "/part", "hi", p->hi)) ||
        (st = ep_h5_set_attr_int(f, "/part", "total", p->total)) ||
        (st = ep_h5_set_attr_string(f, "/part", "unit", p->unit)) ||
        (st = ep_h5_set_attr_string(f, "/part", "hash", p->hash)))
        return st;
    return EP_OK;
}

int ep_part_read(ep_part *p, ep_h5 *f)
{
    double v[5];
    static const char *num[5] = {"index", "count", "lo", "hi", "total"};
    int st;
    memset(p, 0, sizeof *p);
    if (!ep_h5_exists(f, "/part"))
        return ep_fail(EP_EINPUT, "%s: no /part: not a part file (made without --part)", f->path);
    for (int i = 0; i < 5; i++)
        if ((st = ep_h5_get_attr_double(f, "/part", num[i], &v[i])))
            return st;
    if ((st = ep_h5_get_attr_string(f, "/part", "unit", p->unit, sizeof p->unit)) ||
        (st = ep_h5_get_attr_string(f, "/part", "hash", p->hash, sizeof p->hash)) ||
        (st = ep_h5_get_attr_string(f, "/", "creator", p->creator, sizeof p->creator)))
        return st;
    /* integers, as given in the messages: a part index 1e12 was cut to an
     * int and reported as another (issue 37, classes 2 and 8) */
    for (int i = 0; i < 5; i++)
        if (!(v[i] >= 0 && v[i] <= (i == 1 ? 100000 : i == 0 ? 99999 : 1e15) && v[i] == floor(v[i])))
            return ep_fail(EP_EINPUT, "%s: /part: %s %.17g is not %s", f->path, num[i], v[i],
                           i == 1 ? "a part count (1..100000)"
                           : i == 0 ? "a part index (0 <= I < N <= 100000)"
                                    : "a count of units (an integer >= 0)");
    snprintf(p->kind, sizeof p->kind, "%s", f->kind);
    p->index = (int)v[0];
    p->count = (int)v[1];
    p->lo = (long)v[2];
    p->hi = (long)v[3];
    p->total = (long)v[4];
    if (p->count < 1 || p->index < 0 || p->index >= p->count || p->lo < 0 || p->lo > p->hi || p->hi > p->total)
        return ep_fail(EP_EINPUT, "%s: /part: part %d of %d holding %s %ld..%ld of %ld is inconsistent", f->path,
                       p->index, p->count, p->unit, p->lo, p->hi, p->total);
    return EP_OK;
}

int ep_part_check_set(const ep_part *parts, const char *const *paths, int n, int *order)
{
    const ep_part *a = &parts[0];
    int count = a->count;
    for (int i = 1; i < n; i++) {
        const ep_part *b = &parts[i];
        if (strcmp(b->creator, a->creator))
            return ep_fail(EP_EINPUT, "%s: made by %s, %s by %s", paths[i], b->creator, paths[0], a->creator);
        if (strcmp(b->kind, a->kind))
            return ep_fail(EP_EINPUT, "%s: a %s file, %s a %s file", paths[i], b->kind, paths[0], a->kind);
        if (b->count != count)
            return ep_fail(EP_EINPUT, "%s: a part of %d, %s a part of %d", paths[i], b->count, paths[0], count);
        if (strcmp(b->hash, a->hash) || strcmp(b->unit, a->unit) || b->total != a->total)
            return ep_fail(EP_EINPUT, "%s: not a part of the run of %s (different mesh, material, options or "
                           "tool version)", paths[i], paths[0]);
    }
    int *who = ep_malloc((size_t)count, sizeof *who);
    if (!who)
        return EP_ECOMPUTE;
    for (int j = 0; j < count; j++)
        who[j] = -1;
    for (int i = 0; i < n; i++) {
        int j = parts[i].index;
        if (who[j] >= 0) {
            int st = ep_fail(EP_EINPUT, "%s and %s: both part %d of %d", paths[who[j]], paths[i], j, count);
            free(who);
            return st;
        }
        who[j] = i;
    }
    char msg[512] = "";
    int missing = 0;
    size_t len = 0;
    for (int j = 0; j < count; j++)
        if (who[j] < 0) {
            if (missing < 20 && len < sizeof msg - 16)
                len += (size_t)snprintf(msg + len, sizeof msg - len, "%s%d", missing ? ", " : "", j);
            else if (missing == 20)
                len += (size_t)snprintf(msg + len, sizeof msg - len, ", ...");
            missing++;
        }
    if (missing) {
        free(who);
        return ep_fail(EP_EINPUT, "part%s %s of %d missing (%d of %d given)", missing > 1 ? "s" : "", msg, count, n,
                       count);
    }
    /* every index once: the ranges must follow each other */
    long at = 0;
    for (int j = 0; j < count; j++) {
        const ep_part *p = &parts[who[j]];
        if (p->lo != at) {
            int st = ep_fail(EP_EINPUT, "%s: part %d holds %s %ld..%ld, expected from %ld", paths[who[j]], j,
                             p->unit, p->lo, p->hi, at);
            free(who);
            return st;
        }
        at = p->hi;
        order[j] = who[j];
    }
    free(who);
    if (at != a->total)
        return ep_fail(EP_EINPUT, "the parts hold %s 0..%ld of %ld", a->unit, at, a->total);
    return EP_OK;
}

/* ---- merging ------------------------------------------------------------------ */

enum { COPY, CONCAT, SUM };

/* What the merge does with dataset name of a file of kind. */
static int rule(const char *kind, const char *name)
{
    if (!strcmp(kind, "gf") &&
        (!strcmp(name, "/gf/xi") || !strcmp(name, "/gf/col_vertex") || !strcmp(name, "/gf/col_area")))
        return CONCAT;
    if (!strcmp(kind, "modes") && (!strcmp(name, "/derivatives/Phi") || !strcmp(name, "/derivatives/pairs")))
        return CONCAT;
    if (!strcmp(kind, "cubic") && !strncmp(name, "/cubic/", 7))
        return SUM;
    return COPY;
}

typedef struct {
    ep_h5 *out;
    ep_h5 first, cur;  /* part order[0], open through the merge; another part, open for one step */
    const char *const *paths, *const *src;
    const int *order;
    const ep_part *parts;
    int n, is_virtual, st;
} merge_ctx;

/* The part order[j], open: the first one stays open, any other is opened
 * here in place of the previous one, so the merge holds at most three files
 * (the output, the first part and one more) whatever the number of parts
 * (issue 37, class 6: 2,000 parts exceeded the open-file limit).  The parts
 * were opened and checked (format, kind) once by the caller; a plain
 * H5Fopen suffices here.  NULL with c->st set when it does not open. */
static ep_h5 *part_at(merge_ctx *c, int j)
{
    if (!j)
        return &c->first;
    if (c->cur.id > 0)
        H5Fclose(c->cur.id);
    snprintf(c->cur.path, sizeof c->cur.path, "%s", c->paths[c->order[j]]);
    snprintf(c->cur.kind, sizeof c->cur.kind, "%s", c->first.kind);
    c->cur.id = H5Fopen(c->cur.path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (c->cur.id < 0) {
        c->st = ep_fail(EP_EIO, "%s: cannot open it again (changed during the merge?)", c->cur.path);
        return NULL;
    }
    return &c->cur;
}

static void part_done(merge_ctx *c)
{
    if (c->cur.id > 0)
        H5Fclose(c->cur.id);
    c->cur.id = H5I_INVALID_HID;
}

/* The first non-finite value of n values of the native float type mt in
 * buf, or -1 (integers: -1). */
static long nonfinite_at(hid_t mt, const void *buf, size_t n)
{
    if (H5Tget_class(mt) != H5T_FLOAT)
        return -1;
    for (size_t q = 0; q < n; q++)
        if (H5Tget_size(mt) == 4 ? !isfinite(((const float *)buf)[q]) : !isfinite(((const double *)buf)[q]))
            return (long)q;
    return -1;
}

/* The type, rank and extents of dataset name of part file p: 0, or EP_EINPUT
 * naming it (missing, not a simple array of rank 1..4, not a number). */
static int dset_shape(ep_h5 *p, const char *name, hid_t *d, hid_t *t, int *rank, hsize_t dims[4])
{
    *t = H5I_INVALID_HID;
    *d = ep_h5_exists(p, name) ? H5Dopen2(p->id, name, H5P_DEFAULT) : H5I_INVALID_HID;
    if (*d < 0)
        return ep_fail(EP_EINPUT, "%s: %s is missing", p->path, name);
    hid_t s = H5Dget_space(*d);
    *rank = s >= 0 ? H5Sget_simple_extent_ndims(s) : -1;
    if (*rank >= 1 && *rank <= 4)
        H5Sget_simple_extent_dims(s, dims, NULL);
    if (s >= 0)
        H5Sclose(s);
    *t = H5Dget_type(*d);
    H5T_class_t k = *t >= 0 ? H5Tget_class(*t) : H5T_NO_CLASS;
    if (*rank < 1 || *rank > 4 || (k != H5T_FLOAT && k != H5T_INTEGER)) {
        H5Dclose(*d);
        if (*t >= 0)
            H5Tclose(*t);
        *d = *t = H5I_INVALID_HID;
        return ep_fail(EP_EINPUT, "%s: %s is not an array of numbers of rank 1 to 4", p->path, name);
    }
    return EP_OK;
}

/* "float64", "int32", ... of a number type, for messages. */
static const char *type_text(hid_t t, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s%zu", H5Tget_class(t) == H5T_FLOAT ? "float" : "int", 8 * H5Tget_size(t));
    return buf;
}

/* The same stored type as the first part's: no silent float32 <-> float64
 * (or int) mixing in a merge (issue 37, class 2). */
static int same_type(merge_ctx *c, ep_h5 *p, const char *name, hid_t t0, hid_t t)
{
    char a[16], b[16];
    if (H5Tequal(t0, t) > 0)
        return EP_OK;
    return ep_fail(EP_EINPUT, "%s: %s is %s, %s's is %s", p->path, name, type_text(t, a, sizeof a), c->first.path,
                   type_text(t0, b, sizeof b));
}

static herr_t copy_attr(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    (void)info;
    hid_t dst = *(hid_t *)data, a = H5Aopen(loc, name, H5P_DEFAULT), t = H5Aget_type(a), s = H5Aget_space(a);
    size_t bytes = H5Tget_size(t) * (size_t)H5Sget_simple_extent_npoints(s);
    void *buf = calloc(bytes ? bytes : 1, 1);
    herr_t r = buf ? H5Aread(a, t, buf) : -1;
    if (r >= 0) {
        hid_t b = H5Acreate2(dst, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
        r = b < 0 ? -1 : H5Awrite(b, t, buf);
        if (b >= 0)
            H5Aclose(b);
        if (H5Tdetect_class(t, H5T_VLEN) > 0 || (H5Tget_class(t) == H5T_STRING && H5Tis_variable_str(t) > 0))
            H5Dvlen_reclaim(t, s, H5P_DEFAULT, buf);
    }
    free(buf);
    H5Sclose(s);
    H5Tclose(t);
    H5Aclose(a);
    return r;
}

/* Rows [row0, row0 + nrows) of dataset d (rank, dims) from/to buf in the
 * memory type mt. */
static herr_t rows_io(hid_t d, hid_t mt, int rank, const hsize_t *dims, hsize_t row0, hsize_t nrows, void *buf,
                      int write)
{
    hsize_t start[4] = {row0, 0, 0, 0}, count[4];
    for (int i = 0; i < rank; i++)
        count[i] = i ? dims[i] : nrows;
    hid_t fs = H5Dget_space(d), ms = H5Screate_simple(rank, count, NULL);
    herr_t r = H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    if (r >= 0)
        r = write ? H5Dwrite(d, mt, ms, fs, H5P_DEFAULT, buf) : H5Dread(d, mt, ms, fs, H5P_DEFAULT, buf);
    H5Sclose(ms);
    H5Sclose(fs);
    return r;
}

/* The parts' datasets name one after the other (rows along the first
 * extent), copied or mapped.  Each part's rows must be the units its /part
 * claims (hi - lo), its other extents and its stored type the first part's,
 * its values finite (read in slabs; mapped rows too: parts are input, issue
 * 37, class 2).  One part file is open at a time. */
static int concat(merge_ctx *c, const char *name)
{
    hsize_t(*dims)[4] = ep_calloc((size_t)c->n, sizeof *dims), total[4] = {0, 0, 0, 0};
    hid_t t = H5I_INVALID_HID, mt = H5I_INVALID_HID, dst = H5I_INVALID_HID, dcpl = H5P_DEFAULT, vs = -1;
    int rank = 0, st = dims ? EP_OK : EP_ECOMPUTE;
    long per = 0;
    void *buf = NULL;
    size_t row = 0;
    hsize_t slab = 1;
    /* pass 1: shapes and types, part by part */
    for (int j = 0; j < c->n && !st; j++) {
        const ep_part *pp = &c->parts[c->order[j]];
        ep_h5 *p = part_at(c, j);
        hid_t d, tj;
        int rk;
        if (!p) {
            st = c->st;
            break;
        }
        if ((st = dset_shape(p, name, &d, &tj, &rk, dims[c->order[j]])))
            break;
        const hsize_t *dj = dims[c->order[j]];
        if (!j) {
            rank = rk;
            memcpy(total, dj, sizeof total);
            total[0] = 0;
            t = H5Tcopy(tj);
        } else if (rk != rank)
            st = ep_fail(EP_EINPUT, "%s: %s has rank %d, %s's %d", p->path, name, rk, c->first.path, rank);
        else
            st = same_type(c, p, name, t, tj);
        for (int a = 1; a < rank && !st; a++)
            if (dj[a] != total[a])
                st = ep_fail(EP_EINPUT, "%s: %s rows of %llu, %s's of %llu", p->path, name,
                             (unsigned long long)dj[a], c->first.path, (unsigned long long)total[a]);
        /* rows per unit (a GF column's 3 directions): the same in every part */
        long units = pp->hi - pp->lo;
        if (!st && units && !per && dj[0] % (hsize_t)units == 0)
            per = (long)(dj[0] / (hsize_t)units);
        if (!st && (hsize_t)units * (hsize_t)per != dj[0])
            st = ep_fail(EP_EINPUT, "%s: %s has %llu rows, its /part claims %s %ld..%ld (%ld%s)", p->path, name,
                         (unsigned long long)dj[0], pp->unit, pp->lo, pp->hi, units * (per ? per : 1),
                         per > 1 ? " rows" : "");
        total[0] += dj[0];
        H5Tclose(tj);
        H5Dclose(d);
    }
    if (st)
        goto out;
    /* slabs of whole rows, as stored (no conversion), each at least one
     * drop from the page cache (h5.h), so every write is flushed and dropped
     * as it lands */
    mt = H5Tget_native_type(t, H5T_DIR_DEFAULT);
    row = H5Tget_size(mt);
    for (int a = 1; a < rank; a++)
        row *= total[a];
    slab = row ? (hsize_t)ceil(EP_H5_DROP_BYTES / (double)row) : 1; /* >= 1 */
    vs = H5Screate_simple(rank, total, NULL);
    if (c->is_virtual) {
        dcpl = H5Pcreate(H5P_DATASET_CREATE);
        hsize_t at = 0;
        for (int j = 0; j < c->n; j++) {
            int i = c->order[j];
            hsize_t start[4] = {at, 0, 0, 0};
            if (!dims[i][0])
                continue;
            hid_t ss = H5Screate_simple(rank, dims[i], NULL);
            herr_t r = H5Sselect_hyperslab(vs, H5S_SELECT_SET, start, NULL, dims[i], NULL);
            if (r < 0 || H5Pset_virtual(dcpl, vs, c->src[i], name, ss) < 0)
                st = ep_fail(EP_EIO, "%s: cannot map %s of %s", c->out->path, name, c->src[i]);
            H5Sclose(ss);
            at += dims[i][0];
        }
        H5Sselect_all(vs);
        if (st)
            goto out;
    }
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    dst = H5Dcreate2(c->out->id, name, t, vs, lcpl, dcpl, H5P_DEFAULT);
    H5Pclose(lcpl);
    if (dst < 0) {
        st = ep_fail(EP_EIO, "%s: cannot create %s", c->out->path, name);
        goto out;
    }
    buf = malloc(row * (size_t)slab > 0 ? row * (size_t)slab : 1);
    if (!buf) {
        st = ep_fail(EP_ECOMPUTE, "out of memory (a slab of %s)", name);
        goto out;
    }
    /* pass 2: the values, checked; copied unless mapped */
    hsize_t at = 0;
    size_t per_row = row / H5Tget_size(mt);
    for (int j = 0; j < c->n && !st; j++) {
        int i = c->order[j];
        ep_h5 *p = dims[i][0] ? part_at(c, j) : NULL;
        hid_t d = p ? H5Dopen2(p->id, name, H5P_DEFAULT) : H5I_INVALID_HID;
        if (dims[i][0] && d < 0)
            st = c->st ? c->st : ep_fail(EP_EINPUT, "%s: cannot open %s", c->paths[i], name);
        for (hsize_t r0 = 0; r0 < dims[i][0] && !st; r0 += slab) {
            hsize_t nr = dims[i][0] - r0 < slab ? dims[i][0] - r0 : slab;
            long bad;
            if (rows_io(d, mt, rank, dims[i], r0, nr, buf, 0) < 0)
                st = ep_fail(EP_EINPUT, "%s: cannot read %s", p->path, name);
            else if ((bad = nonfinite_at(mt, buf, per_row * (size_t)nr)) >= 0)
                st = ep_fail(EP_EINPUT, "%s: %s: value is not finite at row %llu", p->path, name,
                             (unsigned long long)(r0 + (hsize_t)bad / per_row));
            else if (c->is_virtual)
                continue;
            else if (rows_io(dst, mt, rank, total, at + r0, nr, buf, 1) < 0)
                st = ep_fail(EP_EIO, "%s: cannot write %s", c->out->path, name);
            else /* a merged GF is written once: out of the page cache as it goes (h5.h) */
                st = ep_h5_drop_written(c->out, (double)row * (double)nr);
        }
        if (d >= 0)
            H5Dclose(d);
        at += dims[i][0];
    }
out:
    part_done(c);
    free(buf);
    free(dims);
    if (dst >= 0)
        H5Dclose(dst);
    if (dcpl != H5P_DEFAULT)
        H5Pclose(dcpl);
    if (vs >= 0)
        H5Sclose(vs);
    if (mt >= 0)
        H5Tclose(mt);
    if (t >= 0)
        H5Tclose(t);
    return st;
}

/* The sum of the parts' datasets name, in part order, stored as the first
 * part stores it; every part's of the same shape and stored type, finite
 * (ep_h5_read). */
static int sum(merge_ctx *c, const char *name)
{
    hsize_t d0[4] = {0, 0, 0, 0}, di[4];
    int st, rank;
    void *first = NULL, *p = NULL;
    hid_t d, t0, t;
    if ((st = dset_shape(&c->first, name, &d, &t0, &rank, di)))
        return st;
    H5Dclose(d);
    ep_h5_type type = H5Tget_class(t0) == H5T_FLOAT && H5Tget_size(t0) == 4 ? EP_F32 : EP_F64;
    if ((st = ep_h5_read(&c->first, name, EP_F64, rank, d0, &first))) {
        H5Tclose(t0);
        return st;
    }
    size_t len = 1;
    for (int a = 0; a < rank; a++)
        len *= d0[a];
    double *acc = first;
    for (int j = 1; j < c->n && !st; j++) {
        ep_h5 *pj = part_at(c, j);
        if (!pj || (st = dset_shape(pj, name, &d, &t, &rank, di))) {
            st = pj ? st : c->st;
            break;
        }
        H5Dclose(d);
        st = same_type(c, pj, name, t0, t);
        H5Tclose(t);
        memcpy(di, d0, sizeof di);
        if (st || (st = ep_h5_read(pj, name, EP_F64, rank, di, &p)))
            break;
        for (size_t q = 0; q < len; q++)
            acc[q] += ((double *)p)[q];
        free(p);
        p = NULL;
    }
    part_done(c);
    H5Tclose(t0);
    if (!st && type == EP_F32) { /* stored as the parts store it */
        float *f = (float *)acc;
        for (size_t q = 0; q < len; q++)
            f[q] = (float)acc[q];
    }
    if (!st)
        st = ep_h5_write(c->out, name, type, rank, d0, acc);
    free(first);
    return st;
}

/* Dataset name, copied from the first part: every other part must hold it
 * with the same stored type, shape and bytes (the mesh, material, support,
 * row lists and modes that a part of another run would differ in; issue 37,
 * class 2), and its numbers must be finite.  Cost: reads it from every part. */
static int same_everywhere(merge_ctx *c, const char *name)
{
    if (!strcmp(name, "/gf/condensed")) /* part 0's alone (femcondense --condensed --part 0/N) */
        return EP_OK;
    hid_t d, t0, t;
    hsize_t d0[4], dj[4];
    int rank, rk, st;
    void *a = NULL, *b = NULL;
    if ((st = dset_shape(&c->first, name, &d, &t0, &rank, d0)))
        return st;
    hid_t mt = H5Tget_native_type(t0, H5T_DIR_DEFAULT);
    size_t n = 1;
    for (int k = 0; k < rank; k++)
        n *= d0[k];
    size_t bytes = n * H5Tget_size(mt);
    long bad;
    if (!(a = malloc(bytes ? bytes : 1)) || !(b = malloc(bytes ? bytes : 1)))
        st = ep_fail(EP_ECOMPUTE, "out of memory (%s)", name);
    else if (n && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, a) < 0)
        st = ep_fail(EP_EINPUT, "%s: cannot read %s", c->first.path, name);
    else if ((bad = nonfinite_at(mt, a, n)) >= 0)
        st = ep_fail(EP_EINPUT, "%s: %s: value is not finite at [%ld]", c->first.path, name, bad);
    H5Dclose(d);
    for (int j = 1; j < c->n && !st; j++) {
        ep_h5 *pj = part_at(c, j);
        if (!pj || (st = dset_shape(pj, name, &d, &t, &rk, dj))) {
            st = pj ? st : c->st;
            break;
        }
        st = same_type(c, pj, name, t0, t);
        for (int k = 0; k < rank && !st; k++)
            if (rk != rank || dj[k] != d0[k])
                st = ep_fail(EP_EINPUT, "%s: %s has another shape than in %s: not a part of its run", pj->path,
                             name, c->first.path);
        if (!st && n && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, b) < 0)
            st = ep_fail(EP_EINPUT, "%s: cannot read %s", pj->path, name);
        if (!st && memcmp(a, b, bytes))
            st = ep_fail(EP_EINPUT, "%s: %s differs from %s's: not a part of its run", pj->path, name,
                         c->first.path);
        H5Tclose(t);
        H5Dclose(d);
    }
    part_done(c);
    H5Tclose(mt);
    H5Tclose(t0);
    free(a);
    free(b);
    return st;
}

/* The numeric attributes of object path (a group or dataset but the root
 * and /part: the material's values among them) must be the first part's in
 * every part.  Strings are not compared here (h5.c reads them in a child). */
static int same_attributes(merge_ctx *c, const char *path)
{
    hid_t o0 = H5Oopen(c->first.id, path, H5P_DEFAULT);
    H5O_info_t oi;
    int st = EP_OK;
    if (o0 < 0 || H5Oget_info2(o0, &oi, H5O_INFO_NUM_ATTRS) < 0) {
        if (o0 >= 0)
            H5Oclose(o0);
        return ep_fail(EP_EINPUT, "%s: cannot read %s", c->first.path, path);
    }
    for (hsize_t k = 0; k < oi.num_attrs && !st; k++) {
        char an[256];
        hid_t a = H5Aopen_by_idx(o0, ".", H5_INDEX_NAME, H5_ITER_INC, k, H5P_DEFAULT, H5P_DEFAULT);
        hid_t t = a >= 0 ? H5Aget_type(a) : -1, sp = a >= 0 ? H5Aget_space(a) : -1;
        H5T_class_t cl = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
        hssize_t np = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
        if (a >= 0 && H5Aget_name(a, sizeof an, an) >= 0 && (cl == H5T_FLOAT || cl == H5T_INTEGER) && np == 1) {
            double v0, v;
            H5Aread(a, H5T_NATIVE_DOUBLE, &v0);
            for (int j = 1; j < c->n && !st; j++) {
                ep_h5 *pj = part_at(c, j);
                if (!pj) {
                    st = c->st;
                    break;
                }
                hid_t b = H5Aexists_by_name(pj->id, path, an, H5P_DEFAULT) > 0
                              ? H5Aopen_by_name(pj->id, path, an, H5P_DEFAULT, H5P_DEFAULT)
                              : H5I_INVALID_HID;
                if (b < 0 || H5Aread(b, H5T_NATIVE_DOUBLE, &v) < 0 || memcmp(&v, &v0, sizeof v))
                    st = ep_fail(EP_EINPUT, "%s: attribute %s of %s differs from %s's: not a part of its run",
                                 pj->path, an, path, c->first.path);
                if (b >= 0)
                    H5Aclose(b);
            }
        }
        if (sp >= 0)
            H5Sclose(sp);
        if (t >= 0)
            H5Tclose(t);
        if (a >= 0)
            H5Aclose(a);
    }
    part_done(c);
    H5Oclose(o0);
    return st;
}

static herr_t visit(hid_t g, const char *name, const H5L_info_t *info, void *data);

/* Group path of part f[order[0]] into out: attributes, then members. */
static int merge_group(merge_ctx *c, const char *path)
{
    hid_t src = H5Gopen2(c->first.id, path, H5P_DEFAULT), dst;
    if (src < 0)
        return ep_fail(EP_EINPUT, "%s: cannot open %s", c->first.path, path);
    if (!strcmp(path, "/"))
        dst = H5Gopen2(c->out->id, "/", H5P_DEFAULT);
    else if (ep_h5_exists(c->out, path))
        dst = H5Gopen2(c->out->id, path, H5P_DEFAULT);
    else
        dst = H5Gcreate2(c->out->id, path, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int st = EP_OK;
    if (dst < 0)
        st = ep_fail(EP_EIO, "%s: cannot create %s", c->out->path, path);
    else if (strcmp(path, "/") && (st = same_attributes(c, path)))
        ;
    else if (strcmp(path, "/") && H5Aiterate2(src, H5_INDEX_NAME, H5_ITER_INC, NULL, copy_attr, &dst) < 0)
        st = ep_fail(EP_EIO, "%s: cannot copy the attributes of %s", c->out->path, path);
    if (!st) {
        char *p = (char *)path; /* visit reads the parent's path from the context */
        void *pass[2] = {c, p};
        if (H5Literate(src, H5_INDEX_NAME, H5_ITER_INC, NULL, visit, pass) < 0 && !c->st)
            c->st = ep_fail(EP_EIO, "%s: cannot read %s", c->first.path, path);
        st = c->st;
    }
    if (dst >= 0)
        H5Gclose(dst);
    H5Gclose(src);
    return st;
}

static herr_t visit(hid_t g, const char *name, const H5L_info_t *info, void *data)
{
    (void)info;
    merge_ctx *c = ((void **)data)[0];
    const char *parent = ((void **)data)[1];
    char path[1024];
    H5O_info_t oi;
    snprintf(path, sizeof path, "%s%s%s", parent, strcmp(parent, "/") ? "/" : "", name);
    if (!strcmp(path, "/part"))
        return 0;
    if (H5Oget_info_by_name2(g, name, &oi, H5O_INFO_BASIC, H5P_DEFAULT) < 0) {
        c->st = ep_fail(EP_EINPUT, "%s: cannot read %s", c->first.path, path);
        return -1;
    }
    if (oi.type == H5O_TYPE_GROUP)
        c->st = merge_group(c, path);
    else if (oi.type == H5O_TYPE_DATASET) {
        int how = rule(c->first.kind, path);
        if (how == CONCAT)
            c->st = concat(c, path);
        else if (how == SUM)
            c->st = sum(c, path);
        else if ((c->st = same_everywhere(c, path)) || (c->st = same_attributes(c, path)))
            ;
        else if (H5Ocopy(g, name, c->out->id, path, H5P_DEFAULT, H5P_DEFAULT) < 0)
            c->st = ep_fail(EP_EIO, "%s: cannot copy %s", c->out->path, path);
    }
    return c->st ? -1 : 0;
}

/* The rows of the parts' datasets name (rows of len doubles) one after the
 * other: *rows [*nrows][len] (allocated; caller frees). */
static int read_rows(merge_ctx *c, const char *name, size_t len, void **rows, hsize_t *nrows)
{
    int st = EP_OK;
    double *all = NULL;
    *nrows = 0;
    for (int j = 0; j < c->n && !st; j++) {
        hsize_t d[2] = {0, len};
        void *p = NULL;
        ep_h5 *pj = part_at(c, j);
        if (!pj) {
            st = c->st;
            break;
        }
        if (!(st = ep_h5_read(pj, name, EP_F64, 2, d, &p))) {
            double *grown = realloc(all, sizeof(double) * len * (size_t)(*nrows + d[0]) + 1);
            if (!grown)
                st = ep_fail(EP_ECOMPUTE, "out of memory (%s)", name);
            else {
                all = grown;
                memcpy(all + len * (size_t)*nrows, p, sizeof(double) * len * (size_t)d[0]);
                *nrows += d[0];
            }
        }
        free(p);
    }
    part_done(c);
    if (st) {
        free(all);
        all = NULL;
    }
    *rows = all;
    return st;
}

/* A split moddesc run's basis, from the merged modes and derivatives,
 * with the options the parts recorded in /part. */
static int merge_basis(merge_ctx *c)
{
    ep_h5 *out = c->out, *first = &c->first;
    ep_mesh m = {0};
    ep_modal s = {0};
    char name[32], *fixed = NULL;
    double *lambda = NULL, *U = NULL, *B = NULL, *sigma = NULL, r_d;
    void *Phi = NULL;
    ep_modal_basis_kind kind;
    int st, k, lumped, r;
    hsize_t dphi[2] = {0, 0};
    if ((st = ep_h5_get_attr_string(first, "/part", "basis", name, sizeof name)) ||
        (st = ep_h5_get_attr_double(first, "/part", "basis_size", &r_d)))
        return st;
    if (ep_modal_basis_from_name(name, &kind))
        return ep_fail(EP_EINPUT, "%s: /part: unknown basis \"%s\"", first->path, name);
    r = (int)r_d;
    if ((st = ep_model_load(&m, first)))
        goto out;
    dphi[1] = 3 * (hsize_t)m.nv;
    if (!(fixed = ep_calloc((size_t)m.nv, 1))) {
        st = EP_ECOMPUTE;
        goto out;
    }
    for (int i = 0; i < m.nfixed; i++)
        fixed[m.fixed[i]] = 1;
    if ((st = ep_modes_file_read_modes(first, m.nv, 0, &lambda, &U, &k, &lumped)) ||
        (st = read_rows(c, "/derivatives/Phi", 3 * (size_t)m.nv, &Phi, &dphi[0])))
        goto out;
    int nsigma = kind == EP_MODAL_BASIS_LINEAR ? k : k + k * (k + 1) / 2;
    if ((int)dphi[0] != k * (k + 1) / 2 || r < 1 || r > nsigma) {
        st = ep_fail(EP_EINPUT, "%s: %d derivatives and a basis of %d for %d modes", out->path, (int)dphi[0], r, k);
        goto out;
    }
    B = ep_malloc((size_t)r * 3 * m.nv, sizeof *B);
    sigma = ep_calloc((size_t)nsigma, sizeof *sigma);
    if (!B || !sigma) {
        st = EP_ECOMPUTE;
        goto out;
    }
    if ((st = ep_modal_setup_mass(&s, &m, m.material, fixed, lumped)) ||
        (st = ep_modal_basis(&s, kind, lambda, U, k, Phi, r, B, sigma)) ||
        (st = ep_modes_file_write_basis(out, B, r, m.nv, sigma, nsigma, kind)))
        goto out;
out:
    ep_modal_free(&s);
    ep_mesh_free(&m);
    free(fixed);
    free(lambda);
    free(U);
    free(Phi);
    free(B);
    free(sigma);
    return st;
}

int ep_part_merge(ep_h5 *out, const char *const *paths, const char *const *srcnames, const ep_part *parts,
                  const int *order, int n, int is_virtual)
{
    merge_ctx c = {.out = out, .paths = paths, .src = srcnames, .order = order, .parts = parts, .n = n,
                   .is_virtual = is_virtual};
    ep_mesh m = {0};
    c.cur.id = H5I_INVALID_HID;
    /* the first part's model, validated as any input's (issue 37, class 2);
     * the others' equal it (same_everywhere) */
    int st = ep_h5_open(&c.first, paths[order[0]], NULL);
    if (!st && ep_h5_exists(&c.first, "/mesh"))
        st = ep_model_load(&m, &c.first);
    ep_mesh_free(&m);
    if (!st)
        st = merge_group(&c, "/");
    if (!st && !strcmp(c.first.kind, "modes"))
        st = merge_basis(&c);
    part_done(&c);
    ep_h5_close(&c.first);
    return st;
}

int ep_part_model_modes(const char *path, const ep_mesh *m, const ep_material *mat, const char *fixed, int want,
                        int lumped_asked, int *k, double **lambda, double **U)
{
    ep_h5 f = {0};
    ep_mesh fm = {0};
    ep_part a = {0}, b = {0};
    ep_part_hash h;
    int st, lumped;
    if ((st = ep_h5_open(&f, path, "modes")) || (st = ep_model_load(&fm, &f)))
        goto out;
    ep_part_hash_init(&h, "model");
    ep_part_hash_model(&h, m, mat, fixed);
    ep_part_hash_final(&h, &a);
    ep_part_hash_init(&h, "model");
    ep_part_hash_model(&h, &fm, NULL, NULL);
    ep_part_hash_final(&h, &b);
    if (strcmp(a.hash, b.hash)) {
        st = ep_fail(EP_EINPUT, "%s: modes of another model (mesh, material or support differ)", path);
        goto out;
    }
    if ((st = ep_modes_file_read_modes(&f, m->nv, want, lambda, U, k, &lumped)))
        goto out;
    if (lumped != lumped_asked)
        st = ep_fail(EP_EINPUT, "%s: modes of the %s mass, --mass %s asked", path, lumped ? "lumped" : "consistent",
                     lumped_asked ? "lumped" : "consistent");
out:
    ep_mesh_free(&fm);
    ep_h5_close(&f);
    return st;
}
