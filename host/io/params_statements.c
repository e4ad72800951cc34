/* name=value statements of the DelPhi parameter file.
 *
 * Each statement has a long name and, where DelPhi defines one, a 2-letter code.  Values are
 * checked here; a value out of range is an error naming the statement.  DelPhi quirks kept:
 * nonit values 1..20 become 30 (with a notice); `ci` is chebit, not conint; temper is in Celsius.
 * Not implemented: bndcon=5 (error), chebit and grdcon (notices). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "delphi_gpu/delphi_gpu_types.h"
#include "io_text.h"
#include "params_internal.h"

typedef int (*assign_fn)(param_context *ctx, const char *name, const char *value);

typedef struct statement_def {
    const char *name; /* long name */
    const char *code; /* 2-letter code, or NULL */
    assign_fn apply;
} statement_def;

/* ---- Value parsing with messages ----------------------------------------------------------- */

static int bad_value(param_context *ctx, const char *name, const char *value, const char *want) {
    return io_fail(ctx->err, IO_ERR_INPUT, ctx->origin, ctx->line, name, "value '%s' is not %s",
                   value, want);
}

/* open: OPEN_LOW and/or OPEN_HIGH, the ends of [lo, hi] that are excluded. */
enum { OPEN_LOW = 1, OPEN_HIGH = 2 };

static int get_real(param_context *ctx, const char *name, const char *value, double lo, double hi,
                    int open, double *out) {
    double v = 0.0;
    int rc = io_parse_real(value, &v);
    if (rc == IO_NOT_FINITE) return bad_value(ctx, name, value, "a finite number");
    if (rc != 0) return bad_value(ctx, name, value, "a number");
    const int lo_open = (open & OPEN_LOW) != 0, hi_open = (open & OPEN_HIGH) != 0;
    if ((lo_open ? v <= lo : v < lo) || (hi_open ? v >= hi : v > hi)) {
        return io_fail(ctx->err, IO_ERR_INPUT, ctx->origin, ctx->line, name,
                       "value %g is out of range (must be %s %g and %s %g)", v,
                       lo_open ? ">" : ">=", lo, hi_open ? "<" : "<=", hi);
    }
    *out = v;
    return IO_OK;
}

static int get_int(param_context *ctx, const char *name, const char *value, long lo, long hi,
                   long *out) {
    long v = 0;
    if (io_parse_int(value, &v) != 0) {
        /* an integer too large for io_parse_int is out of range, not "no integer" */
        double big = 0.0;
        if (io_parse_real(value, &big) == 0 && big == floor(big))
            return io_fail(ctx->err, IO_ERR_INPUT, ctx->origin, ctx->line, name,
                           "value %s is out of range (%ld to %ld)", value, lo, hi);
        return bad_value(ctx, name, value, "an integer");
    }
    if (v < lo || v > hi)
        return io_fail(ctx->err, IO_ERR_INPUT, ctx->origin, ctx->line, name,
                       "value %ld is out of range (%ld to %ld)", v, lo, hi);
    *out = v;
    return IO_OK;
}

static int get_bool(param_context *ctx, const char *name, const char *value, int *out) {
    static const char *yes[] = {"true", "t", ".true.", "yes", "y", "on", "1"};
    static const char *no[] = {"false", "f", ".false.", "no", "n", "off", "0"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        if (io_iequal(value, yes[i])) {
            *out = 1;
            return IO_OK;
        }
        if (io_iequal(value, no[i])) {
            *out = 0;
            return IO_OK;
        }
    }
    return bad_value(ctx, name, value, "true or false");
}

/* ---- Statements --------------------------------------------------------------------------- */

static int set_gsize(param_context *ctx, const char *name, const char *value) {
    long v = 0;
    int rc = get_int(ctx, name, value, 5, 4095, &v);
    if (rc) return rc;
    /* An even size is kept as given: the calculation makes it odd, after deriving a scale from
       it as DelPhi does, and says so in its notes. */
    ctx->s->gsize = (int)v;
    ctx->s->gsize_given = 1;
    return IO_OK;
}

#define REAL_SETTER(fn, field, lo, hi, open, flag)                                                 \
    static int fn(param_context *ctx, const char *name, const char *value) {                       \
        double v = 0;                                                                              \
        int rc = get_real(ctx, name, value, lo, hi, open, &v);                                     \
        if (rc) return rc;                                                                         \
        ctx->s->field = v;                                                                         \
        flag;                                                                                      \
        return IO_OK;                                                                              \
    }

