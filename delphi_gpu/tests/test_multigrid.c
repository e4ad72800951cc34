/* Multigrid (dg_options.solver = DG_SOLVER_MULTIGRID) against the SOR converged tightly, on
 * the same discrete equations: a protein-like medium (spheres of eps 2 in 80, charges) with and
 * without salt, the linear potential (exact), and the cycle count over grid sizes. */
#include "../src/mg/mg.h"
#include "mg_problem.h"

typedef struct run {
    double energy, max_phi, seconds;
    int iterations, outcome;
    double *phi;
} run;

static run solve(dense_problem *d, const double *faces_phi, int method, int precision,
                 double maxc) {
    dg_options o;
    dg_default_options(&o);
    o.solver = method;
    o.precision = precision;
    o.max_change_tol = maxc;
    dg_solver s = make_cpu_solver(&o);
    CHECK_OK(dg_set_dense_medium_d(s, &d->medium), s);
    long n = (long)d->nx * d->ny * d->nz;
    run out = {0};
    out.phi = malloc(n * sizeof(double));
    memcpy(out.phi, faces_phi, n * sizeof(double));
    dg_result r;
    CHECK_OK(dg_solve_d(s, out.phi, &r), s);
    out.energy = mg_problem_energy(d, out.phi);
    out.iterations = r.iterations, out.outcome = r.outcome, out.seconds = r.total_seconds;
    for (long w = 0; w < n; ++w)
        out.max_phi = fmax(out.max_phi, fabs(out.phi[w]));
    dg_destroy(s);
    return out;
}

/* MG and SOR agree on the protein-like medium (energy 1e-6 relative, phi 1e-5 of its max). */
static void agreement(int n, int salt, int precision) {
    dense_problem d;
    long points = (long)n * n * n;
    double *phi = malloc(points * sizeof *phi);
    mg_faces faces;
    mg_problem_build(&d, phi, n, salt, &faces);
    run sor = solve(&d, phi, DG_SOLVER_SOR, DG_PRECISION_DOUBLE, 1e-9);
    run mg = solve(&d, phi, DG_SOLVER_MULTIGRID, precision,
                   precision == DG_PRECISION_DOUBLE ? 1e-8 : 1e-5);
    const double de = fabs(mg.energy - sor.energy) / fabs(sor.energy);
    const double dphi = max_abs_diff(mg.phi, sor.phi, points, NULL) / sor.max_phi;
    printf("%3d^3 salt %d %s: SOR %5d it %.3f s, MG %3d cycles %.3f s (%s); energy %.8g vs %.8g "
           "(rel %.1e), max |dphi|/max|phi| %.1e\n",
           n, salt, precision == DG_PRECISION_DOUBLE ? "double" : "float ", sor.iterations,
           sor.seconds, mg.iterations, mg.seconds, dg_outcome_string(mg.outcome), mg.energy,
           sor.energy, de, dphi);
    CHECK(sor.outcome == DG_OUTCOME_CONVERGED, "SOR %s", dg_outcome_string(sor.outcome));
    if (precision == DG_PRECISION_DOUBLE) {
        CHECK(mg.outcome == DG_OUTCOME_CONVERGED, "MG %s", dg_outcome_string(mg.outcome));
        CHECK(de < 1e-6, "energy differs by %.2e relative", de);
        CHECK(dphi < 1e-6, "phi differs by %.2e of its max", dphi);
    } else {
        CHECK(de < 1e-4, "float energy differs by %.2e relative", de);
        CHECK(dphi < 1e-4, "float phi differs by %.2e of its max", dphi);
    }
    free(sor.phi), free(mg.phi), free(phi);
    dense_problem_free(&d);
}

