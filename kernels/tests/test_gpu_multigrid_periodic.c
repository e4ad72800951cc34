/* Multigrid with periodic axes on the CUDA backend (its coarse levels wrap the seam, z's and x's
 * faces follow their images): against the CPU backend's multigrid and the SOR converged tightly,
 * in double, float and mixed, for one, two and three periodic axes, on grids whose coarse levels
 * reach two and one unknowns along a periodic axis and on one large enough for the W-cycle's
 * launched levels, the classes of uniform stencils and the one-block tail; the faces hold their
 * images exactly; the classes change no bit; a solve from its own answer takes at most one
 * cycle; a float caller's answer (float arrays, double working precision) matches; Newton's
 * method with its steps by multigrid gives the CPU's answer and the SOR-stepped one.  Skips (77)
 * without a GPU. */
#include <limits.h>

#include "gpu_test.h"
#include "mg/mg.h"
#include "periodic_problem.h"

static const char *precision_name(int precision) {
    return precision == DG_PRECISION_FLOAT   ? "float"
           : precision == DG_PRECISION_MIXED ? "mixed"
                                             : "double";
}

static dg_options options(int periodic, int solver, int precision, double maxc) {
    dg_options o;
    dg_default_options(&o);
    o.periodic = periodic, o.solver = solver, o.precision = precision;
    o.max_change_tol = maxc;
    return o;
}

static void compare(int nx, int ny, int nz, int periodic, int precision) {
    dense_problem d;
    const double radius = fmin(4.0, 0.2 * fmin(nx, ny));
    sphere_problem(&d, nx, ny, nz, 0.5 * (nx - 1) + 0.2, 0.5 * (ny - 1) + 0.1, 2.3, radius);
    const long n = (long)nx * ny * nz;
    const gpu_medium m = {&d.medium, NULL};
    const int is_float = precision == DG_PRECISION_FLOAT;
    const double maxc = is_float ? 1e-6 : 1e-10;
    double *sor = calloc((size_t)n, sizeof(double)), *cpu = calloc((size_t)n, sizeof(double));
    double *gpu = calloc((size_t)n, sizeof(double)), *again = NULL;
    dg_result rs, rc, rg, ra;
    dg_options o = options(periodic, DG_SOLVER_SOR, DG_PRECISION_DOUBLE, 1e-12);
    gpu_solve_on(DG_BACKEND_CUDA, &o, &m, sor, n, 0, &rs);
    o = options(periodic, DG_SOLVER_MULTIGRID, precision, maxc);
    gpu_solve_on(DG_BACKEND_CPU, &o, &m, cpu, n, 0, &rc);
    gpu_solve_on(DG_BACKEND_CUDA, &o, &m, gpu, n, 0, &rg);
    /* from its own answer (the whole phi goes up, its faces wrapped on the device) */
    again = malloc((size_t)n * sizeof(double));
    memcpy(again, gpu, (size_t)n * sizeof(double));
    gpu_solve_on(DG_BACKEND_CUDA, &o, &m, again, n, 0, &ra);
    double top = 0.0;
    const double to_sor = max_abs_diff(gpu, sor, n, &top) / top;
    const double to_cpu = max_abs_diff(gpu, cpu, n, NULL) / top;
    const double gap = periodic_face_gap(gpu, nx, ny, nz, periodic);
    printf("%3dx%3dx%3d periodic %d %-6s: cuda %2d cycles (%s), cpu %2d, again %d; |cuda - sor| "
           "%.1e, |cuda - cpu| %.1e of %.1f, face - image %.1e\n",
           nx, ny, nz, periodic, precision_name(precision), rg.iterations,
           dg_outcome_string(rg.outcome), rc.iterations, ra.iterations, to_sor, to_cpu, top, gap);
    CHECK(rg.backend == DG_BACKEND_CUDA && rg.solver == DG_SOLVER_MULTIGRID, "backend %d solver %d",
          rg.backend, rg.solver);
    CHECK(rg.outcome == DG_OUTCOME_CONVERGED ||
              (is_float && rg.outcome == DG_OUTCOME_FLOAT_RESOLUTION),
          "outcome %s", dg_outcome_string(rg.outcome));
    /* float ends where rounding stops the change falling, which the backends' summation orders
       move by a few cycles (measured: 9 against 13 with x, y and z periodic) */
    CHECK(is_float || abs(rg.iterations - rc.iterations) <= 1, "cycles %d on cuda, %d on the cpu",
          rg.iterations, rc.iterations);
    const double tol = is_float ? 1e-5 : 1e-8;
    CHECK(to_sor < tol, "cuda multigrid against the SOR: %.2e", to_sor);
    CHECK(to_cpu < tol, "cuda multigrid against the cpu's: %.2e", to_cpu);
    CHECK(gap == 0.0, "faces differ from their images by %.2e", gap);
    CHECK(ra.iterations <= 1 + is_float, "from its own answer: %d cycles", ra.iterations);
    free(sor), free(cpu), free(gpu), free(again);
    dense_problem_free(&d);
}

