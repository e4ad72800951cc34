/* The seam between the solver core (validation, spectral radius, iteration control) and a
 * backend (CPU/OpenMP or CUDA) that stores the half grids and runs the sweeps.
 *
 * The core owns the loop: it asks the backend for blocks of iterations and for the change
 * measured over the last iteration of a block; only those few scalars cross the seam while
 * iterating.  Every function returns a dg_status and, on failure, writes a message naming the
 * failing call into err (never prints).
 */
#ifndef DG_BACKEND_H
#define DG_BACKEND_H

#include <float.h>
#include <math.h>
#include <stddef.h>

#include "prepared.h"
#include "stages.h"

typedef struct dg_error {
    int status;
    char message[1024];
} dg_error;

/** Record a failure: sets err->status and formats err->message. Returns status. */
int dg_error_set(dg_error *err, int status, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/** Seconds on a monotonic clock. */
double dg_wall_seconds(void);

/** Mixed precision (DG_PRECISION_MIXED): the backends fold the correction into the double
 *  iterate (and recompute the residual) once at least dg_refine_sweeps(omega, has_salt)
 *  iterations ran since the last fold, before store_phi and before a new nonlinear source;
 *  fewer folds move fewer bytes.  A step's inner solve is only as exact as its 16-bit rhs
 *  (refine_rhs.h: a relative rounding up to 2^-8, 2^-7 with salt), and SOR shrinks the error by
 *  about omega - 1 per sweep, so after log(2^-8) / log(omega - 1) sweeps a step gains nothing
 *  more: on small grids (omega - 1 = 0.73 at 21^3) 30 sweeps went past that and mixed needed
 *  30 % more iterations than double; steps of half that length, 10 to DG_REFINE_SWEEPS = 30
 *  (from about 70^3 on), keep the rounding below 1/16 of a step's gain.  Both backends compute
 *  it here from the same omega, so they fold alike. */
#define DG_REFINE_SWEEPS     30
#define DG_REFINE_MIN_SWEEPS 10

static inline int dg_refine_sweeps(double omega, int has_salt) {
    const double rate = omega - 1.0;
    if (!(rate > 0.0 && rate < 1.0)) return DG_REFINE_SWEEPS;
    const double saturated = log(has_salt ? 0x1p-7 : 0x1p-8) / log(rate);
    const double half = 0.5 * saturated;
    return half < DG_REFINE_MIN_SWEEPS ? DG_REFINE_MIN_SWEEPS
           : half > DG_REFINE_SWEEPS   ? DG_REFINE_SWEEPS
                                       : (int)half;
}

/** Settings fixed when the backend is created (from dg_options). */
typedef struct dg_backend_config {
    int precision;   /* dg_precision */
    int device;      /* CUDA device ordinal */
    int num_threads; /* CPU threads, 0 = default */
    int block_x, block_y, autotune;
} dg_backend_config;

/** Change over the last iteration of a block, on the even half grid (colour 1), at 0-based
 *  half-indices 1, 1+stride, 1+2*stride, ... (DelPhi's convergence sample). */
typedef struct dg_change {
    double max_abs;   /* max |delta| */
    double sum_sq;    /* sum of delta^2, accumulated in double */
    int finite;       /* 0 if any sampled value or delta was NaN/Inf */
    double max_value; /* max |value| of the sample after the iteration (float precision, 0
                         otherwise): the scale of float's resolution */
} dg_change;

/** A Debye-Hueckel sum at the grid faces (dg_debye_huckel_faces_*): positions in 0-based grid
 *  coordinates (3 per charge), values coefficient * sum_i q_i e^(-inverse_length r)/r. */
typedef struct dg_face_request {
    int nx, ny, nz;
    const double *positions, *charges;
    long count;
    double coefficient, inverse_length;
} dg_face_request;

typedef struct dg_backend_ops {
    const char *name; /* "cpu" or "cuda" */

    int (*create)(void **state, const dg_backend_config *config, dg_error *err);
    void (*destroy)(void *state);

    /* Take a prepared medium (copy or upload what is needed; prep stays owned by the core and
       alive until the next set_medium or destroy).  Allocates the half grids. */
    int (*set_medium)(void *state, const dg_prepared *prep, dg_error *err);

    /* Full grid (x fastest, element type double if is_double else float) <-> half grids.
       load_phi also resets the nonlinear source to zero; store_phi writes interior points
       only (faces are left untouched). */
    int (*load_phi)(void *state, const void *phi, int is_double, dg_error *err);
    int (*store_phi)(void *state, void *phi, int is_double, dg_error *err);

    /* Relaxation factor for the following iterations. */
    int (*set_omega)(void *state, double omega, dg_error *err);

    /* Run `count` >= 1 iterations (odd sweep + corrections + charges, then even likewise).
       If `measure`, snapshot the sample before the last iteration and fill `change`. */
    int (*iterate)(void *state, int count, int measure, int stride, dg_change *change,
                   dg_error *err);

    /* Nonlinear PB: recompute the lagged source qmap from the current phi at flag-1 points
       (zero elsewhere and where p^2 > 2500); fraction scales it.  Before the first call qmap
       is zero. */
    int (*update_nonlinear_source)(void *state, double fraction, dg_error *err);

    /* The sum of a dg_face_request at every entry of the face list (face_points.h), in double,
       charges in index order.  Needs no medium. */
    int (*face_potentials)(void *state, const dg_face_request *request, double *out, dg_error *err);

    /* ---- Building blocks of a domain-decomposed iteration (mpi/mpi_backend.c) ---- */

    /* Half an iteration: the sweep of colour c, then its boundary and charge corrections
       (exactly what iterate does for that colour), without measuring. */
    int (*iterate_colour)(void *state, int colour, dg_error *err);

    /* The values of colour c in plane z (the half-index range dg_plane_range gives), in the
       working precision: copied out of the half grid into buf (to_backend = 0) or from buf into
       it (to_backend = 1). */
    int (*plane_values)(void *state, int z, int colour, void *buf, int to_backend, dg_error *err);

    /* Convergence sample of colour c at half-indices first + j*stride, 0 <= j < count: remember
       the values (snapshot = 1), or measure the change since that snapshot (snapshot = 0). */
    int (*sample_change)(void *state, int colour, long first, long stride, long count, int snapshot,
                         dg_change *change, dg_error *err);
    /* Stage operations (stages.h), inputs already validated; need no medium. */
    int (*pair_potentials)(void *state, const dg_pair_request *request, double *out, long *skipped,
                           dg_error *err);
    int (*medium_maps)(void *state, const dg_surface_request *request, unsigned char *face[3],
                       unsigned char *ion, dg_medium_counts *counts, dg_error *err);
    int (*surface_sites)(void *state, const dg_surface_request *request, const double *points,
                         long count, double reach, double *sites, int *owners, long *unprojected,
                         dg_error *err);

    /* load_phi for a phi whose interior points are all +0.0 (the caller checked their bits):
       reads only the face points (transfer_host.h) and zeroes the interior, with the same
       result as load_phi.  NULL where a backend has no such path (the core calls load_phi). */
    int (*load_phi_faces)(void *state, const void *phi, int is_double, dg_error *err);

    /* Seconds the latest store_phi spent waiting for the device (its kernels and copies to the
       host), the rest of it being host copies: where a slow store loses its time.  NULL where a
       backend does not wait. */
    double (*store_wait_seconds)(void *state);

    /* dg_spectral_radius of the medium set, the same double to the last bit, computed where the
       medium is (the same expressions, summed in the same order).  DG_ERR_UNSUPPORTED when this
       backend cannot reproduce that order for this medium (the core then computes it on the
       host); NULL where a backend has no such path. */
    int (*spectral_radius)(void *state, const dg_prepared *prep, double *spectral_radius,
                           dg_error *err);

    /* ---- Halos from device to device between the processes of one node (mpi/mpi_backend.c);
       NULL where a backend has no such path (the halos then go through host memory) ---- */

    /* Describe the half grids (allocated by set_medium) for another process of this node: an
       opaque blob of DG_PEER_HANDLE_BYTES.  DG_ERR_UNSUPPORTED when they cannot be shared. */
    int (*peer_export)(void *state, unsigned char *handle, dg_error *err);
    /* Map the half grids another process exported into slot 0 or 1; a NULL handle unmaps the
       slot.  Fails (and leaves the slot empty) when this device cannot reach that memory. */
    int (*peer_open)(void *state, int slot, const unsigned char *handle, dg_error *err);
    /* Queue, behind the work already queued, a copy of count values of the mapped peer's half
       grid peer_colour from half-index peer_first into this backend's colour at first; the next
       iterate_colour runs after it.  The caller makes sure the peer's values are final. */
    int (*peer_pull)(void *state, int slot, int peer_colour, long peer_first, int colour,
                     long first, long count, dg_error *err);
    /* Wait until all queued work has finished; reports its failures. */
    int (*finish)(void *state, dg_error *err);
    /* Choose the sweeps' block shape for the medium set now, by timing iterations of it (the
       autotune that iterate does during its own first iterations; iterate_colour does not
       tune), when a choice is due; *ran = 1 when it iterated: the half grids then hold other
       values (load phi again).  NULL where a backend has no shapes to choose. */
    int (*tune)(void *state, int *ran, dg_error *err);
    /* Arc dots of a molecular surface (stages.h, dg_stage_arc_dots_on), inputs validated:
       counts[count] per atom, *dots malloc'ed (3 * *total doubles).  NULL where the backend
       has none (the surface model then finds them on the host threads). */
    int (*arc_dots)(void *state, const dg_arc_dots_request *request, int *counts, double **dots,
                    long *total, dg_error *err);
    /* Coulomb field sums (stages.h, dg_stage_pair_fields_on), inputs validated: 3 values per
       target.  NULL where the backend has none (the host's threads compute them). */
    int (*pair_fields)(void *state, const dg_pair_request *request, double *out, long *skipped,
                       dg_error *err);
} dg_backend_ops;

/** Bytes of a peer_export blob. */
#define DG_PEER_HANDLE_BYTES 192

/* The host pieces of dg_spectral_radius (spectral.c) that a backend's spectral_radius shares:
   the lowest Laplacian eigenmode along one axis (n values, malloc'd; NULL when out of memory),
   along a periodic axis (periodic != 0) the constant 1/sqrt(n-2), the estimate from the final
   sum (DelPhi's clamps), and whether the prepared lists are ascending at interior points (the
   order in which dg_spectral_radius sums their terms is then the list order of the backends'
   sorted copies). */
double *dg_spectral_axis(int n);
double *dg_spectral_mode_axis(int n, int periodic);
double dg_spectral_from_sum(double total);
int dg_spectral_lists_ordered(const dg_prepared *prep);

/** Half-index range [*first, *end) of colour c in plane z of an nx x ny x nz grid. */
static inline void dg_plane_range(int nx, int ny, int z, int colour, long *first, long *end) {
    const long plane = (long)nx * ny;
    *first = (plane * z + 1 - colour) / 2;
    *end = (plane * (z + 1) + 1 - colour) / 2;
}

/** The host implementation of face_potentials (OpenMP), used by the CPU backend. */
void dg_face_potentials_host(const dg_face_request *request, double *out, int num_threads);

extern const dg_backend_ops dg_cpu_backend_ops;

/** The CUDA backend's ops, or NULL in a build without CUDA. */
const dg_backend_ops *dg_cuda_backend(void);

/** Number of usable CUDA devices; fills err and returns its status when the runtime fails.
 *  0 devices is DG_OK with *count = 0. In a build without CUDA returns
 *  DG_ERR_BACKEND_NOT_BUILT. */
int dg_cuda_count_devices(int *count, dg_error *err);

/** Begin CUDA's start-up (driver, and the primary context of device) on a background thread;
 *  a second call does nothing.  DG_OK, or a status and err when the thread cannot be started
 *  (DG_ERR_BACKEND_NOT_BUILT without CUDA). */
int dg_cuda_begin_start(int device, dg_error *err);

/** Wait for a start-up begun by dg_cuda_begin_start (no-op otherwise).  Called by every path
 *  that uses CUDA, so the runtime is never entered by two threads for its initialisation. */
void dg_cuda_wait_start(void);

/** The least size of the page-locked transfer slabs a CUDA backend allocates from now on, in this
 *  process (0, the default: each slab holds one transfer chunk of its grid).  The DelPhi kit's
 *  warm-up raises it, so that the slabs its kept solver allocates in the background already fit
 *  the first real call's grid.  No-op without CUDA. */
void dg_cuda_set_pinned_floor(size_t bytes);

#endif /* DG_BACKEND_H */
