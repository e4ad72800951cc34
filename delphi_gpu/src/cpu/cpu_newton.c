/* The CPU backend's Newton kernels (newton_backend.h): nonlinear residual in double, the inner
 * red-black SOR with a per-point diagonal, and the line-search update.  OpenMP over z planes.
 * The inner system (step delta, coefficients a = inv * factor and b = inv * G) is stored and
 * swept in float whatever the working precision: it only has to be solved to the forcing
 * term's relative accuracy (>= 1e-3 in practice), while G, which decides convergence, is
 * evaluated in double from phi in the working precision. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../newton_backend.h"
#include "cpu_view.h"
#include "delphi_gpu/delphi_gpu_types.h"

typedef struct cpu_newton {
    dg_cpu_view view;
    dg_newton_term term;
    void *start[2];                /* phi at the start of the step, working precision */
    float *delta[2], *snapshot[2]; /* the step; its copy before a measured iteration */
    float *a[2], *b[2];            /* inv * factor, inv * G */
    float *boundary_inv[2];        /* inv at each boundary point */
    float *boundary_weight[2];     /* the boundary weights, 6 per point */
    double *g[2], *inv[2];         /* G and 1 / (1 + d) */
    int *bmap[2];                  /* boundary-list entry of each half point, -1 if none */
    double *plane_max, *plane_sum;
    int *plane_finite;
    dg_mg_hierarchy *mg; /* the inner solves' hierarchy (solver MULTIGRID), else NULL */
    float *mg_step;      /* delta on the full grid (faces 0) for the multigrid solve */
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

/* One colour of the inner SOR on the uniform stencil: delta <- (1 - omega) delta +
   omega (a sum - b), then the boundary points' corrections omega inv sum_f weight_f delta_f. */
static void inner_colour(cpu_newton *w, int c, float omega) {
    const dg_prepared *p = w->view.prep;
    float *restrict delta = w->delta[c];
    const float *restrict other = w->delta[1 - c];
    const float *restrict a = w->a[c], *restrict b = w->b[c];
    const long *o = w->view.offsets[c];
    const long o0 = o[0], o1 = o[1], o2 = o[2], o3 = o[3], o4 = o[4], o5 = o[5];
    const float keep = 1.0f - omega;
#pragma omp parallel for schedule(static) num_threads(w->view.threads)
    for (int z = 1; z < p->nz - 1; ++z)
        for (int y = 1; y < p->ny - 1; ++y) {
            long first, last;
            dg_row_range(p->nx, p->ny, y, z, c, &first, &last);
            for (long h = first; h <= last; ++h) {
                const float sum = other[h + o0] + other[h + o1] + other[h + o2] + other[h + o3] +
                                  other[h + o4] + other[h + o5];
                delta[h] = keep * delta[h] + omega * (a[h] * sum - b[h]);
            }
        }
    const int nb = p->boundary_count[c];
    const int *index = p->boundary_index[c];
    const float *weight = w->boundary_weight[c], *inv = w->boundary_inv[c];
#pragma omp parallel for schedule(static) num_threads(w->view.threads) if (nb > 4096)
    for (int k = 0; k < nb; ++k) {
        const long h = index[k];
        const float *wk = weight + 6L * k;
        delta[h] += omega * inv[k] *
                    (wk[0] * other[h + o0] + wk[1] * other[h + o1] + wk[2] * other[h + o2] +
                     wk[3] * other[h + o3] + wk[4] * other[h + o4] + wk[5] * other[h + o5]);
    }
}

/* Periodic axes, after colour c: the linear sweep's seam steps (prepared.h, cpu_sweep_template.h)
   on delta, each seam point's coefficient of its face neighbour scaled by its 1 / (1 + d), taken
   as a / factor (the CUDA backend's dg_newton_seam_kernel does the same arithmetic). */
static void inner_seams(cpu_newton *w, int c, double omega) {
    const dg_prepared *p = w->view.prep;
    float *restrict delta = w->delta[c];
    float *restrict other = w->delta[1 - c];
    const int *index = p->seam_index[c];
    const unsigned char *axes = p->seam_axes[c];
    for (int k = 1; k <= p->seam_steps; ++k) {
        const int first = p->seam_start[c][k - 1], end = p->seam_start[c][k];
#pragma omp parallel for schedule(static) num_threads(w->view.threads) if (end - first > 4096)
        for (int e = first; e < end; ++e) {
            const long h = index[e], full = 2 * h + c;
            const int salt = p->has_salt && p->flag[c][h];
            const double inv = (double)w->a[c][h] / p->factor[salt];
            float v = delta[h];
            for (int a = 0; a < 3; ++a) {
                if (!((axes[e] >> a) & 1u)) continue;
                int n;
                long step;
                dg_axis_step(p->nx, p->ny, p->nz, a, &step, &n);
                const long face = (full - step) >> 1;
                const float image = delta[(full + (long)(n - 3) * step) >> 1];
                const float change = image - other[face];
                other[face] = image;
                v = v + (float)(omega * p->seam_coef[c][3 * e + a] * inv) * change;
            }
            delta[h] = v;
            for (int a = 0; a < 3; ++a) {
                if (!((axes[e] >> a) & 1u)) continue;
                int n;
                long step;
                dg_axis_step(p->nx, p->ny, p->nz, a, &step, &n);
                other[(full + (long)(n - 2) * step) >> 1] = v;
            }
        }
    }
}

