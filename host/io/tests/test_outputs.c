/* Site-potential output, the logger (terminal, quiet mode, atomic log file) and the atomic
 * output helper. */
#include "test_util.h"

#include "host_io.h"

static void test_sites(void) {
    atom atoms[3] = {
        {.x = 1.5,
         .y = -2.25,
         .z = 3.0,
         .charge = 0.5,
         .radius = 1.5,
         .record = "ATOM",
         .serial = 1,
         .name = "N",
         .residue = "MET",
         .chain = 'A',
         .residue_number = 1},
        {.x = 0.0,
         .y = 0.0,
         .z = 0.0,
         .charge = -1.0,
         .radius = 2.0,
         .record = "HETATM",
         .serial = 2,
         .name = "CL",
         .residue = "CL",
         .chain = ' ',
         .residue_number = 99},
        {.x = -10.0,
         .y = 100.0,
         .z = -1000.0,
         .charge = 0.0,
         .record = "",
         .serial = 3,
         .name = "",
         .residue = "",
         .chain = 0,
         .residue_number = 0},
    };
    molecule mol = {atoms, 3, "sites.pqr", 0};
    double phi[3] = {1.25, -3.5e-3, 2.0e4};
    double field[9] = {1, 2, 3, -4, -5, -6, 0.5, 0.25, 0.125};
    io_error err;
    const site_values plain = {phi, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    const site_values with_field = {phi, NULL, NULL, NULL, field, NULL, NULL, NULL, NULL, NULL};
    const site_values none = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    CHECK_OK(sites_write("sites.frc", &mol, &plain, "test sites", &err), err);
    CHECK_OK(sites_write("field.frc", &mol, &with_field, NULL, &err), err);
    CHECK(sites_write("none.frc", &mol, &none, NULL, &err) == IO_ERR_INPUT);
    CHECK(!file_exists("none.frc"));
    /* A site outside the grid (potential NaN) is left out of the energy sum, which said nan. */
    double phi_out[3] = {1.25, -3.5e-3, NAN};
    const site_values outside = {phi_out, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    CHECK_OK(sites_write("outside.frc", &mol, &outside, NULL, &err), err);
    char *outside_text = read_text("outside.frc");
    CHECK(outside_text && strstr(outside_text, "(1 sites outside the grid left out)") &&
          !strstr(outside_text, "= nan"));
    free(outside_text);

    /* Read the lines back: 11 (or 14) fields each, values to printed precision. */
    const char *files[2] = {"sites.frc", "field.frc"};
    for (int f = 0; f < 2; f++) {
        FILE *fp = fopen(files[f], "r");
        CHECK(fp != NULL);
        if (!fp) continue;
        char line[512];
        int n = 0, comments = 0;
        double sum = NAN;
        while (fgets(line, sizeof line, fp)) {
            if (line[0] == '#') {
                comments++;
                const char *e = strstr(line, "charge*potential/2 = ");
                if (e) sum = atof(e + 21);
                continue;
            }
            char rec[8], name[8], res[8], chain[4];
            int serial, resnum;
            double x, y, z, q, p, ex = 0, ey = 0, ez = 0;
            int got = sscanf(line, "%7s %d %7s %7s %3s %d %lf %lf %lf %lf %lf %lf %lf %lf", rec,
                             &serial, name, res, chain, &resnum, &x, &y, &z, &q, &p, &ex, &ey, &ez);
            CHECK(got == (f == 0 ? 11 : 14));
            if (n < 3 && got >= 11) {
                CHECK_NEAR(x, atoms[n].x, 1e-4);
                CHECK_NEAR(z, atoms[n].z, 1e-4);
                CHECK_NEAR(q, atoms[n].charge, 1e-5);
                CHECK_NEAR(p, phi[n], 1e-6 * fabs(phi[n]));
                CHECK(serial == atoms[n].serial && resnum == atoms[n].residue_number);
                if (f == 1) CHECK_NEAR(ez, field[3 * n + 2], 1e-7);
            }
            if (n == 0) CHECK(!strcmp(rec, "ATOM") && !strcmp(name, "N") && !strcmp(chain, "A"));
            if (n == 1) CHECK(!strcmp(rec, "HETATM") && !strcmp(chain, "-"));
            if (n == 2) CHECK(!strcmp(name, "-") && !strcmp(res, "-"));
            n++;
        }
        fclose(fp);
        CHECK(n == 3 && comments >= 3);
        CHECK_NEAR(sum, 0.5 * (0.5 * 1.25 + 1.0 * 3.5e-3), 1e-9);
    }
    char *text = read_text("sites.frc");
    if (text) {
        CHECK_CONTAINS(text, "# test sites\n");
        CHECK(!strstr(text, "reaction") && !strstr(text, "coulombic"));
    }
    free(text);

    /* The reaction, Coulombic and atomic columns, between the potential and the field, with the
       first two's sums on comment lines before the last; the salt and Debye columns last. */
    const double reaction[3] = {-2.5, 0.75, 1e3}, coulombic[3] = {10.0, -4.0, 0.0};
    const double atomic[3] = {0.125, -7.5, 3.0e-3};
    const double salt[3] = {-0.375, 1.5e-3, 0.0}, debye[3] = {0.0, 0.625, 1.0};
    const double force[9] = {0.5, -1.5, 2.5, 0.0, 0.0, 0.0, -3.0, 4.0, -5.0};
    const double reaction_force[9] = {-0.25, 0.75, 1.25, 6.0, -7.0, 8.0, 0.0, 0.0, 0.0};
    const double total_force[9] = {0.25, -0.75, 3.75, 6.0, -7.0, 8.0, -3.0, 4.0, -5.0};
    const site_values all = {phi,  reaction, coulombic,      atomic, field,
                             salt, debye,    reaction_force, force,  total_force};
    CHECK_OK(sites_write("all.frc", &mol, &all, NULL, &err), err);
    FILE *fp = fopen("all.frc", "r");
    CHECK(fp != NULL);
    int n = 0;
    double rsum = NAN, csum = NAN, psum = NAN;
    char line[512], last[512] = "";
    while (fp && fgets(line, sizeof line, fp)) {
        if (line[0] == '#') {
            const char *e;
            if ((e = strstr(line, "charge*reaction/2 = "))) rsum = atof(e + 20);
            if ((e = strstr(line, "charge*coulombic/2 = "))) csum = atof(e + 21);
            if ((e = strstr(line, "charge*potential/2 = "))) psum = atof(e + 21);
            if (strstr(line, "x(A)"))
                CHECK_CONTAINS(line, "potential(kT/e) reaction(kT/e) coulombic(kT/e) atomic(kT/e) "
                                     "Ex Ey Ez (kT/e/A) salt(M) debye_fraction RFx RFy RFz (kT/A) "
                                     "CFx CFy CFz (kT/A) TFx TFy TFz (kT/A)\n");
            snprintf(last, sizeof last, "%s", line);
            continue;
        }
        char rec[8], name[8], res[8], chain[4];
        int serial, resnum;
        double x, y, z, q, p, rp, cp, ap, ex, ey, ez, sc, df, rx, ry, rz, fx, fy, fz, tx, ty, tz;
        const int got =
            sscanf(line,
                   "%7s %d %7s %7s %3s %d %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf "
                   "%lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf",
                   rec, &serial, name, res, chain, &resnum, &x, &y, &z, &q, &p, &rp, &cp, &ap, &ex,
                   &ey, &ez, &sc, &df, &rx, &ry, &rz, &fx, &fy, &fz, &tx, &ty, &tz);
        CHECK(got == 28);
        if (n < 3 && got == 28) {
            CHECK_NEAR(tx, total_force[3 * n], 1e-7);
            CHECK_NEAR(ty, total_force[3 * n + 1], 1e-7);
            CHECK_NEAR(tz, total_force[3 * n + 2], 1e-7);
            CHECK_NEAR(rx, reaction_force[3 * n], 1e-7);
            CHECK_NEAR(rz, reaction_force[3 * n + 2], 1e-7);
            CHECK_NEAR(fx, force[3 * n], 1e-7);
            CHECK_NEAR(fz, force[3 * n + 2], 1e-7);
            CHECK_NEAR(sc, salt[n], 1e-6 * fabs(salt[n]));
            CHECK_NEAR(df, debye[n], 1e-6);
            CHECK_NEAR(ap, atomic[n], 1e-6 * fabs(atomic[n]));
            CHECK_NEAR(p, phi[n], 1e-6 * fabs(phi[n]));
            CHECK_NEAR(rp, reaction[n], 1e-6 * fabs(reaction[n]));
            CHECK_NEAR(cp, coulombic[n], 1e-6 * fabs(coulombic[n]));
            CHECK_NEAR(ex, field[3 * n], 1e-7);
            CHECK_NEAR(ez, field[3 * n + 2], 1e-7);
        }
        n++;
    }
    if (fp) fclose(fp);
    CHECK(n == 3);
    CHECK_NEAR(rsum, 0.5 * (0.5 * -2.5 - 1.0 * 0.75), 1e-9);
    CHECK_NEAR(csum, 0.5 * (0.5 * 10.0 + 1.0 * 4.0), 1e-9);
    CHECK_NEAR(psum, 0.5 * (0.5 * 1.25 + 1.0 * 3.5e-3), 1e-9);
    CHECK(strstr(last, "# sites 3,") == last);
}

/* out(scrg): one line per charge with its 1-based grid indices, position, charge and energy;
 * the totals on the last comment line; an empty list is a file with no charges. */
static void test_surface_charges(void) {
    const long point[3] = {0, 5 + 7 * (3 + 7 * 2), 7 * 7 * 7 - 1}; /* grid of 7^3 */
    const double site[9] = {1.5, -2.25, 3.0, 10.0, 20.0, -30.125, 0.0, 0.0, 0.0};
    const double charge[3] = {1.25e-3, -2.5e-2, 4.0e-4}, energy[3] = {-0.5, 2.0, -1.25e-2};
    const surface_charges c = {3, 7, point, site, charge, energy, NULL, NULL};
    io_error err;
    CHECK_OK(surface_charges_write("s.scrg", &c, "test charges", &err), err);
    FILE *fp = fopen("s.scrg", "r");
    CHECK(fp != NULL);
    char line[512], last[512] = "";
    int n = 0;
    while (fp && fgets(line, sizeof line, fp)) {
        if (line[0] == '#') {
            snprintf(last, sizeof last, "%s", line);
            continue;
        }
        long index, i, j, k;
        double x, y, z, q, e;
        CHECK(sscanf(line, "%ld %ld %ld %ld %lf %lf %lf %lf %lf", &index, &i, &j, &k, &x, &y, &z,
                     &q, &e) == 9);
        if (n < 3) {
            CHECK(index == n + 1);
            CHECK(i - 1 + 7 * (j - 1 + 7 * (k - 1)) == point[n]);
            CHECK_NEAR(y, site[3 * n + 1], 1e-4);
            CHECK_NEAR(q, charge[n], 1e-7 * fabs(charge[n]));
            CHECK_NEAR(e, energy[n], 1e-7 * fabs(energy[n]));
        }
        n++;
    }
    if (fp) fclose(fp);
    CHECK(n == 3);
    CHECK(strstr(last, "# charges 3, total charge = ") == last);
    const char *at = strstr(last, "sum of energy = ");
    CHECK(at && fabs(atof(at + 16) - (-0.5 + 2.0 - 1.25e-2)) < 1e-9);
    const surface_charges none = {0, 7, NULL, NULL, NULL, NULL, NULL, NULL};
    CHECK_OK(surface_charges_write("none.scrg", &none, NULL, &err), err);
    char *text = read_text("none.scrg");
    CHECK(text && strstr(text, "# charges 0,"));
    free(text);
    const surface_charges broken = {2, 7, point, NULL, charge, energy, NULL, NULL};
    CHECK(surface_charges_write("broken.scrg", &broken, NULL, &err) == IO_ERR_INPUT);
    CHECK(!file_exists("broken.scrg"));
}

/* out(scrg) in DelPhi's layouts: the plain one "%5d%8.3f%8.3f%8.3f%8.3f", and the PDB form
 * (three header lines; ATOM lines with the point, its atom, "SC", the atom's residue number,
 * x y z and the charge and energy in Fortran's G12.5, as stock DelPhi 2010 writes them, e.g.
 * "ATOM      1  263 SC    263      30.554  28.428  -1.986  0.92682E-02 -0.90019    "). */
static void test_surface_charges_delphi(void) {
    char g[13];
    const struct {
        double v;
        const char *text;
    } cases[] = {{0.0092682, " 0.92682E-02"}, {-0.90019, "-0.90019    "}, {0.0, "  0.0000    "},
                 {12345.6, "  12346.    "},   {-3.14159, " -3.1416    "}, {1.5e7, " 0.15000E+08"},
                 {0.999996, "  1.0000    "},  {-1.0e-30, "-0.10000E-29"}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        io_fortran_g12_5(cases[k].v, g);
        CHECK(strcmp(g, cases[k].text) == 0, "G12.5 of %g: '%s', not '%s'", cases[k].v, g,
              cases[k].text);
    }
    atom atoms[2] = {{0}};
    atoms[0].residue_number = 7, atoms[1].residue_number = 263;
    const molecule mol = {atoms, 2, "m.pqr", 0};
    const long point[2] = {0, 1};
    const double site[6] = {30.554, 28.428, -1.986, 1.0, -2.5, 3.25};
    const double charge[2] = {0.0092682, -0.25}, energy[2] = {-0.90019, 12.5};
    const int owner[2] = {1, -1};
    const surface_charges c = {2, 7, point, site, charge, energy, owner, &mol};
    io_error err;
    CHECK_OK(surface_charges_write_delphi("plain.scrg", &c, SCRG_DELPHI, &err), err);
    char *text = read_text("plain.scrg");
    CHECK(text && strcmp(text, "    1  30.554  28.428  -1.986   0.009\n"
                               "    2   1.000  -2.500   3.250  -0.250\n") == 0);
    free(text);
    CHECK_OK(surface_charges_write_delphi("pdb.scrg", &c, SCRG_DELPHI_PDB, &err), err);
    text = read_text("pdb.scrg");
    CHECK(text && strcmp(text, "DELPHI FORMAT PDB\nFORMAT NUMBER=2\n"
                               "       bgp# atom SC   res#      pos                    scrg   "
                               "       surf energy\n"
                               "ATOM      1    2 SC    263      30.554  28.428  -1.986  "
                               "0.92682E-02 -0.90019    \n"
                               "ATOM      2      SC              1.000  -2.500   3.250 "
                               "-0.25000       12.500    \n") == 0);
    free(text);
    const surface_charges no_atoms = {2, 7, point, site, charge, energy, NULL, NULL};
    CHECK(surface_charges_write_delphi("no.scrg", &no_atoms, SCRG_DELPHI_PDB, &err) ==
          IO_ERR_INPUT);
    CHECK(!file_exists("no.scrg"));
}

/* out(modpdb), out(modpdb4), format=pqr: written and read back by this program's readers, the
 * values to each format's decimals, names and residues kept. */
static void test_modpdb(void) {
    atom atoms[3] = {
        {.x = 12.3456,
         .y = -0.5,
         .z = 101.25,
         .charge = 0.1234,
         .radius = 1.8765,
         .record = "ATOM",
         .serial = 7,
         .name = "CA",
         .residue = "LYS",
         .chain = 'B',
         .residue_number = 42,
         .insertion = ' '},
        {.x = -3.0,
         .y = 4.125,
         .z = 0.0,
         .charge = -0.8172,
         .radius = 1.6612,
         .record = "HETATM",
         .serial = 8,
         .name = "HD21",
         .residue = "ASN",
         .chain = ' ',
         .residue_number = 1234,
         .insertion = 'A'},
        {.x = 0.001,
         .y = -999.999,
         .z = 5.5,
         .charge = 0.0,
         .radius = 0.0,
         .record = "ATOM",
         .serial = 9,
         .name = "O",
         .residue = "HOH",
         .chain = 'W',
         .residue_number = 3},
    };
    molecule mol = {atoms, 3, "m.pqr", 0};
    const int formats[3] = {MODPDB_DELPHI1, MODPDB_DELPHI4, MODPDB_PQR};
    const char *names[3] = {"m1.pdb", "m4.pdb", "m.pqr"};
    const double charge_step[3] = {1e-3, 1e-4, 1e-4}, radius_step[3] = {1e-2, 1e-3, 1e-4};
    io_error err;
    for (int f = 0; f < 3; ++f) {
        CHECK_OK(modpdb_write(names[f], &mol, formats[f], &err), err);
        molecule back = {0};
        io_notes notes;
        io_notes_clear(&notes);
        const int rc = f == 2 ? molecule_read_pqr(names[f], &back, &notes, &err)
                              : molecule_read_delphi_pdb(names[f], &back, &notes, &err);
        CHECK_OK(rc, err);
        CHECK(back.count == 3);
        for (size_t i = 0; i < 3 && i < back.count; ++i) {
            const atom *a = &atoms[i], *b = &back.atoms[i];
            CHECK_NEAR(b->x, a->x, 5e-4);
            CHECK_NEAR(b->y, a->y, 5e-4);
            CHECK_NEAR(b->z, a->z, 5e-4);
            CHECK_NEAR(b->charge, a->charge, 0.5 * charge_step[f] + 1e-12);
            CHECK_NEAR(b->radius, a->radius, 0.5 * radius_step[f] + 1e-12);
            CHECK(!strcmp(b->name, a->name) && !strcmp(b->residue, a->residue));
            CHECK(b->residue_number == a->residue_number && b->chain == a->chain);
        }
        molecule_free(&back);
    }
    CHECK(modpdb_write("none.pdb", &mol, MODPDB_NONE, &err) == IO_ERR_INPUT);
    CHECK(!file_exists("none.pdb"));
    /* A name read from column 13 (zinc: "ZN", not the nitrogen "N" of column 14) stays there,
       as DelPhi copies the columns; one from column 14 stays in 14. */
    atoms[2].name_at_13 = 1;
    snprintf(atoms[2].name, sizeof atoms[2].name, "ZN");
    CHECK_OK(modpdb_write("zn.pdb", &mol, MODPDB_DELPHI1, &err), err);
    char *zn = read_text("zn.pdb");
    CHECK(zn && strstr(zn, "ATOM      9 ZN   HOH W   3") && strstr(zn, "    7  CA ") &&
          strstr(zn, "    8 HD21"));
    free(zn);
    molecule back = {0};
    io_notes notes;
    io_notes_clear(&notes);
    CHECK_OK(molecule_read_delphi_pdb("zn.pdb", &back, &notes, &err), err);
    CHECK(back.count == 3 && back.atoms[2].name_at_13 && !back.atoms[0].name_at_13);
    molecule_free(&back);
}

static void test_log(void) {
    io_log log;
    io_error err;
    FILE *out = tmpfile(), *errs = tmpfile();
    CHECK_OK(log_open(&log, "run.log", 1, &err), err);
    log_set_streams(&log, out, errs);
    CHECK(!file_exists("run.log")); /* only the temporary exists while the run goes on */
    log_info(&log, "grid %d", 65);
    log_progress(&log, "iteration %d", 10);
    log_warning(&log, "careful %s", "now");
    log_error(&log, "bad %s", "thing");
    io_notes notes;
    io_notes_clear(&notes);
    io_note(&notes, IO_NOTE_INFO, "an info");
    io_note(&notes, IO_NOTE_WARNING, "a warning");
    for (int i = 0; i < IO_NOTES_MAX + 3; i++)
        io_note(&notes, IO_NOTE_INFO, "filler %d", i);
    CHECK(notes.count == IO_NOTES_MAX && notes.dropped == 5);
    log_notes(&log, &notes);
    CHECK(notes.count == 0 && notes.dropped == 0);
    CHECK_OK(log_close(&log, 1, &err), err);

    char terminal[4096] = "", errors[1024] = "";
    rewind(out);
    rewind(errs);
    size_t n1 = fread(terminal, 1, sizeof terminal - 1, out);
    size_t n2 = fread(errors, 1, sizeof errors - 1, errs);
    terminal[n1] = errors[n2] = '\0';
    fclose(out);
    fclose(errs);
    CHECK_CONTAINS(terminal, "grid 65\n");
    CHECK(strstr(terminal, "iteration 10") == NULL); /* quiet: no progress on the terminal */
    /* Warnings go to stderr (never hidden), notes to the terminal log. */
    CHECK_CONTAINS(errors, "warning: careful now\n");
    CHECK_CONTAINS(terminal, "note: an info\n");
    CHECK_CONTAINS(errors, "warning: a warning\n");
    CHECK_CONTAINS(errors, "warning: 5 more notes were not kept\n");
    CHECK(strstr(terminal, "warning:") == NULL);
    CHECK(strstr(terminal, "bad thing") == NULL);
    CHECK_CONTAINS(errors, "error: bad thing\n");

    char *file = read_text("run.log"); /* the file keeps everything */
    CHECK(file != NULL);
    if (file) {
        CHECK_CONTAINS(file, "grid 65\niteration 10\nwarning: careful now\nerror: bad thing\n");
        CHECK_CONTAINS(file, "note: an info\n");
        free(file);
    }

    /* Not quiet: progress shows; a discarded log leaves nothing. */
    out = tmpfile();
    CHECK_OK(log_open(&log, "discard.log", 0, &err), err);
    log_set_streams(&log, out, out);
    log_progress(&log, "iteration %d", 20);
    log_close(&log, 0, &err);
    rewind(out);
    n1 = fread(terminal, 1, sizeof terminal - 1, out);
    terminal[n1] = '\0';
    fclose(out);
    CHECK_CONTAINS(terminal, "iteration 20\n");
    CHECK(!file_exists("discard.log"));
    CHECK(count_names_containing(".", ".tmp-") == 0);

    /* No log file at all. */
    CHECK_OK(log_open(&log, "", 0, &err), err);
    CHECK(log.has_file == 0);
    CHECK_OK(log_close(&log, 1, &err), err);
}

static void test_atomic_file(void) {
    atomic_file af;
    io_error err;
    write_text("out.txt", "previous");
    CHECK_OK(atomic_file_open(&af, "out.txt", 0, &err), err);
    fputs("new content", af.fp);
    char *text = read_text("out.txt");
    CHECK(text && strcmp(text, "previous") == 0); /* untouched until commit */
    free(text);
    CHECK(count_names_containing(".", "out.txt.tmp-") == 1);
    CHECK_OK(atomic_file_commit(&af, &err), err);
    text = read_text("out.txt");
    CHECK(text && strcmp(text, "new content") == 0);
    free(text);
    CHECK_OK(atomic_file_open(&af, "out.txt", 0, &err), err);
    fputs("abandoned", af.fp);
    atomic_file_abort(&af);
    atomic_file_abort(&af); /* twice is harmless */
    text = read_text("out.txt");
    CHECK(text && strcmp(text, "new content") == 0);
    free(text);
    CHECK(count_names_containing(".", ".tmp-") == 0);
    CHECK(atomic_file_open(&af, "", 0, &err) == IO_ERR_INPUT);
    /* Permissions follow the umask, not mkstemp's 0600. */
    struct stat st;
    mode_t mask = umask(0);
    umask(mask);
    CHECK(stat("out.txt", &st) == 0 && (st.st_mode & 0777) == (0666 & ~mask));
}

int main(void) {
    test_enter_scratch("outputs");
    test_sites();
    test_surface_charges();
    test_surface_charges_delphi();
    test_modpdb();
    test_log();
    test_atomic_file();
    return test_finish("host_io_outputs");
}
