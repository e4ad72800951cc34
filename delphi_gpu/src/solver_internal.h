/* The solver handle and the core's internal entry points. */
#ifndef DG_SOLVER_INTERNAL_H
#define DG_SOLVER_INTERNAL_H

#include "delphi_gpu/delphi_gpu.h"

#include "backend.h"
#include "prepared.h"

struct dg_solver_s {
    dg_options options;            /* backend resolved to CPU or CUDA */
    const dg_backend_ops *backend; /* NULL until dg_create succeeds */
    void *backend_state;
    int has_medium;
    int medium_loaded_in_backend;
    dg_prepared prep;
    double spectral_radius_cache; /* < 0 until estimated for the current medium */
    dg_error error;
    char notice[1200];
};

/** Record an error on the handle and return its status. */
int dg_fail(dg_solver s, int status, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/** Clear the last error at the start of an API call (the notice stays). */
void dg_clear_error(dg_solver s);

/** Validate options; message names the field.  Returns a dg_status. */
int dg_validate_options(const dg_options *options, char *message, size_t message_size);

/** Install a freshly prepared medium on the handle (takes ownership of prep's arrays). */
int dg_install_medium(dg_solver s, dg_prepared *prep);

/** Gauss-Seidel spectral radius of a prepared medium, DelPhi's relfac in double.  Returns
 *  DG_OK or DG_ERR_OUT_OF_MEMORY. */
int dg_spectral_radius(const dg_prepared *prep, int num_threads, double *spectral_radius);

/** The cached estimate for the handle's medium (computed on first use). */
int dg_cached_spectral_radius(dg_solver s, double *spectral_radius);

/** The iteration loop on the backend's half grids (phi already loaded). */
int dg_run_solver(dg_solver s, dg_result *result);

/** The Debye-Hueckel face sums of a request on an existing solver's backend (no new solver,
 *  no medium needed), written into the faces of phi (double when is_double, else float).
 *  Returns a dg_status with the message in message. */
int dg_face_potentials_on_solver(dg_solver s, const dg_face_request *request, void *phi,
                                 int is_double, char *message, size_t message_size);

/** dg_set_dense_medium_d deriving the medium once and handing back, from that derivation, its
 *  sparse counts and (boundary, count not NULL) the dielectric-boundary points (the six face
 *  permittivities differ; salt boundaries left out) as 0-based full indices, DelPhi's order
 *  (odd points, then even, each in grid order; malloc'ed). */
int dg_set_dense_medium_boundary_d(dg_solver s, const dg_dense_medium_d *m,
                                   dg_sparse_counts *counts, long **boundary, size_t *count);

/** Seconds on a monotonic clock. */
double dg_wall_seconds(void);

#endif /* DG_SOLVER_INTERNAL_H */