/* Max |delta - snapshot| over the interior points of both colours. */
static double inner_change(cpu_newton *w) {
    const dg_prepared *p = w->view.prep;
    double most = 0.0;
#pragma omp parallel for schedule(static) num_threads(w->view.threads) reduction(max : most)
    for (int z = 1; z < p->nz - 1; ++z)
        for (int y = 1; y < p->ny - 1; ++y)
            for (int c = 0; c < 2; ++c) {
                long first, last;
                dg_row_range(p->nx, p->ny, y, z, c, &first, &last);
                for (long h = first; h <= last; ++h) {
                    const double change = fabs((double)w->delta[c][h] - w->snapshot[c][h]);
                    most = change > most || isnan(change) ? change : most;
                }
            }
    return most;
}

static void cpu_newton_end(void *workspace) {
    cpu_newton *w = workspace;
    if (!w) return;
    for (int c = 0; c < 2; ++c) {
        free(w->delta[c]), free(w->start[c]), free(w->g[c]), free(w->inv[c]), free(w->bmap[c]);
        free(w->snapshot[c]), free(w->a[c]), free(w->b[c]), free(w->boundary_inv[c]);
        free(w->boundary_weight[c]);
    }
    free(w->plane_max), free(w->plane_sum), free(w->plane_finite);
    dg_mg_free(w->mg), free(w->mg), free(w->mg_step);
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
        const size_t nb = (size_t)p->boundary_count[c] + 1;
        w->start[c] = calloc(n, es);
        w->delta[c] = calloc(n, sizeof(float)), w->snapshot[c] = calloc(n, sizeof(float));
        w->a[c] = calloc(n, sizeof(float)), w->b[c] = calloc(n, sizeof(float));
        w->boundary_inv[c] = calloc(nb, sizeof(float));
        w->boundary_weight[c] = calloc(6 * nb, sizeof(float));
        w->g[c] = calloc(n, sizeof(double)), w->inv[c] = calloc(n, sizeof(double));
        w->bmap[c] = malloc(n * sizeof(int));
        ok = ok && w->delta[c] && w->start[c] && w->g[c] && w->inv[c] && w->bmap[c] &&
             w->snapshot[c] && w->a[c] && w->b[c] && w->boundary_inv[c] && w->boundary_weight[c];
        if (!w->bmap[c]) continue;
        for (size_t h = 0; h < n; ++h)
            w->bmap[c][h] = -1;
        for (int k = 0; k < p->boundary_count[c]; ++k)
            w->bmap[c][p->boundary_index[c][k]] = k;
        for (long i = 0; i < 6L * p->boundary_count[c]; ++i)
            w->boundary_weight[c][i] = (float)p->boundary_weight[c][i];
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
                            (es + 4.0 * sizeof(float) + 2.0 * sizeof(double) + sizeof(int)) *
                                p->point_count / 2.0 / 1e9);
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
    for (int c = 0; c < 2; ++c)
        memset(w->delta[c], 0, (w->view.prep->half_count[c] + 1) * sizeof(float));
    return DG_OK;
}

static int cpu_newton_inner(void *workspace, int count, double omega, int measure,
                            double *max_change, const dg_newton_exchange *exchange, dg_error *err) {
    cpu_newton *w = workspace;
    const int first = exchange ? exchange->first_colour : 0;
    for (int it = 0; it < count; ++it) {
        if (measure && it == count - 1)
            for (int c = 0; c < 2; ++c)
                memcpy(w->snapshot[c], w->delta[c],
                       (w->view.prep->half_count[c] + 1) * sizeof(float));
        for (int k = 0; k < 2; ++k) {
            const int c = k ^ first;
            inner_colour(w, c, (float)omega);
            if (w->view.prep->periodic) inner_seams(w, c, omega);
            if (exchange) {
                const int st = exchange->after_colour(exchange->user, c, err);
                if (st != DG_OK) return st;
            }
        }
    }
    if (measure) *max_change = inner_change(w);
    return DG_OK;
}

