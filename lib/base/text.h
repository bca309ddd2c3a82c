/*
 * text.h — line-oriented reading of the ASCII formats (meshes, .bou, material
 * files) with "FILE:LINE: what is wrong" errors.
 *
 * Tokens are separated by blanks or commas.  Comment lines (starting with the
 * comment character after leading blanks) and blank lines are skipped.  A line
 * holding NUL or other control bytes is reported as binary data, so a garbage
 * file fails on its first line instead of parsing as nonsense.
 */
#ifndef EP_TEXT_H
#define EP_TEXT_H

#include <stdio.h>

typedef struct ep_text {
    FILE *f;
    const char *path;   /* borrowed: for messages */
    long line;          /* 1-based number of the current line */
    char *buf;          /* current line, owned */
    size_t cap;
    char *p;            /* cursor in buf */
    char *start;        /* first token of the current line */
    int unread;         /* ep_text_next returns the current line again */
    int eof;            /* ep_text_next found the end of the file */
    char comment;       /* comment character, 0 for none */
} ep_text;

/* Open path for reading; EP_EIO with message if it cannot be opened or is
 * not a regular file (ep_text_open_regular). */
int ep_text_open(ep_text *t, const char *path, char comment);
void ep_text_close(ep_text *t);

/* Read len bytes of buf (which must outlive t) as if they were the file
 * path: text converted in memory (a binary mesh as its ASCII form).
 * 0 or EP_ECOMPUTE. */
int ep_text_open_buffer(ep_text *t, const char *path, char *buf, size_t len, char comment);

/* Open path read-only as a descriptor *fd (close-on-exec), refusing what is
 * not a regular file — a FIFO, a device, a directory, a socket — without
 * waiting on it (issue 22, class 10: a FIFO as input blocked forever).
 * 0, or EP_EIO "FILE: is a FIFO, not a regular file" (*fd -1). */
int ep_text_open_regular(const char *path, int *fd);

/* "a directory", "a FIFO", "a character device", ... for a st_mode. */
const char *ep_text_file_kind(unsigned mode);

/* Advance to the next non-blank, non-comment line; at the end of the file
 * set t->eof instead.  Returns 0, or EP_EINPUT (binary data) / EP_EIO (read
 * error) with the message recorded. */
int ep_text_next(ep_text *t);

/* Parse the next token of the current line.  Each returns EP_OK or EP_EINPUT
 * with "path:line: expected ..." recorded.  ep_text_double refuses NaN/Inf. */
int ep_text_long(ep_text *t, long *v);
int ep_text_double(ep_text *t, double *v);
/* Next token as a NUL-terminated string inside buf (modifies the line). */
int ep_text_word(ep_text *t, char **w);
/* 1 if the rest of the line holds another token. */
int ep_text_more(ep_text *t);

/* Record "path:line: <message>" and return status. */
int ep_text_fail(const ep_text *t, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Make the next ep_text_next return the current line again (one-line pushback,
 * for sections that end at the first line of the next one). */
void ep_text_unread(ep_text *t);

/* Like ep_text_next, but end of file is an error naming what was expected. */
int ep_text_need(ep_text *t, const char *what);

/* Extension of path after the last dot ("" if none), case as given. */
const char *ep_text_ext(const char *path);

#endif