/* A uniform medium without charges and linear face values: the exact solution is linear. */
static void linear_potential(void) {
    const int n = 33;
    dense_problem d;
    dense_problem_init(&d, n, n, n, 1.0, 80.0);
    long points = (long)n * n * n;
    double *phi = calloc(points, sizeof *phi), *exact = malloc(points * sizeof *exact);
    for (int z = 0; z < n; ++z)
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x) {
                long w = idx3(n, n, x, y, z);
                exact[w] = 0.5 * x - 0.25 * y + 0.125 * z + 1.0;
                int face = !x || !y || !z || x == n - 1 || y == n - 1 || z == n - 1;
                phi[w] = face ? exact[w] : 0.0;
            }
    run mg = solve(&d, phi, DG_SOLVER_MULTIGRID, DG_PRECISION_DOUBLE, 1e-10);
    double ref = 0;
    double err = max_abs_diff(mg.phi, exact, points, &ref);
    printf("linear potential: %d cycles, max error %.2e\n", mg.iterations, err);
    CHECK(mg.outcome == DG_OUTCOME_CONVERGED, "%s", dg_outcome_string(mg.outcome));
    CHECK(err < 1e-9 * ref, "max error %.2e", err);
    free(mg.phi), free(phi), free(exact);
    dense_problem_free(&d);
}

/* Nonlinear PB is refused with a message naming the option. */
static void refusals(void) {
    dense_problem d;
    const int n = 17;
    double *phi = calloc((size_t)n * n * n, sizeof *phi);
    dense_problem_init(&d, n, n, n, 1.0, 80.0);
    dense_problem_salt(&d, 8, 8, 8, 2.0, 0.15);
    dg_options o;
    dg_default_options(&o);
    o.solver = DG_SOLVER_MULTIGRID;
    o.equation = DG_EQUATION_NONLINEAR_PB;
    dg_solver s = make_cpu_solver(&o);
    CHECK_OK(dg_set_dense_medium_d(s, &d.medium), s);
    int st = dg_solve_d(s, phi, NULL);
    CHECK(st == DG_ERR_UNSUPPORTED && strstr(dg_last_error(s), "solver"), "status %d: %s", st,
          dg_last_error(s));
    dg_destroy(s);
    free(phi);
    dense_problem_free(&d);
}

/* DG_SOLVER_AUTO: SOR below the CPU's multigrid size, for nonlinear PB and for a DelPhi-style
   run; multigrid at and above it; dg_solver_choice and dg_result.solver say which. */
static void auto_choice(void) {
    const int sizes[2] = {33, DG_MG_AUTO_EDGE_CPU};
    for (int i = 0; i < 2; ++i) {
        const int n = sizes[i];
        dense_problem d;
        double *phi = malloc((size_t)n * n * n * sizeof *phi);
        mg_faces faces;
        mg_problem_build(&d, phi, n, 1, &faces);
        dg_options o;
        dg_default_options(&o);
        o.solver = DG_SOLVER_AUTO;
        o.max_change_tol = 1e-5;
        if (n >= DG_MG_AUTO_EDGE_CPU) o.max_iterations = 1; /* only the choice is tested */
        dg_solver s = make_cpu_solver(&o);
        CHECK_OK(dg_set_dense_medium_d(s, &d.medium), s);
        CHECK(!strcmp(dg_solver_choice(s), ""), "choice before a solve: %s", dg_solver_choice(s));
        dg_result r;
        CHECK_OK(dg_solve_d(s, phi, &r), s);
        const int mg = n >= DG_MG_AUTO_EDGE_CPU;
        printf("AUTO at %d^3: %s\n", n, dg_solver_choice(s));
        CHECK(r.solver == (mg ? DG_SOLVER_MULTIGRID : DG_SOLVER_SOR), "solver %d at %d^3", r.solver,
              n);
        CHECK(strstr(dg_solver_choice(s), mg ? "multigrid: solver AUTO, linear equation"
                                             : "sor: solver AUTO, linear equation"),
              "%s", dg_solver_choice(s));
        if (mg) {
            /* a fixed count without a criterion counts SOR iterations */
            o.max_change_tol = 0.0, o.iterations = 2, o.max_iterations = 0;
            CHECK_OK(dg_set_options(s, &o), s);
            CHECK_OK(dg_solve_d(s, phi, &r), s);
            CHECK(r.solver == DG_SOLVER_SOR && r.iterations == 2 &&
                      strstr(dg_solver_choice(s), "sor: solver AUTO, a fixed iteration count"),
                  "fixed count: %d %d %s", r.solver, r.iterations, dg_solver_choice(s));
            /* DelPhi's nonlinear scheme: SOR whatever the size */
            o.equation = DG_EQUATION_NONLINEAR_PB;
            o.iterations = 10;
            CHECK_OK(dg_set_options(s, &o), s);
            CHECK_OK(dg_solve_d(s, phi, &r), s);
            CHECK(r.solver == DG_SOLVER_SOR &&
                      strstr(dg_solver_choice(s), "sor: solver AUTO, DelPhi's nonlinear scheme"),
                  "nonlinear: %d %s", r.solver, dg_solver_choice(s));
            /* Newton's method: its steps by the SOR on the CPU */
            o.nonlinear_method = DG_NONLINEAR_NEWTON;
            o.iterations = 0;
            CHECK_OK(dg_set_options(s, &o), s);
            CHECK_OK(dg_solve_d(s, phi, &r), s);
            CHECK(r.solver == DG_SOLVER_SOR &&
                      strstr(dg_solver_choice(s), "sor: solver AUTO, Newton's method on the cpu"),
                  "Newton: %d %s", r.solver, dg_solver_choice(s));
        }
        dg_destroy(s);
        free(phi);
        dense_problem_free(&d);
    }
}

