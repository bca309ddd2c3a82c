/*
 * bond.c — zones bonded at seams (bond.h; 000 §5.1, MATH.md §12).
 */
#include "bond.h"
#include "err.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void zone_free(ep_bond_zone *z)
{
    free(z->srow), free(z->scol), free(z->glob), free(z->x), free(z->a);
    free(z->Xss), free(z->P), free(z->A), free(z->Y), free(z->Xsc), free(z->Xcs), free(z->Cinv);
    free(z->q), free(z->u), free(z->p), free(z->pc), free(z->cw), free(z->gw);
    memset(z, 0, sizeof *z);
}

void ep_bond_free(ep_bond *b)
{
    for (int i = 0; i < b->nz && b->z; i++)
        zone_free(&b->z[i]);
    free(b->z), free(b->owner), free(b->owner_k), free(b->block), free(b->M), free(b->ipiv), free(b->d);
    free(b->work), free(b->rows), free(b->cols), free(b->loads), free(b->zero);
    memset(b, 0, sizeof *b);
}

static void form_a(ep_bond_zone *z);

/* Zone z's seam from its file's /constraints/seam: rows, columns, rest
 * positions, areas, Xi_SS.  0, EP_EINPUT or EP_ECOMPUTE. */
static int zone_seam(ep_bond_zone *z, ep_gfsrc *g)
{
    const ep_mesh *m = &g->file->mesh;
    const ep_gf_layout *L = &g->file->L;
    const char *path = g->file->f.path;
    z->g = g;
    z->R[0] = z->R[4] = z->R[8] = 1;
    if (!m->seam || m->nseam < 1)
        return ep_fail(EP_EINPUT, "%s: no seam (/constraints/seam): make the zone with zonesplit", path);
    int ns = z->ns = m->nseam;
    size_t n3 = 3 * (size_t)ns;
    int *row = ep_malloc((size_t)m->nv, sizeof *row);
    if (!row || !(z->srow = ep_malloc((size_t)ns, sizeof *z->srow)) ||
        !(z->scol = ep_malloc((size_t)ns, sizeof *z->scol)) || !(z->glob = ep_malloc((size_t)ns, sizeof *z->glob)) ||
        !(z->x = ep_malloc(n3, sizeof *z->x)) || !(z->a = ep_malloc((size_t)ns, sizeof *z->a)) ||
        !(z->Xss = ep_malloc(n3 * n3, sizeof *z->Xss)) || !(z->P = ep_malloc(n3 * n3, sizeof *z->P)) ||
        !(z->A = ep_malloc(n3 * n3, sizeof *z->A)) || !(z->Y = ep_malloc(n3 * n3, sizeof *z->Y)) ||
        !(z->q = ep_calloc(n3, sizeof *z->q)) || !(z->u = ep_calloc(n3, sizeof *z->u)) ||
        !(z->p = ep_calloc(n3, sizeof *z->p))) {
        free(row);
        return EP_ECOMPUTE;
    }
    for (int v = 0; v < m->nv; v++)
        row[v] = -1;
    for (int r = 0; r < L->n; r++)
        row[L->row_vertex[r]] = r;
    int st = EP_OK;
    for (int k = 0; k < ns && !st; k++) {
        int v = m->seam[k], r = row[v];
        if (r < 0 || !L->row_fixed[r])
            st = ep_fail(EP_EINPUT, "%s: seam vertex %d is not a fixed boundary vertex of the GFs", path, v + 1);
        else if (g->col_of_row[r] < 0)
            st = ep_fail(EP_EINPUT, "%s: seam vertex %d has no GF column (compute the zone's GFs with --columns all)",
                         path, v + 1);
        else {
            z->srow[k] = r;
            z->scol[k] = g->col_of_row[r];
            z->a[k] = g->area[r];
            memcpy(&z->x[3 * k], &m->vertices[3 * (size_t)v], 3 * sizeof(double));
        }
    }
    free(row);
    if (st)
        return st;
    /* Xi_SS: out[l][k][9] = Xi(row k, column of l), B[3b + a] (gfsrc.h) */
    double *blk = ep_malloc(9 * (size_t)ns * ns, sizeof *blk);
    if (!blk)
        return EP_ECOMPUTE;
    ep_gfsrc_plan(g, z->srow, ns);
    ep_gfsrc_node_columns(g, ns, z->srow, ns, z->srow, blk);
    for (int l = 0; l < ns; l++)
        for (int k = 0; k < ns; k++)
            for (int bb = 0; bb < 3; bb++)
                for (int a = 0; a < 3; a++)
                    z->Xss[(3 * (size_t)k + bb) * n3 + 3 * l + a] = blk[((size_t)l * ns + k) * 9 + 3 * bb + a];
    free(blk);
    memcpy(z->P, z->Xss, n3 * n3 * sizeof *z->P);
    form_a(z);
    return EP_OK;
}

