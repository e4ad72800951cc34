/* delphi-gpu: types of the public C API (status codes, options, media, results).
 *
 * Conventions used throughout the API:
 *  - Grids are nx x ny x nz points, all three odd and >= DG_MIN_GRID_SIZE.  Full-grid arrays are
 *    stored x fastest, then y, then z: point (x, y, z), 0-based, is element x + nx*(y + ny*z).
 *    That is exactly the memory order of Fortran's phimap(igrid,igrid,igrid), so a DelPhi array
 *    passes with no copy and no dimension reversal.
 *  - The six faces (x, y or z equal to 0 or n-1) hold fixed boundary values; only interior points
 *    are iterated.
 *  - Potentials are in kT/e, charges in e, lengths in Angstrom, as in DelPhi.
 *  - Half grids ("odd" and "even") follow DelPhi: with the 1-based linear index
 *    w1 = 1 + x + nx*(y + ny*z), a point is "odd" when w1 is odd (x+y+z even in 0-based
 *    coordinates) and "even" otherwise; its half-index is h = floor((w1 + 1) / 2), 1-based.
 *    DelPhi's idpos/iqpos hold exactly these numbers; phimap1 holds the odd points, phimap2 the
 *    even ones.
 *
 * No CUDA type appears in this header; C and Fortran callers compile without CUDA.
 */
#ifndef DELPHI_GPU_TYPES_H
#define DELPHI_GPU_TYPES_H

#include <stddef.h>

#include "delphi_gpu_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* DG_VERSION_MAJOR, DG_VERSION_MINOR, DG_VERSION_PATCH (generated from CMake's project version). */
#include "delphi_gpu_version.h"

/** Version of the dg_options layout; dg_default_options() stores it in options.version. */
#define DG_OPTIONS_VERSION 3

/** Smallest allowed number of points along an axis. */
#define DG_MIN_GRID_SIZE 5

/* ---------------------------------------------------------------------------------------------
 * Status codes: every API function returns one.  0 is success.  A solve that ends without
 * converging is NOT an error: it returns DG_OK and says so in dg_result.outcome.
 * ------------------------------------------------------------------------------------------- */
typedef enum dg_status {
    DG_OK = 0,
    DG_ERR_INVALID_ARGUMENT = 1,   /**< NULL pointer, bad enum value, bad option value */
    DG_ERR_INVALID_GRID = 2,       /**< even, too small or too large grid dimensions */
    DG_ERR_NONFINITE_INPUT = 3,    /**< NaN or Inf in an input array or scalar */
    DG_ERR_INDEX_OUT_OF_RANGE = 4, /**< sparse-list index outside the grid or on a face */
    DG_ERR_WRONG_PARITY = 5,       /**< sparse-list point in the wrong (odd/even) section */
    DG_ERR_COUNT_MISMATCH = 6,     /**< counts that disagree (odd count > total, duplicates...) */
    DG_ERR_BAD_PERMITTIVITY = 7,   /**< zero or negative permittivity (or implied weight) */
    DG_ERR_BAD_OMEGA = 8, /**< relaxation factor outside (0, 2) or spectral radius outside [0, 1) */
    DG_ERR_BACKEND_NOT_BUILT = 9,     /**< backend requested that this build does not contain */
    DG_ERR_NO_DEVICE = 10,            /**< CUDA backend requested but no usable GPU */
    DG_ERR_DEVICE = 11,               /**< a CUDA runtime call or kernel launch failed */
    DG_ERR_OUT_OF_MEMORY = 12,        /**< host allocation failed */
    DG_ERR_DEVICE_OUT_OF_MEMORY = 13, /**< the problem does not fit in free GPU memory */
    DG_ERR_STATE = 14,                /**< call out of order (e.g. solve before a medium is set) */
    DG_ERR_UNSUPPORTED = 15,          /**< valid input this version cannot handle (says why) */
    DG_ERR_INTERNAL = 16              /**< a bug: please report the message */
} dg_status;

/** Number of status codes (one more than the largest). */
#define DG_STATUS_COUNT 17

