/*
 * gfcompress — wavelet compression of boundary Green's functions, and
 * hierarchical GFs for coarser constraints.  See gfcompress(1).
 */
#define _GNU_SOURCE /* qsort_r */
#include "cli.h"
#include "err.h"
#include "gf.h"
#include "gfw.h"
#include "h5.h"
#include "model.h"
#include "progress.h"
#include "wavelet.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_EPS 32
#define CHUNK 32 /* block columns read and compressed together */

typedef struct {
    ep_wavelet_kind kind;
    int lifted, threshold_base;
    double eps;
    int neps;                 /* --sweep values */
    double sweep[MAX_EPS];
    const char *plot, *hierarchy;
    long level;               /* --constraint-level, -1: none */
} opts;

enum { OPT_WAVELET = 2000, OPT_UNLIFTED, OPT_EPS, OPT_BASE, OPT_SWEEP, OPT_PLOT, OPT_HIER, OPT_LEVEL };

static const struct option options[] = {
    {"wavelet", required_argument, NULL, OPT_WAVELET},
    {"unlifted", no_argument, NULL, OPT_UNLIFTED},
    {"eps", required_argument, NULL, OPT_EPS},
    {"threshold-base", no_argument, NULL, OPT_BASE},
    {"sweep", required_argument, NULL, OPT_SWEEP},
    {"plot", required_argument, NULL, OPT_PLOT},
    {"hierarchy", required_argument, NULL, OPT_HIER},
    {"constraint-level", required_argument, NULL, OPT_LEVEL},
    {0},
};

static int handle(int code, const char *arg, void *ctx)
{
    opts *o = ctx;
    switch (code) {
    case OPT_WAVELET:
        if (strcmp(arg, "linear") && strcmp(arg, "butterfly"))
            return ep_fail(EP_EUSAGE, "option --wavelet: expected linear or butterfly, got \"%s\"", arg);
        o->kind = strcmp(arg, "linear") ? EP_WAVELET_BUTTERFLY : EP_WAVELET_LINEAR;
        return EP_OK;
    case OPT_UNLIFTED:
        o->lifted = 0;
        return EP_OK;
    case OPT_EPS:
        if (ep_cli_double("--eps", arg, &o->eps) || !(o->eps >= 0 && o->eps < 1e6))
            return ep_fail(EP_EUSAGE, "option --eps: expected a threshold >= 0, got \"%s\"", arg);
        return EP_OK;
    case OPT_BASE:
        o->threshold_base = 1;
        return EP_OK;
    case OPT_SWEEP: {
        char buf[1024], *save, *tok;
        snprintf(buf, sizeof buf, "%s", arg);
        o->neps = 0;
        for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            double e;
            if (o->neps == MAX_EPS - 1 || ep_cli_double("--sweep", tok, &e) || !(e >= 0 && e < 1e6))
                return ep_fail(EP_EUSAGE, "option --sweep: expected up to %d thresholds >= 0, got \"%s\"",
                               MAX_EPS - 1, arg);
            o->sweep[o->neps++] = e;
        }
        return o->neps ? EP_OK : ep_fail(EP_EUSAGE, "option --sweep: no threshold given");
    }
    case OPT_PLOT:
        o->plot = arg;
        return EP_OK;
    case OPT_HIER:
        o->hierarchy = arg;
        return EP_OK;
    case OPT_LEVEL:
        return ep_cli_int("--constraint-level", arg, 0, 126, &o->level);
    }
    return EP_EUSAGE;
}

/* ---- the hierarchy and the rows ------------------------------------------------ */

typedef struct {
    ep_mesh own;            /* --hierarchy mesh, when given */
    const ep_mesh *h;       /* the hierarchy: the GF mesh or own */
    int *row_h;             /* [n] hierarchy vertex of each row */
} hierarchy;

static int cmp_x(const void *a, const void *b, void *ctx)
{
    const double *x = ctx;
    double u = x[3 * *(const int *)a], v = x[3 * *(const int *)b];
    return u < v ? -1 : u > v;
}

