/*
 * pscontact.h — 6-DoF contact between a (reduced deformable or rigid)
 * pointshell object and a rigid distance-field object, each with a rigid
 * frame (001 §3.5-3.10, Ch. 4; MATH.md §11).  libelastoprep(3),
 * ep_pscontact(3).
 *
 * Frames: a body point x of the pointshell object is R_p x + t_p in the
 * world; a world point y is R_f^T (y - t_f) in the field's frame.  With
 * reduced coordinates q, point s is at p_s = P_s + U_s q (eq. 3.6) and its
 * inward normal n_s = (N_s + dN_s q) / |N_s + dN_s q| (eq. 3.8); r = 0
 * (an unbound pointshell) is the rigid case.  Both are evaluated through
 * the simulation mesh (pointshell.h's element records): U_s q = sum_c
 * w_sc u_c with u_v = U_v q computed once a cycle for each vertex a
 * looked-up point reaches, and with the element's displacement gradient
 * G = sum_c u_c grad phi_c^T and F = I + G the cofactor (Nanson) normal
 * cof(F) N_s = N_s + (tr G) N_s - G^T N_s + cof(G) N_s: N_s + dN_s q for
 * the Nanson dN_s, and its second order, so that it is exactly the
 * deformed normal of the element's linear map (001 §3.6.2's F t1 x F t2;
 * doc/DECISIONS.md).  The reduced force is sum_v
 * U_v^T f_v with f_v = sum_s w_sv f_s.  U_v, w_sc and grad phi_c are
 * taken in single precision (rounded once at adopt; the field's values
 * are floats too), every sum in double.  With AVX2 and FMA (chosen at run
 * time) a shell on tets or unbound is moved, looked up and its contacts'
 * forces formed four points a vector, one lane a point (the same
 * operations in every lane; hexes and other CPUs take the scalar path,
 * which agrees to rounding).
 *
 * A cycle (ep_pscontact_cycle) traverses the nested point tree breadth
 * first (001 §3.10): a node's point is moved (3r flops), taken to the
 * field's frame and looked up (sdf.h; the eq. 3.14 bound outside the box);
 * its subtree is culled when d > R_i(q) = R_i,0 + sum_j a_ij |q_j| (eq.
 * 3.12); a point's distance is cached for the copies of it deeper down.
 * Graceful degradation (§3.10.3): level l is entered only while the nodes
 * traversed so far stay below the warm threshold (levels down to the one
 * reached in the cycle before) or the cold threshold (0.8 warm, deeper
 * levels); warm 0: no budget.  Temporal coherence (§3.10.2), with vmax > 0
 * a bound on how far any point moves relative to the field in a cycle: a
 * node culled with gap g = d - R_i(q) is skipped for the next floor(g /
 * vmax) cycles, as nothing under it can reach the field sooner.  The
 * contact set is then exactly that of
 * brute force over the points of levels 1..depth (ep_pscontact_brute):
 * culling is conservative, and forces are summed in point order.
 *
 * Contact (eqs. 3.1, 3.3): a point with d < 0 gets f_s = -k_C d n_s (world
 * frame), scaled by Lc / l when l > Lc points are in contact (001 §3.5,
 * Lc = 10 by default).  The pointshell object receives F = sum f_s, the
 * torque T = sum (x_s - x_c) x f_s about x_c (world x_s), and the reduced
 * force g = sum U_s^T R_p^T f_s; the field object receives -F and -T.
 *
 * Derivatives (001 Ch. 4, the multiplane model: grad d = n_s at each
 * contact, exact for planar contact): with s the scale and n, x world,
 *   dF/dt_f = k s sum n n^T          dF/dw_f = k s sum n ((x - x_c) x n)^T
 *   dT/dt_f = k s sum [x - x_c]x n n^T,  dT/dw_f likewise,
 *   dg/dq = -k s sum w w^T,  w = U_s^T R_p^T n    (r x r)
 *   dg/dt_f = k s sum w n^T                       (r x 3)
 * (t_f the field's translation, w_f a small rotation of the field about
 * x_c), which an implicit step and static virtual coupling need.
 */
