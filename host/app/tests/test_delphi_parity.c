/* Parity with stock DelPhi on ubiquitin: the dielectric-boundary points and the corrected
 * reaction field.  The reference values below are DelPhi's own output, not ours: stock DelPhi
 * v4 (the 2010 release, built with gfortran -fdefault-real-8: double precision) run on the same
 * atoms (examples/1ubq/1ubq.pqr written as DelPhi's PDB with charge and radius columns; its radii
 * are rounded to 3 decimals there) with the parameter file written below; its log reported:
 *   grid size 115, "number of dielectric boundary points 12949",
 *   "total grid energy 45203.556127667827 kt", "coulombic energy -20545.195998151979 kt",
 *   "corrected reaction field energy: -956.18002427732074 kt".
 * Tolerances: the corrected reaction field to 0.05 % (we are at 0.008 % from this input and at
 * 4e-7 from the radii DelPhi read; arc dots every 0.2 A, the rule before, gave 0.16 %), the
 * boundary point count to 0.1 % (13 points; we mark 12949 here, 0.2 A dots marked 12921), the
 * grid energy to 0.02 % (0.007 % today) and the Coulombic energy to 1e-6 (the radii do not
 * enter it; the charges are the same to 4 decimals).
 *
 * The same DelPhi run with `in(frc)` naming the same PDB, `site(a,q,p,r,c)` and `out(frc)` wrote
 * the reaction-field (site(r)) and Coulombic (site(c)) potentials of every atom; five of them
 * are below (DelPhi's 4 printed decimals).  Tolerances: the Coulombic ones to 2e-4 kT/e (the
 * printing; measured within 1e-4 over all 1231 atoms), the reaction-field ones to 0.1 kT/e
 * (0.07 % of the largest, 146 kT/e; measured at most 0.01 for these five and 0.14 over all
 * atoms, relative rms 3.5e-4: the surface's sampling, as in the energy).  A third DelPhi run,
 * `in(frc,file="self")` with site(q,p,atpo), gave the atomic potentials (ATOM PT.) of three
 * atoms below, one of them a charged hydrogen of radius 0 (DelPhi averages it 0.5 A away, as it
 * moves such radii to 1 A); tolerance 0.1 kT/e (measured at most 0.04 for these, 0.32 over all
 * atoms, relative rms 2.7e-4, as the grid potential's).  A fourth, with salt=0.15, ionrad=2.0,
 * site(q,p,i,deb) and 411 sites near the surface in(frc), gave the salt concentration (SALT
 * CON, -2 I phi) and the Debye fraction (DEBFRACTION) of the seven sites below; tolerances 5e-3
 * mol/L and 2e-3 (measured at most 5e-4 and 3e-4 for these; the fraction agreed to DelPhi's 4
 * decimals at 400 of the 411 sites, the others within 0.02, a grid point at the edge of an
 * atom's ion-exclusion sphere counted differently).  A fifth, as the third with site(q,p,cf),
 * gave the Coulombic forces (COUL. FORCE) of three atoms below; tolerance 2e-4 kT/A (the
 * printing: measured within 5.2e-5 over all 1231 atoms, relative rms 1.6e-6).  A sixth, as the
 * third with site(q,p,rf), gave the reaction-field forces (REAC. FORCE) of three atoms below;
 * tolerance 0.05 kT/A (measured at most 0.016 for these; over all atoms a relative rms of 1.6 %,
 * 91 % of the atoms within 0.05 and the largest difference 1.4 of 24 kT/A: which atom owns a
 * surface charge where two atoms' surfaces meet, and the surface's sampling).  A seventh, as the
 * third with site(q,p,tf), gave the total forces (TOTAL FORCE, the sum of the two) of three atoms
 * below; tolerance 0.05 kT/A, as the reaction-field force's.
 *
 * The dielectric map (out(eps)) of the first run in stock DelPhi's file: records of 36 (its
 * real*8 scale and centre; 20 with real*4), 1 269 600 and 423 200 bytes; scale 2, centre
 * 30.54 29.419 17.9425 A; solute midpoints 86 948 / 86 935 / 87 001 (x, y, z faces) and
 * 1 362 088 ion-accessible points (the same with salt=0.15: DelPhi builds the ion map always).
 * Ours differed from it at 16 / 21 / 14 midpoints and 5 points when compared bit by bit (the
 * boundary's few differences again); here the counts must agree within 40 and 20. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "app_test.h"
#include "io_epsmap.h"

#ifndef EXAMPLES_DIR
#error "EXAMPLES_DIR must be defined"
#endif

static const double delphi_boundary_points = 12949;
static const double delphi_grid_energy = 45203.556127667827;
static const double delphi_coulombic = -20545.195998151979;
static const double delphi_corrected_rf = -956.18002427732074;
/* Atom (0-based), DelPhi's REAC. PT. and COUL. POT columns (kT/e). */
static const struct {
    int atom;
    double reaction, coulombic;
} delphi_sites[5] = {{0, -38.4071, 119.7959},
                     {111, -145.6352, 54.6074},
                     {500, 31.9407, -31.8436},
                     {665, -115.1570, 423.6087},
                     {1000, -3.8443, 156.8520}};
