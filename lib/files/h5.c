/*
 * h5.c — reading and writing the elastoprep HDF5 schema (h5.h).
 *
 * HDF5's own error stack printing is switched off: every failure becomes one
 * ep_fail() message naming the file and the object.
 */
#define _GNU_SOURCE /* pipe2, sync_file_range */
#include "h5.h"
#include "err.h"

#include "mem.h"
#include "text.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Before the library's first call: no exit handler.  libhdf5 1.10's
 * H5_term_library crashes (SIGSEGV in H5F__close_cb) on a file whose close
 * failed, as on a full disk; every file a tool writes is closed by the tool
 * (ep_output_commit, ep_output_abort), and files it reads hold nothing to
 * flush, so the handler has no work to do. */
static void quiet(void)
{
    static int once;
    if (!once) {
        once = 1;
        H5dont_atexit();
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

static hid_t mem_type(ep_h5_type t)
{
    switch (t) {
    case EP_F64: return H5T_NATIVE_DOUBLE;
    case EP_F32: return H5T_NATIVE_FLOAT;
    case EP_I64: return H5T_NATIVE_INT64;
    case EP_I32: return H5T_NATIVE_INT32;
    default:     return H5T_NATIVE_INT8;
    }
}

/* Little-endian on disk, whatever the machine, so files move between hosts. */
static hid_t file_type(ep_h5_type t)
{
    switch (t) {
    case EP_F64: return H5T_IEEE_F64LE;
    case EP_F32: return H5T_IEEE_F32LE;
    case EP_I64: return H5T_STD_I64LE;
    case EP_I32: return H5T_STD_I32LE;
    default:     return H5T_STD_I8LE;
    }
}

static size_t type_size(ep_h5_type t)
{
    static const size_t s[] = {8, 4, 8, 4, 1};
    return s[t];
}

static const char *type_name(ep_h5_type t)
{
    static const char *n[] = {"float64", "float32", "int64", "int32", "int8"};
    return n[t];
}

int ep_h5_set_attr_string(ep_h5 *f, const char *obj, const char *name, const char *value)
{
    hid_t t = H5Tcopy(H5T_C_S1), s = H5Screate(H5S_SCALAR), a = H5I_INVALID_HID;
    herr_t r = -1;
    /* Variable-length UTF-8, as h5py writes strings: Python readers get str. */
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    a = H5Acreate_by_name(f->id, obj, name, t, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (a >= 0)
        r = H5Awrite(a, t, &value);
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(s);
    H5Tclose(t);
    return r < 0 ? ep_fail(EP_EIO, "%s: cannot write attribute %s of %s", f->path, name, obj) : EP_OK;
}

static int set_attr_num(ep_h5 *f, const char *obj, const char *name, hid_t ftype, hid_t mtype,
                        const void *v)
{
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate_by_name(f->id, obj, name, ftype, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    herr_t r = a >= 0 ? H5Awrite(a, mtype, v) : -1;
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(s);
    return r < 0 ? ep_fail(EP_EIO, "%s: cannot write attribute %s of %s", f->path, name, obj) : EP_OK;
}

int ep_h5_set_attr_double(ep_h5 *f, const char *obj, const char *name, double value)
{
    return set_attr_num(f, obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value);
}

int ep_h5_set_attr_int(ep_h5 *f, const char *obj, const char *name, long value)
{
    int32_t v = (int32_t)value;
    return set_attr_num(f, obj, name, H5T_STD_I32LE, H5T_NATIVE_INT32, &v);
}

/* ---- attributes: variable-length strings read in a contained child ------------ */

/* What reading one attribute gives: the status, then the value (a double,
 * or the string's bytes) or the message of the failure. */
typedef struct attr_reply {
    int st;
    double num;
    char text[EP_H5_MAX_STRING];
} attr_reply;

#define NEEDS_CHILD (-1) /* a variable-length string: libhdf5's vlen path */

/* Open the attribute and check it is a scalar of the class asked for, then
 * read it — unless it is a variable-length string and vlen is 0: then
 * r->st = NEEDS_CHILD.  Any check failing records its message in r->text. */
static void attr_read_here(ep_h5 *f, const char *obj, const char *name, int want_string, int vlen, attr_reply *r)
{
    hid_t a = H5Aopen_by_name(f->id, obj, name, H5P_DEFAULT, H5P_DEFAULT), t, s, mt;
    r->st = EP_OK;
    r->text[0] = '\0';
    if (a < 0) {
        r->st = ep_fail(EP_EINPUT, "%s: attribute %s of %s is missing", f->path, name, obj);
        snprintf(r->text, sizeof r->text, "%s", ep_errmsg());
        return;
    }
    t = H5Aget_type(a);
    s = H5Aget_space(a);
    H5T_class_t c = H5Tget_class(t);
    size_t size = H5Tget_size(t);
    hssize_t npoints = H5Sget_simple_extent_npoints(s);
    if (H5Sget_simple_extent_type(s) != H5S_SCALAR) {
        /* an array of strings overflowed the old reader (issue 22, class 1) */
        r->st = ep_fail(EP_EINPUT, "%s: attribute %s of %s is not a scalar (%lld values)", f->path, name, obj,
                        (long long)npoints);
    } else if (want_string && c != H5T_STRING) {
        r->st = ep_fail(EP_EINPUT, "%s: attribute %s of %s is not a string", f->path, name, obj);
    } else if (!want_string && ((c != H5T_FLOAT && c != H5T_INTEGER) || size == 0 || size > 16)) {
        r->st = ep_fail(EP_EINPUT, "%s: attribute %s of %s is not a number", f->path, name, obj);
    } else if (!want_string) {
        if (H5Aread(a, H5T_NATIVE_DOUBLE, &r->num) < 0)
            r->st = ep_fail(EP_EINPUT, "%s: attribute %s of %s is not a number", f->path, name, obj);
        else if (isinf(r->num))
            r->st = ep_fail(EP_EINPUT, "%s: attribute %s of %s is infinite", f->path, name, obj);
    } else if (H5Tis_variable_str(t) > 0 && !vlen) {
        r->st = NEEDS_CHILD;
    } else if (H5Tis_variable_str(t) > 0) {
        char *v = NULL;
        mt = H5Tcopy(H5T_C_S1);
        H5Tset_cset(mt, H5Tget_cset(t)); /* HDF5 does not convert between ASCII and UTF-8 */
        H5Tset_size(mt, H5T_VARIABLE);
        if (H5Aread(a, mt, &v) < 0 || !v)
            r->st = ep_fail(EP_EINPUT, "%s: cannot read attribute %s of %s", f->path, name, obj);
        else
            snprintf(r->text, sizeof r->text, "%s", v);
        H5Tclose(mt);
        /* not freed: the child ends here */
    } else if (size >= sizeof r->text) {
        r->st = ep_fail(EP_EINPUT, "%s: attribute %s of %s is a string of %zu bytes (at most %d)", f->path, name,
                        obj, size, EP_H5_MAX_STRING - 1);
    } else {
        mt = H5Tcopy(H5T_C_S1);
        H5Tset_cset(mt, H5Tget_cset(t));
        H5Tset_size(mt, size + 1);
        H5Tset_strpad(mt, H5T_STR_NULLTERM);
        if (H5Aread(a, mt, r->text) < 0)
            r->st = ep_fail(EP_EINPUT, "%s: cannot read attribute %s of %s", f->path, name, obj);
        H5Tclose(mt);
    }
    if (r->st > 0)
        snprintf(r->text, sizeof r->text, "%s", ep_errmsg());
    H5Sclose(s);
    H5Tclose(t);
    H5Aclose(a);
}

/* The string attributes of the schema, read together in one child the
 * first time one of them is asked for (a fork per attribute cost 30 ms
 * each on a loaded machine). */
static const char *const schema_strings[][2] = {
    {"/", "format"}, {"/", "kind"}, {"/gf", "method"}, {"/gf", "traction"}, {"/gf", "entity"},
    {"/gf", "traction_model"}, {"/gf", "wavelet"}, {"/modes", "mass"}, {"/basis", "method"},
    /* a part file's (epmerge): one child per part, not four (issue 37, class 6) */
    {"/", "creator"}, {"/part", "unit"}, {"/part", "hash"}, {"/part", "basis"},
};
#define NSCHEMA ((int)(sizeof schema_strings / sizeof schema_strings[0]))

static int write_all(int fd, const void *buf, size_t n)
{
    for (size_t w = 0; w < n;) {
        ssize_t k = write(fd, (const char *)buf + w, n - w);
        if (k <= 0)
            return -1;
        w += (size_t)k;
    }
    return 0;
}

/* Read the variable-length string attributes obj/name and those of the
 * schema in a forked child, into f's cache (name's full value into r).
 * libhdf5 1.10 reads a vlen string trusting the sizes its bytes state: a
 * corrupted global heap made it write out of bounds (SIGSEGV, or heap
 * corruption that ASan alone saw; issue 22, class 9).  In a child such a
 * crash costs the child, and the attribute it was reading is reported as
 * damaged.  The child resets every signal (the tool's handlers would
 * remove its temporaries), silences stderr, and ends by _exit (no atexit
 * work, no flush of the tool's files).  Cost: one fork per file. */
static int read_vlen_in_child(ep_h5 *f, const char *obj, const char *name, attr_reply *r)
{
    int p[2], ws = 0;
    if (pipe2(p, O_CLOEXEC) != 0)
        return ep_fail(EP_EIO, "%s: cannot read attribute %s of %s: %s", f->path, name, obj, strerror(errno));
    pid_t pid = fork();
    if (pid == 0) {
        for (int sig = 1; sig < NSIG; sig++)
            signal(sig, SIG_DFL);
        int nul = open("/dev/null", O_WRONLY);
        if (nul >= 0)
            dup2(nul, 2);
        close(p[0]);
        alarm(30);
        /* entry -1: the one asked for; then the schema's that exist */
        for (int i = -1; i < NSCHEMA; i++) {
            const char *o = i < 0 ? obj : schema_strings[i][0], *n = i < 0 ? name : schema_strings[i][1];
            if (i >= 0 && !(ep_h5_exists(f, o) && H5Aexists_by_name(f->id, o, n, H5P_DEFAULT) > 0))
                continue;
            if (write_all(p[1], &i, sizeof i)) /* announced before the read: a crash names it */
                _exit(2);
            attr_read_here(f, o, n, 1, 1, r);
            uint32_t len = (uint32_t)strlen(r->text);
            if (write_all(p[1], &r->st, sizeof r->st) || write_all(p[1], &len, sizeof len) ||
                write_all(p[1], r->text, len))
                _exit(2);
        }
        _exit(0);
    }
    close(p[1]);
    if (pid < 0) {
        close(p[0]);
        return ep_fail(EP_EIO, "%s: cannot read attribute %s of %s: %s", f->path, name, obj, strerror(errno));
    }
    FILE *in = fdopen(p[0], "rb");
    attr_reply *other = ep_malloc(1, sizeof *other);
    int idx, st, asked = 0;
    uint32_t len;
    while (in && other && fread(&idx, sizeof idx, 1, in) == 1 && idx >= -1 && idx < NSCHEMA) {
        char *text = idx < 0 ? r->text : other->text;
        int ok = fread(&st, sizeof st, 1, in) == 1 && fread(&len, sizeof len, 1, in) == 1 &&
                 len < sizeof r->text && fread(text, 1, len, in) == len;
        if (ok) {
            text[len] = '\0';
        } else { /* the child died reading it */
            st = ep_fail(EP_EINPUT, "%s: attribute %s of %s is damaged (libhdf5 failed reading it)", f->path,
                         idx < 0 ? name : schema_strings[idx][1], idx < 0 ? obj : schema_strings[idx][0]);
            snprintf(text, sizeof r->text, "%s", ep_errmsg());
        }
        if (idx < 0) {
            asked = 1;
            r->st = st;
        } else if (f->ncached < EP_H5_CACHE) {
            ep_h5_cached *c = &f->cached[f->ncached++];
            size_t l = strnlen(text, sizeof c->text - 1);
            snprintf(c->obj, sizeof c->obj, "%s", schema_strings[idx][0]);
            snprintf(c->name, sizeof c->name, "%s", schema_strings[idx][1]);
            c->st = st;
            memcpy(c->text, text, l);
            c->text[l] = '\0';
        }
        if (!ok)
            break;
    }
    free(other);
    if (in)
        fclose(in);
    else
        close(p[0]);
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
        ;
    (void)ws;
    if (!asked) {
        r->text[0] = '\0';
        return r->st = ep_fail(EP_EINPUT, "%s: attribute %s of %s is damaged (libhdf5 failed reading it)", f->path,
                               name, obj);
    }
    return r->st ? ep_fail(r->st, "%s", r->text) : EP_OK;
}

int ep_h5_get_attr_string(ep_h5 *f, const char *obj, const char *name, char *value, size_t cap)
{
    int st;
    for (int i = 0; i < f->ncached; i++)
        if (!strcmp(f->cached[i].obj, obj) && !strcmp(f->cached[i].name, name)) {
            if (cap)
                snprintf(value, cap, "%s", f->cached[i].st ? "" : f->cached[i].text);
            return f->cached[i].st ? ep_fail(f->cached[i].st, "%s", f->cached[i].text) : EP_OK;
        }
    attr_reply *r = ep_malloc(1, sizeof *r);
    if (!r)
        return EP_ECOMPUTE;
    attr_read_here(f, obj, name, 1, 0, r);
    if (r->st == NEEDS_CHILD)
        st = read_vlen_in_child(f, obj, name, r);
    else
        st = r->st ? ep_fail(r->st, "%s", r->text) : EP_OK;
    if (cap)
        snprintf(value, cap, "%s", st ? "" : r->text);
    free(r);
    return st;
}

int ep_h5_get_attr_double(ep_h5 *f, const char *obj, const char *name, double *value)
{
    attr_reply *r = ep_malloc(1, sizeof *r);
    if (!r)
        return EP_ECOMPUTE;
    attr_read_here(f, obj, name, 0, 0, r);
    int st = r->st ? ep_fail(r->st, "%s", r->text) : EP_OK;
    if (!st)
        *value = r->num;
    free(r);
    return st;
}

int ep_h5_attr_exists(ep_h5 *f, const char *obj, const char *name)
{
    return ep_h5_exists(f, obj) && H5Aexists_by_name(f->id, obj, name, H5P_DEFAULT) > 0;
}

int ep_h5_create(ep_h5 *f, const char *path, const char *kind, const char *creator,
                 const char *command)
{
    char when[32];
    time_t now = time(NULL);
    struct tm tm;
    int st;
    quiet();
    memset(f, 0, sizeof *f);
    snprintf(f->path, sizeof f->path, "%s", path);
    snprintf(f->kind, sizeof f->kind, "%s", kind);
    /* closing the file closes what is still open in it, so a close flushes
     * everything or reports that it could not */
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG);
    /* the 1.8 format: object headers, heaps and B-trees carry a checksum,
     * so a damaged header fails its read instead of reaching libhdf5's
     * own out-of-bounds reads (tests/fuzz/libhdf5); HDF5 1.8 on reads it,
     * 1.10 a virtual dataset (epmerge --virtual: the one newer feature) */
    H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST);
    f->id = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    if (f->id < 0)
        return ep_fail(EP_EIO, "%s: cannot create HDF5 file", path);
    gmtime_r(&now, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if ((st = ep_h5_set_attr_string(f, "/", "format", EP_FORMAT)) ||
        (st = ep_h5_set_attr_int(f, "/", "format_version", EP_FORMAT_VERSION)) ||
        (st = ep_h5_set_attr_string(f, "/", "kind", kind)) ||
        (st = ep_h5_set_attr_string(f, "/", "creator", creator)) ||
        (st = ep_h5_set_attr_string(f, "/", "command", command)) ||
        (st = ep_h5_set_attr_string(f, "/", "created", when))) {
        H5Fclose(f->id);
        f->id = H5I_INVALID_HID;
    }
    return st;
}

int ep_h5_open(ep_h5 *f, const char *path, const char *kind)
{
    char format[64];
    double version;
    int st;
    quiet();
    memset(f, 0, sizeof *f);
    f->id = H5I_INVALID_HID;
    snprintf(f->path, sizeof f->path, "%s", path);
    int fd;
    if ((st = ep_text_open_regular(path, &fd))) /* a FIFO is refused, not waited on */
        return st;
    if (H5Fis_hdf5(path) <= 0) {
        close(fd);
        return ep_fail(EP_EINPUT, "%s: not an HDF5 file", path);
    }
    f->id = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f->id < 0) {
        /* libhdf5 1.10 takes a lock (flock) on every file it opens and refuses
         * one that a writer holds: that is no damage */
        int locked = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
        close(fd);
        return locked ? ep_fail(EP_EIO, "%s: locked by another process (a writer still has it open)", path)
                      : ep_fail(EP_EINPUT, "%s: cannot open as HDF5 (damaged or truncated?)", path);
    }
    close(fd);
    if ((st = ep_h5_get_attr_string(f, "/", "format", format, sizeof format)))
        goto fail;
    if (strcmp(format, EP_FORMAT)) {
        st = ep_fail(EP_EINPUT, "%s: format is \"%s\", not an elastoprep file", path, format);
        goto fail;
    }
    if ((st = ep_h5_get_attr_double(f, "/", "format_version", &version)))
        goto fail;
    if (version != EP_FORMAT_VERSION) { /* NaN too */
        st = ep_fail(EP_EINPUT, "%s: format_version %g not supported (this build reads %d)", path,
                     version, EP_FORMAT_VERSION);
        goto fail;
    }
    if ((st = ep_h5_get_attr_string(f, "/", "kind", f->kind, sizeof f->kind)))
        goto fail;
    if (!kind && !strstr(EP_KINDS " ", (snprintf(format, sizeof format, " %s ", f->kind), format))) {
        /* a tool reading only /mesh took any kind (issue 22, class 13) */
        st = ep_fail(EP_EINPUT, "%s: kind \"%s\" is not an elastoprep kind (%s)", path, f->kind, &EP_KINDS[1]);
        goto fail;
    }
    if (kind && strcmp(kind, f->kind)) {
        st = ep_fail(EP_EINPUT, "%s: kind is \"%s\", expected \"%s\"", path, f->kind, kind);
        goto fail;
    }
    return EP_OK;
fail:
    H5Fclose(f->id);
    f->id = H5I_INVALID_HID;
    return st;
}

int ep_h5_close(ep_h5 *f)
{
    int st = EP_OK;
    if (f->id > 0 && H5Fclose(f->id) < 0)
        st = ep_fail(EP_EIO, "%s: error closing file", f->path);
    f->id = H5I_INVALID_HID;
    return st;
}

int ep_h5_drop_written(ep_h5 *f, double bytes)
{
    void *handle;
    if ((f->written += bytes) < EP_H5_DROP_BYTES)
        return EP_OK;
    f->written = 0;
    hid_t fapl = H5Fget_access_plist(f->id);
    int sec2 = fapl >= 0 && H5Pget_driver(fapl) == H5FD_SEC2;
    if (fapl >= 0)
        H5Pclose(fapl);
    if (!sec2 || H5Fget_vfd_handle(f->id, H5P_DEFAULT, &handle) < 0)
        return EP_OK;
    int fd = *(int *)handle;
    if (sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER) &&
        errno != ESPIPE && errno != EINVAL)
        return ep_fail(EP_EIO, "%s: cannot write: %s", f->path, strerror(errno));
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED); /* a hint: only clean pages go */
    return EP_OK;
}

