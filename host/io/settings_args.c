/* Command-line options of delphi-gpu (host/app/CLI.md).  Options override the parameter file.
 *
 * Every name=value statement is also an option: --NAME VALUE or --NAME=VALUE (long names).
 * --set 'STATEMENT' passes any statement.  --phi/--dx/--cube replace the parameter file's map
 * outputs of the same format; --energy replaces the file's energy(...) selection. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delphi_gpu/delphi_gpu_types.h"
#include "io_binding.h"
#include "io_settings.h"
#include "io_text.h"
#include "params_internal.h"

/* Options that take a value, besides the statement names. */
static const char *value_options[] = {
    "set",          "pqr",           "pdb",       "siz",
    "crg",          "phi-in",        "phi",       "dx",
    "cube",         "mrc",           "frc",       "scrg",
    "eps",          "json",          "log",       "backend",
    "precision",    "device",        "threads",   "surface",
    "energy",       "solver",        "nonlinear", "periodic",
    "frc-format",   "scrg-format",   "binding",   "binding-residues",
    "coarse-scale", "coarse-perfil",
};
static const char *flag_options[] = {"solvation-two-run", "quiet", "help", "version"};

const char *settings_option_name(size_t i) {
    const size_t values = sizeof value_options / sizeof value_options[0];
    const size_t flags = sizeof flag_options / sizeof flag_options[0];
    return i < values ? value_options[i] : i < values + flags ? flag_options[i - values] : NULL;
}

static int in_list(const char *name, const char **list, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(name, list[i]) == 0) return 1;
    return 0;
}

static int takes_value(const char *name) {
    return in_list(name, value_options, sizeof value_options / sizeof value_options[0]) ||
           params_is_assignment_name(name);
}

/* Split "--name=value" / "--name value".  Returns 0 and sets name (without dashes) and value
 * (NULL for flags); *consumed is the number of argv entries used. */
static int split_option(int argc, char **argv, int i, char *name, size_t size, const char **value,
                        int *consumed, io_error *err) {
    const char *arg = argv[i] + 2;
    const char *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    if (len == 0 || len >= size)
        return io_fail(err, IO_ERR_INPUT, NULL, 0, NULL, "malformed option '%s'", argv[i]);
    memcpy(name, arg, len);
    name[len] = '\0';
    *consumed = 1;
    *value = NULL;
    if (takes_value(name)) {
        if (eq)
            *value = eq + 1;
        else if (i + 1 < argc) {
            *value = argv[i + 1];
            *consumed = 2;
        } else
            return io_fail(err, IO_ERR_INPUT, NULL, 0, argv[i], "needs a value");
    } else if (in_list(name, flag_options, sizeof flag_options / sizeof flag_options[0])) {
        if (eq) return io_fail(err, IO_ERR_INPUT, NULL, 0, argv[i], "takes no value");
    } else {
        return io_fail(err, IO_ERR_INPUT, NULL, 0, NULL,
                       "unknown option '%s' (delphi-gpu --help lists the options)", argv[i]);
    }
    return IO_OK;
}

int settings_list_positional(int argc, char **argv, int *index, int max, int *count,
                             io_error *err) {
    *count = 0;
    int options_done = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!options_done && strcmp(arg, "--") == 0) {
            options_done = 1;
            continue;
        }
        if (!options_done && (strcmp(arg, "-h") == 0)) continue;
        if (!options_done && arg[0] == '-' && arg[1] == '-') {
            char name[64];
            const char *value;
            int consumed;
            int rc = split_option(argc, argv, i, name, sizeof name, &value, &consumed, err);
            if (rc) return rc;
            i += consumed - 1;
            continue;
        }
        if (!options_done && arg[0] == '-' && arg[1] != '\0')
            return io_fail(err, IO_ERR_INPUT, NULL, 0, NULL,
                           "unknown option '%s' (options start with --)", arg);
        if (*count < max) index[*count] = i;
        ++*count;
    }
    return IO_OK;
}

int settings_find_param_file(int argc, char **argv, const char **param_file, io_error *err) {
    *param_file = NULL;
    int index[2], count = 0;
    int rc = settings_list_positional(argc, argv, index, 2, &count, err);
    if (rc) return rc;
    if (count > 1)
        return io_fail(err, IO_ERR_INPUT, NULL, 0, NULL,
                       "more than one parameter file given ('%s' and '%s')", argv[index[0]],
                       argv[index[1]]);
    if (count == 1) *param_file = argv[index[0]];
    return IO_OK;
}