#ifndef EP_PSCONTACT_H
#define EP_PSCONTACT_H

#include "pointshell.h"
#include "sdf.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A 32-bit word of the runtime's packed lines (ep_pscontact's pt, rec). */
typedef union ep_psword {
    int32_t i;
    float f;
} ep_psword;

/* A point's lookup: the cycle it was last looked up in, its distance then. */
typedef struct ep_pslook {
    long stamp;
    double d;
} ep_pslook;

typedef struct ep_pscontact {
    ep_pointshell ps;   /* owned: the pointshell (pointshell_file.h) */
    double kc;          /* penalty stiffness k_C (default 1) */
    int lc;             /* Lc of the Lc / l scaling (default 10; 0: none) */
    long warm, cold;    /* node thresholds (warm 0: none; cold default 0.8 warm) */
    double vmax;        /* temporal coherence: a bound on any point's motion relative
                           to the field from one cycle to the next (0: off) */
    int depth;          /* deepest level rendered in the last cycle */
    /* workspace */
    long cycle;
    ep_pslook *look;    /* [S] cycle a point was last looked up, its distance then */
    long *wake;         /* [nn] first cycle a culled node can touch again (vmax > 0) */
    double *x;          /* [S][8] the contacts' world positions and distances, and their unnormalized body
                           normals, in contact order (the scalar path only) */
    double *xk;         /* a level's points' world positions and normals [8 n] (as x; the four-point path:
                           [10 n], a four's x, normals, corners and weights) */
    int *list, *next;   /* node lists of one level and the next */
    int *contact;       /* [S] points in contact */
    int *pending;       /* a level's points to look up, their voxels (sdf.h; -1 outside the field's box)
                           and their weights in it, or their field-frame positions when outside [4 n] */
    long *vox;          /* [widest] a level's points' voxels (sdf.h; -1 outside the field's box): the scalar
                           path's 8 bytes a point; the four-point path's 32-bit ids (ep_sdf4_fits) use its
                           first half, 4 bytes a point, a four's 16 bytes together (an anonymous union
                           would not compile as C99, which this installed header is) */
    double *y;
    double *absq;       /* [2r + 4]: |q| (zeros to a multiple of 4), then w of a contact */
    /* the runtime's copy of the shell (ep_pscontact_adopt) */
    int *file_point;    /* [S] the point's number in the file (or in the ps adopted) */
    float *Uvf;         /* [nbv][r][3] the bound vertices' rows U_v in single precision (NULL when r = 0) */
    ep_psword *pt;      /* [S][16, or 24 for hexes] a point's line: P_s (3 doubles), N_s (3 .f), its element
                           record (.i), its weights w_sc (k .f) */
    ep_psword *rec;     /* [nbe][4k] each element record: its k corners (.i), then grad phi_c (.f [k][3]) */
    float *af;          /* [nn][r] a_ij of the rows sum_c w_sc U_vc (over Uvf, wf), rounded up */
    double *G;          /* [r][4] the reduced force's sums */
    long tick;          /* evaluations (cycle, brute, energy): u_v is computed once a tick */
    double *vw;         /* [nbv][8], 64-byte lines: u_v = U_v q (001 eq. 3.6 at the vertex) and the tick it
                           is of; f_v = sum_s w_sv f_s (body frame, before the scale) and its tick */
    int *fvert, nfv;    /* the vertices with a force, in the order contacts first reach them */
} ep_pscontact;

/* One cycle's answer.  g, dg_dq, dg_dt: the caller's arrays (r, r x r,
 * r x 3, row-major) or NULL. */
typedef struct ep_pscontact_out {
    double F[3], T[3];     /* force and torque on the pointshell object (world) */
    double *g;             /* [r] reduced force sum U_s^T R_p^T f_s */
    int derivatives;       /* 1: fill the derivatives below */
    double dF_dt[9], dF_dw[9], dT_dt[9], dT_dw[9];
    double *dg_dq, *dg_dt;
    long traversed;        /* node visits */
    long inner;            /* of them, nodes above the last level (their a_i read) */
    long lookups;          /* distance lookups (points moved) */
    long skipped;          /* nodes skipped by temporal coherence */
    int contacts;          /* points in contact (before scaling) */
    int depth;             /* deepest level rendered */
    double scale;          /* Lc / l or 1 */
} ep_pscontact_out;

