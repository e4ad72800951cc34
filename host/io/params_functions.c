/* Function statements of the DelPhi parameter file: in(), out(), energy(), site(), acenter(),
 * center(), and the ones accepted but not used (buffz, insobj).
 *
 * Default file names follow DelPhi's unit numbers: in(pdb) and in(unpdb) fort.13, in(siz)
 * fort.11, in(crg) fort.12, in(frc) fort.15, in(phi) fort.18, out(phi) fort.14, out(frc)
 * fort.16, out(unpdb) fort.20. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_modpdb.h"
#include "io_settings.h"
#include "io_sites.h"
#include "io_surface_charges.h"
#include "io_text.h"
#include "params_internal.h"

#define MAX_ARGS 16
#define ARG_MAX  SETTINGS_PATH_MAX

typedef struct func_args {
    int count;
    char key[MAX_ARGS][32];        /* lower-case key, "" for a positional item */
    char value[MAX_ARGS][ARG_MAX]; /* value, quotes removed, case kept */
} func_args;

/* Split "pdb,file="x.pdb",format=2" into items. */
static int split_args(param_context *ctx, const char *fname, const char *text, func_args *a) {
    a->count = 0;
    const char *p = text;
    while (*p) {
        const char *start = p;
        char quote = 0;
        while (*p && (quote || *p != ',')) {
            if (quote && *p == quote)
                quote = 0;
            else if (!quote && (*p == '"' || *p == '\''))
                quote = *p;
            p++;
        }
        size_t len = (size_t)(p - start);
        if (*p == ',') p++;
        if (len == 0) continue;
        if (a->count == MAX_ARGS)
            return io_fail(ctx->err, IO_ERR_INPUT, ctx->origin, ctx->line, fname,
                           "too many arguments");
        char item[ARG_MAX + 40];
        if (len >= sizeof item)
            return io_fail(ctx->err, IO_ERR_INPUT, ctx->origin, ctx->line, fname,
                           "argument too long");
        memcpy(item, start, len);
        item[len] = '\0';
        char *eq = NULL;
        if (item[0] != '"' && item[0] != '\'') eq = strchr(item, '=');
        char *val = item;
        a->key[a->count][0] = '\0';
        if (eq) {
            *eq = '\0';
            params_lower(a->key[a->count], sizeof a->key[a->count], item);
            val = eq + 1;
        }
        size_t vlen = strlen(val);
        if (vlen >= 2 && (val[0] == '"' || val[0] == '\'') && val[vlen - 1] == val[0]) {
            val[vlen - 1] = '\0';
            val++;
        }
        if (strlen(val) >= ARG_MAX)
            return io_fail(ctx->err, IO_ERR_INPUT, ctx->origin, ctx->line, fname,
                           "argument too long");
        memcpy(a->value[a->count], val, strlen(val) + 1);
        a->count++;
    }
    return IO_OK;
}

const char *params_input_name(int kind) {
    static const char *names[INPUT_KIND_COUNT] = {"in(pdb)", "in(siz)", "in(crg)",     "in(pqr)",
                                                  "in(phi)", "in(frc)", "center(file)"};
    return kind >= 0 && kind < INPUT_KIND_COUNT ? names[kind] : "input";
}

char *params_input_path(run_settings *s, int kind) {
    switch (kind) {
    case INPUT_PDB:
        return s->pdb_file;
    case INPUT_SIZ:
        return s->siz_file;
    case INPUT_CRG:
        return s->crg_file;
    case INPUT_PQR:
        return s->pqr_file;
    case INPUT_PHI:
        return s->phi_in_file;
    case INPUT_CENTER:
        return s->center_file;
    default:
        return s->frc_in_file;
    }
}

void params_set_input(param_context *ctx, int kind, const char *path) {
    run_settings *s = ctx->s;
    snprintf(params_input_path(s, kind), SETTINGS_PATH_MAX, "%s", path);
    s->input_source[kind] = ctx->from_option ? SOURCE_OPTION : SOURCE_FILE;
    if (ctx->line > 0)
        snprintf(s->input_origin[kind], SETTINGS_ORIGIN_MAX, "%s:%d", ctx->origin, ctx->line);
    else
        snprintf(s->input_origin[kind], SETTINGS_ORIGIN_MAX, "%s", ctx->origin);
}