/* ---------------------------------------------------------------------------------------------
 * Enumerations
 * ------------------------------------------------------------------------------------------- */
typedef enum dg_backend {
    DG_BACKEND_AUTO = 0, /**< CUDA when built and a GPU works, otherwise CPU (with a notice) */
    DG_BACKEND_CPU = 1,  /**< OpenMP on the host */
    DG_BACKEND_CUDA = 2  /**< NVIDIA GPU; an error if not built or no usable device */
} dg_backend;

typedef enum dg_precision {
    DG_PRECISION_DOUBLE = 0, /**< half grids and arithmetic in double */
    DG_PRECISION_FLOAT = 1,  /**< half grids and arithmetic in float (as DelPhi's SP build) */
    DG_PRECISION_MIXED = 2   /**< float sweeps, double answer and stopping test */
} dg_precision;

/** Periodic axes (options.periodic, a bit mask; DelPhi's pbx, pby, pbz).  Along a periodic axis
 *  of n points the interior points 1..n-2 repeat with period n-2 spacings: after each colour's
 *  sweep the face points of that colour take the values of their images, point 0 that of point
 *  n-2 and point n-1 that of point 1 (the other two coordinates interior), as DelPhi does. */
typedef enum dg_periodic_axis {
    DG_PERIODIC_X = 1,
    DG_PERIODIC_Y = 2,
    DG_PERIODIC_Z = 4
} dg_periodic_axis;

/** The linear solver. */
typedef enum dg_solver_method {
    DG_SOLVER_SOR = 0,       /**< DelPhi's red-black SOR (the DelPhi-compatible default) */
    DG_SOLVER_MULTIGRID = 1, /**< multigrid (see docs/MULTIGRID.md); with nonlinear_method
                                  NEWTON it solves Newton's steps (docs/NONLINEAR.md) */
    DG_SOLVER_AUTO = 2       /**< multigrid for a linear equation (and for Newton's steps on
                                  CUDA) on a grid large enough for it to be faster on the
                                  backend, SOR otherwise (docs/MULTIGRID.md); dg_solver_choice
                                  says which ran and why */
} dg_solver_method;

/** The nonlinear PB method. */
typedef enum dg_nonlinear_method {
    DG_NONLINEAR_DELPHI = 0, /**< DelPhi's nitit: lagged source, blocks of 10 sweeps */
    DG_NONLINEAR_NEWTON = 1  /**< inexact Newton with a line search (see docs/NONLINEAR.md) */
} dg_nonlinear_method;

/** The ionic term of nonlinear PB. */
typedef enum dg_nonlinear_term {
    DG_NONLINEAR_TERM_AUTO = 0,       /**< DelPhi's polynomial for DELPHI; for NEWTON exact with
                                           one symmetric z:z salt, else the polynomial */
    DG_NONLINEAR_TERM_POLYNOMIAL = 1, /**< DelPhi's truncated series (chi2..chi5) */
    DG_NONLINEAR_TERM_EXACT = 2       /**< sinh(z phi)/z: one symmetric z:z salt, NEWTON only */
} dg_nonlinear_term;

typedef enum dg_equation {
    DG_EQUATION_AUTO = 0,        /**< Poisson without salt, linear PB with salt */
    DG_EQUATION_LINEAR = 1,      /**< Poisson or linear PB, as the medium says */
    DG_EQUATION_NONLINEAR_PB = 2 /**< nonlinear PB (needs salt in the medium) */
} dg_equation;

/** How the indices of a sparse list are numbered. */
typedef enum dg_index_kind {
    DG_INDEX_DELPHI_HALF = 0, /**< DelPhi's 1-based half-index h (idpos/iqpos) */
    DG_INDEX_FULL = 1         /**< 0-based full-grid index x + nx*(y + ny*z) */
} dg_index_kind;

