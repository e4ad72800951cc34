/* host_io: run settings from a DelPhi parameter file and the command line (host/app/CLI.md).
 *
 * Typical use (main):
 *     run_settings s; io_notes notes; io_error err;
 *     if (settings_load(&s, argc, argv, &notes, &err) != IO_OK) { print err.message; exit 1; }
 *     log the notes; if (s.show_help) { fputs(settings_usage(), stdout); exit 0; }
 */
#ifndef HOST_IO_SETTINGS_H
#define HOST_IO_SETTINGS_H

#include "io_common.h"
#include "path_identity.h"
#include "settings.h"

/** DelPhi's defaults and ours (backend auto, precision double until the program picks its
 *  default for the backend: app_default_precision, ...). */
void settings_defaults(run_settings *s);

/** Read a DelPhi parameter file (statement syntax) into s; s->param_file is set to path.
 *  The positional "type 1" format (first character a digit) is refused (IO_ERR_UNSUPPORTED). */
int settings_parse_file(run_settings *s, const char *path, io_notes *notes, io_error *err);

/** Parse parameter-file text (one or more lines).  origin names it in messages ("--set" or a
 *  file name); first_line is the number of its first line (0 = do not print line numbers).
 *  Relative input names are searched as if they came from s->param_file (if set). */
int settings_parse_text(run_settings *s, const char *text, const char *origin, int first_line,
                        io_notes *notes, io_error *err);

/** argv indices of the positional arguments (parameter files): up to max in index, all counted
 *  in *count.  Fails on a malformed or unknown option. */
int settings_list_positional(int argc, char **argv, int *index, int max, int *count, io_error *err);

/** The positional PARAMFILE argument, or NULL when there is none.  More than one is an error. */
int settings_find_param_file(int argc, char **argv, const char **param_file, io_error *err);

/** Apply the command-line options (argv[1..]); positional arguments are skipped.  Options
 *  override the parameter file, so call this after settings_parse_file(). */
int settings_apply_args(run_settings *s, int argc, char **argv, io_notes *notes, io_error *err);

/** Fill in DelPhi's default file names, find relative input files (cwd first, then the
 *  parameter file's directory, for names from the file), and check that the settings make a
 *  run (an input molecule; in(phi) with bndcon=3; distinct output names). */
int settings_resolve(run_settings *s, io_notes *notes, io_error *err);

/** Every output can be written (path_check_output), none is named twice, none is an input
 *  (settings_resolve checks this; a batch again after it renamed the outputs). */
int settings_check_outputs(const run_settings *s, io_error *err);

/** Defaults, parameter file and options, not resolved: the names as written (a batch plans
 *  its runs' outputs with it before an earlier run has written a later one's input). */
int settings_read(run_settings *s, int argc, char **argv, io_notes *notes, io_error *err);

/** The identities of the input files s names (molecule, tables, focusing map, sites, centre,
 *  parameter file): each as named and, a relative one, also in the parameter file's directory
 *  (the other place it may be read from); at most max (SETTINGS_INPUT_IDENTITIES holds them
 *  all).  Returns how many. */
#define SETTINGS_INPUT_IDENTITIES 16
int settings_input_identities(const run_settings *s, path_identity *id, int max);

/** All of it: defaults, parameter file, options, resolve.  With --help or --version it stops
 *  after the options (s->show_help / s->show_version set, no file checks). */
int settings_load(run_settings *s, int argc, char **argv, io_notes *notes, io_error *err);

/** Say where an input name came from, for messages: "named by in(pdb) at run.prm:3",
 *  "given by --pdb", "DelPhi's default name (no in(pdb) statement)". */
void settings_describe_input(const run_settings *s, int kind, char *buf, size_t size);

/** The columns of out(frc) in DelPhi's layout (a mask of FRC_BIT(enum frc_column), io_sites.h):
 *  those the site(...) flags ask that DelPhi's 80-character line holds. */
unsigned settings_frc_columns(const run_settings *s);

/** The --help text. */
const char *settings_usage(void);

/** The i-th long option the command line takes besides the parameter statements (its name
 *  without "--"), or NULL past the last: what --help must describe. */
const char *settings_option_name(size_t i);

/** "delphi", "dx", "cube" for an enum map_format value. */
const char *io_map_format_name(int format);

/* Notes written into the settings by the parser (visible for tests). */
#define SETTINGS_DEFAULT_PDB        "fort.13"
#define SETTINGS_DEFAULT_SIZ        "fort.11"
#define SETTINGS_DEFAULT_CRG        "fort.12"
#define SETTINGS_DEFAULT_PHI_OUT    "fort.14"
#define SETTINGS_DEFAULT_FRC_OUT    "fort.16"
#define SETTINGS_DEFAULT_SCRG_OUT   "scrg.dat"
#define SETTINGS_DEFAULT_GCRG_OUT   "crg.dat"
#define SETTINGS_DEFAULT_EPS_OUT    "fort.17"
#define SETTINGS_DEFAULT_MODPDB_OUT "fort.19"
#define SETTINGS_DEFAULT_UNPDB_OUT  "fort.20"
#define SETTINGS_DEFAULT_PARAM      "fort.10"
#define SETTINGS_CENTER_FILE_777    "fort.27"
#define SETTINGS_DEFAULT_FRC_IN     "fort.15" /* in(frc) without file=, out(frc) without in(frc) */
#define SETTINGS_CENTER_FILE_999    SETTINGS_DEFAULT_FRC_IN /* DelPhi's centre file is it too */

#endif /* HOST_IO_SETTINGS_H */
