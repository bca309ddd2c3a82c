/*
 * output.c — check, write under a temporary name, commit or abort
 * (output.h).
 */
#define _GNU_SOURCE /* mkstemps */
#include "output.h"
#include "err.h"
#include "mem.h"
#include "text.h"
#include "xdmf.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* ---- the cleanup registry ----------------------------------------------------
 * Temporaries not yet committed, by name, for the signal handler (which may
 * only unlink) and for exit; and their owners, for ep_output_abort_all.  A
 * slot's name is written before it is marked live, with the catchable
 * signals blocked, so a handler never sees half a name. */

#define MAX_OUT 64 /* outputs and their sidecars (xdmf.h: up to EP_XDMF_NPARTS each) */
static char pending[MAX_OUT][4096];
static volatile sig_atomic_t live[MAX_OUT];
static ep_output *owner[MAX_OUT];

/* Every signal whose default action ends the process, but SIGKILL and
 * SIGSTOP (which cannot be caught): the classic ones, SIGPWR, SIGIO (SIGPOLL),
 * SIGSYS, SIGTRAP, SIGSTKFLT and the real-time signals SIGRTMIN..SIGRTMAX
 * (issue 37, class 5: these left the temporary behind), which
 * install_handlers adds (SIGRTMIN is no constant). */
static const int fixed_caught[] = {SIGHUP,  SIGINT,    SIGQUIT, SIGTERM, SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2,
                                   SIGXCPU, SIGVTALRM, SIGPROF, SIGSEGV, SIGBUS,  SIGFPE,  SIGILL,  SIGABRT,
                                   SIGPWR,  SIGIO,     SIGSYS,  SIGTRAP,
#ifdef SIGSTKFLT
                                   SIGSTKFLT,
#endif
};
#define NFIXED (int)(sizeof fixed_caught / sizeof fixed_caught[0])
static int caught[NFIXED + 64];
static int ncaught;
static struct sigaction previous[NFIXED + 64];
static int handlers_set;

/* The list above and the real-time signals, once. */
static void list_caught(void)
{
    if (ncaught)
        return;
    for (int i = 0; i < NFIXED; i++)
        caught[ncaught++] = fixed_caught[i];
    for (int sig = SIGRTMIN; sig <= SIGRTMAX && ncaught < NFIXED + 64; sig++)
        caught[ncaught++] = sig;
}

static void unlink_pending(void)
{
    for (int i = 0; i < MAX_OUT; i++) /* unlink is async-signal-safe */
        if (live[i])
            unlink(pending[i]);
}

static void on_signal(int sig, siginfo_t *info, void *uc)
{
    unlink_pending();
    for (int i = 0; i < ncaught; i++)
        if (caught[i] == sig) {
            /* what was there before: the default action, or a runtime's
             * handler (AddressSanitizer reports the crash) */
            sigaction(sig, &previous[i], NULL);
            if (previous[i].sa_flags & SA_SIGINFO)
                previous[i].sa_sigaction(sig, info, uc);
            else if (previous[i].sa_handler != SIG_DFL && previous[i].sa_handler != SIG_IGN)
                previous[i].sa_handler(sig);
            else
                raise(sig); /* delivered when the handler returns */
            return;
        }
}

static void at_exit(void) { unlink_pending(); }

static void install_handlers(void)
{
    struct sigaction sa;
    if (handlers_set)
        return;
    handlers_set = 1;
    list_caught();
    atexit(at_exit);
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < ncaught; i++) {
        sigaction(caught[i], NULL, &previous[i]);
        if (previous[i].sa_handler != SIG_IGN) /* nohup's SIGHUP stays ignored */
            sigaction(caught[i], &sa, NULL);
    }
    signal(SIGXFSZ, SIG_IGN); /* a file-size limit makes write() fail with EFBIG */
}

static void block_signals(sigset_t *old)
{
    sigset_t all;
    list_caught();
    sigemptyset(&all);
    for (int i = 0; i < ncaught; i++)
        sigaddset(&all, caught[i]);
    sigprocmask(SIG_BLOCK, &all, old);
}

static void unregister(ep_output *o)
{
    if (o->slot > 0) {
        live[o->slot - 1] = 0;
        owner[o->slot - 1] = NULL;
    }
    o->slot = 0;
}

/* ---- checking the target ------------------------------------------------------- */

/* The folder of path into dir ("." for a bare name, "/" for "/x"). */
static void folder_of(const char *path, char *dir, size_t cap)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, cap, ".");
    else if (slash == path)
        snprintf(dir, cap, "/");
    else
        snprintf(dir, cap, "%.*s", (int)(slash - path), path);
}

