/* dg_calc_run_binding, on the CPU (argument "cpu", the default) or the CUDA backend ("cuda":
 * exit 77 without a device):
 *  - two point charges in a uniform eps 80 without salt bind by epkt q1 q2 / (80 d), and with
 *    0.1 M salt by the screened epkt q1 q2 exp(-d / lambda) / (80 d): the binding energy (the
 *    Coulombic difference plus the salt's part from the salt-free solves) and the grid
 *    energies' difference within 0.5 %;
 *  - two Born ions (radius 2 A, eps 2 inside, 80 outside) 10 A apart: the binding energy
 *    (Coulombic + corrected reaction field) and the grid energies' difference agree with each
 *    other within 0.5 % and with the solvent-screened interaction within 2 % (the cavities'
 *    corrections are of that order); each partner's reaction field is a Born ion's;
 *  - the Coulombic difference is the partners' exact pair sum and the self reaction cancels;
 *  - each partner's energies are those of a separate handle on the partner alone on the same
 *    grid (the binding grid fixed by grid_size and an absolute centre), bit for bit, and the
 *    handle ends holding the complex's run (a plain run after it gives the same) with the
 *    caller's energy selection;
 *  - each atom's part of the binding energy: the parts sum to it (with salt too), the two
 *    charges' parts are equal halves (exactly without salt);
 *  - refusals: a partner number other than 0 and 1, an empty partner, focusing, NULLs, before
 *    the atoms; a failing partner names the atom by its number among all the atoms. */
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
    p->scale = 2.0, p->perfil = 30.0;
    p->boundary = DG_BOUNDARY_COULOMBIC;
    p->energies = DG_ENERGY_GRID | DG_ENERGY_COULOMBIC | DG_ENERGY_REACTION_FIELD;
    p->solver.backend = test_backend;
    p->solver.precision = DG_PRECISION_DOUBLE;
    p->solver.max_change_tol = 1e-7;
}

static int run_binding(const dg_calc_params *p, const dg_atoms *atoms, const int *partner,
                       dg_calc_result *r, dg_calc_binding *b, double *atom_energy) {
    dg_calc c = NULL;
    int st = dg_calc_create(&c, p);
    if (st == DG_OK) st = dg_calc_set_atoms(c, atoms);
    if (st == DG_OK) st = dg_calc_run_binding(c, partner, r, b, atom_energy);
    if (st != DG_OK) fprintf(stderr, "binding: %s\n", dg_calc_last_error(c));
    dg_calc_destroy(c);
    return st;
}

/* Two charges of radius r at +-d/2 on x in a uniform medium: the grid energies' difference
 * against the (screened) Coulomb interaction in eps 80. */
