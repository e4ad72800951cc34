/* The program's --binding on the HIV-1 protease dimer (regression/data/1hpv.pqr, chains A and
 * B).
 *
 * Against stock DelPhi: DelPhi v4 (the 2010 release, built with gfortran -fdefault-real-8:
 * double precision) ran the complex and each chain alone with gsize=163, scale=2.0, indi=2,
 * exdi=80, prbrad=1.4, bndcon=2, maxc=1e-5 and energy(g,s,c), on the atoms of this PQR written
 * as DelPhi's PDB format 4 (our out(modpdb4)); each chain's file had two more atoms, of charge
 * and radius 0, at the corners of the dimer's box, so that DelPhi centred its grid on the
 * dimer's box (12.251 21.462 8.7545 A) as our binding run does for all three.  Its logs gave:
 *   dimer:   total grid energy 102264.75312949104, corrected reaction field -1536.5584516438898,
 *            coulombic -47724.691853814751 kt
 *   chain A: 51051.535366651719, -902.37889945002064, -23769.167392272517 kt
 *   chain B: 51126.609003930724, -944.11428100085300, -23707.637342191993 kt
 * so its binding by grid energies is 86.6088 kT and by Coulombic + corrected reaction field
 * 62.0476 kT.  Ours were 86.5724 and 62.0178 kT; tolerances 0.15 and 0.1 kT (each state's
 * surface differs from DelPhi's at a few boundary points, see host/README.md), the Coulombic
 * difference to 1e-6 relative.
 *
 * Then, at scale 1 (81^3): each partner's energies are those of a separate run of that chain
 * alone on the same grid (gsize and acenter given), the residues' parts of --binding-residues
 * (one line per residue, summing to the binding energy), and the refusals: a malformed
 * selection, a chain with no atoms, an atom in neither partner (its file line named), the
 * HETATM records of a file without any, focusing, --binding-residues without --binding or
 * naming an input; a refused run leaves no output; the partners of a file with a HETATM
 * record; and a binding per model with --frames. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_test.h"
#include "batch.h"
#include "io_molecule.h"

#ifndef REGRESSION_DATA_DIR
#error "REGRESSION_DATA_DIR must be defined"
#endif

#define DIMER REGRESSION_DATA_DIR "/1hpv.pqr"

static const double delphi_grid[3] = {102264.75312949104, 51051.535366651719, 51126.609003930724};
static const double delphi_rf[3] = {-1536.5584516438898, -902.37889945002064, -944.11428100085300};
static const double delphi_coulombic[3] = {-47724.691853814751, -23769.167392272517,
                                           -23707.637342191993};

/* The ATOM lines of chain `chain` of the dimer (all when 0) into path; extra: a line added. */
static int write_chain(const char *path, char chain, const char *extra) {
    FILE *in = fopen(DIMER, "r"), *out = fopen(path, "w");
    char line[256];
    int n = 0;
    while (in && out && fgets(line, sizeof line, in)) {
        char record[8], name[8], residue[8], c[4];
        int serial;
        if (sscanf(line, "%7s %d %7s %7s %3s", record, &serial, name, residue, c) == 5 &&
            (!chain || c[0] == chain))
            fputs(line, out), ++n;
    }
    if (out && extra) fputs(extra, out);
    if (in) fclose(in);
    if (out) fclose(out);
    return n;
}

