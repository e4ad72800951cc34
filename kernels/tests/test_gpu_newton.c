/* Nonlinear PB by Newton on the CUDA backend against the CPU backend: a highly charged sphere
 * (-60 e, potentials of several kT/e in the salt) at 0.15 M and 1 M, exact and polynomial
 * ionic terms, double and float.  The backends sum in different orders and the GPU's sinh/cosh
 * round differently, so the inner solves may stop a check apart: both must converge, in Newton
 * step counts within 1 and sweep counts within 2 checks (20), with potentials agreeing to
 * 1e-7 (double, solved to max change 1e-8) or 1e-4 (float, 1e-4) of max |phi|.  Also a
 * nonlinear solve of a neutral medium (the linear PB limit) agrees to 1e-9.  The same with the
 * steps solved by multigrid (solver MULTIGRID: float CG in both backends, cycle counts within
 * 4).  With periodic axes (z; x, y and z), the SOR-stepped solve agrees alike and the faces
 * hold their images; on the Gouy-Chapman plane (x and y periodic with a period of 3) both
 * backends take the same steps to the exact solution's distance, in double and float.  Exits 77
 * (skipped) without a usable GPU. */
#include "gpu_test.h"
#include "periodic_problem.h"

enum { NX = 41, NY = 39, NZ = 43, CX = 20, CY = 19, CZ = 21 };
static const double scale = 2.0, exclusion = 3.0;

/* Newton's options for one case, the CPU and CUDA solves of it, and their max difference
   relative to max |phi| (cpu and gpu start alike). */
static double solve_both(dense_problem *d, int precision, int term, int solver, int periodic,
                         double *cpu, double *gpu, long n, dg_result *rc, dg_result *rg) {
    const int is_double = precision == DG_PRECISION_DOUBLE;
    dg_options o = newton_options(periodic, term, is_double ? 1e-8 : 1e-4);
    o.precision = precision;
    o.solver = solver;
    gpu_medium m = {&d->medium, NULL};
    gpu_solve_on(DG_BACKEND_CPU, &o, &m, cpu, n, !is_double, rc);
    gpu_solve_on(DG_BACKEND_CUDA, &o, &m, gpu, n, !is_double, rg);
    double ref = 0.0, diff = max_abs_diff(gpu, cpu, n, &ref);
    return ref > 0.0 ? diff / ref : diff;
}

/* The two backends' solves agree: the same outcome, a converged one (float: or float's
   resolution, where potentials of thousands of kT/e put a 1e-4 criterion below float's
   resolution and both backends stop there), Newton step counts within 1 and inner iteration
   counts within slack. */
static void check_agree(const dg_result *rc, const dg_result *rg, int is_double, int slack) {
    const int done = rc->outcome == DG_OUTCOME_CONVERGED ||
                     (!is_double && rc->outcome == DG_OUTCOME_FLOAT_RESOLUTION);
    CHECK(done && rg->outcome == rc->outcome, "outcome cuda %s, cpu %s",
          dg_outcome_string(rg->outcome), dg_outcome_string(rc->outcome));
    CHECK(abs(rg->nonlinear_blocks - rc->nonlinear_blocks) <= 1, "steps %d vs %d",
          rg->nonlinear_blocks, rc->nonlinear_blocks);
    CHECK(abs(rg->iterations - rc->iterations) <= slack, "iterations %d vs %d", rg->iterations,
          rc->iterations);
}

static void run(double charge, double molar, int term, int precision, int solver) {
    const long n = (long)NX * NY * NZ;
    dense_problem d;
    dense_problem_init(&d, NX, NY, NZ, scale, 80.0);
    dense_problem_sphere(&d, CX, CY, CZ, 6.0, 2.0);
    dense_problem_salt(&d, CX, CY, CZ, exclusion * scale, molar);
    d.charge[idx3(NX, NY, CX, CY, CZ)] = charge;
    point_source src = {CX, CY, CZ, charge, 80.0, scale, debye_kappa(molar, 80.0), exclusion};
    double *cpu = malloc(n * sizeof *cpu), *gpu = malloc(n * sizeof *gpu);
    set_faces(cpu, NX, NY, NZ, point_potential, &src);
    memcpy(gpu, cpu, n * sizeof *gpu);
    const int is_double = precision == DG_PRECISION_DOUBLE;
    dg_result rc, rg;
    const double rel = solve_both(&d, precision, term, solver, 0, cpu, gpu, n, &rc, &rg);
    const double tol = charge == 0.0 ? 1e-9 : is_double ? 1e-7 : 1e-4;
    const int mg = solver == DG_SOLVER_MULTIGRID;
    printf("charge %5.1f e %4.2f M %-10s %-6s %s: cuda %4d %s %2d steps, cpu %4d / %2d; rel "
           "diff %.2e\n",
           charge, molar, term == DG_NONLINEAR_TERM_POLYNOMIAL ? "polynomial" : "exact",
           is_double ? "double" : "float", mg ? "mg " : "sor", rg.iterations,
           mg ? "cycles" : "sweeps", rg.nonlinear_blocks, rc.iterations, rc.nonlinear_blocks, rel);
    CHECK(rg.backend == DG_BACKEND_CUDA, "backend");
    CHECK(rg.solver == solver && rc.solver == solver, "solver %d / %d, asked %d", rg.solver,
          rc.solver, solver);
    check_agree(&rc, &rg, is_double, mg ? 4 : 20);
    CHECK(rel < tol, "relative difference %.2e > %.0e", rel, tol);
    free(cpu), free(gpu);
    dense_problem_free(&d);
}

/* Periodic axes (the inner SOR's seam steps, the wrapped faces): the highly charged sphere of
   periodic_problem.h across the z faces, +20 e and -10 e in 0.15 M salt. */
