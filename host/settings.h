/* Run settings: everything a DelPhi parameter file and the command line can say.
 * Filled by settings_load() (params.c / cli.c); read by the pipeline.
 * Contract between the I/O side and the physics side of the host program.  Fields may be added;
 * none renamed or removed.  A *_given flag is 1 when the user set the value (file or option). */
#ifndef HOST_SETTINGS_H
#define HOST_SETTINGS_H

#include <stddef.h>

enum boundary_condition { BC_ZERO = 1, BC_DIPOLAR = 2, BC_FOCUSING = 3, BC_COULOMBIC = 4 };

enum surface_kind { SURFACE_MOLECULAR = 0, SURFACE_VDW = 1 };
/* Nonlinear PB method of the program (--nonlinear). */
enum nonlinear_choice {
    NONLINEAR_DELPHI = 0,           /* DelPhi's nitit scheme */
    NONLINEAR_NEWTON = 1,           /* Newton, exact ionic term (polynomial for asymmetric salts) */
    NONLINEAR_NEWTON_POLYNOMIAL = 2 /* Newton on DelPhi's polynomial term */
};

enum map_format { MAP_DELPHI = 0, MAP_DX = 1, MAP_CUBE = 2, MAP_MRC = 3, MAP_FORMAT_COUNT = 4 };

#define SETTINGS_PATH_MAX    1024
#define SETTINGS_MAX_THREADS 4096 /* as the library's limit on dg_options.num_threads */
#define SETTINGS_MAX_OUTPUTS 8
#define SETTINGS_BINDING_MAX 64 /* --binding's value, terminator included */

/* Added by host_io: the input files, to say where each name came from (messages, search rule). */
enum settings_input_kind {
    INPUT_PDB = 0,
    INPUT_SIZ = 1,
    INPUT_CRG = 2,
    INPUT_PQR = 3,
    INPUT_PHI = 4,
    INPUT_FRC = 5,
    INPUT_CENTER = 6, /* center(file=...): the grid centred on the mean of its atoms */
    INPUT_KIND_COUNT = 7
};
enum settings_source {
    SOURCE_NONE = 0,    /* not given */
    SOURCE_DEFAULT = 1, /* DelPhi's default name (fort.13, fort.11, fort.12) */
    SOURCE_FILE = 2,    /* named in the parameter file: cwd first, then the file's directory */
    SOURCE_OPTION = 3   /* named on the command line: relative to cwd */
};
#define SETTINGS_ORIGIN_MAX (SETTINGS_PATH_MAX + 32)

typedef struct map_output {
    int format; /* enum map_format */
    char path[SETTINGS_PATH_MAX];
} map_output;

/* The program's linear solver when --solver is not given: 0 = DG_SOLVER_SOR (DelPhi's, the
   kit's default), 1 = DG_SOLVER_MULTIGRID, 2 = DG_SOLVER_AUTO (multigrid for linear runs on
   grids where it was measured faster, per backend; SOR otherwise: docs/MULTIGRID.md). */
#define SETTINGS_DEFAULT_SOLVER 2

