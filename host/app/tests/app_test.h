/* Helpers for the program tests: run the pipeline in process with an argument list. */
#ifndef HOST_APP_TEST_H
#define HOST_APP_TEST_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "pipeline.h"

static int app_check_failures = 0;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
            ++app_check_failures;                                                                  \
        }                                                                                          \
    } while (0)

#define CHECK_REL(got, want, rel)                                                                  \
    do {                                                                                           \
        const double g_ = (got), w_ = (want);                                                      \
        if (!(fabs(g_ - w_) <= (rel)*fabs(w_))) {                                                  \
            fprintf(stderr, "%s:%d: %s = %.10g, expected %.10g (relative tolerance %.2g)\n",       \
                    __FILE__, __LINE__, #got, g_, w_, (double)(rel));                              \
            ++app_check_failures;                                                                  \
        }                                                                                          \
    } while (0)

#define CHECK_DONE()                                                                               \
    do {                                                                                           \
        if (app_check_failures) {                                                                  \
            fprintf(stderr, "%d check(s) failed\n", app_check_failures);                           \
            return 1;                                                                              \
        }                                                                                          \
        printf("all checks passed\n");                                                             \
        return 0;                                                                                  \
    } while (0)

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
