/* The iteration loop: DelPhi's linear SOR stopping rules (itit, docs/SOLVER.md "Convergence
 * checks") and its nonlinear scheme (nitit, docs/SOLVER.md "Nonlinear PB") on top of the backend's
 * blocks of iterations. */
#include <math.h>

#include "mg/mg.h"
#include "monitor.h"
#include "newton.h"

/* Block length and threshold of DelPhi's nonlinear scheme. */
#define NONLINEAR_BLOCK         10
#define LINEAR_PHASE_MAX_CHANGE 0.22 /* nitit's linear phase runs on while max change >= this */
#define CONVERGED_AFTER_BLOCK   22   /* nitit: "converged" needs itnum > 22 */
#define RELPAR_FLOOR            1e-4
#define RAMP_GROWTH_SLOPE       0.5 /* (current - previous)/current of a twofold growth */

typedef struct solve_plan {
    int nonlinear;
    double spectral_radius, omega;
    int estimate; /* DelPhi's noit */
    int nlit;     /* linear iterations */
    int until_converged;
    int cap; /* hard cap on all iterations */
} solve_plan;

static int set_omega(dg_solver s, double omega) {
    dg_error err = {0};
    int st = s->backend->set_omega(s->backend_state, omega, &err);
    if (st != DG_OK)
        return dg_fail(s, st, "%s backend could not set omega: %s", s->backend->name, err.message);
    return DG_OK;
}

/* 1 when the convergence sample (DelPhi's even half grid at half-index 1, 1 + stride, ...)
   holds an interior point, whose change a check can measure. */
static int sample_has_interior(const dg_prepared *p, int stride) {
    for (size_t h = 1; h < p->half_count[1]; h += (size_t)stride) {
        const size_t w = 2 * h + 1, x = w % (size_t)p->nx, y = w / (size_t)p->nx % (size_t)p->ny,
                     z = w / ((size_t)p->nx * (size_t)p->ny);
        if (x > 0 && x + 1 < (size_t)p->nx && y > 0 && y + 1 < (size_t)p->ny && z > 0 &&
            z + 1 < (size_t)p->nz)
            return 1;
    }
    return 0;
}

static int make_plan(dg_solver s, solve_plan *plan) {
    const dg_options *o = &s->options;
    const dg_prepared *p = &s->prep;
    if (!sample_has_interior(p, o->check_stride))
        return dg_fail(s, DG_ERR_INVALID_ARGUMENT,
                       "option check_stride = %d: every %d-th point of the even half grid "
                       "(%zu points of the %dx%dx%d grid) holds no interior point, so no check "
                       "could measure a change; use a smaller stride",
                       o->check_stride, o->check_stride, p->half_count[1], p->nx, p->ny, p->nz);
    plan->nonlinear = o->equation == DG_EQUATION_NONLINEAR_PB;
    if (plan->nonlinear && !p->nonlinear_ready)
        return dg_fail(s, DG_ERR_INVALID_ARGUMENT,
                       "nonlinear PB requested but the medium has no salt points (or its "
                       "nonlinear_coefficient is 0)");
    if (o->spectral_radius > 0.0) {
        plan->spectral_radius = o->spectral_radius;
    } else {
        int st = dg_cached_spectral_radius(s, &plan->spectral_radius);
        if (st != DG_OK) return st;
    }
    plan->omega = o->omega > 0.0 ? o->omega : 2.0 / (1.0 + sqrt(1.0 - plan->spectral_radius));
    plan->estimate = dg_estimate_iterations(plan->spectral_radius);
    if (o->iterations > 0) {
        plan->nlit = o->iterations;
    } else {
        /* DelPhi's automatic count, raised when many charges sit off the uniform interior. */
        plan->nlit = plan->estimate;
        int boundary = p->boundary_count[0] + p->boundary_count[1];
        double ratio = boundary > 0 ? (double)p->charges_not_interior / boundary : 0.0;
        if (ratio > 0.3) plan->nlit = (int)(plan->nlit * ratio / 0.3);
        if (plan->nonlinear && plan->estimate > 50) plan->nlit = plan->estimate / 2;
    }
    plan->until_converged =
        o->run_until_converged == -1 ? o->iterations == 0 : o->run_until_converged;
    int base = plan->nlit > plan->estimate ? plan->nlit : plan->estimate;
    plan->cap = o->max_iterations > 0 ? o->max_iterations : (base > 100 ? 20 * base : 2000);
    if (plan->cap < 2000 && o->max_iterations == 0) plan->cap = 2000;
    return DG_OK;
}

