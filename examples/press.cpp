/*
 * press.cpp — the runtime API from C++ (libelastoprep(3)): a footprint of
 * the K free boundary nodes nearest the first is pressed a fixed depth into
 * a GF model, and the contact tractions and force are solved for.
 *
 *     press GF.h5 [K]
 *
 * The C API's objects are held by small owners (their destructors call
 * ep_gfsrc_close and ep_cma_free, which accept an object that failed half
 * way), so every early return releases them.  The answer is checked: the
 * tractions, summed through the GF columns (ep_gfsrc_sum), reproduce the
 * prescribed footprint displacements.  Exit status 0 when they do, 1
 * otherwise, 3 or 4 for a bad file.
 *
 * Build: c++ press.cpp $(pkg-config --cflags --libs elastoprep) -o press
 */
#include <elastoprep/elastoprep.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <vector>

namespace {

struct Gf {
    ep_gfsrc g{};
    ~Gf() { ep_gfsrc_close(&g); }
};

struct Contact {
    ep_cma c{};
    ~Contact() { ep_cma_free(&c); }
};

int fail()
{
    std::fprintf(stderr, "press: %s\n", ep_errmsg());
    return 1;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: press GF.h5 [K]\n");
        return 2;
    }
    int k = argc > 2 ? std::atoi(argv[2]) : 6, st;
    Gf gf;
    Contact ct;
    if ((st = ep_gfsrc_open(&gf.g, argv[1])) || (st = ep_cma_init(&ct.c, &gf.g))) {
        fail();
        return st;
    }
    const ep_gfsrc &g = gf.g;
    auto at = [&g](int r) { return g.file->mesh.vertices + 3 * g.file->L.row_vertex[r]; };

    std::vector<int> free_rows;
    for (int r = 0; r < g.n; r++)
        if (g.col_of_row[r] >= 0)
            free_rows.push_back(r);
    if (free_rows.empty() || k < 1) {
        std::fprintf(stderr, "press: no free node to press, or K < 1\n");
        return 2;
    }
    const double *x0 = at(free_rows[0]);
    auto dist = [&](int r) { const double *x = at(r); return std::hypot(std::hypot(x[0] - x0[0], x[1] - x0[1]), x[2] - x0[2]); };
    std::stable_sort(free_rows.begin(), free_rows.end(), [&](int a, int b) { return dist(a) < dist(b); });
    k = std::min<int>(k, static_cast<int>(free_rows.size()));
    if (ep_cma_set(&ct.c, free_rows.data(), k))
        return fail();

    const double depth = 1e-3;
    std::vector<double> uS(3 * k), pS(3 * k), u(3 * static_cast<size_t>(g.n));
    for (int i = 0; i < k; i++)
        uS[3 * i + 2] = -depth;
    ep_cma_solve(&ct.c, uS.data(), nullptr, pS.data(), nullptr);
    double f[3];
    ep_cma_force(&ct.c, pS.data(), f);

    std::vector<int> cols(k);
    for (int i = 0; i < k; i++)
        cols[i] = g.col_of_row[ct.c.S[i]];
    ep_gfsrc_sum(&gf.g, k, cols.data(), pS.data(), u.data());
    double worst = 0;
    for (int i = 0; i < k; i++)
        for (int a = 0; a < 3; a++)
            worst = std::max(worst, std::fabs(u[3 * ct.c.S[i] + a] - uS[3 * i + a]) / depth);
    std::printf("%d nodes pressed %g: force %.6e %.6e %.6e; footprint error %.2e of the depth\n", k, depth, f[0],
                f[1], f[2], worst);
    bool ok = worst < 1e-8;
    std::printf("%s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
