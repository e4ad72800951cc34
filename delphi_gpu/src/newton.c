/* Nonlinear PB by inexact Newton (see docs/NONLINEAR.md).
 *
 * Each step solves J delta = -G(phi) by red-black SOR with the ionic term's derivative on the
 * diagonal (newton_backend.h), or by multigrid-preconditioned CG on the same equation (solver
 * MULTIGRID), only as accurately as the forcing term asks (Eisenstat-Walker choice 2), then
 * backtracks along delta until the 2-norm of G falls (Armijo, halving).  The change of phi in
 * a step plays the role of DelPhi's change per iteration: the solve has converged when a full
 * step meets the options' criteria. */
#include <float.h>
#include <math.h>

#include "newton.h"
#include "newton_backend.h"

#define FORCING_FIRST      0.9  /* forcing term of the first step */
#define FORCING_MAX        0.9  /* never solve a step less accurately than this */
#define ARMIJO             1e-4 /* sufficient decrease of |G| */
#define MAX_HALVINGS       40
#define FORCING_RETRY_MIN  1e-4 /* a failed line search is retried while the forcing term > this */
#define INNER_CHECK        10   /* inner sweeps between checks of the inner change */
#define SHORT_STEP         0x1p-10 /* a step cut below this by the line search was a poor one */
#define SYMMETRIC_SALT_TOL 1e-3

/* The ionic term: DelPhi's polynomial, or the exact Boltzmann term for one symmetric z:z salt,
   recognised from the series (chi0 = chi2 = 0, chi3 / chi1 = z^2 / 20). */
static int choose_term(dg_solver s, dg_newton_term *t) {
    const dg_prepared *p = &s->prep;
    const double *chi = p->chi;
    *t = (dg_newton_term){0};
    t->salt_factor = p->factor[1];
    t->coefficient = p->nonlinear_coefficient;
    for (int i = 0; i < 4; ++i)
        t->chi[i] = chi[i];
    int symmetric = chi[1] < 0.0 && chi[3] < 0.0 &&
                    fabs(chi[0]) <= SYMMETRIC_SALT_TOL * 1e-3 * fabs(chi[1]) &&
                    fabs(chi[2]) <= SYMMETRIC_SALT_TOL * 1e-3 * fabs(chi[1]);
    double z = 0.0;
    if (symmetric) {
        const double z2 = 20.0 * chi[3] / chi[1];
        z = round(sqrt(z2));
        symmetric = z >= 1.0 && z <= 4.0 && fabs(z2 - z * z) <= SYMMETRIC_SALT_TOL * z * z;
    }
    const int term = s->options.nonlinear_term;
    if (term == DG_NONLINEAR_TERM_EXACT && !symmetric)
        return dg_fail(s, DG_ERR_UNSUPPORTED,
                       "option nonlinear_term: EXACT needs one symmetric z:z salt (chi2 = chi4 = "
                       "0, chi5/chi3 = z^2/20 with z = 1..4); the medium's series is chi2..chi5 "
                       "= %g %g %g %g",
                       chi[0], chi[1], chi[2], chi[3]);
    t->exact = term == DG_NONLINEAR_TERM_EXACT || (term == DG_NONLINEAR_TERM_AUTO && symmetric);
    if (t->exact) {
        t->valence = z;
        t->amplitude = -6.0 * p->nonlinear_coefficient * chi[1] / (z * z);
    }
    return DG_OK;
}

int dg_newton_exact_term(dg_solver s) {
    if (s->options.nonlinear_method != DG_NONLINEAR_NEWTON) return 0;
    dg_newton_term t;
    return choose_term(s, &t) == DG_OK && t.exact;
}

const dg_newton_ops *dg_newton_ops_of(const dg_backend_ops *backend) {
    return backend == &dg_cpu_backend_ops ? &dg_cpu_newton_ops : dg_cuda_newton();
}

