/* Bad molecule inputs: every case gives a non-zero status and a message naming the file (and
 * the line where there is one); a failed run that stops at the input leaves no output file, and
 * a write that fails half-way leaves neither the output nor its temporary. */
#include "test_util.h"

#include <signal.h>
#include <sys/resource.h>

#include "host_io.h"

typedef struct bad_case {
    const char *text; /* file content */
    int line;         /* line the message must name (0 = none) */
    const char *part; /* text the message must contain */
} bad_case;

static void check_pqr_cases(void) {
    static const bad_case cases[] = {
        {"REMARK x\nATOM 1 N MET A 1 1.0 2.0 3.0 0.1 1.5\nATOM 2 C MET A 1 1.0 2.0 abc 0.1 1.5\n",
         3, "field 9 (z) 'abc' is not a number"},
        {"ATOM 1 N MET A 1 1.0 2.0 3.0 0.1 1.5\nATOM 1 N 1.0 2.0\n", 2, "at least 10 fields"},
        {"ATOM 1 N MET A 1 nan 2.0 3.0 0.1 1.5\n", 1, "NaN or infinite"},
        {"ATOM 1 N MET A 1 1.0 inf 3.0 0.1 1.5\n", 1, "NaN or infinite"},
        {"ATOM 1 N MET A 1 1.0 2.0 3.0 0.1 1.5\nATOM 2 N MET A 1 1.0 2.0 2e5 0.1 1.5\n", 2,
         "absurd"},
        {"ATOM 1 N MET A 1 -100001 2.0 3.0 0.1 1.5\n", 1, "absurd"},
        {"ATOM 1 N MET A 1 1.0 2.0 3.0 0.1 -1.0\n", 1, "radius out of range"},
        {"ATOM 1 N MET A 1 1.0 2.0 3.0 0.1 10.5\n", 1, "radius out of range"},
        {"ATOM 1 N MET A 1 1.0 2.0 3.0 12.0 1.5\n", 1, "charge out of range"},
        {"ATOM 1 N MET A 1 1.0 2.0 3.0 -10.01 1.5\n", 1, "charge out of range"},
        {"ATOM 1 N MET AB 1 1.0 2.0 3.0 0.1 1.5\n", 1, "chain ID"},
        {"ATOM 1 N MET A x 1.0 2.0 3.0 0.1 1.5\n", 1, "residue number"},
        {"REMARK no atoms here\nTER\nEND\n", 0, "no atoms"},
        {"", 0, "no atoms"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_text("bad.pqr", cases[i].text);
        molecule mol;
        io_error err;
        int rc = molecule_read_pqr("bad.pqr", &mol, NULL, &err);
        CHECK(rc == IO_ERR_INPUT);
        CHECK_ERROR_AT(rc, err, "bad.pqr", cases[i].line);
        CHECK_CONTAINS(err.message, cases[i].part);
        CHECK(mol.atoms == NULL && mol.count == 0); /* freed on error */
    }
    /* NUL bytes: not a text file. */
    FILE *fp = fopen("nul.pqr", "wb");
    fwrite("ATOM\0\0\0\n", 1, 8, fp);
    fclose(fp);
    molecule mol;
    io_error err;
    int rc = molecule_read_pqr("nul.pqr", &mol, NULL, &err);
    CHECK_ERROR_AT(rc, err, "nul.pqr", 1);
    CHECK_CONTAINS(err.message, "NUL");
    /* Missing and unreadable (a directory) files. */
    rc = molecule_read_pqr("does_not_exist.pqr", &mol, NULL, &err);
    CHECK(rc == IO_ERR_FILE);
    CHECK_CONTAINS(err.message, "does_not_exist.pqr: cannot open PQR file");
    mkdir("a_directory.pqr", 0777);
    rc = molecule_read_pqr("a_directory.pqr", &mol, NULL, &err);
    CHECK(rc != IO_OK);
    CHECK_CONTAINS(err.message, "a_directory.pqr");
}

static void check_pdb_cases(void) {
    const char *pdb = "ATOM      1  N   ALA A   1       1.000   2.000   3.000  1.00  0.00\n"
                      "ATOM      2  ZZ  ALA A   1       1.000   2.000   4.000  1.00  0.00\n";
    write_text("p.pdb", pdb);
    write_text("ok.siz", "atom__res_radius_\nN         1.500\nZZ        1.000\n");
    write_text("ok.crg", "atom__resnumbc_charge_\nN               -0.5000\n");
    molecule mol;
    io_error err;
    io_notes notes;
    io_notes_clear(&notes);
    int rc = molecule_read_pdb("p.pdb", "ok.siz", "ok.crg", &mol, &notes, &err);
    CHECK_OK(rc, err);
    molecule_free(&mol);

    /* No radius for an atom: names the atom, the PDB line and the table. */
    write_text("n.siz", "atom__res_radius_\nN         1.500\n");
    rc = molecule_read_pdb("p.pdb", "n.siz", "ok.crg", &mol, NULL, &err);
    CHECK_ERROR_AT(rc, err, "p.pdb", 2);
    CHECK_CONTAINS(err.message, "no radius for atom 'ZZ' of residue 'ALA' 1 chain A");
    CHECK_CONTAINS(err.message, "n.siz");

    static const struct {
        const char *siz, *crg;
        const char *file;
        int line;
        const char *part;
    } tables[] = {
        {"N         1.500\n", NULL, "t.siz", 1, "header line"},
        {"! c\natom__res_radius_\nN        11.000\n", NULL, "t.siz", 3, "radius 11 out of range"},
        {"atom__res_radius_\nN        -1.000\n", NULL, "t.siz", 2, "out of range"},
        {"atom__res_radius_\nN         abc\n", NULL, "t.siz", 2, "not a number"},
        {"atom__res_radius_\nN     ALA\n", NULL, "t.siz", 2, "blank"},
        {"atom__res_radius_\n      ALA 1.000\n", NULL, "t.siz", 2, "atom name"},
        {"atom__res_radius_\nN\t1.5\n", NULL, "t.siz", 2, "tab"},
        {"atom__res_radius_\n! only comments\n", NULL, "t.siz", 0, "no entries"},
        {NULL, "atom__resnumbc_charge_\nN               11.0000\n", "t.crg", 2, "out of range"},
        {NULL, "atom__resnumbc_charge_\nN     ALA  x   0.1000\n", "t.crg", 2, "not an integer"},
        {NULL, "atom__resnumbc_charge_\nN              nan\n", "t.crg", 2, "not finite"},
    };
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        write_text("t.siz", tables[i].siz ? tables[i].siz
                                          : "atom__res_radius_\nN         1.5\nZZ        1.0\n");
        write_text("t.crg", tables[i].crg ? tables[i].crg : "atom__resnumbc_charge_\n");
        rc = molecule_read_pdb("p.pdb", "t.siz", "t.crg", &mol, NULL, &err);
        CHECK(rc == IO_ERR_INPUT);
        CHECK_ERROR_AT(rc, err, tables[i].file, tables[i].line);
        CHECK_CONTAINS(err.message, tables[i].part);
    }
    rc = molecule_read_pdb("p.pdb", "none.siz", "ok.crg", &mol, NULL, &err);
    CHECK(rc == IO_ERR_FILE);
    CHECK_CONTAINS(err.message, "none.siz: cannot open radius file");
    rc = molecule_read_pdb("none.pdb", "ok.siz", "ok.crg", &mol, NULL, &err);
    CHECK(rc == IO_ERR_FILE);
    CHECK_CONTAINS(err.message, "none.pdb");

    /* PDB lines: short, bad coordinates. */
    static const bad_case lines[] = {
        {"ATOM      1  N   ALA A   1       1.000   2.000\n", 1, "columns 47-54"},
        {"REMARK\nATOM      1  N   ALA A   1       1.000   x.000   3.000\n", 2, "columns 39-46"},
        {"ATOM      1  N   ALA A   1         nan   2.000   3.000\n", 1, "NaN"},
        {"ATOM      1  N   ALA A   1    999999.0   2.000   3.000\n", 1, "absurd"},
        {"HEADER only\nEND\n", 0, "no atoms"},
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        write_text("l.pdb", lines[i].text);
        rc = molecule_read_pdb("l.pdb", "ok.siz", "ok.crg", &mol, NULL, &err);
        CHECK(rc == IO_ERR_INPUT);
        CHECK_ERROR_AT(rc, err, "l.pdb", lines[i].line);
        CHECK_CONTAINS(err.message, lines[i].part);
    }
}

