/* Multigrid-preconditioned CG in float and double (mg_solve_template.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mg.h"

/* The boundary weights of colour c: the Jacobian's (a Newton step) or the medium's. */
static const double *mg_weights(const dg_mg_hierarchy *h, int c) {
    return h->weight[c] ? h->weight[c] : h->prep->boundary_weight[c];
}

/* Periodic axes: every face point that a stencil reads (other coordinates interior) takes the
   value of its image (prepared.h, dg_wrap_pair_points), in a grid of floats or of doubles. */
static void wrap_grid_f(const dg_prepared *p, int threads, float *v) {
    const long pairs = p->periodic ? dg_wrap_pair_count(p->nx, p->ny, p->nz, p->periodic) : 0;
#pragma omp parallel for schedule(static) num_threads(threads) if (pairs > 16384)
    for (long k = 0; k < pairs; ++k) {
        long face[2], image[2];
        dg_wrap_pair_points(p->nx, p->ny, p->nz, p->periodic, k, face, image);
        v[face[0]] = v[image[0]], v[face[1]] = v[image[1]];
    }
}
static void wrap_grid_d(const dg_prepared *p, int threads, double *v) {
    const long pairs = p->periodic ? dg_wrap_pair_count(p->nx, p->ny, p->nz, p->periodic) : 0;
#pragma omp parallel for schedule(static) num_threads(threads) if (pairs > 16384)
    for (long k = 0; k < pairs; ++k) {
        long face[2], image[2];
        dg_wrap_pair_points(p->nx, p->ny, p->nz, p->periodic, k, face, image);
        v[face[0]] = v[image[0]], v[face[1]] = v[image[1]];
    }
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