/* Classes on every level (k_tail's too) or on none: the bits of the default. */
static void classes_same_bits(int periodic, int precision) {
    const int n = 97;
    dense_problem d;
    sphere_problem(&d, n, n, n, 0.5 * n + 0.2, 0.5 * n + 0.1, 1.3, 0.2 * n);
    const long points = (long)n * n * n;
    const gpu_medium m = {&d.medium, NULL};
    const dg_options o = options(periodic, DG_SOLVER_MULTIGRID, precision,
                                 precision == DG_PRECISION_FLOAT ? 1e-5 : 1e-8);
    const long settings[3] = {-1, LONG_MAX, 1};
    double *phi[3];
    dg_result r[3];
    for (int k = 0; k < 3; ++k) {
        dg_cuda_mg_class_min(settings[k]);
        phi[k] = calloc((size_t)points, sizeof(double));
        gpu_solve_on(DG_BACKEND_CUDA, &o, &m, phi[k], points, 0, &r[k]);
    }
    dg_cuda_mg_class_min(-1);
    printf("%d^3 periodic %d %s: %d cycles; no classes %s, classes everywhere %s\n", n, periodic,
           precision_name(precision), r[0].iterations,
           memcmp(phi[1], phi[0], points * sizeof(double)) ? "DIFFER" : "the same bits",
           memcmp(phi[2], phi[0], points * sizeof(double)) ? "DIFFER" : "the same bits");
    for (int k = 1; k < 3; ++k)
        CHECK(r[k].iterations == r[0].iterations &&
                  !memcmp(phi[k], phi[0], points * sizeof(double)),
              "classes %ld: %d cycles against %d, or other bits", settings[k], r[k].iterations,
              r[0].iterations);
    CHECK(r[0].outcome == DG_OUTCOME_CONVERGED ||
              (precision == DG_PRECISION_FLOAT && r[0].outcome == DG_OUTCOME_FLOAT_RESOLUTION),
          "outcome %s", dg_outcome_string(r[0].outcome));
    for (int k = 0; k < 3; ++k)
        free(phi[k]);
    dense_problem_free(&d);
}

/* Newton's method with its steps by multigrid (the Jacobian's levels wrap too; the step's faces
   hold their images): the CPU's multigrid-stepped answer and the SOR-stepped one, in double and
   float, on a strongly charged sphere across the faces. */
