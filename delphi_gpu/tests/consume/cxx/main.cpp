// The C API from C++: a Born ion's corrected reaction field against the analytic value.
#include <cmath>
#include <cstdio>

#include <delphi_gpu/delphi_gpu_calc.h>

int main() {
    const double xyz[3] = {0.1, 0.2, 0.3}, charge[1] = {1.0}, radius[1] = {2.0};
    dg_calc_params p;
    dg_calc_default_params(&p);
    p.scale = 2.0;
    p.epsilon_in = 1.0;
    p.energies = DG_ENERGY_REACTION_FIELD;
    p.solver.backend = DG_BACKEND_CPU;
    dg_calc c = nullptr;
    dg_calc_result r;
    int st = dg_calc_create(&c, &p);
    const dg_atoms atoms = {1, xyz, charge, radius};
    if (st == DG_OK) st = dg_calc_set_atoms(c, &atoms);
    if (st == DG_OK) st = dg_calc_run(c, &r);
    // epkt q^2 / (2a) (1/80 - 1) at 297.3342 K
    const double exact = -0.5 * 166804.4928 / 297.3342 / 2.0 * (1.0 - 1.0 / 80.0);
    if (st != DG_OK || std::fabs(r.energies.reaction_field - exact) > 0.02 * std::fabs(exact)) {
        std::fprintf(stderr, "consumer_cxx: %s (%g against %g)\n",
                     c ? dg_calc_last_error(c) : "create failed", r.energies.reaction_field, exact);
        dg_calc_destroy(c);
        return 1;
    }
    std::printf("consumer_cxx: reaction field %.3f kT (exact %.3f)\n", r.energies.reaction_field,
                exact);
    dg_calc_destroy(c);
    return 0;
}
