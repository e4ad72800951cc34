/* After the parameter file and the options: default file names, where relative input names
 * are found, and the checks that need the whole set of settings. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "delphi_gpu/delphi_gpu_types.h"
#include "io_settings.h"
#include "io_sites.h"
#include "io_text.h"
#include "path_identity.h"
#include "params_internal.h"

void settings_describe_input(const run_settings *s, int kind, char *buf, size_t size) {
    const char *field = params_input_name(kind);
    if (kind == INPUT_CENTER && s->center_code == 777)
        field = "center(777,...) (DelPhi's code for the atoms of fort.27)";
    else if (kind == INPUT_CENTER && s->center_code == 999)
        field = "center(999,...) (DelPhi's code for the atoms of fort.15)";
    switch (s->input_source[kind]) {
    case SOURCE_FILE:
        snprintf(buf, size, "named by %s at %s", field, s->input_origin[kind]);
        break;
    case SOURCE_OPTION:
        snprintf(buf, size, "given by %s", s->input_origin[kind]);
        break;
    case SOURCE_DEFAULT:
        snprintf(buf, size, "DelPhi's default name, as there is no %s statement", field);
        break;
    default:
        snprintf(buf, size, "not given");
        break;
    }
}

static void set_default(run_settings *s, int kind, const char *name) {
    char *path = params_input_path(s, kind);
    if (path[0]) return;
    snprintf(path, SETTINGS_PATH_MAX, "%s", name);
    s->input_source[kind] = SOURCE_DEFAULT;
    s->input_origin[kind][0] = '\0';
}

/* DelPhi's rule for names from the parameter file: the current directory first, then the
 * parameter file's directory.  Names from options are relative to the current directory. */
static void locate(run_settings *s, int kind) {
    char *path = params_input_path(s, kind);
    if (!path[0] || path[0] == '/') return;
    int source = s->input_source[kind];
    if (source != SOURCE_FILE && source != SOURCE_DEFAULT) return;
    if (!s->param_file[0] || io_file_readable(path)) return;
    char dir[SETTINGS_PATH_MAX];
    io_directory_of(s->param_file, dir, sizeof dir);
    if (!dir[0]) return;
    char joined[2 * SETTINGS_PATH_MAX];
    int len = snprintf(joined, sizeof joined, "%s%s", dir, path);
    if (len > 0 && len < SETTINGS_PATH_MAX && io_file_readable(joined))
        memcpy(path, joined, (size_t)len + 1);
}

static int require_input(run_settings *s, int kind, io_error *err) {
    const char *path = params_input_path(s, kind);
    if (io_file_readable(path)) return IO_OK;
    char how[SETTINGS_ORIGIN_MAX + 64];
    settings_describe_input(s, kind, how, sizeof how);
    char dir[SETTINGS_PATH_MAX] = "";
    int searched_dir = 0;
    if (path[0] != '/' && s->param_file[0] &&
        (s->input_source[kind] == SOURCE_FILE || s->input_source[kind] == SOURCE_DEFAULT)) {
        io_directory_of(s->param_file, dir, sizeof dir);
        searched_dir = dir[0] != '\0';
    }
    struct stat st;
    const int exists = stat(path, &st) == 0;
    const char *what = !exists                ? "file not found or not readable"
                       : S_ISDIR(st.st_mode)  ? "is a directory, not a file"
                       : !S_ISREG(st.st_mode) ? "is not a regular file (pipes and devices are "
                                                "not read)"
                                              : "file not readable";
    return io_fail(err, IO_ERR_FILE, path, 0, params_input_name(kind),
                   "%s (%s; looked in the current directory%s%s%s)", what, how,
                   searched_dir ? " and in '" : "", searched_dir ? dir : "",
                   searched_dir ? "'" : "");
}

