/* Mixed precision and float's resolution on the CUDA backend against the CPU backend:
 *  - mixed (float sweeps on a correction of a double iterate) with a max-change
 *    criterion far below float's resolution: both backends converge, within one check interval
 *    of each other (expected: the same count), their potentials agree to double's tolerance
 *    (1e-10 relative when the counts are equal: the float sweeps, the double residual and the
 *    fold do the same operations in the same order), and the GPU mixed potential agrees with the
 *    GPU double one to 1000 x the criterion in at most 1.1 x its iterations;
 *  - float with that criterion stops with DG_OUTCOME_FLOAT_RESOLUTION on both, within one check
 *    interval of each other.
 * Linear PB (salt), Poisson (no salt) and nonlinear PB on a dense medium; mixed also with the
 * sweep of 2 adjacent pairs or 4 segments per thread (cuda_sweep_wide.cuh) forced for its
 * correction sweeps (the rhs mode, whose rhs carries the salt flag).  Exits 77 (skipped) without
 * a usable GPU. */
#include "gpu_test.h"

#include "cuda_backend.h"
#include "solver_internal.h"

enum { NX = 41, NY = 39, NZ = 43, CX = 20, CY = 19, CZ = 21 };
static const double scale = 2.0, molar = 0.15, exclusion = 3.0;

typedef struct variant {
    const char *label;
    int precision, equation, salt;
    double charge;
} variant;

static void run(const variant *v) {
    const long n = (long)NX * NY * NZ;
    dense_problem d;
    dense_problem_init(&d, NX, NY, NZ, scale, 80.0);
    dense_problem_sphere(&d, CX, CY, CZ, 6.0, 2.0);
    if (v->salt) dense_problem_salt(&d, CX, CY, CZ, exclusion * scale, molar);
    d.charge[idx3(NX, NY, CX, CY, CZ)] = v->charge;
    d.charge[idx3(NX, NY, CX + 2, CY - 1, CZ + 1)] = -0.5 * v->charge;
    point_source src = {
        CX,       CY, CZ, 0.5 * v->charge, 80.0, scale, v->salt ? debye_kappa(molar, 80.0) : 0.0,
        exclusion};
    double *phi0 = malloc(n * sizeof *phi0), *cpu = malloc(n * sizeof *cpu);
    double *gpu = malloc(n * sizeof *gpu), *gpu_double = malloc(n * sizeof *gpu_double);
    set_faces(phi0, NX, NY, NZ, point_potential, &src);
    memcpy(cpu, phi0, n * sizeof *cpu);
    memcpy(gpu, phi0, n * sizeof *gpu);
    memcpy(gpu_double, phi0, n * sizeof *gpu_double);
    dg_options o;
    dg_default_options(&o);
    o.precision = v->precision;
    o.equation = v->equation;
    o.max_change_tol = 1e-9;
    o.nonlinear_blocks = 200;
    if (v->equation == DG_EQUATION_NONLINEAR_PB) o.relpar = 1.5; /* see test_gpu_convergence */
    gpu_medium m = {&d.medium, NULL};
    dg_result rc, rg, rd;
    gpu_solve_on(DG_BACKEND_CPU, &o, &m, cpu, n, 0, &rc);
    gpu_solve_on(DG_BACKEND_CUDA, &o, &m, gpu, n, 0, &rg);
    o.precision = DG_PRECISION_DOUBLE;
    gpu_solve_on(DG_BACKEND_CUDA, &o, &m, gpu_double, n, 0, &rd);
    double ref = 0.0, diff = max_abs_diff(gpu, cpu, n, &ref);
    double diff_double = max_abs_diff(gpu, gpu_double, n, NULL);
    printf("%-22s %-6s cpu %4d it (%s), gpu %4d it (%s), gpu double %4d it; rel diff gpu-cpu "
           "%.2e; max |gpu - gpu double| %.2e\n",
           v->label, v->precision == DG_PRECISION_FLOAT ? "float" : "mixed", rc.iterations,
           dg_outcome_string(rc.outcome), rg.iterations, dg_outcome_string(rg.outcome),
           rd.iterations, diff / ref, diff_double);
    if (v->precision == DG_PRECISION_MIXED) {
        CHECK(rc.outcome == DG_OUTCOME_CONVERGED && rg.outcome == DG_OUTCOME_CONVERGED,
              "%s: outcome cpu %s, gpu %s", v->label, dg_outcome_string(rc.outcome),
              dg_outcome_string(rg.outcome));
        CHECK(abs(rg.iterations - rc.iterations) <= o.check_interval,
              "%s: %d GPU iterations vs %d CPU", v->label, rg.iterations, rc.iterations);
        /* Same iterations: the same operations (expected bit for bit); else one more check
           interval of a converged run apart. */
        const double allowed =
            rg.iterations == rc.iterations ? 1e-10 : 1000 * o.max_change_tol / ref;
        CHECK(diff / ref <= allowed, "%s: relative difference %.3e", v->label, diff / ref);
        CHECK(rg.iterations <= 1.1 * rd.iterations + o.check_interval,
              "%s: mixed %d iterations, double %d", v->label, rg.iterations, rd.iterations);
        CHECK(diff_double <= 1000 * o.max_change_tol, "%s: mixed - double on the GPU %.3e",
              v->label, diff_double);
    } else if (v->equation != DG_EQUATION_NONLINEAR_PB) {
        CHECK(rc.outcome == DG_OUTCOME_FLOAT_RESOLUTION &&
                  rg.outcome == DG_OUTCOME_FLOAT_RESOLUTION,
              "%s: outcome cpu %s, gpu %s", v->label, dg_outcome_string(rc.outcome),
              dg_outcome_string(rg.outcome));
        CHECK(abs(rg.iterations - rc.iterations) <= o.check_interval,
              "%s: %d GPU iterations vs %d CPU", v->label, rg.iterations, rc.iterations);
        CHECK(diff / ref <= gpu_tolerance(DG_PRECISION_FLOAT), "%s: relative difference %.3e",
              v->label, diff / ref);
    }
    dense_problem_free(&d);
    free(phi0), free(cpu), free(gpu), free(gpu_double);
}