/** How salt enters the sparse (DelPhi-native) medium. */
typedef enum dg_salt_model {
    DG_SALT_NONE = 0,      /**< Poisson: db = eps_f/D - 1/6 (DelPhi's no-salt convention) */
    DG_SALT_PER_POINT = 1, /**< DelPhi's sf1/sf2 half-grid arrays; db = eps_f/D, sf = 0 there */
    DG_SALT_FLAG = 2       /**< 1-byte solvent flag per grid point (idebmap) + one salt factor */
} dg_salt_model;

/** How a solve ended.  All of these come with status DG_OK. */
typedef enum dg_outcome {
    DG_OUTCOME_CONVERGED = 0,       /**< an rms/max/norm-change criterion was met */
    DG_OUTCOME_COMPLETED = 1,       /**< no criterion was set: the requested iterations ran */
    DG_OUTCOME_NOT_CONVERGED = 2,   /**< a criterion was set but the iteration limit came first */
    DG_OUTCOME_DIVERGED = 3,        /**< NaN/Inf or a persistently growing change; phi unchanged */
    DG_OUTCOME_STOPPED = 4,         /**< the progress callback asked to stop */
    DG_OUTCOME_FLOAT_RESOLUTION = 5 /**< float: the change stopped falling at float's resolution
                                         (multigrid: a cycle's change stopped falling there, or
                                         came within one rounding of max |phi| when maxc is
                                         below it) before the criterion was met (not
                                         converged) */
} dg_outcome;

/** Phase of a solve, reported to the progress callback. */
typedef enum dg_phase {
    DG_PHASE_LINEAR = 0,   /**< linear SOR (Poisson, linear PB, or nonlinear PB's first phase) */
    DG_PHASE_NONLINEAR = 1 /**< nonlinear PB blocks */
} dg_phase;

/* ---------------------------------------------------------------------------------------------
 * Progress reporting: the library never prints; it calls this after every convergence check
 * (the SOR), every Newton step, and every cycle of a linear multigrid solve.
 * ------------------------------------------------------------------------------------------- */
typedef struct dg_progress {
    int iteration;          /**< iterations completed so far (all phases); multigrid: cycles */
    int phase;              /**< dg_phase */
    int nonlinear_block;    /**< nonlinear block number (1-based), 0 in the linear phase */
    double max_change;      /**< max |change| over one iteration (kT/e), DelPhi's rmxch;
                                 multigrid: over the cycle just done (dg_result's convention) */
    double rms_change;      /**< DelPhi's rmsch */
    double norm_change;     /**< DelPhi's rnormch */
    double omega;           /**< relaxation factor in use (0 in a multigrid solve) */
    int estimated_total;    /**< estimated total iterations at the end (0 = unknown) */
    double elapsed_seconds; /**< wall time since the solve started */
    int solver;             /**< dg_solver_method running: DG_SOLVER_SOR or DG_SOLVER_MULTIGRID
                                 (Newton's steps by multigrid too); the last member, so a
                                 caller built before it was added reads the rest unchanged */
} dg_progress;

/** Return 0 to go on, non-zero to stop the solve (outcome DG_OUTCOME_STOPPED). */
typedef int (*dg_progress_fn)(const dg_progress *progress, void *user_data);

/* ---------------------------------------------------------------------------------------------
 * Options.  Always start from dg_default_options(); a NULL options pointer means the defaults.
 * Fields are plain C types so the Fortran bridge mirrors them with bind(C).
 * ------------------------------------------------------------------------------------------- */
