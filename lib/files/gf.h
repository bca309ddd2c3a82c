/*
 * gf.h — boundary Green's function files (kind "gf", elastoprep(5)): a
 * writer that streams GF rows into /gf/xi as they are solved, so memory
 * stays bounded by one block, and the reader.  Shared by femcondense and
 * bemsolve, which therefore write the same layout (gf_layout.h), and read by
 * gfcompress and the runtimes (gfsrc.h).
 */
#ifndef EP_GF_H
#define EP_GF_H

#include <stdint.h>

#include "gf_layout.h"
#include "h5.h"
#include "mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Write /gf/col_vertex, row_vertex, row_fixed and the attributes method,
 * traction ("hat" or "constant"), entity and, when traction_model is neither
 * NULL nor "", traction_model ("consistent" or "lumped": femcondense's
 * surface load, which describes the columns).  0 or EP_EIO. */
int ep_gf_write_layout(ep_h5 *f, const ep_gf_layout *L, const char *method, const char *traction,
                       const char *traction_model);

/* Streaming writer of /gf. */
typedef struct ep_gf_writer {
    ep_h5 *f;       /* borrowed */
    hid_t xi;       /* /gf/xi, [3m][3n] */
    long ncols;     /* 3n, the length of one GF row as stored */
    int single;     /* stored as float32: each row's range checked (f32.h) */
    const int8_t *row_fixed; /* borrowed from the layout: a row's unit (traction or displacement) */
    hid_t dxpl;     /* transfer list of the writes (0: H5P_DEFAULT; collective MPI-IO: lib/mpi/gfmpi) */
} ep_gf_writer;

/* Create /gf with its attributes (ep_gf_write_layout), col_vertex,
 * row_vertex, row_fixed, and the /gf/xi dataset (float32 when single).
 * 0 or EP_EIO; close with ep_gf_writer_close in every case (safe on a
 * zeroed writer). */
int ep_gf_writer_open(ep_gf_writer *w, ep_h5 *f, const ep_gf_layout *L, const char *method,
                      const char *traction_model, int single);
/* Write GF rows [row0, row0 + nrows) of /gf/xi from rows[nrows][3n] (double;
 * converted to float32 by HDF5 when the file is single); nrows 0 writes
 * nothing (a rank's part of a collective write).  0 or EP_EIO. */
int ep_gf_writer_put(ep_gf_writer *w, long row0, long nrows, const double *rows);
int ep_gf_writer_close(ep_gf_writer *w);

/* Write /gf/body, float64 [3][3n] (elastoprep(5)): row a the response at
 * L's rows to a unit acceleration in direction a times the density
 * (MATH.md §12; femgf.h, bemgf.h).  Dense in every kind of GF file.
 * 0 or EP_EIO. */
int ep_gf_write_body(ep_h5 *f, const ep_gf_layout *L, const double *body);

/* Write /gf/interior_points [np][3] and /gf/interior [3m][9 np], rows[3m]
 * the interior rows of the GF rows (femgf.h: displacement, then stress
 * xx yy zz yz xz xy, at each point), and with body rows[3m .. 3m + 3) as
 * /gf/interior_body [3][9 np] (elastoprep(5)).  0 or EP_EIO. */
int ep_gf_write_interior(ep_h5 *f, const ep_gf_layout *L, const double *points, int np, const double *rows,
                         int body);

/* An open GF file for reading (kind "gf", or "gf-wavelet" for its layout):
 * the mesh it carries, the layout and the /gf attributes. */
typedef struct ep_gf_file {
    ep_h5 f;
    ep_mesh mesh;
    ep_gf_layout L;     /* L.entity points at entity[] */
    char method[32], traction[32], entity[16];
    char traction_model[32]; /* "" when the file has none (bemsolve) */
    int constraint_level;    /* hierarchical constraints' level, -1: none */
    hid_t xi;           /* kind "gf": /gf/xi, [3m][3n] */
    double *body;       /* [3][3n] /gf/body, or NULL: the body-force rows (MATH.md §12), either kind */
    int np;             /* interior points (/gf/interior_points), 0: none */
    double *points;     /* [np][3] */
    double *interior;   /* [3m][9 np] /gf/interior: each GF row's interior rows (MATH.md §12) */
    double *interior_body; /* [3][9 np] /gf/interior_body, or NULL */
} ep_gf_file;

/* Open path, check its kind (NULL: "gf" or "gf-wavelet"), read the mesh and
 * the layout and check them: rows are distinct boundary vertices (or
 * triangles), row_fixed is 0/1, columns are rows, /gf/xi is [3m][3n];
 * /gf/body, when there, is read whole (finite, [3][3n]), and so are the
 * interior rows (/gf/interior_points [P][3], /gf/interior [3m][9P],
 * /gf/interior_body [3][9P]).
 * Cost: the model read (ep_model_load) and O(n + m) checks; /gf/xi is
 * read later, by rows.  0, EP_EINPUT (message names file and dataset), EP_EIO
 * or EP_ECOMPUTE.  Close with ep_gf_file_close even on failure. */
int ep_gf_file_open(ep_gf_file *g, const char *path, const char *kind);
/* Read GF rows [row0, row0 + nrows) of /gf/xi into rows[nrows][3n]; a
 * non-finite value is EP_EINPUT.  Cost: one hyperslab read. */
int ep_gf_file_rows(ep_gf_file *g, long row0, long nrows, double *rows);
void ep_gf_file_close(ep_gf_file *g);

/* Copy g's body-force rows and (interior != 0) interior rows to f, those
 * it has (gfcompress: the wavelet file keeps them dense).  0 or EP_EIO. */
int ep_gf_write_extras(ep_h5 *f, const ep_gf_file *g, int interior);

/* Area of each row's hat function (vertex rows: /mesh/vertex_area of the
 * row's boundary vertex; a column's row of hierarchical constraints: the
 * integral of its coarse hat, /gf/col_area), *area[n] allocated.  Cost
 * O(nv + n).  0 or EP_ECOMPUTE. */
int ep_gf_row_areas(const ep_gf_file *g, double **area);

#ifdef __cplusplus
}
#endif

#endif
