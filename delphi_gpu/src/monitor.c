/* Convergence checks: DelPhi's definitions (docs/SOLVER.md), divergence, progress. */
#include <math.h>

#include "monitor.h"

void dg_monitor_start(dg_monitor *m, dg_solver s) {
    *m = (dg_monitor){0};
    m->solver = s;
    m->start_time = dg_wall_seconds();
    m->smallest_max = INFINITY;
    m->max_change = m->rms_change = m->norm_change = INFINITY;
    m->previous_max = INFINITY;
    m->floor_smallest = INFINITY;
}

double dg_sor_decay(double omega, double rho_gs) {
    double lambda = fabs(omega - 1.0);
    const double disc = omega * omega * rho_gs - 4.0 * (omega - 1.0);
    if (rho_gs > 0.0 && disc > 0.0) {
        const double root = 0.5 * (omega * sqrt(rho_gs) + sqrt(disc));
        lambda = root * root;
    }
    return lambda;
}

int dg_criteria_set(const dg_options *o) {
    return o->rms_change_tol > 0.0 || o->max_change_tol > 0.0 || o->norm_change_tol > 0.0;
}

static int criteria_reached(const dg_monitor *m, double scale) {
    const dg_options *o = &m->solver->options;
    if (m->checks == 0) return 0;
    return (o->rms_change_tol > 0.0 && m->rms_change <= scale * o->rms_change_tol) ||
           (o->max_change_tol > 0.0 && m->max_change <= scale * o->max_change_tol) ||
           (o->norm_change_tol > 0.0 && m->norm_change <= scale * o->norm_change_tol);
}

int dg_monitor_criteria_met(const dg_monitor *m) {
    return criteria_reached(m, 1.0);
}

int dg_monitor_criteria_met_scaled(const dg_monitor *m, double scale) {
    return criteria_reached(m, scale);
}

/* Total iterations expected at the end, from the max-change decay rate when a max criterion is
   set; 0 when unknown. */
static int estimate_total(const dg_monitor *m) {
    const dg_options *o = &m->solver->options;
    if (o->max_change_tol <= 0.0 || !(m->previous_max > m->max_change) || m->max_change <= 0.0 ||
        !isfinite(m->previous_max))
        return 0;
    double per_iteration =
        log(m->max_change / m->previous_max) / (m->iterations - m->previous_iteration);
    double remaining = log(o->max_change_tol / m->max_change) / per_iteration;
    if (remaining < 0.0) remaining = 0.0;
    if (remaining > 1e9) return 0;
    return m->iterations + (int)ceil(remaining);
}

int dg_monitor_iterate(dg_monitor *m, int count, int measure, dg_phase phase, int block,
                       double omega, double norm_divisor) {
    dg_solver s = m->solver;
    dg_change change = {0.0, 0.0, 1, 0.0};
    dg_error err = {0};
    int st = s->backend->iterate(s->backend_state, count, measure, s->options.check_stride, &change,
                                 &err);
    if (st != DG_OK)
        return dg_fail(s, st, "%s backend failed during iteration %d: %s", s->backend->name,
                       m->iterations + 1, err.message);
    m->iterations += count;
    if (!measure) return DG_OK;

    const double interior = (double)s->prep.interior_count;
    m->checks++;
    if (m->checks > 1) m->previous_max = m->max_change;
    m->previous_iteration = m->last_check_iteration;
    m->last_check_iteration = m->iterations;
    dg_float_floor_update(m, &change, omega); /* before max_change takes the new value */
    m->max_change = change.max_abs;
    m->max_value = change.max_value;
    m->rms_change = sqrt(s->options.check_stride * change.sum_sq / interior);
    m->norm_change = sqrt(change.sum_sq) / norm_divisor;
    if (!change.finite || !isfinite(m->max_change) || !isfinite(m->rms_change)) {
        m->diverged = 1;
        return DG_OK;
    }
    /* Divergence: the max change keeps growing and is far above its smallest value. */
    if (m->checks > 1 && m->max_change > m->previous_max)
        m->growing_checks++;
    else
        m->growing_checks = 0;
    if (m->max_change < m->smallest_max) m->smallest_max = m->max_change;
    if (m->growing_checks >= s->options.divergence_checks &&
        m->max_change > s->options.divergence_factor * m->smallest_max)
        m->diverged = 1;

    if (s->options.progress) {
        int total = estimate_total(m);
        dg_progress p = {m->iterations,
                         phase,
                         block,
                         m->max_change,
                         m->rms_change,
                         m->norm_change,
                         omega,
                         total ? total : m->estimated_total,
                         dg_wall_seconds() - m->start_time,
                         DG_SOLVER_SOR};
        if (s->options.progress(&p, s->options.progress_user_data) != 0) m->stopped = 1;
    }
    /* a decomposed solve stops on every rank when any rank's callback asked (every rank makes
       this check, with or without a callback of its own) */
    m->stopped = dg_mpi_any(s, m->stopped);
    return DG_OK;
}
