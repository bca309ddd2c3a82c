/*
 * fuzz_h5.c — structure-aware libFuzzer target for the HDF5 readers (make
 * fuzz-h5; replayed by make check through tests/unit/test_fuzz_h5.c).
 *
 * An input is not an HDF5 file but a program that damages one: its first
 * byte picks a valid seed file of one kind (tests/fuzz/h5seeds: mesh, gf,
 * gf-wavelet, modes, cubic, distfield, multigrid, pointshell, cubature,
 * trajectory), then each 8-byte record
 *   op, a, b, c, d0 d1 d2 d3   (d: little-endian 32-bit)
 * changes the copy through libhdf5 — an attribute (op 0: deleted, made an
 * array of strings, a fixed string, a long string, a number, NaN) or a
 * dataset (op 1: deleted, flattened, rows cut or added, chunked and
 * unwritten with huge extents, another type, one entry set to NaN, Inf,
 * -1 or a huge integer, emptied, made a scalar) — or, after the
 * edits, flips a byte of the file (op 2: the bytes libhdf5 itself decodes).
 * So libFuzzer's byte mutations become mutations of attributes,
 * dataspaces, types, extents and bytes of valid files, most of which
 * still open as HDF5 and reach the readers' checks.
 *
 * Every reader of the tools then reads the result: ep_model_read,
 * ep_gf_file_open (and its first rows), ep_gfw_open (and a block read
 * through its index), the cubic reader, rtcheck's modes check, the distance
 * field's reader and runtime lookup (ep_sdf_open, a value), the multigrid
 * reader (ep_mg_file_read) and a V-cycle set up on what it took, the
 * pointshell reader and a contact cycle on what it took (ep_pscontact), the
 * cubature reader with the cubature set up and evaluated, and the
 * trajectory's readers (ep_trajectory_read, moddesc's ep_snapshots_read,
 * rtcheck --reference's ep_rtref_run against the cubic seed).  Any crash,
 * leak or UB report is a bug: a reader must answer every file with a
 * status.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "cubature.h"
#include "cubature_file.h"
#include "cubic.h"
#include "cubic_file.h"
#include "distfield_file.h"
#include "err.h"
#include "gf.h"
#include "gfw.h"
#include "h5.h"
#include "mg_file.h"
#include "model.h"
#include "part.h"
#include "pscontact.h"
#include "rtmodes.h"
#include "rtref.h"
#include "sdf.h"
#include "snapshots.h"
#include "vcycle.h"
#include "trajectory.h"

#ifndef EP_FUZZ_SEEDS
#define EP_FUZZ_SEEDS "tests/fuzz/h5seeds"
#endif

#ifdef EP_FUZZ_PART
/* make fuzz-h5-part: epmerge's part reader (issue 37).  The seed is part 1
 * of 3 of a femcondense run; each damaged copy is read by ep_part_read and
 * merged with the intact parts 0 and 2 (ep_part_check_set, ep_part_merge:
 * every dataset compared, concatenated, checked). */
static const char *seeds[] = {"part.1"};
#else
static const char *seeds[] = {"mesh", "gf", "gfw", "modes", "cubic", "distfield", "multigrid", "pointshell", "cubature",
                              "trajectory"};
#endif

static const char *attrs[][2] = {
    {"/", "format"},      {"/", "format_version"}, {"/", "kind"},        {"/gf", "method"},
    {"/gf", "traction"},  {"/gf", "entity"},       {"/gf", "wavelet"},   {"/gf", "lifted"},
    {"/material", "E"},   {"/material", "nu"},     {"/material", "rho"}, {"/gf", "traction_model"},
    {"/distfield", "resolution"}, {"/distfield", "spacing"}, {"/distfield", "d_boundary"}, {"/distfield", "sign"},
    {"/distfield", "source_hash"},
    {"/multigrid", "levels"}, {"/multigrid/level0/K", "rows"}, {"/multigrid/level0/P", "cols"},
    {"/multigrid/level1/K", "block"}, {"/pointshell", "levels"}, {"/pointshell", "r"}, {"/pointshell", "order"},
    {"/cubature", "law"}, {"/cubature", "basis_sha256"}, {"/cubature", "tau"},
    {"/trajectory", "mode"}, {"/trajectory", "law"}, {"/trajectory", "mass"}, {"/trajectory", "dt"},
    {"/trajectory", "every"}, {"/trajectory", "complete"}, {"/trajectory", "steps"}, {"/trajectory", "step_seconds"},
};

