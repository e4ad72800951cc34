/* The program's pipeline (see pipeline.h). */
#include "pipeline.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "app_mpi.h"
#include "backend_choice.h"
#include "backend_notice.h"
#include "calc_params.h"
#include "io_molecule.h"
#include "io_settings.h"
#include "outputs.h"
#include "precision_default.h"
#include "report.h"
#include "run_checks.h"
#include "temp_files.h"

typedef struct hook_context {
    pipeline *p;
} hook_context;

static void on_stage(int stage, const calc_result *r, void *user) {
    pipeline *p = ((hook_context *)user)->p;
    if (stage == CALC_STAGE_GRID && r->binding_part) {
        const int k = r->binding_part - 1;
        if (k < 2)
            log_info(&p->log,
                     "binding: partner %d, %s (%ld atoms, net charge %.4f e), alone on "
                     "the complex's grid",
                     k + 1, p->partner_name[k], p->binding.atoms[k], p->binding.net_charge[k]);
        else
            log_info(&p->log, "binding: the complex, both partners (%zu atoms)", p->mol.count);
        progress_reset(&p->progress, "solve");
    }
    if (stage == CALC_STAGE_GRID && r->coarse) progress_reset(&p->progress, "coarse solve");
    /* The AUTO fallback notice was said before the calculation: not again with the solve. */
    if (stage == CALC_STAGE_SOLVE)
        backend_notice_drop(((calc_result *)r)->notice, p->backend_notice);
    report_stage(&p->log, &p->settings, stage, r, &p->progress);
    if (stage == CALC_STAGE_COARSE_SOLVE) progress_reset(&p->progress, "solve");
    if (stage == CALC_STAGE_ENERGIES && p->settings.solvation_two_run)
        progress_reset(&p->progress, "reference solve");
    else if ((stage == CALC_STAGE_ENERGIES || stage == CALC_STAGE_REFERENCE_SOLVE) &&
             r->binding_part)
        progress_reset(&p->progress, "salt-free solve");
}

static int on_progress(const dg_progress *now, void *user) {
    return progress_record(now, &((hook_context *)user)->p->progress);
}

/* The focusing source map, read through host_io and viewed as a phi_map. */
static int read_focus_map(pipeline *p, io_error *err) {
    const run_settings *s = &p->settings;
    int st = map_read(s->phi_in_file, -1, &p->focus_map, err);
    if (st != IO_OK) return st;
    p->has_focus = 1;
    const map_grid *m = &p->focus_map;
    if (m->n[0] != m->n[1] || m->n[0] != m->n[2])
        return io_fail(err, IO_ERR_UNSUPPORTED, s->phi_in_file, 0, "in(phi)",
                       "focusing needs a cubic map; this one is %d x %d x %d", m->n[0], m->n[1],
                       m->n[2]);
    if (m->kind[0] && strncmp(m->kind, "potential", 9) != 0)
        return io_fail(err, IO_ERR_INPUT, s->phi_in_file, 0, "in(phi)",
                       "the map holds \"%s\", not a potential", m->kind);
    log_info(&p->log, "focusing source map  : %s (%d^3, scale %g, centre %.3f %.3f %.3f)",
             s->phi_in_file, m->n[0], m->scale, m->center[0], m->center[1], m->center[2]);
    return IO_OK;
}

/* center(file=...): the grid centre at the mean position of the file's atoms (DelPhi's rule). */
static int read_center_file(pipeline *p, io_error *err) {
    run_settings *s = &p->settings;
    molecule atoms = {0};
    int st = molecule_read_sites(s->center_file, &atoms, &p->notes, err);
    if (st == IO_OK && atoms.count == 0)
        st = io_fail(err, IO_ERR_INPUT, s->center_file, 0, "center(file)",
                     "no ATOM or HETATM lines to centre the grid on");
    if (st == IO_OK) {
        /* center(777,777,..) and (999,999,..): the first atom alone, as DelPhi. */
        const size_t used = s->center_first_atom ? 1 : atoms.count;
        double sum[3] = {0.0, 0.0, 0.0};
        for (size_t i = 0; i < used; ++i)
            sum[0] += atoms.atoms[i].x, sum[1] += atoms.atoms[i].y, sum[2] += atoms.atoms[i].z;
        for (int k = 0; k < 3; ++k)
            s->center[k] = sum[k] / (double)used;
        s->center_mode = DG_CENTER_ABSOLUTE;
        if (s->center_first_atom)
            log_info(&p->log, "grid centred on      : %s (its first atom: %.4f %.4f %.4f A)",
                     s->center_file, s->center[0], s->center[1], s->center[2]);
        else
            log_info(&p->log, "grid centred on      : %s (mean of %zu atoms: %.4f %.4f %.4f A)",
                     s->center_file, atoms.count, s->center[0], s->center[1], s->center[2]);
    }
    molecule_free(&atoms);
    return st;
}