/* Linear SOR (itit): checks every K iterations; without a criterion run exactly nlit; with one
   stop when met, or at nlit unless running until converged; always stop at the cap. */
static int run_linear(dg_solver s, const solve_plan *plan, dg_monitor *mon, int *outcome) {
    const dg_options *o = &s->options;
    const int criteria = dg_criteria_set(o);
    int interval = o->check_interval < plan->nlit ? o->check_interval : plan->nlit; /* itit */
    if (interval < 1) interval = 1;
    mon->estimated_total = criteria && plan->until_converged ? 0 : plan->nlit;
    for (;;) {
        const int i = mon->iterations;
        if (criteria && dg_monitor_criteria_met(mon)) return *outcome = DG_OUTCOME_CONVERGED, DG_OK;
        if (criteria && dg_float_floor_reached(mon))
            return *outcome = DG_OUTCOME_FLOAT_RESOLUTION, DG_OK;
        if (i >= plan->nlit && !(criteria && plan->until_converged)) {
            *outcome = criteria ? DG_OUTCOME_NOT_CONVERGED : DG_OUTCOME_COMPLETED;
            return DG_OK;
        }
        if (i >= plan->cap) return *outcome = DG_OUTCOME_NOT_CONVERGED, DG_OK;
        const int next_check = (i / interval + 1) * interval;
        int target = next_check;
        if (!(criteria && plan->until_converged) && target > plan->nlit) target = plan->nlit;
        if (target > plan->cap) target = plan->cap;
        int st = dg_monitor_iterate(mon, target - i, target == next_check, DG_PHASE_LINEAR, 0,
                                    plan->omega, 1.0);
        if (st != DG_OK) return st;
        if (mon->diverged) return *outcome = DG_OUTCOME_DIVERGED, DG_OK;
        if (mon->stopped) return *outcome = DG_OUTCOME_STOPPED, DG_OK;
    }
}

/* State of DelPhi's adaptive nonlinear relaxation (nitit, when relpar is not given). */
typedef struct relax_state {
    double factor;       /* the relaxation change that a pending change applies */
    double slope;        /* relative change of the max change at the last check */
    double slope_before; /* ... and at the check before */
    int growing;         /* consecutive checks at which the max change grew */
    int pending;         /* a change of relpar is scheduled for the next block */
    int fresh;           /* relpar changed at the start of this block (or the first block) */
    int first;           /* the linear phase has just ended (cleared at the first block's check) */
} relax_state;

/* After a nonlinear block's check (adaptive relaxation only): the rules by which DelPhi's nitit
   schedules a new relpar.  The slope is (current - previous)/current of the max change.  A change
   is scheduled at once when the max change is tiny (x1.2), when it grows by more than 55 %, or by
   more than 35 % while above 0.1 kT/e, or when it grows right after a change while above 0.1;
   smaller growth accumulates into the factor as (1 - slope)^0.99 and is applied after two
   consecutive growing checks.  A falling max change resets the factor and, in the middle of the
   run with small, slowly falling changes, speeds up (x1.1, or much more while relpar < 0.2).
   ramp_growth_ok (not in DelPhi's entry points): while the nonlinear source is still being
   switched on, a max change that grows by less than twofold is the ramp's own 5 % step, not an
   oscillation, and cuts nothing.  Stock nitit cuts on it: on a weakly nonlinear +1 e sphere the
   cuts take relpar, and with it the SOR's omega, from 1.9 to 0.23 by the end of the ramp, where
   a sweep moves the potential by a few 1e-6 kT/e while it is still 1e-3 from the fixed point, so
   the max change "meets" maxc 1e-4 with the nonlinear energy off by its own size. */
