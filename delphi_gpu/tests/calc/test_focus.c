/* Focusing in one run (dg_calc_params coarse_scale / coarse_perfil), on the CPU (argument
 * "cpu", the default) or the CUDA backend ("cuda": exit 77 without a device):
 *  - the same as the two runs it replaces, bit for bit: a coarse handle on the coarse grid (its
 *    size, scale and centre as reported) and a focused handle given that potential with
 *    dg_calc_set_focus_map; energies, iterations, the potential at every point, with salt and
 *    a solvation two-run, and in a nonlinear run (Newton's method on both grids);
 *  - the coarse grid: the grid's size and centre, the scale from coarse_perfil (the molecule's
 *    farthest reach from the centre, doubled, fills that percent) or coarse_scale, its solve
 *    converged and timed; none without focusing;
 *  - physics: in a uniform eps 80 a charge 20 A away, outside a 16 A grid, reaches it through
 *    the boundary values alone: the potential at a point next to the charge inside, minus that
 *    of the inside charge alone, is the outside charge's Coulomb potential within 2 % (zero
 *    boundary values on the coarse grid's faces lose part of it); new positions may move it
 *    within the coarse grid (the same energies as a fresh handle) but not out of it;
 *  - binding with focusing: two charges in a uniform eps 80 with 0.1 M salt on a tight grid
 *    bind by the screened Coulomb law within 1 %, the salt-free solves on the coarse grid
 *    too; each partner's energies are those of a separate focused handle, bit for bit;
 *  - refusals, naming the field: both coarse fields, a negative or out-of-range one, focusing
 *    from a map as well, periodic axes, a coarse scale not below the grid's, a binding with a
 *    charge outside the grid. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calculation.h"
#include "check.h"
#include "physics_constants.h"
#include "test_support.h"

static int test_backend = DG_BACKEND_CPU;

static void base_params(dg_calc_params *p) {
    dg_calc_default_params(p);
    p->scale = 2.0, p->perfil = 80.0;
    p->boundary = DG_BOUNDARY_DIPOLAR;
    p->energies = DG_ENERGY_GRID | DG_ENERGY_COULOMBIC | DG_ENERGY_REACTION_FIELD;
    p->solver.backend = test_backend;
    p->solver.precision = DG_PRECISION_DOUBLE;
    p->solver.max_change_tol = 1e-7;
}

/* A small charged cluster (eps 2 inside). */
static const double cluster_xyz[18] = {0,   0,   0,    1.6, 0.2, 0,   -0.4, 1.5, 0.3,
                                       4.5, 0.6, -0.6, 5.9, 1.1, 0.4, 4.8,  2.0, 1.2};
static const double cluster_q[6] = {0.5, -0.4, 0.3, -0.6, 0.45, -0.25};
static const double cluster_r[6] = {1.7, 1.5, 1.6, 1.8, 0.0, 1.2};

static double *potential(dg_calc c, int n) {
    double *phi = malloc((size_t)n * n * n * sizeof *phi);
    CHECK(phi && dg_calc_potential_d(c, phi) == DG_OK, "%s", dg_calc_last_error(c));
    return phi;
}

/* Focusing in one run against a coarse handle and a focused handle (nonlinear: Newton's method
 * on both grids, without the two-run reference). */
