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
    int in_solve; /* 1 while dg_solve_* runs (its progress callback may call back into the API) */
};

/** Largest num_threads dg_create accepts (documented in delphi_gpu.h). */
#define DG_MAX_THREADS 4096

/** DG_ERR_STATE with a message naming the call when a progress callback re-enters the handle
 *  (dg_set_*_medium, dg_set_options, dg_solve_*, dg_estimate_spectral_radius, dg_destroy);
 *  DG_OK otherwise.  The running solve is left untouched. */
int dg_reject_reentry(dg_solver s, const char *call);

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

/** Seconds on a monotonic clock. */
double dg_wall_seconds(void);

#endif /* DG_SOLVER_INTERNAL_H */
