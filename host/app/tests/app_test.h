/* Helpers for the program tests: the common checks (dg_check.h), and running the pipeline in
 * process with an argument list. */
#ifndef HOST_APP_TEST_H
#define HOST_APP_TEST_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../../delphi_gpu/tests/dg_check.h"
#include "pipeline.h"

/* Run delphi-gpu with the NULL-terminated arguments; the log goes to stdout when verbose. */
static inline int run_program(pipeline *p, int verbose, ...) {
    char *argv[64];
    int argc = 0;
    argv[argc++] = "delphi-gpu";
    va_list ap;
    va_start(ap, verbose);
    for (char *a; argc < 63 && (a = va_arg(ap, char *)) != NULL;)
        argv[argc++] = a;
    va_end(ap);
    argv[argc] = NULL;
    return pipeline_execute(p, argc, argv, verbose ? stdout : NULL);
}

static inline int file_exists(const char *path) {
    return access(path, F_OK) == 0;
}

#endif /* HOST_APP_TEST_H */