static void same_as_two_runs(int nonlinear) {
    dg_calc_params p;
    base_params(&p);
    p.salt_count = 1, p.salts[0].concentration = 0.15;
    p.solvation_two_run = !nonlinear;
    if (nonlinear) {
        p.solver.equation = DG_EQUATION_NONLINEAR_PB;
        p.salts[0].concentration = 0.5;
        p.energies |= DG_ENERGY_IONIC;
        p.solver.max_change_tol = 1e-6; /* Newton's steps on 21^3 stall near 1e-7, focused or not */
    }
    p.coarse_perfil = 25.0;
    const dg_atoms atoms = test_atoms(6, cluster_xyz, cluster_q, cluster_r);
    dg_calc c = NULL;
    CHECK(dg_calc_create(&c, &p) == DG_OK, "%s", dg_calc_last_error(c));
    CHECK(dg_calc_set_atoms(c, &atoms) == DG_OK, "%s", dg_calc_last_error(c));
    dg_calc_result one;
    CHECK(dg_calc_run(c, &one) == DG_OK, "%s", dg_calc_last_error(c));
    const int n = one.grid.n;
    double *phi_one = potential(c, n);
    /* the coarse grid: the grid's size and centre; the molecule's reach fills 25 % of it */
    CHECK(one.coarse_grid.n == n);
    for (int a = 0; a < 3; ++a)
        CHECK(one.coarse_grid.center[a] == one.grid.center[a]);
    double reach = 0.0;
    for (int i = 0; i < 6; ++i)
        for (int a = 0; a < 3; ++a)
            reach = fmax(reach, fabs(cluster_xyz[3 * i + a] - one.grid.center[a]) + cluster_r[i]);
    CHECK_REL(one.coarse_grid.scale, (n - 1) * 25.0 / (100.0 * 2.0 * reach), 1e-12);
    CHECK(one.coarse_grid.scale < 0.5 * one.grid.scale);
    CHECK(one.coarse_solve.outcome == DG_OUTCOME_CONVERGED);
    CHECK(one.solve.outcome == DG_OUTCOME_CONVERGED, "%s (max change %g)",
          dg_outcome_string(one.solve.outcome), one.solve.max_change);
    CHECK(one.timing.coarse > 0.0 && one.timing.total >= one.timing.coarse);
    CHECK(one.atoms_outside == 0);
    printf("cluster, %s: grid %d^3 scale %.4f, coarse scale %.4f (%d iterations, then %d); "
           "grid energy %.6f, reaction field %.6f, two-run %.6f kT\n",
           nonlinear ? "nonlinear, 0.5 M" : "0.15 M", n, one.grid.scale, one.coarse_grid.scale,
           one.coarse_solve.iterations, one.solve.iterations, one.energies.grid,
           one.energies.reaction_field, one.energies.solvation_two_run);
    /* a second run on the same handle: the same numbers */
    dg_calc_result again;
    CHECK(dg_calc_run(c, &again) == DG_OK);
    CHECK(again.energies.grid == one.energies.grid &&
          again.coarse_solve.iterations == one.coarse_solve.iterations);

    /* the two runs it replaces */
    dg_calc_params coarse = p;
    coarse.coarse_perfil = 0.0, coarse.solvation_two_run = 0;
    coarse.grid_size = n, coarse.scale = one.coarse_grid.scale, coarse.perfil = 0.0;
    coarse.center_mode = DG_CENTER_ABSOLUTE;
    memcpy(coarse.center, one.grid.center, sizeof coarse.center);
    dg_calc h = NULL;
    CHECK(dg_calc_create(&h, &coarse) == DG_OK);
    CHECK(dg_calc_set_atoms(h, &atoms) == DG_OK, "%s", dg_calc_last_error(h));
    dg_calc_result first;
    CHECK(dg_calc_run(h, &first) == DG_OK, "%s", dg_calc_last_error(h));
    CHECK(first.grid.scale == one.coarse_grid.scale && first.grid.n == n);
    CHECK(first.solve.iterations == one.coarse_solve.iterations);
    double *phi_coarse = potential(h, n);
    dg_calc_destroy(h);
    dg_calc_params fine = p;
    fine.coarse_perfil = 0.0, fine.boundary = DG_BOUNDARY_FOCUSING;
    fine.grid_size = n, fine.scale = one.grid.scale, fine.perfil = 0.0;
    fine.center_mode = DG_CENTER_ABSOLUTE;
    memcpy(fine.center, one.grid.center, sizeof fine.center);
    CHECK(dg_calc_create(&h, &fine) == DG_OK);
    CHECK(dg_calc_set_atoms(h, &atoms) == DG_OK);
    /* A map whose centre or values are not numbers is refused (it would place the map nowhere
       and the faces took its corner values), naming them. */
    const double nan_center[3] = {first.grid.center[0], NAN, first.grid.center[2]};
    CHECK(dg_calc_set_focus_map(h, phi_coarse, n, first.grid.scale, nan_center) ==
              DG_ERR_NONFINITE_INPUT &&
          strstr(dg_calc_last_error(h), "center[1]"));
    const double kept = phi_coarse[5];
    phi_coarse[5] = NAN;
    CHECK(dg_calc_set_focus_map(h, phi_coarse, n, first.grid.scale, first.grid.center) ==
              DG_ERR_NONFINITE_INPUT &&
          strstr(dg_calc_last_error(h), "(5,0,0)"));
    phi_coarse[5] = kept;
    CHECK(dg_calc_set_focus_map(h, phi_coarse, n, first.grid.scale, first.grid.center) == DG_OK);
    dg_calc_result second;
    CHECK(dg_calc_run(h, &second) == DG_OK, "%s", dg_calc_last_error(h));
    CHECK(second.coarse_grid.n == 0 && second.timing.coarse == 0.0);
    CHECK(second.solve.iterations == one.solve.iterations);
    CHECK(second.energies.grid == one.energies.grid);
    CHECK(second.energies.coulombic == one.energies.coulombic);
    CHECK(second.energies.reaction_field == one.energies.reaction_field);
    CHECK(second.energies.solvation_two_run == one.energies.solvation_two_run ||
          (isnan(second.energies.solvation_two_run) && isnan(one.energies.solvation_two_run)));
    if (nonlinear) {
        CHECK(one.solve.nonlinear_blocks > 0 && one.coarse_solve.nonlinear_blocks > 0);
        CHECK(isfinite(one.energies.ionic_total) &&
              second.energies.ionic_total == one.energies.ionic_total);
    }
    double *phi_two = potential(h, n);
    size_t differ = 0;
    for (size_t w = 0; w < (size_t)n * n * n; ++w)
        differ += phi_two[w] != phi_one[w];
    CHECK(differ == 0, "%zu of the %d^3 points differ", differ, n);
    /* focusing from a map: an atom may move off the grid; its charge then acts through the
       map's boundary values (counted as outside) */
    double away[18];
    memcpy(away, cluster_xyz, sizeof away);
    away[0] += 50.0;
    CHECK(dg_calc_set_positions(h, away) == DG_OK, "%s", dg_calc_last_error(h));
    CHECK(dg_calc_run(h, &second) == DG_OK, "%s", dg_calc_last_error(h));
    CHECK(second.atoms_outside == 1, "%ld atoms outside", second.atoms_outside);
    dg_calc_destroy(h);
    free(phi_coarse), free(phi_two), free(phi_one);

    if (nonlinear) {
        dg_calc_destroy(c);
        return;
    }
    /* coarse_scale instead; then no focusing on the same handle */
    p.coarse_perfil = 0.0, p.coarse_scale = 0.5;
    CHECK(dg_calc_set_params(c, &p) == DG_OK, "%s", dg_calc_last_error(c));
    CHECK(dg_calc_run(c, &again) == DG_OK, "%s", dg_calc_last_error(c));
    CHECK(again.coarse_grid.scale == 0.5 && again.coarse_grid.n == n);
    CHECK_REL(again.energies.grid, one.energies.grid, 1e-3);
    p.coarse_scale = 0.0;
    CHECK(dg_calc_set_params(c, &p) == DG_OK);
    CHECK(dg_calc_run(c, &again) == DG_OK);
    CHECK(again.coarse_grid.n == 0 && again.coarse_solve.iterations == 0);
    CHECK(again.timing.coarse == 0.0);
    dg_calc_destroy(c);
}