/* --binding: each atom's partner, and the refusal of focusing (its map is one molecule's). */
static int split_partners(pipeline *p, io_error *err) {
    const run_settings *s = &p->settings;
    if (s->bndcon == BC_FOCUSING)
        return io_fail(err, IO_ERR_INPUT, NULL, 0, "--binding",
                       "bndcon=3 (focusing) takes its boundary values from one molecule's map, "
                       "not from each partner's; use bndcon=2 or 4 on a grid that holds the "
                       "complex");
    p->partner = malloc((p->mol.count + 1) * sizeof *p->partner);
    if (!p->partner)
        return io_fail(err, IO_ERR_INPUT, NULL, 0, "--binding", "out of memory for %zu atoms",
                       p->mol.count);
    const int st = binding_split(s->binding, &p->mol, p->partner, p->partner_name, err);
    if (st == IO_OK) {
        double net[2] = {0.0, 0.0};
        long count[2] = {0, 0};
        for (size_t i = 0; i < p->mol.count; ++i)
            net[p->partner[i]] += p->mol.atoms[i].charge, ++count[p->partner[i]];
        for (int k = 0; k < 2; ++k)
            log_info(&p->log, "binding partner %d    : %s, %ld atoms, net charge %.4f e", k + 1,
                     p->partner_name[k], count[k], net[k]);
    }
    return st;
}

/* An io status as the program's exit status: out of memory is the run's failure (2), not the
 * input's; every other failure (bad input, a file not read or written) is 1. */
static int exit_for_io(int status) {
    return status == IO_OK           ? EXIT_OK
           : status == IO_ERR_MEMORY ? EXIT_SOLVER_FAILED
                                     : EXIT_BAD_INPUT;
}

/* Read the inputs: molecule, sites, focusing map.  Returns an exit status. */
static int read_inputs(pipeline *p) {
    io_error err;
    io_error_clear(&err);
    const run_settings *s = &p->settings;
    const int first_note = p->notes.count;
    if ((s->periodic & DG_PERIODIC_Z) && app_mpi_size() > 1) {
        log_error(&p->log,
                  "a periodic z (pbz) is solved on one process (the MPI ranks split the grid "
                  "along z; x and y may be periodic under mpirun); run the program without "
                  "mpirun (%d ranks)",
                  app_mpi_size());
        return EXIT_BAD_INPUT;
    }
    /* what a split solve does not have, refused by its option before any work (docs/MPI.md) */
    if (app_mpi_size() > 1 && s->solver_given && s->solver == DG_SOLVER_MULTIGRID) {
        log_error(&p->log,
                  "--solver mg: multigrid runs on one process; under mpirun (%d ranks) "
                  "use --solver sor or auto (auto takes the SOR there)",
                  app_mpi_size());
        return EXIT_BAD_INPUT;
    }
    if (app_mpi_size() > 1 && s->precision_given && s->precision == DG_PRECISION_MIXED) {
        log_error(&p->log,
                  "--precision mixed runs on one process; under mpirun (%d ranks) use double "
                  "or float",
                  app_mpi_size());
        return EXIT_BAD_INPUT;
    }
    int st = molecule_load(s, &p->mol, &p->notes, &err);
    if (st == IO_OK && s->frc_in_file[0]) {
        st = molecule_read_sites(s->frc_in_file, &p->sites, &p->notes, &err);
        /* a site file without charges: the molecule's tables give them, as in DelPhi */
        int tables = 0;
        if (st == IO_OK && p->sites.positions_only) st = molecule_uses_tables(s, &tables, &err);
        if (st == IO_OK && tables)
            st = molecule_sites_from_tables(&p->sites, s->siz_file, s->crg_file, &p->notes, &err);
        p->has_sites = st == IO_OK;
    }
    if (st == IO_OK) report_molecule(&p->log, &p->mol, p->has_sites ? &p->sites : NULL);
    /* the solvation run's reference has no salt */
    const int saltless = (!(s->salt > 0.0) && !(s->salt2 > 0.0)) || s->solvation_two_run;
    if (st == IO_OK && s->periodic == (DG_PERIODIC_X | DG_PERIODIC_Y | DG_PERIODIC_Z) && saltless) {
        const double net = molecule_net_charge(&p->mol);
        if (fabs(net) > 1e-6) {
            log_error(&p->log,
                      "a net charge (%.4f e) in a box periodic along x, y and z without salt%s "
                      "has no potential (every period adds the same charge, and the potential "
                      "grows without bound); add salt or leave an axis non-periodic",
                      net, s->solvation_two_run ? " (the solvation run's reference)" : "");
            return EXIT_BAD_INPUT;
        }
    }
    if (st == IO_OK && s->binding[0]) st = split_partners(p, &err);
    if (st == IO_OK && s->center_file[0]) st = read_center_file(p, &err);
    if (st == IO_OK && s->bndcon == BC_FOCUSING) st = read_focus_map(p, &err);
    run_log_notes_from(&p->log, &p->notes, first_note); /* what the readers skipped or changed */
    if (st != IO_OK) log_error(&p->log, "%s", err.message);
    return exit_for_io(st);
}

