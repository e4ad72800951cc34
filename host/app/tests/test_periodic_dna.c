/* Nonlinear PB along periodic axes (the program).  A dense array of infinite DNA duplexes: a
 * B-DNA-like duplex of 10 base pairs (-20 e: two phosphates of -1 e per base pair, rise 3.38 A,
 * twist 36 degrees) in a cell periodic in x, y and z of one helical turn (33.8 A), in 0.1 M salt,
 * on 69^3 and 137^3 grids.  Newton's method converges with the exact and with DelPhi's polynomial
 * ionic term, and with the polynomial it meets DelPhi's scheme where that converges.  Before the
 * floored inner solves were tightened (newton.c) Newton's line search stalled on both grids: the
 * constant mode of a fully periodic cell converges slowly, and a step solved to the SOR's floor was
 * no descent direction. */
#include <math.h>
#include "app_test.h"

/* The cylindrical cell model of a charged rod (the continuum limit of the rod below): line
 * charge lambda (e/A) on the axis, no ions closer than b (A), 1:1 salt of inverse Debye length
 * kappa beyond, permittivity eps_out there.  The reduced potential psi (kT/e) solves
 * (1/r) (r psi')' = kappa^2 sinh(psi) (or kappa^2 psi linearised) for r >= b, with Gauss's law
 * psi'(b) = -2 epkt lambda / (eps_out b) and psi = 0 at b + 25 Debye lengths; second-order
 * finite differences on a 0.005 A mesh, Newton's method with a tridiagonal solve.  Returns
 * psi(b); *ionic gets the ionic free energy per A, c int [psi sinh psi - 2 (cosh psi - 1)]
 * 2 pi r dr with c = kappa^2 eps_out / (8 pi epkt) ions of each sign per A^3 (0 linearised).
 * nonlinear: 0 linearised, 1 sinh, 2 DelPhi's polynomial (sinh to psi^5, its energy terms
 * likewise: psi S(psi) - 2 (psi^2/2 + psi^4/24 + psi^6/720)). */
static double rod_cell(double lambda, double b, double kappa, double eps_out, double epkt,
                       int nonlinear, double *ionic) {
    const double extent = b + 25.0 / kappa;
    const int n = (int)ceil((extent - b) / 0.005) + 1;
    const double h = (extent - b) / (n - 1), k2 = kappa * kappa;
    const double slope = -2.0 * lambda * epkt / (eps_out * b);
    double *psi = calloc((size_t)n, sizeof *psi), *lo = calloc((size_t)n, sizeof *lo);
    double *di = calloc((size_t)n, sizeof *di), *up = calloc((size_t)n, sizeof *up);
    double *rhs = calloc((size_t)n, sizeof *rhs), *c = calloc((size_t)n, sizeof *c);
    CHECK(psi && lo && di && up && rhs && c);
    for (int iteration = 0; psi && lo && di && up && rhs && c && iteration < 100; ++iteration) {
        for (int i = 0; i < n; ++i) {
            lo[i] = up[i] = 0.0;
            if (i == n - 1) { /* psi = 0 far out */
                di[i] = 1.0, rhs[i] = -psi[i];
                continue;
            }
            const double r = b + i * h, rp = r + 0.5 * h, rm = r - 0.5 * h, p = psi[i];
            const double f = nonlinear == 1   ? k2 * sinh(p)
                             : nonlinear == 2 ? k2 * (p + p * p * p / 6 + pow(p, 5) / 120)
                                              : k2 * p;
            const double df = nonlinear == 1   ? k2 * cosh(p)
                              : nonlinear == 2 ? k2 * (1 + p * p / 2 + pow(p, 4) / 24)
                                               : k2;
            /* at b the ghost point psi[-1] = psi[1] - 2 h psi'(b) */
            const double left = i == 0 ? psi[1] - 2.0 * h * slope : psi[i - 1];
            rhs[i] = -((rp * (psi[i + 1] - p) - rm * (p - left)) / (h * h * r) - f);
            di[i] = -(rp + rm) / (h * h * r) - df;
            up[i] = (i == 0 ? rp + rm : rp) / (h * h * r);
            lo[i] = i == 0 ? 0.0 : rm / (h * h * r);
        }
        c[0] = up[0] / di[0], rhs[0] /= di[0]; /* Thomas algorithm, in place */
        for (int i = 1; i < n; ++i) {
            const double m = di[i] - lo[i] * c[i - 1];
            c[i] = up[i] / m;
            rhs[i] = (rhs[i] - lo[i] * rhs[i - 1]) / m;
        }
        double most = fabs(rhs[n - 1]);
        psi[n - 1] += rhs[n - 1];
        for (int i = n - 2; i >= 0; --i) {
            rhs[i] -= c[i] * rhs[i + 1];
            psi[i] += rhs[i];
            most = fmax(most, fabs(rhs[i]));
        }
        if (most < 1e-12) break;
    }
    double integral = 0.0;
    for (int i = 0; psi && nonlinear && i < n; ++i) {
        const double p = psi[i], w = i == 0 || i == n - 1 ? 0.5 : 1.0;
        const double term = nonlinear == 1
                                ? p * sinh(p) - 2.0 * (cosh(p) - 1.0)
                                : p * (p + p * p * p / 6 + pow(p, 5) / 120) -
                                      2.0 * (p * p / 2 + pow(p, 4) / 24 + pow(p, 6) / 720);
        integral += w * term * (b + i * h) * h;
    }
    *ionic = k2 * eps_out / (8.0 * 3.14159265358979 * epkt) * 2.0 * 3.14159265358979 * integral;
    const double at_b = psi ? psi[0] : NAN;
    free(psi), free(lo), free(di), free(up), free(rhs), free(c);
    return at_b;
}