/* Atom (0-based) and DelPhi's ATOM PT. column (kT/e). */
static const struct {
    int atom;
    double atomic;
} delphi_atomic[3] = {{0, 169.1823}, {235, 95.7068}, {1000, -182.5473}};
/* Atom (0-based) and DelPhi's COUL. FORCE columns (kT/A). */
static const struct {
    int atom;
    double force[3];
} delphi_cf[3] = {{2, {40.7667, 32.7350, 38.2544}},
                  {111, {6.5609, -5.1241, -12.8980}},
                  {665, {-20.6160, -7.4222, 0.7237}}};
/* Atom (0-based) and DelPhi's REAC. FORCE columns (kT/A). */
static const struct {
    int atom;
    double force[3];
} delphi_rf[3] = {{0, {-11.3406, 11.0363, 12.6285}},
                  {111, {-2.2605, 1.2732, 7.2442}},
                  {665, {21.0920, -5.1283, -6.6888}}};
/* Atom (0-based) and DelPhi's TOTAL FORCE columns (kT/A). */
static const struct {
    int atom;
    double force[3];
} delphi_tf[3] = {{0, {-12.6566, 11.9300, 15.4222}},
                  {111, {4.3003, -3.8509, -5.6538}},
                  {665, {0.4760, -12.5505, -5.9652}}};
static const double delphi_eps_scale = 2.0, delphi_eps_centre[3] = {30.54, 29.419, 17.9425};
static const long delphi_eps_solute[3] = {86948, 86935, 87001}, delphi_eps_ions = 1362088;

/* The dielectric map the first run wrote: DelPhi's layout and counts, and exactly the
 * calculation's maps. */
static void check_epsilon_map(dg_calc calc, int n) {
    int rn = 0;
    double scale = 0.0, centre[3] = {0.0, 0.0, 0.0};
    int32_t *solute = NULL, *ions = NULL;
    io_error err;
    const int rc = epsmap_read("parity.eps", &rn, &scale, centre, &solute, &ions, &err);
    CHECK(rc == IO_OK);
    if (rc != IO_OK) {
        printf("%s\n", err.message);
        return;
    }
    CHECK(rn == n && scale == delphi_eps_scale);
    /* DelPhi read radii rounded to 3 decimals, which moved its box by 1e-4 A. */
    for (int a = 0; a < 3; ++a)
        CHECK_NEAR(centre[a], delphi_eps_centre[a], 2e-4);
    const size_t points = (size_t)n * n * n;
    const int w = epsmap_words(n);
    unsigned char *maps = malloc(4 * points);
    CHECK(maps && dg_calc_medium_maps(calc, maps, maps + 3 * points) == DG_OK);
    long count[4] = {0, 0, 0, 0}, differ = 0;
    for (int a = 0; maps && a < 4; ++a)
        for (size_t row = 0; row < (size_t)n * n; ++row) {
            const int32_t *words = (a < 3 ? solute + (size_t)a * n * n * w : ions) + row * w;
            for (int i = 1; i <= n; ++i) {
                const int bit = (int)((uint32_t)words[i / 16] >> (i % 16) & 1u);
                count[a] += bit;
                differ += bit != (maps[a * points + row * n + (size_t)(i - 1)] != 0);
            }
        }
    printf("dielectric map: solute midpoints %ld %ld %ld (DelPhi %ld %ld %ld), ion-accessible "
           "points %ld (DelPhi %ld)\n",
           count[0], count[1], count[2], delphi_eps_solute[0], delphi_eps_solute[1],
           delphi_eps_solute[2], count[3], delphi_eps_ions);
    CHECK(differ == 0);
    for (int a = 0; a < 3; ++a)
        CHECK(labs(count[a] - delphi_eps_solute[a]) <= 40);
    CHECK(labs(count[3] - delphi_eps_ions) <= 20);
    free(maps), free(solute), free(ions);
}

