/* host_io: the JSON summary of a run (--json FILE; keys in host/app/CLI.md).
 *
 * Fill a run_summary after run_summary_init() (which marks every value "not set"), then write
 * it.  Unset numbers (NaN, or -1 for counts) and empty strings are written as null, so every
 * key of CLI.md is always present.  energies_kT.solvation_two_run appears only when
 * has_solvation_two_run is set; binding is null unless has_binding is, focusing unless
 * has_focusing is. */
#ifndef HOST_IO_SUMMARY_H
#define HOST_IO_SUMMARY_H

#include "io_common.h"
#include "settings.h"

/* Energy terms (kT) of one state of a binding run, or their differences; NaN = not computed. */
typedef struct summary_energy_terms {
    double grid, coulombic, reaction_field_corrected, ionic, self_reaction, solvation_two_run;
} summary_energy_terms;

/* One partner of a binding run, alone. */
typedef struct summary_partner {
    char selection[96]; /* e.g. "chain A", "the HETATM records" */
    long atoms;
    double net_charge; /* e */
    long iterations;
    int converged; /* 0/1 */
    summary_energy_terms energies;
} summary_partner;

typedef struct run_summary {
    char version[32]; /* program version, "0.1.0" */

    /* input */
    char molecule_file[SETTINGS_PATH_MAX];
    long atoms;
    double net_charge;

    /* grid */
    int grid_size[3];
    double grid_scale;     /* points per A */
    double grid_center[3]; /* A */
    long boundary_points;  /* dielectric-boundary points */
    long charged_points;   /* charged grid points */

    /* focusing in one run (--coarse-scale / --coarse-perfil): "focusing" is null unless set */
    int has_focusing;
    int coarse_size;
    double coarse_scale, coarse_perfil;
    char coarse_boundary[16]; /* the coarse grid's boundary values, e.g. "dipolar" */
    long coarse_iterations;
    int coarse_converged;
    char coarse_outcome[128];

    /* solver */
    char backend[16];         /* "cpu" or "cuda" */
    char backend_reason[512]; /* why that backend (the program's AUTO rule, --backend given) */
    char precision[16];       /* "float" or "double" */
    char equation[16];        /* "poisson", "linear_pb", "nonlinear_pb" */
    char periodic[4];         /* periodic axes, e.g. "z" or "xyz"; "" = none */
    char method[16];          /* the linear solver that ran: "sor" or "multigrid" ("" = unknown) */
    char method_reason[384];  /* why (dg_solver_choice), e.g. the AUTO choice's grid size */
    long iterations;
    int converged;     /* 0/1; -1 = unknown (null) */
    char outcome[128]; /* library outcome string */
    double max_change; /* kT/e at the last check */
    double rms_change; /* kT/e at the last check */
    double spectral_radius;
    double omega;

    /* energies, kT */
    double energy_grid;
    double energy_coulombic;
    double energy_reaction_field_corrected;
    double energy_ionic;
    double energy_self_reaction;
    double energy_total_reaction_field;
    int has_solvation_two_run;
    double energy_solvation_two_run;

    /* binding (--binding): written as "binding": null unless has_binding */
    int has_binding;
    double binding_energy;      /* kT: coulombic + reaction field (+ salt) differences */
    double binding_salt;        /* kT: the salt's part (0 without salt) */
    double binding_grid_energy; /* kT: the grid energies' difference (+ ionic terms) */
    summary_energy_terms binding_difference;
    summary_partner binding_partner[2];

    /* wall seconds */
    double time_setup, time_solve, time_energies, time_total;
    /* the stages of setup (read = inputs read; surface, medium, ... of the calculation layer)
       and the reference solve of a two-run solvation (null otherwise) */
    double time_read, time_grid, time_surface, time_medium, time_charges, time_boundary,
        time_reference, time_coarse;

    int exit_status;              /* the program's exit status; -1 = not set */
    const io_notes *notes;        /* written as "notes": [...]; NULL = none */
    const run_settings *settings; /* written as "parameters": {...}; NULL = none */
} run_summary;

void run_summary_init(run_summary *r);

/** Write the summary as JSON (atomic). */
int run_summary_write(const char *path, const run_summary *r, io_error *err);

#endif /* HOST_IO_SUMMARY_H */
