/*
 * meshbin.c — binary Gmsh .msh to its ASCII text, and STL (meshbin.h).
 *
 * Layouts (Gmsh reference manual, "MSH file format", versions 2.2 and 4.1):
 *   2.2 binary: $Nodes: an ASCII count line, then per node int tag and
 *     3 doubles; $Elements: an ASCII count line, then blocks of int
 *     {type, n, ntags} followed by n times int {id, tags[ntags],
 *     nodes[k]}.
 *   4.1 binary (data-size 8: size_t): $Entities: size_t counts of points,
 *     curves, surfaces, volumes; a point int tag, 3 doubles, size_t nphys,
 *     int phys[]; others int tag, 6 doubles, size_t nphys, int phys[],
 *     size_t nbound, int bound[].  $Nodes: size_t {nblocks, n, min, max};
 *     a block int {dim, tag, parametric}, size_t n, size_t tags[n],
 *     double xyz[n][3].  $Elements: size_t {nblocks, n, min, max}; a block
 *     int {dim, tag, type}, size_t n, then n times size_t {id, nodes[k]}.
 * Every read is bounds-checked against the bytes left, so a damaged file
 * fails with "FILE: byte N: ..." and never reads past its end.
 */
#define _GNU_SOURCE /* memmem */
#include "meshbin.h"
#include "err.h"
#include "mem.h"
#include "text.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_ITEMS 0x7ffffff0UL /* int32 ids in the file schema */

/* The whole file in memory. */
static int slurp(const char *path, unsigned char **data, size_t *n)
{
    int fd, st = ep_text_open_regular(path, &fd);
    struct stat sb;
    if (st)
        return st;
    if (fstat(fd, &sb) || sb.st_size < 0) {
        close(fd);
        return ep_fail(EP_EIO, "%s: cannot read: %s", path, strerror(errno));
    }
    size_t size = (size_t)sb.st_size, got = 0;
    unsigned char *d = malloc(size + 1);
    if (!d) {
        close(fd);
        return ep_fail(EP_ECOMPUTE, "%s: out of memory for %zu bytes", path, size);
    }
    while (got < size) {
        ssize_t r = read(fd, d + got, size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            st = ep_fail(EP_EIO, "%s: cannot read: %s", path, r ? strerror(errno) : "file shrank");
            break;
        }
        got += (size_t)r;
    }
    close(fd);
    if (st) {
        free(d);
        return st;
    }
    d[size] = 0;
    *data = d;
    *n = size;
    return EP_OK;
}

/* ---- a bounds-checked cursor and a growable text ------------------------ */

typedef struct {
    const unsigned char *p, *end, *start;
    const char *path;
} cursor;

static int cur_fail(const cursor *c, const char *what)
{
    return ep_fail(EP_EINPUT, "%s: byte %ld: %s", c->path, (long)(c->p - c->start), what);
}

static int take(cursor *c, void *out, size_t n, const char *what)
{
    if ((size_t)(c->end - c->p) < n)
        return cur_fail(c, what);
    memcpy(out, c->p, n);
    c->p += n;
    return EP_OK;
}

static int take_int(cursor *c, long *v)
{
    int32_t x = 0;
    int st = take(c, &x, sizeof x, "file ends inside a section (truncated)");
    *v = x;
    return st;
}

static int take_size(cursor *c, size_t *v, size_t limit, size_t item_bytes, const char *what)
{
    uint64_t x = 0;
    int st = take(c, &x, sizeof x, "file ends inside a section (truncated)");
    if (st)
        return st;
    /* each counted item takes at least item_bytes of what is left */
    if (x > limit || (item_bytes && x > (uint64_t)(c->end - c->p) / item_bytes)) {
        char msg[96];
        snprintf(msg, sizeof msg, "impossible %s count %llu", what, (unsigned long long)x);
        return cur_fail(c, msg);
    }
    *v = (size_t)x;
    return EP_OK;
}

/* The rest of the current line, as a C string (up to 255 bytes). */
static void cur_line(cursor *c, char *out, size_t cap)
{
    size_t k = 0;
    while (c->p < c->end && *c->p != '\n') {
        if (k + 1 < cap)
            out[k++] = (char)*c->p;
        c->p++;
    }
    if (c->p < c->end)
        c->p++;
    while (k && out[k - 1] == '\r')
        k--;
    out[k] = 0;
}

