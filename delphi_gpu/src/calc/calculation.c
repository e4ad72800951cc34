/* The calculation, stage by stage (see calculation.h). */
#include "calculation.h"

#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boundary.h"
#include "mg/mg.h"
#include "newton.h"
#include "periodic_images.h"
#include "pb_solve.h"
#include "physics_constants.h"
#include "solver_internal.h"

static void add_note(calc_result *r, const char *fmt, ...) {
    size_t used = strlen(r->notes);
    if (used + 2 >= sizeof r->notes) return;
    if (used) r->notes[used++] = '\n', r->notes[used] = '\0';
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->notes + used, sizeof r->notes - used, fmt, ap);
    va_end(ap);
}

static int fail(calc_result *r, int status, int library_status, const char *what,
                const char *detail) {
    r->status = status;
    r->dg_status = library_status;
    snprintf(r->message, sizeof r->message, "%s%s%s", what, detail && detail[0] ? ": " : "",
             detail ? detail : "");
    return status;
}

static void report(const dg_calc c, int stage) {
    if (c->hooks.stage) c->hooks.stage(stage, &c->r, c->hooks.user);
}

static void stage_progress(const dg_calc c, const char *stage, double fraction) {
    if (c->params.stage_progress)
        c->params.stage_progress(stage, fraction, c->params.stage_progress_user_data);
}

const char *calc_equation_name(const calc_result *r) {
    if (r->nonlinear) return "nonlinear_pb";
    return r->salt.salt_count > 0 ? "linear_pb" : "poisson";
}

/* Sum over atoms of q^2 (1/eps_in - 1) / (2 r) epkt; radius-0 atoms count as POINT_CHARGE_RADIUS.
 */
static double self_reaction(const calc_molecule *mol, double eps_in, double temperature) {
    double sum = 0.0;
    for (size_t i = 0; i < mol->count; ++i) {
        const calc_atom *a = &mol->atoms[i];
        const double radius = a->radius > 0.0 ? a->radius : POINT_CHARGE_RADIUS;
        sum += a->charge * a->charge / radius;
    }
    return 0.5 * sum * (1.0 / eps_in - 1.0) * epkt_at(temperature);
}

/* Salt, equation and the memory check (the grid was placed with the atoms). */
static int stage_grid(dg_calc c) {
    const dg_calc_params *s = &c->params;
    calc_result *r = &c->r;
    char msg[1024];
    if (r->grid.note[0]) add_note(r, "grid: %s", r->grid.note);
    salt_model_from_params(s, &r->salt);
    r->nonlinear = pb_wants_nonlinear(s, &r->salt);
    if (s->solver.equation == DG_EQUATION_NONLINEAR_PB && !r->nonlinear)
        add_note(r, "nonlinear equation ignored: it needs salt");
    const int dbl = s->solver.precision != DG_PRECISION_FLOAT;
    /* the focusing source: the caller's map, or the coarse solve's (two with a salt-free one) */
    size_t focus_points = c->focus.data ? (size_t)c->focus.n * c->focus.n * c->focus.n : 0;
    if (c->coarse_grid.n)
        focus_points = grid_points(&c->coarse_grid) * (c->salt_free && r->salt.salt_count ? 2 : 1);
    /* On the CPU backend multigrid (asked, or AUTO's choice from its edge for a linear
       equation) and Newton's workspace live in host memory too. */
    int backend = DG_BACKEND_CPU;
    (void)dg_get_backend(c->solver, &backend);
    const int cpu = backend == DG_BACKEND_CPU;
    const int newton = r->nonlinear && s->solver.nonlinear_method == DG_NONLINEAR_NEWTON;
    const int fixed_count = s->solver.iterations > 0 && !(s->solver.max_change_tol > 0.0) &&
                            !(s->solver.rms_change_tol > 0.0) && !(s->solver.norm_change_tol > 0.0);
    const int multigrid = s->solver.solver == DG_SOLVER_MULTIGRID ||
                          (s->solver.solver == DG_SOLVER_AUTO && !r->nonlinear && !fixed_count &&
                           r->grid.n >= DG_MG_AUTO_EDGE_CPU);
    memory_plan plan = {r->grid.n,
                        dbl,
                        r->salt.salt_count > 0,
                        s->solvation_two_run || c->salt_free, /* one more map */
                        focus_points,
                        c->map_copy && !dbl,
                        s->solver.precision == DG_PRECISION_MIXED,
                        cpu && multigrid,
                        cpu && newton};
    r->memory_estimate = memory_estimate_bytes(&plan);
    if (memory_check(&plan, msg, sizeof msg) != 0)
        return fail(r, CALC_BAD_INPUT, DG_ERR_OUT_OF_MEMORY, "grid", msg);
    /* A charge that would land on a face is refused now, not after the surface and medium. */
    if (c->boundary_kind != DG_BOUNDARY_FOCUSING) {
        const long bad = charges_check_interior(&c->mol, &r->grid, msg, sizeof msg);
        if (bad >= 0) {
            r->bad_atom = bad;
            return fail(r, CALC_BAD_INPUT, DG_ERR_INVALID_ARGUMENT, "charges", msg);
        }
    }
    return CALC_OK;
}

