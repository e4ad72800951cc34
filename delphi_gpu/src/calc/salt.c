/* Salt model: ionic strength and Debye length (DelPhi's constants) consistent with the solver
 * library. */
#include "salt.h"

#include <math.h>
#include <string.h>

#include "physics_constants.h"
#include "solver_internal.h"

void salt_model_from_params(const dg_calc_params *s, salt_model *out) {
    memset(out, 0, sizeof *out);
    for (int k = 0; k < s->salt_count && k < 2; ++k) {
        const double conc = s->salts[k].concentration;
        if (!(conc > 0.0)) continue;
        dg_salt *salt = &out->salts[out->salt_count++];
        *salt = s->salts[k];
        /* as the solver counts the salt, so that the boundary values and energies use its
           ionic strength */
        double c_cation, c_anion;
        dg_salt_ions(salt, &c_cation, &c_anion);
        out->ions[out->ion_count++] =
            (ion_species){c_cation * IONS_PER_A3_PER_MOLAR, salt->cation_valence};
        out->ions[out->ion_count++] =
            (ion_species){c_anion * IONS_PER_A3_PER_MOLAR, -salt->anion_valence};
        out->ionic_strength += 0.5 * (c_cation * salt->cation_valence * salt->cation_valence +
                                      c_anion * salt->anion_valence * salt->anion_valence);
    }
    out->debye_length =
        out->ionic_strength > 0.0
            ? DEBYE_CONSTANT * sqrt(s->temperature * s->epsilon_out / out->ionic_strength)
            : INFINITY;
}