static const dg_newton_ops *newton_ops(dg_solver s) {
#ifdef DG_MPI
    if (s->backend == &s->mpi_ops) return &dg_mpi_newton_ops;
#endif
    return dg_newton_ops_of(s->backend);
}

static int backend_failed(dg_solver s, int st, const char *what, const dg_error *err) {
    return dg_fail(s, st, "%s backend, Newton %s: %s", s->backend->name, what, err->message);
}

typedef struct tolerances {
    double max, rms, norm; /* 0 = not set */
    double inner_floor;    /* inner sweeps stop once the change per sweep is below this */
} tolerances;

static tolerances newton_tolerances(const dg_options *o) {
    tolerances t = {o->max_change_tol, o->rms_change_tol, o->norm_change_tol, 0.0};
    if (!dg_criteria_set(o)) t.max = DG_NEWTON_DEFAULT_TOL;
    const double smallest = t.max > 0.0 ? t.max : t.rms > 0.0 ? t.rms : t.norm;
    t.inner_floor = 0.5 * smallest;
    return t;
}

static int met(const tolerances *t, const dg_monitor *m) {
    return (t->max > 0.0 && m->max_change <= t->max) || (t->rms > 0.0 && m->rms_change <= t->rms) ||
           (t->norm > 0.0 && m->norm_change <= t->norm);
}

/* Inner SOR until the change per sweep is below target (or the cap); *sweeps counts them. */
static int inner_solve(dg_solver s, const dg_newton_ops *ops, void *ws, double omega, double target,
                       int cap, int *sweeps, int *finite) {
    dg_error err = {0};
    int st = ops->zero_step(ws, &err);
    if (st != DG_OK) return backend_failed(s, st, "step reset", &err);
    *finite = 1;
    while (*sweeps < cap) {
        const int count = cap - *sweeps < INNER_CHECK ? cap - *sweeps : INNER_CHECK;
        double change = 0.0;
        st = ops->inner(ws, count, omega, 1, &change, NULL, &err);
        if (st != DG_OK) return backend_failed(s, st, "inner sweeps", &err);
        *sweeps += count;
        if (!isfinite(change)) return *finite = 0, DG_OK;
        if (change <= target) break;
    }
    return DG_OK;
}

/* The step's equation by multigrid to a scaled residual of target (or the cap on cycles). */
static int inner_multigrid(dg_solver s, const dg_newton_ops *ops, void *ws, double target, int cap,
                           int *cycles, int *finite) {
    dg_mg_control ctl = {{0.0, 0.0, 0.0},
                         {target, 0.0, 0.0},
                         0,
                         cap - *cycles,
                         DG_MG_STALL_CYCLES,
                         DG_MG_FLOAT_FLOOR * FLT_EPSILON,
                         0.0,
                         NULL,
                         NULL};
    dg_mg_outcome out = {0};
    dg_error err = {0};
    const int st = ops->inner_mg(ws, &ctl, &out, &err);
    if (st != DG_OK) return backend_failed(s, st, "multigrid inner solve", &err);
    *cycles += out.cycles;
    *finite = out.outcome != DG_OUTCOME_DIVERGED;
    return DG_OK;
}

/* Over MPI ranks every rank stops when any rank's callback asks to (dg_mpi_any). */
static int report_progress(dg_solver s, dg_monitor *m, int step, double omega, int multigrid) {
    if (!s->options.progress) return dg_mpi_any(s, 0);
    dg_progress p = {m->iterations,
                     DG_PHASE_NONLINEAR,
                     step,
                     m->max_change,
                     m->rms_change,
                     m->norm_change,
                     omega,
                     0,
                     dg_wall_seconds() - m->start_time,
                     multigrid ? DG_SOLVER_MULTIGRID : DG_SOLVER_SOR};
    return dg_mpi_any(s, s->options.progress(&p, s->options.progress_user_data) != 0);
}