REAL_SETTER(set_scale, scale, 0.0, 1000.0, OPEN_LOW, ctx->s->scale_given = 1)
REAL_SETTER(set_perfil, perfil, 0.0, 100.0, OPEN_LOW, ctx->s->perfil_given = 1)
REAL_SETTER(set_exdi, exdi, 0.0, 1.0e6, OPEN_LOW, (void)0)
REAL_SETTER(set_prbrad, prbrad, 0.0, 100.0, 0, (void)0)
REAL_SETTER(set_ionrad, ionrad, 0.0, 100.0, 0, (void)0)
REAL_SETTER(set_salt, salt, 0.0, 100.0, 0, (void)0)
REAL_SETTER(set_salt2, salt2, 0.0, 100.0, 0, (void)0)
REAL_SETTER(set_maxc, maxc, 0.0, 1.0e30, 0, (void)0)
REAL_SETTER(set_rmsc, rmsc, 0.0, 1.0e30, 0, (void)0)
REAL_SETTER(set_normc, normc, 0.0, 1.0e30, 0, (void)0)

/* relpar is a relaxation factor: the library takes (0, 2), both ends open. */
static int set_relpar(param_context *ctx, const char *name, const char *value) {
    double v = 0;
    int rc = get_real(ctx, name, value, 0.0, 2.0, OPEN_LOW | OPEN_HIGH, &v);
    if (rc) return rc;
    ctx->s->relpar = v;
    ctx->s->relpar_given = 1;
    return IO_OK;
}

static int set_indi(param_context *ctx, const char *name, const char *value) {
    double v = 0.0;
    if (io_parse_real(value, &v) == 0 && v < 0.0)
        return io_fail(ctx->err, IO_ERR_UNSUPPORTED, ctx->origin, ctx->line, name,
                       "a negative interior dielectric is DelPhi's \"diff\" option (rerun with a "
                       "uniform dielectric and subtract), which is not supported");
    int rc = get_real(ctx, name, value, 0.0, 1.0e6, OPEN_LOW, &v);
    if (rc) return rc;
    ctx->s->indi = v;
    return IO_OK;
}

static int set_relfac(param_context *ctx, const char *name, const char *value) {
    double v = 0.0;
    /* the spectral radius of the SOR's Jacobi iteration: [0, 1) */
    int rc = get_real(ctx, name, value, 0.0, 1.0, OPEN_HIGH, &v);
    if (rc) return rc;
    ctx->s->relfac = v;
    ctx->s->relfac_given = 1;
    return IO_OK;
}

static int set_valence(param_context *ctx, const char *name, const char *value) {
    static const char *names[4] = {"val+1", "val-1", "val+2", "val-2"};
    long v = 0;
    int rc = get_int(ctx, name, value, 1, 4, &v);
    if (rc) return rc;
    for (int i = 0; i < 4; i++)
        if (strcmp(name, names[i]) == 0)
            ctx->s->valence[i] = (int)v, ctx->s->valence_given |= 1 << i;
    return IO_OK;
}

static int set_bndcon(param_context *ctx, const char *name, const char *value) {
    long v = 0;
    int rc = get_int(ctx, name, value, 1, 7, &v);
    if (rc) return rc;
    if (v == 5)
        return io_fail(ctx->err, IO_ERR_UNSUPPORTED, ctx->origin, ctx->line, name,
                       "bndcon=5 (voltage drop along z) is not supported; use 1, 2, 3 or 4");
    if (v == 6 || v == 7) {
        long to = v == 6 ? 2 : 4;
        io_note(ctx->notes, IO_NOTE_INFO,
                "%s: bndcon=%ld is an ion variant that DelPhi treats as bndcon=%ld; using %ld",
                params_where(ctx), v, to, to);
        v = to;
    }
    ctx->s->bndcon = (int)v;
    return IO_OK;
}

static int set_linit(param_context *ctx, const char *name, const char *value) {
    long v = 0;
    int rc = get_int(ctx, name, value, 1, 100000000L, &v);
    if (rc) return rc;
    ctx->s->linit = (int)v;
    ctx->s->linit_given = 1;
    ctx->s->autoc = 0; /* as DelPhi: linit switches the automatic iteration count off */
    return IO_OK;
}

static int set_nonit(param_context *ctx, const char *name, const char *value) {
    long v = 0;
    int rc = get_int(ctx, name, value, 0, 100000000L, &v);
    if (rc) return rc;
    if (v > 0 && v <= 20) {
        io_note(ctx->notes, IO_NOTE_INFO,
                "%s: nonit=%ld raised to 30 (as DelPhi does for values up to 20)",
                params_where(ctx), v);
        v = 30;
    }
    ctx->s->nonit = (int)v;
    return IO_OK;
}

