/* Log sections (one log_info call per line; the log adds the newline). */
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "physics_constants.h"
#include "precision_default.h"
#include "wait_policy.h"

const char *report_bc_name(int bndcon) {
    switch (bndcon) {
    case BC_ZERO:
        return "zero";
    case BC_DIPOLAR:
        return "dipolar";
    case BC_FOCUSING:
        return "focusing";
    case BC_COULOMBIC:
        return "coulombic";
    default:
        return "unknown";
    }
}

static const char *precision_name(int precision) {
    return precision == DG_PRECISION_FLOAT   ? "float"
           : precision == DG_PRECISION_MIXED ? "mixed"
                                             : "double";
}

static const char *backend_name(int b) {
    return b == DG_BACKEND_CPU ? "cpu" : b == DG_BACKEND_CUDA ? "cuda" : "auto";
}

void report_settings(io_log *log, const run_settings *s, const io_notes *notes) {
    log_info(log, "delphi-gpu %s: finite-difference Poisson-Boltzmann (DelPhi-style)",
             dg_version_string());
    log_info(log, "parameter file       : %s", s->param_file[0] ? s->param_file : "(none)");
    if (s->pqr_file[0])
        log_info(log, "molecule (pqr)       : %s", s->pqr_file);
    else
        log_info(log, "molecule (pdb)       : %s (radii %s, charges %s)", s->pdb_file, s->siz_file,
                 s->crg_file);
    if (s->gsize_given) log_info(log, "gsize                : %d", s->gsize);
    log_info(log, "scale, perfil        : %s%g, %s%g", s->scale_given ? "" : "default ", s->scale,
             s->perfil_given ? "" : "default ", s->perfil);
    log_info(log, "indi, exdi           : %g, %g", s->indi, s->exdi);
    log_info(log, "prbrad, ionrad       : %g, %g A", s->prbrad, s->ionrad);
    log_info(log, "surface              : %s",
             s->surface == SURFACE_VDW ? "van der Waals" : "molecular (solvent-excluded)");
    log_info(log, "salt, salt2          : %g, %g M (valences %d:%d, %d:%d)", s->salt, s->salt2,
             s->valence[0], s->valence[1], s->valence[2], s->valence[3]);
    log_info(log, "temperature          : %.4f K", s->temperature);
    log_info(log, "boundary condition   : %d (%s)", s->bndcon, report_bc_name(s->bndcon));
    if (s->coarse_scale > 0.0 || s->coarse_perfil > 0.0)
        log_info(log, "focusing in one run  : from a coarse grid at %s %g (bndcon on its faces)",
                 s->coarse_scale > 0.0 ? "scale" : "perfil",
                 s->coarse_scale > 0.0 ? s->coarse_scale : s->coarse_perfil);
    if (s->periodic)
        log_info(log, "periodic axes        : %s%s%s (the faces of the others as bndcon sets them)",
                 s->periodic & DG_PERIODIC_X ? "x" : "", s->periodic & DG_PERIODIC_Y ? "y" : "",
                 s->periodic & DG_PERIODIC_Z ? "z" : "");
    if (s->linit_given)
        log_info(log, "iterations           : linit %d%s; nonit %d; conint %d, confra %d", s->linit,
                 s->autoc ? " (automatic on)" : "", s->nonit, s->conint, s->confra);
    else
        log_info(log, "iterations           : automatic; nonit %d; conint %d, confra %d", s->nonit,
                 s->conint, s->confra);
    log_info(log, "stop at              : maxc %g, rmsc %g, normc %g kT/e (0 = off)", s->maxc,
             s->rmsc, s->normc);
    if (s->relfac_given) log_info(log, "relfac (spectral)    : %g", s->relfac);
    if (s->relpar_given) log_info(log, "relpar               : %g", s->relpar);
    if (app_precision_follows_backend(s))
        log_info(log, "backend, precision   : %s, %s on the GPU and double on the CPU",
                 backend_name(s->backend), precision_name(APP_GPU_DEFAULT_PRECISION));
    else
        log_info(log, "backend, precision   : %s, %s", backend_name(s->backend),
                 precision_name(s->precision));
    if (s->threads > 0) log_info(log, "threads              : %d", s->threads);
    char policy[128];
    if (app_wait_policy_description(policy, sizeof policy))
        log_info(log, "OpenMP waiting       : %s", policy);
    log_info(log, "energies             :%s%s%s%s%s", s->energy_grid ? " grid" : "",
             s->energy_solvation ? " solvation" : "", s->energy_coulombic ? " coulombic" : "",
             s->energy_ionic ? " ionic" : "", s->solvation_two_run ? " two-run" : "");
    for (int i = 0; notes && i < notes->count; ++i) {
        if (notes->level[i] == IO_NOTE_WARNING)
            log_warning(log, "%s", notes->text[i]);
        else
            log_note(log, "%s", notes->text[i]);
    }
    if (notes && notes->dropped) log_warning(log, "%d more notes were not kept", notes->dropped);
}

