/* dg_solve_f / dg_solve_d: check phi, load it, run the loop, store the result. */
#include <math.h>
#include <string.h>

#include "solver_internal.h"

#define REAL      float
#define SFX(name) name##_f
#define IS_DOUBLE 0
#include "solve_template.h"
#undef REAL
#undef SFX
#undef IS_DOUBLE

#define REAL      double
#define SFX(name) name##_d
#define IS_DOUBLE 1
#include "solve_template.h"
#undef REAL
#undef SFX
#undef IS_DOUBLE
