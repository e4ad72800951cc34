/* The public calculation handle (delphi_gpu_calc.h): lifetime, atoms, run and results. */
#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calc_checks.h"
#include "calculation.h"

int calc_fail(dg_calc c, int status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->error, sizeof c->error, fmt, ap);
    va_end(ap);
    return status;
}

int calc_usable(dg_calc c) {
    if (!c) return DG_ERR_INVALID_ARGUMENT;
    if (c->running)
        return calc_fail(c, DG_ERR_STATE,
                         "the calculation is running (a call from its own progress callback); "
                         "call it again after dg_calc_run returns");
    c->error[0] = '\0';
    if (!c->valid)
        return calc_fail(c, DG_ERR_STATE, "the calculation was not created successfully");
    return DG_OK;
}

int dg_calc_create(dg_calc *calc, const dg_calc_params *params) {
    if (!calc) return DG_ERR_INVALID_ARGUMENT;
    *calc = NULL;
    dg_calc c = calloc(1, sizeof *c);
    if (!c) return DG_ERR_OUT_OF_MEMORY;
    *calc = c;
    c->r.bad_atom = -1; /* no atom named until a stage names one */
    int st = calc_check_params(params, c->error, sizeof c->error);
    if (st != DG_OK) return st;
    c->params = *params;
    st = dg_create(&c->solver, &params->solver);
    if (st != DG_OK)
        return calc_fail(c, st, "solver: %s: %s", dg_status_string(st), dg_last_error(c->solver));
    c->valid = 1;
    return DG_OK;
}

/* 1 when a solver made with options a serves options b (what dg_set_options cannot change). */
static int same_solver(const dg_options *a, const dg_options *b) {
    return a->backend == b->backend && a->precision == b->precision && a->device == b->device &&
           a->num_threads == b->num_threads && a->block_x == b->block_x &&
           a->block_y == b->block_y && a->autotune == b->autotune && a->solver == b->solver &&
           a->mpi_comm == b->mpi_comm && a->periodic == b->periodic;
}

/* Parameters that fail change nothing (their checks, the solver's options included; the grid
   they place for the held atoms; the solver they need): the handle keeps its parameters, grid,
   solver and last run, so that a wrapper's copy of its state stays right. */
int dg_calc_set_params(dg_calc c, const dg_calc_params *params) {
    int st = calc_usable(c);
    if (st != DG_OK) return st;
    if ((st = calc_check_params(params, c->error, sizeof c->error)) != DG_OK) return st;
    const dg_calc_params old = c->params;
    const grid_spec old_grid = c->r.grid, old_coarse = c->coarse_grid;
    if (c->mol.atoms) {
        char msg[1024];
        c->params = *params;
        const int placed = calc_place_grids(c, msg, sizeof msg);
        c->params = old;
        if (placed != 0) {
            c->r.grid = old_grid, c->coarse_grid = old_coarse;
            return calc_fail(c, DG_ERR_INVALID_ARGUMENT, "grid: %s (the parameters before stay)",
                             msg);
        }
    }
    if (!same_solver(&c->params.solver, &params->solver)) {
        dg_solver solver = NULL;
        st = dg_create(&solver, &params->solver);
        if (st != DG_OK) {
            calc_fail(c, st, "solver: %s: %s", dg_status_string(st), dg_last_error(solver));
            dg_destroy(solver);
            c->r.grid = old_grid, c->coarse_grid = old_coarse;
            return st;
        }
        dg_destroy(c->solver);
        c->solver = solver;
    }
    c->params = *params;
    c->geometry_current = c->ran = 0;
    c->grid_placed = c->mol.atoms != NULL;
    return DG_OK;
}

void dg_calc_destroy(dg_calc c) {
    if (!c) return;
    if (c->running) {
        calc_fail(c, DG_ERR_STATE,
                  "dg_calc_destroy during the calculation's own run (from its progress "
                  "callback) does nothing; destroy it after dg_calc_run returns");
        return;
    }
    calc_result_free(&c->r);
    surface_model_free(&c->surface);
    free(c->mol.atoms);
    free(c->focus.data);
    phi_map_free(&c->coarse_phi), phi_map_free(&c->coarse_salt_free_phi);
    free(c->site_xyz);
    dg_destroy(c->solver);
    free(c);
}