/* A site (A) and DelPhi's SALT CON (mol/L) and DEBFRACTION columns. */
static const struct {
    double xyz[3], salt, debye;
} delphi_salt[7] = {
    {{24.541, 43.724, 17.091}, -0.5443, 0.6100}, {{19.991, 43.966, 15.826}, -0.4193, 1.0000},
    {{34.316, 38.223, 5.670}, -0.7002, 0.7234},  {{28.188, 25.993, -1.110}, -0.1137, 0.6372},
    {{39.190, 19.754, 13.722}, 0.4691, 0.5310},  {{20.149, 30.325, 27.978}, -0.2851, 0.8634},
    {{17.807, 20.597, 19.677}, -0.2012, 0.3001}};

/* The fourth run: the seven sites in salt, their salt and Debye columns. */
/* Sites from a file without charges (plain PDB lines, every tenth atom) in a run whose molecule
 * is a plain PDB file with radius and charge tables (written here from the PQR, an entry per
 * atom): DelPhi gives the sites the tables' charges and radii.  Stock DelPhi 2010 (real*8) on
 * these files with site(a,q,p,atpo): its CHARGE column the tables' charges at all 124 sites,
 * "total energy = 3940.8940199706731 kt", and the ATOM PT. of the sites below (kT/e).  Ours
 * (measured): the same charges, the total energy within 2.7e-5, the atomic potentials within a
 * relative rms of 4.3e-4 (0.32 at most); tolerances 0.02 % and 0.1 kT/e as above. */
static const struct {
    int site;
    double charge, atomic;
} delphi_table_sites[3] = {{0, 0.1592, 169.1882}, {1, 0.0125, 42.0613}, {123, 0.1056, 10.0330}};