/* Match every GF row to the hierarchy vertex at the same position (within
 * 1e-6 of the model size): the GF mesh may be a tet mesh whose surface is the
 * loopsub surface, written by a mesher that kept the boundary vertices. */
static int match_rows(const ep_gf_file *g, hierarchy *H)
{
    const ep_mesh *h = H->h, *m = &g->mesh;
    int n = g->L.n, st = EP_OK, *order = ep_malloc((size_t)h->nv + 1, sizeof *order);
    char *used = ep_calloc((size_t)h->nv + 1, 1);
    double tol = 1e-6 * ep_mesh_diameter(h), tol2 = tol * tol;
    if (!order || !used) {
        st = EP_ECOMPUTE;
        goto out;
    }
    if (n != h->nv) {
        st = ep_fail(EP_EINPUT, "%s: %d boundary rows, but the hierarchy %s has %d vertices (mismatched mesh)",
                     g->f.path, n, h->source, h->nv);
        goto out;
    }
    for (int v = 0; v < h->nv; v++)
        order[v] = v;
    qsort_r(order, (size_t)h->nv, sizeof *order, cmp_x, h->vertices);
    for (int r = 0; r < n && !st; r++) {
        const double *x = &m->vertices[3 * (size_t)g->L.row_vertex[r]];
        int lo = 0, hi = h->nv, hit = -1;
        while (lo < hi) { /* first candidate with xh >= x - tol */
            int mid = (lo + hi) / 2;
            if (h->vertices[3 * (size_t)order[mid]] < x[0] - tol)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (int i = lo; i < h->nv && h->vertices[3 * (size_t)order[i]] <= x[0] + tol; i++) {
            const double *y = &h->vertices[3 * (size_t)order[i]];
            double d = (x[0] - y[0]) * (x[0] - y[0]) + (x[1] - y[1]) * (x[1] - y[1]) + (x[2] - y[2]) * (x[2] - y[2]);
            if (d <= tol2 && !used[order[i]])
                hit = order[i];
        }
        if (hit < 0)
            st = ep_fail(EP_EINPUT, "%s: boundary vertex %d (%g, %g, %g) has no vertex of the hierarchy %s "
                         "(mismatched mesh)", g->f.path, g->L.row_vertex[r] + 1, x[0], x[1], x[2], h->source);
        else
            used[hit] = 1, H->row_h[r] = hit;
    }
out:
    free(order), free(used);
    return st;
}

static int load_hierarchy(const ep_gf_file *g, const char *path, hierarchy *H)
{
    int st;
    ep_mesh_init(&H->own);
    H->h = &g->mesh;
    if (!(H->row_h = ep_malloc((size_t)g->L.n, sizeof *H->row_h)))
        return EP_ECOMPUTE;
    if (strcmp(g->entity, "vertex"))
        return ep_fail(EP_EINPUT, "%s: GFs of constant elements (entity triangle) have no vertex hierarchy; "
                       "compress vertex-based GFs", g->f.path);
    if (path) {
        if ((st = ep_model_read(&H->own, path)))
            return st;
        H->h = &H->own;
        if (H->own.tets)
            return ep_fail(EP_EINPUT, "%s: --hierarchy wants the loopsub surface, not a tet mesh", path);
    }
    if (!H->h->level)
        return ep_fail(EP_EINPUT, "%s: the mesh has no level data (/mesh/level); make the surface with loopsub%s",
                       path ? path : g->f.path, path ? "" : ", or name it with --hierarchy SURFACE.h5");
    if (!path) {
        if (H->h->nv != g->L.n)
            return ep_fail(EP_EINPUT, "%s: the mesh has level data but %d of its %d vertices are no GF row; "
                           "give the surface with --hierarchy", g->f.path, H->h->nv - g->L.n, H->h->nv);
        for (int r = 0; r < g->L.n; r++)
            H->row_h[r] = g->L.row_vertex[r];
        return EP_OK;
    }
    return match_rows(g, H);
}

static void free_hierarchy(hierarchy *H)
{
    ep_mesh_free(&H->own);
    free(H->row_h);
}

/* ---- compression ---------------------------------------------------------------- */

/* Errors and kept blocks, per domain d (0: free rows, the displacement
 * block 000 Fig. 7.1 reports; 1: fixed rows) and for whole columns. */
typedef struct {
    double err2[2], ref2[2];
    double maxrel_free;   /* 000 eq. 7.2 on the free rows */
    double maxrel;        /* the same over whole columns */
    long nnz[2];
} tally;

static void tally_add(tally *t, const tally *c)
{
    for (int d = 0; d < 2; d++) {
        t->err2[d] += c->err2[d];
        t->ref2[d] += c->ref2[d];
        t->nnz[d] += c->nnz[d];
    }
    t->maxrel = c->maxrel > t->maxrel ? c->maxrel : t->maxrel;
    t->maxrel_free = c->maxrel_free > t->maxrel_free ? c->maxrel_free : t->maxrel_free;
}

/* Per-thread buffers of one block column. */
typedef struct {
    double *x, *y, *z;
} work;

static int work_alloc(work *w, int n)
{
    w->x = ep_malloc(9 * (size_t)n, sizeof(double));
    w->y = ep_malloc(9 * (size_t)n, sizeof(double));
    w->z = ep_malloc(9 * (size_t)n, sizeof(double));
    return w->x && w->y && w->z ? EP_OK : EP_ECOMPUTE;
}

static void work_free(work *w) { free(w->x), free(w->y), free(w->z); }

/* Transform, threshold and measure every column: the table for each eps of
 * eps[ne] in tl[ne], and, when w is open, the column set of eps[ne - 1]
 * written through it. */
static int compress(ep_gf_file *g, const ep_wavelet *W, const int8_t *slot_domain, const opts *o,
                    const double *eps, int ne, tally *tl, ep_gfw_writer *w, int quiet)
{
    int n = g->L.n, m = g->L.m, nt = omp_get_max_threads(), st = EP_OK;
    size_t n3 = 3 * (size_t)n;
    double *rows = ep_malloc((size_t)CHUNK * n3 * 3, sizeof *rows);
    int *slot = ep_malloc((size_t)CHUNK * n, sizeof *slot), cnnz[CHUNK];
    float *blk = ep_malloc((size_t)CHUNK * n, 9 * sizeof *blk);
    tally *ct = ep_calloc((size_t)CHUNK * ne, sizeof *ct);
    work *wk = ep_calloc((size_t)nt, sizeof *wk);
    ep_progress p;
    if (!rows || !slot || !blk || !ct || !wk) {
        st = EP_ECOMPUTE;
        goto out;
    }
    for (int t = 0; t < nt; t++)
        if ((st = work_alloc(&wk[t], n)))
            goto out;
    memset(tl, 0, (size_t)ne * sizeof *tl);
    ep_progress_start(&p, "gfcompress", m, quiet);
    for (int c0 = 0; c0 < m; c0 += CHUNK) {
        int nc = m - c0 < CHUNK ? m - c0 : CHUNK;
        if ((st = ep_gf_file_rows(g, 3L * c0, 3L * nc, rows)))
            break;
#pragma omp parallel for schedule(dynamic, 1)
        for (int k = 0; k < nc; k++) {
            work *t = &wk[omp_get_thread_num()];
            double amp[2];
            ep_gfw_gather(W, &rows[3 * n3 * k], t->x);
            ep_gfw_amplitude(W, slot_domain, t->x, amp);
            memcpy(t->y, t->x, 9 * (size_t)n * sizeof *t->y);
            ep_wavelet_forward(W, 9, t->y);
            double ref2[2] = {0, 0}, colmax = amp[0] > amp[1] ? amp[0] : amp[1];
            for (int q = 0; q < n; q++)
                for (int i = 0; i < 9; i++)
                    ref2[slot_domain[q]] += t->x[9 * (size_t)q + i] * t->x[9 * (size_t)q + i];
            for (int e = 0; e < ne; e++) {
                tally *c = &ct[k * ne + e];
                int *s = &slot[(size_t)k * n];
                float *b = &blk[9 * (size_t)k * n];
                int nnz = ep_gfw_threshold(W, slot_domain, t->y, amp, eps[e], o->threshold_base, s, b);
                double maxerr[2];
                ep_gfw_error(W, slot_domain, nnz, s, b, t->x, t->z, c->err2, maxerr, c->nnz);
                c->ref2[0] = ref2[0], c->ref2[1] = ref2[1];
                c->maxrel = colmax > 0 ? (maxerr[0] > maxerr[1] ? maxerr[0] : maxerr[1]) / colmax : 0;
                c->maxrel_free = amp[0] > 0 ? maxerr[0] / amp[0] : 0;
                if (e == ne - 1)
                    cnnz[k] = nnz;
            }
        }
        for (int k = 0; k < nc; k++) {
            for (int e = 0; e < ne; e++)
                tally_add(&tl[e], &ct[k * ne + e]);
            if (w && (st = ep_gfw_writer_put(w, cnnz[k], &slot[(size_t)k * n], &blk[9 * (size_t)k * n])))
                break;
        }
        if (st)
            break;
        ep_progress_update(&p, c0 + nc);
    }
    ep_progress_end(&p);
out:
    for (int t = 0; wk && t < nt; t++)
        work_free(&wk[t]);
    free(wk), free(ct), free(rows), free(slot), free(blk);
    return st;
}

static double ratio(double a, double b) { return b > 0 ? a / b : 0; }
static double rms(const tally *t) { return sqrt(ratio(t->err2[0] + t->err2[1], t->ref2[0] + t->ref2[1])); }
static long kept(const tally *t) { return t->nnz[0] + t->nnz[1]; }

/* The drawing script: $ELASTOPREP_SCRIPTS, else next to the tool's folder
 * (bin/../scripts in the source tree, PREFIX/share/elastoprep installed),
 * else the source tree the tool was built in. */
static int find_script(char *path, size_t cap)
{
    char exe[4096];
    const char *env = getenv("ELASTOPREP_SCRIPTS");
    if (env) {
        snprintf(path, cap, "%s/gfplot", env);
        return access(path, X_OK) ? -1 : 0;
    }
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k <= 0)
        return -1;
    exe[k] = '\0';
    const char *dir = dirname(exe);
    const char *where[] = {"../scripts/gfplot", "../share/elastoprep/gfplot"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, cap, "%s/%s", dir, where[i]);
        if (!access(path, X_OK))
            return 0;
    }
