/* The electrostatic binding of two partners (dg_calc_run_binding): each partner alone, then
 * the complex, all on the complex's grid and the handle's solver. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calculation.h"

/* complex - a - b for every term (NaN where one of them was not computed). */
static double minus(double whole, double a, double b) {
    return whole - a - b;
}

static void energy_difference(const dg_calc_energies *x, const dg_calc_energies *a,
                              const dg_calc_energies *b, dg_calc_energies *d) {
    d->grid = minus(x->grid, a->grid, b->grid);
    d->coulombic = minus(x->coulombic, a->coulombic, b->coulombic);
    d->reaction_field = minus(x->reaction_field, a->reaction_field, b->reaction_field);
    d->self_reaction = minus(x->self_reaction, a->self_reaction, b->self_reaction);
    d->total_reaction_field =
        minus(x->total_reaction_field, a->total_reaction_field, b->total_reaction_field);
    d->ionic_rho_phi = minus(x->ionic_rho_phi, a->ionic_rho_phi, b->ionic_rho_phi);
    d->ionic_osmotic = minus(x->ionic_osmotic, a->ionic_osmotic, b->ionic_osmotic);
    d->ionic_total = minus(x->ionic_total, a->ionic_total, b->ionic_total);
    d->grid_reference = minus(x->grid_reference, a->grid_reference, b->grid_reference);
    d->solvation_two_run = minus(x->solvation_two_run, a->solvation_two_run, b->solvation_two_run);
}

/* The grid energy of the last run, with the ionic terms of a nonlinear one. */
static double binding_grid_energy(const calc_result *r) {
    return r->energy_grid + (r->ionic_computed ? r->ionic.total : 0.0);
}

/* The salt's share of the last run's grid energy (0 without salt). */
static double salt_share(const calc_result *r) {
    return r->salt_free_run ? binding_grid_energy(r) - r->energy_grid_salt_free : 0.0;
}

/* Each atom's part of the last run's Coulombic + corrected reaction-field energy and, with
 * salt, of its salt share: (1/2) q_i (the Coulombic and reaction-field potentials at the atom,
 * plus the potential with the salt minus the salt-free one there), added times sign to
 * atom_energy[index[i]] (index NULL: the run's atoms are all the atoms, in order).  The grid
 * charges are the atoms' trilinear shares, so the salt parts sum to the grid energies'
 * difference exactly. */
static int atom_parts(dg_calc c, const long *index, double sign, double *atom_energy) {
    const calc_molecule *mol = &c->mol;
    const calc_result *r = &c->r;
    const long n = (long)mol->count;
    double *xyz = calloc((size_t)(3 * n + 1), sizeof *xyz);
    double *coulombic = malloc((size_t)(n + 1) * sizeof *coulombic);
    double *reaction = malloc((size_t)(n + 1) * sizeof *reaction);
    char msg[1024] = "out of memory for the atoms' parts";
    int st = xyz && coulombic && reaction ? DG_OK : DG_ERR_OUT_OF_MEMORY;
    for (long i = 0; st == DG_OK && i < n; ++i) {
        const calc_atom *a = &mol->atoms[i];
        xyz[3 * i] = a->x, xyz[3 * i + 1] = a->y, xyz[3 * i + 2] = a->z;
    }
    const double temperature = c->params.temperature;
    if (st == DG_OK)
        st = coulombic_potentials_on(c->solver, mol, c->params.epsilon_in, temperature, xyz, n,
                                     coulombic, NULL, msg, sizeof msg);
    if (st == DG_OK)
        st = reaction_field_potentials(&r->rf, temperature, c->solver, xyz, n, reaction, msg,
                                       sizeof msg);
    for (long i = 0; st == DG_OK && i < n; ++i) {
        double salt = 0.0;
        if (r->salt_free_run) {
            phi_map_interpolate(&r->phi, xyz + 3 * i, &salt);
            salt -= r->salt_free_at_atoms[i];
        }
        atom_energy[index ? index[i] : i] +=
            sign * 0.5 * mol->atoms[i].charge * (coulombic[i] + reaction[i] + salt);
    }
    free(xyz), free(coulombic), free(reaction);
    return st == DG_OK ? DG_OK : calc_fail(c, st, "the atoms' parts of the binding: %s", msg);
}