/* A solve that met its criterion, or ran the requested iterations without one. */
static int solve_finished(const dg_result *d) {
    return d->outcome != DG_OUTCOME_NOT_CONVERGED && d->outcome != DG_OUTCOME_DIVERGED &&
           d->outcome != DG_OUTCOME_FLOAT_RESOLUTION;
}

/* The i-th of the run's solves (NULL past the last) and its name as the log gives it: the
 * solve, its reference and coarse ones and, in a binding, the other states'.  Solves that did
 * not run are zeroed ("converged", never unchecked). */
static const dg_result *run_solve(const pipeline *p, int i, char *label, size_t size) {
    const calc_result *r = p->result;
    const dg_calc_binding *b = &p->binding;
    const struct {
        const dg_result *solve;
        const char *name;
        int partner; /* 1, 2: that partner's; 0: the run's own (the complex in a binding) */
    } all[] = {{&r->solve, "solve", 0},
               {&r->reference_solve, "reference solve", 0},
               {&r->coarse_solve, "coarse grid's solve", 0},
               {&r->coarse_salt_free_solve, "coarse grid's salt-free solve", 0},
               {&b->salt_free_solve[0], "complex's salt-free solve", 0},
               {&b->solve[0], "solve", 1},
               {&b->reference_solve[0], "reference solve", 1},
               {&b->salt_free_solve[1], "salt-free solve", 1},
               {&b->coarse_solve[0], "coarse grid's solve", 1},
               {&b->coarse_salt_free_solve[1], "coarse grid's salt-free solve", 1},
               {&b->solve[1], "solve", 2},
               {&b->reference_solve[1], "reference solve", 2},
               {&b->salt_free_solve[2], "salt-free solve", 2},
               {&b->coarse_solve[1], "coarse grid's solve", 2},
               {&b->coarse_salt_free_solve[2], "coarse grid's salt-free solve", 2}};
    /* the first four are every run's, the rest a binding's */
    const int count = p->has_binding ? (int)(sizeof all / sizeof all[0]) : 4;
    if (i < 0 || i >= count) return NULL;
    if (all[i].partner > 0)
        snprintf(label, size, "partner %d's %s", all[i].partner, all[i].name);
    else
        snprintf(label, size, "%s", all[i].name);
    return all[i].solve;
}

/* The first of the run's solves that did not finish (its name in label), or NULL. */
static const dg_result *unfinished_solve(const pipeline *p, char *label, size_t size) {
    const dg_result *d;
    for (int i = 0; (d = run_solve(p, i, label, size)) != NULL; ++i)
        if (!solve_finished(d)) return d;
    return NULL;
}

static int exit_for_calc(const pipeline *p) {
    if (p->calc_status == CALC_BAD_INPUT) return EXIT_BAD_INPUT;
    if (p->calc_status != CALC_OK) return EXIT_SOLVER_FAILED;
    /* Float's resolution is "not converged" too: the criterion was not met. */
    char label[96];
    return unfinished_solve(p, label, sizeof label) ? EXIT_NOT_CONVERGED : EXIT_OK;
}

static void print_calc_notes(pipeline *p) {
    const char *text = p->result ? p->result->notes : NULL;
    while (text && *text) {
        const char *end = strchr(text, '\n');
        const int len = end ? (int)(end - text) : (int)strlen(text);
        log_note(&p->log, "%.*s", len, text);
        text = end ? end + 1 : NULL;
    }
}

static void write_summary(pipeline *p, double start) {
    const run_settings *s = &p->settings;
    if (!s->json_file[0]) return;
    const calc_result *r = p->calc_ran ? p->result : NULL;
    summary_times t = {0, 0, 0, 0, p->time_read};
    if (r) {
        t.setup = p->time_read + r->time_grid + r->time_surface + r->time_medium + r->time_charges +
                  r->time_boundary;
        t.solve = r->time_solve;
        t.energies = r->time_energies;
    }
    t.total = omp_get_wtime() - start;
    io_error err;
    io_error_clear(&err);
    const outputs_binding binding = {p->has_binding ? &p->binding : NULL,
                                     {p->partner_name[0], p->partner_name[1]}};
    if (outputs_write_summary(s, r, &p->mol, &t, p->exit_code, &p->log.said, p->backend_reason,
                              &binding, &err) != IO_OK) {
        log_error(&p->log, "%s", err.message);
        if (p->exit_code == EXIT_OK || p->exit_code == EXIT_NOT_CONVERGED)
            p->exit_code = exit_for_io(err.status);
    } else {
        if (!p->summary_private) log_info(&p->log, "summary written: %s", s->json_file);
    }
}