int params_add_map(param_context *ctx, int format, const char *path) {
    run_settings *s = ctx->s;
    for (int i = 0; i < s->map_count; i++)
        if (strcmp(s->maps[i].path, path) == 0)
            return io_fail(ctx->err, IO_ERR_INPUT, ctx->origin, ctx->line, "out(phi)",
                           "map file '%s' is already an output", path);
    if (s->map_count == SETTINGS_MAX_OUTPUTS)
        return io_fail(ctx->err, IO_ERR_INPUT, ctx->origin, ctx->line, "out(phi)",
                       "at most %d map outputs", SETTINGS_MAX_OUTPUTS);
    s->maps[s->map_count].format = format;
    snprintf(s->maps[s->map_count].path, SETTINGS_PATH_MAX, "%s", path);
    s->map_count++;
    return IO_OK;
}

/* Look up key in the items after the first; unknown keys are errors. */
static int get_keys(param_context *ctx, const char *fname, const func_args *a, const char **file,
                    const char **format) {
    *file = NULL;
    *format = NULL;
    for (int i = 1; i < a->count; i++) {
        if (strcmp(a->key[i], "file") == 0)
            *file = a->value[i];
        else if (strcmp(a->key[i], "format") == 0)
            *format = a->value[i];
        else if (strcmp(a->key[i], "unit") == 0)
            return io_fail(ctx->err, IO_ERR_UNSUPPORTED, ctx->origin, ctx->line, fname,
                           "unit= is not supported; name the file with file=\"...\"");
        else
            return io_fail(ctx->err, IO_ERR_INPUT, ctx->origin, ctx->line, fname,
                           "unknown argument '%s%s%s'", a->key[i], a->key[i][0] ? "=" : "",
                           a->value[i]);
    }
    if (*file && !(*file)[0])
        return io_fail(ctx->err, IO_ERR_INPUT, ctx->origin, ctx->line, fname, "empty file name");
    return IO_OK;
}

static int apply_in(param_context *ctx, const func_args *a) {
    static const struct {
        const char *kind;
        int input;
        const char *fallback;
    } kinds[] = {{"pdb", INPUT_PDB, "fort.13"},  {"siz", INPUT_SIZ, "fort.11"},
                 {"crg", INPUT_CRG, "fort.12"},  {"pqr", INPUT_PQR, NULL},
                 {"phi", INPUT_PHI, "fort.18"},  {"frc", INPUT_FRC, SETTINGS_DEFAULT_FRC_IN},
                 {"unpdb", INPUT_PDB, "fort.13"}}; /* the reader knows it from its content */
    if (a->count == 0 || a->key[0][0])
        return io_fail(ctx->err, IO_ERR_INPUT, ctx->origin, ctx->line, "in",
                       "the first argument must say what is read (pdb, unpdb, siz, crg, pqr, "
                       "phi, frc)");
    char kind[32];
    params_lower(kind, sizeof kind, a->value[0]);
    char field[48];
    snprintf(field, sizeof field, "in(%s)", kind);
    const char *file, *format;
    int rc = get_keys(ctx, field, a, &file, &format);
    if (rc) return rc;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        if (strcmp(kind, kinds[i].kind) != 0) continue;
        int input = kinds[i].input;
        if (format && input == INPUT_PDB && io_iequal(format, "pqr"))
            input = INPUT_PQR;
        else if (format)
            io_note(ctx->notes, IO_NOTE_INFO,
                    "%s: %s: format=%s ignored (the format is recognised from the file)",
                    params_where(ctx), field, format);
        if (!file && !kinds[i].fallback)
            return io_fail(ctx->err, IO_ERR_INPUT, ctx->origin, ctx->line, field,
                           "needs file=\"...\"");
        /* DelPhi's in(frc,file="self"): the molecule's own atoms are the sites (the default). */
        if (input == INPUT_FRC && file && io_iequal(file, "self")) {
            params_input_path(ctx->s, INPUT_FRC)[0] = '\0';
            ctx->s->input_source[INPUT_FRC] = SOURCE_NONE;
            ctx->s->input_origin[INPUT_FRC][0] = '\0';
            ctx->s->frc_self_given = 1;
            return IO_OK;
        }
        if (input == INPUT_FRC) ctx->s->frc_self_given = 0;
        params_set_input(ctx, input, file ? file : kinds[i].fallback);
        return IO_OK;
    }
    return io_fail(ctx->err, IO_ERR_INPUT, ctx->origin, ctx->line, field,
                   "unknown input kind '%s' (expected pdb, unpdb, siz, crg, pqr, phi or frc)",
                   a->value[0]);
}