typedef struct dg_options {
    int struct_size; /**< sizeof(dg_options), set by dg_default_options */
    int version;     /**< DG_OPTIONS_VERSION, set by dg_default_options */

    /* Where and how to compute (fixed when the solver is created). */
    int backend;     /**< dg_backend; default DG_BACKEND_AUTO */
    int precision;   /**< dg_precision; default DG_PRECISION_DOUBLE */
    int device;      /**< CUDA device ordinal; default 0 */
    int num_threads; /**< CPU threads (the CPU backend's OpenMP team; with CUDA the host
                          work around the device's, on the library's own threads, at most 256);
                          0 = OpenMP's default; at most 4096; default 0 */
    int block_x;     /**< CUDA thread-block width; > 0 fixes the shape; default 0 */
    int block_y;     /**< CUDA thread-block height; with block_x; default 0 */
    int autotune;    /**< 1 = on first use for a grid, time a few CUDA block shapes (from the
                          16x16 default) during the first iterations and keep the best; results
                          do not depend on the shape; 0 = always 16x16; default 1 */

    /* Equation. */
    int equation; /**< dg_equation; default DG_EQUATION_AUTO */

    /* Relaxation. */
    double omega; /**< SOR factor in (0,2); 0 = 2/(1+sqrt(1-spectral radius)); default 0 */
    double spectral_radius; /**< Gauss-Seidel spectral radius in [0,1) (DelPhi relfac=); 0 =
                                 estimate it as DelPhi does, accumulated in double; default 0 */

    /* Iterations and stopping (DelPhi: linit, conint, confra, rmsc, maxc, normc). */
    int iterations;          /**< linear iterations (DelPhi nlit); 0 = DelPhi's estimate from the
                                  spectral radius; default 0 */
    int run_until_converged; /**< with a criterion set, go on past `iterations` until it is met
                                  (DelPhi's automatic mode); -1 = yes exactly when iterations is
                                  0 (DelPhi's rule); default -1 */
    int max_iterations;      /**< hard cap on all iterations; 0 = max(2000, 20 x the estimate) */
    int check_interval;      /**< convergence check every K iterations (icon1); default 10 */
    int check_stride;        /**< stride over the even half grid in checks (icon2); default 1 */
    double rms_change_tol;   /**< stop when rms change <= this (rmsc); 0 = off; default 0 */
    double max_change_tol;   /**< stop when max change <= this (maxc); 0 = off; default 0 */
    double norm_change_tol;  /**< stop when norm change <= this (normc); 0 = off; default 0 */

    /* Nonlinear PB (DelPhi nonit, relpar; see the README for the scheme). */
    int nonlinear_blocks; /**< maximum blocks of 10 sweeps after the linear phase (nonit);
                               default 30 */
    double relpar;        /**< 0 = adaptive relaxation (DelPhi default); > 0 = fixed nonlinear
                               relaxation factor (DelPhi relpar=); default 0 */
    double qfact;         /**< DelPhi's qfact for the relaxation cut; < 0 = derive it when the
                               medium knows the charges (dense form), else 0; default -1 */

    /* Divergence protection. */
    int divergence_checks;    /**< consecutive growing checks that declare divergence; default 8 */
    double divergence_factor; /**< ... and only once max change exceeds this times its smallest
                                   value so far; default 100 */

    /* Progress. */
    dg_progress_fn progress;  /**< called after every check; NULL = silent; default NULL.  It
                                   must not call dg_set_*_medium, dg_set_options, dg_solve_*,
                                   dg_estimate_spectral_radius or dg_destroy on the same
                                   handle: those return DG_ERR_STATE there */
    void *progress_user_data; /**< passed to progress; default NULL */

    /* Methods (options version 2). */
    int solver;           /**< dg_solver_method; default DG_SOLVER_SOR */
    int nonlinear_method; /**< dg_nonlinear_method; default DG_NONLINEAR_DELPHI */
    int nonlinear_term;   /**< dg_nonlinear_term; default DG_NONLINEAR_TERM_AUTO */
    void *mpi_comm;       /**< address of an MPI_Comm to decompose the grid over (a build with
                               DG_MPI): the SOR (linear, DelPhi's nonlinear scheme, Newton's
                               steps), float or double; NULL = this process alone; default
                               NULL */

    /* Boundaries (options version 3). */
    int periodic; /**< periodic axes, dg_periodic_axis bits (0 = none); the faces of the other
                       axes keep the values phi holds on entry.  SOR (linear, DelPhi's
                       nonlinear scheme, Newton's steps by the SOR) and multigrid (linear and
                       Newton's steps; not with every axis periodic and no salt), any
                       precision; with mpi_comm x and y only, by the SOR (the ranks split z);
                       fixed when the solver is created; default 0 */
} dg_options;

