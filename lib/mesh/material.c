/*
 * material.c — material values, material files and their checks (material.h).
 */
#include "material.h"
#include "err.h"
#include "text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ep_material_init(ep_material *m)
{
    memset(m, 0, sizeof *m);
    m->E = NAN;
    m->nu = NAN;
    m->rho = NAN;
}

void ep_material_free(ep_material *m)
{
    free(m->e_E);
    free(m->e_nu);
    free(m->e_rho);
    ep_material_init(m);
}

static double *dup_array(const double *a, int n)
{
    double *b = ep_malloc((size_t)n, sizeof *b);
    if (b)
        memcpy(b, a, (size_t)n * sizeof *b);
    return b;
}

int ep_material_copy(ep_material *dst, const ep_material *src)
{
    *dst = *src;
    dst->e_E = dst->e_nu = dst->e_rho = NULL;
    if (src->ne == 0)
        return EP_OK;
    dst->e_E = dup_array(src->e_E, src->ne);
    dst->e_nu = dup_array(src->e_nu, src->ne);
    dst->e_rho = dup_array(src->e_rho, src->ne);
    if (!dst->e_E || !dst->e_nu || !dst->e_rho) {
        ep_material_free(dst);
        return EP_ECOMPUTE;
    }
    return EP_OK;
}

double ep_material_E(const ep_material *m, int e) { return m->ne ? m->e_E[e] : m->E; }
double ep_material_nu(const ep_material *m, int e) { return m->ne ? m->e_nu[e] : m->nu; }
double ep_material_rho(const ep_material *m, int e) { return m->ne ? m->e_rho[e] : m->rho; }

int ep_material_has_density(const ep_material *m)
{
    for (int e = 0; e < (m->ne ? m->ne : 1); e++)
        if (isnan(ep_material_rho(m, e)))
            return 0;
    return 1;
}

void ep_material_lame(const ep_material *m, int e, double *lambda, double *mu)
{
    double E = ep_material_E(m, e), nu = ep_material_nu(m, e);
    *mu = E / (2.0 * (1.0 + nu));
    *lambda = E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu));
}

void ep_material_set_elements(ep_material *m, int ne, double *E, double *nu, double *rho)
{
    int same = 1;
    for (int e = 1; e < ne && same; e++)
        same = E[e] == E[0] && nu[e] == nu[0] && rho[e] == rho[0];
    ep_material_free(m);
    if (ne > 0) {
        m->E = E[0];
        m->nu = nu[0];
        m->rho = rho[0];
    }
    if (same) {
        free(E);
        free(nu);
        free(rho);
        return;
    }
    m->ne = ne;
    m->e_E = E;
    m->e_nu = nu;
    m->e_rho = rho;
}

typedef struct {
    long tag;   /* region tag; LONG_MIN for "default" */
    double v[3];
} entry;

int ep_material_read(ep_material *m, const char *path, int ne, const int *region)
{
    ep_text t;
    entry *tab = NULL, dflt = {0, {0, 0, 0}};
    size_t n = 0, cap = 0;
    int have_default = 0, r, st = ep_text_open(&t, path, '#');
    double *E = NULL, *nu = NULL, *rho = NULL;
    ep_material_init(m);
    if (st)
        return st;
    while (!(r = ep_text_next(&t)) && !t.eof) {
        entry x;
        char *w = NULL;
        int is_default = 0;
        if (!strncmp(t.p, "default", 7)) {
            if ((st = ep_text_word(&t, &w)))
                goto out;
            is_default = 1;
        } else if ((st = ep_text_long(&t, &x.tag)))
            goto out;
        for (int k = 0; k < 3; k++)
            if ((st = ep_text_double(&t, &x.v[k])))
                goto out;
        if (ep_text_more(&t)) {
            st = ep_text_fail(&t, EP_EINPUT, "expected \"TAG E nu rho\", found extra text");
            goto out;
        }
        if (is_default) {
            dflt = x;
            have_default = 1;
            continue;
        }
        if ((st = ep_grow_to(&tab, &cap, n + 1, sizeof *tab)))
            goto out;
        tab[n++] = x;
    }
    if (r) {
        st = r;
        goto out;
    }
    /* A model without volume elements (a surface, a soup) or without region
     * tags takes one material: "default", or the file's only entry. */
    int nel = ne > 0 ? ne : 1;
    if (ne <= 0)
        region = NULL;
    E = ep_malloc((size_t)nel, sizeof *E);
    nu = ep_malloc((size_t)nel, sizeof *nu);
    rho = ep_malloc((size_t)nel, sizeof *rho);
    if (!E || !nu || !rho) {
        st = EP_ECOMPUTE;
        goto out;
    }
    for (int e = 0; e < nel; e++) {
        const entry *hit = have_default ? &dflt : NULL;
        for (size_t i = 0; region && i < n; i++)
            if (tab[i].tag == region[e])
                hit = &tab[i];
        if (!hit && !region && n == 1)
            hit = &tab[0];
        if (!hit && !region) {
            st = ep_fail(EP_EINPUT, "%s: the model has no region tags, so it takes the \"default\" line or the "
                         "file's only entry (the file has %zu tagged entries and no default)", path, n);
            goto out;
        }
        if (!hit) {
            st = ep_fail(EP_EINPUT, "%s: no material for element %d (region %d)",
                         path, e + 1, region ? region[e] : 0);
            goto out;
        }
        E[e] = hit->v[0];
        nu[e] = hit->v[1];
        rho[e] = hit->v[2];
    }
    ep_material_set_elements(m, nel, E, nu, rho);
    E = nu = rho = NULL;
out:
    free(E);
    free(nu);
    free(rho);
    free(tab);
    ep_text_close(&t);
    return st;
}