static void uniform_pair(double salt) {
    const double d = 8.0, xyz[6] = {-0.5 * d, 0.2, 0.1, 0.5 * d, 0.2, 0.1};
    const double q[2] = {1.0, -1.0}, r[2] = {0.0, 0.0};
    const int partner[2] = {0, 1};
    dg_calc_params p;
    base_params(&p);
    p.epsilon_in = p.epsilon_out = 80.0;
    p.grid_size = 97, p.scale = 2.0, p.perfil = 0.0; /* 48 A: several Debye lengths */
    if (salt > 0) p.salt_count = 1, p.salts[0].concentration = salt;
    const dg_atoms atoms = test_atoms(2, xyz, q, r);
    dg_calc_result res;
    dg_calc_binding b;
    double part[2] = {NAN, NAN};
    CHECK(run_binding(&p, &atoms, partner, &res, &b, part) == DG_OK);
    const double epkt = epkt_at(p.temperature);
    const double lambda = salt > 0 ? DEBYE_CONSTANT * sqrt(p.temperature * 80.0 / salt) : INFINITY;
    const double want = epkt * q[0] * q[1] * exp(-d / lambda) / (80.0 * d);
    printf("uniform eps 80, salt %g M: binding %.5f kT (grid energies %.5f), screened Coulomb "
           "%.5f kT; Coulombic difference %.6f, salt %.5f\n",
           salt, b.energy, b.grid_energy, want, b.difference.coulombic, b.salt);
    CHECK(res.solve.outcome == DG_OUTCOME_CONVERGED);
    CHECK(b.solve[0].outcome == DG_OUTCOME_CONVERGED && b.solve[1].outcome == DG_OUTCOME_CONVERGED);
    CHECK_REL(b.energy, want, 0.005);
    CHECK_REL(b.grid_energy, want, 0.005);
    CHECK(b.grid_energy == b.difference.grid); /* linear: the grid energies alone */
    CHECK_REL(b.difference.coulombic, epkt * q[0] * q[1] / (80.0 * d), 1e-12);
    CHECK_NEAR(b.difference.reaction_field, 0.0, 1e-12); /* no dielectric boundary */
    /* each charge's part: half the interaction, the Coulombic half exactly without salt */
    CHECK_NEAR(part[0] + part[1], b.energy, 1e-12);
    CHECK_REL(part[0], part[1], salt > 0 ? 1e-3 : 1e-12);
    if (salt > 0) {
        CHECK_REL(b.salt, want - epkt * q[0] * q[1] / (80.0 * d), 0.01);
        for (int k = 0; k < 3; ++k)
            CHECK(b.salt_free_solve[k].outcome == DG_OUTCOME_CONVERGED);
    } else {
        CHECK(b.salt == 0.0 && b.salt_share[0] == 0.0 && b.salt_free_solve[0].iterations == 0);
    }
    CHECK(b.atoms[0] == 1 && b.atoms[1] == 1 && b.net_charge[0] == 1.0 && b.net_charge[1] == -1.0);
    CHECK(isnan(b.difference.ionic_total) && isnan(b.difference.solvation_two_run));
}

/* Two Born ions with their dielectric cavities. */
static void born_pair(void) {
    const double d = 10.0, xyz[6] = {-0.5 * d, 0.0, 0.3, 0.5 * d, 0.0, 0.3};
    const double q[2] = {1.0, -1.0}, r[2] = {2.0, 2.0};
    const int partner[2] = {1, 0};
    dg_calc_params p;
    base_params(&p);
    p.scale = 3.0, p.perfil = 40.0;
    const dg_atoms atoms = test_atoms(2, xyz, q, r);
    dg_calc_result res;
    dg_calc_binding b;
    double part[2] = {NAN, NAN};
    CHECK(run_binding(&p, &atoms, partner, &res, &b, part) == DG_OK);
    CHECK_NEAR(part[0] + part[1], b.energy, 1e-9);
    CHECK_REL(part[0], part[1], 0.02); /* mirror images but for the grid's sampling */
    const double epkt = epkt_at(p.temperature);
    const double screened = epkt * q[0] * q[1] / (80.0 * d);
    printf("Born pair (eps 2 / 80, %d^3): binding %.4f kT (Coulombic %.4f, reaction field "
           "%+.4f), by grid energies %.4f, screened Coulomb %.4f; self reaction %.3g\n",
           res.grid.n, b.energy, b.difference.coulombic, b.difference.reaction_field, b.grid_energy,
           screened, b.difference.self_reaction);
    CHECK(b.energy == b.difference.coulombic + b.difference.reaction_field && b.salt == 0.0);
    CHECK_REL(b.difference.coulombic, epkt * q[0] * q[1] / (2.0 * d), 1e-12);
    CHECK_NEAR(b.difference.self_reaction, 0.0, 1e-12);
    CHECK_REL(b.energy, screened, 0.02);
    CHECK_REL(b.grid_energy, screened, 0.02);
    CHECK_REL(b.energy, b.grid_energy, 0.005);
    /* The partner alone keeps its own cavity: its reaction field is a Born ion's. */
    const double born = -0.5 * epkt / 2.0 * (1.0 / 2.0 - 1.0 / 80.0);
    CHECK_REL(b.partner[0].reaction_field, born, 0.01);
    CHECK_REL(b.partner[1].reaction_field, born, 0.01);
}

