/* The program on the bundled protein (examples/1ubq: 99^3 grid, 0.15 M salt, maxc 1e-4) with
 * --solver mg against --solver sor: the energies agree within 1e-6 relative and the site
 * potentials within 1e-4 kT/e (the SOR's own stopping change is 1e-4 kT/e). */
#include <math.h>
#include <string.h>

#include "app_test.h"

#ifndef EXAMPLES_DIR
#error "EXAMPLES_DIR must be defined"
#endif

int main(void) {
    pipeline *s = calloc(1, sizeof *s), *m = calloc(1, sizeof *m);
    const char *prm = EXAMPLES_DIR "/1ubq/run.prm";
    int st = run_program(s, 0, (char *)prm, "--quiet", "--backend", "cpu", "--solver", "sor",
                         "--json", "sor.json", NULL);
    CHECK(st == EXIT_OK);
    st = run_program(m, 0, (char *)prm, "--quiet", "--backend", "cpu", "--solver", "mg", "--json",
                     "mg.json", NULL);
    CHECK(st == EXIT_OK);
    const calc_result *a = s->result, *b = m->result;
    CHECK(a && b);
    if (!a || !b) return 1;
    CHECK(a->solve.outcome == DG_OUTCOME_CONVERGED && b->solve.outcome == DG_OUTCOME_CONVERGED);
    printf("SOR %d iterations %.3f s, MG %d cycles %.3f s\n", a->solve.iterations,
           a->solve.total_seconds, b->solve.iterations, b->solve.total_seconds);
    printf("grid energy: SOR %.6f, MG %.6f kT\n", a->energy_grid, b->energy_grid);
    printf("reaction field: SOR %.6f, MG %.6f kT\n", a->energy_reaction_field,
           b->energy_reaction_field);
    CHECK(b->solve.iterations < a->solve.iterations / 5);
    CHECK_REL(b->energy_grid, a->energy_grid, 1e-6);
    CHECK_REL(b->energy_reaction_field, a->energy_reaction_field, 1e-6);
    CHECK_REL(b->energy_coulombic, a->energy_coulombic, 1e-12);
    double site_diff = 0;
    CHECK(a->site_count == b->site_count);
    for (size_t i = 0; i < a->site_count && i < b->site_count; ++i)
        site_diff = fmax(site_diff, fabs(a->site_potential[i] - b->site_potential[i]));
    printf("largest site potential difference %.3g kT/e\n", site_diff);
    CHECK(site_diff < 1e-4);
    pipeline_free(s);
    pipeline_free(m);
    free(s), free(m);
    CHECK_DONE();
}
