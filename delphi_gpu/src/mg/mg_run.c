/* The multigrid path of dg_run_solver: checks what it supports, builds the hierarchy, solves a
 * working-precision copy of phi and hands the answer to the backend (store_phi returns it). */
#include <stdlib.h>
#include <string.h>

#include "mg.h"

int dg_mg_run(dg_solver s, dg_result *r) {
    const dg_options *o = &s->options;
    const dg_prepared *p = &s->prep;
    if (o->equation == DG_EQUATION_NONLINEAR_PB)
        return dg_fail(s, DG_ERR_UNSUPPORTED,
                       "option solver: MULTIGRID solves linear PB and Poisson; nonlinear PB "
                       "runs with solver SOR");
    if (s->backend != &dg_cpu_backend_ops)
        return dg_fail(s, DG_ERR_UNSUPPORTED,
                       "option solver: MULTIGRID runs on the CPU backend only in this version "
                       "(backend %s)",
                       s->backend->name);
    if (!s->mg_phi)
        return dg_fail(s, DG_ERR_INTERNAL, "multigrid: no phi handed over by dg_solve");
    const double start = dg_wall_seconds();
    const int is_double = o->precision == DG_PRECISION_DOUBLE;
    const size_t n = p->point_count;
    void *work = malloc(n * (is_double ? sizeof(double) : sizeof(float)));
    if (!work)
        return dg_fail(s, DG_ERR_OUT_OF_MEMORY, "multigrid: out of host memory (phi copy)");
    for (size_t w = 0; w < n; ++w) {
        const double v = s->mg_phi_is_double ? ((const double *)s->mg_phi)[w]
                                             : (double)((const float *)s->mg_phi)[w];
        if (is_double)
            ((double *)work)[w] = v;
        else
            ((float *)work)[w] = (float)v;
    }
    dg_mg_params params;
    dg_mg_default_params(&params);
    { /* TEMPORARY tuning hook */
        const char *e;
        if ((e = getenv("DGMG_PRE"))) params.pre_sweeps = params.post_sweeps = atoi(e);
        if ((e = getenv("DGMG_SCALE"))) params.correction_scale = atof(e);
        if ((e = getenv("DGMG_VISITS"))) params.coarse_visits = atoi(e);
        if ((e = getenv("DGMG_COARSEST"))) params.coarsest_size = atoi(e);
    }
    dg_mg_hierarchy h;
    char message[512];
    int st = dg_mg_build(&h, p, &params, o->num_threads, message, sizeof message);
    if (st != DG_OK) {
        free(work);
        return dg_fail(s, st, "%s", message);
    }
    r->setup_seconds += dg_wall_seconds() - start;
    r->equation = DG_EQUATION_LINEAR;
    r->final_relpar = 1.0;
    const double solve_start = dg_wall_seconds();
    st = is_double ? dg_mg_solve_d(s, &h, work, r) : dg_mg_solve_f(s, &h, work, r);
    dg_mg_free(&h);
    if (st == DG_OK && r->outcome != DG_OUTCOME_DIVERGED) {
        dg_error err = {0};
        st = s->backend->load_phi(s->backend_state, work, is_double, &err);
        if (st != DG_OK)
            st = dg_fail(s, st, "%s backend could not take the multigrid answer: %s",
                         s->backend->name, err.message);
    }
    free(work);
    r->solve_seconds = dg_wall_seconds() - solve_start;
    return st;
}