/* Partner k's atoms (in the handle's order) and each one's index among all the atoms. */
static int split_atoms(const calc_molecule *whole, const int *partner, int k, calc_molecule *part,
                       long **index) {
    size_t n = 0;
    for (size_t i = 0; i < whole->count; ++i)
        n += partner[i] == k;
    part->atoms = malloc(n * sizeof *part->atoms);
    *index = malloc(n * sizeof **index);
    if (!part->atoms || !*index) {
        free(part->atoms), free(*index);
        part->atoms = NULL, *index = NULL;
        return -1;
    }
    part->count = 0;
    for (size_t i = 0; i < whole->count; ++i)
        if (partner[i] == k)
            (*index)[part->count] = (long)i, part->atoms[part->count++] = whole->atoms[i];
    return 0;
}

/* Partner k alone on the handle: its atoms in place of the whole set, no sites. */
static int run_partner(dg_calc c, const calc_molecule *part, const long *index, int k,
                       dg_calc_binding *b, double *grid_energy, double *atom_energy) {
    c->mol = *part;
    c->geometry_current = 0;
    c->r.binding_part = k + 1;
    int st = calc_run(c);
    dg_calc_result result;
    calc_fill_result(c, &result);
    if (st != DG_OK) {
        if (c->r.bad_atom >= 0 && (size_t)c->r.bad_atom < part->count)
            c->r.bad_atom = index[c->r.bad_atom]; /* the atom's number among all the atoms */
        return calc_fail(c, st, "partner %d alone: %s", k, c->r.message);
    }
    st = calc_check_energies(c, &result);
    if (st != DG_OK) {
        char msg[sizeof c->error];
        snprintf(msg, sizeof msg, "%s", c->error);
        return calc_fail(c, st, "partner %d alone: %s", k, msg);
    }
    b->partner[k] = result.energies;
    b->solve[k] = result.solve;
    b->coarse_solve[k] = result.coarse_solve;
    b->coarse_salt_free_solve[k + 1] = c->r.coarse_salt_free_solve;
    b->reference_solve[k] = result.reference_solve;
    b->timing[k] = result.timing;
    *grid_energy = binding_grid_energy(&c->r);
    b->salt_share[k + 1] = salt_share(&c->r);
    b->salt_free_solve[k + 1] = c->r.salt_free_solve;
    return atom_energy ? atom_parts(c, index, -1.0, atom_energy) : DG_OK;
}

static int run_binding(dg_calc c, const int *partner, dg_calc_result *result,
                       dg_calc_binding *binding, double *atom_energy);

int dg_calc_run_binding(dg_calc c, const int *partner, dg_calc_result *result,
                        dg_calc_binding *binding, double *atom_energy) {
    int st = calc_usable(c);
    if (st != DG_OK) return st;
    if (!c->grid_placed) return calc_fail(c, DG_ERR_STATE, "dg_calc_set_atoms comes first");
    c->running = 1;
    st = run_binding(c, partner, result, binding, atom_energy);
    c->running = 0;
    if (st == DG_OK) c->error[0] = '\0'; /* a refused call from a callback left its message */
    return st;
}

