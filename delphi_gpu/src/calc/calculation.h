/* The calculation handle behind delphi_gpu_calc.h: its state and the run, stage by stage
 * (grid -> surface and medium -> charges -> boundary values -> solve -> energies, then the
 * reference solve of a two-run solvation).  One dg_solver is kept for the handle's lifetime,
 * so every solve (main, reference, later runs) reuses the backend and its tuned shape.
 *
 * Not installed: the delphi-gpu program (host/app) includes it to log every stage the way it
 * always has (calc_state, calc_set_hooks, calc_set_sites); other callers use the public API. */
#ifndef DG_CALC_CALCULATION_H
#define DG_CALC_CALCULATION_H

#include <stddef.h>

#include "calc_atoms.h"
#include "charges.h"
#include "delphi_gpu/delphi_gpu.h"
#include "delphi_gpu/delphi_gpu_calc.h"
#include "energies.h"
#include "grid.h"
#include "medium.h"
#include "phi_map.h"
#include "reaction_field.h"
#include "salt.h"
#include "surface.h"

/* How a run ended (the program maps them to its exit codes); dg_status is in result.status. */
enum calc_status { CALC_OK = 0, CALC_BAD_INPUT = 1, CALC_SOLVER_FAILED = 2 };

/* Stages, reported to the stage hook as they finish. */
enum calc_stage {
    CALC_STAGE_GRID,
    CALC_STAGE_MEDIUM,
    CALC_STAGE_CHARGES,
    CALC_STAGE_BOUNDARY,
    CALC_STAGE_SOLVE,
    CALC_STAGE_ENERGIES,
    CALC_STAGE_REFERENCE_SOLVE,
    CALC_STAGE_SALT_FREE_SOLVE,
    CALC_STAGE_COARSE_SOLVE /* focusing in one run: the coarse grid's solve(s) */
};

typedef struct calc_result calc_result;

typedef struct calc_hooks {
    void (*stage)(int stage, const calc_result *r, void *user); /* may be NULL */
    dg_progress_fn progress;                                    /* solver progress; NULL = none */
    void *user;                                                 /* passed to both */
} calc_hooks;

/* The state of the last run: every number the program logs. */
/* Where a solve's time went (wall seconds, from the solver's timing record): the medium's
 * hand-over to the backend, the phi check and load, the spectral radius (0 when cached), the
 * iterations (autotuning included) and the store. */
typedef struct calc_solve_parts {
    double upload, check_phi, load_phi, spectral, iterate, store_phi;
    /* multigrid (0 for SOR): set-up (phi in, hierarchy, answer out) and cycles */
    double mg_setup, mg_cycles, mg_phi_in, mg_build, mg_phi_out;
    char solver_choice[384]; /* dg_solver_choice: which solver ran and why */
} calc_solve_parts;

struct calc_result {
    int status;       /* enum calc_status */
    int binding_part; /* dg_calc_run_binding: 1 or 2 while partner 0 or 1 runs alone, 3 while
                         the complex runs; 0 in a plain run */
    int dg_status;    /* the dg_status behind it */
    char message[2048];
    char notes[2048]; /* adjustments worth logging (grid note, charges dropped) */
    long bad_atom;    /* 0-based atom the message is about; -1 = none */

    grid_spec grid;
    salt_model salt;
    int nonlinear;
    double memory_estimate; /* bytes */

    /* Surface and medium (kept while the positions stay). */
    int surface_atoms, arc_dots;
    long periodic_images; /* of those surface atoms, images of the molecule's (periodic axes) */
    medium_maps medium;
    long periodic_mismatch[3], periodic_compared[3]; /* medium_periodic_mismatch per axis */
    long *boundary; /* dielectric-boundary points, 0-based full indices */
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
    /* Two-run solvation: grid energy of the reference (uniform eps_in, no salt) and the
       difference; the reference solve's record. */
    int two_run;
    double energy_grid_reference, energy_solvation_two_run;
    dg_result reference_solve;
    /* Binding runs with salt: the same medium and charges without the salt (dg_calc_binding's
       salt part is the grid energy with the salt minus this one); NaN / zeroed otherwise. */
    int salt_free_run;
    double energy_grid_salt_free;
    dg_result salt_free_solve;
    double *salt_free_at_atoms; /* [atoms] kT/e, its potential at the atoms (salt_free_at_atoms) */
    /* Focusing in one run (coarse_scale/perfil): the coarse grid, its solve (and, with
       salt_free, its salt-free solve), the boundary values at its face centres. */
    int coarse;
    grid_spec coarse_grid;
    dg_result coarse_solve, coarse_salt_free_solve;
    calc_solve_parts coarse_parts;
    double coarse_face_centres[6];

    double *site_potential;       /* [site_count] kT/e, NaN outside the grid (calc_set_sites) */
    double *site_reaction;        /* [site_count] kT/e with CALC_SITE_REACTION, else NULL */
    double *site_coulombic;       /* [site_count] kT/e with CALC_SITE_COULOMBIC, else NULL */
    double *site_salt;            /* [site_count] mol/L with CALC_SITE_SALT, else NULL */
    double *site_debye;           /* [site_count] 0..1 with CALC_SITE_DEBYE, else NULL */
    double *site_coulombic_field; /* [3 site_count] kT/(e A) with CALC_SITE_COULOMBIC_FIELD */
    double *atom_reaction_force;  /* [3 atoms] kT/A with CALC_SITE_REACTION_FORCE, else NULL */
    size_t site_count, sites_outside;