/* out(frc, format=...): none or delphi, DelPhi's layout; rc and r, DelPhi's layout with the
 * coordinates, charge and reaction-field (and, for rc, Coulombic) columns added, as DelPhi's
 * formats RC and R; table, this program's full-precision table.  DelPhi's unformatted frc
 * (format=un) is refused. */
int frc_format_parse(param_context *ctx, const char *field, const char *format) {
    run_settings *s = ctx->s;
    const char *origin = ctx->from_option ? NULL : ctx->origin; /* options name themselves */
    if (!format || io_iequal(format, "delphi")) {
        s->frc_format = FRC_DELPHI;
    } else if (io_iequal(format, "rc") || io_iequal(format, "r")) {
        const int rc = io_iequal(format, "rc");
        s->frc_format = rc ? FRC_DELPHI_RC : FRC_DELPHI_R;
        s->site_coordinates = s->site_charge = s->site_reaction = 1;
        if (rc) s->site_coulombic = 1;
    } else if (io_iequal(format, "table")) {
        s->frc_format = FRC_TABLE;
    } else if (io_iequal(format, "un")) {
        return io_fail(ctx->err, IO_ERR_UNSUPPORTED, origin, ctx->line, field,
                       "DelPhi's unformatted frc file (format=un) is not written; leave out "
                       "format= for DelPhi's text layout, or format=table");
    } else {
        return io_fail(ctx->err, IO_ERR_INPUT, origin, ctx->line, field,
                       "unknown frc format '%s' (delphi, rc, r or table)", format);
    }
    return IO_OK;
}

/* out(scrg, format=...): none or delphi, DelPhi's layout; pdb, DelPhi's PDB form; table, this
 * program's table. */
int scrg_format_parse(param_context *ctx, const char *field, const char *format) {
    const char *origin = ctx->from_option ? NULL : ctx->origin; /* options name themselves */
    if (!format || io_iequal(format, "delphi"))
        ctx->s->scrg_format = SCRG_DELPHI;
    else if (io_iequal(format, "pdb"))
        ctx->s->scrg_format = SCRG_DELPHI_PDB;
    else if (io_iequal(format, "table"))
        ctx->s->scrg_format = SCRG_TABLE;
    else if (io_iequal(format, "pdba"))
        return io_fail(ctx->err, IO_ERR_UNSUPPORTED, origin, ctx->line, field,
                       "format=pdba is no longer a DelPhi format (DelPhi says so too); use pdb");
    else
        return io_fail(ctx->err, IO_ERR_INPUT, origin, ctx->line, field,
                       "unknown surface charge format '%s' (delphi, pdb or table)", format);
    return IO_OK;
}

/* A single-file output named again: the later name replaces the earlier one, with a warning
 * (one such file per run; maps can be several). */
static void set_single_output(param_context *ctx, const char *field, char *slot, const char *path) {
    if (slot[0] && strcmp(slot, path) != 0)
        io_note(ctx->notes, IO_NOTE_WARNING,
                "%s: %s given again: '%s' replaces '%s' (one such file per run)", params_where(ctx),
                field, path, slot);
    snprintf(slot, SETTINGS_PATH_MAX, "%s", path);
}