typedef struct {
    char *a;
    size_t n, cap;
    int oom;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    if (t->oom)
        return;
    for (;;) {
        va_start(ap, fmt);
        int k = vsnprintf(t->a ? t->a + t->n : NULL, t->a ? t->cap - t->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            t->oom = 1;
            return;
        }
        if (t->a && t->n + (size_t)k < t->cap) {
            t->n += (size_t)k;
            return;
        }
        size_t want = t->cap ? 2 * t->cap : 1 << 16;
        while (want < t->n + (size_t)k + 1)
            want *= 2;
        char *b = realloc(t->a, want);
        if (!b) {
            t->oom = 1;
            return;
        }
        t->a = b;
        t->cap = want;
    }
}

/* Nodes of Gmsh element types 1..31 (0: not a type). */
static int type_nodes(long type)
{
    static const int k[32] = {0, 2, 3, 4, 4, 8, 6, 5, 3, 6, 9, 10, 27, 18, 14, 1,
                               8, 20, 15, 13, 9, 10, 12, 15, 15, 21, 4, 5, 6, 20, 35, 56};
    return type >= 1 && type <= 31 ? k[type] : 0;
}

static int unknown_type(const cursor *c, long type)
{
    char msg[80];
    snprintf(msg, sizeof msg, "element type %ld not supported", type);
    return cur_fail(c, msg);
}

/* ---- sections ------------------------------------------------------------ */

static int entities41(cursor *c, text *o)
{
    size_t cnt[4];
    int st = EP_OK;
    for (int d = 0; d < 4 && !st; d++)
        st = take_size(c, &cnt[d], 1UL << 24, 4 + 24 + 8, "entity");
    if (st)
        return st;
    put(o, "$Entities\n%zu %zu %zu %zu\n", cnt[0], cnt[1], cnt[2], cnt[3]);
    for (int d = 0; d < 4; d++)
        for (size_t i = 0; i < cnt[d]; i++) {
            long tag, x;
            double box[6];
            size_t np, nb;
            int nbox = d ? 6 : 3;
            if ((st = take_int(c, &tag)) || (st = take(c, box, sizeof(double) * (size_t)nbox, "truncated entity")) ||
                (st = take_size(c, &np, 1UL << 20, 4, "physical tag")))
                return st;
            put(o, "%ld", tag);
            for (int k = 0; k < nbox; k++)
                put(o, " %.17g", isfinite(box[k]) ? box[k] : 0.0);
            put(o, " %zu", np);
            for (size_t k = 0; k < np; k++) {
                if ((st = take_int(c, &x)))
                    return st;
                put(o, " %ld", x);
            }
            if (d) { /* bounding entities: not needed, skipped */
                if ((st = take_size(c, &nb, 1UL << 24, 4, "bounding entity")))
                    return st;
                c->p += 4 * nb;
            }
            put(o, "\n");
        }
    put(o, "$EndEntities\n");
    return EP_OK;
}

/* One block of a 4.1 $Nodes or $Elements section, after its entity
 * dimension, entity tag and third number (parametric flag, element type)
 * have been read: reads the rest and writes the block as text; n is the
 * section's item count.  0 or EP_EINPUT. */
typedef int (*block41)(cursor *c, text *o, size_t n, long dim, long tag, long third);

/* 4.1: a $Nodes or $Elements section (name section): the block count, the
 * item count (each item at least item_bytes of what is left: "node",
 * "element"), the least and greatest tag, then the blocks, each by block();
 * written back as text.  0 or EP_EINPUT naming the count or the section. */
static int section41(cursor *c, text *o, const char *section, const char *item, size_t item_bytes, block41 block)
{
    char blocks[32], cut[32];
    size_t nb, n, lo = 0, hi = 0;
    int st;
    snprintf(blocks, sizeof blocks, "%s block", item);
    snprintf(cut, sizeof cut, "truncated $%s", section);
    if ((st = take_size(c, &nb, MAX_ITEMS, 20, blocks)) || (st = take_size(c, &n, MAX_ITEMS, item_bytes, item)) ||
        (st = take(c, &lo, 8, cut)) || (st = take(c, &hi, 8, cut)))
        return st;
    put(o, "$%s\n%zu %zu %zu %zu\n", section, nb, n, lo, hi);
    for (size_t b = 0; b < nb; b++) {
        long dim, tag, third;
        if ((st = take_int(c, &dim)) || (st = take_int(c, &tag)) || (st = take_int(c, &third)) ||
            (st = block(c, o, n, dim, tag, third)))
            return st;
    }
    put(o, "$End%s\n", section);
    return EP_OK;
}

/* A node block: its tags, then its coordinates (param: parametric nodes,
 * refused). */
