/* delphi-gpu: the calculation layer.  One handle owns a whole PB calculation on one backend:
 * grid placement, molecular surface and medium, ion map, charge spreading, boundary values, the
 * solve (and the reference solve of a two-run solvation), energies and site potentials.
 *
 * Typical use (atoms from any source; no file I/O in the library):
 *
 *     dg_calc_params p;
 *     dg_calc_default_params(&p);           // DelPhi's defaults: scale 2, perfil 80, 2/80, ...
 *     p.salt_count = 1, p.salts[0].concentration = 0.15;
 *     p.energies = DG_ENERGY_GRID | DG_ENERGY_COULOMBIC | DG_ENERGY_REACTION_FIELD;
 *     dg_calc calc = NULL;
 *     int st = dg_calc_create(&calc, &p);
 *     dg_atoms atoms = {count, xyz, charge, radius};
 *     if (st == DG_OK) st = dg_calc_set_atoms(calc, &atoms);   // places the grid
 *     dg_calc_result r;
 *     if (st == DG_OK) st = dg_calc_run(calc, &r);
 *     for (each MD frame) {                                      // device state is reused
 *         st = dg_calc_set_positions(calc, frame_xyz);           // same grid, same atoms
 *         if (st == DG_OK) st = dg_calc_run(calc, &r);
 *     }
 *     if (st != DG_OK) fprintf(stderr, "%s\n", dg_calc_last_error(calc));
 *     dg_calc_destroy(calc);
 *
 * Units as in DelPhi: Angstrom, e, kT/e, energies in kT.  Grids are x fastest (DelPhi phimap).
 * Every function returns a dg_status; the library never prints or exits.
 */
#ifndef DELPHI_GPU_CALC_H
#define DELPHI_GPU_CALC_H

#include "delphi_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Version of the dg_calc_params layout; dg_calc_default_params() stores it. */
#define DG_CALC_PARAMS_VERSION 2

/** Opaque calculation handle. */
typedef struct dg_calc_s *dg_calc;

/** Boundary conditions (DelPhi bndcon). */
typedef enum dg_boundary_kind {
    DG_BOUNDARY_ZERO = 1,     /**< phi = 0 on the faces */
    DG_BOUNDARY_DIPOLAR = 2,  /**< Debye-Hueckel potential of the two charge centroids */
    DG_BOUNDARY_FOCUSING = 3, /**< interpolated from a coarser map (dg_calc_set_focus_map, or
                                   the coarse solve of dg_calc_params.coarse_scale/perfil) */
    DG_BOUNDARY_COULOMBIC = 4 /**< Debye-Hueckel potential of every charge */
} dg_boundary_kind;

/** Dielectric surface. */
typedef enum dg_surface_kind {
    DG_SURFACE_MOLECULAR = 0, /**< solvent-excluded (molecular) surface with the probe radius */
    DG_SURFACE_VDW = 1        /**< union of atomic spheres */
} dg_surface_kind;

/** Where the grid centre goes (DelPhi acenter / center). */
typedef enum dg_center_mode {
    DG_CENTER_BOX = 0,      /**< centre of the atoms' bounding box */
    DG_CENTER_ABSOLUTE = 1, /**< center[] in Angstrom (acenter) */
    DG_CENTER_OFFSET = 2    /**< DelPhi's center(): the molecule moved center[] grid units from
                                 the grid's middle; the grid centre is the box centre minus
                                 center[] / scale */
} dg_center_mode;

/** Energy terms (bit flags for dg_calc_params.energies). */
typedef enum dg_energy_flag {
    DG_ENERGY_GRID = 1,           /**< 1/2 sum q phi over the charged grid points */
    DG_ENERGY_COULOMBIC = 2,      /**< pairwise Coulomb energy in eps_in */
    DG_ENERGY_REACTION_FIELD = 4, /**< corrected reaction field from the induced surface charges */
    DG_ENERGY_IONIC = 8           /**< nonlinear PB ionic terms (nonlinear runs only) */
} dg_energy_flag;