/* out(kind,off): DelPhi's way to turn an output off (one given earlier, or a default one). */
static int apply_out_off(param_context *ctx, const char *kind, const char *field) {
    run_settings *s = ctx->s;
    if (strcmp(kind, "phi") == 0)
        s->map_count = 0;
    else if (strcmp(kind, "frc") == 0)
        s->frc_out_file[0] = '\0';
    else if (strcmp(kind, "unpdb") == 0)
        s->unpdb_out_file[0] = '\0';
    else if (strcmp(kind, "modpdb") == 0 || strcmp(kind, "modpdb4") == 0)
        s->modpdb_out_file[0] = '\0';
    else if (strcmp(kind, "scrg") == 0)
        s->scrg_out_file[0] = '\0';
    else if (strcmp(kind, "gcrg") == 0)
        s->gcrg_out_file[0] = '\0';
    else if (strcmp(kind, "eps") == 0)
        s->eps_out_file[0] = '\0';
    else if (strcmp(kind, "srf") != 0 && strcmp(kind, "energy") != 0 &&
             strcmp(kind, "unfrc") != 0 && strcmp(kind, "log") != 0 && strcmp(kind, "hsurf") != 0 &&
             strcmp(kind, "db") != 0 && strcmp(kind, "surfen") != 0)
        return io_fail(ctx->err, IO_ERR_INPUT, ctx->origin, ctx->line, field,
                       "unknown output kind '%s'", kind);
    return IO_OK;
}

static int apply_out(param_context *ctx, func_args *a) {
    /* DelPhi outputs that this program does not write: a warning, not an error. */
    static const char *not_written[] = {"srf", "energy", "unfrc", "log", "hsurf", "db", "surfen"};
    if (a->count == 0 || a->key[0][0])
        return io_fail(ctx->err, IO_ERR_INPUT, ctx->origin, ctx->line, "out",
                       "the first argument must say what is written (phi, frc, ...)");
    char kind[32];
    params_lower(kind, sizeof kind, a->value[0]);
    char field[48];
    snprintf(field, sizeof field, "out(%s)", kind);
    if (a->count == 2 && !a->key[1][0] && io_iequal(a->value[1], "off"))
        return apply_out_off(ctx, kind, field);
    /* out(kind,on): DelPhi writes what is not turned off */
    if (a->count >= 2 && !a->key[a->count - 1][0] && io_iequal(a->value[a->count - 1], "on"))
        a->count--;
    const char *file, *format;
    int rc = get_keys(ctx, field, a, &file, &format);
    if (rc) return rc;

    if (strcmp(kind, "phi") == 0) {
        int fmt = MAP_DELPHI;
        if (format) {
            if (io_iequal(format, "delphi") || io_iequal(format, "phimap"))
                fmt = MAP_DELPHI;
            else if (io_iequal(format, "dx") || io_iequal(format, "opendx"))
                fmt = MAP_DX;
            else if (io_iequal(format, "cube"))
                fmt = MAP_CUBE;
            else if (io_iequal(format, "ccp4") || io_iequal(format, "mrc"))
                fmt = MAP_MRC;
            else if (io_iequal(format, "biosym") || io_iequal(format, "grasp") ||
                     io_iequal(format, "diff") || io_iequal(format, "insight"))
                return io_fail(ctx->err, IO_ERR_UNSUPPORTED, ctx->origin, ctx->line, field,
                               "map format '%s' is not supported (use the default DelPhi "
                               "format, dx, cube or ccp4)",
                               format);
            else
                return io_fail(ctx->err, IO_ERR_INPUT, ctx->origin, ctx->line, field,
                               "unknown map format '%s' (delphi, dx, cube or ccp4)", format);
        }
        return params_add_map(ctx, fmt, file ? file : SETTINGS_DEFAULT_PHI_OUT);
    }
    if (strcmp(kind, "frc") == 0) {
        rc = frc_format_parse(ctx, field, format);
        if (rc) return rc;
        set_single_output(ctx, field, ctx->s->frc_out_file, file ? file : SETTINGS_DEFAULT_FRC_OUT);
        return IO_OK;
    }
    if (strcmp(kind, "unpdb") == 0) {
        if (format)
            return io_fail(ctx->err, IO_ERR_INPUT, ctx->origin, ctx->line, field,
                           "takes no format= (DelPhi's unformatted PDB has one layout)");
        set_single_output(ctx, field, ctx->s->unpdb_out_file,
                          file ? file : SETTINGS_DEFAULT_UNPDB_OUT);
        return IO_OK;
    }
    if (strcmp(kind, "modpdb") == 0 || strcmp(kind, "modpdb4") == 0) {
        int fmt = kind[6] == '4' ? MODPDB_DELPHI4 : MODPDB_DELPHI1;
        if (format && io_iequal(format, "pqr"))
            fmt = MODPDB_PQR;
        else if (format)
            return io_fail(ctx->err, IO_ERR_INPUT, ctx->origin, ctx->line, field,
                           "unknown modified PDB format '%s' (pqr, or none for DelPhi's PDB "
                           "format %d)",
                           format, fmt);
        set_single_output(ctx, field, ctx->s->modpdb_out_file,
                          file ? file : SETTINGS_DEFAULT_MODPDB_OUT);
        ctx->s->modpdb_format = fmt;
        return IO_OK;
    }
    if (strcmp(kind, "scrg") == 0) {
        rc = scrg_format_parse(ctx, field, format);
        if (rc) return rc;
        set_single_output(ctx, field, ctx->s->scrg_out_file,
                          file ? file : SETTINGS_DEFAULT_SCRG_OUT);
        return IO_OK;
    }
    if (strcmp(kind, "gcrg") == 0) {
        if (format)
            return io_fail(ctx->err, IO_ERR_INPUT, ctx->origin, ctx->line, field,
                           "takes no format= (DelPhi's grid-charge file has one layout)");
        set_single_output(ctx, field, ctx->s->gcrg_out_file,
                          file ? file : SETTINGS_DEFAULT_GCRG_OUT);
        return IO_OK;
    }
    if (strcmp(kind, "eps") == 0) {
        if (format && !io_iequal(format, "delphi"))
            return io_fail(ctx->err, IO_ERR_UNSUPPORTED, ctx->origin, ctx->line, field,
                           "dielectric map format '%s' is not supported (only DelPhi's compact "
                           "layout is written; leave out format=)",
                           format);
        set_single_output(ctx, field, ctx->s->eps_out_file, file ? file : SETTINGS_DEFAULT_EPS_OUT);
        return IO_OK;
    }
    for (size_t i = 0; i < sizeof not_written / sizeof not_written[0]; i++)
        if (strcmp(kind, not_written[i]) == 0) {
            io_note(ctx->notes, IO_NOTE_WARNING,
                    "%s: %s: this output is not produced by this program; ignored",
                    params_where(ctx), field);
            return IO_OK;
        }
    return io_fail(ctx->err, IO_ERR_INPUT, ctx->origin, ctx->line, field,
                   "unknown output kind '%s'", a->value[0]);
}