const char *dg_calc_last_error(dg_calc c) {
    return c ? c->error : "the calculation handle is NULL";
}

const char *dg_calc_notes(dg_calc c) {
    if (!c) return "";
    /* The run's notes, then the solver's notices (e.g. the CPU fallback of DG_BACKEND_AUTO). */
    const char *notice = c->r.notice;
    snprintf(c->notes, sizeof c->notes, "%s%s%s", c->r.notes,
             c->r.notes[0] && notice[0] ? "\n" : "", notice);
    return c->notes;
}

static int check_finite(dg_calc c, const char *what, const double *v, long n, int per) {
    for (long i = 0; i < n * per; ++i)
        if (!isfinite(v[i]))
            return calc_fail(c, DG_ERR_NONFINITE_INPUT, "%s of atom %ld: %g", what, i / per + 1,
                             v[i]);
    return DG_OK;
}

/* The caller's atoms as the calculation holds them (malloc'ed; NULL when out of memory). */
static calc_atom *copy_atoms(const dg_atoms *atoms) {
    calc_atom *copy = malloc((size_t)atoms->count * sizeof *copy);
    for (long i = 0; copy && i < atoms->count; ++i)
        copy[i] = (calc_atom){atoms->position[3 * i], atoms->position[3 * i + 1],
                              atoms->position[3 * i + 2], atoms->charge[i], atoms->radius[i]};
    return copy;
}

int dg_calc_set_atoms(dg_calc c, const dg_atoms *atoms) {
    int st = calc_usable(c);
    if (st != DG_OK) return st;
    if (!atoms || !atoms->position || !atoms->charge || !atoms->radius)
        return calc_fail(c, DG_ERR_INVALID_ARGUMENT, "atoms or one of its arrays is NULL");
    if (atoms->count <= 0)
        return calc_fail(c, DG_ERR_INVALID_ARGUMENT, "atoms.count = %ld (must be > 0)",
                         atoms->count);
    if ((st = check_finite(c, "position", atoms->position, atoms->count, 3)) != DG_OK ||
        (st = check_finite(c, "charge", atoms->charge, atoms->count, 1)) != DG_OK ||
        (st = check_finite(c, "radius", atoms->radius, atoms->count, 1)) != DG_OK)
        return st;
    for (long i = 0; i < atoms->count; ++i)
        if (atoms->radius[i] < 0.0)
            return calc_fail(c, DG_ERR_INVALID_ARGUMENT, "radius of atom %ld = %g (must be >= 0)",
                             i + 1, atoms->radius[i]);
    calc_atom *copy = copy_atoms(atoms);
    if (!copy)
        return calc_fail(c, DG_ERR_OUT_OF_MEMORY, "out of memory for %ld atoms", atoms->count);
    /* Atoms whose grid cannot be placed change nothing: the handle keeps its atoms, grid and
       last run (a wrapper that counts the atoms it handed over stays right). */
    const calc_molecule old = c->mol;
    const grid_spec old_grid = c->r.grid, old_coarse = c->coarse_grid;
    c->mol.atoms = copy, c->mol.count = (size_t)atoms->count;
    char msg[1024];
    if (calc_place_grids(c, msg, sizeof msg) != 0) {
        free(copy);
        c->mol = old, c->r.grid = old_grid, c->coarse_grid = old_coarse;
        return calc_fail(c, DG_ERR_INVALID_ARGUMENT, "grid: %s", msg);
    }
    free(old.atoms);
    c->geometry_current = c->ran = 0;
    c->grid_placed = 1;
    return DG_OK;
}

int calc_plan_grid(const dg_calc_params *params, const dg_atoms *atoms, int *n) {
    *n = 0;
    char msg[1024];
    if (!params || !atoms || !atoms->position || !atoms->charge || !atoms->radius ||
        atoms->count <= 0 || calc_check_params(params, msg, sizeof msg) != DG_OK)
        return -1;
    for (long i = 0; i < atoms->count; ++i) {
        const double *x = atoms->position + 3 * i, r = atoms->radius[i];
        if (!isfinite(x[0]) || !isfinite(x[1]) || !isfinite(x[2]) || !(r >= 0.0) || !isfinite(r))
            return -1;
    }
    const calc_molecule mol = {copy_atoms(atoms), (size_t)atoms->count};
    if (!mol.atoms) return -1;
    grid_spec g;
    const int st = grid_choose(params, &mol, &g, msg, sizeof msg);
    free(mol.atoms);
    if (st != 0) return -1;
    *n = g.n;
    return 0;
}

