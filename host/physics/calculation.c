/* The PB calculation, stage by stage (see calculation.h). */
#include "calculation.h"

#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boundary.h"
#include "pb_solve.h"
#include "physics_constants.h"
#include "surface.h"

static void add_note(calc_result *r, const char *fmt, ...) {
    size_t used = strlen(r->notes);
    if (used + 2 >= sizeof r->notes) return;
    if (used) r->notes[used++] = '\n', r->notes[used] = '\0';
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->notes + used, sizeof r->notes - used, fmt, ap);
    va_end(ap);
}

static int fail(calc_result *r, int status, const char *what, const char *detail) {
    r->status = status;
    snprintf(r->message, sizeof r->message, "%s%s%s", what, detail && detail[0] ? ": " : "",
             detail ? detail : "");
    return status;
}

static void report(const calc_hooks *h, int stage, const calc_result *r) {
    if (h && h->stage) h->stage(stage, r, h->user);
}

const char *calc_equation_name(const calc_result *r) {
    if (r->nonlinear) return "nonlinear_pb";
    return r->salt.salt_count > 0 ? "linear_pb" : "poisson";
}

/* Sum over atoms of q^2 (1/eps_in - 1) / (2 r) epkt; DelPhi gives radius-0 atoms 1 A (radpol). */
static double self_reaction(const molecule *mol, double eps_in, double temperature) {
    double sum = 0.0;
    for (size_t i = 0; i < mol->count; ++i) {
        const atom *a = &mol->atoms[i];
        const double radius = a->radius > 0.0 ? a->radius : 1.0;
        sum += a->charge * a->charge / radius;
    }
    return 0.5 * sum * (1.0 / eps_in - 1.0) * epkt_at(temperature);
}

/* Grid, salt, equation and the memory check. */
static int stage_grid(const calc_input *in, calc_result *r) {
    const run_settings *s = in->settings;
    char msg[1024];
    if (grid_choose(s, in->mol, &r->grid, msg, sizeof msg) != 0)
        return fail(r, CALC_BAD_INPUT, "grid", msg);
    if (r->grid.note[0]) add_note(r, "grid: %s", r->grid.note);
    if (!(s->indi > 0.0) || !(s->exdi > 0.0) || !(s->temperature > 0.0))
        return fail(r, CALC_BAD_INPUT, "medium", "indi, exdi and the temperature must be > 0");
    salt_model_from_settings(s, &r->salt);
    r->nonlinear = pb_wants_nonlinear(s, &r->salt);
    if (s->nonit > 0 && !r->nonlinear)
        add_note(r, "nonit %d ignored: the nonlinear equation needs salt", s->nonit);
    const int dbl = s->precision != DG_PRECISION_FLOAT;
    memory_plan plan = {r->grid.n,
                        dbl,
                        r->salt.salt_count > 0,
                        s->solvation_two_run,
                        in->focus_source ? (size_t)in->focus_source->n * in->focus_source->n *
                                               in->focus_source->n
                                         : 0,
                        s->map_count > 0 && !dbl,
                        s->precision == DG_PRECISION_MIXED};
    r->memory_estimate = memory_estimate_bytes(&plan);
    if (memory_check(&plan, msg, sizeof msg) != 0) return fail(r, CALC_BAD_INPUT, "grid", msg);
    return CALC_OK;
}

static int stage_medium(const calc_input *in, surface_model *sm, calc_result *r) {
    const run_settings *s = in->settings;
    char msg[1024];
    if (surface_model_build(sm, in->mol, s->surface, s->prbrad, SURFACE_DOT_SPACING, msg,
                            sizeof msg) != 0)
        return fail(r, CALC_BAD_INPUT, "surface", msg);
    r->surface_atoms = sm->count, r->arc_dots = sm->dot_count;
    const int ions = r->salt.salt_count > 0;
    if (medium_build(sm, &r->grid, ions, s->ionrad, &r->medium, msg, sizeof msg) != 0)
        return fail(r, CALC_BAD_INPUT, "medium", msg);
    return CALC_OK;
}

