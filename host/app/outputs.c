/* Writing the outputs. */
#include "outputs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io_binding.h"
#include "io_epsmap.h"
#include "io_grid_charges.h"
#include "io_maps.h"
#include "io_modpdb.h"
#include "io_molecule.h"
#include "io_settings.h"
#include "io_sites.h"
#include "io_surface_charges.h"
#include "io_summary.h"
#include "physics_constants.h"
#include "report.h"
#include "run_checks.h"

/* The potential as a map_grid of doubles: wrapped when the solve was in double, else a copy. */
static int potential_grid(const calc_result *r, map_grid *m, io_error *err) {
    const int n[3] = {r->phi.n, r->phi.n, r->phi.n};
    if (r->phi.is_double) {
        map_grid_wrap(m, n, r->phi.scale, r->phi.center, (double *)r->phi.data);
    } else {
        int st = map_grid_alloc(m, n, r->phi.scale, r->phi.center, err);
        if (st != IO_OK) return st;
        const size_t points = (size_t)n[0] * n[1] * n[2];
        for (size_t w = 0; w < points; ++w)
            m->values[w] = phi_get(&r->phi, w);
    }
    snprintf(m->title, sizeof m->title, "delphi-gpu %s potential (kT/e)", dg_version_string());
    return IO_OK;
}

/* Field -grad phi at a site by central differences one grid spacing apart (kT/(e A)). */
static void site_field(const phi_map *phi, const atom *a, double e[3]) {
    const double h = 1.0 / phi->scale;
    for (int k = 0; k < 3; ++k) {
        double lo[3] = {a->x, a->y, a->z}, hi[3] = {a->x, a->y, a->z}, vlo, vhi;
        lo[k] -= h, hi[k] += h;
        if (phi_map_interpolate(phi, lo, &vlo) || phi_map_interpolate(phi, hi, &vhi))
            e[k] = NAN;
        else
            e[k] = -(vhi - vlo) / (2.0 * h);
    }
}

/* DelPhi's atomic potential (site(atpo)): at a charged site (|q| >= 1e-6 e) the mean of the
 * potential at the six points min(radius, distance) A away along the axes, which averages out
 * the grid's potential of the site's own charge at its centre; at other sites the potential
 * there.  A charged site of radius 0 counts as POINT_CHARGE_RADIUS, as in DelPhi.  NaN when a
 * point is outside the grid. */
static double site_atomic(const phi_map *phi, const atom *a, double distance, double at_site) {
    if (!(fabs(a->charge) >= 1e-6)) return at_site;
    const double d = fmin(a->radius > 0.0 ? a->radius : POINT_CHARGE_RADIUS, distance);
    double sum = 0.0;
    for (int k = 0; k < 6; ++k) {
        double p[3] = {a->x, a->y, a->z}, v;
        p[k / 2] += k % 2 ? d : -d;
        if (phi_map_interpolate(phi, p, &v)) return NAN;
        sum += v;
    }
    return sum / 6.0;
}