/** Physics parameters (no file names, no program flags).  Start from dg_calc_default_params. */
typedef struct dg_calc_params {
    int struct_size; /**< sizeof(dg_calc_params), set by dg_calc_default_params */
    int version;     /**< DG_CALC_PARAMS_VERSION */

    /* Grid (DelPhi scale, perfil, gsize, acenter/center). */
    double scale;     /**< grid points per Angstrom; default 2; 0 (with grid_size) = from
                           grid_size and perfil */
    double perfil;    /**< percent of the grid the molecule's extent fills; default 80; 0 = 80.
                           From scale and perfil the size is DelPhi's: scale 100 / perfil x
                           extent truncated, plus one if even (extent: twice the largest
                           distance from the grid centre to the atoms' box, radii included) */
    int grid_size;    /**< points per axis (odd; an even one is made odd, with a note, after
                           a scale derived from perfil used it, as DelPhi: n - 1 spacings);
                           0 = from scale and perfil; default 0 */
    int center_mode;  /**< dg_center_mode; default DG_CENTER_BOX */
    double center[3]; /**< with DG_CENTER_ABSOLUTE / DG_CENTER_OFFSET */

    /* Medium. */
    double epsilon_in;   /**< solute relative permittivity (indi); default 2 */
    double epsilon_out;  /**< solvent relative permittivity (exdi); default 80 */
    double probe_radius; /**< solvent probe, Angstrom (prbrad); default 1.4 */
    double ion_radius;   /**< ion exclusion layer, Angstrom (ionrad); default 2 */
    int surface;         /**< dg_surface_kind; default DG_SURFACE_MOLECULAR */
    double temperature;  /**< K; default 297.3342 (DelPhi's) */
    dg_salt salts[2];    /**< neutral salts (DelPhi salt/salt2 and their valences) */
    int salt_count;      /**< 0 = no salt (Poisson); default 0 */

    /* Boundary values. */
    int boundary; /**< dg_boundary_kind; default DG_BOUNDARY_DIPOLAR */

    /* What to compute. */
    int energies;          /**< dg_energy_flag bits; default DG_ENERGY_GRID */
    int solvation_two_run; /**< 1 = also solve the reference (eps_in everywhere, no salt) and
                                report the grid-energy difference; default 0 */

    /* The solve: backend, precision, equation (linear / nonlinear PB), tolerances, progress. */
    dg_options solver;

    /* Stage progress (surface, medium, energies ... of large inputs): called when a stage starts
       and ends and, for long stages, with a fraction in [0, 1].  NULL = silent.  This callback
       and solver.progress may not use the handle that is running: its functions return
       DG_ERR_STATE until dg_calc_run returns (dg_calc_destroy does nothing then). */
    void (*stage_progress)(const char *stage, double fraction, void *user_data);
    void *stage_progress_user_data;

    /* Focusing in one run (DelPhi's coarse run and focused run, APBS's mg-auto): with
       coarse_scale or coarse_perfil > 0 every run first solves on a coarse grid of the same
       size and centre, with `boundary` values on its faces (1, 2 or 4), and then solves on the
       grid itself with the boundary values interpolated from that potential, as
       DG_BOUNDARY_FOCUSING does from a map.  The energies, potential and sites are the fine
       grid's.  Not with DG_BOUNDARY_FOCUSING or periodic axes. */
    double coarse_scale;  /**< the coarse grid's points per Angstrom, below the grid's scale;
                               0 = from coarse_perfil; default 0 */
    double coarse_perfil; /**< percent of the coarse grid's side the molecule fills, measured
                               as twice its farthest reach from the grid centre (so a grid
                               centred off the molecule still holds it all), in (0, 100),
                               e.g. 20; 0 = no focusing unless coarse_scale; default 0 */
} dg_calc_params;

/** Atoms: positions (3 per atom, Angstrom), charges (e), radii (Angstrom, 0 = a point charge). */
typedef struct dg_atoms {
    long count;
    const double *position;
    const double *charge;
    const double *radius;
} dg_atoms;

/** The grid a calculation uses. */
typedef struct dg_calc_grid {
    int n;            /**< points per axis (cube) */
    double scale;     /**< points per Angstrom */
    double center[3]; /**< Angstrom, the grid's middle point */
    double origin[3]; /**< Angstrom, the position of point (0,0,0) */
} dg_calc_grid;

/** Energies in kT; NaN when not requested or not applicable. */
typedef struct dg_calc_energies {
    double grid;                 /**< DG_ENERGY_GRID */
    double coulombic;            /**< DG_ENERGY_COULOMBIC */
    double reaction_field;       /**< corrected reaction field (DelPhi's "corrected") */
    double self_reaction;        /**< self reaction field of the atoms */
    double total_reaction_field; /**< reaction_field + self_reaction */
    double ionic_rho_phi;        /**< nonlinear: -1/2 sum rho_ion phi h^3 (the trapezoid rule
                                      over the ion-accessible points; the solved equation's
                                      densities: DelPhi's series, or Boltzmann's for Newton's
                                      exact sinh) */
    double ionic_osmotic;        /**< nonlinear: osmotic term, likewise */
    double ionic_total;          /**< their sum */
    double grid_reference;       /**< two-run: grid energy of the reference solve */
    double solvation_two_run;    /**< two-run: grid - grid_reference */
} dg_calc_energies;