/* The wide sweep for the float and mixed solvers (not double): wide_pairs pairs per thread in
   the layout wide_segments, prefetch depth 2. */
static int wide_pairs = 2, wide_segments = 0;
static void force_wide(dg_solver s) {
    if (s->options.precision == DG_PRECISION_DOUBLE) return;
    dg_error err = {0};
    dg_cuda_info info;
    if (dg_cuda_set_pairs_per_thread(s->backend_state, wide_pairs, wide_segments, &err) != DG_OK ||
        dg_cuda_get_info(s->backend_state, &info, &err) != DG_OK) {
        fprintf(stderr, "FAIL: forcing %d pairs per thread: %s\n", wide_pairs, err.message);
        exit(1);
    }
    CHECK(info.width == wide_pairs && info.segments == wide_segments && !info.tuning,
          "%d pairs per thread (layout %d): in use %d (%d), tuning %d", wide_pairs, wide_segments,
          info.width, info.segments, info.tuning);
}

int main(void) {
    gpu_require_device("test_gpu_mixed");
    const variant variants[] = {
        {"linear PB", DG_PRECISION_MIXED, DG_EQUATION_AUTO, 1, 1.0},
        {"Poisson", DG_PRECISION_MIXED, DG_EQUATION_AUTO, 0, 1.0},
        {"nonlinear PB", DG_PRECISION_MIXED, DG_EQUATION_NONLINEAR_PB, 1, 4.0},
        {"linear PB", DG_PRECISION_FLOAT, DG_EQUATION_AUTO, 1, 1.0},
        {"Poisson", DG_PRECISION_FLOAT, DG_EQUATION_AUTO, 0, 1.0},
    };
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; ++i)
        run(&variants[i]);
    gpu_after_medium = force_wide;
    for (int layout = 0; layout < 2; ++layout) {
        wide_pairs = layout ? 4 : 2, wide_segments = layout;
        printf("== mixed with %d pairs per thread (%s)\n", wide_pairs,
               layout ? "segments" : "adjacent");
        for (size_t i = 0; i < 3; ++i)
            run(&variants[i]);
    }
    return test_finish("test_gpu_mixed");
}