static int choose(const char *option, const char *value, const char **names, const int *values,
                  int count, int *out, io_error *err) {
    for (int i = 0; i < count; i++)
        if (io_iequal(value, names[i])) {
            *out = values[i];
            return IO_OK;
        }
    char list[128] = "";
    for (int i = 0; i < count; i++) {
        strncat(list, names[i], sizeof list - strlen(list) - 1);
        if (i + 1 < count) strncat(list, "|", sizeof list - strlen(list) - 1);
    }
    return io_fail(err, IO_ERR_INPUT, NULL, 0, option, "'%s' is not one of %s", value, list);
}

/* --periodic: "none", or axis letters x, y, z (each at most once, any order, any case). */
static int periodic_axes(const char *option, const char *value, int *out, io_error *err) {
    if (io_iequal(value, "none")) {
        *out = 0;
        return IO_OK;
    }
    int axes = 0;
    for (const char *p = value; *p; ++p) {
        const char c = (char)(*p | 0x20);
        const int bit = c == 'x'   ? DG_PERIODIC_X
                        : c == 'y' ? DG_PERIODIC_Y
                        : c == 'z' ? DG_PERIODIC_Z
                                   : 0;
        if (!bit || (axes & bit))
            return io_fail(err, IO_ERR_INPUT, NULL, 0, option,
                           "'%s' is not 'none' or a set of the axes x, y, z (e.g. z, xy, xyz)",
                           value);
        axes |= bit;
    }
    *out = axes;
    return IO_OK;
}

/* A real number in (lo, hi) (hi = INFINITY: no upper end). */
static int real_between(const char *option, const char *value, double lo, double hi, double *out,
                        io_error *err) {
    double v;
    if (io_parse_real(value, &v) != 0 || !(v > lo && v < hi)) {
        if (hi < INFINITY)
            return io_fail(err, IO_ERR_INPUT, NULL, 0, option, "'%s' is not a number in (%g, %g)",
                           value, lo, hi);
        return io_fail(err, IO_ERR_INPUT, NULL, 0, option, "'%s' is not a number > %g", value, lo);
    }
    *out = v;
    return IO_OK;
}

static int nonnegative_int(const char *option, const char *value, int *out, io_error *err) {
    long v;
    if (io_parse_int(value, &v) != 0 || v < 0 || v > 1000000)
        return io_fail(err, IO_ERR_INPUT, NULL, 0, option, "'%s' is not a non-negative integer",
                       value);
    *out = (int)v;
    return IO_OK;
}

/* Remove the map outputs of one format that came from the parameter file. */
static void drop_maps(run_settings *s, int format) {
    int kept = 0;
    for (int i = 0; i < s->map_count; i++)
        if (s->maps[i].format != format) s->maps[kept++] = s->maps[i];
    s->map_count = kept;
}

