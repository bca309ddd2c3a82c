/*
 * gf.h — boundary Green's function files (kind "gf", elastoprep(5)): which
 * vertices are block rows and block columns, and a writer that streams GF
 * rows into /gf/xi as they are solved, so memory stays bounded by one block.
 * Shared by femcondense and bemsolve, which therefore write the same layout.
 */
#ifndef EP_GF_H
#define EP_GF_H

#include <getopt.h>
#include <stdint.h>

#include "h5.h"
#include "mesh.h"
#include "select.h"

typedef struct ep_gf_layout {
    const char *entity; /* "vertex", or "triangle" for constant boundary elements */
    int n;              /* block rows: every boundary vertex (or triangle), ascending */
    int *row_vertex;    /* [n] vertex (or triangle) ids */
    int8_t *row_fixed;  /* [n] 1: traction row (vertex fixed), 0: displacement */
    int m;              /* block columns */
    int *col_vertex;    /* [m] ascending */
} ep_gf_layout;

/* Build the layout.  Columns: the free boundary vertices (all_columns 0), all
 * boundary vertices (1), or the explicit vertex list cols[ncols] when
 * cols != NULL (each must be a boundary vertex).  fixed[v] != 0 marks Lambda_u0.
 * 0, EP_EINPUT (a column that is no boundary vertex, no column at all) or
 * EP_ECOMPUTE. */
int ep_gf_layout_build(const ep_mesh *m, const char *fixed, int all_columns, const int *cols, int ncols,
                       ep_gf_layout *L);
void ep_gf_layout_free(ep_gf_layout *L);

/* The layout of constant boundary elements: one block row per triangle; a
 * triangle is fixed when its three vertices are; columns: the free triangles,
 * or all.  0, EP_EINPUT (no free triangle, or no fixed one) or EP_ECOMPUTE. */
int ep_gf_layout_triangles(const ep_mesh *m, const char *fixed, int all_columns, ep_gf_layout *L);

/* Column vertices from a selection: the ids file must name boundary vertices
 * (an error otherwise); a box or group contributes its boundary vertices.
 * *cols ascending, unique, allocated.  An empty result is EP_EINPUT. */
int ep_gf_select_columns(const ep_mesh *m, const ep_vsel *spec, int **cols, int *ncols);

/* The column options both GF tools take: --columns free|all and the
 * --col-ids/--col-box/--col-region selection. */
typedef struct ep_gf_columns {
    int all;      /* --columns all */
    ep_vsel sel;  /* --col-... */
} ep_gf_columns;

enum { EP_OPT_COLUMNS = 3000, EP_OPT_COL_IDS, EP_OPT_COL_BOX, EP_OPT_COL_REGION };

#define EP_GF_COLUMN_OPTIONS                                          \
    {"columns", required_argument, NULL, EP_OPT_COLUMNS},             \
    {"col-ids", required_argument, NULL, EP_OPT_COL_IDS},             \
    {"col-box", required_argument, NULL, EP_OPT_COL_BOX},             \
    {"col-region", required_argument, NULL, EP_OPT_COL_REGION}

#define EP_GF_COLUMN_HELP                                                                       \
    "      --columns free|all  GF columns: free boundary vertices (default) or all of them\n"  \
    "      --col-ids FILE      GF columns: these boundary vertices (1-based ids), and/or\n"    \
    "      --col-box x0,y0,z0,x1,y1,z1\n"                                                     \
    "                          the boundary vertices in a box, and/or\n"                       \
    "      --col-region TAG    those of a physical group or set\n"

/* Take one column option: 0 or EP_EUSAGE; -1 when code is none of them. */
int ep_gf_column_option(ep_gf_columns *c, int code, const char *arg);

/* Write /gf/col_vertex, row_vertex, row_fixed and the attributes method,
 * traction and entity.  0 or EP_EIO. */
int ep_gf_write_layout(ep_h5 *f, const ep_gf_layout *L, const char *method, const char *traction);

/* Streaming writer of /gf. */
typedef struct ep_gf_writer {
    ep_h5 *f;
    hid_t xi;       /* /gf/xi, [3m][3n] */
    long ncols;     /* 3n, the length of one GF row as stored */
} ep_gf_writer;

/* Create /gf with its attributes (method, traction, entity), col_vertex,
 * row_vertex, row_fixed, and the /gf/xi dataset (float32 when single).
 * 0 or EP_EIO. */
int ep_gf_writer_open(ep_gf_writer *w, ep_h5 *f, const ep_gf_layout *L, const char *method, int single);
/* Write GF rows [row0, row0 + nrows) of /gf/xi from rows[nrows][3n] (double;
 * converted to float32 by HDF5 when the file is single).  0 or EP_EIO. */
int ep_gf_writer_put(ep_gf_writer *w, long row0, long nrows, const double *rows);
int ep_gf_writer_close(ep_gf_writer *w);

/* An open GF file for reading (kind "gf", or "gf-wavelet" for its layout):
 * the mesh it carries, the layout and the /gf attributes. */
typedef struct ep_gf_file {
    ep_h5 f;
    ep_mesh mesh;
    ep_gf_layout L;     /* L.entity points at entity[] */
    char method[32], traction[32], entity[16];
    hid_t xi;           /* kind "gf": /gf/xi, [3m][3n] */
} ep_gf_file;

/* Open path, check its kind (NULL: "gf" or "gf-wavelet"), read the mesh and
 * the layout and check them: rows are distinct boundary vertices (or
 * triangles), row_fixed is 0/1, columns are rows, /gf/xi is [3m][3n].
 * 0, EP_EINPUT (message names file and dataset), EP_EIO or EP_ECOMPUTE.
 * Close with ep_gf_file_close even on failure. */
int ep_gf_file_open(const char *path, const char *kind, ep_gf_file *g);
/* Read GF rows [row0, row0 + nrows) of /gf/xi into rows[nrows][3n]; a
 * non-finite value is EP_EINPUT.  Cost: one hyperslab read. */
int ep_gf_file_rows(ep_gf_file *g, long row0, long nrows, double *rows);
void ep_gf_file_close(ep_gf_file *g);
/* Area of each row's hat function (vertex rows: /mesh/vertex_area of the
 * row's boundary vertex), *area[n] allocated.  0 or EP_ECOMPUTE. */
int ep_gf_row_areas(const ep_gf_file *g, double **area);

/* Row index of each column vertex: col_row[c] with row_vertex[col_row[c]] ==
 * col_vertex[c]; allocated.  NULL on failure (EP_ECOMPUTE). */
int *ep_gf_column_rows(const ep_gf_layout *L);

#endif