int ep_h5_exists(ep_h5 *f, const char *name)
{
    /* H5Lexists needs each parent to exist: walk the path. */
    char buf[256];
    const char *p = name;
    while ((p = strchr(p + 1, '/'))) {
        snprintf(buf, sizeof buf, "%.*s", (int)(p - name), name);
        if (H5Lexists(f->id, buf, H5P_DEFAULT) <= 0)
            return 0;
    }
    return H5Lexists(f->id, name, H5P_DEFAULT) > 0;
}

int ep_h5_write(ep_h5 *f, const char *name, ep_h5_type type, int rank, const hsize_t *dims,
                const void *data)
{
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE), s = H5Screate_simple(rank, dims, NULL);
    H5Pset_create_intermediate_group(lcpl, 1);
    hid_t d = H5Dcreate2(f->id, name, file_type(type), s, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    herr_t r = d >= 0 ? H5Dwrite(d, mem_type(type), H5S_ALL, H5S_ALL, H5P_DEFAULT, data) : -1;
    if (d >= 0)
        H5Dclose(d);
    H5Sclose(s);
    H5Pclose(lcpl);
    return r < 0 ? ep_fail(EP_EIO, "%s: cannot write %s", f->path, name) : EP_OK;
}

int ep_h5_stream_open(ep_h5_stream *s, ep_h5 *f, const char *name, ep_h5_type type, int rank,
                      const hsize_t *dims)
{
    hsize_t max[4], chunk[4];
    size_t row = type_size(type);
    memset(s, 0, sizeof *s);
    s->f = f;
    s->type = type;
    s->rank = rank;
    snprintf(s->name, sizeof s->name, "%s", name);
    for (int i = 0; i < rank; i++) {
        s->dims[i] = i ? dims[i] : 0;
        max[i] = i ? dims[i] : H5S_UNLIMITED;
        chunk[i] = i ? dims[i] : 1;
        row *= i ? dims[i] : 1;
    }
    chunk[0] = row < 65536 ? 65536 / row : 1; /* ~64 KiB chunks */
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE), dcpl = H5Pcreate(H5P_DATASET_CREATE),
          sp = H5Screate_simple(rank, s->dims, max);
    H5Pset_create_intermediate_group(lcpl, 1);
    H5Pset_chunk(dcpl, rank, chunk);
    s->d = H5Dcreate2(f->id, name, file_type(type), sp, lcpl, dcpl, H5P_DEFAULT);
    H5Sclose(sp);
    H5Pclose(dcpl);
    H5Pclose(lcpl);
    return s->d < 0 ? ep_fail(EP_EIO, "%s: cannot create %s", f->path, name) : EP_OK;
}

