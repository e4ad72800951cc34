/* Parameter-file parsing: every statement in long and 2-letter form, comments, comma-separated
 * statements, functions, notices, and errors that name the file and line. */
#include "test_util.h"

#include "host_io.h"

static int notes_contain(const io_notes *notes, const char *part) {
    for (int i = 0; i < notes->count; i++)
        if (strstr(notes->text[i], part)) return 1;
    return 0;
}

/* Parse text written to a file; returns the status. */
static int parse(const char *name, const char *text, run_settings *s, io_notes *notes,
                 io_error *err) {
    write_text(name, text);
    settings_defaults(s);
    io_notes_clear(notes);
    io_error_clear(err);
    return settings_parse_file(s, name, notes, err);
}

static void test_defaults(void) {
    run_settings s;
    settings_defaults(&s);
    CHECK(s.gsize_given == 0 && s.scale == 1.2 && s.perfil == 80.0);
    CHECK(s.indi == 2.0 && s.exdi == 80.0 && s.prbrad == 1.4 && s.ionrad == 2.0);
    CHECK(s.salt == 0.0 && s.bndcon == BC_DIPOLAR && s.conint == 10 && s.confra == 1);
    CHECK(s.relpar == 1.0 && !s.relpar_given && !s.relfac_given && !s.linit_given && s.autoc);
    CHECK_NEAR(s.temperature, 297.3342, 1e-12);
    CHECK(s.valence[0] == 1 && s.valence[3] == 1 && s.map_count == 0 && s.center_mode == 0);
}

