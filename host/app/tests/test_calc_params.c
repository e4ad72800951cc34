/* The program's settings -> the calculation layer's parameters (calc_params.h): DelPhi's
 * iteration rules (linit, autoc), relfac and relpar, nonit, salts, grid and energies. */
#include <math.h>
#include <string.h>

#include "app_test.h"
#include "calc_params.h"
#include "io_settings.h"

int main(void) {
    run_settings s;
    dg_options o;
    /* Automatic mode: iteration estimate, run until a criterion holds (library rule -1). */
    settings_defaults(&s);
    s.maxc = 1e-4, s.conint = 5, s.confra = 2;
    calc_options_from_settings(&s, &o);
    CHECK(o.iterations == 0 && o.run_until_converged == -1);
    CHECK(o.max_change_tol == 1e-4 && o.rms_change_tol == 0 && o.norm_change_tol == 0);
    CHECK(o.check_interval == 5 && o.check_stride == 2);
    CHECK(o.spectral_radius == 0.0 && o.relpar == 0.0);
    CHECK(o.equation == DG_EQUATION_AUTO);
    /* linit switches automatic mode off; autoc= turns it on again. */
    s.linit = 300, s.linit_given = 1, s.autoc = 0;
    calc_options_from_settings(&s, &o);
    CHECK(o.iterations == 300 && o.run_until_converged == 0);
    s.autoc = 1;
    calc_options_from_settings(&s, &o);
    CHECK(o.iterations == 300 && o.run_until_converged == 1);
    /* relfac is the spectral radius; relpar fixes the nonlinear relaxation. */
    s.relfac = 0.99, s.relfac_given = 1, s.relpar = 0.5, s.relpar_given = 1;
    s.backend = DG_BACKEND_CPU, s.precision = DG_PRECISION_FLOAT, s.threads = 3;
    calc_options_from_settings(&s, &o);
    CHECK(o.spectral_radius == 0.99 && o.relpar == 0.5 && o.omega == 0.0);
    /* relfac 0 is DelPhi's spectral radius 0: omega 1 (the library's 0 would estimate it) */
    s.relfac = 0.0;
    calc_options_from_settings(&s, &o);
    CHECK(o.omega == 1.0);
    s.relfac = 0.99;
    CHECK(o.backend == DG_BACKEND_CPU && o.precision == DG_PRECISION_FLOAT && o.num_threads == 3);
    /* nonit <= 20 becomes 30 blocks, as DelPhi; larger values stay. */
    s.nonit = 10;
    calc_options_from_settings(&s, &o);
    CHECK(o.equation == DG_EQUATION_NONLINEAR_PB && o.nonlinear_blocks == 30);
    s.nonit = 45;
    calc_options_from_settings(&s, &o);
    CHECK(o.nonlinear_blocks == 45);

    /* The whole parameter set. */
    dg_calc_params p;
    settings_defaults(&s);
    s.salt = 0.15, s.salt2 = 0.05, s.valence[2] = 2;
    s.energy_coulombic = s.energy_solvation = 1;
    calc_params_from_settings(&s, &p);
    CHECK(p.struct_size == (int)sizeof p && p.version == DG_CALC_PARAMS_VERSION);
    CHECK(p.salt_count == 2 && p.salts[0].concentration == 0.15 && p.salts[1].cation_valence == 2);
    CHECK(p.energies == (DG_ENERGY_GRID | DG_ENERGY_COULOMBIC | DG_ENERGY_REACTION_FIELD));
    CHECK(p.grid_size == 0 && p.scale == s.scale && p.perfil == 0.0); /* perfil not given */
    CHECK(p.epsilon_in == s.indi && p.epsilon_out == s.exdi && p.boundary == s.bndcon);
    /* gsize alone: the scale follows from gsize and perfil (scale 0). */
    s.gsize = 65, s.gsize_given = 1, s.perfil = 70, s.perfil_given = 1;
    calc_params_from_settings(&s, &p);
    CHECK(p.grid_size == 65 && p.scale == 0.0 && p.perfil == 70);
    dg_calc c = NULL;
    CHECK(dg_calc_create(&c, &p) == DG_OK);
    dg_calc_destroy(c);
    CHECK_DONE();
}