/* The nonlinear effect (kT) of the cell model over a length L: 1/2 Q (psi_nl(b) - psi_lin(b))
   + L x the ionic term (inside b the potential is the line charge's plus a constant, fixed by
   psi(b), so the charges' energy changes by that much). */
static double rod_effect(double lambda, double length, double b, double kappa, double epkt,
                         int model) {
    double ionic = 0.0, none = 0.0;
    const double nl = rod_cell(lambda, b, kappa, 80.0, epkt, model, &ionic);
    const double lin = rod_cell(lambda, b, kappa, 80.0, epkt, 0, &none);
    return 0.5 * lambda * length * (nl - lin) + ionic * length;
}

static void write_dna(const char *path) {
    const double degree = 3.14159265358979 / 180.0;
    FILE *dna = fopen(path, "w");
    CHECK(dna != NULL);
    for (int k = 0, serial = 1; dna && k < 10; ++k) {
        const double z = (k - 4.5) * 3.38, turn = 36.0 * degree * k;
        for (int a = 0; a < 6; ++a) { /* two phosphates, then neutral atoms filling the core */
            static const double radius[6] = {8.9, 8.9, 0.0, 3.5, 6.0, 6.0};
            const double offset[6] = {0.0, 155.0 * degree, 0.0, 0.8, 2.4, 4.0};
            fprintf(dna, "ATOM  %5d %-4s DNA A%4d    %8.3f%8.3f%8.3f %7.4f %6.4f\n", serial++,
                    a < 2 ? "P" : "C", k + 1, radius[a] * cos(turn + offset[a]),
                    radius[a] * sin(turn + offset[a]), z, a < 2 ? -1.0 : 0.0, 1.9);
        }
    }
    if (dna) fclose(dna);
}

/* The grid energy of one run (NAN when it did not converge); steps gets Newton's steps. */
static double run_dna(pipeline *p, const char *gsize, const char *scale, const char *method,
                      int *steps) {
    CHECK(run_program(p, 0, "--pqr", "dna.pqr", "--gsize", gsize, "--scale", scale, "--set",
                      "acenter(0,0,0)", "--periodic", "xyz", "--salt", "0.1", "--nonit", "100",
                      "--indi", "2", "--maxc", "1e-5", "--nonlinear", method, "--quiet",
                      NULL) == EXIT_OK,
          "dna, %s grid, %s: %s", gsize, method, p->message);
    double energy = NAN;
    if (p->result && p->result->solve.outcome == DG_OUTCOME_CONVERGED)
        energy = p->result->energy_grid;
    *steps = p->result ? p->result->solve.nonlinear_blocks : -1;
    printf("%s^3, %-17s: %s, %d iterations, %d steps or blocks, grid energy %.6f kT\n", gsize,
           method, p->result ? dg_outcome_string(p->result->solve.outcome) : "-",
           p->result ? p->result->solve.iterations : -1, *steps, energy);
    pipeline_free(p);
    return energy;
}

