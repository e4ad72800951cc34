/* dg_solve_f / dg_solve_d: check phi, load it, run the loop, store the result. */
#include <math.h>
#include <omp.h>
#include <string.h>

#include "host_pool.h"
#include "solver_internal.h"

/* Points per range of phi's check on the host pool (whole rows, at least one). */
#define CHECK_ROW_POINTS 16384

/* The bits of a value: 0 exactly for +0.0. */
static inline unsigned long long value_bits_f(float v) {
    unsigned int bits;
    memcpy(&bits, &v, sizeof bits);
    return bits;
}
static inline unsigned long long value_bits_d(double v) {
    unsigned long long bits;
    memcpy(&bits, &v, sizeof bits);
    return bits;
}

#define DG_TEMPLATE "solve_template.h"
#include "for_each_precision.h" /* solve_impl_f, solve_impl_d */

int dg_solve_f(dg_solver s, float *phi, dg_result *result) {
    return solve_impl_f(s, phi, result);
}
int dg_solve_d(dg_solver s, double *phi, dg_result *result) {
    return solve_impl_d(s, phi, result);
}