static int apply_energy(param_context *ctx, const func_args *a) {
    run_settings *s = ctx->s;
    for (int i = 0; i < a->count; i++) {
        char item[32];
        params_lower(item, sizeof item, a->value[i]);
        if (a->key[i][0])
            return io_fail(ctx->err, IO_ERR_INPUT, ctx->origin, ctx->line, "energy",
                           "unexpected '%s=%s'", a->key[i], a->value[i]);
        if (!strcmp(item, "g") || !strcmp(item, "grid"))
            s->energy_grid = 1;
        else if (!strcmp(item, "s") || !strcmp(item, "sol") || !strcmp(item, "solvation"))
            s->energy_solvation = 1;
        else if (!strcmp(item, "c") || !strcmp(item, "coul") || !strcmp(item, "cou") ||
                 !strcmp(item, "coulombic"))
            s->energy_coulombic = 1;
        else if (!strcmp(item, "ion") || !strcmp(item, "ionic") || !strncmp(item, "ionic_c", 7))
            s->energy_ionic = 1;
        else if (!strcmp(item, "as") || !strcmp(item, "anasurf") ||
                 !strcmp(item, "analyticsurface"))
            io_note(ctx->notes, IO_NOTE_WARNING,
                    "%s: energy(%s): the analytic-surface energy is not computed; ignored",
                    params_where(ctx), item);
        else if (!strcmp(item, "ag") || !strcmp(item, "anagrid") || !strcmp(item, "analyticgrid"))
            io_note(ctx->notes, IO_NOTE_WARNING,
                    "%s: energy(%s): the analytic grid energy is not computed; ignored",
                    params_where(ctx), item);
        else if (!strcmp(item, "an"))
            /* MCCE's parameter files say energy(g,an,sol); DelPhi reads no term from "an". */
            io_note(ctx->notes, IO_NOTE_INFO,
                    "%s: energy(an): not an energy term (DelPhi ignores it too); ignored",
                    params_where(ctx));
        else
            return io_fail(ctx->err, IO_ERR_INPUT, ctx->origin, ctx->line, "energy",
                           "unknown energy term '%s' (g, s, c, ion)", a->value[i]);
    }
    return IO_OK;
}