static const char *dsets[] = {
    "/mesh/vertices",    "/mesh/tets",        "/mesh/triangles",    "/mesh/level",      "/mesh/parents",
    "/mesh/region",      "/constraints/fixed", "/gf/col_vertex",    "/gf/row_vertex",   "/gf/row_fixed",
    "/gf/xi",            "/gf/slots",         "/gf/slot_level",     "/gf/predict_ptr",  "/gf/predict_slot",
    "/gf/predict_weight", "/gf/lift_slot",    "/gf/lift_weight",    "/gf/colptr",       "/gf/rowidx",
    "/gf/blocks",        "/modes/eigenvalues", "/modes/U",          "/basis/U",         "/cubic/P",
    "/cubic/Q",          "/cubic/S",          "/material/E",       "/distfield/values", "/distfield/origin",
    "/multigrid/level0/K/rowptr", "/multigrid/level0/K/columns", "/multigrid/level0/K/values",
    "/multigrid/level0/P/rowptr", "/multigrid/level0/P/columns", "/multigrid/level0/P/values",
    "/multigrid/level1/vertices", "/multigrid/level1/tets", "/multigrid/level1/K/values", "/gf/body",
    "/pointshell/points", "/pointshell/level_start", "/pointshell/parent", "/pointshell/tree/start",
    "/pointshell/tree/point", "/pointshell/tree/first", "/pointshell/tree/count", "/pointshell/tree/radius",
    "/pointshell/U", "/pointshell/tree/a", "/pointshell/normals", "/pointshell/level",
    "/constraints/seam",
    "/cubature/elements", "/cubature/weights", "/cubature/heldout_q",
    "/trajectory/step", "/trajectory/time", "/trajectory/u", "/trajectory/v", "/trajectory/f_ext",
    "/trajectory/energy", "/trajectory/iterations", "/loads/base", "/loads/time", "/newton/history",
    "/pointshell/bind/vertex", "/pointshell/bind/Uv", "/pointshell/bind/element", "/pointshell/bind/weight",
    "/pointshell/bind/corner", "/pointshell/bind/gradient",
};

#define N(x) ((int)(sizeof(x) / sizeof((x)[0])))

static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    char buf[65536];
    size_t n;
    while (in && out && (n = fread(buf, 1, sizeof buf, in)) > 0)
        fwrite(buf, 1, n, out);
    if (in)
        fclose(in);
    if (out)
        fclose(out);
}

