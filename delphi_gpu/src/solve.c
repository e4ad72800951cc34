/* dg_solve_f / dg_solve_d: check phi, load it, run the loop, store the result. */
#include <math.h>
#include <omp.h>
#include <string.h>

#include "solver_internal.h"

#define DG_TEMPLATE "solve_template.h"
#include "for_each_precision.h"