static void newton(int periodic, int precision) {
    const int nx = 35, ny = 33, nz = 41;
    dense_problem d;
    sphere_problem(&d, nx, ny, nz, 17.2, 16.1, 2.3, 6.0);
    for (long i = 0; i < (long)nx * ny * nz; ++i)
        d.charge[i] *= 10.0;
    const long n = (long)nx * ny * nz;
    const gpu_medium m = {&d.medium, NULL};
    const int is_float = precision == DG_PRECISION_FLOAT;
    dg_options o = newton_options(periodic, DG_NONLINEAR_TERM_EXACT, is_float ? 1e-4 : 1e-8);
    o.precision = precision;
    double *phi[3];
    dg_result r[3];
    const int backends[3] = {DG_BACKEND_CUDA, DG_BACKEND_CPU, DG_BACKEND_CUDA};
    const int solvers[3] = {DG_SOLVER_MULTIGRID, DG_SOLVER_MULTIGRID, DG_SOLVER_SOR};
    for (int k = 0; k < 3; ++k) {
        o.solver = solvers[k];
        phi[k] = calloc((size_t)n, sizeof(double));
        gpu_solve_on(backends[k], &o, &m, phi[k], n, 0, &r[k]);
    }
    double top = 0.0;
    const double to_cpu = max_abs_diff(phi[0], phi[1], n, &top) / top;
    const double to_sor = max_abs_diff(phi[0], phi[2], n, NULL) / top;
    const double gap = periodic_face_gap(phi[0], nx, ny, nz, periodic);
    printf("Newton periodic %d %-6s: cuda %d steps by multigrid (%s), cpu %d, by the SOR %d; "
           "|cuda - cpu| %.1e, |cuda - sor-stepped| %.1e of %.1f, face - image %.1e\n",
           periodic, precision_name(precision), r[0].nonlinear_blocks,
           dg_outcome_string(r[0].outcome), r[1].nonlinear_blocks, r[2].nonlinear_blocks, to_cpu,
           to_sor, top, gap);
    CHECK((r[0].outcome == DG_OUTCOME_CONVERGED ||
           (is_float && r[0].outcome == DG_OUTCOME_FLOAT_RESOLUTION)) &&
              r[0].outcome == r[1].outcome && r[0].solver == DG_SOLVER_MULTIGRID,
          "outcome %s (cpu %s), solver %d", dg_outcome_string(r[0].outcome),
          dg_outcome_string(r[1].outcome), r[0].solver);
    const double tol = is_float ? 1e-4 : 1e-7;
    CHECK(to_cpu < tol && to_sor < tol,
          "Newton by multigrid: %.2e from the cpu's, %.2e from "
          "the SOR-stepped",
          to_cpu, to_sor);
    CHECK(gap == 0.0, "faces differ from their images by %.2e", gap);
    for (int k = 0; k < 3; ++k)
        free(phi[k]);
    dense_problem_free(&d);
}

/* DG_SOLVER_AUTO with periodic axes on CUDA: a linear equation by multigrid from 161^3, as
   without them; Newton's steps by the SOR below 513^3 (mg.h). */
static void auto_choice(void) {
    const int sizes[2] = {DG_MG_AUTO_EDGE_CUDA, 129};
    for (int k = 0; k < 2; ++k) {
        const int n = sizes[k], newton = k == 1;
        dense_problem d;
        sphere_problem(&d, n, n, n, 0.5 * n + 0.2, 0.5 * n + 0.1, 1.3, 0.2 * n);
        dg_options o = newton ? newton_options(DG_PERIODIC_Z, DG_NONLINEAR_TERM_EXACT, 1e-6)
                              : options(DG_PERIODIC_Z, DG_SOLVER_AUTO, DG_PRECISION_DOUBLE, 1e-5);
        o.solver = DG_SOLVER_AUTO;
        o.max_iterations = newton ? 0 : 1; /* only the linear choice is tested */
        const long points = (long)n * n * n;
        double *phi = calloc((size_t)points, sizeof(double));
        dg_solver s = gpu_make_solver(DG_BACKEND_CUDA, &o);
        CHECK_OK(dg_set_dense_medium_d(s, &d.medium), s);
        dg_result r;
        CHECK_OK(dg_solve_d(s, phi, &r), s);
        printf("AUTO, z periodic, %d^3: %s\n", n, dg_solver_choice(s));
        const char *want = newton ? "sor: solver AUTO, nonlinear equation by Newton's method with "
                                    "periodic axes, 129x129x129 grid (< 513^3 on the cuda backend)"
                                  : "multigrid: solver AUTO, linear equation with periodic axes";
        CHECK(r.solver == (newton ? DG_SOLVER_SOR : DG_SOLVER_MULTIGRID) &&
                  strstr(dg_solver_choice(s), want),
              "%d^3: %s", n, dg_solver_choice(s));
        dg_destroy(s);
        free(phi);
        dense_problem_free(&d);
    }
}

