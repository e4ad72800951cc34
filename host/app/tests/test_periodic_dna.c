/* Nonlinear PB of a dense array of infinite DNA duplexes (the program): a B-DNA-like duplex of
 * 10 base pairs (-20 e: two phosphates of -1 e per base pair, rise 3.38 A, twist 36 degrees) in
 * a cell periodic in x, y and z of one helical turn (33.8 A), in 0.1 M salt, on 69^3 and 137^3
 * grids.  Newton's method converges with the exact and with DelPhi's polynomial ionic term, and
 * with the polynomial it meets DelPhi's scheme where that converges.  Before the floored inner
 * solves were tightened (newton.c) Newton's line search stalled on both grids: the constant mode
 * of a fully periodic cell converges slowly, and a step solved to the SOR's floor was no
 * descent direction. */
#include <math.h>

#include "app_test.h"

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
    free(p);
    CHECK_DONE();
}