int ep_material_check(const ep_material *m, double nu_max, const char *source)
{
    int n = m->ne ? m->ne : 1;
    for (int e = 0; e < n; e++) {
        double E = ep_material_E(m, e), nu = ep_material_nu(m, e), rho = ep_material_rho(m, e);
        char where[48] = "";
        if (m->ne)
            snprintf(where, sizeof where, " of element %d", e + 1);
        if (!(E > 0) || !isfinite(E))
            return ep_fail(EP_EINPUT, "%s: Young's modulus%s must be positive and finite (E = %g)",
                           source, where, E);
        if (!(nu > -1.0 && nu < nu_max))
            return ep_fail(EP_EINPUT, "%s: Poisson's ratio%s must lie in (-1, %s (nu = %g)",
                           source, where, nu_max > 0.5 ? "0.5]" : "0.5)", nu);
        if (!isnan(rho) && (!(rho > 0) || !isfinite(rho)))
            return ep_fail(EP_EINPUT, "%s: density%s must be positive (rho = %g)", source, where, rho);
    }
    return EP_OK;
}

int ep_material_plausible(const ep_material *m, double size, int tets, char *msg, size_t cap)
{
    double E = 0, nu = -1, rho = 0;
    int n = m->ne ? m->ne : 1, found = 0;
    size_t at = 0;
    for (int e = 0; e < n; e++) {
        E = fmax(E, ep_material_E(m, e));
        nu = fmax(nu, ep_material_nu(m, e));
        rho = fmax(rho, ep_material_rho(m, e)); /* NaN (not given) leaves 0 */
    }
    if (cap)
        msg[0] = 0;
#define SAY(...)                                                        \
    do {                                                                \
        found++;                                                        \
        if (at < cap) {                                                 \
            int k_ = snprintf(msg + at, cap - at, __VA_ARGS__);         \
            at += k_ > 0 ? (size_t)k_ : 0;                              \
        }                                                               \
    } while (0)
    if (size > 10 && E >= 1e6 && rho >= 100)
        SAY("the model is %.4g units across with E = %.3g and rho = %.4g, SI values (Pa, kg/m^3): if the mesh is in "
            "millimetres, scale it to metres, or give E in MPa and rho in t/mm^3\n", size, E, rho);
    if (E < 1e4 && rho >= 0.5 && rho <= 25 && E < rho) /* a wave speed sqrt(E / rho) below 1 */
        SAY("E = %.3g with rho = %.4g: the density looks like g/cm^3 and E like GPa or MPa; give both in one "
            "system (SI: Pa and kg/m^3)\n", E, rho);
    if (tets && nu >= 0.45)
        SAY("nu = %.3g on linear tetrahedra: volumetric locking makes them too stiff (28%% stiffer than BEM on a "
            "bracket at nu = 0.49); use hexahedra (voxelize) or a lower nu\n", nu);
#undef SAY
    return found;
}
