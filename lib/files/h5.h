/*
 * h5.h — elastoprep HDF5 files (man/man5/elastoprep.5): the root attributes
 * (format, format_version, kind, creator, command, created), datasets and
 * attributes read and written with checks on class, shape and extents, and
 * a message naming the file and the object on any mismatch.
 *
 * This module knows HDF5, not what a file holds: the groups every file
 * carries (/mesh, /material, /constraints) are model.h's, the GF groups
 * gf.h's and gfw.h's.  Tools write files through output.h, which creates
 * them here under a temporary name.
 */
#ifndef EP_H5_H
#define EP_H5_H

#include <hdf5.h>

#ifdef __cplusplus
extern "C" {
#endif

#define EP_FORMAT "elastoprep"
#define EP_FORMAT_VERSION 1

/* The kinds of file (man/man5/elastoprep.5), blank-separated with a
 * leading blank; ep_h5_open refuses any other. */
#define EP_KINDS " mesh gf gf-wavelet modes cubic embedding distfield fem multigrid trajectory pointshell cubature"

/* A string attribute read ahead (h5.c: the schema's vlen strings are read
 * together in one child process). */
typedef struct ep_h5_cached {
    char obj[8], name[16];
    int st;          /* 0, or the status of reading it */
    char text[1280]; /* the value, or the message */
} ep_h5_cached;

#define EP_H5_CACHE 14

typedef struct ep_h5 {
    hid_t id;
    char path[1024];
    char kind[32];
    int ncached;
    ep_h5_cached cached[EP_H5_CACHE];
    double written;  /* bytes written since ep_h5_drop_written last acted */
} ep_h5;

/* Element types of datasets in the schema. */
typedef enum { EP_F64, EP_F32, EP_I64, EP_I32, EP_I8 } ep_h5_type;

/* Create path (truncating) and write the root attributes format,
 * format_version, kind, creator, command and created (ISO 8601, UTC).
 * 0 or EP_EIO. */
int ep_h5_create(ep_h5 *f, const char *path, const char *kind, const char *creator,
                 const char *command);

/* Open path read-only and check format and format_version; with kind non-NULL
 * also check the kind, else that it is one of EP_KINDS.  f->kind receives the file's kind.  Not an HDF5 file,
 * or the wrong format/kind: EP_EINPUT; missing file: EP_EIO. */
int ep_h5_open(ep_h5 *f, const char *path, const char *kind);

/* Close; EP_EIO when buffered data could not be written.  Safe on a zeroed
 * or closed ep_h5 (then 0). */
int ep_h5_close(ep_h5 *f);

/* Count bytes just written to f by a streaming writer (a GF of many GB);
 * once EP_H5_DROP_BYTES have gathered, write f's dirty pages to disk and drop them
 * from the page cache, so the next writes reuse those pages.  Why: fresh
 * memory is costly where the kernel returns free pages to a hypervisor
 * (2-3 s a GiB on the project's machines, `membw touch` prints it), and a
 * file written once is not worth caching whole.  Cost: waits for the disk
 * (about EP_H5_DROP_BYTES a call that acts).  0, or EP_EIO when the disk refused the
 * data.  Nothing is done for a file not on the POSIX driver. */
#define EP_H5_DROP_BYTES (64.0 * (1 << 20))
int ep_h5_drop_written(ep_h5 *f, double bytes);

/* 1 if the object at name ("/mesh/level") exists. */
int ep_h5_exists(ep_h5 *f, const char *name);

/* Write an array of rank dims (C order) as dataset name, creating parent
 * groups.  0 or EP_EIO. */
int ep_h5_write(ep_h5 *f, const char *name, ep_h5_type type, int rank, const hsize_t *dims,
                const void *data);

/* Open dataset name after checking, before anything is allocated or read:
 * its class (float for EP_F*, integer for EP_I*) and stored size (4 or 8
 * bytes for floats, at most 8 for integers), a simple dataspace of rank
 * rank, the extents against dims (in: expected, 0 = any; out: actual),
 * the declared values against the bytes the file stores (an unwritten
 * chunked dataset declares extents it does not hold).  *d: the open
 * dataset (caller closes).  0 or EP_EINPUT naming file and dataset. */
int ep_h5_open_dataset(ep_h5 *f, const char *name, ep_h5_type type, int rank, hsize_t *dims, hid_t *d);

/* Read dataset name into *data (allocated, caller frees), converted to type,
 * after ep_h5_open_dataset's checks and one against memory (ep_mem_limit:
 * EP_ECOMPUTE).  Float values must be finite (NaN and Inf are refused with
 * the entry named).  Cost: the dataset's bytes.
 * Errors name file and dataset: EP_EINPUT (EP_ECOMPUTE out of memory). */
int ep_h5_read(ep_h5 *f, const char *name, ep_h5_type type, int rank, hsize_t *dims, void **data);

/* A dataset written in pieces whose first extent grows (chunked, unlimited),
 * for outputs whose size is known only at the end. */
typedef struct ep_h5_stream {
    ep_h5 *f;
    hid_t d;
    ep_h5_type type;
    int rank;
    hsize_t dims[4];  /* current extents; dims[0] grows */
    char name[64];
} ep_h5_stream;

/* Create an empty dataset name of rank rank with row shape dims[1..rank-1]
 * (dims[0] ignored) in f.  0 or EP_EIO. */
int ep_h5_stream_open(ep_h5_stream *s, ep_h5 *f, const char *name, ep_h5_type type, int rank,
                      const hsize_t *dims);
/* Append nrows rows (C order).  0 or EP_EIO. */
int ep_h5_stream_append(ep_h5_stream *s, hsize_t nrows, const void *data);
/* Close the dataset (0 or EP_EIO); safe on a closed or zeroed stream. */
int ep_h5_stream_close(ep_h5_stream *s);

/* Attributes on the object at obj ("/" for the root). */
int ep_h5_set_attr_string(ep_h5 *f, const char *obj, const char *name, const char *value);
int ep_h5_set_attr_double(ep_h5 *f, const char *obj, const char *name, double value);
int ep_h5_set_attr_int(ep_h5 *f, const char *obj, const char *name, long value);

/* Longest string attribute read, in bytes with the NUL. */
#define EP_H5_MAX_STRING 65536

/* Read a scalar string (value, cap bytes, truncated) or number attribute.
 * The attribute's dataspace must be scalar and its class string, or
 * integer/float; a number may be NaN (material rho: "not given") but not
 * infinite.  A variable-length string is read in a forked child, with the
 * schema's others (libhdf5 crashes on corrupted vlen bytes, issue 22 class
 * 9), so a damaged attribute is an EP_EINPUT naming it, never a crash.
 * Cost: one fork per file, at the first vlen string read. */
int ep_h5_get_attr_string(ep_h5 *f, const char *obj, const char *name, char *value, size_t cap);
int ep_h5_get_attr_double(ep_h5 *f, const char *obj, const char *name, double *value);

/* 1 if object obj exists and has attribute name. */
int ep_h5_attr_exists(ep_h5 *f, const char *obj, const char *name);

/* One dataset of a file, as ep_h5_walk reports it. */
typedef struct ep_h5_info {
    const char *name;  /* its path, "/mesh/vertices" */
    char type[16];     /* "float64", "float32", "int32", "uint8", "string", ..., "other" */
    int rank;          /* 0 for a scalar, at most 8 (a larger rank is reported as -1) */
    hsize_t dims[8];
    double bytes;      /* storage the file gives it */
} ep_h5_info;

/* Call fn for every dataset of the open file f (each link to one, groups
 * walked in name order), for a tool's -v report.  Cost: O(objects).  0, or EP_EIO when the file cannot be
 * walked. */
int ep_h5_walk(ep_h5 *f, void (*fn)(void *ctx, const ep_h5_info *d), void *ctx);

#ifdef __cplusplus
}
#endif

#endif
