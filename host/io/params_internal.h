/* Internal to the parameter-file and option parsers (params_*.c, settings_*.c). */
#ifndef HOST_IO_PARAMS_INTERNAL_H
#define HOST_IO_PARAMS_INTERNAL_H

#include "io_common.h"
#include "settings.h"

/* Where the statement being applied comes from. */
typedef struct param_context {
    run_settings *s;
    const char *origin; /* parameter file name, "--set", or the option ("--gsize") */
    int line;           /* line in origin, 0 for options */
    int from_option;    /* 1 for command-line options: inputs are then relative to cwd only */
    io_notes *notes;
    io_error *err;
    char where[SETTINGS_ORIGIN_MAX + 16]; /* scratch for params_where() */
} param_context;

/** "file:line" (or the option name) for notes; valid until the next call. */
const char *params_where(param_context *ctx);

/** Apply one statement with blanks and comments already removed ("gs=65", "in(pdb,file=x)"). */
int params_apply_statement(param_context *ctx, const char *statement);

/** name=value statements (params_statements.c); name is already lower-case. */
int params_apply_assignment(param_context *ctx, const char *name, const char *value);
/** 1 if name (lower-case, long or 2-letter) is a name=value statement. */
int params_is_assignment_name(const char *name);

/** Function statements in(), out(), energy(), site(), acenter(), center() ... (params_functions.c).
 *  name is lower-case; args is the text inside the parentheses. */
int params_apply_function(param_context *ctx, const char *name, const char *args);

/** out(frc)'s format= (NULL: none given), also --frc-format: sets s->frc_format, and the
 *  columns DelPhi's formats rc and r add.  field names the statement in messages. */
int frc_format_parse(param_context *ctx, const char *field, const char *format);

/** out(scrg)'s format= (NULL: none), also --scrg-format: sets s->scrg_format. */
int scrg_format_parse(param_context *ctx, const char *field, const char *format);

/** The path field of an input kind. */
char *params_input_path(run_settings *s, int kind);

/** Set an input file name and record where it came from. */
void params_set_input(param_context *ctx, int kind, const char *path);

/** Add a map output; an identical path is an error. */
int params_add_map(param_context *ctx, int format, const char *path);

/** Lower-case copy. */
void params_lower(char *dst, size_t size, const char *src);

/** Field name used in messages for an input kind: "in(pdb)" etc. */
const char *params_input_name(int kind);

#endif /* HOST_IO_PARAMS_INTERNAL_H */
