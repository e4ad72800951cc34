/* A small case that runs every CUDA kernel of the backend, for compute-sanitizer
 * (run_sanitizers.sh): float and double, Poisson, linear and nonlinear PB, boundary and charge
 * corrections through both readers (read-only path and textures), prefetch depths 1 to 3 with
 * one plane per barrier and 1 to 2 with two (cuda_sweep_pair.cuh), float with 2 and 4 pairs per
 * thread (cuda_sweep_wide.cuh), measured checks with a stride,
 * the autotune, and float/double transfers; then multigrid (linear PB in float, double and
 * mixed; the coarse levels' classes on every level, so that their kernels run at this size) and
 * Newton's method with its steps by the SOR and by multigrid (float and double); then periodic
 * axes in double, float and mixed (the seam kernels, the mixed iterate's wrap, the measured
 * checks by snapshot, the wrapped faces' store), and Newton's method with them.
 * Exits 77 without a usable GPU, 1 if the GPU result differs from the CPU backend's. */
#include "gpu_test.h"
#include "periodic_problem.h"

#include "cuda_backend.h"
#include "mg/mg.h"
#include "solver_internal.h"

enum { NX = 19, NY = 17, NZ = 15, CX = 9, CY = 8, CZ = 7 };

static double solve(int backend, int precision, int salt, int equation, int reader, int depth,
                    int planes, int width, int segments, const double *phi0, double *phi) {
    const long n = (long)NX * NY * NZ;
    dense_problem d;
    dense_problem_init(&d, NX, NY, NZ, 2.0, 80.0);
    dense_problem_sphere(&d, CX, CY, CZ, 4.0, 2.0);
    if (salt) dense_problem_salt(&d, CX, CY, CZ, 5.0, 0.15);
    d.charge[idx3(NX, NY, CX, CY, CZ)] = 4.0;
    d.charge[idx3(NX, NY, CX + 1, CY, CZ)] = -1.5;
    d.charge[idx3(NX, NY, CX, CY + 2, CZ - 1)] = 0.5;
    dg_options o;
    dg_default_options(&o);
    o.backend = backend;
    o.precision = precision;
    o.equation = equation;
    o.iterations = 30;
    o.run_until_converged = 0;
    o.nonlinear_blocks = 3;
    o.check_stride = 2;
    o.autotune = 1;
    dg_solver s = gpu_make_solver(backend, &o);
    CHECK_OK(dg_set_dense_medium_d(s, &d.medium), s);
    if (backend == DG_BACKEND_CUDA) {
        dg_error err = {0};
        /* The default variant (depth 2, 1 plane) leaves the autotune running. */
        if (dg_cuda_set_sparse_reader(s->backend_state, reader, &err) != DG_OK ||
            (depth != 2 && dg_cuda_set_prefetch_depth(s->backend_state, depth, &err) != DG_OK) ||
            (planes != 1 &&
             dg_cuda_set_planes_per_barrier(s->backend_state, planes, &err) != DG_OK) ||
            (width != 1 &&
             dg_cuda_set_pairs_per_thread(s->backend_state, width, segments, &err) != DG_OK))
            fprintf(stderr, "FAIL: sparse reader / sweep variant: %s\n", err.message), exit(1);
    }
    memcpy(phi, phi0, n * sizeof *phi);
    dg_result r;
    if (precision == DG_PRECISION_FLOAT) { /* float arrays: the float transfer path */
        float *f = malloc(n * sizeof *f);
        for (long i = 0; i < n; ++i)
            f[i] = (float)phi[i];
        CHECK_OK(dg_solve_f(s, f, &r), s);
        for (long i = 0; i < n; ++i)
            phi[i] = f[i];
        free(f);
    } else {
        CHECK_OK(dg_solve_d(s, phi, &r), s);
    }
    dg_destroy(s);
    dense_problem_free(&d);
    return r.max_change;
}

