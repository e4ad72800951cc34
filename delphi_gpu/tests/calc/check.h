/* Minimal checking macros for the host tests: count failures, print what failed, exit 1. */
#ifndef HOST_TEST_CHECK_H
#define HOST_TEST_CHECK_H

#include <math.h>
#include <stdio.h>

static int check_failures = 0;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
            ++check_failures;                                                                      \
        }                                                                                          \
    } while (0)

/* |got - want| <= tol (absolute). */
#define CHECK_NEAR(got, want, tol)                                                                 \
    do {                                                                                           \
        const double g_ = (got), w_ = (want), t_ = (tol);                                          \
        if (!(fabs(g_ - w_) <= t_)) {                                                              \
            fprintf(stderr, "%s:%d: %s = %.10g, expected %.10g (tolerance %.3g)\n", __FILE__,      \
                    __LINE__, #got, g_, w_, t_);                                                   \
            ++check_failures;                                                                      \
        }                                                                                          \
    } while (0)

/* Relative: |got - want| <= rel |want|. */
#define CHECK_REL(got, want, rel) CHECK_NEAR(got, want, (rel)*fabs((double)(want)))

#define CHECK_DONE()                                                                               \
    do {                                                                                           \
        if (check_failures) {                                                                      \
            fprintf(stderr, "%d check(s) failed\n", check_failures);                               \
            return 1;                                                                              \
        }                                                                                          \
        printf("all checks passed\n");                                                             \
        return 0;                                                                                  \
    } while (0)

#endif /* HOST_TEST_CHECK_H */