static int cpu_newton_delta_plane(void *workspace, int z, int colour, float *values, int put,
                                  dg_error *err) {
    cpu_newton *w = workspace;
    const dg_prepared *p = w->view.prep;
    if (z < 0 || z >= p->nz || (colour != 0 && colour != 1))
        return dg_error_set(err, DG_ERR_INTERNAL, "Newton step plane %d, colour %d", z, colour);
    long first, end;
    dg_plane_range(p->nx, p->ny, z, colour, &first, &end);
    float *delta = w->delta[colour] + first;
    const size_t bytes = (size_t)(end - first) * sizeof(float);
    memcpy(put ? delta : values, put ? values : delta, bytes);
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

static int cpu_newton_mg_begin(void *workspace, const dg_prepared *prep, int threads,
                               dg_error *err) {
    cpu_newton *w = workspace;
    char message[512];
    dg_mg_params params;
    dg_mg_default_params(&params);
    w->mg = calloc(1, sizeof *w->mg);
    w->mg_step = calloc(prep->point_count, sizeof(float));
    if (!w->mg || !w->mg_step)
        return dg_error_set(err, DG_ERR_OUT_OF_MEMORY, "out of host memory (Newton multigrid)");
    int st = dg_mg_build(w->mg, prep, &params, threads, message, sizeof message);
    if (st == DG_OK) st = dg_mg_jacobian_begin(w->mg, message, sizeof message);
    if (st != DG_OK) return dg_error_set(err, st, "%s", message);
    return DG_OK;
}

/* The step's equation into the hierarchy (full grid: factor a, rhs -b, the weights scaled as
   the factor), multigrid on it, the answer back into delta. */
static int cpu_newton_inner_mg(void *workspace, const dg_mg_control *control,
                               dg_mg_outcome *outcome, dg_error *err) {
    cpu_newton *w = workspace;
    dg_mg_hierarchy *h = w->mg;
    const dg_prepared *p = w->view.prep;
    const long sy = p->nx, sz = (long)p->nx * p->ny;
    if (!h) return dg_error_set(err, DG_ERR_INTERNAL, "Newton multigrid: no hierarchy");
#pragma omp parallel for schedule(static) num_threads(w->view.threads) collapse(2)
    for (int z = 1; z < p->nz - 1; ++z)
        for (int y = 1; y < p->ny - 1; ++y)
            for (int x = 1; x < p->nx - 1; ++x) {
                const size_t v = x + sy * y + sz * z, half = v >> 1;
                const int c = (int)(v & 1);
                h->factor[v] = w->a[c][half];
                h->rhs[v] = -w->b[c][half];
                w->mg_step[v] = 0.0f;
            }
    for (int c = 0; c < 2; ++c)
        for (int k = 0; k < p->boundary_count[c]; ++k) {
            const size_t v = 2 * (size_t)p->boundary_index[c][k] + c;
            const double ratio = dg_mg_jacobian_ratio(p->factor[h->salt[v]], h->factor[v]);
            for (int f = 0; f < 6; ++f)
                h->weight[c][6 * (size_t)k + f] = p->boundary_weight[c][6 * (size_t)k + f] / ratio;
        }
    char message[512];
    int st = dg_mg_jacobian_update(h, message, sizeof message);
    if (st != DG_OK) return dg_error_set(err, st, "%s", message);
    st = dg_mg_solve_f(h, w->mg_step, control, outcome, err);
    if (st != DG_OK) return st;
#pragma omp parallel for schedule(static) num_threads(w->view.threads) collapse(2)
    for (int z = 1; z < p->nz - 1; ++z)
        for (int y = 1; y < p->ny - 1; ++y)
            for (int x = 1; x < p->nx - 1; ++x) {
                const size_t v = x + sy * y + sz * z;
                w->delta[v & 1][v >> 1] = w->mg_step[v];
            }
    /* periodic axes: the step's faces hold their images, as the SOR's steps leave them */
    const long pairs = p->periodic ? dg_wrap_pair_count(p->nx, p->ny, p->nz, p->periodic) : 0;
    for (long k = 0; k < pairs; ++k) {
        long face[2], image[2];
        dg_wrap_pair_points(p->nx, p->ny, p->nz, p->periodic, k, face, image);
        for (int i = 0; i < 2; ++i)
            w->delta[face[i] & 1][face[i] >> 1] = w->mg_step[face[i]];
    }
    return DG_OK;
}

const dg_newton_ops dg_cpu_newton_ops = {
    cpu_newton_begin,
    cpu_newton_end,
    cpu_newton_residual,
    cpu_newton_zero_step,
    cpu_newton_inner,
    cpu_newton_step,
    cpu_newton_mg_begin,
    cpu_newton_inner_mg,
    cpu_newton_delta_plane,
    NULL, /* delta_export: host memory, exchanged through MPI */
    NULL, /* delta_open */
    NULL, /* delta_pull */
};
