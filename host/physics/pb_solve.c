/* Poisson-Boltzmann solve through the delphi_gpu C API. */
#include "pb_solve.h"

#include <stdio.h>
#include <stdlib.h>
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

int pb_wants_nonlinear(const run_settings *s, const salt_model *salt) {
    return s->nonit > 0 && salt->ionic_strength > 1e-6;
}

void pb_options_from_settings(const run_settings *s, int nonlinear, dg_options *o, char *note,
                              size_t note_size) {
    if (note && note_size) note[0] = '\0';
    dg_default_options(o);
    o->backend = s->backend;
    o->precision = s->precision;
    o->device = s->device;
    o->num_threads = s->threads > 0 ? s->threads : 0;
    o->equation = nonlinear ? DG_EQUATION_NONLINEAR_PB : DG_EQUATION_AUTO;
    o->spectral_radius = s->relfac_given ? s->relfac : 0.0;
    /* linit switches DelPhi's automatic mode off (autoc= turns it back on); in automatic mode
       the iteration count is the estimate and, with a criterion, the solve goes on until it is
       met (doc 5.7, "loop termination"). */
    o->iterations = s->linit_given ? s->linit : 0;
    o->run_until_converged = !s->linit_given ? -1 : s->autoc ? 1 : 0;
    o->check_interval = s->conint > 0 ? s->conint : 10;
    o->check_stride = s->confra > 0 ? s->confra : 1;
    o->rms_change_tol = s->rmsc > 0 ? s->rmsc : 0.0;
    o->max_change_tol = s->maxc > 0 ? s->maxc : 0.0;
    o->norm_change_tol = s->normc > 0 ? s->normc : 0.0;
    o->relpar = s->relpar_given ? s->relpar : 0.0;
    o->nonlinear_method =
        s->nonlinear_method == NONLINEAR_DELPHI ? DG_NONLINEAR_DELPHI : DG_NONLINEAR_NEWTON;
    o->nonlinear_term = s->nonlinear_method == NONLINEAR_NEWTON_POLYNOMIAL
                            ? DG_NONLINEAR_TERM_POLYNOMIAL
                            : DG_NONLINEAR_TERM_AUTO;
    if (nonlinear && s->nonlinear_method == NONLINEAR_DELPHI) {
        o->nonlinear_blocks = s->nonit <= 20 ? 30 : s->nonit;
        if (s->nonit <= 20 && note && note_size)
            snprintf(note, note_size, "nonit %d raised to 30 nonlinear blocks, as DelPhi does",
                     s->nonit);
    }
}

int pb_boundary_points(const dg_dense_medium_d *medium, long **boundary, size_t *count,
                       dg_sparse_counts *counts, char *msg, size_t msg_size) {
    *boundary = NULL, *count = 0;
    int st = dg_sparse_counts_d(medium, counts, msg, msg_size);
    if (st != DG_OK) return st;
    dg_dense_medium_d dielectric = *medium; /* no salt: only the dielectric jumps */
    dielectric.ion_accessible = NULL, dielectric.salts = NULL, dielectric.salt_count = 0;
    dg_sparse_counts c;
    if ((st = dg_sparse_counts_d(&dielectric, &c, msg, msg_size)) != DG_OK) return st;
    int *index = malloc(((size_t)c.boundary_count + 1) * sizeof *index);
    double *weights = malloc(((size_t)c.boundary_count + 1) * 6 * sizeof *weights);
    int *qindex = malloc(((size_t)c.charge_count + 1) * sizeof *qindex);
    double *qsource = malloc(((size_t)c.charge_count + 1) * sizeof *qsource);
    long *full = malloc(((size_t)c.boundary_count + 1) * sizeof *full);
    if (!index || !weights || !qindex || !qsource || !full) {
        snprintf(msg, msg_size, "out of memory for %d boundary points", c.boundary_count);
        st = DG_ERR_OUT_OF_MEMORY;
    } else {
        dg_sparse_medium_d sparse;
        st = dg_sparse_from_dense_d(&dielectric, index, weights, qindex, qsource, NULL, NULL,
                                    &sparse, msg, msg_size);
        /* DelPhi half-index h (1-based): odd points (first section) are w1 = 2h - 1, even
           points w1 = 2h; the 0-based full index is w1 - 1. */
        for (int k = 0; st == DG_OK && k < sparse.boundary_count; ++k)
            full[k] = k < sparse.boundary_count_odd ? 2L * index[k] - 2 : 2L * index[k] - 1;
        if (st == DG_OK) *count = (size_t)sparse.boundary_count;
    }
    free(index), free(weights), free(qindex), free(qsource);
    if (st != DG_OK) {
        free(full);
        return st;
    }
    *boundary = full;
    return DG_OK;
}

static void add_notice(dg_solver solver, char *notice, size_t size) {
    const char *text = dg_notice(solver);
    if (!text || !text[0] || !notice || !size || strstr(notice, text)) return;
    size_t used = strlen(notice);
    snprintf(notice + used, size - used, "%s%s", used ? "\n" : "", text);
}

int pb_solve(const dg_options *o, const dg_dense_medium_d *medium, phi_map *phi, dg_result *result,
             char *notice, size_t notice_size, char *msg, size_t msg_size) {
    if (notice && notice_size) notice[0] = '\0';
    dg_solver solver = NULL;
    int st = dg_create(&solver, o);
    add_notice(solver, notice, notice_size);
    if (st == DG_OK) {
        st = dg_set_dense_medium_d(solver, medium);
        add_notice(solver, notice, notice_size);
    }
    if (st == DG_OK) {
        st = phi->is_double ? dg_solve_d(solver, (double *)phi->data, result)
                            : dg_solve_f(solver, (float *)phi->data, result);
        add_notice(solver, notice, notice_size);
    }
    if (st != DG_OK) snprintf(msg, msg_size, "%s: %s", dg_status_string(st), dg_last_error(solver));
    dg_destroy(solver);
    return st;
}