    /* Wall seconds. */
    double time_grid, time_surface, time_medium, time_charges, time_boundary, time_solve,
        time_energies, time_reference, time_salt_free, time_coarse;
    /* ... within the stages: the Coulombic energy (the reaction field's parts are in rf) and the
       solves' parts. */
    double time_coulombic, time_site_sums;
    calc_solve_parts solve_parts, reference_parts;
};

struct dg_calc_s {
    dg_calc_params params;
    int valid;             /* params passed the checks and the solver exists */
    dg_solver solver;      /* one for the handle's lifetime */
    calc_molecule mol;     /* a copy of the atoms */
    int grid_placed;       /* r.grid holds the grid of the current atoms */
    int geometry_current;  /* surface, medium and boundary list match the positions */
    surface_model surface; /* kept for the reaction field */
    phi_map focus;         /* DG_BOUNDARY_FOCUSING: the coarser map (owned) */
    grid_spec coarse_grid; /* focusing in one run: placed with the grid (n = 0: none) */
    phi_map coarse_phi, coarse_salt_free_phi; /* ... its potentials during a run */
    int boundary_kind; /* the boundary values of the grid being solved (the coarse grid's, then
                          the grid's: DG_BOUNDARY_FOCUSING after a coarse solve) */
    double *site_xyz;  /* calc_set_sites; NULL = none */
    size_t site_count;
    int site_columns; /* calc_site_column bits beyond the potential */
    int map_copy;     /* the program writes a double copy of a float potential (memory plan) */
    int ran;          /* a run completed with a potential */
    int running;      /* inside dg_calc_run or dg_calc_run_binding: every other call on the
                         handle (from a progress callback) is refused, destroy does nothing */
    int salt_free;    /* dg_calc_run_binding: also solve without the salt (salt runs only) */
    int salt_free_at_atoms; /* ... and keep that solve's potential at the atoms */
    calc_hooks hooks;
    calc_result r;
    char error[2048];
    char notes[4096]; /* dg_calc_notes: the run's notes and the solver's notices */
};

/* Place the grid (r.grid) and focusing's coarse grid (coarse_grid) from the parameters and
 * atoms; 0, or -1 with a message. */
int calc_place_grids(dg_calc calc, char *msg, size_t size);

/* Run the calculation on the handle's atoms.  Returns a dg_status; r.status says how. */
int calc_run(dg_calc calc);

/* The last run's ion-accessibility map, or, when the run had no salt, one built by the same
 * stage operation into own (medium_free it).  Returns a dg_status with a message. */
int calc_ion_map(dg_calc calc, medium_maps *own, const unsigned char **ion, char *msg, size_t size);

/* The handle's error message (printf-style) with status as the return value; and the check
 * every public call starts with (DG_ERR_INVALID_ARGUMENT for NULL, DG_ERR_STATE for a handle
 * whose creation failed), which clears the message. */
int calc_fail(dg_calc calc, int status, const char *fmt, ...);
int calc_usable(dg_calc calc);

/* The public record of the last run (dg_calc_run's result), and its check: a requested energy
 * that is not finite is an error (DG_ERR_INTERNAL with the handle's message). */
void calc_fill_result(dg_calc calc, dg_calc_result *out);
int calc_check_energies(dg_calc calc, const dg_calc_result *out);

/* Free the run's arrays (not the handle). */
void calc_result_free(calc_result *r);

/* Equation name for the summary: "poisson", "linear_pb" or "nonlinear_pb". */
const char *calc_equation_name(const calc_result *r);

/* What the program's site list gets beside the potential (calc_set_sites): the reaction
 * field's potential (the reaction field is then computed even when its energy is not asked
 * for) and the Coulombic potential, as dg_calc_reaction_potentials_at and
 * dg_calc_coulombic_potentials_at give them; DelPhi's salt column, the net charge
 * concentration of the mobile ions that the potential at the site gives (mol/L of elementary
 * charges: -sum c_i z_i^2 phi in a linear run, sum c_i z_i exp(-z_i phi) in a nonlinear one, 0
 * without salt; whether ions can reach the site is not taken into account, as in DelPhi); and
 * DelPhi's Debye fraction, the ion-accessibility map (radius + ion radius from every atom)
 * interpolated trilinearly at the site (built for this alone when the run has no salt); the
 * Coulombic field of the atoms' charges in a uniform indi (coulombic_fields_on), which times a
 * site's charge is DelPhi's Coulombic force (site(cf)); and DelPhi's reaction-field force on
 * each atom of the molecule (reaction_field_forces; site(rf), whose sites are the atoms). */
typedef enum calc_site_column {
    CALC_SITE_REACTION = 1,
    CALC_SITE_COULOMBIC = 2,
    CALC_SITE_SALT = 4,
    CALC_SITE_DEBYE = 8,
    CALC_SITE_COULOMBIC_FIELD = 16,
    CALC_SITE_REACTION_FORCE = 32
} calc_site_column;

/* For the program: the last run's state, stage hooks, site positions (copied; NULL = none) for
 * the site potentials computed with the energies (and the calc_site_column bits in columns),
 * and the memory plan's map copy. */
const calc_result *calc_state(dg_calc calc);
void calc_set_hooks(dg_calc calc, const calc_hooks *hooks);
int calc_set_sites(dg_calc calc, const double *xyz, size_t count, int columns);
void calc_set_map_copy(dg_calc calc, int map_copy);

/* For the program's backend choice, made before any handle (and so any backend) exists: the
 * points per side of the grid that dg_calc_set_atoms would place for these parameters and
 * atoms.  Returns 0, or -1 when they give none (non-finite or negative values, no extent, a bad
 * scale; dg_calc_set_atoms then says why). */
int calc_plan_grid(const dg_calc_params *params, const dg_atoms *atoms, int *n);

#endif /* DG_CALC_CALCULATION_H */