static void adaptive_relax(relax_state *x, int block, int blocks, double relpar, double previous,
                           double current, int ramp_growth_ok) {
    x->slope_before = x->slope;
    x->slope = (current - previous) / current;
    const double d = x->slope, d0 = x->slope_before;
    const int ramp_step = ramp_growth_ok && d > 0.0 && d < RAMP_GROWTH_SLOPE;
    if (current < 1e-6) {
        x->factor = 1.2, x->pending = 1;
    } else if (ramp_step) {
        x->growing = 0;
    } else {
        if (d > 0.0 && !x->fresh) {
            ++x->growing;
            x->factor *= pow(1.0 - d, 0.99);
            if (d > 0.55) {
                x->pending = 1;
                if (d >= 1.0) x->factor = 1e-5;
            }
            if (d > 0.35 && current > 0.1) {
                x->pending = 1;
                x->factor = pow(x->factor * 0.05 / current, 4.0);
            }
        }
        if (d > 0.0 && current > 0.1 && x->fresh && !x->first) {
            x->pending = 1;
            x->factor = fmin(x->factor * 0.05 / current, x->factor * pow(1.0 - d, 0.86));
        }
        if (d <= 0.0) {
            x->growing = 0;
            x->factor = 1.0;
            if (block > 24 && block < 24 + 0.75 * (blocks - 24) && current < 0.03 && d0 <= 0.0 &&
                d > -0.2 && d0 > -0.2) {
                x->factor = 1.1, x->pending = 1;
                if (relpar < 0.2 && d > -0.05 && d0 > -0.05)
                    x->factor = 1.0 - 45.226 * (relpar - 0.2);
            }
        }
        if (x->growing >= 2) x->pending = 1;
    }
    x->first = 0;
}

/* The factor on the criteria of a nonlinear block run at `omega` (not in DelPhi's entry
   points).  DelPhi's criteria bound the change of one sweep; the distance to the fixed point is
   about change / (1 - decay), and its criteria were set for the linear optimum's decay.  Once
   its relaxation has cut omega (relpar) far below that, a sweep moves the potential by a small
   fraction of what is left, and the same change means an error (1 - decay(optimum)) /
   (1 - decay(omega)) times larger: the criteria shrink by that ratio (never grow; in float not
   below its resolution, where the unscaled criteria are all a float change can show). */
static double relaxed_criteria_scale(const solve_plan *plan, const dg_monitor *mon, double omega) {
    const double rho = plan->spectral_radius;
    if (!(rho > 0.0 && rho < 1.0) || omega >= plan->omega) return 1.0;
    double scale = (1.0 - dg_sor_decay(omega, rho)) / (1.0 - dg_sor_decay(plan->omega, rho));
    /* float: never below its resolution, where no change can show the criterion met */
    const double tol = mon->solver->options.max_change_tol, floor = dg_float_resolution(mon);
    if (tol > 0.0 && scale * tol < floor) scale = floor / tol;
    return scale < 1.0 ? scale : 1.0;
}

/* Nonlinear PB with DelPhi's nitit scheme: a linear phase, then blocks of 10 sweeps with a lagged
   nonlinear source switched on in steps of 5 % per block, with DelPhi's (manual or adaptive)
   relaxation.  After a criterion is met (from block 23 on) a block whose relpar had just changed
   is followed by single sweeps until relpar has been stable over one, as in nitit. */