int settings_input_identities(const run_settings *s, path_identity *id, int max) {
    const char *inputs[] = {s->pdb_file,    s->siz_file,    s->crg_file,    s->pqr_file,
                            s->phi_in_file, s->frc_in_file, s->center_file, s->param_file};
    int m = 0;
    char dir[SETTINGS_PATH_MAX] = "";
    if (s->param_file[0]) io_directory_of(s->param_file, dir, sizeof dir);
    for (size_t k = 0; k < sizeof inputs / sizeof inputs[0] && m < max; k++) {
        if (!inputs[k][0]) continue;
        path_identity_of(inputs[k], &id[m++]);
        char joined[2 * SETTINGS_PATH_MAX];
        if (m < max && inputs[k][0] != '/' && dir[0] &&
            snprintf(joined, sizeof joined, "%s%s", dir, inputs[k]) < SETTINGS_PATH_MAX)
            path_identity_of(joined, &id[m++]);
    }
    return m;
}

/* Checked before any work: every output can be written (its directory exists and is
   writable), no two outputs are one file and no output is an input, comparing resolved paths
   and device/inode (so ./m.pqr, an absolute name, a symbolic or hard link are all caught). */
int settings_check_outputs(const run_settings *s, io_error *err) {
    /* The single-file outputs after the maps. */
    const struct {
        const char *path, *what;
    } files[] = {{s->frc_out_file, "frc output"},
                 {s->scrg_out_file, "scrg output"},
                 {s->gcrg_out_file, "gcrg output"},
                 {s->binding_residues_file, "--binding-residues"},
                 {s->modpdb_out_file, "modpdb output"},
                 {s->eps_out_file, "eps output"},
                 {s->unpdb_out_file, "unpdb output"},
                 {s->json_file, "--json"},
                 {s->log_file, "--log"}};
    enum { FILES = sizeof files / sizeof files[0] };
    const char *names[SETTINGS_MAX_OUTPUTS + FILES];
    const char *what[SETTINGS_MAX_OUTPUTS + FILES];
    int n = 0;
    for (int i = 0; i < s->map_count; i++) {
        names[n] = s->maps[i].path;
        what[n++] = "map output";
    }
    for (int i = 0; i < FILES; i++)
        if (files[i].path[0]) {
            names[n] = files[i].path;
            what[n++] = files[i].what;
        }
    static path_identity input_id[SETTINGS_INPUT_IDENTITIES],
        output_id[SETTINGS_MAX_OUTPUTS + FILES];
    const int m = settings_input_identities(s, input_id, SETTINGS_INPUT_IDENTITIES);
    for (int i = 0; i < n; i++) {
        int rc = path_check_output(names[i], what[i], err);
        if (rc) return rc;
        path_identity_of(names[i], &output_id[i]);
        for (int j = 0; j < i; j++)
            if (path_identity_same(&output_id[i], &output_id[j]))
                return io_fail(
                    err, IO_ERR_INPUT, NULL, 0, NULL,
                    "'%s' (%s) and '%s' (%s) are the same file (%s), named twice as an output",
                    names[j], what[j], names[i], what[i], output_id[i].canonical);
        for (int k = 0; k < m; k++)
            if (path_identity_same(&output_id[i], &input_id[k]))
                return io_fail(err, IO_ERR_INPUT, NULL, 0, NULL,
                               "%s '%s' would overwrite an input file (%s)", what[i], names[i],
                               input_id[k].canonical);
    }
    return IO_OK;
}

