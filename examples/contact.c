/*
 * contact.c — a contact loop on precomputed Green's functions, the way a
 * haptic simulator runs one (libelastoprep(3), ep_cma(3); 000 Ch. 2-4).
 *
 *     contact GF.h5 [FRAMES]
 *
 * A probe presses the model at one free boundary node and, frame after
 * frame, its footprint grows by the next nearest free node (ep_cma_add, an
 * O(s^2) update of the inverse capacitance matrix) while every node of the
 * footprint is pushed a fixed depth along the probe's axis.  Each frame
 * solves for the contact tractions (ep_cma_solve) and prints the contact
 * force (ep_cma_force).
 *
 * Its answers are checked, so this is also a test (make check):
 *   - the displacements the tractions produce at the footprint, summed from
 *     the GF columns (ep_gfsrc_sum), are the prescribed ones;
 *   - the inverse after the updates equals one made from scratch
 *     (ep_cma_set) for the last footprint: the same contact force.
 * Exit status 0 when both hold, 1 otherwise, 3 or 4 for a bad file.
 *
 * Build: cc contact.c $(pkg-config --cflags --libs elastoprep) -lm -o contact
 */
#include <elastoprep/elastoprep.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* The vertex coordinates of GF row r. */
static const double *row_position(const ep_gfsrc *g, int r)
{
    return g->file->mesh.vertices + 3 * g->file->L.row_vertex[r];
}

int main(int argc, char **argv)
{
    ep_gfsrc g = {0};
    ep_cma c = {0}, scratch = {0};
    int frames = argc > 2 ? atoi(argv[2]) : 8, st, bad = 0;
    if (argc < 2 || frames < 1) {
        fprintf(stderr, "usage: contact GF.h5 [FRAMES]\n");
        return 2;
    }
    if ((st = ep_gfsrc_open(&g, argv[1])) || (st = ep_cma_init(&c, &g)) || (st = ep_cma_init(&scratch, &g))) {
        fprintf(stderr, "contact: %s\n", ep_errmsg());
        ep_cma_free(&c), ep_cma_free(&scratch), ep_gfsrc_close(&g);
        return st;
    }
    int n = g.n, s = 0;
    int *order = malloc(sizeof(int) * (size_t)n), *cols = malloc(sizeof(int) * (size_t)n);
    double *dist = malloc(sizeof(double) * (size_t)n), *uS = malloc(sizeof(double) * 3 * (size_t)n);
    double *pS = malloc(sizeof(double) * 3 * (size_t)n), *u = malloc(sizeof(double) * 3 * (size_t)n);
    /* The footprint: free nodes (rows with a GF column) by distance from the first. */
    int first = -1, nfree = 0;
    for (int r = 0; r < n; r++)
        if (g.col_of_row[r] >= 0) {
            if (first < 0)
                first = r;
            order[nfree++] = r;
        }
    for (int i = 0; i < nfree; i++) {
        const double *x = row_position(&g, order[i]), *x0 = row_position(&g, first);
        dist[i] = hypot(hypot(x[0] - x0[0], x[1] - x0[1]), x[2] - x0[2]);
    }
    for (int i = 1; i < nfree; i++) /* insertion sort: a loop for a short example */
        for (int j = i; j > 0 && dist[j] < dist[j - 1]; j--) {
            double t = dist[j]; dist[j] = dist[j - 1]; dist[j - 1] = t;
            int k = order[j]; order[j] = order[j - 1]; order[j - 1] = k;
        }
    if (frames > nfree)
        frames = nfree;
    double depth = 1e-3, worst = 0, f[3] = {0, 0, 0};
    printf("frame  nodes  force (x, y, z)\n");
    for (int frame = 0; frame < frames && !bad; frame++) {
        if ((st = ep_cma_add(&c, order[frame]))) { /* the footprint grows by one node */
            fprintf(stderr, "contact: %s\n", ep_errmsg());
            bad = 1;
            break;
        }
        s = c.s;
        for (int i = 0; i < s; i++) /* each footprint node pushed along -z */
            uS[3 * i] = 0, uS[3 * i + 1] = 0, uS[3 * i + 2] = -depth;
        ep_cma_solve(&c, uS, NULL, pS, NULL);
        ep_cma_force(&c, pS, f);
        printf("%5d  %5d  %12.5e %12.5e %12.5e\n", frame + 1, s, f[0], f[1], f[2]);
        if (!isfinite(f[0]) || !isfinite(f[1]) || !isfinite(f[2])) {
            fprintf(stderr, "contact: frame %d: the force is not finite\n", frame + 1);
            bad = 1;
            break;
        }
        /* Check: the tractions reproduce the prescribed displacements. */
        for (int i = 0; i < s; i++)
            cols[i] = g.col_of_row[c.S[i]];
        ep_gfsrc_sum(&g, s, cols, pS, u);
        for (int i = 0; i < s; i++)
            for (int a = 0; a < 3; a++)
                if (!(fabs(u[3 * c.S[i] + a] - uS[3 * i + a]) / depth <= worst)) /* NaN propagates */
                    worst = fabs(u[3 * c.S[i] + a] - uS[3 * i + a]) / depth;
    }
    /* Check: the updated inverse against one from scratch for the same set. */
    double fs[3], diff = 0, scale = hypot(hypot(f[0], f[1]), f[2]);
    if (!bad && !(st = ep_cma_set(&scratch, c.S, s))) {
        ep_cma_solve(&scratch, uS, NULL, pS, NULL);
        ep_cma_force(&scratch, pS, fs);
        diff = hypot(hypot(fs[0] - f[0], fs[1] - f[1]), fs[2] - f[2]) / scale;
    } else if (!bad) {
        fprintf(stderr, "contact: %s\n", ep_errmsg());
        bad = 1;
    }
    printf("footprint displacement error %.2e of the depth; updated vs scratch force %.2e\n", worst, diff);
    bad |= !(worst < 1e-8) || !(diff < 1e-8);
    printf("%s\n", bad ? "FAILED" : "ok");
    free(order), free(cols), free(dist), free(uS), free(pS), free(u);
    ep_cma_free(&c), ep_cma_free(&scratch), ep_gfsrc_close(&g);
    return bad;
}
