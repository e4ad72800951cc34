/* Checks of a finished calculation that the program makes before calling it a success, and
 * the reader warnings it must show: nothing a reader skipped stays silent. */
#ifndef HOST_RUN_CHECKS_H
#define HOST_RUN_CHECKS_H

#include <stddef.h>

#include "calculation.h"
#include "io_common.h"
#include "io_log.h"
#include "settings.h"

/** Log notes[first..count) (warnings with "warning: ", the others as "note: ") without
 *  removing them: the JSON summary lists them too. */
void run_log_notes_from(io_log *log, const io_notes *notes, int first);

/** Largest energy magnitude accepted (kT): 1e12 kT is about 2.5e9 kJ/mol, far beyond any
 *  molecule; a larger value (e.g. e^125 from an ionic term of a blown-up nonlinear iterate)
 *  means the potential is garbage. */
#define RUN_ENERGY_LIMIT_KT 1e12

/** 0 when every energy the run reports is finite and within RUN_ENERGY_LIMIT_KT; else 1 with
 *  msg naming the first term that is not (an error, never left out of the report). */
int run_check_energies(const run_settings *s, const calc_result *r, char *msg, size_t size);

/** The same for a binding run's energy (which sums the partners' grid energies). */
int run_check_binding(const dg_calc_binding *b, char *msg, size_t size);

/** 1 when a solve counts as converged: a stopping criterion was met.  A fixed iteration
 *  count without criterion ("completed") is not converged. */
int run_solve_converged(const dg_result *d);

/** When a solve ran its iterations without any stopping criterion, warn that convergence was
 *  not checked, with the last max change. */
void run_warn_unchecked(io_log *log, const char *label, const dg_result *d);

#endif /* HOST_RUN_CHECKS_H */