static int choose_molecule(run_settings *s, io_notes *notes, io_error *err) {
    int pqr = s->pqr_file[0] != '\0';
    int pdb = s->pdb_file[0] != '\0';
    if (pqr && pdb) {
        int pqr_opt = s->input_source[INPUT_PQR] == SOURCE_OPTION;
        int pdb_opt = s->input_source[INPUT_PDB] == SOURCE_OPTION;
        if (pqr_opt != pdb_opt) {
            int drop = pqr_opt ? INPUT_PDB : INPUT_PQR;
            int keep = pqr_opt ? INPUT_PQR : INPUT_PDB;
            io_note(notes, IO_NOTE_INFO, "%s overrides %s at %s ('%s' is not read)",
                    s->input_origin[keep], params_input_name(drop), s->input_origin[drop],
                    params_input_path(s, drop));
            params_input_path(s, drop)[0] = '\0';
            s->input_source[drop] = SOURCE_NONE;
            s->input_origin[drop][0] = '\0';
            pqr = pqr_opt;
            pdb = !pqr_opt;
        } else {
            return io_fail(err, IO_ERR_INPUT, NULL, 0, NULL,
                           "both a PQR file ('%s', %s) and a PDB file ('%s', %s) are given; "
                           "give one",
                           s->pqr_file, s->input_origin[INPUT_PQR], s->pdb_file,
                           s->input_origin[INPUT_PDB]);
        }
    }
    if (!pqr && !pdb) {
        if (!s->param_file[0])
            return io_fail(err, IO_ERR_INPUT, NULL, 0, NULL,
                           "no input molecule: give a parameter file (or have DelPhi's default "
                           "one, " SETTINGS_DEFAULT_PARAM ", in the current directory), --pqr "
                           "FILE, or --pdb FILE with --siz FILE and --crg FILE (delphi-gpu "
                           "--help)");
        set_default(s, INPUT_PDB, SETTINGS_DEFAULT_PDB);
        pdb = 1;
    }
    if (pdb) {
        set_default(s, INPUT_SIZ, SETTINGS_DEFAULT_SIZ);
        set_default(s, INPUT_CRG, SETTINGS_DEFAULT_CRG);
    } else if (s->siz_file[0] || s->crg_file[0]) {
        io_note(notes, IO_NOTE_INFO,
                "the PQR file carries radii and charges; the radius and charge files given are "
                "not read");
    }
    return IO_OK;
}

/* Multigrid with every axis periodic and no salt: the equations have no unique solution (a
   constant can be added), which multigrid cannot take (the library refuses it when the solve
   starts; refused here before any work). */
static int resolve_periodic(const run_settings *s, io_error *err) {
    const int all = DG_PERIODIC_X | DG_PERIODIC_Y | DG_PERIODIC_Z;
    if ((s->periodic & all) == all && s->salt <= 0.0 && s->salt2 <= 0.0 && s->solver_given &&
        s->solver == DG_SOLVER_MULTIGRID)
        return io_fail(err, IO_ERR_UNSUPPORTED, NULL, 0, "--solver",
                       "multigrid with x, y and z periodic (pbx/pby/pbz) and no salt: the "
                       "equations have no unique solution (any constant can be added); add "
                       "salt, leave an axis non-periodic, or use --solver sor or auto");
    return IO_OK;
}

/* Focusing in one run: one coarse grid, boundary values of its own, no periodic axis. */
static int resolve_coarse(const run_settings *s, io_error *err) {
    if (!(s->coarse_scale > 0.0) && !(s->coarse_perfil > 0.0)) return IO_OK;
    const char *option = s->coarse_scale > 0.0 ? "--coarse-scale" : "--coarse-perfil";
    if (s->coarse_scale > 0.0 && s->coarse_perfil > 0.0)
        return io_fail(err, IO_ERR_INPUT, NULL, 0, option,
                       "--coarse-scale and --coarse-perfil both place the coarse grid: give one");
    if (s->bndcon == BC_FOCUSING)
        return io_fail(err, IO_ERR_INPUT, NULL, 0, option,
                       "focuses from a coarse solve of this run, bndcon=3 from a map "
                       "(in(phi)): give one of them (the coarse grid takes bndcon's boundary "
                       "values: 1 zero, 2 dipolar, 4 Coulombic)");
    if (s->periodic)
        return io_fail(err, IO_ERR_UNSUPPORTED, NULL, 0, option,
                       "focusing with periodic boundaries (pbx/pby/pbz): a coarse grid has "
                       "another period");
    if (s->coarse_scale > 0.0 && s->scale_given && !(s->coarse_scale < s->scale))
        return io_fail(err, IO_ERR_INPUT, NULL, 0, option,
                       "%g is not below scale %g: focusing goes from a coarser grid to a finer "
                       "one",
                       s->coarse_scale, s->scale);
    return IO_OK;
}

