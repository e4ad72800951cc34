/* The solver handle and the core's internal entry points. */
#ifndef DG_SOLVER_INTERNAL_H
#define DG_SOLVER_INTERNAL_H

#include "delphi_gpu/delphi_gpu.h"

#include "backend.h"
#include "prepared.h"

/** Where a handle's time went (wall seconds, the latest call of each kind), for instrumentation:
 *  the medium's preparation on the host and its hand-over to the backend (upload), the phi check
 *  and load, the spectral-radius estimate (0 when cached or given), the iterations (the whole
 *  loop, autotuning included) and the store; faces_only: the last load read only phi's faces
 *  (its interior was all +0.0). */
typedef struct dg_solver_timing {
    double prepare, upload, check_phi, load_phi, spectral, iterate, store_phi;
    double store_wait; /* of store_phi: waiting for the device (0 on the CPU) */
    int faces_only;
    /* multigrid (0 for SOR): set-up (hierarchy and phi to the solver), the cycles, and the
       set-up's parts: phi in, the hierarchy built, the answer back to the caller.  On CUDA the
       phi check runs beside the hierarchy's set-up: check_phi is then its own duration, and
       any wait for it falls into mg_build */
    double mg_setup, mg_cycles, mg_phi_in, mg_build, mg_phi_out;
    double mg_check_wait, mg_release; /* parts of mg_build (CUDA) */
    double mg_graph;                  /* part of mg_cycles (CUDA) */
} dg_solver_timing;

/* dg_solve's check of the caller's phi as the multigrid path sees it (solve.c); it may run on
   a thread of its own beside the multigrid set-up.  wait(check, block): 1 when every interior
   value is +0.0, 0 when not, -1 when phi holds a non-finite value (the solve must then leave phi
   untouched), DG_MG_CHECK_RUNNING (mg/mg.h) while it runs unless block is set (then it waits).
   faces(check): phi's face values packed in dg_face_pack's order (transfer_host.h), which the
   check's thread packs before it checks, waiting for them; NULL when they were not packed. */
typedef struct dg_phi_check_view {
    int (*wait)(void *check, int block);
    const void *(*faces)(void *check);
    void *check;
} dg_phi_check_view;

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
    dg_backend_ops mpi_ops; /* the MPI wrapper's table when options.mpi_comm is set */
    int mpi_entry_pending;  /* an entry point's status still to agree on (dg_mpi_entry_agree) */
    int stock_behaviour;    /* 1 = DelPhi's own entry points: exactly stock's iteration rules (no
                               "float resolution reached" stop, the nonlinear scheme's whole linear
                               phase) */
    void *mg_phi; /* the caller's phi during dg_solve (multigrid reads it and writes its answer) */
    int mg_phi_is_double;
    /* dg_solve's phi check, for multigrid (dg_phi_check_view) */
    dg_phi_check_view mg_check;
    int active_solver;       /* the dg_solver_method of the latest dg_solve (AUTO resolved) */
    char solver_choice[384]; /* which solver that was and why (dg_solver_choice) */
    dg_solver_timing timing;
    int in_solve; /* 1 while dg_solve_* runs (its progress callback may call back into the API) */
    int *loop_begun; /* when set, dg_solve stores 1 there (release) as its iterations begin, once
                        phi is loaded: the DelPhi kit's helper thread waits for it */
    /* dg_set_sparse_medium's per-point marks (boundary, charge; per colour), kept all zero
       between calls so that a repeated call on the same grid (DelPhi's itit/nitit calls) neither
       allocates nor page-faults them again; sized for mark_half[] points per colour */
    unsigned char *mark_scratch[2][2];
    long mark_half[2];
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

/* The ions' concentrations (mol/L) of a salt counted as its smallest neutral formula unit
 * M_a X_b, a = z- / g, b = z+ / g, g = gcd(z+, z-) (dg_salt's convention; medium_dense.c). */
void dg_salt_ions(const dg_salt *salt, double *cation, double *anion);

/** Install a freshly prepared medium on the handle (takes ownership of prep's arrays). */
int dg_install_medium(dg_solver s, dg_prepared *prep);

