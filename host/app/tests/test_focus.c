/* The program's focusing in one run (--coarse-perfil, --coarse-scale) on ubiquitin
 * (examples/1ubq):
 *  - the same energies as the two program runs it replaces, DelPhi's way: a coarse run on the
 *    coarse grid (gsize, scale and acenter as the focused run reported them) writing its
 *    phimap, then a bndcon=3 run reading it on the fine grid (within 1e-6 relative: the phimap
 *    keeps the potential, scale and centre in real*4);
 *  - the log's coarse-grid section and the JSON's focusing object (null without focusing) and
 *    timing_s.coarse;
 *  - with --binding on the HIV-1 protease dimer (regression/data/1hpv.pqr): each state's
 *    coarse solve in the log, the binding energy within 1 % of the one without focusing on a
 *    grid holding the dimer at 35 % (measured: 0.02 %);
 *  - refusals (exit 1, the option named, no output left): values out of range or not numbers,
 *    both options, bndcon=3, periodic axes, a coarse scale not below scale. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_test.h"
#include "io_settings.h"

#ifndef EXAMPLES_DIR
#error "EXAMPLES_DIR must be defined"
#endif
#ifndef REGRESSION_DATA_DIR
#error "REGRESSION_DATA_DIR must be defined"
#endif

#define UBQ   EXAMPLES_DIR "/1ubq/1ubq.pqr"
#define DIMER REGRESSION_DATA_DIR "/1hpv.pqr"

static int count_of(const char *text, const char *words) {
    int n = 0;
    for (const char *at = text; at && (at = strstr(at, words)) != NULL; at += strlen(words))
        ++n;
    return n;
}

static void same_as_two_runs(void) {
    pipeline p;
    int rc = run_program(&p, 0, "--pqr", UBQ, "--scale", "2", "--salt", "0.15", "--energy", "g,s,c",
                         "--maxc", "1e-6", "--backend", "cpu", "--precision", "double",
                         "--coarse-perfil", "20", "--json", "focus.json", "--log", "focus.log",
                         "--quiet", (char *)NULL);
    CHECK(rc == EXIT_OK, "exit %d: %s", rc, p.message);
    if (rc != EXIT_OK) {
        pipeline_free(&p);
        return;
    }
    const calc_result *r = p.result;
    const int n = r->grid.n;
    const double coarse_scale = r->coarse_grid.scale,
                 center[3] = {r->grid.center[0], r->grid.center[1], r->grid.center[2]};
    const double grid = r->energy_grid, rf = r->energy_reaction_field;
    const double coulombic = r->energy_coulombic;
    CHECK(r->coarse && r->coarse_grid.n == n && fabs(r->coarse_grid.perfil - 20.0) < 1e-9);
    CHECK(r->coarse_solve.outcome == DG_OUTCOME_CONVERGED && r->coarse_solve.iterations > 0);
    char *log = read_file("focus.log");
    CHECK(log && strstr(log, "coarse grid          : ") && strstr(log, "coarse solve:") &&
          strstr(log, "focusing in one run  : from a coarse grid at perfil 20") &&
          strstr(log, "focusing (from the coarse grid)") && strstr(log, "coarse grid "));
    free(log);
    char *json = read_file("focus.json");
    CHECK(json && strstr(json, "\"focusing\": {") &&
          strstr(json, "\"coarse_grid\": {\"size\": [") &&
          strstr(json, "\"boundary\": \"dipolar\"") && !strstr(json, "\"coarse\": null") &&
          strstr(json, "\"coarse_perfil\": 20") && strstr(json, "\"coarse_scale\": null"));
    free(json);
    pipeline_free(&p);

    /* DelPhi's two runs */
    char gsize[16], scale[40], acenter[128];
    snprintf(gsize, sizeof gsize, "%d", n);
    snprintf(scale, sizeof scale, "%.17g", coarse_scale);
    snprintf(acenter, sizeof acenter, "acenter(%.17g,%.17g,%.17g)", center[0], center[1],
             center[2]);
    rc = run_program(&p, 0, "--pqr", UBQ, "--gsize", gsize, "--scale", scale, "--set", acenter,
                     "--salt", "0.15", "--maxc", "1e-6", "--backend", "cpu", "--precision",
                     "double", "--bndcon", "2", "--phi", "coarse.phi", "--quiet", (char *)NULL);
    CHECK(rc == EXIT_OK, "coarse run: exit %d: %s", rc, p.message);
    pipeline_free(&p);
    rc = run_program(&p, 0, "--pqr", UBQ, "--gsize", gsize, "--scale", "2", "--set", acenter,
                     "--salt", "0.15", "--energy", "g,s,c", "--maxc", "1e-6", "--backend", "cpu",
                     "--precision", "double", "--bndcon", "3", "--phi-in", "coarse.phi", "--json",
                     "fine.json", "--quiet", (char *)NULL);
    CHECK(rc == EXIT_OK, "focused run: exit %d: %s", rc, p.message);
    if (rc == EXIT_OK) {
        printf("1ubq, %d^3 at scale 2 from scale %.4f: grid energy %.6f (two runs %.6f), "
               "reaction field %.6f (%.6f), coulombic %.6f (%.6f) kT\n",
               n, coarse_scale, grid, p.result->energy_grid, rf, p.result->energy_reaction_field,
               coulombic, p.result->energy_coulombic);
        CHECK(p.result->grid.n == n && !p.result->coarse);
        CHECK_REL(grid, p.result->energy_grid, 1e-6);
        CHECK_REL(rf, p.result->energy_reaction_field, 1e-6);
        CHECK(coulombic == p.result->energy_coulombic);
        json = read_file("fine.json");
        CHECK(json && strstr(json, "\"focusing\": null") && strstr(json, "\"coarse\": null"));
        free(json);
    }
    pipeline_free(&p);
}