/** Stage timings (wall seconds) of the last dg_calc_run. */
typedef struct dg_calc_timing {
    double grid, surface, medium, charges, boundary, solve, energies, reference;
    double coarse; /**< focusing's coarse grid: its medium, charges, boundary values, solve(s) */
    double total;
} dg_calc_timing;

/** Everything one dg_calc_run produced (the potential itself: dg_calc_potential_*). */
typedef struct dg_calc_result {
    dg_calc_grid grid;
    dg_result solve;           /**< the main solve (outcome, iterations, changes) */
    dg_result reference_solve; /**< two-run only */
    dg_calc_energies energies;
    dg_calc_timing timing;
    long boundary_points;           /**< dielectric-boundary grid points */
    long charged_points;            /**< grid points holding charge */
    double induced_charge;          /**< e, total induced surface charge (reaction field) */
    double expected_induced_charge; /**< e, Gauss's law value */
    long atoms_outside;             /**< charged atoms outside the grid interior (focusing) */
    long sites_outside;             /**< of the last dg_calc_potentials_at call */
    int backend;                    /**< dg_backend used */
    dg_calc_grid coarse_grid;       /**< focusing's coarse grid (coarse_scale/perfil); n = 0
                                         without */
    dg_result coarse_solve;         /**< its solve */
} dg_calc_result;

/** The electrostatic binding of two partners (dg_calc_run_binding): the complex and each
 *  partner alone, all three on the complex's grid, and the differences (complex - partner 0 -
 *  partner 1).  Energies in kT. */
typedef struct dg_calc_binding {
    long atoms[2];          /**< atoms of partner 0 and partner 1 */
    double net_charge[2];   /**< e */
    double energy;          /**< the binding energy: difference.coulombic +
                                 difference.reaction_field + salt.  The Coulombic and corrected
                                 reaction-field energies carry no grid self energy, so this
                                 converges quickly with the scale */
    double salt;            /**< the salt's part: salt_share[0] - salt_share[1] - salt_share[2];
                                 0 without salt */
    double salt_share[3];   /**< complex, partner 0, partner 1: the grid energy with the salt
                                 (plus the ionic terms in a nonlinear run) minus the grid energy
                                 of a linear solve of the same medium without salt; 0 without
                                 salt */
    double grid_energy;     /**< the difference of the grid energies (plus that of the ionic
                                 terms in a nonlinear run), DelPhi's one-grid recipe: charges whose
                                 surroundings change at the interface keep part of their grid self
                                 energy in it, so it approaches energy slowly as the scale grows */
    dg_calc_energies bound; /**< the complex, all the atoms (as in its dg_calc_result) */
    dg_calc_energies partner[2];  /**< each partner alone: its own atoms, surface, charges and
                                       boundary values, on the complex's grid */
    dg_calc_energies difference;  /**< bound - partner[0] - partner[1], term by term */
    dg_result solve[2];           /**< the partners' solves */
    dg_result reference_solve[2]; /**< the partners' reference solves (two-run only) */
    dg_result salt_free_solve[3]; /**< complex, partner 0, partner 1 (runs with salt only) */
    dg_calc_timing timing[2];     /**< the partners' runs */
    dg_result coarse_solve[2];    /**< the partners' coarse solves (focusing; the complex's is
                                       in its dg_calc_result) */
    dg_result coarse_salt_free_solve[3]; /**< complex, partner 0, partner 1: the coarse grid's
                                              salt-free solves (focusing with salt) */
} dg_calc_binding;

/** Defaults documented in dg_calc_params (solver: dg_default_options). */
DG_API void dg_calc_default_params(dg_calc_params *params);

/** Create a calculation; validates params (every field; the message names field and value)
 *  and starts the backend.  Hands back a handle even on failure (for dg_calc_last_error). */
DG_API int dg_calc_create(dg_calc *calc, const dg_calc_params *params);