/** Gauss-Seidel spectral radius of a prepared medium, DelPhi's relfac in double.  Returns
 *  DG_OK or DG_ERR_OUT_OF_MEMORY. */
int dg_spectral_radius(const dg_prepared *prep, int num_threads, double *spectral_radius);
/** The same estimate through a scratch copy of the whole odd half grid (dg_spectral_radius's
 *  form for lists that are not ascending or hold non-interior points), bitwise the same value. */
int dg_spectral_radius_scratch(const dg_prepared *prep, int num_threads, double *spectral_radius);

/** The cached estimate for the handle's medium (computed on first use). */
int dg_cached_spectral_radius(dg_solver s, double *spectral_radius);

/** The solver a dg_solve uses (options.solver with AUTO resolved by the grid size, backend and
 *  equation); why (a sentence naming the solver) goes to why.  In src/mg/mg_choose.c. */
int dg_mg_choose(dg_solver s, char *why, size_t why_size);

/** 1 when the latest dg_solve runs multigrid as the inner solver of Newton's method (on the
 *  backend's half grids, as the SOR's Newton), 0 otherwise.  In src/mg/mg_choose.c. */
int dg_mg_inner_newton(dg_solver s);

/** The iteration loop on the backend's half grids (phi already loaded). */
int dg_run_solver(dg_solver s, dg_result *result);

/** With options.mpi_comm (a DG_MPI build): wrap the handle's backend in the domain-decomposed
 *  one (mpi/mpi_backend.c).  Collective over the communicator. */
int dg_mpi_wrap(dg_solver s, dg_error *err);
/** dg_create's status on every rank of options.mpi_comm before the wrap (MPI_MAX, the worst
 *  wins; "another MPI rank failed to create its solver (status N)" where this rank's was DG_OK);
 *  status itself where MPI is not running (dg_mpi_wrap says so). */
int dg_mpi_agree_create(dg_solver s, int status);
/** For a handle split over MPI ranks: how many and how their halos travel, e.g. "4 MPI ranks,
 *  halos from device to device (CUDA IPC)"; "" otherwise. */
void dg_mpi_describe(dg_solver s, char *out, size_t size);
/** A decomposed handle's status agreed by every rank (MPI_MAX: the worst wins); a rank whose own
 *  status was DG_OK gets "another MPI rank failed to <what> (status N)".  Returns status itself
 *  for a handle that is not decomposed (and without MPI). */
int dg_mpi_agree_status(dg_solver s, int status, const char *what);
/** An entry point of a decomposed handle agrees on its status once per call, so that a rank that
 *  fails before the call's first collective step does not leave the others waiting there:
 *  dg_mpi_entry_begin marks the agreement due; dg_mpi_entry_agree makes it if still due (at that
 *  first step with DG_OK, or at the call's end with its status) and returns the agreed status.
 *  Without MPI, or for a handle that is not decomposed, it returns status. */
void dg_mpi_entry_begin(dg_solver s);
/** 1 when flag is non-zero on any rank of a decomposed handle (every rank calls it at the same
 *  point); flag itself otherwise. */
int dg_mpi_any(dg_solver s, int flag);
/* Under MPI, after the solve's entry agreement: DG_OK when every rank has the same iteration
   options and medium scalars, else DG_ERR_INVALID_ARGUMENT naming the first that differs (on
   every rank).  A single process: DG_OK. */
int dg_mpi_same_setup(dg_solver s);
int dg_mpi_entry_agree(dg_solver s, int status, const char *what);
/** Make every rank use rank 0's value (a no-op without MPI). */
int dg_mpi_agree_double(dg_solver s, double *value);
/** This process's rank in a decomposed handle's communicator; 0 otherwise. */
int dg_mpi_rank(dg_solver s);
/** The backend a created handle runs on: its ops table and state (for the stage operations). */
void dg_solver_backend(dg_solver s, const dg_backend_ops **ops, void **state);

/** The handle's timing record (zeros for NULL). */
void dg_solver_get_timing(dg_solver s, dg_solver_timing *timing);

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

#endif /* DG_SOLVER_INTERNAL_H */
