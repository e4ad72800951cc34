/* Error recording and the monotonic clock. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "solver_internal.h"

int dg_error_set(dg_error *err, int status, const char *format, ...) {
    if (!err) return status;
    err->status = status;
    va_list args;
    va_start(args, format);
    vsnprintf(err->message, sizeof err->message, format, args);
    va_end(args);
    return status;
}

int dg_fail(dg_solver s, int status, const char *format, ...) {
    if (!s) return status;
    s->error.status = status;
    va_list args;
    va_start(args, format);
    vsnprintf(s->error.message, sizeof s->error.message, format, args);
    va_end(args);
    return status;
}

void dg_clear_error(dg_solver s) {
    if (!s) return;
    s->error.status = DG_OK;
    s->error.message[0] = '\0';
}

double dg_wall_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
