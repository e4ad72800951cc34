/* Multigrid-preconditioned CG in float and double (mg_solve_template.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mg.h"

#define DG_TEMPLATE "mg/mg_solve_template.h" /* relative to for_each_precision.h */
#include "../for_each_precision.h"
