/* The program against an exact nonlinear solution: a plane of charge in salt (Gouy-Chapman).
 * 79 x 79 point charges of 0.0172 e, 1 A apart on the plane z = 0 (0.0172 e/A^2), one on every
 * grid point of the plane of an 81^3 grid at 1 point/A whose x and y are periodic (a period of
 * 79 A: the plane is infinite); permittivity 80 everywhere (indi = exdi, atoms of radius 0, no
 * probe, no ion radius: ions everywhere), 0.1 M 1:1 salt, z faces 40 A out with Coulombic
 * boundary values.  The potential at sites on the z axis, from the plane to 24 A out, is
 * compared with the exact solution of phi'' = kappa^2 sinh(phi):
 * phi(d) = 4 artanh(tanh(phi0 / 4) exp(-kappa d)), phi0 = 2 asinh(pi epkt sigma / (eps kappa)).
 * The library's test (test_periodic) measured 1.34e-2 of phi0 for this discretisation at 1 A; the
 * program adds its charge assignment, its ion map, its sites' interpolation and the z faces'
 * boundary values (those of the finite patch, not of the infinite plane: 24 A from the plane they
 * move the potential by less than 1e-2 kT/e), and gives 1.34e-2 too (4.0269 kT/e exact at the
 * plane, 3.9731 on the grid).  Linear PB, which gives phi0 = 7.35 kT/e, must fail the check, and
 * meet the linear equation's own exact plane, (2 pi epkt sigma / (eps kappa)) exp(-kappa d), which
 * Newton's answer must not. */
#include <math.h>
#include <string.h>

#include "app_test.h"

static const double sigma = 0.0172, eps = 80.0, pi = 3.14159265358979323846;

static void write_inputs(void) {
    FILE *plane = fopen("plane.pqr", "w");
    CHECK(plane != NULL);
    for (int i = 0, serial = 1; plane && i < 79; ++i)
        for (int j = 0; j < 79; ++j, ++serial)
            fprintf(plane, "ATOM  %5d  Q   PLN A%4d    %8.3f%8.3f%8.3f %7.4f %6.4f\n",
                    serial % 100000, 1 + (serial / 100) % 10000, (double)(i - 39), (double)(j - 39),
                    0.0, sigma, 0.0);
    if (plane) fclose(plane);
    FILE *sites = fopen("sites.pdb", "w");
    CHECK(sites != NULL);
    for (int k = 0; sites && k <= 12; ++k)
        fprintf(sites, "ATOM  %5d  S   SIT B%4d    %8.3f%8.3f%8.3f  1.00  0.00\n", k + 1, k + 1,
                0.0, 0.0, 2.0 * k);
    if (sites) fclose(sites);
}

/* The max distance from the exact nonlinear profile at the 13 sites, relative to phi0 (NAN when
   the run failed); the run's Debye length gives kappa.  *linear_error gets the distance from the
   linear equation's exact profile (2 pi epkt sigma / (eps kappa)) exp(-kappa d), relative to its
   value at the plane. */
static double run_plane(pipeline *p, int nonlinear, double *phi0_out, double *linear_error) {
    const int status = run_program(
        p, 0, "--pqr", "plane.pqr", "--gsize", "81", "--scale", "1", "--set", "acenter(0,0,0)",
        "--periodic", "xy", "--salt", "0.1", "--indi", "80", "--exdi", "80", "--prbrad", "0",
        "--ionrad", "0", "--bndcon", "4", "--maxc", "1e-7", "--nonit", nonlinear ? "50" : "0",
        "--set", "in(frc,file=\"sites.pdb\")", "--frc", nonlinear ? "nl.frc" : "lin.frc",
        "--frc-format", "table", "--quiet", NULL);
    CHECK(status == EXIT_OK, "%s plane: exit %d, %s", nonlinear ? "nonlinear" : "linear", status,
          p->message);
    if (status != EXIT_OK || !p->result) return NAN;
    CHECK(p->result->solve.outcome == DG_OUTCOME_CONVERGED);
    const double epkt = 166804.4928 / 297.3342, kappa = 1.0 / p->result->salt.debye_length;
    const double phi0 = 2.0 * asinh(pi * epkt * sigma / (eps * kappa)), gamma = tanh(phi0 / 4.0);
    const double linear0 = 2.0 * pi * epkt * sigma / (eps * kappa);
    double worst_linear = 0.0;
    *phi0_out = phi0;
    char *frc = read_file(nonlinear ? "nl.frc" : "lin.frc");
    CHECK(frc != NULL);
    double worst = 0.0;
    int sites = 0;
    for (char *line = frc; line && *line;) {
        char *end = strchr(line, '\n');
        if (end) *end = '\0';
        double v[5];
        if (strncmp(line, "ATOM", 4) == 0 && frc_numbers(line, v, 5) == 5) {
            const double u = gamma * exp(-kappa * fabs(v[2]));
            const double exact = 2.0 * log((1.0 + u) / (1.0 - u));
            worst = fmax(worst, fabs(v[4] - exact));
            worst_linear = fmax(worst_linear, fabs(v[4] - linear0 * exp(-kappa * fabs(v[2]))));
            if (nonlinear && (sites == 0 || sites == 12))
                printf("  site at %4.1f A: %.5f kT/e, exact %.5f\n", v[2], v[4], exact);
            ++sites;
        }
        line = end ? end + 1 : NULL;
    }
    CHECK(sites == 13, "%d sites in the frc file", sites);
    free(frc);
    *linear_error = worst_linear / linear0;
    printf("%s: %s, %d iterations (%d steps), max |phi - exact| at the sites %.4f kT/e = %.2e of "
           "phi0 %.4f; from the linear equation's %.2e of its %.4f\n",
           nonlinear ? "Newton (exact sinh)" : "linear PB",
           dg_outcome_string(p->result->solve.outcome), p->result->solve.iterations,
           p->result->solve.nonlinear_blocks, worst, worst / phi0, phi0, worst_linear / linear0,
           linear0);
    pipeline_free(p);
    return worst / phi0;
}

int main(void) {
    pipeline *p = calloc(1, sizeof *p);
    write_inputs();
    double phi0 = 0.0, nl_from_linear = 0.0, linear_from_linear = 0.0;
    const double nonlinear = run_plane(p, 1, &phi0, &nl_from_linear);
    /* measured: 1.34e-2, the library's figure for this discretisation */
    CHECK(nonlinear < 0.016, "Gouy-Chapman through the program: %.3e of phi0", nonlinear);
    const double linear = run_plane(p, 0, &phi0, &linear_from_linear);
    CHECK(linear > 0.1, "linear PB should not give Gouy-Chapman (%.3e of phi0)", linear);
    /* and linear PB gives the linear equation's plane (measured: 1.48e-3 of its 7.3556 kT/e) */
    CHECK(linear_from_linear < 3e-3 && nl_from_linear > 0.1,
          "the linear plane: linear PB %.3e, Newton %.3e of its potential", linear_from_linear,
          nl_from_linear);
    free(p);
    CHECK_DONE();
}
