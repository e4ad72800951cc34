/* Mixed precision (float sweeps on a correction of a double iterate, iterative refinement)
 * against double on the analytic problems of the other unit tests, and float's stop at its
 * resolution:
 *  - mixed reaches a max-change criterion far below float's resolution, in (nearly) the double
 *    run's iteration count, and its potential agrees with the double run's to the stopping
 *    tolerance (the two follow the same SOR iterates up to float rounding of the correction);
 *  - the grid energy (1/2 sum q phi) agrees to 1e-7 relative;
 *  - float with that criterion ends with DG_OUTCOME_FLOAT_RESOLUTION well before the cap;
 *  - a loose criterion stops mixed where it stops double (within one check interval). */
#include "test_util.h"

typedef enum { LINEAR, COULOMB, BORN, DEBYE_HUCKEL, NONLINEAR, CASE_COUNT } case_kind;
static const char *case_name[CASE_COUNT] = {"linear potential", "Coulomb", "Born sphere",
                                            "Debye-Hueckel", "nonlinear PB"};

static double linear(double x, double y, double z, const void *params) {
    (void)params;
    return 1.0 + 0.3 * x - 0.2 * y + 0.1 * z;
}

typedef struct run {
    int outcome, iterations;
    double energy, max_change;
    double *phi;
} run;

static run solve(case_kind kind, int precision, double maxc) {
    const int n = kind == LINEAR ? 25 : 41, c = n / 2;
    const double scale = 2.0;
    const long points = (long)n * n * n;
    dense_problem d;
    dense_problem_init(&d, n, n, n, scale, kind == LINEAR ? 4.0 : 80.0);
    point_source src = {c, c, c, 1.0, 80.0, scale, 0.0, 0.0};
    if (kind == BORN || kind == DEBYE_HUCKEL || kind == NONLINEAR)
        dense_problem_sphere(&d, c, c, c, 2.0 * scale, 2.0);
    if (kind == DEBYE_HUCKEL || kind == NONLINEAR) {
        dense_problem_salt(&d, c, c, c, 3.0 * scale, 0.15);
        src.kappa = debye_kappa(0.15, 80.0), src.exclusion = 3.0;
    }
    if (kind != LINEAR) d.charge[idx3(n, n, c, c, c)] = kind == NONLINEAR ? 3.0 : 1.0;
    src.charge = kind == NONLINEAR ? 3.0 : 1.0;
    dg_options o;
    dg_default_options(&o);
    o.precision = precision;
    o.max_change_tol = maxc;
    o.max_iterations = 4000;
    if (kind == NONLINEAR) /* fixed relaxation: stock's adaptive rules diverge at tiny changes */
        o.equation = DG_EQUATION_NONLINEAR_PB, o.nonlinear_blocks = 400, o.relpar = 1.5;
    dg_solver s = make_cpu_solver(&o);
    CHECK_OK(dg_set_dense_medium_d(s, &d.medium), s);
    run out = {0};
    out.phi = malloc(points * sizeof *out.phi);
    if (kind == LINEAR)
        set_faces(out.phi, n, n, n, linear, NULL);
    else
        set_faces(out.phi, n, n, n, point_potential, &src);
    dg_result r;
    CHECK_OK(dg_solve_d(s, out.phi, &r), s);
    out.outcome = r.outcome, out.iterations = r.iterations, out.max_change = r.max_change;
    for (long w = 0; w < points; ++w)
        out.energy += 0.5 * d.charge[w] * out.phi[w];
    dense_problem_free(&d);
    dg_destroy(s);
    return out;
}

int main(void) {
    const double maxc = 1e-9; /* far below float's resolution (potentials up to ~40 kT/e) */
    for (int k = 0; k < CASE_COUNT; ++k) {
        run dbl = solve(k, DG_PRECISION_DOUBLE, maxc);
        run mix = solve(k, DG_PRECISION_MIXED, maxc);
        run flt = solve(k, DG_PRECISION_FLOAT, maxc);
        const int n = k == LINEAR ? 25 : 41;
        double ref = 0.0, diff = max_abs_diff(mix.phi, dbl.phi, (long)n * n * n, &ref);
        double energy_rel =
            dbl.energy != 0.0 ? fabs(mix.energy - dbl.energy) / fabs(dbl.energy) : fabs(mix.energy);
        printf("%-16s iterations: double %5d, mixed %5d, float %5d (%s, max change %.2e); "
               "max |mixed - double| %.2e (max |phi| %.1f), energy rel. diff %.1e\n",
               case_name[k], dbl.iterations, mix.iterations, flt.iterations,
               dg_outcome_string(flt.outcome), flt.max_change, diff, ref, energy_rel);
        CHECK(dbl.outcome == DG_OUTCOME_CONVERGED, "%s: double %s", case_name[k],
              dg_outcome_string(dbl.outcome));
        CHECK(mix.outcome == DG_OUTCOME_CONVERGED, "%s: mixed %s", case_name[k],
              dg_outcome_string(mix.outcome));
        CHECK(mix.iterations <= 1.1 * dbl.iterations + 10, "%s: mixed %d vs double %d iterations",
              case_name[k], mix.iterations, dbl.iterations);
        /* Both stopped with a change <= 1e-9 per iteration; SOR's error is a few hundred
           times its last change here, so allow that. */
        CHECK(diff <= 1000 * maxc, "%s: max |mixed - double| = %.3e", case_name[k], diff);
        CHECK(energy_rel <= 1e-7, "%s: energy relative difference %.3e", case_name[k], energy_rel);
        /* DelPhi's nonlinear scheme ends after its blocks (here it meets the criterion with a
           change of exactly 0 once float stops moving); the floor test is the linear loop's. */
        if (k != NONLINEAR)
            CHECK(flt.outcome == DG_OUTCOME_FLOAT_RESOLUTION, "%s: float %s after %d iterations",
                  case_name[k], dg_outcome_string(flt.outcome), flt.iterations);
        /* ... and runs its blocks to the end when float cannot meet the criterion, as stock
           single-precision DelPhi does: only the linear loop is held to the early stop. */
        if (k != NONLINEAR)
            CHECK(flt.iterations < 3 * dbl.iterations, "%s: float ran %d iterations (double %d)",
                  case_name[k], flt.iterations, dbl.iterations);
        free(dbl.phi), free(mix.phi), free(flt.phi);
    }
    /* A loose criterion: refinement runs from the first iteration, so mixed follows double's
       iterates from the start and stops at the same check (within one check interval), with
       the double iterate's answer. */
    const double loose = 1e-2;
    run dbl = solve(BORN, DG_PRECISION_DOUBLE, loose), mix = solve(BORN, DG_PRECISION_MIXED, loose);
    const int n = 41;
    double ref = 0.0, diff = max_abs_diff(mix.phi, dbl.phi, (long)n * n * n, &ref);
    printf("Born sphere, maxc %.0e: double %d, mixed %d iterations (%s), max |mixed - double| "
           "%.2e\n",
           loose, dbl.iterations, mix.iterations, dg_outcome_string(mix.outcome), diff);
    CHECK(mix.outcome == DG_OUTCOME_CONVERGED, "loose criterion: mixed %s",
          dg_outcome_string(mix.outcome));
    CHECK(abs(mix.iterations - dbl.iterations) <= 10,
          "loose criterion: mixed %d vs double %d iterations", mix.iterations, dbl.iterations);
    CHECK(diff <= 1000 * loose, "loose criterion: max |mixed - double| = %.3e", diff);
    free(dbl.phi), free(mix.phi);
    return test_finish("test_mixed_precision");
}