/* A failed stage's kind: bad input (invalid data) or a failure of the run (the solver backend,
 * memory that could not be had); a grid refused by the memory check before any allocation is
 * the input's (it asks for more than the machine has). */
static int stage_failure(int status) {
    return status == DG_ERR_INVALID_ARGUMENT ? CALC_BAD_INPUT : CALC_SOLVER_FAILED;
}

static int stage_surface(dg_calc c) {
    const dg_calc_params *s = &c->params;
    calc_result *r = &c->r;
    char msg[1024];
    surface_model_free(&c->surface);
    /* Periodic axes: the molecule's images within reach of the grid shape the surface and the
       ion map next to the periodic faces (the probe's reach for the re-entrant surface, the ion
       radius for the ion map, two spacings more); surface atoms keep the index of the atom they
       stand for. */
    calc_molecule shaped = c->mol;
    long *image_of = NULL;
    if (r->grid.periodic) {
        const double reach = fmax(2.0 * s->probe_radius, s->ion_radius) + 2.0 / r->grid.scale;
        if (periodic_images(&c->mol, &r->grid, reach, &shaped, &image_of) != 0)
            return fail(r, CALC_SOLVER_FAILED, DG_ERR_OUT_OF_MEMORY, "surface", "out of memory");
    }
    /* The arc dots on the solver's device (CUDA), else on host threads. */
    const int st = surface_model_build_on(&c->surface, &shaped, s->surface, s->probe_radius,
                                          SURFACE_CIRCLE_DOTS, c->solver, msg, sizeof msg);
    if (image_of) {
        for (int k = 0; st == DG_OK && k < c->surface.count; ++k)
            c->surface.atom_index[k] = (int)image_of[c->surface.atom_index[k]];
        r->periodic_images = (long)(shaped.count - c->mol.count);
        free(shaped.atoms), free(image_of);
    }
    if (st != DG_OK) return fail(r, stage_failure(st), st, "surface", msg);
    r->surface_atoms = c->surface.count, r->arc_dots = c->surface.dot_count;
    return CALC_OK;
}

static int stage_medium(dg_calc c) {
    calc_result *r = &c->r;
    char msg[1024];
    medium_free(&r->medium);
    const int ions = r->salt.salt_count > 0;
    /* On the solver's device (CUDA), else on host threads. */
    const int st = medium_build_on(c->solver, &c->surface, &r->grid, ions, c->params.ion_radius,
                                   &r->medium, msg, sizeof msg);
    if (st != DG_OK) return fail(r, stage_failure(st), st, "medium", msg);
    medium_periodic_mismatch(&r->medium, c->params.solver.periodic, r->periodic_mismatch,
                             r->periodic_compared);
    return CALC_OK;
}

/* Every axis periodic and no mobile ion on the grid (no salt, or none that reaches a point): a
 * net charge has no potential (each period adds the same charge; the solve only drifts). */
static int periodic_net_charge(dg_calc c, int ions, const char *stage) {
    const int all = DG_PERIODIC_X | DG_PERIODIC_Y | DG_PERIODIC_Z;
    const double net = c->r.charges.net_charge;
    if ((c->params.solver.periodic & all) != all || ions || !(fabs(net) > 1e-6)) return CALC_OK;
    char msg[512];
    snprintf(msg, sizeof msg,
             "a net charge (%.4f e) in a box periodic along x, y and z with no mobile ion on the "
             "grid (%s) has no potential: every period adds the same charge; add salt that "
             "reaches the solvent or leave an axis non-periodic",
             net,
             c->r.salt.salt_count == 0 || strcmp(stage, "charges") != 0
                 ? "no salt"
                 : "the ion-exclusion layer covers every point");
    return fail(&c->r, CALC_BAD_INPUT, DG_ERR_INVALID_ARGUMENT, stage, msg);
}

/* Charges, and the medium derived once: installed on the solver, its sparse counts and (after
 * new positions) the dielectric-boundary list from the same derivation. */
