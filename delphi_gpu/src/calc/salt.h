/* Salt: the settings' two salts as the solver library sees them, ionic strength, Debye length
 * and the ion species (concentration and signed valence) used by the ionic energy terms. */
#ifndef HOST_SALT_H
#define HOST_SALT_H

#include "delphi_gpu/delphi_gpu_types.h"
#include "delphi_gpu/delphi_gpu_calc.h"

typedef struct ion_species {
    double number_density; /* ions per cubic Angstrom */
    int valence;           /* signed */
} ion_species;

typedef struct salt_model {
    dg_salt salts[2];
    int salt_count;        /* salts with a concentration > 0 */
    double ionic_strength; /* mol/L, 1/2 sum c z^2 */
    double debye_length;   /* Angstrom; INFINITY without salt */
    ion_species ions[4];
    int ion_count;
} salt_model;

/* Build from the parameters (salts, epsilon_out, temperature).  Each salt is its smallest
 * neutral formula unit, as the library counts it (dg_salt_ions). */
void salt_model_from_params(const dg_calc_params *s, salt_model *out);

#endif /* HOST_SALT_H */
