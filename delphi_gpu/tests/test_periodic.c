/* Periodic axes (dg_options.periodic) on the CPU backend:
 * - a charged sheet with y and z periodic: the exact piecewise-linear discrete solution, on the
 *   interior and on the wrapped faces, in double, float and mixed (and, without periodic axes,
 *   far from it: the check can fail);
 * - a charged dielectric sphere in salt that crosses the periodic boundary: shifting the medium
 *   along z shifts the potential, linear and with DelPhi's nonlinear scheme, in each precision;
 * - mixed precision against double on that sphere with x, y and z periodic: the same answer to
 *   the criterion's size in about double's iterations;
 * - Newton's method: the discrete sinh equation holds next to the seams, shifted media, threads,
 *   float, and DelPhi's scheme's fixed point;
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
    /* the solver AUTO takes the SOR at this size on the CPU (multigrid wraps periodic axes
       there, test_multigrid_periodic) and says why */
    dg_options auto_o = o;
    auto_o.solver = DG_SOLVER_AUTO;
    CHECK_OK(dg_set_options(s, &auto_o), s);
    double *phi = calloc((size_t)nx * ny * nz, sizeof *phi);
    dg_result r;
    CHECK_OK(dg_solve_d(s, phi, &r), s);
    CHECK(r.solver == DG_SOLVER_SOR && strstr(dg_solver_choice(s), "< 161^3 on the cpu backend"),
          "choice: %s", dg_solver_choice(s));
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

/* Largest relative residual of (sum of neighbours - 6 phi) = (kappa h)^2 sinh(phi) (exact) or
   its polynomial at the salt points whose six faces are water (80), every neighbour along a
   periodic axis taken at its image (periodic_shift), so that points next to the seams are
   checked through the interior rather than through the faces; *seam counts those points. */
static double equation_residual(const double *phi, const dense_problem *d, int periodic,
                                double scale, double molar, int exact, long *seam) {
    const int nx = d->nx, ny = d->ny, nz = d->nz;
    const double kh = debye_kappa(molar, 80.0) / scale, kh2 = kh * kh;
    double worst = 0.0;
    *seam = 0;
    for (int z = 1; z < nz - 1; ++z)
        for (int y = 1; y < ny - 1; ++y)
            for (int x = 1; x < nx - 1; ++x) {
                const long w = idx3(nx, ny, x, y, z);
                const long faces[6] = {w, w - 1, w, w - nx, w, w - (long)nx * ny};
                int water = d->ions[w] != 0;
                for (int f = 0; f < 6; ++f)
                    water = water && d->eps[f / 2][faces[f]] == 80.0;
                if (!water || fabs(phi[w]) < 0.05) continue;
                const int px = periodic & DG_PERIODIC_X, py = periodic & DG_PERIODIC_Y,
                          pz = periodic & DG_PERIODIC_Z;
                const int xm = px ? periodic_shift(x, -1, nx) : x - 1,
                          xp = px ? periodic_shift(x, 1, nx) : x + 1;
                const int ym = py ? periodic_shift(y, -1, ny) : y - 1,
                          yp = py ? periodic_shift(y, 1, ny) : y + 1;
                const int zm = pz ? periodic_shift(z, -1, nz) : z - 1,
                          zp = pz ? periodic_shift(z, 1, nz) : z + 1;
                const double p = phi[w];
                const double sum = phi[idx3(nx, ny, xm, y, z)] + phi[idx3(nx, ny, xp, y, z)] +
                                   phi[idx3(nx, ny, x, ym, z)] + phi[idx3(nx, ny, x, yp, z)] +
                                   phi[idx3(nx, ny, x, y, zm)] + phi[idx3(nx, ny, x, y, zp)];
                const double ionic = kh2 * (exact ? sinh(p) : p + p * p * p / 6 + pow(p, 5) / 120);
                const double rel = fabs(sum - 6 * p - ionic) / fabs(ionic);
                worst = rel > worst ? rel : worst;
                *seam += (px && (x == 1 || x == nx - 2)) || (py && (y == 1 || y == ny - 2)) ||
                         (pz && (z == 1 || z == nz - 2));
            }
    return worst;
}