/* A float caller (dg_solve_f) with double and mixed working precision, and a double caller with
   float working precision (widened on the host): the faces hold their images. */
static void callers(void) {
    const int nx = 35, ny = 33, nz = 41, periodic = DG_PERIODIC_X | DG_PERIODIC_Z;
    dense_problem d;
    sphere_problem(&d, nx, ny, nz, 17.2, 16.1, 2.3, 6.0);
    const long n = (long)nx * ny * nz;
    const gpu_medium m = {&d.medium, NULL};
    const int precisions[3] = {DG_PRECISION_DOUBLE, DG_PRECISION_MIXED, DG_PRECISION_FLOAT};
    for (int k = 0; k < 3; ++k) {
        const dg_options o = options(periodic, DG_SOLVER_MULTIGRID, precisions[k],
                                     precisions[k] == DG_PRECISION_FLOAT ? 1e-5 : 1e-9);
        double *f = calloc((size_t)n, sizeof(double)), *dd = calloc((size_t)n, sizeof(double));
        dg_result rf, rd;
        gpu_solve_on(DG_BACKEND_CUDA, &o, &m, f, n, 1, &rf);
        gpu_solve_on(DG_BACKEND_CUDA, &o, &m, dd, n, 0, &rd);
        double top = 0.0;
        const double diff = max_abs_diff(f, dd, n, &top) / top;
        const double gaps = fmax(periodic_face_gap(f, nx, ny, nz, periodic),
                                 periodic_face_gap(dd, nx, ny, nz, periodic));
        printf("%-6s float caller against double caller: %.1e of %.1f, face - image %.1e\n",
               precision_name(precisions[k]), diff, top, gaps);
        CHECK(diff < 1e-6, "%s: float caller differs by %.2e", precision_name(precisions[k]), diff);
        CHECK(gaps == 0.0, "%s: faces differ from their images by %.2e",
              precision_name(precisions[k]), gaps);
        free(f), free(dd);
    }
    dense_problem_free(&d);
}

int main(void) {
    gpu_require_device("test_gpu_multigrid_periodic");
    const int precisions[3] = {DG_PRECISION_DOUBLE, DG_PRECISION_FLOAT, DG_PRECISION_MIXED};
    for (int k = 0; k < 3; ++k) {
        compare(35, 33, 41, DG_PERIODIC_Z, precisions[k]);
        compare(35, 33, 41, DG_PERIODIC_X | DG_PERIODIC_Y, precisions[k]);
        compare(35, 33, 41, DG_PERIODIC_X | DG_PERIODIC_Y | DG_PERIODIC_Z, precisions[k]);
        compare(7, 9, 67, DG_PERIODIC_X | DG_PERIODIC_Y | DG_PERIODIC_Z, precisions[k]);
        compare(5, 11, 131, DG_PERIODIC_X | DG_PERIODIC_Z, precisions[k]);
        compare(129, 121, 97, DG_PERIODIC_X | DG_PERIODIC_Z, precisions[k]);
    }
    classes_same_bits(DG_PERIODIC_X | DG_PERIODIC_Y | DG_PERIODIC_Z, DG_PRECISION_DOUBLE);
    classes_same_bits(DG_PERIODIC_Z, DG_PRECISION_MIXED);
    classes_same_bits(DG_PERIODIC_X | DG_PERIODIC_Y, DG_PRECISION_FLOAT);
    callers();
    auto_choice();
    newton(DG_PERIODIC_Z, DG_PRECISION_DOUBLE);
    newton(DG_PERIODIC_X | DG_PERIODIC_Y | DG_PERIODIC_Z, DG_PRECISION_DOUBLE);
    newton(DG_PERIODIC_X | DG_PERIODIC_Y | DG_PERIODIC_Z, DG_PRECISION_FLOAT);
    return test_finish("test_gpu_multigrid_periodic");
}
