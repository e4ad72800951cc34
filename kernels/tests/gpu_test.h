/* Helpers of the CUDA backend's tests: skip without a GPU, run one problem on the CPU and the
 * CUDA backend through the public API, compare.  Builds on the library tests' test_util.h. */
#ifndef DG_GPU_TEST_H
#define DG_GPU_TEST_H

#include "test_util.h"

#define GPU_TEST_SKIP 77 /* ctest SKIP_RETURN_CODE */

/* Exit 77 (skipped) when no CUDA device is usable. */
static inline void gpu_require_device(const char *name) {
    int count = 0;
    int st = dg_cuda_device_count(&count);
    if (st != DG_OK || count == 0) {
        printf("%s: SKIPPED (no usable CUDA device: %s)\n", name,
               st != DG_OK ? dg_status_string(st) : "0 devices");
        exit(GPU_TEST_SKIP);
    }
}

/* Called on every CUDA solver right after its medium is set (NULL: nothing), so that a test can
   force a sweep variant through the backend's internal setters (cuda_backend.h). */
static void (*gpu_after_medium)(dg_solver s) = NULL;

/* A medium given either dense (double arrays) or sparse (DelPhi form, double arrays). */
typedef struct gpu_medium {
    const dg_dense_medium_d *dense;
    const dg_sparse_medium_d *sparse;
} gpu_medium;

static inline dg_solver gpu_make_solver(int backend, const dg_options *base) {
    dg_options o = *base;
    o.backend = backend;
    dg_solver s = NULL;
    CHECK_OK(dg_create(&s, &o), s);
    int used = -1;
    CHECK_OK(dg_get_backend(s, &used), s);
    if (used != backend) {
        fprintf(stderr, "FAIL: backend %d requested, %d in use\n", backend, used);
        exit(1);
    }
    return s;
}

static inline void gpu_set_medium(dg_solver s, const gpu_medium *m) {
    if (m->dense)
        CHECK_OK(dg_set_dense_medium_d(s, m->dense), s);
    else
        CHECK_OK(dg_set_sparse_medium_d(s, m->sparse), s);
}

/* Solve on one backend; phi (double, n points) is overwritten with the result.  With
   float_arrays the solve goes through dg_solve_f (the caller's arrays in float). */
static inline void gpu_solve_on(int backend, const dg_options *o, const gpu_medium *m, double *phi,
                                long n, int float_arrays, dg_result *r) {
    dg_solver s = gpu_make_solver(backend, o);
    gpu_set_medium(s, m);
    if (backend == DG_BACKEND_CUDA && gpu_after_medium) gpu_after_medium(s);
    if (float_arrays) {
        float *f = malloc(n * sizeof *f);
        for (long i = 0; i < n; ++i)
            f[i] = (float)phi[i];
        CHECK_OK(dg_solve_f(s, f, r), s);
        for (long i = 0; i < n; ++i)
            phi[i] = f[i];
        free(f);
    } else {
        CHECK_OK(dg_solve_d(s, phi, r), s);
    }
    dg_destroy(s);
}

/* Same problem, same options on CPU and CUDA: returns max |phi_gpu - phi_cpu| / max |phi_cpu|
   and checks that both ran the same number of iterations and reached the same outcome. */