#ifdef EP_SOURCE_SCRIPTS
    snprintf(path, cap, "%s/gfplot", EP_SOURCE_SCRIPTS);
    return access(path, X_OK) ? -1 : 0;
#else
    return -1;
#endif
}

/* dense[d]: blocks of domain d in the uncompressed matrix. */
static void print_table(FILE *f, const double *eps, int ne, const tally *tl, const long dense[2])
{
    fprintf(f, "# eps rms_error max_error kept_blocks compression rms_free max_free compression_free\n");
    for (int e = 0; e < ne; e++) {
        const tally *t = &tl[e];
        fprintf(f, "%g %.6g %.6g %ld %.6g %.6g %.6g %.6g\n", eps[e], rms(t), t->maxrel, kept(t),
                ratio(dense[0] + dense[1], kept(t)), sqrt(ratio(t->err2[0], t->ref2[0])), t->maxrel_free,
                ratio(dense[0], t->nnz[0]));
    }
}

/* Draw the table into png (a temporary of the lifecycle, committed by the
 * caller): the script runs without a shell, the table on its stdin, its
 * diagnostics (which would break the one-line error rule) to /dev/null. */
static int plot(const char *png, const char *name, const double *eps, int ne, const tally *tl, const long dense[2],
                const char *label)
{
    char script[4096];
    int fd[2], status;
    if (find_script(script, sizeof script))
        return ep_fail(EP_EIO, "--plot: cannot find the gfplot script (set ELASTOPREP_SCRIPTS)");
    if (pipe(fd))
        return ep_fail(EP_EIO, "--plot: cannot run %s: %s", script, strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]), close(fd[1]);
        return ep_fail(EP_EIO, "--plot: cannot run %s: %s", script, strerror(errno));
    }
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(fd[0], 0);
        if (null >= 0)
            dup2(null, 1), dup2(null, 2);
        close(fd[0]), close(fd[1]);
        execl(script, script, png, label, (char *)NULL);
        _exit(127);
    }
    close(fd[0]);
    FILE *p = fdopen(fd[1], "w");
    if (p) {
        void (*old)(int) = signal(SIGPIPE, SIG_IGN); /* a script that exits early closes the pipe */
        print_table(p, eps, ne, tl, dense);
        fclose(p);
        signal(SIGPIPE, old);
    } else
        close(fd[1]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!p || !WIFEXITED(status) || WEXITSTATUS(status))
        return ep_fail(EP_EIO, "--plot %s: %s failed (it needs /usr/bin/python3 with matplotlib; "
                       "run it by hand to see why)", name, script);
    return EP_OK;
}