/* A = D P column-major: the zone's seam forces for its seam displacements. */
static void form_a(ep_bond_zone *z)
{
    size_t n3 = 3 * (size_t)z->ns;
    for (size_t j = 0; j < n3; j++)
        for (size_t i = 0; i < n3; i++)
            z->A[j * n3 + i] = z->a[i / 3] * z->P[i * n3 + j];
}

static double dist2(const double *x, const double *y)
{
    double d0 = x[0] - y[0], d1 = x[1] - y[1], d2 = x[2] - y[2];
    return d0 * d0 + d1 * d1 + d2 * d2;
}

/* The bond's seam vertices: each zone's matched with the earlier zones' by
 * rest position; chain or not; blocks.  0, EP_EINPUT or EP_ECOMPUTE. */
static int match_seams(ep_bond *b)
{
    int total = 0;
    double size = 0;
    for (int i = 0; i < b->nz; i++) {
        total += b->z[i].ns;
        double dm = ep_mesh_diameter(&b->z[i].g->file->mesh);
        size = dm > size ? dm : size;
    }
    double tol2 = 1e-9 * size * 1e-9 * size;
    int *count = ep_calloc((size_t)total, sizeof *count), *lo = ep_malloc((size_t)total, sizeof *lo),
        *hi = ep_malloc((size_t)total, sizeof *hi);
    if (!count || !lo || !hi || !(b->owner = ep_malloc((size_t)total, sizeof *b->owner)) ||
        !(b->owner_k = ep_malloc((size_t)total, sizeof *b->owner_k))) {
        free(count), free(lo), free(hi);
        return EP_ECOMPUTE;
    }
    int N = 0, st = EP_OK;
    for (int i = 0; i < b->nz; i++) {
        ep_bond_zone *z = &b->z[i];
        for (int k = 0; k < z->ns; k++) {
            int found = -1;
            for (int gv = 0; gv < N && found < 0; gv++) {
                const ep_bond_zone *o = &b->z[b->owner[gv]];
                if (b->owner[gv] != i && dist2(&z->x[3 * k], &o->x[3 * b->owner_k[gv]]) <= tol2)
                    found = gv;
            }
            if (found < 0) {
                found = N++;
                b->owner[found] = i, b->owner_k[found] = k, lo[found] = hi[found] = i;
            } else if (hi[found] == i) {
                ep_fail(EP_EINPUT, "%s: seam vertices %d and another coincide", z->g->file->f.path,
                        z->g->file->mesh.seam[k] + 1);
                st = EP_EINPUT;
                goto out;
            }
            count[found]++;
            hi[found] = i;
            z->glob[k] = found;
        }
    }
    for (int gv = 0; gv < N; gv++)
        if (count[gv] < 2) {
            const ep_bond_zone *z = &b->z[b->owner[gv]];
            const double *x = &z->x[3 * b->owner_k[gv]];
            st = ep_fail(EP_EINPUT, "%s: seam vertex %d at (%.9g, %.9g, %.9g) coincides with no seam vertex of the "
                         "other zones", z->g->file->f.path, z->g->file->mesh.seam[b->owner_k[gv]] + 1, x[0], x[1],
                         x[2]);
            goto out;
        }
    b->N = N;
    /* a chain: every seam vertex in zones j and j + 1 only, every seam non-empty */
    b->chain = b->nz > 2;
    int *seam_of = lo; /* lo[gv] is then the seam j of the chain */
    int *per = ep_calloc((size_t)b->nz, sizeof *per);
    if (!per) {
        st = EP_ECOMPUTE;
        goto out;
    }
    for (int gv = 0; gv < N; gv++) {
        b->chain &= count[gv] == 2 && hi[gv] == lo[gv] + 1;
        per[seam_of[gv]]++;
    }
    for (int j = 0; j + 1 < b->nz; j++)
        b->chain &= per[j] > 0;
    b->nblocks = b->chain ? b->nz - 1 : 1;
    if (!(b->block = ep_calloc((size_t)b->nblocks + 1, sizeof *b->block))) {
        free(per);
        st = EP_ECOMPUTE;
        goto out;
    }
    int *renum = count; /* renumber by block: seam j's vertices together, in order */
    if (b->chain) {
        for (int j = 0; j < b->nblocks; j++)
            b->block[j + 1] = b->block[j] + per[j];
        memset(per, 0, (size_t)b->nz * sizeof *per);
        for (int gv = 0; gv < N; gv++)
            renum[gv] = b->block[seam_of[gv]] + per[seam_of[gv]]++;
        int *ow = hi;
        for (int gv = 0; gv < N; gv++)
            ow[renum[gv]] = b->owner[gv];
        memcpy(b->owner, ow, (size_t)N * sizeof *ow);
        for (int gv = 0; gv < N; gv++)
            ow[renum[gv]] = b->owner_k[gv];
        memcpy(b->owner_k, ow, (size_t)N * sizeof *ow);
        for (int i = 0; i < b->nz; i++)
            for (int k = 0; k < b->z[i].ns; k++)
                b->z[i].glob[k] = renum[b->z[i].glob[k]];
    } else
        b->block[1] = N;
    free(per);
out:
    free(count), free(lo), free(hi);
    return st;
}