/** New parameters for the same handle (batch runs): checked like dg_calc_create.  The solver
 *  (backend, tuned shape) is kept when backend, precision, device, threads, block shape,
 *  autotune, method and communicator are unchanged, else a new one is started; the atoms stay
 *  and the grid is placed again from them.  Parameters that fail (a check, a grid that cannot
 *  be placed for the held atoms, a solver that cannot start) change nothing. */
DG_API int dg_calc_set_params(dg_calc calc, const dg_calc_params *params);

/** Free everything.  NULL allowed.  From the handle's own progress callback: does nothing
 *  (dg_calc_last_error says so). */
DG_API void dg_calc_destroy(dg_calc calc);

/** Message of the last failure ("" after success); NULL handle gives a generic message. */
DG_API const char *dg_calc_last_error(dg_calc calc);

/** Notes of the last run: adjustments and warnings a user should see (one per line, "" if
 *  none), e.g. the CPU fallback of DG_BACKEND_AUTO or a grid adjusted to be odd. */
DG_API const char *dg_calc_notes(dg_calc calc);

/** Set the atoms (copied).  Places the grid from them unless grid_size and an absolute centre
 *  fix it; a later call with other atoms places it again.  Atoms that fail (a check, or a grid
 *  that cannot be placed for them) change nothing: the handle keeps its atoms and grid. */
DG_API int dg_calc_set_atoms(dg_calc calc, const dg_atoms *atoms);

/** New positions for the same atoms (3 per atom): the grid stays where it is (MD frames);
 *  DG_ERR_INVALID_ARGUMENT naming the atom if one leaves the grid interior (focusing in one
 *  run: the coarse grid's interior; focusing from a map: any position, atoms outside the grid
 *  acting through its boundary values). */
DG_API int dg_calc_set_positions(dg_calc calc, const double *position);

/** New charges for the same atoms (titration states). */
DG_API int dg_calc_set_charges(dg_calc calc, const double *charge);

/** The coarser potential map for DG_BOUNDARY_FOCUSING: n^3 values (x fastest) of a cubic grid
 *  with the given scale and centre (copied). */
DG_API int dg_calc_set_focus_map(dg_calc calc, const double *phi, int n, double scale,
                                 const double center[3]);

/** Run the calculation for the current atoms.  A solve that does not converge is reported in
 *  result->solve.outcome (status DG_OK); a requested energy that is not finite is an error.
 *  With any other status than DG_OK the outcomes in result say nothing (a solve that did not
 *  run reads 0, DG_OUTCOME_CONVERGED): check the status first. */
DG_API int dg_calc_run(dg_calc calc, dg_calc_result *result);

/** The electrostatic binding energy of two partners of the current atoms: partner[i] (0 or 1)
 *  says which partner atom i belongs to; each partner needs at least one atom.  Runs partner 0
 *  alone, partner 1 alone and then the complex (all atoms), each with its own surface, medium,
 *  charges and boundary values but all on the complex's grid (the grid of dg_calc_set_atoms),
 *  on the handle's solver; with salt each state is solved once more without it, for the salt's
 *  part.  The Coulombic and corrected reaction-field energies are computed whatever
 *  params.energies asks.  The handle then holds the complex's run (its potential, site
 *  potentials and induced charges), reported in result (may be NULL) as dg_calc_run reports
 *  it.  Refused (DG_ERR_INVALID_ARGUMENT) with DG_BOUNDARY_FOCUSING, whose map belongs to one
 *  molecule; focusing in one run (coarse_scale/perfil) gives each state its own coarse solve
 *  on the complex's coarse grid, and then every charged atom must lie inside the grid's
 *  interior (the energies are the grid's).  A solve that does not converge is reported in its
 * dg_result (status DG_OK), as for the complex.  atom_energy (one per atom, or NULL) receives each
 * atom's part of the binding energy: (1/2) q_i times the difference, complex minus the atom's
 * partner alone, of the Coulombic and reaction-field potentials at the atom (plus, with salt, of
 * the potential with the salt minus the salt-free one); the parts sum to binding->energy (in a
 * nonlinear run to binding->energy minus difference.ionic_total, the ionic terms being no atom's).
 * Summed over a residue they are its contribution (kT). */
DG_API int dg_calc_run_binding(dg_calc calc, const int *partner, dg_calc_result *result,
                               dg_calc_binding *binding, double *atom_energy);

/** The grid (valid after dg_calc_set_atoms). */
DG_API int dg_calc_get_grid(dg_calc calc, dg_calc_grid *grid);