/* The multigrid and Newton kernels: a solve to a tolerance on the salt medium. */
static void solve_to_tolerance(int backend, int precision, int equation, int solver,
                               const double *phi0, double *phi) {
    const long n = (long)NX * NY * NZ;
    dense_problem d;
    dense_problem_init(&d, NX, NY, NZ, 2.0, 80.0);
    dense_problem_sphere(&d, CX, CY, CZ, 4.0, 2.0);
    dense_problem_salt(&d, CX, CY, CZ, 5.0, 0.15);
    d.charge[idx3(NX, NY, CX, CY, CZ)] = 4.0;
    d.charge[idx3(NX, NY, CX + 1, CY, CZ)] = -1.5;
    dg_options o;
    dg_default_options(&o);
    o.backend = backend, o.precision = precision, o.equation = equation, o.solver = solver;
    o.nonlinear_method = DG_NONLINEAR_NEWTON;
    o.max_change_tol = precision == DG_PRECISION_FLOAT ? 1e-4 : 1e-8;
    dg_solver s = gpu_make_solver(backend, &o);
    CHECK_OK(dg_set_dense_medium_d(s, &d.medium), s);
    memcpy(phi, phi0, n * sizeof *phi);
    dg_result r;
    CHECK_OK(dg_solve_d(s, phi, &r), s);
    CHECK(r.solver == solver, "solver %d, asked %d", r.solver, solver);
    dg_destroy(s);
    dense_problem_free(&d);
}

/* All three axes periodic, a sphere across the z faces, float, double or mixed: CPU and CUDA
   alike (the same bits); with newton, Newton's method (its seam and wrap kernels; agreement to
   a tolerance, as test_gpu_newton); with multigrid, multigrid (its wrap kernels on every level,
   the one-block tail's too; agreement to a tolerance, as test_gpu_multigrid_periodic). */
static void periodic_case(int precision, int newton, int multigrid) {
    dense_problem d;
    sphere_problem(&d, NX, NY, NZ, CX + 0.2, CY + 0.1, 1.3, 3.0);
    const long n = (long)NX * NY * NZ;
    double *phi[2] = {calloc((size_t)n, sizeof(double)), calloc((size_t)n, sizeof(double))};
    dg_options o;
    dg_default_options(&o);
    o.precision = precision;
    o.periodic = DG_PERIODIC_X | DG_PERIODIC_Y | DG_PERIODIC_Z;
    o.max_change_tol = precision == DG_PRECISION_FLOAT ? 1e-5 : 1e-9;
    o.check_stride = 2;
    if (multigrid) o.solver = DG_SOLVER_MULTIGRID;
    if (newton) {
        o.equation = DG_EQUATION_NONLINEAR_PB, o.nonlinear_method = DG_NONLINEAR_NEWTON;
        o.max_change_tol = precision == DG_PRECISION_FLOAT ? 1e-4 : 1e-8;
        for (long i = 0; i < n; ++i)
            d.charge[i] *= 10.0;
    }
    const gpu_medium m = {&d.medium, NULL};
    dg_result r[2];
    gpu_solve_on(DG_BACKEND_CPU, &o, &m, phi[0], n, 0, &r[0]);
    gpu_solve_on(DG_BACKEND_CUDA, &o, &m, phi[1], n, 0, &r[1]);
    if (newton || multigrid) {
        double ref = 0.0, diff = max_abs_diff(phi[1], phi[0], n, &ref);
        printf("%-6s periodic x, y, z, %s%s: rel diff %.2e\n",
               precision == DG_PRECISION_FLOAT ? "float" : "double", newton ? "Newton" : "linear",
               multigrid ? " by multigrid" : "", diff / ref);
        CHECK(diff / ref <= (precision == DG_PRECISION_FLOAT ? 1e-4 : 1e-7),
              "periodic Newton: relative difference %.3e", diff / ref);
        free(phi[0]), free(phi[1]);
        dense_problem_free(&d);
        return;
    }
    const int same = memcmp(phi[0], phi[1], (size_t)n * sizeof(double)) == 0;
    printf("%-6s periodic x, y, z: %d iterations (cpu %d), %s\n",
           precision == DG_PRECISION_FLOAT   ? "float"
           : precision == DG_PRECISION_MIXED ? "mixed"
                                             : "double",
           r[1].iterations, r[0].iterations, same ? "the same bits" : "DIFFERENT");
    CHECK(same && r[0].iterations == r[1].iterations, "periodic: CPU and CUDA differ");
    free(phi[0]), free(phi[1]);
    dense_problem_free(&d);
}

