/*
 * part.h — split runs (cluster batch jobs; 001 §2.6.3 spread the cubic
 * coefficients over 15 machines): which share of a computation the part
 * I/N computes, the /part group that marks a part file (elastoprep(5),
 * PART FILES), and the hash that ties the parts of one run together.
 *
 * A tool run with --part I/N computes units [lo, hi) of its total (GF
 * columns, modal-derivative pairs, elements) and writes an ordinary file of
 * its kind holding that share, plus /part.  epmerge puts the parts back
 * together: it accepts a set only when every part carries the same hash (the
 * inputs and every option that changes the result, and the tool and its
 * version), the same count, and the ranges tile [0, total) once each.
 *
 * The hash is SHA-256 (Nettle, Debian's nettle-dev): it is in Debian, small,
 * a C API, and well known; what it hashes are models and option values of a
 * few MB, so its speed (about 1 GB/s) does not show, and a cryptographic
 * hash leaves no doubt that two parts that agree came from the same run.
 */
#ifndef EP_PART_H
#define EP_PART_H

#include <nettle/sha2.h>
#include <stddef.h>

#include "gf_layout.h"
#include "h5.h"
#include "material.h"
#include "mesh.h"

/* Length of the hex digest, without the terminating NUL. */
#define EP_PART_HASH_LEN 64

typedef struct ep_part {
    int index, count;        /* I and N of --part I/N; count 0: the whole run, no part */
    long lo, hi, total;      /* the share held: units [lo, hi) of total */
    char unit[16];           /* "columns", "pairs" or "elements" */
    char hash[EP_PART_HASH_LEN + 1]; /* hex SHA-256 of the run's inputs and options */
    char creator[64];        /* tool and version ("femcondense 0.1.0"), as the root attribute */
    char kind[32];           /* the file's kind, as the root attribute (ep_part_read) */
} ep_part;

/* Parse the argument of --part, "I/N" with 0 <= I < N <= 100000, into the
 * ep_part part (zeroed here; void * so that it serves as an ep_cli_opt
 * parser).  0 or EP_EUSAGE ("option --part: ..."). */
int ep_part_parse(void *part, const char *opt, const char *arg);

/* Set p's share of total units, split in grains of grain units (> 0): the
 * G = ceil(total / grain) grains go to the parts in order, part I taking
 * grains [I G / N, (I + 1) G / N), so [lo, hi) starts and (but for the last
 * part) ends on a multiple of grain.  A part may be empty (N > G).
 * A tool whose arithmetic runs in blocks (solves of K right-hand sides)
 * passes its block as the grain: each part then solves exactly the blocks
 * the single run solves, and its numbers are the single run's bit for bit.
 * Without a part (count 0) the share is everything. */
void ep_part_share(ep_part *p, long total, long grain, const char *unit);

/* The hash of a run: a SHA-256 over named fields (a field's name and length
 * go in before its bytes, so fields cannot run into each other). */
typedef struct ep_part_hash {
    struct sha256_ctx ctx;
} ep_part_hash;

/* Start with the tool's creator string ("femcondense 0.1.0"). */
void ep_part_hash_init(ep_part_hash *h, const char *creator);
void ep_part_hash_bytes(ep_part_hash *h, const char *name, const void *data, size_t n);
void ep_part_hash_long(ep_part_hash *h, const char *name, long v);
void ep_part_hash_double(ep_part_hash *h, const char *name, double v);
void ep_part_hash_string(ep_part_hash *h, const char *name, const char *s);
/* The model a result depends on: vertices, tets, hexes, triangles, the
 * material (mat, or m->material when NULL) and the support mask fixed[nv]
 * (NULL: m->fixed).  Cost O(file size). */
void ep_part_hash_model(ep_part_hash *h, const ep_mesh *m, const ep_material *mat, const char *fixed);
/* A GF layout: rows, their fixed flags and every column of the whole run. */
void ep_part_hash_layout(ep_part_hash *h, const ep_gf_layout *L);
/* The hex digest into p->hash; h is finished. */
void ep_part_hash_final(ep_part_hash *h, ep_part *p);