static int apply_one(run_settings *s, const char *name, const char *option, const char *value,
                     int replaced_maps[MAP_FORMAT_COUNT], io_notes *notes, io_error *err) {
    param_context ctx = {s, option, 0, 1, notes, err, ""};
    static const char *backend_names[] = {"auto", "cpu", "cuda"};
    static const int backend_values[] = {DG_BACKEND_AUTO, DG_BACKEND_CPU, DG_BACKEND_CUDA};
    static const char *precision_names[] = {"double", "float", "mixed"};
    static const int precision_values[] = {DG_PRECISION_DOUBLE, DG_PRECISION_FLOAT,
                                           DG_PRECISION_MIXED};
    static const char *solver_names[] = {"sor", "mg", "auto"};
    static const int solver_values[] = {DG_SOLVER_SOR, DG_SOLVER_MULTIGRID, DG_SOLVER_AUTO};
    static const char *surface_names[] = {"molecular", "vdw"};
    static const int surface_values[] = {SURFACE_MOLECULAR, SURFACE_VDW};
    static const char *nonlinear_names[] = {"newton", "newton-polynomial", "delphi"};
    static const int nonlinear_values[] = {NONLINEAR_NEWTON, NONLINEAR_NEWTON_POLYNOMIAL,
                                           NONLINEAR_DELPHI};

    if (value && !value[0] && strcmp(name, "set") != 0)
        return io_fail(err, IO_ERR_INPUT, NULL, 0, option, "empty value");
    /* Every value but --set's statements is kept in a field of SETTINGS_PATH_MAX: a longer one
       (a file name) is refused, never cut to another name. */
    if (value && strcmp(name, "set") != 0 && strlen(value) >= SETTINGS_PATH_MAX)
        return io_fail(err, IO_ERR_INPUT, NULL, 0, option,
                       "the value is %zu characters long (at most %d)", strlen(value),
                       SETTINGS_PATH_MAX - 1);
    if (params_is_assignment_name(name)) {
        char lower[64];
        params_lower(lower, sizeof lower, name);
        return params_apply_assignment(&ctx, lower, value);
    }
    if (!strcmp(name, "set")) return settings_parse_text(s, value, "--set", 0, notes, err);
    if (!strcmp(name, "pqr"))
        params_set_input(&ctx, INPUT_PQR, value);
    else if (!strcmp(name, "pdb"))
        params_set_input(&ctx, INPUT_PDB, value);
    else if (!strcmp(name, "siz"))
        params_set_input(&ctx, INPUT_SIZ, value);
    else if (!strcmp(name, "crg"))
        params_set_input(&ctx, INPUT_CRG, value);
    else if (!strcmp(name, "phi-in"))
        params_set_input(&ctx, INPUT_PHI, value);
    else if (!strcmp(name, "phi") || !strcmp(name, "dx") || !strcmp(name, "cube") ||
             !strcmp(name, "mrc")) {
        int format = !strcmp(name, "phi")   ? MAP_DELPHI
                     : !strcmp(name, "dx")  ? MAP_DX
                     : !strcmp(name, "mrc") ? MAP_MRC
                                            : MAP_CUBE;
        if (!replaced_maps[format]) {
            drop_maps(s, format);
            replaced_maps[format] = 1;
        }
        return params_add_map(&ctx, format, value);
    } else if (!strcmp(name, "frc"))
        snprintf(s->frc_out_file, sizeof s->frc_out_file, "%s", value);
    else if (!strcmp(name, "frc-format"))
        return frc_format_parse(&ctx, option, value);
    else if (!strcmp(name, "scrg-format"))
        return scrg_format_parse(&ctx, option, value);
    else if (!strcmp(name, "scrg"))
        snprintf(s->scrg_out_file, sizeof s->scrg_out_file, "%s", value);
    else if (!strcmp(name, "eps"))
        snprintf(s->eps_out_file, sizeof s->eps_out_file, "%s", value);
    else if (!strcmp(name, "json"))
        snprintf(s->json_file, sizeof s->json_file, "%s", value);
    else if (!strcmp(name, "log"))
        snprintf(s->log_file, sizeof s->log_file, "%s", value);
    else if (!strcmp(name, "backend"))
        return choose(option, value, backend_names, backend_values, 3, &s->backend, err);
    else if (!strcmp(name, "precision")) {
        s->precision_given = 1;
        return choose(option, value, precision_names, precision_values, 3, &s->precision, err);
    } else if (!strcmp(name, "solver")) {
        s->solver_given = 1;
        return choose(option, value, solver_names, solver_values, 3, &s->solver, err);
    } else if (!strcmp(name, "periodic"))
        return periodic_axes(option, value, &s->periodic, err);
    else if (!strcmp(name, "surface"))
        return choose(option, value, surface_names, surface_values, 2, &s->surface, err);
    else if (!strcmp(name, "nonlinear")) {
        s->nonlinear_given = 1;
        return choose(option, value, nonlinear_names, nonlinear_values, 3, &s->nonlinear_method,
                      err);
    } else if (!strcmp(name, "device"))
        return nonnegative_int(option, value, &s->device, err);
    else if (!strcmp(name, "threads")) {
        int rc = nonnegative_int(option, value, &s->threads, err);
        if (rc == IO_OK && s->threads > SETTINGS_MAX_THREADS)
            return io_fail(err, IO_ERR_INPUT, NULL, 0, option,
                           "%d threads is more than the limit of %d", s->threads,
                           SETTINGS_MAX_THREADS);
        return rc;
    } else if (!strcmp(name, "energy")) {
        char list[256];
        size_t n = 0;
        for (const char *p = value; *p && n + 1 < sizeof list; p++)
            if (*p != ' ' && *p != '\t') list[n++] = *p;
        list[n] = '\0';
        s->energy_grid = s->energy_solvation = s->energy_coulombic = s->energy_ionic = 0;
        return params_apply_function(&ctx, "energy", list);
    } else if (!strcmp(name, "binding")) {
        const int rc = binding_spec_check(value, err);
        if (rc == IO_OK) snprintf(s->binding, sizeof s->binding, "%s", value);
        return rc;
    } else if (!strcmp(name, "coarse-scale")) {
        return real_between(option, value, 0.0, INFINITY, &s->coarse_scale, err);
    } else if (!strcmp(name, "coarse-perfil")) {
        return real_between(option, value, 0.0, 100.0, &s->coarse_perfil, err);
    } else if (!strcmp(name, "binding-residues")) {
        snprintf(s->binding_residues_file, sizeof s->binding_residues_file, "%s", value);
    } else if (!strcmp(name, "solvation-two-run"))
        s->solvation_two_run = 1;
    else if (!strcmp(name, "quiet"))
        s->quiet = 1;
    else if (!strcmp(name, "help"))
        s->show_help = 1;
    else if (!strcmp(name, "version"))
        s->show_version = 1;
    return IO_OK;
}