/* A failure of the calculation layer: its status class and message, the atom named by the
 * program's identity of it (file line, serial, name). */
static void calc_failed(pipeline *p, int status, const char *message) {
    p->calc_status = status;
    const long bad = p->result ? p->result->bad_atom : -1;
    if (bad >= 0 && (size_t)bad < p->mol.count) {
        const atom *a = &p->mol.atoms[bad];
        snprintf(p->message, sizeof p->message, "%s line %d: atom %d %s %s %d: %s", p->mol.source,
                 a->source_line, a->serial, a->name, a->residue, a->residue_number, message);
    } else {
        snprintf(p->message, sizeof p->message, "%s", message);
    }
}

/* dg_status of the handle's creation or parameters -> the program's status class. */
static int status_class(int st) {
    return st == DG_ERR_INVALID_ARGUMENT || st == DG_ERR_NONFINITE_INPUT ||
                   st == DG_ERR_INVALID_GRID || st == DG_ERR_BAD_OMEGA
               ? CALC_BAD_INPUT
               : CALC_SOLVER_FAILED;
}

/* Stage progress of the calculation layer: a line for a stage that took a while (the solves
 * have their own lines), and the fraction of long stages every few seconds. */
static void on_stage_progress(const char *stage, double fraction, void *user) {
    pipeline *p = ((hook_context *)user)->p;
    const double now = omp_get_wtime();
    if (fraction <= 0.0) {
        p->stage_started = now, p->progress.last_line = 0.0;
        return;
    }
    if (strstr(stage, "solve")) return;
    const double elapsed = now - p->stage_started;
    if (fraction >= 1.0) {
        if (elapsed >= PROGRESS_FIRST_LINE)
            log_progress(&p->log, "%s: done in %.1f s", stage, elapsed);
    } else if (elapsed >= PROGRESS_FIRST_LINE &&
               elapsed - p->progress.last_line >= PROGRESS_INTERVAL) {
        p->progress.last_line = elapsed;
        log_progress(&p->log, "%s: %.0f %% after %.1f s", stage, 100.0 * fraction, elapsed);
    }
}

/* A failed binding run: the state that failed, named as the log names it. */
static void binding_failed(pipeline *p, int st) {
    const calc_result *r = p->result;
    const int part = r->binding_part;
    const int status = r->status != CALC_OK ? r->status : status_class(st);
    char message[2048];
    if (part == 1 || part == 2)
        snprintf(message, sizeof message, "binding, partner %d (%.90s) alone: %.1900s", part,
                 p->partner_name[part - 1],
                 r->status != CALC_OK ? r->message : dg_calc_last_error(p->calc));
    else
        snprintf(message, sizeof message, "binding: %.2000s", dg_calc_last_error(p->calc));
    calc_failed(p, status, message);
}

/* The calculation handle for these settings: the lent one re-parameterised, or a new one. */
static int prepare_calc(pipeline *p, dg_calc *shared, hook_context *ctx) {
    dg_calc_params params;
    calc_params_from_settings(&p->settings, &params);
    params.stage_progress = on_stage_progress;
    params.stage_progress_user_data = ctx;
    int st;
    if (shared && *shared) {
        p->calc = *shared;
        st = dg_calc_set_params(p->calc, &params);
        p->owns_calc = 0;
    } else {
        st = dg_calc_create(&p->calc, &params);
        /* A batch keeps a handle that works; a failed one stays this run's own. */
        if (shared && st == DG_OK) *shared = p->calc;
        p->owns_calc = !shared || st != DG_OK;
    }
    if (st != DG_OK) calc_failed(p, status_class(st), dg_calc_last_error(p->calc));
    return st;
}