int ep_bond_init(ep_bond *b, ep_gfsrc *const *g, int nz)
{
    memset(b, 0, sizeof *b);
    if (nz < 2)
        return ep_fail(EP_EUSAGE, "a bond needs two zones or more (%d given)", nz);
    if (!(b->z = ep_calloc((size_t)nz, sizeof *b->z)))
        return EP_ECOMPUTE;
    b->nz = nz;
    int st;
    for (int i = 0; i < nz; i++)
        if ((st = zone_seam(&b->z[i], g[i])))
            return st;
    if ((st = match_seams(b)))
        return st;
    size_t n3 = 3 * (size_t)b->N;
    if (!(b->M = ep_malloc(n3 * n3, sizeof *b->M)) || !(b->ipiv = ep_malloc(n3, sizeof *b->ipiv)) ||
        !(b->d = ep_calloc(n3, sizeof *b->d)) || !(b->work = ep_malloc(n3, sizeof *b->work)))
        return EP_ECOMPUTE;
    b->stale = 1;
    b->chol = 1; /* every zone's GFs symmetric (gfsrc.h): the seam matrix is SPD */
    for (int i = 0; i < nz; i++)
        b->chol &= g[i]->symmetric;
    return EP_OK;
}

int ep_bond_frame(ep_bond *b, int z, const double R[9], const double t[3])
{
    if (z < 0 || z >= b->nz)
        return ep_fail(EP_EINPUT, "zone %d out of range (%d zones)", z, b->nz);
    double e = 0; /* R R^T = I and det R = 1 */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            e = fmax(e, fabs(R[3 * i] * R[3 * j] + R[3 * i + 1] * R[3 * j + 1] + R[3 * i + 2] * R[3 * j + 2] - (i == j)));
    double det = R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) +
                 R[2] * (R[3] * R[7] - R[4] * R[6]);
    if (!(e <= 1e-9) || !(fabs(det - 1) <= 1e-9))
        return ep_fail(EP_EINPUT, "zone %d: the frame's R is not a rotation (|R R^T - I| %.3g, det %.17g)", z, e, det);
    memcpy(b->z[z].R, R, 9 * sizeof *R);
    memcpy(b->z[z].t, t, 3 * sizeof *t);
    b->stale = 1;
    return EP_OK;
}

int ep_bond_contacts(ep_bond *b, int z, ep_cma *c)
{
    if (z < 0 || z >= b->nz)
        return ep_fail(EP_EINPUT, "zone %d out of range (%d zones)", z, b->nz);
    if (c && c->g != b->z[z].g)
        return ep_fail(EP_EINPUT, "zone %d: the contact set is on other GFs", z);
    b->z[z].c = c;
    b->z[z].s = -1; /* P to be formed again */
    b->stale = 1;
    return EP_OK;
}

