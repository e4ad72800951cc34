/* Periodic axes (dg_options.periodic) on the CPU backend:
 * - a charged sheet with y and z periodic: the exact piecewise-linear discrete solution, on the
 *   interior and on the wrapped faces, in double, float and mixed (and, without periodic axes,
 *   far from it: the check can fail);
 * - a charged dielectric sphere in salt that crosses the periodic boundary: shifting the medium
 *   along z shifts the potential, linear and with DelPhi's nonlinear scheme, in each precision;
 * - mixed precision against double on that sphere with x, y and z periodic: the same answer to
 *   the criterion's size in about double's iterations;
 * - the spectral estimate with a periodic axis, and the options periodic axes refuse. */
#include "periodic_problem.h"

static const char *precision_name(int precision) {
    return precision == DG_PRECISION_DOUBLE  ? "double"
           : precision == DG_PRECISION_FLOAT ? "float"
                                             : "mixed";
}

static double *solve_dense(dense_problem *d, const dg_options *o, dg_result *r) {
    const long n = (long)d->nx * d->ny * d->nz;
    double *phi = calloc((size_t)n, sizeof *phi);
    dg_solver s = make_cpu_solver(o);
    CHECK_OK(dg_set_dense_medium_d(s, &d->medium), s);
    CHECK_OK(dg_solve_d(s, phi, r), s);
    dg_destroy(s);
    return phi;
}

static void sheet(int precision, int periodic) {
    const int nx = 21, ny = 15, nz = 17, x0 = 7;
    const double q = 0.01, eps = 4.0, scale = 1.5;
    dense_problem d;
    sheet_problem(&d, nx, ny, nz, x0, scale, q, eps);
    dg_options o;
    dg_default_options(&o);
    o.precision = precision;
    o.periodic = periodic;
    o.max_change_tol = precision == DG_PRECISION_FLOAT ? 1e-6 : 1e-11;
    dg_result r;
    double *phi = solve_dense(&d, &o, &r);
    double worst = 0.0, worst_face = 0.0;
    const double peak = sheet_exact(nx, x0, scale, q, eps, x0);
    for (int z = 0; z < nz; ++z)
        for (int y = 0; y < ny; ++y)
            for (int x = 1; x < nx - 1; ++x) {
                const int face_y = y == 0 || y == ny - 1, face_z = z == 0 || z == nz - 1;
                if (face_y && face_z) continue; /* edges: not wrapped, left as given (0) */
                const double e =
                    fabs(phi[idx3(nx, ny, x, y, z)] - sheet_exact(nx, x0, scale, q, eps, x));
                if (face_y || face_z)
                    worst_face = e > worst_face ? e : worst_face;
                else
                    worst = e > worst ? e : worst;
            }
    printf("sheet, %s, periodic %d: %s after %d iterations, peak %.4f kT/e, max |phi - exact| "
           "%.2e interior, %.2e wrapped faces\n",
           precision_name(precision), periodic, dg_outcome_string(r.outcome), r.iterations, peak,
           worst / peak, worst_face / peak);
    CHECK(r.outcome == DG_OUTCOME_CONVERGED ||
              (precision == DG_PRECISION_FLOAT && r.outcome == DG_OUTCOME_FLOAT_RESOLUTION),
          "outcome %s", dg_outcome_string(r.outcome));
    if (periodic) {
        const double tol = precision == DG_PRECISION_FLOAT ? 2e-4 : 1e-9;
        CHECK(worst / peak < tol, "interior relative error %.3e", worst / peak);
        CHECK(worst_face / peak < tol, "wrapped faces relative error %.3e", worst_face / peak);
    } else {
        CHECK(worst / peak > 0.1, "fixed faces should not give the sheet's solution (%.3e)",
              worst / peak);
    }
    dense_problem_free(&d);
    free(phi);
}