static void test_long_names(void) {
    static const char *text = "! every statement, long names\n"
                              "gsize=65\n"
                              "scale=2.0\n"
                              "perfil=70\n"
                              "indi=4\n"
                              "exdi=78.5\n"
                              "prbrad=1.2\n"
                              "ionrad=1.5\n"
                              "salt=0.15\n"
                              "salt2=0.05\n"
                              "val+1=1, val-1=2, val+2=3, val-2=4\n"
                              "bndcon=4\n"
                              "linit=500\n"
                              "nonit=10\n"
                              "maxc=1e-4\n"
                              "rmsc=1.0d-5\n"
                              "normc=0.001\n"
                              "relfac=0.9\n"
                              "relpar=0.8\n"
                              "conint=20\n"
                              "confra=2\n"
                              "temper=25\n"
                              "autoc=true\n"
                              "chebit=false\n"
                              "pbx=false, pby=f, pbz=.false.\n"
                              "grdcon=0.01\n"
                              "fcrg=true\n"
                              "radpol=1.0\n"
                              "exitun=true, solvpb=true, clcsrf=false, phicon=false\n"
                              "vdropx=0, vdropy=0, vdropz=0, atpods=0.75\n";
    run_settings s;
    io_notes notes;
    io_error err;
    int rc = parse("long.prm", text, &s, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(s.gsize == 65 && s.gsize_given);
    CHECK(s.scale == 2.0 && s.scale_given);
    CHECK(s.perfil == 70.0 && s.perfil_given);
    CHECK(s.indi == 4.0 && s.exdi == 78.5 && s.prbrad == 1.2 && s.ionrad == 1.5);
    CHECK(s.salt == 0.15 && s.salt2 == 0.05);
    CHECK(s.valence[0] == 1 && s.valence[1] == 2 && s.valence[2] == 3 && s.valence[3] == 4);
    CHECK(s.bndcon == BC_COULOMBIC);
    CHECK(s.linit == 500 && s.linit_given);
    CHECK(s.autoc == 1); /* autoc=true after linit switches it back on */
    CHECK(s.nonit == 30);
    CHECK(notes_contain(&notes, "nonit=10 raised to 30"));
    CHECK(s.maxc == 1e-4 && s.rmsc == 1e-5 && s.normc == 0.001);
    CHECK(s.relfac == 0.9 && s.relfac_given && s.relpar == 0.8 && s.relpar_given);
    CHECK(s.conint == 20 && s.confra == 2);
    CHECK_NEAR(s.temperature, 298.15, 1e-12);
    CHECK(s.grdcon == 0.01 && notes_contain(&notes, "grdcon"));
    CHECK(notes_contain(&notes, "fcrg=true"));
    CHECK(notes_contain(&notes, "radpol=1.0"));
    CHECK(s.atpods == 0.75 && !notes_contain(&notes, "atpods"));
    CHECK(notes_contain(&notes, "vdropz=0"));
    CHECK(strcmp(s.param_file, "long.prm") == 0);
    /* notes name the file and line */
    CHECK(notes_contain(&notes, "long.prm:14"));
}

static void test_short_names(void) {
    static const char *text = "GS=33, SC=1.5, PF=60\n"
                              "Id=2.5, eD=40, pr=1.0, ir=1.0\n"
                              "is=0.1, bc=1, li=100, NI=50\n"
                              "rf=0.5, te=0, gc=0\n"
                              "ci=true\n";
    run_settings s;
    io_notes notes;
    io_error err;
    int rc = parse("short.prm", text, &s, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(s.gsize == 33 && s.scale == 1.5 && s.perfil == 60.0);
    CHECK(s.indi == 2.5 && s.exdi == 40.0 && s.prbrad == 1.0 && s.ionrad == 1.0);
    CHECK(s.salt == 0.1 && s.bndcon == BC_ZERO && s.linit == 100 && s.autoc == 0);
    CHECK(s.nonit == 50 && s.relfac == 0.5 && s.grdcon == 0.0);
    CHECK_NEAR(s.temperature, 273.15, 1e-12);
    /* ci is chebit, not conint */
    CHECK(s.conint == 10);
    CHECK(notes_contain(&notes, "chebit"));
}

/* DelPhi's other names (stock DelPhi 2010 reads them all): its long names, the rest of its
 * two-letter codes and six-letter names, cent/acent, out(kind,off); the second salt's
 * valences are 0 there until val+2 and val-2 are given. */
static void test_delphi_aliases(void) {
    static const char *text = "GRIDSIZE=41, PERCENTFILL=40, INTERIORDIELECTRIC=3\n"
                              "EXTERNALDIELECTRIC=78, PROBERADIUS=1.2, IONRADIUS=1.8\n"
                              "SALTCONCENTRATION=0.05, BOUNDARYCONDITIONS=4, TEMPERATURE=30\n"
                              "LINEARITERATIONS=200, NONLINEARITERATION=40, RELAXATIONFACTOR=0.9\n"
                              "CONVERGENCEINTERVAL=7, CONVERGENCEFRACTION=2, AUTOCON=false\n"
                              "RMSCONVERGENCE=1e-5, MAXCONVERGENCE=1e-4, NORMCONVERGENCE=1e-3\n"
                              "PERIODICBOUNDARYX=true, pz=t, RR=0.7, s2=0.02, +1=2, -1=1\n"
                              "+2=1, -2=3, xc=2e-4, mc=3e-5, nc=4e-3, ad=0.7\n"
                              "memdat=0, LOGFILEPOTENTIALS=true, radpr2=1.0, cf=3\n"
                              "cent(1,2,3)\nqpref(x)\nout(phi,file=\"a.phi\")\nout(phi,off)\n"
                              "out(frc,file=\"b.frc\")\nout(frc,off)\nout(hsurf)\n"
                              "out(eps,on)\n";
    run_settings s;
    io_notes notes;
    io_error err;
    int rc = parse("aliases.prm", text, &s, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(s.gsize == 41 && s.perfil == 40.0 && s.indi == 3.0 && s.exdi == 78.0);
    CHECK(s.prbrad == 1.2 && s.ionrad == 1.8 && s.salt == 0.05 && s.bndcon == BC_COULOMBIC);
    CHECK_NEAR(s.temperature, 303.15, 1e-12);
    CHECK(s.linit == 200 && s.nonit == 40 && s.relfac == 0.9 && s.conint == 7);
    CHECK(s.confra == 3 && s.autoc == 0 && s.relpar == 0.7 && s.salt2 == 0.02);
    CHECK(s.valence[0] == 2 && s.valence[1] == 1 && s.valence[2] == 1 && s.valence[3] == 3);
    CHECK(s.maxc == 2e-4 && s.rmsc == 3e-5 && s.normc == 4e-3 && s.atpods == 0.7);
    CHECK(s.periodic == (1 | 4)); /* x and z */
    CHECK(s.center_mode == 2 && s.center[0] == 1.0 && s.center[2] == 3.0);
    CHECK(s.map_count == 0 && !s.frc_out_file[0] && s.eps_out_file[0]);
    CHECK(notes_contain(&notes, "memdat") && notes_contain(&notes, "logpot") &&
          notes_contain(&notes, "qpref") && notes_contain(&notes, "out(hsurf)"));
    /* A single-file output named twice: the later name, with a warning. */
    rc = parse("twice.prm", "out(frc,file=\"f1\")\nout(frc,file=\"f2\")\n", &s, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(!strcmp(s.frc_out_file, "f2") && notes_contain(&notes, "'f2' replaces 'f1'"));
    /* acent is acenter. */
    rc = parse("acent.prm", "acent(1,2,3)\n", &s, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(s.center_mode == 1 && s.center[1] == 2.0);

    /* salt2 without both of its valences: left out, as DelPhi leaves it out, with a warning. */
    write_text("m.pqr", "ATOM      1  C   ALA A   1       0.000   0.000   0.000  1.00 2.00\n");
    rc = parse("s2.prm", "in(pqr,file=\"m.pqr\")\nsalt=0.1\nsalt2=0.05\nval+2=2\n", &s, &notes,
               &err);
    CHECK_OK(rc, err);
    rc = settings_resolve(&s, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(s.salt == 0.1 && s.salt2 == 0.0 && notes_contain(&notes, "val-2"));
    rc = parse("s2b.prm", "in(pqr,file=\"m.pqr\")\nsalt2=0.05\nval+2=2\nval-2=1\n", &s, &notes,
               &err);
    CHECK_OK(rc, err);
    rc = settings_resolve(&s, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(s.salt2 == 0.05 && s.valence[2] == 2 && !notes_contain(&notes, "val-2"));
    /* energy(ion) of a linear run: nothing to report, which a warning says. */
    rc = parse("ion.prm", "in(pqr,file=\"m.pqr\")\nsalt=0.1\nenergy(g,ion)\n", &s, &notes, &err);
    CHECK(rc == IO_OK && settings_resolve(&s, &notes, &err) == IO_OK);
    CHECK(notes_contain(&notes, "energy(ion)"));
    rc = parse("ion2.prm", "in(pqr,file=\"m.pqr\")\nsalt=0.1\nnonit=30\nenergy(g,ion)\n", &s,
               &notes, &err);
    CHECK(rc == IO_OK && settings_resolve(&s, &notes, &err) == IO_OK);
    CHECK(!notes_contain(&notes, "energy(ion)"));
}

static void test_syntax(void) {
    static const char *text = "  \n"
                              "! a comment line, with commas (and brackets)\n"
                              "s c a l e = 1 . 5   ! blanks anywhere are ignored\r\n"
                              "gsize=31,,perfil=50,\n"
                              "\tindi=3\t! tab\n"
                              "gsize=41\n" /* last one wins */
                              "!set!exdi=10\n";
    run_settings s;
    io_notes notes;
    io_error err;
    int rc = parse("syntax.prm", text, &s, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(s.scale == 1.5 && s.perfil == 50.0 && s.indi == 3.0 && s.gsize == 41);
    CHECK(s.exdi == 80.0);                        /* inside the comment */
    CHECK(notes_contain(&notes, "syntax.prm:7")); /* ...with a warning */

    /* An even gsize is kept as given (the calculation derives a scale from it, then makes it
       odd, as DelPhi); bndcon 6/7 become 2/4. */
    rc = parse("fix.prm", "gsize=64\nbndcon=6\n", &s, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(s.gsize == 64 && s.bndcon == BC_DIPOLAR);
    rc = parse("fix.prm", "bndcon=7\nnonit=0\n", &s, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(s.bndcon == BC_COULOMBIC && s.nonit == 0);
    rc = parse("fix.prm", "ni=20\n", &s, &notes, &err); /* the boundary: 20 is raised */
    CHECK_OK(rc, err);
    CHECK(s.nonit == 30);
    rc = parse("fix.prm", "ni=21\n", &s, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(s.nonit == 21 && notes.count == 0);
}

static void test_functions(void) {
    static const char *text =
        "in(pdb,file=\"MiXeD.pdb\")\n"
        "IN(SIZ,FILE=\"radii.siz\"), in(crg,file='charges.crg')\n"
        "in(phi,file=\"big.phi\"), in(frc,file=\"sites.pdb\")\n"
        "out(phi,file=\"a.phi\")\n"
        "out(phi, file=\"a.dx\", format=dx), out(phi,file=\"a.cube\",format=cube)\n"
        "out(phi,file=\"a.map\",format=CCP4), out(phi,file=\"b.mrc\",format=mrc)\n"
        "out(frc,file=\"x.frc\")\n"
        "out(scrg,file=\"charges.txt\",format=pdb)\n"
        "out(eps,file=\"eps.map\"), out(srf)\n"
        "energy(g,s,c,ion)\n"
        "site(a,p,f,r,Coulomb,rf,i,DEB,t,CF,TF)\n"
        "acenter(1.5,-2,3e1)\n"
        "buffz(1,2,3,4,5,6)\n";
    run_settings s;
    io_notes notes;
    io_error err;
    int rc = parse("func.prm", text, &s, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(strcmp(s.pdb_file, "MiXeD.pdb") == 0);
    CHECK(s.input_source[INPUT_PDB] == SOURCE_FILE);
    CHECK(strcmp(s.input_origin[INPUT_PDB], "func.prm:1") == 0);
    CHECK(strcmp(s.siz_file, "radii.siz") == 0 && strcmp(s.crg_file, "charges.crg") == 0);
    CHECK(strcmp(s.phi_in_file, "big.phi") == 0 && strcmp(s.frc_in_file, "sites.pdb") == 0);
    CHECK(s.map_count == 5);
    CHECK(s.maps[0].format == MAP_DELPHI && strcmp(s.maps[0].path, "a.phi") == 0);
    CHECK(s.maps[1].format == MAP_DX && strcmp(s.maps[1].path, "a.dx") == 0);
    CHECK(s.maps[2].format == MAP_CUBE && strcmp(s.maps[2].path, "a.cube") == 0);
    CHECK(s.maps[3].format == MAP_MRC && strcmp(s.maps[3].path, "a.map") == 0);
    CHECK(s.maps[4].format == MAP_MRC && strcmp(s.maps[4].path, "b.mrc") == 0);
    CHECK(strcmp(s.frc_out_file, "x.frc") == 0 && strcmp(s.scrg_out_file, "charges.txt") == 0);
    CHECK(s.scrg_format == SCRG_DELPHI_PDB && !notes_contain(&notes, "format=pdb"));
    CHECK(!notes_contain(&notes, "out(eps)") && strcmp(s.eps_out_file, "eps.map") == 0);
    CHECK(notes_contain(&notes, "out(srf)"));
    CHECK(s.energy_grid && s.energy_solvation && s.energy_coulombic && s.energy_ionic);
    CHECK(s.site_field == 1 && s.site_reaction == 1 && s.site_coulombic == 1);
    CHECK(!notes_contain(&notes, "site(r)") && !notes_contain(&notes, "site(Coulomb)"));
    CHECK(!notes_contain(&notes, "site(rf)") && notes_contain(&notes, "site(t)"));
    CHECK(s.site_reaction_force == 1 && s.site_total_force == 1);
    CHECK(!notes_contain(&notes, "site(TF)"));
    CHECK(!notes_contain(&notes, "site(i)") && !notes_contain(&notes, "site(DEB)"));
    CHECK(s.site_salt == 1 && s.site_debye == 1 && s.site_coulombic_force == 1);
    CHECK(!notes_contain(&notes, "site(CF)"));
    CHECK(s.center_mode == 1 && s.center[0] == 1.5 && s.center[1] == -2.0 && s.center[2] == 30.0);
    CHECK(notes_contain(&notes, "buffz"));
    /* DelPhi's in(frc,file="self"): the atoms are the sites, no file is read. */
    rc = parse("self.prm", "in(frc,file=\"a.pdb\")\nin(frc,file=\"self\")\n", &s, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(!s.frc_in_file[0] && s.input_source[INPUT_FRC] == SOURCE_NONE);

    /* Defaults of unnamed files; center(); in(pqr) and in(pdb,...,format=pqr). */
    rc = parse("func2.prm",
               "in(phi), out(phi), out(frc), out(scrg), out(modpdb), out(eps), center(1,2,3), "
               "energy(grid,solvation)\n"
               "in(pdb,file=\"x.pqr\",format=pqr)\n",
               &s, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(strcmp(s.phi_in_file, "fort.18") == 0);
    CHECK(s.map_count == 1 && strcmp(s.maps[0].path, "fort.14") == 0);
    CHECK(strcmp(s.frc_out_file, "fort.16") == 0 && strcmp(s.scrg_out_file, "scrg.dat") == 0);
    CHECK(!notes_contain(&notes, "out(scrg)") && !notes_contain(&notes, "out(modpdb)"));
    CHECK(strcmp(s.modpdb_out_file, "fort.19") == 0 && s.modpdb_format == MODPDB_DELPHI1);
    CHECK(strcmp(s.eps_out_file, "fort.17") == 0 && !notes_contain(&notes, "out(eps)"));
    CHECK(s.center_mode == 2 && s.center[2] == 3.0 && !s.center_file[0]);
    CHECK(s.energy_grid && s.energy_solvation && !s.energy_coulombic);
    CHECK(strcmp(s.pqr_file, "x.pqr") == 0 && s.pdb_file[0] == '\0');
    /* center(file=...): an input (named where it was given); a later centre replaces it. */
    rc = parse("cf.prm", "in(pqr,file=\"m.pqr\")\ncenter(file='lig.pdb')\n", &s, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(strcmp(s.center_file, "lig.pdb") == 0 && s.center_mode == 1);
    CHECK(s.input_source[INPUT_CENTER] == SOURCE_FILE);
    CHECK(strcmp(s.input_origin[INPUT_CENTER], "cf.prm:2") == 0);
    rc = parse("cf2.prm", "center(file='lig.pdb')\ncenter(0,0,1)\n", &s, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(!s.center_file[0] && s.center_mode == 2 && s.input_source[INPUT_CENTER] == SOURCE_NONE);
    rc = parse("cf3.prm", "center(1,2,3)\ncenter()\n", &s, &notes, &err); /* DelPhi: zero */
    CHECK_OK(rc, err);
    CHECK(s.center_mode == 2 && s.center[0] == 0.0 && s.center[2] == 0.0);
    /* out(modpdb4) and format=pqr; an unknown format is refused, naming it. */
    rc = parse("mod4.prm", "in(pqr,file=\"m.pqr\")\nout(modpdb4,file=\"a.pdb\")\n", &s, &notes,
               &err);
    CHECK_OK(rc, err);
    CHECK(strcmp(s.modpdb_out_file, "a.pdb") == 0 && s.modpdb_format == MODPDB_DELPHI4);
    rc = parse("modq.prm", "in(pqr,file=\"m.pqr\")\nout(modpdb,file=\"a.pqr\",format=PQR)\n", &s,
               &notes, &err);
    CHECK_OK(rc, err);
    CHECK(strcmp(s.modpdb_out_file, "a.pqr") == 0 && s.modpdb_format == MODPDB_PQR);
    rc = parse("modx.prm", "in(pqr,file=\"m.pqr\")\nout(modpdb,format=xyz)\n", &s, &notes, &err);
    CHECK(rc == IO_ERR_INPUT);
    CHECK_CONTAINS(err.message, "'xyz'");
    CHECK_CONTAINS(err.message, "modx.prm:2");
    /* out(eps) writes DelPhi's layout only: another format is refused, naming it. */
    rc = parse("epsx.prm", "in(pqr,file=\"m.pqr\")\nout(eps,file=\"e.dx\",format=dx)\n", &s, &notes,
               &err);
    CHECK(rc == IO_ERR_UNSUPPORTED);
    CHECK_CONTAINS(err.message, "'dx'");
    CHECK_CONTAINS(err.message, "epsx.prm:2");
    rc = parse("epsd.prm", "in(pqr,file=\"m.pqr\")\nout(eps,file=\"e.bin\",format=DelPhi)\n", &s,
               &notes, &err);
    CHECK_OK(rc, err);
    CHECK(strcmp(s.eps_out_file, "e.bin") == 0);
    rc = parse("func3.prm", "in(pqr,file=\"m.pqr\")\n", &s, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(strcmp(s.pqr_file, "m.pqr") == 0);
}

/* Each bad statement alone on line 3 of a file: the error names func.prm:3. */
/* What a DelPhi driver such as MCCE's step 3 writes: DelPhi's unformatted PDB, centre codes
 * 777/999, energy(an), DelPhi's frc formats, site() resets; and fort.10 as the default. */
static void test_delphi_driver(void) {
    run_settings s;
    io_notes notes;
    io_error err;
    int rc = parse("mcce.prm",
                   "in(unpdb,file=\"fort.13\")\ncenter(777, 777, 0)\nsite(a,c,p)\n"
                   "energy(g,an,sol)\nout(frc,file=\"run01.frc\")\nout(unpdb,file=\"a.bin\")\n",
                   &s, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(strcmp(s.pdb_file, "fort.13") == 0 && s.input_source[INPUT_PDB] == SOURCE_FILE);
    CHECK(strcmp(s.center_file, "fort.27") == 0 && s.center_first_atom && s.center_mode == 1);
    /* A missing centre file is named with the code that asked for it. */
    char how[256];
    settings_describe_input(&s, INPUT_CENTER, how, sizeof how);
    CHECK(strstr(how, "center(777,...)") && strstr(how, "mcce.prm:2"), "%s", how);
    CHECK(s.energy_grid && s.energy_solvation && !s.energy_coulombic);
    CHECK(notes_contain(&notes, "energy(an)"));
    CHECK(s.site_given && s.site_atom && s.site_coulombic && s.site_potential);
    CHECK(!s.site_coordinates && !s.site_charge && !s.site_field);
    CHECK(s.frc_format == FRC_DELPHI && strcmp(s.unpdb_out_file, "a.bin") == 0);
    /* 999: fort.15 (DelPhi's centre file); the mean of its atoms unless y is a code too; a
       later centre statement replaces it; an ordinary offset is not a code. */
    rc = parse("c999.prm", "center(999,0,0)\n", &s, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(strcmp(s.center_file, "fort.15") == 0 && !s.center_first_atom);
    rc = parse("c999b.prm", "center(999,999,0)\ncenter(1,2,3)\n", &s, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(!s.center_file[0] && !s.center_first_atom && s.center_mode == 2 && s.center[2] == 3.0);
    rc = parse("acen.prm", "acenter(777,777,0)\n", &s, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(!s.center_file[0] && s.center_mode == 1 && s.center[0] == 777.0);
    /* DelPhi's frc formats: rc and r add their columns; table is ours; un is refused. */
    rc = parse("rc.prm", "out(frc,format=rc)\n", &s, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(s.frc_format == FRC_DELPHI_RC && strcmp(s.frc_out_file, "fort.16") == 0);
    CHECK(s.site_coordinates && s.site_charge && s.site_reaction && s.site_coulombic);
    rc = parse("r.prm", "out(frc,format=R)\n", &s, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(s.frc_format == FRC_DELPHI_R && s.site_reaction && !s.site_coulombic);
    rc = parse("tab.prm", "out(frc,file=\"t.frc\",format=table)\nout(unpdb)\n", &s, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(s.frc_format == FRC_TABLE && strcmp(s.unpdb_out_file, "fort.20") == 0);
    rc = parse("un.prm", "out(frc,format=un)\n", &s, &notes, &err);
    CHECK(rc != IO_OK && strstr(err.message, "format=un") && err.line == 1);
    rc = parse("bad.prm", "gsize=65\nout(frc,format=xyz)\n", &s, &notes, &err);
    CHECK(rc != IO_OK && strstr(err.message, "'xyz'") && err.line == 2);
    /* site() clears the columns asked before it. */
    rc = parse("reset.prm", "site(a,x,q,p,f,r)\nsite()\nsite(c)\n", &s, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(s.site_coulombic && !s.site_atom && !s.site_potential && !s.site_field &&
          !s.site_reaction && s.site_given);
    /* DelPhi's 80-character line: with the atom, coordinates, charge and potential, the
       reaction column fits and the Coulombic one does not; the standard file's field does. */
    const unsigned wide = FRC_BIT(FRC_COL_ATOM) | FRC_BIT(FRC_COL_COORDINATES) |
                          FRC_BIT(FRC_COL_CHARGE) | FRC_BIT(FRC_COL_POTENTIAL) |
                          FRC_BIT(FRC_COL_REACTION) | FRC_BIT(FRC_COL_COULOMBIC);
    CHECK(frc_delphi_columns(wide) == (wide & ~FRC_BIT(FRC_COL_COULOMBIC)));
    const unsigned standard = FRC_BIT(FRC_COL_COORDINATES) | FRC_BIT(FRC_COL_CHARGE) |
                              FRC_BIT(FRC_COL_POTENTIAL) | FRC_BIT(FRC_COL_FIELD);
    CHECK(frc_delphi_columns(standard) == standard);
    CHECK(frc_delphi_columns(standard | FRC_BIT(FRC_COL_ATOM)) ==
          (standard | FRC_BIT(FRC_COL_ATOM)) - FRC_BIT(FRC_COL_FIELD));
}

static void test_errors(void) {
    static const struct {
        const char *statement;
        int status;
        const char *part; /* expected in the message */
    } cases[] = {
        {"foo=1", IO_ERR_INPUT, "unknown statement"},
        {"scale=abc", IO_ERR_INPUT, "not a number"},
        {"scale=nan", IO_ERR_INPUT, "finite"},
        {"gsize=", IO_ERR_INPUT, "missing value"},
        {"gsize=3", IO_ERR_INPUT, "out of range"},
        {"gsize=33.5", IO_ERR_INPUT, "integer"},
        {"scale", IO_ERR_INPUT, "missing '=value'"},
        {"blah", IO_ERR_INPUT, "unknown or malformed"},
        {"in(pdb", IO_ERR_INPUT, "unbalanced"},
        {"in(pdb,file=\"x.pdb)", IO_ERR_INPUT, "not closed"},
        {"in(xyz,file=a)", IO_ERR_INPUT, "unknown input kind"},
        {"in(pdb,unit=13)", IO_ERR_UNSUPPORTED, "unit="},
        {"in(pdb,file=a,colour=red)", IO_ERR_INPUT, "unknown argument"},
        {"in(pqr)", IO_ERR_INPUT, "needs file="},
        {"out(xyz)", IO_ERR_INPUT, "unknown output kind"},
        {"out(phi,format=grasp)", IO_ERR_UNSUPPORTED, "not supported"},
        {"out(phi,format=insight)", IO_ERR_UNSUPPORTED, "dx, cube or ccp4"},
        {"out(phi,format=png)", IO_ERR_INPUT, "unknown map format"},
        {"energy(q)", IO_ERR_INPUT, "unknown energy term"},
        {"center(1,2)", IO_ERR_INPUT, "three numbers"},
        {"acenter()", IO_ERR_INPUT, "three numbers"},
        {"acenter(file=\"x.pdb\")", IO_ERR_INPUT, "center(file="},
        {"center(file=\"x.pdb\",1)", IO_ERR_INPUT, "the file alone"},
        {"center(unit=15)", IO_ERR_UNSUPPORTED, "unit="},
        {"frobnicate(1)", IO_ERR_INPUT, "unknown function"},
        {"pbz=maybe", IO_ERR_INPUT, "true or false"},
        {"bndcon=5", IO_ERR_UNSUPPORTED, "voltage"},
        {"bndcon=9", IO_ERR_INPUT, "out of range"},
        {"indi=-2", IO_ERR_UNSUPPORTED, "diff"},
        {"exdi=0", IO_ERR_INPUT, "out of range"},
        {"salt=-1", IO_ERR_INPUT, "out of range"},
        {"relfac=1.0", IO_ERR_INPUT, ">= 0 and < 1"},
        {"relfac=-0.1", IO_ERR_INPUT, ">= 0 and < 1"},
        {"relpar=2", IO_ERR_INPUT, "> 0 and < 2"},
        {"relpar=0", IO_ERR_INPUT, "> 0 and < 2"},
        {"temper=-300", IO_ERR_INPUT, "out of range"},
        {"atpods=-0.1", IO_ERR_INPUT, "out of range"},
        {"atpods=true", IO_ERR_INPUT, "not a number"},
        {"linit=0", IO_ERR_INPUT, "out of range"},
        {"val+1=0", IO_ERR_INPUT, "out of range"},
        {"conint=0", IO_ERR_INPUT, "out of range"},
        {"out(phi,file=a.phi), out(phi,file=a.phi)", IO_ERR_INPUT, "already an output"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "gsize=33\n! comment\n%s\nscale=2\n", cases[i].statement);
        run_settings s;
        io_notes notes;
        io_error err;
        int rc = parse("bad.prm", text, &s, &notes, &err);
        CHECK_ERROR_AT(rc, err, "bad.prm", 3);
        CHECK(rc == cases[i].status);
        CHECK(err.line == 3 && strcmp(err.file, "bad.prm") == 0);
        CHECK_CONTAINS(err.message, cases[i].part);
        CHECK(s.scale == 1.2); /* parsing stopped at the error */
    }
    /* The 2-letter code is named in the message with its long name. */
    run_settings s;
    io_notes notes;
    io_error err;
    int rc = parse("bad2.prm", "sc=-1\n", &s, &notes, &err);
    CHECK_ERROR_AT(rc, err, "bad2.prm", 1);
    CHECK_CONTAINS(err.message, "scale (sc)");

    /* DelPhi's positional "type 1" format is refused clearly. */
    rc = parse("type1.prm", "1.2\n80\n", &s, &notes, &err);
    CHECK_ERROR_AT(rc, err, "type1.prm", 1);
    CHECK(rc == IO_ERR_UNSUPPORTED);
    CHECK_CONTAINS(err.message, "type 1");

    /* A missing parameter file. */
    settings_defaults(&s);
    rc = settings_parse_file(&s, "no_such.prm", &notes, &err);
    CHECK(rc == IO_ERR_FILE);
    CHECK_CONTAINS(err.message, "no_such.prm");
}

static void test_parse_text(void) {
    run_settings s;
    io_notes notes;
    io_error err;
    settings_defaults(&s);
    io_notes_clear(&notes);
    int rc = settings_parse_text(&s, "gsize=21, scale=3\nindi=6", "inline", 1, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(s.gsize == 21 && s.scale == 3.0 && s.indi == 6.0);
    rc = settings_parse_text(&s, "scale=2\nfoo=3", "inline", 5, &notes, &err);
    CHECK_ERROR_AT(rc, err, "inline", 6);
}

int main(void) {
    test_enter_scratch("params");
    test_defaults();
    test_long_names();
    test_short_names();
    test_delphi_aliases();
    test_syntax();
    test_functions();
    test_delphi_driver();
    test_errors();
    test_parse_text();
    return test_finish("host_io_params");
}
