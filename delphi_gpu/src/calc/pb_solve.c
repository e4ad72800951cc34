/* Poisson-Boltzmann solve through the delphi_gpu C API. */
#include "pb_solve.h"

#include <string.h>

void pb_medium_init(pb_medium *pm, const grid_spec *g, const medium_maps *m,
                    const charge_list *charges, const salt_model *salt, double eps_in,
                    double eps_solvent, double temperature) {
    memset(pm, 0, sizeof *pm);
    pm->epsilon[MEDIUM_SOLVENT] = eps_solvent;
    pm->epsilon[MEDIUM_SOLUTE] = eps_in;
    dg_dense_medium_d *d = &pm->dense;
    d->nx = d->ny = d->nz = g->n;
    d->scale = g->scale;
    d->temperature = temperature;
    d->medium_x = m->face[0], d->medium_y = m->face[1], d->medium_z = m->face[2];
    d->medium_epsilon = pm->epsilon;
    d->medium_count = 2;
    d->charge_list_index = charges->index;
    d->charge_list_value = charges->value;
    d->charge_list_count = charges->count;
    d->epsilon_solvent = eps_solvent;
    if (salt && salt->salt_count > 0 && m->ion_accessible) {
        d->ion_accessible = m->ion_accessible;
        d->salts = salt->salts;
        d->salt_count = salt->salt_count;
    }
}

int pb_wants_nonlinear(const dg_calc_params *s, const salt_model *salt) {
    return s->solver.equation == DG_EQUATION_NONLINEAR_PB && salt->ionic_strength > 1e-6;
}

const char *pb_solve_options(const dg_calc_params *s, int nonlinear, dg_options *o) {
    *o = s->solver;
    o->equation = nonlinear                                        ? DG_EQUATION_NONLINEAR_PB
                  : s->solver.equation == DG_EQUATION_NONLINEAR_PB ? DG_EQUATION_AUTO
                                                                   : s->solver.equation;
    /* Multigrid solves the linear equations and Newton's steps; DelPhi's nonlinear scheme
       keeps the SOR (a calculation's linear runs still use multigrid). */
    if (nonlinear && o->solver == DG_SOLVER_MULTIGRID &&
        o->nonlinear_method != DG_NONLINEAR_NEWTON) {
        o->solver = DG_SOLVER_SOR;
        return "sor: solver MULTIGRID was asked, but DelPhi's nonlinear scheme (nonlinear method "
               "DELPHI) runs on the SOR; multigrid solves the linear equations and Newton's "
               "steps (nonlinear method NEWTON)";
    }
    return NULL;
}
