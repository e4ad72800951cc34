/* Synthetic prepared problems for the GPU benchmark, built directly in the backend-neutral form
 * (prepared.h) so that the CPU and CUDA backends time exactly the same work. */
#ifndef DG_BENCH_PROBLEMS_H
#define DG_BENCH_PROBLEMS_H

#include "prepared.h"

typedef enum bench_lists {
    BENCH_LISTS_NONE = 0,   /* faces only: the bare sweeps (Laplace) */
    BENCH_LISTS_SPHERE = 1, /* a dielectric sphere (eps 2 in 80) with charges inside */
    BENCH_LISTS_STRESS = 2  /* about 1 point in 7 a boundary point: stresses the corrections */
} bench_lists;

/** Build a cubic n^3 problem; salt adds solvent flags outside the sphere (linear/nonlinear
 *  PB).  Returns 0 on success, prints the reason and returns -1 on failure. */
int bench_build_problem(dg_prepared *prep, int n, int salt, bench_lists lists);

/** Full grid of n^3 doubles: random faces in [-1, 1], interior 0. */
double *bench_initial_phi(int n);

#endif /* DG_BENCH_PROBLEMS_H */