/* The rigid frames of a cycle: R row-major, t; x_c the torque's centre. */
typedef struct ep_pscontact_pose {
    double Rp[9], tp[3]; /* pointshell object */
    double Rf[9], tf[3]; /* distance-field object */
    double xc[3];
} ep_pscontact_pose;

/* Open the pointshell file path (kind "pointshell"; checked by
 * ep_pointshell_file_read, which leaves /pointshell/dN unread) for
 * contact, with the defaults above.
 *   Cost       reads the file; allocates O(S + nn) workspace.
 *   Returns    0; EP_EIO; EP_EINPUT; EP_ECOMPUTE. */
int ep_pscontact_open(ep_pscontact *c, const char *path);

/* Take over ps (sampled, with its tree; bound or not; ps is left empty).
 * The points of each level are renumbered in the order the traversal
 * meets them (a node's new children neighbours in memory; c->ps, its
 * parents and tree follow, c->file_point[s] is point s's old number), the
 * element records and bound vertices in the order those points first
 * reach them, and the rows U_v, weights and gradients are copied to
 * single precision (c->Uvf, wf, gf) with the sphere coefficients of the
 * rows they give rounded up (c->af): every position, normal and force
 * below is computed from them, in double.
 *   Cost       O(S (L + k + 6) r) and the copies.
 *   Returns    0; EP_EINPUT (a tree level that does not hold each new
 *              point of its level once); EP_ECOMPUTE. */
int ep_pscontact_adopt(ep_pscontact *c, ep_pointshell *ps);

void ep_pscontact_free(ep_pscontact *c);

/* One contact cycle against the field s at q (r values; NULL when r = 0)
 * and pose: the traversal, forces, torques, the reduced force and, when
 * out->derivatives, the derivatives.  Updates c->depth.
 *   Cost       O((3r + 8) a node) for the nodes traversed, O(r^2) a
 *              contact with derivatives.  Not thread-safe on one c.
 *   Returns    0. */
int ep_pscontact_cycle(ep_pscontact *c, const ep_sdf *s, const double *q, const ep_pscontact_pose *pose,
                       ep_pscontact_out *out);

/* The same answer by brute force over every point of levels 1..depth (no
 * tree): the reference of the traversal (rtcheck, tests).  Cost O(N r). */
int ep_pscontact_brute(ep_pscontact *c, const ep_sdf *s, const double *q, const ep_pscontact_pose *pose, int depth,
                       ep_pscontact_out *out);

/* The penalty energy E = k s / 2 sum over the contacts of d^2 (the same
 * contact set and scale as brute force to depth): the potential whose
 * gradient the forces are when grad d = n.  Cost O(N r). */
double ep_pscontact_energy(ep_pscontact *c, const ep_sdf *s, const double *q, const ep_pscontact_pose *pose,
                           int depth);

/* The runtime's rows of point s: U [3][r] = sum_c w_sc U_vc over the
 * single-precision values (the U_s its positions and reduced force are
 * exact for), in double.  Cost O(k 3r). */
void ep_pscontact_modes(const ep_pscontact *c, int s, double *U);

/* The runtime's inward normal of point s at q in the body frame (unit;
 * the Nanson transform above).  Cost O(k 3r). */
void ep_pscontact_normal(const ep_pscontact *c, int s, const double *q, double n[3]);

/* The world position of point s at q and pose (eq. 3.6 then the frame). */
void ep_pscontact_point(const ep_pscontact *c, int s, const double *q, const ep_pscontact_pose *pose, double x[3]);

/* The identity pose (both frames at the origin, x_c = 0). */
void ep_pscontact_pose_identity(ep_pscontact_pose *pose);

#ifdef __cplusplus
}
#endif

#endif
