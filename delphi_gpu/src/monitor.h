/* Convergence monitoring shared by the linear and nonlinear drivers: DelPhi's rms/max/norm
 * change, stopping criteria, divergence detection, progress callback. */
#ifndef DG_MONITOR_H
#define DG_MONITOR_H

#include "solver_internal.h"

typedef struct dg_monitor {
    dg_solver solver;
    double start_time;
    int iterations; /* completed, all phases */
    int checks;
    double max_change, rms_change, norm_change; /* at the last check */
    double smallest_max;                        /* smallest max change seen */
    int growing_checks;                         /* consecutive checks with a growing max change */
    int previous_iteration; /* iteration of the check before the last (for the rate) */
    int last_check_iteration;
    double previous_max;
    int diverged, stopped;
    int estimated_total; /* for progress */
    /* Float precision: the change at float's resolution (float_floor.c). */
    int floor_stalls;      /* consecutive checks stalled at the noise floor */
    int floor_needed;      /* stalled checks in a row a slow decay needs (float_floor.c) */
    double floor_smallest; /* smallest max change before the last check */
    double max_value;      /* float: the last check's max |sampled value| (else 0) */
} dg_monitor;

void dg_monitor_start(dg_monitor *m, dg_solver s);

/* Run `count` iterations on the backend, measuring the change when `measure`.  Returns a
   dg_status (backend failure); sets m->diverged / m->stopped. `norm_divisor` divides the norm
   change (DelPhi's nonlinear phase divides by relpar). */
int dg_monitor_iterate(dg_monitor *m, int count, int measure, dg_phase phase, int block,
                       double omega, double norm_divisor);

/* 1 if any criterion set in the options is met by the last check. */
int dg_monitor_criteria_met(const dg_monitor *m);

/* ... with every tolerance multiplied by `scale` (<= 1: a stricter test). */
int dg_monitor_criteria_met_scaled(const dg_monitor *m, double scale);

/* Float precision: record the last check (max change against the sampled values' scale and
   the decay SOR with this omega would give). */
void dg_float_floor_update(dg_monitor *m, const dg_change *change, double omega);

/* 1 when float's change has stopped falling at its resolution (two stalled checks in a row). */
int dg_float_floor_reached(const dg_monitor *m);

/* Float: the change below which float's rounding hides any decay (16 float epsilons of the
   last check's largest value); 0 in double. */
double dg_float_resolution(const dg_monitor *m);

/* SOR's asymptotic factor per sweep at relaxation omega for a Gauss-Seidel spectral radius
   rho_gs (Young's relation, mu^2 = rho_gs): |omega - 1| from the optimum on, else the square of
   the larger root of z^2 - omega mu z + omega - 1 = 0 (rho_gs itself at omega = 1). */
double dg_sor_decay(double omega, double rho_gs);

/* 1 if any stopping criterion is set. */
int dg_criteria_set(const dg_options *o);

#endif /* DG_MONITOR_H */