static inline double gpu_compare(const char *label, const dg_options *o, const gpu_medium *m,
                                 const double *phi0, long n, int float_arrays) {
    double *cpu = malloc(n * sizeof *cpu), *gpu = malloc(n * sizeof *gpu);
    memcpy(cpu, phi0, n * sizeof *cpu);
    memcpy(gpu, phi0, n * sizeof *gpu);
    dg_result rc, rg;
    gpu_solve_on(DG_BACKEND_CPU, o, m, cpu, n, float_arrays, &rc);
    gpu_solve_on(DG_BACKEND_CUDA, o, m, gpu, n, float_arrays, &rg);
    double ref = 0.0, diff = max_abs_diff(gpu, cpu, n, &ref);
    const double rel = ref > 0.0 ? diff / ref : diff;
    printf("%-44s %-6s %4d it (cpu %4d) max|phi| %9.4g  rel diff %.2e\n", label,
           o->precision == DG_PRECISION_FLOAT ? "float" : "double", rg.iterations, rc.iterations,
           ref, rel);
    CHECK(rg.backend == DG_BACKEND_CUDA && rc.backend == DG_BACKEND_CPU, "%s: backends", label);
    CHECK(rg.iterations == rc.iterations, "%s: %d GPU iterations, %d CPU", label, rg.iterations,
          rc.iterations);
    CHECK(rg.outcome == rc.outcome, "%s: outcome %s on GPU, %s on CPU", label,
          dg_outcome_string(rg.outcome), dg_outcome_string(rc.outcome));
    CHECK(rg.nonlinear_blocks == rc.nonlinear_blocks, "%s: %d nonlinear blocks, CPU %d", label,
          rg.nonlinear_blocks, rc.nonlinear_blocks);
    /* The CUDA backend estimates the spectral radius on the device (cuda_spectral.cu): the
       host's value to the last bit, or omega and every iterate would differ. */
    CHECK(memcmp(&rg.spectral_radius, &rc.spectral_radius, sizeof(double)) == 0,
          "%s: spectral radius %.17g on the GPU, %.17g on the CPU", label, rg.spectral_radius,
          rc.spectral_radius);
    for (long i = 0; i < n; ++i)
        if (!isfinite(gpu[i])) {
            CHECK(0, "%s: GPU phi[%ld] = %g", label, i, gpu[i]);
            break;
        }
    free(cpu), free(gpu);
    return rel;
}

/* Required agreement of the backends, max|dphi| / max|phi|. */
static inline double gpu_tolerance(int precision) {
    return precision == DG_PRECISION_DOUBLE ? 1e-10 : 1e-5;
}

/* Spheres of eps_in (grid units) scattered in a box, with charges spread trilinearly over the
   8 grid points around each centre (charge_list repeats are summed by the library). */
typedef struct sphere_cluster {
    int count;
    double *cx, *cy, *cz, *radius, *charge;
    long *list_index;
    double *list_value;
} sphere_cluster;

static inline double cluster_random(unsigned *state) {
    *state = *state * 1664525u + 1013904223u;
    return (*state >> 8) / 16777216.0;
}

static inline void cluster_make(sphere_cluster *c, dense_problem *d, int count, double eps_in,
                                unsigned seed) {
    memset(c, 0, sizeof *c);
    c->count = count;
    c->cx = malloc(count * sizeof(double)), c->cy = malloc(count * sizeof(double));
    c->cz = malloc(count * sizeof(double)), c->radius = malloc(count * sizeof(double));
    c->charge = malloc(count * sizeof(double));
    c->list_index = malloc(8 * (size_t)count * sizeof(long));
    c->list_value = malloc(8 * (size_t)count * sizeof(double));
    const double lo = 0.3, span = 0.4; /* centres in the middle 40 % of the box */
    for (int i = 0; i < count; ++i) {
        c->cx[i] = (lo + span * cluster_random(&seed)) * (d->nx - 1);
        c->cy[i] = (lo + span * cluster_random(&seed)) * (d->ny - 1);
        c->cz[i] = (lo + span * cluster_random(&seed)) * (d->nz - 1);
        c->radius[i] = 1.5 + 2.0 * cluster_random(&seed);
        c->charge[i] = cluster_random(&seed) - 0.5;
        dense_problem_sphere(d, c->cx[i], c->cy[i], c->cz[i], c->radius[i], eps_in);
        const int x0 = (int)c->cx[i], y0 = (int)c->cy[i], z0 = (int)c->cz[i];
        const double fx = c->cx[i] - x0, fy = c->cy[i] - y0, fz = c->cz[i] - z0;
        for (int k = 0; k < 8; ++k) {
            const int dx = k & 1, dy = (k >> 1) & 1, dz = (k >> 2) & 1;
            const double w = (dx ? fx : 1 - fx) * (dy ? fy : 1 - fy) * (dz ? fz : 1 - fz);
            c->list_index[8 * i + k] = idx3(d->nx, d->ny, x0 + dx, y0 + dy, z0 + dz);
            c->list_value[8 * i + k] = w * c->charge[i];
        }
    }
    d->medium.charge = NULL;
    d->medium.charge_list_index = c->list_index;
    d->medium.charge_list_value = c->list_value;
    d->medium.charge_list_count = 8L * count;
}

static inline void cluster_free(sphere_cluster *c) {
    free(c->cx), free(c->cy), free(c->cz), free(c->radius), free(c->charge);
    free(c->list_index), free(c->list_value);
}

#endif /* DG_GPU_TEST_H */