static int stage_charges(dg_calc c, pb_medium *pm) {
    const dg_calc_params *s = &c->params;
    calc_result *r = &c->r;
    char msg[1024];
    const int focusing = c->boundary_kind == DG_BOUNDARY_FOCUSING;
    if (charges_spread(&c->mol, &r->grid, focusing, &r->charges, msg, sizeof msg) != 0) {
        r->bad_atom = r->charges.failed_atom;
        return fail(r, CALC_BAD_INPUT, DG_ERR_INVALID_ARGUMENT, "charges", msg);
    }
    long first = -1, second = -1;
    const int repeat = charges_periodic_repeat(&c->mol, &r->grid, &first, &second);
    if (repeat < 0)
        return fail(r, CALC_SOLVER_FAILED, DG_ERR_OUT_OF_MEMORY, "charges", "out of memory");
    if (repeat == 0) {
        r->bad_atom = second;
        snprintf(msg, sizeof msg,
                 "atoms %ld and %ld are one atom a whole number of periods apart along the "
                 "periodic axes (period %d spacings = %.4f A): its charge would count twice; "
                 "give one period of the molecule (the periodic images are implied)",
                 first + 1, second + 1, r->grid.n - 2, (r->grid.n - 2) / r->grid.scale);
        return fail(r, CALC_BAD_INPUT, DG_ERR_INVALID_ARGUMENT, "charges", msg);
    }
    const int ions = r->salt.salt_count > 0 && r->medium.ion_accessible_points > 0;
    if (periodic_net_charge(c, ions, "charges") != CALC_OK) return CALC_BAD_INPUT;
    if (r->charges.atoms_outside)
        add_note(r,
                 "focusing: %d charged atoms lie (partly) outside the box interior; their "
                 "%.4f e act only through the boundary values",
                 r->charges.atoms_outside, r->charges.charge_outside);
    pb_medium_init(pm, &r->grid, &r->medium, &r->charges, &r->salt, s->epsilon_in, s->epsilon_out,
                   s->temperature);
    const int new_boundary = !r->boundary;
    const int st = dg_set_dense_medium_boundary_d(c->solver, &pm->dense, &r->counts,
                                                  new_boundary ? &r->boundary : NULL,
                                                  new_boundary ? &r->boundary_count : NULL);
    if (st != DG_OK)
        return fail(r, CALC_SOLVER_FAILED, st, "medium (library)", dg_last_error(c->solver));
    return CALC_OK;
}

/* The focusing source of the grid being solved: the coarse solve's potential (its salt-free one
 * for a salt-free solve) in focusing in one run, else the caller's map (or none). */
static const phi_map *focus_source(const dg_calc c, int salt_free) {
    const phi_map *m =
        c->coarse_grid.n ? (salt_free ? &c->coarse_salt_free_phi : &c->coarse_phi) : &c->focus;
    return m->data ? m : NULL;
}

static int stage_boundary(dg_calc c, phi_map *phi, double eps_out, double debye_length, int kind,
                          int salt_free) {
    const dg_calc_params *s = &c->params;
    calc_result *r = &c->r;
    char msg[1024];
    if (phi_map_alloc(phi, r->grid.n, s->solver.precision != DG_PRECISION_FLOAT, r->grid.scale,
                      r->grid.center) != 0)
        return fail(r, CALC_SOLVER_FAILED, DG_ERR_OUT_OF_MEMORY, "potential map", "out of memory");
    boundary_params bp = {
        kind, eps_out, debye_length, s->temperature, focus_source(c, salt_free), c->solver};
    const int st = boundary_apply(phi, &c->mol, &bp, msg, sizeof msg);
    if (st != DG_OK)
        return fail(r, st == DG_ERR_INVALID_ARGUMENT ? CALC_BAD_INPUT : CALC_SOLVER_FAILED, st,
                    "boundary conditions", msg);
    return CALC_OK;
}

/* The solver's progress: the program's hook and the stage fraction. */
typedef struct progress_relay {
    dg_calc calc;
    const char *stage;
} progress_relay;

static int relay_progress(const dg_progress *now, void *user) {
    const progress_relay *relay = user;
    const dg_calc c = relay->calc;
    if (c->params.stage_progress && now->estimated_total > 0) {
        const double f = (double)now->iteration / now->estimated_total;
        stage_progress(c, relay->stage, f < 1.0 ? f : 1.0);
    }
    int stop = 0;
    if (c->hooks.progress) stop = c->hooks.progress(now, c->hooks.user);
    if (!stop && c->params.solver.progress)
        stop = c->params.solver.progress(now, c->params.solver.progress_user_data);
    return stop;
}

static void add_notice(calc_result *r, const char *text) {
    if (!text || !text[0] || strstr(r->notice, text)) return;
    size_t used = strlen(r->notice);
    snprintf(r->notice + used, sizeof r->notice - used, "%s%s", used ? "\n" : "", text);
}

