/* The program's log: terminal plus an optional atomic copy. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "io_log.h"

int log_open(io_log *log, const char *path, int quiet, io_error *err) {
    memset(log, 0, sizeof *log);
    log->quiet = quiet;
    log->out = stdout;
    log->errors = stderr;
    if (path && path[0]) {
        int rc = atomic_file_open(&log->file, path, 0, err);
        if (rc) return rc;
        log->has_file = 1;
    }
    return IO_OK;
}

void log_set_streams(io_log *log, FILE *out, FILE *errors) {
    log->out = out;
    log->errors = errors;
}

/* Write "prefix" + message + newline to the terminal stream (if any) and the file; a note,
 * notice or warning (level >= 0) is also kept in log->said. */
static void emit(io_log *log, FILE *terminal, const char *prefix, int level, const char *fmt,
                 va_list ap) {
    char text[4096];
    vsnprintf(text, sizeof text, fmt, ap);
    if (level >= 0) io_note(&log->said, level, "%s%s", prefix, text);
    if (terminal) {
        errno = 0;
        const int failed = fprintf(terminal, "%s%s\n", prefix, text) < 0 || fflush(terminal) != 0;
        if (failed && terminal == log->out && !log->out_errno) log->out_errno = errno ? errno : EIO;
    }
    if (log->has_file && log->file.fp) fprintf(log->file.fp, "%s%s\n", prefix, text);
}

void log_info(io_log *log, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    emit(log, log->out, "", -1, fmt, ap);
    va_end(ap);
}

void log_progress(io_log *log, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    emit(log, log->quiet ? NULL : log->out, "", -1, fmt, ap);
    va_end(ap);
}

void log_warning(io_log *log, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    emit(log, log->errors, "warning: ", IO_NOTE_WARNING, fmt, ap);
    va_end(ap);
}

void log_note(io_log *log, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    emit(log, log->out, "note: ", IO_NOTE_INFO, fmt, ap);
    va_end(ap);
}

void log_notice(io_log *log, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    emit(log, log->out, "notice: ", IO_NOTE_INFO, fmt, ap);
    va_end(ap);
}

void log_error(io_log *log, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (!log->first_error[0]) {
        va_list copy;
        va_copy(copy, ap);
        vsnprintf(log->first_error, sizeof log->first_error, fmt, copy);
        va_end(copy);
    }
    emit(log, log->errors, "error: ", -1, fmt, ap);
    va_end(ap);
}

void log_notes(io_log *log, io_notes *notes) {
    if (!notes) return;
    for (int i = 0; i < notes->count; i++) {
        if (notes->level[i] == IO_NOTE_WARNING)
            log_warning(log, "%s", notes->text[i]);
        else
            log_note(log, "%s", notes->text[i]);
    }
    if (notes->dropped) log_warning(log, "%d more notes were not kept", notes->dropped);
    io_notes_clear(notes);
}

int log_close(io_log *log, int keep_file, io_error *err) {
    int rc = IO_OK;
    if (log->has_file) {
        if (keep_file)
            rc = atomic_file_commit(&log->file, err);
        else
            atomic_file_abort(&log->file);
        log->has_file = 0;
    }
    return rc;
}
