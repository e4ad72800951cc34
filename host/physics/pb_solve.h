/* The Poisson-Boltzmann solve through the delphi_gpu C API: DelPhi's settings mapped onto
 * dg_options, the medium handed over in the library's compact dense form (1-byte medium
 * numbers per face and a charge list), the dielectric-boundary list for the energies. */
#ifndef HOST_PB_SOLVE_H
#define HOST_PB_SOLVE_H

#include <stddef.h>

#include "charges.h"
#include "delphi_gpu/delphi_gpu.h"
#include "grid.h"
#include "medium.h"
#include "phi_map.h"
#include "salt.h"
#include "settings.h"

/* Everything the dense medium points to; must outlive the dg_dense_medium_d built from it. */
typedef struct pb_medium {
    double epsilon[2]; /* medium_epsilon: [MEDIUM_SOLVENT] = eps_out, [MEDIUM_SOLUTE] = eps_in */
    dg_dense_medium_d dense;
} pb_medium;

/* Wire a dense medium onto the maps and charges.  salt NULL (or without salts) = Poisson.
 * eps_solvent is the permittivity of the solvent medium (exdi; eps_in for the reference run of
 * --solvation-two-run, which also passes salt NULL). */
void pb_medium_init(pb_medium *pm, const grid_spec *g, const medium_maps *m,
                    const charge_list *charges, const salt_model *salt, double eps_in,
                    double eps_solvent, double temperature);

/* DelPhi's settings -> dg_options (doc 1, 5.1, 5.7, 5.8).  note (may be NULL) receives what
 * was adjusted, e.g. "nonit 10 raised to 30 as DelPhi does". */
void pb_options_from_settings(const run_settings *s, int nonlinear, dg_options *o, char *note,
                              size_t note_size);

/* 1 when the settings ask for the nonlinear equation (nonit > 0 and salt). */
int pb_wants_nonlinear(const run_settings *s, const salt_model *salt);

/* Dielectric-boundary points (the faces around them differ), as 0-based full indices, from
 * the library's DelPhi sparse form of the medium without salt; and the sparse counts of the
 * medium as given (with salt).  *boundary is malloc'ed.  Returns a dg_status. */
int pb_boundary_points(const dg_dense_medium_d *medium, long **boundary, size_t *count,
                       dg_sparse_counts *counts, char *msg, size_t msg_size);

/* Create a solver, set the medium, solve phi (faces = boundary values) in phi's precision.
 * notice receives the library's dg_notice() lines (e.g. the CPU fallback), msg the error.
 * Returns a dg_status. */
int pb_solve(const dg_options *o, const dg_dense_medium_d *medium, phi_map *phi, dg_result *result,
             char *notice, size_t notice_size, char *msg, size_t msg_size);

/* Where a solve's wall time went (seconds): creating the handle (device start-up), preparing the
 * medium on the host and handing it to the backend, checking and loading phi, the spectral
 * radius (and omega), the iterations (autotuning included), storing phi, destroying the handle. */
typedef struct pb_solve_timing {
    double create, prepare, upload, check_phi, load_phi, spectral, iterate, store_phi, destroy;
} pb_solve_timing;

/* pb_solve, also filling timing. */
int pb_solve_timed(const dg_options *o, const dg_dense_medium_d *medium, phi_map *phi,
                   dg_result *result, pb_solve_timing *timing, char *notice, size_t notice_size,
                   char *msg, size_t msg_size);

#endif /* HOST_PB_SOLVE_H */
