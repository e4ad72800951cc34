/* The multigrid path of dg_run_solver: checks what it supports, builds the hierarchy on the
 * host, solves a working-precision copy of phi on the solver's backend and hands the answer to
 * the backend (store_phi then returns it). */
#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "mg.h"

void dg_mg_make_control(const dg_options *o, const dg_prepared *p, int is_double,
                        dg_mg_control *c) {
    /* Tolerances on the scaled residual, matched to the SOR change tolerances. */
    const double g = DG_MG_TOLERANCE_MARGIN * dg_mg_residual_factor(p->nx, p->ny, p->nz);
    c->tol[0] = g * o->max_change_tol;
    c->tol[1] = g * o->rms_change_tol;
    c->tol[2] = g * o->norm_change_tol;
    const int criteria = c->tol[0] > 0 || c->tol[1] > 0 || c->tol[2] > 0;
    c->fixed = !criteria && o->iterations > 0;
    if (!criteria && !c->fixed) c->tol[0] = g * DG_MG_DEFAULT_MAX_CHANGE;
    c->cap =
        c->fixed ? o->iterations : (o->max_iterations > 0 ? o->max_iterations : DG_MG_MAX_CYCLES);
    c->stall = DG_MG_STALL_CYCLES;
    c->floor = is_double ? 0.0 : DG_MG_FLOAT_FLOOR * FLT_EPSILON;
}

int dg_mg_met(const dg_mg_control *c, double max_abs, double sum_sq, double phi_max,
              double interior) {
    return (c->floor > 0 && max_abs <= c->floor * phi_max) ||
           (c->tol[0] > 0 && max_abs <= c->tol[0]) ||
           (c->tol[1] > 0 && sqrt(sum_sq / interior) <= c->tol[1]) ||
           (c->tol[2] > 0 && sqrt(sum_sq) <= c->tol[2]);
}

int dg_mg_run(dg_solver s, dg_result *r) {
    const dg_options *o = &s->options;
    const dg_prepared *p = &s->prep;
    if (o->equation == DG_EQUATION_NONLINEAR_PB)
        return dg_fail(s, DG_ERR_UNSUPPORTED,
                       "option solver: MULTIGRID solves linear PB and Poisson; nonlinear PB "
                       "runs with solver SOR");
    if (!s->mg_phi) return dg_fail(s, DG_ERR_INTERNAL, "multigrid: no phi handed over by dg_solve");
    const int on_cuda = s->backend != &dg_cpu_backend_ops;
    const double start = dg_wall_seconds();
    /* MIXED runs the double loop: its preconditioner is float already (docs/MULTIGRID.md). */
    const int is_double = o->precision != DG_PRECISION_FLOAT;
    const size_t n = p->point_count;
    void *work = malloc(n * (is_double ? sizeof(double) : sizeof(float)));
    if (!work) return dg_fail(s, DG_ERR_OUT_OF_MEMORY, "multigrid: out of host memory (phi copy)");
    const int threads = o->num_threads > 0 ? o->num_threads : omp_get_max_threads();
    const void *phi = s->mg_phi;
    const int phi_is_double = s->mg_phi_is_double;
#pragma omp parallel for schedule(static) num_threads(threads) if (n > 65536)
    for (size_t w = 0; w < n; ++w) {
        const double v = phi_is_double ? ((const double *)phi)[w] : (double)((const float *)phi)[w];
        if (is_double)
            ((double *)work)[w] = v;
        else
            ((float *)work)[w] = (float)v;
    }
    dg_mg_params params;
    dg_mg_default_params(&params);
    dg_mg_hierarchy h;
    char message[512];
    int st = on_cuda ? dg_mg_plan(&h, p, &params, o->num_threads, message, sizeof message)
                     : dg_mg_build(&h, p, &params, o->num_threads, message, sizeof message);
    if (st != DG_OK) {
        free(work);
        return dg_fail(s, st, "%s", message);
    }
    r->setup_seconds += dg_wall_seconds() - start;
    r->equation = DG_EQUATION_LINEAR;
    r->final_relpar = 1.0;
    const double solve_start = dg_wall_seconds();
    dg_mg_outcome out = {0};
    dg_error err = {0};
    if (on_cuda) {
        dg_mg_control ctl;
        dg_mg_make_control(o, p, is_double, &ctl);
        st = dg_cuda_mg_solve(o->device, &h, is_double, work, &ctl, &out, &err);
        if (st != DG_OK) st = dg_fail(s, st, "multigrid on CUDA: %s", err.message);
    } else {
        st = is_double ? dg_mg_solve_d(s, &h, work, &out) : dg_mg_solve_f(s, &h, work, &out);
    }
    dg_mg_free(&h);
    const double solve_end = dg_wall_seconds();
    if (st == DG_OK) {
        r->outcome = out.outcome;
        r->iterations = r->linear_iterations = r->checks = out.cycles;
        r->max_change = out.max_abs, r->rms_change = out.rms, r->norm_change = out.norm;
    }
    if (st == DG_OK && out.outcome != DG_OUTCOME_DIVERGED) {
        st = s->backend->load_phi(s->backend_state, work, is_double, &err);
        if (st != DG_OK)
            st = dg_fail(s, st, "%s backend could not take the multigrid answer: %s",
                         s->backend->name, err.message);
    }
    free(work);
    /* set-up: the host hierarchy, the transfers (CUDA) and handing phi to the backend;
       solve: the cycles */
    r->setup_seconds += out.transfer_seconds + (dg_wall_seconds() - solve_end);
    r->solve_seconds = solve_end - solve_start - out.transfer_seconds;
    return st;
}
