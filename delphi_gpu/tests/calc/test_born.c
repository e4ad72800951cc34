/* Born ion (q = +1 e, radius 2 A, eps_in 1 / eps_out 80) against the analytic solvation energy
 *     dG = -(epkt / 2) q^2 / a (1/eps_in - 1/eps_out)   (kT; = -332.06 q^2/(2a)(...) kcal/mol)
 * at 4 grid points per A: the corrected reaction field within 0.1 % (exact surface placement
 * and Gauss's law make it nearly grid-independent), the two-run grid-energy difference within
 * 2 % (it carries the O(h) error of the discretised sphere), Gauss's law for the induced
 * charge within 0.1 %. */
#include <string.h>

#include <math.h>
#include <stdlib.h>
#include "check.h"
#include "physics_constants.h"
#include "test_support.h"

int main(void) {
    const double xyz[3] = {0, 0, 0}, q[1] = {1.0}, r[1] = {2.0};
    dg_calc_params s;
    test_default_params(&s);
    s.epsilon_in = 1.0, s.epsilon_out = 80.0;
    s.scale = 4.0, s.perfil = 20.0; /* 20 A box, 81^3 */
    s.boundary = DG_BOUNDARY_COULOMBIC;
    s.solver.max_change_tol = 1e-6;
    s.solver.precision = DG_PRECISION_DOUBLE;
    s.solver.backend = DG_BACKEND_CPU;
    s.energies = DG_ENERGY_GRID | DG_ENERGY_REACTION_FIELD | DG_ENERGY_COULOMBIC;
    s.solvation_two_run = 1;
    dg_calc calc = NULL;
    int st = dg_calc_create(&calc, &s);
    const dg_atoms ion = test_atoms(1, xyz, q, r);
    if (st == DG_OK) st = dg_calc_set_atoms(calc, &ion);
    dg_calc_result res;
    if (st == DG_OK) st = dg_calc_run(calc, &res);
    if (st != DG_OK) fprintf(stderr, "dg_calc: %s\n", dg_calc_last_error(calc));
    CHECK(st == DG_OK);
    const double epkt = epkt_at(s.temperature);
    const double exact = -0.5 * epkt * 1.0 / 2.0 * (1.0 / 1.0 - 1.0 / 80.0);
    const dg_calc_energies *e = &res.energies;
    printf("grid %d^3, boundary points %ld, iterations %d (%s)\n", res.grid.n, res.boundary_points,
           res.solve.iterations, dg_outcome_string(res.solve.outcome));
    printf("induced charge %.6f e (Gauss %.6f)\n", res.induced_charge, res.expected_induced_charge);
    printf("corrected reaction field %.5f kT, two-run %.5f kT, analytic %.5f kT\n",
           e->reaction_field, e->solvation_two_run, exact);
    CHECK(res.grid.n == 81);
    CHECK(res.solve.outcome == DG_OUTCOME_CONVERGED);
    CHECK(res.reference_solve.outcome == DG_OUTCOME_CONVERGED);
    CHECK_REL(res.induced_charge, 1.0 / 80.0 - 1.0, 1e-3);
    CHECK_REL(e->reaction_field, exact, 1e-3);
    CHECK_REL(e->solvation_two_run, exact, 0.02);
    CHECK_NEAR(e->solvation_two_run, e->grid - e->grid_reference, 1e-12);
    CHECK(e->coulombic == 0.0); /* one charge: no pairs */
    CHECK(isnan(e->ionic_total));
    /* The potential at the ion and on the map agree; outside the grid is NaN. */
    const double points[6] = {0, 0, 0, 100, 0, 0};
    double at[2];
    CHECK(dg_calc_potentials_at(calc, points, 2, at) == DG_OK);
    CHECK(isfinite(at[0]) && at[0] > 0 && isnan(at[1]));
    double *phi = malloc(81 * 81 * 81 * sizeof *phi);
    CHECK(phi && dg_calc_potential_d(calc, phi) == DG_OK);
    CHECK_NEAR(phi[40 + 81 * (40 + 81 * 40)], at[0], 1e-12);
    free(phi);
    dg_calc_destroy(calc);
    CHECK_DONE();
}
