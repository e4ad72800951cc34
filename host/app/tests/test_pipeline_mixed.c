/* Mixed precision and float's resolution in the program, on the bundled protein (examples/1ubq,
 * 101^3, 0.15 M salt) with maxc 1e-5, below float's resolution (~2e-4 kT/e at the ~10^3 kT/e
 * charged points), on the CPU backend:
 *  - mixed converges in at most 1.1 x the double run's iterations and its energies agree with
 *    the double run's to 1e-7 relative (measured: the same 180 iterations, 1e-14);
 *  - float stops with "float resolution reached" (exit status 3, as not converged) instead of
 *    running to the iteration cap: within twice the double run's iterations. */
#include <math.h>
#include <string.h>

#include "app_test.h"

#ifndef EXAMPLES_DIR
#error "EXAMPLES_DIR must be defined"
#endif

int main(void) {
    pipeline *d = calloc(1, sizeof *d), *m = calloc(1, sizeof *m), *f = calloc(1, sizeof *f);
    const char *prm = EXAMPLES_DIR "/1ubq/run.prm";
    int st =
        run_program(d, 0, (char *)prm, "--quiet", "--backend", "cpu", "--maxc", "0.00001", NULL);
    CHECK(st == EXIT_OK && d->result && d->result->solve.outcome == DG_OUTCOME_CONVERGED);
    st = run_program(m, 0, (char *)prm, "--quiet", "--backend", "cpu", "--maxc", "0.00001",
                     "--precision", "mixed", "--json", "mixed.json", NULL);
    CHECK(st == EXIT_OK && m->result && m->result->solve.outcome == DG_OUTCOME_CONVERGED);
    CHECK(m->result && m->result->solve.precision == DG_PRECISION_MIXED);
    st = run_program(f, 0, (char *)prm, "--quiet", "--backend", "cpu", "--maxc", "0.00001",
                     "--precision", "float", "--json", "float.json", NULL);
    CHECK(st == EXIT_NOT_CONVERGED && f->result &&
          f->result->solve.outcome == DG_OUTCOME_FLOAT_RESOLUTION);
    const calc_result *rd = d->result, *rm = m->result, *rf = f->result;
    if (!rd || !rm || !rf) return 1;
    printf("iterations: double %d, mixed %d, float %d (%s)\n", rd->solve.iterations,
           rm->solve.iterations, rf->solve.iterations, dg_outcome_string(rf->solve.outcome));
    printf("grid energy: double %.9f, mixed %.9f kT; reaction field: double %.9f, mixed %.9f kT\n",
           rd->energy_grid, rm->energy_grid, rd->energy_reaction_field, rm->energy_reaction_field);
    CHECK(rm->solve.iterations <= 1.1 * rd->solve.iterations);
    CHECK_REL(rm->energy_grid, rd->energy_grid, 1e-7);
    CHECK_REL(rm->energy_reaction_field, rd->energy_reaction_field, 1e-7);
    CHECK(rf->solve.iterations < 2 * rd->solve.iterations);
    CHECK(file_exists("mixed.json") && file_exists("float.json"));
    pipeline_free(d), pipeline_free(m), pipeline_free(f);
    free(d), free(m), free(f);
    CHECK_DONE();
}