static void against_delphi(void) {
    pipeline p;
    const int rc =
        run_program(&p, 0, "--pqr", DIMER, "--scale", "2", "--gsize", "163", "--energy", "g,s,c",
                    "--maxc", "1e-5", "--backend", "cpu", "--precision", "double", "--binding",
                    "A:B", "--json", "binding.json", "--quiet", (char *)NULL);
    CHECK(rc == EXIT_OK, "exit %d: %s", rc, p.message);
    if (rc == EXIT_OK) {
        const dg_calc_binding *b = &p.binding;
        const double delphi_by_grid = delphi_grid[0] - delphi_grid[1] - delphi_grid[2];
        const double delphi_by_rf = delphi_rf[0] - delphi_rf[1] - delphi_rf[2] +
                                    delphi_coulombic[0] - delphi_coulombic[1] - delphi_coulombic[2];
        printf("1hpv A:B at 163^3: binding %.4f kT (DelPhi %.4f), by grid energies %.4f (DelPhi "
               "%.4f)\n",
               b->energy, delphi_by_rf, b->grid_energy, delphi_by_grid);
        CHECK(p.result->grid.n == 163 && b->atoms[0] == 1564 && b->atoms[1] == 1564);
        CHECK_NEAR(b->energy, delphi_by_rf, 0.1);
        CHECK_NEAR(b->grid_energy, delphi_by_grid, 0.15);
        CHECK_REL(b->difference.coulombic,
                  delphi_coulombic[0] - delphi_coulombic[1] - delphi_coulombic[2], 1e-6);
        CHECK(b->salt == 0.0);
        for (int k = 0; k < 2; ++k) {
            CHECK_REL(b->partner[k].grid, delphi_grid[k + 1], 2e-4);
            CHECK_REL(b->partner[k].reaction_field, delphi_rf[k + 1], 5e-4);
        }
        CHECK_REL(p.result->energy_grid, delphi_grid[0], 2e-4);
        char *json = read_file("binding.json");
        CHECK(json && strstr(json, "\"binding\": {") && strstr(json, "\"energy_kT\": ") &&
              strstr(json, "\"selection\": \"chain A\""));
        free(json);
    }
    pipeline_free(&p);
}

/* Each partner of the binding run against a run of its chain alone on the same grid. */
static void same_as_separate_runs(void) {
    pipeline p;
    int rc = run_program(&p, 0, "--pqr", DIMER, "--scale", "1", "--energy", "g,s,c", "--maxc",
                         "1e-6", "--salt", "0.15", "--backend", "cpu", "--binding", "B",
                         "--binding-residues", "residues.txt", "--quiet", (char *)NULL);
    CHECK(rc == EXIT_OK, "exit %d: %s", rc, p.message);
    if (rc != EXIT_OK) {
        pipeline_free(&p);
        return;
    }
    const dg_calc_binding b = p.binding;
    /* the residues' parts: 99 a chain, summing to the binding energy */
    double atoms_sum = 0.0;
    for (size_t i = 0; p.atom_binding && i < p.mol.count; ++i)
        atoms_sum += p.atom_binding[i];
    CHECK(p.atom_binding && fabs(atoms_sum - b.energy) <= 1e-9 * fabs(b.energy));
    char *table = read_file("residues.txt");
    int residues = 0, atoms = 0;
    double sum = 0.0;
    for (const char *l = table; l && *l;) {
        int partner, number, count;
        char chain, name[8], insertion;
        double e;
        if (l[0] != '#' && sscanf(l, "%d %c %7s %d %c %lf %d", &partner, &chain, name, &number,
                                  &insertion, &e, &count) == 7) {
            ++residues, atoms += count, sum += e;
            CHECK((partner == 1) == (chain == 'B') && insertion == '-');
        }
        l = strchr(l, '\n');
        if (l) ++l;
    }
    CHECK(residues == 198 && atoms == 3128, "%d residues, %d atoms", residues, atoms);
    CHECK_NEAR(sum, b.energy, 198 * 5e-7);
    CHECK(table && strstr(table, "# 198 residues, sum "));
    free(table);
    CHECK(b.salt != 0.0 &&
          b.energy == b.difference.coulombic + b.difference.reaction_field + b.salt);
    CHECK(strcmp(p.partner_name[0], "chain B") == 0 &&
          strcmp(p.partner_name[1], "the other atoms") == 0);
    char gsize[16], acenter[128];
    snprintf(gsize, sizeof gsize, "%d", p.result->grid.n);
    snprintf(acenter, sizeof acenter, "acenter(%.17g,%.17g,%.17g)", p.result->grid.center[0],
             p.result->grid.center[1], p.result->grid.center[2]);
    const double complex_grid = p.result->energy_grid;
    pipeline_free(&p);
    const char chains[2] = {'B', 'A'};
    for (int k = 0; k < 2; ++k) {
        char path[32];
        snprintf(path, sizeof path, "chain_%c.pqr", chains[k]);
        CHECK(write_chain(path, chains[k], NULL) == 1564);
        rc = run_program(&p, 0, "--pqr", path, "--scale", "1", "--gsize", gsize, "--set", acenter,
                         "--energy", "g,s,c", "--maxc", "1e-6", "--salt", "0.15", "--backend",
                         "cpu", "--quiet", (char *)NULL);
        CHECK(rc == EXIT_OK, "exit %d: %s", rc, p.message);
        if (rc == EXIT_OK) {
            const calc_result *r = p.result;
            CHECK(r->grid.n == atoi(gsize));
            CHECK(r->energy_grid == b.partner[k].grid, "%.17g %.17g", r->energy_grid,
                  b.partner[k].grid);
            CHECK(r->energy_reaction_field == b.partner[k].reaction_field);
            CHECK(r->energy_coulombic == b.partner[k].coulombic);
            CHECK(r->solve.iterations == b.solve[k].iterations);
        }
        pipeline_free(&p);
    }
    CHECK(b.grid_energy == complex_grid - b.partner[0].grid - b.partner[1].grid);
    printf("1hpv B against the rest at 81^3, 0.15 M: binding %.4f kT (salt part %.4f), by grid "
           "energies %.4f\n",
           b.energy, b.salt, b.grid_energy);
}

