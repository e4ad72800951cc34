/* The program as a drop-in for DelPhi under a driver that runs it the way MCCE's step 3 runs
 * DelPhi: in a directory holding the atoms as DelPhi's unformatted PDB file (fort.13: one
 * record of x, y, z, radius, charge per atom, real*4), the sites (fort.15), the centre (fort.27)
 * and the parameter file (fort.10), with no arguments; the driver reads the corrected reaction
 * field from the log line "corrected reaction field energy:" (the number after column 34) and
 * each site's potential as the first number after column 20 of line 13 onwards of the frc file,
 * then focuses (bndcon=3 from the first run's phimap) and reads the second frc file the same
 * way.  Without in(frc) the sites are fort.15's, as in DelPhi (their descriptors in the file).
 *
 * The reference values are stock DelPhi 2010's own output for the same files, built as MCCE
 * builds it (single precision: real*4 reals), run with the parameter files written below:
 *   first run (gsize 65, scale 1): "corrected reaction field energy: -463.464813 kt", the grid
 *   centred at 30.508 28.672 15.722 A (fort.27's first atom: center(777,777,0));
 *   second run (scale 1.4, focusing): "corrected reaction field energy: -459.327911 kt";
 * and the frc columns GRID PT. and COUL. POT of the atoms below (DelPhi's 4 decimals).
 * Over all 1231 atoms ours differed from DelPhi's potentials by a relative rms of 6.2e-4
 * (first run) and 4.5e-4 (second), 99 % of them within 0.1 and 0.16 kT/e, the largest by 0.36
 * and 0.47 kT/e of potentials up to 180 and 320 kT/e (the surface's sampling, as in
 * app_delphi_parity); the Coulombic column within 2e-4 (the printing).  Tolerances: the energies
 * to 0.05 % (we are at 1.5e-4 and 1.1e-4), the five potentials to 0.05 kT/e (at most 0.013
 * here), the Coulombic ones to 3e-4 kT/e. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "app_test.h"

#ifndef EXAMPLES_DIR
#error "EXAMPLES_DIR must be defined"
#endif

#define ATOMS 1231

static const double delphi_rf[2] = {-463.464813, -459.327911};
/* Atom (0-based), DelPhi's GRID PT. of the two runs and COUL. POT (kT/e). */
static const struct {
    int atom;
    double potential[2], coulombic;
} delphi_sites[6] = {{0, {74.8364, 89.3979}, 59.8980},       {111, {27.0180, 60.3228}, 27.3037},
                     {500, {5.5457, 10.0652}, -15.9218},     {665, {-12.0101, -92.0474}, 211.8042},
                     {1000, {-44.2223, -101.3214}, 78.4259}, {1230, {-0.1100, 2.5652}, -50.4524}};

static long file_size(const char *path) {
    FILE *fp = fopen(path, "rb");
    long size = -1;
    if (fp && fseek(fp, 0, SEEK_END) == 0) size = ftell(fp);
    if (fp) fclose(fp);
    return size;
}

static void put_record(FILE *fp, const float v[5]) {
    const uint32_t n = 20; /* little-endian on the machines this runs on, as DelPhi writes */
    fwrite(&n, 4, 1, fp), fwrite(v, 4, 5, fp), fwrite(&n, 4, 1, fp);
}

/* fort.13 and fort.15 from the example's PQR, as such a driver writes them. */
static int write_inputs(void) {
    FILE *in = fopen(EXAMPLES_DIR "/1ubq/1ubq.pqr", "r");
    FILE *bin = fopen("fort.13", "wb"), *sites = fopen("fort.15", "w");
    int count = 0;
    char line[256];
    while (in && bin && sites && fgets(line, sizeof line, in)) {
        if (strncmp(line, "ATOM", 4) != 0 && strncmp(line, "HETATM", 6) != 0) continue;
        double x, y, z, q, r;
        if (strlen(line) < 31 || sscanf(line + 30, "%lf %lf %lf %lf %lf", &x, &y, &z, &q, &r) != 5)
            break;
        const float v[5] = {(float)x, (float)y, (float)z, (float)r, (float)q};
        put_record(bin, v);
        ++count;
        fprintf(sites, "ATOM      0  O   LYS %5d    %8.3f%8.3f%8.3f\n", count, x, y, z);
    }
    if (in) fclose(in);
    if (bin) fclose(bin);
    if (sites) fclose(sites);
    FILE *centre = fopen("fort.27", "w");
    if (centre) {
        fputs("ATOM      1  C   CEN  0001      30.508  28.672  15.722\n", centre);
        fclose(centre);
    }
    return count;
}

