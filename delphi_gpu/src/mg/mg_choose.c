/* DG_SOLVER_AUTO: multigrid where it reaches the tolerance sooner than the SOR, by the grid
 * size per backend (measured, docs/MULTIGRID.md), SOR for everything multigrid does not solve
 * (DelPhi's nonlinear scheme, MPI, every axis periodic without salt) and for DelPhi's own entry
 * points.
 * Newton's method for nonlinear PB solves its steps by multigrid where the linear equation would
 * be. */
#include <stdio.h>

#include "mg.h"

const char *dg_solver_choice(dg_solver s) {
    return s ? s->solver_choice : "";
}

int dg_mg_choose(dg_solver s, char *why, size_t size) {
    const dg_options *o = &s->options;
    const dg_prepared *p = &s->prep;
    if (o->solver == DG_SOLVER_SOR) {
        snprintf(why, size, "sor: solver SOR");
        return DG_SOLVER_SOR;
    }
    if (o->solver == DG_SOLVER_MULTIGRID) {
        snprintf(why, size, "multigrid: solver MULTIGRID");
        return DG_SOLVER_MULTIGRID;
    }
    const int on_cuda = s->backend != &dg_cpu_backend_ops;
    const int nonlinear = o->equation == DG_EQUATION_NONLINEAR_PB;
    const int edge = !on_cuda                   ? DG_MG_AUTO_EDGE_CPU
                     : nonlinear && o->periodic ? DG_MG_AUTO_EDGE_CUDA_NEWTON_PERIODIC
                     : nonlinear                ? DG_MG_AUTO_EDGE_CUDA_NEWTON
                                                : DG_MG_AUTO_EDGE_CUDA;
    const double interior = (double)p->interior_count,
                 least = (edge - 2.0) * (edge - 2.0) * (edge - 2.0);
    const char *reason = NULL;
    if (nonlinear && o->nonlinear_method != DG_NONLINEAR_NEWTON)
        reason = "DelPhi's nonlinear scheme (multigrid solves Newton's steps)";
    else if (nonlinear && !on_cuda)
        reason = "Newton's method on the cpu backend (its steps by multigrid were slower up "
                 "to 161^3, docs/NONLINEAR.md)";
    else if (o->mpi_comm)
        reason = "split over MPI ranks";
    else if (dg_mg_singular_periodic(p))
        reason = "x, y and z periodic without salt (no unique solution for multigrid's "
                 "coarsest level)";
    else if (s->stock_behaviour)
        reason = "DelPhi's own entry points keep its SOR";
    else if (o->iterations > 0 &&
             !(o->max_change_tol > 0 || o->rms_change_tol > 0 || o->norm_change_tol > 0))
        reason = "a fixed iteration count without a stopping criterion counts SOR iterations";
    if (reason) {
        snprintf(why, size, "sor: solver AUTO, %s", reason);
        return DG_SOLVER_SOR;
    }
    const int mg = interior >= least;
    if (mg && o->periodic) { /* multigrid needs a medium that repeats across the seams */
        const int mismatch = dg_mg_seam_mismatch(p, NULL, 0);
        if (mismatch) {
            snprintf(why, size, "sor: solver AUTO, %s",
                     mismatch < 0 ? "out of memory checking the periodic faces"
                                  : "the medium does not repeat across the periodic faces "
                                    "(multigrid needs it)");
            return DG_SOLVER_SOR;
        }
    }
    snprintf(why, size, "%s: solver AUTO, %s%s, %dx%dx%d grid (%s %d^3 on the %s backend)",
             mg ? "multigrid" : "sor",
             nonlinear ? "nonlinear equation by Newton's method" : "linear equation",
             o->periodic ? " with periodic axes" : "", p->nx, p->ny, p->nz, mg ? ">=" : "<", edge,
             on_cuda ? "cuda" : "cpu");
    return mg ? DG_SOLVER_MULTIGRID : DG_SOLVER_SOR;
}

int dg_mg_inner_newton(dg_solver s) {
    return s->active_solver == DG_SOLVER_MULTIGRID &&
           s->options.equation == DG_EQUATION_NONLINEAR_PB &&
           s->options.nonlinear_method == DG_NONLINEAR_NEWTON;
}