/* out(gcrg): the charge list's shares summed per grid point, in the grid's order. */
static int compare_long(const void *a, const void *b) {
    const long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static int write_grid_charges(const run_settings *s, const calc_result *r, io_log *log,
                              io_error *err) {
    const charge_list *c = &r->charges;
    const long count = c->count;
    long *order = malloc((size_t)(2 * count + 1) * sizeof *order);
    long *index = malloc((size_t)(count + 1) * sizeof *index);
    double *charge = malloc((size_t)(count + 1) * sizeof *charge);
    int st = IO_OK;
    if (!order || !index || !charge) {
        st = io_fail(err, IO_ERR_INPUT, s->gcrg_out_file, 0, NULL, "out of memory");
    } else {
        /* (grid index, list position) pairs sorted by grid index, then position */
        for (long k = 0; k < count; ++k)
            order[2 * k] = c->index[k], order[2 * k + 1] = k;
        qsort(order, (size_t)count, 2 * sizeof *order, compare_long);
        long points = 0;
        for (long k = 0; k < count;) {
            const long w = order[2 * k];
            double q = 0.0;
            for (; k < count && order[2 * k] == w; ++k)
                q += c->value[order[2 * k + 1]];
            if (q != 0.0) index[points] = w, charge[points++] = q; /* as DelPhi: non-zero sums */
        }
        const grid_charges g = {points, index, charge, r->grid.n, r->grid.scale, s->exdi, s->indi};
        st = grid_charges_write_delphi(s->gcrg_out_file, &g, err);
        if (st == IO_OK)
            log_info(log, "grid charges written: %s (%ld charged grid points)", s->gcrg_out_file,
                     points);
    }
    free(order), free(index), free(charge);
    return st;
}

/* out(eps): the run's medium and ion-accessibility map from the calculation layer, in DelPhi's
 * compact layout. */
static int write_epsilon_map(const char *path, dg_calc calc, const calc_result *r, io_log *log,
                             io_error *err) {
    const size_t points = (size_t)r->grid.n * (size_t)r->grid.n * (size_t)r->grid.n;
    unsigned char *maps = malloc(4 * points);
    if (!maps) return io_fail(err, IO_ERR_MEMORY, path, 0, NULL, "out of memory");
    if (dg_calc_medium_maps(calc, maps, maps + 3 * points) != DG_OK) {
        const int st = io_fail(err, IO_ERR_INPUT, path, 0, NULL, "%s", dg_calc_last_error(calc));
        free(maps);
        return st;
    }
    const epsilon_map m = {r->grid.n,
                           r->grid.scale,
                           {r->grid.center[0], r->grid.center[1], r->grid.center[2]},
                           maps,
                           maps + 3 * points};
    int st = epsmap_write(path, &m, err);
    if (st == IO_OK) {
        size_t solute = 0, ions = 0;
        for (size_t i = 0; i < 3 * points; ++i)
            solute += maps[i] != 0;
        for (size_t i = 3 * points; i < 4 * points; ++i)
            ions += maps[i] != 0;
        log_info(log,
                 "dielectric map written: %s (DelPhi's compact layout; %zu solute midpoints, %zu "
                 "ion-accessible points)",
                 path, solute, ions);
    }
    free(maps);
    return st;
}

int outputs_write(const run_settings *s, dg_calc calc, const calc_result *r, const molecule *mol,
                  const molecule *sites, io_log *log, io_error *err) {
    int st = IO_OK;
    if (s->map_count > 0) {
        map_grid m;
        if ((st = potential_grid(r, &m, err)) != IO_OK) return st;
        for (int i = 0; i < s->map_count && st == IO_OK; ++i) {
            st = map_write(s->maps[i].path, s->maps[i].format, &m, mol, err);
            if (st == IO_OK)
                log_info(log, "potential map written: %s (%s)", s->maps[i].path,
                         io_map_format_name(s->maps[i].format));
        }
        map_grid_free(&m);
        if (st != IO_OK) return st;
    }
    if (s->frc_out_file[0] && r->site_potential) {
        const molecule *list = sites ? sites : mol;
        double *field = s->site_field ? malloc((list->count + 1) * 3 * sizeof *field) : NULL;
        double *atomic = s->site_atomic ? malloc((list->count + 1) * sizeof *atomic) : NULL;
        const double *coulombic_field = r->site_coulombic_field;
        double *force = coulombic_field ? malloc((list->count + 1) * 3 * sizeof *force) : NULL;
        /* DelPhi's total force: the reaction-field force plus the Coulombic force (the atoms'). */
        const int total_wanted = s->site_total_force && !sites && r->atom_reaction_force;
        double *total = total_wanted ? malloc((list->count + 1) * 3 * sizeof *total) : NULL;
        if ((s->site_field && !field) || (s->site_atomic && !atomic) ||
            (coulombic_field && !force) || (total_wanted && !total)) {
            free(field), free(atomic), free(force), free(total);
            return io_fail(err, IO_ERR_MEMORY, s->frc_out_file, 0, NULL, "out of memory");
        }
        for (size_t i = 0; field && i < list->count; ++i)
            site_field(&r->phi, &list->atoms[i], field + 3 * i);
        for (size_t i = 0; atomic && i < list->count; ++i)
            atomic[i] = site_atomic(&r->phi, &list->atoms[i], s->atpods, r->site_potential[i]);
        /* DelPhi's Coulombic force: the site's charge in the atoms' field (0 for an uncharged
           site: |q| < 1e-6 e, as DelPhi tests it). */
        for (size_t i = 0; force && i < 3 * list->count; ++i) {
            const double q = list->atoms[i / 3].charge;
            force[i] = fabs(q) > 1e-6 ? q * coulombic_field[i] : 0.0;
        }
        for (size_t i = 0; total && i < 3 * list->count; ++i)
            total[i] = r->atom_reaction_force[i] + (force ? force[i] : 0.0);
        const site_values values = {r->site_potential,
                                    r->site_reaction,
                                    r->site_coulombic,
                                    atomic,
                                    field,
                                    r->site_salt,
                                    r->site_debye,
                                    s->site_reaction_force && !sites ? r->atom_reaction_force
                                                                     : NULL, /* the atoms' */
                                    s->site_coulombic_force ? force : NULL,
                                    total};
        if (s->frc_format == FRC_TABLE) {
            st = sites_write(s->frc_out_file, list, &values, "delphi-gpu site potentials (kT/e)",
                             err);
        } else {
            char title[64];
            snprintf(title, sizeof title, "delphi-gpu %s site potentials (kT/e)",
                     dg_version_string());
            const frc_run_info info = {r->grid.n,
                                       r->grid.perfil,
                                       s->exdi,
                                       s->indi,
                                       r->salt.ionic_strength,
                                       s->ionrad,
                                       s->prbrad,
                                       r->solve.linear_iterations,
                                       s->nonit,
                                       s->bndcon,
                                       s->atpods,
                                       title};
            size_t zeroed = 0;
            st = sites_write_delphi(s->frc_out_file, list, &values, settings_frc_columns(s),
                                    s->frc_format, &info, &zeroed, err);
            if (st == IO_OK && zeroed)
                log_warning(log,
                            "%s: %zu values of sites outside the grid (or a field's neighbour "
                            "past its faces) are written as 0.0000, as stock DelPhi writes them "
                            "(the table format writes nan)",
                            s->frc_out_file, zeroed);
        }
        free(field), free(atomic), free(force), free(total);
        if (st == IO_OK)
            log_info(log, "site potentials written: %s (%zu sites)", s->frc_out_file, list->count);
    }
    if (st == IO_OK && s->modpdb_out_file[0]) {
        st = modpdb_write(s->modpdb_out_file, mol, s->modpdb_format, err);
        if (st == IO_OK)
            log_info(log, "atoms written: %s (%zu atoms, %s)", s->modpdb_out_file, mol->count,
                     s->modpdb_format == MODPDB_PQR       ? "PQR"
                     : s->modpdb_format == MODPDB_DELPHI4 ? "DelPhi PDB format 4"
                                                          : "DelPhi PDB format 1");
    }
    if (st == IO_OK && s->unpdb_out_file[0]) {
        st = unpdb_write(s->unpdb_out_file, mol, err);
        if (st == IO_OK)
            log_info(log, "atoms written: %s (%zu atoms, DelPhi's unformatted PDB)",
                     s->unpdb_out_file, mol->count);
    }
    if (st == IO_OK && s->eps_out_file[0])
        st = write_epsilon_map(s->eps_out_file, calc, r, log, err);
    if (st == IO_OK && s->gcrg_out_file[0]) st = write_grid_charges(s, r, log, err);
    if (st == IO_OK && s->scrg_out_file[0]) {
        const reaction_field *rf = &r->rf;
        if (rf->boundary_points > 0 && !rf->sigma)
            return io_fail(err, IO_ERR_INPUT, s->scrg_out_file, 0, NULL,
                           "the induced surface charges were not computed");
        const surface_charges charges = {rf->boundary_points, r->grid.n,  r->boundary, rf->site,
                                         rf->sigma,           rf->shares, rf->owner,   mol};
        if (s->scrg_format == SCRG_TABLE)
            st = surface_charges_write(s->scrg_out_file, &charges,
                                       "delphi-gpu induced surface charges of the reaction field",
                                       err);
        else
            st = surface_charges_write_delphi(s->scrg_out_file, &charges, s->scrg_format, err);
        if (st == IO_OK)
            log_info(log, "surface charges written: %s (%zu charges)", s->scrg_out_file,
                     rf->boundary_points);
    }
    return st;
}

int outputs_write_binding_residues(const run_settings *s, const molecule *mol, const int *partner,
                                   const double *atom_energy, double binding_energy, io_log *log,
                                   io_error *err) {
    int st = binding_residues_write(s->binding_residues_file, mol, partner, atom_energy,
                                    binding_energy, err);
    if (st != IO_OK) return st;
    log_info(log, "binding residues written: %s", s->binding_residues_file);
    /* the five largest parts, by size: residue start (atom index) and energy */
    enum { TOP = 5 };
    size_t start[TOP];
    double value[TOP];
    int kept = 0;
    for (size_t i = 0; i < mol->count;) {
        const size_t j = binding_residue_end(mol, partner, i);
        double e = 0.0;
        for (size_t k = i; k < j; ++k)
            e += atom_energy[k];
        int at = kept < TOP ? kept++ : TOP;
        while (at > 0 && fabs(value[at - 1]) < fabs(e)) {
            if (at < TOP) start[at] = start[at - 1], value[at] = value[at - 1];
            --at;
        }
        if (at < TOP) start[at] = i, value[at] = e;
        i = j;
    }
    for (int k = 0; k < kept; ++k) {
        const atom *a = &mol->atoms[start[k]];
        log_info(log, "  residue %c %s %d%s (partner %d): %+.4f kT",
                 a->chain == ' ' ? '-' : a->chain, a->residue, a->residue_number,
                 a->insertion != ' ' && a->insertion ? (char[]){a->insertion, 0} : "",
                 partner[start[k]] + 1, value[k]);
    }
    return IO_OK;
}

static void copy_string(char *dst, size_t size, const char *src) {
    snprintf(dst, size, "%s", src);
}

static summary_energy_terms terms_of(const dg_calc_energies *e) {
    summary_energy_terms t = {e->grid,        e->coulombic,     e->reaction_field,
                              e->ionic_total, e->self_reaction, e->solvation_two_run};
    return t;
}

static void summary_binding(run_summary *sum, const outputs_binding *b) {
    const dg_calc_binding *r = b->result;
    sum->has_binding = 1;
    sum->binding_energy = r->energy;
    sum->binding_salt = r->salt;
    sum->binding_grid_energy = r->grid_energy;
    sum->binding_difference = terms_of(&r->difference);
    for (int k = 0; k < 2; ++k) {
        summary_partner *p = &sum->binding_partner[k];
        copy_string(p->selection, sizeof p->selection, b->names[k]);
        p->atoms = r->atoms[k];
        p->net_charge = r->net_charge[k];
        p->iterations = r->solve[k].iterations;
        /* its solve, and those that ran beside it (zeroed when not: "converged") */
        p->converged =
            run_solve_converged(&r->solve[k]) &&
            (!r->reference_solve[k].iterations || run_solve_converged(&r->reference_solve[k])) &&
            run_solve_converged(&r->salt_free_solve[k + 1]) &&
            run_solve_converged(&r->coarse_solve[k]) &&
            run_solve_converged(&r->coarse_salt_free_solve[k + 1]);
        p->energies = terms_of(&r->partner[k]);
    }
}

int outputs_write_summary(const run_settings *s, const calc_result *r, const molecule *mol,
                          const summary_times *t, int exit_status, const io_notes *notes,
                          const char *backend_reason, const outputs_binding *binding,
                          io_error *err) {
    run_summary sum;
    run_summary_init(&sum);
    copy_string(sum.version, sizeof sum.version, dg_version_string());
    if (mol && mol->count) {
        copy_string(sum.molecule_file, sizeof sum.molecule_file, mol->source);
        sum.atoms = (long)mol->count;
        double q = 0;
        for (size_t i = 0; i < mol->count; ++i)
            q += mol->atoms[i].charge;
        sum.net_charge = q;
    }
    copy_string(sum.precision, sizeof sum.precision,
                s->precision == DG_PRECISION_FLOAT   ? "float"
                : s->precision == DG_PRECISION_MIXED ? "mixed"
                                                     : "double");
    if (r && r->grid.n > 0) {
        for (int a = 0; a < 3; ++a)
            sum.grid_size[a] = r->grid.n, sum.grid_center[a] = r->grid.center[a];
        sum.grid_scale = r->grid.scale;
        copy_string(sum.equation, sizeof sum.equation, calc_equation_name(r));
        snprintf(sum.periodic, sizeof sum.periodic, "%s%s%s",
                 s->periodic & DG_PERIODIC_X ? "x" : "", s->periodic & DG_PERIODIC_Y ? "y" : "",
                 s->periodic & DG_PERIODIC_Z ? "z" : "");
    }
    if (r && r->boundary) {
        sum.boundary_points = (long)r->boundary_count;
        sum.charged_points = r->counts.charge_count;
    }
    if (r && r->time_solve > 0 && r->solve.iterations >= 0 && r->status == CALC_OK) {
        const dg_result *d = &r->solve;
        copy_string(sum.backend, sizeof sum.backend,
                    d->backend == DG_BACKEND_CUDA ? "cuda" : "cpu");
        copy_string(sum.precision, sizeof sum.precision,
                    d->precision == DG_PRECISION_FLOAT   ? "float"
                    : d->precision == DG_PRECISION_MIXED ? "mixed"
                                                         : "double");
        copy_string(sum.method, sizeof sum.method,
                    d->solver == DG_SOLVER_MULTIGRID ? "multigrid" : "sor");
        copy_string(sum.method_reason, sizeof sum.method_reason, r->solve_parts.solver_choice);
        if (backend_reason)
            copy_string(sum.backend_reason, sizeof sum.backend_reason, backend_reason);
        sum.iterations = d->iterations;
        sum.converged =
            run_solve_converged(d) && (!r->two_run || run_solve_converged(&r->reference_solve));
        copy_string(sum.outcome, sizeof sum.outcome, dg_outcome_string(d->outcome));
        sum.max_change = d->max_change;
        sum.rms_change = d->rms_change;
        sum.spectral_radius = d->spectral_radius;
        sum.omega = d->omega;
    }
    if (r && r->status == CALC_OK) {
        sum.energy_grid = r->energy_grid;
        sum.energy_coulombic = r->energy_coulombic;
        sum.energy_reaction_field_corrected = r->energy_reaction_field;
        sum.energy_self_reaction = r->energy_self_reaction;
        sum.energy_total_reaction_field = r->energy_total_reaction_field;
        sum.energy_ionic = r->ionic_computed ? r->ionic.total : NAN;
        sum.has_solvation_two_run = r->two_run;
        sum.energy_solvation_two_run = r->energy_solvation_two_run;
    }
    if (r) {
        sum.time_setup = t->setup, sum.time_solve = t->solve;
        sum.time_energies = t->energies;
        sum.time_read = t->read, sum.time_grid = r->time_grid;
        sum.time_surface = r->time_surface, sum.time_medium = r->time_medium;
        sum.time_charges = r->time_charges, sum.time_boundary = r->time_boundary;
        if (r->two_run) sum.time_reference = r->time_reference;
        if (r->coarse) sum.time_coarse = r->time_coarse;
    }
    if (r && r->coarse && r->status == CALC_OK) {
        sum.has_focusing = 1;
        sum.coarse_size = r->coarse_grid.n;
        sum.coarse_scale = r->coarse_grid.scale, sum.coarse_perfil = r->coarse_grid.perfil;
        copy_string(sum.coarse_boundary, sizeof sum.coarse_boundary, report_bc_name(s->bndcon));
        sum.coarse_iterations = r->coarse_solve.iterations;
        sum.coarse_converged = run_solve_converged(&r->coarse_solve) &&
                               run_solve_converged(&r->coarse_salt_free_solve);
        copy_string(sum.coarse_outcome, sizeof sum.coarse_outcome,
                    dg_outcome_string(r->coarse_solve.outcome));
    }
    if (binding && binding->result) summary_binding(&sum, binding);
    sum.time_total = t->total;
    sum.exit_status = exit_status;
    sum.notes = notes;
    sum.settings = s;
    return run_summary_write(s->json_file, &sum, err);
}
