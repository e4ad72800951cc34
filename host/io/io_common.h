/* host_io: error reporting, notices and atomic file writes shared by all readers and writers.
 *
 * Every function of host_io that can fail returns an io_status (0 = IO_OK) and fills an io_error
 * whose message is complete and ready to print ("file:line: field: what is wrong").  The library
 * never prints and never exits; notices and warnings go into an io_notes list the caller logs. */
#ifndef HOST_IO_COMMON_H
#define HOST_IO_COMMON_H

#include <stdio.h>

#include "settings.h"

typedef enum io_status {
    IO_OK = 0,
    IO_ERR_INPUT = 1,       /* bad input or usage: syntax, values, malformed files */
    IO_ERR_UNSUPPORTED = 2, /* valid DelPhi input that this program does not implement */
    IO_ERR_FILE = 3,        /* a file could not be opened, read, written or renamed */
    IO_ERR_MEMORY = 4       /* an allocation failed */
} io_status;

#define IO_MESSAGE_MAX 2048
#define IO_FIELD_MAX   64

typedef struct io_error {
    int status;                   /* io_status */
    char file[SETTINGS_PATH_MAX]; /* file the problem is in ("" if none; "--opt" for options) */
    int line;                     /* 1-based line in that file, 0 if not about a line */
    char field[IO_FIELD_MAX];     /* statement, option, column or record name ("" if none) */
    char message[IO_MESSAGE_MAX]; /* the whole message: "file:line: field: problem" */
} io_error;

/** Reset to "no error". NULL is allowed. */
void io_error_clear(io_error *err);

/** Fill err (if not NULL) and return status. file/field may be NULL or "", line 0 = none. */
int io_fail(io_error *err, int status, const char *file, int line, const char *field,
            const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

/* ---- Notices and warnings collected for the log -------------------------------------------- */
enum io_note_level { IO_NOTE_INFO = 0, IO_NOTE_WARNING = 1 };

#define IO_NOTES_MAX 64
#define IO_NOTE_MAX  3072 /* two full paths and the text around them */

typedef struct io_notes {
    int count;   /* notes stored */
    int dropped; /* notes that did not fit (the log should say how many) */
    int level[IO_NOTES_MAX];
    char text[IO_NOTES_MAX][IO_NOTE_MAX];
} io_notes;

void io_notes_clear(io_notes *notes);
/** Append a note; notes may be NULL (then it is discarded). */
void io_note(io_notes *notes, int level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ---- Atomic output files ---------------------------------------------------------------------
 * Output is written to a temporary file in the same directory ("<path>.tmp-XXXXXX") and renamed
 * over <path> by atomic_file_commit(), so a failed run never leaves a partial output file. */
typedef struct atomic_file {
    FILE *fp; /* write here; NULL when not open */
    char path[SETTINGS_PATH_MAX];
    char temp_path[SETTINGS_PATH_MAX + 16];
} atomic_file;

/** Create the temporary file.  binary: 1 for binary data (only matters on non-POSIX systems). */
int atomic_file_open(atomic_file *af, const char *path, int binary, io_error *err);
/** Flush, close and rename onto the final name.  On failure the temporary is removed. */
int atomic_file_commit(atomic_file *af, io_error *err);
/** Close and remove the temporary file (nothing is left).  Safe to call twice. */
void atomic_file_abort(atomic_file *af);

#endif /* HOST_IO_COMMON_H */