/* Newton's method with periodic axes (its inner SOR takes the seam steps): the highly charged
   sphere across the z faces (+20 e and -10 e, potentials of several kT/e in the salt) satisfies
   the discrete sinh equation at every checked salt point, those next to the seams included;
   the faces hold their images; shifting the medium along z shifts the potential; 1 and 2
   threads give the same bits; float agrees with double; with x, y and z periodic the same
   checks hold; and with DelPhi's polynomial Newton reaches the fixed point of DelPhi's scheme
   (newton_options: periodic_problem.h). */
static void charged_sphere(dense_problem *d, double cz, double times) {
    const int nx = 19, ny = 17, nz = 23;
    sphere_problem(d, nx, ny, nz, 9.2, 8.1, cz, 4.0);
    for (long i = 0; i < (long)nx * ny * nz; ++i)
        d->charge[i] *= times;
}

static void newton_periodic(int periodic) {
    const int nx = 19, ny = 17, nz = 23, s = 7;
    const long n = (long)nx * ny * nz;
    dense_problem a, b;
    charged_sphere(&a, 2.3, 20.0);
    charged_sphere(&b, 2.3 + s, 20.0);
    dg_options o = newton_options(periodic, DG_NONLINEAR_TERM_EXACT, 1e-8);
    dg_result ra, rb, r2, rf;
    double *pa = solve_dense(&a, &o, &ra), *pb = solve_dense(&b, &o, &rb);
    o.num_threads = 2;
    double *p2 = solve_dense(&a, &o, &r2);
    o.num_threads = 0;
    long seam = 0;
    const double residual = equation_residual(pa, &a, periodic, 2.0, 0.15, 1, &seam);
    long seam_poly = 0;
    const double poly = equation_residual(pa, &a, periodic, 2.0, 0.15, 0, &seam_poly);
    double worst = 0.0, top = 0.0, salt_top = 0.0;
    for (int z = 1; z < nz - 1; ++z)
        for (int y = 1; y < ny - 1; ++y)
            for (int x = 1; x < nx - 1; ++x) {
                const long w = idx3(nx, ny, x, y, z);
                const double va = pa[idx3(nx, ny, x, y, periodic_shift(z, -s, nz))];
                const double e = fabs(pb[w] - va);
                worst = e > worst ? e : worst;
                top = fabs(va) > top ? fabs(va) : top;
                if (a.ions[w] && fabs(pa[w]) > salt_top) salt_top = fabs(pa[w]);
            }
    const double gap = periodic_face_gap(pa, nx, ny, nz, periodic);
    /* float: the same solution to float's resolution */
    float *single = calloc((size_t)n, sizeof *single);
    dg_options of = newton_options(periodic, DG_NONLINEAR_TERM_EXACT, 1e-4);
    of.precision = DG_PRECISION_FLOAT;
    dg_solver sf = make_cpu_solver(&of);
    CHECK_OK(dg_set_dense_medium_d(sf, &a.medium), sf);
    CHECK_OK(dg_solve_f(sf, single, &rf), sf);
    dg_destroy(sf);
    double float_diff = 0.0;
    for (long i = 0; i < n; ++i)
        float_diff = fmax(float_diff, fabs((double)single[i] - pa[i]));
    printf("Newton, periodic %d: %s, %d sweeps in %d steps, max |phi| %.2f (salt %.2f kT/e), "
           "sinh residual %.2e (%ld points next to a seam), polynomial residual %.2e, faces - "
           "images %.1e, shifted %.2e, float %s (diff %.2e)\n",
           periodic, dg_outcome_string(ra.outcome), ra.iterations, ra.nonlinear_blocks, top,
           salt_top, residual, seam, poly, gap, worst / top, dg_outcome_string(rf.outcome),
           float_diff / top);
    CHECK(ra.outcome == DG_OUTCOME_CONVERGED && rb.outcome == DG_OUTCOME_CONVERGED &&
              ra.max_change <= 1e-8,
          "outcomes %s, %s (max change %.2e)", dg_outcome_string(ra.outcome),
          dg_outcome_string(rb.outcome), ra.max_change);
    CHECK(salt_top > 3.0, "the case is not highly nonlinear (%.2f kT/e in the salt)", salt_top);
    CHECK(seam > 100, "only %ld checked points next to a seam", seam);
    /* without the inner seam steps: 49 and 118 steps (each still converges, slowly) */
    CHECK(ra.nonlinear_blocks <= 40, "%d Newton steps", ra.nonlinear_blocks);
    CHECK(residual < 1e-6, "sinh equation residual %.2e", residual);
    CHECK(poly > 1e-2, "the residual check cannot tell sinh from its polynomial (%.2e)", poly);
    CHECK(gap == 0.0, "faces differ from their images by %.2e", gap);
    CHECK(worst < 1e-7 * top, "shifted potential differs by %.2e of %.2e", worst, top);
    CHECK(memcmp(pa, p2, (size_t)n * sizeof *pa) == 0 && r2.iterations == ra.iterations,
          "1 and 2 threads differ");
    CHECK(rf.outcome == DG_OUTCOME_CONVERGED || rf.outcome == DG_OUTCOME_FLOAT_RESOLUTION,
          "float: %s", dg_outcome_string(rf.outcome));
    CHECK(float_diff < 1e-4 * top, "float differs by %.2e of %.2e", float_diff, top);
    free(pa), free(pb), free(p2), free(single);
    dense_problem_free(&a), dense_problem_free(&b);
}