static void tables_for_sites(void) {
    FILE *in = fopen(EXAMPLES_DIR "/1ubq/1ubq.pqr", "r");
    FILE *pdb = fopen("t.pdb", "w"), *crg = fopen("t.crg", "w"), *siz = fopen("t.siz", "w");
    FILE *sites = fopen("t_sites.pdb", "w");
    CHECK(in && pdb && crg && siz && sites);
    if (crg) fputs("atom__resnumbc_charge_\n", crg);
    if (siz) fputs("atom__resnumbc_radius_\n", siz);
    char line[256];
    int count = 0;
    while (in && pdb && crg && siz && sites && fgets(line, sizeof line, in)) {
        char name[8], res[8], chain[4];
        int serial, resnum;
        double x, y, z, q, r;
        if (sscanf(line, "ATOM %d %7s %7s %3s %d %lf %lf %lf %lf %lf", &serial, name, res, chain,
                   &resnum, &x, &y, &z, &q, &r) != 10)
            continue;
        char atom_field[8];
        snprintf(atom_field, sizeof atom_field, strlen(name) == 4 ? "%s" : " %s", name);
        char text[128];
        snprintf(text, sizeof text, "ATOM  %5d %-4s %3s %c%4d    %8.3f%8.3f%8.3f  1.00  0.00\n",
                 count + 1, atom_field, res, chain[0], resnum, x, y, z);
        fputs(text, pdb);
        if (count % 10 == 0) fputs(text, sites);
        fprintf(crg, "%-6s%-3s%4d%c%8.4f\n", name, res, resnum, chain[0], q);
        fprintf(siz, "%-6s%-3s%4d%c%8.4f\n", name, res, resnum, chain[0], r);
        ++count;
    }
    if (in) fclose(in);
    if (pdb) fclose(pdb);
    if (crg) fclose(crg);
    if (siz) fclose(siz);
    if (sites) fclose(sites);
    CHECK(count == 1231);
    FILE *prm = fopen("tables.prm", "w");
    CHECK(prm != NULL);
    if (!prm) return;
    fputs("in(pdb,file=\"t.pdb\")\nin(siz,file=\"t.siz\")\nin(crg,file=\"t.crg\")\n"
          "in(frc,file=\"t_sites.pdb\")\nscale=2.0\nperfil=70\nindi=2.0\nexdi=80.0\nbndcon=2\n"
          "maxc=0.0001\nsite(a,q,p,atpo)\nout(frc,file=\"tables.frc\")\nenergy(g)\n",
          prm);
    fclose(prm);
    pipeline *p = calloc(1, sizeof *p);
    CHECK(run_program(p, 0, "tables.prm", "--quiet", NULL) == EXIT_OK);
    CHECK(p->has_sites && p->sites.count == 124);
    for (int k = 0; p->has_sites && p->sites.count == 124 && k < 3; ++k) {
        const int i = delphi_table_sites[k].site;
        CHECK(p->sites.atoms[i].charge == delphi_table_sites[k].charge);
        CHECK(p->sites.atoms[i].radius > 0.5);
    }
    pipeline_free(p);
    free(p);
    /* The frc file in DelPhi's layout: CHARGE, GRID PT., ATOM PT. after the descriptor. */
    char *text = read_file("tables.frc");
    const char *at = text ? strstr(text, "ATOM DESCRIPTOR") : NULL;
    int row = -1, found = 0;
    for (const char *l = at; l && *l; ++row) {
        double q, phi, atomic;
        if (row >= 0 && strlen(l) > 20 && sscanf(l + 20, "%lf %lf %lf", &q, &phi, &atomic) == 3)
            for (int k = 0; k < 3; ++k)
                if (delphi_table_sites[k].site == row) {
                    printf("table site %d: charge %.4f, atomic potential %.4f (DelPhi %.4f)\n", row,
                           q, atomic, delphi_table_sites[k].atomic);
                    CHECK_NEAR(q, delphi_table_sites[k].charge, 1e-9);
                    CHECK_NEAR(atomic, delphi_table_sites[k].atomic, 0.1);
                    ++found;
                }
        l = strchr(l, '\n');
        if (l) ++l;
    }
    CHECK(found == 3);
    at = text ? strstr(text, " total energy =") : NULL;
    CHECK(at != NULL);
    if (at) CHECK_REL(strtod(at + 15, NULL), 3940.8940199706731, 2e-4);
    free(text);
}

static void salt_and_debye(void) {
    FILE *f = fopen("salt_sites.pdb", "w");
    CHECK(f != NULL);
    if (!f) return;
    for (int k = 0; k < 7; ++k)
        fprintf(f, "ATOM  %5d  O   HOH W%4d    %8.3f%8.3f%8.3f  1.00  0.00\n", k + 1, k + 1,
                delphi_salt[k].xyz[0], delphi_salt[k].xyz[1], delphi_salt[k].xyz[2]);
    fclose(f);
    pipeline *p = calloc(1, sizeof *p);
    const int st = run_program(p, 0, "parity.prm", "--quiet", "--salt", "0.15", "--ionrad", "2.0",
                               "--energy", "g", "--set", "in(frc,file=\"salt_sites.pdb\")", "--set",
                               "site(q,p,i,deb)", "--frc", "salt.frc", NULL);
    CHECK(st == EXIT_OK);
    const calc_result *r = p->result;
    CHECK(r && r->site_count == 7 && r->site_salt && r->site_debye);
    for (int k = 0; r && r->site_count == 7 && r->site_salt && r->site_debye && k < 7; ++k) {
        printf("site %d: salt %.4f (DelPhi %.4f) M, Debye fraction %.4f (DelPhi %.4f)\n", k + 1,
               r->site_salt[k], delphi_salt[k].salt, r->site_debye[k], delphi_salt[k].debye);
        CHECK_NEAR(r->site_salt[k], delphi_salt[k].salt, 5e-3);
        CHECK_NEAR(r->site_debye[k], delphi_salt[k].debye, 2e-3);
    }
    pipeline_free(p);
    free(p);
}

