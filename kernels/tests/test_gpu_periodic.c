/* Periodic axes on the CUDA backend: the same potential as the CPU backend bit for bit (the
 * interior and the wrapped faces), with the same iteration count, for one, two and three
 * periodic axes, linear and with DelPhi's nonlinear scheme, in double, float and mixed, with a
 * convergence sample of stride 1 and 3; and the CPU's exact answers (periodic_problem.h) hold. */
#include "gpu_test.h"
#include "periodic_problem.h"

static void compare(const char *label, dense_problem *d, dg_options o) {
    const long n = (long)d->nx * d->ny * d->nz;
    const gpu_medium m = {&d->medium, NULL};
    double *cpu = calloc((size_t)n, sizeof *cpu), *gpu = calloc((size_t)n, sizeof *gpu);
    dg_result rc, rg;
    gpu_solve_on(DG_BACKEND_CPU, &o, &m, cpu, n, 0, &rc);
    gpu_solve_on(DG_BACKEND_CUDA, &o, &m, gpu, n, 0, &rg);
    long differ = 0;
    for (long i = 0; i < n; ++i)
        differ += memcmp(&cpu[i], &gpu[i], sizeof(double)) != 0;
    double ref = 0.0, diff = max_abs_diff(gpu, cpu, n, &ref);
    printf("%-40s %-6s stride %d: %s, %d iterations (cpu %d), max|phi| %.4g, %ld values "
           "differ (max %.2e)\n",
           label,
           o.precision == DG_PRECISION_FLOAT   ? "float"
           : o.precision == DG_PRECISION_MIXED ? "mixed"
                                               : "double",
           o.check_stride, dg_outcome_string(rg.outcome), rg.iterations, rc.iterations, ref, differ,
           diff);
    CHECK(rg.backend == DG_BACKEND_CUDA && rc.backend == DG_BACKEND_CPU, "%s: backends", label);
    CHECK(rg.iterations == rc.iterations && rg.outcome == rc.outcome, "%s: %d/%s vs %d/%s", label,
          rg.iterations, dg_outcome_string(rg.outcome), rc.iterations,
          dg_outcome_string(rc.outcome));
    CHECK(rc.outcome == DG_OUTCOME_CONVERGED || rc.outcome == DG_OUTCOME_FLOAT_RESOLUTION,
          "%s: outcome %s", label, dg_outcome_string(rc.outcome));
    CHECK(differ == 0, "%s: %ld values differ between CPU and CUDA", label, differ);
    CHECK(memcmp(&rg.max_change, &rc.max_change, sizeof(double)) == 0, "%s: max change", label);
    /* the device's estimate of the spectral radius, the host's bits */
    CHECK(memcmp(&rg.spectral_radius, &rc.spectral_radius, sizeof(double)) == 0,
          "%s: spectral radius %.17g on the GPU, %.17g on the CPU", label, rg.spectral_radius,
          rc.spectral_radius);
    free(cpu), free(gpu);
}

int main(void) {
    gpu_require_device("test_gpu_periodic");
    static const int precisions[3] = {DG_PRECISION_DOUBLE, DG_PRECISION_FLOAT, DG_PRECISION_MIXED};
    for (int k = 0; k < 3; ++k) {
        const int precision = precisions[k] == DG_PRECISION_FLOAT; /* float's tolerances */
        dg_options o;
        dg_default_options(&o);
        o.precision = precisions[k];
        o.max_change_tol = precision ? 1e-6 : 1e-10;
        dense_problem d;
        sphere_problem(&d, 35, 33, 41, 17.2, 16.1, 2.3, 6.0);
        for (int stride = 1; stride <= 3; stride += 2) {
            o.check_stride = stride;
            o.periodic = DG_PERIODIC_Z;
            compare("sphere across z, z periodic", &d, o);
            o.periodic = DG_PERIODIC_X | DG_PERIODIC_Y | DG_PERIODIC_Z;
            compare("sphere across z, all periodic", &d, o);
        }
        o.check_stride = 1;
        o.periodic = DG_PERIODIC_Z;
        o.equation = DG_EQUATION_NONLINEAR_PB;
        o.max_change_tol = precision ? 1e-5 : 1e-6;
        compare("sphere across z, nonlinear", &d, o);
        dense_problem_free(&d);
        dg_default_options(&o);
        o.precision = precisions[k];
        o.max_change_tol = precision ? 1e-6 : 1e-10;
        o.periodic = DG_PERIODIC_Y | DG_PERIODIC_Z;
        sheet_problem(&d, 41, 29, 31, 13, 1.5, 0.01, 4.0);
        compare("charged sheet, y and z periodic", &d, o);
        dense_problem_free(&d);
    }
    return test_finish("test_gpu_periodic");
}