/* The share of a GF run (femcondense, bemsolve) in one call: p's share of
 * L's columns in grains of grain columns, the hash of creator, the model,
 * the whole layout L and the tool's options string (every option that
 * changes the numbers, "traction=lumped block=64 ..."), and *sub, the
 * layout of the share (ep_gf_layout_columns; free it in every case).
 * Without a part (count 0) *sub is all of L and no hash is made.
 * 0 or EP_ECOMPUTE. */
int ep_part_gf_share(ep_part *p, ep_gf_layout *sub, const char *creator, const ep_mesh *m, const ep_material *mat,
                     const char *fixed, const ep_gf_layout *L, const char *options, long grain);

/* Write /part: attributes index, count, lo, hi, total, unit, hash.  0 or
 * EP_EIO. */
int ep_part_write(ep_h5 *f, const ep_part *p);

/* The first want (0: all) modes of the modes file path (moddesc --modes),
 * which must be those of the model m, mat, fixed (the hashes agree: mesh,
 * material, support) and of the mass asked (lumped_asked): *k of them,
 * *lambda [*k] and *U [*k][3nv] (allocated; caller frees).  0, EP_EINPUT,
 * EP_EUSAGE, EP_EIO. */
int ep_part_model_modes(const char *path, const ep_mesh *m, const ep_material *mat, const char *fixed, int want,
                        int lumped_asked, int *k, double **lambda, double **U);

/* Read /part of the open file f (and its root creator and kind) into p.
 * 0; EP_EINPUT naming the file when /part is missing ("not a part file"),
 * holds a number that is not an integer in its range (reported as given),
 * or is inconsistent (index outside count, range outside total). */
int ep_part_read(ep_part *p, ep_h5 *f);

/* Check that parts[n] (read from paths[n]) make one whole: the same kind,
 * creator, hash, count, unit and total as parts[0]; each index once; the ranges tile
 * [0, total) in index order.  EP_EINPUT with one line naming the offending
 * files: "A and B: both part 2 of 7", "parts 3, 5 of 7 missing",
 * "B: not a part of A's run (different mesh, material, options or tool
 * version)", "B: made by femcondense 0.1.1, A by femcondense 0.1.0".
 * order[n] receives the indices of parts sorted by part index. */
int ep_part_check_set(const ep_part *parts, const char *const *paths, int n, int *order);

/* Merge the part files paths[n] of one run (read by ep_part_read into
 * parts[n] and checked by ep_part_check_set; order[] its order) into out,
 * an open file of the parts' kind, so that out holds what the single run
 * writes: every group, dataset and attribute of the first part but /part,
 * and, by kind,
 *   gf     /gf/col_vertex and /gf/xi: the parts' rows one after the other
 *          (copied as stored: bit for bit);
 *   modes  /derivatives/pairs and Phi likewise, then /basis formed from the
 *          whole (ep_modal_basis with the options /part records);
 *   cubic  every dataset under /cubic: the sum of the parts, in part order.
 * virtual: the concatenated datasets are HDF5 virtual datasets mapping the
 * parts' rows (nothing copied; the parts must stay where srcnames[i], the
 * name recorded for part i, finds them); sums are written as such.
 * Parts are input (issue 37, class 2): the first part's model is validated
 * (ep_model_load); every dataset copied from it must be in every part with
 * the same type, shape and bytes, and every numeric attribute the same (a
 * part of another mesh, material or run is refused whatever its hash); a
 * concatenated dataset must have the rows its part's /part claims, the
 * others' type and extents, and finite values (mapped ones too); a summed
 * one the same type and shape.  At most three files are open at a time.
 * Cost: reads every part's bytes once and the copied datasets once per part
 * (virtual: writes the small datasets only), in slabs of at most 64 MiB.
 * 0; EP_EINPUT naming the part and dataset; EP_EIO; EP_ECOMPUTE. */
int ep_part_merge(ep_h5 *out, const char *const *paths, const char *const *srcnames, const ep_part *parts,
                  const int *order, int n, int is_virtual);

#endif
