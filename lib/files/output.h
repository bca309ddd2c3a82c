/*
 * output.h — the one way a tool writes a file: check the target before any
 * work, write under a temporary name beside it, then commit (one rename) or
 * abort (nothing left).  HDF5 outputs and plain files (.obj, .off, a plot)
 * alike; a make rule never sees a half-written file under the final name.
 *
 * The lifecycle, each step a call:
 *   ep_output_check     before the computation: the target is a regular
 *                       file or a new name in a folder we can write; a
 *                       directory, device, FIFO or socket is refused; a
 *                       symbolic link is followed (the file it points to is
 *                       replaced, the link stays).
 *   ep_output_create_h5 / ep_output_create_file / ep_output_reserve
 *                       the temporary ".NAME.XXXXXX" in the target's folder
 *                       (so the rename is atomic), opened as HDF5 or stdio.
 *   ep_output_commit    an HDF5 output that carries a mesh first gets its
 *                       XDMF sidecar OUT.xmf (xdmf.h; unless o->no_xdmf),
 *                       written under its own temporary, flushed and synced;
 *                       then flush and close (a write, flush or close error
 *                       is EP_EIO and aborts both), then the sidecar is
 *                       renamed onto its name (a symbolic link there is
 *                       replaced, not followed) and the output onto the
 *                       target (its failure takes the sidecar back).  A name
 *                       an XDMF reader cannot resolve gets no sidecar and a
 *                       warning in o->note (ep_cli_exit prints it).
 *   ep_output_abort     close and unlink; safe at any point, and twice.
 * Every catchable signal whose default ends the process (SIGINT, SIGTERM,
 * SIGHUP, SIGQUIT, SIGPIPE, SIGALRM, SIGUSR1/2, SIGXCPU, SIGVTALRM, SIGPROF,
 * SIGPWR, SIGIO, SIGSYS, SIGTRAP, SIGSTKFLT, the real-time signals, and the
 * crash signals SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) and exit() unlink
 * every temporary not yet committed; SIGXFSZ is
 * ignored so that a file-size limit fails the write (EFBIG, exit 4) instead
 * of killing the tool.  SIGKILL cannot be caught: it leaves the temporary
 * ".NAME.XXXXXX" (never the final name), which the man pages describe.
 * A signal that was ignored when the first output was created (nohup) stays
 * ignored; one that a runtime library handles (AddressSanitizer's SIGSEGV)
 * is passed on to it after the cleanup.
 */
#ifndef EP_OUTPUT_H
#define EP_OUTPUT_H

#include <stdio.h>

#include "h5.h"

typedef struct ep_output {
    char name[4096];  /* the target as given, for messages */
    char path[4096];  /* the file a commit replaces: name, or what its symlinks point to */
    char tmp[4096];   /* the temporary beside path while one exists, else "" */
    int keep_ext;     /* the temporary keeps the target's extension (writers
                         that choose the format by it, such as matplotlib) */
    int slot;         /* 1 + index in the cleanup registry, 0 when not registered */
    ep_h5 h5;         /* HDF5 outputs: open from ep_output_create_h5 to commit */
    FILE *fp;         /* plain outputs: open from ep_output_create_file to commit */
    int no_xdmf;      /* 1: no XDMF sidecar (--no-xdmf); set after ep_output_check */
    const char *xdmf_columns; /* --xdmf-columns, or NULL (borrowed) */
    char note[512];   /* after a commit: a warning for the user (no sidecar, and why), or "" */
} ep_output;

/* Zero o and check the target path before any work (no file is created).
 * Returns 0; EP_EIO naming path when it is a directory, device, FIFO or
 * socket, when its folder is missing or not writable, or when its symbolic
 * links do not resolve. */
int ep_output_check(ep_output *o, const char *path);

/* The same for an XDMF sidecar's name: a symbolic link there is not
 * followed; the commit replaces the link itself (issue 37, class 4). */
int ep_output_check_sidecar(ep_output *o, const char *path);

/* Refuse, before any work, an output of about bytes that the free space of
 * the target's folder cannot hold: EP_ECOMPUTE with both figures. */
int ep_output_check_space(const ep_output *o, double bytes);

/* Create the temporary and open it as an elastoprep HDF5 file with its root
 * attributes (ep_h5_create); o->h5 is the open file, whose messages name the
 * target.  0 or EP_EIO. */
int ep_output_create_h5(ep_output *o, const char *kind, const char *creator, const char *command);

/* Create the temporary and open it for writing as o->fp.  0 or EP_EIO. */
int ep_output_create_file(ep_output *o);

/* Create the temporary (empty, closed) for a writer that opens it by name:
 * o->tmp.  0 or EP_EIO. */
int ep_output_reserve(ep_output *o);

/* Close what is open (a flush, write or close error is EP_EIO naming the
 * target, and the output is aborted), give the temporary the permissions
 * of a new file and rename it onto the target.  An open HDF5 output with
 * /mesh/vertices first gets its XDMF sidecar (ep_xdmf_write), committed
 * after it; a sidecar that cannot be written aborts both.  0, EP_EIO, or
 * the sidecar's status (EP_EINPUT, EP_EUSAGE for --xdmf-columns). */
int ep_output_commit(ep_output *o);

/* Close what is open, ignoring errors, remove the temporary and zero o (a
 * committed output stays).  Safe on a zeroed output and twice. */
void ep_output_abort(ep_output *o);

/* ep_output_abort for every output not yet committed (a tool's exit). */
void ep_output_abort_all(void);

#endif
