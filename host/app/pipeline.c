/* The program's pipeline (see pipeline.h). */
#include "pipeline.h"

#include <math.h>
#include <omp.h>
#include <string.h>

#include "backend_notice.h"
#include "io_molecule.h"
#include "io_settings.h"
#include "outputs.h"
#include "report.h"
#include "run_checks.h"
#include "temp_files.h"

typedef struct hook_context {
    pipeline *p;
} hook_context;

static void on_stage(int stage, const calc_result *r, void *user) {
    pipeline *p = ((hook_context *)user)->p;
    if (stage == CALC_STAGE_SOLVE) backend_notice_drop(p->calc.notice, p->backend_notice);
    report_stage(&p->log, &p->settings, stage, r, &p->progress);
    if (stage == CALC_STAGE_ENERGIES && p->settings.solvation_two_run)
        progress_reset(&p->progress, "reference solve");
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
    p->focus.n = m->n[0];
    p->focus.is_double = 1;
    p->focus.data = m->values;
    p->focus.scale = m->scale;
    memcpy(p->focus.center, m->center, sizeof p->focus.center);
    log_info(&p->log, "focusing source map  : %s (%d^3, scale %g, centre %.3f %.3f %.3f)",
             s->phi_in_file, m->n[0], m->scale, m->center[0], m->center[1], m->center[2]);
    return IO_OK;
}

static int exit_for_io(int status) {
    return status == IO_OK ? EXIT_OK : EXIT_BAD_INPUT;
}

/* Read the inputs: molecule, sites, focusing map.  Returns an exit status. */
static int read_inputs(pipeline *p) {
    io_error err;
    io_error_clear(&err);
    const run_settings *s = &p->settings;
    const int first_note = p->notes.count;
    int st = molecule_load(s, &p->mol, &p->notes, &err);
    if (st == IO_OK && s->frc_in_file[0]) {
        st = molecule_read_sites(s->frc_in_file, &p->sites, &p->notes, &err);
        p->has_sites = st == IO_OK;
    }
    if (st == IO_OK) report_molecule(&p->log, &p->mol, p->has_sites ? &p->sites : NULL);
    if (st == IO_OK && s->bndcon == BC_FOCUSING) st = read_focus_map(p, &err);
    run_log_notes_from(&p->log, &p->notes, first_note); /* what the readers skipped or changed */
    if (st != IO_OK) log_error(&p->log, "%s", err.message);
    return exit_for_io(st);
}

static int exit_for_calc(const calc_result *r) {
    if (r->status == CALC_BAD_INPUT) return EXIT_BAD_INPUT;
    if (r->status != CALC_OK) return EXIT_SOLVER_FAILED;
    const int bad = r->solve.outcome == DG_OUTCOME_NOT_CONVERGED ||
                    r->solve.outcome == DG_OUTCOME_DIVERGED ||
                    (r->two_run && (r->reference_solve.outcome == DG_OUTCOME_NOT_CONVERGED ||
                                    r->reference_solve.outcome == DG_OUTCOME_DIVERGED));
    return bad ? EXIT_NOT_CONVERGED : EXIT_OK;
}

static void print_calc_notes(pipeline *p) {
    const char *text = p->calc.notes;
    while (text && *text) {
        const char *end = strchr(text, '\n');
        const int len = end ? (int)(end - text) : (int)strlen(text);
        log_info(&p->log, "note: %.*s", len, text);
        text = end ? end + 1 : NULL;
    }
}

static void write_summary(pipeline *p, double start) {
    const run_settings *s = &p->settings;
    if (!s->json_file[0]) return;
    const calc_result *r = p->calc_ran ? &p->calc : NULL;
    summary_times t = {0, 0, 0, 0};
    if (r) {
        t.setup = p->time_read + r->time_grid + r->time_medium + r->time_charges + r->time_boundary;
        t.solve = r->time_solve;
        t.energies = r->time_energies;
    }
    t.total = omp_get_wtime() - start;
    io_error err;
    io_error_clear(&err);
    if (outputs_write_summary(s, r, &p->mol, &t, p->exit_code, &p->notes, &err) != IO_OK) {
        log_error(&p->log, "%s", err.message);
        if (p->exit_code == EXIT_OK || p->exit_code == EXIT_NOT_CONVERGED)
            p->exit_code = EXIT_BAD_INPUT;
    } else {
        log_info(&p->log, "summary written: %s", s->json_file);
    }
}