int settings_apply_args(run_settings *s, int argc, char **argv, io_notes *notes, io_error *err) {
    int replaced_maps[MAP_FORMAT_COUNT] = {0};
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--") == 0) break;
        if (strcmp(arg, "-h") == 0) {
            s->show_help = 1;
            continue;
        }
        if (!(arg[0] == '-' && arg[1] == '-')) {
            if (arg[0] == '-' && arg[1] != '\0')
                return io_fail(err, IO_ERR_INPUT, NULL, 0, NULL,
                               "unknown option '%s' (options start with --)", arg);
            continue; /* the parameter file */
        }
        char name[64];
        const char *value;
        int consumed;
        int rc = split_option(argc, argv, i, name, sizeof name, &value, &consumed, err);
        if (rc) return rc;
        char option[72];
        snprintf(option, sizeof option, "--%s", name);
        rc = apply_one(s, name, option, value, replaced_maps, notes, err);
        if (rc) return rc;
        i += consumed - 1;
    }
    return IO_OK;
}

/* Does an option name the molecule (--pqr, --pdb)? */
static int names_molecule(int argc, char **argv) {
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (!strncmp(argv[i], "--pqr", 5) || !strncmp(argv[i], "--pdb", 5)) {
            const char c = argv[i][5];
            if (c == '\0' || c == '=') return 1;
        }
    return 0;
}

int settings_read(run_settings *s, int argc, char **argv, io_notes *notes, io_error *err) {
    settings_defaults(s);
    io_error_clear(err);
    const char *param_file = NULL;
    int rc = settings_find_param_file(argc, argv, &param_file, err);
    if (rc) return rc;
    /* --help and --version need nothing else; look for them before reading any file. */
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h") || !strcmp(argv[i], "--version")) {
            if (!strcmp(argv[i], "--version"))
                s->show_version = 1;
            else
                s->show_help = 1;
        }
    if (s->show_help || s->show_version) return IO_OK;

    /* As DelPhi: with no parameter file named, DelPhi's default one when it is there (unless
       the molecule is given by an option). */
    if (!param_file && !names_molecule(argc, argv) && io_file_readable(SETTINGS_DEFAULT_PARAM)) {
        param_file = SETTINGS_DEFAULT_PARAM;
        io_note(notes, IO_NOTE_INFO,
                "no parameter file named: reading DelPhi's default one, " SETTINGS_DEFAULT_PARAM
                ", from the current directory");
    }
    if (param_file) {
        rc = settings_parse_file(s, param_file, notes, err);
        if (rc) return rc;
    }
    return settings_apply_args(s, argc, argv, notes, err);
}

int settings_load(run_settings *s, int argc, char **argv, io_notes *notes, io_error *err) {
    const int rc = settings_read(s, argc, argv, notes, err);
    if (rc || s->show_help || s->show_version) return rc;
    return settings_resolve(s, notes, err);
}