void report_molecule(io_log *log, const molecule *mol, const molecule *sites) {
    double q = 0, qplus = 0, qminus = 0;
    size_t charged = 0, no_radius = 0;
    for (size_t i = 0; i < mol->count; ++i) {
        const double c = mol->atoms[i].charge;
        q += c, qplus += c > 0 ? c : 0, qminus += c < 0 ? c : 0;
        charged += c != 0.0, no_radius += mol->atoms[i].radius == 0.0;
    }
    log_info(log, "atoms read           : %zu from %s", mol->count, mol->source);
    log_info(log, "charged atoms        : %zu; net charge %.4f e (+%.4f, %.4f)", charged, q, qplus,
             qminus);
    if (no_radius) log_info(log, "atoms of radius 0    : %zu (no volume)", no_radius);
    if (sites) log_info(log, "sites read           : %zu from %s", sites->count, sites->source);
}

static void report_grid(io_log *log, const calc_result *r) {
    const grid_spec *g = &r->grid;
    const double half = 0.5 * (g->n - 1) / g->scale;
    log_info(log, "grid                 : %d x %d x %d, scale %.4f points/A (%.4f A)", g->n, g->n,
             g->n, g->scale, 1.0 / g->scale);
    log_info(log, "perfil               : %.2f %% (largest extent %.3f A)", g->perfil,
             g->largest_extent);
    log_info(log, "grid centre          : %.4f %.4f %.4f A", g->center[0], g->center[1],
             g->center[2]);
    log_info(log, "molecule box         : %.3f %.3f %.3f to %.3f %.3f %.3f A", g->box_min[0],
             g->box_min[1], g->box_min[2], g->box_max[0], g->box_max[1], g->box_max[2]);
    log_info(log, "grid box             : %.3f %.3f %.3f to %.3f %.3f %.3f A", g->center[0] - half,
             g->center[1] - half, g->center[2] - half, g->center[0] + half, g->center[1] + half,
             g->center[2] + half);
    log_info(log, "memory estimate      : %.1f MiB", r->memory_estimate / 1048576.0);
    if (r->salt.salt_count)
        log_info(log, "ionic strength       : %.4f M, Debye length %.3f A", r->salt.ionic_strength,
                 r->salt.debye_length);
    else
        log_info(log, "ionic strength       : 0 (no salt: Debye length infinite)");
    log_info(log, "equation             : %s", calc_equation_name(r));
}

