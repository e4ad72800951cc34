/* Checks of a finished calculation (see run_checks.h). */
#include "run_checks.h"

#include <math.h>
#include <stdio.h>

void run_log_notes_from(io_log *log, const io_notes *notes, int first) {
    for (int i = first < 0 ? 0 : first; notes && i < notes->count; ++i) {
        if (notes->level[i] == IO_NOTE_WARNING)
            log_warning(log, "%s", notes->text[i]);
        else
            log_note(log, "%s", notes->text[i]);
    }
}

static int bad(double v, const char *name, char *msg, size_t size) {
    if (isfinite(v) && fabs(v) <= RUN_ENERGY_LIMIT_KT) return 0;
    if (isfinite(v))
        snprintf(msg, size,
                 "the %s is %.6g kT, beyond any molecular energy (limit %.0e kT): the solve "
                 "diverged or the potential is not usable; no outputs are written",
                 name, v, RUN_ENERGY_LIMIT_KT);
    else
        snprintf(msg, size,
                 "the %s is %g (not finite): the potential or the medium is not usable; no "
                 "outputs are written",
                 name, v);
    return 1;
}

int run_check_energies(const run_settings *s, const calc_result *r, char *msg, size_t size) {
    if (bad(r->energy_grid, "total grid energy", msg, size)) return 1;
    if (s->energy_coulombic && bad(r->energy_coulombic, "coulombic energy", msg, size)) return 1;
    if (s->energy_solvation) {
        if (bad(r->energy_self_reaction, "self-reaction field energy", msg, size)) return 1;
        if (bad(r->energy_reaction_field, "corrected reaction field energy", msg, size)) return 1;
        if (bad(r->energy_total_reaction_field, "total reaction field energy", msg, size)) return 1;
    }
    if (r->ionic_computed) {
        if (bad(r->ionic.rho_phi_half, "rho*phi/2 term in solution", msg, size)) return 1;
        if (bad(r->ionic.osmotic, "osmotic pressure term", msg, size)) return 1;
    }
    if (r->two_run && bad(r->energy_solvation_two_run, "solvation energy (two runs)", msg, size))
        return 1;
    return 0;
}

int run_check_binding(const dg_calc_binding *b, char *msg, size_t size) {
    return bad(b->energy, "binding energy", msg, size);
}

int run_solve_converged(const dg_result *d) {
    return d->outcome == DG_OUTCOME_CONVERGED;
}

void run_warn_unchecked(io_log *log, const char *label, const dg_result *d) {
    if (d->outcome != DG_OUTCOME_COMPLETED) return;
    log_warning(log,
                "%s: %d iterations ran as requested with no stopping criterion (maxc, rmsc or "
                "normc), so convergence was not checked; the last max change was %.3e kT/e",
                label, d->iterations, d->max_change);
}