/* Solve phi on the medium installed on the handle's solver. */
static int solve(dg_calc c, int nonlinear, const char *stage, phi_map *phi, dg_options *options,
                 dg_result *result, calc_solve_parts *parts) {
    calc_result *r = &c->r;
    const char *instead = pb_solve_options(&c->params, nonlinear, options);
    progress_relay relay = {c, stage};
    options->progress = relay_progress, options->progress_user_data = &relay;
    int st = dg_set_options(c->solver, options);
    if (st == DG_OK)
        st = phi->is_double ? dg_solve_d(c->solver, (double *)phi->data, result)
                            : dg_solve_f(c->solver, (float *)phi->data, result);
    add_notice(r, dg_notice(c->solver));
    dg_solver_timing timing;
    dg_solver_get_timing(c->solver, &timing);
    parts->upload = timing.upload, parts->check_phi = timing.check_phi;
    parts->load_phi = timing.load_phi, parts->spectral = timing.spectral;
    parts->iterate = timing.iterate, parts->store_phi = timing.store_phi;
    parts->mg_setup = timing.mg_setup, parts->mg_cycles = timing.mg_cycles;
    parts->mg_phi_in = timing.mg_phi_in, parts->mg_build = timing.mg_build;
    parts->mg_phi_out = timing.mg_phi_out;
    snprintf(parts->solver_choice, sizeof parts->solver_choice, "%s",
             instead ? instead : dg_solver_choice(c->solver));
    options->progress = c->params.solver.progress;
    options->progress_user_data = c->params.solver.progress_user_data;
    if (st != DG_OK) {
        char msg[1536];
        snprintf(msg, sizeof msg, "%s: %s", dg_status_string(st), dg_last_error(c->solver));
        return fail(r,
                    st == DG_ERR_INVALID_ARGUMENT || st == DG_ERR_BAD_OMEGA ? CALC_BAD_INPUT
                                                                            : CALC_SOLVER_FAILED,
                    st, "solver", msg);
    }
    return CALC_OK;
}

/* DelPhi's salt column (calc_site_column): the mobile ions' net charge concentration at the
 * site's potential p, mol/L of elementary charges; NaN where p is (outside the grid). */
static double site_salt(const salt_model *salt, int nonlinear, double p) {
    double rho = 0.0;
    for (int i = 0; i < salt->ion_count; ++i) {
        const double molar = salt->ions[i].number_density / IONS_PER_A3_PER_MOLAR;
        const int z = salt->ions[i].valence;
        rho += nonlinear ? molar * z * exp(-z * p) : -molar * z * z * p;
    }
    return isnan(p) ? NAN : rho;
}

int calc_ion_map(dg_calc c, medium_maps *own, const unsigned char **ion, char *msg, size_t size) {
    const calc_result *r = &c->r;
    *ion = r->medium.ion_accessible;
    if (*ion) return DG_OK;
    const int st =
        medium_build_on(c->solver, &c->surface, &r->grid, 1, c->params.ion_radius, own, msg, size);
    if (st == DG_OK) *ion = own->ion_accessible;
    return st;
}

/* DelPhi's Debye fraction at the sites: the ion-accessibility map of the run, or, without salt,
 * one built for this by the same stage operation. */
static int site_debye(dg_calc c, char *msg, size_t size) {
    calc_result *r = &c->r;
    medium_maps own = {0};
    const unsigned char *ion = NULL;
    const int st = calc_ion_map(c, &own, &ion, msg, size);
    if (st != DG_OK) return st;
    r->site_debye = malloc((c->site_count + 1) * sizeof(double));
    if (r->site_debye)
        for (size_t i = 0; i < c->site_count; ++i)
            phi_map_interpolate_bytes(&r->phi, ion, c->site_xyz + 3 * i, &r->site_debye[i]);
    medium_free(&own);
    return r->site_debye ? DG_OK : DG_ERR_OUT_OF_MEMORY;
}

