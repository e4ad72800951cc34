/* host_io: the program's log.  Lines go to stdout and, with --log FILE, to a copy written
 * atomically (temporary name, renamed by log_close).  --quiet drops progress lines from the
 * terminal only; the log file keeps everything.  Errors go to stderr (and the file).
 * This is the only part of host_io that prints, and only when the program asks it to. */
#ifndef HOST_IO_LOG_H
#define HOST_IO_LOG_H

#include <stdio.h>

#include "io_common.h"

typedef struct io_log {
    int quiet;              /* 1: progress lines are not shown on the terminal */
    int has_file;           /* 1: a log file is being written */
    atomic_file file;       /* the log copy */
    FILE *out;              /* terminal stream (stdout) */
    FILE *errors;           /* error stream (stderr) */
    char first_error[1024]; /* the first error logged, "" if none */
    io_notes said;          /* every warning, note and notice logged, in order (the summary's) */
    int out_errno;          /* the first failed write to the terminal stream `out` (0: none) */
} io_log;

/** Start a log.  path NULL or "" = terminal only. */
int log_open(io_log *log, const char *path, int quiet, io_error *err);
/** Redirect the terminal streams (tests). */
void log_set_streams(io_log *log, FILE *out, FILE *errors);

#if defined(__GNUC__)
#define IO_LOG_FORMAT __attribute__((format(printf, 2, 3)))
#else
#define IO_LOG_FORMAT
#endif

/** A result or parameter line: always shown. */
void log_info(io_log *log, const char *fmt, ...) IO_LOG_FORMAT;
/** A progress line (iterations, timings): hidden on the terminal with --quiet. */
void log_progress(io_log *log, const char *fmt, ...) IO_LOG_FORMAT;
/** "warning: ..." on stderr (and the file): never hidden by --quiet; kept in log->said. */
void log_warning(io_log *log, const char *fmt, ...) IO_LOG_FORMAT;
/** "note: ..." on the terminal stream (and the file), kept in log->said. */
void log_note(io_log *log, const char *fmt, ...) IO_LOG_FORMAT;
/** "notice: ..." likewise (the backend's choices and fallbacks). */
void log_notice(io_log *log, const char *fmt, ...) IO_LOG_FORMAT;
/** "error: ..." on stderr. */
void log_error(io_log *log, const char *fmt, ...) IO_LOG_FORMAT;
/** Every note: infos as "note: ...", warnings as "warning: ...", and a count of dropped ones.
 *  The list is cleared afterwards so notes are not logged twice. */
void log_notes(io_log *log, io_notes *notes);

/** Finish.  keep_file 1: the log file is renamed into place (a complete log, also of a failed
 *  run); 0: it is removed.  The log struct can not be used afterwards. */
int log_close(io_log *log, int keep_file, io_error *err);

#endif /* HOST_IO_LOG_H */