/* The atoms' box (radii included) for the log; the grid itself stays. */
static void update_box(dg_calc c) {
    grid_spec *g = &c->r.grid;
    for (int a = 0; a < 3; ++a)
        g->box_min[a] = INFINITY, g->box_max[a] = -INFINITY;
    for (size_t i = 0; i < c->mol.count; ++i) {
        const calc_atom *at = &c->mol.atoms[i];
        const double p[3] = {at->x, at->y, at->z};
        for (int a = 0; a < 3; ++a) {
            g->box_min[a] = fmin(g->box_min[a], p[a] - at->radius);
            g->box_max[a] = fmax(g->box_max[a], p[a] + at->radius);
        }
    }
    g->largest_extent = 0.0;
    for (int a = 0; a < 3; ++a)
        g->largest_extent = fmax(g->largest_extent, g->box_max[a] - g->box_min[a]);
}

int dg_calc_set_positions(dg_calc c, const double *position) {
    int st = calc_usable(c);
    if (st != DG_OK) return st;
    if (!c->grid_placed) return calc_fail(c, DG_ERR_STATE, "dg_calc_set_atoms comes first");
    if (!position) return calc_fail(c, DG_ERR_INVALID_ARGUMENT, "position is NULL");
    if ((st = check_finite(c, "position", position, (long)c->mol.count, 3)) != DG_OK) return st;
    /* Focusing from a map: atoms outside the grid act through its boundary values, as the run
       counts them; in one run they must stay inside the coarse grid, which solves for them. */
    const grid_spec *g = c->coarse_grid.n ? &c->coarse_grid : &c->r.grid;
    for (size_t i = 0; c->params.boundary != DG_BOUNDARY_FOCUSING && i < c->mol.count; ++i)
        for (int a = 0; a < 3; ++a) {
            const double gc = grid_coordinate(g, a, position[3 * i + a]);
            if (!(gc > 0.0 && gc < g->n - 1))
                return calc_fail(c, DG_ERR_INVALID_ARGUMENT,
                                 "atom %zu at %.3f %.3f %.3f A leaves the interior of the %d^3 "
                                 "%sgrid (%c grid coordinate %.2f)",
                                 i + 1, position[3 * i], position[3 * i + 1], position[3 * i + 2],
                                 g->n, c->coarse_grid.n ? "coarse " : "", "xyz"[a], gc);
        }
    for (size_t i = 0; i < c->mol.count; ++i) {
        calc_atom *at = &c->mol.atoms[i];
        at->x = position[3 * i], at->y = position[3 * i + 1], at->z = position[3 * i + 2];
    }
    update_box(c);
    c->geometry_current = c->ran = 0;
    return DG_OK;
}

int dg_calc_set_charges(dg_calc c, const double *charge) {
    int st = calc_usable(c);
    if (st != DG_OK) return st;
    if (!c->grid_placed) return calc_fail(c, DG_ERR_STATE, "dg_calc_set_atoms comes first");
    if (!charge) return calc_fail(c, DG_ERR_INVALID_ARGUMENT, "charge is NULL");
    if ((st = check_finite(c, "charge", charge, (long)c->mol.count, 1)) != DG_OK) return st;
    for (size_t i = 0; i < c->mol.count; ++i)
        c->mol.atoms[i].charge = charge[i];
    c->ran = 0;
    return DG_OK;
}

int dg_calc_set_focus_map(dg_calc c, const double *phi, int n, double scale,
                          const double center[3]) {
    int st = calc_usable(c);
    if (st != DG_OK) return st;
    if (!phi || !center) return calc_fail(c, DG_ERR_INVALID_ARGUMENT, "phi or center is NULL");
    if (n < 2) return calc_fail(c, DG_ERR_INVALID_GRID, "n = %d (must be >= 2)", n);
    if (!(scale > 0.0) || !isfinite(scale))
        return calc_fail(c, DG_ERR_INVALID_ARGUMENT, "scale = %g (must be > 0)", scale);
    for (int a = 0; a < 3; ++a)
        if (!isfinite(center[a]))
            return calc_fail(c, DG_ERR_NONFINITE_INPUT, "center[%d] = %g", a, center[a]);
    const size_t points = (size_t)n * n * n;
    for (size_t w = 0; w < points; ++w)
        if (!isfinite(phi[w]))
            return calc_fail(c, DG_ERR_NONFINITE_INPUT, "phi at (%zu,%zu,%zu) = %g", w % (size_t)n,
                             w / (size_t)n % (size_t)n, w / ((size_t)n * n), phi[w]);
    double *copy = malloc(points * sizeof *copy);
    if (!copy) return calc_fail(c, DG_ERR_OUT_OF_MEMORY, "out of memory for a %d^3 map", n);
    memcpy(copy, phi, points * sizeof *copy);
    free(c->focus.data);
    c->focus = (phi_map){n, 1, copy, scale, {center[0], center[1], center[2]}};
    return DG_OK;
}

