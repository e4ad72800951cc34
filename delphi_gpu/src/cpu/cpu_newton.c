/* The CPU backend's Newton kernels (newton_backend.h): nonlinear residual in double, the inner
 * red-black SOR with a per-point diagonal, and the line-search update.  OpenMP over z planes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../newton_backend.h"
#include "cpu_view.h"
#include "delphi_gpu/delphi_gpu_types.h"

typedef struct cpu_newton {
    dg_cpu_view view;
    dg_newton_term term;
    void *delta[2], *start[2]; /* working precision */
    double *g[2], *inv[2];     /* G and 1 / (1 + d) */
    int *bmap[2];              /* boundary-list entry of each half point, -1 if none */
    double *plane_max, *plane_sum;
    int *plane_finite;
} cpu_newton;

static void collect_norms(const cpu_newton *w, dg_newton_norms *norms) {
    norms->max_abs = 0.0, norms->sum_sq = 0.0, norms->finite = 1;
    for (int z = 1; z < w->view.prep->nz - 1; ++z) { /* plane order: thread-count independent */
        if (w->plane_max[z] > norms->max_abs || isnan(w->plane_max[z]))
            norms->max_abs = w->plane_max[z];
        norms->sum_sq += w->plane_sum[z];
        norms->finite &= w->plane_finite[z];
    }
}

#define DG_TEMPLATE "cpu/cpu_newton_template.h" /* relative to for_each_precision.h */
#include "../for_each_precision.h"

static void cpu_newton_end(void *workspace) {
    cpu_newton *w = workspace;
    if (!w) return;
    for (int c = 0; c < 2; ++c)
        free(w->delta[c]), free(w->start[c]), free(w->g[c]), free(w->inv[c]), free(w->bmap[c]);
    free(w->plane_max), free(w->plane_sum), free(w->plane_finite);
    free(w);
}

static int cpu_newton_begin(void *backend_state, const dg_newton_term *term, void **workspace,
                            dg_error *err) {
    cpu_newton *w = calloc(1, sizeof *w);
    *workspace = NULL;
    if (!w) return dg_error_set(err, DG_ERR_OUT_OF_MEMORY, "out of memory (Newton workspace)");
    dg_cpu_view_of(backend_state, &w->view);
    w->term = *term;
    const dg_prepared *p = w->view.prep;
    const size_t es = w->view.is_float ? sizeof(float) : sizeof(double);
    int ok = 1;
    for (int c = 0; c < 2; ++c) {
        const size_t n = p->half_count[c] + 1;
        w->delta[c] = calloc(n, es), w->start[c] = calloc(n, es);
        w->g[c] = calloc(n, sizeof(double)), w->inv[c] = calloc(n, sizeof(double));
        w->bmap[c] = malloc(n * sizeof(int));
        ok = ok && w->delta[c] && w->start[c] && w->g[c] && w->inv[c] && w->bmap[c];
        if (!w->bmap[c]) continue;
        for (size_t h = 0; h < n; ++h)
            w->bmap[c][h] = -1;
        for (int k = 0; k < p->boundary_count[c]; ++k)
            w->bmap[c][p->boundary_index[c][k]] = k;
    }
    w->plane_max = calloc((size_t)p->nz, sizeof(double));
    w->plane_sum = calloc((size_t)p->nz, sizeof(double));
    w->plane_finite = calloc((size_t)p->nz, sizeof(int));
    if (!ok || !w->plane_max || !w->plane_sum || !w->plane_finite) {
        cpu_newton_end(w);
        return dg_error_set(err, DG_ERR_OUT_OF_MEMORY,
                            "out of host memory for the Newton workspace of a %d x %d x %d grid "
                            "(%.1f GB)",
                            p->nx, p->ny, p->nz,
                            (2.0 * es + 2.0 * sizeof(double) + sizeof(int)) * p->point_count / 1e9);
    }
    *workspace = w;
    return DG_OK;
}

static int cpu_newton_residual(void *workspace, dg_newton_norms *norms, dg_error *err) {
    cpu_newton *w = workspace;
    if (w->view.is_float)
        newton_residual_f(w, norms);
    else
        newton_residual_d(w, norms);
    return DG_OK;
}

static int cpu_newton_zero_step(void *workspace, dg_error *err) {
    cpu_newton *w = workspace;
    if (w->view.is_float)
        newton_zero_step_f(w);
    else
        newton_zero_step_d(w);
    return DG_OK;
}

static int cpu_newton_inner(void *workspace, int count, double omega, int measure,
                            double *max_change, dg_error *err) {
    cpu_newton *w = workspace;
    const double most = w->view.is_float ? newton_inner_f(w, count, omega, measure)
                                         : newton_inner_d(w, count, omega, measure);
    if (measure) *max_change = most;
    return DG_OK;
}

static int cpu_newton_step(void *workspace, double lambda, int first, dg_newton_norms *norms,
                           dg_error *err) {
    cpu_newton *w = workspace;
    if (w->view.is_float)
        newton_step_f(w, lambda, first, norms);
    else
        newton_step_d(w, lambda, first, norms);
    return DG_OK;
}

const dg_newton_ops dg_cpu_newton_ops = {
    cpu_newton_begin,    cpu_newton_end,   cpu_newton_residual,
    cpu_newton_zero_step, cpu_newton_inner, cpu_newton_step,
};
