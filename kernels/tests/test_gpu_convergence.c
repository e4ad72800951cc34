/* Iterations to convergence on the CUDA backend agree with the CPU backend within one check
 * interval, with DelPhi's criteria, a sample stride, the autotune, a block shape that
 * is not a multiple of a warp, and nonlinear PB; the converged potentials agree as in
 * test_gpu_agreement.  Exits 77 (skipped) without a usable GPU. */
#include "gpu_test.h"

enum { NX = 41, NY = 39, NZ = 43, CX = 20, CY = 19, CZ = 21 };
static const double scale = 2.0, molar = 0.15, exclusion = 3.0;

typedef struct variant {
    const char *label;
    int precision, equation, stride, block_x, block_y, autotune;
    double max_tol, rms_tol, charge;
} variant;

static void run(const variant *v) {
    const long n = (long)NX * NY * NZ;
    dense_problem d;
    dense_problem_init(&d, NX, NY, NZ, scale, 80.0);
    dense_problem_sphere(&d, CX, CY, CZ, 6.0, 2.0);
    dense_problem_salt(&d, CX, CY, CZ, exclusion * scale, molar);
    d.charge[idx3(NX, NY, CX, CY, CZ)] = v->charge;
    d.charge[idx3(NX, NY, CX + 2, CY - 1, CZ + 1)] = -0.5 * v->charge;
    point_source src = {CX,       CY, CZ, 0.5 * v->charge, 80.0, scale, debye_kappa(molar, 80.0),
                        exclusion};
    double *cpu = malloc(n * sizeof *cpu), *gpu = malloc(n * sizeof *gpu);
    set_faces(cpu, NX, NY, NZ, point_potential, &src);
    memcpy(gpu, cpu, n * sizeof *gpu);
    dg_options o;
    dg_default_options(&o);
    o.precision = v->precision;
    o.equation = v->equation;
    o.check_stride = v->stride;
    o.max_change_tol = v->max_tol;
    o.rms_change_tol = v->rms_tol;
    o.nonlinear_blocks = 60;
    /* DelPhi's scheme with a fixed relaxation: stock's adaptive rules raise relpar past 2 once
       the change is tiny, and the run diverges as stock DelPhi's would. */
    if (v->equation == DG_EQUATION_NONLINEAR_PB) o.relpar = 1.5;
    gpu_medium m = {&d.medium, NULL};
    dg_result rc, rg;
    gpu_solve_on(DG_BACKEND_CPU, &o, &m, cpu, n, 0, &rc);
    o.block_x = v->block_x, o.block_y = v->block_y, o.autotune = v->autotune;
    gpu_solve_on(DG_BACKEND_CUDA, &o, &m, gpu, n, 0, &rg);
    double ref = 0.0, diff = max_abs_diff(gpu, cpu, n, &ref);
    printf("%-40s %-6s cpu %4d it, gpu %4d it (%d blocks), max change %.3e / %.3e, rel diff "
           "%.2e\n",
           v->label, v->precision == DG_PRECISION_FLOAT ? "float" : "double", rc.iterations,
           rg.iterations, rg.nonlinear_blocks, rc.max_change, rg.max_change, diff / ref);
    /* Float may stop at its resolution ("float resolution reached") before a 1e-4 criterion:
       then both backends must say so. */
    const int done =
        rc.outcome == DG_OUTCOME_CONVERGED ||
        (v->precision == DG_PRECISION_FLOAT && rc.outcome == DG_OUTCOME_FLOAT_RESOLUTION);
    CHECK(done && rg.outcome == rc.outcome, "%s: outcome cpu %s, gpu %s", v->label,
          dg_outcome_string(rc.outcome), dg_outcome_string(rg.outcome));
    CHECK(abs(rg.iterations - rc.iterations) <= o.check_interval,
          "%s: %d GPU iterations vs %d CPU (check interval %d)", v->label, rg.iterations,
          rc.iterations, o.check_interval);
    CHECK(diff / ref <= gpu_tolerance(v->precision), "%s: relative difference %.3e", v->label,
          diff / ref);
    if (rg.iterations == rc.iterations)
        CHECK(fabs(rg.max_change - rc.max_change) <= 1e-12 * rc.max_change + 1e-300,
              "%s: last max change %.17g on GPU, %.17g on CPU", v->label, rg.max_change,
              rc.max_change);
    dense_problem_free(&d);
    free(cpu), free(gpu);
}

int main(void) {
    gpu_require_device("test_gpu_convergence");
    const variant variants[] = {
        {"linear PB, max change", DG_PRECISION_DOUBLE, DG_EQUATION_AUTO, 1, 0, 0, 0, 1e-7, 0, 1},
        {"linear PB, max change", DG_PRECISION_FLOAT, DG_EQUATION_AUTO, 1, 0, 0, 0, 1e-4, 0, 1},
        {"linear PB, rms change, stride 3", DG_PRECISION_DOUBLE, DG_EQUATION_AUTO, 3, 0, 0, 0, 0,
         1e-8, 1},
        {"autotune", DG_PRECISION_DOUBLE, DG_EQUATION_AUTO, 1, 0, 0, 1, 1e-7, 0, 1},
        {"block 5 x 7 (partial warps)", DG_PRECISION_FLOAT, DG_EQUATION_AUTO, 2, 5, 7, 0, 1e-4, 0,
         1},
        {"block 64 x 16", DG_PRECISION_DOUBLE, DG_EQUATION_AUTO, 1, 64, 16, 0, 1e-7, 0, 1},
        {"nonlinear PB", DG_PRECISION_DOUBLE, DG_EQUATION_NONLINEAR_PB, 1, 0, 0, 0, 1e-6, 0, 4},
        {"nonlinear PB", DG_PRECISION_FLOAT, DG_EQUATION_NONLINEAR_PB, 1, 0, 0, 0, 1e-3, 0, 4},
    };
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; ++i)
        run(&variants[i]);
    return test_finish("test_gpu_convergence");
}