int ep_bond_gravity(ep_bond *b, const double beta[3])
{
    int on = beta && (beta[0] != 0 || beta[1] != 0 || beta[2] != 0);
    for (int i = 0; i < b->nz && on; i++)
        if (!b->z[i].g->body)
            return ep_gfsrc_gravity(b->z[i].g, beta, NULL); /* its message */
    for (int a = 0; a < 3; a++)
        b->beta[a] = on ? beta[a] : 0;
    return EP_OK;
}

/* P = Xss + Xsc C^-1 Xcs for zone z's contact set (bond.h).  0 or
 * EP_ECOMPUTE. */
static int form_p(ep_bond_zone *z)
{
    int s = z->c ? z->c->s : 0, ns3 = 3 * z->ns, s3 = 3 * s;
    size_t n3 = (size_t)ns3;
    free(z->Xsc), free(z->Xcs), free(z->Cinv), free(z->pc), free(z->cw);
    z->Xsc = z->Xcs = z->Cinv = z->pc = z->cw = NULL;
    z->s = s;
    memcpy(z->P, z->Xss, n3 * n3 * sizeof *z->P);
    if (s == 0) {
        form_a(z);
        return EP_OK;
    }
    double *blk = ep_malloc(9 * (size_t)s * z->ns, sizeof *blk), *T = ep_malloc((size_t)s3 * n3, sizeof *T);
    if (!blk || !T || !(z->Xsc = ep_malloc(n3 * s3, sizeof *z->Xsc)) ||
        !(z->Xcs = ep_malloc((size_t)s3 * n3, sizeof *z->Xcs)) || !(z->Cinv = ep_malloc((size_t)s3 * s3, sizeof *z->Cinv)) ||
        !(z->pc = ep_calloc((size_t)s3, sizeof *z->pc)) || !(z->cw = ep_calloc((size_t)s3, sizeof *z->cw))) {
        free(blk), free(T);
        return EP_ECOMPUTE;
    }
    const int *C = z->c->S;
    ep_gfsrc_plan(z->g, z->srow, z->ns); /* Xi_SC: the contact columns at the seam rows */
    ep_gfsrc_node_columns(z->g, s, C, z->ns, z->srow, blk);
    for (int l = 0; l < s; l++)
        for (int k = 0; k < z->ns; k++)
            for (int bb = 0; bb < 3; bb++)
                for (int a = 0; a < 3; a++)
                    z->Xsc[(3 * (size_t)k + bb) * s3 + 3 * l + a] = blk[((size_t)l * z->ns + k) * 9 + 3 * bb + a];
    ep_gfsrc_plan(z->g, C, s); /* Xi_CS: the seam columns at the contact rows */
    ep_gfsrc_node_columns(z->g, z->ns, z->srow, s, C, blk);
    for (int l = 0; l < z->ns; l++)
        for (int k = 0; k < s; k++)
            for (int bb = 0; bb < 3; bb++)
                for (int a = 0; a < 3; a++)
                    z->Xcs[(3 * (size_t)k + bb) * n3 + 3 * l + a] = blk[((size_t)l * s + k) * 9 + 3 * bb + a];
    ep_cma_inverse(z->c, z->Cinv);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s3, ns3, s3, 1.0, z->Cinv, s3, z->Xcs, ns3, 0.0, T, ns3);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, ns3, ns3, s3, 1.0, z->Xsc, s3, T, ns3, 1.0, z->P, ns3);
    free(blk), free(T);
    form_a(z);
    return EP_OK;
}

/* y = R x (tr 0) or R^T x (tr 1), 3-vectors. */
static void rot(const double R[9], int tr, const double x[3], double y[3])
{
    for (int i = 0; i < 3; i++)
        y[i] = tr ? R[i] * x[0] + R[3 + i] * x[1] + R[6 + i] * x[2] : R[3 * i] * x[0] + R[3 * i + 1] * x[1] + R[3 * i + 2] * x[2];
}

/* The frames' gap h of zone z's seam vertex k (bond.h), 0 in its owner. */
static void gap(const ep_bond *b, const ep_bond_zone *z, int k, double h[3])
{
    int gv = z->glob[k], o = b->owner[gv];
    const ep_bond_zone *oz = &b->z[o];
    if (oz == z) {
        h[0] = h[1] = h[2] = 0;
        return;
    }
    double y[3], w[3];
    rot(oz->R, 0, &oz->x[3 * b->owner_k[gv]], y);
    for (int a = 0; a < 3; a++)
        w[a] = y[a] + oz->t[a] - z->t[a];
    rot(z->R, 1, w, h);
    for (int a = 0; a < 3; a++)
        h[a] -= z->x[3 * k + a];
}

