/* The one set of check macros of every C test program (library, calculation, GPU, host_io,
 * program tests).  Each directory's own test header includes this one and adds its domain
 * helpers (problem builders, scratch directories, CHECK_OK for its status type).
 *
 *   CHECK(cond)  or  CHECK(cond, "format", args...)   count a failure, print where and why
 *   CHECK_NEAR(got, want, tol)                         |got - want| <= tol
 *   CHECK_REL(got, want, rel)                          |got - want| <= rel |want|
 *   dg_check_report(name)                              0 when every check passed, else 1
 *   CHECK_DONE()                                       return dg_check_report(NULL) from main
 *
 * A failed check prints "FAIL file:line: ..." on stderr; the report prints
 * "name: all checks passed (N checks)" or "name: F of N check(s) failed". */
#ifndef DG_CHECK_H
#define DG_CHECK_H

#include <math.h>
#include <stdio.h>

static int test_failures = 0; /* failed checks so far */
static int test_checks = 0;   /* checks made so far */

/* CHECK with or without a printf-style message: the argument count picks the form. */
#define DG_CHECK_PLAIN_(cond)                                                                      \
    do {                                                                                           \
        test_checks++;                                                                             \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "FAIL %s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);          \
            test_failures++;                                                                       \
        }                                                                                          \
    } while (0)
#define DG_CHECK_MSG_(cond, ...)                                                                   \
    do {                                                                                           \
        test_checks++;                                                                             \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                        \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            test_failures++;                                                                       \
        }                                                                                          \
    } while (0)
#define DG_CHECK_PICK_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, \
                       name, ...)                                                                  \
    name
#define CHECK(...)                                                                                 \
    DG_CHECK_PICK_(__VA_ARGS__, DG_CHECK_MSG_, DG_CHECK_MSG_, DG_CHECK_MSG_, DG_CHECK_MSG_,        \
                   DG_CHECK_MSG_, DG_CHECK_MSG_, DG_CHECK_MSG_, DG_CHECK_MSG_, DG_CHECK_MSG_,      \
                   DG_CHECK_MSG_, DG_CHECK_MSG_, DG_CHECK_MSG_, DG_CHECK_MSG_, DG_CHECK_MSG_,      \
                   DG_CHECK_MSG_, DG_CHECK_MSG_, DG_CHECK_PLAIN_, unused)                          \
    (__VA_ARGS__)

/* |got - want| <= tol (absolute); NaN never passes. */
#define CHECK_NEAR(got, want, tol)                                                                 \
    do {                                                                                           \
        test_checks++;                                                                             \
        const double g_ = (got), w_ = (want), t_ = (tol);                                          \
        if (!(fabs(g_ - w_) <= t_)) {                                                              \
            fprintf(stderr, "FAIL %s:%d: %s = %.17g, expected %.17g (tolerance %.3g)\n", __FILE__, \
                    __LINE__, #got, g_, w_, t_);                                                   \
            test_failures++;                                                                       \
        }                                                                                          \
    } while (0)

/* Relative: |got - want| <= rel |want|. */
#define CHECK_REL(got, want, rel) CHECK_NEAR(got, want, (rel)*fabs((double)(want)))

/* The summary line; returns the program's exit status (0: every check passed). */
static inline int dg_check_report(const char *name) {
    const char *sep = name ? ": " : "";
    if (!name) name = "";
    if (test_failures) {
        fprintf(stderr, "%s%s%d of %d check(s) failed\n", name, sep, test_failures, test_checks);
        return 1;
    }
    printf("%s%sall checks passed (%d checks)\n", name, sep, test_checks);
    return 0;
}

#define CHECK_DONE() return dg_check_report(NULL)

#endif /* DG_CHECK_H */