static int stage_charges(const calc_input *in, calc_result *r, pb_medium *pm) {
    const run_settings *s = in->settings;
    char msg[1024];
    const int focusing = s->bndcon == BC_FOCUSING;
    if (charges_spread(in->mol, &r->grid, focusing, &r->charges, msg, sizeof msg) != 0)
        return fail(r, CALC_BAD_INPUT, "charges", msg);
    if (r->charges.atoms_outside)
        add_note(r,
                 "focusing: %d charged atoms lie (partly) outside the box interior; their "
                 "%.4f e act only through the boundary values",
                 r->charges.atoms_outside, r->charges.charge_outside);
    pb_medium_init(pm, &r->grid, &r->medium, &r->charges, &r->salt, s->indi, s->exdi,
                   s->temperature);
    int st = pb_boundary_points(&pm->dense, &r->boundary, &r->boundary_count, &r->counts, msg,
                                sizeof msg);
    if (st != DG_OK) return fail(r, CALC_SOLVER_FAILED, "medium (library)", msg);
    return CALC_OK;
}

static int stage_boundary(const calc_input *in, calc_result *r, phi_map *phi, double eps_out,
                          double debye_length, int kind) {
    const run_settings *s = in->settings;
    char msg[1024];
    if (phi_map_alloc(phi, r->grid.n, s->precision != DG_PRECISION_FLOAT, r->grid.scale,
                      r->grid.center) != 0)
        return fail(r, CALC_BAD_INPUT, "potential map", "out of memory");
    dg_options options; /* the solve's backend, device and threads */
    pb_options_from_settings(s, 0, &options, NULL, 0);
    boundary_params bp = {kind, eps_out, debye_length, s->temperature, in->focus_source, &options};
    const int st = boundary_apply(phi, in->mol, &bp, msg, sizeof msg);
    if (st != 0)
        return fail(r, st == -2 ? CALC_SOLVER_FAILED : CALC_BAD_INPUT, "boundary conditions", msg);
    return CALC_OK;
}

static int solve(const calc_input *in, const calc_hooks *h, calc_result *r, int nonlinear,
                 const dg_dense_medium_d *medium, phi_map *phi, dg_options *options,
                 dg_result *result) {
    char note[256], msg[1536];
    pb_options_from_settings(in->settings, nonlinear, options, note, sizeof note);
    if (note[0] && !strstr(r->notes, note)) add_note(r, "%s", note);
    if (h) options->progress = h->progress, options->progress_user_data = h->user;
    char notice[512];
    const int st = pb_solve(options, medium, phi, result, notice, sizeof notice, msg, sizeof msg);
    if (notice[0] && !strstr(r->notice, notice)) {
        size_t used = strlen(r->notice);
        snprintf(r->notice + used, sizeof r->notice - used, "%s%s", used ? "\n" : "", notice);
    }
    if (st != DG_OK)
        return fail(r,
                    st == DG_ERR_INVALID_ARGUMENT || st == DG_ERR_BAD_OMEGA ? CALC_BAD_INPUT
                                                                            : CALC_SOLVER_FAILED,
                    "solver", msg);
    return CALC_OK;
}

static int stage_energies(const calc_input *in, const surface_model *sm, calc_result *r) {
    const run_settings *s = in->settings;
    char msg[1024];
    r->energy_grid = energy_grid(&r->phi, &r->charges);
    if (s->energy_coulombic)
        r->energy_coulombic =
            energy_coulombic(in->mol, s->indi, s->temperature, &r->coincident_pairs);
    if (r->coincident_pairs)
        add_note(r, "coulombic energy: %ld pairs of charged atoms at the same position skipped",
                 r->coincident_pairs);
    if (s->energy_solvation) {
        if (reaction_field_compute(&r->phi, &r->grid, r->boundary, r->boundary_count, &r->charges,
                                   sm, in->mol, s->indi, s->exdi, s->temperature, &r->rf, msg,
                                   sizeof msg) != 0)
            return fail(r, CALC_BAD_INPUT, "reaction field", msg);
        r->energy_reaction_field = r->rf.energy;
        r->energy_self_reaction = self_reaction(in->mol, s->indi, s->temperature);
        r->energy_total_reaction_field = r->energy_self_reaction + r->rf.energy;
    }
    if (r->nonlinear) {
        energy_ionic(&r->phi, r->medium.ion_accessible, &r->salt, &r->ionic);
        r->ionic_computed = 1;
    }
    if (in->want_sites) {
        const molecule *sites = in->sites ? in->sites : in->mol;
        r->site_count = sites->count;
        r->site_potential = malloc((sites->count + 1) * sizeof(double));
        double *xyz = malloc((sites->count + 1) * 3 * sizeof(double));
        if (!r->site_potential || !xyz) {
            free(xyz);
            return fail(r, CALC_BAD_INPUT, "site potentials", "out of memory");
        }
        for (size_t i = 0; i < sites->count; ++i)
            xyz[3 * i] = sites->atoms[i].x, xyz[3 * i + 1] = sites->atoms[i].y,
                    xyz[3 * i + 2] = sites->atoms[i].z;
        r->sites_outside = site_potentials(&r->phi, xyz, sites->count, r->site_potential);
        free(xyz);
    }
    return CALC_OK;
}