/* ---- hierarchical GFs ------------------------------------------------------------- */

/* Columns for level-l hat constraints (MATH.md §8, 000 §3.5): the column of
 * coarse vertex k is sum_v hat^l_k(v) xi_v over the free boundary vertices v,
 * i.e. xi^l_k = xi^{l+1}_k + 1/2 sum_children xi^{l+1}_m applied level by
 * level.  Fixed vertices carry no traction load and drop out. */
static int hierarchical(ep_gf_file *g, const hierarchy *H, int l, ep_h5 *out, int *ncols)
{
    const ep_mesh *h = H->h;
    int n = g->L.n, m = g->L.m, st = EP_OK;
    size_t n3 = 3 * (size_t)n;
    int *col_of_h = ep_malloc((size_t)h->nv, sizeof *col_of_h), *col_row = NULL,
        *row_of_h = ep_malloc((size_t)h->nv, sizeof *row_of_h);
    double *hat = ep_malloc((size_t)h->nv, sizeof *hat), *acc = ep_malloc(3 * n3, sizeof *acc),
           *in = ep_malloc(3 * n3, sizeof *in);
    ep_gf_layout L2 = g->L;
    ep_gf_writer w = {0};
    L2.col_vertex = ep_malloc((size_t)m, sizeof(int));
    L2.m = 0;
    if (!col_of_h || !row_of_h || !hat || !acc || !in || !L2.col_vertex) {
        st = EP_ECOMPUTE;
        goto out;
    }
    if ((st = ep_gf_layout_column_rows(&g->L, &col_row)))
        goto out;
    for (int v = 0; v < h->nv; v++)
        col_of_h[v] = -1;
    for (int r = 0; r < n; r++) /* every hierarchy vertex is a row (load_hierarchy) */
        row_of_h[H->row_h[r]] = r;
    for (int c = 0; c < m; c++) {
        int v = H->row_h[col_row[c]];
        col_of_h[v] = c;
        if (h->level[v] <= l)
            L2.col_vertex[L2.m++] = g->L.col_vertex[c];
    }
    if (L2.m == 0) {
        st = ep_fail(EP_EINPUT, "%s: no GF column at a vertex of level <= %d", g->f.path, l);
        goto out;
    }
    if ((st = ep_gf_writer_open(&w, out, &L2, g->method, g->traction_model, 0)) ||
        (st = ep_h5_set_attr_int(out, "/gf", "constraint_level", l)))
        goto out;
    for (int c = 0, k = 0; c < m; c++) {
        int v = H->row_h[col_row[c]];
        if (h->level[v] > l)
            continue;
        ep_wavelet_hat(h, l, v, hat);
        memset(acc, 0, 3 * n3 * sizeof *acc);
        for (int u = 0; u < h->nv && !st; u++) {
            int cu = col_of_h[u], r = row_of_h[u];
            if (hat[u] == 0 || g->L.row_fixed[r])
                continue;
            if (cu < 0) {
                st = ep_fail(EP_EINPUT, "%s: the level-%d hat of vertex %d needs the GF column of free vertex %d, "
                             "which the file lacks (compute every free column)", g->f.path, l,
                             g->L.col_vertex[c] + 1, g->L.row_vertex[r] + 1);
                break;
            }
            if ((st = ep_gf_file_rows(g, 3L * cu, 3, in)))
                break;
            for (size_t i = 0; i < 3 * n3; i++)
                acc[i] += hat[u] * in[i];
        }
        if (st || (st = ep_gf_writer_put(&w, 3L * k, 3, acc)))
            goto out;
        k++;
    }
    *ncols = L2.m;
    st = ep_gf_writer_close(&w);
out:
    ep_gf_writer_close(&w);
    free(col_of_h), free(col_row), free(row_of_h), free(hat), free(acc), free(in), free(L2.col_vertex);
    return st;
}