static int node_block(cursor *c, text *o, size_t n, long dim, long tag, long param)
{
    size_t k;
    int st;
    if ((st = take_size(c, &k, n, 32, "node")))
        return st;
    if (param)
        return cur_fail(c, "parametric nodes not supported");
    put(o, "%ld %ld 0 %zu\n", dim, tag, k);
    const unsigned char *tags = c->p;
    c->p += 8 * k;
    for (size_t i = 0; i < k; i++) {
        uint64_t t;
        memcpy(&t, tags + 8 * i, 8);
        put(o, "%llu\n", (unsigned long long)t);
    }
    for (size_t i = 0; i < k; i++) {
        double x[3];
        if ((st = take(c, x, sizeof x, "truncated node coordinates")))
            return st;
        put(o, "%.17g %.17g %.17g\n", x[0], x[1], x[2]);
    }
    return EP_OK;
}

/* An element block of one type: each element's tag and node tags. */
static int element_block(cursor *c, text *o, size_t n, long dim, long tag, long type)
{
    size_t k;
    int st, nn;
    if (!(nn = type_nodes(type)))
        return unknown_type(c, type);
    if ((st = take_size(c, &k, n, 8 * (size_t)(nn + 1), "element")))
        return st;
    put(o, "%ld %ld %ld %zu\n", dim, tag, type, k);
    for (size_t i = 0; i < k; i++) {
        for (int j = 0; j <= nn; j++) {
            uint64_t t;
            memcpy(&t, c->p, 8);
            c->p += 8;
            put(o, j ? " %llu" : "%llu", (unsigned long long)t);
        }
        put(o, "\n");
    }
    return EP_OK;
}

/* 2.2: the ASCII count line that opens $Nodes and $Elements. */
static int count22(cursor *c, size_t *n, size_t item_bytes, const char *what)
{
    char line[256], *e;
    cur_line(c, line, sizeof line);
    errno = 0;
    long long v = strtoll(line, &e, 10);
    if (e == line || v < 0 || (unsigned long long)v > MAX_ITEMS || errno ||
        (size_t)v > (size_t)(c->end - c->p) / item_bytes) {
        char msg[96];
        snprintf(msg, sizeof msg, "impossible %s count \"%.20s\"", what, line);
        return cur_fail(c, msg);
    }
    *n = (size_t)v;
    return EP_OK;
}

static int nodes22(cursor *c, text *o)
{
    size_t n;
    int st = count22(c, &n, 28, "node");
    if (st)
        return st;
    put(o, "$Nodes\n%zu\n", n);
    for (size_t i = 0; i < n; i++) {
        long tag;
        double x[3];
        if ((st = take_int(c, &tag)) || (st = take(c, x, sizeof x, "truncated node")))
            return st;
        put(o, "%ld %.17g %.17g %.17g\n", tag, x[0], x[1], x[2]);
    }
    put(o, "$EndNodes\n");
    return EP_OK;
}

static int elements22(cursor *c, text *o)
{
    size_t n, done = 0;
    int st = count22(c, &n, 8, "element");
    if (st)
        return st;
    put(o, "$Elements\n%zu\n", n);
    while (done < n) {
        long type, k, ntags, v;
        int nn;
        if ((st = take_int(c, &type)) || (st = take_int(c, &k)) || (st = take_int(c, &ntags)))
            return st;
        if (!(nn = type_nodes(type)))
            return unknown_type(c, type);
        if (k < 1 || (size_t)k > n - done || ntags < 0 || ntags > 64)
            return cur_fail(c, "impossible element block header");
        for (long i = 0; i < k; i++) {
            long id;
            if ((st = take_int(c, &id)))
                return st;
            put(o, "%ld %ld %ld", id, type, ntags);
            for (long j = 0; j < ntags + nn; j++) {
                if ((st = take_int(c, &v)))
                    return st;
                put(o, " %ld", v);
            }
            put(o, "\n");
        }
        done += (size_t)k;
    }
    put(o, "$EndElements\n");
    return EP_OK;
}

/* After a binary section: its "$EndName" line (the newline before it optional). */
static int end_of(cursor *c, const char *name)
{
    char want[64], line[256];
    snprintf(want, sizeof want, "$End%s", name);
    while (c->p < c->end && (*c->p == '\n' || *c->p == '\r'))
        c->p++;
    cur_line(c, line, sizeof line);
    if (strcmp(line, want)) {
        char msg[128];
        snprintf(msg, sizeof msg, "expected %s after the binary data, found \"%.20s\"", want, line);
        return cur_fail(c, msg);
    }
    return EP_OK;
}

/* 1 when the file's first lines are "$MeshFormat" and "VERSION 1 SIZE"
 * (binary); an unreadable file is the ASCII reader's to report. */