int ep_h5_stream_append(ep_h5_stream *s, hsize_t nrows, const void *data)
{
    hsize_t start[4] = {s->dims[0]}, count[4];
    if (nrows == 0)
        return EP_OK;
    memcpy(count, s->dims, sizeof count);
    count[0] = nrows;
    s->dims[0] += nrows;
    herr_t r = H5Dset_extent(s->d, s->dims);
    hid_t fs = r >= 0 ? H5Dget_space(s->d) : H5I_INVALID_HID, ms = H5Screate_simple(s->rank, count, NULL);
    if (r >= 0)
        r = H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    if (r >= 0)
        r = H5Dwrite(s->d, mem_type(s->type), ms, fs, H5P_DEFAULT, data);
    if (fs >= 0)
        H5Sclose(fs);
    H5Sclose(ms);
    return r < 0 ? ep_fail(EP_EIO, "%s: cannot write %s", s->f->path, s->name) : EP_OK;
}

int ep_h5_stream_close(ep_h5_stream *s)
{
    int st = EP_OK;
    if (s->d > 0 && H5Dclose(s->d) < 0)
        st = ep_fail(EP_EIO, "%s: cannot close %s", s->f->path, s->name);
    s->d = H5I_INVALID_HID;
    return st;
}

/* "[4][3]"; a 0 extent as "[*]" (any) unless zero is set. */
static void dims_text(char *buf, size_t cap, int rank, const hsize_t *d, int zero)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < rank && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, d[i] || zero ? "[%llu]" : "[*]", (unsigned long long)d[i]);
}