static int check(ep_output *o, const char *path, int follow)
{
    char cur[4096], link[4096], dir[4096];
    struct stat sb;
    memset(o, 0, sizeof *o);
    if (!path || !*path)
        return ep_fail(EP_EIO, "empty output file name");
    if (strlen(path) >= sizeof o->name - 16)
        return ep_fail(EP_EIO, "%.80s...: output name too long", path);
    snprintf(o->name, sizeof o->name, "%s", path);
    snprintf(cur, sizeof cur, "%s", path);
    for (int hops = 0;; hops++) { /* follow symbolic links to the file they name */
        if (lstat(cur, &sb) != 0) {
            if (errno == ENOENT)
                break; /* a new name; its folder is checked below */
            return ep_fail(EP_EIO, "%s: cannot check the output: %s", path, strerror(errno));
        }
        if (!follow && S_ISLNK(sb.st_mode))
            break; /* the link itself is replaced */
        if (!S_ISLNK(sb.st_mode)) {
            if (!S_ISREG(sb.st_mode))
                return ep_fail(EP_EIO, "%s: is %s; an output must be a regular file or a new name", path,
                               ep_text_file_kind(sb.st_mode));
            break;
        }
        ssize_t k = readlink(cur, link, sizeof link - 1);
        if (hops == 40 || k < 0)
            return ep_fail(EP_EIO, "%s: cannot follow the symbolic link: %s", path,
                           k < 0 ? strerror(errno) : "too many levels");
        link[k] = '\0';
        folder_of(cur, dir, sizeof dir);
        int n = link[0] == '/' ? snprintf(cur, sizeof cur, "%s", link)
                               : snprintf(cur, sizeof cur, "%s/%s", dir, link);
        if (n < 0 || (size_t)n >= sizeof cur - 16)
            return ep_fail(EP_EIO, "%s: the symbolic link names too long a path", path);
    }
    snprintf(o->path, sizeof o->path, "%s", cur);
    folder_of(o->path, dir, sizeof dir);
    int e = stat(dir, &sb) != 0 ? errno : !S_ISDIR(sb.st_mode) ? ENOTDIR : access(dir, W_OK | X_OK) != 0 ? errno : 0;
    if (e)
        return ep_fail(EP_EIO, "%s: cannot create a file in its folder: %s", path, strerror(e));
    return EP_OK;
}

int ep_output_check(ep_output *o, const char *path) { return check(o, path, 1); }

int ep_output_check_sidecar(ep_output *o, const char *path) { return check(o, path, 0); }

int ep_output_check_space(const ep_output *o, double bytes)
{
    char dir[4096];
    struct statvfs sv;
    folder_of(o->path, dir, sizeof dir);
    if (statvfs(dir, &sv) == 0) {
        double avail = (double)sv.f_bavail * (double)sv.f_frsize;
        if (bytes > avail)
            return ep_fail(EP_ECOMPUTE, "the output needs about %s, %s has %s free",
                           ep_mem_text(bytes), dir, ep_mem_text(avail));
    }
    return EP_OK;
}

/* ---- the temporary --------------------------------------------------------------- */

/* Create o->tmp beside o->path and register it; the open descriptor, or -1
 * with EP_EIO recorded. */