static int set_int_positive(param_context *ctx, const char *name, const char *value) {
    long v = 0;
    int rc = get_int(ctx, name, value, 1, 100000000L, &v);
    if (rc) return rc;
    if (strcmp(name, "conint") == 0)
        ctx->s->conint = (int)v;
    else
        ctx->s->confra = (int)v;
    return IO_OK;
}

static int set_autoc(param_context *ctx, const char *name, const char *value) {
    int v = 0;
    int rc = get_bool(ctx, name, value, &v);
    if (rc) return rc;
    ctx->s->autoc = v;
    return IO_OK;
}

static int set_grdcon(param_context *ctx, const char *name, const char *value) {
    double v = 0.0;
    int rc = get_real(ctx, name, value, 0.0, 1.0e30, 0, &v);
    if (rc) return rc;
    ctx->s->grdcon = v;
    if (v > 0.0)
        io_note(ctx->notes, IO_NOTE_WARNING,
                "%s: grdcon (stop on a stable grid energy) is not implemented and is ignored; the "
                "iteration count and rmsc/maxc/normc decide when to stop",
                params_where(ctx));
    return IO_OK;
}

static int set_chebit(param_context *ctx, const char *name, const char *value) {
    int v = 0;
    int rc = get_bool(ctx, name, value, &v);
    if (rc) return rc;
    if (v)
        io_note(ctx->notes, IO_NOTE_WARNING,
                "%s: chebit (Chebyshev omega sequence) is not implemented; plain SOR with the "
                "optimal fixed omega is used (same converged solution)",
                params_where(ctx));
    return IO_OK;
}

/* pbx, pby, pbz: the axis's bit of the periodic axes. */
static int set_periodic(param_context *ctx, const char *name, const char *value) {
    int v = 0;
    int rc = get_bool(ctx, name, value, &v);
    if (rc) return rc;
    const int bit = name[2] == 'x' ? DG_PERIODIC_X : name[2] == 'y' ? DG_PERIODIC_Y : DG_PERIODIC_Z;
    ctx->s->periodic = v ? ctx->s->periodic | bit : ctx->s->periodic & ~bit;
    return IO_OK;
}

static int set_temper(param_context *ctx, const char *name, const char *value) {
    double v = 0.0;
    int rc = get_real(ctx, name, value, -273.15, 1.0e4, OPEN_LOW, &v);
    if (rc) return rc;
    ctx->s->temperature = v + 273.15;
    return IO_OK;
}

static int set_atpods(param_context *ctx, const char *name, const char *value) {
    return get_real(ctx, name, value, 0.0, 1.0e3, 0, &ctx->s->atpods);
}

static int ignore_option(param_context *ctx, const char *name, const char *value) {
    io_note(ctx->notes, IO_NOTE_WARNING,
            "%s: '%s=%s' is a DelPhi option this program does not use; ignored", params_where(ctx),
            name, value);
    return IO_OK;
}

static const statement_def statements[] = {
    {"gsize", "gs", set_gsize},
    {"scale", "sc", set_scale},
    {"perfil", "pf", set_perfil},
    {"indi", "id", set_indi},
    {"exdi", "ed", set_exdi},
    {"prbrad", "pr", set_prbrad},
    {"ionrad", "ir", set_ionrad},
    {"salt", "is", set_salt},
    {"salt2", NULL, set_salt2},
    {"val+1", NULL, set_valence},
    {"val-1", NULL, set_valence},
    {"val+2", NULL, set_valence},
    {"val-2", NULL, set_valence},
    {"bndcon", "bc", set_bndcon},
    {"linit", "li", set_linit},
    {"nonit", "ni", set_nonit},
    {"maxc", NULL, set_maxc},
    {"rmsc", NULL, set_rmsc},
    {"normc", NULL, set_normc},
    {"grdcon", "gc", set_grdcon},
    {"autoc", NULL, set_autoc},
    {"relfac", "rf", set_relfac},
    {"relpar", NULL, set_relpar},
    {"conint", NULL, set_int_positive},
    {"confra", NULL, set_int_positive},
    {"chebit", "ci", set_chebit}, /* DelPhi: "ci" is chebit (duplicate code, last match wins) */
    {"pbx", NULL, set_periodic},
    {"pby", NULL, set_periodic},
    {"pbz", NULL, set_periodic},
    {"temper", "te", set_temper},
    {"atompotdist", "atpods", set_atpods},
    /* DelPhi options not used here: accepted with a warning. */
    {"fcrg", NULL, ignore_option},
    {"exitun", NULL, ignore_option},
    {"solvpb", NULL, ignore_option},
    {"clcsrf", NULL, ignore_option},
    {"phicon", NULL, ignore_option},
    {"radpol", NULL, ignore_option},
    {"vdropx", NULL, ignore_option},
    {"vdropy", NULL, ignore_option},
    {"vdropz", NULL, ignore_option},
    {"memdat", NULL, ignore_option},
    {"logpot", NULL, ignore_option},
    {"loggrp", NULL, ignore_option},
    {"radpr2", NULL, ignore_option},
};