/* Mild charges, DelPhi's polynomial: Newton and DelPhi's scheme (a fixed relaxation, which
   reaches a tight criterion) converge to the same periodic potential. */
/* Gouy-Chapman (periodic_problem.h) by Newton on the CPU: max |phi - exact| / phi0. */
static double gouy_chapman_run(double scale, int valence, int term, int precision, double *phi0,
                               int *sweeps) {
    dense_problem d;
    gouy_chapman g;
    gouy_chapman_problem(&d, scale, valence, &g);
    dg_options o = newton_options(DG_PERIODIC_X | DG_PERIODIC_Y, term,
                                  precision == DG_PRECISION_FLOAT ? 1e-5 : 1e-9);
    o.precision = precision;
    double *phi = gouy_chapman_start(&g);
    dg_solver s = make_cpu_solver(&o);
    CHECK_OK(dg_set_dense_medium_d(s, &d.medium), s);
    dg_result r;
    CHECK_OK(dg_solve_d(s, phi, &r), s);
    dg_destroy(s);
    CHECK(r.outcome == DG_OUTCOME_CONVERGED, "Gouy-Chapman at scale %g: %s", scale,
          dg_outcome_string(r.outcome));
    const double e = gouy_chapman_error(&g, phi);
    *phi0 = g.phi0, *sweeps = r.iterations;
    free(phi);
    dense_problem_free(&d);
    return e;
}

/* The exact term converges to Gouy-Chapman at second order in h; DelPhi's polynomial and the
   linear equation solve other equations and stay away from it. */
