/*
 * text.c — line reader and token parsing for ASCII inputs (see text.h).
 */
#define _GNU_SOURCE
#include "text.h"
#include "err.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

const char *ep_text_file_kind(unsigned mode)
{
    mode_t m = (mode_t)mode;
    return S_ISDIR(m) ? "a directory" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
         : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

int ep_text_open_regular(const char *path, int *fd)
{
    struct stat sb;
    /* O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever */
    *fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (*fd < 0)
        return ep_fail(EP_EIO, "%s: cannot open: %s", path, strerror(errno));
    if (fstat(*fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        int st = ep_fail(EP_EIO, "%s: is %s, not a regular file", path,
                         fstat(*fd, &sb) != 0 ? "unreadable" : ep_text_file_kind(sb.st_mode));
        close(*fd);
        *fd = -1;
        return st;
    }
    fcntl(*fd, F_SETFL, fcntl(*fd, F_GETFL) & ~O_NONBLOCK);
    return EP_OK;
}

int ep_text_open(ep_text *t, const char *path, char comment)
{
    memset(t, 0, sizeof *t);
    t->path = path;
    t->comment = comment;
    int fd, st = ep_text_open_regular(path, &fd);
    if (st)
        return st;
    if (!(t->f = fdopen(fd, "r"))) {
        close(fd);
        return ep_fail(EP_EIO, "%s: cannot open: %s", path, strerror(errno));
    }
    /* Sniff the start: binary files (HDF5, compressed, executables) hold NUL or
     * other control bytes early, and would otherwise fail later on some
     * confusing line. */
    unsigned char head[4096];
    size_t n = fread(head, 1, sizeof head, t->f);
    for (size_t i = 0; i < n; i++)
        if (head[i] < 0x20 && !strchr("\t\n\r\f\v", head[i])) {
            ep_text_close(t);
            return ep_fail(EP_EINPUT, "%s: not a text file (binary data)", path);
        }
    rewind(t->f);
    return EP_OK;
}

int ep_text_open_buffer(ep_text *t, const char *path, char *buf, size_t len, char comment)
{
    memset(t, 0, sizeof *t);
    t->path = path;
    t->comment = comment;
    if (!len || !(t->f = fmemopen(buf, len, "r")))
        return ep_fail(EP_ECOMPUTE, "%s: cannot read the converted text", path);
    return EP_OK;
}

void ep_text_close(ep_text *t)
{
    if (t->f)
        fclose(t->f);
    free(t->buf);
    memset(t, 0, sizeof *t);
}

int ep_text_fail(const ep_text *t, int status, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ep_fail(status, "%s:%ld: %s", t->path, t->line, msg);
}

void ep_text_unread(ep_text *t) { t->unread = 1; }

int ep_text_next(ep_text *t)
{
    if (t->unread) {
        t->unread = 0;
        t->p = t->start;
        return EP_OK;
    }
    for (;;) {
        errno = 0;
        ssize_t n = getline(&t->buf, &t->cap, t->f);
        if (n < 0) {
            if (ferror(t->f))
                return ep_fail(EP_EIO, "%s: read error: %s", t->path, strerror(errno));
            t->eof = 1;
            return EP_OK;
        }
        t->line++;
        for (ssize_t i = 0; i < n; i++) {
            unsigned char c = (unsigned char)t->buf[i];
            if (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v')
                return ep_text_fail(t, EP_EINPUT, "not a text file (binary data)");
        }
        char *s = t->buf;
        while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n' || *s == '\f' || *s == '\v')
            s++;
        if (*s == '\0' || (t->comment && *s == t->comment))
            continue;
        t->p = t->start = s;
        return EP_OK;
    }
}

int ep_text_need(ep_text *t, const char *what)
{
    int st = ep_text_next(t);
    if (!st && t->eof)
        return ep_fail(EP_EINPUT, "%s:%ld: unexpected end of file (expected %s)",
                       t->path, t->line, what);
    return st;
}

static void skip_sep(ep_text *t)
{
    while (*t->p && (isspace((unsigned char)*t->p) || *t->p == ','))
        t->p++;
}

int ep_text_more(ep_text *t)
{
    skip_sep(t);
    return *t->p != '\0';
}

int ep_text_word(ep_text *t, char **w)
{
    skip_sep(t);
    if (!*t->p)
        return ep_text_fail(t, EP_EINPUT, "line ends early");
    *w = t->p;
    while (*t->p && !isspace((unsigned char)*t->p) && *t->p != ',')
        t->p++;
    if (*t->p)
        *t->p++ = '\0';
    return EP_OK;
}

static int expected(ep_text *t, const char *what)
{
    if (*t->p)
        return ep_text_fail(t, EP_EINPUT, "expected %s, found \"%.20s\"", what, t->p);
    return ep_text_fail(t, EP_EINPUT, "expected %s, line ends early", what);
}

static int token_end_ok(const char *e)
{
    return *e == '\0' || isspace((unsigned char)*e) || *e == ',';
}

int ep_text_long(ep_text *t, long *v)
{
    skip_sep(t);
    char *e;
    errno = 0;
    long x = strtol(t->p, &e, 10);
    if (e == t->p || !token_end_ok(e) || errno == ERANGE)
        return expected(t, "an integer");
    t->p = e;
    *v = x;
    return EP_OK;
}

int ep_text_double(ep_text *t, double *v)
{
    skip_sep(t);
    char *e;
    double x = strtod(t->p, &e);
    if (e == t->p || !token_end_ok(e))
        return expected(t, "a number");
    if (!isfinite(x))
        return ep_text_fail(t, EP_EINPUT, "non-finite number");
    t->p = e;
    *v = x;
    return EP_OK;
}

const char *ep_text_ext(const char *path)
{
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    return dot && (!slash || dot > slash) ? dot + 1 : "";
}