int pipeline_execute(pipeline *p, int argc, char **argv, FILE *out) {
    memset(p, 0, sizeof *p);
    const double start = omp_get_wtime();
    io_error err;
    io_error_clear(&err);
    io_notes_clear(&p->notes);
    if (settings_load(&p->settings, argc, argv, &p->notes, &err) != IO_OK) {
        fprintf(stderr, "delphi-gpu: error: %s\n", err.message);
        return p->exit_code = EXIT_BAD_INPUT;
    }
    const run_settings *s = &p->settings;
    if (s->show_help || s->show_version) {
        if (out) fputs(s->show_help ? settings_usage() : "", out);
        if (out && s->show_version) fprintf(out, "delphi-gpu %s\n", dg_version_string());
        return p->exit_code = EXIT_OK;
    }
    /* Every output is staged under a temporary name and renamed only when the whole run
       succeeded; a failed run removes them all. */
    temp_files_stage_begin();
    if (log_open(&p->log, s->log_file, s->quiet, &err) != IO_OK) {
        temp_files_stage_end(0, NULL);
        fprintf(stderr, "delphi-gpu: error: %s\n", err.message);
        return p->exit_code = EXIT_BAD_INPUT;
    }
    log_set_streams(&p->log, out, out ? stderr : NULL);
    if (s->threads > 0) omp_set_num_threads(s->threads);
    p->progress.log = &p->log;
    progress_reset(&p->progress, "solve");
    report_settings(&p->log, s, &p->notes);

    p->exit_code = read_inputs(p);
    p->time_read = omp_get_wtime() - start;
    if (p->exit_code == EXIT_OK) {
        hook_context ctx = {p};
        calc_hooks hooks = {on_stage, on_progress, &ctx};
        calc_input in = {s, &p->mol, p->has_focus ? &p->focus : NULL, s->frc_out_file[0] != 0,
                         p->has_sites ? &p->sites : NULL};
        backend_notice_early(&p->log, s, p->backend_notice, sizeof p->backend_notice);
        calc_run(&in, &hooks, &p->calc);
        p->calc_ran = 1;
        print_calc_notes(p);
        if (p->calc.status != CALC_OK) log_error(&p->log, "%s", p->calc.message);
        p->exit_code = exit_for_calc(&p->calc);
        char why[512];
        if (p->exit_code == EXIT_OK || p->exit_code == EXIT_NOT_CONVERGED) {
            if (run_check_energies(s, &p->calc, why, sizeof why)) {
                log_error(&p->log, "%s", why);
                p->exit_code = EXIT_SOLVER_FAILED;
            }
            run_warn_unchecked(&p->log, "solve", &p->calc.solve);
            if (p->calc.two_run)
                run_warn_unchecked(&p->log, "reference solve", &p->calc.reference_solve);
        }
        if (p->exit_code == EXIT_NOT_CONVERGED)
            log_warning(&p->log,
                        "the solve did not converge (%s): the outputs are written but "
                        "flagged (exit status 3)",
                        dg_outcome_string(p->calc.solve.outcome));
    }
    const double before_outputs = omp_get_wtime();
    if (p->exit_code == EXIT_OK || p->exit_code == EXIT_NOT_CONVERGED) {
        if (outputs_write(s, &p->calc, &p->mol, p->has_sites ? &p->sites : NULL, &p->log, &err) !=
            IO_OK) {
            log_error(&p->log, "%s", err.message);
            p->exit_code = EXIT_BAD_INPUT;
        }
    }
    p->time_outputs = omp_get_wtime() - before_outputs;
    /* A failed run (bad input, solver or device failure) leaves no files behind: no summary
       and no log file; its message is on stderr. */
    const int run_succeeded = p->exit_code == EXIT_OK || p->exit_code == EXIT_NOT_CONVERGED;
    if (run_succeeded) write_summary(p, start);
    p->time_total = omp_get_wtime() - start;
    if (p->calc_ran) report_timing(&p->log, &p->calc, p->time_read, p->time_outputs, p->time_total);
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
    calc_result_free(&p->calc);
    progress_free(&p->progress);
    molecule_free(&p->mol);
    if (p->has_sites) molecule_free(&p->sites);
    if (p->has_focus) map_grid_free(&p->focus_map);
    p->has_sites = p->has_focus = 0;
}