/* A float caller's phi with the double multigrid: the answer's interior comes back, the
   faces stay the caller's own bits, and it matches the double caller's answer. */
static void float_caller(void) {
    const int n = 33;
    dense_problem d;
    const long points = (long)n * n * n;
    double *phi = malloc(points * sizeof *phi);
    float *phif = malloc(points * sizeof *phif), *facesf = malloc(points * sizeof *facesf);
    mg_faces faces;
    mg_problem_build(&d, phi, n, 0, &faces);
    for (int z = 0; z < n; ++z) /* a non-zero start inside, the faces as they are */
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x) {
                const long w = idx3(n, n, x, y, z);
                const int face = !x || !y || !z || x == n - 1 || y == n - 1 || z == n - 1;
                phif[w] = facesf[w] = (float)phi[w] + (!face && w % 7 == 0 ? 1.0f : 0.0f);
            }
    dg_options o;
    dg_default_options(&o);
    o.solver = DG_SOLVER_MULTIGRID, o.max_change_tol = 1e-8;
    dg_solver s = make_cpu_solver(&o);
    CHECK_OK(dg_set_dense_medium_d(s, &d.medium), s);
    dg_result r;
    CHECK_OK(dg_solve_f(s, phif, &r), s);
    run ref = solve(&d, phi, DG_SOLVER_MULTIGRID, DG_PRECISION_DOUBLE, 1e-8);
    double worst = 0.0;
    int faces_kept = 1;
    for (int z = 0; z < n; ++z)
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x) {
                const long w = idx3(n, n, x, y, z);
                if (!x || !y || !z || x == n - 1 || y == n - 1 || z == n - 1)
                    faces_kept &= phif[w] == facesf[w];
                else
                    worst = fmax(worst, fabs(phif[w] - ref.phi[w]));
            }
    printf("float caller: %d cycles, max |dphi| %.2e of %.3g\n", r.iterations, worst, ref.max_phi);
    CHECK(r.outcome == DG_OUTCOME_CONVERGED, "%s", dg_outcome_string(r.outcome));
    CHECK(faces_kept, "the caller's faces changed");
    CHECK(worst < 1e-6 * ref.max_phi, "float caller's answer off by %.2e", worst);
    dg_destroy(s);
    free(phi), free(phif), free(facesf), free(ref.phi);
    dense_problem_free(&d);
}