/* DelPhi's other names of the statements above: its two-letter codes beyond the table's, and
 * the long names it matches whole (stock DelPhi 2010's list; its "ci" is chebit, as above).
 * maxconvergence and normconvergence are taken too, which that release lists but never
 * matches. */
static const struct {
    const char *alias, *name;
} aliases[] = {
    {"ac", "autoc"},
    {"automaticconvergence", "autoc"},
    {"autoconvergence", "autoc"},
    {"autocon", "autoc"},
    {"ad", "atompotdist"},
    {"boxfill", "perfil"},
    {"percentboxfill", "perfil"},
    {"percentfill", "perfil"},
    {"boundarycondition", "bndcon"},
    {"boundaryconditions", "bndcon"},
    {"convergenceinterval", "conint"},
    {"cf", "confra"},
    {"convergencefraction", "confra"},
    {"exteriordielectric", "exdi"},
    {"externaldielectric", "exdi"},
    {"xu", "exitun"},
    {"exituniformdielectric", "exitun"},
    {"fc", "fcrg"},
    {"fancycharge", "fcrg"},
    {"sphericalchargedistribution", "fcrg"},
    {"gridsize", "gsize"},
    {"gridconvergence", "grdcon"},
    {"ionradius", "ionrad"},
    {"interiordielectric", "indi"},
    {"iteration", "linit"},
    {"iterations", "linit"},
    {"lineariteration", "linit"},
    {"lineariterations", "linit"},
    {"lp", "logpot"},
    {"logfilepotentials", "logpot"},
    {"lg", "loggrp"},
    {"logfileconvergence", "loggrp"},
    {"md", "memdat"},
    {"membranedata", "memdat"},
    {"nonlineariteration", "nonit"},
    {"nonlineariterations", "nonit"},
    {"px", "pbx"},
    {"py", "pby"},
    {"pz", "pbz"},
    {"periodicboundaryx", "pbx"},
    {"periodicboundaryy", "pby"},
    {"periodicboundaryz", "pbz"},
    {"proberadius", "prbrad"},
    {"relaxationfactor", "relfac"},
    {"rl", "radpol"},
    {"radpolext", "radpol"},
    {"rr", "relpar"},
    {"mc", "rmsc"},
    {"rmsconvergence", "rmsc"},
    {"xc", "maxc"},
    {"maxconvergence", "maxc"},
    {"nc", "normc"},
    {"normconvergence", "normc"},
    {"saltconc", "salt"},
    {"saltconcentration", "salt"},
    {"s2", "salt2"},
    {"r2", "radpr2"},
    {"+1", "val+1"},
    {"-1", "val-1"},
    {"+2", "val+2"},
    {"-2", "val-2"},
    {"sp", "solvpb"},
    {"cs", "clcsrf"},
    {"temperature", "temper"},
    {"vx", "vdropx"},
    {"vy", "vdropy"},
    {"vz", "vdropz"},
};

static const statement_def *find_canonical(const char *name) {
    for (size_t i = 0; i < sizeof statements / sizeof statements[0]; i++) {
        if (strcmp(name, statements[i].name) == 0) return &statements[i];
        if (statements[i].code && strcmp(name, statements[i].code) == 0) return &statements[i];
    }
    return NULL;
}

static const statement_def *find_statement(const char *name) {
    const statement_def *def = find_canonical(name);
    for (size_t i = 0; !def && i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(name, aliases[i].alias) == 0) def = find_canonical(aliases[i].name);
    return def;
}

int params_is_assignment_name(const char *name) {
    return find_statement(name) != NULL;
}

int params_apply_assignment(param_context *ctx, const char *name, const char *value) {
    const statement_def *def = find_statement(name);
    if (!def)
        return io_fail(ctx->err, IO_ERR_INPUT, ctx->origin, ctx->line, name,
                       "unknown statement '%s=%s'", name, value);
    /* Messages name the statement by its long name (the 2-letter code is shown in brackets). */
    char shown[64];
    if (strcmp(name, def->name) != 0)
        snprintf(shown, sizeof shown, "%s (%s)", def->name, name);
    else
        snprintf(shown, sizeof shown, "%s", def->name);
    if (def->apply == set_valence) return set_valence(ctx, def->name, value);
    if (def->apply == set_int_positive) return set_int_positive(ctx, def->name, value);
    int rc = def->apply(ctx, shown, value);
    return rc;
}
