/* Error struct and notes list. */
#define _POSIX_C_SOURCE 200809L

#include "io_common.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static void copy_text(char *dst, size_t size, const char *src) {
    if (size == 0) return;
    if (!src) src = "";
    snprintf(dst, size, "%s", src);
}

void io_error_clear(io_error *err) {
    if (!err) return;
    memset(err, 0, sizeof *err);
}

int io_fail(io_error *err, int status, const char *file, int line, const char *field,
            const char *fmt, ...) {
    if (!err) return status;
    char what[IO_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);

    err->status = status;
    copy_text(err->file, sizeof err->file, file);
    err->line = line;
    copy_text(err->field, sizeof err->field, field);

    /* "file:line: field: what", leaving out the parts that are absent. */
    char prefix[SETTINGS_PATH_MAX + IO_FIELD_MAX + 32] = "";
    size_t used = 0;
    if (file && file[0]) {
        used += (size_t)snprintf(prefix + used, sizeof prefix - used, "%s", file);
        if (line > 0) used += (size_t)snprintf(prefix + used, sizeof prefix - used, ":%d", line);
        used += (size_t)snprintf(prefix + used, sizeof prefix - used, ": ");
    }
    if (field && field[0] && used < sizeof prefix)
        snprintf(prefix + used, sizeof prefix - used, "%s: ", field);
    /* Truncation of a very long message is acceptable; the return value says if it happened. */
    if (snprintf(err->message, sizeof err->message, "%s%s", prefix, what) >=
        (int)sizeof err->message)
        err->message[sizeof err->message - 2] = '~';
    return status;
}

void io_notes_clear(io_notes *notes) {
    if (!notes) return;
    notes->count = 0;
    notes->dropped = 0;
}

void io_note(io_notes *notes, int level, const char *fmt, ...) {
    if (!notes) return;
    if (notes->count >= IO_NOTES_MAX) {
        notes->dropped++;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(notes->text[notes->count], IO_NOTE_MAX, fmt, ap);
    va_end(ap);
    notes->level[notes->count] = level;
    notes->count++;
}