static int binary_msh(const char *path)
{
    char head[256] = "", ver[32];
    int fd, ftype = 0, dsize = 0;
    if (ep_text_open_regular(path, &fd))
        return 0;
    ssize_t n = read(fd, head, sizeof head - 1);
    close(fd);
    if (n <= 0)
        return 0;
    head[n] = 0;
    return !strncmp(head, "$MeshFormat", 11) && sscanf(head + 11, "%31s %d %d", ver, &ftype, &dsize) == 3 &&
           ftype == 1;
}

int ep_meshbin_msh_text(const char *path, char **text_out, size_t *len)
{
    unsigned char *data = NULL;
    size_t size;
    text o = {0};
    char line[256], ver[32];
    int ftype = 0, dsize = 0, st;
    *text_out = NULL;
    *len = 0;
    if (!binary_msh(path))
        return EP_OK;
    if ((st = slurp(path, &data, &size)))
        return st;
    cursor c = {data, data + size, data, path};
    cur_line(&c, line, sizeof line);
    if (strcmp(line, "$MeshFormat")) /* not a Gmsh file: the ASCII reader says so */
        goto out;
    cur_line(&c, line, sizeof line);
    if (sscanf(line, "%31s %d %d", ver, &ftype, &dsize) != 3 || ftype != 1)
        goto out;
    double version = atof(ver);
    int v41 = version >= 4.1 && version < 5.0;
    if (!v41 && !(version >= 2.0 && version < 3.0)) {
        st = ep_fail(EP_EINPUT, "%s: binary MSH version %s not supported (2.2 or 4.1)", path, ver);
        goto out;
    }
    if (dsize != 8) {
        st = ep_fail(EP_EINPUT, "%s: binary MSH with data-size %d (8 supported)", path, dsize);
        goto out;
    }
    long one;
    if ((st = take_int(&c, &one)))
        goto out;
    if (one != 1) {
        st = cur_fail(&c, "binary MSH written with another byte order");
        goto out;
    }
    if ((st = end_of(&c, "MeshFormat")))
        goto out;
    put(&o, "$MeshFormat\n%s 0 8\n$EndMeshFormat\n", v41 ? "4.1" : "2.2");
    while (!st && c.p < c.end) {
        while (c.p < c.end && (*c.p == '\n' || *c.p == '\r' || *c.p == ' '))
            c.p++;
        if (c.p == c.end)
            break;
        const unsigned char *at = c.p;
        cur_line(&c, line, sizeof line);
        if (line[0] != '$') {
            c.p = at;
            st = cur_fail(&c, "expected a $Section");
            break;
        }
        char *name = line + 1;
        if (!strcmp(name, "Nodes") || !strcmp(name, "Elements") || (v41 && !strcmp(name, "Entities"))) {
            if (!strcmp(name, "Nodes"))
                st = v41 ? section41(&c, &o, "Nodes", "node", 32, node_block) : nodes22(&c, &o);
            else if (!strcmp(name, "Elements"))
                st = v41 ? section41(&c, &o, "Elements", "element", 16, element_block) : elements22(&c, &o);
            else
                st = entities41(&c, &o);
            if (!st)
                st = end_of(&c, name);
            continue;
        }
        /* any other section: $PhysicalNames (ASCII in binary files too) is
         * copied, the rest skipped up to its $End line */
        char want[300];
        snprintf(want, sizeof want, "\n$End%s", name);
        const unsigned char *e = memmem(c.p - 1, (size_t)(c.end - c.p + 1), want, strlen(want));
        if (!e) {
            st = cur_fail(&c, "section not closed");
            break;
        }
        if (!strcmp(name, "PhysicalNames"))
            put(&o, "$PhysicalNames\n%.*s$EndPhysicalNames\n", (int)(e + 1 - c.p), (const char *)c.p);
        c.p = e + 1;
        cur_line(&c, line, sizeof line);
    }
    if (!st && o.oom)
        st = ep_fail(EP_ECOMPUTE, "%s: out of memory converting the binary mesh", path);
    if (!st) {
        *text_out = o.a;
        *len = o.n;
        o.a = NULL;
    }
out:
    free(o.a);
    free(data);
    return st;
}

/* ---- STL ----------------------------------------------------------------- */

typedef struct {
    double x[3];
    int corner; /* 3 t + k */
} stl_corner;

static int cmp_corner(const void *a, const void *b)
{
    const stl_corner *p = a, *q = b;
    for (int k = 0; k < 3; k++)
        if (p->x[k] != q->x[k])
            return p->x[k] < q->x[k] ? -1 : 1;
    return (p->corner > q->corner) - (p->corner < q->corner);
}