static int create_tmp(ep_output *o)
{
    char dir[4096];
    const char *slash = strrchr(o->path, '/'), *base = slash ? slash + 1 : o->path;
    const char *dot = strrchr(base, '.');
    int suffix = o->keep_ext && dot && dot != base ? (int)strlen(dot) : 0, slot = -1, fd, n;
    if (!o->path[0] || o->tmp[0]) {
        ep_fail(EP_EIO, "%s: output not checked, or already open", o->name);
        return -1;
    }
    folder_of(o->path, dir, sizeof dir);
    n = snprintf(o->tmp, sizeof o->tmp, "%s%s.%s.XXXXXX%s", slash ? dir : "", slash ? "/" : "", base,
                 suffix ? dot : "");
    if (n < 0 || (size_t)n >= sizeof o->tmp) {
        o->tmp[0] = '\0';
        ep_fail(EP_EIO, "%s: output name too long", o->name);
        return -1;
    }
    install_handlers();
    sigset_t old;
    block_signals(&old);
    for (int i = 0; i < MAX_OUT && slot < 0; i++)
        if (!live[i] && !owner[i])
            slot = i;
    fd = slot < 0 ? -1 : mkstemps(o->tmp, suffix);
    int e = errno;
    if (fd >= 0) {
        memcpy(pending[slot], o->tmp, (size_t)n + 1);
        owner[slot] = o;
        live[slot] = 1;
        o->slot = slot + 1;
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (fd < 0) {
        o->tmp[0] = '\0';
        ep_fail(EP_EIO, slot < 0 ? "%s: too many open outputs" : "%s: cannot create a file in its folder: %s",
                o->name, strerror(e));
    }
    return fd;
}

int ep_output_reserve(ep_output *o)
{
    int fd = create_tmp(o);
    if (fd < 0)
        return EP_EIO;
    close(fd);
    return EP_OK;
}

int ep_output_create_h5(ep_output *o, const char *kind, const char *creator, const char *command)
{
    int st;
    if ((st = ep_output_reserve(o)))
        return st;
    if ((st = ep_h5_create(&o->h5, o->tmp, kind, creator, command))) {
        ep_output_abort(o);
        return ep_fail(st, "%s: cannot create HDF5 file", o->name);
    }
    snprintf(o->h5.path, sizeof o->h5.path, "%.*s", (int)sizeof o->h5.path - 1, o->name); /* messages name the output */
    return EP_OK;
}

int ep_output_create_file(ep_output *o)
{
    int fd = create_tmp(o);
    if (fd < 0)
        return EP_EIO;
    if (!(o->fp = fdopen(fd, "w"))) {
        close(fd);
        ep_output_abort(o);
        return ep_fail(EP_EIO, "%s: cannot open: %s", o->name, strerror(errno));
    }
    return EP_OK;
}

/* 1 when the sidecar name a is the output o itself (a symbolic link at
 * o's name pointing there): committing both would leave one of them. */
static int is_output(const ep_output *o, const char *a)
{
    struct stat sa, sb;
    if (!strcmp(a, o->path) || !strcmp(a, o->name))
        return 1;
    return lstat(a, &sa) == 0 && stat(o->path, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Write the XDMF sidecars of the open HDF5 output o, one per grid (xdmf.h),
 * each under a temporary (side[part]), flushed, synced and closed, to be
 * renamed just before o (issue 37, class 4: all appear, or none).  The text
 * is made in memory first, so a file that fails (a dataset's shape) leaves
 * no temporary.  A symbolic link at a sidecar's name is replaced, never
 * followed.  A name an XDMF reader cannot resolve (ep_xdmf_href_ok) gets no
 * sidecar and a note in o->note.  side[part].tmp stays "" for a grid the
 * file does not have; *parts receives the set written. */
static int sidecars(ep_output *o, ep_output side[EP_XDMF_NPARTS], unsigned *parts)
{
    char name[4096], *text[EP_XDMF_NPARTS] = {0};
    size_t len[EP_XDMF_NPARTS] = {0};
    FILE *mem[EP_XDMF_NPARTS] = {0};
    const char *slash = strrchr(o->name, '/'), *base = slash ? slash + 1 : o->name;
    int st = EP_OK;
    *parts = 0;
    memset(side, 0, EP_XDMF_NPARTS * sizeof *side);
    if (o->no_xdmf || o->h5.id <= 0 || !ep_xdmf_wanted(&o->h5))
        return EP_OK;
    if (!ep_xdmf_href_ok(base)) {
        snprintf(o->note, sizeof o->note, "%.200s: no XDMF sidecar: an XDMF reader cannot resolve this name (it cuts "
                 "at ':' and '|', and XML holds no control characters); rename the file to view it", o->name);
        return EP_OK;
    }
    for (int p = 0; p < EP_XDMF_NPARTS && !st; p++)
        if (!(mem[p] = open_memstream(&text[p], &len[p])))
            st = ep_fail(EP_ECOMPUTE, "%s: out of memory for its XDMF sidecars", o->name);
    if (!st)
        st = ep_xdmf_write(mem, &o->h5, base, o->xdmf_columns, parts);
    for (int p = 0; p < EP_XDMF_NPARTS; p++)
        if (mem[p] && fclose(mem[p]) && !st)
            st = ep_fail(EP_ECOMPUTE, "%s: out of memory for its XDMF sidecars", o->name);
    for (int p = 0; p < EP_XDMF_NPARTS && !st; p++) {
        if (!(*parts & 1u << p))
            continue;
        if ((st = ep_xdmf_name(o->name, p, name, sizeof name)) || (st = ep_output_check_sidecar(&side[p], name)))
            break;
        if (is_output(o, side[p].path)) {
            st = ep_fail(EP_EIO, "%s: the XDMF sidecar's name is the output itself", name);
            break;
        }
        if ((st = ep_output_create_file(&side[p])))
            break;
        int bad = fwrite(text[p], 1, len[p], side[p].fp) != len[p], e = errno;
        bad |= fflush(side[p].fp) != 0 || ferror(side[p].fp) || fsync(fileno(side[p].fp)) != 0;
        e = e ? e : errno;
        bad |= fclose(side[p].fp) != 0;
        side[p].fp = NULL;
        if (bad)
            st = ep_fail(EP_EIO, "%s: write error: %s", side[p].name, strerror(e ? e : errno));
    }
    for (int p = 0; p < EP_XDMF_NPARTS; p++) {
        free(text[p]);
        if (st)
            ep_output_abort(&side[p]);
    }
    if (st)
        *parts = 0;
    return st;
}

/* After a commit: a sidecar of a grid the new file does not have, left by
 * an earlier output of that name, is removed when it is one (its header
 * names this file), so no sidecar describes datasets that are gone. */
static void remove_stale(const ep_output *o, unsigned parts)
{
    char name[4096];
    const char *slash = strrchr(o->name, '/'), *base = slash ? slash + 1 : o->name;
    for (int p = 0; p < EP_XDMF_NPARTS; p++)
        if (!(parts & 1u << p) && !ep_xdmf_name(o->name, p, name, sizeof name) && ep_xdmf_is_sidecar_of(name, base))
            unlink(name);
}

int ep_output_commit(ep_output *o)
{
    int st = EP_OK, sidecar_set = o->h5.id > 0 && !o->no_xdmf;
    unsigned parts = 0;
    ep_output side[EP_XDMF_NPARTS];
    mode_t mask = umask(0);
    umask(mask);
    if (!o->tmp[0])
        return ep_fail(EP_EIO, "%s: nothing was written", o->name);
    if (o->h5.id > 0 && H5Fflush(o->h5.id, H5F_SCOPE_GLOBAL) < 0) { /* a full disk names the file itself */
        st = ep_fail(EP_EIO, "%s: error writing the file (disk full or file-size limit?)", o->name);
        ep_output_abort(o);
        return st;
    }
    if ((st = sidecars(o, side, &parts))) {
        ep_output_abort(o);
        return st;
    }
    sidecar_set = sidecar_set && !o->note[0];
    if (o->fp) {
        int bad = fflush(o->fp) != 0 || ferror(o->fp), e = errno;
        bad |= fclose(o->fp) != 0;
        o->fp = NULL;
        if (bad)
            st = ep_fail(EP_EIO, "%s: write error: %s", o->name, strerror(e ? e : errno));
    }
    if (o->h5.id > 0 && ep_h5_close(&o->h5))
        st = EP_EIO;
    /* the sidecars first, then the file: a failed rename takes the new
     * sidecars back */
    unsigned renamed = 0;
    for (int p = 0; !st && p < EP_XDMF_NPARTS; p++) {
        if (!side[p].tmp[0])
            continue;
        chmod(side[p].tmp, 0666 & ~mask);
        if (rename(side[p].tmp, side[p].path) != 0)
            st = ep_fail(EP_EIO, "%s: cannot write: %s", side[p].name, strerror(errno));
        else {
            renamed |= 1u << p;
            unregister(&side[p]);
            side[p].tmp[0] = '\0';
        }
    }
    if (!st) {
        chmod(o->tmp, 0666 & ~mask);
        if (rename(o->tmp, o->path) != 0)
            st = ep_fail(EP_EIO, "%s: cannot write: %s", o->name, strerror(errno));
    }
    if (st) {
        for (int p = 0; p < EP_XDMF_NPARTS; p++) {
            if (renamed & 1u << p)
                unlink(side[p].path);
            ep_output_abort(&side[p]);
        }
        ep_output_abort(o);
        return st;
    }
    unregister(o);
    o->tmp[0] = '\0';
    if (sidecar_set)
        remove_stale(o, parts);
    return EP_OK;
}

void ep_output_abort(ep_output *o)
{
    if (o->fp)
        fclose(o->fp);
    o->fp = NULL;
    if (o->h5.id > 0) /* without a message: the error being reported is an earlier one */
        H5Fclose(o->h5.id);
    o->h5.id = H5I_INVALID_HID;
    if (o->tmp[0])
        unlink(o->tmp);
    unregister(o);
    memset(o, 0, sizeof *o);
}

void ep_output_abort_all(void)
{
    for (int i = 0; i < MAX_OUT; i++)
        if (owner[i])
            ep_output_abort(owner[i]);
}
