/* One whole PB calculation without any file I/O: grid -> surface and medium -> charges ->
 * boundary values -> solve (through the C API) -> energies and site potentials, optionally a
 * second, reference solve for --solvation-two-run.  The program (host/app) reads the inputs,
 * logs, and writes the outputs around it; the tests call it directly. */
#ifndef HOST_CALCULATION_H
#define HOST_CALCULATION_H

#include <stddef.h>

#include "charges.h"
#include "delphi_gpu/delphi_gpu.h"
#include "energies.h"
#include "grid.h"
#include "medium.h"
#include "molecule.h"
#include "pb_solve.h"
#include "phi_map.h"
#include "reaction_field.h"
#include "salt.h"
#include "settings.h"

/* Status of calc_run (the program maps them to its exit codes). */
enum calc_status { CALC_OK = 0, CALC_BAD_INPUT = 1, CALC_SOLVER_FAILED = 2 };

/* Stages, reported to the stage hook as they finish. */
enum calc_stage {
    CALC_STAGE_GRID,
    CALC_STAGE_MEDIUM,
    CALC_STAGE_CHARGES,
    CALC_STAGE_BOUNDARY,
    CALC_STAGE_SOLVE,
    CALC_STAGE_ENERGIES,
    CALC_STAGE_REFERENCE_SOLVE
};

typedef struct calc_result calc_result;

typedef struct calc_hooks {
    void (*stage)(int stage, const calc_result *r, void *user); /* may be NULL */
    dg_progress_fn progress;                                    /* solver progress; NULL = none */
    void *user;                                                 /* passed to both */
} calc_hooks;

typedef struct calc_input {
    const run_settings *settings;
    const molecule *mol;
    const phi_map *focus_source; /* bndcon = 3: the coarser map (any precision) */
    int want_sites;              /* compute site potentials */
    const molecule *sites;       /* ... at these positions; NULL = at the atoms */
} calc_input;

struct calc_result {
    int status; /* enum calc_status */
    char message[2048];
    char notes[2048]; /* adjustments worth logging (grid note, nonit raised, charges dropped) */

    grid_spec grid;
    salt_model salt;
    int nonlinear;
    double memory_estimate; /* bytes */

    /* Surface and medium. */
    int surface_atoms, arc_dots;
    medium_maps medium; /* kept for the reference solve; freed by calc_result_free */
    long *boundary;     /* dielectric-boundary points, 0-based full indices */
    size_t boundary_count;
    dg_sparse_counts counts; /* the library's sparse form of the medium as solved */

    charge_list charges;
    double face_centres[6]; /* boundary potentials at the face centres, x-,x+,y-,y+,z-,z+ */

    /* Solve. */
    dg_options options;
    dg_result solve;
    char notice[1024]; /* dg_notice() lines */
    phi_map phi;       /* the potential (the solve's precision) */

    /* Energies (kT); NaN when not computed. */
    double energy_grid;
    double energy_coulombic;
    long coincident_pairs;
    double energy_self_reaction;
    double energy_reaction_field; /* corrected */
    double energy_total_reaction_field;
    reaction_field rf;
    int ionic_computed;
    ionic_energy ionic;
    /* --solvation-two-run: grid energy of the reference (uniform eps_in, no salt) and the
       difference; the reference solve's record. */
    int two_run;
    double energy_grid_reference, energy_solvation_two_run;
    dg_result reference_solve;

    double *site_potential; /* [site_count] kT/e, NaN outside the grid */
    size_t site_count, sites_outside;

    /* Wall seconds. */
    double time_grid, time_medium, time_charges, time_boundary, time_solve, time_energies,
        time_reference;
    /* ... and within the stages: the surface model and the maps (medium), the boundary list
       (charges), the Coulombic energy (energies; the reaction field's parts are in rf), and the
       solves' parts. */
    double time_surface_model, time_medium_maps, time_boundary_points, time_coulombic;
    pb_solve_timing solve_timing, reference_timing;
};

/* Run the calculation.  Always call calc_result_free afterwards. */
int calc_run(const calc_input *in, const calc_hooks *hooks, calc_result *r);

void calc_result_free(calc_result *r);

/* Equation name for the summary: "poisson", "linear_pb" or "nonlinear_pb". */
const char *calc_equation_name(const calc_result *r);

#endif /* HOST_CALCULATION_H */