static void run_periodic(int periodic, int precision) {
    dense_problem d;
    sphere_problem(&d, 35, 33, 41, 17.2, 16.1, 2.3, 6.0);
    enum { N = 35 * 33 * 41 };
    const long n = N;
    for (long i = 0; i < n; ++i)
        d.charge[i] *= 20.0;
    double *cpu = calloc(N, sizeof *cpu), *gpu = calloc(N, sizeof *gpu);
    const int is_double = precision == DG_PRECISION_DOUBLE;
    dg_result rc, rg;
    const double rel = solve_both(&d, precision, DG_NONLINEAR_TERM_AUTO, DG_SOLVER_SOR, periodic,
                                  cpu, gpu, n, &rc, &rg);
    /* the faces of the periodic axes hold their images (z: plane 0 = plane nz-2) */
    double gap = 0.0;
    for (int y = 1; y < d.ny - 1; ++y)
        for (int x = 1; x < d.nx - 1; ++x)
            gap = fmax(
                gap, fabs(gpu[idx3(d.nx, d.ny, x, y, 0)] - gpu[idx3(d.nx, d.ny, x, y, d.nz - 2)]));
    printf("periodic %d, %-6s: cuda %s, %4d sweeps %2d steps, cpu %4d / %2d; rel diff %.2e, "
           "faces - images %.1e\n",
           periodic, is_double ? "double" : "float", dg_outcome_string(rg.outcome), rg.iterations,
           rg.nonlinear_blocks, rc.iterations, rc.nonlinear_blocks, rel, gap);
    check_agree(&rc, &rg, is_double, 20);
    CHECK(rel < (is_double ? 1e-7 : 1e-4), "relative difference %.2e", rel);
    CHECK(gap == 0.0, "faces differ from their images by %.2e", gap);
    free(cpu), free(gpu);
    dense_problem_free(&d);
}

/* Gouy-Chapman at 0.5 A (periodic_problem.h): CUDA against the CPU and against the exact
   solution (the CPU's distance from it, 3.6e-3 of phi0, is the discretisation's). */
static void run_gouy_chapman(int precision) {
    dense_problem d;
    gouy_chapman g;
    gouy_chapman_problem(&d, 2.0, 1, &g);
    const long n = (long)g.nx * g.ny * g.nz;
    double *cpu = gouy_chapman_start(&g), *gpu = gouy_chapman_start(&g);
    const int is_double = precision == DG_PRECISION_DOUBLE;
    dg_options o = newton_options(DG_PERIODIC_X | DG_PERIODIC_Y, DG_NONLINEAR_TERM_EXACT,
                                  is_double ? 1e-9 : 1e-5);
    o.precision = precision;
    gpu_medium m = {&d.medium, NULL};
    dg_result rc, rg;
    gpu_solve_on(DG_BACKEND_CPU, &o, &m, cpu, n, !is_double, &rc);
    gpu_solve_on(DG_BACKEND_CUDA, &o, &m, gpu, n, !is_double, &rg);
    double ref = 0.0, rel = max_abs_diff(gpu, cpu, n, &ref);
    rel = ref > 0.0 ? rel / ref : rel;
    const double ec = gouy_chapman_error(&g, cpu), eg = gouy_chapman_error(&g, gpu);
    printf("Gouy-Chapman, %-6s: cuda %s, %4d sweeps %2d steps, cpu %4d / %2d; rel diff %.2e, "
           "from the exact %.2e (cpu %.2e)\n",
           is_double ? "double" : "float", dg_outcome_string(rg.outcome), rg.iterations,
           rg.nonlinear_blocks, rc.iterations, rc.nonlinear_blocks, rel, eg, ec);
    check_agree(&rc, &rg, is_double, 20);
    CHECK(rg.outcome == DG_OUTCOME_CONVERGED, "Gouy-Chapman on CUDA: %s",
          dg_outcome_string(rg.outcome));
    CHECK(rel < (is_double ? 1e-7 : 1e-4), "relative difference %.2e", rel);
    CHECK(eg < 5e-3, "Gouy-Chapman on CUDA: %.2e of phi0 from the exact solution", eg);
    free(cpu), free(gpu);
    dense_problem_free(&d);
}

int main(void) {
    gpu_require_device("test_gpu_newton");
    run_gouy_chapman(DG_PRECISION_DOUBLE);
    run_gouy_chapman(DG_PRECISION_FLOAT);
    run_periodic(DG_PERIODIC_Z, DG_PRECISION_DOUBLE);
    run_periodic(DG_PERIODIC_X | DG_PERIODIC_Y | DG_PERIODIC_Z, DG_PRECISION_DOUBLE);
    run_periodic(DG_PERIODIC_Z, DG_PRECISION_FLOAT);
    for (int k = 0; k < 2; ++k) {
        const int solver = k ? DG_SOLVER_MULTIGRID : DG_SOLVER_SOR;
        run(0.0, 0.15, DG_NONLINEAR_TERM_EXACT, DG_PRECISION_DOUBLE, solver);
        run(-60.0, 0.15, DG_NONLINEAR_TERM_EXACT, DG_PRECISION_DOUBLE, solver);
        run(-60.0, 1.0, DG_NONLINEAR_TERM_EXACT, DG_PRECISION_DOUBLE, solver);
        run(-60.0, 0.15, DG_NONLINEAR_TERM_POLYNOMIAL, DG_PRECISION_DOUBLE, solver);
        run(-60.0, 0.15, DG_NONLINEAR_TERM_EXACT, DG_PRECISION_FLOAT, solver);
    }
    return test_finish("test_gpu_newton");
}
