/* dg_solve_f / dg_solve_d: check phi, load it, run the loop, store the result. */
#include <math.h>
#include <omp.h>
#include <string.h>

#include "solver_internal.h"

#define DG_TEMPLATE "solve_template.h"
#include "for_each_precision.h" /* solve_impl_f, solve_impl_d */

int dg_solve_f(dg_solver s, float *phi, dg_result *result) {
    return solve_impl_f(s, phi, result);
}
int dg_solve_d(dg_solver s, double *phi, dg_result *result) {
    return solve_impl_d(s, phi, result);
}
