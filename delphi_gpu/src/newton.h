/* Nonlinear PB by an inexact Newton method with a backtracking line search (newton.c). */
#ifndef DG_NEWTON_H
#define DG_NEWTON_H

#include "monitor.h"

/** Solve nonlinear PB on the loaded phi: omega is the inner SOR's relaxation factor, cap the
 *  most inner sweeps (multigrid: cycles) in all; multigrid: the steps are solved by multigrid
 *  instead of the SOR.  Fills the outcome and the nonlinear fields of r. */
int dg_run_newton(dg_solver s, double omega, int cap, int multigrid, dg_monitor *mon, int *outcome,
                  dg_result *r);

/** 1 when a nonlinear solve of s with its options and medium solves the exact Boltzmann term
 *  (Newton's method with one symmetric z:z salt, or nonlinear_term EXACT), 0 when DelPhi's
 *  polynomial (DelPhi's scheme, or Newton otherwise).  The energy stage's terms follow it. */
int dg_newton_exact_term(dg_solver s);

/** Newton steps at most. */
#define DG_NEWTON_MAX_STEPS 200
/** The max-change tolerance (kT/e) when the options set no criterion. */
#define DG_NEWTON_DEFAULT_TOL 1e-5

#endif /* DG_NEWTON_H */