/* The stopping rule's promise (DG_MG_RESIDUAL_PER_CHANGE): at the same maxc the multigrid's
   answer is at least as close to the exact discrete solution (a multigrid solve to 1e-11) as
   the SOR's, on the protein-like medium. */
static void accuracy_against_sor(int n, int salt) {
    dense_problem d;
    const long points = (long)n * n * n;
    double *phi = malloc(points * sizeof *phi);
    mg_faces faces;
    mg_problem_build(&d, phi, n, salt, &faces);
    run ref = solve(&d, phi, DG_SOLVER_MULTIGRID, DG_PRECISION_DOUBLE, 1e-11);
    run sor = solve(&d, phi, DG_SOLVER_SOR, DG_PRECISION_DOUBLE, 1e-5);
    run mg = solve(&d, phi, DG_SOLVER_MULTIGRID, DG_PRECISION_DOUBLE, 1e-5);
    const double e_sor = max_abs_diff(sor.phi, ref.phi, points, NULL);
    const double e_mg = max_abs_diff(mg.phi, ref.phi, points, NULL);
    printf("%3d^3 salt %d, maxc 1e-5: max error SOR %.2e (%d it), MG %.2e (%d cycles)\n", n, salt,
           e_sor, sor.iterations, e_mg, mg.iterations);
    CHECK(mg.outcome == DG_OUTCOME_CONVERGED && sor.outcome == DG_OUTCOME_CONVERGED, "%s, %s",
          dg_outcome_string(mg.outcome), dg_outcome_string(sor.outcome));
    CHECK(e_mg <= e_sor, "%d^3: the multigrid's error %.2e exceeds the SOR's %.2e", n, e_mg, e_sor);
    free(ref.phi), free(sor.phi), free(mg.phi), free(phi);
    dense_problem_free(&d);
}

/* Cycles to DelPhi's default maxc = 1e-5 over grid sizes (the box stays 48 A wide). */
static void cycles_over_grids(void) {
    const int sizes[4] = {33, 65, 97, 129};
    int cycles[4];
    for (int i = 0; i < 4; ++i) {
        const int n = sizes[i];
        dense_problem d;
        double *phi = malloc((size_t)n * n * n * sizeof *phi);
        mg_faces faces;
        mg_problem_build(&d, phi, n, 0, &faces);
        run mg = solve(&d, phi, DG_SOLVER_MULTIGRID, DG_PRECISION_DOUBLE, 1e-5);
        cycles[i] = mg.iterations;
        printf("%3d^3: %d cycles (%s), %.3f s\n", n, mg.iterations, dg_outcome_string(mg.outcome),
               mg.seconds);
        CHECK(mg.outcome == DG_OUTCOME_CONVERGED, "%s", dg_outcome_string(mg.outcome));
        free(mg.phi), free(phi);
        dense_problem_free(&d);
    }
    /* The residual tolerance is the same at every size (DG_MG_RESIDUAL_PER_CHANGE), but a
       plain aggregation cycle loses a little per level: at most 2 more cycles per step, at most
       +30 % + 1 from 65^3 to 129^3, and far below the SOR's growth (about 2x per doubling). */
    for (int i = 1; i < 4; ++i)
        CHECK(cycles[i] <= cycles[i - 1] + 2, "cycles %d at %d^3 but %d at %d^3", cycles[i - 1],
              sizes[i - 1], cycles[i], sizes[i]);
    CHECK(cycles[3] <= 1.3 * cycles[1] + 1, "cycles %d at 65^3 but %d at 129^3", cycles[1],
          cycles[3]);
}

int main(void) {
    linear_potential();
    auto_choice();
    float_caller();
    refusals();
    agreement(33, 0, DG_PRECISION_DOUBLE);
    agreement(65, 0, DG_PRECISION_DOUBLE);
    agreement(65, 1, DG_PRECISION_DOUBLE);
    agreement(65, 0, DG_PRECISION_FLOAT);
    accuracy_against_sor(65, 0);
    accuracy_against_sor(97, 1);
    cycles_over_grids();
    return test_finish("test_multigrid");
}