/* R' = R0^T R (the frame relative to zone 0's, in which the seam system is
 * solved: a common motion of every zone leaves it the identity). */
static void relative(const double R0[9], const double R[9], double Rr[9])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            Rr[3 * i + j] = R0[i] * R[j] + R0[3 + i] * R[3 + j] + R0[6 + i] * R[6 + j];
}

static int is_identity(const double R[9])
{
    for (int i = 0; i < 9; i++)
        if (R[i] != (i % 4 == 0))
            return 0;
    return 1;
}

/* Zone z's share of the seam matrix, R' D P R'^T, added into M
 * (column-major, ld) at its seam vertices' places: A = D P column-major
 * (z->A); Y = A (I x R'^T), each three columns of A combined (contiguous,
 * vectorized); then each column's 3-vectors turned by R' as they are
 * added.  18 (3ns)^2 flops; only the additions when R' is the identity,
 * one contiguous run a column when the zone's seam vertices are
 * consecutive in the bond (zonesplit numbers both sides of a seam alike).
 * (R' Y as one dgemm of R' and Y seen as 3 x (3ns ns) measured slower:
 * OpenBLAS on 3 rows.) */
static void add_zone(ep_bond *b, ep_bond_zone *z, const double Rr[9])
{
    int n3 = 3 * z->ns, ld = 3 * b->N, rot = !is_identity(Rr), run = 1;
    const double *Y = z->A;
    if (rot) {
        for (int l = 0; l < z->ns; l++)
            for (int c = 0; c < 3; c++) {
                double *y = z->Y + (size_t)(3 * l + c) * n3;
                const double *a0 = z->A + (size_t)(3 * l) * n3, *a1 = a0 + n3, *a2 = a1 + n3;
                double r0 = Rr[3 * c], r1 = Rr[3 * c + 1], r2 = Rr[3 * c + 2];
#pragma omp simd
                for (int i = 0; i < n3; i++)
                    y[i] = a0[i] * r0 + a1[i] * r1 + a2[i] * r2;
            }
        Y = z->Y;
    }
    for (int k = 1; k < z->ns && run; k++)
        run = z->glob[k] == z->glob[0] + k;
    for (int j = 0; j < n3; j++) {
        double *mc = b->M + (size_t)(3 * z->glob[j / 3] + j % 3) * ld;
        const double *y = Y + (size_t)j * n3;
        if (!rot && run) {
            double *m = mc + 3 * (size_t)z->glob[0];
#pragma omp simd
            for (int i = 0; i < n3; i++)
                m[i] += y[i];
            continue;
        }
        for (int k = 0; k < z->ns; k++) {
            double *m = mc + 3 * (size_t)z->glob[k];
            const double *v = y + 3 * k;
            if (rot)
                for (int r = 0; r < 3; r++)
                    m[r] += Rr[3 * r] * v[0] + Rr[3 * r + 1] * v[1] + Rr[3 * r + 2] * v[2];
            else
                m[0] += v[0], m[1] += v[1], m[2] += v[2];
        }
    }
}

/* M = sum_z R'_z D_z P_z R'_z^T (column-major, ld 3N; R' relative to zone
 * 0's frame), then its block factor: D_j <- D_j - L_j X_(j-1), X_(j-1) =
 * D_(j-1)^-1 U_(j-1) kept in U's place (bond.h); each D_j by Cholesky
 * (dpotrf: the zones' GFs all symmetric, b->chol, so M is SPD) or LU.  A
 * Cholesky that fails forms M again for LU (b->chol then 0).  0 or
 * EP_ECOMPUTE (a singular block). */