/* A charged cluster split in two: each partner as a separate handle on the same grid. */
static void same_as_separate_runs(void) {
    const double xyz[18] = {0,   0,   0,    1.6, 0.2, 0,   -0.4, 1.5, 0.3,
                            4.5, 0.6, -0.6, 5.9, 1.1, 0.4, 4.8,  2.0, 1.2};
    const double q[6] = {0.5, -0.4, 0.3, -0.6, 0.45, -0.25}, r[6] = {1.7, 1.5, 1.6, 1.8, 0.0, 1.2};
    const int partner[6] = {0, 0, 0, 1, 1, 1};
    dg_calc_params p;
    base_params(&p);
    p.salt_count = 1, p.salts[0].concentration = 0.15;
    p.solvation_two_run = 1;
    dg_calc c = NULL;
    CHECK(dg_calc_create(&c, &p) == DG_OK);
    const dg_atoms atoms = test_atoms(6, xyz, q, r);
    CHECK(dg_calc_set_atoms(c, &atoms) == DG_OK);
    dg_calc_result res;
    dg_calc_binding b;
    double part[6];
    CHECK(dg_calc_run_binding(c, partner, &res, &b, part) == DG_OK, "%s", dg_calc_last_error(c));
    double part_sum = 0.0;
    for (int i = 0; i < 6; ++i)
        part_sum += part[i];
    CHECK_NEAR(part_sum, b.energy, 1e-9 * fabs(b.energy) + 1e-12);
    const int n = res.grid.n;
    double at_binding[2];
    CHECK(dg_calc_potentials_at(c, xyz, 2, at_binding) == DG_OK);
    /* a plain run after it: the complex again, the same numbers */
    dg_calc_result again;
    CHECK(dg_calc_run(c, &again) == DG_OK);
    CHECK(again.energies.grid == res.energies.grid &&
          again.energies.coulombic == b.bound.coulombic);
    CHECK(again.energies.reaction_field == b.bound.reaction_field);
    CHECK(again.boundary_points == res.boundary_points);
    double at_plain[2];
    CHECK(dg_calc_potentials_at(c, xyz, 2, at_plain) == DG_OK);
    CHECK(at_plain[0] == at_binding[0] && at_plain[1] == at_binding[1]);
    /* the caller's energy selection is kept: the grid energy alone */
    dg_calc_params grid_only = p;
    grid_only.energies = DG_ENERGY_GRID, grid_only.solvation_two_run = 0;
    CHECK(dg_calc_set_params(c, &grid_only) == DG_OK);
    dg_calc_binding g;
    CHECK(dg_calc_run_binding(c, partner, &again, &g, NULL) == DG_OK);
    CHECK(isfinite(g.energy) &&
          g.energy == b.energy - b.difference.reaction_field + g.difference.reaction_field);
    CHECK(dg_calc_run(c, &again) == DG_OK);
    CHECK(isnan(again.energies.coulombic) && isnan(again.energies.reaction_field));
    dg_calc_destroy(c);

    /* each partner on its own handle, the grid held where the binding put it */
    dg_calc_params fixed = p;
    fixed.grid_size = n, fixed.scale = res.grid.scale, fixed.perfil = 0.0;
    fixed.center_mode = DG_CENTER_ABSOLUTE;
    memcpy(fixed.center, res.grid.center, sizeof fixed.center);
    double sum_grid = 0.0;
    for (int k = 0; k < 2; ++k) {
        dg_calc s = NULL;
        CHECK(dg_calc_create(&s, &fixed) == DG_OK);
        const dg_atoms part = test_atoms(3, xyz + 9 * k, q + 3 * k, r + 3 * k);
        CHECK(dg_calc_set_atoms(s, &part) == DG_OK);
        dg_calc_result alone;
        CHECK(dg_calc_run(s, &alone) == DG_OK, "%s", dg_calc_last_error(s));
        CHECK(alone.grid.n == n && alone.grid.center[0] == res.grid.center[0]);
        const dg_calc_energies *e = &alone.energies, *f = &b.partner[k];
        CHECK(e->grid == f->grid && e->coulombic == f->coulombic);
        CHECK(e->reaction_field == f->reaction_field && e->self_reaction == f->self_reaction);
        CHECK(e->solvation_two_run == f->solvation_two_run);
        CHECK(alone.solve.iterations == b.solve[k].iterations);
        CHECK(alone.reference_solve.iterations == b.reference_solve[k].iterations);
        sum_grid += e->grid;
        dg_calc_destroy(s);
    }
    CHECK(b.grid_energy == res.energies.grid - b.partner[0].grid - b.partner[1].grid);
    CHECK_NEAR(b.grid_energy, res.energies.grid - sum_grid, 1e-9);
    CHECK(b.energy == b.difference.coulombic + b.difference.reaction_field + b.salt);
    CHECK(b.salt == b.salt_share[0] - b.salt_share[1] - b.salt_share[2] && b.salt != 0.0);
    CHECK(b.difference.solvation_two_run == b.bound.solvation_two_run -
                                                b.partner[0].solvation_two_run -
                                                b.partner[1].solvation_two_run);
    printf("cluster, 0.15 M, %d^3: binding %.4f kT (salt %.4f; grid energies %.4f; solvation "
           "two-run part %.4f)\n",
           n, b.energy, b.salt, b.grid_energy, b.difference.solvation_two_run);
}