static void report_medium(io_log *log, const run_settings *s, const calc_result *r) {
    const medium_maps *m = &r->medium;
    const double cell = 1.0 / (r->grid.scale * r->grid.scale * r->grid.scale);
    if (s->surface == SURFACE_VDW)
        log_info(log, "surface              : van der Waals, %d atoms with volume",
                 r->surface_atoms);
    else
        log_info(log,
                 "surface              : molecular, %d atoms with volume, %d accessible arc "
                 "dots",
                 r->surface_atoms, r->arc_dots);
    log_info(log, "solute midpoints     : %zu %zu %zu (x, y, z faces; volume %.1f A^3)",
             m->solute_faces[0], m->solute_faces[1], m->solute_faces[2],
             (double)(m->solute_faces[0] + m->solute_faces[1] + m->solute_faces[2]) * cell / 3.0);
    if (s->surface != SURFACE_VDW)
        log_info(log, "probe shell midpoints: %zu, of which %zu re-entrant (inside the SES)",
                 m->shell_points, m->reentrant_points);
    if (m->ion_accessible) log_info(log, "ion-accessible points: %zu", m->ion_accessible_points);
    if (s->periodic)
        log_info(log,
                 "periodic images      : %ld atoms' copies one period over shape the surface "
                 "at the periodic faces (period %d spacings = %.4f A)",
                 r->periodic_images, r->grid.n - 2, (r->grid.n - 2) / r->grid.scale);
    for (int a = 0; a < 3; ++a)
        if (r->periodic_mismatch[a])
            log_warning(log,
                        "periodic along %c: the medium does not repeat across the %c faces (%ld "
                        "of %ld permittivity and ion-map values there differ from their images, "
                        "the planes n-2 and 1): the molecule reaches them and has no periodic "
                        "images (as in DelPhi); give it more room (perfil) or a molecule that "
                        "repeats with the period, %d spacings = %.4f A",
                        "xyz"[a], "xyz"[a], r -> periodic_mismatch[a], r -> periodic_compared[a],
                        r -> grid.n - 2, (r->grid.n - 2) / r->grid.scale);
}

static void report_charges(io_log *log, const calc_result *r) {
    log_info(log, "charged grid points  : %d (%d odd), net grid charge %.4f e",
             r->counts.charge_count, r->counts.charge_count_odd, r->charges.net_charge);
    log_info(log, "dielectric boundary  : %zu points", r->boundary_count);
    if ((size_t)r->counts.boundary_count != r->boundary_count)
        log_info(log, "boundary points      : %d in the solve (salt boundary included)",
                 r->counts.boundary_count);
    log_info(log, "charges not interior : %d (charged points on the boundary or in the solvent)",
             r->counts.charges_not_interior);
}

static void report_solve(io_log *log, const dg_result *res, const progress_state *p,
                         const char *notice, const char *choice, int newton) {
    if (notice && notice[0]) log_notice(log, "%s", notice);
    log_info(log, "backend              : %s, %s precision",
             res->backend == DG_BACKEND_CUDA ? "cuda" : "cpu", precision_name(res->precision));
    if (choice && choice[0]) log_info(log, "solver choice        : %s", choice);
    if (res->solver == DG_SOLVER_MULTIGRID) {
        log_info(log, "solver               : multigrid-preconditioned CG (iterations are cycles; "
                      "changes are the last cycle's change of phi)");
    } else {
        log_info(log, "gauss-seidel spectral radius is %.6f (omega %.6f)", res->spectral_radius,
                 res->omega);
        log_info(log, "estimated iterations to convergence %d", res->estimated_iterations);
    }
    if (p && p->count) {
        const int rows = 24, stride = p->count > rows ? (p->count + rows - 1) / rows : 1;
        if (res->solver == DG_SOLVER_MULTIGRID && !res->nonlinear_blocks)
            log_info(log, "  rms-change     max change    after cycle%s",
                     stride > 1 ? "   (every few cycles shown)" : "");
        else
            log_info(log, "  rms-change     max change    at iteration%s",
                     stride > 1 ? "   (every few checks shown)" : "");
        for (int i = 0; i < p->count; ++i)
            if (i % stride == 0 || i == p->count - 1)
                log_info(log, "  %.4e     %.4e    %d%s", p->history[i].rms_change,
                         p->history[i].max_change, p->history[i].iteration,
                         p->history[i].phase == DG_PHASE_NONLINEAR ? " (nonlinear)" : "");
    }
    if (res->nonlinear_blocks && newton)
        log_info(log,
                 "outcome              : %s after %d iterations (%d Newton steps, last step "
                 "length %.4g)",
                 dg_outcome_string(res->outcome), res->iterations, res->nonlinear_blocks,
                 res->final_relpar);
    else if (res->nonlinear_blocks)
        log_info(log,
                 "outcome              : %s after %d iterations (%d linear, %d nonlinear "
                 "blocks, final relaxation %.4g)",
                 dg_outcome_string(res->outcome), res->iterations, res->linear_iterations,
                 res->nonlinear_blocks, res->final_relpar);
    else
        log_info(log, "outcome              : %s after %d iterations",
                 dg_outcome_string(res->outcome), res->iterations);
    log_info(log, "mean, max change     : %.4e, %.4e kT/e", res->rms_change, res->max_change);
    log_info(log, "solve time           : %.3f s (setup %.3f s)", res->total_seconds,
             res->setup_seconds);
}