/* Bytes the dataset's stored data may expand to when read: without filters
 * the stored bytes themselves; through filters (deflate and the like, which
 * h5repack may have applied) at most 1032 times as many, deflate's limit.
 * A virtual dataset (epmerge --virtual) stores nothing itself: its rows are
 * the source files' datasets, so the file bounds nothing here. */
static double stored_bound(hid_t d)
{
    hid_t dcpl = H5Dget_create_plist(d);
    int filters = dcpl >= 0 ? H5Pget_nfilters(dcpl) : 0, is_virtual = dcpl >= 0 && H5Pget_layout(dcpl) == H5D_VIRTUAL;
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (is_virtual)
        return INFINITY;
    return (double)H5Dget_storage_size(d) * (filters > 0 ? 1032.0 : 1.0);
}

/* A virtual dataset's source files must exist: libhdf5 reads the rows of a
 * missing source as the fill value (zeros), and rtcheck said "ok" on a
 * virtual merge whose parts were deleted (issue 37, class 2).  A relative
 * source is looked for beside f (where epmerge --virtual names it) and
 * from the working folder, as libhdf5 does.  0 or EP_EINPUT naming it. */
static int virtual_sources(ep_h5 *f, hid_t d, const char *name)
{
    hid_t dcpl = H5Dget_create_plist(d);
    size_t n = 0;
    int st = EP_OK;
    if (dcpl < 0)
        return EP_OK;
    if (H5Pget_layout(dcpl) == H5D_VIRTUAL && H5Pget_virtual_count(dcpl, &n) >= 0)
        for (size_t i = 0; i < n && !st; i++) {
            char src[4096], near[8192];
            struct stat sb;
            ssize_t k = H5Pget_virtual_filename(dcpl, i, src, sizeof src);
            if (k < 0 || (size_t)k >= sizeof src) {
                st = ep_fail(EP_EINPUT, "%s: dataset %s: a virtual source with no readable name", f->path, name);
                break;
            }
            if (!strcmp(src, "."))
                continue; /* this file */
            const char *slash = strrchr(f->path, '/');
            snprintf(near, sizeof near, "%.*s%s", slash ? (int)(slash - f->path + 1) : 0, f->path, src);
            int found = (src[0] != '/' && stat(near, &sb) == 0 && S_ISREG(sb.st_mode)) ||
                        (stat(src, &sb) == 0 && S_ISREG(sb.st_mode));
            if (!found)
                st = ep_fail(EP_EINPUT, "%s: dataset %s maps rows of %s, which is missing (a virtual merge's "
                             "parts must stay where they were)", f->path, name, src);
        }
    H5Pclose(dcpl);
    return st;
}