static void write_parameters(int run) {
    FILE *fp = fopen("fort.10", "w");
    if (!fp) return;
    fprintf(fp, "gsize=65\nscale=%.2f\nin(unpdb,file=\"fort.13\")\n", run == 0 ? 1.0 : 1.4);
    if (run == 1) fputs("in(phi,file=\"run01.phi\")\n", fp);
    fprintf(fp,
            "indi=4.0\nexdi=80.0\nionrad=2.0\nsalt=0.15\nbndcon=%d\ncenter(777, 777, 0)\n"
            "out(frc,file=\"run%02d.frc\")\nout(phi,file=\"run%02d.phi\")\nsite(a,c,p)\n"
            "energy(g,an,sol)\n",
            run == 0 ? 2 : 3, run + 1, run + 1);
    if (run == 0) fputs("out(unpdb,file=\"atoms.bin\")\n", fp);
    fclose(fp);
}

/* The number after column 34 of the last "corrected reaction field energy:" line. */
static double reaction_field_from_log(const char *path) {
    char *text = read_file(path);
    double value = NAN;
    for (char *line = text; line && *line;) {
        char *end = strchr(line, '\n');
        if (end) *end = '\0';
        if (strstr(line, "corrected reaction field energy:") && strlen(line) > 34)
            value = strtod(line + 34, NULL);
        line = end ? end + 1 : NULL;
    }
    free(text);
    return value;
}

int main(void) {
    CHECK(write_inputs() == ATOMS);
    pipeline *p = calloc(1, sizeof *p);
    double potential[2][ATOMS], coulombic[ATOMS];
    for (int run = 0; run < 2; ++run) {
        write_parameters(run);
        char log_name[32];
        snprintf(log_name, sizeof log_name, "run%02d.log", run + 1);
        FILE *log = fopen(log_name, "w");
        char *argv[] = {"delphi-gpu", NULL};
        const int status = pipeline_execute(p, 1, argv, log);
        if (log) fclose(log);
        CHECK(status == EXIT_OK);
        pipeline_free(p);

        const double rf = reaction_field_from_log(log_name);
        printf("run %d: corrected reaction field %.6f kT (DelPhi %.6f, relative %.2e)\n", run + 1,
               rf, delphi_rf[run], fabs(rf / delphi_rf[run] - 1.0));
        CHECK_REL(rf, delphi_rf[run], 5e-4);

        char *log_text = read_file(log_name);
        CHECK(log_text && strstr(log_text, "reading DelPhi's default one, fort.10"));
        CHECK(log_text && strstr(log_text, "fort.13 is DelPhi's unformatted PDB file"));
        CHECK(log_text && strstr(log_text, "grid centre          : 30.5080 28.6720 15.7220 A"));
        CHECK(log_text && strstr(log_text, "the sites are those of fort.15"));
        free(log_text);

        /* The frc file: 12 header lines, the column names last; a line per atom; the energy. */
        char frc_name[32];
        snprintf(frc_name, sizeof frc_name, "run%02d.frc", run + 1);
        FILE *frc = fopen(frc_name, "r");
        CHECK(frc != NULL);
        char line[512];
        int lines = 0;
        while (frc && fgets(line, sizeof line, frc)) {
            ++lines;
            if (lines == 1) CHECK(strstr(line, "DELPHI SITE POTENTIAL FILE") != NULL);
            if (lines == 12)
                CHECK(strncmp(line, "ATOM DESCRIPTOR", 15) == 0 && strstr(line, "GRID PT.") &&
                      strstr(line, "COUL. POT"));
            if (lines > 12 && lines <= 12 + ATOMS) {
                double a = NAN, b = NAN;
                CHECK(strlen(line) > 20 && sscanf(line + 20, "%lf %lf", &a, &b) == 2);
                potential[run][lines - 13] = a;
                coulombic[lines - 13] = b;
            }
            /* the sites are fort.15's (DelPhi's default site file), with its descriptors */
            if (lines == 13) CHECK(strncmp(line, "O    LYS   1          ", 21) == 0);
            if (lines == 12 + ATOMS) CHECK(strncmp(line, "O    LYS   1231       ", 21) == 0);
            if (lines == 13 + ATOMS) CHECK(strstr(line, "total energy =") != NULL);
        }
        if (frc) fclose(frc);
        CHECK(lines == 13 + ATOMS);
        for (int k = 0; k < 6; ++k) {
            const int i = delphi_sites[k].atom;
            CHECK_NEAR(potential[run][i], delphi_sites[k].potential[run], 0.05);
            CHECK_NEAR(coulombic[i], delphi_sites[k].coulombic, 3e-4);
        }
    }
    /* out(unpdb) wrote back the atoms it read: the same bytes. */
    char *in = read_file("fort.13"), *out = read_file("atoms.bin");
    CHECK(file_size("fort.13") == (long)ATOMS * 28 && file_size("atoms.bin") == (long)ATOMS * 28);
    CHECK(in && out && file_size("atoms.bin") == (long)ATOMS * 28 &&
          memcmp(in, out, (size_t)ATOMS * 28) == 0);
    free(in), free(out);
    free(p);
    CHECK_DONE();
}
