/* Output files of a run through host_io's writers (all written atomically): potential maps,
 * site potentials, the JSON summary. */
#ifndef HOST_OUTPUTS_H
#define HOST_OUTPUTS_H

#include "calculation.h"
#include "io_common.h"
#include "io_log.h"
#include "molecule.h"
#include "settings.h"

/* Maps (out(phi), --phi/--dx/--cube), site potentials (--frc), the atoms (out(modpdb)), the
 * dielectric map (out(eps), from calc) and the surface charges (out(scrg)).  sites NULL = the
 * atoms.  Returns IO_OK or the first failure (err filled); lists what it wrote in the log. */
int outputs_write(const run_settings *s, dg_calc calc, const calc_result *r, const molecule *mol,
                  const molecule *sites, io_log *log, io_error *err);

typedef struct summary_times {
    double setup, solve, energies, total;
    double read; /* inputs read (part of setup) */
} summary_times;

/* --binding-residues: each residue's part of the binding energy (host_io's table), and the
 * five largest in the log. */
int outputs_write_binding_residues(const run_settings *s, const molecule *mol, const int *partner,
                                   const double *atom_energy, double binding_energy, io_log *log,
                                   io_error *err);

/* A binding run's result and its partners' descriptions, for the summary. */
typedef struct outputs_binding {
    const dg_calc_binding *result;
    const char *names[2];
} outputs_binding;

/* The JSON summary (--json); r may be a failed or partial calculation (NULL: none ran).
 * backend_reason: why the run's backend (solver.backend_reason; NULL or "" = null); binding:
 * NULL unless a binding run completed. */
int outputs_write_summary(const run_settings *s, const calc_result *r, const molecule *mol,
                          const summary_times *t, int exit_status, const io_notes *notes,
                          const char *backend_reason, const outputs_binding *binding,
                          io_error *err);

#endif /* HOST_OUTPUTS_H */