int main(void) {
    gpu_require_device("gpu_sanitizer_case");
    const long n = (long)NX * NY * NZ;
    double *phi0 = malloc(n * sizeof *phi0), *cpu = malloc(n * sizeof *cpu);
    double *gpu = malloc(n * sizeof *gpu);
    unsigned seed = 99u;
    for (long i = 0; i < n; ++i)
        phi0[i] = cluster_random(&seed) - 0.5;
    const int equations[3][2] = {
        {0, DG_EQUATION_AUTO}, {1, DG_EQUATION_AUTO}, {1, DG_EQUATION_NONLINEAR_PB}};
    for (int p = 0; p < 2; ++p)
        for (int e = 0; e < 3; ++e)
            for (int variant = 0; variant < (p ? 11 : 6); ++variant) { /* wide: float only */
                static const int depths[11] = {2, 1, 3, 2, 1, 2, 1, 3, 2, 3, 1};
                static const int planes[11] = {1, 1, 1, 1, 2, 2, 1, 1, 1, 1, 1};
                static const int widths[11] = {1, 1, 1, 1, 1, 1, 2, 2, 4, 2, 4};
                static const int segments[11] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1};
                const int reader = variant & 1, depth = depths[variant], w = widths[variant];
                const int sg = segments[variant];
                const int precision = p ? DG_PRECISION_FLOAT : DG_PRECISION_DOUBLE;
                const int salt = equations[e][0], eq = equations[e][1];
                const int pl = planes[variant];
                solve(DG_BACKEND_CPU, precision, salt, eq, reader, depth, pl, w, sg, phi0, cpu);
                solve(DG_BACKEND_CUDA, precision, salt, eq, reader, depth, pl, w, sg, phi0, gpu);
                double ref = 0.0, diff = max_abs_diff(gpu, cpu, n, &ref);
                printf("%-6s salt %d equation %d reader %d depth %d planes %d pairs %d%s: rel "
                       "diff %.2e\n",
                       p ? "float" : "double", salt, eq, reader, depth, pl, w,
                       sg ? " (segments)" : "", diff / ref);
                CHECK(diff / ref <= gpu_tolerance(precision), "relative difference %.3e",
                      diff / ref);
            }
    const int precisions[3] = {DG_PRECISION_DOUBLE, DG_PRECISION_FLOAT, DG_PRECISION_MIXED};
    dg_cuda_mg_class_min(1);      /* the same bits as without (test_gpu_multigrid) */
    for (int k = 0; k < 7; ++k) { /* 0-2: linear multigrid; 3-6: Newton by SOR and multigrid */
        const int precision = precisions[k < 3 ? k : (k - 3) / 2];
        const int equation = k < 3 ? DG_EQUATION_AUTO : DG_EQUATION_NONLINEAR_PB;
        const int solver = k < 3 || (k - 3) % 2 ? DG_SOLVER_MULTIGRID : DG_SOLVER_SOR;
        solve_to_tolerance(DG_BACKEND_CPU, precision, equation, solver, phi0, cpu);
        solve_to_tolerance(DG_BACKEND_CUDA, precision, equation, solver, phi0, gpu);
        double ref = 0.0, diff = max_abs_diff(gpu, cpu, n, &ref);
        const double tol = precision == DG_PRECISION_FLOAT ? 1e-4 : 1e-7;
        printf("%-6s %s %s: rel diff %.2e\n",
               precision == DG_PRECISION_FLOAT   ? "float"
               : precision == DG_PRECISION_MIXED ? "mixed"
                                                 : "double",
               equation == DG_EQUATION_NONLINEAR_PB ? "Newton" : "linear",
               solver == DG_SOLVER_MULTIGRID ? "multigrid" : "sor", diff / ref);
        CHECK(diff / ref <= tol, "relative difference %.3e", diff / ref);
    }
    periodic_case(DG_PRECISION_DOUBLE, 0, 0);
    periodic_case(DG_PRECISION_FLOAT, 0, 0);
    periodic_case(DG_PRECISION_MIXED, 0, 0);
    periodic_case(DG_PRECISION_DOUBLE, 1, 0);
    periodic_case(DG_PRECISION_FLOAT, 1, 0);
    periodic_case(DG_PRECISION_DOUBLE, 0, 1); /* classes on every level (class_min 1 above) */
    periodic_case(DG_PRECISION_FLOAT, 0, 1);
    periodic_case(DG_PRECISION_DOUBLE, 1, 1); /* Newton's steps by multigrid */
    free(phi0), free(cpu), free(gpu);
    return test_finish("gpu_sanitizer_case");
}