static void check_delphi_cases(void) {
    static const struct {
        const char *text;
        int status, line;
        const char *part;
    } cases[] = {
        {"DELPHI PDB FILE\nFORMAT = 3\n", IO_ERR_UNSUPPORTED, 2, "format 3"},
        {"DELPHI PDB\nFORMAT NUMBER=5\n", IO_ERR_UNSUPPORTED, 2, "format 5"},
        {"DELPHI PDB\nNUMBER=4 FORMAT\n", IO_ERR_INPUT, 2, "FORMAT = n"},
        {"DELPHI PDB FILE\nATOM      1  N   ALA A   1       1.000   2.000   3.000\n", IO_ERR_INPUT,
         2, "FORMAT = n"},
        {"DELPHI PDB FILE\nFORMAT = 4\nATOM      1  N   ALA A   1       1.000   2.000   3.000\n",
         IO_ERR_INPUT, 3, "columns 63-70"},
        {"DELPHI PDB FILE\nFORMAT = 4\n"
         "ATOM      1  N   ALA A   1       1.000   2.000   3.000  0.1000  12.000\n",
         IO_ERR_INPUT, 3, "radius out of range"},
        {"DELPHI PDB FILE\nFORMAT = 4\n"
         "ATOM      1  N   ALA A   1       1.000   2.000   3.000 11.1000   2.000\n",
         IO_ERR_INPUT, 3, "charge out of range"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_text("d.pdb", cases[i].text);
        molecule mol;
        io_error err;
        int rc = molecule_read_delphi_pdb("d.pdb", &mol, NULL, &err);
        CHECK(rc == cases[i].status);
        CHECK_ERROR_AT(rc, err, "d.pdb", cases[i].line);
        CHECK_CONTAINS(err.message, cases[i].part);
    }
    write_text("s.pdb", "ATOM      1  N   ALA A   1       1.000   2.000\n");
    molecule mol;
    io_error err;
    int rc = molecule_read_sites("s.pdb", &mol, NULL, &err);
    CHECK_ERROR_AT(rc, err, "s.pdb", 1);
    CHECK_CONTAINS(err.message, "malformed site line");
}

/* A run that fails on its input: settings name outputs, the molecule is bad, nothing written. */
static void check_no_output_after_bad_input(void) {
    mkdir("run", 0777);
    if (chdir("run") != 0) return;
    write_text("bad.pqr", "ATOM 1 N MET A 1 1.0 2.0 3.0 0.1 99\n");
    char *argv[] = {"delphi-gpu", "--pqr",  "bad.pqr", "--phi", "o.phi", "--dx", "o.dx",
                    "--json",     "o.json", "--frc",   "o.frc", "--log", "o.log"};
    run_settings s;
    io_notes notes;
    io_error err;
    io_notes_clear(&notes);
    int rc = settings_load(&s, (int)(sizeof argv / sizeof argv[0]), argv, &notes, &err);
    CHECK_OK(rc, err);
    io_log log;
    FILE *sink = fopen("/dev/null", "w");
    CHECK_OK(log_open(&log, s.log_file, 1, &err), err);
    log_set_streams(&log, sink, sink);
    molecule mol;
    rc = molecule_load(&s, &mol, &notes, &err);
    CHECK(rc == IO_ERR_INPUT);
    CHECK_ERROR_AT(rc, err, "bad.pqr", 1);
    log_error(&log, "%s", err.message);
    log_close(&log, 0, &err);
    fclose(sink);
    CHECK(!file_exists("o.phi") && !file_exists("o.dx") && !file_exists("o.json"));
    CHECK(!file_exists("o.frc") && !file_exists("o.log"));
    CHECK(count_names_containing(".", ".tmp-") == 0);
    if (chdir("..") != 0) perror("chdir");
}

/* A write that fails half-way (file size limit) leaves no file and no temporary. */
static void check_failed_write_leaves_nothing(void) {
    struct rlimit old, small;
    if (getrlimit(RLIMIT_FSIZE, &old) != 0) return;
    signal(SIGXFSZ, SIG_IGN);
    map_grid m;
    io_error err;
    int n[3] = {41, 41, 41};
    double c[3] = {0, 0, 0};
    CHECK_OK(map_grid_alloc(&m, n, 2.0, c, &err), err);
    for (size_t i = 0; i < map_grid_points(&m); i++)
        m.values[i] = (double)i * 1e-3;
    small = old;
    small.rlim_cur = 20000; /* bytes: far less than the map needs */
    if (setrlimit(RLIMIT_FSIZE, &small) == 0) {
        int rc = map_write("big.dx", MAP_DX, &m, NULL, &err);
        int rc2 = map_write("big.phi", MAP_DELPHI, &m, NULL, &err);
        setrlimit(RLIMIT_FSIZE, &old);
        CHECK(rc == IO_ERR_FILE && rc2 == IO_ERR_FILE);
        CHECK_CONTAINS(err.message, "big.phi");
        CHECK(!file_exists("big.dx") && !file_exists("big.phi"));
        CHECK(count_names_containing(".", ".tmp-") == 0);
    }
    /* A failing write must not destroy an existing file of that name either. */
    write_text("keep.phi", "old content");
    n[1] = 43; /* non-cubic: refused by the DelPhi format before anything is written */
    map_grid q;
    CHECK_OK(map_grid_alloc(&q, n, 2.0, c, &err), err);
    int rc = map_write("keep.phi", MAP_DELPHI, &q, NULL, &err);
    CHECK(rc == IO_ERR_UNSUPPORTED);
    CHECK_CONTAINS(err.message, "cubic");
    char *kept = read_text("keep.phi");
    CHECK(kept && strcmp(kept, "old content") == 0);
    free(kept);
    /* An output in a directory that does not exist. */
    rc = map_write("no/such/dir/x.dx", MAP_DX, &m, NULL, &err);
    CHECK(rc == IO_ERR_FILE);
    CHECK_CONTAINS(err.message, "no/such/dir/x.dx");
    map_grid_free(&m);
    map_grid_free(&q);
}

int main(void) {
    test_enter_scratch("bad_inputs");
    check_pqr_cases();
    check_pdb_cases();
    check_delphi_cases();
    check_no_output_after_bad_input();
    check_failed_write_leaves_nothing();
    return test_finish("host_io_bad_inputs");
}