typedef struct run_settings {
    /* Grid (DelPhi: gsize, scale, perfil, acenter/center). */
    int gsize;
    int gsize_given;
    double scale;
    int scale_given;
    double perfil;
    int perfil_given;
    double center[3];
    int center_mode; /* 0 = molecule's box centre, 1 = absolute (acenter, and center(file=...)
                        once the program has read the file), 2 = offset from the box centre in
                        grid units (center) */

    /* Medium. */
    double indi, exdi;  /* interior / exterior relative permittivity (2, 80) */
    double prbrad;      /* probe radius, A (1.4) */
    double ionrad;      /* ion exclusion layer, A (2.0) */
    double salt;        /* mol/L of salt 1 (0) */
    double salt2;       /* mol/L of salt 2 (0) */
    int valence[4];     /* val+1, val-1, val+2, val-2 (1,1,1,1) */
    int valence_given;  /* bit i: valence[i] was given */
    double temperature; /* K (297.3342; the file's temper is in Celsius) */
    int surface;        /* enum surface_kind */

    /* Boundary conditions. */
    int bndcon; /* enum boundary_condition (2) */

    /* Solver. */
    int linit;
    int linit_given;          /* linear iterations; automatic if not given */
    int nonit;                /* nonlinear blocks (0 = linear PB) */
    double maxc, rmsc, normc; /* stopping criteria, 0 = off */
    double relfac;
    int relfac_given; /* spectral radius (not omega) */
    double relpar;
    int relpar_given;
    int conint;    /* check interval (10) */
    int confra;    /* check stride (1) */
    int backend;   /* dg_backend (auto) */
    int precision; /* dg_precision (double) */
    int device;    /* CUDA device */
    int threads;   /* CPU threads, 0 = default, at most SETTINGS_MAX_THREADS */
    int solver;    /* dg_solver_method of linear solves (SETTINGS_DEFAULT_SOLVER) */

    int nonlinear_method; /* enum nonlinear_choice (NEWTON) */
    int nonlinear_given;  /* --nonlinear was given */
    int solver_given;     /* --solver was given */
    int periodic;         /* periodic axes, dg_periodic_axis bits (pbx, pby, pbz, --periodic) */

    int precision_given; /* --precision was given (else host/app/precision_default.h decides) */

    /* Inputs. */
    char param_file[SETTINGS_PATH_MAX]; /* "" if none */
    char pdb_file[SETTINGS_PATH_MAX];
    char siz_file[SETTINGS_PATH_MAX];
    char crg_file[SETTINGS_PATH_MAX];
    char pqr_file[SETTINGS_PATH_MAX];    /* our in(pqr,file=...) */
    char phi_in_file[SETTINGS_PATH_MAX]; /* in(phi): focusing source map */
    char frc_in_file[SETTINGS_PATH_MAX]; /* in(frc): site positions; "" = the atoms */
    char center_file[SETTINGS_PATH_MAX]; /* center(file=...): centre on its atoms' mean */

    /* Outputs. */
    map_output maps[SETTINGS_MAX_OUTPUTS];
    int map_count;
    char frc_out_file[SETTINGS_PATH_MAX];    /* site potentials; "" = none */
    char scrg_out_file[SETTINGS_PATH_MAX];   /* induced surface charges (out(scrg)); "" = none */
    char modpdb_out_file[SETTINGS_PATH_MAX]; /* the atoms as used (out(modpdb)); "" = none */
    char eps_out_file[SETTINGS_PATH_MAX];    /* DelPhi's dielectric map (out(eps)); "" = none */
    char gcrg_out_file[SETTINGS_PATH_MAX];   /* the grid's charges (out(gcrg)); "" = none */
    int modpdb_format;                       /* enum modpdb_format (io_modpdb.h) */
    char json_file[SETTINGS_PATH_MAX];       /* --json */
    char log_file[SETTINGS_PATH_MAX];        /* log copy; "" = stdout only */

    /* Energies requested (energy(...)). */
    int energy_grid, energy_solvation, energy_coulombic, energy_ionic;
    int solvation_two_run;              /* --solvation-two-run */
    char binding[SETTINGS_BINDING_MAX]; /* --binding: the two partners (io_binding.h); "" = none */
    char binding_residues_file[SETTINGS_PATH_MAX]; /* --binding-residues; "" = none */
    /* Focusing in one run: the coarse grid's scale or percent fill (--coarse-scale,
       --coarse-perfil); 0 = none */
    double coarse_scale, coarse_perfil;

    /* Behaviour. */
    int quiet; /* --quiet: no progress lines */

    /* Added by host_io (additive). */
    int autoc;         /* 1 = automatic iteration count (default; linit= turns it off, autoc= on) */
    double grdcon;     /* grdcon= as given (not implemented: logged as a notice), 0 = off */
    int site_field;    /* site(f): write the field column in the frc output */
    int site_reaction; /* site(r): the reaction field's potential column (computes the field) */
    int site_coulombic;       /* site(c): the Coulombic potential column */
    int site_atomic;          /* site(atpo): the atomic potential column */
    int site_salt;            /* site(i): the mobile ions' net charge concentration column */
    int site_debye;           /* site(deb): the Debye (ion-accessible) fraction column */
    int site_coulombic_force; /* site(cf): the Coulombic force on the site's charge */
    int site_reaction_force;  /* site(rf): the reaction-field force (the atoms as sites only) */
    int site_total_force;     /* site(tf): rf + cf, DelPhi's total force (the atoms as sites) */
    double atpods;            /* atpods= (A): site(atpo)'s averaging distance; default 0.5 */
    int site_atom, site_coordinates, site_charge, site_potential; /* site(a), (x), (q), (p) */
    int site_given;        /* some site(...) column was asked (DelPhi's layout writes just those) */
    int frc_format;        /* enum frc_format (io_sites.h): DelPhi's layout (0, default), table */
    int scrg_format;       /* enum scrg_format (io_surface_charges.h): DelPhi's (0, default) */
    int center_first_atom; /* center(777,777,..), center(999,999,..): the file's first atom */
    int center_code;       /* 777 or 999 when a centre code named center_file, else 0 */
    int frc_self_given;    /* in(frc,file="self"): the atoms are the sites, even with a fort.15 */
    char unpdb_out_file[SETTINGS_PATH_MAX]; /* out(unpdb): DelPhi's unformatted PDB; "" = none */
    int show_help;                          /* --help: print settings_usage() and exit 0 */
    int show_version;                       /* --version */
    int input_source[INPUT_KIND_COUNT];     /* enum settings_source */
    char input_origin[INPUT_KIND_COUNT][SETTINGS_ORIGIN_MAX]; /* "prm:12", "--pdb"; "" = default */

    /* Added by host_app (batch runs, --frames). */
    int model; /* model (frame) of a multi-model molecule file to read, 1-based; 0 = the first */
} run_settings;

#endif /* HOST_SETTINGS_H */