/* Hand the inputs to the calculation and run it. */
static void run_calc(pipeline *p, dg_calc *shared) {
    const run_settings *s = &p->settings;
    hook_context ctx = {p};
    calc_hooks hooks = {on_stage, on_progress, &ctx};
    if (prepare_calc(p, shared, &ctx) != DG_OK) return;
    p->result = calc_state(p->calc);
    calc_set_hooks(p->calc, &hooks);
    calc_set_map_copy(p->calc, s->map_count > 0);
    int st = DG_OK;
    if (p->has_focus) {
        const map_grid *m = &p->focus_map;
        st = dg_calc_set_focus_map(p->calc, m->values, m->n[0], m->scale, m->center);
    }
    dg_atoms atoms = {0, NULL, NULL, NULL};
    const molecule *sites = p->has_sites ? &p->sites : &p->mol;
    dg_atoms site_list = {0, NULL, NULL, NULL};
    if (st == DG_OK && (calc_atoms_from_molecule(&p->mol, &atoms) != 0 ||
                        calc_atoms_from_molecule(sites, &site_list) != 0))
        st = DG_ERR_OUT_OF_MEMORY;
    if (st == DG_OK)
        st = calc_set_sites(
            p->calc, s->frc_out_file[0] ? site_list.position : NULL, sites->count,
            (s->site_reaction ? CALC_SITE_REACTION : 0) |
                (s->site_coulombic ? CALC_SITE_COULOMBIC : 0) |
                (s->site_salt ? CALC_SITE_SALT : 0) | (s->site_debye ? CALC_SITE_DEBYE : 0) |
                (s->site_coulombic_force || s->site_total_force ? CALC_SITE_COULOMBIC_FIELD : 0) |
                (s->site_reaction_force || s->site_total_force ? CALC_SITE_REACTION_FORCE : 0));
    if (st == DG_OK) st = dg_calc_set_atoms(p->calc, &atoms);
    calc_atoms_free(&atoms), calc_atoms_free(&site_list);
    if (st != DG_OK) {
        calc_failed(p, status_class(st), dg_calc_last_error(p->calc));
        return;
    }
    dg_calc_result res;
    if (p->partner) {
        if (s->binding_residues_file[0] && !p->atom_binding)
            p->atom_binding = malloc((p->mol.count + 1) * sizeof *p->atom_binding);
        st = dg_calc_run_binding(p->calc, p->partner, &res, &p->binding, p->atom_binding);
        p->calc_ran = 1;
        p->has_binding = st == DG_OK;
        if (st != DG_OK) binding_failed(p, st);
        return;
    }
    st = dg_calc_run(p->calc, &res);
    p->calc_ran = 1;
    if (p->result->status != CALC_OK)
        calc_failed(p, p->result->status, p->result->message);
    else if (st != DG_OK)
        calc_failed(p, CALC_SOLVER_FAILED, dg_calc_last_error(p->calc));
}

/* path with ".tag" inserted before the extension of its last component; -1 (path unchanged)
 * if the result would not fit. */
static int tag_path(char *path, size_t size, const char *tag) {
    if (!path[0] || !tag || !tag[0]) return 0;
    const size_t len = strlen(path), tag_len = strlen(tag);
    if (len + tag_len + 2 > size) return -1;
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(path, '.');
    const size_t cut = dot && (!slash || dot > slash + 1) ? (size_t)(dot - path) : len;
    memmove(path + cut + 1 + tag_len, path + cut, len - cut + 1);
    path[cut] = '.';
    memcpy(path + cut + 1, tag, tag_len);
    return 0;
}

int pipeline_output_paths(run_settings *s, char **paths, size_t *sizes, int max) {
    struct {
        char *path;
        size_t size;
    } all[] = {{s->json_file, sizeof s->json_file},
               {s->log_file, sizeof s->log_file},
               {s->frc_out_file, sizeof s->frc_out_file},
               {s->scrg_out_file, sizeof s->scrg_out_file},
               {s->gcrg_out_file, sizeof s->gcrg_out_file},
               {s->binding_residues_file, sizeof s->binding_residues_file},
               {s->modpdb_out_file, sizeof s->modpdb_out_file},
               {s->eps_out_file, sizeof s->eps_out_file},
               {s->unpdb_out_file, sizeof s->unpdb_out_file}};
    int n = 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
        if (all[i].path[0] && n < max) paths[n] = all[i].path, sizes[n++] = all[i].size;
    for (int i = 0; i < s->map_count; ++i)
        if (s->maps[i].path[0] && n < max)
            paths[n] = s->maps[i].path, sizes[n++] = sizeof s->maps[i].path;
    return n;
}

/* The batch's tag on the outputs of its list (every output without a list): one that a
 * single run writes and no earlier run read keeps its name, so that a later run can read it.
 * Then the run's outputs as named now: each one writable, none named twice or an input of the
 * run (as for a single run), none a file the batch keeps (taken), and a tagged one none of the
 * batch's inputs. */