/** Copy the potential of the last run (n^3, x fastest, faces included) in either precision. */
DG_API int dg_calc_potential_f(dg_calc calc, float *phi);
DG_API int dg_calc_potential_d(dg_calc calc, double *phi);

/** Potential (kT/e) at points (3 per point, Angstrom) by trilinear interpolation of the last
 *  run's map; NaN outside the grid or where a coordinate is NaN. */
DG_API int dg_calc_potentials_at(dg_calc calc, const double *points, long count, double *potential);

/** Reaction-field potential (kT/e) at points (3 per point, Angstrom, anywhere): the potential
 *  of the last run's induced surface charges, those of its corrected reaction-field energy,
 *  epkt sum_k sigma_k / |x - s_k| (pairs closer than 1e-9 A left out), as DelPhi's site(r)
 *  column.  At the charged atoms (1/2) sum_i q_i of it is energies.reaction_field.  Needs a run
 *  with DG_ENERGY_REACTION_FIELD (else DG_ERR_STATE); the sums run on the calculation's
 *  backend; a non-finite coordinate is DG_ERR_NONFINITE_INPUT naming the point. */
DG_API int dg_calc_reaction_potentials_at(dg_calc calc, const double *points, long count,
                                          double *potential);

/** Coulombic potential (kT/e) at points of the current atoms' charges in a uniform
 *  epsilon_in, epkt / epsilon_in sum_i q_i / |x - r_i|, atoms closer than 1e-6 A to a point
 *  left out (an atom's own charge at its centre), as DelPhi's site(c) column.  At the charged
 *  atoms (1/2) sum_i q_i of it is energies.coulombic.  Needs atoms, not a run; the sums run
 *  on the calculation's backend. */
DG_API int dg_calc_coulombic_potentials_at(dg_calc calc, const double *points, long count,
                                           double *potential);

/** Coulombic field (kT/(e A)) at points of the current atoms' charges in a uniform epsilon_in,
 *  epkt / epsilon_in sum_i q_i (x - r_i) / |x - r_i|^3, 3 values per point in field, atoms
 *  closer than 1e-6 A to a point left out.  A charge q at the point feels q times it (kT/A),
 *  DelPhi's site(cf).  Needs atoms, not a run; the sums run on the calculation's backend. */
DG_API int dg_calc_coulombic_fields_at(dg_calc calc, const double *points, long count,
                                       double *field);

/** DelPhi's reaction-field force (kT/A) on each of the current atoms after a run with
 *  DG_ENERGY_REACTION_FIELD (else DG_ERR_STATE), 3 values per atom in force: the force of the
 *  induced surface charges on the atom's charge plus the force of all the charges on the
 *  induced charges the atom owns (those of the boundary points nearest to its surface).  The
 *  two parts are the same pairs seen from either side, so the forces sum to zero over the
 *  atoms.  DelPhi's site(rf); the sums run on the calculation's backend. */
DG_API int dg_calc_reaction_forces(dg_calc calc, double *force);

/** The last run's induced surface charges (those of the corrected reaction field, DelPhi's
 *  out(scrg)): *count gets their number (one per dielectric-boundary point); position (3 per
 *  charge, Angstrom, on the molecular surface) and charge (e) receive them when not NULL
 *  (arrays of at least *count).  Needs a run with DG_ENERGY_REACTION_FIELD (else
 *  DG_ERR_STATE). */
DG_API int dg_calc_induced_charges(dg_calc calc, long *count, double *position, double *charge);

/** The last run's dielectric medium and ion-accessibility map, each n^3 bytes x fastest like
 *  the potential.  solute (3 n^3 bytes, or NULL): map a = 0, 1, 2 for the x, y and z faces;
 *  byte a n^3 + p is 1 when the cell-face midpoint between point p and point p + e_a lies in
 *  the molecule (permittivity epsilon_in), 0 when in the solvent (epsilon_out); on the last
 *  plane along a the midpoint lies half a spacing outside the grid and is classified the same
 *  way.  ion_accessible (n^3 bytes, or NULL): 1 where mobile ions may be (at least radius +
 *  ion_radius from every atom centre with radius > 0), else 0; built for this call when the run
 *  had no salt.  Needs a completed run (DG_ERR_STATE) and at least one array. */
DG_API int dg_calc_medium_maps(dg_calc calc, unsigned char *solute, unsigned char *ion_accessible);

#ifdef __cplusplus
}
#endif

#endif /* DELPHI_GPU_CALC_H */