static int factor(ep_bond *b)
{
    int ld = 3 * b->N;
    memset(b->M, 0, (size_t)ld * ld * sizeof *b->M);
    for (int i = 0; i < b->nz; i++) {
        double Rr[9];
        relative(b->z[0].R, b->z[i].R, Rr);
        add_zone(b, &b->z[i], Rr);
    }
    for (int j = 0; j < b->nblocks; j++) {
        int o = 3 * b->block[j], nb = 3 * (b->block[j + 1] - b->block[j]);
        double *D = &b->M[(size_t)o * ld + o];
        if (j > 0) {
            int po = 3 * b->block[j - 1], pn = o - po;
            double *Dp = &b->M[(size_t)po * ld + po], *U = &b->M[(size_t)o * ld + po], *L = &b->M[(size_t)po * ld + o];
            if (b->chol) { /* block Cholesky: W = L_(j-1)^-1 U in U's place, D_j -= W^T W */
                cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, pn, nb, 1.0, Dp, ld, U, ld);
                cblas_dsyrk(CblasColMajor, CblasLower, CblasTrans, nb, pn, -1.0, U, ld, 1.0, D, ld);
            } else {
                LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', pn, nb, Dp, ld, b->ipiv + po, U, ld);
                cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, nb, nb, pn, -1.0, L, ld, U, ld, 1.0, D, ld);
            }
        }
        if (b->chol && LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', nb, D, ld) != 0) {
            b->chol = 0; /* not positive definite after all: LU on M formed again */
            return factor(b);
        }
        if (!b->chol && LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, nb, nb, D, ld, b->ipiv + o) != 0)
            return ep_fail(EP_ECOMPUTE, "the seam matrix is singular (seam %d of %d): a zone neither supported nor "
                           "bonded", j + 1, b->nblocks);
    }
    b->stale = 0;
    return EP_OK;
}

/* x = M^-1 r in place with the block factor (bond.h).  Cholesky: M = C
 * C^T, C block lower bidiagonal with diagonal blocks L_j and subdiagonal
 * blocks W_(j-1)^T: z_j = L_j^-1 (r_j - W_(j-1)^T z_(j-1)), then x_j =
 * L_j^-T (z_j - W_j x_(j+1)). */
static void block_solve(const ep_bond *b, double *x)
{
    int ld = 3 * b->N;
    if (b->chol) {
        for (int j = 0; j < b->nblocks; j++) {
            int o = 3 * b->block[j], nb = 3 * (b->block[j + 1] - b->block[j]);
            if (j > 0) {
                int po = 3 * b->block[j - 1];
                cblas_dgemv(CblasColMajor, CblasTrans, o - po, nb, -1.0, &b->M[(size_t)o * ld + po], ld, x + po, 1, 1.0,
                            x + o, 1);
            }
            cblas_dtrsv(CblasColMajor, CblasLower, CblasNoTrans, CblasNonUnit, nb, &b->M[(size_t)o * ld + o], ld, x + o, 1);
        }
        for (int j = b->nblocks - 1; j >= 0; j--) {
            int o = 3 * b->block[j], no = 3 * b->block[j + 1], nb = no - o;
            if (j + 1 < b->nblocks)
                cblas_dgemv(CblasColMajor, CblasNoTrans, nb, 3 * b->block[j + 2] - no, -1.0, &b->M[(size_t)no * ld + o],
                            ld, x + no, 1, 1.0, x + o, 1);
            cblas_dtrsv(CblasColMajor, CblasLower, CblasTrans, CblasNonUnit, nb, &b->M[(size_t)o * ld + o], ld, x + o, 1);
        }
        return;
    }
    for (int j = 0; j < b->nblocks; j++) { /* y_j = D_j^-1 (r_j - L_j y_(j-1)) */
        int o = 3 * b->block[j], nb = 3 * (b->block[j + 1] - b->block[j]);
        if (j > 0) {
            int po = 3 * b->block[j - 1];
            cblas_dgemv(CblasColMajor, CblasNoTrans, nb, o - po, -1.0, &b->M[(size_t)po * ld + o], ld, x + po, 1, 1.0,
                        x + o, 1);
        }
        LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', nb, 1, &b->M[(size_t)o * ld + o], ld, b->ipiv + o, x + o, ld);
    }
    for (int j = b->nblocks - 2; j >= 0; j--) { /* x_j = y_j - X_j x_(j+1) */
        int o = 3 * b->block[j], no = 3 * b->block[j + 1], nb = no - o, nn = 3 * b->block[j + 2] - no;
        cblas_dgemv(CblasColMajor, CblasNoTrans, nb, nn, -1.0, &b->M[(size_t)no * ld + o], ld, x + no, 1, 1.0, x + o, 1);
    }
}