static int newton_loop(dg_solver s, const dg_newton_ops *ops, void *ws, double omega, int cap,
                       int multigrid, dg_monitor *mon, int *outcome, dg_result *r) {
    const tolerances tol = newton_tolerances(&s->options);
    /* The inner solves stop at the forcing term or at a floor, whichever is larger.  The SOR's
       floor is half the tolerance on the change per sweep; where a mode converges slowly (with
       x, y and z periodic, the constant one) a change per sweep below it can leave the step far
       from solved, and no longer a descent direction.  So a step that the line search rejects,
       or shortens while the floor set the target, makes the floor ten times smaller.
       Multigrid's floor is a residual tolerance (mg.h), which a slow mode does not fool. */
    double floor = tol.inner_floor;
    const double mg_floor = DG_MG_NEWTON_RESIDUAL_PER_CHANGE * tol.inner_floor;
    const double interior = (double)s->prep.interior_count;
    dg_error err = {0};
    dg_newton_norms g = {0};
    int st = ops->residual(ws, &g, &err);
    if (st != DG_OK) return backend_failed(s, st, "residual", &err);
    if (!g.finite) return *outcome = DG_OUTCOME_DIVERGED, DG_OK;
    double eta = FORCING_FIRST, gnorm = sqrt(g.sum_sq);
    r->final_relpar = 1.0;
    for (int step = 1; step <= DG_NEWTON_MAX_STEPS; ++step) {
        if (g.max_abs == 0.0) return *outcome = DG_OUTCOME_CONVERGED, DG_OK; /* exact solution */
        if (mon->iterations >= cap) return *outcome = DG_OUTCOME_NOT_CONVERGED, DG_OK;
        int finite = 1;
        const int floored = !multigrid && floor > eta * omega * g.max_abs;
        if (multigrid) /* on the residual (the change of a sweep without omega); below its
                          floor a step still asks for a tenth of G, so that it makes progress */
            st = inner_multigrid(s, ops, ws, fmax(eta * g.max_abs, fmin(mg_floor, 0.1 * g.max_abs)),
                                 cap, &mon->iterations, &finite);
        else
            st = inner_solve(s, ops, ws, omega, fmax(eta * omega * g.max_abs, floor), cap,
                             &mon->iterations, &finite);
        if (st != DG_OK) return st;
        if (!finite) return *outcome = DG_OUTCOME_DIVERGED, DG_OK;
        /* Backtracking line search on |G|. */
        double lambda = 1.0;
        dg_newton_norms change = {0}, trial = {0}, full = {0};
        int accepted = 0;
        for (int halving = 0; halving <= MAX_HALVINGS; ++halving, lambda *= 0.5) {
            st = ops->step(ws, lambda, halving == 0, &change, &err);
            if (st != DG_OK) return backend_failed(s, st, "update", &err);
            if (halving == 0) full = change;
            st = ops->residual(ws, &trial, &err);
            if (st != DG_OK) return backend_failed(s, st, "residual", &err);
            if (trial.finite && sqrt(trial.sum_sq) <= (1.0 - ARMIJO * lambda) * gnorm) {
                accepted = 1;
                break;
            }
        }
        mon->checks++;
        r->nonlinear_blocks = step;
        const int is_float = s->options.precision == DG_PRECISION_FLOAT;
        if (!accepted && is_float && full.finite) {
            /* In float G stops falling at the rounding of phi: a full step within the
               tolerances still meets DelPhi's criterion (the change of an iteration). */
            dg_monitor at = *mon;
            at.max_change = full.max_abs;
            at.rms_change = sqrt(full.sum_sq / interior), at.norm_change = sqrt(full.sum_sq);
            if (met(&tol, &at)) {
                st = ops->step(ws, 1.0, 0, &change, &err);
                if (st != DG_OK) return backend_failed(s, st, "update", &err);
                mon->max_change = at.max_change;
                mon->rms_change = at.rms_change, mon->norm_change = at.norm_change;
                r->final_relpar = 1.0;
                return *outcome = DG_OUTCOME_CONVERGED, DG_OK;
            }
        }
        if (!accepted) { /* no decrease along delta: leave phi where it was */
            st = ops->step(ws, 0.0, 0, &change, &err);
            if (st == DG_OK) st = ops->residual(ws, &trial, &err);
            if (st != DG_OK) return backend_failed(s, st, "restore", &err);
            /* A loosely solved step need not be a descent direction: solve it again, tighter
               (while the forcing term or, in double, the floor set the inner target). */
            if (eta > FORCING_RETRY_MIN || (floored && !is_float)) {
                if (eta > FORCING_RETRY_MIN) eta *= 0.1;
                floor *= 0.1;
                g = trial, gnorm = sqrt(trial.sum_sq);
                continue;
            }
            /* In float the residual stops falling at the rounding of phi. */
            *outcome = is_float ? DG_OUTCOME_FLOAT_RESOLUTION : DG_OUTCOME_NOT_CONVERGED;
            return DG_OK;
        }
        /* Backtracked although the floor, not the forcing term, set the inner target: the floor
           left the step unsolved (a slow mode), so the next steps are solved further. */
        if (lambda < 1.0 && floored) floor *= 0.1;
        r->final_relpar = lambda;
        mon->max_change = change.max_abs;
        mon->rms_change = sqrt(change.sum_sq / interior);
        mon->norm_change = sqrt(change.sum_sq);
        if (report_progress(s, mon, step, omega, multigrid))
            return *outcome = DG_OUTCOME_STOPPED, DG_OK;
        /* Eisenstat-Walker choice 2 with its safeguard. */
        const double ratio = sqrt(trial.sum_sq) / gnorm;
        double next = 0.9 * ratio * ratio;
        if (0.9 * eta * eta > 0.1) next = fmax(next, 0.9 * eta * eta);
        /* A step the line search cut by more than SHORT_STEP was a poor direction (solved too
           loosely; in float, such a step's gain can be rounding): its G barely fell, so the
           rule above would solve the next step as loosely.  Solve it ten times tighter. */
        if (lambda < SHORT_STEP) next = fmin(next, 0.1 * eta);
        eta = fmin(next, FORCING_MAX);
        g = trial, gnorm = sqrt(trial.sum_sq);
        if (lambda == 1.0 && met(&tol, mon)) return *outcome = DG_OUTCOME_CONVERGED, DG_OK;
    }
    return *outcome = DG_OUTCOME_NOT_CONVERGED, DG_OK;
}