static int apply_site(param_context *ctx, const func_args *a) {
    run_settings *s = ctx->s;
    /* site() (empty) clears every column, as in DelPhi. */
    if (a->count == 0 || (a->count == 1 && !a->key[0][0] && !a->value[0][0])) {
        s->site_atom = s->site_coordinates = s->site_charge = s->site_potential = 0;
        s->site_field = s->site_reaction = s->site_coulombic = s->site_atomic = 0;
        s->site_salt = s->site_debye = 0;
        s->site_coulombic_force = s->site_reaction_force = s->site_total_force = 0;
        s->site_given = 0;
        return IO_OK;
    }
    for (int i = 0; i < a->count; i++) {
        char item[32];
        params_lower(item, sizeof item, a->value[i]);
        int known = 1;
        if (!strcmp(item, "a") || !strcmp(item, "atom"))
            s->site_atom = 1;
        else if (!strcmp(item, "x") || !strcmp(item, "coordinates"))
            s->site_coordinates = 1;
        else if (!strcmp(item, "q") || !strcmp(item, "charge"))
            s->site_charge = 1;
        else if (!strcmp(item, "p") || !strcmp(item, "potential"))
            s->site_potential = 1;
        else if (!strcmp(item, "f") || !strcmp(item, "field"))
            s->site_field = 1;
        else if (!strcmp(item, "r") || !strcmp(item, "reaction"))
            s->site_reaction = 1;
        else if (!strcmp(item, "c") || !strcmp(item, "coulomb") || !strcmp(item, "coulombic"))
            s->site_coulombic = 1;
        else if (!strcmp(item, "atpo") || !strcmp(item, "atomicpot"))
            s->site_atomic = 1;
        else if (!strcmp(item, "i") || !strcmp(item, "salt"))
            s->site_salt = 1;
        else if (!strcmp(item, "deb") || !strcmp(item, "debyefraction"))
            s->site_debye = 1;
        else if (!strcmp(item, "cf") || !strcmp(item, "coulombforce"))
            s->site_coulombic_force = 1;
        else if (!strcmp(item, "rf") || !strcmp(item, "reactionforce"))
            s->site_reaction_force = 1;
        else if (!strcmp(item, "tf") || !strcmp(item, "totalforce"))
            s->site_total_force = 1;
        else {
            known = 0;
            io_note(ctx->notes, IO_NOTE_WARNING,
                    "%s: site(%s): this column is not produced (the frc output has the atom (a), "
                    "coordinates (x), charge (q), potential (p) and the reaction (r), Coulombic "
                    "(c) and atomic (atpo) potentials, the field (f), the salt concentration (i), "
                    "the Debye fraction (deb) and the reaction-field, Coulombic and total forces "
                    "(rf, cf, tf))",
                    params_where(ctx), a->value[i]);
        }
        if (known) s->site_given = 1;
    }
    return IO_OK;
}

/* The grid centre as a statement sets it; a later statement replaces an earlier one. */
static int set_center(param_context *ctx, const double c[3], int mode) {
    memcpy(ctx->s->center, c, 3 * sizeof *c);
    ctx->s->center_mode = mode;
    ctx->s->center_file[0] = '\0';
    ctx->s->center_first_atom = 0;
    ctx->s->center_code = 0;
    ctx->s->input_source[INPUT_CENTER] = SOURCE_NONE;
    ctx->s->input_origin[INPUT_CENTER][0] = '\0';
    return IO_OK;
}

static int mode_is_absolute(const char *fname) {
    return strcmp(fname, "acenter") == 0;
}

/* center(file="...") (DelPhi's form): the grid centred on the mean position of the file's
 * ATOM/HETATM lines, which the program reads with the other inputs. */