int ep_h5_open_dataset(ep_h5 *f, const char *name, ep_h5_type type, int rank, hsize_t *dims, hid_t *dset)
{
    hsize_t got[8] = {0};
    char want[96], have[96];
    int st = EP_OK, r;
    *dset = H5I_INVALID_HID;
    if (!ep_h5_exists(f, name))
        return ep_fail(EP_EINPUT, "%s: dataset %s is missing", f->path, name);
    hid_t d = H5Dopen2(f->id, name, H5P_DEFAULT);
    if (d < 0)
        return ep_fail(EP_EINPUT, "%s: %s is not a dataset", f->path, name);
    hid_t t = H5Dget_type(d), s = H5Dget_space(d);
    H5T_class_t c = H5Tget_class(t);
    size_t tsize = H5Tget_size(t);
    int want_float = type == EP_F64 || type == EP_F32;
    /* a float of 1 or 3 bytes, or an integer of 16, is no type of the schema */
    if (c != (want_float ? H5T_FLOAT : H5T_INTEGER) || tsize == 0 || tsize > 8 || (want_float && tsize < 4)) {
        st = ep_fail(EP_EINPUT, "%s: dataset %s has the wrong type (expected %s)", f->path, name,
                     type_name(type));
        goto out;
    }
    r = H5Sget_simple_extent_ndims(s);
    if (r >= 0 && r <= 8)
        H5Sget_simple_extent_dims(s, got, NULL);
    int ok = r == rank && H5Sget_simple_extent_type(s) == H5S_SIMPLE;
    for (int i = 0; ok && i < rank; i++)
        ok = !dims[i] || dims[i] == got[i];
    if (!ok) {
        dims_text(want, sizeof want, rank, dims, 0);
        dims_text(have, sizeof have, r > 0 && r <= 8 ? r : 0, got, 1);
        st = ep_fail(EP_EINPUT, "%s: dataset %s has shape %s, expected %s", f->path, name,
                     r <= 0 ? "scalar" : have, want);
        goto out;
    }
    /* The declared extents are checked against what the file stores and
     * against memory before anything is allocated: a chunked dataset whose
     * chunks were never written declares any extents for free (a 21 KB file
     * declared 2.3 GB; issue 22, class 5). */
    if ((st = virtual_sources(f, d, name)))
        goto out;
    double values = 1;
    for (int i = 0; i < rank; i++)
        values *= (double)got[i];
    if (values * (double)tsize > stored_bound(d)) {
        st = ep_fail(EP_EINPUT, "%s: dataset %s declares %.0f values but stores %.0f bytes (damaged or truncated?)",
                     f->path, name, values, (double)H5Dget_storage_size(d));
        goto out;
    }
    for (int i = 0; i < rank; i++)
        dims[i] = got[i];
out:
    H5Sclose(s);
    H5Tclose(t);
    if (st)
        H5Dclose(d);
    else
        *dset = d;
    return st;
}