/* The sites' columns beside the potential that the program asked for (calc_set_sites). */
static int site_sums(dg_calc c) {
    const dg_calc_params *s = &c->params;
    calc_result *r = &c->r;
    const double t = omp_get_wtime();
    const long count = (long)c->site_count;
    char msg[1024];
    int st = DG_OK;
    if (c->site_columns & CALC_SITE_REACTION) {
        r->site_reaction = malloc((c->site_count + 1) * sizeof(double));
        st = r->site_reaction
                 ? reaction_field_potentials(&r->rf, s->temperature, c->solver, c->site_xyz, count,
                                             r->site_reaction, msg, sizeof msg)
                 : DG_ERR_OUT_OF_MEMORY;
    }
    if (st == DG_OK && (c->site_columns & CALC_SITE_COULOMBIC)) {
        r->site_coulombic = malloc((c->site_count + 1) * sizeof(double));
        st = r->site_coulombic ? coulombic_potentials_on(c->solver, &c->mol, s->epsilon_in,
                                                         s->temperature, c->site_xyz, count,
                                                         r->site_coulombic, NULL, msg, sizeof msg)
                               : DG_ERR_OUT_OF_MEMORY;
    }
    if (st == DG_OK && (c->site_columns & CALC_SITE_SALT)) {
        r->site_salt = malloc((c->site_count + 1) * sizeof(double));
        for (size_t i = 0; r->site_salt && i < c->site_count; ++i)
            r->site_salt[i] = site_salt(&r->salt, r->nonlinear, r->site_potential[i]);
        st = r->site_salt ? DG_OK : DG_ERR_OUT_OF_MEMORY;
    }
    if (st == DG_OK && (c->site_columns & CALC_SITE_DEBYE)) st = site_debye(c, msg, sizeof msg);
    if (st == DG_OK && (c->site_columns & CALC_SITE_REACTION_FORCE)) {
        r->atom_reaction_force = malloc((3 * c->mol.count + 1) * sizeof(double));
        st = r->atom_reaction_force
                 ? reaction_field_forces(&r->rf, &c->mol, s->temperature, c->solver,
                                         r->atom_reaction_force, msg, sizeof msg)
                 : DG_ERR_OUT_OF_MEMORY;
    }
    if (st == DG_OK && (c->site_columns & CALC_SITE_COULOMBIC_FIELD)) {
        r->site_coulombic_field = malloc((3 * c->site_count + 1) * sizeof(double));
        st = r->site_coulombic_field
                 ? coulombic_fields_on(c->solver, &c->mol, s->epsilon_in, s->temperature,
                                       c->site_xyz, count, r->site_coulombic_field, msg, sizeof msg)
                 : DG_ERR_OUT_OF_MEMORY;
    }
    r->time_site_sums = omp_get_wtime() - t;
    if (st == DG_ERR_OUT_OF_MEMORY)
        return fail(r, CALC_SOLVER_FAILED, st, "site potentials",
                    "out of memory for the site columns");
    if (st != DG_OK) return fail(r, CALC_SOLVER_FAILED, st, "site potentials", msg);
    return CALC_OK;
}

static int stage_energies(dg_calc c) {
    const dg_calc_params *s = &c->params;
    calc_result *r = &c->r;
    char msg[1024];
    r->energy_grid = energy_grid(&r->phi, &r->charges);
    const double t = omp_get_wtime();
    if (s->energies & DG_ENERGY_COULOMBIC) {
        r->energy_coulombic = energy_coulombic_on(c->solver, &c->mol, s->epsilon_in, s->temperature,
                                                  &r->coincident_pairs, msg, sizeof msg);
        if (isnan(r->energy_coulombic))
            return fail(r, CALC_SOLVER_FAILED, DG_ERR_DEVICE, "coulombic energy", msg);
    }
    r->time_coulombic = omp_get_wtime() - t;
    if (r->coincident_pairs)
        add_note(r, "coulombic energy: %ld pairs of charged atoms at the same position skipped",
                 r->coincident_pairs);
    const int site_reaction =
        c->site_xyz && (c->site_columns & (CALC_SITE_REACTION | CALC_SITE_REACTION_FORCE));
    if ((s->energies & DG_ENERGY_REACTION_FIELD) || site_reaction) {
        if (reaction_field_compute(&r->phi, &r->grid, r->boundary, r->boundary_count, &r->charges,
                                   &c->surface, &c->mol, s->epsilon_in, s->epsilon_out,
                                   s->temperature, c->solver, &r->rf, msg, sizeof msg) != 0)
            return fail(r, CALC_BAD_INPUT, DG_ERR_INVALID_ARGUMENT, "reaction field", msg);
        r->energy_reaction_field = r->rf.energy;
        r->energy_self_reaction = self_reaction(&c->mol, s->epsilon_in, s->temperature);
        r->energy_total_reaction_field = r->energy_self_reaction + r->rf.energy;
    }
    if (r->nonlinear) {
        /* the terms of the equation solved: DelPhi's series unless Newton's exact sinh ran (the
           solver's own decision, from its medium's series) */
        const int polynomial = !dg_newton_exact_term(c->solver);
        energy_ionic(&r->phi, r->medium.ion_accessible, &r->salt, polynomial, s->solver.periodic,
                     &r->ionic);
        r->ionic_computed = 1;
    }
    if (c->site_xyz) {
        r->site_count = c->site_count;
        r->site_potential = malloc((c->site_count + 1) * sizeof(double));
        if (!r->site_potential)
            return fail(r, CALC_SOLVER_FAILED, DG_ERR_OUT_OF_MEMORY, "site potentials",
                        "out of memory");
        r->sites_outside = site_potentials(&r->phi, c->site_xyz, c->site_count, r->site_potential);
        return site_sums(c);
    }
    return CALC_OK;
}

/* A linear, salt-free solve on the run's grid, medium shape and charges, with eps_in inside
 * and eps_out outside, boundary values of the given kind, from the potential start (NULL:
 * zero) in the interior; on the same solver (its backend and tuned shape).  *grid_energy gets
 * its grid energy. */