int dg_run_newton(dg_solver s, double omega, int cap, int multigrid, dg_monitor *mon, int *outcome,
                  dg_result *r) {
    const dg_newton_ops *ops = newton_ops(s);
    if (!ops)
        return dg_fail(s, DG_ERR_INTERNAL, "the %s backend has no Newton kernels",
                       s->backend->name);
    if (multigrid && (!ops->mg_begin || !ops->inner_mg))
        return dg_fail(s, DG_ERR_INTERNAL, "the %s backend has no Newton multigrid",
                       s->backend->name);
    dg_newton_term term;
    int st = choose_term(s, &term);
    if (st != DG_OK) return st;
    void *ws = NULL;
    dg_error err = {0};
    st = ops->begin(s->backend_state, &term, &ws, &err);
    if (st != DG_OK) return backend_failed(s, st, "workspace", &err);
    mon->estimated_total = 0;
    if (multigrid) {
        const double begun = dg_wall_seconds();
        st = ops->mg_begin(ws, &s->prep, s->options.num_threads, &err);
        if (st != DG_OK) {
            ops->end(ws);
            return backend_failed(s, st, "multigrid hierarchy", &err);
        }
        s->timing.mg_build = dg_wall_seconds() - begun;
    }
    st = newton_loop(s, ops, ws, omega, cap, multigrid, mon, outcome, r);
    ops->end(ws);
    r->linear_iterations = 0;
    return st;
}