/* The first non-finite value of a float array, or -1. */
static long first_nonfinite(ep_h5_type type, const void *data, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (type == EP_F64 ? !isfinite(((const double *)data)[i]) : !isfinite(((const float *)data)[i]))
            return (long)i;
    return -1;
}

int ep_h5_read(ep_h5 *f, const char *name, ep_h5_type type, int rank, hsize_t *dims, void **data)
{
    hid_t d;
    int st;
    *data = NULL;
    if ((st = ep_h5_open_dataset(f, name, type, rank, dims, &d)))
        return st;
    size_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= dims[i];
    double bytes = (double)n * (double)type_size(type);
    if (bytes > ep_mem_limit(0)) {
        st = ep_fail(EP_ECOMPUTE, "%s: dataset %s needs %s, more than the memory (%s)", f->path, name,
                     ep_mem_text(bytes), ep_mem_text(ep_mem_limit(0)));
    } else if (!(*data = ep_malloc(n ? n : 1, type_size(type)))) {
        st = EP_ECOMPUTE;
    } else if (n && H5Dread(d, mem_type(type), H5S_ALL, H5S_ALL, H5P_DEFAULT, *data) < 0) {
        st = ep_fail(EP_EINPUT, "%s: cannot read dataset %s (damaged or out of range)", f->path, name);
    } else if (type == EP_F64 || type == EP_F32) {
        long bad = first_nonfinite(type, *data, n);
        if (bad >= 0) { /* values enter every tool here: NaN or Inf is refused (class 6) */
            hsize_t at[8];
            char where[96];
            for (int i = rank - 1; i >= 0; i--) {
                at[i] = dims[i] ? (hsize_t)bad % dims[i] : 0;
                bad = dims[i] ? bad / (long)dims[i] : 0;
            }
            dims_text(where, sizeof where, rank, at, 1);
            st = ep_fail(EP_EINPUT, "%s: %s: value is not finite at %s", f->path, name, where);
        }
    }
    if (st) {
        free(*data);
        *data = NULL;
    }
    H5Dclose(d);
    return st;
}