static int solve_salt_free(dg_calc c, double eps_out, int kind, const phi_map *start,
                           const char *stage, dg_result *result, calc_solve_parts *parts,
                           double *grid_energy, double **at_atoms, phi_map *keep) {
    const dg_calc_params *s = &c->params;
    calc_result *r = &c->r;
    if (periodic_net_charge(c, 0, stage) != CALC_OK) return CALC_BAD_INPUT;
    pb_medium medium;
    pb_medium_init(&medium, &r->grid, &r->medium, &r->charges, NULL, s->epsilon_in, eps_out,
                   s->temperature);
    phi_map phi;
    memset(&phi, 0, sizeof phi);
    int st = stage_boundary(c, &phi, eps_out, INFINITY, kind, 1);
    const size_t n = (size_t)phi.n;
    for (size_t k = 1; st == CALC_OK && start && k + 1 < n; ++k)
        for (size_t j = 1; j + 1 < n; ++j)
            for (size_t i = 1; i + 1 < n; ++i) {
                const size_t w = i + n * (j + n * k);
                phi_set(&phi, w, phi_get(start, w));
            }
    if (st == CALC_OK) {
        const int dst = dg_set_dense_medium_d(c->solver, &medium.dense);
        if (dst != DG_OK) {
            char what[96];
            snprintf(what, sizeof what, "%s: medium (library)", stage);
            st = fail(r, CALC_SOLVER_FAILED, dst, what, dg_last_error(c->solver));
        }
    }
    dg_options options;
    if (st == CALC_OK) st = solve(c, 0, stage, &phi, &options, result, parts);
    if (st == CALC_OK) *grid_energy = energy_grid(&phi, &r->charges);
    if (st == CALC_OK && at_atoms) { /* its potential at the atoms, interpolated */
        *at_atoms = malloc((c->mol.count + 1) * sizeof **at_atoms);
        if (!*at_atoms)
            st = fail(r, CALC_SOLVER_FAILED, DG_ERR_OUT_OF_MEMORY, stage, "out of memory");
        for (size_t i = 0; *at_atoms && i < c->mol.count; ++i) {
            const calc_atom *a = &c->mol.atoms[i];
            const double p[3] = {a->x, a->y, a->z};
            phi_map_interpolate(&phi, p, &(*at_atoms)[i]);
        }
    }
    if (st == CALC_OK && keep)
        *keep = phi;
    else
        phi_map_free(&phi);
    return st;
}

/* Two-run solvation: the same grid, medium shape and charges with eps_in everywhere and no
 * salt; the solvation energy is the difference of the grid energies (self energies cancel). */
static int stage_reference(dg_calc c) {
    const dg_calc_params *s = &c->params;
    calc_result *r = &c->r;
    /* Focusing values come from a map of the real medium: use Coulombic values instead (in the
       uniform reference medium without salt they are its exact potential when every charge is
       inside the grid). */
    const int kind =
        c->boundary_kind == DG_BOUNDARY_FOCUSING ? DG_BOUNDARY_COULOMBIC : c->boundary_kind;
    if (kind != c->boundary_kind)
        add_note(r, "solvation two-run: the reference run uses Coulombic boundary values");
    const int st =
        solve_salt_free(c, s->epsilon_in, kind, NULL, "reference solve", &r->reference_solve,
                        &r->reference_parts, &r->energy_grid_reference, NULL, NULL);
    if (st == CALC_OK) r->energy_solvation_two_run = r->energy_grid - r->energy_grid_reference;
    return st;
}

/* Binding's salt part: the same medium and boundary kind without the salt, from the potential
 * with salt; the grid energy with the salt minus this one is the salt's share of the grid
 * energy, free of the grid's self energies (which the salt does not change). */
static int stage_salt_free(dg_calc c) {
    calc_result *r = &c->r;
    calc_solve_parts parts;
    memset(&parts, 0, sizeof parts);
    return solve_salt_free(c, c->params.epsilon_out, c->boundary_kind, &r->phi, "salt-free solve",
                           &r->salt_free_solve, &parts, &r->energy_grid_salt_free,
                           c->salt_free_at_atoms ? &r->salt_free_at_atoms : NULL, NULL);
}

/* The grid's medium and dielectric-boundary list (rebuilt for the next grid). */
static void free_grid_geometry(calc_result *r) {
    medium_free(&r->medium);
    free(r->boundary);
    r->boundary = NULL, r->boundary_count = 0;
}

/* Focusing in one run: the coarse grid's medium, charges, boundary values (the caller's kind)
 * and solve, and with salt_free its salt-free solve; their potentials become the focusing
 * sources of the grid's own solves.  The surface is the molecule's on any grid. */
