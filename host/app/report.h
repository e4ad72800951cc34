/* The human-readable log of a run, section by section (the quantities DelPhi prints). */
#ifndef HOST_REPORT_H
#define HOST_REPORT_H

#include "calculation.h"
#include "io_common.h"
#include "progress.h"
#include "io_log.h"
#include "molecule.h"
#include "settings.h"

/* Program banner, settings echo and the notes of the settings loader. */
void report_settings(io_log *log, const run_settings *s, const io_notes *notes);

void report_molecule(io_log *log, const molecule *mol, const molecule *sites);

/* One finished stage of the calculation (the calc_hooks stage callback's body). */
void report_stage(io_log *log, const run_settings *s, int stage, const calc_result *r,
                  const progress_state *progress);

/* Time per stage and the total. */
/* The binding section of a binding run (after the complex's energies); names: the partners. */
void report_binding(io_log *log, const run_settings *s, const dg_calc_binding *b,
                    const char *names[2]);

void report_timing(io_log *log, const calc_result *r, double read_seconds, double output_seconds,
                   double total_seconds);

/* "zero", "dipolar", "focusing", "coulombic" */
const char *report_bc_name(int bndcon);

#endif /* HOST_REPORT_H */