int main(void) {
    pipeline *p = calloc(1, sizeof *p);
    write_dna("dna.pqr");
    int steps = 0;
    /* 69^3 (one period of 67 spacings): all three converge */
    const double exact = run_dna(p, "69", "1.98225", "newton", &steps);
    CHECK(!isnan(exact) && steps <= 20, "69^3: Newton, %d steps", steps);
    const double poly = run_dna(p, "69", "1.98225", "newton-polynomial", &steps);
    CHECK(!isnan(poly) && steps <= 20, "69^3: Newton on the polynomial, %d steps", steps);
    const double scheme = run_dna(p, "69", "1.98225", "delphi", &steps);
    /* measured: 7034.759697 and 7034.759542 kT; the exact sinh 7034.032254 kT */
    CHECK(fabs(poly - scheme) <= 1e-7 * fabs(scheme), "polynomial %.6f, DelPhi's scheme %.6f", poly,
          scheme);
    CHECK(fabs(exact - poly) > 0.1, "sinh %.6f and its polynomial %.6f", exact, poly);
    /* 137^3 (135 spacings): Newton on the polynomial stalled here after its forcing term had
       become small; DelPhi's scheme does not converge in 100 blocks */
    const double fine = run_dna(p, "137", "3.99408", "newton-polynomial", &steps);
    CHECK(!isnan(fine) && steps <= 20, "137^3: Newton on the polynomial, %d steps", steps);

    /* A charged rod (a DNA's cylinder, -0.59 e/A) against the cell model: 50 atoms of radius 3 A
       and -0.5605 e each on the z axis, 0.95 A apart, one period of 47.5 A (97^3 at scale 2,
       z periodic, zero x and y faces 24 A out, 5.5 Debye lengths at 0.5 M); ions kept beyond
       b = 3 + 2 (ionrad) A.  The nonlinear effect, (grid energy + ionic terms) by Newton's method
       minus the linear run's grid energy, against the cell model's, within a quarter of how much
       moving b by half a grid spacing changes it (measured: -14.046 against -13.818 kT; DelPhi's
       polynomial -13.783 against its own cell model's -13.558). */
    const double length = 47.5, lambda = -0.59, spacing = 0.5;
    FILE *rod = fopen("rod.pqr", "w");
    CHECK(rod != NULL);
    for (int k = 0; rod && k < 50; ++k)
        fprintf(rod, "ATOM  %5d  C   ROD A%4d    %8.3f%8.3f%8.3f %7.4f %6.4f\n", k + 1, k + 1, 0.0,
                0.0, (k + 0.5) * length / 50 - 0.5 * length, lambda * length / 50, 3.0);
    if (rod) fclose(rod);
    double energy[3] = {NAN, NAN, NAN}, ionic = NAN;
    const char *rod_methods[3] = {"linear", "newton", "newton-polynomial"};
    const double epkt = 166804.4928 / 297.3342; /* at the default temperature, as run */
    double kappa = NAN;
    for (int k = 0; k < 3; ++k) {
        CHECK(run_program(p, 0, "--pqr", "rod.pqr", "--gsize", "97", "--scale", "2", "--set",
                          "acenter(0,0,0)", "--periodic", "z", "--salt", "0.5", "--bndcon", "1",
                          "--indi", "2", "--exdi", "80", "--ionrad", "2", "--maxc", "1e-6",
                          "--energy", "g,ion", "--nonit", k ? "50" : "0", "--nonlinear",
                          k ? rod_methods[k] : "newton", "--quiet", NULL) == EXIT_OK,
              "rod, %s: %s", rod_methods[k], p->message);
        if (p->result && p->result->solve.outcome == DG_OUTCOME_CONVERGED) {
            energy[k] = p->result->energy_grid + (k ? p->result->ionic.total : 0.0);
            if (k == 1) ionic = p->result->ionic.total;
            kappa = 1.0 / p->result->salt.debye_length;
        }
        pipeline_free(p);
    }
    const double reference = rod_effect(lambda, length, 5.0, kappa, epkt, 1);
    const double inner = rod_effect(lambda, length, 5.0 - 0.5 * spacing, kappa, epkt, 1);
    const double outer = rod_effect(lambda, length, 5.0 + 0.5 * spacing, kappa, epkt, 1);
    const double tolerance = 0.25 * fabs(inner - outer);
    const double poly_reference = rod_effect(lambda, length, 5.0, kappa, epkt, 2);
    printf("rod: nonlinear effect %.4f kT (ionic terms %.4f), DelPhi's polynomial %.4f; cell "
           "model %.4f kT (b -/+ h/2: %.4f, %.4f), tolerance %.4f; polynomial cell model %.4f\n",
           energy[1] - energy[0], ionic, energy[2] - energy[0], reference, inner, outer, tolerance,
           poly_reference);
    CHECK(fabs(energy[1] - energy[0] - reference) <= tolerance,
          "rod: nonlinear effect %.4f kT, cell model %.4f +- %.4f", energy[1] - energy[0],
          reference, tolerance);
    CHECK(fabs(energy[2] - energy[0] - poly_reference) <= tolerance,
          "rod: DelPhi's polynomial's effect %.4f kT, its cell model %.4f +- %.4f",
          energy[2] - energy[0], poly_reference, tolerance);
    /* The two equations' difference, where the grid's error cancels: the runs' against the
       models' (the polynomial's energy terms are its own equation's; with the Boltzmann ones
       the polynomial run's effect was -12.73 kT instead of -13.62). */
    const double runs = energy[1] - energy[2], models = reference - poly_reference;
    CHECK(fabs(runs - models) <= 0.25 * fabs(models), "rod: sinh - polynomial %.4f kT, models %.4f",
          runs, models);

    /* The same rod by multigrid (--solver mg, the cpu backend: its levels wrap the periodic z;
       Newton's steps by multigrid): the SOR's energies, linear and nonlinear. */
    for (int k = 0; k < 2; ++k) {
        CHECK(run_program(p, 0, "--pqr", "rod.pqr", "--gsize", "97", "--scale", "2", "--set",
                          "acenter(0,0,0)", "--periodic", "z", "--salt", "0.5", "--bndcon", "1",
                          "--indi", "2", "--exdi", "80", "--ionrad", "2", "--maxc", "1e-6",
                          "--energy", "g,ion", "--nonit", k ? "50" : "0", "--nonlinear", "newton",
                          "--solver", "mg", "--backend", "cpu", "--quiet", NULL) == EXIT_OK,
              "rod by multigrid, %s: %s", rod_methods[k], p->message);
        double mg = NAN;
        if (p->result && p->result->solve.outcome == DG_OUTCOME_CONVERGED &&
            p->result->solve.solver == DG_SOLVER_MULTIGRID)
            mg = p->result->energy_grid + (k ? p->result->ionic.total : 0.0);
        printf("rod by multigrid, %s: %s, %d cycles, energy %.6f kT (SOR %.6f, %.1e relative)\n",
               rod_methods[k], p->result ? dg_outcome_string(p->result->solve.outcome) : "-",
               p->result ? p->result->solve.iterations : -1, mg, energy[k],
               fabs(mg - energy[k]) / fabs(energy[k]));
        CHECK(fabs(mg - energy[k]) <= 1e-6 * fabs(energy[k]),
              "rod by multigrid, %s: %.6f, SOR %.6f", rod_methods[k], mg, energy[k]);
        pipeline_free(p);
    }
    free(p);
    CHECK_DONE();
}
