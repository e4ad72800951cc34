/* Command-line options (CLI.md), their precedence over the parameter file, and the resolution
 * of file names (cwd first, then the parameter file's directory; DelPhi's default names). */
#include "test_util.h"

#include <sys/stat.h>

#include "delphi_gpu/delphi_gpu_types.h"
#include "host_io.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof(a)[0]))

static int notes_contain(const io_notes *notes, const char *part) {
    for (int i = 0; i < notes->count; i++)
        if (strstr(notes->text[i], part)) return 1;
    return 0;
}

static int load(int argc, char **argv, run_settings *s, io_notes *notes, io_error *err) {
    io_notes_clear(notes);
    return settings_load(s, argc, argv, notes, err);
}

static void test_find_param_file(void) {
    io_error err;
    const char *p = NULL;
    char *a1[] = {"delphi-gpu", "--quiet",     "--gsize",  "65",
                  "run.prm",    "--pqr=x.pqr", "--temper", "-5"};
    CHECK_OK(settings_find_param_file(ARGC(a1), a1, &p, &err), err);
    CHECK(p && strcmp(p, "run.prm") == 0);
    char *a2[] = {"delphi-gpu", "a.prm", "b.prm"};
    CHECK(settings_find_param_file(ARGC(a2), a2, &p, &err) == IO_ERR_INPUT);
    CHECK_CONTAINS(err.message, "more than one parameter file");
    char *a3[] = {"delphi-gpu", "--frobnicate", "a.prm"};
    CHECK(settings_find_param_file(ARGC(a3), a3, &p, &err) == IO_ERR_INPUT);
    CHECK_CONTAINS(err.message, "unknown option '--frobnicate'");
    char *a4[] = {"delphi-gpu", "-x"};
    CHECK(settings_find_param_file(ARGC(a4), a4, &p, &err) == IO_ERR_INPUT);
    char *a5[] = {"delphi-gpu", "--gsize"};
    CHECK(settings_find_param_file(ARGC(a5), a5, &p, &err) == IO_ERR_INPUT);
    CHECK_CONTAINS(err.message, "--gsize: needs a value");
    char *a6[] = {"delphi-gpu", "--quiet=yes"};
    CHECK(settings_find_param_file(ARGC(a6), a6, &p, &err) == IO_ERR_INPUT);
    char *a7[] = {"delphi-gpu", "--", "--odd-name.prm"};
    CHECK_OK(settings_find_param_file(ARGC(a7), a7, &p, &err), err);
    CHECK(p && strcmp(p, "--odd-name.prm") == 0);
}