static int tag_outputs(run_settings *s, const pipeline_batch *batch, io_error *err) {
    char *paths[SETTINGS_MAX_OUTPUTS + 16];
    size_t sizes[SETTINGS_MAX_OUTPUTS + 16];
    int tagged[SETTINGS_MAX_OUTPUTS + 16];
    const int n = pipeline_output_paths(s, paths, sizes, SETTINGS_MAX_OUTPUTS + 16);
    path_identity id;
    for (int i = 0; i < n; ++i) {
        int listed = !batch->tagged;
        if (!listed) path_identity_of(paths[i], &id);
        for (int k = 0; !listed && k < batch->tagged_count; ++k)
            listed = !strcmp(id.canonical, batch->tagged[k]);
        tagged[i] = listed && batch->tag && batch->tag[0];
        if (listed && tag_path(paths[i], sizes[i], batch->tag) != 0)
            return io_fail(err, IO_ERR_INPUT, NULL, 0, NULL,
                           "the output '%s' with this run's tag '%s' would be a name of more "
                           "than %zu characters",
                           paths[i], batch->tag, sizes[i] - 1);
    }
    int rc = settings_check_outputs(s, err);
    for (int i = 0; rc == IO_OK && i < n; ++i) {
        path_identity_of(paths[i], &id);
        if (!id.canonical[0]) continue; /* no such directory: checked above */
        for (int k = 0; rc == IO_OK && k < batch->taken_count; ++k)
            if (!strcmp(id.canonical, batch->taken[k]))
                rc = io_fail(err, IO_ERR_INPUT, NULL, 0, NULL,
                             "the output '%s' would overwrite %s, the batch's own (its --jsonl, "
                             "--batch list or a parameter file) or an earlier run's output; give "
                             "this run's outputs names of their own",
                             paths[i], batch->taken[k]);
        for (int k = 0; rc == IO_OK && tagged[i] && k < batch->input_count; ++k)
            if (!strcmp(id.canonical, batch->inputs[k]))
                rc = io_fail(err, IO_ERR_INPUT, NULL, 0, NULL,
                             "the output '%s' (named with this run's tag '%s') would overwrite "
                             "%s, an input of the batch; give the outputs names of their own",
                             paths[i], batch->tag, batch->inputs[k]);
    }
    return rc;
}

/* --backend auto, one run in one process: the CPU when the grid is small enough that the CPU
 * is done before CUDA would have started (backend_choice.h).  Decided from the grid the
 * calculation will place, before anything starts CUDA; a batch (shared handle) or a run under
 * mpirun keeps AUTO's rule. */
static void choose_backend(pipeline *p, int single_run) {
    run_settings *s = &p->settings;
    if (s->backend != DG_BACKEND_AUTO || !single_run || app_mpi_size() > 1 ||
        !dg_backend_built(DG_BACKEND_CUDA))
        return;
    dg_calc_params params;
    calc_params_from_settings(s, &params);
    dg_atoms atoms = {0, NULL, NULL, NULL};
    int n = 0;
    const int planned =
        calc_atoms_from_molecule(&p->mol, &atoms) == 0 && calc_plan_grid(&params, &atoms, &n) == 0;
    calc_atoms_free(&atoms);
    if (!planned) return; /* the calculation says what is wrong */
    int threads = s->threads > 0 ? s->threads : omp_get_max_threads();
    if (threads > omp_get_num_procs()) threads = omp_get_num_procs(); /* what can run at once */
    const int nonlinear = s->nonit > 0 && (s->salt > 0.0 || s->salt2 > 0.0);
    const int focusing = s->coarse_scale > 0.0 || s->coarse_perfil > 0.0;
    const int work = app_run_work(s->solvation_two_run, nonlinear, s->binding[0] != '\0', focusing);
    if (!app_cpu_sooner(n, threads, work, p->backend_reason, sizeof p->backend_reason)) return;
    s->backend = DG_BACKEND_CPU;
    p->cpu_for_small_grid = 1;
    log_notice(&p->log, "%s", p->backend_reason);
}

/* The JSON's solver.backend_reason once the run has its backend. */
static void explain_backend(pipeline *p, int single_run) {
    if (p->cpu_for_small_grid) return; /* choose_backend wrote it */
    const run_settings *s = &p->settings;
    const int used = p->result && p->calc_ran ? p->result->solve.backend : -1;
    if (s->backend == DG_BACKEND_CPU || s->backend == DG_BACKEND_CUDA)
        snprintf(p->backend_reason, sizeof p->backend_reason, "--backend %s",
                 s->backend == DG_BACKEND_CPU ? "cpu" : "cuda");
    else if (used == DG_BACKEND_CPU)
        snprintf(p->backend_reason, sizeof p->backend_reason, "--backend auto: %s",
                 p->backend_notice[0] ? p->backend_notice : "no usable GPU");
    else if (used == DG_BACKEND_CUDA)
        snprintf(p->backend_reason, sizeof p->backend_reason, "--backend auto: a usable GPU%s",
                 !single_run          ? " (a batch starts it once for all its runs)"
                 : app_mpi_size() > 1 ? ""
                                      : " (the grid is too large for the CPU to be sooner)");
}

