/* DelPhi's nonlinear scheme in the program (--nonlinear delphi) on a weakly nonlinear case: a
 * +1 e sphere of radius 2 A (eps 2/80, 0.15 M, ion radius 2 A, 97^3 at 2 points/A, maxc 1e-4),
 * whose nonlinear effect on the energy (grid energy plus the ionic terms, minus the linear
 * run's grid energy) is about -3e-3 kT.
 *  - the scheme converges, and its nonlinear energy agrees with Newton's on DelPhi's polynomial
 *    (the same fixed point, converged to maxc 1e-8) to a tenth of the nonlinear effect;
 *  - stock nitit's relaxation rules cut relpar, and with it the SOR's omega, to 0.23 while the
 *    nonlinear source is being switched on, and then met maxc 1e-4 with the energy 2.7e-3 kT
 *    off (measured; an effect of -2.5e-4 kT instead of -3.0e-3). */
#include <math.h>
#include <stdio.h>

#include "app_test.h"

/* The arguments every run shares (run_program takes a NULL-terminated list). */
#define SPHERE_RUN                                                                                 \
    "--pqr", "q1.pqr", "--gsize", "97", "--scale", "2.0", "--indi", "2.0", "--exdi", "80.0",       \
        "--prbrad", "1.4", "--ionrad", "2.0", "--salt", "0.15", "--bndcon", "2", "--surface",      \
        "molecular", "--backend", "cpu", "--precision", "double", "--solver", "sor", "--energy",   \
        "g,ion", "--quiet"

/* The run's result once it exited 0, else NULL (a failed check). */
static const calc_result *ran(const pipeline *p, int status, const char *what) {
    CHECK(status == EXIT_OK, "%s: exit status %d", what, status);
    return status == EXIT_OK ? p->result : NULL;
}

int main(void) {
    FILE *f = fopen("q1.pqr", "w");
    CHECK(f != NULL);
    if (!f) return 1;
    fprintf(f, "ATOM      1  X   SPH     1       0.000   0.000   0.000  1.0000 2.0000\nEND\n");
    fclose(f);
    pipeline *lin = calloc(1, sizeof *lin), *nl = calloc(1, sizeof *nl),
             *ref = calloc(1, sizeof *ref);
    const calc_result *rl =
        ran(lin, run_program(lin, 0, SPHERE_RUN, "--maxc", "0.0001", NULL), "linear");
    const calc_result *rn = ran(nl,
                                run_program(nl, 0, SPHERE_RUN, "--maxc", "0.0001", "--nonit", "50",
                                            "--nonlinear", "delphi", NULL),
                                "DelPhi's scheme");
    const calc_result *rr = ran(ref,
                                run_program(ref, 0, SPHERE_RUN, "--maxc", "1e-8", "--nonit", "50",
                                            "--nonlinear", "newton-polynomial", NULL),
                                "Newton");
    if (rl && rn && rr) {
        CHECK(rn->solve.outcome == DG_OUTCOME_CONVERGED && rr->ionic_computed &&
              rn->ionic_computed);
        const double e_lin = rl->energy_grid, e_ref = rr->energy_grid + rr->ionic.total,
                     e_nl = rn->energy_grid + rn->ionic.total;
        printf("DelPhi's scheme: %d sweeps (%d blocks), final relpar %.3f; nonlinear effect %.6f "
               "kT against Newton's %.6f kT\n",
               rn->solve.iterations, rn->solve.nonlinear_blocks, rn->solve.final_relpar,
               e_nl - e_lin, e_ref - e_lin);
        CHECK(e_ref - e_lin < -1e-3 && e_ref - e_lin > -1e-2, "Newton's nonlinear effect %.6f kT",
              e_ref - e_lin);
        CHECK(fabs(e_nl - e_ref) < 0.1 * fabs(e_ref - e_lin),
              "DelPhi's scheme is %.2e kT off Newton's fixed point (effect %.2e kT)", e_nl - e_ref,
              e_ref - e_lin);
    }
    /* A tight maxc: after the criteria are met at a relpar below the linear optimum (where they
       are scaled down), the max change stays tiny and the adaptive rules raise relpar by 1.2 per
       block; without a ceiling omega passed 2 and the sweeps diverged (1ubq at maxc 1e-7). Now
       omega stops at the linear optimum, and the run converges to Newton's fixed point. */
    pipeline *tight = calloc(1, sizeof *tight);
    const calc_result *rt = ran(tight,
                                run_program(tight, 0, SPHERE_RUN, "--maxc", "1e-7", "--nonit", "50",
                                            "--nonlinear", "delphi", NULL),
                                "DelPhi's scheme at maxc 1e-7");
    if (rt && rr) {
        CHECK(rt->solve.outcome == DG_OUTCOME_CONVERGED);
        CHECK(rt->solve.final_relpar <= rt->solve.omega + 1e-12, "final relpar %.4f, omega %.4f",
              rt->solve.final_relpar, rt->solve.omega);
        const double e_t = rt->energy_grid + rt->ionic.total,
                     e_ref = rr->energy_grid + rr->ionic.total;
        CHECK(fabs(e_t - e_ref) < 1e-6 * fabs(e_ref), "%.9f against Newton's %.9f kT", e_t, e_ref);
    }
    pipeline_free(tight);
    free(tight);
    pipeline_free(lin), pipeline_free(nl), pipeline_free(ref);
    free(lin), free(nl), free(ref);
    CHECK_DONE();
}