static void test_overrides(void) {
    write_text("mol.pqr",
               "ATOM      1  ION ION     1       0.000   0.000   0.000  1.0000 2.0000\n");
    write_text("mol.pdb", "ATOM      1  ION ION     1       0.000   0.000   0.000\n");
    write_text("run.prm", "gsize=33, scale=1, perfil=50, indi=2, exdi=80, prbrad=1.4\n"
                          "ionrad=2, salt=0, salt2=0, bndcon=2, linit=10, nonit=0\n"
                          "maxc=0, rmsc=0, normc=0, relfac=0.1, relpar=1, conint=10\n"
                          "confra=1, temper=0\n"
                          "in(pdb,file=\"mol.pdb\")\n"
                          "out(phi,file=\"file.phi\"), out(phi,file=\"file.dx\",format=dx)\n"
                          "energy(g,s)\n");
    char *argv[] = {"delphi-gpu",
                    "--gsize",
                    "65",
                    "--scale=2.5",
                    "--perfil",
                    "70",
                    "--indi",
                    "4",
                    "--exdi",
                    "60",
                    "--prbrad",
                    "1.2",
                    "--ionrad",
                    "1.5",
                    "--salt",
                    "0.1",
                    "--salt2",
                    "0.2",
                    "--val+2", /* the second salt counts with both of its valences */
                    "1",
                    "--val-2",
                    "1",
                    "--bndcon",
                    "4",
                    "--linit",
                    "200",
                    "--nonit",
                    "40",
                    "--maxc",
                    "1e-3",
                    "--rmsc",
                    "1e-4",
                    "--normc",
                    "1e-2",
                    "--relfac",
                    "0.95",
                    "--relpar",
                    "0.5",
                    "--conint",
                    "5",
                    "--confra",
                    "3",
                    "--temper",
                    "25",
                    "run.prm",
                    "--set",
                    "acenter(1,2,3)",
                    "--pqr",
                    "mol.pqr",
                    "--phi",
                    "opt.phi",
                    "--cube",
                    "opt.cube",
                    "--mrc",
                    "opt.mrc",
                    "--frc",
                    "opt.frc",
                    "--scrg",
                    "opt.scrg",
                    "--eps",
                    "opt.eps",
                    "--json",
                    "opt.json",
                    "--log",
                    "opt.log",
                    "--backend",
                    "cpu",
                    "--precision",
                    "float",
                    "--device",
                    "1",
                    "--threads",
                    "4",
                    "--surface",
                    "vdw",
                    "--energy",
                    "c, ion",
                    "--solvation-two-run",
                    "--quiet",
                    "--autoc=false",
                    "--val-1",
                    "2"};
    run_settings s;
    io_notes notes;
    io_error err;
    int rc = load(ARGC(argv), argv, &s, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(s.gsize == 65 && s.scale == 2.5 && s.perfil == 70.0 && s.indi == 4.0);
    CHECK(s.exdi == 60.0 && s.prbrad == 1.2 && s.ionrad == 1.5 && s.salt == 0.1);
    CHECK(s.salt2 == 0.2 && s.bndcon == 4 && s.linit == 200 && s.nonit == 40);
    CHECK(s.maxc == 1e-3 && s.rmsc == 1e-4 && s.normc == 1e-2 && s.relfac == 0.95);
    CHECK(s.relpar == 0.5 && s.conint == 5 && s.confra == 3);
    CHECK_NEAR(s.temperature, 298.15, 1e-12);
    CHECK(s.center_mode == 1 && s.center[1] == 2.0);
    CHECK(strcmp(s.pqr_file, "mol.pqr") == 0 && s.pdb_file[0] == '\0');
    CHECK(notes_contain(&notes, "--pqr overrides in(pdb)"));
    /* --phi replaced the file's DelPhi map, the file's dx output stays, --cube and --mrc added */
    CHECK(s.map_count == 4);
    int phi = 0, dx = 0, cube = 0, mrc = 0;
    for (int i = 0; i < s.map_count; i++) {
        if (s.maps[i].format == MAP_DELPHI) phi += strcmp(s.maps[i].path, "opt.phi") == 0;
        if (s.maps[i].format == MAP_DX) dx += strcmp(s.maps[i].path, "file.dx") == 0;
        if (s.maps[i].format == MAP_CUBE) cube += strcmp(s.maps[i].path, "opt.cube") == 0;
        if (s.maps[i].format == MAP_MRC) mrc += strcmp(s.maps[i].path, "opt.mrc") == 0;
    }
    CHECK(phi == 1 && dx == 1 && cube == 1 && mrc == 1);
    CHECK(strcmp(s.frc_out_file, "opt.frc") == 0 && strcmp(s.json_file, "opt.json") == 0);
    CHECK(strcmp(s.log_file, "opt.log") == 0 && strcmp(s.scrg_out_file, "opt.scrg") == 0);
    CHECK(strcmp(s.eps_out_file, "opt.eps") == 0);
    CHECK(s.backend == DG_BACKEND_CPU && s.precision == DG_PRECISION_FLOAT);
    CHECK(s.device == 1 && s.threads == 4 && s.surface == SURFACE_VDW);
    CHECK(!s.energy_grid && !s.energy_solvation && s.energy_coulombic && s.energy_ionic);
    CHECK(s.solvation_two_run && s.quiet && s.autoc == 0 && s.valence[1] == 2);

    /* Bad option values name the option. */
    static const struct {
        const char *option, *value, *part;
    } bad[] = {
        {"--backend", "gpu", "--backend: 'gpu' is not one of auto|cpu|cuda"},
        {"--precision", "half", "--precision"},
        {"--surface", "sas", "--surface"},
        {"--device", "-1", "--device"},
        {"--threads", "many", "--threads"},
        {"--gsize", "abc", "--gsize: gsize: value 'abc' is not an integer"},
        {"--energy", "x", "--energy"},
        {"--set", "foo=1", "--set: foo: unknown statement"},
        {"--pqr", "", "--pqr: empty value"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *a[] = {"delphi-gpu", "--pqr", "mol.pqr", (char *)bad[i].option, (char *)bad[i].value};
        rc = load(ARGC(a), a, &s, &notes, &err);
        CHECK(rc == IO_ERR_INPUT);
        CHECK_CONTAINS(err.message, bad[i].part);
    }
    /* A file name longer than the settings keep is refused, never cut to another name: an
       input, an output, the parameter file. */
    static char longname[SETTINGS_PATH_MAX + 40];
    memset(longname, 'a', sizeof longname - 5);
    memcpy(longname + sizeof longname - 5, ".pqr", 5);
    const char *options[] = {"--pqr", "--phi", "--json", "--frc"};
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++) {
        char *a[] = {"delphi-gpu", "--pqr", "mol.pqr", (char *)options[i], longname};
        rc = load(ARGC(a), a, &s, &notes, &err);
        CHECK(rc == IO_ERR_INPUT);
        CHECK_CONTAINS(err.message, options[i]);
        CHECK_CONTAINS(err.message, "characters long (at most 1023)");
    }
    char *a[] = {"delphi-gpu", longname};
    CHECK(load(ARGC(a), a, &s, &notes, &err) == IO_ERR_INPUT);
    CHECK_CONTAINS(err.message, "parameter file's name is");
}

static void test_help_and_version(void) {
    run_settings s;
    io_notes notes;
    io_error err;
    char *a[] = {"delphi-gpu", "missing.prm", "--help"};
    CHECK_OK(load(ARGC(a), a, &s, &notes, &err), err); /* no file is read */
    CHECK(s.show_help == 1);
    char *b[] = {"delphi-gpu", "--version"};
    CHECK_OK(load(ARGC(b), b, &s, &notes, &err), err);
    CHECK(s.show_version == 1);
    CHECK_CONTAINS(settings_usage(), "--solvation-two-run");
    CHECK_CONTAINS(settings_usage(), "--phi-in");
    /* every option the command line takes is described (--periodic was not) */
    int options = 0;
    for (const char *name; (name = settings_option_name((size_t)options)) != NULL; ++options) {
        char dashed[64];
        const int length = snprintf(dashed, sizeof dashed, "--%s", name);
        int found = 0; /* as a whole word: not the start of a longer option's name */
        for (const char *at = settings_usage(); !found && (at = strstr(at, dashed)) != NULL;
             at += length) {
            const char next = at[length];
            found = !(next == '-' || (next >= 'a' && next <= 'z') || (next >= '0' && next <= '9'));
        }
        CHECK(found, "--help does not describe --%s", name);
    }
    CHECK(options > 30, "%d options", options);
}

static void test_resolution(void) {
    run_settings s;
    io_notes notes;
    io_error err;
    mkdir("inputs", 0777);
    write_text("inputs/run.prm", "in(pdb,file=\"prot.pdb\"), in(siz,file=\"r.siz\")\n"
                                 "in(crg,file=\"c.crg\")\n");
    write_text("inputs/prot.pdb", "ATOM      1  CA  ALA A   1       0.000   0.000   0.000\n");
    write_text("inputs/r.siz", "atom__res_radius_\nCA        2.000\n");
    write_text("inputs/c.crg", "atom__resnumbc_charge_\n");
    write_text("c.crg", "atom__resnumbc_charge_\nCA            0.5\n"); /* cwd wins */
    char *a[] = {"delphi-gpu", "inputs/run.prm"};
    int rc = load(ARGC(a), a, &s, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(strcmp(s.pdb_file, "inputs/prot.pdb") == 0);
    CHECK(strcmp(s.siz_file, "inputs/r.siz") == 0);
    CHECK(strcmp(s.crg_file, "c.crg") == 0);

    /* DelPhi's default names, found in the parameter file's directory. */
    mkdir("defaults", 0777);
    write_text("defaults/run.prm", "scale=2\n");
    write_text("defaults/fort.13", "ATOM      1  CA  ALA A   1       0.000   0.000   0.000\n");
    char *b[] = {"delphi-gpu", "defaults/run.prm"};
    rc = load(ARGC(b), b, &s, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(strcmp(s.pdb_file, "defaults/fort.13") == 0);
    CHECK(s.input_source[INPUT_PDB] == SOURCE_DEFAULT);
    CHECK(strcmp(s.siz_file, "fort.11") == 0 && strcmp(s.crg_file, "fort.12") == 0);
    molecule mol;
    rc = molecule_load(&s, &mol, &notes, &err); /* no fort.11 anywhere */
    CHECK(rc == IO_ERR_FILE);
    CHECK_CONTAINS(err.message, "fort.11");
    CHECK_CONTAINS(err.message, "DelPhi's default name");

    /* Missing input named in the file: the message names the line and both places. */
    write_text("inputs/missing.prm", "scale=2\nin(pdb,file=\"nowhere.pdb\")\n");
    char *c[] = {"delphi-gpu", "inputs/missing.prm"};
    rc = load(ARGC(c), c, &s, &notes, &err);
    CHECK(rc == IO_ERR_FILE);
    CHECK_CONTAINS(err.message, "nowhere.pdb");
    CHECK_CONTAINS(err.message, "inputs/missing.prm:2");
    CHECK_CONTAINS(err.message, "'inputs/'");

    /* Names given as options are relative to cwd only. */
    char *d[] = {"delphi-gpu", "inputs/run.prm", "--pdb", "prot.pdb"};
    rc = load(ARGC(d), d, &s, &notes, &err);
    CHECK(rc == IO_ERR_FILE);
    CHECK_CONTAINS(err.message, "given by --pdb");
}

static void test_run_checks(void) {
    run_settings s;
    io_notes notes;
    io_error err;
    write_text("one.pqr",
               "ATOM      1  ION ION     1       0.000   0.000   0.000  1.0000 2.0000\n");
    char *a[] = {"delphi-gpu", "--gsize", "33"};
    CHECK(load(ARGC(a), a, &s, &notes, &err) == IO_ERR_INPUT);
    CHECK_CONTAINS(err.message, "no input molecule");
    char *b[] = {"delphi-gpu", "--pqr", "one.pqr", "--pdb", "one.pdb"};
    CHECK(load(ARGC(b), b, &s, &notes, &err) == IO_ERR_INPUT);
    CHECK_CONTAINS(err.message, "both a PQR file");
    char *c[] = {"delphi-gpu", "--pqr", "one.pqr", "--bndcon", "3"};
    CHECK(load(ARGC(c), c, &s, &notes, &err) == IO_ERR_INPUT);
    CHECK_CONTAINS(err.message, "focusing");
    char *d[] = {"delphi-gpu", "--pqr", "one.pqr", "--bndcon", "3", "--phi-in", "none.phi"};
    CHECK(load(ARGC(d), d, &s, &notes, &err) == IO_ERR_FILE);
    CHECK_CONTAINS(err.message, "none.phi");
    char *e[] = {"delphi-gpu", "--pqr", "one.pqr", "--dx", "x.out", "--json", "x.out"};
    CHECK(load(ARGC(e), e, &s, &notes, &err) == IO_ERR_INPUT);
    CHECK_CONTAINS(err.message, "named twice");
    char *f[] = {"delphi-gpu", "--pqr", "one.pqr", "--frc", "one.pqr"};
    CHECK(load(ARGC(f), f, &s, &notes, &err) == IO_ERR_INPUT);
    CHECK_CONTAINS(err.message, "overwrite an input");
    char *f2[] = {"delphi-gpu", "--pqr", "one.pqr", "--scrg", "one.pqr"};
    CHECK(load(ARGC(f2), f2, &s, &notes, &err) == IO_ERR_INPUT);
    CHECK_CONTAINS(err.message, "overwrite an input");
    char *f3[] = {"delphi-gpu", "--pqr", "one.pqr", "--scrg", "x.out", "--frc", "x.out"};
    CHECK(load(ARGC(f3), f3, &s, &notes, &err) == IO_ERR_INPUT);
    CHECK_CONTAINS(err.message, "named twice");
    char *f4[] = {"delphi-gpu", "--pqr", "one.pqr", "--eps", "one.pqr"};
    CHECK(load(ARGC(f4), f4, &s, &notes, &err) == IO_ERR_INPUT);
    CHECK_CONTAINS(err.message, "overwrite an input");
    char *f5[] = {"delphi-gpu", "--pqr", "one.pqr", "--eps", "x.out", "--phi", "x.out"};
    CHECK(load(ARGC(f5), f5, &s, &notes, &err) == IO_ERR_INPUT);
    CHECK_CONTAINS(err.message, "named twice");
    char *g[] = {"delphi-gpu", "--pqr", "one.pqr", "--nonit", "50", "--phi-in", "x.phi"};
    CHECK_OK(load(ARGC(g), g, &s, &notes, &err), err);
    CHECK(notes_contain(&notes, "no effect without salt"));
    CHECK(notes_contain(&notes, "bndcon is not 3"));
    /* periodic axes: pbx/pby/pbz and --periodic; nonlinear runs keep Newton's method (its steps
       by the SOR); multigrid is refused, mixed precision and Newton asked for are not */
    char *h[] = {"delphi-gpu", "--pqr", "one.pqr", "--set", "pbx=true, pbz=true",
                 "--salt",     "0.1",   "--nonit", "30"};
    CHECK_OK(load(ARGC(h), h, &s, &notes, &err), err);
    CHECK(s.periodic == (DG_PERIODIC_X | DG_PERIODIC_Z));
    CHECK(s.nonlinear_method == NONLINEAR_NEWTON && !notes_contain(&notes, "DelPhi's scheme"));
    char *h1[] = {"delphi-gpu", "--pqr",   "one.pqr", "--set",       "pbz=true", "--salt",
                  "0.1",        "--nonit", "30",      "--nonlinear", "delphi"};
    CHECK_OK(load(ARGC(h1), h1, &s, &notes, &err), err);
    CHECK(s.nonlinear_method == NONLINEAR_DELPHI);
    char *h2[] = {"delphi-gpu", "--pqr", "one.pqr", "--periodic", "yZ", "--set", "pbx=true"};
    CHECK_OK(load(ARGC(h2), h2, &s, &notes, &err), err);
    CHECK(s.periodic == (DG_PERIODIC_X | DG_PERIODIC_Y | DG_PERIODIC_Z));
    char *h3[] = {"delphi-gpu", "--pqr", "one.pqr", "--set", "pbz=true", "--periodic", "none"};
    CHECK_OK(load(ARGC(h3), h3, &s, &notes, &err), err);
    CHECK(s.periodic == 0);
    char *h4[] = {"delphi-gpu", "--pqr", "one.pqr", "--set", "pbz=true", "--precision", "mixed"};
    CHECK_OK(load(ARGC(h4), h4, &s, &notes, &err), err);
    CHECK(s.periodic == DG_PERIODIC_Z && s.precision == DG_PRECISION_MIXED);
    /* multigrid with periodic axes, linear or Newton's steps: either backend, as asked */
    char *h5[] = {"delphi-gpu", "--pqr", "one.pqr", "--set", "pbz=true", "--solver", "mg"};
    CHECK_OK(load(ARGC(h5), h5, &s, &notes, &err), err);
    CHECK(s.solver == DG_SOLVER_MULTIGRID && s.backend == DG_BACKEND_AUTO);
    char *h6[] = {"delphi-gpu", "--pqr", "one.pqr", "--set", "pbz=true",  "--solver", "mg",
                  "--salt",     "0.1",   "--nonit", "30",    "--backend", "cuda"};
    CHECK_OK(load(ARGC(h6), h6, &s, &notes, &err), err);
    CHECK(s.solver == DG_SOLVER_MULTIGRID && s.backend == DG_BACKEND_CUDA);
    const char *bad[][5] = {{"--periodic", "xw", "--backend", "auto", "not 'none'"},
                            {"--periodic", "zz", "--backend", "auto", "not 'none'"}};
    /* multigrid with x, y and z periodic and no salt: no unique solution, refused by name */
    char *h7[] = {"delphi-gpu", "--pqr", "one.pqr", "--periodic", "xyz", "--solver", "mg"};
    CHECK(load(ARGC(h7), h7, &s, &notes, &err) != IO_OK);
    CHECK_CONTAINS(err.message, "--solver");
    CHECK_CONTAINS(err.message, "no unique solution");
    char *h8[] = {"delphi-gpu", "--pqr", "one.pqr", "--periodic", "xyz",
                  "--solver",   "mg",    "--salt",  "0.1"};
    CHECK_OK(load(ARGC(h8), h8, &s, &notes, &err), err);
    for (int i = 0; i < 2; ++i) {
        char *argv_bad[] = {"delphi-gpu",
                            "--pqr",
                            "one.pqr",
                            "--set",
                            "pbz=true",
                            "--salt",
                            "0.1",
                            "--nonit",
                            "30",
                            (char *)bad[i][0],
                            (char *)bad[i][1],
                            (char *)bad[i][2],
                            (char *)bad[i][3]};
        CHECK(load(ARGC(argv_bad), argv_bad, &s, &notes, &err) != IO_OK);
        CHECK_CONTAINS(err.message, bad[i][4]);
    }
}

/* DelPhi's default parameter file: fort.10 in the current directory when no parameter file
 * is named and no option names the molecule; --frc-format. */
static void test_default_parameter_file(void) {
    run_settings s;
    io_notes notes;
    io_error err;
    mkdir("dropin", 0777);
    CHECK(chdir("dropin") == 0);
    char *none[] = {"delphi-gpu"};
    int rc = load(ARGC(none), none, &s, &notes, &err); /* nothing at all: the usual error */
    CHECK(rc != IO_OK);
    CHECK_CONTAINS(err.message, "fort.10");
    write_text("fort.10", "scale=1.5\nin(pqr,file=\"a.pqr\")\n");
    write_text("a.pqr", "ATOM      1  CA  ALA A   1       0.000   0.000   0.000  0.5 1.8\n");
    write_text("b.pqr", "ATOM      1  CA  ALA A   1       1.000   0.000   0.000  0.5 1.8\n");
    rc = load(ARGC(none), none, &s, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(strcmp(s.param_file, "fort.10") == 0 && s.scale == 1.5);
    CHECK(strcmp(s.pqr_file, "a.pqr") == 0 && notes_contain(&notes, "fort.10"));
    char *opt[] = {"delphi-gpu", "--frc-format", "table", "--frc", "x.frc"};
    rc = load(ARGC(opt), opt, &s, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(strcmp(s.param_file, "fort.10") == 0 && s.frc_format == FRC_TABLE);
    /* out(frc) without in(frc): DelPhi's default site file, fort.15, when it is here; the
       atoms with in(frc,file="self") or in a run without a parameter file. */
    write_text("fort.15", "ATOM      1  CA  ALA A   1       0.000   0.000   0.000\n");
    rc = load(ARGC(opt), opt, &s, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(strcmp(s.frc_in_file, "fort.15") == 0 && s.input_source[INPUT_FRC] == SOURCE_DEFAULT);
    CHECK(notes_contain(&notes, "DelPhi's default site file"));
    char *self[] = {"delphi-gpu", "--frc", "x.frc", "--set", "in(frc,file=\"self\")"};
    rc = load(ARGC(self), self, &s, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(!s.frc_in_file[0] && s.frc_self_given);
    char *bare[] = {"delphi-gpu", "--pqr", "b.pqr", "--frc", "x.frc"};
    rc = load(ARGC(bare), bare, &s, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(!s.frc_in_file[0] && !s.param_file[0]);
    unlink("fort.15");
    char *pqr[] = {"delphi-gpu", "--pqr=b.pqr"}; /* the molecule by option: no fort.10 */
    rc = load(ARGC(pqr), pqr, &s, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(!s.param_file[0] && strcmp(s.pqr_file, "b.pqr") == 0 && s.scale != 1.5);
    char *bad[] = {"delphi-gpu", "--frc-format", "wide"};
    rc = load(ARGC(bad), bad, &s, &notes, &err);
    CHECK(rc != IO_OK);
    CHECK_CONTAINS(err.message, "'wide'");
    CHECK(chdir("..") == 0);
}

int main(void) {
    test_enter_scratch("args");
    test_default_parameter_file();
    test_find_param_file();
    test_overrides();
    test_help_and_version();
    test_resolution();
    test_run_checks();
    return test_finish("host_io_args");
}