static unsigned frc_asked_columns(const run_settings *s) {
    const struct {
        int asked, column;
    } map[] = {{s->site_atom, FRC_COL_ATOM},
               {s->site_coordinates, FRC_COL_COORDINATES},
               {s->site_charge, FRC_COL_CHARGE},
               {s->site_potential, FRC_COL_POTENTIAL},
               {s->site_salt, FRC_COL_SALT},
               {s->site_reaction, FRC_COL_REACTION},
               {s->site_coulombic, FRC_COL_COULOMBIC},
               {s->site_atomic, FRC_COL_ATOMIC},
               {s->site_debye, FRC_COL_DEBYE},
               {s->site_field, FRC_COL_FIELD},
               {s->site_reaction_force, FRC_COL_REACTION_FORCE},
               {s->site_coulombic_force, FRC_COL_COULOMBIC_FORCE},
               {s->site_total_force, FRC_COL_TOTAL_FORCE}};
    unsigned asked = 0;
    for (size_t i = 0; i < sizeof map / sizeof map[0]; ++i)
        if (map[i].asked) asked |= FRC_BIT(map[i].column);
    return asked;
}

unsigned settings_frc_columns(const run_settings *s) {
    return frc_delphi_columns(frc_asked_columns(s));
}

/* DelPhi's frc layout: with no site(...) column asked, its standard file (coordinates, charge,
 * field, potential); columns past its 80-character line are left out, with a warning. */
static void resolve_frc_columns(run_settings *s, io_notes *notes) {
    if (!s->frc_out_file[0] || s->frc_format == FRC_TABLE) return;
    if (s->frc_format == FRC_DELPHI && !s->site_given)
        s->site_coordinates = s->site_charge = s->site_field = s->site_potential = 1;
    const unsigned asked = frc_asked_columns(s);
    const unsigned dropped = asked & ~frc_delphi_columns(asked);
    if (!dropped) return;
    char names[256];
    frc_column_names(dropped, names, sizeof names);
    io_note(notes, IO_NOTE_WARNING,
            "out(frc): DelPhi's 80-character frc line has no room for the %s column%s asked "
            "after the others, and DelPhi's layout leaves %s out; out(frc,format=table) or "
            "--frc-format table writes every column",
            names, (dropped & (dropped - 1)) ? "s" : "", (dropped & (dropped - 1)) ? "them" : "it");
}