/* ---------------------------------------------------------------------------------------------
 * DelPhi-native sparse medium.  One struct per element type of the arrays (float or double);
 * the arithmetic precision is options.precision, independent of this.
 * The library copies what it needs: the caller's arrays may be freed after dg_set_*_medium.
 * ------------------------------------------------------------------------------------------- */
#define DG_DECLARE_SPARSE_MEDIUM(REAL, SUFFIX)                                                     \
    typedef struct dg_sparse_medium_##SUFFIX {                                                     \
        int nx, ny, nz; /* grid dimensions (odd) */                                                \
        int index_kind; /* dg_index_kind of boundary_index and charge_index */                     \
        /* Dielectric-boundary points (DelPhi idpos, db, icount2a, icount2b). */                   \
        int boundary_count_odd;       /* icount2a: entries 0..count_odd-1 are odd points */        \
        int boundary_count;           /* icount2b: total; the rest are even points */              \
        const int *boundary_index;    /* [boundary_count] */                                       \
        const REAL *boundary_weights; /* [6*boundary_count], per point x-,x+,y-,y+,z-,z+ */        \
        /* Charged points (DelPhi iqpos, qval, icount1a, icount1b). */                             \
        int charge_count_odd;      /* icount1a */                                                  \
        int charge_count;          /* icount1b */                                                  \
        const int *charge_index;   /* [charge_count] */                                            \
        const REAL *charge_source; /* [charge_count] qval = 4 pi scale q / D (kT/e) */             \
        /* Salt. */                                                                                \
        int salt_model;                    /* dg_salt_model */                                     \
        const REAL *salt_factor_odd;       /* PER_POINT: sf1, DelPhi's (n+1)/2 odd entries */      \
        const REAL *salt_factor_even;      /* PER_POINT: sf2, (n-1)/2 even entries (n = points) */ \
        const unsigned char *solvent_flag; /* FLAG: nx*ny*nz bytes, nonzero = ions allowed.        \
                                              Nonlinear PB with PER_POINT may also pass it. */     \
        double salt_factor;                /* FLAG: eps'_out/(6 eps'_out + debfct) */              \
        /* Nonlinear PB only: lagged source qmap = coefficient p^2 (chi[0] + p (chi[1] + p         \
           (chi[2] + p chi[3]))) at salt points, DelPhi's debfct/(2 I eps'_out) and chi2..chi5 */  \
        double nonlinear_coefficient;                                                              \
        double chi[4];                                                                             \
    } dg_sparse_medium_##SUFFIX;

DG_DECLARE_SPARSE_MEDIUM(float, f)  /* dg_sparse_medium_f */
DG_DECLARE_SPARSE_MEDIUM(double, d) /* dg_sparse_medium_d */

/** One salt: concentration (mol/L) of the neutral salt and the valences of its two ions.  The
 *  salt is its smallest neutral formula unit: 0.1 M of a 2:2 salt (MgSO4) holds 0.1 M of each
 *  ion, ionic strength 0.4 M; 0.1 M of a 2:1 salt (CaCl2) 0.1 M Ca and 0.2 M Cl, 0.3 M.
 *  (DelPhi's parameter files count a salt as M_(z-) X_(z+), not reduced: their 0.1 M of a 2:2
 *  salt is 0.2 M here; the delphi-gpu program converts them.) */
typedef struct dg_salt {
    double concentration;
    int cation_valence; /**< e.g. 1 for Na+, 2 for Mg2+ */
    int anion_valence;  /**< magnitude, e.g. 1 for Cl- */
} dg_salt;

/* ---------------------------------------------------------------------------------------------
 * Dense medium, for callers that are not DelPhi.  The library derives the sparse form itself
 * with DelPhi's rules (boundary points where the six face permittivities differ, or where a
 * salt point's permittivity is not epsilon_solvent).
 * ------------------------------------------------------------------------------------------- */