/* A binding with each state focused from its own coarse solve. */
static void binding(void) {
    pipeline p;
    int rc = run_program(&p, 0, "--pqr", DIMER, "--scale", "1", "--perfil", "80", "--energy",
                         "g,s,c", "--maxc", "1e-6", "--backend", "cpu", "--binding", "A:B",
                         "--coarse-perfil", "20", "--log", "binding.log", "--json", "binding.json",
                         "--quiet", (char *)NULL);
    CHECK(rc == EXIT_OK, "exit %d: %s", rc, p.message);
    const double focused = p.binding.energy;
    const int n = p.result ? p.result->grid.n : 0;
    CHECK(p.binding.coarse_solve[0].iterations > 0 && p.binding.coarse_solve[1].iterations > 0);
    pipeline_free(&p);
    char *log = read_file("binding.log");
    CHECK(log && count_of(log, "coarse solve:") == 3, "%d coarse solves logged",
          count_of(log, "coarse solve:"));
    free(log);
    char *json = read_file("binding.json");
    CHECK(json && strstr(json, "\"focusing\": {") && strstr(json, "\"binding\": {"));
    free(json);
    rc = run_program(&p, 0, "--pqr", DIMER, "--scale", "1", "--perfil", "35", "--energy", "g,s,c",
                     "--maxc", "1e-6", "--backend", "cpu", "--binding", "A:B", "--quiet",
                     (char *)NULL);
    CHECK(rc == EXIT_OK, "exit %d: %s", rc, p.message);
    printf("1hpv A:B at scale 1: binding %.4f kT focused on %d^3, %.4f kT on %d^3 without\n",
           focused, n, p.binding.energy, p.result ? p.result->grid.n : 0);
    CHECK_REL(focused, p.binding.energy, 0.01);
    pipeline_free(&p);
}

/* A refused run: exit 1, no output left, and the message (the settings' checks', which the
 * program prints, or the calculation's). */
static void refused(const char *words, const char *a, const char *b, const char *c, const char *d) {
    pipeline p;
    remove("refused.json");
    const int rc = run_program(&p, 0, "--pqr", UBQ, "--scale", "1", "--backend", "cpu", "--json",
                               "refused.json", "--quiet", a, b, c, d, (char *)NULL);
    CHECK(rc == EXIT_BAD_INPUT, "%s %s: exit %d", a, b, rc);
    CHECK(!file_exists("refused.json"));
    char *argv[] = {"delphi-gpu", "--pqr",   UBQ,       "--scale", "1",
                    (char *)a,    (char *)b, (char *)c, (char *)d, NULL};
    int argc = 5;
    while (argv[argc])
        ++argc;
    run_settings s;
    io_notes notes;
    io_notes_clear(&notes);
    io_error err;
    int st = settings_load(&s, argc, argv, &notes, &err);
    if (st == IO_OK) st = settings_resolve(&s, &notes, &err);
    const char *message = st != IO_OK ? err.message : p.message;
    CHECK(strstr(message, words) != NULL, "'%s' not in: %s", words, message);
    pipeline_free(&p);
}

static void refusals(void) {
    refused("--coarse-perfil", "--coarse-perfil", "0", NULL, NULL);
    refused("--coarse-perfil", "--coarse-perfil", "100", NULL, NULL);
    refused("--coarse-perfil", "--coarse-perfil", "abc", NULL, NULL);
    refused("--coarse-scale", "--coarse-scale", "-0.5", NULL, NULL);
    refused("give one", "--coarse-scale", "0.3", "--coarse-perfil", "20");
    refused("bndcon=3 from a map", "--coarse-perfil", "20", "--bndcon", "3");
    refused("periodic", "--coarse-perfil", "20", "--periodic", "z");
    refused("not below scale 1", "--coarse-scale", "1", NULL, NULL);
    /* the grid's scale from gsize and perfil: the library's check, when the grids are placed */
    refused("coarse_perfil 90", "--coarse-perfil", "90", "--perfil", "85");
}

int main(void) {
    same_as_two_runs();
    binding();
    refusals();
    CHECK_DONE();
}
