/* Molecule readers: PQR (whitespace, no chain, glued fields, fixed columns), 1ubq.pqr, PDB with
 * .siz/.crg and DelPhi's matching rules, DelPhi PDB formats 1, 2 and 4, sites, molecule_load. */
#include "test_util.h"

#include "host_io.h"
#include "molecule_internal.h" /* molecule_push */

static int notes_contain(const io_notes *notes, const char *part) {
    for (int i = 0; i < notes->count; i++)
        if (strstr(notes->text[i], part)) return 1;
    return 0;
}

/* A PDB-column ATOM line; the tail (from column 55) is appended. */
static void pdb_line(char *out, size_t size, const char *record, int serial, const char *name,
                     const char *res, char chain, int resnum, double x, double y, double z,
                     const char *tail) {
    char name4[8];
    snprintf(name4, sizeof name4, strlen(name) < 4 ? " %-3s" : "%-4s", name);
    snprintf(out, size, "%-6s%5d %4s %3s %c%4d    %8.3f%8.3f%8.3f%s\n", record, serial, name4, res,
             chain, resnum, x, y, z, tail);
}

static void test_pqr_whitespace(void) {
    write_text("w.pqr",
               "REMARK   whitespace PQR\n"
               "ATOM      1  N    MET A   1      27.340   24.430    2.614  0.1592 1.8240\n"
               "ATOM      2  CA   MET     2     -26.266   25.413    2.842 -0.0221 1.9080\n"
               "HETATM    3  O    HOH B1000       1.5e1   -0.5      1000.0  -0.834 1.7683\n"
               "HETATM12345  NA   NA     52A      0.0      0.0       0.0    1.0    0.0\n"
               "TER\nEND\n"
               "ATOM      9  X    XXX     9       0.0      0.0       0.0    0.0    0.0\n");
    molecule mol;
    io_notes notes;
    io_error err;
    io_notes_clear(&notes);
    int rc = molecule_read_pqr("w.pqr", &mol, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(mol.count == 4); /* nothing after END */
    if (mol.count == 4) {
        const atom *a = mol.atoms;
        CHECK(a[0].x == 27.340 && a[0].y == 24.430 && a[0].z == 2.614);
        CHECK(a[0].charge == 0.1592 && a[0].radius == 1.8240);
        CHECK(strcmp(a[0].name, "N") == 0 && strcmp(a[0].residue, "MET") == 0);
        CHECK(a[0].chain == 'A' && a[0].residue_number == 1 && a[0].serial == 1);
        CHECK(strcmp(a[0].record, "ATOM") == 0 && a[0].source_line == 2);
        CHECK(a[1].chain == ' ' && a[1].residue_number == 2 && a[1].x == -26.266);
        CHECK(a[1].charge == -0.0221);
        CHECK(strcmp(a[2].record, "HETATM") == 0 && a[2].chain == 'B');
        CHECK(a[2].residue_number == 1000 && a[2].x == 15.0 && a[2].z == 1000.0);
        CHECK(a[3].serial == 12345 && a[3].residue_number == 52 && a[3].insertion == 'A');
        CHECK(a[3].radius == 0.0 && strcmp(a[3].name, "NA") == 0);
    }
    molecule_free(&mol);
    CHECK(mol.atoms == NULL && mol.count == 0);
}

static void test_pqr_fixed(void) {
    /* Coordinates that touch: only the PDB columns can separate them. */
    char l1[128], l2[128], text[300];
    pdb_line(l1, sizeof l1, "ATOM", 1, "N", "MET", 'A', 1, -100.123, -200.456, -300.789,
             " 0.1592 1.8240");
    pdb_line(l2, sizeof l2, "ATOM", 2, "HD21", "ASN", 'A', 1000, 1.0, -999.999, 2.5, " -0.4 1.1");
    snprintf(text, sizeof text, "%s%s", l1, l2);
    write_text("f.pqr", text);
    molecule mol;
    io_error err;
    int rc = molecule_read_pqr("f.pqr", &mol, NULL, &err);
    CHECK_OK(rc, err);
    CHECK(mol.count == 2);
    if (mol.count == 2) {
        CHECK(mol.atoms[0].x == -100.123 && mol.atoms[0].y == -200.456);
        CHECK(mol.atoms[0].z == -300.789 && mol.atoms[0].radius == 1.824);
        CHECK(mol.atoms[1].y == -999.999 && mol.atoms[1].charge == -0.4);
        CHECK(strcmp(mol.atoms[1].name, "HD21") == 0 && mol.atoms[1].residue_number == 1000);
    }
    molecule_free(&mol);
}

static void test_1ubq(void) {
    molecule mol;
    io_error err;
    int rc = molecule_read_pqr(HOST_IO_TEST_DATA "/1ubq.pqr", &mol, NULL, &err);
    CHECK_OK(rc, err);
    CHECK(mol.count == 1231);
    CHECK_NEAR(molecule_net_charge(&mol), 0.0, 1e-9);
    if (mol.count == 1231) {
        const atom *f = &mol.atoms[0], *l = &mol.atoms[1230];
        CHECK(f->x == 27.340 && f->y == 24.430 && f->z == 2.614 && f->charge == 0.1592);
        CHECK(f->radius == 1.8240 && f->chain == 'A' && strcmp(f->residue, "MET") == 0);
        CHECK(l->serial == 1231 && strcmp(l->name, "HA3") == 0 && l->residue_number == 76);
        CHECK(l->x == 39.544 && l->z == 33.403 && l->radius == 1.3870);
    }
    CHECK(strstr(mol.source, "1ubq.pqr") != NULL);
    molecule_free(&mol);
}

/* Radius/charge tables and DelPhi's matching: searched from the most specific key down, with
 * DelPhi's orders (charges: residue name before residue number), a chain's "*" charge first,
 * an element's radius last; the first of duplicates. */
static void test_pdb_tables(void) {
    char pdb[2048] = "HEADER    test\nREMARK anything\n", line[128];
    const struct {
        const char *name, *res;
        char chain;
        int resnum;
    } atoms[] = {{"N", "ALA", 'A', 1},  {"CA", "ALA", 'A', 1}, {"N", "GLY", 'A', 2},
                 {"CA", "GLY", 'B', 2}, {"O", "GLY", 'B', 2},  {"FE", "HEM", 'C', 3}};
    for (int i = 0; i < 6; i++) {
        pdb_line(line, sizeof line, i == 5 ? "HETATM" : "ATOM", i + 1, atoms[i].name, atoms[i].res,
                 atoms[i].chain, atoms[i].resnum, i * 1.0, -i * 2.0, 0.5, "  1.00  0.00");
        strcat(pdb, line);
    }
    strcat(pdb, "END\n");
    write_text("t.pdb", pdb);
    write_text("t.siz", "! radii\n"
                        "atom__res_radius_\n"
                        "N         1.550\n" /* any residue */
                        "CA        1.700\n" /* any residue */
                        "CA    ALA 1.900\n" /* ALA only: more specific */
                        "O         1.520\n"
                        "FE    HEM 1.300\n"
                        "ca        9.000\n"); /* duplicate of line 4: warning, first used */
    /* Charge table, long form, built column-exact. */
    char crg[1024], e[64];
    snprintf(crg, sizeof crg, "! charges\natom__resnumbc_charge_\n");
#define CRG(atom, res, num, chain, q)                                                              \
    snprintf(e, sizeof e, "%-6s%-3s%4s%c%8.4f\n", atom, res, num, chain, q);                       \
    strcat(crg, e)
    CRG("N", "", "", ' ', -0.4);
    CRG("N", "ALA", "1", ' ', 0.1);
    CRG("CA", "", "", 'B', 0.25);
    CRG("CA", "GLY", "2", ' ', 0.3);
    CRG("O", "", "2", ' ', -0.5);
    CRG("O", "GLY", "", ' ', -0.6);
#undef CRG
    write_text("t.crg", crg);

    molecule mol;
    io_notes notes;
    io_error err;
    io_notes_clear(&notes);
    int rc = molecule_read_pdb("t.pdb", "t.siz", "t.crg", &mol, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(mol.count == 6);
    if (mol.count == 6) {
        const atom *a = mol.atoms;
        CHECK(a[0].radius == 1.55 && a[0].charge == 0.1);  /* N ALA 1: resnum+name entry */
        CHECK(a[1].radius == 1.9 && a[1].charge == 0.0);   /* CA ALA A: no charge entry */
        CHECK(a[2].radius == 1.55 && a[2].charge == -0.4); /* N GLY: wildcard */
        CHECK(a[3].radius == 1.7 && a[3].charge == 0.3);   /* CA GLY 2 B: number+name > chain */
        CHECK(a[4].radius == 1.52 && a[4].charge == -0.6); /* O GLY 2: name > number */
        CHECK(a[5].radius == 1.3 && a[5].charge == 0.0);
        CHECK(a[0].x == 0.0 && a[3].y == -6.0 && a[5].z == 0.5 && a[5].residue_number == 3);
        CHECK(strcmp(a[5].record, "HETATM") == 0 && a[3].chain == 'B');
    }
    CHECK(notes_contain(&notes, "2 of 6 atoms have no entry in the charge file"));
    CHECK(notes_contain(&notes, "duplicate radius entry"));
    molecule_free(&mol);

    /* Element radii (CA takes C's entry, FE F's), a chain's "*" charge (before every other
       entry, chain B's atoms only), a chain given in lower case. */
    write_text("e.siz", "atom__res_radius_\nC         1.800\nN         1.600\nO         1.500\n"
                        "F         1.200\n");
    snprintf(crg, sizeof crg, "atom__resnumbc_charge_\n");
#define CRG(atom, res, num, chain, q)                                                              \
    snprintf(e, sizeof e, "%-6s%-3s%4s%c%8.4f\n", atom, res, num, chain, q);                       \
    strcat(crg, e)
    CRG("CA", "GLY", "2", ' ', 0.3);
    CRG("*", "", "", 'B', 0.01);
    CRG("N", "ALA", "1", 'a', 0.7);
#undef CRG
    write_text("e.crg", crg);
    rc = molecule_read_pdb("t.pdb", "e.siz", "e.crg", &mol, &notes, &err);
    CHECK_OK(rc, err);
    if (rc == IO_OK && mol.count == 6) {
        const atom *a = mol.atoms;
        CHECK(a[0].radius == 1.6 && a[0].charge == 0.7); /* chain 'a' is A */
        CHECK(a[1].radius == 1.8 && a[3].radius == 1.8 && a[4].radius == 1.5);
        CHECK(a[3].charge == 0.01 && a[4].charge == 0.01); /* chain B's "*" before CA GLY 2 */
        CHECK(a[5].radius == 1.2 && a[5].charge == 0.0);
    }
    molecule_free(&mol);

    /* Long siz header form: number and chain columns. */
    write_text("long.siz", "atom__resnumbc_radius_\n"
                           "N                1.000\n"
                           "N     ALA   1A   2.000\n"
                           "CA               1.800\n"
                           "O                1.500\n"
                           "FE               1.200\n");
    rc = molecule_read_pdb("t.pdb", "long.siz", "t.crg", &mol, NULL, &err);
    CHECK_OK(rc, err);
    if (mol.count == 6) CHECK(mol.atoms[0].radius == 2.0 && mol.atoms[2].radius == 1.0);
    molecule_free(&mol);
}

static void test_delphi_pdb(void) {
    char text[1024], l[128], tail[64];
    /* format 4: charge 55-62 (F8.4), radius 63-70 (F8.3) */
    snprintf(tail, sizeof tail, "%8.4f%8.3f", -0.8340, 1.768);
    pdb_line(l, sizeof l, "ATOM", 1, "OW", "HOH", ' ', 1, 1.0, 2.0, -3.0, tail);
    snprintf(text, sizeof text, "REMARK   DELPHI PDB FILE\nREMARK   FORMAT =  4\n%s", l);
    write_text("f4.pdb", text);
    /* format 1: radius 55-60, charge 61-67 */
    snprintf(tail, sizeof tail, "%6.2f%7.3f", 1.77, 0.417);
    pdb_line(l, sizeof l, "ATOM", 1, "HW", "HOH", 'A', 1, 4.0, 5.0, 6.0, tail);
    snprintf(text, sizeof text, "DELPHI PDB FILE\nFORMAT = 1\n%s", l);
    write_text("f1.pdb", text);
    /* format 2: two 12-column fields (radius, charge) */
    snprintf(tail, sizeof tail, "%12.6f%12.6f", 2.5, -1.25);
    pdb_line(l, sizeof l, "HETATM", 7, "CL", "CL", ' ', 9, 0.0, 0.0, 0.0, tail);
    snprintf(text, sizeof text, "delphi pdb file\n  format=2\n%s", l);
    write_text("f2.pdb", text);
    /* format 4 under the headers DelPhi also reads: "DELPHI PDB", "FORMAT NUMBER=4" */
    snprintf(tail, sizeof tail, "%8.4f%8.3f", 0.5, 1.5);
    pdb_line(l, sizeof l, "ATOM", 3, "NA", "ION", ' ', 2, -7.0, 0.5, 2.0, tail);
    snprintf(text, sizeof text, "DELPHI PDB\nFORMAT NUMBER=4\n%s", l);
    write_text("f4n.pdb", text);

    static const struct {
        const char *file;
        double q, r, x;
    } cases[] = {{"f4.pdb", -0.834, 1.768, 1.0},
                 {"f1.pdb", 0.417, 1.77, 4.0},
                 {"f2.pdb", -1.25, 2.5, 0.0},
                 {"f4n.pdb", 0.5, 1.5, -7.0}};
    for (int i = 0; i < 4; i++) {
        molecule mol;
        io_error err;
        int is_delphi = 0;
        CHECK_OK(pdb_is_delphi_format(cases[i].file, &is_delphi, &err), err);
        CHECK(is_delphi == 1);
        int rc = molecule_read_delphi_pdb(cases[i].file, &mol, NULL, &err);
        CHECK_OK(rc, err);
        CHECK(mol.count == 1);
        if (mol.count == 1) {
            CHECK(mol.atoms[0].charge == cases[i].q && mol.atoms[0].radius == cases[i].r);
            CHECK(mol.atoms[0].x == cases[i].x && mol.atoms[0].source_line == 3);
        }
        molecule_free(&mol);
    }
    int is_delphi = 1;
    io_error err;
    CHECK_OK(pdb_is_delphi_format("t.pdb", &is_delphi, &err), err);
    CHECK(is_delphi == 0);

    /* molecule_load: a DelPhi PDB file needs no tables (a note says so). */
    run_settings s;
    io_notes notes;
    settings_defaults(&s);
    io_notes_clear(&notes);
    snprintf(s.pdb_file, sizeof s.pdb_file, "f4.pdb");
    snprintf(s.siz_file, sizeof s.siz_file, "missing.siz");
    snprintf(s.crg_file, sizeof s.crg_file, "missing.crg");
    s.input_source[INPUT_SIZ] = s.input_source[INPUT_CRG] = SOURCE_DEFAULT;
    molecule mol;
    int rc = molecule_load(&s, &mol, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(mol.count == 1 && notes_contain(&notes, "no radius or charge file is needed"));
    molecule_free(&mol);
    snprintf(s.pdb_file, sizeof s.pdb_file, "t.pdb"); /* plain PDB: tables required */
    rc = molecule_load(&s, &mol, &notes, &err);
    CHECK(rc == IO_ERR_FILE);
    CHECK_CONTAINS(err.message, "missing.siz");
    snprintf(s.siz_file, sizeof s.siz_file, "t.siz");
    snprintf(s.crg_file, sizeof s.crg_file, "t.crg");
    rc = molecule_load(&s, &mol, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(mol.count == 6);
    molecule_free(&mol);
    s.pdb_file[0] = '\0';
    snprintf(s.pqr_file, sizeof s.pqr_file, HOST_IO_TEST_DATA "/1ubq.pqr");
    rc = molecule_load(&s, &mol, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(mol.count == 1231);
    molecule_free(&mol);
}

static void test_sites_and_models(void) {
    molecule mol;
    io_notes notes;
    io_error err;
    io_notes_clear(&notes);
    /* A plain PDB as site list: positions only (occupancy is not a charge). */
    int rc = molecule_read_sites("t.pdb", &mol, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(mol.count == 6);
    if (mol.count == 6) CHECK(mol.atoms[3].y == -6.0 && mol.atoms[0].charge == 0.0);
    CHECK(mol.positions_only == 1);
    /* ... which take the run's tables' charges and radii, as DelPhi gives them (0 without an
       entry); a list with values of its own keeps them. */
    write_text("sites.siz", "atom__res_radius_\nN     ALA   1.65\n");
    write_text("sites.crg", "atom__resnumbc_charge_\nN     ALA      -0.40\n");
    rc = molecule_sites_from_tables(&mol, "sites.siz", "sites.crg", &notes, &err);
    CHECK_OK(rc, err);
    size_t charged = 0;
    for (size_t i = 0; i < mol.count; ++i)
        charged += mol.atoms[i].charge == -0.40 && mol.atoms[i].radius == 1.65;
    CHECK(charged >= 1 && notes_contain(&notes, "sites took a charge from sites.crg"));
    for (size_t i = 0; i < mol.count; ++i)
        if (mol.atoms[i].charge != -0.40) CHECK(mol.atoms[i].charge == 0.0);
    molecule_free(&mol);
    CHECK(mol.positions_only == 0);
    rc = molecule_read_sites("w.pqr", &mol, &notes, &err);
    CHECK_OK(rc, err);
    if (mol.count == 4) CHECK(mol.atoms[0].charge == 0.1592);
    CHECK(mol.positions_only == 0);
    CHECK_OK(molecule_sites_from_tables(&mol, "sites.siz", "sites.crg", &notes, &err), err);
    if (mol.count == 4) CHECK(mol.atoms[0].charge == 0.1592);
    molecule_free(&mol);
    rc = molecule_read_sites("f1.pdb", &mol, &notes, &err);
    CHECK_OK(rc, err);
    if (mol.count == 1) CHECK(mol.atoms[0].radius == 1.77);
    molecule_free(&mol);

    /* Only the first model of a multi-model file is read. */
    write_text("models.pqr",
               "MODEL 1\nATOM 1 N ALA 1 0 0 0 0.1 1.5\nENDMDL\nMODEL 2\n"
               "ATOM 1 N ALA 1 9 9 9 0.1 1.5\nATOM 2 C ALA 1 9 9 8 0.1 1.5\nENDMDL\n");
    io_notes_clear(&notes);
    rc = molecule_read_pqr("models.pqr", &mol, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(mol.count == 1 && notes_contain(&notes, "2 atoms after ENDMDL"));
    molecule_free(&mol);
}

/* A file large enough to be parsed on several threads: every atom where it belongs, and of
   several bad lines the first in file order is the one reported, whether it is an atom that
   does not parse or a line whose shape is wrong (a NUL byte). */
enum { LARGE = 20000 };

static void write_large(const char *path, int bad_atom_a, int bad_atom_b, int nul_line) {
    FILE *f = fopen(path, "wb");
    fprintf(f, "REMARK large\r\n"); /* line 1; atom k (0-based) is on line k + 2 */
    for (int k = 0; k < LARGE; ++k) {
        const int line = k + 2;
        if (line == bad_atom_a || line == bad_atom_b)
            fprintf(f, "ATOM %d CA GLY %d 1.0 x%d 3.0 0.5 1.7\n", k + 1, k, k);
        else if (line == nul_line)
            fprintf(f, "ATOM %d CA GLY %d 1.0 2.0%c3.0 0.5 1.7\n", k + 1, k, '\0');
        else if (k % 3 == 0) /* the fixed-column form, then the whitespace form */
            fprintf(f, "ATOM  %5d  CA  GLY A%4d    %8.3f%8.3f%8.3f %7.4f %6.4f\n", k % 100000,
                    k % 10000, 0.001 * k, -0.002 * k, 5.0, 0.0001 * (k % 997) - 0.05, 1.5);
        else
            fprintf(f, "ATOM %d CA GLY %d %.3f %.3f %.3f %.4f %.4f\n", k + 1, k, 0.001 * k,
                    -0.002 * k, 5.0, 0.0001 * (k % 997) - 0.05, 1.5);
    }
    fclose(f);
}

static void test_large_pqr(void) {
    molecule mol;
    io_error err;
    write_large("large.pqr", 0, 0, 0);
    int rc = molecule_read_pqr("large.pqr", &mol, NULL, &err);
    CHECK_OK(rc, err);
    CHECK(mol.count == LARGE, "%zu atoms", mol.count);
    int wrong = 0;
    for (size_t k = 0; k < mol.count && mol.count == LARGE; ++k) {
        char text[32];
        const atom *a = &mol.atoms[k];
        snprintf(text, sizeof text, "%.3f", 0.001 * (double)k);
        wrong += a->x != atof(text) || a->source_line != (int)k + 2 || a->radius != 1.5;
        snprintf(text, sizeof text, "%.4f", 0.0001 * (double)(k % 997) - 0.05);
        wrong += a->charge != atof(text);
    }
    CHECK(wrong == 0, "%d atoms read wrongly", wrong);
    molecule_free(&mol);
    /* Two atoms that do not parse, far apart: the first is named. */
    write_large("bad.pqr", 19001, 3001, 0);
    rc = molecule_read_pqr("bad.pqr", &mol, NULL, &err);
    CHECK(rc != 0 && err.line == 3001, "line %d: %s", err.line, err.message);
    CHECK(mol.atoms == NULL && mol.count == 0);
    /* A NUL byte before a bad atom, and after one. */
    write_large("bad.pqr", 15002, 0, 5003);
    rc = molecule_read_pqr("bad.pqr", &mol, NULL, &err);
    CHECK(rc != 0 && err.line == 5003 && strstr(err.message, "NUL"), "line %d: %s", err.line,
          err.message);
    write_large("bad.pqr", 4004, 0, 12005);
    rc = molecule_read_pqr("bad.pqr", &mol, NULL, &err);
    CHECK(rc != 0 && err.line == 4004 && !strstr(err.message, "NUL"), "line %d: %s", err.line,
          err.message);
    /* A molecule read from a large file takes further atoms as any other (its capacity). */
    write_large("large.pqr", 0, 0, 0);
    rc = molecule_read_pqr("large.pqr", &mol, NULL, &err);
    CHECK_OK(rc, err);
    atom extra = mol.atoms[0];
    for (int k = 0; k < 20000 && rc == 0; ++k)
        rc = molecule_push(&mol, &extra, &err);
    CHECK(rc == 0 && mol.count == 2 * LARGE && mol.atoms[2 * LARGE - 1].x == extra.x);
    molecule_free(&mol);
}

int main(void) {
    test_enter_scratch("molecules");
    test_pqr_whitespace();
    test_pqr_fixed();
    test_1ubq();
    test_pdb_tables();
    test_delphi_pdb();
    test_sites_and_models();
    test_large_pqr();
    return test_finish("host_io_molecules");
}