#define DG_DECLARE_DENSE_MEDIUM(REAL, SUFFIX)                                                      \
    typedef struct dg_dense_medium_##SUFFIX {                                                      \
        int nx, ny, nz;                                                                            \
        double scale;       /* grid points per Angstrom (h = 1/scale) */                           \
        double temperature; /* K; 0 = 297.3342 (DelPhi's default) */                               \
        /* Relative permittivity at the cell-face midpoints, either as three full-grid arrays      \
           (eps_x[p] is the midpoint between (x,y,z) and (x+1,y,z), eps_y and eps_z likewise in y  \
           and z; entries beyond the last face are ignored) ... */                                 \
        const REAL *eps_x, *eps_y, *eps_z;                                                         \
        /* ... or, when eps_x is NULL, as 1-byte medium numbers per face (same layout) indexing    \
           medium_epsilon[medium_count] (DelPhi's iepsmp, 3 bytes per point instead of 12/24). */  \
        const unsigned char *medium_x, *medium_y, *medium_z;                                       \
        const double *medium_epsilon;                                                              \
        int medium_count;                                                                          \
        /* Fixed charges (e): a full-grid map, or NULL and a list of (0-based full index, charge)  \
           pairs, repeats summed (e.g. 8 trilinear shares per atom).  Charges on faces are an      \
           error. */                                                                               \
        const REAL *charge;                                                                        \
        const long *charge_list_index;                                                             \
        const REAL *charge_list_value;                                                             \
        long charge_list_count;                                                                    \
        /* Salt: NULL map or no salts = Poisson. */                                                \
        const unsigned char *ion_accessible; /* full grid, nonzero = mobile ions allowed */        \
        const dg_salt *salts;                /* [salt_count] */                                    \
        int salt_count;                                                                            \
        double epsilon_solvent; /* relative permittivity of the ionic solution (DelPhi exdi) */    \
    } dg_dense_medium_##SUFFIX;

DG_DECLARE_DENSE_MEDIUM(float, f)  /* dg_dense_medium_f */
DG_DECLARE_DENSE_MEDIUM(double, d) /* dg_dense_medium_d */

/** Sizes of the sparse form derived from a dense medium (dg_sparse_counts_*). */
typedef struct dg_sparse_counts {
    int boundary_count_odd, boundary_count;
    int charge_count_odd, charge_count;
    /** charged points not inside the solute (DelPhi's cgbp): six faces not all equal, or one
        at epsilon_solvent (when that is 0: a point with mobile ions) */
    int charges_not_interior;
} dg_sparse_counts;

/* ---------------------------------------------------------------------------------------------
 * Result of a solve.
 * ------------------------------------------------------------------------------------------- */
typedef struct dg_result {
    int outcome;           /**< dg_outcome (DIVERGED leaves phi as it was on entry) */
    int iterations;        /**< SOR iterations completed (linear + nonlinear) */
    int linear_iterations; /**< of which in the linear phase */
    int nonlinear_blocks;  /**< nonlinear blocks completed */
    int checks;            /**< convergence checks done */
    double max_change;     /**< of phi at the last check (kT/e); multigrid: its last cycle's */
    double rms_change;
    double norm_change;
    double spectral_radius;   /**< used (given or estimated) */
    double omega;             /**< linear SOR factor used */
    double final_relpar;      /**< nonlinear relaxation at the end (1 if linear) */
    int estimated_iterations; /**< DelPhi's noit estimate from the spectral radius */
    int backend;              /**< dg_backend actually used (CPU or CUDA) */
    int precision;            /**< dg_precision used */
    int equation;             /**< dg_equation solved (LINEAR or NONLINEAR_PB) */
    double setup_seconds;     /**< upload, spectral radius, preparation */
    double solve_seconds;     /**< the iteration loop */
    double total_seconds;
    int solver; /**< dg_solver_method that ran (SOR or MULTIGRID; AUTO resolved) */
} dg_result;

#ifdef __cplusplus
}
#endif

#endif /* DELPHI_GPU_TYPES_H */