static int stage_coarse(dg_calc c) {
    const dg_calc_params *s = &c->params;
    calc_result *r = &c->r;
    char msg[1024];
    const grid_spec fine = r->grid;
    grid_spec *g = &r->coarse_grid;
    *g = c->coarse_grid;
    for (int a = 0; a < 3; ++a) /* the atoms' box of now (new positions move it) */
        g->box_min[a] = fine.box_min[a], g->box_max[a] = fine.box_max[a];
    g->largest_extent = fine.largest_extent;
    g->perfil = 100.0 * g->largest_extent * g->scale / (g->n - 1);
    free_grid_geometry(r);
    phi_map_free(&c->coarse_phi), phi_map_free(&c->coarse_salt_free_phi);
    r->grid = *g;
    c->boundary_kind = s->boundary;
    int st = CALC_OK;
    const long bad = charges_check_interior(&c->mol, &r->grid, msg, sizeof msg);
    if (bad >= 0) {
        r->bad_atom = bad;
        st = fail(r, CALC_BAD_INPUT, DG_ERR_INVALID_ARGUMENT, "charges", msg);
    }
    pb_medium pm;
    if (st == CALC_OK) st = stage_medium(c);
    if (st == CALC_OK) st = stage_charges(c, &pm);
    if (st == CALC_OK)
        st =
            stage_boundary(c, &c->coarse_phi, s->epsilon_out, r->salt.debye_length, s->boundary, 0);
    if (st == CALC_OK) boundary_face_centres(&c->coarse_phi, r->coarse_face_centres);
    dg_options options;
    if (st == CALC_OK)
        st = solve(c, r->nonlinear, "coarse solve", &c->coarse_phi, &options, &r->coarse_solve,
                   &r->coarse_parts);
    if (st == CALC_OK && c->salt_free && r->salt.salt_count > 0) {
        calc_solve_parts parts;
        memset(&parts, 0, sizeof parts);
        double unused;
        st = solve_salt_free(c, s->epsilon_out, s->boundary, &c->coarse_phi,
                             "coarse salt-free solve", &r->coarse_salt_free_solve, &parts, &unused,
                             NULL, &c->coarse_salt_free_phi);
    }
    if (st != CALC_OK) { /* the message says which grid */
        char prefix[96];
        const size_t len = (size_t)snprintf(prefix, sizeof prefix,
                                            "coarse grid (%d^3, scale %g): ", g->n, g->scale);
        size_t keep = strlen(r->message);
        if (len + keep + 1 > sizeof r->message) keep = sizeof r->message - len - 1;
        memmove(r->message + len, r->message, keep);
        memcpy(r->message, prefix, len);
        r->message[len + keep] = '\0';
    }
    charge_list_free(&r->charges);
    free_grid_geometry(r);
    r->grid = fine;
    c->boundary_kind = DG_BOUNDARY_FOCUSING;
    return st;
}

/* Start a run: keep the geometry (surface, medium, boundary list) when it is current. */
static void reset_run(dg_calc c) {
    calc_result *r = &c->r;
    charge_list_free(&r->charges);
    phi_map_free(&r->phi);
    free(r->site_potential), free(r->site_reaction), free(r->site_coulombic);
    free(r->site_salt), free(r->site_debye), free(r->site_coulombic_field);
    free(r->atom_reaction_force);
    r->site_potential = r->site_reaction = r->site_coulombic = NULL;
    r->site_salt = r->site_debye = r->site_coulombic_field = r->atom_reaction_force = NULL;
    r->site_count = r->sites_outside = 0;
    if (!c->geometry_current) {
        free_grid_geometry(r);
        r->surface_atoms = r->arc_dots = 0;
    }
    r->status = CALC_OK, r->dg_status = DG_OK, r->bad_atom = -1;
    r->message[0] = r->notes[0] = r->notice[0] = '\0';
    r->nonlinear = r->ionic_computed = r->two_run = 0;
    memset(&r->solve, 0, sizeof r->solve);
    memset(&r->reference_solve, 0, sizeof r->reference_solve);
    reaction_field_free(&r->rf);
    memset(&r->ionic, 0, sizeof r->ionic);
    r->coincident_pairs = 0;
    r->energy_grid = r->energy_coulombic = r->energy_self_reaction = NAN;
    r->energy_reaction_field = r->energy_total_reaction_field = NAN;
    r->energy_grid_reference = r->energy_solvation_two_run = NAN;
    r->salt_free_run = 0;
    r->energy_grid_salt_free = NAN;
    free(r->salt_free_at_atoms);
    r->salt_free_at_atoms = NULL;
    memset(&r->salt_free_solve, 0, sizeof r->salt_free_solve);
    r->coarse = 0;
    memset(&r->coarse_grid, 0, sizeof r->coarse_grid);
    memset(&r->coarse_solve, 0, sizeof r->coarse_solve);
    memset(&r->coarse_salt_free_solve, 0, sizeof r->coarse_salt_free_solve);
    memset(&r->coarse_parts, 0, sizeof r->coarse_parts);
    r->time_coarse = 0.0;
    r->time_grid = r->time_surface = r->time_medium = r->time_charges = 0.0;
    r->time_boundary = r->time_solve = r->time_energies = r->time_reference = 0.0;
    r->time_coulombic = r->time_site_sums = r->time_salt_free = 0.0;
    memset(&r->solve_parts, 0, sizeof r->solve_parts);
    memset(&r->reference_parts, 0, sizeof r->reference_parts);
}