static int run_nonlinear(dg_solver s, const solve_plan *plan, dg_monitor *mon, int *outcome,
                         dg_result *r) {
    const dg_options *o = &s->options;
    const int manual = o->relpar > 0.0;
    int interval = o->check_interval < plan->nlit ? o->check_interval : plan->nlit; /* nitit */
    if (interval < 1) interval = 1;
    double qfact = o->qfact;
    if (qfact < 0.0) {
        int boundary = s->prep.boundary_count[0] + s->prep.boundary_count[1];
        qfact = s->prep.net_charge_known && boundary > 0
                    ? fabs(s->prep.net_charge) * s->prep.charges_not_interior / boundary
                    : 0.0;
    }
    /* A manual relpar is applied before the first block; the adaptive one starts at 1 (DelPhi's
       default) and omega stays the linear optimum until the first change. */
    relax_state x = {.factor = 1.0, .pending = manual, .fresh = 1};
    mon->estimated_total = 0;
    /* Linear phase: nlit sweeps, longer while the max change is still >= 0.22 kT/e. */
    int small = 1; /* the last check's max change is below the threshold */
    for (;;) {
        const int i = mon->iterations;
        if (i >= plan->nlit && small) break;
        if (i >= plan->cap) return *outcome = DG_OUTCOME_NOT_CONVERGED, DG_OK;
        const int next_check = (i / interval + 1) * interval;
        int target = next_check;
        if (i < plan->nlit && target > plan->nlit) target = plan->nlit;
        if (target > plan->cap) target = plan->cap; /* max_iterations is a hard cap */
        const int measure = target == next_check || target == plan->cap;
        int st = dg_monitor_iterate(mon, target - i, measure, DG_PHASE_LINEAR, 0, plan->omega, 1.0);
        if (st != DG_OK) return st;
        r->linear_iterations = mon->iterations;
        if (mon->diverged) return *outcome = DG_OUTCOME_DIVERGED, DG_OK;
        if (mon->stopped) return *outcome = DG_OUTCOME_STOPPED, DG_OK;
        if (target == next_check) {
            small = mon->max_change < LINEAR_PHASE_MAX_CHANGE;
            /* Outside DelPhi's own entry points a linear phase that already meets the run's
               criterion ends at this check (DelPhi runs all its nlit sweeps regardless). */
            const int done =
                !s->stock_behaviour && small && dg_criteria_set(o) && dg_monitor_criteria_met(mon);
            x.first = (target >= plan->nlit - plan->nlit % interval || done) && small;
            if (!manual && x.first && qfact > 3.2)
                x.factor = exp(-2.1 * qfact) + 1e-6, x.pending = 1;
            x.fresh = x.fresh || x.first;
            if (done) break;
        }
    }
    r->linear_iterations = mon->iterations;

    double relpar = manual ? o->relpar : 1.0, omega = plan->omega;
    double fraction = 0.0, previous = mon->max_change;
    int converged = 0;
    for (int block = 1;; ++block) {
        if (block > o->nonlinear_blocks || (converged && !x.fresh)) break;
        const int sweeps = converged ? 1 : NONLINEAR_BLOCK;
        if (mon->iterations + sweeps > plan->cap) return *outcome = DG_OUTCOME_NOT_CONVERGED, DG_OK;
        x.fresh = x.pending;
        if (x.pending) {
            relpar = fmax(relpar * x.factor, RELPAR_FLOOR);
            /* Outside DelPhi's entry points the adaptive relaxation never raises omega past the
               linear optimum (the nonlinear term only adds to the diagonal, so its optimum is
               no larger): its x1.2 steps on tiny changes took omega past 2 (maxc 1e-7 on 1ubq,
               0.15 M: 1.2^5), where the sweeps diverge.  DelPhi's nitit has no ceiling. */
            if (!manual && !s->stock_behaviour && relpar > plan->omega) relpar = plan->omega;
            x.factor = 1.0, x.pending = 0, x.growing = 0;
            omega = relpar; /* from the first change on, omega is relpar */
            r->final_relpar = relpar;
            int st = set_omega(s, omega);
            if (st != DG_OK) return st;
        }
        fraction = fmin(1.0, fraction + 0.05);
        dg_error err = {0};
        int st = s->backend->update_nonlinear_source(s->backend_state, fraction, &err);
        if (st != DG_OK)
            return dg_fail(s, st, "%s backend: nonlinear source: %s", s->backend->name,
                           err.message);
        st = dg_monitor_iterate(mon, sweeps, sweeps == NONLINEAR_BLOCK, DG_PHASE_NONLINEAR, block,
                                omega, relpar);
        if (st != DG_OK) return st;
        r->nonlinear_blocks = block;
        if (mon->diverged) return *outcome = DG_OUTCOME_DIVERGED, DG_OK;
        if (mon->stopped) return *outcome = DG_OUTCOME_STOPPED, DG_OK;
        if (sweeps != NONLINEAR_BLOCK) continue; /* no check after a single sweep */
        const double scale = s->stock_behaviour ? 1.0 : relaxed_criteria_scale(plan, mon, omega);
        if (block > CONVERGED_AFTER_BLOCK && dg_monitor_criteria_met_scaled(mon, scale))
            converged = 1;
        x.fresh = x.fresh || x.first;
        if (!manual)
            adaptive_relax(&x, block, o->nonlinear_blocks, relpar, previous, mon->max_change,
                           !s->stock_behaviour && fraction < 1.0);
        previous = mon->max_change;
    }
    *outcome = converged            ? DG_OUTCOME_CONVERGED
               : dg_criteria_set(o) ? DG_OUTCOME_NOT_CONVERGED
                                    : DG_OUTCOME_COMPLETED;
    return DG_OK;
}