/* A refused run: exit 1 and no output left behind (the messages are checked below). */
static void refused(const char *pqr, const char *binding, const char *extra, const char *value) {
    pipeline p;
    remove("refused.json");
    const int rc =
        extra ? run_program(&p, 0, "--pqr", pqr, "--scale", "1", "--binding", binding, "--json",
                            "refused.json", "--quiet", extra, value, (char *)NULL)
              : run_program(&p, 0, "--pqr", pqr, "--scale", "1", "--binding", binding, "--json",
                            "refused.json", "--quiet", (char *)NULL);
    CHECK(rc == EXIT_BAD_INPUT, "--binding %s: exit %d", binding, rc);
    CHECK(!file_exists("refused.json"));
    pipeline_free(&p);
}

/* The message of a refused selection, from the option check or the split. */
static void refusals(void) {
    io_error err;
    io_error_clear(&err);
    CHECK(binding_spec_check("A:B:C", &err) != IO_OK && strstr(err.message, "more than one ':'"));
    CHECK(binding_spec_check("A:", &err) != IO_OK && strstr(err.message, "second partner"));
    CHECK(binding_spec_check("A:A", &err) != IO_OK && strstr(err.message, "chain 'A' twice"));
    CHECK(binding_spec_check("A B", &err) != IO_OK);
    CHECK(binding_spec_check("A,C:_", &err) == IO_OK &&
          binding_spec_check("HetAtm", &err) == IO_OK);
    refused(DIMER, "A:B:C", NULL, NULL);
    refused(DIMER, "A:C", NULL, NULL);
    refused(DIMER, "hetatm", NULL, NULL);
    refused(DIMER, "A:B", "--binding-residues", DIMER); /* an input as an output */
    pipeline q;
    CHECK(run_program(&q, 0, "--pqr", DIMER, "--binding-residues", "r.txt", "--quiet",
                      (char *)NULL) == EXIT_BAD_INPUT &&
          !file_exists("r.txt"));
    pipeline_free(&q);
    pipeline p;
    remove("refused.json");
    CHECK(run_program(&p, 0, "--pqr", DIMER, "--bndcon", "3", "--phi-in", DIMER, "--binding", "A:B",
                      "--json", "refused.json", "--quiet", (char *)NULL) == EXIT_BAD_INPUT);
    CHECK(!file_exists("refused.json"));
    pipeline_free(&p);
    /* an ion of a third chain, as a HETATM record */
    write_chain("three_chains.pqr", 0,
                "HETATM 3129  NA  NA  C 200      12.000  20.000   8.000  1.0000 1.8000\n");
    molecule mol = {0};
    io_notes notes;
    io_notes_clear(&notes);
    CHECK(molecule_read_pqr("three_chains.pqr", &mol, &notes, &err) == IO_OK);
    int *partner = malloc(mol.count * sizeof *partner);
    char names[2][BINDING_NAME_MAX];
    CHECK(partner && binding_split("A:B", &mol, partner, names, &err) != IO_OK);
    CHECK(strstr(err.message, "three_chains.pqr") && strstr(err.message, ":3129:") &&
              strstr(err.message, "neither partner"),
          "%s", err.message);
    CHECK(binding_split("A", &mol, partner, names, &err) == IO_OK && partner[3128] == 1 &&
          partner[0] == 0 && strcmp(names[0], "chain A") == 0);
    CHECK(binding_split("C:A,B", &mol, partner, names, &err) == IO_OK && partner[3128] == 0 &&
          strcmp(names[1], "chains A, B") == 0);
    CHECK(binding_split("A,B", &mol, partner, names, &err) == IO_OK && partner[3128] == 1 &&
          strcmp(names[1], "the other atoms") == 0);
    CHECK(binding_split("HETATM", &mol, partner, names, &err) == IO_OK && partner[3128] == 0 &&
          partner[0] == 1 && partner[3127] == 1 && strcmp(names[0], "the HETATM records") == 0);
    molecule_free(&mol);
    CHECK(molecule_read_pqr(DIMER, &mol, &notes, &err) == IO_OK);
    CHECK(binding_split("hetatm", &mol, partner, names, &err) != IO_OK &&
              strstr(err.message, "partner 1 (the HETATM records) has no atoms"),
          "%s", err.message);
    free(partner);
    molecule_free(&mol);
    refused("three_chains.pqr", "A:B", NULL, NULL);
    /* the ion's binding to the dimer */
    CHECK(run_program(&p, 0, "--pqr", "three_chains.pqr", "--scale", "1", "--binding", "hetatm",
                      "--backend", "cpu", "--quiet", (char *)NULL) == EXIT_OK,
          "%s", p.message);
    CHECK(p.has_binding && p.binding.atoms[0] == 1 && p.binding.atoms[1] == 3128 &&
          p.binding.net_charge[0] == 1.0 && isfinite(p.binding.energy));
    printf("a Na+ at the dimer's centre: binding %.4f kT\n", p.binding.energy);
    pipeline_free(&p);
}