/* The potential of a charge outside the grid, through the boundary values. */
static void charge_outside(void) {
    const double xyz[6] = {0, 0, 0, 20, 0, 0}, q[2] = {1.0, -1.0}, r[2] = {1.5, 1.5};
    const double site[3] = {3.0, 0.5, 0.0};
    dg_calc_params p;
    base_params(&p);
    p.epsilon_in = p.epsilon_out = 80.0;
    p.grid_size = 33, p.scale = 2.0, p.perfil = 0.0; /* 16 A across, about the first charge */
    p.center_mode = DG_CENTER_ABSOLUTE;
    p.boundary = DG_BOUNDARY_COULOMBIC;
    p.coarse_scale = 0.5; /* 64 A across */
    double with_both = NAN, alone = NAN;
    dg_calc c = NULL;
    dg_calc_result res;
    CHECK(dg_calc_create(&c, &p) == DG_OK);
    const dg_atoms both = test_atoms(2, xyz, q, r);
    CHECK(dg_calc_set_atoms(c, &both) == DG_OK, "%s", dg_calc_last_error(c));
    CHECK(dg_calc_run(c, &res) == DG_OK, "%s", dg_calc_last_error(c));
    CHECK(res.atoms_outside == 1, "%ld atoms outside", res.atoms_outside);
    CHECK(dg_calc_potentials_at(c, site, 1, &with_both) == DG_OK);
    /* new positions: the outside charge may move within the coarse grid, not past it */
    const double moved[6] = {0, 0, 0, 24, 1, 0}, gone[6] = {0, 0, 0, 40, 0, 0};
    CHECK(dg_calc_set_positions(c, moved) == DG_OK, "%s", dg_calc_last_error(c));
    dg_calc_result after;
    CHECK(dg_calc_run(c, &after) == DG_OK, "%s", dg_calc_last_error(c));
    dg_calc fresh = NULL;
    CHECK(dg_calc_create(&fresh, &p) == DG_OK);
    const dg_atoms moved_atoms = test_atoms(2, moved, q, r);
    CHECK(dg_calc_set_atoms(fresh, &moved_atoms) == DG_OK);
    dg_calc_result fresh_res;
    CHECK(dg_calc_run(fresh, &fresh_res) == DG_OK);
    CHECK(fresh_res.energies.grid == after.energies.grid &&
          fresh_res.coarse_solve.iterations == after.coarse_solve.iterations);
    dg_calc_destroy(fresh);
    CHECK(dg_calc_set_positions(c, gone) == DG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(dg_calc_last_error(c), "atom 2 at 40.000 0.000 0.000 A leaves the interior of "
                                        "the 33^3 coarse grid") != NULL,
          "%s", dg_calc_last_error(c));
    CHECK(dg_calc_set_positions(c, xyz) == DG_OK);
    /* the inside charge alone, with its exact (Coulombic) boundary values */
    p.coarse_scale = 0.0;
    CHECK(dg_calc_set_params(c, &p) == DG_OK);
    const dg_atoms inside = test_atoms(1, xyz, q, r);
    CHECK(dg_calc_set_atoms(c, &inside) == DG_OK);
    CHECK(dg_calc_run(c, &res) == DG_OK, "%s", dg_calc_last_error(c));
    CHECK(dg_calc_potentials_at(c, site, 1, &alone) == DG_OK);
    /* both charges, zero boundary values on the 16 A grid and no focusing */
    p.boundary = DG_BOUNDARY_ZERO;
    p.coarse_scale = 0.5;
    CHECK(dg_calc_set_params(c, &p) == DG_OK);
    CHECK(dg_calc_set_atoms(c, &both) == DG_OK);
    CHECK(dg_calc_run(c, &res) == DG_OK, "%s", dg_calc_last_error(c));
    double zero_coarse = NAN;
    CHECK(dg_calc_potentials_at(c, site, 1, &zero_coarse) == DG_OK);
    dg_calc_destroy(c);
    const double dx = site[0] - xyz[3], d = sqrt(dx * dx + site[1] * site[1]);
    const double want = epkt_at(p.temperature) * q[1] / (80.0 * d);
    printf("charge 17 A outside a 16 A grid: its potential through the focused boundary %.5f "
           "kT/e, Coulomb %.5f (zero boundary values on the coarse grid: %.5f)\n",
           with_both - alone, want, zero_coarse - alone);
    CHECK_REL(with_both - alone, want, 0.02);
    /* the coarse grid's own boundary values matter too: zero ones there lose some of it */
    CHECK(fabs(zero_coarse - alone - want) > fabs(with_both - alone - want));
}

