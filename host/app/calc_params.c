/* Settings -> calculation parameters (see calc_params.h). */
#include "calc_params.h"

#include "app_mpi.h"

#include <stdlib.h>
#include <string.h>

void calc_options_from_settings(const run_settings *s, dg_options *o) {
    dg_default_options(o);
    o->backend = s->backend;
    o->precision = s->precision;
    o->device = app_mpi_device(s->device);
    o->mpi_comm = app_mpi_comm(); /* NULL unless started by mpirun with several ranks */
    o->num_threads = s->threads > 0 ? s->threads : 0;
    o->equation = s->nonit > 0 ? DG_EQUATION_NONLINEAR_PB : DG_EQUATION_AUTO;
    o->solver = s->solver;
    o->periodic = s->periodic;
    o->spectral_radius = s->relfac_given ? s->relfac : 0.0;
    /* relfac 0, DelPhi's spectral radius 0: its omega 2 / (1 + sqrt(1 - 0)) = 1, Gauss-Seidel
       (the library's spectral radius 0 means "estimate it") */
    if (s->relfac_given && s->relfac == 0.0) o->omega = 1.0;
    /* linit switches DelPhi's automatic mode off (autoc= turns it back on); in automatic mode
       the iteration count is the estimate and, with a criterion, the solve goes on until it is
       met (docs/SOLVER.md, "Convergence checks"). */
    o->iterations = s->linit_given ? s->linit : 0;
    o->run_until_converged = !s->linit_given ? -1 : s->autoc ? 1 : 0;
    o->check_interval = s->conint > 0 ? s->conint : 10;
    o->check_stride = s->confra > 0 ? s->confra : 1;
    o->rms_change_tol = s->rmsc > 0 ? s->rmsc : 0.0;
    o->max_change_tol = s->maxc > 0 ? s->maxc : 0.0;
    o->norm_change_tol = s->normc > 0 ? s->normc : 0.0;
    o->relpar = s->relpar_given ? s->relpar : 0.0;
    /* DelPhi raises nonit <= 20 to 30 blocks. */
    o->nonlinear_method =
        s->nonlinear_method == NONLINEAR_DELPHI ? DG_NONLINEAR_DELPHI : DG_NONLINEAR_NEWTON;
    o->nonlinear_term = s->nonlinear_method == NONLINEAR_NEWTON_POLYNOMIAL
                            ? DG_NONLINEAR_TERM_POLYNOMIAL
                            : DG_NONLINEAR_TERM_AUTO;
    if (s->nonit > 0) /* DelPhi's scheme only: Newton stops on the criteria */
        o->nonlinear_blocks = s->nonit <= 20 ? 30 : s->nonit;
}

void calc_params_from_settings(const run_settings *s, dg_calc_params *p) {
    dg_calc_default_params(p);
    p->grid_size = s->gsize_given ? s->gsize : 0;
    /* DelPhi: gsize with perfil derives the scale; gsize alone keeps the default scale 1.2 */
    p->scale = s->scale_given || !s->gsize_given || !s->perfil_given ? s->scale : 0.0;
    p->perfil = s->perfil_given ? s->perfil : 0.0;
    p->center_mode = s->center_mode;
    memcpy(p->center, s->center, sizeof p->center);
    p->epsilon_in = s->indi, p->epsilon_out = s->exdi;
    p->probe_radius = s->prbrad, p->ion_radius = s->ionrad;
    p->surface = s->surface;
    p->temperature = s->temperature;
    p->salt_count = 0;
    const double conc[2] = {s->salt, s->salt2};
    for (int k = 0; k < 2; ++k) {
        if (!(conc[k] > 0.0)) continue;
        dg_salt *salt = &p->salts[p->salt_count++];
        salt->cation_valence = s->valence[2 * k];
        salt->anion_valence = s->valence[2 * k + 1];
        /* DelPhi counts a salt as M_(z-) X_(z+), not reduced (ionic strength
           c z+ z- (z+ + z-) / 2); the library's is the reduced formula unit: g times as much */
        int g = salt->cation_valence, r = salt->anion_valence;
        while (r) {
            const int remainder = g % r;
            g = r, r = remainder;
        }
        salt->concentration = conc[k] * g;
    }
    p->boundary = s->bndcon;
    p->energies = DG_ENERGY_GRID | (s->energy_coulombic ? DG_ENERGY_COULOMBIC : 0) |
                  (s->energy_solvation || s->scrg_out_file[0] ? DG_ENERGY_REACTION_FIELD : 0) |
                  (s->energy_ionic ? DG_ENERGY_IONIC : 0);
    p->solvation_two_run = s->solvation_two_run;
    p->coarse_scale = s->coarse_scale, p->coarse_perfil = s->coarse_perfil;
    calc_options_from_settings(s, &p->solver);
}

int calc_atoms_from_molecule(const molecule *mol, dg_atoms *atoms) {
    const size_t n = mol->count + 1;
    double *xyz = malloc(3 * n * sizeof *xyz), *q = malloc(n * sizeof *q),
           *r = malloc(n * sizeof *r);
    atoms->count = (long)mol->count;
    atoms->position = xyz, atoms->charge = q, atoms->radius = r;
    if (!xyz || !q || !r) {
        calc_atoms_free(atoms);
        return -1;
    }
    for (size_t i = 0; i < mol->count; ++i) {
        const atom *a = &mol->atoms[i];
        xyz[3 * i] = a->x, xyz[3 * i + 1] = a->y, xyz[3 * i + 2] = a->z;
        q[i] = a->charge, r[i] = a->radius;
    }
    return 0;
}

void calc_atoms_free(dg_atoms *atoms) {
    free((void *)atoms->position), free((void *)atoms->charge), free((void *)atoms->radius);
    atoms->position = atoms->charge = atoms->radius = NULL;
    atoms->count = 0;
}