static void public_grid(const grid_spec *g, dg_calc_grid *out) {
    out->n = g->n, out->scale = g->scale;
    for (int a = 0; a < 3; ++a) {
        out->center[a] = g->center[a];
        out->origin[a] = g->center[a] - 0.5 * (g->n - 1) / g->scale;
    }
}

void calc_fill_result(dg_calc c, dg_calc_result *out) {
    const calc_result *r = &c->r;
    memset(out, 0, sizeof *out);
    public_grid(&r->grid, &out->grid);
    if (r->coarse) public_grid(&r->coarse_grid, &out->coarse_grid);
    out->coarse_solve = r->coarse_solve;
    out->solve = r->solve;
    out->reference_solve = r->reference_solve;
    dg_calc_energies *e = &out->energies;
    const int want = c->params.energies;
    e->grid = (want & DG_ENERGY_GRID) ? r->energy_grid : NAN;
    e->coulombic = (want & DG_ENERGY_COULOMBIC) ? r->energy_coulombic : NAN;
    e->reaction_field = r->energy_reaction_field;
    e->self_reaction = r->energy_self_reaction;
    e->total_reaction_field = r->energy_total_reaction_field;
    e->ionic_rho_phi = r->ionic_computed ? r->ionic.rho_phi_half : NAN;
    e->ionic_osmotic = r->ionic_computed ? r->ionic.osmotic : NAN;
    e->ionic_total = r->ionic_computed ? r->ionic.total : NAN;
    e->grid_reference = r->energy_grid_reference;
    e->solvation_two_run = r->energy_solvation_two_run;
    dg_calc_timing *t = &out->timing;
    t->grid = r->time_grid, t->surface = r->time_surface, t->medium = r->time_medium;
    t->charges = r->time_charges, t->boundary = r->time_boundary, t->solve = r->time_solve;
    t->energies = r->time_energies, t->reference = r->time_reference;
    t->coarse = r->time_coarse;
    t->total = t->grid + t->surface + t->medium + t->charges + t->boundary + t->solve +
               t->energies + t->reference + t->coarse;
    out->boundary_points = (long)r->boundary_count;
    out->charged_points = r->counts.charge_count;
    out->induced_charge = r->rf.total_induced_charge;
    out->expected_induced_charge = r->rf.expected_induced_charge;
    out->atoms_outside = r->charges.atoms_outside;
    out->sites_outside = (long)r->sites_outside;
    out->backend = r->solve.backend;
}

int calc_check_energies(dg_calc c, const dg_calc_result *out) {
    const dg_calc_energies *e = &out->energies;
    const int want = c->params.energies;
    if ((want & DG_ENERGY_GRID) && !isfinite(e->grid))
        return calc_fail(c, DG_ERR_INTERNAL, "the grid energy is %g", e->grid);
    if ((want & DG_ENERGY_COULOMBIC) && !isfinite(e->coulombic))
        return calc_fail(c, DG_ERR_INTERNAL, "the Coulombic energy is %g", e->coulombic);
    if ((want & DG_ENERGY_REACTION_FIELD) && !isfinite(e->reaction_field))
        return calc_fail(c, DG_ERR_INTERNAL, "the reaction-field energy is %g", e->reaction_field);
    if ((want & DG_ENERGY_IONIC) && c->r.ionic_computed && !isfinite(e->ionic_total))
        return calc_fail(c, DG_ERR_INTERNAL, "the ionic energy is %g", e->ionic_total);
    return DG_OK;
}