/* Shift along z by s: phi_B(x, y, z) = phi_A(x, y, z - s) over the period. */
static void shifted(int nonlinear, int precision) {
    const int nx = 19, ny = 17, nz = 23, s = 7;
    const double cx = 9.2, cy = 8.1, cz = 2.3, radius = 4.0;
    dense_problem a, b;
    sphere_problem(&a, nx, ny, nz, cx, cy, cz, radius);
    sphere_problem(&b, nx, ny, nz, cx, cy, cz + s, radius);
    dg_options o;
    dg_default_options(&o);
    o.precision = precision;
    o.periodic = DG_PERIODIC_Z;
    o.max_change_tol = precision == DG_PRECISION_FLOAT ? 1e-6 : nonlinear ? 1e-6 : 1e-11;
    if (nonlinear) {
        o.equation = DG_EQUATION_NONLINEAR_PB;
        o.nonlinear_blocks = 40;
    }
    dg_result ra, rb;
    double *pa = solve_dense(&a, &o, &ra), *pb = solve_dense(&b, &o, &rb);
    double worst = 0.0, top = 0.0;
    for (int z = 1; z < nz - 1; ++z)
        for (int y = 1; y < ny - 1; ++y)
            for (int x = 1; x < nx - 1; ++x) {
                const double va = pa[idx3(nx, ny, x, y, periodic_shift(z, -s, nz))];
                const double e = fabs(pb[idx3(nx, ny, x, y, z)] - va);
                worst = e > worst ? e : worst;
                top = fabs(va) > top ? fabs(va) : top;
            }
    /* the wrapped faces repeat the interior: plane 0 = plane nz-2, plane nz-1 = plane 1 */
    double face = 0.0;
    for (int y = 1; y < ny - 1; ++y)
        for (int x = 1; x < nx - 1; ++x) {
            const double d0 = fabs(pa[idx3(nx, ny, x, y, 0)] - pa[idx3(nx, ny, x, y, nz - 2)]);
            const double d1 = fabs(pa[idx3(nx, ny, x, y, nz - 1)] - pa[idx3(nx, ny, x, y, 1)]);
            face = d0 > face ? d0 : face;
            face = d1 > face ? d1 : face;
        }
    printf("sphere across the boundary, %s, %s: %s after %d and %d iterations, max |phi| %.3f, "
           "shifted max diff %.2e, face - image %.2e\n",
           nonlinear ? "nonlinear" : "linear", precision_name(precision),
           dg_outcome_string(ra.outcome), ra.iterations, rb.iterations, top, worst, face);
    const int want =
        precision == DG_PRECISION_FLOAT ? DG_OUTCOME_FLOAT_RESOLUTION : DG_OUTCOME_CONVERGED;
    CHECK(ra.outcome == want && rb.outcome == want, "outcomes %s, %s",
          dg_outcome_string(ra.outcome), dg_outcome_string(rb.outcome));
    /* DelPhi's nonlinear scheme stops at 1e-6 here (its relaxation shrinks before 1e-9) */
    const double tol = precision == DG_PRECISION_FLOAT ? 1e-6 : nonlinear ? 1e-7 : 1e-8;
    CHECK(worst < tol * top, "shifted potential differs by %.3e of %.3e", worst, top);
    CHECK(face < tol * top, "faces differ from their images by %.3e", face);
    CHECK(top > 1.0, "the charges give a potential (%.3f)", top);
    dense_problem_free(&a), dense_problem_free(&b);
    free(pa), free(pb);
}

/* Uniform medium, z periodic: the lowest mode is constant along z, so the Gauss-Seidel
   spectral radius is ((cos(pi/(nx-1)) + cos(pi/(ny-1)) + 1) / 3)^2. */
static void spectral(void) {
    const int nx = 21, ny = 25, nz = 19;
    dense_problem d;
    dense_problem_init(&d, nx, ny, nz, 2.0, 80.0);
    dg_options o;
    dg_default_options(&o);
    double fixed = 0.0, periodic = 0.0;
    dg_solver s = make_cpu_solver(&o);
    CHECK_OK(dg_set_dense_medium_d(s, &d.medium), s);
    CHECK_OK(dg_estimate_spectral_radius(s, &fixed), s);
    dg_destroy(s);
    o.periodic = DG_PERIODIC_Z;
    s = make_cpu_solver(&o);
    CHECK_OK(dg_set_dense_medium_d(s, &d.medium), s);
    CHECK_OK(dg_estimate_spectral_radius(s, &periodic), s);
    const double pi = 3.14159265358979323846;
    const double jacobi = (cos(pi / (nx - 1)) + cos(pi / (ny - 1)) + 1.0) / 3.0;
    printf("spectral radius: fixed faces %.6f, z periodic %.6f (mode's %.6f)\n", fixed, periodic,
           jacobi * jacobi);
    CHECK(periodic > fixed, "a periodic axis raises the spectral radius");
    CHECK_REL(periodic, jacobi * jacobi, 0.01);
    /* the solver AUTO takes the SOR and says why */
    dg_options auto_o = o;
    auto_o.solver = DG_SOLVER_AUTO;
    CHECK_OK(dg_set_options(s, &auto_o), s);
    double *phi = calloc((size_t)nx * ny * nz, sizeof *phi);
    dg_result r;
    CHECK_OK(dg_solve_d(s, phi, &r), s);
    CHECK(strstr(dg_solver_choice(s), "periodic") != NULL, "choice: %s", dg_solver_choice(s));
    /* periodic is fixed when the solver is created */
    auto_o.periodic = DG_PERIODIC_X;
    CHECK(dg_set_options(s, &auto_o) == DG_ERR_INVALID_ARGUMENT, "periodic cannot change");
    CHECK(strstr(dg_last_error(s), "periodic") != NULL, "message: %s", dg_last_error(s));
    free(phi);
    dg_destroy(s);
    dense_problem_free(&d);
}