/* dg_calc_run_binding on a usable handle with placed atoms. */
static int run_binding(dg_calc c, const int *partner, dg_calc_result *result,
                       dg_calc_binding *binding, double *atom_energy) {
    int st = DG_OK;
    if (!partner || !binding)
        return calc_fail(c, DG_ERR_INVALID_ARGUMENT, "partner or binding is NULL");
    if (c->params.boundary == DG_BOUNDARY_FOCUSING)
        return calc_fail(c, DG_ERR_INVALID_ARGUMENT,
                         "binding: boundary = %d (focusing) takes the boundary values of one "
                         "molecule's map, not of each partner; use dipolar or Coulombic "
                         "boundary values on a grid that holds the complex",
                         DG_BOUNDARY_FOCUSING);
    if (c->coarse_grid.n) { /* focusing in one run: the energies are the grid's */
        char msg[1024];
        const long bad = charges_check_interior(&c->mol, &c->r.grid, msg, sizeof msg);
        if (bad >= 0)
            return calc_fail(c, DG_ERR_INVALID_ARGUMENT,
                             "binding with focusing: every charge must lie inside the grid, "
                             "whose energies these are: %s",
                             msg);
    }
    long count[2] = {0, 0};
    double net[2] = {0.0, 0.0};
    for (size_t i = 0; i < c->mol.count; ++i) {
        if (partner[i] != 0 && partner[i] != 1)
            return calc_fail(c, DG_ERR_INVALID_ARGUMENT, "partner[%zu] = %d (must be 0 or 1)", i,
                             partner[i]);
        ++count[partner[i]];
        net[partner[i]] += c->mol.atoms[i].charge;
    }
    for (int k = 0; k < 2; ++k)
        if (count[k] == 0)
            return calc_fail(c, DG_ERR_INVALID_ARGUMENT,
                             "partner %d has no atoms (each of the %zu atoms is in partner "
                             "%d)",
                             k, c->mol.count, 1 - k);
    memset(binding, 0, sizeof *binding);
    if (atom_energy) memset(atom_energy, 0, c->mol.count * sizeof *atom_energy);
    for (int k = 0; k < 2; ++k)
        binding->atoms[k] = count[k], binding->net_charge[k] = net[k];

    calc_molecule part[2] = {{NULL, 0}, {NULL, 0}};
    long *index[2] = {NULL, NULL};
    if (split_atoms(&c->mol, partner, 0, &part[0], &index[0]) != 0 ||
        split_atoms(&c->mol, partner, 1, &part[1], &index[1]) != 0) {
        free(part[0].atoms), free(index[0]);
        return calc_fail(c, DG_ERR_OUT_OF_MEMORY, "out of memory for the partners' atoms");
    }
    /* The partners run without the caller's sites (their columns are the complex's). */
    const calc_molecule whole = c->mol;
    /* the binding energy's terms whatever the caller asked, and the salt-free solves */
    const int energies = c->params.energies;
    c->params.energies |= DG_ENERGY_COULOMBIC | DG_ENERGY_REACTION_FIELD;
    c->salt_free = 1;
    c->salt_free_at_atoms = atom_energy != NULL;
    double *site_xyz = c->site_xyz;
    const size_t site_count = c->site_count;
    c->site_xyz = NULL, c->site_count = 0;
    double grid_energy[2] = {0.0, 0.0};
    for (int k = 0; k < 2 && st == DG_OK; ++k)
        st = run_partner(c, &part[k], index[k], k, binding, &grid_energy[k], atom_energy);
    c->mol = whole;
    c->site_xyz = site_xyz, c->site_count = site_count;
    c->geometry_current = 0;
    for (int k = 0; k < 2; ++k)
        free(part[k].atoms), free(index[k]);
    dg_calc_result whole_result;
    if (st == DG_OK) {
        c->r.binding_part = 3;
        st = calc_run(c);
        calc_fill_result(c, &whole_result);
        if (result) *result = whole_result;
        if (st != DG_OK)
            calc_fail(c, st, "complex: %s", c->r.message);
        else
            st = calc_check_energies(c, &whole_result);
        if (st == DG_OK && atom_energy) st = atom_parts(c, NULL, 1.0, atom_energy);
    } else {
        c->ran = 0; /* r.binding_part still says which partner failed */
    }
    c->params.energies = energies;
    c->salt_free = c->salt_free_at_atoms = 0;
    if (st != DG_OK) return st;
    c->r.binding_part = 0;
    binding->bound = whole_result.energies;
    binding->salt_share[0] = salt_share(&c->r);
    binding->salt_free_solve[0] = c->r.salt_free_solve;
    binding->coarse_salt_free_solve[0] = c->r.coarse_salt_free_solve;
    energy_difference(&binding->bound, &binding->partner[0], &binding->partner[1],
                      &binding->difference);
    binding->grid_energy = minus(binding_grid_energy(&c->r), grid_energy[0], grid_energy[1]);
    binding->salt = minus(binding->salt_share[0], binding->salt_share[1], binding->salt_share[2]);
    binding->energy =
        binding->difference.coulombic + binding->difference.reaction_field + binding->salt;
    return DG_OK;
}