static void gouy_chapman_cases(void) {
    double phi0 = 0.0, e[3];
    int sweeps[3];
    const double scales[3] = {1.0, 2.0, 4.0};
    for (int k = 0; k < 3; ++k)
        e[k] = gouy_chapman_run(scales[k], 1, DG_NONLINEAR_TERM_EXACT, DG_PRECISION_DOUBLE, &phi0,
                                &sweeps[k]);
    printf("Gouy-Chapman, phi0 %.4f kT/e, Newton (exact term), max |phi - exact| / phi0 at h = 1, "
           "0.5, 0.25 A: %.2e %.2e %.2e (%d, %d, %d sweeps)\n",
           phi0, e[0], e[1], e[2], sweeps[0], sweeps[1], sweeps[2]);
    CHECK(e[2] < 1.5e-3, "Gouy-Chapman at h = 0.25 A: relative error %.3e", e[2]);
    CHECK(e[0] / e[1] > 3.5 && e[1] / e[2] > 3.5,
          "Gouy-Chapman: not second order (%.3e, %.3e, %.3e)", e[0], e[1], e[2]);
    int n = 0;
    const double ef =
        gouy_chapman_run(4.0, 1, DG_NONLINEAR_TERM_EXACT, DG_PRECISION_FLOAT, &phi0, &n);
    const double ep =
        gouy_chapman_run(4.0, 1, DG_NONLINEAR_TERM_POLYNOMIAL, DG_PRECISION_DOUBLE, &phi0, &n);
    printf("Gouy-Chapman at h = 0.25 A: float %.2e, DelPhi's polynomial %.2e\n", ef, ep);
    CHECK(ef < 1.5e-3, "Gouy-Chapman in float: relative error %.3e", ef);
    CHECK(ep > 10.0 * e[2], "DelPhi's polynomial should not give Gouy-Chapman (%.3e)", ep);
    /* A 2:2 salt: the valence inside sinh and in the ionic strength.  In z phi and kappa's
       units it is the 1:1 plane with kappa h doubled, so its error is the 1:1 error at h = 0.5 A
       (the faces, 8 instead of 4 Debye lengths out, add nothing measurable). */
    double phi2 = 0.0;
    const double e2 =
        gouy_chapman_run(4.0, 2, DG_NONLINEAR_TERM_EXACT, DG_PRECISION_DOUBLE, &phi2, &n);
    printf("Gouy-Chapman in a 2:2 salt at h = 0.25 A: phi0 %.4f kT/e, %.2e (%d sweeps)\n", phi2, e2,
           n);
    CHECK(fabs(e2 - e[1]) < 0.05 * e[1] && fabs(phi2 - 0.5 * phi0) < 1e-12,
          "Gouy-Chapman in a 2:2 salt: phi0 %.6f, relative error %.3e (1:1 at 0.5 A: %.3e)", phi2,
          e2, e[1]);
}

static void newton_against_delphi_scheme(void) {
    dense_problem d;
    charged_sphere(&d, 2.3, 4.0);
    dg_options on = newton_options(DG_PERIODIC_Z, DG_NONLINEAR_TERM_POLYNOMIAL, 1e-10);
    dg_options od = on;
    od.nonlinear_method = DG_NONLINEAR_DELPHI, od.nonlinear_term = DG_NONLINEAR_TERM_AUTO;
    od.nonlinear_blocks = 400, od.relpar = 1.5;
    dg_result rn, rd;
    double *pn = solve_dense(&d, &on, &rn), *pd = solve_dense(&d, &od, &rd);
    double ref = 0.0;
    const long n = (long)d.nx * d.ny * d.nz;
    const double diff = max_abs_diff(pn, pd, n, &ref);
    printf("periodic z, polynomial: Newton %s (%d sweeps, %d steps), DelPhi's scheme %s (%d), "
           "max diff / max |phi| %.2e\n",
           dg_outcome_string(rn.outcome), rn.iterations, rn.nonlinear_blocks,
           dg_outcome_string(rd.outcome), rd.iterations, diff / ref);
    CHECK(rn.outcome == DG_OUTCOME_CONVERGED && rd.outcome == DG_OUTCOME_CONVERGED,
          "outcomes %s, %s", dg_outcome_string(rn.outcome), dg_outcome_string(rd.outcome));
    CHECK(diff / ref < 1e-7, "Newton and DelPhi's scheme differ by %.2e", diff / ref);
    CHECK(ref > 1.0, "the charges give a potential (%.3f)", ref);
    free(pn), free(pd);
    dense_problem_free(&d);
}

static void refusals(void) {
    struct {
        int periodic, solver, precision, nonlinear_newton, status;
        const char *word;
    } cases[] = {
        {8, DG_SOLVER_SOR, DG_PRECISION_DOUBLE, 0, DG_ERR_INVALID_ARGUMENT, "0..7"},
        {-1, DG_SOLVER_SOR, DG_PRECISION_DOUBLE, 0, DG_ERR_INVALID_ARGUMENT, "0..7"},
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
    newton_periodic(DG_PERIODIC_Z);
    newton_periodic(DG_PERIODIC_X | DG_PERIODIC_Y | DG_PERIODIC_Z);
    newton_against_delphi_scheme();
    gouy_chapman_cases();
    refusals();
    return test_finish("test_periodic");
}