/* --frames: a binding per model of a trajectory, each in the JSON lines.  The second model is
 * the first moved 0.2 A along each axis; each run places its grid from its model, so the two
 * binding energies agree up to rounding (measured 3e-11 kT). */
static void frames(void) {
    FILE *in = fopen(DIMER, "r"), *out = fopen("two_models.pqr", "w");
    char line[256];
    CHECK(in && out);
    for (int model = 1; in && out && model <= 2; ++model) {
        rewind(in);
        fprintf(out, "MODEL %d\n", model);
        while (fgets(line, sizeof line, in)) {
            char record[8], name[8], residue[8], chain[4];
            int serial, number;
            double x, y, z, q, r;
            if (sscanf(line, "%7s %d %7s %7s %3s %d %lf %lf %lf %lf %lf", record, &serial, name,
                       residue, chain, &number, &x, &y, &z, &q, &r) != 11)
                continue;
            const double d = model == 2 ? 0.2 : 0.0;
            fprintf(out, "ATOM %d %s %s %s %d %.3f %.3f %.3f %.4f %.4f\n", serial, name, residue,
                    chain, number, x + d, y + d, z + d, q, r);
        }
        fputs("ENDMDL\n", out);
    }
    if (in) fclose(in);
    if (out) fclose(out);
    char *argv[] = {
        "delphi-gpu", "--pqr",   "two_models.pqr", "--scale",   "1",   "--frames", "--binding",
        "A:B",        "--jsonl", "frames.jsonl",   "--backend", "cpu", "--quiet",  NULL};
    CHECK(batch_execute(13, argv, NULL) == EXIT_OK);
    char *text = read_file("frames.jsonl");
    int lines = 0;
    double energy[2] = {NAN, NAN};
    for (const char *l = text; l && *l && lines < 2; ++lines) {
        const char *b = strstr(l, "\"binding\": {\"energy_kT\": ");
        const char *end = strchr(l, '\n');
        CHECK(b && (!end || b < end));
        if (b) energy[lines] = strtod(b + strlen("\"binding\": {\"energy_kT\": "), NULL);
        l = end ? end + 1 : NULL;
    }
    printf("--frames: binding %.4f and %.4f kT\n", energy[0], energy[1]);
    CHECK(lines == 2 && isfinite(energy[0]) && fabs(energy[1] - energy[0]) < 1e-6);
    free(text);
}

int main(void) {
    frames();
    refusals();
    same_as_separate_runs();
    against_delphi();
    CHECK_DONE();
}
