/* delphi-gpu: finite-difference Poisson-Boltzmann solver module for DelPhi-style electrostatics.
 *
 * Typical use:
 *
 *     dg_options opt;
 *     dg_default_options(&opt);
 *     opt.max_change_tol = 1e-4;
 *     dg_solver solver = NULL;
 *     int st = dg_create(&solver, &opt);                  // chooses and starts the backend
 *     if (st == DG_OK) st = dg_set_dense_medium_d(solver, &medium);   // or dg_set_sparse_medium_*
 *     dg_result result;
 *     if (st == DG_OK) st = dg_solve_d(solver, phi, &result);  // phi: faces = boundary values
 *     if (st != DG_OK) fprintf(stderr, "delphi-gpu: %s\n", dg_last_error(solver));
 *     dg_destroy(solver);
 *
 * Every function returns a dg_status.  dg_create hands back a handle even when it fails (unless
 * the handle itself cannot be allocated), so dg_last_error can say why; always dg_destroy it.
 * The library keeps no global state, never prints and never exits; handles are independent and
 * may be used from different threads (one thread per handle at a time).
 * See delphi_gpu_types.h for the grid, index and unit conventions.
 */
#ifndef DELPHI_GPU_H
#define DELPHI_GPU_H

#include "delphi_gpu_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque solver handle: options, backend, the prepared medium and workspaces. */
typedef struct dg_solver_s *dg_solver;

/* ---- Library information -------------------------------------------------------------- */

/** "major.minor.patch" */
DG_API const char *dg_version_string(void);

/** Short fixed text for a status code ("invalid argument", ...). Never NULL. */
DG_API const char *dg_status_string(int status);

/** Short fixed text for an outcome ("converged", ...). Never NULL. */
DG_API const char *dg_outcome_string(int outcome);

/** 1 if this build contains the backend (DG_BACKEND_CPU is always built), else 0. */
DG_API int dg_backend_built(int backend);

/** Number of usable CUDA devices (0 without CUDA support or GPUs).  Returns DG_OK, or
 *  DG_ERR_BACKEND_NOT_BUILT in a build without CUDA (count is then 0). */
DG_API int dg_cuda_device_count(int *count);

/** Begin CUDA's start-up (the driver, and the primary context of `device`) on a background
 *  thread, so that it overlaps the caller's own work; dg_create, dg_cuda_device_count and the
 *  CUDA backend wait for it before they use CUDA.  Failures of the start-up itself are not
 *  reported here: the later calls meet and report them.  Returns DG_OK (also when already
 *  begun), DG_ERR_INVALID_ARGUMENT for device < 0, DG_ERR_BACKEND_NOT_BUILT without CUDA, or
 *  DG_ERR_OUT_OF_MEMORY when no thread can be started. */
DG_API int dg_begin_cuda_start(int device);

/** Wait until a start-up begun by dg_begin_cuda_start has finished (returns at once when none
 *  was begun).  A program that begins one and may end without creating a solver calls this
 *  before it exits. */
DG_API void dg_wait_cuda_start(void);

/* ---- Options ----------------------------------------------------------------------------- */

/** Fill options with the defaults documented in dg_options. */
DG_API void dg_default_options(dg_options *options);

/* ---- Handle ------------------------------------------------------------------------------ */

/** Create a solver.  options may be NULL (defaults).  Validates the options and starts the
 *  backend; with DG_BACKEND_AUTO and no usable GPU it uses the CPU and dg_notice() says so. */
DG_API int dg_create(dg_solver *solver, const dg_options *options);

/** Free everything the handle owns.  NULL is allowed.  Called from the handle's own progress
 *  callback (during dg_solve_*) it does nothing and records DG_ERR_STATE as the last error. */
DG_API void dg_destroy(dg_solver solver);

/** Detailed message of the last failure on this handle (names the field, index and value);
 *  "" when the last call succeeded.  Also accepts NULL (a generic message). */
DG_API const char *dg_last_error(dg_solver solver);

/** One-line informational notice set by dg_create ("" if none), e.g. the CPU fallback of
 *  DG_BACKEND_AUTO; it stays for the life of the handle.  The library never prints it. */
DG_API const char *dg_notice(dg_solver solver);

/** Which linear solver the latest dg_solve_* ran and why, one line (e.g. "multigrid: solver
 *  AUTO, linear equation, 385^3 grid (>= 161^3 on the cuda backend)"); "" before the first
 *  solve or for NULL. */
DG_API const char *dg_solver_choice(dg_solver solver);

/** Replace the iteration, stopping, relaxation, nonlinear, divergence and progress options.
 *  backend, precision, device, num_threads and the block shape cannot change
 *  (DG_ERR_INVALID_ARGUMENT). */
DG_API int dg_set_options(dg_solver solver, const dg_options *options);

/** The options in force (backend resolved from AUTO to the one in use). */
DG_API int dg_get_options(dg_solver solver, dg_options *options);

/** Backend in use: DG_BACKEND_CPU or DG_BACKEND_CUDA. */
DG_API int dg_get_backend(dg_solver solver, int *backend);

/* ---- Medium ------------------------------------------------------------------------------ */