int dg_calc_run(dg_calc c, dg_calc_result *result) {
    int st = calc_usable(c);
    if (st != DG_OK) return st;
    if (!c->grid_placed) return calc_fail(c, DG_ERR_STATE, "dg_calc_set_atoms comes first");
    c->r.binding_part = 0;
    c->running = 1;
    st = calc_run(c);
    c->running = 0;
    if (result) calc_fill_result(c, result);
    if (st != DG_OK) return calc_fail(c, st, "%s", c->r.message);
    c->error[0] = '\0'; /* a refused call from a callback left its message */
    if (result) return calc_check_energies(c, result);
    return DG_OK;
}

int dg_calc_get_grid(dg_calc c, dg_calc_grid *grid) {
    int st = calc_usable(c);
    if (st != DG_OK) return st;
    if (!grid) return calc_fail(c, DG_ERR_INVALID_ARGUMENT, "grid is NULL");
    if (!c->grid_placed) return calc_fail(c, DG_ERR_STATE, "dg_calc_set_atoms comes first");
    public_grid(&c->r.grid, grid);
    return DG_OK;
}

static int have_potential(dg_calc c, const void *out) {
    int st = calc_usable(c);
    if (st != DG_OK) return st;
    if (!out) return calc_fail(c, DG_ERR_INVALID_ARGUMENT, "output array is NULL");
    if (!c->ran || !c->r.phi.data) return calc_fail(c, DG_ERR_STATE, "no completed run");
    return DG_OK;
}

int dg_calc_potential_f(dg_calc c, float *phi) {
    int st = have_potential(c, phi);
    if (st != DG_OK) return st;
    const size_t points = grid_points(&c->r.grid);
    for (size_t w = 0; w < points; ++w)
        phi[w] = (float)phi_get(&c->r.phi, w);
    return DG_OK;
}

int dg_calc_potential_d(dg_calc c, double *phi) {
    int st = have_potential(c, phi);
    if (st != DG_OK) return st;
    const size_t points = grid_points(&c->r.grid);
    for (size_t w = 0; w < points; ++w)
        phi[w] = phi_get(&c->r.phi, w);
    return DG_OK;
}

int dg_calc_potentials_at(dg_calc c, const double *points, long count, double *potential) {
    int st = have_potential(c, potential);
    if (st != DG_OK) return st;
    if (count < 0 || (count > 0 && !points))
        return calc_fail(c, DG_ERR_INVALID_ARGUMENT, "points is NULL or count = %ld", count);
    c->r.sites_outside = site_potentials(&c->r.phi, points, (size_t)count, potential);
    return DG_OK;
}

/* Points for the analytic sums: an array of finite coordinates. */
static int check_points(dg_calc c, const double *points, long count) {
    if (count < 0 || (count > 0 && !points))
        return calc_fail(c, DG_ERR_INVALID_ARGUMENT, "points is NULL or count = %ld", count);
    for (long i = 0; i < 3 * count; ++i)
        if (!isfinite(points[i]))
            return calc_fail(c, DG_ERR_NONFINITE_INPUT, "point %ld: coordinate %c is %g", i / 3 + 1,
                             "xyz"[i % 3], points[i]);
    return DG_OK;
}

/* A completed run that computed the reaction field (its induced charges are kept). */
static int have_reaction_field(dg_calc c, const void *out) {
    int st = have_potential(c, out);
    if (st != DG_OK) return st;
    if (isnan(c->r.energy_reaction_field))
        return calc_fail(c, DG_ERR_STATE,
                         "the last run did not compute the reaction field (energies without "
                         "DG_ENERGY_REACTION_FIELD)");
    return DG_OK;
}

int dg_calc_induced_charges(dg_calc c, long *count, double *position, double *charge) {
    if (c && !count) return calc_fail(c, DG_ERR_INVALID_ARGUMENT, "count is NULL");
    int st = have_reaction_field(c, count);
    if (st != DG_OK) return st;
    const reaction_field *rf = &c->r.rf;
    *count = (long)rf->boundary_points;
    if (position && rf->boundary_points)
        memcpy(position, rf->site, 3 * rf->boundary_points * sizeof *position);
    if (charge && rf->boundary_points)
        memcpy(charge, rf->sigma, rf->boundary_points * sizeof *charge);
    return DG_OK;
}