/* "name:" then the value, the colon right after the name as DelPhi prints it (scripts look for
 * "corrected reaction field energy:"), the values aligned. */
static void energy_line(io_log *log, const char *name, double value, const char *unit) {
    const int pad = (int)strlen(name) < 34 ? 34 - (int)strlen(name) : 0;
    if (isfinite(value)) log_info(log, "%s:%*s%16.6f %s", name, pad, "", value, unit);
}

/* A binding partner's energies, named so that DelPhi's labels belong to the complex alone. */
static void report_partner_energies(io_log *log, const run_settings *s, const calc_result *r) {
    char name[64];
    const int k = r->binding_part;
    snprintf(name, sizeof name, "partner %d grid energy", k);
    energy_line(log, name, r->energy_grid, "kT");
    if (s->energy_solvation) {
        snprintf(name, sizeof name, "partner %d corrected reaction field", k);
        energy_line(log, name, r->energy_reaction_field, "kT");
    }
    if (s->energy_coulombic) {
        snprintf(name, sizeof name, "partner %d coulombic energy", k);
        energy_line(log, name, r->energy_coulombic, "kT");
    }
    if (r->ionic_computed) {
        snprintf(name, sizeof name, "partner %d ionic terms", k);
        energy_line(log, name, r->ionic.total, "kT");
    }
}

static void report_energies(io_log *log, const run_settings *s, const calc_result *r) {
    if (r->binding_part == 1 || r->binding_part == 2) {
        report_partner_energies(log, s, r);
        return;
    }
    energy_line(log, "total grid energy", r->energy_grid, "kT");
    if (s->energy_solvation) {
        energy_line(log, "self-reaction field energy", r->energy_self_reaction, "kT");
        energy_line(log, "total s.charge, no epsin carrying", r->rf.total_induced_charge, "e");
        energy_line(log, "  (Gauss's law expects)", r->rf.expected_induced_charge, "e");
        energy_line(log, "corrected reaction field energy", r->energy_reaction_field, "kT");
        energy_line(log, "total reaction field energy", r->energy_total_reaction_field, "kT");
    }
    if (s->energy_coulombic) energy_line(log, "coulombic energy", r->energy_coulombic, "kT");
    if (r->ionic_computed) {
        energy_line(log, "rho*phi/2 term in solution", r->ionic.rho_phi_half, "kT");
        energy_line(log, "osmotic pressure term", r->ionic.osmotic, "kT");
        energy_line(log, "total non linear grid energy", r->energy_grid + r->ionic.total, "kT");
        if (!isfinite(r->ionic.total))
            log_info(log, "ionic energy terms   : not finite (potentials too large for the "
                          "Boltzmann factors), not printed");
    }
    double all = 0;
    int terms = 0;
    if (isfinite(r->energy_reaction_field)) all += r->energy_reaction_field, ++terms;
    if (s->energy_coulombic && isfinite(r->energy_coulombic)) all += r->energy_coulombic, ++terms;
    if (r->ionic_computed && s->energy_ionic && isfinite(r->ionic.total))
        all += r->ionic.total, ++terms;
    if (terms > 1) energy_line(log, "all required terms but grid, self", all, "kT");
    if (r->site_count)
        log_info(log, "site potentials      : %zu sites%s", r->site_count,
                 r->sites_outside ? " (some outside the grid: NaN)" : "");
}