/* out(gcrg) on the HIV-1 protease dimer (regression/data/1hpv.pqr) at gsize 81, scale 1:
 * stock DelPhi 2010 (real*8) on the same atoms (written as DelPhi's PDB format 4, which keeps
 * the PQR's decimals) wrote 16469 charged grid points summing to 4 e; three of its lines are
 * below.  Ours had the same points in the same order and charges within 2.8e-15 e. */
static const struct {
    int line; /* 0-based among the charge lines */
    double charge;
    int ijk[3];
} delphi_gcrg[3] = {{0, 2.1780092160000038e-3, {30, 36, 13}},
                    {4999, -2.0949473377001749e-3, {43, 48, 33}},
                    {16468, 3.1368697113599249e-2, {43, 32, 69}}};

static void grid_charges_against_delphi(void) {
    pipeline *p = calloc(1, sizeof *p);
    CHECK(run_program(p, 0, "--pqr", REGRESSION_DATA_DIR "/1hpv.pqr", "--gsize", "81", "--scale",
                      "1", "--linit", "1", "--set", "out(gcrg,file=\"parity_gcrg.dat\")", "--quiet",
                      NULL) == EXIT_OK);
    pipeline_free(p);
    free(p);
    char *text = read_file("parity_gcrg.dat");
    CHECK(text && strstr(text, " DELPHI OUTPUT FILE: GRID CHARGE\n FORMAT NUMBER=           1\n"));
    const char *at = text ? strstr(text, "NUMBER OF CHARGES=") : NULL;
    long count = at ? strtol(at + 18, NULL, 10) : -1;
    CHECK(count == 16469, "%ld charged grid points", count);
    at = text ? strstr(text, "GRID SCALE=") : NULL;
    at = at ? strchr(at, '\n') : NULL;
    int row = 0, matched = 0;
    double sum = 0.0;
    for (const char *l = at ? at + 1 : NULL; l && *l; ++row) {
        double q;
        int ijk[3];
        CHECK(sscanf(l, "%lf %d %d %d", &q, &ijk[0], &ijk[1], &ijk[2]) == 4);
        sum += q;
        for (int k = 0; k < 3; ++k)
            if (delphi_gcrg[k].line == row) {
                CHECK_NEAR(q, delphi_gcrg[k].charge, 1e-12);
                CHECK(ijk[0] == delphi_gcrg[k].ijk[0] && ijk[1] == delphi_gcrg[k].ijk[1] &&
                      ijk[2] == delphi_gcrg[k].ijk[2]);
                ++matched;
            }
        l = strchr(l, '\n');
        if (l) ++l;
    }
    CHECK(row == 16469 && matched == 3);
    CHECK_NEAR(sum, 4.0, 1e-9);
    free(text);
}

