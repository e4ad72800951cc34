/* The program's settings as the calculation layer's parameters: DelPhi's statements and the
 * command-line options mapped onto dg_calc_params (physics and solver only). */
#ifndef HOST_CALC_PARAMS_H
#define HOST_CALC_PARAMS_H

#include "delphi_gpu/delphi_gpu_calc.h"
#include "molecule.h"
#include "settings.h"

/* DelPhi's settings -> dg_options (grid, stopping rules, nonlinear scheme). */
void calc_options_from_settings(const run_settings *s, dg_options *o);

/* The whole parameter set: grid (scale 0 = from gsize and perfil, perfil 0 = the default),
 * medium, salts, boundary values, energies and solver. */
void calc_params_from_settings(const run_settings *s, dg_calc_params *p);

/* The atoms' positions, charges and radii as arrays (malloc'ed; free with calc_atoms_free). */
int calc_atoms_from_molecule(const molecule *mol, dg_atoms *atoms);
void calc_atoms_free(dg_atoms *atoms);

#endif /* HOST_CALC_PARAMS_H */