static void report_face_centres(io_log *log, const double c[6]) {
    log_info(log, "  x- %.5g  x+ %.5g  y- %.5g  y+ %.5g  z- %.5g  z+ %.5g", c[0], c[1], c[2], c[3],
             c[4], c[5]);
}

/* Focusing in one run: the coarse grid and its solve(s). */
static void report_coarse(io_log *log, const run_settings *s, const calc_result *r,
                          const progress_state *progress) {
    const grid_spec *g = &r->coarse_grid;
    const double half = 0.5 * (g->n - 1) / g->scale;
    log_info(log,
             "coarse grid          : %d x %d x %d, scale %.4f points/A (%.4f A), perfil %.2f %%, "
             "the grid's centre (focusing in one run)",
             g->n, g->n, g->n, g->scale, 1.0 / g->scale, g->perfil);
    log_info(log, "coarse grid box      : %.3f %.3f %.3f to %.3f %.3f %.3f A", g->center[0] - half,
             g->center[1] - half, g->center[2] - half, g->center[0] + half, g->center[1] + half,
             g->center[2] + half);
    log_info(log, "coarse boundary      : %s; potentials at the face centres (kT/e):",
             report_bc_name(s->bndcon));
    report_face_centres(log, r->coarse_face_centres);
    log_info(log, "coarse solve:");
    const int salt_free = r->coarse_salt_free_solve.iterations > 0;
    /* the progress history holds the salt-free solve's checks too then: not shown */
    report_solve(log, &r->coarse_solve, salt_free ? NULL : progress, NULL,
                 r->coarse_parts.solver_choice, r->options.nonlinear_method == DG_NONLINEAR_NEWTON);
    if (salt_free)
        log_info(log, "coarse salt-free solve (the binding's salt part): %s after %d iterations",
                 dg_outcome_string(r->coarse_salt_free_solve.outcome),
                 r->coarse_salt_free_solve.iterations);
}

void report_stage(io_log *log, const run_settings *s, int stage, const calc_result *r,
                  const progress_state *progress) {
    switch (stage) {
    case CALC_STAGE_GRID:
        report_grid(log, r);
        break;
    case CALC_STAGE_MEDIUM:
        report_medium(log, s, r);
        break;
    case CALC_STAGE_CHARGES:
        report_charges(log, r);
        break;
    case CALC_STAGE_BOUNDARY:
        log_info(log, "boundary condition   : %s; potentials at the face centres (kT/e):",
                 r->coarse ? "focusing (from the coarse grid)" : report_bc_name(s->bndcon));
        report_face_centres(log, r->face_centres);
        break;
    case CALC_STAGE_COARSE_SOLVE:
        report_coarse(log, s, r, progress);
        break;
    case CALC_STAGE_SOLVE:
        report_solve(log, &r->solve, progress, r->notice, r->solve_parts.solver_choice,
                     r->options.nonlinear_method == DG_NONLINEAR_NEWTON);
        break;
    case CALC_STAGE_ENERGIES:
        report_energies(log, s, r);
        break;
    case CALC_STAGE_SALT_FREE_SOLVE:
        log_info(log, "salt-free solve (the binding's salt part): %s after %d iterations",
                 dg_outcome_string(r->salt_free_solve.outcome), r->salt_free_solve.iterations);
        energy_line(log, "  grid energy without salt", r->energy_grid_salt_free, "kT");
        break;
    case CALC_STAGE_REFERENCE_SOLVE:
        log_info(log, "reference solve (eps %g everywhere, no salt):", s->indi);
        report_solve(log, &r->reference_solve, progress, NULL, r->reference_parts.solver_choice, 0);
        energy_line(log, "reference grid energy", r->energy_grid_reference, "kT");
        energy_line(log, "solvation energy (two runs)", r->energy_solvation_two_run, "kT");
        break;
    default:
        break;
    }
}

