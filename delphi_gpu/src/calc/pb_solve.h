/* The hand-over to the solver: the medium in the library's compact dense form (1-byte medium
 * numbers per face and a charge list) and the solve's options. */
#ifndef HOST_PB_SOLVE_H
#define HOST_PB_SOLVE_H

#include <stddef.h>

#include "charges.h"
#include "delphi_gpu/delphi_gpu.h"
#include "grid.h"
#include "medium.h"
#include "phi_map.h"
#include "salt.h"
#include "delphi_gpu/delphi_gpu_calc.h"

/* Everything the dense medium points to; must outlive the dg_dense_medium_d built from it. */
typedef struct pb_medium {
    double epsilon[2]; /* medium_epsilon: [MEDIUM_SOLVENT] = eps_out, [MEDIUM_SOLUTE] = eps_in */
    dg_dense_medium_d dense;
} pb_medium;

/* Wire a dense medium onto the maps and charges.  salt NULL (or without salts) = Poisson.
 * eps_solvent is the permittivity of the solvent medium (exdi; eps_in for the reference run of
 * --solvation-two-run, which also passes salt NULL). */
void pb_medium_init(pb_medium *pm, const grid_spec *g, const medium_maps *m,
                    const charge_list *charges, const salt_model *salt, double eps_in,
                    double eps_solvent, double temperature);

/* The solve's options: the parameters' solver options with the equation resolved (nonlinear
 * only when asked for and the medium has salt).  Returns NULL, or, when the solver asked for
 * cannot solve this equation and the SOR was set in its place, the reason in words (a static
 * string), which the caller reports: DelPhi's nonlinear scheme with solver MULTIGRID. */
const char *pb_solve_options(const dg_calc_params *s, int nonlinear, dg_options *o);

/* 1 when the parameters ask for the nonlinear equation and there is salt. */
int pb_wants_nonlinear(const dg_calc_params *s, const salt_model *salt);

#endif /* HOST_PB_SOLVE_H */
