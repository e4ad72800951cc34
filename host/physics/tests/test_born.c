/* Born ion (q = +1 e, radius 2 A, eps_in 1 / eps_out 80) against the analytic solvation energy
 *     dG = -(epkt / 2) q^2 / a (1/eps_in - 1/eps_out)   (kT; = -332.06 q^2/(2a)(...) kcal/mol)
 * at 4 grid points per A: the corrected reaction field within 0.1 % (exact surface placement
 * and Gauss's law make it nearly grid-independent), the two-run grid-energy difference within
 * 2 % (it carries the O(h) error of the discretised sphere), Gauss's law for the induced
 * charge within 0.1 %. */
#include <string.h>

#include "calculation.h"
#include "check.h"
#include "physics_constants.h"
#include "test_support.h"

int main(void) {
    const double xyz[3] = {0, 0, 0}, q[1] = {1.0}, r[1] = {2.0};
    molecule ion = test_molecule(1, xyz, q, r);
    run_settings s;
    test_default_settings(&s);
    s.indi = 1.0, s.exdi = 80.0;
    s.scale = 4.0, s.scale_given = 1;
    s.perfil = 20.0, s.perfil_given = 1; /* 20 A box, 81^3 */
    s.bndcon = BC_COULOMBIC;
    s.maxc = 1e-6;
    s.precision = DG_PRECISION_DOUBLE;
    s.backend = DG_BACKEND_CPU;
    s.energy_grid = s.energy_solvation = s.energy_coulombic = 1;
    s.solvation_two_run = 1;
    calc_input in = {&s, &ion, NULL, 1, NULL};
    calc_result res;
    const int st = calc_run(&in, NULL, &res);
    if (st != CALC_OK) fprintf(stderr, "calc_run: %s\n", res.message);
    CHECK(st == CALC_OK);
    const double epkt = epkt_at(s.temperature);
    const double exact = -0.5 * epkt * 1.0 / 2.0 * (1.0 / 1.0 - 1.0 / 80.0);
    printf("grid %d^3, boundary points %zu, iterations %d (%s)\n", res.grid.n, res.boundary_count,
           res.solve.iterations, dg_outcome_string(res.solve.outcome));
    printf("induced charge %.6f e (Gauss %.6f)\n", res.rf.total_induced_charge,
           res.rf.expected_induced_charge);
    printf("corrected reaction field %.5f kT, two-run %.5f kT, analytic %.5f kT\n",
           res.energy_reaction_field, res.energy_solvation_two_run, exact);
    CHECK(res.grid.n == 81);
    CHECK(res.solve.outcome == DG_OUTCOME_CONVERGED);
    CHECK_REL(res.rf.total_induced_charge, 1.0 / 80.0 - 1.0, 1e-3);
    CHECK_REL(res.energy_reaction_field, exact, 1e-3);
    CHECK_REL(res.energy_solvation_two_run, exact, 0.02);
    CHECK(res.energy_coulombic == 0.0); /* one charge: no pairs */
    CHECK(res.site_count == 1 && isfinite(res.site_potential[0]));
    calc_result_free(&res);
    test_molecule_free(&ion);
    CHECK_DONE();
}