/* Binding with focusing: two charges in a uniform medium with salt on a tight grid. */
static void binding(void) {
    const double d = 8.0, xyz[6] = {-0.5 * d, 0.2, 0.1, 0.5 * d, 0.2, 0.1};
    const double q[2] = {1.0, -1.0}, r[2] = {0.0, 0.0};
    const int partner[2] = {0, 1};
    dg_calc_params p;
    base_params(&p);
    p.epsilon_in = p.epsilon_out = 80.0;
    p.salt_count = 1, p.salts[0].concentration = 0.1;
    p.boundary = DG_BOUNDARY_COULOMBIC;
    p.perfil = 70.0;
    p.coarse_perfil = 15.0;
    dg_calc c = NULL;
    CHECK(dg_calc_create(&c, &p) == DG_OK);
    const dg_atoms atoms = test_atoms(2, xyz, q, r);
    CHECK(dg_calc_set_atoms(c, &atoms) == DG_OK, "%s", dg_calc_last_error(c));
    dg_calc_result res;
    dg_calc_binding b;
    CHECK(dg_calc_run_binding(c, partner, &res, &b, NULL) == DG_OK, "%s", dg_calc_last_error(c));
    const double epkt = epkt_at(p.temperature);
    const double lambda = DEBYE_CONSTANT * sqrt(p.temperature * 80.0 / 0.1);
    const double want = epkt * q[0] * q[1] * exp(-d / lambda) / (80.0 * d);
    printf("binding with focusing (%d^3, scale %.3f from %.3f; 0.1 M): %.5f kT (salt %.5f), "
           "screened Coulomb %.5f\n",
           res.grid.n, res.grid.scale, res.coarse_grid.scale, b.energy, b.salt, want);
    CHECK(res.coarse_grid.n == res.grid.n);
    CHECK_REL(b.energy, want, 0.01);
    /* the same binding without focusing on a grid 4.7 times as wide */
    dg_calc_params wide = p;
    wide.coarse_perfil = 0.0, wide.perfil = 15.0;
    dg_calc w = NULL;
    CHECK(dg_calc_create(&w, &wide) == DG_OK);
    CHECK(dg_calc_set_atoms(w, &atoms) == DG_OK);
    dg_calc_result wide_res;
    dg_calc_binding wb;
    CHECK(dg_calc_run_binding(w, partner, &wide_res, &wb, NULL) == DG_OK, "%s",
          dg_calc_last_error(w));
    printf("  without focusing on %d^3: %.5f kT (salt %.5f)\n", wide_res.grid.n, wb.energy,
           wb.salt);
    CHECK_REL(b.energy, wb.energy, 0.005);
    dg_calc_destroy(w);
    for (int k = 0; k < 3; ++k)
        CHECK(b.coarse_salt_free_solve[k].outcome == DG_OUTCOME_CONVERGED, "state %d", k);
    for (int k = 0; k < 2; ++k)
        CHECK(b.coarse_solve[k].outcome == DG_OUTCOME_CONVERGED && b.coarse_solve[k].iterations);
    CHECK(res.coarse_solve.outcome == DG_OUTCOME_CONVERGED);
    /* partner 0 on its own focused handle, the grids held where the binding put them */
    dg_calc_params fixed = p;
    fixed.grid_size = res.grid.n, fixed.scale = res.grid.scale, fixed.perfil = 0.0;
    fixed.center_mode = DG_CENTER_ABSOLUTE;
    memcpy(fixed.center, res.grid.center, sizeof fixed.center);
    fixed.coarse_perfil = 0.0, fixed.coarse_scale = res.coarse_grid.scale;
    dg_calc s = NULL;
    CHECK(dg_calc_create(&s, &fixed) == DG_OK);
    const dg_atoms one = test_atoms(1, xyz, q, r);
    CHECK(dg_calc_set_atoms(s, &one) == DG_OK, "%s", dg_calc_last_error(s));
    dg_calc_result alone;
    CHECK(dg_calc_run(s, &alone) == DG_OK, "%s", dg_calc_last_error(s));
    CHECK(alone.coarse_grid.scale == res.coarse_grid.scale);
    CHECK(alone.energies.grid == b.partner[0].grid);
    CHECK(alone.solve.iterations == b.solve[0].iterations);
    CHECK(alone.coarse_solve.iterations == b.coarse_solve[0].iterations);
    dg_calc_destroy(s);
    /* a charge outside the grid is refused: the energies would miss it */
    p.perfil = 0.0, p.grid_size = 17, p.scale = 2.0, p.center_mode = DG_CENTER_ABSOLUTE;
    memset(p.center, 0, sizeof p.center);
    p.center[0] = xyz[0];
    CHECK(dg_calc_set_params(c, &p) == DG_OK, "%s", dg_calc_last_error(c));
    CHECK(dg_calc_run_binding(c, partner, &res, &b, NULL) == DG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(dg_calc_last_error(c), "every charge must lie inside the grid") != NULL, "%s",
          dg_calc_last_error(c));
    dg_calc_destroy(c);
}