/* Room for a GF sum of k columns.  0 or EP_ECOMPUTE. */
static int room(ep_bond *b, int k)
{
    if (k <= b->nwork)
        return EP_OK;
    free(b->rows), free(b->cols), free(b->loads);
    b->rows = b->cols = NULL;
    b->loads = NULL;
    b->nwork = 0;
    if (!(b->rows = ep_malloc((size_t)k, sizeof *b->rows)) || !(b->cols = ep_malloc((size_t)k, sizeof *b->cols)) ||
        !(b->loads = ep_malloc(3 * (size_t)k, sizeof *b->loads)))
        return EP_ECOMPUTE;
    b->nwork = k;
    return EP_OK;
}

/* Zone z's loaded free columns (vbar nonzero at a free node with a column,
 * not in the contact set) into b->cols/b->loads from position k0; returns
 * the new count, or -1 (memory). */
static int loaded(ep_bond *b, const ep_bond_zone *z, const double *vbar, int k0)
{
    const ep_gfsrc *g = z->g;
    const int8_t *fixed = g->file->L.row_fixed;
    int k = k0;
    if (room(b, k0 + g->n + z->ns + z->s))
        return -1;
    for (int r = 0; vbar && r < g->n; r++) {
        const double *w = &vbar[3 * (size_t)r];
        if (fixed[r] || g->col_of_row[r] < 0 || (w[0] == 0 && w[1] == 0 && w[2] == 0))
            continue;
        int in_c = 0;
        for (int i = 0; i < z->s && !in_c; i++)
            in_c = z->c->S[i] == r;
        if (in_c)
            continue;
        b->rows[k] = r;
        b->cols[k] = g->col_of_row[r];
        memcpy(&b->loads[3 * (size_t)k], w, 3 * sizeof *w);
        k++;
    }
    return k;
}