static int apply_center_file(param_context *ctx, const char *fname, const func_args *a) {
    if (mode_is_absolute(fname))
        return io_fail(ctx->err, IO_ERR_INPUT, ctx->origin, ctx->line, fname,
                       "acenter takes x,y,z; centring on a file's atoms is center(file=\"...\")");
    if (a->count != 1)
        return io_fail(ctx->err, IO_ERR_INPUT, ctx->origin, ctx->line, fname,
                       "center(file=\"...\") takes the file alone");
    if (!a->value[0][0])
        return io_fail(ctx->err, IO_ERR_INPUT, ctx->origin, ctx->line, fname, "empty file name");
    params_set_input(ctx, INPUT_CENTER, a->value[0]);
    ctx->s->center_mode = 1; /* absolute, at the mean the program computes */
    ctx->s->center_first_atom = 0;
    ctx->s->center_code = 0;
    return IO_OK;
}

static int apply_center(param_context *ctx, const char *fname, const func_args *a, int mode) {
    for (int i = 0; i < a->count; i++) {
        if (strcmp(a->key[i], "file") == 0) return apply_center_file(ctx, fname, a);
        if (strcmp(a->key[i], "unit") == 0)
            return io_fail(ctx->err, IO_ERR_UNSUPPORTED, ctx->origin, ctx->line, fname,
                           "unit= is not supported; name the file with file=\"...\"");
    }
    double c[3] = {0.0, 0.0, 0.0};
    /* DelPhi reads center() as zero offsets: the molecule's box centre. */
    const int empty = a->count == 0 || (a->count == 1 && !a->key[0][0] && !a->value[0][0]);
    if (empty && !mode_is_absolute(fname)) return set_center(ctx, c, mode);
    if (a->count != 3 || a->key[0][0] || a->key[1][0] || a->key[2][0])
        return io_fail(ctx->err, IO_ERR_INPUT, ctx->origin, ctx->line, fname,
                       "expected three numbers: %s(x,y,z)", fname);
    for (int i = 0; i < 3; i++) {
        if (io_parse_real(a->value[i], &c[i]) != 0)
            return io_fail(ctx->err, IO_ERR_INPUT, ctx->origin, ctx->line, fname,
                           "'%s' is not a number", a->value[i]);
    }
    /* DelPhi's codes: an x offset of 777 centres the grid on the atoms of fort.27, 999 on
       those of fort.15 (their mean; the first atom alone when the y offset is 777 or 999 too);
       the other offsets are not used then. */
    if (!mode_is_absolute(fname) && (c[0] == 777.0 || c[0] == 999.0)) {
        set_center(ctx, c, mode);
        params_set_input(ctx, INPUT_CENTER,
                         c[0] == 777.0 ? SETTINGS_CENTER_FILE_777 : SETTINGS_CENTER_FILE_999);
        ctx->s->center_mode = 1; /* absolute, at the position the program reads */
        ctx->s->center_first_atom = c[1] == 777.0 || c[1] == 999.0;
        ctx->s->center_code = (int)c[0];
        return IO_OK;
    }
    return set_center(ctx, c, mode);
}

int params_apply_function(param_context *ctx, const char *name, const char *args) {
    func_args *a = malloc(sizeof *a);
    if (!a) return io_fail(ctx->err, IO_ERR_MEMORY, ctx->origin, ctx->line, name, "out of memory");
    int rc = split_args(ctx, name, args, a);
    if (rc == IO_OK) {
        if (!strcmp(name, "in") || !strcmp(name, "read"))
            rc = apply_in(ctx, a);
        else if (!strcmp(name, "out") || !strcmp(name, "write"))
            rc = apply_out(ctx, a);
        else if (!strcmp(name, "energy"))
            rc = apply_energy(ctx, a);
        else if (!strcmp(name, "site"))
            rc = apply_site(ctx, a);
        else if (!strcmp(name, "acenter") || !strcmp(name, "acent")) /* DelPhi: both names */
            rc = apply_center(ctx, "acenter", a, 1);
        else if (!strcmp(name, "center") || !strcmp(name, "cent"))
            rc = apply_center(ctx, "center", a, 2);
        else if (!strcmp(name, "buffz") || !strcmp(name, "insobj") || !strcmp(name, "qpref"))
            io_note(ctx->notes, IO_NOTE_WARNING,
                    "%s: %s(...) is a DelPhi function this program does not use; ignored",
                    params_where(ctx), name);
        else
            rc = io_fail(ctx->err, IO_ERR_INPUT, ctx->origin, ctx->line, name,
                         "unknown function '%s(...)'", name);
    }
    free(a);
    return rc;
}