static void refused(dg_calc_params *p, int status, const char *words) {
    dg_calc c = NULL;
    const int st = dg_calc_create(&c, p);
    CHECK(st == status, "status %d (want %d): %s", st, status, dg_calc_last_error(c));
    CHECK(strstr(dg_calc_last_error(c), words) != NULL, "'%s' not in: %s", words,
          dg_calc_last_error(c));
    dg_calc_destroy(c);
}

static void refusals(void) {
    dg_calc_params p;
    base_params(&p);
    p.coarse_scale = 0.5, p.coarse_perfil = 20.0;
    refused(&p, DG_ERR_INVALID_ARGUMENT, "give one of them");
    base_params(&p);
    p.coarse_scale = -1.0;
    refused(&p, DG_ERR_INVALID_ARGUMENT, "coarse_scale = -1");
    base_params(&p);
    p.coarse_perfil = 100.0;
    refused(&p, DG_ERR_INVALID_ARGUMENT, "coarse_perfil = 100");
    base_params(&p);
    p.coarse_scale = NAN;
    refused(&p, DG_ERR_INVALID_ARGUMENT, "coarse_scale");
    base_params(&p);
    p.coarse_perfil = 20.0, p.boundary = DG_BOUNDARY_FOCUSING;
    refused(&p, DG_ERR_INVALID_ARGUMENT, "boundary = 3");
    base_params(&p);
    p.coarse_perfil = 20.0, p.solver.periodic = DG_PERIODIC_Z;
    refused(&p, DG_ERR_UNSUPPORTED, "periodic");
    /* not coarser than the grid: refused when the grids are placed */
    base_params(&p);
    p.scale = 1.0, p.coarse_scale = 1.0;
    dg_calc c = NULL;
    CHECK(dg_calc_create(&c, &p) == DG_OK);
    const dg_atoms atoms = test_atoms(6, cluster_xyz, cluster_q, cluster_r);
    CHECK(dg_calc_set_atoms(c, &atoms) == DG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(dg_calc_last_error(c), "coarse_scale 1 is not below the grid's scale 1") != NULL,
          "%s", dg_calc_last_error(c));
    p.coarse_scale = 0.0, p.coarse_perfil = 90.0; /* the molecule fills 80 % already */
    CHECK(dg_calc_set_params(c, &p) == DG_OK);    /* no atoms held: the failed ones were not kept */
    CHECK(dg_calc_set_atoms(c, &atoms) == DG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(dg_calc_last_error(c), "lower coarse_perfil") != NULL, "%s",
          dg_calc_last_error(c));
    dg_calc_destroy(c);
}

int main(int argc, char **argv) {
    const int skip = test_backend_from_args(argc, argv, "test_calc_focus", &test_backend);
    if (skip) return skip;
    same_as_two_runs(0);
    same_as_two_runs(1);
    charge_outside();
    binding();
    refusals();
    CHECK_DONE();
}