int dg_calc_medium_maps(dg_calc c, unsigned char *solute, unsigned char *ion_accessible) {
    int st = have_potential(c, solute ? (const void *)solute : (const void *)ion_accessible);
    if (st != DG_OK) return st;
    const calc_result *r = &c->r;
    const size_t points = grid_points(&r->grid);
    for (int a = 0; solute && a < 3; ++a)
        memcpy(solute + (size_t)a * points, r->medium.face[a], points);
    if (!ion_accessible) return DG_OK;
    medium_maps own = {0}; /* without salt: the map built for this call */
    const unsigned char *ion = NULL;
    char msg[1024];
    st = calc_ion_map(c, &own, &ion, msg, sizeof msg);
    if (st != DG_OK) return calc_fail(c, st, "ion-accessibility map: %s", msg);
    memcpy(ion_accessible, ion, points);
    medium_free(&own);
    return DG_OK;
}

int dg_calc_reaction_potentials_at(dg_calc c, const double *points, long count, double *potential) {
    int st = have_reaction_field(c, potential);
    if (st != DG_OK) return st;
    if ((st = check_points(c, points, count)) != DG_OK) return st;
    char msg[1024];
    st = reaction_field_potentials(&c->r.rf, c->params.temperature, c->solver, points, count,
                                   potential, msg, sizeof msg);
    return st == DG_OK ? DG_OK : calc_fail(c, st, "reaction potentials: %s", msg);
}

/* Atoms set (a run is not needed), an output array and finite points. */
static int have_atoms(dg_calc c, const double *points, long count, const void *out) {
    int st = calc_usable(c);
    if (st != DG_OK) return st;
    if (!out) return calc_fail(c, DG_ERR_INVALID_ARGUMENT, "output array is NULL");
    if (!c->mol.atoms || c->mol.count == 0)
        return calc_fail(c, DG_ERR_STATE, "no atoms (dg_calc_set_atoms first)");
    return check_points(c, points, count);
}

int dg_calc_coulombic_potentials_at(dg_calc c, const double *points, long count,
                                    double *potential) {
    int st = have_atoms(c, points, count, potential);
    if (st != DG_OK) return st;
    char msg[1024];
    st = coulombic_potentials_on(c->solver, &c->mol, c->params.epsilon_in, c->params.temperature,
                                 points, count, potential, NULL, msg, sizeof msg);
    return st == DG_OK ? DG_OK : calc_fail(c, st, "coulombic potentials: %s", msg);
}

int dg_calc_coulombic_fields_at(dg_calc c, const double *points, long count, double *field) {
    int st = have_atoms(c, points, count, field);
    if (st != DG_OK) return st;
    char msg[1024];
    st = coulombic_fields_on(c->solver, &c->mol, c->params.epsilon_in, c->params.temperature,
                             points, count, field, msg, sizeof msg);
    return st == DG_OK ? DG_OK : calc_fail(c, st, "coulombic fields: %s", msg);
}

int dg_calc_reaction_forces(dg_calc c, double *force) {
    int st = have_reaction_field(c, force);
    if (st != DG_OK) return st;
    char msg[1024];
    st = reaction_field_forces(&c->r.rf, &c->mol, c->params.temperature, c->solver, force, msg,
                               sizeof msg);
    return st == DG_OK ? DG_OK : calc_fail(c, st, "reaction-field forces: %s", msg);
}

const calc_result *calc_state(dg_calc c) {
    return c ? &c->r : NULL;
}

void calc_set_hooks(dg_calc c, const calc_hooks *hooks) {
    if (c) c->hooks = hooks ? *hooks : (calc_hooks){NULL, NULL, NULL};
}

int calc_set_sites(dg_calc c, const double *xyz, size_t count, int columns) {
    if (!c) return DG_ERR_INVALID_ARGUMENT;
    free(c->site_xyz);
    c->site_xyz = NULL, c->site_count = 0, c->site_columns = 0;
    if (!xyz) return DG_OK;
    c->site_xyz = malloc((3 * count + 1) * sizeof *c->site_xyz);
    if (!c->site_xyz)
        return calc_fail(c, DG_ERR_OUT_OF_MEMORY, "out of memory for %zu sites", count);
    memcpy(c->site_xyz, xyz, 3 * count * sizeof *xyz);
    c->site_count = count, c->site_columns = columns;
    return DG_OK;
}

void calc_set_map_copy(dg_calc c, int map_copy) {
    if (c) c->map_copy = map_copy;
}
