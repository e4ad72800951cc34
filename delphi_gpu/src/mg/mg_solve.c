/* Multigrid-preconditioned CG in float and double (mg_solve_template.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mg.h"

/* The boundary weights of colour c: the Jacobian's (a Newton step) or the medium's. */
static const double *mg_weights(const dg_mg_hierarchy *h, int c) {
    return h->weight[c] ? h->weight[c] : h->prep->boundary_weight[c];
}

#define DG_TEMPLATE "mg/mg_solve_template.h" /* relative to for_each_precision.h */
#include "../for_each_precision.h"           /* mg_solve_impl_f, mg_solve_impl_d */

int dg_mg_solve_f(dg_mg_hierarchy *h, float *phi, const dg_mg_control *control,
                  dg_mg_outcome *outcome, dg_error *err) {
    return mg_solve_impl_f(h, phi, control, outcome, err);
}
int dg_mg_solve_d(dg_mg_hierarchy *h, double *phi, const dg_mg_control *control,
                  dg_mg_outcome *outcome, dg_error *err) {
    return mg_solve_impl_d(h, phi, control, outcome, err);
}