/* ---- the datasets of a file, for -v -------------------------------------------- */

typedef struct walk_ctx {
    void (*fn)(void *ctx, const ep_h5_info *d);
    void *ctx;
} walk_ctx;

/* "float64", "int32", "uint8", "string" of an HDF5 type. */
static void dataset_type_name(hid_t t, char *out, size_t cap)
{
    H5T_class_t cls = H5Tget_class(t);
    size_t bits = 8 * H5Tget_size(t);
    if (cls == H5T_FLOAT)
        snprintf(out, cap, "float%zu", bits);
    else if (cls == H5T_INTEGER)
        snprintf(out, cap, "%sint%zu", H5Tget_sign(t) == H5T_SGN_NONE ? "u" : "", bits);
    else if (cls == H5T_STRING)
        snprintf(out, cap, "string");
    else
        snprintf(out, cap, "other");
}

static herr_t walk_link(hid_t g, const char *name, const H5L_info_t *info, void *data)
{
    walk_ctx *w = data;
    H5O_info_t oi;
    (void)info;
    if (H5Oget_info_by_name2(g, name, &oi, H5O_INFO_BASIC, H5P_DEFAULT) < 0 || oi.type != H5O_TYPE_DATASET)
        return 0;
    hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
    if (d < 0)
        return 0;
    hid_t t = H5Dget_type(d), s = H5Dget_space(d);
    char path[1024];
    snprintf(path, sizeof path, "/%s", name);
    ep_h5_info di = {.name = path};
    dataset_type_name(t, di.type, sizeof di.type);
    int rank = H5Sget_simple_extent_ndims(s);
    di.rank = rank > 8 ? -1 : rank;
    if (rank >= 0 && rank <= 8)
        H5Sget_simple_extent_dims(s, di.dims, NULL);
    di.bytes = (double)H5Dget_storage_size(d);
    w->fn(w->ctx, &di);
    H5Sclose(s);
    H5Tclose(t);
    H5Dclose(d);
    return 0;
}

int ep_h5_walk(ep_h5 *f, void (*fn)(void *ctx, const ep_h5_info *d), void *ctx)
{
    walk_ctx w = {fn, ctx};
    if (H5Lvisit(f->id, H5_INDEX_NAME, H5_ITER_INC, walk_link, &w) < 0)
        return ep_fail(EP_EIO, "%s: cannot walk its datasets", f->path);
    return EP_OK;
}