int main(void) {
    grid_charges_against_delphi();
    FILE *f = fopen("parity.prm", "w");
    CHECK(f != NULL);
    if (!f) return 1;
    fprintf(f, "in(pqr,file=\"%s\")\n", EXAMPLES_DIR "/1ubq/1ubq.pqr");
    fputs("scale=2.0\nperfil=70\nindi=2.0\nexdi=80.0\nprbrad=1.4\nbndcon=2\nmaxc=0.0001\n"
          "energy(g,s,c)\n",
          f);
    fclose(f);
    pipeline *p = calloc(1, sizeof *p);
    const int st =
        run_program(p, 0, "parity.prm", "--quiet", "--set", "site(a,q,p,r,c,atpo,rf,cf,tf)",
                    "--frc", "parity.frc", "--frc-format", "table", "--eps", "parity.eps", NULL);
    CHECK(st == EXIT_OK);
    const calc_result *r = p->result;
    CHECK(r && r->status == CALC_OK);
    if (!r || r->status != CALC_OK) CHECK_DONE();
    CHECK(r->grid.n == 115);
    CHECK(r->solve.outcome == DG_OUTCOME_CONVERGED);
    printf("boundary points %zu (DelPhi %.0f)\n", r->boundary_count, delphi_boundary_points);
    printf("corrected reaction field %.6f kT (DelPhi %.6f, relative %.2e)\n",
           r->energy_reaction_field, delphi_corrected_rf,
           (r->energy_reaction_field - delphi_corrected_rf) / fabs(delphi_corrected_rf));
    printf("grid energy %.6f kT (DelPhi %.6f)\n", r->energy_grid, delphi_grid_energy);
    CHECK(fabs((double)r->boundary_count - delphi_boundary_points) <= 13.0);
    CHECK_REL(r->energy_reaction_field, delphi_corrected_rf, 5e-4);
    CHECK_REL(r->energy_grid, delphi_grid_energy, 2e-4);
    CHECK_REL(r->energy_coulombic, delphi_coulombic, 1e-6);
    CHECK(r->site_count == 1231 && r->site_reaction && r->site_coulombic);
    for (int k = 0; k < 5 && r->site_reaction && r->site_coulombic; ++k) {
        const int i = delphi_sites[k].atom;
        printf("atom %d: reaction %.4f (DelPhi %.4f), coulombic %.4f (DelPhi %.4f) kT/e\n", i + 1,
               r->site_reaction[i], delphi_sites[k].reaction, r->site_coulombic[i],
               delphi_sites[k].coulombic);
        CHECK_NEAR(r->site_reaction[i], delphi_sites[k].reaction, 0.1);
        CHECK_NEAR(r->site_coulombic[i], delphi_sites[k].coulombic, 2e-4);
    }
    /* The atomic potentials: the frc file's 14th column (after p, r and c); then the
       reaction-field, the Coulombic and the total forces, three columns each (DelPhi's total
       force is the sum of the other two: TOTAL FORCE = REAC. FORCE + COUL. FORCE). */
    FILE *frc = fopen("parity.frc", "r");
    CHECK(frc != NULL);
    char line[512];
    int index = 0, found = 0, forces = 0;
    while (frc && fgets(line, sizeof line, frc)) {
        double v[18];
        if (frc_numbers(line, v, 18) != 17) continue;
        for (int a = 0; a < 3; ++a)
            CHECK_NEAR(v[14 + a], v[8 + a] + v[11 + a],
                       1e-6 * (fabs(v[8 + a]) + fabs(v[11 + a])) + 1e-12);
        for (int k = 0; k < 3; ++k)
            if (delphi_tf[k].atom == index) {
                printf("atom %d: total force %.4f %.4f %.4f (DelPhi %.4f %.4f %.4f) kT/A\n",
                       index + 1, v[14], v[15], v[16], delphi_tf[k].force[0], delphi_tf[k].force[1],
                       delphi_tf[k].force[2]);
                for (int a = 0; a < 3; ++a)
                    CHECK_NEAR(v[14 + a], delphi_tf[k].force[a], 0.05);
                ++forces;
            }
        for (int k = 0; k < 3; ++k) {
            if (delphi_rf[k].atom == index) {
                printf("atom %d: reaction-field force %.4f %.4f %.4f (DelPhi %.4f %.4f %.4f) "
                       "kT/A\n",
                       index + 1, v[8], v[9], v[10], delphi_rf[k].force[0], delphi_rf[k].force[1],
                       delphi_rf[k].force[2]);
                for (int a = 0; a < 3; ++a)
                    CHECK_NEAR(v[8 + a], delphi_rf[k].force[a], 0.05);
                ++forces;
            }
            if (delphi_cf[k].atom == index) {
                printf("atom %d: Coulombic force %.4f %.4f %.4f (DelPhi %.4f %.4f %.4f) kT/A\n",
                       index + 1, v[11], v[12], v[13], delphi_cf[k].force[0], delphi_cf[k].force[1],
                       delphi_cf[k].force[2]);
                for (int a = 0; a < 3; ++a)
                    CHECK_NEAR(v[11 + a], delphi_cf[k].force[a], 2e-4);
                ++forces;
            }
        }
        for (int k = 0; k < 3; ++k)
            if (delphi_atomic[k].atom == index) {
                printf("atom %d: atomic %.4f (DelPhi %.4f) kT/e\n", index + 1, v[7],
                       delphi_atomic[k].atomic);
                CHECK_NEAR(v[7], delphi_atomic[k].atomic, 0.1);
                ++found;
            }
        ++index;
    }
    if (frc) fclose(frc);
    CHECK(index == 1231 && found == 3 && forces == 9);
    check_epsilon_map(p->calc, r->grid.n);
    pipeline_free(p);
    free(p);
    salt_and_debye();
    tables_for_sites();
    CHECK_DONE();
}