/* Mixed precision follows double's SOR iterates (its double residual corrects the 16-bit
   correction's rounding): with x, y and z periodic, linear and with DelPhi's nonlinear scheme,
   the same potential to the criterion's size, faces included, in about double's iterations. */
static void mixed_against_double(int nonlinear) {
    const int nx = 19, ny = 17, nz = 23;
    dense_problem d;
    sphere_problem(&d, nx, ny, nz, 9.2, 8.1, 2.3, 4.0);
    dg_options o;
    dg_default_options(&o);
    o.periodic = DG_PERIODIC_X | DG_PERIODIC_Y | DG_PERIODIC_Z;
    o.max_change_tol = 1e-9;
    if (nonlinear) {
        o.equation = DG_EQUATION_NONLINEAR_PB;
        o.nonlinear_blocks = 200;
        o.max_change_tol = 1e-5; /* DelPhi's scheme: its relaxation shrinks near 1e-6 here */
    }
    dg_result rd, rm;
    o.precision = DG_PRECISION_DOUBLE;
    double *pd = solve_dense(&d, &o, &rd);
    o.precision = DG_PRECISION_MIXED;
    double *pm = solve_dense(&d, &o, &rm);
    double worst = 0.0, top = 0.0;
    const long n = (long)nx * ny * nz;
    for (long i = 0; i < n; ++i) {
        const double e = fabs(pm[i] - pd[i]);
        worst = e > worst ? e : worst;
        top = fabs(pd[i]) > top ? fabs(pd[i]) : top;
    }
    printf("sphere, x, y and z periodic, %s: double %s after %d iterations, mixed %s after %d, "
           "max |mixed - double| %.2e (max |phi| %.3f)\n",
           nonlinear ? "nonlinear" : "linear", dg_outcome_string(rd.outcome), rd.iterations,
           dg_outcome_string(rm.outcome), rm.iterations, worst, top);
    CHECK(rd.outcome == DG_OUTCOME_CONVERGED && rm.outcome == DG_OUTCOME_CONVERGED,
          "outcomes %s, %s", dg_outcome_string(rd.outcome), dg_outcome_string(rm.outcome));
    CHECK(rm.iterations <= rd.iterations * 5 / 4 + 20, "mixed %d iterations, double %d",
          rm.iterations, rd.iterations);
    CHECK(worst < (nonlinear ? 1e-4 : 1e-7), "mixed differs from double by %.3e", worst);
    CHECK(top > 1.0, "the charges give a potential (%.3f)", top);
    dense_problem_free(&d);
    free(pd), free(pm);
}

static void refusals(void) {
    struct {
        int periodic, solver, precision, nonlinear_newton, status;
        const char *word;
    } cases[] = {
        {8, DG_SOLVER_SOR, DG_PRECISION_DOUBLE, 0, DG_ERR_INVALID_ARGUMENT, "0..7"},
        {-1, DG_SOLVER_SOR, DG_PRECISION_DOUBLE, 0, DG_ERR_INVALID_ARGUMENT, "0..7"},
        {DG_PERIODIC_X, DG_SOLVER_MULTIGRID, DG_PRECISION_DOUBLE, 0, DG_ERR_UNSUPPORTED, "SOR"},
        {DG_PERIODIC_Z, DG_SOLVER_SOR, DG_PRECISION_DOUBLE, 1, DG_ERR_UNSUPPORTED, "Newton"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        dg_options o;
        dg_default_options(&o);
        o.backend = DG_BACKEND_CPU;
        o.periodic = cases[i].periodic, o.solver = cases[i].solver;
        o.precision = cases[i].precision;
        if (cases[i].nonlinear_newton)
            o.equation = DG_EQUATION_NONLINEAR_PB, o.nonlinear_method = DG_NONLINEAR_NEWTON;
        dg_solver s = NULL;
        const int st = dg_create(&s, &o);
        CHECK(st == cases[i].status, "case %zu: status %d", i, st);
        CHECK(strstr(dg_last_error(s), "periodic") && strstr(dg_last_error(s), cases[i].word),
              "case %zu: message: %s", i, dg_last_error(s));
        dg_destroy(s);
    }
}

int main(void) {
    sheet(DG_PRECISION_DOUBLE, DG_PERIODIC_Y | DG_PERIODIC_Z);
    sheet(DG_PRECISION_FLOAT, DG_PERIODIC_Y | DG_PERIODIC_Z);
    sheet(DG_PRECISION_MIXED, DG_PERIODIC_Y | DG_PERIODIC_Z);
    sheet(DG_PRECISION_DOUBLE, 0);
    shifted(0, DG_PRECISION_DOUBLE);
    shifted(0, DG_PRECISION_FLOAT);
    shifted(0, DG_PRECISION_MIXED);
    shifted(1, DG_PRECISION_DOUBLE);
    shifted(1, DG_PRECISION_MIXED);
    mixed_against_double(0);
    mixed_against_double(1);
    spectral();
    refusals();
    return test_finish("test_periodic");
}