int pipeline_execute(pipeline *p, int argc, char **argv, FILE *out) {
    return pipeline_execute_batch(p, argc, argv, out, NULL);
}

int pipeline_execute_batch(pipeline *p, int argc, char **argv, FILE *out,
                           const pipeline_batch *batch) {
    dg_calc *shared = batch ? batch->shared : NULL;
    memset(p, 0, sizeof *p);
    const double start = omp_get_wtime();
    io_error err;
    io_error_clear(&err);
    io_notes_clear(&p->notes);
    /* Under mpirun every return before the calculation, and the inputs' reading, agree with
       the other ranks (app_mpi_agree): a run that one rank cannot start stops on every rank. */
    if (settings_load(&p->settings, argc, argv, &p->notes, &err) != IO_OK) {
        fprintf(stderr, "delphi-gpu: error: %s\n", err.message);
        snprintf(p->message, sizeof p->message, "%s", err.message);
        return p->exit_code = app_mpi_agree(EXIT_BAD_INPUT);
    }
    app_mpi_quiet_outputs(&p->settings); /* under mpirun only rank 0 writes */
    if (batch) {
        p->settings.model = batch->model;
        if (tag_outputs(&p->settings, batch, &err) != IO_OK) {
            fprintf(stderr, "delphi-gpu: error: %s\n", err.message);
            snprintf(p->message, sizeof p->message, "%s", err.message);
            return p->exit_code = app_mpi_agree(EXIT_BAD_INPUT);
        }
        p->summary_private = !p->settings.json_file[0] && batch->summary_path;
        if (p->summary_private)
            snprintf(p->settings.json_file, sizeof p->settings.json_file, "%s",
                     batch->summary_path);
    }
    /* The default precision follows the backend; under AUTO it is known once the grid is. */
    if (!app_precision_follows_backend(&p->settings))
        p->settings.precision = app_default_precision(&p->settings);
    const run_settings *s = &p->settings;
    if (s->show_help || s->show_version) {
        if (out) fputs(s->show_help ? settings_usage() : "", out);
        if (out && s->show_version) fprintf(out, "delphi-gpu %s\n", dg_version_string());
        return p->exit_code = app_mpi_agree(EXIT_OK);
    }
    /* --backend cuda: CUDA's start-up (0.2-0.35 s) begins now, on the library's background
       thread, and overlaps reading the inputs (0.06-0.09 s for 250 000 atoms on 16 threads);
       the calculation's handle waits for it.  One rank only (under mpirun each rank's device
       is chosen later). */
    if (s->backend == DG_BACKEND_CUDA && app_mpi_size() == 1 && dg_backend_built(DG_BACKEND_CUDA))
        (void)dg_begin_cuda_start(s->device); /* its failures are the handle's to report */
    /* Every output is staged under a temporary name and renamed only when the whole run
       succeeded; a failed run removes them all. */
    temp_files_stage_begin();
    if (log_open(&p->log, s->log_file, s->quiet, &err) != IO_OK) {
        temp_files_stage_end(0, NULL);
        fprintf(stderr, "delphi-gpu: error: %s\n", err.message);
        snprintf(p->message, sizeof p->message, "%s", err.message);
        return p->exit_code = app_mpi_agree(EXIT_BAD_INPUT);
    }
    log_set_streams(&p->log, out, out ? stderr : NULL);
    if (s->threads > 0) omp_set_num_threads(s->threads);
    p->progress.log = &p->log;
    progress_reset(&p->progress, "solve");
    report_settings(&p->log, s, &p->notes);
    if (app_mpi_size() > 1) {
        log_info(&p->log, "mpi ranks            : %d (the solve split in z slabs, docs/MPI.md)",
                 app_mpi_size());
        int usable = 0, online = 0;
        char note[320];
        app_mpi_cores(&usable, &online);
        app_mpi_binding_note(usable, online, app_mpi_size(), s->threads > 0, note, sizeof note);
        if (note[0]) log_info(&p->log, "mpi binding          : %s", note);
    }

    p->exit_code = read_inputs(p);
    const int worst = app_mpi_agree(p->exit_code);
    if (p->exit_code == EXIT_OK && worst != EXIT_OK) {
        log_error(&p->log,
                  "another MPI rank could not start this run (exit status %d): it stops "
                  "on every rank",
                  worst);
        p->exit_code = worst;
    }
    p->time_read = omp_get_wtime() - start;
    if (p->exit_code == EXIT_OK) {
        choose_backend(p, !batch);
        p->settings.precision = app_default_precision(&p->settings);
        backend_notice_early(&p->log, s, p->backend_notice, sizeof p->backend_notice);
        run_calc(p, shared);
        explain_backend(p, !batch);
        print_calc_notes(p);
        if (p->calc_status != CALC_OK) log_error(&p->log, "%s", p->message);
        p->exit_code = exit_for_calc(p);
        char why[512];
        if ((p->exit_code == EXIT_OK || p->exit_code == EXIT_NOT_CONVERGED) && p->result) {
            if (run_check_energies(s, p->result, why, sizeof why)) {
                log_error(&p->log, "%s", why);
                p->exit_code = EXIT_SOLVER_FAILED;
            }
            if (p->has_binding) {
                const char *names[2] = {p->partner_name[0], p->partner_name[1]};
                report_binding(&p->log, s, &p->binding, names);
                if (run_check_binding(&p->binding, why, sizeof why)) {
                    log_error(&p->log, "%s", why);
                    p->exit_code = EXIT_SOLVER_FAILED;
                }
            }
            char label[96];
            const dg_result *d;
            for (int i = 0; (d = run_solve(p, i, label, sizeof label)) != NULL; ++i)
                run_warn_unchecked(&p->log, label, d);
        }
        char label[96];
        const dg_result *unfinished =
            p->exit_code == EXIT_NOT_CONVERGED ? unfinished_solve(p, label, sizeof label) : NULL;
        if (unfinished)
            log_warning(&p->log,
                        "the %s did not converge (%s): the outputs are written but "
                        "flagged (exit status 3)",
                        label, dg_outcome_string(unfinished->outcome));
    }
    const double before_outputs = omp_get_wtime();
    if (p->exit_code == EXIT_OK || p->exit_code == EXIT_NOT_CONVERGED) {
        int st = outputs_write(s, p->calc, p->result, &p->mol, p->has_sites ? &p->sites : NULL,
                               &p->log, &err);
        if (st == IO_OK && p->has_binding && s->binding_residues_file[0])
            st = outputs_write_binding_residues(s, &p->mol, p->partner, p->atom_binding,
                                                p->binding.energy, &p->log, &err);
        if (st != IO_OK) {
            log_error(&p->log, "%s", err.message);
            p->exit_code = exit_for_io(st);
        }
    }
    p->time_outputs = omp_get_wtime() - before_outputs;
    /* The log on standard output could not be written (a full disk, /dev/full): the run's
       record is lost, so the run fails as with --log on a full disk. */
    if (p->log.out_errno && (p->exit_code == EXIT_OK || p->exit_code == EXIT_NOT_CONVERGED)) {
        log_error(&p->log, "writing the log to standard output failed: %s",
                  strerror(p->log.out_errno));
        p->exit_code = EXIT_BAD_INPUT;
    }
    /* A failed run (bad input, solver or device failure) leaves no files behind: no summary
       and no log file; its message is on stderr. */
    const int run_succeeded = p->exit_code == EXIT_OK || p->exit_code == EXIT_NOT_CONVERGED;
    if (run_succeeded) write_summary(p, start);
    p->time_total = omp_get_wtime() - start;
    if (p->calc_ran)
        report_timing(&p->log, p->result, p->time_read, p->time_outputs, p->time_total);
    log_info(&p->log, "exit status %d", p->exit_code);
    int keep = run_succeeded;
    if (log_close(&p->log, run_succeeded, &err) != IO_OK) {
        fprintf(stderr, "delphi-gpu: error: %s\n", err.message);
        if (p->exit_code == EXIT_OK || p->exit_code == EXIT_NOT_CONVERGED)
            p->exit_code = EXIT_BAD_INPUT;
        keep = 0;
    }
    if (temp_files_stage_end(keep, &err) != IO_OK) {
        fprintf(stderr, "delphi-gpu: error: %s\n", err.message);
        if (p->exit_code == EXIT_OK || p->exit_code == EXIT_NOT_CONVERGED)
            p->exit_code = EXIT_BAD_INPUT;
    }
    return p->exit_code;
}

void pipeline_free(pipeline *p) {
    if (p->owns_calc) dg_calc_destroy(p->calc);
    p->calc = NULL, p->result = NULL;
    progress_free(&p->progress);
    molecule_free(&p->mol);
    free(p->partner), free(p->atom_binding);
    p->partner = NULL, p->atom_binding = NULL;
    if (p->has_sites) molecule_free(&p->sites);
    if (p->has_focus) map_grid_free(&p->focus_map);
    p->has_sites = p->has_focus = 0;
}