static void mutate_attr(hid_t f, int a, int mode, int c, uint32_t d)
{
    const char *obj = attrs[a % N(attrs)][0], *name = attrs[a % N(attrs)][1];
    if (H5Lexists(f, obj, H5P_DEFAULT) <= 0 && strcmp(obj, "/"))
        return;
    H5Adelete_by_name(f, obj, name, H5P_DEFAULT);
    mode %= 8;
    if (mode == 0)
        return;
    hsize_t n = (hsize_t)(c % 5 + 2);
    hid_t t = H5Tcopy(H5T_C_S1), s, at;
    char text[5] = {(char)d, (char)(d >> 8), (char)(d >> 16), (char)(d >> 24), 0};
    static char longtext[255 * 300 + 1]; /* case 5's longest string: c < 256 */
    const char *vals[8] = {text, text, text, text, text, text, text, text};
    double num = mode == 4 ? NAN : mode == 3 ? (double)(int32_t)d : (double)d * 1e-3;
    switch (mode) {
    case 1: /* an array of variable-length strings */
        H5Tset_size(t, H5T_VARIABLE);
        s = H5Screate_simple(1, &n, NULL);
        at = H5Acreate_by_name(f, obj, name, t, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(at, t, vals);
        break;
    case 2: /* an array of fixed strings */
        H5Tset_size(t, 4);
        s = H5Screate_simple(1, &n, NULL);
        at = H5Acreate_by_name(f, obj, name, t, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        memset(longtext, 'x', 64);
        H5Awrite(at, t, longtext);
        break;
    case 5: /* a long fixed string */
        H5Tset_size(t, (size_t)c * 300 + 1);
        s = H5Screate(H5S_SCALAR);
        at = H5Acreate_by_name(f, obj, name, t, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        memset(longtext, 'y', sizeof longtext);
        H5Awrite(at, t, longtext);
        break;
    case 7: /* a scalar vlen string of the input's bytes */
        H5Tset_size(t, H5T_VARIABLE);
        s = H5Screate(H5S_SCALAR);
        at = H5Acreate_by_name(f, obj, name, t, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(at, t, vals);
        break;
    default: /* numbers */
        s = H5Screate(H5S_SCALAR);
        at = H5Acreate_by_name(f, obj, name, mode == 3 ? H5T_STD_I32LE : H5T_IEEE_F64LE, s, H5P_DEFAULT,
                               H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(at, H5T_NATIVE_DOUBLE, &num);
        break;
    }
    if (at >= 0)
        H5Aclose(at);
    H5Sclose(s);
    H5Tclose(t);
}

static void mutate_dset(hid_t f, int a, int mode, int c, uint32_t d)
{
    const char *name = dsets[a % N(dsets)];
    if (H5Lexists(f, "/mesh", H5P_DEFAULT) <= 0 || !strchr(name + 1, '/'))
        return;
    char group[64];
    snprintf(group, sizeof group, "%.*s", (int)(strchr(name + 1, '/') - name), name);
    if (H5Lexists(f, group, H5P_DEFAULT) <= 0 || H5Lexists(f, name, H5P_DEFAULT) <= 0)
        return;
    hid_t ds = H5Dopen2(f, name, H5P_DEFAULT);
    if (ds < 0)
        return;
    hid_t sp = H5Dget_space(ds), ty = H5Dget_type(ds);
    int rank = H5Sget_simple_extent_ndims(sp), isf = H5Tget_class(ty) == H5T_FLOAT;
    hsize_t dims[4] = {0, 1, 1, 1};
    if (rank < 1 || rank > 4) {
        H5Sclose(sp), H5Tclose(ty), H5Dclose(ds);
        return;
    }
    H5Sget_simple_extent_dims(sp, dims, NULL);
    size_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= dims[i];
    double *v = calloc(n + 1, sizeof *v);
    if (n)
        H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    H5Sclose(sp), H5Dclose(ds);
    H5Ldelete(f, name, H5P_DEFAULT);
    hid_t ftype = H5Tcopy(ty), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Tclose(ty);
    mode %= 8;
    hsize_t nd[4] = {dims[0], dims[1], dims[2], dims[3]}, max[4];
    int nrank = rank;
    switch (mode) {
    case 0: /* deleted */
        goto out;
    case 1: /* flattened */
        nrank = 1, nd[0] = n;
        break;
    case 2: /* rows cut or added (zeros) */
        nd[0] = (hsize_t)((long)dims[0] + (c - 128) > 0 ? (long)dims[0] + (c - 128) : 0);
        break;
    case 3: { /* chunked, never written, huge extents */
        hsize_t chunk[4] = {1, dims[1], dims[2], dims[3]};
        nd[0] = (hsize_t)1 << (c % 48);
        for (int i = 0; i < rank; i++)
            max[i] = i ? nd[i] : H5S_UNLIMITED;
        H5Pset_chunk(dcpl, rank, chunk);
        hid_t s2 = H5Screate_simple(rank, nd, max);
        hid_t d2 = H5Dcreate2(f, name, ftype, s2, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        H5Sclose(s2);
        if (d2 >= 0)
            H5Dclose(d2);
        goto out;
    }
    case 4: /* the other numeric class, or a wider integer */
        H5Tclose(ftype);
        ftype = H5Tcopy(c & 1 ? H5T_STD_I64LE : isf ? H5T_STD_I32LE : H5T_IEEE_F32LE);
        break;
    case 5: /* one entry NaN, Inf, -1 or huge */
        if (n) {
            double x[4] = {NAN, -INFINITY, -1, 4e9};
            v[d % n] = x[c % 4];
        }
        break;
    case 6: /* emptied */
        nd[0] = 0;
        break;
    case 7: { /* a scalar */
        hid_t s2 = H5Screate(H5S_SCALAR);
        hid_t d2 = H5Dcreate2(f, name, ftype, s2, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (d2 >= 0) {
            H5Dwrite(d2, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
            H5Dclose(d2);
        }
        H5Sclose(s2);
        goto out;
    }
    }
    {
        size_t m = 1;
        for (int i = 0; i < nrank; i++)
            m *= nd[i];
        double *w = calloc(m + 1, sizeof *w);
        memcpy(w, v, (m < n ? m : n) * sizeof *w);
        hid_t s2 = H5Screate_simple(nrank, nd, NULL);
        hid_t d2 = H5Dcreate2(f, name, ftype, s2, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (d2 >= 0) {
            if (m)
                H5Dwrite(d2, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, w);
            H5Dclose(d2);
        }
        H5Sclose(s2);
        free(w);
    }
out:
    H5Pclose(dcpl);
    H5Tclose(ftype);
    free(v);
}

/* The readers of every tool on path: the model's, then the one of the
 * file's kind (a kind mutated away from the seed's meets another reader). */
#ifdef EP_FUZZ_PART
static void read_all(const char *path)
{
    char p0[256], p2[256], out[64];
    const char *paths[3] = {p0, path, p2}, *src[3] = {p0, path, p2};
    ep_part parts[3];
    ep_h5 f, o;
    int order[3], st = EP_OK;
    snprintf(p0, sizeof p0, "%s/part.0.h5", EP_FUZZ_SEEDS);
    snprintf(p2, sizeof p2, "%s/part.2.h5", EP_FUZZ_SEEDS);
    for (int i = 0; i < 3 && !st; i++) {
        if (!(st = ep_h5_open(&f, paths[i], NULL)))
            st = ep_part_read(&parts[i], &f);
        ep_h5_close(&f);
    }
    if (st || ep_part_check_set(parts, paths, 3, order))
        return;
    snprintf(out, sizeof out, "/tmp/ep-fuzz-part-%d.h5", (int)getpid());
    for (int v = 0; v < 2; v++)
        if (!ep_h5_create(&o, out, parts[0].kind, parts[0].creator, "fuzz")) {
            ep_part_merge(&o, paths, src, parts, order, 3, v);
            ep_h5_close(&o);
        }
    unlink(out);
}
#else
static void read_all(const char *path)
{
    ep_mesh m;
    ep_h5 f;
    char kind[32] = "";
    if (ep_model_read(&m, path) == 0)
        ep_mesh_free(&m);
    if (ep_h5_open(&f, path, NULL) == 0)
        snprintf(kind, sizeof kind, "%s", f.kind);
    if (!strcmp(kind, "cubic") && ep_model_load(&m, &f) == 0) {
        ep_cubic c;
        double *U = NULL;
        ep_cubic_file_read(&c, &f, m.nv, &U);
        ep_cubic_free(&c);
        free(U);
        ep_mesh_free(&m);
    } else if (!strcmp(kind, "cubature") && ep_model_load(&m, &f) == 0) {
        ep_cubature_file cf;
        ep_cubature c = {0};
        if (ep_cubature_file_read(&cf, &f, m.nv, m.ne) == 0 && m.material &&
            ep_cubature_prepare(&c, &m, m.material, cf.law, cf.U, cf.r, cf.elem, cf.w, cf.n) == 0) {
            double *w = malloc(sizeof *w * (size_t)ep_cubature_work(&c)), *R = calloc((size_t)cf.r, sizeof *R),
                   *K = malloc(sizeof *K * (size_t)cf.r * (size_t)cf.r);
            if (w && R && K && cf.H)
                ep_cubature_eval(&c, cf.heldout_q, R, K, w);
            free(w), free(R), free(K);
        }
        ep_cubature_free(&c);
        ep_cubature_file_free(&cf);
        ep_mesh_free(&m);
    } else if (!strcmp(kind, "trajectory") && ep_model_load(&m, &f) == 0) {
        /* the readers of rtcheck --reference (against the cubic seed, the
         * same mesh: the reduced run along the stored steps) and of
         * moddesc --snapshots */
        ep_trajectory t;
        ep_h5 mf;
        ep_rtreport rep = {0};
        double *X = NULL;
        int ns = 0;
        if (ep_trajectory_read(&t, &f, m.nv) == 0) {
            double *fx = malloc(3 * sizeof *fx * (size_t)m.nv);
            if (fx)
                ep_trajectory_force(&t, 1.5 * t.dt, fx);
            free(fx);
        }
        ep_trajectory_free(&t);
        ep_snapshots_read(&m, &path, 1, &X, &ns);
        free(X);
        rep.path = path;
        if (ep_h5_open(&mf, EP_FUZZ_SEEDS "/cubic.h5", "cubic") == 0)
            ep_rtref_run(&rep, &f, &mf, 1);
        ep_h5_close(&mf);
        ep_mesh_free(&m);
    } else if (!strcmp(kind, "modes")) {
        ep_rtreport rep = {0};
        rep.path = path;
        ep_rtmodes_run(&rep, &f);
    } else if (!strcmp(kind, "distfield")) {
        ep_distfield g;
        char hash[EP_DISTFIELD_FILE_HASH];
        ep_distfield_file_read(&g, &f, hash);
        ep_distfield_free(&g);
    } else if (!strcmp(kind, "multigrid") && ep_model_load(&m, &f) == 0) {
        ep_mghier h;
        ep_vcycle v = {0};
        if (ep_mg_file_read(&h, &f, m.nv) == 0 && ep_vcycle_init(&v, &h, NULL) == 0) {
            double *b = calloc(3 * (size_t)m.nv, sizeof *b), *x = calloc(3 * (size_t)m.nv, sizeof *x);
            if (b && x)
                ep_vcycle_cycle(&v, b, x);
            free(b), free(x);
        }
        ep_vcycle_free(&v);
        ep_mghier_free(&h);
        ep_mesh_free(&m);
    }
    ep_h5_close(&f);
    if (!strcmp(kind, "distfield")) {
        ep_sdf s;
        double p[3] = {0.1, 0.2, 0.3};
        if (ep_sdf_open(&s, path) == 0)
            ep_sdf_value(&s, p);
        ep_sdf_free(&s);
    }
    if (!strcmp(kind, "pointshell")) { /* a cycle on what the reader took, against a field of 1s */
        ep_pscontact c;
        if (ep_pscontact_open(&c, path) == 0) {
            float v[8] = {-1, 1, -1, 1, -1, 1, -1, 1};
            ep_sdf s = {.n = 1, .value = v, .h = 1, .inv_h = 1, .origin = {-0.5, -0.5, -0.5}, .d_boundary = -1};
            ep_pscontact_pose p;
            ep_pscontact_pose_identity(&p);
            double *q = calloc((size_t)c.ps.r + 1, sizeof *q), *g = calloc((size_t)c.ps.r + 1, sizeof *g);
            ep_pscontact_out o = {.g = g};
            if (q && g)
                ep_pscontact_cycle(&c, &s, q, &p, &o);
            free(q), free(g);
        }
        ep_pscontact_free(&c);
    }
    if (!strcmp(kind, "gf")) {
        ep_gf_file g;
        if (ep_gf_file_open(&g, path, "gf") == 0) {
            double *rows = malloc(3 * sizeof *rows * 3 * (size_t)g.L.n);
            if (rows)
                ep_gf_file_rows(&g, 0, 3, rows);
            free(rows);
        }
        ep_gf_file_close(&g);
    } else if (!strcmp(kind, "gf-wavelet")) {
        ep_gfw w;
        ep_wavelet_ws ws = {0};
        double B[9];
        /* a file the reader took is one its index serves: the last column's
         * block at the last row reads through it (selective extraction) */
        if (ep_gfw_open(&w, path) == 0 && w.g.L.m > 0 && ep_wavelet_ws_init(&ws, &w.W, 9) == 0)
            ep_gfw_block(&w, w.g.L.m - 1, w.g.L.n - 1, &ws, B);
        ep_wavelet_ws_free(&ws);
        ep_gfw_close(&w);
    }
}
#endif

/*
 * libhdf5 1.10.8 answers some corrupted metadata by asking malloc for a size
 * decoded from the damaged bytes (e.g. in H5C_protect, input
 * regressions/h5-libhdf5-H5C-protect-huge-alloc); it checks for NULL and
 * fails the open cleanly, which is what a plain build does.  ASan's default
 * aborts on such a request before malloc can return NULL, so the sanitized
 * builds of this target (make fuzz-h5, make check SANITIZE=1) let it return
 * NULL as glibc does.  Our own readers are held to the same rule: a huge
 * request that returns NULL must come back as a status.
 */
const char *__asan_default_options(void);
__attribute__((used)) const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1";
}

/* On that failed open libhdf5 also loses the 104-byte buffer it had taken
 * for the object header (H5C_protect → H5FL_blk_realloc, not freed on the
 * error path).  Debian's libhdf5 has no frame pointers, so LeakSanitizer's
 * fast stacks end at its first frame and cannot name H5C_protect: the
 * suppression names the library.  It hides no leak of ours: HDF5 objects a
 * reader forgets to close are freed by libhdf5's own exit handler, never
 * reported as leaks, and our mallocs are reported from our frames. */
const char *__lsan_default_suppressions(void);
__attribute__((used)) const char *__lsan_default_suppressions(void)
{
    return "leak:libhdf5_serial.so\n";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64], seed[256];
    if (size < 1)
        return 0;
    snprintf(seed, sizeof seed, "%s/%s.h5", EP_FUZZ_SEEDS, seeds[data[0] % N(seeds)]);
    snprintf(path, sizeof path, "/tmp/ep-fuzz-h5-%d.h5", (int)getpid());
    copy_file(seed, path);
    const uint8_t *op = data + 1;
    size_t nops = (size - 1) / 8;
    if (nops > 16)
        nops = 16;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    for (size_t i = 0; f >= 0 && i < nops; i++, op += 8) {
        uint32_t d = (uint32_t)op[4] | (uint32_t)op[5] << 8 | (uint32_t)op[6] << 16 | (uint32_t)op[7] << 24;
        if (op[0] % 3 == 0)
            mutate_attr(f, op[1], op[2], op[3], d);
        else if (op[0] % 3 == 1)
            mutate_dset(f, op[1], op[2], op[3], d);
    }
    if (f >= 0)
        H5Fclose(f);
    /* the bytes: after libhdf5 has written its edits */
    FILE *fp = fopen(path, "r+b");
    long len = 0;
    if (fp && fseek(fp, 0, SEEK_END) == 0)
        len = ftell(fp);
    op = data + 1;
    for (size_t i = 0; fp && len > 0 && i < nops; i++, op += 8)
        if (op[0] % 3 == 2) {
            uint32_t d = (uint32_t)op[4] | (uint32_t)op[5] << 8 | (uint32_t)op[6] << 16 | (uint32_t)op[7] << 24;
            int b;
            fseek(fp, (long)(d % (uint32_t)len), SEEK_SET);
            b = fgetc(fp);
            fseek(fp, (long)(d % (uint32_t)len), SEEK_SET);
            fputc((b ^ op[3]) & 0xff, fp);
        }
    if (fp)
        fclose(fp);
    read_all(path);
    unlink(path);
    return 0;
}
