/* Internal text helpers of host_io: line reading, trimming, strict number parsing, columns. */
#ifndef HOST_IO_TEXT_H
#define HOST_IO_TEXT_H

#include <stddef.h>
#include <stdio.h>

/** Read one line of any length into *buf (grown as needed), without the trailing \n or \r\n.
 *  Returns the length, or -1 at end of file (or on a read error: check ferror). */
long io_read_line(FILE *fp, char **buf, size_t *cap);

/* Bytes from the current position to the end of a regular file; -1 when unknown (a pipe).
 * Readers compare what a header promises with this before they allocate for it. */
long long io_bytes_left(FILE *fp);

/** Copy src to dst (size bytes) with leading and trailing blanks removed. */
void io_trim_copy(char *dst, size_t size, const char *src, size_t len);

/** Case-insensitive equality of two NUL-terminated strings. */
int io_iequal(const char *a, const char *b);
/** Case-insensitive: does s start with prefix? */
int io_istarts(const char *s, const char *prefix);

/** What io_parse_real found. */
enum io_parse_status { IO_PARSE_OK = 0, IO_NOT_A_NUMBER = -1, IO_NOT_FINITE = -2 };

/** Parse the whole (trimmed) text as a finite real.  Fortran 'd' exponents are accepted.
 *  Returns an io_parse_status: IO_PARSE_OK, IO_NOT_A_NUMBER, or IO_NOT_FINITE (NaN or
 *  infinite). */
int io_parse_real(const char *text, double *value);
/** Parse the whole (trimmed) text as an integer (a real with an integral value is accepted).
 *  Returns 0 on success, -1 otherwise. */
int io_parse_int(const char *text, long *value);

/** Columns first..last (1-based, inclusive) of a line of length len, trimmed, into dst.
 *  Columns past the end of the line read as blanks. */
void io_columns(const char *line, size_t len, int first, int last, char *dst, size_t size);

/** Split a line at blanks and tabs into at most max tokens (modifies line).  Returns the count,
 *  or max + 1 if there were more. */
int io_split_blanks(char *line, char **tokens, int max);

/** Directory part of a path ("" when it has none), with a trailing '/'. */
void io_directory_of(const char *path, char *dir, size_t size);

/** 1 if a regular file at path can be opened for reading. */
int io_file_readable(const char *path);

#endif /* HOST_IO_TEXT_H */