static void refusals(void) {
    const double xyz[6] = {0, 0, 0, 3, 0, 0}, q[2] = {1, -1}, r[2] = {1.5, 1.5};
    dg_calc_params p;
    base_params(&p);
    dg_calc c = NULL;
    CHECK(dg_calc_create(&c, &p) == DG_OK);
    dg_calc_binding b;
    const int split[2] = {0, 1}, bad[2] = {0, 2}, one[2] = {1, 1};
    CHECK(dg_calc_run_binding(c, split, NULL, &b, NULL) == DG_ERR_STATE);
    CHECK(strstr(dg_calc_last_error(c), "dg_calc_set_atoms") != NULL);
    const dg_atoms atoms = test_atoms(2, xyz, q, r);
    CHECK(dg_calc_set_atoms(c, &atoms) == DG_OK);
    CHECK(dg_calc_run_binding(c, bad, NULL, &b, NULL) == DG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(dg_calc_last_error(c), "partner[1] = 2") != NULL, "%s", dg_calc_last_error(c));
    CHECK(dg_calc_run_binding(c, one, NULL, &b, NULL) == DG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(dg_calc_last_error(c), "partner 0 has no atoms") != NULL, "%s",
          dg_calc_last_error(c));
    CHECK(dg_calc_run_binding(c, NULL, NULL, &b, NULL) == DG_ERR_INVALID_ARGUMENT);
    CHECK(dg_calc_run_binding(c, split, NULL, NULL, NULL) == DG_ERR_INVALID_ARGUMENT);
    CHECK(dg_calc_run_binding(NULL, split, NULL, &b, NULL) == DG_ERR_INVALID_ARGUMENT);
    p.boundary = DG_BOUNDARY_FOCUSING;
    CHECK(dg_calc_set_params(c, &p) == DG_OK);
    CHECK(dg_calc_run_binding(c, split, NULL, &b, NULL) == DG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(dg_calc_last_error(c), "focusing") != NULL);
    /* a failing partner names the atom among all the atoms: one on the grid's face */
    base_params(&p);
    p.grid_size = 9, p.scale = 1.0, p.perfil = 0.0, p.center_mode = DG_CENTER_ABSOLUTE;
    CHECK(dg_calc_set_params(c, &p) == DG_OK);
    const double far[6] = {0, 0, 0, 3.8, 0, 0};
    const dg_atoms edge = test_atoms(2, far, q, r);
    CHECK(dg_calc_set_atoms(c, &edge) == DG_OK);
    const int swapped[2] = {1, 0};
    CHECK(dg_calc_run_binding(c, swapped, NULL, &b, NULL) == DG_ERR_INVALID_ARGUMENT);
    CHECK(strstr(dg_calc_last_error(c), "partner 0 alone") != NULL, "%s", dg_calc_last_error(c));
    CHECK(calc_state(c)->bad_atom == 1, "bad atom %ld", calc_state(c)->bad_atom);
    dg_calc_destroy(c);
}

int main(int argc, char **argv) {
    const int skip = test_backend_from_args(argc, argv, "test_calc_binding", &test_backend);
    if (skip) return skip;
    uniform_pair(0.0);
    uniform_pair(0.1);
    born_pair();
    same_as_separate_runs();
    refusals();
    CHECK_DONE();
}