/* Merge identical corners: vertices in order of first appearance by value. */
static int weld(stl_corner *c, size_t nc, ep_mesh *m)
{
    int *tri = ep_malloc(nc, sizeof *tri);
    double *x = ep_malloc(3 * nc, sizeof *x);
    if (!tri || !x) {
        free(tri);
        free(x);
        return EP_ECOMPUTE;
    }
    qsort(c, nc, sizeof *c, cmp_corner);
    int nv = 0;
    for (size_t i = 0; i < nc; i++) {
        if (i == 0 || memcmp(c[i].x, c[i - 1].x, sizeof c[i].x)) {
            memcpy(x + 3 * nv, c[i].x, sizeof c[i].x);
            nv++;
        }
        tri[c[i].corner] = nv - 1;
    }
    m->nv = nv;
    m->vertices = x;
    m->nf = (int)(nc / 3);
    m->triangles = tri;
    return EP_OK;
}

static int stl_binary(const char *path, const unsigned char *d, size_t n, stl_corner *c)
{
    for (size_t t = 0; t < n; t++) {
        const unsigned char *f = d + 84 + 50 * t + 12; /* past the normal */
        for (int k = 0; k < 3; k++) {
            float v[3];
            memcpy(v, f + 12 * k, sizeof v);
            for (int a = 0; a < 3; a++) {
                if (!isfinite(v[a]))
                    return ep_fail(EP_EINPUT, "%s: triangle %zu: coordinate not finite", path, t + 1);
                c[3 * t + k].x[a] = v[a];
            }
            c[3 * t + k].corner = (int)(3 * t + (size_t)k);
        }
    }
    return EP_OK;
}

/* ASCII: every "vertex x y z" line in order; three make a triangle. */
static int stl_ascii(const char *path, stl_corner **out, size_t *nc)
{
    ep_text t;
    stl_corner *c = NULL;
    size_t n = 0, cap = 0;
    int r, st = ep_text_open(&t, path, 0);
    if (st)
        return st;
    while (!(r = ep_text_next(&t)) && !t.eof) {
        char *w;
        if ((st = ep_text_word(&t, &w)))
            break;
        if (strcmp(w, "vertex")) {
            if (!strcmp(w, "solid") || !strcmp(w, "facet") || !strcmp(w, "outer") || !strcmp(w, "endloop") ||
                !strcmp(w, "endfacet") || !strcmp(w, "endsolid"))
                continue;
            st = ep_text_fail(&t, EP_EINPUT, "expected an STL keyword (facet, outer loop, vertex, ...), found \"%.20s\"", w);
            break;
        }
        if (n >= MAX_ITEMS) {
            st = ep_text_fail(&t, EP_EINPUT, "too many triangles");
            break;
        }
        if ((st = ep_grow_to(&c, &cap, n + 1, sizeof *c)))
            break;
        for (int a = 0; a < 3 && !st; a++)
            st = ep_text_double(&t, &c[n].x[a]);
        if (st)
            break;
        c[n].corner = (int)n;
        n++;
    }
    if (!st && r)
        st = r;
    if (!st && n % 3)
        st = ep_fail(EP_EINPUT, "%s: %zu vertex lines, not a multiple of 3", path, n);
    ep_text_close(&t);
    if (st) {
        free(c);
        return st;
    }
    *out = c;
    *nc = n;
    return EP_OK;
}

int ep_meshbin_read_stl(const char *path, ep_mesh *m)
{
    unsigned char *d = NULL;
    size_t size, nc = 0;
    stl_corner *c = NULL;
    int st = slurp(path, &d, &size);
    if (st)
        return st;
    uint32_t n = 0;
    if (size >= 84)
        memcpy(&n, d + 80, 4);
    if (size >= 84 && size == 84 + 50 * (uint64_t)n) {
        if (n > MAX_ITEMS / 3)
            st = ep_fail(EP_EINPUT, "%s: %u triangles, more than int32 ids can number", path, n);
        else if (!(c = ep_malloc(3 * (size_t)n + 1, sizeof *c)))
            st = EP_ECOMPUTE;
        else
            st = stl_binary(path, d, n, c);
        nc = 3 * (size_t)n;
    } else if (size >= 5 && !memcmp(d, "solid", 5)) {
        st = stl_ascii(path, &c, &nc);
    } else {
        st = ep_fail(EP_EINPUT, "%s: not an STL file (no \"solid\" at the start, and not 84 + 50 n bytes long)", path);
    }
    free(d);
    if (!st && !nc)
        st = ep_fail(EP_EINPUT, "%s: no triangles", path);
    if (!st)
        st = weld(c, nc, m);
    free(c);
    return st;
}
