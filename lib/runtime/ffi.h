/*
 * ffi.h — the runtime behind opaque handles, for callers that cannot lay out
 * C structs: Python's ctypes (python/elastoprep/runtime.py), other
 * languages' foreign-function interfaces.  Each handle owns what it opens;
 * every function maps to one call of gfsrc.h, cma.h, cubic_file.h or
 * reduced.h, at that call's cost.  On failure a constructor returns NULL
 * and the others a status, the message in ep_errmsg() (err.h).
 */
#ifndef EP_FFI_H
#define EP_FFI_H

#ifdef __cplusplus
extern "C" {
#endif

/* Capacitance-matrix contact (cma.h) on the GFs of a gf or gf-wavelet file. */
typedef struct ep_ffi_contact ep_ffi_contact;

/* Open path (ep_gfsrc_open) and an empty contact set (ep_cma_init).  NULL on
 * failure. */
ep_ffi_contact *ep_ffi_contact_open(const char *path);
void ep_ffi_contact_close(ep_ffi_contact *c);
/* GF rows n (boundary vertices); columns m. */
int ep_ffi_contact_rows(const ep_ffi_contact *c);
int ep_ffi_contact_columns(const ep_ffi_contact *c);
/* The contact set nodes[s], from scratch (ep_cma_set); add or remove one node. */
int ep_ffi_contact_set(ep_ffi_contact *c, const int *nodes, int s);
int ep_ffi_contact_add(ep_ffi_contact *c, int node);
int ep_ffi_contact_remove(ep_ffi_contact *c, int node);
/* The set's size and nodes (out[s], may be NULL). */
int ep_ffi_contact_size(const ep_ffi_contact *c, int *out);
/* ep_cma_solve: uS[s][3] prescribed at the set, vbar[n][3] tractions
 * elsewhere (NULL: none); out pS[s][3], v[n][3] (NULL: not wanted). */
void ep_ffi_contact_solve(ep_ffi_contact *c, const double *uS, const double *vbar, double *pS, double *v);
/* ep_cma_force: the contact force a_S^T p_S. */
void ep_ffi_contact_force(const ep_ffi_contact *c, const double *pS, double f[3]);

/* Reduced implicit Newmark (reduced.h) on a cubic file's polynomials. */
typedef struct ep_ffi_newmark ep_ffi_newmark;

/* Read path (kind cubic: ep_cubic_file_read), prepare the runtime tangent
 * and ep_reduced_init(dt, alpha, beta).  NULL on failure. */
ep_ffi_newmark *ep_ffi_newmark_open(const char *path, double dt, double alpha, double beta);
void ep_ffi_newmark_close(ep_ffi_newmark *n);
/* Reduced dimension r; mesh vertices nv (the basis U is [r][3 nv]). */
int ep_ffi_newmark_r(const ep_ffi_newmark *n);
int ep_ffi_newmark_nv(const ep_ffi_newmark *n);
/* Newton iterations per step and their relative tolerance (reduced.h). */
void ep_ffi_newmark_iterations(ep_ffi_newmark *n, int iterations, double tol);
/* ep_reduced_start (any argument NULL: 0) and ep_reduced_step (f NULL: 0). */
void ep_ffi_newmark_start(ep_ffi_newmark *n, const double *q0, const double *qd0, const double *f);
int ep_ffi_newmark_step(ep_ffi_newmark *n, const double *f);
/* The state: q, qd, qdd [r] each (any NULL: not wanted). */
void ep_ffi_newmark_state(const ep_ffi_newmark *n, double *q, double *qd, double *qdd);
/* The basis [r][3 nv], row-major; displacements u = U^T q. */
const double *ep_ffi_newmark_basis(const ep_ffi_newmark *n);
/* ep_reduced_static from q (in: the start, out: the equilibrium). */
int ep_ffi_newmark_static(const ep_ffi_newmark *n, const double *f, double *q, int maxit, double tol, int *iterations);
/* ep_reduced_energy: the reduced strain energy V(q). */
double ep_ffi_newmark_energy(ep_ffi_newmark *n, const double *q);

#ifdef __cplusplus
}
#endif

#endif