int dg_run_solver(dg_solver s, dg_result *r) {
    const int inner_mg = dg_mg_inner_newton(s);
    /* multigrid asked for with periodic axes needs a medium that repeats (AUTO checked it when
       it chose) */
    if (s->active_solver == DG_SOLVER_MULTIGRID && s->options.solver == DG_SOLVER_MULTIGRID &&
        s->options.periodic) {
        char where[256];
        const int mismatch = dg_mg_seam_mismatch(&s->prep, where, sizeof where);
        if (mismatch < 0)
            return dg_fail(s, DG_ERR_OUT_OF_MEMORY, "out of memory checking the periodic faces");
        if (mismatch)
            return dg_fail(s, DG_ERR_UNSUPPORTED,
                           "option periodic: multigrid needs a medium that repeats across the "
                           "periodic faces, and %s; use solver SOR",
                           where);
    }
    if (s->active_solver == DG_SOLVER_MULTIGRID && !inner_mg) return dg_mg_run(s, r);
    const double plan_start = dg_wall_seconds(); /* the spectral radius counts as set-up */
    solve_plan plan = {0};
    int st = make_plan(s, &plan);
    if (st != DG_OK) return st;
    if (plan.nonlinear && s->options.nonlinear_method == DG_NONLINEAR_NEWTON &&
        s->options.precision == DG_PRECISION_MIXED)
        return dg_fail(s, DG_ERR_UNSUPPORTED,
                       "option precision: MIXED is not available with nonlinear_method NEWTON "
                       "(Newton's residual is already in double; use DOUBLE or FLOAT)");
    if ((st = set_omega(s, plan.omega)) != DG_OK) return st;
    r->setup_seconds += dg_wall_seconds() - plan_start;
    s->timing.spectral = dg_wall_seconds() - plan_start;
    r->spectral_radius = plan.spectral_radius;
    r->omega = plan.omega;
    r->estimated_iterations = plan.estimate;
    r->equation = plan.nonlinear ? DG_EQUATION_NONLINEAR_PB : DG_EQUATION_LINEAR;
    r->final_relpar = 1.0;

    dg_monitor mon;
    dg_monitor_start(&mon, s);
    int outcome = DG_OUTCOME_COMPLETED;
    if (plan.nonlinear && s->options.nonlinear_method == DG_NONLINEAR_NEWTON)
        st = dg_run_newton(s, plan.omega, plan.cap, inner_mg, &mon, &outcome, r);
    else
        st = plan.nonlinear ? run_nonlinear(s, &plan, &mon, &outcome, r)
                            : run_linear(s, &plan, &mon, &outcome);
    r->solve_seconds = dg_wall_seconds() - mon.start_time;
    s->timing.iterate = r->solve_seconds;
    if (st != DG_OK) return st;
    r->outcome = outcome;
    r->iterations = mon.iterations;
    if (!plan.nonlinear) r->linear_iterations = mon.iterations;
    r->checks = mon.checks;
    r->max_change = mon.max_change;
    r->rms_change = mon.rms_change;
    r->norm_change = mon.norm_change;
    return DG_OK;
}
