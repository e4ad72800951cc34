/* Program behaviour on small inputs (fast): exit statuses of CLI.md, no output files after a
 * failure, outputs written and flagged when the solve does not converge, the Born example,
 * the van der Waals surface option. */
#include <math.h>
#include <string.h>

#include "app_test.h"

#ifndef EXAMPLES_DIR
#error "EXAMPLES_DIR must be defined"
#endif

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (f) fputs(text, f), fclose(f);
}

int main(void) {
    pipeline *p = calloc(1, sizeof *p);
    const char *born = EXAMPLES_DIR "/born/born_ion.pqr";
    /* Usage errors and unreadable inputs: status 1, nothing written. */
    CHECK(run_program(p, 0, "--no-such-option", NULL) == EXIT_BAD_INPUT);
    pipeline_free(p);
    CHECK(run_program(p, 0, "--pqr", "missing.pqr", "--phi", "a.phi", NULL) == EXIT_BAD_INPUT);
    CHECK(!file_exists("a.phi"));
    pipeline_free(p);
    CHECK(run_program(p, 0, "--help", NULL) == EXIT_OK);
    pipeline_free(p);

    /* A charge whose cell touches the grid faces is refused (status 1), with no outputs. */
    write_text("two.pqr",
               "ATOM      1  A   ION     1       0.000   0.000   0.000  1.0000 2.0000\n"
               "ATOM      2  B   ION     2       9.000   0.000   0.000 -1.0000 1.0000\n");
    CHECK(run_program(p, 0, "--pqr", "two.pqr", "--gsize", "21", "--scale", "2", "--set",
                      "acenter(0,0,0)", "--phi", "b.phi", "--frc", "b.frc", "--scrg", "b.scrg",
                      NULL) == EXIT_BAD_INPUT);
    CHECK(p->calc_status == CALC_BAD_INPUT && strstr(p->message, "two.pqr line 2"));
    CHECK(!file_exists("b.phi") && !file_exists("b.frc") && !file_exists("b.scrg"));
    pipeline_free(p);

    /* A malformed atom line: status 1, and neither the summary nor the log file is left. */
    write_text("nan.pqr",
               "ATOM      1  N   MET A   1         nan   1.000   2.000  0.5000 1.5000\n");
    CHECK(run_program(p, 0, "--pqr", "nan.pqr", "--json", "nan.json", "--log", "nan.log", "--phi",
                      "nan.phi", "--quiet", NULL) == EXIT_BAD_INPUT);
    CHECK(!file_exists("nan.json") && !file_exists("nan.log") && !file_exists("nan.phi"));
    pipeline_free(p);

    /* linit too small for maxc: not converged -> status 3, outputs written, flagged in JSON. */
    CHECK(run_program(p, 0, "--pqr", born, "--scale", "2", "--linit", "20", "--maxc", "1e-9",
                      "--phi", "c.phi", "--json", "c.json", "--quiet", NULL) == EXIT_NOT_CONVERGED);
    CHECK(p->result->solve.outcome == DG_OUTCOME_NOT_CONVERGED &&
          p->result->solve.iterations == 20);
    CHECK(file_exists("c.phi") && file_exists("c.json"));
    FILE *json = fopen("c.json", "r");
    char text[8192] = "";
    if (json) text[fread(text, 1, sizeof text - 1, json)] = '\0', fclose(json);
    CHECK(strstr(text, "\"converged\": false") != NULL);
    /* The summary's notes hold every warning of the run, the solve's too. */
    CHECK(strstr(text, "\"warning: the solve did not converge") != NULL);
    pipeline_free(p);

    /* The Born example through its parameter file (81^3): exact corrected reaction field. */
    CHECK(run_program(p, 0, EXAMPLES_DIR "/born/run.prm", "--quiet", "--json", "born.json", NULL) ==
          EXIT_OK);
    const double exact = -0.5 * 166804.4928 / 297.3342 / 2.0 * (1.0 - 1.0 / 80.0);
    CHECK_REL(p->result->energy_reaction_field, exact, 1e-3);
    CHECK(file_exists("born.phi") && file_exists("born.json"));
    const double ses = p->result->energy_reaction_field;
    pipeline_free(p);
    /* One sphere: the van der Waals and molecular surfaces coincide. */
    CHECK(run_program(p, 0, EXAMPLES_DIR "/born/run.prm", "--quiet", "--surface", "vdw", "--phi",
                      "vdw.phi", NULL) == EXIT_OK);
    CHECK_REL(p->result->energy_reaction_field, ses, 1e-9);
    pipeline_free(p);

    /* center(file=...): the grid centred on the mean of the file's atoms (a PDB file, fixed
       columns), the same run as acenter at that mean; the file is an input. */
    write_text("lig.pdb", "REMARK a ligand\n"
                          "HETATM    1  C1  LIG L   1       1.000   2.500  -0.500  1.00  0.00\n"
                          "HETATM    2  O1  LIG L   1       2.000   0.500   1.500  1.00  0.00\n");
    CHECK(run_program(p, 0, "--pqr", "two.pqr", "--gsize", "33", "--scale", "1", "--set",
                      "center(file=\"lig.pdb\")", "--quiet", NULL) == EXIT_OK);
    double centred[3] = {NAN, NAN, NAN}, energy = NAN;
    if (p->result) memcpy(centred, p->result->grid.center, sizeof centred);
    if (p->result) energy = p->result->energy_grid;
    CHECK(centred[0] == 1.5 && centred[1] == 1.5 && centred[2] == 0.5);
    pipeline_free(p);
    CHECK(run_program(p, 0, "--pqr", "two.pqr", "--gsize", "33", "--scale", "1", "--set",
                      "acenter(1.5,1.5,0.5)", "--quiet", NULL) == EXIT_OK);
    CHECK(p->result && p->result->energy_grid == energy);
    pipeline_free(p);
    /* DelPhi's salt of valences z+ and z- is M_(z-) X_(z+), not reduced: salt=0.05 of 2:2 is
       ionic strength 0.4 M (stock DelPhi's rionst), the same run as salt=0.4 of 1:1. */
    CHECK(run_program(p, 0, "--pqr", "two.pqr", "--gsize", "33", "--scale", "2", "--salt", "0.05",
                      "--set", "val+1=2, val-1=2", "--quiet", NULL) == EXIT_OK);
    double divalent = NAN;
    if (p->result) divalent = p->result->energy_grid;
    CHECK(p->result && fabs(p->result->salt.ionic_strength - 0.4) < 1e-12);
    pipeline_free(p);
    CHECK(run_program(p, 0, "--pqr", "two.pqr", "--gsize", "33", "--scale", "2", "--salt", "0.4",
                      "--quiet", NULL) == EXIT_OK);
    CHECK(p->result && fabs(p->result->energy_grid - divalent) <= 1e-10 * fabs(divalent));
    pipeline_free(p);
    /* center(x,y,z): DelPhi's offset moves the molecule that many grid units from the grid's
       middle, so the grid centre is the box centre minus the offset / scale (stock DelPhi 2010,
       ubiquitin at scale 1 with center(0.5,-3.0,0.0): "system geometric center in (A): 30.5399
       29.4191 17.9425", "grid box is centered in (A): 30.0399 32.4191 17.9425"). */
    CHECK(run_program(p, 0, "--pqr", "two.pqr", "--gsize", "33", "--scale", "2", "--quiet", NULL) ==
          EXIT_OK);
    double box_centre[3] = {NAN, NAN, NAN};
    if (p->result) memcpy(box_centre, p->result->grid.center, sizeof box_centre);
    pipeline_free(p);
    CHECK(run_program(p, 0, "--pqr", "two.pqr", "--gsize", "33", "--scale", "2", "--set",
                      "center(0.5,-3,1)", "--quiet", NULL) == EXIT_OK);
    if (p->result) memcpy(centred, p->result->grid.center, sizeof centred);
    CHECK_NEAR(centred[0], box_centre[0] - 0.25, 1e-12);
    CHECK_NEAR(centred[1], box_centre[1] + 1.5, 1e-12);
    CHECK_NEAR(centred[2], box_centre[2] - 0.5, 1e-12);
    pipeline_free(p);
    /* Without scale= DelPhi places the centre before it has a scale and leaves the offset out;
       gsize alone keeps the default scale 1.2 (stock DelPhi 2010: "scale,in grids/A: 1.2" for
       gsize=65 alone, where a scale from perfil 80 would be 1.28 for ubiquitin). */
    CHECK(run_program(p, 0, "--pqr", "two.pqr", "--gsize", "33", "--set", "center(0.5,-3,1)",
                      "--quiet", NULL) == EXIT_OK);
    CHECK(p->result && p->result->grid.scale == 1.2 && p->result->grid.n == 33);
    if (p->result) memcpy(centred, p->result->grid.center, sizeof centred);
    CHECK(centred[0] == box_centre[0] && centred[1] == box_centre[1] &&
          centred[2] == box_centre[2]);
    pipeline_free(p);
    /* site(rf) and site(tf) are the atoms' forces: written with the atoms as sites (also
       DelPhi's in(frc,file="self")), refused with a warning for the sites of an in(frc) file.
       site(tf) alone writes only the total force, the sum of the other two. */
    write_text("sites.pdb", "ATOM      1  O   HOH W   1       1.000   1.000   1.000  1.00  0.00\n");
    CHECK(run_program(p, 0, "--pqr", "two.pqr", "--gsize", "33", "--scale", "1", "--set",
                      "acenter(4.5,0,0)", "--set", "site(q,p,rf)", "--set", "in(frc,file=\"self\")",
                      "--frc", "self.frc", "--frc-format", "table", "--quiet", NULL) == EXIT_OK);
    char *frc = read_file("self.frc");
    CHECK(frc && strstr(frc, "RFx RFy RFz") && strstr(frc, "\nATOM        2 B"));
    free(frc);
    pipeline_free(p);
    /* A site outside the grid in DelPhi's frc layout: 0.0000, as stock DelPhi writes it (never
       nan), with a warning. */
    write_text("far.pdb", "ATOM      1  O   HOH W   1       1.000   1.000   1.000  1.00  0.00\n"
                          "ATOM      2  O   HOH W   2     500.000   1.000   1.000  1.00  0.00\n");
    CHECK(run_program(p, 0, "--pqr", "two.pqr", "--gsize", "33", "--scale", "1", "--set",
                      "acenter(4.5,0,0)", "--set", "site(a,p,f)", "--set",
                      "in(frc,file=\"far.pdb\")", "--frc", "far.frc", "--quiet", NULL) == EXIT_OK);
    frc = read_file("far.frc");
    CHECK(frc && !strstr(frc, "nan") && strstr(frc, "    0.0000    0.0000    0.0000    0.0000"));
    free(frc);
    int zeroed_warnings = 0;
    for (int i = 0; i < p->log.said.count; ++i)
        zeroed_warnings += strstr(p->log.said.text[i], "are written as 0.0000") != NULL;
    CHECK(zeroed_warnings == 1);
    pipeline_free(p);
    CHECK(run_program(p, 0, "--pqr", "two.pqr", "--gsize", "33", "--scale", "1", "--set",
                      "acenter(4.5,0,0)", "--set", "site(q,p,tf)", "--frc", "total.frc", "--quiet",
                      "--frc-format", "table", NULL) == EXIT_OK);
    frc = read_file("total.frc");
    CHECK(frc && strstr(frc, "TFx TFy TFz") && !strstr(frc, "RFx") && !strstr(frc, "CFx"));
    free(frc);
    pipeline_free(p);
    CHECK(run_program(p, 0, "--pqr", "two.pqr", "--gsize", "33", "--scale", "1", "--set",
                      "acenter(4.5,0,0)", "--set", "site(q,p,rf,tf)", "--set",
                      "in(frc,file=\"sites.pdb\")", "--frc", "other.frc", "--quiet", "--frc-format",
                      "table", NULL) == EXIT_OK);
    int warned = 0;
    for (int i = 0; i < p->notes.count; ++i)
        warned += strstr(p->notes.text[i], "site(rf)") != NULL ||
                  strstr(p->notes.text[i], "site(tf)") != NULL;
    frc = read_file("other.frc");
    CHECK(warned == 2 && frc && !strstr(frc, "RFx") && !strstr(frc, "TFx"));
    free(frc);
    pipeline_free(p);
    /* DelPhi writes the site descriptors in upper case, whatever case the file had. */
    write_text("lower.pdb", "atom      5  cb  ala a  42       1.000   1.000   1.000  1.00  0.00\n");
    CHECK(run_program(p, 0, "--pqr", "two.pqr", "--gsize", "33", "--scale", "1", "--set",
                      "acenter(4.5,0,0)", "--set", "site(a,p)", "--set",
                      "in(frc,file=\"lower.pdb\")", "--frc", "lower.frc", "--quiet",
                      NULL) == EXIT_OK);
    frc = read_file("lower.frc");
    CHECK(frc && strstr(frc, "CB   ALA A 42") && !strstr(frc, "cb"));
    free(frc);
    pipeline_free(p);
    /* The frc file in DelPhi's layout (the default): without site(...) DelPhi's standard
       columns, coordinates, charge, potential and field (x, q, p, f in that order, 10
       characters each after 12 header lines); columns past its 80-character line are left out
       with a warning; format rc closes with the reaction-field and Coulombic energies; DelPhi's
       unformatted frc is refused. */
    CHECK(run_program(p, 0, "--pqr", "two.pqr", "--gsize", "33", "--scale", "1", "--set",
                      "acenter(4.5,0,0)", "--frc", "std.frc", "--quiet", NULL) == EXIT_OK);
    frc = read_file("std.frc");
    CHECK(frc && strstr(frc, " DELPHI SITE POTENTIAL FILE") == frc);
    {
        const char *line = frc;
        for (int k = 0; line && k < 12; ++k) {
            if (k == 11)
                CHECK(strstr(line, "ATOM COORDINATES (X,Y,Z)") && strstr(line, "GRID PT.") &&
                      strstr(line, "GRID FIELDS: (Ex, Ey, Ez)") && !strstr(line, "DESCRIPTOR"));
            line = strchr(line, '\n');
            if (line) ++line;
        }
        double v[8] = {0};
        CHECK(line && sscanf(line, "%10lf%10lf%10lf%10lf%10lf%10lf%10lf%10lf", &v[0], &v[1], &v[2],
                             &v[3], &v[4], &v[5], &v[6], &v[7]) == 8);
        CHECK(v[0] == 0.0 && v[3] == 1.0); /* two.pqr's first atom: at 0,0,0, charge +1 */
        CHECK(p->result && fabs(v[4] - p->result->site_potential[0]) <= 5e-5);
        CHECK(v[5] > 0.0); /* the field at the +1 charge points to the -1 one, at +x */
    }
    free(frc);
    pipeline_free(p);
    CHECK(run_program(p, 0, "--pqr", "two.pqr", "--gsize", "33", "--scale", "1", "--set",
                      "acenter(4.5,0,0)", "--set", "site(a,x,q,p,r,c)", "--frc", "wide.frc",
                      "--quiet", NULL) == EXIT_OK);
    warned = 0;
    for (int i = 0; i < p->notes.count; ++i)
        warned += strstr(p->notes.text[i], "no room for the Coulombic (c) column") != NULL;
    frc = read_file("wide.frc");
    CHECK(warned == 1 && frc && strstr(frc, " REAC. PT.") && !strstr(frc, "COUL. POT"));
    free(frc);
    pipeline_free(p);
    CHECK(run_program(p, 0, "--pqr", "two.pqr", "--gsize", "33", "--scale", "1", "--set",
                      "acenter(4.5,0,0)", "--set", "out(frc,file=\"rc.frc\",format=rc)", "--quiet",
                      NULL) == EXIT_OK);
    frc = read_file("rc.frc");
    CHECK(frc && strstr(frc, " REAC. PT. COUL. POT") && strstr(frc, "corrected reaction field") &&
          strstr(frc, "total coulombic energy") && !strstr(frc, "total energy ="));
    free(frc);
    pipeline_free(p);
    CHECK(run_program(p, 0, "--pqr", "two.pqr", "--gsize", "33", "--scale", "1", "--frc", "un.frc",
                      "--frc-format", "un", "--quiet", NULL) == EXIT_BAD_INPUT);
    CHECK(!file_exists("un.frc"));
    pipeline_free(p);

    /* A later acenter replaces it (the missing file is then not read; test_hardening has the
       refusals of a missing or atom-less file and of an output over it). */
    CHECK(run_program(p, 0, "--pqr", "two.pqr", "--gsize", "33", "--scale", "1", "--set",
                      "center(file=\"none.pdb\")", "--set", "acenter(0,0,0)", "--quiet",
                      NULL) == EXIT_OK);
    CHECK(p->result && p->result->grid.center[0] == 0.0);
    pipeline_free(p);

    /* Periodic along z (pbz): the solve converges by the SOR (multigrid keeps faces fixed), and
       the potential's z faces repeat the interior planes they stand for; the log names the
       periodic axes.  Mixed precision gives double's answer. */
    CHECK(run_program(p, 0, "--pqr", "two.pqr", "--gsize", "33", "--scale", "1", "--set",
                      "acenter(0,0,0)", "--set", "pbz=true, maxc=1e-7", "--log", "pz.log",
                      "--quiet", NULL) == EXIT_OK);
    CHECK(p->result && p->result->solve.outcome == DG_OUTCOME_CONVERGED);
    const double double_energy = p->result ? p->result->energy_grid : NAN;
    if (p->result) {
        const phi_map *m = &p->result->phi;
        const int n = m->n;
        double worst = 0.0;
        for (int y = 1; y < n - 1; ++y)
            for (int x = 1; x < n - 1; ++x) {
                const size_t row = (size_t)x + (size_t)n * y, plane = (size_t)n * n;
                worst = fmax(worst, fabs(phi_get(m, row) - phi_get(m, row + (n - 2) * plane)));
                worst =
                    fmax(worst, fabs(phi_get(m, row + (n - 1) * plane) - phi_get(m, row + plane)));
            }
        CHECK(worst == 0.0, "z faces differ from their images by %g", worst);
    }
    char *log = read_file("pz.log");
    CHECK(log && strstr(log, "periodic axes        : z") && strstr(log, "sor: solver AUTO"));
    CHECK(log && !strstr(log, "does not repeat"));
    free(log);
    pipeline_free(p);
    CHECK(run_program(p, 0, "--pqr", "two.pqr", "--gsize", "33", "--scale", "1", "--set",
                      "acenter(0,0,0)", "--set", "pbz=true, maxc=1e-7", "--precision", "mixed",
                      "--quiet", NULL) == EXIT_OK);
    CHECK(p->result && p->result->solve.outcome == DG_OUTCOME_CONVERGED);
    CHECK(p->result && fabs(p->result->energy_grid - double_energy) <= 1e-9 * fabs(double_energy));
    pipeline_free(p);
    /* A net charge periodic in x, y and z without salt has no potential: refused before the
       solve; with salt it converges. */
    CHECK(run_program(p, 0, "--pqr", born, "--scale", "2", "--perfil", "40", "--periodic", "xyz",
                      "--quiet", NULL) == EXIT_BAD_INPUT);
    pipeline_free(p);
    CHECK(run_program(p, 0, "--pqr", born, "--scale", "2", "--perfil", "40", "--periodic", "xyz",
                      "--salt", "0.1", "--set", "maxc=1e-6", "--quiet", NULL) == EXIT_OK);
    CHECK(p->result && p->result->solve.outcome == DG_OUTCOME_CONVERGED);
    pipeline_free(p);
    CHECK(run_program(p, 0, "--pqr", born, "--scale", "2", "--perfil", "40", "--periodic", "xyz",
                      "--salt", "0.1", "--solvation-two-run", "--quiet", NULL) == EXIT_BAD_INPUT);
    pipeline_free(p);
    /* ... and so has salt that no grid point admits (an ion radius wider than the box): refused
       by the calculation once the ion map is known (it drifted for thousands of sweeps). */
    CHECK(run_program(p, 0, "--pqr", born, "--scale", "2", "--perfil", "40", "--periodic", "xyz",
                      "--salt", "0.1", "--ionrad", "30", "--quiet", NULL) == EXIT_BAD_INPUT);
    CHECK(strstr(p->message, "no mobile ion") != NULL);
    pipeline_free(p);
    /* A molecule across the periodic z face (one charge's cell on it) and the same molecule 20
       spacings (10 A) lower, in the middle of the box: its periodic images shape the surface
       at the faces and the charge's shares go to the points the face stands for, so the two
       are one periodic system: equal grid energies and site potentials (zero faces on x and y,
       which do not depend on z).  The medium repeats across the faces: no warning. */
    write_text("cross.pqr",
               "ATOM      1  A   ION     1       0.300   0.200   6.000  1.0000 1.5000\n"
               "ATOM      2  B   BIG     2       0.000   0.000   7.000  0.0000 3.0000\n"
               "ATOM      3  C   ION     3       1.100  -0.400   7.600 -0.5000 1.2000\n");
    write_text("middle.pqr",
               "ATOM      1  A   ION     1       0.300   0.200  -4.000  1.0000 1.5000\n"
               "ATOM      2  B   BIG     2       0.000   0.000  -3.000  0.0000 3.0000\n"
               "ATOM      3  C   ION     3       1.100  -0.400  -2.400 -0.5000 1.2000\n");
    const char *names[2] = {"cross", "middle"};
    double linear_energy = NAN;
    for (int nonlinear = 0; nonlinear < 2; ++nonlinear) { /* linear, then Newton's method */
        double grid_energy[2] = {0.0, 0.0}, site[2][3];
        for (int m = 0; m < 2; ++m) {
            char pqr[32], frc_name[32], logname[32];
            snprintf(pqr, sizeof pqr, "%s.pqr", names[m]);
            snprintf(frc_name, sizeof frc_name, "%s.frc", names[m]);
            snprintf(logname, sizeof logname, "%s.log", names[m]);
            CHECK(run_program(p, 0, "--pqr", pqr, "--gsize", "33", "--scale", "2", "--set",
                              "acenter(0,0,0)", "--set", "bndcon=1, maxc=1e-9", "--salt", "0.1",
                              "--periodic", "z", "--set", "site(a,p)", "--frc", frc_name,
                              "--frc-format", "table", "--log", logname, "--nonit",
                              nonlinear ? "50" : "0", "--quiet", NULL) == EXIT_OK);
            CHECK(p->result && p->result->solve.outcome == DG_OUTCOME_CONVERGED);
            CHECK(p->result && p->result->solve.equation ==
                                   (nonlinear ? DG_EQUATION_NONLINEAR_PB : DG_EQUATION_LINEAR));
            if (nonlinear) /* Newton's steps (DelPhi's scheme would have a linear phase) */
                CHECK(p->result && p->result->solve.nonlinear_blocks > 0 &&
                      p->result->solve.linear_iterations == 0);
            if (p->result) grid_energy[m] = p->result->energy_grid;
            log = read_file(logname);
            CHECK(log && strstr(log, "periodic images      :") && !strstr(log, "does not repeat"));
            free(log);
            char *rows_text = read_file(frc_name);
            int rows = 0;
            for (char *line = rows_text ? strtok(rows_text, "\n") : NULL; line && rows < 3;
                 line = strtok(NULL, "\n")) {
                double v[16];
                if (strncmp(line, "ATOM", 4) == 0 && frc_numbers(line, v, 16) >= 1)
                    site[m][rows++] = v[frc_numbers(line, v, 16) - 1];
            }
            CHECK(rows == 3, "%s: %d site rows", frc_name, rows);
            free(rows_text);
            pipeline_free(p);
        }
        CHECK(fabs(grid_energy[0] - grid_energy[1]) <= 1e-8 * fabs(grid_energy[0]),
              "grid energies %.10f and %.10f", grid_energy[0], grid_energy[1]);
        for (int k = 0; k < 3; ++k)
            CHECK(fabs(site[0][k] - site[1][k]) <= 1e-6 * fabs(site[0][k]), "site %d: %g and %g", k,
                  site[0][k], site[1][k]);
        if (!nonlinear)
            linear_energy = grid_energy[0];
        else /* the nonlinear equation is another one here (the check above can fail) */
            CHECK(fabs(grid_energy[0] - linear_energy) > 1e-4, /* measured: 2.6e-4 kT */
                  "nonlinear %.10f, linear %.10f", grid_energy[0], linear_energy);
    }
    /* One period of the molecule is the molecule: a charged atom repeated one period over is
       refused, naming both. */
    write_text("twice.pqr",
               "ATOM      1  A   ION     1       0.300   0.200   6.000  1.0000 1.5000\n"
               "ATOM      2  A   ION     2       0.300   0.200  -9.500  1.0000 1.5000\n");
    CHECK(run_program(p, 0, "--pqr", "twice.pqr", "--gsize", "33", "--scale", "2", "--set",
                      "acenter(0,0,0)", "--periodic", "z", "--quiet", NULL) == EXIT_BAD_INPUT);
    CHECK(strstr(p->message, "atoms 1 and 2") && strstr(p->message, "period"), "%s", p->message);
    pipeline_free(p);
    free(p);
    CHECK_DONE();
}