/** Set the medium from DelPhi's sparse form.  Validates everything (dimensions, NaN/Inf,
 *  indices, parity, counts, duplicates, implied permittivity) and copies what it needs. */
DG_API int dg_set_sparse_medium_f(dg_solver solver, const dg_sparse_medium_f *medium);
DG_API int dg_set_sparse_medium_d(dg_solver solver, const dg_sparse_medium_d *medium);

/** Set the medium from dense maps; the library derives the sparse form with DelPhi's rules. */
DG_API int dg_set_dense_medium_f(dg_solver solver, const dg_dense_medium_f *medium);
DG_API int dg_set_dense_medium_d(dg_solver solver, const dg_dense_medium_d *medium);

/** Sizes of the DelPhi sparse form of a dense medium (to allocate dg_sparse_from_dense_*). */
DG_API int dg_sparse_counts_f(const dg_dense_medium_f *medium, dg_sparse_counts *counts,
                              char *message, size_t message_size);
DG_API int dg_sparse_counts_d(const dg_dense_medium_d *medium, dg_sparse_counts *counts,
                              char *message, size_t message_size);

/** Derive DelPhi's sparse form of a dense medium into caller-allocated arrays:
 *  boundary_index[boundary_count] (DelPhi half-indices), boundary_weights[6*boundary_count],
 *  charge_index[charge_count], charge_source[charge_count], and, when the medium has salt,
 *  salt_factor_odd[(n+1)/2] and salt_factor_even[(n+1)/2] (n = nx*ny*nz; salt model PER_POINT).
 *  out's scalar fields are filled and its pointers set to these arrays.  message (may be NULL)
 *  receives the reason of a failure. */
DG_API int dg_sparse_from_dense_f(const dg_dense_medium_f *medium, int *boundary_index,
                                  float *boundary_weights, int *charge_index, float *charge_source,
                                  float *salt_factor_odd, float *salt_factor_even,
                                  dg_sparse_medium_f *out, char *message, size_t message_size);
DG_API int dg_sparse_from_dense_d(const dg_dense_medium_d *medium, int *boundary_index,
                                  double *boundary_weights, int *charge_index,
                                  double *charge_source, double *salt_factor_odd,
                                  double *salt_factor_even, dg_sparse_medium_d *out, char *message,
                                  size_t message_size);

/* ---- Solve ------------------------------------------------------------------------------- */

/** Gauss-Seidel spectral radius of the current medium, estimated as DelPhi's relfac does
 *  (lowest Laplacian eigenmode, one red-black Jacobi pass) but accumulated in double. */
DG_API int dg_estimate_spectral_radius(dg_solver solver, double *spectral_radius);

/** DelPhi's iteration estimate int(7.8 / ln(1 + sqrt(1 - spectral_radius))). */
DG_API int dg_estimate_iterations(double spectral_radius);

/** Solve.  phi is the full grid (nx*ny*nz, x fastest): on entry the six faces hold the
 *  boundary values and the interior the initial guess (DelPhi uses 0); on return the interior
 *  holds the potential, the faces are unchanged (with options.periodic, the points of the
 *  periodic faces whose other coordinates are interior hold their images' values; on entry
 *  they serve as a first guess).  result may be NULL.  A solve that does not
 *  converge or diverges returns DG_OK with result->outcome saying so. */
DG_API int dg_solve_f(dg_solver solver, float *phi, dg_result *result);
DG_API int dg_solve_d(dg_solver solver, double *phi, dg_result *result);

/** DG_OK when a phi of nx x ny x nz points is the medium's grid, else DG_ERR_COUNT_MISMATCH
 *  naming both (DG_ERR_STATE without a medium): for callers that know phi's shape (the
 *  Fortran binding's 3-D solve checks it before dg_solve). */
DG_API int dg_check_grid(dg_solver solver, long nx, long ny, long nz);

/* ---- Boundary values ------------------------------------------------------------------- */

/** Debye-Hueckel (screened Coulomb) potential of point charges at every point of the six faces
 *  of phi, on the backend the options choose (NULL = defaults: the GPU when one works), summed
 *  in double: phi(p) = coefficient * sum_i charges[i] exp(-inverse_length r_i) / r_i, with
 *  r_i = |p - positions[i]| in grid units and positions in 0-based grid coordinates (3 per
 *  charge; a charge exactly on a face point is skipped there).  DelPhi's coulombic (every
 *  charge) and dipolar (two centroids) boundary conditions in kT/e: coefficient =
 *  scale * epkt / eps_out, inverse_length = 1/(Debye length * scale), 0 without salt.  Interior
 *  points of phi are not touched.  message (may be NULL) receives the reason of a failure. */
DG_API int dg_debye_huckel_faces_f(const dg_options *options, int nx, int ny, int nz,
                                   const double *positions, const double *charges, long count,
                                   double coefficient, double inverse_length, float *phi,
                                   char *message, size_t message_size);
DG_API int dg_debye_huckel_faces_d(const dg_options *options, int nx, int ny, int nz,
                                   const double *positions, const double *charges, long count,
                                   double coefficient, double inverse_length, double *phi,
                                   char *message, size_t message_size);

#ifdef __cplusplus
}
#endif

#endif /* DELPHI_GPU_H */