int main(int argc, char **argv)
{
    opts o = {EP_WAVELET_LINEAR, 1, 0, 0.05, 0, {0}, NULL, NULL, -1};
    ep_tool tool = {
        .name = "gfcompress",
        .synopsis = "GF.h5 [--wavelet linear|butterfly] [--unlifted] [--eps E] [--threshold-base]\n"
                    "       [--hierarchy SURFACE.h5] [--sweep E1,E2,...] [--plot FILE.png] -o GFW.h5\n"
                    "       gfcompress GF.h5 --constraint-level L [--hierarchy SURFACE.h5] -o GFL.h5",
        .purpose = "Wavelet compression of boundary Green's functions on a subdivision-connectivity\n"
                   "surface (kind gf-wavelet), or GFs of hierarchical constraints at a coarser level.",
        .help = "      --wavelet linear|butterfly  predict filter (default linear)\n"
                "      --unlifted          skip the lifting step (interpolating wavelets)\n"
                "      --eps E             relative threshold (default 0.05); 0 keeps every block\n"
                "      --threshold-base    also threshold the base-level blocks\n"
                "      --hierarchy FILE    the loopsub surface giving /mesh/level and /mesh/parents,\n"
                "                          for GFs whose own mesh has none (e.g. femcondense on a\n"
                "                          tet mesh of that surface); rows are matched by position\n"
                "      --sweep LIST        print errors and compression for each threshold in LIST\n"
                "                          (comma separated) in one pass; -o is then optional\n"
                "      --plot FILE.png     draw the --sweep table (python3, matplotlib)\n"
                "      --constraint-level L  write GF columns of level-L hat constraints (kind gf)\n",
        .options = options,
        .handle = handle,
        .ctx = &o,
        .min_inputs = 1,
        .max_inputs = 1,
    };
    ep_cli cli;
    ep_gf_file g = {0};
    hierarchy H = {0};
    ep_wavelet W = {0};
    ep_output png = {0};
    ep_h5 *out = NULL;
    ep_gfw_writer w = {0};
    double *area = NULL, t0 = ep_now(), eps[MAX_EPS];
    int8_t *slot_domain = NULL;
    tally tl[MAX_EPS];
    int st, writing;

    ep_cli_parse_or_exit(&cli, &tool, argc, argv);
    writing = cli.output != NULL;
    if (!writing && !o.neps)
        ep_cli_exit(ep_fail(EP_EUSAGE, "no output: give -o FILE (or --sweep to print the table only)"));
    if (o.plot && !o.neps)
        ep_cli_exit(ep_fail(EP_EUSAGE, "--plot draws the --sweep table: give --sweep too"));
    if (o.level >= 0 && o.neps)
        ep_cli_exit(ep_fail(EP_EUSAGE, "--constraint-level writes GF columns; it takes no --sweep"));
    if (o.plot) { /* the plot is an output too: checked now, committed with -o */
        if ((st = ep_output_check(&png, o.plot)))
            ep_cli_exit(st);
        png.keep_ext = 1; /* matplotlib picks the format by the extension */
    }

    /* read -> validate */
    if ((st = ep_gf_file_open(&g, cli.inputs[0], "gf")) || (st = load_hierarchy(&g, o.hierarchy, &H)))
        goto out;
    int n = g.L.n;
    int L = 0;
    for (int v = 0; v < H.h->nv; v++)
        L = H.h->level[v] > L ? H.h->level[v] : L;

    if (o.level >= 0) { /* hierarchical GFs */
        int ncols = 0;
        if (o.level > L) {
            st = ep_fail(EP_EUSAGE, "--constraint-level %ld: the hierarchy has levels 0..%d", o.level, L);
            goto out;
        }
        if ((st = ep_cli_create_h5(&cli, "gf", &out)) || (st = ep_model_write(out, &g.mesh, NULL, NULL)) ||
            (st = hierarchical(&g, &H, (int)o.level, out, &ncols)) || (st = ep_output_commit(&cli.out)))
            goto out;
        if (!cli.quiet)
            printf("gfcompress: %s: %d GF columns of level-%ld hat constraints (of %d) in %.2f s\n", cli.output,
                   ncols, o.level, g.L.m, ep_now() - t0);
        goto out;
    }

    if ((st = ep_gf_row_areas(&g, &area)) ||
        (st = ep_wavelet_build(&W, H.h, n, H.row_h, g.L.row_fixed, area, o.kind, o.lifted)))
        goto out;
    if (!(slot_domain = ep_malloc((size_t)n, 1))) {
        st = EP_ECOMPUTE;
        goto out;
    }
    for (int s = 0; s < n; s++)
        slot_domain[s] = g.L.row_fixed[W.slot_row[s]];

    /* compute -> write; the written threshold goes last in the list */
    int ne = o.neps;
    memcpy(eps, o.sweep, (size_t)ne * sizeof *eps);
    if (writing)
        eps[ne++] = o.eps;
    const char *wname = o.kind == EP_WAVELET_LINEAR ? "linear" : "butterfly";
    if (writing && ((st = ep_cli_create_h5(&cli, "gf-wavelet", &out)) ||
                    (st = ep_model_write(out, &g.mesh, NULL, NULL)) ||
                    (st = ep_gfw_writer_open(&w, out, &g, &W, wname, o.lifted, o.eps))))
        goto out;
    if ((st = compress(&g, &W, slot_domain, &o, eps, ne, tl, writing ? &w : NULL, cli.quiet)))
        goto out;
    long dense[2] = {0, 0};
    for (int r = 0; r < n; r++)
        dense[g.L.row_fixed[r]] += g.L.m;
    tally *t = &tl[ne - 1];
    if (writing && (st = ep_gfw_writer_close(&w, rms(t), t->maxrel)))
        goto out;
    if (o.plot) { /* before any commit: a failed plot leaves no output behind */
        char label[256];
        snprintf(label, sizeof label, "%s %s, %d x %d blocks", o.lifted ? "lifted" : "unlifted", wname, n, g.L.m);
        if ((st = ep_output_reserve(&png)) || (st = plot(png.tmp, o.plot, eps, o.neps, tl, dense, label)))
            goto out;
    }
    if ((writing && (st = ep_output_commit(&cli.out))) || (o.plot && (st = ep_output_commit(&png))))
        goto out;
    if (writing && !cli.quiet)
        printf("gfcompress: %s: %s%s wavelets, %d levels, eps %g: RMS error %.3g%%, MAX error %.3g%%, "
               "%ld of %ld blocks kept (x%.1f) in %.2f s\n",
               cli.output, o.lifted ? "lifted " : "unlifted ", wname, L + 1, o.eps, 100 * rms(t),
               100 * t->maxrel, kept(t), dense[0] + dense[1], ratio(dense[0] + dense[1], kept(t)),
               ep_now() - t0);
    if (o.neps)
        print_table(stdout, eps, o.neps, tl, dense);
out:
    ep_gfw_writer_abort(&w);
    ep_output_abort(&png);
    free(area), free(slot_domain);
    ep_wavelet_free(&W);
    free_hierarchy(&H);
    ep_gf_file_close(&g);
    ep_cli_exit(st);
}
