/*
 * loopsub benchmark: subdivision and projection throughput.
 *
 * Subdivision is memory-bound (a sort of the half-edges, then streaming
 * writes), so its rate is reported as vertices and triangles produced per
 * second next to the dgemm rate, which says how fast this machine is for
 * compute-bound work.  No seed publishes a subdivision time; the size of the
 * published rabbit (2,562 vertices, 000 Fig. 1.1) is timed as a reference.
 */
#include "model.h"
#include "bench.h"
#include "closest.h"
#include "err.h"
#include "mesh.h"
#include "subdiv.h"

static double refine_rate(const char *path, int levels, ep_subdiv_scheme scheme, int *nv, int *nf)
{
    ep_mesh m;
    if (ep_model_read(&m, path) || ep_mesh_to_surface(&m, NULL) || ep_mesh_check_closed(&m)) {
        fprintf(stderr, "bench: %s\n", ep_errmsg());
        exit(1);
    }
    double t0 = ep_now();
    for (int l = 0; l < levels; l++)
        if (ep_subdiv_refine(&m, scheme, NULL)) {
            fprintf(stderr, "bench: %s\n", ep_errmsg());
            exit(1);
        }
    double t = ep_now() - t0;
    *nv = m.nv;
    *nf = m.nf;
    ep_mesh_free(&m);
    return t;
}

int main(int argc, char **argv)
{
    ep_cli_restart(argv); /* the OpenBLAS kernels the tools run (cli.h) */
    (void)argc;
    int nv, nf;
    bench_machine();
    double t4 = refine_rate("data/icosahedron.obj", 4, EP_SUBDIV_LOOP, &nv, &nf);
    printf("bench loopsub refine (icosahedron, 4 Loop levels, the rabbit's size): %d vertices in %.2f ms\n",
           nv, 1e3 * t4);
    double t = refine_rate("data/icosahedron.obj", 9, EP_SUBDIV_LOOP, &nv, &nf);
    printf("bench loopsub refine (icosahedron, 9 Loop levels): %d vertices, %d triangles in %.2f s: "
           "%.1f M triangles/s (published: no seed gives a subdivision time)\n",
           nv, nf, t, nf / t / 1e6);

    ep_mesh fine, base;
    ep_closest tree;
    if (ep_model_read(&fine, "data/models/asianDragon/asianDragon.obj") ||
        ep_model_read(&base, "data/models/asianDragon/asianDragon.veg") || ep_mesh_to_surface(&base, NULL)) {
        fprintf(stderr, "bench: %s\n", ep_errmsg());
        return 1;
    }
    double t0 = ep_now();
    ep_closest_build(&tree, &fine);
    double tb = ep_now() - t0;
    for (int l = 0; l < 3; l++)
        ep_subdiv_refine(&base, EP_SUBDIV_LOOP, &tree);
    double tp = ep_now() - t0 - tb;
    printf("bench loopsub projection (asianDragon, %d-triangle scan, 3 levels): tree %.3f s, "
           "%d vertices placed in %.2f s: %.2f M closest points/s on %d threads\n",
           fine.nf, tb, base.nv - 929, tp, (base.nv - 929) / tp / 1e6, omp_get_max_threads());
    ep_closest_free(&tree);
    ep_mesh_free(&fine);
    ep_mesh_free(&base);
    return 0;
}
