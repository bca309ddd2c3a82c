/*
 * material.h — isotropic linear-elastic material, homogeneous or per element.
 *
 * Sources: -E, --nu, --rho on the command line, a material file mapping region tags
 * to "E nu rho", the *MATERIAL and *REGION sections of a .veg file, or /material of
 * an elastoprep file.  Lamé parameters follow MATH.md's notation.
 */
#ifndef EP_MATERIAL_H
#define EP_MATERIAL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ep_material {
    double E, nu, rho;          /* homogeneous values (also used when ne == 0) */
    int ne;                     /* > 0: per-element arrays below are set */
    double *e_E, *e_nu, *e_rho; /* [ne], owned */
} ep_material;

void ep_material_init(ep_material *m);
void ep_material_free(ep_material *m);

/* Deep copy src into dst (dst is overwritten without freeing). 0 or EP_ECOMPUTE. */
int ep_material_copy(ep_material *dst, const ep_material *src);

/* Values of element e (homogeneous materials ignore e). */
double ep_material_E(const ep_material *m, int e);
double ep_material_nu(const ep_material *m, int e);
double ep_material_rho(const ep_material *m, int e);

/* 1 when every element has a density (rho given: not NaN), as body forces
 * need (MATH.md §12); 0 otherwise.  Cost O(ne). */
int ep_material_has_density(const ep_material *m);

/* Lamé parameters mu = E/(2(1+nu)), lambda = E nu/((1+nu)(1-2nu)) (MATH.md notation). */
void ep_material_lame(const ep_material *m, int e, double *lambda, double *mu);

/* Set per-element values from per-element arrays; collapses to homogeneous
 * when every element has the same values.  Takes ownership of the arrays. */
void ep_material_set_elements(ep_material *m, int ne, double *E, double *nu, double *rho);

/* Read a material file: lines "TAG E nu rho" ('#' comments), TAG an integer
 * region tag or "default".  Elements take the entry of region[e].  Errors
 * name file and line, or the first element left without a material.  A model without region tags (region NULL)
 * or without volume elements (ne 0: a surface, a soup; the result is then
 * homogeneous) takes "default", or the file's only entry when it has one.
 * 0, EP_EINPUT, EP_EIO or EP_ECOMPUTE. */
int ep_material_read(ep_material *m, const char *path, int ne, const int *region);

/* Check E > 0, rho > 0 (rho NaN means "not given" and passes) and -1 < nu < nu_max (nu_max = 0.5
 * for FEM, where nu = 0.5 makes lambda infinite; BEM allows nu <= 0.5 and passes
 * nu_max slightly above 0.5).  Returns 0 or EP_EINPUT naming the element. */
int ep_material_check(const ep_material *m, double nu_max, const char *source);

/* Plausibility of a valid material on a model size across (its
 * bounding-box diagonal, in the mesh's units), for warnings that do not
 * refuse (issue 45).  Writes into msg (cap bytes) one line per finding,
 * each ending in '\n':
 *   - a model more than 10 units across with E >= 1e6 and rho >= 100: SI
 *     moduli (Pa, kg/m^3) on a mesh that is likely in millimetres (a steel
 *     cantilever's first mode came out at 0.014 Hz);
 *   - E below 1e4 and below rho, rho between 0.5 and 25 (a wave speed
 *     sqrt(E / rho) under 1): the density looks like g/cm^3 and E like
 *     GPa or MPa (E = 1 with rho = 1.1; E = rho = 1, a model in units of
 *     its own, passes);
 *   - tets set (linear tetrahedra) and nu >= 0.45: volumetric locking makes
 *     them too stiff (28 % stiffer than BEM on a bracket at nu = 0.49).
 * Per-element materials are judged on their largest E, rho and nu.
 * Returns the number of findings.  Cost O(elements). */
int ep_material_plausible(const ep_material *m, double size, int tets, char *msg, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