int calc_run(dg_calc c) {
    calc_result *r = &c->r;
    const dg_calc_params *s = &c->params;
    reset_run(c);
    c->ran = 0;
    pb_medium pm;
    double t = omp_get_wtime(), now;
    int st = CALC_OK;
#define STAGE(name, call, field, stage)                                                            \
    if (st == CALC_OK) {                                                                           \
        stage_progress(c, name, 0.0);                                                              \
        st = call;                                                                                 \
        now = omp_get_wtime(), r->field = now - t, t = now;                                        \
        if (st == CALC_OK) stage_progress(c, name, 1.0);                                           \
        if (st == CALC_OK && (stage) >= 0) report(c, stage);                                       \
    }
    r->coarse = c->coarse_grid.n > 0;
    c->boundary_kind = r->coarse ? DG_BOUNDARY_FOCUSING : s->boundary;
    STAGE("grid", stage_grid(c), time_grid, CALC_STAGE_GRID);
    const int geometry = !c->geometry_current;
    if (geometry) STAGE("surface", stage_surface(c), time_surface, -1);
    if (r->coarse) /* the grid's medium after the coarse grid's */
        STAGE("coarse solve", stage_coarse(c), time_coarse, CALC_STAGE_COARSE_SOLVE);
    if (geometry || r->coarse) STAGE("medium", stage_medium(c), time_medium, -1);
    if (st == CALC_OK) report(c, CALC_STAGE_MEDIUM);
    if (st == CALC_OK) c->geometry_current = 1;
    STAGE("charges", stage_charges(c, &pm), time_charges, CALC_STAGE_CHARGES);
    STAGE("boundary",
          stage_boundary(c, &r->phi, s->epsilon_out, r->salt.debye_length, c->boundary_kind, 0),
          time_boundary, -1);
    if (st == CALC_OK) {
        boundary_face_centres(&r->phi, r->face_centres);
        report(c, CALC_STAGE_BOUNDARY);
    }
    STAGE("solve",
          solve(c, r->nonlinear, "solve", &r->phi, &r->options, &r->solve, &r->solve_parts),
          time_solve, CALC_STAGE_SOLVE);
    STAGE("energies", stage_energies(c), time_energies, CALC_STAGE_ENERGIES);
    if (st == CALC_OK && s->solvation_two_run) {
        r->two_run = 1;
        STAGE("reference solve", stage_reference(c), time_reference, CALC_STAGE_REFERENCE_SOLVE);
    }
    if (st == CALC_OK && c->salt_free && r->salt.salt_count > 0) {
        r->salt_free_run = 1;
        STAGE("salt-free solve", stage_salt_free(c), time_salt_free, CALC_STAGE_SALT_FREE_SOLVE);
    }
#undef STAGE
    phi_map_free(&c->coarse_phi), phi_map_free(&c->coarse_salt_free_phi);
    c->ran = st == CALC_OK;
    r->status = st;
    if (st == CALC_OK) r->dg_status = DG_OK;
    return st == CALC_OK ? DG_OK : r->dg_status;
}

int calc_place_grids(dg_calc c, char *msg, size_t size) {
    memset(&c->coarse_grid, 0, sizeof c->coarse_grid);
    if (grid_choose(&c->params, &c->mol, &c->r.grid, msg, size) != 0) return -1;
    return grid_choose_coarse(&c->params, &c->r.grid, &c->coarse_grid, msg, size);
}

void calc_result_free(calc_result *r) {
    medium_free(&r->medium);
    free(r->boundary);
    charge_list_free(&r->charges);
    phi_map_free(&r->phi);
    free(r->site_potential), free(r->site_reaction), free(r->site_coulombic);
    free(r->site_salt), free(r->site_debye), free(r->site_coulombic_field);
    free(r->atom_reaction_force);
    free(r->salt_free_at_atoms);
    r->salt_free_at_atoms = NULL;
    reaction_field_free(&r->rf);
    r->boundary = NULL, r->site_potential = r->site_reaction = r->site_coulombic = NULL;
    r->site_salt = r->site_debye = r->site_coulombic_field = r->atom_reaction_force = NULL;
    r->boundary_count = r->site_count = 0;
}