void report_binding(io_log *log, const run_settings *s, const dg_calc_binding *b,
                    const char *names[2]) {
    log_info(log, "binding (the complex minus partner 1, %s, minus partner 2, %s):", names[0],
             names[1]);
    const dg_calc_energies *d = &b->difference;
    energy_line(log, "binding energy", b->energy, "kT");
    /* kT in kcal/mol: the gas constant 1.98720425864e-3 kcal/(mol K) times T */
    log_info(log, "  = %.4f kcal/mol at %.2f K: coulombic + reaction field%s differences",
             b->energy * 1.98720425864e-3 * s->temperature, s->temperature,
             b->salt != 0.0 ? " + salt" : "");
    energy_line(log, "  coulombic difference", d->coulombic, "kT");
    energy_line(log, "  reaction field difference", d->reaction_field, "kT");
    if (b->salt != 0.0) energy_line(log, "  salt part", b->salt, "kT");
    energy_line(log, "  grid energy difference", b->grid_energy, "kT");
    log_info(log,
             "  (DelPhi's one-grid recipe%s: it keeps part of the grid's self energy of "
             "charges at the interface, and approaches the binding energy slowly as the "
             "scale grows)",
             isfinite(d->ionic_total) ? ", with the ionic terms" : "");
    if (isfinite(d->solvation_two_run))
        energy_line(log, "  solvation (two runs) difference", d->solvation_two_run, "kT");
}

void report_timing(io_log *log, const calc_result *r, double read_seconds, double output_seconds,
                   double total_seconds) {
    char reference[48] = "", coarse[48] = "";
    if (r->two_run) snprintf(reference, sizeof reference, ", reference %.3f", r->time_reference);
    if (r->coarse) snprintf(coarse, sizeof coarse, "coarse grid %.3f, ", r->time_coarse);
    log_info(log,
             "time (wall s)        : read %.3f, grid %.3f, medium %.3f, %scharges %.3f, "
             "boundary %.3f, solve %.3f, energies %.3f%s, outputs %.3f",
             read_seconds, r->time_grid, r->time_surface + r->time_medium, coarse, r->time_charges,
             r->time_boundary, r->time_solve, r->time_energies, reference, output_seconds);
    log_info(log,
             "stage parts (wall s) : surface model %.3f, medium maps %.3f, coulombic %.3f, "
             "reaction field sites %.3f, reaction field sums %.3f, site sums %.3f",
             r->time_surface, r->time_medium, r->time_coulombic, r->rf.time_sites, r->rf.time_sums,
             r->time_site_sums);
    for (int k = 0; k < 1 + r->two_run; ++k) {
        const calc_solve_parts *t = k ? &r->reference_parts : &r->solve_parts;
        log_info(log,
                 "%s: medium upload %.3f, phi check %.3f, load %.3f, spectral radius %.3f, "
                 "iterations %.3f, store %.3f",
                 k ? "reference parts (s) " : "solve parts (wall s) ", t->upload, t->check_phi,
                 t->load_phi, t->spectral, t->iterate, t->store_phi);
        if (t->mg_setup > 0.0 || t->mg_cycles > 0.0)
            log_info(log,
                     "%s: multigrid set-up %.3f (phi in %.3f, hierarchy %.3f, answer out %.3f), "
                     "cycles %.3f",
                     k ? "reference multigrid " : "solve multigrid     ", t->mg_setup, t->mg_phi_in,
                     t->mg_build, t->mg_phi_out, t->mg_cycles);
    }
    log_info(log, "total time           : %.3f s", total_seconds);
}