int ep_bond_solve(ep_bond *b, const double *const *vbar, const double *const *uc, double *const *v)
{
    int st, grav = b->beta[0] != 0 || b->beta[1] != 0 || b->beta[2] != 0;
    /* each zone: P for its contacts, and q: the seam tractions with the seam held */
    for (int i = 0; i < b->nz; i++) {
        ep_bond_zone *z = &b->z[i];
        const double *vb = vbar ? vbar[i] : NULL;
        int s = z->c ? z->c->s : 0;
        if (z->s != s || z->s < 0) {
            if ((st = form_p(z)))
                return st;
            b->stale = 1;
        }
        double betaz[3];
        rot(z->R, 1, b->beta, betaz);
        if (grav) {
            if (!z->gw && !(z->gw = ep_malloc(3 * (size_t)z->g->n, sizeof *z->gw)))
                return EP_ECOMPUTE;
            ep_gfsrc_gravity(z->g, betaz, z->gw);
        }
        if (s > 0) { /* the contact tractions with the seam held (cma.h) */
            if ((st = ep_cma_gravity(z->c, grav ? betaz : NULL)))
                return st;
            const double *ui = uc ? uc[i] : NULL;
            if (!ui) { /* no displacements given: the contact nodes held */
                free(b->zero);
                if (!(b->zero = ep_calloc(3 * (size_t)s, sizeof *b->zero)))
                    return EP_ECOMPUTE;
                ui = b->zero;
            }
            ep_cma_solve(z->c, ui, vb, z->pc, NULL);
        }
        int k = loaded(b, z, vb, 0);
        if (k < 0)
            return EP_ECOMPUTE;
        double *blk = k ? ep_malloc(9 * (size_t)k * z->ns, sizeof *blk) : NULL;
        if (k && !blk)
            return EP_ECOMPUTE;
        if (k) {
            ep_gfsrc_plan(z->g, z->srow, z->ns);
            ep_gfsrc_node_columns(z->g, k, b->rows, z->ns, z->srow, blk);
        }
        for (int kk = 0; kk < z->ns; kk++)
            for (int bb = 0; bb < 3; bb++) {
                double acc = grav ? z->gw[3 * (size_t)z->srow[kk] + bb] : 0;
                for (int j = 0; j < k; j++)
                    for (int a = 0; a < 3; a++)
                        acc += blk[((size_t)j * z->ns + kk) * 9 + 3 * bb + a] * b->loads[3 * (size_t)j + a];
                z->q[3 * kk + bb] = acc;
            }
        free(blk);
        if (s > 0)
            cblas_dgemv(CblasRowMajor, CblasNoTrans, 3 * z->ns, 3 * s, 1.0, z->Xsc, 3 * s, z->pc, 1, 1.0, z->q, 1);
    }
    if (b->stale && (st = factor(b)))
        return st;
    /* rhs = -sum_z R'_z D_z (P_z h_z + q_z), in zone 0's frame (R' = R_0^T R_z) */
    double *r = b->d;
    memset(r, 0, 3 * (size_t)b->N * sizeof *r);
    for (int i = 0; i < b->nz; i++) {
        ep_bond_zone *z = &b->z[i];
        int gapped = 0;
        double Rr[9];
        relative(b->z[0].R, z->R, Rr);
        for (int k = 0; k < z->ns; k++) {
            double *h = &z->u[3 * k];
            gap(b, z, k, h);
            gapped |= h[0] != 0 || h[1] != 0 || h[2] != 0;
        }
        memcpy(z->p, z->q, 3 * (size_t)z->ns * sizeof *z->p);
        if (gapped) /* frames apart (or seams 1e-9 apart): P h */
            cblas_dgemv(CblasRowMajor, CblasNoTrans, 3 * z->ns, 3 * z->ns, 1.0, z->P, 3 * z->ns, z->u, 1, 1.0, z->p, 1);
        for (int k = 0; k < z->ns; k++) {
            double f[3], w[3];
            for (int a = 0; a < 3; a++)
                f[a] = -z->a[k] * z->p[3 * k + a];
            rot(Rr, 0, f, w);
            for (int a = 0; a < 3; a++)
                r[3 * z->glob[k] + a] += w[a];
        }
    }
    block_solve(b, r);
    /* each zone: u = R'^T d + h, p = P u + q, the contacts' tractions, v */
    for (int i = 0; i < b->nz; i++) {
        ep_bond_zone *z = &b->z[i];
        int s = z->s, ns3 = 3 * z->ns;
        double Rr[9];
        relative(b->z[0].R, z->R, Rr);
        for (int k = 0; k < z->ns; k++) {
            double w[3];
            rot(Rr, 1, &b->d[3 * z->glob[k]], w);
            for (int a = 0; a < 3; a++)
                z->u[3 * k + a] += w[a]; /* z->u held h */
        }
        memcpy(z->p, z->q, (size_t)ns3 * sizeof *z->p);
        cblas_dgemv(CblasRowMajor, CblasNoTrans, ns3, ns3, 1.0, z->P, ns3, z->u, 1, 1.0, z->p, 1);
        if (s > 0) { /* pc += C^-1 Xi_CS u */
            cblas_dgemv(CblasRowMajor, CblasNoTrans, 3 * s, ns3, 1.0, z->Xcs, ns3, z->u, 1, 0.0, z->cw, 1);
            cblas_dgemv(CblasRowMajor, CblasNoTrans, 3 * s, 3 * s, 1.0, z->Cinv, 3 * s, z->cw, 1, 1.0, z->pc, 1);
        }
        if (!v || !v[i])
            continue;
        int k = loaded(b, z, vbar ? vbar[i] : NULL, 0);
        if (k < 0)
            return EP_ECOMPUTE;
        for (int kk = 0; kk < z->ns; kk++, k++) {
            b->cols[k] = z->scol[kk];
            memcpy(&b->loads[3 * (size_t)k], &z->u[3 * kk], 3 * sizeof(double));
        }
        for (int j = 0; j < s; j++, k++) {
            b->cols[k] = z->g->col_of_row[z->c->S[j]];
            memcpy(&b->loads[3 * (size_t)k], &z->pc[3 * j], 3 * sizeof(double));
        }
        double *out = v[i];
        ep_gfsrc_sum(z->g, k, b->cols, b->loads, out);
        if (grav)
            cblas_daxpy(3 * z->g->n, 1.0, z->gw, 1, out, 1);
        for (int kk = 0; kk < z->ns; kk++)
            memcpy(&out[3 * (size_t)z->srow[kk]], &z->u[3 * kk], 3 * sizeof(double));
        for (int j = 0; j < s; j++)
            memcpy(&out[3 * (size_t)z->c->S[j]], &z->pc[3 * j], 3 * sizeof(double));
    }
    for (int k = 0; k < b->N; k++) { /* d in the world: R_0 d' */
        double w[3];
        rot(b->z[0].R, 0, &b->d[3 * k], w);
        memcpy(&b->d[3 * k], w, sizeof w);
    }
    return EP_OK;
}