/* --solvation-two-run: the same grid, medium shape and charges with eps_in everywhere and no
 * salt; the solvation energy is the difference of the grid energies (self energies cancel). */
static int stage_reference(const calc_input *in, const calc_hooks *h, calc_result *r) {
    const run_settings *s = in->settings;
    pb_medium reference;
    pb_medium_init(&reference, &r->grid, &r->medium, &r->charges, NULL, s->indi, s->indi,
                   s->temperature);
    /* Focusing values come from a map of the real medium: use Coulombic values instead. */
    const int kind = s->bndcon == BC_FOCUSING ? BC_COULOMBIC : s->bndcon;
    if (kind != s->bndcon)
        add_note(r, "solvation two-run: the reference run uses Coulombic boundary values");
    phi_map ref;
    int st = stage_boundary(in, r, &ref, s->indi, INFINITY, kind);
    dg_options options;
    if (st == CALC_OK)
        st = solve(in, h, r, 0, &reference.dense, &ref, &options, &r->reference_solve);
    if (st == CALC_OK) {
        r->energy_grid_reference = energy_grid(&ref, &r->charges);
        r->energy_solvation_two_run = r->energy_grid - r->energy_grid_reference;
    }
    phi_map_free(&ref);
    return st;
}

int calc_run(const calc_input *in, const calc_hooks *h, calc_result *r) {
    memset(r, 0, sizeof *r);
    r->energy_grid = r->energy_coulombic = r->energy_self_reaction = NAN;
    r->energy_reaction_field = r->energy_total_reaction_field = NAN;
    r->energy_grid_reference = r->energy_solvation_two_run = NAN;
    const run_settings *s = in->settings;
    surface_model sm;
    memset(&sm, 0, sizeof sm);
    pb_medium pm;
    double t = omp_get_wtime(), now;
    int st = stage_grid(in, r);
#define LAP(field, stage)                                                                          \
    now = omp_get_wtime(), r->field = now - t, t = now;                                            \
    if (st == CALC_OK) report(h, stage, r)
    LAP(time_grid, CALC_STAGE_GRID);
    if (st == CALC_OK) st = stage_medium(in, &sm, r);
    LAP(time_medium, CALC_STAGE_MEDIUM);
    if (st == CALC_OK) st = stage_charges(in, r, &pm);
    LAP(time_charges, CALC_STAGE_CHARGES);
    if (st == CALC_OK)
        st = stage_boundary(in, r, &r->phi, s->exdi, r->salt.debye_length, s->bndcon);
    if (st == CALC_OK) boundary_face_centres(&r->phi, r->face_centres);
    LAP(time_boundary, CALC_STAGE_BOUNDARY);
    if (st == CALC_OK)
        st = solve(in, h, r, r->nonlinear, &pm.dense, &r->phi, &r->options, &r->solve);
    LAP(time_solve, CALC_STAGE_SOLVE);
    if (st == CALC_OK) st = stage_energies(in, &sm, r);
    LAP(time_energies, CALC_STAGE_ENERGIES);
    if (st == CALC_OK && s->solvation_two_run) {
        r->two_run = 1;
        st = stage_reference(in, h, r);
        LAP(time_reference, CALC_STAGE_REFERENCE_SOLVE);
    }
#undef LAP
    surface_model_free(&sm);
    return r->status = st;
}

void calc_result_free(calc_result *r) {
    medium_free(&r->medium);
    free(r->boundary);
    charge_list_free(&r->charges);
    phi_map_free(&r->phi);
    free(r->site_potential);
    r->boundary = NULL, r->site_potential = NULL;
}