int settings_resolve(run_settings *s, io_notes *notes, io_error *err) {
    int rc = choose_molecule(s, notes, err);
    if (rc) return rc;
    for (int kind = 0; kind < INPUT_KIND_COUNT; kind++)
        locate(s, kind);

    rc = require_input(s, s->pqr_file[0] ? INPUT_PQR : INPUT_PDB, err);
    if (rc) return rc;
    /* siz/crg are checked by molecule_load(): a DelPhi PDB file does not need them. */

    rc = resolve_coarse(s, err);
    if (rc) return rc;
    if (s->bndcon == BC_FOCUSING) {
        if (!s->phi_in_file[0])
            return io_fail(err, IO_ERR_INPUT, NULL, 0, "bndcon",
                           "bndcon=3 (focusing) needs the source map: in(phi,file=\"...\") or "
                           "--phi-in FILE");
        rc = require_input(s, INPUT_PHI, err);
        if (rc) return rc;
    } else if (s->phi_in_file[0]) {
        io_note(notes, IO_NOTE_WARNING,
                "a focusing source map ('%s') is given but bndcon is not 3; it is not read",
                s->phi_in_file);
    }
    /* DelPhi's default sites: out(frc) without in(frc) in a parameter-file run reads fort.15
       when the current directory has one (a driver such as MCCE writes its sites there); else,
       and with in(frc,file="self"), the molecule's atoms are the sites. */
    if (s->frc_out_file[0] && !s->frc_in_file[0] && !s->frc_self_given && s->param_file[0] &&
        io_file_readable(SETTINGS_DEFAULT_FRC_IN)) {
        set_default(s, INPUT_FRC, SETTINGS_DEFAULT_FRC_IN);
        io_note(notes, IO_NOTE_INFO,
                "out(frc) without in(frc): the sites are those of " SETTINGS_DEFAULT_FRC_IN
                " in the current directory (DelPhi's default site file); in(frc,file=\"self\") "
                "makes the molecule's atoms the sites");
    }
    if (s->frc_in_file[0]) {
        rc = require_input(s, INPUT_FRC, err);
        if (rc) return rc;
        if (s->site_reaction_force) {
            io_note(notes, IO_NOTE_WARNING,
                    "site(rf): DelPhi's reaction-field force is the molecule's atoms' (their "
                    "induced charges are theirs); with the sites of in(frc) ('%s') it is not "
                    "written",
                    s->frc_in_file);
            s->site_reaction_force = 0;
        }
        if (s->site_total_force) {
            io_note(notes, IO_NOTE_WARNING,
                    "site(tf): DelPhi's total force is the reaction-field force plus the "
                    "Coulombic force on the molecule's atoms; with the sites of in(frc) ('%s') it "
                    "is not written",
                    s->frc_in_file);
            s->site_total_force = 0;
        }
        if (!s->frc_out_file[0])
            io_note(notes, IO_NOTE_WARNING,
                    "site positions ('%s') are given but no out(frc) or --frc; they are not used",
                    s->frc_in_file);
    }
    if (s->center_file[0]) {
        rc = require_input(s, INPUT_CENTER, err);
        if (rc) return rc;
    }
    resolve_frc_columns(s, notes);
    /* DelPhi places the grid centre before it knows a scale it derives (gsize with perfil, or
       the default 1.2): a center() offset there is divided by its "unset" marker, 10000. */
    if (s->center_mode == 2 /* offset */ && !s->scale_given &&
        (s->center[0] != 0.0 || s->center[1] != 0.0 || s->center[2] != 0.0)) {
        io_note(notes, IO_NOTE_WARNING,
                "center(%g,%g,%g): an offset in grid units needs scale=; without it stock DelPhi "
                "2010 leaves the grid at the molecule's box centre, and so does this program",
                s->center[0], s->center[1], s->center[2]);
        s->center[0] = s->center[1] = s->center[2] = 0.0;
    }
    /* DelPhi's second salt has valences 0 until val+2 and val-2 are both given (stock DelPhi
       2010), which leaves it out of the ionic strength. */
    if (s->salt2 > 0.0 && (s->valence_given & 12) != 12) {
        io_note(notes, IO_NOTE_WARNING,
                "salt2=%g M without both val+2 and val-2: DelPhi's valences of the second salt "
                "are 0 until both are given, which leaves it out of the ionic strength; it is "
                "left out here too (give val+2 and val-2, e.g. 1 and 1, to include it)",
                s->salt2);
        s->salt2 = 0.0;
    }
    rc = resolve_periodic(s, err);
    if (rc) return rc;
    if (s->nonit > 0 && s->salt <= 0.0 && s->salt2 <= 0.0)
        io_note(notes, IO_NOTE_INFO,
                "nonit=%d has no effect without salt (the linear equation is solved)", s->nonit);
    if (s->energy_ionic && !(s->nonit > 0 && (s->salt > 0.0 || s->salt2 > 0.0)))
        io_note(notes, IO_NOTE_WARNING,
                "energy(ion): the ionic terms (rho*phi/2, osmotic) are those of nonlinear PB "
                "(nonit > 0 with salt); this run solves the linear equation and reports none "
                "(DelPhi's linear-run 'total ionic direct contribution' is not computed)");
    if (s->binding_residues_file[0] && !s->binding[0])
        return io_fail(err, IO_ERR_INPUT, NULL, 0, "--binding-residues",
                       "needs --binding (the partners whose binding it decomposes)");
    return settings_check_outputs(s, err);
}
